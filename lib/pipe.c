/*
 * Pipe sizing: a pipe's capacity, and its growth, once, to PIPE_MAX (or
 * what is granted) when a fast stream warrants it.  Callers grow only
 * output pipes and the engine's private ones, never an input pipe: it
 * is its writer's.  Why no sooner and no bigger (each user's pipes share
 * one budget): doc/design.md, "Pipes".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <time.h>

#include "sys.h"
#include "engine.h"

/*
 * The traffic that warrants growth: 4 MiB within one second.  A log
 * trickling through tee never gets there; a bulk copy does within
 * milliseconds, and its remaining gigabytes run with the big pipe.
 */
#define GROW_BYTES	(4L << 20)
#define GROW_MS		1000

/*
 * Return the capacity of pipe E, asking once; Linux's default, 64 KiB,
 * if it cannot be asked.
 */
long
pipe_size(struct end *e)
{
	long n;

	if (e->size == 0)
		e->size = (n = sys_pipe_size(e->fd)) > 0 ? n : 65536;
	return e->size;
}

/*
 * Ask for pipe FD to hold WANT bytes, halving on EPERM (over
 * pipe-max-size or the user's quota) and ENOMEM.  Return the size it
 * has afterwards, or -1 if it cannot be known.
 */
long
pipe_grow_to(int fd, long want)
{
	long have = sys_pipe_size(fd);

	for (; have != -1 && want > have; want /= 2) {
		long got = sys_pipe_resize(fd, want);

		if (got != -1)
			return got;
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	return have;
}

/* Milliseconds on a monotonic clock (the coarse one: a vDSO read). */
long long
clock_ms(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &t) == -1)
		return 0;
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * Zero-copy just moved N bytes through pipe E: return 1, once, when the
 * traffic has come to warrant a big pipe (see GROW_BYTES).  The clock is
 * read twice per 4 MiB.
 */
int
pipe_warranted(struct end *e, size_t n)
{
	long long t;

	if (!traits(e)->pipe || e->grown)
		return 0;
	if (e->carried == 0)
		e->since = clock_ms();
	e->carried += n;
	if (e->carried < GROW_BYTES)
		return 0;
	t = clock_ms();
	if (t - e->since > GROW_MS) {
		e->carried = 0;
		return 0;
	}
	e->grown = 1;
	return 1;
}

/*
 * The stream has reached POS: return 1 when a second (GROW_MS) has gone
 * by in which it moved less than a quarter of what warrants a pipe's
 * growth: what was grown for it is to be given back, as it would not
 * have been grown.  P keeps where that second started; the clock is
 * read once a call (the coarse one).
 */
int
pace_slow(struct pace *p, off_t pos)
{
	long long t = clock_ms();
	int slow;

	if (p->ms == 0 || t - p->ms < GROW_MS) {
		if (p->ms == 0) {
			p->ms = t;
			p->pos = pos;
		}
		return 0;
	}
	slow = pos - p->pos < GROW_BYTES / 4;
	p->ms = t;
	p->pos = pos;
	return slow;
}

/* Zero-copy just moved N bytes into pipe E, an output or a private
 * pipe: grow it to PIPE_MAX, or what is granted, once the traffic
 * warrants it. */
void
pipe_carried(struct end *e, size_t n)
{
	long got;

	if (pipe_warranted(e, n) && (got = pipe_grow_to(e->fd, PIPE_MAX)) > 0)
		e->size = got;
}

/* Set the size of pipe E to SIZE, smaller or bigger; return 0, or -1
 * with errno set (EBUSY: it holds more than that). */
int
pipe_resize(struct end *e, long size)
{
	long got = sys_pipe_resize(e->fd, size);

	if (got == -1)
		return -1;
	e->size = got;
	return 0;
}
