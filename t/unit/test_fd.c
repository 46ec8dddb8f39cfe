/* Unit tests of lib/fd.c: what end_init makes of a descriptor and what
 * follows from its kind (the traits), the
 * SPATE_ZEROCOPY switch, and the private pipes (pipe_private,
 * close_pair). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

/* Describe FD with end_init into E, over a struct full of garbage. */
static void
describe(struct end *e, int fd)
{
	memset(e, 0xa5, sizeof *e);
	end_init(e, fd);
}

/* Return the kind of FD, as end_init describes it. */
static int
kind_of(int fd)
{
	struct end e;

	describe(&e, fd);
	return e.kind;
}

/*
 * What the engine takes for granted of every row of fd.c's table: the
 * pipe calls go with a pipe's room and never wait on a peer; a lane
 * only ever writes a file, which needs a copy of every byte, never
 * waits, never stalls, and names its stream (ends_aliased: an output
 * that is the input file); a kind is not both a pipe and a file.
 */
TEST(traits_hold)
{
	int k, bad = 0;

	for (k = 0; k < K_KINDS; k++) {
		struct end e = { .kind = k };
		const struct traits *t = traits(&e);

		if ((t->pipe != (t->room == ROOM_PIPE)) ||
		    (t->pipe && t->waits_on_peer) || (t->pipe && t->file) ||
		    (t->lane && !(t->file && t->needs_copy)) ||
		    (t->file && (t->waits_on_peer || t->may_stall ||
		    !t->names_stream))) {
			printf("# kind %d: its traits break a rule\n", k);
			bad++;
		}
	}
	ok(bad == 0, "traits: every kind's row keeps the engine's rules");
}

/* Return 1 if FD is open. */
static int
is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

TEST(kind_pipe)
{
	int p[2];

	xpipe(p);
	ok(kind_of(p[0]) == K_PIPE && kind_of(p[1]) == K_PIPE,
	    "end_init: both ends of a pipe are K_PIPE");
	close_pair(p);
}

TEST(kind_fifo)
{
	char dir[4096], path[4200];
	int fd, k;

	xtmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/fifo", dir);
	if (mkfifo(path, 0600) == -1)
		bail_out("mkfifo %s: %s", path, strerror(errno));
	/* O_RDWR: a FIFO opened so does not wait for a peer. */
	fd = xopen(path, O_RDWR);
	k = kind_of(fd);
	unlink(path);
	rmdir(dir);
	ok(k == K_PIPE, "end_init: a FIFO is K_PIPE");
	close(fd);
}

TEST(kind_file)
{
	int fd = xtmpfile();

	ok(kind_of(fd) == K_FILE, "end_init: a regular file is K_FILE");
	close(fd);
}

TEST(kind_socket)
{
	int s[2];

	xsocketpair(s);
	ok(kind_of(s[0]) == K_SOCKET && kind_of(s[1]) == K_SOCKET,
	    "end_init: a socketpair is K_SOCKET");
	close_pair(s);
}

TEST(kind_devnull)
{
	int fd = xopen("/dev/null", O_WRONLY);

	ok(kind_of(fd) == K_OTHER, "end_init: /dev/null is K_OTHER");
	close(fd);
}

TEST(kind_dir)
{
	int fd = xopen(".", O_RDONLY | O_DIRECTORY);

	ok(kind_of(fd) == K_OTHER, "end_init: a directory is K_OTHER");
	close(fd);
}

TEST(kind_closed)
{
	struct end e;
	int p[2];

	xpipe(p);
	close_pair(p);
	xpipe(p);	/* the lowest numbers again */
	close(p[1]);
	describe(&e, p[1]);
	ok(e.fd == p[1] && e.kind == K_OTHER && e.append == 0 &&
	    e.write_end == 0,
	    "end_init: a closed fd is K_OTHER, not writable (read/write "
	    "reports it)");
	close(p[0]);
}

TEST(fresh_counters)
{
	struct end e;
	int p[2];

	xpipe(p);
	describe(&e, p[1]);
	ok(e.fd == p[1] && e.size == 0 && e.carried == 0 && e.since == 0 &&
	    e.grown == 0,
	    "end_init: size, carried, since and grown start at 0");
	close_pair(p);
}

TEST(pipe_ends)
{
	struct end r, w;
	int p[2];

	xpipe(p);
	describe(&r, p[0]);
	describe(&w, p[1]);
	ok(r.write_end == 0 && w.write_end == 1 && r.append == 0 &&
	    w.append == 0,
	    "end_init: a pipe's read end is no write end, its write end is");
	close_pair(p);
}

TEST(file_modes)
{
	struct end ro, wo, rw, ap;
	char dir[4096], path[4200];
	int fd, a, b, c;

	xtmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/file", dir);
	fd = xopen(path, O_RDWR | O_CREAT);
	a = xopen(path, O_RDONLY);
	b = xopen(path, O_WRONLY);
	c = xopen(path, O_WRONLY | O_APPEND);
	unlink(path);
	rmdir(dir);
	describe(&rw, fd);
	describe(&ro, a);
	describe(&wo, b);
	describe(&ap, c);
	ok(ro.write_end == 0 && ro.append == 0,
	    "end_init: O_RDONLY: no write end, no append");
	ok(wo.write_end == 1 && wo.append == 0 && rw.write_end == 1 &&
	    rw.append == 0, "end_init: O_WRONLY and O_RDWR: write end");
	ok(ap.write_end == 1 && ap.append == 1 && ap.kind == K_FILE,
	    "end_init: O_APPEND: append set");
	close(a);
	close(b);
	close(c);
	close(fd);
}

TEST(append_later)
{
	struct end e;
	int fd = xtmpfile();

	xsetfl(fd, O_APPEND);
	describe(&e, fd);
	ok(e.append == 1, "end_init: O_APPEND set by fcntl after open");
	close(fd);
}

#ifndef SPATE_PORTABLE
TEST(zerocopy_allowed)
{
	unsetenv("SPATE_ZEROCOPY");
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: unset -> 1");
	setenv("SPATE_ZEROCOPY", "0", 1);
	ok(zerocopy_allowed() == 0, "zerocopy_allowed: 0 -> 0");
	setenv("SPATE_ZEROCOPY", "1", 1);
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: 1 -> 1");
	setenv("SPATE_ZEROCOPY", "", 1);
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: empty -> 1");
	setenv("SPATE_ZEROCOPY", "00", 1);
	ok(zerocopy_allowed() == 1, "zerocopy_allowed: only \"0\" turns it "
	    "off (00 -> 1)");
	unsetenv("SPATE_ZEROCOPY");
}
#else
/* The portable build (make PORTABLE=1) never tries zero-copy. */
TEST(zerocopy_allowed)
{
	unsetenv("SPATE_ZEROCOPY");
	ok(zerocopy_allowed() == 0, "portable: zerocopy_allowed unset -> 0");
	setenv("SPATE_ZEROCOPY", "1", 1);
	ok(zerocopy_allowed() == 0, "portable: zerocopy_allowed 1 -> 0");
	unsetenv("SPATE_ZEROCOPY");
}
#endif

/* Return 1 if P is a private pipe as promised: both ends at 3 or above,
 * close-on-exec, and a pipe from P[1] to P[0]. */
static int
is_private(int p[2])
{
	char c = 0;

	return p[0] > STDERR_FILENO && p[1] > STDERR_FILENO &&
	    (fcntl(p[0], F_GETFD) & FD_CLOEXEC) &&
	    (fcntl(p[1], F_GETFD) & FD_CLOEXEC) &&
	    write(p[1], "p", 1) == 1 && read(p[0], &c, 1) == 1 && c == 'p';
}

TEST(private)
{
	int p[2] = { -1, -1 }, r;

	r = pipe_private(p);
	ok(r == 0 && is_private(p),
	    "pipe_private: both ends >= 3, close-on-exec, a working pipe");
	close_pair(p);
}

/*
 * In a child, close the descriptors 0 up to LAST, call pipe_private and
 * exit 0 if the pipe is private and the closed ones are still closed.
 */
static int
private_with_closed(int last)
{
	pid_t pid = xfork();

	if (pid == 0) {
		int p[2], fd;

		for (fd = 0; fd <= last; fd++)
			close(fd);
		if (pipe_private(p) == -1)
			_exit(1);
		if (!is_private(p))
			_exit(2);
		for (fd = 0; fd <= last; fd++)
			if (is_open(fd))
				_exit(3);
		_exit(0);
	}
	return exited_ok(pid);
}

TEST(private_low_fds)
{
	ok(private_with_closed(STDERR_FILENO),
	    "pipe_private: with 0, 1 and 2 closed, both ends land >= 3 "
	    "and 0-2 stay closed");
	ok(private_with_closed(STDIN_FILENO),
	    "pipe_private: with 0 closed (one end low), both ends >= 3");
}

/*
 * In a child with 0, 1 and 2 closed and at most 3 descriptors allowed:
 * pipe2 gets 0 and 1, moving them up is refused.  pipe_private must fail
 * with the errno of that, and leave nothing open.
 */
TEST(private_no_room)
{
	pid_t pid = xfork();
	int st;

	if (pid == 0) {
		struct rlimit rl = { 3, 3 };
		int p[2] = { -1, -1 }, fd;

		for (fd = 0; fd <= STDERR_FILENO; fd++)
			close(fd);
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			_exit(10);	/* valgrind keeps it from us */
		errno = 0;
		if (pipe_private(p) != -1)
			_exit(11);
		if (errno != EINVAL && errno != EMFILE)
			_exit(12);
		for (fd = 0; fd <= STDERR_FILENO; fd++)
			if (is_open(fd))
				_exit(13);
		_exit(0);
	}
	st = xwait(pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 10) {
		ok(1, "pipe_private: no descriptor >= 3 to be had # skip "
		    "cannot lower RLIMIT_NOFILE here");
		return;
	}
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "pipe_private: no descriptor >= 3 to be had: -1 with errno, "
	    "both ends closed (status %d)", WIFEXITED(st) ? WEXITSTATUS(st) :
	    -1);
}

TEST(close_pair)
{
	int p[2], a, b;

	xpipe(p);
	a = p[0];
	b = p[1];
	close_pair(p);
	ok(p[0] == -1 && p[1] == -1 && !is_open(a) && !is_open(b),
	    "close_pair: closes both ends, marks them -1");
	close_pair(p);
	ok(p[0] == -1 && p[1] == -1, "close_pair: again is harmless");
}

TEST(close_pair_half)
{
	int p[2], q[2], b;

	xpipe(p);
	xpipe(q);	/* live descriptors close_pair must leave alone */
	b = p[1];
	close(p[0]);
	p[0] = -1;
	close_pair(p);
	ok(p[0] == -1 && p[1] == -1 && !is_open(b) && is_open(q[0]) &&
	    is_open(q[1]),
	    "close_pair: one end already -1: the other closed, nothing else");
	close_pair(q);
}

/* Check that an input socket of TYPE (called NAME) keeps records. */
static void
input_records(int type, const char *name)
{
	struct end e;
	struct stat st;
	int s[2];

	if (socketpair(AF_UNIX, type, 0, s) == -1 || fstat(s[0], &st) == -1)
		bail_out("socketpair %s: %s", name, strerror(errno));
	end_init_input(&e, s[0], &st);
	ok(e.kind == K_SOCKET && e.records == 1 && e.write_end == 0,
	    "end_init_input: a %s socket keeps records", name);
	close_pair(s);
}

/* An input described from the status its caller took: the kind and the
 * file, whether a socket keeps records apart (a read shorter than a
 * record loses its rest), and nothing that only writing needs, whatever
 * the descriptor's flags. */
TEST(input_from_stat)
{
	struct end e;
	struct stat st;
	int s[2], fd = xtmpfile();

	if (fstat(fd, &st) == -1)
		bail_out("fstat: %s", strerror(errno));
	memset(&e, 0xa5, sizeof e);
	end_init_input(&e, fd, &st);
	ok(e.fd == fd && e.kind == K_FILE && e.dev == st.st_dev &&
	    e.ino == st.st_ino && e.write_end == 0 && e.append == 0 &&
	    e.size == 0 && e.grown == 0,
	    "end_init_input: a regular file, its identity, fresh counters");
	close(fd);
	xsocketpair(s);
	if (fstat(s[0], &st) == -1)
		bail_out("fstat: %s", strerror(errno));
	end_init_input(&e, s[0], &st);
	ok(e.kind == K_SOCKET && e.records == 0,
	    "end_init_input: a stream socket keeps no records");
	end_init_input(&e, s[0], NULL);
	ok(e.kind == K_OTHER && e.fd == s[0],
	    "end_init_input: no status (fstat failed): K_OTHER");
	close_pair(s);
	input_records(SOCK_SEQPACKET, "SOCK_SEQPACKET");
	input_records(SOCK_DGRAM, "SOCK_DGRAM");
}

/* Describe FD into E, or mark E as no output (FD -1). */
static void
describe_out(struct end *e, int fd)
{
	if (fd == -1) {
		memset(e, 0, sizeof *e);
		e->fd = -1;
	} else
		describe(e, fd);
}

/* Return ends_aliased of input IN and the outputs A and B (-1: none). */
static int
aliased(int in, int a, int b)
{
	struct end i, o[2];

	describe(&i, in);
	describe_out(&o[0], a);
	describe_out(&o[1], b);
	return ends_aliased(&i, o, 2);
}

/*
 * Which outputs are aliased (ends_aliased): two that are one file, or
 * one descriptor (even of a device, whose two names do not count: what
 * the fan-out with a lag closes once it must not close twice), or an
 * output that is the input's regular file or its descriptor; not a
 * pipe that is the input through a descriptor of its own (a FIFO keeps
 * its writes in order, however late), nor two outputs that are none.
 */
TEST(aliased)
{
	char path[64];
	int f = xtmpfile(), f2, nul = xopen("/dev/null", O_WRONLY);
	int nul2 = xopen("/dev/null", O_WRONLY), p[2], s[2];

	snprintf(path, sizeof path, "/proc/self/fd/%d", f);
	f2 = xopen(path, O_WRONLY);
	xpipe(p);
	xsocketpair(s);
	ok(aliased(nul, f, f2), "aliased: one file twice");
	ok(aliased(nul, nul2, nul2), "aliased: one descriptor twice");
	ok(!aliased(s[0], nul, nul2), "aliased: not /dev/null twice");
	ok(aliased(f, f2, nul), "aliased: the input's regular file");
	ok(aliased(s[0], nul, s[0]), "aliased: the input's descriptor");
	ok(!aliased(p[0], p[1], nul),
	    "aliased: not the input's pipe, by its other end");
	ok(!aliased(nul, -1, -1) && !aliased(nul, f, -1),
	    "aliased: outputs that are none are not");
	close(f);
	close(f2);
	close(nul);
	close(nul2);
	close_pair(p);
	close_pair(s);
}
