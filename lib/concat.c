/*
 * "Concatenate inputs into one output": the engine of cat (spate_cat_*).
 *
 * Without a transformation each input goes through the transfer layer
 * (xfer.c).  With one (SPATE_CAT_*) the text is read, transformed by
 * format.c and written, or handed to a pipe (handoff.c); what is pending
 * is written before a read that would wait and at the end of each
 * input.  The why of it: doc/design.md, "cat".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "spate.h"
#include "engine.h"
#include "format.h"

/*
 * The input read at a time, the output gathered before it is written,
 * and the input transformed at a time into what is gathered.  The output
 * buffer holds FMT_OUT and the worst a slice can make (a line number and
 * "M-^?" for every byte: 23 bytes a byte), and what the text really
 * makes is written as it passes FMT_OUT: a slice of 8 KiB keeps the
 * buffer at 312 KiB, where a whole read's worst would take 1.6 MB (GNU
 * 9.1 takes 800 KiB).
 */
#define FMT_IN		(64u << 10)
#define FMT_OUT		(128u << 10)
#define FMT_SLICE	(8u << 10)

/*
 * The transformed bytes written by write(2) before an output pipe is
 * handed the pages instead (handoff.c): a stream this long is worth a
 * 2 MiB region at a time; a short one, or a trickle, never maps one.
 */
#define HANDOFF_AFTER	(4u << 20)

/* The least input transformed into what is left of a region: less, and
 * the region is handed over and a new one taken. */
#define PIECE_MIN	4096u

struct spate_cat {
	struct end out;
	struct end in;
	struct link link;	/* for the untransformed copy */
	struct fmt fmt;
	unsigned flags;
	char *inbuf;		/* INSIZE bytes: FMT_IN, or a record's */
	size_t insize;
	char *outbuf;		/* FMT_OUT + fmt_room(FMT_SLICE) bytes */
	int nomem;		/* a buffer could not be had */
	size_t pending;		/* transformed bytes in outbuf not yet written */
	size_t written;		/* bytes written from outbuf, up to the
				   decision on handing off */
	int decided;		/* whether to hand off was decided */
	int handing;		/* the output goes by handoff */
	struct handoff ho;
	off_t copied;		/* bytes written to the output, every input's */
	spate_progress_fn *progress;	/* told of COPIED, or NULL */
	void *progress_ctx;
};

/*
 * The first handle is static, later ones are mapped: a plain cat between
 * files then needs no memory of its own, as GNU's needs none, and runs
 * under an address-space limit (ulimit -v) so tight that the C library's
 * locale files took the last pages.  (A first malloc would grow the heap
 * by 132 KiB.)
 */
static struct spate_cat first;
static char first_taken;

struct spate_cat *
spate_cat_open(int out, unsigned flags)
{
	struct spate_cat *c = &first;

	if (__atomic_test_and_set(&first_taken, __ATOMIC_ACQUIRE))
		c = (struct spate_cat *)map_memory(sizeof *c, 0);
	else
		memset(c, 0, sizeof *c);
	if (c == NULL)
		return NULL;
	c->flags = flags;
	sandbox_look();
	end_init(&c->out, out);
	link_init(&c->link, NULL, &c->out);
	fmt_init(&c->fmt, flags);
	return c;
}

void
spate_cat_progress(struct spate_cat *c, spate_progress_fn *fn, void *ctx)
{
	c->progress = fn;
	c->progress_ctx = ctx;
}

/* N more bytes reached the output: count them, and tell the hook. */
static void
wrote(struct spate_cat *c, size_t n)
{
	c->copied += n;
	if (c->progress != NULL)
		c->progress(c->progress_ctx, c->copied);
}

/* The transformed bytes not yet written or handed over. */
static size_t
pending(const struct spate_cat *c)
{
	return c->handing ? c->ho.fill - c->ho.start : c->pending;
}

/*
 * Return 1 if C's output, a long stream so far, may be handed the pages
 * it is made in: a pipe (not in packet mode, whose reader must get each
 * write as a packet) that zero-copy may use, on a system with huge
 * pages.
 */
static int
handoff_warranted(const struct spate_cat *c)
{
	return traits(&c->out)->pipe && c->out.write_end && !c->out.append &&
	    !c->out.packets && zerocopy_allowed() && !c->link.gnu &&
	    handoff_available();
}

/*
 * Write the pending transformed bytes in records of FMT_OUT, as GNU 9.1
 * writes them (its output buffer is 128 KiB for a socket or a pipe), and
 * keep the rest for later: for an output that keeps writes apart, whose
 * readers GNU's sizes were made for.  Return 0, or -1 with errno set.
 */
static int
write_records(struct spate_cat *c)
{
	size_t off;

	for (off = 0; c->pending - off >= FMT_OUT; off += FMT_OUT)
		if (write_all(c->out.fd, c->outbuf + off, FMT_OUT) == -1)
			return -1;
	memmove(c->outbuf, c->outbuf + off, c->pending - off);
	c->pending -= off;
	if (off > 0)
		wrote(c, off);
	return 0;
}

/*
 * Write or hand over the pending transformed bytes; return 0, or -1
 * with errno set.  An output pipe grows with this traffic as with
 * zero-copy's.
 */
static int
flush(struct spate_cat *c)
{
	size_t n = pending(c);
	int r;

	if (c->handing) {
		r = handoff_send(&c->ho, c->out.fd);
		if (c->ho.refused) {
			/* The pipe takes no vmsplice: write from now on. */
			handoff_free(&c->ho);
			c->handing = 0;
		}
	} else {
		r = write_all(c->out.fd, c->outbuf, n);
		c->pending = 0;
		c->written += n;
		if (r == 0 && !c->decided && c->written >= HANDOFF_AFTER) {
			c->decided = 1;
			if ((c->handing = handoff_warranted(c))) {
				free(c->outbuf);
				c->outbuf = NULL;
			}
		}
	}
	if (r == 0)
		pipe_carried(&c->out, n);
	if (r == 0 && n > 0)
		wrote(c, n);
	return r;
}

/*
 * Transform the LEN bytes at IN into the output, flushing what fills
 * up.  Return 0, or -1 with errno set: an output error, or
 * C->nomem set if the output buffer could not be had.
 */
static int
transform(struct spate_cat *c, const char *in, size_t len)
{
	size_t k, room;
	char *o;

	while (c->handing) {
		room = handoff_room(&c->ho);
		k = fmt_fits(room) < len ? fmt_fits(room) : len;
		if (fmt_room(k) <= room && (k == len || k >= PIECE_MIN)) {
			if ((o = handoff_space(&c->ho)) == NULL) {
				c->handing = 0;	/* no memory: write */
				break;
			}
			handoff_wrote(&c->ho, fmt_run(&c->fmt, in, k, o));
			in += k;
			len -= k;
			if (len == 0)
				return 0;
		} else if (flush(c) == -1)
			return -1;
		else
			handoff_free(&c->ho);
	}
	if (c->outbuf == NULL &&
	    (c->outbuf = malloc(FMT_OUT + fmt_room(FMT_SLICE))) == NULL) {
		c->nomem = 1;
		return -1;
	}
	/* LEN 0 too: the end of the text writes what -E held back. */
	do {
		k = len < FMT_SLICE ? len : FMT_SLICE;
		c->pending += fmt_run(&c->fmt, in, k, c->outbuf + c->pending);
		in += k;
		len -= k;
		if (c->pending >= FMT_OUT && (end_may_keep_writes(&c->out) ?
		    write_records(c) : flush(c)) == -1)
			return -1;
		/* That flush may have started the handoff (and freed
		 * outbuf): the rest goes into its regions. */
		if (c->handing && len > 0)
			return transform(c, in, len);
	} while (len > 0);
	return 0;
}

/* Return 1 if a read of IN would wait: nothing is there yet.  A signal
 * that interrupts the look is no answer: wait_any looks again.  Under a
 * filter (GNU) it asks as GNU 9.11's cat asks, ioctl(2) FIONREAD, and
 * a descriptor that cannot say has nothing, as GNU takes it. */
static int
would_wait(int in, int gnu)
{
	struct pollfd p = { .fd = in, .events = POLLIN };
	int n;

	if (gnu)
		return ioctl(in, FIONREAD, &n) == -1 || n == 0;
	return wait_any(&p, 1, 0) == 0;
}

/* Transform all of C->in into the output.  Return as spate_cat_add. */
static int
add_formatted(struct spate_cat *c, enum spate_side *side)
{
	if (c->inbuf == NULL) {
		if ((c->inbuf = malloc(FMT_IN)) == NULL) {
			*side = SPATE_MEMORY;
			return -1;
		}
		c->insize = FMT_IN;
	}
	for (;;) {
		ssize_t n;

		if (pending(c) > 0 && !traits(&c->in)->file &&
		    would_wait(c->in.fd, c->link.gnu) && flush(c) == -1) {
			*side = SPATE_OUTPUT;
			return -1;
		}
		/* FMT_IN bytes, or a record whole (read_input). */
		if ((n = read_input(&c->in, &c->inbuf, &c->insize,
		    FMT_IN)) < 0) {
			*side = SPATE_INPUT;
			return -1;
		}
		*side = SPATE_OUTPUT;
		/* The end of an input is a read that waits, as GNU has it. */
		if (n == 0)
			return flush(c);
		if (transform(c, c->inbuf, n) == -1) {
			if (c->nomem)
				*side = SPATE_MEMORY;
			return -1;
		}
	}
}

int
spate_cat_add(struct spate_cat *c, int in, enum spate_side *side)
{
	struct stat st;

	return spate_cat_add_stat(c, in, fstat(in, &st) == 0 ? &st : NULL,
	    side);
}

int
spate_cat_add_stat(struct spate_cat *c, int in, const struct stat *st,
    enum spate_side *side)
{
	ssize_t n;

	end_init_input(&c->in, in, st);
	if (c->flags != 0)
		return add_formatted(c, side);
	link_retarget(&c->link, &c->in, st != NULL ? st->st_size : 0);
	while ((n = link_step(&c->link, STEP_MAX)) > 0)
		wrote(c, n);
	if (n == -1)
		*side = c->link.side;
	return n;
}

int
spate_cat_close(struct spate_cat *c)
{
	char held[FMT_FINISH_MAX];
	int r = 0, saved;
	size_t n;

	if (pending(c) > 0)
		r = flush(c);
	/* The end of the text: what -E held back, if it did. */
	if (r == 0 && (n = fmt_finish(&c->fmt, held)) > 0 &&
	    (r = write_all(c->out.fd, held, n)) == 0)
		wrote(c, n);
	saved = errno;
	handoff_free(&c->ho);
	link_free(&c->link);
	free(c->inbuf);
	free(c->outbuf);
	if (c == &first)
		__atomic_clear(&first_taken, __ATOMIC_RELEASE);
	else
		munmap(c, sizeof *c);
	errno = saved;
	return r;
}
