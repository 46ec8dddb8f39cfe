/*
 * What a line of --progress says (progress.h's display draws it): the
 * figures of a copy made into text, in the widest of its forms that
 * fits the room there is.
 */
#ifndef PROGRESS_LINE_H
#define PROGRESS_LINE_H

#include <stddef.h>
#include <sys/types.h>

/* The longest line, of the widest form: the figures of any copy fit. */
#define LINE_MAX_LEN	160

/* A copy's figures, as a line tells them. */
struct figures {
	off_t bytes;		/* copied so far */
	double rate;		/* bytes a second, or < 0: none to tell */
	int percent;		/* of the size expected, or -1: unknown */
	long long left_ms;	/* time left, or -1: unknown */
	long long took_ns;	/* the final line's: how long the copy
				   took; -1 in a line while it copies */
};

/*
 * Make the line for FIG into BUF, of LINE_MAX_LEN bytes, in the widest
 * form that is at most ROOM columns long (LINE_MAX_LEN: any), and
 * return its length.  Narrower forms drop the exact byte count first, then the
 * words, then the size in units: the rate, the percentage and the time
 * left, or a final line's time and mean rate, go last.  Where even the
 * narrowest form does not fit, it is cut to ROOM.
 */
size_t line_make(char *buf, const struct figures *fig, size_t room);

#endif
