/*
 * Unit tests of lib/xfer.c's splice(2) path: a link with a pipe on one
 * side and a pipe or a regular file on the other, every byte checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib-xfer.h"

TEST(pipe_to_pipe)
{
	size_t len = 8 * MiB + 3;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid, spid;
	int in, out[2], keep;

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 65536, 0, 0, &fpid);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    l.path == FAST(PATH_SPLICE) && exited_ok(fpid) &&
	    exited_ok(spid) && file_holds(keep, data, len),
	    "pipe -> pipe: read/write on probation, then splice; every byte");
	link_free(&l);
	close(keep);
	free(data);
}

TEST(file_to_pipe)
{
	size_t len = 3 * MiB + 5;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), out[2], keep;

	zerocopy_env(NULL);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    l.path == FAST(PATH_SPLICE) && offset_is(in, len) &&
	    exited_ok(spid) && file_holds(keep, data, len),
	    "file -> pipe: splice; every byte, the input offset at its end");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
}

TEST(pipe_to_file)
{
	size_t len = 5 * MiB + 7;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid;
	int in, out = xtmpfile();

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 100000, 0, 0, &fpid);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    l.path == FAST(PATH_SPLICE) && exited_ok(fpid) &&
	    offset_is(out, len) && file_holds(out, data, len),
	    "pipe -> file: splice; every byte");
	link_free(&l);
	close(out);
	free(data);
}
