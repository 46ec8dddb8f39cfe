/*
 * The transfer layer: for a pair of descriptors, pick the system call
 * that moves bytes between them, and own the retry and fallback policy.
 *
 *	copy_file_range(2)	between two regular files
 *	splice(2)		from a pipe, or from a regular file into a pipe
 *	splice(2) twice		through a private pipe, between other pairs
 *	vmsplice(2)		from immutable memory into a pipe
 *	read(2)/write(2)	everything else, and the fallback
 *
 * The policy, in one place:
 * - EINTR is retried, EAGAIN waited for in poll(2) on the side that is
 *   not ready, short counts are the caller's to loop on;
 * - a refusal (is_refusal: the call does not serve this pair) before the
 *   zero-copy path moved a byte falls back to read/write, nothing lost;
 * - any other error, and any failure after bytes moved, is a real error
 *   of one side, reported at once and never retried another way.
 * Every failure names its side (SL_INPUT or SL_OUTPUT): found out only
 * when it happens, at no cost to the transfers that work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sluice.h"
#include "sys.h"
#include "engine.h"

/*
 * Make the read/write buffer of L: BUF_SIZE bytes, or, when that much
 * memory cannot be had, the most a halving down to a page finds (a
 * smaller buffer only costs more calls).  Return 0, or -1 with errno set
 * (ENOMEM) and L->side SL_MEMORY.
 */
static int
need_buf(struct link *l)
{
	size_t n;

	for (n = BUF_SIZE; l->buf == NULL; n /= 2) {
		if (n < BUF_MIN) {
			l->side = SL_MEMORY;
			errno = ENOMEM;
			return -1;
		}
		if ((l->buf = malloc(n)) != NULL)
			l->bufsize = n;
	}
	return 0;
}

/* Pick the zero-copy path for IN -> OUT (IN NULL: from memory). */
static enum path
choose(const struct end *in, const struct end *out)
{
	/* splice and copy_file_range refuse O_APPEND outputs (EINVAL,
	 * EBADF), a pipe's read end takes no data, and an output that keeps
	 * writes apart must get the records the caller writes (splice and
	 * vmsplice into a packet-mode pipe make no packets at all). */
	if (!zerocopy_allowed() || out->append || !out->write_end ||
	    end_keeps_writes(out))
		return PATH_RW;
	if (in == NULL)
		return out->kind == K_PIPE ? PATH_VMSPLICE : PATH_RW;
	if (in->kind == K_FILE && out->kind == K_FILE)
		return PATH_COPY_RANGE;
	/* splice(2) into a pipe holds that pipe's lock while it waits for
	 * the input: from a socket or a device, the output's reader would
	 * wait on the lock, even non-blocking, until more input comes, and a
	 * reader that is also the writer never sends it.  Only a pipe or a
	 * regular file goes straight in; the rest waits in a pipe of ours. */
	if (in->kind == K_PIPE || (out->kind == K_PIPE && in->kind == K_FILE))
		return PATH_SPLICE;
	return PATH_VIA_PIPE;
}

/*
 * Start a link from IN to OUT, or from memory to OUT if IN is NULL.
 * From memory it takes the fast path at once; from a descriptor it
 * starts with read/write (see ZC_AFTER).
 */
void
link_init(struct link *l, struct end *in, struct end *out)
{
	memset(l, 0, sizeof *l);
	l->in = in;
	l->out = out;
	l->fast = choose(in, out);
	l->path = in == NULL ? l->fast : PATH_RW;
	l->via[0] = l->via[1] = -1;
}

/*
 * Point L at a new input IN, same output: the buffer and the private
 * pipe (empty between steps) are kept; the path is chosen anew.  SIZE
 * is what fstat(2) said IN holds if it is a regular file, or 0.
 */
void
link_retarget(struct link *l, struct end *in, off_t size)
{
	l->in = in;
	l->fast = choose(in, l->out);
	l->path = PATH_RW;
	l->fast_moved = 0;
	l->size = in->kind == K_FILE ? size : 0;
	l->got = 0;
	l->ended = 0;
}

/* Free what L holds. */
void
link_free(struct link *l)
{
	close_pair(l->via);
	free(l->buf);
	l->buf = NULL;
	l->bufsize = 0;
}

/* Leave zero-copy for good: it refused this pair. */
static void
refused(struct link *l)
{
	l->path = l->fast = PATH_RW;
}

/*
 * Fail on SIDE with the errno already set: return -1.
 */
static ssize_t
fail(struct link *l, int side)
{
	l->side = side;
	return -1;
}

/*
 * Which side a failed splice(2) or copy_file_range(2) of L belongs to.
 * A pipe end fails only as a write end whose reader left (EPIPE): the
 * other end is to blame.  Between two files, an error only writing can
 * give is the output's; otherwise a one-byte pread(2) of the input,
 * which moves no offset, tells whether reading is what fails.
 */
static int
blame(struct link *l, int err)
{
	char c;
	off_t at;

	if (err == EPIPE)
		return SL_OUTPUT;
	if (l->in->kind == K_PIPE)
		return SL_OUTPUT;
	if (l->out->kind == K_PIPE)
		return SL_INPUT;
	if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EROFS ||
	    err == EPERM || err == ETXTBSY)
		return SL_OUTPUT;
	if ((at = lseek(l->in->fd, 0, SEEK_CUR)) != -1 &&
	    pread(l->in->fd, &c, 1, at) == -1)
		return SL_INPUT;	/* errno: what reading says */
	errno = err;
	return SL_OUTPUT;
}

/*
 * One read(2) and the write(2)s of what it got.  Return as link_step.
 * A read of a regular file comes short only at its end: once it brought
 * what fstat(2) said the file holds, a short read is the end, and no
 * read(2) more is made to hear it say 0 (a small file costs five calls,
 * not six).  Short of that size (/sys files hold less than they say), or
 * with no size (/proc), the 0 is read.
 */
static ssize_t
step_rw(struct link *l, size_t len)
{
	char small[BUF_MIN], *buf = small;
	size_t want = sizeof small;
	ssize_t n;

	/* Without even a page of heap, a page of the stack, which is
	 * there already: GNU copies under a limit that low. */
	if (need_buf(l) == 0) {
		buf = l->buf;
		want = l->bufsize;
	}
	if (len < want)
		want = len;
	if ((n = read_some(l->in->fd, buf, want)) < 0)
		return fail(l, SL_INPUT);
	if (n == 0)
		return 0;
	l->got += n;
	l->ended = (size_t)n < want && l->size > 0 && l->got >= l->size;
	if (write_all(l->out->fd, buf, n) == -1)
		return fail(l, SL_OUTPUT);
	return n;
}

/*
 * Run the zero-copy call of L (splice(2) or copy_file_range(2)) from IN
 * to OUT until it moves something, retrying EINTR and waiting out
 * EAGAIN.  Return its count, or -1 with errno set.
 */
static ssize_t
call(struct link *l, int in, int out, size_t len)
{
	for (;;) {
		ssize_t n = l->path == PATH_COPY_RANGE ?
		    sys_copy_range(in, out, len) : sys_splice(in, out, len);
		int side;

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -1;
		if (wait_either(in, out, &side) == -1) {
			l->side = side;
			return -2;
		}
	}
}

/*
 * Account N bytes that zero-copy moved.  Only the output pipe may grow:
 * the input pipe is its writer's, sized as it chose (see pipe.c).
 */
static void
carried(struct link *l, size_t n)
{
	l->fast_moved += n;
	pipe_carried(l->out, n);
}

/*
 * Return 1 if ERR, from L's zero-copy call before it moved a byte, says
 * the call cannot serve this pair (is_refusal).  copy_file_range(2) says
 * so with EPERM too (a seccomp filter that forbids it, as container
 * runtimes had), ETXTBSY and EBADF (outputs it will not write into), as
 * GNU 9.1 takes them: write(2) then tells whether the output really
 * fails, in the words the read/write path uses.
 */
static int
refuses(const struct link *l, int err)
{
	return is_refusal(err) || (l->path == PATH_COPY_RANGE &&
	    (err == EPERM || err == ETXTBSY || err == EBADF));
}

/* splice(2) or copy_file_range(2) straight from IN to OUT. */
static ssize_t
step_direct(struct link *l, size_t len)
{
	ssize_t n = call(l, l->in->fd, l->out->fd, len);

	if (n > 0) {
		carried(l, n);
		return n;
	}
	if (n == 0) {
		/*
		 * copy_file_range(2) has said 0 before the end of files
		 * that report no size (/proc, /sys): let read(2) confirm.
		 */
		if (l->path != PATH_COPY_RANGE)
			return 0;
		refused(l);
		return step_rw(l, len);
	}
	if (n == -2)
		return -1;
	if (l->fast_moved == 0 && refuses(l, errno)) {
		refused(l);
		return step_rw(l, len);
	}
	return fail(l, blame(l, errno));
}

/*
 * Empty the private pipe of what the output will never get, so that the
 * next input does not start with it.  Keeps errno.
 */
static void
via_drop(struct link *l)
{
	int e = errno;

	if (need_buf(l) == 0)
		while (l->via_held > 0) {
			size_t k = l->via_held < l->bufsize ? l->via_held :
			    l->bufsize;

			if (read_exact(l->via[0], l->buf, k) == -1)
				break;
			l->via_held -= k;
		}
	l->via_held = 0;
	errno = e;
}

/*
 * The output refused splice(2) before any byte reached it: what the
 * private pipe holds goes out by write(2).  Return its length, or -1
 * with errno set and the output to blame.
 */
static ssize_t
via_to_write(struct link *l)
{
	ssize_t n = l->via_held;

	if (need_buf(l) == -1) {
		via_drop(l);
		return -1;
	}
	while (l->via_held > 0) {
		size_t k = l->via_held < l->bufsize ? l->via_held : l->bufsize;
		int r = read_exact(l->via[0], l->buf, k);

		if (r == 0)
			l->via_held -= k;
		if (r == -1 || write_all(l->out->fd, l->buf, k) == -1) {
			via_drop(l);
			return fail(l, SL_OUTPUT);
		}
	}
	return n;
}

/*
 * Through a private pipe (see choose): splice IN into it, then it into
 * OUT.  Which call fails says which side failed.  A refusal by OUT
 * before any byte reached it leaves the chunk in the pipe: it goes out
 * by read/write, and so does everything after.
 */
static ssize_t
step_via(struct link *l, size_t len)
{
	ssize_t n;

	if (l->via[0] == -1) {
		if (pipe_private(l->via) == -1) {
			refused(l);	/* no descriptors to spare */
			return step_rw(l, len);
		}
		end_init(&l->via_end, l->via[1]);
	}
	if (l->via_held == 0) {
		n = call(l, l->in->fd, l->via[1], len);
		if (n == -2)
			return -1;
		if (n == -1 && l->fast_moved == 0 && is_refusal(errno)) {
			refused(l);
			return step_rw(l, len);
		}
		if (n <= 0)
			return n == 0 ? 0 : fail(l, SL_INPUT);
		l->via_held = n;
	}
	n = l->via_held;
	while (l->via_held > 0) {
		ssize_t m = call(l, l->via[0], l->out->fd, l->via_held);

		if (m == -2) {
			via_drop(l);
			return -1;
		}
		if (m == -1 && l->fast_moved == 0 && is_refusal(errno)) {
			refused(l);
			return via_to_write(l);
		}
		if (m <= 0) {
			if (m == 0)
				errno = EIO;	/* a pipe we hold cannot end */
			via_drop(l);
			return fail(l, SL_OUTPUT);
		}
		l->via_held -= m;
		carried(l, m);
		pipe_carried(&l->via_end, m);
	}
	l->via_held = 0;
	return n;
}

/*
 * Move up to LEN bytes from L's input to its output, by the path in use.
 * Return the count (> 0), 0 at end of input, or -1 with errno set and
 * L->side saying which side failed.
 */
ssize_t
link_step(struct link *l, size_t len)
{
	ssize_t n;

	if (l->ended)
		return 0;
	switch (l->path) {
	case PATH_RW:
		n = step_rw(l, len);
		/* A full read shows a stream worth zero-copy. */
		if (n >= (ssize_t)ZC_AFTER)
			l->path = l->fast;
		return n;
	case PATH_VIA_PIPE:
		return step_via(l, len);
	default:
		return step_direct(l, len);
	}
}

/*
 * Write LEN bytes of BUF, which never changes while the program runs, to
 * L's output: vmsplice(2) into a pipe (the pipe then holds references to
 * BUF's pages, hence the rule), write(2) elsewhere.  Return the count
 * moved (> 0, maybe short), or -1 with errno set.
 */
ssize_t
link_put(struct link *l, const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	for (;;) {
		ssize_t n = l->path == PATH_VMSPLICE ?
		    sys_vmsplice(l->out->fd, &iov, 1) :
		    write(l->out->fd, buf, len);

		if (n >= 0) {
			if (l->path == PATH_VMSPLICE)
				carried(l, n);
			return n;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			if (wait_fd(l->out->fd, POLLOUT) == -1)
				return -1;
		} else if (l->path == PATH_VMSPLICE && l->fast_moved == 0 &&
		    is_refusal(errno)) {
			refused(l);
		} else
			return -1;
	}
}

/*
 * Move up to LEN bytes from pipe IN to OUT with splice(2), or duplicate
 * them with tee(2) if DUP, retrying EINTR and waiting out EAGAIN.  For
 * the fan-out, which keeps its own policy per output and knows which
 * side each call can fail on.  Return the count, 0 at end of input, or
 * -1 with errno set.
 */
ssize_t
xfer_pipe(int in, int out, size_t len, int dup)
{
	for (;;) {
		ssize_t n = dup ? sys_tee(in, out, len) :
		    sys_splice(in, out, len);
		int side;

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || wait_either(in, out, &side) == -1)
			return -1;
	}
}
