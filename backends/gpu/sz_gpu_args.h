/*
 * sz_gpu_args.h -- what the GPU kernels are told about a batch of frames, the geometry of their
 * work, and the layout of their workspace. Host and device code (SPLITZIP_HD); shared by the
 * kernels, the host orchestration (sz_gpu_driver.cuh), the public API's size checks and the
 * tests. All offsets and sizes inside a frame come from core/sz_layout.h.
 *
 * Work units. A warp always encodes or decodes whole chunks, so that it can hash them (the
 * content checksum's 32 lanes run through a chunk in order, FORMAT.md §7.1) from the registers
 * that hold them. A tile is what a block takes at once: one run of chunks per warp, each run
 * at least SZ_GPU_WARP_ELEMS elements (several chunks when chunks are small).
 *
 * Encode workspace, one slice per frame:
 *   [0, 256)                 sz_gpu_enc_state: tickets, done counters, escape total, checksum
 *   [256, 1280)              hist_s: 256 x u32, exponent histogram of the sample
 *   [1280, 2304)             hist_r: 256 x u32, exponent histogram of the whole input
 *   [2304, 2304 + 8 C)       look-back words of the encode pass, one per tile (<= one per chunk)
 *   [.., + 8 C)              look-back words of a second pass (a mispredicted codebook)
 *   [.., + n/6 + 6)          escape exponents in frame order, until the section's offset is known
 * Decode workspace: sz_gpu_dec_state (256 bytes) per frame; decoding one block per frame (the
 * batched path) uses none.
 */
#ifndef SZ_GPU_ARGS_H
#define SZ_GPU_ARGS_H

#include "../../core/sz_layout.h"
#include "../../include/splitzip.h"

/* Threads per block of every kernel. */
#define SZ_GPU_THREADS 256u
/* Elements a warp takes per tile at least (whole chunks). */
#define SZ_GPU_WARP_ELEMS 4096u
/* Escape records a block keeps in shared memory per tile before it knows their ranks. */
#define SZ_GPU_STASH 4096u

/* Look-back word of a tile: state in bits 32-33, escape count in bits 0-31. */
#define SZ_LB_AGGREGATE 1ull /* the tile's own escape count */
#define SZ_LB_INCLUSIVE 2ull /* escapes in tiles 0..t */
#define SZ_LB_STORED 3ull    /* the frame is certainly stored: counts no longer matter */

/* Phases of an encode (index of tickets, done counters and look-back sets). */
#define SZ_PH_SAMPLE 0 /* histogram of the sample that predicts the codebook */
#define SZ_PH_ENCODE 1 /* the pass over the input */
#define SZ_PH_REDO 2   /* a second pass, after a mispredicted codebook */

/* Per-frame encode state at the start of the frame's workspace slice (zeroed by sz_k_enc_init). */
typedef struct sz_gpu_enc_state {
	uint32_t ticket[3]; /* tiles handed out, per phase */
	uint32_t done[3];   /* tiles finished, per phase (release/acquire: see doc/AMD.md) */
	uint32_t stored;    /* encode pass: the frame is certainly stored (a hint to skip work) */
	uint32_t skip;      /* argument error: the status is written already */
	uint64_t esc;       /* escapes of the last pass, written by its last tile; 2^63: stored */
	uint64_t csum;      /* wrapping sum of the chunk folds of the content checksum */
	int64_t max_esc;    /* splitzip_split4_max_escapes(n, L) */
	uint8_t reserved[16];
} sz_gpu_enc_state;

/* Per-frame decode state (written by sz_k_dec_init, which parses the header once). */
typedef struct sz_gpu_dec_state {
	int32_t status;   /* of the header checks (FORMAT.md §3.2-3.3 steps 0-13) */
	uint32_t corrupt; /* a body rule of FORMAT.md §4 failed somewhere */
	uint32_t done;    /* blocks finished */
	uint32_t esc;  /* escapes found in an entropy frame's chunks (FORMAT.md §4.3.6 rule 5) */
	uint64_t csum; /* wrapping sum of the chunk folds of the decoded content */
	splitzip_header h; /* the parsed header (valid when status is OK) */
	uint8_t reserved[256 - 24 - sizeof(splitzip_header)];
} sz_gpu_dec_state;

/*
 * The arguments of a compression, by role: the frames (a batch's device arrays, or one frame
 * by value), the workspace, the parameters every encoding shares, those of split4 and those of
 * the entropy encoding, and what the driver adds for the launches. Callers (the public API,
 * the page-stream code, tests) fill the first five and leave 'run' zero.
 */

/* One frame given by value: the single-frame calls have no device array to point at. */
typedef struct sz_gpu_enc_one {
	const uint16_t *src;
	uint64_t n; /* elements */
	void *dst;
	uint64_t cap; /* bytes */
} sz_gpu_enc_one;

/* The frames: device arrays of n_frames entries, or, when srcs is NULL, the frame 'one'. */
typedef struct sz_gpu_enc_frames {
	const uint16_t *const *srcs;
	const size_t *n_elems;
	void *const *dsts;
	const size_t *dst_caps;
	sz_gpu_enc_one one;
	size_t *out_sizes; /* device arrays (one entry for 'one'): frame size, 0 on error */
	int32_t *statuses; /* splitzip_status */
} sz_gpu_enc_frames;

/* Split4 (and the split4 side of auto): the codebook from each frame's input, else 'codebook'. */
typedef struct sz_gpu_split4_params {
	uint32_t from_input;
	uint8_t codebook[16];
	/* Not NULL (and not from_input): the codebook is these 16 bytes of device memory instead
	 * (a page stream's, chosen on the device by sz_gpu_pages.cuh). */
	const uint8_t *codebook_dev;
} sz_gpu_split4_params;

/* The entropy encoding (and auto): each frame's own table (FORMAT.md §5.2), else 'table': the
 * lengths of exponents 0..255, then of the escape symbol (a valid table, §5.4). */
typedef struct sz_gpu_entropy_params {
	uint32_t from_input;
	uint8_t table[SPLITZIP_ENTROPY_SYMBOLS + 3];
	/* Not NULL (and not from_input): the table is these SPLITZIP_ENTROPY_SYMBOLS bytes of
	 * device memory instead (a page stream's). */
	const uint8_t *table_dev;
} sz_gpu_entropy_params;

/* Set by the driver (sz_gpu_driver.cuh) for the kernels of one launch sequence. */
typedef struct sz_gpu_enc_launch {
	uint64_t ws_stride; /* bytes of workspace per frame */
	uint64_t n_frames;
	/* Codebooks from the input of frames of at least this many elements are predicted from a
	 * sample and checked, below it they come from every chunk's histogram
	 * (SZ_GPU_SAMPLE_ALL_ELEMS; tests lower it to exercise the prediction on small frames). */
	uint64_t predict_from;
	uint32_t frame0; /* first frame of this launch (per-frame kernels: blockIdx.y + frame0) */
	uint32_t reserved;
} sz_gpu_enc_launch;

typedef struct sz_gpu_enc {
	sz_gpu_enc_frames frames;
	uint8_t *ws;        /* sz_gpu_workspace_size_for() bytes, SZ_GPU_WS_ALIGN aligned */
	uint64_t max_elems; /* no frame of the batch has more */
	sz_gpu_enc_launch run;
	uint32_t chunk_log2;
	uint32_t flags;
	uint32_t encoding; /* SPLITZIP_ENCODING_SPLIT4, _ENTROPY or _AUTO */
	sz_gpu_split4_params split4;
	sz_gpu_entropy_params entropy;
} sz_gpu_enc;

/* The arguments of a decompression, the same way. */
typedef struct sz_gpu_dec_one {
	const void *src;
	uint64_t size; /* bytes */
	uint16_t *dst;
	uint64_t cap; /* elements */
} sz_gpu_dec_one;

typedef struct sz_gpu_dec_frames {
	const void *const *srcs;
	const size_t *src_sizes;
	uint16_t *const *dsts;
	const size_t *dst_caps; /* elements */
	sz_gpu_dec_one one;
	size_t *out_elems; /* elements decoded, 0 on error */
	int32_t *statuses;
} sz_gpu_dec_frames;

typedef struct sz_gpu_dec_launch {
	uint64_t ws_stride;
	uint64_t n_frames;
	uint32_t frame0;
	uint32_t reserved;
} sz_gpu_dec_launch;

typedef struct sz_gpu_dec {
	sz_gpu_dec_frames frames;
	uint8_t *ws; /* sz_gpu_dec_workspace_size() bytes */
	sz_gpu_dec_launch run;
} sz_gpu_dec;

/* ---- Geometry ------------------------------------------------------------------------------ */

/* Chunks a warp takes per tile: enough for SZ_GPU_WARP_ELEMS elements. */
SPLITZIP_HD uint32_t sz_gpu_chunks_per_warp(unsigned log2)
{
	return log2 >= 12 ? 1u : (uint32_t)(SZ_GPU_WARP_ELEMS >> log2);
}

/* Tiles of a frame of n elements for blocks of 'warps' warps. */
SPLITZIP_HD uint64_t sz_gpu_tiles(uint64_t n, unsigned log2, unsigned warps)
{
	const uint64_t per = (uint64_t)warps * sz_gpu_chunks_per_warp(log2);
	return (splitzip_n_chunks(n, log2) + per - 1) / per;
}

/* ---- Workspace layout ---------------------------------------------------------------------- */

/*
 * A split4 frame is smaller than the stored frame only if 64 + n/2 + n + 3E < 64 + 2n + 16
 * (each section is at least its payload, the stored size at most 2n + 15 past the header), so
 * E < n/6 + 6: room for that many exponents serves every frame of up to max_elems elements.
 */
SPLITZIP_HD uint64_t sz_gpu_exps_bound(uint64_t max_elems)
{
	return max_elems / 6 + 6;
}

SPLITZIP_HD uint64_t sz_gpu_round256(uint64_t x)
{
	return (x + 255) & ~(uint64_t)255;
}

#define SZ_GPU_WS_HIST_S 256u    /* offset of hist_s in a frame slice */
#define SZ_GPU_WS_HIST_R 1280u   /* offset of hist_r */
#define SZ_GPU_WS_LOOKBACK 2304u /* offset of the look-back words */

/* Offset of the look-back words of phase SZ_PH_ENCODE (set 0) or SZ_PH_REDO (set 1). */
SPLITZIP_HD uint64_t sz_gpu_ws_lookback_off(uint64_t max_elems, unsigned log2, unsigned set)
{
	return SZ_GPU_WS_LOOKBACK + 8 * splitzip_n_chunks(max_elems, log2) * set;
}

SPLITZIP_HD uint64_t sz_gpu_ws_exps_off(uint64_t max_elems, unsigned log2)
{
	return sz_gpu_ws_lookback_off(max_elems, log2, 2);
}

/* Bytes of encode workspace per frame for frames of up to max_elems elements in chunks of
 * 2^log2 (a multiple of 256, so every slice is as aligned as the workspace). */
SPLITZIP_HD uint64_t sz_gpu_ws_stride(uint64_t max_elems, unsigned log2)
{
	return sz_gpu_round256(sz_gpu_ws_exps_off(max_elems, log2) + sz_gpu_exps_bound(max_elems));
}

/*
 * Encode workspace of the entropy encoding, one slice per frame (sz_gpu_entropy_enc.cuh):
 *   [0, 256)         sz_gpu_ent_state
 *   [256, 1280)      hist: 256 x u32, the exponent histogram (a table from the input)
 *   [1280, 2304)     sym: 256 x u32, the encoder table (splitzip_entropy_enc_tables)
 *   [2304, 2560)     the code-length section (at most 128 bytes)
 *   [2560, + 4 C)    words per chunk, then (after the plan) the chunk table: running totals
 */
typedef struct sz_gpu_ent_state {
	uint32_t skip;  /* the status is written already (an argument error, n = 0) */
	uint32_t mode;  /* after the plan: SPLITZIP_MODE_ENTROPY, _STORED, or SZ_GPU_ENT_NONE */
	uint32_t esc;   /* escapes (the count pass) */
	uint32_t first; /* the table's exponent range and code-length section bytes */
	uint32_t last;
	uint32_t lbytes;
	uint32_t esc_len; /* Escape_Length */
	uint32_t reserved0;
	uint64_t csum; /* wrapping sum of the chunk folds of the content checksum */
	uint8_t reserved[256 - 40];
} sz_gpu_ent_state;

#define SZ_GPU_ENT_NONE 0xFFu     /* nothing to write (DST_TOO_SMALL) */
#define SZ_GPU_ENT_WS_HIST 256u   /* offset of the histogram in a frame slice */
#define SZ_GPU_ENT_WS_SYM 1280u   /* of the encoder table */
#define SZ_GPU_ENT_WS_LENS 2304u  /* of the code-length section */
#define SZ_GPU_ENT_WS_WORDS 2560u /* of the words per chunk */

/* Bytes of encode workspace per frame for the entropy encoding. */
SPLITZIP_HD uint64_t sz_gpu_ent_ws_stride(uint64_t max_elems, unsigned log2)
{
	return sz_gpu_round256(SZ_GPU_ENT_WS_WORDS + 4 * splitzip_n_chunks(max_elems, log2));
}

/* Bytes of encode workspace per frame for an encoding (SPLITZIP_ENCODING_*). */
SPLITZIP_HD uint64_t sz_gpu_ws_stride_for(uint64_t max_elems, unsigned log2, unsigned encoding)
{
	if (encoding == SPLITZIP_ENCODING_ENTROPY)
		return sz_gpu_ent_ws_stride(max_elems, log2);
	if (encoding == SPLITZIP_ENCODING_AUTO) /* both encoders: split4's slice first */
		return sz_gpu_ws_stride(max_elems, log2) + sz_gpu_ent_ws_stride(max_elems, log2);
	return sz_gpu_ws_stride(max_elems, log2);
}

/* Bytes of decode workspace per frame. */
#define SZ_GPU_DEC_WS_STRIDE 256u

/* Alignment the workspace must have (its atomics are 8-byte words; 16 leaves room). */
#define SZ_GPU_WS_ALIGN 16u

#endif /* SZ_GPU_ARGS_H */
