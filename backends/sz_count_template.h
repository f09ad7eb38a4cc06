/*
 * sz_count_template.h -- positional population counts of one-hot bytes (Harley-Seal carry-save
 * adders) and the code counter of the one-pass encoder, written once for every ISA.
 *
 * A template in the manner of sz_hist_template.h: a backend defines the vector type and the few
 * operations below, then includes this file, which defines static functions and types whose
 * names start with SZ_COUNT_PREFIX: the adder (hs_stream, hs_push, hs_finish) that the window
 * histogram of sz_hist_template.h also uses, and the kernel table entry
 * SZ_COUNT_PREFIX##_count_codes (splitzip_count_codes_fn, core/sz_kernels.h).
 *
 * The adder. Each counted element is a one-hot byte (bins 0-7 in stream 'lo', 8-15 in stream
 * 'hi'); carry-save adders sum 16 such vectors into bit planes of weight 1, 2, 4, 8 plus a
 * carry vector of weight 16, and a second adder level sums 16 carries the same way, so the
 * per-bin totals are read out (SZ_HV_COUNT_BITS) only at the end.
 *
 * The code counter. After the encode pass has written a batch of chunks with a predicted
 * codebook, their 4-bit codes are still in the cache; count_codes() splits each code byte into
 * its two nibbles, turns each nibble into a one-hot byte by a 16-entry table lookup (the codes
 * are below 16, so no range check is needed) and feeds the adder: about one carry-save adder
 * per 16 codes per stream, no data-dependent branch. The frame driver adds the escapes' own
 * exponents and has the exact histogram of the frame without reading the input again.
 *
 * The code recoder. When that histogram shows that the predicted codebook was not the
 * canonical one, recode_codes() maps every code to its code in the canonical codebook (two
 * table lookups per code byte) and reports the codes whose exponent left the codebook; such
 * codes are rare (the exponents at the edge of the codebook are), so a vector with one is
 * scanned again in scalar code.
 *
 * Parameters (all required). The first seven stay defined after this file (sz_hist_template.h
 * uses them too and #undefs them); the others are #undef'd at the end:
 *   SZ_COUNT_PREFIX           name prefix (the histogram template's SZ_HIST_PREFIX must match)
 *   SZ_HV                     the vector type
 *   SZ_HV_ZERO()              an all-zero vector
 *   SZ_HV_BCAST16(p)          the 16 bytes at p (const uint8_t *) in every 16-byte lane
 *   SZ_HV_CSA(h, l, a, b, c)  a statement: full adder on bit vectors, (h, l) = a + b + c, that
 *                             is h = majority(a, b, c), l = a ^ b ^ c (a, b, c evaluated once)
 *   SZ_HV_COUNT_BITS(v, weight, cnt)
 *                             cnt[b] += weight * (number of bytes of v with bit b set), b < 8
 *   SZ_HV_STOREU(p, v)        store v at p (uint8_t *, any alignment)
 *   SZ_HV_BYTES               bytes per vector (NEON 16, AVX2 32, AVX-512 64)
 *   SZ_HV_LOADU(p)            the SZ_HV_BYTES bytes at p (const uint8_t *, any alignment)
 *   SZ_HV_NIBBLES(v, lo, hi)  a statement: lo = v & 0x0F, hi = v >> 4, bytewise
 *   SZ_HV_SHUF16(t, x)        bytewise t[x] for indices x < 16 (t from SZ_HV_BCAST16)
 *   SZ_HV_JOIN(lo, hi)        bytewise lo | hi << 4, for lo and hi below 16
 *   SZ_HV_ANY2(a, b)          nonzero iff a byte of a or of b is nonzero
 */
#if !defined(SZ_COUNT_PREFIX) || !defined(SZ_HV) || !defined(SZ_HV_ZERO) ||                        \
    !defined(SZ_HV_BCAST16) || !defined(SZ_HV_CSA) || !defined(SZ_HV_COUNT_BITS) ||                \
    !defined(SZ_HV_BYTES) || !defined(SZ_HV_LOADU) || !defined(SZ_HV_NIBBLES) ||                   \
    !defined(SZ_HV_SHUF16) || !defined(SZ_HV_STOREU) || !defined(SZ_HV_JOIN) ||                    \
    !defined(SZ_HV_ANY2)
#error "sz_count_template.h: a parameter is missing (see the list at the top)"
#endif

#include "sz_simd_common.h"

#define SZ_CT(name) SZ_PASTE(SZ_COUNT_PREFIX, name)

/* Bit planes of weight 1, 2, 4, 8 (in units of the level). */
typedef struct SZ_CT(hs_planes) {
	SZ_HV p1, p2, p4, p8;
} SZ_CT(hs_planes);

/* Adds x[0..15] (weight 1 each) to 's'; returns the carry vector of weight 16. */
static SZ_ALWAYS_INLINE SZ_HV SZ_CT(hs_add16)(SZ_CT(hs_planes) * s, const SZ_HV x[16])
{
	SZ_HV twosA, twosB, foursA, foursB, eightsA, eightsB, sixteens;
	SZ_HV_CSA(twosA, s->p1, s->p1, x[0], x[1]);
	SZ_HV_CSA(twosB, s->p1, s->p1, x[2], x[3]);
	SZ_HV_CSA(foursA, s->p2, s->p2, twosA, twosB);
	SZ_HV_CSA(twosA, s->p1, s->p1, x[4], x[5]);
	SZ_HV_CSA(twosB, s->p1, s->p1, x[6], x[7]);
	SZ_HV_CSA(foursB, s->p2, s->p2, twosA, twosB);
	SZ_HV_CSA(eightsA, s->p4, s->p4, foursA, foursB);
	SZ_HV_CSA(twosA, s->p1, s->p1, x[8], x[9]);
	SZ_HV_CSA(twosB, s->p1, s->p1, x[10], x[11]);
	SZ_HV_CSA(foursA, s->p2, s->p2, twosA, twosB);
	SZ_HV_CSA(twosA, s->p1, s->p1, x[12], x[13]);
	SZ_HV_CSA(twosB, s->p1, s->p1, x[14], x[15]);
	SZ_HV_CSA(foursB, s->p2, s->p2, twosA, twosB);
	SZ_HV_CSA(eightsB, s->p4, s->p4, foursA, foursB);
	SZ_HV_CSA(sixteens, s->p8, s->p8, eightsA, eightsB);
	return sixteens;
}

static SZ_ALWAYS_INLINE void SZ_CT(count_planes)(const SZ_CT(hs_planes) * s, uint64_t unit,
                                                 uint64_t cnt[8])
{
	SZ_HV_COUNT_BITS(s->p1, unit, cnt);
	SZ_HV_COUNT_BITS(s->p2, 2 * unit, cnt);
	SZ_HV_COUNT_BITS(s->p4, 4 * unit, cnt);
	SZ_HV_COUNT_BITS(s->p8, 8 * unit, cnt);
}

/* The counting state of one stream (8 bins). */
typedef struct SZ_CT(hs_stream) {
	SZ_CT(hs_planes) l1, l2; /* units 1 and 16 */
	SZ_HV carry[16];         /* level-1 carries waiting for the level-2 adder */
	uint64_t cnt[8];         /* complete counts from level-2 carries (unit 256) */
} SZ_CT(hs_stream);

static SZ_ALWAYS_INLINE void SZ_CT(hs_init)(SZ_CT(hs_stream) * h)
{
	h->l1.p1 = h->l1.p2 = h->l1.p4 = h->l1.p8 = SZ_HV_ZERO();
	h->l2 = h->l1;
	memset(h->cnt, 0, sizeof h->cnt);
}

/* Adds 16 one-hot vectors; 'group' counts calls (the level-2 adder runs every 16th). */
static SZ_ALWAYS_INLINE void SZ_CT(hs_push)(SZ_CT(hs_stream) * h, const SZ_HV x[16], unsigned group)
{
	h->carry[group % 16] = SZ_CT(hs_add16)(&h->l1, x);
	if (group % 16 == 15)
		SZ_HV_COUNT_BITS(SZ_CT(hs_add16)(&h->l2, h->carry), 256, h->cnt);
}

/* Final counts after 'groups' calls to hs_push, added to out[0..7]. */
static SZ_ALWAYS_INLINE void SZ_CT(hs_finish)(SZ_CT(hs_stream) * h, unsigned groups,
                                              uint64_t out[8])
{
	if (groups % 16) {
		for (unsigned g = groups % 16; g < 16; g++)
			h->carry[g] = SZ_HV_ZERO();
		SZ_HV_COUNT_BITS(SZ_CT(hs_add16)(&h->l2, h->carry), 256, h->cnt);
	}
	SZ_CT(count_planes)(&h->l1, 1, h->cnt);
	SZ_CT(count_planes)(&h->l2, 16, h->cnt);
	for (unsigned b = 0; b < 8; b++)
		out[b] += h->cnt[b];
}

/* ---- The code counter ------------------------------------------------------------------ */

/* The one-hot bytes of the 2 * SZ_HV_BYTES codes of the vector at p: elements of bins 0-7 to
 * xl[0..1], of bins 8-15 to xh[0..1]. */
static SZ_ALWAYS_INLINE void SZ_CT(code_onehots)(const uint8_t *p, SZ_HV tlo, SZ_HV thi, SZ_HV *xl,
                                                 SZ_HV *xh)
{
	SZ_HV lo, hi;
	SZ_HV_NIBBLES(SZ_HV_LOADU(p), lo, hi);
	xl[0] = SZ_HV_SHUF16(tlo, lo);
	xh[0] = SZ_HV_SHUF16(thi, lo);
	xl[1] = SZ_HV_SHUF16(tlo, hi);
	xh[1] = SZ_HV_SHUF16(thi, hi);
}

/* Codes per group: 8 vectors of code bytes, 16 one-hot vectors per stream. */
#define SZ_CT_GROUP_BYTES (8u * SZ_HV_BYTES)

static void SZ_CT(count_codes)(const uint8_t *codes, size_t n, uint64_t hits[16])
{
	static const uint8_t lo_bits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t hi_bits[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128};
	const SZ_HV tlo = SZ_HV_BCAST16(lo_bits), thi = SZ_HV_BCAST16(hi_bits);
	const size_t nb = n / 2; /* whole code bytes */
	SZ_CT(hs_stream) lo, hi;
	SZ_CT(hs_init)(&lo);
	SZ_CT(hs_init)(&hi);
	unsigned groups = 0;
	size_t i = 0;
	for (; i + SZ_CT_GROUP_BYTES <= nb; i += SZ_CT_GROUP_BYTES) {
		SZ_HV xl[16], xh[16];
		for (unsigned v = 0; v < 8; v++) {
			const uint8_t *q = codes + i + v * SZ_HV_BYTES;
			SZ_CT(code_onehots)(q, tlo, thi, xl + 2 * v, xh + 2 * v);
		}
		SZ_CT(hs_push)(&lo, xl, groups);
		SZ_CT(hs_push)(&hi, xh, groups);
		groups++;
	}
	if (i + SZ_HV_BYTES <= nb) { /* whole vectors of a last, partial group */
		SZ_HV xl[16], xh[16];
		unsigned v = 0;
		for (; i + SZ_HV_BYTES <= nb; i += SZ_HV_BYTES, v++)
			SZ_CT(code_onehots)(codes + i, tlo, thi, xl + 2 * v, xh + 2 * v);
		for (v *= 2; v < 16; v++)
			xl[v] = xh[v] = SZ_HV_ZERO();
		SZ_CT(hs_push)(&lo, xl, groups);
		SZ_CT(hs_push)(&hi, xh, groups);
		groups++;
	}
	if (groups) {
		SZ_CT(hs_finish)(&lo, groups, hits);
		SZ_CT(hs_finish)(&hi, groups, hits + 8);
	}
	for (; i < nb; i++) {
		hits[codes[i] & 0x0F]++;
		hits[codes[i] >> 4]++;
	}
	if (n % 2)
		hits[codes[nb] & 0x0F]++;
}

/* ---- The code recoder ------------------------------------------------------------------ */

/* The codes of the 'bytes' code bytes at p (code i0 first) whose old value is flagged, in order. */
static size_t SZ_CT(recode_hits)(const uint8_t *p, size_t i0, size_t bytes, const uint8_t flag[16],
                                 uint32_t *hits, size_t k)
{
	for (size_t j = 0; j < bytes; j++) {
		const unsigned lo = p[j] & 0x0F, hi = p[j] >> 4;
		if (flag[lo])
			hits[k++] = (uint32_t)(i0 + 2 * j) | (uint32_t)lo << 16;
		if (flag[hi])
			hits[k++] = (uint32_t)(i0 + 2 * j + 1) | (uint32_t)hi << 16;
	}
	return k;
}

static size_t SZ_CT(recode_codes)(uint8_t *codes, size_t n, const uint8_t map[16],
                                  const uint8_t flag[16], uint32_t *hits)
{
	const SZ_HV tmap = SZ_HV_BCAST16(map), tflag = SZ_HV_BCAST16(flag);
	const size_t nb = n / 2; /* whole code bytes */
	size_t i = 0, k = 0;
	for (; i + SZ_HV_BYTES <= nb; i += SZ_HV_BYTES) {
		SZ_HV lo, hi;
		SZ_HV_NIBBLES(SZ_HV_LOADU(codes + i), lo, hi);
		if (SZ_UNLIKELY(SZ_HV_ANY2(SZ_HV_SHUF16(tflag, lo), SZ_HV_SHUF16(tflag, hi))))
			k = SZ_CT(recode_hits)(codes + i, 2 * i, SZ_HV_BYTES, flag, hits, k);
		SZ_HV_STOREU(codes + i, SZ_HV_JOIN(SZ_HV_SHUF16(tmap, lo), SZ_HV_SHUF16(tmap, hi)));
	}
	k = SZ_CT(recode_hits)(codes + i, 2 * i, nb - i, flag, hits, k);
	for (; i < nb; i++)
		codes[i] = (uint8_t)(map[codes[i] & 0x0F] | map[codes[i] >> 4] << 4);
	if (n % 2) {
		const unsigned c = codes[nb] & 0x0F;
		if (flag[c])
			hits[k++] = (uint32_t)(n - 1) | (uint32_t)c << 16;
		codes[nb] = (uint8_t)((codes[nb] & 0xF0) | map[c]);
	}
	return k;
}

#undef SZ_CT_GROUP_BYTES
#undef SZ_CT
#undef SZ_COUNT_PREFIX
#undef SZ_HV_BYTES
#undef SZ_HV_LOADU
#undef SZ_HV_NIBBLES
#undef SZ_HV_SHUF16
#undef SZ_HV_JOIN
#undef SZ_HV_ANY2
