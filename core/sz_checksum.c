/*
 * sz_checksum.c -- the content checksum of doc/FORMAT.md §7, word-wise for CPUs.
 *
 * Computes exactly splitzip_hash_bytes_small() (sz_hash.h), the definition, but loads whole
 * 64-bit words and keeps the 32 lanes in an array the compiler can hold in registers or
 * vectorise; 32 independent multiply chains run at about 2 multiplies per 8 bytes.
 */
#include "sz_kernels.h"

uint64_t splitzip_hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	uint64_t acc[SPLITZIP_HASH_LANES];
	for (unsigned l = 0; l < SPLITZIP_HASH_LANES; l++)
		acc[l] = splitzip_hash_lane_init(l);
	size_t n_full = n / (8 * SPLITZIP_HASH_LANES); /* full 256-byte stripes */
	for (size_t s = 0; s < n_full; s++, b += 8 * SPLITZIP_HASH_LANES)
		for (unsigned l = 0; l < SPLITZIP_HASH_LANES; l++)
			acc[l] = splitzip_hash_round(acc[l], splitzip_le64(b + 8 * l));
	size_t rest = n - n_full * 8 * SPLITZIP_HASH_LANES;
	for (unsigned l = 0; rest > 0; l++) {
		uint64_t w = 0;
		size_t take = rest < 8 ? rest : 8;
		memcpy(&w, b + 8 * l, take); /* zero padding of the last word (little-endian) */
		acc[l] = splitzip_hash_round(acc[l], w);
		rest -= take;
	}
	uint64_t sum = 0;
	for (unsigned l = 0; l < SPLITZIP_HASH_LANES; l++)
		sum += splitzip_hash_lane_fold(acc[l], l);
	return splitzip_hash_chunk_final(n, sum);
}
