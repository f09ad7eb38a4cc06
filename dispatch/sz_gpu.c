/*
 * sz_gpu.c -- the "cuda" and "hip" backends as seen from libsplitzip: loading their modules
 * (dlopen, never a link-time dependency), probing, and the device-memory API of splitzip.h.
 *
 * A module is looked up, in order: the path in SPLITZIP_CUDA_MODULE / SPLITZIP_HIP_MODULE if
 * set (and nothing else then: a named module that fails to load means the backend is
 * unavailable); the directory of the library or program this code is linked into; the
 * install libdir; the plain file name (the dynamic loader's search path). The result of the
 * first load and probe is cached; loading twice from two threads is harmless.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip_config.h"
#include "../core/sz_internal.h"
#include "../backends/gpu/sz_gpu_module.h"

#if SPLITZIP_HAVE_CUDA || SPLITZIP_HAVE_HIP

struct splitzip_gpu_loader {
	const char *env;  /* environment variable naming the module file */
	const char *file; /* module file name */
	_Atomic(const splitzip_gpu_module *) module;
	atomic_int state; /* 0 unknown, 1 loaded and a device present, -1 unusable */
};

static const splitzip_gpu_module *try_open(const char *path, const char *name)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	splitzip_gpu_module_get_fn get =
	    (splitzip_gpu_module_get_fn)(uintptr_t)dlsym(h, SPLITZIP_GPU_MODULE_SYMBOL);
	const splitzip_gpu_module *m = get ? get() : NULL;
	if (!m || m->abi != SPLITZIP_GPU_MODULE_ABI || strcmp(m->name, name) != 0) {
		dlclose(h);
		return NULL;
	}
	return m; /* stays loaded for the life of the process */
}

static const splitzip_gpu_module *load_module(struct splitzip_gpu_loader *ld, const char *name)
{
	const char *forced = getenv(ld->env);
	if (forced && *forced)
		return try_open(forced, name);
	char path[4096];
	Dl_info info;
	if (dladdr((void *)(uintptr_t)&load_module, &info) && info.dli_fname) {
		const char *slash = strrchr(info.dli_fname, '/');
		if (slash) {
			int len = (int)(slash - info.dli_fname);
			snprintf(path, sizeof path, "%.*s/%s", len, info.dli_fname, ld->file);
			const splitzip_gpu_module *m = try_open(path, name);
			if (m)
				return m;
		}
	}
	snprintf(path, sizeof path, "%s/%s", SPLITZIP_INSTALL_LIBDIR, ld->file);
	const splitzip_gpu_module *m = try_open(path, name);
	return m ? m : try_open(ld->file, name);
}

/* The module if it loaded and sees a device, else NULL. Probing may initialise the driver. */
static const splitzip_gpu_module *usable(struct splitzip_gpu_loader *ld, const char *name)
{
	int s = atomic_load_explicit(&ld->state, memory_order_acquire);
	if (s == 0) {
		const splitzip_gpu_module *m = load_module(ld, name);
		s = (m && m->probe()) ? 1 : -1;
		atomic_store_explicit(&ld->module, m, memory_order_relaxed);
		atomic_store_explicit(&ld->state, s, memory_order_release);
	}
	return s > 0 ? atomic_load_explicit(&ld->module, memory_order_relaxed) : NULL;
}

#if SPLITZIP_HAVE_CUDA
static struct splitzip_gpu_loader cuda_loader = {"SPLITZIP_CUDA_MODULE", "libsplitzip_cuda.so",
                                                 NULL, 0};
static int probe_cuda(void)
{
	return usable(&cuda_loader, "cuda") != NULL;
}
/* The host slots of a device backend are never called (host-memory calls on a device context
 * go through the module); they hold the reference kernels so that every slot is valid. */
const splitzip_backend splitzip_backend_cuda = {
    .name = "cuda",
    .id = SPLITZIP_BACKEND_CUDA,
    .mem_space = SPLITZIP_MEM_DEVICE,
    .probe = probe_cuda,
    .histogram = splitzip_ref_histogram,
    .encode_chunk = splitzip_ref_encode_chunk,
    .decode_chunk = splitzip_ref_decode_chunk,
    .encode_chunk_stream = splitzip_ref_encode_chunk,
    .decode_chunk_stream = splitzip_ref_decode_chunk,
    .hash_chunk = splitzip_hash_bytes,
    .gpu = &cuda_loader,
};
#endif

#if SPLITZIP_HAVE_HIP
static struct splitzip_gpu_loader hip_loader = {"SPLITZIP_HIP_MODULE", "libsplitzip_hip.so", NULL,
                                                0};
static int probe_hip(void)
{
	return usable(&hip_loader, "hip") != NULL;
}
const splitzip_backend splitzip_backend_hip = {
    .name = "hip",
    .id = SPLITZIP_BACKEND_HIP,
    .mem_space = SPLITZIP_MEM_DEVICE,
    .probe = probe_hip,
    .histogram = splitzip_ref_histogram,
    .encode_chunk = splitzip_ref_encode_chunk,
    .decode_chunk = splitzip_ref_decode_chunk,
    .encode_chunk_stream = splitzip_ref_encode_chunk,
    .decode_chunk_stream = splitzip_ref_decode_chunk,
    .hash_chunk = splitzip_hash_bytes,
    .gpu = &hip_loader,
};
#endif

/* The module of a context bound to a GPU backend (selection probed it), else NULL. */
static const splitzip_gpu_module *ctx_module(const splitzip_ctx *ctx)
{
	if (!ctx || !ctx->backend->gpu)
		return NULL;
	return usable(ctx->backend->gpu, ctx->backend->name);
}

#else
static const splitzip_gpu_module *ctx_module(const splitzip_ctx *ctx)
{
	(void)ctx;
	return NULL;
}
#endif /* SPLITZIP_HAVE_CUDA || SPLITZIP_HAVE_HIP */

/* ---- Workspace ------------------------------------------------------------------------------ */

static int ws_bytes_for(const splitzip_ctx *ctx, size_t n_frames, size_t max_elems, size_t *out)
{
	if ((uint64_t)max_elems > SPLITZIP_MAX_ELEMS)
		return 0;
	const uint64_t stride = sz_gpu_ws_stride(max_elems, ctx->params.chunk_log2);
	if (n_frames && stride > (uint64_t)SIZE_MAX / n_frames)
		return 0;
	*out = (size_t)(stride * n_frames);
	return 1;
}

splitzip_status splitzip_workspace_size(const splitzip_ctx *ctx, size_t max_elems, size_t *bytes)
{
	return splitzip_workspace_size_batch(ctx, 1, max_elems, bytes);
}

splitzip_status splitzip_workspace_size_batch(const splitzip_ctx *ctx, size_t n_frames,
                                              size_t max_elems, size_t *bytes)
{
	if (!ctx || !bytes || !ws_bytes_for(ctx, n_frames, max_elems, bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return SPLITZIP_OK;
}

/* ---- Device-memory calls ------------------------------------------------------------------- */

/* Shared host-side checks of the async calls; the module of the context in '*m'. */
static splitzip_status check_async(splitzip_ctx *ctx, size_t n_frames, size_t max_elems,
                                   const void *ws, size_t ws_bytes, const splitzip_gpu_module **m)
{
	if (!ctx)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*m = ctx_module(ctx);
	if (!*m)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	size_t need = 0;
	if (!ws || !ws_bytes_for(ctx, n_frames, max_elems, &need) || ws_bytes < need)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return SPLITZIP_OK;
}

static void enc_params(const splitzip_ctx *ctx, sz_gpu_enc *a)
{
	memset(a, 0, sizeof *a);
	a->chunk_log2 = ctx->params.chunk_log2;
	a->flags = ctx->params.flags;
	a->from_input = ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FROM_INPUT;
	memcpy(a->codebook, ctx->params.codebook.exponents, 16);
}

splitzip_status splitzip_compress_async(splitzip_ctx *ctx, const uint16_t *d_src, size_t n_elems,
                                        void *d_dst, size_t dst_cap, size_t *d_dst_size,
                                        int32_t *d_status, void *d_workspace, size_t ws_bytes,
                                        void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, 1, n_elems, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_dst || !d_dst_size || !d_status || (!d_src && n_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_enc a;
	enc_params(ctx, &a);
	a.src1 = d_src;
	a.n1 = n_elems;
	a.dst1 = d_dst;
	a.cap1 = dst_cap;
	a.out_sizes = d_dst_size;
	a.statuses = d_status;
	a.ws = (uint8_t *)d_workspace;
	a.max_elems = n_elems;
	return m->compress(&a, 1, stream);
}

splitzip_status splitzip_compress_batch_async(splitzip_ctx *ctx, size_t n_frames,
                                              const uint16_t *const *d_srcs,
                                              const size_t *d_n_elems, size_t max_elems,
                                              void *const *d_dsts, const size_t *d_dst_caps,
                                              size_t *d_dst_sizes, int32_t *d_statuses,
                                              void *d_workspace, size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, n_frames, max_elems, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_srcs || !d_n_elems || !d_dsts || !d_dst_caps || !d_dst_sizes || !d_statuses)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (n_frames == 0)
		return SPLITZIP_OK;
	sz_gpu_enc a;
	enc_params(ctx, &a);
	a.srcs = d_srcs;
	a.n_elems = d_n_elems;
	a.dsts = d_dsts;
	a.dst_caps = d_dst_caps;
	a.out_sizes = d_dst_sizes;
	a.statuses = d_statuses;
	a.ws = (uint8_t *)d_workspace;
	a.max_elems = max_elems;
	return m->compress(&a, n_frames, stream);
}

splitzip_status splitzip_decompress_async(splitzip_ctx *ctx, const void *d_src, size_t src_size,
                                          uint16_t *d_dst, size_t dst_cap_elems, size_t *d_n_elems,
                                          int32_t *d_status, void *d_workspace, size_t ws_bytes,
                                          void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, 1, dst_cap_elems, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_src || !d_n_elems || !d_status || (!d_dst && dst_cap_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_dec a;
	memset(&a, 0, sizeof a);
	a.src1 = d_src;
	a.size1 = src_size;
	a.dst1 = d_dst;
	a.cap1 = dst_cap_elems;
	a.out_elems = d_n_elems;
	a.statuses = d_status;
	a.ws = (uint8_t *)d_workspace;
	a.ws_stride = sz_gpu_ws_stride(dst_cap_elems, ctx->params.chunk_log2);
	return m->decompress(&a, 1, dst_cap_elems, stream);
}

splitzip_status splitzip_decompress_batch_async(splitzip_ctx *ctx, size_t n_frames,
                                                const void *const *d_srcs,
                                                const size_t *d_src_sizes, uint16_t *const *d_dsts,
                                                const size_t *d_dst_caps, size_t max_dst_elems,
                                                size_t *d_n_elems, int32_t *d_statuses,
                                                void *d_workspace, size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, n_frames, max_dst_elems, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_srcs || !d_src_sizes || !d_dsts || !d_dst_caps || !d_n_elems || !d_statuses)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (n_frames == 0)
		return SPLITZIP_OK;
	sz_gpu_dec a;
	memset(&a, 0, sizeof a);
	a.srcs = d_srcs;
	a.src_sizes = d_src_sizes;
	a.dsts = d_dsts;
	a.dst_caps = d_dst_caps;
	a.out_elems = d_n_elems;
	a.statuses = d_statuses;
	a.ws = (uint8_t *)d_workspace;
	a.ws_stride = sz_gpu_ws_stride(max_dst_elems, ctx->params.chunk_log2);
	return m->decompress(&a, n_frames, max_dst_elems, stream);
}

/* ---- Host-memory calls on a device context (core/sz_frame.c) ------------------------------ */

splitzip_status splitzip_gpu_host_compress(splitzip_ctx *ctx, const uint16_t *src, size_t n,
                                           void *dst, size_t dst_cap, size_t *dst_size)
{
	const splitzip_gpu_module *m = ctx_module(ctx);
	if (!m)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	sz_gpu_enc p;
	enc_params(ctx, &p);
	return m->host_compress(&p, src, n, dst, dst_cap, dst_size);
}

splitzip_status splitzip_gpu_host_decompress_frame(splitzip_ctx *ctx, const void *src,
                                                   size_t src_size, size_t *src_consumed,
                                                   uint16_t *dst, size_t dst_cap_elems,
                                                   size_t *n_elems)
{
	const splitzip_gpu_module *m = ctx_module(ctx);
	if (!m)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	return m->host_decompress_frame(src, src_size, src_consumed, dst, dst_cap_elems, n_elems);
}
