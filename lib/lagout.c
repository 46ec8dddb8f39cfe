/*
 * The outputs' threads of the fan-out with a lag: each output is
 * written by a thread of its own, which writes the chunks it is given
 * in order with write(2), while the caller's thread reads and decides
 * (lib/lag.c); the chunks' memory is lib/lagmem.c's.  Starting,
 * waking, waiting for and ending the threads is here, and the lag's
 * lifetime, which they share.  doc/design.md, "Fan-out", "With a lag".
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lag.h"

/* An output's thread: write_all and a few frames of its own. */
#define LAG_STACK	(64u << 10)

/* The moves lag_set allows, by state from and to. */
static const unsigned char lag_moves[5][5] = {
	[LAG_WRITING] = { [LAG_FAILED] = 1, [LAG_CLOSED] = 1, [LAG_DONE] = 1 },
	[LAG_FAILED] = { [LAG_GONE] = 1 },
};

void
lagout_set(struct lag_out *o, enum lag_st to)
{
	assert(lag_moves[o->st][to]);
	o->st = to;
}

/* The monotonic clock, in milliseconds: when a write began. */
long long
lagout_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The reader waits for an output to move, or till WAKE (lagout_now's
 * clock; 0: no end), when an output may be judged slow. */
void
lagout_wait(struct lag *l, long long wake)
{
	struct timespec t;

	if (wake == 0) {
		pthread_cond_wait(&l->moved, &l->lock);
		return;
	}
	t.tv_sec = wake / 1000;
	t.tv_nsec = wake % 1000 * 1000000;
	pthread_cond_timedwait(&l->moved, &l->lock, &t);
}

/* Free L: its last reference is gone. */
void
lagout_free(struct lag *l)
{
	size_t k;

	lagmem_free(l);
	for (k = 0; k < l->n; k++)
		pthread_cond_destroy(&l->out[k].fed);
	pthread_cond_destroy(&l->moved);
	pthread_mutex_destroy(&l->lock);
	free(l->out);
	free(l);
}

/* Let go of L's reference, the caller's or a thread's; the lock held
 * is released. */
void
lagout_put(struct lag *l)
{
	int last = --l->refs == 0;

	pthread_mutex_unlock(&l->lock);
	if (last)
		lagout_free(l);
}

/*
 * A write of this thread's failed with ERR: return the signal it raised
 * (SIGPIPE for EPIPE, SIGXFSZ for EFBIG), taken off this thread, which
 * blocks every signal and would keep it for ever; or 0.  The reader
 * raises it on its own thread when it tells the failure.
 */
static int
took_signal(int err)
{
	static const struct timespec now;
	int sig = err == EPIPE ? SIGPIPE : err == EFBIG ? SIGXFSZ : 0;
	sigset_t one;

	if (sig == 0 || !signal_due(sig))
		return 0;
	sigemptyset(&one);
	sigaddset(&one, sig);
	return sigtimedwait(&one, NULL, &now) == sig ? sig : 0;
}

/* write_all, and in *LEFT what was not written if it fails: the
 * failing byte is placed in GNU's order (lib/lagtell.c). */
static int
write_out(int fd, const char *buf, size_t len, size_t *left)
{
	struct io_call c = { .op = IO_WRITE, .in = -1, .out = fd,
	    .buf = (void *)buf, .len = len };
	int r = io_move_all(&c);

	*left = c.len;
	return r;
}

/*
 * An output's thread: write its chunks in order, as they come, until it
 * has written all it was given, it fails, or it is closed or stopped.
 * A chunk it writes from is never given back before its write returns,
 * so it writes nothing but the input's bytes, whatever the reader does
 * meanwhile.
 */
static void *
out_thread(void *arg)
{
	struct lag_out *o = arg;
	struct lag *l = o->l;
	int r, err, sig, fd = -1;
	size_t left;

	pthread_mutex_lock(&l->lock);
	while (o->st == LAG_WRITING) {
		struct lag_chunk *c = o->head;
		size_t len;

		if (c != NULL && o->off == c->len && c->sealed) {
			o->head = c->next[o->k];
			if (o->head == NULL)
				o->tail = NULL;
			o->off = 0;
			lagmem_unref(l, c);
			/* A reader short of memory waits for it. */
			pthread_cond_signal(&l->moved);
			continue;
		}
		if (l->stopped || (c == NULL && l->ended)) {
			lagout_set(o, LAG_DONE);
			lagmem_drain(l, o);
			break;
		}
		if (c == NULL || o->off == c->len) {
			pthread_cond_wait(&o->fed, &l->lock);
			continue;
		}
		len = c->len - o->off;
		/* An output that may stall is slow by how long a write waits:
		 * a short one ends as soon as a reader that keeps taking has
		 * taken a little. */
		if ((o->keeps || o->stalls) && len > GNU_CHUNK)
			len = GNU_CHUNK;
		o->writing = 1;
		o->since = lagout_now();
		/* A reader waiting on an output too far behind times it. */
		if (o->stalls)
			pthread_cond_signal(&l->moved);
		pthread_mutex_unlock(&l->lock);
		r = write_out(o->fd, c->data + o->off, len, &left);
		err = errno;
		sig = r == -1 ? took_signal(err) : 0;
		pthread_mutex_lock(&l->lock);
		o->writing = 0;
		if (o->st == LAG_CLOSED) {
			lagmem_unref(l, c);
			o->head = o->tail = NULL;
		} else if (r == -1) {
			o->err = err;
			o->raised = sig;
			o->err_at = c->at + (off_t)(o->off + len - left);
			lagout_set(o, LAG_FAILED);
			lagmem_drain(l, o);
		} else {
			o->off += len;
			o->held -= len;
		}
		pthread_cond_signal(&l->moved);
	}
	if (o->st == LAG_CLOSED)
		fd = o->fd;
	pthread_cond_signal(&l->moved);
	lagout_put(l);
	/* Closed: the descriptor is this thread's, and no write of it is
	 * under way any more. */
	if (fd != -1)
		close(fd);
	return NULL;
}

/* Start output K's thread, every signal blocked from its first
 * instruction.  Return 0, or an error number. */
static int
start_out(struct lag *l, size_t k, pthread_attr_t *attr)
{
	struct lag_out *o = &l->out[k];
	sigset_t all, before;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &before);
	err = pthread_create(&o->tid, attr, out_thread, o);
	pthread_sigmask(SIG_SETMASK, &before, NULL);
	if (err == 0) {
		o->started = 1;
		l->refs++;
	}
	return err;
}

/* Set up L for the N outputs ENDS (fd -1: none) and start the threads.
 * Return 0, or -1 with errno set and nothing started (the threads that
 * were are ended and joined). */
int
lagout_start(struct lag *l, const struct end *ends, size_t n)
{
	pthread_attr_t attr;
	pthread_condattr_t monotonic;
	size_t k;
	int err = 0;

	pthread_mutex_init(&l->lock, NULL);
	/* The reader's timed waits (lagout_wait) are on lagout_now's
	 * clock. */
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&l->moved, &monotonic);
	pthread_condattr_destroy(&monotonic);
	if ((l->out = calloc(n, sizeof *l->out)) == NULL)
		return -1;
	l->n = n;
	l->refs = 1;
	for (k = 0; k < n; k++) {
		struct lag_out *o = &l->out[k];

		o->l = l;
		o->k = k;
		o->fd = ends[k].fd;
		pthread_cond_init(&o->fed, NULL);
		if (o->fd == -1)
			continue;
		o->keeps = end_keeps_writes(&ends[k]);
		o->pipe = traits(&ends[k])->pipe;
		o->stalls = traits(&ends[k])->may_stall;
		o->st = LAG_WRITING;
	}
	if ((err = pthread_attr_init(&attr)) != 0)
		return errno = err, -1;
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN + LAG_STACK);
	pthread_mutex_lock(&l->lock);
	for (k = 0; k < n && err == 0; k++)
		if (l->out[k].st == LAG_WRITING)
			err = start_out(l, k, &attr);
	pthread_attr_destroy(&attr);
	if (err == 0)
		return 0;
	l->ended = 1;
	for (k = 0; k < n; k++)
		pthread_cond_signal(&l->out[k].fed);
	pthread_mutex_unlock(&l->lock);
	for (k = 0; k < n; k++)
		if (l->out[k].started)
			pthread_join(l->out[k].tid, NULL);
	errno = err;
	return -1;
}

