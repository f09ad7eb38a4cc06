/*
 * fuzz_common.h -- shared by the fuzz targets: the failure macro and the encoder input format.
 *
 * The targets use only the public API. A broken property aborts, which libFuzzer reports as a
 * crash (and saves the input) and the corpus runner as a failed test.
 *
 * Encoder input format (fuzz_roundtrip, and the encode half of fuzz_differential):
 *   byte 0       bits 0-2: chunk_log2 = 10 + (bits % 7); bit 3: content checksum flag;
 *                bit 4: fixed codebook (bytes 2..17) instead of one from the input;
 *                bits 5-7: the payload is repeated 1 + bits times
 *   byte 1       rotation: repeat r is the payload rotated by r * byte 1 elements
 *   bytes 2..17  with byte 0 bit 4: the fixed codebook seed, 16 exponents made distinct and
 *                ascending (the split4 encoding). Without it: byte 2 bits 0-1 the encoding
 *                (0 split4, 1 entropy, 2 auto, 3 entropy), bit 2 a fixed entropy table made
 *                from bytes 3..17 (exponent byte 3+k weighs 1 + k) instead of one from the
 *                input
 *   bytes 18..   payload: little-endian BF16 values (an odd last byte is ignored)
 * Missing header bytes read as 0. Repeats let short inputs span several chunks. Inputs written
 * before the entropy encoding existed have zeros in bytes 2..17 without bit 4: split4, as then.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"

#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define FUZZ_ENC_HEADER 18

typedef struct fuzz_enc_input {
	splitzip_params params; /* backend AUTO; the caller sets it */
	uint16_t *data;         /* malloc'ed, exactly n elements (1 byte if n == 0) */
	size_t n;
} fuzz_enc_input;

static inline uint8_t fuzz_byte(const uint8_t *p, size_t size, size_t i)
{
	return i < size ? p[i] : 0;
}

/* Parse the encoder input format above. */
static inline void fuzz_enc_parse(const uint8_t *p, size_t size, fuzz_enc_input *in)
{
	uint8_t b0 = fuzz_byte(p, size, 0), b1 = fuzz_byte(p, size, 1);
	splitzip_params_init(&in->params);
	in->params.chunk_log2 = 10u + (b0 & 7u) % 7u;
	in->params.flags = (b0 & 0x08) ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	if (b0 & 0x10) {
		/* 16 distinct exponents: each seed byte, or the next free value above it. */
		uint8_t taken[256] = {0};
		for (size_t k = 0; k < 16; k++) {
			unsigned e = fuzz_byte(p, size, 2 + k);
			while (taken[e])
				e = (e + 1) & 0xFF;
			taken[e] = 1;
		}
		size_t k = 0;
		for (unsigned e = 0; e < 256; e++)
			if (taken[e])
				in->params.codebook.exponents[k++] = (uint8_t)e;
		in->params.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
	} else {
		const uint8_t b2 = fuzz_byte(p, size, 2);
		static const splitzip_encoding enc[4] = {
		    SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY, SPLITZIP_ENCODING_AUTO,
		    SPLITZIP_ENCODING_ENTROPY};
		in->params.encoding = enc[b2 & 3];
		if (b2 & 4) {
			uint64_t hist[256] = {0};
			for (size_t k = 0; k < 15; k++)
				hist[fuzz_byte(p, size, 3 + k)] += 1 + k;
			FUZZ_CHECK(splitzip_entropy_table_from_histogram(hist, &in->params.table) ==
			               SPLITZIP_OK,
			           "table from histogram");
			in->params.table_mode = SPLITZIP_CODEBOOK_FIXED;
		}
	}
	size_t m = size > FUZZ_ENC_HEADER ? (size - FUZZ_ENC_HEADER) / 2 : 0;
	size_t reps = 1u + (b0 >> 5);
	in->n = m * reps;
	in->data = (uint16_t *)malloc(in->n ? in->n * 2 : 1);
	FUZZ_CHECK(in->data != NULL, "out of memory");
	for (size_t r = 0; r < reps && m; r++) {
		size_t rot = (r * b1) % m;
		for (size_t i = 0; i < m; i++) {
			size_t j = (i + rot) % m;
			const uint8_t *q = p + FUZZ_ENC_HEADER + 2 * j;
			in->data[r * m + i] = (uint16_t)(q[0] | (q[1] << 8));
		}
	}
}

/* A status that decoding hostile bytes may legitimately return. */
static inline int fuzz_is_decode_status(splitzip_status st)
{
	switch (st) {
	case SPLITZIP_OK:
	case SPLITZIP_ERROR_DST_TOO_SMALL:
	case SPLITZIP_ERROR_CORRUPT_STREAM:
	case SPLITZIP_ERROR_UNSUPPORTED_FORMAT:
	case SPLITZIP_ERROR_BAD_MAGIC:
	case SPLITZIP_ERROR_TRUNCATED:
	case SPLITZIP_ERROR_HEADER_CHECKSUM:
	case SPLITZIP_ERROR_CONTENT_CHECKSUM:
		return 1;
	default:
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
