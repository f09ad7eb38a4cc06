/*
 * sz_gpu_dtype_enc_args.h -- what the GPU encoder of the dtypes FP8 E4M3, FP8 E5M2, FP16 and
 * FP32 (doc/FORMAT.md 1.3, Dtype 2-5; kernels in sz_gpu_dtype_enc.cuh) is told about a batch
 * of frames, and the layout of its workspace. Host and device code (SPLITZIP_HD); shared by the
 * kernels, the module (sz_gpu_module.cuh), the public API's size checks and the tests. Every
 * offset inside a frame comes from core/sz_dtype_layout.h.
 *
 * Encode workspace, one slice per frame (sz_gpu_dt_ws_stride bytes, a multiple of 256):
 *   [0, 256)           sz_gpu_dt_state: the plan, the escape and word totals, the checksum
 *   [256, 1280)        hist: 256 x u32, the exponent histogram of the frame
 *   [1280, 2304)       sym: 256 x u32, the entropy encoder table (splitzip_entropy_enc_tables)
 *   [2304, 2560)       code: 256 x u8, split4: the code of each exponent | SZ_DT_IN_CB
 *   [2560, 2816)       the code-length section of the entropy table (at most 129 bytes)
 *   [2816, + 4 C)      words of each entropy chunk, then (after the decision) running totals
 *   [.., + 4 C)        split4 escapes of each chunk, then running totals
 */
#ifndef SZ_GPU_DTYPE_ENC_ARGS_H
#define SZ_GPU_DTYPE_ENC_ARGS_H

#include "../../core/sz_dtype_layout.h"
#include "sz_gpu_args.h"

/* One frame given by value. */
typedef struct sz_gpu_dt_one {
	const void *src; /* n elements of the dtype's width, any alignment */
	uint64_t n;
	void *dst;    /* any alignment */
	uint64_t cap; /* bytes */
} sz_gpu_dt_one;

/* The frames: device arrays of n_frames entries, or, when srcs is NULL, the frame 'one'. */
typedef struct sz_gpu_dt_frames {
	const void *const *srcs;
	const size_t *n_elems;
	void *const *dsts;
	const size_t *dst_caps;
	sz_gpu_dt_one one;
	size_t *out_sizes; /* device arrays (one entry for 'one'): frame size, 0 on error */
	int32_t *statuses; /* splitzip_status */
} sz_gpu_dt_frames;

/*
 * The arguments of a compression of frames of Dtype 2-5. The caller (the public API, tests)
 * has checked what the host can: the dtype, the encoding (split4 not for E4M3), chunk_log2, a
 * fixed codebook or table valid for the dtype (splitzip_dtype_fixed_ok). split4 and entropy
 * are as for BF16 (sz_gpu_args.h) except that their device-memory tables (codebook_dev,
 * table_dev) are not read: the fixed codebook and table are the by-value copies. 'ws_stride'
 * and 'frame0' are set by sz_gpu_dt_compress.
 */
typedef struct sz_gpu_dt_enc {
	uint32_t dtype;      /* 2-5 */
	uint32_t chunk_log2; /* 10-16 */
	uint32_t flags;      /* SPLITZIP_FLAG_* */
	uint32_t encoding;   /* SPLITZIP_ENCODING_SPLIT4, _ENTROPY or _AUTO */
	sz_gpu_dt_frames frames;
	uint8_t *ws;        /* sz_gpu_dt_workspace_size() bytes, SZ_GPU_WS_ALIGN aligned */
	uint64_t max_elems; /* no frame of the batch has more */
	uint64_t ws_stride; /* bytes of workspace per frame */
	uint32_t frame0;    /* first frame of this launch (blockIdx.y + frame0) */
	uint32_t reserved;
	sz_gpu_split4_params split4;
	sz_gpu_entropy_params entropy;
} sz_gpu_dt_enc;

/* Per-frame state at the start of the frame's workspace slice (written by sz_k_dt_init). */
typedef struct sz_gpu_dt_state {
	uint32_t skip;  /* the status is written already (an argument error) */
	uint32_t mode;  /* after the decision: SPLITZIP_MODE_*, or SZ_GPU_DT_NONE */
	uint32_t has4;  /* the plan: a split4 candidate */
	uint32_t has2;  /* an entropy candidate */
	uint32_t first; /* the entropy table's exponent range */
	uint32_t last;
	uint32_t lbytes;  /* bytes of the code-length section */
	uint32_t esc_len; /* Escape_Length */
	uint64_t e4;      /* split4 escapes (the plan, from the histogram) */
	uint64_t e2;      /* entropy escapes (the count pass) */
	uint64_t words;   /* Stream_Words (the decision) */
	uint64_t csum;    /* wrapping sum of the chunk folds of the content checksum */
	uint8_t reserved[256 - 64];
} sz_gpu_dt_state;

#define SZ_GPU_DT_NONE 0xFFu /* nothing to write (an error) */
#define SZ_DT_IN_CB 0x10u    /* in the code table: the exponent is in the codebook */

#define SZ_GPU_DT_WS_HIST 256u
#define SZ_GPU_DT_WS_SYM 1280u
#define SZ_GPU_DT_WS_CODE 2304u
#define SZ_GPU_DT_WS_LENS 2560u
#define SZ_GPU_DT_WS_WORDS 2816u

/* Offset of the split4 escape counts in a frame slice of frames of up to max_elems elements. */
SPLITZIP_HD uint64_t sz_gpu_dt_ws_esc4(uint64_t max_elems, unsigned log2)
{
	return SZ_GPU_DT_WS_WORDS + 4 * splitzip_n_chunks(max_elems, log2);
}

/* Bytes of encode workspace per frame of up to max_elems elements in chunks of 2^log2. */
SPLITZIP_HD uint64_t sz_gpu_dt_ws_stride(uint64_t max_elems, unsigned log2)
{
	return sz_gpu_round256(sz_gpu_dt_ws_esc4(max_elems, log2) +
	                       4 * splitzip_n_chunks(max_elems, log2));
}

/* Encode workspace bytes of n_frames frames (any dtype and encoding). */
SPLITZIP_HD uint64_t sz_gpu_dt_workspace_size(uint64_t n_frames, uint64_t max_elems, unsigned log2)
{
	return n_frames * sz_gpu_dt_ws_stride(max_elems, log2);
}

#endif /* SZ_GPU_DTYPE_ENC_ARGS_H */
