/*
 * sz_api_device_dtype_enc.c -- compression of the dtypes FP8 E4M3, FP8 E5M2, FP16 and FP32
 * (doc/FORMAT.md 1.3) on a device context (public API): the workspace size, the asynchronous
 * call on device memory, and splitzip_compress_dtype()'s copy through the device. The
 * host-side checks are those of splitzip_dtype_encode(), so a device context refuses exactly
 * what a host context does, with the same status; the kernels are the GPU module's
 * (backends/gpu/sz_gpu_dtype_enc.cuh).
 */
#include "sz_api.h"
#include "../core/sz_dtype.h"

/*
 * The parameters of a compression of n_elems elements of 'dtype' (2-5) with the context's
 * parameters into '*a' (frames, workspace and max_elems zero): INVALID_ARGUMENT (a dtype
 * outside 2-5, the split4 encoding for E4M3, an encoding or chunk size out of range, n_elems
 * above SPLITZIP_MAX_FRAME_ELEMS) or BAD_CODEBOOK (a fixed codebook or table not valid for the
 * dtype), as splitzip_dtype_encode().
 */
static splitzip_status dt_enc_params(const splitzip_ctx *ctx, unsigned dtype, size_t n_elems,
                                     sz_gpu_dt_enc *a)
{
	const splitzip_params *p = &ctx->params;
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(dtype);
	if (!d || d->code == SPLITZIP_DTYPE_BF16 || p->encoding > SPLITZIP_ENCODING_AUTO ||
	    (p->encoding == SPLITZIP_ENCODING_SPLIT4 && !d->split4) ||
	    p->chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || p->chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX ||
	    (uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_dtype_encoder e;
	e.dtype = dtype;
	e.chunk_log2 = p->chunk_log2;
	e.flags = p->flags;
	e.encoding = p->encoding;
	e.codebook = p->codebook_mode == SPLITZIP_CODEBOOK_FIXED ? p->codebook.exponents : NULL;
	e.table = p->table_mode == SPLITZIP_CODEBOOK_FIXED ? &p->table : NULL;
	if (!splitzip_dtype_fixed_ok(&e, d))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	memset(a, 0, sizeof *a);
	a->dtype = dtype;
	a->chunk_log2 = p->chunk_log2;
	a->flags = p->flags;
	a->encoding = (uint32_t)p->encoding;
	a->split4.from_input = p->codebook_mode == SPLITZIP_CODEBOOK_FROM_INPUT;
	memcpy(a->split4.codebook, p->codebook.exponents, 16);
	a->entropy.from_input = p->table_mode == SPLITZIP_CODEBOOK_FROM_INPUT;
	memcpy(a->entropy.table, p->table.lengths, 256);
	a->entropy.table[SPLITZIP_ENTROPY_ESC] = p->table.escape_length;
	return SPLITZIP_OK;
}

splitzip_status splitzip_workspace_size_dtype(const splitzip_ctx *ctx, unsigned dtype,
                                              size_t max_elems, size_t *bytes)
{
	if (dtype == SPLITZIP_DTYPE_BF16)
		return splitzip_workspace_size(ctx, max_elems, bytes);
	if (!ctx || !bytes || !splitzip_dtype_desc_of(dtype) ||
	    (uint64_t)max_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint64_t ws = sz_gpu_dt_workspace_size(1, max_elems, ctx->params.chunk_log2);
	if (ws > (uint64_t)SIZE_MAX)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*bytes = (size_t)ws;
	return SPLITZIP_OK;
}

splitzip_status splitzip_compress_dtype_async(splitzip_ctx *ctx, unsigned dtype, const void *d_src,
                                              size_t n_elems, void *d_dst, size_t dst_cap,
                                              size_t *d_dst_size, int32_t *d_status,
                                              void *d_workspace, size_t ws_bytes, void *stream)
{
	if (dtype == SPLITZIP_DTYPE_BF16)
		return splitzip_compress_async(ctx, (const uint16_t *)d_src, n_elems, d_dst,
		                               dst_cap, d_dst_size, d_status, d_workspace, ws_bytes,
		                               stream);
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = splitzip_api_gpu_module(ctx, &m);
	if (st != SPLITZIP_OK)
		return st;
	size_t need = 0; /* the size first: an argument's order of evaluation is unspecified */
	st = splitzip_workspace_size_dtype(ctx, dtype, n_elems, &need);
	st = splitzip_api_workspace_check(st, need, d_workspace, ws_bytes);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_dst || !d_dst_size || !d_status || !sz_api_aligned(d_dst_size, sizeof(size_t)) ||
	    !sz_api_aligned(d_status, sizeof(int32_t)) || (!d_src && n_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_dt_enc a;
	st = dt_enc_params(ctx, dtype, n_elems, &a);
	if (st != SPLITZIP_OK)
		return st;
	a.frames.one.src = d_src;
	a.frames.one.n = n_elems;
	a.frames.one.dst = d_dst;
	a.frames.one.cap = dst_cap;
	a.frames.out_sizes = d_dst_size;
	a.frames.statuses = d_status;
	a.ws = (uint8_t *)d_workspace;
	a.max_elems = n_elems;
	return m->dtype_compress(&a, 1, stream);
}

splitzip_status splitzip_device_dtype_host_compress(splitzip_ctx *ctx, unsigned dtype,
                                                    const void *src, size_t n_elems, void *dst,
                                                    size_t dst_cap, size_t *dst_size)
{
	const splitzip_gpu_module *m = splitzip_gpu_module_of(ctx->backend);
	if (!m)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	sz_gpu_dt_enc p;
	const splitzip_status st = dt_enc_params(ctx, dtype, n_elems, &p);
	if (st != SPLITZIP_OK)
		return st;
	return m->dtype_host_compress(&p, src, n_elems, dst, dst_cap, dst_size);
}
