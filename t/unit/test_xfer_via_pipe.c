/*
 * Unit tests of lib/xfer.c's path through the link's private pipe: two
 * splice(2) calls where neither side is a pipe (a file to /dev/null or
 * to a socket, a socket to a file), or where the pipe is the user's and
 * the other side waits on a peer (a pipe to a socket).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib-xfer.h"

TEST(file_to_devnull)
{
	size_t len = 3 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xopen("/dev/null", O_WRONLY);

	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && offset_is(in, len) &&
	    l.via_held == 0,
	    "file -> /dev/null: through the private pipe, to the end");
#ifndef SPATE_PORTABLE
	ok(l.via[0] > STDERR_FILENO && l.via[1] > STDERR_FILENO,
	    "file -> /dev/null: the private pipe is at fd 3 or above");
#endif
	link_free(&l);
	close(in);
	close(out);
	free(data);
}

TEST(file_to_socket)
{
	size_t len = 2 * MiB + 9;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), s[2], keep;

	zerocopy_env(NULL);
	xsocketpair(s);
	spid = sink(s[0], s[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, s[1]);
	moved = run(&l, &used);
	close(s[1]);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "file -> socket: through the private pipe; every byte");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
}

TEST(socket_to_file)
{
	size_t len = 2 * MiB + 13;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid;
	int in, out = xtmpfile();

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 65536, 0, 1, &fpid);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && exited_ok(fpid) &&
	    file_holds(out, data, len),
	    "socket -> file: through the private pipe; every byte");
	link_free(&l);
	close(out);
	free(data);
}

/*
 * From a pipe into a socket: the splice(2) that waits for room in the
 * socket holds a pipe of ours, never the input pipe, whose writer may be
 * the socket's reader (choose_path).
 */
TEST(pipe_to_socket)
{
	size_t len = 3 * MiB + 17;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid, spid;
	int in, s[2], keep;

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 65536, 0, 0, &fpid);
	xsocketpair(s);
	spid = sink(s[0], s[1], 0, 4096, &keep);
	link_fds(&l, &i, in, &o, s[1]);
	moved = run(&l, &used);
	close(s[1]);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && exited_ok(fpid) &&
	    exited_ok(spid) && file_holds(keep, data, len),
	    "pipe -> socket: through the private pipe; every byte");
	link_free(&l);
	close(keep);
	free(data);
}
