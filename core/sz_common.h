/*
 * sz_common.h -- fixed-width types, little-endian loads/stores and the host/device qualifier
 * shared by the core, every backend and the GPU kernels.
 *
 * For host compilers this header holds only macros and static inline functions (SPLITZIP_HD
 * is static inline there), so it is safe to include from translation units compiled with
 * different ISA flags (see STYLE: a non-static inline compiled once with -mavx2 could be merged
 * by the linker into every caller). Under nvcc and HIP compilers SPLITZIP_HD is
 * __host__ __device__ __forceinline__, not static: those translation units are the GPU modules,
 * each built by one compiler with one set of flags into its own shared object with hidden
 * symbols, so there is no copy built with other flags for the linker to merge with.
 */
#ifndef SZ_COMMON_H
#define SZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* SPLITZIP_HD marks helpers callable from host and device code. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SPLITZIP_HD __host__ __device__ __forceinline__
#else
#define SPLITZIP_HD static inline
#endif

/* SPLITZIP_ROLLED before a loop keeps GPU compilers from unrolling it (cold code whose
 * unrolled form would only cost registers). Nothing on the host. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SPLITZIP_ROLLED _Pragma("unroll 1")
#else
#define SPLITZIP_ROLLED
#endif

/* The format is little-endian and so are all supported targets (x86-64, aarch64, GPUs). The
 * loads and stores below go through memcpy, which compilers turn into one unaligned access. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "splitzip supports little-endian targets only"
#endif

static inline uint16_t splitzip_le16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t splitzip_le32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint64_t splitzip_le64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline void splitzip_st16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof v);
}

static inline void splitzip_st32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static inline void splitzip_st64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}

/* Byte-wise little-endian stores and loads of n_bytes <= 8 bytes, any alignment, usable in
 * device code (headers and tables that GPU kernels write or read one field at a time). */
SPLITZIP_HD void splitzip_put_u8s(uint8_t *p, uint64_t v, unsigned n_bytes)
{
	for (unsigned i = 0; i < n_bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

SPLITZIP_HD uint64_t splitzip_get_u8s(const uint8_t *p, unsigned n_bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n_bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* A compile-time check, in C and in the C++ of the GPU and harness builds. */
#ifdef __cplusplus
#define SZ_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SZ_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define SZ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SZ_PREFETCH(p) __builtin_prefetch(p)
#else
#define SZ_LIKELY(x) (x)
#define SZ_UNLIKELY(x) (x)
#define SZ_PREFETCH(p) ((void)(p))
#endif

/* Internal (non-static) symbols carry the splitzip_ prefix and hidden visibility. */
#if defined(__GNUC__) || defined(__clang__)
#define SZ_INTERNAL __attribute__((visibility("hidden")))
#else
#define SZ_INTERNAL
#endif

#endif /* SZ_COMMON_H */
