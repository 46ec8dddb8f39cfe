/*
 * Private to the fan-out, tee's engine: the rounds (lib/fanout.c), what
 * each output is (lib/outputs.c), the chunk and its pipes (lib/chunk.c),
 * how big they are (lib/sizes.c), when it waits (lib/watch.c), the
 * threads (lib/lanes.c) and the signals held meanwhile (lib/signals.c).
 * doc/design.md, "Fan-out", says how they fit.
 */
#ifndef SPATE_FANOUT_H
#define SPATE_FANOUT_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "spate.h"
#include "engine.h"

/*
 * GNU tee's read size.  Where the size of the chunks shows, tee uses it
 * too (fanout.c); errors are reported in GNU's order at this grain.
 */
#define GNU_CHUNK	8192

/* Where the round's chunk is, on the zero-copy path (struct round). */
enum chunk_at {
	AT_PIPE,		/* in the chunk pipe */
	AT_PIPE_AND_BUF,	/* there, and in BUF too, read out of the copy
				   pipe for the write(2) outputs */
	AT_BUF			/* read out of the chunk pipe into BUF: the
				   outputs left get it by write(2) */
};

/*
 * A round of the zero-copy path (fanout.c's round_zc): the chunk every
 * output is given, LEN bytes of the stream from the fan-out's POS.  The
 * first call that takes part of it fixes LEN (a smaller output pipe or
 * copy pipe); a stall fixes it too, once it is in memory.
 */
struct round {
	size_t len;
	int fixed;
	enum chunk_at at;	/* where the chunk is */
	size_t last;		/* the last output served: it takes the
				   chunk out of the chunk pipe */
};

/*
 * The chunk: the private pipes a chunk of the input passes through, and
 * the memory it is read into when it must be.  What holds between
 * rounds: the chunk pipe, if open, holds HELD bytes of input no output
 * has had yet; the copy pipe, if open, is empty; CARRY bytes wait at
 * BUF + CARRY_AT only once the pipes were given back (chunk_release).
 */
struct chunk {
	int pipe[2];		/* the chunk pipe: the input spliced in */
	struct end end;		/* its write end, for its size */
	long want;		/* the size its traffic warrants */
	long denied;		/* a size the kernel refused, or 0: not
				   asked for again (a pipe quota spent) */
	size_t held;		/* bytes in it */
	int copy[2];		/* the copy pipe: a duplicate of the chunk */
	long copy_size;		/* its capacity */
	char *buf;		/* the chunk in memory: heap, or SPARE */
	size_t bufsize;
	char spare[GNU_CHUNK];	/* BUF when not even GNU's buffer could be
				   had from the heap (buf_need) */
	size_t carry;		/* input bytes at BUF + CARRY_AT, the rest of
				   the chunk pipe when it was given back:
				   every output's next */
	size_t carry_at;
};

void chunk_init(struct chunk *ch);
int chunk_open(struct chunk *ch);
int chunk_is_open(const struct chunk *ch);
long chunk_capacity(struct chunk *ch);
void chunk_resize(struct chunk *ch, long want);
int chunk_warrants(struct chunk *ch, size_t n);
ssize_t chunk_fill(struct chunk *ch, int in, size_t lim,
    const struct io_wait *w, struct io_call *c);
ssize_t chunk_tee(struct chunk *ch, int fd, size_t len,
    const struct io_wait *w, struct io_call *c);
ssize_t chunk_splice(struct chunk *ch, int fd, size_t len,
    const struct io_wait *w, struct io_call *c);
int chunk_to_buf(struct chunk *ch, size_t off, size_t n);
ssize_t copy_fill(struct chunk *ch, size_t len);
ssize_t copy_splice(struct chunk *ch, int fd, size_t len,
    const struct io_wait *w, struct io_call *c);
int copy_to_buf(struct chunk *ch, size_t off, size_t n);
int chunk_release(struct chunk *ch, size_t len);
int buf_need(struct chunk *ch, size_t len);
ssize_t buf_read(struct chunk *ch, const struct end *in, size_t lim);
void chunk_free(struct chunk *ch);

/* What the fan-out gives a lane: its output, and how far it got. */
struct lane_out {
	int fd;			/* the output, a regular file */
	off_t at;		/* the stream's offset it has had up to */
};

/* What a lane says of its output, once it has written what it was
 * given (lanes_sync, lanes_stop). */
struct lane_result {
	int err;		/* the output's error, or 0 */
	off_t err_at;		/* ... at that offset of the stream */
	int raised;		/* ... and it raised SIGXFSZ on the worker */
	int fell_back;		/* it refused splice(2): write(2) now */
};

struct lanes;
size_t lanes_threads(size_t ncopy);
struct lanes *lanes_start(const struct lane_out *outs, size_t n,
    size_t workers);
struct end *lanes_end(struct lanes *c, size_t k);
int lanes_wait_room(struct lanes *c, size_t k, size_t bytes);
void lanes_posted(struct lanes *c, size_t k, size_t n);
void lanes_sync(struct lanes *c);
void lanes_result(struct lanes *c, size_t k, struct lane_result *r);
void lanes_stop(struct lanes *c);

/*
 * What an output is.  The transitions, and only they, are those of
 * outputs.c's table; out_set makes every one of them.
 */
enum out_st {
	OUT_GONE,	/* not served: no descriptor, or its failure told */
	OUT_FAILED,	/* failed, and not told yet (out_report): ERR, ERR_AT */
	OUT_WRITE,	/* written by write(2), for good */
	OUT_ZC,		/* zero-copy: a refusal, at any byte, sends it to
			   OUT_WRITE from that byte on */
	OUT_LANE	/* a lane's (lanes.c), from OUT_ZC */
};

/*
 * How an output takes a round's chunk (outputs.c's deliveries, by where the
 * chunk is and what the output is; fanout.c's deliver makes each).
 */
enum delivery {
	BY_WRITE,	/* write(2), from memory */
	BY_MEMORY,	/* the chunk read into memory out of the copy
			   pipe, once a round, then BY_WRITE */
	BY_EMPTYING,	/* the last, by write(2): the chunk read out of
			   the chunk pipe, then BY_WRITE */
	BY_TEE,		/* tee(2) from the chunk pipe into the output
			   pipe, or the lane */
	BY_COPY,	/* tee(2) into the copy pipe, spliced out of it
			   into the output */
	BY_SPLICE	/* the last: spliced out of the chunk pipe */
};

/*
 * The engine's state of one output, in the private space of its struct
 * spate_out.  GIVEN counts the stream's bytes the output (or its lane) has
 * had: between rounds every output served has had the same, the
 * fan-out's POS.
 */
struct out_state {
	enum out_st st;
	int err;		/* OUT_FAILED: the error */
	size_t lane;		/* OUT_LANE: which */
	off_t given;		/* the bytes of the stream it has had */
	off_t err_at;		/* OUT_FAILED: where in the stream it failed */
	long room;		/* what it can buffer, as it started (a pipe's
				   is asked anew: pipe_room), 0 unbounded */
	int roomy;		/* the round's look (watch_survey) found it
				   room: its first call need not look again */
};

/*
 * The path of the stream.  Only MODE_ZC has the chunk pipe open;
 * MODE_RW_UNTIL moves to MODE_ZC after a read of ZC_AFTER bytes,
 * MODE_ZC back to MODE_RW_UNTIL when the pipes are given back
 * (give_back), and either to MODE_RW when zero-copy is refused.
 */
enum mode {
	MODE_RW,		/* read/write, for good */
	MODE_RW_UNTIL,		/* read/write until a read shows a stream */
	MODE_ZC			/* each chunk through the chunk pipe */
};

/* The fan-out's threads (lanes.c).  LANES is set in RUNNING alone. */
enum threads {
	THREADS_OFF,		/* not allowed */
	THREADS_READY,		/* allowed: started once the stream warrants */
	THREADS_NONE,		/* not worth it, or not to be had, until
				   the pipes are given back */
	THREADS_RUNNING
};

/* A fan-out.  out_check (outputs.c) says what holds between rounds. */
struct fan {
	struct spate_out *outs;
	struct end *ends;	/* what each output is */
	size_t n;		/* outputs */
	size_t live;		/* outputs served (OUT_WRITE and after) */
	size_t failing;		/* outputs OUT_FAILED: told at a round's end */
	unsigned flags;		/* SPATE_FANOUT_* */
	spate_fail_fn *fail;
	void *ctx;
	int stop;		/* no more rounds: FAIL asked, or dying */
	struct end in;
	off_t pos;		/* the bytes every output served has had */
	off_t asked;		/* POS when the output pipes' sizes were asked */
	struct pace pace;	/* the zero-copy path's last second */
	int gnu_chunks;		/* chunks of GNU_CHUNK, by read/write */
	enum mode mode;
	struct chunk ch;
	enum threads threads;
	struct lanes *lanes;
	sigset_t held;		/* the signals held while it copies */
	sigset_t open;		/* the caller's mask: held ones let in */
	int in_wronly;		/* the input is open for writing only */
	off_t die_at;		/* -1; once a held signal is due, where every
				   output is to be before it ends the process:
				   GNU's read that failed starts there */
	size_t die_out;		/* ... and the outputs before this one, the
				   one that failed, have that read too */
	long long looked;	/* when signals_sent last looked, in ms */
	struct pollfd *polls;	/* watch_wait's: the input, output pipes */
	spate_progress_fn *progress;	/* told of POS, or NULL */
	int read_failed;	/* a -1 of the rounds is the input's, not
				   the chunk pipes' */
};

/*
 * Every output served has had N more bytes of the input: POS moves on,
 * and the caller's progress hook, if it gave one, is told (CTX).
 */
static inline void
fan_moved(struct fan *f, size_t n)
{
	f->pos += n;
	if (f->progress != NULL)
		f->progress(f->ctx, f->pos);
}

/* signals.c: the signals held while a fan-out copies. */
void signals_hold(sigset_t *held, sigset_t *open);
void signals_let(const sigset_t *held);
int signal_due(int sig);
int signals_fatal(const sigset_t *held, int err);
int signals_due(const sigset_t *held);
int signals_sent(struct fan *f);

/* sizes.c: how big the chunks, the chunk pipe and the lanes are. */
size_t longest_chunk(size_t bound, int gnu, size_t least);
long size_pipe(long traffic, long least_pipe, int lanes, size_t least);
long size_lane(size_t n);
int size_lane_enough(long size);
size_t size_lanes(size_t ncopy, size_t nfiles, size_t threads,
    size_t *workers);
size_t size_room(struct end *e);
size_t size_round(struct fan *f, size_t bound);
size_t size_round_zc(struct fan *f);
void size_chunk_pipe(struct fan *f);

/* lag.c: the fan-out with a lag, each output on a thread of its own. */
int lag_fanout(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx);

/* plain.c: the fan-out without its state, GNU's loop. */
int fan_plain(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx);
int fan_gnu(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx);

/*
 * watch.c: when the fan-out waits, and on what.  A zero-copy call's
 * wait (struct io_wait, run by io_move): for room in output I, or for
 * the input (I unused; READY: the round's look found it ready).
 */
struct fan_wait {
	struct io_wait io;
	struct fan *f;
	size_t i;
	int ready;
};
int watch_survey(struct fan *f);
void watch_output(struct fan *f, size_t i, struct fan_wait *w);
void watch_input(struct fan *f, int ready, struct fan_wait *w);
const sigset_t *watch_mask(struct fan *f);
int watch_wait(struct fan *f, int ms);
void watch_pipes(struct fan *f);

/* outputs.c: what each output is; its failures told in GNU's order. */
struct out_state *out_state(struct spate_out *o);
struct out_state *out(struct fan *f, size_t i);
int out_served(enum out_st s);
int out_zerocopy(enum out_st s);
int out_in_lane(enum out_st s);
void out_set(struct fan *f, size_t i, enum out_st to);
struct end *out_dest(struct fan *f, size_t i);
enum delivery out_delivery(struct fan *f, size_t i, enum chunk_at at, int last,
    size_t off);
void out_check(struct fan *f);
void out_report(struct fan *f, int all);
void out_failed(struct fan *f, size_t i, int err);
void out_failed_in_lane(struct fan *f, size_t i);
void out_count(struct fan *f, size_t i, size_t n);
void out_write(struct fan *f, size_t i, size_t off, size_t len);
void out_to_lanes(struct fan *f);
void out_from_lanes(struct fan *f);

#endif
