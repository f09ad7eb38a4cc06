/*
 * sz_gpu_dtype_dec.cuh -- the GPU decoder of frames of every dtype (doc/FORMAT.md 1.3: BF16,
 * FP8 E4M3 and E5M2, FP16, FP32) into outputs of any alignment, one source for CUDA, HIP and
 * the CPU SIMT harness. Its output and statuses equal core/sz_dtype_codec.c's (and, for BF16,
 * core/sz_ref.c's): every body rule is CORRUPT_STREAM, checked before the content checksum.
 *
 * Shape of the work. sz_k_dt_dec_init reads and checks each frame's header once (a warp; the
 * dtype rules of core/sz_dtype_layout.h) and its padding (§4.1, §4.2.6, §4.3.7, §2.3: the gaps
 * between sections, the pad nibbles, the pad bits of PL3) and writes the state.
 * sz_k_dt_decode's groups of 32 threads decode whole chunks, a group per chunk (a wavefront of
 * 64 is two groups side by side, as in sz_gpu_entropy_dec.cuh), in batches of 256 elements:
 *   1. the batch's exponents into a 256-byte row of shared memory: split4 codes through the
 *      codebook, then the chunk's escape records whose positions fall in the batch (each one
 *      checked, §4.2.7 rule 3); or 8 steps of the 32 entropy lanes (§4.3.5), with e raw bits
 *      after an escape; stored frames skip this;
 *   2. thread l joins elements l, l + 32, ... with their rest fields (§2.2-§2.3: SM, LO8 and
 *      LO16 bytes, NIB nibbles, PL3 plane bits) into the batch's output bytes in shared memory;
 *   3. thread l stores the batch's u64 words l, l + 32, ... (coalesced) and feeds them to hash
 *      lane l (§7.1: word j of a chunk goes to lane j mod 32; every batch starts on a multiple
 *      of 32 words).
 * The chunk tables are checked per chunk before use (T[c-1] <= T[c] with the bounds of §4.2.7
 * rule 2 and §4.3.6 rule 3: all chunks together are exactly the rules); the last block of a
 * frame (acq_rel done counter) writes the status from the corruption flag, the escape total
 * (§4.3.6 rule 5) and the checksum.
 */
#ifndef SZ_GPU_DTYPE_DEC_CUH
#define SZ_GPU_DTYPE_DEC_CUH

#include "../../core/sz_dtype_layout.h"
#include "sz_gpu_dtype_args.h"
#include "sz_gpu_driver.cuh" /* sz_dec_status, the launch geometry */

/* Elements of a batch, and the bytes of its output row (the widest dtype: 4 bytes). */
#define SZ_DT_BATCH 256u
#define SZ_DT_ROW_WORDS (SZ_DT_BATCH * 4u / 8u)
/* Blocks per multiprocessor sz_k_dt_decode asks for (CUDA): a register budget of 85, under
 * which ptxas allocates it without spills on sm_80..sm_120 (with no budget it kept 64 and
 * spilled 50 bytes on sm_80). */
#define SZ_DT_DEC_BLOCKS 3

/* The frame's arguments at any alignment. */
SZ_DEVICE const uint8_t *sz_dtd_src(const sz_gpu_dt_dec &a, uint64_t f)
{
	return static_cast<const uint8_t *>(a.frames.srcs ? sz_gld_ptr(&a.frames.srcs[f])
	                                                  : a.frames.one.src);
}
SZ_DEVICE uint64_t sz_dtd_size(const sz_gpu_dt_dec &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.src_sizes[f]) : a.frames.one.size;
}
SZ_DEVICE uint8_t *sz_dtd_dst(const sz_gpu_dt_dec &a, uint64_t f)
{
	return static_cast<uint8_t *>(a.frames.srcs ? sz_gld_ptr(&a.frames.dsts[f])
	                                            : a.frames.one.dst);
}
SZ_DEVICE uint64_t sz_dtd_cap(const sz_gpu_dt_dec &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.dst_caps[f]) : a.frames.one.cap;
}

/* What a block knows about the frame it decodes (shared memory, written by thread 0). */
struct sz_dt_frame {
	const uint8_t *src;
	uint8_t *dst;
	uint64_t n, C, E;
	uint32_t L, mode, hash, width, ebits;
	int32_t status;
	splitzip_dtype_desc d;
	sz_dt_layout lay;
	splitzip_header h;
	uint8_t cb[16];   /* split4: the codebook */
	uint32_t incb[8]; /* split4: bit x set for the 16 exponents of the codebook */
};

enum { SZ_DT_GROUPS = SZ_GPU_THREADS / SPLITZIP_ENTROPY_LANES };

template <int W> struct sz_dt_smem {
	enum { NW = SZ_GPU_THREADS / W };
	sz_dt_frame fr;
	uint64_t wsum[NW];
	uint32_t wbad[NW], wesc[NW];
	uint32_t bad;
	uint8_t hdr[SPLITZIP_FRAME_HEADER_SIZE];
	uint8_t xs[SZ_DT_GROUPS][SZ_DT_BATCH];       /* a batch's exponents, per group */
	uint64_t row[SZ_DT_GROUPS][SZ_DT_ROW_WORDS]; /* a batch's output bytes, per group */
};

/* The block's view of a frame whose header passed (thread 0). */
SZ_DEVICE_COLD void sz_dt_setup(sz_dt_frame &fr, const sz_gpu_dt_dec &a, uint64_t f,
                                const splitzip_header &h)
{
	fr.h = h;
	fr.src = sz_dtd_src(a, f);
	fr.dst = sz_dtd_dst(a, f);
	(void)sz_dt_desc_get(h.dtype, &fr.d);
	fr.n = h.n_elems;
	fr.E = h.n_escapes;
	fr.L = h.chunk_log2;
	fr.mode = h.mode;
	fr.hash = (h.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	fr.width = fr.d.width;
	fr.ebits = fr.d.ebits;
	fr.C = splitzip_n_chunks(fr.n, fr.L);
	__builtin_memset(&fr.lay, 0, sizeof fr.lay);
	if (fr.mode == SPLITZIP_MODE_SPLIT4)
		sz_dt_split4_layout(&fr.d, fr.n, fr.L, fr.E, &fr.lay);
	else if (fr.mode == SPLITZIP_MODE_ENTROPY)
		sz_dt_entropy_layout(&fr.d, fr.n, fr.L, h.n_words, h.table_first, h.table_last,
		                     &fr.lay);
	for (unsigned k = 0; k < 8; k++)
		fr.incb[k] = 0;
	for (unsigned k = 0; k < 16; k++) {
		fr.cb[k] = fr.mode == SPLITZIP_MODE_SPLIT4 ? h.codebook[k] : 0;
		if (fr.mode == SPLITZIP_MODE_SPLIT4)
			fr.incb[h.codebook[k] / 32] |= 1u << (h.codebook[k] % 32);
	}
}

/* ---- Header and padding (sz_k_dt_dec_init) ------------------------------------------------ */

/*
 * FORMAT.md §3.2-3.3 steps 0-13 for frame f, whose first min(size, 64) bytes are at hb, by
 * one thread, with the statuses of splitzip_decompress_dtype(): the header of any dtype, a
 * frame that does not fit its input (TRUNCATED), elements that do not fit the output bytes
 * (DST_TOO_SMALL), no output for a frame with elements (INVALID_ARGUMENT).
 */
SZ_DEVICE int32_t sz_dt_parse(const sz_gpu_dt_dec &a, uint64_t f, splitzip_header *h,
                              const uint8_t *hb, uint64_t size, uint32_t checksum)
{
	int32_t s = size < SPLITZIP_FRAME_HEADER_SIZE
	                ? splitzip_read_header(hb, size, h)
	                : splitzip_header_status(sz_dt_header_parse_checked(hb, checksum, h));
	splitzip_dtype_desc d{};
	d.width = 1;
	if (s == SPLITZIP_OK && h->frame_size > size)
		s = SPLITZIP_ERROR_TRUNCATED; /* step 12 */
	else if (s == SPLITZIP_OK && sz_dt_desc_get(h->dtype, &d) &&
	         h->n_elems > sz_dtd_cap(a, f) / d.width)
		s = SPLITZIP_ERROR_DST_TOO_SMALL; /* step 13 */
	else if (s == SPLITZIP_OK && !sz_dtd_dst(a, f) && h->n_elems)
		s = SPLITZIP_ERROR_INVALID_ARGUMENT;
	return s;
}

/* Frame f's header read and checked by one warp; lane 0 writes fr.status and, on success, the
 * block's view (else fr.h as far as it was read). */
template <int W>
SZ_DEVICE_COLD void sz_dt_header_warp(sz_dt_frame &fr, const sz_gpu_dt_dec &a, uint64_t f,
                                      uint8_t *hb)
{
	uint64_t p = 0, n = 0;
	if (sz_lane<W>() == 0) {
		p = (uint64_t)(uintptr_t)sz_dtd_src(a, f);
		n = sz_dtd_size(a, f);
	}
	sz_dec_where w;
	w.src = reinterpret_cast<const uint8_t *>((uintptr_t)sz_shfl<W>(sz_full_mask<W>(), p, 0));
	w.size = sz_shfl<W>(sz_full_mask<W>(), n, 0);
	sz_dec_load_header<W>(w, hb);
	const bool whole = w.size >= SPLITZIP_FRAME_HEADER_SIZE && w.src;
	const uint32_t cs = whole ? sz_hdr_checksum_warp<W>(hb) : 0;
	if (sz_lane<W>() != 0)
		return;
	splitzip_header h;
	__builtin_memset(&h, 0, sizeof h);
	const int32_t s = w.src ? sz_dt_parse(a, f, &h, hb, w.size, cs)
	                        : (int32_t)SPLITZIP_ERROR_INVALID_ARGUMENT;
	fr.status = s;
	if (s == SPLITZIP_OK)
		sz_dt_setup(fr, a, f, h);
	else
		fr.h = h;
}

/* Byte t of the gap [a, b) of the frame is nonzero (gaps are shorter than 16 bytes). */
SZ_DEVICE bool sz_dt_gap_bad(const sz_dt_frame &fr, uint64_t a, uint64_t b, unsigned t)
{
	return a + t < b && sz_gldro_u8(fr.src + a + t) != 0;
}

/* The pad of rest section k: the high nibble of NIB's last byte for odd n, the bits of PL3's
 * last group past n in its three planes (§2.3). Thread 0. */
SZ_DEVICE bool sz_dt_rest_pad_bad(const sz_dt_frame &fr, unsigned k)
{
	const uint8_t *sec = fr.src + fr.lay.rest[k];
	if (fr.d.rest[k] == SZ_REST_NIB)
		return (fr.n & 1) && (sz_gldro_u8(sec + fr.n / 2) >> 4) != 0;
	if (fr.d.rest[k] != SZ_REST_PL3 || fr.n % 64 == 0)
		return false;
	bool bad = false;
	for (uint64_t i = fr.n; i % 64; i++)
		for (unsigned q = 0; q < 3; q++)
			bad |=
			    ((sz_gldro_u8(sec + 24 * (i / 64) + 8 * q + (i % 64) / 8) >> (i % 8)) &
			     1u) != 0;
	return bad;
}

/* The padding rules of the frame for thread t (threads 0..15 check a byte of each gap, thread
 * 0 the pad nibbles and bits): the gaps around the rest sections up to 'next', and those of the
 * mode's other sections. */
SZ_DEVICE_COLD bool sz_dt_padding_bad(const sz_dt_frame &fr, unsigned t)
{
	if (t >= SPLITZIP_SECTION_ALIGN)
		return false;
	const sz_dt_layout &L = fr.lay;
	if (fr.mode == SPLITZIP_MODE_STORED)
		return sz_dt_gap_bad(fr, SPLITZIP_FRAME_HEADER_SIZE + fr.width * fr.n,
		                     fr.h.frame_size, t);
	const bool s4 = fr.mode == SPLITZIP_MODE_SPLIT4;
	const uint64_t next = s4 ? L.table : L.lengths;
	bool bad = false;
	for (unsigned k = 0; k < fr.d.n_rest; k++) {
		bad |=
		    sz_dt_gap_bad(fr, L.rest_end[k], k + 1 < fr.d.n_rest ? L.rest[k + 1] : next, t);
		bad |= t == 0 && sz_dt_rest_pad_bad(fr, k);
	}
	bad |= sz_dt_gap_bad(fr, L.table + 4 * L.n_chunks, s4 ? L.positions : L.stream, t);
	if (s4) {
		bad |= sz_dt_gap_bad(fr, L.codes + (fr.n + 1) / 2, L.rest[0], t);
		bad |= sz_dt_gap_bad(fr, L.positions + 2 * fr.E, L.exponents, t);
		bad |= sz_dt_gap_bad(fr, L.exponents + fr.E, L.size, t);
		bad |= t == 0 && (fr.n & 1) && (sz_gldro_u8(fr.src + L.codes + fr.n / 2) >> 4) != 0;
		return bad;
	}
	const uint64_t K = splitzip_entropy_nibbles(fr.h.table_first, fr.h.table_last);
	bad |= sz_dt_gap_bad(fr, L.lengths + (K + 1) / 2, L.table, t);
	bad |= sz_dt_gap_bad(fr, L.stream + 2 * (uint64_t)fr.h.n_words, L.size, t);
	bad |= t == 0 && (K & 1) && (sz_gldro_u8(fr.src + L.lengths + K / 2) >> 4) != 0;
	return bad;
}

/* Per frame (blockIdx.y + frame0, one block): the header by warp 0, the padding rules, the
 * state sz_k_dt_decode reads; a frame whose header fails gets its status here. */
template <int W> SZ_GLOBAL SZ_LAUNCH_BOUNDS(SZ_GPU_THREADS) void sz_k_dt_dec_init(sz_gpu_dt_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dt_smem<W>, S, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	const unsigned t = threadIdx.x;
	if (sz_warp<W>() == 0) /* warp-uniform */
		sz_dt_header_warp<W>(S[0].fr, a, f, S[0].hdr);
	if (t == 0)
		S[0].bad = 0;
	sz_syncthreads();
	const bool ok = S[0].fr.status == SPLITZIP_OK;
	if (ok && sz_dt_padding_bad(S[0].fr, t))
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

/* ---- Chunks (sz_k_dt_decode) --------------------------------------------------------------- */

/* The rest field of element i in section k (§2.3). */
SZ_DEVICE unsigned sz_dt_dec_rest_at(const sz_dt_frame &fr, unsigned k, uint64_t i)
{
	const uint8_t *sec = fr.src + fr.lay.rest[k];
	switch (fr.d.rest[k]) {
	case SZ_REST_SM:
	case SZ_REST_LO8:
		return sz_gldro_u8(sec + i);
	case SZ_REST_LO16:
		return sz_gld_le16(sec + 2 * i);
	case SZ_REST_NIB:
		return (sz_gldro_u8(sec + i / 2) >> (4 * (i & 1))) & 0xFu;
	default: {
		unsigned r = 0;
		for (unsigned q = 0; q < 3; q++)
			r |= ((sz_gldro_u8(sec + 24 * (i / 64) + 8 * q + (i % 64) / 8) >> (i % 8)) &
			      1u)
			     << q;
		return r;
	}
	}
}

/* The 4-bit code of element i of a split4 frame. */
SZ_DEVICE unsigned sz_dt_code_at(const sz_dt_frame &fr, uint64_t i)
{
	return (sz_gldro_u8(fr.src + fr.lay.codes + i / 2) >> (4 * (i & 1))) & 0xFu;
}

/* What a group carries through one chunk. */
struct sz_dt_chunk_state {
	uint64_t c, base;         /* chunk, its first element */
	uint32_t len;             /* elements (0: no chunk for this group) */
	uint32_t r0, r1;          /* split4: its escape records; entropy: its words [r0, r1) */
	uint32_t cur;             /* split4: the next record (group-uniform) */
	uint32_t buf, bits, next; /* entropy: this lane's bit buffer, the group's next word */
	bool dead;                /* absent or broken: no more reads or stores */
	bool fail;                /* this lane broke a rule in the current batch */
	uint32_t nesc;            /* entropy: this lane's escapes */
	uint64_t acc;             /* this lane's hash lane */
};

/* The chunk table entries of chunk c, checked (§4.2.7 rule 2 for split4, §4.3.6 rule 3 for
 * entropy); false if they break the rule. */
SZ_DEVICE bool sz_dt_chunk_range(const sz_dt_frame &fr, sz_dt_chunk_state &k)
{
	const uint8_t *T = fr.src + fr.lay.table;
	const uint64_t t0 = k.c ? sz_gld_le32(T + 4 * (k.c - 1)) : 0, t1 = sz_gld_le32(T + 4 * k.c);
	const uint64_t total = fr.mode == SPLITZIP_MODE_SPLIT4 ? fr.E : fr.h.n_words;
	if (t1 < t0 || t1 > total || (k.c + 1 == fr.C && t1 != total) ||
	    (fr.mode == SPLITZIP_MODE_SPLIT4 && t1 - t0 > k.len))
		return false;
	k.r0 = (uint32_t)t0;
	k.r1 = (uint32_t)t1;
	return true;
}

/*
 * Split4: the escape records of the chunk whose positions fall in the batch at chunk offset
 * i0, in record order from k.cur, checked (§4.2.7 rule 3: positions ascending and inside the
 * chunk, exponents below 2^e and outside the codebook, code 0 at the position) and patched
 * into xs. Records stop at the first one past the batch; one that comes after a descent is
 * taken with the batch it falls in and fails the order check. Loops while any group of the
 * warp has a full 32 records in its batch (wave-uniform).
 */
template <int W>
SZ_DEVICE void sz_dt_patch(const sz_dt_frame &fr, const sz_dt_frame &sfr, sz_dt_chunk_state &k,
                           uint32_t i0, uint8_t *xs)
{
	const unsigned hl = sz_lane<W>() & 31u, sh = sz_lane<W>() & 32u;
	const uint8_t *P = fr.src + fr.lay.positions, *X = fr.src + fr.lay.exponents;
	for (;;) {
		const uint32_t r = k.cur + hl;
		const bool valid = !k.dead && r < k.r1;
		uint32_t pos = 0, x = 0;
		if (valid) {
			pos = sz_gld_le16(P + 2 * (uint64_t)r);
			x = sz_gldro_u8(X + r);
		}
		const bool inb = valid && pos < i0 + SZ_DT_BATCH;
		const uint32_t m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), inb) >> sh);
		const uint64_t z = ~(uint64_t)m & ((uint64_t)m + 1); /* the lowest lane not in */
		const uint32_t take = (uint32_t)sz_popc64(z - 1);
		if (hl < take) {
			const bool order =
			    r > k.r0 && pos <= sz_gld_le16(P + 2 * (uint64_t)(r - 1));
			k.fail |= order || pos >= k.len || x >= (1u << fr.ebits) ||
			          ((sfr.incb[x / 32] >> (x % 32)) & 1u) ||
			          sz_dt_code_at(fr, k.base + pos);
			if (pos - i0 < SZ_DT_BATCH)
				xs[pos - i0] = (uint8_t)x;
		}
		k.cur += take;
		const bool more = take == 32u && k.cur < k.r1;
		if (!sz_any<W>(sz_full_mask<W>(), more))
			break;
	}
}

/* Split4: the batch's exponents from the codes, then the escapes (thread hl: elements hl,
 * hl + 32, ... of the batch). */
template <int W>
SZ_DEVICE void sz_dt_batch_split4(const sz_dt_frame &fr, const sz_dt_frame &sfr,
                                  sz_dt_chunk_state &k, uint32_t i0, uint8_t *xs)
{
	const unsigned hl = sz_lane<W>() & 31u;
	/* rolled: unrolled, it took the split4 kernel past 96 VGPRs on gfx942 */
	const uint32_t m = k.dead ? 0u : SZ_DT_BATCH / 32;
	SPLITZIP_ROLLED
	for (uint32_t j = 0; j < m; j++) {
		const uint32_t p = 32 * j + hl;
		if (i0 + p < k.len)
			xs[p] = sfr.cb[sz_dt_code_at(fr, k.base + i0 + p)];
	}
	sz_syncwarp<W>(sz_full_mask<W>());
	sz_dt_patch<W>(fr, sfr, k, i0, xs);
}

/* Entropy: a lane's refill from the group's words (a ballot in lane order); false if the
 * chunk's words are used up (§4.3.6 rule 4: never read). */
template <int W>
SZ_DEVICE bool sz_dt_refill(const sz_dt_frame &fr, sz_dt_chunk_state &k, bool need, bool a2)
{
	const unsigned hl = sz_lane<W>() & 31u, sh = sz_lane<W>() & 32u;
	const uint32_t m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
	const uint32_t pos = k.next + (uint32_t)sz_popc64(m & ((1u << hl) - 1));
	k.next += (uint32_t)sz_popc64(m);
	if (!need)
		return true;
	if (pos >= k.r1 - k.r0)
		return false;
	const uint8_t *w = fr.src + fr.lay.stream + 2 * ((uint64_t)k.r0 + pos);
	k.buf |= sz_ent_word(w, a2) << k.bits;
	k.bits += SPLITZIP_ENTROPY_WORD_BITS;
	return true;
}

/* Entropy: the 8 steps of the 32 lanes that decode the batch at chunk offset i0 into xs
 * (§4.3.5; escapes: the escape symbol, then e raw bits, which must not be a coded exponent). */
template <int W>
SZ_DEVICE void sz_dt_batch_entropy(const sz_ent_dec_smem &E, const sz_dt_frame &fr,
                                   sz_dt_chunk_state &k, uint32_t i0, uint8_t *xs, bool a2)
{
	const unsigned hl = sz_lane<W>() & 31u, eb = fr.ebits;
	for (uint32_t j = 0; j < SZ_DT_BATCH / 32; j++) {
		const uint32_t p = 32 * j + hl;
		const bool act = !k.dead && !k.fail && i0 + p < k.len;
		if (!sz_dt_refill<W>(fr, k, act && k.bits < SPLITZIP_ENTROPY_REFILL_SYMBOL, a2))
			k.fail = true;
		uint32_t x = 0;
		bool esc = false;
		if (act && !k.fail) {
			const uint32_t e = E.lut[k.buf & (SZ_ENTROPY_LUT_SIZE - 1)];
			const uint32_t l = e >> SZ_ENT_LUT_LEN_SHIFT;
			k.buf >>= l;
			k.bits -= l;
			x = e & 0xFFu;
			esc = (e & SPLITZIP_ENTROPY_DEC_SYM_MASK) == SPLITZIP_ENTROPY_ESC;
		}
		if (sz_any<W>(sz_full_mask<W>(), esc)) { /* warp-uniform */
			if (!sz_dt_refill<W>(fr, k, esc && k.bits < eb, a2)) {
				k.fail = true;
				esc = false;
			}
		}
		if (esc) {
			x = k.buf & ((1u << eb) - 1);
			k.buf >>= eb;
			k.bits -= eb;
			k.fail |= ((E.coded[x / 32] >> (x % 32)) & 1u) != 0;
			k.nesc++;
		}
		if (act)
			xs[p] = (uint8_t)x;
	}
}

/* Step 2: thread hl joins elements hl, hl + 32, ... of the batch (v elements) with their rest
 * fields into the batch's output row. */
template <int W>
SZ_DEVICE void sz_dt_join_batch(const sz_dt_frame &fr, const sz_dt_chunk_state &k, uint32_t i0,
                                uint32_t v, const uint8_t *xs, uint8_t *row)
{
	const unsigned hl = sz_lane<W>() & 31u, w = fr.width;
	for (uint32_t j = 0; j < SZ_DT_BATCH / 32; j++) {
		const uint32_t p = 32 * j + hl;
		if (p >= v)
			break;
		const uint64_t i = k.base + i0 + p;
		const unsigned r1 = fr.d.n_rest > 1 ? sz_dt_dec_rest_at(fr, 1, i) : 0;
		const uint32_t e = sz_dt_join_of(fr.d.code, xs[p], sz_dt_dec_rest_at(fr, 0, i), r1);
		for (unsigned b = 0; b < w; b++)
			row[w * p + b] = (uint8_t)(e >> (8 * b));
	}
}

/* Step 3: the B bytes of a batch, from 'from' (shared memory, or the frame body of a stored
 * frame: GLOBAL), stored at 'to' and hashed: thread hl takes words hl, hl + 32, ... (hash
 * lane hl), the last one zero-padded. One address space per instance (a pointer that may be
 * either is a flat access on AMD). */
template <bool GLOBAL>
SZ_DEVICE void sz_dt_put_batch(const uint8_t *from, uint8_t *to, uint32_t B, unsigned hl,
                               unsigned w, bool hash, uint64_t &acc)
{
	for (unsigned r = 0; r < w; r++) {
		const uint32_t q = 8 * (hl + 32 * r);
		if (q >= B)
			break;
		const uint32_t nb = B - q < 8 ? B - q : 8;
		uint64_t v = 0;
		if (!GLOBAL && nb == 8)
			__builtin_memcpy(&v, from + q, 8);
		else if (GLOBAL && nb == 8 && sz_aligned(from + q, 8))
			v = sz_gldro_u64(from + q);
		else
			for (unsigned b = 0; b < nb; b++)
				v |= (uint64_t)(GLOBAL ? sz_gldro_u8(from + q + b) : from[q + b])
				     << (8 * b);
		if (nb == 8 && sz_aligned(to + q, 8))
			sz_gst_u64(to + q, v);
		else
			for (unsigned b = 0; b < nb; b++)
				sz_gst_u8(to + q + b, (uint8_t)(v >> (8 * b)));
		if (hash)
			acc = splitzip_hash_round(acc, v);
	}
}

/* The end of chunk k: entropy's rule 4 (every word read, no bit left in any lane), a split4
 * chunk's records all taken, the checksum fold into csum (the group's thread 0). */
template <int W>
SZ_DEVICE void sz_dt_chunk_end(const sz_dt_frame &fr, sz_dt_chunk_state &k, uint64_t &csum,
                               bool &bad)
{
	const unsigned hl = sz_lane<W>() & 31u, sh = sz_lane<W>() & 32u;
	const bool live = k.len != 0;
	const bool left = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), k.buf != 0) >> sh) != 0;
	if (fr.mode == SPLITZIP_MODE_ENTROPY && live && !k.dead && (k.next != k.r1 - k.r0 || left))
		k.dead = true;
	if (fr.mode == SPLITZIP_MODE_SPLIT4 && live && !k.dead && k.cur != k.r1)
		k.dead = true;
	bad |= live && k.dead;
	if (!fr.hash)
		return;
	uint64_t part = splitzip_hash_lane_fold(k.acc, hl);
	for (int s = 16; s > 0; s >>= 1)
		part += sz_shfl_xor<W>(sz_full_mask<W>(), part, s, 32);
	if (hl == 0 && live)
		csum += splitzip_hash_chunk_fold(
		    splitzip_hash_chunk_final((uint64_t)fr.width * k.len, part), k.c);
}

/*
 * Chunk c (live: c < C) by this thread's group, in batches; every group of a warp runs the
 * same number of batches (the longer chunk's at W = 64). Adds to csum, nesc and bad.
 */
template <int W, bool ENT>
SZ_DEVICE void sz_dt_chunk(sz_dt_smem<W> &S, const sz_dt_frame &fr, const sz_ent_dec_smem *E,
                           uint64_t c, bool live, uint64_t &csum, uint32_t &nesc, bool &bad)
{
	const unsigned hl = sz_lane<W>() & 31u, g = sz_linear_tid() / 32u, sh = sz_lane<W>() & 32u;
	const bool a2 = sz_aligned(fr.src, 2);
	sz_dt_chunk_state k;
	__builtin_memset(&k, 0, sizeof k);
	k.c = c;
	k.base = c << fr.L;
	k.len = live ? (uint32_t)splitzip_chunk_len(fr.n, fr.L, c) : 0u;
	k.dead = !live;
	k.acc = splitzip_hash_lane_init(hl);
	if (live && (ENT || fr.mode != SPLITZIP_MODE_STORED) && !sz_dt_chunk_range(fr, k))
		k.dead = true;
	k.cur = k.r0;
	const uint32_t nb = (k.len + SZ_DT_BATCH - 1) / SZ_DT_BATCH;
	const uint32_t nbo = sz_shfl_xor<W>(sz_full_mask<W>(), nb, (W / 2) & 32);
	const uint8_t *body = fr.src + SPLITZIP_FRAME_HEADER_SIZE + fr.width * k.base;
	uint8_t *out = fr.dst + fr.width * k.base;
	uint8_t *row = reinterpret_cast<uint8_t *>(S.row[g]);
	for (uint32_t b = 0; b < (nb > nbo ? nb : nbo); b++) {
		const uint32_t i0 = SZ_DT_BATCH * b;
		const uint32_t v =
		    k.len > i0 ? (k.len - i0 < SZ_DT_BATCH ? k.len - i0 : SZ_DT_BATCH) : 0;
		if (ENT)
			sz_dt_batch_entropy<W>(*E, fr, k, i0, S.xs[g], a2);
		else if (fr.mode == SPLITZIP_MODE_SPLIT4)
			sz_dt_batch_split4<W>(fr, S.fr, k, i0, S.xs[g]);
		k.dead |= (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), k.fail) >> sh) != 0;
		k.fail = false;
		sz_syncwarp<W>(sz_full_mask<W>());
		const bool stored = !ENT && fr.mode == SPLITZIP_MODE_STORED;
		if (!k.dead && !stored)
			sz_dt_join_batch<W>(fr, k, i0, v, S.xs[g], row);
		sz_syncwarp<W>(sz_full_mask<W>());
		if (!k.dead && stored)
			sz_dt_put_batch<true>(body + fr.width * i0, out + fr.width * i0,
			                      fr.width * v, hl, fr.width, fr.hash != 0, k.acc);
		else if (!k.dead)
			sz_dt_put_batch<false>(row, out + fr.width * i0, fr.width * v, hl, fr.width,
			                       fr.hash != 0, k.acc);
		sz_syncwarp<W>(sz_full_mask<W>());
	}
	sz_dt_chunk_end<W>(fr, k, csum, bad);
	nesc += k.nesc;
}

/* The fields of the frame the chunk loops use, as warp-uniform locals (HIP: scalar registers,
 * which hold the VGPR count down; sz_dec_frame_hot does the same for BF16). The codebook and
 * its bit set stay in shared memory (indexed at run time). */
template <int W> SZ_DEVICE void sz_dt_frame_hot(sz_dt_frame &d, const sz_dt_frame &s)
{
	__builtin_memset(&d, 0, sizeof d);
	d.src = sz_uniform_ptr<W>(s.src);
	d.dst = sz_uniform_ptr<W>(s.dst);
	d.n = sz_uniform_u64<W>(s.n);
	d.C = sz_uniform_u64<W>(s.C);
	d.E = sz_uniform_u64<W>(s.E);
	d.L = sz_uniform_u32<W>(s.L);
	d.mode = sz_uniform_u32<W>(s.mode);
	d.hash = sz_uniform_u32<W>(s.hash);
	d.width = sz_uniform_u32<W>(s.width);
	d.ebits = sz_uniform_u32<W>(s.ebits);
	d.d.code = sz_uniform_u32<W>(s.d.code);
	d.d.width = d.width;
	d.d.ebits = d.ebits;
	d.d.n_rest = sz_uniform_u32<W>(s.d.n_rest);
	d.d.rest[0] = sz_uniform_u32<W>(s.d.rest[0]);
	d.d.rest[1] = sz_uniform_u32<W>(s.d.rest[1]);
	d.lay.codes = sz_uniform_u64<W>(s.lay.codes);
	d.lay.rest[0] = sz_uniform_u64<W>(s.lay.rest[0]);
	d.lay.rest[1] = sz_uniform_u64<W>(s.lay.rest[1]);
	d.lay.table = sz_uniform_u64<W>(s.lay.table);
	d.lay.positions = sz_uniform_u64<W>(s.lay.positions);
	d.lay.exponents = sz_uniform_u64<W>(s.lay.exponents);
	d.lay.stream = sz_uniform_u64<W>(s.lay.stream);
	d.h.n_words = sz_uniform_u32<W>(s.h.n_words);
}

/* The block's chunks c = (blockIdx.x + i gridDim.x) * GROUPS + group; the block's sums end
 * with thread 0 (S.bad, S.wsum[0], S.wesc[0]). */
template <int W, bool ENT> SZ_DEVICE void sz_dt_dec_chunks(sz_dt_smem<W> &S, sz_ent_dec_smem *E)
{
	enum { NW = sz_dt_smem<W>::NW };
	const unsigned warp = sz_warp<W>(), lane = sz_lane<W>(), g = sz_linear_tid() / 32u;
	uint64_t csum = 0;
	uint32_t nesc = 0;
	bool bad = false, ok = true;
	if (ENT) {
		sz_ent_table_of(*E, S.fr.src + S.fr.lay.lengths, S.fr.h.table_first,
		                S.fr.h.table_last, S.fr.h.escape_length);
		ok = E->ok != 0; /* FORMAT.md §4.3.6 rule 2 */
		bad = !ok;
	}
	const uint64_t step = (uint64_t)gridDim.x * SZ_DT_GROUPS;
	sz_dt_frame hot;
	if (SZ_HOIST_UNIFORM)
		sz_dt_frame_hot<W>(hot, S.fr);
	const sz_dt_frame &fr = SZ_HOIST_UNIFORM ? hot : S.fr;
	if (ok)
		for (uint64_t cb = (uint64_t)blockIdx.x * SZ_DT_GROUPS; cb < fr.C; cb += step)
			sz_dt_chunk<W, ENT>(S, fr, E, cb + g, cb + g < fr.C, csum, nesc, bad);
	nesc = sz_warp_sum<W>(nesc);
	csum = sz_warp_sum<W>(csum);
	bad = sz_any<W>(sz_full_mask<W>(), bad) != 0;
	if (lane == 0) {
		S.wsum[warp] = csum;
		S.wbad[warp] = bad;
		S.wesc[warp] = nesc;
	}
	sz_syncthreads();
	if (threadIdx.x == 0) {
		uint64_t sum = 0;
		uint32_t any = S.bad, esc = 0;
		for (unsigned w = 0; w < NW; w++) {
			sum += S.wsum[w];
			any |= S.wbad[w];
			esc += S.wesc[w];
		}
		S.wsum[0] = sum;
		S.wesc[0] = esc;
		S.bad = any;
	}
	sz_syncthreads();
}

/*
 * One frame (blockIdx.y + frame0) by gridDim.x blocks; the last block to finish writes the
 * status (sz_dec_status: a broken body rule, then the escape total, then the checksum). ENT:
 * the entropy frames, else the stored and split4 frames (the other kernel's frames are left
 * alone), so that each has its own registers and shared memory (as sz_k_decode).
 */
template <int W, bool ENT>
SZ_GLOBAL SZ_LAUNCH_BOUNDS_BLOCKS(SZ_GPU_THREADS,
                                  SZ_DT_DEC_BLOCKS) void sz_k_dt_decode(sz_gpu_dt_dec a)
{
	SZ_WARP_GUARD(W);
	SZ_SHARED_ARRAY(sz_dt_smem<W>, S, 1);
	SZ_SHARED_ARRAY(sz_ent_dec_part<ENT>, E, 1);
	const uint64_t f = a.run.frame0 + blockIdx.y;
	sz_gpu_dec_state *st = reinterpret_cast<sz_gpu_dec_state *>(a.ws + a.run.ws_stride * f);
	if (threadIdx.x == 0) { /* written by sz_k_dt_dec_init */
		S[0].fr.status = (int32_t)sz_gld_u32(&st->status);
		if (S[0].fr.status == SPLITZIP_OK) {
			splitzip_header h;
			sz_gld_words(&h, &st->h, sizeof h);
			if (sz_dec_mine(ENT, SPLITZIP_OK, h))
				sz_dt_setup(S[0].fr, a, f, h);
			else
				S[0].fr.status = SZ_DEC_NOT_MINE;
		}
		S[0].bad = 0;
	}
	sz_syncthreads();
	if (S[0].fr.status != SPLITZIP_OK) /* block-uniform */
		return;
	sz_dt_dec_chunks<W, ENT>(S[0], sz_ent_dec_of(E[0]));
	if (threadIdx.x != 0)
		return;
	const uint32_t G = gridDim.x;
	if (S[0].bad)
		sz_atomic_or_relaxed(&st->corrupt, 1u);
	sz_atomic_add_relaxed(&st->csum, S[0].wsum[0]);
	if (S[0].wesc[0])
		sz_atomic_add_relaxed(&st->esc, S[0].wesc[0]);
	if (sz_atomic_add_acq_rel(&st->done, 1u) != G - 1)
		return;
	/* The last block: every other block's flag and folds happen before its increment. */
	const int32_t s = sz_dec_status(S[0].fr.h, sz_gld_u32(&st->corrupt) != 0,
	                                sz_gld_u32(&st->esc), sz_gld_u64(&st->csum));
	sz_put_result(a.frames.out_elems, a.frames.statuses, f, s == SPLITZIP_OK ? S[0].fr.n : 0,
	              s);
}

/* ---- Launch sequence ----------------------------------------------------------------------- */

/*
 * Decode n_frames frames of any dtype: per launch of up to SZ_GPU_FRAMES_PER_LAUNCH frames,
 * dt_dec_init (a block per frame), dt_decode (stored and split4 frames) and dt_decode_ent
 * (entropy frames; each per frame at most a block per 8 chunks of 4096 elements of the largest
 * output, max_dst_bytes bytes, within one wave).
 */
template <int W, class Launcher>
void sz_gpu_dt_decompress(Launcher &lc, sz_gpu_dt_dec a, uint64_t n_frames, uint64_t max_dst_bytes)
{
	a.run = sz_gpu_dec_launch{};
	a.run.ws_stride = SZ_GPU_DEC_WS_STRIDE;
	a.run.n_frames = n_frames;
	const uint64_t groups = (max_dst_bytes + 8 * 4096 - 1) / (8 * 4096);
	for (uint64_t f0 = 0; f0 < n_frames; f0 += SZ_GPU_FRAMES_PER_LAUNCH) {
		const unsigned nf = sz_gpu_launch_frames(n_frames, f0);
		a.run.frame0 = (uint32_t)f0;
		lc.launch("dt_dec_init", sz_gpu_dim{1, nf}, SZ_GPU_THREADS, sz_k_dt_dec_init<W>, a);
		lc.launch("dt_decode", sz_gpu_grid(lc, sz_k_dt_decode<W, false>, nf, groups),
		          SZ_GPU_THREADS, sz_k_dt_decode<W, false>, a);
		lc.launch("dt_decode_ent", sz_gpu_grid(lc, sz_k_dt_decode<W, true>, nf, groups),
		          SZ_GPU_THREADS, sz_k_dt_decode<W, true>, a);
	}
}

#endif /* SZ_GPU_DTYPE_DEC_CUH */
