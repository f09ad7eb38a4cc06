/*
 * sz_avx512_entropy_enc.h -- the mode-2 chunk encoder of the AVX-512 backends (doc/FORMAT.md
 * §4.3.5), included by sz_avx512.c in place of sz_entropy_template.h's encoder. The design is the
 * template's (read its comments first): the encoder runs the decoder's lane counts alongside
 * itself, reserves a slot (the chunk's next word) wherever the decoder reads a word, keeps at most
 * two open slots per lane (sa the oldest, sb the other) and stores each completed word to its
 * lane's oldest slot.
 *
 * What differs is the width of a lane's state: 16 bits, so that each value of the 32 lanes
 * (held, the accumulator, accb, sa, sb) is one register, where the template needs two of u32
 * lanes, and a step is a few dozen instructions. AVX-512BW shifts 16-bit lanes by a count per
 * lane (vpsllvw), so a code x of length len is appended as acc | x << accb; the bits past the
 * word, x >> (16 - accb), are what the lane keeps when its word is complete (accb + len >= 16;
 * accb + len < 32 always). The ranks of the lanes that reserve, in lane order, are one
 * vpexpandw of next, next + 1, ... (VBMI2), or two vpexpandd and a vpermt2w.
 *
 * The stores of the completed words are scattered, so they are scalar; as in the AVX2 encoder
 * (sz_avx2_entropy_enc.h), the steps only append the words with their slots to a log, and
 * after every SZ_E512_BLOCK steps a plain loop stores the log's words: per step a fixed number
 * of vector stores (a vpcompressw and a full store each for the words and the slots), and no
 * branch that depends on the number of words.
 */

/* Steps per block of the log; the bias of a slot in a log entry. */
#define SZ_E512_BLOCK 32u
#define SZ_E512_SLOT_BIAS 32768u
/* A step completes at most 64 words (32 codes, 32 raw exponents); + 32: a log append writes 32
 * entries from where it starts, whatever it keeps; + 4: the drain's padding. */
#define SZ_E512_LOG (SZ_E512_BLOCK * 2 * SPLITZIP_ENTROPY_LANES + SPLITZIP_ENTROPY_LANES + 4)

/*
 * The encoder's table: a window of 64 exponents (sz_ent_enc_window) in two registers, one
 * vpermi2w for the 32 entries of a step. The entries are sz_ent_e16 less the escape bit (bit
 * 15): an escape is the lane whose entry is the escape symbol's (no other symbol has its code),
 * and the length is the entry >> 11. The window ends at 255 at most (sz_ent_enc_window: base <=
 * 256 - 64), so an exponent e is in it exactly when (e - base) modulo 256 is below 64: bits 6
 * and 7 of (x >> 7) - base are 0.
 */
typedef struct ent_ek {
	__m512i w0, w1, base, esc;
	int out_esc; /* every exponent outside the window is an escape */
	const splitzip_entropy_enc_tables *t;
} ent_ek;

/* An entry less its escape bit. */
#define SZ_E512_ENTRY(e16) ((uint16_t)((e16) & ~SZ_ENT_E16_ESC))

static SZ_ALWAYS_INLINE void ent_enc_init(ent_ek *k, const splitzip_entropy_enc_tables *t)
{
	uint16_t tab[64], esc;
	unsigned base;
	k->out_esc = sz_ent_enc_window(t, 64, tab, &base, &esc);
	for (unsigned d = 0; d < 64; d++)
		tab[d] = SZ_E512_ENTRY(tab[d]);
	k->w0 = _mm512_loadu_si512((const void *)tab);
	k->w1 = _mm512_loadu_si512((const void *)(tab + 32));
	k->base = _mm512_set1_epi16((short)base);
	/* no escapes (every exponent coded): an entry no lane has (a length of 15) */
	k->esc = _mm512_set1_epi16((short)(esc ? SZ_E512_ENTRY(esc) : 0xFFFF));
	k->t = t;
}

/* Entries of the lanes of m (exponents outside the window, not all escapes) one by one. */
static __m512i ent_enc_outside(const ent_ek *k, const uint16_t *src, __m512i e, uint32_t m)
{
	for (; m; m &= m - 1) {
		const unsigned l = (unsigned)__builtin_ctz(m);
		e = _mm512_mask_set1_epi16(
		    e, (__mmask32)1 << l,
		    (short)SZ_E512_ENTRY(sz_ent_e16(k->t->sym[splitzip_bf16_exponent(src[l])])));
	}
	return e;
}

/* The 32 elements x (at src; 'partial': the first m, the other lanes of x 0): their
 * sign/mantissa bytes to sm, and their entries (SZ_E512_ENTRY). */
static SZ_ALWAYS_INLINE __m512i ent_enc_in(const ent_ek *k, __m512i x, const uint16_t *src,
                                           uint8_t *sm, const int partial, unsigned m)
{
	const __mmask32 act = partial ? first32(m) : ~(__mmask32)0;
	/* sm = bit 7 from the high byte, bits 0..6 from the low byte (0xCA: A ? B : C) */
	const __m256i s8 = _mm512_cvtepi16_epi8(
	    _mm512_ternarylogic_epi32(_mm512_set1_epi16(0x80), _mm512_srli_epi16(x, 8), x, 0xCA));
	if (partial)
		_mm256_mask_storeu_epi8(sm, act, s8);
	else
		_mm256_storeu_si256((__m256i *)sm, s8);
	const __m512i d = _mm512_sub_epi16(_mm512_srli_epi16(x, 7), k->base);
	const __mmask32 out = _mm512_test_epi16_mask(d, _mm512_set1_epi16(0xC0));
	__m512i ent = _mm512_permutex2var_epi16(k->w0, d, k->w1);
	if (SZ_LIKELY(k->out_esc))
		ent = _mm512_mask_mov_epi16(ent, out, k->esc);
	else if (out & act) /* inactive lanes: not read */
		ent = ent_enc_outside(k, src, ent, out & act);
	return ent;
}

/* The state of the 32 lanes, one 16-bit lane each (sa and sb as slot - base + 2^15, see
 * e512_log), and the log of the block: 'n_log' entries. VBMI2: the words and the slots in two
 * arrays; else u32 entries word | slot << 16. */
typedef struct ent512 {
	__m512i held, acc, accb, sa, sb;
	size_t next, base;
#if SZ_AVX512_VBMI
	uint16_t *lw, *ls;
#else
	uint32_t *log;
#endif
	unsigned n_log;
} ent512;

static const uint16_t e512_iota[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                       11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                       22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* next + (the lanes of m below the lane) - base + 2^15, modulo 2^16, for the lanes of m
 * (others: 0). */
static SZ_ALWAYS_INLINE __m512i e512_ranks(const ent512 *s, __mmask32 m)
{
	const uint32_t next = (uint32_t)(s->next - s->base + SZ_E512_SLOT_BIAS);
#if SZ_AVX512_VBMI
	const __m512i b = _mm512_add_epi16(_mm512_loadu_si512((const void *)e512_iota),
	                                   _mm512_set1_epi16((short)(uint16_t)next));
	return _mm512_maskz_expand_epi16(m, b);
#else
	const __m512i b =
	    _mm512_add_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)e512_iota)),
	                     _mm512_set1_epi32((int)next));
	const __m512i r0 = _mm512_maskz_expand_epi32((__mmask16)m, b);
	const __m512i r1 = _mm512_maskz_expand_epi32(
	    (__mmask16)(m >> 16),
	    _mm512_add_epi32(b, _mm512_set1_epi32(__builtin_popcount(m & 0xFFFF))));
	/* the low halves of the u32 lanes of r0, then of r1 */
	const __m512i lo = _mm512_slli_epi16(_mm512_loadu_si512((const void *)e512_iota), 1);
	return _mm512_permutex2var_epi16(r0, lo, r1);
#endif
}

/* Reserve the next words for the lanes of m, in lane order (a lane with no open slot: the new
 * one is its oldest and, unread, its second; else its second). */
static SZ_ALWAYS_INLINE void e512_reserve(ent512 *s, __mmask32 m)
{
	const __m512i rank = e512_ranks(s, m);
	const __mmask32 none = _mm512_testn_epi16_mask(s->held, s->held);
	s->next += (size_t)__builtin_popcount(m);
	s->sb = _mm512_mask_mov_epi16(s->sb, m, rank);
	s->sa = _mm512_mask_mov_epi16(s->sa, m & none, rank);
	s->held = _mm512_mask_add_epi16(s->held, m, s->held,
	                                _mm512_set1_epi16(SPLITZIP_ENTROPY_WORD_BITS));
}

/*
 * Log the completed words w (lanes c) with their oldest slots: word | (slot - base + 2^15) <<
 * 16, where base is 'next' at the start of the block. An open slot is never more than 28 steps
 * of 64 words behind next (a lane holds at most 26 bits when it reserves a word, and consumes
 * at least a bit per step), and a block's steps reserve at most 64 words each, so slot - base
 * + 2^15 is in [0, 2^16): the lanes keep their slots so (sa, sb).
 */
static SZ_ALWAYS_INLINE void e512_log(ent512 *s, __m512i w, __mmask32 c)
{
	const __m512i so = s->sa;
#if SZ_AVX512_VBMI
	_mm512_storeu_si512((void *)(s->lw + s->n_log), _mm512_maskz_compress_epi16(c, w));
	_mm512_storeu_si512((void *)(s->ls + s->n_log), _mm512_maskz_compress_epi16(c, so));
	s->n_log += (unsigned)__builtin_popcount(c);
#else
	/* vpunpck{l,h}wd: u32 entries of the lanes 8q + 0..3, then of 8q + 4..7 (q: 128-bit lane)
	 */
	const uint32_t c0 = _pext_u32(c, 0x0F0F0F0Fu), c1 = _pext_u32(c, 0xF0F0F0F0u);
	_mm512_storeu_si512(
	    (void *)(s->log + s->n_log),
	    _mm512_maskz_compress_epi32((__mmask16)c0, _mm512_unpacklo_epi16(w, so)));
	s->n_log += (unsigned)__builtin_popcount(c0);
	_mm512_storeu_si512(
	    (void *)(s->log + s->n_log),
	    _mm512_maskz_compress_epi32((__mmask16)c1, _mm512_unpackhi_epi16(w, so)));
	s->n_log += (unsigned)__builtin_popcount(c1);
#endif
}

/* Append x (below 2^len) to the lanes: held -= len, the completed words to the log. */
static SZ_ALWAYS_INLINE void e512_put(ent512 *s, __m512i x, __m512i len)
{
	const __m512i w = _mm512_or_si512(s->acc, _mm512_sllv_epi16(x, s->accb));
#if SZ_AVX512_VBMI
	/* the high half of x << accb as a 32-bit value: vpshldvw of (0 : x) */
	const __m512i over = _mm512_shldv_epi16(_mm512_setzero_si512(), x, s->accb);
#else
	const __m512i over = _mm512_srlv_epi16(
	    x, _mm512_sub_epi16(_mm512_set1_epi16(SPLITZIP_ENTROPY_WORD_BITS), s->accb));
#endif
	s->held = _mm512_sub_epi16(s->held, len);
	s->accb = _mm512_add_epi16(s->accb, len);
	const __mmask32 c =
	    _mm512_cmpge_epu16_mask(s->accb, _mm512_set1_epi16(SPLITZIP_ENTROPY_WORD_BITS));
	e512_log(s, w, c);
	s->acc = _mm512_mask_blend_epi16(c, w, over);
	s->accb = _mm512_mask_sub_epi16(s->accb, c, s->accb,
	                                _mm512_set1_epi16(SPLITZIP_ENTROPY_WORD_BITS));
	s->sa = _mm512_mask_mov_epi16(s->sa, c, s->sb);
}

/* A block of the log begins: the open slots relative to the new base. */
static SZ_ALWAYS_INLINE void e512_block(ent512 *s)
{
	const __m512i d = _mm512_set1_epi16((short)(uint16_t)(s->next - s->base));
	s->sa = _mm512_sub_epi16(s->sa, d);
	s->sb = _mm512_sub_epi16(s->sb, d);
	s->base = s->next;
	s->n_log = 0;
}

/* Store the words of the block's log to their slots, four at a time: the log is padded with
 * copies of its first entry (a second store of a word to its slot changes nothing). */
static SZ_ALWAYS_INLINE void e512_drain(ent512 *s, uint8_t *words)
{
	if (!s->n_log)
		return;
	/* the words' address less 2^16 bytes, as an integer: it may lie before 'words' */
	const uintptr_t base = (uintptr_t)words + 2 * (uintptr_t)s->base - 2 * SZ_E512_SLOT_BIAS;
#if SZ_AVX512_VBMI
	for (unsigned j = 0; j < 4; j++) {
		s->lw[s->n_log + j] = s->lw[0];
		s->ls[s->n_log + j] = s->ls[0];
	}
	for (unsigned i = 0; i < s->n_log; i += 4)
		for (unsigned j = 0; j < 4; j++)
			splitzip_st16((uint8_t *)(base + 2 * (uintptr_t)s->ls[i + j]),
			              s->lw[i + j]);
#else
	_mm_storeu_si128((__m128i *)(s->log + s->n_log), _mm_set1_epi32((int)s->log[0]));
	for (unsigned i = 0; i < s->n_log; i += 4)
		for (unsigned j = 0; j < 4; j++)
			splitzip_st16((uint8_t *)(base + 2 * (uintptr_t)(s->log[i + j] >> 16)),
			              (uint16_t)s->log[i + j]);
#endif
}

/* Phases B and R of a step with escapes (lanes esc; x: the step's elements): the reads before
 * the raw bits, then the raw exponents as 8 bits each. */
static SZ_ALWAYS_INLINE size_t e512_escapes(ent512 *s, __m512i x, __mmask32 esc)
{
	/* the refill threshold before raw bits is their width */
	const __m512i raw = _mm512_set1_epi16(SPLITZIP_ENTROPY_RAW_BITS);
	const __m512i ex = _mm512_and_si512(_mm512_srli_epi16(x, 7), _mm512_set1_epi16(0xFF));
	e512_reserve(s, esc & _mm512_cmplt_epu16_mask(s->held, raw));
	e512_put(s, _mm512_maskz_mov_epi16(esc, ex), _mm512_maskz_mov_epi16(esc, raw));
	return (size_t)__builtin_popcount(esc);
}

/* One step of 32 elements (or, 'partial', the first m of them). Returns its escape count. */
static SZ_ALWAYS_INLINE size_t e512_step(const ent_ek *k, ent512 *s, const uint16_t *src,
                                         uint8_t *sm, const int partial, unsigned m)
{
	__m512i x;
	if (partial)
		x = _mm512_maskz_loadu_epi16(first32(m), src);
	else
		x = _mm512_loadu_si512((const void *)src);
	__m512i ent = ent_enc_in(k, x, src, sm, partial, m);
	__mmask32 ma =
	    _mm512_cmplt_epu16_mask(s->held, _mm512_set1_epi16(SPLITZIP_ENTROPY_REFILL_SYMBOL));
	if (partial) { /* inactive lanes: no bits, no reads */
		ent = _mm512_maskz_mov_epi16(first32(m), ent);
		ma &= first32(m);
	}
	e512_reserve(s, ma); /* phase A */
	const __m512i len = _mm512_srli_epi16(ent, SZ_ENT_E16_LEN_SHIFT);
	e512_put(s, _mm512_and_si512(ent, _mm512_set1_epi16(0x7FF)), len); /* phase D */
	const __mmask32 esc = _mm512_cmpeq_epi16_mask(ent, k->esc);
	if (SZ_LIKELY(!esc))
		return 0;
	return e512_escapes(s, x, esc);
}

/* The last bits of each lane, zero-padded, then zero words for slots never needed. */
static void e512_flush(const ent512 *s, uint8_t *words)
{
	uint16_t held[32], acc[32], accb[32], sa[32], sb[32];
	_mm512_storeu_si512((void *)held, s->held);
	_mm512_storeu_si512((void *)acc, s->acc);
	_mm512_storeu_si512((void *)accb, s->accb);
	_mm512_storeu_si512((void *)sa, s->sa);
	_mm512_storeu_si512((void *)sb, s->sb);
	for (unsigned l = 0; l < SPLITZIP_ENTROPY_LANES; l++) {
		const unsigned open = ((unsigned)held[l] + accb[l]) / 16;
		const size_t a = s->base + sa[l] - SZ_E512_SLOT_BIAS;
		const size_t b = s->base + sb[l] - SZ_E512_SLOT_BIAS;
		if (open > 0)
			splitzip_st16(words + 2 * a, acc[l]);
		if (open > 1)
			splitzip_st16(words + 2 * b, 0);
	}
}

static size_t avx512_entropy_encode_chunk(const splitzip_entropy_enc_tables *t, const uint16_t *src,
                                          size_t n, uint8_t *sm, uint8_t *words, size_t *n_words)
{
#if SZ_AVX512_VBMI
	uint16_t lw[SZ_E512_LOG], ls[SZ_E512_LOG];
#else
	uint32_t log[SZ_E512_LOG];
#endif
	ent512 s;
	ent_ek k;
	ent_enc_init(&k, t);
	s.held = s.acc = s.accb = s.sa = s.sb = _mm512_setzero_si512();
	s.next = s.base = 0;
#if SZ_AVX512_VBMI
	s.lw = lw;
	s.ls = ls;
#else
	s.log = log;
#endif
	size_t n_esc = 0, i = 0;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	while (i < full) {
		const size_t end = full - i > SZ_E512_BLOCK * SPLITZIP_ENTROPY_LANES
		                       ? i + SZ_E512_BLOCK * SPLITZIP_ENTROPY_LANES
		                       : full;
		e512_block(&s);
		for (; i < end; i += SPLITZIP_ENTROPY_LANES)
			n_esc += e512_step(&k, &s, src + i, sm + i, 0, 0);
		e512_drain(&s, words);
	}
	if (i < n) {
		e512_block(&s);
		n_esc += e512_step(&k, &s, src + i, sm + i, 1, (unsigned)(n - i));
		e512_drain(&s, words);
	}
	e512_flush(&s, words);
	*n_words = s.next;
	return n_esc;
}

#undef SZ_E512_BLOCK
#undef SZ_E512_LOG
#undef SZ_E512_SLOT_BIAS
#undef SZ_E512_ENTRY
