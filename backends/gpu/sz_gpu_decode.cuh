/*
 * sz_gpu_decode.cuh -- the GPU decoder of stored and split4 frames, and the decode kernels
 * (the entropy frames' chunk decoder is sz_gpu_entropy_dec.cuh), one source for CUDA, HIP and
 * the CPU SIMT harness. Launch sequences: sz_gpu_driver.cuh; the one-block-per-frame kernel of
 * batches: sz_gpu_batch.cuh.
 *
 * sz_k_dec_init parses and checks each frame's header once (FORMAT.md §3.2-3.3) and its
 * padding (§4.2.7 rule 1); sz_k_decode's warps decode whole chunks: the chunk's table entries
 * are checked before use (rule 2), its escape records in batches of W (rule 3) before they
 * patch the decoded registers, so the dense path never goes through shared memory and chunks
 * without escapes skip the patch. Every block adds its checksum folds and corruption flag, and
 * the last block of a frame (acq_rel done counter) writes the status: a broken body rule comes
 * before the content checksum (§3.3 step 15).
 */
#ifndef SZ_GPU_DECODE_CUH
#define SZ_GPU_DECODE_CUH

#include "sz_gpu_entropy_dec.cuh"

template <int W> struct sz_dec_smem {
	enum { NW = SZ_GPU_THREADS / W };
	sz_dec_frame fr;
	uint64_t wsum[NW];
	uint32_t wbad[NW];
	uint32_t wesc[NW]; /* escapes of an entropy frame's chunks, per warp */
	uint32_t bad;
	uint8_t hdr[SPLITZIP_FRAME_HEADER_SIZE];
};

/* Status of a frame that the other decode kernel handles (in shared memory only): the
 * entropy kernels (ENT) take the frames whose header passed and whose mode is 2, the others
 * every other frame, so that each has its own registers and shared memory. */
#define SZ_DEC_NOT_MINE (-1)
/* Blocks per multiprocessor the decode kernels ask for (CUDA): the entropy decoder keeps a
 * lane's bit buffer, word cursor and checksum lane across its steps and gets 80 registers. */
#define SZ_DEC_BLOCKS(ent) ((ent) ? 3 : 4)
/* Whether sz_dec_chunk<W> issues the next segment's loads before it decodes the current one:
 * not on sm_100 and sm_120, whose allocation of the 64-register batched decoder spills with it
 * (ptxas: 20 and 200 bytes; as SZ_ENC_SEGS), nor at W = 64 on AMD, where it takes the batched
 * decoder past the 96-VGPR budget on gfx942 (99; ci/hip-bundle-check.py). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#define SZ_DEC_PREFETCH(w) 0
#elif defined(SZ_GPU_FLAVOUR_HIP)
#define SZ_DEC_PREFETCH(w) ((w) == 32)
#else
#define SZ_DEC_PREFETCH(w) 1
#endif
/* Bytes a thread of sz_dec_chunk has loaded and not yet decoded: two segments' 8 codes (4
 * bytes) and 8 sign/mantissa bytes each, the next segment's issued before the current one is
 * decoded (the kernel model's bytes in flight; one segment, 12, where SZ_DEC_PREFETCH is 0). */
#define SZ_DEC_LOAD_BYTES 24u

/* The entropy decoder's shared memory, in the ENT kernels only. */
template <bool ENT> struct sz_ent_dec_part {
	sz_ent_dec_smem e;
};
template <> struct sz_ent_dec_part<false> {
	uint32_t unused;
};
SZ_DEVICE sz_ent_dec_smem *sz_ent_dec_of(sz_ent_dec_part<true> &p)
{
	return &p.e;
}
SZ_DEVICE sz_ent_dec_smem *sz_ent_dec_of(sz_ent_dec_part<false> &)
{
	return nullptr;
}
SZ_DEVICE bool sz_dec_mine(bool ent, int32_t status, const splitzip_header &h)
{
	return (status == SPLITZIP_OK && h.mode == SPLITZIP_MODE_ENTROPY) == ent;
}

/* Whether exponent e is in the frame's codebook. */
SZ_DEVICE bool sz_dec_in_codebook(const sz_dec_frame &fr, uint32_t e)
{
	if (fr.s4.contig)
		return e - fr.s4.base <= 15u;
	for (uint32_t c = 0; c < 16; c++)
		if (sz_cb_exp(fr.s4.cblo, fr.s4.cbhi, c) == e)
			return true;
	return false;
}

/* A batch of up to W escape records of a chunk: lane i holds record kb + i. */
struct sz_dec_batch {
	uint32_t kb;  /* first record not yet loaded (escape counts are u32) */
	uint32_t rec; /* this lane's record: position | exponent << 16 */
	uint32_t nb;  /* records in the batch */
	uint32_t r;   /* next record of the batch to apply */
	int32_t last; /* position of the batch's last record, -1 before the first */
};

/* Loads the next batch and checks FORMAT.md §4.2.7 rule 3 on it (ascending positions inside
 * the chunk, exponents outside the codebook); the code check comes when a record is applied. */
template <int W>
SZ_DEVICE bool sz_dec_load_batch(const sz_dec_frame &fr, sz_dec_batch &b, uint32_t k1, uint32_t len)
{
	const unsigned lane = sz_lane<W>();
	const uint32_t left = k1 - b.kb;
	b.nb = left < (uint32_t)W ? left : (uint32_t)W;
	b.r = 0;
	uint32_t p = 0, e = 0;
	if (lane < b.nb) {
		p = sz_gld_le16(fr.src + fr.s4.epos_off + 2 * ((uint64_t)b.kb + lane));
		e = sz_gldro_u8(fr.src + fr.s4.eexp_off + ((uint64_t)b.kb + lane));
	}
	const uint32_t up = sz_shfl_up<W>(sz_full_mask<W>(), p, 1);
	const int32_t prev = lane == 0 ? b.last : (int32_t)up;
	const bool bad =
	    lane < b.nb && ((int32_t)p <= prev || p >= len || sz_dec_in_codebook(fr, e));
	b.last = (int32_t)sz_uniform_u32<W>(sz_shfl<W>(sz_full_mask<W>(), p, (int)b.nb - 1));
	b.rec = p | e << 16;
	b.kb += b.nb;
	return sz_any<W>(sz_full_mask<W>(), bad) != 0;
}

/*
 * One segment's loads, 8 elements of a lane at chunk offset i0: the stored frame's body (w:
 * the 8 elements), or the codes (w.x) and sign/mantissa bytes (w.y, w.z) of a split4 frame;
 * 'valid' has a bit per element inside the chunk. One 16-byte load, or one 4-byte and one
 * 8-byte load, when the segment is whole and the buffers aligned; else byte loads.
 */
struct sz_dec_seg {
	sz_u32x4 w;
	uint32_t valid;
};

SZ_DEVICE sz_dec_seg sz_dec_load_seg(const uint8_t *codes, const uint8_t *sm, const uint16_t *body,
                                     bool stored, bool vec, uint32_t i0, uint32_t len)
{
	sz_dec_seg g;
	if (stored) {
		g.w = sz_load8(body, i0, len, vec, &g.valid);
		return g;
	}
	uint32_t cw = 0, s0w = 0, s1w = 0;
	if (vec && i0 + 8 <= len) {
		g.valid = 0xFFu;
		cw = sz_gldro_u32(codes + i0 / 2);
		const uint64_t smv = sz_gldro_u64(sm + i0);
		s0w = (uint32_t)smv;
		s1w = (uint32_t)(smv >> 32);
	} else {
		g.valid = 0;
		SZ_UNROLL
		for (unsigned i = 0; i < 8; i++) {
			if (i0 + i >= len)
				continue;
			g.valid |= 1u << i;
			if (i % 2 == 0) /* a missing odd element's nibble is masked below */
				cw |= (uint32_t)sz_gldro_u8(codes + (i0 + i) / 2) << (4 * i);
			const uint32_t sb = sz_gldro_u8(sm + i0 + i);
			if (i < 4)
				s0w |= sb << (8 * i);
			else
				s1w |= sb << (8 * (i - 4));
		}
		cw &= g.valid == 0xFFu ? ~0u : (1u << (4 * sz_popc64(g.valid))) - 1;
	}
	g.w = sz_u32x4_make(cw, s0w, s1w, 0);
	return g;
}

/* FORMAT.md §4.2.7 rule 2 for chunk c: its escape range [k0, k1) from the chunk table (one
 * lane reads the two entries, the warp shares them); false if the range breaks the rule. */
template <int W>
SZ_DEVICE bool sz_dec_chunk_range(const sz_dec_frame &fr, uint64_t c, uint32_t len, uint32_t &k0,
                                  uint32_t &k1)
{
	const uint8_t *T = fr.src + fr.s4.table_off;
	uint32_t t0 = 0, t1 = 0;
	if (sz_lane<W>() == 0) {
		t0 = c ? sz_gld_le32(T + 4 * (c - 1)) : 0;
		t1 = sz_gld_le32(T + 4 * c);
	}
	k0 = sz_uniform_u32<W>(sz_shfl<W>(sz_full_mask<W>(), t0, 0));
	k1 = sz_uniform_u32<W>(sz_shfl<W>(sz_full_mask<W>(), t1, 0));
	return !(k0 > k1 || k1 - k0 > len || k1 > fr.E || (c == fr.C - 1 && k1 != fr.E));
}

/*
 * The escapes of the segment at chunk offset s0 applied to the lane's decoded elements o, in
 * order, with rule 3's code check on the element (the records were checked when loaded).
 * Returns the warp's 'bad'.
 */
template <int W>
SZ_DEVICE bool sz_dec_patch_seg(const sz_dec_frame &fr, sz_dec_batch &b, uint32_t k1, uint32_t len,
                                uint32_t s0, uint32_t i0, const sz_dec_seg &g, sz_u32x4 &o,
                                bool bad)
{
	const uint32_t seg = (uint32_t)W * 8;
	while (!bad) {
		if (b.r == b.nb) {
			if (b.kb >= k1)
				break;
			bad |= sz_dec_load_batch<W>(fr, b, k1, len);
			continue;
		}
		const uint32_t rec =
		    sz_uniform_u32<W>(sz_shfl<W>(sz_full_mask<W>(), b.rec, (int)b.r));
		const uint32_t p = rec & 0xFFFFu;
		if (p >= s0 + seg)
			break;
		b.r++;
		if (p >= i0 && p < i0 + 8) {
			const unsigned i = p - i0;
			if ((g.w.x >> (4 * i)) & 15u)
				bad = true;
			const uint32_t sb = ((i < 4 ? g.w.y : g.w.z) >> (8 * (i & 3))) & 0xFFu;
			o = sz_set_elem8(o, i,
			                 splitzip_bf16_join((uint8_t)(rec >> 16), (uint8_t)sb));
		}
		bad = sz_any<W>(sz_full_mask<W>(), bad) != 0;
	}
	return bad;
}

/*
 * Decode chunk c by one warp: checks its table entries (rule 2) and escape records (rule 3)
 * before using them, decodes 8 elements per lane per segment, applies the segment's escapes to
 * the registers, stores, hashes. The loads of the next segment are issued before the current
 * one is decoded, so a lane has two segments in flight (SZ_DEC_LOAD_BYTES). Returns whether a
 * body rule failed (every lane).
 */
template <int W>
SZ_DEVICE bool sz_dec_chunk(const sz_dec_frame &fr, uint64_t c, uint64_t &csum, bool hash)
{
	const unsigned lane = sz_lane<W>();
	/* Chunk-local positions fit 32 bits (at most 2^16 elements, SPLITZIP_CHUNK_LOG2_MAX). */
	const uint64_t e0 = c << fr.L;
	const uint32_t len = (uint32_t)splitzip_chunk_len(fr.n, fr.L, c);
	const uint32_t nw = (len + 3) / 4, seg = (uint32_t)W * 8;
	uint16_t *out = fr.dst + e0;
	const bool vec = fr.vec != 0, stored = fr.mode == SPLITZIP_MODE_STORED;
	uint64_t acc = splitzip_hash_lane_init(lane & 31);
	bool bad = false;
	sz_dec_batch b = {0, 0, 0, 0, -1};
	uint32_t k1 = 0;
	if (!stored) {
		uint32_t k0;
		if (!sz_dec_chunk_range<W>(fr, c, len, k0, k1))
			return true;
		b.kb = k0;
		if (k1 > k0)
			bad |= sz_dec_load_batch<W>(fr, b, k1, len);
	}
	const uint8_t *codes = fr.src + fr.s4.codes_off + e0 / 2, *sm = fr.src + fr.s4.sm_off + e0;
	const uint16_t *body =
	    reinterpret_cast<const uint16_t *>(fr.src + SPLITZIP_FRAME_HEADER_SIZE) + e0;
	const bool pf = SZ_DEC_PREFETCH(W);
	sz_dec_seg next = {};
	if (pf)
		next = sz_dec_load_seg(codes, sm, body, stored, vec, 8 * lane, len);
	for (uint32_t s0 = 0; s0 < len; s0 += seg) {
		const uint32_t i0 = s0 + 8 * lane;
		const sz_dec_seg g =
		    pf ? next : sz_dec_load_seg(codes, sm, body, stored, vec, i0, len);
		if (pf && s0 + seg < len) /* warp-uniform */
			next = sz_dec_load_seg(codes, sm, body, stored, vec, i0 + seg, len);
		sz_u32x4 o = g.w;
		if (!stored) {
			o = sz_decode8(g.w.x, g.w.y, g.w.z, fr.s4.contig != 0, fr.s4.base2,
			               fr.s4.cblo, fr.s4.cbhi);
			if (k1 > 0)
				bad = sz_dec_patch_seg<W>(fr, b, k1, len, s0, i0, g, o, bad);
			if (g.valid !=
			    0xFFu) /* elements past the end are zero (the hash reads them) */
				o = sz_mask8(o, g.valid);
		}
		if (vec && g.valid == 0xFFu) {
			sz_gst_x4(out + i0, o);
		} else {
			for (unsigned i = 0; i < 8; i++)
				if (g.valid >> i & 1)
					sz_gst_u16(out + i0 + i, (uint16_t)sz_elem8(o, i));
		}
		if (hash)
			acc = sz_hash_segment<W>(acc, (uint64_t)o.y << 32 | o.x,
			                         (uint64_t)o.w << 32 | o.z, s0 / 4, nw);
	}
	if (hash) {
		const uint64_t fold = sz_hash_chunk_fold<W>(acc, 2 * len, c);
		if (lane == 0)
			csum += fold;
	}
	return sz_any<W>(sz_full_mask<W>(), bad) != 0;
}

/* The frame fields the split4 chunk decoder reads, as warp-uniform values (scalar registers on HIP;
 * the header itself is not copied). */
template <int W> SZ_DEVICE void sz_dec_frame_hot(sz_dec_frame &d, const sz_dec_frame &s)
{
	__builtin_memset(&d, 0, sizeof d);
	d.src = sz_uniform_ptr<W>(s.src);
	d.dst = sz_uniform_ptr<W>(s.dst);
	d.n = sz_uniform_u64<W>(s.n);
	d.C = sz_uniform_u64<W>(s.C);
	d.E = sz_uniform_u64<W>(s.E);
	d.s4.codes_off = sz_uniform_u64<W>(s.s4.codes_off);
	d.s4.sm_off = sz_uniform_u64<W>(s.s4.sm_off);
	d.s4.table_off = sz_uniform_u64<W>(s.s4.table_off);
	d.s4.epos_off = sz_uniform_u64<W>(s.s4.epos_off);
	d.s4.eexp_off = sz_uniform_u64<W>(s.s4.eexp_off);
	d.s4.cblo = sz_uniform_u64<W>(s.s4.cblo);
	d.s4.cbhi = sz_uniform_u64<W>(s.s4.cbhi);
	d.L = sz_uniform_u32<W>(s.L);
	d.mode = sz_uniform_u32<W>(s.mode);
	d.vec = sz_uniform_u32<W>(s.vec);
	d.s4.contig = sz_uniform_u32<W>(s.s4.contig);
	d.s4.base = sz_uniform_u32<W>(s.s4.base);
	d.s4.base2 = sz_uniform_u32<W>(s.s4.base2);
}

/* The chunks [c0, c1) of a frame, warp w taking c0 + w, c0 + w + NW, ...; the block's
 * corruption flag and checksum sum end up with thread 0 (S.bad, S.wsum[0]). Ends with a
 * barrier. */
template <int W, bool ENT>
SZ_DEVICE void sz_dec_chunks(sz_dec_smem<W> &S, sz_ent_dec_smem *E, uint64_t c0, uint64_t c1)
{
	enum { NW = sz_dec_smem<W>::NW };
	const unsigned warp = sz_warp<W>(), lane = sz_lane<W>();
	const bool hash = S.fr.hash != 0;
	uint64_t csum = 0;
	uint32_t nesc = 0;
	bool bad = false;
	if (ENT) {
		sz_ent_table(*E, S.fr);
		if (E->ok) /* block-uniform */
			sz_ent_dec_chunks<W>(*E, S.fr, c0, c1, csum, nesc, bad, hash);
		else
			bad = true; /* FORMAT.md §4.3.6 rule 2 */
		nesc = sz_warp_sum<W>(nesc);
		csum = sz_warp_sum<W>(csum); /* the groups' folds (W = 64: two groups) */
		bad = sz_any<W>(sz_full_mask<W>(), bad) != 0;
	} else {
		sz_dec_frame hot;
		if (SZ_HOIST_UNIFORM)
			sz_dec_frame_hot<W>(hot, S.fr);
		const sz_dec_frame &fr = SZ_HOIST_UNIFORM ? hot : S.fr;
		for (uint64_t c = c0 + warp; c < c1; c += NW)
			bad |= sz_dec_chunk<W>(fr, c, csum, hash);
	}
	if (lane == 0) {
		S.wsum[warp] = csum;
		S.wbad[warp] = bad;
		if (ENT)
			S.wesc[warp] = nesc;
	}
	sz_syncthreads();
	if (threadIdx.x == 0) {
		uint64_t sum = 0;
		uint32_t any = S.bad, esc = 0;
		for (unsigned w = 0; w < NW; w++) {
			sum += S.wsum[w];
			any |= S.wbad[w];
			if (ENT)
				esc += S.wesc[w];
		}
		S.wsum[0] = sum;
		S.wesc[0] = esc;
		S.bad = any;
	}
	sz_syncthreads();
}

/* The status of a frame from its corruption flag, escape total (entropy frames, §4.3.6 rule 5)
 * and checksum (FORMAT.md §3.3 steps 14-15). */
SZ_DEVICE int32_t sz_dec_status(const splitzip_header &h, bool bad, uint32_t esc, uint64_t csum)
{
	if (bad || (h.mode == SPLITZIP_MODE_ENTROPY && esc != h.n_escapes))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	if ((h.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) &&
	    splitzip_hash_frame_final(h.n_elems, csum) != h.content_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	return SPLITZIP_OK;
}

/* Per frame (blockIdx.y, one block of SZ_GPU_THREADS): the header, read and checked once by
 * warp 0, and the padding rule; the state sz_k_decode reads. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dec_init(sz_gpu_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dec_smem<W>, S, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	if (sz_warp<W>() == 0) /* warp-uniform */
		(void)sz_dec_header_warp<W>(S[0].fr, a, f, S[0].hdr);
	if (t == 0)
		S[0].bad = 0;
	sz_syncthreads();
	const bool ok = S[0].fr.status == SPLITZIP_OK;
	if (ok && sz_dec_padding_bad(S[0].fr, t))
		sz_smem_atomic_or(&S[0].bad, 1u);
	sz_syncthreads();
	if (t != 0)
		return;
	sz_gpu_dec_state z;
	__builtin_memset(&z, 0, sizeof z);
	z.status = S[0].fr.status;
	z.corrupt = S[0].bad;
	z.h = S[0].fr.h;
	sz_gst_words(a.ws + a.run.ws_stride * f, &z, sizeof z);
	if (!ok)
		sz_put_result(a.frames.out_elems, a.frames.statuses, f, 0, z.status);
}

/*
 * One frame (blockIdx.y + frame0) by gridDim.x blocks, each a static range of chunks; the last
 * block to finish writes the status. ENT: the entropy frames (sz_gpu_entropy_dec.cuh), else the
 * stored and split4 frames; the other kernel's frames are left alone.
 */
template <int W, bool ENT>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS, SZ_DEC_BLOCKS(ENT)) void sz_k_decode(sz_gpu_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dec_smem<W>, S, 1);
	SZ_SHARED_ARRAY(sz_ent_dec_part<ENT>, E, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	sz_gpu_dec_state *st = reinterpret_cast<sz_gpu_dec_state *>(a.ws + a.run.ws_stride * f);
	if (threadIdx.x == 0) { /* written by sz_k_dec_init; the counters are not read here */
		S[0].fr.status = (int32_t)sz_gld_u32(&st->status);
		if (S[0].fr.status == SPLITZIP_OK) {
			splitzip_header h;
			sz_gld_words(&h, &st->h, sizeof h);
			if (sz_dec_mine(ENT, SPLITZIP_OK, h))
				sz_dec_setup(S[0].fr, a, f, h);
			else
				S[0].fr.status = SZ_DEC_NOT_MINE;
		}
		S[0].bad = 0;
	}
	sz_syncthreads();
	if (S[0].fr.status != SPLITZIP_OK)
		return;
	const uint64_t C = S[0].fr.C, G = gridDim.x, b = blockIdx.x;
	sz_dec_chunks<W, ENT>(S[0], sz_ent_dec_of(E[0]), C * b / G, C * (b + 1) / G);
	if (threadIdx.x != 0)
		return;
	if (S[0].bad)
		sz_atomic_or_relaxed(&st->corrupt, 1u);
	sz_atomic_add_relaxed(&st->csum, S[0].wsum[0]);
	if (ENT && S[0].wesc[0])
		sz_atomic_add_relaxed(&st->esc, S[0].wesc[0]);
	if (sz_atomic_add_acq_rel(&st->done, 1u) != G - 1)
		return;
	/* The last block: every other block's flag and folds happen before its increment. */
	const int32_t s = sz_dec_status(S[0].fr.h, sz_gld_u32(&st->corrupt) != 0,
	                                ENT ? sz_gld_u32(&st->esc) : 0u, sz_gld_u64(&st->csum));
	sz_put_result(a.frames.out_elems, a.frames.statuses, f, s == SPLITZIP_OK ? S[0].fr.n : 0,
	              s);
}

#endif /* SZ_GPU_DECODE_CUH */
