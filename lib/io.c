/* The one retry loop: short counts, EINTR, and EAGAIN waited out in poll. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "sluice.h"
#include "engine.h"

/*
 * Wait until FD is ready for EVENTS (POLLIN or POLLOUT); return 0, or -1
 * with errno set.  Used after EAGAIN on a non-blocking descriptor: never
 * spin, never take EAGAIN for an error.
 */
int
wait_fd(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int n = poll(&p, 1, -1);

		if (n > 0)
			return 0;
		if (n == -1 && errno != EINTR)
			return -1;
	}
}

/*
 * After EAGAIN from a transfer IN -> OUT, wait for the side that is not
 * ready: IN if it has nothing to read, else OUT; store which in *SIDE
 * (SL_INPUT or SL_OUTPUT).  Return as wait_fd.
 */
int
wait_either(int in, int out, int *side)
{
	struct pollfd p = { .fd = in, .events = POLLIN };

	if (poll(&p, 1, 0) == 0) {
		*side = SL_INPUT;
		return wait_fd(in, POLLIN);
	}
	*side = SL_OUTPUT;
	return wait_fd(out, POLLOUT);
}

/* Read up to LEN bytes of FD into BUF; return the count, 0 at end of
 * input, or -1 with errno set. */
ssize_t
read_some(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n >= 0)
			return n;
		if (errno == EAGAIN) {
			if (wait_fd(fd, POLLIN) == -1)
				return -1;
		} else if (errno != EINTR)
			return -1;
	}
}

/* Write LEN bytes of BUF to FD; return 0, or -1 with errno set (some
 * bytes may have gone out). */
int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n >= 0) {
			p += n;
			len -= n;
		} else if (errno == EAGAIN) {
			if (wait_fd(fd, POLLOUT) == -1)
				return -1;
		} else if (errno != EINTR)
			return -1;
	}
	return 0;
}

/*
 * Read exactly LEN bytes of FD, a private pipe known to hold them, into
 * BUF; return 0, or -1 with errno set (EIO if it held fewer).
 */
int
read_exact(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read_some(fd, p, len);

		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}
