/*
 * sz_registry.c -- compiled-in backends in priority order, best first. Only backends that are
 * compiled in appear; scalar is always present and always last. A host backend's probe lives
 * here (dispatch/sz_cpu_features.c), at the baseline ISA, so asking is safe on any CPU.
 */
#include "splitzip_config.h"
#include "sz_backend.h"
#include "sz_cpu_features.h"
#include "../backends/sz_host_backends.h"

#if defined(__AVX2__) && !defined(SPLITZIP_NATIVE)
#error "dispatch/ must be compiled for the baseline ISA (no -mavx2)"
#endif

static int probe_always(void)
{
	return 1;
}

#if SPLITZIP_HAVE_AVX512VBMI
static const splitzip_backend avx512vbmi = {"avx512vbmi", SPLITZIP_BACKEND_AVX512VBMI,
                                            splitzip_probe_avx512vbmi, &splitzip_kernels_avx512vbmi,
                                            NULL};
#endif
#if SPLITZIP_HAVE_AVX512
static const splitzip_backend avx512 = {"avx512", SPLITZIP_BACKEND_AVX512, splitzip_probe_avx512,
                                        &splitzip_kernels_avx512, NULL};
#endif
#if SPLITZIP_HAVE_AVX2
static const splitzip_backend avx2 = {"avx2", SPLITZIP_BACKEND_AVX2, splitzip_probe_avx2,
                                      &splitzip_kernels_avx2, NULL};
#endif
#if SPLITZIP_HAVE_NEON
static const splitzip_backend neon = {"neon", SPLITZIP_BACKEND_NEON, splitzip_probe_neon,
                                      &splitzip_kernels_neon, NULL};
#endif
static const splitzip_backend scalar = {"scalar", SPLITZIP_BACKEND_SCALAR, probe_always,
                                        &splitzip_kernels_scalar, NULL};

static const splitzip_backend *const registry[] = {
#if SPLITZIP_HAVE_CUDA
    &splitzip_backend_cuda,
#endif
#if SPLITZIP_HAVE_HIP
    &splitzip_backend_hip,
#endif
#if SPLITZIP_HAVE_AVX512VBMI
    &avx512vbmi,
#endif
#if SPLITZIP_HAVE_AVX512
    &avx512,
#endif
#if SPLITZIP_HAVE_AVX2
    &avx2,
#endif
#if SPLITZIP_HAVE_NEON
    &neon,
#endif
    &scalar,
};

size_t splitzip_registry_count(void)
{
	return sizeof registry / sizeof registry[0];
}

const splitzip_backend *splitzip_registry_get(size_t i)
{
	return i < splitzip_registry_count() ? registry[i] : NULL;
}
