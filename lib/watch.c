/*
 * When a fan-out waits, and on what (lib/fanout.h): one look a round at
 * the input and at the outputs that may stall (watch_survey); the waits of
 * its zero-copy calls, which io_move runs (watch_output, watch_input): an
 * output whose reader stalled, the input while it is quiet; and the
 * output pipes that may break meanwhile (watch_wait).  Every wait
 * goes on through a signal for the time left (wait_masked, lib/io.c),
 * so a handler never makes a stall or a quiet input go unnoticed; the
 * signals held while the fan-out copies come in then (watch_mask).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>

#include "fanout.h"

/*
 * How long an output may stay full before its reader counts as stalled:
 * then, as when the input is quiet for IDLE_MS (engine.h), the private
 * pipes and the threads are given back, and the stream goes on by
 * read/write until it is fast again.
 */
#define STALL_MS	1000

/*
 * The signal mask to wait with: the caller's, which lets in the signals
 * held while the fan-out copies (signals.c), so that one sent from
 * outside ends the process in a wait as it would end GNU's tee in its
 * read(2) or write(2).  NULL (the thread's own, which holds them) once
 * the process is dying or stopping, and while lanes run: a signal let
 * in then would end the process before the lanes wrote what they were
 * given, and the files would hold less than the pipes' readers got.
 * No signal an output's write raised can be due before: its failure
 * makes the fan-out die at once (out_report, dying), and a lane's is raised
 * only then (take_lane_error).
 */
const sigset_t *
watch_mask(struct fan *f)
{
	if (sigisemptyset(&f->held) || f->die_at != -1 || f->stop ||
	    f->lanes != NULL)
		return NULL;
	return &f->open;
}

/* Wait for the N descriptors of F->polls, MS milliseconds at most (-1:
 * for ever), as wait_any, with watch_mask's mask. */
static int
wait_polls(struct fan *f, size_t n, int ms)
{
	return wait_masked(f->polls, n, ms, watch_mask(f));
}

/* Return 1 if output I can take part in watch_wait's watch: an output
 * pipe, with SPATE_FANOUT_PIPE_CHECK. */
static int
watched(struct fan *f, size_t i)
{
	return (f->flags & SPATE_FANOUT_PIPE_CHECK) && out_served(out(f, i)->st) &&
	    traits(&f->ends[i])->pipe;
}

/*
 * Wait until the input has bytes to read (or its end), MS milliseconds
 * at most (-1: for ever).  An output watched (see watched) whose reader
 * left meanwhile fails with EPIPE at once, as a write to it would (GNU
 * 9.2's tee -p): a tee whose outputs are all broken pipes ends without
 * waiting for input.  Return 1 when the input is ready or when no output
 * is left; 0 when MS passed first; -1 with errno set if poll(2) failed
 * (the caller's call waits instead).
 */
int
watch_wait(struct fan *f, int ms)
{
	for (;;) {
		size_t i, m = 1;
		int r;

		f->polls[0] = (struct pollfd){ .fd = f->in.fd, .events = POLLIN };
		for (i = 0; i < f->n; i++)
			if (watched(f, i))
				f->polls[m++] = (struct pollfd){
				    .fd = f->outs[i].fd };
		if ((r = wait_polls(f, m, ms)) <= 0)
			return r;
		if (f->polls[0].revents != 0)
			return 1;
		for (i = 0, m = 1; i < f->n && !f->stop; i++)
			if (watched(f, i) && (f->polls[m++].revents &
			    (POLLERR | POLLHUP | POLLNVAL)))
				out_failed(f, i, EPIPE);
		if (f->live == 0 || f->stop)
			return 1;
	}
}

/*
 * Before a read that may wait: with SPATE_FANOUT_PIPE_CHECK, or signals
 * held (a read that waited would keep them out, where a signal from
 * outside would end GNU's tee in its read), watch_wait, for ever (if it
 * fails, the read waits).  A regular file never keeps us waiting; an
 * input open for writing only is not looked at: its read fails.
 */
void
watch_pipes(struct fan *f)
{
	if (traits(&f->in)->file || f->in_wronly)
		return;
	if ((f->flags & SPATE_FANOUT_PIPE_CHECK) || !sigisemptyset(&f->held))
		watch_wait(f, -1);
}

/* Return 1 if output I may wait on its reader: a pipe or a socket of
 * its own (a lane never does: its worker empties it). */
static int
may_stall(struct fan *f, size_t i)
{
	return traits(&f->ends[i])->may_stall && !out_in_lane(out(f, i)->st);
}

/*
 * Return 1 if zero-copy into output I tells by itself that it is full,
 * without waiting (SPLICE_F_NONBLOCK: struct io_wait.tells): a pipe that
 * may stall.  A socket does not (splice(2) into it waits whatever its
 * flags say): watch_survey looks at it.
 */
static int
output_tells(struct fan *f, size_t i)
{
	return may_stall(f, i) && traits(&f->ends[i])->pipe;
}

/* Return 1 if watch_survey looks at output I: it may stall, and does not
 * tell by itself. */
static int
surveyed(struct fan *f, size_t i)
{
	return out_served(out(f, i)->st) && may_stall(f, i) &&
	    !output_tells(f, i);
}

/* Return 1 if the chunk's splice(2) from the input tells by itself
 * that the input has nothing to read, without waiting
 * (SPLICE_F_NONBLOCK: struct io_wait.tells): a pipe's. */
static int
input_tells(struct fan *f)
{
	return traits(&f->in)->pipe;
}

/* Return 1 if watch_survey looks at the input: it does not tell by itself,
 * and is no regular file (which always has bytes to read, or its end;
 * its splice is never asked not to wait, which on a file could mean a
 * page not cached yet). */
static int
input_surveyed(struct fan *f)
{
	return !input_tells(f) && !traits(&f->in)->file;
}

/*
 * One look, without waiting, at the input and at the outputs that may
 * stall, those that do not tell by themselves (input_surveyed,
 * surveyed): whether the input has bytes to read, and which outputs
 * have room (struct out_state.roomy), so that the round's calls need
 * not look again.  One poll(2) a round at most, however many outputs;
 * none from a pipe or a file into pipes and files.  Return 1 if the
 * input is ready, or is not looked at.
 */
int
watch_survey(struct fan *f)
{
	size_t i, m = 0;
	int ready;

	if (input_surveyed(f))
		f->polls[m++] = (struct pollfd){ .fd = f->in.fd,
		    .events = POLLIN };
	for (i = 0; i < f->n; i++)
		if (surveyed(f, i))
			f->polls[m++] = (struct pollfd){ .fd = f->outs[i].fd,
			    .events = POLLOUT };
	if (m == 0)
		return 1;
	/* A failed look finds nothing ready: the calls look again. */
	if (wait_any(f->polls, m, 0) == -1)
		for (i = 0; i < m; i++)
			f->polls[i].revents = 0;
	ready = !input_surveyed(f) || f->polls[0].revents != 0;
	for (i = 0, m = input_surveyed(f); i < f->n; i++)
		if (surveyed(f, i))
			out(f, i)->roomy = f->polls[m++].revents != 0;
	return ready;
}

/*
 * Before zero-copy gives output I more, or after it said EAGAIN
 * (output_tells): if it may stall and has no room (the round's survey
 * found it some: that once, no look), wait for room.  Return 0 when it
 * has room; 1 if none came within STALL_MS (its reader stalled: the
 * call gives up, and the caller moves the chunk to memory and gives the
 * pipes back); -1 with errno set if poll(2) failed (the call waits
 * instead).  An io_wait's FN (watch_output).
 */
static int
output_stalled(void *ctx)
{
	struct fan_wait *w = ctx;
	struct fan *f = w->f;
	size_t i = w->i;
	int r;

	if (out(f, i)->roomy) {
		out(f, i)->roomy = 0;
		return 0;
	}
	if (!may_stall(f, i))
		return 0;
	f->polls[0] = (struct pollfd){ .fd = f->ends[i].fd, .events = POLLOUT };
	if ((r = wait_polls(f, 1, STALL_MS)) > 0)
		return 0;
	return r == 0 ? 1 : -1;
}

/*
 * The wait W of a zero-copy call into output I.  An output that tells
 * by itself (output_tells: a pipe) is not looked at first: the call
 * says EAGAIN if it is full, and only then is room waited for; a socket
 * is looked at first.  If a look fails, the call waits in the kernel,
 * and the stall goes unseen.
 */
void
watch_output(struct fan *f, size_t i, struct fan_wait *w)
{
	*w = (struct fan_wait){ .f = f, .i = i,
	    .io = { .fn = output_stalled, .ctx = w,
	    .tells = output_tells(f, i) } };
}

/*
 * The input has nothing to read: wait for it IDLE_MS at most, with the
 * watch of watch_wait; not at all, once, if the round's look found it
 * ready.  Return 0 when it is ready; 1 if it stayed quiet (the call
 * gives up, and the caller gives the pipes back), or if no output is
 * left to take it; -1 with errno set if poll(2) failed (the call waits
 * instead).  An io_wait's FN (watch_input).
 */
static int
input_quiet(void *ctx)
{
	struct fan_wait *w = ctx;
	struct fan *f = w->f;
	int r;

	if (w->ready) {
		w->ready = 0;
		return 0;
	}
	r = watch_wait(f, IDLE_MS);
	if (f->live == 0 || f->stop)
		return 1;
	return r == 1 ? 0 : r == 0 ? 1 : -1;
}

/*
 * The wait W of the chunk's splice from the input, which the round's
 * look (watch_survey) found READY or not.  An input pipe is not looked at
 * first: the splice says EAGAIN if it is empty, and only then is the
 * input waited for (a look first would find it empty whenever its
 * writer shares our CPU, and wait twice); anything else is, unless the
 * look found it ready (a regular file always is).
 */
void
watch_input(struct fan *f, int ready, struct fan_wait *w)
{
	*w = (struct fan_wait){ .f = f, .ready = ready && !input_tells(f),
	    .io = { .fn = input_quiet, .ctx = w, .tells = input_tells(f) } };
}
