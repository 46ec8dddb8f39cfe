/*
 * Unit tests of lib/xfer.c's read(2)/write(2) path: probation and where
 * it ends, and the links that stay on read/write (an O_APPEND output,
 * SPATE_ZEROCOPY=0, a small file, a trickle).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib-xfer.h"

TEST(append)
{
	size_t len = MiB + 3;
	char *data = pattern(0, len), *want = xmalloc(len + 6);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xtmpfile_with("prior\n", 6);

	zerocopy_env(NULL);
	xsetfl(out, O_APPEND);	/* its offset is at 0: O_APPEND must win */
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	memcpy(want, "prior\n", 6);
	memcpy(want + 6, data, len);
	ok(l.fast == PATH_RW && good_run(moved, len, used, RW) &&
	    file_holds(out, want, len + 6),
	    "file -> O_APPEND file: read/write only, appended after what "
	    "was there");
	link_free(&l);
	close(in);
	close(out);
	free(data);
	free(want);
}

TEST(zerocopy_off)
{
	size_t len = 2 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), out[2], keep;

	zerocopy_env("0");
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(l.fast == PATH_RW && l.path == PATH_RW &&
	    good_run(moved, len, used, RW) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "SPATE_ZEROCOPY=0: file -> pipe by read/write only; every byte");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
	zerocopy_env(NULL);
}

/* A small file into a pipe (which holds it whole): read/write only. */
TEST(small_file)
{
	size_t len = ZC_AFTER - 1;
	char *data = pattern(0, len), *got = xmalloc(len + 1);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out[2];

	zerocopy_env(NULL);
	xpipe(out);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(good_run(moved, len, used, RW) && l.path == PATH_RW &&
	    l.fast == FAST(PATH_SPLICE) &&
	    read(out[0], got, len + 1) == (ssize_t)len &&
	    memcmp(got, data, len) == 0,
	    "a file of ZC_AFTER - 1 bytes into a pipe: read/write only, no "
	    "zero-copy set-up");
	link_free(&l);
	close(in);
	close(out[0]);
	free(got);
	free(data);
}

TEST(probation_boundary)
{
	size_t len = ZC_AFTER;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	ssize_t n;
	int in = xtmpfile_with(data, len), out[2];

	zerocopy_env(NULL);
	xpipe(out);
	link_fds(&l, &i, in, &o, out[1]);
	n = link_step(&l, STEP);
	ok(n == (ssize_t)len && l.path == FAST(PATH_SPLICE),
	    "a read of exactly ZC_AFTER bytes ends probation");
	link_free(&l);
	close(in);
	close_pair(out);
	free(data);
}

/* The parent writes 100 pieces of 1000 bytes, stepping after each: a
 * trickle of 100 KB in all stays on read/write. */
TEST(trickle)
{
	size_t len = 100000, off;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used = 0;
	off_t moved = 0;
	ssize_t n = 0;
	int in[2], out = xtmpfile();

	zerocopy_env(NULL);
	xpipe(in);
	link_fds(&l, &i, in[0], &o, out);
	for (off = 0; off < len; off += 1000) {
		xwrite(in[1], data + off, 1000);
		if ((n = link_step(&l, STEP)) != 1000)
			break;
		used |= BIT(l.path);
		moved += n;
	}
	close(in[1]);
	if (n == 1000)
		n = link_step(&l, STEP);
	ok(n == 0 && good_run(moved, len, used, RW) && l.path == PATH_RW &&
	    file_holds(out, data, len),
	    "pipe trickle of 1000-byte pieces: stays on read/write");
	link_free(&l);
	close(in[0]);
	close(out);
	free(data);
}
