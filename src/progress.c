/*
 * --progress: the line on standard error that says how far a copy has
 * come (progress.h); what it says is progress-line.c's.  One display a
 * process: the commands copy once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "progress.h"
#include "progress-line.h"

/*
 * How often a line is drawn: redrawn in place on a terminal, a line of
 * its own elsewhere (a log), where a line every few seconds is plenty.
 * man/cat.1 and man/tee.1 give these figures.
 */
#define TTY_EVERY_MS	200
#define LOG_EVERY_MS	5000

/*
 * The rate a line gives is the mean over the last RATE_WINDOW_MS or a
 * little more: steady on a steady stream that comes in bursts, quick
 * to follow a change.  The lines' figures are kept that far back,
 * SAMPLES of them at one a TTY_EVERY_MS.
 */
#define RATE_WINDOW_MS	3000
#define SAMPLES		(RATE_WINDOW_MS / TTY_EVERY_MS + 1)

/* The longest time left a line tells: a thousand days. */
#define LEFT_MAX_MS	(1000 * 86400 * 1000.0)

enum display {
	D_OFF,		/* nothing shown: not asked, no standard error,
			   or a write to it failed */
	D_LOG,		/* standard error is no terminal: whole lines */
	D_TTY_CLEAR,	/* a terminal, its cursor at the start of a line
			   (or where the foreground's is: ours is gone) */
	D_TTY_DRAWN	/* a terminal, a line drawn and not ended */
};

/* The bytes copied at a point of the copy's running time. */
struct sample {
	long long ms;
	off_t bytes;
};

static struct {
	enum display state;
	off_t total;		/* the bytes the copy moves, or -1 */
	off_t hint;		/* --progress=SIZE's SIZE, or -1 */
	off_t bytes;		/* copied so far, as the engine said */
	long long start_ns;	/* when the copy started (fine clock) */
	long long due_ms;	/* when the next line is (coarse clock) */
	struct sample samples[SAMPLES];	/* a ring, from the start */
	size_t nsamples;	/* how many it holds */
	size_t drawn_len;	/* the length of the line on the terminal */
	pid_t pgrp;		/* the process's group, to tell whether it
				   is the terminal's foreground */
} pg = { .hint = -1 };

/*
 * The time spent stopped, which the times and rates leave out: written
 * by on_stop alone, STOPS counted after STOPPED_NS grew (see stopped).
 */
static volatile long long stopped_ns;
static volatile sig_atomic_t stops;

/*
 * The coarse clock in milliseconds, for the lines while the copy runs:
 * it is read from memory the kernel shares (the vDSO) on every clock
 * source, where the fine one makes a system call on some, and is read
 * at each chunk; a tick's precision is plenty for lines drawn every
 * TTY_EVERY_MS.
 */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The fine clock in nanoseconds: at the ends of the copy, and of a stop. */
static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The time stopped so far, read whole though a stop may come meanwhile. */
static long long
stopped(void)
{
	sig_atomic_t n;
	long long v;

	do {
		n = stops;
		v = stopped_ns;
	} while (n != stops);
	return v;
}

/*
 * SIGTSTP's handler (^Z): stop as the default action does, and count
 * the time stopped.  The default is put back and the signal raised; it
 * is blocked in here, and the process stops where it is unblocked,
 * until SIGCONT (fg, bg); the handler is put back after.  A stop that
 * the kernel does not make (the process group is orphaned) counts next
 * to nothing.  SIGSTOP cannot be caught: its time counts as running.
 */
static void
on_stop(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sigaction again = { .sa_handler = on_stop,
	    .sa_flags = SA_RESTART };
	long long from = now_ns();
	sigset_t one;
	int e = errno;

	sigemptyset(&one);
	sigaddset(&one, sig);
	sigaction(sig, &dfl, NULL);
	raise(sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	sigaction(sig, &again, NULL);
	stopped_ns += now_ns() - from;
	stops++;
	errno = e;
}

/*
 * Write LEN bytes of S to standard error.  A write that fails must
 * neither end the process nor leave a signal for the engine to find:
 * SIGPIPE and SIGXFSZ are blocked for it, and one it raised is taken
 * back.  With TTOU, SIGTTOU is blocked too, so that a line drawn as the
 * process goes to the background does not stop it.  Return 0, or -1 if
 * the line did not go out whole.
 */
static int
put(const char *s, size_t len, int ttou)
{
	static const int fatal_sigs[] = { SIGPIPE, SIGXFSZ };
	sigset_t fatal, old, before, after, one;
	struct timespec zero = { 0, 0 };
	ssize_t n = 0;
	size_t k;
	int e = errno;

	sigemptyset(&fatal);
	for (k = 0; k < sizeof fatal_sigs / sizeof *fatal_sigs; k++)
		sigaddset(&fatal, fatal_sigs[k]);
	if (ttou)
		sigaddset(&fatal, SIGTTOU);
	if (pthread_sigmask(SIG_BLOCK, &fatal, &old) != 0)
		return -1;
	if (sigpending(&before) != 0)
		sigfillset(&before);	/* take back none */
	while (len > 0 && ((n = write(STDERR_FILENO, s, len)) > 0 ||
	    (n == -1 && errno == EINTR))) {
		if (n > 0) {
			s += n;
			len -= n;
		}
	}
	if (len > 0 && sigpending(&after) == 0)
		for (k = 0; k < sizeof fatal_sigs / sizeof *fatal_sigs; k++)
			if (sigismember(&after, fatal_sigs[k]) == 1 &&
			    sigismember(&before, fatal_sigs[k]) == 0) {
				sigemptyset(&one);
				sigaddset(&one, fatal_sigs[k]);
				sigtimedwait(&one, NULL, &zero);
			}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return len > 0 ? -1 : 0;
}

/*
 * Return 1 if the process may draw on its terminal: its group is the
 * terminal's foreground, or the terminal is not its own (the question
 * has no answer).  A background job draws nothing, as pv does.
 */
static int
foreground(void)
{
	pid_t fg = tcgetpgrp(STDERR_FILENO);

	return fg == -1 || fg == pg.pgrp;
}

/*
 * The columns a line may take on the terminal, asked at each line, so
 * that one drawn after the terminal changed fits it: one less than its
 * width, as a line as wide as the terminal wraps on some; LINE_MAX_LEN
 * if the terminal does not say.
 */
static size_t
room(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == -1 || ws.ws_col == 0)
		return LINE_MAX_LEN;
	return ws.ws_col - 1 < LINE_MAX_LEN ? ws.ws_col - 1 : LINE_MAX_LEN;
}

/*
 * Draw FIG on the terminal: in place of the line drawn before (the rest
 * of a longer one blanked, never past ROOM), and with a line end if
 * FINAL.  In the background (FG 0), only a final line is drawn, as a
 * line of its own: the cursor is the foreground's.
 */
static void
draw_tty(const struct figures *fig, int final, int fg)
{
	char line[1 + LINE_MAX_LEN + LINE_MAX_LEN + 1];
	size_t width = room(), len = 1, k, blank;

	line[0] = '\r';
	k = line_make(line + 1, fig, fg ? width : LINE_MAX_LEN);
	len += k;
	blank = pg.state == D_TTY_DRAWN && fg ? pg.drawn_len : 0;
	if (blank > width)
		blank = width;
	if (blank > k) {
		memset(line + len, ' ', blank - k);
		len += blank - k;
	}
	if (final)
		line[len++] = '\n';
	if (put(fg ? line : line + 1, fg ? len : len - 1, fg) == -1) {
		pg.state = D_OFF;
		return;
	}
	pg.state = final ? D_TTY_CLEAR : D_TTY_DRAWN;
	pg.drawn_len = k;
}

/* Write FIG as a line of its own (standard error is no terminal). */
static void
draw_log(const struct figures *fig)
{
	char line[LINE_MAX_LEN + 1];
	size_t k = line_make(line, fig, LINE_MAX_LEN);

	line[k++] = '\n';
	if (put(line, k, 0) == -1)
		pg.state = D_OFF;
}

/*
 * The figures of a line while the copy runs, RUN milliseconds of
 * running time from its start: the rate since the newest line at least
 * RATE_WINDOW_MS old (else since the start), and with a total, the
 * percentage and the time left at the mean rate so far.
 */
static void
running_figures(struct figures *fig, long long run)
{
	const struct sample *s = &pg.samples[0];
	size_t k, kept = pg.nsamples < SAMPLES ? pg.nsamples : SAMPLES;
	double left;

	for (k = 0; k < kept; k++) {
		s = &pg.samples[(pg.nsamples - 1 - k) % SAMPLES];
		if (s->ms <= run - RATE_WINDOW_MS)
			break;
	}
	fig->bytes = pg.bytes;
	fig->rate = run > s->ms ? (pg.bytes - s->bytes) * 1000.0 /
	    (run - s->ms) : -1;
	fig->percent = -1;
	fig->left_ms = -1;
	fig->took_ns = -1;
	if (pg.total > 0 && pg.bytes <= pg.total) {
		fig->percent = pg.bytes * 100.0 / pg.total;
		left = pg.bytes > 0 ? (pg.total - pg.bytes) * (double)run /
		    pg.bytes : -1;
		/* Past LEFT_MAX_MS, a guess from a SIZE far too large. */
		if (left >= 0 && left < LEFT_MAX_MS)
			fig->left_ms = left;
	}
}

/* Keep the figures at RUN, for the rates of the lines after. */
static void
keep_sample(long long run)
{
	pg.samples[pg.nsamples % SAMPLES] = (struct sample){ run, pg.bytes };
	pg.nsamples++;
}

/*
 * The line due at NOW on the coarse clock.  In the background nothing
 * is drawn, and the line drawn before is no longer where the cursor is.
 */
static void
tick(long long now)
{
	long long run = now - pg.start_ns / 1000000 - stopped() / 1000000;
	struct figures fig;

	if (run < 0)
		run = 0;	/* the coarse clock is up to a tick behind */
	running_figures(&fig, run);
	keep_sample(run);
	pg.due_ms = now + (pg.state == D_LOG ? LOG_EVERY_MS : TTY_EVERY_MS);
	if (pg.state == D_LOG)
		draw_log(&fig);
	else if (foreground())
		draw_tty(&fig, 0, 1);
	else
		pg.state = D_TTY_CLEAR;
}

void
progress_update(void *ctx, long long bytes)
{
	long long now;

	(void)ctx;
	pg.bytes = bytes;
	if (pg.state == D_OFF || (now = now_ms()) < pg.due_ms)
		return;
	tick(now);
}

void
progress_break(void)
{
	if (pg.state != D_TTY_DRAWN)
		return;
	if (!foreground())
		pg.state = D_TTY_CLEAR;
	else
		pg.state = put("\n", 1, 1) == 0 ? D_TTY_CLEAR : D_OFF;
}

/*
 * At exit: the final line, whatever the copy came to, its time on the
 * fine clock (never less than the clock can tell), so that a copy
 * shorter than a tick of the coarse one still has a time and a rate.
 */
static void
progress_end(void)
{
	struct figures fig = { .bytes = pg.bytes, .percent = -1,
	    .left_ms = -1 };
	struct timespec res;
	long long least = 1;

	if (pg.state == D_OFF)
		return;
	if (clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 &&
	    res.tv_nsec > 1)
		least = res.tv_nsec;
	fig.took_ns = now_ns() - pg.start_ns - stopped();
	if (fig.took_ns < least)
		fig.took_ns = least;
	fig.rate = pg.bytes * 1e9 / fig.took_ns;
	if (pg.state == D_LOG)
		draw_log(&fig);
	else
		draw_tty(&fig, 1, foreground());
	pg.state = D_OFF;
}

/*
 * Return 1 if standard error can show the lines: it is open, and is not
 * the file standard output is, where they would land in the data.
 */
static int
stderr_apart(void)
{
	struct stat err, out;

	if (fcntl(STDERR_FILENO, F_GETFL) == -1)
		return 0;
	return fstat(STDERR_FILENO, &err) == -1 ||
	    fstat(STDOUT_FILENO, &out) == -1 ||
	    err.st_dev != out.st_dev || err.st_ino != out.st_ino;
}

/*
 * Count the time stopped by ^Z from now on, unless SIGTSTP is not at
 * its default (ignored: ^Z does not stop; handled: not ours to take).
 */
static void
watch_stops(void)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESTART };
	struct sigaction old;

	if (sigaction(SIGTSTP, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
	    !(old.sa_flags & SA_SIGINFO))
		sigaction(SIGTSTP, &sa, NULL);
}

void
progress_expect(const char *arg)
{
	pg.hint = cmd_size_arg(arg);
}

void
progress_start(off_t total)
{
	if (!stderr_apart())
		return;
	pg.total = pg.hint != -1 ? pg.hint : total;
	pg.start_ns = now_ns();
	keep_sample(0);
	if (isatty(STDERR_FILENO)) {
		pg.state = D_TTY_CLEAR;
		pg.pgrp = getpgrp();
		pg.due_ms = pg.start_ns / 1000000 + TTY_EVERY_MS;
	} else {
		pg.state = D_LOG;
		pg.due_ms = pg.start_ns / 1000000 + LOG_EVERY_MS;
	}
	watch_stops();
	atexit(progress_end);
}

off_t
progress_file_left(int fd)
{
	struct stat st;
	off_t at;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (at = lseek(fd, 0, SEEK_CUR)) == -1)
		return -1;
	return at < st.st_size ? st.st_size - at : 0;
}
