/*
 * The refusal rule: when a zero-copy call (vmsplice, splice, tee,
 * copy_file_range) that failed means "not here, not this way" rather
 * than "this descriptor failed".  A refusal is a route: the caller
 * leaves zero-copy for that pair of descriptors, from the exact byte
 * where the refused call stopped (a call that fails moves nothing), and
 * read(2)/write(2) then tell any real error in GNU's words.  Every
 * caller asks zerocopy_refused; io.c bounds the EAGAINs that no wait
 * clears (SPIN_MAX).  Which calls are made at all under a filter that
 * may kill instead is sandbox.c's.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "spate.h"
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
