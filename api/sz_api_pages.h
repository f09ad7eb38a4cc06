/*
 * sz_api_pages.h -- what the page stream entry points share (api/sz_api_pages.c: bounds,
 * headers and the device calls; api/sz_api_pages_host.c: host-memory packing and scatter of
 * BF16 pages, api/sz_api_pages_dtype.c: of the pages of the other dtypes).
 * Not installed; nothing below api/ includes it.
 */
#ifndef SZ_API_PAGES_H
#define SZ_API_PAGES_H

#include "../core/sz_pages.h"
#include "sz_api.h"

/* The two candidate streams of an encoding (FORMAT.md §12.4): index 0 split4, 1 entropy. */
enum { SZ_PG_SPLIT4 = 0, SZ_PG_ENTROPY = 1 };

/* The pages of one call, and per page what the encoder decided. One allocation. */
typedef struct splitzip_pages_list {
	void *mem;
	size_t n;
	uint16_t **page; /* page i's elements (a destination when decoding) */
	uint64_t *elems; /* page i's element count */
	uint64_t *esc;   /* encoding: page i's escapes under the split4 candidate's codebook */
	uint8_t *raw[2]; /* page i travels raw, per candidate (decoding: raw[0], from the table) */
	uint64_t total;  /* elements of all pages */
	/* Segments of the coded and the raw pages, in page order (empty pages left out). */
	uint16_t **seg_coded, **seg_raw;
	uint64_t *start_coded, *start_raw;
	uint64_t coded_elems, raw_elems;
} splitzip_pages_list;

/* The tables of the candidates: the split4 codebook (as encoder tables) and the entropy
 * table, and whether each is the context's fixed one. */
typedef struct splitzip_pages_tables {
	splitzip_enc_tables cb;
	splitzip_entropy_table table;
	int fixed[2];
} splitzip_pages_tables;

/* The host-memory calls of splitzip.h for a host context (sz_api_pages_host.c). */
SZ_INTERNAL splitzip_status splitzip_pages_compress_host(splitzip_ctx *ctx, uint32_t table_id,
                                                         unsigned options, size_t n_pages,
                                                         const void *const *pages,
                                                         const size_t *page_bytes, uint8_t *dst,
                                                         size_t dst_cap, size_t *dst_size);
SZ_INTERNAL splitzip_status splitzip_pages_decompress_host(splitzip_ctx *ctx, const uint8_t *src,
                                                           size_t src_size, size_t n_pages,
                                                           void *const *pages,
                                                           const size_t *page_caps, int exact,
                                                           size_t *page_sizes, uint8_t *page_states,
                                                           size_t *n_pages_out);

/* States of the nonempty coded pages (raw[i] 0) of n pages of elems[i] elements after frames
 * [0, j) were written and frame j failed (all written for j = Frame_Count): WRITTEN before
 * frame j, DAMAGED where it covers them; the others are left as they are. */
SZ_INTERNAL void splitzip_pages_coded_states(size_t n, const uint64_t *elems, const uint8_t *raw,
                                             uint64_t j, uint8_t *states);

/* The same for pages of Dtype 2-5 (sz_api_pages_dtype.c, version 3 streams): the arguments
 * checked as for BF16, page_bytes[i] multiples of the dtype's width. Decoding: a stream that
 * passed splitzip_pages_validate() (header 'h', layout 'L') and splitzip_pages_check_dst(),
 * into pages[0 .. h->n_pages); 'states' has h->n_pages entries. */
SZ_INTERNAL splitzip_status splitzip_pages_compress_dtype_host(
    splitzip_ctx *ctx, unsigned dtype, uint32_t table_id, unsigned options, size_t n_pages,
    const void *const *pages, const size_t *page_bytes, uint8_t *dst, size_t dst_cap,
    size_t *dst_size);
SZ_INTERNAL splitzip_status splitzip_pages_decompress_dtype_host(
    splitzip_ctx *ctx, const uint8_t *src, const splitzip_pages_header *h,
    const splitzip_pages_layout *L, void *const *pages, size_t *page_sizes, uint8_t *states);

#endif /* SZ_API_PAGES_H */
