/* cat's text transformations over memory: numbering, squeezing, ^ and M-. */
#include <stdint.h>
#include <string.h>

#include "sluice.h"
#include "format.h"

/* Index in num of the tab after the digits, and of the last digit. */
#define NUM_TAB		18
#define NUM_LAST	17

/* Widest line number GNU prints (18 digits and a tab), and widest byte. */
#define NUM_MAX		19
#define VIS_MAX		4

static void cache_num(struct fmt *);

void
fmt_init(struct fmt *f, unsigned flags)
{
	int c;

	f->flags = flags;
	memset(f->num, ' ', NUM_LAST);
	f->num[NUM_LAST] = '0';
	f->num[NUM_TAB] = '\t';
	f->num[NUM_TAB + 1] = '\0';
	f->first = NUM_LAST;
	f->print = NUM_TAB - 6;
	f->newlines = 0;
	f->cr = 0;
	cache_num(f);
	/*
	 * GNU's -v: controls as ^X, DEL as ^?, the high half as M- and the
	 * low half's notation; TAB and LF stand.  TAB becomes ^I under -T,
	 * with or without -v.
	 */
	for (c = 0; c < 256; c++) {
		char *s = f->vis[c];
		int n = 0, low = c & 0x7f;

		memset(s, 0, VIS_MAX);
		if (!(flags & SL_CAT_SHOW_NONPRINTING) || c == '\t' ||
		    c == '\n') {
			s[n++] = c;
		} else {
			if (c >= 0x80) {
				s[n++] = 'M';
				s[n++] = '-';
			}
			if (low < 0x20) {
				s[n++] = '^';
				s[n++] = low + '@';
			} else if (low == 0x7f) {
				s[n++] = '^';
				s[n++] = '?';
			} else
				s[n++] = low;
		}
		if (c == '\n' && (flags & SL_CAT_SHOW_ENDS)) {
			s[0] = '$';
			s[1] = '\n';
			n = 2;
		}
		if (c == '\t' && (flags & SL_CAT_SHOW_TABS)) {
			s[0] = '^';
			s[1] = 'I';
			n = 2;
		}
		f->vislen[c] = n;
	}
}

size_t
fmt_room(size_t len)
{
	/* The first byte of a line may bring its number. */
	return len * (NUM_MAX + VIS_MAX) + 2;
}

/* Count one more line, as GNU's next_line_num() does. */
static void
next_num(struct fmt *f)
{
	int i = NUM_LAST;

	do {
		if (f->num[i] < '9') {
			f->num[i]++;
			return;
		}
		f->num[i--] = '0';
	} while (i >= f->first);
	/* 18 digits full: GNU marks the overflow with '>' and wraps. */
	if (f->first > 0)
		f->num[--f->first] = '1';
	else
		f->num[0] = '>';
	if (f->first < f->print)
		f->print--;
}

/*
 * Cache the first 8 bytes of the number as printed in f->word, and in
 * f->unit what adds one to its last digit there.  The cache is why the
 * common line costs one byte test and one 8-byte store: reading back a
 * number just stored a byte at a time would stall the CPU.
 */
static void
cache_num(struct fmt *f)
{
	int k = NUM_LAST - f->print;

	memcpy(&f->word, f->num + f->print, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	k = 7 - k;
#endif
	f->unit = (uint64_t)1 << (8 * k);
}

/* Write the next line number at O; return the end of what was written. */
static inline char *
put_num(struct fmt *f, char *o)
{
	size_t w = NUM_TAB + 1 - f->print;

	/*
	 * Up to 9999999 lines the field is at most 8 bytes: store the
	 * cached word and let the next byte out (there is always one)
	 * cover the spare.
	 */
	if (w <= 8 && f->num[NUM_LAST] < '9') {
		f->num[NUM_LAST]++;
		f->word += f->unit;
		memcpy(o, &f->word, 8);
		return o + w;
	}
	next_num(f);
	w = NUM_TAB + 1 - f->print;
	if (w <= 8) {
		cache_num(f);
		memcpy(o, &f->word, 8);
	} else
		memcpy(o, f->num + f->print, w);
	return o + w;
}

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

#ifdef __SSE2__
#include <emmintrin.h>

/* The scan looks at this many bytes at a time. */
#define BLOCK	16

/*
 * The bytes of P[0..BLOCK) that scan S stops at, as a mask: bit I for
 * P[I]; mask_index says which byte a bit stands for.
 */
static inline uint64_t
stop_mask(const unsigned char *p, unsigned s)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i m = _mm_setzero_si128();

	if (s & S_VIS) {
		/* Signed: the high half counts as below ' ' too. */
		m = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(' ')),
		    _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
		if (!(s & S_TAB))
			m = _mm_andnot_si128(_mm_cmpeq_epi8(v,
			    _mm_set1_epi8('\t')), m);
		if (!(s & S_LF))
			m = _mm_andnot_si128(_mm_cmpeq_epi8(v,
			    _mm_set1_epi8('\n')), m);
	} else {
		if (s & S_LF)
			m = _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'));
		if (s & S_TAB)
			m = _mm_or_si128(m, _mm_cmpeq_epi8(v,
			    _mm_set1_epi8('\t')));
		if (s & S_CR)
			m = _mm_or_si128(m, _mm_cmpeq_epi8(v,
			    _mm_set1_epi8('\r')));
	}
	return (unsigned)_mm_movemask_epi8(m);
}

/* Index of the byte the lowest bit of the nonzero mask M stands for. */
static inline unsigned
mask_index(uint64_t m)
{
	return __builtin_ctzll(m);
}

#else

#define BLOCK	8
#define ONES	0x0101010101010101ull
#define HIGHS	0x8080808080808080ull

/*
 * Per-byte tests on a word: the high bit of each byte of the result says
 * whether that byte of X passes.  Exact for every byte (the sums never
 * carry from one byte into the next), so any set bit may be trusted.
 */
static inline uint64_t
byte_eq(uint64_t x, unsigned char c)
{
	uint64_t v = x ^ (ONES * c);

	return ~(((v & ~HIGHS) + ~HIGHS) | v) & HIGHS;
}

/* Bytes below ' ' or from DEL up. */
static inline uint64_t
byte_ctl(uint64_t x)
{
	uint64_t low = ~((x & ~HIGHS) + ONES * (0x80 - ' ')) & ~x & HIGHS;

	return low | ((((x & ~HIGHS) + ONES) | x) & HIGHS);
}

/* The bytes of P[0..BLOCK) that scan S stops at: the high bit of each. */
static inline uint64_t
stop_mask(const unsigned char *p, unsigned s)
{
	uint64_t x, m = 0;

	memcpy(&x, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	if (s & S_VIS) {
		m = byte_ctl(x);
		if (!(s & S_TAB))
			m &= ~byte_eq(x, '\t');
		if (!(s & S_LF))
			m &= ~byte_eq(x, '\n');
	} else {
		if (s & S_LF)
			m = byte_eq(x, '\n');
		if (s & S_TAB)
			m |= byte_eq(x, '\t');
		if (s & S_CR)
			m |= byte_eq(x, '\r');
	}
	return m;
}

/* Index of the byte the lowest bit of the nonzero mask M stands for. */
static inline unsigned
mask_index(uint64_t m)
{
	return __builtin_ctzll(m) / 8;
}

#endif

/*
 * Copy the N < BLOCK bytes at Q to O, as a block when the input has
 * one there (the spare bytes land where later output goes).
 */
static inline void
copy_short(char *o, const unsigned char *q, const unsigned char *end,
    size_t n)
{
	if (end - q >= BLOCK)
		memcpy(o, q, BLOCK);
	else
		memcpy(o, q, n);
}

/*
 * Copy text at *PP into O as scan S and the table say, up to END or (if
 * S has S_LINES) the next LF; leave *PP there and return the end of the
 * output.  A block without stops is stored whole.  In one with stops,
 * each stretch between them is stored as a block too and the output
 * moves on by the stretch's length (fmt_room's slack allows the spare);
 * the stops come from the block's mask, so that the next one is known
 * before this one is written.
 */
static inline __attribute__((always_inline)) char *
run(struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
	const unsigned char *p = *pp, *b, *c;
	uint64_t bits;

	while (end - p >= BLOCK) {
		bits = stop_mask(p, s);
		memcpy(o, p, BLOCK);
		if (bits == 0) {
			p += BLOCK;
			o += BLOCK;
			continue;
		}
		b = p;
		do {
			c = b + mask_index(bits);
			bits &= bits - 1;
			copy_short(o, p, end, c - p);
			o += c - p;
			p = c;
			if ((s & S_LINES) && *c == '\n')
				goto done;
			if ((s & S_CR) && *c == '\r') {
				/* ^M before LF; held if LF may yet follow. */
				if (++p == end) {
					f->cr = 1;
					goto done;
				}
				if (*p == '\n') {
					*o++ = '^';
					*o++ = 'M';
				} else
					*o++ = '\r';
				continue;
			}
			memcpy(o, f->vis[*c], VIS_MAX);
			o += f->vislen[*c];
			p = c + 1;
		} while (bits);
		copy_short(o, p, end, b + BLOCK - p);
		o += b + BLOCK - p;
		p = b + BLOCK;
	}
	/* The last bytes of the buffer, one at a time. */
	for (; p < end; p++) {
		if ((s & S_LINES) && *p == '\n')
			break;
		if ((s & S_CR) && *p == '\r') {
			if (p + 1 == end) {
				f->cr = 1;
				p++;
				break;
			}
			if (p[1] == '\n') {
				*o++ = '^';
				*o++ = 'M';
			} else
				*o++ = '\r';
			continue;
		}
		memcpy(o, f->vis[*p], VIS_MAX);
		o += f->vislen[*p];
	}
done:
	*pp = p;
	return o;
}

/*
 * fmt_run for scan S, with the options that need lines (-n -b -s -E):
 * GNU's loop, with its state (f->newlines) kept as GNU keeps it.
 */
static inline __attribute__((always_inline)) size_t
lines(struct fmt *f, unsigned s, const unsigned char *in,
    const unsigned char *end, char *out)
{
	const unsigned char *p = in;
	unsigned fl = f->flags;
	int number = (fl & (SL_CAT_NUMBER | SL_CAT_NUMBER_NONBLANK)) != 0;
	int number_empty = number && !(fl & SL_CAT_NUMBER_NONBLANK);
	int squeeze = (fl & SL_CAT_SQUEEZE) != 0;
	int ends = (fl & SL_CAT_SHOW_ENDS) != 0;
	/* -E shows the CR of a CR LF as ^M, as GNU 9.1 does; -v always. */
	int crlf = ends && !(s & S_VIS);
	int nl = f->newlines;
	char *o = out;

	while (p < end) {
		if (nl >= 0) {
			/* At the start of a line: empty ones, then a number. */
			if (*p == '\n') {
				p++;
				if (++nl >= 2) {
					nl = 2;
					if (squeeze)
						continue;
				}
				if (number_empty)
					o = put_num(f, o);
				if (ends)
					*o++ = '$';
				*o++ = '\n';
				continue;
			}
			if (number)
				o = put_num(f, o);
			nl = -1;
		}
		o = run(f, s, &p, end, o);
		/* A CR just before LF, or at the end where LF may follow. */
		if (crlf && p > in && p[-1] == '\r') {
			if (p == end) {
				o--;
				f->cr = 1;
				break;
			}
			o[-1] = '^';
			*o++ = 'M';
		}
		if (p == end)
			break;
		p++;
		if (ends)
			*o++ = '$';
		*o++ = '\n';
		nl = 0;
	}
	f->newlines = nl;
	return o - out;
}

size_t
fmt_run(struct fmt *f, const char *in, size_t len, char *out)
{
	const unsigned char *p = (const unsigned char *)in, *end = p + len;
	unsigned fl = f->flags;
	unsigned s = (fl & SL_CAT_SHOW_NONPRINTING ? S_VIS : 0) |
	    (fl & SL_CAT_SHOW_TABS ? S_TAB : 0);
	char *o = out;

	if (f->cr) {
		f->cr = 0;
		if (len > 0 && *p == '\n') {
			*o++ = '^';
			*o++ = 'M';
		} else
			*o++ = '\r';
	}
	if (!(fl & (SL_CAT_NUMBER | SL_CAT_NUMBER_NONBLANK | SL_CAT_SQUEEZE))) {
		/* Lines do not matter: bytes map one by one. */
		if (fl & SL_CAT_SHOW_ENDS)
			s |= S_LF | (s & S_VIS ? 0 : S_CR);
		/* One copy of the loop for each scan, its tests folded. */
		switch (s) {
		case 0:
			memcpy(o, p, len);
			return o + len - out;
		case S_TAB:
			o = run(f, S_TAB, &p, end, o);
			break;
		case S_VIS:
			o = run(f, S_VIS, &p, end, o);
			break;
		case S_VIS | S_TAB:
			o = run(f, S_VIS | S_TAB, &p, end, o);
			break;
		case S_LF | S_CR:
			o = run(f, S_LF | S_CR, &p, end, o);
			break;
		case S_LF | S_CR | S_TAB:
			o = run(f, S_LF | S_CR | S_TAB, &p, end, o);
			break;
		case S_LF | S_VIS:
			o = run(f, S_LF | S_VIS, &p, end, o);
			break;
		default:
			o = run(f, S_LF | S_VIS | S_TAB, &p, end, o);
			break;
		}
		return o - out;
	}
	switch (s) {
	case 0:
		return o - out + lines(f, S_LINES | S_LF, p, end, o);
	case S_TAB:
		return o - out + lines(f, S_LINES | S_LF | S_TAB, p, end, o);
	case S_VIS:
		return o - out + lines(f, S_LINES | S_LF | S_VIS, p, end, o);
	default:
		return o - out + lines(f, S_LINES | S_LF | S_VIS | S_TAB, p,
		    end, o);
	}
}
