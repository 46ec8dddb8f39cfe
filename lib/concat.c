/*
 * "Concatenate inputs into one output": the engine of cat.
 *
 * Without a transformation each input goes through the transfer layer,
 * which picks copy_file_range(2), splice(2) or read/write for the pair.
 * With one (cat -n, -A, ...) the text is read, transformed in memory by
 * format.c, and written in large pieces; what is pending is written
 * before a read that would wait, so that cat -n on a terminal or a slow
 * pipe shows each line as it comes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "sluice.h"
#include "engine.h"
#include "format.h"

/* The input read per transformation, and the output gathered before it
 * is written. */
#define FMT_IN		(64u << 10)
#define FMT_OUT		(128u << 10)

struct sl_cat {
	struct end out;
	struct end in;
	struct link link;	/* for the untransformed copy */
	struct fmt fmt;
	unsigned flags;
	char *inbuf;		/* FMT_IN bytes */
	char *outbuf;		/* FMT_OUT + fmt_room(FMT_IN) bytes */
	size_t pending;		/* transformed bytes not yet written */
};

struct sl_cat *
sl_cat_open(int out, unsigned flags)
{
	struct sl_cat *c = calloc(1, sizeof *c);

	if (c == NULL)
		return NULL;
	c->flags = flags;
	end_init(&c->out, out);
	link_init(&c->link, NULL, &c->out);
	fmt_init(&c->fmt, flags);
	return c;
}

/*
 * Write the pending transformed bytes; return 0, or -1 with errno set.
 * An output pipe grows with this traffic as with zero-copy's.
 */
static int
flush(struct sl_cat *c)
{
	int r = write_all(c->out.fd, c->outbuf, c->pending);

	if (r == 0)
		pipe_carried(&c->out, c->pending);
	c->pending = 0;
	return r;
}

/* Return 1 if a read of IN would wait: nothing is there yet. */
static int
would_wait(int in)
{
	struct pollfd p = { .fd = in, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* Transform all of C->in into the output.  Return as sl_cat_add. */
static int
add_formatted(struct sl_cat *c, enum sl_side *side)
{
	if ((c->inbuf == NULL && (c->inbuf = malloc(FMT_IN)) == NULL) ||
	    (c->outbuf == NULL &&
	    (c->outbuf = malloc(FMT_OUT + fmt_room(FMT_IN))) == NULL)) {
		*side = SL_OUTPUT;
		return -1;
	}
	for (;;) {
		ssize_t n;

		if (c->pending > 0 && c->in.kind != K_FILE &&
		    would_wait(c->in.fd) && flush(c) == -1) {
			*side = SL_OUTPUT;
			return -1;
		}
		if ((n = read_some(c->in.fd, c->inbuf, FMT_IN)) < 0) {
			*side = SL_INPUT;
			return -1;
		}
		/* The end of an input is a read that waits, as GNU has it. */
		if (n == 0) {
			*side = SL_OUTPUT;
			return flush(c);
		}
		c->pending += fmt_run(&c->fmt, c->inbuf, n,
		    c->outbuf + c->pending);
		if (c->pending >= FMT_OUT && flush(c) == -1) {
			*side = SL_OUTPUT;
			return -1;
		}
	}
}

int
sl_cat_add(struct sl_cat *c, int in, enum sl_side *side)
{
	ssize_t n;

	end_init(&c->in, in);
	if (c->flags != 0)
		return add_formatted(c, side);
	link_retarget(&c->link, &c->in);
	while ((n = link_step(&c->link, STEP_MAX)) > 0)
		;
	if (n == -1)
		*side = c->link.side;
	return n;
}

int
sl_cat_close(struct sl_cat *c)
{
	int r = 0, saved;

	/* The end of the text: what the transformation held back. */
	if (c->flags != 0 && c->outbuf != NULL)
		c->pending += fmt_run(&c->fmt, c->inbuf, 0,
		    c->outbuf + c->pending);
	if (c->pending > 0)
		r = flush(c);
	saved = errno;
	link_free(&c->link);
	free(c->inbuf);
	free(c->outbuf);
	free(c);
	errno = saved;
	return r;
}
