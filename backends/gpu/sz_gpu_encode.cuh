/*
 * sz_gpu_encode.cuh -- the GPU encoder of split4 and stored frames, one source for CUDA, HIP
 * and the CPU SIMT harness (include only sz_gpu_compat.cuh and core headers). Frames equal
 * core/sz_driver.c + core/sz_ref.c byte for byte (doc/FORMAT.md §4, §6). Launch sequences:
 * sz_gpu_driver.cuh; the one-block-per-frame kernel of batches: sz_gpu_batch.cuh.
 *
 * Shape of the work (sz_gpu_args.h): a warp owns whole chunks. It streams a chunk in segments
 * of W lanes x 16 bytes (lane-contiguous 16-byte loads), computes codes and sign/mantissa bytes
 * eight elements at a time with word-parallel arithmetic, stores them at their final offsets
 * (which do not depend on the escape count), feeds the content checksum from the same registers,
 * and only when the warp's vote says a segment has escapes, ranks them with a warp scan and
 * keeps them in shared memory. A block takes a tile (one run of chunks per warp) at a time.
 *
 * Encode of one frame by many blocks (sz_k_encode, after sz_k_enc_init zeroed the state):
 * persistent blocks, a grid in whole waves, take tiles from a ticket. After a tile, warp 0 finds
 * the escapes before it by a decoupled look-back over the tiles' words, writes the chunk table,
 * and every warp writes its escape positions straight into the frame and their exponents to the
 * workspace. Phases that need the whole frame wait for its done counter; since every tile was
 * taken by a block that is running, the waits end. Phases:
 *   1. (codebook from the input) the histogram of a sample of chunks -- of every chunk for
 *      inputs below SZ_GPU_SAMPLE_ALL_ELEMS, so the codebook is exact -- predicts the codebook;
 *   2. the pass over the input with it; a predicted codebook is checked against the exact
 *      histogram the pass counts (per-thread code counters in shared memory, escapes exactly);
 *      if the sample said the input is mostly escapes, the pass writes the stored frame instead
 *      (raw copy) and only counts;
 *   3. on a misprediction (or a stored guess that was wrong) a second pass with the exact
 *      codebook; the checksum and the sign/mantissa bytes are not redone when they stand;
 *   4. the mode (FORMAT.md §6.3), then: split4 -- exponents copied into their section, gaps
 *      zeroed, header; stored -- input copied behind the header (unless phase 2 did), padding,
 *      header.
 * With a fixed (or exact) codebook, a tile that sees more escapes before it than split4 allows
 * marks the frame stored, and later tiles do no work.
 *
 * Batches of small frames (sz_k_encode_pages, sz_gpu_batch.cuh): one block per frame at a
 * time, the same phases with the block as the whole grid: no init launch, no tickets, no
 * look-back.
 */
#ifndef SZ_GPU_ENCODE_CUH
#define SZ_GPU_ENCODE_CUH

#include "sz_gpu_header.cuh"

/* Codebooks from the input of frames below this many elements come from the histogram of every
 * chunk (two reads, the second from cache); larger ones are predicted from 1 chunk in 16. */
#define SZ_GPU_SAMPLE_ALL_ELEMS ((uint64_t)1 << 22)
/* A sample with more escapes than 1 in this many (under its predicted codebook) makes the pass
 * write the stored frame and only count. */
#define SZ_GPU_STORED_GUESS 5u
/* Escape counts at or above this mean "the frame is stored" (a count is at most 2^32 - 1). */
#define SZ_GPU_ESC_STORED ((uint64_t)1 << 63)

/* ==================================================================== */
/*                          Encoder: the frame                          */
/* ==================================================================== */

/* What a block knows about the frame it encodes (shared memory, written by thread 0). */
struct sz_enc_frame {
	const uint16_t *src;
	uint8_t *dst;
	uint8_t *ws;     /* the frame's workspace slice (state, histograms, look-back, exponents) */
	uint8_t *exps;   /* escape exponents, by rank */
	uint64_t *lb[2]; /* look-back words of the encode pass and of a second pass */
	uint64_t f, n, cap, C, n_tiles, codes_off, sm_off, table_off, epos_off;
	int64_t max_esc;
	uint32_t L, flags, cpw, vec, status, skip;
	uint32_t raw; /* the sample says "mostly escapes": the pass writes the stored frame */
	/* the codebook in use */
	uint32_t contig, kadd, base;
	uint8_t cb[16];
};

/* Shared memory of the encode kernels. */
template <int W> struct sz_enc_smem {
	enum { NW = SZ_GPU_THREADS / W, CAP = SZ_GPU_STASH / NW };
	uint32_t
	    bins[16 * SZ_GPU_THREADS]; /* code counters per thread; per-warp sample histograms */
	uint32_t stash[SZ_GPU_STASH];  /* escape records (position | exponent << 16) per warp */
	uint32_t hist[256];            /* histogram: escapes of a pass, or the frame's */
	uint8_t lut[256];              /* encoder table of the codebook in use */
	uint8_t pred[16];              /* a predicted codebook */
	uint8_t hdr[SPLITZIP_FRAME_HEADER_SIZE]; /* the header, written here then copied out */
	uint32_t cnt[32];                        /* escapes per chunk of the tile (<= W chunks) */
	uint32_t nst[NW], ovf[NW]; /* stashed records per warp; the stash overflowed */
	uint64_t wbase[NW];        /* rank of each warp's first escape */
	uint64_t wsum[NW];         /* per-warp partial sums (checksum) */
	uint64_t bc[4];            /* broadcasts: tile, escapes, stored, checksum (pages) */
	uint64_t run;              /* escapes before the next tile (one block per frame) */
	uint32_t taken;            /* tiles this block took in the pass */
	sz_enc_frame fr;
};

/* One pass over the input. */
struct sz_enc_pass {
	int phase;  /* SZ_PH_ENCODE or SZ_PH_REDO: index of ticket, done counter, look-back set */
	unsigned o; /* SZ_O_*: codes (with the chunk table and escapes), sign/mantissa bytes,
	               or the stored frame's body; checksum; histogram (a predicted codebook) */
	bool can_skip; /* the codebook is final: a frame known to be stored stops the pass */
};

/* The encoder state of frame f in the workspace. */
SZ_DEVICE sz_gpu_enc_state *sz_enc_state(const sz_gpu_enc &a, uint64_t f)
{
	return reinterpret_cast<sz_gpu_enc_state *>(a.ws + a.run.ws_stride * f);
}

/* Encoder table and window parameters of the codebook in fr.cb (all threads; a barrier after). */
template <int W> SZ_DEVICE void sz_enc_use_codebook(sz_enc_smem<W> &S)
{
	for (unsigned e = threadIdx.x; e < 256; e += SZ_GPU_THREADS) {
		uint8_t x = 0x80;
		for (unsigned k = 0; k < 16; k++)
			if (S.fr.cb[k] == e)
				x = (uint8_t)k;
		S.lut[e] = x;
	}
	if (threadIdx.x == 0) {
		const uint32_t b = S.fr.cb[0];
		S.fr.base = b;
		S.fr.contig = S.fr.cb[15] == b + 15;
		S.fr.kadd = 0x01000100u - b * 0x00010001u;
	}
}

/*
 * The canonical codebook of the histogram in S.hist (FORMAT.md §5.1): thread e ranks exponent
 * e by (count descending, exponent ascending); the first 16, in ascending order, go to fr.cb.
 * Returns (to every thread) the elements the codebook covers. Uses S.bins as scratch.
 */
template <int W> SZ_DEVICE uint64_t sz_enc_select(sz_enc_smem<W> &S)
{
	const unsigned e = threadIdx.x; /* SZ_GPU_THREADS == 256 */
	const uint32_t he = S.hist[e];
	unsigned rank = 0;
	for (unsigned x = 0; x < 256; x++)
		rank += S.hist[x] > he || (S.hist[x] == he && x < e);
	S.bins[e] = rank < 16;
	sz_syncthreads();
	if (S.bins[e]) {
		unsigned pos = 0;
		for (unsigned x = 0; x < e; x++)
			pos += S.bins[x];
		S.fr.cb[pos] = (uint8_t)e;
	}
	S.bins[256 + e] = S.bins[e] ? he : 0;
	sz_syncthreads();
	uint64_t covered = 0;
	for (unsigned x = 0; x < 256; x++)
		covered += S.bins[256 + x];
	sz_syncthreads();
	return covered;
}

/* Segments whose loads a warp has in flight at once in sz_enc_chunk: two, but one when the
 * histogram's counters need the registers, and on sm_120 (whose allocation of the 64-register
 * kernels spills with two). ci/ptxas-table.sh checks that no kernel spills. */
#ifndef SZ_ENC_SEGS
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
#define SZ_ENC_SEGS(o) 1
#else
#define SZ_ENC_SEGS(o) (((o)&SZ_O_HIST) ? 1 : 2)
#endif
#endif

/* What a pass over a chunk does (template options of sz_enc_chunk). */
enum {
	SZ_O_CODES = 1, /* codes (and escapes) */
	SZ_O_SM = 2,    /* sign/mantissa bytes */
	SZ_O_RAW = 4,   /* the stored frame's body, a raw copy */
	SZ_O_HASH = 8,  /* content checksum */
	SZ_O_HIST = 16  /* histogram */
};

/*
 * The escapes of one segment (mask m of the lane's 8 elements at chunk offset i0) to the warp's
 * stash, in element order. Rare (the warp voted that the segment has escapes), so its
 * registers stay out of the streaming loop.
 */
template <int W>
SZ_DEVICE uint32_t sz_enc_stash(uint32_t *stash, uint32_t nst, uint32_t m, uint32_t i0, sz_u32x4 v)
{
	const uint32_t k = (uint32_t)sz_popc64(m);
	const uint32_t incl = sz_warp_incl_scan<W>(k);
	uint32_t at = nst + incl - k;
	for (uint32_t b = m; b; b &= b - 1, at++) {
		const unsigned i = (unsigned)sz_ffs64(b) - 1;
		if (at < sz_enc_smem<W>::CAP)
			stash[at] = (i0 + i) | ((sz_elem8(v, i) >> 7) & 0xFFu) << 16;
	}
	return sz_shfl<W>(sz_full_mask<W>(), incl, W - 1);
}

/* The histogram of one segment: per-thread code counters (no atomics: each thread owns a
 * column, so a warp's accesses hit 32 banks) and, for escapes, their exponents. */
template <int W>
SZ_DEVICE void sz_enc_count(sz_enc_smem<W> &S, const sz_enc8 &r, uint32_t valid, uint32_t m,
                            sz_u32x4 v)
{
	const unsigned tid = threadIdx.x;
	SZ_UNROLL
	for (unsigned i = 0; i < 8; i++) {
		if (valid >> i & 1)
			S.bins[((r.codes >> (4 * i)) & 15u) * SZ_GPU_THREADS + tid]++;
		if (m >> i & 1)
			sz_smem_atomic_add(&S.hist[(sz_elem8(v, i) >> 7) & 0xFFu], 1u);
	}
}

/* The stores of one segment that is not whole (the end of the frame, or unaligned buffers). */
template <unsigned O>
SZ_DEVICE void sz_enc_store_part(uint8_t *codes, uint8_t *sm, uint8_t *raw, uint32_t i0,
                                 uint32_t valid, const sz_enc8 &r, sz_u32x4 v)
{
	for (unsigned i = 0; i < 8; i++) {
		if (!(valid >> i & 1))
			continue;
		if (O & SZ_O_RAW)
			sz_gst_le16(raw + 2 * (i0 + i), sz_elem8(v, i));
		if ((O & SZ_O_CODES) && i % 2 == 0) /* a missing odd element's nibble is 0 */
			sz_gst_u8(codes + (i0 + i) / 2, (uint8_t)(r.codes >> (4 * i)));
		if (O & SZ_O_SM)
			sz_gst_u8(sm + i0 + i, (uint8_t)((i < 4 ? r.sm0 : r.sm1) >> (8 * (i & 3))));
	}
}

/*
 * Encode chunk c by one warp: codes and sign/mantissa bytes (or the raw copy) to the frame,
 * checksum, histogram; the escapes, in element order, to the warp's stash. Returns the chunk's
 * escape count (every lane). Indices inside a chunk fit 32 bits (2^16 elements at most).
 */
template <int W, unsigned O>
SZ_DEVICE uint32_t sz_enc_chunk(sz_enc_smem<W> &S, uint64_t c, uint32_t *stash, uint32_t &nst)
{
	const unsigned lane = sz_lane<W>();
	/* frame fields as warp-uniform values (scalar registers on HIP) */
	const uint32_t L = sz_uniform_u32<W>(S.fr.L);
	const uint64_t e0 = c << L;
	const uint32_t len = (uint32_t)splitzip_chunk_len(sz_uniform_u64<W>(S.fr.n), L, c);
	const uint32_t nw = (len + 3) / 4, seg = W * 8;
	const uint16_t *SZ_RESTRICT src = sz_uniform_ptr<W>(S.fr.src) + e0;
	uint8_t *const dst = sz_uniform_ptr<W>(S.fr.dst);
	uint8_t *codes = dst + sz_uniform_u64<W>(S.fr.codes_off) + e0 / 2;
	uint8_t *sm = dst + sz_uniform_u64<W>(S.fr.sm_off) + e0;
	uint8_t *raw = dst + SPLITZIP_FRAME_HEADER_SIZE + 2 * e0;
	const bool vec = sz_uniform_u32<W>(S.fr.vec) != 0,
	           contig = sz_uniform_u32<W>(S.fr.contig) != 0;
	const uint32_t kadd = sz_uniform_u32<W>(S.fr.kadd);
	uint64_t acc = splitzip_hash_lane_init(lane & 31);
	uint32_t cnt = 0;
	/* Two segments' loads in flight before the first use; one when the histogram's counters
	 * need the registers. */
	enum { U = SZ_ENC_SEGS(O) };
	for (uint32_t s0 = 0; s0 < len; s0 += U * seg) {
		uint32_t valid[U];
		sz_u32x4 v[U];
		SZ_UNROLL
		for (int u = 0; u < U; u++)
			v[u] = sz_load8(src, s0 + u * seg + 8 * lane, len, vec, &valid[u]);
		SZ_UNROLL
		for (int u = 0; u < U; u++) {
			const uint32_t i0 = s0 + u * seg + 8 * lane;
			if (u > 0 && s0 + u * seg >= len)
				continue; /* warp-uniform; no 'break' in a loop to unroll */
			sz_enc8 r = {0, 0, 0, 0};
			if (O & (SZ_O_CODES | SZ_O_SM | SZ_O_HIST))
				r = sz_encode8(v[u], contig, kadd, S.lut);
			if (valid[u] != 0xFFu || !vec) {
				sz_enc_store_part<O>(codes, sm, raw, i0, valid[u], r, v[u]);
			} else {
				if (O & SZ_O_RAW)
					sz_gst_x4(raw + 2 * i0, v[u]);
				if (O & SZ_O_CODES)
					sz_gst_u32(codes + i0 / 2, r.codes);
				if (O & SZ_O_SM)
					sz_gst_u64(sm + i0, (uint64_t)r.sm1 << 32 | r.sm0);
			}
			if (O & SZ_O_HASH)
				acc = sz_hash_segment<W>(acc, (uint64_t)v[u].y << 32 | v[u].x,
				                         (uint64_t)v[u].w << 32 | v[u].z,
				                         (s0 + u * seg) / 4, nw);
			const uint32_t m = r.esc & valid[u];
			if (O & SZ_O_HIST)
				sz_enc_count<W>(S, r, valid[u], m, v[u]);
			if ((O & SZ_O_CODES) && sz_any<W>(sz_full_mask<W>(), m != 0)) {
				const uint32_t tot = sz_enc_stash<W>(stash, nst, m, i0, v[u]);
				nst += tot;
				cnt += tot;
			}
		}
	}
	if (O & SZ_O_HASH) {
		const uint64_t fold = sz_hash_chunk_fold<W>(acc, 2 * (uint64_t)len, c);
		if (lane == 0)
			S.wsum[sz_warp<W>()] += fold;
	}
	return cnt;
}

/*
 * The escapes of the warp's chunks, found again from the input and written at ranks from
 * 'rank' on (its stash overflowed). Same order as sz_enc_chunk.
 */
template <int W>
SZ_DEVICE void sz_enc_rescan(sz_enc_smem<W> &S, uint64_t c0, uint64_t c1, uint64_t rank)
{
	const sz_enc_frame &fr = S.fr;
	const unsigned lane = sz_lane<W>();
	const uint64_t seg = (uint64_t)W * 8;
	for (uint64_t c = c0; c < c1; c++) {
		const uint64_t e0 = c << fr.L, len = splitzip_chunk_len(fr.n, fr.L, c);
		for (uint64_t s0 = 0; s0 < len; s0 += seg) {
			const uint64_t i0 = s0 + 8 * lane;
			uint32_t valid;
			const sz_u32x4 v = sz_load8(fr.src + e0, i0, len, fr.vec != 0, &valid);
			const uint32_t m =
			    sz_encode8(v, fr.contig != 0, fr.kadd, S.lut).esc & valid;
			if (!sz_any<W>(sz_full_mask<W>(), m != 0))
				continue;
			const uint32_t k = (uint32_t)sz_popc64(m);
			const uint32_t incl = sz_warp_incl_scan<W>(k);
			uint64_t at = rank + incl - k;
			for (uint32_t b = m; b; b &= b - 1, at++) {
				const unsigned i = (unsigned)sz_ffs64(b) - 1;
				if (at > (uint64_t)fr.max_esc)
					continue; /* the frame will be stored */
				if (fr.epos_off + 2 * at + 2 <= fr.cap)
					sz_gst_le16(fr.dst + fr.epos_off + 2 * at,
					            (uint32_t)(i0 + i));
				sz_gst_u8(fr.exps + at, (uint8_t)(sz_elem8(v, i) >> 7));
			}
			rank += sz_shfl<W>(sz_full_mask<W>(), incl, W - 1);
		}
	}
}

/* Only the checksum of chunk c (a frame known to be stored), out of line. */
template <int W> SZ_DEVICE void sz_enc_hash_cold(sz_enc_smem<W> &S, uint64_t c)
{
	uint32_t nst = 0;
	sz_enc_chunk<W, SZ_O_HASH>(S, c, nullptr, nst);
}

/* The same out of line (the kernels whose register allocation it would otherwise raise). */
template <int W>
SZ_DEVICE void sz_enc_rescan_cold(sz_enc_smem<W> &S, uint64_t c0, uint64_t c1, uint64_t rank)
{
	sz_enc_rescan<W>(S, c0, c1, rank);
}

/* The warp's stashed escapes to their ranks: positions into the frame, exponents to the
 * workspace. Ranks past the split4 limit are not written (the frame will be stored). */
template <int W>
SZ_DEVICE void sz_enc_write_escapes(sz_enc_smem<W> &S, const uint32_t *stash, uint32_t nst,
                                    uint64_t rank)
{
	const sz_enc_frame &fr = S.fr;
	for (uint32_t k = sz_lane<W>(); k < nst; k += W) {
		const uint64_t at = rank + k;
		if (at > (uint64_t)fr.max_esc)
			break;
		const uint32_t rec = stash[k];
		if (fr.epos_off + 2 * at + 2 <= fr.cap)
			sz_gst_le16(fr.dst + fr.epos_off + 2 * at, rec & 0xFFFFu);
		sz_gst_u8(fr.exps + at, (uint8_t)(rec >> 16));
	}
}

/*
 * Decoupled look-back by one whole warp for tile t > 0 of a look-back set: the escapes in
 * tiles 0..t-1, or SZ_GPU_ESC_STORED. Lane l inspects tile base - l; a window with an
 * inclusive word ends the walk, a window of aggregates is summed and the walk moves W tiles
 * down. The words carry their counts: relaxed loads suffice (doc/AMD.md, "Memory model").
 */
template <int W> SZ_DEVICE uint64_t sz_lookback(uint64_t *lb, uint64_t t)
{
	const unsigned lane = sz_lane<W>();
	const uint64_t full = sz_full_mask<W>();
	uint64_t excl = 0;
	int64_t base = (int64_t)t - 1;
	for (;;) {
		const int64_t idx = base - (int64_t)lane;
		uint64_t s = idx >= 0 ? sz_atomic_load_relaxed(&lb[idx]) : (SZ_LB_INCLUSIVE << 32);
		while (!sz_all<W>(full, (s >> 32) != 0)) {
			if ((s >> 32) == 0) {
				sz_spin_pause();
				s = sz_atomic_load_relaxed(&lb[idx]);
			}
		}
		if (sz_any<W>(full, (s >> 32) == SZ_LB_STORED))
			return SZ_GPU_ESC_STORED;
		const uint64_t incl = sz_ballot<W>(full, (s >> 32) == SZ_LB_INCLUSIVE);
		const uint64_t v = (uint32_t)s;
		if (incl) {
			const unsigned j =
			    (unsigned)sz_ffs64(incl) - 1; /* nearest inclusive word */
			return excl + sz_warp_sum<W>(lane <= j ? v : (uint64_t)0);
		}
		excl += sz_warp_sum<W>(v);
		base -= W;
	}
}

/* The look-back word of a tile: inclusive (or stored) when known, else the aggregate. */
SZ_DEVICE uint64_t sz_lb_word(uint64_t state, uint64_t count)
{
	return state << 32 | (count & 0xFFFFFFFFu);
}

/* Zeroes the counters of a pass that counts the histogram (all threads; a barrier follows). */
template <int W> SZ_DEVICE void sz_enc_hist_clear(sz_enc_smem<W> &S)
{
	for (unsigned i = threadIdx.x; i < 16 * SZ_GPU_THREADS; i += SZ_GPU_THREADS)
		S.bins[i] = 0;
	S.hist[threadIdx.x] = 0;
}

/* The block's histogram of a pass: code counters to the exponents of fr.cb, added to the
 * escape counts in S.hist (escapes have code 0). All threads; ends with a barrier. */
template <int W> SZ_DEVICE void sz_enc_hist_gather(sz_enc_smem<W> &S)
{
	const unsigned t = threadIdx.x;
	sz_syncthreads();
	uint32_t k = 0;
	if (t < 16)
		for (unsigned i = 0; i < SZ_GPU_THREADS; i++)
			k += S.bins[t * SZ_GPU_THREADS + i];
	uint32_t esc = 0;
	if (t == 0)
		for (unsigned e = 0; e < 256; e++)
			esc += S.hist[e];
	sz_syncthreads(); /* S.hist holds escapes only until here */
	if (t < 16)
		S.hist[S.fr.cb[t]] += k - esc; /* not an escape exponent: its bin held 0 */
	sz_syncthreads();
}

/* Look-back and the chunk table of one tile, by warp 0 (see sz_enc_run_pass). */
template <int W, bool MULTI>
SZ_DEVICE void sz_enc_tile_ranks(sz_enc_smem<W> &S, sz_gpu_enc_state *st, const sz_enc_pass &p,
                                 uint64_t *lb, uint64_t tile, bool skip, uint64_t &run)
{
	enum { NW = sz_enc_smem<W>::NW };
	const sz_enc_frame &fr = S.fr;
	const unsigned lane = sz_lane<W>();
	const uint32_t cpw = fr.cpw, tchunks = NW * cpw;
	const uint32_t x = lane < tchunks ? S.cnt[lane] : 0;
	const uint32_t incl = sz_warp_incl_scan<W>(x);
	const uint64_t total = sz_shfl<W>(sz_full_mask<W>(), incl, W - 1);
	uint64_t excl = run;
	if (skip) {
		excl = SZ_GPU_ESC_STORED;
	} else if (MULTI && (p.o & SZ_O_CODES)) {
		if (lane == 0 && tile > 0)
			sz_atomic_store_relaxed(&lb[tile], sz_lb_word(SZ_LB_AGGREGATE, total));
		excl = tile > 0 ? sz_lookback<W>(lb, tile) : 0;
	}
	const bool stored =
	    excl >= SZ_GPU_ESC_STORED || (p.can_skip && excl + total > (uint64_t)fr.max_esc);
	const uint64_t after = stored ? SZ_GPU_ESC_STORED : excl + total;
	if (MULTI && (p.o & SZ_O_CODES) && lane == 0)
		sz_atomic_store_relaxed(&lb[tile],
		                        sz_lb_word(stored ? SZ_LB_STORED : SZ_LB_INCLUSIVE, after));
	const uint64_t c = tile * tchunks + lane; /* chunk table T[c] (FORMAT.md §4.2.3) */
	if ((p.o & SZ_O_CODES) && !stored && lane < tchunks && c < fr.C)
		sz_gst_le32(fr.dst + fr.table_off + 4 * c, (uint32_t)(excl + incl));
	const uint32_t before =
	    sz_shfl<W>(sz_full_mask<W>(), incl - x, (int)((lane % NW) * cpw)); /* warp's first */
	if (lane < NW)
		S.wbase[lane] = stored ? SZ_GPU_ESC_STORED : excl + before;
	if (lane == 0 && tile == fr.n_tiles - 1) {
		if (MULTI)
			sz_gst_u64(&st->esc, after);
		S.bc[1] = after;
	}
	if (lane == 0 && stored && !skip && p.can_skip && MULTI)
		sz_atomic_store_relaxed(&st->stored, 1u);
	run = after;
}

/* The next tile of the pass (thread 0; read by all after a barrier): a ticket, and whether the
 * frame is known to be stored. */
template <int W, bool MULTI>
SZ_DEVICE void sz_enc_next_tile(sz_enc_smem<W> &S, sz_gpu_enc_state *st, const sz_enc_pass &p,
                                uint64_t tile, bool stored)
{
	if (MULTI) {
		S.bc[0] = sz_atomic_add_relaxed(&st->ticket[p.phase], 1u);
		S.bc[2] = p.can_skip ? sz_atomic_load_relaxed(&st->stored) : 0;
	} else {
		S.bc[0] = tile + 1;
		S.bc[2] = stored;
	}
}

/*
 * One pass over the frame's tiles (sz_enc_pass). MULTI: this block is one of gridDim.x blocks
 * on the frame (tickets, look-back, done counter); else the only one. Returns the frame's
 * escape count, or SZ_GPU_ESC_STORED, to every thread (once the whole pass is done). With
 * (p.o & SZ_O_HIST), S.hist holds the block's histogram afterwards.
 */
template <int W, bool MULTI, unsigned O, bool FI>
SZ_DEVICE uint64_t sz_enc_run_pass_o(sz_enc_smem<W> &S, sz_gpu_enc_state *st, const sz_enc_pass p)
{
	enum { NW = sz_enc_smem<W>::NW };
	const unsigned t = threadIdx.x, warp = sz_warp<W>(), lane = sz_lane<W>();
	/* The pass's state lives in shared memory (S.bc, S.run, S.taken, S.wsum): the registers
	 * belong to the chunk loop. */
	if (O & SZ_O_HIST)
		sz_enc_hist_clear<W>(S);
	if (lane == 0)
		S.wsum[warp] = 0;
	if (t == 0) {
		S.bc[1] = 0;
		S.run = 0;
		S.taken = 0;
		/* split4 can never win: stored from the start (sz_k_enc_init set st->stored) */
		const bool never = p.can_skip && S.fr.max_esc < 0;
		if (MULTI) {
			sz_enc_next_tile<W, MULTI>(S, st, p, 0, false);
		} else {
			S.bc[0] = 0;
			S.bc[2] = never;
		}
	}
	sz_syncthreads();
	for (;;) {
		const uint64_t tile = sz_uniform_u64<W>(S.bc[0]);
		if (tile >= S.fr.n_tiles)
			break;
		const uint32_t cpw = sz_uniform_u32<W>(S.fr.cpw);
		const uint64_t C = sz_uniform_u64<W>(S.fr.C);
		const bool known_stored = sz_uniform_u32<W>((uint32_t)S.bc[2]) != 0;
		uint32_t *stash = S.stash + warp * sz_enc_smem<W>::CAP;
		uint32_t nst = 0;
		for (uint32_t j = 0; j < cpw; j++) {
			const uint64_t c = tile * NW * cpw + warp * cpw + j;
			uint32_t k = 0;
			if (c < C && !known_stored)
				k = sz_enc_chunk<W, O>(S, c, stash, nst);
			else if (c < C && (O & SZ_O_HASH)) /* stored for sure: the checksum */
				sz_enc_hash_cold<W>(S, c);
			if (lane == 0)
				S.cnt[warp * cpw + j] = k;
		}
		if (lane == 0)
			S.nst[warp] = nst;
		sz_syncthreads(); /* A: the tile's counts are in */
		if (warp == 0) {
			const bool skip = S.bc[2] != 0;
			uint64_t run = S.run;
			sz_enc_tile_ranks<W, MULTI>(S, st, p, S.fr.lb[p.phase == SZ_PH_REDO], tile,
			                            skip, run);
			if (lane == 0) {
				S.run = run;
				S.taken++;
				sz_enc_next_tile<W, MULTI>(S, st, p, tile,
				                           run >= SZ_GPU_ESC_STORED);
			}
		}
		sz_syncthreads(); /* B: ranks and the next tile are known */
		const uint64_t rank = sz_uniform_u64<W>(S.wbase[warp]);
		if ((O & SZ_O_CODES) && rank < SZ_GPU_ESC_STORED) {
			const uint64_t c0 = tile * NW * cpw + warp * cpw;
			if (nst > sz_enc_smem<W>::CAP && FI)
				sz_enc_rescan<W>(S, c0 < C ? c0 : C, c0 + cpw < C ? c0 + cpw : C,
				                 rank);
			else if (nst > sz_enc_smem<W>::CAP)
				sz_enc_rescan_cold<W>(S, c0 < C ? c0 : C,
				                      c0 + cpw < C ? c0 + cpw : C, rank);
			else
				sz_enc_write_escapes<W>(S, stash, nst, rank);
		}
		sz_syncwarp<W>(
		    sz_full_mask<W>()); /* the stash is read before the next tile writes */
	}
	if (O & SZ_O_HIST)
		sz_enc_hist_gather<W>(S);
	else
		sz_syncthreads();
	if (t == 0) {
		uint64_t sum = 0;
		for (unsigned w = 0; w < NW; w++)
			sum += S.wsum[w];
		if (MULTI && (O & SZ_O_HASH) && S.taken) /* see sz_enc_sample */
			sz_atomic_add_relaxed(&st->csum, sum);
		if (!MULTI && (O & SZ_O_HASH))
			S.bc[3] += sum;
	}
	if (MULTI) {
		if ((O & SZ_O_HIST) && S.hist[t])
			sz_atomic_add_relaxed(
			    reinterpret_cast<uint32_t *>(S.fr.ws + SZ_GPU_WS_HIST_R) + t,
			    S.hist[t]);
		sz_syncthreads(); /* every thread's adds come before thread 0's release */
		if (t == 0) {
			sz_atomic_add_release(&st->done[p.phase], S.taken);
			while (sz_atomic_load_acquire(&st->done[p.phase]) < S.fr.n_tiles)
				sz_spin_pause();
			S.bc[1] = S.fr.n_tiles ? sz_gld_u64(&st->esc) : 0;
		}
	}
	sz_syncthreads();
	return S.bc[1];
}

/* sz_enc_run_pass_o for the options of a pass: with a fixed codebook (FI false) only the
 * split4 pass, with or without the checksum; else every combination the passes use. */
template <int W, bool MULTI, bool FI>
SZ_DEVICE uint64_t sz_enc_run_pass(sz_enc_smem<W> &S, sz_gpu_enc_state *st, const sz_enc_pass p)
{
	enum { CS = SZ_O_CODES | SZ_O_SM, H = SZ_O_HASH, I = SZ_O_HIST, R = SZ_O_RAW };
	if (!FI)
		return p.o & H ? sz_enc_run_pass_o<W, MULTI, CS | H, FI>(S, st, p)
		               : sz_enc_run_pass_o<W, MULTI, CS, FI>(S, st, p);
	switch (p.o) {
	case CS:
		return sz_enc_run_pass_o<W, MULTI, CS, FI>(S, st, p);
	case CS | H:
		return sz_enc_run_pass_o<W, MULTI, CS | H, FI>(S, st, p);
	case CS | I:
		return sz_enc_run_pass_o<W, MULTI, CS | I, FI>(S, st, p);
	case CS | H | I:
		return sz_enc_run_pass_o<W, MULTI, CS | H | I, FI>(S, st, p);
	case SZ_O_CODES:
		return sz_enc_run_pass_o<W, MULTI, SZ_O_CODES, FI>(S, st, p);
	case R:
		return sz_enc_run_pass_o<W, MULTI, R, FI>(S, st, p);
	case R | H:
		return sz_enc_run_pass_o<W, MULTI, R | H, FI>(S, st, p);
	case R | I:
		return sz_enc_run_pass_o<W, MULTI, R | I, FI>(S, st, p);
	default:
		return sz_enc_run_pass_o<W, MULTI, R | H | I, FI>(S, st, p);
	}
}

/* The exponents of chunk c into the warp's histogram (and its checksum fold, with the
 * chunk count and elements, into the warp's slots). */
template <int W, bool HASH> SZ_DEVICE void sz_enc_hist_chunk(sz_enc_smem<W> &S, uint64_t c)
{
	const unsigned warp = sz_warp<W>(), lane = sz_lane<W>();
	uint32_t *wh = S.bins + 256 * warp;
	const uint32_t len = (uint32_t)splitzip_chunk_len(S.fr.n, S.fr.L, c), nw = (len + 3) / 4;
	const uint16_t *SZ_RESTRICT src = S.fr.src + (c << S.fr.L);
	const bool vec = S.fr.vec != 0;
	uint64_t acc = splitzip_hash_lane_init(lane & 31);
	for (uint32_t s0 = 0; s0 < len; s0 += W * 8) {
		uint32_t valid;
		const sz_u32x4 v = sz_load8(src, s0 + 8 * lane, len, vec, &valid);
		SZ_UNROLL
		for (unsigned i = 0; i < 8; i++)
			if (valid >> i & 1)
				sz_smem_atomic_add(&wh[(sz_elem8(v, i) >> 7) & 0xFFu], 1u);
		if (HASH)
			acc = sz_hash_segment<W>(acc, (uint64_t)v.y << 32 | v.x,
			                         (uint64_t)v.w << 32 | v.z, s0 / 4, nw);
	}
	uint64_t fold = 0;
	if (HASH)
		fold = sz_hash_chunk_fold<W>(acc, 2 * (uint64_t)len, c);
	if (lane == 0) {
		S.wsum[warp] += fold;
		S.nst[warp]++;
		S.wbase[warp] += len;
	}
}

/*
 * The exponent histogram of a sample of chunks (FORMAT.md §5.1 applied to the sample): every
 * chunk when 'all' (then the codebook is exact, and the checksum is folded here when asked),
 * else one in 16 (at least 16) spread evenly, as the CPU encoder samples. Warps take chunks
 * one at a time (a ticket per warp: no block barriers). Leaves the histogram in S.hist, the
 * sampled elements in S.bc[1]; MULTI: of the whole frame, after every block's part is in.
 */
template <int W, bool MULTI>
SZ_DEVICE void sz_enc_sample(sz_enc_smem<W> &S, sz_gpu_enc_state *st, bool all, bool hash)
{
	enum { NW = sz_enc_smem<W>::NW };
	const sz_enc_frame &fr = S.fr;
	const unsigned t = threadIdx.x, warp = sz_warp<W>(), lane = sz_lane<W>();
	const uint64_t C = fr.C;
	const uint64_t ns = all ? C : C / 16 > 16 ? C / 16 : (C < 16 ? C : 16);
	for (unsigned i = t; i < 256 * NW; i += SZ_GPU_THREADS)
		S.bins[i] = 0;
	if (lane == 0) {
		S.wsum[warp] = 0;
		S.nst[warp] = 0;
		S.wbase[warp] = 0;
	}
	sz_syncthreads();
	for (uint64_t k = warp;; k += NW) {
		if (MULTI) {
			uint32_t tk = 0;
			if (lane == 0)
				tk = sz_atomic_add_relaxed(&st->ticket[SZ_PH_SAMPLE], 1u);
			k = sz_shfl<W>(sz_full_mask<W>(), tk, 0);
		}
		if (k >= ns)
			break;
		if (hash)
			sz_enc_hist_chunk<W, true>(S, C * k / ns);
		else
			sz_enc_hist_chunk<W, false>(S, C * k / ns);
	}
	sz_syncthreads();
	uint32_t h = 0;
	for (unsigned w = 0; w < NW; w++)
		h += S.bins[256 * w + t];
	S.hist[t] = h;
	uint64_t sum = 0, tot = 0;
	uint32_t chunks = 0;
	for (unsigned w = 0; w < NW; w++) {
		sum += S.wsum[w];
		tot += S.wbase[w];
		chunks += S.nst[w];
	}
	if (!MULTI) {
		if (t == 0) {
			S.bc[3] += sum;
			S.bc[1] = tot;
		}
		sz_syncthreads();
		return;
	}
	uint32_t *hs = reinterpret_cast<uint32_t *>(fr.ws + SZ_GPU_WS_HIST_S);
	if (h)
		sz_atomic_add_relaxed(&hs[t], h);
	if (t == 0 && hash && chunks) /* a block without chunks adds nothing: after the waiters
	                                 may have seen the count complete, it must not write */
		sz_atomic_add_relaxed(&st->csum, sum);
	sz_syncthreads(); /* every thread's adds come before thread 0's release */
	if (t == 0) {
		sz_atomic_add_release(&st->done[SZ_PH_SAMPLE], chunks);
		while (sz_atomic_load_acquire(&st->done[SZ_PH_SAMPLE]) < ns)
			sz_spin_pause();
	}
	sz_syncthreads();
	S.hist[t] = sz_gld_u32(&hs[t]);
	if (t ==
	    0) /* the sampled elements: chunk C-1, the only short one, is sampled iff all are */
		S.bc[1] = ns == C ? fr.n : ns << fr.L;
	sz_syncthreads();
}

/*
 * The arguments of frame f (as splitzip_compress() checks them) and the split4 limit: OK, or
 * INVALID_ARGUMENT, or DST_TOO_SMALL when not even the smallest frame this input can give fits.
 */
SZ_DEVICE int32_t sz_enc_check(const sz_gpu_enc &a, uint64_t f, int64_t *max_esc)
{
	const uint64_t n = sz_enc_n(a, f), cap = sz_enc_cap(a, f);
	*max_esc = -1;
	const uint16_t *src = sz_enc_src(a, f);
	if (n > a.max_elems || n > SPLITZIP_MAX_FRAME_ELEMS || !sz_enc_dst(a, f) || (!src && n) ||
	    !sz_aligned(src, 2))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint64_t stored = splitzip_stored_frame_size(n);
	*max_esc = splitzip_split4_max_escapes(n, a.chunk_log2);
	const uint64_t least =
	    *max_esc < 0 ? stored : splitzip_split4_frame_size(n, a.chunk_log2, 0);
	return cap < least && cap < stored ? SPLITZIP_ERROR_DST_TOO_SMALL : SPLITZIP_OK;
}

/* What thread 0 learns about frame f before the block encodes it (S.fr, S.bc[3] = 0). */
template <int W, bool MULTI>
SZ_DEVICE void sz_enc_setup(sz_enc_smem<W> &S, const sz_gpu_enc &a, uint64_t f,
                            sz_gpu_enc_state *st)
{
	sz_enc_frame &fr = S.fr;
	fr.f = f;
	fr.ws = a.ws + a.run.ws_stride * f;
	fr.skip = 0;
	fr.raw = 0;
	if (MULTI) {
		fr.skip = sz_gld_u32(&st->skip);
		fr.max_esc = (int64_t)sz_gld_u64(&st->max_esc);
	} else {
		int64_t me;
		const int32_t s = sz_enc_check(a, f, &me);
		fr.max_esc = me;
		if (s != SPLITZIP_OK) {
			sz_put_result(a.frames.out_sizes, a.frames.statuses, f, 0, s);
			fr.skip = 1;
		}
	}
	if (fr.skip)
		return;
	fr.src = sz_enc_src(a, f);
	fr.dst = sz_enc_dst(a, f);
	fr.n = sz_enc_n(a, f);
	fr.cap = sz_enc_cap(a, f);
	fr.L = a.chunk_log2;
	fr.flags = a.flags;
	fr.C = splitzip_n_chunks(fr.n, fr.L);
	fr.cpw = sz_gpu_chunks_per_warp(fr.L);
	fr.n_tiles = sz_gpu_tiles(fr.n, fr.L, sz_enc_smem<W>::NW);
	splitzip_layout lay;
	splitzip_split4_layout(fr.n, fr.L, 0, &lay); /* these offsets do not depend on E */
	fr.codes_off = lay.codes_off;
	fr.sm_off = lay.sm_off;
	fr.table_off = lay.table_off;
	fr.epos_off = lay.epos_off;
	fr.exps = fr.ws + sz_gpu_ws_exps_off(a.max_elems, fr.L);
	fr.lb[0] =
	    reinterpret_cast<uint64_t *>(fr.ws + sz_gpu_ws_lookback_off(a.max_elems, fr.L, 0));
	fr.lb[1] =
	    reinterpret_cast<uint64_t *>(fr.ws + sz_gpu_ws_lookback_off(a.max_elems, fr.L, 1));
	fr.vec = sz_aligned(fr.src, 16) && sz_aligned(fr.dst, 16);
	for (unsigned k = 0; k < 16; k++)
		fr.cb[k] = sz_enc_fixed_cb(a, k);
	S.bc[3] = 0;
}

/*
 * The end of a frame: the mode is known. split4: exponents into their section, gaps zeroed;
 * stored: the input behind the header unless a pass wrote it; then header and result. The
 * bytes are split over the frame's blocks (MULTI) -- they only write.
 */
template <int W, bool MULTI>
SZ_DEVICE void sz_enc_finish(sz_enc_smem<W> &S, const sz_gpu_enc &a, bool split4, uint64_t E,
                             bool raw_done)
{
	const sz_enc_frame &fr = S.fr;
	sz_gpu_enc_state *st = MULTI ? sz_enc_state(a, fr.f) : nullptr;
	const unsigned t = threadIdx.x;
	const uint64_t b = MULTI ? blockIdx.x : 0, G = MULTI ? gridDim.x : 1;
	const uint64_t gt = b * SZ_GPU_THREADS + t, gs = G * SZ_GPU_THREADS;
	splitzip_layout lay;
	splitzip_split4_layout(fr.n, fr.L, split4 ? E : 0, &lay);
	const uint64_t size = split4 ? lay.frame_size : splitzip_stored_frame_size(fr.n);
	if (size > fr.cap) {
		if (b == 0 && t == 0)
			sz_put_result(a.frames.out_sizes, a.frames.statuses, fr.f, 0,
			              SPLITZIP_ERROR_DST_TOO_SMALL);
		return;
	}
	uint8_t *dst = fr.dst;
	if (split4) {
		for (uint64_t i = gt; i < E; i += gs)
			sz_gst_u8(dst + lay.eexp_off + i, sz_gld_u8(fr.exps + i));
		if (b == 0 &&
		    t < SPLITZIP_SECTION_ALIGN) /* FORMAT.md §4.2.6: each gap < 16 bytes */
			for (int k = 0; k < SPLITZIP_SPLIT4_GAPS; k++) {
				const uint64_t at = splitzip_split4_gap(&lay, k) + t;
				if (at < splitzip_split4_gap_end(&lay, k))
					sz_gst_u8(dst + at, 0);
			}
	} else {
		const uint8_t *s8 = reinterpret_cast<const uint8_t *>(fr.src);
		uint8_t *d8 = dst + SPLITZIP_FRAME_HEADER_SIZE;
		const uint64_t bytes = 2 * fr.n;
		if (!raw_done) {
			uint64_t done = 0;
			if (fr.vec) {
				for (uint64_t u = gt; u < bytes / 16; u += gs)
					sz_gst_x4(d8 + 16 * u, sz_gldro_x4(s8 + 16 * u));
				done = bytes / 16 * 16;
			}
			for (uint64_t i = done + gt; i < bytes; i += gs)
				sz_gst_u8(d8 + i, sz_gldro_u8(s8 + i));
		}
		if (b == 0 && SPLITZIP_FRAME_HEADER_SIZE + bytes + t < size)
			sz_gst_u8(d8 + bytes + t, 0); /* FORMAT.md §4.1 padding */
	}
	if (b != 0 || sz_warp<W>() != 0) /* the header: warp 0 of block 0 */
		return;
	if (t == 0) {
		splitzip_header h;
		splitzip_header_init(&h, split4 ? SPLITZIP_MODE_SPLIT4 : SPLITZIP_MODE_STORED, fr.L,
		                     fr.flags, fr.n);
		h.n_escapes = split4 ? (uint32_t)E : 0;
		for (unsigned k = 0; k < 16; k++)
			h.codebook[k] = split4 ? fr.cb[k] : 0;
		h.frame_size = size;
		if (fr.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) /* every fold was added before */
			h.content_checksum = splitzip_hash_frame_final(
			    fr.n, MULTI ? sz_gld_u64(&st->csum) : S.bc[3]);
		splitzip_header_write_fields(S.hdr, &h); /* shared memory, not registers */
	}
	sz_gpu_put_header_warp<W>(dst, S.hdr);
	if (t == 0)
		sz_put_result(a.frames.out_sizes, a.frames.statuses, fr.f, size, SPLITZIP_OK);
}

/* Whether the codebook in fr.cb equals the 16 bytes at cb. */
SZ_DEVICE bool sz_cb_equal(const uint8_t *a, const uint8_t *b)
{
	for (unsigned k = 0; k < 16; k++)
		if (a[k] != b[k])
			return false;
	return true;
}

/* Frame f by this block (page path) or by gridDim.x blocks (MULTI). See the file comment. */
template <int W, bool MULTI, bool FI>
SZ_DEVICE void sz_enc_frame_run(sz_enc_smem<W> &S, const sz_gpu_enc &a, uint64_t f)
{
	/* Decisions live in shared memory (S.fr, S.pred): registers belong to the passes. */
	if (threadIdx.x == 0)
		sz_enc_setup<W, MULTI>(S, a, f, MULTI ? sz_enc_state(a, f) : nullptr);
	sz_syncthreads();
	if (S.fr.skip)
		return;
	const bool hash = (S.fr.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	const bool exact = S.fr.n < a.run.predict_from;
	uint64_t E = 0;
	if (FI && S.fr.C) {
		sz_enc_sample<W, MULTI>(S, MULTI ? sz_enc_state(a, f) : nullptr, exact,
		                        exact && hash);
		const uint64_t sampled = S.bc[1], covered = sz_enc_select<W>(S);
		if (exact)
			E = S.fr.n - covered;
		else if ((sampled - covered) * SZ_GPU_STORED_GUESS > sampled)
			S.fr.raw = 1; /* every thread writes the same */
	}
	sz_enc_use_codebook<W>(S);
	sz_syncthreads();
	const int64_t max_esc = S.fr.max_esc;
	if (FI && exact && S.fr.C && (max_esc < 0 || E > (uint64_t)max_esc)) {
		sz_enc_finish<W, MULTI>(S, a, false, 0, false); /* stored, known from the sample */
		return;
	}
	{
		/* a fixed codebook never writes the raw copy in the pass: a frame that cannot be
		 * split4 is marked stored by its first tile, and copied at the end */
		const bool raw = FI && (S.fr.raw || max_esc < 0) &&
		                 S.fr.cap >= splitzip_stored_frame_size(S.fr.n);
		const bool hist = FI && !exact;
		const unsigned o = (raw ? SZ_O_RAW : SZ_O_CODES | SZ_O_SM) |
		                   (hash && !(FI && exact) ? SZ_O_HASH : 0) |
		                   (hist ? SZ_O_HIST : 0);
		sz_syncthreads(); /* S.fr.raw is read; it is rewritten below */
		if (threadIdx.x == 0)
			S.fr.raw = raw;
		const sz_enc_pass p = {SZ_PH_ENCODE, o, !hist && !raw};
		E = sz_enc_run_pass<W, MULTI, FI>(S, MULTI ? sz_enc_state(a, f) : nullptr, p);
	}
	/* after the pass, the decisions come back from shared memory, not registers */
	const bool raw = S.fr.raw != 0;
	if (!FI || S.fr.n < a.run.predict_from) {
		const int64_t me = S.fr.max_esc;
		sz_enc_finish<W, MULTI>(S, a, !raw && me >= 0 && E <= (uint64_t)me, E, raw);
		return;
	}
	/* A predicted codebook: the exact one from the whole histogram (FORMAT.md §6.2). */
	const unsigned t = threadIdx.x;
	if (t < 16)
		S.pred[t] = S.fr.cb[t];
	if (MULTI)
		S.hist[t] =
		    sz_gld_u32(reinterpret_cast<const uint32_t *>(S.fr.ws + SZ_GPU_WS_HIST_R) + t);
	sz_syncthreads();
	E = S.fr.n - sz_enc_select<W>(S);
	const bool split4 = S.fr.max_esc >= 0 && E <= (uint64_t)S.fr.max_esc;
	if (split4 && (raw || !sz_cb_equal(S.pred, S.fr.cb))) {
		sz_enc_use_codebook<W>(S);
		sz_syncthreads();
		const sz_enc_pass redo = {SZ_PH_REDO, SZ_O_CODES | (raw ? (unsigned)SZ_O_SM : 0u),
		                          false};
		E = sz_enc_run_pass<W, MULTI, FI>(S, MULTI ? sz_enc_state(a, f) : nullptr, redo);
	}
	sz_enc_finish<W, MULTI>(S, a, split4, E, raw && !split4);
}

/* ==================================================================== */
/*                          Encoder: the kernels                        */
/* ==================================================================== */

/*
 * Resident blocks per SM the encode kernels are built for: 4 (64 registers) with a fixed
 * codebook; 3 (80 registers) with the codebook from the input, whose kernels also hold the
 * sample, the histogram counters and the second pass (at 64 registers they spill).
 */
#define SZ_GPU_ENC_BLOCKS(fi) ((fi) ? 3 : 4)

/* Per frame (blockIdx.y): zeroed state, histograms and look-back words; the argument checks. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_enc_init(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	uint8_t *ws = a.ws + a.run.ws_stride * f;
	const unsigned t = threadIdx.x;
	const uint64_t n = sz_enc_n(a, f) <= a.max_elems ? sz_enc_n(a, f) : a.max_elems;
	const uint64_t tiles = splitzip_n_chunks(n, a.chunk_log2); /* at least the tiles */
	uint64_t *lb0 =
	    reinterpret_cast<uint64_t *>(ws + sz_gpu_ws_lookback_off(a.max_elems, a.chunk_log2, 0));
	uint64_t *lb1 =
	    reinterpret_cast<uint64_t *>(ws + sz_gpu_ws_lookback_off(a.max_elems, a.chunk_log2, 1));
	for (uint64_t i = (uint64_t)blockIdx.x * SZ_GPU_THREADS + t; i < tiles;
	     i += (uint64_t)gridDim.x * SZ_GPU_THREADS) {
		sz_gst_u64(&lb0[i], 0);
		sz_gst_u64(&lb1[i], 0);
	}
	if (blockIdx.x != 0)
		return;
	for (unsigned i = t; i < (SZ_GPU_WS_LOOKBACK - SZ_GPU_WS_HIST_S) / 4; i += SZ_GPU_THREADS)
		sz_gst_u32(ws + SZ_GPU_WS_HIST_S + 4 * i, 0);
	if (t != 0)
		return;
	int64_t me;
	const int32_t s = sz_enc_check(a, f, &me);
	sz_gpu_enc_state z;
	__builtin_memset(&z, 0, sizeof z);
	z.max_esc = me;
	z.skip = s != SPLITZIP_OK;
	z.stored = me < 0; /* split4 never wins: no tile writes its sections */
	if (a.encoding == SPLITZIP_ENCODING_AUTO) {
		/* the auto encoding (sz_gpu_entropy_enc.cuh) chose the mode: split4 frames only
		 * here; every other result is the entropy kernels' */
		const sz_gpu_ent_state *es = reinterpret_cast<const sz_gpu_ent_state *>(
		    ws + sz_gpu_ws_stride(a.max_elems, a.chunk_log2));
		if (sz_gld_u32(&es->mode) != SPLITZIP_MODE_SPLIT4) {
			z.skip = 1;
			sz_gst_words(ws, &z, sizeof z);
			return;
		}
	}
	sz_gst_words(ws, &z, sizeof z);
	if (s != SPLITZIP_OK)
		sz_put_result(a.frames.out_sizes, a.frames.statuses, f, 0, s);
}

/* One frame (blockIdx.y + frame0) by gridDim.x persistent blocks. 4 blocks of 256 threads per
 * SM: at most 64 registers, the budget under which no architecture spills. */
template <int W, bool FI>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS,
                                  SZ_GPU_ENC_BLOCKS(FI)) void sz_k_encode(sz_gpu_enc a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_enc_smem<W>, S, 1);
	sz_enc_frame_run<W, true, FI>(S[0], a, a.run.frame0 + blockIdx.y);
}

#endif /* SZ_GPU_ENCODE_CUH */
