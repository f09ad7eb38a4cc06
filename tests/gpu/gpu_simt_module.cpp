/*
 * gpu_simt_module.cpp -- libsplitzip_simt.so: the GPU module body (backends/gpu/
 * sz_gpu_module.cuh: launcher, driver, host-memory staging, page streams, the exported table)
 * over the CPU SIMT harness, which libsplitzip loads in place of the CUDA or HIP module
 * (SPLITZIP_CUDA_MODULE / SPLITZIP_HIP_MODULE; the name it reports: SZ_SIMT_MODULE_AS). So the
 * public device API (api/sz_api_device.c, api/sz_api_pages.c), the loader and the module's own
 * code run in CI exactly as on a GPU, with host memory as device memory. The device it plays:
 * tests/gpu/simt_rt/sz_gpu_runtime.h.
 */
#include "sz_simt_compat.h"

#include "sz_gpu_runtime.h"

#include "sz_gpu_module.cuh"

#include "sz_gpu_kernel_info.cuh"

/* The harness's occupancy query: what the kernel declares (its launch bounds, its shared
 * memory) on an sm_90-like multiprocessor; kernels the table does not know (the page
 * streams' one-block kernels): the thread limit. */
sz_rt_error sz_rt_blocks_per_sm(int *per, const void *k, unsigned threads)
{
	const sz_gpu_kernel_info *i = sz_gpu_kernel_info_of<32>(k);
	if (!i)
		i = sz_gpu_kernel_info_of<64>(k);
	const sz_gpu_sm_limits sm;
	*per = i ? (int)sz_gpu_model_blocks(*i, threads, sm) : (int)(sm.threads / threads);
	return SZ_RT_OK;
}
