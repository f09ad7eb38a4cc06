/*
 * sz_entropy.c -- entropy tables on the host (doc/FORMAT.md §5.2-§5.4, §4.3.3, §9.2): the
 * canonical table of a histogram, validity, the encoder and decoder tables the kernels
 * receive, a frame's code-length section and the table file.
 */
#include "sz_entropy.h"

int splitzip_entropy_table_ok(const splitzip_entropy_table *t)
{
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
	splitzip_entropy_lengths_of(t, len);
	return splitzip_entropy_complete(len);
}

#define SZ_ENTROPY_MAX_TOTAL ((uint64_t)1 << 59)

/*
 * FORMAT.md §5.2: the weight of exponent e is its count, the weight of the escape symbol is 1,
 * and the lengths are package-merge's with the limit 11. At most 257 symbols get a code, so the
 * limit always suffices (257 <= 2^11); with at least one nonzero count there are at least two
 * symbols, and the code is complete.
 */
int splitzip_entropy_table_select(const uint64_t hist[256], splitzip_entropy_table *t)
{
	uint64_t w[SPLITZIP_ENTROPY_SYMBOLS], total = 0;
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
	for (unsigned e = 0; e < 256; e++) {
		w[e] = hist[e];
		/* The lists' sums stay below 11 times the total: keep it below 2^59. */
		if (hist[e] >= SZ_ENTROPY_MAX_TOTAL - total)
			return 0;
		total += hist[e];
	}
	w[SPLITZIP_ENTROPY_ESC] = 1;
	if (splitzip_entropy_package_merge(w, len) < 2)
		return 0;
	memcpy(t->lengths, len, 256);
	t->escape_length = len[SPLITZIP_ENTROPY_ESC];
	return 1;
}

void splitzip_entropy_enc_init(splitzip_entropy_enc_tables *enc, const splitzip_entropy_table *t)
{
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
	uint16_t code[SPLITZIP_ENTROPY_SYMBOLS];
	splitzip_entropy_lengths_of(t, len);
	splitzip_entropy_codes(len, code);
	const unsigned le = len[SPLITZIP_ENTROPY_ESC];
	const uint32_t esc = splitzip_entropy_reverse(code[SPLITZIP_ENTROPY_ESC], le) |
	                     (uint32_t)le << SPLITZIP_ENTROPY_ENC_LEN_SHIFT |
	                     SPLITZIP_ENTROPY_ENC_ESCAPE;
	for (unsigned e = 0; e < 256; e++)
		enc->sym[e] = len[e] ? splitzip_entropy_reverse(code[e], len[e]) |
		                           (uint32_t)len[e] << SPLITZIP_ENTROPY_ENC_LEN_SHIFT
		                     : esc;
}

/* An escape's raw bits are read when fewer than their width are held: BF16's threshold is the
 * width, which is what the kernels compare with (dec->raw_bits, the other dtypes' width too). */
SZ_STATIC_ASSERT(SPLITZIP_ENTROPY_REFILL_RAW == SPLITZIP_ENTROPY_RAW_BITS,
                 "the refill threshold before raw bits is their width");

/*
 * Every 11-bit string x whose first len[s] bits (bits 0.. of x) are the code of s decodes to s:
 * the 2^(11 - len) entries x = reverse(code) + k * 2^len. The code is complete, so these sets
 * cover the table exactly.
 */
void splitzip_entropy_dec_init(splitzip_entropy_dec_tables *dec, const splitzip_entropy_table *t)
{
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
	uint16_t code[SPLITZIP_ENTROPY_SYMBOLS];
	splitzip_entropy_lengths_of(t, len);
	splitzip_entropy_codes(len, code);
	dec->long_space = 0;
	for (unsigned s = 0; s < SPLITZIP_ENTROPY_SYMBOLS; s++) {
		if (!len[s])
			continue;
		if (len[s] > 7)
			dec->long_space +=
			    (uint16_t)(1u << (SPLITZIP_ENTROPY_MAX_CODE_LENGTH - len[s]));
		const uint32_t entry = s | (uint32_t)len[s] << SPLITZIP_ENTROPY_DEC_LEN_SHIFT;
		for (uint32_t x = splitzip_entropy_reverse(code[s], len[s]);
		     x < SZ_ENTROPY_LUT_SIZE; x += 1u << len[s])
			dec->lut[x] = entry;
	}
	for (unsigned e = 0; e < 256; e++)
		dec->coded[e] = len[e] != 0;
	dec->raw_bits = SPLITZIP_ENTROPY_RAW_BITS;
	dec->esc_len = len[SPLITZIP_ENTROPY_ESC];
	dec->esc_code = (uint16_t)splitzip_entropy_reverse(code[SPLITZIP_ENTROPY_ESC],
	                                                   len[SPLITZIP_ENTROPY_ESC]);
}

/* ---- The code-length section of a frame (FORMAT.md §4.3.3) -------------------------------- */

int splitzip_entropy_frame_table(const uint8_t *frame, const splitzip_header *h,
                                 splitzip_entropy_table *t)
{
	splitzip_entropy_layout L;
	splitzip_entropy_layout_of(h->n_elems, h->chunk_log2, h->n_words, h->table_first,
	                           h->table_last, &L);
	const uint8_t *p = frame + L.lengths_off;
	const uint64_t K = splitzip_entropy_nibbles(h->table_first, h->table_last);
	memset(t->lengths, 0, sizeof t->lengths);
	for (uint64_t k = 0; k < K; k++) {
		unsigned v = (p[k / 2] >> (4 * (k % 2))) & 0xF;
		if (v > SPLITZIP_ENTROPY_MAX_CODE_LENGTH)
			return 0;
		t->lengths[h->table_first + k] = (uint8_t)v;
	}
	if (K % 2 && (p[K / 2] >> 4))
		return 0; /* the pad nibble */
	t->escape_length = (uint8_t)h->escape_length;
	/* The range is exact: its first and last exponents have codes. */
	if (!t->lengths[h->table_first] || !t->lengths[h->table_last])
		return 0;
	return splitzip_entropy_table_ok(t);
}

size_t splitzip_entropy_lengths_write(const splitzip_entropy_table *t, uint8_t *out,
                                      unsigned *first, unsigned *last)
{
	unsigned lo = 256, hi = 0;
	for (unsigned e = 0; e < 256; e++)
		if (t->lengths[e]) {
			lo = lo < e ? lo : e;
			hi = e;
		}
	/* A valid table codes an exponent: with only the escape symbol it could not be complete. */
	const size_t K = (size_t)splitzip_entropy_nibbles(lo, hi), bytes = (K + 1) / 2;
	memset(out, 0, bytes);
	for (size_t k = 0; k < K; k++)
		out[k / 2] |= (uint8_t)(t->lengths[lo + k] << (4 * (k % 2)));
	*first = lo;
	*last = hi;
	return bytes;
}

/* ---- Table file: "SZET", version, dtype, limit, escape length, 256 nibbles, checksum ------- */

#define SZ_ET_MAGIC 0x54455A53u /* bytes 53 5A 45 54: "SZET" */
#define SZ_ET_BODY 136u         /* bytes covered by the checksum */

void splitzip_entropy_file_write(const splitzip_entropy_table *t,
                                 uint8_t out[SPLITZIP_ENTROPY_TABLE_FILE_SIZE])
{
	memset(out, 0, SPLITZIP_ENTROPY_TABLE_FILE_SIZE);
	splitzip_st32(out, SZ_ET_MAGIC);
	out[4] = 1; /* table file version */
	out[5] = SPLITZIP_DTYPE_BF16;
	out[6] = SPLITZIP_ENTROPY_MAX_CODE_LENGTH;
	out[7] = t->escape_length;
	for (unsigned e = 0; e < 256; e++)
		out[8 + e / 2] |= (uint8_t)(t->lengths[e] << (4 * (e % 2)));
	splitzip_st32(out + SZ_ET_BODY, (uint32_t)splitzip_hash_bytes_small(out, SZ_ET_BODY));
}

splitzip_status splitzip_entropy_file_read(const uint8_t *b, size_t src_size,
                                           splitzip_entropy_table *t)
{
	if (src_size < SPLITZIP_ENTROPY_TABLE_FILE_SIZE)
		return SPLITZIP_ERROR_TRUNCATED;
	if (src_size != SPLITZIP_ENTROPY_TABLE_FILE_SIZE || splitzip_le32(b) != SZ_ET_MAGIC ||
	    b[4] != 1 || b[5] != SPLITZIP_DTYPE_BF16 || b[6] != SPLITZIP_ENTROPY_MAX_CODE_LENGTH ||
	    splitzip_le32(b + SZ_ET_BODY) != (uint32_t)splitzip_hash_bytes_small(b, SZ_ET_BODY))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	splitzip_entropy_table r;
	for (unsigned e = 0; e < 256; e++)
		r.lengths[e] = (uint8_t)((b[8 + e / 2] >> (4 * (e % 2))) & 0xF);
	r.escape_length = b[7];
	if (!splitzip_entropy_table_ok(&r))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	*t = r;
	return SPLITZIP_OK;
}
