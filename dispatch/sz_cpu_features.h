/*
 * sz_cpu_features.h -- CPU feature detection for the host backends (internal).
 */
#ifndef SZ_CPU_FEATURES_H
#define SZ_CPU_FEATURES_H

#include "../core/sz_common.h"

/* Feature sets, each usable only if the CPU has it and the OS saves the register state. */
#define SPLITZIP_CPU_AVX2 (1u << 0)       /* AVX2, BMI1, BMI2, POPCNT; XCR0 has SSE+YMM */
#define SPLITZIP_CPU_AVX512 (1u << 1)     /* + AVX-512 F, BW, DQ, VL; XCR0 has ZMM + opmask */
#define SPLITZIP_CPU_AVX512VBMI (1u << 2) /* + AVX-512 VBMI and VBMI2 */
#define SPLITZIP_CPU_NEON (1u << 3)       /* aarch64 Advanced SIMD */

/*
 * splitzip_cpu_features() returns the SPLITZIP_CPU_* bits of this machine. Detected on first
 * use and cached in a C11 atomic: concurrent first calls compute the same value.
 */
SZ_INTERNAL unsigned splitzip_cpu_features(void);

/* Probes of the host SIMD backends (the .probe entries of their vtables). These live here,
 * in a translation unit compiled for the baseline ISA, so that calling them is safe on any CPU. */
SZ_INTERNAL int splitzip_probe_avx2(void);
SZ_INTERNAL int splitzip_probe_avx512(void);
SZ_INTERNAL int splitzip_probe_avx512vbmi(void);
SZ_INTERNAL int splitzip_probe_neon(void);

/* Why each host SIMD backend is not usable here, or NULL if it is (the .why_not entries). */
SZ_INTERNAL const char *splitzip_why_not_avx2(void);
SZ_INTERNAL const char *splitzip_why_not_avx512(void);
SZ_INTERNAL const char *splitzip_why_not_avx512vbmi(void);
SZ_INTERNAL const char *splitzip_why_not_neon(void);

#endif /* SZ_CPU_FEATURES_H */
