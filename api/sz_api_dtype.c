/*
 * sz_api_dtype.c -- the dtypes of doc/FORMAT.md 1.3 in the public API: widths and names,
 * splitzip_compress_dtype(), and the decoding of one frame of a dtype other than BF16 for the
 * host calls of sz_api_host.c. Those frames run core/sz_dtype*.c on every host backend.
 */
#include "sz_api.h"
#include "../core/sz_dtype_impl.h"

size_t splitzip_dtype_width(unsigned dtype)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(dtype);
	return d ? d->width : 0;
}

const char *splitzip_dtype_name(unsigned dtype)
{
	static const char *const names[5] = {"bf16", "e4m3", "e5m2", "f16", "f32"};
	return splitzip_dtype_desc_of(dtype) ? names[dtype - 1] : NULL;
}

splitzip_status splitzip_histogram_dtype(unsigned dtype, const void *src, size_t n_elems,
                                         uint64_t hist[256])
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(dtype);
	if (!d || !hist || (!src && n_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const int bf16 = dtype == SPLITZIP_DTYPE_BF16;
	if (bf16 && ((uintptr_t)src & 1) == 0) /* the backend's SIMD histogram */
		return splitzip_histogram((const uint16_t *)src, n_elems, hist);
	const uint8_t *p = (const uint8_t *)src;
	uint64_t h[4][256];
	memset(h, 0, sizeof h);
	size_t i = 0; /* four histograms: consecutive equal exponents do not wait on each other */
	for (; i + 4 <= n_elems; i += 4)
		for (unsigned k = 0; k < 4; k++) {
			const uint32_t v = sz_dt_load(d, p, i + k);
			h[k][bf16 ? splitzip_bf16_exponent((uint16_t)v) : sz_dt_exponent(d, v)]++;
		}
	for (; i < n_elems; i++) {
		const uint32_t v = sz_dt_load(d, p, i);
		h[0][bf16 ? splitzip_bf16_exponent((uint16_t)v) : sz_dt_exponent(d, v)]++;
	}
	for (unsigned x = 0; x < 256; x++)
		hist[x] += h[0][x] + h[1][x] + h[2][x] + h[3][x];
	return SPLITZIP_OK;
}

size_t splitzip_compress_bound_dtype(unsigned dtype, size_t n_elems)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(dtype);
	if (!d || (uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return 0;
	return (size_t)splitzip_dtype_stored_size(d, n_elems);
}

splitzip_status splitzip_compress_dtype(splitzip_ctx *ctx, unsigned dtype, const void *src,
                                        size_t n_elems, void *dst, size_t dst_cap, size_t *dst_size)
{
	if (dtype == SPLITZIP_DTYPE_BF16)
		return splitzip_compress(ctx, (const uint16_t *)src, n_elems, dst, dst_cap,
		                         dst_size);
	if (!ctx || !dst || !dst_size || (!src && n_elems) || !splitzip_dtype_desc_of(dtype) ||
	    (uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (!ctx->backend->host) /* the GPU kernels of the dtypes, through the device */
		return splitzip_device_dtype_host_compress(ctx, dtype, src, n_elems, dst, dst_cap,
		                                           dst_size);
	const splitzip_params *p = &ctx->params;
	splitzip_dtype_encoder e;
	e.dtype = dtype;
	e.chunk_log2 = p->chunk_log2;
	e.flags = p->flags;
	e.encoding = p->encoding;
	e.codebook = p->codebook_mode == SPLITZIP_CODEBOOK_FIXED ? p->codebook.exponents : NULL;
	e.table = p->table_mode == SPLITZIP_CODEBOOK_FIXED ? &p->table : NULL;
	return splitzip_dtype_encode(&e, src, n_elems, (uint8_t *)dst, dst_cap, dst_size);
}

splitzip_status splitzip_api_stream_header(const uint8_t *src, size_t size, size_t off,
                                           unsigned first_dtype, splitzip_header *h)
{
	splitzip_status st = splitzip_dtype_read_header(src + off, size - off, h);
	if (st != SPLITZIP_OK)
		return splitzip_stream_status(st, off);
	if (off > 0 && h->dtype != first_dtype) /* FORMAT.md §8.2: one dtype per stream */
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	return h->frame_size > size - off ? SPLITZIP_ERROR_TRUNCATED : SPLITZIP_OK;
}

splitzip_status splitzip_api_dtype_decode(splitzip_ctx *ctx, const splitzip_header *h,
                                          const uint8_t *src, size_t src_size, size_t *src_consumed,
                                          void *dst, size_t dst_cap_elems, size_t *n_elems)
{
	if (h->frame_size > src_size)
		return SPLITZIP_ERROR_TRUNCATED;
	if (h->n_elems > dst_cap_elems)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	if (!ctx->backend->host) /* the device's kernels (backends/gpu/sz_gpu_dtype_dec.cuh) */
		return splitzip_device_host_decode_dtype(
		    ctx, src, src_size, src_consumed, dst,
		    dst_cap_elems * splitzip_dtype_width(h->dtype), n_elems);
	splitzip_status st = splitzip_dtype_decode(ctx->backend->host, h, src, dst);
	if (st != SPLITZIP_OK)
		return st;
	*src_consumed = (size_t)h->frame_size;
	*n_elems = (size_t)h->n_elems;
	return SPLITZIP_OK;
}
