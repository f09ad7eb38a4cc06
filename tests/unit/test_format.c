/*
 * test_format.c -- the frame format: frame info fields, truncation and bit flips (and the
 * specific status of each header check), the two forms of the chunk hash, layout invariants.
 */
#include "sz_check.h"
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"
#include "unit.h"
/* Header field offsets, the header checksum and the split4 layout; the word-wise chunk hash. */
#include "../../core/sz_layout.h"
#include "../../core/sz_kernels.h"

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
	ck_assert_int_eq(splitzip_decompress(ctx, b.p, b.n, back, n, &got),
	                 SPLITZIP_ERROR_BAD_MAGIC);
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

/* ---- checksum, layout -------------------------------------------------------------------------
 */

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

Suite *unit_suite_format(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("format");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, frame_info_fields);
	tcase_add_test(tc, truncation_and_bitflips_give_errors);
	tcase_add_test(tc, hash_word_and_byte_forms_agree);
	tcase_add_test(tc, layout_invariants);
	suite_add_tcase(s, tc);
	return s;
}
