/*
 * sz_gpu_module.h -- the interface between libsplitzip and a GPU module (libsplitzip_cuda.so,
 * libsplitzip_hip.so). libsplitzip links no GPU runtime: the dispatcher (dispatch/sz_gpu.c)
 * dlopen()s a module when a context asks for its backend, looks up SPLITZIP_GPU_MODULE_SYMBOL
 * and checks the ABI number. Plain C; the argument structs are those of sz_gpu_args.h.
 */
#ifndef SZ_GPU_MODULE_H
#define SZ_GPU_MODULE_H

#include "sz_gpu_args.h"
#include "sz_gpu_dtype_args.h"
#include "sz_gpu_dtype_enc_args.h"
#include "sz_gpu_pages_args.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bumped whenever this struct or the argument structs change. 7: the frames of every dtype
 * (sz_gpu_dtype_args.h; dtype_decompress, dtype_host_decompress_frame). 6: page stream version 2
 * (sz_gpu_pages_args.h rewritten: candidates, pools, page states) and the device-memory tables
 * of the frame encoder (codebook_dev, table_dev). 5: the argument structs by role
 * (frames, split4 and entropy parameters, the driver's launch fields; no test setting). 4: the
 * entropy (mode 2) fields of
 * the argument structs (sz_gpu_args.h: encoding, table, the entropy state per frame) with the
 * page stream entry points (sz_gpu_pages_args.h); 3 was either one alone, 2 the rewritten
 * kernels' argument structs or the page entry points alone.
 */
#define SPLITZIP_GPU_MODULE_ABI 7u
#define SPLITZIP_GPU_MODULE_SYMBOL "splitzip_gpu_module_v1"

typedef struct splitzip_gpu_module {
	uint32_t abi;     /* SPLITZIP_GPU_MODULE_ABI */
	const char *name; /* "cuda" or "hip" */

	/* 1 if the runtime loads and a device is present. May initialise the driver (slow). */
	int (*probe)(void);

	/*
	 * Enqueue the compression / decompression of a batch on 'stream' (cudaStream_t or
	 * hipStream_t; NULL is the default stream). The dispatcher has checked every host-side
	 * argument; the workspace is large enough. Nothing is allocated and nothing waits.
	 * Returns SPLITZIP_ERROR_DEVICE if the runtime rejects a launch.
	 */
	splitzip_status (*compress)(const sz_gpu_enc *a, uint64_t n_frames, void *stream);
	splitzip_status (*decompress)(const sz_gpu_dec *a, uint64_t n_frames,
	                              uint64_t max_dst_elems, void *stream);

	/*
	 * Host-memory calls on a device context (splitzip_compress / splitzip_frame_decompress):
	 * copy to the device, run the kernels, copy back, synchronously. 'p' carries the
	 * parameters (chunk_log2, flags, encoding, split4, entropy); its frames are ignored.
	 */
	splitzip_status (*host_compress)(const sz_gpu_enc *p, const uint16_t *src, size_t n,
	                                 void *dst, size_t dst_cap, size_t *dst_size);
	splitzip_status (*host_decompress_frame)(const void *src, size_t src_size,
	                                         size_t *src_consumed, uint16_t *dst,
	                                         size_t dst_cap_elems, size_t *n_elems);

	/*
	 * Page streams (sz_gpu_pages_args.h): enqueue the packing of device pages into one
	 * stream, or the validation and scatter of a stream, on 'stream'. The dispatcher has
	 * checked the host-side arguments and the workspace size. SPLITZIP_ERROR_DEVICE if the
	 * runtime rejects a launch.
	 */
	splitzip_status (*pages_compress)(const sz_gpu_pages_enc *a, void *stream);
	splitzip_status (*pages_decompress)(const sz_gpu_pages_dec *a, void *stream);

	/*
	 * Frames of every dtype (doc/FORMAT.md 1.3; sz_gpu_dtype_dec.cuh): enqueue the decoding of
	 * a batch into outputs of any alignment, capacities in bytes (max_dst_bytes: no frame's
	 * more), with the statuses of splitzip_decompress_dtype(); and the host-memory call that
	 * copies one frame through the device, synchronously. SPLITZIP_ERROR_DEVICE if the
	 * runtime rejects a launch or a copy.
	 */
	splitzip_status (*dtype_decompress)(const sz_gpu_dt_dec *a, uint64_t n_frames,
	                                    uint64_t max_dst_bytes, void *stream);
	splitzip_status (*dtype_host_decompress_frame)(const void *src, size_t src_size,
	                                               size_t *src_consumed, void *dst,
	                                               size_t dst_cap_bytes, size_t *n_elems);

	/*
	 * Frames of Dtype 2-5 (sz_gpu_dtype_enc_args.h): enqueue the compression of a batch on
	 * 'stream' (the dispatcher has checked the host-side arguments, the workspace is
	 * sz_gpu_dt_workspace_size() bytes; SPLITZIP_ERROR_DEVICE if the runtime rejects a
	 * launch), or, for a host-memory call on a device context (splitzip_compress_dtype),
	 * copy n_elems elements of p->dtype to the device, run the kernels and copy the frame
	 * back, synchronously ('p' carries the parameters; its frames, workspace and max_elems
	 * are ignored).
	 */
	splitzip_status (*dtype_compress)(const sz_gpu_dt_enc *a, uint64_t n_frames, void *stream);
	splitzip_status (*dtype_host_compress)(const sz_gpu_dt_enc *p, const void *src,
	                                       size_t n_elems, void *dst, size_t dst_cap,
	                                       size_t *dst_size);
} splitzip_gpu_module;

typedef const splitzip_gpu_module *(*splitzip_gpu_module_get_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* SZ_GPU_MODULE_H */
