/*
 * sz_pages.h -- every byte-layout decision of the page stream (doc/FORMAT.md §12): a list of
 * pages (e.g. the KV cache pages of one request) packed into one contiguous wire buffer behind
 * a 64-byte header and a manifest of one 32-byte entry per page, each payload at an offset
 * aligned to SPLITZIP_PAGES_ALIGN bytes, either the page's bytes verbatim (raw) or an ordinary
 * splitzip frame of them (frame). Static inline helpers usable from host code and from
 * CUDA/HIP device code (SPLITZIP_HD), so that the host page API (core/sz_pages.c,
 * api/sz_api_pages.c), the GPU kernels (backends/gpu/sz_gpu_pages.cuh) and the CPU SIMT harness
 * lay out and validate streams with the same code.
 *
 * Why this layout: the stream is fully determined by the pages and the codec parameters (one
 * valid stream per input, like a frame), the offsets of every page follow from the lengths
 * before it (the receiver checks each one against that chain, so offsets can neither overlap
 * nor leave holes), the header and the manifest sit at the front so a receiver learns the
 * total size from the first 64 bytes, and the payloads start on DMA-friendly boundaries.
 *
 * Validation is split in per-entry checks that read only the entry, the entry before it and
 * the bytes between them (and the first 64 bytes of a frame payload), so that a GPU block can
 * run them for all entries in parallel and report the first failing one: the same status as a
 * sequential walk, and no read outside [0, Stream_Size) whatever the other entries hold.
 */
#ifndef SZ_PAGES_H
#define SZ_PAGES_H

#include "../include/splitzip.h"
#include "sz_common.h"
#include "sz_hash.h"
#include "sz_layout.h"

/* ---- Constants of page stream version 1 (doc/FORMAT.md §12) ------------------------------- */

#define SPLITZIP_PAGES_MAGIC 0x47505A53u /* bytes 53 5A 50 47: "SZPG" */
#define SPLITZIP_PAGES_ALIGN_LOG2 8u     /* payload offsets are multiples of 256 */
#define SPLITZIP_PAGES_FLAGS_KNOWN SPLITZIP_PAGES_FLAG_FIXED_CODEBOOK

SZ_STATIC_ASSERT(SPLITZIP_PAGES_ALIGN == (1u << SPLITZIP_PAGES_ALIGN_LOG2),
                 "the public alignment is the format's");
SZ_STATIC_ASSERT(SPLITZIP_PAGES_ALIGN % SPLITZIP_SECTION_ALIGN == 0,
                 "frames inside a stream keep their 16-byte section alignment");
SZ_STATIC_ASSERT(SPLITZIP_PAGES_HEADER_SIZE == 64 && SPLITZIP_PAGES_ENTRY_SIZE == 32,
                 "header and entry sizes of version 1");

/* Byte offsets of the stream header fields. */
#define SZ_PG_H_MAGIC 0              /* u32 */
#define SZ_PG_H_VERSION 4            /* u8 */
#define SZ_PG_H_FLAGS 5              /* u8 */
#define SZ_PG_H_ALIGN_LOG2 6         /* u8 */
#define SZ_PG_H_RESERVED0 7          /* u8, zero */
#define SZ_PG_H_PAGE_COUNT 8         /* u32 */
#define SZ_PG_H_CODEBOOK_ID 12       /* u32 */
#define SZ_PG_H_CODEBOOK 16          /* 16 x u8 */
#define SZ_PG_H_STREAM_SIZE 32       /* u64 */
#define SZ_PG_H_TOTAL_PAGE_BYTES 40  /* u64 */
#define SZ_PG_H_MANIFEST_CHECKSUM 48 /* u32 */
#define SZ_PG_H_RESERVED1 52         /* 8 bytes, zero */
#define SZ_PG_H_HEADER_CHECKSUM 60   /* u32 */
SZ_STATIC_ASSERT(SZ_PG_H_HEADER_CHECKSUM + 4 == SPLITZIP_PAGES_HEADER_SIZE,
                 "the stream header is 64 bytes");

/* Byte offsets of the fields of a manifest entry. */
#define SZ_PG_E_OFFSET 0      /* u64 */
#define SZ_PG_E_LENGTH 8      /* u64 */
#define SZ_PG_E_PAGE_BYTES 16 /* u64 */
#define SZ_PG_E_ENCODING 24   /* u8 */
#define SZ_PG_E_RESERVED 25   /* 7 bytes, zero */

/* The largest page: one frame holds at most SPLITZIP_MAX_FRAME_ELEMS elements. */
#define SZ_PG_MAX_PAGE_BYTES (2 * SPLITZIP_MAX_FRAME_ELEMS)

/* ---- Arithmetic ------------------------------------------------------------------------------ */

SPLITZIP_HD uint64_t splitzip_pages_align(uint64_t x)
{
	return (x + (SPLITZIP_PAGES_ALIGN - 1)) & ~(uint64_t)(SPLITZIP_PAGES_ALIGN - 1);
}

/* End of the manifest of n pages: the header and n entries. */
SPLITZIP_HD uint64_t splitzip_pages_manifest_end(uint64_t n_pages)
{
	return SPLITZIP_PAGES_HEADER_SIZE + (uint64_t)SPLITZIP_PAGES_ENTRY_SIZE * n_pages;
}

/*
 * The canonical encoding of a page whose frame is frame_size bytes (FORMAT.md §12.4): the frame
 * if and only if it is strictly smaller than the page, otherwise the page travels raw. A
 * stored frame is always larger than its page, so stored frames never appear in a stream.
 */
SPLITZIP_HD unsigned splitzip_pages_encoding(uint64_t frame_size, uint64_t page_bytes)
{
	return frame_size < page_bytes ? SPLITZIP_PAGE_FRAME : SPLITZIP_PAGE_RAW;
}

/*
 * The bound of a stream of n pages of at most max_page_bytes each: the aligned manifest, then
 * every page raw in an aligned slot. 0 if it does not fit in 64 bits or a page is too large.
 */
SPLITZIP_HD uint64_t splitzip_pages_bound64(uint64_t n_pages, uint64_t max_page_bytes)
{
	if (n_pages > SPLITZIP_PAGES_MAX_PAGES || max_page_bytes > SZ_PG_MAX_PAGE_BYTES)
		return 0;
	const uint64_t slot = splitzip_pages_align(max_page_bytes);
	const uint64_t head = splitzip_pages_align(splitzip_pages_manifest_end(n_pages));
	if (n_pages && slot > (~(uint64_t)0 - head) / n_pages)
		return 0;
	return head + n_pages * slot;
}

/* ---- Header ------------------------------------------------------------------------------------
 */

/* The fields of a stream header, as integers. */
typedef struct splitzip_pages_header {
	unsigned version;
	unsigned flags;
	unsigned align_log2;
	uint32_t n_pages;
	uint32_t codebook_id;
	uint8_t codebook[16];
	uint64_t stream_size;
	uint64_t total_page_bytes;
	uint32_t manifest_checksum;
} splitzip_pages_header;

/* Header_Checksum and Manifest_Checksum: low 32 bits of the chunk digest (FORMAT.md §7.1). */
SPLITZIP_HD uint32_t splitzip_pages_header_checksum(const uint8_t *h)
{
	return (uint32_t)splitzip_hash_bytes_small(h, SZ_PG_H_HEADER_CHECKSUM);
}

/* Serialise a header into 64 bytes, header checksum included. Byte stores only (device-safe). */
SPLITZIP_HD void splitzip_pages_header_write(uint8_t *h, const splitzip_pages_header *f)
{
	for (unsigned i = 0; i < SPLITZIP_PAGES_HEADER_SIZE; i++)
		h[i] = 0;
	splitzip_put_u8s(h + SZ_PG_H_MAGIC, SPLITZIP_PAGES_MAGIC, 4);
	h[SZ_PG_H_VERSION] = (uint8_t)f->version;
	h[SZ_PG_H_FLAGS] = (uint8_t)f->flags;
	h[SZ_PG_H_ALIGN_LOG2] = (uint8_t)f->align_log2;
	splitzip_put_u8s(h + SZ_PG_H_PAGE_COUNT, f->n_pages, 4);
	splitzip_put_u8s(h + SZ_PG_H_CODEBOOK_ID, f->codebook_id, 4);
	for (unsigned i = 0; i < 16; i++)
		h[SZ_PG_H_CODEBOOK + i] = f->codebook[i];
	splitzip_put_u8s(h + SZ_PG_H_STREAM_SIZE, f->stream_size, 8);
	splitzip_put_u8s(h + SZ_PG_H_TOTAL_PAGE_BYTES, f->total_page_bytes, 8);
	splitzip_put_u8s(h + SZ_PG_H_MANIFEST_CHECKSUM, f->manifest_checksum, 4);
	splitzip_put_u8s(h + SZ_PG_H_HEADER_CHECKSUM, splitzip_pages_header_checksum(h), 4);
}

/*
 * The header an encoder writes for n pages: version 1, the fixed codebook (or none), and the
 * sizes and manifest checksum the caller fills in.
 */
SPLITZIP_HD void splitzip_pages_header_init(splitzip_pages_header *h, uint32_t n_pages,
                                            const uint8_t *fixed_codebook, uint32_t codebook_id)
{
	h->version = SPLITZIP_PAGES_FORMAT_VERSION;
	h->flags = fixed_codebook ? SPLITZIP_PAGES_FLAG_FIXED_CODEBOOK : 0;
	h->align_log2 = SPLITZIP_PAGES_ALIGN_LOG2;
	h->n_pages = n_pages;
	h->codebook_id = fixed_codebook ? codebook_id : 0;
	for (unsigned i = 0; i < 16; i++)
		h->codebook[i] = fixed_codebook ? fixed_codebook[i] : 0;
	h->stream_size = splitzip_pages_manifest_end(n_pages);
	h->total_page_bytes = 0;
	h->manifest_checksum = 0;
}

/* Header fields from 64 bytes, without any check. */
SPLITZIP_HD void splitzip_pages_header_fields(const uint8_t *h, splitzip_pages_header *f)
{
	f->version = h[SZ_PG_H_VERSION];
	f->flags = h[SZ_PG_H_FLAGS];
	f->align_log2 = h[SZ_PG_H_ALIGN_LOG2];
	f->n_pages = (uint32_t)splitzip_get_u8s(h + SZ_PG_H_PAGE_COUNT, 4);
	f->codebook_id = (uint32_t)splitzip_get_u8s(h + SZ_PG_H_CODEBOOK_ID, 4);
	for (unsigned i = 0; i < 16; i++)
		f->codebook[i] = h[SZ_PG_H_CODEBOOK + i];
	f->stream_size = splitzip_get_u8s(h + SZ_PG_H_STREAM_SIZE, 8);
	f->total_page_bytes = splitzip_get_u8s(h + SZ_PG_H_TOTAL_PAGE_BYTES, 8);
	f->manifest_checksum = (uint32_t)splitzip_get_u8s(h + SZ_PG_H_MANIFEST_CHECKSUM, 4);
}

/*
 * FORMAT.md §12.5 steps 0-6: the checks of the 64 header bytes, in order. Reads at most 64 bytes
 * of src ('size' available). On SPLITZIP_OK, '*f' holds the fields; the manifest and the
 * payloads are neither read nor known to be present.
 */
SPLITZIP_HD splitzip_status splitzip_pages_parse_header(const uint8_t *src, uint64_t size,
                                                        splitzip_pages_header *f)
{
	if (size < SPLITZIP_PAGES_HEADER_SIZE) { /* step 0 */
		for (uint64_t i = 0; i < size && i < 4; i++)
			if (src[i] != (uint8_t)(SPLITZIP_PAGES_MAGIC >> (8 * i)))
				return SPLITZIP_ERROR_BAD_MAGIC;
		return SPLITZIP_ERROR_TRUNCATED;
	}
	if (splitzip_get_u8s(src + SZ_PG_H_MAGIC, 4) != SPLITZIP_PAGES_MAGIC)
		return SPLITZIP_ERROR_BAD_MAGIC; /* step 1 */
	if (src[SZ_PG_H_VERSION] == 0)
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* step 2 */
	if (src[SZ_PG_H_VERSION] > SPLITZIP_PAGES_FORMAT_VERSION)
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT;
	if (splitzip_get_u8s(src + SZ_PG_H_HEADER_CHECKSUM, 4) !=
	    splitzip_pages_header_checksum(src))
		return SPLITZIP_ERROR_HEADER_CHECKSUM; /* step 3 */
	splitzip_pages_header_fields(src, f);
	unsigned reserved = src[SZ_PG_H_RESERVED0];
	for (unsigned i = 0; i < 8; i++)
		reserved |= src[SZ_PG_H_RESERVED1 + i];
	if ((f->flags & ~SPLITZIP_PAGES_FLAGS_KNOWN) || reserved ||
	    f->align_log2 != SPLITZIP_PAGES_ALIGN_LOG2)
		return SPLITZIP_ERROR_CORRUPT_STREAM;        /* step 4 */
	if (f->flags & SPLITZIP_PAGES_FLAG_FIXED_CODEBOOK) { /* step 5 */
		for (unsigned i = 1; i < 16; i++)
			if (f->codebook[i] <= f->codebook[i - 1])
				return SPLITZIP_ERROR_CORRUPT_STREAM;
	} else {
		unsigned any = 0;
		for (unsigned i = 0; i < 16; i++)
			any |= f->codebook[i];
		if (any || f->codebook_id)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
	}
	if (f->stream_size < splitzip_pages_manifest_end(f->n_pages))
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* step 6 */
	return SPLITZIP_OK;
}

/* Steps 0-7: the header, and the whole stream present (nothing after the header read yet). */
SPLITZIP_HD splitzip_status splitzip_pages_read_header(const uint8_t *src, uint64_t size,
                                                       splitzip_pages_header *f)
{
	splitzip_status st = splitzip_pages_parse_header(src, size, f);
	if (st != SPLITZIP_OK)
		return st;
	return f->stream_size > size ? SPLITZIP_ERROR_TRUNCATED : SPLITZIP_OK; /* step 7 */
}

/* ---- Manifest entries ------------------------------------------------------------------------ */

SPLITZIP_HD void splitzip_pages_entry_write(uint8_t *e, const splitzip_page_entry *x)
{
	splitzip_put_u8s(e + SZ_PG_E_OFFSET, x->offset, 8);
	splitzip_put_u8s(e + SZ_PG_E_LENGTH, x->length, 8);
	splitzip_put_u8s(e + SZ_PG_E_PAGE_BYTES, x->page_bytes, 8);
	for (unsigned i = SZ_PG_E_ENCODING; i < SPLITZIP_PAGES_ENTRY_SIZE; i++)
		e[i] = 0;
	e[SZ_PG_E_ENCODING] = (uint8_t)x->encoding;
}

/* Entry i of the manifest of 'src', unchecked. */
SPLITZIP_HD void splitzip_pages_entry_read(const uint8_t *src, uint64_t i, splitzip_page_entry *x)
{
	const uint8_t *e = src + splitzip_pages_manifest_end(i);
	x->offset = splitzip_get_u8s(e + SZ_PG_E_OFFSET, 8);
	x->length = splitzip_get_u8s(e + SZ_PG_E_LENGTH, 8);
	x->page_bytes = splitzip_get_u8s(e + SZ_PG_E_PAGE_BYTES, 8);
	x->encoding = e[SZ_PG_E_ENCODING];
}

/* Where the payload of entry i must start: right after the manifest for the first page, else
 * after the previous payload, rounded up to the alignment (wrapping arithmetic on hostile
 * values is harmless: the result is only compared). */
SPLITZIP_HD uint64_t splitzip_pages_expected_offset(const uint8_t *src, uint64_t n_pages,
                                                    uint64_t i, uint64_t *prev_end)
{
	if (i == 0) {
		*prev_end = splitzip_pages_manifest_end(n_pages);
	} else {
		splitzip_page_entry p;
		splitzip_pages_entry_read(src, i - 1, &p);
		*prev_end = p.offset + p.length;
	}
	return splitzip_pages_align(*prev_end);
}

/* FORMAT.md §12.5 step 9 g: the frame of a frame page, read through its header only. */
SPLITZIP_HD splitzip_status splitzip_pages_check_frame(const uint8_t *src,
                                                       const splitzip_pages_header *h,
                                                       const splitzip_page_entry *x)
{
	splitzip_header fh;
	splitzip_status st = splitzip_read_header(src + x->offset, x->length, &fh);
	if (st != SPLITZIP_OK) /* inside a stream, bytes that are no frame are damage (§8.2) */
		return st == SPLITZIP_ERROR_BAD_MAGIC ? SPLITZIP_ERROR_CORRUPT_STREAM : st;
	if (fh.frame_size != x->length || fh.mode != SPLITZIP_MODE_SPLIT4 ||
	    2 * fh.n_elems != x->page_bytes)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	const uint8_t *fcb = src + x->offset + SZ_H_CODEBOOK; /* the header passed §3.2 */
	if (h->flags & SPLITZIP_PAGES_FLAG_FIXED_CODEBOOK)
		for (unsigned k = 0; k < 16; k++)
			if (fcb[k] != h->codebook[k])
				return SPLITZIP_ERROR_CORRUPT_STREAM;
	return SPLITZIP_OK;
}

/*
 * FORMAT.md §12.5 step 9 a-f: the checks of manifest entry i (< h->n_pages) of a stream whose
 * header passed steps 0-7 (so [0, h->stream_size) is readable), in order, but for its frame
 * header. Reads entry i, entry i-1 and the padding before payload i; never anything outside
 * [0, h->stream_size), whatever the other entries hold. '*x' receives the entry.
 */
SPLITZIP_HD splitzip_status splitzip_pages_check_layout(const uint8_t *src,
                                                        const splitzip_pages_header *h, uint64_t i,
                                                        splitzip_page_entry *x)
{
	splitzip_pages_entry_read(src, i, x);
	const uint8_t *e = src + splitzip_pages_manifest_end(i);
	if (x->encoding > SPLITZIP_PAGE_FRAME)
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT; /* a: a later encoding */
	unsigned reserved = 0;
	for (unsigned k = SZ_PG_E_RESERVED; k < SPLITZIP_PAGES_ENTRY_SIZE; k++)
		reserved |= e[k];
	if (reserved)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	if (x->page_bytes % 2 || x->page_bytes > SZ_PG_MAX_PAGE_BYTES)
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* b: BF16 pages of at most one frame */
	uint64_t prev_end = 0;
	if (x->offset != splitzip_pages_expected_offset(src, h->n_pages, i, &prev_end))
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* c: the offset chain */
	if (x->offset > h->stream_size || x->length > h->stream_size - x->offset)
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* d: inside the stream */
	if (x->encoding == SPLITZIP_PAGE_RAW
	        ? x->length != x->page_bytes
	        : (x->length >= x->page_bytes || x->length < SPLITZIP_FRAME_HEADER_SIZE))
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* e: raw is the page, a frame is smaller */
	/* f: zero padding. prev_end <= offset < prev_end + 256 after c, and offset <= size. */
	for (uint64_t k = prev_end; k < x->offset; k++)
		if (src[k])
			return SPLITZIP_ERROR_CORRUPT_STREAM;
	return SPLITZIP_OK;
}

/*
 * FORMAT.md §12.5 step 9: every check of entry i, a-g, in order (for a frame page, g reads the
 * 64 bytes of its frame header, inside the stream once a-f passed). A GPU may run a-f and g as
 * two passes: the lowest entry failing a-f, or failing g while passing a-f, is the lowest entry
 * failing step 9, so the status is the same.
 */
SPLITZIP_HD splitzip_status splitzip_pages_check_entry(const uint8_t *src,
                                                       const splitzip_pages_header *h, uint64_t i,
                                                       splitzip_page_entry *x)
{
	splitzip_status st = splitzip_pages_check_layout(src, h, i, x);
	if (st != SPLITZIP_OK || x->encoding != SPLITZIP_PAGE_FRAME)
		return st;
	return splitzip_pages_check_frame(src, h, x); /* g */
}

/* FORMAT.md §12.5 step 10: the stream ends with the last payload and the page total adds up.
 * 'end' is the end of the last payload (the manifest end without pages), 'sum' the sum of the
 * page sizes (mod 2^64). */
SPLITZIP_HD splitzip_status splitzip_pages_check_totals(const splitzip_pages_header *h,
                                                        uint64_t end, uint64_t sum)
{
	return (h->stream_size != end || h->total_page_bytes != sum) ? SPLITZIP_ERROR_CORRUPT_STREAM
	                                                             : SPLITZIP_OK;
}

/* The end of the last payload of a stream whose entries all passed step 9. */
SPLITZIP_HD uint64_t splitzip_pages_last_end(const uint8_t *src, uint64_t n_pages)
{
	if (n_pages == 0)
		return splitzip_pages_manifest_end(0);
	splitzip_page_entry x;
	splitzip_pages_entry_read(src, n_pages - 1, &x);
	return x.offset + x.length;
}

/* ---- Host functions (core/sz_pages.c) ---------------------------------------------------- */

#if !defined(__CUDACC__) && !defined(__HIPCC__)
#ifdef __cplusplus
extern "C" {
#endif

/*
 * The structural checks of a whole stream, FORMAT.md §12.5 steps 0-10, in order: header, manifest
 * checksum, every entry, totals. On SPLITZIP_OK '*h' holds the header and the first
 * min(n_pages, max_entries) entries are stored in 'entries' (may be NULL). Reads nothing
 * outside [0, size) and no payload byte beyond the 64 bytes of each frame header and the
 * padding.
 */
SZ_INTERNAL splitzip_status splitzip_pages_validate(const uint8_t *src, size_t size,
                                                    splitzip_pages_header *h,
                                                    splitzip_page_entry *entries,
                                                    size_t max_entries);

/*
 * The destination checks of FORMAT.md §12.6 for a validated stream: no more pages than
 * destinations, and every page no larger than its destination (DST_TOO_SMALL otherwise).
 */
SZ_INTERNAL splitzip_status splitzip_pages_check_dst(const uint8_t *src,
                                                     const splitzip_pages_header *h, size_t n_dst,
                                                     const size_t *dst_caps);

/*
 * An encoder's last step: with the manifest written at dst + 64, compute Manifest_Checksum and
 * write the header ('h' complete but for the checksum).
 */
SZ_INTERNAL void splitzip_pages_finish(uint8_t *dst, splitzip_pages_header *h);

#ifdef __cplusplus
}
#endif
#endif

#endif /* SZ_PAGES_H */
