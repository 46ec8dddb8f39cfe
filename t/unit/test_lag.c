/*
 * Unit tests of the fan-out with a lag (lib/lag.c, lib/lagout.c): each
 * output on a thread of its own, pipes, a regular file and a socket
 * among them.  Every byte an output is given is the input's, in order:
 * all of it (SPATE_SLOW_WAIT), a prefix (SPATE_SLOW_CLOSE), or the input less
 * whole chunks, as many bytes as the engine says it missed
 * (SPATE_SLOW_DROP); an output closed or dropping never holds the others.
 * Its stops, failures and limits: test_lag_ends.c.  ThreadSanitizer
 * runs these (`make check-tsan`).
 */
#define _GNU_SOURCE

#include "lib-fanout.h"
#include "lib-lag.h"

#include <stdint.h>
#include <sys/ioctl.h>

/*
 * SPATE_SLOW_WAIT with a lag: a pipe, a socket and a regular file, fed by
 * a pipe in odd pieces, all get every byte; progress goes forward to
 * the whole input, on the caller's thread.
 */
TEST(wait_every_kind)
{
	struct spate_out o[3];
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
	r = run(in, o, 3, 256 << 10, SPATE_SLOW_WAIT, &s);
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
 * SPATE_SLOW_CLOSE: a pipe whose reader never reads is closed, told once,
 * its fd -1; the file beside it gets every byte; and the pipe, read once
 * the copy is over, holds a prefix of the input, then its end (the
 * thread left in write(2) closes it once that write returns).
 */
TEST(close_stalled)
{
	struct spate_out o[2];
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
	r = run(in, o, 2, 128 << 10, SPATE_SLOW_CLOSE, &s);
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

	/* LEN is read by the test's thread too (drop_stalled). */
	while (t->len <= datalen && (k = read(t->p, t->buf + t->len,
	    datalen + 1 - t->len < 4096 ? datalen + 1 - t->len : 4096)) > 0) {
		__atomic_store_n(&t->len, t->len + k, __ATOMIC_RELEASE);
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
 * SPATE_SLOW_DROP with a reader that trickles: the pipe gets the input less
 * whole chunks, in order, and what it missed is told at the end.  So
 * does the file: the pipe, read all along, may be the fastest while the
 * file's thread waits for a CPU (drop_stalled has a file that is the
 * fastest, and gets every byte).
 */
TEST(drop_slow)
{
	struct spate_out o[2];
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
	r = run(in, o, 2, 256 << 10, SPATE_SLOW_DROP, &s);
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

/* spate_fanout_with on a thread of its own (drop_stalled). */
struct copy {
	int in;
	struct spate_out *o;
	struct seen *s;
	int r;
};

static void *
copy_thread(void *arg)
{
	struct copy *c = arg;

	c->r = run(c->in, c->o, 2, 128 << 10, SPATE_SLOW_DROP, c->s);
	return NULL;
}

/*
 * SPATE_SLOW_DROP with a reader that reads nothing until the file beside it
 * has the first half of the input, far more than the lag and the pipe's
 * buffer: the pipe, slow, held the file back no longer than it took to
 * be judged so.  Then read while the second half comes, it holds the
 * input less whole chunks, as many bytes as were told missed, and is not
 * closed at the end.  The input is a pipe this thread feeds, so that the
 * copy cannot end before the reader reads: the second half is fed once
 * the reader took what the pipe held and the write that stalled (a
 * stalled output's writes are GNU_CHUNK), so that the pipe's next write
 * is under way, and the output not slow, when the input ends, however
 * late the reader's thread was given a CPU.
 */
TEST(drop_stalled)
{
	struct spate_out o[2];
	struct seen s = { 0 };
	struct copy c = { .o = o, .s = &s };
	struct trickle t = { 0 };
	pthread_t tid;
	struct stat st;
	int p[2], in[2], held;

	watchdog(120);
	make_data(8 << 20);
	xpipe(in);
	c.in = in[0];
	xpipe(p);
	o[0].fd = file("f0", NULL, 0);
	o[1].fd = p[1];
	if (pthread_create(&tid, NULL, copy_thread, &c) != 0)
		bail_out("pthread_create");
	xwrite(in[1], data, datalen / 2);
	/* The watchdog ends a copy held back by the stalled pipe. */
	while (stat("f0", &st) == 0 && st.st_size < (off_t)datalen / 2)
		usleep(1000);
	t.p = p[0];
	t.buf = xmalloc(datalen + 1);
	if (ioctl(p[0], FIONREAD, &held) == -1)
		bail_out("FIONREAD");
	if (pthread_create(&t.tid, NULL, trickle_reader, &t) != 0)
		bail_out("pthread_create");
	while (__atomic_load_n(&t.len, __ATOMIC_ACQUIRE) <=
	    (size_t)held + GNU_CHUNK)
		usleep(1000);
	xwrite(in[1], data + datalen / 2, datalen - datalen / 2);
	close(in[1]);
	pthread_join(tid, NULL);
	close_outs(o, 2);
	pthread_join(t.tid, NULL);
	ok(holds("f0", NULL),
	    "drop: the file had every byte, half while the pipe stalled");
	ok(c.r == 0 && s.log.calls == 0 && t.len < datalen &&
	    s.closed[1] == 0 &&
	    whole_chunks_left_out(t.buf, t.len, s.missed[1]),
	    "drop: the stalled pipe had the input less whole chunks "
	    "(%zu bytes)", t.len);
	free(t.buf);
	close(p[0]);
	close(in[0]);
	watchdog(0);
}

/*
 * A pipe whose reader leaves (SIGPIPE ignored): EPIPE told once, on the
 * caller's thread, its fd -1; the file beside it gets every byte.  And
 * at the default action, SIGPIPE ends the process, as GNU's tee ends.
 */
TEST(dying_reader)
{
	struct spate_out o[2];
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
	r = run(in, o, 2, 1 << 20, SPATE_SLOW_WAIT, &s);
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
		run(in, o, 2, 1 << 20, SPATE_SLOW_DROP, &s);
		_exit(0);
	}
	ok(waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGPIPE,
	    "dying: at SIGPIPE's default action, the process ends of it");
	reap();
	watchdog(0);
}
