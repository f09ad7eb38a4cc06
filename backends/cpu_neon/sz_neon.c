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
#define SZ_ENC_BLOCK(k, s, codes, sm, path, stream) enc32(k, s, codes, sm, path)
#define SZ_DEC_CONSTS dec_consts
#define SZ_DEC_INIT dec_consts_init
#define SZ_DEC_BLOCK(k, codes, sm, dst, stream) dec32(k, codes, sm, dst)
#include "../sz_chunk_template.h"

/* ---- Histogram (sz_hist_template.h) -------------------------------------------------------- */

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

#define SZ_HIST_PREFIX neon
#define SZ_HIST_VL 16
#define SZ_HV uint8x16_t
#define SZ_HV_ZERO() vdupq_n_u8(0)
#define SZ_HV_SET1(x) vdupq_n_u8((uint8_t)(x))
#define SZ_HV_BCAST16(p) vld1q_u8(p)
#define SZ_HV_SUB8(a, b) vsubq_u8(a, b)
#define SZ_HV_COUNT_BITS count_bits
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
};
