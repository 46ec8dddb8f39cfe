/*
 * The one retry policy: every system call that moves bytes (read,
 * write, vmsplice, splice, tee, copy_file_range), and the peek at a
 * record's length (recv with MSG_PEEK), runs in io_move, and
 * nowhere else is it decided what EINTR, EAGAIN, a count of 0 or a
 * short count mean.  Which failures of a zero-copy call are refusals,
 * and which calls a sandbox would kill for, is refusal.c's; what to do
 * then, the transfer layer's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "spate.h"
#include "sys.h"
#include "engine.h"

/*
 * Wait until one of the N descriptors P is ready for its events, or for
 * MS milliseconds (-1: for ever), with the signal mask MASK while it
 * waits (ppoll(2): a signal blocked the rest of the time may come in
 * then), or the thread's own if MASK is NULL.  EINTR is retried for the
 * time left, so that a signal handler neither ends the wait early nor
 * makes it longer.  Return the count of descriptors ready (P's revents
 * say which), 0 when MS passed first, or -1 with errno set (ppoll(2)'s:
 * EINVAL, ENOMEM).
 */
int
wait_masked(struct pollfd *p, size_t n, int ms, const sigset_t *mask)
{
	long long end = ms > 0 ? clock_ms() + ms : 0;

	for (;;) {
		struct timespec t = { ms / 1000, ms % 1000 * 1000000L };
		int r = mask == NULL ? poll(p, n, ms) :
		    ppoll(p, n, ms < 0 ? NULL : &t, mask);

		if (r >= 0 || errno != EINTR)
			return r;
		if (ms > 0 && (ms = end - clock_ms()) < 0)
			ms = 0;
	}
}

/* wait_masked with the thread's own mask. */
int
wait_any(struct pollfd *p, size_t n, int ms)
{
	return wait_masked(p, n, ms, NULL);
}

/*
 * Wait until FD is ready for EVENTS (POLLIN or POLLOUT), MS milliseconds
 * at most (-1: for ever); return 0, or -1 with errno set: ETIMEDOUT if
 * MS passed first, else poll(2)'s (EINVAL, ENOMEM).  Used after EAGAIN
 * on a non-blocking descriptor: never spin, never take EAGAIN for an
 * error.
 */
int
wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n = wait_any(&p, 1, ms);

	if (n == 0)
		errno = ETIMEDOUT;
	return n > 0 ? 0 : -1;
}

/* wait_fd for ever, with the signal mask MASK (NULL: the thread's). */
static int
wait_fd_masked(int fd, short events, const sigset_t *mask)
{
	struct pollfd p = { .fd = fd, .events = events };

	return wait_masked(&p, 1, -1, mask) > 0 ? 0 : -1;
}

/*
 * After EAGAIN from a transfer IN -> OUT, wait for the side that is not
 * ready: IN if it has nothing to read, else OUT; store which in *SIDE
 * (SPATE_INPUT or SPATE_OUTPUT), whether the wait succeeds or not (a failed
 * look at IN is IN's).  Return as wait_fd.
 */
int
wait_either(int in, int out, int *side)
{
	struct pollfd p = { .fd = in, .events = POLLIN };
	int n = wait_any(&p, 1, 0);

	if (n != 1) {
		*side = SPATE_INPUT;
		return n == 0 ? wait_fd(in, POLLIN, -1) : -1;
	}
	*side = SPATE_OUTPUT;
	return wait_fd(out, POLLOUT, -1);
}

/*
 * Before C's write into a pipe of C->pipe bytes: if the pipe cannot
 * take it whole now (FIONREAD: what it holds), wait until it is not
 * full in ppoll(2), with C->mask.  write(2) would wait in the kernel,
 * where the signals that C->mask lets in stay out for as long as the
 * reader does not read.  A reader that stopped leaves the pipe full,
 * and the wait is here; one that reads on has the write go on, whole,
 * as GNU's tee makes it (its count and size are GNU's, and one of
 * PIPE_BUF or less stays atomic).  One that reads a page and stops
 * again leaves the write waiting in the kernel: a write cut to the
 * room would not, but would no longer be GNU's.  A look or a wait that
 * fails leaves the wait to write(2).
 */
static void
pipe_wait_room(const struct io_call *c)
{
	struct pollfd p = { .fd = c->out, .events = POLLOUT };
	int held;

	if (ioctl(c->out, FIONREAD, &held) == 0 &&
	    c->pipe - held < (long)c->len)
		wait_masked(&p, 1, -1, c->mask);
}

/* Return 1 if C's call is not to wait in the kernel: its caller's wait
 * comes after it says EAGAIN (struct io_wait.tells). */
static int
nonblocking(const struct io_call *c)
{
	return c->wait != NULL && c->wait->tells;
}

/* Make C's system call once; return as the call does. */
static ssize_t
io_call_once(const struct io_call *c)
{
	struct iovec iov = { .iov_base = c->buf, .iov_len = c->len };

	switch (c->op) {
	case IO_READ:
		return read(c->in, c->buf, c->len);
	case IO_WRITE:
		if (c->mask != NULL && c->pipe > 0)
			pipe_wait_room(c);
		return write(c->out, c->buf, c->len);
	case IO_PEEK:
		/* MSG_TRUNC: the record's length, not what fits in BUF. */
		return recv(c->in, c->buf, c->len, MSG_PEEK | MSG_TRUNC);
	case IO_VMSPLICE:
		return sys_vmsplice(c->out, &iov, 1);
	case IO_SPLICE:
		return sys_splice(c->in, c->out, c->len, nonblocking(c));
	case IO_TEE:
		return sys_tee(c->in, c->out, c->len, nonblocking(c));
	default:
		return sys_copy_range(c->in, c->out, c->len);
	}
}

/* The side a failure of C's own call is known to be on, or 0 if the
 * call has two descriptors. */
static int
io_call_side(const struct io_call *c)
{
	if (c->op == IO_READ || c->op == IO_PEEK)
		return SPATE_INPUT;
	if (c->op == IO_WRITE || c->op == IO_VMSPLICE)
		return SPATE_OUTPUT;
	return 0;
}

/*
 * Return 1 if a tee(2) by C that duplicated nothing met the end of its
 * input pipe: empty, and no writer left.  Any other 0 is a race the
 * kernel does not retry (fs/splice.c, link_pipe): the output pipe had
 * room when tee(2) looked and was full when it linked -- another
 * process writes into it too -- or the input had bytes when it looked
 * and another reader took them.  splice(2) between two pipes retries
 * that race itself and says 0 only at the end; vmsplice(2), and
 * splice(2) from or into a pipe and anything else, look and move under
 * the pipe's lock, so their 0 is the end too.  A look that fails is
 * no end: the call is made again and tells.
 */
static int
tee_ended(const struct io_call *c)
{
	struct pollfd p = { .fd = c->in, .events = POLLIN };

	return wait_any(&p, 1, 0) == 1 && (p.revents & POLLIN) == 0 &&
	    (p.revents & POLLHUP) != 0;
}

/* After EAGAIN, wait for the side of C that is not ready; store it in
 * C->side.  Return as wait_fd. */
static int
io_wait(struct io_call *c)
{
	switch (io_call_side(c)) {
	case SPATE_INPUT:
		c->side = SPATE_INPUT;
		return wait_fd(c->in, POLLIN, -1);
	case SPATE_OUTPUT:
		c->side = SPATE_OUTPUT;
		return wait_fd_masked(c->out, POLLOUT, c->mask);
	default:
		return wait_either(c->in, c->out, &c->side);
	}
}

/*
 * Wait as C's caller does (C->wait).  Return 0 when C's call is to be
 * made; -1 with errno ETIMEDOUT and C->gave_up set when the caller says
 * not to go on.  A wait that fails leaves the wait to the call, in the
 * kernel, as if the caller had none: C->wait is dropped.
 */
static int
caller_wait(struct io_call *c)
{
	switch (c->wait->fn(c->wait->ctx)) {
	case 0:
		return 0;
	case 1:
		errno = ETIMEDOUT;
		c->gave_up = 1;
		c->side = 0;
		c->waiting = 0;
		return -1;
	default:
		c->wait = NULL;
		return 0;
	}
}

ssize_t
io_move(struct io_call *c)
{
	int waits = 0;		/* waits that said ready, in a row */

	c->gave_up = 0;
	c->spun = 0;
	if (c->wait != NULL && !c->wait->tells && caller_wait(c) == -1)
		return -1;
	for (;; waits++) {
		ssize_t n = io_call_once(c);

		if (n > 0)
			return n;
		/* A tee(2) that lost a race with another user of its pipes
		 * is not ready, as if it had said EAGAIN. */
		if (n == 0 && c->op == IO_TEE && c->len > 0 && !tee_ended(c)) {
			n = -1;
			errno = EAGAIN;
		}
		if (n == 0) {
			if (c->len == 0 || io_call_side(c) != SPATE_OUTPUT)
				return 0;
			/* The output took nothing and said nothing: it is
			 * full, as GNU's full_write takes it. */
			errno = ENOSPC;
			c->side = SPATE_OUTPUT;
			c->waiting = 0;
			return -1;
		}
		if (errno == EINTR) {
			waits--;
			continue;
		}
		if (errno == EAGAIN && waits == SPIN_MAX) {
			c->spun = 1;
			c->side = io_call_side(c);
			c->waiting = 0;
			return -1;
		}
		/* The caller waits, as long as it chooses. */
		if (errno == EAGAIN && nonblocking(c)) {
			if (caller_wait(c) == -1)
				return -1;
			continue;
		}
		if (errno != EAGAIN) {
			c->side = io_call_side(c);
			c->waiting = 0;
			return -1;
		}
		if (io_wait(c) == -1) {
			c->waiting = 1;
			return -1;
		}
	}
}

int
io_move_all(struct io_call *c)
{
	while (c->len > 0) {
		ssize_t n = io_move(c);

		if (n <= 0) {
			if (n == 0) {
				errno = EIO;
				c->side = SPATE_INPUT;
				c->waiting = 0;
			}
			return -1;
		}
		if (c->buf != NULL)
			c->buf = (char *)c->buf + n;
		c->len -= n;
	}
	return 0;
}

/* Read up to LEN bytes of FD into BUF; return the count, 0 at end of
 * input, or -1 with errno set (io_move). */
ssize_t
read_some(int fd, void *buf, size_t len)
{
	struct io_call c = { .op = IO_READ, .in = fd, .out = -1,
	    .buf = buf, .len = len };

	return io_move(&c);
}

/* Write LEN bytes of BUF to FD; return 0, or -1 with errno set (some
 * bytes may have gone out; ENOSPC if the output took none and gave no
 * error). */
int
write_all(int fd, const void *buf, size_t len)
{
	struct io_call c = { .op = IO_WRITE, .in = -1, .out = fd,
	    .buf = (void *)buf, .len = len };

	return io_move_all(&c);
}

/*
 * Read exactly LEN bytes of FD, a private pipe known to hold them, into
 * BUF; return 0, or -1 with errno set (EIO if it held fewer).
 */
int
read_exact(int fd, void *buf, size_t len)
{
	struct io_call c = { .op = IO_READ, .in = fd, .out = -1,
	    .buf = buf, .len = len };

	return io_move_all(&c);
}
