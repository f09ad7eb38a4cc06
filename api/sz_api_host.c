/*
 * sz_api_host.c -- the host-memory one-shot calls (public API): frame information, compress,
 * decompress and verify. Arguments are checked here; a host context runs the frame driver
 * (core/sz_driver.c) with its backend's kernels, a device context copies through its GPU.
 */
#include <stdint.h>
#include <stdlib.h>

#include "sz_api.h"
#include "../core/sz_dtype.h"

size_t splitzip_compress_bound(size_t n_elems)
{
	if ((uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return 0;
	return (size_t)splitzip_stored_frame_size(n_elems);
}

size_t splitzip_predict_frame_size(size_t n_elems, size_t n_escapes, unsigned chunk_log2)
{
	if (chunk_log2 == 0)
		chunk_log2 = SPLITZIP_CHUNK_LOG2_DEFAULT;
	if ((uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS || n_escapes > n_elems ||
	    chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX)
		return 0;
	if (splitzip_split4_wins(n_elems, chunk_log2, n_escapes))
		return (size_t)splitzip_split4_frame_size(n_elems, chunk_log2, n_escapes);
	return (size_t)splitzip_stored_frame_size(n_elems);
}

splitzip_status splitzip_get_frame_info(const void *src, size_t src_size, splitzip_frame_info *info)
{
	if (!src || !info)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_header h;
	splitzip_status st = splitzip_dtype_read_header((const uint8_t *)src, src_size, &h);
	if (st != SPLITZIP_OK)
		return st;
	memset(info, 0, sizeof *info);
	info->format_version = h.version;
	info->dtype = h.dtype;
	info->mode = (splitzip_mode)h.mode;
	info->chunk_log2 = h.chunk_log2;
	info->flags = h.flags;
	info->n_elems = h.n_elems;
	info->n_escapes = h.n_escapes;
	info->frame_size = h.frame_size;
	info->content_checksum = h.content_checksum;
	if (h.mode == SPLITZIP_MODE_SPLIT4)
		memcpy(info->codebook.exponents, h.codebook, 16);
	return SPLITZIP_OK;
}

splitzip_status splitzip_decompressed_size(const void *src, size_t src_size, uint64_t *n_elems)
{
	if (!src || !n_elems)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	uint64_t total = 0;
	size_t off = 0;
	unsigned dtype = 0;
	do {
		splitzip_header h;
		splitzip_status st =
		    splitzip_api_stream_header((const uint8_t *)src, src_size, off, dtype, &h);
		if (st != SPLITZIP_OK)
			return st;
		dtype = h.dtype;
		off += (size_t)h.frame_size;
		total += h.n_elems;
	} while (off < src_size);
	*n_elems = total;
	return SPLITZIP_OK;
}

splitzip_status splitzip_compress(splitzip_ctx *ctx, const uint16_t *src, size_t n_elems, void *dst,
                                  size_t dst_cap, size_t *dst_size)
{
	if (!ctx || !dst || !dst_size || (!src && n_elems) ||
	    (uint64_t)n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (!ctx->backend->host) /* a device context: through the device, synchronously */
		return splitzip_device_host_compress(ctx, src, n_elems, dst, dst_cap, dst_size);
	splitzip_encoder e;
	e.k = ctx->backend->host;
	e.chunk_log2 = ctx->params.chunk_log2;
	e.flags = ctx->params.flags;
	e.n_threads = ctx->params.n_threads;
	e.fixed = ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FIXED ? &ctx->fixed_tables : NULL;
	e.encoding = ctx->params.encoding;
	e.table = ctx->params.table_mode == SPLITZIP_CODEBOOK_FIXED ? &ctx->params.table : NULL;
	splitzip_workmem *w = splitzip_ctx_take(ctx);
	if (!w)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	const splitzip_status st = splitzip_driver_compress(&e, &w->scratch, src, n_elems,
	                                                    (uint8_t *)dst, dst_cap, dst_size);
	splitzip_ctx_give(ctx, w);
	return st;
}

/*
 * One frame into dst (cap_bytes bytes). any_dtype 0: the BF16-only calls, for which a frame of
 * another dtype is UNSUPPORTED_FORMAT, so that a destination sized for BF16 is never written
 * past by a frame of wider elements.
 */
static splitzip_status frame_any(splitzip_ctx *ctx, const uint8_t *src, size_t src_size,
                                 size_t *src_consumed, uint8_t *dst, size_t cap_bytes,
                                 int any_dtype, size_t *n_elems)
{
	splitzip_header h;
	splitzip_status st = splitzip_dtype_read_header(src, src_size, &h);
	if (st != SPLITZIP_OK)
		return st;
	if (h.dtype != SPLITZIP_DTYPE_BF16)
		return any_dtype
		           ? splitzip_api_dtype_decode(ctx, &h, src, src_size, src_consumed, dst,
		                                       cap_bytes / splitzip_dtype_width(h.dtype),
		                                       n_elems)
		           : SPLITZIP_ERROR_UNSUPPORTED_FORMAT;
	uint16_t *d16 = (uint16_t *)(void *)dst;
	if (!ctx->backend->host)
		return splitzip_device_host_decode(ctx, src, src_size, src_consumed, d16,
		                                   cap_bytes / 2, n_elems);
	return splitzip_driver_decode(ctx->backend->host, ctx->params.n_threads, src, src_size,
	                              src_consumed, d16, cap_bytes / 2, n_elems);
}

/* A stream of frames of one dtype (FORMAT.md §8.2) into dst (cap_bytes bytes). */
static splitzip_status stream_any(splitzip_ctx *ctx, const uint8_t *p, size_t src_size,
                                  uint8_t *dst, size_t cap_bytes, int any_dtype, size_t *n_elems)
{
	size_t off = 0, total = 0, width = 2;
	unsigned dtype = 0;
	do {
		splitzip_header h;
		if (off > 0) { /* the header, then the first frame's dtype */
			splitzip_status st =
			    splitzip_api_stream_header(p, src_size, off, dtype, &h);
			if (st != SPLITZIP_OK && st != SPLITZIP_ERROR_TRUNCATED)
				return st;
		} else if (splitzip_dtype_read_header(p, src_size, &h) == SPLITZIP_OK) {
			dtype = h.dtype;
			width = splitzip_dtype_width(dtype);
		}
		size_t used = 0, got = 0;
		splitzip_status st =
		    frame_any(ctx, p + off, src_size - off, &used, dst ? dst + width * total : NULL,
		              cap_bytes - width * total, any_dtype, &got);
		if (st != SPLITZIP_OK)
			return splitzip_stream_status(st, off);
		off += used;
		total += got;
	} while (off < src_size);
	*n_elems = total;
	return SPLITZIP_OK;
}

/* Elements of 2 bytes as a byte capacity (a larger count than memory can hold is clamped). */
static size_t cap_of(size_t cap_elems)
{
	return cap_elems > SIZE_MAX / 2 ? SIZE_MAX & ~(size_t)1 : 2 * cap_elems;
}

splitzip_status splitzip_frame_decompress(splitzip_ctx *ctx, const void *src, size_t src_size,
                                          size_t *src_consumed, uint16_t *dst, size_t dst_cap_elems,
                                          size_t *n_elems)
{
	if (!ctx || !src || !src_consumed || !n_elems || (!dst && dst_cap_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return frame_any(ctx, (const uint8_t *)src, src_size, src_consumed, (uint8_t *)dst,
	                 cap_of(dst_cap_elems), 0, n_elems);
}

splitzip_status splitzip_decompress(splitzip_ctx *ctx, const void *src, size_t src_size,
                                    uint16_t *dst, size_t dst_cap_elems, size_t *n_elems)
{
	if (!ctx || !src || !n_elems || (!dst && dst_cap_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return stream_any(ctx, (const uint8_t *)src, src_size, (uint8_t *)dst,
	                  cap_of(dst_cap_elems), 0, n_elems);
}

splitzip_status splitzip_frame_decompress_dtype(splitzip_ctx *ctx, const void *src, size_t src_size,
                                                size_t *src_consumed, void *dst,
                                                size_t dst_cap_bytes, size_t *n_elems)
{
	if (!ctx || !src || !src_consumed || !n_elems || (!dst && dst_cap_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return frame_any(ctx, (const uint8_t *)src, src_size, src_consumed, (uint8_t *)dst,
	                 dst_cap_bytes, 1, n_elems);
}

splitzip_status splitzip_decompress_dtype(splitzip_ctx *ctx, const void *src, size_t src_size,
                                          void *dst, size_t dst_cap_bytes, size_t *n_elems)
{
	if (!ctx || !src || !n_elems || (!dst && dst_cap_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return stream_any(ctx, (const uint8_t *)src, src_size, (uint8_t *)dst, dst_cap_bytes, 1,
	                  n_elems);
}

/* splitzip_verify() with the work memory 'w' for the decoded frames. */
static splitzip_status verify_in(splitzip_ctx *ctx, splitzip_workmem *w, const uint8_t *p,
                                 size_t src_size, uint64_t *n_elems)
{
	size_t off = 0;
	uint64_t total = 0;
	unsigned dtype = 0;
	do {
		splitzip_header h;
		splitzip_status st = splitzip_api_stream_header(p, src_size, off, dtype, &h);
		if (st != SPLITZIP_OK)
			return st;
		dtype = h.dtype;
		const size_t width = splitzip_dtype_width(dtype);
		st = splitzip_scratch_reserve(&w->out, h.n_elems ? (size_t)h.n_elems * width : 1);
		if (st != SPLITZIP_OK)
			return st;
		size_t used = 0, got = 0;
		st = frame_any(ctx, p + off, src_size - off, &used, (uint8_t *)w->out.buf,
		               (size_t)h.n_elems * width, 1, &got);
		if (st != SPLITZIP_OK)
			return st;
		off += used;
		total += got;
	} while (off < src_size);
	if (n_elems)
		*n_elems = total;
	return SPLITZIP_OK;
}

splitzip_status splitzip_verify(splitzip_ctx *ctx, const void *src, size_t src_size,
                                uint64_t *n_elems)
{
	if (!ctx || !src)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_workmem *w = splitzip_ctx_take(ctx);
	if (!w)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	const splitzip_status st = verify_in(ctx, w, (const uint8_t *)src, src_size, n_elems);
	splitzip_ctx_give(ctx, w);
	return st;
}
