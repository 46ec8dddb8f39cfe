/*
 * The chunk of a fan-out round and the private pipes it passes through
 * (struct chunk, lib/fanout.h): one object, whose verbs name the pipe
 * they use.
 *
 *	chunk pipe	each chunk of the input, spliced in; nobody else
 *			reads it, so another reader of the input pipe
 *			cannot make two outputs differ.  Output pipes get
 *			the chunk from it by tee(2); the last output
 *			consumes it (chunk_tee, chunk_splice)
 *	copy pipe	a duplicate of the chunk, made by tee(2), for an
 *			output that consumes what it is given (a file, a
 *			socket) while the chunk must stay in the chunk pipe
 *			for the outputs after it (copy_fill, copy_splice)
 *	buffer		the chunk in memory, for the outputs that need
 *			write(2), and for the rest of a round once the
 *			pipes were given back (chunk_to_buf, copy_to_buf)
 *
 * The copy pipe is as big as the chunk pipe, so that tee(2) into it
 * while empty takes any chunk whole.  Both grow with their traffic
 * (pipe.c) and are given back whole (chunk_release): the fan-out
 * decides when.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spate.h"
#include "fanout.h"

void
chunk_init(struct chunk *ch)
{
	*ch = (struct chunk){ .pipe = { -1, -1 }, .copy = { -1, -1 } };
}

/* Take the chunk pipe, at the size pipes start with.  Return 0, or -1
 * with errno set (no descriptors to spare). */
int
chunk_open(struct chunk *ch)
{
	if (pipe_private(ch->pipe) == -1)
		return -1;
	end_init(&ch->end, ch->pipe[1]);
	ch->want = pipe_size(&ch->end);
	ch->denied = 0;
	ch->held = 0;
	return 0;
}

/* Return 1 if the chunk pipe is open: the stream is on zero-copy. */
int
chunk_is_open(const struct chunk *ch)
{
	return ch->pipe[0] != -1;
}

/* The chunk pipe's capacity. */
long
chunk_capacity(struct chunk *ch)
{
	return pipe_size(&ch->end);
}

/*
 * Set the chunk pipe to WANT bytes if it is empty (a pipe holding more
 * cannot shrink below it) and the kernel grants it; the copy pipe grows
 * along, so that it still takes a chunk whole.
 */
void
chunk_resize(struct chunk *ch, long want)
{
	if (want == chunk_capacity(ch) || want == ch->denied || ch->held > 0)
		return;
	if (pipe_resize(&ch->end, want) == -1) {
		/* Over pipe-max-size or the user's quota: asked once. */
		if (errno == EPERM || errno == ENOMEM)
			ch->denied = want;
		return;
	}
	if (ch->copy[0] != -1)
		ch->copy_size = pipe_grow_to(ch->copy[1], ch->end.size);
}

/*
 * N bytes went through the chunk pipe: return 1, once, when its traffic
 * has come to warrant a big pipe (pipe_warranted), WANT then PIPE_MAX.
 */
int
chunk_warrants(struct chunk *ch, size_t n)
{
	if (!pipe_warranted(&ch->end, n))
		return 0;
	ch->want = PIPE_MAX;
	return 1;
}

/* Splice up to LIM bytes of input IN into the empty chunk pipe, the
 * input waited for by W.  Return as xfer_pipe; HELD is then what it
 * took. */
ssize_t
chunk_fill(struct chunk *ch, int in, size_t lim, const struct io_wait *w,
    struct io_call *c)
{
	ssize_t n = xfer_pipe(c, in, ch->pipe[1], lim, 0, w);

	if (n > 0)
		ch->held = n;
	return n;
}

/* Duplicate the chunk pipe's first LEN bytes into pipe FD by tee(2),
 * FD's room waited for by W.  Return as xfer_pipe. */
ssize_t
chunk_tee(struct chunk *ch, int fd, size_t len, const struct io_wait *w,
    struct io_call *c)
{
	return xfer_pipe(c, ch->pipe[0], fd, len, 1, w);
}

/* Move up to LEN bytes out of the chunk pipe into FD by splice(2), FD's
 * room waited for by W.  Return as xfer_pipe. */
ssize_t
chunk_splice(struct chunk *ch, int fd, size_t len, const struct io_wait *w,
    struct io_call *c)
{
	ssize_t k = xfer_pipe(c, ch->pipe[0], fd, len, 0, w);

	if (k > 0)
		ch->held -= k;
	return k;
}

/*
 * Make BUF hold at least LEN bytes (BUF_SIZE, if that much memory can
 * be had); return 0, or -1 with errno set.  GNU_CHUNK bytes or fewer
 * never fail: without that much heap, BUF is the chunk's own SPARE, as
 * GNU's tee copies through a buffer of that size on its stack.  BUF
 * moves between the heap and SPARE with what it holds.
 */
int
buf_need(struct chunk *ch, size_t len)
{
	char *old = ch->buf == ch->spare ? NULL : ch->buf, *b = NULL;

	if (len <= ch->bufsize)
		return 0;
	if (len < BUF_SIZE && (b = realloc(old, BUF_SIZE)) != NULL)
		len = BUF_SIZE;
	if (b == NULL && (b = realloc(old, len)) == NULL) {
		if (len > sizeof ch->spare)
			return -1;
		/* A heap buffer smaller still (a socket's chunks) moves. */
		b = ch->spare;
		len = sizeof ch->spare;
		if (old != NULL)
			memcpy(b, old, ch->bufsize);
		free(old);
	} else if (ch->buf == ch->spare) {
		memcpy(b, ch->spare, ch->bufsize);
	}
	ch->buf = b;
	ch->bufsize = len;
	return 0;
}

/* Read LIM bytes at most of input IN into BUF, as read_input does; a
 * record is cut to the SPARE that BUF may be, as GNU's read(2) cuts it
 * to its buffer.  Return as read_input. */
ssize_t
buf_read(struct chunk *ch, const struct end *in, size_t lim)
{
	if (ch->buf == ch->spare)
		return read_some(in->fd, ch->buf, lim);
	return read_input(in, &ch->buf, &ch->bufsize, lim);
}

/* Read N bytes of pipe P, known to hold them, into BUF at OFF; return
 * 0, or -1 with errno set. */
static int
pipe_to_buf(struct chunk *ch, int p, size_t off, size_t n)
{
	if (buf_need(ch, off + n) == -1)
		return -1;
	return read_exact(p, ch->buf + off, n);
}

/* Read the chunk pipe's next N bytes into BUF at OFF: they leave it.
 * Return 0, or -1 with errno set. */
int
chunk_to_buf(struct chunk *ch, size_t off, size_t n)
{
	if (pipe_to_buf(ch, ch->pipe[0], off, n) == -1)
		return -1;
	ch->held -= n;
	return 0;
}

/*
 * Put a copy of the chunk pipe's first LEN bytes into the copy pipe,
 * which is empty, opening it first.  Return what tee(2) took (all of
 * LEN, unless the copy pipe is smaller: a chunk pipe that grew since),
 * or -1 with errno set.
 */
ssize_t
copy_fill(struct chunk *ch, size_t len)
{
	struct io_call c;

	if (ch->copy[0] == -1) {
		if (pipe_private(ch->copy) == -1)
			return -1;
		ch->copy_size = pipe_grow_to(ch->copy[1], chunk_capacity(ch));
	}
	return xfer_pipe(&c, ch->pipe[0], ch->copy[1], len, 1, NULL);
}

/* Move up to LEN bytes out of the copy pipe into FD by splice(2), FD's
 * room waited for by W.  Return as xfer_pipe. */
ssize_t
copy_splice(struct chunk *ch, int fd, size_t len, const struct io_wait *w,
    struct io_call *c)
{
	return xfer_pipe(c, ch->copy[0], fd, len, 0, w);
}

/* Read the copy pipe's next N bytes into BUF at OFF.  Return 0, or -1
 * with errno set. */
int
copy_to_buf(struct chunk *ch, size_t off, size_t n)
{
	return pipe_to_buf(ch, ch->copy[0], off, n);
}

/*
 * Give the private pipes back.  The round's chunk, LEN bytes, is in BUF
 * already (AT_BUF); what the chunk pipe holds after it (a short tee(2)
 * fixed a shorter chunk) is read in after it, to be every output's next
 * (CARRY).  Return 0, or -1 with errno set if the chunk pipe could not
 * be read.
 */
int
chunk_release(struct chunk *ch, size_t len)
{
	size_t rest = ch->held;

	if (rest > 0 && chunk_to_buf(ch, len, rest) == -1)
		return -1;
	ch->carry = rest;
	ch->carry_at = len;
	ch->held = 0;
	close_pair(ch->pipe);
	close_pair(ch->copy);
	return 0;
}

/* Free what CH holds. */
void
chunk_free(struct chunk *ch)
{
	close_pair(ch->pipe);
	close_pair(ch->copy);
	if (ch->buf != ch->spare)
		free(ch->buf);
	ch->buf = NULL;
	ch->bufsize = 0;
}
