/* Unit tests of spate_repeat, the engine of yes: whatever the line and
 * however much is read, the stream is an exact repetition of the line. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spate.h"
#include "tap.h"

#define MiB	(1UL << 20)

/* How the child that runs spate_repeat is set up. */
enum {
	RW = 1,		/* SPATE_ZEROCOPY=0 */
	IGNPIPE = 2,	/* SIGPIPE ignored */
	NONBLOCK = 4	/* O_NONBLOCK on its descriptor */
};

/* A LEN-byte line of varied letters ending in a newline. */
static char *
mkline(size_t len)
{
	char *line = xmalloc(len);
	size_t i;

	for (i = 0; i + 1 < len; i++)
		line[i] = 'a' + (i * 5 + i / 26) % 26;
	line[len - 1] = '\n';
	return line;
}

/*
 * Fork a child that runs spate_repeat(FD, LINE, LEN) as FLAGS say, after
 * closing CLOSEFD (-1 for none).  The child exits with the errno of the
 * failure, or 255 if spate_repeat returned otherwise; alarm(2) ends a hang.
 */
static pid_t
spawn(int fd, int closefd, const char *line, size_t len, int flags)
{
	pid_t pid = xfork();
	int r;

	if (pid != 0)
		return pid;
	if (closefd != -1)
		close(closefd);
	if (flags & RW)
		setenv("SPATE_ZEROCOPY", "0", 1);
	else
		unsetenv("SPATE_ZEROCOPY");
	signal(SIGPIPE, flags & IGNPIPE ? SIG_IGN : SIG_DFL);
	if (flags & NONBLOCK)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	alarm(30);
	r = spate_repeat(fd, line, len);
	_exit(r == -1 ? errno : 255);
}

/*
 * Read N bytes from FD with CHUNK-byte reads; return 1 if they are the
 * first N bytes of an endless repetition of the LEN-byte LINE.
 */
static int
read_exact(int fd, const char *line, size_t len, size_t n, size_t chunk)
{
	char *buf = xmalloc(chunk);
	size_t got = 0, pos = 0;
	int good = 1;

	while (good && got < n) {
		size_t want = n - got < chunk ? n - got : chunk;
		ssize_t k = read(fd, buf, want), i;

		if (k == -1 && errno == EINTR)
			continue;
		if (k <= 0) {
			good = 0;
			break;
		}
		for (i = 0; i < k; i++) {
			if (buf[i] != line[pos]) {
				good = 0;
				break;
			}
			if (++pos == len)
				pos = 0;
		}
		got += k;
	}
	free(buf);
	return good;
}

/*
 * Run spate_repeat into a pipe as FLAGS say, read the first N bytes after
 * DELAY_MS, then close the pipe.  Return 1 if the bytes were exact and
 * the child then died of SIGPIPE (or, with IGNPIPE, failed with EPIPE).
 */
static int
check_pipe(const char *line, size_t len, size_t n, int flags, int delay_ms)
{
	int p[2], good, st;
	pid_t pid;

	xpipe(p);
	pid = spawn(p[1], p[0], line, len, flags);
	close(p[1]);
	if (delay_ms > 0)
		usleep(delay_ms * 1000);
	good = read_exact(p[0], line, len, n, 4093 + n % 65536);
	close(p[0]);
	st = xwait(pid);
	if (flags & IGNPIPE)
		return good && WIFEXITED(st) && WEXITSTATUS(st) == EPIPE;
	return good && WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE;
}

/* check_pipe for a LEN-byte line and a spread of sizes around pages,
 * pipe sizes and the engine's buffer sizes. */
static int
check_sizes(size_t len, int flags)
{
	static const size_t sizes[] = {
		1, 2, 4095, 4096, 4097, 65535, 65537, 131073,
		MiB - 1, MiB + 1, 2 * MiB + 1, 5 * MiB + 3
	};
	char *line = mkline(len);
	size_t i;
	int good = 1;

	for (i = 0; good && i < sizeof sizes / sizeof sizes[0]; i++)
		good = check_pipe(line, len, sizes[i], flags, 0);
	if (!good)
		printf("# line of %zu bytes: wrong at %zu bytes read\n", len,
		    sizes[i - 1]);
	free(line);
	return good;
}

TEST(lines_zerocopy)
{
	static const size_t lens[] = { 1, 2, 3, 7, 4095, 4096, 4097, 5000 };
	size_t i;

	for (i = 0; i < sizeof lens / sizeof lens[0]; i++)
		ok(check_sizes(lens[i], 0),
		    "zero-copy: a %zu-byte line, first N bytes exact", lens[i]);
}

TEST(lines_rw)
{
	static const size_t lens[] = { 1, 3, 4096, 5000 };
	size_t i;

	for (i = 0; i < sizeof lens / sizeof lens[0]; i++)
		ok(check_sizes(lens[i], RW),
		    "SPATE_ZEROCOPY=0: a %zu-byte line, first N bytes exact",
		    lens[i]);
}

/* A line longer than any buffer the engine picks. */
TEST(long_line)
{
	static const size_t sizes[] = { 1, 3 * MiB - 1, 3 * MiB + 1,
	    10 * MiB };
	size_t len = 3 * MiB + 5, i;
	char *line = mkline(len);
	int zc = 1, rw = 1;

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		zc &= check_pipe(line, len, sizes[i], 0, 0);
		rw &= check_pipe(line, len, sizes[i], RW, 0);
	}
	ok(zc, "zero-copy: a 3 MiB line, first N bytes exact");
	ok(rw, "SPATE_ZEROCOPY=0: a 3 MiB line, first N bytes exact");
	free(line);
}

/* The pipe fills and holds the engine's pages while the reader sleeps. */
TEST(late_reader)
{
	char *line = mkline(3);
	int zc, rw;

	zc = check_pipe(line, 3, 6 * MiB + 1, 0, 200);
	rw = check_pipe(line, 3, 6 * MiB + 1, RW, 200);
	ok(zc && rw, "a reader that starts late gets an exact stream");
	free(line);
}

TEST(nonblock)
{
	char *line = mkline(4097);
	int zc, rw;

	zc = check_pipe(line, 4097, 5 * MiB + 1, NONBLOCK, 200);
	rw = check_pipe(line, 4097, 5 * MiB + 1, NONBLOCK | RW, 200);
	ok(zc && rw, "a non-blocking pipe: waits, exact, no error");
	free(line);
}

TEST(epipe)
{
	char *line = mkline(5);
	int zc, rw, at0;

	zc = check_pipe(line, 5, MiB + 7, IGNPIPE, 0);
	rw = check_pipe(line, 5, MiB + 7, IGNPIPE | RW, 0);
	at0 = check_pipe(line, 5, 0, IGNPIPE, 0);
	ok(zc && rw && at0,
	    "the reader leaves, SIGPIPE ignored: -1 EPIPE after exact bytes");
	free(line);
}

TEST(sigpipe)
{
	char *line = mkline(5);
	int zc, rw;

	zc = check_pipe(line, 5, 12345, 0, 0);
	rw = check_pipe(line, 5, 12345, RW, 0);
	ok(zc && rw, "the reader leaves, SIGPIPE default: killed by it");
	free(line);
}

TEST(socket)
{
	char *line = mkline(7);
	int s[2], good, st;
	pid_t pid;

	xsocketpair(s);
	pid = spawn(s[1], s[0], line, 7, 0);
	close(s[1]);
	good = read_exact(s[0], line, 7, 3 * MiB + 1, 65536);
	close(s[0]);
	st = xwait(pid);
	/* Closed with data unread, a Unix socket may say ECONNRESET. */
	ok(good && ((WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE) ||
	    (WIFEXITED(st) && WEXITSTATUS(st) == ECONNRESET)),
	    "a socket: exact stream");
	free(line);
}

/*
 * Run spate_repeat into a regular file limited to LIMIT bytes, with
 * SIGXFSZ ignored so that the write past it fails with EFBIG.  Return 1
 * if it did, and the file holds exactly LIMIT bytes of the stream.
 */
static int
check_file(const char *line, size_t len, size_t limit, int flags)
{
	int fd = xtmpfile(), good, st;
	pid_t pid;

	pid = xfork();
	if (pid == 0) {
		struct rlimit rl = { limit, limit };

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) == -1)
			_exit(254);
		pid = spawn(fd, -1, line, len, flags);
		while (waitpid(pid, &st, 0) == -1)
			if (errno != EINTR)
				_exit(252);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 253);
	}
	st = xwait(pid);
	good = WIFEXITED(st) && WEXITSTATUS(st) == EFBIG &&
	    lseek(fd, 0, SEEK_END) == (off_t)limit &&
	    lseek(fd, 0, SEEK_SET) == 0 &&
	    read_exact(fd, line, len, limit, 65536);
	close(fd);
	return good;
}

TEST(file)
{
	char *line = mkline(3), *big = mkline(200001);
	int zc, rw;

	zc = check_file(line, 3, 1000003, 0) &&
	    check_file(big, 200001, 1000003, 0);
	rw = check_file(line, 3, 1000003, RW) &&
	    check_file(big, 200001, 1000003, RW);
	ok(zc && rw,
	    "a regular file: exact up to the size limit, then -1 EFBIG");
	free(line);
	free(big);
}

TEST(len0)
{
	int p[2], r, e;

	xpipe(p);
	errno = 0;
	r = spate_repeat(p[1], "y\n", 0);
	e = errno;
	ok(r == -1 && e == EINVAL, "len 0: -1 EINVAL");
	close(p[0]);
	close(p[1]);
}

TEST(badfd)
{
	int p[2], r, e;

	xpipe(p);
	close(p[0]);
	close(p[1]);
	errno = 0;
	r = spate_repeat(p[1], "y\n", 2);
	e = errno;
	ok(r == -1 && e == EBADF, "a closed fd: -1 EBADF");
}

TEST(devfull)
{
	int fd = open("/dev/full", O_WRONLY), r, e;

	if (fd == -1) {
		ok(1, "/dev/full: -1 ENOSPC # skip no /dev/full");
		return;
	}
	errno = 0;
	r = spate_repeat(fd, "y\n", 2);
	e = errno;
	ok(r == -1 && e == ENOSPC, "/dev/full: -1 ENOSPC");
	close(fd);
}

/*
 * A pipe's read end is no output: write(2) says EBADF.  (vmsplice on a
 * read end would read the pipe into the line instead.)
 */
TEST(read_end)
{
	char *line = mkline(4);
	int p[2], st, zc = 0, rw = 0;
	pid_t pid;

	xpipe(p);
	if (write(p[1], "hello\n", 6) == 6) {
		close(p[1]);
		pid = spawn(p[0], -1, line, 4, 0);
		st = xwait(pid);
		zc = WIFEXITED(st) && WEXITSTATUS(st) == EBADF;
		pid = spawn(p[0], -1, line, 4, RW);
		st = xwait(pid);
		rw = WIFEXITED(st) && WEXITSTATUS(st) == EBADF;
	}
	close(p[0]);
	ok(zc, "zero-copy: the read end of a pipe: -1 EBADF");
	ok(rw, "SPATE_ZEROCOPY=0: the read end of a pipe: -1 EBADF");
	free(line);
}
