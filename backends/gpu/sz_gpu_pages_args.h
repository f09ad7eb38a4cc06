/*
 * sz_gpu_pages_args.h -- what the page-stream kernels (sz_gpu_pages.cuh) are told, and the
 * layout of their workspace. Plain C and SPLITZIP_HD, shared by libsplitzip (api/, which sizes
 * the workspace), the GPU modules and the SIMT harness tests.
 *
 * Compression packs n pages in three steps on one stream: the batched frame encoder of
 * sz_gpu_driver.cuh compresses every page into its own bound-sized slot of the workspace; one
 * block plans the stream (raw or frame per page, an aligned prefix sum of the payload lengths
 * gives every offset, the manifest, its checksum, the header, the size and the status, all in
 * device memory); then a grid copies each payload (the frame from its slot, or the page
 * itself) to its offset and zeroes the padding. Decompression mirrors it: one block validates
 * the header, the manifest and the destinations and fills the batch arrays of the frame
 * decoder (a NULL source for every page it must not decode), the batched frame decoder runs,
 * a grid copies the raw pages, and one block writes the sizes and the status of the first
 * failing page.
 */
#ifndef SZ_GPU_PAGES_ARGS_H
#define SZ_GPU_PAGES_ARGS_H

#include "../../core/sz_pages.h"
#include "sz_gpu_args.h"

/* Compression of n_pages pages into one stream. Arrays are device arrays of n_pages entries. */
typedef struct sz_gpu_pages_enc {
	sz_gpu_enc codec; /* chunk_log2, flags, split4; frames unused */
	uint64_t n_pages;
	const void *const *pages;
	const size_t *page_bytes;
	uint64_t max_page_bytes; /* no page is larger (the launch is sized for it) */
	uint8_t *dst;
	uint64_t dst_cap;
	size_t *out_size; /* stream size, 0 on error */
	int32_t *status;  /* splitzip_status */
	uint8_t *ws;      /* sz_gpu_pages_ws_size(n_pages, max_page_bytes, chunk_log2) bytes */
	uint32_t fixed;   /* the header carries codec.codebook (FIXED_CODEBOOK) */
	uint32_t codebook_id;
	uint32_t page0; /* first page of a launch over gridDim.y pages (set by the driver) */
	uint32_t reserved;
} sz_gpu_pages_enc;

/* Decompression of the stream at src into up to n_pages device pages. */
typedef struct sz_gpu_pages_dec {
	const uint8_t *src;
	uint64_t src_size;
	uint64_t n_pages;
	void *const *pages;
	const size_t *page_caps; /* bytes */
	uint64_t max_page_bytes; /* no capacity is larger */
	size_t *page_sizes;      /* may be NULL */
	size_t *n_pages_out;
	int32_t *status;
	uint8_t *ws;
	uint32_t chunk_log2; /* the context's, for the frame decoder's workspace stride */
	uint32_t page0;
} sz_gpu_pages_dec;

/* ---- Workspace layout ---------------------------------------------------------------------- */

/*
 * Both directions use the same layout, so one size serves both:
 *
 *   state                  256 bytes: sz_gpu_pages_state
 *   10 arrays of n entries each in 8-byte cells, each rounded up to 256 bytes:
 *                          0 srcs, 1 n_elems (compress: frame elements; decompress: page
 *                          bytes), 2 dsts, 3 caps, 4 sizes (frame bytes), 5 statuses (int32
 *                          in 8-byte cells), 6 offsets, 7 lengths, 8 encodings, 9 decoded
 *                          elements (decompress)
 *   slots                  n x sz_gpu_pages_slot(max_page_bytes): one frame per page
 *                          (compression; unused when decompressing, but one size serves both)
 *   frame workspace        n x sz_gpu_ws_stride(max elements, chunk_log2): the batched codec's
 */
typedef struct sz_gpu_pages_state {
	int32_t status;            /* the stream's status before the frame bodies */
	uint32_t ok;               /* 1: the payload copies may run */
	uint64_t n_pages;          /* decode: the stream's page count once valid, else 0 */
	uint64_t size;             /* encode: the stream size */
	splitzip_pages_header hdr; /* decode: the stream header (steps 0-7 passed) */
	uint64_t bad;              /* decode: lowest entry failing §12.5 step 9 a-f, or ~0 */
	int32_t bad_status;        /* its status */
	uint32_t reserved;
	uint64_t sum;   /* decode: the sum of the entries' page sizes */
	uint64_t small; /* decode: lowest page larger than its destination, or ~0 */
} sz_gpu_pages_state;

#define SZ_GPU_PAGES_STATE_BYTES 256u
SZ_STATIC_ASSERT(sizeof(sz_gpu_pages_state) <= SZ_GPU_PAGES_STATE_BYTES, "the state fits");
#define SZ_GPU_PAGES_ARRAYS 10u
enum {
	SZ_PG_WS_SRCS = 0,
	SZ_PG_WS_NELEMS,
	SZ_PG_WS_DSTS,
	SZ_PG_WS_CAPS,
	SZ_PG_WS_SIZES,
	SZ_PG_WS_STATUSES,
	SZ_PG_WS_OFFSETS,
	SZ_PG_WS_LENGTHS,
	SZ_PG_WS_ENCODINGS,
	SZ_PG_WS_DECODED
};

/* The bytes of one frame slot: the bound of a page of max_page_bytes, rounded to 256. */
SPLITZIP_HD uint64_t sz_gpu_pages_slot(uint64_t max_page_bytes)
{
	return sz_gpu_round256(splitzip_stored_frame_size(max_page_bytes / 2));
}

SPLITZIP_HD uint64_t sz_gpu_pages_array_bytes(uint64_t n_pages)
{
	return sz_gpu_round256(8 * n_pages);
}

/* Offset of array k (SZ_PG_WS_*) in the workspace. */
SPLITZIP_HD uint64_t sz_gpu_pages_array_off(uint64_t n_pages, unsigned k)
{
	return SZ_GPU_PAGES_STATE_BYTES + (uint64_t)k * sz_gpu_pages_array_bytes(n_pages);
}

SPLITZIP_HD uint64_t sz_gpu_pages_slots_off(uint64_t n_pages)
{
	return sz_gpu_pages_array_off(n_pages, SZ_GPU_PAGES_ARRAYS);
}

SPLITZIP_HD uint64_t sz_gpu_pages_codec_ws_off(uint64_t n_pages, uint64_t max_page_bytes)
{
	return sz_gpu_pages_slots_off(n_pages) + n_pages * sz_gpu_pages_slot(max_page_bytes);
}

/*
 * Workspace bytes for n_pages pages of at most max_page_bytes. The caller (api/) has checked
 * that the result fits: sz_gpu_pages_ws_per_page() times n_pages plus the fixed part.
 */
SPLITZIP_HD uint64_t sz_gpu_pages_ws_size(uint64_t n_pages, uint64_t max_page_bytes, unsigned log2)
{
	return sz_gpu_pages_codec_ws_off(n_pages, max_page_bytes) +
	       n_pages * sz_gpu_ws_stride(max_page_bytes / 2, log2);
}

/* An upper bound of the workspace bytes per page, for the caller's overflow check. */
SPLITZIP_HD uint64_t sz_gpu_pages_ws_per_page(uint64_t max_page_bytes, unsigned log2)
{
	return 8 * SZ_GPU_PAGES_ARRAYS + sz_gpu_pages_slot(max_page_bytes) +
	       sz_gpu_ws_stride(max_page_bytes / 2, log2);
}

/* The part that does not grow with the pages: the state and the rounding of the arrays. */
#define SZ_GPU_PAGES_WS_FIXED (SZ_GPU_PAGES_STATE_BYTES + 256u * SZ_GPU_PAGES_ARRAYS)

#endif /* SZ_GPU_PAGES_ARGS_H */
