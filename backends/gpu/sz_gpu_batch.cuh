/*
 * sz_gpu_batch.cuh -- batches of small frames (KV pages), one block per frame at a time: the
 * encoder's phases (sz_gpu_encode.cuh) and the decoder (sz_gpu_decode.cuh) with the block as
 * the whole grid: no init launch, no tickets, no look-back, no decode workspace. One source
 * for CUDA, HIP and the CPU SIMT harness; the driver picks this path for batches that fill
 * the device (sz_gpu_use_pages, sz_gpu_driver.cuh).
 */
#ifndef SZ_GPU_BATCH_CUH
#define SZ_GPU_BATCH_CUH

#include "sz_gpu_decode.cuh"
#include "sz_gpu_encode.cuh"

template <int W, bool FI>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS,
                                  SZ_GPU_ENC_BLOCKS(FI)) void sz_k_encode_pages(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_enc_smem<W>, S, 1);
	for (uint64_t f = blockIdx.x; f < a.run.n_frames; f += gridDim.x) {
		sz_enc_frame_run<W, false, FI>(S[0], a, f);
		sz_syncthreads(); /* shared memory is reused by the next frame */
	}
}

/*
 * Batches of small frames, before the decoders: every frame's header read and checked by one
 * warp (sz_dec_header_warp: 16 lanes load it, 8 hash it), with the padding rule, left in the
 * frame's decode state (status, corruption flag, fields) for both decode kernels; the result
 * of a frame whose header failed. SZ_GPU_THREADS / W frames per block, so the headers of a
 * batch are checked side by side instead of one per block in each decoder.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dec_headers(sz_gpu_dec a)
{
	SZ_WARP_GUARD(W);
	enum { NW = SZ_GPU_THREADS / W };
	SZ_SHARED_ARRAY(sz_dec_frame, FR, NW);
	SZ_SHARED_ARRAY(uint8_t, HB, NW * SPLITZIP_FRAME_HEADER_SIZE);
	const unsigned warp = sz_warp<W>(), lane = sz_lane<W>();
	for (uint64_t f = (uint64_t)blockIdx.x * NW + warp; f < a.run.n_frames;
	     f += (uint64_t)gridDim.x * NW) { /* warp-uniform; no block barrier here */
		sz_dec_frame &fr = FR[warp];
		const int32_t s =
		    sz_dec_header_warp<W>(fr, a, f, HB + warp * SPLITZIP_FRAME_HEADER_SIZE);
		sz_syncwarp<W>(sz_full_mask<W>()); /* lane 0's view of the frame is in */
		const bool pad = s == SPLITZIP_OK && sz_dec_padding_bad(fr, lane);
		const bool bad = sz_any<W>(sz_full_mask<W>(), pad) != 0;
		if (lane == 0) {
			sz_gpu_dec_state *st =
			    reinterpret_cast<sz_gpu_dec_state *>(a.ws + a.run.ws_stride * f);
			sz_gst_u32(&st->status, (uint32_t)s);
			sz_gst_u32(&st->corrupt, bad);
			sz_gst_words(&st->h, &fr.h, sizeof fr.h);
			if (s != SPLITZIP_OK)
				sz_put_result(a.frames.out_elems, a.frames.statuses, f, 0, s);
		}
		sz_syncwarp<W>(sz_full_mask<W>()); /* fr is reused by the next frame */
	}
}

/* The block's frame (S.fr.f) from its decode state (sz_k_dec_headers), by thread 0: a frame
 * whose header passed and whose mode is this kernel's (ENT: entropy frames; else stored and
 * split4) is set up, with its padding verdict; every other frame is not this kernel's. */
template <int W, bool ENT> SZ_DEVICE void sz_dec_page_state(sz_dec_smem<W> &S, const sz_gpu_dec &a)
{
	if (threadIdx.x != 0)
		return;
	const uint64_t f = S.fr.f;
	const sz_gpu_dec_state *st =
	    reinterpret_cast<const sz_gpu_dec_state *>(a.ws + a.run.ws_stride * f);
	splitzip_header h;
	__builtin_memset(&h, 0, sizeof h);
	const int32_t s = (int32_t)sz_gld_u32(&st->status);
	if (s == SPLITZIP_OK)
		sz_gld_words(&h, &st->h, sizeof h);
	S.fr.status = SZ_DEC_NOT_MINE;
	if (sz_dec_mine(ENT, s, h) && s == SPLITZIP_OK) {
		S.fr.status = SPLITZIP_OK;
		sz_dec_setup(S.fr, a, f, h);
	}
	S.bad = sz_gld_u32(&st->corrupt);
}

/*
 * Batches of small frames: one block per frame at a time, each frame's header already checked
 * (sz_k_dec_headers, its decode state); ENT: the entropy frames, else the others. The frame
 * index lives
 * in shared memory (S.fr.f): only thread 0 uses it, and no thread keeps it in a register across
 * the chunk loop, which has the kernel's whole register budget.
 */
template <int W, bool ENT>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS,
                                  SZ_DEC_BLOCKS(ENT)) void sz_k_decode_pages(sz_gpu_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dec_smem<W>, S, 1);
	SZ_SHARED_ARRAY(sz_ent_dec_part<ENT>, E, 1);
	const unsigned t = threadIdx.x;
	if (t == 0)
		S[0].fr.f = blockIdx.x;
	sz_syncthreads();
	while (S[0].fr.f < a.run.n_frames) {
		sz_dec_page_state<W, ENT>(S[0], a);
		sz_syncthreads();
		if (S[0].fr.status == SPLITZIP_OK) {
			sz_dec_chunks<W, ENT>(S[0], sz_ent_dec_of(E[0]), 0, S[0].fr.C);
			if (t == 0) {
				const int32_t s =
				    sz_dec_status(S[0].fr.h, S[0].bad != 0, ENT ? S[0].wesc[0] : 0u,
				                  S[0].wsum[0]);
				sz_put_result(a.frames.out_elems, a.frames.statuses, S[0].fr.f,
				              s == SPLITZIP_OK ? S[0].fr.n : 0, s);
			}
		}
		/* No thread reads the index between the last barrier and the next. */
		if (t == 0)
			S[0].fr.f += gridDim.x;
		sz_syncthreads(); /* shared memory is reused by the next frame */
	}
}

#endif /* SZ_GPU_BATCH_CUH */
