/*
 * sz_codebook.c -- canonical codebook selection (doc/FORMAT.md §5.1), encoder tables and the
 * codebook file format (doc/FORMAT.md §9).
 */
#include "sz_codebook.h"

/*
 * Canonical selection (FORMAT.md §5.1): order all 256 exponents by (count descending, exponent
 * ascending), take the first 16, sort them ascending.
 *
 * One pass over the exponents in ascending order keeps the best 16 so far in rank order. A
 * later (larger) exponent ranks after every kept one with an equal count, so it moves only
 * past strictly smaller counts, and it enters a full list only with a count strictly above
 * the last one's. About 256 comparisons: on a 64 KiB page this matters (16 x 256 took ~3 us,
 * as long as encoding the page).
 */
void splitzip_codebook_select(const uint64_t hist[256], uint8_t codebook[16])
{
	uint8_t best[SPLITZIP_CODEBOOK_SIZE];
	unsigned k = 0;
	for (unsigned e = 0; e < 256; e++) {
		uint64_t c = hist[e];
		if (k == SPLITZIP_CODEBOOK_SIZE && c <= hist[best[k - 1]])
			continue;
		unsigned j = k < SPLITZIP_CODEBOOK_SIZE ? k++ : k - 1;
		while (j > 0 && hist[best[j - 1]] < c) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = (uint8_t)e;
	}
	/* Ascending order: insertion sort of 16 bytes. */
	for (unsigned i = 1; i < SPLITZIP_CODEBOOK_SIZE; i++) {
		uint8_t v = best[i];
		unsigned j = i;
		while (j > 0 && best[j - 1] > v) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = v;
	}
	memcpy(codebook, best, SPLITZIP_CODEBOOK_SIZE);
}

int splitzip_codebook_ok(const uint8_t codebook[16])
{
	for (unsigned i = 1; i < SPLITZIP_CODEBOOK_SIZE; i++)
		if (codebook[i] <= codebook[i - 1])
			return 0;
	return 1;
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

void splitzip_watch_init(splitzip_watch *w, const uint8_t *codes, unsigned n)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	w->n_pairs = n <= 4 ? 2 : 4;
	for (unsigned j = 0; j < n; j++) {
		w->code[j] = codes[j];
		w->slot[codes[j]] = (uint8_t)(j + 1);
		w->pair[j / 2][codes[j]] = j % 2 ? 16 : 1;
	}
}

/* ---- Codebook file: "SZCB", version, dtype, entry count, reserved, 16 exponents, checksum -- */

#define SZ_CB_MAGIC 0x42435A53u /* bytes 53 5A 43 42: "SZCB" */
#define SZ_CB_BODY 24u          /* bytes covered by the checksum */

void splitzip_codebook_file_write(const uint8_t codebook[16],
                                  uint8_t out[SPLITZIP_CODEBOOK_FILE_SIZE])
{
	memset(out, 0, SPLITZIP_CODEBOOK_FILE_SIZE);
	splitzip_st32(out, SZ_CB_MAGIC);
	out[4] = 1; /* codebook file version */
	out[5] = SPLITZIP_DTYPE_BF16;
	out[6] = SPLITZIP_CODEBOOK_SIZE;
	out[7] = 0;
	memcpy(out + 8, codebook, 16);
	splitzip_st32(out + SZ_CB_BODY, (uint32_t)splitzip_hash_bytes_small(out, SZ_CB_BODY));
}

splitzip_status splitzip_codebook_file_read(const uint8_t *b, size_t src_size, uint8_t codebook[16])
{
	if (src_size < SPLITZIP_CODEBOOK_FILE_SIZE)
		return SPLITZIP_ERROR_TRUNCATED;
	if (src_size != SPLITZIP_CODEBOOK_FILE_SIZE || splitzip_le32(b) != SZ_CB_MAGIC ||
	    b[4] != 1 || b[5] != SPLITZIP_DTYPE_BF16 || b[6] != SPLITZIP_CODEBOOK_SIZE ||
	    b[7] != 0 ||
	    splitzip_le32(b + SZ_CB_BODY) != (uint32_t)splitzip_hash_bytes_small(b, SZ_CB_BODY) ||
	    !splitzip_codebook_ok(b + 8))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	memcpy(codebook, b + 8, 16);
	return SPLITZIP_OK;
}
