/*
 * sandbox: run a command under a seccomp filter that refuses the
 * zero-copy calls, as a container profile or systemd's
 * SystemCallFilter= does.  Test-only (t2013, lib-fault.sh): never
 * installed, never linked into anything.
 *
 *	sandbox [-k] [-x] CALL[:ERRNO][,CALL[:ERRNO]...] -- CMD [ARG...]
 *	sandbox [-k] -t CALL[:ERRNO][,CALL[:ERRNO]...]
 *
 * CALL is vmsplice, splice, tee, copy_file_range, sendfile (sendfile64
 * too where there is one), F_SETPIPE_SZ or F_GETPIPE_SZ (fcntl(2), and
 * fcntl64 where there is one, with that command: the other commands of
 * fcntl pass).  Each named call fails with ERRNO, a name (EPERM by
 * default), without being made; with -k, a named call kills the
 * process (SIGSYS), as a filter whose action is KILL does (systemd's,
 * where SystemCallErrorNumber= is unset).  Every other call is made.
 *
 * The filter is installed with no_new_privs, so that no privilege is
 * needed, in a child that execs CMD, and is inherited by all CMD runs.
 * CMD runs in a process group of its own with SIGPIPE at its default,
 * whatever this was started with, as a command in a pipeline of a shell
 * that did not ignore it would.  This waits for it and ends as it did:
 * its exit status, or the signal that killed it, raised here; or, if it
 * still runs after 60 s, its process group is killed and the status is
 * 124 (timeout(1)'s), as lib-fault.sh's with_faults and with_inject
 * bound theirs: a hang fails its case, not the whole run, without a
 * timeout(1) started for every case.  With -x, this installs the filter
 * and execs CMD itself, signals as they were, unbounded: for a caller
 * that waits for CMD and bounds it (t/diff's sandbox family).  It checks
 * the architecture of each call first: a call of another one (an
 * i386 program on an x86_64 kernel) would have other numbers, and is
 * killed rather than let through, so that a test of the wrong build
 * fails instead of passing without refusals.
 *
 * -t tests the filter instead of running CMD (no -- CMD then): each
 * named call is made with descriptors no kernel takes (-1), which
 * makes EBADF where nothing refuses it, and must fail with its ERRNO
 * (with -k: kill); fcntl(-1, F_GETFL) must still say EBADF.  Exit 0 if
 * all did.  This is lib-sandbox.sh's SECCOMP prerequisite: a filter
 * that the kernel, or an emulator (qemu-user refuses to install one),
 * does not apply would make every case pass without a refusal.
 *
 * Exit 125 with a message for a bad command line or a filter that
 * cannot be installed; 126 or 127 if CMD cannot be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* The architecture whose calls the filter knows: the build's. */
#if defined(__x86_64__) && !defined(__ILP32__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#define ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__) && !defined(__ARMEB__)
#define ARCH AUDIT_ARCH_ARM
#elif defined(__s390x__)
#define ARCH AUDIT_ARCH_S390X
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define ARCH AUDIT_ARCH_PPC64LE
#elif defined(__powerpc64__)
#define ARCH AUDIT_ARCH_PPC64
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH AUDIT_ARCH_RISCV64
#elif defined(__loongarch64) && defined(AUDIT_ARCH_LOONGARCH64)
#define ARCH AUDIT_ARCH_LOONGARCH64
#endif

/* How long CMD may run, in seconds. */
#define LIMIT 60

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#ifndef F_SETPIPE_SZ
#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032
#endif

/* The calls that can be named, each one or two system call numbers
 * (-1: none here), and the fcntl command asked for (0: any). */
static const struct {
	const char *name;
	long nr[2];
	int cmd;
} calls[] = {
#ifdef __NR_vmsplice
	{ "vmsplice", { __NR_vmsplice, -1 }, 0 },
#endif
#ifdef __NR_splice
	{ "splice", { __NR_splice, -1 }, 0 },
#endif
#ifdef __NR_tee
	{ "tee", { __NR_tee, -1 }, 0 },
#endif
#ifdef __NR_copy_file_range
	{ "copy_file_range", { __NR_copy_file_range, -1 }, 0 },
#endif
#ifdef __NR_sendfile64
	{ "sendfile", { __NR_sendfile, __NR_sendfile64 }, 0 },
#elif defined(__NR_sendfile)
	{ "sendfile", { __NR_sendfile, -1 }, 0 },
#endif
#ifdef __NR_fcntl64
	{ "F_SETPIPE_SZ", { __NR_fcntl, __NR_fcntl64 }, F_SETPIPE_SZ },
	{ "F_GETPIPE_SZ", { __NR_fcntl, __NR_fcntl64 }, F_GETPIPE_SZ },
#else
	{ "F_SETPIPE_SZ", { __NR_fcntl, -1 }, F_SETPIPE_SZ },
	{ "F_GETPIPE_SZ", { __NR_fcntl, -1 }, F_GETPIPE_SZ },
#endif
};
#define NCALLS (sizeof calls / sizeof calls[0])

/* The errors a refusal can be given, by name. */
static const struct {
	const char *name;
	int no;
} errnos[] = {
	{ "EPERM", EPERM }, { "EACCES", EACCES }, { "ENOSYS", ENOSYS },
	{ "EINVAL", EINVAL }, { "EOPNOTSUPP", EOPNOTSUPP },
	{ "EXDEV", EXDEV }, { "EAGAIN", EAGAIN }, { "ENOMEM", ENOMEM },
	{ "EIO", EIO },
};

/* A call named on the command line, and its action. */
struct rule {
	unsigned call;		/* index in calls */
	unsigned action;	/* SECCOMP_RET_ERRNO | errno, or KILL */
};

static void
usage(void)
{
	fprintf(stderr, "usage: sandbox [-k] [-t | -x] CALL[:ERRNO][,...]"
	    " [-- CMD [ARG...]]\n");
	exit(125);
}

/* Parse the list LIST into RULES (NCALLS at most); return how many. */
static size_t
parse_rules(char *list, int kill, struct rule *rules)
{
	char *item, *save;
	size_t n = 0, i;

	for (item = strtok_r(list, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		char *err = strchr(item, ':');
		int no = EPERM;

		if (err != NULL) {
			*err++ = '\0';
			no = 0;
			for (i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
				if (strcmp(err, errnos[i].name) == 0)
					no = errnos[i].no;
			if (no == 0 || kill) {
				fprintf(stderr, "sandbox: bad error \"%s\"%s\n",
				    err, kill ? " (-k kills)" : "");
				exit(125);
			}
		}
		for (i = 0; i < NCALLS; i++)
			if (strcmp(item, calls[i].name) == 0)
				break;
		if (i == NCALLS || n == NCALLS) {
			fprintf(stderr, "sandbox: unknown call \"%s\"\n", item);
			exit(125);
		}
		rules[n].call = (unsigned)i;
		rules[n].action = kill ? SECCOMP_RET_KILL_PROCESS :
		    SECCOMP_RET_ERRNO | ((unsigned)no & SECCOMP_RET_DATA);
		n++;
	}
	if (n == 0)
		usage();
	return n;
}

#ifdef ARCH

/* Where the low 32 bits of argument 1 (fcntl's command) are. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARG1_LOW (offsetof(struct seccomp_data, args[1]) + 4)
#else
#define ARG1_LOW offsetof(struct seccomp_data, args[1])
#endif

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))

/*
 * Install the filter of RULES[0..N).  The program: another architecture
 * is killed; on x86_64 an x32 call (its own numbers, the same
 * architecture) too; then for each number of each rule, if the call is
 * it (and, for an fcntl, its command is the rule's) the rule's action;
 * anything else is allowed.
 */
static void
install(const struct rule *rules, size_t n)
{
	struct sock_filter prog[8 + NCALLS * 2 * 5];
	struct sock_fprog fprog;
	unsigned short len = 0;
	size_t i, k;

	prog[len++] = STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	prog[len++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0);
	prog[len++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[len++] = STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
#if ARCH == AUDIT_ARCH_X86_64
	prog[len++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1);
	prog[len++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			long nr = calls[rules[i].call].nr[k];
			int cmd = calls[rules[i].call].cmd;

			if (nr == -1)
				continue;
			if (cmd == 0) {
				/* nr: the action; else the next test */
				prog[len++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K,
				    (unsigned)nr, 0, 1);
				prog[len++] = STMT(BPF_RET | BPF_K,
				    rules[i].action);
				continue;
			}
			/* nr and cmd: the action; either not, the next
			 * test, with nr loaded again */
			prog[len++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			    (unsigned)nr, 0, 4);
			prog[len++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LOW);
			prog[len++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			    (unsigned)cmd, 0, 1);
			prog[len++] = STMT(BPF_RET | BPF_K, rules[i].action);
			prog[len++] = STMT(BPF_LD | BPF_W | BPF_ABS,
			    offsetof(struct seccomp_data, nr));
		}
	prog[len++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	fprog.len = len;
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		perror("sandbox: PR_SET_NO_NEW_PRIVS");
		exit(125);
	}
	/* seccomp(2) where there is one, else prctl(2) (before 3.17). */
#ifdef __NR_seccomp
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0)
		return;
	if (errno != ENOSYS) {
		perror("sandbox: seccomp");
		exit(125);
	}
#endif
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == -1) {
		perror("sandbox: PR_SET_SECCOMP");
		exit(125);
	}
}

/* Make the system call NR of call C with descriptors no kernel takes;
 * return its errno (0 if it succeeded). */
static int
probe(unsigned c, long nr)
{
	long r;

	errno = 0;
	if (calls[c].cmd != 0)
		r = syscall(nr, -1, calls[c].cmd, 4096);
	else
		r = syscall(nr, -1, NULL, -1, NULL, 1, 0);
	return r == -1 ? errno : 0;
}

/* -t: each rule's call fails as it says (with -k it never returns), an
 * fcntl that no rule names is made; exit 0 if so. */
static int
test_filter(const struct rule *rules, size_t n)
{
	int bad = 0;
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			unsigned c = rules[i].call;
			int want = (int)(rules[i].action & SECCOMP_RET_DATA);
			int got;

			if (calls[c].nr[k] == -1)
				continue;
			got = probe(c, calls[c].nr[k]);
			if (got != want) {
				fprintf(stderr,
				    "sandbox: %s (%ld): %s, not %s\n",
				    calls[c].name, calls[c].nr[k],
				    strerror(got), strerror(want));
				bad = 1;
			}
		}
	if (fcntl(-1, F_GETFL) != -1 || errno != EBADF) {
		perror("sandbox: fcntl(-1, F_GETFL) not EBADF");
		bad = 1;
	}
	return bad;
}

#else	/* no ARCH */

static void
install(const struct rule *rules, size_t n)
{
	(void)rules, (void)n;
	fprintf(stderr, "sandbox: no seccomp filter for this architecture\n");
	exit(125);
}

static int
test_filter(const struct rule *rules, size_t n)
{
	(void)rules, (void)n;
	return 1;
}

#endif

static volatile sig_atomic_t expired;

static void
on_alarm(int sig)
{
	(void)sig;
	expired = 1;
}

/* Run CMD under the filter of RULES[0..N) as the comment on top says;
 * return the status to exit with (if a signal killed CMD, none). */
static int
run(char **cmd, const struct rule *rules, size_t n)
{
	static const struct rlimit no_core = { 0, 0 };
	struct sigaction sa;
	sigset_t set;
	pid_t pid;
	int st;

	if ((pid = fork()) == -1) {
		perror("sandbox: fork");
		return 125;
	}
	if (pid == 0) {
		setpgid(0, 0);
		install(rules, n);
		signal(SIGPIPE, SIG_DFL);
		execvp(cmd[0], cmd);
		fprintf(stderr, "sandbox: %s: %s\n", cmd[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* Either may come first; the group exists before it is killed. */
	setpgid(pid, pid);
	/* No end of CMD's stdin and stdout held here: its reader and its
	 * writer see it leave when it does. */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;	/* no SA_RESTART: waitpid says EINTR */
	sigaction(SIGALRM, &sa, NULL);
	alarm(LIMIT);
	while (waitpid(pid, &st, 0) == -1) {
		if (errno != EINTR) {
			perror("sandbox: waitpid");
			return 125;
		}
		if (expired) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			return 124;
		}
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	/* Die as CMD died, without a core of this process. */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(WTERMSIG(st), SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, WTERMSIG(st));
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(WTERMSIG(st));
	return 128 + WTERMSIG(st);
}

int
main(int argc, char **argv)
{
	struct rule rules[NCALLS];
	int kill = 0, test = 0, in_place = 0, i = 1;
	size_t n;

	for (; i < argc && argv[i][0] == '-' && argv[i][1] != '-'; i++) {
		if (strcmp(argv[i], "-k") == 0)
			kill = 1;
		else if (strcmp(argv[i], "-t") == 0)
			test = 1;
		else if (strcmp(argv[i], "-x") == 0)
			in_place = 1;
		else
			usage();
	}
	if (i == argc)
		usage();
	n = parse_rules(argv[i++], kill, rules);
	if (test ? i != argc || in_place :
	    i + 1 >= argc || strcmp(argv[i], "--") != 0)
		usage();
	if (!test && !in_place)
		return run(argv + i + 1, rules, n);
	install(rules, n);
	if (test)
		return test_filter(rules, n);
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "sandbox: %s: %s\n", argv[i + 1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
