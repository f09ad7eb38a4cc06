/*
 * test_entropy_hard.c -- hostile entropy frames (mode 2, doc/FORMAT.md §4.3.6): every single-bit
 * flip and every truncation of small real and generated entropy frames, decoded by every
 * available backend with the frame and the output flush against guard pages, and the entropy
 * table file's flips and truncations.
 *
 * What must hold:
 *   - no flip or truncation crashes or reads or writes outside the buffers (the guard pages,
 *     and ASan in the sanitized build);
 *   - every backend returns, for every flip, exactly the status of the scalar backend, a
 *     status a decoder may return, and verify agrees with decompress;
 *   - with the content checksum no flip decodes; without it a flip may decode, but never to
 *     the original data (the format is canonical);
 *   - every truncation is TRUNCATED.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_guard.h"
#include "sz_hard_util.h"
#include "sz_test_data.h"

typedef struct entropy_case {
	const char *name;
	int source;    /* a generator, or -1 for real K, -2 for real V */
	size_t offset; /* first element of the real-data slice */
	size_t n;
	unsigned log2;
	unsigned flags;
	int narrow_table; /* a fixed table that leaves escapes: 1 of K's window, 2 of the data */
} entropy_case;

#define CK SPLITZIP_FLAG_CONTENT_CHECKSUM
static const entropy_case cases[] = {
    {"real K, 2100 values, checksum", -1, 0, 2100, 10, CK, 0},
    {"real V, 1500 values", -2, 100000, 1500, 10, 0, 0},
    {"real K, narrow fixed table, 1200 values, checksum", -1, 200000, 1200, 12, CK, 1},
    {"5% escapes, its common exponents as a fixed table, 1100 values", SZ_GEN_ESCAPE_5PCT, 0, 1100,
     10, 0, 2},
    {"3 exponents, 1025 values, checksum", SZ_GEN_FEW_EXPONENTS, 0, 1025, 10, CK, 0},
    {"zeros, 600 values", SZ_GEN_ZERO, 0, 600, 10, 0, 0},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static uint16_t *case_data(const entropy_case *c)
{
	if (c->source >= 0)
		return hu_gen(c->source, 4343, c->n);
	size_t total = 0;
	uint16_t *all = sz_test_load_kv(c->source == -1 ? "K" : "V", &total);
	ck_assert_msg(all != NULL, "bundled KV sample missing (data/kv)");
	uint16_t *p = (uint16_t *)malloc(c->n * 2);
	ck_assert_ptr_nonnull(p);
	memcpy(p, all + c->offset, c->n * 2);
	free(all);
	return p;
}

/* The entropy frame of a case (scalar backend), malloc'ed; fails unless it is mode 2. */
static uint8_t *case_frame(const entropy_case *c, const uint16_t *data, size_t *size)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.encoding = SPLITZIP_ENCODING_ENTROPY;
	p.chunk_log2 = c->log2;
	p.flags = c->flags;
	if (c->narrow_table == 2) {
		/* The data's own histogram without its rare exponents: those are escapes. */
		uint64_t hist[256] = {0};
		splitzip_histogram(data, c->n, hist);
		for (int e = 0; e < 256; e++)
			hist[e] = hist[e] * 50 < c->n ? 0 : hist[e];
		ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &p.table),
		                 SPLITZIP_OK);
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
	} else if (c->narrow_table) {
		/* The exponents 119..129 of real K's histogram: the rest are escapes. */
		static const uint64_t k_hist[11] = {570,   1051,  2147,  4155,  8219, 16378,
		                                    32231, 59854, 83326, 49701, 3975};
		uint64_t hist[256] = {0};
		for (int e = 119; e <= 129; e++)
			hist[e] = k_hist[e - 119];
		ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &p.table),
		                 SPLITZIP_OK);
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
	}
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	uint8_t *f = hu_compress(ctx, data, c->n, size);
	splitzip_ctx_free(ctx);
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(f, *size, &fi), SPLITZIP_OK);
	ck_assert_msg(fi.mode == SPLITZIP_MODE_ENTROPY, "%s: not an entropy frame", c->name);
	return f;
}

/* Every flip of every case, by the scalar backend first: the statuses every backend must give. */
static splitzip_status *scalar_statuses(const entropy_case *c, const uint8_t *frame, size_t fsize)
{
	splitzip_ctx *ref = hu_ctx(SPLITZIP_BACKEND_SCALAR, c->log2, c->flags, 1);
	splitzip_status *st = (splitzip_status *)malloc(fsize * 8 * sizeof *st);
	uint8_t *f = (uint8_t *)malloc(fsize);
	uint16_t *dst = (uint16_t *)malloc(c->n * 2);
	ck_assert(st && f && dst);
	memcpy(f, frame, fsize);
	for (size_t bit = 0; bit < fsize * 8; bit++) {
		size_t n_out = 0;
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		st[bit] = splitzip_decompress(ref, f, fsize, dst, c->n, &n_out);
		f[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	free(f);
	free(dst);
	splitzip_ctx_free(ref);
	return st;
}

static void flips_of_case(splitzip_backend_id id, const entropy_case *c)
{
	uint16_t *data = case_data(c);
	size_t fsize = 0;
	uint8_t *frame = case_frame(c, data, &fsize);
	splitzip_status *want = scalar_statuses(c, frame, fsize);
	splitzip_ctx *ctx = hu_ctx(id, c->log2, c->flags, 2);
	sz_guard_buf fr, out;
	ck_assert_int_eq(sz_guard_dup(&fr, frame, fsize, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&out, c->n * 2, SZ_GUARD_END), 0);
	uint16_t *dst = (uint16_t *)out.ptr;
	unsigned long by_status[SPLITZIP_STATUS_COUNT] = {0}, ok_same = 0, ok_diff = 0;
	for (size_t bit = 0; bit < fsize * 8; bit++) {
		fr.ptr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		size_t n_out = 0;
		uint64_t vn = 0;
		splitzip_status st = splitzip_decompress(ctx, fr.ptr, fsize, dst, c->n, &n_out);
		splitzip_status vst = splitzip_verify(ctx, fr.ptr, fsize, &vn);
		ck_assert_msg(hu_is_decode_status(st), "%s: bit %zu: status %s", c->name, bit,
		              splitzip_status_name(st));
		hu_assert_status(st, want[bit], "%s [%s]: bit %zu (byte %zu) vs scalar", c->name,
		                 splitzip_ctx_backend_name(ctx), bit, bit / 8);
		if (st != SPLITZIP_ERROR_DST_TOO_SMALL)
			hu_assert_status(vst, st, "%s: bit %zu: verify vs decompress", c->name,
			                 bit);
		by_status[st]++;
		if (st == SPLITZIP_OK) {
			if (memcmp(dst, data, c->n * 2) == 0)
				ok_same++;
			else
				ok_diff++;
		}
		fr.ptr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	printf("entropy-hard[%s] %s: %zu-byte frame: ok/different %lu",
	       splitzip_ctx_backend_name(ctx), c->name, fsize, ok_diff);
	for (int s = 1; s < SPLITZIP_STATUS_COUNT; s++)
		if (by_status[s])
			printf(", %s %lu", splitzip_status_name((splitzip_status)s), by_status[s]);
	printf("\n");
	ck_assert_msg(ok_same == 0, "%s: %lu flips decode to the original data", c->name, ok_same);
	if (c->flags & CK)
		ck_assert_msg(ok_diff == 0, "%s: %lu flips decode despite the checksum", c->name,
		              ok_diff);
	sz_guard_free(&out);
	sz_guard_free(&fr);
	free(want);
	free(frame);
	free(data);
	splitzip_ctx_free(ctx);
}

START_TEST(entropy_bit_flips)
{
	if (!hu_host_backend(_i, "entropy"))
		return;
	for (size_t ci = 0; ci < N_CASES; ci++)
		flips_of_case(splitzip_backend_id_of((size_t)_i), &cases[ci]);
}
END_TEST

START_TEST(entropy_truncations)
{
	if (!hu_host_backend(_i, "entropy"))
		return;
	const splitzip_backend_id id = splitzip_backend_id_of((size_t)_i);
	for (size_t ci = 0; ci < N_CASES; ci += 2) {
		const entropy_case *c = &cases[ci];
		uint16_t *data = case_data(c);
		size_t fsize = 0;
		uint8_t *frame = case_frame(c, data, &fsize);
		splitzip_ctx *ctx = hu_ctx(id, c->log2, c->flags, 1);
		for (size_t len = 0; len < fsize; len++) {
			sz_guard_buf fr, out;
			ck_assert_int_eq(sz_guard_dup(&fr, frame, len, SZ_GUARD_END), 0);
			ck_assert_int_eq(sz_guard_alloc(&out, c->n * 2, SZ_GUARD_END), 0);
			size_t n_out = 0;
			uint64_t total = 0;
			hu_assert_status(splitzip_decompress(ctx, fr.ptr, len, (uint16_t *)out.ptr,
			                                     c->n, &n_out),
			                 SPLITZIP_ERROR_TRUNCATED, "%s: decompress %zu bytes",
			                 c->name, len);
			hu_assert_status(splitzip_verify(ctx, fr.ptr, len, &total),
			                 SPLITZIP_ERROR_TRUNCATED, "%s: verify %zu bytes", c->name,
			                 len);
			sz_guard_free(&out);
			sz_guard_free(&fr);
		}
		free(frame);
		free(data);
		splitzip_ctx_free(ctx);
	}
}
END_TEST

/* The 140-byte table file: every truncation, every flip, one extra byte. */
START_TEST(entropy_table_file_flips)
{
	splitzip_entropy_table t, back;
	size_t n = 0;
	uint16_t *kv = sz_test_load_kv("K", &n);
	ck_assert_ptr_nonnull(kv);
	ck_assert_int_eq(splitzip_entropy_calibrate(kv, n, &t), SPLITZIP_OK);
	free(kv);
	uint8_t file[SPLITZIP_ENTROPY_TABLE_FILE_SIZE + 1] = {0};
	hu_assert_status(splitzip_entropy_table_serialize(&t, file, sizeof file), SPLITZIP_OK,
	                 "serialize");
	for (size_t len = 0; len < SPLITZIP_ENTROPY_TABLE_FILE_SIZE; len++) {
		sz_guard_buf b;
		ck_assert_int_eq(sz_guard_dup(&b, file, len, SZ_GUARD_END), 0);
		hu_assert_status(splitzip_entropy_table_deserialize(b.ptr, len, &back),
		                 SPLITZIP_ERROR_TRUNCATED, "table file, %zu bytes", len);
		sz_guard_free(&b);
	}
	hu_assert_status(splitzip_entropy_table_deserialize(file, sizeof file, &back),
	                 SPLITZIP_ERROR_BAD_CODEBOOK, "table file plus a byte");
	for (size_t bit = 0; bit < SPLITZIP_ENTROPY_TABLE_FILE_SIZE * 8; bit++) {
		file[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		hu_assert_status(splitzip_entropy_table_deserialize(
		                     file, SPLITZIP_ENTROPY_TABLE_FILE_SIZE, &back),
		                 SPLITZIP_ERROR_BAD_CODEBOOK, "table file, bit %zu", bit);
		file[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}
END_TEST

Suite *sz_suite_entropy(void);
Suite *sz_suite_entropy(void)
{
	Suite *s = suite_create("entropy");
	TCase *tc = tcase_create("entropy");
	int nb = (int)splitzip_backend_count();
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, entropy_bit_flips, 0, nb);
	tcase_add_loop_test(tc, entropy_truncations, 0, nb);
	tcase_add_test(tc, entropy_table_file_flips);
	suite_add_tcase(s, tc);
	return s;
}
