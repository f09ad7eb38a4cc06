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
 * Batches of small frames: one block per frame at a time; no workspace. The frame index lives
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
		if (t == 0) {
			const uint64_t f = S[0].fr.f;
			splitzip_header h; /* zeroed: nothing of it lives across frames */
			__builtin_memset(&h, 0, sizeof h);
			S[0].fr.status = sz_dec_parse(a, f, &h, S[0].hdr);
			if (!sz_dec_mine(ENT, S[0].fr.status, h))
				S[0].fr.status = SZ_DEC_NOT_MINE;
			else if (S[0].fr.status == SPLITZIP_OK)
				sz_dec_setup(S[0].fr, a, f, h);
			else
				sz_put_result(a.frames.out_elems, a.frames.statuses, f, 0,
				              S[0].fr.status);
			S[0].bad = 0;
		}
		sz_syncthreads();
		if (S[0].fr.status == SPLITZIP_OK) {
			if (sz_dec_padding_bad(S[0].fr, t))
				sz_smem_atomic_or(&S[0].bad, 1u);
			sz_syncthreads();
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
