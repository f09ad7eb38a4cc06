/*
 * sz_gpu_runtime.h (HIP) -- the host runtime calls of the GPU module, HIP spelling (see
 * backends/cuda/sz_gpu_runtime.h).
 */
#ifndef SZ_GPU_RUNTIME_H
#define SZ_GPU_RUNTIME_H

#include <hip/hip_runtime.h>

#define SZ_RT(name) hip##name
#define SZ_RT_OK hipSuccess
#define SZ_RT_H2D hipMemcpyHostToDevice
#define SZ_RT_D2H hipMemcpyDeviceToHost
#define SZ_RT_MODULE_NAME "hip"
typedef hipStream_t sz_rt_stream;
typedef hipError_t sz_rt_error;

/* Graph capture of a stream, for tests that prove the calls neither allocate nor wait. */
typedef hipGraph_t sz_rt_graph;
typedef hipGraphExec_t sz_rt_graph_exec;
static inline hipError_t sz_rt_capture_begin(hipStream_t s)
{
	return hipStreamBeginCapture(s, hipStreamCaptureModeGlobal);
}
static inline hipError_t sz_rt_graph_instantiate(sz_rt_graph_exec *e, sz_rt_graph g)
{
	return hipGraphInstantiate(e, g, NULL, NULL, 0);
}

/* Wavefront size of the current device: 64 on CDNA (gfx9), 32 on RDNA. 0 if unknown. */
static inline int sz_rt_warp_size(void)
{
	int dev = 0, w = 0;
	if (hipGetDevice(&dev) != hipSuccess ||
	    hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, dev) != hipSuccess)
		return 0;
	return w;
}

/* Multiprocessors of device dev. */
static inline hipError_t sz_rt_sm_count(int dev, int *sms)
{
	return hipDeviceGetAttribute(sms, hipDeviceAttributeMultiprocessorCount, dev);
}

/* Resident blocks of 'threads' threads of kernel k per multiprocessor (no dynamic shared
 * memory): the runtime's occupancy query, from the kernel's registers and shared memory. */
static inline hipError_t sz_rt_blocks_per_sm(int *per, const void *k, unsigned threads)
{
	return hipOccupancyMaxActiveBlocksPerMultiprocessor(per, k, (int)threads, 0);
}

/* Kernel k on a grid of gx x gy blocks of 'block' threads, on stream s; the launch error. */
template <typename... P, typename... A>
static inline hipError_t sz_rt_launch(void (*k)(P...), unsigned gx, unsigned gy, unsigned block,
                                      hipStream_t s, A... args)
{
	k<<<dim3(gx, gy), block, 0, s>>>(args...);
	return hipGetLastError();
}

#endif
