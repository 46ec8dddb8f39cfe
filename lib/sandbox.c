/*
 * Whether a seccomp filter is in force, and so whether the engine keeps
 * to the system calls GNU 9.11 makes for the same work (doc/design.md,
 * "Under a seccomp filter").  A filter may kill for any call it was not
 * told of, and no process can ask it for a verdict; a call GNU's
 * commands make is one every filter that runs them lets through.  So
 * the engine makes no call to find out but reads, and never creates a
 * process or, under a filter, a thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"

/* What is known: one value, moved only from FILTER_NONE to
 * FILTER_IN_FORCE (a filter is never taken off a thread). */
enum filter {
	FILTER_NONE = 0,
	FILTER_IN_FORCE = 1
};

static int known = FILTER_NONE;

/*
 * Scan the N bytes of BUF, a part of a status file, for the value of
 * its "Seccomp:" line; *AT is where the scan stands between parts
 * (0: at a line's start; k > 0: k bytes of the key matched; -1: in a
 * line that is not it; -2: past the key, before its value).  Return
 * the value's first character, or 0 if this part does not hold it.
 * A line of any length (a "Groups:" line of 65536 groups) passes
 * through: nothing is kept of it.
 */
static int
scan_status(const char *buf, size_t n, int *at)
{
	static const char key[] = "Seccomp:";
	size_t i;

	for (i = 0; i < n; i++) {
		char ch = buf[i];

		if (ch == '\n')
			*at = 0;
		else if (*at == -2) {
			if (ch != ' ' && ch != '\t')
				return ch;
		} else if (*at >= 0) {
			if (ch != key[*at])
				*at = -1;
			else if (key[++*at] == '\0')
				*at = -2;
		}
	}
	return 0;
}

/*
 * Return what status file PATH says of this thread's filter:
 * FILTER_NONE (0: "Seccomp:\t0", or no such line, a kernel without
 * seccomp), FILTER_IN_FORCE (1), or -1 if the file cannot be read
 * whole.  It is read as far as the line, however many supplementary
 * groups come before it.  open, read and close are calls every cat
 * makes.
 */
int
sandbox_status(const char *path)
{
	char buf[1024];
	int fd = open(path, O_RDONLY | O_CLOEXEC), at = 0, v = 0;
	ssize_t n;

	if (fd == -1)
		return -1;
	while (v == 0 && ((n = read(fd, buf, sizeof buf)) > 0 ||
	    (n == -1 && errno == EINTR)))
		if (n > 0)
			v = scan_status(buf, (size_t)n, &at);
	close(fd);
	if (v == 0)
		return n == 0 ? FILTER_NONE : -1;
	return v == '0' ? FILTER_NONE : FILTER_IN_FORCE;
}

/*
 * Return whether a filter is in force on this thread.  The thread's own
 * status first (a filter may be on one thread alone), the process's on
 * kernels before 3.17.  Where neither can be read (no /proc mounted: a
 * chroot, `unshare -m`), prctl(2) says: 2 is a filter, and a failure
 * other than EINVAL (a kernel without seccomp) is one that refuses the
 * question.  That is the one call here that GNU does not make, and only
 * where /proc is missing: a filter that kills for prctl(2) in a process
 * without /proc is the case given up (doc/design.md).
 */
static int
look(void)
{
	int r;

	if ((r = sandbox_status("/proc/thread-self/status")) == -1 &&
	    (r = sandbox_status("/proc/self/status")) == -1) {
		r = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
		r = r == 0 || (r == -1 && errno == EINVAL) ? FILTER_NONE :
		    FILTER_IN_FORCE;
	}
	return r;
}

/* Return 1 if SPATE_SECCOMP=trust: the user says their filter refuses
 * with errors, and wants the whole engine under it. */
static int
trusted(void)
{
	const char *v = getenv("SPATE_SECCOMP");

	return v != NULL && strcmp(v, "trust") == 0;
}

/*
 * Look again whether a filter is in force, at the start of each
 * operation of the API (a program may install one between two): once
 * one is, it stays.  Keeps errno.
 */
void
sandbox_look(void)
{
	int e = errno;

	if (__atomic_load_n(&known, __ATOMIC_RELAXED) == FILTER_NONE &&
	    look() == FILTER_IN_FORCE)
		__atomic_store_n(&known, FILTER_IN_FORCE, __ATOMIC_RELAXED);
	errno = e;
}

/*
 * Return 1 if the engine is to make only the calls GNU 9.11 makes for
 * the same work: a filter was in force at the last sandbox_look, and
 * SPATE_SECCOMP is not "trust".
 */
int
gnu_calls(void)
{
	return __atomic_load_n(&known, __ATOMIC_RELAXED) == FILTER_IN_FORCE &&
	    !trusted();
}

int
spate_gnu_calls(void)
{
	sandbox_look();
	return gnu_calls();
}
