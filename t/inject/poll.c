/*
 * poll.c: inject.so's waits (inject.h): poll(2), ppoll(2), and glibc's
 * __poll_chk, which _FORTIFY_SOURCE calls for poll.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>

#include "inject.h"

static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_poll_chk)(struct pollfd *, nfds_t, int, size_t);
static int (*real_ppoll)(struct pollfd *, nfds_t, const struct timespec *,
    const sigset_t *);

int
poll_resolve(void)
{
	real_poll = (int (*)(struct pollfd *, nfds_t, int))
	    dlsym(RTLD_NEXT, "poll");
	real_poll_chk = (int (*)(struct pollfd *, nfds_t, int, size_t))
	    dlsym(RTLD_NEXT, "__poll_chk");
	real_ppoll = (int (*)(struct pollfd *, nfds_t, const struct timespec *,
	    const sigset_t *))dlsym(RTLD_NEXT, "ppoll");
	return real_poll == NULL || real_ppoll == NULL ? -1 : 0;
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
