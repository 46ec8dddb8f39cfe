/*
 * The fan-out with a lag tells failures on the caller's thread in the
 * order GNU's tee meets them: GNU reads GNU_CHUNK bytes at a time and
 * writes each read to every output in turn, so a failure is placed by
 * the read its failing byte was in, then by its output.  doc/design.md,
 * "Fan-out", "With a lag".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>

#include "lag.h"

/* The offset of the GNU read that holds the stream's byte AT. */
static off_t
gnu_read(off_t at)
{
	return at - at % GNU_CHUNK;
}

/*
 * The index of the failure to tell next, in GNU's order (by GNU's read,
 * then by output), if no output still writing can fail before it: each
 * has written past the reads before that one, and those before it that
 * read too, or has written all it was given.  Or L->n.
 */
static size_t
next_failure(struct lag *l)
{
	size_t k, j, f = l->n;
	off_t at;

	for (k = 0; k < l->n; k++)
		if (l->out[k].st == LAG_FAILED && (f == l->n ||
		    gnu_read(l->out[k].err_at) < gnu_read(l->out[f].err_at)))
			f = k;
	if (f == l->n)
		return f;
	at = gnu_read(l->out[f].err_at);
	for (j = 0; j < l->n; j++) {
		const struct lag_out *o = &l->out[j];
		off_t next;

		if (o->st != LAG_WRITING || o->head == NULL)
			continue;
		next = gnu_read(o->head->at + (off_t)o->off);
		if (next < at || (next == at && j < f))
			return l->n;
	}
	return f;
}

/*
 * Tell the failures that may be told (next_failure), with the lock let
 * go for FAIL.  A failure that raised a signal raises it here first, as
 * GNU's tee would have met it in that write.  Return -1 if FAIL asked
 * to stop.
 */
int
lag_tell_failures(struct lag *l, struct spate_out *outs, spate_fail_fn *fail,
    void *ctx)
{
	size_t k;

	while ((k = next_failure(l)) < l->n) {
		struct lag_out *o = &l->out[k];
		int err = o->err, sig = o->raised, stop;

		lagout_set(o, LAG_GONE);
		outs[k].fd = -1;
		pthread_mutex_unlock(&l->lock);
		if (sig != 0)
			raise(sig);
		stop = fail != NULL && fail(ctx, k, err) == -1;
		pthread_mutex_lock(&l->lock);
		if (stop)
			return -1;
	}
	return 0;
}
