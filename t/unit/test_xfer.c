/*
 * Unit tests of lib/xfer.c, the transfer layer: links between real pairs
 * of descriptors, every byte checked, and which path moved them.
 *
 * A link starts on read/write and takes its zero-copy path after one
 * read of ZC_AFTER bytes or more (probation).  run() records which paths
 * moved bytes: a step that changed the path (probation ended, or a
 * refusal fell back) moved its bytes by read/write.  The error cases set
 * l.path = l.fast to start on the zero-copy path, past probation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sluice.h"
#include "engine.h"
#include "tap.h"

#define MiB		(1UL << 20)
#define STEP		(16u << 20)	/* what sl_cat and sl_fanout ask */
#define BIT(p)		(1u << (p))
#define RW		BIT(PATH_RW)

#ifdef SLUICE_PORTABLE
#define ZC(p)		0u		/* no zero-copy in this build */
#define FAST(p)		PATH_RW
#else
#define ZC(p)		BIT(p)
#define FAST(p)		(p)
#endif

/* Say SLUICE_ZEROCOPY=V, or unset it if V is NULL. */
static void
zerocopy_env(const char *v)
{
	if (v == NULL)
		unsetenv("SLUICE_ZEROCOPY");
	else
		setenv("SLUICE_ZEROCOPY", v, 1);
}

/*
 * Return the read end of a pipe (or of a socket pair if SOCK) that gets
 * the LEN bytes of BUF: the first PRE bytes written at once, so that the
 * first read can end probation, the rest by a child in STEP-byte writes
 * after DELAY_MS.  The child is *PID.
 */
static int
feeder(const char *buf, size_t len, size_t pre, size_t step, int delay_ms,
    int sock, pid_t *pid)
{
	int p[2];

	if (sock)
		xsocketpair(p);
	else
		xpipe(p);
	xwrite(p[1], buf, pre);
	if ((*pid = xfork()) == 0) {
		size_t off = pre;

		close(p[0]);
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		while (off < len) {
			size_t k = len - off < step ? len - off : step;

			if (write_all(p[1], buf + off, k) == -1)
				_exit(1);
			off += k;
		}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

/*
 * Start a child that reads FD (the read end of a pipe or a socket) to
 * its end, after DELAY_MS, CHUNK bytes at a time, into the file *KEEP,
 * a new scratch file; close OTHER, our end of it, in the child.  Return
 * the child.
 */
static pid_t
sink(int fd, int other, int delay_ms, size_t chunk, int *keep)
{
	pid_t pid;

	*keep = xtmpfile();
	if ((pid = xfork()) == 0) {
		char *buf = malloc(chunk);
		ssize_t n;

		close(other);
		if (buf == NULL)
			_exit(2);
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		while ((n = read(fd, buf, chunk)) != 0) {
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 || write_all(*keep, buf, n) == -1)
				_exit(1);
		}
		_exit(0);
	}
	close(fd);
	return pid;
}

/* Return 1 if FD's offset is AT. */
static int
offset_is(int fd, off_t at)
{
	return lseek(fd, 0, SEEK_CUR) == at;
}

/* Print the paths in the mask USED as a TAP comment. */
static void
show_paths(const char *what, unsigned used)
{
	static const char *name[] = {
		"RW", "SPLICE", "VIA_PIPE", "COPY_RANGE", "VMSPLICE"
	};
	size_t i;

	printf("# %s:", what);
	for (i = 0; i < sizeof name / sizeof name[0]; i++)
		if (used & BIT(i))
			printf(" %s", name[i]);
	printf("\n");
}

/*
 * Step L to the end of its input, or its first failure.  Return the
 * bytes moved, or -1 with errno set; *USED gets the paths that moved
 * bytes.
 */
static off_t
run(struct link *l, unsigned *used)
{
	off_t total = 0;
	ssize_t n;

	*used = 0;
	for (;;) {
		enum path before = l->path;

		if ((n = link_step(l, STEP)) <= 0)
			break;
		*used |= BIT(before == l->path ? before : PATH_RW);
		total += n;
	}
	return n == 0 ? total : -1;
}

/* A link from IN to OUT over ends I and O, ready to run. */
static void
link_fds(struct link *l, struct end *i, int in, struct end *o, int out)
{
	end_init(i, in);
	end_init(o, out);
	link_init(l, i, o);
}

/* Check a run that moved LEN bytes of WANT by the paths EXPECT. */
static int
good_run(off_t moved, size_t len, unsigned used, unsigned expect)
{
	if (moved != (off_t)len)
		printf("# moved %lld of %zu bytes (%s)\n", (long long)moved,
		    len, moved == -1 ? strerror(errno) : "no error");
	if (used != expect) {
		show_paths("paths used", used);
		show_paths("paths expected", expect);
	}
	return moved == (off_t)len && used == expect;
}

static void
test_pipe_to_pipe(void)
{
	size_t len = 8 * MiB + 3;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid, spid;
	int in, out[2], keep;

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 65536, 0, 0, &fpid);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    l.path == FAST(PATH_SPLICE) && exited_ok(fpid) &&
	    exited_ok(spid) && file_holds(keep, data, len),
	    "pipe -> pipe: read/write on probation, then splice; every byte");
	link_free(&l);
	close(keep);
	free(data);
}

static void
test_file_to_pipe(void)
{
	size_t len = 3 * MiB + 5;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), out[2], keep;

	zerocopy_env(NULL);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    l.path == FAST(PATH_SPLICE) && offset_is(in, len) &&
	    exited_ok(spid) && file_holds(keep, data, len),
	    "file -> pipe: splice; every byte, the input offset at its end");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
}

static void
test_pipe_to_file(void)
{
	size_t len = 5 * MiB + 7;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid;
	int in, out = xtmpfile();

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 100000, 0, 0, &fpid);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    l.path == FAST(PATH_SPLICE) && exited_ok(fpid) &&
	    offset_is(out, len) && file_holds(out, data, len),
	    "pipe -> file: splice; every byte");
	link_free(&l);
	close(out);
	free(data);
}

/*
 * At the end of the input copy_file_range(2) says 0, which the link
 * takes for a possible refusal (a /proc file) and hands to read(2): the
 * path is read/write again afterwards, so only USED shows the copy.
 */
static void
test_file_to_file(void)
{
	size_t len = 3 * MiB + 11;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xtmpfile();

	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	ok(l.fast == FAST(PATH_COPY_RANGE) && l.path == PATH_RW,
	    "file -> file: copy_file_range chosen, read/write first");
	moved = run(&l, &used);
	ok(good_run(moved, len, used, RW | ZC(PATH_COPY_RANGE)) &&
	    offset_is(in, len) && offset_is(out, len) && file_holds(out, data, len),
	    "file -> file: copy_file_range; every byte, both offsets moved");
	link_free(&l);
	close(in);
	close(out);
	free(data);
}

#ifndef SLUICE_PORTABLE
/* A file of no size (as in /proc): copy_file_range says 0 at once, and
 * read(2) takes over. */
static void
test_file_no_size(void)
{
	char want[65536];
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	ssize_t len;
	int in = open("/proc/version", O_RDONLY), out = xtmpfile();

	if (in == -1) {
		ok(1, "file of no size # skip no /proc/version");
		close(out);
		return;
	}
	len = read(in, want, sizeof want);
	if (len <= 0 || lseek(in, 0, SEEK_SET) != 0)
		bail_out("read /proc/version: %s", strerror(errno));
	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	l.path = l.fast;	/* past probation */
	moved = run(&l, &used);
	ok(i.kind == K_FILE && good_run(moved, len, used, RW) &&
	    file_holds(out, want, len),
	    "file of no size -> file: copy_file_range's 0 is confirmed by "
	    "read(2), every byte");
	link_free(&l);
	close(in);
	close(out);
}
#endif

static void
test_file_to_devnull(void)
{
	size_t len = 3 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xopen("/dev/null", O_WRONLY);

	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && offset_is(in, len) &&
	    l.via_held == 0,
	    "file -> /dev/null: through the private pipe, to the end");
#ifndef SLUICE_PORTABLE
	ok(l.via[0] > STDERR_FILENO && l.via[1] > STDERR_FILENO,
	    "file -> /dev/null: the private pipe is at fd 3 or above");
#endif
	link_free(&l);
	close(in);
	close(out);
	free(data);
}

static void
test_file_to_socket(void)
{
	size_t len = 2 * MiB + 9;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), s[2], keep;

	zerocopy_env(NULL);
	xsocketpair(s);
	spid = sink(s[0], s[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, s[1]);
	moved = run(&l, &used);
	close(s[1]);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "file -> socket: through the private pipe; every byte");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
}

static void
test_socket_to_file(void)
{
	size_t len = 2 * MiB + 13;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid;
	int in, out = xtmpfile();

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 65536, 0, 1, &fpid);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_VIA_PIPE)) &&
	    l.path == FAST(PATH_VIA_PIPE) && exited_ok(fpid) &&
	    file_holds(out, data, len),
	    "socket -> file: through the private pipe; every byte");
	link_free(&l);
	close(out);
	free(data);
}

static void
test_append(void)
{
	size_t len = MiB + 3;
	char *data = pattern(0, len), *want = xmalloc(len + 6);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xtmpfile_with("prior\n", 6);

	zerocopy_env(NULL);
	xsetfl(out, O_APPEND);	/* its offset is at 0: O_APPEND must win */
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	memcpy(want, "prior\n", 6);
	memcpy(want + 6, data, len);
	ok(l.fast == PATH_RW && good_run(moved, len, used, RW) &&
	    file_holds(out, want, len + 6),
	    "file -> O_APPEND file: read/write only, appended after what "
	    "was there");
	link_free(&l);
	close(in);
	close(out);
	free(data);
	free(want);
}

static void
test_zerocopy_off(void)
{
	size_t len = 2 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), out[2], keep;

	zerocopy_env("0");
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(l.fast == PATH_RW && l.path == PATH_RW &&
	    good_run(moved, len, used, RW) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "SLUICE_ZEROCOPY=0: file -> pipe by read/write only; every byte");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
	zerocopy_env(NULL);
}

static void
test_small_file(void)
{
	size_t len = ZC_AFTER - 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	int in = xtmpfile_with(data, len), out = xtmpfile();

	zerocopy_env(NULL);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	ok(good_run(moved, len, used, RW) && l.path == PATH_RW &&
	    l.fast == FAST(PATH_COPY_RANGE) && file_holds(out, data, len),
	    "a file of ZC_AFTER - 1 bytes: read/write only, no zero-copy "
	    "set-up");
	link_free(&l);
	close(in);
	close(out);
	free(data);
}

static void
test_probation_boundary(void)
{
	size_t len = ZC_AFTER;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	ssize_t n;
	int in = xtmpfile_with(data, len), out[2];

	zerocopy_env(NULL);
	xpipe(out);
	link_fds(&l, &i, in, &o, out[1]);
	n = link_step(&l, STEP);
	ok(n == (ssize_t)len && l.path == FAST(PATH_SPLICE),
	    "a read of exactly ZC_AFTER bytes ends probation");
	link_free(&l);
	close(in);
	close_pair(out);
	free(data);
}

/* The parent writes 100 pieces of 1000 bytes, stepping after each: a
 * trickle of 100 KB in all stays on read/write. */
static void
test_trickle(void)
{
	size_t len = 100000, off;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used = 0;
	off_t moved = 0;
	ssize_t n = 0;
	int in[2], out = xtmpfile();

	zerocopy_env(NULL);
	xpipe(in);
	link_fds(&l, &i, in[0], &o, out);
	for (off = 0; off < len; off += 1000) {
		xwrite(in[1], data + off, 1000);
		if ((n = link_step(&l, STEP)) != 1000)
			break;
		used |= BIT(l.path);
		moved += n;
	}
	close(in[1]);
	if (n == 1000)
		n = link_step(&l, STEP);
	ok(n == 0 && good_run(moved, len, used, RW) && l.path == PATH_RW &&
	    file_holds(out, data, len),
	    "pipe trickle of 1000-byte pieces: stays on read/write");
	link_free(&l);
	close(in[0]);
	close(out);
	free(data);
}

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

static void
test_devfull(void)
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
	ok(fails(in, out, 0, ENOSPC, SL_OUTPUT, &path),
	    "file -> /dev/full on probation: ENOSPC, SL_OUTPUT");

	/* splice(2) into /dev/full is refused (EINVAL since 5.10): the
	 * fallback must report write(2)'s ENOSPC. */
	xpipe(p);
	xwrite(p[1], data, 65536);
	close(p[1]);
	good = fails(p[0], out, 1, ENOSPC, SL_OUTPUT, &path);
	ok(good && path == PATH_RW,
	    "pipe -> /dev/full, zero-copy refused: falls back, ENOSPC, "
	    "SL_OUTPUT");
	close(p[0]);

	if (lseek(in, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	good = fails(in, out, 1, ENOSPC, SL_OUTPUT, &path);
	ok(good && path == PATH_RW,
	    "file -> /dev/full through the private pipe, refused: falls "
	    "back, ENOSPC, SL_OUTPUT");
	close(in);
	close(out);
	free(data);
}

#ifndef SLUICE_PORTABLE
/*
 * KNOWN ENGINE BUG (lib/xfer.c, step_via): when the output refuses
 * splice and the write(2) fallback then fails, the private pipe has
 * been drained but l.via_held keeps the count.  link_retarget keeps it
 * too, and the next step through the private pipe splices that many
 * bytes out of the empty pipe: it waits forever.  Run in a child that
 * alarm(2) ends.
 */
static void
test_via_held_after_failure(void)
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

static void
test_epipe(void)
{
	size_t len = MiB;
	char *data = pattern(0, len);
	enum path path;
	int in = xtmpfile_with(data, len), p[2], good;

	zerocopy_env(NULL);
	xpipe(p);
	close(p[0]);
	ok(fails(in, p[1], 0, EPIPE, SL_OUTPUT, &path),
	    "a pipe whose reader left, SIGPIPE ignored, on probation: EPIPE, "
	    "SL_OUTPUT");
	if (lseek(in, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	good = fails(in, p[1], 1, EPIPE, SL_OUTPUT, &path);
	ok(good && path == FAST(PATH_SPLICE),
	    "the same by splice: EPIPE, SL_OUTPUT, no fallback (not a "
	    "refusal)");
	close(p[1]);
	close(in);
	free(data);
}

/* The reader takes 1 MiB and leaves: after zero-copy moved bytes the
 * failure is an error, never a reason to switch paths. */
static void
test_epipe_midway(void)
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
	ok(moved == -1 && e == EPIPE && l.side == SL_OUTPUT &&
	    l.path == FAST(PATH_SPLICE) && used == (RW | ZC(PATH_SPLICE)) &&
	    exited_ok(pid),
	    "the reader leaves after 1 MiB: EPIPE, SL_OUTPUT, still on "
	    "splice, the bytes it took exact");
	link_free(&l);
	close(p[1]);
	close(in);
	free(data);
	free(got);
}

static void
test_input_dir(void)
{
	enum path path;
	int in = xopen(".", O_RDONLY | O_DIRECTORY), p[2];

	zerocopy_env(NULL);
	xpipe(p);
	ok(fails(in, p[1], 0, EISDIR, SL_INPUT, &path),
	    "input a directory, on probation: EISDIR, SL_INPUT");
	ok(fails(in, p[1], 1, EISDIR, SL_INPUT, &path),
	    "input a directory, by splice: EISDIR, SL_INPUT");
	close_pair(p);
	close(in);
}

static void
test_input_closed(void)
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
	ok(fails(in, p[1], 0, EBADF, SL_INPUT, &path),
	    "input a closed fd, on probation: EBADF, SL_INPUT");
	ok(fails(in, p[1], 1, EBADF, SL_INPUT, &path),
	    "input a closed fd, by splice: EBADF, SL_INPUT");
	ok(fails(in, out, 1, EBADF, SL_INPUT, &path),
	    "input a closed fd, through the private pipe: EBADF, SL_INPUT");
	close_pair(p);
	close(out);
}

static void
test_output_closed(void)
{
	size_t len = 100000;
	char *data = pattern(0, len);
	enum path path;
	int in = xtmpfile_with(data, len), out[2], ro, good;

	zerocopy_env(NULL);
	xpipe(out);
	close(out[1]);
	ok(fails(in, out[1], 1, EBADF, SL_OUTPUT, &path),
	    "output a closed fd: EBADF, SL_OUTPUT");
	if (lseek(in, 0, SEEK_SET) == -1)
		bail_out("lseek: %s", strerror(errno));
	ro = xopen("/dev/null", O_RDONLY);
	good = fails(in, ro, 1, EBADF, SL_OUTPUT, &path);
	ok(good && path == PATH_RW,
	    "output open read-only: read/write, EBADF, SL_OUTPUT");
	close(ro);
	close(out[0]);
	close(in);
	free(data);
}

static void
test_nonblock_output(const char *zc)
{
	size_t len = 4 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t spid;
	int in = xtmpfile_with(data, len), out[2], keep;
	unsigned expect = RW | (zc == NULL ? ZC(PATH_SPLICE) : 0);

	zerocopy_env(zc);
	xpipe(out);
	xsetfl(out[1], O_NONBLOCK);
	spid = sink(out[0], out[1], 100, 4096, &keep);
	link_fds(&l, &i, in, &o, out[1]);
	moved = run(&l, &used);
	close(out[1]);
	ok(good_run(moved, len, used, expect) && exited_ok(spid) &&
	    file_holds(keep, data, len),
	    "file -> non-blocking pipe, slow reader%s: waits, every byte, "
	    "no error", zc == NULL ? "" : ", SLUICE_ZEROCOPY=0");
	link_free(&l);
	close(in);
	close(keep);
	free(data);
	zerocopy_env(NULL);
}

static void
test_nonblock_input(void)
{
	size_t len = 3 * MiB + 1;
	char *data = pattern(0, len);
	struct end i, o;
	struct link l;
	unsigned used;
	off_t moved;
	pid_t fpid;
	int in, out = xtmpfile();

	zerocopy_env(NULL);
	in = feeder(data, len, ZC_AFTER, 4096, 100, 0, &fpid);
	xsetfl(in, O_NONBLOCK);
	link_fds(&l, &i, in, &o, out);
	moved = run(&l, &used);
	close(in);
	ok(good_run(moved, len, used, RW | ZC(PATH_SPLICE)) &&
	    exited_ok(fpid) && file_holds(out, data, len),
	    "non-blocking pipe, slow writer -> file: waits, every byte");
	link_free(&l);
	close(out);
	free(data);
}

/* Immutable for the life of the program: the one kind of buffer
 * link_put may vmsplice. */
static char putbuf[65536];

/* link_put all of PUTBUF N times to L; return 0, or -1 with errno. */
static int
put_all(struct link *l, int n)
{
	while (n-- > 0) {
		size_t off = 0;

		while (off < sizeof putbuf) {
			ssize_t k = link_put(l, putbuf + off,
			    sizeof putbuf - off);

			if (k <= 0)
				return -1;
			off += k;
		}
	}
	return 0;
}

/* N copies of PUTBUF, end to end. */
static char *
put_copies(int n)
{
	char *want = xmalloc(n * sizeof putbuf);
	int k;

	for (k = 0; k < n; k++)
		memcpy(want + k * sizeof putbuf, putbuf, sizeof putbuf);
	return want;
}

static void
test_put_pipe(const char *zc)
{
	char *want = put_copies(40);
	struct end o;
	struct link l;
	pid_t spid;
	int out[2], keep, r;
	enum path expect = zc == NULL ? FAST(PATH_VMSPLICE) : PATH_RW;

	zerocopy_env(zc);
	xpipe(out);
	spid = sink(out[0], out[1], 0, 65536, &keep);
	end_init(&o, out[1]);
	link_init(&l, NULL, &o);
	ok(l.path == expect, "link_put into a pipe%s: %s from the start",
	    zc == NULL ? "" : ", SLUICE_ZEROCOPY=0",
	    expect == PATH_VMSPLICE ? "vmsplice" : "write");
	r = put_all(&l, 40);
	close(out[1]);
	ok(r == 0 && l.path == expect && exited_ok(spid) &&
	    file_holds(keep, want, 40 * sizeof putbuf),
	    "link_put into a pipe%s: 40 x 64 KiB, every byte",
	    zc == NULL ? "" : ", SLUICE_ZEROCOPY=0");
	link_free(&l);
	close(keep);
	free(want);
	zerocopy_env(NULL);
}

static void
test_put_file(void)
{
	char *want = put_copies(5);
	struct end o;
	struct link l;
	int out = xtmpfile(), r;

	zerocopy_env(NULL);
	end_init(&o, out);
	link_init(&l, NULL, &o);
	r = put_all(&l, 5);
	ok(r == 0 && l.path == PATH_RW && file_holds(out, want, 5 * sizeof putbuf),
	    "link_put into a file: write(2), every byte");
	link_free(&l);
	close(out);
	free(want);
}

static void
test_put_errors(void)
{
	struct end o;
	struct link l;
	int p[2], full, e;
	ssize_t r;

	zerocopy_env(NULL);
	xpipe(p);
	close(p[0]);
	end_init(&o, p[1]);
	link_init(&l, NULL, &o);
	errno = 0;
	r = link_put(&l, putbuf, sizeof putbuf);
	e = errno;
	ok(r == -1 && e == EPIPE && l.path == FAST(PATH_VMSPLICE),
	    "link_put into a pipe whose reader left: -1 EPIPE, no fallback");
	link_free(&l);
	close(p[1]);

	xpipe(p);
	xwrite(p[1], "x", 1);
	end_init(&o, p[0]);
	link_init(&l, NULL, &o);
	errno = 0;
	r = link_put(&l, putbuf, sizeof putbuf);
	e = errno;
	ok(r == -1 && e == EBADF && l.path == PATH_RW,
	    "link_put into a pipe's read end: write(2), -1 EBADF");
	link_free(&l);
	close_pair(p);

	if ((full = open("/dev/full", O_WRONLY)) == -1) {
		ok(1, "link_put into /dev/full # skip no /dev/full");
		return;
	}
	end_init(&o, full);
	link_init(&l, NULL, &o);
	errno = 0;
	r = link_put(&l, putbuf, sizeof putbuf);
	e = errno;
	ok(r == -1 && e == ENOSPC, "link_put into /dev/full: -1 ENOSPC");
	link_free(&l);
	close(full);
}

static void
test_retarget(void)
{
	size_t len1 = MiB + 1, len2 = 2 * MiB + 3, len3 = MiB + 5;
	size_t len = len1 + len2 + len3;
	char *data = pattern(0, len);
	struct end i1, i2, i3, o;
	struct link l;
	unsigned used1, used2, used3;
	off_t m1, m2, m3;
	pid_t spid, fpid;
	int in1 = xtmpfile_with(data, len1);
	int in2 = xtmpfile_with(data + len1, len2), in3, s[2], keep, via[2];
	int same_via, fresh, taken;

	zerocopy_env(NULL);
	xsocketpair(s);
	spid = sink(s[0], s[1], 0, 65536, &keep);
	end_init(&i1, in1);
	end_init(&o, s[1]);
	link_init(&l, &i1, &o);
	m1 = run(&l, &used1);
	via[0] = l.via[0];
	via[1] = l.via[1];

	end_init(&i2, in2);
	link_retarget(&l, &i2, 0);
	/* Were the private pipe closed here, this would take its number
	 * and a new one would show. */
	taken = xtmpfile();
	fresh = l.path == PATH_RW && l.fast == FAST(PATH_VIA_PIPE) &&
	    l.fast_moved == 0 && l.in == &i2;
	m2 = run(&l, &used2);
	same_via = l.via[0] == via[0] && l.via[1] == via[1];

	in3 = feeder(data + len1 + len2, len3, ZC_AFTER, 65536, 0, 0, &fpid);
	end_init(&i3, in3);
	link_retarget(&l, &i3, 0);
	fresh &= l.path == PATH_RW && l.fast == FAST(PATH_SPLICE);
	m3 = run(&l, &used3);
	same_via &= l.via[0] == via[0] && l.via[1] == via[1];
	close(s[1]);
	close(in3);

	ok(fresh, "link_retarget: read/write again, the path chosen anew "
	    "for the new input, its count at 0");
	ok(good_run(m1, len1, used1, RW | ZC(PATH_VIA_PIPE)) &&
	    good_run(m2, len2, used2, RW | ZC(PATH_VIA_PIPE)) &&
	    good_run(m3, len3, used3, RW | ZC(PATH_SPLICE)) &&
	    exited_ok(fpid) && exited_ok(spid) && file_holds(keep, data, len),
	    "link_retarget: file, file, pipe -> socket: every byte in order");
#ifndef SLUICE_PORTABLE
	ok(same_via && via[0] != -1,
	    "link_retarget: the private pipe is kept, not made again");
#endif
	link_free(&l);
	ok(l.via[0] == -1 && l.via[1] == -1 && l.buf == NULL &&
	    (via[0] == -1 || fcntl(via[0], F_GETFD) == -1) &&
	    (via[1] == -1 || fcntl(via[1], F_GETFD) == -1),
	    "link_free: the private pipe closed, the buffer freed");
	close(in1);
	close(in2);
	close(keep);
	close(taken);
	free(data);
}

/*
 * A regular input's size, given to link_retarget: a short read that
 * brings all of it is the end, with no read more (bytes added after it
 * are not read); short of the size (a /sys file says more than it
 * holds), the read of 0 is waited for, and what comes meanwhile is
 * read.
 */
static void
test_size_ends(void)
{
	char *data = pattern(0, 3000);
	struct end i, o;
	struct link l;
	ssize_t n1, n2, n3, m1, m2, m3;
	int in = xtmpfile_with(data, 2000), out = xtmpfile();

	zerocopy_env(NULL);
	end_init(&i, in);
	end_init(&o, out);
	link_init(&l, &i, &o);
	link_retarget(&l, &i, 2000);
	n1 = link_step(&l, STEP);
	if (pwrite(in, data + 2000, 1000, 2000) != 1000)
		bail_out("pwrite: %s", strerror(errno));
	n2 = link_step(&l, STEP);
	n3 = link_step(&l, STEP);
	ok(n1 == 2000 && n2 == 0 && n3 == 0 && l.ended,
	    "link_retarget with the size: a short read of all of it ends "
	    "the input, no read more");

	if (lseek(in, 0, SEEK_SET) != 0 || ftruncate(in, 2000) == -1)
		bail_out("rewind: %s", strerror(errno));
	link_retarget(&l, &i, 4096);
	m1 = link_step(&l, STEP);
	if (pwrite(in, data + 2000, 1000, 2000) != 1000)
		bail_out("pwrite: %s", strerror(errno));
	m2 = link_step(&l, STEP);
	m3 = link_step(&l, STEP);
	ok(m1 == 2000 && m2 == 1000 && m3 == 0,
	    "link_retarget with a size above what is there: read until 0");
	link_free(&l);
	close(in);
	close(out);
	free(data);
}

#ifndef SLUICE_PORTABLE
/* A pipe holding the LEN bytes of BUF, writer still open (in P[1]). */
static void
full_pipe(int p[2], const char *buf, size_t len)
{
	xpipe(p);
	xwrite(p[1], buf, len);
}

/* Return 1 if pipe FD has nothing to read now. */
static int
empty(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

static void
test_xfer_dup(void)
{
	size_t len = 60000;
	char *data = pattern(0, len), *a = xmalloc(len), *b = xmalloc(len);
	int in[2], out[2];
	ssize_t n;

	full_pipe(in, data, len);
	xpipe(out);
	n = xfer_pipe(in[0], out[1], MiB, 1);
	ok(n == (ssize_t)len && read_exact(out[0], a, len) == 0 &&
	    memcmp(a, data, len) == 0 && read_exact(in[0], b, len) == 0 &&
	    memcmp(b, data, len) == 0 && empty(in[0]) && empty(out[0]),
	    "xfer_pipe with dup (tee): the output gets the bytes, the input "
	    "keeps them");
	close_pair(in);
	close_pair(out);
	free(data);
	free(a);
	free(b);
}

static void
test_xfer_move(void)
{
	size_t len = 60000;
	char *data = pattern(0, len), *a = xmalloc(len);
	int in[2], out[2];
	ssize_t n;

	full_pipe(in, data, len);
	xpipe(out);
	n = xfer_pipe(in[0], out[1], MiB, 0);
	ok(n == (ssize_t)len && read_exact(out[0], a, len) == 0 &&
	    memcmp(a, data, len) == 0 && empty(in[0]),
	    "xfer_pipe without dup (splice): the bytes move, the input is "
	    "empty");
	close_pair(in);
	close_pair(out);
	free(data);
	free(a);
}

static void
test_xfer_short_len(void)
{
	int in[2], out[2];
	char buf[8];
	ssize_t n;

	full_pipe(in, "abcdefgh", 8);
	xpipe(out);
	n = xfer_pipe(in[0], out[1], 3, 0);
	ok(n == 3 && read(out[0], buf, sizeof buf) == 3 &&
	    memcmp(buf, "abc", 3) == 0 && read(in[0], buf, sizeof buf) == 5 &&
	    memcmp(buf, "defgh", 5) == 0,
	    "xfer_pipe: never more than LEN bytes");
	close_pair(in);
	close_pair(out);
}

static void
test_xfer_eof(void)
{
	int in[2], out[2];
	ssize_t a, b;

	xpipe(in);
	xpipe(out);
	close(in[1]);
	in[1] = -1;
	a = xfer_pipe(in[0], out[1], MiB, 0);
	b = xfer_pipe(in[0], out[1], MiB, 1);
	ok(a == 0 && b == 0, "xfer_pipe: 0 at end of input, with dup or not");
	close_pair(in);
	close_pair(out);
}

/* Both pipes non-blocking, the input empty until a child writes. */
static void
test_xfer_waits(void)
{
	int in[2], out[2];
	char buf[8];
	ssize_t n;
	pid_t pid;

	xpipe2(in, O_NONBLOCK);
	xpipe2(out, O_NONBLOCK);
	if ((pid = xfork()) == 0) {
		usleep(50 * 1000);
		_exit(write(in[1], "later", 5) == 5 ? 0 : 1);
	}
	n = xfer_pipe(in[0], out[1], MiB, 0);
	ok(n == 5 && read(out[0], buf, sizeof buf) == 5 &&
	    memcmp(buf, "later", 5) == 0 && exited_ok(pid),
	    "xfer_pipe: an empty non-blocking input is waited for, no EAGAIN");
	close_pair(in);
	close_pair(out);
}

static void
test_xfer_errors(void)
{
	int in[2], out[2], fd = xtmpfile(), e;
	ssize_t n;

	full_pipe(in, "abc", 3);
	errno = 0;
	n = xfer_pipe(in[0], fd, MiB, 1);
	e = errno;
	ok(n == -1 && e == EINVAL, "xfer_pipe with dup into a file: -1 "
	    "EINVAL (tee(2) needs two pipes)");
	xpipe(out);
	close(out[0]);
	out[0] = -1;
	errno = 0;
	n = xfer_pipe(in[0], out[1], MiB, 0);
	e = errno;
	ok(n == -1 && e == EPIPE,
	    "xfer_pipe into a pipe whose reader left: -1 EPIPE");
	close_pair(in);
	close_pair(out);
	close(fd);
}
#endif

int
main(void)
{
	size_t k;

	/* The EPIPE cases need SIGPIPE ignored; a hang is a failure. */
	signal(SIGPIPE, SIG_IGN);
	watchdog(120);
	for (k = 0; k < sizeof putbuf; k++)
		putbuf[k] = pat(k);
	test_pipe_to_pipe();
	test_file_to_pipe();
	test_pipe_to_file();
	test_file_to_file();
#ifndef SLUICE_PORTABLE
	test_file_no_size();
#endif
	test_file_to_devnull();
	test_file_to_socket();
	test_socket_to_file();
	test_append();
	test_zerocopy_off();
	test_small_file();
	test_probation_boundary();
	test_trickle();
	test_devfull();
#ifndef SLUICE_PORTABLE
	test_via_held_after_failure();
#endif
	test_epipe();
	test_epipe_midway();
	test_input_dir();
	test_input_closed();
	test_output_closed();
	test_nonblock_output(NULL);
	test_nonblock_output("0");
	test_nonblock_input();
	test_put_pipe(NULL);
	test_put_pipe("0");
	test_put_file();
	test_put_errors();
	test_retarget();
	test_size_ends();
#ifndef SLUICE_PORTABLE
	test_xfer_dup();
	test_xfer_move();
	test_xfer_short_len();
	test_xfer_eof();
	test_xfer_waits();
	test_xfer_errors();
#endif
	return done();
}
