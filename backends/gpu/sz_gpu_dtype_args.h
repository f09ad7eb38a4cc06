/*
 * sz_gpu_dtype_args.h -- what the GPU decoder of frames of every dtype (doc/FORMAT.md 1.3,
 * sz_gpu_dtype_dec.cuh) is told about a batch: the frames (a batch's device arrays, or one
 * frame by value), output capacities in bytes, results, and the workspace, whose per-frame
 * state is the BF16 decoder's (sz_gpu_dec_state, SZ_GPU_DEC_WS_STRIDE bytes per frame).
 * Host and device code; shared by the kernels, the module, the public API and the tests.
 */
#ifndef SZ_GPU_DTYPE_ARGS_H
#define SZ_GPU_DTYPE_ARGS_H

#include "sz_gpu_args.h"

/* One frame given by value. */
typedef struct sz_gpu_dt_dec_one {
	const void *src;
	uint64_t size; /* bytes */
	void *dst;     /* any alignment */
	uint64_t cap;  /* bytes */
} sz_gpu_dt_dec_one;

/* The frames: device arrays of n_frames entries, or, when srcs is NULL, the frame 'one'. */
typedef struct sz_gpu_dt_dec_frames {
	const void *const *srcs;
	const size_t *src_sizes;
	void *const *dsts;
	const size_t *dst_caps; /* bytes */
	sz_gpu_dt_dec_one one;
	size_t *out_elems; /* device arrays (one entry for 'one'): elements decoded, 0 on error */
	int32_t *statuses; /* splitzip_status */
} sz_gpu_dt_dec_frames;

typedef struct sz_gpu_dt_dec {
	sz_gpu_dt_dec_frames frames;
	uint8_t *ws; /* sz_gpu_dec_workspace_size() bytes: SZ_GPU_DEC_WS_STRIDE per frame */
	sz_gpu_dec_launch run; /* set by the driver */
} sz_gpu_dt_dec;

#endif /* SZ_GPU_DTYPE_ARGS_H */
