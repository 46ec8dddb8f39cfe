/*
 * The transfer layer: for a pair of descriptors, pick the system call
 * that moves bytes between them, and own the fallback policy.
 *
 *	copy_file_range(2)	between two regular files
 *	splice(2)		between a pipe and a pipe or a regular file
 *	splice(2) twice		through a private pipe, between other pairs
 *	vmsplice(2)		from immutable memory into a pipe
 *	read(2)/write(2)	everything else, and the fallback
 *
 * Every call runs in io_move (io.c), which owns EINTR, EAGAIN, short
 * counts and the meaning of 0.  The policy that is this layer's:
 * - a refusal (zerocopy_refused, refusal.c: the call does not serve
 *   this pair here), at the first call or any later one, falls back to
 *   read/write for good, from the byte where the refused call stopped:
 *   a call that fails moves nothing, and what zero-copy moved before
 *   is counted, nothing lost or sent twice;
 * - any other error is a real error of one side, reported at once and
 *   never retried another way.
 * Every failure names its side (SPATE_INPUT or SPATE_OUTPUT): found out only
 * when it happens, at no cost to the transfers that work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spate.h"
#include "engine.h"

/*
 * Make the read/write buffer of L: BUF_SIZE bytes, or, when that much
 * memory cannot be had, the most a halving down to a page finds (a
 * smaller buffer only costs more calls).  Return 0, or -1 with errno set
 * (ENOMEM) and L->side SPATE_MEMORY.
 */
static int
need_buf(struct link *l)
{
	size_t n;

	for (n = BUF_SIZE; l->buf == NULL; n /= 2) {
		if (n < BUF_MIN) {
			l->side = SPATE_MEMORY;
			errno = ENOMEM;
			return -1;
		}
		if ((l->buf = malloc(n)) != NULL)
			l->bufsize = n;
	}
	return 0;
}

/*
 * Return 1 if a splice(2) may hold the lock of a pipe while it waits on
 * end E and still free it: E never waits on a peer that may be the
 * pipe's other user.  A pipe does not (splice between two pipes waits
 * with neither lock held), nor does a regular file (on a local file
 * system).  A socket waits for its reader to drain it or its writer to
 * send, a device (a terminal) for whoever is on its other side: if that
 * peer is the process that also feeds or drains the pipe (one event
 * loop writing cat's stdin and reading its socket), it sleeps on the
 * pipe's lock, even non-blocking, and neither side moves again.
 */
static int
never_waits_on_peer(const struct end *e)
{
	return !traits(e)->waits_on_peer;
}

/*
 * Pick the zero-copy path for IN -> OUT (IN NULL: from memory):
 *
 *	from \ to	pipe		file		socket, device
 *	pipe		splice		splice		via a private pipe
 *	file		splice		copy_file_range	via a private pipe
 *	socket, device	via		via		via
 *
 * A pipe the user gave is spliced straight only to or from an end that
 * never waits on a peer (never_waits_on_peer); otherwise the splice that
 * waits holds a pipe of ours, whose lock only this thread takes.
 */
static enum path
choose_path(const struct end *in, const struct end *out)
{
	/* splice and copy_file_range refuse O_APPEND outputs (EINVAL,
	 * EBADF), a pipe's read end takes no data, and an output that keeps
	 * writes apart must get the records the caller writes (splice and
	 * vmsplice into a packet-mode pipe make no packets at all).  A
	 * record socket's records are read whole: splice cuts each to what
	 * the pipe has room for, and the kernel drops the rest. */
	if (!zerocopy_allowed() || out->append || !out->write_end ||
	    end_keeps_writes(out) || (in != NULL && in->records))
		return PATH_RW;
	if (in == NULL)
		return traits(out)->pipe ? PATH_VMSPLICE : PATH_RW;
	if (traits(in)->file && traits(out)->file)
		return PATH_COPY_RANGE;
	if ((traits(in)->pipe || traits(out)->pipe) &&
	    never_waits_on_peer(in) && never_waits_on_peer(out))
		return PATH_SPLICE;
	return PATH_VIA_PIPE;
}

/* The path a link starts on: from memory, or between two files, the
 * fast path at once (copy_file_range shares a file's extents where
 * the file system can, and only a copy that starts with it is shared
 * whole); from any other descriptor read/write, until a read shows a
 * stream worth zero-copy (see ZC_AFTER).  Under a filter the fast path
 * at once, as GNU 9.11's cat, which makes no write(2) before it. */
static enum path
first_path(const struct link *l)
{
	return l->in == NULL || l->fast == PATH_COPY_RANGE || l->gnu ?
	    l->fast : PATH_RW;
}

/* Start a link from IN to OUT, or from memory to OUT if IN is NULL. */
void
link_init(struct link *l, struct end *in, struct end *out)
{
	memset(l, 0, sizeof *l);
	l->in = in;
	l->out = out;
	l->gnu = gnu_calls();
	l->fast = choose_path(in, out);
	l->path = first_path(l);
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
	l->fast = choose_path(in, l->out);
	l->path = first_path(l);
	l->size = traits(in)->file ? size : 0;
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
leave_zerocopy(struct link *l)
{
	l->path = l->fast = PATH_RW;
}

/* Record that L failed on SIDE, with errno already set: return -1. */
static ssize_t
fail_side(struct link *l, int side)
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
blame_side(struct link *l, int err)
{
	char c;
	off_t at;

	if (err == EPIPE)
		return SPATE_OUTPUT;
	/* GNU's cat names the input for it (a filter's, most likely). */
	if (err == EACCES && l->path == PATH_COPY_RANGE)
		return SPATE_INPUT;
	if (traits(l->in)->pipe)
		return SPATE_OUTPUT;
	if (traits(l->out)->pipe)
		return SPATE_INPUT;
	if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EROFS ||
	    err == EPERM || err == ETXTBSY)
		return SPATE_OUTPUT;
	if ((at = lseek(l->in->fd, 0, SEEK_CUR)) != -1 &&
	    pread(l->in->fd, &c, 1, at) == -1)
		return SPATE_INPUT;	/* errno: what reading says */
	errno = err;
	return SPATE_OUTPUT;
}

/*
 * Read from input IN into *BUF, of *SIZE bytes (malloc(3)'s, *SIZE > 0):
 * up to WANT bytes (at most *SIZE) of a stream, or the next record whole
 * from a socket that keeps records apart (IN->records), whatever WANT
 * says: a read shorter than a record loses the rest of it.  recv(2) with
 * MSG_PEEK|MSG_TRUNC tells its length first, and *BUF grows (realloc(3))
 * to hold it; if memory does not allow, the record is cut to *SIZE
 * bytes, as read(2) cuts it.  Return the count, 0 at the end of input
 * (a record socket's end, or an empty record, which read(2) takes for
 * it), or -1 with errno set: the input's error (io_move).
 */
ssize_t
read_input(const struct end *in, char **buf, size_t *size, size_t want)
{
	char one;
	struct io_call peek = { .op = IO_PEEK, .in = in->fd, .out = -1,
	    .buf = &one, .len = 1 };
	ssize_t n;
	char *b;

	if (!in->records)
		return read_some(in->fd, *buf, want);
	/* Where a protocol does not serve MSG_TRUNC, the peek says 1 (what
	 * fits in ONE), and the record is read as a stream's bytes. */
	if ((n = io_move(&peek)) == -1)
		return -1;
	if ((size_t)n > *size && (b = realloc(*buf, n)) != NULL) {
		*buf = b;
		*size = n;
	}
	/* The read takes the record, or the end, that the peek saw: an
	 * empty record is gone once read, as after GNU's read. */
	return read_some(in->fd, *buf, *size);
}

/*
 * One read and the write(2)s of what it got, LEN bytes at most each.
 * Return as link_step.  A read of a regular file comes short only at its
 * end: once it brought what fstat(2) said the file holds, a short read
 * is the end, and no read(2) more is made to hear it say 0 (a small file
 * costs five calls, not six).  Short of that size (/sys files hold less
 * than they say), or with no size (/proc), the 0 is read.  A record is
 * read whole (read_input), however long, and written in pieces of LEN.
 */
static ssize_t
step_rw(struct link *l, size_t len)
{
	char small[BUF_MIN], *buf = small;
	size_t want = sizeof small, off, k;
	ssize_t n;

	if (need_buf(l) == 0) {
		want = len < l->bufsize ? len : l->bufsize;
		n = read_input(l->in, &l->buf, &l->bufsize, want);
		buf = l->buf;
	} else {
		/* Without even a page of heap, a page of the stack, which
		 * is there already: GNU copies under a limit that low (and
		 * a record is cut to it, as GNU's read would cut it). */
		if (len < want)
			want = len;
		n = read_some(l->in->fd, buf, want);
	}
	if (n < 0)
		return fail_side(l, SPATE_INPUT);
	if (n == 0)
		return 0;
	l->got += n;
	l->ended = (size_t)n < want && l->size > 0 && l->got >= l->size;
	for (off = 0; off < (size_t)n; off += k) {
		k = (size_t)n - off < len ? (size_t)n - off : len;
		if (write_all(l->out->fd, buf + off, k) == -1)
			return fail_side(l, SPATE_OUTPUT);
	}
	return n;
}

/*
 * The zero-copy call of L from IN to OUT, LEN bytes at most: splice(2),
 * or copy_file_range(2) between two files.
 */
static struct io_call
zerocopy_call(const struct link *l, int in, int out, size_t len)
{
	struct io_call c = {
		.op = l->path == PATH_COPY_RANGE ? IO_COPY_RANGE : IO_SPLICE,
		.in = in, .out = out, .len = len
	};

	return c;
}

/*
 * Account N bytes that zero-copy moved.  Only the output pipe may grow:
 * the input pipe is its writer's, sized as it chose (see pipe.c).
 */
static void
count_zerocopy(struct link *l, size_t n)
{
	pipe_carried(l->out, n);
}

/*
 * splice(2) or copy_file_range(2) straight from IN to OUT.  A copy
 * between two files comes short, as step_rw's read does, only at the
 * input's end: once it brought what fstat(2) said, that is the end,
 * with no call more to hear it say 0.
 */
static ssize_t
step_direct(struct link *l, size_t len)
{
	struct io_call c = zerocopy_call(l, l->in->fd, l->out->fd, len);
	ssize_t n = io_move(&c);

	if (n > 0) {
		count_zerocopy(l, n);
		l->got += n;
		l->ended = l->path == PATH_COPY_RANGE && (size_t)n < len &&
		    l->size > 0 && l->got >= l->size;
		return n;
	}
	if (n == 0) {
		/*
		 * copy_file_range(2) has said 0 before the end of files
		 * that report no size (/proc, /sys): let read(2) confirm.
		 */
		if (l->path != PATH_COPY_RANGE)
			return 0;
		leave_zerocopy(l);
		return step_rw(l, len);
	}
	if (zerocopy_refused(&c)) {
		leave_zerocopy(l);
		return step_rw(l, len);
	}
	/* A failed wait knows its side; the call's own error, blame_side. */
	return fail_side(l, c.waiting ? c.side : blame_side(l, errno));
}

/*
 * Empty the private pipe of what the output will never get, so that the
 * next input does not start with it.  Keeps errno.
 */
static void
drop_via_bytes(struct link *l)
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
write_via_bytes(struct link *l)
{
	ssize_t n = l->via_held;

	if (need_buf(l) == -1) {
		drop_via_bytes(l);
		return -1;
	}
	while (l->via_held > 0) {
		size_t k = l->via_held < l->bufsize ? l->via_held : l->bufsize;
		int r = read_exact(l->via[0], l->buf, k);

		if (r == 0)
			l->via_held -= k;
		if (r == -1 || write_all(l->out->fd, l->buf, k) == -1) {
			drop_via_bytes(l);
			return fail_side(l, SPATE_OUTPUT);
		}
	}
	return n;
}

/*
 * Before L's next splice into its private pipe, empty between steps: if
 * the input has had nothing to read for IDLE_MS, give the pipe back and
 * wait for input holding none (step_via makes a new one, at the size
 * pipes start with).  A regular file never keeps us waiting.  Under a
 * filter the pipe is kept, as GNU 9.11's cat keeps it: no poll(2).
 */
static void
idle_via(struct link *l)
{
	int fd = l->in->fd;

	if (l->via[0] == -1 || traits(l->in)->file || l->gnu ||
	    wait_fd(fd, POLLIN, 0) == 0 || errno != ETIMEDOUT ||
	    wait_fd(fd, POLLIN, IDLE_MS) == 0 || errno != ETIMEDOUT)
		return;
	close_pair(l->via);
	wait_fd(fd, POLLIN, -1);
}

/*
 * Through a private pipe (see choose_path): splice IN into it, then it into
 * OUT.  Which call fails says which side failed.  A refusal by OUT
 * before any byte reached it leaves the chunk in the pipe: it goes out
 * by read/write, and so does everything after.
 */
static ssize_t
step_via(struct link *l, size_t len)
{
	struct io_call c;
	ssize_t n;

	if (l->via_held == 0)
		idle_via(l);
	if (l->via[0] == -1) {
		if (pipe_private(l->via) == -1) {
			leave_zerocopy(l);	/* no descriptors to spare */
			return step_rw(l, len);
		}
		end_init(&l->via_end, l->via[1]);
	}
	if (l->via_held == 0) {
		c = zerocopy_call(l, l->in->fd, l->via[1], len);
		if ((n = io_move(&c)) == 0)
			return 0;
		if (n == -1) {
			if (zerocopy_refused(&c)) {
				leave_zerocopy(l);
				return step_rw(l, len);
			}
			/* The call's own error is the input's: the private
			 * pipe is ours. */
			return fail_side(l, c.waiting ? c.side : SPATE_INPUT);
		}
		l->via_held = n;
	}
	n = l->via_held;
	c = zerocopy_call(l, l->via[0], l->out->fd, l->via_held);
	if (io_move_all(&c) == -1) {
		size_t moved = l->via_held - c.len;

		l->via_held = c.len;
		count_zerocopy(l, moved);
		pipe_carried(&l->via_end, moved);
		if (zerocopy_refused(&c)) {
			leave_zerocopy(l);
			return write_via_bytes(l);
		}
		/* The call's own error is the output's: the private pipe,
		 * which we hold, cannot end (io_move_all's EIO). */
		drop_via_bytes(l);
		return fail_side(l, c.waiting ? c.side : SPATE_OUTPUT);
	}
	count_zerocopy(l, n);
	pipe_carried(&l->via_end, n);
	l->via_held = 0;
	return n;
}

/*
 * Move up to LEN bytes from L's input to its output, by the path in use,
 * or a record whole (in writes of LEN bytes at most).  Return the count
 * (> 0), 0 at end of input, or -1 with errno set and L->side saying
 * which side failed.
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
 * BUF's pages, hence the rule), write(2) elsewhere, and once vmsplice is
 * refused.  Return the count moved (> 0, maybe short), or -1 with errno
 * set and L->side SPATE_OUTPUT.
 */
ssize_t
link_put(struct link *l, const void *buf, size_t len)
{
	for (;;) {
		struct io_call c = {
			.op = l->path == PATH_VMSPLICE ? IO_VMSPLICE : IO_WRITE,
			.in = -1, .out = l->out->fd,
			.buf = (void *)buf, .len = len
		};
		ssize_t n = io_move(&c);

		if (n >= 0) {
			if (l->path == PATH_VMSPLICE)
				count_zerocopy(l, n);
			return n;
		}
		if (l->path != PATH_VMSPLICE ||
		    !zerocopy_refused(&c))
			return fail_side(l, SPATE_OUTPUT);
		leave_zerocopy(l);
	}
}

/*
 * Move up to LEN bytes from pipe IN to OUT with splice(2), or duplicate
 * them with tee(2) if DUP, by io_move, which C describes; a side not
 * ready is waited for by W (struct io_wait), or with W NULL by io_move
 * itself.  For the fan-out, which keeps its own policy per output and
 * knows which side each of its calls can fail on.  Return the count, 0
 * at end of input, or -1 with errno set and C saying how it failed
 * (C->waiting, C->side and C->gave_up, as io_move leaves them):
 * zerocopy_refused(C, ...) tells a refusal.
 */
ssize_t
xfer_pipe(struct io_call *c, int in, int out, size_t len, int dup,
    const struct io_wait *w)
{
	*c = (struct io_call){ .op = dup ? IO_TEE : IO_SPLICE,
	    .in = in, .out = out, .len = len, .wait = w };
	return io_move(c);
}
