/*
 * Private to libspate: the pieces the engine's operations (repeat,
 * fanout, concat) are built from; doc/design.md says how they fit.
 * Nothing here is exported: both libraries export only the spate_* names
 * that lib/spate.map lists.
 */
#ifndef SPATE_ENGINE_H
#define SPATE_ENGINE_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "spate.h"
struct stat;

/*
 * What a descriptor is, as far as the choice of system call goes.  All
 * that follows from it is a row of fd.c's table (struct traits): a new
 * kind is a new row, and the engine asks the row, never the kind.
 */
enum kind {
	K_PIPE,		/* a pipe or FIFO */
	K_FILE,		/* a regular file */
	K_SOCKET,
	K_OTHER,	/* a device, a directory, or fstat failed */
	K_KINDS
};

/* How much an output buffers, as the fan-out sizes chunks for it. */
enum room {
	ROOM_NONE,	/* no bound: it takes what it is given */
	ROOM_PIPE,	/* its pipe's capacity, asked anew (pipe_size) */
	ROOM_SNDBUF	/* a part of its send buffer (size_room) */
};

/* What follows from a descriptor's kind: fd.c's table, its one home. */
struct traits {
	unsigned pipe : 1;	/* tee(2) and vmsplice(2) fill it, fcntl(2)
				   sizes it, splice(2) with SPLICE_F_NONBLOCK
				   tells it full or empty, and poll(2) that
				   its reader left */
	unsigned file : 1;	/* a regular file: it has a size, a read
				   never waits, copy_file_range(2) copies
				   between two, and it takes its bytes
				   whoever reads it */
	unsigned waits_on_peer : 1;	/* a call on it may wait for whoever
				   is on its other side (xfer.c,
				   choose_path) */
	unsigned may_stall : 1;	/* as an output, its reader may stop
				   taking: the fan-out watches it */
	unsigned needs_copy : 1;	/* as a fan-out output, a copy of
				   every byte: tee(2) cannot fill it */
	unsigned lane : 1;	/* ... which a lane's thread may make */
	unsigned names_stream : 1;	/* its device and inode name one
				   stream: two outputs with the same show
				   each other's chunks */
	unsigned may_read_records : 1;	/* as an input, a read of it may
				   take one record, and nothing says so: a
				   pipe in packet mode (O_DIRECT on its
				   write end only), a device (/dev/kmsg, a
				   tun) */
	enum room room;
};

/* One descriptor as the transfer layer sees it. */
struct end {
	int fd;
	enum kind kind;
	int append;		/* O_APPEND: only write(2) lands at the end */
	int write_end;		/* open for writing (a pipe's write end) */
	int records;		/* a socket that keeps each write apart */
	int packets;		/* a pipe in packet mode (O_DIRECT): each
				   write(2) its own packet */
	dev_t dev;		/* which file it is, to tell two ends apart */
	ino_t ino;
	long size;		/* a pipe's capacity in bytes, 0 until asked */
	off_t carried;		/* zero-copy bytes through it, for growth */
	long long since;	/* when CARRIED started counting, in ms */
	int grown;		/* growth was tried: never again */
};

/* How a link moves bytes; see xfer.c. */
enum path {
	PATH_RW,		/* read(2) into a buffer, write(2) out */
	PATH_SPLICE,		/* splice(2): one end is a pipe */
	PATH_VIA_PIPE,		/* splice(2) in and out of a private pipe */
	PATH_COPY_RANGE,	/* copy_file_range(2): two regular files */
	PATH_VMSPLICE		/* vmsplice(2): immutable memory to a pipe */
};

/*
 * A one-way transfer from IN to OUT and the state of its fallbacks.
 * A link starts on read/write and moves to its zero-copy path once one
 * read has shown a stream worth it (see link_step).
 */
struct link {
	struct end *in, *out;
	enum path path;		/* the path in use */
	enum path fast;		/* the zero-copy path to take, or PATH_RW */
	int via[2];		/* the private pipe of PATH_VIA_PIPE */
	struct end via_end;	/* its write end, for growth */
	size_t via_held;	/* bytes waiting in VIA */
	off_t size;		/* what fstat(2) said a regular input holds,
				   or 0: see step_rw */
	off_t got;		/* bytes read(2) from this input */
	int ended;		/* its end was seen without a read of 0 */
	char *buf;		/* the read/write buffer, BUF_SIZE bytes */
	size_t bufsize;		/* ... or fewer, if memory was short */
	int side;		/* after a failure: SPATE_INPUT or SPATE_OUTPUT */
	int gnu;		/* GNU 9.11's calls alone (gnu_calls) */
};

/* The read/write buffer: big enough to amortise system calls, small
 * enough to stay in the L2 cache. */
#define BUF_SIZE	(128u << 10)

/* The least a buffer is halved to when memory is short: a page. */
#define BUF_MIN		4096u

/*
 * The most one link step moves.  Pipe sizes bound splice(2) well below
 * it; for copy_file_range(2), which copies in the kernel, it keeps each
 * call short: a signal is seen, and the input's shared offset never runs
 * far ahead of the output.
 */
#define STEP_MAX	(1u << 20)

/*
 * How long an input may have nothing to read before the engine gives
 * back the private pipes it grew for the stream (a link's, the
 * fan-out's): a burst's pipes are not held through the quiet after it,
 * against its user's pipe budget (see pipe.c).
 */
#define IDLE_MS		1000

/*
 * A read(2) of at least this much shows a stream worth the zero-copy
 * set-up.  It is more than a page, so a packet-mode pipe, whose reads
 * return one packet of at most a page, never qualifies: zero-copy would
 * pass its packets on to readers that may cut them short.
 */
#define ZC_AFTER	(32u << 10)

/* fd.c */
const struct traits *traits(const struct end *e);
void end_init(struct end *e, int fd);
void end_init_input(struct end *e, int fd, const struct stat *st);
int end_keeps_writes(const struct end *e);
int end_may_keep_writes(const struct end *);
int ends_aliased(const struct end *in, const struct end *outs, size_t n);
int zerocopy_allowed(void);
int pipe_private(int p[2]);
void close_pair(int p[2]);

/*
 * A caller's own wait for a splice or tee that is not ready (struct
 * io_call.wait): how long, on what, with which signal mask is the
 * caller's policy (the fan-out's: lib/watch.c); making the call again,
 * or leaving the wait to the kernel, is io_move's.  FN returns 0 when
 * the call may be made (again); 1 when it is not to be (the time the
 * caller allows ran out, or what the call was for is not wanted any
 * more); -1 with errno set if it could not wait: the call then waits in
 * the kernel, as if there were no WAIT.  With TELLS the call says by
 * itself that it is not ready (a pipe, SPLICE_F_NONBLOCK: EAGAIN) and
 * FN comes after; without, FN comes first, and the call waits in the
 * kernel for whatever is left (splice(2) into or from a socket waits
 * whatever its flags say).
 */
struct io_wait {
	int (*fn)(void *ctx);
	void *ctx;
	int tells;
};

/*
 * io.c: the one retry policy.  One byte-moving system call: what it is,
 * its descriptors (-1 where it has none), the bytes of a read, write or
 * vmsplice, and how many at most; after a failure, where it failed.
 */
enum io_op {
	IO_READ,		/* read(2) IN into BUF */
	IO_WRITE,		/* write(2) BUF to OUT */
	IO_VMSPLICE,		/* vmsplice(2) BUF into pipe OUT */
	IO_SPLICE,		/* splice(2) IN to OUT, one of them a pipe */
	IO_TEE,			/* tee(2) pipe IN into pipe OUT */
	IO_COPY_RANGE,		/* copy_file_range(2) file IN to file OUT */
	IO_PEEK			/* recv(2) IN with MSG_PEEK|MSG_TRUNC into BUF:
				   the length of its next record */
};

/* Return 1 if OP is a zero-copy call (what refusal.c judges). */
static inline int
io_zerocopy(enum io_op op)
{
	return op == IO_VMSPLICE || op == IO_SPLICE || op == IO_TEE ||
	    op == IO_COPY_RANGE;
}

struct io_call {
	enum io_op op;
	int in, out;
	void *buf;
	size_t len;
	int side;		/* after -1: SPATE_INPUT, SPATE_OUTPUT, or 0 */
	int waiting;		/* after -1: 1 if poll(2) failed, not the call */
	const struct io_wait *wait;	/* splice, tee: the caller's wait
				   (above), or NULL: io_move's own */
	int gave_up;		/* after -1: the caller's wait said not to go
				   on (errno ETIMEDOUT) */
	const sigset_t *mask;	/* write: the mask to wait for room with
				   (NULL: the thread's) */
	long pipe;		/* write: into a pipe of this many bytes,
				   not in packet mode (0: not such a pipe) */
	int spun;		/* after -1 (EAGAIN): the call said EAGAIN
				   SPIN_MAX times, each after a wait that
				   said it was ready */
};

/*
 * How many times in a row a call may say EAGAIN right after a wait said
 * its side was ready before io_move stops making it (struct
 * io_call.spun): a filter that answers EAGAIN, or a descriptor whose
 * poll(2) says what its call never agrees with, would be spun on for
 * ever.  A pipe shared with a busier writer or reader loses that race
 * now and then, never this often in a row; and if it did, the zero-copy
 * callers only fall back to read/write (zerocopy_refused), which loses
 * nothing.
 */
#define SPIN_MAX	64

/*
 * Run C's call until it moves something or fails for real.  EINTR is
 * retried; EAGAIN is waited out in poll(2) on the side that is not
 * ready (wait_either for two descriptors), or by C->wait, SPIN_MAX
 * times in a row at most (then -1, EAGAIN, C->spun).  A write
 * with C->mask waits so with that mask, and into a pipe (C->pipe) that
 * cannot take it whole, waits for room first (pipe_wait_room).  Return:
 *   > 0  the count, maybe short of C->len (io_move_all loops on it);
 *        IO_PEEK's is the whole length of the record it peeked at,
 *        maybe more than C->len (not for io_move_all);
 *   0    end of input: read(2), splice(2) or tee(2) from an input with
 *        no more to give (a tee(2) of nothing from an input that is
 *        not at its end lost a race with another user of its pipes:
 *        it is waited out as EAGAIN is), copy_file_range(2) at the
 *        input's end (or at
 *        a /proc or /sys file's, which report no size), IO_PEEK at an
 *        input closed or at an empty record; or C->len 0;
 *   -1   errno set, C->waiting and C->side saying where:
 *        waiting 1: poll(2) failed waiting on side C->side (never a
 *        refusal: the call was not refused);
 *        waiting 0: the call itself failed, on the side of its one
 *        descriptor (read, peek: SPATE_INPUT; write, vmsplice:
 *        SPATE_OUTPUT), or,
 *        for splice, tee and copy_file_range, with C->side 0: which
 *        descriptor the error is about, the caller knows (xfer.c).
 *        A write or vmsplice that takes nothing and says nothing fails
 *        with ENOSPC on SPATE_OUTPUT, as GNU's full_write has it.  With
 *        C->wait: ETIMEDOUT and C->gave_up 1 (C->side 0) when the
 *        caller's wait said not to go on.
 */
ssize_t io_move(struct io_call *c);
/*
 * Run io_move until all of C->len has moved: the short counts loop.
 * C->buf and C->len advance past what moved.  Return 0, or -1 as
 * io_move; an end of input (io_move's 0) before the end is EIO on
 * SPATE_INPUT: only for an input known to hold LEN bytes.
 */
int io_move_all(struct io_call *c);
struct pollfd;
int wait_masked(struct pollfd *p, size_t n, int ms, const sigset_t *mask);
int wait_any(struct pollfd *p, size_t n, int ms);
int wait_fd(int fd, short events, int ms);
int wait_either(int in, int out, int *side);
ssize_t read_some(int fd, void *buf, size_t len);
int write_all(int fd, const void *buf, size_t len);
int read_exact(int fd, void *buf, size_t len);

/*
 * The biggest pipe the engine asks for: 512 KiB, GNU 9.11's size.  A
 * pipe whose reader stalls stays full at its size, and its pages count
 * against its user's quota (see pipe.c) until it is closed: no larger
 * than GNU 9.11's, a crowd of stalled pipelines takes that quota no
 * sooner than GNU's.  1 MiB (the default pipe-max-size) moves a fast
 * stream faster on one CPU, at twice the cost when it stalls.
 */
#define PIPE_MAX	(512L << 10)

/*
 * handoff.c: a region of fresh memory written once, front to back, and
 * handed to a pipe with vmsplice(2) part by part.  The pages handed
 * over are never written again.
 */
struct handoff {
	char *base;		/* the region, or NULL */
	size_t start;		/* the first byte not handed over yet */
	size_t fill;		/* the end of the bytes written */
	int refused;		/* vmsplice was refused: the bytes were
				   copied, and handing off is over */
};

/* Return SIZE bytes of fresh memory (with HUGE, 2 MiB-aligned, asking
 * for huge pages) that munmap(p, SIZE) frees; NULL, errno set. */
char *map_memory(size_t size, int huge);
/* Return 1 if handing off is worth it here (huge pages). */
int handoff_available(void);
/* The bytes that can still be written in H's region (a new region's
 * if there is none). */
size_t handoff_room(const struct handoff *h);
/* Where the next bytes go, mapping a region if there is none; NULL,
 * errno set, if it cannot be mapped. */
char *handoff_space(struct handoff *h);
/* N bytes were written at handoff_space(H). */
void handoff_wrote(struct handoff *h, size_t n);
/* Hand the bytes written to pipe FD, all of them (io_move_all), or
 * copy them by write(2) if they are few, or if vmsplice is refused,
 * first or later (zerocopy_refused; then H->refused is set); a full region
 * is then let go.  Return 0, or -1 with errno set: an error of the
 * output. */
int handoff_send(struct handoff *h, int fd);
/* Let H's region go (what was handed over stays the pipe's). */
void handoff_free(struct handoff *h);

/* pipe.c */
struct pace {			/* a stream's last second: pace_slow */
	off_t pos;		/* where it was */
	long long ms;		/* when, or 0 */
};
long long clock_ms(void);
int pace_slow(struct pace *p, off_t pos);
long pipe_size(struct end *e);
long pipe_grow_to(int fd, long want);
int pipe_warranted(struct end *e, size_t n);
void pipe_carried(struct end *e, size_t n);
int pipe_resize(struct end *e, long size);

/* refusal.c */
int zerocopy_refused(const struct io_call *c);

/* sandbox.c */
int sandbox_status(const char *path);
void sandbox_look(void);
int gnu_calls(void);

/* xfer.c */
void link_init(struct link *l, struct end *in, struct end *out);
void link_retarget(struct link *l, struct end *in, off_t size);
ssize_t link_step(struct link *l, size_t len);
ssize_t link_put(struct link *l, const void *buf, size_t len);
void link_free(struct link *l);
ssize_t xfer_pipe(struct io_call *c, int in, int out, size_t len, int dup,
    const struct io_wait *w);
ssize_t read_input(const struct end *in, char **buf, size_t *size,
    size_t want);

#endif
