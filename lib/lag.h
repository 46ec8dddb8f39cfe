/*
 * Private to the fan-out with a lag: what the caller's thread, which
 * reads and decides (lib/lag.c), shares with the outputs' threads,
 * which write (lib/lagout.c), and the chunks they share (lib/lagmem.c).
 * doc/design.md, "Fan-out", "With a lag".
 */
#ifndef SPATE_LAG_H
#define SPATE_LAG_H

#include <pthread.h>

#include "fanout.h"

/*
 * The bytes a chunk holds: the unit an output that drops misses, and
 * the most the reader asks of one read(2).  Reads go on filling a chunk
 * until it is full, so a trickle costs no more memory than a stream.
 */
#define LAG_CHUNK	((size_t)128 << 10)

/* One chunk of the input, shared by the outputs it was given. */
struct lag_chunk {
	char *data;		/* mmap(2)'s, CAP bytes */
	size_t cap;
	size_t len;		/* the bytes read into it */
	int sealed;		/* no more come: the reader moved on */
	size_t refs;		/* the outputs that have still to write it,
				   and the reader while it reads into it */
	off_t at;		/* the stream's offset of its first byte */
	struct lag_chunk *spare;	/* on the spare list: the next */
	struct lag_chunk *next[];	/* output K's chunk after this one */
};

/*
 * What an output is.  WRITING goes to FAILED (its write failed), CLOSED
 * (it was slow: SPATE_SLOW_CLOSE; or the copy stopped while it was in a
 * write) or DONE (it wrote everything, or the copy stopped); FAILED to
 * GONE once told.  lag_set checks each.
 */
enum lag_st {
	LAG_GONE,	/* not served: no descriptor, or its failure told */
	LAG_WRITING,	/* its thread writes what it is given */
	LAG_FAILED,	/* a write failed (ERR at ERR_AT), not told yet */
	LAG_CLOSED,	/* given nothing more, waited for by nobody; its
			   thread, detached, closes FD once the write(2)
			   it is in returns */
	LAG_DONE	/* its thread wrote all it was given and ended */
};

struct lag_out {
	enum lag_st st;
	int fd;
	int keeps;		/* keeps writes apart: GNU_CHUNK at most */
	int pipe;		/* a pipe: SPATE_FANOUT_PIPE_CHECK watches it */
	int stalls;		/* its reader may stop taking (fd.c's traits,
				   may_stall): it may be judged slow, and
				   writes GNU_CHUNK at most at a time */
	struct lag_chunk *head, *tail;	/* its queue: HEAD written from OFF */
	size_t off;
	int writing;		/* in write(2), from HEAD ... */
	long long since;	/* ... since then (lagout_now) */
	int skips;		/* SPATE_SLOW_DROP: judged slow before the read
				   under way, so not given its chunk */
	off_t held;		/* the bytes queued and not written */
	off_t missed;		/* SPATE_SLOW_DROP: the bytes never given */
	int err;		/* LAG_FAILED: the error */
	off_t err_at;		/* ... writing the stream's byte there */
	int raised;		/* ... and it raised this signal, or 0 */
	pthread_t tid;
	int started;		/* TID runs, or ran */
	pthread_cond_t fed;	/* to its thread: bytes, or a change of
				   state, or the end */
	struct lag *l;
	size_t k;		/* its index */
};

/* A copy with a lag.  LOCK guards all of it but what the fields say. */
struct lag {
	pthread_mutex_t lock;
	pthread_cond_t moved;	/* to the reader: an output wrote, failed
				   or ended */
	size_t refs;		/* the reader and each thread not ended:
				   the last one out frees it all */
	struct lag_out *out;
	size_t n;
	off_t lag;
	enum spate_slow slow;
	int ended;		/* no more input comes (end, error, stop) */
	int stopped;		/* FAIL asked to stop: nothing more is
				   written but the write(2)s under way */
	int short_of_memory;	/* a chunk could not be had: the memory
				   held is the lag, till one can */
	off_t in;		/* the bytes read */
	off_t told;		/* the most the progress hook was told */
	struct lag_chunk *cur;	/* the chunk read into (the reader's) */
	size_t unplaced;	/* the bytes of a read into the scratch
				   buffer (a record, or a read of GNU's
				   size) that no chunk took yet ... */
	size_t placed;		/* ... after the PLACED bytes of it that
				   one did (the reader's, both) */
	struct lag_chunk *spares;
	size_t nspare;
};

/*
 * How long a write of an output that may stall (lag_out.stalls) may
 * wait before the output can be judged slow: no scheduler's or disk's
 * pause of a healthy reader comes near it.
 */
#define LAG_GRACE_MS	2000

/* lagout.c: the outputs' threads. */
void lagout_set(struct lag_out *o, enum lag_st to);
long long lagout_now(void);
void lagout_wait(struct lag *l, long long wake);
int lagout_start(struct lag *l, const struct end *ends, size_t n);
void lagout_put(struct lag *l);
void lagout_free(struct lag *l);

/* lagmem.c: the chunks' memory. */
struct lag_chunk *lagmem_chunk(struct lag *l, size_t cap);
void lagmem_unref(struct lag *l, struct lag_chunk *c);
void lagmem_drain(struct lag *l, struct lag_out *o);
void lagmem_free(struct lag *l);

/* lagtell.c: failures told in GNU's order. */
int lag_tell_failures(struct lag *l, struct spate_out *outs,
    spate_fail_fn *fail, void *ctx);

#endif
