/*
 * Unit tests of the one retry policy (lib/io.c's io_move and
 * io_move_all) and of its users' contracts: every value io_move
 * returns, EINTR, EAGAIN on either side, short counts, and the side of
 * every failure (xfer_pipe, link_step, link_put, handoff_send).
 *
 * A wait that fails, and a vmsplice(2) that says 0, cannot be had from
 * the kernel on demand: this file defines its own poll() and vmsplice(),
 * which the engine linked into it calls, and which do as the real ones
 * unless a case asks otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

static int poll_fails;		/* a blocking poll() fails with ENOMEM */
static int peek_fails;		/* so does one that does not wait */
static void (*poll_hook)(void);	/* runs before a blocking poll() */
static int poll_waits;		/* blocking poll() calls so far */

/* poll(2), by ppoll(2), but as the case asks of a blocking wait. */
int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct timespec ts = { timeout / 1000, timeout % 1000 * 1000000L };

	if (timeout >= 0 && peek_fails) {
		errno = ENOMEM;
		return -1;
	}
	if (timeout < 0) {
		poll_waits++;
		if (poll_fails) {
			errno = ENOMEM;
			return -1;
		}
		if (poll_hook != NULL)
			poll_hook();
	}
	return ppoll(fds, n, timeout < 0 ? NULL : &ts, NULL);
}

#ifndef SPATE_PORTABLE
static int vmsplice_zero;	/* the next vmsplice() says 0 */

/* vmsplice(2), but 0 once if the case asks. */
ssize_t
vmsplice(int fd, const struct iovec *iov, size_t n, unsigned int flags)
{
	if (vmsplice_zero) {
		vmsplice_zero = 0;
		return 0;
	}
	return syscall(SYS_vmsplice, fd, iov, n, flags);
}
#endif

#ifndef SPATE_PORTABLE
static int tee_zero;		/* the next tee() calls say 0 */

/* tee(2), but 0 as many times as the case asks, as the kernel's does
 * when another writer fills the output between its look and its link. */
ssize_t
tee(int in, int out, size_t len, unsigned int flags)
{
	if (tee_zero > 0) {
		tee_zero--;
		return 0;
	}
	return syscall(SYS_tee, in, out, len, flags);
}
#endif

/* Make the next blocking waits fail (ON 1) or work (ON 0). */
static void
fail_waits(int on)
{
	poll_fails = on;
	poll_waits = 0;
}

/* A non-blocking pipe P whose write end is full. */
static void
full_pipe(int p[2])
{
	char buf[4096] = { 0 };

	xpipe2(p, O_NONBLOCK);
	while (write(p[1], buf, sizeof buf) > 0)
		;
	if (errno != EAGAIN)
		bail_out("filling a pipe: %s", strerror(errno));
}

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

/* The read end of a pipe that holds the string S and has no writer. */
static int
ended_pipe(const char *s)
{
	int p[2];

	xpipe(p);
	xwrite(p[1], s, strlen(s));
	close(p[1]);
	return p[0];
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

#ifndef SPATE_PORTABLE
/* splice, two descriptors: the side that was not ready is recorded. */
TEST(splice_sides)
{
	int in[2], out[2], full[2], side_in = 0, side_out = 0;
	struct io_call a = { .op = IO_SPLICE, .len = 4096 };
	struct io_call b = { .op = IO_SPLICE, .len = 4096 }, c;
	ssize_t na, nb, nc, nd;

	xpipe2(in, O_NONBLOCK);
	xpipe(out);
	full_pipe(full);
	a.in = in[0];
	a.out = out[1];
	fail_waits(1);
	na = io_move(&a);
	nc = xfer_pipe(&c, in[0], out[1], 4096, 0, NULL);
	side_in = c.waiting ? c.side : 0;
	xwrite(in[1], "abc", 3);
	b.in = in[0];
	b.out = full[1];
	nb = io_move(&b);
	nd = xfer_pipe(&c, in[0], full[1], 4096, 1, NULL);
	side_out = c.waiting ? c.side : 0;
	fail_waits(0);
	ok(na == -1 && a.waiting == 1 && a.side == SPATE_INPUT,
	    "io_move splice, input empty, the wait fails: SPATE_INPUT");
	ok(nb == -1 && b.waiting == 1 && b.side == SPATE_OUTPUT,
	    "io_move splice, output full, the wait fails: SPATE_OUTPUT");
	ok(nc == -1 && side_in == SPATE_INPUT && nd == -1 &&
	    side_out == SPATE_OUTPUT,
	    "xfer_pipe (splice, tee): the side a failed wait was on");
	peek_fails = 1;
	fail_waits(1);
	nb = io_move(&b);
	fail_waits(0);
	peek_fails = 0;
	ok(nb == -1 && b.waiting == 1 && b.side == SPATE_INPUT,
	    "io_move splice, output full, the look at the input fails: "
	    "SPATE_INPUT");
	close_pair(in);
	close_pair(out);
	close_pair(full);
}

/* The call's own failure, two descriptors: side 0, the caller's. */
TEST(splice_own_failure)
{
	int a = xtmpfile(), b = xtmpfile(), side = -1;
	struct io_call c = { .op = IO_SPLICE, .in = a, .out = b, .len = 10 }, x;
	ssize_t n = io_move(&c), m;
	int e = errno;

	m = xfer_pipe(&x, a, b, 10, 0, NULL);
	side = x.waiting ? x.side : 0;
	ok(n == -1 && e == EINVAL && c.waiting == 0 && c.side == 0 &&
	    m == -1 && side == 0,
	    "io_move splice between two files: -1 EINVAL, side 0 (the "
	    "caller's to tell)");
	close(a);
	close(b);
}

/* A failed wait on a zero-copy path is no refusal (ENOMEM is one). */
TEST(link_wait_fails)
{
	int in[2], out[2], s[2], full[2];
	struct end ein, eout, es, efull;
	struct link l, v;
	ssize_t a, b;

	xpipe2(in, O_NONBLOCK);
	xpipe(out);
	xsocketpair(s);
	xwrite(s[1], "abc", 3);
	full_pipe(full);
	end_init(&ein, in[0]);
	end_init(&eout, out[1]);
	end_init(&es, s[0]);
	end_init(&efull, full[1]);
	link_init(&l, &ein, &eout);
	link_init(&v, &es, &efull);
	l.path = l.fast;
	v.path = v.fast;
	fail_waits(1);
	a = link_step(&l, 4096);
	b = link_step(&v, 4096);
	fail_waits(0);
	ok(l.fast == PATH_SPLICE && a == -1 && l.side == SPATE_INPUT &&
	    l.path == PATH_SPLICE,
	    "link_step by splice, the wait fails: -1, SPATE_INPUT, no fallback");
	ok(v.fast == PATH_VIA_PIPE && b == -1 && v.side == SPATE_OUTPUT &&
	    v.path == PATH_VIA_PIPE,
	    "link_step through the private pipe, the wait fails: -1, "
	    "SPATE_OUTPUT, no fallback");
	link_free(&l);
	link_free(&v);
	close_pair(in);
	close_pair(out);
	close_pair(s);
	close_pair(full);
}

/* 70000 bytes of the test data in H's region. */
static void
fill_region(struct handoff *h)
{
	char *o = handoff_space(h), *want = pattern(0, 70000);

	if (o == NULL)
		bail_out("handoff_space: %s", strerror(errno));
	memcpy(o, want, 70000);
	handoff_wrote(h, 70000);
	free(want);
}

/* handoff_send: vmsplice's 0 is the output's ENOSPC, not a wait, and
 * no refusal: nothing is handed over or copied. */
TEST(handoff_send_zero)
{
	struct handoff h = { 0 };
	int p[2], r, e;

	xpipe(p);
	/* Room for it all: a policy that waits and tries again returns. */
	if (fcntl(p[1], F_SETPIPE_SZ, 128 << 10) == -1)
		bail_out("F_SETPIPE_SZ: %s", strerror(errno));
	fill_region(&h);
	vmsplice_zero = 1;
	r = handoff_send(&h, p[1]);
	e = errno;
	ok(r == -1 && e == ENOSPC && h.refused == 0 &&
	    h.start == 0 && h.fill == 70000,
	    "handoff_send: a vmsplice of 0 is -1 ENOSPC, not a wait");
	handoff_free(&h);
	close_pair(p);
}
#endif

#ifndef SPATE_PORTABLE
static int waits_asked;

/* A caller's wait that gives up at once, and counts. */
static int
give_up(void *ctx)
{
	(void)ctx;
	waits_asked++;
	return 1;
}

/*
 * tee(2) says 0 with its input holding bytes: another writer filled the
 * output between the kernel's look and its link.  Not an end: waited
 * for as EAGAIN is (a look at each side, no blocking wait: the output
 * has room: one wait a 0), then the count; with a caller's wait that
 * comes after the call (struct io_wait.tells), that wait.  From an
 * input at its end, 0 is the end.
 */
TEST(tee_zero_is_a_race)
{
	static const struct io_wait gives_up = { give_up, NULL, 1 };
	int in[2], out[2];
	struct io_call c = { .op = IO_TEE, .len = 16 };
	ssize_t n, m, e;
	int err;

	xpipe(in);
	xpipe(out);
	xwrite(in[1], "0123456789", 10);
	c.in = in[0];
	c.out = out[1];
	tee_zero = 2;
	fail_waits(0);
	n = io_move(&c);
	ok(n == 10 && tee_zero == 0 && poll_waits == 2,
	    "io_move tee: two 0s from a full input are waited out, then "
	    "the count");
	c.wait = &gives_up;
	tee_zero = 1;
	m = io_move(&c);
	err = errno;
	ok(m == -1 && err == ETIMEDOUT && c.gave_up && c.waiting == 0 &&
	    waits_asked == 1, "io_move tee, a caller's wait: a 0 from a full "
	    "input is not ready, and the wait is asked");
	close_pair(in);
	close_pair(out);

	c = (struct io_call){ .op = IO_TEE, .in = ended_pipe(""), .len = 16 };
	xpipe(out);
	c.out = out[1];
	tee_zero = 0;
	e = io_move(&c);
	ok(e == 0, "io_move tee: 0 from an input at its end is the end");
	close(c.in);
	close_pair(out);
}
#endif

/* Every case may hang, not fail, if the policy waits wrongly. */
void
tap_setup(void)
{
	watchdog(60);
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
