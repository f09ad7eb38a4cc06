/*
 * sz_gpu_dtype_enc.cuh -- the GPU encoder of the dtypes FP8 E4M3, FP8 E5M2, FP16 and FP32
 * (doc/FORMAT.md 1.3, Dtype 2-5): stored, split4 and entropy frames, the mode rule of §6.3
 * and the content checksum, one source for CUDA, HIP and the CPU SIMT harness. Frames equal
 * splitzip_dtype_encode() (core/sz_dtype_codec.c) byte for byte; every offset comes from
 * core/sz_dtype_layout.h, the codes from core/sz_entropy.h and the block-parallel
 * package-merge of sz_gpu_entropy_enc.cuh.
 *
 * Launch sequence (sz_gpu_dt_compress, per launch of up to 65535 frames, blockIdx.y + frame0
 * the frame; arguments and workspace: sz_gpu_dtype_enc_args.h):
 *   dt_init    one block: the frame's arguments, its state and histogram zeroed
 *   dt_scan    many blocks, a group of 32 threads per chunk: the exponent histogram and the
 *              content checksum's chunk digests (hash lane j % 32 takes word j of the chunk)
 *   dt_plan    one block: the split4 codebook (§5.1, or the fixed one) and its escape count
 *              from the histogram; the entropy table (§5.2 by package-merge, or the fixed
 *              one), its canonical codes (§5.3), the encoder table and code-length section
 *   dt_count   many blocks, a group per chunk: each chunk's words (the decoder of §4.3.5
 *              replayed without writing: a refill below 11 bits before a symbol, below e
 *              bits before an escape's e raw bits) and escapes, its split4 escapes
 *   dt_decide  one block: running totals, the mode (§6.3: split4 or entropy only if strictly
 *              smaller than stored, entropy only if strictly smaller than split4), the
 *              capacity, the header, the chunk table, code lengths, the gaps, the result
 *   dt_write   many blocks, a group per chunk: the rest sections (§2.3), then the codes and
 *              escape records (split4, ranked by ballots) or the words (entropy, each lane
 *              reserving the chunk's next word where the decoder reads one for it, by
 *              ballots, as sz_k_ent_encode); or the stored frame's body
 * A group of 32 threads is one warp at W = 32 and half a wavefront at W = 64; every warp
 * operation runs in loops whose trip counts are the same for the whole warp.
 */
#ifndef SZ_GPU_DTYPE_ENC_CUH
#define SZ_GPU_DTYPE_ENC_CUH

#include "sz_gpu_dtype_enc_args.h"
#include "sz_gpu_entropy_enc.cuh" /* sz_ent_package_merge, the lane writer */

/* ---- Arguments ------------------------------------------------------------------------------ */

SZ_DEVICE const uint8_t *sz_dt_src(const sz_gpu_dt_enc &a, uint64_t f)
{
	return static_cast<const uint8_t *>(a.frames.srcs ? sz_gld_ptr(&a.frames.srcs[f])
	                                                  : a.frames.one.src);
}
SZ_DEVICE uint64_t sz_dt_n(const sz_gpu_dt_enc &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.n_elems[f]) : a.frames.one.n;
}
SZ_DEVICE uint8_t *sz_dt_dst(const sz_gpu_dt_enc &a, uint64_t f)
{
	return static_cast<uint8_t *>(a.frames.srcs ? sz_gld_ptr(&a.frames.dsts[f])
	                                            : a.frames.one.dst);
}
SZ_DEVICE uint64_t sz_dt_cap(const sz_gpu_dt_enc &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.dst_caps[f]) : a.frames.one.cap;
}
SZ_DEVICE uint8_t *sz_dt_ws(const sz_gpu_dt_enc &a, uint64_t f)
{
	return a.ws + a.ws_stride * f;
}
SZ_DEVICE sz_gpu_dt_state *sz_dt_state(const sz_gpu_dt_enc &a, uint64_t f)
{
	return reinterpret_cast<sz_gpu_dt_state *>(sz_dt_ws(a, f));
}
/* The per-chunk counts of the frame's slice: entropy words (set 0) or split4 escapes (1). */
SZ_DEVICE uint32_t *sz_dt_counts(const sz_gpu_dt_enc &a, uint64_t f, unsigned set)
{
	const uint64_t off =
	    set ? sz_gpu_dt_ws_esc4(a.max_elems, a.chunk_log2) : (uint64_t)SZ_GPU_DT_WS_WORDS;
	return reinterpret_cast<uint32_t *>(sz_dt_ws(a, f) + off);
}

/* ---- Elements ------------------------------------------------------------------------------- */

/* Element i (w bytes, little-endian, any alignment) of the input at p. */
SZ_DEVICE uint32_t sz_dt_elem(const uint8_t *p, uint64_t i, unsigned w)
{
	const uint8_t *q = p + w * i;
	if (w == 1)
		return sz_gldro_u8(q);
	if (w == 2 && sz_aligned(q, 2))
		return sz_gldro_u16(q);
	if (w == 4 && sz_aligned(q, 4))
		return sz_gldro_u32(q);
	uint32_t v = 0;
	for (unsigned k = 0; k < w; k++)
		v |= (uint32_t)sz_gldro_u8(q + k) << (8 * k);
	return v;
}

/* Word j (8 bytes, little-endian) of the 'bytes' bytes at p, bytes at or past the end read as
 * 0 (FORMAT.md §7.1). */
SZ_DEVICE uint64_t sz_dt_word(const uint8_t *p, uint64_t j, uint64_t bytes)
{
	const uint8_t *q = p + 8 * j;
	if (8 * j + 8 <= bytes && sz_aligned(q, 8))
		return sz_gldro_u64(q);
	uint64_t v = 0;
	for (unsigned k = 0; k < 8 && 8 * j + k < bytes; k++)
		v |= (uint64_t)sz_gldro_u8(q + k) << (8 * k);
	return v;
}

SZ_DEVICE void sz_dt_gst_le64(uint8_t *p, uint64_t v)
{
	if (sz_aligned(p, 8)) {
		sz_gst_u64(p, v);
	} else {
		sz_gst_le32(p, (uint32_t)v);
		sz_gst_le32(p + 4, (uint32_t)(v >> 32));
	}
}

/* The dtype row of the arguments (the caller checked the dtype). */
SZ_DEVICE splitzip_dtype_desc sz_dt_desc(const sz_gpu_dt_enc &a)
{
	splitzip_dtype_desc d;
	__builtin_memset(&d, 0, sizeof d);
	(void)sz_dt_desc_get(a.dtype, &d);
	return d;
}

/* ---- dt_init ------------------------------------------------------------------------------ */

/* Per frame (one block): the frame's own arguments (a batch's entries: INVALID_ARGUMENT as
 * splitzip_compress_batch_async), the state and the histogram zeroed. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_init(sz_gpu_dt_enc a)
{
	SZ_WARP_GUARD(W);
	const uint64_t f = a.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	uint8_t *ws = sz_dt_ws(a, f);
	sz_gst_u32(ws + SZ_GPU_DT_WS_HIST + 4 * t, 0);
	if (t != 0)
		return;
	sz_gpu_dt_state z;
	__builtin_memset(&z, 0, sizeof z);
	const uint64_t n = sz_dt_n(a, f);
	if (n > a.max_elems || n > SPLITZIP_MAX_FRAME_ELEMS || !sz_dt_dst(a, f) ||
	    (!sz_dt_src(a, f) && n)) {
		sz_put_result(a.frames.out_sizes, a.frames.statuses, f, 0,
		              SPLITZIP_ERROR_INVALID_ARGUMENT);
		z.skip = 1;
	}
	z.mode = SZ_GPU_DT_NONE;
	sz_gst_words(ws, &z, sizeof z);
}

/* ---- dt_scan ------------------------------------------------------------------------------ */

/* One chunk of 'len' elements at p by a group of 32 threads (thread hl): its exponents into
 * H, and its fold of the content checksum (the whole warp calls this, live or not). */
template <int W>
SZ_DEVICE uint64_t sz_dt_scan_chunk(const splitzip_dtype_desc &d, const uint8_t *p, uint64_t len,
                                    uint64_t c, unsigned hl, bool hash, uint32_t *H)
{
	const uint64_t bytes = d.width * len;
	const unsigned per = 8 / d.width;
	const uint32_t mask = d.width == 4 ? 0xFFFFFFFFu : (1u << (8 * d.width)) - 1;
	uint64_t acc = splitzip_hash_lane_init(hl);
	for (uint64_t j = hl; 8 * j < bytes; j += 32) {
		const uint64_t v = sz_dt_word(p, j, bytes);
		for (unsigned k = 0; k < per; k++)
			if ((uint64_t)per * j + k < len)
				sz_smem_atomic_add(
				    &H[sz_dt_exponent_of(
				        d.code, (uint32_t)(v >> (8 * d.width * k)) & mask)],
				    1u);
		if (hash)
			acc = splitzip_hash_round(acc, v);
	}
	if (!hash)
		return 0;
	uint64_t part = splitzip_hash_lane_fold(acc, hl);
	for (int k = 16; k > 0; k >>= 1)
		part += sz_shfl_xor<W>(sz_full_mask<W>(), part, k, 32);
	return splitzip_hash_chunk_fold(splitzip_hash_chunk_final(bytes, part), c);
}

/* Per frame, gridDim.x blocks, each a static range of chunks: the exponent histogram
 * (shared-memory counters, one global add per nonzero bin and block) and the checksum. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_scan(sz_gpu_dt_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(uint32_t, H, 256);
	SZ_SHARED_ARRAY(uint32_t, skip, 1);
	const uint64_t f = a.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x, hl = t & 31u, g = t / 32u;
	sz_gpu_dt_state *st = sz_dt_state(a, f);
	H[t] = 0;
	if (t == 0)
		skip[0] = sz_gld_u32(&st->skip);
	sz_syncthreads();
	if (skip[0])
		return;
	const splitzip_dtype_desc d = sz_dt_desc(a);
	const unsigned L = a.chunk_log2;
	const uint64_t n = sz_dt_n(a, f), C = splitzip_n_chunks(n, L), G = gridDim.x;
	const uint64_t c0 = C * blockIdx.x / G, c1 = C * (blockIdx.x + 1) / G;
	const bool hash = (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	const uint8_t *src = sz_dt_src(a, f);
	for (uint64_t cb = c0; cb < c1; cb += SZ_ENT_GROUPS) {
		const uint64_t c = cb + g;
		const bool live = c < c1;
		const uint64_t len = live ? splitzip_chunk_len(n, L, c) : 0;
		const uint64_t fold =
		    sz_dt_scan_chunk<W>(d, src + d.width * (c << L), len, c, hl, hash, H);
		if (hash && live && hl == 0)
			sz_atomic_add_relaxed(&st->csum, fold);
	}
	sz_syncthreads();
	if (H[t])
		sz_atomic_add_relaxed(
		    reinterpret_cast<uint32_t *>(sz_dt_ws(a, f) + SZ_GPU_DT_WS_HIST) + t, H[t]);
}

/* ---- dt_plan ------------------------------------------------------------------------------ */

struct sz_dt_plan_smem {
	sz_ent_pm_smem P;
	uint32_t hist[256];
	uint16_t code[SPLITZIP_ENTROPY_SYMBOLS + 1];
	uint32_t count[SZ_ENTROPY_L + 1], next[SZ_ENTROPY_L + 1];
	uint8_t sel[256];
	uint32_t hits, skip, first, last;
};

/*
 * The split4 side (block): the codebook -- the 16 exponents first by count descending, then
 * exponent ascending (§5.1), or the fixed one -- as the code table of each exponent, and the
 * elements it covers (S.hits).
 */
SZ_DEVICE void sz_dt_plan_split4(sz_dt_plan_smem &S, const sz_gpu_dt_enc &a, uint8_t *ws)
{
	const unsigned t = threadIdx.x;
	const uint32_t ht = S.hist[t];
	uint32_t code = 0;
	bool in = false;
	if (a.split4.from_input) {
		uint32_t r = 0;
		for (unsigned e = 0; e < 256; e++)
			r += S.hist[e] > ht || (S.hist[e] == ht && e < t);
		S.sel[t] = r < 16;
		sz_syncthreads();
		in = S.sel[t] != 0;
		for (unsigned e = 0; e < t; e++)
			code += S.sel[e];
	} else {
		for (unsigned k = 0; k < 16; k++)
			if (a.split4.codebook[k] == t) {
				in = true;
				code = k;
			}
	}
	sz_gst_u8(ws + SZ_GPU_DT_WS_CODE + t, in ? (uint8_t)(code | SZ_DT_IN_CB) : 0);
	if (in && ht)
		sz_smem_atomic_add(&S.hits, ht);
	sz_syncthreads();
}

/* The canonical codes of the lengths in S.P.len (FORMAT.md §5.3, as splitzip_entropy_codes):
 * the first code of each length, then a symbol's code is that plus the number of symbols of
 * its length below it. Also the exponent range of the table. */
SZ_DEVICE void sz_dt_codes(sz_dt_plan_smem &S)
{
	const unsigned t = threadIdx.x;
	const uint8_t *len = S.P.len;
	if (t <= SZ_ENTROPY_L)
		S.count[t] = 0;
	sz_syncthreads();
	for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS)
		if (len[s])
			sz_smem_atomic_add(&S.count[len[s]], 1u);
	sz_syncthreads();
	if (t == 0) {
		uint32_t c = 0, prev = 0;
		for (unsigned l = 1; l <= SZ_ENTROPY_L; l++) {
			c = (c + prev) << 1;
			S.next[l] = c;
			prev = S.count[l];
		}
		unsigned lo = 255, hi = 0;
		for (unsigned e = 0; e < 256; e++)
			if (len[e]) {
				lo = e < lo ? e : lo;
				hi = e;
			}
		S.first = lo;
		S.last = hi;
	}
	sz_syncthreads();
	for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS) {
		const unsigned l = len[s];
		uint32_t r = 0;
		for (unsigned q = 0; q < s && l; q++)
			r += len[q] == l;
		S.code[s] = l ? (uint16_t)(S.next[l] + r) : 0;
	}
	sz_syncthreads();
}

/* The entropy side (block): the lengths (package-merge of §5.2 on the histogram with weight 1
 * for the escape symbol, or the fixed table), the canonical codes (§5.3), the encoder table
 * and the code-length section (§4.3.3) into the workspace. */
SZ_DEVICE void sz_dt_plan_entropy(sz_dt_plan_smem &S, const sz_gpu_dt_enc &a, uint8_t *ws)
{
	const unsigned t = threadIdx.x;
	sz_ent_pm_smem &P = S.P;
	if (a.entropy.from_input) {
		P.w[t] = S.hist[t];
		const int m = sz_syncthreads_count(S.hist[t] != 0);
		if (t == 0) {
			P.w[SPLITZIP_ENTROPY_ESC] = 1;
			P.m = (uint32_t)m + 1;
		}
		sz_syncthreads();
		sz_ent_package_merge(P);
	} else {
		for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS)
			P.len[s] = a.entropy.table[s];
	}
	sz_syncthreads();
	sz_dt_codes(S);
	const unsigned le = P.len[SPLITZIP_ENTROPY_ESC], l = P.len[t];
	const uint32_t sym = l ? splitzip_entropy_reverse(S.code[t], l) |
	                             (uint32_t)l << SPLITZIP_ENTROPY_ENC_LEN_SHIFT
	                       : splitzip_entropy_reverse(S.code[SPLITZIP_ENTROPY_ESC], le) |
	                             (uint32_t)le << SPLITZIP_ENTROPY_ENC_LEN_SHIFT |
	                             SPLITZIP_ENTROPY_ENC_ESCAPE;
	sz_gst_u32(ws + SZ_GPU_DT_WS_SYM + 4 * t, sym);
	const unsigned K = S.last - S.first + 1, bytes = (K + 1) / 2;
	if (t < bytes) {
		uint32_t v = P.len[S.first + 2 * t];
		if (2 * t + 1 < K)
			v |= (uint32_t)P.len[S.first + 2 * t + 1] << 4;
		sz_gst_u8(ws + SZ_GPU_DT_WS_LENS + t, (uint8_t)v);
	}
	if (t == 0) {
		sz_gpu_dt_state *st = reinterpret_cast<sz_gpu_dt_state *>(ws);
		sz_gst_u32(&st->first, S.first);
		sz_gst_u32(&st->last, S.last);
		sz_gst_u32(&st->lbytes, bytes);
		sz_gst_u32(&st->esc_len, le);
	}
}

/* Per frame (one block): the candidates of the encoding (FORMAT.md §6.3: split4 not for E4M3
 * nor the entropy encoding, entropy not for the split4 encoding, none for n = 0). */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_plan(sz_gpu_dt_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dt_plan_smem, S, 1);
	const uint64_t f = a.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	uint8_t *ws = sz_dt_ws(a, f);
	sz_gpu_dt_state *st = sz_dt_state(a, f);
	if (t == 0) {
		S[0].skip = sz_gld_u32(&st->skip);
		S[0].hits = 0;
	}
	S[0].hist[t] = sz_gld_u32(ws + SZ_GPU_DT_WS_HIST + 4 * t);
	sz_syncthreads();
	if (S[0].skip)
		return;
	const splitzip_dtype_desc d = sz_dt_desc(a);
	const uint64_t n = sz_dt_n(a, f);
	const bool has4 = n && a.encoding != SPLITZIP_ENCODING_ENTROPY && d.split4;
	const bool has2 = n && a.encoding != SPLITZIP_ENCODING_SPLIT4;
	if (has4)
		sz_dt_plan_split4(S[0], a, ws);
	if (has2)
		sz_dt_plan_entropy(S[0], a, ws);
	if (t == 0) {
		sz_gst_u32(&st->has4, has4);
		sz_gst_u32(&st->has2, has2);
		sz_gst_u64(&st->e4, has4 ? n - S[0].hits : 0);
	}
}

/* ---- dt_count and dt_write: the block's view of the frame --------------------------------- */

struct sz_dt_enc_smem {
	uint32_t sym[256];
	uint8_t code[256];
	sz_gpu_dt_state st;
	uint32_t esc;
};

/* The frame's state and tables into shared memory; false (block-uniform) if the frame has
 * nothing to do here. */
SZ_DEVICE bool sz_dt_block_setup(sz_dt_enc_smem &S, const sz_gpu_dt_enc &a, uint64_t f)
{
	const unsigned t = threadIdx.x;
	const uint8_t *ws = sz_dt_ws(a, f);
	S.sym[t] = sz_gld_u32(ws + SZ_GPU_DT_WS_SYM + 4 * t);
	S.code[t] = sz_gld_u8(ws + SZ_GPU_DT_WS_CODE + t);
	if (t == 0) { /* not e2 nor csum: other blocks of dt_count and dt_scan add to them */
		const sz_gpu_dt_state *st = reinterpret_cast<const sz_gpu_dt_state *>(ws);
		S.st.skip = sz_gld_u32(&st->skip);
		S.st.mode = sz_gld_u32(&st->mode);
		S.st.has4 = sz_gld_u32(&st->has4);
		S.st.has2 = sz_gld_u32(&st->has2);
		S.st.first = sz_gld_u32(&st->first);
		S.st.last = sz_gld_u32(&st->last);
		S.st.lbytes = sz_gld_u32(&st->lbytes);
		S.st.esc_len = sz_gld_u32(&st->esc_len);
		S.st.e4 = sz_gld_u64(&st->e4);
		S.st.words = sz_gld_u64(&st->words);
		S.esc = 0;
	}
	sz_syncthreads();
	return S.st.skip == 0;
}

/* The chunk loop of a block: chunks [C b / G, C (b + 1) / G), group g taking c0 + g,
 * c0 + g + SZ_ENT_GROUPS, ... */
struct sz_dt_chunks {
	uint64_t c0, c1;
};
SZ_DEVICE sz_dt_chunks sz_dt_block_chunks(uint64_t n, unsigned L)
{
	const uint64_t C = splitzip_n_chunks(n, L), G = gridDim.x, b = blockIdx.x;
	return sz_dt_chunks{C * b / G, C * (b + 1) / G};
}

/* One chunk's entropy words and escapes, and its split4 escapes, as thread hl of its group
 * counts them for its lane (elements hl, hl + 32, ...). */
struct sz_dt_count {
	uint32_t words, esc2, esc4;
};
SZ_DEVICE sz_dt_count sz_dt_count_lane(const sz_dt_enc_smem &S, const splitzip_dtype_desc &d,
                                       const uint8_t *p, uint32_t len, unsigned hl)
{
	sz_dt_count r = {0, 0, 0};
	uint32_t held = 0;
	for (uint32_t i = hl; i < len; i += 32) {
		const unsigned x = sz_dt_exponent_of(d.code, sz_dt_elem(p, i, d.width));
		if (S.st.has2) {
			const uint32_t e = S.sym[x];
			if (held < SPLITZIP_ENTROPY_REFILL_SYMBOL) {
				held += SPLITZIP_ENTROPY_WORD_BITS;
				r.words++;
			}
			held -= (e >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xFFu;
			if (e & SPLITZIP_ENTROPY_ENC_ESCAPE) {
				if (held < d.ebits) {
					held += SPLITZIP_ENTROPY_WORD_BITS;
					r.words++;
				}
				held -= d.ebits;
				r.esc2++;
			}
		}
		if (S.st.has4)
			r.esc4 += !(S.code[x] & SZ_DT_IN_CB);
	}
	return r;
}

/* Per frame, gridDim.x blocks, a group per chunk: each chunk's entropy words and split4
 * escapes into the workspace, the entropy escape total into the state. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_count(sz_gpu_dt_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dt_enc_smem, S, 1);
	const uint64_t f = a.frame0 + blockIdx.y;
	if (!sz_dt_block_setup(S[0], a, f))
		return;
	const unsigned t = threadIdx.x, hl = t & 31u, g = t / 32u, L = a.chunk_log2;
	const splitzip_dtype_desc d = sz_dt_desc(a);
	const uint64_t n = sz_dt_n(a, f);
	const sz_dt_chunks r = sz_dt_block_chunks(n, L);
	const uint8_t *src = sz_dt_src(a, f);
	uint32_t *wc = sz_dt_counts(a, f, 0), *ec = sz_dt_counts(a, f, 1);
	uint32_t esc2 = 0;
	for (uint64_t cb = r.c0; cb < r.c1; cb += SZ_ENT_GROUPS) {
		const uint64_t c = cb + g;
		const bool live = c < r.c1;
		const uint32_t len = live ? (uint32_t)splitzip_chunk_len(n, L, c) : 0;
		sz_dt_count k = sz_dt_count_lane(S[0], d, src + d.width * (c << L), len, hl);
		esc2 += k.esc2;
		for (int m = 16; m > 0; m >>= 1) {
			k.words += sz_shfl_xor<W>(sz_full_mask<W>(), k.words, m, 32);
			k.esc4 += sz_shfl_xor<W>(sz_full_mask<W>(), k.esc4, m, 32);
		}
		if (live && hl == 0) {
			sz_gst_u32(wc + c, k.words);
			sz_gst_u32(ec + c, k.esc4);
		}
	}
	if (esc2)
		sz_smem_atomic_add(&S[0].esc, esc2);
	sz_syncthreads();
	if (t == 0 && S[0].esc)
		sz_atomic_add_relaxed(&sz_dt_state(a, f)->e2, (uint64_t)S[0].esc);
}

/* ---- dt_decide ---------------------------------------------------------------------------- */

/* The layout of the frame in 'mode' (split4 or entropy) with the state's counts. */
SZ_DEVICE void sz_dt_mode_layout(const splitzip_dtype_desc &d, const sz_gpu_dt_state &st,
                                 uint64_t n, unsigned L, unsigned mode, sz_dt_layout *lay)
{
	if (mode == SPLITZIP_MODE_SPLIT4)
		sz_dt_split4_layout(&d, n, L, st.e4, lay);
	else
		sz_dt_entropy_layout(&d, n, L, st.words, st.first, st.last, lay);
}

/* Gap k (0..5) of a frame: the zero bytes between its sections (FORMAT.md §4.1, §4.2.6,
 * §4.3.7), each shorter than 16 bytes; [*a, *b), empty when the frame has no such gap. */
SZ_DEVICE void sz_dt_gap(const splitzip_dtype_desc &d, const sz_gpu_dt_state &st, uint64_t n,
                         const sz_dt_layout &lay, unsigned k, uint64_t *a, uint64_t *b)
{
	*a = *b = 0;
	if (st.mode == SPLITZIP_MODE_STORED) {
		if (k == 0) {
			*a = SPLITZIP_FRAME_HEADER_SIZE + d.width * n;
			*b = sz_dt_stored_size(&d, n);
		}
		return;
	}
	const bool s4 = st.mode == SPLITZIP_MODE_SPLIT4, two = d.n_rest > 1;
	const uint64_t after_rest = s4 ? lay.table : lay.lengths;
	switch (k) {
	case 0: /* after the first rest section */
		*a = lay.rest_end[0];
		*b = two ? lay.rest[1] : after_rest;
		break;
	case 1: /* after the second */
		*a = two ? lay.rest_end[1] : 0;
		*b = two ? after_rest : 0;
		break;
	case 2: /* after the chunk table */
		*a = lay.table + 4 * lay.n_chunks;
		*b = s4 ? lay.positions : lay.stream;
		break;
	case 3: /* after the escape positions, or the code lengths */
		*a = s4 ? lay.positions + 2 * st.e4 : lay.lengths + st.lbytes;
		*b = s4 ? lay.exponents : lay.table;
		break;
	case 4: /* at the end */
		*a = s4 ? lay.exponents + st.e4 : lay.stream + 2 * st.words;
		*b = lay.size;
		break;
	default: /* after the codes */
		*a = s4 ? lay.codes + (n + 1) / 2 : 0;
		*b = s4 ? lay.rest[0] : 0;
	}
}

/* Thread 0 of the decision: the mode of FORMAT.md §6.3 from the candidates' sizes (ties to
 * the simpler mode), the capacity, the header and the result. Returns the mode, or
 * SZ_GPU_DT_NONE (DST_TOO_SMALL). */
SZ_DEVICE uint32_t sz_dt_choose(const sz_gpu_dt_enc &a, uint64_t f, const splitzip_dtype_desc &d,
                                sz_gpu_dt_state &st, uint8_t *hb, const uint8_t *cb)
{
	const uint64_t n = sz_dt_n(a, f);
	const unsigned L = a.chunk_log2;
	uint32_t mode = SPLITZIP_MODE_STORED;
	uint64_t size = sz_dt_stored_size(&d, n);
	sz_dt_layout lay;
	if (st.has4) {
		sz_dt_mode_layout(d, st, n, L, SPLITZIP_MODE_SPLIT4, &lay);
		if (lay.size < size) {
			mode = SPLITZIP_MODE_SPLIT4;
			size = lay.size;
		}
	}
	if (st.has2 && st.words <= 0xFFFFFFFFu) {
		sz_dt_mode_layout(d, st, n, L, SPLITZIP_MODE_ENTROPY, &lay);
		if (lay.size < size) {
			mode = SPLITZIP_MODE_ENTROPY;
			size = lay.size;
		}
	}
	if (size > sz_dt_cap(a, f)) {
		sz_put_result(a.frames.out_sizes, a.frames.statuses, f, 0,
		              SPLITZIP_ERROR_DST_TOO_SMALL);
		return SZ_GPU_DT_NONE;
	}
	splitzip_header h;
	splitzip_header_init(&h, mode, L, a.flags, n);
	h.dtype = (uint8_t)d.code;
	h.frame_size = size;
	if (mode == SPLITZIP_MODE_SPLIT4) {
		for (unsigned k = 0; k < 16; k++)
			h.codebook[k] = cb[k];
		h.n_escapes = (uint32_t)st.e4;
	} else if (mode == SPLITZIP_MODE_ENTROPY) {
		h.n_escapes = (uint32_t)st.e2;
		h.n_words = (uint32_t)st.words;
		h.table_first = (uint8_t)st.first;
		h.table_last = (uint8_t)st.last;
		h.escape_length = (uint8_t)st.esc_len;
	}
	if (a.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum = splitzip_hash_frame_final(n, st.csum);
	sz_gpu_put_header(sz_dt_dst(a, f), hb, h);
	sz_put_result(a.frames.out_sizes, a.frames.statuses, f, size, SPLITZIP_OK);
	return mode;
}

struct sz_dt_decide_smem {
	uint64_t pw[SZ_GPU_THREADS + 1], pe[SZ_GPU_THREADS + 1];
	sz_gpu_dt_state st;
	uint8_t hb[SPLITZIP_FRAME_HEADER_SIZE];
	uint8_t cb[16]; /* split4: the codebook, from the code table */
};

/* The running totals of the per-chunk counts (exclusive per thread range in P.pw, P.pe;
 * totals at index SZ_GPU_THREADS), by thread 0 over the threads' sums. */
SZ_DEVICE void sz_dt_scan_parts(sz_dt_decide_smem &P)
{
	uint64_t rw = 0, re = 0;
	for (unsigned i = 0; i < SZ_GPU_THREADS; i++) {
		const uint64_t vw = P.pw[i], ve = P.pe[i];
		P.pw[i] = rw;
		P.pe[i] = re;
		rw += vw;
		re += ve;
	}
	P.pw[SZ_GPU_THREADS] = rw;
	P.pe[SZ_GPU_THREADS] = re;
}

/* Per frame (one block): the running totals, Stream_Words, the mode and the result (thread
 * 0), then the chunk table of the mode, the code lengths and every gap. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_decide(sz_gpu_dt_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dt_decide_smem, P, 1);
	const uint64_t f = a.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	uint8_t *ws = sz_dt_ws(a, f), *dst = sz_dt_dst(a, f);
	if (t == 0)
		sz_gld_words(&P[0].st, ws, sizeof P[0].st);
	sz_syncthreads();
	if (P[0].st.skip)
		return;
	const splitzip_dtype_desc d = sz_dt_desc(a);
	const uint64_t n = sz_dt_n(a, f), C = splitzip_n_chunks(n, a.chunk_log2);
	const uint64_t k0 = C * t / SZ_GPU_THREADS, k1 = C * (t + 1) / SZ_GPU_THREADS;
	uint32_t *wc = sz_dt_counts(a, f, 0), *ec = sz_dt_counts(a, f, 1);
	uint64_t sw = 0, se = 0;
	for (uint64_t c = k0; c < k1; c++) {
		sw += P[0].st.has2 ? sz_gld_u32(wc + c) : 0;
		se += P[0].st.has4 ? sz_gld_u32(ec + c) : 0;
	}
	P[0].pw[t] = sw;
	P[0].pe[t] = se;
	if (P[0].st.has4) {
		const uint8_t k = sz_gld_u8(ws + SZ_GPU_DT_WS_CODE + t);
		if (k & SZ_DT_IN_CB)
			P[0].cb[k & 0xFu] = (uint8_t)t;
	}
	sz_syncthreads();
	if (t == 0) {
		sz_dt_scan_parts(P[0]);
		P[0].st.words = P[0].pw[SZ_GPU_THREADS];
		P[0].st.mode = sz_dt_choose(a, f, d, P[0].st, P[0].hb, P[0].cb);
		sz_gst_u64(&sz_dt_state(a, f)->words, P[0].st.words);
		sz_gst_u32(&sz_dt_state(a, f)->mode, P[0].st.mode);
	}
	sz_syncthreads();
	const sz_gpu_dt_state &st = P[0].st;
	if (st.mode == SZ_GPU_DT_NONE)
		return;
	sz_dt_layout lay;
	__builtin_memset(&lay, 0, sizeof lay);
	if (st.mode != SPLITZIP_MODE_STORED)
		sz_dt_mode_layout(d, st, n, a.chunk_log2, st.mode, &lay);
	if (st.mode != SPLITZIP_MODE_STORED) { /* §4.2.3, §4.3.4: running totals */
		const bool s4 = st.mode == SPLITZIP_MODE_SPLIT4;
		uint32_t *cnt = s4 ? ec : wc;
		uint64_t run = s4 ? P[0].pe[t] : P[0].pw[t];
		for (uint64_t c = k0; c < k1; c++) {
			run += sz_gld_u32(cnt + c);
			sz_gst_u32(cnt + c, (uint32_t)run);
			sz_gst_le32(dst + lay.table + 4 * c, (uint32_t)run);
		}
	}
	if (st.mode == SPLITZIP_MODE_ENTROPY && t < st.lbytes)
		sz_gst_u8(dst + lay.lengths + t, sz_gld_u8(ws + SZ_GPU_DT_WS_LENS + t));
	if (t < SPLITZIP_SECTION_ALIGN)
		for (unsigned k = 0; k < 6; k++) {
			uint64_t ga, gb;
			sz_dt_gap(d, st, n, lay, k, &ga, &gb);
			if (ga + t < gb)
				sz_gst_u8(dst + ga + t, 0);
		}
}

/* ---- dt_write ----------------------------------------------------------------------------- */

/* Rest field k of element i of the chunk at p. */
SZ_DEVICE unsigned sz_dt_rest_at(const splitzip_dtype_desc &d, const uint8_t *p, uint64_t i,
                                 unsigned k)
{
	return sz_dt_rest_of(d.code, k, sz_dt_elem(p, i, d.width));
}

/* Rest section k (of kind 'kind', at 'sec') of the chunk of 'len' elements at element 'base'
 * (a multiple of 64), by thread hl of its group, pads included. */
SZ_DEVICE void sz_dt_put_section(const splitzip_dtype_desc &d, unsigned k, unsigned kind,
                                 uint8_t *sec0, const uint8_t *p, uint64_t base, uint32_t len,
                                 unsigned hl)
{
	uint8_t *sec = sec0 + sz_dt_rest_size(kind, base);
	if (kind == SZ_REST_SM || kind == SZ_REST_LO8) {
		for (uint32_t i = hl; i < len; i += 32)
			sz_gst_u8(sec + i, (uint8_t)sz_dt_rest_at(d, p, i, k));
	} else if (kind == SZ_REST_LO16) {
		for (uint32_t i = hl; i < len; i += 32)
			sz_gst_le16(sec + 2 * i, sz_dt_rest_at(d, p, i, k));
	} else if (kind == SZ_REST_NIB) {
		for (uint32_t q = hl; 2 * q < len; q += 32) {
			uint32_t v = sz_dt_rest_at(d, p, 2 * q, k);
			if (2 * q + 1 < len)
				v |= sz_dt_rest_at(d, p, 2 * q + 1, k) << 4;
			sz_gst_u8(sec + q, (uint8_t)v);
		}
	} else { /* PL3: the three planes of group q */
		for (uint32_t q = hl; 64 * q < len; q += 32) {
			uint64_t p0 = 0, p1 = 0, p2 = 0;
			for (uint32_t j = 0; j < 64 && 64 * q + j < len; j++) {
				const uint64_t r = sz_dt_rest_at(d, p, 64 * q + j, k);
				p0 |= (r & 1u) << j;
				p1 |= ((r >> 1) & 1u) << j;
				p2 |= ((r >> 2) & 1u) << j;
			}
			sz_dt_gst_le64(sec + 24 * q, p0);
			sz_dt_gst_le64(sec + 24 * q + 8, p1);
			sz_dt_gst_le64(sec + 24 * q + 16, p2);
		}
	}
}

/* The rest sections (§2.3) of a chunk. */
SZ_DEVICE void sz_dt_put_rest(const splitzip_dtype_desc &d, const sz_dt_layout &lay,
                              const uint8_t *p, uint8_t *dst, uint64_t base, uint32_t len,
                              unsigned hl)
{
	sz_dt_put_section(d, 0, d.rest[0], dst + lay.rest[0], p, base, len, hl);
	if (d.n_rest > 1)
		sz_dt_put_section(d, 1, d.rest[1], dst + lay.rest[1], p, base, len, hl);
}

/* The steps (of 32 elements) the warp runs for its chunks: the larger of its two groups' at
 * W = 64, so that every ballot has the whole warp. */
template <int W> SZ_DEVICE uint32_t sz_dt_warp_steps(uint32_t len)
{
	const uint32_t s = (len + 31) / 32;
	const uint32_t o = sz_shfl_xor<W>(sz_full_mask<W>(), s, (W / 2) & 32);
	return o > s ? o : s;
}

/* A split4 chunk (§4.2.1, §4.2.4, §4.2.5): its codes, and its escape records from record
 * 'r0' on, ranked by ballots in element order. */
template <int W>
SZ_DEVICE void sz_dt_put_split4(const sz_dt_enc_smem &S, const splitzip_dtype_desc &d,
                                const sz_dt_layout &lay, const uint8_t *p, uint8_t *dst,
                                uint64_t base, uint32_t len, uint32_t r0)
{
	const unsigned lane = sz_lane<W>(), hl = lane & 31u, sh = lane & 32u;
	const uint32_t lt = (1u << hl) - 1;
	for (uint32_t q = hl; 2 * q < len; q += 32) {
		uint32_t v =
		    S.code[sz_dt_exponent_of(d.code, sz_dt_elem(p, 2 * q, d.width))] & 0xFu;
		if (2 * q + 1 < len)
			v |= (S.code[sz_dt_exponent_of(d.code, sz_dt_elem(p, 2 * q + 1, d.width))] &
			      0xFu)
			     << 4;
		sz_gst_u8(dst + lay.codes + base / 2 + q, (uint8_t)v);
	}
	const uint32_t steps = sz_dt_warp_steps<W>(len);
	uint32_t r = r0;
	for (uint32_t s = 0; s < steps; s++) {
		const uint32_t i = 32 * s + hl;
		const unsigned x =
		    i < len ? sz_dt_exponent_of(d.code, sz_dt_elem(p, i, d.width)) : 0;
		const bool esc = i < len && !(S.code[x] & SZ_DT_IN_CB);
		const uint32_t m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), esc) >> sh);
		if (esc) {
			const uint32_t k = r + (uint32_t)sz_popc64(m & lt);
			sz_gst_le16(dst + lay.positions + 2 * (uint64_t)k, i);
			sz_gst_u8(dst + lay.exponents + k, (uint8_t)x);
		}
		r += (uint32_t)sz_popc64(m);
	}
}

/* An entropy chunk's words (§4.3.5) at 'words': per step, the decoder's reads as ballots (a
 * lane reserves the chunk's next word where the decoder reads one for it, lanes in order),
 * each finished word stored at its place, the last bits of each lane zero-padded. */
template <int W>
SZ_DEVICE void sz_dt_put_entropy(const sz_dt_enc_smem &S, const splitzip_dtype_desc &d,
                                 const uint8_t *p, uint8_t *words, uint32_t len)
{
	const unsigned lane = sz_lane<W>(), hl = lane & 31u, sh = lane & 32u;
	const uint32_t lt = (1u << hl) - 1;
	const uint32_t steps = sz_dt_warp_steps<W>(len);
	sz_ent_lane ln = {0, 0, 0, 0, 0, 0};
	uint32_t next = 0;
	for (uint32_t s = 0; s < steps; s++) {
		const uint32_t i = 32 * s + hl;
		const bool act = i < len;
		const unsigned x = act ? sz_dt_exponent_of(d.code, sz_dt_elem(p, i, d.width)) : 0;
		const uint32_t e = act ? S.sym[x] : 0;
		const bool esc = (e & SPLITZIP_ENTROPY_ENC_ESCAPE) != 0;
		bool need = act && ln.held < SPLITZIP_ENTROPY_REFILL_SYMBOL;
		uint32_t m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
		if (need)
			sz_ent_reserve(ln, next + (uint32_t)sz_popc64(m & lt));
		next += (uint32_t)sz_popc64(m);
		if (act)
			sz_ent_put(ln, e & 0xFFFFu, (e >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xFFu,
			           words);
		need = esc && ln.held < d.ebits;
		m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
		if (need)
			sz_ent_reserve(ln, next + (uint32_t)sz_popc64(m & lt));
		next += (uint32_t)sz_popc64(m);
		if (esc)
			sz_ent_put(ln, x, d.ebits, words);
	}
	if (ln.open) {
		sz_gst_le16(words + 2 * (uint64_t)ln.s0, ln.acc & 0xFFFFu);
		if (ln.open > 1)
			sz_gst_le16(words + 2 * (uint64_t)ln.s1, 0);
	}
}

/* The stored frame's body (§4.1): the input behind the header, by the frame's whole grid. */
SZ_DEVICE void sz_dt_put_stored(const uint8_t *src, uint8_t *dst, uint64_t bytes)
{
	uint8_t *d8 = dst + SPLITZIP_FRAME_HEADER_SIZE;
	const uint64_t gt = (uint64_t)blockIdx.x * SZ_GPU_THREADS + threadIdx.x;
	const uint64_t gs = (uint64_t)gridDim.x * SZ_GPU_THREADS;
	uint64_t done = 0;
	if (sz_aligned(src, 16) && sz_aligned(dst, 16)) {
		for (uint64_t u = gt; u < bytes / 16; u += gs)
			sz_gst_x4(d8 + 16 * u, sz_gldro_x4(src + 16 * u));
		done = bytes / 16 * 16;
	}
	for (uint64_t i = done + gt; i < bytes; i += gs)
		sz_gst_u8(d8 + i, sz_gldro_u8(src + i));
}

/* Per frame, gridDim.x blocks, after the decision: the body of the frame in its mode. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_write(sz_gpu_dt_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dt_enc_smem, S, 1);
	const uint64_t f = a.frame0 + blockIdx.y;
	if (!sz_dt_block_setup(S[0], a, f))
		return;
	const sz_gpu_dt_state &st = S[0].st;
	const splitzip_dtype_desc d = sz_dt_desc(a);
	const unsigned L = a.chunk_log2, hl = threadIdx.x & 31u, g = threadIdx.x / 32u;
	const uint64_t n = sz_dt_n(a, f);
	const uint8_t *src = sz_dt_src(a, f);
	uint8_t *dst = sz_dt_dst(a, f);
	if (st.mode == SPLITZIP_MODE_STORED)
		sz_dt_put_stored(src, dst, d.width * n);
	if (st.mode != SPLITZIP_MODE_SPLIT4 && st.mode != SPLITZIP_MODE_ENTROPY)
		return;
	const bool s4 = st.mode == SPLITZIP_MODE_SPLIT4;
	sz_dt_layout lay;
	sz_dt_mode_layout(d, st, n, L, st.mode, &lay);
	const uint32_t *T = sz_dt_counts(a, f, s4 ? 1 : 0);
	const sz_dt_chunks r = sz_dt_block_chunks(n, L);
	for (uint64_t cb = r.c0; cb < r.c1; cb += SZ_ENT_GROUPS) {
		const uint64_t c = cb + g, base = c << L;
		const bool live = c < r.c1;
		const uint32_t len = live ? (uint32_t)splitzip_chunk_len(n, L, c) : 0;
		const uint32_t before = live && c ? sz_gld_u32(T + c - 1) : 0;
		const uint8_t *p = src + d.width * base;
		if (live)
			sz_dt_put_rest(d, lay, p, dst, base, len, hl);
		if (s4)
			sz_dt_put_split4<W>(S[0], d, lay, p, dst, base, len, before);
		else
			sz_dt_put_entropy<W>(S[0], d, p, dst + lay.stream + 2 * (uint64_t)before,
			                     len);
	}
}

/* ---- Launch sequence ---------------------------------------------------------------------- */

/*
 * Enqueue the compression of n_frames frames of a.dtype described by 'a' (frames, workspace,
 * parameters; the caller has checked the host-side arguments): the kernels above per launch of
 * up to 65535 frames, each multi-block kernel on a share of one wave of its own blocks per
 * frame, at most one block per SZ_ENT_GROUPS chunks of the largest frame.
 */
template <int W, class Launcher>
void sz_gpu_dt_compress(Launcher &lc, sz_gpu_dt_enc a, uint64_t n_frames)
{
	a.ws_stride = sz_gpu_dt_ws_stride(a.max_elems, a.chunk_log2);
	const uint64_t groups =
	    (splitzip_n_chunks(a.max_elems, a.chunk_log2) + SZ_ENT_GROUPS - 1) / SZ_ENT_GROUPS;
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf = sz_gpu_launch_frames(n_frames, f0);
		a.frame0 = (uint32_t)f0;
		const sz_gpu_dim one{1, nf};
		lc.launch("dt_init", one, SZ_GPU_THREADS, sz_k_dt_init<W>, a);
		lc.launch("dt_scan", sz_gpu_grid(lc, sz_k_dt_scan<W>, nf, groups), SZ_GPU_THREADS,
		          sz_k_dt_scan<W>, a);
		lc.launch("dt_plan", one, SZ_GPU_THREADS, sz_k_dt_plan<W>, a);
		lc.launch("dt_count", sz_gpu_grid(lc, sz_k_dt_count<W>, nf, groups), SZ_GPU_THREADS,
		          sz_k_dt_count<W>, a);
		lc.launch("dt_decide", one, SZ_GPU_THREADS, sz_k_dt_decide<W>, a);
		lc.launch("dt_write", sz_gpu_grid(lc, sz_k_dt_write<W>, nf, groups), SZ_GPU_THREADS,
		          sz_k_dt_write<W>, a);
	}
}

#endif /* SZ_GPU_DTYPE_ENC_CUH */
