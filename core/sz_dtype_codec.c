/*
 * sz_dtype_codec.c -- encoder and validating decoder of the frames of Dtype 2-5 (FORMAT.md
 * 1.3) in portable C: stored, split4 (§4.2) and entropy (§4.3) frames, the mode rule (§6.3) and
 * the content checksum (§7.2). The exponents go through a byte per element; the rest fields are
 * packed into and read from their sections (§2.3) directly.
 */
#include <stdlib.h>

#include "sz_codebook.h"
#include "sz_dtype_impl.h"

/* ---- Rest sections (§2.3) ------------------------------------------------------------------ */

static void rest_put(unsigned kind, uint8_t *sec, uint64_t i, unsigned r)
{
	switch (kind) {
	case SZ_REST_SM:
	case SZ_REST_LO8:
		sec[i] = (uint8_t)r;
		break;
	case SZ_REST_LO16:
		splitzip_put_u8s(sec + 2 * i, r, 2);
		break;
	case SZ_REST_NIB:
		sec[i / 2] |= (uint8_t)(r << (4 * (i & 1)));
		break;
	default: /* PL3: bit i % 64 of plane k of group i / 64 */
		for (unsigned k = 0; k < 3; k++)
			sec[24 * (i / 64) + 8 * k + (i % 64) / 8] |=
			    (uint8_t)(((r >> k) & 1u) << (i % 8));
	}
}

/* The pad nibble of NIB and the pad bits of PL3 are 0 (§2.3). */
static int rest_pad_ok(unsigned kind, const uint8_t *sec, uint64_t n)
{
	if (kind == SZ_REST_NIB)
		return !(n & 1) || !(sec[n / 2] >> 4);
	if (kind != SZ_REST_PL3 || n % 64 == 0)
		return 1;
	for (uint64_t i = n; i % 64; i++)
		for (unsigned k = 0; k < 3; k++)
			if ((sec[24 * (i / 64) + 8 * k + (i % 64) / 8] >> (i % 8)) & 1u)
				return 0;
	return 1;
}

/* Write the rest fields of the n elements at src into the zeroed sections of L. */
static void pack_rest(const splitzip_dtype_desc *d, const uint8_t *src, uint64_t n, uint8_t *f,
                      const sz_dt_layout *L)
{
	for (unsigned k = 0; k < d->n_rest; k++)
		for (uint64_t i = 0; i < n; i++)
			rest_put(d->rest[k], f + L->rest[k], i,
			         sz_dt_rest(d, k, sz_dt_load(d, src, i)));
}

/* The pl3 fields of group g of a PL3 section as bits 0-2 of r[0..63]. */
static void pl3_group(const uint8_t *sec, uint64_t g, uint8_t r[64])
{
	const uint64_t p0 = splitzip_get_u8s(sec + 24 * g, 8),
	               p1 = splitzip_get_u8s(sec + 24 * g + 8, 8),
	               p2 = splitzip_get_u8s(sec + 24 * g + 16, 8);
	for (unsigned b = 0; b < 64; b++)
		r[b] = (uint8_t)(((p0 >> b) & 1) | (((p1 >> b) & 1) << 1) | (((p2 >> b) & 1) << 2));
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SZ_DT_SWAR 1
#define SZ_B8(x) ((uint64_t)(x)*0x0101010101010101ull)

/* Byte t of sz_spread8(b) is bit t of b. */
static uint64_t sz_spread8(unsigned b)
{
	return ((SZ_B8(b) & 0x8040201008040201ull) + 0x7F7F7F7F7F7F7F7Full) >> 7 & SZ_B8(1);
}

/*
 * The high bytes of the elements of whole PL3 groups [0, G) (§2.3), eight at a time: byte t of
 * the three planes' byte q gives the pl3 field of element 8 q + t, so the eight fields are three
 * spreads, and (pl3 bit 2) << 7 | x << 2 | (pl3 bits 0-1) is formed bytewise (x < 32: no byte
 * carries into the next). FP16 (lo) interleaves each with its low byte.
 */
static void join_pl3_groups(const uint8_t *xs, uint64_t G, const uint8_t *pl3, const uint8_t *lo,
                            uint8_t *dst)
{
	for (uint64_t g = 0; g < G; g++) {
		const uint8_t *p = pl3 + 24 * g;
		for (unsigned q = 0; q < 8; q++) {
			const uint64_t r = sz_spread8(p[q]) | sz_spread8(p[8 + q]) << 1 |
			                   sz_spread8(p[16 + q]) << 2;
			const uint64_t i = 64 * g + 8 * q;
			uint64_t x;
			memcpy(&x, xs + i, 8);
			const uint64_t hi = (r & SZ_B8(4)) << 5 | x << 2 | (r & SZ_B8(3));
			if (!lo) {
				memcpy(dst + i, &hi, 8);
				continue;
			}
			uint8_t h8[8];
			memcpy(h8, &hi, 8);
			for (unsigned t = 0; t < 8; t++) {
				dst[2 * (i + t)] = lo[i + t];
				dst[2 * (i + t) + 1] = h8[t];
			}
		}
	}
}
#endif

/* E5M2 and FP16: PL3 groups of 64, and for FP16 the low bytes. */
static void join_pl3(const uint8_t *xs, uint64_t n, const uint8_t *pl3, const uint8_t *lo,
                     uint8_t *dst)
{
	uint8_t r[64];
	uint64_t g0 = 0;
#ifdef SZ_DT_SWAR
	g0 = n / 64;
	join_pl3_groups(xs, g0, pl3, lo, dst);
#endif
	for (uint64_t g = g0; g * 64 < n; g++) {
		pl3_group(pl3, g, r);
		const uint64_t end = n - 64 * g < 64 ? n - 64 * g : 64;
		for (uint64_t b = 0; b < end; b++) {
			const uint64_t i = 64 * g + b;
			const uint8_t hi = (uint8_t)(((r[b] & 0x4u) << 5) | ((unsigned)xs[i] << 2) |
			                             (r[b] & 0x3u));
			if (lo) {
				dst[2 * i] = lo[i];
				dst[2 * i + 1] = hi;
			} else {
				dst[i] = hi;
			}
		}
	}
}

/* dst[i] = join(xs[i], the rest fields of element i) (§2.2), one loop per dtype, for elements
 * [base, base + n) (base a multiple of 64: whole PL3 groups and nibble bytes), their exponents
 * at xs[0, n). */
static void join_range(const splitzip_dtype_desc *d, const uint8_t *xs, uint64_t base, uint64_t n,
                       const uint8_t *f, const sz_dt_layout *L, uint8_t *dst0)
{
	uint8_t *dst = dst0 + d->width * base;
	const uint8_t *s0 = f + L->rest[0] + sz_dt_rest_size(d->rest[0], base),
	              *s1 =
	                  f + L->rest[1] + (d->n_rest > 1 ? sz_dt_rest_size(d->rest[1], base) : 0);
	if (d->code == SPLITZIP_DTYPE_FP8_E4M3) {
		uint64_t i0 = 0;
#ifdef SZ_DT_SWAR
		/* eight at a time: the nibbles of four bytes, (r bit 3) << 4 | x << 3 | r & 7 */
		for (; i0 + 8 <= n; i0 += 8) {
			uint32_t b4;
			uint64_t x;
			memcpy(&b4, s0 + i0 / 2, 4);
			memcpy(&x, xs + i0, 8);
			uint64_t r = b4; /* nibble k of b4 to byte k */
			r = (r | r << 16) & 0x0000FFFF0000FFFFull;
			r = (r | r << 8) & 0x00FF00FF00FF00FFull;
			r = (r | r << 4) & 0x0F0F0F0F0F0F0F0Full;
			const uint64_t v = (r & SZ_B8(8)) << 4 | x << 3 | (r & SZ_B8(7));
			memcpy(dst + i0, &v, 8);
		}
#endif
		for (uint64_t i = i0; i < n; i++) {
			const unsigned r = (s0[i / 2] >> (4 * (i & 1))) & 0xFu;
			dst[i] = (uint8_t)(((r & 0x8u) << 4) | ((unsigned)xs[i] << 3) | (r & 0x7u));
		}
	} else if (d->code == SPLITZIP_DTYPE_FP32) {
		for (uint64_t i = 0; i < n; i++) {
			const uint16_t hi = splitzip_bf16_join(xs[i], s0[i]);
			dst[4 * i] = s1[2 * i];
			dst[4 * i + 1] = s1[2 * i + 1];
			dst[4 * i + 2] = (uint8_t)hi;
			dst[4 * i + 3] = (uint8_t)(hi >> 8);
		}
	} else {
		join_pl3(xs, n, s0, d->code == SPLITZIP_DTYPE_FP16 ? s1 : NULL, dst);
	}
}

/* dst[i] = join(xs[i], the rest fields of element i) (§2.2), for the whole frame. */
static void join_all(const splitzip_dtype_desc *d, const uint8_t *xs, uint64_t n, const uint8_t *f,
                     const sz_dt_layout *L, uint8_t *dst)
{
	join_range(d, xs, 0, n, f, L, dst);
}

static int zero(const uint8_t *f, uint64_t a, uint64_t b)
{
	for (; a < b; a++)
		if (f[a])
			return 0;
	return 1;
}

/* The gaps around the rest sections up to 'next' and the pads inside them (§4.2.6, §4.3.7). */
static int rest_gaps_ok(const splitzip_dtype_desc *d, const uint8_t *f, uint64_t n,
                        const sz_dt_layout *L, uint64_t next)
{
	for (unsigned k = 0; k < d->n_rest; k++) {
		const uint64_t to = k + 1 < d->n_rest ? L->rest[k + 1] : next;
		if (!zero(f, L->rest_end[k], to) || !rest_pad_ok(d->rest[k], f + L->rest[k], n))
			return 0;
	}
	return 1;
}

uint64_t splitzip_dtype_content_checksum(const splitzip_dtype_desc *d, const uint8_t *p, uint64_t n,
                                         unsigned log2)
{
	uint64_t sum = 0;
	const uint64_t C = splitzip_n_chunks(n, log2);
	for (uint64_t c = 0; c < C; c++) {
		const uint64_t len = splitzip_chunk_len(n, log2, c);
		const uint64_t D = splitzip_hash_bytes(p + (c << log2) * d->width, d->width * len);
		sum += splitzip_hash_chunk_fold(D, c);
	}
	return splitzip_hash_frame_final(n, sum);
}

/* ---- Lanes (§4.3.5), with e raw bits after an escape ---------------------------------------- */

typedef struct dt_lane {
	uint32_t acc;
	unsigned acc_bits, held;
	uint32_t slot[4];
	unsigned head, open;
} dt_lane;

static void lane_reserve(dt_lane *l, unsigned threshold, size_t *next)
{
	if (l->held < threshold) {
		l->slot[(l->head + l->open) % 4] = (uint32_t)(*next)++;
		l->open++;
		l->held += SPLITZIP_ENTROPY_WORD_BITS;
	}
}

static void lane_put(dt_lane *l, uint32_t bits, unsigned len, uint8_t *words)
{
	l->acc |= bits << l->acc_bits;
	l->acc_bits += len;
	l->held -= len;
	if (l->acc_bits >= 16) {
		splitzip_put_u8s(words + 2 * (size_t)l->slot[l->head], l->acc & 0xFFFF, 2);
		l->head = (l->head + 1) % 4;
		l->open--;
		l->acc >>= 16;
		l->acc_bits -= 16;
	}
}

/* One step of m <= 32 lanes: refills, codes, refills before raw bits, raw bits. */
static size_t encode_step(const uint32_t *sym, const uint8_t *xs, size_t m, unsigned eb,
                          dt_lane *lane, uint8_t *words, size_t *next)
{
	size_t n_esc = 0;
	for (size_t l = 0; l < m; l++)
		lane_reserve(&lane[l], SPLITZIP_ENTROPY_REFILL_SYMBOL, next);
	for (size_t l = 0; l < m; l++) {
		const uint32_t e = sym[xs[l]];
		lane_put(&lane[l], e & 0xFFFF, (e >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xFF, words);
	}
	for (size_t l = 0; l < m; l++)
		if (sym[xs[l]] & SPLITZIP_ENTROPY_ENC_ESCAPE)
			lane_reserve(&lane[l], eb, next);
	for (size_t l = 0; l < m; l++)
		if (sym[xs[l]] & SPLITZIP_ENTROPY_ENC_ESCAPE) {
			lane_put(&lane[l], xs[l], eb, words);
			n_esc++;
		}
	return n_esc;
}

/* The words of one chunk of n exponents; returns its escape count. */
static size_t encode_chunk(const uint32_t *sym, const uint8_t *xs, size_t n, unsigned eb,
                           uint8_t *words, size_t *n_words)
{
	dt_lane lane[SPLITZIP_ENTROPY_LANES];
	memset(lane, 0, sizeof lane);
	size_t next = 0, n_esc = 0;
	for (size_t i0 = 0; i0 < n; i0 += SPLITZIP_ENTROPY_LANES) {
		const size_t m = n - i0 < SPLITZIP_ENTROPY_LANES ? n - i0 : SPLITZIP_ENTROPY_LANES;
		n_esc += encode_step(sym, xs + i0, m, eb, lane, words, &next);
	}
	for (unsigned l = 0; l < SPLITZIP_ENTROPY_LANES; l++)
		for (; lane[l].open; lane[l].open--, lane[l].acc = 0) {
			splitzip_put_u8s(words + 2 * (size_t)lane[l].slot[lane[l].head],
			                 lane[l].acc & 0xFFFF, 2);
			lane[l].head = (lane[l].head + 1) % 4;
		}
	*n_words = next;
	return n_esc;
}

typedef struct dt_dec {
	const uint8_t *words;
	size_t n_words, next;
	uint32_t buf[SPLITZIP_ENTROPY_LANES];
	unsigned held[SPLITZIP_ENTROPY_LANES];
} dt_dec;

static int refill(dt_dec *d, unsigned l, unsigned threshold)
{
	if (d->held[l] >= threshold)
		return 1;
	if (d->next == d->n_words)
		return 0;
	d->buf[l] |= (uint32_t)splitzip_get_u8s(d->words + 2 * d->next, 2) << d->held[l];
	d->held[l] += SPLITZIP_ENTROPY_WORD_BITS;
	d->next++;
	return 1;
}

/* One step of m lanes into xs; the step's escape count, or -1 (§4.3.6 rule 4). */
static int decode_step(const splitzip_entropy_dec_tables *t, dt_dec *d, size_t m, unsigned eb,
                       uint8_t *xs)
{
	unsigned sym[SPLITZIP_ENTROPY_LANES];
	int n_esc = 0;
	for (unsigned l = 0; l < m; l++)
		if (!refill(d, l, SPLITZIP_ENTROPY_REFILL_SYMBOL))
			return -1;
	for (unsigned l = 0; l < m; l++) {
		const uint32_t e = t->lut[d->buf[l] & (SZ_ENTROPY_LUT_SIZE - 1)];
		const unsigned len = e >> SPLITZIP_ENTROPY_DEC_LEN_SHIFT;
		sym[l] = e & SPLITZIP_ENTROPY_DEC_SYM_MASK;
		d->buf[l] >>= len;
		d->held[l] -= len;
		xs[l] = (uint8_t)sym[l];
	}
	for (unsigned l = 0; l < m; l++)
		if (sym[l] == SPLITZIP_ENTROPY_ESC && !refill(d, l, eb))
			return -1;
	for (unsigned l = 0; l < m; l++) {
		if (sym[l] != SPLITZIP_ENTROPY_ESC)
			continue;
		const unsigned x = d->buf[l] & ((1u << eb) - 1);
		d->buf[l] >>= eb;
		d->held[l] -= eb;
		if (t->coded[x])
			return -1;
		xs[l] = (uint8_t)x;
		n_esc++;
	}
	return n_esc;
}

/* Decode one chunk of n exponents from its words; the escape count, or -1. */
static int64_t decode_chunk(const splitzip_entropy_dec_tables *t, const uint8_t *words,
                            size_t n_words, size_t n, unsigned eb, uint8_t *xs)
{
	dt_dec d;
	memset(&d, 0, sizeof d);
	d.words = words;
	d.n_words = n_words;
	int64_t n_esc = 0;
	for (size_t i0 = 0; i0 < n; i0 += SPLITZIP_ENTROPY_LANES) {
		const size_t m = n - i0 < SPLITZIP_ENTROPY_LANES ? n - i0 : SPLITZIP_ENTROPY_LANES;
		const int k = decode_step(t, &d, m, eb, xs + i0);
		if (k < 0)
			return -1;
		n_esc += k;
	}
	if (d.next != n_words)
		return -1;
	for (unsigned l = 0; l < SPLITZIP_ENTROPY_LANES; l++)
		if (d.buf[l])
			return -1;
	return n_esc;
}

/* ---- Encoder ------------------------------------------------------------------------------- */

/* The plan of one frame: the exponents, and the sizes of the candidate modes. */
typedef struct dt_plan {
	const splitzip_dtype_desc *d;
	const splitzip_dtype_encoder *e;
	const uint8_t *src;
	uint64_t n;
	uint8_t *xs;
	uint64_t hist[256];
	uint8_t cb[16], in_cb[256], code_of[256];
	uint64_t E4, size4; /* split4; size4 0 if not a candidate */
	splitzip_entropy_table table;
	uint8_t *words; /* entropy: the chunks' words, back to back */
	uint32_t *wcount;
	uint64_t W, E2, size2; /* entropy; size2 0 if not a candidate */
	unsigned first, last;
} dt_plan;

static void plan_split4(dt_plan *p)
{
	if (p->e->codebook)
		memcpy(p->cb, p->e->codebook, 16);
	else
		splitzip_codebook_select(p->hist, p->cb);
	memset(p->in_cb, 0, sizeof p->in_cb);
	memset(p->code_of, 0, sizeof p->code_of);
	uint64_t hits = 0;
	for (unsigned k = 0; k < 16; k++) {
		p->in_cb[p->cb[k]] = 1;
		p->code_of[p->cb[k]] = (uint8_t)k;
		hits += p->hist[p->cb[k]];
	}
	p->E4 = p->n - hits;
	sz_dt_layout L;
	sz_dt_split4_layout(p->d, p->n, p->e->chunk_log2, p->E4, &L);
	p->size4 = L.size;
}

static splitzip_status plan_entropy(dt_plan *p)
{
	if (p->e->table)
		p->table = *p->e->table;
	else if (!splitzip_entropy_table_select(p->hist, &p->table))
		return SPLITZIP_OK; /* no elements: no entropy frame */
	const unsigned log2 = p->e->chunk_log2;
	const uint64_t C = splitzip_n_chunks(p->n, log2);
	const uint64_t cap = C * splitzip_entropy_chunk_words_max((uint64_t)1 << log2);
	p->words = (uint8_t *)malloc(2 * cap + 2);
	p->wcount = (uint32_t *)malloc(4 * C + 4);
	if (!p->words || !p->wcount)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	splitzip_entropy_enc_tables enc;
	splitzip_entropy_enc_init(&enc, &p->table);
	uint8_t tmp[(SPLITZIP_ENTROPY_SYMBOLS + 1) / 2 + 1];
	splitzip_entropy_lengths_write(&p->table, tmp, &p->first, &p->last);
	p->W = p->E2 = 0;
	for (uint64_t c = 0; c < C; c++) {
		size_t nw = 0;
		p->E2 +=
		    encode_chunk(enc.sym, p->xs + (c << log2), splitzip_chunk_len(p->n, log2, c),
		                 p->d->ebits, p->words + 2 * p->W, &nw);
		p->W += nw;
		p->wcount[c] = (uint32_t)p->W;
	}
	sz_dt_layout L;
	sz_dt_entropy_layout(p->d, p->n, log2, p->W, p->first, p->last, &L);
	p->size2 = p->W <= 0xFFFFFFFFu ? L.size : 0;
	return SPLITZIP_OK;
}

/* The header of a frame of the plan in mode 'mode'. */
static void write_header(const dt_plan *p, unsigned mode, uint64_t size, uint8_t *dst)
{
	splitzip_header h;
	splitzip_header_init(&h, mode, p->e->chunk_log2, p->e->flags, p->n);
	h.dtype = (uint8_t)p->d->code;
	h.frame_size = size;
	if (mode == SPLITZIP_MODE_SPLIT4) {
		memcpy(h.codebook, p->cb, 16);
		h.n_escapes = (uint32_t)p->E4;
	} else if (mode == SPLITZIP_MODE_ENTROPY) {
		h.n_escapes = (uint32_t)p->E2;
		h.n_words = (uint32_t)p->W;
		h.table_first = (uint8_t)p->first;
		h.table_last = (uint8_t)p->last;
		h.escape_length = p->table.escape_length;
	}
	if (p->e->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum =
		    splitzip_dtype_content_checksum(p->d, p->src, p->n, p->e->chunk_log2);
	splitzip_header_write(dst, &h);
}

static void write_split4(const dt_plan *p, uint8_t *f)
{
	const unsigned log2 = p->e->chunk_log2;
	sz_dt_layout L;
	sz_dt_split4_layout(p->d, p->n, log2, p->E4, &L);
	for (uint64_t i = 0; i < p->n; i++)
		f[L.codes + i / 2] |= (uint8_t)(p->code_of[p->xs[i]] << (4 * (i & 1)));
	pack_rest(p->d, p->src, p->n, f, &L);
	uint64_t r = 0;
	for (uint64_t c = 0; c < L.n_chunks; c++) {
		const uint64_t base = c << log2, len = splitzip_chunk_len(p->n, log2, c);
		for (uint64_t j = 0; j < len; j++)
			if (!p->in_cb[p->xs[base + j]]) {
				splitzip_put_u8s(f + L.positions + 2 * r, j, 2);
				f[L.exponents + r++] = p->xs[base + j];
			}
		splitzip_put_u8s(f + L.table + 4 * c, r, 4);
	}
}

static void write_entropy(const dt_plan *p, uint8_t *f)
{
	sz_dt_layout L;
	sz_dt_entropy_layout(p->d, p->n, p->e->chunk_log2, p->W, p->first, p->last, &L);
	pack_rest(p->d, p->src, p->n, f, &L);
	unsigned first, last;
	splitzip_entropy_lengths_write(&p->table, f + L.lengths, &first, &last);
	for (uint64_t c = 0; c < L.n_chunks; c++)
		splitzip_put_u8s(f + L.table + 4 * c, p->wcount[c], 4);
	memcpy(f + L.stream, p->words, 2 * p->W);
}

int splitzip_dtype_fixed_ok(const splitzip_dtype_encoder *e, const splitzip_dtype_desc *d)
{
	if (e->codebook) {
		for (unsigned i = 1; i < 16; i++)
			if (e->codebook[i] <= e->codebook[i - 1])
				return 0;
		if (e->codebook[15] >= (1u << d->ebits))
			return 0;
	}
	if (e->table) {
		if (!splitzip_entropy_table_ok(e->table))
			return 0;
		for (unsigned x = 1u << d->ebits; x < 256; x++)
			if (e->table->lengths[x])
				return 0;
	}
	return 1;
}

/* Plan the candidates of the encoding, choose the mode (§6.3) and write the frame. */
static splitzip_status encode_planned(dt_plan *p, uint8_t *dst, size_t cap, size_t *dst_size)
{
	const unsigned enc = p->e->encoding;
	if (p->n && enc != SPLITZIP_ENCODING_ENTROPY && p->d->split4)
		plan_split4(p);
	if (p->n && enc != SPLITZIP_ENCODING_SPLIT4) {
		splitzip_status st = plan_entropy(p);
		if (st != SPLITZIP_OK)
			return st;
	}
	unsigned mode = SPLITZIP_MODE_STORED;
	uint64_t size = splitzip_dtype_stored_size(p->d, p->n);
	if (p->size4 && p->size4 < size) {
		mode = SPLITZIP_MODE_SPLIT4;
		size = p->size4;
	}
	if (p->size2 && p->size2 < size) {
		mode = SPLITZIP_MODE_ENTROPY;
		size = p->size2;
	}
	if (size > cap)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	memset(dst, 0, (size_t)size);
	write_header(p, mode, size, dst);
	if (mode == SPLITZIP_MODE_STORED) {
		if (p->n)
			memcpy(dst + SPLITZIP_FRAME_HEADER_SIZE, p->src,
			       (size_t)(p->d->width * p->n));
	} else if (mode == SPLITZIP_MODE_SPLIT4)
		write_split4(p, dst);
	else
		write_entropy(p, dst);
	*dst_size = (size_t)size;
	return SPLITZIP_OK;
}

splitzip_status splitzip_dtype_encode(const splitzip_dtype_encoder *e, const void *src, uint64_t n,
                                      uint8_t *dst, size_t dst_cap, size_t *dst_size)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(e->dtype);
	if (!d || d->code == SPLITZIP_DTYPE_BF16 || e->encoding > SPLITZIP_ENCODING_AUTO ||
	    (e->encoding == SPLITZIP_ENCODING_SPLIT4 && !d->split4) ||
	    e->chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || e->chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX ||
	    n > SPLITZIP_MAX_FRAME_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (!splitzip_dtype_fixed_ok(e, d))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	dt_plan *p = (dt_plan *)calloc(1, sizeof *p);
	if (!p)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	p->d = d;
	p->e = e;
	p->src = (const uint8_t *)src;
	p->n = n;
	p->xs = (uint8_t *)malloc(n ? (size_t)n : 1);
	splitzip_status st = SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (p->xs) {
		for (uint64_t i = 0; i < n; i++) {
			p->xs[i] = (uint8_t)sz_dt_exponent(d, sz_dt_load(d, p->src, i));
			p->hist[p->xs[i]]++;
		}
		st = encode_planned(p, dst, dst_cap, dst_size);
	}
	free(p->xs);
	free(p->words);
	free(p->wcount);
	free(p);
	return st;
}

/* ---- Decoder ------------------------------------------------------------------------------- */

/* §4.2.6-§4.2.7: padding, the chunk table, the codes and escapes into xs. */
static int decode_split4(const splitzip_dtype_desc *d, const splitzip_header *h, const uint8_t *f,
                         const sz_dt_layout *L, uint8_t *xs)
{
	const uint64_t n = h->n_elems, E = h->n_escapes;
	if (!zero(f, L->codes + (n + 1) / 2, L->rest[0]) || !rest_gaps_ok(d, f, n, L, L->table) ||
	    !zero(f, L->table + 4 * L->n_chunks, L->positions) ||
	    !zero(f, L->positions + 2 * E, L->exponents) ||
	    !zero(f, L->exponents + E, h->frame_size))
		return 0;
	if ((n & 1) && (f[L->codes + n / 2] >> 4))
		return 0;
	uint8_t in_cb[256] = {0};
	for (unsigned k = 0; k < 16; k++)
		in_cb[h->codebook[k]] = 1;
	for (uint64_t i = 0; i < n; i++)
		xs[i] = h->codebook[(f[L->codes + i / 2] >> (4 * (i & 1))) & 0xF];
	uint64_t prev = 0;
	for (uint64_t c = 0; c < L->n_chunks; c++) { /* the table first: every range inside E */
		const uint64_t t = splitzip_get_u8s(f + L->table + 4 * c, 4);
		if (t < prev || t - prev > splitzip_chunk_len(n, h->chunk_log2, c) || t > E ||
		    (c + 1 == L->n_chunks && t != E))
			return 0;
		prev = t;
	}
	prev = 0;
	for (uint64_t c = 0; c < L->n_chunks; c++) {
		const uint64_t t = splitzip_get_u8s(f + L->table + 4 * c, 4);
		const uint64_t base = c << h->chunk_log2,
		               len = splitzip_chunk_len(n, h->chunk_log2, c);
		for (uint64_t r = prev, last = 0; r < t; r++) {
			const uint64_t pos = splitzip_get_u8s(f + L->positions + 2 * r, 2);
			const unsigned x = f[L->exponents + r];
			if ((r > prev && pos <= last) || pos >= len || x >= (1u << d->ebits) ||
			    in_cb[x] ||
			    ((f[L->codes + (base + pos) / 2] >> (4 * ((base + pos) & 1))) & 0xF))
				return 0;
			xs[base + pos] = (uint8_t)x;
			last = pos;
		}
		prev = t;
	}
	return 1;
}

/* §4.3.3: the code lengths at L->lengths into a valid table. */
static int read_table(const splitzip_header *h, const uint8_t *f, const sz_dt_layout *L,
                      splitzip_entropy_table *t)
{
	const uint64_t K = splitzip_entropy_nibbles(h->table_first, h->table_last);
	const uint8_t *p = f + L->lengths;
	memset(t->lengths, 0, sizeof t->lengths);
	for (uint64_t k = 0; k < K; k++) {
		const unsigned v = (p[k / 2] >> (4 * (k % 2))) & 0xF;
		if (v > SPLITZIP_ENTROPY_MAX_CODE_LENGTH)
			return 0;
		t->lengths[h->table_first + k] = (uint8_t)v;
	}
	if ((K % 2) && (p[K / 2] >> 4))
		return 0;
	t->escape_length = (uint8_t)h->escape_length;
	if (!t->lengths[h->table_first] || !t->lengths[h->table_last])
		return 0;
	return splitzip_entropy_table_ok(t);
}

/* The checks of an entropy frame before its chunks (§4.3): paddings, the code lengths into 't',
 * the chunk table. 1 if they pass. */
static int entropy_frame_ok(const splitzip_dtype_desc *d, const splitzip_header *h,
                            const uint8_t *f, const sz_dt_layout *L, splitzip_entropy_table *t)
{
	const uint64_t n = h->n_elems, W = h->n_words;
	const uint64_t K = splitzip_entropy_nibbles(h->table_first, h->table_last);
	if (!rest_gaps_ok(d, f, n, L, L->lengths) || !zero(f, L->lengths + (K + 1) / 2, L->table) ||
	    !zero(f, L->table + 4 * L->n_chunks, L->stream) || !zero(f, L->stream + 2 * W, L->size))
		return 0;
	if (!read_table(h, f, L, t))
		return 0;
	uint64_t prev = 0;
	for (uint64_t c = 0; c < L->n_chunks; c++) {
		const uint64_t v = splitzip_get_u8s(f + L->table + 4 * c, 4);
		if (v < prev || (c + 1 == L->n_chunks && v != W))
			return 0;
		prev = v;
	}
	return 1;
}

/* The decoder tables of 't' in memory of their own (NULL: out of memory). */
static splitzip_entropy_dec_tables *dec_tables_new(const splitzip_entropy_table *t)
{
	splitzip_entropy_dec_tables *dec =
	    (splitzip_entropy_dec_tables *)malloc(sizeof(splitzip_entropy_dec_tables));
	if (dec)
		splitzip_entropy_dec_init(dec, t);
	return dec;
}

/* §4.3.6 rules 1-5 into xs (the portable decoder). */
static int decode_entropy(const splitzip_dtype_desc *d, const splitzip_header *h, const uint8_t *f,
                          const sz_dt_layout *L, uint8_t *xs)
{
	const uint64_t n = h->n_elems;
	splitzip_entropy_table t;
	if (!entropy_frame_ok(d, h, f, L, &t))
		return 0;
	splitzip_entropy_dec_tables *dec = dec_tables_new(&t);
	if (!dec)
		return -1;
	uint64_t n_esc = 0, prev = 0;
	int ok = 1;
	for (uint64_t c = 0; c < L->n_chunks && ok; c++) {
		const uint64_t v = splitzip_get_u8s(f + L->table + 4 * c, 4);
		const int64_t k = decode_chunk(dec, f + L->stream + 2 * prev, (size_t)(v - prev),
		                               (size_t)splitzip_chunk_len(n, h->chunk_log2, c),
		                               d->ebits, xs + (c << h->chunk_log2));
		ok = k >= 0;
		n_esc += ok ? (uint64_t)k : 0;
		prev = v;
	}
	free(dec);
	return ok && n_esc == h->n_escapes;
}

/* FP32 elements [0, n) at dst from their high halves hi and their Rest_LO16 bytes lo. */
static void join_fp32(const uint16_t *hi, const uint8_t *lo, size_t n, uint8_t *dst)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (size_t i = 0; i < n; i++) { /* one load and store per element: vectorised */
		uint16_t l;
		memcpy(&l, lo + 2 * i, 2);
		const uint32_t v = (uint32_t)hi[i] << 16 | l;
		memcpy(dst + 4 * i, &v, 4);
	}
#else
	for (size_t i = 0; i < n; i++) {
		dst[4 * i] = lo[2 * i];
		dst[4 * i + 1] = lo[2 * i + 1];
		dst[4 * i + 2] = (uint8_t)hi[i];
		dst[4 * i + 3] = (uint8_t)(hi[i] >> 8);
	}
#endif
}

/* The same with the backend's fp32_join for the whole blocks of 32, if it has one. */
static void join_fp32_k(const splitzip_host_kernels *k, const uint16_t *hi, const uint8_t *lo,
                        size_t n, uint8_t *dst)
{
	const size_t done = k->fp32_join ? n / 32 * 32 : 0;
	if (done)
		k->fp32_join(hi, lo, done / 32, dst);
	join_fp32(hi + done, lo + 2 * done, n - done, dst + 4 * done);
}

/* The exponents xs[0, n) of BF16 elements decoded with zero sign/mantissa bytes (x << 7). */
static void exps_of(const uint16_t *hi, size_t n, uint8_t *xs)
{
	for (size_t i = 0; i < n; i++)
		xs[i] = (uint8_t)(hi[i] >> 7);
}

/*
 * Elements [base, base + n) of an FP16 or FP8 frame from the kernels' output hi (exponent x =
 * hi[i] >> 7) and the rest fields: whole blocks of 64 by the backend's join if it has one for
 * the dtype, the rest through xs (room for n) and the portable join.
 */
static void join_chunk(const splitzip_host_kernels *k, const splitzip_dtype_desc *d,
                       const uint16_t *hi, uint64_t base, size_t n, uint8_t *xs, const uint8_t *f,
                       const sz_dt_layout *L, uint8_t *dst)
{
	const uint8_t *s0 = f + L->rest[0] + sz_dt_rest_size(d->rest[0], base);
	const size_t B = n / 64;
	size_t done = 0;
	if (d->code == SPLITZIP_DTYPE_FP8_E4M3 && k->nib_join) {
		k->nib_join(hi, B, s0, dst + base);
		done = 64 * B;
	} else if (d->code != SPLITZIP_DTYPE_FP8_E4M3 && k->pl3_join) {
		const uint8_t *lo = d->code == SPLITZIP_DTYPE_FP16 ? f + L->rest[1] + base : NULL;
		k->pl3_join(hi, B, s0, lo, dst + d->width * base);
		done = 64 * B;
	}
	if (done < n) {
		exps_of(hi + done, n - done, xs);
		join_range(d, xs, base + done, n - done, f, L, dst);
	}
}

/*
 * Entropy frames of every dtype on host kernels (§2.4, §4.3): the exponent stream is coded as a
 * BF16 frame's, with escapes of d->ebits raw bits (dec->raw_bits), so the BF16 kernels (which
 * validate what decode_chunk() validates, with the same outcome) decode two chunks at a time
 * (entropy_decode_pair). FP32: its Rest_SM is a BF16 frame's too, so they decode the elements'
 * high halves, and join_fp32_k() adds Rest_LO16 as the low halves. The others: they decode
 * with zero sign/mantissa bytes, and join_chunk() adds each chunk's rest fields to the
 * exponents they wrote. 1, 0 (corrupt) or -1 (out of memory), as decode_entropy().
 */
static int decode_entropy_k(const splitzip_host_kernels *k, const splitzip_dtype_desc *d,
                            const splitzip_header *h, const uint8_t *f, const sz_dt_layout *L,
                            uint8_t *dst)
{
	const uint64_t n = h->n_elems;
	const unsigned log2 = h->chunk_log2;
	const int fp32 = d->code == SPLITZIP_DTYPE_FP32;
	splitzip_entropy_table t;
	if (!entropy_frame_ok(d, h, f, L, &t))
		return 0;
	splitzip_entropy_dec_tables *dec = dec_tables_new(&t);
	uint16_t *hi = (uint16_t *)malloc(sizeof(uint16_t) << (log2 + 1));
	uint8_t *zsm = fp32 ? NULL : (uint8_t *)calloc((size_t)1 << log2, 1);
	uint8_t *xs = fp32 ? NULL : (uint8_t *)malloc((size_t)1 << log2);
	int ok = dec && hi && (fp32 || (zsm && xs)) ? 1 : -1;
	if (dec)
		dec->raw_bits = (uint8_t)d->ebits;
	uint64_t n_esc = 0, prev = 0;
	for (uint64_t c = 0; c < L->n_chunks && ok > 0;) {
		splitzip_entropy_chunk q[2];
		const unsigned m = c + 1 < L->n_chunks ? 2 : 1;
		for (unsigned j = 0; j < m; j++) {
			const uint64_t v = splitzip_get_u8s(f + L->table + 4 * (c + j), 4);
			q[j].words = f + L->stream + 2 * prev;
			q[j].n_words = (size_t)(v - prev);
			q[j].sm = fp32 ? f + L->rest[0] + ((c + j) << log2) : zsm;
			q[j].n = (size_t)splitzip_chunk_len(n, log2, c + j);
			q[j].dst = hi + ((size_t)j << log2);
			q[j].n_escapes = 0;
			prev = v;
		}
		ok = (m == 2
		          ? k->entropy_decode_pair(dec, q)
		          : k->entropy_decode_chunk(dec, q[0].words, q[0].n_words, q[0].sm, q[0].n,
		                                    q[0].dst, &q[0].n_escapes)) == SPLITZIP_OK;
		for (unsigned j = 0; j < m && ok > 0; j++, c++) {
			n_esc += q[j].n_escapes;
			if (fp32) /* while the chunk's high halves are in the cache */
				join_fp32_k(k, q[j].dst, f + L->rest[1] + 2 * (c << log2), q[j].n,
				            dst + 4 * (c << log2));
			else /* while the chunk is in the cache */
				join_chunk(k, d, q[j].dst, c << log2, q[j].n, xs, f, L, dst);
		}
	}
	if (ok > 0)
		ok = n_esc == h->n_escapes;
	free(xs);
	free(zsm);
	free(hi);
	free(dec);
	return ok;
}

static splitzip_status decode_coded(const splitzip_host_kernels *k, const splitzip_dtype_desc *d,
                                    const splitzip_header *h, const uint8_t *f, uint8_t *dst)
{
	sz_dt_layout L;
	if (h->mode == SPLITZIP_MODE_SPLIT4)
		sz_dt_split4_layout(d, h->n_elems, h->chunk_log2, h->n_escapes, &L);
	else
		sz_dt_entropy_layout(d, h->n_elems, h->chunk_log2, h->n_words, h->table_first,
		                     h->table_last, &L);
	if (k && h->mode == SPLITZIP_MODE_ENTROPY) {
		const int r = decode_entropy_k(k, d, h, f, &L, dst);
		return r > 0   ? SPLITZIP_OK
		       : r < 0 ? SPLITZIP_ERROR_OUT_OF_MEMORY
		               : SPLITZIP_ERROR_CORRUPT_STREAM;
	}
	uint8_t *xs = (uint8_t *)malloc(h->n_elems ? (size_t)h->n_elems : 1);
	if (!xs)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	const int r = h->mode == SPLITZIP_MODE_SPLIT4 ? decode_split4(d, h, f, &L, xs)
	                                              : decode_entropy(d, h, f, &L, xs);
	if (r > 0)
		join_all(d, xs, h->n_elems, f, &L, dst);
	free(xs);
	return r > 0   ? SPLITZIP_OK
	       : r < 0 ? SPLITZIP_ERROR_OUT_OF_MEMORY
	               : SPLITZIP_ERROR_CORRUPT_STREAM;
}

splitzip_status splitzip_dtype_decode(const splitzip_host_kernels *k, const splitzip_header *h,
                                      const uint8_t *src, void *dst)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(h->dtype);
	uint8_t *out = (uint8_t *)dst;
	const uint64_t bytes = d->width * h->n_elems;
	splitzip_status st = SPLITZIP_OK;
	if (h->mode == SPLITZIP_MODE_STORED) {
		if (!zero(src, SPLITZIP_FRAME_HEADER_SIZE + bytes, h->frame_size))
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		if (bytes)
			memcpy(out, src + SPLITZIP_FRAME_HEADER_SIZE, (size_t)bytes);
	} else {
		st = decode_coded(k, d, h, src, out);
	}
	if (st == SPLITZIP_OK && (h->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) &&
	    splitzip_dtype_content_checksum(d, out, h->n_elems, h->chunk_log2) !=
	        h->content_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	return st;
}

splitzip_status splitzip_dtype_frame_table(const uint8_t *src, uint64_t src_size,
                                           const splitzip_header *h, splitzip_entropy_table *t)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(h->dtype);
	sz_dt_layout L;
	sz_dt_entropy_layout(d, h->n_elems, h->chunk_log2, h->n_words, h->table_first,
	                     h->table_last, &L);
	const uint64_t K = splitzip_entropy_nibbles(h->table_first, h->table_last);
	if (src_size < L.lengths + (K + 1) / 2)
		return SPLITZIP_ERROR_TRUNCATED;
	splitzip_entropy_table tt;
	if (!read_table(h, src, &L, &tt))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	*t = tt;
	return SPLITZIP_OK;
}
