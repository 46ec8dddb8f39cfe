/*
 * alloc.c: inject.so's allocations (inject.h): calloc(3) and
 * realloc(3), which fail where a fault says so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "inject.h"

static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);

/*
 * Find the allocators that calloc and realloc below stand for: libc's,
 * or a sanitizer's.  They may be called before inject_init, by another
 * library's constructor.  No allocation is faulted before the faults
 * are read, and dlsym(3) allocates nothing on success.
 */
static void
real_allocators(void)
{
	if (real_calloc == NULL)
		real_calloc = (void *(*)(size_t, size_t))
		    dlsym(RTLD_NEXT, "calloc");
	if (real_realloc == NULL)
		real_realloc = (void *(*)(void *, size_t))
		    dlsym(RTLD_NEXT, "realloc");
}

int
alloc_resolve(void)
{
	real_allocators();
	return real_calloc == NULL || real_realloc == NULL ? -1 : 0;
}

/* Where a fault says so (size=, nth=), calloc and realloc fail: NULL,
 * errno ENOMEM.  An allocation is never counted as EAGAIN. */
void *
calloc(size_t n, size_t size)
{
	unsigned matched;
	struct fault *f;

	if (real_calloc == NULL)
		real_allocators();
	f = before_call(C_CALLOC, -1, -1,
	    size != 0 && n > (size_t)-1 / size ? (size_t)-1 : n * size,
	    &matched);
	if (f != NULL) {
		errno = ENOMEM;
		return NULL;
	}
	after_call(matched, 0);
	return real_calloc(n, size);
}

void *
realloc(void *p, size_t size)
{
	unsigned matched;
	struct fault *f;

	if (real_realloc == NULL)
		real_allocators();
	f = before_call(C_REALLOC, -1, -1, size, &matched);
	if (f != NULL) {
		errno = ENOMEM;
		return NULL;
	}
	after_call(matched, 0);
	return real_realloc(p, size);
}
