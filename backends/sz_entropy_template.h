/*
 * sz_entropy_template.h -- the mode-2 chunk kernels (doc/FORMAT.md §4.3.5) of the SIMD backends,
 * written once for any ISA: the 32 lanes of a chunk as SZ_ENT_NV vectors of SZ_ENT_W u32
 * lanes (8 x 4 on NEON), the phases of a step, escapes, the last (partial) step, the words at
 * the end of a chunk and the checks of §4.3.6.
 *
 * A template in the manner of sz_chunk_template.h: a backend defines the vector type, the
 * per-lane operations and four ISA kernels (below), then includes this file, which defines the
 * static kernel table entries SZ_ENT_PREFIX##_entropy_encode_chunk, ##_entropy_decode_chunk and
 * ##_entropy_decode_pair (two chunks whose steps are interleaved). NEON includes it. AVX2 and
 * AVX-512 have their own encoders and decoders of the same design in 16-bit lanes
 * (backends/cpu_avx2/sz_avx2_entropy_enc.h, sz_avx2_entropy_dec.h, and the same under
 * cpu_avx512/) and do not include it; this file's comments explain the design for all.
 *
 * Parameters:
 *   SZ_ENT_PREFIX      name prefix
 *   SZ_ENT_W           u32 lanes per vector (16, 8, 4); SZ_ENT_NV = 32 / SZ_ENT_W vectors
 *   SZ_EV              the vector type (SZ_ENT_W lanes of u32)
 *   SZ_EM              a mask of SZ_ENT_W lanes (a k-mask, or a vector of all-ones lanes)
 *   SZ_ES              the decoded exponents of a step, in the ISA's own form
 *   SZ_ENT_DK, SZ_ENT_EK   the decoder's and the encoder's constants (tables in registers)
 * Operations (static inline functions or macros; every value compared is below 2^31):
 *   ev_set1(x), ev_add(a, b), ev_sub(a, b), ev_and(a, b), ev_or(a, b), ev_sllv(a, n),
 *   ev_srlv(a, n), ev_srli(a, imm), ev_slli(a, imm); ev_lt(a, b), ev_eq(a, b) -> SZ_EM;
 *   em_and(a, b); ev_maskz(m, a) (m ? a : 0), ev_sel(m, a, b) (m ? a : b); em_bits(m) ->
 *   unsigned, bit j for lane j; em_bits32(const SZ_EM m[NV]) -> uint32_t, bit l for lane l of
 *   the 32; ev_iota(v) -> the lane numbers v * SZ_ENT_W + j; ev_storeu(uint32_t *p, a),
 *   ev_loadu(const uint32_t *p).
 * ISA kernels ("lane l" is lane l of the 32; vector v holds lanes v * SZ_ENT_W ...):
 *   ent_words(SZ_EV w[NV], uint32_t m, const uint8_t *p): lane l gets the u16 word number
 *       popcount(m & ((1 << l) - 1)) at p (little-endian) if bit l of m is set, else 0.
 *       May read up to 32 words at p, not more.
 *   ent_ranks(SZ_EV r[NV], uint32_t m, uint32_t base): lane l gets base + popcount(m & ((1 << l)
 *       - 1)) if bit l of m is set (other lanes: anything).
 *   unsigned ent_compact(uint32_t *out, const SZ_EV v[NV], uint32_t m): the lanes of m, in
 *       order, to out[0, popcount(m)); returns popcount(m). May write anything to out[32 + 8).
 *   ent_dec_init(SZ_ENT_DK *k, const splitzip_entropy_dec_tables *t)
 *   uint32_t ent_dec_lookup(const SZ_ENT_DK *k, const SZ_EV buf[NV], SZ_EV len[NV], SZ_ES *x):
 *       for each lane, the symbol whose code starts the low 11 bits of buf (lut of t): its
 *       code length to len, the symbol's low 8 bits to x; returns the lanes whose symbol is
 *       the escape.
 *   ent_sym_merge(SZ_ES *x, const uint32_t v[32], uint32_t m): lane l of x gets v[l] for the
 *       lanes of m (escapes: rare).
 *   ent_join(const SZ_ES *x, const uint8_t *sm, uint16_t *dst): 32 elements from the exponents x
 *       and 32 sign/mantissa bytes.
 *   ent_enc_init(SZ_ENT_EK *k, const splitzip_entropy_enc_tables *t)
 *   ent_enc_in(const SZ_ENT_EK *k, const uint16_t *src, uint8_t *sm, SZ_EV ent[NV]): 32
 *       elements: their sign/mantissa bytes to sm, the entry of each exponent (sz_ent_e16(
 *       t->sym[e]): code | length << 11 | escape << 15) to its lane.
 */
#if !defined(SZ_ENT_PREFIX) || !defined(SZ_ENT_W) || !defined(SZ_EV) || !defined(SZ_EM) ||         \
    !defined(SZ_ES) || !defined(SZ_ENT_DK) || !defined(SZ_ENT_EK)
#error "sz_entropy_template.h: a parameter is missing (see the list at the top)"
#endif

#include "sz_simd_common.h"

#define SZ_EN(name) SZ_PASTE(SZ_ENT_PREFIX, name)
#define SZ_ENT_NV (SPLITZIP_ENTROPY_LANES / SZ_ENT_W)

/* Lanes of a partial step: lane j < m active. */
static SZ_ALWAYS_INLINE void SZ_EN(ent_active)(SZ_EM act[SZ_ENT_NV], unsigned m)
{
	for (unsigned v = 0; v < SZ_ENT_NV; v++)
		act[v] = ev_lt(ev_iota(v), ev_set1(m));
}

/* ---- Decode -------------------------------------------------------------------------------- */

/* The lanes of a chunk's decoder (FORMAT.md §4.3.5) and its words. */
typedef struct SZ_EN(ent_dec) {
	SZ_EV buf[SZ_ENT_NV], bits[SZ_ENT_NV];
	const uint8_t *w; /* the words; after ent_dec_tail, a zero-padded copy of the last ones */
	size_t nw, next;
} SZ_EN(ent_dec);

/* Read a word for every lane of mask m (masks per vector mv): at most 32 words, lane order. */
static SZ_ALWAYS_INLINE int SZ_EN(ent_dec_read)(SZ_EN(ent_dec) * d, const SZ_EM mv[SZ_ENT_NV],
                                                uint32_t m, const int checked)
{
	const unsigned k = (unsigned)__builtin_popcount(m);
	if (checked && k > d->nw - d->next)
		return 0; /* §4.3.6 rule 4: a lane needs a word and none is left */
	SZ_EV w[SZ_ENT_NV];
	ent_words(w, m, d->w + 2 * d->next);
	d->next += k;
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		d->buf[v] = ev_or(d->buf[v], ev_sllv(w[v], d->bits[v]));
		d->bits[v] =
		    ev_add(d->bits[v], ev_maskz(mv[v], ev_set1(SPLITZIP_ENTROPY_WORD_BITS)));
	}
	return 1;
}

/*
 * Phases B and R of a step with escapes (lanes esc): the reads before the raw bits, the raw
 * exponents into sym, and the check that none of them has a code of its own. Returns the
 * number of escapes, or -1 if the chunk is invalid.
 */
static SZ_ALWAYS_INLINE int SZ_EN(ent_dec_escapes)(const splitzip_entropy_dec_tables *t,
                                                   SZ_EN(ent_dec) * d, SZ_ES *sym, uint32_t esc,
                                                   const int checked)
{
	SZ_EM me[SZ_ENT_NV], mb[SZ_ENT_NV];
	uint32_t b = 0;
	const SZ_EV rb = ev_set1(t->raw_bits), rmask = ev_set1((1u << t->raw_bits) - 1);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		me[v] = ev_lt(ev_set1(0), ev_and(ev_srlv(ev_set1(esc), ev_iota(v)), ev_set1(1)));
		mb[v] =
		    em_and(me[v], ev_lt(d->bits[v], rb)); /* the refill threshold is the width */
	}
	b = em_bits32(mb);
	if (b && !SZ_EN(ent_dec_read)(d, mb, b, checked))
		return -1;
	uint32_t x[SPLITZIP_ENTROPY_LANES];
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		ev_storeu(x + v * SZ_ENT_W, ev_and(d->buf[v], rmask));
		d->buf[v] = ev_sel(me[v], ev_srlv(d->buf[v], rb), d->buf[v]);
		d->bits[v] = ev_sub(d->bits[v], ev_maskz(me[v], rb));
	}
	for (uint32_t m = esc; m; m &= m - 1)
		if (t->coded[x[__builtin_ctz(m)]]) /* §4.3.6: an escape of a coded exponent */
			return -1;
	ent_sym_merge(sym, x, esc);
	return __builtin_popcount(esc);
}

/*
 * One step: 32 elements (or, 'partial', the first m of them, the other lanes left as they
 * are). 'checked': the chunk may have fewer than 64 words left. Returns the step's escape
 * count, or -1 if the chunk is invalid.
 */
static SZ_ALWAYS_INLINE int SZ_EN(ent_dec_step)(const splitzip_entropy_dec_tables *t,
                                                const SZ_ENT_DK *k, SZ_EN(ent_dec) * d,
                                                const uint8_t *sm, uint16_t *dst, const int checked,
                                                const int partial, unsigned m)
{
	SZ_EM act[SZ_ENT_NV], ma[SZ_ENT_NV];
	if (partial)
		SZ_EN(ent_active)(act, m);
	uint32_t a = 0;
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		ma[v] = ev_lt(d->bits[v], ev_set1(SPLITZIP_ENTROPY_REFILL_SYMBOL));
		if (partial)
			ma[v] = em_and(ma[v], act[v]);
	}
	a = em_bits32(ma);
	if (!SZ_EN(ent_dec_read)(d, ma, a, checked)) /* phase A */
		return -1;
	SZ_EV len[SZ_ENT_NV];
	SZ_ES sym;
	uint32_t esc = ent_dec_lookup(k, d->buf, len, &sym); /* phase D */
	if (partial)
		esc &= (uint32_t)(((uint64_t)1 << m) - 1);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		if (partial)
			len[v] = ev_maskz(act[v], len[v]);
		d->buf[v] = ev_srlv(d->buf[v], len[v]);
		d->bits[v] = ev_sub(d->bits[v], len[v]);
	}
	int n_esc = 0;
	if (SZ_UNLIKELY(esc)) { /* phases B and R */
		n_esc = SZ_EN(ent_dec_escapes)(t, d, &sym, esc, checked);
		if (n_esc < 0)
			return -1;
	}
	if (partial) {
		uint8_t sbuf[SPLITZIP_ENTROPY_LANES] = {0};
		uint16_t obuf[SPLITZIP_ENTROPY_LANES];
		memcpy(sbuf, sm, m);
		ent_join(&sym, sbuf, obuf);
		memcpy(dst, obuf, 2 * (size_t)m);
	} else {
		ent_join(&sym, sm, dst);
	}
	return n_esc;
}

/* Fewer than 64 words left: go on from a zero-padded copy of them, so that the kernels may
 * read 64 words past any position the checks allow (at most 128 in all). */
#define SZ_ENT_TAIL_WORDS (4 * SPLITZIP_ENTROPY_LANES)
static SZ_ALWAYS_INLINE void SZ_EN(ent_dec_tail)(SZ_EN(ent_dec) * d, uint8_t *tail)
{
	const size_t rem = d->nw - d->next;
	memset(tail, 0, 2 * SZ_ENT_TAIL_WORDS);
	memcpy(tail, d->w + 2 * d->next, 2 * rem);
	d->w = tail;
	d->nw = rem;
	d->next = 0;
}

static SZ_ALWAYS_INLINE void SZ_EN(ent_dec_start)(SZ_EN(ent_dec) * d, const uint8_t *words,
                                                  size_t n_words)
{
	for (unsigned v = 0; v < SZ_ENT_NV; v++)
		d->buf[v] = d->bits[v] = ev_set1(0);
	d->w = words;
	d->nw = n_words;
	d->next = 0;
}

/*
 * The steps of a chunk from element i on (n_esc escapes so far, at least 64 words left unless
 * i = 0), its last partial step and the checks at its end (§4.3.6).
 */
static splitzip_status SZ_EN(ent_dec_finish)(const splitzip_entropy_dec_tables *t,
                                             const SZ_ENT_DK *k, SZ_EN(ent_dec) * d,
                                             const uint8_t *sm, size_t n, uint16_t *dst, size_t i,
                                             size_t n_esc, size_t *n_escapes)
{
	uint8_t tail[2 * SZ_ENT_TAIL_WORDS];
	int checked = 0;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	for (; i < full; i += SPLITZIP_ENTROPY_LANES) {
		if (SZ_UNLIKELY(!checked && d->nw - d->next < SPLITZIP_ENTROPY_STEP_WORDS_MAX)) {
			SZ_EN(ent_dec_tail)(d, tail);
			checked = 1;
		}
		const int e = SZ_LIKELY(!checked)
		                  ? SZ_EN(ent_dec_step)(t, k, d, sm + i, dst + i, 0, 0, 0)
		                  : SZ_EN(ent_dec_step)(t, k, d, sm + i, dst + i, 1, 0, 0);
		if (e < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		n_esc += (size_t)e;
	}
	if (i < n) { /* the last, partial step: checked, from the copy if few words are left */
		if (!checked && d->nw - d->next < SPLITZIP_ENTROPY_STEP_WORDS_MAX)
			SZ_EN(ent_dec_tail)(d, tail);
		const int e =
		    SZ_EN(ent_dec_step)(t, k, d, sm + i, dst + i, 1, 1, (unsigned)(n - i));
		if (e < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		n_esc += (size_t)e;
	}
	/* §4.3.6: every word read, every bit left in a lane zero. */
	SZ_EV left = ev_set1(0);
	for (unsigned v = 0; v < SZ_ENT_NV; v++)
		left = ev_or(left, d->buf[v]);
	if (d->next != d->nw || em_bits(ev_eq(left, ev_set1(0))) != (1u << SZ_ENT_W) - 1)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	*n_escapes = n_esc;
	return SPLITZIP_OK;
}

static splitzip_status SZ_EN(entropy_decode_chunk)(const splitzip_entropy_dec_tables *t,
                                                   const uint8_t *words, size_t n_words,
                                                   const uint8_t *sm, size_t n, uint16_t *dst,
                                                   size_t *n_escapes)
{
	SZ_EN(ent_dec) d;
	SZ_ENT_DK k;
	ent_dec_init(&k, t);
	SZ_EN(ent_dec_start)(&d, words, n_words);
	return SZ_EN(ent_dec_finish)(t, &k, &d, sm, n, dst, 0, 0, n_escapes);
}

/*
 * One full step of two chunks, both with at least 64 words left, phase by phase: the two
 * dependency chains (a lane's bits -> its refill -> its lookup -> its bits) are independent,
 * and with their instructions interleaved the out-of-order core keeps both in flight. e[j]
 * gets chunk j's escape count, or -1 if it is invalid.
 */
static SZ_ALWAYS_INLINE void SZ_EN(ent_dec_step2)(const splitzip_entropy_dec_tables *t,
                                                  const SZ_ENT_DK *k, SZ_EN(ent_dec) d[2],
                                                  const uint8_t *const sm[2],
                                                  uint16_t *const dst[2], int e[2])
{
	SZ_EM ma[2][SZ_ENT_NV];
	SZ_EV w[2][SZ_ENT_NV], len[2][SZ_ENT_NV];
	SZ_ES sym[2];
	uint32_t a[2], esc[2];
	for (unsigned j = 0; j < 2; j++)
		for (unsigned v = 0; v < SZ_ENT_NV; v++)
			ma[j][v] = ev_lt(d[j].bits[v], ev_set1(SPLITZIP_ENTROPY_REFILL_SYMBOL));
	for (unsigned j = 0; j < 2; j++)
		a[j] = em_bits32(ma[j]);
	for (unsigned j = 0; j < 2; j++) { /* phase A */
		ent_words(w[j], a[j], d[j].w + 2 * d[j].next);
		d[j].next += (unsigned)__builtin_popcount(a[j]);
	}
	for (unsigned j = 0; j < 2; j++)
		for (unsigned v = 0; v < SZ_ENT_NV; v++) {
			d[j].buf[v] = ev_or(d[j].buf[v], ev_sllv(w[j][v], d[j].bits[v]));
			d[j].bits[v] = ev_add(
			    d[j].bits[v], ev_maskz(ma[j][v], ev_set1(SPLITZIP_ENTROPY_WORD_BITS)));
		}
	for (unsigned j = 0; j < 2; j++) /* phase D */
		esc[j] = ent_dec_lookup(k, d[j].buf, len[j], &sym[j]);
	for (unsigned j = 0; j < 2; j++)
		for (unsigned v = 0; v < SZ_ENT_NV; v++) {
			d[j].buf[v] = ev_srlv(d[j].buf[v], len[j][v]);
			d[j].bits[v] = ev_sub(d[j].bits[v], len[j][v]);
		}
	for (unsigned j = 0; j < 2; j++) { /* phases B and R */
		e[j] = 0;
		if (SZ_UNLIKELY(esc[j]))
			e[j] = SZ_EN(ent_dec_escapes)(t, &d[j], &sym[j], esc[j], 0);
	}
	for (unsigned j = 0; j < 2; j++)
		ent_join(&sym[j], sm[j], dst[j]);
}

static splitzip_status SZ_EN(entropy_decode_pair)(const splitzip_entropy_dec_tables *t,
                                                  splitzip_entropy_chunk c[2])
{
	SZ_EN(ent_dec) d[2];
	SZ_ENT_DK k;
	ent_dec_init(&k, t);
	SZ_EN(ent_dec_start)(&d[0], c[0].words, c[0].n_words);
	SZ_EN(ent_dec_start)(&d[1], c[1].words, c[1].n_words);
	const size_t n = c[0].n < c[1].n ? c[0].n : c[1].n;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	size_t i = 0, x[2] = {0, 0};
	for (; i < full; i += SPLITZIP_ENTROPY_LANES) {
		if (d[0].nw - d[0].next < SPLITZIP_ENTROPY_STEP_WORDS_MAX ||
		    d[1].nw - d[1].next < SPLITZIP_ENTROPY_STEP_WORDS_MAX)
			break; /* one of them is near its end: each goes on alone */
		const uint8_t *const sm[2] = {c[0].sm + i, c[1].sm + i};
		uint16_t *const dst[2] = {c[0].dst + i, c[1].dst + i};
		int e[2];
		SZ_EN(ent_dec_step2)(t, &k, d, sm, dst, e);
		if ((e[0] | e[1]) < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		x[0] += (size_t)e[0];
		x[1] += (size_t)e[1];
	}
	for (unsigned j = 0; j < 2; j++) {
		splitzip_status st = SZ_EN(ent_dec_finish)(t, &k, &d[j], c[j].sm, c[j].n, c[j].dst,
		                                           i, x[j], &c[j].n_escapes);
		if (st != SPLITZIP_OK)
			return st;
	}
	return SPLITZIP_OK;
}

/* Completed words stored per step without a loop, and the bias of a slot in an entry. */
#define SZ_ENT_STORES 8u
#define SZ_ENT_SLOT_BIAS 32768u

/* ---- Encode -------------------------------------------------------------------------------- */

/*
 * The encoder runs the decoder's lane counts alongside itself, as the reference encoder does
 * (core/sz_ref.c): 'held' is what the decoder holds of a lane; where the decoder reads a word,
 * the encoder reserves the chunk's next word (a slot) for the lane. A lane has at most two
 * open slots (held <= 26 bits): 'sa' the oldest, 'sb' the other. The bits a lane produces
 * collect in 'acc' ('accb' of them, < 16 between steps); a completed word goes to the oldest
 * slot. The number of open slots is (held + accb) / 16 whenever accb < 16 (the decoder holds
 * the bits of the open slots that the encoder has not produced yet), so it needs no register:
 * a lane has none exactly when held is 0.
 *
 * The state of 32 lanes is three vectors' worth per lane group, so that it stays in the
 * registers of AVX2 (16 of them): held and accb in the two 16-bit halves of one u32 lane, and
 * the two slots, modulo 2^16 (see ent_enc_complete), in the halves of another.
 */
typedef struct SZ_EN(ent_enc) {
	SZ_EV ha[SZ_ENT_NV]; /* held | accb << 16 */
	SZ_EV acc[SZ_ENT_NV];
	SZ_EV sl[SZ_ENT_NV]; /* sa | sb << 16, each modulo 2^16 */
	size_t next;
} SZ_EN(ent_enc);

#define SZ_LO16 0xFFFFu
#define SZ_ACCB(x) ((uint32_t)(x) << 16)

/* Reserve the next words for the lanes of mask m (masks per vector mv), in lane order. */
static SZ_ALWAYS_INLINE void SZ_EN(ent_enc_reserve)(SZ_EN(ent_enc) * s, const SZ_EM mv[SZ_ENT_NV],
                                                    uint32_t m, const SZ_EV held[SZ_ENT_NV],
                                                    unsigned bits)
{
	SZ_EV r[SZ_ENT_NV];
	ent_ranks(r, m, (uint32_t)s->next);
	s->next += (size_t)__builtin_popcount(m);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		/* a lane with no open slot: the new one is its oldest (and, unread, its second);
		 * else its second */
		const SZ_EV r2 = ev_or(ev_and(r[v], ev_set1(SZ_LO16)), ev_slli(r[v], 16));
		const SZ_EM none = ev_eq(held[v], ev_set1(0));
		const SZ_EV two =
		    ev_or(ev_and(s->sl[v], ev_set1(SZ_LO16)), ev_and(r2, ev_set1(0xFFFF0000u)));
		s->sl[v] = ev_sel(mv[v], ev_sel(none, r2, two), s->sl[v]);
		s->ha[v] = ev_add(s->ha[v], ev_maskz(mv[v], ev_set1(bits)));
	}
}

/*
 * Store the completed words (lanes with 16 or more bits) to their slots. The stores are
 * scattered, so they are scalar; to keep their number from becoming a branch that the
 * predictor misses (about 5 words per step on real KV, varying from step to step), the words
 * are compacted with their slots into 32-bit entries and the first SZ_ENT_STORES entries are
 * always stored, padded with copies of the first (a second store of the same word to the same
 * slot changes nothing). An entry is the word | (slot - next + 2^15) << 16: an open slot is
 * never more than 28 steps of 64 words behind 'next' (a lane holds at most 26 bits when it
 * reserves a word, and consumes at least a bit per step), so the slots' values modulo 2^16
 * are enough.
 */
static SZ_ALWAYS_INLINE void SZ_EN(ent_enc_complete)(SZ_EN(ent_enc) * s, uint8_t *words)
{
	SZ_EM mc[SZ_ENT_NV];
	SZ_EV pk[SZ_ENT_NV];
	uint32_t c = 0;
	const SZ_EV off = ev_set1(SZ_ENT_SLOT_BIAS - (uint32_t)s->next);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		mc[v] = ev_lt(ev_set1(SZ_ACCB(SPLITZIP_ENTROPY_WORD_BITS) - 1), s->ha[v]);
		pk[v] =
		    ev_or(ev_slli(ev_add(s->sl[v], off), 16), ev_and(s->acc[v], ev_set1(0xFFFF)));
	}
	c = em_bits32(mc);
	if (SZ_LIKELY(c)) {
		/* + SZ_ENT_W: the filler stores below write whole vectors past out + cnt */
		uint32_t out[SPLITZIP_ENTROPY_LANES + SZ_ENT_STORES + SZ_ENT_W];
		const unsigned cnt = ent_compact(out, pk, c);
		const SZ_EV dup = ev_set1(out[0]);
		for (unsigned j = 0; j < SZ_ENT_STORES; j += SZ_ENT_W)
			ev_storeu(out + cnt + j, dup);
		const size_t base = s->next - SZ_ENT_SLOT_BIAS;
		for (unsigned j = 0; j < SZ_ENT_STORES; j++)
			splitzip_st16(words + 2 * (base + (out[j] >> 16)), (uint16_t)out[j]);
		for (unsigned j = SZ_ENT_STORES; j < cnt; j++)
			splitzip_st16(words + 2 * (base + (out[j] >> 16)), (uint16_t)out[j]);
	}
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		s->acc[v] = ev_sel(mc[v], ev_srli(s->acc[v], 16), s->acc[v]);
		s->ha[v] = ev_sub(s->ha[v], ev_maskz(mc[v], ev_set1(SZ_ACCB(16))));
		s->sl[v] = ev_sel(mc[v], ev_srli(s->sl[v], 16), s->sl[v]);
	}
}

/* Append len bits (per lane: x, below 2^len) to the lanes: held -= len, accb += len. */
static SZ_ALWAYS_INLINE void SZ_EN(ent_enc_put)(SZ_EN(ent_enc) * s, unsigned v, SZ_EV x, SZ_EV len)
{
	s->acc[v] = ev_or(s->acc[v], ev_sllv(x, ev_srli(s->ha[v], 16)));
	s->ha[v] = ev_add(s->ha[v], ev_sub(ev_slli(len, 16), len));
}

/* Phases B and R of a step with escapes (lanes esc; src: the step's elements). */
static SZ_ALWAYS_INLINE size_t SZ_EN(ent_enc_escapes)(SZ_EN(ent_enc) * s, uint32_t esc,
                                                      const uint16_t *src, uint8_t *words)
{
	SZ_EM me[SZ_ENT_NV], mb[SZ_ENT_NV];
	SZ_EV held[SZ_ENT_NV];
	uint32_t b = 0, x[SPLITZIP_ENTROPY_LANES] = {0};
	for (uint32_t m = esc; m; m &= m - 1)
		x[__builtin_ctz(m)] = splitzip_bf16_exponent(src[__builtin_ctz(m)]);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		held[v] = ev_and(s->ha[v], ev_set1(SZ_LO16));
		me[v] = ev_lt(ev_set1(0), ev_and(ev_srlv(ev_set1(esc), ev_iota(v)), ev_set1(1)));
		mb[v] = em_and(me[v], ev_lt(held[v], ev_set1(SPLITZIP_ENTROPY_REFILL_RAW)));
	}
	b = em_bits32(mb);
	SZ_EN(ent_enc_reserve)(s, mb, b, held, SPLITZIP_ENTROPY_WORD_BITS);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		const SZ_EV raw = ev_loadu(x + v * SZ_ENT_W);
		SZ_EN(ent_enc_put)(s, v, raw, ev_maskz(me[v], ev_set1(SPLITZIP_ENTROPY_RAW_BITS)));
	}
	SZ_EN(ent_enc_complete)(s, words);
	return (size_t)__builtin_popcount(esc);
}

/* One step of 32 elements (or, 'partial', the first m of them). Returns its escape count. */
static SZ_ALWAYS_INLINE size_t SZ_EN(ent_enc_step)(const SZ_ENT_EK *k, SZ_EN(ent_enc) * s,
                                                   const uint16_t *src, uint8_t *sm, uint8_t *words,
                                                   const int partial, unsigned m)
{
	SZ_EM act[SZ_ENT_NV], ma[SZ_ENT_NV];
	SZ_EV ent[SZ_ENT_NV], held[SZ_ENT_NV];
	uint16_t ibuf[SPLITZIP_ENTROPY_LANES] = {0};
	if (partial) {
		uint8_t sbuf[SPLITZIP_ENTROPY_LANES];
		memcpy(ibuf, src, 2 * (size_t)m);
		ent_enc_in(k, ibuf, sbuf, ent);
		memcpy(sm, sbuf, m);
		SZ_EN(ent_active)(act, m);
		src = ibuf;
	} else {
		ent_enc_in(k, src, sm, ent);
	}
	uint32_t a = 0, esc = 0;
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		held[v] = ev_and(s->ha[v], ev_set1(SZ_LO16));
		ma[v] = ev_lt(held[v], ev_set1(SPLITZIP_ENTROPY_REFILL_SYMBOL));
		if (partial) {
			ent[v] = ev_maskz(act[v], ent[v]);
			ma[v] = em_and(ma[v], act[v]);
		}
	}
	a = em_bits32(ma);
	SZ_EN(ent_enc_reserve)(s, ma, a, held, SPLITZIP_ENTROPY_WORD_BITS); /* phase A */
	SZ_EV ors = ev_set1(0);
	for (unsigned v = 0; v < SZ_ENT_NV; v++) { /* phase D: the codes */
		SZ_EN(ent_enc_put)
		(s, v, ev_and(ent[v], ev_set1(0x7FF)),
		 ev_and(ev_srli(ent[v], SZ_ENT_E16_LEN_SHIFT), ev_set1(0xF)));
		ors = ev_or(ors, ent[v]);
	}
	SZ_EN(ent_enc_complete)(s, words);
	/* An escape in some lane: bit 15 of its entry. */
	if (SZ_LIKELY(!em_bits(ev_lt(ev_set1(SZ_ENT_E16_ESC - 1), ors))))
		return 0;
	for (unsigned v = 0; v < SZ_ENT_NV; v++)
		esc |= (uint32_t)em_bits(ev_lt(ev_set1(SZ_ENT_E16_ESC - 1), ent[v]))
		       << (v * SZ_ENT_W);
	return SZ_EN(ent_enc_escapes)(s, esc, src, words);
}

/* The last bits of each lane, zero-padded, then zero words for slots never needed. */
static void SZ_EN(ent_enc_flush)(const SZ_EN(ent_enc) * s, uint8_t *words)
{
	uint32_t sl[SPLITZIP_ENTROPY_LANES], ha[SPLITZIP_ENTROPY_LANES],
	    acc[SPLITZIP_ENTROPY_LANES];
	for (unsigned v = 0; v < SZ_ENT_NV; v++) {
		ev_storeu(sl + v * SZ_ENT_W, s->sl[v]);
		ev_storeu(ha + v * SZ_ENT_W, s->ha[v]);
		ev_storeu(acc + v * SZ_ENT_W, s->acc[v]);
	}
	for (unsigned l = 0; l < SPLITZIP_ENTROPY_LANES; l++) {
		const unsigned open = ((ha[l] & SZ_LO16) + (ha[l] >> 16)) / 16;
		/* the slots, from their values modulo 2^16: both are at most 2^15 below next */
		const size_t sa = s->next - ((s->next - sl[l]) & SZ_LO16);
		const size_t sb = s->next - ((s->next - (sl[l] >> 16)) & SZ_LO16);
		if (open > 0)
			splitzip_st16(words + 2 * sa, (uint16_t)acc[l]);
		if (open > 1)
			splitzip_st16(words + 2 * sb, 0);
	}
}

static size_t SZ_EN(entropy_encode_chunk)(const splitzip_entropy_enc_tables *t, const uint16_t *src,
                                          size_t n, uint8_t *sm, uint8_t *words, size_t *n_words)
{
	SZ_EN(ent_enc) s;
	SZ_ENT_EK k;
	ent_enc_init(&k, t);
	for (unsigned v = 0; v < SZ_ENT_NV; v++)
		s.ha[v] = s.acc[v] = s.sl[v] = ev_set1(0);
	s.next = 0;
	size_t n_esc = 0, i = 0;
	const size_t full = n - n % SPLITZIP_ENTROPY_LANES;
	for (; i < full; i += SPLITZIP_ENTROPY_LANES)
		n_esc += SZ_EN(ent_enc_step)(&k, &s, src + i, sm + i, words, 0, 0);
	if (i < n)
		n_esc += SZ_EN(ent_enc_step)(&k, &s, src + i, sm + i, words, 1, (unsigned)(n - i));
	SZ_EN(ent_enc_flush)(&s, words);
	*n_words = s.next;
	return n_esc;
}

#undef SZ_ENT_TAIL_WORDS
#undef SZ_ENT_STORES
#undef SZ_ENT_SLOT_BIAS
#undef SZ_LO16
#undef SZ_ACCB
#undef SZ_ENT_NV
#undef SZ_EN
#undef SZ_ENT_PREFIX
#undef SZ_ENT_W
#undef SZ_EV
#undef SZ_EM
#undef SZ_ES
#undef SZ_ENT_DK
#undef SZ_ENT_EK
