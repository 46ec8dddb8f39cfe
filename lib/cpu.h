/*
 * Private to libspate: which instruction sets this CPU has, among those
 * cat's loops (lib/format*.c) are written for.
 */
#ifndef SPATE_CPU_H
#define SPATE_CPU_H

/* The SIMD levels of cat's loops, each a superset of the one before. */
enum simd_level {
	SIMD_PORTABLE,	/* lib/format.c: SSE2 where the build has it,
			   else 8 bytes in a word (SWAR) */
	SIMD_AVX2,	/* lib/format-avx2.c */
	SIMD_AVX512	/* lib/format-avx512.c */
};

/*
 * The highest level this CPU and its kernel support; SIMD_PORTABLE off
 * x86-64.  Asked of the CPU at the first call only.
 */
enum simd_level cpu_simd_level(void);

#endif
