/* Unit tests of the engine's plain I/O: write_all, wait_fd, end_init,
 * pipe_grow_to and zerocopy_allowed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sluice.h"
#include "engine.h"
#include "tap.h"

#define BIG	(3u << 20)

/* The byte at offset I of the test pattern: not periodic in any power
 * of two, so a lost or repeated page shows. */
static char
pat(size_t i)
{
	return 'a' + (i * 7 + i / 4099) % 26;
}

static char *
pattern(size_t len)
{
	char *buf = malloc(len);
	size_t i;

	if (buf == NULL) {
		perror("malloc");
		exit(2);
	}
	for (i = 0; i < len; i++)
		buf[i] = pat(i);
	return buf;
}

/*
 * Fork a reader of FD (closing OTHER, the pipe's write end, so that it
 * sees end of file when the parent closes its own) that waits DELAY_MS, then reads with CHUNK-byte
 * reads to end of file, skips SKIP bytes of filler and checks that the
 * rest is exactly LEN bytes of the pattern; its exit status says so
 * (0 = all good).
 */
static pid_t
reader(int fd, int other, size_t skip, size_t len, size_t chunk, int delay_ms)
{
	pid_t pid = fork();
	char *buf;
	size_t got = 0, i;
	ssize_t n;

	if (pid != 0)
		return pid;
	close(other);
	if (delay_ms > 0)
		usleep(delay_ms * 1000);
	if ((buf = malloc(chunk)) == NULL)
		_exit(3);
	while ((n = read(fd, buf, chunk)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			_exit(4);
		}
		for (i = 0; i < (size_t)n; i++, got++) {
			if (got < skip)
				continue;
			if (got - skip >= len || buf[i] != pat(got - skip))
				_exit(5);
		}
	}
	_exit(got == skip + len ? 0 : 6);
}

/* Wait for PID; return 1 if it exited with status 0. */
static int
reaped_ok(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void
test_write_all_slow_reader(void)
{
	char *buf = pattern(BIG);
	int p[2], r;
	pid_t pid;

	if (pipe(p) == -1) {
		ok(0, "write_all: pipe: %s", strerror(errno));
		return;
	}
	pid = reader(p[0], p[1], 0, BIG, 1000, 50);
	close(p[0]);
	r = write_all(p[1], buf, BIG);
	close(p[1]);
	ok(r == 0 && reaped_ok(pid),
	    "write_all: 3 MiB through a pipe to a slow reader");
	free(buf);
}

static void
test_write_all_odd_sizes(void)
{
	size_t sizes[] = { 1, 4095, 4097, 65537, 1000003 };
	char *buf = pattern(1000003);
	size_t i;
	int good = 1;

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		int p[2], r;
		pid_t pid;

		if (pipe(p) == -1) {
			good = 0;
			break;
		}
		pid = reader(p[0], p[1], 0, sizes[i], 7, 0);
		close(p[0]);
		r = write_all(p[1], buf, sizes[i]);
		close(p[1]);
		good &= r == 0 && reaped_ok(pid);
	}
	ok(good, "write_all: odd sizes read 7 bytes at a time");
	free(buf);
}

/* Fill the non-blocking pipe FD until it would block. */
static size_t
fill(int fd)
{
	static char junk[4096];
	size_t total = 0;
	ssize_t n;

	while ((n = write(fd, junk, sizeof junk)) > 0)
		total += n;
	return total;
}

static void
test_write_all_nonblock_full(void)
{
	char *buf = pattern(BIG);
	int p[2], r, full;
	size_t junk;
	pid_t pid;

	if (pipe(p) == -1 || fcntl(p[1], F_SETFL, O_NONBLOCK) == -1) {
		ok(0, "write_all: non-blocking pipe: %s", strerror(errno));
		return;
	}
	junk = fill(p[1]);
	full = junk > 0 && errno == EAGAIN;
	pid = reader(p[0], p[1], junk, BIG, 65536, 100);
	close(p[0]);
	r = write_all(p[1], buf, BIG);
	close(p[1]);
	ok(full && r == 0 && reaped_ok(pid),
	    "write_all: a full non-blocking pipe waits, then all bytes "
	    "arrive");
	free(buf);
}

static void
test_write_all_ebadf(void)
{
	int p[2], r, e;

	if (pipe(p) == -1) {
		ok(0, "write_all: pipe: %s", strerror(errno));
		return;
	}
	close(p[0]);
	close(p[1]);
	errno = 0;
	r = write_all(p[1], "abc", 3);
	e = errno;
	ok(r == -1 && e == EBADF, "write_all: closed fd gives -1 EBADF");
	errno = 0;
	r = write_all(p[0] + 1000, "abc", 3);
	e = errno;
	ok(r == -1 && e == EBADF, "write_all: never-opened fd gives EBADF");
}

static void
test_write_all_read_only(void)
{
	int fd = open("/dev/null", O_RDONLY), r, e;

	errno = 0;
	r = write_all(fd, "abc", 3);
	e = errno;
	ok(fd >= 0 && r == -1 && e == EBADF,
	    "write_all: read-only fd gives -1 EBADF");
	close(fd);
}

static void
test_write_all_epipe(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int p[2], r, e;

	if (pipe(p) == -1) {
		ok(0, "write_all: pipe: %s", strerror(errno));
		return;
	}
	sigaction(SIGPIPE, &ign, &old);
	close(p[0]);
	errno = 0;
	r = write_all(p[1], "abc", 3);
	e = errno;
	sigaction(SIGPIPE, &old, NULL);
	close(p[1]);
	ok(r == -1 && e == EPIPE,
	    "write_all: no reader, SIGPIPE ignored: -1 EPIPE");
}

static void
test_write_all_zero(void)
{
	int p[2], r;
	char c;

	if (pipe2(p, O_NONBLOCK) == -1) {
		ok(0, "write_all: pipe2: %s", strerror(errno));
		return;
	}
	r = write_all(p[1], "abc", 0);
	ok(r == 0 && read(p[0], &c, 1) == -1 && errno == EAGAIN,
	    "write_all: zero bytes writes nothing, returns 0");
	close(p[0]);
	close(p[1]);
}

static void
test_write_all_file(void)
{
	char path[] = "/tmp/sluice-test-io.XXXXXX";
	char *buf = pattern(1000003), *back = malloc(1000003);
	int fd = mkstemp(path);
	int good;

	if (fd == -1 || back == NULL) {
		ok(0, "write_all: mkstemp: %s", strerror(errno));
		free(buf);
		free(back);
		return;
	}
	unlink(path);
	good = write_all(fd, buf, 1000003) == 0 &&
	    pread(fd, back, 1000003, 0) == 1000003 &&
	    memcmp(buf, back, 1000003) == 0 &&
	    lseek(fd, 0, SEEK_END) == 1000003;
	ok(good, "write_all: a regular file gets every byte");
	close(fd);
	free(buf);
	free(back);
}

static void
test_wait_ready(void)
{
	int p[2], r1, r2;

	if (pipe(p) == -1) {
		ok(0, "wait_fd: pipe: %s", strerror(errno));
		return;
	}
	r1 = wait_fd(p[1], POLLOUT);
	r2 = write(p[1], "x", 1) == 1 ? wait_fd(p[0], POLLIN) : -1;
	ok(r1 == 0 && r2 == 0,
	    "wait_fd: an empty pipe is writable, one with data readable");
	close(p[0]);
	close(p[1]);
}

static void
test_wait_full_then_drained(void)
{
	int p[2], r;
	pid_t pid;

	if (pipe2(p, O_NONBLOCK) == -1) {
		ok(0, "wait_fd: pipe2: %s", strerror(errno));
		return;
	}
	fill(p[1]);
	pid = fork();
	if (pid == 0) {
		char buf[65536];

		usleep(100 * 1000);
		while (read(p[0], buf, sizeof buf) > 0)
			;
		_exit(0);
	}
	r = wait_fd(p[1], POLLOUT);
	ok(r == 0 && write(p[1], "x", 1) == 1,
	    "wait_fd: a full pipe waits until the reader makes room");
	close(p[0]);
	close(p[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static volatile sig_atomic_t got_usr1;

static void
on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void
test_wait_eintr(void)
{
	/* No SA_RESTART: poll(2) fails with EINTR if the signal lands. */
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	pid_t parent = getpid(), pid;
	int p[2], r;
	char c = 0;

	if (pipe(p) == -1) {
		ok(0, "wait_fd: pipe: %s", strerror(errno));
		return;
	}
	sigaction(SIGUSR1, &sa, &old);
	got_usr1 = 0;
	pid = fork();
	if (pid == 0) {
		usleep(50 * 1000);
		kill(parent, SIGUSR1);
		usleep(50 * 1000);
		_exit(write(p[1], "z", 1) == 1 ? 0 : 1);
	}
	r = wait_fd(p[0], POLLIN);
	ok(r == 0 && got_usr1 && read(p[0], &c, 1) == 1 && c == 'z',
	    "wait_fd: a signal does not end the wait early");
	reaped_ok(pid);
	sigaction(SIGUSR1, &old, NULL);
	close(p[0]);
	close(p[1]);
}

/* Return the kind of FD, as end_init describes it. */
static int
kind_of(int fd)
{
	struct end e;

	end_init(&e, fd);
	return e.kind;
}

static void
test_fdkind_pipe(void)
{
	int p[2];

	if (pipe(p) == -1) {
		ok(0, "end_init: pipe: %s", strerror(errno));
		return;
	}
	ok(kind_of(p[0]) == K_PIPE && kind_of(p[1]) == K_PIPE,
	    "end_init: both ends of a pipe are K_PIPE");
	close(p[0]);
	close(p[1]);
}

static void
test_fdkind_fifo(void)
{
	char dir[] = "/tmp/sluice-test-io.XXXXXX", path[64];
	int fd = -1, k = -2;

	if (mkdtemp(dir) != NULL) {
		snprintf(path, sizeof path, "%s/fifo", dir);
		if (mkfifo(path, 0600) == 0 &&
		    (fd = open(path, O_RDWR)) != -1)
			k = kind_of(fd);
		unlink(path);
		rmdir(dir);
	}
	ok(k == K_PIPE, "end_init: a FIFO is K_PIPE");
	if (fd != -1)
		close(fd);
}

static void
test_fdkind_file(void)
{
	char path[] = "/tmp/sluice-test-io.XXXXXX";
	int fd = mkstemp(path);

	if (fd != -1)
		unlink(path);
	ok(fd != -1 && kind_of(fd) == K_FILE,
	    "end_init: a regular file is K_FILE");
	if (fd != -1)
		close(fd);
}

static void
test_fdkind_devnull(void)
{
	int fd = open("/dev/null", O_WRONLY);

	ok(fd != -1 && kind_of(fd) == K_OTHER,
	    "end_init: /dev/null is K_OTHER");
	if (fd != -1)
		close(fd);
}

static void
test_fdkind_socket(void)
{
	int s[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, s) == -1) {
		ok(0, "end_init: socketpair: %s", strerror(errno));
		return;
	}
	ok(kind_of(s[0]) == K_SOCKET && kind_of(s[1]) == K_SOCKET,
	    "end_init: a socketpair is K_SOCKET");
	close(s[0]);
	close(s[1]);
}

static void
test_fdkind_dir(void)
{
	int fd = open(".", O_RDONLY | O_DIRECTORY);

	ok(fd != -1 && kind_of(fd) == K_OTHER,
	    "end_init: a directory is K_OTHER");
	if (fd != -1)
		close(fd);
}

static void
test_fdkind_badfd(void)
{
	int fd = dup(0);

	if (fd != -1)
		close(fd);
	ok(kind_of(fd == -1 ? 1000 : fd) == K_OTHER,
	    "end_init: a closed fd is K_OTHER (read/write reports it)");
}

#ifndef SLUICE_PORTABLE
static void
test_pipe_grow_size(void)
{
	int p[2];
	long before, got, after;

	if (pipe(p) == -1) {
		ok(0, "pipe_grow_to: pipe: %s", strerror(errno));
		return;
	}
	before = fcntl(p[1], F_GETPIPE_SZ);
	got = pipe_grow_to(p[1], 1L << 20);
	after = fcntl(p[1], F_GETPIPE_SZ);
	ok(got > 0 && got == after && got >= before,
	    "pipe_grow_to: returns the size F_GETPIPE_SZ then reports "
	    "(%ld -> %ld, reported %ld)", before, got, after);
	got = pipe_grow_to(p[0], 1L << 20);
	after = fcntl(p[0], F_GETPIPE_SZ);
	ok(got > 0 && got == after,
	    "pipe_grow_to: the read end works too, and again is harmless");
	close(p[0]);
	close(p[1]);
}

static void
test_pipe_grow_never_shrinks(void)
{
	int p[2];
	long big, got;

	if (pipe(p) == -1) {
		ok(0, "pipe_grow_to: pipe: %s", strerror(errno));
		return;
	}
	/* Over pipe-max-size this needs root; without it, start small. */
	big = fcntl(p[1], F_SETPIPE_SZ, 4L << 20);
	if (big == -1)
		big = fcntl(p[1], F_SETPIPE_SZ, 4096);
	got = pipe_grow_to(p[1], 1L << 20);
	ok(big > 0 && got >= big && got == fcntl(p[1], F_GETPIPE_SZ),
	    "pipe_grow_to: a pipe of %ld bytes is not shrunk (now %ld)",
	    big, got);
	close(p[0]);
	close(p[1]);
}

static void
test_pipe_grow_not_pipe(void)
{
	int fd = open("/dev/null", O_WRONLY);
	long r;

	errno = 0;
	r = pipe_grow_to(fd, 1L << 20);
	ok(fd != -1 && r == -1 && errno != 0,
	    "pipe_grow_to: not a pipe gives -1 with errno set");
	if (fd != -1)
		close(fd);
	errno = 0;
	r = pipe_grow_to(-1, 1L << 20);
	ok(r == -1 && errno == EBADF, "pipe_grow_to: bad fd gives -1 EBADF");
}

static void
test_zerocopy_allowed(void)
{
	unsetenv("SLUICE_ZEROCOPY");
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: unset -> 1");
	setenv("SLUICE_ZEROCOPY", "0", 1);
	ok(zerocopy_allowed() == 0, "zerocopy_allowed: 0 -> 0");
	setenv("SLUICE_ZEROCOPY", "1", 1);
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: 1 -> 1");
	setenv("SLUICE_ZEROCOPY", "", 1);
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: empty -> 1");
	unsetenv("SLUICE_ZEROCOPY");
}
#else
/* The portable build (make PORTABLE=1) never tries zero-copy. */
static void
test_portable(void)
{
	int p[2];

	unsetenv("SLUICE_ZEROCOPY");
	ok(zerocopy_allowed() == 0, "portable: zerocopy_allowed -> 0");
	if (pipe(p) == -1) {
		ok(0, "portable: pipe: %s", strerror(errno));
		return;
	}
	errno = 0;
	ok(pipe_grow_to(p[1], 1L << 20) == -1 && errno == ENOSYS,
	    "portable: pipe_grow_to gives -1 ENOSYS");
	close(p[0]);
	close(p[1]);
}
#endif

int
main(void)
{
	/* The runner may start us with SIGPIPE ignored; default it. */
	signal(SIGPIPE, SIG_DFL);
	test_write_all_slow_reader();
	test_write_all_odd_sizes();
	test_write_all_nonblock_full();
	test_write_all_ebadf();
	test_write_all_read_only();
	test_write_all_epipe();
	test_write_all_zero();
	test_write_all_file();
	test_wait_ready();
	test_wait_full_then_drained();
	test_wait_eintr();
	test_fdkind_pipe();
	test_fdkind_fifo();
	test_fdkind_file();
	test_fdkind_devnull();
	test_fdkind_socket();
	test_fdkind_dir();
	test_fdkind_badfd();
#ifndef SLUICE_PORTABLE
	test_pipe_grow_size();
	test_pipe_grow_never_shrinks();
	test_pipe_grow_not_pipe();
	test_zerocopy_allowed();
#else
	test_portable();
#endif
	return done();
}
