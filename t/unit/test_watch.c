/*
 * Unit tests of when the fan-out waits (lib/watch.c): an output whose
 * reader stalled is seen, through signals too, and the fan-out gives its
 * pipes and threads back; a stop asked for meanwhile is kept.
 */
#define _GNU_SOURCE

#include "lib-fanout.h"

/*
 * A failure that asks to stop, learned in a stall: a file input (its
 * chunks are exact), a pipe whose reader takes the first FAIL_AT bytes
 * and stops, then two files, the first on a lane and failing with EFBIG
 * at FAIL_AT (a size limit, SIGXFSZ ignored).  The pipe takes the round
 * after FAIL_AT whole and is full at the next: the fan-out waits STALL_MS
 * there, gives back, and only then learns of the lane's failure; FAIL
 * asks to stop.  The reader resumes only once the fan-out returned (or
 * after 20 s), so it holds what the pipe could buffer when it stopped
 * and nothing more: a chunk written after the stop was asked for is
 * more than that.
 */
TEST(parallel_stop_in_stall)
{
	enum { FAIL_AT = 30 << 20, SEEK = 40 << 20 };
	struct rlimit old, lim;
	struct spate_out o[3];
	struct log l = { .stop = 1 };
	pid_t reader;
	int in, p[2], go[2], r, status, cap;
	ssize_t n;

	if (one_cpu("no lanes, so no lane's failure to learn late"))
		return;
	unsetenv("SPATE_ZEROCOPY");
	file_input(64 << 20);
	in = xopen("in", O_RDONLY);
	xpipe(p);
	xpipe(go);
	cap = fcntl(p[1], F_GETPIPE_SZ);
	reader = stopping_reader(p, go, FAIL_AT, 20000);
	close(p[0]);
	close(go[0]);
	o[0].fd = p[1];
	o[1].fd = file("f1", NULL, 0);
	o[2].fd = file("f2", NULL, 0);
	if (lseek(o[1].fd, SEEK, SEEK_SET) == -1 ||
	    getrlimit(RLIMIT_FSIZE, &old) == -1 ||
	    (lim = old, lim.rlim_cur = SEEK + FAIL_AT,
	    setrlimit(RLIMIT_FSIZE, &lim) == -1))
		bail_out("a size limit: %s", strerror(errno));
	signal(SIGXFSZ, SIG_IGN);
	r = spate_fanout_parallel(in, o, 3, on_fail, &l);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);
	close_outs(o, 3);
	close(go[1]);
	close(in);
	waitpid(reader, &status, 0);
	reap();
	n = p0_prefix();
	ok(r == 0 && l.calls == 1 && l.i == 1 && l.err == EFBIG &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0 && cap > 0 &&
	    n >= FAIL_AT && n <= FAIL_AT + cap,
	    "parallel: a stop asked for in a stall: the stalled pipe gets "
	    "nothing more (%zd bytes, at most %d; %d failures)", n,
	    FAIL_AT + cap, l.calls);
}

/* Return how many pipes process PID made for itself (O_CLOEXEC), and
 * how many threads it runs, in *THREADS. */
static int
own_pipes(pid_t pid, int *threads)
{
	char path[64], link[64], line[128];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	*threads = 0;
	if ((dir = opendir(path)) != NULL) {
		while ((d = readdir(dir)) != NULL)
			*threads += d->d_name[0] != '.';
		closedir(dir);
	}
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return -1;
	while ((d = readdir(dir)) != NULL) {
		char fdpath[300];
		ssize_t k;
		FILE *info;

		snprintf(fdpath, sizeof fdpath, "/proc/%d/fd/%s", (int)pid,
		    d->d_name);
		if ((k = readlink(fdpath, link, sizeof link - 1)) <= 0)
			continue;
		link[k] = '\0';
		if (strncmp(link, "pipe:", 5) != 0)
			continue;
		snprintf(fdpath, sizeof fdpath, "/proc/%d/fdinfo/%s",
		    (int)pid, d->d_name);
		if ((info = fopen(fdpath, "r")) == NULL)
			continue;
		while (fgets(line, sizeof line, info) != NULL)
			if (strncmp(line, "flags:", 6) == 0 &&
			    (strtol(line + 6, NULL, 8) & O_CLOEXEC))
				n++;
		fclose(info);
	}
	closedir(dir);
	return n;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

/*
 * A reader that stalls while a timer interrupts every wait (SIGALRM each
 * 10 ms, a handler without SA_RESTART): the engine still sees the stall
 * and gives its pipes and threads back.  The reader takes 8 MiB, waits
 * until the fan-out's process holds no pipe of its own and runs no
 * thread beyond those it ran before (30 s at most), then reads the
 * rest.
 */
TEST(stall_interrupted)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval tick = { { 0, 10000 }, { 0, 10000 } }, off = { 0 };
	struct spate_out o[3];
	struct log l = { 0 };
	pid_t reader, me = getpid();
	int in, p[2], status, r, before, pipes;

	if (signals_in_doubt())
		return;
	unsetenv("SPATE_ZEROCOPY");
	make_data(32 << 20);
	in = feeder(65536);
	xpipe(p);
	/* The pipes and threads the process has already (a sanitizer's
	 * own, valgrind's scheduler lock). */
	pipes = own_pipes(me, &before);
	if ((reader = xfork()) == 0) {
		static char buf[1 << 16];
		int fd = open("p0", O_WRONLY | O_CREAT | O_TRUNC, 0600), t, i;
		size_t got = 0;
		ssize_t n;

		close(p[1]);
		while (got < (8u << 20) && (n = read(p[0], buf, sizeof buf)) > 0)
			if (write_all(fd, buf, n) == 0)
				got += n;
		for (i = 0; i < 300 &&
		    (own_pipes(me, &t) != pipes || t != before); i++)
			usleep(100000);
		if (i == 300)
			_exit(3);
		while ((n = read(p[0], buf, sizeof buf)) > 0)
			if (write_all(fd, buf, n) == -1)
				_exit(1);
		_exit(n == 0 ? 0 : 1);
	}
	close(p[0]);
	o[0].fd = p[1];
	o[1].fd = file("f1", NULL, 0);
	o[2].fd = file("f2", NULL, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);
	r = spate_fanout_parallel(in, o, 3, on_fail, &l);
	setitimer(ITIMER_REAL, &off, NULL);
	/* Not SIG_DFL: a tick sent before the timer stopped may still be
	 * on its way (valgrind delivers signals late), and would kill. */
	signal(SIGALRM, SIG_IGN);
	close_outs(o, 3);
	close(in);
	waitpid(reader, &status, 0);
	reap();
	ok(pipes >= 0 && r == 0 && l.calls == 0 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0 && holds("p0", NULL) &&
	    holds("f1", NULL) && holds("f2", NULL),
	    "a stall seen through a signal every 10 ms: the pipes and "
	    "threads given back (reader status %d; fan-out %d, %d failures; "
	    "p0 %d, f1 %d, f2 %d), every byte",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1, r, l.calls,
	    holds("p0", NULL), holds("f1", NULL), holds("f2", NULL));
}
