/*
 * sz_gpu_runtime.h (CPU SIMT harness) -- the runtime calls of backends/gpu/sz_gpu_module.cuh
 * and of the device suite (tests/gpu/test_gpu_device.cu) over the CPU: "device" memory is host
 * memory (exact-size allocations, so ASan sees any access past a buffer), kernels run through
 * the SIMT harness (tests/simt) when they are launched, streams run their work at once, and a
 * stream in capture records its launches into a graph that GraphLaunch replays in order. The
 * CUDA and HIP spellings are backends/cuda/sz_gpu_runtime.h and backends/hip/sz_gpu_runtime.h.
 *
 * The device it plays (environment, read at each call):
 *   SZ_SIMT_WARP        warp size, 32 (default) or 64
 *   SZ_SIMT_SMS         multiprocessors (default 2): with each kernel's resident blocks per
 *                       multiprocessor (sz_gpu_model_blocks, from what the kernel declares)
 *                       the grids the driver sizes, and whether batches go one block per frame
 *   SZ_SIMT_MODULE_AS   the backend name the module reports: "cuda" (default) or "hip", so
 *                       that the loader takes it for SPLITZIP_CUDA_MODULE / SPLITZIP_HIP_MODULE
 * Include sz_simt_compat.h first.
 */
#ifndef SZ_GPU_RUNTIME_H
#define SZ_GPU_RUNTIME_H

#include "sz_simt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <functional>
#include <vector>

#define SZ_RT(name) sz_simt_rt_##name
#define SZ_RT_OK 0
#define SZ_RT_H2D 1
#define SZ_RT_D2H 2
#define SZ_RT_MODULE_NAME sz_simt_rt_module_name()

typedef int sz_rt_error;

/* A stream: its work runs at once, unless it is capturing into a graph. */
struct sz_simt_rt_stream_ {
	std::vector<std::function<void()>> *capture = nullptr;
};
typedef sz_simt_rt_stream_ *sz_rt_stream;
struct sz_simt_rt_graph_ {
	std::vector<std::function<void()>> ops;
};
typedef sz_simt_rt_graph_ *sz_rt_graph;
typedef sz_simt_rt_graph_ *sz_rt_graph_exec;

static inline int sz_simt_rt_env(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}
static inline const char *sz_simt_rt_module_name(void)
{
	const char *v = getenv("SZ_SIMT_MODULE_AS");
	return v && !strcmp(v, "hip") ? "hip" : "cuda";
}
static inline int sz_rt_warp_size(void)
{
	return sz_simt_rt_env("SZ_SIMT_WARP", 32) == 64 ? 64 : 32;
}

static inline sz_rt_error sz_simt_rt_Malloc(void **p, size_t n)
{
	return posix_memalign(p, 256, n ? n : 1) == 0 ? SZ_RT_OK : 2;
}
static inline sz_rt_error sz_simt_rt_Free(void *p)
{
	free(p);
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_Memcpy(void *d, const void *s, size_t n, int)
{
	if (n)
		memcpy(d, s, n);
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_Memset(void *d, int v, size_t n)
{
	memset(d, v, n);
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_GetDevice(int *dev)
{
	*dev = 0;
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_GetDeviceCount(int *n)
{
	*n = 1;
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_DeviceSynchronize(void)
{
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_StreamCreate(sz_rt_stream *s)
{
	*s = new sz_simt_rt_stream_();
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_StreamDestroy(sz_rt_stream s)
{
	delete s;
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_StreamSynchronize(sz_rt_stream)
{
	return SZ_RT_OK;
}
static inline sz_rt_error sz_rt_capture_begin(sz_rt_stream s)
{
	if (!s || s->capture)
		return 3;
	s->capture = new std::vector<std::function<void()>>();
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_StreamEndCapture(sz_rt_stream s, sz_rt_graph *g)
{
	if (!s || !s->capture)
		return 3;
	*g = new sz_simt_rt_graph_();
	(*g)->ops.swap(*s->capture);
	delete s->capture;
	s->capture = nullptr;
	return SZ_RT_OK;
}
static inline sz_rt_error sz_rt_graph_instantiate(sz_rt_graph_exec *e, sz_rt_graph g)
{
	*e = new sz_simt_rt_graph_(*g);
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_GraphLaunch(sz_rt_graph_exec e, sz_rt_stream)
{
	for (const auto &op : e->ops)
		op();
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_GraphExecDestroy(sz_rt_graph_exec e)
{
	delete e;
	return SZ_RT_OK;
}
static inline sz_rt_error sz_simt_rt_GraphDestroy(sz_rt_graph g)
{
	delete g;
	return SZ_RT_OK;
}

static inline sz_rt_error sz_rt_sm_count(int, int *sms)
{
	*sms = sz_simt_rt_env("SZ_SIMT_SMS", 2);
	return *sms > 0 ? SZ_RT_OK : 4;
}

/* The occupancy query of the harness (tests/gpu/gpu_simt_module.cpp): the resident blocks per
 * multiprocessor that kernel k declares (sz_gpu_model_blocks). */
sz_rt_error sz_rt_blocks_per_sm(int *per, const void *k, unsigned threads);

/* A launch through the harness, now or (stream capturing) at each replay of the graph. Blocks
 * that wait on each other (look-back, done counters) run interleaved, up to 8 at once. A
 * harness error (divergence, a race the memory model forbids, a trap) is a launch failure. */
template <typename... P, typename... A>
sz_rt_error sz_rt_launch(void (*k)(P...), unsigned gx, unsigned gy, unsigned block, sz_rt_stream s,
                         A... args)
{
	sz_simt_config c;
	c.warp = sz_rt_warp_size();
	c.grid = sz_simt_dim(gx, gy);
	c.block = sz_simt_dim(block);
	c.resident = gx * gy < 8 ? gx * gy : 8;
	c.spin_budget = 200000;
	auto run = [c, k, args...]() {
		const sz_simt_result r = sz_simt_launch(c, k, args...);
		if (r.code != SZ_SIMT_OK)
			fprintf(stderr, "sz_simt runtime: %s\n", r.msg);
		return r.code == SZ_SIMT_OK ? SZ_RT_OK : 5;
	};
	if (s && s->capture) {
		s->capture->push_back([run]() { (void)run(); });
		return SZ_RT_OK;
	}
	return run();
}

#endif
