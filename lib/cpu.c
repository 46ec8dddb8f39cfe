/* The CPU probe: which SIMD level cat's loops may use here. */
#include "cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

/*
 * AVX2 needs AVX2, BMI and POPCNT, and the kernel saving the YMM
 * registers; AVX-512 needs AVX-512 F, BW, VL, VBMI and VBMI2, BMI2, and
 * the kernel saving the opmask and ZMM registers too.  Asked with cpuid,
 * not with __builtin_cpu_supports, whose libgcc constructor would run
 * cpuid at every start of the program: in a virtual machine each cpuid
 * traps to the hypervisor, and `echo x | cat` would pay for it.
 */
static enum simd_level
ask_cpu(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_POPCNT) ||
	    !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return SIMD_PORTABLE;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6)	/* XMM and YMM state */
		return SIMD_PORTABLE;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_AVX2) ||
	    !(b & bit_BMI))
		return SIMD_PORTABLE;
	if ((lo & 0xe6) == 0xe6 && (b & bit_AVX512F) && (b & bit_AVX512BW) &&
	    (b & bit_AVX512VL) && (b & bit_BMI2) && (c & bit_AVX512VBMI) &&
	    (c & bit_AVX512VBMI2))
		return SIMD_AVX512;
	return SIMD_AVX2;
}

#else

static enum simd_level
ask_cpu(void)
{
	return SIMD_PORTABLE;
}

#endif

enum simd_level
cpu_simd_level(void)
{
	static int known = -1;

	if (known < 0)
		known = ask_cpu();
	return known;
}
