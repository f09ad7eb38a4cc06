/*
 * sz_avx512.c -- AVX-512 kernels. Needs AVX-512 F/BW/DQ/VL + BMI2 (Skylake-SP, Zen 4); built a
 * second time with SZ_AVX512_VBMI=1 and -mavx512vbmi -mavx512vbmi2 (Ice Lake, Zen 4).
 * Must match splitzip_ref_encode_chunk/decode_chunk/histogram (core/sz_ref.c) and
 * splitzip_hash_bytes (core/sz_checksum.c) bit for bit.
 *
 * The two builds are two backends, "avx512vbmi" and "avx512" (each with its own id), so that
 * both paths are tested on any VBMI machine. The VBMI build uses vpermt2b for the byte
 * deinterleave, the 256-entry exponent -> code table and the decode interleave, and
 * vpcompressw/vpcompressb (VBMI2) to compact escapes; the plain build uses vpmovwb, a vpshufb
 * binary search and a bit loop.
 */
#include <immintrin.h>

#include "../sz_simd_common.h"
#include "../sz_host_backends.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512DQ__) ||                   \
    !defined(__AVX512VL__) || !defined(__BMI2__)
#error "sz_avx512.c must be compiled with -mavx512f -mavx512bw -mavx512dq -mavx512vl -mbmi2"
#endif

#if SZ_AVX512_VBMI
#if !defined(__AVX512VBMI__) || !defined(__AVX512VBMI2__)
#error "the VBMI build of sz_avx512.c needs -mavx512vbmi -mavx512vbmi2"
#endif
#define SZ_KERNELS_SYMBOL splitzip_kernels_avx512vbmi
#else
#define SZ_KERNELS_SYMBOL splitzip_kernels_avx512
#endif

/* Masks of the first n lanes (n <= 32 or 64); bzhi is defined for n = 32/64, a shift is not. */
static SZ_ALWAYS_INLINE __mmask32 first32(size_t n)
{
	return (__mmask32)_bzhi_u32(~0u, (unsigned)n);
}

static SZ_ALWAYS_INLINE __mmask64 first64(size_t n)
{
	return (__mmask64)_bzhi_u64(~0ull, (unsigned)n);
}

/* Sum of the eight u64 lanes, wrapping. (GCC's _mm512_reduce_add_epi64 ends in a signed
 * scalar addition, which UBSan rightly flags when it overflows.) */
static SZ_ALWAYS_INLINE uint64_t sum_u64x8(__m512i v)
{
	__m256i h = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
	__m128i q = _mm_add_epi64(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
	return (uint64_t)_mm_cvtsi128_si64(q) + (uint64_t)_mm_extract_epi64(q, 1);
}

/* ---- Encode -------------------------------------------------------------------------------- */

#if SZ_AVX512_VBMI
/* Byte indices of the low bytes (0, 2, .., 126) then the high bytes (1, 3, .., 127) of 64 u16. */
static const uint8_t deinterleave_idx[128] = {
    0,   2,   4,   6,   8,   10,  12,  14,  16,  18,  20,  22,  24,  26,  28,  30,  32,  34,  36,
    38,  40,  42,  44,  46,  48,  50,  52,  54,  56,  58,  60,  62,  64,  66,  68,  70,  72,  74,
    76,  78,  80,  82,  84,  86,  88,  90,  92,  94,  96,  98,  100, 102, 104, 106, 108, 110, 112,
    114, 116, 118, 120, 122, 124, 126, 1,   3,   5,   7,   9,   11,  13,  15,  17,  19,  21,  23,
    25,  27,  29,  31,  33,  35,  37,  39,  41,  43,  45,  47,  49,  51,  53,  55,  57,  59,  61,
    63,  65,  67,  69,  71,  73,  75,  77,  79,  81,  83,  85,  87,  89,  91,  93,  95,  97,  99,
    101, 103, 105, 107, 109, 111, 113, 115, 117, 119, 121, 123, 125, 127};
static const uint16_t iota16[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
#endif

typedef struct enc_consts {
	__m512i basev; /* codebook[0] */
#if SZ_AVX512_VBMI
	__m512i even, odd;      /* byte indices 0,2,..,126 and 1,3,..,127 */
	__m512i t0, t1, t2, t3; /* exponent -> code | 0x80 if escape, 4 x 64 entries */
	__m512i iota;           /* 0..31 as u16 */
#else
	__m512i cbv, cb8; /* codebook in every 128-bit lane; codebook[8] everywhere */
	__m512i w0, w1;   /* window of 32 values from codebook[0]: code, or 0x80 if not a member */
#endif
} enc_consts;

/* 64 BF16 values (v0: elements 0..31, v1: 32..63) -> exponent and sign/mantissa bytes. */
static SZ_ALWAYS_INLINE void split64(const enc_consts *k, __m512i v0, __m512i v1, __m512i *e,
                                     __m512i *sm)
{
#if SZ_AVX512_VBMI
	__m512i lo = _mm512_permutex2var_epi8(v0, k->even, v1);
	__m512i hi = _mm512_permutex2var_epi8(v0, k->odd, v1);
	/* sm = bit 7 from the high byte, bits 0..6 from the low byte (0xCA: A ? B : C). */
	*sm = _mm512_ternarylogic_epi32(_mm512_set1_epi8((char)0x80), hi, lo, 0xCA);
	*e = _mm512_permutex2var_epi8(_mm512_srli_epi16(v0, 7), k->even, _mm512_srli_epi16(v1, 7));
#else
	(void)k;
	const __m512i m80 = _mm512_set1_epi16(0x0080);
	/* vpmovwb truncates, so the bits above the low byte need no masking. */
	__m256i e0 = _mm512_cvtepi16_epi8(_mm512_srli_epi16(v0, 7));
	__m256i e1 = _mm512_cvtepi16_epi8(_mm512_srli_epi16(v1, 7));
	__m256i s0 = _mm512_cvtepi16_epi8(
	    _mm512_ternarylogic_epi32(m80, _mm512_srli_epi16(v0, 8), v0, 0xCA));
	__m256i s1 = _mm512_cvtepi16_epi8(
	    _mm512_ternarylogic_epi32(m80, _mm512_srli_epi16(v1, 8), v1, 0xCA));
	*e = _mm512_inserti64x4(_mm512_castsi256_si512(e0), e1, 1);
	*sm = _mm512_inserti64x4(_mm512_castsi256_si512(s0), s1, 1);
#endif
}

/* Codes of 64 exponents; '*esc' gets the escape mask. */
static SZ_ALWAYS_INLINE __m512i codes64(const enc_consts *k, __m512i e, __mmask64 *esc,
                                        const int path)
{
	if (path == SZ_WINDOW16) {
		__m512i d = _mm512_sub_epi8(e, k->basev);
		*esc = _mm512_cmpgt_epu8_mask(d, _mm512_set1_epi8(15));
		return _mm512_maskz_mov_epi8(~*esc, d);
	}
#if SZ_AVX512_VBMI
	/* 256-entry lookup: two 128-entry vpermt2b (index bits 0..6) and bit 7 picks one. */
	__m512i lo = _mm512_permutex2var_epi8(k->t0, e, k->t1);
	__m512i hi = _mm512_permutex2var_epi8(k->t2, e, k->t3);
	__m512i v = _mm512_mask_blend_epi8(_mm512_movepi8_mask(e), lo, hi);
	*esc = _mm512_movepi8_mask(v);
	return _mm512_and_si512(v, _mm512_set1_epi8(0x0F));
#else
	if (path == SZ_WINDOW32) {
		/* Two vpshufb over the 32-entry table, bit 4 of e - base picks one. */
		__m512i d = _mm512_sub_epi8(e, k->basev);
		__m512i v = _mm512_mask_blend_epi8(_mm512_test_epi8_mask(d, _mm512_set1_epi8(16)),
		                                   _mm512_shuffle_epi8(k->w0, d),
		                                   _mm512_shuffle_epi8(k->w1, d));
		*esc = _mm512_cmpgt_epu8_mask(d, _mm512_set1_epi8(31)) | _mm512_movepi8_mask(v);
		return _mm512_maskz_mov_epi8(~*esc, v);
	}
	/* Binary search for the largest c with codebook[c] <= e (the codebook is ascending);
	 * e is a member iff codebook[c] == e. */
	__m512i c = _mm512_maskz_mov_epi8(_mm512_cmpge_epu8_mask(e, k->cb8), _mm512_set1_epi8(8));
	for (int s = 4; s >= 1; s >>= 1) {
		__m512i step = _mm512_set1_epi8((char)s);
		__m512i t = _mm512_shuffle_epi8(k->cbv, _mm512_or_si512(c, step));
		c = _mm512_mask_add_epi8(c, _mm512_cmpge_epu8_mask(e, t), c, step);
	}
	__mmask64 hit = _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(k->cbv, c), e);
	*esc = ~hit;
	return _mm512_maskz_mov_epi8(hit, c);
#endif
}

/* The code counter of the counting encoder (sz_watch_template.h). */
static SZ_ALWAYS_INLINE __m512i cnt_sum64(__m512i tot, __m512i a)
{
	const __m512i m0f = _mm512_set1_epi8(0x0F), z = _mm512_setzero_si512();
	const __m512i lo = _mm512_sad_epu8(_mm512_and_si512(a, m0f), z);
	const __m512i hi = _mm512_sad_epu8(_mm512_and_si512(_mm512_srli_epi16(a, 4), m0f), z);
	return _mm512_add_epi64(tot, _mm512_or_si512(lo, _mm512_slli_epi64(hi, 32)));
}

#define SZ_WT_V __m512i
#define SZ_WT_ZERO() _mm512_setzero_si512()
#define SZ_WT_BCAST16(p) _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p)))
#define SZ_WT_SHUF16(t, c) _mm512_shuffle_epi8(t, c)
#define SZ_WT_ADD8(a, b) _mm512_add_epi8(a, b)
#define SZ_WT_T __m512i
#define SZ_WT_T_ZERO() _mm512_setzero_si512()
#define SZ_WT_SUM cnt_sum64
#define SZ_WT_TOTAL(t) ((uint64_t)_mm512_reduce_add_epi64(t))
#include "../sz_watch_template.h"

/*
 * Encode 64 elements (the first 'valid' of them; the rest of the block is zero padding that is
 * neither stored nor counted). Appends the escapes and returns the new escape count; with
 * np > 0, adds the codes of the valid elements to the counter (one vpshufb and one byte add
 * per pair table).
 */
static SZ_ALWAYS_INLINE size_t enc64(const enc_consts *k, const uint16_t *s, size_t i0,
                                     uint8_t *codes, uint8_t *sm, uint16_t *esc_pos,
                                     uint8_t *esc_exp, size_t n_esc, const int path,
                                     const int partial, size_t valid, const int stream,
                                     const cnt_state *cs, cnt_acc *acc, const int np)
{
	__m512i v0, v1, e, smv;
	if (partial) {
		v0 = _mm512_maskz_loadu_epi16(first32(valid), s);
		v1 = _mm512_maskz_loadu_epi16(first32(valid > 32 ? valid - 32 : 0), s + 32);
	} else {
		v0 = _mm512_loadu_si512((const void *)s);
		v1 = _mm512_loadu_si512((const void *)(s + 32));
	}
	split64(k, v0, v1, &e, &smv);
	__mmask64 esc;
	__m512i c = codes64(k, e, &esc, path);
	if (partial) {
		esc &= first64(valid);
		c = _mm512_maskz_mov_epi8(first64(valid), c); /* zero nibble after an odd end */
	}
	if (np) /* lanes past 'valid' get 0x80, which every table maps to 0 */
		cnt_add(cs, acc,
		        partial
		            ? _mm512_mask_mov_epi8(_mm512_set1_epi8((char)0x80), first64(valid), c)
		            : c,
		        np);
	/* Pairs of codes -> one byte each: even element * 1 + odd element * 16 (<= 255). */
	__m256i packed = _mm512_cvtepi16_epi8(_mm512_maddubs_epi16(c, _mm512_set1_epi16(0x1001)));
	if (partial) {
		_mm256_mask_storeu_epi8(codes, first32((valid + 1) / 2), packed);
		_mm512_mask_storeu_epi8(sm, first64(valid), smv);
	} else if (stream) {
		/* sm is 64-byte aligned (the chunk template) and takes 2/3 of the output; the codes
		 * keep ordinary stores, as they cannot be aligned at the same time in general. */
		_mm256_storeu_si256((__m256i *)codes, packed);
		_mm512_stream_si512((void *)sm, smv);
	} else {
		_mm256_storeu_si256((__m256i *)codes, packed);
		_mm512_storeu_si512((void *)sm, smv);
	}
	if (SZ_LIKELY(!esc))
		return n_esc;
#if SZ_AVX512_VBMI
	/* Compress positions and exponents in registers and store them with masked stores
	 * (vpcompress with a memory destination is microcoded and slow on Zen 4). */
	const uint32_t m0 = (uint32_t)esc, m1 = (uint32_t)(esc >> 32);
	const unsigned c0 = (unsigned)__builtin_popcount(m0), c1 = (unsigned)__builtin_popcount(m1);
	__m512i p = _mm512_add_epi16(k->iota, _mm512_set1_epi16((short)i0));
	__m512i p0 = _mm512_maskz_compress_epi16(m0, p);
	__m512i p1 = _mm512_maskz_compress_epi16(m1, _mm512_add_epi16(p, _mm512_set1_epi16(32)));
	_mm512_mask_storeu_epi16(esc_pos + n_esc, first32(c0), p0);
	_mm512_mask_storeu_epi16(esc_pos + n_esc + c0, first32(c1), p1);
	_mm512_mask_storeu_epi8(esc_exp + n_esc, first64(c0 + c1),
	                        _mm512_maskz_compress_epi8(esc, e));
	return n_esc + c0 + c1;
#else
	uint64_t m = esc;
	do {
		unsigned j = (unsigned)__builtin_ctzll(m);
		esc_pos[n_esc] = (uint16_t)(i0 + j);
		esc_exp[n_esc] = splitzip_bf16_exponent(s[j]);
		n_esc++;
		m &= m - 1;
	} while (m);
	return n_esc;
#endif
}

/* The encoder constants for the tables t and the path. */
static SZ_ALWAYS_INLINE void enc_consts_init(enc_consts *k, const splitzip_enc_tables *t,
                                             const int path)
{
	k->basev = _mm512_set1_epi8((char)t->base);
#if SZ_AVX512_VBMI
	k->even = _mm512_loadu_si512((const void *)deinterleave_idx);
	k->odd = _mm512_loadu_si512((const void *)(deinterleave_idx + 64));
	k->iota = _mm512_loadu_si512((const void *)iota16);
	if (path == SZ_ANY) {
		/* code_of[e] | is_escape[e] << 7 (is_escape is 0 or 1; code_of is 0 for escapes) */
		__m512i *tq[4] = {&k->t0, &k->t1, &k->t2, &k->t3};
		for (unsigned q = 0; q < 4; q++)
			*tq[q] = _mm512_or_si512(
			    _mm512_loadu_si512((const void *)(t->code_of + 64 * q)),
			    _mm512_slli_epi16(
			        _mm512_loadu_si512((const void *)(t->is_escape + 64 * q)), 7));
	} else {
		k->t0 = k->t1 = k->t2 = k->t3 = _mm512_setzero_si512();
	}
#else
	k->cbv = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t->codebook));
	k->cb8 = _mm512_set1_epi8((char)t->codebook[8]);
	k->w0 = k->w1 = _mm512_setzero_si512();
	if (path == SZ_WINDOW32) {
		uint8_t win[32];
		sz_window32_table(t, win);
		k->w0 = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)win));
		k->w1 = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(win + 16)));
	}
#endif
}

/* ---- Decode -------------------------------------------------------------------------------- */

typedef struct dec_consts {
	__m512i thi, tlo; /* code -> exponent >> 1, code -> (exponent & 1) << 7, every lane */
#if SZ_AVX512_VBMI
	__m512i ilo, ihi; /* byte interleave of (lo, hi) for elements 0..31 and 32..63 */
#endif
} dec_consts;

#if SZ_AVX512_VBMI
/* Output byte j of the elements 0..31 (first 64) and 32..63: lo[j / 2] for even j, hi[j / 2]
 * (index + 64) for odd j. */
static const uint8_t interleave_idx[128] = {
    0,   64,  1,   65,  2,   66,  3,   67,  4,   68,  5,   69,  6,   70,  7,   71,  8,   72,  9,
    73,  10,  74,  11,  75,  12,  76,  13,  77,  14,  78,  15,  79,  16,  80,  17,  81,  18,  82,
    19,  83,  20,  84,  21,  85,  22,  86,  23,  87,  24,  88,  25,  89,  26,  90,  27,  91,  28,
    92,  29,  93,  30,  94,  31,  95,  32,  96,  33,  97,  34,  98,  35,  99,  36,  100, 37,  101,
    38,  102, 39,  103, 40,  104, 41,  105, 42,  106, 43,  107, 44,  108, 45,  109, 46,  110, 47,
    111, 48,  112, 49,  113, 50,  114, 51,  115, 52,  116, 53,  117, 54,  118, 55,  119, 56,  120,
    57,  121, 58,  122, 59,  123, 60,  124, 61,  125, 62,  126, 63,  127};
#endif

/* Decode 64 elements (the first 'valid' of them when 'partial'). */
static SZ_ALWAYS_INLINE void dec64(const dec_consts *k, const uint8_t *codes, const uint8_t *sm,
                                   uint16_t *dst, const int partial, size_t valid, const int stream)
{
	__m256i c;
	__m512i s;
	if (partial) {
		c = _mm256_maskz_loadu_epi8(first32((valid + 1) / 2), codes);
		s = _mm512_maskz_loadu_epi8(first64(valid), sm);
	} else {
		c = _mm256_loadu_si256((const __m256i *)codes);
		s = _mm512_loadu_si512((const void *)sm);
	}
	/* Nibbles in element order: u16 lane j = byte j, then (w | w << 4) & 0x0F0F puts the
	 * low nibble in the low byte and the high nibble in the high byte (0xA8: (A|B)&C). */
	__m512i w = _mm512_cvtepu8_epi16(c);
	__m512i nib =
	    _mm512_ternarylogic_epi32(w, _mm512_slli_epi16(w, 4), _mm512_set1_epi16(0x0F0F), 0xA8);
	/* high byte = (sm & 0x80) | e >> 1, low byte = (sm & 0x7F) | (e & 1) << 7
	 * (0xEC: (A & C) | B). */
	__m512i hi = _mm512_ternarylogic_epi32(s, _mm512_shuffle_epi8(k->thi, nib),
	                                       _mm512_set1_epi8((char)0x80), 0xEC);
	__m512i lo = _mm512_ternarylogic_epi32(s, _mm512_shuffle_epi8(k->tlo, nib),
	                                       _mm512_set1_epi8(0x7F), 0xEC);
	__m512i o0, o1;
#if SZ_AVX512_VBMI
	o0 = _mm512_permutex2var_epi8(lo, k->ilo, hi);
	o1 = _mm512_permutex2var_epi8(lo, k->ihi, hi);
#else
	/* unpack works per 128-bit lane: u0 = elements [0-7, 16-23, 32-39, 48-55], u1 = the
	 * other eight of each lane; quadword permutes restore element order. */
	__m512i u0 = _mm512_unpacklo_epi8(lo, hi), u1 = _mm512_unpackhi_epi8(lo, hi);
	o0 = _mm512_permutex2var_epi64(u0, _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), u1);
	o1 = _mm512_permutex2var_epi64(u0, _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4), u1);
#endif
	if (partial) {
		_mm512_mask_storeu_epi16(dst, first32(valid), o0);
		_mm512_mask_storeu_epi16(dst + 32, first32(valid > 32 ? valid - 32 : 0), o1);
	} else if (stream) { /* dst 64-byte aligned (the chunk template) */
		_mm512_stream_si512((void *)dst, o0);
		_mm512_stream_si512((void *)(dst + 32), o1);
	} else {
		_mm512_storeu_si512((void *)dst, o0);
		_mm512_storeu_si512((void *)(dst + 32), o1);
	}
}

/* The decoder constants from the two 16-entry tables. */
static SZ_ALWAYS_INLINE void dec_consts_init(dec_consts *k, const uint8_t thi[16],
                                             const uint8_t tlo[16])
{
	k->thi = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)thi));
	k->tlo = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)tlo));
#if SZ_AVX512_VBMI
	k->ilo = _mm512_loadu_si512((const void *)interleave_idx);
	k->ihi = _mm512_loadu_si512((const void *)(interleave_idx + 64));
#endif
}

/* ---- Chunk loops (sz_chunk_template.h) ----------------------------------------------------- */

#define SZ_CHUNK_PREFIX avx512
#define SZ_CHUNK_VL 64
#define SZ_CHUNK_STREAM 1
#define SZ_CHUNK_SFENCE() _mm_sfence()
/* SZ_WINDOW32 in the AVX-512BW build only: the VBMI build's 256-entry lookup is as cheap. */
#define SZ_CHUNK_WINDOW32 (!SZ_AVX512_VBMI)
#define SZ_CHUNK_MASKED 1
#define SZ_ENC_CONSTS enc_consts
#define SZ_ENC_INIT enc_consts_init
#define SZ_ENC_BLOCK enc64
#define SZ_DEC_CONSTS dec_consts
#define SZ_DEC_INIT dec_consts_init
#define SZ_DEC_BLOCK dec64
#define SZ_CNT_BLOCK_ADDS 1
#include "../sz_chunk_template.h"

/* ---- Joins of the dtypes (splitzip_pl3_join_fn, splitzip_nib_join_fn) ---------------------- */

/* The exponents hi[i] >> 7 of 64 elements as bytes. */
static SZ_ALWAYS_INLINE __m512i dec_exps64(const uint16_t *hi)
{
	const __m512i a = _mm512_srli_epi16(_mm512_loadu_si512((const void *)hi), 7);
	const __m512i b = _mm512_srli_epi16(_mm512_loadu_si512((const void *)(hi + 32)), 7);
	return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)),
	                          _mm512_cvtepi16_epi8(b), 1);
}

/* 64 nibble fields at a time: each byte widened to a u16 whose low byte is its low nibble and
 * high byte its high nibble (the elements in order), then (r & 8) << 4 | x << 3 | r & 7 (x < 16:
 * no bit crosses into the next byte). */
static void avx512_nib_join(const uint16_t *hi, uint64_t B, const uint8_t *nib, uint8_t *dst)
{
	const __m512i lo4 = _mm512_set1_epi16(0x000F), hi4 = _mm512_set1_epi16(0x0F00);
	const __m512i m8 = _mm512_set1_epi8(8), m7 = _mm512_set1_epi8(7);
	for (uint64_t b = 0; b < B; b++) {
		const __m512i w =
		    _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(nib + 32 * b)));
		const __m512i r = _mm512_or_si512(_mm512_and_si512(w, lo4),
		                                  _mm512_and_si512(_mm512_slli_epi16(w, 4), hi4));
		const __m512i x = dec_exps64(hi + 64 * b);
		const __m512i v = _mm512_or_si512(
		    _mm512_slli_epi16(_mm512_and_si512(r, m8), 4),
		    _mm512_or_si512(_mm512_slli_epi16(x, 3), _mm512_and_si512(r, m7)));
		_mm512_storeu_si512((void *)(dst + 64 * b), v);
	}
}

/* Each plane's 64 bits are a byte mask: bit 0 and bit 1 of the field add 1 and 2 to x << 2
 * (x < 32: bits 2-6), bit 2 adds 0x80. FP16: interleaved with the low bytes, 128-bit lanes put
 * back in order by two vpermt2q. */
static void avx512_pl3_join(const uint16_t *hi, uint64_t G, const uint8_t *pl3, const uint8_t *lo,
                            uint8_t *dst)
{
	const __m512i one = _mm512_set1_epi8(1), two = _mm512_set1_epi8(2),
	              top = _mm512_set1_epi8((char)0x80);
	const __m512i i0 = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
	              i1 = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
	for (uint64_t g = 0; g < G; g++) {
		uint64_t b[3];
		memcpy(b, pl3 + 24 * g, 24);
		__m512i v = _mm512_slli_epi16(dec_exps64(hi + 64 * g), 2);
		v = _mm512_or_si512(v, _mm512_maskz_mov_epi8((__mmask64)b[0], one));
		v = _mm512_or_si512(v, _mm512_maskz_mov_epi8((__mmask64)b[1], two));
		v = _mm512_or_si512(v, _mm512_maskz_mov_epi8((__mmask64)b[2], top));
		if (!lo) {
			_mm512_storeu_si512((void *)(dst + 64 * g), v);
			continue;
		}
		const __m512i l = _mm512_loadu_si512((const void *)(lo + 64 * g));
		const __m512i a = _mm512_unpacklo_epi8(l, v), c = _mm512_unpackhi_epi8(l, v);
		_mm512_storeu_si512((void *)(dst + 128 * g), _mm512_permutex2var_epi64(a, i0, c));
		_mm512_storeu_si512((void *)(dst + 128 * g + 64),
		                    _mm512_permutex2var_epi64(a, i1, c));
	}
}

/* 32 elements at a time: the low and high halves interleaved within 128-bit lanes, the lanes
 * put back in order by two vpermt2q. */
static void avx512_fp32_join(const uint16_t *hi, const uint8_t *lo, uint64_t B, uint8_t *dst)
{
	const __m512i i0 = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11),
	              i1 = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
	for (uint64_t i = 0; i < 32 * B; i += 32) {
		const __m512i h = _mm512_loadu_si512((const void *)(hi + i));
		const __m512i l = _mm512_loadu_si512((const void *)(lo + 2 * i));
		const __m512i a = _mm512_unpacklo_epi16(l, h), b = _mm512_unpackhi_epi16(l, h);
		_mm512_storeu_si512((void *)(dst + 4 * i), _mm512_permutex2var_epi64(a, i0, b));
		_mm512_storeu_si512((void *)(dst + 4 * i + 64),
		                    _mm512_permutex2var_epi64(a, i1, b));
	}
}

/* ---- Mode 2 ----------------------------------------------------------------------------- */

/*
 * AVX-512's own mode-2 kernels, the 32 lanes of a chunk in the 16-bit lanes of one register
 * (doc/CPU_BACKENDS.md): the encoder (sz_avx512_entropy_enc.h) and the decoder
 * (sz_avx512_entropy_dec.h). The u32-lane kernels of sz_entropy_template.h, which NEON uses,
 * are not built here.
 */
#include "sz_avx512_entropy_enc.h"
#include "sz_avx512_entropy_dec.h"

/* ---- Code counter and histogram (sz_count_template.h, sz_hist_template.h)
 * -------------------------------------------------------- */

/*
 * Per 64 elements the window histogram takes about 17 vector operations, against 32 for sixteen
 * compare-and-add counters: the carry-save adder is two vpternlog.
 */

/* A full adder on bit vectors: (h, l) = a + b + c. 0x96 is a^b^c, 0xE8 is majority. */
#define SZ_HV_CSA(h, l, a, b, c)                                                                   \
	do {                                                                                       \
		__m512i a_ = (a), b_ = (b), c_ = (c);                                              \
		h = _mm512_ternarylogic_epi32(a_, b_, c_, 0xE8);                                   \
		l = _mm512_ternarylogic_epi32(a_, b_, c_, 0x96);                                   \
	} while (0)

/* cnt[b] += weight * (number of bytes of v with bit b set), b = 0..7. */
static SZ_ALWAYS_INLINE void count_bits(__m512i v, uint64_t weight, uint64_t cnt[8])
{
	for (unsigned b = 0; b < 8; b++)
		cnt[b] += weight * (uint64_t)__builtin_popcountll(
		                       _mm512_test_epi8_mask(v, _mm512_set1_epi8((char)(1u << b))));
}

/* 64 exponent bytes in some fixed order (a histogram does not care which). */
static SZ_ALWAYS_INLINE __m512i exps64(const uint16_t *s)
{
	__m512i a = _mm512_srli_epi16(_mm512_loadu_si512((const void *)s), 7);
	__m512i b = _mm512_srli_epi16(_mm512_loadu_si512((const void *)(s + 32)), 7);
#if SZ_AVX512_VBMI
	const __m512i even =
	    _mm512_set_epi8(126, 124, 122, 120, 118, 116, 114, 112, 110, 108, 106, 104, 102, 100,
	                    98, 96, 94, 92, 90, 88, 86, 84, 82, 80, 78, 76, 74, 72, 70, 68, 66, 64,
	                    62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28,
	                    26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
	return _mm512_permutex2var_epi8(a, even, b);
#else
	const __m512i lo8 = _mm512_set1_epi16(0x00FF);
	return _mm512_packus_epi16(_mm512_and_si512(a, lo8), _mm512_and_si512(b, lo8));
#endif
}

/* One-hot bytes of the bins d = e - w of 64 elements (bins 0-7 to xl, 8-15 to xh; zero-masked
 * outside the window); returns the lanes outside the window. */
static SZ_ALWAYS_INLINE uint64_t onehot64(__m512i d, __m512i c15, __m512i tlo, __m512i thi,
                                          __m512i *xl, __m512i *xh)
{
	__mmask64 out = _mm512_cmpgt_epu8_mask(d, c15);
	*xl = _mm512_maskz_shuffle_epi8(~out, tlo, d);
	*xh = _mm512_maskz_shuffle_epi8(~out, thi, d);
	return out;
}

#define SZ_HV __m512i
#define SZ_HV_ZERO() _mm512_setzero_si512()
#define SZ_HV_BCAST16(p) _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(p)))
#define SZ_HV_COUNT_BITS count_bits
#define SZ_HV_STOREU(p, v) _mm512_storeu_si512((void *)(p), v)

#define SZ_COUNT_PREFIX avx512
#define SZ_HV_BYTES 64
#define SZ_HV_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define SZ_HV_NIBBLES(v, lo, hi)                                                                   \
	do {                                                                                       \
		const __m512i v_ = (v), m_ = _mm512_set1_epi8(0x0F);                               \
		lo = _mm512_and_si512(v_, m_);                                                     \
		hi = _mm512_and_si512(_mm512_srli_epi16(v_, 4), m_);                               \
	} while (0)
#define SZ_HV_SHUF16(t, x) _mm512_shuffle_epi8(t, x)
#define SZ_HV_JOIN(lo, hi) _mm512_or_si512(lo, _mm512_slli_epi16(hi, 4))
#define SZ_HV_ANY2(a, b) (_mm512_test_epi8_mask(_mm512_or_si512(a, b), _mm512_or_si512(a, b)) != 0)
#include "../sz_count_template.h"

#define SZ_HIST_PREFIX avx512
#define SZ_HIST_VL 64
#define SZ_HV_SET1(x) _mm512_set1_epi8((char)(x))
#define SZ_HV_SUB8(a, b) _mm512_sub_epi8(a, b)
#define SZ_HIST_EXPS exps64
#define SZ_HIST_ONEHOT onehot64
#define SZ_HIST_LANE_BITS 1
#include "../sz_hist_template.h"

/* ---- Chunk hash ------------------------------------------------------------------------------ */

/* splitzip_hash_round() on eight lanes. */
static SZ_ALWAYS_INLINE __m512i round8(__m512i acc, __m512i w)
{
	__m512i x =
	    _mm512_add_epi64(acc, _mm512_mullo_epi64(w, _mm512_set1_epi64((long long)SPLITZIP_P2)));
	return _mm512_mullo_epi64(_mm512_rol_epi64(x, 31),
	                          _mm512_set1_epi64((long long)SPLITZIP_P1));
}

/* splitzip_fmix64() on eight lanes. */
static SZ_ALWAYS_INLINE __m512i fmix8(__m512i x)
{
	x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
	x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)0xFF51AFD7ED558CCDull));
	x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
	x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)0xC4CEB9FE1A85EC53ull));
	return _mm512_xor_si512(x, _mm512_srli_epi64(x, 33));
}

/* The 32 lanes of splitzip_hash_bytes() as 4 vectors of 8: vector r holds lanes 8r..8r+7,
 * which are exactly the words 8r..8r+7 of each 256-byte stripe. */
static uint64_t avx512_hash_chunk(const void *p, size_t n_bytes)
{
	const uint8_t *b = (const uint8_t *)p;
	const __m512i lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
	__m512i acc[4];
	for (unsigned r = 0; r < 4; r++) {
		__m512i l = _mm512_add_epi64(lane, _mm512_set1_epi64(8 * r + 1));
		acc[r] = _mm512_mullo_epi64(l, _mm512_set1_epi64((long long)SPLITZIP_P5));
	}
	size_t n_full = n_bytes / 256;
	for (size_t s = 0; s < n_full; s++, b += 256)
		for (unsigned r = 0; r < 4; r++)
			acc[r] = round8(acc[r], _mm512_loadu_si512((const void *)(b + 64 * r)));
	size_t rest = n_bytes - n_full * 256;
	/* The last stripe: zero-filled masked loads; only lanes of words that exist advance. */
	for (unsigned r = 0; rest > 64 * r; r++) {
		size_t take = rest - 64 * r < 64 ? rest - 64 * r : 64;
		__m512i w = _mm512_maskz_loadu_epi8(first64(take), b + 64 * r);
		__mmask8 live = (__mmask8)_bzhi_u32(0xFF, (unsigned)((take + 7) / 8));
		acc[r] = _mm512_mask_mov_epi64(acc[r], live, round8(acc[r], w));
	}
	__m512i sum = _mm512_setzero_si512();
	for (unsigned r = 0; r < 4; r++) {
		__m512i l = _mm512_mullo_epi64(_mm512_add_epi64(lane, _mm512_set1_epi64(8 * r)),
		                               _mm512_set1_epi64((long long)SPLITZIP_P4));
		sum = _mm512_add_epi64(sum, fmix8(_mm512_xor_si512(acc[r], l)));
	}
	return splitzip_hash_chunk_final(n_bytes, sum_u64x8(sum));
}

const splitzip_host_kernels SZ_KERNELS_SYMBOL = {
    .histogram = avx512_histogram,
    .encode_chunk = avx512_encode_chunk,
    .decode_chunk = avx512_decode_chunk,
    .encode_chunk_stream = avx512_encode_chunk_stream,
    .decode_chunk_stream = avx512_decode_chunk_stream,
    .hash_chunk = avx512_hash_chunk,
    .encode_count_chunk = avx512_encode_count_chunk,
    .encode_count_chunk_stream = avx512_encode_count_chunk_stream,
    .count_codes = avx512_count_codes,
    .recode_codes = avx512_recode_codes,
    .entropy_encode_chunk = avx512_entropy_encode_chunk,
    .entropy_decode_chunk = avx512_entropy_decode_chunk,
    .entropy_decode_pair = avx512_entropy_decode_pair,
    .pl3_join = avx512_pl3_join,
    .nib_join = avx512_nib_join,
    .fp32_join = avx512_fp32_join,
};
