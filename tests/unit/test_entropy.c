/*
 * test_entropy.c -- entropy frames (mode 2, doc/FORMAT.md §4.3, §5.2-§5.4, §6.3): every BF16
 * pattern through the coded and the escape path, edge sizes at every chunk size, the auto
 * encoding's choice, thread independence, package-merge against Huffman and its limits, table
 * edge cases, the table API and file, a frame's table reused as a fixed one, and the ratio on
 * the bundled real KV against the order-0 bound.
 */
#include "sz_check.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"
#include "unit.h"
#include "../../core/sz_entropy.h"

/* A context for 'enc' (SPLITZIP_BACKEND_AUTO, honours SPLITZIP_FORCE_BACKEND). */
static splitzip_ctx *ctx_enc(splitzip_encoding enc, unsigned log2, unsigned flags, unsigned threads,
                             const splitzip_entropy_table *fixed)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = enc;
	p.chunk_log2 = log2;
	p.flags = flags;
	p.n_threads = threads;
	if (fixed) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *fixed;
	}
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	return ctx;
}

static splitzip_mode mode_of(const buf *b)
{
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(b->p, b->n, &fi), SPLITZIP_OK);
	return fi.mode;
}

static void shuffle(uint16_t *x, size_t n, uint64_t seed)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(sz_test_rand(&seed) % (i + 1));
		uint16_t t = x[i];
		x[i] = x[j];
		x[j] = t;
	}
}

/* ---- Round trips ---------------------------------------------------------------------------- */

/* All 65,536 patterns, from-input tables: every exponent has a code (no escape). */
START_TEST(all_patterns_coded)
{
	static const unsigned logs[] = {10, 12, 14, 16};
	uint16_t *all = malloc(65536 * 2);
	for (unsigned i = 0; i < 65536; i++)
		all[i] = (uint16_t)i;
	for (unsigned k = 0; k < 4; k++) {
		splitzip_ctx *ctx = ctx_enc(SPLITZIP_ENCODING_ENTROPY, logs[k], k % 2, 0, NULL);
		buf b = roundtrip(ctx, all, 65536);
		free(b.p);
		shuffle(all, 65536, logs[k]);
		b = roundtrip(ctx, all, 65536);
		free(b.p);
		splitzip_ctx_free(ctx);
	}
	free(all);
}
END_TEST

/* All 65,536 patterns through the escape path: a fixed table that codes exponent 127 only,
 * with three times as many values of exponent 127 so that the frame beats stored. */
START_TEST(all_patterns_escaped)
{
	const size_t n = 4 * 65536;
	uint16_t *x = malloc(n * 2);
	for (size_t i = 0; i < n; i++)
		x[i] = i < 65536 ? (uint16_t)i : (uint16_t)((127u << 7) | (i & 0x807F));
	shuffle(x, n, 42);
	splitzip_entropy_table t;
	memset(&t, 0, sizeof t);
	t.lengths[127] = 1;
	t.escape_length = 1;
	for (unsigned log2 = 10; log2 <= 16; log2 += 3) {
		splitzip_ctx *ctx = ctx_enc(SPLITZIP_ENCODING_ENTROPY, log2, 1, 0, &t);
		buf b = roundtrip(ctx, x, n);
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(b.p, b.n, &fi), SPLITZIP_OK);
		ck_assert_int_eq(fi.mode, SPLITZIP_MODE_ENTROPY);
		ck_assert_uint_eq(fi.n_escapes, 65536 - 256);
		free(b.p);
		splitzip_ctx_free(ctx);
	}
	free(x);
}
END_TEST

/* Sizes around steps (32 lanes) and chunks, for every chunk size and several generators. */
START_TEST(edge_sizes)
{
	static const int gens[] = {SZ_GEN_KV_SKEWED, SZ_GEN_ESCAPE_5PCT, SZ_GEN_SPECIALS,
	                           SZ_GEN_FEW_EXPONENTS, SZ_GEN_ZERO};
	const unsigned log2 = 10 + (unsigned)_i;
	const size_t c = (size_t)1 << log2;
	const size_t sizes[] = {0,      1,      2,      31,        32,    33,        63,
	                        64,     65,     100,    400,       c - 1, c,         c + 1,
	                        c + 31, c + 32, c + 33, 2 * c - 1, 2 * c, 2 * c + 5, 3 * c + 100};
	uint16_t *x = malloc((3 * c + 100) * 2);
	for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
		splitzip_ctx *ctx = ctx_enc(SPLITZIP_ENCODING_ENTROPY, log2, g % 2, 0, NULL);
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			sz_test_generate(gens[g], 1000 + k, x, sizes[k]);
			buf b = roundtrip(ctx, x, sizes[k]);
			splitzip_mode m = mode_of(&b);
			ck_assert(m == SPLITZIP_MODE_ENTROPY || m == SPLITZIP_MODE_STORED);
			if (m == SPLITZIP_MODE_STORED && sizes[k] >= 2048 &&
			    gens[g] != SZ_GEN_SPECIALS)
				ck_abort_msg("%s n=%zu L=%u: stored", sz_test_gen_name(gens[g]),
				             sizes[k], log2);
			free(b.p);
		}
		splitzip_ctx_free(ctx);
	}
	free(x);
}
END_TEST

/* AUTO is the smallest of the split4 and entropy encodings' frames; ties go to split4. */
START_TEST(auto_picks_the_smallest)
{
	const size_t n = 20000;
	uint16_t *x = malloc(n * 2);
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		sz_test_generate(g, 77, x, n);
		splitzip_ctx *s4 = ctx_enc(SPLITZIP_ENCODING_SPLIT4, 14, 1, 0, NULL);
		splitzip_ctx *en = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 14, 1, 0, NULL);
		splitzip_ctx *au = ctx_enc(SPLITZIP_ENCODING_AUTO, 0, 1, 0, NULL);
		buf a = roundtrip(s4, x, n), b = roundtrip(en, x, n), c = roundtrip(au, x, n);
		const buf *want = b.n < a.n ? &b : &a;
		ck_assert_msg(c.n == want->n && memcmp(c.p, want->p, c.n) == 0,
		              "%s: auto %zu bytes, split4 %zu, entropy %zu", sz_test_gen_name(g),
		              c.n, a.n, b.n);
		free(a.p);
		free(b.p);
		free(c.p);
		splitzip_ctx_free(s4);
		splitzip_ctx_free(en);
		splitzip_ctx_free(au);
	}
	free(x);
}
END_TEST

/* The same frame for every thread count (frames of 16 chunks and a partial one). */
START_TEST(thread_count_independent)
{
	const size_t n = 16 * 16384 + 777;
	uint16_t *x = malloc(n * 2);
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 5, x, n);
	for (int enc = SPLITZIP_ENCODING_ENTROPY; enc <= SPLITZIP_ENCODING_AUTO; enc++) {
		splitzip_ctx *one = ctx_enc((splitzip_encoding)enc, 12, 1, 1, NULL);
		buf ref = roundtrip(one, x, n);
		splitzip_ctx_free(one);
		for (unsigned t = 2; t <= 5; t++) {
			splitzip_ctx *ctx = ctx_enc((splitzip_encoding)enc, 12, 1, t, NULL);
			buf b = roundtrip(ctx, x, n);
			ck_assert_msg(b.n == ref.n && memcmp(b.p, ref.p, b.n) == 0,
			              "encoding %d, %u threads: frame differs", enc, t);
			free(b.p);
			splitzip_ctx_free(ctx);
		}
		free(ref.p);
	}
	free(x);
}
END_TEST

/* The bundled real KV: at least 1.47x at the default chunk size, within 1 % of the order-0
 * bound (exponent entropy + 8 bits per element), and 10 % above split4. */
START_TEST(real_kv_ratio)
{
	static const char *const which[] = {"K", "V"};
	for (int w = 0; w < 2; w++) {
		size_t n = 0;
		uint16_t *kv = sz_test_load_kv(which[w], &n);
		ck_assert_msg(kv != NULL, "bundled KV sample data/kv/*.%s.bf16 is missing",
		              which[w]);
		uint64_t hist[256] = {0};
		splitzip_histogram(kv, n, hist);
		double H = 0;
		for (int e = 0; e < 256; e++)
			if (hist[e])
				H -=
				    (double)hist[e] / (double)n * log2((double)hist[e] / (double)n);
		const double bound = 16.0 / (8.0 + H);
		splitzip_ctx *ctx = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 0, 1, 0, NULL);
		buf b = roundtrip(ctx, kv, n);
		const double ratio = (double)(n * 2) / (double)b.n;
		ck_assert_msg(ratio >= 1.47, "%s: ratio %.4f < 1.47", which[w], ratio);
		ck_assert_msg(ratio >= 0.99 * bound, "%s: ratio %.4f more than 1 %% below %.4f",
		              which[w], ratio, bound);
		free(b.p);
		splitzip_ctx_free(ctx);
		free(kv);
	}
}
END_TEST

/* ---- Tables ---------------------------------------------------------------------------------- */

/* The cost sum(w * len) of an unlimited Huffman code, by the two-queue method. */
static uint64_t huffman_cost(const uint64_t *w, unsigned m)
{
	uint64_t *q1 = malloc(m * sizeof *q1), *q2 = malloc(m * sizeof *q2), cost = 0;
	memcpy(q1, w, m * sizeof *q1);
	for (unsigned i = 1; i < m; i++) /* sort ascending */
		for (unsigned j = i; j > 0 && q1[j - 1] > q1[j]; j--) {
			uint64_t t = q1[j];
			q1[j] = q1[j - 1];
			q1[j - 1] = t;
		}
	unsigned a = 0, b = 0, nb = 0;
	for (unsigned k = 0; k + 1 < m; k++) {
		uint64_t pick[2];
		for (int t = 0; t < 2; t++)
			pick[t] = (b >= nb || (a < m && q1[a] <= q2[b])) ? q1[a++] : q2[b++];
		q2[nb++] = pick[0] + pick[1];
		cost += pick[0] + pick[1];
	}
	free(q1);
	free(q2);
	return cost;
}

/* The Huffman depth bound: with weights at least 1 and total T, depth <= log_phi(T) + 1. */
static unsigned huffman_fits_11(const uint64_t *w, unsigned m)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < m; i++)
		total += w[i];
	return m <= 64 && total < 88; /* Fibonacci(12) = 144: depth <= 10 below that */
}

/* Package-merge: complete, at most 11 bits, monotone in weight, optimal when Huffman fits. */
START_TEST(package_merge_properties)
{
	uint64_t s = 1234;
	for (int it = 0; it < 3000; it++) {
		uint64_t w[SPLITZIP_ENTROPY_SYMBOLS] = {0}, ws[SPLITZIP_ENTROPY_SYMBOLS];
		uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
		unsigned m = 2 + (unsigned)(sz_test_rand(&s) % 256), got = 0;
		const int small = it % 3 == 0;
		for (unsigned k = 0; k < m; k++) {
			unsigned sym = (unsigned)(sz_test_rand(&s) % SPLITZIP_ENTROPY_SYMBOLS);
			uint64_t r = sz_test_rand(&s);
			w[sym] += small ? 1 + r % 3 : (r >> (32 + r % 32)) + 1; /* counts < 2^32 */
		}
		unsigned coded = splitzip_entropy_package_merge(w, len);
		uint64_t cost = 0;
		for (unsigned k = 0; k < SPLITZIP_ENTROPY_SYMBOLS; k++) {
			ck_assert((w[k] != 0) == (len[k] != 0));
			ck_assert_uint_le(len[k], 11);
			if (w[k]) {
				ws[got++] = w[k];
				cost += w[k] * len[k];
			}
			for (unsigned j = 0; j < k; j++)
				if (w[j] && w[k] && w[j] > w[k])
					ck_assert_uint_le(len[j], len[k]);
		}
		ck_assert_uint_eq(coded, got);
		if (got < 2)
			continue;
		uint32_t kraft = 0;
		for (unsigned k = 0; k < SPLITZIP_ENTROPY_SYMBOLS; k++)
			kraft += len[k] ? 1u << (11 - len[k]) : 0;
		ck_assert_uint_eq(kraft, 1u << 11);
		const uint64_t hc = huffman_cost(ws, got);
		ck_assert_uint_ge(cost, hc);
		if (huffman_fits_11(ws, got))
			ck_assert_uint_eq(cost, hc);
	}
}
END_TEST

/* One exponent; all 256 with equal counts; a geometric histogram that needs the limit. */
START_TEST(table_edge_cases)
{
	uint64_t hist[256] = {0};
	splitzip_entropy_table t;
	hist[200] = 12345;
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t), SPLITZIP_OK);
	ck_assert_uint_eq(t.lengths[200], 1);
	ck_assert_uint_eq(t.escape_length, 1);
	for (int e = 0; e < 256; e++)
		hist[e] = 1000;
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t), SPLITZIP_OK);
	unsigned n8 = 0, n9 = 0;
	for (int e = 0; e < 256; e++) {
		n8 += t.lengths[e] == 8;
		n9 += t.lengths[e] == 9;
	}
	/* 257 symbols: 255 codes of 8 bits and 2 of 9; the two lightest are the escape symbol and
	 * exponent 0, the first in (weight, symbol) order among 1000s. */
	ck_assert_uint_eq(t.escape_length, 9);
	ck_assert_uint_eq(n8, 255);
	ck_assert_uint_eq(n9, 1);
	ck_assert_uint_eq(t.lengths[0], 9);
	memset(hist, 0, sizeof hist);
	for (int k = 0; k < 20; k++)
		hist[100 + k] = (uint64_t)1 << k;
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t), SPLITZIP_OK);
	unsigned max = t.escape_length;
	for (int e = 0; e < 256; e++)
		max = t.lengths[e] > max ? t.lengths[e] : max;
	ck_assert_uint_eq(max, 11);
	ck_assert_int_eq(splitzip_entropy_table_validate(&t), SPLITZIP_OK);
	memset(hist, 0, sizeof hist);
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	hist[3] = (uint64_t)1 << 58; /* counts up to 2^59 - 1 in total are accepted */
	hist[4] = ((uint64_t)1 << 58) - 1;
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t), SPLITZIP_OK);
	hist[5] = 1; /* 2^59: the lists' sums could overflow */
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	memset(hist, 0, sizeof hist);
	uint16_t v = 0x3F80;
	ck_assert_int_eq(splitzip_entropy_calibrate(&v, 0, &t), SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_entropy_calibrate(&v, 1, &t), SPLITZIP_OK);
	ck_assert_uint_eq(t.lengths[127], 1);
}
END_TEST

/* Validity (§5.4) and the table file (§9.2): round trip, every damaged byte, sizes. */
START_TEST(table_api_and_file)
{
	splitzip_entropy_table t, u;
	size_t n = 0;
	uint16_t *kv = sz_test_load_kv("K", &n);
	ck_assert_ptr_nonnull(kv);
	ck_assert_int_eq(splitzip_entropy_calibrate(kv, n, &t), SPLITZIP_OK);
	free(kv);
	uint8_t f[SPLITZIP_ENTROPY_TABLE_FILE_SIZE + 1];
	ck_assert_int_eq(splitzip_entropy_table_serialize(&t, f, sizeof f), SPLITZIP_OK);
	ck_assert_int_eq(
	    splitzip_entropy_table_deserialize(f, SPLITZIP_ENTROPY_TABLE_FILE_SIZE, &u),
	    SPLITZIP_OK);
	ck_assert(memcmp(&t, &u, sizeof t) == 0);
	ck_assert_int_eq(
	    splitzip_entropy_table_deserialize(f, SPLITZIP_ENTROPY_TABLE_FILE_SIZE - 1, &u),
	    SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(
	    splitzip_entropy_table_deserialize(f, SPLITZIP_ENTROPY_TABLE_FILE_SIZE + 1, &u),
	    SPLITZIP_ERROR_BAD_CODEBOOK);
	for (unsigned i = 0; i < SPLITZIP_ENTROPY_TABLE_FILE_SIZE; i++)
		for (unsigned bit = 0; bit < 8; bit += 3) {
			f[i] ^= (uint8_t)(1u << bit);
			ck_assert_int_eq(splitzip_entropy_table_deserialize(
			                     f, SPLITZIP_ENTROPY_TABLE_FILE_SIZE, &u),
			                 SPLITZIP_ERROR_BAD_CODEBOOK);
			f[i] ^= (uint8_t)(1u << bit);
		}
	ck_assert_int_eq(
	    splitzip_entropy_table_serialize(&t, f, SPLITZIP_ENTROPY_TABLE_FILE_SIZE - 1),
	    SPLITZIP_ERROR_DST_TOO_SMALL);
	/* Invalid tables: no escape code, a length of 12, incomplete, oversubscribed. */
	u = t;
	u.escape_length = 0;
	ck_assert_int_eq(splitzip_entropy_table_validate(&u), SPLITZIP_ERROR_BAD_CODEBOOK);
	ck_assert_int_eq(splitzip_entropy_table_serialize(&u, f, sizeof f),
	                 SPLITZIP_ERROR_BAD_CODEBOOK);
	u = t;
	u.escape_length = 12;
	ck_assert_int_eq(splitzip_entropy_table_validate(&u), SPLITZIP_ERROR_BAD_CODEBOOK);
	u = t;
	u.lengths[7] = 11; /* exponent 7 has no code in the KV table: now oversubscribed */
	ck_assert_uint_eq(t.lengths[7], 0);
	ck_assert_int_eq(splitzip_entropy_table_validate(&u), SPLITZIP_ERROR_BAD_CODEBOOK);
	memset(&u, 0, sizeof u);
	u.lengths[1] = 1;
	u.escape_length = 2; /* 1/2 + 1/4: incomplete */
	ck_assert_int_eq(splitzip_entropy_table_validate(&u), SPLITZIP_ERROR_BAD_CODEBOOK);
	ck_assert_int_eq(splitzip_entropy_table_validate(NULL), SPLITZIP_ERROR_INVALID_ARGUMENT);
	/* An invalid fixed table is refused by ctx_create. */
	splitzip_params p;
	splitzip_params_init(&p);
	p.table_mode = SPLITZIP_CODEBOOK_FIXED;
	p.table = u;
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_ERROR_INVALID_ARGUMENT);
}
END_TEST

/* A frame's table (splitzip_frame_entropy_table) is the calibrated one of its content, and
 * encodes the next frame as a fixed table (the "previous table" use). */
START_TEST(frame_table_reused)
{
	size_t nk = 0, nv = 0;
	uint16_t *k = sz_test_load_kv("K", &nk), *v = sz_test_load_kv("V", &nv);
	ck_assert(k && v);
	splitzip_ctx *ctx = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 0, 1, 0, NULL);
	buf b = roundtrip(ctx, k, nk);
	splitzip_entropy_table t, c;
	ck_assert_int_eq(splitzip_frame_entropy_table(b.p, b.n, &t), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_entropy_calibrate(k, nk, &c), SPLITZIP_OK);
	ck_assert(memcmp(&t, &c, sizeof t) == 0);
	/* The code lengths end within the first bytes: a prefix that holds them suffices. */
	ck_assert_int_eq(splitzip_frame_entropy_table(b.p, 64 + nk + 200, &t), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_frame_entropy_table(b.p, 64 + nk, &t), SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(splitzip_frame_entropy_table(b.p, 40, &t), SPLITZIP_ERROR_TRUNCATED);
	/* The table of the first half of K on its second half: within 1 % of the second half's
	 * own table (the halves are different layers). On V, whose exponents K's table partly
	 * lacks, it still round-trips, through escapes. */
	buf bh = roundtrip(ctx, k, nk / 2);
	splitzip_entropy_table th;
	ck_assert_int_eq(splitzip_frame_entropy_table(bh.p, bh.n, &th), SPLITZIP_OK);
	splitzip_ctx *fixed = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 0, 1, 0, &th);
	buf bv = roundtrip(fixed, k + nk / 2, nk - nk / 2);
	splitzip_ctx *own = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 0, 1, 0, NULL);
	buf bo = roundtrip(own, k + nk / 2, nk - nk / 2);
	ck_assert_msg((double)bv.n < 1.01 * (double)bo.n, "first half's table: %zu vs %zu bytes",
	              bv.n, bo.n);
	free(bh.p);
	free(bv.p);
	splitzip_ctx_free(fixed);
	fixed = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 0, 1, 0, &t);
	bv = roundtrip(fixed, v, nv);
	/* A split4 frame has no entropy table. */
	splitzip_ctx *s4 = ctx_enc(SPLITZIP_ENCODING_SPLIT4, 0, 0, 0, NULL);
	buf bs = roundtrip(s4, v, nv);
	ck_assert_int_eq(splitzip_frame_entropy_table(bs.p, bs.n, &t),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	free(b.p);
	free(bv.p);
	free(bo.p);
	free(bs.p);
	splitzip_ctx_free(ctx);
	splitzip_ctx_free(fixed);
	splitzip_ctx_free(own);
	splitzip_ctx_free(s4);
	free(k);
	free(v);
}
END_TEST

/* Parameters: the chunk size default per encoding; output capacity. */
START_TEST(params_and_capacity)
{
	splitzip_params p, q;
	splitzip_params_init(&p);
	ck_assert_uint_eq(p.chunk_log2, 0);
	ck_assert_int_eq(p.encoding, SPLITZIP_ENCODING_SPLIT4);
	static const unsigned want[] = {SPLITZIP_CHUNK_LOG2_DEFAULT,
	                                SPLITZIP_CHUNK_LOG2_DEFAULT_ENTROPY,
	                                SPLITZIP_CHUNK_LOG2_DEFAULT_ENTROPY};
	for (int enc = 0; enc < 3; enc++) {
		splitzip_ctx *ctx = ctx_enc((splitzip_encoding)enc, 0, 0, 0, NULL);
		ck_assert_int_eq(splitzip_ctx_params(ctx, &q), SPLITZIP_OK);
		ck_assert_uint_eq(q.chunk_log2, want[enc]);
		splitzip_ctx_free(ctx);
		ctx = ctx_enc((splitzip_encoding)enc, 11, 0, 0, NULL);
		ck_assert_int_eq(splitzip_ctx_params(ctx, &q), SPLITZIP_OK);
		ck_assert_uint_eq(q.chunk_log2, 11);
		splitzip_ctx_free(ctx);
	}
	const size_t n = 50000;
	uint16_t *x = malloc(n * 2);
	sz_test_generate(SZ_GEN_KV_SKEWED, 3, x, n);
	splitzip_ctx *ctx = ctx_enc(SPLITZIP_ENCODING_ENTROPY, 0, 1, 0, NULL);
	buf b = roundtrip(ctx, x, n);
	uint8_t *d = malloc(b.n);
	size_t got = 0;
	ck_assert_int_eq(splitzip_compress(ctx, x, n, d, b.n, &got), SPLITZIP_OK);
	ck_assert(got == b.n && memcmp(d, b.p, b.n) == 0);
	ck_assert_int_eq(splitzip_compress(ctx, x, n, d, b.n - 16, &got),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_int_eq(splitzip_compress(ctx, x, n, d, 64 + n - 1, &got),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	free(d);
	free(b.p);
	free(x);
	splitzip_ctx_free(ctx);
}
END_TEST

Suite *unit_suite_entropy(void)
{
	Suite *s = suite_create("entropy");
	TCase *tc = tcase_create("entropy");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, all_patterns_coded);
	tcase_add_test(tc, all_patterns_escaped);
	tcase_add_loop_test(tc, edge_sizes, 0, 7); /* Chunk_Log2 10..16 */
	tcase_add_test(tc, auto_picks_the_smallest);
	tcase_add_test(tc, thread_count_independent);
	tcase_add_test(tc, real_kv_ratio);
	tcase_add_test(tc, package_merge_properties);
	tcase_add_test(tc, table_edge_cases);
	tcase_add_test(tc, table_api_and_file);
	tcase_add_test(tc, frame_table_reused);
	tcase_add_test(tc, params_and_capacity);
	suite_add_tcase(s, tc);
	return s;
}
