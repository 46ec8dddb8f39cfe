/*
 * "Copy one input to many outputs": the engine of tee.
 *
 * Data moves in chunks, each given to every output, in the order of the
 * outputs, before the next chunk is taken (GNU tee's order: an output
 * named twice, or a file reached through two outputs, ends up as GNU
 * leaves it).  A chunk is never more than any output can buffer once its
 * reader has taken what came before, so a reader that takes the outputs
 * in lockstep is never left waiting on an output that tee has not
 * reached while tee waits on another.
 *
 * A stream starts on read/write, and moves to zero-copy once one read
 * shows it is worth it (ZC_AFTER).  Then each chunk is first spliced from
 * the input into a private pipe, the chunk pipe, which nobody else reads:
 * another reader of the input pipe cannot change what one output gets
 * and another does not.  From there:
 * - an output pipe gets the chunk by tee(2) straight from the chunk pipe
 *   (the first such call also fixes the chunk's length);
 * - another zero-copy output gets it through a second private pipe, the
 *   copy pipe: tee(2) into it while empty (as big as the chunk pipe, it
 *   takes the whole chunk), then splice(2) out of it;
 * - an output that needs write(2) (O_APPEND, or zero-copy refused) gets
 *   the chunk from memory, read out of the copy pipe once per chunk;
 * - the last output consumes the chunk with splice(2) (or read(2)).
 * With a single output there is nothing to duplicate: the transfer layer
 * moves the stream straight from input to output.
 *
 * An output that stays full for STALL_MS has a reader that stalled: the
 * chunk is read into memory, the private pipes are closed, and the chunk
 * is written from memory, so that a stalled tee holds none of its user's
 * pipe quota but what its output pipes hold, which it never grows.  The
 * stream goes on by read/write, and takes new private pipes, at the
 * default size, once a read shows it is worth it again.
 *
 * sl_fanout_parallel also moves the copies off this thread once the
 * stream warrants a big chunk pipe: regular files among the outputs get
 * a lane each (lanes.c), a pipe that takes the file's place here and
 * that a worker thread writes out, while this thread copies into the
 * sockets and the last files, its share.  A lane holds what one pipe
 * does at most, so that the order above holds within that window, and
 * beyond it this thread waits for the slowest output.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sluice.h"
#include "engine.h"

/* How an output is written (struct out_state.path). */
enum { OUT_ZC = 1, OUT_WRITE };

/*
 * The path of the stream (struct fan.mode).  Only MODE_ZC has a chunk
 * pipe in use; MODE_RW_UNTIL moves to MODE_ZC after a read of ZC_AFTER
 * bytes, MODE_ZC back to MODE_RW_UNTIL when an output stalls
 * (release_pipes), and either to MODE_RW when zero-copy is refused.
 */
enum mode {
	MODE_RW,		/* read/write, for good */
	MODE_RW_UNTIL,		/* read/write until a read shows a stream */
	MODE_ZC			/* each chunk through the chunk pipe */
};

/*
 * Where the round's chunk is, on the zero-copy path (struct
 * fan.chunk_at): write(2) outputs need it in BUF; an output that cannot
 * be given it from the pipe moves it there for good.
 */
enum chunk_at {
	AT_PIPE,		/* in the chunk pipe */
	AT_PIPE_AND_BUF,	/* there, and read out of the copy pipe into
				   BUF for the write(2) outputs */
	AT_BUF			/* read out of the chunk pipe into BUF: the
				   outputs left get it by write(2) */
};

/*
 * GNU tee's read size.  Where the size of the chunks shows, tee uses it
 * too: when two outputs are the same file or pipe (the chunks interleave
 * there: `tee -a f f`), and into an output that keeps writes apart: a
 * record socket or a packet-mode pipe (each chunk is a record, or
 * packets of a page, which a reader may cut to its buffer's size).
 */
#define GNU_CHUNK	8192

/*
 * Lanes (lanes.c) take pipe pages from the user's budget (see pipe.c):
 * LANES_BUDGET bytes at most, which is eight lanes of PIPE_MAX and
 * LANES_MAX of LANE_MIN.  A lane of less than LANE_MIN would make chunks
 * of under 64 KiB: more files than LANES_MAX are copied on one thread.
 */
#define LANES_BUDGET	(4L << 20)
#define LANE_MAX	(1L << 20)
#define LANE_MIN	(128L << 10)
#define LANES_MAX	((size_t)(LANES_BUDGET / LANE_MIN))

/* How long an output may stay full before its reader counts as stalled. */
#define STALL_MS	1000

/*
 * A fan-out.  What holds between rounds:
 * - LIVE counts the outputs whose fd is not -1;
 * - in MODE_ZC the chunk pipe is open and HELD is what it holds: input
 *   no output has had yet; the copy pipe, if open, is empty;
 * - CARRY bytes wait in BUF only right after release_pipes, for the next
 *   read/write round;
 * - with LANES, output I has a lane if LANE_OF[I] is not -1, and ENDS[I]
 *   is then the lane's write end, not the output.
 */
struct fan {
	struct sl_out *outs;
	struct end *ends;	/* what each output is (or its lane) */
	size_t n;		/* outputs */
	size_t live;		/* outputs not dropped */
	sl_fail_fn *fail;
	void *ctx;
	int stop;		/* FAIL asked to stop */
	struct end in;
	int gnu_chunks;		/* chunks of GNU_CHUNK: two outputs alias */
	enum mode mode;
	off_t in_moved;		/* bytes spliced from the input */
	int chunk[2];		/* the chunk pipe */
	struct end chunk_end;	/* its write end, for its size */
	long chunk_want;	/* the size its traffic warrants */
	size_t held;		/* bytes in the chunk pipe */
	int copy[2];		/* the copy pipe */
	long copy_size;		/* its capacity */
	char *buf;		/* the chunk in memory */
	size_t bufsize;
	enum chunk_at chunk_at;	/* MODE_ZC: where this round's chunk is */
	size_t carry;		/* input bytes at BUF + CARRY_AT, read out of
				   the chunk pipe after this round's chunk
				   when it was given back: every output's next */
	size_t carry_at;
	int parallel;		/* copies may run in threads (lanes.c) */
	int lanes_tried;	/* lanes were started, or could not be */
	struct lanes *lanes;	/* the lanes, or NULL */
	int *lane_of;		/* output I's lane, or -1 */
	int holding;		/* hold_signals set the mask: */
	sigset_t held_sigs;	/* the signals it blocked */
	sigset_t sigmask;	/* ... and the mask to go back to */
	int dying;		/* a held signal is due: which */
};

static void stop_lanes(struct fan *f);

/*
 * OUTS[I] failed with ERR: drop it and tell FAIL, which may stop us.
 * But if the failure raised a signal held back while lanes run
 * (hold_signals), which would have ended us: stop, and let the signal
 * end us once the lanes are written (stop_lanes).
 */
static void
drop_output(struct fan *f, size_t i, int err)
{
	int sig = err == EPIPE ? SIGPIPE : err == EFBIG ? SIGXFSZ : 0;

	f->outs[i].fd = -1;
	f->live--;
	if (sig != 0 && sigismember(&f->held_sigs, sig) == 1 &&
	    signal_due(sig)) {
		f->dying = sig;
		f->stop = 1;
		return;
	}
	if (f->fail(f->ctx, i, err) == -1)
		f->stop = 1;
}

/* N bytes went into OUTS[I]'s lane, if it has one: its worker's now. */
static void
lane_count(struct fan *f, size_t i, size_t n)
{
	if (f->lanes != NULL && f->lane_of[i] != -1)
		lanes_posted(f->lanes, f->lane_of[i], n);
}

/*
 * Before OUTS[I] is given a chunk, out of a pipe of BYTES or of BYTES in
 * memory: if it has a lane, wait until the lane has room for it whole,
 * and drop the output if its worker found it failed.  Return 1 if
 * OUTS[I] is still served.
 */
static int
output_ready(struct fan *f, size_t i, size_t bytes)
{
	int err;

	if (f->outs[i].fd == -1)
		return 0;
	if (f->lanes == NULL || f->lane_of[i] == -1)
		return 1;
	if ((err = lanes_wait_room(f->lanes, f->lane_of[i], bytes)) == 0)
		return 1;
	drop_output(f, i, err);
	return 0;
}

/* Make BUF hold at least LEN bytes (BUF_SIZE, if that much memory can
 * be had); return 0, or -1 with errno set. */
static int
need_buf(struct fan *f, size_t len)
{
	char *b = NULL;

	if (len <= f->bufsize)
		return 0;
	if (len < BUF_SIZE && (b = realloc(f->buf, BUF_SIZE)) != NULL)
		len = BUF_SIZE;
	if (b == NULL && (b = realloc(f->buf, len)) == NULL)
		return -1;
	f->buf = b;
	f->bufsize = len;
	return 0;
}

/*
 * The most bytes the output described by E can buffer, once its reader
 * has taken what came before: what one output may be given ahead of the
 * others.  A whole pipe (the chunk pipe is sized so that a chunk's pages
 * fit too, see size_chunk_pipe); a quarter of a socket's send buffer, whose
 * bookkeeping also counts.  0: no bound (files, devices).
 */
static size_t
end_room(struct end *e)
{
	int sz;
	socklen_t len = sizeof sz;

	if (end_keeps_writes(e))
		return GNU_CHUNK;
	if (e->kind == K_PIPE)
		return pipe_size(e);
	if (e->kind == K_SOCKET &&
	    getsockopt(e->fd, SOL_SOCKET, SO_SNDBUF, &sz, &len) == 0 && sz > 0)
		return sz / 4;
	return 0;
}

/*
 * The bytes of a chunk that output pipe I takes whole: all it holds, or,
 * if it is a lane, half (a lane holds two chunks, see lanes.c).
 */
static long
pipe_room(struct fan *f, size_t i)
{
	long n = pipe_size(&f->ends[i]);

	return f->lanes != NULL && f->lane_of[i] != -1 ? n / 2 : n;
}

/* The room of output I (see end_room) now: a lane may have its place. */
static size_t
output_room(struct fan *f, size_t i)
{
	if (f->ends[i].kind == K_PIPE && !end_keeps_writes(&f->ends[i]))
		return pipe_room(f, i);
	return out_state(&f->outs[i])->room;
}

/* The longest chunk for this round: within every output's room. */
static size_t
chunk_limit(struct fan *f, size_t lim)
{
	size_t i, room;

	if (f->gnu_chunks && lim > GNU_CHUNK)
		lim = GNU_CHUNK;
	for (i = 0; i < f->n; i++)
		if (f->outs[i].fd != -1 && (room = output_room(f, i)) > 0 &&
		    room < lim)
			lim = room;
	/* Never 0: a chunk of one byte still moves. */
	return lim > 0 ? lim : 1;
}

/* Read N bytes of pipe P into BUF at OFF; return 0, or -1 with errno. */
static int
pipe_to_buf(struct fan *f, int p, size_t off, size_t n)
{
	if (need_buf(f, off + n) == -1)
		return -1;
	return read_exact(p, f->buf + off, n);
}

/*
 * Write the chunk's bytes OFF..LEN, in memory, to OUTS[I]; drop it on
 * failure.
 */
static void
write_buf(struct fan *f, size_t i, size_t off, size_t len)
{
	struct sl_out *o = &f->outs[i];

	if (write_all(f->ends[i].fd, f->buf + off, len - off) == -1)
		drop_output(f, i, errno);
	else {
		out_state(o)->moved += len - off;
		lane_count(f, i, len - off);
	}
}

/*
 * Before zero-copy gives OUTS[I] more: if it is a pipe or a socket with
 * no room, wait for room; return 1 if none came within STALL_MS (its
 * reader stalled: the caller moves the chunk to memory and calls
 * release_pipes), else 0.
 */
static int
output_stalled(struct fan *f, size_t i)
{
	struct pollfd p = { .fd = f->ends[i].fd, .events = POLLOUT };
	enum kind k = f->ends[i].kind;

	/* 0 on room, or on an error the next call will meet. */
	return (k == K_PIPE || k == K_SOCKET) && poll(&p, 1, 0) == 0 &&
	    poll(&p, 1, STALL_MS) == 0;
}

/*
 * An output stalled, and the chunk, LEN bytes, is in memory: read what
 * the chunk pipe holds after it (a short tee(2) fixed a shorter chunk)
 * into memory too, for the next round, and close the private pipes.  The
 * round goes on from memory, the stream by read/write (round_rw takes
 * new pipes once a read shows it fast again).  Return 0, or -1 with
 * errno set if the chunk pipe could not be read.
 */
static int
release_pipes(struct fan *f, size_t len)
{
	if (f->held > len && pipe_to_buf(f, f->chunk[0], len, f->held - len) == -1)
		return -1;
	f->carry = f->held - len;
	f->carry_at = len;
	f->held = len;
	close_pair(f->chunk);
	close_pair(f->copy);
	f->mode = MODE_RW_UNTIL;
	/* The lanes' pipes go too, and come back with the stream. */
	if (f->lanes != NULL) {
		stop_lanes(f);
		f->lanes_tried = 0;
	}
	return 0;
}

/*
 * Zero-copy just gave OUTS[I] N bytes: from now on a failure there is
 * its error, not a refusal to fall back from.
 */
static void
count_zc(struct fan *f, size_t i, size_t n)
{
	out_state(&f->outs[i])->moved += n;
	out_state(&f->outs[i])->zc_moved += n;
	lane_count(f, i, n);
}

/*
 * Size the chunk pipe, while it is empty: as big as its traffic warrants,
 * and no bigger than any output pipe.  A chunk then has no more pages
 * than an output pipe has slots, however partly filled its pages are,
 * so it fits into any output pipe whose reader took what came before.
 * With lanes, no bigger than a chunk needs either (a socket's chunks
 * are small): a lane counts each chunk at the chunk pipe's slots.  The
 * copy pipe follows, so that tee(2) into it takes any chunk whole.
 */
static void
size_chunk_pipe(struct fan *f)
{
	long want = f->chunk_want, have = pipe_size(&f->chunk_end), fit;
	size_t i, lim;

	for (i = 0; i < f->n; i++)
		if (f->outs[i].fd != -1 && f->ends[i].kind == K_PIPE &&
		    pipe_room(f, i) < want)
			want = pipe_room(f, i);
	if (f->lanes != NULL) {
		lim = chunk_limit(f, want);
		for (fit = BUF_MIN; fit < want && (size_t)fit < lim; fit *= 2)
			;
		want = fit < want ? fit : want;
	}
	if (want == have || f->held > 0 || pipe_resize(&f->chunk_end, want) == -1)
		return;
	if (f->copy[0] != -1)
		f->copy_size = pipe_grow_to(f->copy[1], f->chunk_end.size);
}

/*
 * Return 1 if output I needs a copy of every byte (into a file's page
 * cache, a socket's buffers) that a lane can make on another CPU.
 */
static int
needs_copy(struct fan *f, size_t i)
{
	return f->outs[i].fd != -1 && out_state(&f->outs[i])->path == OUT_ZC &&
	    (f->ends[i].kind == K_FILE || f->ends[i].kind == K_SOCKET);
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
	return needs_copy(f, i) && f->ends[i].kind == K_FILE;
}

/*
 * While lanes run, a write into a pipe whose reader left (SIGPIPE) or
 * into a file past RLIMIT_FSIZE (SIGXFSZ) must not end the process
 * before the lanes are written: the other outputs would hold less than
 * GNU's serial tee gives them.  So each of the two that would end the
 * process (its default action, not blocked already) is blocked until
 * stop_lanes, on this thread and on the workers, which inherit the
 * mask: the write fails with EPIPE or EFBIG and the signal waits.
 */
static void
hold_signals(struct fan *f)
{
	static const int sigs[] = { SIGPIPE, SIGXFSZ };
	struct sigaction sa;
	size_t k;

	sigemptyset(&f->held_sigs);
	for (k = 0; k < sizeof sigs / sizeof *sigs; k++)
		if (sigaction(sigs[k], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_DFL)
			sigaddset(&f->held_sigs, sigs[k]);
	f->holding = pthread_sigmask(SIG_BLOCK, &f->held_sigs,
	    &f->sigmask) == 0;
	for (k = 0; k < sizeof sigs / sizeof *sigs; k++)
		if (!f->holding || sigismember(&f->sigmask, sigs[k]) == 1)
			sigdelset(&f->held_sigs, sigs[k]);
}

/* The lanes are written: a signal held back (hold_signals) ends us. */
static void
let_signals(struct fan *f)
{
	if (!f->holding)
		return;
	f->holding = 0;
	sigemptyset(&f->held_sigs);
	pthread_sigmask(SIG_SETMASK, &f->sigmask, NULL);
	if (f->dying)
		raise(f->dying);
}

/*
 * The stream has shown itself worth a big chunk pipe: worth threads
 * too, if the caller allows them and the outputs that copy warrant them
 * (lanes_wanted).  Their lanes take the place of those outputs here.
 * Tried once; if lanes cannot be had, the copies stay on this thread.
 */
static void
start_lanes(struct fan *f)
{
	size_t i, k = 0, ncopy = 0, nfiles = 0, nlanes, threads, workers, own;
	long size = LANE_MAX;
	int *outs, *proven, *lane_of;
	struct lanes *lanes = NULL;

	if (!f->parallel || f->lanes_tried)
		return;
	f->lanes_tried = 1;
	for (i = 0; i < f->n; i++) {
		ncopy += needs_copy(f, i);
		nfiles += takes_lane(f, i);
	}
	if (nfiles == 0 || (threads = lanes_wanted(ncopy)) == 0)
		return;
	/* This thread copies its share too: its sockets, then the last
	 * files. */
	own = ncopy / threads;
	own = own > ncopy - nfiles ? own - (ncopy - nfiles) : 0;
	nlanes = nfiles - own;
	workers = threads - 1 < nlanes ? threads - 1 : nlanes;
	if (nlanes == 0 || nlanes > LANES_MAX)
		return;
	while (size * (long)nlanes > LANES_BUDGET)
		size /= 2;
	/* Before the workers start: they inherit the mask. */
	hold_signals(f);
	lane_of = malloc(f->n * sizeof *lane_of);
	outs = malloc(nlanes * sizeof *outs);
	proven = malloc(nlanes * sizeof *proven);
	if (lane_of != NULL && outs != NULL && proven != NULL) {
		for (i = 0; i < f->n; i++) {
			lane_of[i] = -1;
			if (!takes_lane(f, i) || k == nlanes)
				continue;
			outs[k] = f->outs[i].fd;
			proven[k] = out_state(&f->outs[i])->zc_moved > 0;
			lane_of[i] = k++;
		}
		lanes = lanes_start(outs, proven, nlanes, workers, size,
		    LANE_MIN);
	}
	free(outs);
	free(proven);
	if (lanes == NULL) {
		let_signals(f);
		free(lane_of);
		return;
	}
	for (i = 0; i < f->n; i++)
		if (lane_of[i] != -1) {
			end_init(&f->ends[i], lanes_fd(lanes, lane_of[i]));
			f->ends[i].grown = 1;
		}
	f->lanes = lanes;
	f->lane_of = lane_of;
}

/* N bytes went through the chunk pipe: size it for what comes next. */
static void
chunk_pipe_carried(struct fan *f, size_t n)
{
	if (pipe_warranted(&f->chunk_end, n)) {
		f->chunk_want = PIPE_MAX;
		start_lanes(f);
	}
	size_chunk_pipe(f);
}

/* One round of the read/write path: a chunk, or a record (read whole,
 * given out in chunks).  Return 1 to go on, 0 at end of input, -1 with
 * errno set if reading failed. */
static int
round_rw(struct fan *f)
{
	size_t i, off, k, lim = chunk_limit(f, BUF_SIZE);
	ssize_t n;

	/* Short of memory, smaller chunks (down to a page) only cost more
	 * calls. */
	while (need_buf(f, lim) == -1)
		if ((lim /= 2) < BUF_MIN)
			return -1;
	if (f->carry > 0) {
		/* What the chunk pipe held when it was given back. */
		memmove(f->buf, f->buf + f->carry_at, f->carry);
		n = f->carry;
		f->carry = 0;
	} else if ((n = read_input(&f->in, &f->buf, &f->bufsize, lim)) <= 0)
		return n;
	for (off = 0; off < (size_t)n && !f->stop; off += k) {
		k = (size_t)n - off < lim ? (size_t)n - off : lim;
		for (i = 0; i < f->n && !f->stop; i++)
			if (output_ready(f, i, k))
				write_buf(f, i, off, off + k);
	}
	/* A stream worth it: now take the chunk pipe, not before. */
	if (f->mode == MODE_RW_UNTIL && n >= (ssize_t)ZC_AFTER) {
		if (pipe_private(f->chunk) == -1) {
			f->mode = MODE_RW;
			return 1;
		}
		end_init(&f->chunk_end, f->chunk[1]);
		f->chunk_want = pipe_size(&f->chunk_end);
		size_chunk_pipe(f);
		f->mode = MODE_ZC;
	}
	return 1;
}

/*
 * Make the copy pipe, as big as the chunk pipe, so that tee(2) into it
 * while empty takes any chunk whole.  Return 0, or -1 with errno set.
 */
static int
open_copy_pipe(struct fan *f)
{
	if (f->copy[0] != -1)
		return 0;
	if (pipe_private(f->copy) == -1)
		return -1;
	f->copy_size = pipe_grow_to(f->copy[1], pipe_size(&f->chunk_end));
	return 0;
}

/*
 * The chunk could not be duplicated: read it, LEN bytes, out of the
 * chunk pipe into memory, and the rest of the round goes out by
 * write(2).  The copy pipe may hold the first HAVE bytes of it: they are
 * read into place first, so that it is empty again.  Return 0, or -1
 * with errno set.
 */
static int
chunk_to_buf(struct fan *f, size_t have, size_t len)
{
	if (pipe_to_buf(f, f->copy[0], 0, have) == -1 ||
	    pipe_to_buf(f, f->chunk[0], 0, len) == -1)
		return -1;
	f->chunk_at = AT_BUF;
	return 0;
}

/*
 * Put a copy of the chunk's first *LEN bytes into the empty copy pipe.
 * If the chunk is not fixed yet (*FIXED 0), what tee(2) takes fixes it.
 * Return 0, or -1 with errno set if the chunk could not be duplicated
 * (then it is in memory, see chunk_to_buf).
 */
static int
chunk_to_copy_pipe(struct fan *f, size_t *len, int *fixed)
{
	struct io_call c;
	ssize_t k;

	if (open_copy_pipe(f) == -1)
		return chunk_to_buf(f, 0, *len);
	k = xfer_pipe(&c, f->chunk[0], f->copy[1], *len, 1);
	if (k <= 0)
		return chunk_to_buf(f, 0, *len);
	if (!*fixed) {
		*fixed = 1;
		*len = k;
	} else if ((size_t)k < *len)
		return chunk_to_buf(f, k, *len);	/* the copy pipe is full */
	return 0;
}

/*
 * Splice the copy pipe, holding the chunk's bytes OFF..LEN, into
 * OUTS[I].  A refusal before zero-copy reached that output sends it to
 * write(2) for good.  Whatever is left in the copy pipe goes to memory.
 * Return 0, or -1 with errno set if the copy pipe itself failed.
 */
static int
copy_pipe_to_output(struct fan *f, size_t i, size_t off, size_t len)
{
	struct sl_out *o = &f->outs[i];
	struct io_call c;
	int err, refused;

	while (off < len && o->fd != -1) {
		ssize_t k;

		if (output_stalled(f, i)) {
			/* The chunk pipe still holds it all: from there. */
			if (pipe_to_buf(f, f->copy[0], off, len - off) == -1 ||
			    chunk_to_buf(f, 0, len) == -1 || release_pipes(f, len) == -1)
				return -1;
			write_buf(f, i, off, len);
			break;
		}
		k = xfer_pipe(&c, f->copy[0], f->ends[i].fd, len - off, 0);
		if (k > 0) {
			off += k;
			count_zc(f, i, k);
			continue;
		}
		refused = k == -1 && zerocopy_refused(&c, out_state(o)->zc_moved);
		err = k == 0 ? EIO : errno;	/* a pipe we hold cannot end */
		if (pipe_to_buf(f, f->copy[0], off, len - off) == -1)
			return -1;
		if (refused) {
			out_state(o)->path = OUT_WRITE;
			write_buf(f, i, off, len);
		} else
			drop_output(f, i, err);
		break;
	}
	return 0;
}

/*
 * Give the chunk, *LEN bytes, to OUTS[I], not the last output: it stays
 * in the chunk pipe for the outputs after.  Return 0, or -1 with errno
 * set if the engine's own pipes failed.
 */
static int
give_chunk(struct fan *f, size_t i, size_t *len, int *fixed)
{
	struct sl_out *o = &f->outs[i];
	struct io_call c;
	ssize_t k = 0;

	if (f->chunk_at != AT_BUF && out_state(o)->path == OUT_ZC &&
	    f->ends[i].kind == K_PIPE) {
		if (output_stalled(f, i)) {
			*fixed = 1;
			if (chunk_to_buf(f, 0, *len) == -1 ||
			    release_pipes(f, *len) == -1)
				return -1;
			write_buf(f, i, 0, *len);
			return 0;
		}
		k = xfer_pipe(&c, f->chunk[0], f->ends[i].fd, *len, 1);
		if (k > 0) {
			count_zc(f, i, k);
			if (!*fixed) {
				*fixed = 1;
				*len = k;
			}
			if ((size_t)k == *len)
				return 0;
		} else if (k == 0 ||
		    !zerocopy_refused(&c, out_state(o)->zc_moved)) {
			drop_output(f, i, k == 0 ? EIO : errno);
			return 0;
		} else {
			out_state(o)->path = OUT_WRITE;
			k = 0;
		}
	}
	if (f->chunk_at != AT_PIPE) {
		write_buf(f, i, k, *len);
		return 0;
	}
	if (chunk_to_copy_pipe(f, len, fixed) == -1)
		return -1;
	if (f->chunk_at != AT_PIPE) {
		write_buf(f, i, k, *len);
		return 0;
	}
	if (out_state(o)->path == OUT_ZC) {
		/* The output took K bytes straight: skip them here. */
		if (k > 0 && pipe_to_buf(f, f->copy[0], 0, k) == -1)
			return -1;
		return copy_pipe_to_output(f, i, k, *len);
	}
	/* A write(2) output: the chunk goes to memory, once a round. */
	if (pipe_to_buf(f, f->copy[0], 0, *len) == -1)
		return -1;
	f->chunk_at = AT_PIPE_AND_BUF;
	write_buf(f, i, 0, *len);
	return 0;
}

/*
 * Give the chunk, LEN bytes, to OUTS[I], the last output, emptying it
 * out of the chunk pipe.  Return 0, or -1 with errno set if the engine's
 * own pipes failed.
 */
static int
give_last(struct fan *f, size_t i, size_t len)
{
	struct sl_out *o = &f->outs[i];
	size_t off = 0;
	int stall = 0;

	while (f->chunk_at != AT_BUF && o->fd != -1 &&
	    out_state(o)->path == OUT_ZC &&
	    off < len && !(stall = output_stalled(f, i))) {
		struct io_call c;
		ssize_t k = xfer_pipe(&c, f->chunk[0], f->ends[i].fd, len - off,
		    0);

		if (k > 0) {
			off += k;
			count_zc(f, i, k);
		} else if (k == -1 &&
		    zerocopy_refused(&c, out_state(o)->zc_moved))
			out_state(o)->path = OUT_WRITE;
		else
			drop_output(f, i, k == 0 ? EIO : errno);
	}
	/* What is left of the chunk: to memory, and on if still wanted. */
	if (f->chunk_at != AT_BUF && off < len &&
	    pipe_to_buf(f, f->chunk[0], off, len - off) == -1)
		return -1;
	if (stall && release_pipes(f, len) == -1)
		return -1;
	if (o->fd != -1 && off < len)
		write_buf(f, i, off, len);
	return 0;
}

/*
 * Take the next chunk into the chunk pipe.  Return 1 to go on, 0 at end
 * of input, -1 with errno set if reading failed.
 */
static int
fill_chunk_pipe(struct fan *f, size_t lim)
{
	struct io_call c;
	ssize_t n = xfer_pipe(&c, f->in.fd, f->chunk[1], lim, 0);

	if (n == -1 && zerocopy_refused(&c, f->in_moved)) {
		f->mode = MODE_RW;	/* the input refuses: read/write */
		return 1;
	}
	if (n <= 0)
		return n;
	f->in_moved += n;
	f->held = n;
	return 1;
}

/* One round of the zero-copy path.  Return as round_rw. */
static int
round_zc(struct fan *f)
{
	size_t i, last = 0, len, lim = chunk_limit(f, pipe_size(&f->chunk_end));
	int fixed = 0, r;

	if (f->copy[0] != -1 && f->copy_size > 0 && (size_t)f->copy_size < lim)
		lim = f->copy_size;
	if (f->held == 0 && (r = fill_chunk_pipe(f, lim)) <= 0)
		return r;
	if (f->mode != MODE_ZC)
		return 1;
	len = f->held < lim ? f->held : lim;
	f->chunk_at = AT_PIPE;
	for (i = 0; i < f->n; i++)
		if (f->outs[i].fd != -1)
			last = i;
	for (i = 0; i < f->n && !f->stop; i++) {
		if (!output_ready(f, i, pipe_size(&f->chunk_end))) {
			if (i == last) {
				/* Nobody consumes the chunk: read it out. */
				if (f->chunk_at != AT_BUF &&
				    pipe_to_buf(f, f->chunk[0], 0, len) == -1)
					return -1;
				break;
			}
			continue;
		}
		r = i == last ? give_last(f, i, len) : give_chunk(f, i, &len, &fixed);
		if (r == -1)
			return -1;
		if (i == last)
			break;
	}
	if (f->stop)
		return 1;
	f->held -= len;
	if (f->mode == MODE_ZC)
		chunk_pipe_carried(f, len);
	return 1;
}

/*
 * Return 1 if two of the outputs are the same file, pipe or socket,
 * where what each chunk writes lands between the other's, or if an
 * output is the input file, where a chunk spliced in would be the page
 * cache's pages that the output then rewrites.  (Devices do not count:
 * /dev/null twice shows nothing.)
 */
static int
aliased(struct fan *f)
{
	size_t i, j;

	for (i = 0; i < f->n; i++) {
		if (f->outs[i].fd == -1 || f->ends[i].kind == K_OTHER)
			continue;
		if (f->in.kind == K_FILE && f->ends[i].ino == f->in.ino &&
		    f->ends[i].dev == f->in.dev)
			return 1;
		for (j = i + 1; j < f->n; j++)
			if (f->outs[j].fd != -1 &&
			    f->ends[i].ino == f->ends[j].ino &&
			    f->ends[i].dev == f->ends[j].dev)
				return 1;
	}
	return 0;
}

/* May the zero-copy path be tried, and by which outputs. */
static void
plan_paths(struct fan *f)
{
	size_t i, nzc = 0;

	/* Aliased outputs show the chunks: GNU's, by read/write.  A record
	 * socket is read a record whole, never spliced (see choose_path). */
	if ((f->gnu_chunks = aliased(f)) || !zerocopy_allowed() ||
	    f->in.records)
		return;
	for (i = 0; i < f->n; i++) {
		struct end *e = &f->ends[i];

		if (f->outs[i].fd != -1 && !e->append && e->write_end &&
		    !end_keeps_writes(e)) {
			out_state(&f->outs[i])->path = OUT_ZC;
			nzc++;
		}
	}
	/* Only write(2) outputs: a chunk pipe would only add copies. */
	f->mode = nzc > 0 ? MODE_RW_UNTIL : MODE_RW;
}

/* Copy everything from the input to the single live output I. */
static int
copy_single(struct fan *f, size_t i)
{
	struct link l;
	ssize_t n;

	link_init(&l, &f->in, &f->ends[i]);
	while ((n = link_step(&l, end_keeps_writes(&f->ends[i]) ? GNU_CHUNK :
	    STEP_MAX)) > 0)
		out_state(&f->outs[i])->moved += n;
	if (n == -1 && l.side == SL_OUTPUT) {
		drop_output(f, i, errno);
		n = 0;
	}
	link_free(&l);
	return n;
}

/*
 * Let the workers write what their lanes were given, and end them: the
 * outputs they served are this thread's again, and their failures are
 * reported, in the order of the outputs.  Then a signal held back
 * meanwhile ends the process.
 */
static void
stop_lanes(struct fan *f)
{
	int *errs = calloc(f->n, sizeof *errs);
	size_t i;

	lanes_stop(f->lanes, errs);
	f->lanes = NULL;
	for (i = 0; i < f->n; i++) {
		int k = f->lane_of[i];

		if (k == -1 || f->outs[i].fd == -1)
			continue;
		end_init(&f->ends[i], f->outs[i].fd);
		if (errs != NULL && errs[k] && !f->stop)
			drop_output(f, i, errs[k]);
	}
	free(errs);
	free(f->lane_of);
	f->lane_of = NULL;
	let_signals(f);
}

/* sl_fanout, with copies in threads if PARALLEL. */
static int
fanout(int in, struct sl_out *outs, size_t n, sl_fail_fn *fail, void *ctx,
    int parallel)
{
	struct fan f = {
		.outs = outs, .n = n, .fail = fail, .ctx = ctx,
		.chunk = { -1, -1 }, .copy = { -1, -1 }, .parallel = parallel
	};
	size_t i, only = 0;
	int r = 1, saved;

	if ((f.ends = calloc(n ? n : 1, sizeof *f.ends)) == NULL)
		return -1;
	end_init(&f.in, in);
	for (i = 0; i < n; i++) {
		out_state(&outs[i])->path = OUT_WRITE;
		out_state(&outs[i])->moved = out_state(&outs[i])->zc_moved = 0;
		out_state(&outs[i])->room = 0;
		if (outs[i].fd == -1)
			continue;
		end_init(&f.ends[i], outs[i].fd);
		/* An output pipe stays the size its maker chose, as GNU's
		 * tee leaves it (doc/design.md, "Pipes"). */
		f.ends[i].grown = 1;
		out_state(&outs[i])->room = end_room(&f.ends[i]);
		f.live++;
		only = i;
	}
	if (f.live == 1)
		r = copy_single(&f, only);
	else if (f.live > 1) {
		plan_paths(&f);
		while (r > 0 && f.live > 0 && !f.stop)
			r = f.mode == MODE_ZC ? round_zc(&f) : round_rw(&f);
	}
	saved = errno;
	if (f.lanes != NULL)
		stop_lanes(&f);
	close_pair(f.chunk);
	close_pair(f.copy);
	free(f.buf);
	free(f.ends);
	errno = saved;
	return r < 0 ? -1 : 0;
}

int
sl_fanout(int in, struct sl_out *outs, size_t n, sl_fail_fn *fail, void *ctx)
{
	return fanout(in, outs, n, fail, ctx, 0);
}

int
sl_fanout_parallel(int in, struct sl_out *outs, size_t n, sl_fail_fn *fail,
    void *ctx)
{
	return fanout(in, outs, n, fail, ctx, 1);
}
