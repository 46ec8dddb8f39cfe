/*
 * "Copy one input to many outputs": the engine of tee.  This file holds
 * the rounds; what each output is and the telling of failures are
 * outputs.c's, the private pipes of a chunk chunk.c's, how big they are
 * sizes.c's, when it waits watch.c's, the threads lanes.c's, the signals
 * signals.c's.  The why of it all: doc/design.md, "Fan-out".
 *
 * Data moves in rounds: a chunk of the input is given to every output,
 * in the order of the outputs, before the next chunk is taken (GNU
 * tee's order), and no chunk is more than any output can buffer once
 * its reader has taken what came before (size_round).  A stream starts
 * on read/write (round_rw) and moves to zero-copy (round_zc, through the
 * chunk pipe) once one read shows it is worth it (ZC_AFTER); it goes
 * back to read/write, giving its pipes and threads back (give_back),
 * when an output stalls or the input goes quiet.  With a single output
 * there is nothing to duplicate: the transfer layer moves the stream
 * straight through (copy_single).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "fanout.h"

/*
 * Give the private pipes and the threads back: an output stalled, or
 * the input went quiet.  The round's chunk, LEN bytes, is in memory;
 * the stream goes on by read/write, and takes pipes again once a read
 * shows it fast.  Stopping the lanes tells their failures, and one may
 * end the copy (F->stop: FAIL asked, or a held signal is due): the
 * caller then gives the chunk to no output more.  Return 0, or -1 with
 * errno set if the chunk pipe could not be read.
 */
static int
give_back(struct fan *f, size_t len)
{
	if (chunk_release(&f->ch, len) == -1)
		return -1;
	f->mode = MODE_RW_UNTIL;
	if (f->lanes != NULL)
		out_from_lanes(f);
	/* Threads that were not to be had (the user's process limit) or
	 * not worth it are asked again when the next burst warrants them. */
	else if (f->threads == THREADS_NONE)
		f->threads = THREADS_READY;
	return 0;
}

/*
 * A held signal is due (struct fan.die_at): every output that has not
 * had the round's chunk, LEN bytes of the stream from AT in memory at
 * BUF + OFF, gets of it what GNU's tee had given it before it ended: up
 * to DIE_AT, and the outputs before the one that failed (DIE_OUT) the
 * read that failed too.  A failure now is told never: the process is
 * ending.
 */
static void
top_up(struct fan *f, off_t at, size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		struct out_state *o = out(f, i);
		off_t to = f->die_at + (i < f->die_out ? GNU_CHUNK : 0);

		if (to > at + (off_t)len)
			to = at + (off_t)len;
		if (out_served(o->st) && o->given >= at && o->given < to)
			out_write(f, i, off + (o->given - at), off + (to - at));
	}
	for (i = 0; i < f->n; i++)
		if (out(f, i)->st == OUT_FAILED)
			out_set(f, i, OUT_GONE);
}

/* One round of the read/write path: a chunk, or a record (read whole,
 * given out in chunks).  Return 1 to go on, 0 at end of input, -1 with
 * errno set if reading failed. */
static int
round_rw(struct fan *f)
{
	size_t i, off, k, lim = size_round(f, BUF_SIZE);
	ssize_t n;

	/* Short of memory, smaller chunks (down to GNU's, which never
	 * fail) only cost more calls. */
	while (buf_need(&f->ch, lim) == -1)
		lim /= 2;
	if (f->ch.carry > 0) {
		/* What the chunk pipe held when it was given back. */
		memmove(f->ch.buf, f->ch.buf + f->ch.carry_at, f->ch.carry);
		n = f->ch.carry;
		f->ch.carry = 0;
	} else {
		watch_pipes(f);
		if (f->live == 0 || f->stop)
			return 1;
		if ((n = buf_read(&f->ch, &f->in, lim)) <= 0) {
			f->read_failed = n == -1;
			return n;
		}
	}
	for (off = 0; off < (size_t)n && !f->stop; off += k) {
		k = (size_t)n - off < lim ? (size_t)n - off : lim;
		for (i = 0; i < f->n && !f->stop; i++)
			if (out_served(out(f, i)->st))
				out_write(f, i, off, off + k);
		if (f->die_at != -1)
			top_up(f, f->pos, off, k);
		fan_moved(f, k);
		if (f->failing > 0)
			out_report(f, 0);
	}
	/* A stream worth it: now take the chunk pipe, not before. */
	if (f->mode == MODE_RW_UNTIL && n >= (ssize_t)ZC_AFTER) {
		if (chunk_open(&f->ch) == -1) {
			f->mode = MODE_RW;
			return 1;
		}
		f->mode = MODE_ZC;
		f->pace = (struct pace){ 0 };
		size_chunk_pipe(f);
	}
	return 1;
}

/*
 * The zero-copy call C into output I failed, or moved nothing (K 0: a
 * pipe we hold cannot end).  A refusal, at any chunk, sends the output
 * to write(2): return 1, its next way (deliver) writes it the rest of
 * the chunk from the byte it had, and every chunk after.  An output in
 * a lane (tee(2) into the lane refused) first has its lane written out
 * and stopped, with the others' (out_from_lanes): its bytes then go in
 * order.  Any other failure is its error: return 0.
 */
static int
refused(struct fan *f, size_t i, ssize_t k, struct io_call *c)
{
	if (k == -1 && zerocopy_refused(c)) {
		if (out_in_lane(out(f, i)->st))
			out_from_lanes(f);
		if (!out_zerocopy(out(f, i)->st))
			return out_served(out(f, i)->st);
		out_set(f, i, OUT_WRITE);
		return 1;
	}
	out_failed(f, i, k == 0 ? EIO : errno);
	return 0;
}

/* A zero-copy verb of chunk.c that moves the chunk into an output. */
typedef ssize_t move_fn(struct chunk *ch, int fd, size_t len,
    const struct io_wait *w, struct io_call *c);

/*
 * Move up to LEN bytes of the chunk into output I by MOVE, waiting for
 * room as watch.c says (watch_output).  Return the count, or -1 with
 * errno set and C saying how: C->gave_up if no room came within
 * STALL_MS (the output's reader stalled).
 */
static ssize_t
move_out(struct fan *f, size_t i, move_fn *move, size_t len,
    struct io_call *c)
{
	struct fan_wait w;

	watch_output(f, i, &w);
	return move(&f->ch, out_dest(f, i)->fd, len, &w.io, c);
}

/* The first call that took N bytes of the round's chunk fixes its
 * length: a smaller output pipe, or copy pipe, takes no more. */
static void
take_part(struct round *r, size_t n)
{
	if (!r->fixed) {
		r->fixed = 1;
		r->len = n;
	}
}

/*
 * An output stalled: the chunk to memory, from FROM on (what the chunk
 * pipe still holds of it), and the pipes given back.  Return 0, or -1
 * with errno set if the chunk pipe could not be read.
 */
static int
stalled(struct fan *f, struct round *r, size_t from)
{
	r->fixed = 1;
	if (chunk_to_buf(&f->ch, from, r->len - from) == -1)
		return -1;
	r->at = AT_BUF;
	return give_back(f, r->len);
}

/*
 * Duplicate the chunk into the copy pipe.  Return 1 if it holds it
 * whole; 0 if it could not (no pipe to spare, or one smaller than a
 * chunk fixed before), and the chunk went to memory instead; -1 with
 * errno set if the engine's own pipes failed.
 */
static int
fill_copy(struct fan *f, struct round *r)
{
	ssize_t took = copy_fill(&f->ch, r->len);

	if (took > 0)
		take_part(r, took);
	if (took > 0 && (size_t)took == r->len)
		return 1;
	if ((took > 0 && copy_to_buf(&f->ch, 0, took) == -1) ||
	    chunk_to_buf(&f->ch, 0, r->len) == -1)
		return -1;
	r->at = AT_BUF;
	return 0;
}

/*
 * Splice the copy pipe, which holds the round's chunk whole, into output
 * I from the chunk's byte *OFF on (the bytes before are read out and
 * skipped).  What it holds when the output takes no more goes to
 * memory: after a refusal the output is written the rest at once, after
 * a stall the chunk is in memory and the pipes given back.  Return 0,
 * or -1 with errno set if the engine's own pipes failed.
 */
static int
copy_out(struct fan *f, struct round *r, size_t i, size_t *off)
{
	struct io_call c = { 0 };
	ssize_t k = 0;

	if (*off > 0 && copy_to_buf(&f->ch, 0, *off) == -1)
		return -1;
	while (*off < r->len &&
	    (k = move_out(f, i, copy_splice, r->len - *off, &c)) > 0) {
		out_count(f, i, k);
		*off += k;
	}
	if (*off == r->len)
		return 0;
	if (copy_to_buf(&f->ch, *off, r->len - *off) == -1)
		return -1;
	if (c.gave_up)
		return stalled(f, r, 0);
	if (refused(f, i, k, &c)) {
		out_write(f, i, *off, r->len);
		*off = r->len;
	}
	return 0;
}

/*
 * Give the round's chunk to output I by the way out_delivery chooses for
 * it, and again after each step that leaves it a part: a tee(2) that
 * took part of the chunk, a refusal that sends the output to write(2),
 * a stall that sends the chunk to memory.  The last output takes the
 * chunk out of the chunk pipe, into itself or memory.  Return 0, or -1
 * with errno set if the engine's own pipes failed.
 */
static int
deliver(struct fan *f, struct round *r, size_t i)
{
	size_t off = 0;		/* the bytes of the chunk output I had */
	int last = i == r->last, whole;

	while (off < r->len && out_served(out(f, i)->st) && !f->stop) {
		struct io_call c;
		ssize_t k;

		switch (out_delivery(f, i, r->at, last, off)) {
		case BY_WRITE:
			out_write(f, i, off, r->len);
			off = r->len;
			break;
		case BY_MEMORY:
			/* Read out of the copy pipe once a round, for every
			 * write(2) output. */
			if ((whole = fill_copy(f, r)) == -1 ||
			    (whole && copy_to_buf(&f->ch, 0, r->len) == -1))
				return -1;
			if (whole)
				r->at = AT_PIPE_AND_BUF;
			break;
		case BY_EMPTYING:
			if (chunk_to_buf(&f->ch, off, r->len - off) == -1)
				return -1;
			r->at = AT_BUF;
			break;
		case BY_TEE:
			k = move_out(f, i, chunk_tee, r->len, &c);
			if (k > 0) {
				out_count(f, i, k);
				take_part(r, k);
				off = k;
			} else if (c.gave_up) {
				if (stalled(f, r, 0) == -1)
					return -1;
			} else
				refused(f, i, k, &c);
			break;
		case BY_COPY:
			if ((whole = fill_copy(f, r)) == -1 ||
			    (whole && copy_out(f, r, i, &off) == -1))
				return -1;
			break;
		case BY_SPLICE:
			k = move_out(f, i, chunk_splice, r->len - off, &c);
			if (k > 0) {
				out_count(f, i, k);
				off += k;
			} else if (c.gave_up) {
				if (stalled(f, r, off) == -1)
					return -1;
			} else
				refused(f, i, k, &c);
			break;
		}
	}
	/* The last output leaves the chunk pipe empty: what it did not
	 * take goes to memory (top_up may want it). */
	if (last && r->at != AT_BUF && off < r->len &&
	    chunk_to_buf(&f->ch, off, r->len - off) == -1)
		return -1;
	if (last)
		r->at = AT_BUF;
	return 0;
}

/*
 * Take the next chunk into the chunk pipe, LIM bytes at most, waiting
 * for the input as watch.c says (watch_input): an input quiet for
 * IDLE_MS has the pipes given back.  Return 1 to go on (with a chunk
 * held, or none: the stream left zero-copy, or outputs broke), 0 at end
 * of input, -1 with errno set if reading failed.
 */
static int
take_chunk(struct fan *f, size_t lim)
{
	struct io_call c;
	struct fan_wait w;
	ssize_t n;

	watch_input(f, watch_survey(f), &w);
	n = chunk_fill(&f->ch, f->in.fd, lim, &w.io, &c);
	if (n == -1 && c.gave_up) {
		if (f->live == 0 || f->stop)
			return 1;
		return give_back(f, 0) == -1 ? -1 : 1;
	}
	if (n == -1 && zerocopy_refused(&c)) {
		/* The input refuses, at its first chunk or a later one:
		 * read/write, for good, from where the refused splice
		 * stopped (the chunk pipe is empty, the lanes are
		 * written out). */
		if (give_back(f, 0) == -1)
			return -1;
		f->mode = MODE_RW;
		return 1;
	}
	f->read_failed = n == -1;
	return n <= 0 ? n : 1;
}

/* One round of the zero-copy path.  Return as round_rw. */
static int
round_zc(struct fan *f)
{
	size_t i, lim = size_round_zc(f);
	struct round rd = { .at = AT_PIPE };
	int r;

	/* A chunk that memory could not hold would be lost if it had to go
	 * there (a write(2) output, a stall): short of memory, smaller
	 * chunks, as on the read/write path. */
	while (buf_need(&f->ch, lim) == -1)
		lim /= 2;
	/* What a survey found holds for its round alone. */
	for (i = 0; i < f->n; i++)
		out(f, i)->roomy = 0;
	if (f->ch.held == 0 && ((r = take_chunk(f, lim)) <= 0 ||
	    f->mode != MODE_ZC || f->live == 0 || f->stop))
		return r;
	rd.len = f->ch.held < lim ? f->ch.held : lim;
	for (i = 0; i < f->n; i++)
		if (out_served(out(f, i)->st))
			rd.last = i;
	for (i = 0; i <= rd.last && !f->stop; i++) {
		struct out_state *o = out(f, i);

		if (!out_served(o->st))
			continue;
		if (out_in_lane(o->st) && lanes_wait_room(f->lanes, o->lane,
		    chunk_capacity(&f->ch)) != 0) {
			out_failed_in_lane(f, i);
			continue;
		}
		if (deliver(f, &rd, i) == -1)
			return -1;
	}
	if (f->die_at != -1) {
		if (rd.at == AT_PIPE && chunk_to_buf(&f->ch, 0, rd.len) == -1)
			return -1;
		top_up(f, f->pos, 0, rd.len);
	}
	if (f->stop)
		return 1;
	/* The last output failed before it took the chunk: out with it. */
	if (rd.at != AT_BUF && chunk_to_buf(&f->ch, 0, rd.len) == -1)
		return -1;
	fan_moved(f, rd.len);
	if (f->failing > 0)
		out_report(f, 0);
	if (f->mode != MODE_ZC)
		return 1;
	/* A stream that went slow (a trickle, a reader that crawls) gives
	 * back what it took, as a quiet or a stalled one does. */
	if (pace_slow(&f->pace, f->pos))
		return give_back(f, 0) == -1 ? -1 : 1;
	if (chunk_warrants(&f->ch, rd.len))
		out_to_lanes(f);
	size_chunk_pipe(f);
	return 1;
}

/* May the zero-copy path be tried, and by which outputs; may threads. */
static void
plan_paths(struct fan *f)
{
	size_t i, nzc = 0;

	/* Aliased outputs show the chunks: GNU's, by read/write.  A record
	 * socket is read a record whole, never spliced (see choose_path). */
	f->gnu_chunks |= ends_aliased(&f->in, f->ends, f->n);
	if (f->gnu_chunks || !zerocopy_allowed() || f->in.records)
		return;
	for (i = 0; i < f->n; i++) {
		struct end *e = &f->ends[i];

		if (out_served(out(f, i)->st) && !e->append && e->write_end &&
		    !end_keeps_writes(e)) {
			out_set(f, i, OUT_ZC);
			nzc++;
		}
	}
	/* Only write(2) outputs: a chunk pipe would only add copies. */
	f->mode = nzc > 0 ? MODE_RW_UNTIL : MODE_RW;
	if (f->flags & SPATE_FANOUT_THREADS)
		f->threads = THREADS_READY;
}

/* Copy everything from the input to the single output served, I. */
static int
copy_single(struct fan *f, size_t i)
{
	struct link l;
	ssize_t n = 0;

	link_init(&l, &f->in, &f->ends[i]);
	do {
		watch_pipes(f);
		if (f->live == 0)
			break;
		if ((n = link_step(&l, end_keeps_writes(&f->ends[i]) ?
		    GNU_CHUNK : STEP_MAX)) > 0) {
			out_count(f, i, n);
			fan_moved(f, n);
		}
	} while (n > 0);
	if (f->live > 0 && n == -1 && l.side == SPATE_OUTPUT) {
		out_failed(f, i, errno);
		n = 0;
	}
	link_free(&l);
	f->read_failed = n == -1;
	return f->live == 0 ? 0 : n;
}

int
spate_fanout_with(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *opts, spate_fail_fn *fail, void *ctx)
{
	static const struct spate_fanout_opts none;
	const struct spate_fanout_opts *o = opts != NULL ? opts : &none;
	unsigned flags = o->flags;
	struct fan f = {
		.outs = outs, .n = n, .flags = flags, .fail = fail, .ctx = ctx,
		.gnu_chunks = (flags & SPATE_FANOUT_GNU_CHUNKS) != 0,
		.die_at = -1,
		.progress = o->progress
	};
	size_t i, only = 0;
	int r = 1, saved;

	sandbox_look();
	if (gnu_calls())
		return fan_gnu(in, outs, n, o, fail, ctx);
	/* With a lag, the copy says which side failed. */
	if ((r = lag_fanout(in, outs, n, o, fail, ctx)) <= 0)
		return r;
	f.ends = calloc(n ? n : 1, sizeof *f.ends);
	f.polls = calloc(n + 1, sizeof *f.polls);
	if (f.ends == NULL || f.polls == NULL) {
		free(f.ends);
		free(f.polls);
		r = fan_plain(in, outs, n, o, fail, ctx);
		if (r == -1 && o->side != NULL)
			*o->side = SPATE_INPUT;
		return r;
	}
	chunk_init(&f.ch);
	sigemptyset(&f.held);
	end_init(&f.in, in);
	/* An input open for writing only fails at its first read (EBADF),
	 * as GNU's: never looked at (watch_pipes), which would wait for
	 * ever. */
	f.in_wronly = (fcntl(in, F_GETFL) & O_ACCMODE) == O_WRONLY;
	for (i = 0; i < n; i++) {
		struct out_state *o = out(&f, i);

		*o = (struct out_state){ .st = OUT_GONE };
		f.ends[i].fd = outs[i].fd;
		if (outs[i].fd == -1)
			continue;
		end_init(&f.ends[i], outs[i].fd);
		/* An output pipe stays the size its maker chose, as GNU's
		 * tee leaves it (doc/design.md, "Pipes"). */
		f.ends[i].grown = 1;
		o->room = size_room(&f.ends[i]);
		o->st = OUT_WRITE;
		f.live++;
		only = i;
	}
	if (f.live == 1)
		r = copy_single(&f, only);
	else if (f.live > 1) {
		if (flags & SPATE_FANOUT_THREADS)
			signals_hold(&f.held, &f.open);
		plan_paths(&f);
		while (r > 0 && f.live > 0 && !f.stop) {
			out_check(&f);
			/* A signal sent from outside ends it here. */
			if ((f.stop = signals_sent(&f)))
				break;
			r = f.mode == MODE_ZC ? round_zc(&f) : round_rw(&f);
		}
	}
	saved = errno;
	out_report(&f, 1);
	if (f.lanes != NULL)
		out_from_lanes(&f);
	/* A held signal due now ends the process. */
	signals_let(&f.held);
	chunk_free(&f.ch);
	free(f.ends);
	free(f.polls);
	if (r < 0 && o->side != NULL)
		*o->side = f.read_failed ? SPATE_INPUT : SPATE_PRIVATE;
	errno = saved;
	return r < 0 ? -1 : 0;
}

int
spate_fanout_flags(int in, struct spate_out *outs, size_t n, unsigned flags,
    spate_fail_fn *fail, void *ctx)
{
	struct spate_fanout_opts o = { .flags = flags };

	return spate_fanout_with(in, outs, n, &o, fail, ctx);
}

int
spate_fanout(int in, struct spate_out *outs, size_t n, spate_fail_fn *fail,
    void *ctx)
{
	return spate_fanout_flags(in, outs, n, 0, fail, ctx);
}

int
spate_fanout_parallel(int in, struct spate_out *outs, size_t n,
    spate_fail_fn *fail, void *ctx)
{
	return spate_fanout_flags(in, outs, n, SPATE_FANOUT_THREADS, fail, ctx);
}
