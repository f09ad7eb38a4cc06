/*
 * sz_avx2_entropy_enc.h -- the mode-2 chunk encoder of the AVX2 backend (doc/FORMAT.md §4.3.5),
 * included by sz_avx2.c in place of sz_entropy_template.h's encoder. The design is the
 * template's (read its comments first): the encoder
 * runs the decoder's lane counts alongside itself, reserves a slot (the chunk's next word)
 * wherever the decoder reads a word, keeps at most two open slots per lane (sa the oldest, sb
 * the other) and stores each completed word to its lane's oldest slot.
 *
 * What differs is the width of a lane's state: the counts held and accb are a byte per lane,
 * one vector each for the 32 lanes (in lane order, as the entries' bytes come), and the
 * accumulator and the slots 16 bits, two vectors each instead of four; the state (eight vectors)
 * fits the sixteen registers with room to spare, where with four vectors per value the template
 * spills a third of its instructions on AVX2, and the counts take one instruction per step for
 * the 32 lanes. AVX2 has no 16-bit variable shift, so a code x of length len is appended by
 * multiplying with pw = 2^accb (two vpshufb of accb): the low half of x * pw (vpmullw) is what
 * stays in the lane's word, the high half (vpmulhuw) what spills into the next one; the word is
 * complete when accb + len >= 16 (accb + len < 32 always). The ranks of the lanes that reserve,
 * in lane order, come from a prefix sum of the bytes in the registers.
 *
 * The stores of the completed words are scattered, so they are scalar; the template stores a
 * fixed number per step, from a buffer just written by vector stores, and the loads that
 * forward from those stores lengthen every step. Here the steps only append the words, with
 * their slots, to a log (compacted, in the registers' order: each word has a slot of its own),
 * and after every SZ_E16_BLOCK steps a plain loop stores the log's words: no padding stores and
 * no branch that depends on the number of words.
 *
 * Lanes: vector j holds lanes 8j .. 8j + 7 in its low 128 bits and 16 + 8j .. 23 + 8j in its
 * high 128 bits (the order in which vpunpck{l,h}bw leave the entries of 32 elements in element
 * order). Lanes are independent except for the ranks, which follow this order.
 */

/* Steps per block of the log; the bias of a slot in a log entry. */
#define SZ_E16_BLOCK 32u
#define SZ_E16_SLOT_BIAS 32768u
/* A step completes at most 64 words (32 codes, 32 raw exponents); + 32: a call of ent16_compact
 * writes 32 entries from where it starts, whatever it keeps. */
#define SZ_E16_LOG (SZ_E16_BLOCK * 2 * SPLITZIP_ENTROPY_LANES + SPLITZIP_ENTROPY_LANES)

/* m ? b : a by the sign of each byte of m, as one vpblendvb: GCC turns the intrinsic into a
 * select on the bytes' signs and, unless m comes from a byte compare, derives them again with a
 * vpcmpgtb first. */
static SZ_ALWAYS_INLINE __m256i blend8(__m256i a, __m256i b, __m256i m)
{
	__m256i r;
	__asm__("vpblendvb %3, %2, %1, %0" : "=x"(r) : "x"(a), "x"(b), "x"(m));
	return r;
}

/* a < b (bytes, signed), with b hidden from GCC, which otherwise turns a compare with a
 * constant into vpminsb and vpcmpeqb. */
static SZ_ALWAYS_INLINE __m256i lt8(__m256i a, __m256i b)
{
	__asm__("" : "+x"(b));
	return _mm256_cmpgt_epi8(b, a);
}

/* The lanes of the masks mk[i] (of v[i]) in order, to out; returns their number. May write
 * anything to out[32). */
static SZ_ALWAYS_INLINE unsigned ent16_compact(uint32_t *out, const __m256i v[4],
                                               const unsigned mk[4])
{
	unsigned n = 0;
	for (unsigned i = 0; i < 4; i++) {
		const __m256i idx =
		    _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)ent_nth[mk[i]]));
		_mm256_storeu_si256((__m256i *)(out + n), _mm256_permutevar8x32_epi32(v[i], idx));
		n += (unsigned)__builtin_popcount(mk[i]);
	}
	return n;
}

/* The encoder's tables: a window of 32 exponents (sz_ent_enc_window), the low and high bytes of
 * its entries in two 16-entry tables each, two vpshufb and a blend per byte; 2^len by length. */
typedef struct ent_ek {
	__m256i lo0, lo1, hi0, hi1, base, esc_lo, esc_hi, p2lo, p2hi;
	int out_esc; /* every exponent outside the window is an escape */
	const splitzip_entropy_enc_tables *t;
} ent_ek;

static SZ_ALWAYS_INLINE void ent_enc_init(ent_ek *k, const splitzip_entropy_enc_tables *t)
{
	uint16_t esc;
	uint8_t lo[32], hi[32], p2lo[16], p2hi[16];
	unsigned base;
	k->out_esc = sz_ent_enc_window_bytes(t, 32, lo, hi, &base, &esc);
	for (unsigned len = 0; len < 16; len++) {
		p2lo[len] = (uint8_t)(len < 8 ? 1u << len : 0);
		p2hi[len] = (uint8_t)(len >= 8 ? 1u << (len - 8) : 0);
	}
	k->lo0 = bcast16(lo);
	k->lo1 = bcast16(lo + 16);
	k->hi0 = bcast16(hi);
	k->hi1 = bcast16(hi + 16);
	k->p2lo = bcast16(p2lo);
	k->p2hi = bcast16(p2hi);
	k->base = _mm256_set1_epi8((char)base);
	k->esc_lo = _mm256_set1_epi8((char)(esc & 0xFF));
	k->esc_hi = _mm256_set1_epi8((char)(esc >> 8));
	k->t = t;
}

/* Lanes m (exponents outside the window, not all escapes): their entry bytes one by one. */
static void ent_enc_outside(const ent_ek *k, const uint16_t *src, uint32_t m, __m256i *lo,
                            __m256i *hi)
{
	uint8_t l8[32], h8[32];
	_mm256_storeu_si256((__m256i *)l8, *lo);
	_mm256_storeu_si256((__m256i *)h8, *hi);
	for (; m; m &= m - 1) {
		const unsigned l = (unsigned)__builtin_ctz(m);
		const uint16_t e = sz_ent_e16(k->t->sym[splitzip_bf16_exponent(src[l])]);
		l8[l] = (uint8_t)e;
		h8[l] = (uint8_t)(e >> 8);
	}
	*lo = _mm256_loadu_si256((const __m256i *)l8);
	*hi = _mm256_loadu_si256((const __m256i *)h8);
}

/* 32 elements: their sign/mantissa bytes to sm; their exponents (ex) and the low and high bytes
 * of their entries (sz_ent_e16), in element order. */
static SZ_ALWAYS_INLINE void ent_enc_bytes(const ent_ek *k, const uint16_t *src, uint8_t *sm,
                                           __m256i *ex, __m256i *lo, __m256i *hi)
{
	__m256i e, s;
	split32(src, &e, &s);
	_mm256_storeu_si256((__m256i *)sm, s);
	const __m256i d = _mm256_sub_epi8(e, k->base);
	const __m256i out = _mm256_cmpeq_epi8(_mm256_max_epu8(d, _mm256_set1_epi8(32)), d);
	const __m256i b4 = _mm256_slli_epi16(d, 3); /* bit 4 of d to bit 7: the upper table */
	__m256i l = blend8(_mm256_shuffle_epi8(k->lo0, d), _mm256_shuffle_epi8(k->lo1, d), b4);
	__m256i h = blend8(_mm256_shuffle_epi8(k->hi0, d), _mm256_shuffle_epi8(k->hi1, d), b4);
	if (SZ_LIKELY(k->out_esc)) {
		l = _mm256_blendv_epi8(l, k->esc_lo, out);
		h = _mm256_blendv_epi8(h, k->esc_hi, out);
	} else {
		const uint32_t m = (uint32_t)_mm256_movemask_epi8(out);
		if (m)
			ent_enc_outside(k, src, m, &l, &h);
	}
	*ex = e;
	*lo = l;
	*hi = h;
}

/* The state of the 32 lanes: held and accb a byte each, in lane order; the accumulator and the
 * slots 16 bits each (sa and sb as slot - base + 2^15, see ent16_complete). The log of the
 * block: 'n_log' entries. */
typedef struct ent16 {
	__m256i held, accb, acc[2], sa[2], sb[2];
	size_t next, base;
	uint32_t *log;
	unsigned n_log;
} ent16;

/* The ranks next + (the lanes of rb below the lane) - base + 2^15 of the lanes of rb (all-ones
 * bytes, lane order): a prefix sum of bytes within 128 bits, the count of lanes 0-15 added to
 * the upper half, bytes widened to the lanes' layout. */
static SZ_ALWAYS_INLINE void ent16_ranks(const ent16 *s, __m256i rb, __m256i rank[2])
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i x = _mm256_sub_epi8(zero, rb);
	__m256i p = _mm256_add_epi8(x, _mm256_slli_si256(x, 1));
	p = _mm256_add_epi8(p, _mm256_slli_si256(p, 2));
	p = _mm256_add_epi8(p, _mm256_slli_si256(p, 4));
	p = _mm256_add_epi8(p, _mm256_slli_si256(p, 8));
	const __m256i t = _mm256_shuffle_epi8(p, _mm256_set1_epi8(15)); /* each half's count */
	const __m256i e =
	    _mm256_add_epi8(_mm256_sub_epi8(p, x), _mm256_permute2x128_si256(t, t, 0x08));
	const __m256i base =
	    _mm256_set1_epi16((short)(uint16_t)(s->next - s->base + SZ_E16_SLOT_BIAS));
	rank[0] = _mm256_add_epi16(_mm256_unpacklo_epi8(e, zero), base);
	rank[1] = _mm256_add_epi16(_mm256_unpackhi_epi8(e, zero), base);
}

/* Reserve the next words for the lanes of rb (all-ones bytes, lane order), in lane order (a
 * lane with no open slot: the new one is its oldest and, unread, its second; else its second).
 */
static SZ_ALWAYS_INLINE void ent16_reserve(ent16 *s, __m256i rb)
{
	__m256i rank[2];
	ent16_ranks(s, rb, rank);
	s->next += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(rb));
	const __m256i rn = _mm256_and_si256(rb, _mm256_cmpeq_epi8(s->held, _mm256_setzero_si256()));
	s->sb[0] = blend8(s->sb[0], rank[0], _mm256_unpacklo_epi8(rb, rb));
	s->sb[1] = blend8(s->sb[1], rank[1], _mm256_unpackhi_epi8(rb, rb));
	s->sa[0] = blend8(s->sa[0], rank[0], _mm256_unpacklo_epi8(rn, rn));
	s->sa[1] = blend8(s->sa[1], rank[1], _mm256_unpackhi_epi8(rn, rn));
	s->held = _mm256_add_epi8(s->held, _mm256_and_si256(rb, _mm256_set1_epi8(16)));
}

/* Append x (below 2^len; len: bytes in lane order) to the lanes: held -= len, w gets their
 * words, c the lanes whose word is complete (w is then the word, and the lane keeps the bits
 * that spilled over). x << accb by multiplying with 2^accb, looked up by accb. */
static SZ_ALWAYS_INLINE void ent16_put(const ent_ek *k, ent16 *s, const __m256i x[2], __m256i len,
                                       __m256i w[2], __m256i c[2])
{
	const __m256i pl = _mm256_shuffle_epi8(k->p2lo, s->accb),
	              ph = _mm256_shuffle_epi8(k->p2hi, s->accb);
	const __m256i sum = _mm256_add_epi8(s->accb, len);
	const __m256i cb = _mm256_cmpgt_epi8(sum, _mm256_set1_epi8(15));
	s->held = _mm256_sub_epi8(s->held, len);
	s->accb = _mm256_and_si256(sum, _mm256_set1_epi8(15));
	c[0] = _mm256_unpacklo_epi8(cb, cb);
	c[1] = _mm256_unpackhi_epi8(cb, cb);
	for (unsigned j = 0; j < 2; j++) {
		const __m256i pw = j ? _mm256_unpackhi_epi8(pl, ph) : _mm256_unpacklo_epi8(pl, ph);
		w[j] = _mm256_or_si256(s->acc[j], _mm256_mullo_epi16(x[j], pw));
		s->acc[j] = blend8(w[j], _mm256_mulhi_epu16(x[j], pw), c[j]);
	}
}

/*
 * Log the completed words (lanes c) with their oldest slots: entries word | (slot - base +
 * 2^15) << 16, where base is 'next' at the start of the block. An open slot is never more than
 * 28 steps of 64 words behind next (a lane holds at most 26 bits when it reserves a word, and
 * consumes at least a bit per step), and a block's steps reserve at most 64 words each, so
 * slot - base + 2^15 is in [0, 2^16): the lanes keep their slots so (sa, sb).
 */
static SZ_ALWAYS_INLINE void ent16_complete(ent16 *s, const __m256i w[2], const __m256i c[2])
{
	__m256i pk[4];
	unsigned mk[4];
	for (unsigned j = 0; j < 2; j++) {
		const __m256i so = s->sa[j];
		pk[2 * j] = _mm256_unpacklo_epi16(w[j], so);
		pk[2 * j + 1] = _mm256_unpackhi_epi16(w[j], so);
		mk[2 * j] = em_bits(_mm256_unpacklo_epi16(c[j], c[j]));
		mk[2 * j + 1] = em_bits(_mm256_unpackhi_epi16(c[j], c[j]));
	}
	s->n_log += ent16_compact(s->log + s->n_log, pk, mk);
	for (unsigned j = 0; j < 2; j++)
		s->sa[j] = blend8(s->sa[j], s->sb[j], c[j]);
}

/* A block of the log begins: the open slots relative to the new base. */
static SZ_ALWAYS_INLINE void ent16_block(ent16 *s)
{
	const __m256i d = _mm256_set1_epi16((short)(uint16_t)(s->next - s->base));
	for (unsigned j = 0; j < 2; j++) {
		s->sa[j] = _mm256_sub_epi16(s->sa[j], d);
		s->sb[j] = _mm256_sub_epi16(s->sb[j], d);
	}
	s->base = s->next;
	s->n_log = 0;
}

/* Store the words of the block's log to their slots, four at a time: the log is padded with
 * copies of its first entry (a second store of a word to its slot changes nothing). */
static SZ_ALWAYS_INLINE void ent16_drain(const ent16 *s, uint8_t *words)
{
	if (!s->n_log)
		return;
	_mm_storeu_si128((__m128i *)(s->log + s->n_log), _mm_set1_epi32((int)s->log[0]));
	/* the words' address less 2^16 bytes, as an integer: it may lie before 'words' */
	const uintptr_t base = (uintptr_t)words + 2 * (uintptr_t)s->base - 2 * SZ_E16_SLOT_BIAS;
	const uint8_t *o = (const uint8_t *)s->log; /* u16 word, u16 slot - base + 2^15 */
	const uint8_t *const end = o + 4 * (size_t)s->n_log;
	for (; o < end; o += 16)
		for (unsigned j = 0; j < 16; j += 4)
			splitzip_st16((uint8_t *)(base + 2 * (uintptr_t)splitzip_le16(o + j + 2)),
			              splitzip_le16(o + j));
}

/* Phases B and R of a step with escapes (esc: the lanes, in lane order; bytes: bit 7 of hi):
 * the reads before the raw bits, then the raw exponents (ex) as 8 bits each. */
static SZ_ALWAYS_INLINE size_t ent16_escapes(const ent_ek *k, ent16 *s, __m256i ex, __m256i hi,
                                             uint32_t esc)
{
	const __m256i zero = _mm256_setzero_si256(), raw = _mm256_set1_epi8(8);
	const __m256i eb = _mm256_cmpgt_epi8(zero, hi);
	const __m256i xb = _mm256_and_si256(ex, eb);
	__m256i x[2], w[2], c[2];
	x[0] = _mm256_unpacklo_epi8(xb, zero);
	x[1] = _mm256_unpackhi_epi8(xb, zero);
	/* the refill threshold before raw bits is their width */
	ent16_reserve(s, _mm256_and_si256(eb, _mm256_cmpgt_epi8(raw, s->held)));
	ent16_put(k, s, x, _mm256_and_si256(eb, raw), w, c);
	ent16_complete(s, w, c);
	return (size_t)__builtin_popcount(esc);
}

/* One step of 32 elements (or, 'partial', the first m of them). Returns its escape count. */
static SZ_ALWAYS_INLINE size_t ent16_step(const ent_ek *k, ent16 *s, const uint16_t *src,
                                          uint8_t *sm, const int partial, unsigned m)
{
	__m256i ex, lo, hi, act = _mm256_set1_epi8(-1);
	if (partial) {
		uint16_t ibuf[SPLITZIP_ENTROPY_LANES] = {0};
		uint8_t sbuf[SPLITZIP_ENTROPY_LANES];
		memcpy(ibuf, src, 2 * (size_t)m);
		ent_enc_bytes(k, ibuf, sbuf, &ex, &lo, &hi);
		memcpy(sm, sbuf, m);
		const __m256i iota =
		    _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
		                     18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
		act = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)m), iota);
		lo = _mm256_and_si256(lo, act); /* inactive lanes: no bits (len 0) */
		hi = _mm256_and_si256(hi, act);
	} else {
		ent_enc_bytes(k, src, sm, &ex, &lo, &hi);
	}
	const __m256i lenb = _mm256_and_si256(_mm256_srli_epi16(hi, 3), _mm256_set1_epi8(0x0F));
	const __m256i code = _mm256_set1_epi16(0x7FF);
	__m256i x[2], w[2], c[2];
	x[0] = _mm256_and_si256(_mm256_unpacklo_epi8(lo, hi), code);
	x[1] = _mm256_and_si256(_mm256_unpackhi_epi8(lo, hi), code);
	/* phase A (held < 128: a signed compare of bytes) */
	__m256i rb = lt8(s->held, _mm256_set1_epi8(SPLITZIP_ENTROPY_REFILL_SYMBOL));
	if (partial)
		rb = _mm256_and_si256(rb, act);
	ent16_reserve(s, rb);
	ent16_put(k, s, x, lenb, w, c); /* phase D: the codes */
	ent16_complete(s, w, c);
	const uint32_t esc = (uint32_t)_mm256_movemask_epi8(hi); /* bit 15 of an entry */
	if (SZ_LIKELY(!esc))
		return 0;
	return ent16_escapes(k, s, ex, hi, esc);
}

/* The last bits of each lane, zero-padded, then zero words for slots never needed. */
static void ent16_flush(const ent16 *s, uint8_t *words)
{
	uint8_t held[32], accb[32];
	uint16_t acc[2][16], sa[2][16], sb[2][16];
	_mm256_storeu_si256((__m256i *)held, s->held);
	_mm256_storeu_si256((__m256i *)accb, s->accb);
	for (unsigned j = 0; j < 2; j++) {
		_mm256_storeu_si256((__m256i *)acc[j], s->acc[j]);
		_mm256_storeu_si256((__m256i *)sa[j], s->sa[j]);
		_mm256_storeu_si256((__m256i *)sb[j], s->sb[j]);
	}
	for (unsigned j = 0; j < 2; j++)
		for (unsigned p = 0; p < 16; p++) {
			/* the lane (see the top) */
			const unsigned l = (p & 8) * 2 + 8 * j + (p & 7);
			const unsigned open = ((unsigned)held[l] + accb[l]) / 16;
			const size_t a = s->base + sa[j][p] - SZ_E16_SLOT_BIAS;
			const size_t b = s->base + sb[j][p] - SZ_E16_SLOT_BIAS;
			if (open > 0)
				splitzip_st16(words + 2 * a, acc[j][p]);
			if (open > 1)
				splitzip_st16(words + 2 * b, 0);
		}
}

static size_t avx2_entropy_encode_chunk(const splitzip_entropy_enc_tables *t, const uint16_t *src,
                                        size_t n, uint8_t *sm, uint8_t *words, size_t *n_words)
{
	uint32_t log[SZ_E16_LOG];
	ent16 s;
	ent_ek k;
	ent_enc_init(&k, t);
	s.held = s.accb = _mm256_setzero_si256();
	for (unsigned j = 0; j < 2; j++)
		s.acc[j] = s.sa[j] = s.sb[j] = _mm256_setzero_si256();
	s.next = s.base = 0;
	s.log = log;
	size_t n_esc = 0, i = 0;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	while (i < full) {
		const size_t end = full - i > SZ_E16_BLOCK * SPLITZIP_ENTROPY_LANES
		                       ? i + SZ_E16_BLOCK * SPLITZIP_ENTROPY_LANES
		                       : full;
		ent16_block(&s);
		for (; i < end; i += SPLITZIP_ENTROPY_LANES)
			n_esc += ent16_step(&k, &s, src + i, sm + i, 0, 0);
		ent16_drain(&s, words);
	}
	if (i < n) {
		ent16_block(&s);
		n_esc += ent16_step(&k, &s, src + i, sm + i, 1, (unsigned)(n - i));
		ent16_drain(&s, words);
	}
	ent16_flush(&s, words);
	*n_words = s.next;
	return n_esc;
}

#undef SZ_E16_BLOCK
#undef SZ_E16_LOG
#undef SZ_E16_SLOT_BIAS
