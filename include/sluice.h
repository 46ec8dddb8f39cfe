/*
 * sluice: the engine behind the yes and tee commands.
 *
 * The engine moves bytes between file descriptors as fast as the kernel
 * allows: zero-copy (vmsplice, splice, tee) where the descriptors permit it,
 * large read/write elsewhere.  It never prints and never exits: every call
 * returns -1 with errno set, and the caller decides what the user sees.
 *
 * Setting the environment variable SLUICE_ZEROCOPY to 0 makes every call
 * take the portable read/write path.
 */
#ifndef SLUICE_H
#define SLUICE_H

#include <stddef.h>
#include <sys/types.h>

#define SLUICE_VERSION "0.1.0"

/* What a file descriptor is, as far as the choice of copy path goes. */
enum sl_kind {
	SL_PIPE,	/* a pipe or FIFO */
	SL_FILE,	/* a regular file */
	SL_CHAR,	/* a character device: /dev/null, a tty, ... */
	SL_SOCKET,
	SL_DIR,
	SL_OTHER
};

/* Store the kind of FD in *KIND; return 0, or -1 with errno set. */
int sl_fdkind(int fd, enum sl_kind *kind);

/* Return 1 unless SLUICE_ZEROCOPY=0 asks for the portable path. */
int sl_zerocopy_allowed(void);

/*
 * Grow the pipe FD towards the largest size the system grants.
 * Return the size the pipe has afterwards, or -1 with errno set.
 */
long sl_pipe_grow(int fd);

/*
 * Write LEN bytes of BUF to FD, retrying short writes and EINTR and
 * waiting in poll(2) while a non-blocking FD is full.
 * Return 0, or -1 with errno set (some bytes may have been written).
 */
int sl_write_all(int fd, const void *buf, size_t len);

/*
 * Wait until FD is ready for EVENTS (POLLIN or POLLOUT); return 0, or -1
 * with errno set.  Used after EAGAIN on a non-blocking descriptor.
 */
int sl_wait(int fd, short events);

/*
 * Write the LEN-byte LINE (LEN > 0, newline included) to FD over and over,
 * forever.  The output is an exact repetition of LINE however the reader
 * consumes it.  Returns only on failure: -1 with errno set (EPIPE when the
 * reader left and SIGPIPE is ignored).
 */
int sl_repeat(int fd, const char *line, size_t len);

/*
 * One output of sl_fanout.  Set FD; the engine owns the rest, and sets
 * FD to -1 when it drops the output after a failure.
 */
struct sl_out {
	int fd;
	int how;	/* how the output is written: a zero-copy path or write */
	off_t moved;	/* bytes delivered so far */
};

/*
 * Called at once when writing to OUTS[I] failed with errno ERR.  The
 * engine has already dropped that output (fd = -1).  Outputs are served
 * in order (those written by write(2), such as O_APPEND files, last),
 * so the outputs after OUTS[I] have not had the failed chunk yet.
 * Return 0 to go on with the others, or -1 to stop the copy at once.
 */
typedef int sl_fail_fn(void *ctx, size_t i, int err);

/*
 * Copy everything from IN to each of the N outputs OUTS, in order and
 * complete, forwarding data as soon as it arrives.  Stops at end of input,
 * when no output is left, or when FAIL asks to.
 * Return 0, or -1 with errno set when reading IN failed (every byte read
 * before the failure has been delivered).
 */
int sl_fanout(int in, struct sl_out *outs, size_t n, sl_fail_fn *fail,
    void *ctx);

#endif
