/* "Copy one input to many outputs": the engine of tee. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "sluice.h"
#include "sys.h"

/* How an output is written (struct sl_out.how). */
enum { BY_TEE = 1, BY_SPLICE, BY_WRITE };

#define NONE	((size_t)-1)	/* no output */
#define WRITERS	((size_t)-2)	/* every output written by write(2) */

/* The read/write buffer: big enough to amortise syscalls, small enough
 * to stay in the L2 cache. */
#define BUFSZ	(128u << 10)

/* "As much as there is": the pipe sizes bound each transfer. */
#define ALL	(1u << 30)

struct fan {
	struct sl_out *outs;
	size_t n;		/* outputs */
	size_t live;		/* outputs not dropped */
	sl_fail_fn *fail;
	void *ctx;
	int stop;		/* FAIL asked to stop */
	int in;			/* the input */
	int zc;			/* zero-copy in use */
	int src;		/* pipe the data is duplicated from */
	int feed;		/* write end of SRC when we fill it, or -1 */
	size_t queued;		/* bytes waiting in SRC when we fill it */
	int lead[2];		/* private pipe the copies go through */
	char *buf;		/* read/write buffer, BUFSZ bytes */
};

static int
active(const struct sl_out *o)
{
	return o->fd != -1;
}

/* OUTS[I] failed with ERR: drop it and tell FAIL, which may stop us. */
static void
failed(struct fan *f, size_t i, int err)
{
	f->outs[i].fd = -1;
	f->live--;
	if (f->fail(f->ctx, i, err) == -1)
		f->stop = 1;
}

/* Pick the path for output FD: zero-copy where the kernel allows it. */
static int
classify(int fd, int zc)
{
	enum sl_kind kind;
	int fl;

	if (!zc || sl_fdkind(fd, &kind) == -1)
		return BY_WRITE;
	/* splice(2) into an O_APPEND file fails with EINVAL. */
	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_APPEND))
		return BY_WRITE;
	if (kind != SL_PIPE)
		return BY_SPLICE;
	/* Each tee(2) moves at most what the output pipe has room for. */
	sl_pipe_grow(fd);
	return BY_TEE;
}

/* After EAGAIN on a transfer IN -> OUT, wait for the side not ready. */
static int
wait_either(int in, int out)
{
	struct pollfd p = { .fd = in, .events = POLLIN };

	if (poll(&p, 1, 0) == 0)
		return sl_wait(in, POLLIN);
	return sl_wait(out, POLLOUT);
}

/*
 * Move up to LEN bytes from pipe IN to OUT, or duplicate them with tee(2)
 * if DUP, retrying EINTR and waiting out EAGAIN.  Return the count, 0 at
 * end of input, or -1 with errno set.
 */
static ssize_t
xfer(int in, int out, size_t len, int dup)
{
	for (;;) {
		ssize_t n = dup ? sys_tee(in, out, len) :
		    sys_splice(in, out, len);

		if (n >= 0)
			return n;
		if (errno == EAGAIN) {
			if (wait_either(in, out) == -1)
				return -1;
		} else if (errno != EINTR)
			return -1;
	}
}

/* Read up to LEN bytes of FD into BUF, retrying EINTR and EAGAIN. */
static ssize_t
read_some(int fd, char *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n >= 0)
			return n;
		if (errno == EAGAIN) {
			if (sl_wait(fd, POLLIN) == -1)
				return -1;
		} else if (errno != EINTR)
			return -1;
	}
}

/* Make sure the read/write buffer exists; return 0, or -1 with errno. */
static int
need_buf(struct fan *f)
{
	if (f->buf == NULL && (f->buf = malloc(BUFSZ)) == NULL)
		return -1;
	return 0;
}

/* Write N bytes of the buffer to OUTS[I]. */
static void
put(struct fan *f, size_t i, size_t n)
{
	struct sl_out *o = &f->outs[i];

	if (sl_write_all(o->fd, f->buf, n) == -1) {
		failed(f, i, errno);
		return;
	}
	o->moved += n;
}

/*
 * Read LEN bytes from pipe P, which holds at least that many, and write
 * them to OUTS[TO]; TO may be WRITERS, or NONE to discard them.
 * Return 0, or -1 with errno set if reading failed.
 */
static int
pump(struct fan *f, int p, size_t len, size_t to)
{
	size_t i;

	if (need_buf(f) == -1)
		return -1;
	while (len > 0) {
		ssize_t n = read_some(p, f->buf, len < BUFSZ ? len : BUFSZ);

		if (n <= 0)
			return n;
		len -= n;
		for (i = 0; i < f->n && !f->stop; i++) {
			struct sl_out *o = &f->outs[i];

			if (active(o) && (i == to ||
			    (to == WRITERS && o->how == BY_WRITE)))
				put(f, i, n);
		}
	}
	return 0;
}

/*
 * Empty LEN bytes of pipe P into OUTS[I].  The first failure of
 * zero-copy, before any byte reached that output, switches it to
 * write(2); a later one is that output's error, and the bytes are
 * drained all the same.  Return 0, or -1 with errno if reading P failed.
 */
static int
deliver(struct fan *f, int p, size_t len, size_t i)
{
	struct sl_out *o = &f->outs[i];

	while (len > 0 && active(o) && o->how != BY_WRITE) {
		ssize_t n = xfer(p, o->fd, len, 0);

		if (n > 0) {
			len -= n;
			o->moved += n;
		} else if (n == -1 && o->moved == 0)
			o->how = BY_WRITE;
		else
			failed(f, i, n == 0 ? EIO : errno);
	}
	return pump(f, p, len, active(o) ? i : NONE);
}

/* Move LEN bytes of the source into consumer C, or NONE: the writers. */
static int
consume(struct fan *f, size_t len, size_t c)
{
	if (c == NONE)
		return pump(f, f->src, len, WRITERS);
	return deliver(f, f->src, len, c);
}

/* Make the private pipe the copies go through. */
static int
open_lead(struct fan *f)
{
	if (f->lead[0] != -1)
		return 0;
	if (pipe2(f->lead, O_CLOEXEC) == -1)
		return -1;
	sl_pipe_grow(f->lead[1]);
	return 0;
}

/*
 * The round functions below take the next chunk of at most LIM bytes from
 * FROM and give it to every output.  Each returns the chunk's length, 0 at
 * end of input, -1 with errno on an input error, or AGAIN when it consumed
 * nothing because an output changed path or failed: plan the round anew.
 */
#define AGAIN	(-2)

/* Note that a zero-copy transfer to OUTS[I] failed. */
static ssize_t
refused(struct fan *f, size_t i)
{
	if (f->outs[i].moved == 0)
		f->outs[i].how = BY_WRITE;	/* fall back, nothing lost */
	else
		failed(f, i, errno);
	return AGAIN;
}

/* Every output is written with write(2): read once, write to each. */
static ssize_t
read_write(struct fan *f, int from, size_t lim)
{
	ssize_t n;
	size_t i;

	if (need_buf(f) == -1)
		return -1;
	if ((n = read_some(from, f->buf, lim < BUFSZ ? lim : BUFSZ)) <= 0)
		return n;
	for (i = 0; i < f->n && !f->stop; i++)
		if (active(&f->outs[i]))
			put(f, i, n);
	return n;
}

/* A single output, and it takes zero-copy: move, no copy. */
static ssize_t
move_one(struct fan *f, size_t c, size_t lim)
{
	ssize_t n = xfer(f->src, f->outs[c].fd, lim, 0);

	if (n == -1)
		return refused(f, c);
	f->outs[c].moved += n;
	return n;
}

/* One pipe to copy to, OUTS[K]: tee(2) straight into it, then consume. */
static ssize_t
tee_one(struct fan *f, size_t k, size_t c, size_t lim)
{
	ssize_t n = xfer(f->src, f->outs[k].fd, lim, 1);

	if (n == -1)
		return refused(f, k);
	if (n == 0)
		return 0;
	f->outs[k].moved += n;
	return consume(f, n, c) == -1 ? -1 : n;
}

/*
 * tee(2) into the private pipe failed, so nothing moved: go on with
 * read/write, no byte lost.  The outputs from OUTS[I] on have not had
 * this round's N bytes yet: they get them with the writers.
 */
static ssize_t
give_up(struct fan *f, size_t i, ssize_t n)
{
	f->zc = 0;
	if (n == 0)
		return AGAIN;
	for (; i < f->n; i++)
		if (active(&f->outs[i]))
			f->outs[i].how = BY_WRITE;
	return consume(f, n, NONE) == -1 ? -1 : n;
}

/*
 * Several copies: each goes through the private pipe, one output at a
 * time.  The first tee(2) into the empty pipe fixes the chunk; every
 * later one into the same, again empty, pipe takes the same source
 * buffers and so exactly as many bytes.
 */
static ssize_t
via_lead(struct fan *f, size_t c, size_t lim)
{
	ssize_t n = 0, m;
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct sl_out *o = &f->outs[i];

		if (f->stop)
			return AGAIN;
		if (!active(o) || o->how == BY_WRITE || i == c)
			continue;
		if (open_lead(f) == -1 ||
		    (m = xfer(f->src, f->lead[1], n ? (size_t)n : lim, 1)) == -1)
			return give_up(f, i, n);
		if (m == 0)
			return 0;
		if (n == 0)
			n = m;
		if (m < n) {
			failed(f, i, EIO);	/* cannot happen; never corrupt */
			m = pump(f, f->lead[0], m, NONE);
		} else
			m = deliver(f, f->lead[0], m, i);
		if (m == -1)
			return -1;
	}
	return consume(f, n, c) == -1 ? -1 : n;
}

/*
 * One round of the zero-copy path: duplicate the next chunk into every
 * output but one, the consumer, then move it into the consumer.  Outputs
 * written by write(2) share one read of the chunk, which consumes it.
 * Return 1 to go on, 0 at end of input, -1 with errno on an input error.
 */
static int
round_zc(struct fan *f)
{
	size_t i, c = NONE, first = NONE, ncopy = 0, nwrite = 0;
	size_t lim = ALL;
	ssize_t n;

	if (f->feed != -1) {
		if (f->queued == 0) {
			n = xfer(f->in, f->feed, ALL, 0);
			if (n == -1) {
				/* Nothing moved: read(2) will tell if the
				 * file itself is at fault. */
				f->zc = 0;
				return 1;
			}
			if (n <= 0)
				return n;
			f->queued = n;
		}
		lim = f->queued;
	}
	/*
	 * The consumer is the last output, so that outputs are served in
	 * order, as GNU does: with --output-error=exit, those after a
	 * failed one do not get its chunk.
	 */
	for (i = 0; i < f->n; i++) {
		struct sl_out *o = &f->outs[i];

		if (active(o) && o->how == BY_WRITE)
			nwrite++;
		else if (active(o))
			c = i;
	}
	if (nwrite > 0)
		c = NONE;
	for (i = 0; i < f->n; i++)
		if (active(&f->outs[i]) && f->outs[i].how != BY_WRITE &&
		    i != c && ncopy++ == 0)
			first = i;

	if (ncopy == 0 && c != NONE)
		n = move_one(f, c, lim);
	else if (ncopy == 0)
		n = read_write(f, f->src, lim);
	else if (ncopy == 1 && f->outs[first].how == BY_TEE)
		n = tee_one(f, first, c, lim);
	else
		n = via_lead(f, c, lim);
	if (n > 0 && f->feed != -1)
		f->queued -= n;
	return n == AGAIN || n > 0 ? 1 : n;
}

/* One round of the read/write path.  Same return as round_zc(). */
static int
round_rw(struct fan *f)
{
	ssize_t n;

	/* Bytes the zero-copy path queued before it gave up go first. */
	if (f->queued > 0) {
		n = read_write(f, f->src, f->queued);
		if (n > 0)
			f->queued -= n;
	} else
		n = read_write(f, f->in, BUFSZ);
	return n > 0 ? 1 : n;
}

/* Choose the path for input IN: zero-copy from a pipe or a regular file. */
static void
setup(struct fan *f)
{
	enum sl_kind kind;
	int p[2];

	if (!sl_zerocopy_allowed() || sl_fdkind(f->in, &kind) == -1)
		return;
	if (kind == SL_PIPE) {
		sl_pipe_grow(f->in);
		f->src = f->in;
		f->zc = 1;
	} else if (kind == SL_FILE && pipe2(p, O_CLOEXEC) == 0) {
		/* tee(2) needs a pipe: splice the file into one of ours. */
		sl_pipe_grow(p[1]);
		f->src = p[0];
		f->feed = p[1];
		f->zc = 1;
	}
}

int
sl_fanout(int in, struct sl_out *outs, size_t n, sl_fail_fn *fail, void *ctx)
{
	struct fan f = {
		.outs = outs, .n = n, .fail = fail, .ctx = ctx, .in = in,
		.src = -1, .feed = -1, .lead = { -1, -1 }
	};
	size_t i;
	int r = 1, saved;

	setup(&f);
	for (i = 0; i < n; i++) {
		outs[i].how = classify(outs[i].fd, f.zc);
		outs[i].moved = 0;
		if (outs[i].fd != -1)
			f.live++;
	}
	while (r > 0 && f.live > 0 && !f.stop)
		r = f.zc ? round_zc(&f) : round_rw(&f);
	saved = errno;
	if (f.feed != -1) {
		close(f.src);
		close(f.feed);
	}
	if (f.lead[0] != -1) {
		close(f.lead[0]);
		close(f.lead[1]);
	}
	free(f.buf);
	errno = saved;
	return r < 0 ? -1 : 0;
}
