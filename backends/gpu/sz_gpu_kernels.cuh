/*
 * sz_gpu_kernels.cuh -- the GPU encoder and decoder, one source for CUDA, HIP and the CPU SIMT
 * harness (include only sz_gpu_compat.cuh and core headers). Minimum: CUDA sm_70, AMD gfx9.
 * Frames must equal core/sz_driver.c + core/sz_ref.c byte for byte (doc/FORMAT.md §4, §6).
 *
 * Encode (sequence in sz_gpu_driver.cuh): enc_init, [hist, codebook], encode, finish.
 *  - encode: one block per chunk. Blocks take chunk numbers from a per-frame ticket, so a
 *    chunk only ever waits on chunks whose blocks are already running. Each thread step reads
 *    16 elements (two 16-byte loads) and writes their 8 code bytes and 16 sign/mantissa bytes:
 *    those sections sit at offsets that do not depend on the escape count. A block scan over
 *    the per-step escape counts and a decoupled look-back over the chunks give every escape
 *    its rank in the frame, so positions and the chunk table go straight to their final
 *    place; exponents go to the workspace (their section's offset depends on the total).
 *    The order comes from scans only; atomics only hand out tickets and add checksums.
 *  - finish: the escape total picks the mode (FORMAT.md §6.3). split4: copy the exponents,
 *    zero the gaps, write the header. Stored: copy the input behind a stored header.
 *
 * Decode: one kernel. Every block validates the header (FORMAT.md §3.2-3.3), then walks the
 * chunks grid-stride: it checks the chunk's table entries before using them, decodes the
 * dense part with 16-byte accesses, and after a barrier validates and patches the chunk's
 * escapes (FORMAT.md §4.2.7). The last block of a frame to finish writes its status.
 */
#ifndef SZ_GPU_KERNELS_CUH
#define SZ_GPU_KERNELS_CUH

#include "sz_gpu_compat.cuh"
#include "sz_gpu_args.h"

/* ==================================================================== */
/*                               Helpers                                */
/* ==================================================================== */

SZ_DEVICE sz_gpu_frame_state *sz_gpu_state(uint8_t *ws, uint64_t stride, uint32_t f)
{
	return reinterpret_cast<sz_gpu_frame_state *>(ws + stride * f);
}

SZ_DEVICE const uint16_t *sz_enc_src(const sz_gpu_enc &a, uint32_t f)
{
	return a.srcs ? a.srcs[f] : a.src1;
}
SZ_DEVICE uint64_t sz_enc_n(const sz_gpu_enc &a, uint32_t f)
{
	return a.srcs ? (uint64_t)a.n_elems[f] : a.n1;
}
SZ_DEVICE uint8_t *sz_enc_dst(const sz_gpu_enc &a, uint32_t f)
{
	return static_cast<uint8_t *>(a.srcs ? a.dsts[f] : a.dst1);
}
SZ_DEVICE uint64_t sz_enc_cap(const sz_gpu_enc &a, uint32_t f)
{
	return a.srcs ? (uint64_t)a.dst_caps[f] : a.cap1;
}
SZ_DEVICE const uint8_t *sz_dec_src(const sz_gpu_dec &a, uint32_t f)
{
	return static_cast<const uint8_t *>(a.srcs ? a.srcs[f] : a.src1);
}
SZ_DEVICE uint64_t sz_dec_size(const sz_gpu_dec &a, uint32_t f)
{
	return a.srcs ? (uint64_t)a.src_sizes[f] : a.size1;
}
SZ_DEVICE uint16_t *sz_dec_dst(const sz_gpu_dec &a, uint32_t f)
{
	return a.srcs ? a.dsts[f] : a.dst1;
}
SZ_DEVICE uint64_t sz_dec_cap(const sz_gpu_dec &a, uint32_t f)
{
	return a.srcs ? (uint64_t)a.dst_caps[f] : a.cap1;
}

SZ_DEVICE bool sz_aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

/* Inclusive scan over the W lanes of a full warp. */
template <int W, typename T> SZ_DEVICE T sz_warp_incl_scan(T v)
{
	const unsigned lane = sz_lane<W>();
	for (unsigned d = 1; d < (unsigned)W; d <<= 1) {
		T o = sz_shfl_up<W>(sz_full_mask<W>(), v, d);
		if (lane >= d)
			v += o;
	}
	return v;
}

/* Sum over the W lanes of a full warp (integer addition: any order gives the same value). */
template <int W, typename T> SZ_DEVICE T sz_warp_sum(T v)
{
	for (int m = W / 2; m > 0; m >>= 1)
		v += sz_shfl_xor<W>(sz_full_mask<W>(), v, m);
	return v;
}

/*
 * Exclusive scan of v over the threads of the block in thread order; '*total' receives the sum.
 * blockDim.x is a multiple of W and at most SZ_GPU_THREADS; 'tmp' has SZ_GPU_THREADS/32 + 1
 * entries. Every thread of the block must call it.
 */
template <int W> SZ_DEVICE uint32_t sz_block_excl_scan(uint32_t v, uint32_t *tmp, uint32_t *total)
{
	const unsigned lane = sz_lane<W>(), warp = sz_warp<W>(), nw = blockDim.x / W;
	const unsigned tot = SZ_GPU_THREADS / 32;
	const uint32_t incl = sz_warp_incl_scan<W>(v);
	if (lane == (unsigned)W - 1)
		tmp[warp] = incl;
	sz_syncthreads();
	if (warp == 0) {
		const uint32_t x = lane < nw ? tmp[lane] : 0;
		const uint32_t s = sz_warp_incl_scan<W>(x);
		if (lane < nw)
			tmp[lane] = s - x;
		if (lane == (unsigned)W - 1)
			tmp[tot] = s;
	}
	sz_syncthreads();
	const uint32_t r = tmp[warp] + incl - v;
	*total = tmp[tot];
	sz_syncthreads(); /* tmp is free again */
	return r;
}

/*
 * Decoupled look-back, run by one whole warp for chunk c > 0: the number of escapes in chunks
 * 0..c-1. Lane l inspects chunk base-l; a window with an inclusive entry ends the walk, a
 * window of aggregates is summed and the walk moves W chunks down.
 */
template <int W> SZ_DEVICE uint64_t sz_lookback(uint64_t *lb, uint64_t c)
{
	const unsigned lane = sz_lane<W>();
	const uint64_t full = sz_full_mask<W>();
	uint64_t excl = 0;
	int64_t base = (int64_t)c - 1;
	for (;;) {
		const int64_t idx = base - (int64_t)lane;
		uint64_t s = idx >= 0 ? sz_atomic_load_relaxed(&lb[idx]) : (SZ_LB_INCLUSIVE << 32);
		while (!sz_all<W>(full, (s >> 32) != 0)) {
			if ((s >> 32) == 0) {
				sz_spin_pause();
				s = sz_atomic_load_relaxed(&lb[idx]);
			}
		}
		const uint64_t incl = sz_ballot<W>(full, (s >> 32) == SZ_LB_INCLUSIVE);
		const uint64_t v = (uint32_t)s;
		if (incl) {
			const unsigned j =
			    (unsigned)sz_ffs64(incl) - 1; /* nearest inclusive entry */
			return excl + sz_warp_sum<W>(lane <= j ? v : (uint64_t)0);
		}
		excl += sz_warp_sum<W>(v);
		base -= W;
	}
}

/*
 * Chunk digest (FORMAT.md §7.1) of m bytes at p, by one whole warp: lane l < 32 runs the
 * accumulator of lane l over words l, l+32, ... (coalesced: a step reads 256 contiguous bytes).
 */
template <int W> SZ_DEVICE uint64_t sz_chunk_digest(const uint8_t *p, uint64_t m)
{
	const unsigned lane = sz_lane<W>();
	uint64_t part = 0;
	if (lane < SPLITZIP_HASH_LANES) {
		uint64_t acc = splitzip_hash_lane_init(lane);
		const uint64_t nw = (m + 7) / 8, whole = m / 8;
		const bool al = ((uintptr_t)p & 7) == 0;
		for (uint64_t j = lane; j < nw; j += SPLITZIP_HASH_LANES) {
			uint64_t w = 0;
			if (al && j < whole) {
				w = sz_gld_u64(p + 8 * j);
			} else {
				for (unsigned b = 0; b < 8; b++)
					if (8 * j + b < m)
						w |= (uint64_t)p[8 * j + b] << (8 * b);
			}
			acc = splitzip_hash_round(acc, w);
		}
		part = splitzip_hash_lane_fold(acc, lane);
	}
	return splitzip_hash_chunk_final(m, sz_warp_sum<W>(part));
}

/* Encoder table entry of exponent e: bit 7 = escape, bits 0-3 = code. */
SZ_DEVICE uint8_t sz_lut_entry(const uint8_t *codebook, unsigned e)
{
	for (unsigned k = 0; k < 16; k++)
		if (codebook[k] == e)
			return (uint8_t)k;
	return 0x80;
}

/* ==================================================================== */
/*                               Encoder                                */
/* ==================================================================== */

/*
 * Encode group g (elements 16g .. 16g+15 of a chunk of len elements): codes and sign/mantissa
 * bytes as splitzip_ref_encode_chunk() writes them. Returns the escapes of the group. 'vec':
 * src and the frame are 16-byte aligned, so a whole group moves in 16- and 8-byte accesses.
 */
SZ_DEVICE uint32_t sz_encode_group(const uint16_t *src, uint8_t *codes, uint8_t *sm, uint32_t g,
                                   uint64_t len, bool vec, const uint8_t *lut, bool contig,
                                   unsigned base)
{
	const uint64_t i0 = (uint64_t)g * SZ_GPU_GROUP;
	uint32_t nesc = 0;
	if (vec && i0 + SZ_GPU_GROUP <= len) {
		const sz_u32x4 a = sz_gld_x4(src + i0), b = sz_gld_x4(src + i0 + 8);
		const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
		uint64_t cbits = 0;
		uint32_t smw[4] = {0, 0, 0, 0};
		SZ_UNROLL
		for (int k = 0; k < 16; k++) {
			const uint32_t v = (w[k >> 1] >> (16 * (k & 1))) & 0xFFFF;
			const uint32_t e = (v >> 7) & 0xFF;
			uint32_t code, esc;
			if (contig) {
				const uint32_t d = e - base;
				esc = d > 15;
				code = esc ? 0 : d;
			} else {
				const uint32_t x = lut[e];
				esc = x >> 7;
				code = x & 15;
			}
			nesc += esc;
			cbits |= (uint64_t)code << (4 * k);
			smw[k >> 2] |= (((v >> 8) & 0x80) | (v & 0x7F)) << (8 * (k & 3));
		}
		sz_gst_u64(codes + 8 * (uint64_t)g, cbits);
		sz_gst_x4(sm + 16 * (uint64_t)g, sz_u32x4_make(smw[0], smw[1], smw[2], smw[3]));
		return nesc;
	}
	for (uint64_t i = i0; i < i0 + SZ_GPU_GROUP && i < len; i++) {
		const uint16_t v = src[i];
		const uint32_t x = lut[splitzip_bf16_exponent(v)];
		const uint8_t code = (uint8_t)(x & 15);
		if (i % 2 == 0)
			codes[i / 2] = code; /* high nibble 0, also after an odd last element */
		else
			codes[i / 2] |= (uint8_t)(code << 4);
		sm[i] = splitzip_bf16_signman(v);
		nesc += x >> 7;
	}
	return nesc;
}

/* Per frame: argument checks, the mode threshold, zeroed counters and look-back states. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_enc_init(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	const uint32_t f = a.frame0 + blockIdx.y;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, f);
	const unsigned t = threadIdx.x;
	const uint64_t c_max = splitzip_n_chunks(a.max_elems, a.chunk_log2);
	uint64_t *lb =
	    reinterpret_cast<uint64_t *>(reinterpret_cast<uint8_t *>(st) + SZ_GPU_WS_LOOKBACK);
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + t; i < c_max;
	     i += (uint64_t)gridDim.x * blockDim.x)
		lb[i] = 0;
	if (blockIdx.x != 0)
		return;
	uint64_t *hist =
	    reinterpret_cast<uint64_t *>(reinterpret_cast<uint8_t *>(st) + SZ_GPU_WS_HIST);
	for (unsigned i = t; i < 256; i += blockDim.x)
		hist[i] = 0;
	if (t != 0)
		return;
	const uint64_t n = sz_enc_n(a, f), cap = sz_enc_cap(a, f);
	int32_t s = SPLITZIP_OK;
	int64_t me = -1;
	if (n > a.max_elems || n > SPLITZIP_MAX_FRAME_ELEMS || !sz_enc_dst(a, f) ||
	    (!sz_enc_src(a, f) && n))
		s = SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (s == SPLITZIP_OK) {
		/* The capacity rule of splitzip_compress(): the smallest frame this input can give.
		 */
		const uint64_t stored = splitzip_stored_frame_size(n);
		me = splitzip_split4_max_escapes(n, a.chunk_log2);
		const uint64_t least =
		    me < 0 ? stored : splitzip_split4_frame_size(n, a.chunk_log2, 0);
		if (cap < least && cap < stored)
			s = SPLITZIP_ERROR_DST_TOO_SMALL;
	}
	st->ticket = 0;
	st->done = 0;
	st->csum = 0;
	st->corrupt = 0;
	st->max_esc = me;
	st->skip = s != SPLITZIP_OK;
	for (unsigned k = 0; k < 16; k++)
		st->codebook[k] = a.codebook[k];
	if (s != SPLITZIP_OK) {
		a.statuses[f] = s;
		a.out_sizes[f] = 0;
	}
}

/* Codebook from the input, step 1 (FORMAT.md §5.1): the exponent histogram, a block per chunk. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_hist(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, h, 256);
	const uint32_t f = a.frame0 + blockIdx.y;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, f);
	if (st->skip)
		return;
	const unsigned t = threadIdx.x;
	const uint64_t n = sz_enc_n(a, f), c = blockIdx.x;
	if (c >= splitzip_n_chunks(n, a.chunk_log2))
		return;
	const uint64_t len = splitzip_chunk_len(n, a.chunk_log2, c);
	const uint16_t *src = sz_enc_src(a, f) + (c << a.chunk_log2);
	for (unsigned i = t; i < 256; i += blockDim.x)
		h[i] = 0;
	sz_syncthreads();
	for (uint64_t i = t; i < len; i += blockDim.x)
		sz_smem_atomic_add(&h[splitzip_bf16_exponent(src[i])], 1u);
	sz_syncthreads();
	uint64_t *hist =
	    reinterpret_cast<uint64_t *>(reinterpret_cast<uint8_t *>(st) + SZ_GPU_WS_HIST);
	for (unsigned i = t; i < 256; i += blockDim.x)
		if (h[i])
			sz_atomic_add_relaxed(&hist[i], (uint64_t)h[i]);
}

/*
 * Codebook from the input, step 2 (FORMAT.md §5.1), one block of 256 threads per frame: thread
 * e ranks exponent e by (count descending, exponent ascending); the first 16 are kept and
 * numbered in ascending order.
 */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_codebook(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint64_t, h, 256);
	SZ_SHARED_ARRAY(uint8_t, taken, 256);
	const uint32_t f = a.frame0 + blockIdx.y;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, f);
	if (st->skip)
		return;
	const unsigned e = threadIdx.x;
	const uint64_t *hist =
	    reinterpret_cast<const uint64_t *>(reinterpret_cast<uint8_t *>(st) + SZ_GPU_WS_HIST);
	h[e] = hist[e];
	sz_syncthreads();
	unsigned rank = 0;
	for (unsigned x = 0; x < 256; x++)
		rank += h[x] > h[e] || (h[x] == h[e] && x < e);
	taken[e] = rank < 16;
	sz_syncthreads();
	if (taken[e]) {
		unsigned pos = 0;
		for (unsigned x = 0; x < e; x++)
			pos += taken[x];
		st->codebook[pos] = (uint8_t)e;
	}
}

/* The single pass over the input: one block per chunk (see the file comment). */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_encode(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint8_t, lut, 256);
	SZ_SHARED_ARRAY(uint8_t, gcnt, SZ_GPU_MAX_GROUPS); /* escapes per group of 16 */
	SZ_SHARED_ARRAY(uint32_t, tmp, SZ_GPU_THREADS / 32 + 1);
	SZ_SHARED_ARRAY(uint64_t, bc, 2); /* broadcast: chunk number, escapes before it */
	const uint32_t f = a.frame0 + blockIdx.y;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, f);
	if (st->skip)
		return;
	const unsigned t = threadIdx.x, nt = blockDim.x;
	const unsigned L = a.chunk_log2;
	const uint64_t n = sz_enc_n(a, f), C = splitzip_n_chunks(n, L);
	if (t == 0)
		bc[0] = sz_atomic_add_relaxed(&st->ticket, 1u);
	for (unsigned i = t; i < 256; i += nt)
		lut[i] = sz_lut_entry(st->codebook, i);
	sz_syncthreads();
	const uint64_t c = bc[0];
	if (c >= C)
		return;
	const uint64_t e0 = c << L, len = splitzip_chunk_len(n, L, c);
	const uint16_t *src = sz_enc_src(a, f) + e0;
	const int64_t max_esc = st->max_esc;

	if (max_esc >= 0) { /* split4 can still win: write the dense sections */
		uint8_t *dst = sz_enc_dst(a, f);
		splitzip_layout lay;
		splitzip_split4_layout(n, L, 0, &lay); /* codes, sm, table: independent of E */
		uint8_t *codes = dst + lay.codes_off + e0 / 2, *sm = dst + lay.sm_off + e0;
		const bool vec = sz_aligned16(src) && sz_aligned16(dst);
		const unsigned base = st->codebook[0];
		const bool contig = st->codebook[15] == base + 15;
		const uint32_t ng = (uint32_t)((len + SZ_GPU_GROUP - 1) / SZ_GPU_GROUP);
		for (uint32_t g = t; g < ng; g += nt)
			gcnt[g] = (uint8_t)sz_encode_group(src, codes, sm, g, len, vec, lut, contig,
			                                   base);
		sz_syncthreads();

		/* Rank of each escape inside the chunk: thread t owns groups [g0, g1). */
		const uint32_t per = (ng + nt - 1) / nt;
		const uint32_t g0 = t * per < ng ? t * per : ng;
		const uint32_t g1 = g0 + per < ng ? g0 + per : ng;
		uint32_t mine = 0;
		for (uint32_t g = g0; g < g1; g++)
			mine += gcnt[g];
		uint32_t total;
		const uint32_t off = sz_block_excl_scan<W>(mine, tmp, &total);

		/* Escapes in the chunks before this one. */
		uint64_t *lb = reinterpret_cast<uint64_t *>(reinterpret_cast<uint8_t *>(st) +
		                                            SZ_GPU_WS_LOOKBACK);
		if (t == 0) {
			sz_atomic_store_relaxed(
			    &lb[c], ((c == 0 ? SZ_LB_INCLUSIVE : SZ_LB_AGGREGATE) << 32) | total);
			if (c == 0)
				bc[1] = 0;
		}
		if (c > 0 && sz_warp<W>() == 0) {
			const uint64_t excl = sz_lookback<W>(lb, c);
			if (sz_lane<W>() == 0) {
				bc[1] = excl;
				sz_atomic_store_relaxed(&lb[c],
				                        (SZ_LB_INCLUSIVE << 32) | (excl + total));
			}
		}
		sz_syncthreads();
		const uint64_t before = bc[1];
		if (t == 0)
			splitzip_put_u8s(dst + lay.table_off + 4 * c, before + total, 4); /* T[c] */

		/* Positions to their final place, exponents to the workspace, in element order.
		 * Beyond the split4 limit the frame will be stored: nothing to write. */
		if (before + total <= (uint64_t)max_esc) {
			uint8_t *exps =
			    reinterpret_cast<uint8_t *>(st) + sz_gpu_ws_exps_off(a.max_elems, L);
			const uint64_t cap = sz_enc_cap(a, f);
			uint64_t k = before + off;
			for (uint32_t g = g0; g < g1; g++) {
				if (!gcnt[g])
					continue;
				for (uint64_t i = (uint64_t)g * SZ_GPU_GROUP;
				     i < (uint64_t)(g + 1) * SZ_GPU_GROUP && i < len; i++) {
					const uint8_t e = splitzip_bf16_exponent(src[i]);
					if (!(lut[e] & 0x80))
						continue;
					if (lay.epos_off + 2 * k + 2 <= cap)
						splitzip_put_u8s(dst + lay.epos_off + 2 * k, i, 2);
					exps[k++] = e;
				}
			}
		}
	}

	if (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) {
		if (sz_warp<W>() == 0) {
			const uint64_t d =
			    sz_chunk_digest<W>(reinterpret_cast<const uint8_t *>(src), 2 * len);
			if (sz_lane<W>() == 0)
				sz_atomic_add_relaxed(&st->csum, splitzip_hash_chunk_fold(d, c));
		}
	}
}

/* Mode choice and the parts that need the escape total; stored frames are written here. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_finish(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	const uint32_t f = a.frame0 + blockIdx.y;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, f);
	if (st->skip)
		return;
	const unsigned t = threadIdx.x, L = a.chunk_log2;
	const uint64_t n = sz_enc_n(a, f), cap = sz_enc_cap(a, f), C = splitzip_n_chunks(n, L);
	const uint64_t *lb = reinterpret_cast<const uint64_t *>(reinterpret_cast<uint8_t *>(st) +
	                                                        SZ_GPU_WS_LOOKBACK);
	const int64_t max_esc = st->max_esc;
	const uint64_t E = (max_esc >= 0 && C) ? (uint32_t)sz_atomic_load_relaxed(&lb[C - 1]) : 0;
	const bool split4 = max_esc >= 0 && E <= (uint64_t)max_esc; /* FORMAT.md §6.3 */
	splitzip_layout lay;
	splitzip_split4_layout(n, L, E, &lay);
	const uint64_t size = split4 ? lay.frame_size : splitzip_stored_frame_size(n);
	const bool lead = blockIdx.x == 0 && t == 0;
	if (size > cap) {
		if (lead) {
			a.statuses[f] = SPLITZIP_ERROR_DST_TOO_SMALL;
			a.out_sizes[f] = 0;
		}
		return;
	}
	uint8_t *dst = sz_enc_dst(a, f);
	const uint64_t gt = (uint64_t)blockIdx.x * blockDim.x + t;
	const uint64_t gs = (uint64_t)gridDim.x * blockDim.x;
	if (split4) {
		const uint8_t *exps =
		    reinterpret_cast<uint8_t *>(st) + sz_gpu_ws_exps_off(a.max_elems, L);
		for (uint64_t i = gt; i < E; i += gs)
			dst[lay.eexp_off + i] = exps[i];
		if (blockIdx.x == 0 && t < SPLITZIP_SECTION_ALIGN) {
			/* FORMAT.md §4.2.6: every gap is zero (each is shorter than 16 bytes). */
			for (int k = 0; k < SPLITZIP_SPLIT4_GAPS; k++) {
				const uint64_t at = splitzip_split4_gap(&lay, k) + t;
				if (at < splitzip_split4_gap_end(&lay, k))
					dst[at] = 0;
			}
		}
	} else {
		const uint8_t *s8 = reinterpret_cast<const uint8_t *>(sz_enc_src(a, f));
		uint8_t *d8 = dst + SPLITZIP_FRAME_HEADER_SIZE;
		const uint64_t bytes = 2 * n;
		uint64_t done = 0;
		if (sz_aligned16(s8) && sz_aligned16(dst)) {
			for (uint64_t u = gt; u < bytes / 16; u += gs)
				sz_gst_x4(d8 + 16 * u, sz_gld_x4(s8 + 16 * u));
			done = bytes / 16 * 16;
		}
		for (uint64_t i = done + gt; i < bytes; i += gs)
			d8[i] = s8[i];
		if (blockIdx.x == 0 && SPLITZIP_FRAME_HEADER_SIZE + bytes + t < size)
			dst[SPLITZIP_FRAME_HEADER_SIZE + bytes + t] =
			    0; /* FORMAT.md §4.1 padding */
	}
	if (lead) {
		splitzip_header h;
		splitzip_header_init(&h, split4 ? SPLITZIP_MODE_SPLIT4 : SPLITZIP_MODE_STORED, L,
		                     a.flags, n);
		h.n_escapes = split4 ? (uint32_t)E : 0;
		for (unsigned k = 0; k < 16; k++)
			h.codebook[k] = split4 ? st->codebook[k] : 0;
		h.frame_size = size;
		h.content_checksum =
		    (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		        ? splitzip_hash_frame_final(n, sz_atomic_load_relaxed(&st->csum))
		        : 0;
		splitzip_header_write(dst, &h);
		a.out_sizes[f] = size;
		a.statuses[f] = SPLITZIP_OK;
	}
}

/* ==================================================================== */
/*                               Decoder                                */
/* ==================================================================== */

/* FORMAT.md §3.2 steps 0-11 with the statuses every decoder gives (core/sz_layout.h). */
SZ_DEVICE int32_t sz_gpu_read_header(const uint8_t *src, uint64_t size, splitzip_header *h)
{
	if (!src)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	return splitzip_read_header(src, size, h);
}

/* Dense decode of group g: out[i] = join(codebook[code_i], sm[i]) (splitzip_ref_decode_chunk). */
SZ_DEVICE void sz_decode_group(const uint8_t *codes, const uint8_t *sm, uint16_t *out, uint32_t g,
                               uint64_t len, bool vec, const uint16_t *exp7, bool contig,
                               unsigned base)
{
	const uint64_t i0 = (uint64_t)g * SZ_GPU_GROUP;
	if (vec && i0 + SZ_GPU_GROUP <= len) {
		const uint64_t cb = sz_gld_u64(codes + 8 * (uint64_t)g);
		const sz_u32x4 s = sz_gld_x4(sm + 16 * (uint64_t)g);
		const uint32_t sw[4] = {s.x, s.y, s.z, s.w};
		uint32_t o[8] = {0, 0, 0, 0, 0, 0, 0, 0};
		SZ_UNROLL
		for (int k = 0; k < 16; k++) {
			const uint32_t code = (uint32_t)(cb >> (4 * k)) & 15;
			const uint32_t b = (sw[k >> 2] >> (8 * (k & 3))) & 0xFF;
			const uint32_t x = contig ? (base + code) << 7 : exp7[code];
			o[k >> 1] |= (((b & 0x80) << 8) | x | (b & 0x7F)) << (16 * (k & 1));
		}
		sz_gst_x4(out + i0, sz_u32x4_make(o[0], o[1], o[2], o[3]));
		sz_gst_x4(out + i0 + 8, sz_u32x4_make(o[4], o[5], o[6], o[7]));
		return;
	}
	for (uint64_t i = i0; i < i0 + SZ_GPU_GROUP && i < len; i++) {
		const uint32_t code = (codes[i / 2] >> (4 * (i % 2))) & 15;
		const uint32_t b = sm[i];
		out[i] = (uint16_t)(((b & 0x80) << 8) | exp7[code] | (b & 0x7F));
	}
}

/* Per frame: zero the counters of the decoder. */
template <int W> SZ_GLOBAL void sz_k_dec_init(sz_gpu_dec a)
{
	SZ_WARP_GUARD(W);
	if (threadIdx.x != 0)
		return;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, a.frame0 + blockIdx.y);
	st->done = 0;
	st->corrupt = 0;
	st->csum = 0;
}

/* 3 blocks per SM: about 80 registers, the budget under which no architecture spills. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS, 3) void sz_k_decode(sz_gpu_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(splitzip_header, sh, 1);
	SZ_SHARED_ARRAY(int32_t, sst, 1);
	SZ_SHARED_ARRAY(uint32_t, bad, 1); /* this block found a broken body rule */
	SZ_SHARED_ARRAY(uint16_t, exp7, 16);
	SZ_SHARED_ARRAY(uint8_t, is_esc, 256);
	const uint32_t f = a.frame0 + blockIdx.y;
	sz_gpu_frame_state *st = sz_gpu_state(a.ws, a.ws_stride, f);
	const unsigned t = threadIdx.x, nt = blockDim.x;
	const uint8_t *src = sz_dec_src(a, f);
	uint16_t *dst = sz_dec_dst(a, f);
	if (t == 0) {
		splitzip_header h;
		int32_t s = sz_gpu_read_header(src, sz_dec_size(a, f), &h);
		if (s == SPLITZIP_OK && h.frame_size > sz_dec_size(a, f))
			s = SPLITZIP_ERROR_TRUNCATED; /* §3.3 step 12 */
		else if (s == SPLITZIP_OK && h.n_elems > sz_dec_cap(a, f))
			s = SPLITZIP_ERROR_DST_TOO_SMALL; /* step 13 */
		else if (s == SPLITZIP_OK && !dst && h.n_elems)
			s = SPLITZIP_ERROR_INVALID_ARGUMENT;
		if (s == SPLITZIP_OK)
			sh[0] = h;
		sst[0] = s;
		bad[0] = 0;
	}
	sz_syncthreads();
	if (sst[0] != SPLITZIP_OK) { /* every block saw the same header */
		if (blockIdx.x == 0 && t == 0) {
			a.statuses[f] = sst[0];
			a.out_elems[f] = 0;
		}
		return;
	}
	const uint64_t n = sh[0].n_elems, E = sh[0].n_escapes;
	const unsigned L = sh[0].chunk_log2;
	const uint64_t C = splitzip_n_chunks(n, L), fsize = sh[0].frame_size;
	const bool want_sum = (sh[0].flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	const unsigned base = sh[0].codebook[0];
	const bool contig = sh[0].codebook[15] == base + 15;
	if (t < 16)
		exp7[t] = (uint16_t)(sh[0].codebook[t] << 7);
	for (unsigned i = t; i < 256; i += nt)
		is_esc[i] = sz_lut_entry(sh[0].codebook, i) >> 7;
	sz_syncthreads();

	if (sh[0].mode == SPLITZIP_MODE_STORED) {
		const uint8_t *body = src + SPLITZIP_FRAME_HEADER_SIZE;
		if (blockIdx.x == 0 && SPLITZIP_FRAME_HEADER_SIZE + 2 * n + t < fsize &&
		    src[SPLITZIP_FRAME_HEADER_SIZE + 2 * n + t])
			sz_smem_atomic_or(&bad[0], 1u); /* FORMAT.md §4.1: zero padding */
		const bool vec = sz_aligned16(body) && sz_aligned16(dst);
		for (uint64_t c = blockIdx.x; c < C; c += gridDim.x) {
			const uint64_t e0 = c << L, len = splitzip_chunk_len(n, L, c);
			const uint8_t *s8 = body + 2 * e0;
			uint8_t *d8 = reinterpret_cast<uint8_t *>(dst + e0);
			uint64_t done = 0;
			if (vec) {
				for (uint64_t u = t; u < 2 * len / 16; u += nt)
					sz_gst_x4(d8 + 16 * u, sz_gld_x4(s8 + 16 * u));
				done = 2 * len / 16 * 16;
			}
			for (uint64_t i = done + t; i < 2 * len; i += nt)
				d8[i] = s8[i];
			if (want_sum && sz_warp<W>() == 0) {
				const uint64_t d = sz_chunk_digest<W>(s8, 2 * len);
				if (sz_lane<W>() == 0)
					sz_atomic_add_relaxed(&st->csum,
					                      splitzip_hash_chunk_fold(d, c));
			}
		}
	} else {
		splitzip_layout lay;
		splitzip_split4_layout(n, L, E, &lay);
		const uint8_t *codes = src + lay.codes_off, *sm = src + lay.sm_off;
		const uint8_t *table = src + lay.table_off, *epos = src + lay.epos_off;
		const uint8_t *eexp = src + lay.eexp_off;
		if (blockIdx.x == 0 && t < SPLITZIP_SECTION_ALIGN) {
			/* FORMAT.md §4.2.7 rule 1: zero gaps and a zero nibble after an odd n. */
			for (int k = 0; k < SPLITZIP_SPLIT4_GAPS; k++) {
				const uint64_t at = splitzip_split4_gap(&lay, k) + t;
				if (at < splitzip_split4_gap_end(&lay, k) && src[at])
					sz_smem_atomic_or(&bad[0], 1u);
			}
			if (t == 0 && n % 2 && (codes[n / 2] >> 4))
				sz_smem_atomic_or(&bad[0], 1u);
		}
		const bool vec = sz_aligned16(src) && sz_aligned16(dst);
		for (uint64_t c = blockIdx.x; c < C; c += gridDim.x) {
			const uint64_t e0 = c << L, len = splitzip_chunk_len(n, L, c);
			/* Rule 2 for this chunk's entries, before they are used: the escape range
			 * [k0, k1) lies inside the escape sections and fits the chunk. */
			const uint64_t k0 = c ? splitzip_get_u8s(table + 4 * (c - 1), 4) : 0;
			const uint64_t k1 = splitzip_get_u8s(table + 4 * c, 4);
			if (k0 > k1 || k1 - k0 > len || k1 > E || (c == C - 1 && k1 != E)) {
				if (t == 0)
					sz_smem_atomic_or(&bad[0], 1u);
				continue;
			}
			const uint32_t ng = (uint32_t)((len + SZ_GPU_GROUP - 1) / SZ_GPU_GROUP);
			for (uint32_t g = t; g < ng; g += nt)
				sz_decode_group(codes + e0 / 2, sm + e0, dst + e0, g, len, vec,
				                exp7, contig, base);
			sz_syncthreads(); /* the dense values are written before they are patched */
			/* Rule 3, then the patch (patch_chunk in core/sz_driver.c). */
			for (uint64_t k = k0 + t; k < k1; k += nt) {
				const uint64_t p = splitzip_get_u8s(epos + 2 * k, 2);
				const uint8_t e = eexp[k];
				const bool after =
				    k == k0 || p > splitzip_get_u8s(epos + 2 * (k - 1), 2);
				const uint64_t i = e0 + p;
				if (!after || p >= len || !is_esc[e] ||
				    ((codes[i / 2] >> (4 * (i % 2))) & 15)) {
					sz_smem_atomic_or(&bad[0], 1u);
					continue;
				}
				dst[i] = splitzip_bf16_join(e, sm[i]);
			}
			if (want_sum) {
				sz_syncthreads(); /* hash the patched chunk */
				if (sz_warp<W>() == 0) {
					const uint64_t d = sz_chunk_digest<W>(
					    reinterpret_cast<const uint8_t *>(dst + e0), 2 * len);
					if (sz_lane<W>() == 0)
						sz_atomic_add_relaxed(
						    &st->csum, splitzip_hash_chunk_fold(d, c));
				}
			}
		}
	}

	/* The last block of the frame decides: a broken body rule anywhere comes before the
	 * content checksum (FORMAT.md §3.3 step 15). */
	sz_syncthreads();
	if (t == 0) {
		if (bad[0])
			sz_atomic_store_relaxed(&st->corrupt, 1u);
		sz_fence_acq_rel();
		if (sz_atomic_add_relaxed(&st->done, 1u) == gridDim.x - 1) {
			sz_fence_acq_rel();
			int32_t s = SPLITZIP_OK;
			if (sz_atomic_load_relaxed(&st->corrupt))
				s = SPLITZIP_ERROR_CORRUPT_STREAM;
			else if (want_sum &&
			         splitzip_hash_frame_final(n, sz_atomic_load_relaxed(&st->csum)) !=
			             sh[0].content_checksum)
				s = SPLITZIP_ERROR_CONTENT_CHECKSUM;
			a.statuses[f] = s;
			a.out_elems[f] = s == SPLITZIP_OK ? n : 0;
		}
	}
}

#endif /* SZ_GPU_KERNELS_CUH */
