/*
 * sz_registry.c -- compiled-in backends in priority order, best first. Only backends that are
 * compiled in appear; scalar is always present and always last.
 */
#include "splitzip_config.h"
#include "sz_backend.h"

static const splitzip_backend *const registry[] = {
#if SPLITZIP_HAVE_CUDA
	&splitzip_backend_cuda,
#endif
#if SPLITZIP_HAVE_HIP
	&splitzip_backend_hip,
#endif
#if SPLITZIP_HAVE_AVX512VBMI
	&splitzip_backend_avx512vbmi,
#endif
#if SPLITZIP_HAVE_AVX512
	&splitzip_backend_avx512,
#endif
#if SPLITZIP_HAVE_AVX2
	&splitzip_backend_avx2,
#endif
#if SPLITZIP_HAVE_NEON
	&splitzip_backend_neon,
#endif
	&splitzip_backend_scalar,
};

size_t splitzip_registry_count(void)
{
	return sizeof registry / sizeof registry[0];
}

const splitzip_backend *splitzip_registry_get(size_t i)
{
	return i < splitzip_registry_count() ? registry[i] : NULL;
}
