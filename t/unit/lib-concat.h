/*
 * lib-concat.h: what the unit tests of cat's engine (lib/concat.c)
 * share: a pipe fed by a child, a pipe drained by one into a scratch
 * file, spate_cat_open checked; SIGPIPE ignored, as the commands have
 * it, and a watchdog, since a hang is a failure.
 *
 * Include this after defining _GNU_SOURCE.
 */
#ifndef LIB_CONCAT_H
#define LIB_CONCAT_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define MiB	(1UL << 20)

/* The read end of a pipe a child fills with the LEN bytes of BUF; the
 * child is *PID. */
static inline int
feeder(const char *buf, size_t len, pid_t *pid)
{
	int p[2];

	xpipe(p);
	if ((*pid = xfork()) == 0) {
		close(p[0]);
		_exit(write_all(p[1], buf, len) == 0 ? 0 : 1);
	}
	close(p[1]);
	return p[0];
}

/* Start a child that copies pipe P's read end into *KEEP, a new scratch
 * file, to its end; return the child.  P[0] is closed here. */
static inline pid_t
sink(int p[2], int *keep)
{
	pid_t pid;

	*keep = xtmpfile();
	if ((pid = xfork()) == 0) {
		char buf[65536];
		ssize_t n;

		close(p[1]);
		while ((n = read(p[0], buf, sizeof buf)) > 0)
			if (write_all(*keep, buf, n) == -1)
				_exit(1);
		_exit(n == 0 ? 0 : 1);
	}
	close(p[0]);
	p[0] = -1;
	return pid;
}

/* spate_cat_open, or bail out. */
static inline struct spate_cat *
xcat_open(int out, unsigned flags)
{
	struct spate_cat *c = spate_cat_open(out, flags);

	if (c == NULL)
		bail_out("spate_cat_open: %s", strerror(errno));
	return c;
}

/* SIGPIPE ignored, as the commands have it; a hang is a failure. */
void
tap_setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	watchdog(60);
}

#endif
