/* Pipe sizing. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>

#include "sluice.h"
#include "sys.h"

/*
 * 1 MiB is the default pipe-max-size: past it unprivileged callers get
 * EPERM, and a bigger pipe stops paying off once it outgrows the cache.
 */
#define PIPE_WANT (1L << 20)

long
sl_pipe_grow(int fd)
{
	long have, want;

	if ((have = sys_pipe_size(fd)) == -1)
		return -1;
	/*
	 * EPERM means over pipe-max-size or the per-user quota; halve and
	 * try again rather than read /proc, which would cost every start.
	 */
	for (want = PIPE_WANT; want > have; want /= 2) {
		long got = sys_pipe_resize(fd, want);

		if (got != -1)
			return got;
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	return have;
}
