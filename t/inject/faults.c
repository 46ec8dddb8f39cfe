/*
 * faults.c: inject.so's faults (inject.h): SPATE_INJECT read once, when
 * the library loads; the calls that match each fault counted, and the
 * one it fakes chosen; SPATE_INJECTED's log.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inject.h"

static const char *const call_names[NCALLS] = {
	"read", "write", "splice", "tee", "vmsplice", "copy_file_range",
	"sendfile", "F_SETPIPE_SZ", "F_GETPIPE_SZ", "poll", "calloc", "realloc",
	"mmap"
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

/* The C library's write(2), not write's wrapper: the log's lines are
 * none of the command's calls. */
static ssize_t (*log_write)(int, const void *, size_t);

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
	if (log_write(fd, line, n) != n)
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
	return call == C_CALLOC || call == C_REALLOC || call == C_MMAP;
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

/* Find the real calls, then read the faults: once, as the library loads,
 * before the program's main(). */
__attribute__((constructor)) static void
inject_init(void)
{
	const char *env = getenv("SPATE_INJECT");
	char comm[64] = "?";
	char *specs, *spec, *save;
	FILE *fp;

	log_write = (ssize_t (*)(int, const void *, size_t))
	    dlsym(RTLD_NEXT, "write");
	if (log_write == NULL || io_resolve() == -1 ||
	    fcntl_resolve() == -1 || poll_resolve() == -1 ||
	    alloc_resolve() == -1) {
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
void
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
struct fault *
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
long
faked(const struct fault *f)
{
	if (f->err) {
		errno = f->err;
		return -1;
	}
	return f->retval;
}
