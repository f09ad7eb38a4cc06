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

static const char *never_unusable(void)
{
	return NULL;
}

#if SPLITZIP_HAVE_AVX512VBMI
static const splitzip_backend avx512vbmi = {
    .name = "avx512vbmi",
    .id = SPLITZIP_BACKEND_AVX512VBMI,
    .probe = splitzip_probe_avx512vbmi,
    .why_not = splitzip_why_not_avx512vbmi,
    .host = &splitzip_kernels_avx512vbmi,
    .gpu = NULL,
};
#endif
#if SPLITZIP_HAVE_AVX512
static const splitzip_backend avx512 = {
    .name = "avx512",
    .id = SPLITZIP_BACKEND_AVX512,
    .probe = splitzip_probe_avx512,
    .why_not = splitzip_why_not_avx512,
    .host = &splitzip_kernels_avx512,
    .gpu = NULL,
};
#endif
#if SPLITZIP_HAVE_AVX2
static const splitzip_backend avx2 = {
    .name = "avx2",
    .id = SPLITZIP_BACKEND_AVX2,
    .probe = splitzip_probe_avx2,
    .why_not = splitzip_why_not_avx2,
    .host = &splitzip_kernels_avx2,
    .gpu = NULL,
};
#endif
#if SPLITZIP_HAVE_NEON
static const splitzip_backend neon = {
    .name = "neon",
    .id = SPLITZIP_BACKEND_NEON,
    .probe = splitzip_probe_neon,
    .why_not = splitzip_why_not_neon,
    .host = &splitzip_kernels_neon,
    .gpu = NULL,
};
#endif
static const splitzip_backend scalar = {
    .name = "scalar",
    .id = SPLITZIP_BACKEND_SCALAR,
    .probe = probe_always,
    .why_not = never_unusable,
    .host = &splitzip_kernels_scalar,
    .gpu = NULL,
};

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
