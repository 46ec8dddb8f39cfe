/*
 * tap.h: the engine's unit tests: how a case is written, the TAP it
 * prints, and the checked set-up calls cases share.  tap.c runs them.
 *
 *	TEST(adds)
 *	{
 *		ok(1 + 1 == 2, "adds");
 *	}
 *
 * TEST(NAME) defines a case and registers it: tap.c's main() runs every
 * case of the file in the order they are written (or those that --run
 * names), then prints the plan.  There is no list of cases to keep:
 * a case defined is a case run.  A case checks the engine with ok().
 * What a case needs before it can check anything (a pipe, a scratch
 * file, a child) comes from the x*() calls below: when one fails the
 * machine is at fault, not the engine, so it stops the whole file with
 * "Bail out!", which t/run and prove(1) count as a failure.  Children
 * never call ok() or bail_out(): they report through their exit status,
 * which the parent checks with ok().
 *
 * A case must not depend on another case having run: --run=NAME runs
 * one alone.  What every case of a file needs goes in tap_setup(), run
 * once before the first; SIGPIPE is at its default unless it says
 * otherwise.
 *
 * Include this after defining _GNU_SOURCE.
 */
#ifndef TAP_H
#define TAP_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A case: its NAME (for --run), the LINE it is written on (the order
 * they run in), and the function that is its body. */
struct tap_case {
	const char *name;
	int line;
	void (*run)(void);
};

/*
 * Define the case NAME; the body follows, as a function's.  The
 * descriptor's address goes into the section tap_cases, an array of
 * pointers that the linker gathers from the file (bounded by its
 * __start_tap_cases and __stop_tap_cases): pointers, not the
 * descriptors themselves, because the compiler may pad a structure
 * to an alignment of its own choosing but never a pointer.
 */
#define TEST(NAME)							\
	static void test_##NAME(void);					\
	static const struct tap_case tap_case_##NAME =			\
	    { #NAME, __LINE__, test_##NAME };				\
	static const struct tap_case *const tap_entry_##NAME		\
	    __attribute__((used, section("tap_cases"),			\
	    aligned(sizeof(void *)))) = &tap_case_##NAME;		\
	static void test_##NAME(void)

/* Optional, defined by a file that needs them: tap_setup() runs before
 * its first case, tap_teardown() after its last, before the plan. */
void tap_setup(void) __attribute__((weak));
void tap_teardown(void) __attribute__((weak));

/* Report one check: COND true passes; FMT... is its title. */
void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Report one check as not made here: FMT... says why (t/run counts a
 * skip, and SPATE_NO_SKIP=1 a failure). */
void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Stop the whole test file: print "Bail out! FMT..." and exit 1. */
void bail_out(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/*
 * Bail out if the file is still running SECONDS from now (0: cancel):
 * for cases that would hang, not fail, if the engine got them wrong.
 */
void watchdog(unsigned seconds);

/*
 * The last blocks xmalloc gave: a helper child forked by a case ends
 * with _exit, its parent's blocks still allocated, and valgrind, which
 * checks a forked child's leaks too, must find them reachable.
 */
static void *volatile tap_blocks[16];
static unsigned tap_nblocks;

/* malloc(3) LEN bytes, or bail out. */
static inline void *
xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (p == NULL)
		bail_out("malloc %zu: %s", len, strerror(errno));
	tap_blocks[tap_nblocks++ % 16] = p;
	return p;
}

/* pipe2(2) with FLAGS, or bail out. */
static inline void
xpipe2(int p[2], int flags)
{
	if (pipe2(p, flags) == -1)
		bail_out("pipe2: %s", strerror(errno));
}

/* pipe(2), or bail out. */
static inline void
xpipe(int p[2])
{
	xpipe2(p, 0);
}

/* A connected pair of Unix stream sockets, or bail out. */
static inline void
xsocketpair(int s[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) == -1)
		bail_out("socketpair: %s", strerror(errno));
}

/* open(2) PATH with FLAGS, or bail out. */
static inline int
xopen(const char *path, int flags)
{
	int fd = open(path, flags, 0600);

	if (fd == -1)
		bail_out("open %s: %s", path, strerror(errno));
	return fd;
}

/* Add FLAGS (O_NONBLOCK, O_APPEND) to the status flags of FD, or bail. */
static inline void
xsetfl(int fd, int flags)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | flags) == -1)
		bail_out("fcntl F_SETFL: %s", strerror(errno));
}

/* Write LEN bytes of BUF to FD, or bail out. */
static inline void
xwrite(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			bail_out("write: %s", strerror(errno));
		p += n;
		len -= n;
	}
}

/* Where scratch files go: $TMPDIR, else the system's default. */
static inline const char *
tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d != NULL && *d != '\0' ? d : P_tmpdir;
}

/* A new, already unlinked regular file open for reading and writing,
 * or bail out. */
static inline int
xtmpfile(void)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/spate-unit.XXXXXX", tmp_dir());
	if ((fd = mkstemp(path)) == -1)
		bail_out("mkstemp %s: %s", path, strerror(errno));
	unlink(path);
	return fd;
}

/* xtmpfile() holding the LEN bytes of BUF, its offset back at 0. */
static inline int
xtmpfile_with(const void *buf, size_t len)
{
	int fd = xtmpfile();

	xwrite(fd, buf, len);
	if (lseek(fd, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	return fd;
}

/* Make a new scratch directory; its path goes in DIR (LEN bytes). */
static inline void
xtmpdir(char *dir, size_t len)
{
	if ((size_t)snprintf(dir, len, "%s/spate-unit.XXXXXX", tmp_dir()) >= len)
		bail_out("scratch directory: path too long");
	if (mkdtemp(dir) == NULL)
		bail_out("mkdtemp %s: %s", dir, strerror(errno));
}

/* fork(2), or bail out.  The child must end with _exit(2). */
static inline pid_t
xfork(void)
{
	pid_t pid;

	fflush(stdout);	/* else the child's exit may print our TAP twice */
	if ((pid = fork()) == -1)
		bail_out("fork: %s", strerror(errno));
	return pid;
}

/* Wait for child PID and return its wait status, or bail out. */
static inline int
xwait(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			bail_out("waitpid %ld: %s", (long)pid, strerror(errno));
	return st;
}

/* Wait for child PID; return 1 if it exited with status 0. */
static inline int
exited_ok(pid_t pid)
{
	int st = xwait(pid);

	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * The test data: the byte at offset I is not periodic in any power of
 * two, so that a lost or repeated page shows.
 */
static inline char
pat(size_t i)
{
	return 'a' + (i * 7 + i / 4099) % 26;
}

/* LEN bytes of the test data from offset FROM, in a new buffer. */
static inline char *
pattern(size_t from, size_t len)
{
	char *buf = xmalloc(len);
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pat(from + i);
	return buf;
}

/* Return 1 if file FD holds exactly the LEN bytes of WANT. */
static inline int
file_holds(int fd, const char *want, size_t len)
{
	char *got = xmalloc(len + 1);
	ssize_t n = pread(fd, got, len + 1, 0);
	int same = n == (ssize_t)len && memcmp(got, want, len) == 0;

	if (!same)
		printf("# file holds %zd bytes, %zu expected\n", n, len);
	free(got);
	return same;
}

#endif
