/*
 * Lanes: the regular files among a fan-out's outputs, each fed through a
 * pipe of its own by the fan-out's thread and written out by a worker
 * thread, so that the copies into their page caches run on different
 * CPUs.
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
 * least twice the chunk pipe: it holds two chunks of the biggest kind,
 * or more of a chunk pipe kept small (a socket's chunks).  An output may
 * thus run ahead of a slower one by what one lane and the chunk pipe
 * hold; beyond that the fan-out waits for the slowest output, as a
 * serial tee does.
 *
 * Failures.  A worker whose output fails keeps the error for the
 * fan-out to report (the engine's callbacks run on the caller's thread)
 * and reads what its lane is given from then on into nowhere, so the
 * fan-out never waits on a lane nobody empties.
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

#include "sluice.h"
#include "engine.h"

/* A worker's stack: it calls little and keeps its buffer on the heap. */
#define WORKER_STACK	(64u << 10)

/* The most chunks a lane holds at once, however small. */
#define LANE_CHUNKS	64

/* A pipe's slot, in bytes of its size (F_GETPIPE_SZ counts a page a
 * slot); only the ratio of two sizes is taken, so any page size will do. */
#define PAGE_BYTES	4096

struct lane {
	int pipe[2];		/* [1] is the fan-out's, [0] the worker's */
	int out;		/* the output it is written into */
	int proven;		/* zero-copy reached OUT already: a refusal
				   from it now is an error */
	int rw;			/* OUT refused splice(2): read and write */
	off_t posted;		/* bytes put into the lane (under LOCK) */
	off_t done;		/* bytes taken out of it (under LOCK) */
	long slots;		/* the lane pipe's slots */
	struct {		/* the chunks in the lane, oldest first, */
		off_t end;	/* each ending at END in POSTED's count */
		long slots;	/* and counted at SLOTS slots */
	} chunk[LANE_CHUNKS];	/* (under LOCK, as the two below) */
	size_t first, chunks;	/* a ring: where the oldest is, how many */
	long used;		/* the slots the chunks are counted at */
	int err;		/* the output's error, 0 (under LOCK) */
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
	struct lane *waited;	/* the lane the fan-out waits on, or NULL */
	int closing;		/* no more bytes will be posted */
	struct lane *lane;
	size_t n;
	struct worker *worker;
	size_t workers;		/* started */
};

/*
 * How many threads, the fan-out's own included, NCOPY outputs that need
 * a copy warrant: one each, no more than the CPUs this process may run
 * on, and no more than SLUICE_THREADS says (1: the fan-out copies
 * alone).  0 means no workers at all.
 */
size_t
lanes_wanted(size_t ncopy)
{
	cpu_set_t cpus;
	const char *v = getenv("SLUICE_THREADS");
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
 * read(2) and write(2) if the output refused splice before it took a
 * byte.  Return 0, or -1 with errno set: the output's error (the lane,
 * a pipe of ours holding the bytes, cannot fail).  *MOVED counts what
 * left the lane.
 */
static int
lane_write(struct lane *l, struct worker *w, size_t n, size_t *moved)
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
			if (write_all(l->out, w->buf, want) == -1)
				return -1;
			continue;
		}
		k = xfer_pipe(&c, l->pipe[0], l->out, want, 0);
		if (k > 0) {
			*moved += k;
			l->proven = 1;
			continue;
		}
		if (k == -1 && zerocopy_refused(&c, l->proven)) {
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
 * Return 1 if signal SIG, blocked, waits for this thread or the process
 * (a write raised it while lanes run: fanout.c, hold_signals).
 */
int
signal_due(int sig)
{
	sigset_t due;

	return sigpending(&due) == 0 && sigismember(&due, sig) == 1;
}

/*
 * A write of this worker's failed with ERR.  A SIGXFSZ it raised waits
 * for this thread alone, which would end without taking it: pass it on
 * to the process, where the fan-out's thread finds it when it reports
 * the error.
 */
static void
pass_on_signal(int err)
{
	if (err == EFBIG && signal_due(SIGXFSZ))
		kill(getpid(), SIGXFSZ);
}

/*
 * A worker: move what is posted to its lanes into their outputs until
 * the fan-out closes them.  It blocks every signal the process may be
 * sent, so that handlers run on the caller's thread, but not those its
 * own writes raise, SIGPIPE and SIGXFSZ: for those it keeps the mask it
 * inherits from the fan-out's thread.
 */
static void *
work(void *arg)
{
	struct worker *w = arg;
	struct lanes *c = w->crew;
	sigset_t mask;

	sigfillset(&mask);
	sigdelset(&mask, SIGPIPE);
	sigdelset(&mask, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct lane *l = next_lane(c, w);
		size_t n, moved = 0;
		int err = 0;

		if (l == NULL) {
			if (c->closing)
				break;
			pthread_cond_wait(&w->work, &c->lock);
			continue;
		}
		n = l->posted - l->done;
		if (l->err) {
			pthread_mutex_unlock(&c->lock);
			lane_drop(l, w, n);
			moved = n;
		} else {
			pthread_mutex_unlock(&c->lock);
			if (lane_write(l, w, n, &moved) == -1) {
				err = errno;
				pass_on_signal(err);
				lane_drop(l, w, n - moved);
				moved = n;
			}
		}
		pthread_mutex_lock(&c->lock);
		l->done += moved;
		if (err)
			l->err = err;
		if (c->waited == l)
			pthread_cond_signal(&c->room);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/*
 * Let every lane's worker move what it was given, join the workers,
 * set ERRS[K] (unless ERRS is NULL) to the error of lane K's output or
 * 0, close the lanes and free C.  A worker whose output blocks is waited
 * for, as a serial tee would wait to write: what each output was given,
 * it gets.
 */
void
lanes_stop(struct lanes *c, int *errs)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	c->closing = 1;
	for (i = 0; i < c->workers; i++)
		pthread_cond_signal(&c->worker[i].work);
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < c->workers; i++)
		pthread_join(c->worker[i].tid, NULL);
	for (i = 0; i < c->n; i++) {
		if (errs != NULL)
			errs[i] = c->lane[i].err;
		close_pair(c->lane[i].pipe);
	}
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
 * Start N lanes into the outputs OUTS (PROVEN[K]: zero-copy reached
 * OUTS[K] already), served by WORKERS threads.  Each lane is a private
 * pipe of SIZE bytes, or of as much as the user's pipe quota grants: if
 * a lane gets less than MIN bytes, or a pipe, a buffer or a thread
 * cannot be had, nothing is started.  Return the lanes, or NULL with
 * errno set; nothing the caller holds has changed then.
 */
struct lanes *
lanes_start(const int *outs, const int *proven, size_t n, size_t workers,
    long size, long min)
{
	struct lanes *c = calloc(1, sizeof *c);
	pthread_attr_t attr;
	size_t i;
	int err = 0;

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->room, NULL);
	c->lane = calloc(n, sizeof *c->lane);
	c->worker = calloc(workers, sizeof *c->worker);
	if (c->lane == NULL || c->worker == NULL) {
		lanes_stop(c, NULL);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		c->lane[i].pipe[0] = c->lane[i].pipe[1] = -1;
	for (i = 0; i < n && err == 0; c->n = ++i) {
		struct lane *l = &c->lane[i];

		l->out = outs[i];
		l->proven = proven[i];
		l->worker = i % workers;
		if (pipe_private(l->pipe) == -1)
			err = errno;
		else if ((l->slots = pipe_grow_to(l->pipe[1], size)) < min)
			err = ENOBUFS;
		l->slots /= PAGE_BYTES;
	}
	if (pthread_attr_init(&attr) != 0) {
		lanes_stop(c, NULL);
		errno = ENOMEM;
		return NULL;
	}
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN + WORKER_STACK);
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
	pthread_attr_destroy(&attr);
	if (err != 0) {
		lanes_stop(c, NULL);
		errno = err;
		return NULL;
	}
	return c;
}

/* The descriptor the fan-out writes lane K's bytes into: a pipe. */
int
lanes_fd(const struct lanes *c, size_t k)
{
	return c->lane[k].pipe[1];
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
