/*
 * lib-lag.h: what the unit tests of the fan-out with a lag share
 * (test_lag.c its modes, test_lag_ends.c its stops, failures and
 * limits): the callbacks' record of what was told, the call itself,
 * and the checks of what an output got.  Include it after
 * lib-fanout.h.
 */
#ifndef LIB_LAG_H
#define LIB_LAG_H

#include "lag.h"

/* What the callbacks saw: on_fail's log, and the slow outputs told. */
struct seen {
	struct log log;		/* first: on_fail takes it as its CTX */
	int closed[MAXOUT];	/* SPATE_SLOW_CLOSE told, per output */
	off_t missed[MAXOUT];	/* SPATE_SLOW_DROP's count, per output */
	int elsewhere;		/* a callback came on another thread */
	off_t progress;		/* the last progress told */
	int backwards;		/* progress once went back */
};

static inline void
on_slow(void *ctx, size_t i, enum spate_slow what, long long missed)
{
	struct seen *s = ctx;

	if (!pthread_equal(pthread_self(), main_thread))
		s->elsewhere = 1;
	if (what == SPATE_SLOW_CLOSE)
		s->closed[i]++;
	else
		s->missed[i] += missed;
}

static inline void
on_progress(void *ctx, long long bytes)
{
	struct seen *s = ctx;

	if (!pthread_equal(pthread_self(), main_thread))
		s->elsewhere = 1;
	if (bytes < s->progress)
		s->backwards = 1;
	s->progress = bytes;
}

/* spate_fanout_with IN into the N outputs O, with LAG and SLOW. */
static inline int
run(int in, struct spate_out *o, size_t n, off_t lag, enum spate_slow slow,
    struct seen *s)
{
	struct spate_fanout_opts opts = { .lag = lag, .slow = slow,
	    .slow_fn = on_slow, .progress = on_progress };

	return spate_fanout_with(in, o, n, &opts, on_fail, s);
}

/* The LEN bytes at BUF are the input with whole chunks (LAG_CHUNK each,
 * from its start) left out, and MISSED bytes of it were. */
static inline int
whole_chunks_left_out(const unsigned char *buf, size_t len, off_t missed)
{
	size_t p = 0, q = 0;

	while (q < len && p < datalen) {
		size_t k = datalen - p < LAG_CHUNK ? datalen - p : LAG_CHUNK;

		if (len - q >= k && memcmp(buf + q, data + p, k) == 0)
			q += k;
		p += k;
	}
	return q == len && (off_t)(datalen - len) == missed;
}

/* Everything pipe P's read end holds until its writer closes it. */
static inline unsigned char *
drain(int p, size_t *len)
{
	unsigned char *buf = xmalloc(datalen + 1);
	ssize_t k;

	*len = 0;
	while (*len <= datalen &&
	    (k = read(p, buf + *len, datalen + 1 - *len)) > 0)
		*len += k;
	return buf;
}

#endif
