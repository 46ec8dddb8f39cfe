/* Plain writes that survive short counts, EINTR and non-blocking fds. */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "sluice.h"

int
sl_wait(int fd, short events)
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

int
sl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n >= 0) {
			p += n;
			len -= n;
		} else if (errno == EAGAIN) {
			if (sl_wait(fd, POLLOUT) == -1)
				return -1;
		} else if (errno != EINTR)
			return -1;
	}
	return 0;
}
