/*
 * --progress: the line on standard error that says how far a copy has
 * come (progress.h).  One display a process: the commands copy once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/*
 * How often a line is drawn: redrawn in place on a terminal, a line of
 * its own elsewhere (a log), where a line every few seconds is plenty.
 * man/cat.1 and man/tee.1 give these figures.
 */
#define TTY_EVERY_MS	200
#define LOG_EVERY_MS	5000

/* The longest line: the figures of the largest copy fit in it. */
#define LINE_MAX_LEN	160

enum display {
	D_OFF,		/* nothing shown: not asked, no standard error,
			   or a write to it failed */
	D_LOG,		/* standard error is no terminal: whole lines */
	D_TTY_CLEAR,	/* a terminal, its cursor at the start of a line */
	D_TTY_DRAWN	/* a terminal, a line drawn and not ended */
};

static struct {
	enum display state;
	off_t total;		/* the bytes the copy moves, or -1 */
	off_t bytes;		/* copied so far, as the engine said */
	long long start_ms;	/* when the copy started */
	long long due_ms;	/* when the next line is drawn */
	long long shown_ms;	/* when the last line was, and ... */
	off_t shown_bytes;	/* ... at how many bytes */
	size_t drawn_len;	/* the length of the line on the terminal */
	size_t width;		/* the terminal's columns, or 0 */
} pg;

/*
 * The process's clock in milliseconds.  The coarse clock is read from
 * memory the kernel shares (the vDSO) on every clock source, where the
 * precise one makes a system call on some; a tick's precision is
 * plenty for lines drawn every TTY_EVERY_MS.
 */
static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Write LEN bytes of S to standard error.  A write that fails must
 * neither end the process nor leave a signal for the engine to find:
 * SIGPIPE and SIGXFSZ are blocked for it, and one it raised is taken
 * back.  Return 0, or -1 if the line did not go out whole.
 */
static int
put(const char *s, size_t len)
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

/* Append to BUF, of LINE_MAX_LEN bytes and holding *LEN, what FMT says. */
static void
append(char *buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf + *len, LINE_MAX_LEN - *len, fmt, ap);
	va_end(ap);
	if (k > 0)
		*len += (size_t)k < LINE_MAX_LEN - *len ? (size_t)k :
		    LINE_MAX_LEN - 1 - *len;
}

/* Append V bytes in binary units to BUF, in three figures: "812 MiB",
 * "1.50 GiB", "0.40 B" (a rate). */
static void
append_size(char *buf, size_t *len, double v)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (v >= 1023.5 && u < (int)sizeof units - 2) {
		v /= 1024;
		u++;
	}
	/* A whole number of bytes (none: a copy that moved nothing) as
	 * it is. */
	if (u < 0 && v == (double)(long long)v)
		append(buf, len, "%.0f", v);
	else
		append(buf, len, v < 9.995 ? "%.2f" : v < 99.95 ? "%.1f" :
		    "%.0f", v);
	if (u < 0)
		append(buf, len, " B");
	else
		append(buf, len, " %ciB", units[u]);
}

/* Append a duration of MS milliseconds to BUF: M:SS, or H:MM:SS. */
static void
append_time(char *buf, size_t *len, long long ms)
{
	long long s = ms / 1000;

	if (s >= 3600)
		append(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60,
		    s % 60);
	else
		append(buf, len, "%lld:%02lld", s / 60, s % 60);
}

/*
 * Make the line for NOW into BUF; return its length.  A line while it
 * copies: the bytes, the rate since the last line, and with a TOTAL,
 * the percentage and the time left at the rate so far.  The final one:
 * the bytes, the time it took and its rate.
 */
static size_t
make_line(char *buf, long long now, int final)
{
	long long since = final ? pg.start_ms : pg.shown_ms;
	off_t from = final ? 0 : pg.shown_bytes;
	long long all = now - pg.start_ms;
	size_t len = 0;

	append(buf, &len, "%lld byte%s", (long long)pg.bytes,
	    pg.bytes == 1 ? "" : "s");
	if (pg.bytes >= 1024) {
		append(buf, &len, " (");
		append_size(buf, &len, pg.bytes);
		append(buf, &len, ")");
	}
	append(buf, &len, " copied");
	if (final) {
		append(buf, &len, " in ");
		append_time(buf, &len, all);
	}
	if (now > since) {
		append(buf, &len, ", ");
		append_size(buf, &len, (pg.bytes - from) * 1000.0 / (now - since));
		append(buf, &len, "/s");
	}
	if (!final && pg.total > 0 && pg.bytes <= pg.total) {
		append(buf, &len, ", %d%%", (int)(pg.bytes * 100.0 / pg.total));
		if (pg.bytes > 0) {
			append(buf, &len, ", ");
			append_time(buf, &len, (pg.total - pg.bytes) *
			    (double)all / pg.bytes);
			append(buf, &len, " left");
		}
	}
	return len;
}

/*
 * Draw the line for NOW: in place of the last on a terminal (the rest
 * of a longer one blanked, cut to the terminal's width so that it never
 * wraps), or as a line of its own.  The final line ends the display.
 */
static void
draw(long long now, int final)
{
	char line[1 + LINE_MAX_LEN + LINE_MAX_LEN + 1];
	size_t len = 1, k;
	int tty = pg.state != D_LOG;

	line[0] = '\r';
	k = make_line(line + 1, now, final);
	if (tty && pg.width > 1 && k > pg.width - 1)
		k = pg.width - 1;
	len += k;
	if (tty && pg.state == D_TTY_DRAWN && pg.drawn_len > k) {
		memset(line + len, ' ', pg.drawn_len - k);
		len += pg.drawn_len - k;
	}
	if (final || !tty)
		line[len++] = '\n';
	pg.shown_ms = now;
	pg.shown_bytes = pg.bytes;
	if (put(tty ? line : line + 1, tty ? len : len - 1) == -1) {
		pg.state = D_OFF;
		return;
	}
	if (tty) {
		pg.state = final ? D_TTY_CLEAR : D_TTY_DRAWN;
		pg.drawn_len = k;
	}
}

void
progress_update(void *ctx, long long bytes)
{
	long long now;

	(void)ctx;
	pg.bytes = bytes;
	if (pg.state == D_OFF || (now = now_ms()) < pg.due_ms)
		return;
	draw(now, 0);
	pg.due_ms = now + (pg.state == D_LOG ? LOG_EVERY_MS : TTY_EVERY_MS);
}

void
progress_break(void)
{
	if (pg.state == D_TTY_DRAWN)
		pg.state = put("\n", 1) == 0 ? D_TTY_CLEAR : D_OFF;
}

/* At exit: the final line, whatever the copy came to. */
static void
progress_end(void)
{
	if (pg.state != D_OFF)
		draw(now_ms(), 1);
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

void
progress_start(off_t total)
{
	struct winsize ws;

	if (!stderr_apart())
		return;
	pg.total = total;
	pg.start_ms = pg.shown_ms = now_ms();
	if (isatty(STDERR_FILENO)) {
		pg.state = D_TTY_CLEAR;
		pg.due_ms = pg.start_ms + TTY_EVERY_MS;
		if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0)
			pg.width = ws.ws_col;
	} else {
		pg.state = D_LOG;
		pg.due_ms = pg.start_ms + LOG_EVERY_MS;
	}
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
