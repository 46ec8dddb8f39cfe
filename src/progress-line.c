/*
 * The text of a --progress line (progress-line.h).  English in every
 * locale: no catalog has these words (man/cat.1 and man/tee.1 say so).
 */
#include <stdarg.h>
#include <stdio.h>

#include "progress-line.h"

/*
 * What a form of the line shows beyond the rate, the percentage and the
 * time left (or the final line's time and rate), which every form has.
 */
enum {
	F_EXACT = 1,	/* "157286400 bytes" */
	F_SIZE = 2,	/* the same in units: "(150 MiB)", or alone */
	F_VERB = 4,	/* "copied" */
	F_WORDS = 8	/* ", " between the fields, "left" after the time */
};

/* The forms, widest first: the exact byte count goes first. */
static const unsigned forms[] = {
	F_EXACT | F_SIZE | F_VERB | F_WORDS,
	F_SIZE | F_VERB | F_WORDS,
	F_SIZE | F_WORDS,
	F_WORDS,
	0
};

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

/*
 * Append V, at least 0, to BUF with DECIMALS decimals after a '.',
 * whatever the locale's LC_NUMERIC says: the line is English, and a
 * decimal comma would read as the comma between two fields.
 */
static void
append_fixed(char *buf, size_t *len, double v, int decimals)
{
	long long scale = 1, n;
	int k;

	for (k = 0; k < decimals; k++)
		scale *= 10;
	n = (long long)(v * scale + 0.5);
	if (decimals == 0)
		append(buf, len, "%lld", n);
	else
		append(buf, len, "%lld.%0*lld", n / scale, decimals, n % scale);
}

/*
 * Append V bytes in binary units to BUF, in three figures at most, so
 * that two figures side by side are in the same unit when they are
 * close: "999 MiB", then "0.98 GiB", never "1001 MiB"; "0.40 B" (a
 * rate); a whole number of bytes under a thousand as it is.
 */
static void
append_size(char *buf, size_t *len, double v)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (v >= 999.5 && u < (int)sizeof units - 2) {
		v /= 1024;
		u++;
	}
	if (u < 0 && v == (double)(long long)v)
		append_fixed(buf, len, v, 0);
	else
		append_fixed(buf, len, v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0);
	if (u < 0)
		append(buf, len, " B");
	else
		append(buf, len, " %ciB", units[u]);
}

/* Append a duration of MS milliseconds to BUF: M:SS, or H:MM:SS. */
static void
append_clock(char *buf, size_t *len, long long ms)
{
	long long s = ms / 1000;

	if (s >= 3600)
		append(buf, len, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60,
		    s % 60);
	else
		append(buf, len, "%lld:%02lld", s / 60, s % 60);
}

/*
 * Append the time a copy took, NS nanoseconds, to BUF: under a minute
 * in seconds, to three figures and down to the nanosecond ("2.05 s",
 * "0.000031 s"), so that a short copy says more than 0:00; else M:SS or
 * H:MM:SS.
 */
static void
append_took(char *buf, size_t *len, long long ns)
{
	double s = ns / 1e9, x;
	int decimals = 1;

	if (s >= 59.95) {
		append_clock(buf, len, ns / 1000000);
		return;
	}
	if (s < 9.995) {
		decimals = 2;
		x = s;
		while (x < 0.9995 && decimals < 9) {
			x *= 10;
			decimals++;
		}
	}
	append_fixed(buf, len, s, decimals);
	append(buf, len, " s");
}

/* Append to BUF the line for FIG in the form of flags FORM. */
static size_t
make_form(char *buf, const struct figures *fig, unsigned form)
{
	const char *sep = form & F_WORDS ? ", " : " ";
	int final = fig->took_ns >= 0, any = 0;
	size_t len = 0;

	if (form & F_EXACT) {
		append(buf, &len, "%lld byte%s", (long long)fig->bytes,
		    fig->bytes == 1 ? "" : "s");
		if (fig->bytes >= 1024 && (form & F_SIZE)) {
			append(buf, &len, " (");
			append_size(buf, &len, fig->bytes);
			append(buf, &len, ")");
		}
		any = 1;
	} else if (form & F_SIZE) {
		append_size(buf, &len, fig->bytes);
		any = 1;
	}
	if (form & F_VERB)
		append(buf, &len, " copied");
	if (final) {
		append(buf, &len, !any ? "" : form & F_WORDS ? " in " : " ");
		append_took(buf, &len, fig->took_ns);
		any = 1;
	}
	if (fig->rate >= 0) {
		append(buf, &len, any ? sep : "");
		append_size(buf, &len, fig->rate);
		append(buf, &len, "/s");
		any = 1;
	}
	if (!final && fig->percent >= 0) {
		append(buf, &len, "%s%d%%", any ? sep : "", fig->percent);
		any = 1;
	}
	if (!final && fig->left_ms >= 0) {
		append(buf, &len, any ? sep : "");
		append_clock(buf, &len, fig->left_ms);
		if (form & F_WORDS)
			append(buf, &len, " left");
	}
	return len;
}

size_t
line_make(char *buf, const struct figures *fig, size_t room)
{
	size_t k, len = 0;

	for (k = 0; k < sizeof forms / sizeof *forms; k++) {
		len = make_form(buf, fig, forms[k]);
		if (len <= room)
			return len;
	}
	return room;
}
