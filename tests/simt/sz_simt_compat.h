/*
 * sz_simt_compat.h -- the CPU SIMT harness flavour of backends/gpu/sz_gpu_compat.cuh: the kernel
 * wrappers (barriers, warp collectives, shared memory, global loads, stores, atomics and fences)
 * as calls into the harness (sz_simt.h), which counts and checks the global accesses. Programs that
 * run kernels on the harness include this header before any kernel header; it then includes
 * sz_gpu_compat.cuh for the parts every flavour shares.
 */
#ifndef SZ_SIMT_COMPAT_H
#define SZ_SIMT_COMPAT_H

#if !defined(SZ_SIMT_CPU)
#error "sz_simt_compat.h is the SZ_SIMT_CPU flavour (tests/simt)"
#endif
#define SZ_GPU_FLAVOUR_CPU 1

#include "sz_simt.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ==================================================================== */
/*                     CPU SIMT harness flavour                         */
/* ==================================================================== */

#define SZ_GLOBAL
#define SZ_DEVICE inline
#define SZ_DEVICE_COLD inline
#define SZ_HOST_DEVICE inline
#define SZ_LAUNCH_BOUNDS(n)
#define SZ_LAUNCH_BOUNDS_BLOCKS(n, b)
#define SZ_RESTRICT __restrict__
#define SZ_UNROLL

#define threadIdx (sz_simt_cur->tid)
#define blockIdx (sz_simt_cur->bid)
#define blockDim (sz_simt_cur->bdim)
#define gridDim (sz_simt_cur->gdim)

/* The site arguments default to the caller's position (gcc >= 4.8, clang >= 9). */
#define SZ_SITE_ const char *sz_file_ = __builtin_FILE(), int sz_line_ = __builtin_LINE()
#define SZ_AT_ sz_file_, sz_line_

#define SZ_WARP_GUARD(W) sz_simt_check_warp((W), __FILE__, __LINE__)
#define SZ_KERNEL_CHECK(cond)                                                                      \
	do {                                                                                       \
		if (!(cond))                                                                       \
			sz_simt_trap(SZ_SIMT_KERNEL_TRAP, __FILE__, __LINE__, #cond);              \
	} while (0)

/* One exact-size heap block per site and template instance; 'key' tells the sites apart. */
#define SZ_SHARED_ARRAY(T, name, N)                                                                \
	static char name##_sz_key_;                                                                \
	T(&name)                                                                                   \
	[N] = *reinterpret_cast<T(*)[N]>(                                                          \
	    sz_simt_shared(&name##_sz_key_, sizeof(T[N]), alignof(T), __FILE__, __LINE__))
#define SZ_DYN_SHARED(T, name)                                                                     \
	T *name = reinterpret_cast<T *>(sz_simt_dyn_shared(__FILE__, __LINE__))

SZ_DEVICE void sz_syncthreads(SZ_SITE_)
{
	sz_simt_block_op(SZ_SIMT_OP_SYNCTHREADS, 1, SZ_AT_);
}
SZ_DEVICE int sz_syncthreads_count(int p, SZ_SITE_)
{
	return sz_simt_block_op(SZ_SIMT_OP_SYNCTHREADS_COUNT, p, SZ_AT_);
}
SZ_DEVICE int sz_syncthreads_and(int p, SZ_SITE_)
{
	return sz_simt_block_op(SZ_SIMT_OP_SYNCTHREADS_AND, p, SZ_AT_);
}
SZ_DEVICE int sz_syncthreads_or(int p, SZ_SITE_)
{
	return sz_simt_block_op(SZ_SIMT_OP_SYNCTHREADS_OR, p, SZ_AT_);
}

template <int W> SZ_DEVICE uint64_t sz_ballot(uint64_t m, int p, SZ_SITE_)
{
	return sz_simt_warp_op(W, SZ_SIMT_OP_BALLOT, m, p != 0, 0, W, SZ_AT_);
}
template <int W> SZ_DEVICE int sz_any(uint64_t m, int p, SZ_SITE_)
{
	return (int)sz_simt_warp_op(W, SZ_SIMT_OP_ANY, m, p != 0, 0, W, SZ_AT_);
}
template <int W> SZ_DEVICE int sz_all(uint64_t m, int p, SZ_SITE_)
{
	return (int)sz_simt_warp_op(W, SZ_SIMT_OP_ALL, m, p != 0, 0, W, SZ_AT_);
}
template <int W> SZ_DEVICE uint64_t sz_activemask(SZ_SITE_)
{
	return sz_simt_warp_op(W, SZ_SIMT_OP_ACTIVEMASK, ~0ull, 0, 0, W, SZ_AT_);
}
template <int W> SZ_DEVICE void sz_syncwarp(uint64_t m, SZ_SITE_)
{
	sz_simt_warp_op(W, SZ_SIMT_OP_SYNCWARP, m, 0, 0, W, SZ_AT_);
}

template <typename T> SZ_DEVICE uint64_t sz_bits_(T v)
{
	static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 4- or 8-byte values");
	static_assert(std::is_trivially_copyable<T>::value, "shuffles move plain bits");
	uint64_t u = 0;
	memcpy(&u, &v, sizeof(T));
	return u;
}
template <typename T> SZ_DEVICE T sz_from_bits_(uint64_t u)
{
	T v;
	memcpy(&v, &u, sizeof(T));
	return v;
}
template <int W, typename T> SZ_DEVICE T sz_shfl(uint64_t m, T v, int src, int w = W, SZ_SITE_)
{
	return sz_from_bits_<T>(
	    sz_simt_warp_op(W, SZ_SIMT_OP_SHFL_IDX, m, sz_bits_(v), src, w, SZ_AT_));
}
template <int W, typename T>
SZ_DEVICE T sz_shfl_up(uint64_t m, T v, unsigned delta, int w = W, SZ_SITE_)
{
	return sz_from_bits_<T>(
	    sz_simt_warp_op(W, SZ_SIMT_OP_SHFL_UP, m, sz_bits_(v), delta, w, SZ_AT_));
}
template <int W, typename T>
SZ_DEVICE T sz_shfl_down(uint64_t m, T v, unsigned delta, int w = W, SZ_SITE_)
{
	return sz_from_bits_<T>(
	    sz_simt_warp_op(W, SZ_SIMT_OP_SHFL_DOWN, m, sz_bits_(v), delta, w, SZ_AT_));
}
template <int W, typename T>
SZ_DEVICE T sz_shfl_xor(uint64_t m, T v, int lane_mask, int w = W, SZ_SITE_)
{
	return sz_from_bits_<T>(
	    sz_simt_warp_op(W, SZ_SIMT_OP_SHFL_XOR, m, sz_bits_(v), lane_mask, w, SZ_AT_));
}

SZ_DEVICE void sz_spin_pause(SZ_SITE_)
{
	sz_simt_spin(SZ_AT_);
}

/* ---- Device memory (see sz_gpu_compat.cuh): counted and checked by the harness ----------- */

template <typename T> struct sz_id_ {
	typedef T type;
};

struct sz_u32x4 {
	uint32_t x, y, z, w;
};
SZ_DEVICE sz_u32x4 sz_u32x4_make(uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
	return sz_u32x4{x, y, z, w};
}

/* Loads are checked before they read, stores recorded after they write (memcpy: cast
 * type-punning is undefined at -O2). Alignment is checked as a GPU would fault. */
#define SZ_GLD_(name, T)                                                                           \
	SZ_DEVICE T sz_gld_##name(const void *p, SZ_SITE_)                                         \
	{                                                                                          \
		if ((uintptr_t)p % sizeof(T))                                                      \
			sz_simt_trap(SZ_SIMT_KERNEL_TRAP, sz_file_, sz_line_,                      \
			             "misaligned global load");                                    \
		sz_simt_gmem(SZ_SIMT_LOAD, p, sizeof(T), SZ_AT_);                                  \
		T v;                                                                               \
		memcpy(&v, p, sizeof(T));                                                          \
		return v;                                                                          \
	}                                                                                          \
	SZ_DEVICE T sz_gldro_##name(const void *p, SZ_SITE_)                                       \
	{                                                                                          \
		return sz_gld_##name(p, SZ_AT_);                                                   \
	}                                                                                          \
	SZ_DEVICE void sz_gst_##name(void *p, T v, SZ_SITE_)                                       \
	{                                                                                          \
		if ((uintptr_t)p % sizeof(T))                                                      \
			sz_simt_trap(SZ_SIMT_KERNEL_TRAP, sz_file_, sz_line_,                      \
			             "misaligned global store");                                   \
		memcpy(p, &v, sizeof(T));                                                          \
		sz_simt_gmem(SZ_SIMT_STORE, p, sizeof(T), SZ_AT_);                                 \
	}
SZ_GLD_(u8, uint8_t)
SZ_GLD_(u16, uint16_t)
SZ_GLD_(u32, uint32_t)
SZ_GLD_(u64, uint64_t)
SZ_GLD_(x4, sz_u32x4)
#undef SZ_GLD_

/* Switches happen only at sync points, so these are atomic on one OS thread; the __atomic
 * forms also keep separate launching threads correct. */
template <typename T> SZ_DEVICE void sz_atomic_check_(const T *p, const char *file, int line)
{
	static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- or 8-byte integers");
	if ((uintptr_t)p % sizeof(T))
		sz_simt_trap(SZ_SIMT_KERNEL_TRAP, file, line, "misaligned atomic");
}
#define SZ_ALOAD_(o, O)                                                                            \
	template <typename T> SZ_DEVICE T sz_atomic_load_##o(const T *p, SZ_SITE_)                 \
	{                                                                                          \
		sz_atomic_check_(p, SZ_AT_);                                                       \
		sz_simt_gatomic(SZ_SIMT_LOAD, SZ_SIMT_##O, p, sizeof(T), SZ_AT_);                  \
		return __atomic_load_n(p, __ATOMIC_##O);                                           \
	}
#define SZ_ASTORE_(o, O)                                                                           \
	template <typename T>                                                                      \
	SZ_DEVICE void sz_atomic_store_##o(T *p, typename sz_id_<T>::type v, SZ_SITE_)             \
	{                                                                                          \
		sz_atomic_check_(p, SZ_AT_);                                                       \
		__atomic_store_n(p, v, __ATOMIC_##O);                                              \
		sz_simt_gatomic(SZ_SIMT_STORE, SZ_SIMT_##O, p, sizeof(T), SZ_AT_);                 \
	}
#define SZ_ARMW_(op, o, O)                                                                         \
	template <typename T>                                                                      \
	SZ_DEVICE T sz_atomic_##op##_##o(T *p, typename sz_id_<T>::type v, SZ_SITE_)               \
	{                                                                                          \
		sz_atomic_check_(p, SZ_AT_);                                                       \
		sz_simt_gatomic(SZ_SIMT_RMW, SZ_SIMT_##O, p, sizeof(T), SZ_AT_);                   \
		return __atomic_fetch_##op(p, v, __ATOMIC_##O);                                    \
	}
SZ_ALOAD_(relaxed, RELAXED)
SZ_ALOAD_(acquire, ACQUIRE)
SZ_ASTORE_(relaxed, RELAXED)
SZ_ASTORE_(release, RELEASE)
SZ_ARMW_(add, relaxed, RELAXED)
SZ_ARMW_(add, release, RELEASE)
SZ_ARMW_(add, acq_rel, ACQ_REL)
SZ_ARMW_(or, relaxed, RELAXED)
#undef SZ_ALOAD_
#undef SZ_ASTORE_
#undef SZ_ARMW_
template <typename T> SZ_DEVICE T sz_atomic_max_relaxed(T *p, typename sz_id_<T>::type v, SZ_SITE_)
{
	sz_atomic_check_(p, SZ_AT_);
	sz_simt_gatomic(SZ_SIMT_RMW, SZ_SIMT_RELAXED, p, sizeof(T), SZ_AT_);
	T old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (old < v &&
	       !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	return old;
}
template <typename T> SZ_DEVICE T sz_atomic_exch_relaxed(T *p, typename sz_id_<T>::type v, SZ_SITE_)
{
	sz_atomic_check_(p, SZ_AT_);
	sz_simt_gatomic(SZ_SIMT_RMW, SZ_SIMT_RELAXED, p, sizeof(T), SZ_AT_);
	return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}
template <typename T>
SZ_DEVICE T sz_atomic_cas_relaxed(T *p, typename sz_id_<T>::type cmp, typename sz_id_<T>::type v,
                                  SZ_SITE_)
{
	sz_atomic_check_(p, SZ_AT_);
	sz_simt_gatomic(SZ_SIMT_RMW, SZ_SIMT_RELAXED, p, sizeof(T), SZ_AT_);
	__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return cmp;
}
SZ_DEVICE void sz_fence_acquire(SZ_SITE_)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	sz_simt_gfence(SZ_SIMT_ACQUIRE, SZ_AT_);
}
SZ_DEVICE void sz_fence_release(SZ_SITE_)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
	sz_simt_gfence(SZ_SIMT_RELEASE, SZ_AT_);
}
SZ_DEVICE void sz_fence_acq_rel(SZ_SITE_)
{
	__atomic_thread_fence(__ATOMIC_ACQ_REL);
	sz_simt_gfence(SZ_SIMT_ACQ_REL, SZ_AT_);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_add(T *p, typename sz_id_<T>::type v)
{
	sz_simt_satomic();
	return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_or(T *p, typename sz_id_<T>::type v)
{
	sz_simt_satomic();
	return __atomic_fetch_or(p, v, __ATOMIC_RELAXED);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_max(T *p, typename sz_id_<T>::type v)
{
	sz_simt_satomic();
	T old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (old < v &&
	       !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	return old;
}

SZ_DEVICE int sz_popc64(uint64_t x)
{
	return __builtin_popcountll(x);
}
SZ_DEVICE int sz_ffs64(uint64_t x)
{
	return __builtin_ffsll((long long)x);
}
SZ_DEVICE int sz_clz64(uint64_t x)
{
	return x ? __builtin_clzll(x) : 64;
}

#include "sz_gpu_compat.cuh"

#endif /* SZ_SIMT_COMPAT_H */
