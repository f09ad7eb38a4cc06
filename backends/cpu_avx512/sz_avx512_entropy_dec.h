/*
 * sz_avx512_entropy_dec.h -- the mode-2 chunk decoder of the AVX-512 backends (doc/FORMAT.md
 * §4.3.5, the checks of §4.3.6), included by sz_avx512.c in place of sz_entropy_template.h's
 * decoder. The steps, their phases and the checked tail are the
 * template's (read its comments first); what differs is the width of a lane.
 *
 * The 32 lanes of a chunk are the 32 u16 lanes of one register: a lane's bits, at most 26, are
 * lo | hi << 16, and its count is a third register. So one instruction does for the chunk what
 * two do in u32 lanes (the template's 2 x 16), and nothing packs or widens between the refill,
 * the lookup and the join:
 *
 *   phase A   the refill mask is one compare; vpexpandw (VBMI2) places the next 32 words in
 *             their lanes; a lane that refills holds fewer than 11 bits, so its hi is 0 and gets
 *             the word's top bits (vpshldvw under the mask);
 *   phase D   one entry per lane from two tables in the registers (e16_dk), without a branch
 *             on real KV; the length is taken from lo and hi by vpshrdvw and vpsrlvw;
 *   join      the entry holds the exponent where the element wants it, the sign/mantissa bytes
 *             are doubled by vpermb (VBMI): one vpternlogd.
 *
 * The AVX-512 build without VBMI keeps the lanes and the tables and emulates the rest: two
 * vpexpandd and a narrowing per refill, shifts for the funnel shifts, vpmovzxbw for the join.
 *
 * The lanes of a chunk are locals that the compiler keeps in registers: the rare paths (the
 * full table, escapes) are inlined under a branch, since a call would make every vector
 * register live across it go to memory. The pair decoder runs two chunks' steps in one loop:
 * their chains (a lane's count, its refill mask, its words, its lookup, its length) are
 * independent, and the out-of-order core overlaps them.
 */

/* The lanes of a chunk: buf = lo | hi << 16 (below 2^bits), bits (at most 26); lane l in
 * u16 lane l. */
typedef struct e16_lanes {
	__m512i lo, hi, bits;
} e16_lanes;

/*
 * The decoder's constants: two tables of 16-bit entries (sym << 7 | len, for the join and the
 * shifts; 0 marks a lane for the full table) for phase D, looked up by vpermi2w in the
 * registers. A lane's next 11 bits x (bit 0 first) decode by the first table, indexed by
 * x & 127, when its code has at most 7 bits. The codes of a canonical code grow in length along
 * the code space, so on real KV (where at most 1/64 of the code space has codes of 8 or more
 * bits) every code longer than 7 bits starts with the bits 11111: a lane whose x starts with
 * them takes the second table, indexed by x >> 5, which holds every code of that 1/32 of the
 * space. Both lookups run on every lane and a blend picks one, so no branch depends on the
 * lengths. Entry 0 marks the rest: the escape symbol, which a lane decodes exactly when its
 * next esc_len bits are esc_code (one compare, so that frames whose table does not fit their
 * data, with escapes in most steps, take no table lookup for them), and codes that neither
 * table has (a table with many long codes), from the full table.
 */
typedef struct e16_dk {
	__m512i t1[4], t2[2];      /* 32 entries per register */
	__m512i emask, epat, elen; /* the escape symbol: (lo & emask) == epat; its entry */
	uint16_t coded[32];        /* coded[] as a bitmap of 16 words (and 16 zeros) */
#if SZ_AVX512_VBMI
	__m512i dup; /* vpermb: byte j of 32 to bytes 2j and 2j + 1 */
#endif
	const splitzip_entropy_dec_tables *t;
} e16_dk;

#define E16_L2_BITS 5 /* the second table's prefix: 11111 */
#define E16_L2_PREFIX ((1u << E16_L2_BITS) - 1)
/* The lut values the second table covers: every code longer than 7 bits lies there when they
 * take at most this many (splitzip_entropy_dec_tables.long_space). */
#define E16_L2_SPACE (SZ_ENTROPY_LUT_SIZE >> E16_L2_BITS)
#define E16_SYM_SHIFT 7 /* an entry's symbol: where the join wants the exponent */

#if SZ_AVX512_VBMI
static const uint8_t e16_dup_idx[64] = {
    0,  0,  1,  1,  2,  2,  3,  3,  4,  4,  5,  5,  6,  6,  7,  7,  8,  8,  9,  9,  10, 10,
    11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21,
    22, 22, 23, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31};
#endif

/* Entries (sym << 7 | len) of 16 lut entries e, 0 for the escape symbol and, 'max' below 11,
 * for a code longer than max bits. */
static SZ_ALWAYS_INLINE __m256i e16_entries(__m512i e, unsigned max)
{
	const __m512i len = _mm512_srli_epi32(e, SPLITZIP_ENTROPY_DEC_LEN_SHIFT);
	const __m512i sym = _mm512_and_si512(e, _mm512_set1_epi32(SPLITZIP_ENTROPY_DEC_SYM_MASK));
	const __mmask16 ok = _mm512_cmple_epu32_mask(len, _mm512_set1_epi32((int)max)) &
	                     _mm512_cmpneq_epi32_mask(sym, _mm512_set1_epi32(SPLITZIP_ENTROPY_ESC));
	return _mm512_cvtepi32_epi16(
	    _mm512_maskz_or_epi32(ok, _mm512_slli_epi32(sym, E16_SYM_SHIFT), len));
}

/* Two halves of 16 entries each into one register. */
static SZ_ALWAYS_INLINE __m512i e16_join2(__m256i a, __m256i b)
{
	return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
}

/* Once per call (a pair of chunks): in registers, no table built in memory and read back (a
 * store forwarded to a wider load stalls), the bitmap 64 exponents at a time. */
static SZ_ALWAYS_INLINE void e16_init(e16_dk *k, const splitzip_entropy_dec_tables *t)
{
	/* The first table: x = 0..127; the second: x = 31 + 32 j, j = 0..63. */
	for (unsigned q = 0; q < 4; q++)
		k->t1[q] = e16_join2(
		    e16_entries(_mm512_loadu_si512((const void *)(t->lut + 32 * q)), 7),
		    e16_entries(_mm512_loadu_si512((const void *)(t->lut + 32 * q + 16)), 7));
	const __m512i x0 =
	    _mm512_add_epi32(_mm512_slli_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	                                                         11, 12, 13, 14, 15),
	                                       E16_L2_BITS),
	                     _mm512_set1_epi32(E16_L2_PREFIX));
	__m256i h[4];
	for (unsigned q = 0; q < 4; q++)
		h[q] = e16_entries(
		    _mm512_i32gather_epi32(_mm512_add_epi32(x0, _mm512_set1_epi32(512 * (int)q)),
		                           (const void *)t->lut, 4),
		    SPLITZIP_ENTROPY_MAX_CODE_LENGTH);
	k->t2[0] = e16_join2(h[0], h[1]);
	k->t2[1] = e16_join2(h[2], h[3]);
	for (unsigned q = 0; q < 4; q++) {
		const uint64_t m = _mm512_test_epi8_mask(
		    _mm512_loadu_si512((const void *)(t->coded + 64 * q)), _mm512_set1_epi8(1));
		memcpy(k->coded + 4 * q, &m, 8);
	}
	memset(k->coded + 16, 0, 32);
	k->emask = _mm512_set1_epi16((short)((1u << t->esc_len) - 1));
	k->epat = _mm512_set1_epi16((short)t->esc_code);
	k->elen = _mm512_set1_epi16(t->esc_len);
#if SZ_AVX512_VBMI
	k->dup = _mm512_loadu_si512((const void *)e16_dup_idx);
#endif
	k->t = t;
}

/* Phase A's words: lane l of m gets word rank(m, l) at p. Reads 32 words at p. */
static SZ_ALWAYS_INLINE __m512i e16_words(__mmask32 m, const uint8_t *p)
{
#if SZ_AVX512_VBMI
	/* the register form: GCC would fold the load into vpexpandw, microcoded on Zen 4 */
	__m512i q = _mm512_loadu_si512((const void *)p);
	__asm__("" : "+v"(q));
	return _mm512_maskz_expand_epi16(m, q);
#else
	const unsigned k0 = (unsigned)__builtin_popcount(m & 0xFFFF);
	const __m512i a = _mm512_maskz_expand_epi32(
	    (__mmask16)m, _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)));
	const __m512i b = _mm512_maskz_expand_epi32(
	    (__mmask16)(m >> 16),
	    _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p + 2 * k0))));
	return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(a)),
	                          _mm512_cvtepi32_epi16(b), 1);
#endif
}

/* Add the words x (lanes m, which hold fewer than 16 bits: their hi is 0) above the lanes' bits. */
static SZ_ALWAYS_INLINE void e16_add(e16_lanes *s, __mmask32 m, __m512i x)
{
	s->lo = _mm512_or_si512(s->lo, _mm512_sllv_epi16(x, s->bits));
#if SZ_AVX512_VBMI
	s->hi = _mm512_mask_shldv_epi16(s->hi, m, x, s->bits);
#else
	s->hi =
	    _mm512_mask_srlv_epi16(s->hi, m, x, _mm512_sub_epi16(_mm512_set1_epi16(16), s->bits));
#endif
	s->bits = _mm512_mask_add_epi16(s->bits, m, s->bits,
	                                _mm512_set1_epi16(SPLITZIP_ENTROPY_WORD_BITS));
}

/* Take n bits (per lane, at most 15) from the lanes. */
static SZ_ALWAYS_INLINE void e16_take(e16_lanes *s, __m512i n)
{
#if SZ_AVX512_VBMI
	s->lo = _mm512_shrdv_epi16(s->lo, s->hi, n);
#else
	s->lo =
	    _mm512_or_si512(_mm512_srlv_epi16(s->lo, n),
	                    _mm512_sllv_epi16(s->hi, _mm512_sub_epi16(_mm512_set1_epi16(16), n)));
#endif
	s->hi = _mm512_srlv_epi16(s->hi, n);
	s->bits = _mm512_sub_epi16(s->bits, n);
}

/* Phase D's lookup of each lane's next 11 bits (the low bits of lo): its entry. */
static SZ_ALWAYS_INLINE __m512i e16_lookup(const e16_dk *k, __m512i lo)
{
	const __m512i x2 = _mm512_srli_epi16(lo, E16_L2_BITS);
	const __mmask32 two =
	    _mm512_cmpeq_epi16_mask(_mm512_and_si512(lo, _mm512_set1_epi16(E16_L2_PREFIX)),
	                            _mm512_set1_epi16(E16_L2_PREFIX));
	/* 64 entries per vpermi2w: bit 6 of x picks one of two in the first table */
	const __mmask32 h1 = _mm512_test_epi16_mask(lo, _mm512_set1_epi16(0x40));
	const __m512i e1 =
	    _mm512_mask_blend_epi16(h1, _mm512_permutex2var_epi16(k->t1[0], lo, k->t1[1]),
	                            _mm512_permutex2var_epi16(k->t1[2], lo, k->t1[3]));
	return _mm512_mask_blend_epi16(two, e1, _mm512_permutex2var_epi16(k->t2[0], x2, k->t2[1]));
}

/*
 * The lanes m whose entry is 0 and whose next bits are not the escape code: their entries from
 * the full table, a lane at a time. No lane of real KV comes here. A table with a wide spread of
 * exponents (more than 1/32 of the code space in codes of 8 bits or more: long_space > 64)
 * sends lanes in most steps; its frames take a copy of the steps that gathers them instead
 * (e16_full_gather, 'wide'): gathers in the common steps cost them a tenth of their speed, while
 * this loop made wide frames a third slower than the template's decoder was. On frames with
 * half of the elements spread over all 256 exponents (16 MiB, one thread): the template's
 * decoder 2.8 GB/s; this loop 1.85 (VBMI) and 1.6; the gathers 2.6 and 2.3.
 */
static SZ_ALWAYS_INLINE __m512i e16_full(const splitzip_entropy_dec_tables *t, __m512i lo,
                                         __m512i e, __mmask32 m)
{
	uint16_t b[32], v[32];
	_mm512_storeu_si512((void *)b, lo);
	_mm512_storeu_si512((void *)v, e);
	for (; m; m &= m - 1) {
		const unsigned l = (unsigned)__builtin_ctz(m);
		const uint32_t f = t->lut[b[l] & (SZ_ENTROPY_LUT_SIZE - 1)];
		v[l] = (uint16_t)((f & SPLITZIP_ENTROPY_DEC_SYM_MASK) << E16_SYM_SHIFT |
		                  f >> SPLITZIP_ENTROPY_DEC_LEN_SHIFT);
	}
	return _mm512_loadu_si512((const void *)v);
}

/* The same by two vpgatherdd of 16 lanes each, for wide tables. */
static SZ_ALWAYS_INLINE __m512i e16_full_gather(const splitzip_entropy_dec_tables *t, __m512i lo,
                                                __m512i e, __mmask32 m)
{
	const __m512i idx = _mm512_set1_epi32(SZ_ENTROPY_LUT_SIZE - 1), z = _mm512_setzero_si512();
	const __m512i i0 = _mm512_and_si512(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(lo)), idx);
	const __m512i i1 =
	    _mm512_and_si512(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(lo, 1)), idx);
	const __m512i f0 =
	    _mm512_mask_i32gather_epi32(z, (__mmask16)m, i0, (const void *)t->lut, 4);
	const __m512i f1 =
	    _mm512_mask_i32gather_epi32(z, (__mmask16)(m >> 16), i1, (const void *)t->lut, 4);
	/* the lanes of m have no escape symbol: entries with up to 11 bits */
	return _mm512_mask_mov_epi16(e, m,
	                             e16_join2(e16_entries(f0, SPLITZIP_ENTROPY_MAX_CODE_LENGTH),
	                                       e16_entries(f1, SPLITZIP_ENTROPY_MAX_CODE_LENGTH)));
}

/*
 * Phases B and R of a step with escapes (lanes esc), with the checks of §4.3.6: a lane that
 * needs a word when none is left (nw words, next the first unread), an escape of a coded
 * exponent. The raw exponents go to the entries e. Returns the number of escapes, or -1.
 */
static SZ_ALWAYS_INLINE int e16_escapes(const e16_dk *k, e16_lanes *s, const uint8_t *w, size_t nw,
                                        size_t *next, __m512i *e, __mmask32 esc)
{
	const splitzip_entropy_dec_tables *t = k->t;
	const __m512i rb = _mm512_set1_epi16((short)t->raw_bits);
	const __mmask32 mb = _mm512_mask_cmplt_epu16_mask(esc, s->bits, rb);
	if (mb) {
		const unsigned kb = (unsigned)__builtin_popcount(mb);
		if (kb > nw - *next)
			return -1;
		e16_add(s, mb, e16_words(mb, w + 2 * *next));
		*next += kb;
	}
	const __m512i x =
	    _mm512_and_si512(s->lo, _mm512_set1_epi16((short)((1u << t->raw_bits) - 1)));
	/* §4.3.6: an escape of a coded exponent; coded[x] is bit x % 16 of word x / 16 */
	const __m512i cw = _mm512_permutexvar_epi16(_mm512_srli_epi16(x, 4),
	                                            _mm512_loadu_si512((const void *)k->coded));
	if (_mm512_mask_test_epi16_mask(
	        esc, _mm512_srlv_epi16(cw, _mm512_and_si512(x, _mm512_set1_epi16(15))),
	        _mm512_set1_epi16(1)))
		return -1;
	e16_lanes r = *s;
	e16_take(&r, _mm512_maskz_mov_epi16(esc, rb));
	*s = r;
	*e = _mm512_mask_slli_epi16(*e, esc, x, E16_SYM_SHIFT);
	return __builtin_popcount(esc);
}

/* 32 elements (the first m if partial) from the entries e (the exponent at bits 7-14) and the
 * sign/mantissa bytes: (sm | sm << 8) & 0x807F | e & 0x7F80. */
static SZ_ALWAYS_INLINE void e16_join(const e16_dk *k, __m512i e, const uint8_t *sm, uint16_t *dst,
                                      const int partial, unsigned m)
{
	const __mmask32 act = partial ? (__mmask32)_bzhi_u32(~0u, m) : ~(__mmask32)0;
	const __m256i s8 =
	    partial ? _mm256_maskz_loadu_epi8(act, sm) : _mm256_loadu_si256((const __m256i *)sm);
#if SZ_AVX512_VBMI
	const __m512i ss = _mm512_permutexvar_epi8(k->dup, _mm512_castsi256_si512(s8));
#else
	(void)k;
	const __m512i s = _mm512_cvtepu8_epi16(s8);
	const __m512i ss = _mm512_or_si512(s, _mm512_slli_epi16(s, 8));
#endif
	/* 0xE4: C ? A : B */
	const __m512i v = _mm512_ternarylogic_epi32(ss, e, _mm512_set1_epi16((short)0x807F), 0xE4);
	if (partial)
		_mm512_mask_storeu_epi16(dst, act, v);
	else
		_mm512_storeu_si512((void *)dst, v);
}

/*
 * One step of a chunk (words w, nw of them, next the first unread): 32 elements, or with
 * 'partial' the first m (the other lanes left as they are). 'checked': fewer than 64 words may
 * be left (then w is a zero-padded copy, so the 32 words read at next exist). Returns the
 * step's escape count, or -1 if the chunk is invalid.
 */
static SZ_ALWAYS_INLINE int e16_step(const e16_dk *k, e16_lanes *s, const uint8_t *w, size_t nw,
                                     size_t *next, const uint8_t *sm, uint16_t *dst,
                                     const int checked, const int partial, unsigned m,
                                     const int wide)
{
	const __mmask32 act = partial ? (__mmask32)_bzhi_u32(~0u, m) : ~(__mmask32)0;
	const __mmask32 ma = _mm512_mask_cmplt_epu16_mask(
	    act, s->bits, _mm512_set1_epi16(SPLITZIP_ENTROPY_REFILL_SYMBOL));
	const unsigned ka = (unsigned)__builtin_popcount(ma);
	if (checked && ka > nw - *next)
		return -1; /* §4.3.6 rule 4: a lane needs a word and none is left */
	e16_add(s, ma, e16_words(ma, w + 2 * *next)); /* phase A */
	*next += ka;
	/* phase D. A wide table's lanes need the full table in most steps: the build without VBMI
	 * gathers them all (2.3 GB/s on the wide frames of the comment of e16_full, against 1.85
	 * GB/s for the two tables and a gather of the lanes they lack; the VBMI build measured the
	 * other way round, 2.35 against 2.6) */
	__m512i e = wide && !SZ_AVX512_VBMI
	                ? e16_full_gather(k->t, s->lo, _mm512_setzero_si512(), ~(__mmask32)0)
	                : e16_lookup(k, s->lo);
	const __mmask32 full = _mm512_mask_testn_epi16_mask(act, e, e);
	__mmask32 esc = 0;
	if (SZ_UNLIKELY(full)) {
		/* escapes (where a table does not fit the data, in most steps) by their code; the
		 * full table for the other lanes (codes outside the two tables) */
		esc =
		    _mm512_mask_cmpeq_epi16_mask(full, _mm512_and_si512(s->lo, k->emask), k->epat);
		e = _mm512_mask_mov_epi16(e, esc, k->elen);
		if (full & ~esc)
			e = wide ? e16_full_gather(k->t, s->lo, e, full & ~esc)
			         : e16_full(k->t, s->lo, e, full & ~esc);
	}
	__m512i len = _mm512_and_si512(e, _mm512_set1_epi16(0xF));
	if (partial)
		len = _mm512_maskz_mov_epi16(act, len);
	e16_take(s, len);
	int n_esc = 0;
	if (SZ_UNLIKELY(esc)) { /* phases B and R */
		e16_lanes r = *s;
		n_esc = e16_escapes(k, &r, w, nw, next, &e, esc);
		*s = r;
		if (n_esc < 0)
			return -1;
	}
	e16_join(k, e, sm, dst, partial, m);
	return n_esc;
}

/* Fewer than 64 words left: go on from a zero-padded copy of them, so that a step may read 64
 * words past any position the checks allow. */
#define E16_TAIL_WORDS (4 * SPLITZIP_ENTROPY_LANES)

/*
 * The steps of a chunk from element i on (n_esc escapes so far, the lanes s, next the first
 * unread of its nw words at w), its last partial step and the checks at its end (§4.3.6).
 */
static SZ_ALWAYS_INLINE splitzip_status e16_finish_impl(const e16_dk *k, const e16_lanes *s0,
                                                        const uint8_t *w, size_t nw, size_t next,
                                                        const uint8_t *sm, size_t n, uint16_t *dst,
                                                        size_t i, size_t n_esc, size_t *n_escapes,
                                                        const int wide)
{
	uint8_t tail[2 * E16_TAIL_WORDS];
	e16_lanes s = *s0;
	int checked = 0;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	for (; i < full; i += SPLITZIP_ENTROPY_LANES) {
		if (SZ_UNLIKELY(!checked && nw - next < SPLITZIP_ENTROPY_STEP_WORDS_MAX)) {
			memset(tail, 0, sizeof tail);
			memcpy(tail, w + 2 * next, 2 * (nw - next));
			w = tail;
			nw -= next;
			next = 0;
			checked = 1;
		}
		const int e = SZ_LIKELY(!checked)
		                  ? e16_step(k, &s, w, nw, &next, sm + i, dst + i, 0, 0, 0, wide)
		                  : e16_step(k, &s, w, nw, &next, sm + i, dst + i, 1, 0, 0, wide);
		if (e < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		n_esc += (size_t)e;
	}
	if (i < n) { /* the last, partial step: checked, from the copy if few words are left */
		if (!checked && nw - next < SPLITZIP_ENTROPY_STEP_WORDS_MAX) {
			memset(tail, 0, sizeof tail);
			memcpy(tail, w + 2 * next, 2 * (nw - next));
			w = tail;
			nw -= next;
			next = 0;
		}
		const int e =
		    e16_step(k, &s, w, nw, &next, sm + i, dst + i, 1, 1, (unsigned)(n - i), wide);
		if (e < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		n_esc += (size_t)e;
	}
	/* §4.3.6: every word read, every bit left in a lane zero. */
	if (next != nw || _mm512_test_epi16_mask(s.lo, s.lo) || _mm512_test_epi16_mask(s.hi, s.hi))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	*n_escapes = n_esc;
	return SPLITZIP_OK;
}

/* e16_finish_impl for tables that fit the two tables in registers and for wide ones. */
static splitzip_status e16_finish(const e16_dk *k, const e16_lanes *s0, const uint8_t *w, size_t nw,
                                  size_t next, const uint8_t *sm, size_t n, uint16_t *dst, size_t i,
                                  size_t n_esc, size_t *n_escapes)
{
	return k->t->long_space > E16_L2_SPACE
	           ? e16_finish_impl(k, s0, w, nw, next, sm, n, dst, i, n_esc, n_escapes, 1)
	           : e16_finish_impl(k, s0, w, nw, next, sm, n, dst, i, n_esc, n_escapes, 0);
}

static splitzip_status avx512_entropy_decode_chunk(const splitzip_entropy_dec_tables *t,
                                                   const uint8_t *words, size_t n_words,
                                                   const uint8_t *sm, size_t n, uint16_t *dst,
                                                   size_t *n_escapes)
{
	e16_dk k;
	e16_init(&k, t);
	const e16_lanes s = {_mm512_setzero_si512(), _mm512_setzero_si512(),
	                     _mm512_setzero_si512()};
	return e16_finish(&k, &s, words, n_words, 0, sm, n, dst, 0, 0, n_escapes);
}

/* Two chunks, step by step while both have at least 64 words left; then each alone. */
static SZ_ALWAYS_INLINE splitzip_status e16_pair(const e16_dk *kp, splitzip_entropy_chunk c[2],
                                                 const int wide)
{
	const e16_dk k = *kp;
	const __m512i z = _mm512_setzero_si512();
	e16_lanes s0 = {z, z, z}, s1 = {z, z, z};
	size_t next0 = 0, next1 = 0, x0 = 0, x1 = 0;
	const size_t n = c[0].n < c[1].n ? c[0].n : c[1].n;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	size_t i = 0;
	for (; i < full; i += SPLITZIP_ENTROPY_LANES) {
		if (c[0].n_words - next0 < SPLITZIP_ENTROPY_STEP_WORDS_MAX ||
		    c[1].n_words - next1 < SPLITZIP_ENTROPY_STEP_WORDS_MAX)
			break; /* one of them is near its end: each goes on alone */
		const int e0 = e16_step(&k, &s0, c[0].words, c[0].n_words, &next0, c[0].sm + i,
		                        c[0].dst + i, 0, 0, 0, wide);
		const int e1 = e16_step(&k, &s1, c[1].words, c[1].n_words, &next1, c[1].sm + i,
		                        c[1].dst + i, 0, 0, 0, wide);
		if ((e0 | e1) < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		x0 += (size_t)e0;
		x1 += (size_t)e1;
	}
	splitzip_status st = e16_finish(&k, &s0, c[0].words, c[0].n_words, next0, c[0].sm, c[0].n,
	                                c[0].dst, i, x0, &c[0].n_escapes);
	if (st != SPLITZIP_OK)
		return st;
	return e16_finish(&k, &s1, c[1].words, c[1].n_words, next1, c[1].sm, c[1].n, c[1].dst, i,
	                  x1, &c[1].n_escapes);
}

static splitzip_status avx512_entropy_decode_pair(const splitzip_entropy_dec_tables *t,
                                                  splitzip_entropy_chunk c[2])
{
	e16_dk k;
	e16_init(&k, t);
	return t->long_space > E16_L2_SPACE ? e16_pair(&k, c, 1) : e16_pair(&k, c, 0);
}

#undef E16_TAIL_WORDS
