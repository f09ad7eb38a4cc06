/*
 * sz_gpu_driver.cuh -- host side of the GPU codec: launch geometry and the kernel sequence of a
 * (batched) compression or decompression. One template over a launcher, instantiated by the
 * CUDA module (<<<>>> on a stream), the HIP module and the CPU SIMT harness tests
 * (sz_simt_launch), so the harness runs exactly the sequence and geometry the GPU runs.
 *
 * A launcher provides
 *     template <typename... P, typename... A>
 *     void launch(const char *name, sz_gpu_dim grid, unsigned block, void (*kernel)(P...),
 *                 A... args);
 *     template <typename... P> unsigned resident(void (*kernel)(P...));
 * launch() enqueues in order on one stream and remembers the first failure; resident() is how
 * many blocks of SZ_GPU_THREADS threads of that kernel the device runs at once (multiprocessors
 * x blocks per multiprocessor: a grid of that many is one whole wave). Nothing here allocates,
 * copies or waits.
 *
 * Sequences (see sz_gpu_kernels.cuh):
 *   compress     enc_init + encode (persistent blocks on each frame), or, for a batch of
 *                frames of at most SZ_GPU_PAGE_MAX_ELEMS that fills the device, encode_pages
 *   decompress   dec_init + decode + decode_ent, or dec_headers + decode_pages +
 *                decode_pages_ent (the same rule on the output capacity; dec_headers checks
 *                every header, a warp per frame); the _ent kernels decode the entropy frames
 *                (mode 2), the others every other frame, so each has its own registers
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

/* Frames per launch of the per-frame kernels: gridDim.y is at most 65535. */
#define SZ_GPU_FRAMES_PER_LAUNCH 65535u
/* Frames of at most this many elements, in batches of at least half a wave of them, are
 * handled one block per frame (2 MiB: a block streams that in a few tens of microseconds). */
#define SZ_GPU_PAGE_MAX_ELEMS ((uint64_t)1 << 20)

static inline unsigned sz_gpu_clamp(uint64_t v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : (unsigned)v;
}

/* Whether a batch goes one block per frame. */
static inline bool sz_gpu_use_pages(uint64_t max_elems, uint64_t n_frames, unsigned resident)
{
	return n_frames >= 2 && max_elems <= SZ_GPU_PAGE_MAX_ELEMS && 2 * n_frames >= resident;
}

/* Encode workspace bytes for n_frames frames of up to max_elems elements in chunks of 2^log2. */
static inline uint64_t sz_gpu_workspace_size(uint64_t n_frames, uint64_t max_elems, unsigned log2)
{
	return n_frames * sz_gpu_ws_stride(max_elems, log2);
}

/* Decode workspace bytes for n_frames frames. */
static inline uint64_t sz_gpu_dec_workspace_size(uint64_t n_frames)
{
	return n_frames * SZ_GPU_DEC_WS_STRIDE;
}

/* Blocks per frame: a share of one wave, but no more than there are tiles (or chunk groups). */
static inline unsigned sz_gpu_blocks_per_frame(unsigned resident, uint64_t nf, uint64_t work)
{
	return sz_gpu_clamp(resident / (nf ? nf : 1), 1, sz_gpu_clamp(work, 1, 0x7FFFFFFFu));
}

/* Encode workspace bytes for n_frames frames of an encoding (SPLITZIP_ENCODING_*). */
static inline uint64_t sz_gpu_workspace_size_for(uint64_t n_frames, uint64_t max_elems,
                                                 unsigned log2, unsigned encoding)
{
	return n_frames * sz_gpu_ws_stride_for(max_elems, log2, encoding);
}

/* Frames of the launch that starts at frame f0 of n_frames (gridDim.y is at most 65535). */
static inline unsigned sz_gpu_launch_frames(uint64_t n_frames, uint64_t f0)
{
	return (unsigned)(n_frames - f0 < SZ_GPU_FRAMES_PER_LAUNCH ? n_frames - f0
	                                                           : SZ_GPU_FRAMES_PER_LAUNCH);
}

/* A grid of nf frames (y), each taking a share of one wave of kernel k's resident blocks but no
 * more blocks than it has work units (x): every kernel's grid from its own occupancy. */
template <class Launcher, typename... P>
sz_gpu_dim sz_gpu_grid(Launcher &lc, void (*k)(P...), unsigned nf, uint64_t work)
{
	return sz_gpu_dim{sz_gpu_blocks_per_frame(lc.resident(k), nf, work), nf};
}

/* The split4 encoder's per-frame kernels for the nf frames from a.run.frame0. */
template <int W, class Launcher>
void sz_gpu_encode_frames(Launcher &lc, const sz_gpu_enc &a, unsigned nf)
{
	const unsigned L = a.chunk_log2, NW = SZ_GPU_THREADS / W;
	const uint64_t c_max = splitzip_n_chunks(a.max_elems, L);
	const uint64_t tiles = sz_gpu_tiles(a.max_elems, L, NW);
	const unsigned g_init =
	    sz_gpu_clamp((c_max + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
	lc.launch("enc_init", sz_gpu_dim{g_init, nf}, SZ_GPU_THREADS, sz_k_enc_init<W>, a);
	if (a.split4.from_input)
		lc.launch("encode", sz_gpu_grid(lc, sz_k_encode<W, true>, nf, tiles),
		          SZ_GPU_THREADS, sz_k_encode<W, true>, a);
	else
		lc.launch("encode", sz_gpu_grid(lc, sz_k_encode<W, false>, nf, tiles),
		          SZ_GPU_THREADS, sz_k_encode<W, false>, a);
}

/*
 * The entropy and auto encodings (sz_gpu_entropy_enc.cuh): per launch of up to 65535 frames,
 * ent_init, the histogram (a table from the input, or auto), the table, the word counts, the
 * plan (the mode of FORMAT.md §6.3) and the encode, each multi-block kernel on a share of one
 * wave of its own blocks per frame; auto runs the split4 encoder between plan and encode for
 * the frames the plan gave to split4 (the others skip it).
 */
template <int W, class Launcher> void sz_gpu_compress_entropy(Launcher &lc, sz_gpu_enc a)
{
	const bool is_auto = a.encoding == SPLITZIP_ENCODING_AUTO;
	const uint64_t groups =
	    (splitzip_n_chunks(a.max_elems, a.chunk_log2) + SZ_ENT_GROUPS - 1) / SZ_ENT_GROUPS;
	for (uint64_t f0 = 0; f0 < a.run.n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf = sz_gpu_launch_frames(a.run.n_frames, f0);
		a.run.frame0 = (uint32_t)f0;
		const sz_gpu_dim one{1, nf};
		lc.launch("ent_init", one, SZ_GPU_THREADS, sz_k_ent_init<W>, a);
		if (a.entropy.from_input || is_auto)
			lc.launch("ent_hist", sz_gpu_grid(lc, sz_k_ent_hist<W>, nf, groups),
			          SZ_GPU_THREADS, sz_k_ent_hist<W>, a);
		lc.launch("ent_table", one, SZ_GPU_THREADS, sz_k_ent_table<W>, a);
		lc.launch("ent_count", sz_gpu_grid(lc, sz_k_ent_count<W>, nf, groups),
		          SZ_GPU_THREADS, sz_k_ent_count<W>, a);
		lc.launch("ent_plan", one, SZ_GPU_THREADS, sz_k_ent_plan<W>, a);
		if (is_auto) /* the split4 encoder, for the frames the plan gave to split4 */
			sz_gpu_encode_frames<W>(lc, a, nf);
		lc.launch("ent_encode", sz_gpu_grid(lc, sz_k_ent_encode<W>, nf, groups),
		          SZ_GPU_THREADS, sz_k_ent_encode<W>, a);
	}
}

/*
 * Enqueue the compression of a batch described by 'a' (its frames, workspace and parameters;
 * 'run' is set here); the caller has checked the host-side arguments. Codebooks from the input
 * of frames of at least predict_from elements are predicted from a sample (tests lower it).
 */
template <int W, class Launcher>
void sz_gpu_compress(Launcher &lc, sz_gpu_enc a, uint64_t n_frames,
                     uint64_t predict_from = SZ_GPU_SAMPLE_ALL_ELEMS)
{
	a.run = sz_gpu_enc_launch{};
	a.run.ws_stride = sz_gpu_ws_stride_for(a.max_elems, a.chunk_log2, a.encoding);
	a.run.n_frames = n_frames;
	a.run.predict_from = predict_from;
	if (a.encoding != SPLITZIP_ENCODING_SPLIT4) {
		sz_gpu_compress_entropy<W>(lc, a);
		return;
	}
	const bool fi = a.split4.from_input != 0;
	const unsigned rp =
	    lc.resident(fi ? sz_k_encode_pages<W, true> : sz_k_encode_pages<W, false>);
	if (sz_gpu_use_pages(a.max_elems, n_frames, rp)) {
		const sz_gpu_dim g{sz_gpu_clamp(n_frames, 1, rp), 1};
		if (fi)
			lc.launch("encode_pages", g, SZ_GPU_THREADS, sz_k_encode_pages<W, true>, a);
		else
			lc.launch("encode_pages", g, SZ_GPU_THREADS, sz_k_encode_pages<W, false>,
			          a);
		return;
	}
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		a.run.frame0 = (uint32_t)f0;
		sz_gpu_encode_frames<W>(lc, a, sz_gpu_launch_frames(n_frames, f0));
	}
}

/*
 * Enqueue the decompression of a batch. The host does not know the frames' headers, so the
 * geometry comes from the output capacity: a share of one wave of each decode kernel's blocks
 * per frame, at most one block per 8 chunks of 4096 elements of the largest output (blocks take
 * static ranges of chunks). Batches of small frames go one block per frame, each kernel on a
 * grid of its own resident blocks.
 */
template <int W, class Launcher>
void sz_gpu_decompress(Launcher &lc, sz_gpu_dec a, uint64_t n_frames, uint64_t max_dst_elems)
{
	a.run = sz_gpu_dec_launch{};
	a.run.ws_stride = SZ_GPU_DEC_WS_STRIDE;
	a.run.n_frames = n_frames;
	const unsigned rp = lc.resident(sz_k_decode_pages<W, false>);
	if (sz_gpu_use_pages(max_dst_elems, n_frames, rp)) {
		const unsigned re = lc.resident(sz_k_decode_pages<W, true>);
		const uint64_t per = SZ_GPU_THREADS / W; /* frames per block of dec_headers */
		lc.launch("dec_headers",
		          sz_gpu_dim{sz_gpu_clamp((n_frames + per - 1) / per, 1, 65535), 1},
		          SZ_GPU_THREADS, sz_k_dec_headers<W>, a);
		lc.launch("decode_pages", sz_gpu_dim{sz_gpu_clamp(n_frames, 1, rp), 1},
		          SZ_GPU_THREADS, sz_k_decode_pages<W, false>, a);
		lc.launch("decode_pages_ent", sz_gpu_dim{sz_gpu_clamp(n_frames, 1, re), 1},
		          SZ_GPU_THREADS, sz_k_decode_pages<W, true>, a);
		return;
	}
	const uint64_t groups = (max_dst_elems + 8 * 4096 - 1) / (8 * 4096);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf = sz_gpu_launch_frames(n_frames, f0);
		a.run.frame0 = (uint32_t)f0;
		lc.launch("dec_init", sz_gpu_dim{1, nf}, SZ_GPU_THREADS, sz_k_dec_init<W>, a);
		lc.launch("decode", sz_gpu_grid(lc, sz_k_decode<W, false>, nf, groups),
		          SZ_GPU_THREADS, sz_k_decode<W, false>, a);
		lc.launch("decode_ent", sz_gpu_grid(lc, sz_k_decode<W, true>, nf, groups),
		          SZ_GPU_THREADS, sz_k_decode<W, true>, a);
	}
}

#endif /* SZ_GPU_DRIVER_CUH */
