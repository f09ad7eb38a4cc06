/*
 * gpu_compile_check.cu -- builds the harness self-test kernels with nvcc (W = 32) and hipcc
 * (-x hip; W = 32 and 64), to show that sz_gpu_compat.cuh and kernels written against it compile
 * for real GPUs. Compile only (ci/gpu-compile-check.sh); nothing here is launched.
 */
#include "simt_kernels.cuh"

#define SZ_INSTANTIATE(W)                                                                          \
	template SZ_GLOBAL void k_indices<W>(uint32_t *, uint32_t *);                              \
	template SZ_GLOBAL void k_barrier_phases<W>(uint32_t *, int, int);                         \
	template SZ_GLOBAL void k_shfl<W>(const uint64_t *, uint64_t *, int, int, int, int, int);  \
	template SZ_GLOBAL void k_block_scan<W, uint32_t>(const uint32_t *, uint32_t *);           \
	template SZ_GLOBAL void k_block_scan<W, uint64_t>(const uint64_t *, uint64_t *);           \
	template SZ_GLOBAL void k_compact<W>(const uint16_t *, uint32_t, uint32_t, unsigned,       \
	                                     uint32_t *, uint32_t *);                              \
	template SZ_GLOBAL void k_votes<W>(uint64_t *, int);                                       \
	template SZ_GLOBAL void k_atomics<W>(uint32_t *, uint64_t *, uint32_t *);                  \
	template SZ_GLOBAL void k_smem<W>(uint32_t *, uint32_t);                                   \
	template SZ_GLOBAL void k_chain<W>(uint32_t *, uint32_t *);                                \
	template SZ_GLOBAL void k_publish<W>(uint32_t *, uint32_t *, unsigned, int, uint32_t *);   \
	template SZ_GLOBAL void k_last_block<W>(uint32_t *, uint32_t *, int, uint32_t *);

SZ_INSTANTIATE(32)
#if defined(SZ_GPU_FLAVOUR_HIP)
SZ_INSTANTIATE(64)
#endif
