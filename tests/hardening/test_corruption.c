/*
 * test_corruption.c -- every single-bit flip and every truncation of small real and generated
 * frames, decoded by every available backend with the frame flush against a guard page.
 *
 * What must hold (doc/SECURITY.md):
 *   - no flip or truncation crashes, hangs, or reads or writes outside the buffers;
 *   - every status is one a decoder may return, and splitzip_verify() agrees with
 *     splitzip_decompress();
 *   - a flip inside the 64-byte header never decodes (Header_Checksum);
 *   - with the content checksum flag, no flip decodes at all;
 *   - without it, a flip may decode, but never to the original data: the format is canonical,
 *     so a different frame cannot stand for the same data;
 *   - every truncation of a frame is TRUNCATED; a stream cut exactly between two frames is a
 *     valid shorter stream.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_guard.h"
#include "sz_hard_util.h"
#include "sz_test_data.h"

typedef struct frame_case {
	const char *name;
	int source;    /* a generator, or -1 for real K, -2 for real V */
	size_t offset; /* first element of the real-data slice */
	size_t n;
	unsigned log2;
	unsigned flags;
} frame_case;

#define CK SPLITZIP_FLAG_CONTENT_CHECKSUM
static const frame_case cases[] = {
    {"real K, 2048 values, checksum", -1, 0, 2048, 10, CK},
    {"real V, 1500 values", -2, 100000, 1500, 10, 0},
    {"real K, 1200 values, 4K chunks, checksum", -1, 200000, 1200, 12, CK},
    {"5% escapes, 1800 values, checksum", SZ_GEN_ESCAPE_5PCT, 0, 1800, 10, CK},
    {"1% escapes, 3001 values", SZ_GEN_ESCAPE_1PCT, 0, 3001, 10, 0},
    {"stored, 700 values, checksum", SZ_GEN_ALL_ESCAPE, 0, 700, 10, CK},
    {"stored, 333 random values", SZ_GEN_RANDOM, 0, 333, 12, 0},
    {"3 exponents, 1025 values, checksum", SZ_GEN_FEW_EXPONENTS, 0, 1025, 10, CK},
    {"zeros, 64 values, checksum", SZ_GEN_ZERO, 0, 64, 10, CK},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* The input data of a case, malloc'ed. */
static uint16_t *case_data(const frame_case *c)
{
	if (c->source >= 0)
		return hu_gen(c->source, 4242, c->n);
	size_t total = 0;
	uint16_t *all = sz_test_load_kv(c->source == -1 ? "K" : "V", &total);
	ck_assert_msg(all != NULL, "bundled KV sample missing (data/kv)");
	ck_assert_uint_ge(total, c->offset + c->n);
	uint16_t *p = (uint16_t *)malloc(c->n * 2);
	ck_assert_ptr_nonnull(p);
	memcpy(p, all + c->offset, c->n * 2);
	free(all);
	return p;
}

static int usable(int i)
{
	return hu_host_backend(i, "corruption");
}

START_TEST(bit_flips)
{
	if (!usable(_i))
		return;
	splitzip_backend_id id = splitzip_backend_id_of((size_t)_i);
	for (size_t ci = 0; ci < N_CASES; ci++) {
		const frame_case *c = &cases[ci];
		uint16_t *data = case_data(c);
		splitzip_ctx *ref = hu_ctx(SPLITZIP_BACKEND_SCALAR, c->log2, c->flags, 1);
		splitzip_ctx *ctx = hu_ctx(id, c->log2, c->flags, 1);
		size_t fsize = 0;
		uint8_t *frame = hu_compress(ref, data, c->n, &fsize);
		sz_guard_buf fr, out;
		ck_assert_int_eq(sz_guard_dup(&fr, frame, fsize, SZ_GUARD_END), 0);
		ck_assert_int_eq(sz_guard_alloc(&out, c->n * 2, SZ_GUARD_END), 0);
		uint16_t *dst = (uint16_t *)out.ptr;

		unsigned long by_status[SPLITZIP_STATUS_COUNT] = {0};
		unsigned long ok_same = 0, ok_diff = 0, header_ok = 0;
		for (size_t bit = 0; bit < fsize * 8; bit++) {
			fr.ptr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			size_t n_out = 0;
			uint64_t vn = 0;
			splitzip_status st =
			    splitzip_decompress(ctx, fr.ptr, fsize, dst, c->n, &n_out);
			splitzip_status vst = splitzip_verify(ctx, fr.ptr, fsize, &vn);
			ck_assert_msg(hu_is_decode_status(st), "%s: bit %zu: status %s", c->name,
			              bit, splitzip_status_name(st));
			/* The flip may raise the element count above the output room; verify has
			 * its own room, so compare only where the room was not the limit. */
			if (st != SPLITZIP_ERROR_DST_TOO_SMALL)
				hu_assert_status(vst, st, "%s: bit %zu: verify vs decompress",
				                 c->name, bit);
			by_status[st]++;
			if (st == SPLITZIP_OK) {
				ck_assert_uint_eq(n_out, c->n);
				if (memcmp(dst, data, c->n * 2) == 0)
					ok_same++;
				else
					ok_diff++;
				if (bit < SPLITZIP_FRAME_HEADER_SIZE * 8)
					header_ok++;
			}
			fr.ptr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		printf("corruption[%s] %s: %zu-byte frame, %zu flips: ok/different %lu, "
		       "ok/same %lu",
		       splitzip_ctx_backend_name(ctx), c->name, fsize, fsize * 8, ok_diff, ok_same);
		for (int s = 1; s < SPLITZIP_STATUS_COUNT; s++)
			if (by_status[s])
				printf(", %s %lu", splitzip_status_name((splitzip_status)s),
				       by_status[s]);
		printf("\n");
		ck_assert_msg(ok_same == 0, "%s: %lu flips decode to the original data", c->name,
		              ok_same);
		ck_assert_msg(header_ok == 0, "%s: %lu header flips decode", c->name, header_ok);
		if (c->flags & CK)
			ck_assert_msg(ok_diff == 0,
			              "%s: %lu flips decode to different data despite "
			              "the content checksum",
			              c->name, ok_diff);
		else /* without the checksum a flip of a sign/mantissa bit must decode */
			ck_assert_msg(ok_diff > 0, "%s: no flip decoded", c->name);

		/* The original still decodes (the flips were undone). */
		size_t n_out = 0;
		hu_assert_status(splitzip_decompress(ctx, fr.ptr, fsize, dst, c->n, &n_out),
		                 SPLITZIP_OK, "%s: original", c->name);
		ck_assert(memcmp(dst, data, c->n * 2) == 0);
		sz_guard_free(&out);
		sz_guard_free(&fr);
		free(frame);
		splitzip_ctx_free(ctx);
		splitzip_ctx_free(ref);
		free(data);
	}
}
END_TEST

/* Decode the first 'len' bytes of 'frame', placed flush against a guard page. */
static void check_truncated(splitzip_ctx *ctx, const uint8_t *frame, size_t len, size_t n,
                            const char *name)
{
	sz_guard_buf fr, out;
	ck_assert_int_eq(sz_guard_dup(&fr, frame, len, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&out, n * 2, SZ_GUARD_END), 0);
	size_t n_out = 0, used = 0;
	uint64_t total = 0;
	splitzip_frame_info info;
	hu_assert_status(splitzip_decompress(ctx, fr.ptr, len, (uint16_t *)out.ptr, n, &n_out),
	                 SPLITZIP_ERROR_TRUNCATED, "%s: decompress %zu bytes", name, len);
	hu_assert_status(
	    splitzip_frame_decompress(ctx, fr.ptr, len, &used, (uint16_t *)out.ptr, n, &n_out),
	    SPLITZIP_ERROR_TRUNCATED, "%s: frame_decompress %zu bytes", name, len);
	hu_assert_status(splitzip_verify(ctx, fr.ptr, len, &total), SPLITZIP_ERROR_TRUNCATED,
	                 "%s: verify %zu bytes", name, len);
	hu_assert_status(splitzip_decompressed_size(fr.ptr, len, &total), SPLITZIP_ERROR_TRUNCATED,
	                 "%s: decompressed_size %zu bytes", name, len);
	hu_assert_status(splitzip_get_frame_info(fr.ptr, len, &info),
	                 len < SPLITZIP_FRAME_HEADER_SIZE ? SPLITZIP_ERROR_TRUNCATED : SPLITZIP_OK,
	                 "%s: frame info %zu bytes", name, len);
	sz_guard_free(&out);
	sz_guard_free(&fr);
}

START_TEST(truncations)
{
	if (!usable(_i))
		return;
	splitzip_backend_id id = splitzip_backend_id_of((size_t)_i);
	for (size_t ci = 0; ci < N_CASES; ci++) {
		const frame_case *c = &cases[ci];
		uint16_t *data = case_data(c);
		splitzip_ctx *ctx = hu_ctx(id, c->log2, c->flags, 1);
		size_t fsize = 0;
		uint8_t *frame = hu_compress(ctx, data, c->n, &fsize);
		for (size_t len = 0; len < fsize; len++)
			check_truncated(ctx, frame, len, c->n, c->name);
		free(frame);
		splitzip_ctx_free(ctx);
		free(data);
	}
}
END_TEST

START_TEST(stream_truncations)
{
	if (!usable(_i))
		return;
	/* Two frames back to back: a split4 frame with escapes, then a stored one. */
	splitzip_ctx *ctx =
	    hu_ctx(splitzip_backend_id_of((size_t)_i), 10, SPLITZIP_FLAG_CONTENT_CHECKSUM, 1);
	const size_t n1 = 1100, n2 = 300;
	uint16_t *d1 = hu_gen(SZ_GEN_ESCAPE_1PCT, 5, n1), *d2 = hu_gen(SZ_GEN_RANDOM, 6, n2);
	size_t s1 = 0, s2 = 0;
	uint8_t *f1 = hu_compress(ctx, d1, n1, &s1), *f2 = hu_compress(ctx, d2, n2, &s2);
	uint8_t *stream = (uint8_t *)malloc(s1 + s2);
	ck_assert_ptr_nonnull(stream);
	memcpy(stream, f1, s1);
	memcpy(stream + s1, f2, s2);
	for (size_t len = 0; len < s1 + s2; len++) {
		if (len == s1) {
			/* Cut exactly after the first frame: a valid one-frame stream. */
			sz_guard_buf fr, out;
			ck_assert_int_eq(sz_guard_dup(&fr, stream, len, SZ_GUARD_END), 0);
			ck_assert_int_eq(sz_guard_alloc(&out, n1 * 2, SZ_GUARD_END), 0);
			size_t n_out = 0;
			hu_assert_status(
			    splitzip_decompress(ctx, fr.ptr, len, (uint16_t *)out.ptr, n1, &n_out),
			    SPLITZIP_OK, "stream cut after frame 1");
			ck_assert_uint_eq(n_out, n1);
			ck_assert(memcmp(out.ptr, d1, n1 * 2) == 0);
			sz_guard_free(&out);
			sz_guard_free(&fr);
			continue;
		}
		if (len < s1) {
			check_truncated(ctx, stream, len, n1 + n2, "stream");
			continue;
		}
		/* Cut inside the second frame: the stream calls report TRUNCATED. */
		sz_guard_buf fr, out;
		ck_assert_int_eq(sz_guard_dup(&fr, stream, len, SZ_GUARD_END), 0);
		ck_assert_int_eq(sz_guard_alloc(&out, (n1 + n2) * 2, SZ_GUARD_END), 0);
		size_t n_out = 0;
		uint64_t total = 0;
		hu_assert_status(
		    splitzip_decompress(ctx, fr.ptr, len, (uint16_t *)out.ptr, n1 + n2, &n_out),
		    SPLITZIP_ERROR_TRUNCATED, "stream: decompress %zu bytes", len);
		hu_assert_status(splitzip_verify(ctx, fr.ptr, len, &total),
		                 SPLITZIP_ERROR_TRUNCATED, "stream: verify %zu bytes", len);
		hu_assert_status(splitzip_decompressed_size(fr.ptr, len, &total),
		                 SPLITZIP_ERROR_TRUNCATED, "stream: decompressed_size %zu bytes",
		                 len);
		sz_guard_free(&out);
		sz_guard_free(&fr);
	}
	free(stream);
	free(f1);
	free(f2);
	free(d1);
	free(d2);
	splitzip_ctx_free(ctx);
}
END_TEST

START_TEST(codebook_file_flips)
{
	/* The 28-byte codebook file: every truncation, every flip, one extra byte. */
	splitzip_codebook cb, back;
	for (unsigned k = 0; k < 16; k++)
		cb.exponents[k] = (uint8_t)(112 + k);
	uint8_t file[SPLITZIP_CODEBOOK_FILE_SIZE + 1] = {0};
	hu_assert_status(splitzip_codebook_serialize(&cb, file, sizeof file), SPLITZIP_OK,
	                 "serialize");
	for (size_t len = 0; len < SPLITZIP_CODEBOOK_FILE_SIZE; len++) {
		sz_guard_buf b;
		ck_assert_int_eq(sz_guard_dup(&b, file, len, SZ_GUARD_END), 0);
		hu_assert_status(splitzip_codebook_deserialize(b.ptr, len, &back),
		                 SPLITZIP_ERROR_TRUNCATED, "codebook file, %zu bytes", len);
		sz_guard_free(&b);
	}
	hu_assert_status(splitzip_codebook_deserialize(file, sizeof file, &back),
	                 SPLITZIP_ERROR_BAD_CODEBOOK, "codebook file plus a byte");
	for (size_t bit = 0; bit < SPLITZIP_CODEBOOK_FILE_SIZE * 8; bit++) {
		file[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		hu_assert_status(
		    splitzip_codebook_deserialize(file, SPLITZIP_CODEBOOK_FILE_SIZE, &back),
		    SPLITZIP_ERROR_BAD_CODEBOOK, "codebook file, bit %zu", bit);
		file[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	hu_assert_status(splitzip_codebook_deserialize(file, SPLITZIP_CODEBOOK_FILE_SIZE, &back),
	                 SPLITZIP_OK, "codebook file");
	ck_assert(memcmp(&cb, &back, sizeof cb) == 0);
}
END_TEST

Suite *sz_suite_corruption(void);
Suite *sz_suite_corruption(void)
{
	Suite *s = suite_create("corruption");
	TCase *tc = tcase_create("corruption");
	int nb = (int)splitzip_backend_count();
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, bit_flips, 0, nb);
	tcase_add_loop_test(tc, truncations, 0, nb);
	tcase_add_loop_test(tc, stream_truncations, 0, nb);
	tcase_add_test(tc, codebook_file_flips);
	suite_add_tcase(s, tc);
	return s;
}
