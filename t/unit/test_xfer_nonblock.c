/*
 * Unit tests of lib/xfer.c with non-blocking descriptors: a link waits
 * for a slow reader or writer (EAGAIN, then poll) and loses nothing.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib-xfer.h"

/* A file into a non-blocking pipe whose reader is slow, with
 * SPATE_ZEROCOPY=ZC (unset if NULL). */
static void
nonblock_output(const char *zc)
{
	size_t len = 4 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), out[2], keep;
	unsigned expect = RW | (zc == NULL ? ZC(PATH_SPLICE) : 0);

	zerocopy_env(zc);
	xpipe(out);
	xsetfl(out[1], O_NONBLOCK);
	spid = sink(out[0], out[1], 100, 4096, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(good_run(moved, len, used, expect) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "file -> non-blocking pipe, slow reader%s: waits, every byte, "
	    "no error", zc == NULL ? "" : ", SPATE_ZEROCOPY=0");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
	zerocopy_env(NULL);
}

TEST(nonblock_output)
{
	nonblock_output(NULL);
}

TEST(nonblock_output_rw)
{
	nonblock_output("0");
}

TEST(nonblock_input)
{
	size_t len = 3 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid;
	int in, out = xtmpfile();

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 4096, 100, 0, &fpid);
	xsetfl(in, O_NONBLOCK);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    exited_ok(fpid) && file_holds(out, data, len),
	    "non-blocking pipe, slow writer -> file: waits, every byte");
	link_free(&l);
	close(out);
	free(data);
}
