/*
 * sz_hist_template.h -- the window histogram of the SIMD backends, written once for every ISA.
 *
 * A template in the manner of libdeflate's *_template.h: a backend defines the parameters below
 * (a vector type and the few operations whose instructions differ per ISA), then includes this
 * file. The inclusion defines static functions and types whose names start with the prefix
 * SZ_HIST_PREFIX, among them the histogram entry SZ_HIST_PREFIX##_histogram
 * (splitzip_histogram_fn), compiled with the ISA flags of the including translation unit; at
 * the end the parameters are #undef'd, so a translation unit may include the file again with
 * other parameters.
 *
 * The method. The histogram picks the 16-exponent window [w, w + 15] that holds most of the
 * first SZ_HIST_SAMPLE elements (sz_hist_window) and counts it as a positional population
 * count: each element in the window becomes a one-hot byte (bins 0-7 in stream 'lo', 8-15 in
 * stream 'hi', by a 16-entry byte table lookup that gives 0 outside the window), and the
 * Harley-Seal adder of sz_count_template.h sums them into bit planes. That is about
 * half the operations of sixteen compare-and-subtract byte counters. Elements outside the
 * window are counted one by one, so the window follows the data: when more than
 * 1/SZ_HIST_MOVED of a block of SZ_HIST_BLOCK elements fell outside it (the next tensor of a
 * file, another layer), the window is picked again from the elements that follow. If more
 * than 1/8 fall outside a freshly picked window, the data has no dominant window, and the
 * scalar four-table histogram (sz_hist_scalar), faster then, takes the next 1, 2, 4 ... 64
 * blocks before a window is tried again. The result is exact for any w. (With a window picked
 * once from the first elements, real KV files laid end to end in another order gave 5.7 GB/s
 * out of the cache, all but the start on the scalar tables, and 1 % of the elements outside
 * the window in the usual order: 10 GB/s; following the data, 19-21 GB/s with AVX2 in both
 * orders, doc/BENCHMARKS.md.)
 *
 * The backend includes sz_count_template.h first, with SZ_COUNT_PREFIX equal to SZ_HIST_PREFIX
 * and the same SZ_HV operations: this file uses its adder (SZ_HIST_PREFIX##_hs_push, ...).
 *
 * Parameters (all required; the SZ_HV ones are those of sz_count_template.h):
 *   SZ_HIST_PREFIX            name prefix (avx2 gives avx2_histogram, ...)
 *   SZ_HIST_VL                elements per block = exponent bytes per vector (NEON 16, AVX2 32,
 *                             AVX-512 64)
 *   SZ_HV                     the vector type
 *   SZ_HV_ZERO()              an all-zero vector
 *   SZ_HV_SET1(x)             every byte x (an unsigned value < 256)
 *   SZ_HV_BCAST16(p)          the 16 bytes at p (const uint8_t *) in every 16-byte lane
 *   SZ_HV_SUB8(a, b)          bytewise a - b, wrapping
 *   SZ_HV_CSA(h, l, a, b, c)  a statement: full adder on bit vectors, (h, l) = a + b + c, that
 *                             is h = majority(a, b, c), l = a ^ b ^ c (a, b, c evaluated once)
 *   SZ_HV_COUNT_BITS(v, weight, cnt)
 *                             cnt[b] += weight * (number of bytes of v with bit b set), b < 8
 *   SZ_HIST_EXPS(s)           the exponent bytes of the SZ_HIST_VL elements at s, in any fixed
 *                             order (a histogram does not care which); lane j is byte j
 *   SZ_HIST_ONEHOT(d, c15, tlo, thi, xl, xh)
 *                             for the bin indices d = e - w (c15: every byte 15; tlo, thi: the
 *                             one-hot tables of bins 0-7 and 8-15 in every 16-byte lane): set
 *                             *xl, *xh to the one-hot bytes, zero for indices above 15, and
 *                             return a uint64_t m that says which lanes are outside:
 *   SZ_HIST_LANE_BITS         1: bit j of m is set iff lane j is outside (the template stores
 *                             the exponents with SZ_HV_STOREU(p, v), p a uint8_t *, and counts
 *                             the set bits); 0: m is nonzero iff some lane is outside (the
 *                             template counts the block again in scalar code)
 */
#if !defined(SZ_HIST_PREFIX) || !defined(SZ_HIST_VL) || !defined(SZ_HV) || !defined(SZ_HV_ZERO) || \
    !defined(SZ_HV_SET1) || !defined(SZ_HV_BCAST16) || !defined(SZ_HV_SUB8) ||                     \
    !defined(SZ_HV_CSA) || !defined(SZ_HV_COUNT_BITS) || !defined(SZ_HIST_EXPS) ||                 \
    !defined(SZ_HIST_ONEHOT) || !defined(SZ_HIST_LANE_BITS)
#error "sz_hist_template.h: a parameter is missing (see the list at the top)"
#endif
#if SZ_HIST_LANE_BITS && !defined(SZ_HV_STOREU)
#error "sz_hist_template.h: SZ_HIST_LANE_BITS needs SZ_HV_STOREU"
#endif

#include "sz_simd_common.h"

#define SZ_HN(name) SZ_PASTE(SZ_HIST_PREFIX, name)

/* Elements per group: 16 blocks, one call of the level-1 adder (sz_count_template.h). */
#define SZ_HS_GROUP (16u * SZ_HIST_VL)

/* The window as vectors: w and 15 in every byte, the one-hot tables of bins 0-7 and 8-15. */
typedef struct SZ_HN(hist_window) {
	SZ_HV wv, c15, tlo, thi;
} SZ_HN(hist_window);

/*
 * One block of SZ_HIST_VL elements at s: the one-hot bytes of its bins to *xl and *xh; the
 * elements outside the window [w, w + 15] are added to hist one by one. Returns how many.
 */
static SZ_ALWAYS_INLINE size_t SZ_HN(hist_block)(const SZ_HN(hist_window) * k, unsigned w,
                                                 const uint16_t *s, SZ_HV *xl, SZ_HV *xh,
                                                 uint64_t hist[256])
{
	SZ_HV e = SZ_HIST_EXPS(s);
	uint64_t m = SZ_HIST_ONEHOT(SZ_HV_SUB8(e, k->wv), k->c15, k->tlo, k->thi, xl, xh);
	size_t outside = 0;
	if (SZ_UNLIKELY(m)) {
#if SZ_HIST_LANE_BITS
		uint8_t ebuf[SZ_HIST_VL];
		SZ_HV_STOREU(ebuf, e);
		outside = (size_t)__builtin_popcountll(m);
		do {
			hist[ebuf[__builtin_ctzll(m)]]++;
			m &= m - 1;
		} while (m);
		(void)w;
		(void)s;
#else
		for (unsigned j = 0; j < SZ_HIST_VL; j++) {
			uint8_t x = splitzip_bf16_exponent(s[j]);
			if ((uint8_t)(x - w) > 15) {
				hist[x]++;
				outside++;
			}
		}
#endif
	}
	return outside;
}

/*
 * The histogram of the whole blocks of SZ_HIST_BLOCK elements from src[*i] on (and whole groups
 * of the last partial block), by the window that holds most of their first SZ_HIST_SAMPLE
 * elements, until a block has more than 1/SZ_HIST_MOVED of its elements outside the window
 * (the data has moved: a tensor of another layer or model). Advances *i; returns 0 at the end
 * of the groups, else 1 if it stopped at such a block, 2 if more than 1/8 of that block was
 * outside (the block is counted either way).
 */
static int SZ_HN(hist_run)(const uint16_t *src, size_t n, size_t *i, uint64_t hist[256])
{
	/* One-hot bytes: bins 0-7 -> bit k of 'lo', bins 8-15 -> bit k-8 of 'hi'. */
	static const uint8_t lo_bits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t hi_bits[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128};
	const unsigned w = sz_hist_window(src + *i, SZ_HIST_SAMPLE);
	const SZ_HN(hist_window)
	    win = {SZ_HV_SET1(w), SZ_HV_SET1(15u), SZ_HV_BCAST16(lo_bits), SZ_HV_BCAST16(hi_bits)};
	SZ_HN(hs_stream) lo, hi;
	SZ_HN(hs_init)(&lo);
	SZ_HN(hs_init)(&hi);
	unsigned groups = 0;
	size_t outside = 0, block_start = *i;
	int moved = 0;
	while (*i + SZ_HS_GROUP <= n) {
		SZ_HV xl[16], xh[16];
		for (unsigned k = 0; k < 16; k++)
			outside += SZ_HN(hist_block)(&win, w, src + *i + SZ_HIST_VL * k, &xl[k],
			                             &xh[k], hist);
		SZ_HN(hs_push)(&lo, xl, groups);
		SZ_HN(hs_push)(&hi, xh, groups);
		groups++;
		*i += SZ_HS_GROUP;
		if (*i - block_start == SZ_HIST_BLOCK) {
			if (outside > SZ_HIST_BLOCK / SZ_HIST_MOVED) {
				moved = outside > SZ_HIST_BLOCK / 8 ? 2 : 1;
				break;
			}
			outside = 0;
			block_start = *i;
		}
	}
	uint64_t counts[16] = {0};
	SZ_HN(hs_finish)(&lo, groups, counts);
	SZ_HN(hs_finish)(&hi, groups, counts + 8);
	for (unsigned k = 0; k < 16; k++)
		hist[w + k] += counts[k];
	return moved;
}

/*
 * The window moves with the data: after a block with too much outside it, the window is
 * picked again from the next elements. Data with no dominant window (a new window fails on its
 * first block too) takes the scalar tables for 1, 2, 4, ... 64 blocks before the next try, so
 * flat data runs at the scalar tables' speed and windowed data that follows it finds its
 * window again.
 */
static void SZ_HN(histogram)(const uint16_t *src, size_t n, uint64_t hist[256])
{
	if (n < 2 * SZ_HIST_SAMPLE) {
		sz_hist_scalar(src, n, hist);
		return;
	}
	size_t i = 0;
	unsigned backoff = 0; /* log2 of the scalar blocks after a failed window */
	while (i + SZ_HS_GROUP <= n && n - i >= SZ_HIST_SAMPLE) {
		const size_t start = i;
		const int moved = SZ_HN(hist_run)(src, n, &i, hist);
		if (!moved)
			break;
		if (i - start > SZ_HIST_BLOCK || moved == 1) { /* try a new window now */
			backoff = 0;
			continue;
		}
		size_t m = (size_t)SZ_HIST_BLOCK << backoff;
		m = m < n - i ? m : n - i;
		sz_hist_scalar(src + i, m, hist);
		i += m;
		backoff += backoff < 6;
	}
	sz_hist_scalar(src + i, n - i, hist);
}

#undef SZ_HS_GROUP
#undef SZ_HN
#undef SZ_HIST_PREFIX
#undef SZ_HIST_VL
#undef SZ_HV
#undef SZ_HV_ZERO
#undef SZ_HV_SET1
#undef SZ_HV_BCAST16
#undef SZ_HV_SUB8
#undef SZ_HV_CSA
#undef SZ_HV_COUNT_BITS
#undef SZ_HV_STOREU
#undef SZ_HIST_EXPS
#undef SZ_HIST_ONEHOT
#undef SZ_HIST_LANE_BITS
