/*
 * sz_pages.h -- every byte-layout decision of the page stream, version 2 (doc/FORMAT.md §12):
 * a list of pages (e.g. the KV cache pages of one request or one layer) packed into one
 * contiguous wire buffer. Behind a 64-byte header, a page table of one u32 per page (element
 * count and a raw bit); then ordinary splitzip frames over the concatenation of every page
 * that is not raw, in frames of up to 2^24 elements, all with one codebook or entropy table;
 * then the raw pages' bytes. Static inline helpers usable from host code and from CUDA/HIP
 * device code (SPLITZIP_HD), so that the host page API (core/sz_pages.c, api/sz_api_pages.c),
 * the GPU kernels (backends/gpu/sz_gpu_pages.cuh) and the CPU SIMT harness lay out and
 * validate streams with the same code.
 *
 * Why this layout: a page costs 4 bytes of the table (32 bits: the element count and whether it
 * travels raw) instead of a frame header, a codebook, a manifest entry and alignment each, so
 * pages of 1-2 KiB keep the ratio of one frame over the same bytes; the frames are ordinary
 * frames, so every mode (split4, entropy) and every frame decoder works on them unchanged; the
 * stream is fully determined by the pages and the parameters (one valid stream per input, like
 * a frame); every offset follows from the table and the frame sizes, so nothing can overlap
 * or leave holes; the header and table sit at the front, so a receiver learns the total size
 * from the first 64 bytes; the sections start at multiples of 64 bytes.
 */
#ifndef SZ_PAGES_H
#define SZ_PAGES_H

#include "../include/splitzip.h"
#include "sz_common.h"
#include "sz_hash.h"
#include "sz_layout.h"

/* ---- Constants of page stream version 2 (doc/FORMAT.md §12) ------------------------------- */

#define SPLITZIP_PAGES_MAGIC 0x47505A53u /* bytes 53 5A 50 47: "SZPG" */
#define SPLITZIP_PAGES_FLAGS_KNOWN (SPLITZIP_PAGES_FLAG_CHECKSUM | SPLITZIP_PAGES_FLAG_FIXED_TABLE)
#define SPLITZIP_PAGES_FRAME_LOG2 24u         /* frames of 2^24 elements, the last shorter */
#define SPLITZIP_PAGES_RAW_BIT 0x80000000u    /* bit 31 of a table entry: the page travels raw */
#define SPLITZIP_PAGES_ELEMS_MASK 0x7FFFFFFFu /* bits 0-30: the page's element count */
#define SPLITZIP_PAGES_VERSION_DTYPE 3u       /* version 3: pages of Dtype 2-5 (FORMAT.md §12) */

SZ_STATIC_ASSERT(SPLITZIP_PAGES_ALIGN % SPLITZIP_SECTION_ALIGN == 0,
                 "frames inside a stream keep their 16-byte section alignment");
SZ_STATIC_ASSERT(SPLITZIP_PAGES_HEADER_SIZE == 64 && SPLITZIP_PAGES_ENTRY_SIZE == 4,
                 "header and entry sizes of version 2");
SZ_STATIC_ASSERT(SPLITZIP_PAGES_FRAME_ELEMS == (1u << SPLITZIP_PAGES_FRAME_LOG2),
                 "the public frame length is the format's");
SZ_STATIC_ASSERT(SPLITZIP_PAGES_MAX_PAGE_BYTES == 2ull * SPLITZIP_PAGES_ELEMS_MASK,
                 "the public page limit is the format's");

/* Byte offsets of the stream header fields. */
#define SZ_PG_H_MAGIC 0           /* u32 */
#define SZ_PG_H_VERSION 4         /* u8 */
#define SZ_PG_H_FLAGS 5           /* u8 */
#define SZ_PG_H_ENCODING 6        /* u8: 1 split4, 2 entropy */
#define SZ_PG_H_CHUNK_LOG2 7      /* u8 */
#define SZ_PG_H_PAGE_COUNT 8      /* u32 */
#define SZ_PG_H_TABLE_ID 12       /* u32 */
#define SZ_PG_H_TOTAL_ELEMS 16    /* u64 */
#define SZ_PG_H_FRAMES_SIZE 24    /* u64 */
#define SZ_PG_H_STREAM_SIZE 32    /* u64 */
#define SZ_PG_H_RAW_CHECKSUM 40   /* u64 */
#define SZ_PG_H_TABLE_CHECKSUM 48 /* u32 */
#define SZ_PG_H_RESERVED 52       /* 8 bytes, zero (version 2) */
#define SZ_PG_H_DTYPE 52 /* u8: version 3, the pages' Dtype (2-5); 7 reserved bytes follow */
#define SZ_PG_H_HEADER_CHECKSUM 60 /* u32 */
SZ_STATIC_ASSERT(SZ_PG_H_HEADER_CHECKSUM + 4 == SPLITZIP_PAGES_HEADER_SIZE,
                 "the stream header is 64 bytes");

/* ---- Arithmetic ------------------------------------------------------------------------------ */

SPLITZIP_HD uint64_t splitzip_pages_align(uint64_t x)
{
	return (x + (SPLITZIP_PAGES_ALIGN - 1)) & ~(uint64_t)(SPLITZIP_PAGES_ALIGN - 1);
}

/* End of the page table of n pages: the header and n entries. */
SPLITZIP_HD uint64_t splitzip_pages_table_end(uint64_t n_pages)
{
	return SPLITZIP_PAGES_HEADER_SIZE + (uint64_t)SPLITZIP_PAGES_ENTRY_SIZE * n_pages;
}

/* Frames_Offset: the first frame starts at the first aligned offset after the table. */
SPLITZIP_HD uint64_t splitzip_pages_frames_offset(uint64_t n_pages)
{
	return splitzip_pages_align(splitzip_pages_table_end(n_pages));
}

/* Frame_Count: frames of 2^24 elements over the coded elements, the last one shorter. */
SPLITZIP_HD uint64_t splitzip_pages_n_frames(uint64_t coded_elems)
{
	return (coded_elems + SPLITZIP_PAGES_FRAME_ELEMS - 1) >> SPLITZIP_PAGES_FRAME_LOG2;
}

/* Elements of frame j (< Frame_Count) of coded_elems coded elements. */
SPLITZIP_HD uint64_t splitzip_pages_frame_elems(uint64_t coded_elems, uint64_t j)
{
	const uint64_t first = j << SPLITZIP_PAGES_FRAME_LOG2;
	const uint64_t left = coded_elems - first;
	return left < SPLITZIP_PAGES_FRAME_ELEMS ? left : SPLITZIP_PAGES_FRAME_ELEMS;
}

/* Where the sections of a stream lie (FORMAT.md §12.1), from the page table and the size of
 * the frames section. */
typedef struct splitzip_pages_layout {
	uint64_t coded_elems; /* elements of the pages that are not raw */
	uint64_t raw_elems;   /* elements of the raw pages */
	uint64_t n_frames;    /* Frame_Count */
	uint64_t frames_off;  /* Frames_Offset */
	uint64_t frames_end;  /* Frames_Offset + Frames_Size */
	uint64_t raw_off;     /* Raw_Offset */
	uint64_t stream_size; /* Raw_Offset + w * raw_elems */
} splitzip_pages_layout;

/* The layout of a stream of elements of w bytes (2 for BF16 pages, version 2). */
SPLITZIP_HD void splitzip_pages_layout_of_w(uint64_t n_pages, uint64_t coded_elems,
                                            uint64_t raw_elems, uint64_t frames_size, unsigned w,
                                            splitzip_pages_layout *L)
{
	L->coded_elems = coded_elems;
	L->raw_elems = raw_elems;
	L->n_frames = splitzip_pages_n_frames(coded_elems);
	L->frames_off = splitzip_pages_frames_offset(n_pages);
	L->frames_end = L->frames_off + frames_size;
	L->raw_off = raw_elems ? splitzip_pages_align(L->frames_end) : L->frames_end;
	L->stream_size = L->raw_off + (uint64_t)w * raw_elems;
}

SPLITZIP_HD void splitzip_pages_layout_of(uint64_t n_pages, uint64_t coded_elems,
                                          uint64_t raw_elems, uint64_t frames_size,
                                          splitzip_pages_layout *L)
{
	splitzip_pages_layout_of_w(n_pages, coded_elems, raw_elems, frames_size, 2, L);
}

/*
 * The bound of doc/FORMAT.md §12.4 for elements of w bytes (w = 1, 2 or 4; 2 is
 * SPLITZIP_PAGES_BOUND) as 64-bit arithmetic, 0 if it does not fit or a limit is exceeded (a
 * page of more than 2^31 - 1 elements): the table, every byte of every page, and per frame of
 * 2^24 elements (w 2^24 bytes) its header and padding, plus the alignment of the raw section.
 */
SPLITZIP_HD uint64_t splitzip_pages_bound64_w(uint64_t n_pages, uint64_t max_page_bytes, unsigned w)
{
	if (n_pages > SPLITZIP_PAGES_MAX_PAGES ||
	    max_page_bytes > (uint64_t)w * SPLITZIP_PAGES_ELEMS_MASK)
		return 0;
	const uint64_t head = splitzip_pages_frames_offset(n_pages);
	if (n_pages && max_page_bytes > (~(uint64_t)0 >> 1) / n_pages)
		return 0;
	const uint64_t bytes = n_pages * max_page_bytes;
	return head + bytes + 80 * (bytes / ((uint64_t)w << SPLITZIP_PAGES_FRAME_LOG2)) + 144;
}

/* SPLITZIP_PAGES_BOUND, checked: BF16 pages. */
SPLITZIP_HD uint64_t splitzip_pages_bound64(uint64_t n_pages, uint64_t max_page_bytes)
{
	return splitzip_pages_bound64_w(n_pages, max_page_bytes, 2);
}

/* ---- Header ------------------------------------------------------------------------------------
 */

/* The fields of a stream header, as integers. */
typedef struct splitzip_pages_header {
	unsigned version;
	unsigned flags;
	unsigned encoding;   /* SPLITZIP_MODE_SPLIT4 or SPLITZIP_MODE_ENTROPY */
	unsigned chunk_log2; /* of every frame, and of the raw checksum */
	uint32_t n_pages;
	uint32_t table_id;
	uint64_t total_elems;
	uint64_t frames_size;
	uint64_t stream_size;
	uint64_t raw_checksum;
	uint32_t table_checksum;
	unsigned dtype; /* the pages' Dtype: BF16 (1) in version 2, byte 52 in version 3 */
} splitzip_pages_header;

/* Header_Checksum: the low 32 bits of the chunk digest of bytes 0..59 (FORMAT.md §7.1). */
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
	h[SZ_PG_H_ENCODING] = (uint8_t)f->encoding;
	h[SZ_PG_H_CHUNK_LOG2] = (uint8_t)f->chunk_log2;
	splitzip_put_u8s(h + SZ_PG_H_PAGE_COUNT, f->n_pages, 4);
	splitzip_put_u8s(h + SZ_PG_H_TABLE_ID, f->table_id, 4);
	splitzip_put_u8s(h + SZ_PG_H_TOTAL_ELEMS, f->total_elems, 8);
	splitzip_put_u8s(h + SZ_PG_H_FRAMES_SIZE, f->frames_size, 8);
	splitzip_put_u8s(h + SZ_PG_H_STREAM_SIZE, f->stream_size, 8);
	splitzip_put_u8s(h + SZ_PG_H_RAW_CHECKSUM, f->raw_checksum, 8);
	splitzip_put_u8s(h + SZ_PG_H_TABLE_CHECKSUM, f->table_checksum, 4);
	if (f->version == SPLITZIP_PAGES_VERSION_DTYPE) /* version 2 does not read f->dtype */
		h[SZ_PG_H_DTYPE] = (uint8_t)f->dtype;
	splitzip_put_u8s(h + SZ_PG_H_HEADER_CHECKSUM, splitzip_pages_header_checksum(h), 4);
}

/* Header fields from 64 bytes, without any check. */
SPLITZIP_HD void splitzip_pages_header_fields(const uint8_t *h, splitzip_pages_header *f)
{
	f->version = h[SZ_PG_H_VERSION];
	f->flags = h[SZ_PG_H_FLAGS];
	f->encoding = h[SZ_PG_H_ENCODING];
	f->chunk_log2 = h[SZ_PG_H_CHUNK_LOG2];
	f->n_pages = (uint32_t)splitzip_get_u8s(h + SZ_PG_H_PAGE_COUNT, 4);
	f->table_id = (uint32_t)splitzip_get_u8s(h + SZ_PG_H_TABLE_ID, 4);
	f->total_elems = splitzip_get_u8s(h + SZ_PG_H_TOTAL_ELEMS, 8);
	f->frames_size = splitzip_get_u8s(h + SZ_PG_H_FRAMES_SIZE, 8);
	f->stream_size = splitzip_get_u8s(h + SZ_PG_H_STREAM_SIZE, 8);
	f->raw_checksum = splitzip_get_u8s(h + SZ_PG_H_RAW_CHECKSUM, 8);
	f->table_checksum = (uint32_t)splitzip_get_u8s(h + SZ_PG_H_TABLE_CHECKSUM, 4);
	f->dtype = f->version == SPLITZIP_PAGES_VERSION_DTYPE ? h[SZ_PG_H_DTYPE]
	                                                      : (unsigned)SPLITZIP_DTYPE_BF16;
}

/*
 * FORMAT.md §12.5 steps 0-6: the checks of the 64 header bytes, in order. Reads at most 64 bytes
 * of src ('size' available). On SPLITZIP_OK, '*f' holds the fields; the rest of the stream is
 * neither read nor known to be present. With 'all_dtypes' 0 the reader implements BF16 pages
 * only and reports version 3 as UNSUPPORTED_FORMAT at step 2 (the GPU kernels); with 1 it
 * reads version 3 too, the pages of Dtype 2-5 (the host code).
 */
SPLITZIP_HD splitzip_status splitzip_pages_parse_header_ext(const uint8_t *src, uint64_t size,
                                                            int all_dtypes,
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
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* step 2: version 0 never existed */
	const unsigned version = src[SZ_PG_H_VERSION];
	if (version != SPLITZIP_PAGES_FORMAT_VERSION &&
	    !(all_dtypes && version == SPLITZIP_PAGES_VERSION_DTYPE))
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT; /* version 1 is no longer read; 4+ later
		                                           */
	if (splitzip_get_u8s(src + SZ_PG_H_HEADER_CHECKSUM, 4) !=
	    splitzip_pages_header_checksum(src))
		return SPLITZIP_ERROR_HEADER_CHECKSUM; /* step 3 */
	splitzip_pages_header_fields(src, f);
	if (f->encoding != SPLITZIP_MODE_SPLIT4 && f->encoding != SPLITZIP_MODE_ENTROPY)
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT; /* step 4 */
	const int v3 = version == SPLITZIP_PAGES_VERSION_DTYPE;
	if (v3 && (f->dtype < SPLITZIP_DTYPE_BF16 || f->dtype > SPLITZIP_DTYPE_FP32 ||
	           (f->encoding == SPLITZIP_MODE_SPLIT4 && f->dtype == SPLITZIP_DTYPE_FP8_E4M3)))
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT;          /* step 4, version 3 */
	unsigned reserved = v3 && f->dtype == SPLITZIP_DTYPE_BF16; /* step 5: BF16 is version 2 */
	for (unsigned i = v3 ? 1u : 0u; i < 8; i++)
		reserved |= src[SZ_PG_H_RESERVED + i];
	if ((f->flags & ~SPLITZIP_PAGES_FLAGS_KNOWN) || reserved || /* step 5 */
	    f->chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || f->chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX ||
	    (!(f->flags & SPLITZIP_PAGES_FLAG_FIXED_TABLE) && f->table_id) ||
	    (!(f->flags & SPLITZIP_PAGES_FLAG_CHECKSUM) && f->raw_checksum))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	const uint64_t off = splitzip_pages_frames_offset(f->n_pages); /* step 6 */
	if (f->frames_size % SPLITZIP_SECTION_ALIGN || f->stream_size < off ||
	    f->frames_size > f->stream_size - off ||
	    f->total_elems > (uint64_t)f->n_pages * SPLITZIP_PAGES_ELEMS_MASK)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	return SPLITZIP_OK;
}

/* Steps 0-6 of a reader of BF16 pages only (version 2). */
SPLITZIP_HD splitzip_status splitzip_pages_parse_header(const uint8_t *src, uint64_t size,
                                                        splitzip_pages_header *f)
{
	return splitzip_pages_parse_header_ext(src, size, 0, f);
}

/* Steps 0-7: the header, and the whole stream present (nothing after the header read yet). */
SPLITZIP_HD splitzip_status splitzip_pages_read_header_ext(const uint8_t *src, uint64_t size,
                                                           int all_dtypes, splitzip_pages_header *f)
{
	splitzip_status st = splitzip_pages_parse_header_ext(src, size, all_dtypes, f);
	if (st != SPLITZIP_OK)
		return st;
	return f->stream_size > size ? SPLITZIP_ERROR_TRUNCATED : SPLITZIP_OK; /* step 7 */
}

SPLITZIP_HD splitzip_status splitzip_pages_read_header(const uint8_t *src, uint64_t size,
                                                       splitzip_pages_header *f)
{
	return splitzip_pages_read_header_ext(src, size, 0, f);
}

/* ---- Page table ------------------------------------------------------------------------------ */

/* Entry i of the page table, as stored. */
SPLITZIP_HD uint32_t splitzip_pages_entry(const uint8_t *src, uint64_t i)
{
	return (uint32_t)splitzip_get_u8s(src + splitzip_pages_table_end(i), 4);
}

SPLITZIP_HD uint64_t splitzip_pages_entry_elems(uint32_t entry)
{
	return entry & SPLITZIP_PAGES_ELEMS_MASK;
}

SPLITZIP_HD int splitzip_pages_entry_raw(uint32_t entry)
{
	return (entry & SPLITZIP_PAGES_RAW_BIT) != 0;
}

SPLITZIP_HD void splitzip_pages_entry_write(uint8_t *dst, uint64_t i, uint64_t elems, int raw)
{
	splitzip_put_u8s(dst + splitzip_pages_table_end(i),
	                 elems | (raw ? SPLITZIP_PAGES_RAW_BIT : 0u), 4);
}

/* ---- The canonical choice of raw pages (FORMAT.md §12.4) ---------------------------------- */

/*
 * Whether a page travels raw, from its exponent histogram and the stream's codebook: exactly
 * when its split4 cost, 12 bits per element and 24 more per escape (an exponent outside the
 * codebook), is at least the 16 bits per element it has raw: 6 * escapes >= n. A page of no
 * elements is raw. is_escape[e] is 1 for exponents outside the codebook.
 */
SPLITZIP_HD int splitzip_pages_raw_split4(const uint64_t hist[256], const uint8_t is_escape[256],
                                          uint64_t n)
{
	uint64_t escapes = 0;
	for (unsigned e = 0; e < 256; e++)
		escapes += is_escape[e] ? hist[e] : 0;
	return 6 * escapes >= n;
}

/*
 * The same for the entropy encoding: the page's cost is 8 bits per element (sign and mantissa)
 * plus, per element, its exponent's code length, or the escape code length plus 8 for an
 * exponent without a code (length 0); raw exactly when that is at least 16 bits per element.
 */
SPLITZIP_HD int splitzip_pages_raw_entropy(const uint64_t hist[256], const uint8_t lengths[256],
                                           unsigned escape_length, uint64_t n)
{
	uint64_t bits = 8 * n;
	for (unsigned e = 0; e < 256; e++)
		bits +=
		    hist[e] * (lengths[e] ? lengths[e] : escape_length + SPLITZIP_ENTROPY_RAW_BITS);
	return bits >= 16 * n;
}

/* ---- Frames inside a stream (FORMAT.md §12.5 step 10) ------------------------------------ */

/*
 * The table of a frame as one comparable unit: a split4 frame's codebook, or an entropy frame's
 * Table_First, Table_Last, Escape_Length and code-length bytes (§4.3.3), all inside the frame
 * once its header passed §3.2. 'n_bytes' receives the length of the code-length section.
 */
SPLITZIP_HD const uint8_t *splitzip_pages_frame_table(const uint8_t *frame,
                                                      const splitzip_header *h, uint64_t *n_bytes)
{
	if (h->mode == SPLITZIP_MODE_SPLIT4) {
		*n_bytes = 16;
		return frame + SZ_H_CODEBOOK;
	}
	splitzip_entropy_layout L;
	splitzip_entropy_layout_of(h->n_elems, h->chunk_log2, h->n_words, h->table_first,
	                           h->table_last, &L);
	*n_bytes = (splitzip_entropy_nibbles(h->table_first, h->table_last) + 1) / 2;
	return frame + L.lengths_off;
}

/* Whether two frames that passed §3.2 have the same table (same mode, same bytes). */
SPLITZIP_HD int splitzip_pages_same_table(const uint8_t *a, const splitzip_header *ha,
                                          const uint8_t *b, const splitzip_header *hb)
{
	if (ha->mode != hb->mode)
		return 0;
	if (ha->mode == SPLITZIP_MODE_ENTROPY &&
	    (ha->table_first != hb->table_first || ha->table_last != hb->table_last ||
	     ha->escape_length != hb->escape_length))
		return 0;
	uint64_t na, nb;
	const uint8_t *ta = splitzip_pages_frame_table(a, ha, &na);
	const uint8_t *tb = splitzip_pages_frame_table(b, hb, &nb);
	for (uint64_t i = 0; i < na; i++)
		if (ta[i] != tb[i])
			return 0;
	return 1;
}

/*
 * FORMAT.md §12.5 step 10 c for frame j of a stream, whose header '*fh' passed §3.2 with 'left'
 * bytes of the frames section from there on: its size, element count, chunk size, flags, mode
 * and dtype are the stream's. On SPLITZIP_OK the frame lies inside the section.
 */
SPLITZIP_HD splitzip_status splitzip_pages_check_frame_fields(const splitzip_header *fh,
                                                              uint64_t left,
                                                              const splitzip_pages_header *h,
                                                              const splitzip_pages_layout *L,
                                                              uint64_t j)
{
	const unsigned want_flags =
	    (h->flags & SPLITZIP_PAGES_FLAG_CHECKSUM) ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0u;
	if (fh->frame_size > left || /* c */
	    fh->n_elems != splitzip_pages_frame_elems(L->coded_elems, j) ||
	    fh->chunk_log2 != h->chunk_log2 || fh->flags != want_flags ||
	    (fh->mode != SPLITZIP_MODE_STORED && fh->mode != h->encoding) || fh->dtype != h->dtype)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	return SPLITZIP_OK;
}

/* Step 10 a-c for a reader of BF16 frames only (the GPU kernels). */
SPLITZIP_HD splitzip_status splitzip_pages_check_frame(const uint8_t *frame, uint64_t left,
                                                       const splitzip_pages_header *h,
                                                       const splitzip_pages_layout *L, uint64_t j,
                                                       splitzip_header *fh)
{
	if (left < SPLITZIP_FRAME_HEADER_SIZE)
		return SPLITZIP_ERROR_CORRUPT_STREAM; /* a */
	splitzip_status st = splitzip_read_header(frame, left, fh);
	if (st != SPLITZIP_OK) /* b: inside a stream, bytes that are no frame are damage (§8.2) */
		return st == SPLITZIP_ERROR_BAD_MAGIC ? SPLITZIP_ERROR_CORRUPT_STREAM : st;
	return splitzip_pages_check_frame_fields(fh, left, h, L, j);
}

/* ---- Host functions (core/sz_pages.c) ---------------------------------------------------- */

#if !defined(__CUDACC__) && !defined(__HIPCC__)
#ifdef __cplusplus
extern "C" {
#endif

/*
 * The structural checks of a whole stream, FORMAT.md §12.5 steps 0-10, in order: header, table
 * checksum, the page table's totals and the section padding, every frame header and the
 * stream's one table. On SPLITZIP_OK '*h' holds the header and '*L' the layout. Reads nothing
 * outside [0, size) and no frame body beyond its header and its table.
 */
SZ_INTERNAL splitzip_status splitzip_pages_validate(const uint8_t *src, size_t size,
                                                    splitzip_pages_header *h,
                                                    splitzip_pages_layout *L);

/*
 * The destination checks of FORMAT.md §12.6 for a validated stream: no more pages than
 * destinations, and every page no larger than its destination (DST_TOO_SMALL otherwise); with
 * 'exact', the same number of pages and every page exactly its destination's size (GEOMETRY
 * otherwise).
 */
SZ_INTERNAL splitzip_status splitzip_pages_check_dst(const uint8_t *src,
                                                     const splitzip_pages_header *h, size_t n_dst,
                                                     const size_t *dst_caps, int exact);

/*
 * The sums over the n elements at x of c4[exponent] and ce[exponent] (the per-exponent costs
 * of splitzip_pages_raw_split4() and splitzip_pages_raw_entropy(): 1 for an escape; a code
 * length, or the escape length plus 8), added to '*s4' and '*se'. The same as the histogram
 * weighted with the costs, in one pass and without a histogram per page.
 */
SZ_INTERNAL void splitzip_pages_costs(const uint16_t *x, size_t n, const uint8_t c4[256],
                                      const uint8_t ce[256], uint64_t *s4, uint64_t *se);

/* The number of the n elements at x whose exponent is outside base..base+15 (the escapes of a
 * window codebook): a loop compilers vectorise. */
SZ_INTERNAL uint64_t splitzip_pages_outside(const uint16_t *x, size_t n, uint8_t base);

/* Table_Checksum: the low 32 bits of the chunk digest of the n_pages table entries. */
SZ_INTERNAL uint32_t splitzip_pages_table_checksum(const uint8_t *src, uint64_t n_pages);

#ifdef __cplusplus
}
#endif
#endif

#endif /* SZ_PAGES_H */
