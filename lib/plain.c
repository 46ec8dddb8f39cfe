/*
 * The fan-out without its state: GNU tee's own loop, for when the
 * memory for the engine's state for the outputs cannot be had
 * (sl_fanout_flags).  GNU's tee, whose buffer is on its stack, copies
 * on short of memory; so does spate's, through this loop, rather than
 * fail before it read a byte.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "fanout.h"

/*
 * Copy IN to the N outputs OUTS as GNU's tee does: a read(2) of
 * GNU_CHUNK bytes at most into the stack, then a write(2) of it to each
 * output in turn, told to FAIL at once.  Nothing is held and nothing
 * is taken but the stack.  Return as sl_fanout_flags.
 */
int
fan_plain(int in, struct sl_out *outs, size_t n, sl_fail_fn *fail,
    void *ctx)
{
	char buf[GNU_CHUNK];
	size_t i, live = 0;
	ssize_t got = 0;

	for (i = 0; i < n; i++)
		live += outs[i].fd != -1;
	while (live > 0 && (got = read_some(in, buf, sizeof buf)) > 0) {
		for (i = 0; i < n; i++) {
			int err;

			if (outs[i].fd == -1 ||
			    write_all(outs[i].fd, buf, got) == 0)
				continue;
			err = errno;
			outs[i].fd = -1;
			live--;
			if (fail(ctx, i, err) == -1)
				return 0;
		}
	}
	return got < 0 ? -1 : 0;
}
