/*
 * Unit tests of the fan-out's lanes (lib/lanes.c): files copied on
 * threads of their own by spate_fanout_parallel get every byte; a failure on
 * a lane is told once, on the caller's thread, in GNU's order among the
 * others.
 */
#define _GNU_SOURCE

#include "lib-fanout.h"

/*
 * A stream big enough for threads into files and /dev/null, or a socket,
 * by spate_fanout_parallel: every output gets every byte (ThreadSanitizer
 * watches the lanes here, see `make check-tsan`).  Beside a socket,
 * whose buffer keeps every chunk small, each lane holds many chunks at
 * once (lanes.c, "The window").
 */
TEST(parallel_files)
{
	struct spate_out o[4];
	int in, r, sock;

	unsetenv("SPATE_ZEROCOPY");
	make_data(64 << 20);
	for (sock = 0; sock <= 1; sock++) {
		struct log l = { 0 };

		in = feeder(65536);
		o[0].fd = sock ? sink_kind("s0", 1) :
		    xopen("/dev/null", O_WRONLY);
		o[1].fd = file("f1", NULL, 0);
		o[2].fd = file("f2", NULL, 0);
		o[3].fd = file("f3", NULL, 0);
		r = spate_fanout_parallel(in, o, 4, on_fail, &l);
		close_outs(o, 4);
		close(in);
		reap();
		ok(r == 0 && l.calls == 0 && holds("f1", NULL) &&
		    holds("f2", NULL) && holds("f3", NULL) &&
		    (!sock || holds("s0", NULL)),
		    "parallel: 64 MiB into three files and %s, exact",
		    sock ? "a socket" : "/dev/null");
	}
}

/*
 * A caller's signal mask is its own: a callback that blocks SIGUSR2 while
 * the threads run finds it still blocked afterwards, and SIGPIPE, which
 * the engine held while the threads ran, is unblocked again.
 */
static int
on_fail_block(void *ctx, size_t i, int err)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	return on_fail(ctx, i, err);
}

/*
 * Two files, the first written from 40 MiB on under a size limit of
 * 70 MiB (SIGXFSZ ignored): it fails with EFBIG on its lane, reported
 * once, on the caller's thread, and it holds what fits; the other file
 * gets every byte; the callback's mask stays (on_fail_block).  The soft
 * limit only: the hard one could not be raised again without
 * CAP_SYS_RESOURCE.
 */
TEST(parallel_failure)
{
	struct rlimit old, lim;
	struct spate_out o[3];
	struct log l = { 0 };
	struct stat st;
	sigset_t now, none;
	int in, r;

	unsetenv("SPATE_ZEROCOPY");
	make_data(64 << 20);
	in = feeder(65536);
	o[0].fd = xopen("/dev/null", O_WRONLY);
	o[1].fd = file("f1", NULL, 0);
	o[2].fd = file("f2", NULL, 0);
	if (lseek(o[1].fd, 40 << 20, SEEK_SET) == -1 ||
	    getrlimit(RLIMIT_FSIZE, &old) == -1 ||
	    (lim = old, lim.rlim_cur = 70 << 20,
	    setrlimit(RLIMIT_FSIZE, &lim) == -1))
		bail_out("a size limit: %s", strerror(errno));
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	r = spate_fanout_parallel(in, o, 3, on_fail_block, &l);
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	close_outs(o, 3);
	close(in);
	reap();
	ok(r == 0 && l.calls == 1 && l.i == 1 && l.err == EFBIG &&
	    !l.elsewhere && o[1].fd == -1 && holds("f2", NULL) &&
	    stat("f1", &st) == 0 && st.st_size == 70 << 20,
	    "parallel: a file fails on its lane, reported once on the "
	    "caller's thread, the other file exact");
	ok(sigismember(&now, SIGUSR2) == 1 && sigismember(&now, SIGPIPE) == 0 &&
	    sigismember(&now, SIGXFSZ) == 0,
	    "parallel: the mask a callback set stays, the held signals go");
}

/* Does file PATH hold N bytes of the input from offset OFF on, and
 * nothing after? */
static int
holds_from(const char *path, off_t off, size_t n)
{
	unsigned char *buf = xmalloc(n + 1);
	int fd = open(path, O_RDONLY), same;
	ssize_t got = fd == -1 ? -1 : pread(fd, buf, n + 1, off);

	same = n <= datalen && got == (ssize_t)n && memcmp(buf, data, n) == 0;
	if (fd != -1)
		close(fd);
	free(buf);
	return same;
}

/*
 * Three files that fail with EFBIG (a size limit, SIGXFSZ ignored), each
 * written from where the limit stops it at a chosen byte of the stream.
 * On two CPUs the first two files get lanes, the third stays on the
 * fan-out's thread (size_lanes).  f2 and f3 fail in one 8 KiB read of
 * GNU's, f3 at its start, f2 near its end; f1 in the next read.
 * Whichever thread meets its failure first, FAIL hears them in GNU's
 * order, by read, then by output: f2, f3, f1.
 */
TEST(parallel_told_in_order)
{
	enum { LIMIT = 70 << 20, AT = 30 << 20, GNU_READ = 8192 };
	static const off_t fail_at[4] = { 0, AT + GNU_READ + 10, AT + 4000,
	    AT + 100 };
	static const char *const names[4] = { NULL, "f1", "f2", "f3" };
	struct rlimit old, lim;
	struct spate_out o[4];
	struct log l = { 0 };
	int in, r, exact = 1;
	size_t i;

	if (one_cpu("no lanes"))
		return;
	unsetenv("SPATE_ZEROCOPY");
	make_data(40 << 20);
	in = feeder(65536);
	o[0].fd = xopen("/dev/null", O_WRONLY);
	for (i = 1; i < 4; i++)
		if ((o[i].fd = file(names[i], NULL, 0)) == -1 ||
		    lseek(o[i].fd, LIMIT - fail_at[i], SEEK_SET) == -1)
			bail_out("%s: %s", names[i], strerror(errno));
	if (getrlimit(RLIMIT_FSIZE, &old) == -1 ||
	    (lim = old, lim.rlim_cur = LIMIT,
	    setrlimit(RLIMIT_FSIZE, &lim) == -1))
		bail_out("a size limit: %s", strerror(errno));
	signal(SIGXFSZ, SIG_IGN);
	r = spate_fanout_parallel(in, o, 4, on_fail, &l);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	close_outs(o, 4);
	close(in);
	reap();
	for (i = 1; i < 4; i++)
		exact &= holds_from(names[i], LIMIT - fail_at[i], fail_at[i]);
	ok(r == 0 && l.calls == 3 && l.order[0] == 2 && l.order[1] == 3 &&
	    l.order[2] == 1 && l.err == EFBIG && !l.elsewhere && exact,
	    "parallel: three files fail, two on lanes: told in GNU's order "
	    "(told %d: %zu %zu %zu), each holds what fitted", l.calls,
	    l.order[0], l.order[1], l.order[2]);
#ifdef SPATE_PORTABLE
	skip("portable: no zero-copy, so no lanes");
#else
	ok(l.threads >= 2, "parallel: ... while a worker ran (%d threads "
	    "at most)", l.threads);
#endif
}
