/*
 * Private to libspate: cat's text transformations (-n -b -s -E -T -v),
 * as pure functions over memory.  No I/O: lib/concat.c reads, calls
 * fmt_run on each buffer it read and fmt_finish at the end of the text,
 * and writes what comes out.
 */
#ifndef SPATE_FORMAT_H
#define SPATE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "cpu.h"

/*
 * The state of one concatenation, carried from buffer to buffer and from
 * input to input, as GNU cat carries it: the line number, where the text
 * stands in its lines (what -n, -b and -s need), and a carriage return
 * that -E holds back until it sees whether a newline follows.
 */
struct fmt {
	unsigned flags;		/* SPATE_CAT_* of spate.h */
	enum simd_level level;	/* the loops in use */
	int level_set;		/* LEVEL decided: the CPU was asked */
	char num[40];		/* GNU's counter: 18 digit places, a tab,
				   and NULs, so 16 bytes from any place */
	int first;		/* index in num of the first digit */
	int print;		/* where printing starts: 6 wide at least */
	uint64_t word[2];	/* num's first 16 bytes as printed */
	uint64_t unit[2];	/* what adds 1 to the last digit in word */
	int newlines;		/* -1 inside a line, 0 at the start of one,
				   1 after an empty line, 2 after more */
	int cr;			/* a CR ended the last buffer (-E, no -v) */
	unsigned char vislen[256];	/* how each byte is shown: */
	char vis[256][4];		/* "M-^?", "^I", itself */
	unsigned char quad[256][16];	/* for each group of 4 bytes, by
					   the prefixes they take, the
					   shuffle that shows them
					   (SIMD_AVX2 and up) */
	unsigned char quadlen[256];	/* and how many bytes it shows */
};

/*
 * Start the transformation FLAGS asks for (SPATE_CAT_*).  Its SIMD level
 * is decided at the first long buffer: cpu_simd_level(), unless
 * fmt_use chose one first.
 */
void fmt_init(struct fmt *f, unsigned flags);

/* Make F use the loops of LEVEL (at most cpu_simd_level()) from now on. */
void fmt_use(struct fmt *f, enum simd_level level);

/*
 * The most bytes fmt_run writes for LEN bytes of input: a line number
 * and "M-^?" for each byte, and a carriage return held from before.
 */
size_t fmt_room(size_t len);

/* The most input bytes whose output surely fits in ROOM bytes: the
 * largest LEN with fmt_room(LEN) <= ROOM (0 if none). */
size_t fmt_fits(size_t room);

/*
 * Transform the LEN bytes at IN into OUT, which has room for
 * fmt_room(LEN) bytes; return how many bytes were written there.  A
 * carriage return that ends the text so far may be held back (-E shows
 * it as ^M only before a newline) until the next byte, or fmt_finish.
 * The same text fed in any split gives the same output.
 */
size_t fmt_run(struct fmt *f, const char *in, size_t len, char *out);

/* The most bytes fmt_finish writes. */
#define FMT_FINISH_MAX	1

/*
 * End the text (after the last input, not after each): write at OUT,
 * which has room for FMT_FINISH_MAX bytes, what F still holds back;
 * return how many bytes were written there.
 */
size_t fmt_finish(struct fmt *f, char *out);

#endif
