/*
 * The refusal rule: when a zero-copy call (vmsplice, splice, tee,
 * copy_file_range) that failed means "not here, not this way" rather
 * than "this descriptor failed", and whether a call may be made at all
 * where a sandbox kills for it.  A refusal is a route: the caller
 * leaves zero-copy for that pair of descriptors, from the exact byte
 * where the refused call stopped (a call that fails moves nothing), and
 * read(2)/write(2) then tell any real error in GNU's words.  Every
 * caller asks zerocopy_refused; io.c asks call_permitted before each
 * zero-copy call and bounds the EAGAINs that no wait clears (SPIN_MAX).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spate.h"
#include "sys.h"
#include "engine.h"

/*
 * Return 1 if ERR from zero-copy call OP names no condition of a real
 * descriptor that read(2) or write(2) would not meet again, and tell
 * in their own words:
 *
 *	EPERM, EACCES	a seccomp filter or an LSM refuses the call
 *			(container profiles, systemd's SystemCallFilter=
 *			with SystemCallErrorNumber=); vmsplice, splice and
 *			tee have no such error of their own.  For
 *			copy_file_range, EPERM is also an immutable or
 *			swap output: write(2) then says so itself; and
 *			EACCES is the input's error, as GNU's cat (9.1
 *			and 9.11) tells it, not a refusal.
 *	ENOSYS		a kernel or a filter without the call (the
 *			portable build's calls say it too)
 *	EINVAL		the pair does not serve it: an O_APPEND output,
 *			a device that takes no splice (/dev/full since
 *			5.10), a file system without splice_read or
 *			splice_write, both ends one pipe
 *	EOPNOTSUPP	a file system or socket that has no such copy
 *	EXDEV		copy_file_range across file systems (before 5.3,
 *			and since 5.19 between different types)
 *	ENOMEM		the kernel could not pin or map the pages it
 *			would share: a copy through our own buffer needs
 *			none
 *	EBADF, ETXTBSY	copy_file_range only: an O_APPEND output, a swap
 *			or running file, which write(2) judges as GNU's
 *			read/write path does (splice's EBADF is a
 *			descriptor opened the wrong way, which read(2)
 *			or write(2) would say too)
 */
static int
is_refusal(enum io_op op, int err)
{
	switch (err) {
	case EACCES:
		return op != IO_COPY_RANGE;
	case EPERM:
	case ENOSYS:
	case EINVAL:
	case EOPNOTSUPP:
#if ENOTSUP != EOPNOTSUPP
	case ENOTSUP:
#endif
	case EXDEV:
	case ENOMEM:
		return 1;
	case EBADF:
	case ETXTBSY:
		return op == IO_COPY_RANGE;
	default:
		return 0;
	}
}

/*
 * Return 1 if the zero-copy call C failed because it does not serve its
 * pair of descriptors here (is_refusal, or EAGAIN that no wait cleared:
 * C->spun), at whatever point of the stream: the caller then moves the
 * rest by read/write, from where C stopped.  A failed wait (C->waiting),
 * or one its caller gave up (C->gave_up), is never a refusal.  Reads
 * errno.
 */
int
zerocopy_refused(const struct io_call *c)
{
	if (c->waiting || c->gave_up || !io_zerocopy(c->op))
		return 0;
	return c->spun || is_refusal(c->op, errno);
}

/* What is known of a zero-copy call in this process (call_permitted). */
enum permit {
	PERMIT_UNKNOWN,
	PERMIT_YES,
	PERMIT_KILLS		/* a seccomp filter kills for it */
};

/* Per zero-copy call (io_zerocopy), indexed by its op.  Any thread may
 * find out; all find the same. */
static int permits[IO_COPY_RANGE + 1];

/* Whether a filter is in force at all: -1 not known yet, 0 none, 1 one
 * (no_filter, once a process). */
static int filtered = -1;

/*
 * Return 1 if /proc/self/status says no seccomp filter is in force
 * ("Seccomp:\t0", or no such line: a kernel without seccomp).  A file
 * that cannot be read says nothing: then a filter is assumed, and the
 * calls are probed.  open, read and close are calls every cat makes.
 */
static int
no_filter(void)
{
	char buf[2048], *s;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The line comes before the 2 KiB read ends on every kernel
	 * that has it; a status cut short without it says nothing. */
	if ((s = strstr(buf, "\nSeccomp:")) == NULL)
		return n < (ssize_t)sizeof buf - 1;
	s += strlen("\nSeccomp:");
	s += strspn(s, " \t");
	return *s == '0';
}

/*
 * Make call OP once in a child, on a pipe of its own (splice and tee from
 * a pipe into itself, copy_file_range between two pipes: the kernel says
 * EINVAL; vmsplice puts a byte in it), and return 1 if the child lived
 * through it: a filter checks the call's number before its arguments.
 * Real descriptors, not -1, so that a tool that checks descriptors
 * before the kernel does (valgrind) makes the call too.  A child that
 * cannot be made, or cannot make its pipe, counts as a death:
 * read/write never needs the call.
 */
static int
survives(enum io_op op)
{
	char byte = 'y';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	int status, p[2];
	pid_t pid = fork();

	if (pid == -1)
		return 0;
	if (pid == 0) {
		if (pipe(p) == -1)
			_exit(1);
		switch (op) {
		case IO_VMSPLICE:
			sys_vmsplice(p[1], &iov, 1);
			break;
		case IO_SPLICE:
			sys_splice(p[0], p[1], 1, 1);
			break;
		case IO_TEE:
			sys_tee(p[0], p[1], 1, 1);
			break;
		default:
			sys_copy_range(p[0], p[1], 1);
			break;
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Return 1 if zero-copy call OP may be made: no seccomp filter is in
 * force, or one is and a child made the call and lived.  A filter whose
 * action kills (systemd's SystemCallFilter= without
 * SystemCallErrorNumber=) would end the process at the call, where
 * read/write would have done the work.  Found out once a call, at its
 * first use: a process that never reaches zero-copy never looks, and
 * one with no filter pays one read of /proc/self/status.  Keeps errno.
 */
int
call_permitted(enum io_op op)
{
	int p = __atomic_load_n(&permits[op], __ATOMIC_RELAXED);
	int e = errno;

	if (p != PERMIT_UNKNOWN)
		return p == PERMIT_YES;
	if (__atomic_load_n(&filtered, __ATOMIC_RELAXED) == -1)
		__atomic_store_n(&filtered, !no_filter(), __ATOMIC_RELAXED);
	p = __atomic_load_n(&filtered, __ATOMIC_RELAXED) == 0 ||
	    survives(op) ? PERMIT_YES : PERMIT_KILLS;
	__atomic_store_n(&permits[op], p, __ATOMIC_RELAXED);
	errno = e;
	return p == PERMIT_YES;
}
