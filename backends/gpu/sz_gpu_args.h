/*
 * sz_gpu_args.h -- what the GPU kernels are told about a batch of frames, and the layout of
 * their workspace. Host and device code (SPLITZIP_HD); shared by the kernels, the host
 * orchestration (sz_gpu_driver.cuh) and the tests.
 *
 * A call works on a batch of independent frames (a single-frame call is a batch of one whose
 * arguments are passed by value). Each frame owns one slice of the workspace:
 *
 *   sz_gpu_frame_state   64 bytes: tickets, counters, the codebook in use
 *   hist                 256 x u64: exponent histogram (codebook from the input)
 *   lookback             C_max x u64: decoupled look-back state per chunk (encode)
 *   exps                 max_esc_bound bytes: escape exponents in frame order (encode)
 *
 * All offsets and frame sizes inside a frame come from core/sz_layout.h.
 */
#ifndef SZ_GPU_ARGS_H
#define SZ_GPU_ARGS_H

#include "../../core/sz_layout.h"
#include "../../include/splitzip.h"

/* Threads per block (kernels other than encode at small chunks) and elements per thread step:
 * a step reads 16 elements as two 16-byte loads and writes 8 code bytes + 16 sign/mantissa
 * bytes. */
#define SZ_GPU_THREADS 256u
#define SZ_GPU_GROUP 16u
/* Groups per chunk at most: 2^16 / 16. */
#define SZ_GPU_MAX_GROUPS 4096u

/* Look-back state word: flag in bits 32-33, escape count in bits 0-31. */
#define SZ_LB_AGGREGATE 1ull /* the chunk's own escape count */
#define SZ_LB_INCLUSIVE 2ull /* escapes in chunks 0..c */

/* Per-frame state at the start of the frame's workspace slice. */
typedef struct sz_gpu_frame_state {
	uint32_t ticket;  /* encode: chunks handed out so far */
	uint32_t done;    /* decode: blocks finished */
	uint64_t csum;    /* wrapping sum of the chunk folds of the content checksum */
	uint32_t corrupt; /* decode: a body rule of FORMAT.md §4 failed somewhere */
	int32_t skip;     /* encode: the status is final already (argument error) */
	int64_t max_esc;  /* encode: splitzip_split4_max_escapes(n, L) */
	uint8_t codebook[16];
	uint8_t reserved[16];
} sz_gpu_frame_state;

/* Compression of a batch. Arrays are in device memory; srcs == NULL means one frame given by
 * the *1 fields. Frame f of the arrays is handled by blockIdx.y == f - frame0. */
typedef struct sz_gpu_enc {
	const uint16_t *const *srcs;
	const size_t *n_elems;
	void *const *dsts;
	const size_t *dst_caps;
	size_t *out_sizes; /* frame size, 0 on error */
	int32_t *statuses; /* splitzip_status */
	const uint16_t *src1;
	uint64_t n1;
	void *dst1;
	uint64_t cap1;
	uint8_t *ws;
	uint64_t ws_stride; /* bytes of workspace per frame */
	uint64_t max_elems; /* no frame of the batch has more */
	uint32_t frame0;
	uint32_t chunk_log2;
	uint32_t flags;
	uint32_t from_input; /* codebook from each frame's histogram, else 'codebook' */
	uint8_t codebook[16];
} sz_gpu_enc;

/* Decompression of a batch; the same conventions. */
typedef struct sz_gpu_dec {
	const void *const *srcs;
	const size_t *src_sizes;
	uint16_t *const *dsts;
	const size_t *dst_caps; /* elements */
	size_t *out_elems;      /* elements decoded, 0 on error */
	int32_t *statuses;
	const void *src1;
	uint64_t size1;
	uint16_t *dst1;
	uint64_t cap1;
	uint8_t *ws;
	uint64_t ws_stride;
	uint32_t frame0;
} sz_gpu_dec;

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

#define SZ_GPU_WS_HIST 64u               /* offset of hist in a frame slice */
#define SZ_GPU_WS_LOOKBACK (64u + 2048u) /* offset of lookback */

/* Bytes of workspace per frame for frames of up to max_elems elements in chunks of 2^log2. */
SPLITZIP_HD uint64_t sz_gpu_ws_stride(uint64_t max_elems, unsigned log2)
{
	uint64_t c_max = splitzip_n_chunks(max_elems, log2);
	return sz_gpu_round256(SZ_GPU_WS_LOOKBACK + 8 * c_max + sz_gpu_exps_bound(max_elems));
}

SPLITZIP_HD uint64_t sz_gpu_ws_exps_off(uint64_t max_elems, unsigned log2)
{
	return SZ_GPU_WS_LOOKBACK + 8 * splitzip_n_chunks(max_elems, log2);
}

#endif /* SZ_GPU_ARGS_H */
