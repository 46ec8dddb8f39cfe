/*
 * lib-format.h: what the unit tests of cat's text transformations
 * (lib/format.c) share: a plain model of GNU cat's loop, byte at a
 * time, and fmt_run checked against it at every SIMD level, cut into
 * buffers anywhere, each call's output held to fmt_room.
 *
 * Include this after defining _GNU_SOURCE.
 */
#ifndef LIB_FORMAT_H
#define LIB_FORMAT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spate.h"
#include "format.h"
#include "tap.h"

#define ALL_FLAGS	0x40	/* every combination of the six SPATE_CAT_* */
#define GUARD		64

/*
 * The highest SIMD level the tests let fmt_run use, whatever this CPU
 * has: the cases that at_every_level runs lower it, down to the
 * portable loops; the others run at the CPU's own.
 */
static enum simd_level top = SIMD_AVX512;

/*
 * Run CHECK at each SIMD level from the highest down: as on a CPU
 * without AVX-512, then without AVX2 either.  TOP is put back after.
 */
static inline void
at_every_level(void (*check)(void))
{
	static const enum simd_level levels[] = { SIMD_AVX512, SIMD_AVX2,
	    SIMD_PORTABLE };
	size_t i;

	for (i = 0; i < sizeof levels / sizeof *levels; i++) {
		top = levels[i];
		printf("# at SIMD level %d at most\n", (int)top);
		check();
	}
	top = SIMD_AVX512;
}

/* A growing output buffer. */
struct buf {
	char *s;
	size_t len, cap;
};

static inline void
die(const char *what)
{
	perror(what);
	exit(2);
}

static inline void
put(struct buf *b, const char *s, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		if ((b->s = realloc(b->s, b->cap)) == NULL)
			die("realloc");
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
}

static inline void
puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/*
 * The model: GNU cat's rules for the whole TEXT of LEN bytes at once,
 * under FLAGS; line numbers printed with printf.
 */
static inline void
model(unsigned flags, const unsigned char *text, size_t len, struct buf *b)
{
	int number = (flags & (SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK)) != 0;
	int number_all = number && !(flags & SPATE_CAT_NUMBER_NONBLANK);
	int v = (flags & SPATE_CAT_SHOW_NONPRINTING) != 0;
	int t = (flags & SPATE_CAT_SHOW_TABS) != 0;
	int e = (flags & SPATE_CAT_SHOW_ENDS) != 0;
	int nl = 0;
	unsigned long long n = 0;
	char tmp[32];
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned c = text[i];

		if (c == '\n') {
			if (++nl > 0) {
				if (nl >= 2) {
					nl = 2;
					if (flags & SPATE_CAT_SQUEEZE)
						continue;
				}
				if (number_all) {
					snprintf(tmp, sizeof tmp, "%6llu\t", ++n);
					puts_(b, tmp);
				}
			}
			if (e)
				puts_(b, "$");
			puts_(b, "\n");
			continue;
		}
		if (nl >= 0 && number) {
			snprintf(tmp, sizeof tmp, "%6llu\t", ++n);
			puts_(b, tmp);
		}
		nl = -1;
		if (c == '\t') {
			puts_(b, t ? "^I" : "\t");
		} else if (c == '\r' && e && i + 1 < len && text[i + 1] == '\n') {
			puts_(b, "^M");
		} else if (!v) {
			tmp[0] = c;
			put(b, tmp, 1);
		} else {
			if (c >= 0x80) {
				puts_(b, "M-");
				c -= 0x80;
			}
			if (c < 0x20) {
				tmp[0] = '^';
				tmp[1] = c + 64;
				put(b, tmp, 2);
			} else if (c == 0x7f) {
				puts_(b, "^?");
			} else {
				tmp[0] = c;
				put(b, tmp, 1);
			}
		}
	}
}

/*
 * Run fmt_run under FLAGS over TEXT cut at the NCUTS offsets CUTS
 * (ascending), then fmt_finish; append the output to B.  Each call
 * gets exactly fmt_room (FMT_FINISH_MAX) bytes plus a guard that must
 * stay untouched.
 */
static inline int
run_cuts(unsigned flags, const unsigned char *text, size_t len,
    const size_t *cuts, size_t ncuts, struct buf *b)
{
	struct fmt f;
	size_t i, from = 0, ok = 1;

	fmt_init(&f, flags);
	fmt_use(&f, cpu_simd_level() < top ? cpu_simd_level() : top);
	for (i = 0; i <= ncuts + 1; i++) {
		size_t to = i < ncuts ? cuts[i] : len, room, n, g;
		char *out;

		room = i <= ncuts ? fmt_room(to - from) : FMT_FINISH_MAX;
		if ((out = malloc(room + GUARD)) == NULL)
			die("malloc");
		memset(out + room, 0x5a, GUARD);
		if (i <= ncuts)
			n = fmt_run(&f, (const char *)text + from, to - from,
			    out);
		else
			n = fmt_finish(&f, out);
		if (n > room)
			ok = 0;
		for (g = 0; g < GUARD; g++)
			if (out[room + g] != 0x5a)
				ok = 0;
		put(b, out, n);
		free(out);
		from = to;
	}
	return ok;
}

/* Whether TEXT under FLAGS, cut at CUTS, gives the model's output. */
static inline int
same(unsigned flags, const unsigned char *text, size_t len,
    const size_t *cuts, size_t ncuts)
{
	struct buf want = { 0 }, got = { 0 };
	int ok = run_cuts(flags, text, len, cuts, ncuts, &got);

	model(flags, text, len, &want);
	ok = ok && want.len == got.len &&
	    (want.len == 0 || memcmp(want.s, got.s, want.len) == 0);
	free(want.s);
	free(got.s);
	return ok;
}

#endif
