/*
 * sz_hash.h -- the primitives of the splitzip content and header checksum (doc/FORMAT.md §7),
 * as static inline host/device helpers so that CPU and GPU code compute the same values.
 *
 * Why this construction: a frame's checksum must be computable per chunk in parallel on a GPU
 * (one warp per chunk, coalesced loads) and at >= 10 GB/s on one CPU core. A chunk's bytes are
 * read as little-endian 64-bit words; word j feeds lane (j mod 32) through the XXH64 round
 * acc = rotl(acc + w * P2, 31) * P1, so 32 independent dependency chains keep a CPU's
 * multiplier busy and map one-to-one onto the 32 threads of a warp (a 64-wide AMD wavefront
 * simply uses half its lanes). Lanes are folded by a wrapping sum of fmix64(acc ^ lane * P4),
 * which a warp reduces in any order with the same result. Chunks are combined the same way,
 * the chunk index mixed in, so reordered chunks change the checksum.
 */
#ifndef SZ_HASH_H
#define SZ_HASH_H

#include "sz_common.h"

/* The five XXH64 primes (odd 64-bit constants with good bit dispersion). */
#define SPLITZIP_P1 0x9E3779B185EBCA87ull
#define SPLITZIP_P2 0xC2B2AE3D27D4EB4Full
#define SPLITZIP_P3 0x165667B19E3779F9ull
#define SPLITZIP_P4 0x85EBCA77C2B2AE63ull
#define SPLITZIP_P5 0x27D4EB2F165667C5ull

/* Number of independent accumulator lanes of the chunk hash. */
#define SPLITZIP_HASH_LANES 32

SPLITZIP_HD uint64_t splitzip_rotl64(uint64_t x, unsigned r)
{
	return (x << r) | (x >> (64 - r));
}

/* The 64-bit finaliser of MurmurHash3 (full avalanche). fmix64(0) == 0. */
SPLITZIP_HD uint64_t splitzip_fmix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xFF51AFD7ED558CCDull;
	x ^= x >> 33;
	x *= 0xC4CEB9FE1A85EC53ull;
	x ^= x >> 33;
	return x;
}

/* Initial value of accumulator lane l (0..31). */
SPLITZIP_HD uint64_t splitzip_hash_lane_init(unsigned l)
{
	return (uint64_t)(l + 1) * SPLITZIP_P5;
}

/* One round: feed the 64-bit little-endian word w into accumulator acc. */
SPLITZIP_HD uint64_t splitzip_hash_round(uint64_t acc, uint64_t w)
{
	return splitzip_rotl64(acc + w * SPLITZIP_P2, 31) * SPLITZIP_P1;
}

/* Lane l's contribution to the chunk digest (summed over the 32 lanes, wrapping). */
SPLITZIP_HD uint64_t splitzip_hash_lane_fold(uint64_t acc, unsigned l)
{
	return splitzip_fmix64(acc ^ ((uint64_t)l * SPLITZIP_P4));
}

/* Chunk digest from the byte length of the chunk and the wrapping sum of the lane folds. */
SPLITZIP_HD uint64_t splitzip_hash_chunk_final(uint64_t n_bytes, uint64_t lane_sum)
{
	return splitzip_fmix64(lane_sum + n_bytes * SPLITZIP_P3);
}

/* Chunk c's contribution to the content checksum (summed over all chunks, wrapping). */
SPLITZIP_HD uint64_t splitzip_hash_chunk_fold(uint64_t digest, uint64_t c)
{
	return splitzip_fmix64(digest + c * SPLITZIP_P2);
}

/* Content checksum of a frame of n_elems elements from the wrapping sum of the chunk folds. */
SPLITZIP_HD uint64_t splitzip_hash_frame_final(uint64_t n_elems, uint64_t chunk_sum)
{
	return splitzip_fmix64(chunk_sum ^ (n_elems * SPLITZIP_P4));
}

/*
 * Chunk digest of n bytes, byte-wise loads (device-safe, any alignment). The CPU paths use the
 * word-wise splitzip_hash_bytes() in sz_checksum.c, which computes the same value faster; this
 * one serves the header checksum and GPU code that hashes small buffers.
 */
SPLITZIP_HD uint64_t splitzip_hash_bytes_small(const uint8_t *p, uint64_t n)
{
	if (n <= 8 * SPLITZIP_HASH_LANES) {
		/* At most one word per lane: no accumulator array (GPU registers stay free). */
		uint64_t sum = 0;
		SPLITZIP_ROLLED
		for (unsigned l = 0; l < SPLITZIP_HASH_LANES; l++) {
			uint64_t acc = splitzip_hash_lane_init(l);
			if (8 * (uint64_t)l < n) {
				uint64_t w = 0;
				for (unsigned b = 0; b < 8; b++)
					if (8 * (uint64_t)l + b < n)
						w |= (uint64_t)p[8 * l + b] << (8 * b);
				acc = splitzip_hash_round(acc, w);
			}
			sum += splitzip_hash_lane_fold(acc, l);
		}
		return splitzip_hash_chunk_final(n, sum);
	}
	uint64_t acc[SPLITZIP_HASH_LANES];
	for (unsigned l = 0; l < SPLITZIP_HASH_LANES; l++)
		acc[l] = splitzip_hash_lane_init(l);
	uint64_t n_words = (n + 7) / 8;
	for (uint64_t j = 0; j < n_words; j++) {
		uint64_t w = 0;
		for (unsigned b = 0; b < 8; b++) {
			uint64_t k = j * 8 + b;
			if (k < n)
				w |= (uint64_t)p[k] << (8 * b);
		}
		acc[j % SPLITZIP_HASH_LANES] = splitzip_hash_round(acc[j % SPLITZIP_HASH_LANES], w);
	}
	uint64_t sum = 0;
	for (unsigned l = 0; l < SPLITZIP_HASH_LANES; l++)
		sum += splitzip_hash_lane_fold(acc[l], l);
	return splitzip_hash_chunk_final(n, sum);
}

#endif /* SZ_HASH_H */
