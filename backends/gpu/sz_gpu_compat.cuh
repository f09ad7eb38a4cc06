/*
 * sz_gpu_compat.cuh -- the only header GPU kernels include.
 *
 * One kernel source, three compilers: the CPU SIMT harness (g++/clang++ with SZ_SIMT_CPU defined;
 * its flavour is tests/simt/sz_simt_compat.h), hipcc (__HIPCC__) and nvcc (__CUDACC__), checked in
 * that order. Kernels use only
 * the wrappers below plus threadIdx/blockIdx/blockDim/gridDim; never warpSize, vendor intrinsics,
 * cooperative_groups or CUDA/HIP headers.
 *
 * Warp size: every kernel is `template <int W>` and starts with SZ_WARP_GUARD(W). CUDA builds
 * W = 32 only; HIP picks W from the device (64 on CDNA, 32 on RDNA); the harness runs both. Masks
 * and ballots are uint64_t in every flavour (zero-extended when W = 32).
 *
 * Rules the harness enforces (and the GPU silently needs):
 *  - sz_syncthreads(): every thread of the block, same site, same barrier count, none exited.
 *  - warp ops: every live lane of the warp, same op and site, one mask covering all live lanes;
 *    shuffle width a power of two <= W; up/down deltas and xor lane masks in [0, W) (NVIDIA uses
 *    only their low 5 bits, AMD the whole value: outside [0, W) the vendors disagree);
 *    the source lane of a shuffle must be live.
 *  - sz_load16/sz_store16 need 16-byte alignment, sz_load8/sz_store8 8-byte alignment.
 */
#ifndef SZ_GPU_COMPAT_CUH
#define SZ_GPU_COMPAT_CUH

#if defined(SZ_SIMT_CPU)
/* The CPU SIMT harness defines its flavour in tests/simt/sz_simt_compat.h, which harness
 * programs include before any kernel header; no production build sees it. */
#if !defined(SZ_GPU_FLAVOUR_CPU)
#error "SZ_SIMT_CPU builds include tests/simt/sz_simt_compat.h before the kernel headers"
#endif
#elif defined(__HIPCC__)
#define SZ_GPU_FLAVOUR_HIP 1
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#define SZ_GPU_FLAVOUR_CUDA 1
#include <cuda_runtime.h>
#else
#error "sz_gpu_compat.cuh: compile with nvcc, hipcc, or define SZ_SIMT_CPU (tests/simt)"
#endif

#include <stddef.h>
#include <stdint.h>

/* ==================================================================== */
/*                    GPU flavours (CUDA and HIP)                       */
/* ==================================================================== */
#if !defined(SZ_GPU_FLAVOUR_CPU)

#define SZ_GLOBAL __global__
#define SZ_DEVICE __device__ __forceinline__
#define SZ_HOST_DEVICE __host__ __device__ inline
#define SZ_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#define SZ_RESTRICT __restrict__
#define SZ_UNROLL _Pragma("unroll")

/* n threads per block and, on CUDA, at least b resident blocks per SM (a register budget);
 * HIP's second argument means waves per execution unit, so HIP gets n alone. */
#if defined(SZ_GPU_FLAVOUR_CUDA)
#define SZ_LAUNCH_BOUNDS_BLOCKS(n, b) __launch_bounds__(n, b)
#else
#define SZ_LAUNCH_BOUNDS_BLOCKS(n, b) __launch_bounds__(n)
#endif

#define SZ_SHARED_ARRAY(T, name, N) __shared__ T name[N]
/* One byte array for every instance: typed extern __shared__ arrays clash between templates. */
#define SZ_DYN_SHARED(T, name)                                                                     \
	extern __shared__ __align__(16) unsigned char sz_dyn_smem_[];                              \
	T *name = reinterpret_cast<T *>(sz_dyn_smem_)

#if defined(SZ_GPU_FLAVOUR_CUDA)
#if defined(__CUDA_ARCH__)
#define SZ_WARP_GUARD(W) static_assert((W) == 32, "CUDA kernels are built for warp size 32 only")
#else
#define SZ_WARP_GUARD(W) ((void)0)
#endif
#define SZ_KERNEL_CHECK(cond)                                                                      \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__trap();                                                                  \
	} while (0)
#else /* HIP */
#if defined(__HIP_DEVICE_COMPILE__)
/* warpSize is not a constant expression from ROCm 7 on: a run-time check only. */
#define SZ_WARP_GUARD(W)                                                                           \
	do {                                                                                       \
		if (warpSize != (W))                                                               \
			__builtin_trap();                                                          \
	} while (0)
#else
#define SZ_WARP_GUARD(W) ((void)0)
#endif
#define SZ_KERNEL_CHECK(cond)                                                                      \
	do {                                                                                       \
		if (!(cond))                                                                       \
			__builtin_trap();                                                          \
	} while (0)
#endif

SZ_DEVICE void sz_syncthreads(void)
{
	__syncthreads();
}
SZ_DEVICE int sz_syncthreads_count(int p)
{
	return __syncthreads_count(p);
}
SZ_DEVICE int sz_syncthreads_and(int p)
{
	return __syncthreads_and(p);
}
SZ_DEVICE int sz_syncthreads_or(int p)
{
	return __syncthreads_or(p);
}

template <typename T> SZ_DEVICE uint64_t sz_bits_(T v)
{
	static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffles move 4- or 8-byte values");
	uint64_t u = 0;
	__builtin_memcpy(&u, &v, sizeof(T));
	return u;
}
template <typename T> SZ_DEVICE T sz_from_bits_(uint64_t u)
{
	T v;
	__builtin_memcpy(&v, &u, sizeof(T));
	return v;
}

#if defined(SZ_GPU_FLAVOUR_CUDA)
/* NVIDIA: 32 lanes; the 64-bit mask's low half is the native mask. */
template <int W> SZ_DEVICE uint64_t sz_ballot(uint64_t m, int p)
{
	return __ballot_sync((unsigned)m, p);
}
template <int W> SZ_DEVICE int sz_any(uint64_t m, int p)
{
	return __any_sync((unsigned)m, p);
}
template <int W> SZ_DEVICE int sz_all(uint64_t m, int p)
{
	return __all_sync((unsigned)m, p);
}
template <int W> SZ_DEVICE uint64_t sz_activemask(void)
{
	return __activemask();
}
template <int W> SZ_DEVICE void sz_syncwarp(uint64_t m)
{
	__syncwarp((unsigned)m);
}
#define SZ_SHFL_VARIANT_(name, cuname, argtype)                                                    \
	template <int W, typename T> SZ_DEVICE T name(uint64_t m, T v, argtype a, int w = W)       \
	{                                                                                          \
		uint64_t u = sz_bits_(v);                                                          \
		unsigned lo = cuname((unsigned)m, (unsigned)u, a, w);                              \
		unsigned hi = 0;                                                                   \
		if (sizeof(T) == 8)                                                                \
			hi = cuname((unsigned)m, (unsigned)(u >> 32), a, w);                       \
		return sz_from_bits_<T>(((uint64_t)hi << 32) | lo);                                \
	}
SZ_SHFL_VARIANT_(sz_shfl, __shfl_sync, int)
SZ_SHFL_VARIANT_(sz_shfl_up, __shfl_up_sync, unsigned)
SZ_SHFL_VARIANT_(sz_shfl_down, __shfl_down_sync, unsigned)
SZ_SHFL_VARIANT_(sz_shfl_xor, __shfl_xor_sync, int)
#undef SZ_SHFL_VARIANT_
SZ_DEVICE void sz_spin_pause(void)
{
	__nanosleep(32);
}
SZ_DEVICE int sz_popc64(uint64_t x)
{
	return __popcll(x);
}
SZ_DEVICE int sz_ffs64(uint64_t x)
{
	return __ffsll((long long)x);
}
SZ_DEVICE int sz_clz64(uint64_t x)
{
	return __clzll((long long)x);
}
#else /* HIP */
/*
 * AMD wavefronts run in lockstep (no independent thread scheduling), and the mask-less forms exist
 * in every ROCm release (the _sync forms need ROCm >= 6.2 and an opt-in): use them, and keep the
 * mask argument for the harness and CUDA. The idx source is reduced to the segment here because
 * older ROCm (5.x) adds an out-of-range source to the segment base unmasked.
 */
template <int W> SZ_DEVICE uint64_t sz_ballot(uint64_t m, int p)
{
	(void)m;
	return __ballot(p);
}
template <int W> SZ_DEVICE int sz_any(uint64_t m, int p)
{
	(void)m;
	return __any(p);
}
template <int W> SZ_DEVICE int sz_all(uint64_t m, int p)
{
	(void)m;
	return __all(p);
}
template <int W> SZ_DEVICE uint64_t sz_activemask(void)
{
	return __ballot(1);
}
template <int W> SZ_DEVICE void sz_syncwarp(uint64_t m)
{
	(void)m;
	__builtin_amdgcn_wave_barrier();
}
#define SZ_SHFL_VARIANT_(name, hipname, argtype, argexpr)                                          \
	template <int W, typename T> SZ_DEVICE T name(uint64_t m, T v, argtype a, int w = W)       \
	{                                                                                          \
		(void)m;                                                                           \
		uint64_t u = sz_bits_(v);                                                          \
		unsigned lo = hipname((unsigned)u, argexpr, w);                                    \
		unsigned hi = 0;                                                                   \
		if (sizeof(T) == 8)                                                                \
			hi = hipname((unsigned)(u >> 32), argexpr, w);                             \
		return sz_from_bits_<T>(((uint64_t)hi << 32) | lo);                                \
	}
SZ_SHFL_VARIANT_(sz_shfl, __shfl, int, a &(w - 1))
SZ_SHFL_VARIANT_(sz_shfl_up, __shfl_up, unsigned, a)
SZ_SHFL_VARIANT_(sz_shfl_down, __shfl_down, unsigned, a)
SZ_SHFL_VARIANT_(sz_shfl_xor, __shfl_xor, int, a)
#undef SZ_SHFL_VARIANT_
SZ_DEVICE void sz_spin_pause(void)
{
	__builtin_amdgcn_s_sleep(1);
}
SZ_DEVICE int sz_popc64(uint64_t x)
{
	return __popcll(x);
}
SZ_DEVICE int sz_ffs64(uint64_t x)
{
	return __ffsll((unsigned long long)x);
}
SZ_DEVICE int sz_clz64(uint64_t x)
{
	return x ? __clzll((long long)x) : 64;
}
#endif

#define SZ_ATOMICS_(T, U)                                                                          \
	SZ_DEVICE T sz_atomic_add(T *p, T v)                                                       \
	{                                                                                          \
		return (T)atomicAdd((U *)p, (U)v);                                                 \
	}                                                                                          \
	SZ_DEVICE T sz_atomic_exch(T *p, T v)                                                      \
	{                                                                                          \
		return (T)atomicExch((U *)p, (U)v);                                                \
	}                                                                                          \
	SZ_DEVICE T sz_atomic_cas(T *p, T cmp, T v)                                                \
	{                                                                                          \
		return (T)atomicCAS((U *)p, (U)cmp, (U)v);                                         \
	}                                                                                          \
	SZ_DEVICE T sz_atomic_max(T *p, T v)                                                       \
	{                                                                                          \
		return (T)atomicMax((U *)p, (U)v);                                                 \
	}                                                                                          \
	SZ_DEVICE T sz_atomic_load(const T *p)                                                     \
	{                                                                                          \
		return *(const volatile T *)p;                                                     \
	}                                                                                          \
	SZ_DEVICE void sz_atomic_store(T *p, T v)                                                  \
	{                                                                                          \
		*(volatile T *)p = v;                                                              \
	}
SZ_ATOMICS_(uint32_t, unsigned int)
SZ_ATOMICS_(int32_t, int)
SZ_ATOMICS_(uint64_t, unsigned long long)
#undef SZ_ATOMICS_

SZ_DEVICE void sz_threadfence(void)
{
	__threadfence();
}

typedef uint4 sz_u32x4;
SZ_DEVICE sz_u32x4 sz_u32x4_make(uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
	return make_uint4(x, y, z, w);
}
SZ_DEVICE sz_u32x4 sz_load16(const void *p)
{
	return *reinterpret_cast<const uint4 *>(p);
}
SZ_DEVICE void sz_store16(void *p, sz_u32x4 v)
{
	*reinterpret_cast<uint4 *>(p) = v;
}
SZ_DEVICE uint64_t sz_load8(const void *p)
{
	return *reinterpret_cast<const unsigned long long *>(p);
}
SZ_DEVICE void sz_store8(void *p, uint64_t v)
{
	*reinterpret_cast<unsigned long long *>(p) = v;
}

#endif /* flavours */

/* ==================================================================== */
/*                   Lane arithmetic (all flavours)                     */
/* ==================================================================== */

/* Linear thread id in the block; warps are consecutive runs of W linear ids. */
SZ_DEVICE unsigned sz_linear_tid(void)
{
	return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
template <int W> SZ_DEVICE unsigned sz_lane(void)
{
	return sz_linear_tid() % (unsigned)W;
}
template <int W> SZ_DEVICE unsigned sz_warp(void)
{
	return sz_linear_tid() / (unsigned)W;
}
/* All W lanes; (1ull << 64) - 1 would be undefined. */
template <int W> SZ_HOST_DEVICE uint64_t sz_full_mask(void)
{
	return W == 64 ? ~0ull : (1ull << W) - 1;
}
template <int W> SZ_DEVICE uint64_t sz_lanemask_lt(void)
{
	return (1ull << sz_lane<W>()) - 1;
}

#endif /* SZ_GPU_COMPAT_CUH */
