/*
 * Unit tests of lib/refusal.c: which failures of a zero-copy call are
 * refusals, the bound on EAGAIN that no wait clears (io.c's SPIN_MAX),
 * and a refusal after zero-copy moved bytes.  The filters are real:
 * each case that needs one runs in a child that installs it (prctl(2))
 * and reports through its exit status; a system that takes no filter (qemu-user, a kernel
 * without seccomp) skips those, saying so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define MiB	(1u << 20)

/* The data a link moves in the cases below: more than a pipe holds. */
#define LEN	(3 * MiB)

TEST(refusal_errnos)
{
	static const int refusals[] = {
		EPERM, ENOSYS, EINVAL, EOPNOTSUPP, ENOTSUP, EXDEV, ENOMEM
	};
	static const int errors[] = {
		EPIPE, ENOSPC, EIO, EAGAIN, EINTR, EISDIR, EFBIG, EDQUOT,
		EROFS, ECONNRESET, ENXIO, ETIMEDOUT
	};
	static const enum io_op zc[] = {
		IO_VMSPLICE, IO_SPLICE, IO_TEE, IO_COPY_RANGE
	};
	static const enum io_op plain[] = { IO_READ, IO_WRITE, IO_PEEK };
	size_t i, k;
	int good = 1;

	for (k = 0; k < sizeof zc / sizeof zc[0]; k++) {
		struct io_call c = { .op = zc[k] };

		for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
			errno = refusals[i];
			if (!zerocopy_refused(&c)) {
				printf("# op %d, %s: not a refusal\n", zc[k],
				    strerror(refusals[i]));
				good = 0;
			}
		}
		for (i = 0; i < sizeof errors / sizeof errors[0]; i++) {
			errno = errors[i];
			if (zerocopy_refused(&c)) {
				printf("# op %d, %s: a refusal\n", zc[k],
				    strerror(errors[i]));
				good = 0;
			}
		}
		errno = EBADF;
		if (zerocopy_refused(&c) != (zc[k] == IO_COPY_RANGE)) {
			printf("# op %d, EBADF\n", zc[k]);
			good = 0;
		}
		errno = EACCES;
		if (zerocopy_refused(&c) != (zc[k] != IO_COPY_RANGE)) {
			printf("# op %d, EACCES\n", zc[k]);
			good = 0;
		}
	}
	ok(good, "zerocopy_refused: EPERM ENOSYS EINVAL EOPNOTSUPP EXDEV "
	    "ENOMEM from any zero-copy call, EACCES but from "
	    "copy_file_range (GNU's), EBADF from it alone; not EPIPE ENOSPC "
	    "EIO EAGAIN ...");
	good = 1;
	for (k = 0; k < sizeof plain / sizeof plain[0]; k++) {
		struct io_call c = { .op = plain[k], .spun = 1 };

		errno = EINVAL;
		good &= !zerocopy_refused(&c);
	}
	ok(good, "zerocopy_refused: a read, write or peek is never refused");
}

TEST(refusal_not_a_wait)
{
	struct io_call w = { .op = IO_SPLICE, .waiting = 1 };
	struct io_call g = { .op = IO_TEE, .gave_up = 1 };
	struct io_call s = { .op = IO_TEE, .spun = 1 };

	errno = ENOMEM;
	ok(!zerocopy_refused(&w) && !zerocopy_refused(&g),
	    "zerocopy_refused: a failed wait, or one given up, is none");
	errno = EAGAIN;
	ok(zerocopy_refused(&s),
	    "zerocopy_refused: EAGAIN that no wait cleared is one");
}

#ifndef SPATE_PORTABLE
/*
 * Install a seccomp filter on this process that answers system call NR
 * with ACTION (SECCOMP_RET_ERRNO | errno, or SECCOMP_RET_KILL_PROCESS)
 * and lets every other call through.  Return 0, or -1 with errno set
 * where the system takes no filter.
 */
static int
refuse(long nr, unsigned action)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
	};
	struct sock_fprog prog = {
		.len = sizeof code / sizeof code[0], .filter = code
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* Return 1 if this system takes a seccomp filter (a child tries). */
static int
filters_work(void)
{
	static int known = -1;
	pid_t pid;

	if (known == -1) {
		if ((pid = xfork()) == 0)
			_exit(refuse(__NR_getppid, SECCOMP_RET_ERRNO | EPERM) ==
			    -1 || syscall(__NR_getppid) != -1 ||
			    errno != EPERM);
		known = exited_ok(pid);
	}
	return known;
}

/*
 * In a child: link a pipe that a writer fills with LEN bytes of the test
 * data to a temporary file, by splice(2), STEPS steps on the fast path,
 * then refuse splice with ACTION and copy the rest.  Exit 0 if the file
 * then holds the data whole, in order; 1 if it does not; 2 if a step
 * failed; 3 if the filter could not be had.
 */
static void
copy_refused_after(int steps, unsigned action)
{
	char *data = pattern(0, LEN);
	int p[2], out = xtmpfile(), i;
	struct end ein, eout;
	struct link l;
	ssize_t n = 1;
	pid_t w;

	xpipe(p);
	if ((w = xfork()) == 0) {
		close(p[0]);
		xwrite(p[1], data, LEN);
		_exit(0);
	}
	close(p[1]);
	end_init(&ein, p[0]);
	end_init(&eout, out);
	link_init(&l, &ein, &eout);
	l.path = l.fast;	/* PATH_SPLICE, past probation */
	for (i = 0; i < steps && n > 0; i++)
		n = link_step(&l, 65536);
	if (n <= 0)
		_exit(2);
	if (refuse(__NR_splice, action) == -1)
		_exit(3);
	while ((n = link_step(&l, 65536)) > 0)
		continue;
	if (n == -1 || l.path != PATH_RW || !exited_ok(w))
		_exit(2);
	_exit(!file_holds(out, data, LEN));
}

/* Run copy_refused_after(STEPS, ACTION) in a child; return its status
 * as copy_refused_after says, or 9 if it died. */
static int
refused_after(int steps, unsigned action)
{
	pid_t pid = xfork();
	int st;

	if (pid == 0) {
		signal(SIGALRM, SIG_DFL);
		alarm(60);
		copy_refused_after(steps, action);
	}
	st = xwait(pid);
	if (WIFSIGNALED(st))
		printf("# the child died of signal %d\n", WTERMSIG(st));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 9;
}

TEST(refused_midway)
{
	static const int errs[] = { EPERM, EACCES, EINVAL, ENOSYS };
	size_t i;
	int st = 0;

	if (!filters_work()) {
		skip("a refusal after zero-copy moved bytes: no seccomp filter "
		    "here");
		return;
	}
	for (i = 0; i < sizeof errs / sizeof errs[0] && st == 0; i++)
		if ((st = refused_after(3, SECCOMP_RET_ERRNO | errs[i])) != 0)
			printf("# %s: status %d\n", strerror(errs[i]), st);
	ok(st == 0, "link_step: splice refused (EPERM, EACCES, EINVAL, "
	    "ENOSYS) after it moved bytes: read/write from that byte, "
	    "the file whole");
}

TEST(eagain_forever)
{
	int st;

	if (!filters_work()) {
		skip("EAGAIN for ever: no seccomp filter here");
		return;
	}
	st = refused_after(2, SECCOMP_RET_ERRNO | EAGAIN);
	ok(st == 0, "link_step: splice saying EAGAIN whatever poll says "
	    "ends (SPIN_MAX): read/write, the file whole (%s)",
	    st == 9 ? "it spun until the alarm" : "no spin");
}
#endif
