/*
 * Unit tests of link_retarget and link_free (lib/xfer.c): a link given
 * one input after another, its path chosen anew for each, its private
 * pipe kept; and an input's size telling where it ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib-xfer.h"

TEST(retarget)
{
	size_t len1 = MiB + 1, len2 = 2 * MiB + 3, len3 = MiB + 5;
	size_t len = len1 + len2 + len3;
	char *data = pattern(0, len);
	struct end i1, i2, i3, o;
	struct link l;
	unsigned used1, used2, used3;
	off_t m1, m2, m3;
	pid_t spid, fpid2, fpid3;
	int in1 = xtmpfile_with(data, len1), in2, in3, p[2], keep, via[2];
	int same_via, fresh, taken;

	zerocopy_env(NULL);
	xpipe(p);
	spid = sink(p[0], p[1], 0, 65536, &keep);
	end_init(&i1, in1);
	end_init(&o, p[1]);
	link_init(&l, &i1, &o);
	m1 = run(&l, &used1);

	in2 = feeder(data + len1, len2, ZC_AFTER, 65536, 0, 1, &fpid2);
	end_init(&i2, in2);
	link_retarget(&l, &i2, 0);
	fresh = l.path == PATH_RW && l.fast == FAST(PATH_VIA_PIPE) &&
	    l.in == &i2;
	m2 = run(&l, &used2);
	via[0] = l.via[0];
	via[1] = l.via[1];
	close(in2);

	/* Were the private pipe closed here, this would take its number
	 * and a new one would show. */
	taken = xtmpfile();
	in3 = feeder(data + len1 + len2, len3, ZC_AFTER, 65536, 0, 1, &fpid3);
	end_init(&i3, in3);
	link_retarget(&l, &i3, 0);
	fresh &= l.path == PATH_RW && l.fast == FAST(PATH_VIA_PIPE);
	m3 = run(&l, &used3);
	same_via = l.via[0] == via[0] && l.via[1] == via[1];
	close(p[1]);
	close(in3);

	ok(fresh, "link_retarget: read/write again, the path chosen anew "
	    "for the new input, its count at 0");
	ok(good_run(m1, len1, used1, RW | ZC(PATH_SPLICE)) &&
	    good_run(m2, len2, used2, RW | ZC(PATH_VIA_PIPE)) &&
	    good_run(m3, len3, used3, RW | ZC(PATH_VIA_PIPE)) &&
	    exited_ok(fpid2) && exited_ok(fpid3) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "link_retarget: file, socket, socket -> pipe: every byte in order");
#ifndef SPATE_PORTABLE
	ok(same_via && via[0] != -1,
	    "link_retarget: the private pipe is kept, not made again");
#endif
	link_free(&l);
	ok(l.via[0] == -1 && l.via[1] == -1 && l.buf == NULL &&
	    (via[0] == -1 || fcntl(via[0], F_GETFD) == -1) &&
	    (via[1] == -1 || fcntl(via[1], F_GETFD) == -1),
	    "link_free: the private pipe closed, the buffer freed");
	close(in1);
	close(keep);
	close(taken);
	free(data);
}

/*
 * A regular input's size, given to link_retarget: a short read that
 * brings all of it is the end, with no read more (bytes added after it
 * are not read); short of the size (a /sys file says more than it
 * holds), the read of 0 is waited for, and what comes meanwhile is
 * read.
 */
TEST(size_ends)
{
	char *data = pattern(0, 3000);
	struct end i, o;
	struct link l;
	ssize_t n1, n2, n3, m1, m2, m3;
	int in = xtmpfile_with(data, 2000), out = xtmpfile();

	zerocopy_env(NULL);
	end_init(&i, in);
	end_init(&o, out);
	link_init(&l, &i, &o);
	link_retarget(&l, &i, 2000);
	n1 = link_step(&l, STEP);
	if (pwrite(in, data + 2000, 1000, 2000) != 1000)
		bail_out("pwrite: %s", strerror(errno));
	n2 = link_step(&l, STEP);
	n3 = link_step(&l, STEP);
	ok(n1 == 2000 && n2 == 0 && n3 == 0 && l.ended,
	    "link_retarget with the size: a short read of all of it ends "
	    "the input, no read more");

	if (lseek(in, 0, SEEK_SET) != 0 || ftruncate(in, 2000) == -1)
		bail_out("rewind: %s", strerror(errno));
	link_retarget(&l, &i, 4096);
	m1 = link_step(&l, STEP);
	if (pwrite(in, data + 2000, 1000, 2000) != 1000)
		bail_out("pwrite: %s", strerror(errno));
	m2 = link_step(&l, STEP);
	m3 = link_step(&l, STEP);
	ok(m1 == 2000 && m2 == 1000 && m3 == 0,
	    "link_retarget with a size above what is there: read until 0");
	link_free(&l);
	close(in);
	close(out);
	free(data);
}
