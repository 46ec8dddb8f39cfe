/*
 * fan: run one benchmarked command and report its time and CPU.
 *
 *	fan [-k K] [-r] [-u] [-p SIZE] [-n BYTES] [-t SECS] [-s SECS] [-o FILE]
 *	    -- COMMAND [ARG...]
 *
 * Runs COMMAND with this program's standard input and output and waits
 * for it.  The time runs from just before the fork to the end of the
 * command (and of the drains, below); the CPU time is the command's user
 * + system time from wait4(2), so neither the producer nor the drains of
 * the benchmark count in it.
 *
 * -k K	   make K pipes, each emptied by a child of ours (splice(2) into
 *	   /dev/null, or read(2) of 128 KiB with -r); the first becomes
 *	   COMMAND's standard output, the others are appended to its
 *	   arguments as /dev/fd/N.  Every pipe must then carry exactly BYTES
 *	   (-n) bytes and reach its end.
 * -u	   make the K outputs local stream sockets (socketpair(2)), not
 *	   pipes, each emptied by read(2) of 128 KiB (-r is implied); only
 *	   the first, COMMAND's standard output, can be opened by a name.
 * -p SIZE set the pipes we make, and our standard input and output if
 *	   they are pipes, to SIZE bytes (F_SETPIPE_SZ) before COMMAND starts;
 *	   COMMAND may grow them again.
 * -t SECS kill COMMAND (SIGKILL) if it still runs after SECS: status 124.
 * -s SECS sample: once COMMAND has written its first bytes, let it run
 *	   SECS more, then read the bytes it wrote meanwhile (wchar of
 *	   /proc/PID/io, which counts write(2), not splice(2)), stop it
 *	   (SIGKILL) and report those bytes over that time, and its CPU time
 *	   pro rata.  For outputs that count nothing, like /dev/null.
 * -o FILE write "STATUS BYTES NS CPU_NS MAXRSS_KB" to FILE.
 *
 * Exit status: COMMAND's (128 + N for signal N), 124 if it was killed
 * by -t, 3 if a drain got the wrong byte count, 2 on our own errors.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RDSZ	(128u << 10)
#define MAXK	1024

static volatile sig_atomic_t hung;
static volatile pid_t child;

static uint64_t
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void
alarmed(int sig)
{
	(void)sig;
	hung = 1;
	if (child > 0)
		kill(child, SIGKILL);
}

/* Empty pipe (or socket, with RD) FD till its end; return the byte count. */
static uint64_t
drain(int fd, int rd)
{
	uint64_t got = 0;
	char *buf = NULL;
	int null = -1;
	ssize_t n;

	if (rd) {
		if ((buf = calloc(1, RDSZ)) == NULL)
			err(2, "calloc");
	} else if ((null = open("/dev/null", O_WRONLY)) == -1)
		err(2, "/dev/null");
	for (;;) {
		n = rd ? read(fd, buf, RDSZ) :
		    splice(fd, NULL, null, NULL, 1u << 30, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			err(2, rd ? "read" : "splice");
		if (n == 0)
			return got;
		got += n;
	}
}

/* Bytes that process PID has written, from /proc/PID/io. */
static uint64_t
wchar(pid_t pid)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "wchar: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void
setsize(int fd, long size)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    fcntl(fd, F_SETPIPE_SZ, size) == -1)
		warn("F_SETPIPE_SZ %ld on fd %d", size, fd);
}

static long
number(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || v < 0)
		errx(2, "bad number: %s", s);
	return (long)v;
}

int
main(int argc, char **argv)
{
	int c, k = 0, rd = 0, sock = 0, status, (*p)[2] = NULL, bad = 0, i, j;
	long psize = 0;
	double tmax = 0, samp = 0;
	uint64_t want = 0, bytes = 0, total = 0, t0, t1, cpu, *got = NULL;
	const char *out = NULL;
	char **args, (*names)[32] = NULL;
	pid_t *dpid = NULL, pid;
	struct rusage ru;
	FILE *f;

	while ((c = getopt(argc, argv, "+k:rup:n:t:s:o:")) != -1) {
		switch (c) {
		case 'k': k = (int)number(optarg); break;
		case 'r': rd = 1; break;
		case 'u': sock = rd = 1; break;
		case 'p': psize = number(optarg); break;
		case 'n': want = strtoull(optarg, NULL, 10); break;
		case 't': tmax = strtod(optarg, NULL); break;
		case 's': samp = strtod(optarg, NULL); break;
		case 'o': out = optarg; break;
		default: return 2;
		}
	}
	if (optind >= argc || k > MAXK)
		errx(2, "usage: fan [-k K] [-r] [-u] [-p SIZE] [-n BYTES] [-t SECS] "
		    "[-s SECS] [-o FILE] -- COMMAND [ARG...]");
	if (psize) {
		setsize(0, psize);
		setsize(1, psize);
	}
	args = calloc(argc - optind + k + 1, sizeof *args);
	if (args == NULL)
		err(2, "calloc");
	for (i = optind; i < argc; i++)
		args[i - optind] = argv[i];
	if (k > 0) {
		p = calloc(k, sizeof *p);
		names = calloc(k, sizeof *names);
		dpid = calloc(k, sizeof *dpid);
		got = mmap(NULL, k * sizeof *got, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == NULL || names == NULL || dpid == NULL ||
		    got == MAP_FAILED)
			err(2, "alloc");
		for (i = 0; i < k; i++) {
			if (sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, p[i]) :
			    pipe(p[i]))
				err(2, sock ? "socketpair" : "pipe");
			if (psize && !sock)
				setsize(p[i][1], psize);
		}
		for (i = 0; i < k; i++) {
			if ((dpid[i] = fork()) == -1)
				err(2, "fork");
			if (dpid[i] == 0) {
				for (j = 0; j < k; j++) {
					close(p[j][1]);
					if (j != i)
						close(p[j][0]);
				}
				close(0);
				close(1);
				got[i] = drain(p[i][0], rd);
				_exit(0);
			}
			close(p[i][0]);
		}
		for (i = 1; i < k; i++) {
			snprintf(names[i], sizeof names[i], "/dev/fd/%d",
			    p[i][1]);
			args[argc - optind + i - 1] = names[i];
		}
	}
	signal(SIGALRM, alarmed);
	t0 = now();
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		if (k > 0 && dup2(p[0][1], 1) == -1)
			err(2, "dup2");
		if (k > 0)
			close(p[0][1]);
		execvp(args[0], args);
		warn("%s", args[0]);
		_exit(127);
	}
	child = pid;
	/* Nothing of ours keeps a pipe open: EOF and EPIPE come on time. */
	close(0);
	close(1);
	for (i = 0; i < k; i++)
		close(p[i][1]);
	if (tmax > 0) {
		struct itimerval it = { { 0, 0 }, { (time_t)tmax,
		    (suseconds_t)((tmax - (time_t)tmax) * 1e6) } };

		setitimer(ITIMER_REAL, &it, NULL);
	}
	if (samp > 0) {
		struct timespec ts = { (time_t)samp,
		    (long)((samp - (time_t)samp) * 1e9) }, ms = { 0, 1000000 };
		uint64_t w0;
		int tries;

		/* The clock starts once it has written: exec and start-up,
		 * however long a busy machine makes them, do not count. */
		for (tries = 0; (w0 = wchar(pid)) == 0 && tries < 2000; tries++)
			nanosleep(&ms, NULL);
		t0 = now();
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
			;
		bytes = wchar(pid);
		t1 = now();
		kill(pid, SIGKILL);
		total = bytes;
		bytes = bytes > w0 ? bytes - w0 : 0;
	}
	while (wait4(pid, &status, 0, &ru) == -1)
		if (errno != EINTR)
			err(2, "wait4");
	setitimer(ITIMER_REAL, &(struct itimerval){ { 0, 0 }, { 0, 0 } },
	    NULL);
	child = 0;
	for (i = 0; i < k; i++) {
		int ds;

		while (waitpid(dpid[i], &ds, 0) == -1)
			if (errno != EINTR)
				err(2, "waitpid");
		if (!WIFEXITED(ds) || WEXITSTATUS(ds) != 0)
			bad = 1;
		else if (want && got[i] != want) {
			warnx("output %d got %llu bytes, not %llu", i + 1,
			    (unsigned long long)got[i],
			    (unsigned long long)want);
			bad = 1;
		}
	}
	if (samp <= 0) {
		t1 = now();
		bytes = want;
	}
	status = hung ? 124 : WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
	if (samp > 0 && status == 128 + SIGKILL)
		status = 0;	/* we stopped it */
	cpu = ru.ru_utime.tv_sec * 1000000000ull + ru.ru_utime.tv_usec * 1000ull +
	    ru.ru_stime.tv_sec * 1000000000ull + ru.ru_stime.tv_usec * 1000ull;
	/* Sampled: the CPU time of the bytes reported, pro rata. */
	if (samp > 0)
		cpu = total ? (uint64_t)((double)cpu * bytes / total) : 0;
	if (out != NULL) {
		if ((f = fopen(out, "w")) == NULL)
			err(2, "%s", out);
		fprintf(f, "%d %llu %llu %llu %ld\n", status,
		    (unsigned long long)bytes, (unsigned long long)(t1 - t0),
		    (unsigned long long)cpu, ru.ru_maxrss);
		fclose(f);
	}
	if (bad && status == 0)
		return 3;
	return status;
}
