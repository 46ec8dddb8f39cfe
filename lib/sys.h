/*
 * The Linux calls behind the zero-copy paths, in one place.
 *
 * A portable build (-DSPATE_PORTABLE) compiles without them: each call
 * fails with ENOSYS, and sys_zerocopy() says 0 so the engine never tries.
 * Even if it did, every caller already falls back to read/write when its
 * first zero-copy call fails, so ENOSYS takes the same path as a kernel
 * that refuses.
 *
 * Include this after defining _GNU_SOURCE, before any system header.
 */
#ifndef SPATE_SYS_H
#define SPATE_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SPATE_PORTABLE

/* Return 1: this build has the zero-copy calls. */
static inline int
sys_zerocopy(void)
{
	return 1;
}

/* Map LEN bytes of the buffers IOV[0..N) into pipe FD (vmsplice(2)). */
static inline ssize_t
sys_vmsplice(int fd, const struct iovec *iov, unsigned long n)
{
	return vmsplice(fd, iov, n, 0);
}

/* Move up to LEN bytes from IN to OUT, one of them a pipe (splice(2));
 * with NOWAIT, a pipe not ready fails with EAGAIN (SPLICE_F_NONBLOCK). */
static inline ssize_t
sys_splice(int in, int out, size_t len, int nowait)
{
	return splice(in, NULL, out, NULL, len, nowait ? SPLICE_F_NONBLOCK : 0);
}

/* Duplicate up to LEN bytes of pipe IN into pipe OUT (tee(2)); NOWAIT
 * as for sys_splice. */
static inline ssize_t
sys_tee(int in, int out, size_t len, int nowait)
{
	return tee(in, out, len, nowait ? SPLICE_F_NONBLOCK : 0);
}

/* Copy up to LEN bytes between regular files IN and OUT, at and moving
 * their offsets (copy_file_range(2)). */
static inline ssize_t
sys_copy_range(int in, int out, size_t len)
{
	return copy_file_range(in, NULL, out, NULL, len, 0);
}

/* Return the capacity of pipe FD, or -1 with errno set. */
static inline long
sys_pipe_size(int fd)
{
	return fcntl(fd, F_GETPIPE_SZ);
}

/* Ask for pipe FD to hold SIZE bytes; return what it got, or -1. */
static inline long
sys_pipe_resize(int fd, long size)
{
	return fcntl(fd, F_SETPIPE_SZ, size);
}

#else	/* SPATE_PORTABLE */

/* Fail with ENOSYS: the portable build has no such call. */
static inline int
sys_none(void)
{
	errno = ENOSYS;
	return -1;
}

static inline int
sys_zerocopy(void)
{
	return 0;
}

static inline ssize_t
sys_vmsplice(int fd, const struct iovec *iov, unsigned long n)
{
	(void)fd, (void)iov, (void)n;
	return sys_none();
}

static inline ssize_t
sys_splice(int in, int out, size_t len, int nowait)
{
	(void)in, (void)out, (void)len, (void)nowait;
	return sys_none();
}

static inline ssize_t
sys_tee(int in, int out, size_t len, int nowait)
{
	(void)in, (void)out, (void)len, (void)nowait;
	return sys_none();
}

static inline ssize_t
sys_copy_range(int in, int out, size_t len)
{
	(void)in, (void)out, (void)len;
	return sys_none();
}

static inline long
sys_pipe_size(int fd)
{
	(void)fd;
	return sys_none();
}

static inline long
sys_pipe_resize(int fd, long size)
{
	(void)fd, (void)size;
	return sys_none();
}

#endif	/* SPATE_PORTABLE */

#endif
