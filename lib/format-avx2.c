/*
 * cat's loops for AVX2 (SIMD_AVX2): the byte mappings of -v -T -E 32
 * bytes at a time, the lines of -n -b -s -E, and -s alone.  Compiled
 * with -mavx2 -mbmi -mpopcnt; lib/format.c calls it only where
 * lib/cpu.c found them.
 */
#include <immintrin.h>

#include "format-loops.h"

/* What the loops of lines look ahead for an LF: 4 loads of 32 bytes. */
#define LOOK	128

/*
 * For each group of 4 bytes, by which of them take a one-byte prefix
 * (bits 0-3 of G: "^" or "$") and which "M-" (bits 4-7), the pshufb
 * control that picks their output from 4 slots of 4 bytes, one a byte:
 * "M", "-", the prefix, the byte as shown last.
 */
void
fmt_avx2_init(struct fmt *f)
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

/* The control of fmt_avx2_init for group G. */
#define QUAD(f, g) \
	_mm_loadu_si128((const __m128i *)(const void *)(f)->quad[g])

/* Store at O the group Q pressed by fmt_avx2_init's G; return its end. */
static inline __attribute__((always_inline)) char *
put_quad(const struct fmt *f, char *o, __m128i q, unsigned g)
{
	_mm_storeu_si128((__m128i *)(void *)o, q);
	return o + f->quadlen[g];
}

/*
 * lib/format.c's run() for the byte mappings (no S_LINES), 32 bytes at
 * a time, while more than 32 are left; run() does the rest.  Every byte
 * the options change is shown as "M-" if in the high half, then "^" or
 * "$" if a control, DEL, TAB under -T or LF under -E, then its low 7
 * bits (bit 6 flipped for a control or DEL: ^A, ^?, ^I).  So a block
 * of 32 is laid out as 32 slots "M-^c", and each group of 4 slots is
 * pressed together by one shuffle whose control only depends on which
 * prefixes its 4 bytes take: no branch per byte.
 */
static inline __attribute__((always_inline)) char *
map_run(const struct fmt *f, unsigned s, const unsigned char **pp,
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
		/* The fmt_avx2_init index of each group: even groups in the
		 * bytes of ev, odd ones in those of od. */
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

/* map_run for scan S, its tests folded. */
char *
fmt_avx2_map(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
#define CASE(sc)	return map_run(f, sc, pp, end, o)
	BYTE_SCANS(s, CASE)
#undef CASE
}

/*
 * f's line number cache, in registers while lines_of runs, with
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
	uint64_t t[2] = { 0, 0 };	/* what adds 1 to the digit before */

	c->w0 = f->word[0];
	c->w1 = f->word[1];
	c->u0 = f->unit[0];
	c->u1 = f->unit[1];
	if (k >= 0 && k < 16)
		digit_unit(t, k);
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
	o = fmt_put_num_carry(f, o);
	cache_load(f, c);
	return o;
}

/*
 * Copy the LEN bytes at P to O, LOOK bytes at a time: at least LOOK
 * bytes are stored, and the next bytes out overwrite the spare.
 */
static inline __attribute__((always_inline)) void
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
static inline __attribute__((always_inline)) size_t
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

/* The bytes lines_of looks at before it turns to their lines. */
#define CHUNK	4096

/*
 * lib/format.c's lines() for the text as it is (-n -b -s -E without -v
 * -T), up to the last LF more than LOOK bytes from the end; return the
 * end of the output and leave *PP where lines() goes on.  A chunk of
 * text is searched for its LFs first, then its lines are written, each
 * copied LOOK bytes at a time (fmt_room's slack).  Searching line by
 * line would make each line wait for the search of the one before, and
 * branching on a line's length would have the CPU guess wrong often:
 * so nothing but the rare long line and the empty lines -s drops takes
 * a branch of its own.
 */
static inline __attribute__((always_inline)) char *
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
			/* The CR rule: the CR copied before LF is ^M. */
			if (ends && e > in && e[-1] == '\r')
				o = put_cr(o - 1, 1);
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
char *
fmt_avx2_lines(struct fmt *f, const unsigned char **pp,
    const unsigned char *end, char *o)
{
	unsigned fl = f->flags;
	int number = (fl & (SPATE_CAT_NUMBER | SPATE_CAT_NUMBER_NONBLANK)) != 0;

	switch (fl) {
	case SPATE_CAT_NUMBER:
		return lines_of(f, pp, end, o, 1, 1, 0, 0);
	case SPATE_CAT_NUMBER_NONBLANK:
	case SPATE_CAT_NUMBER_NONBLANK | SPATE_CAT_NUMBER:
		return lines_of(f, pp, end, o, 1, 0, 0, 0);
	default:
		return lines_of(f, pp, end, o, number,
		    number && !(fl & SPATE_CAT_NUMBER_NONBLANK),
		    (fl & SPATE_CAT_SQUEEZE) != 0,
		    (fl & SPATE_CAT_SHOW_ENDS) != 0);
	}
}

/*
 * lib/format.c's lines() for -s alone, while 32 bytes or more are left:
 * a filter that drops each LF after two LFs (the start of the text
 * counts as one), as f->newlines says when it reaches 2.  Text without
 * runs of empty lines is stored a block at a time, as it came.
 */
char *
fmt_avx2_squeeze(struct fmt *f, const unsigned char **pp,
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
