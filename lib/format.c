/*
 * cat's text transformations over memory (numbering, squeezing, ^ and
 * M-): the byte table, the line counter, the portable loops, and the
 * dispatch to the loops of the CPU's SIMD level (lib/format-avx2.c,
 * lib/format-avx512.c), which lib/format-loops.h describes.
 */
#include "format-loops.h"

static void cache_num(struct fmt *);

void
fmt_init(struct fmt *f, unsigned flags)
{
	int c;

	f->flags = flags;
	f->level = SIMD_PORTABLE;
	f->level_set = 0;
	memset(f->num, 0, sizeof f->num);
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
		if (!(flags & SPATE_CAT_SHOW_NONPRINTING) || c == '\t' ||
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
		if (c == '\n' && (flags & SPATE_CAT_SHOW_ENDS)) {
			s[0] = '$';
			s[1] = '\n';
			n = 2;
		}
		if (c == '\t' && (flags & SPATE_CAT_SHOW_TABS)) {
			s[0] = '^';
			s[1] = 'I';
			n = 2;
		}
		f->vislen[c] = n;
	}
}

/*
 * A buffer this long has the CPU asked which SIMD level the loops may
 * use; until one comes, the portable loops serve.  Asking costs two
 * cpuid, each of which traps to the hypervisor in a virtual machine:
 * more than `echo x | cat -n` takes for its text.
 */
#define ASK_CPU_AFTER	4096

void
fmt_use(struct fmt *f, enum simd_level level)
{
	f->level = level;
	f->level_set = 1;
#ifdef FORMAT_AVX
	if (level >= SIMD_AVX2)
		fmt_avx2_init(f);
#endif
}

/*
 * The slack this leaves (a byte of input rarely brings 23 bytes out) is
 * what lets the loops store whole blocks and numbers past the end of
 * what they mean to write: the next bytes out overwrite the spare.
 */
size_t
fmt_room(size_t len)
{
	/* The first byte of a line may bring its number. */
	return len * (NUM_MAX + VIS_MAX) + 2;
}

size_t
fmt_fits(size_t room)
{
	return room < 2 ? 0 : (room - 2) / (NUM_MAX + VIS_MAX);
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
 * Cache the first 16 bytes of the number as printed in f->word, and in
 * f->unit what adds one to its last digit there.  The cache is why the
 * common line costs one byte test and a 16-byte store: reading back a
 * number just stored a byte at a time would stall the CPU.  Numbers
 * wider than 16 bytes (past 10^15 lines) are not cached.
 */
static void
cache_num(struct fmt *f)
{
	int k = NUM_LAST - f->print;

	memcpy(f->word, f->num + f->print, 16);
	if (k < 16)
		digit_unit(f->unit, k);
	else
		f->unit[0] = f->unit[1] = 0;
}

char *
fmt_put_num_carry(struct fmt *f, char *o)
{
	size_t w;

	next_num(f);
	w = NUM_TAB + 1 - f->print;
	if (w <= 16) {
		cache_num(f);
		memcpy(o, &f->word[0], 8);
		memcpy(o + 8, &f->word[1], 8);
	} else
		memcpy(o, f->num + f->print, w);
	return o + w;
}

/* Write the next line number at O; return the end of what was written. */
static inline char *
put_num(struct fmt *f, char *o)
{
	size_t w = NUM_TAB + 1 - f->print;

	/*
	 * Up to 10^15 lines the field is at most 16 bytes: store the
	 * cached words and let the bytes out next cover the spare.  Two
	 * 8-byte stores, as the words were stored: one 16-byte load of
	 * them would wait for both stores to reach the cache.
	 */
	if (w <= 16 && f->num[NUM_LAST] < '9') {
		f->num[NUM_LAST]++;
		f->word[0] += f->unit[0];
		f->word[1] += f->unit[1];
		memcpy(o, &f->word[0], 8);
		memcpy(o + 8, &f->word[1], 8);
		return o + w;
	}
	return fmt_put_num_carry(f, o);
}

/*
 * The block scan of the portable loops: SSE2, 16 bytes at a time, where
 * the build has it (every x86-64 build); else 8 bytes in a word (SWAR),
 * which `make check-format-portable` builds and tests on x86-64 too.
 */
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

/* The scan looks at this many bytes at a time. */
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
 * The CR rule (lib/format-loops.h) for the CR at P: write it at *OP and
 * return 0, or hold it and return 1 if it ends the buffer.
 */
static inline int
take_cr(struct fmt *f, const unsigned char *p, const unsigned char *end,
    char **op)
{
	if (p + 1 == end) {
		f->cr = 1;
		return 1;
	}
	*op = put_cr(*op, p[1] == '\n');
	return 0;
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
				p = c + 1;
				if (take_cr(f, c, end, &o))
					goto done;
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
			if (take_cr(f, p, end, &o)) {
				p++;
				break;
			}
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
 * fmt_run for scan S, with the options that need lines (-n -b -s -E),
 * from P in the buffer that starts at IN: GNU's loop, with its state
 * (f->newlines) kept as GNU keeps it.
 */
static inline __attribute__((always_inline)) size_t
lines(struct fmt *f, unsigned s, const unsigned char *in,
    const unsigned char *p, const unsigned char *end, char *out)
{
	unsigned fl = f->flags;
	int number = (fl & (SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK)) != 0;
	int number_empty = number && !(fl & SPATE_CAT_NUMBER_NONBLANK);
	int squeeze = (fl & SPATE_CAT_SQUEEZE) != 0;
	int ends = (fl & SPATE_CAT_SHOW_ENDS) != 0;
	/* The CR rule: -v shows every CR through the table. */
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
		/* The CR rule, for a CR copied as itself: before LF, or
		 * held at the end. */
		if (crlf && p > in && p[-1] == '\r') {
			if (p == end) {
				o--;
				f->cr = 1;
				break;
			}
			o = put_cr(o - 1, 1);
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
	const unsigned char *start = (const unsigned char *)in, *p = start;
	const unsigned char *end = p + len;
	unsigned fl = f->flags;
	unsigned s = (fl & SPATE_CAT_SHOW_NONPRINTING ? S_VIS : 0) |
	    (fl & SPATE_CAT_SHOW_TABS ? S_TAB : 0);
	char *o = out;

	if (!f->level_set && len >= ASK_CPU_AFTER)
		fmt_use(f, cpu_simd_level());
	/* The CR rule: the next byte says what a held CR is. */
	if (f->cr && len > 0) {
		f->cr = 0;
		o = put_cr(o, *p == '\n');
	}
	if (!(fl & (SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK |
		    SPATE_CAT_SQUEEZE))) {
		/* Lines do not matter: bytes map one by one. */
		if (fl & SPATE_CAT_SHOW_ENDS)
			s |= S_LF | (s & S_VIS ? 0 : S_CR);
#ifdef FORMAT_AVX
		if (f->level >= SIMD_AVX512 && s != 0)
			o = fmt_avx512_map(f, s, &p, end, o);
		else if (f->level >= SIMD_AVX2 && s != 0)
			o = fmt_avx2_map(f, s, &p, end, o);
#endif
		if (s == 0) {
			memcpy(o, p, len);
			return o + len - out;
		}
		/* One copy of the loop for each scan, its tests folded. */
#define CASE(sc)	o = run(f, sc, &p, end, o); break
		BYTE_SCANS(s, CASE)
#undef CASE
		return o - out;
	}
	switch (s) {
	case 0:
#ifdef FORMAT_AVX
		if (f->level >= SIMD_AVX2 && fl == SPATE_CAT_SQUEEZE)
			o = fmt_avx2_squeeze(f, &p, end, o);
		else if (f->level >= SIMD_AVX2)
			o = fmt_avx2_lines(f, &p, end, o);
#endif
		return o - out + lines(f, S_LINES | S_LF, start, p, end, o);
	case S_TAB:
		return o - out + lines(f, S_LINES | S_LF | S_TAB, start, p, end,
		    o);
	case S_VIS:
		return o - out + lines(f, S_LINES | S_LF | S_VIS, start, p, end,
		    o);
	default:
		return o - out + lines(f, S_LINES | S_LF | S_VIS | S_TAB, start,
		    p, end, o);
	}
}

size_t
fmt_finish(struct fmt *f, char *out)
{
	if (!f->cr)
		return 0;
	/* The CR rule: a held CR that ends the text stands. */
	f->cr = 0;
	return put_cr(out, 0) - out;
}
