/*
 * unit.c -- helpers shared by the unit suites: contexts, compressing, checked round trips.
 */
#include "sz_check.h"
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "unit.h"

splitzip_ctx *make_ctx(unsigned chunk_log2, unsigned flags)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_AUTO; /* honours SPLITZIP_FORCE_BACKEND */
	p.chunk_log2 = chunk_log2;
	p.flags = flags;
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	return ctx;
}

buf compress_with(splitzip_ctx *ctx, const uint16_t *src, size_t n)
{
	buf b;
	size_t cap = splitzip_compress_bound(n);
	b.p = malloc(cap);
	ck_assert_ptr_nonnull(b.p);
	ck_assert_int_eq(splitzip_compress(ctx, src, n, b.p, cap, &b.n), SPLITZIP_OK);
	ck_assert_uint_le(b.n, cap);
	ck_assert_uint_eq(b.n % 16, 0);
	return b;
}

/* Compress, check size facts, decompress, compare as integers. Returns the frame. */
buf roundtrip(splitzip_ctx *ctx, const uint16_t *src, size_t n)
{
	buf b = compress_with(ctx, src, n);
	uint16_t *back = malloc(n * 2 + 2);
	size_t got = 12345;
	ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got), SPLITZIP_OK);
	ck_assert_uint_eq(got, n);
	ck_assert_msg(n == 0 || memcmp(src, back, n * 2) == 0, "round trip differs (n=%zu)", n);
	uint64_t vn = 0;
	ck_assert_int_eq(splitzip_verify(ctx, b.p, b.n, &vn), SPLITZIP_OK);
	ck_assert_uint_eq(vn, n);
	free(back);
	return b;
}
