/*
 * sz_ref.c -- the scalar reference kernels: the oracle every other backend must match byte for
 * byte, and the "scalar" backend (always compiled in, always usable, last in priority).
 *
 * Written for obviousness, not speed: one element at a time, straight from doc/FORMAT.md §2/§4.
 */
#include "sz_kernels.h"

void splitzip_ref_histogram(const uint16_t *src, size_t n, uint64_t hist[256])
{
	for (size_t i = 0; i < n; i++)
		hist[splitzip_bf16_exponent(src[i])]++;
}

/* FORMAT.md §4.2: codes (low nibble first), sign/mantissa bytes, escapes in position order. */
size_t splitzip_ref_encode_chunk(const splitzip_enc_tables *t, const uint16_t *src, size_t n,
                                 uint8_t *codes, uint8_t *sm, uint16_t *esc_pos, uint8_t *esc_exp)
{
	size_t n_esc = 0;
	for (size_t i = 0; i < n; i++) {
		uint16_t v = src[i];
		uint8_t e = splitzip_bf16_exponent(v);
		uint8_t code = t->code_of[e]; /* 0 for an escape */
		if (t->is_escape[e]) {
			esc_pos[n_esc] = (uint16_t)i;
			esc_exp[n_esc] = e;
			n_esc++;
		}
		if (i % 2 == 0)
			codes[i / 2] = code;
		else
			codes[i / 2] |= (uint8_t)(code << 4);
		sm[i] = splitzip_bf16_signman(v);
	}
	return n_esc;
}

size_t splitzip_ref_encode_count_chunk(const splitzip_enc_tables *t, const splitzip_watch *w,
                                       const uint16_t *src, size_t n, uint8_t *codes, uint8_t *sm,
                                       uint16_t *esc_pos, uint8_t *esc_exp,
                                       uint64_t cnt[SPLITZIP_WATCH_MAX])
{
	const size_t n_esc = splitzip_ref_encode_chunk(t, src, n, codes, sm, esc_pos, esc_exp);
	for (size_t i = 0; i < n; i++) {
		const unsigned s = w->slot[(codes[i / 2] >> (4 * (i % 2))) & 0xF];
		if (s)
			cnt[s - 1]++;
	}
	return n_esc;
}

void splitzip_ref_count_codes(const uint8_t *codes, size_t n, uint64_t hits[16])
{
	for (size_t i = 0; i < n; i++)
		hits[(codes[i / 2] >> (4 * (i % 2))) & 0xF]++;
}

size_t splitzip_ref_recode_codes(uint8_t *codes, size_t n, const uint8_t map[16],
                                 const uint8_t flag[16], uint32_t *hits)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned sh = 4 * (i % 2), c = (codes[i / 2] >> sh) & 0xF;
		if (flag[c])
			hits[k++] = (uint32_t)i | (uint32_t)c << 16;
		codes[i / 2] = (uint8_t)((codes[i / 2] & ~(0xF << sh)) | map[c] << sh);
	}
	return k;
}

void splitzip_ref_decode_chunk(const uint8_t codebook[16], const uint8_t *codes, const uint8_t *sm,
                               size_t n, uint16_t *dst)
{
	for (size_t i = 0; i < n; i++) {
		unsigned code = (codes[i / 2] >> (4 * (i % 2))) & 0xF;
		dst[i] = splitzip_bf16_join(codebook[code], sm[i]);
	}
}

/* ---- Mode 2: entropy chunks (FORMAT.md §4.3) ---------------------------------------------- */

/*
 * The encoder runs the decoder of FORMAT.md §4.3.5 alongside itself. 'held' is the number of
 * bits the decoder holds for the lane; wherever the decoder reads a word, the encoder reserves
 * the chunk's next word for the lane (a slot), and it fills the lane's reserved words in order
 * as the lane's bits are produced. The decoder reads a word before it needs any bit of it, so a
 * slot is always reserved before its bits are complete, and at most two are open at a time
 * (held <= 26 bits plus fewer than 16 pending).
 */
typedef struct ref_lane {
	uint32_t acc;      /* bits produced but not yet stored in a word, first bit in bit 0 */
	unsigned acc_bits; /* < 16 between calls */
	unsigned held;     /* bits the decoder holds for this lane */
	uint32_t slot[4];  /* reserved words not yet filled, oldest at 'head' */
	unsigned head, open;
} ref_lane;

/* The decoder reads a word for this lane when it holds fewer than 'threshold' bits. */
static void ref_reserve(ref_lane *l, unsigned threshold, size_t *next_word)
{
	if (l->held < threshold) {
		l->slot[(l->head + l->open) % 4] = (uint32_t)(*next_word)++;
		l->open++;
		l->held += SPLITZIP_ENTROPY_WORD_BITS;
	}
}

/* Append 'len' bits (first bit in bit 0) to the lane; a completed word goes to its slot. */
static void ref_put(ref_lane *l, uint32_t bits, unsigned len, uint8_t *words)
{
	l->acc |= bits << l->acc_bits;
	l->acc_bits += len;
	l->held -= len;
	if (l->acc_bits >= 16) {
		splitzip_st16(words + 2 * (size_t)l->slot[l->head], (uint16_t)l->acc);
		l->head = (l->head + 1) % 4;
		l->open--;
		l->acc >>= 16;
		l->acc_bits -= 16;
	}
}

/*
 * One step of m <= 32 lanes (FORMAT.md §4.3.5): the refills before the symbols (lanes in
 * order), the symbols, and, if the step has escapes, the refills before their raw bits (lanes
 * in order) and the raw bits. Returns the step's escape count.
 */
static size_t ref_encode_step(const splitzip_entropy_enc_tables *t, const uint16_t *src, size_t m,
                              uint8_t *sm, ref_lane *lane, uint8_t *words, size_t *next)
{
	uint32_t e[SPLITZIP_ENTROPY_LANES], any = 0;
	for (size_t l = 0; l < m; l++) {
		e[l] = t->sym[splitzip_bf16_exponent(src[l])];
		sm[l] = splitzip_bf16_signman(src[l]);
		any |= e[l];
	}
	for (size_t l = 0; l < m; l++)
		ref_reserve(&lane[l], SPLITZIP_ENTROPY_REFILL_SYMBOL, next);
	for (size_t l = 0; l < m; l++)
		ref_put(&lane[l], e[l] & 0xFFFF, (e[l] >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xFF,
		        words);
	if (!(any & SPLITZIP_ENTROPY_ENC_ESCAPE))
		return 0;
	size_t n_esc = 0;
	for (size_t l = 0; l < m; l++)
		if (e[l] & SPLITZIP_ENTROPY_ENC_ESCAPE)
			ref_reserve(&lane[l], SPLITZIP_ENTROPY_REFILL_RAW, next);
	for (size_t l = 0; l < m; l++)
		if (e[l] & SPLITZIP_ENTROPY_ENC_ESCAPE) {
			ref_put(&lane[l], splitzip_bf16_exponent(src[l]), SPLITZIP_ENTROPY_RAW_BITS,
			        words);
			n_esc++;
		}
	return n_esc;
}

size_t splitzip_ref_entropy_encode_chunk(const splitzip_entropy_enc_tables *t, const uint16_t *src,
                                         size_t n, uint8_t *sm, uint8_t *words, size_t *n_words)
{
	ref_lane lane[SPLITZIP_ENTROPY_LANES];
	memset(lane, 0, sizeof lane);
	size_t next = 0, n_esc = 0;
	for (size_t i0 = 0; i0 < n; i0 += SPLITZIP_ENTROPY_LANES) {
		const size_t m = n - i0 < SPLITZIP_ENTROPY_LANES ? n - i0 : SPLITZIP_ENTROPY_LANES;
		n_esc += ref_encode_step(t, src + i0, m, sm + i0, lane, words, &next);
	}
	/* The last bits of each lane, zero-padded, then zero words for slots never needed. */
	for (unsigned l = 0; l < SPLITZIP_ENTROPY_LANES; l++)
		for (; lane[l].open; lane[l].open--, lane[l].acc = 0) {
			splitzip_st16(words + 2 * (size_t)lane[l].slot[lane[l].head],
			              (uint16_t)lane[l].acc);
			lane[l].head = (lane[l].head + 1) % 4;
		}
	*n_words = next;
	return n_esc;
}

/* Give lane l a word if it holds fewer than 'threshold' bits; 0 if the chunk has none left. */
static int ref_refill(uint32_t *buf, unsigned *held, unsigned threshold, const uint8_t *words,
                      size_t n_words, size_t *next)
{
	if (*held >= threshold)
		return 1;
	if (*next == n_words)
		return 0;
	*buf |= (uint32_t)splitzip_le16(words + 2 * *next) << *held;
	*held += SPLITZIP_ENTROPY_WORD_BITS;
	(*next)++;
	return 1;
}

/* The state of a chunk's decoder (FORMAT.md §4.3.5). */
typedef struct ref_dec {
	const uint8_t *words;
	size_t n_words, next;
	uint32_t buf[SPLITZIP_ENTROPY_LANES];
	unsigned held[SPLITZIP_ENTROPY_LANES];
} ref_dec;

/*
 * One step of m <= 32 lanes: refills (lanes in order), symbols, refills before the raw bits of
 * the escapes (lanes in order), raw bits. An element that is not an escape is written in the
 * symbol phase already; only the reads of words must keep the order. Returns the step's
 * escape count, or -1 if the chunk is invalid (§4.3.6 rule 4).
 */
static int ref_decode_step(const splitzip_entropy_dec_tables *t, ref_dec *d, const uint8_t *sm,
                           size_t m, uint16_t *dst)
{
	unsigned sym[SPLITZIP_ENTROPY_LANES], any_esc = 0;
	for (size_t l = 0; l < m; l++)
		if (!ref_refill(&d->buf[l], &d->held[l], SPLITZIP_ENTROPY_REFILL_SYMBOL, d->words,
		                d->n_words, &d->next))
			return -1;
	for (size_t l = 0; l < m; l++) {
		const uint32_t e = t->lut[d->buf[l] & (SZ_ENTROPY_LUT_SIZE - 1)];
		const unsigned len = e >> SPLITZIP_ENTROPY_DEC_LEN_SHIFT;
		sym[l] = e & SPLITZIP_ENTROPY_DEC_SYM_MASK;
		d->buf[l] >>= len;
		d->held[l] -= len;
		if (sym[l] != SPLITZIP_ENTROPY_ESC)
			dst[l] = splitzip_bf16_join((uint8_t)sym[l], sm[l]);
		any_esc |= sym[l] == SPLITZIP_ENTROPY_ESC;
	}
	if (!any_esc)
		return 0;
	int n_esc = 0;
	for (size_t l = 0; l < m; l++)
		if (sym[l] == SPLITZIP_ENTROPY_ESC &&
		    !ref_refill(&d->buf[l], &d->held[l], t->raw_bits, d->words, d->n_words,
		                &d->next))
			return -1;
	for (size_t l = 0; l < m; l++) {
		if (sym[l] != SPLITZIP_ENTROPY_ESC)
			continue;
		const unsigned x = d->buf[l] & ((1u << t->raw_bits) - 1);
		d->buf[l] >>= t->raw_bits;
		d->held[l] -= t->raw_bits;
		if (t->coded[x]) /* §4.3.6: an escape only for an exponent without a code */
			return -1;
		dst[l] = splitzip_bf16_join((uint8_t)x, sm[l]);
		n_esc++;
	}
	return n_esc;
}

splitzip_status splitzip_ref_entropy_decode_chunk(const splitzip_entropy_dec_tables *t,
                                                  const uint8_t *words, size_t n_words,
                                                  const uint8_t *sm, size_t n, uint16_t *dst,
                                                  size_t *n_escapes)
{
	ref_dec d;
	memset(&d, 0, sizeof d);
	d.words = words;
	d.n_words = n_words;
	size_t n_esc = 0;
	for (size_t i0 = 0; i0 < n; i0 += SPLITZIP_ENTROPY_LANES) {
		const size_t m = n - i0 < SPLITZIP_ENTROPY_LANES ? n - i0 : SPLITZIP_ENTROPY_LANES;
		const int k = ref_decode_step(t, &d, sm + i0, m, dst + i0);
		if (k < 0)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		n_esc += (size_t)k;
	}
	/* §4.3.6: every word read, every bit left in a lane zero. */
	if (d.next != n_words)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	for (unsigned l = 0; l < SPLITZIP_ENTROPY_LANES; l++)
		if (d.buf[l])
			return SPLITZIP_ERROR_CORRUPT_STREAM;
	*n_escapes = n_esc;
	return SPLITZIP_OK;
}

splitzip_status splitzip_ref_entropy_decode_pair(const splitzip_entropy_dec_tables *t,
                                                 splitzip_entropy_chunk c[2])
{
	for (unsigned j = 0; j < 2; j++) {
		splitzip_status st = splitzip_ref_entropy_decode_chunk(
		    t, c[j].words, c[j].n_words, c[j].sm, c[j].n, c[j].dst, &c[j].n_escapes);
		if (st != SPLITZIP_OK)
			return st;
	}
	return SPLITZIP_OK;
}

const splitzip_host_kernels splitzip_kernels_scalar = {
    .histogram = splitzip_ref_histogram,
    .encode_chunk = splitzip_ref_encode_chunk,
    .decode_chunk = splitzip_ref_decode_chunk,
    .encode_chunk_stream = splitzip_ref_encode_chunk,
    .decode_chunk_stream = splitzip_ref_decode_chunk,
    .hash_chunk = splitzip_hash_bytes,
    .encode_count_chunk = splitzip_ref_encode_count_chunk,
    .encode_count_chunk_stream = splitzip_ref_encode_count_chunk,
    .count_codes = splitzip_ref_count_codes,
    .recode_codes = splitzip_ref_recode_codes,
    SPLITZIP_ENTROPY_SCALAR_KERNELS,
};
