/*
 * pages_util.h -- what the page stream tests share (C and C++): lists of pages cut from the
 * bundled real KV sample or the generators, an independent implementation of the chunk digest
 * of doc/FORMAT.md §7.1 (to re-seal a stream after tampering with it), and the field offsets
 * of doc/FORMAT.md §12 (page stream version 2) written down again from the spec rather than
 * taken from core/.
 */
#ifndef SZ_PAGES_UTIL_H
#define SZ_PAGES_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"

/* FORMAT.md §12.2, from the text. */
enum {
	PG_VERSION = 4,
	PG_FLAGS = 5,
	PG_ENCODING = 6,
	PG_LOG2 = 7,
	PG_COUNT = 8,
	PG_TABLE_ID = 12,
	PG_TOTAL = 16,
	PG_FRAMES = 24,
	PG_SIZE = 32,
	PG_RAWSUM = 40,
	PG_TCSUM = 48,
	PG_RES = 52,
	PG_HCSUM = 60,
	PG_RAW_BIT = 0x80000000u
};

static inline uint64_t pu_get(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void pu_put(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The chunk digest H of FORMAT.md §7.1, byte by byte. */
static inline uint64_t pu_fmix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xFF51AFD7ED558CCDull;
	x ^= x >> 33;
	x *= 0xC4CEB9FE1A85EC53ull;
	x ^= x >> 33;
	return x;
}

static inline uint64_t pu_digest(const uint8_t *b, uint64_t m)
{
	const uint64_t P1 = 0x9E3779B185EBCA87ull, P2 = 0xC2B2AE3D27D4EB4Full;
	const uint64_t P3 = 0x165667B19E3779F9ull, P4 = 0x85EBCA77C2B2AE63ull;
	const uint64_t P5 = 0x27D4EB2F165667C5ull;
	uint64_t acc[32], s = 0;
	for (unsigned l = 0; l < 32; l++)
		acc[l] = (l + 1) * P5;
	for (uint64_t j = 0; j < (m + 7) / 8; j++) {
		uint64_t w = 0;
		for (unsigned k = 0; k < 8; k++)
			if (8 * j + k < m)
				w |= (uint64_t)b[8 * j + k] << (8 * k);
		uint64_t a = acc[j % 32] + w * P2;
		acc[j % 32] = ((a << 31) | (a >> 33)) * P1;
	}
	for (unsigned l = 0; l < 32; l++)
		s += pu_fmix(acc[l] ^ (l * P4));
	return pu_fmix(s + m * P3);
}

/* Recompute Table_Checksum and Header_Checksum after an edit (page count as in the header,
 * clamped so that the table stays inside 'size' bytes). */
static inline void pu_reseal(uint8_t *s, size_t size)
{
	uint64_t n = pu_get(s + PG_COUNT, 4);
	uint64_t m = 4 * n;
	if (m > size - 64)
		m = (size - 64) / 4 * 4;
	pu_put(s + PG_TCSUM, (uint32_t)pu_digest(s + 64, m), 4);
	pu_put(s + PG_HCSUM, (uint32_t)pu_digest(s, 60), 4);
}

/* Recompute a frame's Header_Checksum (FORMAT.md §3, bytes 60-63 over 0-59). */
static inline void pu_reseal_frame(uint8_t *f)
{
	pu_put(f + 60, (uint32_t)pu_digest(f, 60), 4);
}

static inline uint64_t pu_align64(uint64_t x)
{
	return (x + 63) / 64 * 64;
}

/* A list of pages, each its own exact-size allocation. */
typedef struct pu_pages {
	size_t n;
	uint8_t **p;
	size_t *bytes;
} pu_pages;

/*
 * n pages of sizes[i] bytes (even). kind >= 0: generator 'kind'; kind -1: real K, -2: real V,
 * tiled from the bundled sample starting at element 'seed' * 4099.
 */
static inline pu_pages pu_make(const size_t *sizes, size_t n, int kind, uint64_t seed)
{
	pu_pages l;
	l.n = n;
	l.p = (uint8_t **)calloc(n ? n : 1, sizeof *l.p);
	l.bytes = (size_t *)calloc(n ? n : 1, sizeof *l.bytes);
	size_t nkv = 0;
	uint16_t *kv = kind < 0 ? sz_test_load_kv(kind == -1 ? "K" : "V", &nkv) : NULL;
	uint64_t at = seed * 4099;
	for (size_t i = 0; i < n; i++) {
		const size_t ne = sizes[i] / 2;
		uint16_t *d = (uint16_t *)malloc(sizes[i] ? sizes[i] : 2);
		if (kind >= 0)
			sz_test_generate(kind, seed * 1000 + i, d, ne);
		else
			for (size_t k = 0; k < ne && kv; k++)
				d[k] = kv[(at++) % nkv];
		l.p[i] = (uint8_t *)d;
		l.bytes[i] = sizes[i];
	}
	free(kv);
	return l;
}

static inline void pu_free(pu_pages *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->p[i]);
	free(l->p);
	free(l->bytes);
	memset(l, 0, sizeof *l);
}

/* n pages of 'bytes' each, alternating real K and V pages (KV-cache-like). */
static inline pu_pages pu_make_kv(size_t n, size_t bytes, uint64_t seed)
{
	size_t *sizes = (size_t *)malloc((n ? n : 1) * sizeof *sizes);
	for (size_t i = 0; i < n; i++)
		sizes[i] = bytes;
	pu_pages l = pu_make(sizes, n, -1, seed);
	pu_pages v = pu_make(sizes, n, -2, seed + 7);
	for (size_t i = 1; i < n; i += 2) {
		uint8_t *t = l.p[i];
		l.p[i] = v.p[i];
		v.p[i] = t;
	}
	pu_free(&v);
	free(sizes);
	return l;
}

#endif /* SZ_PAGES_UTIL_H */
