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
#include <sys/wait.h>
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
	n = xfer_pipe(&c, in[0], out[1], MiB, 1, NULL);
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
	n = xfer_pipe(&c, in[0], out[1], MiB, 0, NULL);
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
	n = xfer_pipe(&c, in[0], out[1], 3, 0, NULL);
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
	a = xfer_pipe(&c, in[0], out[1], MiB, 0, NULL);
	b = xfer_pipe(&c, in[0], out[1], MiB, 1, NULL);
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
	n = xfer_pipe(&c, in[0], out[1], MiB, 0, NULL);
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
	n = xfer_pipe(&c, in[0], fd, MiB, 1, NULL);
	e = errno;
	ok(n == -1 && e == EINVAL, "xfer_pipe with dup into a file: -1 "
	    "EINVAL (tee(2) needs two pipes)");
	xpipe(out);
	close(out[0]);
	out[0] = -1;
	errno = 0;
	n = xfer_pipe(&c, in[0], out[1], MiB, 0, NULL);
	e = errno;
	ok(n == -1 && e == EPIPE,
	    "xfer_pipe into a pipe whose reader left: -1 EPIPE");
	close_pair(in);
	close_pair(out);
	close(fd);
}

/* A caller's wait (struct io_wait) that says, call after call, what
 * SAYS holds (0, 1 or -1, then 1 for good), and counts its calls. */
struct said {
	int says[4];
	int calls;
};

static int
say(void *ctx)
{
	struct said *s = ctx;

	return s->calls < 4 ? s->says[s->calls++] : (s->calls++, 1);
}

/*
 * A wait that comes after the call (TELLS): blocking pipes, the input
 * empty, then the output full: the call says EAGAIN at once, the wait
 * is asked, and its 1 gives up: -1 ETIMEDOUT, nothing moved or lost;
 * its 0 makes the call again.
 */
TEST(xfer_wait_gives_up)
{
	struct said s = { { 1 }, 0 }, t = { { 1 }, 0 }, u = { { 0, 1 }, 0 };
	struct io_wait w = { say, &s, 1 }, x = { say, &t, 1 },
	    y = { say, &u, 1 };
	struct io_call c;
	int in[2], out[2], e;
	char buf[8];
	ssize_t n, m;
	size_t room;

	xpipe(in);
	xpipe(out);
	errno = 0;
	n = xfer_pipe(&c, in[0], out[1], MiB, 0, &w);
	e = errno;
	ok(n == -1 && e == ETIMEDOUT && c.gave_up && !c.waiting &&
	    s.calls == 1, "xfer_pipe from an empty blocking pipe, a wait "
	    "that gives up: -1 ETIMEDOUT, asked once, no wait of its own");
	xwrite(in[1], "abc", 3);
	/* Fill the output's slots, a byte of the input's page each. */
	for (room = 0; room < 4096 &&
	    xfer_pipe(&c, in[0], out[1], 1, 1, &x) == 1; room++)
		;
	t.calls = 0;
	errno = 0;
	n = xfer_pipe(&c, in[0], out[1], MiB, 1, &x);
	e = errno;
	m = xfer_pipe(&c, in[0], out[1], MiB, 0, &y);
	ok(room > 0 && n == -1 && e == ETIMEDOUT && t.calls == 1 &&
	    m == -1 && errno == ETIMEDOUT && u.calls == 2 &&
	    read(in[0], buf, sizeof buf) == 3 && memcmp(buf, "abc", 3) == 0,
	    "xfer_pipe into a full blocking pipe, tee(2) and splice(2): "
	    "a wait's 0 makes the call again, its 1 gives up, the input "
	    "left whole");
	close_pair(in);
	close_pair(out);
}

/* A wait that comes first (no TELLS): its 1 gives up before any call,
 * though the call could move; its 0 lets the call move. */
TEST(xfer_wait_first)
{
	struct said s = { { 1 }, 0 }, t = { { 0 }, 0 };
	struct io_wait w = { say, &s, 0 }, x = { say, &t, 0 };
	struct io_call c;
	int in[2], out[2], e, g;
	char buf[8];
	ssize_t n, m;

	full_pipe(in, "abc", 3);
	xpipe(out);
	errno = 0;
	n = xfer_pipe(&c, in[0], out[1], MiB, 0, &w);
	e = errno;
	g = c.gave_up;
	m = xfer_pipe(&c, in[0], out[1], MiB, 0, &x);
	ok(n == -1 && e == ETIMEDOUT && g && s.calls == 1 &&
	    m == 3 && t.calls == 1 && read(out[0], buf, sizeof buf) == 3 &&
	    memcmp(buf, "abc", 3) == 0,
	    "xfer_pipe, a wait first: its 1 makes no call, its 0 the call");
	close_pair(in);
	close_pair(out);
}

/* A caller's wait that cannot wait: it fails (EINVAL), and first
 * tells the reader of the full output pipe (a byte into *CTX) to drain
 * it 100 ms later, so that room comes only once the call waits. */
static int
fail_then_drain(void *ctx)
{
	int *go = ctx;

	if (write(*go, "", 1) != 1)
		bail_out("write: %s", strerror(errno));
	errno = EINVAL;
	return -1;
}

/* A wait that fails (-1) leaves the wait to the call, in the kernel: a
 * full output pipe whose reader drains it only after the wait was asked
 * takes the bytes. */
TEST(xfer_wait_fails)
{
	struct said t = { { 1 }, 0 };
	struct io_call c;
	struct io_wait w = { fail_then_drain, NULL, 1 }, x = { say, &t, 1 };
	int in[2], out[2], go[2], status;
	size_t room;
	pid_t pid;
	ssize_t n;

	full_pipe(in, "abc", 3);
	xpipe(out);
	xpipe(go);
	w.ctx = &go[1];
	for (room = 0; room < 4096 &&
	    xfer_pipe(&c, in[0], out[1], 1, 1, &x) == 1; room++)
		;
	if ((pid = xfork()) == 0) {
		char buf[4096];

		close(go[1]);
		if (read(go[0], buf, 1) != 1)
			_exit(2);
		usleep(100000);
		_exit(read(out[0], buf, sizeof buf) > 0 ? 0 : 1);
	}
	close(go[0]);
	n = xfer_pipe(&c, in[0], out[1], MiB, 0, &w);
	waitpid(pid, &status, 0);
	ok(room > 0 && n == 3 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0,
	    "xfer_pipe, a wait that fails: the call waits in the kernel "
	    "until the reader drains the pipe");
	close(go[1]);
	close_pair(in);
	close_pair(out);
}
