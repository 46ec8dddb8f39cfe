/*
 * lib-retry.h: what the unit tests of the one retry policy (lib/io.c's
 * io_move and io_move_all) share: a poll() of their own, which the
 * engine linked into them calls, and which does as the real one unless
 * a case makes its blocking waits fail (a wait that fails cannot be
 * had from the kernel on demand); pipes full or at their end.  Every
 * case may hang, not fail, if the policy waits wrongly: a watchdog
 * ends the file.
 *
 * Include this after defining _GNU_SOURCE, in one file a program.
 */
#ifndef LIB_RETRY_H
#define LIB_RETRY_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

static int poll_fails;		/* a blocking poll() fails with ENOMEM */
static int peek_fails;		/* so does one that does not wait */
static void (*poll_hook)(void);	/* runs before a blocking poll() */
static int poll_waits;		/* blocking poll() calls so far */

/* poll(2), by ppoll(2), but as the case asks of a blocking wait. */
int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	struct timespec ts = { timeout / 1000, timeout % 1000 * 1000000L };

	if (timeout >= 0 && peek_fails) {
		errno = ENOMEM;
		return -1;
	}
	if (timeout < 0) {
		poll_waits++;
		if (poll_fails) {
			errno = ENOMEM;
			return -1;
		}
		if (poll_hook != NULL)
			poll_hook();
	}
	return ppoll(fds, n, timeout < 0 ? NULL : &ts, NULL);
}

/* Make the next blocking waits fail (ON 1) or work (ON 0). */
static inline void
fail_waits(int on)
{
	poll_fails = on;
	poll_waits = 0;
}

/* A non-blocking pipe P whose write end is full. */
static inline void
full_pipe(int p[2])
{
	char buf[4096] = { 0 };

	xpipe2(p, O_NONBLOCK);
	while (write(p[1], buf, sizeof buf) > 0)
		;
	if (errno != EAGAIN)
		bail_out("filling a pipe: %s", strerror(errno));
}

/* The read end of a pipe that holds the string S and has no writer. */
static inline int
ended_pipe(const char *s)
{
	int p[2];

	xpipe(p);
	xwrite(p[1], s, strlen(s));
	close(p[1]);
	return p[0];
}

/* Every case may hang, not fail, if the policy waits wrongly. */
void
tap_setup(void)
{
	watchdog(60);
}

#endif
