/*
 * Unit tests of the one retry policy (lib/io.c's io_move) on the
 * zero-copy calls, and of its users' contracts: the side of every
 * failure of splice(2) and tee(2) (xfer_pipe, link_step), a tee(2) or
 * vmsplice(2) that says 0 (handoff_send).
 *
 * A vmsplice(2) or tee(2) that says 0 with bytes to move cannot be had
 * from the kernel on demand: this file defines its own vmsplice() and
 * tee(), which the engine linked into it calls, and which do as the
 * real ones unless a case asks otherwise.
 */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/uio.h>

#include "lib-retry.h"

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
