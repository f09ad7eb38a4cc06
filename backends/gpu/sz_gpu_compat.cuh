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
 *  - The HIP flavour uses compiler builtins only: the module links without the ROCm device
 *    library (doc/AMD.md).
 *
 * Device memory. Every access of a kernel to global memory goes through these wrappers (the
 * harness counts the bytes and checks the memory model; tests/simt/sz_simt_mem.h):
 *  - sz_gld_{u8,u16,u32,u64,x4}(p): plain loads; sz_gldro_*: loads of data that nothing writes
 *    during the launch (NVIDIA's read-only path); sz_gst_*(p, v): plain stores. Natural
 *    alignment; x4 (sz_u32x4, 16 bytes) needs 16-byte alignment. On HIP they cast to the
 *    global address space: global_* instructions, also through pointers read from memory (a
 *    batch's tables); sz_load_global_ptr serves code that dereferences such a pointer itself.
 *  - Atomics on global memory, device (agent) scope, named by their memory order:
 *    sz_atomic_load_{relaxed,acquire}, sz_atomic_store_{relaxed,release},
 *    sz_atomic_add_{relaxed,release,acq_rel}, sz_atomic_{or,max,exch,cas}_relaxed, on 4- and
 *    8-byte integers. CUDA: cuda::atomic_ref<T, thread_scope_device>; HIP: __hip_atomic_* with
 *    __HIP_MEMORY_SCOPE_AGENT; the harness: __atomic_* with the same orders. No volatile.
 *  - sz_fence_{acquire,release,acq_rel}(): device-scope fences.
 *  - sz_smem_atomic_{add,or,max}: relaxed block-scope atomics on shared memory.
 * doc/AMD.md ("Memory model") says which kernel uses which order and why.
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
#include <cuda/atomic>
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
/* Once-per-frame device code (header parsing): kept out of the kernels' hot loops' register
 * allocation. */
#define SZ_DEVICE_COLD __device__ __noinline__
#define SZ_HOST_DEVICE __host__ __device__ inline
#define SZ_RESTRICT __restrict__
#define SZ_UNROLL _Pragma("unroll")

/* n threads per block and, on CUDA, at least b resident blocks per SM (a register budget).
 * HIP: the attribute itself (not the header's __launch_bounds__); its second argument would
 * mean waves per execution unit, so HIP gets n alone (the VGPR budget is checked on the built
 * code objects instead: ci/hip-bundle-check.py). */
#if defined(SZ_GPU_FLAVOUR_CUDA)
#define SZ_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#define SZ_LAUNCH_BOUNDS_BLOCKS(n, b) __launch_bounds__(n, b)
#else
#define SZ_LAUNCH_BOUNDS(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define SZ_LAUNCH_BOUNDS_BLOCKS(n, b) SZ_LAUNCH_BOUNDS(n)
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
/* The code object's wavefront size (not warpSize: not a constant expression from ROCm 7 on).
 * Up to clang 19 the macro, which the optimiser sees: the instantiation whose W differs is a
 * trap and nothing else (ci/hip-bundle-check.py checks that). From clang 20 on the macro is
 * deprecated (ROCm 6.3+ compilers deprecate it earlier: the warning is silenced here) and the
 * builtin folds before optimisation. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-pragma"
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __clang_major__ < 20
#define SZ_HIP_WAVEFRONT_SIZE_()                                                                   \
	(_Pragma("clang diagnostic push")                                                          \
	     _Pragma("clang diagnostic ignored \"-Wdeprecated-pragma\"")                           \
	         __AMDGCN_WAVEFRONT_SIZE _Pragma("clang diagnostic pop"))
#else
#define SZ_HIP_WAVEFRONT_SIZE_() __builtin_amdgcn_wavefrontsize()
#endif
#pragma clang diagnostic pop
#define SZ_WARP_GUARD(W)                                                                           \
	do {                                                                                       \
		if (SZ_HIP_WAVEFRONT_SIZE_() != (W))                                               \
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

#if defined(SZ_GPU_FLAVOUR_HIP)
/*
 * threadIdx, blockIdx, blockDim, gridDim without the device library (the HIP headers' versions
 * call __ockl_get_local_id and friends): the work-item and work-group ids are hardware
 * registers; the sizes come from the HSA dispatch packet (workgroup_size_{x,y,z}: u16 at bytes
 * 4, 6, 8; grid_size_{x,y,z}, in work-items: u32 at bytes 12, 16, 20), present with every code
 * object version. The macros shadow the headers' objects for the kernel source only.
 */
typedef const __attribute__((address_space(4))) uint16_t *sz_hip_pkt16_;
typedef const __attribute__((address_space(4))) uint32_t *sz_hip_pkt32_;
SZ_DEVICE unsigned sz_hip_block_dim_(int d)
{
	return ((sz_hip_pkt16_)__builtin_amdgcn_dispatch_ptr())[2 + d];
}
SZ_DEVICE unsigned sz_hip_grid_dim_(int d)
{
	const unsigned items = ((sz_hip_pkt32_)__builtin_amdgcn_dispatch_ptr())[3 + d];
	const unsigned bd = sz_hip_block_dim_(d);
	return items / bd + (items % bd != 0);
}
#define SZ_HIP_COORD_(name, expr)                                                                  \
	struct name {                                                                              \
		__device__ __forceinline__ operator unsigned() const                               \
		{                                                                                  \
			return (expr);                                                             \
		}                                                                                  \
	}
SZ_HIP_COORD_(sz_hip_tid_x_, __builtin_amdgcn_workitem_id_x());
SZ_HIP_COORD_(sz_hip_tid_y_, __builtin_amdgcn_workitem_id_y());
SZ_HIP_COORD_(sz_hip_tid_z_, __builtin_amdgcn_workitem_id_z());
SZ_HIP_COORD_(sz_hip_bid_x_, __builtin_amdgcn_workgroup_id_x());
SZ_HIP_COORD_(sz_hip_bid_y_, __builtin_amdgcn_workgroup_id_y());
SZ_HIP_COORD_(sz_hip_bid_z_, __builtin_amdgcn_workgroup_id_z());
SZ_HIP_COORD_(sz_hip_bdim_x_, sz_hip_block_dim_(0));
SZ_HIP_COORD_(sz_hip_bdim_y_, sz_hip_block_dim_(1));
SZ_HIP_COORD_(sz_hip_bdim_z_, sz_hip_block_dim_(2));
SZ_HIP_COORD_(sz_hip_gdim_x_, sz_hip_grid_dim_(0));
SZ_HIP_COORD_(sz_hip_gdim_y_, sz_hip_grid_dim_(1));
SZ_HIP_COORD_(sz_hip_gdim_z_, sz_hip_grid_dim_(2));
#undef SZ_HIP_COORD_
template <class X, class Y, class Z> struct sz_hip_dim3_ {
	X x;
	Y y;
	Z z;
};
#undef threadIdx /* in case a HIP release spells them as macros */
#undef blockIdx
#undef blockDim
#undef gridDim
#define threadIdx (sz_hip_dim3_<sz_hip_tid_x_, sz_hip_tid_y_, sz_hip_tid_z_>{})
#define blockIdx (sz_hip_dim3_<sz_hip_bid_x_, sz_hip_bid_y_, sz_hip_bid_z_>{})
#define blockDim (sz_hip_dim3_<sz_hip_bdim_x_, sz_hip_bdim_y_, sz_hip_bdim_z_>{})
#define gridDim (sz_hip_dim3_<sz_hip_gdim_x_, sz_hip_gdim_y_, sz_hip_gdim_z_>{})

/* A wave-wide mask of the lanes where b holds (uicmp before clang 16: ICMP_NE is 33). */
#if __has_builtin(__builtin_amdgcn_ballot_w64)
#define SZ_HIP_BALLOT_(b) ((uint64_t)__builtin_amdgcn_ballot_w64(b))
#else
#define SZ_HIP_BALLOT_(b) ((uint64_t)__builtin_amdgcn_uicmp((unsigned)(b), 0u, 33))
#endif
#endif /* SZ_GPU_FLAVOUR_HIP */

#if defined(SZ_GPU_FLAVOUR_CUDA)
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
#else /* HIP */
/* The barrier with work-group release/acquire (what __syncthreads means), from builtins: the
 * HIP 5.x header's version calls __atomic_work_item_fence from the device library. */
SZ_DEVICE void sz_syncthreads(void)
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
	__builtin_amdgcn_s_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
/* Threads of the block with p != 0 (the header's version needs __ockl_wgred_*): one counter
 * in LDS, zeroed and read between barriers, one add per wavefront. */
SZ_DEVICE int sz_hip_block_count_(int p)
{
	__shared__ int sz_count_;
	const bool first = __builtin_amdgcn_workitem_id_x() == 0 &&
	                   __builtin_amdgcn_workitem_id_y() == 0 &&
	                   __builtin_amdgcn_workitem_id_z() == 0;
	sz_syncthreads(); /* the previous count has been read */
	if (first)
		sz_count_ = 0;
	sz_syncthreads();
	const uint64_t b = SZ_HIP_BALLOT_(p != 0);
	if (__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)) == 0)
		__atomic_fetch_add(&sz_count_, __builtin_popcountll(b), __ATOMIC_RELAXED);
	sz_syncthreads();
	return sz_count_;
}
SZ_DEVICE int sz_syncthreads_count(int p)
{
	return sz_hip_block_count_(p);
}
SZ_DEVICE int sz_syncthreads_and(int p)
{
	return sz_hip_block_count_(p) == (int)(blockDim.x * blockDim.y * blockDim.z);
}
SZ_DEVICE int sz_syncthreads_or(int p)
{
	return sz_hip_block_count_(p) != 0;
}
#endif

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
 * AMD wavefronts run in lockstep (no independent thread scheduling): the mask argument is kept
 * for the harness and CUDA only. Everything is a compiler builtin, so the module links without
 * the ROCm device library: ballots from __builtin_amdgcn_ballot_w64 (zero-extended on wave32
 * targets), shuffles through ds_bpermute with the SIMT.md section 2.3 source-lane rules (the
 * header's __shfl* rely on its warpSize default and, in ROCm 5, add an idx source unmasked).
 */
template <int W> SZ_DEVICE uint64_t sz_ballot(uint64_t m, int p)
{
	(void)m;
	return SZ_HIP_BALLOT_(p != 0);
}
template <int W> SZ_DEVICE int sz_any(uint64_t m, int p)
{
	(void)m;
	return SZ_HIP_BALLOT_(p != 0) != 0;
}
template <int W> SZ_DEVICE int sz_all(uint64_t m, int p)
{
	(void)m;
	return SZ_HIP_BALLOT_(p == 0) == 0;
}
template <int W> SZ_DEVICE uint64_t sz_activemask(void)
{
	return SZ_HIP_BALLOT_(true);
}
template <int W> SZ_DEVICE void sz_syncwarp(uint64_t m)
{
	(void)m;
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
	__builtin_amdgcn_wave_barrier();
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
/* The hardware lane: the count of lanes below this one (W = 32: the low half is the wave). */
template <int W> SZ_DEVICE unsigned sz_hip_lane_(void)
{
	const unsigned lo = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
	return W == 32 ? lo : __builtin_amdgcn_mbcnt_hi(~0u, lo);
}
/* Source lanes: defined with the parts every flavour shares, below. */
SZ_HOST_DEVICE unsigned sz_shfl_src_idx(unsigned l, int a, int w);
SZ_HOST_DEVICE unsigned sz_shfl_src_up(unsigned l, unsigned a, int w);
SZ_HOST_DEVICE unsigned sz_shfl_src_down(unsigned l, unsigned a, int w);
SZ_HOST_DEVICE unsigned sz_shfl_src_xor(unsigned l, int a, int w);
#define SZ_SHFL_VARIANT_(name, srcfn, argtype)                                                     \
	template <int W, typename T> SZ_DEVICE T name(uint64_t m, T v, argtype a, int w = W)       \
	{                                                                                          \
		(void)m;                                                                           \
		const int j4 = (int)(srcfn(sz_hip_lane_<W>(), a, w) << 2);                         \
		const uint64_t u = sz_bits_(v);                                                    \
		const unsigned lo = (unsigned)__builtin_amdgcn_ds_bpermute(j4, (int)(unsigned)u);  \
		unsigned hi = 0;                                                                   \
		if (sizeof(T) == 8)                                                                \
			hi = (unsigned)__builtin_amdgcn_ds_bpermute(j4, (int)(unsigned)(u >> 32)); \
		return sz_from_bits_<T>(((uint64_t)hi << 32) | lo);                                \
	}
SZ_SHFL_VARIANT_(sz_shfl, sz_shfl_src_idx, int)
SZ_SHFL_VARIANT_(sz_shfl_up, sz_shfl_src_up, unsigned)
SZ_SHFL_VARIANT_(sz_shfl_down, sz_shfl_src_down, unsigned)
SZ_SHFL_VARIANT_(sz_shfl_xor, sz_shfl_src_xor, int)
#undef SZ_SHFL_VARIANT_
SZ_DEVICE void sz_spin_pause(void)
{
	__builtin_amdgcn_s_sleep(1);
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
#endif

/* ---- Device memory: loads, stores, atomics, fences (see the file comment) --------------- */

template <typename T> struct sz_id_ {
	typedef T type; /* keeps a value argument from taking part in template deduction */
};
template <typename T> SZ_DEVICE void sz_atomic_type_check_(void)
{
	static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- or 8-byte integers");
}

#if defined(SZ_GPU_FLAVOUR_CUDA)
typedef uint4 sz_u32x4;
SZ_DEVICE sz_u32x4 sz_u32x4_make(uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
	return make_uint4(x, y, z, w);
}
#define SZ_G_(T) T
#else /* HIP: the global address space, so that accesses are global_* rather than flat_* */
typedef uint32_t sz_u32x4 __attribute__((ext_vector_type(4)));
SZ_DEVICE sz_u32x4 sz_u32x4_make(uint32_t x, uint32_t y, uint32_t z, uint32_t w)
{
	const sz_u32x4 v = {x, y, z, w};
	return v;
}
#define SZ_G_(T) __attribute__((address_space(1))) T
#endif

#define SZ_GLD_(name, T)                                                                           \
	SZ_DEVICE T sz_gld_##name(const void *p)                                                   \
	{                                                                                          \
		return *(const SZ_G_(T) *)p; /* a C cast: the only one to another address space */ \
	}                                                                                          \
	SZ_DEVICE void sz_gst_##name(void *p, T v)                                                 \
	{                                                                                          \
		*(SZ_G_(T) *)p = v;                                                                \
	}
SZ_GLD_(u8, uint8_t)
SZ_GLD_(u16, uint16_t)
SZ_GLD_(u32, uint32_t)
SZ_GLD_(u64, uint64_t)
SZ_GLD_(x4, sz_u32x4)
#undef SZ_GLD_

#if defined(SZ_GPU_FLAVOUR_CUDA)
/* The read-only (non-coherent texture) path: data no thread writes during the launch. */
SZ_DEVICE uint8_t sz_gldro_u8(const void *p)
{
	return __ldg(static_cast<const unsigned char *>(p));
}
SZ_DEVICE uint16_t sz_gldro_u16(const void *p)
{
	return __ldg(static_cast<const unsigned short *>(p));
}
SZ_DEVICE uint32_t sz_gldro_u32(const void *p)
{
	return __ldg(static_cast<const unsigned int *>(p));
}
SZ_DEVICE uint64_t sz_gldro_u64(const void *p)
{
	return __ldg(static_cast<const unsigned long long *>(p));
}
SZ_DEVICE sz_u32x4 sz_gldro_x4(const void *p)
{
	return __ldg(static_cast<const uint4 *>(p));
}

/* Device-scope atomics (libcu++ atomic_ref: ld.acquire.gpu, st.release.gpu, atom.*.gpu). */
template <typename T> SZ_DEVICE cuda::atomic_ref<T, cuda::thread_scope_device> sz_aref_(const T *p)
{
	sz_atomic_type_check_<T>();
	return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T *>(p));
}
#define SZ_MO_(o) cuda::memory_order_##o
#define SZ_ALOAD_(o)                                                                               \
	template <typename T> SZ_DEVICE T sz_atomic_load_##o(const T *p)                           \
	{                                                                                          \
		return sz_aref_(p).load(SZ_MO_(o));                                                \
	}
#define SZ_ASTORE_(o)                                                                              \
	template <typename T> SZ_DEVICE void sz_atomic_store_##o(T *p, typename sz_id_<T>::type v) \
	{                                                                                          \
		sz_aref_(p).store(v, SZ_MO_(o));                                                   \
	}
#define SZ_ARMW_(op, o)                                                                            \
	template <typename T> SZ_DEVICE T sz_atomic_##op##_##o(T *p, typename sz_id_<T>::type v)   \
	{                                                                                          \
		return sz_aref_(p).fetch_##op(v, SZ_MO_(o));                                       \
	}
#define SZ_AXCHG_                                                                                  \
	template <typename T> SZ_DEVICE T sz_atomic_exch_relaxed(T *p, typename sz_id_<T>::type v) \
	{                                                                                          \
		return sz_aref_(p).exchange(v, SZ_MO_(relaxed));                                   \
	}                                                                                          \
	template <typename T>                                                                      \
	SZ_DEVICE T sz_atomic_cas_relaxed(T *p, typename sz_id_<T>::type cmp,                      \
	                                  typename sz_id_<T>::type v)                              \
	{                                                                                          \
		sz_aref_(p).compare_exchange_strong(cmp, v, SZ_MO_(relaxed));                      \
		return cmp;                                                                        \
	}
SZ_DEVICE void sz_fence_acquire(void)
{
	cuda::atomic_thread_fence(SZ_MO_(acquire), cuda::thread_scope_device);
}
SZ_DEVICE void sz_fence_release(void)
{
	cuda::atomic_thread_fence(SZ_MO_(release), cuda::thread_scope_device);
}
SZ_DEVICE void sz_fence_acq_rel(void)
{
	cuda::atomic_thread_fence(SZ_MO_(acq_rel), cuda::thread_scope_device);
}
/* Shared memory: relaxed, block scope (atom.shared). */
template <typename T> SZ_DEVICE T sz_smem_atomic_add(T *p, typename sz_id_<T>::type v)
{
	return atomicAdd(p, v);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_or(T *p, typename sz_id_<T>::type v)
{
	return atomicOr(p, v);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_max(T *p, typename sz_id_<T>::type v)
{
	return atomicMax(p, v);
}
#else /* HIP */
SZ_DEVICE uint8_t sz_gldro_u8(const void *p)
{
	return sz_gld_u8(p);
}
SZ_DEVICE uint16_t sz_gldro_u16(const void *p)
{
	return sz_gld_u16(p);
}
SZ_DEVICE uint32_t sz_gldro_u32(const void *p)
{
	return sz_gld_u32(p);
}
SZ_DEVICE uint64_t sz_gldro_u64(const void *p)
{
	return sz_gld_u64(p);
}
SZ_DEVICE sz_u32x4 sz_gldro_x4(const void *p)
{
	return sz_gld_x4(p);
}

/* Agent-scope atomics (clang builtins, no ROCm device library needed), on address-space-1
 * pointers so that they are global_atomic_* rather than flat_* (global memory only). */
#define SZ_MO_(o) SZ_HIP_MO_##o
#define SZ_HIP_MO_relaxed __ATOMIC_RELAXED
#define SZ_HIP_MO_acquire __ATOMIC_ACQUIRE
#define SZ_HIP_MO_release __ATOMIC_RELEASE
#define SZ_HIP_MO_acq_rel __ATOMIC_ACQ_REL
#define SZ_ALOAD_(o)                                                                               \
	template <typename T> SZ_DEVICE T sz_atomic_load_##o(const T *p)                           \
	{                                                                                          \
		sz_atomic_type_check_<T>();                                                        \
		return __hip_atomic_load((const SZ_G_(T) *)p, SZ_MO_(o),                           \
		                         __HIP_MEMORY_SCOPE_AGENT);                                \
	}
#define SZ_ASTORE_(o)                                                                              \
	template <typename T> SZ_DEVICE void sz_atomic_store_##o(T *p, typename sz_id_<T>::type v) \
	{                                                                                          \
		sz_atomic_type_check_<T>();                                                        \
		__hip_atomic_store((SZ_G_(T) *)p, v, SZ_MO_(o), __HIP_MEMORY_SCOPE_AGENT);         \
	}
#define SZ_ARMW_(op, o)                                                                            \
	template <typename T> SZ_DEVICE T sz_atomic_##op##_##o(T *p, typename sz_id_<T>::type v)   \
	{                                                                                          \
		sz_atomic_type_check_<T>();                                                        \
		return __hip_atomic_fetch_##op((SZ_G_(T) *)p, v, SZ_MO_(o),                        \
		                               __HIP_MEMORY_SCOPE_AGENT);                          \
	}
#define SZ_AXCHG_                                                                                  \
	template <typename T> SZ_DEVICE T sz_atomic_exch_relaxed(T *p, typename sz_id_<T>::type v) \
	{                                                                                          \
		return __hip_atomic_exchange((SZ_G_(T) *)p, v, __ATOMIC_RELAXED,                   \
		                             __HIP_MEMORY_SCOPE_AGENT);                            \
	}                                                                                          \
	template <typename T>                                                                      \
	SZ_DEVICE T sz_atomic_cas_relaxed(T *p, typename sz_id_<T>::type cmp,                      \
	                                  typename sz_id_<T>::type v)                              \
	{                                                                                          \
		__hip_atomic_compare_exchange_strong((SZ_G_(T) *)p, &cmp, v, __ATOMIC_RELAXED,     \
		                                     __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  \
		return cmp;                                                                        \
	}
SZ_DEVICE void sz_fence_acquire(void)
{
	__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
}
SZ_DEVICE void sz_fence_release(void)
{
	__builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
}
SZ_DEVICE void sz_fence_acq_rel(void)
{
	__builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "agent");
}
/* Shared memory (LDS): relaxed, workgroup scope. */
template <typename T> SZ_DEVICE T sz_smem_atomic_add(T *p, typename sz_id_<T>::type v)
{
	return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_or(T *p, typename sz_id_<T>::type v)
{
	return __hip_atomic_fetch_or(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}
template <typename T> SZ_DEVICE T sz_smem_atomic_max(T *p, typename sz_id_<T>::type v)
{
	return __hip_atomic_fetch_max(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
}
#endif
SZ_ALOAD_(relaxed)
SZ_ALOAD_(acquire)
SZ_ASTORE_(relaxed)
SZ_ASTORE_(release)
SZ_ARMW_(add, relaxed)
SZ_ARMW_(add, release)
SZ_ARMW_(add, acq_rel)
SZ_ARMW_(or, relaxed)
SZ_ARMW_(max, relaxed)
SZ_AXCHG_
#undef SZ_ALOAD_
#undef SZ_ASTORE_
#undef SZ_ARMW_
#undef SZ_AXCHG_
#undef SZ_MO_
#undef SZ_G_

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
/*
 * *pp, a pointer to global memory that the kernel reads from memory (a batch's pointer
 * tables). HIP loads it as an address-space-1 pointer, so the accesses through it are global_*
 * rather than flat_* (pointers in the kernel arguments are known to be global already; a
 * cast of the loaded value would be folded away).
 */
template <typename T> SZ_DEVICE T *sz_load_global_ptr(T *const *pp)
{
#if defined(SZ_GPU_FLAVOUR_HIP) && defined(__HIP_DEVICE_COMPILE__)
	typedef __attribute__((address_space(1))) T *sz_gptr_;
	return (T *)*(const sz_gptr_ *)(const void *)pp;
#else
	return *pp;
#endif
}

/*
 * Source lane of a shuffle (SIMT.md 2.3) for lane l in segments of width w (a power of two <= W;
 * deltas and xor masks in [0, W)): idx: seg | (src & (w-1)); up / down: l -/+ delta, or l past
 * the segment's start / end; xor: l ^ m, or l past the segment's end. The HIP flavour moves
 * values with ds_bpermute from these lanes; tests/simt checks them against its own table.
 */
SZ_HOST_DEVICE unsigned sz_shfl_src_idx(unsigned l, int a, int w)
{
	return (l & ~(unsigned)(w - 1)) | ((unsigned)a & (unsigned)(w - 1));
}
SZ_HOST_DEVICE unsigned sz_shfl_src_up(unsigned l, unsigned a, int w)
{
	return a > (l & (unsigned)(w - 1)) ? l : l - a;
}
SZ_HOST_DEVICE unsigned sz_shfl_src_down(unsigned l, unsigned a, int w)
{
	return l + a > (l | (unsigned)(w - 1)) ? l : l + a;
}
SZ_HOST_DEVICE unsigned sz_shfl_src_xor(unsigned l, int a, int w)
{
	return (l ^ (unsigned)a) > (l | (unsigned)(w - 1)) ? l : l ^ (unsigned)a;
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

/* Whether kernels copy warp-uniform values out of shared memory into locals (sz_uniform_*) up
 * front: HIP (scalar registers) and the harness (which checks the claim); CUDA reads shared
 * memory where the value is used, which its register allocation prefers. */
#if defined(SZ_GPU_FLAVOUR_CUDA)
#define SZ_HOIST_UNIFORM 0
#else
#define SZ_HOIST_UNIFORM 1
#endif

/*
 * v, a value every lane of the warp holds equally (read from shared memory, say; all W lanes
 * call): HIP keeps it in a scalar register (v_readfirstlane) instead of a vector register,
 * which holds a kernel's VGPR count down; CUDA: v itself; the CPU harness checks that every
 * lane passed the same v (a kernel trap otherwise), since a wrong claim would be a bug on
 * HIP only.
 */
template <int W> SZ_DEVICE uint32_t sz_uniform_u32(uint32_t v)
{
#if defined(SZ_GPU_FLAVOUR_HIP) && defined(__HIP_DEVICE_COMPILE__)
	return (uint32_t)__builtin_amdgcn_readfirstlane((int)v);
#elif defined(SZ_GPU_FLAVOUR_CPU)
	const uint32_t u = sz_shfl<W>(sz_full_mask<W>(), v, 0);
	SZ_KERNEL_CHECK(u == v);
	return u;
#else
	return v;
#endif
}
template <int W> SZ_DEVICE uint64_t sz_uniform_u64(uint64_t v)
{
	return (uint64_t)sz_uniform_u32<W>((uint32_t)(v >> 32)) << 32 |
	       sz_uniform_u32<W>((uint32_t)v);
}
template <int W, typename T> SZ_DEVICE T *sz_uniform_ptr(T *p)
{
	return (T *)(uintptr_t)sz_uniform_u64<W>((uint64_t)(uintptr_t)p);
}

#endif /* SZ_GPU_COMPAT_CUH */
