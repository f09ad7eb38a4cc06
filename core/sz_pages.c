/*
 * sz_pages.c -- the host side of the page stream format (doc/FORMAT.md §12): the whole-stream
 * structural validation a receiver runs before it writes anything, the destination checks,
 * and the manifest checksum an encoder writes last. The per-field rules are the SPLITZIP_HD
 * helpers of sz_pages.h, which the GPU kernels run too; this file only orders them.
 */
#include "sz_kernels.h"
#include "sz_pages.h"

/* Manifest_Checksum: the low 32 bits of the chunk digest of the n_pages entries. */
static uint32_t manifest_checksum(const uint8_t *src, uint64_t n_pages)
{
	const uint64_t bytes = splitzip_pages_manifest_end(n_pages) - SPLITZIP_PAGES_HEADER_SIZE;
	return (uint32_t)splitzip_hash_bytes(src + SPLITZIP_PAGES_HEADER_SIZE, (size_t)bytes);
}

splitzip_status splitzip_pages_validate(const uint8_t *src, size_t size, splitzip_pages_header *h,
                                        splitzip_page_entry *entries, size_t max_entries)
{
	splitzip_status st = splitzip_pages_read_header(src, size, h); /* steps 0-7 */
	if (st != SPLITZIP_OK)
		return st;
	/* Step 8: the manifest lies inside the stream after step 6. */
	if (manifest_checksum(src, h->n_pages) != h->manifest_checksum)
		return SPLITZIP_ERROR_HEADER_CHECKSUM;
	uint64_t sum = 0;
	for (uint64_t i = 0; i < h->n_pages; i++) { /* step 9, entry by entry */
		splitzip_page_entry x;
		st = splitzip_pages_check_entry(src, h, i, &x);
		if (st != SPLITZIP_OK)
			return st;
		sum += x.page_bytes;
		if (entries && i < max_entries)
			entries[i] = x;
	}
	return splitzip_pages_check_totals(h, splitzip_pages_last_end(src, h->n_pages), sum);
}

splitzip_status splitzip_pages_check_dst(const uint8_t *src, const splitzip_pages_header *h,
                                         size_t n_dst, const size_t *dst_caps)
{
	if (h->n_pages > n_dst)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	for (uint64_t i = 0; i < h->n_pages; i++) {
		splitzip_page_entry x;
		splitzip_pages_entry_read(src, i, &x);
		if (x.page_bytes > dst_caps[i])
			return SPLITZIP_ERROR_DST_TOO_SMALL;
	}
	return SPLITZIP_OK;
}

void splitzip_pages_finish(uint8_t *dst, splitzip_pages_header *h)
{
	h->manifest_checksum = manifest_checksum(dst, h->n_pages);
	splitzip_pages_header_write(dst, h);
}
