/*
 * test_vectors.c -- the golden vectors (tests/vectors, written by tests/gen/gen_vectors.c)
 * against the library, through the public API only, with every host backend.
 *
 *   test_vectors VECTORS_DIR
 *
 * valid/NNNN_name.sz must decode to exactly valid/NNNN_name.bf16 (compared as bytes), and
 * re-encoding that content with the parameters recorded in each frame header must give back
 * the identical frame (FORMAT.md §6: every frame a decoder accepts is canonical).
 * invalid/NNNN_name.STATUS.sz must fail with exactly STATUS (splitzip_status_name spelling).
 * The page streams of pages/ (FORMAT.md §12) likewise: pages/valid/NNNN_name.szpg decodes to
 * pages whose concatenation is NNNN_name.bf16, every page written, and re-encoding them with
 * the parameters its header records gives the identical stream; pages/invalid/
 * NNNN_name.STATUS.szpg fails with STATUS.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "vec_files.h"

static const char *vec_dir;

/* Vector base names (without ".sz" / ".szpg"), sorted. */
static char **valid_names, **invalid_names, **pg_valid_names, **pg_invalid_names;
static size_t n_valid, n_invalid, n_pg_valid, n_pg_invalid;

typedef sz_blob blob;

static int read_blob(const char *sub, const char *name, const char *ext, blob *b)
{
	return sz_vec_read(vec_dir, sub, name, ext, b);
}

#define MAX_CTX 16
static splitzip_ctx *ctxs[MAX_CTX];
static size_t n_ctx;

static void open_contexts(void)
{
	n_ctx = sz_vec_open_contexts(ctxs, MAX_CTX);
}

static void close_contexts(void)
{
	sz_vec_close_contexts(ctxs, n_ctx);
	n_ctx = 0;
}

/* ---- Inventory ---------------------------------------------------------------------------- */

START_TEST(inventory)
{
	ck_assert_msg(n_valid >= 35, "only %zu valid vectors in %s/valid", n_valid, vec_dir);
	ck_assert_msg(n_invalid >= 95, "only %zu invalid vectors in %s/invalid", n_invalid,
	              vec_dir);
	ck_assert_str_eq(valid_names[0], "0001_tiny"); /* FORMAT.md Appendix A */
	for (size_t i = 0; i < n_valid; i++) {
		blob b;
		ck_assert_msg(read_blob("valid", valid_names[i], ".bf16", &b), "%s.sz has no .bf16",
		              valid_names[i]);
		ck_assert_msg(b.n % 2 == 0, "%s.bf16: odd size", valid_names[i]);
		free(b.p);
	}
	for (size_t i = 0; i < n_invalid; i++) {
		int s = sz_vec_expected_status(invalid_names[i]);
		ck_assert_msg(s > 0, "%s: no error status in the file name", invalid_names[i]);
	}
}
END_TEST

/* ---- Valid vectors ------------------------------------------------------------------------ */

START_TEST(valid_decodes)
{
	const char *name = valid_names[_i];
	blob sz, raw;
	ck_assert(read_blob("valid", name, ".sz", &sz));
	ck_assert(read_blob("valid", name, ".bf16", &raw));
	const size_t n = raw.n / 2;
	uint16_t *out = (uint16_t *)malloc((n + 1) * 2);
	ck_assert_ptr_nonnull(out);

	uint64_t total = 0;
	ck_assert_int_eq(splitzip_decompressed_size(sz.p, sz.n, &total), SPLITZIP_OK);
	ck_assert_uint_eq(total, n);

	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) {
		const char *be = splitzip_ctx_backend_name(ctxs[c]);
		size_t got = 0;
		memset(out, 0xA5, (n + 1) * 2);
		splitzip_status st = splitzip_decompress(ctxs[c], sz.p, sz.n, out, n, &got);
		ck_assert_msg(st == SPLITZIP_OK, "%s [%s]: %s", name, be, splitzip_status_name(st));
		ck_assert_uint_eq(got, n);
		ck_assert_msg(memcmp(out, raw.p, raw.n) == 0, "%s [%s]: decoded data differ", name,
		              be);
		ck_assert_msg(((uint8_t *)out)[2 * n] == 0xA5, "%s [%s]: wrote past the end", name,
		              be);
		if (n > 0) {
			st = splitzip_decompress(ctxs[c], sz.p, sz.n, out, n - 1, &got);
			ck_assert_msg(st == SPLITZIP_ERROR_DST_TOO_SMALL,
			              "%s [%s]: cap n-1 gave %s", name, be,
			              splitzip_status_name(st));
		}
		uint64_t vn = 0;
		st = splitzip_verify(ctxs[c], sz.p, sz.n, &vn);
		ck_assert_msg(st == SPLITZIP_OK, "%s [%s]: verify %s", name, be,
		              splitzip_status_name(st));
		ck_assert_uint_eq(vn, n);
	}
	close_contexts();
	free(out);
	free(sz.p);
	free(raw.p);
}
END_TEST

/* Compress src with the given parameters on the scalar oracle; returns a malloc'ed frame. */
static uint8_t *encode(const uint16_t *src, size_t n, unsigned log2, unsigned flags,
                       splitzip_encoding enc, const splitzip_codebook *fixed,
                       const splitzip_entropy_table *table, size_t *size)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.chunk_log2 = log2;
	p.flags = flags;
	p.encoding = enc;
	if (fixed) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *fixed;
	}
	if (table) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *table;
	}
	splitzip_ctx *ctx;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	size_t cap = splitzip_compress_bound(n);
	uint8_t *dst = (uint8_t *)malloc(cap);
	ck_assert_ptr_nonnull(dst);
	ck_assert_int_eq(splitzip_compress(ctx, src, n, dst, cap, size), SPLITZIP_OK);
	splitzip_ctx_free(ctx);
	return dst;
}

/* Re-encode one frame: with its own codebook or table as fixed ones, and from the input. */
static void reencode_frame(const char *name, size_t frame, const uint8_t *fr,
                           const splitzip_frame_info *info, const uint16_t *data, int from_input)
{
	const size_t n = (size_t)info->n_elems;
	const int entropy = info->mode == SPLITZIP_MODE_ENTROPY;
	const splitzip_encoding enc =
	    entropy ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4;
	splitzip_entropy_table t;
	if (entropy)
		ck_assert_int_eq(splitzip_frame_entropy_table(fr, (size_t)info->frame_size, &t),
		                 SPLITZIP_OK);
	size_t fsize = 0;
	uint8_t *f = encode(data, n, info->chunk_log2, info->flags, enc,
	                    info->mode == SPLITZIP_MODE_SPLIT4 ? &info->codebook : NULL,
	                    entropy ? &t : NULL, &fsize);
	ck_assert_msg(fsize == info->frame_size && memcmp(f, fr, fsize) == 0,
	              "%s frame %zu: re-encoding (header codebook or frame table) differs", name,
	              frame);
	free(f);
	if (!from_input)
		return;
	f = encode(data, n, info->chunk_log2, info->flags, enc, NULL, NULL, &fsize);
	ck_assert_msg(fsize == info->frame_size && memcmp(f, fr, fsize) == 0,
	              "%s frame %zu: re-encoding (codebook or table from input) differs", name,
	              frame);
	free(f);
}

/*
 * Re-encode each frame of a valid vector: with the header's codebook (split4) or the frame's
 * entropy table (entropy) as a fixed one, or, for a stored frame, the codebook from the input,
 * it must come out byte-identical (FORMAT.md §6.5). Vectors without "fixed" in the name were
 * encoded from the input, so that must reproduce them too.
 */
START_TEST(valid_reencodes)
{
	const char *name = valid_names[_i];
	blob sz, raw;
	ck_assert(read_blob("valid", name, ".sz", &sz));
	ck_assert(read_blob("valid", name, ".bf16", &raw));
	const int from_input_too = strstr(name, "fixed") == NULL;
	const uint16_t *data = (const uint16_t *)(void *)raw.p; /* little-endian host */
	size_t off = 0, elem = 0, frames = 0;
	do {
		splitzip_frame_info info;
		ck_assert_int_eq(splitzip_get_frame_info(sz.p + off, sz.n - off, &info),
		                 SPLITZIP_OK);
		ck_assert_uint_le(info.frame_size, sz.n - off);
		ck_assert_uint_le(elem + info.n_elems, raw.n / 2);
		reencode_frame(name, frames, sz.p + off, &info, data + elem, from_input_too);
		off += (size_t)info.frame_size;
		elem += (size_t)info.n_elems;
		frames++;
	} while (off < sz.n);
	ck_assert_uint_eq(elem, raw.n / 2);
	free(sz.p);
	free(raw.p);
}
END_TEST

/* ---- Invalid vectors ---------------------------------------------------------------------- */

START_TEST(invalid_rejected)
{
	const char *name = invalid_names[_i];
	const int expect = sz_vec_expected_status(name);
	ck_assert_msg(expect > 0, "%s: no error status in the file name", name);
	blob sz;
	ck_assert(read_blob("invalid", name, ".sz", &sz));
	/* Room for any frame the input could hold (a valid frame has at most one element per
	 * byte), so the buffer size never decides the status. */
	const size_t cap = sz.n + 1;
	uint16_t *out = (uint16_t *)malloc(cap * 2);
	ck_assert_ptr_nonnull(out);
	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) {
		const char *be = splitzip_ctx_backend_name(ctxs[c]);
		size_t got = 0;
		splitzip_status st = splitzip_decompress(ctxs[c], sz.p, sz.n, out, cap, &got);
		ck_assert_msg((int)st == expect, "%s [%s]: decompress gave %s", name, be,
		              splitzip_status_name(st));
		uint64_t vn = 0;
		st = splitzip_verify(ctxs[c], sz.p, sz.n, &vn);
		ck_assert_msg((int)st == expect, "%s [%s]: verify gave %s", name, be,
		              splitzip_status_name(st));
	}
	close_contexts();
	free(out);
	free(sz.p);
}
END_TEST

/* ---- Page streams -------------------------------------------------------------------------- */

START_TEST(pages_inventory)
{
	ck_assert_msg(n_pg_valid >= 7, "only %zu valid page streams", n_pg_valid);
	ck_assert_msg(n_pg_invalid >= 25, "only %zu invalid page streams", n_pg_invalid);
	ck_assert_str_eq(pg_valid_names[0], "0001_tiny"); /* FORMAT.md Appendix D */
	for (size_t i = 0; i < n_pg_invalid; i++)
		ck_assert_msg(sz_vec_expected_status(pg_invalid_names[i]) > 0, "%s: no status",
		              pg_invalid_names[i]);
}
END_TEST

/* The stream of the decoded pages, encoded again with the parameters its header records:
 * encoding, chunk size, checksums, and a fixed table (the frames' own) with its id. */
static void pages_reencode(const char *name, const blob *sz, const sz_pg_dst *d)
{
	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(sz->p, sz->n, &info), SPLITZIP_OK);
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.encoding = info.encoding == SPLITZIP_MODE_SPLIT4 ? SPLITZIP_ENCODING_SPLIT4
	                                                   : SPLITZIP_ENCODING_ENTROPY;
	p.chunk_log2 = info.chunk_log2;
	if (info.flags & SPLITZIP_PAGES_FLAG_FIXED_TABLE) { /* the first frame carries it */
		const uint8_t *f = sz->p + ((64 + 4 * info.n_pages + 63) / 64 * 64);
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(f, 64, &fi), SPLITZIP_OK);
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = fi.codebook;
		if (fi.mode == SPLITZIP_MODE_ENTROPY) {
			p.codebook_mode = SPLITZIP_CODEBOOK_FROM_INPUT;
			p.table_mode = SPLITZIP_CODEBOOK_FIXED;
			ck_assert_int_eq(splitzip_frame_entropy_table(f, sz->n, &p.table),
			                 SPLITZIP_OK);
		}
	}
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	size_t maxb = 0;
	for (size_t i = 0; i < d->n; i++)
		maxb = d->sizes[i] > maxb ? d->sizes[i] : maxb;
	const size_t cap = splitzip_pages_bound(d->n, maxb);
	uint8_t *out = (uint8_t *)malloc(cap);
	size_t size = 0;
	const unsigned opt =
	    (info.flags & SPLITZIP_PAGES_FLAG_CHECKSUM) ? 0 : SPLITZIP_PAGES_NO_CHECKSUM;
	ck_assert_int_eq(splitzip_pages_compress(ctx, info.table_id, opt, d->n,
	                                         (const void *const *)d->p, d->sizes, out, cap,
	                                         &size),
	                 SPLITZIP_OK);
	ck_assert_msg(size == sz->n && memcmp(out, sz->p, size) == 0, "%s: re-encoded differently",
	              name);
	free(out);
	splitzip_ctx_free(ctx);
}

START_TEST(pages_valid)
{
	const char *name = pg_valid_names[_i];
	blob sz, raw;
	ck_assert(read_blob("pages/valid", name, ".szpg", &sz));
	ck_assert_msg(read_blob("pages/valid", name, ".bf16", &raw), "%s has no .bf16", name);
	size_t n = 0;
	splitzip_page_entry *e = sz_vec_pages_manifest(&sz, &n);
	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) {
		sz_pg_dst d = sz_vec_pages_decode_check(ctxs[c], name, &sz, e, n, &raw, 0);
		if (c == 0)
			pages_reencode(name, &sz, &d);
		sz_vec_pages_free(&d);
	}
	close_contexts();
	free(e);
	free(sz.p);
	free(raw.p);
}
END_TEST

START_TEST(pages_invalid)
{
	const char *name = pg_invalid_names[_i];
	const int expect = sz_vec_expected_status(name);
	blob sz;
	ck_assert(read_blob("pages/invalid", name, ".szpg", &sz));
	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) /* room for any page of the tiny stream */
		sz_vec_pages_check_rejected(ctxs[c], name, &sz, 16, 4096, expect);
	close_contexts();
	free(sz.p);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_vectors VECTORS_DIR\n");
		return 2;
	}
	vec_dir = argv[1];
	valid_names = sz_vec_list(vec_dir, "valid", ".sz", &n_valid);
	invalid_names = sz_vec_list(vec_dir, "invalid", ".sz", &n_invalid);
	pg_valid_names = sz_vec_list(vec_dir, "pages/valid", ".szpg", &n_pg_valid);
	pg_invalid_names = sz_vec_list(vec_dir, "pages/invalid", ".szpg", &n_pg_invalid);

	Suite *s = suite_create("vectors");
	TCase *tc = tcase_create("inventory");
	tcase_add_test(tc, inventory);
	suite_add_tcase(s, tc);
	tc = tcase_create("valid");
	tcase_add_loop_test(tc, valid_decodes, 0, (int)n_valid);
	tcase_add_loop_test(tc, valid_reencodes, 0, (int)n_valid);
	suite_add_tcase(s, tc);
	tc = tcase_create("invalid");
	tcase_add_loop_test(tc, invalid_rejected, 0, (int)n_invalid);
	suite_add_tcase(s, tc);
	tc = tcase_create("pages");
	tcase_add_test(tc, pages_inventory);
	tcase_add_loop_test(tc, pages_valid, 0, (int)n_pg_valid);
	tcase_add_loop_test(tc, pages_invalid, 0, (int)n_pg_invalid);
	suite_add_tcase(s, tc);

	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	sz_vec_free_names(valid_names, n_valid);
	sz_vec_free_names(invalid_names, n_invalid);
	sz_vec_free_names(pg_valid_names, n_pg_valid);
	sz_vec_free_names(pg_invalid_names, n_pg_invalid);
	return failed ? 1 : 0;
}
