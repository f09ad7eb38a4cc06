/*
 * sz_hard_util.c -- helpers shared by the hardening suites (see sz_hard_util.h).
 */
#include "sz_hard_util.h"

#include <stdio.h>
#include <stdlib.h>

#include "sz_layout.h"
#include "sz_test_data.h"

splitzip_ctx *hu_ctx(splitzip_backend_id id, unsigned chunk_log2, unsigned flags,
                     unsigned n_threads)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = id;
	p.chunk_log2 = chunk_log2;
	p.flags = flags;
	p.n_threads = n_threads;
	splitzip_ctx *ctx = NULL;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	hu_assert_status(st, SPLITZIP_OK, "ctx_create(backend %d, log2 %u)", (int)id, chunk_log2);
	return ctx;
}

uint16_t *hu_gen(int g, uint64_t seed, size_t n)
{
	uint16_t *p = (uint16_t *)malloc(n ? n * 2 : 1);
	ck_assert_ptr_nonnull(p);
	sz_test_generate(g, seed, p, n);
	return p;
}

uint8_t *hu_compress(splitzip_ctx *ctx, const uint16_t *src, size_t n, size_t *frame_size)
{
	size_t cap = splitzip_compress_bound(n);
	uint8_t *tmp = (uint8_t *)malloc(cap);
	ck_assert_ptr_nonnull(tmp);
	splitzip_status st = splitzip_compress(ctx, src, n, tmp, cap, frame_size);
	hu_assert_status(st, SPLITZIP_OK, "compress(n %zu)", n);
	uint8_t *out = (uint8_t *)realloc(tmp, *frame_size);
	ck_assert_ptr_nonnull(out);
	return out;
}

void hu_reseal(uint8_t *frame)
{
	splitzip_put_u8s(frame + SZ_H_HEADER_CHECKSUM, splitzip_header_checksum(frame), 4);
}

void hu_put(uint8_t *p, uint64_t v, unsigned n_bytes)
{
	splitzip_put_u8s(p, v, n_bytes);
}

int hu_host_backend(int i, const char *suite)
{
	const char *name = splitzip_backend_name((size_t)i);
	if (!splitzip_backend_available((size_t)i)) {
		ck_assert_msg(!sz_test_backend_expected(name),
		              "%s: backend %s is named in SPLITZIP_EXPECT_BACKENDS but not usable",
		              suite, name);
		printf("%s: backend %s not usable on this machine, skipped\n", suite, name);
		return 0;
	}
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = splitzip_backend_id_of((size_t)i);
	splitzip_ctx *ctx = NULL;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	splitzip_ctx_free(ctx);
	if (st == SPLITZIP_ERROR_BACKEND_UNAVAILABLE) {
		printf("%s: backend %s cannot serve host calls here, skipped\n", suite, name);
		return 0;
	}
	hu_assert_status(st, SPLITZIP_OK, "ctx_create(%s)", name);
	return 1;
}

int hu_is_decode_status(splitzip_status st)
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
