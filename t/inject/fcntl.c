/*
 * fcntl.c: inject.so's fcntl(2) (inject.h), faked for F_SETPIPE_SZ and
 * F_GETPIPE_SZ only; fcntl64, its name under _FILE_OFFSET_BITS=64.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>

#include "inject.h"

static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);

int
fcntl_resolve(void)
{
	real_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	return real_fcntl == NULL ? -1 : 0;
}

/*
 * fcntl(2) through REAL, faked where CMD is F_SETPIPE_SZ or F_GETPIPE_SZ
 * and a fault says so.  Its third argument, where it has one, is an int
 * or a pointer: passed on as a pointer, as the C library's own wrapper
 * takes it (a word on every ABI Linux has).
 */
static int
fcntl_call(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	unsigned matched = 0;
	struct fault *f = NULL;
	int r;

	if (cmd == F_SETPIPE_SZ || cmd == F_GETPIPE_SZ)
		f = before_call(cmd == F_SETPIPE_SZ ? C_SETPIPE : C_GETPIPE,
		    fd, -1, 0, &matched);
	if (f != NULL)
		return (int)faked(f);
	r = real(fd, cmd, arg);
	after_call(matched, r);
	return r;
}

int
fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	/* Called before inject_init, by another library's constructor. */
	if (real_fcntl == NULL)
		real_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	return fcntl_call(real_fcntl, fd, cmd, arg);
}

/* What a program built with _FILE_OFFSET_BITS=64 calls for fcntl(2)
 * (glibc 2.28 and later), which only such a C library can resolve. */
int
fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (real_fcntl64 == NULL)
		real_fcntl64 = (int (*)(int, int, ...))
		    dlsym(RTLD_NEXT, "fcntl64");
	return fcntl_call(real_fcntl64, fd, cmd, arg);
}
