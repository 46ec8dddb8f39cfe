/*
 * Unit tests of the fan-out with a lag (lib/lag.c, lib/lagout.c,
 * lib/lagtell.c) where it ends early or is refused: failures told in
 * GNU's order, a stop that waits for no blocked write, and memory too
 * short for the lag.  ThreadSanitizer runs these (`make check-tsan`).
 */
#define _GNU_SOURCE

#include <sys/ioctl.h>

#include "lib-fanout.h"
#include "lib-lag.h"

/*
 * Two outputs failing in the same chunk are told in the order of the
 * outputs, whichever thread met its failure first; a stop asked at the
 * first tells no other.
 */
TEST(failures_in_order)
{
	struct spate_out o[3];
	int stop;

	watchdog(120);
	make_data(1 << 20);
	for (stop = 0; stop <= 1; stop++) {
		struct seen s = { .log.stop = stop };
		int in = feeder(65536), r;

		o[0].fd = xopen("/dev/null", O_WRONLY);
		o[1].fd = xopen("/dev/full", O_WRONLY);
		o[2].fd = xopen("/dev/full", O_WRONLY);
		r = run(in, o, 3, 64 << 10, SPATE_SLOW_WAIT, &s);
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
	enum spate_slow slow;

	watchdog(120);
	make_data(1 << 20);
	for (slow = SPATE_SLOW_WAIT; slow <= SPATE_SLOW_DROP; slow++) {
		struct spate_out o[3];
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
 * A packet-mode pipe in and a packet-mode pipe out: each packet read is
 * to be a packet of its own out, as GNU's tee writes it, and the lag's
 * chunks would pack them together.  The lag declines before a read
 * (lag_fanout's 1, the input untouched), and the copy gives the output
 * the packets as they came.  So it does from a device, whose read may
 * take a record (/dev/kmsg): /dev/null stands for one.
 */
TEST(packets_kept)
{
	struct spate_out o[2];
	struct seen s = { 0 };
	struct spate_fanout_opts opts = { .lag = 1 << 20 };
	char buf[4096];
	int in[2], out[2], queued = 0, r, k, whole = 1;

	watchdog(120);
	make_data(300);
	xpipe2(in, O_DIRECT);
	xpipe2(out, O_DIRECT);
	for (k = 0; k < 3; k++)
		xwrite(in[1], data + 100 * k, 100);
	close(in[1]);
	o[0].fd = out[1];
	o[1].fd = file("f1", NULL, 0);
	r = lag_fanout(in[0], o, 2, &opts, on_fail, &s);
	ioctl(in[0], FIONREAD, &queued);
	ok(r == 1 && queued == 300, "packets in and out: no lag, nothing read");
	r = run(in[0], o, 2, 1 << 20, SPATE_SLOW_WAIT, &s);
	close(o[0].fd);
	for (k = 0; k < 3; k++)
		whole &= read(out[0], buf, sizeof buf) == 100 &&
		    memcmp(buf, data + 100 * k, 100) == 0;
	ok(r == 0 && whole && read(out[0], buf, sizeof buf) == 0 &&
	    holds("f1", NULL), "packets in and out: each a packet of its own");
	close(o[1].fd);
	close(in[0]);
	close(out[0]);
	in[0] = xopen("/dev/null", O_RDONLY);
	xpipe2(out, O_DIRECT);
	o[0].fd = out[1];
	o[1].fd = file("f1", NULL, 0);
	ok(lag_fanout(in[0], o, 2, &opts, on_fail, &s) == 1,
	    "a device in, packets out: no lag");
	close_outs(o, 2);
	close(in[0]);
	close(out[0]);
	watchdog(0);
}

/*
 * Short of memory: under an address-space limit a little above what
 * the process holds, raised a page at a time, the threads cannot be
 * had, or some can, or all can and the first chunk cannot, or it can.
 * Whichever: the lag is refused before a read (SPATE_MEMORY, the files
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
			struct spate_out o[2];
			struct seen s = { 0 };
			struct rlimit was, tight;
			enum spate_side side = 0;
			struct spate_fanout_opts opts = { .lag = 1 << 20,
			    .slow = SPATE_SLOW_CLOSE, .slow_fn = on_slow,
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
			r = spate_fanout_with(in, o, 2, &opts, on_fail, &s);
			err = errno;
			setrlimit(RLIMIT_AS, &was);
			if (r == -1)
				_exit(side == SPATE_MEMORY && (err == ENOMEM ||
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
