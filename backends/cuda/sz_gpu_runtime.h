/*
 * sz_gpu_runtime.h (CUDA) -- the host runtime calls of the GPU module, CUDA spelling. The HIP
 * twin is backends/hip/sz_gpu_runtime.h; backends/gpu/sz_gpu_module.cuh uses only these names.
 */
#ifndef SZ_GPU_RUNTIME_H
#define SZ_GPU_RUNTIME_H

#include <cuda_runtime.h>

#define SZ_RT(name) cuda##name
#define SZ_RT_OK cudaSuccess
#define SZ_RT_H2D cudaMemcpyHostToDevice
#define SZ_RT_D2H cudaMemcpyDeviceToHost
#define SZ_RT_MODULE_NAME "cuda"
typedef cudaStream_t sz_rt_stream;
typedef cudaError_t sz_rt_error;

/* Graph capture of a stream, for tests that prove the calls neither allocate nor wait. */
typedef cudaGraph_t sz_rt_graph;
typedef cudaGraphExec_t sz_rt_graph_exec;
static inline cudaError_t sz_rt_capture_begin(cudaStream_t s)
{
	return cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
}
static inline cudaError_t sz_rt_graph_instantiate(sz_rt_graph_exec *e, sz_rt_graph g)
{
	return cudaGraphInstantiate(e, g, 0);
}

/* NVIDIA warps have 32 lanes; the kernels are built for W = 32 only. */
static inline int sz_rt_warp_size(void)
{
	return 32;
}

/* Multiprocessors of device dev. */
static inline cudaError_t sz_rt_sm_count(int dev, int *sms)
{
	return cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
}

/* Resident blocks of 'threads' threads of kernel k per multiprocessor (no dynamic shared
 * memory): the runtime's occupancy query, from the kernel's registers and shared memory. */
static inline cudaError_t sz_rt_blocks_per_sm(int *per, const void *k, unsigned threads)
{
	return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per, k, (int)threads, 0);
}

/* Kernel k on a grid of gx x gy blocks of 'block' threads, on stream s; the launch error. */
template <typename... P, typename... A>
static inline cudaError_t sz_rt_launch(void (*k)(P...), unsigned gx, unsigned gy, unsigned block,
                                       cudaStream_t s, A... args)
{
	k<<<dim3(gx, gy), block, 0, s>>>(args...);
	return cudaGetLastError();
}

#endif
