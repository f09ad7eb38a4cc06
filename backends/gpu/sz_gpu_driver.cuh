/*
 * sz_gpu_driver.cuh -- host side of the GPU codec: argument checks, launch geometry and the
 * kernel sequence of a (batched) compression or decompression. One template over a launcher,
 * instantiated by the CUDA module (<<<>>> on a stream), the HIP module and the CPU SIMT harness
 * tests (sz_simt_launch), so the harness runs exactly the sequence and geometry the GPU runs.
 *
 * A launcher provides
 *     template <typename... P, typename... A>
 *     void launch(sz_gpu_dim grid, unsigned block, void (*kernel)(P...), A... args);
 * and remembers the first failure; every launch goes to one stream, in order. Nothing here
 * allocates, copies or waits.
 */
#ifndef SZ_GPU_DRIVER_CUH
#define SZ_GPU_DRIVER_CUH

#include "sz_gpu_kernels.cuh"

struct sz_gpu_dim {
	unsigned x, y;
};

/*
 * The warp width of the kernels to launch on a device of warp (wavefront) size w, or 0 if the
 * module has none for it. Kernels come as W = 32 and W = 64; a HIP code object holds the whole
 * kernel only at its target's wave size (64 on CDNA/gfx9, 32 on RDNA/gfx10+; the other W is a
 * trap stub, ci/hip-bundle-check.py), which is the warp size the runtime reports for that
 * device. CUDA builds W = 32 only (have64 = 0).
 */
static inline int sz_gpu_kernel_width(int w, int have64)
{
	return w == 32 || (w == 64 && have64) ? w : 0;
}

/* Frames per launch: gridDim.y is at most 65535. */
#define SZ_GPU_FRAMES_PER_LAUNCH 65535u

static inline unsigned sz_gpu_clamp(uint64_t v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : (unsigned)v;
}

/* Threads of the encode kernel: 16 elements each, 64 to 256 per block. */
static inline unsigned sz_gpu_encode_threads(unsigned log2)
{
	return sz_gpu_clamp(((uint64_t)1 << log2) / SZ_GPU_GROUP, 64, SZ_GPU_THREADS);
}

/* Workspace bytes for n_frames frames of up to max_elems elements in chunks of 2^log2. */
static inline uint64_t sz_gpu_workspace_size(uint64_t n_frames, uint64_t max_elems, unsigned log2)
{
	return n_frames * sz_gpu_ws_stride(max_elems, log2);
}

/*
 * Enqueue the compression of a batch described by 'a' (arrays or the single frame, the
 * workspace, chunk size, flags, codebook); the caller has checked the host-side arguments.
 */
template <int W, class Launcher> void sz_gpu_compress(Launcher &lc, sz_gpu_enc a, uint64_t n_frames)
{
	const unsigned L = a.chunk_log2;
	const uint64_t c_max = splitzip_n_chunks(a.max_elems, L);
	a.ws_stride = sz_gpu_ws_stride(a.max_elems, L);
	/* The stored copy in finish moves 2n bytes: about 64 KiB per block, at most 2048. */
	const unsigned g_finish = sz_gpu_clamp(2 * a.max_elems / 65536, 1, 2048);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf =
		    (unsigned)(n_frames - f0 < SZ_GPU_FRAMES_PER_LAUNCH ? n_frames - f0
		                                                        : SZ_GPU_FRAMES_PER_LAUNCH);
		a.frame0 = (uint32_t)f0;
		const unsigned g_init =
		    sz_gpu_clamp((c_max + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
		lc.launch(sz_gpu_dim{g_init, nf}, SZ_GPU_THREADS, sz_k_enc_init<W>, a);
		if (c_max) {
			if (a.from_input) {
				lc.launch(sz_gpu_dim{(unsigned)c_max, nf}, SZ_GPU_THREADS,
				          sz_k_hist<W>, a);
				lc.launch(sz_gpu_dim{1, nf}, SZ_GPU_THREADS, sz_k_codebook<W>, a);
			}
			lc.launch(sz_gpu_dim{(unsigned)c_max, nf}, sz_gpu_encode_threads(L),
			          sz_k_encode<W>, a);
		}
		lc.launch(sz_gpu_dim{g_finish, nf}, SZ_GPU_THREADS, sz_k_finish<W>, a);
	}
}

/*
 * Enqueue the decompression of a batch. The host does not know the frames' headers, so the
 * grid comes from the output capacity: one block per 4096 elements of the largest output (a
 * block walks further chunks if a frame has more), at most 4096 blocks per frame.
 */
template <int W, class Launcher>
void sz_gpu_decompress(Launcher &lc, sz_gpu_dec a, uint64_t n_frames, uint64_t max_dst_elems,
                       uint64_t ws_stride)
{
	a.ws_stride = ws_stride;
	const unsigned g = sz_gpu_clamp((max_dst_elems + 4095) / 4096, 1, 4096);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf =
		    (unsigned)(n_frames - f0 < SZ_GPU_FRAMES_PER_LAUNCH ? n_frames - f0
		                                                        : SZ_GPU_FRAMES_PER_LAUNCH);
		a.frame0 = (uint32_t)f0;
		lc.launch(sz_gpu_dim{1, nf}, W, sz_k_dec_init<W>, a);
		lc.launch(sz_gpu_dim{g, nf}, SZ_GPU_THREADS, sz_k_decode<W>, a);
	}
}

#endif /* SZ_GPU_DRIVER_CUH */
