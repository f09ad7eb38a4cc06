/*
 * sz_avx2_entropy_dec.h -- the mode-2 chunk decoder of the AVX2 backend (doc/FORMAT.md §4.3.5,
 * the checks of §4.3.6), included by sz_avx2.c in place of sz_entropy_template.h's decoder.
 * The steps, their phases and the checked tail are the
 * template's (read its comments first), the lanes those of the AVX-512 decoder
 * (backends/cpu_avx512/sz_avx512_entropy_dec.h): 16 bits wide, a lane's bits lo | hi << 16.
 *
 * In u32 lanes the 32 lanes of a chunk take four registers per value: a pair of chunks needs
 * all sixteen for its state and spills, and every lookup packs the lanes to bytes and widens
 * the lengths back. Here a chunk is five registers -- lo and hi (two each) and the counts, one
 * byte per lane -- and every per-lane value the lookup touches is a byte in lane order, 32 to
 * a register. AVX2 has no variable 16-bit shift, so the shifts are multiplications by powers
 * of two (as in the AVX2 encoder, sz_avx2_entropy_enc.h): adding a word x at bit b is
 * lo |= x * 2^b (vpmullw), hi = the high half (vpmulhuw); taking n bits is lo = lo * 2^(16-n) >>
 * 16 | hi * 2^(16-n), hi = hi * 2^(16-n) >> 16. The powers come from 16-entry tables (vpshufb)
 * of the counts and the lengths.
 *
 * Register order: the lanes of a 16-bit register pair are A = lanes 0-7 | 16-23 and B = lanes
 * 8-15 | 24-31 (128-bit halves), the order in which vpunpck{l,h}bw widen 32 bytes and
 * vpackuswb narrows them back, so bytes stay in lane order at no cost.
 *
 * Phase D looks the next bits up in byte tables by vpshufb, three levels, all computed for all
 * lanes and blended: the first 4 bits (codes of at most 4); after 0111 or 1111 (bit 0 first),
 * the last two of the 4-bit prefixes of a canonical code, the next 4 (codes of at most 8); after
 * the last two 8-bit prefixes, the next 3 (codes of at most 11). The longest codes of a
 * canonical code come last in its code space, and on real KV the codes of 5 or more bits lie
 * under the last two 4-bit prefixes and those of 9 or more under the last two 8-bit ones, so
 * no branch depends on the lengths. Length 0 sends a lane out of line to the full table: the
 * escape symbol, and codes outside the three levels (tables with many long codes).
 */

/* The state of a chunk: lo and hi in register order, the counts as bytes in lane order. */
typedef struct d16_lanes {
	__m256i lo[2], hi[2], bits;
} d16_lanes;

/*
 * The decoder's constants: 16-entry byte tables in both 128-bit halves, and the other
 * constants of a step, which the step reads from here (memory operands) rather than have GCC
 * build each one in a register (it does, three instructions each, again in every step when the
 * sixteen registers run short).
 */
typedef struct d16_dk {
	__m256i len1, sym1;       /* the first 4 bits n1 */
	__m256i len2[2], sym2[2]; /* after n1 = 7 or 15 (bit 3 of n1 picks one): the next 4 bits */
	__m256i len3, sym3;       /* after the 8 bits 0x7F or 0xFF: bit 7 << 3 | the next 3 bits */
	__m256i pow, plo, phi;    /* 2^b for b < 8 (b ^ 8 for the high byte); 2^(16 - n) in bytes */
	__m256i two;              /* -1 for n1 = 7 and 15 (the second level), else 0 */
	__m256i emask, epat, elen; /* the escape symbol: (lo & emask) == epat; its length, bytes */
	__m256i rb, rmask;         /* raw bits after an escape: their number, their mask (bytes) */
	__m256i coded[2];          /* coded[] as a bitmap: bytes 0-15 and 16-31 */
	__m256i split;             /* vpshufb: the low bytes of 8 u16, then the high bytes */
	__m256i b7, b8, b11, b15, b16, b127, b128; /* bytes 7, 8, ... */
	const splitzip_entropy_dec_tables *t;
} d16_dk;

/* The form of an exponent x in the symbol bytes: rotated right by one, bit 0 in bit 7, which
 * is how the two bytes of an element hold it (see d16_join). */
static inline uint8_t d16_rot(unsigned x)
{
	return (uint8_t)((x >> 1 | x << 7) & 0xFF);
}

/* A byte table's entries: code length and symbol (d16_rot) of the lut entry e, 0 and 0 for
 * the escape symbol and for a code longer than max bits. */
static inline void d16_entry(uint32_t e, unsigned max, uint8_t *len, uint8_t *sym)
{
	const uint32_t l = e >> SPLITZIP_ENTROPY_DEC_LEN_SHIFT,
	               s = e & SPLITZIP_ENTROPY_DEC_SYM_MASK;
	const int ok = l <= max && s != SPLITZIP_ENTROPY_ESC;
	*len = (uint8_t)(ok ? l : 0);
	*sym = ok ? d16_rot(s) : 0;
}

static SZ_ALWAYS_INLINE __m256i d16_bcast(const uint8_t *p)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
}

/* Fills *k; returns a pointer to it that GCC cannot see through, so that the steps read the
 * constants from memory (see d16_dk). */
static SZ_ALWAYS_INLINE const d16_dk *d16_init(d16_dk *k, const splitzip_entropy_dec_tables *t)
{
	uint8_t b[8][16];
	for (unsigned x = 0; x < 16; x++) {
		d16_entry(t->lut[x], 4, &b[0][x], &b[1][x]);
		d16_entry(t->lut[7 | x << 4], 8, &b[2][x], &b[3][x]);
		d16_entry(t->lut[15 | x << 4], 8, &b[4][x], &b[5][x]);
		d16_entry(t->lut[0x7F | (x & 8) << 4 | (x & 7) << 8],
		          SPLITZIP_ENTROPY_MAX_CODE_LENGTH, &b[6][x], &b[7][x]);
	}
	k->len1 = d16_bcast(b[0]);
	k->sym1 = d16_bcast(b[1]);
	k->len2[0] = d16_bcast(b[2]);
	k->sym2[0] = d16_bcast(b[3]);
	k->len2[1] = d16_bcast(b[4]);
	k->sym2[1] = d16_bcast(b[5]);
	k->len3 = d16_bcast(b[6]);
	k->sym3 = d16_bcast(b[7]);
	/* 2^x for x < 8; 2^(16 - x) as two bytes (0 for x = 0: a length is never 0 when taken) */
	k->pow = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8,
	                          16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
	k->plo = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, -128, 64, 32, 16, 8, 4, 2, 0, 0, 0, 0,
	                          0, 0, 0, 0, 0, -128, 64, 32, 16, 8, 4, 2);
	k->phi = _mm256_setr_epi8(0, -128, 64, 32, 16, 8, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, -128, 64,
	                          32, 16, 8, 4, 2, 1, 0, 0, 0, 0, 0, 0, 0);
	k->b7 = _mm256_set1_epi8(7);
	k->b8 = _mm256_set1_epi8(8);
	k->b11 = _mm256_set1_epi8(SPLITZIP_ENTROPY_REFILL_SYMBOL);
	k->b15 = _mm256_set1_epi8(15);
	k->b16 = _mm256_set1_epi8(SPLITZIP_ENTROPY_WORD_BITS);
	k->b127 = _mm256_set1_epi8(127);
	k->b128 = _mm256_set1_epi8((char)128);
	uint32_t cb[8]; /* coded[] (bytes 0 or 1) to bits, 32 at a time */
	for (unsigned q = 0; q < 8; q++)
		cb[q] = (uint32_t)_mm256_movemask_epi8(
		    _mm256_slli_epi16(_mm256_loadu_si256((const __m256i *)(t->coded + 32 * q)), 7));
	k->coded[0] = d16_bcast((const uint8_t *)cb);
	k->coded[1] = d16_bcast((const uint8_t *)cb + 16);
	k->emask = _mm256_set1_epi16((short)((1u << t->esc_len) - 1));
	k->epat = _mm256_set1_epi16((short)t->esc_code);
	k->elen = _mm256_set1_epi8((char)t->esc_len);
	k->rb = _mm256_set1_epi8((char)t->raw_bits);
	k->rmask = _mm256_set1_epi8((char)((1u << t->raw_bits) - 1));
	k->two = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0,
	                          0, 0, -1, 0, 0, 0, 0, 0, 0, 0, -1);
	k->split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4,
	                            6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
	k->t = t;
	const d16_dk *r = k;
	__asm__("" : "+r"(r) : : "memory");
	return r;
}

/* m ? b : a by the sign of each byte of m, as one vpblendvb (GCC otherwise derives the signs
 * again with a vpcmpgtb unless m comes from a byte compare). */
static SZ_ALWAYS_INLINE __m256i d16_blend(__m256i a, __m256i b, __m256i m)
{
	__m256i r;
	__asm__("vpblendvb %3, %2, %1, %0" : "=x"(r) : "x"(a), "x"(b), "x"(m));
	return r;
}

/*
 * vpshufb controls over a mask of 8 lanes: d16_ctrl[m] puts word SZ_RANK(m, l) of 8
 * (little-endian) into u16 lane l for the lanes of m and zeroes the others.
 */
#define D16_CTRL_LANE(m, l)                                                                        \
	((m) >> (l)&1 ? 2 * SZ_RANK(m, l) : 0x80), ((m) >> (l)&1 ? 2 * SZ_RANK(m, l) + 1 : 0x80)
#define D16_CTRL(m)                                                                                \
	{                                                                                          \
		D16_CTRL_LANE(m, 0), D16_CTRL_LANE(m, 1), D16_CTRL_LANE(m, 2),                     \
		    D16_CTRL_LANE(m, 3), D16_CTRL_LANE(m, 4), D16_CTRL_LANE(m, 5),                 \
		    D16_CTRL_LANE(m, 6), D16_CTRL_LANE(m, 7)                                       \
	}
static const uint8_t d16_ctrl[256][16] __attribute__((aligned(16))) = {SZ_TABLE256(D16_CTRL)};

/* 16 bytes at a (low half) and b (high half). */
static SZ_ALWAYS_INLINE __m256i d16_load2(const uint8_t *a, const uint8_t *b)
{
	return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)a)),
	                               _mm_loadu_si128((const __m128i *)b), 1);
}

/* Add the words x (register order; lanes that hold fewer than 16 bits, so their hi is 0; 0 in
 * the other lanes) at bit 'bits' of each lane: x * 2^bits, its halves to lo and hi. */
static SZ_ALWAYS_INLINE void d16_add(const d16_dk *k, d16_lanes *s, const __m256i x[2])
{
	const __m256i b8 = _mm256_xor_si256(s->bits, k->b8);
	const __m256i q[2] = {_mm256_shuffle_epi8(k->pow, _mm256_unpacklo_epi8(s->bits, b8)),
	                      _mm256_shuffle_epi8(k->pow, _mm256_unpackhi_epi8(s->bits, b8))};
	for (unsigned r = 0; r < 2; r++) {
		s->lo[r] = _mm256_or_si256(s->lo[r], _mm256_mullo_epi16(x[r], q[r]));
		s->hi[r] = _mm256_or_si256(s->hi[r], _mm256_mulhi_epu16(x[r], q[r]));
	}
}

/*
 * Phase A's words for the lanes of m (32 bits, lane order; mv the same as bytes): lane l gets
 * word rank(m, l) at p, by groups of 8 lanes from the group's first word. Reads 32 words at p.
 */
static SZ_ALWAYS_INLINE void d16_refill(const d16_dk *k, d16_lanes *s, uint32_t m, __m256i mv,
                                        const uint8_t *p)
{
	const unsigned m0 = m & 0xFF, m1 = m >> 8 & 0xFF, m2 = m >> 16 & 0xFF, m3 = m >> 24;
	const unsigned o1 = (unsigned)__builtin_popcount(m0);
	const unsigned o2 = o1 + (unsigned)__builtin_popcount(m1);
	const unsigned o3 = o2 + (unsigned)__builtin_popcount(m2);
	const __m256i x[2] = {
	    _mm256_shuffle_epi8(d16_load2(p, p + 2 * o2), d16_load2(d16_ctrl[m0], d16_ctrl[m2])),
	    _mm256_shuffle_epi8(d16_load2(p + 2 * o1, p + 2 * o3),
	                        d16_load2(d16_ctrl[m1], d16_ctrl[m3]))};
	d16_add(k, s, x);
	s->bits = _mm256_add_epi8(s->bits, _mm256_and_si256(mv, k->b16));
}

/* Take n bits (bytes in lane order, 1 to 11 in each lane) from the lanes. */
static SZ_ALWAYS_INLINE void d16_take(const d16_dk *k, d16_lanes *s, __m256i n)
{
	const __m256i pl = _mm256_shuffle_epi8(k->plo, n), ph = _mm256_shuffle_epi8(k->phi, n);
	const __m256i p[2] = {_mm256_unpacklo_epi8(pl, ph), _mm256_unpackhi_epi8(pl, ph)};
	for (unsigned r = 0; r < 2; r++) {
		s->lo[r] = _mm256_or_si256(_mm256_mulhi_epu16(s->lo[r], p[r]),
		                           _mm256_mullo_epi16(s->hi[r], p[r]));
		s->hi[r] = _mm256_mulhi_epu16(s->hi[r], p[r]);
	}
	s->bits = _mm256_sub_epi8(s->bits, n);
}

/* Phase D: the code length and the symbol of each lane's next bits (bytes in lane order); length
 * 0 for a lane the tables do not resolve. */
static SZ_ALWAYS_INLINE void d16_lookup(const d16_dk *k, const d16_lanes *s, __m256i *len,
                                        __m256i *sym)
{
	/* the low bytes of lo, then its high bytes, in each 128-bit half; the halves of the two
	 * registers paired: bits 0-7 and bits 8-15 of each lane, in lane order */
	const __m256i l0 = _mm256_shuffle_epi8(s->lo[0], k->split);
	const __m256i l1 = _mm256_shuffle_epi8(s->lo[1], k->split);
	const __m256i x = _mm256_unpacklo_epi64(l0, l1), h = _mm256_unpackhi_epi64(l0, l1);
	const __m256i n1 = _mm256_and_si256(x, k->b15);
	const __m256i n2 = _mm256_and_si256(_mm256_srli_epi16(x, 4), k->b15);
	const __m256i b3 = _mm256_slli_epi16(x, 4); /* bit 3 of each byte in its sign */
	const __m256i two = _mm256_shuffle_epi8(k->two, n1);
	const __m256i three = _mm256_cmpeq_epi8(_mm256_and_si256(x, k->b127), k->b127);
	const __m256i n3 = _mm256_or_si256(_mm256_and_si256(h, k->b7), _mm256_and_si256(n2, k->b8));
	const __m256i l2 =
	    d16_blend(_mm256_shuffle_epi8(k->len2[0], n2), _mm256_shuffle_epi8(k->len2[1], n2), b3);
	const __m256i s2 =
	    d16_blend(_mm256_shuffle_epi8(k->sym2[0], n2), _mm256_shuffle_epi8(k->sym2[1], n2), b3);
	*len = d16_blend(d16_blend(_mm256_shuffle_epi8(k->len1, n1), l2, two),
	                 _mm256_shuffle_epi8(k->len3, n3), three);
	*sym = d16_blend(d16_blend(_mm256_shuffle_epi8(k->sym1, n1), s2, two),
	                 _mm256_shuffle_epi8(k->sym3, n3), three);
}

/* Lane l of a register pair: register, position. */
#define D16_REG(l) (((l) >> 3) & 1)
#define D16_POS(l) (((l)&7) | ((l) >> 4) << 3)

/* The lanes of the 32-bit mask m as bytes, -1 or 0, in lane order. */
static SZ_ALWAYS_INLINE __m256i d16_mask8(uint32_t m)
{
	const __m256i sel = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
	                                     2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
	const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
	const __m256i b = _mm256_shuffle_epi8(_mm256_set1_epi32((int)m), sel);
	return _mm256_cmpeq_epi8(_mm256_and_si256(b, bit), bit);
}

/* The lanes of the mask m8 (bytes) as they are in s, the others as in b. */
static SZ_ALWAYS_INLINE void d16_keep(d16_lanes *s, const d16_lanes *b, __m256i m8)
{
	const __m256i m0 = _mm256_unpacklo_epi8(m8, m8), m1 = _mm256_unpackhi_epi8(m8, m8);
	s->lo[0] = d16_blend(b->lo[0], s->lo[0], m0);
	s->lo[1] = d16_blend(b->lo[1], s->lo[1], m1);
	s->hi[0] = d16_blend(b->hi[0], s->hi[0], m0);
	s->hi[1] = d16_blend(b->hi[1], s->hi[1], m1);
}

/*
 * The rare paths are functions out of line that take the lanes by value and return what they
 * change: a call clobbers every vector register, and with the state's address taken, or the
 * code inlined into the steps' loop, GCC keeps the lanes in memory throughout the loop. They
 * run outside d16_fast's loop.
 */

/* What d16_full gives back: the lengths and symbols, the lanes that decode the escape symbol. */
typedef struct d16_full_r {
	__m256i len, sym;
	uint32_t esc;
} d16_full_r;

/*
 * The lanes m of len and sym (length 0) from the full table by their next 11 bits (in lo); the
 * lanes of m that decode the escape symbol get their length, their symbol is left for phase R.
 * Four gathers of eight lanes: with a table that puts many codes outside the three levels (a
 * wide spread of exponents), most lanes of most steps come here.
 */
static SZ_NOINLINE d16_full_r d16_full(const splitzip_entropy_dec_tables *t, const d16_lanes s,
                                       uint32_t m, __m256i len, __m256i sym)
{
	const __m256i lmask = _mm256_set1_epi32(SZ_ENTROPY_LUT_SIZE - 1);
	__m256i e[4]; /* lanes 0-7, 8-15, 16-23, 24-31 */
	for (unsigned h = 0; h < 2; h++)
		for (unsigned r = 0; r < 2; r++) {
			const __m128i q = h ? _mm256_extracti128_si256(s.lo[r], 1)
			                    : _mm256_castsi256_si128(s.lo[r]);
			e[2 * h + r] = _mm256_i32gather_epi32(
			    (const int *)t->lut, _mm256_and_si256(_mm256_cvtepu16_epi32(q), lmask),
			    4);
		}
	/* bytes 0 and 2 of the 32 entries (symbol, length) in lane order: vpackusdw and vpackuswb
	 * interleave the 128-bit halves, vpermd puts the dwords back */
	const __m256i ord = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
	const __m256i lo16 = _mm256_set1_epi32(0xFFFF);
	const __m256i sy = _mm256_permutevar8x32_epi32(
	    _mm256_packus_epi16(
	        _mm256_packus_epi32(_mm256_and_si256(e[0], lo16), _mm256_and_si256(e[1], lo16)),
	        _mm256_packus_epi32(_mm256_and_si256(e[2], lo16), _mm256_and_si256(e[3], lo16))),
	    ord); /* 0..255, or 255 for the escape symbol (256, saturated) */
	const __m256i ln = _mm256_permutevar8x32_epi32(
	    _mm256_packus_epi16(
	        _mm256_packus_epi32(_mm256_srli_epi32(e[0], 16), _mm256_srli_epi32(e[1], 16)),
	        _mm256_packus_epi32(_mm256_srli_epi32(e[2], 16), _mm256_srli_epi32(e[3], 16))),
	    ord);
	const __m256i es = _mm256_permutevar8x32_epi32(
	    _mm256_packs_epi16(
	        _mm256_packs_epi32(_mm256_cmpeq_epi32(_mm256_and_si256(e[0], lmask),
	                                              _mm256_set1_epi32(SPLITZIP_ENTROPY_ESC)),
	                           _mm256_cmpeq_epi32(_mm256_and_si256(e[1], lmask),
	                                              _mm256_set1_epi32(SPLITZIP_ENTROPY_ESC))),
	        _mm256_packs_epi32(_mm256_cmpeq_epi32(_mm256_and_si256(e[2], lmask),
	                                              _mm256_set1_epi32(SPLITZIP_ENTROPY_ESC)),
	                           _mm256_cmpeq_epi32(_mm256_and_si256(e[3], lmask),
	                                              _mm256_set1_epi32(SPLITZIP_ENTROPY_ESC)))),
	    ord);
	/* d16_rot of the symbols: bits 1-7 to bits 0-6, bit 0 to bit 7 */
	const __m256i rot = _mm256_or_si256(
	    _mm256_and_si256(_mm256_srli_epi16(sy, 1), _mm256_set1_epi8(0x7F)),
	    _mm256_and_si256(_mm256_slli_epi16(sy, 7), _mm256_set1_epi8((char)0x80)));
	const __m256i m8 = d16_mask8(m);
	d16_full_r r;
	r.len = d16_blend(len, ln, m8);
	r.sym = d16_blend(sym, rot, m8);
	r.esc = m & (uint32_t)_mm256_movemask_epi8(es);
	return r;
}

/* What d16_escapes gives back: the lanes, the symbols, the next unread word, the number of
 * escapes or -1. */
typedef struct d16_esc_r {
	d16_lanes s;
	__m256i sym;
	size_t next;
	int n;
} d16_esc_r;

/*
 * Phases B and R of a step with escapes (lanes esc), with the checks of §4.3.6: a lane that
 * needs a word when none is left (nw words, next the first unread; w holds 32 words from next
 * on, as in a step), an escape of a coded exponent. The raw exponents go to sym.
 */
static SZ_NOINLINE d16_esc_r d16_escapes(const d16_dk *k, d16_lanes s, const uint8_t *w, size_t nw,
                                         size_t next, __m256i sym, uint32_t esc)
{
	const splitzip_entropy_dec_tables *t = k->t;
	d16_esc_r r = {s, sym, next, -1};
	const __m256i e8 = d16_mask8(esc);
	const __m256i rb = _mm256_set1_epi8((char)t->raw_bits);
	const __m256i mb8 = _mm256_and_si256(e8, _mm256_cmpgt_epi8(rb, s.bits));
	const uint32_t mb = (uint32_t)_mm256_movemask_epi8(mb8);
	if (mb) { /* phase B: the words of the escapes that hold too few bits, in lane order */
		const unsigned kb = (unsigned)__builtin_popcount(mb);
		if (kb > nw - next)
			return r;
		d16_refill(k, &s, mb, mb8, w + 2 * next);
		next += kb;
	}
	/* phase R: the raw bits, at most 8, from the low bytes of lo */
	const __m256i l0 = _mm256_shuffle_epi8(s.lo[0], k->split);
	const __m256i l1 = _mm256_shuffle_epi8(s.lo[1], k->split);
	const __m256i x = _mm256_and_si256(_mm256_unpacklo_epi64(l0, l1),
	                                   _mm256_set1_epi8((char)((1u << t->raw_bits) - 1)));
	uint8_t xs[32];
	_mm256_storeu_si256((__m256i *)xs, x);
	for (uint32_t m = esc; m; m &= m - 1)
		if (t->coded[xs[__builtin_ctz(m)]]) /* §4.3.6: an escape of a coded exponent */
			return r;
	const d16_lanes before = s;
	d16_take(k, &s, _mm256_and_si256(e8, rb));
	d16_keep(&s, &before, e8); /* length 0 would zero the other lanes */
	/* d16_rot of x: its bits 1-7 to bits 0-6, bit 0 to bit 7 */
	const __m256i xr = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(x, 1), k->b127),
	                                   _mm256_and_si256(_mm256_slli_epi16(x, 7), k->b128));
	r.s = s;
	r.sym = d16_blend(sym, xr, e8);
	r.next = next;
	r.n = __builtin_popcount(esc);
	return r;
}

/* 32 elements from their exponents x (d16_rot: bit 0 in bit 7, bits 1-7 in bits 0-6) and
 * sign/mantissa bytes sm: low byte sm & 0x7F | x & 0x80, high byte sm & 0x80 | x & 0x7F,
 * interleaved; the first m if partial. */
static SZ_ALWAYS_INLINE void d16_join(const d16_dk *k, __m256i x, const uint8_t *sm, uint16_t *dst,
                                      const int partial, unsigned m)
{
	uint8_t sbuf[SPLITZIP_ENTROPY_LANES] = {0};
	uint16_t obuf[SPLITZIP_ENTROPY_LANES];
	if (partial)
		memcpy(sbuf, sm, m);
	const __m256i s = _mm256_loadu_si256((const __m256i *)(partial ? sbuf : sm));
	const __m256i d = _mm256_and_si256(_mm256_xor_si256(s, x), k->b128); /* where they differ */
	const __m256i lo = _mm256_xor_si256(s, d), hi = _mm256_xor_si256(x, d);
	const __m256i u0 = _mm256_unpacklo_epi8(lo, hi), u1 = _mm256_unpackhi_epi8(lo, hi);
	uint16_t *o = partial ? obuf : dst;
	_mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(u0, u1, 0x20));
	_mm256_storeu_si256((__m256i *)(o + 16), _mm256_permute2x128_si256(u0, u1, 0x31));
	if (partial)
		memcpy(dst, obuf, 2 * (size_t)m);
}

/* The lanes of a partial step of m: bytes -1 for lane l < m (or for every lane). */
static SZ_ALWAYS_INLINE __m256i d16_active(const int partial, unsigned m)
{
	if (!partial)
		return _mm256_set1_epi8(-1);
	return _mm256_cmpgt_epi8(_mm256_set1_epi8((char)m),
	                         _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	                                          15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
	                                          27, 28, 29, 30, 31));
}

/*
 * Phases A and D of a step of a chunk (words w, nw of them, next the first unread; the lanes
 * act, see d16_step): the refill, and each lane's code length and symbol; '*full' gets the
 * active lanes that the tables do not resolve. 'checked': fewer than 64 words may be left
 * (then w is a zero-padded copy, so the 32 words read at next exist). -1 if the chunk is
 * invalid, else 0.
 */
static SZ_ALWAYS_INLINE int d16_ad(const d16_dk *k, d16_lanes *s, const uint8_t *w, size_t nw,
                                   size_t *next, const int checked, const int partial, __m256i act,
                                   __m256i *len, __m256i *sym, uint32_t *full)
{
	__m256i ma = _mm256_cmpgt_epi8(k->b11, s->bits);
	if (partial)
		ma = _mm256_and_si256(ma, act);
	const uint32_t a = (uint32_t)_mm256_movemask_epi8(ma);
	const unsigned ka = (unsigned)__builtin_popcount(a);
	if (checked && ka > nw - *next)
		return -1; /* §4.3.6 rule 4: a lane needs a word and none is left */
	d16_refill(k, s, a, ma, w + 2 * *next); /* phase A */
	*next += ka;
	d16_lookup(k, s, len, sym); /* phase D */
	*full = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(*len, _mm256_setzero_si256()));
	if (partial)
		*full &= (uint32_t)_mm256_movemask_epi8(act);
	return 0;
}

/* The rest of a step after d16_ad: the full table for the lanes 'full', the lengths taken,
 * phases B and R, the join. Returns the step's escape count, or -1 if the chunk is invalid. */
static SZ_ALWAYS_INLINE int d16_rest(const d16_dk *k, d16_lanes *s, const uint8_t *w, size_t nw,
                                     size_t *next, const uint8_t *sm, uint16_t *dst,
                                     const int partial, unsigned m, __m256i act, __m256i len,
                                     __m256i sym, uint32_t full)
{
	uint32_t esc = 0;
	if (SZ_UNLIKELY(full)) {
		const d16_full_r f = d16_full(k->t, *s, full, len, sym);
		len = f.len;
		sym = f.sym;
		esc = f.esc;
	}
	if (partial) { /* inactive lanes take nothing (length 0 would zero them) */
		const d16_lanes before = *s;
		d16_take(k, s, _mm256_and_si256(len, act));
		d16_keep(s, &before, act);
	} else {
		d16_take(k, s, len);
	}
	int n_esc = 0;
	if (SZ_UNLIKELY(esc)) { /* phases B and R */
		const d16_esc_r r = d16_escapes(k, *s, w, nw, *next, sym, esc);
		if (r.n < 0)
			return -1;
		*s = r.s;
		sym = r.sym;
		*next = r.next;
		n_esc = r.n;
	}
	d16_join(k, sym, sm, dst, partial, m);
	return n_esc;
}

/*
 * One step of a chunk (words w, nw of them, next the first unread): 32 elements, or with
 * 'partial' the first m (the other lanes left as they are). 'checked' as for d16_ad. Returns
 * the step's escape count, or -1 if the chunk is invalid.
 */
static SZ_ALWAYS_INLINE int d16_step(const d16_dk *k, d16_lanes *s, const uint8_t *w, size_t nw,
                                     size_t *next, const uint8_t *sm, uint16_t *dst,
                                     const int checked, const int partial, unsigned m)
{
	const __m256i act = d16_active(partial, m);
	__m256i len, sym;
	uint32_t full;
	if (d16_ad(k, s, w, nw, next, checked, partial, act, &len, &sym, &full) < 0)
		return -1;
	return d16_rest(k, s, w, nw, next, sm, dst, partial, m, act, len, sym, full);
}

/*
 * The chunks of a group (one or two) step by step, with nothing but the common path in the
 * loop: the lanes of each chunk in locals, no call, no rare path inlined, so that GCC keeps
 * the state of both chunks in the sixteen registers. A step that needs the full table (or an
 * escape) leaves the loop in its middle; d16_group finishes it.
 */
typedef struct d16_run {
	d16_lanes s[2];
	size_t next[2], x[2];   /* x: the escapes so far */
	size_t i;               /* the first element of the next step */
	__m256i len[2], sym[2]; /* leaving in the middle of a step: the lookups of its chunks */
	uint32_t full[2];
} d16_run;

/* The lanes whose next bits are the escape symbol's code, as bytes (-1) in lane order. */
static SZ_ALWAYS_INLINE __m256i d16_esc8(const d16_dk *k, const d16_lanes *s)
{
	return _mm256_packs_epi16(
	    _mm256_cmpeq_epi16(_mm256_and_si256(s->lo[0], k->emask), k->epat),
	    _mm256_cmpeq_epi16(_mm256_and_si256(s->lo[1], k->emask), k->epat));
}

/*
 * Phases B and R of a step whose lanes e8 (bytes) decode the escape symbol, inside d16_fast (so
 * vector code only; at least 32 words left at next): the words of the escapes that hold too
 * few bits, the raw bits to sym (d16_rot). Returns -1 if one of them is the exponent of a code
 * (§4.3.6), else 0.
 */
static SZ_ALWAYS_INLINE int d16_esc_fast(const d16_dk *k, d16_lanes *s, const uint8_t *w,
                                         size_t *next, __m256i *sym, __m256i e8)
{
	const __m256i mb8 = _mm256_and_si256(e8, _mm256_cmpgt_epi8(k->rb, s->bits));
	const uint32_t mb = (uint32_t)_mm256_movemask_epi8(mb8);
	if (mb) { /* phase B */
		d16_refill(k, s, mb, mb8, w + 2 * *next);
		*next += (unsigned)__builtin_popcount(mb);
	}
	const __m256i l0 = _mm256_shuffle_epi8(s->lo[0], k->split);
	const __m256i l1 = _mm256_shuffle_epi8(s->lo[1], k->split);
	const __m256i x = _mm256_and_si256(_mm256_unpacklo_epi64(l0, l1), k->rmask);
	/* coded[x]: bit x % 8 of byte x / 8 of the bitmap */
	const __m256i q = _mm256_and_si256(_mm256_srli_epi16(x, 3), _mm256_set1_epi8(31));
	const __m256i byte =
	    d16_blend(_mm256_shuffle_epi8(k->coded[0], q), _mm256_shuffle_epi8(k->coded[1], q),
	              _mm256_slli_epi16(q, 3));
	const __m256i bit = _mm256_shuffle_epi8(k->pow, _mm256_and_si256(x, k->b7));
	const __m256i hit = _mm256_cmpeq_epi8(_mm256_and_si256(byte, bit), bit);
	if (_mm256_movemask_epi8(_mm256_and_si256(hit, e8)))
		return -1;
	const d16_lanes before = *s;
	d16_take(k, s, _mm256_and_si256(e8, k->rb));
	d16_keep(s, &before, e8); /* length 0 would zero the other lanes */
	const __m256i xr = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(x, 1), k->b127),
	                                   _mm256_and_si256(_mm256_slli_epi16(x, 7), k->b128));
	*sym = d16_blend(*sym, xr, e8);
	return 0;
}

/*
 * The rest of a step in d16_fast after d16_ad: 0 when done (escapes included, counted in *x),
 * 1 when a lane needs the full table (the step left as d16_ad left it), 2 for an escape of a
 * coded exponent.
 */
static SZ_ALWAYS_INLINE unsigned d16_fast_rest(const d16_dk *k, d16_lanes *s, const uint8_t *w,
                                               size_t *next, const uint8_t *sm, uint16_t *dst,
                                               __m256i len, __m256i sym, uint32_t full, size_t *x)
{
	if (SZ_UNLIKELY(full)) {
		const __m256i e8 = d16_esc8(k, s);
		const uint32_t esc = (uint32_t)_mm256_movemask_epi8(e8);
		if (full & ~esc)
			return 1;
		d16_take(k, s, d16_blend(len, k->elen, e8));
		if (d16_esc_fast(k, s, w, next, &sym, e8) < 0)
			return 2;
		*x += (unsigned)__builtin_popcount(esc);
	} else {
		d16_take(k, s, len);
	}
	d16_join(k, sym, sm, dst, 0, 0);
	return 0;
}

/* Steps from r->i on while each chunk has at least 64 words left and r->i < end. Returns 0;
 * 1 + j when chunk j's step needs the full table (the chunks from j on are left after their
 * phases A and D, those before it are done with the step); 3 if a chunk is invalid. */
static SZ_ALWAYS_INLINE unsigned d16_fast(const d16_dk *k, const splitzip_entropy_chunk *c,
                                          d16_run *r, size_t end, const unsigned J)
{
	const __m256i all = _mm256_set1_epi8(-1);
	d16_lanes s0 = r->s[0], s1 = r->s[1];
	size_t n0 = r->next[0], n1 = r->next[1], x0 = r->x[0], x1 = r->x[1], i = r->i;
	unsigned out = 0;
	__m256i len0 = all, sym0 = all, len1 = all, sym1 = all;
	uint32_t full0 = 0, full1 = 0;
	for (; i < end; i += SPLITZIP_ENTROPY_LANES) {
		if (c[0].n_words - n0 < SPLITZIP_ENTROPY_STEP_WORDS_MAX ||
		    (J > 1 && c[1].n_words - n1 < SPLITZIP_ENTROPY_STEP_WORDS_MAX))
			break;
		/* the phases of the two chunks in turn: their chains are independent */
		d16_ad(k, &s0, c[0].words, c[0].n_words, &n0, 0, 0, all, &len0, &sym0, &full0);
		if (J > 1)
			d16_ad(k, &s1, c[1].words, c[1].n_words, &n1, 0, 0, all, &len1, &sym1,
			       &full1);
		unsigned e = d16_fast_rest(k, &s0, c[0].words, &n0, c[0].sm + i, c[0].dst + i, len0,
		                           sym0, full0, &x0);
		if (SZ_UNLIKELY(e)) {
			out = e == 1 ? 1 : 3;
			break;
		}
		if (J > 1) {
			e = d16_fast_rest(k, &s1, c[1].words, &n1, c[1].sm + i, c[1].dst + i, len1,
			                  sym1, full1, &x1);
			if (SZ_UNLIKELY(e)) {
				out = e == 1 ? 2 : 3;
				break;
			}
		}
	}
	if (out) {
		r->len[0] = len0;
		r->sym[0] = sym0;
		r->full[0] = full0;
		r->len[1] = len1;
		r->sym[1] = sym1;
		r->full[1] = full1;
	}
	r->s[0] = s0;
	r->s[1] = s1;
	r->next[0] = n0;
	r->next[1] = n1;
	r->x[0] = x0;
	r->x[1] = x1;
	r->i = i;
	return out;
}

static SZ_NOINLINE unsigned d16_fast1(const d16_dk *k, const splitzip_entropy_chunk *c, d16_run *r,
                                      size_t end)
{
	return d16_fast(k, c, r, end, 1);
}

static SZ_NOINLINE unsigned d16_fast2(const d16_dk *k, const splitzip_entropy_chunk *c, d16_run *r,
                                      size_t end)
{
	return d16_fast(k, c, r, end, 2);
}

/* Fewer than 64 words left: go on from a zero-padded copy of them, so that a step may read 64
 * words past any position the checks allow. */
#define D16_TAIL_WORDS (4 * SPLITZIP_ENTROPY_LANES)

/*
 * The steps of a chunk from element i on (n_esc escapes so far, the lanes s, next the first
 * unread of its nw words at w), its last partial step and the checks at its end (§4.3.6).
 */
static splitzip_status d16_finish(const d16_dk *k, const d16_lanes *s0, const uint8_t *w, size_t nw,
                                  size_t next, const uint8_t *sm, size_t n, uint16_t *dst, size_t i,
                                  size_t n_esc, size_t *n_escapes)
{
	uint8_t tail[2 * D16_TAIL_WORDS];
	d16_lanes s = *s0;
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
		                  ? d16_step(k, &s, w, nw, &next, sm + i, dst + i, 0, 0, 0)
		                  : d16_step(k, &s, w, nw, &next, sm + i, dst + i, 1, 0, 0);
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
		    d16_step(k, &s, w, nw, &next, sm + i, dst + i, 1, 1, (unsigned)(n - i));
		if (e < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		n_esc += (size_t)e;
	}
	/* §4.3.6: every word read, every bit left in a lane zero. */
	const __m256i left =
	    _mm256_or_si256(_mm256_or_si256(s.lo[0], s.lo[1]), _mm256_or_si256(s.hi[0], s.hi[1]));
	if (next != nw || !_mm256_testz_si256(left, left))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	*n_escapes = n_esc;
	return SPLITZIP_OK;
}

/* The steps of one or two chunks (J) from element 0 to 'end' (a multiple of 32) while each
 * has at least 64 words left: d16_fast, and the steps it leaves in their middle. r->x[j] gets
 * chunk j's escapes. -1 if a chunk is invalid. */
static SZ_ALWAYS_INLINE int d16_group(const d16_dk *k, const splitzip_entropy_chunk *c, d16_run *r,
                                      size_t end, const unsigned J)
{
	const __m256i all = _mm256_set1_epi8(-1);
	const __m256i z = _mm256_setzero_si256();
	for (unsigned j = 0; j < 2; j++) {
		r->s[j] = (d16_lanes){{z, z}, {z, z}, z};
		r->next[j] = r->x[j] = 0;
	}
	r->i = 0;
	for (;;) {
		const unsigned out = J > 1 ? d16_fast2(k, c, r, end) : d16_fast1(k, c, r, end);
		if (!out)
			return 0;
		if (out > J)
			return -1;
		const size_t i = r->i;
		for (unsigned j = out - 1; j < J; j++) { /* the chunks left after their phase D */
			const splitzip_entropy_chunk *cj = &c[j];
			const int e =
			    d16_rest(k, &r->s[j], cj->words, cj->n_words, &r->next[j], cj->sm + i,
			             cj->dst + i, 0, 0, all, r->len[j], r->sym[j], r->full[j]);
			if (e < 0)
				return -1;
			r->x[j] += (size_t)e;
		}
		r->i = i + SPLITZIP_ENTROPY_LANES;
	}
}

static splitzip_status avx2_entropy_decode_chunk(const splitzip_entropy_dec_tables *t,
                                                 const uint8_t *words, size_t n_words,
                                                 const uint8_t *sm, size_t n, uint16_t *dst,
                                                 size_t *n_escapes)
{
	d16_dk kk;
	const d16_dk *k = d16_init(&kk, t);
	const splitzip_entropy_chunk c = {words, n_words, sm, n, dst, 0};
	d16_run r;
	if (d16_group(k, &c, &r, n - n % SPLITZIP_ENTROPY_LANES, 1) < 0)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	return d16_finish(k, &r.s[0], words, n_words, r.next[0], sm, n, dst, r.i, r.x[0],
	                  n_escapes);
}

/* Two chunks, step by step while both have at least 64 words left; then each alone. */
static splitzip_status avx2_entropy_decode_pair(const splitzip_entropy_dec_tables *t,
                                                splitzip_entropy_chunk c[2])
{
	d16_dk kk;
	const d16_dk *k = d16_init(&kk, t);
	const size_t n = c[0].n < c[1].n ? c[0].n : c[1].n;
	d16_run r;
	if (d16_group(k, c, &r, n - n % SPLITZIP_ENTROPY_LANES, 2) < 0)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	for (unsigned j = 0; j < 2; j++) {
		const splitzip_status st =
		    d16_finish(k, &r.s[j], c[j].words, c[j].n_words, r.next[j], c[j].sm, c[j].n,
		               c[j].dst, r.i, r.x[j], &c[j].n_escapes);
		if (st != SPLITZIP_OK)
			return st;
	}
	return SPLITZIP_OK;
}

#undef D16_TAIL_WORDS
#undef D16_REG
#undef D16_POS
#undef D16_CTRL
#undef D16_CTRL_LANE
