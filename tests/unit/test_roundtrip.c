/*
 * test_roundtrip.c -- round trips: every BF16 pattern (escape and dense paths), edge sizes of
 * every generator, the real KV sample's ratio, the split4/stored choice, determinism, streams
 * of frames, and the from-input codebook speculation.
 */
#include "sz_check.h"
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"
#include "unit.h"
/* splitzip_bf16_join() and the split4 size and threshold formulas. */
#include "../../core/sz_driver_impl.h"

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
		size_t sizes[] = {0,
		                  1,
		                  2,
		                  3,
		                  4,
		                  5,
		                  15,
		                  16,
		                  17,
		                  31,
		                  100,
		                  chunk - 1,
		                  chunk,
		                  chunk + 1,
		                  2 * chunk - 1,
		                  2 * chunk,
		                  2 * chunk + 1,
		                  7 * chunk + 3,
		                  40 * chunk};
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
		ck_assert_msg(kv != NULL, "bundled KV sample data/kv/*.%s.bf16 is missing",
		              which[w]);
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
			src[i] =
			    splitzip_bf16_join(i < esc ? 3 : (uint8_t)(120 + i % 16), (uint8_t)i);
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
 * The inputs of from_input_speculation_is_canonical, and the way each must go through the
 * one-pass encoder (core/sz_driver_split4.c; splitzip_split4_last_trace()):
 *   0  real-KV-like data: the prediction holds; the rare members are watched and the others
 *      proved in by the sparse batches;
 *   1  the sampled pieces use other exponents than the rest: every code changes, the input is
 *      encoded again;
 *   2  the two rarest members seen by the sample occur only in it and two others only outside
 *      it (every code shifts by two in the recode);
 *   3  the rarest member seen by the sample, code 0, is replaced by another code 0 (codes stay,
 *      escapes change);
 *   4  a frequent member (exponent 108, not watched) never occurs in the sparse batches: it
 *      cannot be proved in, so every code is counted after the pass; the prediction holds;
 *   5  24 exponents with nearly equal counts: more members near the largest non-member than
 *      can be watched, so the pass counts every code (the sample's codebook is wrong in too
 *      many places to recode in place: the input is encoded again);
 *   6  a watched code 0: exponent 100 occurs only in the sample (about 260 times), 201
 *      everywhere (about 1,400 times, 45 in the sample) and 200 only outside it (about 400
 *      times), so the sample predicts 100 as the 16th member (code 0, watched) where the
 *      canonical codebook has 201. The count of code 0 is only right if the escapes, which
 *      have code 0 too, are taken off it: with them, 100 would seem to beat 201 and stay;
 *   7  like 6 with exponent 100 outside the sample too (about 2,300 in all): the prediction
 *      holds, with code 0 watched;
 *   8  code 0 (exponent 100, 2 % of the elements, not watched) never occurs in the sparse
 *      batches, where 1 % of the elements escape with 50 exponents: the sparse count of code 0
 *      is then all escapes, more than any one escaped exponent's count, and proves nothing
 *      only if the escapes are taken off it; so every code is counted after the pass.
 */
#define N_SPECULATION_INPUTS 9

static int in_sparse_batch_of(size_t i)
{
	return (i >> 16) % 8 == 0; /* SZ_COUNT_BATCH_ELEMS 2^16, SZ_SPARSE_EVERY 8 */
}

static void speculation_input(int how, uint16_t *src, size_t n)
{
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 21, src, n);
	if (how == 0)
		return;
	uint8_t *in_sample = calloc(n, 1);
	const uint64_t m = splitzip_driver_sample_pieces(n);
	for (uint64_t k = 0; k < m; k++)
		memset(in_sample + splitzip_driver_sample_piece(n, k), 1, SZ_SAMPLE_PIECE);
	uint64_t r = 77;
	for (size_t i = 0; i < n; i++) {
		r = r * 6364136223846793005ull + 1442695040888963407ull;
		const unsigned x = (unsigned)(r >> 33);
		unsigned e = 101 + x % 14;
		if (how == 1 && in_sample[i])
			e = 40 + i % 16;
		else if (how == 2 && in_sample[i] && x % 20 < 2)
			e = 99 + x % 2;
		else if (how == 2 && !in_sample[i] && x % 1000 < 4)
			e = 115 + x % 2;
		else if (how == 3 && x % 100 == 0)
			e = 115;
		else if (how == 3 && in_sample[i] && x % 20 == 1)
			e = 99;
		else if (how == 3 && !in_sample[i] && x % 300 == 1)
			e = 100;
		else if (how == 4 && e == 108 && in_sparse_batch_of(i))
			e = 109;
		else if (how == 4 && x % 100 == 0)
			e = 115 + x % 2;
		else if (how == 5)
			e = 90 + x % 24;
		else if (how >= 6 && x % 100 == 0)
			e = 115;
		else if (how >= 6 && x % 3000 == 1)
			e = 201;
		else if (how >= 6 && in_sample[i] && x % 500 == 2)
			e = 100;
		else if (how == 6 && !in_sample[i] && x % 10000 == 3)
			e = 200;
		else if (how == 7 && !in_sample[i] && x % 2000 == 3)
			e = 100;
		else if (how == 8 && x % 50 == 0 && !in_sparse_batch_of(i))
			e = 100;
		else if (how == 8 && x % 100 == 1 && in_sparse_batch_of(i))
			e = 150 + (x >> 8) % 50;
		if (how > 1 && how < 6 && x % 1000 == 999)
			e = 200; /* an escape in both codebooks */
		src[i] = splitzip_bf16_join((uint8_t)e, (uint8_t)(x >> 8));
	}
	free(in_sample);
}

/* What the encoder must have done with speculation input 'how' (see speculation_input). */
static void check_speculation_trace(int how)
{
	const splitzip_split4_trace t = splitzip_split4_last_trace();
	static const struct {
		int count, counted_after, recoded, encoded_again;
	} want[N_SPECULATION_INPUTS] = {
	    {1, 0, 0, 0}, {1, 1, 0, 1}, {1, 1, 1, 0}, {1, 1, 1, 0}, {1, 1, 0, 0},
	    {2, 0, 0, 1}, {1, 0, 1, 0}, {1, 0, 0, 0}, {1, 1, 0, 0},
	};
	ck_assert_msg(
	    t.count == want[how].count && t.counted_after == want[how].counted_after &&
	        t.recoded == want[how].recoded && t.encoded_again == want[how].encoded_again,
	    "input %d: the encoder counted %d (%u watched), counted after %d, recoded "
	    "%d, encoded again %d; expected %d, %d, %d, %d",
	    how, t.count, t.watched, t.counted_after, t.recoded, t.encoded_again, want[how].count,
	    want[how].counted_after, want[how].recoded, want[how].encoded_again);
	if (how == 6 || how == 7)
		ck_assert_msg(t.watched >= 1, "input %d: exponent 100 not watched", how);
}

/*
 * Large from-input frames predict the codebook from a sample and check it against the exact
 * histogram that the encode pass counts (core/sz_driver_split4.c); a wrong prediction is
 * recoded, or encoded again. Every outcome must give exactly the frame that the canonical
 * codebook, given as fixed, gives, on one and on three threads, with and without checksum.
 */
START_TEST(from_input_speculation_is_canonical)
{
	const size_t n = ((size_t)1 << 22) + 7; /* 1025 chunks of 4096 */
	ck_assert(splitzip_split4_predicts(n));
	uint16_t *src = malloc(n * 2);
	for (int how = 0; how < N_SPECULATION_INPUTS; how++) {
		speculation_input(how, src, n);
		splitzip_codebook truth;
		ck_assert_int_eq(splitzip_calibrate(src, n, &truth), SPLITZIP_OK);
		for (unsigned v = 0; v < 4; v++) {
			const unsigned flags = v % 2, threads = v < 2 ? 1 : 3;
			splitzip_ctx *ctx = NULL;
			splitzip_params p;
			splitzip_params_init(&p); /* the backend honours SPLITZIP_FORCE_BACKEND */
			p.n_threads = threads;
			p.flags = flags;
			ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
			buf a = roundtrip(ctx, src, n);
			check_speculation_trace(how);
			splitzip_ctx_free(ctx);
			p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
			p.codebook = truth;
			ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
			buf f = compress_with(ctx, src, n);
			splitzip_ctx_free(ctx);
			ck_assert_uint_eq(a.n, f.n);
			ck_assert_msg(memcmp(a.p, f.p, a.n) == 0,
			              "from-input frame differs from the canonical one (input %d, "
			              "threads %u, flags %u)",
			              how, threads, flags);
			free(a.p);
			free(f.p);
		}
	}
	free(src);
}
END_TEST

Suite *unit_suite_roundtrip(void)
{
	Suite *s = suite_create("roundtrip");
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
	return s;
}
