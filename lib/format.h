/*
 * Private to libsluice: cat's text transformations (-n -b -s -E -T -v),
 * as pure functions over memory.  No I/O: lib/concat.c reads, calls
 * fmt_run on each buffer it read, and writes what comes out.
 */
#ifndef SLUICE_FORMAT_H
#define SLUICE_FORMAT_H

#include <stddef.h>

/*
 * The state of one concatenation, carried from buffer to buffer and from
 * input to input, as GNU cat carries it: the line number, whether the
 * next byte starts a line, and how many newlines ended the text so far
 * (what -s needs to squeeze).
 */
struct fmt {
	unsigned flags;		/* SL_CAT_* of sluice.h */
	char num[24];		/* the line number as GNU prints it, digits */
	size_t numlen;		/* its length */
	int newlines;		/* newlines in a row just seen, GNU's rule */
};

/* Start the transformation FLAGS asks for (SL_CAT_*). */
void fmt_init(struct fmt *f, unsigned flags);

/* The most bytes fmt_run writes for LEN bytes of input. */
size_t fmt_room(size_t len);

/*
 * Transform the LEN bytes at IN into OUT, which has room for
 * fmt_room(LEN) bytes; return how many bytes were written there.
 */
size_t fmt_run(struct fmt *f, const char *in, size_t len, char *out);

#endif
