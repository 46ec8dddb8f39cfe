/*
 * Private to lib/format*.c: what cat's loops share across SIMD levels.
 * lib/format.c holds the portable loops, the line counter and the
 * dispatch; lib/format-avx2.c and lib/format-avx512.c the loops of their
 * instruction sets, each file compiled for its own.  Every level keeps
 * the rules below and is tested against the portable model.
 */
#ifndef SPATE_FORMAT_LOOPS_H
#define SPATE_FORMAT_LOOPS_H

#include <stdint.h>
#include <string.h>

#include "spate.h"
#include "format.h"

/* Index in num of the tab after the digits, and of the last digit. */
#define NUM_TAB		18
#define NUM_LAST	17

/* Widest line number GNU prints (18 digits and a tab), and widest byte. */
#define NUM_MAX		19
#define VIS_MAX		4

/*
 * What a scan of text stops at, for the table or the caller to deal
 * with: the bytes the options change.  Without -n -b -s, -E is a byte
 * mapping too (LF becomes "$\n"), so only those three need lines.
 */
#define S_LF	1	/* LF: -E, or lines */
#define S_TAB	2	/* TAB: -T */
#define S_VIS	4	/* controls but TAB and LF, DEL, the high half: -v */
#define S_CR	8	/* CR, which -E shows as ^M before LF */
#define S_LINES	16	/* a scan of one line: stop at LF and return */

/*
 * The scans of the byte mappings (no S_LINES) S can be: one case each,
 * each calling CASE with its scan as a constant, so that the loop CASE
 * inlines has its tests folded.  S 0 maps nothing; the caller sees to it.
 */
#define BYTE_SCANS(s, CASE)						\
	switch (s) {							\
	case S_TAB:		CASE(S_TAB);				\
	case S_VIS:		CASE(S_VIS);				\
	case S_VIS | S_TAB:	CASE(S_VIS | S_TAB);			\
	case S_LF | S_CR:	CASE(S_LF | S_CR);			\
	case S_LF | S_CR | S_TAB: CASE(S_LF | S_CR | S_TAB);		\
	case S_LF | S_VIS:	CASE(S_LF | S_VIS);			\
	default:		CASE(S_LF | S_VIS | S_TAB);		\
	}

/*
 * The CR rule, which every loop keeps and cites: under -E (without -v)
 * a CR just before LF is shown as ^M, as GNU 9.1 does, and any other CR
 * as itself; -v shows every CR as ^M, through the table.  A CR that ends
 * a buffer is held (f->cr) until the next buffer's first byte, or
 * fmt_finish, says which it is.
 *
 * Write at O the CR, before LF if BEFORE_LF; return the end.  A loop
 * that has copied the CR as itself already rewrites it with
 * put_cr(o - 1, 1).
 */
static inline char *
put_cr(char *o, int before_lf)
{
	if (before_lf) {
		*o++ = '^';
		*o++ = 'M';
	} else
		*o++ = '\r';
	return o;
}

/*
 * The N bytes at P one at a time, through the table and the CR rule,
 * for a block of scan S with a CR.  P[N] is there to look at.
 */
static inline __attribute__((always_inline)) char *
by_table(const struct fmt *f, unsigned s, const unsigned char *p, size_t n,
    char *o)
{
	const unsigned char *q;

	for (q = p; q < p + n; q++) {
		if ((s & S_CR) && *q == '\r') {
			o = put_cr(o, q[1] == '\n');
			continue;
		}
		memcpy(o, f->vis[*q], VIS_MAX);
		o += f->vislen[*q];
	}
	return o;
}

/*
 * Set U to what adds one to the digit at byte K (K < 16) of f->word,
 * the 16 bytes of the number as they lie in memory.
 */
static inline void
digit_unit(uint64_t u[2], int k)
{
	u[0] = u[1] = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	u[k / 8] = (uint64_t)1 << (8 * (7 - k % 8));
#else
	u[k / 8] = (uint64_t)1 << (8 * (k % 8));
#endif
}

/*
 * Write the next line number at O, when its last digit carries or it is
 * not cached: count on f->num and cache the result.  Return the end of
 * what was written.  (lib/format.c)
 */
char *fmt_put_num_carry(struct fmt *f, char *o);

/*
 * The loops of the SIMD levels.  Each takes the text at *PP up to END,
 * writes at O, leaves *PP where it stopped and returns the end of the
 * output; the portable loops of lib/format.c do what is left.
 */

/* lib/format-avx2.c: SIMD_AVX2 and up. */

/* Fill f->quad and f->quadlen, the tables of fmt_avx2_map. */
void fmt_avx2_init(struct fmt *f);

/* The byte mapping of scan S (no S_LINES, not 0), while more than 32
 * bytes are left. */
char *fmt_avx2_map(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o);

/* -n -b -s -E without -v -T, up to the last LF that leaves more than
 * 128 bytes after it. */
char *fmt_avx2_lines(struct fmt *f, const unsigned char **pp,
    const unsigned char *end, char *o);

/* -s alone, while 32 bytes or more are left. */
char *fmt_avx2_squeeze(struct fmt *f, const unsigned char **pp,
    const unsigned char *end, char *o);

/* lib/format-avx512.c: SIMD_AVX512.  As fmt_avx2_map. */
char *fmt_avx512_map(const struct fmt *f, unsigned s,
    const unsigned char **pp, const unsigned char *end, char *o);

#endif
