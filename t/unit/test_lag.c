/*
 * Unit tests of the fan-out with a lag (lib/lag.c, lib/lagout.c): each
 * output on a thread of its own, pipes, a regular file and a socket
 * among them.  Every byte an output is given is the input's, in order:
 * all of it (SL_SLOW_WAIT), a prefix (SL_SLOW_CLOSE), or the input less
 * whole chunks, as many bytes as the engine says it missed
 * (SL_SLOW_DROP); an output closed or dropping never holds the others.
 * ThreadSanitizer runs these (`make check-tsan`).
 */
#define _GNU_SOURCE

#include "lib-fanout.h"
#include "lag.h"

#include <stdint.h>

/* What the callbacks saw: on_fail's log, and the slow outputs told. */
struct seen {
	struct log log;		/* first: on_fail takes it as its CTX */
	int closed[MAXOUT];	/* SL_SLOW_CLOSE told, per output */
	off_t missed[MAXOUT];	/* SL_SLOW_DROP's count, per output */
	int elsewhere;		/* a callback came on another thread */
	off_t progress;		/* the last progress told */
	int backwards;		/* progress once went back */
};

static void
on_slow(void *ctx, size_t i, enum sl_slow what, long long missed)
{
	struct seen *s = ctx;

	if (!pthread_equal(pthread_self(), main_thread))
		s->elsewhere = 1;
	if (what == SL_SLOW_CLOSE)
		s->closed[i]++;
	else
		s->missed[i] += missed;
}

static void
on_progress(void *ctx, long long bytes)
{
	struct seen *s = ctx;

	if (!pthread_equal(pthread_self(), main_thread))
		s->elsewhere = 1;
	if (bytes < s->progress)
		s->backwards = 1;
	s->progress = bytes;
}

/* sl_fanout_with IN into the N outputs O, with LAG and SLOW. */
static int
run(int in, struct sl_out *o, size_t n, off_t lag, enum sl_slow slow,
    struct seen *s)
{
	struct sl_fanout_opts opts = { .lag = lag, .slow = slow,
	    .slow_fn = on_slow, .progress = on_progress };

	return sl_fanout_with(in, o, n, &opts, on_fail, s);
}

/* The LEN bytes at BUF are the input with whole chunks (LAG_CHUNK each,
 * from its start) left out, and MISSED bytes of it were. */
static int
whole_chunks_left_out(const unsigned char *buf, size_t len, off_t missed)
{
	size_t p = 0, q = 0;

	while (q < len && p < datalen) {
		size_t k = datalen - p < LAG_CHUNK ? datalen - p : LAG_CHUNK;

		if (len - q >= k && memcmp(buf + q, data + p, k) == 0)
			q += k;
		p += k;
	}
	return q == len && (off_t)(datalen - len) == missed;
}

/* Everything pipe P's read end holds until its writer closes it. */
static unsigned char *
drain(int p, size_t *len)
{
	unsigned char *buf = xmalloc(datalen + 1);
	ssize_t k;

	*len = 0;
	while (*len <= datalen &&
	    (k = read(p, buf + *len, datalen + 1 - *len)) > 0)
		*len += k;
	return buf;
}

/*
 * SL_SLOW_WAIT with a lag: a pipe, a socket and a regular file, fed by
 * a pipe in odd pieces, all get every byte; progress goes forward to
 * the whole input, on the caller's thread.
 */
TEST(wait_every_kind)
{
	struct sl_out o[3];
	struct seen s = { 0 };
	int in, r;

	if (one_cpu("the outputs' threads"))
		return;
	watchdog(120);
	make_data(6 << 20);
	in = feeder(65521);
	o[0].fd = sink("p0");
	o[1].fd = sink_kind("s1", 1);
	o[2].fd = file("f2", NULL, 0);
	r = run(in, o, 3, 256 << 10, SL_SLOW_WAIT, &s);
	close_outs(o, 3);
	close(in);
	reap();
	ok(r == 0 && s.log.calls == 0 && holds("p0", NULL) &&
	    holds("s1", NULL) && holds("f2", NULL),
	    "wait: a pipe, a socket and a file get every byte");
	ok(!s.elsewhere && !s.backwards && s.progress == (off_t)datalen,
	    "wait: progress goes forward to the end, on the caller's thread");
	watchdog(0);
}

/*
 * SL_SLOW_CLOSE: a pipe whose reader never reads is closed, told once,
 * its fd -1; the file beside it gets every byte; and the pipe, read once
 * the copy is over, holds a prefix of the input, then its end (the
 * thread left in write(2) closes it once that write returns).
 */
TEST(close_stalled)
{
	struct sl_out o[2];
	struct seen s = { 0 };
	unsigned char *got;
	int in, p[2], r;
	size_t len;

	watchdog(120);
	make_data(4 << 20);
	in = feeder(65536);
	xpipe(p);
	o[0].fd = file("f0", NULL, 0);
	o[1].fd = p[1];
	r = run(in, o, 2, 128 << 10, SL_SLOW_CLOSE, &s);
	ok(r == 0 && s.closed[1] == 1 && s.closed[0] == 0 && o[1].fd == -1 &&
	    s.log.calls == 0 && !s.elsewhere && holds("f0", NULL),
	    "close: the stalled pipe closed and told, the file has it all");
	got = drain(p[0], &len);
	ok(len < datalen && memcmp(got, data, len) == 0,
	    "close: the stalled pipe had a prefix of the input, %zu bytes",
	    len);
	free(got);
	close_outs(o, 2);
	close(p[0]);
	close(in);
	reap();
	watchdog(0);
}

/* A reader of pipe P (a thread) that takes a page at a time, yielding
 * between, into BUF; it ends at the pipe's end. */
struct trickle {
	int p;
	unsigned char *buf;
	size_t len;
	pthread_t tid;
};

static void *
trickle_reader(void *arg)
{
	struct trickle *t = arg;
	ssize_t k;

	while (t->len <= datalen &&
	    (k = read(t->p, t->buf + t->len, 4096)) > 0) {
		t->len += k;
		sched_yield();
	}
	return NULL;
}

/* The LEN bytes file PATH holds, in memory (freed by the caller). */
static unsigned char *
slurp(const char *path, size_t *len)
{
	int fd = xopen(path, O_RDONLY);
	unsigned char *buf = drain(fd, len);

	close(fd);
	return buf;
}

/*
 * SL_SLOW_DROP with a reader that trickles: the pipe gets the input less
 * whole chunks, in order, and what it missed is told at the end.  So
 * does the file: the pipe, read all along, may be the fastest while the
 * file's thread waits for a CPU (drop_stalled has a file that is the
 * fastest, and gets every byte).
 */
TEST(drop_slow)
{
	struct sl_out o[2];
	struct seen s = { 0 };
	struct trickle t = { 0 };
	unsigned char *f0;
	int in, p[2], r;
	size_t len;

	watchdog(120);
	file_input(16 << 20);
	in = xopen("in", O_RDONLY);
	xpipe(p);
	t.p = p[0];
	t.buf = xmalloc(datalen + 1);
	if (pthread_create(&t.tid, NULL, trickle_reader, &t) != 0)
		bail_out("pthread_create");
	o[0].fd = file("f0", NULL, 0);
	o[1].fd = p[1];
	r = run(in, o, 2, 256 << 10, SL_SLOW_DROP, &s);
	close_outs(o, 2);
	pthread_join(t.tid, NULL);
	f0 = slurp("f0", &len);
	ok(r == 0 && s.log.calls == 0 && !s.elsewhere && s.closed[1] == 0 &&
	    whole_chunks_left_out(t.buf, t.len, s.missed[1]) && t.len > 0,
	    "drop: the pipe had the input less whole chunks (%zu bytes, "
	    "%jd missed)", t.len, (intmax_t)s.missed[1]);
	ok(whole_chunks_left_out(f0, len, s.missed[0]) && len > 0,
	    "drop: so did the file (%zu bytes)", len);
	free(f0);
	free(t.buf);
	close(p[0]);
	close(in);
	watchdog(0);
}

/* sl_fanout_with on a thread of its own (drop_stalled). */
struct copy {
	int in;
	struct sl_out *o;
	struct seen *s;
	int r;
};

static void *
copy_thread(void *arg)
{
	struct copy *c = arg;

	c->r = run(c->in, c->o, 2, 128 << 10, SL_SLOW_DROP, c->s);
	return NULL;
}

/*
 * SL_SLOW_DROP with a reader that never reads while the copy runs: the
 * file beside it gets every byte before that reader takes one (it never
 * held the file back); then the pipe, read, holds the input less whole
 * chunks, as many bytes as were told missed.
 */
TEST(drop_stalled)
{
	struct sl_out o[2];
	struct seen s = { 0 };
	struct copy c = { .o = o, .s = &s };
	struct trickle t = { 0 };
	pthread_t tid;
	struct stat st;
	int p[2];

	watchdog(120);
	file_input(8 << 20);
	c.in = xopen("in", O_RDONLY);
	xpipe(p);
	o[0].fd = file("f0", NULL, 0);
	o[1].fd = p[1];
	if (pthread_create(&tid, NULL, copy_thread, &c) != 0)
		bail_out("pthread_create");
	/* The watchdog ends a copy held back by the stalled pipe. */
	while (stat("f0", &st) == 0 && st.st_size < (off_t)datalen)
		usleep(1000);
	ok(holds("f0", NULL),
	    "drop: the file had every byte while the pipe stalled");
	t.p = p[0];
	t.buf = xmalloc(datalen + 1);
	if (pthread_create(&t.tid, NULL, trickle_reader, &t) != 0)
		bail_out("pthread_create");
	pthread_join(tid, NULL);
	close_outs(o, 2);
	pthread_join(t.tid, NULL);
	ok(c.r == 0 && s.log.calls == 0 && t.len < datalen &&
	    whole_chunks_left_out(t.buf, t.len, s.missed[1]),
	    "drop: the stalled pipe had the input less whole chunks "
	    "(%zu bytes)", t.len);
	free(t.buf);
	close(p[0]);
	close(c.in);
	watchdog(0);
}

/*
 * A pipe whose reader leaves (SIGPIPE ignored): EPIPE told once, on the
 * caller's thread, its fd -1; the file beside it gets every byte.  And
 * at the default action, SIGPIPE ends the process, as GNU's tee ends.
 */
TEST(dying_reader)
{
	struct sl_out o[2];
	struct seen s = { 0 };
	int in, p[2], r, status;
	pid_t pid;

	watchdog(120);
	make_data(4 << 20);
	in = feeder(65536);
	xpipe(p);
	if (xfork() == 0) {
		char buf[8192];

		close(p[1]);
		_exit(read(p[0], buf, sizeof buf) > 0 ? 0 : 1);
	}
	close(p[0]);
	o[0].fd = file("f0", NULL, 0);
	o[1].fd = p[1];
	r = run(in, o, 2, 1 << 20, SL_SLOW_WAIT, &s);
	ok(r == 0 && s.log.calls == 1 && s.log.i == 1 &&
	    s.log.err == EPIPE && !s.log.elsewhere && o[1].fd == -1 &&
	    holds("f0", NULL),
	    "dying: EPIPE told once on the caller's thread, the file whole");
	close_outs(o, 2);
	close(in);
	reap();

	if ((pid = xfork()) == 0) {
		signal(SIGPIPE, SIG_DFL);
		in = feeder(65536);
		xpipe(p);
		close(p[0]);
		o[0].fd = xopen("/dev/null", O_WRONLY);
		o[1].fd = p[1];
		run(in, o, 2, 1 << 20, SL_SLOW_DROP, &s);
		_exit(0);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGPIPE,
	    "dying: at SIGPIPE's default action, the process ends of it");
	reap();
	watchdog(0);
}

/*
 * Two outputs failing in the same chunk are told in the order of the
 * outputs, whichever thread met its failure first; a stop asked at the
 * first tells no other.
 */
TEST(failures_in_order)
{
	struct sl_out o[3];
	int stop;

	watchdog(120);
	make_data(1 << 20);
	for (stop = 0; stop <= 1; stop++) {
		struct seen s = { .log.stop = stop };
		int in = feeder(65536), r;

		o[0].fd = xopen("/dev/null", O_WRONLY);
		o[1].fd = xopen("/dev/full", O_WRONLY);
		o[2].fd = xopen("/dev/full", O_WRONLY);
		r = run(in, o, 3, 64 << 10, SL_SLOW_WAIT, &s);
		ok(r == 0 && s.log.calls == 2 - stop &&
		    s.log.order[0] == 1 && (stop || s.log.order[1] == 2) &&
		    s.log.err == ENOSPC && !s.log.elsewhere,
		    "failures told in the order of the outputs%s",
		    stop ? ", the first alone when it stops" : "");
		close_outs(o, 3);
		close(in);
		reap();
	}
	watchdog(0);
}

/* Fill pipe P's write end till it takes no more; return the count. */
static size_t
fill(int p)
{
	static const char junk[4096];
	size_t n = 0;
	ssize_t k;
	int fl = fcntl(p, F_GETFL);

	fcntl(p, F_SETFL, fl | O_NONBLOCK);
	while ((k = write(p, junk, sizeof junk)) > 0)
		n += k;
	fcntl(p, F_SETFL, fl);
	return n;
}

/*
 * A stop while an output's thread is blocked in write(2) on a full pipe
 * whose reader never reads: the call returns at once, the failure told
 * alone, and the pipe let go (fd -1), its thread closing it once that
 * write returns (or, stopped before its first write, the thread ended
 * and the fd left to the caller).  The pipe, read afterwards, holds
 * what filled it, then a prefix of the input.  In every mode.
 */
TEST(stop_lets_go)
{
	enum sl_slow slow;

	watchdog(120);
	make_data(1 << 20);
	for (slow = SL_SLOW_WAIT; slow <= SL_SLOW_DROP; slow++) {
		struct sl_out o[3];
		struct seen s = { .log.stop = 1 };
		unsigned char *got;
		int in = feeder(65536), p[2], r;
		size_t len, full;

		xpipe(p);
		full = fill(p[1]);
		o[0].fd = xopen("/dev/null", O_WRONLY);
		o[1].fd = xopen("/dev/full", O_WRONLY);
		o[2].fd = p[1];
		r = run(in, o, 3, 1 << 20, slow, &s);
		ok(r == 0 && s.log.calls == 1 && s.log.order[0] == 1 &&
		    s.log.err == ENOSPC && s.closed[2] == 0,
		    "stop (mode %d): returns, the failure told alone", slow);
		close_outs(o, 3);
		got = drain(p[0], &len);
		ok(len >= full && len - full < datalen &&
		    memcmp(got + full, data, len - full) == 0,
		    "stop (mode %d): the pipe had a prefix, %zu bytes", slow,
		    len - full);
		free(got);
		close(p[0]);
		close(in);
		reap();
	}
	watchdog(0);
}

/* The address space this process has mapped, in bytes (VmSize). */
static rlim_t
address_space(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kb = 0;

	if (f == NULL)
		bail_out("/proc/self/status");
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "VmSize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	if (kb == 0)
		bail_out("no VmSize");
	return kb << 10;
}

/*
 * Return 1 if a limit of the address space a little above what this
 * process holds leaves it the room it seems to; or 0, saying why not:
 * the sanitizers' shadow memory (ThreadSanitizer's own allocations then
 * fail), valgrind's own (its preloaded library says it runs) and an
 * emulator's count against it.
 */
static int
address_space_exact(void)
{
	const char *pre = getenv("LD_PRELOAD");
	const char *why = NULL;

#if defined(__SANITIZE_ADDRESS__)
	why = "AddressSanitizer";
#elif defined(__SANITIZE_THREAD__)
	why = "ThreadSanitizer";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	why = "AddressSanitizer";
#elif __has_feature(thread_sanitizer)
	why = "ThreadSanitizer";
#endif
#endif
	if (pre != NULL && strstr(pre, "vgpreload") != NULL)
		why = "valgrind";
	if (getenv("SPATE_EMULATOR") != NULL)
		why = "an emulator";
	if (why == NULL)
		return 1;
	/* No case there, as t2007 has none for the sanitizer build: a
	 * skip would fail CI's runs of these builds (SPATE_NO_SKIP), and
	 * the case runs in every native build's make check. */
	printf("# short_of_memory: no case under %s, whose memory counts "
	    "against the limit\n", why);
	return 0;
}

/* Return 1 if file NAME is empty. */
static int
empty(const char *name)
{
	struct stat st;

	return stat(name, &st) == 0 && st.st_size == 0;
}

/*
 * Short of memory: under an address-space limit a little above what
 * the process holds, raised a page at a time, the threads cannot be
 * had, or some can, or all can and the first chunk cannot, or it can.
 * Whichever: the lag is refused before a read (SL_MEMORY, the files
 * empty), or every byte reaches both files; never a copy made silently
 * without the lag asked for.
 */
TEST(short_of_memory)
{
	size_t extra;
	int fails = 0;

	if (!address_space_exact())
		return;
	watchdog(120);
	file_input(300000);
	for (extra = 0; extra <= 4 * LAG_CHUNK; extra += 4096) {
		int status;
		pid_t pid;

		if ((pid = xfork()) == 0) {
			struct sl_out o[2];
			struct seen s = { 0 };
			struct rlimit was, tight;
			enum sl_side side = 0;
			struct sl_fanout_opts opts = { .lag = 1 << 20,
			    .slow = SL_SLOW_CLOSE, .slow_fn = on_slow,
			    .side = &side };
			int in = xopen("in", O_RDONLY), r, err;

			o[0].fd = file("f0", NULL, 0);
			o[1].fd = file("f1", NULL, 0);
			if (getrlimit(RLIMIT_AS, &was) == -1)
				_exit(2);
			tight = was;
			tight.rlim_cur = address_space() + extra;
			if (setrlimit(RLIMIT_AS, &tight) == -1)
				_exit(2);
			r = sl_fanout_with(in, o, 2, &opts, on_fail, &s);
			err = errno;
			setrlimit(RLIMIT_AS, &was);
			if (r == -1)
				_exit(side == SL_MEMORY && (err == ENOMEM ||
				    err == EAGAIN) && s.log.calls == 0 &&
				    empty("f0") && empty("f1") ? 0 : 1);
			_exit(r == 0 && s.log.calls == 0 && holds("f0", NULL) &&
			    holds("f1", NULL) ? 0 : 1);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			fails++;
	}
	ok(fails == 0, "short of memory: refused before a read, or every "
	    "byte (%d limits of %zu failed)", fails, 4 * LAG_CHUNK / 4096 + 1);
	watchdog(0);
}
