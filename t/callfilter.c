/*
 * callfilter: run a command under a seccomp filter over system call
 * numbers, as an allow-list generated from a trace (systemd's
 * SystemCallFilter= with a list, Docker's profiles) or a deny-list
 * (SystemCallFilter=~@process) is.  Test-only (t2014, t2015, the
 * bench's filtered rows): never installed, never linked into anything.
 *
 *	callfilter -a NR[,NR...] -- CMD [ARG...]
 *	callfilter -k NR[,NR...] -- CMD [ARG...]
 *	callfilter -e NR[,NR...] -- CMD [ARG...]
 *
 * -a allows exactly the calls numbered NR and kills the process at any
 * other (SIGSYS); -k kills at those and allows the rest; -e refuses
 * those with EPERM and allows the rest.  A call of another architecture
 * than the build's is killed.  The filter is installed with
 * no_new_privs, then CMD (a path: no search, which would make calls)
 * is exec'd with it: execve must be among the calls an allow-list
 * lets through.  Exit 125 with a message for a bad command line or a
 * filter that cannot be installed, 126 if CMD cannot be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#define ARCH 0			/* none known: refused below */
#endif

#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif

/* At most this many numbers: a BPF program has 4096 instructions. */
#define MAX_NRS 1000

static void
die(const char *what)
{
	fprintf(stderr, "callfilter: %s\n", what);
	exit(125);
}

int
main(int argc, char *argv[])
{
	static struct sock_filter code[MAX_NRS + 8];
	struct sock_fprog prog;
	unsigned listed, other;
	char *s, *end;
	size_t n = 0, k, nrs = 0;
	long nr[MAX_NRS];

	if (ARCH == 0)
		die("no architecture known to this build");
	if (argc < 5 || argv[1][0] != '-' || strcmp(argv[3], "--") != 0)
		die("usage: callfilter -a|-k|-e NR[,NR...] -- CMD [ARG...]");
	switch (argv[1][1]) {
	case 'a':
		listed = SECCOMP_RET_ALLOW;
		other = SECCOMP_RET_KILL_PROCESS;
		break;
	case 'k':
		listed = SECCOMP_RET_KILL_PROCESS;
		other = SECCOMP_RET_ALLOW;
		break;
	case 'e':
		listed = SECCOMP_RET_ERRNO | EPERM;
		other = SECCOMP_RET_ALLOW;
		break;
	default:
		die("the mode is -a, -k or -e");
	}
	for (s = argv[2]; *s != '\0'; s = *end == ',' ? end + 1 : end) {
		errno = 0;
		nr[nrs] = strtol(s, &end, 10);
		if (errno != 0 || end == s || nr[nrs] < 0 ||
		    (*end != ',' && *end != '\0') || ++nrs == MAX_NRS)
			die("a bad list of call numbers");
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, arch));
	code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
	    ARCH, 1, 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
	    SECCOMP_RET_KILL_PROCESS);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, nr));
	/* One test a number: a match jumps to the last instruction but
	 * one (LISTED), past the tests after it and the OTHER. */
	for (k = 0; k < nrs; k++)
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
		    BPF_K, (unsigned)nr[k], (unsigned char)(nrs - k), 0);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, other);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, listed);
	if (nrs > 255)
		die("more numbers than one jump reaches");
	prog.len = (unsigned short)n;
	prog.filter = code;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		die("the filter cannot be installed here");
	execv(argv[4], argv + 4);
	fprintf(stderr, "callfilter: %s: %s\n", argv[4], strerror(errno));
	return 126;
}
