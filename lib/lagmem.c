/*
 * The chunks of the fan-out with a lag: their memory, mapped for each
 * chunk and given back to the system once every output given it has
 * written it, but for a few kept for the next reads; and an output's
 * queue of them, let go.  Called with the lag's lock held (lib/lag.h).
 * doc/design.md, "Fan-out", "With a lag".
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lag.h"

/* Chunks kept for reuse once written; the others are unmapped. */
#define LAG_SPARE	2

/*
 * A chunk of CAP bytes, LAG_CHUNK or more (one record that needs more),
 * for N outputs: mapped, so that it is given back to the system when
 * freed.  Nothing shared is touched: called without the lock.  NULL if
 * memory is short.
 */
static struct lag_chunk *
map_chunk(size_t n, size_t cap)
{
	struct lag_chunk *c;

	assert(cap >= LAG_CHUNK);
	if ((c = calloc(1, sizeof *c + n * sizeof(struct lag_chunk *))) ==
	    NULL)
		return NULL;
	c->cap = cap;
	if ((c->data = mmap(NULL, cap, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED) {
		free(c);
		return NULL;
	}
	return c;
}

/* Give chunk C back to the system. */
static void
unmap_chunk(struct lag_chunk *c)
{
	munmap(c->data, c->cap);
	free(c);
}

/* Make C empty, with one reference, starting at L's stream's end. */
static void
reset_chunk(struct lag *l, struct lag_chunk *c)
{
	c->len = 0;
	c->sealed = 0;
	c->refs = 1;
	c->at = l->in;
	memset(c->next, 0, l->n * sizeof(struct lag_chunk *));
}

/*
 * L's next chunk, CAP bytes at least (LAG_CHUNK, or a record's length
 * if more), empty, with one reference (the reader's), starting at the
 * stream's end: a spare, or one mapped without the lock (held when
 * called, and on return), or if memory is short, a spare that an output
 * gave back meanwhile.  NULL if memory is short.
 */
struct lag_chunk *
lagmem_chunk(struct lag *l, size_t cap)
{
	struct lag_chunk *c = NULL;

	if (cap != LAG_CHUNK || l->spares == NULL) {
		pthread_mutex_unlock(&l->lock);
		c = map_chunk(l->n, cap);
		pthread_mutex_lock(&l->lock);
	}
	if (c == NULL && cap == LAG_CHUNK && l->spares != NULL) {
		c = l->spares;
		l->spares = c->spare;
		l->nspare--;
	}
	if (c == NULL)
		return NULL;
	reset_chunk(l, c);
	return c;
}

/* One of C's references is let go: the last one gives it back. */
void
lagmem_unref(struct lag *l, struct lag_chunk *c)
{
	assert(c->refs > 0);
	if (--c->refs > 0)
		return;
	if (c->cap == LAG_CHUNK && l->nspare < LAG_SPARE) {
		c->spare = l->spares;
		l->spares = c;
		l->nspare++;
	} else
		unmap_chunk(c);
}

/* Let go of output O's queue, but the chunk its thread writes from. */
void
lagmem_drain(struct lag *l, struct lag_out *o)
{
	struct lag_chunk *keep = o->writing ? o->head : NULL;
	struct lag_chunk *c = keep != NULL ? keep->next[o->k] : o->head, *next;

	for (; c != NULL; c = next) {
		next = c->next[o->k];
		lagmem_unref(l, c);
	}
	if (keep != NULL)
		keep->next[o->k] = NULL;
	o->head = o->tail = keep;
	o->held = 0;
}

/* Give L's spare chunks back to the system: L is being freed. */
void
lagmem_free(struct lag *l)
{
	struct lag_chunk *c;

	while ((c = l->spares) != NULL) {
		l->spares = c->spare;
		unmap_chunk(c);
	}
	l->nspare = 0;
}
