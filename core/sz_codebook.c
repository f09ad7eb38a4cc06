/*
 * sz_codebook.c -- exponent histograms, canonical codebook selection (doc/FORMAT.md §5.1),
 * encoder tables and the codebook file format (doc/FORMAT.md §9).
 */
#include "sz_internal.h"

splitzip_status splitzip_histogram(const uint16_t *src, size_t n_elems, uint64_t hist[256])
{
	if (!hist || (!src && n_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_ref_histogram(src, n_elems, hist);
	return SPLITZIP_OK;
}

/*
 * Canonical selection (FORMAT.md §5.1): order all 256 exponents by (count descending, exponent
 * ascending), take the first 16, sort them ascending. A selection pass per slot is 16 x 256
 * comparisons: negligible next to building the histogram.
 */
splitzip_status splitzip_codebook_from_histogram(const uint64_t hist[256], splitzip_codebook *cb)
{
	if (!hist || !cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	uint8_t taken[256] = {0};
	for (unsigned k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++) {
		int best = -1;
		for (unsigned e = 0; e < 256; e++) {
			/* strictly greater: on equal counts the smaller exponent, seen first, stays */
			if (!taken[e] && (best < 0 || hist[e] > hist[best]))
				best = (int)e;
		}
		taken[best] = 1;
	}
	unsigned k = 0;
	for (unsigned e = 0; e < 256; e++)
		if (taken[e])
			cb->exponents[k++] = (uint8_t)e;
	return SPLITZIP_OK;
}

splitzip_status splitzip_calibrate(const uint16_t *src, size_t n_elems, splitzip_codebook *cb)
{
	uint64_t hist[256] = {0};
	if (!cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_status st = splitzip_histogram(src, n_elems, hist);
	if (st != SPLITZIP_OK)
		return st;
	return splitzip_codebook_from_histogram(hist, cb);
}

splitzip_status splitzip_codebook_validate(const splitzip_codebook *cb)
{
	if (!cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	for (unsigned i = 1; i < SPLITZIP_CODEBOOK_SIZE; i++)
		if (cb->exponents[i] <= cb->exponents[i - 1])
			return SPLITZIP_ERROR_BAD_CODEBOOK;
	return SPLITZIP_OK;
}

void splitzip_enc_tables_init(splitzip_enc_tables *t, const uint8_t codebook[16])
{
	memset(t->code_of, 0, sizeof t->code_of);
	memset(t->is_escape, 1, sizeof t->is_escape);
	for (unsigned k = 0; k < 16; k++) {
		t->codebook[k] = codebook[k];
		t->code_of[codebook[k]] = (uint8_t)k;
		t->is_escape[codebook[k]] = 0;
	}
	t->base = codebook[0];
	t->contiguous = codebook[15] == codebook[0] + 15; /* ascending + distinct => a window */
}

/* ---- Codebook file: "SZCB", version, dtype, entry count, reserved, 16 exponents, checksum -- */

#define SZ_CB_MAGIC 0x42435A53u /* bytes 53 5A 43 42: "SZCB" */
#define SZ_CB_BODY 24u		/* bytes covered by the checksum */

splitzip_status splitzip_codebook_serialize(const splitzip_codebook *cb, void *dst, size_t dst_cap)
{
	if (!cb || !dst)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (splitzip_codebook_validate(cb) != SPLITZIP_OK)
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	if (dst_cap < SPLITZIP_CODEBOOK_FILE_SIZE)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	uint8_t b[SPLITZIP_CODEBOOK_FILE_SIZE] = {0};
	splitzip_st32(b, SZ_CB_MAGIC);
	b[4] = 1;  /* codebook file version */
	b[5] = SPLITZIP_DTYPE_BF16;
	b[6] = SPLITZIP_CODEBOOK_SIZE;
	b[7] = 0;
	memcpy(b + 8, cb->exponents, 16);
	splitzip_st32(b + SZ_CB_BODY, (uint32_t)splitzip_hash_bytes_small(b, SZ_CB_BODY));
	memcpy(dst, b, sizeof b);
	return SPLITZIP_OK;
}

splitzip_status splitzip_codebook_deserialize(const void *src, size_t src_size,
					      splitzip_codebook *cb)
{
	if (!src || !cb)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (src_size < SPLITZIP_CODEBOOK_FILE_SIZE)
		return SPLITZIP_ERROR_TRUNCATED;
	const uint8_t *b = (const uint8_t *)src;
	if (src_size != SPLITZIP_CODEBOOK_FILE_SIZE || splitzip_le32(b) != SZ_CB_MAGIC ||
	    b[4] != 1 || b[5] != SPLITZIP_DTYPE_BF16 || b[6] != SPLITZIP_CODEBOOK_SIZE || b[7] != 0 ||
	    splitzip_le32(b + SZ_CB_BODY) != (uint32_t)splitzip_hash_bytes_small(b, SZ_CB_BODY))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	splitzip_codebook tmp;
	memcpy(tmp.exponents, b + 8, 16);
	if (splitzip_codebook_validate(&tmp) != SPLITZIP_OK)
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	*cb = tmp;
	return SPLITZIP_OK;
}
