/*
 * test_api.c -- the public API's contract: the compress bound and exact destination capacity,
 * the predicted frame size, parameter validation, argument checks of the codec calls, status
 * strings and names, versions.
 */
#include "sz_check.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"
#include "unit.h"

START_TEST(bound_formula_and_dst_capacity)
{
	ck_assert_uint_eq(splitzip_compress_bound(0), 64);
	ck_assert_uint_eq(splitzip_compress_bound(1), 80);
	ck_assert_uint_eq(splitzip_compress_bound(8), 80);
	ck_assert_uint_eq(splitzip_compress_bound(9), 96);
	ck_assert_uint_eq(SPLITZIP_COMPRESS_BOUND(1000), splitzip_compress_bound(1000));
	ck_assert_uint_eq(splitzip_compress_bound((size_t)SPLITZIP_MAX_FRAME_ELEMS + 1), 0);
	size_t n = 9999;
	uint16_t *src = malloc(n * 2);
	sz_test_generate(SZ_GEN_KV_SKEWED, 5, src, n);
	splitzip_ctx *ctx = make_ctx(12, 0);
	buf b = compress_with(ctx, src, n);
	uint8_t *exact = malloc(b.n);
	size_t sz = 0;
	ck_assert_int_eq(splitzip_compress(ctx, src, n, exact, b.n, &sz), SPLITZIP_OK);
	ck_assert(memcmp(exact, b.p, b.n) == 0);
	ck_assert_int_eq(splitzip_compress(ctx, src, n, exact, b.n - 1, &sz),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_int_eq(splitzip_compress(ctx, src, n, exact, 10, &sz),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	free(exact);
	free(b.p);
	free(src);
	splitzip_ctx_free(ctx);
}
END_TEST

/* splitzip_predict_frame_size() from a histogram gives exactly the frame compress writes, for
 * every generator (split4 and stored frames), sizes around the mode boundary, chunk sizes and a
 * fixed codebook. */
static void check_prediction(const uint16_t *src, size_t n, unsigned log2,
                             const splitzip_codebook *fixed)
{
	uint64_t hist[256] = {0}, covered = 0;
	splitzip_codebook cb;
	splitzip_histogram(src, n, hist);
	if (fixed)
		cb = *fixed;
	else
		splitzip_codebook_from_histogram(hist, &cb);
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		covered += hist[cb.exponents[k]];
	splitzip_params p;
	splitzip_params_init(&p);
	p.chunk_log2 = log2;
	if (fixed) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *fixed;
	}
	splitzip_ctx *ctx;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	buf b = compress_with(ctx, src, n);
	ck_assert_uint_eq(splitzip_predict_frame_size(n, n - (size_t)covered, log2), b.n);
	free(b.p);
	splitzip_ctx_free(ctx);
}

START_TEST(predicted_frame_size_is_exact)
{
	static const size_t sizes[] = {0, 1, 56, 57, 64, 65, 72, 73, 120, 121, 4096, 70001};
	uint16_t *src = malloc(70001 * 2);
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++)
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
			sz_test_generate(g, 7 + i, src, sizes[i]);
			check_prediction(src, sizes[i], 12, NULL);
			check_prediction(src, sizes[i], 10, NULL);
		}
	splitzip_codebook cb;
	sz_test_generate(SZ_GEN_KV_SKEWED, 1, src, 70001);
	splitzip_calibrate(src, 4096, &cb);
	check_prediction(src, 70001, 16, &cb);
	ck_assert_uint_eq(splitzip_predict_frame_size(0, 0, 0), 64);
	ck_assert_uint_eq(splitzip_predict_frame_size(10, 11, 12), 0);
	ck_assert_uint_eq(splitzip_predict_frame_size(10, 0, 9), 0);
	ck_assert_uint_eq(splitzip_predict_frame_size((size_t)SPLITZIP_MAX_FRAME_ELEMS + 1, 0, 12),
	                  0);
	free(src);
}
END_TEST

START_TEST(params_validation)
{
	splitzip_params p;
	splitzip_ctx *ctx = (splitzip_ctx *)1;
	ck_assert_int_eq(splitzip_ctx_create(NULL, NULL), SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_params_init(&p);
	p.chunk_log2 = 9;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_ptr_null(ctx);
	p.chunk_log2 = 17;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_params_init(&p);
	p.flags = 0x80;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_params_init(&p);
	p.struct_size = 4;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_params_init(&p);
	p.codebook_mode = SPLITZIP_CODEBOOK_FIXED; /* all-zero codebook is not ascending */
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_params_init(&p);
	p.backend = (splitzip_backend_id)99;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_params_init(&p);
	p.chunk_log2 = 0; /* 0 means default */
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	splitzip_params q;
	ck_assert_int_eq(splitzip_ctx_params(ctx, &q), SPLITZIP_OK);
	ck_assert_uint_eq(q.chunk_log2, SPLITZIP_CHUNK_LOG2_DEFAULT);
	/* argument checks of the codec calls */
	uint8_t out[128];
	size_t sz;
	ck_assert_int_eq(splitzip_compress(ctx, NULL, 5, out, sizeof out, &sz),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_compress(ctx, NULL, 0, out, sizeof out, &sz), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_compress(NULL, NULL, 0, out, sizeof out, &sz),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_decompress(ctx, NULL, 64, NULL, 0, &sz),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_ctx_free(ctx);
	splitzip_ctx_free(NULL);
	splitzip_params_init(NULL);
}
END_TEST

START_TEST(error_strings)
{
	for (int s = 0; s < SPLITZIP_STATUS_COUNT; s++) {
		ck_assert_ptr_nonnull(splitzip_error_string((splitzip_status)s));
		ck_assert_str_ne(splitzip_error_string((splitzip_status)s), "unknown status");
		ck_assert_str_ne(splitzip_status_name((splitzip_status)s), "UNKNOWN");
		for (int t = 0; t < s; t++)
			ck_assert_str_ne(splitzip_error_string((splitzip_status)s),
			                 splitzip_error_string((splitzip_status)t));
	}
	ck_assert_str_eq(splitzip_error_string((splitzip_status)999), "unknown status");
	ck_assert_str_eq(splitzip_status_name((splitzip_status)-1), "UNKNOWN");
	ck_assert_uint_eq(splitzip_version_number(), SPLITZIP_VERSION_NUMBER);
	ck_assert_str_eq(splitzip_version_string(), SPLITZIP_VERSION_STRING);
}
END_TEST

/* An empty frame decodes with no destination at all (dst NULL, capacity 0), through the frame
 * and the whole-buffer calls, for every mode an empty input can take. */
START_TEST(empty_frame_without_destination)
{
	const splitzip_encoding modes[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
	                                   SPLITZIP_ENCODING_AUTO};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		splitzip_params p;
		splitzip_params_init(&p);
		p.encoding = modes[m];
		splitzip_ctx *ctx;
		ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
		uint8_t frame[256];
		size_t sz = 0, consumed = 0, n = 1;
		ck_assert_int_eq(splitzip_compress(ctx, NULL, 0, frame, sizeof frame, &sz),
		                 SPLITZIP_OK);
		ck_assert_int_eq(splitzip_frame_decompress(ctx, frame, sz, &consumed, NULL, 0, &n),
		                 SPLITZIP_OK);
		ck_assert_uint_eq(consumed, sz);
		ck_assert_uint_eq(n, 0);
		n = 1;
		ck_assert_int_eq(splitzip_decompress(ctx, frame, sz, NULL, 0, &n), SPLITZIP_OK);
		ck_assert_uint_eq(n, 0);
		splitzip_ctx_free(ctx);
	}
}
END_TEST

Suite *unit_suite_api(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("api");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, bound_formula_and_dst_capacity);
	tcase_add_test(tc, predicted_frame_size_is_exact);
	tcase_add_test(tc, params_validation);
	tcase_add_test(tc, error_strings);
	tcase_add_test(tc, empty_frame_without_destination);
	suite_add_tcase(s, tc);
	return s;
}
