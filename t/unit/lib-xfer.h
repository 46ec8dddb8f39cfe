/*
 * lib-xfer.h: what the unit tests of lib/xfer.c, the transfer layer,
 * share (test_xfer_*.c, one a path or concern): links between real
 * pairs of descriptors, every byte checked, and which path moved them.
 *
 * A link starts on read/write and takes its zero-copy path after one
 * read of ZC_AFTER bytes or more (probation).  run() records which paths
 * moved bytes: a step that changed the path (probation ended, or a
 * refusal fell back) moved its bytes by read/write.  The error cases set
 * l.path = l.fast to start on the zero-copy path, past probation.
 *
 * Include this after defining _GNU_SOURCE.
 */
#ifndef LIB_XFER_H
#define LIB_XFER_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"
#include "tap.h"

#define MiB		(1UL << 20)
#define STEP		(16u << 20)	/* what spate_cat and spate_fanout ask */
#define BIT(p)		(1u << (p))
#define RW		BIT(PATH_RW)

#ifdef SPATE_PORTABLE
#define ZC(p)		0u		/* no zero-copy in this build */
#define FAST(p)		PATH_RW
#else
#define ZC(p)		BIT(p)
#define FAST(p)		(p)
#endif

/* Say SPATE_ZEROCOPY=V, or unset it if V is NULL. */
static inline void
zerocopy_env(const char *v)
{
	if (v == NULL)
		unsetenv("SPATE_ZEROCOPY");
	else
		setenv("SPATE_ZEROCOPY", v, 1);
}

/*
 * Return the read end of a pipe (or of a socket pair if SOCK) that gets
 * the LEN bytes of BUF: the first PRE bytes written at once, so that the
 * first read can end probation, the rest by a child in STEP-byte writes
 * after DELAY_MS.  The child is *PID.
 */
static inline int
feeder(const char *buf, size_t len, size_t pre, size_t step, int delay_ms,
    int sock, pid_t *pid)
{
	int p[2];

	if (sock)
		xsocketpair(p);
	else
		xpipe(p);
	xwrite(p[1], buf, pre);
	if ((*pid = xfork()) == 0) {
		size_t off = pre;

		close(p[0]);
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		while (off < len) {
			size_t k = len - off < step ? len - off : step;

			if (write_all(p[1], buf + off, k) == -1)
				_exit(1);
			off += k;
		}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

/*
 * Start a child that reads FD (the read end of a pipe or a socket) to
 * its end, after DELAY_MS, CHUNK bytes at a time, into the file *KEEP,
 * a new scratch file; close OTHER, our end of it, in the child.  Return
 * the child.
 */
static inline pid_t
sink(int fd, int other, int delay_ms, size_t chunk, int *keep)
{
	pid_t pid;

	*keep = xtmpfile();
	if ((pid = xfork()) == 0) {
		char *buf = malloc(chunk);
		ssize_t n;

		close(other);
		if (buf == NULL)
			_exit(2);
		if (delay_ms > 0)
			usleep(delay_ms * 1000);
		while ((n = read(fd, buf, chunk)) != 0) {
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 || write_all(*keep, buf, n) == -1)
				break;
		}
		free(buf);
		_exit(n == 0 ? 0 : 1);
	}
	close(fd);
	return pid;
}

/* Return 1 if FD's offset is AT. */
static inline int
offset_is(int fd, off_t at)
{
	return lseek(fd, 0, SEEK_CUR) == at;
}

/* Print the paths in the mask USED as a TAP comment. */
static inline void
show_paths(const char *what, unsigned used)
{
	static const char *name[] = {
		"RW", "SPLICE", "VIA_PIPE", "COPY_RANGE", "VMSPLICE"
	};
	size_t i;

	printf("# %s:", what);
	for (i = 0; i < sizeof name / sizeof name[0]; i++)
		if (used & BIT(i))
			printf(" %s", name[i]);
	printf("\n");
}

/*
 * Step L to the end of its input, or its first failure.  Return the
 * bytes moved, or -1 with errno set; *USED gets the paths that moved
 * bytes.
 */
static inline off_t
run(struct link *l, unsigned *used)
{
	off_t total = 0;
	ssize_t n;

	*used = 0;
	for (;;) {
		enum path before = l->path;

		if ((n = link_step(l, STEP)) <= 0)
			break;
		*used |= BIT(before == l->path ? before : PATH_RW);
		total += n;
	}
	return n == 0 ? total : -1;
}

/* A link from IN to OUT over ends I and O, ready to run. */
static inline void
link_fds(struct link *l, struct end *i, int in, struct end *o, int out)
{
	end_init(i, in);
	end_init(o, out);
	link_init(l, i, o);
}

/* Check a run that moved LEN bytes of WANT by the paths EXPECT. */
static inline int
good_run(off_t moved, size_t len, unsigned used, unsigned expect)
{
	if (moved != (off_t)len)
		printf("# moved %lld of %zu bytes (%s)\n", (long long)moved,
		    len, moved == -1 ? strerror(errno) : "no error");
	if (used != expect) {
		show_paths("paths used", used);
		show_paths("paths expected", expect);
	}
	return moved == (off_t)len && used == expect;
}

/* Every case: the EPIPE cases need SIGPIPE ignored; a hang is a
 * failure. */
void
tap_setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	watchdog(120);
}

#endif
