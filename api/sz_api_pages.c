/*
 * sz_api_pages.c -- the page stream calls of splitzip.h (public API): pages packed into one
 * wire buffer with a manifest (doc/FORMAT.md §12), and scattered back. Host memory: each page
 * goes through splitzip_compress() / splitzip_frame_decompress() of the context, the layout
 * and every check come from core/sz_pages.h. Device memory: argument checks here, the kernels
 * in the context's GPU module (backends/gpu/sz_gpu_pages.cuh).
 */
#include "../core/sz_pages.h"
#include "sz_api.h"

size_t splitzip_pages_bound(size_t n_pages, size_t max_page_bytes)
{
	const uint64_t b = splitzip_pages_bound64(n_pages, max_page_bytes);
	return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

/* ---- Host memory ------------------------------------------------------------------------- */

/* The arguments every page call shares: 'n' pages of 'bytes[i]' bytes, 2-byte aligned. */
static splitzip_status check_page_list(size_t n, const void *const *pages, const size_t *bytes,
                                       int need_even)
{
	if ((uint64_t)n > SPLITZIP_PAGES_MAX_PAGES || (n && (!pages || !bytes)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < n; i++) {
		if (bytes[i] && (!pages[i] || ((uintptr_t)pages[i] & 1)))
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
		if (need_even && (bytes[i] % 2 || bytes[i] > SPLITZIP_PAGES_MAX_PAGE_BYTES))
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
	}
	return SPLITZIP_OK;
}

/* Page streams carry split4 frames (FORMAT.md §12.3): a context that asks for another encoding
 * cannot write one. */
static int split4_ctx(const splitzip_ctx *ctx)
{
	return ctx->params.encoding == SPLITZIP_ENCODING_SPLIT4;
}

/* The codebook a stream's header carries: the context's fixed one, or none. */
static const uint8_t *fixed_codebook(const splitzip_ctx *ctx)
{
	return ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FIXED ? ctx->params.codebook.exponents
	                                                            : NULL;
}

/*
 * Page 'x->page_bytes' bytes at 'page' into dst + x->offset (room up to 'cap'): its frame if the
 * frame is smaller than the page (FORMAT.md §12.4), else the page itself. A frame capacity of
 * page_bytes - 1 lets splitzip_compress() answer DST_TOO_SMALL exactly when the canonical frame
 * is no smaller than the page.
 */
static splitzip_status put_page(splitzip_ctx *ctx, const void *page, uint8_t *dst, size_t cap,
                                splitzip_page_entry *x)
{
	const size_t room = cap - (size_t)x->offset, bytes = (size_t)x->page_bytes;
	size_t fcap = bytes ? bytes - 1 : 0, fsize = 0;
	if (fcap > room)
		fcap = room;
	splitzip_status st = splitzip_compress(ctx, (const uint16_t *)page, bytes / 2,
	                                       dst + x->offset, fcap, &fsize);
	if (st == SPLITZIP_OK) {
		x->encoding = SPLITZIP_PAGE_FRAME;
		x->length = fsize;
		return SPLITZIP_OK;
	}
	if (st != SPLITZIP_ERROR_DST_TOO_SMALL)
		return st;
	if (bytes > room)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	if (bytes)
		memcpy(dst + x->offset, page, bytes);
	x->encoding = SPLITZIP_PAGE_RAW;
	x->length = bytes;
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_compress(splitzip_ctx *ctx, uint32_t codebook_id, size_t n_pages,
                                        const void *const *pages, const size_t *page_bytes,
                                        void *dst, size_t dst_cap, size_t *dst_size)
{
	if (!ctx || !dst || !dst_size)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = check_page_list(n_pages, pages, page_bytes, 1);
	if (st != SPLITZIP_OK)
		return st;
	const uint8_t *cb = fixed_codebook(ctx);
	if ((codebook_id && !cb) || !split4_ctx(ctx))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	uint8_t *out = (uint8_t *)dst;
	splitzip_pages_header h;
	splitzip_pages_header_init(&h, (uint32_t)n_pages, cb, codebook_id);
	uint64_t end = splitzip_pages_manifest_end(n_pages);
	if (end > dst_cap)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	for (size_t i = 0; i < n_pages; i++) {
		splitzip_page_entry x;
		x.offset = splitzip_pages_align(end);
		x.page_bytes = page_bytes[i];
		if (x.offset > dst_cap)
			return SPLITZIP_ERROR_DST_TOO_SMALL;
		memset(out + end, 0, (size_t)(x.offset - end)); /* FORMAT.md §12.3: zero padding */
		st = put_page(ctx, pages[i], out, dst_cap, &x);
		if (st != SPLITZIP_OK)
			return st;
		splitzip_pages_entry_write(out + splitzip_pages_manifest_end(i), &x);
		h.total_page_bytes += x.page_bytes;
		end = x.offset + x.length;
	}
	h.stream_size = end;
	splitzip_pages_finish(out, &h);
	*dst_size = (size_t)end;
	return SPLITZIP_OK;
}

static void info_from_header(const splitzip_pages_header *h, splitzip_pages_info *info)
{
	memset(info, 0, sizeof *info);
	info->format_version = h->version;
	info->flags = h->flags;
	info->n_pages = h->n_pages;
	info->stream_size = h->stream_size;
	info->total_page_bytes = h->total_page_bytes;
	info->codebook_id = h->codebook_id;
	memcpy(info->codebook.exponents, h->codebook, 16);
}

splitzip_status splitzip_pages_get_info(const void *src, size_t src_size, splitzip_pages_info *info)
{
	if (!src || !info)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_pages_header h;
	splitzip_status st = splitzip_pages_parse_header((const uint8_t *)src, src_size, &h);
	if (st == SPLITZIP_OK)
		info_from_header(&h, info);
	return st;
}

splitzip_status splitzip_pages_get_manifest(const void *src, size_t src_size,
                                            splitzip_page_entry *entries, size_t max_entries,
                                            uint64_t *n_pages)
{
	if (!src || (!entries && max_entries))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_pages_header h;
	splitzip_status st =
	    splitzip_pages_validate((const uint8_t *)src, src_size, &h, entries, max_entries);
	if (st == SPLITZIP_OK && n_pages)
		*n_pages = h.n_pages;
	return st;
}

/* Every page of a validated stream into its destination, in page order. */
static splitzip_status scatter_pages(splitzip_ctx *ctx, const uint8_t *src,
                                     const splitzip_pages_header *h, void *const *pages,
                                     size_t *page_sizes)
{
	for (uint64_t i = 0; i < h->n_pages; i++) {
		splitzip_page_entry x;
		splitzip_pages_entry_read(src, i, &x);
		if (x.encoding == SPLITZIP_PAGE_RAW) {
			if (x.length)
				memcpy(pages[i], src + x.offset, (size_t)x.length);
		} else {
			size_t used = 0, got = 0;
			splitzip_status st = splitzip_frame_decompress(
			    ctx, src + x.offset, (size_t)x.length, &used, (uint16_t *)pages[i],
			    (size_t)x.page_bytes / 2, &got);
			if (st != SPLITZIP_OK)
				return st;
		}
		if (page_sizes)
			page_sizes[i] = (size_t)x.page_bytes;
	}
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_decompress(splitzip_ctx *ctx, const void *src, size_t src_size,
                                          size_t n_pages, void *const *pages,
                                          const size_t *page_caps, size_t *page_sizes,
                                          size_t *n_pages_out)
{
	if (!ctx || !src || !n_pages_out)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = check_page_list(n_pages, (const void *const *)pages, page_caps, 0);
	if (st != SPLITZIP_OK)
		return st;
	if (page_sizes)
		memset(page_sizes, 0, n_pages * sizeof *page_sizes);
	*n_pages_out = 0;
	const uint8_t *s = (const uint8_t *)src;
	splitzip_pages_header h;
	st = splitzip_pages_validate(s, src_size, &h, NULL, 0);
	if (st == SPLITZIP_OK)
		st = splitzip_pages_check_dst(s, &h, n_pages, page_caps);
	if (st == SPLITZIP_OK)
		st = scatter_pages(ctx, s, &h, pages, page_sizes);
	if (st != SPLITZIP_OK) {
		if (page_sizes)
			memset(page_sizes, 0, n_pages * sizeof *page_sizes);
		return st;
	}
	*n_pages_out = h.n_pages;
	return SPLITZIP_OK;
}

/* ---- Device memory ------------------------------------------------------------------------- */

/* The workspace of n_pages pages of up to max_page_bytes; INVALID_ARGUMENT beyond the limits
 * or when the size overflows size_t. */
static splitzip_status pages_ws_bytes(const splitzip_ctx *ctx, size_t n_pages,
                                      size_t max_page_bytes, size_t *out)
{
	if ((uint64_t)n_pages > SPLITZIP_PAGES_MAX_PAGES ||
	    (uint64_t)max_page_bytes > SPLITZIP_PAGES_MAX_PAGE_BYTES)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const unsigned L = ctx->params.chunk_log2;
	const uint64_t per = sz_gpu_pages_ws_per_page(max_page_bytes, L);
	const uint64_t limit = (uint64_t)SIZE_MAX - SZ_GPU_PAGES_WS_FIXED;
	if (n_pages && per > limit / n_pages)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*out = (size_t)sz_gpu_pages_ws_size(n_pages, max_page_bytes, L);
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_workspace_size(const splitzip_ctx *ctx, size_t n_pages,
                                              size_t max_page_bytes, size_t *bytes)
{
	if (!ctx || !bytes)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return pages_ws_bytes(ctx, n_pages, max_page_bytes, bytes);
}

/* The module of a device context and a workspace check (large enough, aligned to
 * SPLITZIP_WORKSPACE_ALIGN), shared by both async calls. */
static splitzip_status pages_module(splitzip_ctx *ctx, size_t n_pages, size_t max_page_bytes,
                                    const void *ws, size_t ws_bytes, const splitzip_gpu_module **m)
{
	const splitzip_status s = splitzip_api_gpu_module(ctx, m);
	if (s != SPLITZIP_OK)
		return s;
	size_t need = 0;
	return splitzip_api_workspace_check(pages_ws_bytes(ctx, n_pages, max_page_bytes, &need),
	                                    need, ws, ws_bytes);
}

/* Device arrays of pointers and of sizes, and the result slots: present (arrays when n > 0)
 * and aligned to their element types. */
static int page_arrays_ok(size_t n, const void *ptrs, const size_t *sizes)
{
	return (!n || (ptrs && sizes)) && sz_api_aligned(ptrs, sizeof(void *)) &&
	       sz_api_aligned(sizes, sizeof(size_t));
}
static int page_results_ok(const size_t *size, const int32_t *status)
{
	return size && status && sz_api_aligned(size, sizeof(size_t)) &&
	       sz_api_aligned(status, sizeof(int32_t));
}

splitzip_status splitzip_pages_compress_async(splitzip_ctx *ctx, uint32_t codebook_id,
                                              size_t n_pages, const void *const *d_pages,
                                              const size_t *d_page_bytes, size_t max_page_bytes,
                                              void *d_dst, size_t dst_cap, size_t *d_dst_size,
                                              int32_t *d_status, void *d_workspace, size_t ws_bytes,
                                              void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = pages_module(ctx, n_pages, max_page_bytes, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	const uint8_t *cb = fixed_codebook(ctx);
	if (!d_dst || !page_results_ok(d_dst_size, d_status) ||
	    !page_arrays_ok(n_pages, d_pages, d_page_bytes) || (codebook_id && !cb) ||
	    !split4_ctx(ctx))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_enc a;
	memset(&a, 0, sizeof a);
	a.codec.chunk_log2 = ctx->params.chunk_log2;
	a.codec.flags = ctx->params.flags;
	a.codec.split4.from_input = cb == NULL;
	memcpy(a.codec.split4.codebook, ctx->params.codebook.exponents, 16);
	a.n_pages = n_pages;
	a.pages = d_pages;
	a.page_bytes = d_page_bytes;
	a.max_page_bytes = max_page_bytes;
	a.dst = (uint8_t *)d_dst;
	a.dst_cap = dst_cap;
	a.out_size = d_dst_size;
	a.status = d_status;
	a.ws = (uint8_t *)d_workspace;
	a.fixed = cb != NULL;
	a.codebook_id = codebook_id;
	return m->pages_compress(&a, stream);
}

splitzip_status splitzip_pages_decompress_async(splitzip_ctx *ctx, const void *d_src,
                                                size_t src_size, size_t n_pages,
                                                void *const *d_pages, const size_t *d_page_caps,
                                                size_t max_page_bytes, size_t *d_page_sizes,
                                                size_t *d_n_pages, int32_t *d_status,
                                                void *d_workspace, size_t ws_bytes, void *stream)
{
	const splitzip_gpu_module *m = NULL;
	splitzip_status st = pages_module(ctx, n_pages, max_page_bytes, d_workspace, ws_bytes, &m);
	if (st != SPLITZIP_OK)
		return st;
	if (!d_src || !page_results_ok(d_n_pages, d_status) ||
	    !page_arrays_ok(n_pages, d_pages, d_page_caps) ||
	    !sz_api_aligned(d_page_sizes, sizeof(size_t)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	sz_gpu_pages_dec a;
	memset(&a, 0, sizeof a);
	a.src = (const uint8_t *)d_src;
	a.src_size = src_size;
	a.n_pages = n_pages;
	a.pages = d_pages;
	a.page_caps = d_page_caps;
	a.max_page_bytes = max_page_bytes;
	a.page_sizes = d_page_sizes;
	a.n_pages_out = d_n_pages;
	a.status = d_status;
	a.ws = (uint8_t *)d_workspace;
	a.chunk_log2 = ctx->params.chunk_log2;
	return m->pages_decompress(&a, stream);
}
