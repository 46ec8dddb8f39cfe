/*
 * Unit tests of the signals a fan-out holds and lets in (lib/signals.c):
 * a held SIGXFSZ ends it only once the outputs before the failed one
 * have GNU's due; signals sent from outside are handled on the caller's
 * thread, and cost no byte.
 */
#define _GNU_SOURCE

#include "lib-fanout.h"

/*
 * A held SIGXFSZ learned in a stall: a file input, a pipe whose reader
 * takes the first STOP bytes and then nothing for 3 s, and two files,
 * the first on a lane and past its size limit at FAIL_AT (SIGXFSZ at its
 * default: held, then it ends the copy).  The pipe, full once it holds
 * its size after STOP, fixes the last chunk it takes to end there, 4 KiB
 * into GNU's 8 KiB read [READ, READ + 8192) in which the file fails; the
 * next round stalls on the pipe, gives back, and learns of the failure.
 * GNU's tee writes each read to the pipe before the file: its pipe gets
 * all of that read.  So must the fan-out's, before the signal ends it.
 */
TEST(parallel_dying_in_stall)
{
	enum { READ = 1000 * 8192, LIMIT = 70 << 20 };
	off_t fail_at = READ + 100, want = READ + 8192;
	struct spate_out o[3];
	struct rlimit lim;
	pid_t reader, teer;
	int in, p[2], go[2], cap, rstatus, tstatus;
	ssize_t n;

	if (one_cpu("no lanes, so no lane's failure to learn late"))
		return;
#ifdef SPATE_PORTABLE
	skip("portable: no zero-copy, so no lanes and no stall");
	return;
#endif
	unsetenv("SPATE_ZEROCOPY");
	file_input(16 << 20);
	xpipe(p);
	xpipe(go);
	cap = fcntl(p[1], F_GETPIPE_SZ);
	reader = stopping_reader(p, go, READ + 4096 - cap, 3000);
	if ((teer = xfork()) == 0) {
		close(p[0]);
		close(go[0]);
		o[0].fd = p[1];
		o[1].fd = file("f1", NULL, 0);
		o[2].fd = file("f2", NULL, 0);
		in = xopen("in", O_RDONLY);
		if (lseek(o[1].fd, LIMIT - fail_at, SEEK_SET) == -1 ||
		    getrlimit(RLIMIT_FSIZE, &lim) == -1 ||
		    (lim.rlim_cur = LIMIT, setrlimit(RLIMIT_FSIZE, &lim) == -1))
			_exit(3);
		signal(SIGXFSZ, SIG_DFL);
		spate_fanout_parallel(in, o, 3, on_fail, &(struct log){ 0 });
		_exit(4);
	}
	close(p[0]);
	close(p[1]);
	close(go[0]);
	close(go[1]);
	waitpid(teer, &tstatus, 0);
	waitpid(reader, &rstatus, 0);
	n = p0_prefix();
	ok(WIFSIGNALED(tstatus) && WTERMSIG(tstatus) == SIGXFSZ &&
	    WIFEXITED(rstatus) && WEXITSTATUS(rstatus) == 0 && cap > 0 &&
	    n >= want, "parallel: SIGXFSZ learned in a stall: the pipe before "
	    "the file gets GNU's read that failed (%zd bytes, at least %lld)",
	    n, (long long)want);
}

static volatile sig_atomic_t handled, elsewhere;

static void
on_signal(int sig)
{
	(void)sig;
	handled++;
	if (!pthread_equal(pthread_self(), main_thread))
		elsewhere = 1;
}

/*
 * Signals sent to the process while threads start, run and stop are
 * handled on the caller's thread only (a worker is born with every
 * signal blocked), and their EINTRs cost no byte.
 */
TEST(parallel_handlers)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct spate_out o[4];
	struct log l = { 0 };
	pid_t pinger, me = getpid();
	int in, r;

	if (signals_in_doubt())
		return;
	unsetenv("SPATE_ZEROCOPY");
	make_data(64 << 20);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	handled = elsewhere = 0;
	if ((pinger = xfork()) == 0) {
		/* Never past its parent: the number may be another's. */
		while (getppid() == me && kill(me, SIGUSR1) == 0)
			usleep(200);
		_exit(0);
	}
	in = feeder(65536);
	o[0].fd = xopen("/dev/null", O_WRONLY);
	o[1].fd = file("f1", NULL, 0);
	o[2].fd = file("f2", NULL, 0);
	o[3].fd = file("f3", NULL, 0);
	r = spate_fanout_parallel(in, o, 4, on_fail, &l);
	kill(pinger, SIGKILL);
	waitpid(pinger, NULL, 0);
	close_outs(o, 4);
	close(in);
	reap();
	signal(SIGUSR1, SIG_DFL);
	ok(r == 0 && l.calls == 0 && handled > 0 && !elsewhere &&
	    holds("f1", NULL) && holds("f2", NULL) && holds("f3", NULL),
	    "parallel: %d signals, all handled on the caller's thread, "
	    "every byte", (int)handled);
}
