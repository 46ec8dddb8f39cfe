/*
 * Unit tests of lib/sandbox.c and of the engine as a library caller
 * sees it under a seccomp filter (issue 51): the status file read
 * whole, however long its "Groups:" line; a caller whose pthread_atfork
 * handlers hold a lock across a copy, that ignores SIGCHLD or reaps
 * every child in a handler, with much memory resident: no child made,
 * no deadlock, and zero-copy kept where the filter is trusted or absent;
 * a filter installed between two operations seen by the second; a lag
 * refused under a filter; under systemd's ~@process (clone, clone3,
 * fork, vfork killed) the fan-out asked for threads copies without
 * them.  Each case with a
 * filter runs in a child that installs it and reports through its exit
 * status; where no filter can be had those skip, saying so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define MiB	(1u << 20)
#define LEN	(8 * MiB)

/* Write a status file of NGROUPS groups, then LAST (a line or ""), to a
 * new file; return its path in PATH. */
static void
status_file(char *path, size_t size, unsigned ngroups, const char *last)
{
	FILE *f;
	unsigned i;

	snprintf(path, size, "%s/spate-status.XXXXXX", tmp_dir());
	f = fdopen(mkstemp(path), "w");
	if (f == NULL)
		bail_out("status file: %s", strerror(errno));
	fprintf(f, "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nGroups:");
	for (i = 0; i < ngroups; i++)
		fprintf(f, "%s%u", i ? " " : "\t", 100000 + i);
	fprintf(f, "\nNoNewPrivs:\t1\n%s", last);
	fclose(f);
}

/* sandbox_status of a status file of NGROUPS groups ending in LAST. */
static int
status_of(unsigned ngroups, const char *last)
{
	char path[4096];
	int r;

	status_file(path, sizeof path, ngroups, last);
	r = sandbox_status(path);
	unlink(path);
	return r;
}

TEST(status_read_whole)
{
	ok(status_of(3, "Seccomp:\t2\nSeccomp_filters:\t1\n") == 1 &&
	    status_of(3, "Seccomp:\t0\nSeccomp_filters:\t0\n") == 0,
	    "sandbox_status: Seccomp 2 is a filter, 0 none");
	ok(status_of(400, "Seccomp:\t2\n") == 1 &&
	    status_of(65536, "Seccomp:\t2\n") == 1 &&
	    status_of(65536, "Seccomp:\t0\n") == 0,
	    "sandbox_status: the line found after 400 and 65536 groups "
	    "(2.8 KB, 450 KB of them)");
	ok(status_of(400, "Seccomp_filters:\t1\n") == 0 &&
	    status_of(0, "") == 0,
	    "sandbox_status: no Seccomp line (a kernel without it): none");
	ok(sandbox_status("/nonexistent/status") == -1,
	    "sandbox_status: a file that cannot be read says nothing");
}

#ifndef SPATE_PORTABLE
/* The architecture the filters below know: the build's. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define ARCH 0xc000003eu	/* AUDIT_ARCH_X86_64 */
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#define ARCH 0xc00000b7u	/* AUDIT_ARCH_AARCH64 */
#endif
#endif

#ifdef ARCH
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

/* Install a filter that answers the N calls NRS with ACTION and lets
 * every other through.  Return 0, or -1 where no filter can be had. */
static int
filter(const long *nrs, size_t n, unsigned action)
{
	struct sock_filter code[16];
	struct sock_fprog prog = { .filter = code };
	size_t k, i = 0;

	code[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	code[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    ARCH, 1, 0);
	code[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
	code[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	for (k = 0; k < n; k++)
		code[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, (unsigned)nrs[k], (unsigned char)(n - k), 0);
	code[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_ALLOW);
	code[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
	prog.len = (unsigned short)i;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* A harmless filter, as every container has: getppid refused. */
static int
harmless(void)
{
	static const long nrs[] = { __NR_getppid };

	return filter(nrs, 1, SECCOMP_RET_ERRNO | EPERM);
}

/* Return 1 if this system takes a filter (a child tries). */
static int
filters_work(void)
{
	pid_t pid;

	if ((pid = xfork()) == 0)
		_exit(harmless() == -1 || syscall(__NR_getppid) != -1 ||
		    errno != EPERM);
	return exited_ok(pid);
}

/* What the caller's fork handlers and SIGCHLD handler saw. */
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t forks, reaped;

static void
prepare(void)
{
	forks++;
	pthread_mutex_lock(&held);	/* never given: a fork hangs */
}

static void
unlock(void)
{
	pthread_mutex_unlock(&held);
}

static void
reap(int sig)
{
	int e = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		reaped++;
	errno = e;
}

/* Fail the child (exit 1) with WHAT unless OK. */
static void
must(int ok, const char *what)
{
	if (!ok) {
		printf("# %s\n", what);
		fflush(stdout);
		_exit(1);
	}
}

/*
 * The copies a library caller makes, from a file of LEN bytes of the
 * test data: cat's into a file, cat -n's, and tee's into three files
 * with threads asked for.  Each output must be whole.
 */
static void
copies(void)
{
	char *data = pattern(0, LEN);
	int in = xtmpfile_with(data, LEN), out[3], i;
	struct spate_out outs[3];
	enum spate_side side;
	struct spate_cat *c;

	for (i = 0; i < 3; i++)
		outs[i].fd = out[i] = xtmpfile();
	must((c = spate_cat_open(out[0], 0)) != NULL &&
	    spate_cat_add(c, in, &side) == 0 && spate_cat_close(c) == 0 &&
	    file_holds(out[0], data, LEN), "cat: not whole");
	must(lseek(in, 0, SEEK_SET) == 0 &&
	    (c = spate_cat_open(out[1], SPATE_CAT_SQUEEZE)) != NULL &&
	    spate_cat_add(c, in, &side) == 0 && spate_cat_close(c) == 0 &&
	    file_holds(out[1], data, LEN), "cat -s: not whole");
	for (i = 0; i < 3; i++)
		must(ftruncate(out[i], 0) == 0 &&
		    lseek(out[i], 0, SEEK_SET) == 0, "ftruncate");
	must(lseek(in, 0, SEEK_SET) == 0 &&
	    spate_fanout_parallel(in, outs, 3, NULL, NULL) == 0 &&
	    file_holds(out[0], data, LEN) && file_holds(out[1], data, LEN) &&
	    file_holds(out[2], data, LEN), "tee: not whole");
}

/*
 * In a child: under FILTERED (a harmless filter, or none), with the
 * caller's fork handlers holding a lock, SIGCHLD ignored or reaped,
 * RESIDENT bytes of memory touched, and SPATE_SECCOMP set to TRUST
 * (NULL: unset): copies() whole, no fork, no child, and spate_gnu_calls
 * as GNU_CALLS says.  Exit 0 if all held.
 */
static void
as_caller(int filtered, int ignore, size_t resident, const char *trust,
    int gnu_calls)
{
	char *mem;

	watchdog(120);
	if (trust != NULL)
		setenv("SPATE_SECCOMP", trust, 1);
	if (filtered)
		must(harmless() == 0, "no filter");
	must(pthread_atfork(prepare, unlock, unlock) == 0, "atfork");
	signal(SIGCHLD, ignore ? SIG_IGN : reap);
	if (resident > 0) {
		mem = mmap(NULL, resident, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		must(mem != MAP_FAILED, "mmap");
		memset(mem, 1, resident);
	}
	must(spate_gnu_calls() == gnu_calls, "spate_gnu_calls");
	pthread_mutex_lock(&held);
	copies();
	pthread_mutex_unlock(&held);
	must(forks == 0 && reaped == 0, "the engine made a child");
	must(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD,
	    "a child is left");
	_exit(0);
}

/* Run as_caller in a child; return 1 if it exited 0. */
static int
caller(int filtered, int ignore, size_t resident, const char *trust,
    int gnu_calls)
{
	pid_t pid = xfork();

	if (pid == 0)
		as_caller(filtered, ignore, resident, trust, gnu_calls);
	return exited_ok(pid);
}

/* Return 1 if this test runs under a filter already (a container). */
static int
filtered_already(void)
{
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0;
}

TEST(library_caller)
{
	if (!filters_work()) {
		skip("a library caller under a filter: no seccomp filter here");
		return;
	}
	ok(caller(1, 1, 0, NULL, 1) && caller(1, 0, 0, NULL, 1),
	    "a harmless filter: GNU's calls, no child, no deadlock with "
	    "atfork handlers holding a lock, SIGCHLD ignored or reaped");
	ok(caller(1, 1, 0, "trust", 0) && caller(1, 0, 0, "trust", 0),
	    "SPATE_SECCOMP=trust: the whole engine, threads too, no child");
	if (filtered_already())
		skip("no filter: this test runs under one");
	else
		ok(caller(0, 1, 0, NULL, 0) && caller(0, 0, 0, NULL, 0),
		    "no filter: the whole engine, no child");
	ok(caller(1, 0, 256 * MiB, NULL, 1) &&
	    caller(1, 0, 256 * MiB, "trust", 0),
	    "256 MiB resident, under a filter: no child");
}

/*
 * In a child, under FILTERED (harmless) or not, SPATE_SECCOMP=TRUST, and
 * SIGCHLD ignored: a link from a pipe into a file, the pipe fed by a
 * writer made before; exit 0 if it stayed on splice(2) to the end.
 */
static void
keeps_splice(int filtered, const char *trust)
{
	char *data = pattern(0, LEN);
	int p[2], out = xtmpfile();
	struct end ein, eout;
	struct link l;
	ssize_t n;
	pid_t w;

	xpipe(p);
	if ((w = xfork()) == 0) {
		close(p[0]);
		xwrite(p[1], data, LEN);
		_exit(0);
	}
	close(p[1]);
	if (trust != NULL)
		setenv("SPATE_SECCOMP", trust, 1);
	must(!filtered || harmless() == 0, "no filter");
	signal(SIGCHLD, SIG_IGN);
	sandbox_look();
	end_init(&ein, p[0]);
	end_init(&eout, out);
	link_init(&l, &ein, &eout);
	while ((n = link_step(&l, 65536)) > 0)
		continue;
	must(n == 0 && file_holds(out, data, LEN), "not whole");
	must(l.path == PATH_SPLICE, "zero-copy lost");
	_exit(0);
}

TEST(zerocopy_kept)
{
	pid_t pid;

	if (!filters_work()) {
		skip("zero-copy under a trusted filter: no seccomp filter here");
		return;
	}
	if ((pid = xfork()) == 0)
		keeps_splice(1, "trust");
	ok(exited_ok(pid), "SIGCHLD ignored, a filter trusted: splice kept");
	if (filtered_already()) {
		skip("splice kept without a filter: this test runs under one");
		return;
	}
	if ((pid = xfork()) == 0)
		keeps_splice(0, NULL);
	ok(exited_ok(pid), "SIGCHLD ignored, no filter: splice kept");
}

/* In a child with no filter: a filter installed between two operations
 * is seen by the second; exit 0 if so. */
static void
filter_later(void)
{
	must(spate_gnu_calls() == 0, "a filter before one was installed");
	copies();
	must(harmless() == 0, "no filter");
	must(spate_gnu_calls() == 1, "the filter installed is not seen");
	copies();
	_exit(0);
}

TEST(filter_installed_later)
{
	pid_t pid;

	if (!filters_work()) {
		skip("a filter installed later: no seccomp filter here");
		return;
	}
	if (filtered_already()) {
		skip("a filter installed later: this test runs under one");
		return;
	}
	if ((pid = xfork()) == 0)
		filter_later();
	ok(exited_ok(pid), "a filter installed between two operations: "
	    "the second keeps to GNU's calls");
}

/* In a child under a harmless filter: a lag is refused before a byte is
 * read, with EPERM and SPATE_PRIVATE; exit 0 if so. */
static void
lag_refused(void)
{
	char *data = pattern(0, LEN);
	int in = xtmpfile_with(data, LEN);
	struct spate_out outs[2] = { { .fd = xtmpfile() }, { .fd = xtmpfile() } };
	enum spate_side side = 0;
	struct spate_fanout_opts o = { .lag = 1 << 20, .side = &side };

	must(harmless() == 0, "no filter");
	must(spate_fanout_with(in, outs, 2, &o, NULL, NULL) == -1 &&
	    errno == EPERM && side == SPATE_PRIVATE, "the lag not refused");
	must(lseek(in, 0, SEEK_CUR) == 0 &&
	    lseek(outs[0].fd, 0, SEEK_END) == 0, "bytes moved");
	_exit(0);
}

TEST(lag_refused_under_a_filter)
{
	pid_t pid;

	if (!filters_work()) {
		skip("a lag under a filter: no seccomp filter here");
		return;
	}
	if ((pid = xfork()) == 0)
		lag_refused();
	ok(exited_ok(pid), "spate_fanout_with with a lag under a filter: -1, "
	    "EPERM, SPATE_PRIVATE, nothing read or written");
}

/* In a child under systemd's ~@process: copies() whole (no thread). */
static void
without_processes(void)
{
	static const long nrs[] = {
		__NR_clone,
#ifdef __NR_clone3
		__NR_clone3,
#endif
#ifdef __NR_fork
		__NR_fork,
#endif
#ifdef __NR_vfork
		__NR_vfork,
#endif
	};

	watchdog(120);
	must(filter(nrs, sizeof nrs / sizeof nrs[0],
	    SECCOMP_RET_KILL_PROCESS) == 0, "no filter");
	copies();
	_exit(0);
}

TEST(no_thread_under_a_filter)
{
	pid_t pid;

	if (!filters_work()) {
		skip("threads killed: no seccomp filter here");
		return;
	}
	if ((pid = xfork()) == 0)
		without_processes();
	ok(exited_ok(pid), "clone, clone3, fork and vfork killed: cat, "
	    "cat -s and a fan-out asked for threads copy whole, on the "
	    "caller's thread");
}
#endif
