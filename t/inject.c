/*
 * inject.so: the fault tests' injector, preloaded (LD_PRELOAD) into the
 * command under test by lib-fault.sh's with_inject.  Test-only: never
 * installed, never linked into anything.
 *
 * strace's inject= counts every call of a kind (when=), and how many
 * calls a run makes depends on timing: a splice(2) or tee(2) asked not to
 * wait says EAGAIN whenever its pipe is empty or full, and the next call
 * then has another number.  This library names the call it fails by
 * what it is instead: its kind and its descriptors, and its place among
 * the calls of that kind on those descriptors that did not say EAGAIN by
 * themselves.  "The 3rd splice into descriptor 4" is then the same call
 * in every run, however the scheduler ran the pipe's other end.
 *
 * SPATE_INJECT holds the faults, separated by spaces, each
 *
 *	CALL[:in=FD][:out=FD]:[nth=RANGE:]error=ERRNO|retval=N
 *
 *	CALL[:size=RANGE][:nth=RANGE]:error=ERRNO|retval=N
 *
 * CALL is read, write, splice, tee, vmsplice, copy_file_range, sendfile,
 * F_SETPIPE_SZ or F_GETPIPE_SZ (fcntl(2) with that command; its other
 * commands are never faked) or poll (poll(2) and ppoll(2)), or calloc
 * or realloc (malloc(3)'s).  in= and out= ask for the call's
 * descriptors: read's is in, write's and vmsplice's out, an fcntl's in;
 * FD a number, or !FD for any other.  size= asks for the bytes calloc
 * or realloc is asked for, in a RANGE as nth='s; error=ENOMEM makes the
 * call return NULL.  RANGE is K, K..L or K+, counting from 1 the calls
 * that match, made by any thread of the process, less those that the
 * kernel answered EAGAIN (a faked one counts); without nth=, every
 * matching call.  A fault's call is not made: error= returns -1 with
 * that errno (a name: EIO), retval=N returns N, as strace's inject does.
 * Where two faults match a call, the first one written decides.
 *
 * SPATE_INJECTED names a file: each faked call appends a line there
 * ("splice(5, 4) nth=3: error=EIO"), and each process that loads this
 * library "loaded NAME" (its /proc/self/comm), so that a case can tell
 * that its fault came, and the prerequisite that the library loads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

enum call { C_READ, C_WRITE, C_SPLICE, C_TEE, C_VMSPLICE, C_COPY_RANGE,
	C_SENDFILE, C_SETPIPE, C_GETPIPE, C_POLL, C_CALLOC, C_REALLOC, NCALLS };

static const char *const call_names[NCALLS] = {
	"read", "write", "splice", "tee", "vmsplice", "copy_file_range",
	"sendfile", "F_SETPIPE_SZ", "F_GETPIPE_SZ", "poll", "calloc", "realloc"
};

/* The errors the fault tests inject, by name. */
static const struct {
	const char *name;
	int no;
} errnos[] = {
	{ "EACCES", EACCES }, { "EAGAIN", EAGAIN }, { "EBADF", EBADF },
	{ "EDQUOT", EDQUOT }, { "EFAULT", EFAULT }, { "EFBIG", EFBIG },
	{ "EINTR", EINTR }, { "EINVAL", EINVAL }, { "EIO", EIO },
	{ "EISDIR", EISDIR }, { "ENOMEM", ENOMEM }, { "ENOSPC", ENOSPC },
	{ "ENOSYS", ENOSYS }, { "EOPNOTSUPP", EOPNOTSUPP }, { "EPERM", EPERM },
	{ "EPIPE", EPIPE }, { "EXDEV", EXDEV },
};

/* A descriptor asked for: any, FD, or any but FD. */
struct fdsel {
	enum { ANY, IS, NOT } how;
	int fd;
};

struct fault {
	enum call call;
	struct fdsel in, out;
	long first, last;	/* the range of nth=; last -1: no end */
	long least, most;	/* the range of size=; most -1: no end */
	int err;		/* error=, or 0 */
	long retval;		/* retval=, where err is 0 */
	char action[32];	/* error=NAME or retval=N, for the log */
	long count;		/* the matching calls counted so far */
};

#define MAXFAULTS 8
static struct fault faults[MAXFAULTS];
static int nfaults;
static const char *log_path;

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_read_chk)(int, void *, size_t, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_splice)(int, loff_t *, int, loff_t *, size_t,
    unsigned int);
static ssize_t (*real_tee)(int, int, size_t, unsigned int);
static ssize_t (*real_vmsplice)(int, const struct iovec *, size_t,
    unsigned int);
static ssize_t (*real_copy_range)(int, loff_t *, int, loff_t *, size_t,
    unsigned int);
static ssize_t (*real_sendfile)(int, int, off_t *, size_t);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_poll_chk)(struct pollfd *, nfds_t, int, size_t);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
    const sigset_t *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);

/* Append a line made of FMT to the log, if there is one. */
static void
note(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int fd, n;

	if (log_path == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line)
		return;
	/* O_APPEND: the processes of a run share the log. */
	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd == -1)
		return;
	/* A line lost makes the case that looks for it fail. */
	if (real_write(fd, line, n) != n)
		n = -1;
	close(fd);
}

/* A bad SPATE_INJECT is the test's bug: say so and end the process. */
static void
bad_spec(const char *spec)
{
	fprintf(stderr, "inject.so: bad fault \"%s\"\n", spec);
	_exit(125);
}

/* Parse a descriptor asked for, FD or !FD, from S into *SEL; return 0,
 * or -1 if S is not one. */
static int
parse_fd(const char *s, struct fdsel *sel)
{
	char *end;

	sel->how = IS;
	if (*s == '!') {
		sel->how = NOT;
		s++;
	}
	errno = 0;
	sel->fd = (int)strtol(s, &end, 10);
	return *s == '\0' || *end != '\0' || errno ? -1 : 0;
}

/* Parse RANGE (K, K..L, K+) from S into *FIRST and *LAST (-1: no end);
 * return 0, or -1. */
static int
parse_range(const char *s, long *first, long *last)
{
	char *end;

	*first = strtol(s, &end, 10);
	if (end == s || *first < 1)
		return -1;
	if (*end == '\0') {
		*last = *first;
		return 0;
	}
	if (strcmp(end, "+") == 0) {
		*last = -1;
		return 0;
	}
	if (strncmp(end, "..", 2) != 0)
		return -1;
	s = end + 2;
	*last = strtol(s, &end, 10);
	return end == s || *end != '\0' || *last < *first ? -1 : 0;
}

/* N in the range FIRST..LAST (LAST -1: no end). */
static int
in_range(long n, long first, long last)
{
	return n >= first && (last == -1 || n <= last);
}

/* CALL allocates memory. */
static int
is_alloc(enum call call)
{
	return call == C_CALLOC || call == C_REALLOC;
}

/* Parse one fault, SPEC (which it may change), into F; return 0, or -1. */
static int
parse_fault(char *spec, struct fault *f)
{
	char *word, *save;
	size_t i;

	memset(f, 0, sizeof *f);
	f->first = 1;
	f->last = -1;
	f->most = -1;
	f->retval = -1;
	word = strtok_r(spec, ":", &save);
	for (i = 0; i < NCALLS; i++)
		if (word != NULL && strcmp(word, call_names[i]) == 0)
			break;
	if (i == NCALLS)
		return -1;
	f->call = (enum call)i;
	while ((word = strtok_r(NULL, ":", &save)) != NULL) {
		char *val = strchr(word, '=');

		if (val == NULL)
			return -1;
		*val++ = '\0';
		if (strcmp(word, "error") == 0 || strcmp(word, "retval") == 0)
			snprintf(f->action, sizeof f->action, "%s=%s", word,
			    val);
		if (strcmp(word, "in") == 0) {
			if (parse_fd(val, &f->in) == -1)
				return -1;
		} else if (strcmp(word, "out") == 0) {
			if (parse_fd(val, &f->out) == -1)
				return -1;
		} else if (strcmp(word, "nth") == 0) {
			if (parse_range(val, &f->first, &f->last) == -1)
				return -1;
		} else if (strcmp(word, "size") == 0) {
			if (parse_range(val, &f->least, &f->most) == -1)
				return -1;
		} else if (strcmp(word, "error") == 0) {
			for (i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
				if (strcmp(val, errnos[i].name) == 0)
					f->err = errnos[i].no;
			if (f->err == 0)
				return -1;
		} else if (strcmp(word, "retval") == 0) {
			char *end;

			f->retval = strtol(val, &end, 10);
			if (end == val || *end != '\0' || f->retval < 0)
				return -1;
		} else {
			return -1;
		}
	}
	/* One action; a poll and an allocation have no descriptors to ask
	 * for, only an allocation a size, and it fails only one way. */
	if ((f->err != 0) == (f->retval != -1))
		return -1;
	if ((f->call == C_POLL || is_alloc(f->call)) &&
	    (f->in.how != ANY || f->out.how != ANY))
		return -1;
	if (!is_alloc(f->call) ? f->least != 0 : f->err != ENOMEM)
		return -1;
	return 0;
}

/*
 * Find the allocators that calloc and realloc below stand for: libc's,
 * or a sanitizer's.  They may be called before inject_init, by another
 * library's constructor.  No allocation is faulted before the faults
 * are read, and dlsym(3) allocates nothing on success.
 */
static void
real_allocators(void)
{
	if (real_calloc == NULL)
		real_calloc = (void *(*)(size_t, size_t))
		    dlsym(RTLD_NEXT, "calloc");
	if (real_realloc == NULL)
		real_realloc = (void *(*)(void *, size_t))
		    dlsym(RTLD_NEXT, "realloc");
}

__attribute__((constructor)) static void
inject_init(void)
{
	const char *env = getenv("SPATE_INJECT");
	char comm[64] = "?";
	char *specs, *spec, *save;
	FILE *fp;

	real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	real_read_chk = (ssize_t (*)(int, void *, size_t, size_t))
	    dlsym(RTLD_NEXT, "__read_chk");
	real_write = (ssize_t (*)(int, const void *, size_t))
	    dlsym(RTLD_NEXT, "write");
	real_splice = (ssize_t (*)(int, loff_t *, int, loff_t *, size_t,
	    unsigned int))dlsym(RTLD_NEXT, "splice");
	real_tee = (ssize_t (*)(int, int, size_t, unsigned int))
	    dlsym(RTLD_NEXT, "tee");
	real_vmsplice = (ssize_t (*)(int, const struct iovec *, size_t,
	    unsigned int))dlsym(RTLD_NEXT, "vmsplice");
	real_copy_range = (ssize_t (*)(int, loff_t *, int, loff_t *, size_t,
	    unsigned int))dlsym(RTLD_NEXT, "copy_file_range");
	real_sendfile = (ssize_t (*)(int, int, off_t *, size_t))
	    dlsym(RTLD_NEXT, "sendfile");
	real_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	real_poll = (int (*)(struct pollfd *, nfds_t, int))
	    dlsym(RTLD_NEXT, "poll");
	real_poll_chk = (int (*)(struct pollfd *, nfds_t, int, size_t))
	    dlsym(RTLD_NEXT, "__poll_chk");
	real_ppoll = (int (*)(struct pollfd *, nfds_t, const struct timespec *,
	    const sigset_t *))dlsym(RTLD_NEXT, "ppoll");
	real_allocators();
	if (real_read == NULL || real_write == NULL || real_splice == NULL ||
	    real_tee == NULL || real_vmsplice == NULL ||
	    real_copy_range == NULL || real_sendfile == NULL ||
	    real_fcntl == NULL || real_poll == NULL || real_ppoll == NULL ||
	    real_calloc == NULL || real_realloc == NULL) {
		fprintf(stderr, "inject.so: %s\n", dlerror());
		_exit(125);
	}
	log_path = getenv("SPATE_INJECTED");
	if (log_path != NULL && *log_path == '\0')
		log_path = NULL;
	if ((fp = fopen("/proc/self/comm", "re")) != NULL) {
		if (fgets(comm, sizeof comm, fp) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(fp);
	}
	note("loaded %s\n", comm);
	if (env == NULL || (specs = strdup(env)) == NULL)
		return;
	for (spec = strtok_r(specs, " ", &save); spec != NULL;
	    spec = strtok_r(NULL, " ", &save)) {
		char copy[256];

		snprintf(copy, sizeof copy, "%s", spec);
		if (nfaults == MAXFAULTS || parse_fault(spec, &faults[nfaults]))
			bad_spec(copy);
		nfaults++;
	}
	free(specs);
}

/* After a call that returned R, the faults MATCHED (a set) count it,
 * unless the kernel said EAGAIN. */
static void
after_call(unsigned matched, long r)
{
	int i;

	if (r == -1 && errno == EAGAIN)
		return;
	for (i = 0; i < nfaults; i++)
		if (matched & 1u << i)
			__atomic_add_fetch(&faults[i].count, 1, __ATOMIC_SEQ_CST);
}

/* IN (or OUT) as SEL asks. */
static int
fd_is(const struct fdsel *sel, int fd)
{
	return sel->how == ANY || (sel->how == IS) == (fd == sel->fd);
}

/*
 * Before a CALL on IN and OUT (-1 where the call has none), of SIZE
 * bytes if it allocates: return the fault that fakes it, or NULL if the
 * call is to be made.  Every fault the call matches counts it, a faked
 * call at once; for a call to be made, *MATCHED gets the set of those
 * faults, for after_call.
 */
static struct fault *
before_call(enum call call, int in, int out, size_t size, unsigned *matched)
{
	struct fault *fake = NULL;
	int i;

	*matched = 0;
	for (i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];
		long nth;

		if (f->call != call || !fd_is(&f->in, in) ||
		    !fd_is(&f->out, out) ||
		    (f->least != 0 && !in_range((long)size, f->least, f->most)))
			continue;
		*matched |= 1u << i;
		/* Threads may call at once: each call gets a number. */
		nth = __atomic_load_n(&f->count, __ATOMIC_SEQ_CST) + 1;
		if (fake == NULL && in_range(nth, f->first, f->last)) {
			fake = f;
			if (is_alloc(call))
				note("%s(%zu) nth=%ld: %s\n", call_names[call],
				    size, nth, f->action);
			else
				note("%s(%d, %d) nth=%ld: %s\n",
				    call_names[call], in, out, nth, f->action);
		}
	}
	if (fake != NULL) {
		after_call(*matched, 0);
		*matched = 0;
	}
	return fake;
}

/* What fault F makes the call return. */
static long
faked(const struct fault *f)
{
	if (f->err) {
		errno = f->err;
		return -1;
	}
	return f->retval;
}

ssize_t
read(int fd, void *buf, size_t len)
{
	unsigned matched;
	struct fault *f = before_call(C_READ, fd, -1, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_read(fd, buf, len);
	after_call(matched, r);
	return r;
}

ssize_t
__read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	unsigned matched;
	struct fault *f = before_call(C_READ, fd, -1, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_read_chk(fd, buf, len, buflen);
	after_call(matched, r);
	return r;
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	unsigned matched;
	struct fault *f = before_call(C_WRITE, -1, fd, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_write(fd, buf, len);
	after_call(matched, r);
	return r;
}

ssize_t
splice(int in, loff_t *in_off, int out, loff_t *out_off, size_t len,
    unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_SPLICE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_splice(in, in_off, out, out_off, len, flags);
	after_call(matched, r);
	return r;
}

ssize_t
tee(int in, int out, size_t len, unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_TEE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_tee(in, out, len, flags);
	after_call(matched, r);
	return r;
}

ssize_t
vmsplice(int fd, const struct iovec *iov, size_t n, unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_VMSPLICE, -1, fd, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_vmsplice(fd, iov, n, flags);
	after_call(matched, r);
	return r;
}

ssize_t
copy_file_range(int in, loff_t *in_off, int out, loff_t *out_off,
    size_t len, unsigned int flags)
{
	unsigned matched;
	struct fault *f = before_call(C_COPY_RANGE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_copy_range(in, in_off, out, out_off, len, flags);
	after_call(matched, r);
	return r;
}

ssize_t
sendfile(int out, int in, off_t *off, size_t len)
{
	unsigned matched;
	struct fault *f = before_call(C_SENDFILE, in, out, 0, &matched);
	ssize_t r;

	if (f != NULL)
		return faked(f);
	r = real_sendfile(out, in, off, len);
	after_call(matched, r);
	return r;
}

/*
 * fcntl(2) through REAL, faked where CMD is F_SETPIPE_SZ or F_GETPIPE_SZ
 * and a fault says so.  Its third argument, where it has one, is an int
 * or a pointer: passed on as a pointer, as the C library's own wrapper
 * takes it (a word on every ABI Linux has).
 */
static int
fcntl_call(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	unsigned matched = 0;
	struct fault *f = NULL;
	int r;

	if (cmd == F_SETPIPE_SZ || cmd == F_GETPIPE_SZ)
		f = before_call(cmd == F_SETPIPE_SZ ? C_SETPIPE : C_GETPIPE,
		    fd, -1, 0, &matched);
	if (f != NULL)
		return (int)faked(f);
	r = real(fd, cmd, arg);
	after_call(matched, r);
	return r;
}

int
fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	/* Called before inject_init, by another library's constructor. */
	if (real_fcntl == NULL)
		real_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	return fcntl_call(real_fcntl, fd, cmd, arg);
}

/* What a program built with _FILE_OFFSET_BITS=64 calls for fcntl(2)
 * (glibc 2.28 and later), which only such a C library can resolve. */
int
fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (real_fcntl64 == NULL)
		real_fcntl64 = (int (*)(int, int, ...))
		    dlsym(RTLD_NEXT, "fcntl64");
	return fcntl_call(real_fcntl64, fd, cmd, arg);
}

int
poll(struct pollfd *p, nfds_t n, int ms)
{
	unsigned matched;
	struct fault *f = before_call(C_POLL, -1, -1, 0, &matched);
	int r;

	if (f != NULL)
		return (int)faked(f);
	r = real_poll(p, n, ms);
	after_call(matched, r);
	return r;
}

/* ppoll(2) counts as a poll: the engine waits with it where it lets
 * signals in. */
int
ppoll(struct pollfd *p, nfds_t n, const struct timespec *t,
    const sigset_t *mask)
{
	unsigned matched;
	struct fault *f = before_call(C_POLL, -1, -1, 0, &matched);
	int r;

	if (f != NULL)
		return (int)faked(f);
	r = real_ppoll(p, n, t, mask);
	after_call(matched, r);
	return r;
}

int
__poll_chk(struct pollfd *p, nfds_t n, int ms, size_t size)
{
	unsigned matched;
	struct fault *f = before_call(C_POLL, -1, -1, 0, &matched);
	int r;

	if (f != NULL)
		return (int)faked(f);
	r = real_poll_chk(p, n, ms, size);
	after_call(matched, r);
	return r;
}

/* Where a fault says so (size=, nth=), calloc and realloc fail: NULL,
 * errno ENOMEM.  An allocation is never counted as EAGAIN. */
void *
calloc(size_t n, size_t size)
{
	unsigned matched;
	struct fault *f;

	if (real_calloc == NULL)
		real_allocators();
	f = before_call(C_CALLOC, -1, -1,
	    size != 0 && n > (size_t)-1 / size ? (size_t)-1 : n * size,
	    &matched);
	if (f != NULL) {
		errno = ENOMEM;
		return NULL;
	}
	after_call(matched, 0);
	return real_calloc(n, size);
}

void *
realloc(void *p, size_t size)
{
	unsigned matched;
	struct fault *f;

	if (real_realloc == NULL)
		real_allocators();
	f = before_call(C_REALLOC, -1, -1, size, &matched);
	if (f != NULL) {
		errno = ENOMEM;
		return NULL;
	}
	after_call(matched, 0);
	return real_realloc(p, size);
}
