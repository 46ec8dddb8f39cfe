/*
 * Unit tests of lib/xfer.c's failures and fallbacks: which side failed
 * and with what errno, a refusal of zero-copy falling back to
 * read/write, an error after zero-copy moved bytes staying an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib-xfer.h"

/*
 * Run a link from IN to OUT to its failure, on the zero-copy path at
 * once if FORCE.  Return 1 if it failed with ERR on SIDE having moved
 * nothing; *PATH gets the path afterwards.
 */
static int
fails(int in, int out, int force, int err, int side, enum path *path)
{
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int e;

	link_fds(&l, &i, in, &o, out);
	if (force)
		l.path = l.fast;
	errno = 0;
	moved = run(&l, &used);
	e = errno;
	*path = l.path;
	if (moved != -1 || e != err || l.side != side)
		printf("# moved %lld, errno %s, side %d\n", (long long)moved,
		    strerror(e), l.side);
	link_free(&l);
	return moved == -1 && e == err && l.side == side && used == 0;
}

TEST(devfull)
{
	size_t len = MiB;
	char *data = pattern(0, len);
	enum path path;
	int in = xtmpfile_with(data, len);
	int out = open("/dev/full", O_WRONLY), p[2], good;

	if (out == -1) {
		ok(1, "/dev/full # skip no /dev/full");
		ok(1, "/dev/full # skip no /dev/full");
		ok(1, "/dev/full # skip no /dev/full");
		close(in);
		free(data);
		return;
	}
	zerocopy_env(NULL);
	ok(fails(in, out, 0, ENOSPC, SPATE_OUTPUT, &path),
	    "file -> /dev/full on probation: ENOSPC, SPATE_OUTPUT");

	/* splice(2) into /dev/full is refused (EINVAL since 5.10): the
	 * fallback must report write(2)'s ENOSPC. */
	xpipe(p);
	xwrite(p[1], data, 65536);
	close(p[1]);
	good = fails(p[0], out, 1, ENOSPC, SPATE_OUTPUT, &path);
	ok(good && path == PATH_RW,
	    "pipe -> /dev/full, zero-copy refused: falls back, ENOSPC, "
	    "SPATE_OUTPUT");
	close(p[0]);

	if (lseek(in, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	good = fails(in, out, 1, ENOSPC, SPATE_OUTPUT, &path);
	ok(good && path == PATH_RW,
	    "file -> /dev/full through the private pipe, refused: falls "
	    "back, ENOSPC, SPATE_OUTPUT");
	close(in);
	close(out);
	free(data);
}

#ifndef SPATE_PORTABLE
/*
 * KNOWN ENGINE BUG (lib/xfer.c, step_via): when the output refuses
 * splice and the write(2) fallback then fails, the private pipe has
 * been drained but l.via_held keeps the count.  link_retarget keeps it
 * too, and the next step through the private pipe splices that many
 * bytes out of the empty pipe: it waits forever.  Run in a child that
 * alarm(2) ends.
 */
TEST(via_held_after_failure)
{
	size_t len = MiB;
	char *data = pattern(0, len);
	int a = xtmpfile_with(data, len), b = xtmpfile_with(data, len);
	int full = open("/dev/full", O_WRONLY), st;
	pid_t pid;

	if (full == -1) {
		ok(1, "private pipe after a failed fallback # skip no /dev/full");
		close(a);
		close(b);
		free(data);
		return;
	}
	if ((pid = xfork()) == 0) {
		struct end i, o;
		struct link l;

		free(data);
		end_init(&i, a);
		end_init(&o, full);
		link_init(&l, &i, &o);
		l.path = l.fast;	/* PATH_VIA_PIPE, past probation */
		if (link_step(&l, STEP) != -1 || errno != ENOSPC)
			_exit(1);
		end_init(&i, b);
		link_retarget(&l, &i, 0);
		l.path = l.fast;
		signal(SIGALRM, SIG_DFL);	/* not the watchdog's */
		alarm(30);
		/* /dev/full again: ENOSPC expected, not a hang. */
		_exit(link_step(&l, STEP) == -1 && errno == ENOSPC ? 0 : 2);
	}
	st = xwait(pid);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "private pipe after a failed fallback: a retargeted link fails "
	    "again, no hang (%s)",
	    WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? "hung" : "no hang");
	close(a);
	close(b);
	close(full);
	free(data);
}
#endif

TEST(epipe)
{
	size_t len = MiB;
	char *data = pattern(0, len);
	enum path path;
	int in = xtmpfile_with(data, len), p[2], good;

	zerocopy_env(NULL);
	xpipe(p);
	close(p[0]);
	ok(fails(in, p[1], 0, EPIPE, SPATE_OUTPUT, &path),
	    "a pipe whose reader left, SIGPIPE ignored, on probation: EPIPE, "
	    "SPATE_OUTPUT");
	if (lseek(in, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	good = fails(in, p[1], 1, EPIPE, SPATE_OUTPUT, &path);
	ok(good && path == FAST(PATH_SPLICE),
	    "the same by splice: EPIPE, SPATE_OUTPUT, no fallback (not a "
	    "refusal)");
	close(p[1]);
	close(in);
	free(data);
}

/* The reader takes 1 MiB and leaves: after zero-copy moved bytes the
 * failure is an error, never a reason to switch paths. */
TEST(epipe_midway)
{
	size_t len = 8 * MiB;
	char *data = pattern(0, len), *got = xmalloc(MiB);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t pid;
	int in = xtmpfile_with(data, len), p[2], e;

	zerocopy_env(NULL);
	xpipe(p);
	if ((pid = xfork()) == 0) {
		int same;

		close(p[1]);
		same = read_exact(p[0], got, MiB) == 0 &&
		    memcmp(got, data, MiB) == 0;
		free(got);	/* nothing lost, for valgrind */
		free(data);
		_exit(same ? 0 : 1);
	}
	close(p[0]);
	link_fds(&l, &i, in, &o, p[1]);
	errno = 0;
	moved = run(&l, &used);
	e = errno;
	ok(moved == -1 && e == EPIPE && l.side == SPATE_OUTPUT &&
	    l.path == FAST(PATH_SPLICE) && used == (RW | ZC(PATH_SPLICE)) &&
	    exited_ok(pid),
	    "the reader leaves after 1 MiB: EPIPE, SPATE_OUTPUT, still on "
	    "splice, the bytes it took exact");
	link_free(&l);
	close(p[1]);
	close(in);
	free(data);
	free(got);
}

TEST(input_dir)
{
	enum path path;
	int in = xopen(".", O_RDONLY | O_DIRECTORY), p[2];

	zerocopy_env(NULL);
	xpipe(p);
	ok(fails(in, p[1], 0, EISDIR, SPATE_INPUT, &path),
	    "input a directory, on probation: EISDIR, SPATE_INPUT");
	ok(fails(in, p[1], 1, EISDIR, SPATE_INPUT, &path),
	    "input a directory, by splice: EISDIR, SPATE_INPUT");
	close_pair(p);
	close(in);
}

TEST(input_closed)
{
	enum path path;
	int out = xtmpfile(), p[2], in;

	zerocopy_env(NULL);
	xpipe(p);
	/* A closed number far above the lowest free one: the private pipe
	 * the link makes must not land on it. */
	if ((in = fcntl(out, F_DUPFD, 200)) == -1)
		bail_out("F_DUPFD: %s", strerror(errno));
	close(in);
	ok(fails(in, p[1], 0, EBADF, SPATE_INPUT, &path),
	    "input a closed fd, on probation: EBADF, SPATE_INPUT");
	ok(fails(in, p[1], 1, EBADF, SPATE_INPUT, &path),
	    "input a closed fd, by splice: EBADF, SPATE_INPUT");
	ok(fails(in, out, 1, EBADF, SPATE_INPUT, &path),
	    "input a closed fd, through the private pipe: EBADF, SPATE_INPUT");
	close_pair(p);
	close(out);
}

TEST(output_closed)
{
	size_t len = 100000;
	char *data = pattern(0, len);
	enum path path;
	int in = xtmpfile_with(data, len), out[2], ro, good;

	zerocopy_env(NULL);
	xpipe(out);
	close(out[1]);
	ok(fails(in, out[1], 1, EBADF, SPATE_OUTPUT, &path),
	    "output a closed fd: EBADF, SPATE_OUTPUT");
	if (lseek(in, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	ro = xopen("/dev/null", O_RDONLY);
	good = fails(in, ro, 1, EBADF, SPATE_OUTPUT, &path);
	ok(good && path == PATH_RW,
	    "output open read-only: read/write, EBADF, SPATE_OUTPUT");
	close(ro);
	close(out[0]);
	close(in);
	free(data);
}
