/*
 * The signals a fan-out holds while it copies (SPATE_FANOUT_THREADS).
 *
 * A write into a pipe whose reader left raises SIGPIPE; one into a file
 * past RLIMIT_FSIZE raises SIGXFSZ.  Either, at its default action, ends
 * the process in that write, before the outputs after it have had what
 * GNU's tee, which writes GNU_CHUNK bytes to each output in turn, would
 * have given them, and before the lanes have written what they were
 * given.  So while the fan-out copies, the two are blocked on its
 * thread (and every signal on the workers, which lanes.c starts so):
 * the write fails with EPIPE or EFBIG, the signal waits, pending; the
 * fan-out gives the other outputs their due and lets the signal go,
 * which then ends the process.  Signals the caller blocked or handles
 * are left as they are.
 *
 * A signal sent from outside ends GNU's tee in whatever read(2) or
 * write(2) it is making.  Here it comes in where the fan-out waits for
 * input, or looks for an output's room: those waits let the held
 * signals in (watch.c's watch_mask), unless lanes run or the process is
 * dying or stopping.  A fan-out that never waits (a file's input, into
 * files and /dev/null) looks for it between rounds instead
 * (signals_sent), every SIGNAL_LOOK_MS at most, and ends there, with
 * every output at the same byte and the lanes written out.  A write(2)
 * that waits on a full output keeps them out until it ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "fanout.h"

static const int fatal_sigs[] = { SIGPIPE, SIGXFSZ };

/*
 * Block on this thread the signals a write may raise that would end the
 * process (their default action, not blocked already); store them in
 * *HELD for signals_let, and the thread's mask before in *OPEN, the
 * mask to wait with.
 */
void
signals_hold(sigset_t *held, sigset_t *open)
{
	struct sigaction sa;
	sigset_t before;
	size_t k;

	sigemptyset(held);
	for (k = 0; k < sizeof fatal_sigs / sizeof *fatal_sigs; k++)
		if (sigaction(fatal_sigs[k], NULL, &sa) == 0 &&
		    sa.sa_handler == SIG_DFL)
			sigaddset(held, fatal_sigs[k]);
	if (sigisemptyset(held) || pthread_sigmask(SIG_BLOCK, held, &before) != 0) {
		sigemptyset(held);
		return;
	}
	*open = before;
	for (k = 0; k < sizeof fatal_sigs / sizeof *fatal_sigs; k++)
		if (sigismember(&before, fatal_sigs[k]) == 1)
			sigdelset(held, fatal_sigs[k]);
}

/* Unblock the signals HELD: one that came meanwhile ends the process
 * now.  The rest of the caller's mask is left as the caller has it. */
void
signals_let(const sigset_t *held)
{
	if (!sigisemptyset(held))
		pthread_sigmask(SIG_UNBLOCK, held, NULL);
}

/* Return 1 if signal SIG, blocked, waits for this thread or the
 * process. */
int
signal_due(int sig)
{
	sigset_t due;

	return sigpending(&due) == 0 && sigismember(&due, sig) == 1;
}

/*
 * Return 1 if the output error ERR raised a signal of HELD (EPIPE:
 * SIGPIPE; EFBIG: SIGXFSZ) and it is due: GNU's tee would have ended in
 * that write.
 */
int
signals_fatal(const sigset_t *held, int err)
{
	int sig = err == EPIPE ? SIGPIPE : err == EFBIG ? SIGXFSZ : 0;

	return sig != 0 && sigismember(held, sig) == 1 && signal_due(sig);
}

/*
 * How often, at most, a fan-out that holds signals looks between rounds
 * for one sent from outside: soon enough for a user's kill, and a
 * sigpending(2) at most a hundred times a second, where rounds come by
 * the ten thousand.
 */
#define SIGNAL_LOOK_MS	10

/*
 * Between F's rounds: return 1 if a held signal is due that no write of
 * ours raised (no output is dying of one: F->die_at -1), looking once
 * every SIGNAL_LOOK_MS at most.  The caller then stops, and lets it in.
 */
int
signals_sent(struct fan *f)
{
	long long now;

	if (sigisemptyset(&f->held) || f->die_at != -1)
		return 0;
	now = clock_ms();
	if (now - f->looked < SIGNAL_LOOK_MS)
		return 0;
	f->looked = now;
	return signals_due(&f->held);
}

/* Return 1 if a signal of HELD is due (a caller's own write may have
 * raised it). */
int
signals_due(const sigset_t *held)
{
	size_t k;

	for (k = 0; k < sizeof fatal_sigs / sizeof *fatal_sigs; k++)
		if (sigismember(held, fatal_sigs[k]) == 1 &&
		    signal_due(fatal_sigs[k]))
			return 1;
	return 0;
}
