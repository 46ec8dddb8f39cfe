/*
 * Unit tests of spate_fanout's rounds (lib/fanout.c): every output gets
 * every byte, in order, on either path, at every size, from pipes,
 * files and record sockets; a failing output is told once, the others
 * complete.
 */
#define _GNU_SOURCE

#include "lib-fanout.h"

/* Pipe input to two pipes and a file, at SIZE bytes in STEP pieces. */
static void
test_pipe_to_all(size_t size, size_t step, const char *zc)
{
	struct spate_out o[3];
	struct log l = { 0 };
	int in, r;

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(size);
	in = feeder(step);
	o[0].fd = sink("p0");
	o[1].fd = file("f1", NULL, 0);
	o[2].fd = sink("p2");
	r = spate_fanout(in, o, 3, on_fail, &l);
	close_outs(o, 3);
	close(in);
	reap();
	ok(r == 0 && l.calls == 0 && holds("p0", NULL) && holds("f1", NULL) &&
	    holds("p2", NULL), "pipe -> pipe, file, pipe: %zu bytes by %zu, "
	    "SPATE_ZEROCOPY=%s", size, step, zc);
}

/* Regular-file input to a pipe, an O_APPEND file and /dev/null. */
static void
test_file_input(size_t size, const char *zc)
{
	struct spate_out o[3];
	struct log l = { 0 };
	int in, r;

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(size);
	in = file("in", NULL, 0);
	xwrite(in, data, datalen);
	close(in);
	in = xopen("in", O_RDONLY);
	o[0].fd = sink("p0");
	o[1].fd = file("a1", "prior\n", O_APPEND);
	o[2].fd = xopen("/dev/null", O_WRONLY);
	r = spate_fanout(in, o, 3, on_fail, &l);
	close_outs(o, 3);
	close(in);
	reap();
	ok(r == 0 && l.calls == 0 && holds("p0", NULL) &&
	    holds("a1", "prior\n"), "file -> pipe, O_APPEND file, /dev/null: "
	    "%zu bytes, SPATE_ZEROCOPY=%s", size, zc);
}

/* /dev/full fails once with ENOSPC; the outputs around it complete. */
static void
test_devfull(const char *zc)
{
	struct spate_out o[3];
	struct log l = { 0 };
	int in, r;

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(300000);
	in = feeder(4096);
	o[0].fd = sink("p0");
	o[1].fd = xopen("/dev/full", O_WRONLY);
	o[2].fd = file("f2", NULL, 0);
	r = spate_fanout(in, o, 3, on_fail, &l);
	ok(r == 0 && l.calls == 1 && l.i == 1 && l.err == ENOSPC &&
	    o[1].fd == -1, "/dev/full reported once as ENOSPC, "
	    "SPATE_ZEROCOPY=%s", zc);
	close_outs(o, 3);
	close(in);
	reap();
	ok(holds("p0", NULL) && holds("f2", NULL),
	    "the other outputs got every byte, SPATE_ZEROCOPY=%s", zc);
}

/* A failure that asks to stop: the outputs after it get nothing more. */
static void
test_stop(const char *zc)
{
	struct spate_out o[2];
	struct log l = { .stop = 1 };
	struct stat st;
	int in, r;

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(100);
	in = feeder(100);
	o[0].fd = xopen("/dev/full", O_WRONLY);
	o[1].fd = file("f1", NULL, 0);
	r = spate_fanout(in, o, 2, on_fail, &l);
	close_outs(o, 2);
	close(in);
	reap();
	ok(r == 0 && l.calls == 1 && stat("f1", &st) == 0 && st.st_size == 0,
	    "stop at the first failure, later outputs untouched, "
	    "SPATE_ZEROCOPY=%s", zc);
}

/* Every output gone: the copy ends without reading the input out. */
TEST(all_gone)
{
	struct spate_out o[1];
	struct log l = { 0 };
	int in, r;

	unsetenv("SPATE_ZEROCOPY");
	make_data(10 << 20);
	in = feeder(65536);
	o[0].fd = xopen("/dev/full", O_WRONLY);
	r = spate_fanout(in, o, 1, on_fail, &l);
	close(in);
	reap();
	ok(r == 0 && l.calls == 1, "no output left: returns");
}

/* Reading a directory fails: -1 with errno EISDIR. */
TEST(read_error)
{
	struct spate_out o[1];
	struct log l = { 0 };
	int in = xopen(".", O_RDONLY | O_DIRECTORY), r;

	o[0].fd = xopen("/dev/null", O_WRONLY);
	r = spate_fanout(in, o, 1, on_fail, &l);
	ok(r == -1 && errno == EISDIR && l.calls == 0,
	    "directory input: -1, EISDIR");
	close(o[0].fd);
	close(in);
}

/* A non-blocking output pipe with a slow reader: waits, loses nothing. */
static void
test_nonblocking(const char *zc)
{
	struct spate_out o[2];
	struct log l = { 0 };
	int in, r;

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(3 << 20);
	in = feeder(65536);
	xsetfl(in, O_NONBLOCK);
	o[0].fd = sink("p0");
	xsetfl(o[0].fd, O_NONBLOCK);
	o[1].fd = sink("p1");
	xsetfl(o[1].fd, O_NONBLOCK);
	r = spate_fanout(in, o, 2, on_fail, &l);
	close_outs(o, 2);
	close(in);
	reap();
	ok(r == 0 && l.calls == 0 && holds("p0", NULL) && holds("p1", NULL),
	    "non-blocking input and outputs, SPATE_ZEROCOPY=%s", zc);
}

/* A SOCK_SEQPACKET socket fed with the input by a child, in records of
 * SIZE bytes (the last one shorter). */
static int
record_feeder(size_t size)
{
	int s[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, s) == -1)
		bail_out("socketpair: %s", strerror(errno));
	if (xfork() == 0) {
		size_t off = 0;

		close(s[0]);
		while (off < datalen) {
			size_t k = datalen - off < size ? datalen - off : size;

			if (send(s[1], data + off, k, 0) != (ssize_t)k)
				_exit(1);
			off += k;
		}
		_exit(0);
	}
	close(s[1]);
	return s[0];
}

/*
 * Records longer than a chunk (an output pipe's 64 KiB) and than the
 * buffer (BUF_SIZE), from a non-blocking SOCK_SEQPACKET input, into a
 * pipe and a file: each record is read whole (a read shorter than a
 * record loses its rest) and given out in chunks, never spliced.
 */
static void
test_records(const char *zc)
{
	struct spate_out o[2];
	struct log l = { 0 };
	int in, r;

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(12 * 200000 + 1234);
	in = record_feeder(200000);
	xsetfl(in, O_NONBLOCK);
	o[0].fd = sink("p0");
	o[1].fd = file("f1", NULL, 0);
	r = spate_fanout(in, o, 2, on_fail, &l);
	close_outs(o, 2);
	close(in);
	reap();
	ok(r == 0 && l.calls == 0 && holds("p0", NULL) && holds("f1", NULL),
	    "seqpacket records of 200000 bytes -> pipe, file: every byte, "
	    "SPATE_ZEROCOPY=%s", zc);
}

/* The cases that take SPATE_ZEROCOPY, with it ZC, at every size. */
static void
each_size(const char *zc)
{
	static const size_t sizes[] = { 0, 1, 4095, 4096, 65537, 5 << 20 };
	size_t i;

	for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		test_pipe_to_all(sizes[i], 65536, zc);
		test_file_input(sizes[i], zc);
	}
	test_pipe_to_all(100000, 7, zc);
	test_devfull(zc);
	test_stop(zc);
	test_nonblocking(zc);
	test_records(zc);
}

TEST(zerocopy)
{
	each_size("1");
}

TEST(read_write)
{
	each_size("0");
}

/* A failure log and what the progress hook was told: every count larger
 * than the one before (INCREASING stays 1), the last one LAST.  LOG
 * first: the fan-out gives both callbacks the same context. */
struct log_told {
	struct log log;
	off_t last;
	size_t calls;
	int increasing;
};

static void
on_progress(void *ctx, long long bytes)
{
	struct log_told *t = ctx;

	if (bytes <= t->last)
		t->increasing = 0;
	t->last = bytes;
	t->calls++;
}

/* Pipe input to N outputs (N 1: copy_single; more: the rounds), the
 * progress hook told of every chunk. */
static void
progress_case(size_t n, const char *zc)
{
	struct spate_fanout_opts opts = { .progress = on_progress };
	struct log_told t = { .increasing = 1 };
	struct spate_out o[3];
	int in, r, good = 1;
	size_t i;
	char name[8];

	setenv("SPATE_ZEROCOPY", zc, 1);
	make_data(3 * 1048576 + 5);
	in = feeder(65536);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "p%zu", i);
		o[i].fd = i == 1 ? file(name, NULL, 0) : sink(name);
	}
	r = spate_fanout_with(in, o, n, &opts, on_fail, &t);
	close_outs(o, n);
	close(in);
	reap();
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "p%zu", i);
		good &= holds(name, NULL);
	}
	ok(r == 0 && t.log.calls == 0 && good, "pipe -> %zu outputs, a hook: "
	    "every byte, SPATE_ZEROCOPY=%s", n, zc);
	ok(t.calls > 1 && t.increasing && t.last == (off_t)datalen,
	    "the hook told %zu times, counts growing, the last %lld of %zu",
	    t.calls, (long long)t.last, datalen);
}

TEST(progress)
{
	progress_case(1, "1");
	progress_case(1, "0");
	progress_case(3, "1");
	progress_case(3, "0");
}
