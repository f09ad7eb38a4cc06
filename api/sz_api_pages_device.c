/*
 * sz_api_pages_device.c -- the device-memory page stream calls of splitzip.h (public API):
 * the workspace size and the asynchronous calls, pages given as arrays of pointers or as a
 * pool and indices. Every host-side argument is checked here; the context's GPU module
 * enqueues the kernels of backends/gpu/sz_gpu_pages.cuh (the arguments and the workspace
 * layout: sz_gpu_pages_args.h).
 */
#include "sz_api_pages.h"

/* Whether n pages of up to max bytes are within the format's limits and the workspace
 * arithmetic (n * max below 2^62). */
static int geometry_ok(size_t n_pages, size_t max_page_bytes)
{
	return (uint64_t)n_pages <= SPLITZIP_PAGES_MAX_PAGES &&
	       (uint64_t)max_page_bytes <= SPLITZIP_PAGES_MAX_PAGE_BYTES &&
	       (!n_pages || (uint64_t)max_page_bytes <= ((uint64_t)1 << 62) / n_pages);
}

/* Compression and decompression workspace bytes (0 if they do not fit in a size_t). */
static size_t ws_need(const splitzip_ctx *ctx, size_t n_pages, size_t max_page_bytes, int dec)
{
	const uint64_t b =
	    dec ? sz_gpu_pages_dec_ws_size(n_pages, max_page_bytes)
	        : sz_gpu_pages_ws_size(n_pages, max_page_bytes, ctx->params.chunk_log2,
	                               (unsigned)ctx->params.encoding);
	return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

splitzip_status splitzip_pages_workspace_size(const splitzip_ctx *ctx, size_t n_pages,
                                              size_t max_page_bytes, size_t *bytes)
{
	if (!ctx || !bytes || !geometry_ok(n_pages, max_page_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const size_t c = ws_need(ctx, n_pages, max_page_bytes, 0);
	const size_t d = ws_need(ctx, n_pages, max_page_bytes, 1);
	if (!c || !d)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*bytes = c > d ? c : d;
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_compress_workspace_size(const splitzip_ctx *ctx, size_t n_pages,
                                                       size_t max_page_bytes, size_t *bytes)
{
	if (!ctx || !bytes || !geometry_ok(n_pages, max_page_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*bytes = ws_need(ctx, n_pages, max_page_bytes, 0);
	return *bytes ? SPLITZIP_OK : SPLITZIP_ERROR_INVALID_ARGUMENT;
}

splitzip_status splitzip_pages_decompress_workspace_size(const splitzip_ctx *ctx, size_t n_pages,
                                                         size_t max_page_bytes, size_t *bytes)
{
	if (!ctx || !bytes || !geometry_ok(n_pages, max_page_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*bytes = ws_need(ctx, n_pages, max_page_bytes, 1);
	return *bytes ? SPLITZIP_OK : SPLITZIP_ERROR_INVALID_ARGUMENT;
}

/* ---- Host-side checks --------------------------------------------------------------------- */

/* The module, the geometry, the workspace (size and alignment) and the result slots. */
static splitzip_status check_common(splitzip_ctx *ctx, size_t n_pages, size_t max_page_bytes,
                                    int dec, const void *ws, size_t ws_bytes, const size_t *d_size,
                                    const int32_t *d_status, const splitzip_gpu_module **m)
{
	splitzip_status st = splitzip_api_gpu_module(ctx, m);
	if (st != SPLITZIP_OK)
		return st;
	if (!(*m)->pages_compress || !(*m)->pages_decompress)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	if (!geometry_ok(n_pages, max_page_bytes) || !d_size || !d_status ||
	    !sz_api_aligned(d_size, sizeof(size_t)) || !sz_api_aligned(d_status, sizeof(int32_t)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const size_t need = ws_need(ctx, n_pages, max_page_bytes, dec);
	return splitzip_api_workspace_check(need ? SPLITZIP_OK : SPLITZIP_ERROR_INVALID_ARGUMENT,
	                                    need, ws, ws_bytes);
}

/* A pool: n pages of page_bytes each at stride, indices a device array of n entries. */
static int pool_ok(size_t n_pages, const void *pool, size_t pool_bytes, size_t page_bytes,
                   const int64_t *idx)
{
	return (!n_pages || (idx && sz_api_aligned(idx, sizeof(int64_t)))) &&
	       (pool || !pool_bytes) && page_bytes <= pool_bytes && !(page_bytes % 2) &&
	       sz_api_aligned(pool, 2);
}

/* The compression parameters of the context and the call (sz_gpu_pages_enc without the pages
 * and the outputs); INVALID_ARGUMENT as splitzip_pages_compress() gives it. */
static splitzip_status enc_params(const splitzip_ctx *ctx, uint32_t table_id, unsigned options,
                                  sz_gpu_pages_enc *a)
{
	const splitzip_params *p = &ctx->params;
	if (options & ~(unsigned)SPLITZIP_PAGES_NO_CHECKSUM)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (p->encoding != SPLITZIP_ENCODING_SPLIT4 && p->encoding != SPLITZIP_ENCODING_ENTROPY &&
	    p->encoding != SPLITZIP_ENCODING_AUTO)
		return SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	memset(a, 0, sizeof *a);
	a->encoding = (uint32_t)p->encoding;
	a->chunk_log2 = p->chunk_log2;
	a->checksum = !(options & SPLITZIP_PAGES_NO_CHECKSUM);
	a->table_id = table_id;
	a->fixed[SZ_PG_SPLIT4] = p->codebook_mode == SPLITZIP_CODEBOOK_FIXED;
	a->fixed[SZ_PG_ENTROPY] = p->table_mode == SPLITZIP_CODEBOOK_FIXED;
	memcpy(a->codebook, p->codebook.exponents, 16);
	memcpy(a->table, p->table.lengths, 256);
	a->table[SPLITZIP_ENTROPY_ESC] = p->table.escape_length;
	const int s4 = p->encoding != SPLITZIP_ENCODING_ENTROPY;
	const int ent = p->encoding != SPLITZIP_ENCODING_SPLIT4;
	if (table_id && !((!s4 || a->fixed[SZ_PG_SPLIT4]) && (!ent || a->fixed[SZ_PG_ENTROPY])))
		return SPLITZIP_ERROR_INVALID_ARGUMENT; /* only a fixed table has a name */
	return SPLITZIP_OK;
}

static splitzip_status compress_enqueue(splitzip_ctx *ctx, uint32_t table_id, unsigned options,
                                        size_t n_pages, const sz_gpu_pages_io *in,
                                        size_t max_page_bytes, void *d_dst, size_t dst_cap,
                                        size_t *d_dst_size, int32_t *d_status, void *ws,
                                        size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st =
	    check_common(ctx, n_pages, max_page_bytes, 0, ws, ws_bytes, d_dst_size, d_status, &m);
	sz_gpu_pages_enc a;
	if (st == SPLITZIP_OK)
		st = enc_params(ctx, table_id, options, &a);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_dst)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	a.in = *in;
	a.n_pages = n_pages;
	a.max_page_bytes = max_page_bytes;
	a.dst = (uint8_t *)d_dst;
	a.dst_cap = dst_cap;
	a.out_size = d_dst_size;
	a.status = d_status;
	a.ws = (uint8_t *)ws;
	return m->pages_compress(&a, stream);
}

splitzip_status splitzip_pages_compress_async(splitzip_ctx *ctx, uint32_t table_id,
                                              unsigned options, size_t n_pages,
                                              const void *const *d_pages,
                                              const size_t *d_page_bytes, size_t max_page_bytes,
                                              void *d_dst, size_t dst_cap, size_t *d_dst_size,
                                              int32_t *d_status, void *d_workspace, size_t ws_bytes,
                                              void *stream)
{
	if (n_pages && (!d_pages || !d_page_bytes || !sz_api_aligned(d_pages, sizeof(void *)) ||
	                !sz_api_aligned(d_page_bytes, sizeof(size_t))))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_io in;
	memset(&in, 0, sizeof in);
	in.ptrs = (void *const *)d_pages;
	in.bytes = d_page_bytes;
	if (!n_pages) /* no arrays to read: an empty pool of no pages */
		in.ptrs = NULL;
	return compress_enqueue(ctx, table_id, options, n_pages, &in, max_page_bytes, d_dst,
	                        dst_cap, d_dst_size, d_status, d_workspace, ws_bytes, stream);
}

splitzip_status splitzip_pages_compress_pool_async(
    splitzip_ctx *ctx, uint32_t table_id, unsigned options, size_t n_pages, const void *d_pool,
    size_t pool_bytes, size_t page_stride, size_t page_bytes, const int64_t *d_indices, void *d_dst,
    size_t dst_cap, size_t *d_dst_size, int32_t *d_status, void *d_workspace, size_t ws_bytes,
    void *stream)
{
	if (!pool_ok(n_pages, d_pool, pool_bytes, page_bytes, d_indices))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_io in;
	memset(&in, 0, sizeof in);
	in.pool = (uint8_t *)(uintptr_t)d_pool;
	in.index = d_indices;
	in.stride = page_stride;
	in.page_bytes = n_pages ? page_bytes : 0;
	in.pool_size = pool_bytes;
	return compress_enqueue(ctx, table_id, options, n_pages, &in, page_bytes, d_dst, dst_cap,
	                        d_dst_size, d_status, d_workspace, ws_bytes, stream);
}

static splitzip_status decompress_enqueue(splitzip_ctx *ctx, const void *d_src, size_t src_size,
                                          size_t n_pages, const sz_gpu_pages_io *out,
                                          size_t max_page_bytes, unsigned options,
                                          size_t *d_page_sizes, uint8_t *d_page_states,
                                          size_t *d_n_pages, int32_t *d_status, void *ws,
                                          size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st =
	    check_common(ctx, n_pages, max_page_bytes, 1, ws, ws_bytes, d_n_pages, d_status, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_src || (options & ~(unsigned)SPLITZIP_PAGES_EXACT) ||
	    !sz_api_aligned(d_page_sizes, sizeof(size_t)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_dec a;
	memset(&a, 0, sizeof a);
	a.src = (const uint8_t *)d_src;
	a.src_size = src_size;
	a.out = *out;
	a.n_pages = n_pages;
	a.max_page_bytes = max_page_bytes;
	a.exact = (options & SPLITZIP_PAGES_EXACT) != 0;
	a.page_sizes = d_page_sizes;
	a.page_states = d_page_states;
	a.n_pages_out = d_n_pages;
	a.status = d_status;
	a.ws = (uint8_t *)ws;
	return m->pages_decompress(&a, stream);
}

splitzip_status splitzip_pages_decompress_async(splitzip_ctx *ctx, const void *d_src,
                                                size_t src_size, size_t n_pages,
                                                void *const *d_pages, const size_t *d_page_caps,
                                                size_t max_page_bytes, unsigned options,
                                                size_t *d_page_sizes, uint8_t *d_page_states,
                                                size_t *d_n_pages, int32_t *d_status,
                                                void *d_workspace, size_t ws_bytes, void *stream)
{
	if (n_pages && (!d_pages || !d_page_caps || !sz_api_aligned(d_pages, sizeof(void *)) ||
	                !sz_api_aligned(d_page_caps, sizeof(size_t))))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_io out;
	memset(&out, 0, sizeof out);
	out.ptrs = n_pages ? d_pages : NULL;
	out.bytes = d_page_caps;
	return decompress_enqueue(ctx, d_src, src_size, n_pages, &out, max_page_bytes, options,
	                          d_page_sizes, d_page_states, d_n_pages, d_status, d_workspace,
	                          ws_bytes, stream);
}

splitzip_status splitzip_pages_decompress_pool_async(
    splitzip_ctx *ctx, const void *d_src, size_t src_size, size_t n_pages, void *d_pool,
    size_t pool_bytes, size_t page_stride, size_t page_bytes, const int64_t *d_indices,
    unsigned options, size_t *d_page_sizes, uint8_t *d_page_states, size_t *d_n_pages,
    int32_t *d_status, void *d_workspace, size_t ws_bytes, void *stream)
{
	/* Destinations must not overlap: pool pages closer than their size always would. */
	if (!pool_ok(n_pages, d_pool, pool_bytes, page_bytes, d_indices) ||
	    (n_pages > 1 && page_stride < page_bytes))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_io out;
	memset(&out, 0, sizeof out);
	out.pool = (uint8_t *)d_pool;
	out.index = d_indices;
	out.stride = page_stride;
	out.page_bytes = n_pages ? page_bytes : 0;
	out.pool_size = pool_bytes;
	return decompress_enqueue(ctx, d_src, src_size, n_pages, &out, page_bytes, options,
	                          d_page_sizes, d_page_states, d_n_pages, d_status, d_workspace,
	                          ws_bytes, stream);
}
