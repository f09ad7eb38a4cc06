/*
 * sz_api_device.c -- the device-memory API of splitzip.h (public API): workspace sizes and the
 * asynchronous calls, checked on the host and handed to the context's GPU module
 * (backends/gpu/sz_gpu_module.h) loaded by dispatch/sz_gpu_loader.c. Also the host-memory
 * calls on a device context, which copy through the device.
 */
#include "sz_api.h"

/* ---- Workspace ------------------------------------------------------------------------------ */

/* The workspace of n_frames frames of up to max_elems elements; INVALID_ARGUMENT if a frame
 * cannot have that many or the size overflows size_t. */
static splitzip_status ws_bytes_for(const splitzip_ctx *ctx, size_t n_frames, size_t max_elems,
                                    size_t *out)
{
	if ((uint64_t)max_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint64_t stride =
	    sz_gpu_ws_stride_for(max_elems, ctx->params.chunk_log2, ctx->params.encoding);
	if (n_frames && stride > (uint64_t)SIZE_MAX / n_frames)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*out = (size_t)(stride * n_frames);
	return SPLITZIP_OK;
}

splitzip_status splitzip_workspace_size(const splitzip_ctx *ctx, size_t max_elems, size_t *bytes)
{
	return splitzip_workspace_size_batch(ctx, 1, max_elems, bytes);
}

splitzip_status splitzip_workspace_size_batch(const splitzip_ctx *ctx, size_t n_frames,
                                              size_t max_elems, size_t *bytes)
{
	if (!ctx || !bytes)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return ws_bytes_for(ctx, n_frames, max_elems, bytes);
}

/* The decoder needs a small state per frame (its header, parsed once, and its counters). */
splitzip_status splitzip_decompress_workspace_size(const splitzip_ctx *ctx, size_t n_frames,
                                                   size_t *bytes)
{
	if (!ctx || !bytes || n_frames > (size_t)SIZE_MAX / SZ_GPU_DEC_WS_STRIDE)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*bytes = n_frames * SZ_GPU_DEC_WS_STRIDE;
	return SPLITZIP_OK;
}

/* ---- Device-memory calls ------------------------------------------------------------------- */

splitzip_status splitzip_api_gpu_module(const splitzip_ctx *ctx, const splitzip_gpu_module **m)
{
	if (!ctx)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*m = splitzip_gpu_module_of(ctx->backend);
	return *m ? SPLITZIP_OK : SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
}

splitzip_status splitzip_api_workspace_check(splitzip_status st, size_t need, const void *ws,
                                             size_t ws_bytes)
{
	return ws && st == SPLITZIP_OK && ws_bytes >= need &&
	               sz_api_aligned(ws, SPLITZIP_WORKSPACE_ALIGN)
	           ? SPLITZIP_OK
	           : SPLITZIP_ERROR_INVALID_ARGUMENT;
}

/* Shared host-side checks of the async calls: the module of the context in '*m', and a
 * workspace for the call ('dec': decompression). */
static splitzip_status check_async(splitzip_ctx *ctx, size_t n_frames, size_t max_elems, int dec,
                                   const void *ws, size_t ws_bytes, const splitzip_gpu_module **m)
{
	const splitzip_status s = splitzip_api_gpu_module(ctx, m);
	if (s != SPLITZIP_OK)
		return s;
	size_t need = 0; /* the size first: an argument's order of evaluation is unspecified */
	const splitzip_status sz = dec ? splitzip_decompress_workspace_size(ctx, n_frames, &need)
	                               : ws_bytes_for(ctx, n_frames, max_elems, &need);
	return splitzip_api_workspace_check(sz, need, ws, ws_bytes);
}

/* The GPU kernels write every encoding (split4, entropy, auto); this stays the one place that
 * refuses an encoding they do not know, before anything is enqueued. */
static splitzip_status check_encoding(const splitzip_ctx *ctx)
{
	return ctx->params.encoding == SPLITZIP_ENCODING_SPLIT4 ||
	               ctx->params.encoding == SPLITZIP_ENCODING_ENTROPY ||
	               ctx->params.encoding == SPLITZIP_ENCODING_AUTO
	           ? SPLITZIP_OK
	           : SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
}

/* Result slots and descriptor arrays: present and aligned to their element types. */
static int results_ok(const void *sizes, const int32_t *statuses)
{
	return sizes && statuses && sz_api_aligned(sizes, sizeof(size_t)) &&
	       sz_api_aligned(statuses, sizeof(int32_t));
}
static int arrays_ok(const void *a, const void *b, const void *c, const void *d)
{
	return a && b && c && d && sz_api_aligned(a, sizeof(void *)) &&
	       sz_api_aligned(b, sizeof(size_t)) && sz_api_aligned(c, sizeof(void *)) &&
	       sz_api_aligned(d, sizeof(size_t));
}

static void enc_params(const splitzip_ctx *ctx, sz_gpu_enc *a)
{
	memset(a, 0, sizeof *a);
	a->chunk_log2 = ctx->params.chunk_log2;
	a->flags = ctx->params.flags;
	a->encoding = (uint32_t)ctx->params.encoding;
	a->split4.from_input = ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FROM_INPUT;
	memcpy(a->split4.codebook, ctx->params.codebook.exponents, 16);
	a->entropy.from_input = ctx->params.table_mode == SPLITZIP_CODEBOOK_FROM_INPUT;
	memcpy(a->entropy.table, ctx->params.table.lengths, 256);
	a->entropy.table[SPLITZIP_ENTROPY_ESC] = ctx->params.table.escape_length;
}

splitzip_status splitzip_compress_async(splitzip_ctx *ctx, const uint16_t *d_src, size_t n_elems,
                                        void *d_dst, size_t dst_cap, size_t *d_dst_size,
                                        int32_t *d_status, void *d_workspace, size_t ws_bytes,
                                        void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, 1, n_elems, 0, d_workspace, ws_bytes, &m);
	if (st == SPLITZIP_OK)
		st = check_encoding(ctx);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_dst || !results_ok(d_dst_size, d_status) || (!d_src && n_elems) ||
	    !sz_api_aligned(d_src, sizeof(uint16_t)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_enc a;
	enc_params(ctx, &a);
	a.frames.one.src = d_src;
	a.frames.one.n = n_elems;
	a.frames.one.dst = d_dst;
	a.frames.one.cap = dst_cap;
	a.frames.out_sizes = d_dst_size;
	a.frames.statuses = d_status;
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
	splitzip_status st = check_async(ctx, n_frames, max_elems, 0, d_workspace, ws_bytes, &m);
	if (st == SPLITZIP_OK)
		st = check_encoding(ctx);
	if (st != SPLITZIP_OK)
		return st;
	if (!arrays_ok(d_srcs, d_n_elems, d_dsts, d_dst_caps) ||
	    !results_ok(d_dst_sizes, d_statuses))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (n_frames == 0)
		return SPLITZIP_OK;
	sz_gpu_enc a;
	enc_params(ctx, &a);
	a.frames.srcs = d_srcs;
	a.frames.n_elems = d_n_elems;
	a.frames.dsts = d_dsts;
	a.frames.dst_caps = d_dst_caps;
	a.frames.out_sizes = d_dst_sizes;
	a.frames.statuses = d_statuses;
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
	splitzip_status st = check_async(ctx, 1, dst_cap_elems, 1, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_src || !results_ok(d_n_elems, d_status) || (!d_dst && dst_cap_elems) ||
	    !sz_api_aligned(d_dst, sizeof(uint16_t)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_dec a;
	memset(&a, 0, sizeof a);
	a.frames.one.src = d_src;
	a.frames.one.size = src_size;
	a.frames.one.dst = d_dst;
	a.frames.one.cap = dst_cap_elems;
	a.frames.out_elems = d_n_elems;
	a.frames.statuses = d_status;
	a.ws = (uint8_t *)d_workspace;
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
	splitzip_status st =
	    check_async(ctx, n_frames, max_dst_elems, 1, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!arrays_ok(d_srcs, d_src_sizes, d_dsts, d_dst_caps) ||
	    !results_ok(d_n_elems, d_statuses))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (n_frames == 0)
		return SPLITZIP_OK;
	sz_gpu_dec a;
	memset(&a, 0, sizeof a);
	a.frames.srcs = d_srcs;
	a.frames.src_sizes = d_src_sizes;
	a.frames.dsts = d_dsts;
	a.frames.dst_caps = d_dst_caps;
	a.frames.out_elems = d_n_elems;
	a.frames.statuses = d_statuses;
	a.ws = (uint8_t *)d_workspace;
	return m->decompress(&a, n_frames, max_dst_elems, stream);
}

/* ---- Frames of every dtype (backends/gpu/sz_gpu_dtype_dec.cuh) ---------------------------- */

splitzip_status splitzip_decompress_dtype_async(splitzip_ctx *ctx, const void *d_src,
                                                size_t src_size, void *d_dst, size_t dst_cap_bytes,
                                                size_t *d_n_elems, int32_t *d_status,
                                                void *d_workspace, size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, 1, 0, 1, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_src || !results_ok(d_n_elems, d_status) || (!d_dst && dst_cap_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_dt_dec a;
	memset(&a, 0, sizeof a);
	a.frames.one.src = d_src;
	a.frames.one.size = src_size;
	a.frames.one.dst = d_dst;
	a.frames.one.cap = dst_cap_bytes;
	a.frames.out_elems = d_n_elems;
	a.frames.statuses = d_status;
	a.ws = (uint8_t *)d_workspace;
	return m->dtype_decompress(&a, 1, dst_cap_bytes, stream);
}

splitzip_status splitzip_decompress_dtype_batch_async(
    splitzip_ctx *ctx, size_t n_frames, const void *const *d_srcs, const size_t *d_src_sizes,
    void *const *d_dsts, const size_t *d_dst_caps, size_t max_dst_bytes, size_t *d_n_elems,
    int32_t *d_statuses, void *d_workspace, size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = check_async(ctx, n_frames, 0, 1, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!arrays_ok(d_srcs, d_src_sizes, d_dsts, d_dst_caps) ||
	    !results_ok(d_n_elems, d_statuses))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (n_frames == 0)
		return SPLITZIP_OK;
	sz_gpu_dt_dec a;
	memset(&a, 0, sizeof a);
	a.frames.srcs = d_srcs;
	a.frames.src_sizes = d_src_sizes;
	a.frames.dsts = d_dsts;
	a.frames.dst_caps = d_dst_caps;
	a.frames.out_elems = d_n_elems;
	a.frames.statuses = d_statuses;
	a.ws = (uint8_t *)d_workspace;
	return m->dtype_decompress(&a, n_frames, max_dst_bytes, stream);
}

/* ---- Host-memory calls on a device context (api/sz_api_host.c) ---------------------------- */

splitzip_status splitzip_device_host_compress(splitzip_ctx *ctx, const uint16_t *src, size_t n,
                                              void *dst, size_t dst_cap, size_t *dst_size)
{
	const splitzip_gpu_module *m = splitzip_gpu_module_of(ctx->backend);
	if (!m || check_encoding(ctx) != SPLITZIP_OK)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	sz_gpu_enc p;
	enc_params(ctx, &p);
	return m->host_compress(&p, src, n, dst, dst_cap, dst_size);
}

splitzip_status splitzip_device_host_decode(splitzip_ctx *ctx, const void *src, size_t src_size,
                                            size_t *src_consumed, uint16_t *dst,
                                            size_t dst_cap_elems, size_t *n_elems)
{
	const splitzip_gpu_module *m = splitzip_gpu_module_of(ctx->backend);
	if (!m)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	return m->host_decompress_frame(src, src_size, src_consumed, dst, dst_cap_elems, n_elems);
}

splitzip_status splitzip_device_host_decode_dtype(splitzip_ctx *ctx, const void *src,
                                                  size_t src_size, size_t *src_consumed, void *dst,
                                                  size_t dst_cap_bytes, size_t *n_elems)
{
	const splitzip_gpu_module *m = splitzip_gpu_module_of(ctx->backend);
	if (!m)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	return m->dtype_host_decompress_frame(src, src_size, src_consumed, dst, dst_cap_bytes,
	                                      n_elems);
}
