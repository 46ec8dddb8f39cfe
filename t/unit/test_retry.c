/*
 * Unit tests of the one retry policy (lib/io.c's io_move and
 * io_move_all) on plain reads and writes: every value io_move returns,
 * EINTR, EAGAIN on either side, short counts, and the side of every
 * failure.  The zero-copy calls' are test_retry_zerocopy.c's.
 */
#define _GNU_SOURCE

#include "lib-retry.h"

/* In a child: return once process PID sleeps (blocked in a call). */
static void
wait_asleep(pid_t pid)
{
	char path[64], s[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	for (;;) {
		if ((fd = open(path, O_RDONLY)) == -1)
			_exit(2);
		n = read(fd, s, sizeof s - 1);
		close(fd);
		if (n <= 0)
			_exit(2);
		s[n] = '\0';
		if ((p = strrchr(s, ')')) != NULL && p[1] == ' ' &&
		    p[2] == 'S')
			return;
		usleep(1000);
	}
}

static int ack[2];
static volatile sig_atomic_t got_usr1;

/* The signal's handler: says it ran, on ACK. */
static void
on_usr1(int sig)
{
	(void)sig;
	got_usr1++;
	if (write(ack[1], "s", 1) != 1)
		_exit(9);
}

/*
 * io_move of OP from the blocking empty pipe IN[0] (to the pipe OUT[1]
 * for splice) while a child interrupts it with a signal whose handler
 * has no SA_RESTART, and writes 4 bytes only once the handler ran.
 */
static void
check_eintr(enum io_op op, const char *name)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	int in[2], out[2];
	char buf[16];
	struct io_call c = { .op = op, .buf = buf, .len = sizeof buf };
	pid_t parent = getpid(), pid;
	ssize_t n;

	xpipe(in);
	xpipe(out);
	xpipe(ack);
	c.in = in[0];
	c.out = op == IO_READ ? -1 : out[1];
	sigaction(SIGUSR1, &sa, &old);
	got_usr1 = 0;
	if ((pid = xfork()) == 0) {
		char s;

		wait_asleep(parent);
		kill(parent, SIGUSR1);
		if (read(ack[0], &s, 1) != 1)
			_exit(3);
		_exit(write(in[1], "data", 4) == 4 ? 0 : 4);
	}
	n = io_move(&c);
	ok(n == 4 && got_usr1 == 1 && exited_ok(pid),
	    "io_move %s: EINTR (no SA_RESTART) is retried, the count follows",
	    name);
	sigaction(SIGUSR1, &old, NULL);
	close_pair(in);
	close_pair(out);
	close_pair(ack);
}

/* A count, then 0 at end of input. */
TEST(count_then_end)
{
	char buf[16];
	struct io_call c = { .op = IO_READ, .in = ended_pipe("abc"), .out = -1,
	    .buf = buf, .len = sizeof buf };
	ssize_t a, b;

	a = io_move(&c);
	b = io_move(&c);
	ok(a == 3 && memcmp(buf, "abc", 3) == 0 && b == 0,
	    "io_move read: the count, then 0 at end of input");
	close(c.in);
}

static int hook_fd;

/* Make HOOK_FD, a pipe's write end, readable. */
static void
feed_hook(void)
{
	xwrite(hook_fd, "xy", 2);
}

/* EAGAIN on an empty non-blocking input: waited for in poll(2). */
TEST(eagain_waits)
{
	int p[2];
	char buf[16];
	struct io_call c = { .op = IO_READ, .out = -1, .buf = buf,
	    .len = sizeof buf };
	ssize_t n;

	xpipe2(p, O_NONBLOCK);
	c.in = p[0];
	hook_fd = p[1];
	poll_hook = feed_hook;
	fail_waits(0);
	n = io_move(&c);
	poll_hook = NULL;
	ok(n == 2 && poll_waits == 1,
	    "io_move read: EAGAIN waited out in one poll, then the count");
	close_pair(p);
}

/*
 * IO_PEEK on an empty non-blocking record socket: EAGAIN waited for in
 * poll(2), then the whole length of the record (2 bytes, more than the
 * 1 asked), which stays to be read.
 */
TEST(peek_waits)
{
	int s[2];
	char buf[16];
	struct io_call c = { .op = IO_PEEK, .out = -1, .buf = buf, .len = 1 };
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s) == -1)
		bail_out("socketpair: %s", strerror(errno));
	xsetfl(s[0], O_NONBLOCK);
	c.in = s[0];
	hook_fd = s[1];
	poll_hook = feed_hook;
	fail_waits(0);
	n = io_move(&c);
	poll_hook = NULL;
	ok(n == 2 && poll_waits == 1 && read(s[0], buf, sizeof buf) == 2 &&
	    memcmp(buf, "xy", 2) == 0,
	    "io_move peek: EAGAIN waited out in one poll, then the record's "
	    "length, the record left to read");
	close_pair(s);
}

/* A failed wait: -1, poll's errno, the side waited on, waiting 1. */
TEST(wait_fails)
{
	int in[2], out[2];
	char buf[16] = "0123456789abcdef";
	struct io_call r = { .op = IO_READ, .out = -1, .buf = buf,
	    .len = sizeof buf };
	struct io_call w = { .op = IO_WRITE, .in = -1, .buf = buf,
	    .len = sizeof buf };
	ssize_t a, b;
	int ea, eb;

	xpipe2(in, O_NONBLOCK);
	full_pipe(out);
	r.in = in[0];
	w.out = out[1];
	fail_waits(1);
	a = io_move(&r);
	ea = errno;
	b = io_move(&w);
	eb = errno;
	fail_waits(0);
	ok(a == -1 && ea == ENOMEM && r.waiting == 1 && r.side == SPATE_INPUT,
	    "io_move read: a failed wait gives -1, poll's errno, SPATE_INPUT");
	ok(b == -1 && eb == ENOMEM && w.waiting == 1 && w.side == SPATE_OUTPUT,
	    "io_move write: a failed wait gives -1, poll's errno, SPATE_OUTPUT");
	close_pair(in);
	close_pair(out);
}

/* The call's own failure: its descriptor's side, waiting 0. */
TEST(call_fails)
{
	int p[2], dir = xopen(".", O_RDONLY | O_DIRECTORY);
	char buf[16] = "";
	struct io_call r = { .op = IO_READ, .in = dir, .out = -1, .buf = buf,
	    .len = sizeof buf };
	struct io_call w = { .op = IO_WRITE, .in = -1, .buf = buf,
	    .len = sizeof buf };
	ssize_t a, b, z;
	int ea, eb;

	signal(SIGPIPE, SIG_IGN);
	xpipe(p);
	close(p[0]);
	w.out = p[1];
	a = io_move(&r);
	ea = errno;
	b = io_move(&w);
	eb = errno;
	w.len = 0;
	z = io_move(&w);
	signal(SIGPIPE, SIG_DFL);
	ok(a == -1 && ea == EISDIR && r.waiting == 0 && r.side == SPATE_INPUT,
	    "io_move read of a directory: -1 EISDIR, SPATE_INPUT");
	ok(b == -1 && eb == EPIPE && w.waiting == 0 && w.side == SPATE_OUTPUT,
	    "io_move write, no reader: -1 EPIPE, SPATE_OUTPUT");
	ok(z == 0, "io_move write of 0 bytes: 0");
	close(p[1]);
	close(dir);
}

static int drain_fd;

/* Empty HOOK's pipe, DRAIN_FD its read end, of what it holds. */
static void
drain_hook(void)
{
	char buf[4096];

	while (read(drain_fd, buf, sizeof buf) > 0)
		;
}

/* One write into a pipe with a little room comes short; io_move_all
 * loops on to the end, waiting in poll for room. */
TEST(short_writes)
{
	int p[2];
	char *data = pattern(0, 100000), *got = xmalloc(200000);
	struct io_call c = { .op = IO_WRITE, .in = -1, .buf = data,
	    .len = 100000 };
	ssize_t n;
	int r;

	full_pipe(p);
	c.out = p[1];
	drain_fd = p[0];
	if (read(p[0], got, 4096) != 4096)
		bail_out("read: %s", strerror(errno));
	n = io_move(&c);
	ok(n > 0 && n < 100000, "io_move write: a short count (%zd)", n);
	drain_hook();
	c.buf = data;
	c.len = 100000;
	poll_hook = drain_hook;
	fail_waits(0);
	r = io_move_all(&c);
	poll_hook = NULL;
	ok(r == 0 && c.len == 0 && c.buf == data + 100000 && poll_waits > 0,
	    "io_move_all write: short counts and EAGAIN looped on to the end");
	free(data);
	free(got);
	close_pair(p);
}

/* io_move_all from an input that ends early: EIO, SPATE_INPUT. */
TEST(all_ends_early)
{
	char buf[10];
	struct io_call c = { .op = IO_READ, .in = ended_pipe("12345"),
	    .out = -1, .buf = buf, .len = sizeof buf };
	int r, e;

	r = io_move_all(&c);
	e = errno;
	ok(r == -1 && e == EIO && c.side == SPATE_INPUT && c.len == 5,
	    "io_move_all read: an end before LEN gives -1 EIO, SPATE_INPUT");
	close(c.in);
}

TEST(eintr_read)
{
	check_eintr(IO_READ, "read");
}

#ifndef SPATE_PORTABLE
TEST(eintr_splice)
{
	check_eintr(IO_SPLICE, "splice");
}
#endif
