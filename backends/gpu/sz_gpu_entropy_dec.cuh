/*
 * sz_gpu_entropy_dec.cuh -- the GPU chunk decoder of entropy frames (mode 2, doc/FORMAT.md
 * §4.3), one source for CUDA, HIP and the CPU SIMT harness; the decode kernels that run it are
 * in sz_gpu_decode.cuh. Its output equals core/sz_driver_entropy.c + core/sz_ref.c.
 *
 * Shape of the work. The 32 lanes of the format (§4.3.5) are 32 threads: a group of 32
 * threads decodes one chunk, thread l of the group being lane l (elements l, l + 32, ...). A
 * warp of 32 is one group; a wavefront of 64 is two groups that decode two chunks side by side
 * (every warp-wide vote is split in halves), so a block of SZ_GPU_THREADS threads decodes
 * SZ_ENT_GROUPS chunks at a time at either warp width. A lane's next word is found by a ballot
 * and a population count (the words are stored in the order the decoder reads them), so a
 * group's reads of one phase are one contiguous run of u16 words: coalesced, no per-lane
 * offsets. The symbol comes from an 11-bit lookup table of the frame's canonical code in
 * shared memory, built once per block by all its threads (sz_ent_table). Exponents go to a
 * 256-byte staging row per group; every 8 steps the group joins them with the sign/mantissa
 * bytes (one 8-byte load per thread) into 16-byte stores and feeds the content checksum from
 * the same registers. No atomics per element.
 *
 * Validation (§4.3.6) gives the scalar decoder's statuses (every body rule is
 * CORRUPT_STREAM): rule 1 (padding, pad nibble) in sz_dec_padding_bad; rule 2 (the code
 * lengths) in sz_ent_table, which every block runs before it decodes; rule 3 per chunk before
 * its words are used (T[c-1] <= T[c] <= Stream_Words, and T[C-1] == Stream_Words: all chunks
 * together are exactly the rule); rule 4 as the chunk decodes -- a read past the chunk's words
 * is never made, only flagged; rule 5 by the caller from the escape totals. A lane that failed
 * stops; the others of its group go on to the end of the batch within bounds, and the chunk is
 * reported bad.
 */
#ifndef SZ_GPU_ENTROPY_DEC_CUH
#define SZ_GPU_ENTROPY_DEC_CUH

#include "../../core/sz_entropy.h"
#include "sz_gpu_header.cuh"

/* Groups of 32 threads (chunks decoded at once) per block. */
#define SZ_ENT_GROUPS (SZ_GPU_THREADS / SPLITZIP_ENTROPY_LANES)
/* Steps a group decodes into its staging row before it stores them (8 x 32 elements). */
#define SZ_ENT_BATCH_STEPS 8u
/* Bytes a thread has loaded and not yet used at a step: the word of its refill, and the
 * sign/mantissa bytes of the batch (loaded when the batch starts, used when it ends). */
#define SZ_ENT_DEC_LOAD_BYTES 10u
/* A lookup-table entry: the symbol in bits 0-8, the code length above. */
#define SZ_ENT_LUT_LEN_SHIFT 9u
/* 32-bit words of a 257-bit set of symbols. */
#define SZ_ENT_SYM_WORDS 9u

/* The frame's code in shared memory (one per block), and the groups' staging rows. */
struct sz_ent_dec_smem {
	uint16_t lut[SZ_ENTROPY_LUT_SIZE];                 /* next 11 bits -> symbol, length */
	uint16_t sorted[SPLITZIP_ENTROPY_SYMBOLS + 1];     /* symbols by (length, symbol) */
	uint32_t mask[SZ_ENTROPY_L + 1][SZ_ENT_SYM_WORDS]; /* symbols of each length */
	uint32_t cnt[SZ_ENTROPY_L + 1], first[SZ_ENTROPY_L + 1], off[SZ_ENTROPY_L + 1];
	uint32_t coded[8]; /* bit e: exponent e has a code of its own */
	uint32_t ok;       /* the code lengths are valid (rule 2) */
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS + 15];
	uint64_t stage[SZ_ENT_GROUPS][SZ_ENT_BATCH_STEPS * SPLITZIP_ENTROPY_LANES / 8];
};

/*
 * The code of an entropy frame (FORMAT.md §4.3.3, §5.3) from its code-length section at 'lens'
 * (exponents lo..hi) and its Escape_Length, by every thread of the block (frames of every
 * dtype: lo..hi lie below 2^e, which the header checks);
 * begins and ends with a barrier. E.ok says whether the code lengths are valid (§4.3.6 rule 2:
 * nibbles at most 11, the first and the last nonzero, a complete code); only then is the
 * lookup table built. Canonical decoding without per-symbol codes: the symbols sorted by
 * (length, symbol), and for each length its first code and count; an 11-bit string (first bit
 * as the most significant) starts with the code of length l whose value v >> (11 - l) lies in
 * [first[l], first[l] + cnt[l]).
 */
SZ_DEVICE void sz_ent_table_of(sz_ent_dec_smem &E, const uint8_t *lens, unsigned lo, unsigned hi,
                               unsigned esc_len)
{
	const unsigned t = threadIdx.x;
	sz_syncthreads();
	for (unsigned i = t; i < (SZ_ENTROPY_L + 1) * SZ_ENT_SYM_WORDS; i += SZ_GPU_THREADS)
		E.mask[i / SZ_ENT_SYM_WORDS][i % SZ_ENT_SYM_WORDS] = 0;
	if (t == 0)
		E.ok = 1;
	sz_syncthreads();
	bool bad = false;
	for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS) {
		uint32_t l = 0;
		if (s == SPLITZIP_ENTROPY_ESC) {
			l = esc_len; /* 1..11: the header checks it */
		} else if (s >= lo && s <= hi) {
			const unsigned k = s - lo;
			l = (sz_gldro_u8(lens + k / 2) >> (4 * (k & 1))) & 0xFu;
			bad |= l == 0 && (s == lo || s == hi); /* the range is exact */
		}
		if (l > SZ_ENTROPY_L) {
			bad = true;
			l = 0;
		}
		E.len[s] = (uint8_t)l;
		if (l)
			sz_smem_atomic_or(&E.mask[l][s / 32], 1u << (s % 32));
	}
	if (bad)
		E.ok = 0;
	sz_syncthreads();
	if (t >= 1 && t <= SZ_ENTROPY_L) {
		uint32_t c = 0;
		for (unsigned j = 0; j < SZ_ENT_SYM_WORDS; j++)
			c += (uint32_t)sz_popc64(E.mask[t][j]);
		E.cnt[t] = c;
	}
	if (t >= 16 && t < 24) {
		uint32_t m = 0;
		for (unsigned l = 1; l <= SZ_ENTROPY_L; l++)
			m |= E.mask[l][t - 16];
		E.coded[t - 16] = m;
	}
	sz_syncthreads();
	if (t == 0) { /* FORMAT.md §5.3 and Kraft's equality (§5.4) */
		uint32_t code = 0, o = 0, prev = 0, kraft = 0;
		for (unsigned l = 1; l <= SZ_ENTROPY_L; l++) {
			code = (code + prev) << 1;
			E.first[l] = code;
			E.off[l] = o;
			o += E.cnt[l];
			prev = E.cnt[l];
			kraft += E.cnt[l] << (SZ_ENTROPY_L - l);
		}
		if (kraft != SZ_ENTROPY_LUT_SIZE)
			E.ok = 0;
	}
	sz_syncthreads();
	if (!E.ok) /* block-uniform */
		return;
	for (unsigned s = t; s < SPLITZIP_ENTROPY_SYMBOLS; s += SZ_GPU_THREADS) {
		const unsigned l = E.len[s];
		if (!l)
			continue;
		uint32_t rank = (uint32_t)sz_popc64(E.mask[l][s / 32] & ((1u << (s % 32)) - 1));
		for (unsigned j = 0; j < s / 32; j++)
			rank += (uint32_t)sz_popc64(E.mask[l][j]);
		E.sorted[E.off[l] + rank] = (uint16_t)s;
	}
	sz_syncthreads();
	for (unsigned x = t; x < SZ_ENTROPY_LUT_SIZE; x += SZ_GPU_THREADS) {
		const uint32_t v = splitzip_entropy_reverse(x, SZ_ENTROPY_L);
		uint32_t entry = 0;
		for (unsigned l = 1; l <= SZ_ENTROPY_L; l++) {
			const uint32_t k = (v >> (SZ_ENTROPY_L - l)) - E.first[l];
			if (k < E.cnt[l]) {
				entry = E.sorted[E.off[l] + k] | l << SZ_ENT_LUT_LEN_SHIFT;
				break;
			}
		}
		E.lut[x] = (uint16_t)entry;
	}
	sz_syncthreads();
}

/* The code of the entropy frame 'fr' (sz_ent_table_of on its code-length section). */
SZ_DEVICE void sz_ent_table(sz_ent_dec_smem &E, const sz_dec_frame &fr)
{
	sz_ent_table_of(E, fr.src + fr.ent.lengths_off, fr.h.table_first, fr.h.table_last,
	                fr.h.escape_length);
}

/* Element i of 8 (sign/mantissa bytes in sm, exponents in x, element 0 in the low byte). */
SZ_DEVICE uint32_t sz_ent_join(uint64_t x, uint64_t sm, unsigned i)
{
	const uint32_t e = (uint32_t)(x >> (8 * i)) & 0xFFu, s = (uint32_t)(sm >> (8 * i)) & 0xFFu;
	return (s & 0x80u) << 8 | e << 7 | (s & 0x7Fu);
}

/* The 16-bit word at p of a chunk's words: one load where the frame is 2-byte aligned (all
 * its words then are: the section starts on 16 bytes), else two. */
SZ_DEVICE uint32_t sz_ent_word(const uint8_t *p, bool a2)
{
	return a2 ? sz_gldro_u16(p) : (uint32_t)sz_gldro_u8(p) | (uint32_t)sz_gldro_u8(p + 1) << 8;
}

/* The elements of a batch a thread stores and hashes: 8 from chunk offset i0 ('valid': those
 * inside the chunk), and their sign/mantissa bytes, loaded when the batch starts so that they
 * arrive while its 8 steps decode. */
struct sz_ent_batch {
	uint64_t smv;
	uint32_t i0, valid;
};

SZ_DEVICE sz_ent_batch sz_ent_batch_load(const uint8_t *csm, uint32_t s, unsigned hl, uint32_t len,
                                         bool vec)
{
	sz_ent_batch t;
	t.i0 = (s / SZ_ENT_BATCH_STEPS) * SZ_ENT_BATCH_STEPS * 32 + 8 * hl;
	t.valid = t.i0 >= len ? 0u : len - t.i0 >= 8u ? 0xFFu : (1u << (len - t.i0)) - 1;
	t.smv = 0;
	if (vec && t.valid == 0xFFu) {
		t.smv = sz_gldro_u64(csm + t.i0);
	} else {
		for (unsigned i = 0; i < 8; i++)
			if (t.valid >> i & 1)
				t.smv |= (uint64_t)sz_gldro_u8(csm + t.i0 + i) << (8 * i);
	}
	return t;
}

/* The end of a batch: a thread's 8 exponents xs (from the staging row) joined with their
 * sign/mantissa bytes, stored unless the chunk is dead, and hashed (FORMAT.md §7.1: hash lane
 * h takes words h and h + 32 of the batch's 64). */
template <int W>
SZ_DEVICE void sz_ent_batch_end(const sz_ent_batch &t, uint64_t xs, uint16_t *out, uint32_t len,
                                unsigned hl, bool dead, bool vec, bool hash, uint64_t &acc)
{
	const uint64_t smv = t.smv;
	sz_u32x4 o = sz_u32x4_make(sz_ent_join(xs, smv, 0) | sz_ent_join(xs, smv, 1) << 16,
	                           sz_ent_join(xs, smv, 2) | sz_ent_join(xs, smv, 3) << 16,
	                           sz_ent_join(xs, smv, 4) | sz_ent_join(xs, smv, 5) << 16,
	                           sz_ent_join(xs, smv, 6) | sz_ent_join(xs, smv, 7) << 16);
	if (t.valid != 0xFFu)
		o = sz_mask8(o, t.valid);
	if (!dead) {
		if (vec && t.valid == 0xFFu) {
			sz_gst_x4(out + t.i0, o);
		} else {
			for (unsigned i = 0; i < 8; i++)
				if (t.valid >> i & 1)
					sz_gst_u16(out + t.i0 + i, (uint16_t)sz_elem8(o, i));
		}
	}
	if (!hash)
		return;
	const uint64_t a = (uint64_t)o.y << 32 | o.x, b = (uint64_t)o.w << 32 | o.z;
	const uint32_t word0 = t.i0 / 4 - 2 * hl, nwh = (len + 3) / 4;
	SZ_UNROLL
	for (int k = 0; k < 2; k++) {
		const int from = (int)(hl >> 1) + 16 * k;
		const uint64_t va = sz_shfl<W>(sz_full_mask<W>(), a, from, 32);
		const uint64_t vb = sz_shfl<W>(sz_full_mask<W>(), b, from, 32);
		if (word0 + hl + 32u * (unsigned)k < nwh)
			acc = splitzip_hash_round(acc, (hl & 1) ? vb : va);
	}
}

/* FORMAT.md §4.3.6 rule 3 for chunk c, before its words are used: its words [w0, w0 + nw)
 * from the chunk table; false if the table breaks the rule. */
SZ_DEVICE bool sz_ent_chunk_words(const sz_dec_frame &fr, uint64_t c, uint64_t &w0, uint32_t &nw)
{
	const uint8_t *T = fr.src + fr.ent.table_off;
	const uint64_t n_words = fr.ent.n_words;
	const uint64_t t0 = c ? sz_gld_le32(T + 4 * (c - 1)) : 0;
	const uint64_t t1 = sz_gld_le32(T + 4 * c);
	if (t0 > t1 || t1 > n_words || (c + 1 == fr.C && t1 != n_words))
		return false;
	w0 = t0;
	nw = (uint32_t)(t1 - t0);
	return true;
}

/*
 * Chunks [c0, c1) of the entropy frame 'fr' by the block (a barrier-free loop; E built by
 * sz_ent_table). Group g of the block decodes chunks c0 + g, c0 + g + SZ_ENT_GROUPS, ...; every
 * warp runs the same number of iterations (a group without a chunk idles through its votes).
 * Adds to csum (the checksum folds, in the group's thread 0), nesc (this thread's escapes) and
 * bad (a broken rule 3 or 4 in this thread's group). Per step: a refill ballot, the symbol
 * from the lookup table, and -- only when some lane has an escape -- the escape's refill
 * ballot; a batch's sign/mantissa bytes are loaded when it starts.
 */
template <int W>
SZ_DEVICE void sz_ent_dec_chunks(sz_ent_dec_smem &E, const sz_dec_frame &fr, uint64_t c0,
                                 uint64_t c1, uint64_t &csum, uint32_t &nesc, bool &bad, bool hash)
{
	const unsigned lane = sz_lane<W>(), hl = lane & 31u, g = sz_linear_tid() / 32u;
	const unsigned sh = lane & 32u; /* the group's bits in a ballot */
	const uint32_t lt = (1u << hl) - 1;
	uint8_t *stage = reinterpret_cast<uint8_t *>(E.stage[g]);
	const bool vec = fr.vec != 0, a2 = sz_aligned(fr.src, 2);
	for (uint64_t cb = c0; cb < c1; cb += SZ_ENT_GROUPS) {
		const uint64_t c = cb + g;
		const bool live = c < c1;
		uint32_t len = 0, nw = 0;
		uint64_t w0 = 0;
		bool dead = !live; /* this group's chunk is absent or broken: no more reads */
		if (live) {
			len = (uint32_t)splitzip_chunk_len(fr.n, fr.L, c);
			if (!sz_ent_chunk_words(fr, c, w0, nw)) {
				dead = true;
				bad = true;
			}
		}
		const uint8_t *words = fr.src + fr.ent.stream_off + 2 * w0;
		const uint8_t *csm = fr.src + fr.ent.sm_off + (c << fr.L);
		const uint32_t S = (len + 31) / 32;
		/* the longer of the warp's two chunks at W = 64 (xor 0: its own at W = 32) */
		const uint32_t So = sz_shfl_xor<W>(sz_full_mask<W>(), S, (W / 2) & 32);
		const uint32_t steps = So > S ? So : S;
		uint32_t buf = 0, bits = 0, next = 0;
		bool fail = false; /* this lane broke rule 4 */
		uint64_t acc = splitzip_hash_lane_init(hl);
		sz_ent_batch t = {0, 0, 0};
		for (uint32_t s = 0; s < steps; s++) {
			if (s % SZ_ENT_BATCH_STEPS == 0)
				t = sz_ent_batch_load(csm, s, hl, len, vec);
			const uint32_t p = 32 * s + hl;
			const bool act = !dead && !fail && p < len;
			/* A: a word for each lane below 11 bits, lanes in order */
			bool need = act && bits < SPLITZIP_ENTROPY_REFILL_SYMBOL;
			uint32_t m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
			uint32_t pos = next + (uint32_t)sz_popc64(m & lt);
			next += (uint32_t)sz_popc64(m);
			if (need && pos >= nw)
				fail = true; /* never read: past the chunk's words */
			else if (need) {
				buf |= sz_ent_word(words + 2 * (uint64_t)pos, a2) << bits;
				bits += SPLITZIP_ENTROPY_WORD_BITS;
			}
			/* D: the symbol */
			uint32_t x = 0;
			bool esc = false;
			if (act && !fail) {
				const uint32_t e = E.lut[buf & (SZ_ENTROPY_LUT_SIZE - 1)];
				const uint32_t l = e >> SZ_ENT_LUT_LEN_SHIFT;
				buf >>= l;
				bits -= l;
				x = e & 0xFFu;
				esc = (e & SPLITZIP_ENTROPY_DEC_SYM_MASK) == SPLITZIP_ENTROPY_ESC;
			}
			if (sz_any<W>(sz_full_mask<W>(), esc)) { /* warp-uniform */
				/* B: a word for each escape below 8 bits, lanes in order */
				need = esc && bits < SPLITZIP_ENTROPY_REFILL_RAW;
				m = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), need) >> sh);
				pos = next + (uint32_t)sz_popc64(m & lt);
				next += (uint32_t)sz_popc64(m);
				if (need && pos >= nw) {
					fail = true;
					esc = false;
				} else if (need) {
					buf |= sz_ent_word(words + 2 * (uint64_t)pos, a2) << bits;
					bits += SPLITZIP_ENTROPY_WORD_BITS;
				}
			}
			/* R: the raw exponent of an escape, which must have no code of its own */
			if (esc) {
				x = buf & 0xFFu;
				buf >>= SPLITZIP_ENTROPY_RAW_BITS;
				bits -= SPLITZIP_ENTROPY_RAW_BITS;
				fail |= ((E.coded[x / 32] >> (x % 32)) & 1u) != 0;
				nesc++;
			}
			if (act)
				stage[p % (SZ_ENT_BATCH_STEPS * 32)] = (uint8_t)x;
			if (s % SZ_ENT_BATCH_STEPS != SZ_ENT_BATCH_STEPS - 1 && s + 1 != steps)
				continue;
			/* Every 8 steps: the group's fail votes, then its 256 elements stored and
			 * hashed, 8 per thread (bytes i0 .. i0 + 15 of the batch). */
			dead |= (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), fail) >> sh) != 0;
			sz_syncwarp<W>(sz_full_mask<W>());
			sz_ent_batch_end<W>(t, E.stage[g][hl], fr.dst + (c << fr.L), len, hl, dead,
			                    vec, hash, acc);
			sz_syncwarp<W>(sz_full_mask<W>());
		}
		/* Rule 4 at the end: every word read, no bit left in any lane. */
		const bool left = (uint32_t)(sz_ballot<W>(sz_full_mask<W>(), buf != 0) >> sh) != 0;
		if (live && !dead && (next != nw || left))
			dead = true;
		bad |= live && dead;
		if (hash) {
			uint64_t part = splitzip_hash_lane_fold(acc, hl);
			for (int k = 16; k > 0; k >>= 1)
				part += sz_shfl_xor<W>(sz_full_mask<W>(), part, k, 32);
			if (hl == 0 && live)
				csum += splitzip_hash_chunk_fold(
				    splitzip_hash_chunk_final(2 * (uint64_t)len, part), c);
		}
	}
}

#endif /* SZ_GPU_ENTROPY_DEC_CUH */
