/*
 * The fan-out without its state: GNU tee's own loop, for when the
 * memory for the engine's state for the outputs cannot be had, and
 * under a seccomp filter (spate_fanout_with).  GNU's tee, whose buffer is
 * on its stack, copies on short of memory; so does spate's, through
 * this loop, rather than fail before it read a byte.  Under a filter
 * it makes the calls GNU 9.11's tee makes and no other: read(2),
 * write(2), and for SPATE_FANOUT_PIPE_CHECK fstat(2) and poll(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sys/stat.h>

#include "fanout.h"

/* Return the first output at or after I still served, or N. */
static size_t
first_live(const struct spate_out *outs, size_t n, size_t i)
{
	while (i < n && outs[i].fd == -1)
		i++;
	return i;
}

/* Return 1 if FD is a pipe or FIFO: the outputs GNU's tee -p watches. */
static int
is_pipe(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/*
 * Wait, as GNU 9.11's tee -p does (its iopoll), until IN has something
 * to read or its first output still served, the pipe OUTS[FIRST], has
 * lost its reader.  Return 1 for the latter, else 0 (a failed poll
 * leaves it to the read).
 */
static int
first_broken(int in, const struct spate_out *outs, size_t first)
{
	struct pollfd p[2] = {
		{ .fd = in, .events = POLLIN },
		{ .fd = outs[first].fd, .events = 0 }
	};
	int r;

	while ((r = poll(p, 2, -1)) == -1 && errno == EINTR)
		continue;
	return r > 0 && p[0].revents == 0 &&
	    (p[1].revents & (POLLERR | POLLHUP)) != 0;
}

/*
 * Copy IN to the N outputs OUTS as GNU's tee does: a read(2) of
 * GNU_CHUNK bytes at most into the stack, then a write(2) of it to each
 * output in turn, told to FAIL at once; with SPATE_FANOUT_PIPE_CHECK in
 * O's flags, the wait for input watches the first output as GNU's
 * does.  O's progress is told after each chunk.  Nothing is held and
 * nothing is taken but the stack.  Return as spate_fanout_flags.
 */
int
fan_plain(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx)
{
	char buf[GNU_CHUNK];
	size_t i, live = 0, first, watched = n;
	ssize_t got = 0;
	long long total = 0;
	int pipe = 0;

	for (i = 0; i < n; i++)
		live += outs[i].fd != -1;
	while (live > 0) {
		first = first_live(outs, n, 0);
		if ((o->flags & SPATE_FANOUT_PIPE_CHECK) && first != watched)
			pipe = is_pipe(outs[watched = first].fd);
		if (pipe && first_broken(in, outs, first)) {
			outs[first].fd = -1;
			live--;
			if (fail(ctx, first, EPIPE) == -1)
				return 0;
			continue;
		}
		if ((got = read_some(in, buf, sizeof buf)) <= 0)
			break;
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
		total += got;
		if (o->progress != NULL)
			o->progress(ctx, total);
	}
	return got < 0 ? -1 : 0;
}

/*
 * spate_fanout_with under a seccomp filter (gnu_calls): GNU's loop, which
 * makes only GNU 9.11's tee's calls, on the caller's thread.  A lag
 * needs a thread an output: with two outputs or more it is refused
 * (EPERM, SIDE SPATE_PRIVATE: no descriptor of the caller's failed)
 * before a byte is read, rather than made without one.
 */
int
fan_gnu(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *o, spate_fail_fn *fail, void *ctx)
{
	size_t i, live = 0;
	int r;

	for (i = 0; i < n; i++)
		live += outs[i].fd != -1;
	if ((o->lag != 0 || o->slow != SPATE_SLOW_WAIT) && live > 1) {
		if (o->side != NULL)
			*o->side = SPATE_PRIVATE;
		errno = EPERM;
		return -1;
	}
	if ((r = fan_plain(in, outs, n, o, fail, ctx)) == -1 &&
	    o->side != NULL)
		*o->side = SPATE_INPUT;
	return r;
}
