/*
 * The outputs of a fan-out: what each one is (enum out_st, lib/fanout.h),
 * the moves between those states, written once (out_moves), what holds
 * between rounds (out_check), the telling of their failures in GNU's
 * order whichever thread met them (out_report), and handing files to the
 * lanes and back.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "fanout.h"

#define TO(s)	(1u << (s))
static const unsigned out_moves[] = {
	[OUT_GONE] = 0,
	[OUT_FAILED] = TO(OUT_GONE),
	[OUT_WRITE] = TO(OUT_FAILED) | TO(OUT_ZC),
	[OUT_ZC] = TO(OUT_FAILED) | TO(OUT_WRITE) | TO(OUT_LANE),
	/* A stopped lane says what its worker made of the output. */
	[OUT_LANE] = TO(OUT_FAILED) | TO(OUT_WRITE) | TO(OUT_ZC)
};

_Static_assert(sizeof(struct out_state) <=
    sizeof(((struct spate_out *)0)->engine), "struct out_state fits spate_out");

struct out_state *
out_state(struct spate_out *o)
{
	return (struct out_state *)(void *)o->engine.bytes;
}

struct out_state *
out(struct fan *f, size_t i)
{
	return out_state(&f->outs[i]);
}

/* Return 1 if output state S is served: it gets the chunks. */
int
out_served(enum out_st s)
{
	return s >= OUT_WRITE;
}

/* Return 1 if S is zero-copy's: straight, or through a lane. */
int
out_zerocopy(enum out_st s)
{
	return s >= OUT_ZC;
}

/* Return 1 if S is a lane's. */
int
out_in_lane(enum out_st s)
{
	return s == OUT_LANE;
}

/* Move output I to state TO, a move out_moves allows. */
void
out_set(struct fan *f, size_t i, enum out_st to)
{
	struct out_state *o = out(f, i);

	assert(out_moves[o->st] & TO(to));
	if (out_served(o->st) && !out_served(to))
		f->live--;
	f->failing += (to == OUT_FAILED) - (o->st == OUT_FAILED);
	if (to == OUT_GONE)
		f->outs[i].fd = -1;
	o->st = to;
}

/* What output I is written into: its own descriptor, or its lane. */
struct end *
out_dest(struct fan *f, size_t i)
{
	struct out_state *o = out(f, i);

	return out_in_lane(o->st) ? lanes_end(f->lanes, o->lane) :
	    &f->ends[i];
}

/* What an output is to a round's chunk. */
enum taker {
	TAKE_WRITE,	/* by write(2) */
	TAKE_TEE,	/* zero-copy into a pipe, none of the chunk had */
	TAKE_SPLICE	/* zero-copy, into anything else, or the rest */
};

/*
 * The path of each output, by where the round's chunk is and what the
 * output is, not the last served or the last.  The chunk stays in the
 * chunk pipe until the last output takes it out; the outputs that need
 * write(2) have it from memory, read out of the copy pipe once a round
 * (or out of the chunk pipe, by the last).  Once the chunk is in
 * memory (the pipes given back), every output has it from there.
 */
static const enum delivery deliveries[][3][2] = {
	[AT_PIPE] = {
		[TAKE_WRITE] = { BY_MEMORY, BY_EMPTYING },
		[TAKE_TEE] = { BY_TEE, BY_SPLICE },
		[TAKE_SPLICE] = { BY_COPY, BY_SPLICE }
	},
	[AT_PIPE_AND_BUF] = {
		[TAKE_WRITE] = { BY_WRITE, BY_EMPTYING },
		[TAKE_TEE] = { BY_TEE, BY_SPLICE },
		[TAKE_SPLICE] = { BY_WRITE, BY_SPLICE }
	},
	[AT_BUF] = {
		[TAKE_WRITE] = { BY_WRITE, BY_WRITE },
		[TAKE_TEE] = { BY_WRITE, BY_WRITE },
		[TAKE_SPLICE] = { BY_WRITE, BY_WRITE }
	}
};

/*
 * How output I, served, takes the round's chunk from its byte OFF on,
 * the chunk being AT; LAST if I is the last output served.  tee(2)
 * duplicates the chunk pipe from its start: a pipe that took part of a
 * chunk takes the rest as a file does.
 */
enum delivery
out_delivery(struct fan *f, size_t i, enum chunk_at at, int last, size_t off)
{
	enum taker t = !out_zerocopy(out(f, i)->st) ? TAKE_WRITE :
	    traits(out_dest(f, i))->pipe && off == 0 ? TAKE_TEE : TAKE_SPLICE;

	assert(out_served(out(f, i)->st));
	return deliveries[at][t][last != 0];
}

/*
 * Check what holds between rounds: the outputs' states agree with LIVE,
 * with the threads and with each other, every output served has had the
 * same bytes, and the chunk pipe is open on the zero-copy path alone.
 * Run before every round: every build aborts on the first that does not
 * hold (doc/design.md, "One state per output").
 */
void
out_check(struct fan *f)
{
	size_t i, live = 0;

	assert((f->lanes != NULL) == (f->threads == THREADS_RUNNING));
	assert(f->die_at == -1 || f->stop);
	assert((f->mode == MODE_ZC) == chunk_is_open(&f->ch));
	assert(f->mode != MODE_ZC || f->ch.carry == 0);
	assert(!f->gnu_chunks || (f->mode == MODE_RW &&
	    f->threads == THREADS_OFF));
	for (i = 0; i < f->n; i++) {
		struct out_state *o = out(f, i);

		/* Failed, and not told yet: a read of GNU's not had by all. */
		assert(o->st != OUT_FAILED ||
		    (o->err_at / GNU_CHUNK + 1) * GNU_CHUNK > f->pos);
		assert(o->st == OUT_GONE || f->outs[i].fd != -1);
		assert(!out_in_lane(o->st) || f->lanes != NULL);
		assert(!out_served(o->st) || o->given == f->pos);
		live += out_served(o->st);
	}
	assert(live == f->live);
}

/* Return 1 if output I's failure is told before output J's: GNU's tee
 * writes GNU_CHUNK bytes to every output in turn. */
static int
told_before(struct fan *f, size_t i, size_t j)
{
	off_t a = out(f, i)->err_at / GNU_CHUNK;
	off_t b = out(f, j)->err_at / GNU_CHUNK;

	return a < b || (a == b && i < j);
}

/* The failures not told yet are told never: the copy stops. */
static void
drop_failed(struct fan *f)
{
	size_t i;

	f->stop = 1;
	for (i = 0; i < f->n; i++)
		if (out(f, i)->st == OUT_FAILED)
			out_set(f, i, OUT_GONE);
}

/* Return 1 if output error ERR raised a signal held that is due
 * (signals_fatal): GNU's tee would have ended there. */
static int
fatal(struct fan *f, int err)
{
	return signals_fatal(&f->held, err);
}

/* Return 1 if an output FAILED with an error that raised a held signal
 * now due. */
static int
fatal_failure(struct fan *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (out(f, i)->st == OUT_FAILED && fatal(f, out(f, i)->err))
			return 1;
	return 0;
}

/*
 * A held signal is due, raised by the failure of output I (or by FAIL's
 * own write, I the count of outputs): no more rounds, no more telling.
 * Every output is to have had what GNU's would when it died, the reads
 * before the one that failed (DIE_AT, see top_up), and that read too if
 * it comes before I (GNU's tee wrote it to them first); then the lanes
 * are written, and the signal, let go, ends the process.  When FAIL's
 * write raised it, every output has had all of POS already.
 */
static void
dying(struct fan *f, size_t i)
{
	if (i < f->n) {
		f->die_at = out(f, i)->err_at / GNU_CHUNK * GNU_CHUNK;
		f->die_out = i;
	} else {
		f->die_at = f->pos;
		f->die_out = 0;
	}
	drop_failed(f);
}

/* Output I's lane failed: it is FAILED, where its worker says. */
static void
take_lane_error(struct fan *f, size_t i)
{
	struct out_state *o = out(f, i);
	struct lane_result r;

	lanes_result(f->lanes, o->lane, &r);
	if (r.err == 0)
		return;
	o->err = r.err;
	o->err_at = r.err_at;
	/* The worker's SIGXFSZ, raised here as by a write of this thread's
	 * own: held, it makes the failure fatal (out_report); handled, the
	 * handler runs here. */
	if (r.raised)
		raise(SIGXFSZ);
	out_set(f, i, OUT_FAILED);
}

/*
 * Tell FAIL of the failures known, in GNU's order (told_before),
 * whichever thread met them first: ALL of them, or those that came in an
 * 8 KiB read of GNU's that every output has had (POS), so that no
 * failure GNU would tell before them can still come (an output after
 * them may fail in the same read, and the lanes first write what they
 * were given).  A failure that raised a held signal ends the telling, as
 * it would have ended GNU's tee (dying).  A stop FAIL asks for ends it
 * too.
 */
void
out_report(struct fan *f, int all)
{
	size_t i, first;

	if (f->lanes != NULL) {
		lanes_sync(f->lanes);
		for (i = 0; i < f->n; i++)
			if (out_in_lane(out(f, i)->st))
				take_lane_error(f, i);
	}
	/* A failure that raised a held signal is told now, with all before
	 * it, as out_failed() does: the process dies at once (watch.c's waits
	 * count on it). */
	if (!all && fatal_failure(f))
		all = 1;
	for (;;) {
		first = f->n;
		for (i = 0; i < f->n; i++)
			if (out(f, i)->st == OUT_FAILED &&
			    (first == f->n || told_before(f, i, first)))
				first = i;
		if (first == f->n)
			return;
		if (fatal(f, out(f, first)->err)) {
			dying(f, first);
			return;
		}
		if (!all && (out(f, first)->err_at / GNU_CHUNK + 1) *
		    GNU_CHUNK > f->pos)
			return;
		out_set(f, first, OUT_GONE);
		if (f->fail(f->ctx, first, out(f, first)->err) == -1) {
			drop_failed(f);
			return;
		}
		/* A signal due now was raised by FAIL's own write, unless an
		 * output's failure raised it: that one is told next, or is
		 * the first that would be, and dies at its own GNU read. */
		if (signals_due(&f->held) && !fatal_failure(f)) {
			dying(f, f->n);
			return;
		}
	}
}

/*
 * Output I failed with ERR after the bytes it was given.  Without
 * threads FAIL is told at once (spate.h); with them, at the end of the
 * round that completes GNU's read it came in (out_report), or at once if it
 * ends the process.
 */
void
out_failed(struct fan *f, size_t i, int err)
{
	struct out_state *o = out(f, i);

	o->err = err;
	o->err_at = o->given;
	out_set(f, i, OUT_FAILED);
	if (!(f->flags & SPATE_FANOUT_THREADS) || fatal(f, err))
		out_report(f, 1);
}

/* The lane of output I said its file failed: FAILED, told as above. */
void
out_failed_in_lane(struct fan *f, size_t i)
{
	take_lane_error(f, i);
	if (fatal(f, out(f, i)->err))
		out_report(f, 1);
}

/* N more bytes went to output I, or into its lane. */
void
out_count(struct fan *f, size_t i, size_t n)
{
	struct out_state *o = out(f, i);

	o->given += n;
	if (out_in_lane(o->st))
		lanes_posted(f->lanes, o->lane, n);
}

/* Write the chunk's bytes OFF..LEN, in memory, to output I: waiting
 * for room with watch_mask's mask, so that a signal held the rest of the
 * time comes in while the output's reader does not read. */
void
out_write(struct fan *f, size_t i, size_t off, size_t len)
{
	struct end *e = out_dest(f, i);
	const sigset_t *mask = watch_mask(f);
	struct io_call c = { .op = IO_WRITE, .in = -1, .out = e->fd,
	    .buf = f->ch.buf + off, .len = len - off, .mask = mask,
	    .pipe = mask != NULL && traits(e)->pipe && !e->packets ?
	    pipe_size(e) : 0 };
	int r = io_move_all(&c);

	out_count(f, i, len - off - c.len);
	if (r == -1)
		out_failed(f, i, errno);
}

/* Return 1 if output I needs a copy of every byte (into a file's page
 * cache, a socket's buffers) that a lane can make on another CPU. */
static int
needs_copy(struct fan *f, size_t i)
{
	return out(f, i)->st == OUT_ZC && traits(&f->ends[i])->needs_copy;
}

/*
 * Return 1 if output I needs a copy and may have a lane: a regular file,
 * which takes its bytes whoever reads it.  A socket's copy stays on this
 * thread, where the chunk is no more than its buffer holds: a worker
 * blocked on a socket whose reader waits for another output would keep
 * the other lanes it serves waiting too, and a stalled socket would
 * keep its lane.
 */
static int
takes_lane(struct fan *f, size_t i)
{
	return needs_copy(f, i) && traits(&f->ends[i])->lane;
}

/*
 * The stream has shown itself worth a big chunk pipe: worth threads
 * too, if they are allowed and the outputs that copy warrant them
 * (size_lanes).  Their lanes take the place of the first files; if the
 * lanes cannot be had, nothing was moved yet, and the copies stay on
 * this thread.
 */
void
out_to_lanes(struct fan *f)
{
	size_t i, k = 0, ncopy = 0, nfiles = 0, nlanes, workers;
	struct lane_out *outs;

	if (f->threads != THREADS_READY)
		return;
	f->threads = THREADS_NONE;
	for (i = 0; i < f->n; i++) {
		ncopy += needs_copy(f, i);
		nfiles += takes_lane(f, i);
	}
	/* No file, no lane: the CPUs are not asked. */
	if (nfiles == 0 ||
	    (nlanes = size_lanes(ncopy, nfiles, lanes_threads(ncopy),
	    &workers)) == 0 ||
	    (outs = malloc(nlanes * sizeof *outs)) == NULL)
		return;
	for (i = 0; i < f->n && k < nlanes; i++)
		if (takes_lane(f, i))
			outs[k++] = (struct lane_out){ .fd = f->outs[i].fd,
			    .at = out(f, i)->given };
	f->lanes = lanes_start(outs, nlanes, workers);
	free(outs);
	if (f->lanes == NULL)
		return;
	f->threads = THREADS_RUNNING;
	for (i = 0, k = 0; i < f->n && k < nlanes; i++)
		if (takes_lane(f, i)) {
			out(f, i)->lane = k++;
			out_set(f, i, OUT_LANE);
		}
}

/*
 * Let the workers write what their lanes were given, tell their
 * failures, and end them: the outputs they served are this thread's
 * again, each in the state its worker leaves it (struct lane_result).
 */
void
out_from_lanes(struct fan *f)
{
	struct lanes *c = f->lanes;
	size_t i;

	/* Every failure from the lanes is known; one that raised a held
	 * signal is told now, with what came before it. */
	out_report(f, 0);
	for (i = 0; i < f->n; i++)
		if (out(f, i)->st == OUT_FAILED && fatal(f, out(f, i)->err))
			out_report(f, 1);
	for (i = 0; i < f->n; i++) {
		struct out_state *o = out(f, i);
		struct lane_result r;

		if (!out_in_lane(o->st))
			continue;
		lanes_result(c, o->lane, &r);
		out_set(f, i, r.fell_back ? OUT_WRITE : OUT_ZC);
	}
	f->lanes = NULL;
	f->threads = THREADS_READY;
	lanes_stop(c);
}
