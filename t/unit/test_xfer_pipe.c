/*
 * Unit tests of xfer_pipe (lib/xfer.c): tee(2) or splice(2) from one pipe
 * to another.  The portable build has neither call and does not build
 * this file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib-xfer.h"

/* A pipe holding the LEN bytes of BUF, writer still open (in P[1]). */
static void
full_pipe(int p[2], const char *buf, size_t len)
{
	xpipe(p);
	xwrite(p[1], buf, len);
}

/* Return 1 if pipe FD has nothing to read now. */
static int
empty(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

TEST(xfer_dup)
{
	struct io_call c;
	size_t len = 60000;
	char *data = pattern(0, len), *a = xmalloc(len), *b = xmalloc(len);
	int in[2], out[2];
	ssize_t n;

	full_pipe(in, data, len);
	xpipe(out);
	n = xfer_pipe(&c, in[0], out[1], MiB, 1);
	ok(n == (ssize_t)len && read_exact(out[0], a, len) == 0 &&
	    memcmp(a, data, len) == 0 && read_exact(in[0], b, len) == 0 &&
	    memcmp(b, data, len) == 0 && empty(in[0]) && empty(out[0]),
	    "xfer_pipe with dup (tee): the output gets the bytes, the input "
	    "keeps them");
	close_pair(in);
	close_pair(out);
	free(data);
	free(a);
	free(b);
}

TEST(xfer_move)
{
	struct io_call c;
	size_t len = 60000;
	char *data = pattern(0, len), *a = xmalloc(len);
	int in[2], out[2];
	ssize_t n;

	full_pipe(in, data, len);
	xpipe(out);
	n = xfer_pipe(&c, in[0], out[1], MiB, 0);
	ok(n == (ssize_t)len && read_exact(out[0], a, len) == 0 &&
	    memcmp(a, data, len) == 0 && empty(in[0]),
	    "xfer_pipe without dup (splice): the bytes move, the input is "
	    "empty");
	close_pair(in);
	close_pair(out);
	free(data);
	free(a);
}

TEST(xfer_short_len)
{
	struct io_call c;
	int in[2], out[2];
	char buf[8];
	ssize_t n;

	full_pipe(in, "abcdefgh", 8);
	xpipe(out);
	n = xfer_pipe(&c, in[0], out[1], 3, 0);
	ok(n == 3 && read(out[0], buf, sizeof buf) == 3 &&
	    memcmp(buf, "abc", 3) == 0 && read(in[0], buf, sizeof buf) == 5 &&
	    memcmp(buf, "defgh", 5) == 0,
	    "xfer_pipe: never more than LEN bytes");
	close_pair(in);
	close_pair(out);
}

TEST(xfer_eof)
{
	struct io_call c;
	int in[2], out[2];
	ssize_t a, b;

	xpipe(in);
	xpipe(out);
	close(in[1]);
	in[1] = -1;
	a = xfer_pipe(&c, in[0], out[1], MiB, 0);
	b = xfer_pipe(&c, in[0], out[1], MiB, 1);
	ok(a == 0 && b == 0, "xfer_pipe: 0 at end of input, with dup or not");
	close_pair(in);
	close_pair(out);
}

/* Both pipes non-blocking, the input empty until a child writes. */
TEST(xfer_waits)
{
	struct io_call c;
	int in[2], out[2];
	char buf[8];
	ssize_t n;
	pid_t pid;

	xpipe2(in, O_NONBLOCK);
	xpipe2(out, O_NONBLOCK);
	if ((pid = xfork()) == 0) {
		usleep(50 * 1000);
		_exit(write(in[1], "later", 5) == 5 ? 0 : 1);
	}
	n = xfer_pipe(&c, in[0], out[1], MiB, 0);
	ok(n == 5 && read(out[0], buf, sizeof buf) == 5 &&
	    memcmp(buf, "later", 5) == 0 && exited_ok(pid),
	    "xfer_pipe: an empty non-blocking input is waited for, no EAGAIN");
	close_pair(in);
	close_pair(out);
}

TEST(xfer_errors)
{
	struct io_call c;
	int in[2], out[2], fd = xtmpfile(), e;
	ssize_t n;

	full_pipe(in, "abc", 3);
	errno = 0;
	n = xfer_pipe(&c, in[0], fd, MiB, 1);
	e = errno;
	ok(n == -1 && e == EINVAL, "xfer_pipe with dup into a file: -1 "
	    "EINVAL (tee(2) needs two pipes)");
	xpipe(out);
	close(out[0]);
	out[0] = -1;
	errno = 0;
	n = xfer_pipe(&c, in[0], out[1], MiB, 0);
	e = errno;
	ok(n == -1 && e == EPIPE,
	    "xfer_pipe into a pipe whose reader left: -1 EPIPE");
	close_pair(in);
	close_pair(out);
	close(fd);
}

/* xfer_pipe_try: blocking pipes, the input empty, then the output full:
 * EAGAIN at once, nothing moved or lost; then the bytes move. */
TEST(xfer_try_not_ready)
{
	struct io_call c;
	int in[2], out[2], e;
	char buf[8];
	ssize_t n, m;
	size_t room;

	xpipe(in);
	xpipe(out);
	errno = 0;
	n = xfer_pipe_try(&c, in[0], out[1], MiB, 0);
	e = errno;
	ok(n == -1 && e == EAGAIN && !c.waiting,
	    "xfer_pipe_try from an empty blocking pipe: -1 EAGAIN, no wait");
	xwrite(in[1], "abc", 3);
	/* Fill the output's slots, a byte of the input's page each. */
	for (room = 0; room < 4096 &&
	    xfer_pipe_try(&c, in[0], out[1], 1, 1) == 1; room++)
		;
	errno = 0;
	n = xfer_pipe_try(&c, in[0], out[1], MiB, 1);
	e = errno;
	m = xfer_pipe_try(&c, in[0], out[1], MiB, 0);
	ok(room > 0 && n == -1 && e == EAGAIN && m == -1 && errno == EAGAIN &&
	    read(in[0], buf, sizeof buf) == 3 && memcmp(buf, "abc", 3) == 0,
	    "xfer_pipe_try into a full blocking pipe, tee(2) and splice(2): "
	    "-1 EAGAIN, the input left whole");
	close_pair(in);
	close_pair(out);
}
