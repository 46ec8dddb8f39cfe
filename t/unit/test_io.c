/* Unit tests of lib/io.c's calls as the engine uses them: write_all,
 * read_some, read_exact, wait_fd and wait_either.  The retry policy
 * itself, io_move, is test_retry.c's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define BIG	(3u << 20)

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
	pid_t pid = xfork();
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

TEST(write_all_slow_reader)
{
	char *buf = pattern(0, BIG);
	int p[2], r;
	pid_t pid;

	xpipe(p);
	pid = reader(p[0], p[1], 0, BIG, 1000, 50);
	close(p[0]);
	r = write_all(p[1], buf, BIG);
	close(p[1]);
	ok(r == 0 && exited_ok(pid),
	    "write_all: 3 MiB through a pipe to a slow reader");
	free(buf);
}

TEST(write_all_odd_sizes)
{
	size_t sizes[] = { 1, 4095, 4097, 65537, 1000003 };
	char *buf = pattern(0, 1000003);
	size_t i;
	int good = 1;

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		int p[2], r;
		pid_t pid;

		xpipe(p);
		pid = reader(p[0], p[1], 0, sizes[i], 7, 0);
		close(p[0]);
		r = write_all(p[1], buf, sizes[i]);
		close(p[1]);
		good &= r == 0 && exited_ok(pid);
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

TEST(write_all_nonblock_full)
{
	char *buf = pattern(0, BIG);
	int p[2], r, full;
	size_t junk;
	pid_t pid;

	xpipe(p);
	xsetfl(p[1], O_NONBLOCK);
	junk = fill(p[1]);
	full = junk > 0 && errno == EAGAIN;
	pid = reader(p[0], p[1], junk, BIG, 65536, 100);
	close(p[0]);
	r = write_all(p[1], buf, BIG);
	close(p[1]);
	ok(full && r == 0 && exited_ok(pid),
	    "write_all: a full non-blocking pipe waits, then all bytes "
	    "arrive");
	free(buf);
}

TEST(write_all_ebadf)
{
	int p[2], r, e;

	xpipe(p);
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

TEST(write_all_read_only)
{
	int fd = xopen("/dev/null", O_RDONLY), r, e;

	errno = 0;
	r = write_all(fd, "abc", 3);
	e = errno;
	ok(r == -1 && e == EBADF,
	    "write_all: read-only fd gives -1 EBADF");
	close(fd);
}

TEST(write_all_epipe)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int p[2], r, e;

	xpipe(p);
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

TEST(write_all_zero)
{
	int p[2], r;
	char c;

	xpipe2(p, O_NONBLOCK);
	r = write_all(p[1], "abc", 0);
	ok(r == 0 && read(p[0], &c, 1) == -1 && errno == EAGAIN,
	    "write_all: zero bytes writes nothing, returns 0");
	close(p[0]);
	close(p[1]);
}

TEST(write_all_file)
{
	char *buf = pattern(0, 1000003), *back = xmalloc(1000003);
	int fd = xtmpfile();
	int good;

	good = write_all(fd, buf, 1000003) == 0 &&
	    pread(fd, back, 1000003, 0) == 1000003 &&
	    memcmp(buf, back, 1000003) == 0 &&
	    lseek(fd, 0, SEEK_END) == 1000003;
	ok(good, "write_all: a regular file gets every byte");
	close(fd);
	free(buf);
	free(back);
}

TEST(wait_ready)
{
	int p[2], r1, r2;

	xpipe(p);
	r1 = wait_fd(p[1], POLLOUT, -1);
	r2 = write(p[1], "x", 1) == 1 ? wait_fd(p[0], POLLIN, -1) : -1;
	ok(r1 == 0 && r2 == 0,
	    "wait_fd: an empty pipe is writable, one with data readable");
	close(p[0]);
	close(p[1]);
}

TEST(wait_full_then_drained)
{
	int p[2], r;
	pid_t pid;

	xpipe2(p, O_NONBLOCK);
	fill(p[1]);
	pid = xfork();
	if (pid == 0) {
		char buf[65536];

		usleep(100 * 1000);
		while (read(p[0], buf, sizeof buf) > 0)
			;
		_exit(0);
	}
	r = wait_fd(p[1], POLLOUT, -1);
	ok(r == 0 && write(p[1], "x", 1) == 1,
	    "wait_fd: a full pipe waits until the reader makes room");
	close(p[0]);
	close(p[1]);
	kill(pid, SIGKILL);
	xwait(pid);
}

static volatile sig_atomic_t got_usr1;

static void
on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

TEST(wait_eintr)
{
	/* No SA_RESTART: poll(2) fails with EINTR if the signal lands. */
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	pid_t parent = getpid(), pid;
	int p[2], r;
	char c = 0;

	xpipe(p);
	sigaction(SIGUSR1, &sa, &old);
	got_usr1 = 0;
	pid = xfork();
	if (pid == 0) {
		usleep(50 * 1000);
		kill(parent, SIGUSR1);
		usleep(50 * 1000);
		_exit(write(p[1], "z", 1) == 1 ? 0 : 1);
	}
	r = wait_fd(p[0], POLLIN, -1);
	ok(r == 0 && got_usr1 && read(p[0], &c, 1) == 1 && c == 'z',
	    "wait_fd: a signal does not end the wait early");
	xwait(pid);
	sigaction(SIGUSR1, &old, NULL);
	close(p[0]);
	close(p[1]);
}

TEST(read_some_eof)
{
	char buf[16];
	int p[2];
	ssize_t a, b;

	xpipe(p);
	xwrite(p[1], "hello", 5);
	close(p[1]);
	a = read_some(p[0], buf, sizeof buf);
	b = read_some(p[0], buf, sizeof buf);
	ok(a == 5 && memcmp(buf, "hello", 5) == 0 && b == 0,
	    "read_some: what the pipe holds, then 0 at end of input");
	close(p[0]);
}

TEST(read_some_short_len)
{
	char buf[8] = "xxxxxxxx";
	int p[2];
	ssize_t n;

	xpipe(p);
	xwrite(p[1], "abcdef", 6);
	n = read_some(p[0], buf, 3);
	ok(n == 3 && memcmp(buf, "abcxxxxx", 8) == 0,
	    "read_some: never more than LEN bytes");
	close(p[0]);
	close(p[1]);
}

TEST(read_some_nonblock_waits)
{
	char buf[16];
	int p[2];
	pid_t pid;
	ssize_t n;

	xpipe2(p, O_NONBLOCK);
	pid = xfork();
	if (pid == 0) {
		usleep(50 * 1000);
		_exit(write(p[1], "late", 4) == 4 ? 0 : 1);
	}
	close(p[1]);
	n = read_some(p[0], buf, sizeof buf);
	ok(n == 4 && memcmp(buf, "late", 4) == 0 && exited_ok(pid),
	    "read_some: an empty non-blocking pipe waits, no EAGAIN");
	close(p[0]);
}

TEST(read_some_errors)
{
	char buf[16];
	int dir = xopen(".", O_RDONLY | O_DIRECTORY), p[2];
	ssize_t n;
	int e;

	errno = 0;
	n = read_some(dir, buf, sizeof buf);
	e = errno;
	ok(n == -1 && e == EISDIR, "read_some: a directory gives -1 EISDIR");
	close(dir);
	xpipe(p);
	close(p[0]);
	close(p[1]);
	errno = 0;
	n = read_some(p[0], buf, sizeof buf);
	e = errno;
	ok(n == -1 && e == EBADF, "read_some: a closed fd gives -1 EBADF");
}

TEST(read_exact_pieces)
{
	char *want = pattern(0, 300001), *got = xmalloc(300001);
	int p[2], r;
	pid_t pid;

	xpipe2(p, O_NONBLOCK);
	pid = xfork();
	if (pid == 0) {
		size_t off = 0;

		close(p[0]);
		/* Blocking writes of odd pieces: the reader sees them
		 * one short read at a time. */
		fcntl(p[1], F_SETFL, 0);
		while (off < 300001) {
			size_t k = 300001 - off < 777 ? 300001 - off : 777;

			if (write_all(p[1], want + off, k) == -1)
				_exit(1);
			off += k;
		}
		free(want);	/* nothing lost, for valgrind */
		free(got);
		_exit(0);
	}
	close(p[1]);
	r = read_exact(p[0], got, 300001);
	ok(r == 0 && memcmp(want, got, 300001) == 0 && exited_ok(pid),
	    "read_exact: 300001 bytes in 777-byte pieces, non-blocking");
	close(p[0]);
	free(want);
	free(got);
}

TEST(read_exact_short)
{
	char buf[10];
	int p[2], r, e;

	xpipe(p);
	xwrite(p[1], "12345", 5);
	close(p[1]);
	errno = 0;
	r = read_exact(p[0], buf, 10);
	e = errno;
	ok(r == -1 && e == EIO && memcmp(buf, "12345", 5) == 0,
	    "read_exact: fewer bytes than asked gives -1 EIO");
	close(p[0]);
}

TEST(wait_either_input)
{
	int in[2], out[2], side = 0, r;
	char c = 0;
	pid_t pid;

	xpipe(in);
	xpipe(out);
	pid = xfork();
	if (pid == 0) {
		usleep(50 * 1000);
		_exit(write(in[1], "i", 1) == 1 ? 0 : 1);
	}
	r = wait_either(in[0], out[1], &side);
	ok(r == 0 && side == SPATE_INPUT && read(in[0], &c, 1) == 1 && c == 'i' &&
	    exited_ok(pid),
	    "wait_either: nothing to read: waits on the input, says SPATE_INPUT");
	close_pair(in);
	close_pair(out);
}

TEST(wait_either_output)
{
	int in[2], out[2], side = 0, r;
	pid_t pid;

	xpipe(in);
	xpipe2(out, O_NONBLOCK);
	xwrite(in[1], "i", 1);
	fill(out[1]);
	pid = xfork();
	if (pid == 0) {
		char buf[65536];

		usleep(50 * 1000);
		_exit(read(out[0], buf, sizeof buf) > 0 ? 0 : 1);
	}
	r = wait_either(in[0], out[1], &side);
	ok(r == 0 && side == SPATE_OUTPUT && write(out[1], "x", 1) == 1 &&
	    exited_ok(pid),
	    "wait_either: input ready, output full: waits on the output, "
	    "says SPATE_OUTPUT");
	close_pair(in);
	close_pair(out);
}
