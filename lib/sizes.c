/*
 * How big the fan-out's pieces are: the chunk of a round, the chunk
 * pipe, the lanes, and how many lanes (doc/design.md, "Fan-out" and
 * "Copies on every core").  Every bound on how far one output may run
 * ahead of another is made here, of the constants below.  The
 * arithmetic is in functions of numbers alone (longest_chunk, size_pipe,
 * size_lane, size_lanes), tested as such (t/unit/test_sizes.c); the
 * functions that take a fan only gather those numbers from its outputs.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <sys/socket.h>

#include "fanout.h"

/*
 * The most the chunk pipe grows to: 1 MiB, the default pipe-max-size,
 * as far as an unprivileged user can grow a pipe.  It takes that much
 * only where every output pipe is that big (a reader that grew its own
 * pipe wants its stream in chunks of its pipe's size).
 */
#define CHUNK_MAX	(1L << 20)

/*
 * The biggest lane, and the chunk pipe beside lanes, which is no more
 * than half a lane (pipe_room): how far one output may run ahead of
 * another while threads run is their sum, LANES_WINDOW.
 */
#define LANE_MAX	(1L << 20)
#define LANES_WINDOW	(LANE_MAX + LANE_MAX / 2)

/* What spate.h, tee(1) and doc/design.md say of the window. */
_Static_assert(LANES_WINDOW == 3L << 19, "the window is 1.5 MiB");

/*
 * Lanes take pipe pages from the user's budget (see pipe.c):
 * LANES_BUDGET bytes at most, which is four lanes of LANE_MAX and
 * LANES_MAX of LANE_MIN.  A lane of less than LANE_MIN would make chunks
 * of under 64 KiB: more files than LANES_MAX are copied on one thread.
 */
#define LANES_BUDGET	(4L << 20)
#define LANE_MIN	(128L << 10)
#define LANES_MAX	((size_t)(LANES_BUDGET / LANE_MIN))

/*
 * An output pipe's size is asked anew each time this much more of the
 * stream went through: its reader may grow it while tee runs (a reader
 * that wants speed does, once it starts), and the chunks follow.
 */
#define ASK_BYTES	(4L << 20)

/*
 * The longest chunk for a round: BOUND at most (what the path holds: its
 * buffer, or its pipes), GNU's chunk where the chunks show (GNU), and
 * within LEAST, the least room of an output (0: none is bounded).  Never
 * 0: a chunk of one byte still moves.
 */
size_t
longest_chunk(size_t bound, int gnu, size_t least)
{
	if (gnu && bound > GNU_CHUNK)
		bound = GNU_CHUNK;
	if (least > 0 && least < bound)
		bound = least;
	return bound > 0 ? bound : 1;
}

/*
 * The chunk pipe's size: what its TRAFFIC warrants (the size pipes
 * start with, or PIPE_MAX), and no bigger than LEAST_PIPE, the least
 * room of an output pipe (0: there is none), so that a chunk has no
 * more pages than an output pipe has slots, however partly filled its
 * pages are: it fits into any output pipe whose reader took what came
 * before.  Where the output pipes are bigger than the traffic warrants,
 * as big as the smallest of them, up to CHUNK_MAX: a reader that grew
 * its pipe is given chunks of its size.  With LANES, no bigger than the
 * round's chunk needs either (within LEAST, as longest_chunk: a socket's
 * chunks are small), rounded up to a power of two from BUF_MIN: a lane
 * counts each chunk at the chunk pipe's slots.
 */
long
size_pipe(long traffic, long least_pipe, int lanes, size_t least)
{
	long want = traffic, fit;
	size_t lim;

	if (want == PIPE_MAX && least_pipe > want)
		want = least_pipe < CHUNK_MAX ? least_pipe : CHUNK_MAX;
	if (least_pipe > 0 && least_pipe < want)
		want = least_pipe;
	if (lanes) {
		lim = longest_chunk(want, 0, least);
		for (fit = BUF_MIN; fit < want && (size_t)fit < lim; fit *= 2)
			;
		want = fit < want ? fit : want;
	}
	return want;
}

/*
 * The size to ask for each of N lanes (1 to LANES_MAX, as size_lanes
 * gives them): LANE_MAX, halved until the lanes fit LANES_BUDGET.
 */
long
size_lane(size_t n)
{
	long size = LANE_MAX;

	assert(n >= 1 && n <= LANES_MAX);
	while (size > LANES_BUDGET / (long)n)
		size /= 2;
	return size;
}

/* Return 1 if a lane of SIZE bytes, what the kernel granted, is worth
 * it (LANE_MIN). */
int
size_lane_enough(long size)
{
	return size >= LANE_MIN;
}

/*
 * Of NCOPY outputs that need a copy, NFILES of them regular files (the
 * only kind a lane takes), with THREADS threads to copy (lanes_threads:
 * the fan-out's own included; 0, none), how many get lanes: the
 * fan-out's thread copies its share, the other outputs first (sockets),
 * then the last files; the others' lanes are served by *WORKERS threads.
 * Return 0 where threads are not worth it (fewer than two, no file) or
 * their lanes would be too small (more than LANES_MAX).
 */
size_t
size_lanes(size_t ncopy, size_t nfiles, size_t threads, size_t *workers)
{
	size_t own, nlanes;

	assert(nfiles <= ncopy);
	if (nfiles == 0 || threads < 2)
		return 0;
	own = ncopy / threads;
	own = own > ncopy - nfiles ? own - (ncopy - nfiles) : 0;
	nlanes = nfiles - own;
	*workers = threads - 1 < nlanes ? threads - 1 : nlanes;
	return nlanes <= LANES_MAX ? nlanes : 0;
}

/*
 * The most bytes the output described by E can buffer, once its reader
 * has taken what came before: what one output may be given ahead of the
 * others.  A whole pipe (the chunk pipe is sized so that a chunk's pages
 * fit too, see size_pipe); a quarter of a socket's send buffer, whose
 * bookkeeping also counts.  0: no bound (files, devices).
 */
size_t
size_room(struct end *e)
{
	int sz;
	socklen_t len = sizeof sz;

	if (end_keeps_writes(e))
		return GNU_CHUNK;
	switch (traits(e)->room) {
	case ROOM_PIPE:
		return pipe_size(e);
	case ROOM_SNDBUF:
		if (getsockopt(e->fd, SOL_SOCKET, SO_SNDBUF, &sz, &len) == 0 &&
		    sz > 0)
			return sz / 4;
		return 0;
	case ROOM_NONE:
		break;
	}
	return 0;
}

/*
 * The room of output I if it is written into a pipe (see size_room),
 * now: the whole pipe, but a lane's half (a lane holds two chunks, see
 * lanes.c); 0 if it is no pipe.
 */
static long
pipe_room(struct fan *f, size_t i)
{
	struct end *e = out_dest(f, i);

	if (traits(e)->room != ROOM_PIPE || end_keeps_writes(e))
		return 0;
	return out_in_lane(out(f, i)->st) ? pipe_size(e) / 2 : pipe_size(e);
}

/* The least room of F's outputs served (*LEAST, 0: none bounded), and
 * of its output pipes (*LEAST_PIPE, 0: none). */
static void
rooms(struct fan *f, size_t *least, long *least_pipe)
{
	size_t i, room;
	long pr;

	*least = 0;
	*least_pipe = 0;
	for (i = 0; i < f->n; i++) {
		if (!out_served(out(f, i)->st))
			continue;
		if ((pr = pipe_room(f, i)) > 0 &&
		    (*least_pipe == 0 || pr < *least_pipe))
			*least_pipe = pr;
		room = pr > 0 ? (size_t)pr : (size_t)out(f, i)->room;
		if (room > 0 && (*least == 0 || room < *least))
			*least = room;
	}
}

/* The longest chunk for this round of F, BOUND at most (longest_chunk). */
size_t
size_round(struct fan *f, size_t bound)
{
	size_t least;
	long least_pipe;

	rooms(f, &least, &least_pipe);
	return longest_chunk(bound, f->gnu_chunks, least);
}

/* The longest chunk for this round of F's zero-copy path: what its
 * chunk pipe, and its copy pipe if open, hold (longest_chunk). */
size_t
size_round_zc(struct fan *f)
{
	size_t bound = chunk_capacity(&f->ch);

	if (f->ch.copy[0] != -1 && f->ch.copy_size > 0 &&
	    (size_t)f->ch.copy_size < bound)
		bound = f->ch.copy_size;
	return size_round(f, bound);
}

/* Size F's chunk pipe, while it is empty (size_pipe); every ASK_BYTES
 * of the stream, ask the output pipes' sizes again first. */
void
size_chunk_pipe(struct fan *f)
{
	size_t i, least;
	long least_pipe;

	if (f->pos - f->asked >= ASK_BYTES) {
		for (i = 0; i < f->n; i++)
			if (out_served(out(f, i)->st) &&
			    traits(&f->ends[i])->room == ROOM_PIPE)
				f->ends[i].size = 0;
		f->asked = f->pos;
	}
	rooms(f, &least, &least_pipe);
	chunk_resize(&f->ch, size_pipe(f->ch.want, least_pipe,
	    f->lanes != NULL, least));
}
