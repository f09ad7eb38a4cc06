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
 *   decompress   dec_init + decode + decode_ent, or decode_pages + decode_pages_ent (the same
 *                rule on the output capacity); the _ent kernels decode the entropy frames
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

/*
 * The entropy and auto encodings (sz_gpu_entropy_enc.cuh): per launch of up to 65535 frames,
 * ent_init, the histogram (a table from the input, or auto), the table, the word counts, the
 * plan (the mode of FORMAT.md §6.3) and the encode, on a share of one wave per frame; auto runs
 * the split4 encoder between plan and encode for the frames the plan gave to split4 (the others
 * skip it).
 */
template <int W, class Launcher>
void sz_gpu_compress_entropy(Launcher &lc, sz_gpu_enc a, uint64_t n_frames)
{
	const unsigned L = a.chunk_log2, NW = SZ_GPU_THREADS / W;
	const bool is_auto = a.encoding == SPLITZIP_ENCODING_AUTO, fi = a.from_input != 0;
	a.ws_stride = sz_gpu_ws_stride_for(a.max_elems, L, a.encoding);
	a.n_frames = n_frames;
	if (!a.sample_all)
		a.sample_all = SZ_GPU_SAMPLE_ALL_ELEMS;
	const uint64_t groups =
	    (splitzip_n_chunks(a.max_elems, L) + SZ_ENT_GROUPS - 1) / SZ_ENT_GROUPS;
	const uint64_t c_max = splitzip_n_chunks(a.max_elems, L);
	const uint64_t tiles = sz_gpu_tiles(a.max_elems, L, NW);
	const unsigned res = lc.resident(sz_k_ent_encode<W>);
	const unsigned res4 = lc.resident(fi ? sz_k_encode<W, true> : sz_k_encode<W, false>);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf =
		    (unsigned)(n_frames - f0 < SZ_GPU_FRAMES_PER_LAUNCH ? n_frames - f0
		                                                        : SZ_GPU_FRAMES_PER_LAUNCH);
		a.frame0 = (uint32_t)f0;
		const sz_gpu_dim one{1, nf}, g{sz_gpu_blocks_per_frame(res, nf, groups), nf};
		lc.launch("ent_init", one, SZ_GPU_THREADS, sz_k_ent_init<W>, a);
		if (a.table_from_input || is_auto)
			lc.launch("ent_hist", g, SZ_GPU_THREADS, sz_k_ent_hist<W>, a);
		lc.launch("ent_table", one, SZ_GPU_THREADS, sz_k_ent_table<W>, a);
		lc.launch("ent_count", g, SZ_GPU_THREADS, sz_k_ent_count<W>, a);
		lc.launch("ent_plan", one, SZ_GPU_THREADS, sz_k_ent_plan<W>, a);
		if (is_auto) { /* the split4 encoder, for the frames the plan gave to split4 */
			const unsigned g_init =
			    sz_gpu_clamp((c_max + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
			lc.launch("enc_init", sz_gpu_dim{g_init, nf}, SZ_GPU_THREADS,
			          sz_k_enc_init<W>, a);
			const sz_gpu_dim g4{sz_gpu_blocks_per_frame(res4, nf, tiles), nf};
			if (fi)
				lc.launch("encode", g4, SZ_GPU_THREADS, sz_k_encode<W, true>, a);
			else
				lc.launch("encode", g4, SZ_GPU_THREADS, sz_k_encode<W, false>, a);
		}
		lc.launch("ent_encode", g, SZ_GPU_THREADS, sz_k_ent_encode<W>, a);
	}
}

/*
 * Enqueue the compression of a batch described by 'a' (arrays or the single frame, the
 * workspace, chunk size, flags, codebook); the caller has checked the host-side arguments.
 */
template <int W, class Launcher> void sz_gpu_compress(Launcher &lc, sz_gpu_enc a, uint64_t n_frames)
{
	if (a.encoding != SPLITZIP_ENCODING_SPLIT4) {
		sz_gpu_compress_entropy<W>(lc, a, n_frames);
		return;
	}
	const unsigned L = a.chunk_log2, NW = SZ_GPU_THREADS / W;
	a.ws_stride = sz_gpu_ws_stride(a.max_elems, L);
	a.n_frames = n_frames;
	a.frame0 = 0;
	if (!a.sample_all)
		a.sample_all = SZ_GPU_SAMPLE_ALL_ELEMS;
	const bool fi = a.from_input != 0;
	const unsigned rp =
	    lc.resident(fi ? sz_k_encode_pages<W, true> : sz_k_encode_pages<W, false>);
	if (sz_gpu_use_pages(a.max_elems, n_frames, rp)) {
		const unsigned g = sz_gpu_clamp(n_frames, 1, rp);
		if (fi)
			lc.launch("encode_pages", sz_gpu_dim{g, 1}, SZ_GPU_THREADS,
			          sz_k_encode_pages<W, true>, a);
		else
			lc.launch("encode_pages", sz_gpu_dim{g, 1}, SZ_GPU_THREADS,
			          sz_k_encode_pages<W, false>, a);
		return;
	}
	const uint64_t c_max = splitzip_n_chunks(a.max_elems, L);
	const uint64_t tiles = sz_gpu_tiles(a.max_elems, L, NW);
	const unsigned res = lc.resident(fi ? sz_k_encode<W, true> : sz_k_encode<W, false>);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf =
		    (unsigned)(n_frames - f0 < SZ_GPU_FRAMES_PER_LAUNCH ? n_frames - f0
		                                                        : SZ_GPU_FRAMES_PER_LAUNCH);
		a.frame0 = (uint32_t)f0;
		const unsigned g_init =
		    sz_gpu_clamp((c_max + SZ_GPU_THREADS - 1) / SZ_GPU_THREADS, 1, 65535);
		lc.launch("enc_init", sz_gpu_dim{g_init, nf}, SZ_GPU_THREADS, sz_k_enc_init<W>, a);
		const sz_gpu_dim g{sz_gpu_blocks_per_frame(res, nf, tiles), nf};
		if (fi)
			lc.launch("encode", g, SZ_GPU_THREADS, sz_k_encode<W, true>, a);
		else
			lc.launch("encode", g, SZ_GPU_THREADS, sz_k_encode<W, false>, a);
	}
}

/*
 * Enqueue the decompression of a batch. The host does not know the frames' headers, so the
 * geometry comes from the output capacity: a share of one wave per frame, at most one block per
 * 8 chunks of 4096 elements of the largest output (blocks take static ranges of chunks).
 */
template <int W, class Launcher>
void sz_gpu_decompress(Launcher &lc, sz_gpu_dec a, uint64_t n_frames, uint64_t max_dst_elems)
{
	a.ws_stride = SZ_GPU_DEC_WS_STRIDE;
	a.n_frames = n_frames;
	a.frame0 = 0;
	const unsigned rp = lc.resident(sz_k_decode_pages<W, false>);
	if (sz_gpu_use_pages(max_dst_elems, n_frames, rp)) {
		const unsigned g = sz_gpu_clamp(n_frames, 1, rp);
		lc.launch("decode_pages", sz_gpu_dim{g, 1}, SZ_GPU_THREADS,
		          sz_k_decode_pages<W, false>, a);
		lc.launch("decode_pages_ent", sz_gpu_dim{g, 1}, SZ_GPU_THREADS,
		          sz_k_decode_pages<W, true>, a);
		return;
	}
	const unsigned res = lc.resident(sz_k_decode<W, false>);
	const uint64_t groups = (max_dst_elems + 8 * 4096 - 1) / (8 * 4096);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf =
		    (unsigned)(n_frames - f0 < SZ_GPU_FRAMES_PER_LAUNCH ? n_frames - f0
		                                                        : SZ_GPU_FRAMES_PER_LAUNCH);
		a.frame0 = (uint32_t)f0;
		lc.launch("dec_init", sz_gpu_dim{1, nf}, SZ_GPU_THREADS, sz_k_dec_init<W>, a);
		const sz_gpu_dim g{sz_gpu_blocks_per_frame(res, nf, groups), nf};
		lc.launch("decode", g, SZ_GPU_THREADS, sz_k_decode<W, false>, a);
		lc.launch("decode_ent", g, SZ_GPU_THREADS, sz_k_decode<W, true>, a);
	}
}

#endif /* SZ_GPU_DRIVER_CUH */
