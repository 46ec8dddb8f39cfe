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
static int wide_cpu(void);
static void init_quad(struct fmt *);

void
fmt_init(struct fmt *f, unsigned flags)
{
	int c;

	f->flags = flags;
	f->wide = -1;
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

/*
 * A buffer this long has the CPU asked how wide the loops may go; until
 * one comes, the narrow loops serve.  Asking costs two cpuid, each of
 * which traps to the hypervisor in a virtual machine (10 us here): more
 * than `echo x | cat -n` takes for its text.
 */
#define WIDE_AFTER	4096

int
fmt_widest(void)
{
	static int known = -1;

	if (known < 0)
		known = wide_cpu();
	return known;
}

void
fmt_use(struct fmt *f, int wide)
{
	f->wide = wide;
	if (wide > 0)
		init_quad(f);
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
	f->unit[0] = f->unit[1] = 0;
	if (k >= 16)
		return;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	f->unit[k / 8] = (uint64_t)1 << (8 * (7 - k % 8));
#else
	f->unit[k / 8] = (uint64_t)1 << (8 * (k % 8));
#endif
}

/*
 * put_num when the last digit carries or the number is not cached:
 * count on f->num and cache the result.
 */
static char *
put_num_carry(struct fmt *f, char *o)
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
	return put_num_carry(f, o);
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
 * fmt_run for scan S, with the options that need lines (-n -b -s -E),
 * from P in the buffer that starts at IN: GNU's loop, with its state
 * (f->newlines) kept as GNU keeps it.
 */
static inline __attribute__((always_inline)) size_t
lines(struct fmt *f, unsigned s, const unsigned char *in,
    const unsigned char *p, const unsigned char *end, char *out)
{
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

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/*
 * The wide loops: AVX2, which the build does not assume (no -march),
 * so each function asks for it and fmt_init asks the CPU; BMI and
 * POPCNT come with every AVX2 CPU, but are asked for too.
 */
#define WIDE	__attribute__((target("avx2,bmi,popcnt")))

/* What the loops of lines look ahead for an LF: 4 loads of 32 bytes. */
#define LOOK	128

/*
 * Return how wide the CPU lets the loops go: 0 (SSE2), WIDE_AVX2 (AVX2,
 * BMI, POPCNT, and the kernel saves the AVX registers), WIDE_AVX512
 * (AVX-512 BW, VL, VBMI and VBMI2, BMI2, and the kernel saves the opmask
 * and ZMM registers).  Asked with cpuid, once, at the first long buffer
 * a transformation gets (fmt_widest), not with __builtin_cpu_supports,
 * whose libgcc constructor would run cpuid at every start of the
 * program: in a virtual machine each cpuid traps to the hypervisor, and
 * `echo x | cat` would pay for it.
 */
static int
wide_cpu(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_POPCNT) ||
	    !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return 0;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6)	/* XMM and YMM state */
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2) ||
	    !(b & bit_BMI))
		return 0;
	if ((lo & 0xe6) == 0xe6 && (b & bit_AVX512F) && (b & bit_AVX512BW) &&
	    (b & bit_AVX512VL) && (b & bit_BMI2) && (c & bit_AVX512VBMI) &&
	    (c & bit_AVX512VBMI2))
		return WIDE_AVX512;
	return WIDE_AVX2;
}

/*
 * For each group of 4 bytes, by which of them take a one-byte prefix
 * (bits 0-3 of G: "^" or "$") and which "M-" (bits 4-7), the pshufb
 * control that picks their output from 4 slots of 4 bytes, one a byte:
 * "M", "-", the prefix, the byte as shown last.
 */
static void
init_quad(struct fmt *f)
{
	int g, i, j;

	for (g = 0; g < 256; g++) {
		for (i = j = 0; i < 4; i++) {
			if (g >> (4 + i) & 1) {
				f->quad[g][j++] = 4 * i;
				f->quad[g][j++] = 4 * i + 1;
			}
			if (g >> i & 1)
				f->quad[g][j++] = 4 * i + 2;
			f->quad[g][j++] = 4 * i + 3;
		}
		f->quadlen[g] = j;
		while (j < 16)
			f->quad[g][j++] = 0x80;
	}
}

/* The control of init_quad for group G. */
#define QUAD(f, g) \
	_mm_loadu_si128((const __m128i *)(const void *)(f)->quad[g])

/* Store at O the group Q pressed by init_quad's G; return its end. */
static inline __attribute__((always_inline)) WIDE char *
put_quad(const struct fmt *f, char *o, __m128i q, unsigned g)
{
	_mm_storeu_si128((__m128i *)(void *)o, q);
	return o + f->quadlen[g];
}

/*
 * The N bytes at P one at a time, through the table, for a block with
 * a CR that -E shows only before LF.  P[N] is there to look at.
 */
static inline __attribute__((always_inline)) char *
by_table(const struct fmt *f, unsigned s, const unsigned char *p, size_t n,
    char *o)
{
	const unsigned char *q;

	for (q = p; q < p + n; q++) {
		if ((s & S_CR) && *q == '\r') {
			if (q[1] == '\n') {
				*o++ = '^';
				*o++ = 'M';
			} else
				*o++ = '\r';
			continue;
		}
		memcpy(o, f->vis[*q], VIS_MAX);
		o += f->vislen[*q];
	}
	return o;
}

/*
 * run() for the byte mappings (no S_LINES), 32 bytes at a time, while
 * more than 32 are left; the caller's run() does the rest.  Every byte
 * the options change is shown as "M-" if in the high half, then "^" or
 * "$" if a control, DEL, TAB under -T or LF under -E, then its low 7
 * bits (bit 6 flipped for a control or DEL: ^A, ^?, ^I).  So a block
 * of 32 is laid out as 32 slots "M-^c", and each group of 4 slots is
 * pressed together by one shuffle whose control only depends on which
 * prefixes its 4 bytes take: no branch per byte.
 */
static inline __attribute__((always_inline)) WIDE char *
wide_run(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
	const unsigned char *p = *pp;
	const __m256i lf = _mm256_set1_epi8('\n'), tab = _mm256_set1_epi8('\t');
	const __m256i seven = _mm256_set1_epi8(0x7f);
	const __m256i m_dash = _mm256_set1_epi16('M' | '-' << 8);
	__m256i v, low, ctl, nl, c, d, cd0, cd1, q0, q1, q2, q3;
	uint32_t x, y, ev, od;

	while (end - p > 32) {
		v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		nl = s & S_LF ? _mm256_cmpeq_epi8(v, lf) : _mm256_setzero_si256();
		if (s & S_VIS) {
			/* The high half as the low half after "M-". */
			low = _mm256_and_si256(v, seven);
			ctl = _mm256_or_si256(
			    _mm256_cmpgt_epi8(_mm256_set1_epi8(' '), low),
			    _mm256_cmpeq_epi8(low, seven));
			if (!(s & S_TAB))
				ctl = _mm256_andnot_si256(
				    _mm256_cmpeq_epi8(v, tab), ctl);
			ctl = _mm256_andnot_si256(_mm256_cmpeq_epi8(v, lf), ctl);
			y = _mm256_movemask_epi8(v);
		} else {
			low = v;
			ctl = s & S_TAB ? _mm256_cmpeq_epi8(v, tab) :
			    _mm256_setzero_si256();
			y = 0;
			if ((s & S_CR) && _mm256_movemask_epi8(
			    _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r')))) {
				o = by_table(f, s, p, 32, o);
				p += 32;
				continue;
			}
		}
		x = _mm256_movemask_epi8(_mm256_or_si256(ctl, nl));
		if ((x | y) == 0) {
			_mm256_storeu_si256((__m256i *)(void *)o, v);
			o += 32;
			p += 32;
			continue;
		}
		c = _mm256_xor_si256(_mm256_set1_epi8('^'),
		    _mm256_and_si256(nl, _mm256_set1_epi8('^' ^ '$')));
		d = _mm256_xor_si256(low,
		    _mm256_and_si256(ctl, _mm256_set1_epi8(0x40)));
		/* Slots of bytes 0-3 and 16-19 in q0, 4-7 and 20-23 in q1,
		 * 8-11 and 24-27 in q2, 12-15 and 28-31 in q3. */
		cd0 = _mm256_unpacklo_epi8(c, d);
		cd1 = _mm256_unpackhi_epi8(c, d);
		q0 = _mm256_unpacklo_epi16(m_dash, cd0);
		q1 = _mm256_unpackhi_epi16(m_dash, cd0);
		q2 = _mm256_unpacklo_epi16(m_dash, cd1);
		q3 = _mm256_unpackhi_epi16(m_dash, cd1);
		/* The init_quad index of each group: even groups in the bytes
		 * of ev, odd ones in those of od. */
		ev = (x & 0x0f0f0f0f) | (y & 0x0f0f0f0f) << 4;
		od = (x >> 4 & 0x0f0f0f0f) | (y & 0xf0f0f0f0);
		q0 = _mm256_shuffle_epi8(q0, _mm256_set_m128i(
		    QUAD(f, ev >> 16 & 255), QUAD(f, ev & 255)));
		q1 = _mm256_shuffle_epi8(q1, _mm256_set_m128i(
		    QUAD(f, od >> 16 & 255), QUAD(f, od & 255)));
		q2 = _mm256_shuffle_epi8(q2, _mm256_set_m128i(
		    QUAD(f, ev >> 24), QUAD(f, ev >> 8 & 255)));
		q3 = _mm256_shuffle_epi8(q3, _mm256_set_m128i(
		    QUAD(f, od >> 24), QUAD(f, od >> 8 & 255)));
		/* In order: each group's spare bytes are covered by the next. */
		o = put_quad(f, o, _mm256_castsi256_si128(q0), ev & 255);
		o = put_quad(f, o, _mm256_castsi256_si128(q1), od & 255);
		o = put_quad(f, o, _mm256_castsi256_si128(q2), ev >> 8 & 255);
		o = put_quad(f, o, _mm256_castsi256_si128(q3), od >> 8 & 255);
		o = put_quad(f, o, _mm256_extracti128_si256(q0, 1),
		    ev >> 16 & 255);
		o = put_quad(f, o, _mm256_extracti128_si256(q1, 1),
		    od >> 16 & 255);
		o = put_quad(f, o, _mm256_extracti128_si256(q2, 1), ev >> 24);
		o = put_quad(f, o, _mm256_extracti128_si256(q3, 1), od >> 24);
		p += 32;
	}
	*pp = p;
	return o;
}

/*
 * The loop of wide_run on a CPU with AVX-512 VBMI2: 32 bytes at a time,
 * each 16 of them laid out as their slots "M-^c" (one vpermt2b), and
 * the 64 bytes of slots pressed together by one vpcompressb, whose mask
 * keeps "M-" for the high half, the prefix for the bytes that take one,
 * and the last byte always.
 */
#define WIDE512	__attribute__((target( \
	"avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))

/* Slot I of the first 16 bytes: bytes 64, 65, I, 32 + I of [the 32
 * prefixes, the 32 last bytes | "M-"]; of the second, I + 16. */
static const unsigned char place[2][64] = {
	{ 64, 65, 0, 32, 64, 65, 1, 33, 64, 65, 2, 34, 64, 65, 3, 35,
	  64, 65, 4, 36, 64, 65, 5, 37, 64, 65, 6, 38, 64, 65, 7, 39,
	  64, 65, 8, 40, 64, 65, 9, 41, 64, 65, 10, 42, 64, 65, 11, 43,
	  64, 65, 12, 44, 64, 65, 13, 45, 64, 65, 14, 46, 64, 65, 15, 47 },
	{ 64, 65, 16, 48, 64, 65, 17, 49, 64, 65, 18, 50, 64, 65, 19, 51,
	  64, 65, 20, 52, 64, 65, 21, 53, 64, 65, 22, 54, 64, 65, 23, 55,
	  64, 65, 24, 56, 64, 65, 25, 57, 64, 65, 26, 58, 64, 65, 27, 59,
	  64, 65, 28, 60, 64, 65, 29, 61, 64, 65, 30, 62, 64, 65, 31, 63 }
};

static inline __attribute__((always_inline)) WIDE512 char *
wide512_run(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
	const unsigned char *p = *pp;
	const __m512i first = _mm512_loadu_si512((const void *)place[0]);
	const __m512i second = _mm512_loadu_si512((const void *)place[1]);
	const __m512i m_dash = _mm512_set1_epi16('M' | '-' << 8);
	const __m256i lf = _mm256_set1_epi8('\n'), tab = _mm256_set1_epi8('\t');
	const __m256i seven = _mm256_set1_epi8(0x7f);
	/* The first, third and fourth byte of each slot, as mask bits. */
	const uint64_t slot = 0x1111111111111111ull, prefix = slot << 2;
	const uint64_t last = slot << 3;
	__m256i v, low, c, d;
	__mmask32 nl, ctl;
	__m512i z;
	uint64_t x, y, keep;

	while (end - p > 32) {
		v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		nl = s & S_LF ? _mm256_cmpeq_epi8_mask(v, lf) : 0;
		if (s & S_VIS) {
			low = _mm256_and_si256(v, seven);
			ctl = _mm256_cmplt_epi8_mask(low, _mm256_set1_epi8(' ')) |
			    _mm256_cmpeq_epi8_mask(low, seven);
			if (!(s & S_TAB))
				ctl &= ~_mm256_cmpeq_epi8_mask(v, tab);
			ctl &= ~_mm256_cmpeq_epi8_mask(v, lf);
			y = _mm256_movepi8_mask(v);
		} else {
			low = v;
			ctl = s & S_TAB ? _mm256_cmpeq_epi8_mask(v, tab) : 0;
			y = 0;
			if ((s & S_CR) && _mm256_cmpeq_epi8_mask(v,
			    _mm256_set1_epi8('\r'))) {
				o = by_table(f, s, p, 32, o);
				p += 32;
				continue;
			}
		}
		x = ctl | nl;
		if ((x | y) == 0) {
			_mm256_storeu_si256((__m256i *)(void *)o, v);
			o += 32;
			p += 32;
			continue;
		}
		c = _mm256_mask_blend_epi8(nl, _mm256_set1_epi8('^'),
		    _mm256_set1_epi8('$'));
		d = _mm256_mask_blend_epi8(ctl, low,
		    _mm256_xor_si256(low, _mm256_set1_epi8(0x40)));
		z = _mm512_inserti64x4(_mm512_castsi256_si512(c), d, 1);
		keep = _pdep_u64(y, slot) * 3 | _pdep_u64(x, prefix) | last;
		_mm512_storeu_si512((void *)o, _mm512_maskz_compress_epi8(keep,
		    _mm512_permutex2var_epi8(z, first, m_dash)));
		o += _mm_popcnt_u64(keep);
		keep = _pdep_u64(y >> 16, slot) * 3 |
		    _pdep_u64(x >> 16, prefix) | last;
		_mm512_storeu_si512((void *)o, _mm512_maskz_compress_epi8(keep,
		    _mm512_permutex2var_epi8(z, second, m_dash)));
		o += _mm_popcnt_u64(keep);
		p += 32;
	}
	*pp = p;
	return o;
}

/* wide512_run for scan S, its tests folded. */
static WIDE512 char *
wide512_bytes(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
#define CASE(sc)	return wide512_run(f, sc, pp, end, o)
	BYTE_SCANS(s, CASE)
#undef CASE
}

/* wide_run for scan S, its tests folded. */
static WIDE char *
wide_bytes(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
#define CASE(sc)	return wide_run(f, sc, pp, end, o)
	BYTE_SCANS(s, CASE)
#undef CASE
}

/*
 * f's line number cache, in registers while the wide loop runs, with
 * the digit before the last: so that a 9 at the end (a line in ten)
 * carries into it without a branch the CPU would guess wrong.
 */
struct cache {
	uint64_t w0, w1;	/* f->word */
	uint64_t u0, u1;	/* f->unit */
	uint64_t d0, d1;	/* what takes the last digit from 9 to 0
				   and adds 1 to the one before */
	size_t w;		/* the width of the number and its tab */
	unsigned last, tens;	/* the last digit and the one before (not
				   chars: a byte stored and a word loaded
				   back would stall) */
};

static inline void
cache_load(const struct fmt *f, struct cache *c)
{
	int k = NUM_LAST - 1 - f->print;
	uint64_t t[2] = { 0, 0 };

	c->w0 = f->word[0];
	c->w1 = f->word[1];
	c->u0 = f->unit[0];
	c->u1 = f->unit[1];
	if (k >= 0 && k < 16)
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		t[k / 8] = (uint64_t)1 << (8 * (7 - k % 8));
#else
		t[k / 8] = (uint64_t)1 << (8 * (k % 8));
#endif
	c->d0 = t[0] - 10 * c->u0;
	c->d1 = t[1] - 10 * c->u1;
	c->w = NUM_TAB + 1 - f->print;
	c->last = (unsigned char)f->num[NUM_LAST];
	c->tens = (unsigned char)f->num[NUM_LAST - 1];
}

/* Put the cache C back into f. */
static inline void
cache_save(struct fmt *f, const struct cache *c)
{
	f->word[0] = c->w0;
	f->word[1] = c->w1;
	f->num[NUM_LAST] = c->last;
	f->num[NUM_LAST - 1] = c->tens;
}

/*
 * Write the next line number at O if ON (0 or 1), from the cache C of
 * f; return the end of what was written.  The common line takes no
 * branch on ON or on a carry into the tens: it stores the number
 * anyway, and adds ON times, and the carry times what carries.
 */
static inline char *
cache_put(struct fmt *f, struct cache *c, char *o, unsigned on)
{
	unsigned carry = c->last + on > '9';
	uint64_t all = -(uint64_t)on, wrap = -(uint64_t)carry;

	if (c->w <= 16 && (!carry || (c->tens >= '0' && c->tens < '9'))) {
		c->last = carry ? '0' : c->last + on;
		c->tens += carry;
		c->w0 += (c->u0 & all) + (c->d0 & wrap);
		c->w1 += (c->u1 & all) + (c->d1 & wrap);
		memcpy(o, &c->w0, 8);
		memcpy(o + 8, &c->w1, 8);
		return o + (c->w & all);
	}
	cache_save(f, c);
	o = put_num_carry(f, o);
	cache_load(f, c);
	return o;
}

/*
 * Copy the LEN bytes at P to O, LOOK bytes at a time: at least LOOK
 * bytes are stored, and the next bytes out overwrite the spare.
 */
static inline __attribute__((always_inline)) WIDE void
copy_look(char *o, const unsigned char *p, size_t len)
{
	size_t k = 0;

	do {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)
		    (p + k));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)
		    (p + k + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(const void *)
		    (p + k + 64));
		__m256i d = _mm256_loadu_si256((const __m256i *)(const void *)
		    (p + k + 96));

		_mm256_storeu_si256((__m256i *)(void *)(o + k), a);
		_mm256_storeu_si256((__m256i *)(void *)(o + k + 32), b);
		_mm256_storeu_si256((__m256i *)(void *)(o + k + 64), c);
		_mm256_storeu_si256((__m256i *)(void *)(o + k + 96), d);
		k += LOOK;
	} while (k < len);
}

/*
 * Write to AT the offsets from P of the LFs in the N bytes at P, N a
 * multiple of 64; return how many there are.  AT has room for N + 4.
 * Four offsets are written for every 64 bytes whatever their count
 * (the spare are overwritten): text has rarely more, and a loop on
 * the count would have the CPU guess wrong at every other line.
 */
static inline __attribute__((always_inline)) WIDE size_t
find_lfs(uint32_t *at, const unsigned char *p, size_t n)
{
	const __m256i lf = _mm256_set1_epi8('\n');
	size_t g, cnt = 0;
	uint32_t *w;
	uint64_t m;

	for (g = 0; g < n; g += 64) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(const void *)
		    (p + g));
		__m256i b = _mm256_loadu_si256((const __m256i *)(const void *)
		    (p + g + 32));

		m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, lf)) |
		    (uint64_t)(uint32_t)_mm256_movemask_epi8(
		    _mm256_cmpeq_epi8(b, lf)) << 32;
		w = at + cnt;
		cnt += _mm_popcnt_u64(m);
		w[0] = g + _tzcnt_u64(m);
		m = _blsr_u64(m);
		w[1] = g + _tzcnt_u64(m);
		m = _blsr_u64(m);
		w[2] = g + _tzcnt_u64(m);
		m = _blsr_u64(m);
		w[3] = g + _tzcnt_u64(m);
		m = _blsr_u64(m);
		for (w += 4; m != 0; m = _blsr_u64(m))
			*w++ = g + _tzcnt_u64(m);
	}
	return cnt;
}

/* The bytes wide_lines looks at before it turns to their lines. */
#define CHUNK	4096

/*
 * lines() for the text as it is (-n -b -s -E without -v -T), up to the
 * last LF more than LOOK bytes from the end; return the end of the
 * output and leave *PP where the caller's lines() goes on.  A chunk of
 * text is searched for its LFs first, then its lines are written, each
 * copied LOOK bytes at a time (fmt_room's slack).  Searching line by
 * line would make each line wait for the search of the one before, and
 * branching on a line's length would have the CPU guess wrong often:
 * so nothing but the rare long line and the empty lines -s drops takes
 * a branch of its own.
 */
static inline __attribute__((always_inline)) WIDE char *
lines_of(struct fmt *f, const unsigned char **pp, const unsigned char *end,
    char *o, int number, unsigned number_empty, int squeeze, int ends)
{
	const unsigned char *in = *pp, *p = in, *c, *e;
	const unsigned char *lim = end - LOOK;
	int nl = f->newlines, next;
	uint32_t at[CHUNK + 4];
	struct cache k;
	size_t chunk, n, i, len;
	unsigned empty;

	cache_load(f, &k);
	if (end - in <= LOOK)
		return o;
	for (c = in; lim - c >= 64; c += chunk) {
		chunk = (size_t)(lim - c) & ~(size_t)63;
		if (chunk > CHUNK)
			chunk = CHUNK;
		n = find_lfs(at, c, chunk);
		for (i = 0; i < n; i++) {
			e = c + at[i];
			len = e - p;
			next = 0;
			if (nl >= 0) {
				/* At the start of a line. */
				empty = len == 0;
				if (squeeze && empty && nl > 0) {
					p++;
					nl = 2;
					continue;
				}
				if (number)
					o = cache_put(f, &k, o,
					    number_empty | !empty);
				/* Only -s counts the empty lines. */
				if (squeeze)
					next = empty ? 1 + (nl > 0) : 0;
			}
			copy_look(o, p, len);
			o += len;
			/* -E shows the CR of a CR LF as ^M, as GNU 9.1 does. */
			if (ends && e > in && e[-1] == '\r') {
				o[-1] = '^';
				*o++ = 'M';
			}
			if (ends)
				*o++ = '$';
			*o++ = '\n';
			p = e + 1;
			nl = next;
		}
	}
	cache_save(f, &k);
	f->newlines = nl;
	*pp = p;
	return o;
}

/* lines_of for f's options, those of -n and -b folded. */
static WIDE char *
wide_lines(struct fmt *f, const unsigned char **pp, const unsigned char *end,
    char *o)
{
	unsigned fl = f->flags;
	int number = (fl & (SL_CAT_NUMBER | SL_CAT_NUMBER_NONBLANK)) != 0;

	switch (fl) {
	case SL_CAT_NUMBER:
		return lines_of(f, pp, end, o, 1, 1, 0, 0);
	case SL_CAT_NUMBER_NONBLANK:
	case SL_CAT_NUMBER_NONBLANK | SL_CAT_NUMBER:
		return lines_of(f, pp, end, o, 1, 0, 0, 0);
	default:
		return lines_of(f, pp, end, o, number,
		    number && !(fl & SL_CAT_NUMBER_NONBLANK),
		    (fl & SL_CAT_SQUEEZE) != 0, (fl & SL_CAT_SHOW_ENDS) != 0);
	}
}

/*
 * lines() for -s alone, while 32 bytes or more are left: a filter that
 * drops each LF after two LFs (the start of the text counts as one),
 * as f->newlines says when it reaches 2.  Text without runs of empty
 * lines is stored a block at a time, as it came.
 */
static WIDE char *
wide_squeeze(struct fmt *f, const unsigned char **pp,
    const unsigned char *end, char *o)
{
	const unsigned char *p = *pp;
	const __m256i lf = _mm256_set1_epi8('\n');
	/* The two bytes before P: LF or not (bit 31, bit 30). */
	uint64_t before = f->newlines < 0 ? 0 : f->newlines == 0 ?
	    1u << 31 : 3u << 30;
	uint64_t m, drop;
	__m256i v;
	int j;

	while (end - p >= 32) {
		v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		m = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, lf));
		drop = m & (m << 1 | before >> 31) & (m << 2 | before >> 30);
		before = m;
		if (drop == 0) {
			_mm256_storeu_si256((__m256i *)(void *)o, v);
			o += 32;
			p += 32;
			continue;
		}
		for (j = 0; j < 32; j++) {
			*o = p[j];
			o += !(drop >> j & 1);
		}
		p += 32;
	}
	if (p != *pp)
		f->newlines = !(before >> 31 & 1) ? -1 :
		    !(before >> 30 & 1) ? 0 : 2;
	*pp = p;
	return o;
}

#else

static int
wide_cpu(void)
{
	return 0;
}

static void
init_quad(struct fmt *f)
{
	(void)f;
}

#endif

size_t
fmt_run(struct fmt *f, const char *in, size_t len, char *out)
{
	const unsigned char *start = (const unsigned char *)in, *p = start;
	const unsigned char *end = p + len;
	unsigned fl = f->flags;
	unsigned s = (fl & SL_CAT_SHOW_NONPRINTING ? S_VIS : 0) |
	    (fl & SL_CAT_SHOW_TABS ? S_TAB : 0);
	char *o = out;

	if (f->wide < 0 && len >= WIDE_AFTER)
		fmt_use(f, fmt_widest());
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
#ifdef WIDE
		if (f->wide >= WIDE_AVX512 && s != 0)
			o = wide512_bytes(f, s, &p, end, o);
		else if (f->wide > 0 && s != 0)
			o = wide_bytes(f, s, &p, end, o);
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
#ifdef WIDE
		if (f->wide > 0 && fl == SL_CAT_SQUEEZE)
			o = wide_squeeze(f, &p, end, o);
		else if (f->wide > 0)
			o = wide_lines(f, &p, end, o);
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
