/* "Repeat this line forever": the engine of yes (doc/design.md, "yes"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"

/*
 * The buffer starts at one page of lines and doubles each time all of it
 * has gone out, so `yes | head -n1` pays for one page, not megabytes.
 * write(2) stops at 128 KiB, which stays in the L2 cache.  Zero-copy
 * stops doubling at 64 KiB and then moves, once, to a 2 MiB buffer on a
 * huge page: bigger than the pipe (PIPE_MAX), so one vmsplice fills it, and
 * one page-table entry for all of it (doc/bench.md has the gain).
 * The buffers are never unmapped: the pipe may still hold their pages
 * when spate_repeat returns, and the caller is about to exit anyway.
 */
#define FIRST	4096u
#define RW_MAX	(128u << 10)
#define ZC_MID	(64u << 10)
#define ZC_MAX	(2u << 20)

/*
 * GNU yes writes one buffer of BUFSIZ (8 KiB) whole lines over and
 * over, or a single line if it is longer than half of that: on an output
 * that keeps writes apart (a record socket, a packet-mode pipe) those
 * are the records its readers get, and spate writes the same ones.
 */
#define GNU_RECORD	8192u

/* Largest multiple of LEN that is at most LIM, and at least LEN. */
static size_t
whole_lines(size_t len, size_t lim)
{
	return len >= lim ? len : lim / len * len;
}

/* Fill BUF[FILL..CAP) with copies of BUF[0..FILL), FILL a multiple of
 * the line's length, doubling what is copied each time. */
static void
replicate(char *buf, size_t fill, size_t cap)
{
	while (fill < cap) {
		size_t k = fill < cap - fill ? fill : cap - fill;

		memcpy(buf + fill, buf, k);
		fill += k;
	}
}

int
spate_repeat(int fd, const char *line, size_t len)
{
	struct end out;
	struct link l;
	size_t max, cap, off = 0;
	int records, big = 0;
	char *buf;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * From memory the link takes vmsplice(2) into a pipe's write end at
	 * once.  No SPLICE_F_GIFT: the pages stay ours and are read again for
	 * the next round.  That is safe only because they never change once
	 * handed to the pipe: a buffer only grows, past what was sent.
	 */
	sandbox_look();
	end_init(&out, fd);
	link_init(&l, NULL, &out);
	records = end_may_keep_writes(&out);
	max = whole_lines(len, records ? GNU_RECORD :
	    l.path == PATH_VMSPLICE ? ZC_MID : RW_MAX);
	/* Short of memory, a smaller buffer only costs more calls (but for
	 * records, whose size is GNU's). */
	while ((buf = map_memory(max, 0)) == NULL)
		if (records || max == len ||
		    (max = whole_lines(len, max / 2)) < FIRST)
			return -1;
	memcpy(buf, line, len);
	cap = records ? max : whole_lines(len, FIRST);
	replicate(buf, len, cap);
	for (;;) {
		ssize_t n = link_put(&l, buf + off, cap - off);

		if (n == -1)
			return -1;
		off += n;
		if (off < cap)
			continue;
		/* All of it went out: grow, past what the pipe holds. */
		off = 0;
		if (cap < max) {
			size_t fill = cap;

			cap = cap > max / 2 ? max : 2 * cap;
			replicate(buf, fill, cap);
		} else if (l.path == PATH_VMSPLICE && !big && !records) {
			size_t size = whole_lines(len, ZC_MAX);
			/* Under a filter, no madvise(2): GNU's yes makes
			 * none. */
			char *b = map_memory(size, !l.gnu);

			big = 1;
			if (b == NULL)
				continue;	/* keep the small buffer */
			memcpy(b, line, len);
			replicate(b, len, size);
			buf = b;
			cap = max = size;
		}
	}
}
