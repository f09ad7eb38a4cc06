/*
 * sz_api_pages.c -- the page stream calls of splitzip.h (public API): pages packed into one
 * wire buffer (doc/FORMAT.md §12) and scattered back. Arguments are checked here; host memory
 * is packed and scattered by api/sz_api_pages_host.c, device memory by the kernels of the
 * context's GPU module (backends/gpu/sz_gpu_pages.cuh). Layout and checks: core/sz_pages.h.
 */
#include "../core/sz_dtype.h"
#include "sz_api_pages.h"

size_t splitzip_pages_bound(size_t n_pages, size_t max_page_bytes)
{
	const uint64_t b = splitzip_pages_bound64(n_pages, max_page_bytes);
	return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

size_t splitzip_pages_bound_dtype(unsigned dtype, size_t n_pages, size_t max_page_bytes)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(dtype);
	if (!d)
		return 0;
	const uint64_t b = splitzip_pages_bound64_w(n_pages, max_page_bytes, d->width);
	return b > (uint64_t)SIZE_MAX ? 0 : (size_t)b;
}

/* ---- Host memory ------------------------------------------------------------------------- */

/* The arguments every page call shares: 'n' pages of 'bytes[i]' bytes, not NULL unless empty,
 * at multiples of 'align' (1 or 2: BF16 pages are read and written as uint16_t); with w > 0,
 * each a whole number of elements of w bytes, at most 2^31 - 1 of them. */
static splitzip_status check_page_list(size_t n, const void *const *pages, const size_t *bytes,
                                       unsigned align, unsigned w)
{
	if ((uint64_t)n > SPLITZIP_PAGES_MAX_PAGES || (n && (!pages || !bytes)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	for (size_t i = 0; i < n; i++) {
		if (bytes[i] && (!pages[i] || ((uintptr_t)pages[i] & (align - 1))))
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
		if (w && (bytes[i] % w || bytes[i] / w > SPLITZIP_PAGES_ELEMS_MASK))
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
	}
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_compress(splitzip_ctx *ctx, uint32_t table_id, unsigned options,
                                        size_t n_pages, const void *const *pages,
                                        const size_t *page_bytes, void *dst, size_t dst_cap,
                                        size_t *dst_size)
{
	if (!ctx || !dst || !dst_size || (options & ~(unsigned)SPLITZIP_PAGES_NO_CHECKSUM))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = check_page_list(n_pages, pages, page_bytes, 2, 2);
	if (st != SPLITZIP_OK)
		return st;
	return splitzip_pages_compress_host(ctx, table_id, options, n_pages, pages, page_bytes,
	                                    (uint8_t *)dst, dst_cap, dst_size);
}

splitzip_status splitzip_pages_compress_dtype(splitzip_ctx *ctx, unsigned dtype, uint32_t table_id,
                                              unsigned options, size_t n_pages,
                                              const void *const *pages, const size_t *page_bytes,
                                              void *dst, size_t dst_cap, size_t *dst_size)
{
	if (dtype == SPLITZIP_DTYPE_BF16)
		return splitzip_pages_compress(ctx, table_id, options, n_pages, pages, page_bytes,
		                               dst, dst_cap, dst_size);
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(dtype);
	if (!ctx || !dst || !dst_size || !d || (options & ~(unsigned)SPLITZIP_PAGES_NO_CHECKSUM))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = check_page_list(n_pages, pages, page_bytes, 1, d->width);
	if (st != SPLITZIP_OK)
		return st;
	return splitzip_pages_compress_dtype_host(ctx, dtype, table_id, options, n_pages, pages,
	                                          page_bytes, (uint8_t *)dst, dst_cap, dst_size);
}

static void info_from_header(const splitzip_pages_header *h, splitzip_pages_info *info)
{
	memset(info, 0, sizeof *info);
	info->format_version = h->version;
	info->flags = h->flags;
	info->encoding = (splitzip_mode)h->encoding;
	info->chunk_log2 = h->chunk_log2;
	info->n_pages = h->n_pages;
	info->stream_size = h->stream_size;
	info->total_page_bytes = splitzip_dtype_desc_of(h->dtype)->width * h->total_elems;
	info->frames_size = h->frames_size;
	info->table_id = h->table_id;
	info->dtype = h->dtype;
}

splitzip_status splitzip_pages_get_info(const void *src, size_t src_size, splitzip_pages_info *info)
{
	if (!src || !info)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_pages_header h;
	splitzip_status st = splitzip_pages_parse_header_ext((const uint8_t *)src, src_size, 1, &h);
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
	const uint8_t *s = (const uint8_t *)src;
	splitzip_pages_header h;
	splitzip_pages_layout L;
	splitzip_status st = splitzip_pages_validate(s, src_size, &h, &L);
	if (st != SPLITZIP_OK)
		return st;
	uint64_t coded = 0, raw = 0;
	const uint64_t w = splitzip_dtype_desc_of(h.dtype)->width;
	for (uint64_t i = 0; i < h.n_pages && i < max_entries; i++) {
		const uint32_t e = splitzip_pages_entry(s, i);
		const uint64_t m = splitzip_pages_entry_elems(e);
		entries[i].page_bytes = w * m;
		entries[i].encoding =
		    splitzip_pages_entry_raw(e) ? SPLITZIP_PAGE_RAW : SPLITZIP_PAGE_FRAME;
		entries[i].position = splitzip_pages_entry_raw(e) ? w * raw : coded;
		if (splitzip_pages_entry_raw(e))
			raw += m;
		else
			coded += m;
	}
	if (n_pages)
		*n_pages = h.n_pages;
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_decompress(splitzip_ctx *ctx, const void *src, size_t src_size,
                                          size_t n_pages, void *const *pages,
                                          const size_t *page_caps, unsigned options,
                                          size_t *page_sizes, uint8_t *page_states,
                                          size_t *n_pages_out)
{
	if (!ctx || !src || !n_pages_out || (options & ~(unsigned)SPLITZIP_PAGES_EXACT))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = check_page_list(n_pages, (const void *const *)pages, page_caps, 1, 0);
	if (st != SPLITZIP_OK)
		return st;
	/* BF16 pages (version 2) are written as uint16_t: 2-byte aligned destinations. A header
	 * that fails is reported by the decoder below, in the order of §12.5. */
	splitzip_pages_header h;
	if (splitzip_pages_parse_header_ext((const uint8_t *)src, src_size, 1, &h) == SPLITZIP_OK &&
	    h.dtype == SPLITZIP_DTYPE_BF16 &&
	    check_page_list(n_pages, (const void *const *)pages, page_caps, 2, 0) != SPLITZIP_OK)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (page_sizes)
		memset(page_sizes, 0, n_pages * sizeof *page_sizes);
	if (page_states)
		memset(page_states, SPLITZIP_PAGE_UNTOUCHED, n_pages);
	*n_pages_out = 0;
	return splitzip_pages_decompress_host(ctx, (const uint8_t *)src, src_size, n_pages, pages,
	                                      page_caps, (options & SPLITZIP_PAGES_EXACT) != 0,
	                                      page_sizes, page_states, n_pages_out);
}
