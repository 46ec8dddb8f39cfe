/*
 * Lanes: the regular files among a fan-out's outputs, each fed through a
 * pipe of its own by the fan-out's thread and written out by a worker
 * thread, so that the copies into their page caches run on different
 * CPUs.  Everything about threads is here: how many (lanes_threads),
 * the workers, and their signals; how the copies are shared among them
 * and how big a lane is, sizes.c's.
 *
 * The fan-out duplicates each chunk into a lane with tee(2), which
 * copies no data, only page references; the worker splices the lane
 * into its output, which is where the copy is made.  A worker serves
 * one lane or several, in turn; the fan-out's thread copies its share
 * too, so that there are no more threads that copy than CPUs.
 *
 * The window.  A chunk takes no more of a pipe's slots (struct
 * pipe_buffer) than the chunk pipe it came from has, and a lane counts
 * each chunk it holds at that many: before the fan-out puts a chunk into
 * a lane, it waits until the worker has written out enough of the chunks
 * before for the lane to have those slots free (lanes_wait_room), so
 * that tee(2) into a lane always takes a whole chunk.  A lane is at
 * least twice the chunk pipe (the fan-out sizes its chunk pipe so): it
 * holds two chunks of the biggest kind, or more of a chunk pipe kept
 * small (a socket's chunks).
 *
 * Failures.  A worker whose output fails keeps the error and where in
 * the stream it came (the engine's callbacks run on the caller's thread,
 * which reports it) and reads what its lane is given from then on into
 * nowhere, so the fan-out never waits on a lane nobody empties.
 *
 * Signals.  A worker is born with every signal blocked: handlers run on
 * the caller's thread, as a caller of a library expects, and the two a
 * write raises, SIGPIPE and SIGXFSZ, are held by the fan-out meanwhile
 * (signals.c).  A worker's own SIGXFSZ is taken off it and told with
 * its lane's error (lane_result.raised); the fan-out raises it on its
 * thread when it learns of that error, as if its own write had.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "fanout.h"

/* A worker's stack: it calls little and keeps its buffer on the heap. */
#define WORKER_STACK	(64u << 10)

/* The most chunks a lane holds at once, however small. */
#define LANE_CHUNKS	64

/* A pipe's slot, in bytes of its size (F_GETPIPE_SZ counts a page a
 * slot); only the ratio of two sizes is taken, so any page size will do. */
#define PAGE_BYTES	4096

/*
 * One lane.  Offsets (POSTED, DONE, the chunks' ENDs, ERR_AT) count in
 * the stream, from the start of the fan-out's input.  Who owns what:
 * the fields marked LOCK are read and written under struct lanes.lock;
 * RW is the worker's while it writes, and read by the fan-out under
 * LOCK once DONE has reached POSTED (the worker sets it before it takes
 * the lock to move DONE); the rest is set before the workers start.
 */
struct lane {
	int pipe[2];		/* [1] is the fan-out's, [0] the worker's */
	struct end end;		/* the fan-out's end, as it sees it */
	int out;		/* the output it is written into */
	int rw;			/* OUT refused splice(2): read and write */
	off_t posted;		/* the stream put into the lane (LOCK) */
	off_t done;		/* ... and taken out of it (LOCK) */
	long slots;		/* the lane pipe's slots */
	struct {		/* the chunks in the lane, oldest first, */
		off_t end;	/* each ending at END */
		long slots;	/* and counted at SLOTS slots */
	} chunk[LANE_CHUNKS];	/* (LOCK, as the four below) */
	size_t first, chunks;	/* a ring: where the oldest is, how many */
	long used;		/* the slots the chunks are counted at */
	int err;		/* the output's error, or 0 */
	off_t err_at;		/* where it came */
	int raised;		/* ... and it raised SIGXFSZ */
	size_t worker;		/* which worker serves it */
};

struct worker {
	pthread_t tid;
	struct lanes *crew;
	size_t id;
	pthread_cond_t work;	/* bytes were posted to one of its lanes */
	size_t next;		/* the lane to look at first: the one after
				   the lane served last, so each gets its turn */
	char *buf;		/* for read/write and for what is dropped */
};

struct lanes {
	pthread_mutex_t lock;
	pthread_cond_t room;	/* a worker took bytes out of WAITED */
	struct lane *waited;	/* the lane the fan-out waits on (LOCK) */
	int closing;		/* no more bytes will be posted (LOCK) */
	struct lane *lane;
	size_t n;
	struct worker *worker;
	size_t workers;		/* started */
};

/*
 * How many threads, the fan-out's own included, NCOPY outputs that need
 * a copy warrant: one each, no more than the CPUs this process may run
 * on, and no more than SPATE_THREADS says (1: the fan-out copies
 * alone).  0 means no workers at all.  How they share the copies:
 * size_lanes (sizes.c).
 */
size_t
lanes_threads(size_t ncopy)
{
	cpu_set_t cpus;
	const char *v = getenv("SPATE_THREADS");
	size_t n = ncopy;
	long cap;

	if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
	    (size_t)CPU_COUNT(&cpus) < n)
		n = CPU_COUNT(&cpus);
	if (v != NULL && *v != '\0') {
		char *end;

		cap = strtol(v, &end, 10);
		if (*end == '\0' && cap >= 0 && (size_t)cap < n)
			n = cap;
	}
	return n < 2 ? 0 : n;
}

/*
 * Move N bytes, which lane L holds, into its output: splice(2), or
 * read(2) and write(2) once the output refused splice, from the byte
 * the refused call stopped at.  Return 0, or -1 with errno set: the output's error (the lane,
 * a pipe of ours holding the bytes, cannot fail).  *MOVED counts what
 * left the lane, *WRITTEN what of it reached the output.
 */
static int
lane_write(struct lane *l, struct worker *w, size_t n, size_t *moved,
    size_t *written)
{
	while (*moved < n) {
		size_t want = n - *moved;
		struct io_call c;
		ssize_t k;

		if (l->rw) {
			if (want > BUF_SIZE)
				want = BUF_SIZE;
			if (read_exact(l->pipe[0], w->buf, want) == -1)
				return -1;
			*moved += want;
			c = (struct io_call){ .op = IO_WRITE, .in = -1,
			    .out = l->out, .buf = w->buf, .len = want };
			k = io_move_all(&c);
			*written += want - c.len;
			if (k == -1)
				return -1;
			continue;
		}
		k = xfer_pipe(&c, l->pipe[0], l->out, want, 0, NULL);
		if (k > 0) {
			*moved += k;
			*written += k;
			continue;
		}
		if (k == -1 && zerocopy_refused(&c)) {
			l->rw = 1;
			continue;
		}
		if (k == 0)
			errno = EIO;	/* a lane with bytes in it cannot end */
		return -1;
	}
	return 0;
}

/* Read N bytes of lane L into nowhere: its output failed. */
static void
lane_drop(struct lane *l, struct worker *w, size_t n)
{
	while (n > 0) {
		size_t k = n < BUF_SIZE ? n : BUF_SIZE;

		if (read_exact(l->pipe[0], w->buf, k) == -1)
			return;
		n -= k;
	}
}

/* The next lane of W with bytes to move, in turn, or NULL; under LOCK. */
static struct lane *
next_lane(struct lanes *c, struct worker *w)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		size_t k = (w->next + i) % c->n;
		struct lane *l = &c->lane[k];

		if (l->worker == w->id && l->posted > l->done) {
			w->next = k + 1;
			return l;
		}
	}
	return NULL;
}

/*
 * A write of this worker's failed with ERR.  Return 1 if it raised
 * SIGXFSZ, which waits for this thread alone (it blocks every signal,
 * and would end without taking it): taken off the thread here, it is
 * the fan-out's to raise on its own (take_lane_error), where a handler
 * runs, or where it is held (signals.c).  Not passed on to the process
 * from here: a wait of the fan-out that lets the held signals in
 * (watch.c) would end the process before the outputs had their due.
 */
static int
took_signal(int err)
{
	static const struct timespec now = { 0, 0 };
	sigset_t xfsz;

	if (err != EFBIG || !signal_due(SIGXFSZ))
		return 0;
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	sigtimedwait(&xfsz, NULL, &now);
	return 1;
}

/* A worker: move what is posted to its lanes into their outputs until
 * the fan-out closes them. */
static void *
work(void *arg)
{
	struct worker *w = arg;
	struct lanes *c = w->crew;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct lane *l = next_lane(c, w);
		size_t n, moved = 0, written = 0;
		int err = 0, raised = 0;

		if (l == NULL) {
			if (c->closing)
				break;
			pthread_cond_wait(&w->work, &c->lock);
			continue;
		}
		n = l->posted - l->done;
		pthread_mutex_unlock(&c->lock);
		if (l->err == 0 && lane_write(l, w, n, &moved, &written) == -1) {
			err = errno;
			raised = took_signal(err);
		}
		lane_drop(l, w, n - moved);
		pthread_mutex_lock(&c->lock);
		if (err) {
			l->err = err;
			l->err_at = l->done + written;
			l->raised = raised;
		}
		l->done += n;
		if (c->waited == l)
			pthread_cond_signal(&c->room);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Free C, its lanes closed and its workers joined or never started. */
static void
lanes_free(struct lanes *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		close_pair(c->lane[i].pipe);
	for (i = 0; i < c->workers; i++) {
		pthread_cond_destroy(&c->worker[i].work);
		free(c->worker[i].buf);
	}
	pthread_cond_destroy(&c->room);
	pthread_mutex_destroy(&c->lock);
	free(c->worker);
	free(c->lane);
	free(c);
}

/*
 * Let every lane's worker move what it was given, join the workers,
 * close the lanes and free C.  A worker whose output blocks is waited
 * for, as a serial tee would wait to write: what each output was given,
 * it gets.  Whatever the fan-out wants to know of the lanes
 * (lanes_result) it asks before.
 */
void
lanes_stop(struct lanes *c)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	c->closing = 1;
	for (i = 0; i < c->workers; i++)
		pthread_cond_signal(&c->worker[i].work);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->workers; i++)
		pthread_join(c->worker[i].tid, NULL);
	lanes_free(c);
}

/* Start C's workers, every signal blocked from their first instruction.
 * Return 0, or an error number. */
static int
start_workers(struct lanes *c, size_t workers)
{
	pthread_attr_t attr;
	sigset_t all, before;
	size_t i;
	int err = 0;

	if (pthread_attr_init(&attr) != 0)
		return ENOMEM;
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN + WORKER_STACK);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &before);
	for (i = 0; i < workers && err == 0; i++) {
		struct worker *w = &c->worker[i];

		w->crew = c;
		w->id = i;
		if ((w->buf = malloc(BUF_SIZE)) == NULL) {
			err = ENOMEM;
			break;
		}
		pthread_cond_init(&w->work, NULL);
		if ((err = pthread_create(&w->tid, &attr, work, w)) != 0) {
			pthread_cond_destroy(&w->work);
			free(w->buf);
			w->buf = NULL;
			break;
		}
		c->workers++;
	}
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	pthread_attr_destroy(&attr);
	return err;
}

/*
 * Start N lanes into the outputs OUTS, served by WORKERS threads
 * (size_lanes).  Each lane is a private pipe of size_lane(N) bytes, or
 * of as much as the user's pipe quota grants: if a lane gets less than
 * is worth it (size_lane_enough), or a pipe, a buffer or a thread cannot be
 * had, nothing is started.
 * Return the lanes, or NULL with errno set; nothing the caller holds
 * has changed then.
 */
struct lanes *
lanes_start(const struct lane_out *outs, size_t n, size_t workers)
{
	struct lanes *c = calloc(1, sizeof *c);
	long size = size_lane(n);
	size_t i;
	int err = 0;

	if (c == NULL)
		return NULL;
	c->lane = calloc(n, sizeof *c->lane);
	c->worker = calloc(workers, sizeof *c->worker);
	if (c->lane == NULL || c->worker == NULL) {
		free(c->lane);
		free(c->worker);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->room, NULL);
	for (i = 0; i < n && err == 0; c->n = ++i) {
		struct lane *l = &c->lane[i];

		l->pipe[0] = l->pipe[1] = -1;
		l->out = outs[i].fd;
		l->posted = l->done = outs[i].at;
		l->worker = i % workers;
		if (pipe_private(l->pipe) == -1)
			err = errno;
		else if (!size_lane_enough(l->slots = pipe_grow_to(l->pipe[1],
		    size)))
			err = ENOBUFS;
		else {
			end_init(&l->end, l->pipe[1]);
			l->end.grown = 1;	/* sized here, once */
		}
		l->slots /= PAGE_BYTES;
	}
	if (err != 0)
		lanes_free(c);
	else if ((err = start_workers(c, workers)) == 0)
		return c;
	else
		lanes_stop(c);
	errno = err;
	return NULL;
}

/* The end the fan-out writes lane K's bytes into: a pipe of its own. */
struct end *
lanes_end(struct lanes *c, size_t k)
{
	return &c->lane[k].end;
}

/*
 * Wait until lane K has room for a chunk of a pipe of BYTES (see "The
 * window"), and count the chunk in it: what is posted until the next
 * wait is the chunk.  An empty lane takes any chunk.  Return 0, or the
 * error of its output if that failed (the fan-out then gives it nothing
 * more).
 */
int
lanes_wait_room(struct lanes *c, size_t k, size_t bytes)
{
	struct lane *l = &c->lane[k];
	long need = (long)((bytes + PAGE_BYTES - 1) / PAGE_BYTES);
	int err;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (l->chunks > 0 && l->chunk[l->first].end <= l->done) {
			l->used -= l->chunk[l->first].slots;
			l->first = (l->first + 1) % LANE_CHUNKS;
			l->chunks--;
		}
		if (l->err != 0 || l->chunks == 0 ||
		    (l->chunks < LANE_CHUNKS && l->used + need <= l->slots))
			break;
		c->waited = l;
		pthread_cond_wait(&c->room, &c->lock);
	}
	c->waited = NULL;
	if ((err = l->err) == 0) {
		size_t at = (l->first + l->chunks++) % LANE_CHUNKS;

		l->chunk[at].end = l->posted;
		l->chunk[at].slots = need;
		l->used += need;
	}
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* N more bytes were put into lane K: its worker may take them. */
void
lanes_posted(struct lanes *c, size_t k, size_t n)
{
	struct lane *l = &c->lane[k];

	pthread_mutex_lock(&c->lock);
	l->posted += n;
	if (l->chunks > 0)
		l->chunk[(l->first + l->chunks - 1) % LANE_CHUNKS].end = l->posted;
	pthread_cond_signal(&c->worker[l->worker].work);
	pthread_mutex_unlock(&c->lock);
}

/* Wait until every lane's worker has written out, or dropped, all that
 * its lane was given: every failure that can come from it has come. */
void
lanes_sync(struct lanes *c)
{
	size_t k;

	pthread_mutex_lock(&c->lock);
	for (k = 0; k < c->n; k++) {
		struct lane *l = &c->lane[k];

		while (l->done < l->posted) {
			c->waited = l;
			pthread_cond_wait(&c->room, &c->lock);
		}
	}
	c->waited = NULL;
	pthread_mutex_unlock(&c->lock);
}

/* What lane K says of its output, as of now (after lanes_sync: all). */
void
lanes_result(struct lanes *c, size_t k, struct lane_result *r)
{
	struct lane *l = &c->lane[k];

	pthread_mutex_lock(&c->lock);
	r->err = l->err;
	r->err_at = l->err_at;
	r->raised = l->raised;
	r->fell_back = l->rw;
	pthread_mutex_unlock(&c->lock);
}
