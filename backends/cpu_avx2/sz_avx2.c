/*
 * sz_avx2.c -- AVX2 kernels. Needs x86-64 with AVX2, BMI1, BMI2 and POPCNT (Haswell, Zen 1).
 * Must match splitzip_ref_encode_chunk/decode_chunk/histogram (core/sz_ref.c) and
 * splitzip_hash_bytes (core/sz_checksum.c) bit for bit.
 */
#include <immintrin.h>

#include "../sz_simd_common.h"
#include "../sz_host_backends.h"

#ifndef __AVX2__
#error "sz_avx2.c must be compiled with -mavx2"
#endif

/* ---- Encode -------------------------------------------------------------------------------- */

/* 32 BF16 values -> 32 exponent bytes and 32 sign/mantissa bytes, in element order. */
static SZ_ALWAYS_INLINE void split32(const uint16_t *s, __m256i *e, __m256i *sm)
{
	const __m256i m7f = _mm256_set1_epi16(0x007F), m80 = _mm256_set1_epi16(0x0080);
	__m256i a = _mm256_loadu_si256((const __m256i *)s);
	__m256i b = _mm256_loadu_si256((const __m256i *)(s + 16));
	/* (v << 1) >> 8 drops the sign: the exponent, zero-extended to 16 bits. */
	__m256i ea = _mm256_srli_epi16(_mm256_slli_epi16(a, 1), 8);
	__m256i eb = _mm256_srli_epi16(_mm256_slli_epi16(b, 1), 8);
	__m256i sa = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(a, 8), m80),
	                             _mm256_and_si256(a, m7f));
	__m256i sb = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(b, 8), m80),
	                             _mm256_and_si256(b, m7f));
	/* packus interleaves the 128-bit lanes of a and b; 0xD8 puts the quadwords back. */
	*e = _mm256_permute4x64_epi64(_mm256_packus_epi16(ea, eb), 0xD8);
	*sm = _mm256_permute4x64_epi64(_mm256_packus_epi16(sa, sb), 0xD8);
}

/*
 * Codes of 32 exponents for any codebook: a branch-free binary search for the largest k with
 * codebook[k] <= e (the codebook is strictly ascending), then e is in the codebook iff
 * codebook[k] == e. '*ok' gets 0xFF for codebook members.
 */
static SZ_ALWAYS_INLINE __m256i codes_search(__m256i e, __m256i cbv, __m256i cb8, __m256i *ok)
{
	__m256i k =
	    _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_max_epu8(e, cb8), e), _mm256_set1_epi8(8));
	for (int s = 4; s >= 1; s >>= 1) {
		__m256i step = _mm256_set1_epi8((char)s);
		__m256i t = _mm256_shuffle_epi8(cbv, _mm256_or_si256(k, step));
		__m256i ge = _mm256_cmpeq_epi8(_mm256_max_epu8(e, t), e);
		k = _mm256_or_si256(k, _mm256_and_si256(ge, step));
	}
	*ok = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(cbv, k), e);
	return _mm256_and_si256(k, *ok);
}

/*
 * Codes of 32 exponents for a codebook spanning at most 32 exponent values (common in real KV:
 * a window with a hole): a 32-entry table indexed by e - base, two vpshufb and a blend on bit 4.
 * Entries are the code, or 0x80 for a value between members that is not one.
 */
static SZ_ALWAYS_INLINE __m256i codes_window32(__m256i e, __m256i basev, __m256i t0, __m256i t1,
                                               __m256i *ok)
{
	__m256i d = _mm256_sub_epi8(e, basev);
	__m256i in = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(31)), d);
	__m256i v = _mm256_blendv_epi8(_mm256_shuffle_epi8(t0, d), _mm256_shuffle_epi8(t1, d),
	                               _mm256_slli_epi16(d, 3));
	*ok = _mm256_andnot_si256(_mm256_cmpgt_epi8(_mm256_setzero_si256(), v), in);
	return _mm256_and_si256(v, *ok);
}

/* Codes of 32 exponents for a contiguous codebook: code = e - base where that is < 16. */
static SZ_ALWAYS_INLINE __m256i codes_window(__m256i e, __m256i basev, __m256i *ok)
{
	__m256i d = _mm256_sub_epi8(e, basev);
	*ok = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(15)), d);
	return _mm256_and_si256(d, *ok);
}

typedef struct enc_consts {
	__m256i basev, cbv, cb8, t0, t1;
} enc_consts;

static SZ_ALWAYS_INLINE void enc_consts_init(enc_consts *k, const splitzip_enc_tables *t,
                                             const int path)
{
	k->basev = _mm256_set1_epi8((char)t->base);
	if (path == SZ_WINDOW32) {
		uint8_t tab[32];
		sz_window32_table(t, tab);
		k->t0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)tab));
		k->t1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(tab + 16)));
	} else {
		k->t0 = k->t1 = _mm256_setzero_si256();
	}
	k->cbv = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t->codebook));
	k->cb8 = _mm256_set1_epi8((char)t->codebook[8]);
}

/* The code counter of the counting encoder (sz_watch_template.h). */
static SZ_ALWAYS_INLINE __m256i cnt_sum32(__m256i tot, __m256i a)
{
	const __m256i m0f = _mm256_set1_epi8(0x0F), z = _mm256_setzero_si256();
	const __m256i lo = _mm256_sad_epu8(_mm256_and_si256(a, m0f), z);
	const __m256i hi = _mm256_sad_epu8(_mm256_and_si256(_mm256_srli_epi16(a, 4), m0f), z);
	return _mm256_add_epi64(tot, _mm256_or_si256(lo, _mm256_slli_epi64(hi, 32)));
}

static SZ_ALWAYS_INLINE uint64_t cnt_total32(__m256i tot)
{
	const __m128i q =
	    _mm_add_epi64(_mm256_castsi256_si128(tot), _mm256_extracti128_si256(tot, 1));
	return (uint64_t)_mm_cvtsi128_si64(q) + (uint64_t)_mm_extract_epi64(q, 1);
}

#define SZ_WT_V __m256i
#define SZ_WT_ZERO() _mm256_setzero_si256()
#define SZ_WT_BCAST16(p) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p)))
#define SZ_WT_SHUF16(t, c) _mm256_shuffle_epi8(t, c)
#define SZ_WT_ADD8(a, b) _mm256_add_epi8(a, b)
#define SZ_WT_T __m256i
#define SZ_WT_T_ZERO() _mm256_setzero_si256()
#define SZ_WT_SUM cnt_sum32
#define SZ_WT_TOTAL cnt_total32
#include "../sz_watch_template.h"

/*
 * Encode 64 elements: 32 code bytes and 64 sign/mantissa bytes; with np > 0, add their codes to
 * the counter. Returns the escape mask (bit j set if element j is an escape).
 */
static SZ_ALWAYS_INLINE uint64_t enc64(const enc_consts *k, const uint16_t *s, uint8_t *codes,
                                       uint8_t *sm, const int path, const int stream,
                                       const cnt_state *cs, cnt_acc *acc, const int np)
{
	__m256i e0, e1, s0, s1, c0, c1, ok0, ok1;
	split32(s, &e0, &s0);
	split32(s + 32, &e1, &s1);
	if (path == SZ_WINDOW16) {
		c0 = codes_window(e0, k->basev, &ok0);
		c1 = codes_window(e1, k->basev, &ok1);
	} else if (path == SZ_WINDOW32) {
		c0 = codes_window32(e0, k->basev, k->t0, k->t1, &ok0);
		c1 = codes_window32(e1, k->basev, k->t0, k->t1, &ok1);
	} else {
		c0 = codes_search(e0, k->cbv, k->cb8, &ok0);
		c1 = codes_search(e1, k->cbv, k->cb8, &ok1);
	}
	if (np) {
		cnt_add(cs, acc, c0, np);
		cnt_add(cs, acc, c1, np);
	}
	/* Pairs of codes -> one byte each: even element * 1 + odd element * 16 (<= 255). */
	const __m256i w = _mm256_set1_epi16(0x1001);
	__m256i p0 = _mm256_maddubs_epi16(c0, w), p1 = _mm256_maddubs_epi16(c1, w);
	__m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(p0, p1), 0xD8);
	if (stream) {
		/* sm is 64-byte aligned (the chunk template) and takes 2/3 of the output; the codes
		 * keep ordinary stores, as they cannot be aligned at the same time in general. */
		_mm256_storeu_si256((__m256i *)codes, packed);
		_mm256_stream_si256((__m256i *)sm, s0);
		_mm256_stream_si256((__m256i *)(sm + 32), s1);
	} else {
		_mm256_storeu_si256((__m256i *)codes, packed);
		_mm256_storeu_si256((__m256i *)sm, s0);
		_mm256_storeu_si256((__m256i *)(sm + 32), s1);
	}
	uint32_t m0 = ~(uint32_t)_mm256_movemask_epi8(ok0);
	uint32_t m1 = ~(uint32_t)_mm256_movemask_epi8(ok1);
	return (uint64_t)m0 | ((uint64_t)m1 << 32);
}

/* ---- Decode -------------------------------------------------------------------------------- */

typedef struct dec_consts {
	__m256i thi, tlo; /* code -> exponent >> 1, code -> (exponent & 1) << 7 */
} dec_consts;

/*
 * Output byte pair of element i: low = (e << 7) | (sm & 0x7F), high = (sm & 0x80) | (e >> 1).
 * The two exponent parts come straight from two 16-entry tables, so no shifts are needed.
 */
static SZ_ALWAYS_INLINE void join32(const dec_consts *k, __m256i nib, __m256i s, __m256i *lo,
                                    __m256i *hi)
{
	const __m256i m7f = _mm256_set1_epi8(0x7F), m80 = _mm256_set1_epi8((char)0x80);
	*hi = _mm256_or_si256(_mm256_and_si256(s, m80), _mm256_shuffle_epi8(k->thi, nib));
	*lo = _mm256_or_si256(_mm256_and_si256(s, m7f), _mm256_shuffle_epi8(k->tlo, nib));
}

static SZ_ALWAYS_INLINE void dec_consts_init(dec_consts *k, const uint8_t thi[16],
                                             const uint8_t tlo[16])
{
	k->thi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)thi));
	k->tlo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)tlo));
}

static SZ_ALWAYS_INLINE void store256(uint16_t *p, __m256i v, const int stream)
{
	if (stream)
		_mm256_stream_si256((__m256i *)p,
		                    v); /* p 32-byte aligned, lines whole (the chunk template) */
	else
		_mm256_storeu_si256((__m256i *)p, v);
}

/* Decode 64 elements from 32 code bytes and 64 sign/mantissa bytes. */
static SZ_ALWAYS_INLINE void dec64(const dec_consts *k, const uint8_t *codes, const uint8_t *sm,
                                   uint16_t *dst, const int stream)
{
	const __m256i m0f = _mm256_set1_epi8(0x0F);
	__m256i c = _mm256_loadu_si256((const __m256i *)codes);
	__m256i lo4 = _mm256_and_si256(c, m0f),
	        hi4 = _mm256_and_si256(_mm256_srli_epi16(c, 4), m0f);
	/* In-lane interleave: n0 = elements [0..15 | 32..47], n1 = [16..31 | 48..63]. */
	__m256i n0 = _mm256_unpacklo_epi8(lo4, hi4), n1 = _mm256_unpackhi_epi8(lo4, hi4);
	__m256i sa = _mm256_loadu_si256((const __m256i *)sm);
	__m256i sb = _mm256_loadu_si256((const __m256i *)(sm + 32));
	__m256i s0 = _mm256_permute2x128_si256(sa, sb, 0x20); /* [0..15 | 32..47] */
	__m256i s1 = _mm256_permute2x128_si256(sa, sb, 0x31); /* [16..31 | 48..63] */
	__m256i lo, hi;
	join32(k, n0, s0, &lo, &hi);
	__m256i u0 = _mm256_unpacklo_epi8(lo, hi), u1 = _mm256_unpackhi_epi8(lo, hi);
	__m256i o0 = _mm256_permute2x128_si256(u0, u1, 0x20); /* elements 0..15 */
	__m256i o2 = _mm256_permute2x128_si256(u0, u1, 0x31); /* 32..47 */
	join32(k, n1, s1, &lo, &hi);
	u0 = _mm256_unpacklo_epi8(lo, hi);
	u1 = _mm256_unpackhi_epi8(lo, hi);
	/* In address order, so that streaming stores fill each line before the next. */
	store256(dst, o0, stream);
	store256(dst + 16, _mm256_permute2x128_si256(u0, u1, 0x20), stream);
	store256(dst + 32, o2, stream);
	store256(dst + 48, _mm256_permute2x128_si256(u0, u1, 0x31), stream);
}

/* ---- Chunk loops (sz_chunk_template.h) ----------------------------------------------------- */

#define SZ_CHUNK_PREFIX avx2
#define SZ_CHUNK_VL 64
#define SZ_CHUNK_STREAM 1
#define SZ_CHUNK_SFENCE() _mm_sfence()
#define SZ_CHUNK_WINDOW32 1
#define SZ_CHUNK_MASKED 0
#define SZ_CHUNK_ESC_BITS 1
#define SZ_ENC_CONSTS enc_consts
#define SZ_ENC_INIT enc_consts_init
#define SZ_ENC_BLOCK enc64
#define SZ_DEC_CONSTS dec_consts
#define SZ_DEC_INIT dec_consts_init
#define SZ_DEC_BLOCK dec64
#define SZ_CNT_BLOCK_ADDS 2
#include "../sz_chunk_template.h"

/* ---- Mode 2 ------------------------------------------------------------------------------ */

/*
 * AVX2's own mode-2 kernels, the 32 lanes of a chunk in 16-bit lanes (doc/CPU_BACKENDS.md): the
 * encoder (sz_avx2_entropy_enc.h) and the decoder (sz_avx2_entropy_dec.h), included below. The
 * u32-lane kernels of sz_entropy_template.h, which NEON uses, are not built here.
 */

/* The sign bits of the eight 32-bit lanes of m. */
#define em_bits(m) ((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m)))

/* Lane tables over a mask of 8 lanes (the encoder's): ent_nth[m][j] = SZ_NTH(m, j). */
#define SZ_NTHS(m)                                                                                 \
	{                                                                                          \
		SZ_NTH(m, 0), SZ_NTH(m, 1), SZ_NTH(m, 2), SZ_NTH(m, 3), SZ_NTH(m, 4),              \
		    SZ_NTH(m, 5), SZ_NTH(m, 6), SZ_NTH(m, 7)                                       \
	}
static const uint8_t ent_nth[256][8] = {SZ_TABLE256(SZ_NTHS)};

static SZ_ALWAYS_INLINE __m256i bcast16(const uint8_t *p)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
}

/* ---- Joins of the dtypes (splitzip_pl3_join_fn, splitzip_nib_join_fn) ---------------------- */

/* The exponents hi[i] >> 7 of 32 elements as bytes (vpackuswb, lanes put back in order). */
static SZ_ALWAYS_INLINE __m256i dec_exps32(const uint16_t *hi)
{
	const __m256i a = _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)hi), 7);
	const __m256i b = _mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(hi + 16)), 7);
	return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
}

/* 32 nibble fields at a time, as the AVX-512 join does 64 (backends/cpu_avx512/sz_avx512.c). */
static void avx2_nib_join(const uint16_t *hi, uint64_t B, const uint8_t *nib, uint8_t *dst)
{
	const __m256i lo4 = _mm256_set1_epi16(0x000F), hi4 = _mm256_set1_epi16(0x0F00);
	const __m256i m8 = _mm256_set1_epi8(8), m7 = _mm256_set1_epi8(7);
	for (uint64_t i = 0; i < 64 * B; i += 32) {
		const __m256i w =
		    _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(nib + i / 2)));
		const __m256i r = _mm256_or_si256(_mm256_and_si256(w, lo4),
		                                  _mm256_and_si256(_mm256_slli_epi16(w, 4), hi4));
		const __m256i x = dec_exps32(hi + i);
		const __m256i v = _mm256_or_si256(
		    _mm256_slli_epi16(_mm256_and_si256(r, m8), 4),
		    _mm256_or_si256(_mm256_slli_epi16(x, 3), _mm256_and_si256(r, m7)));
		_mm256_storeu_si256((__m256i *)(dst + i), v);
	}
}

/* Byte j of the result: 'val' if bit j of the 32 bits m is set, else 0. */
static SZ_ALWAYS_INLINE __m256i bits_to_bytes(uint32_t m, __m256i val)
{
	const __m256i sel = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
	                                     2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
	const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
	const __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32((int)m), sel);
	return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(b, bit), bit), val);
}

/* 32 elements at a time: the planes' bits to bytes (vpshufb, vpcmpeqb), or-ed into x << 2
 * (x < 32: bits 2-6); FP16: interleaved with the low bytes, lanes put back in order. */
static void avx2_pl3_join(const uint16_t *hi, uint64_t G, const uint8_t *pl3, const uint8_t *lo,
                          uint8_t *dst)
{
	const __m256i one = _mm256_set1_epi8(1), two = _mm256_set1_epi8(2),
	              top = _mm256_set1_epi8((char)0x80);
	for (uint64_t g = 0; g < G; g++)
		for (unsigned h = 0; h < 2; h++) {
			uint32_t b[3];
			for (unsigned k = 0; k < 3; k++)
				memcpy(&b[k], pl3 + 24 * g + 8 * k + 4 * h, 4);
			const uint64_t i = 64 * g + 32 * h;
			__m256i v = _mm256_slli_epi16(dec_exps32(hi + i), 2);
			v = _mm256_or_si256(v, bits_to_bytes(b[0], one));
			v = _mm256_or_si256(v, bits_to_bytes(b[1], two));
			v = _mm256_or_si256(v, bits_to_bytes(b[2], top));
			if (!lo) {
				_mm256_storeu_si256((__m256i *)(dst + i), v);
				continue;
			}
			const __m256i l = _mm256_loadu_si256((const __m256i *)(lo + i));
			const __m256i a = _mm256_unpacklo_epi8(l, v),
			              c = _mm256_unpackhi_epi8(l, v);
			_mm256_storeu_si256((__m256i *)(dst + 2 * i),
			                    _mm256_permute2x128_si256(a, c, 0x20));
			_mm256_storeu_si256((__m256i *)(dst + 2 * i + 32),
			                    _mm256_permute2x128_si256(a, c, 0x31));
		}
}

/* 16 elements at a time: the low and high halves interleaved (vpunpck*wd work within 128-bit
 * lanes, so the two results' lanes are put back in order). */
static void avx2_fp32_join(const uint16_t *hi, const uint8_t *lo, uint64_t B, uint8_t *dst)
{
	for (uint64_t i = 0; i < 32 * B; i += 16) {
		const __m256i h = _mm256_loadu_si256((const __m256i *)(hi + i));
		const __m256i l = _mm256_loadu_si256((const __m256i *)(lo + 2 * i));
		const __m256i a = _mm256_unpacklo_epi16(l, h), b = _mm256_unpackhi_epi16(l, h);
		_mm256_storeu_si256((__m256i *)(dst + 4 * i),
		                    _mm256_permute2x128_si256(a, b, 0x20));
		_mm256_storeu_si256((__m256i *)(dst + 4 * i + 32),
		                    _mm256_permute2x128_si256(a, b, 0x31));
	}
}

/* The mode-2 encoder and decoder (see "Mode 2" above). */
#include "sz_avx2_entropy_enc.h"
#include "sz_avx2_entropy_dec.h"

/* ---- Code counter and histogram (sz_count_template.h, sz_hist_template.h)
 * -------------------------------------------------------- */

/* A full adder on bit vectors: (h, l) = a + b + c. */
#define SZ_HV_CSA(h, l, a, b, c)                                                                   \
	do {                                                                                       \
		__m256i a_ = (a), b_ = (b), c_ = (c), u_ = _mm256_xor_si256(a_, b_);               \
		h = _mm256_or_si256(_mm256_and_si256(a_, b_), _mm256_and_si256(u_, c_));           \
		l = _mm256_xor_si256(u_, c_);                                                      \
	} while (0)

/* cnt[b] += weight * (number of bytes of v with bit b set), b = 0..7. */
static SZ_ALWAYS_INLINE void count_bits(__m256i v, uint64_t weight, uint64_t cnt[8])
{
	for (unsigned b = 0; b < 8; b++) {
		/* bit b to bit 7 of each byte (16-bit shifts carry across bytes; only bit 7 is
		 * read), then movemask */
		__m256i t = b == 7 ? v : _mm256_slli_epi16(v, (int)(7 - b));
		cnt[b] += weight * (uint64_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(t));
	}
}

/* 32 exponent bytes in some fixed order (a histogram does not care which). */
static SZ_ALWAYS_INLINE __m256i exps32(const uint16_t *s)
{
	__m256i a =
	    _mm256_srli_epi16(_mm256_slli_epi16(_mm256_loadu_si256((const __m256i *)s), 1), 8);
	__m256i b = _mm256_srli_epi16(
	    _mm256_slli_epi16(_mm256_loadu_si256((const __m256i *)(s + 16)), 1), 8);
	return _mm256_packus_epi16(a, b);
}

/*
 * One-hot bytes of the bins d = e - w of 32 elements by vpshufb (bins 0-7 to xl, 8-15 to xh);
 * returns the lanes outside the window.
 */
static SZ_ALWAYS_INLINE uint64_t onehot32(__m256i d, __m256i c15, __m256i tlo, __m256i thi,
                                          __m256i *xl, __m256i *xh)
{
	/* 0xFF outside the window: the index gets bit 7 and vpshufb returns 0 */
	__m256i out =
	    _mm256_xor_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(d, c15), d), _mm256_set1_epi8(-1));
	__m256i idx = _mm256_or_si256(d, out);
	*xl = _mm256_shuffle_epi8(tlo, idx);
	*xh = _mm256_shuffle_epi8(thi, idx);
	return (uint32_t)_mm256_movemask_epi8(out);
}

#define SZ_HV __m256i
#define SZ_HV_ZERO() _mm256_setzero_si256()
#define SZ_HV_BCAST16(p) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p)))
#define SZ_HV_COUNT_BITS count_bits
#define SZ_HV_STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), v)

#define SZ_COUNT_PREFIX avx2
#define SZ_HV_BYTES 32
#define SZ_HV_LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define SZ_HV_NIBBLES(v, lo, hi)                                                                   \
	do {                                                                                       \
		const __m256i v_ = (v), m_ = _mm256_set1_epi8(0x0F);                               \
		lo = _mm256_and_si256(v_, m_);                                                     \
		hi = _mm256_and_si256(_mm256_srli_epi16(v_, 4), m_);                               \
	} while (0)
#define SZ_HV_SHUF16(t, x) _mm256_shuffle_epi8(t, x)
#define SZ_HV_JOIN(lo, hi) _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4))
#define SZ_HV_ANY2(a, b) (!_mm256_testz_si256(_mm256_or_si256(a, b), _mm256_or_si256(a, b)))
#include "../sz_count_template.h"

#define SZ_HIST_PREFIX avx2
#define SZ_HIST_VL 32
#define SZ_HV_SET1(x) _mm256_set1_epi8((char)(x))
#define SZ_HV_SUB8(a, b) _mm256_sub_epi8(a, b)
#define SZ_HIST_EXPS exps32
#define SZ_HIST_ONEHOT onehot32
#define SZ_HIST_LANE_BITS 1
#include "../sz_hist_template.h"

/* ---- Chunk hash ------------------------------------------------------------------------------ */

/* x * c mod 2^64 per 64-bit lane, from three 32 x 32 -> 64-bit multiplies. */
static SZ_ALWAYS_INLINE __m256i mul64(__m256i x, __m256i clo, __m256i chi)
{
	__m256i lo = _mm256_mul_epu32(x, clo);
	__m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(x, 32), clo),
	                                 _mm256_mul_epu32(x, chi));
	return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

#define SZ_C64(c) _mm256_set1_epi64x((long long)((c)&0xFFFFFFFFull))
#define SZ_C64H(c) _mm256_set1_epi64x((long long)((c) >> 32))

/* splitzip_hash_round() on four lanes. */
static SZ_ALWAYS_INLINE __m256i round4(__m256i acc, __m256i w)
{
	__m256i x = _mm256_add_epi64(acc, mul64(w, SZ_C64(SPLITZIP_P2), SZ_C64H(SPLITZIP_P2)));
	x = _mm256_or_si256(_mm256_slli_epi64(x, 31), _mm256_srli_epi64(x, 33));
	return mul64(x, SZ_C64(SPLITZIP_P1), SZ_C64H(SPLITZIP_P1));
}

/* splitzip_fmix64() on four lanes. */
static SZ_ALWAYS_INLINE __m256i fmix4(__m256i x)
{
	x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 33));
	x = mul64(x, SZ_C64(0xFF51AFD7ED558CCDull), SZ_C64H(0xFF51AFD7ED558CCDull));
	x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 33));
	x = mul64(x, SZ_C64(0xC4CEB9FE1A85EC53ull), SZ_C64H(0xC4CEB9FE1A85EC53ull));
	return _mm256_xor_si256(x, _mm256_srli_epi64(x, 33));
}

/* The 32 lanes of splitzip_hash_bytes() as 8 vectors of 4: vector r holds lanes 4r..4r+3,
 * which are exactly the words 4r..4r+3 of each 256-byte stripe. */
static uint64_t avx2_hash_chunk(const void *p, size_t n_bytes)
{
	const uint8_t *b = (const uint8_t *)p;
	__m256i acc[8];
	for (unsigned r = 0; r < 8; r++)
		acc[r] = _mm256_set_epi64x((long long)splitzip_hash_lane_init(4 * r + 3),
		                           (long long)splitzip_hash_lane_init(4 * r + 2),
		                           (long long)splitzip_hash_lane_init(4 * r + 1),
		                           (long long)splitzip_hash_lane_init(4 * r));
	size_t n_full = n_bytes / 256;
	for (size_t s = 0; s < n_full; s++, b += 256)
		for (unsigned r = 0; r < 8; r++)
			acc[r] = round4(acc[r], _mm256_loadu_si256((const __m256i *)(b + 32 * r)));
	size_t rest = n_bytes - n_full * 256;
	if (rest) {
		/* The last stripe, zero-padded; only the lanes of words that exist advance. */
		uint8_t buf[256] = {0};
		memcpy(buf, b, rest);
		const long long n_words = (long long)((rest + 7) / 8);
		for (unsigned r = 0; r < 8; r++) {
			__m256i lane = _mm256_set_epi64x(4 * r + 3, 4 * r + 2, 4 * r + 1, 4 * r);
			__m256i live = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n_words), lane);
			__m256i next =
			    round4(acc[r], _mm256_loadu_si256((const __m256i *)(buf + 32 * r)));
			acc[r] = _mm256_blendv_epi8(acc[r], next, live);
		}
	}
	__m256i sum = _mm256_setzero_si256();
	for (unsigned r = 0; r < 8; r++) {
		__m256i l = _mm256_set_epi64x(
		    (long long)((4 * r + 3) * SPLITZIP_P4), (long long)((4 * r + 2) * SPLITZIP_P4),
		    (long long)((4 * r + 1) * SPLITZIP_P4), (long long)((4 * r) * SPLITZIP_P4));
		sum = _mm256_add_epi64(sum, fmix4(_mm256_xor_si256(acc[r], l)));
	}
	__m128i q = _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
	uint64_t total = (uint64_t)_mm_cvtsi128_si64(q) + (uint64_t)_mm_extract_epi64(q, 1);
	return splitzip_hash_chunk_final(n_bytes, total);
}

const splitzip_host_kernels splitzip_kernels_avx2 = {
    .histogram = avx2_histogram,
    .encode_chunk = avx2_encode_chunk,
    .decode_chunk = avx2_decode_chunk,
    .encode_chunk_stream = avx2_encode_chunk_stream,
    .decode_chunk_stream = avx2_decode_chunk_stream,
    .hash_chunk = avx2_hash_chunk,
    .encode_count_chunk = avx2_encode_count_chunk,
    .encode_count_chunk_stream = avx2_encode_count_chunk_stream,
    .count_codes = avx2_count_codes,
    .recode_codes = avx2_recode_codes,
    .entropy_encode_chunk = avx2_entropy_encode_chunk,
    .entropy_decode_chunk = avx2_entropy_decode_chunk,
    .entropy_decode_pair = avx2_entropy_decode_pair,
    .pl3_join = avx2_pl3_join,
    .nib_join = avx2_nib_join,
    .fp32_join = avx2_fp32_join,
};
