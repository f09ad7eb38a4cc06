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

void splitzip_ref_decode_chunk(const uint8_t codebook[16], const uint8_t *codes, const uint8_t *sm,
                               size_t n, uint16_t *dst)
{
	for (size_t i = 0; i < n; i++) {
		unsigned code = (codes[i / 2] >> (4 * (i % 2))) & 0xF;
		dst[i] = splitzip_bf16_join(codebook[code], sm[i]);
	}
}

const splitzip_host_kernels splitzip_kernels_scalar = {
    .histogram = splitzip_ref_histogram,
    .encode_chunk = splitzip_ref_encode_chunk,
    .decode_chunk = splitzip_ref_decode_chunk,
    .encode_chunk_stream = splitzip_ref_encode_chunk,
    .decode_chunk_stream = splitzip_ref_decode_chunk,
    .hash_chunk = splitzip_hash_bytes,
};
