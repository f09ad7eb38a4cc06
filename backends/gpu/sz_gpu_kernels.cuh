/*
 * sz_gpu_kernels.cuh -- every GPU kernel of the frame codec, one source for CUDA, HIP and the
 * CPU SIMT harness (the files include only sz_gpu_compat.cuh and core headers), by concern:
 *
 *   sz_gpu_common.cuh       batch arguments, little-endian fields, warp scans, the chunk
 *                           checksum from registers, eight elements word-parallel
 *   sz_gpu_header.cuh       frame headers: read and checked, the decoder's view, written
 *   sz_gpu_encode.cuh       split4 and stored frames: the encoder and its per-frame kernels
 *   sz_gpu_entropy_enc.cuh  entropy frames (mode 2) and the auto encoding: the encoder
 *   sz_gpu_entropy_dec.cuh  entropy frames: the chunk decoder
 *   sz_gpu_decode.cuh       the decoder of stored and split4 frames, the decode kernels
 *   sz_gpu_batch.cuh        batches of small frames, one block per frame
 *
 * Frames equal core/sz_driver.c + core/sz_ref.c byte for byte (doc/FORMAT.md §4, §6). Launch
 * sequences: sz_gpu_driver.cuh.
 */
#ifndef SZ_GPU_KERNELS_CUH
#define SZ_GPU_KERNELS_CUH

#include "sz_gpu_batch.cuh"
#include "sz_gpu_decode.cuh"
#include "sz_gpu_encode.cuh"
#include "sz_gpu_entropy_enc.cuh"

#endif /* SZ_GPU_KERNELS_CUH */
