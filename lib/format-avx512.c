/*
 * cat's byte mappings of -v -T -E for AVX-512 (SIMD_AVX512), 32 bytes at
 * a time.  Compiled with the flags of AVX-512 F, BW, VL, VBMI and VBMI2,
 * BMI, BMI2 and POPCNT; lib/format.c calls it only where lib/cpu.c found
 * them.  The lines of -n -b -s are AVX2's (lib/format-avx2.c).
 */
#include <immintrin.h>

#include "format-loops.h"

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

/*
 * The loop of lib/format-avx2.c's map_run with AVX-512 VBMI2: 32 bytes
 * at a time, each 16 of them laid out as their slots "M-^c" (one
 * vpermt2b), and the 64 bytes of slots pressed together by one
 * vpcompressb, whose mask keeps "M-" for the high half, the prefix for
 * the bytes that take one, and the last byte always.
 */
static inline __attribute__((always_inline)) char *
map_run(const struct fmt *f, unsigned s, const unsigned char **pp,
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

/* map_run for scan S, its tests folded. */
char *
fmt_avx512_map(const struct fmt *f, unsigned s, const unsigned char **pp,
    const unsigned char *end, char *o)
{
#define CASE(sc)	return map_run(f, sc, pp, end, o)
	BYTE_SCANS(s, CASE)
#undef CASE
}
