/*
 * spate: the engine behind the yes, tee and cat commands.
 *
 * The engine moves bytes between file descriptors as fast as the kernel
 * allows: zero-copy (copy_file_range, splice, tee, vmsplice) where the
 * descriptors permit it, large read/write elsewhere.  It never prints and
 * never exits: every call returns -1 with errno set, and the caller
 * decides what the user sees.
 *
 * Setting the environment variable SPATE_ZEROCOPY to 0 makes every call
 * take the portable read/write path.
 *
 * What the engine creates: pipes of its own (close-on-exec, at
 * descriptors above 2), closed by the call that made them, or for a
 * concatenation by spate_cat_close; threads, only where a call's contract
 * says so (SPATE_FANOUT_THREADS, a lag), all joined before it returns but
 * a closed output's (spate_fanout_with); never a process: it never calls
 * fork(2), vfork(2) or clone(2) for one, and never waits for a child,
 * so a caller's pthread_atfork handlers, its SIGCHLD disposition and
 * its children are its own.
 *
 * Under a seccomp filter (spate_gnu_calls) the engine makes only the
 * system calls GNU coreutils 9.11's cat, tee and yes make for the same
 * work, so that whatever filter lets those run lets it run: no thread
 * at all, tee's copies by GNU's own loop (8 KiB read(2), a write(2) to
 * each output), cat's text by read(2)/write(2), plain cat and yes on
 * GNU 9.11's zero-copy calls (splice, copy_file_range, vmsplice).  A
 * refusal with an errno still falls back to read(2)/write(2).  Setting
 * SPATE_SECCOMP to "trust" takes the whole engine under a filter too:
 * the user says the filter refuses with errors rather than kills.
 */
#ifndef SPATE_H
#define SPATE_H

#include <stddef.h>
#include <sys/types.h>

struct stat;

/* The one source of the version number: the Makefile reads it here. */
#define SPATE_VERSION "0.4.0"

/*
 * Return 1 if the engine keeps, from now on, to GNU 9.11's calls (see
 * above): a seccomp filter is in force on the calling thread (as
 * /proc/thread-self/status says, or, without /proc, prctl(2)
 * PR_GET_SECCOMP) and SPATE_SECCOMP is not "trust".  Each operation
 * below looks again when it starts, since a program may install a
 * filter between two; once one is in force the answer stays 1.
 */
int spate_gnu_calls(void);

/* Which descriptor of a copy failed, or that memory did (ENOMEM: not
 * even a small buffer could be had; GNU says "memory exhausted"), or the
 * fan-out's own pipes (a read out of one failed: no descriptor of the
 * caller's did). */
enum spate_side {
	SPATE_INPUT = 1,
	SPATE_OUTPUT = 2,
	SPATE_MEMORY = 3,
	SPATE_PRIVATE = 4
};

/*
 * Write the LEN-byte LINE (LEN > 0, newline included) to FD over and over,
 * forever.  The output is an exact repetition of LINE however the reader
 * consumes it.  Returns only on failure: -1 with errno set (EPIPE when the
 * reader left and SIGPIPE is ignored).  It returns with its buffers of
 * copies of LINE still mapped, since a pipe may still hold their pages:
 * one of 128 KiB, or into a pipe by vmsplice one of 64 KiB and then one
 * of 2 MiB (each at least LEN bytes).  Each call maps its own: made to
 * be called once, last, as yes does.
 */
int spate_repeat(int fd, const char *line, size_t len);

/*
 * One output of spate_fanout.  FD is all a caller may touch: it sets FD
 * before the call, and finds it -1 after if the engine dropped the
 * output after a failure.  ENGINE is the engine's, set at each call and
 * never to be read or written by the caller: space for its state, of a
 * size that stays as it is while the engine changes (the ABI of
 * libspate.so.1).
 */
struct spate_out {
	int fd;			/* public */
	union {
		long long align;
		void *ptr;
		unsigned char bytes[56];
	} engine;		/* private */
};

/*
 * Called, on the caller's thread, when writing to OUTS[I] failed with
 * errno ERR.  The engine has already dropped that output (fd = -1).
 * Failures are told in the order GNU's tee would tell them, whichever
 * thread met them first: chunk by chunk (at the grain of GNU's 8 KiB
 * reads), and within one in the order of the outputs.
 * Return 0 to go on with the others, or -1 to stop the copy at once.
 */
typedef int spate_fail_fn(void *ctx, size_t i, int err);

/* What spate_fanout_flags's FLAGS ask. */
#define SPATE_FANOUT_THREADS	0x01	/* copies into files may run on
					   threads (below) */
#define SPATE_FANOUT_GNU_CHUNKS	0x02	/* chunks of GNU tee's 8 KiB, by
					   read/write: a caller that stops
					   at the first failure leaves each
					   output as GNU's tee would */
#define SPATE_FANOUT_PIPE_CHECK	0x04	/* while the input has nothing to
					   read, an output pipe whose reader
					   left fails at once (EPIPE), as in
					   GNU 9.2's tee -p: with no output
					   left, the copy ends without
					   waiting for input */

/*
 * Copy everything from IN to each of the N outputs OUTS, in order and
 * complete, forwarding data as soon as it arrives.  The outputs are
 * served in order, each chunk to every output before the next chunk;
 * without threads FAIL is called at once, so the outputs after OUTS[I]
 * have not had the failed chunk yet.  Stops at end of input, when no
 * output is left, or when FAIL asks to.
 * Return 0, or -1 with errno set when reading IN failed (every byte
 * read before the failure has been delivered), or when the engine's own
 * pipes failed, which spate_fanout_with tells apart (SPATE_PRIVATE: the
 * outputs may lack what those pipes held, a pipe's size at most, and
 * have no byte after it).  Short of memory, the
 * engine copies on, as GNU's tee copies through a buffer on its stack:
 * through smaller buffers, down to GNU's 8 KiB of its own, and without
 * even its state for the N outputs, by GNU's own loop (no threads,
 * SPATE_FANOUT_PIPE_CHECK watching the first output alone, as GNU 9.11's
 * tee -p, FAIL called at once).
 *
 * Under a seccomp filter (spate_gnu_calls) the copy is GNU's loop, without
 * threads, whatever FLAGS ask.  With SPATE_FANOUT_THREADS the copies into
 * regular files are shared among
 * threads, one per CPU at most, the caller's included, once two outputs
 * or more need a copy of every byte (files, sockets), one of them a
 * file, and the stream has shown itself big enough to repay threads.
 * A thread may serve several files; sockets stay on the caller's
 * thread.  Each output still gets every byte, in order, but one may run
 * ahead of another by what the engine holds for it (at most 1.5 MiB of
 * pipe per output), and FAIL may be called later than the failure: an
 * output after OUTS[I] may have had the chunk that failed there, and
 * more.  The threads block every signal, so that handlers run on the
 * caller's threads.  With SPATE_FANOUT_THREADS, while several outputs are
 * copied, SIGPIPE and SIGXFSZ, where their action would end the
 * process, are blocked on the calling thread, FAIL's calls included:
 * one raised meanwhile ends the process once every output has had what
 * GNU's tee would have given it before it ended, and the threads have
 * written what they were given.  One sent from outside comes in while
 * the engine waits for input, or for an output's room, with no threads
 * running.  Setting the environment
 * variable SPATE_THREADS to N allows at most N threads that copy (1:
 * none but the caller's).
 */
int spate_fanout_flags(int in, struct spate_out *outs, size_t n, unsigned flags,
    spate_fail_fn *fail, void *ctx);

/* spate_fanout_flags with no FLAGS. */
int spate_fanout(int in, struct spate_out *outs, size_t n, spate_fail_fn *fail,
    void *ctx);

/* spate_fanout_flags with SPATE_FANOUT_THREADS. */
int spate_fanout_parallel(int in, struct spate_out *outs, size_t n,
    spate_fail_fn *fail, void *ctx);

/*
 * Called on the caller's thread as a copy moves on, with BYTES: how much
 * of the input has been copied so far (every output served has had it,
 * or, with a lag, the fastest one), growing from call to call and, at
 * the end of a copy that succeeded, its whole length.  It is called at
 * most once a chunk the engine moves, and the engine makes no system
 * call for it: a caller that prints reads its own clock to decide when.
 * cat's and tee's --progress are built on it, and so may any program
 * that links the library: it is the library's, not the commands'.
 */
typedef void spate_progress_fn(void *ctx, long long bytes);

/* What an output does that would fall further behind than a lag. */
enum spate_slow {
	SPATE_SLOW_WAIT,		/* the others wait for it: GNU's way */
	SPATE_SLOW_CLOSE,		/* it is given nothing more */
	SPATE_SLOW_DROP		/* it misses the chunks that do not fit */
};

/*
 * Called on the caller's thread when output I was closed for falling
 * behind (WHAT SPATE_SLOW_CLOSE: MISSED 0; the engine has set its fd to
 * -1, and closes it once no write of its is under way), or, at the end
 * of the copy, by how many bytes a dropping output missed
 * (SPATE_SLOW_DROP, MISSED > 0).
 */
typedef void spate_slow_fn(void *ctx, size_t i, enum spate_slow what,
    long long missed);

/*
 * What spate_fanout_with is asked beyond spate_fanout_flags.  LAG 0 and SLOW
 * SPATE_SLOW_WAIT: the outputs keep in step, as GNU's tee.  Otherwise each
 * output may fall up to LAG bytes behind the fastest, and SLOW says what
 * becomes of one that would fall further (SLOW_FN told).  PROGRESS, if
 * not NULL, is told of the copy's progress.  Every callback gets
 * spate_fanout_with's CTX.
 *
 * With a lag and two outputs or more, each output is written by a
 * thread of its own, with write(2), from chunks of 128 KiB of the input
 * held in memory: at most LAG + 256 KiB for any output, given back as
 * the outputs catch up.  An output is closed or drops only when it is
 * slow: more than LAG behind, its reader able to stall it (a pipe, a
 * socket), and a write of it waiting 2 s; others are waited for.  An
 * output that drops misses whole chunks.
 * The threads block every signal; a SIGPIPE or SIGXFSZ that a write of
 * theirs raised is raised on the caller's thread when that failure is
 * told.  Failures are told in GNU's order: by GNU's 8 KiB read of the
 * failing byte, then by output; each once no other output can fail
 * before it in that order (every output still writing has written past
 * the reads before that one, an output before it past that read too,
 * or has written all it was given).  After FAIL's -1 nothing more is
 * written and the call returns without waiting for the writes under
 * way.  A closed output's
 * thread, or one in a write when FAIL stopped the copy, may stay
 * blocked in write(2) after the call returns (a reader that never
 * reads): it is left, detached, with the chunk it writes from, and
 * writes nothing else.  Where two outputs are one file, pipe, socket or
 * descriptor, or an output is IN itself or IN's regular file, or IN may
 * keep records apart (a record socket, a pipe, a device) and an output
 * keeps writes apart (a record socket, a packet-mode pipe), the copy is
 * made without a lag;
 * where the threads or the memory of the lag cannot be had, it is not
 * made: -1 with *SIDE SPATE_MEMORY, nothing read.  Under a seccomp filter
 * (spate_gnu_calls) a lag with two outputs or more is refused before
 * anything is read: -1, errno EPERM, *SIDE SPATE_PRIVATE.
 */
struct spate_fanout_opts {
	unsigned flags;			/* SPATE_FANOUT_* */
	long long lag;
	enum spate_slow slow;
	spate_slow_fn *slow_fn;
	spate_progress_fn *progress;
	enum spate_side *side;		/* if not NULL, set when the call
					   returns -1: SPATE_INPUT,
					   SPATE_PRIVATE or (with a lag)
					   SPATE_MEMORY */
};

/* spate_fanout_flags, with OPTS (NULL: none). */
int spate_fanout_with(int in, struct spate_out *outs, size_t n,
    const struct spate_fanout_opts *opts, spate_fail_fn *fail, void *ctx);

/* What spate_cat_open's FLAGS ask of the text, as cat's options. */
#define SPATE_CAT_NUMBER		0x01	/* -n: number every line */
#define SPATE_CAT_NUMBER_NONBLANK	0x02	/* -b: number non-empty lines */
#define SPATE_CAT_SQUEEZE		0x04	/* -s: one empty line for many */
#define SPATE_CAT_SHOW_ENDS		0x08	/* -E: '$' before each newline */
#define SPATE_CAT_SHOW_TABS		0x10	/* -T: tabs as ^I */
#define SPATE_CAT_SHOW_NONPRINTING	0x20	/* -v: ^X and M- notation */

/* A concatenation into one output: opaque. */
struct spate_cat;

/*
 * Start a concatenation into OUT, transforming the text as FLAGS ask
 * (0: bytes pass unchanged, by the fastest path).  Return the handle, or
 * NULL with errno set.
 */
struct spate_cat *spate_cat_open(int out, unsigned flags);

/*
 * Append everything IN holds, up to its end, to the concatenation.  Line
 * numbers and squeezed empty lines carry on from the inputs before.
 * Return 0, or -1 with errno set and *SIDE saying whether reading IN or
 * writing the output failed, or memory did.
 */
int spate_cat_add(struct spate_cat *c, int in, enum spate_side *side);

/*
 * spate_cat_add for an input whose fstat(2) status ST the caller has just
 * taken (cat does, to tell whether it is the output): the engine then
 * makes no call of its own to learn what IN is, but a socket's
 * getsockopt(2) for its type (a record socket is read a record whole).
 */
int spate_cat_add_stat(struct spate_cat *c, int in, const struct stat *st,
    enum spate_side *side);

/*
 * Tell FN (with CTX) of the concatenation's progress: the bytes written
 * to the output so far, over every input added (spate_progress_fn).
 */
void spate_cat_progress(struct spate_cat *c, spate_progress_fn *fn, void *ctx);

/*
 * Write what the transformation still holds, and free C.  Return 0, or
 * -1 with errno set when writing the output failed.
 */
int spate_cat_close(struct spate_cat *c);

#endif
