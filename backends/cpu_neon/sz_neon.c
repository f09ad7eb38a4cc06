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

/*
 * Codes of 16 exponents; '*ok' gets 0xFF for codebook members. Paths: a contiguous codebook
 * (code = e - base), one spanning at most 32 values (one 32-entry tbl), any codebook (a
 * 256-entry lookup in four tbl/tbx steps).
 */
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

/* The code counter of the counting encoder (sz_watch_template.h). */
static SZ_ALWAYS_INLINE uint64x2_t cnt_sum16(uint64x2_t tot, uint8x16_t a)
{
	const uint64x2_t lo = vpaddlq_u32(vpaddlq_u16(vpaddlq_u8(vandq_u8(a, vdupq_n_u8(0x0F)))));
	const uint64x2_t hi = vpaddlq_u32(vpaddlq_u16(vpaddlq_u8(vshrq_n_u8(a, 4))));
	return vaddq_u64(tot, vorrq_u64(lo, vshlq_n_u64(hi, 32)));
}

#define SZ_WT_V uint8x16_t
#define SZ_WT_ZERO() vdupq_n_u8(0)
#define SZ_WT_BCAST16(p) vld1q_u8(p)
#define SZ_WT_SHUF16(t, c) vqtbl1q_u8(t, c)
#define SZ_WT_ADD8(a, b) vaddq_u8(a, b)
#define SZ_WT_T uint64x2_t
#define SZ_WT_T_ZERO() vdupq_n_u64(0)
#define SZ_WT_SUM cnt_sum16
#define SZ_WT_TOTAL(t) vaddvq_u64(t)
#include "../sz_watch_template.h"

/*
 * Encode 32 elements: 16 code bytes, 32 sign/mantissa bytes; with np > 0, add their codes to
 * the counter. Returns 1 if any is an escape.
 */
static SZ_ALWAYS_INLINE int enc32(const enc_consts *k, const uint16_t *s, uint8_t *codes,
                                  uint8_t *sm, const int path, const cnt_state *cs, cnt_acc *acc,
                                  const int np)
{
	uint8x16_t e0, e1, s0, s1, ok0, ok1;
	split16(s, &e0, &s0);
	split16(s + 16, &e1, &s1);
	uint8x16_t c0 = codes16(k, e0, &ok0, path), c1 = codes16(k, e1, &ok1, path);
	if (np) {
		cnt_add(cs, acc, c0, np);
		cnt_add(cs, acc, c1, np);
	}
	/* Even codes in the low nibble, odd codes shifted above them (codes are < 16). */
	uint8x16x2_t u = vuzpq_u8(c0, c1);
	vst1q_u8(codes, vorrq_u8(u.val[0], vshlq_n_u8(u.val[1], 4)));
	vst1q_u8(sm, s0);
	vst1q_u8(sm + 16, s1);
	return vminvq_u8(vandq_u8(ok0, ok1)) == 0;
}

/* The encoder constants for the tables t and the path. */
static SZ_ALWAYS_INLINE void enc_consts_init(enc_consts *k, const splitzip_enc_tables *t,
                                             const int path)
{
	k->basev = vdupq_n_u8(t->base);
	if (path == SZ_WINDOW32) {
		uint8_t win[32];
		sz_window32_table(t, win);
		k->w.val[0] = vld1q_u8(win);
		k->w.val[1] = vld1q_u8(win + 16);
	}
	if (path == SZ_ANY) {
		uint8_t tab[256];
		for (unsigned j = 0; j < 256; j++)
			tab[j] = (uint8_t)(t->code_of[j] | (t->is_escape[j] << 7));
		for (unsigned q = 0; q < 4; q++)
			k->t[q] = vld1q_u8_x4(tab + 64 * q);
	}
}

/* ---- Decode -------------------------------------------------------------------------------- */

typedef struct dec_consts {
	uint8x16_t thi, tlo; /* code -> exponent >> 1, code -> (exponent & 1) << 7 */
} dec_consts;

static SZ_ALWAYS_INLINE void dec_consts_init(dec_consts *k, const uint8_t thi[16],
                                             const uint8_t tlo[16])
{
	k->thi = vld1q_u8(thi);
	k->tlo = vld1q_u8(tlo);
}

/* Decode 32 elements: the 16-entry tables give e >> 1 for the high byte and (e & 1) << 7 for
 * the low byte; vst2 interleaves the byte planes into little-endian u16. */
static SZ_ALWAYS_INLINE void dec32(const dec_consts *k, const uint8_t *codes, const uint8_t *sm,
                                   uint16_t *dst)
{
	const uint8x16_t m80 = vdupq_n_u8(0x80), m7f = vdupq_n_u8(0x7F);
	uint8x16_t c = vld1q_u8(codes);
	uint8x16x2_t nib = vzipq_u8(vandq_u8(c, vdupq_n_u8(0x0F)), vshrq_n_u8(c, 4));
	for (unsigned h = 0; h < 2; h++) {
		uint8x16_t s = vld1q_u8(sm + 16 * h);
		uint8x16x2_t o;
		o.val[0] = vbslq_u8(m7f, s, vqtbl1q_u8(k->tlo, nib.val[h]));
		o.val[1] = vbslq_u8(m80, s, vqtbl1q_u8(k->thi, nib.val[h]));
		vst2q_u8((uint8_t *)(dst + 16 * h), o);
	}
}

/* ---- Chunk loops (sz_chunk_template.h) ----------------------------------------------------- */

#define SZ_CHUNK_PREFIX neon
#define SZ_CHUNK_VL 32
#define SZ_CHUNK_STREAM 0
#define SZ_CHUNK_WINDOW32 1
#define SZ_CHUNK_MASKED 0
#define SZ_CHUNK_ESC_BITS 0
#define SZ_ENC_CONSTS enc_consts
#define SZ_ENC_INIT enc_consts_init
#define SZ_ENC_BLOCK(k, s, codes, sm, path, stream, cs, acc, np)                                   \
	enc32(k, s, codes, sm, path, cs, acc, np)
#define SZ_CNT_BLOCK_ADDS 2
#define SZ_DEC_CONSTS dec_consts
#define SZ_DEC_INIT dec_consts_init
#define SZ_DEC_BLOCK(k, codes, sm, dst, stream) dec32(k, codes, sm, dst)
#include "../sz_chunk_template.h"

/* ---- Mode 2 (sz_entropy_template.h) ------------------------------------------------------- */

/* The 32 lanes of a chunk as eight vectors of 4 u32; a mask is a vector of all-ones lanes. */
#define ev_set1(x) vdupq_n_u32((uint32_t)(x))
#define ev_add vaddq_u32
#define ev_sub vsubq_u32
#define ev_and vandq_u32
#define ev_or vorrq_u32
#define ev_sllv(a, n) vshlq_u32(a, vreinterpretq_s32_u32(n))
#define ev_srlv(a, n) vshlq_u32(a, vnegq_s32(vreinterpretq_s32_u32(n)))
#define ev_srli(a, n) vshrq_n_u32(a, n)
#define ev_slli(a, n) vshlq_n_u32(a, n)
#define ev_lt(a, b) vcltq_u32(a, b)
#define ev_eq(a, b) vceqq_u32(a, b)
#define em_and(a, b) vandq_u32(a, b)
#define ev_maskz(m, a) vandq_u32(m, a)
#define ev_sel(m, a, b) vbslq_u32(m, a, b)
#define ev_storeu(p, a) vst1q_u32(p, a)
#define ev_loadu(p) vld1q_u32(p)

static const uint32_t ent_lane_bit[4] = {1, 2, 4, 8};
static const uint32_t ent_iota4[4] = {0, 1, 2, 3};

static SZ_ALWAYS_INLINE unsigned em_bits(uint32x4_t m)
{
	return vaddvq_u32(vandq_u32(m, vld1q_u32(ent_lane_bit)));
}

static SZ_ALWAYS_INLINE uint32_t em_bits32(const uint32x4_t m[8])
{
	uint32_t b = 0;
	for (unsigned v = 0; v < 8; v++)
		b |= (uint32_t)em_bits(m[v]) << (4 * v);
	return b;
}

static SZ_ALWAYS_INLINE uint32x4_t ev_iota(unsigned v)
{
	return vaddq_u32(vld1q_u32(ent_iota4), vdupq_n_u32(4 * v));
}

/* Bit j of a 16-lane byte mask, lane j. */
static SZ_ALWAYS_INLINE uint32_t mask16(uint8x16_t c)
{
	static const uint8_t w[8] = {1, 2, 4, 8, 16, 32, 64, 128};
	const uint8x8_t wv = vld1_u8(w);
	return (uint32_t)vaddv_u8(vand_u8(vget_low_u8(c), wv)) |
	       (uint32_t)vaddv_u8(vand_u8(vget_high_u8(c), wv)) << 8;
}

/*
 * Lane tables over a mask of 4 lanes. ent_tbl[m]: the tbl indices that put word SZ_RANK(m, l)
 * of 4 into u32 lane l for the lanes of m and zero the others; ent_rank4[m][l] = SZ_RANK(m, l);
 * ent_nth4[m]: the tbl indices that put u32 lane SZ_NTH(m, j) into lane j.
 */
#define SZ_TBL_LANE(m, l)                                                                          \
	((m) >> (l)&1 ? 2 * SZ_RANK(m, l) : 0xFF), ((m) >> (l)&1 ? 2 * SZ_RANK(m, l) + 1 : 0xFF),  \
	    0xFF, 0xFF
#define SZ_TBL(m)                                                                                  \
	{                                                                                          \
		SZ_TBL_LANE(m, 0), SZ_TBL_LANE(m, 1), SZ_TBL_LANE(m, 2), SZ_TBL_LANE(m, 3)         \
	}
#define SZ_RANK4(m)                                                                                \
	{                                                                                          \
		SZ_RANK(m, 0), SZ_RANK(m, 1), SZ_RANK(m, 2), SZ_RANK(m, 3)                         \
	}
#define SZ_NTH_LANE(m, j)                                                                          \
	4 * SZ_NTH(m, j), 4 * SZ_NTH(m, j) + 1, 4 * SZ_NTH(m, j) + 2, 4 * SZ_NTH(m, j) + 3
#define SZ_NTH4(m)                                                                                 \
	{                                                                                          \
		SZ_NTH_LANE(m, 0), SZ_NTH_LANE(m, 1), SZ_NTH_LANE(m, 2), SZ_NTH_LANE(m, 3)         \
	}
static const uint8_t ent_tbl[16][16] = {SZ_TABLE16(SZ_TBL, 0)};
static const uint32_t ent_rank4[16][4] = {SZ_TABLE16(SZ_RANK4, 0)};
static const uint8_t ent_nth4[16][16] = {SZ_TABLE16(SZ_NTH4, 0)};

/* The words of the lanes of m: per vector, the next 4 words and one tbl. */
static SZ_ALWAYS_INLINE void ent_words(uint32x4_t w[8], uint32_t m, const uint8_t *p)
{
	unsigned off = 0;
	for (unsigned v = 0; v < 8; v++) {
		const unsigned mv = (m >> (4 * v)) & 0xF;
		const uint8x8_t q = vld1_u8(p + 2 * off);
		w[v] = vreinterpretq_u32_u8(vqtbl1q_u8(vcombine_u8(q, q), vld1q_u8(ent_tbl[mv])));
		off += (unsigned)__builtin_popcount(mv);
	}
}

static SZ_ALWAYS_INLINE void ent_ranks(uint32x4_t r[8], uint32_t m, uint32_t base)
{
	for (unsigned v = 0; v < 8; v++) {
		const unsigned mv = (m >> (4 * v)) & 0xF;
		r[v] = vaddq_u32(vdupq_n_u32(base), vld1q_u32(ent_rank4[mv]));
		base += (uint32_t)__builtin_popcount(mv);
	}
}

static SZ_ALWAYS_INLINE unsigned ent_compact(uint32_t *out, const uint32x4_t v[8], uint32_t m)
{
	unsigned k = 0;
	for (unsigned i = 0; i < 8; i++) {
		const unsigned mv = (m >> (4 * i)) & 0xF;
		vst1q_u8((uint8_t *)(out + k),
		         vqtbl1q_u8(vreinterpretq_u8_u32(v[i]), vld1q_u8(ent_nth4[mv])));
		k += (unsigned)__builtin_popcount(mv);
	}
	return k;
}

/* The decoder: the nibble tables of sz_ent_dec_nibbles, by tbl on bytes of the 32 lanes. */
typedef struct ent_dk {
	uint8x16_t len1, sym1, len2, sym2, pre;
	const splitzip_entropy_dec_tables *t;
} ent_dk;

typedef struct ent_x {
	uint8x16_t b[2]; /* exponent bytes of lanes 0-15, 16-31 */
} ent_x;

static SZ_ALWAYS_INLINE void ent_dec_init(ent_dk *k, const splitzip_entropy_dec_tables *t)
{
	sz_ent_nib nib;
	sz_ent_dec_nibbles(t, &nib);
	k->len1 = vld1q_u8(nib.len1);
	k->sym1 = vld1q_u8(nib.sym1);
	k->len2 = vld1q_u8(nib.len2);
	k->sym2 = vld1q_u8(nib.sym2);
	k->pre = vdupq_n_u8((uint8_t)nib.pre);
	k->t = t;
}

/* Lanes m (codes the nibble tables do not resolve) from the full table. */
static void ent_dec_long(const ent_dk *k, const uint32x4_t buf[8], uint32_t m, uint8x16_t len[2],
                         uint8x16_t sym[2])
{
	uint32_t b[32];
	uint8_t l8[32], s8[32];
	for (unsigned v = 0; v < 8; v++)
		vst1q_u32(b + 4 * v, buf[v]);
	for (unsigned h = 0; h < 2; h++) {
		vst1q_u8(l8 + 16 * h, len[h]);
		vst1q_u8(s8 + 16 * h, sym[h]);
	}
	for (; m; m &= m - 1) {
		const unsigned l = (unsigned)__builtin_ctz(m);
		const uint32_t e = k->t->lut[b[l] & (SZ_ENTROPY_LUT_SIZE - 1)];
		l8[l] = sz_ent_nib_len(e, SPLITZIP_ENTROPY_MAX_CODE_LENGTH);
		s8[l] = (uint8_t)e;
	}
	for (unsigned h = 0; h < 2; h++) {
		len[h] = vld1q_u8(l8 + 16 * h);
		sym[h] = vld1q_u8(s8 + 16 * h);
	}
}

static SZ_ALWAYS_INLINE uint32_t ent_dec_lookup(const ent_dk *k, const uint32x4_t buf[8],
                                                uint32x4_t len[8], ent_x *x)
{
	uint8x16_t l[2], s[2];
	uint32_t lng = 0, esc = 0;
	for (unsigned h = 0; h < 2; h++) {
		/* the low byte of 16 lanes (vmovn truncates) */
		const uint16x8_t a = vcombine_u16(vmovn_u32(buf[4 * h]), vmovn_u32(buf[4 * h + 1]));
		const uint16x8_t b =
		    vcombine_u16(vmovn_u32(buf[4 * h + 2]), vmovn_u32(buf[4 * h + 3]));
		const uint8x16_t x8 = vcombine_u8(vmovn_u16(a), vmovn_u16(b));
		const uint8x16_t n1 = vandq_u8(x8, vdupq_n_u8(0x0F)), n2 = vshrq_n_u8(x8, 4);
		const uint8x16_t two = vceqq_u8(n1, k->pre);
		l[h] = vbslq_u8(two, vqtbl1q_u8(k->len2, n2), vqtbl1q_u8(k->len1, n1));
		s[h] = vbslq_u8(two, vqtbl1q_u8(k->sym2, n2), vqtbl1q_u8(k->sym1, n1));
		lng |= mask16(vceqq_u8(l[h], vdupq_n_u8(0))) << (16 * h);
	}
	if (SZ_UNLIKELY(lng))
		ent_dec_long(k, buf, lng, l, s);
	for (unsigned h = 0; h < 2; h++) {
		esc |= mask16(vtstq_u8(l[h], vdupq_n_u8(0x80))) << (16 * h);
		const uint8x16_t l4 = vandq_u8(l[h], vdupq_n_u8(0x0F));
		const uint16x8_t lo = vmovl_u8(vget_low_u8(l4)), hi = vmovl_u8(vget_high_u8(l4));
		len[4 * h] = vmovl_u16(vget_low_u16(lo));
		len[4 * h + 1] = vmovl_u16(vget_high_u16(lo));
		len[4 * h + 2] = vmovl_u16(vget_low_u16(hi));
		len[4 * h + 3] = vmovl_u16(vget_high_u16(hi));
		x->b[h] = s[h];
	}
	return esc;
}

static SZ_ALWAYS_INLINE void ent_sym_merge(ent_x *x, const uint32_t v[32], uint32_t m)
{
	uint8_t s8[32];
	vst1q_u8(s8, x->b[0]);
	vst1q_u8(s8 + 16, x->b[1]);
	for (; m; m &= m - 1)
		s8[__builtin_ctz(m)] = (uint8_t)v[__builtin_ctz(m)];
	x->b[0] = vld1q_u8(s8);
	x->b[1] = vld1q_u8(s8 + 16);
}

/* 32 elements: low byte (sm & 0x7F) | (x & 1) << 7, high byte (sm & 0x80) | x >> 1; vst2
 * interleaves them into little-endian u16. */
static SZ_ALWAYS_INLINE void ent_join(const ent_x *x, const uint8_t *sm, uint16_t *dst)
{
	for (unsigned h = 0; h < 2; h++) {
		const uint8x16_t s = vld1q_u8(sm + 16 * h);
		uint8x16x2_t o;
		o.val[0] = vbslq_u8(vdupq_n_u8(0x7F), s, vshlq_n_u8(x->b[h], 7));
		o.val[1] = vbslq_u8(vdupq_n_u8(0x80), s, vshrq_n_u8(x->b[h], 1));
		vst2q_u8((uint8_t *)(dst + 16 * h), o);
	}
}

/* The encoder: a window of 64 exponents (sz_ent_enc_window), the low and high bytes of its
 * entries as two 64-entry tbl tables. */
typedef struct ent_ek {
	uint8x16x4_t lo, hi;
	uint8x16_t base, esc_lo, esc_hi;
	int out_esc; /* every exponent outside the window is an escape */
	const splitzip_entropy_enc_tables *t;
} ent_ek;

static SZ_ALWAYS_INLINE void ent_enc_init(ent_ek *k, const splitzip_entropy_enc_tables *t)
{
	uint16_t esc;
	uint8_t lo[64], hi[64];
	unsigned base;
	k->out_esc = sz_ent_enc_window_bytes(t, 64, lo, hi, &base, &esc);
	k->lo = vld1q_u8_x4(lo);
	k->hi = vld1q_u8_x4(hi);
	k->base = vdupq_n_u8((uint8_t)base);
	k->esc_lo = vdupq_n_u8((uint8_t)esc);
	k->esc_hi = vdupq_n_u8((uint8_t)(esc >> 8));
	k->t = t;
}

static SZ_ALWAYS_INLINE void ent_enc_in(const ent_ek *k, const uint16_t *src, uint8_t *sm,
                                        uint32x4_t ent[8])
{
	for (unsigned h = 0; h < 2; h++) {
		uint8x16_t e, s;
		split16(src + 16 * h, &e, &s);
		vst1q_u8(sm + 16 * h, s);
		const uint8x16_t d = vsubq_u8(e, k->base);
		const uint8x16_t out = vcgeq_u8(d, vdupq_n_u8(64));
		uint8x16_t lo = vqtbl4q_u8(k->lo, d), hi = vqtbl4q_u8(k->hi, d);
		if (SZ_LIKELY(k->out_esc)) {
			lo = vbslq_u8(out, k->esc_lo, lo);
			hi = vbslq_u8(out, k->esc_hi, hi);
		} else if (vmaxvq_u8(out)) {
			uint8_t l8[16], h8[16];
			vst1q_u8(l8, lo);
			vst1q_u8(h8, hi);
			for (uint32_t m = mask16(out); m; m &= m - 1) {
				const unsigned l = (unsigned)__builtin_ctz(m);
				const uint16_t x =
				    sz_ent_e16(k->t->sym[splitzip_bf16_exponent(src[16 * h + l])]);
				l8[l] = (uint8_t)x;
				h8[l] = (uint8_t)(x >> 8);
			}
			lo = vld1q_u8(l8);
			hi = vld1q_u8(h8);
		}
		const uint8x16x2_t z = vzipq_u8(lo, hi); /* u16 entries of lanes 0-7, 8-15 */
		const uint16x8_t a = vreinterpretq_u16_u8(z.val[0]),
		                 b = vreinterpretq_u16_u8(z.val[1]);
		ent[4 * h] = vmovl_u16(vget_low_u16(a));
		ent[4 * h + 1] = vmovl_u16(vget_high_u16(a));
		ent[4 * h + 2] = vmovl_u16(vget_low_u16(b));
		ent[4 * h + 3] = vmovl_u16(vget_high_u16(b));
	}
}

#define SZ_ENT_PREFIX neon
#define SZ_ENT_W 4
#define SZ_EV uint32x4_t
#define SZ_EM uint32x4_t
#define SZ_ES ent_x
#define SZ_ENT_DK ent_dk
#define SZ_ENT_EK ent_ek
#include "../sz_entropy_template.h"

/* ---- Code counter and histogram (sz_count_template.h, sz_hist_template.h)
 * -------------------------------------------------------- */

/*
 * The one-hot lookup is tbl (out-of-range indices give 0); a carry-save adder is 3 NEON
 * operations (the majority is one bsl). NEON has no movemask, so a block with elements outside
 * the window is counted again in scalar code.
 */

/* A full adder on bit vectors: (h, l) = a + b + c; majority = bsl(a ^ b, c, a). */
#define SZ_HV_CSA(h, l, a, b, c)                                                                   \
	do {                                                                                       \
		uint8x16_t a_ = (a), b_ = (b), c_ = (c), u_ = veorq_u8(a_, b_);                    \
		h = vbslq_u8(u_, c_, a_);                                                          \
		l = veorq_u8(u_, c_);                                                              \
	} while (0)

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

/* The 16 exponent bytes of the elements at s, in element order. */
static SZ_ALWAYS_INLINE uint8x16_t exps16(const uint16_t *s)
{
	uint8x16_t e, sm;
	split16(s, &e, &sm);
	(void)sm;
	return e;
}

/* One-hot bytes of the bins d = e - w of 16 elements (bins 0-7 to xl, 8-15 to xh; tbl gives 0
 * for indices >= 16, i.e. outside the window); nonzero if some element is outside. */
static SZ_ALWAYS_INLINE uint64_t onehot16(uint8x16_t d, uint8x16_t c15, uint8x16_t tlo,
                                          uint8x16_t thi, uint8x16_t *xl, uint8x16_t *xh)
{
	*xl = vqtbl1q_u8(tlo, d);
	*xh = vqtbl1q_u8(thi, d);
	return vmaxvq_u8(vcgtq_u8(d, c15));
}

#define SZ_HV uint8x16_t
#define SZ_HV_ZERO() vdupq_n_u8(0)
#define SZ_HV_BCAST16(p) vld1q_u8(p)
#define SZ_HV_COUNT_BITS count_bits
#define SZ_HV_STOREU(p, v) vst1q_u8(p, v)

#define SZ_COUNT_PREFIX neon
#define SZ_HV_BYTES 16
#define SZ_HV_LOADU(p) vld1q_u8(p)
#define SZ_HV_NIBBLES(v, lo, hi)                                                                   \
	do {                                                                                       \
		const uint8x16_t v_ = (v);                                                         \
		lo = vandq_u8(v_, vdupq_n_u8(0x0F));                                               \
		hi = vshrq_n_u8(v_, 4);                                                            \
	} while (0)
#define SZ_HV_SHUF16(t, x) vqtbl1q_u8(t, x)
#define SZ_HV_JOIN(lo, hi) vorrq_u8(lo, vshlq_n_u8(hi, 4))
#define SZ_HV_ANY2(a, b) (vmaxvq_u8(vorrq_u8(a, b)) != 0)
#include "../sz_count_template.h"

#define SZ_HIST_PREFIX neon
#define SZ_HIST_VL 16
#define SZ_HV_SET1(x) vdupq_n_u8((uint8_t)(x))
#define SZ_HV_SUB8(a, b) vsubq_u8(a, b)
#define SZ_HIST_EXPS exps16
#define SZ_HIST_ONEHOT onehot16
#define SZ_HIST_LANE_BITS 0
#include "../sz_hist_template.h"

const splitzip_host_kernels splitzip_kernels_neon = {
    .histogram = neon_histogram,
    .encode_chunk = neon_encode_chunk,
    .decode_chunk = neon_decode_chunk,
    /* Kept ordinary: a streaming variant (STNP) has not been measured on aarch64 hardware. */
    .encode_chunk_stream = neon_encode_chunk,
    .decode_chunk_stream = neon_decode_chunk,
    .hash_chunk = splitzip_hash_bytes,
    .encode_count_chunk = neon_encode_count_chunk,
    .encode_count_chunk_stream = neon_encode_count_chunk,
    .count_codes = neon_count_codes,
    .recode_codes = neon_recode_codes,
    .entropy_encode_chunk = neon_entropy_encode_chunk,
    .entropy_decode_chunk = neon_entropy_decode_chunk,
    .entropy_decode_pair = neon_entropy_decode_pair,
};
