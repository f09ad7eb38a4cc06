/*
 * test_unit.c -- unit tests of the core: round trips, sizes, codebooks, bounds, errors, frame
 * info, checksums, the registry and backend selection. Check; one srunner over all suites.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"
#include "../../dispatch/sz_backend.h"
#include "../../core/sz_codebook.h"

/* ---- helpers --------------------------------------------------------------------------------- */

typedef struct buf {
	uint8_t *p;
	size_t n;
} buf;

static splitzip_ctx *make_ctx(unsigned chunk_log2, unsigned flags)
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

static buf compress_with(splitzip_ctx *ctx, const uint16_t *src, size_t n)
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
static buf roundtrip(splitzip_ctx *ctx, const uint16_t *src, size_t n)
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

/* ---- round trips ----------------------------------------------------------------------------- */

START_TEST(all_bf16_patterns_roundtrip)
{
	static const unsigned logs[] = {10, 12, 16};
	uint16_t *all = malloc(65536 * 2);
	for (unsigned i = 0; i < 65536; i++)
		all[i] = (uint16_t)i;
	for (unsigned k = 0; k < 3; k++)
		for (unsigned flags = 0; flags < 2; flags++) {
			splitzip_ctx *ctx = make_ctx(logs[k], flags);
			buf b = roundtrip(ctx, all, 65536);
			free(b.p);
			/* shuffled order too: escapes scattered through every chunk */
			uint16_t *sh = malloc(65536 * 2);
			memcpy(sh, all, 65536 * 2);
			uint64_t s = 7;
			for (unsigned i = 65535; i > 0; i--) {
				unsigned j = (unsigned)(sz_test_rand(&s) % (i + 1));
				uint16_t t = sh[i];
				sh[i] = sh[j];
				sh[j] = t;
			}
			b = roundtrip(ctx, sh, 65536);
			free(b.p);
			free(sh);
			splitzip_ctx_free(ctx);
		}
	free(all);
}
END_TEST

/* A codebook that covers each exponent in turn: every one of the 65,536 patterns goes through
 * the dense path (not only the escape path) at least once. */
START_TEST(all_patterns_dense_path)
{
	uint16_t *all = malloc(65536 * 2), *back = malloc(65536 * 2);
	for (unsigned base = 0; base < 256; base += 16) {
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = SPLITZIP_BACKEND_AUTO; /* honours SPLITZIP_FORCE_BACKEND */
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (unsigned k = 0; k < 16; k++)
			p.codebook.exponents[k] = (uint8_t)(base + k);
		splitzip_ctx *ctx;
		ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
		/* the 16 exponents of this window, all signs and mantissas: 4096 values */
		size_t n = 0;
		for (unsigned e = base; e < base + 16; e++)
			for (unsigned sm = 0; sm < 256; sm++)
				all[n++] = splitzip_bf16_join((uint8_t)e, (uint8_t)sm);
		buf b = compress_with(ctx, all, n);
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
		ck_assert_int_eq(fi.mode, SPLITZIP_MODE_SPLIT4);
		ck_assert_uint_eq(fi.n_escapes, 0);
		size_t got;
		ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got), SPLITZIP_OK);
		ck_assert(memcmp(all, back, n * 2) == 0);
		free(b.p);
		splitzip_ctx_free(ctx);
	}
	free(all);
	free(back);
}
END_TEST

START_TEST(edge_sizes_all_generators)
{
	const int g = _i;
	static const unsigned logs[] = {10, 12};
	for (unsigned k = 0; k < 2; k++) {
		size_t chunk = (size_t)1 << logs[k];
		size_t sizes[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 31, 100, chunk - 1, chunk, chunk + 1,
				  2 * chunk - 1, 2 * chunk, 2 * chunk + 1, 7 * chunk + 3, 40 * chunk};
		for (unsigned flags = 0; flags < 2; flags++) {
			splitzip_ctx *ctx = make_ctx(logs[k], flags);
			for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
				size_t n = sizes[s];
				uint16_t *src = malloc(n * 2 + 2);
				sz_test_generate(g, 100 + s, src, n);
				buf b = roundtrip(ctx, src, n);
				ck_assert_uint_le(b.n, splitzip_compress_bound(n));
				free(b.p);
				free(src);
			}
			splitzip_ctx_free(ctx);
		}
	}
}
END_TEST

START_TEST(real_kv_ratio_and_roundtrip)
{
	static const char *const which[] = {"K", "V"};
	for (int w = 0; w < 2; w++) {
		size_t n = 0;
		uint16_t *kv = sz_test_load_kv(which[w], &n);
		ck_assert_msg(kv != NULL, "bundled KV sample data/kv/*.%s.bf16 is missing", which[w]);
		ck_assert_uint_eq(n, 262144);
		splitzip_ctx *ctx = make_ctx(12, SPLITZIP_FLAG_CONTENT_CHECKSUM);
		buf b = roundtrip(ctx, kv, n);
		double ratio = (double)(n * 2) / (double)b.n;
		ck_assert_msg(ratio >= 1.32, "ratio %.4f < 1.32 on real %s", ratio, which[w]);
		free(b.p);
		splitzip_ctx_free(ctx);
		free(kv);
	}
}
END_TEST

START_TEST(zero_escape_and_all_escape)
{
	size_t n = 10000;
	uint16_t *src = malloc(n * 2);
	splitzip_ctx *ctx = make_ctx(12, 0);
	/* exactly 16 exponents: no escapes */
	for (size_t i = 0; i < n; i++)
		src[i] = splitzip_bf16_join((uint8_t)(100 + i % 16), (uint8_t)(i * 37));
	buf b = roundtrip(ctx, src, n);
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
	ck_assert_int_eq(fi.mode, SPLITZIP_MODE_SPLIT4);
	ck_assert_uint_eq(fi.n_escapes, 0);
	ck_assert_uint_eq(b.n, splitzip_split4_frame_size(n, 12, 0));
	free(b.p);
	/* every exponent escapes -> stored, no larger than raw + header rounded to 16 */
	sz_test_generate(SZ_GEN_ALL_ESCAPE, 1, src, n);
	b = roundtrip(ctx, src, n);
	ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
	ck_assert_int_eq(fi.mode, SPLITZIP_MODE_STORED);
	ck_assert_uint_eq(b.n, SPLITZIP_FRAME_HEADER_SIZE + n * 2);
	free(b.p);
	/* random bits: stored too */
	sz_test_generate(SZ_GEN_RANDOM, 1, src, n);
	b = roundtrip(ctx, src, n);
	ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
	ck_assert_int_eq(fi.mode, SPLITZIP_MODE_STORED);
	free(b.p);
	free(src);
	splitzip_ctx_free(ctx);
}
END_TEST

/* The split4/stored choice at its exact threshold: max_escapes escapes -> split4, one more ->
 * stored (doc/FORMAT.md §6.3). */
START_TEST(mode_threshold_exact)
{
	size_t n = 3000;
	int64_t max_esc = splitzip_split4_max_escapes(n, 10);
	ck_assert_int_gt(max_esc, 0);
	ck_assert(splitzip_split4_wins(n, 10, (uint64_t)max_esc));
	ck_assert(!splitzip_split4_wins(n, 10, (uint64_t)max_esc + 1));
	uint16_t *src = malloc(n * 2);
	for (int extra = 0; extra <= 1; extra++) {
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = SPLITZIP_BACKEND_AUTO; /* honours SPLITZIP_FORCE_BACKEND */
		p.chunk_log2 = 10;
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (unsigned k = 0; k < 16; k++)
			p.codebook.exponents[k] = (uint8_t)(120 + k);
		splitzip_ctx *ctx;
		ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
		size_t esc = (size_t)max_esc + (size_t)extra;
		for (size_t i = 0; i < n; i++)
			src[i] = splitzip_bf16_join(i < esc ? 3 : (uint8_t)(120 + i % 16), (uint8_t)i);
		buf b = roundtrip(ctx, src, n);
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
		ck_assert_int_eq(fi.mode, extra ? SPLITZIP_MODE_STORED : SPLITZIP_MODE_SPLIT4);
		free(b.p);
		splitzip_ctx_free(ctx);
	}
	free(src);
}
END_TEST

START_TEST(deterministic_repeat)
{
	size_t n = 50000;
	uint16_t *src = malloc(n * 2);
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 9, src, n);
	splitzip_ctx *ctx = make_ctx(12, SPLITZIP_FLAG_CONTENT_CHECKSUM);
	buf a = compress_with(ctx, src, n), b = compress_with(ctx, src, n);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert(memcmp(a.p, b.p, a.n) == 0);
	free(a.p);
	free(b.p);
	free(src);
	splitzip_ctx_free(ctx);
}
END_TEST

/* Several frames concatenated decode as one stream; frame_decompress steps through them. */
START_TEST(stream_of_frames)
{
	size_t n1 = 5000, n2 = 0, n3 = 777;
	uint16_t *src = malloc((n1 + n2 + n3) * 2);
	sz_test_generate(SZ_GEN_KV_SKEWED, 3, src, n1 + n2 + n3);
	splitzip_ctx *ctx = make_ctx(10, SPLITZIP_FLAG_CONTENT_CHECKSUM);
	buf f1 = compress_with(ctx, src, n1), f2 = compress_with(ctx, src + n1, n2);
	buf f3 = compress_with(ctx, src + n1, n3);
	size_t total = f1.n + f2.n + f3.n;
	uint8_t *s = malloc(total);
	memcpy(s, f1.p, f1.n);
	memcpy(s + f1.n, f2.p, f2.n);
	memcpy(s + f1.n + f2.n, f3.p, f3.n);
	uint64_t cnt = 0;
	ck_assert_int_eq(splitzip_decompressed_size(s, total, &cnt), SPLITZIP_OK);
	ck_assert_uint_eq(cnt, n1 + n2 + n3);
	uint16_t *back = malloc((n1 + n2 + n3) * 2);
	size_t got = 0;
	ck_assert_int_eq(splitzip_decompress(ctx, s, total, back, n1 + n2 + n3, &got), SPLITZIP_OK);
	ck_assert_uint_eq(got, n1 + n2 + n3);
	ck_assert(memcmp(back, src, got * 2) == 0);
	/* one element too little room */
	ck_assert_int_eq(splitzip_decompress(ctx, s, total, back, n1 + n2 + n3 - 1, &got),
			 SPLITZIP_ERROR_DST_TOO_SMALL);
	size_t used = 0;
	ck_assert_int_eq(splitzip_frame_decompress(ctx, s, total, &used, back, n1, &got),
			 SPLITZIP_OK);
	ck_assert_uint_eq(used, f1.n);
	ck_assert_uint_eq(got, n1);
	/* trailing bytes that are not a frame */
	uint8_t *junk = malloc(f1.n + 3);
	memcpy(junk, f1.p, f1.n);
	memset(junk + f1.n, 0xAB, 3);
	ck_assert_int_eq(splitzip_decompress(ctx, junk, f1.n + 3, back, n1, &got),
			 SPLITZIP_ERROR_CORRUPT_STREAM);
	/* ... while a prefix of a frame after a frame is a truncation */
	memcpy(junk + f1.n, f1.p, 3);
	ck_assert_int_eq(splitzip_decompress(ctx, junk, f1.n + 3, back, n1, &got),
			 SPLITZIP_ERROR_TRUNCATED);
	free(junk);
	free(s);
	free(back);
	free(src);
	free(f1.p);
	free(f2.p);
	free(f3.p);
	splitzip_ctx_free(ctx);
}
END_TEST

/*
 * Large from-input frames predict the codebook from a sample of chunks and verify it against
 * the full histogram (core/sz_frame.c). Both outcomes must give exactly the frame that the
 * canonical codebook, given as fixed, gives: a prediction that holds (real-KV-like data) and one
 * that fails (the sampled chunks use other exponents than the rest).
 */
START_TEST(from_input_speculation_is_canonical)
{
	const size_t n = ((size_t)1 << 22) + 7; /* 1025 chunks of 4096 */
	uint16_t *src = malloc(n * 2);
	for (int mispredict = 0; mispredict <= 1; mispredict++) {
		sz_test_generate(SZ_GEN_ESCAPE_1PCT, 21, src, n);
		if (mispredict) {
			/* the chunks the sample reads: one in 16, at least 16 */
			const size_t C = (n + 4095) / 4096, n_sample = C / 16 > 16 ? C / 16 : 16;
			for (size_t k = 0; k < n_sample; k++) {
				size_t c = C * k / n_sample;
				for (size_t i = c * 4096; i < (c + 1) * 4096 && i < n; i++)
					src[i] = splitzip_bf16_join((uint8_t)(40 + i % 16), (uint8_t)i);
			}
		}
		splitzip_codebook truth;
		ck_assert_int_eq(splitzip_calibrate(src, n, &truth), SPLITZIP_OK);
		for (unsigned flags = 0; flags < 2; flags++) {
			splitzip_ctx *ctx = make_ctx(12, flags);
			buf a = roundtrip(ctx, src, n);
			splitzip_ctx_free(ctx);
			splitzip_params p;
			splitzip_params_init(&p);
			p.backend = SPLITZIP_BACKEND_AUTO; /* honours SPLITZIP_FORCE_BACKEND */
			p.flags = flags;
			p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
			p.codebook = truth;
			ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
			buf f = compress_with(ctx, src, n);
			splitzip_ctx_free(ctx);
			ck_assert_uint_eq(a.n, f.n);
			ck_assert_msg(memcmp(a.p, f.p, a.n) == 0,
				      "from-input frame differs from the canonical one (mispredict=%d)",
				      mispredict);
			free(a.p);
			free(f.p);
		}
	}
	free(src);
}
END_TEST

/* ---- codebooks -------------------------------------------------------------------------------- */

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
		ck_assert_int_eq(splitzip_codebook_deserialize(f, SPLITZIP_CODEBOOK_FILE_SIZE, &back),
				 SPLITZIP_ERROR_BAD_CODEBOOK);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	splitzip_codebook bad = cb;
	bad.exponents[3] = bad.exponents[2];
	ck_assert_int_eq(splitzip_codebook_validate(&bad), SPLITZIP_ERROR_BAD_CODEBOOK);
	ck_assert_int_eq(splitzip_codebook_serialize(&bad, f, sizeof f), SPLITZIP_ERROR_BAD_CODEBOOK);
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
		p.codebook.exponents[k] = (uint8_t)(3 * k + 90); /* covers 114, 117, 120, ... only */
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

/* ---- bounds, params, errors ------------------------------------------------------------------- */

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

/* ---- frame info, corruption basics ------------------------------------------------------------ */

START_TEST(frame_info_fields)
{
	size_t n = 12345;
	uint16_t *src = malloc(n * 2);
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 11, src, n);
	splitzip_ctx *ctx = make_ctx(11, SPLITZIP_FLAG_CONTENT_CHECKSUM);
	buf b = compress_with(ctx, src, n);
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
	ck_assert_uint_eq(fi.format_version, 1);
	ck_assert_uint_eq(fi.dtype, SPLITZIP_DTYPE_BF16);
	ck_assert_int_eq(fi.mode, SPLITZIP_MODE_SPLIT4);
	ck_assert_uint_eq(fi.chunk_log2, 11);
	ck_assert_uint_eq(fi.flags, SPLITZIP_FLAG_CONTENT_CHECKSUM);
	ck_assert_uint_eq(fi.n_elems, n);
	ck_assert_uint_eq(fi.frame_size, b.n);
	ck_assert_uint_gt(fi.n_escapes, 0);
	uint64_t cs;
	ck_assert_int_eq(splitzip_content_checksum(src, n, 11, &cs), SPLITZIP_OK);
	ck_assert_uint_eq(cs, fi.content_checksum);
	splitzip_codebook cb;
	ck_assert_int_eq(splitzip_calibrate(src, n, &cb), SPLITZIP_OK);
	ck_assert(memcmp(&cb, &fi.codebook, sizeof cb) == 0);
	ck_assert_int_eq(splitzip_get_frame_info(b.p, 63, &fi), SPLITZIP_ERROR_TRUNCATED);
	free(b.p);
	free(src);
	splitzip_ctx_free(ctx);
}
END_TEST

START_TEST(truncation_and_bitflips_give_errors)
{
	size_t n = 3000;
	uint16_t *src = malloc(n * 2), *back = malloc(n * 2);
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 12, src, n);
	splitzip_ctx *ctx = make_ctx(10, SPLITZIP_FLAG_CONTENT_CHECKSUM);
	buf b = compress_with(ctx, src, n);
	size_t got;
	for (size_t len = 0; len < b.n; len++) {
		splitzip_status st = splitzip_decompress(ctx, b.p, len, back, n, &got);
		ck_assert_msg(st == SPLITZIP_ERROR_TRUNCATED, "len %zu gave %s", len,
			      splitzip_status_name(st));
	}
	for (size_t bit = 0; bit < b.n * 8; bit++) {
		b.p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		splitzip_status st = splitzip_decompress(ctx, b.p, b.n, back, n, &got);
		ck_assert_msg(st != SPLITZIP_OK, "bit %zu flipped decoded OK", bit);
		b.p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* the magic, the header checksum and a field check, specifically */
	b.p[0] ^= 1;
	ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got), SPLITZIP_ERROR_BAD_MAGIC);
	b.p[0] ^= 1;
	b.p[20] ^= 1;
	ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got),
			 SPLITZIP_ERROR_HEADER_CHECKSUM);
	b.p[20] ^= 1;
	b.p[SZ_H_VERSION] = 2;
	splitzip_st32(b.p + SZ_H_HEADER_CHECKSUM, splitzip_header_checksum(b.p));
	ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got),
			 SPLITZIP_ERROR_UNSUPPORTED_FORMAT);
	/* a flipped sign/mantissa byte decodes structurally but fails the content checksum */
	b.p[SZ_H_VERSION] = 1;
	splitzip_st32(b.p + SZ_H_HEADER_CHECKSUM, splitzip_header_checksum(b.p));
	splitzip_layout L;
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
	splitzip_split4_layout(n, 10, fi.n_escapes, &L);
	b.p[L.sm_off + 5] ^= 0x40;
	ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got),
			 SPLITZIP_ERROR_CONTENT_CHECKSUM);
	free(b.p);
	free(src);
	free(back);
	splitzip_ctx_free(ctx);
}
END_TEST

/* ---- checksum, layout ------------------------------------------------------------------------- */

START_TEST(hash_word_and_byte_forms_agree)
{
	uint8_t data[1200];
	uint64_t s = 1;
	for (size_t i = 0; i < sizeof data; i++)
		data[i] = (uint8_t)sz_test_rand(&s);
	for (size_t n = 0; n <= sizeof data; n += (n < 300 ? 1 : 37)) {
		ck_assert_uint_eq(splitzip_hash_bytes(data, n), splitzip_hash_bytes_small(data, n));
		ck_assert_uint_eq(splitzip_hash_bytes(data + 1, n - (n > 0)),
				  splitzip_hash_bytes_small(data + 1, n - (n > 0)));
	}
	/* not trivially constant: distinct inputs, distinct lengths */
	ck_assert_uint_ne(splitzip_hash_bytes(data, 100), splitzip_hash_bytes(data, 101));
	uint8_t z[16] = {0};
	ck_assert_uint_ne(splitzip_hash_bytes(z, 8), splitzip_hash_bytes(z, 16));
}
END_TEST

START_TEST(layout_invariants)
{
	for (uint64_t n = 0; n < 5000; n += 97) {
		for (unsigned log2 = 10; log2 <= 16; log2 += 3) {
			splitzip_layout L;
			splitzip_split4_layout(n, log2, n / 50, &L);
			ck_assert_uint_eq(L.codes_off, 64);
			ck_assert_uint_eq(L.sm_off % 16, 0);
			ck_assert_uint_eq(L.table_off % 16, 0);
			ck_assert_uint_eq(L.epos_off % 16, 0);
			ck_assert_uint_eq(L.eexp_off % 16, 0);
			ck_assert_uint_eq(L.frame_size % 16, 0);
			ck_assert_uint_ge(L.sm_off, L.codes_off + (n + 1) / 2);
			ck_assert_uint_ge(L.table_off, L.sm_off + n);
			ck_assert_uint_ge(L.epos_off, L.table_off + 4 * L.n_chunks);
			ck_assert_uint_ge(L.eexp_off, L.epos_off + 2 * L.n_escapes);
			ck_assert_uint_ge(L.frame_size, L.eexp_off + L.n_escapes);
			int64_t m = splitzip_split4_max_escapes(n, log2);
			if (m >= 0) {
				ck_assert(splitzip_split4_wins(n, log2, (uint64_t)m));
				ck_assert(!splitzip_split4_wins(n, log2, (uint64_t)m + 1));
			} else {
				ck_assert(!splitzip_split4_wins(n, log2, 0));
			}
		}
	}
	ck_assert_int_eq(splitzip_split4_max_escapes(0, 12), -1);
}
END_TEST

/* ---- registry and selection ------------------------------------------------------------------- */

START_TEST(registry_slots_and_names)
{
	size_t n = splitzip_backend_count();
	ck_assert_uint_ge(n, 1);
	ck_assert_str_eq(splitzip_backend_name(n - 1), "scalar");
	ck_assert_ptr_null(splitzip_backend_name(n));
	ck_assert_int_eq(splitzip_backend_available(n), 0);
	for (size_t i = 0; i < n; i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		ck_assert_ptr_nonnull(b);
		ck_assert_ptr_nonnull(b->name);
		ck_assert_ptr_nonnull(b->probe);
		/* A host backend has every kernel; a device backend has a module loader and no
		 * host kernels: exactly one of the two. */
		ck_assert_msg((b->host != NULL) != (b->gpu != NULL), "%s: host xor gpu", b->name);
		if (b->host) {
			ck_assert_ptr_nonnull(b->host->histogram);
			ck_assert_ptr_nonnull(b->host->encode_chunk);
			ck_assert_ptr_nonnull(b->host->decode_chunk);
			ck_assert_ptr_nonnull(b->host->encode_chunk_stream);
			ck_assert_ptr_nonnull(b->host->decode_chunk_stream);
			ck_assert_ptr_nonnull(b->host->hash_chunk);
		}
		ck_assert_int_eq(splitzip_backend_id_of(i), b->id);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(splitzip_backend_name(i), splitzip_backend_name(j));
	}
}
END_TEST

START_TEST(force_backend_env)
{
	splitzip_ctx *ctx = NULL;
	const char *was = getenv("SPLITZIP_FORCE_BACKEND");
	char saved[64] = "";
	if (was)
		snprintf(saved, sizeof saved, "%s", was);
	setenv("SPLITZIP_FORCE_BACKEND", "no-such-backend", 1);
	ck_assert_int_eq(splitzip_ctx_create(NULL, &ctx), SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	ck_assert_ptr_null(ctx);
	setenv("SPLITZIP_FORCE_BACKEND", "scalar", 1);
	ck_assert_int_eq(splitzip_ctx_create(NULL, &ctx), SPLITZIP_OK);
	ck_assert_str_eq(splitzip_ctx_backend_name(ctx), "scalar");
	splitzip_ctx_free(ctx);
	if (was)
		setenv("SPLITZIP_FORCE_BACKEND", saved, 1);
	else
		unsetenv("SPLITZIP_FORCE_BACKEND");
	/* an explicit id that is not compiled in is an error, not a fallback */
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_CUDA; /* binds only where a CUDA device is usable */
	int usable = 0;
	for (size_t i = 0; i < splitzip_backend_count(); i++)
		if (splitzip_backend_id_of(i) == SPLITZIP_BACKEND_CUDA)
			usable = splitzip_backend_available(i);
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx),
			 usable ? SPLITZIP_OK : SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
	splitzip_ctx_free(ctx);
}
END_TEST

/* ---- runner ----------------------------------------------------------------------------------- */

static Suite *unit_suite(void)
{
	Suite *s = suite_create("unit");
	TCase *tc = tcase_create("roundtrip");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, all_bf16_patterns_roundtrip);
	tcase_add_test(tc, all_patterns_dense_path);
	tcase_add_loop_test(tc, edge_sizes_all_generators, 0, SZ_TEST_N_GENERATORS);
	tcase_add_test(tc, real_kv_ratio_and_roundtrip);
	tcase_add_test(tc, zero_escape_and_all_escape);
	tcase_add_test(tc, mode_threshold_exact);
	tcase_add_test(tc, deterministic_repeat);
	tcase_add_test(tc, stream_of_frames);
	tcase_add_test(tc, from_input_speculation_is_canonical);
	suite_add_tcase(s, tc);

	tc = tcase_create("codebook");
	tcase_add_test(tc, codebook_tie_rule);
	tcase_add_test(tc, codebook_file_roundtrip_and_damage);
	tcase_add_test(tc, fixed_codebook_escapes);
	suite_add_tcase(s, tc);

	tc = tcase_create("api");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, bound_formula_and_dst_capacity);
	tcase_add_test(tc, params_validation);
	tcase_add_test(tc, error_strings);
	tcase_add_test(tc, frame_info_fields);
	tcase_add_test(tc, truncation_and_bitflips_give_errors);
	tcase_add_test(tc, hash_word_and_byte_forms_agree);
	tcase_add_test(tc, layout_invariants);
	tcase_add_test(tc, registry_slots_and_names);
	tcase_add_test(tc, force_backend_env);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(unit_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
