/*
 * The fan-out with a lag (struct spate_fanout_opts's LAG and SLOW; its
 * contract is spate.h's): the caller's thread, which reads the input
 * into chunks a chunk ahead of the fastest output, decides what becomes
 * of an output that falls too far behind, and has failures told
 * (lib/lagtell.c).  The outputs' threads are lib/lagout.c's.  The why
 * of it all: doc/design.md, "Fan-out", "With a lag".
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lag.h"

/* What the fastest output writing has still to write, or -1 if no
 * output writes. */
static off_t
fastest(struct lag *l)
{
	off_t least = -1;
	size_t k;

	for (k = 0; k < l->n; k++)
		if (l->out[k].st == LAG_WRITING &&
		    (least == -1 || l->out[k].held < least))
			least = l->out[k].held;
	return least;
}

/* Return 1 if an output writing holds a chunk: it comes back once
 * written, even if the output has no byte left to write in it. */
static int
holding(struct lag *l)
{
	size_t k;

	for (k = 0; k < l->n; k++)
		if (l->out[k].st == LAG_WRITING && l->out[k].head != NULL)
			return 1;
	return 0;
}

/* Return 1 if output K is further than the lag behind the fastest,
 * which has LEAST to write; short of memory, the memory held is the
 * lag. */
static int
behind(struct lag *l, size_t k, off_t least)
{
	off_t lag = l->short_of_memory ? 0 : l->lag;

	return l->out[k].st == LAG_WRITING && l->out[k].held - least > lag;
}

/*
 * Return 1 if output K is slow at NOW: behind, and by what it does, not
 * by the others' speed: its reader may stall it, and a write of it has
 * waited LAG_GRACE_MS.  An output that keeps taking is never slow.
 */
static int
slow(struct lag *l, size_t k, off_t least, long long now)
{
	const struct lag_out *o = &l->out[k];

	return behind(l, k, least) && o->stalls && o->writing &&
	    now - o->since >= LAG_GRACE_MS;
}

/*
 * SPATE_SLOW_DROP, short of memory: output K, slow, lets go of its queue,
 * but for the chunk it writes from, and misses it.
 */
static void
drop_queue(struct lag *l, size_t k)
{
	struct lag_out *o = &l->out[k];
	off_t kept = o->head != NULL ? (off_t)(o->head->len - o->off) : 0;

	o->missed += o->held - kept;
	lagmem_drain(l, o);
	o->held = kept;
}

/* Close output K, slow (SPATE_SLOW_CLOSE), or in a write when the copy
 * stops: it is given nothing more, and nobody waits for its thread. */
static void
let_go(struct lag *l, struct spate_out *outs, size_t k)
{
	lagout_set(&l->out[k], LAG_CLOSED);
	lagmem_drain(l, &l->out[k]);
	pthread_cond_signal(&l->out[k].fed);
	pthread_detach(l->out[k].tid);
	outs[k].fd = -1;
}

/*
 * Judge the outputs further than the lag behind the fastest, which has
 * LEAST to write.  One that is slow is closed (SPATE_SLOW_CLOSE, SLOW_FN
 * told without the lock) or misses the next chunk (SPATE_SLOW_DROP; closed
 * once the input has ended); one that is not is waited for, as under
 * SPATE_SLOW_WAIT.  Return 1 if one is
 * waited for; *WAKE is then when one may be judged slow (0: when an
 * output moves).
 */
static int
judge(struct lag *l, struct spate_out *outs, const struct spate_fanout_opts *o,
    void *ctx, off_t least, long long *wake)
{
	long long now = lagout_now();
	size_t k;
	int wait = 0;

	*wake = 0;
	for (k = 0; k < l->n; k++) {
		struct lag_out *out = &l->out[k];

		out->skips = 0;
		if (!behind(l, k, least))
			continue;
		if (l->slow == SPATE_SLOW_WAIT || !slow(l, k, least, now)) {
			if (l->slow != SPATE_SLOW_WAIT && out->stalls &&
			    out->writing && (*wake == 0 ||
			    out->since + LAG_GRACE_MS < *wake))
				*wake = out->since + LAG_GRACE_MS;
			wait = 1;
			continue;
		}
		/* Once the input has ended, no chunk is to miss: a slow
		 * output that drops is closed. */
		if (l->slow == SPATE_SLOW_DROP && !l->ended) {
			out->skips = 1;
			if (l->short_of_memory)
				drop_queue(l, k);
			continue;
		}
		let_go(l, outs, k);
		pthread_mutex_unlock(&l->lock);
		if (o->slow_fn != NULL)
			o->slow_fn(ctx, k, SPATE_SLOW_CLOSE, 0);
		pthread_mutex_lock(&l->lock);
	}
	return wait;
}

/*
 * Before a read: return 1 if the reader is to wait, till *WAKE (0: an
 * output moves): the fastest has more than a chunk to write, or an
 * output too far behind is waited for (judge).  The reader keeps a
 * chunk ahead of the fastest output, no more: it reads while that one
 * writes, and what an output holds stays within the lag and two chunks
 * (spate.h).
 */
static int
must_wait(struct lag *l, struct spate_out *outs,
    const struct spate_fanout_opts *o, void *ctx, long long *wake)
{
	off_t least = fastest(l);

	*wake = 0;
	if (least > (off_t)LAG_CHUNK)
		return 1;
	return judge(l, outs, o, ctx, least, wake);
}

/* Return 1 if an output wrote everything it was given (at the end). */
static int
one_done(struct lag *l)
{
	size_t k;

	for (k = 0; k < l->n; k++)
		if (l->out[k].st == LAG_DONE)
			return 1;
	return 0;
}

/*
 * Seal the chunk read into and start another, CAP bytes at least, given
 * to every output writing but those judged slow when outputs drop.
 * Return 0, or -1 if memory is short (the lock is held throughout, but
 * for mmap(2)).
 */
static int
next_chunk(struct lag *l, size_t cap)
{
	struct lag_chunk *c;
	size_t k;

	if (l->cur != NULL) {
		l->cur->sealed = 1;
		for (k = 0; k < l->n; k++)
			if (l->out[k].tail == l->cur)
				pthread_cond_signal(&l->out[k].fed);
		lagmem_unref(l, l->cur);
		l->cur = NULL;
	}
	if ((c = lagmem_chunk(l, cap)) == NULL)
		return -1;
	for (k = 0; k < l->n; k++) {
		struct lag_out *o = &l->out[k];

		if (o->st != LAG_WRITING || o->skips)
			continue;
		if (o->tail != NULL)
			o->tail->next[k] = c;
		else
			o->head = c;
		o->tail = c;
		c->refs++;
	}
	l->cur = c;
	return 0;
}

/* N bytes were read into the chunk: the outputs given it have them to
 * write; those that dropped it missed them. */
static void
publish(struct lag *l, size_t n)
{
	size_t k;

	l->cur->len += n;
	l->in += n;
	for (k = 0; k < l->n; k++) {
		struct lag_out *o = &l->out[k];

		if (o->st != LAG_WRITING)
			continue;
		if (o->tail == l->cur) {
			o->held += n;
			pthread_cond_signal(&o->fed);
		} else {
			assert(l->slow == SPATE_SLOW_DROP);
			o->missed += n;
		}
	}
}

/*
 * Read the input's next bytes into the chunk (a record whole, into a
 * chunk of its own, through *SCRATCH).  A read never asks for less than
 * GNU's: one of a packet-mode pipe takes a packet, and one shorter than
 * the packet loses the rest of it (pipe(7)), as a shorter read loses
 * the rest of a device's record.  So where the chunk has less room, a
 * read of GNU's size goes to *SCRATCH, and what does not fit goes into
 * the next chunk.  Called with the lock, which it lets go for the read.
 * Return as read(2), or -2 if no chunk could be had (errno ENOMEM).
 */
static ssize_t
read_next(struct lag *l, const struct end *in, char **scratch,
    size_t *size)
{
	ssize_t n;
	size_t at, room;

	if (in->records) {
		/* A record read stays in *SCRATCH until a chunk takes it,
		 * whole: records are packed into chunks, so that a chunk's
		 * cost counts against the lag however small they are (no
		 * output keeps them apart here: records_kept). */
		if (l->unplaced == 0) {
			pthread_mutex_unlock(&l->lock);
			n = read_input(in, scratch, size, *size);
			pthread_mutex_lock(&l->lock);
			if (n <= 0)
				return n;
			l->unplaced = n;
		}
		if ((l->cur == NULL ||
		    l->cur->cap - l->cur->len < l->unplaced) &&
		    next_chunk(l, l->unplaced > LAG_CHUNK ? l->unplaced :
		    LAG_CHUNK) == -1)
			return errno = ENOMEM, -2;
		memcpy(l->cur->data + l->cur->len, *scratch, l->unplaced);
		n = l->unplaced;
		l->unplaced = 0;
		return n;
	}
	if ((l->cur == NULL || l->cur->len == l->cur->cap) &&
	    next_chunk(l, LAG_CHUNK) == -1)
		return errno = ENOMEM, -2;
	at = l->cur->len;
	room = l->cur->cap - at;
	if (l->unplaced == 0 && room >= GNU_CHUNK) {
		pthread_mutex_unlock(&l->lock);
		n = read_some(in->fd, l->cur->data + at, room);
		pthread_mutex_lock(&l->lock);
		return n;
	}
	if (l->unplaced == 0) {
		pthread_mutex_unlock(&l->lock);
		n = read_some(in->fd, *scratch, GNU_CHUNK);
		pthread_mutex_lock(&l->lock);
		if (n <= 0)
			return n;
		l->unplaced = n;
		l->placed = 0;
	}
	n = l->unplaced < room ? l->unplaced : room;
	memcpy(l->cur->data + at, *scratch + l->placed, n);
	l->placed += n;
	l->unplaced -= n;
	return n;
}

/* Output K may be watched for its reader leaving (watch_outputs): a pipe
 * with nothing left to write, whose thread is idle. */
static int
watched(struct lag *l, size_t k)
{
	return l->out[k].pipe && l->out[k].st == LAG_WRITING &&
	    l->out[k].held == 0;
}

/*
 * How long the watch of the output pipes waits before it looks again,
 * while a pipe still writes and so is not watched yet: it joins the
 * watch once its thread has written what it was given.
 */
#define LAG_LOOK_MS	10

/*
 * SPATE_FANOUT_PIPE_CHECK, before a read that may wait (not from a regular
 * file, nor from an input open for writing only, whose read fails at
 * once): wait in poll(2) for the input (P[0]) with the output pipes
 * watched.  One whose reader left fails with EPIPE at once, as in GNU
 * 9.2's tee -p (lib/watch.c's watch_wait), so that a tee whose outputs
 * are all such pipes ends without waiting for input.  The lock is let
 * go for the wait: meanwhile no output watched changes (it has nothing
 * to write, and only this thread gives or closes).  Return 1 when the
 * input is ready, or poll(2) failed (the read waits instead); 0 to look
 * again.
 */
static int
watch_outputs(struct lag *l, struct pollfd *p)
{
	size_t k, m = 1, i;
	int ms = -1, r;

	for (k = 0; k < l->n; k++)
		if (watched(l, k))
			p[m++] = (struct pollfd){ .fd = l->out[k].fd };
		else if (l->out[k].pipe && l->out[k].st == LAG_WRITING)
			ms = LAG_LOOK_MS;
	pthread_mutex_unlock(&l->lock);
	p[0].events = POLLIN;
	r = wait_any(p, m, ms);
	pthread_mutex_lock(&l->lock);
	if (r == -1 || p[0].revents != 0)
		return 1;
	for (i = 1; i < m; i++)
		for (k = 0; k < l->n; k++) {
			struct lag_out *o = &l->out[k];

			if (o->fd != p[i].fd || !watched(l, k) ||
			    !(p[i].revents & (POLLERR | POLLHUP | POLLNVAL)))
				continue;
			o->err = EPIPE;
			o->err_at = l->in;
			o->raised = 0;
			lagout_set(o, LAG_FAILED);
			lagmem_drain(l, o);
			pthread_cond_signal(&o->fed);
		}
	return 0;
}

/*
 * Return 1 if the input IN may keep records apart (a record socket; a
 * pipe, which may be in packet mode; a device: may_read_records) and
 * one of the N outputs OUTS keeps writes apart (a packet-mode pipe, a
 * record socket): each record is to reach such an output as a write of
 * its own, as without a lag, and the lag's chunks pack records
 * together.
 */
static int
records_kept(const struct end *in, const struct end *outs, size_t n)
{
	size_t i;

	if (!in->records && !traits(in)->may_read_records)
		return 0;
	for (i = 0; i < n; i++)
		if (outs[i].fd != -1 && end_keeps_writes(&outs[i]))
			return 1;
	return 0;
}

/*
 * Describe IN into *INPUT and the N outputs OUTS into ENDS (fd -1 where
 * OUTS has none).  Return 1 if the copy is to be made without a lag:
 * outputs aliased (ends_aliased), whose threads' writes would land
 * between each other's, or records kept apart (records_kept).
 */
static int
lag_unfit(int in, struct spate_out *outs, size_t n, struct end *input,
    struct end *ends)
{
	size_t k;

	end_init(input, in);
	for (k = 0; k < n; k++)
		if (outs[k].fd == -1)
			ends[k].fd = -1;
		else
			end_init(&ends[k], outs[k].fd);
	return ends_aliased(input, ends, n) || records_kept(input, ends, n);
}

/*
 * The end of the copy (input ended, failed, or a stop): the outputs
 * write what they were given, failures are told as they may be, an
 * output that is slow is closed (SPATE_SLOW_CLOSE, and SPATE_SLOW_DROP, which
 * has no chunk left to miss: judged against one that wrote it all),
 * and the threads are joined; a dropping output's loss is told, unless
 * FAIL asked to stop.  After a stop nothing more is
 * written, and an output in a write is let go (let_go): its reader may
 * never take it, and the caller is to end at once, as GNU's tee does.
 */
static void
lag_finish(struct lag *l, struct spate_out *outs,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx)
{
	int stop = l->stopped, done = 0;
	long long wake;
	size_t k;

	l->ended = 1;
	if (l->cur != NULL) {
		l->cur->sealed = 1;
		lagmem_unref(l, l->cur);
		l->cur = NULL;
	}
	for (k = 0; k < l->n; k++)
		pthread_cond_signal(&l->out[k].fed);
	for (;;) {
		if (!stop && lag_tell_failures(l, outs, fail, ctx) == -1)
			stop = l->stopped = 1;
		for (k = 0; k < l->n && stop; k++)
			if (l->out[k].st == LAG_WRITING && l->out[k].writing)
				let_go(l, outs, k);
			else
				pthread_cond_signal(&l->out[k].fed);
		if (fastest(l) == -1)
			break;
		wake = 0;
		if (!stop && l->slow != SPATE_SLOW_WAIT)
			judge(l, outs, o, ctx, one_done(l) ? 0 : fastest(l),
			    &wake);
		if (fastest(l) == -1)
			break;
		lagout_wait(l, wake);
	}
	pthread_mutex_unlock(&l->lock);
	for (k = 0; k < l->n; k++)
		if (l->out[k].started && l->out[k].st != LAG_CLOSED)
			pthread_join(l->out[k].tid, NULL);
	/* The threads joined, the state is the reader's alone. */
	for (k = 0; k < l->n && !stop; k++) {
		if (l->out[k].missed > 0 && o->slow_fn != NULL)
			o->slow_fn(ctx, k, SPATE_SLOW_DROP, l->out[k].missed);
		done |= l->out[k].st == LAG_DONE;
	}
	/* The fastest wrote it all. */
	if (done && o->progress != NULL)
		o->progress(ctx, l->in);
	pthread_mutex_lock(&l->lock);
}

/* Refuse the lag: its threads or memory (errno ERR) cannot be had, and
 * nothing was read (lag_fanout). */
static int
refuse(const struct spate_fanout_opts *o, int err)
{
	if (o->side != NULL)
		*o->side = SPATE_MEMORY;
	errno = err;
	return -1;
}

/*
 * spate_fanout_with, first (fanout.c): with a lag and two outputs or more,
 * the copy.  Return 0; or -1 with errno set and *O->side (if asked)
 * SPATE_INPUT when reading the input failed, SPATE_MEMORY when the threads or
 * the memory the lag needs cannot be had (nothing read then, if they
 * could not be had at the start); or 1 if nothing was read, and the copy
 * is to be made as without a lag: none asked, one output, or outputs
 * unfit for it (lag_unfit).
 */
int
lag_fanout(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx)
{
	struct lag *l;
	struct end input, *ends;
	struct pollfd *polls = NULL;
	char *scratch = NULL;
	size_t size = 0, k, live;
	ssize_t r = 1;
	int saved = 0, watch;

	for (k = 0, live = 0; k < n; k++)
		live += outs[k].fd != -1;
	if ((o->lag == 0 && o->slow == SPATE_SLOW_WAIT) || live < 2)
		return 1;
	if ((ends = calloc(n, sizeof *ends)) == NULL)
		return refuse(o, ENOMEM);
	if (lag_unfit(in, outs, n, &input, ends)) {
		free(ends);
		return 1;
	}
	if ((l = calloc(1, sizeof *l)) == NULL) {
		free(ends);
		return refuse(o, ENOMEM);
	}
	l->lag = o->lag;
	l->slow = o->slow;
	if (lagout_start(l, ends, n) == -1) {
		saved = errno;
		free(ends);
		lagout_free(l);
		return refuse(o, saved);
	}
	free(ends);
	watch = (o->flags & SPATE_FANOUT_PIPE_CHECK) && !traits(&input)->file &&
	    (fcntl(in, F_GETFL) & O_ACCMODE) != O_WRONLY;
	if ((scratch = malloc(size = input.records ? LAG_CHUNK : GNU_CHUNK))
	    == NULL ||
	    (watch && (polls = calloc(n + 1, sizeof *polls)) == NULL))
		r = -2;
	if (polls != NULL)
		polls[0].fd = in;
	/* A record is the input's once read: its chunk is had first. */
	if (r > 0 && input.records && next_chunk(l, LAG_CHUNK) == -1)
		errno = ENOMEM, r = -2;
	while (r > 0) {
		long long wake;
		off_t best;

		if (lag_tell_failures(l, outs, fail, ctx) == -1) {
			l->stopped = 1;
			break;
		}
		if (fastest(l) == -1)
			break;
		if (must_wait(l, outs, o, ctx, &wake)) {
			lagout_wait(l, wake);
			continue;
		}
		/* What a read left in the scratch buffer goes first. */
		if (watch && l->unplaced == 0 && !watch_outputs(l, polls))
			continue;
		r = read_next(l, &input, &scratch, &size);
		/* Short of memory while outputs hold chunks: the memory held
		 * is the lag (must_wait judges again, at once), and a chunk
		 * comes back to the spares as the outputs write. */
		if (r == -2 && holding(l)) {
			r = 1;
			if (l->short_of_memory)
				lagout_wait(l, 0);
			l->short_of_memory = 1;
			continue;
		}
		if (r <= 0)
			break;
		l->short_of_memory = 0;
		publish(l, r);
		if (o->progress == NULL || (best = fastest(l)) == -1)
			continue;
		/* The fastest may fail, and the next be behind it: what was
		 * told stays told. */
		if ((best = l->in - best) <= l->told)
			continue;
		l->told = best;
		pthread_mutex_unlock(&l->lock);
		o->progress(ctx, best);
		pthread_mutex_lock(&l->lock);
	}
	saved = errno;
	lag_finish(l, outs, o, fail, ctx);
	lagout_put(l);
	free(scratch);
	free(polls);
	if (r == -2)
		return refuse(o, saved);
	if (r == -1 && o->side != NULL)
		*o->side = SPATE_INPUT;
	errno = saved;
	return r < 0 ? -1 : 0;
}
