/*
 * sz_cpu_features.c -- CPU feature detection: cpuid + xgetbv on x86-64, getauxval(AT_HWCAP) on
 * aarch64. A feature counts only if the OS also saves its register state (XCR0), otherwise the
 * first context switch would corrupt the registers.
 */
#include <stdatomic.h>

#include "splitzip_config.h"
#include "sz_cpu_features.h"

#if defined(__AVX2__) && !defined(SPLITZIP_NATIVE)
#error "dispatch/ must be compiled for the baseline ISA (no -mavx2)"
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define SZ_X86 1
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define SZ_AARCH64_LINUX 1
#endif

/* Bit 31 marks "detected", so that 0 can mean "not yet". */
#define SZ_CPU_KNOWN (1u << 31)
static _Atomic unsigned cpu_features_cache;

#ifdef SZ_X86
static uint64_t read_xcr0(void)
{
	uint32_t lo, hi;
	/* xgetbv with ecx = 0; the mnemonic needs no -mxsave, unlike the _xgetbv intrinsic. */
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static unsigned detect(void)
{
	unsigned a, b, c, d, f = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	const int osxsave = (c >> 27) & 1, popcnt = (c >> 23) & 1, avx = (c >> 28) & 1;
	if (!osxsave || !avx || !popcnt)
		return 0;
	const uint64_t xcr0 = read_xcr0();
	const int ymm_state = (xcr0 & 0x6) == 0x6;   /* SSE, AVX */
	const int zmm_state = (xcr0 & 0xE6) == 0xE6; /* + opmask, ZMM0-15 upper, ZMM16-31 */
	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	const int avx2 = (b >> 5) & 1, bmi1 = (b >> 3) & 1, bmi2 = (b >> 8) & 1;
	const int f512 = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
	const int vbmi = (c >> 1) & 1, vbmi2 = (c >> 6) & 1;
	if (ymm_state && avx2 && bmi1 && bmi2) {
		f |= SPLITZIP_CPU_AVX2;
		if (zmm_state && f512 && dq && bw && vl) {
			f |= SPLITZIP_CPU_AVX512;
			if (vbmi && vbmi2)
				f |= SPLITZIP_CPU_AVX512VBMI;
		}
	}
	return f;
}
#elif defined(SZ_AARCH64_LINUX)
static unsigned detect(void)
{
	/* Advanced SIMD is part of the aarch64 baseline; HWCAP_ASIMD is bit 1 of AT_HWCAP. A
	 * kernel that reports no hwcaps at all (0) is taken to mean the baseline. */
	unsigned long hw = getauxval(AT_HWCAP);
	return (hw == 0 || (hw & (1ul << 1))) ? SPLITZIP_CPU_NEON : 0;
}
#elif defined(__aarch64__)
static unsigned detect(void)
{
	return SPLITZIP_CPU_NEON;
}
#else
static unsigned detect(void)
{
	return 0;
}
#endif

unsigned splitzip_cpu_features(void)
{
	unsigned f = atomic_load_explicit(&cpu_features_cache, memory_order_acquire);
	if (!(f & SZ_CPU_KNOWN)) {
		f = detect() | SZ_CPU_KNOWN;
		atomic_store_explicit(&cpu_features_cache, f, memory_order_release);
	}
	return f & ~SZ_CPU_KNOWN;
}

int splitzip_probe_avx2(void)
{
	return (splitzip_cpu_features() & SPLITZIP_CPU_AVX2) != 0;
}

int splitzip_probe_avx512(void)
{
	return (splitzip_cpu_features() & SPLITZIP_CPU_AVX512) != 0;
}

int splitzip_probe_avx512vbmi(void)
{
	return (splitzip_cpu_features() & SPLITZIP_CPU_AVX512VBMI) != 0;
}

int splitzip_probe_neon(void)
{
#if SPLITZIP_NEON_SIMDE
	return 1; /* test build: the NEON source runs over SIMDe's portable emulation */
#else
	return (splitzip_cpu_features() & SPLITZIP_CPU_NEON) != 0;
#endif
}

const char *splitzip_why_not_avx2(void)
{
	return splitzip_probe_avx2() ? NULL
	                             : "the CPU or OS lacks AVX2, BMI1/2, POPCNT or the YMM state";
}

const char *splitzip_why_not_avx512(void)
{
	return splitzip_probe_avx512()
	           ? NULL
	           : "the CPU or OS lacks AVX-512 F/BW/DQ/VL or the ZMM and opmask state";
}

const char *splitzip_why_not_avx512vbmi(void)
{
	return splitzip_probe_avx512vbmi() ? NULL
	                                   : "the CPU or OS lacks AVX-512 (F/BW/DQ/VL) with VBMI "
	                                     "and VBMI2";
}

const char *splitzip_why_not_neon(void)
{
	return splitzip_probe_neon() ? NULL : "the CPU lacks Advanced SIMD (ASIMD in HWCAP)";
}
