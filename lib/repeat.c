/* "Repeat this line forever": the engine of yes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sluice.h"

/*
 * The buffer starts at one page of lines and doubles each time all of it
 * has gone out, so `yes | head -n1` pays for one page, not megabytes.
 * Zero-copy wants a buffer bigger than the pipe (1 MiB) so that one
 * vmsplice fills it; write(2) wants one that stays in the L2 cache.
 */
#define FIRST	4096
#define ZC_MAX	(2u << 20)
#define RW_MAX	(128u << 10)

/* Largest multiple of LEN that is at most LIM, and at least LEN. */
static size_t
whole_lines(size_t len, size_t lim)
{
	return len >= lim ? len : lim / len * len;
}

/* Send BUF[0..LEN) to FD by vmsplice if ZC, else by write. */
static ssize_t
put(int fd, const char *buf, size_t len, int zc)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	/*
	 * No SPLICE_F_GIFT: the pages stay ours and are read again for the
	 * next round.  That is safe only because they never change once
	 * handed to the pipe: the buffer only grows, past what was sent.
	 */
	return zc ? vmsplice(fd, &iov, 1, 0) : write(fd, buf, len);
}

int
sl_repeat(int fd, const char *line, size_t len)
{
	enum sl_kind kind;
	size_t max, cap, fill, off = 0;
	int zc = 0, moved = 0;
	char *buf;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	/* An fstat failure (closed fd) is left for write(2) to report. */
	if (sl_zerocopy_allowed() && sl_fdkind(fd, &kind) == 0 &&
	    kind == SL_PIPE) {
		zc = 1;
		sl_pipe_grow(fd);
	}
	max = whole_lines(len, zc ? ZC_MAX : RW_MAX);
	/*
	 * mmap gives page-aligned memory; untouched pages cost nothing until
	 * filled.  It is never unmapped: the pipe may still hold its pages
	 * when we return, and the caller is about to exit anyway.
	 */
	buf = mmap(NULL, max, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -1;
	memcpy(buf, line, len);
	fill = len;
	cap = whole_lines(len, FIRST);
	for (;;) {
		ssize_t n;

		/* FILL stays a multiple of LEN, so BUF[FILL + i] == BUF[i]. */
		while (fill < cap) {
			size_t k = fill < cap - fill ? fill : cap - fill;

			memcpy(buf + fill, buf, k);
			fill += k;
		}
		n = put(fd, buf + off, cap - off, zc);
		if (n >= 0) {
			moved = 1;
			off += n;
			if (off == cap) {
				off = 0;
				cap = cap > max / 2 ? max : whole_lines(len,
				    2 * cap);
			}
		} else if (errno == EAGAIN) {
			if (sl_wait(fd, POLLOUT) == -1)
				return -1;
		} else if (errno == EINTR) {
			continue;
		} else if (zc && !moved) {
			/* vmsplice refused before any byte went out. */
			zc = 0;
		} else
			return -1;
	}
}
