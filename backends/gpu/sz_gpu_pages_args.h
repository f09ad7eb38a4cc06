/*
 * sz_gpu_pages_args.h -- what the page-stream kernels (sz_gpu_pages.cuh, page stream version 2,
 * doc/FORMAT.md §12) are told, and the layout of their workspace. Plain C and SPLITZIP_HD,
 * shared by libsplitzip (api/, which sizes the workspace), the GPU modules and the SIMT
 * harness tests.
 *
 * Compression, per candidate encoding (split4, entropy; auto runs both): the histogram of all
 * pages gives the stream's table (or the table is fixed), the cost of every page under it its
 * raw bit, a scan the coded and raw positions and the frames; the coded pages are gathered
 * into the workspace and coded as frames of 2^24 elements by the batched frame encoder of
 * sz_gpu_driver.cuh, with the table read from device memory; one block plans the stream (the
 * candidate, its layout, the status); a grid packs the frames and the raw pages into the
 * output; the raw checksum is hashed from there; one block writes the page table, the header,
 * the size and the status. Decompression: one block validates the header, the page table, the
 * padding, every frame header and the destinations and fills the batch arrays of the frame
 * decoder (nothing to decode when the stream is invalid); the batched decoder decodes every
 * frame into the workspace; the raw checksum is checked; one block finds the first failing
 * frame and writes the states, sizes and status; a grid scatters the pages the states say.
 */
#ifndef SZ_GPU_PAGES_ARGS_H
#define SZ_GPU_PAGES_ARGS_H

#include "../../core/sz_pages.h"
#include "sz_gpu_args.h"

/*
 * Pages: device arrays of page pointers and sizes (or capacities), or a pool whose page i is
 * at pool + indices[i] * stride, every page 'page_bytes' long (a paged KV cache and its
 * kv_indices, with nothing to build on the host).
 */
typedef struct sz_gpu_pages_io {
	void *const *ptrs;    /* n entries, or NULL: the pool */
	const size_t *bytes;  /* n entries (with ptrs) */
	uint8_t *pool;        /* without ptrs */
	const int64_t *index; /* n entries (with pool): page i is pool page index[i] */
	uint64_t stride;      /* bytes between pool pages */
	uint64_t page_bytes;  /* every pool page's size */
	uint64_t pool_size;   /* bytes of the pool: a page outside it is INVALID_ARGUMENT */
} sz_gpu_pages_io;

/* Compression of n_pages pages into one stream. */
typedef struct sz_gpu_pages_enc {
	sz_gpu_pages_io in;
	uint64_t n_pages;
	uint64_t max_page_bytes; /* no page is larger (the launch and workspace are sized for it) */
	uint8_t *dst;
	uint64_t dst_cap;
	size_t *out_size;    /* stream size, 0 on error */
	int32_t *status;     /* splitzip_status */
	uint8_t *ws;         /* sz_gpu_pages_ws_size() bytes */
	uint32_t encoding;   /* SPLITZIP_ENCODING_SPLIT4, _ENTROPY or _AUTO */
	uint32_t chunk_log2; /* of every frame */
	uint32_t checksum;   /* 1: Checksum_Flag */
	uint32_t table_id;
	uint32_t fixed[2]; /* the candidate's table was given: split4, entropy */
	uint8_t codebook[16];
	uint8_t table[SPLITZIP_ENTROPY_SYMBOLS]; /* lengths of 0..255, then the escape symbol */
	uint8_t reserved0[3];
	uint32_t cand;  /* set by the driver: the candidate of a kernel (0 split4, 1 entropy) */
	uint32_t page0; /* set by the driver: first page of a launch over gridDim.y pages */
} sz_gpu_pages_enc;

/* Decompression of the stream at src into up to n_pages device pages. */
typedef struct sz_gpu_pages_dec {
	const uint8_t *src;
	uint64_t src_size;
	sz_gpu_pages_io out; /* bytes: the capacities */
	uint64_t n_pages;
	uint64_t max_page_bytes; /* no capacity is larger */
	uint32_t exact;          /* SPLITZIP_PAGES_EXACT */
	uint32_t chunk_log2;     /* unused: frames carry their own */
	size_t *page_sizes;      /* may be NULL */
	uint8_t *page_states;    /* may be NULL */
	size_t *n_pages_out;
	int32_t *status;
	uint8_t *ws;
	uint32_t page0;
	uint32_t reserved;
} sz_gpu_pages_dec;

/* ---- Workspace layout ---------------------------------------------------------------------- */

/*
 * The state at the start of the workspace (both directions), 8 KiB.
 *   compress: status, the element total, per candidate the coded and raw elements, the frames'
 *   and the stream's sizes, the raw checksum; the chosen candidate; the histogram of all pages;
 *   the tables (codebook; entropy lengths).
 *   decompress: status, the header, the layout, the first failing frame.
 */
typedef struct sz_gpu_pages_state {
	int32_t status;
	uint32_t chosen; /* compress: the candidate written (0 split4, 1 entropy) */
	uint64_t total;  /* elements of all pages */
	uint64_t coded[2], raw[2], frames_size[2], stream_size[2];
	uint64_t raw_sum;  /* wrapping sum of the raw checksum's chunk folds */
	uint32_t ok;       /* the stream is written (compress) or valid (decompress) */
	uint32_t bad_page; /* compress: the lowest page with bad arguments, or ~0 */
	uint64_t fail;     /* decompress: the first failing frame, or Frame_Count */
	splitzip_pages_header hdr;
	splitzip_pages_layout lay;
	uint8_t codebook[16];
	uint8_t lengths[SPLITZIP_ENTROPY_SYMBOLS];
	uint8_t reserved[7];
	uint64_t hist[256];
} sz_gpu_pages_state;

#define SZ_GPU_PAGES_STATE_BYTES 8192u
SZ_STATIC_ASSERT(sizeof(sz_gpu_pages_state) <= SZ_GPU_PAGES_STATE_BYTES, "the state fits");

SPLITZIP_HD uint64_t sz_gpu_pg_round256(uint64_t x)
{
	return (x + 255) & ~(uint64_t)255;
}

/* The most elements n pages of max_page_bytes hold, and the most frames they make. */
SPLITZIP_HD uint64_t sz_gpu_pg_max_elems(uint64_t n, uint64_t max_page_bytes)
{
	return n * (max_page_bytes / 2);
}
SPLITZIP_HD uint64_t sz_gpu_pg_max_frames(uint64_t n, uint64_t max_page_bytes)
{
	return splitzip_pages_n_frames(sz_gpu_pg_max_elems(n, max_page_bytes));
}
/* Elements of the largest frame. */
SPLITZIP_HD uint64_t sz_gpu_pg_frame_max(uint64_t n, uint64_t max_page_bytes)
{
	const uint64_t e = sz_gpu_pg_max_elems(n, max_page_bytes);
	return e < SPLITZIP_PAGES_FRAME_ELEMS ? e : SPLITZIP_PAGES_FRAME_ELEMS;
}

/*
 * The arrays after the state (8-byte cells unless said; k-th of SZ_PG_WS_* for n pages and F
 * frames), then the gather buffer (the coded elements, 2 bytes each), per candidate the frame
 * slots (frame j at j * slot), and the frame codec's workspace.
 */
enum {
	SZ_PG_WS_ELEMS = 0, /* per page: its element count */
	SZ_PG_WS_POS0,      /* per page, split4 candidate: coded or raw position | raw << 63 */
	SZ_PG_WS_POS1,      /* the same, entropy candidate */
	SZ_PG_WS_COST,      /* per page: escapes (bits 0-31 of a split4 count), entropy bits */
	SZ_PG_WS_F_SRCS,    /* per frame: the frame codec's batch arrays */
	SZ_PG_WS_F_NELEMS,
	SZ_PG_WS_F_DSTS,
	SZ_PG_WS_F_CAPS,
	SZ_PG_WS_F_OFFS,   /* per frame: its offset in the stream (the chosen candidate) */
	SZ_PG_WS_F_SIZES0, /* per frame: the frame codec's results, split4 candidate */
	SZ_PG_WS_F_STATUS0,
	SZ_PG_WS_F_SIZES1, /* the same, entropy candidate (decoding: the decoded elements) */
	SZ_PG_WS_F_STATUS1,
	SZ_PG_WS_ARRAYS
};

SPLITZIP_HD uint64_t sz_gpu_pg_array_len(unsigned k, uint64_t n, uint64_t F)
{
	return k < SZ_PG_WS_F_SRCS ? n : F;
}

SPLITZIP_HD uint64_t sz_gpu_pg_array_off(uint64_t n, uint64_t F, unsigned k)
{
	uint64_t off = SZ_GPU_PAGES_STATE_BYTES;
	for (unsigned j = 0; j < k; j++)
		off += sz_gpu_pg_round256(8 * sz_gpu_pg_array_len(j, n, F) + 8);
	return off;
}

/* Bytes of a frame slot: a stored frame of the largest frame, the bound of any frame. */
SPLITZIP_HD uint64_t sz_gpu_pg_slot(uint64_t n, uint64_t max_page_bytes)
{
	return sz_gpu_pg_round256(
	    splitzip_stored_frame_size(sz_gpu_pg_frame_max(n, max_page_bytes)));
}

SPLITZIP_HD uint64_t sz_gpu_pg_gather_off(uint64_t n, uint64_t F)
{
	return sz_gpu_pg_array_off(n, F, SZ_PG_WS_ARRAYS);
}

/* Offset of slot set k (compression: one per candidate written, AUTO two, else one; k = the
 * number of sets: where the frame codec's workspace starts). */
SPLITZIP_HD uint64_t sz_gpu_pg_slots_off(uint64_t n, uint64_t max_page_bytes, unsigned cand)
{
	const uint64_t F = sz_gpu_pg_max_frames(n, max_page_bytes);
	return sz_gpu_pg_gather_off(n, F) +
	       sz_gpu_pg_round256(2 * sz_gpu_pg_max_elems(n, max_page_bytes) + 16) +
	       (uint64_t)cand * F * sz_gpu_pg_slot(n, max_page_bytes);
}

/* Slot sets of a compression: AUTO keeps both candidates' frames, one encoding one set;
 * decompression none. */
SPLITZIP_HD unsigned sz_gpu_pg_sets(unsigned encoding)
{
	return encoding == SPLITZIP_ENCODING_AUTO ? 2u : 1u;
}

/* Where the frame codec's workspace starts, after 'sets' slot sets. */
SPLITZIP_HD uint64_t sz_gpu_pg_codec_off(uint64_t n, uint64_t max_page_bytes, unsigned sets)
{
	return sz_gpu_pg_slots_off(n, max_page_bytes, sets);
}

/*
 * Compression workspace bytes for n pages of at most max_page_bytes, frames of 'encoding' in
 * chunks of 2^log2: the state, the arrays, the gather buffer, the slot sets and the frame
 * encoder's workspace for the largest candidate (it runs once per candidate). The caller
 * (api/) has checked that n * max_page_bytes is below 2^62.
 */
SPLITZIP_HD uint64_t sz_gpu_pages_ws_size(uint64_t n, uint64_t max_page_bytes, unsigned log2,
                                          unsigned encoding)
{
	const uint64_t F = sz_gpu_pg_max_frames(n, max_page_bytes);
	const uint64_t fmax = sz_gpu_pg_frame_max(n, max_page_bytes);
	uint64_t codec = 0;
	if (encoding != SPLITZIP_ENCODING_ENTROPY)
		codec = F * sz_gpu_ws_stride_for(fmax, log2, SPLITZIP_ENCODING_SPLIT4);
	const uint64_t ent = encoding != SPLITZIP_ENCODING_SPLIT4
	                         ? F * sz_gpu_ws_stride_for(fmax, log2, SPLITZIP_ENCODING_ENTROPY)
	                         : 0;
	codec = ent > codec ? ent : codec;
	return sz_gpu_pg_codec_off(n, max_page_bytes, sz_gpu_pg_sets(encoding)) +
	       sz_gpu_pg_round256(codec);
}

/* Decompression workspace bytes for n destination pages of at most max_page_bytes: the
 * state, the arrays, the gather buffer and the frame decoder's workspace. */
SPLITZIP_HD uint64_t sz_gpu_pages_dec_ws_size(uint64_t n, uint64_t max_page_bytes)
{
	const uint64_t F = sz_gpu_pg_max_frames(n, max_page_bytes);
	return sz_gpu_pg_codec_off(n, max_page_bytes, 0) +
	       sz_gpu_pg_round256(F * SZ_GPU_DEC_WS_STRIDE);
}

#endif /* SZ_GPU_PAGES_ARGS_H */
