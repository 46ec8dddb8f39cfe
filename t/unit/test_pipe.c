/* Unit tests of lib/pipe.c: pipe_size, pipe_grow_to, and pipe_carried's
 * rule that a pipe grows once, to PIPE_MAX, after 4 MiB within a second. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define MiB	(1L << 20)

#ifndef SPATE_PORTABLE
/* The capacity of pipe FD now, or bail out. */
static long
size_now(int fd)
{
	long n = fcntl(fd, F_GETPIPE_SZ);

	if (n == -1)
		bail_out("F_GETPIPE_SZ: %s", strerror(errno));
	return n;
}

/* A new pipe P and E describing its write end. */
static void
new_pipe(int p[2], struct end *e)
{
	xpipe(p);
	end_init(e, p[1]);
}

TEST(size_asks_once)
{
	struct end e;
	int p[2];
	long first, again;

	new_pipe(p, &e);
	first = pipe_size(&e);
	if (fcntl(p[1], F_SETPIPE_SZ, 2 * first) == -1)
		bail_out("F_SETPIPE_SZ: %s", strerror(errno));
	again = pipe_size(&e);
	ok(first > 0 && first == e.size && again == first,
	    "pipe_size: asks the kernel once, then answers from end.size "
	    "(%ld)", first);
	close_pair(p);
}

TEST(size_not_pipe)
{
	struct end e;
	int fd = xopen("/dev/null", O_WRONLY);

	end_init(&e, fd);
	ok(pipe_size(&e) == 65536 && e.size == 65536,
	    "pipe_size: not a pipe, unknown: Linux's default, 64 KiB");
	close(fd);
}

TEST(grow_size)
{
	int p[2];
	long before, got, after;

	xpipe(p);
	before = size_now(p[1]);
	got = pipe_grow_to(p[1], MiB);
	after = size_now(p[1]);
	ok(got == MiB && got == after && before < MiB,
	    "pipe_grow_to: grows to what is asked, and returns the size "
	    "F_GETPIPE_SZ then reports (%ld -> %ld, reported %ld)", before,
	    got, after);
	got = pipe_grow_to(p[0], MiB);
	after = size_now(p[0]);
	ok(got == MiB && got == after,
	    "pipe_grow_to: the read end works too, and again is harmless");
	close_pair(p);
}

TEST(grow_never_shrinks)
{
	int p[2];
	long big, got;

	xpipe(p);
	/* Over pipe-max-size this needs root; without it, 2 MiB may fail:
	 * take what the kernel grants over 1 MiB, else skip. */
	big = fcntl(p[1], F_SETPIPE_SZ, 4 * MiB);
	if (big == -1 || big <= MiB) {
		ok(1, "pipe_grow_to: never shrinks # skip cannot make a pipe "
		    "bigger than 1 MiB here");
		close_pair(p);
		return;
	}
	got = pipe_grow_to(p[1], MiB);
	ok(got == big && size_now(p[1]) == big,
	    "pipe_grow_to: a pipe of %ld bytes is not shrunk (now %ld)", big,
	    got);
	close_pair(p);
}

TEST(grow_small_want)
{
	int p[2];
	long before, got;

	xpipe(p);
	before = size_now(p[1]);
	got = pipe_grow_to(p[1], 4096);
	ok(got == before && size_now(p[1]) == before,
	    "pipe_grow_to: a want below the size changes nothing (%ld)", got);
	close_pair(p);
}

TEST(grow_not_pipe)
{
	int fd = xopen("/dev/null", O_WRONLY);
	long r;
	int e;

	errno = 0;
	r = pipe_grow_to(fd, MiB);
	e = errno;
	ok(r == -1 && e == EBADF,
	    "pipe_grow_to: not a pipe gives -1 with errno set (%s)",
	    strerror(e));
	close(fd);
	errno = 0;
	r = pipe_grow_to(-1, MiB);
	e = errno;
	ok(r == -1 && e == EBADF, "pipe_grow_to: bad fd gives -1 EBADF");
}

TEST(carried_below)
{
	struct end e;
	int p[2];
	long before;

	new_pipe(p, &e);
	before = size_now(p[1]);
	pipe_carried(&e, 4 * MiB - 1);
	ok(size_now(p[1]) == before && e.grown == 0 &&
	    e.carried == 4 * MiB - 1,
	    "pipe_carried: 4 MiB - 1 byte carried: no growth (%ld)", before);
	close_pair(p);
}

TEST(carried_grows)
{
	struct end e;
	int p[2], i;

	new_pipe(p, &e);
	/* 64 chunks of 64 KiB, as fast as a loop goes: well within 1 s. */
	for (i = 0; i < 64; i++)
		pipe_carried(&e, 64 << 10);
	ok(e.grown == 1 && e.size == PIPE_MAX && size_now(p[1]) == PIPE_MAX,
	    "pipe_carried: 4 MiB carried fast: grown to PIPE_MAX, end.size "
	    "says so (%ld)", e.size);
	close_pair(p);
}

TEST(carried_slow)
{
	struct end e;
	int p[2];
	long before;

	new_pipe(p, &e);
	before = size_now(p[1]);
	pipe_carried(&e, 1);
	/* Pretend the first byte went through two seconds ago. */
	e.since -= 2000;
	pipe_carried(&e, 4 * MiB);
	ok(size_now(p[1]) == before && e.grown == 0 && e.carried == 0,
	    "pipe_carried: 4 MiB over more than a second: no growth, the "
	    "count starts again");
	pipe_carried(&e, 4 * MiB);
	ok(e.grown == 1 && size_now(p[1]) == PIPE_MAX,
	    "pipe_carried: ... and the next fast 4 MiB grow it");
	close_pair(p);
}

TEST(carried_once)
{
	struct end e;
	int p[2];
	long small;

	new_pipe(p, &e);
	pipe_carried(&e, 4 * MiB);
	/* Someone shrinks it again: the engine must not fight back. */
	small = fcntl(p[1], F_SETPIPE_SZ, 64 << 10);
	pipe_carried(&e, 4 * MiB);
	pipe_carried(&e, 64 * MiB);
	ok(e.grown == 1 && small > 0 && size_now(p[1]) == small,
	    "pipe_carried: growth is tried once, never again");
	close_pair(p);
}

TEST(carried_failed_once)
{
	struct end e;
	int fd = xopen("/dev/null", O_WRONLY);

	end_init(&e, fd);
	e.kind = K_PIPE;	/* a "pipe" whose growth fails */
	pipe_carried(&e, 4 * MiB);
	ok(e.grown == 1 && e.size == 0,
	    "pipe_carried: growth refused: marked done, end.size untouched");
	close(fd);
}

TEST(carried_granted)
{
	struct end e;
	int p[2];
	long big;

	new_pipe(p, &e);
	big = fcntl(p[1], F_SETPIPE_SZ, 2 * MiB);
	if (big == -1 || big <= MiB) {
		ok(1, "pipe_carried: end.size follows what was granted "
		    "# skip cannot make a pipe bigger than 1 MiB here");
		close_pair(p);
		return;
	}
	e.size = 65536;		/* what the engine believed */
	pipe_carried(&e, 4 * MiB);
	ok(e.grown == 1 && e.size == big && size_now(p[1]) == big,
	    "pipe_carried: end.size follows what the kernel has (%ld), not "
	    "the PIPE_MAX asked", e.size);
	close_pair(p);
}

TEST(carried_not_pipe)
{
	struct end e;
	int fd = xtmpfile();

	end_init(&e, fd);
	pipe_carried(&e, 64 * MiB);
	ok(e.carried == 0 && e.grown == 0 && e.size == 0,
	    "pipe_carried: not a pipe: nothing counted");
	close(fd);
}
#else
/* The portable build (make PORTABLE=1) has no F_SETPIPE_SZ. */
TEST(portable)
{
	struct end e;
	int p[2];

	xpipe(p);
	errno = 0;
	ok(pipe_grow_to(p[1], MiB) == -1 && errno == ENOSYS,
	    "portable: pipe_grow_to gives -1 ENOSYS");
	end_init(&e, p[1]);
	ok(pipe_size(&e) == 65536,
	    "portable: pipe_size cannot ask: Linux's default, 64 KiB");
	pipe_carried(&e, 4 * MiB);
	ok(e.grown == 1 && e.size == 65536,
	    "portable: pipe_carried tries once, end.size stays the default");
	close_pair(p);
}
#endif
