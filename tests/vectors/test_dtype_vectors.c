/*
 * test_dtype_vectors.c -- the golden vectors of the dtypes of FORMAT.md 1.3
 * (tests/vectors/dtypes, written by dtype_ref.py from the text alone) against the library,
 * through the public API, with every host backend.
 *
 *   test_dtype_vectors VECTORS_DIR
 *
 * dtypes/valid/NNNN_name.sz decodes to NNNN_name.e4m3 / .e5m2 / .f16 / .f32 (bytes), verify
 * agrees, one element less of room is DST_TOO_SMALL; every frame re-encodes to the same bytes
 * with its codebook or table as a fixed one and, unless the name says "fixed", from the input
 * with the encoding its name says (FORMAT.md §6.5). dtypes/invalid/NNNN_name.STATUS.sz fails
 * with STATUS, and frame information, decompressed size and verify agree with it.
 *
 * The page streams of version 3 (FORMAT.md §12) in dtypes/pages likewise: valid/NNNN_name.szpg
 * decodes on every host backend into pages of its table's sizes (at odd addresses for the
 * 1-byte dtypes) whose concatenation is NNNN_name.DTYPE, every page written; the pages
 * re-encode on every host backend into the same stream with the parameters its header records
 * (and its name's encoding: auto), with the first frame's table as the fixed one when the
 * header says so; one byte less of room for a page is DST_TOO_SMALL. invalid/NNNN_name.STATUS
 * .szpg fails with STATUS before or while decoding, as its name says.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "vec_files.h"

static char dtype_dir[4096]; /* VECTORS_DIR/dtypes */
static char **valid_names, **invalid_names, **pg_valid_names, **pg_invalid_names;
static size_t n_valid, n_invalid, n_pg_valid, n_pg_invalid;

typedef sz_blob blob;

static int read_blob(const char *sub, const char *name, const char *ext, blob *b)
{
	return sz_vec_read(dtype_dir, sub, name, ext, b);
}

/* The raw elements of a valid vector in dtype_dir/sub and their dtype, from the extension
 * that exists. */
static unsigned read_raw_in(const char *sub, const char *name, blob *raw)
{
	static const char *const ext[4] = {".e4m3", ".e5m2", ".f16", ".f32"};
	for (unsigned k = 0; k < 4; k++)
		if (read_blob(sub, name, ext[k], raw))
			return SPLITZIP_DTYPE_FP8_E4M3 + k;
	return 0;
}

static unsigned read_raw(const char *name, blob *raw)
{
	return read_raw_in("valid", name, raw);
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

START_TEST(inventory)
{
	ck_assert_uint_ge(n_valid, 50);
	ck_assert_uint_ge(n_invalid, 40);
	unsigned seen[6] = {0};
	for (size_t i = 0; i < n_valid; i++) {
		blob raw;
		const unsigned dt = read_raw(valid_names[i], &raw);
		ck_assert_msg(dt != 0, "%s.sz has no elements file", valid_names[i]);
		ck_assert_uint_eq(raw.n % splitzip_dtype_width(dt), 0);
		seen[dt]++;
		free(raw.p);
	}
	for (unsigned dt = 2; dt <= 5; dt++)
		ck_assert_msg(seen[dt] >= 10, "dtype %u: %u vectors", dt, seen[dt]);
	for (size_t i = 0; i < n_invalid; i++)
		ck_assert_msg(sz_vec_expected_status(invalid_names[i]) > 0, "%s: no status",
		              invalid_names[i]);
}
END_TEST

START_TEST(valid_decodes)
{
	const char *name = valid_names[_i];
	blob sz, raw;
	ck_assert(read_blob("valid", name, ".sz", &sz));
	const unsigned dt = read_raw(name, &raw);
	const size_t w = splitzip_dtype_width(dt), n = raw.n / w;
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(sz.p, sz.n, &fi), SPLITZIP_OK);
	ck_assert_uint_eq(fi.dtype, dt);
	uint64_t total = 0;
	ck_assert_int_eq(splitzip_decompressed_size(sz.p, sz.n, &total), SPLITZIP_OK);
	ck_assert_uint_eq(total, n);
	uint8_t *out = (uint8_t *)malloc(raw.n + 8);
	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) {
		const char *be = splitzip_ctx_backend_name(ctxs[c]);
		size_t got = 0;
		memset(out, 0xA5, raw.n + 8);
		splitzip_status st =
		    splitzip_decompress_dtype(ctxs[c], sz.p, sz.n, out, raw.n, &got);
		ck_assert_msg(st == SPLITZIP_OK, "%s [%s]: %s", name, be, splitzip_status_name(st));
		ck_assert_uint_eq(got, n);
		ck_assert_msg(memcmp(out, raw.p, raw.n) == 0, "%s [%s]: elements differ", name, be);
		ck_assert_msg(out[raw.n] == 0xA5, "%s [%s]: wrote past the end", name, be);
		if (n > 0)
			ck_assert_int_eq(
			    splitzip_decompress_dtype(ctxs[c], sz.p, sz.n, out, raw.n - w, &got),
			    SPLITZIP_ERROR_DST_TOO_SMALL);
		/* the BF16 call refuses the other dtypes */
		ck_assert_int_eq(splitzip_decompress(ctxs[c], sz.p, sz.n, (uint16_t *)(void *)out,
		                                     raw.n / 2, &got),
		                 SPLITZIP_ERROR_UNSUPPORTED_FORMAT);
		uint64_t vn = 0;
		ck_assert_int_eq(splitzip_verify(ctxs[c], sz.p, sz.n, &vn), SPLITZIP_OK);
		ck_assert_uint_eq(vn, n);
	}
	close_contexts();
	free(out);
	free(sz.p);
	free(raw.p);
}
END_TEST

/* Encode n elements of dtype dt with these parameters on the given backend. */
static uint8_t *encode(splitzip_backend_id be, unsigned dt, const uint8_t *src, size_t n,
                       const splitzip_frame_info *fi, splitzip_encoding enc,
                       const splitzip_codebook *cb, const splitzip_entropy_table *t, size_t *size)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = be;
	p.chunk_log2 = fi->chunk_log2;
	p.flags = fi->flags;
	p.encoding = enc;
	if (cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *cb;
	}
	if (t) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *t;
	}
	splitzip_ctx *ctx;
	if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK) /* a device backend */
		return NULL;
	const size_t cap = splitzip_compress_bound_dtype(dt, n);
	uint8_t *dst = (uint8_t *)malloc(cap);
	ck_assert_int_eq(splitzip_compress_dtype(ctx, dt, src, n, dst, cap, size), SPLITZIP_OK);
	splitzip_ctx_free(ctx);
	return dst;
}

static splitzip_encoding encoding_of(const char *name, const splitzip_frame_info *fi)
{
	if (fi->mode == SPLITZIP_MODE_SPLIT4)
		return SPLITZIP_ENCODING_SPLIT4;
	if (strstr(name, "_stream_"))
		return SPLITZIP_ENCODING_ENTROPY;
	return strstr(name, "_auto_")     ? SPLITZIP_ENCODING_AUTO
	       : strstr(name, "_split4_") ? SPLITZIP_ENCODING_SPLIT4
	                                  : SPLITZIP_ENCODING_ENTROPY;
}

/* One frame of a valid vector, re-encoded on every host backend. */
static void reencode_frame(const char *name, unsigned dt, const uint8_t *fr,
                           const splitzip_frame_info *fi, const uint8_t *src)
{
	splitzip_entropy_table t;
	const int entropy = fi->mode == SPLITZIP_MODE_ENTROPY;
	if (entropy)
		ck_assert_int_eq(splitzip_frame_entropy_table(fr, (size_t)fi->frame_size, &t),
		                 SPLITZIP_OK);
	for (size_t i = 0; i < splitzip_backend_count(); i++) {
		if (!splitzip_backend_available(i))
			continue;
		size_t size = 0;
		const splitzip_backend_id be = splitzip_backend_id_of(i);
		uint8_t *f = encode(be, dt, src, (size_t)fi->n_elems, fi, encoding_of(name, fi),
		                    fi->mode == SPLITZIP_MODE_SPLIT4 ? &fi->codebook : NULL,
		                    entropy ? &t : NULL, &size);
		if (!f)
			continue;
		ck_assert_msg(size == fi->frame_size && memcmp(f, fr, size) == 0,
		              "%s [%s]: re-encoded with its own codebook or table differently",
		              name, splitzip_backend_name(i));
		free(f);
		if (strstr(name, "fixed"))
			continue;
		f = encode(be, dt, src, (size_t)fi->n_elems, fi, encoding_of(name, fi), NULL, NULL,
		           &size);
		ck_assert_msg(size == fi->frame_size && memcmp(f, fr, size) == 0,
		              "%s [%s]: re-encoded from the input differently", name,
		              splitzip_backend_name(i));
		free(f);
	}
}

START_TEST(valid_reencodes)
{
	const char *name = valid_names[_i];
	blob sz, raw;
	ck_assert(read_blob("valid", name, ".sz", &sz));
	const unsigned dt = read_raw(name, &raw);
	const size_t w = splitzip_dtype_width(dt);
	size_t off = 0, elem = 0;
	do {
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(sz.p + off, sz.n - off, &fi), SPLITZIP_OK);
		ck_assert_uint_le(elem + fi.n_elems, raw.n / w);
		reencode_frame(name, dt, sz.p + off, &fi, raw.p + elem * w);
		off += (size_t)fi.frame_size;
		elem += (size_t)fi.n_elems;
	} while (off < sz.n);
	ck_assert_uint_eq(elem * w, raw.n);
	free(sz.p);
	free(raw.p);
}
END_TEST

START_TEST(invalid_rejected)
{
	const char *name = invalid_names[_i];
	const int expect = sz_vec_expected_status(name);
	blob sz;
	ck_assert(read_blob("invalid", name, ".sz", &sz));
	const size_t cap = 1 << 18;
	uint8_t *out = (uint8_t *)malloc(cap * 4);
	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) {
		size_t got = 0;
		splitzip_status st =
		    splitzip_decompress_dtype(ctxs[c], sz.p, sz.n, out, cap * 4, &got);
		ck_assert_msg((int)st == expect, "%s [%s]: %s", name,
		              splitzip_ctx_backend_name(ctxs[c]), splitzip_status_name(st));
		ck_assert_int_eq(splitzip_verify(ctxs[c], sz.p, sz.n, NULL), st);
	}
	close_contexts();
	free(out);
	free(sz.p);
}
END_TEST

/* ---- Page streams of version 3 ------------------------------------------------------------- */

START_TEST(pages_inventory)
{
	ck_assert_msg(n_pg_valid >= 40, "only %zu valid page streams", n_pg_valid);
	ck_assert_msg(n_pg_invalid >= 20, "only %zu invalid page streams", n_pg_invalid);
	unsigned seen[6] = {0};
	for (size_t i = 0; i < n_pg_valid; i++) {
		blob raw;
		const unsigned dt = read_raw_in("pages/valid", pg_valid_names[i], &raw);
		ck_assert_msg(dt != 0, "%s.szpg has no elements file", pg_valid_names[i]);
		seen[dt]++;
		free(raw.p);
	}
	for (unsigned dt = 2; dt <= 5; dt++)
		ck_assert_msg(seen[dt] >= 8, "dtype %u: %u page streams", dt, seen[dt]);
	for (size_t i = 0; i < n_pg_invalid; i++)
		ck_assert_msg(sz_vec_expected_status(pg_invalid_names[i]) > 0, "%s: no status",
		              pg_invalid_names[i]);
}
END_TEST

/* The pages d re-encoded on every host backend with the parameters the stream's header
 * records (the encoding its name says for auto), and the first frame's table as the fixed
 * one when it has Fixed_Table_Flag: the same bytes as the stream. */
static void pages_reencode(const char *name, const blob *sz, const sz_pg_dst *d)
{
	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(sz->p, sz->n, &info), SPLITZIP_OK);
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = strstr(name, "_auto_")                  ? SPLITZIP_ENCODING_AUTO
	             : info.encoding == SPLITZIP_MODE_SPLIT4 ? SPLITZIP_ENCODING_SPLIT4
	                                                     : SPLITZIP_ENCODING_ENTROPY;
	p.chunk_log2 = info.chunk_log2;
	if (info.flags & SPLITZIP_PAGES_FLAG_FIXED_TABLE) { /* the first frame carries it */
		const uint8_t *f = sz->p + ((64 + 4 * info.n_pages + 63) / 64 * 64);
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(f, 64, &fi), SPLITZIP_OK);
		if (fi.mode == SPLITZIP_MODE_SPLIT4) {
			p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
			p.codebook = fi.codebook;
		} else {
			ck_assert_uint_eq(fi.mode, SPLITZIP_MODE_ENTROPY);
			p.table_mode = SPLITZIP_CODEBOOK_FIXED;
			ck_assert_int_eq(
			    splitzip_frame_entropy_table(f, sz->n - (size_t)(f - sz->p), &p.table),
			    SPLITZIP_OK);
		}
		if (p.encoding == SPLITZIP_ENCODING_AUTO) /* both tables fixed: the other one */
			return; /* is not in the stream; the stream's own encoding is checked below
			         */
	}
	size_t maxb = 0;
	for (size_t i = 0; i < d->n; i++)
		maxb = d->sizes[i] > maxb ? d->sizes[i] : maxb;
	const size_t cap = splitzip_pages_bound_dtype(info.dtype, d->n, maxb);
	ck_assert_uint_ge(cap, sz->n);
	uint8_t *out = (uint8_t *)malloc(cap);
	const unsigned opt =
	    (info.flags & SPLITZIP_PAGES_FLAG_CHECKSUM) ? 0 : SPLITZIP_PAGES_NO_CHECKSUM;
	for (size_t i = 0; i < splitzip_backend_count(); i++) {
		if (!splitzip_backend_available(i))
			continue;
		p.backend = splitzip_backend_id_of(i);
		splitzip_ctx *ctx = NULL;
		if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK) /* a device backend */
			continue;
		size_t size = 0;
		splitzip_status st = splitzip_pages_compress_dtype(
		    ctx, info.dtype, info.table_id, opt, d->n, (const void *const *)d->p, d->sizes,
		    out, cap, &size);
		ck_assert_msg(st == SPLITZIP_OK, "%s [%s]: %s", name, splitzip_backend_name(i),
		              splitzip_status_name(st));
		ck_assert_msg(size == sz->n && memcmp(out, sz->p, size) == 0,
		              "%s [%s]: re-encoded differently", name, splitzip_backend_name(i));
		if (size > 64) /* one byte less of room than the stream needs */
			ck_assert_int_eq(
			    splitzip_pages_compress_dtype(ctx, info.dtype, info.table_id, opt, d->n,
			                                  (const void *const *)d->p, d->sizes, out,
			                                  size - 1, &size),
			    SPLITZIP_ERROR_DST_TOO_SMALL);
		splitzip_ctx_free(ctx);
	}
	free(out);
}

START_TEST(pages_valid)
{
	const char *name = pg_valid_names[_i];
	blob sz, raw;
	ck_assert(read_blob("pages/valid", name, ".szpg", &sz));
	const unsigned dt = read_raw_in("pages/valid", name, &raw);
	const size_t w = splitzip_dtype_width(dt);
	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(sz.p, sz.n, &info), SPLITZIP_OK);
	ck_assert_uint_eq(info.format_version, SPLITZIP_PAGES_FORMAT_VERSION_DTYPE);
	ck_assert_uint_eq(info.dtype, dt);
	ck_assert_uint_eq(info.total_page_bytes, raw.n);
	size_t n = 0;
	splitzip_page_entry *e = sz_vec_pages_manifest(&sz, &n);
	open_contexts();
	for (size_t c = 0; c < n_ctx; c++) {
		sz_pg_dst d = sz_vec_pages_decode_check(ctxs[c], name, &sz, e, n, &raw, w == 1);
		size_t got = 0, largest = n;
		for (size_t i = 0; i < n; i++) {
			ck_assert_uint_eq(d.sizes[i] % w, 0);
			if (d.sizes[i] && (largest == n || d.sizes[i] > d.sizes[largest]))
				largest = i;
		}
		if (c == 0)
			pages_reencode(name, &sz, &d);
		if (largest < n) { /* one element less of room for the largest page */
			d.caps[largest] -= w;
			ck_assert_int_eq(splitzip_pages_decompress(ctxs[c], sz.p, sz.n, n, d.p,
			                                           d.caps, 0, d.sizes, d.states,
			                                           &got),
			                 SPLITZIP_ERROR_DST_TOO_SMALL);
			ck_assert_int_eq(d.states[largest], SPLITZIP_PAGE_UNTOUCHED);
			d.caps[largest] += w;
		}
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
	for (size_t c = 0; c < n_ctx; c++) /* room for any page */
		sz_vec_pages_check_rejected(ctxs[c], name, &sz, 64, 1 << 16, expect);
	close_contexts();
	free(sz.p);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_dtype_vectors VECTORS_DIR\n");
		return 2;
	}
	snprintf(dtype_dir, sizeof dtype_dir, "%s/dtypes", argv[1]);
	valid_names = sz_vec_list(dtype_dir, "valid", ".sz", &n_valid);
	invalid_names = sz_vec_list(dtype_dir, "invalid", ".sz", &n_invalid);
	pg_valid_names = sz_vec_list(dtype_dir, "pages/valid", ".szpg", &n_pg_valid);
	pg_invalid_names = sz_vec_list(dtype_dir, "pages/invalid", ".szpg", &n_pg_invalid);
	Suite *s = suite_create("dtype_vectors");
	TCase *tc = tcase_create("all");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, inventory);
	tcase_add_loop_test(tc, valid_decodes, 0, (int)n_valid);
	tcase_add_loop_test(tc, valid_reencodes, 0, (int)n_valid);
	tcase_add_loop_test(tc, invalid_rejected, 0, (int)n_invalid);
	tcase_add_test(tc, pages_inventory);
	tcase_add_loop_test(tc, pages_valid, 0, (int)n_pg_valid);
	tcase_add_loop_test(tc, pages_invalid, 0, (int)n_pg_invalid);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	const int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	sz_vec_free_names(valid_names, n_valid);
	sz_vec_free_names(invalid_names, n_invalid);
	sz_vec_free_names(pg_valid_names, n_pg_valid);
	sz_vec_free_names(pg_invalid_names, n_pg_invalid);
	return failed ? 1 : 0;
}
