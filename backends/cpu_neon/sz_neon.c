/*
 * sz_neon.c -- NEON kernels for aarch64 (Advanced SIMD is baseline: any ARMv8-A core). Also
 * built on x86 over SIMDe for tests (SPLITZIP_NEON_SIMDE). Must match
 * splitzip_ref_encode_chunk/decode_chunk/histogram (core/sz_ref.c) bit for bit.
 *
 * hash_chunk is splitzip_hash_bytes() itself: NEON has no 64 x 64-bit multiply, and the 32
 * independent lanes of the scalar version already keep the core's multiplier busy.
 */
#include "splitzip_config.h"

#if SPLITZIP_NEON_SIMDE
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/arm/neon.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#else
#error "sz_neon.c needs aarch64, or SIMDe (SPLITZIP_NEON_SIMDE) for tests"
#endif

#include "../sz_simd_common.h"
#include "../sz_host_backends.h"

/* ---- Encode -------------------------------------------------------------------------------- */

/* 16 BF16 values -> exponent and sign/mantissa bytes (vld2 splits low and high bytes). */
static SZ_ALWAYS_INLINE void split16(const uint16_t *s, uint8x16_t *e, uint8x16_t *sm)
{
	uint8x16x2_t b = vld2q_u8((const uint8_t *)s); /* val[0] low bytes, val[1] high bytes */
	/* e = (hi << 1) | (lo >> 7): shift right and insert keeps the top 7 bits of hi << 1. */
	*e = vsriq_n_u8(vshlq_n_u8(b.val[1], 1), b.val[0], 7);
	*sm = vbslq_u8(vdupq_n_u8(0x80), b.val[1], b.val[0]);
}

typedef struct enc_consts {
	uint8x16_t basev;
	uint8x16x4_t t[4]; /* exponent -> code | 0x80 if escape, 4 x 64 entries */
	uint8x16x2_t w;    /* codebook[0] + 0..31 -> code, or 0x80 if not a member */
} enc_consts;

/* Encoder paths: a contiguous codebook (code = e - base), one spanning at most 32 values (one
 * 32-entry tbl), any codebook (a 256-entry lookup in four tbl/tbx steps). */
enum { SZ_WINDOW16 = 0, SZ_WINDOW32 = 1, SZ_ANY = 2 };

/* Codes of 16 exponents; '*ok' gets 0xFF for codebook members. */
static SZ_ALWAYS_INLINE uint8x16_t codes16(const enc_consts *k, uint8x16_t e, uint8x16_t *ok,
                                           const int path)
{
	if (path == SZ_WINDOW16) {
		uint8x16_t d = vsubq_u8(e, k->basev);
		*ok = vcleq_u8(d, vdupq_n_u8(15));
		return vandq_u8(d, *ok);
	}
	if (path == SZ_WINDOW32) {
		uint8x16_t d = vsubq_u8(e, k->basev);
		uint8x16_t v = vqtbl2q_u8(k->w, d); /* 0 for d >= 32, excluded below */
		*ok = vandq_u8(vcltq_u8(d, vdupq_n_u8(32)), vcltq_u8(v, vdupq_n_u8(0x80)));
		return vandq_u8(v, *ok);
	}
	/* 256-entry lookup: tbl over the first 64 entries, then tbx (out-of-range indices keep
	 * the previous result) over the next three 64-entry quarters. */
	uint8x16_t v = vqtbl4q_u8(k->t[0], e);
	v = vqtbx4q_u8(v, k->t[1], vsubq_u8(e, vdupq_n_u8(64)));
	v = vqtbx4q_u8(v, k->t[2], vsubq_u8(e, vdupq_n_u8(128)));
	v = vqtbx4q_u8(v, k->t[3], vsubq_u8(e, vdupq_n_u8(192)));
	*ok = vcltq_u8(v, vdupq_n_u8(0x80));
	return vandq_u8(v, vdupq_n_u8(0x0F));
}

/* Encode 32 elements: 16 code bytes, 32 sign/mantissa bytes. Returns 1 if any is an escape. */
static SZ_ALWAYS_INLINE int enc32(const enc_consts *k, const uint16_t *s, uint8_t *codes,
                                  uint8_t *sm, const int path)
{
	uint8x16_t e0, e1, s0, s1, ok0, ok1;
	split16(s, &e0, &s0);
	split16(s + 16, &e1, &s1);
	uint8x16_t c0 = codes16(k, e0, &ok0, path), c1 = codes16(k, e1, &ok1, path);
	/* Even codes in the low nibble, odd codes shifted above them (codes are < 16). */
	uint8x16x2_t u = vuzpq_u8(c0, c1);
	vst1q_u8(codes, vorrq_u8(u.val[0], vshlq_n_u8(u.val[1], 4)));
	vst1q_u8(sm, s0);
	vst1q_u8(sm + 16, s1);
	return vminvq_u8(vandq_u8(ok0, ok1)) == 0;
}

/* Append the escapes among the first 'm' elements of a block at chunk position i0. */
static size_t emit_escapes(const splitzip_enc_tables *t, const uint16_t *s, size_t m, size_t i0,
                           uint16_t *esc_pos, uint8_t *esc_exp, size_t k)
{
	for (size_t j = 0; j < m; j++) {
		uint8_t e = splitzip_bf16_exponent(s[j]);
		if (t->is_escape[e]) {
			esc_pos[k] = (uint16_t)(i0 + j);
			esc_exp[k] = e;
			k++;
		}
	}
	return k;
}

static SZ_ALWAYS_INLINE size_t encode_impl(const splitzip_enc_tables *t, const uint16_t *src,
                                           size_t n, uint8_t *codes, uint8_t *sm, uint16_t *esc_pos,
                                           uint8_t *esc_exp, const int path)
{
	enc_consts k;
	k.basev = vdupq_n_u8(t->base);
	if (path == SZ_WINDOW32) {
		uint8_t win[32];
		for (unsigned d = 0; d < 32; d++) {
			unsigned e = (t->base + d) & 0xFF;
			win[d] = (uint8_t)(t->is_escape[e] ? 0x80 : t->code_of[e]);
		}
		k.w.val[0] = vld1q_u8(win);
		k.w.val[1] = vld1q_u8(win + 16);
	}
	if (path == SZ_ANY) {
		uint8_t tab[256];
		for (unsigned j = 0; j < 256; j++)
			tab[j] = (uint8_t)(t->code_of[j] | (t->is_escape[j] << 7));
		for (unsigned q = 0; q < 4; q++)
			k.t[q] = vld1q_u8_x4(tab + 64 * q);
	}
	size_t n_esc = 0, i = 0;
	for (; i + 32 <= n; i += 32)
		if (SZ_UNLIKELY(enc32(&k, src + i, codes + i / 2, sm + i, path)))
			n_esc = emit_escapes(t, src + i, 32, i, esc_pos, esc_exp, n_esc);
	if (i < n) {
		/* The last partial block through the same kernel on a zero-padded copy. */
		size_t rem = n - i;
		uint16_t buf[32] = {0};
		uint8_t cbuf[16], sbuf[32];
		memcpy(buf, src + i, rem * 2);
		enc32(&k, buf, cbuf, sbuf, path);
		if (rem % 2)
			cbuf[rem / 2] &= 0x0F; /* FORMAT.md §4.2: zero nibble after an odd end */
		memcpy(codes + i / 2, cbuf, (rem + 1) / 2);
		memcpy(sm + i, sbuf, rem);
		n_esc = emit_escapes(t, buf, rem, i, esc_pos, esc_exp, n_esc);
	}
	return n_esc;
}

static size_t neon_encode_chunk(const splitzip_enc_tables *t, const uint16_t *src, size_t n,
                                uint8_t *codes, uint8_t *sm, uint16_t *esc_pos, uint8_t *esc_exp)
{
	if (t->contiguous)
		return encode_impl(t, src, n, codes, sm, esc_pos, esc_exp, SZ_WINDOW16);
	if (t->codebook[15] - t->base < 32)
		return encode_impl(t, src, n, codes, sm, esc_pos, esc_exp, SZ_WINDOW32);
	return encode_impl(t, src, n, codes, sm, esc_pos, esc_exp, SZ_ANY);
}

/* ---- Decode -------------------------------------------------------------------------------- */

/* Decode 32 elements: the 16-entry tables give e >> 1 for the high byte and (e & 1) << 7 for
 * the low byte; vst2 interleaves the byte planes into little-endian u16. */
static SZ_ALWAYS_INLINE void dec32(uint8x16_t thi, uint8x16_t tlo, const uint8_t *codes,
                                   const uint8_t *sm, uint16_t *dst)
{
	const uint8x16_t m80 = vdupq_n_u8(0x80), m7f = vdupq_n_u8(0x7F);
	uint8x16_t c = vld1q_u8(codes);
	uint8x16x2_t nib = vzipq_u8(vandq_u8(c, vdupq_n_u8(0x0F)), vshrq_n_u8(c, 4));
	for (unsigned h = 0; h < 2; h++) {
		uint8x16_t s = vld1q_u8(sm + 16 * h);
		uint8x16x2_t o;
		o.val[0] = vbslq_u8(m7f, s, vqtbl1q_u8(tlo, nib.val[h]));
		o.val[1] = vbslq_u8(m80, s, vqtbl1q_u8(thi, nib.val[h]));
		vst2q_u8((uint8_t *)(dst + 16 * h), o);
	}
}

static void neon_decode_chunk(const uint8_t codebook[16], const uint8_t *codes, const uint8_t *sm,
                              size_t n, uint16_t *dst)
{
	uint8_t th[16], tl[16];
	for (unsigned c = 0; c < 16; c++) {
		th[c] = (uint8_t)(codebook[c] >> 1);
		tl[c] = (uint8_t)((codebook[c] & 1) << 7);
	}
	const uint8x16_t thi = vld1q_u8(th), tlo = vld1q_u8(tl);
	size_t i = 0;
	for (; i + 32 <= n; i += 32)
		dec32(thi, tlo, codes + i / 2, sm + i, dst + i);
	if (i < n) {
		size_t rem = n - i;
		uint8_t cbuf[16] = {0}, sbuf[32] = {0};
		uint16_t obuf[32];
		memcpy(cbuf, codes + i / 2, (rem + 1) / 2);
		memcpy(sbuf, sm + i, rem);
		dec32(thi, tlo, cbuf, sbuf, obuf);
		memcpy(dst + i, obuf, rem * 2);
	}
}

/* ---- Histogram ----------------------------------------------------------------------------- */

/*
 * The window histogram counts the 16 exponents w..w+15 as a positional population count, as
 * in the x86 backends: each element in the window becomes a one-hot byte (bins 0-7 in stream
 * 'lo', 8-15 in 'hi', by tbl; out-of-range indices give 0), and Harley-Seal carry-save adders
 * (3 NEON operations each: the majority is one bsl) sum 16 such vectors into bit planes of
 * weight 1, 2, 4, 8 plus a carry of weight 16; a second level sums 16 carries. Elements
 * outside the window are counted one by one.
 */

/* A full adder on bit vectors: (h, l) = a + b + c; majority = bsl(a ^ b, c, a). */
#define SZ_CSA(h, l, a, b, c)                                                                      \
	do {                                                                                       \
		uint8x16_t a_ = (a), b_ = (b), c_ = (c), u_ = veorq_u8(a_, b_);                    \
		h = vbslq_u8(u_, c_, a_);                                                          \
		l = veorq_u8(u_, c_);                                                              \
	} while (0)

typedef struct hs_planes {
	uint8x16_t p1, p2, p4, p8;
} hs_planes;

/* Adds x[0..15] (weight 1 each) to 's'; returns the carry vector of weight 16. */
static SZ_ALWAYS_INLINE uint8x16_t hs_add16(hs_planes *s, const uint8x16_t x[16])
{
	uint8x16_t twosA, twosB, foursA, foursB, eightsA, eightsB, sixteens;
	SZ_CSA(twosA, s->p1, s->p1, x[0], x[1]);
	SZ_CSA(twosB, s->p1, s->p1, x[2], x[3]);
	SZ_CSA(foursA, s->p2, s->p2, twosA, twosB);
	SZ_CSA(twosA, s->p1, s->p1, x[4], x[5]);
	SZ_CSA(twosB, s->p1, s->p1, x[6], x[7]);
	SZ_CSA(foursB, s->p2, s->p2, twosA, twosB);
	SZ_CSA(eightsA, s->p4, s->p4, foursA, foursB);
	SZ_CSA(twosA, s->p1, s->p1, x[8], x[9]);
	SZ_CSA(twosB, s->p1, s->p1, x[10], x[11]);
	SZ_CSA(foursA, s->p2, s->p2, twosA, twosB);
	SZ_CSA(twosA, s->p1, s->p1, x[12], x[13]);
	SZ_CSA(twosB, s->p1, s->p1, x[14], x[15]);
	SZ_CSA(foursB, s->p2, s->p2, twosA, twosB);
	SZ_CSA(eightsB, s->p4, s->p4, foursA, foursB);
	SZ_CSA(sixteens, s->p8, s->p8, eightsA, eightsB);
	return sixteens;
}

/* cnt[b] += weight * (number of bytes of v with bit b set), b = 0..7. */
static SZ_ALWAYS_INLINE void count_bits(uint8x16_t v, uint64_t weight, uint64_t cnt[8])
{
	const uint8x16_t one = vdupq_n_u8(1);
	cnt[0] += weight * vaddvq_u8(vandq_u8(v, one));
	cnt[1] += weight * vaddvq_u8(vandq_u8(vshrq_n_u8(v, 1), one));
	cnt[2] += weight * vaddvq_u8(vandq_u8(vshrq_n_u8(v, 2), one));
	cnt[3] += weight * vaddvq_u8(vandq_u8(vshrq_n_u8(v, 3), one));
	cnt[4] += weight * vaddvq_u8(vandq_u8(vshrq_n_u8(v, 4), one));
	cnt[5] += weight * vaddvq_u8(vandq_u8(vshrq_n_u8(v, 5), one));
	cnt[6] += weight * vaddvq_u8(vandq_u8(vshrq_n_u8(v, 6), one));
	cnt[7] += weight * vaddvq_u8(vshrq_n_u8(v, 7));
}

static SZ_ALWAYS_INLINE void count_planes(const hs_planes *s, uint64_t unit, uint64_t cnt[8])
{
	count_bits(s->p1, unit, cnt);
	count_bits(s->p2, 2 * unit, cnt);
	count_bits(s->p4, 4 * unit, cnt);
	count_bits(s->p8, 8 * unit, cnt);
}

typedef struct hs_stream {
	hs_planes l1, l2;     /* units 1 and 16 */
	uint8x16_t carry[16]; /* level-1 carries waiting for the level-2 adder */
	uint64_t cnt[8];      /* complete counts from level-2 carries (unit 256) */
} hs_stream;

static SZ_ALWAYS_INLINE void hs_init(hs_stream *h)
{
	h->l1.p1 = h->l1.p2 = h->l1.p4 = h->l1.p8 = vdupq_n_u8(0);
	h->l2 = h->l1;
	memset(h->cnt, 0, sizeof h->cnt);
}

static SZ_ALWAYS_INLINE void hs_push(hs_stream *h, const uint8x16_t x[16], unsigned group)
{
	h->carry[group % 16] = hs_add16(&h->l1, x);
	if (group % 16 == 15)
		count_bits(hs_add16(&h->l2, h->carry), 256, h->cnt);
}

static SZ_ALWAYS_INLINE void hs_finish(hs_stream *h, unsigned groups, uint64_t out[8])
{
	if (groups % 16) {
		for (unsigned g = groups % 16; g < 16; g++)
			h->carry[g] = vdupq_n_u8(0);
		count_bits(hs_add16(&h->l2, h->carry), 256, h->cnt);
	}
	count_planes(&h->l1, 1, h->cnt);
	count_planes(&h->l2, 16, h->cnt);
	for (unsigned b = 0; b < 8; b++)
		out[b] += h->cnt[b];
}

/* Elements per group: 16 blocks of 16. */
#define SZ_HS_GROUP 256u

static void neon_histogram(const uint16_t *src, size_t n, uint64_t hist[256])
{
	if (n < 2 * SZ_HIST_SAMPLE) {
		sz_hist_scalar(src, n, hist);
		return;
	}
	const unsigned w = sz_hist_window(src, SZ_HIST_SAMPLE);
	static const uint8_t lo_bits[16] = {1, 2, 4, 8, 16, 32, 64, 128, 0, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t hi_bits[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128};
	const uint8x16_t wv = vdupq_n_u8((uint8_t)w), c15 = vdupq_n_u8(15);
	const uint8x16_t tlo = vld1q_u8(lo_bits), thi = vld1q_u8(hi_bits);
	hs_stream lo, hi;
	hs_init(&lo);
	hs_init(&hi);
	unsigned groups = 0;
	size_t i = 0, outside = 0;
	while (i + SZ_HS_GROUP <= n) {
		uint8x16_t xl[16], xh[16];
		for (unsigned k = 0; k < 16; k++) {
			uint8x16_t e, sm;
			split16(src + i + 16 * k, &e, &sm);
			(void)sm;
			uint8x16_t d = vsubq_u8(e, wv);
			/* tbl gives 0 for indices >= 16, i.e. outside the window */
			xl[k] = vqtbl1q_u8(tlo, d);
			xh[k] = vqtbl1q_u8(thi, d);
			if (SZ_UNLIKELY(vmaxvq_u8(vcgtq_u8(d, c15)))) {
				for (unsigned j = 0; j < 16; j++) {
					uint8_t x = splitzip_bf16_exponent(src[i + 16 * k + j]);
					if ((uint8_t)(x - w) > 15) {
						hist[x]++;
						outside++;
					}
				}
			}
		}
		hs_push(&lo, xl, groups);
		hs_push(&hi, xh, groups);
		groups++;
		i += SZ_HS_GROUP;
		if (i % SZ_HIST_BLOCK == 0) {
			if (outside > SZ_HIST_BLOCK / 8)
				break; /* no dominant window: the scalar tables are faster */
			outside = 0;
		}
	}
	uint64_t counts[16] = {0};
	hs_finish(&lo, groups, counts);
	hs_finish(&hi, groups, counts + 8);
	for (unsigned k = 0; k < 16; k++)
		hist[w + k] += counts[k];
	sz_hist_scalar(src + i, n - i, hist);
}

const splitzip_host_kernels splitzip_kernels_neon = {
    .histogram = neon_histogram,
    .encode_chunk = neon_encode_chunk,
    .decode_chunk = neon_decode_chunk,
    /* Kept ordinary: a streaming variant (STNP) has not been measured on aarch64 hardware. */
    .encode_chunk_stream = neon_encode_chunk,
    .decode_chunk_stream = neon_decode_chunk,
    .hash_chunk = splitzip_hash_bytes,
    /* Mode 2: the scalar reference kernels until this backend has its own. */
    SPLITZIP_ENTROPY_SCALAR_KERNELS,
};
