/*
 * test_codebook.c -- codebooks: the canonical tie rule, the codebook file and its damage, and a
 * fixed codebook that leaves values to the escape path.
 */
#include "sz_check.h"
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"
#include "unit.h"

START_TEST(codebook_tie_rule)
{
	uint64_t hist[256] = {0};
	splitzip_codebook cb;
	/* all zero: the 16 smallest exponents */
	ck_assert_int_eq(splitzip_codebook_from_histogram(hist, &cb), SPLITZIP_OK);
	for (unsigned k = 0; k < 16; k++)
		ck_assert_uint_eq(cb.exponents[k], k);
	/* 20 exponents with equal counts: the 16 smallest win; a higher count always wins */
	for (unsigned e = 200; e < 220; e++)
		hist[e] = 5;
	hist[250] = 6;
	ck_assert_int_eq(splitzip_codebook_from_histogram(hist, &cb), SPLITZIP_OK);
	for (unsigned k = 0; k < 15; k++)
		ck_assert_uint_eq(cb.exponents[k], 200 + k);
	ck_assert_uint_eq(cb.exponents[15], 250);
	ck_assert_int_eq(splitzip_codebook_validate(&cb), SPLITZIP_OK);
	/* only 3 exponents used: they are in, the rest filled by the smallest unused exponents */
	memset(hist, 0, sizeof hist);
	hist[5] = 1;
	hist[127] = 1000;
	hist[128] = 2;
	ck_assert_int_eq(splitzip_codebook_from_histogram(hist, &cb), SPLITZIP_OK);
	static const uint8_t expect[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 127, 128};
	ck_assert(memcmp(cb.exponents, expect, 16) == 0);
}
END_TEST

START_TEST(codebook_file_roundtrip_and_damage)
{
	splitzip_codebook cb, back;
	for (unsigned k = 0; k < 16; k++)
		cb.exponents[k] = (uint8_t)(110 + 2 * k);
	uint8_t f[SPLITZIP_CODEBOOK_FILE_SIZE + 1];
	ck_assert_int_eq(splitzip_codebook_serialize(&cb, f, sizeof f), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_codebook_deserialize(f, SPLITZIP_CODEBOOK_FILE_SIZE, &back),
	                 SPLITZIP_OK);
	ck_assert(memcmp(&cb, &back, sizeof cb) == 0);
	ck_assert_int_eq(splitzip_codebook_serialize(&cb, f, SPLITZIP_CODEBOOK_FILE_SIZE - 1),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_int_eq(splitzip_codebook_deserialize(f, 10, &back), SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(splitzip_codebook_deserialize(f, SPLITZIP_CODEBOOK_FILE_SIZE + 1, &back),
	                 SPLITZIP_ERROR_BAD_CODEBOOK);
	for (unsigned bit = 0; bit < SPLITZIP_CODEBOOK_FILE_SIZE * 8; bit++) {
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		ck_assert_int_eq(
		    splitzip_codebook_deserialize(f, SPLITZIP_CODEBOOK_FILE_SIZE, &back),
		    SPLITZIP_ERROR_BAD_CODEBOOK);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	splitzip_codebook bad = cb;
	bad.exponents[3] = bad.exponents[2];
	ck_assert_int_eq(splitzip_codebook_validate(&bad), SPLITZIP_ERROR_BAD_CODEBOOK);
	ck_assert_int_eq(splitzip_codebook_serialize(&bad, f, sizeof f),
	                 SPLITZIP_ERROR_BAD_CODEBOOK);
}
END_TEST

/* A fixed codebook compresses data it does not cover through escapes, losslessly. */
START_TEST(fixed_codebook_escapes)
{
	size_t n = 20000;
	uint16_t *src = malloc(n * 2);
	sz_test_generate(SZ_GEN_ESCAPE_5PCT, 4, src, n);
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_AUTO; /* honours SPLITZIP_FORCE_BACKEND */
	p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
	for (unsigned k = 0; k < 16; k++)
		p.codebook.exponents[k] =
		    (uint8_t)(3 * k + 90); /* covers 114, 117, 120, ... only */
	splitzip_ctx *ctx;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	buf b = roundtrip(ctx, src, n);
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
	ck_assert(memcmp(fi.codebook.exponents, p.codebook.exponents, 16) == 0 ||
	          fi.mode == SPLITZIP_MODE_STORED);
	free(b.p);
	splitzip_ctx_free(ctx);
	free(src);
}
END_TEST

Suite *unit_suite_codebook(void)
{
	Suite *s = suite_create("codebook");
	TCase *tc = tcase_create("codebook");
	tcase_add_test(tc, codebook_tie_rule);
	tcase_add_test(tc, codebook_file_roundtrip_and_damage);
	tcase_add_test(tc, fixed_codebook_escapes);
	suite_add_tcase(s, tc);
	return s;
}
