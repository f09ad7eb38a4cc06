/*
 * unit.h -- what the unit suites share: the frame buffer type, the context and round-trip
 * helpers (unit.c), and one constructor per suite (test_*.c), run by test_main.c.
 */
#ifndef SZ_UNIT_H
#define SZ_UNIT_H

#include "sz_check.h"
#include <stddef.h>
#include <stdint.h>

#include "splitzip.h"

/* A malloc'ed frame and its size in bytes. */
typedef struct buf {
	uint8_t *p;
	size_t n;
} buf;

/* A context on SPLITZIP_BACKEND_AUTO (honours SPLITZIP_FORCE_BACKEND); fails the test on error. */
splitzip_ctx *make_ctx(unsigned chunk_log2, unsigned flags);

/* Compress into a buffer of splitzip_compress_bound(n) bytes; checks the frame fits the bound
 * and is a multiple of 16 bytes. */
buf compress_with(splitzip_ctx *ctx, const uint16_t *src, size_t n);

/* Compress, check size facts, decompress, compare as integers, verify. Returns the frame. */
buf roundtrip(splitzip_ctx *ctx, const uint16_t *src, size_t n);

Suite *unit_suite_roundtrip(void);
Suite *unit_suite_codebook(void);
Suite *unit_suite_api(void);
Suite *unit_suite_format(void);
Suite *unit_suite_registry(void);
Suite *unit_suite_entropy(void);

#endif /* SZ_UNIT_H */
