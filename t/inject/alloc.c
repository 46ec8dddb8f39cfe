/*
 * alloc.c: inject.so's allocations (inject.h): calloc(3), realloc(3)
 * and mmap(2), which fail where a fault says so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

#include "inject.h"

static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);

/*
 * Find the calls that calloc, realloc and mmap below stand for: libc's,
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
	if (real_mmap == NULL)
		real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))
		    dlsym(RTLD_NEXT, "mmap");
	if (real_mmap64 == NULL)
		real_mmap64 = (void *(*)(void *, size_t, int, int, int,
		    off64_t))dlsym(RTLD_NEXT, "mmap64");
}

int
alloc_resolve(void)
{
	real_allocators();
	return real_calloc == NULL || real_realloc == NULL ||
	    real_mmap == NULL || real_mmap64 == NULL ? -1 : 0;
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

/* Where a fault says so (size=, nth=), mmap fails: return 1 with errno
 * ENOMEM.  A program built with 64-bit file offsets calls it mmap64.
 * (The loader maps what it loads with calls of its own.) */
static int
mmap_faulted(size_t len)
{
	unsigned matched;

	if (real_mmap == NULL || real_mmap64 == NULL)
		real_allocators();
	if (before_call(C_MMAP, -1, -1, len, &matched) != NULL) {
		errno = ENOMEM;
		return 1;
	}
	after_call(matched, 0);
	return 0;
}

void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap_faulted(len) ? MAP_FAILED :
	    real_mmap(addr, len, prot, flags, fd, off);
}

void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	return mmap_faulted(len) ? MAP_FAILED :
	    real_mmap64(addr, len, prot, flags, fd, off);
}
