/*
 * Unit tests of lib/xfer.c's copy_file_range(2) path: a link between two
 * regular files, and a file of no size, whose 0 read(2) must confirm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib-xfer.h"

/*
 * Between two files copy_file_range(2) from the first byte (a copy the
 * file system shares is shared whole); with the input's size known, the
 * call that brings the last of it ends the input, and no call says 0.
 */
TEST(file_to_file)
{
	size_t len = 3 * MiB + 11;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xtmpfile();

	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	link_retarget(&l, &i, len);
	ok(l.fast == FAST(PATH_COPY_RANGE) && l.path == l.fast,
	    "file -> file: copy_file_range chosen, from the first byte");
	moved = run(&l, &used);
	ok(good_run(moved, len, used, BIT(FAST(PATH_COPY_RANGE))) &&
	    l.ended && l.path == l.fast &&
	    offset_is(in, len) && offset_is(out, len) && file_holds(out, data, len),
	    "file -> file: copy_file_range; every byte, both offsets moved");
	link_free(&l);
	close(in);
	close(out);
	free(data);
}

#ifndef SPATE_PORTABLE
/* A file of no size (as in /proc): copy_file_range says 0 at once, and
 * read(2) takes over. */
TEST(file_no_size)
{
	char want[65536];
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	ssize_t len;
	int in = open("/proc/version", O_RDONLY), out = xtmpfile();

	if (in == -1) {
		ok(1, "file of no size # skip no /proc/version");
		close(out);
		return;
	}
	len = read(in, want, sizeof want);
	if (len <= 0 || lseek(in, 0, SEEK_SET) != 0)
		bail_out("read /proc/version: %s", strerror(errno));
	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	l.path = l.fast;	/* past probation */
	moved = run(&l, &used);
	ok(i.kind == K_FILE && good_run(moved, len, used, RW) &&
	    file_holds(out, want, len),
	    "file of no size -> file: copy_file_range's 0 is confirmed by "
	    "read(2), every byte");
	link_free(&l);
	close(in);
	close(out);
}
#endif
