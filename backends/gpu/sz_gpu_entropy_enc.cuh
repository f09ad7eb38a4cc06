/*
 * sz_gpu_entropy_enc.cuh -- the GPU encoder of entropy frames (mode 2, doc/FORMAT.md §4.3; it
 * also runs the auto encoding of §6.3), one source for CUDA, HIP and the CPU SIMT harness.
 * Frames equal core/sz_driver_entropy.c + core/sz_ref.c byte for byte.
 */
#ifndef SZ_GPU_ENTROPY_ENC_CUH
#define SZ_GPU_ENTROPY_ENC_CUH

#include "sz_gpu_entropy_dec.cuh" /* the group geometry and staging constants */
#include "sz_gpu_encode.cuh"      /* sz_enc_check */

/*
 * Launch sequence (sz_gpu_driver.cuh, per frame; FORMAT.md §6.2-§6.3 as core/
 * sz_driver_entropy.c): ent_init (argument checks, n = 0, state); ent_hist (a table from the
 * input: the exponent histogram, shared-memory counters, one global add per bin and block);
 * ent_table (one block: package-merge of §5.2 on the histogram, or the fixed table; the
 * canonical codes of §5.3; the encoder table and the code-length section); ent_count (the
 * words each chunk's decoder reads depend on the code lengths alone: each group of 32 threads
 * replays its chunk's lanes without writing, counts escapes, and feeds the content checksum);
 * ent_plan (one block: running totals = the chunk table, Stream_Words, the mode rule -- entropy
 * only if strictly smaller than stored -- the capacity, header, code lengths, gaps, result);
 * ent_encode (the sign/mantissa bytes, and each chunk's words written straight to their final
 * place by the lanes' reservations in decoder order; or the stored frame's body).
 */

/* Resident blocks per multiprocessor the streaming kernels of the encoder (histogram, word
 * counts, encode) are built for (CUDA: at most 64 registers). */
#define SZ_ENT_BLOCKS 4

/* The encoder table and the staging rows of the count and encode kernels. */
struct sz_ent_enc_smem {
	uint32_t sym[256];
	uint32_t stage[SZ_ENT_GROUPS][SZ_ENT_BATCH_STEPS * SPLITZIP_ENTROPY_LANES / 2];
	uint64_t wsum[SZ_ENT_GROUPS];
	uint32_t wesc[SZ_ENT_GROUPS];
	uint32_t skip, mode;
	uint8_t hdr[SPLITZIP_FRAME_HEADER_SIZE];
};

/* The code construction of one frame (the table kernel). */
struct sz_ent_pm_smem {
	uint64_t w[SPLITZIP_ENTROPY_SYMBOLS + 1];                /* weight per symbol */
	uint64_t lw[2][2 * SPLITZIP_ENTROPY_SYMBOLS];            /* item weights, two lists */
	uint8_t pkg[SZ_ENTROPY_L][2 * SPLITZIP_ENTROPY_SYMBOLS]; /* 1 where an item is a package */
	uint16_t leaf[SPLITZIP_ENTROPY_SYMBOLS + 1];             /* symbols in leaf order */
	uint32_t mask[SZ_ENTROPY_L + 1][SZ_ENT_SYM_WORDS];       /* symbols of each length */
	uint32_t first[SZ_ENTROPY_L + 1];
	uint32_t m, n_prev, take, p, lo, hi, skip;
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS + 15];
};

/* Frame f's slice of the entropy workspace: behind the split4 encoder's in the auto encoding,
 * which runs both (sz_gpu_ws_stride_for). */
SZ_DEVICE uint8_t *sz_ent_ws(const sz_gpu_enc &a, uint64_t f)
{
	const uint64_t off =
	    a.encoding == SPLITZIP_ENCODING_AUTO ? sz_gpu_ws_stride(a.max_elems, a.chunk_log2) : 0;
	return a.ws + a.run.ws_stride * f + off;
}

SZ_DEVICE sz_gpu_ent_state *sz_ent_state(const sz_gpu_enc &a, uint64_t f)
{
	return reinterpret_cast<sz_gpu_ent_state *>(sz_ent_ws(a, f));
}
/* Per frame (blockIdx.y + frame0, one block): argument checks, the frame of n = 0, the state
 * and the histogram zeroed. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_ent_init(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_ent_enc_smem, S, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	uint8_t *ws = sz_ent_ws(a, f);
	sz_gst_u32(ws + SZ_GPU_ENT_WS_HIST + 4 * t, 0);
	if (t != 0)
		return;
	sz_gpu_ent_state z;
	__builtin_memset(&z, 0, sizeof z);
	int64_t me;
	int32_t s = sz_enc_check(a, f, &me);
	const uint64_t n = sz_enc_n(a, f), cap = sz_enc_cap(a, f);
	/* core/sz_driver_entropy.c: n = 0 is the stored frame; below 64 + n bytes no frame fits */
	if (s == SPLITZIP_OK && n && cap < SPLITZIP_FRAME_HEADER_SIZE + n)
		s = SPLITZIP_ERROR_DST_TOO_SMALL;
	if (s == SPLITZIP_OK && n == 0) {
		if (cap < SPLITZIP_FRAME_HEADER_SIZE) {
			s = SPLITZIP_ERROR_DST_TOO_SMALL;
		} else {
			splitzip_header h;
			splitzip_header_init(&h, SPLITZIP_MODE_STORED, a.chunk_log2, a.flags, 0);
			h.frame_size = SPLITZIP_FRAME_HEADER_SIZE;
			if (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
				h.content_checksum = splitzip_hash_frame_final(0, 0);
			sz_gpu_put_header(sz_enc_dst(a, f), S[0].hdr, h);
			sz_put_result(a.frames.out_sizes, a.frames.statuses, f,
			              SPLITZIP_FRAME_HEADER_SIZE, SPLITZIP_OK);
			z.skip = 1;
		}
	}
	if (s != SPLITZIP_OK) {
		sz_put_result(a.frames.out_sizes, a.frames.statuses, f, 0, s);
		z.skip = 1;
	}
	z.mode = SZ_GPU_ENT_NONE;
	sz_gst_words(ws, &z, sizeof z);
}

/* The exponent histogram of each frame (blockIdx.y + frame0) by gridDim.x blocks, each a
 * static range of elements: shared-memory counters, then one global add per nonzero bin. */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS, SZ_ENT_BLOCKS) void sz_k_ent_hist(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, H, 256);
	SZ_SHARED_ARRAY(uint32_t, skip, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	sz_gpu_ent_state *st = sz_ent_state(a, f);
	H[t] = 0;
	if (t == 0)
		skip[0] = sz_gld_u32(&st->skip);
	sz_syncthreads();
	if (skip[0])
		return;
	const uint64_t n = sz_enc_n(a, f), G = gridDim.x, b = blockIdx.x;
	const uint16_t *src = sz_enc_src(a, f);
	/* ranges of whole 8-element groups; 16-byte loads where aligned */
	const uint64_t groups = (n + 7) / 8, g0 = groups * b / G, g1 = groups * (b + 1) / G;
	const bool vec = sz_aligned(src, 16);
	for (uint64_t k = g0 + t; k < g1; k += SZ_GPU_THREADS) {
		uint32_t valid;
		const sz_u32x4 v = sz_load8(src, 8 * k, n, vec, &valid);
		for (unsigned i = 0; i < 8; i++)
			if (valid >> i & 1)
				sz_smem_atomic_add(&H[(sz_elem8(v, i) >> 7) & 0xFFu], 1u);
	}
	sz_syncthreads();
	if (H[t])
		sz_atomic_add_relaxed(
		    reinterpret_cast<uint32_t *>(sz_ent_ws(a, f) + SZ_GPU_ENT_WS_HIST) + t, H[t]);
}

/*
 * FORMAT.md §5.2 by the block: package-merge with the limit 11 on the weights in P.w (every
 * symbol of nonzero weight is a leaf; at least two). Each list is the merge of the leaves and
 * the packages of the list before: an item's place is its index plus the number of items of
 * the other run before it (a leaf goes before packages of equal weight), found by binary
 * search, so each list takes one parallel step. Lengths in P.len.
 */
SZ_DEVICE void sz_ent_package_merge(sz_ent_pm_smem &P)
{
	const unsigned t = threadIdx.x;
	enum { N = SPLITZIP_ENTROPY_SYMBOLS };
	/* leaf order: weight ascending, then symbol ascending */
	for (unsigned s = t; s < N; s += SZ_GPU_THREADS) {
		P.len[s] = 0;
		const uint64_t ws = P.w[s];
		if (!ws)
			continue;
		uint32_t r = 0;
		for (unsigned q = 0; q < N; q++) {
			const uint64_t wq = P.w[q];
			r += wq && (wq < ws || (wq == ws && q < s));
		}
		P.leaf[r] = (uint16_t)s;
	}
	if (t == 0)
		P.n_prev = 0;
	sz_syncthreads();
	const uint32_t m = P.m;
	for (unsigned k = 0; k < SZ_ENTROPY_L; k++) {
		const uint64_t *prev = P.lw[k & 1];
		uint64_t *cur = P.lw[(k + 1) & 1];
		const uint32_t np = P.n_prev / 2;
		for (uint32_t i = t; i < m; i += SZ_GPU_THREADS) { /* leaf i: packages lighter */
			const uint64_t wl = P.w[P.leaf[i]];
			uint32_t lo = 0, hi = np;
			while (lo < hi) {
				const uint32_t mid = (lo + hi) / 2;
				if (prev[2 * mid] + prev[2 * mid + 1] < wl)
					lo = mid + 1;
				else
					hi = mid;
			}
			cur[i + lo] = wl;
			P.pkg[k][i + lo] = 0;
		}
		for (uint32_t j = t; j < np; j += SZ_GPU_THREADS) { /* package j: leaves as light */
			const uint64_t pw = prev[2 * j] + prev[2 * j + 1];
			uint32_t lo = 0, hi = m;
			while (lo < hi) {
				const uint32_t mid = (lo + hi) / 2;
				if (P.w[P.leaf[mid]] <= pw)
					lo = mid + 1;
				else
					hi = mid;
			}
			cur[j + lo] = pw;
			P.pkg[k][j + lo] = 1;
		}
		sz_syncthreads();
		if (t == 0)
			P.n_prev = m + np;
		sz_syncthreads();
	}
	/* Selection: the first 2m - 2 items of the last list, and down the lists the items
	 * their packages were made of; a leaf's length is the number of lists it is selected in. */
	if (t == 0)
		P.take = 2 * m - 2;
	sz_syncthreads();
	for (int k = SZ_ENTROPY_L - 1; k >= 0; k--) {
		const uint32_t take = P.take;
		if (take == 0) /* block-uniform */
			break;
		if (t == 0)
			P.p = 0;
		sz_syncthreads();
		uint32_t p = 0;
		for (uint32_t i = t; i < take; i += SZ_GPU_THREADS)
			p += P.pkg[k][i];
		if (p)
			sz_smem_atomic_add(&P.p, p);
		sz_syncthreads();
		const uint32_t np = P.p;
		for (uint32_t i = t; i < take - np; i += SZ_GPU_THREADS)
			P.len[P.leaf[i]]++;
		sz_syncthreads();
		if (t == 0)
			P.take = 2 * np;
		sz_syncthreads();
	}
}

/*
 * Per frame (one block): the table -- §5.2 from the histogram (weights: the counts, 1 for the
 * escape symbol) or the fixed one --, its canonical codes (§5.3), the encoder table (for
 * exponent e: its code first bit in bit 0, | length << 16, or the escape symbol's with
 * SPLITZIP_ENTROPY_ENC_ESCAPE) and the code-length section (§4.3.3).
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_ent_table(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_ent_pm_smem, P, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	sz_gpu_ent_state *st = sz_ent_state(a, f);
	uint8_t *ws = sz_ent_ws(a, f);
	if (t == 0)
		P[0].skip = sz_gld_u32(&st->skip);
	for (unsigned i = t; i < (SZ_ENTROPY_L + 1) * SZ_ENT_SYM_WORDS; i += SZ_GPU_THREADS)
		P[0].mask[i / SZ_ENT_SYM_WORDS][i % SZ_ENT_SYM_WORDS] = 0;
	if (a.entropy.from_input) {
		const uint64_t w = sz_gld_u32(ws + SZ_GPU_ENT_WS_HIST + 4 * t);
		P[0].w[t] = w;
		const int m = sz_syncthreads_count(w != 0);
		if (t == 0) {
			P[0].w[SPLITZIP_ENTROPY_ESC] = 1;
			P[0].m = (uint32_t)m + 1;
		}
		sz_syncthreads();
		if (P[0].skip)
			return;
		sz_ent_package_merge(P[0]);
	} else {
		for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS)
			P[0].len[s] = sz_enc_fixed_len(a, s);
		sz_syncthreads();
		if (P[0].skip)
			return;
	}
	if (t == 0) {
		P[0].lo = 0; /* the largest 255 - e */
		P[0].hi = 0;
	}
	sz_syncthreads();
	/* §5.3: codes of one length are consecutive in symbol order, after all shorter ones */
	for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS) {
		const unsigned l = P[0].len[s];
		if (l)
			sz_smem_atomic_or(&P[0].mask[l][s / 32], 1u << (s % 32));
		if (l && s < 256) {
			sz_smem_atomic_max(&P[0].hi, s);
			sz_smem_atomic_max(&P[0].lo, 255 - s); /* 255 - the smallest */
		}
	}
	sz_syncthreads();
	if (t == 0) {
		uint32_t code = 0, prev = 0;
		for (unsigned l = 1; l <= SZ_ENTROPY_L; l++) {
			uint32_t c = 0;
			for (unsigned j = 0; j < SZ_ENT_SYM_WORDS; j++)
				c += (uint32_t)sz_popc64(P[0].mask[l][j]);
			code = (code + prev) << 1;
			P[0].first[l] = code;
			prev = c;
		}
		P[0].lo = 255 - P[0].lo;
	}
	sz_syncthreads();
	const unsigned le = P[0].len[SPLITZIP_ENTROPY_ESC];
	uint32_t esc_rank = 0;
	for (unsigned j = 0; j < 8; j++)
		esc_rank += (uint32_t)sz_popc64(P[0].mask[le][j]);
	const uint32_t esc_code = P[0].first[le] + esc_rank;
	const uint32_t esc = splitzip_entropy_reverse(esc_code, le) |
	                     (uint32_t)le << SPLITZIP_ENTROPY_ENC_LEN_SHIFT |
	                     SPLITZIP_ENTROPY_ENC_ESCAPE;
	{
		const unsigned e = t, l = P[0].len[e];
		uint32_t sym = esc;
		if (l) {
			uint32_t rank =
			    (uint32_t)sz_popc64(P[0].mask[l][e / 32] & ((1u << (e % 32)) - 1));
			for (unsigned j = 0; j < e / 32; j++)
				rank += (uint32_t)sz_popc64(P[0].mask[l][j]);
			sym = splitzip_entropy_reverse(P[0].first[l] + rank, l) |
			      (uint32_t)l << SPLITZIP_ENTROPY_ENC_LEN_SHIFT;
		}
		sz_gst_u32(ws + SZ_GPU_ENT_WS_SYM + 4 * e, sym);
	}
	const unsigned lo = P[0].lo, hi = P[0].hi, K = hi - lo + 1, bytes = (K + 1) / 2;
	if (t < bytes) {
		const unsigned k = 2 * t;
		uint32_t v = P[0].len[lo + k];
		if (k + 1 < K)
			v |= (uint32_t)P[0].len[lo + k + 1] << 4;
		sz_gst_u8(ws + SZ_GPU_ENT_WS_LENS + t, (uint8_t)v);
	}
	if (t == 0) {
		sz_gst_u32(&st->first, lo);
		sz_gst_u32(&st->last, hi);
		sz_gst_u32(&st->lbytes, bytes);
		sz_gst_u32(&st->esc_len, le);
	}
}

/* Block setup of the count and encode kernels: the frame's state and encoder table. */
SZ_DEVICE bool sz_ent_block_setup(sz_ent_enc_smem &S, const sz_gpu_enc &a, uint64_t f)
{
	const unsigned t = threadIdx.x;
	const uint8_t *ws = sz_ent_ws(a, f);
	S.sym[t] = sz_gld_u32(ws + SZ_GPU_ENT_WS_SYM + 4 * t);
	if (t == 0) {
		const sz_gpu_ent_state *st = reinterpret_cast<const sz_gpu_ent_state *>(ws);
		S.skip = sz_gld_u32(&st->skip);
		S.mode = sz_gld_u32(&st->mode);
	}
	sz_syncthreads();
	return S.skip == 0;
}

/* The eight elements of thread hl's part of a batch into the group's staging row. */
SZ_DEVICE void sz_ent_stage8(uint32_t *row, unsigned hl, sz_u32x4 v)
{
	row[4 * hl] = v.x;
	row[4 * hl + 1] = v.y;
	row[4 * hl + 2] = v.z;
	row[4 * hl + 3] = v.w;
}
SZ_DEVICE uint32_t sz_ent_staged(const uint32_t *row, unsigned q)
{
	return (row[q / 2] >> (16 * (q & 1))) & 0xFFFFu;
}

/* Whole-frame chunk ranges of the count and encode kernels: block b of G takes
 * [C b / G, C (b + 1) / G); its group g the chunks c0 + g, c0 + g + SZ_ENT_GROUPS, ... */

/*
 * Per frame, gridDim.x blocks: each chunk's word count (the decoder of FORMAT.md §4.3.5 reads a
 * word for a lane when it holds fewer than 11 bits before a symbol or fewer than 8 before an
 * escape's raw bits: a function of the code lengths alone) into the workspace, the escape
 * total, and the content checksum's folds.
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS, SZ_ENT_BLOCKS) void sz_k_ent_count(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_ent_enc_smem, S, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	if (!sz_ent_block_setup(S[0], a, f))
		return;
	const unsigned lane = sz_lane<W>(), hl = lane & 31u, g = sz_linear_tid() / 32u;
	const uint64_t n = sz_enc_n(a, f);
	const unsigned L = a.chunk_log2;
	const uint16_t *src = sz_enc_src(a, f);
	const bool vec = sz_aligned(src, 16),
	           hash = (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	const uint64_t C = splitzip_n_chunks(n, L), G = gridDim.x, b = blockIdx.x;
	const uint64_t c0 = C * b / G, c1 = C * (b + 1) / G;
	uint32_t *wc = reinterpret_cast<uint32_t *>(sz_ent_ws(a, f) + SZ_GPU_ENT_WS_WORDS);
	uint32_t *row = S[0].stage[g];
	uint64_t csum = 0;
	uint32_t nesc = 0;
	for (uint64_t cb = c0; cb < c1; cb += SZ_ENT_GROUPS) {
		const uint64_t c = cb + g;
		const bool live = c < c1;
		const uint32_t len = live ? (uint32_t)splitzip_chunk_len(n, L, c) : 0;
		const uint16_t *csrc = src + (c << L);
		const uint32_t nb = (len + 255) / 256;
		const uint32_t nbo = sz_shfl_xor<W>(sz_full_mask<W>(), nb, (W / 2) & 32);
		const uint32_t batches = nbo > nb ? nbo : nb;
		uint32_t held = 0, words = 0;
		uint64_t acc = splitzip_hash_lane_init(hl);
		for (uint32_t bt = 0; bt < batches; bt++) {
			const uint32_t i0 = 256 * bt + 8 * hl;
			uint32_t valid = 0;
			sz_u32x4 v = sz_u32x4_make(0, 0, 0, 0);
			if (i0 < len)
				v = sz_load8(csrc, i0, len, vec, &valid);
			if (hash) { /* as the decoder: hash lane h takes words h and h + 32 */
				const uint64_t x = (uint64_t)v.y << 32 | v.x,
				               y = (uint64_t)v.w << 32 | v.z;
				const uint32_t word0 = 64 * bt, nwh = (len + 3) / 4;
				SZ_UNROLL
				for (int k = 0; k < 2; k++) {
					const int from = (int)(hl >> 1) + 16 * k;
					const uint64_t va =
					    sz_shfl<W>(sz_full_mask<W>(), x, from, 32);
					const uint64_t vb =
					    sz_shfl<W>(sz_full_mask<W>(), y, from, 32);
					if (word0 + hl + 32u * (unsigned)k < nwh)
						acc = splitzip_hash_round(acc, (hl & 1) ? vb : va);
				}
			}
			sz_ent_stage8(row, hl, v);
			sz_syncwarp<W>(sz_full_mask<W>());
			for (uint32_t k = 0; k < SZ_ENT_BATCH_STEPS; k++) {
				const uint32_t q = 32 * k + hl;
				if (256 * bt + q >= len)
					break;
				const uint32_t e = S[0].sym[(sz_ent_staged(row, q) >> 7) & 0xFFu];
				if (held < SPLITZIP_ENTROPY_REFILL_SYMBOL) {
					held += SPLITZIP_ENTROPY_WORD_BITS;
					words++;
				}
				held -= (e >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xFFu;
				if (e & SPLITZIP_ENTROPY_ENC_ESCAPE) {
					if (held < SPLITZIP_ENTROPY_REFILL_RAW) {
						held += SPLITZIP_ENTROPY_WORD_BITS;
						words++;
					}
					held -= SPLITZIP_ENTROPY_RAW_BITS;
					nesc++;
				}
			}
			sz_syncwarp<W>(sz_full_mask<W>());
		}
		for (int k = 16; k > 0; k >>= 1)
			words += sz_shfl_xor<W>(sz_full_mask<W>(), words, k, 32);
		uint64_t part = splitzip_hash_lane_fold(acc, hl);
		if (hash)
			for (int k = 16; k > 0; k >>= 1)
				part += sz_shfl_xor<W>(sz_full_mask<W>(), part, k, 32);
		if (hl == 0 && live) {
			sz_gst_u32(wc + c, words);
			if (hash)
				csum += splitzip_hash_chunk_fold(
				    splitzip_hash_chunk_final(2 * (uint64_t)len, part), c);
		}
	}
	csum = sz_warp_sum<W>(csum);
	nesc = sz_warp_sum<W>(nesc);
	const unsigned warp = sz_warp<W>();
	if (lane == 0) {
		S[0].wsum[warp] = csum;
		S[0].wesc[warp] = nesc;
	}
	sz_syncthreads();
	if (threadIdx.x != 0)
		return;
	for (unsigned w = 1; w < SZ_GPU_THREADS / W; w++) {
		csum += S[0].wsum[w];
		nesc += S[0].wesc[w];
	}
	sz_gpu_ent_state *st = sz_ent_state(a, f);
	if (nesc)
		sz_atomic_add_relaxed(&st->esc, nesc);
	if (hash)
		sz_atomic_add_relaxed(&st->csum, csum);
}

/*
 * Per frame (one block): the chunk table (running word totals, in place in the workspace),
 * Stream_Words, the mode (FORMAT.md §6.3, the entropy encoding: entropy only if strictly
 * smaller than stored), the capacity; then the header, the code lengths and the gaps (entropy)
 * or the padding (stored), and the result. The body is sz_k_ent_encode's.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_ent_plan(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, part, SZ_GPU_THREADS + 1);
	SZ_SHARED_ARRAY(uint8_t, hb, SPLITZIP_FRAME_HEADER_SIZE);
	SZ_SHARED_ARRAY(uint32_t, mode, 1);
	SZ_SHARED_ARRAY(uint32_t, covered, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	sz_gpu_ent_state *st = sz_ent_state(a, f);
	if (t == 0)
		mode[0] = sz_gld_u32(&st->skip) ? SZ_GPU_ENT_NONE : 0;
	sz_syncthreads();
	if (mode[0] == SZ_GPU_ENT_NONE)
		return;
	const uint64_t n = sz_enc_n(a, f), cap = sz_enc_cap(a, f);
	const unsigned L = a.chunk_log2;
	const uint64_t C = splitzip_n_chunks(n, L);
	uint8_t *ws = sz_ent_ws(a, f), *dst = sz_enc_dst(a, f);
	uint32_t *wc = reinterpret_cast<uint32_t *>(ws + SZ_GPU_ENT_WS_WORDS);
	const uint64_t k0 = C * t / SZ_GPU_THREADS, k1 = C * (t + 1) / SZ_GPU_THREADS;
	uint64_t sum = 0;
	for (uint64_t c = k0; c < k1; c++)
		sum += sz_gld_u32(wc + c);
	part[t] = sum;
	const bool is_auto = a.encoding == SPLITZIP_ENCODING_AUTO;
	if (t == 0)
		covered[0] = 0;
	sz_syncthreads();
	if (is_auto) { /* the split4 frame's escapes (FORMAT.md §5.1, §6.2) from the histogram */
		const uint32_t *hist = reinterpret_cast<const uint32_t *>(ws + SZ_GPU_ENT_WS_HIST);
		const uint32_t ht = sz_gld_u32(hist + t);
		bool in_cb = false;
		if (a.split4.from_input) { /* the 16 first by count descending, then exponent
			                      ascending */
			uint32_t r = 0;
			for (unsigned e = 0; e < 256; e++) {
				const uint32_t he = sz_gld_u32(hist + e);
				r += he > ht || (he == ht && e < t);
			}
			in_cb = r < 16;
		} else {
			for (unsigned k = 0; k < 16; k++)
				in_cb |= sz_enc_fixed_cb(a, k) == t;
		}
		if (in_cb && ht)
			sz_smem_atomic_add(&covered[0], ht);
		sz_syncthreads();
	}
	const unsigned first = sz_gld_u32(&st->first), last = sz_gld_u32(&st->last);
	if (t == 0) {
		uint64_t run = 0;
		for (unsigned i = 0; i < SZ_GPU_THREADS; i++) {
			const uint64_t v = part[i];
			part[i] = run;
			run += v;
		}
		part[SZ_GPU_THREADS] = run;
		const uint64_t se = splitzip_entropy_frame_size(n, L, run, first, last);
		const uint64_t stored = splitzip_stored_frame_size(n);
		const bool ent = se < stored;
		const uint64_t size = ent ? se : stored;
		/* auto: split4 if it beats stored and is no larger than the entropy frame; then
		 * the split4 encoder writes the frame and its result (sz_k_enc_init reads the mode)
		 */
		const uint64_t E4 = n - covered[0];
		const uint64_t s4 = is_auto && splitzip_split4_wins(n, L, E4)
		                        ? splitzip_split4_frame_size(n, L, E4)
		                        : 0;
		if (s4 && (!ent || s4 <= se)) {
			mode[0] = SPLITZIP_MODE_SPLIT4;
		} else if (size > cap) {
			sz_put_result(a.frames.out_sizes, a.frames.statuses, f, 0,
			              SPLITZIP_ERROR_DST_TOO_SMALL);
			mode[0] = SZ_GPU_ENT_NONE;
		} else {
			mode[0] = ent ? SPLITZIP_MODE_ENTROPY : SPLITZIP_MODE_STORED;
			splitzip_header h;
			splitzip_header_init(&h, mode[0], L, a.flags, n);
			h.frame_size = size;
			if (ent) {
				h.n_escapes = sz_gld_u32(&st->esc);
				h.n_words = (uint32_t)run;
				h.table_first = (uint8_t)first;
				h.table_last = (uint8_t)last;
				h.escape_length = (uint8_t)sz_gld_u32(&st->esc_len);
			}
			if (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
				h.content_checksum =
				    splitzip_hash_frame_final(n, sz_gld_u64(&st->csum));
			sz_gpu_put_header(dst, hb, h);
			sz_put_result(a.frames.out_sizes, a.frames.statuses, f, size, SPLITZIP_OK);
		}
		sz_gst_u32(&st->mode, mode[0]);
	}
	sz_syncthreads();
	if (mode[0] == SPLITZIP_MODE_STORED) { /* FORMAT.md §4.1: padding (< 16 bytes) */
		const uint64_t at = SPLITZIP_FRAME_HEADER_SIZE + 2 * n + t;
		if (t < SPLITZIP_SECTION_ALIGN && at < splitzip_stored_frame_size(n))
			sz_gst_u8(dst + at, 0);
		return;
	}
	if (mode[0] != SPLITZIP_MODE_ENTROPY)
		return;
	splitzip_entropy_layout el;
	splitzip_entropy_layout_of(n, L, part[SZ_GPU_THREADS], first, last, &el);
	uint64_t run = part[t];
	for (uint64_t c = k0; c < k1; c++) { /* §4.3.4: the running totals */
		run += sz_gld_u32(wc + c);
		sz_gst_u32(wc + c, (uint32_t)run);
		sz_gst_le32(dst + el.chunk_table_off + 4 * c, (uint32_t)run);
	}
	const unsigned lbytes = sz_gld_u32(&st->lbytes);
	if (t < lbytes)
		sz_gst_u8(dst + el.lengths_off + t, sz_gld_u8(ws + SZ_GPU_ENT_WS_LENS + t));
	if (t < SPLITZIP_SECTION_ALIGN) /* §4.3.7: each gap < 16 bytes */
		for (int k = 0; k < SPLITZIP_ENTROPY_GAPS; k++) {
			const uint64_t at = splitzip_entropy_gap(&el, k) + t;
			if (at < splitzip_entropy_gap_end(&el, k))
				sz_gst_u8(dst + at, 0);
		}
}

/* One lane's reserved words not yet filled (at most two: FORMAT.md §4.3.5 keeps a lane at
 * most 26 bits ahead of what it has written, core/sz_ref.c) and its pending bits. */
struct sz_ent_lane {
	uint32_t acc, bits, held, s0, s1, open;
};

SZ_DEVICE void sz_ent_reserve(sz_ent_lane &l, uint32_t slot)
{
	if (l.open == 0)
		l.s0 = slot;
	else
		l.s1 = slot;
	l.open++;
	l.held += SPLITZIP_ENTROPY_WORD_BITS;
}

SZ_DEVICE void sz_ent_put(sz_ent_lane &l, uint32_t v, uint32_t len, uint8_t *words)
{
	l.acc |= v << l.bits;
	l.bits += len;
	l.held -= len;
	if (l.bits >= SPLITZIP_ENTROPY_WORD_BITS) {
		sz_gst_le16(words + 2 * (uint64_t)l.s0, l.acc & 0xFFFFu);
		l.s0 = l.s1;
		l.open--;
		l.acc >>= SPLITZIP_ENTROPY_WORD_BITS;
		l.bits -= SPLITZIP_ENTROPY_WORD_BITS;
	}
}

/*
 * Per frame, gridDim.x blocks, after the plan. Entropy: each group encodes its chunks (the
 * ranges of sz_k_ent_count): 8-element 16-byte loads into the staging row, the sign/mantissa
 * bytes stored from the same registers, then per step the encoder of core/sz_ref.c with the
 * decoder's reads as ballots (a lane reserves the chunk's next word where the decoder reads
 * one for it, lanes in order), each finished word stored at its final place. Stored: the
 * input behind the header.
 */
template <int W>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS, SZ_ENT_BLOCKS) void sz_k_ent_encode(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_ent_enc_smem, S, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	if (!sz_ent_block_setup(S[0], a, f))
		return;
	const uint32_t mode = S[0].mode;
	const uint64_t n = sz_enc_n(a, f), G = gridDim.x, b = blockIdx.x;
	const uint16_t *src = sz_enc_src(a, f);
	uint8_t *dst = sz_enc_dst(a, f);
	const bool vec = sz_aligned(src, 16) && sz_aligned(dst, 16);
	if (mode == SPLITZIP_MODE_STORED) {
		const uint8_t *s8 = reinterpret_cast<const uint8_t *>(src);
		uint8_t *d8 = dst + SPLITZIP_FRAME_HEADER_SIZE;
		const uint64_t bytes = 2 * n, gt = b * SZ_GPU_THREADS + threadIdx.x;
		const uint64_t gs = G * SZ_GPU_THREADS;
		uint64_t done = 0;
		if (vec) {
			for (uint64_t u = gt; u < bytes / 16; u += gs)
				sz_gst_x4(d8 + 16 * u, sz_gldro_x4(s8 + 16 * u));
			done = bytes / 16 * 16;
		}
		for (uint64_t i = done + gt; i < bytes; i += gs)
			sz_gst_u8(d8 + i, sz_gldro_u8(s8 + i));
		return;
	}
	if (mode != SPLITZIP_MODE_ENTROPY)
		return;
	const unsigned lane = sz_lane<W>(), hl = lane & 31u, g = sz_linear_tid() / 32u;
	const unsigned sh = lane & 32u;
	const uint32_t lt = (1u << hl) - 1;
	const unsigned L = a.chunk_log2;
	const uint64_t C = splitzip_n_chunks(n, L), c0 = C * b / G, c1 = C * (b + 1) / G;
	const uint32_t *T =
	    reinterpret_cast<const uint32_t *>(sz_ent_ws(a, f) + SZ_GPU_ENT_WS_WORDS);
	splitzip_entropy_layout el; /* the offsets needed here do not depend on Stream_Words */
	{
		const sz_gpu_ent_state *st =
		    reinterpret_cast<const sz_gpu_ent_state *>(sz_ent_ws(a, f));
		splitzip_entropy_layout_of(n, L, 0, sz_gld_u32(&st->first), sz_gld_u32(&st->last),
		                           &el);
	}
	uint32_t *row = S[0].stage[g];
	for (uint64_t cb = c0; cb < c1; cb += SZ_ENT_GROUPS) {
		const uint64_t c = cb + g;
		const bool live = c < c1;
		const uint32_t len = live ? (uint32_t)splitzip_chunk_len(n, L, c) : 0;
		const uint16_t *csrc = src + (c << L);
		uint8_t *csm = dst + el.sm_off + (c << L);
		uint8_t *words =
		    dst + el.stream_off + 2 * (uint64_t)(live && c ? sz_gld_u32(T + c - 1) : 0);
		const uint32_t nb = (len + 255) / 256;
		const uint32_t nbo = sz_shfl_xor<W>(sz_full_mask<W>(), nb, (W / 2) & 32);
		const uint32_t batches = nbo > nb ? nbo : nb;
		sz_ent_lane ln = {0, 0, 0, 0, 0, 0};
		uint32_t next = 0;
		for (uint32_t bt = 0; bt < batches; bt++) {
			const uint32_t i0 = 256 * bt + 8 * hl;
			uint32_t valid = 0;
			sz_u32x4 v = sz_u32x4_make(0, 0, 0, 0);
			if (i0 < len)
				v = sz_load8(csrc, i0, len, vec, &valid);
			uint64_t smv = 0;
			for (unsigned i = 0; i < 8; i++) {
				const uint32_t x = sz_elem8(v, i);
				smv |= (uint64_t)(((x >> 8) & 0x80u) | (x & 0x7Fu)) << (8 * i);
			}
			if (vec && valid == 0xFFu) {
				sz_gst_u64(csm + i0, smv);
			} else {
				for (unsigned i = 0; i < 8; i++)
					if (valid >> i & 1)
						sz_gst_u8(csm + i0 + i, (uint8_t)(smv >> (8 * i)));
			}
			sz_ent_stage8(row, hl, v);
			sz_syncwarp<W>(sz_full_mask<W>());
			for (uint32_t k = 0; k < SZ_ENT_BATCH_STEPS; k++) {
				const uint32_t q = 32 * k + hl;
				const bool act = 256 * bt + q < len;
				const uint32_t x = (sz_ent_staged(row, q) >> 7) & 0xFFu;
				const uint32_t e = act ? S[0].sym[x] : 0;
				const bool esc = (e & SPLITZIP_ENTROPY_ENC_ESCAPE) != 0;
				bool need = act && ln.held < SPLITZIP_ENTROPY_REFILL_SYMBOL;
				uint32_t m =
				    (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
				if (need)
					sz_ent_reserve(ln, next + (uint32_t)sz_popc64(m & lt));
				next += (uint32_t)sz_popc64(m);
				if (act)
					sz_ent_put(ln, e & 0xFFFFu,
					           (e >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xFFu,
					           words);
				need = esc && ln.held < SPLITZIP_ENTROPY_REFILL_RAW;
				m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
				if (need)
					sz_ent_reserve(ln, next + (uint32_t)sz_popc64(m & lt));
				next += (uint32_t)sz_popc64(m);
				if (esc)
					sz_ent_put(ln, x, SPLITZIP_ENTROPY_RAW_BITS, words);
			}
			sz_syncwarp<W>(sz_full_mask<W>());
		}
		/* the last bits of each lane, zero-padded, then zero words for slots never needed
		 */
		if (ln.open) {
			sz_gst_le16(words + 2 * (uint64_t)ln.s0, ln.acc & 0xFFFFu);
			if (ln.open > 1)
				sz_gst_le16(words + 2 * (uint64_t)ln.s1, 0);
		}
	}
}

#endif /* SZ_GPU_ENTROPY_ENC_CUH */
