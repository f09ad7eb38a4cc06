/*
 * gen_vectors_pages.c -- golden page streams (doc/FORMAT.md §12, version 2): valid streams in
 * pages/valid (NNNN_name.szpg, and NNNN_name.bf16 with the pages' elements concatenated in
 * page order) and damaged ones in pages/invalid (NNNN_name.STATUS.szpg). The streams are
 * written by the library's page encoder (tests/pages checks that encoder byte for byte against
 * a construction from the text of §12.4); the vectors freeze its output, so a change of the
 * format shows up as a diff, and give independent readers (tests/vectors/spec_reader.py)
 * something to check themselves against. 0001_tiny is Appendix D of FORMAT.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_vectors.h"
#include "sz_hash.h"

static unsigned n_pg_valid, n_pg_invalid;

/* One page list: n pages, page i has cnt[i] elements starting at x + off[i]. */
typedef struct plist {
	size_t n;
	const void *p[16];
	size_t bytes[16];
} plist;

static buf pack(const plist *l, splitzip_encoding enc, unsigned log2, unsigned options,
                const splitzip_codebook *cb, const splitzip_entropy_table *t, uint32_t id)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.encoding = enc;
	p.chunk_log2 = log2;
	if (cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *cb;
	}
	if (t) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *t;
	}
	splitzip_ctx *ctx = NULL;
	if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK)
		die("page vectors", "ctx_create");
	size_t maxb = 0;
	for (size_t i = 0; i < l->n; i++)
		maxb = l->bytes[i] > maxb ? l->bytes[i] : maxb;
	buf b = buf_new(splitzip_pages_bound(l->n, maxb));
	if (splitzip_pages_compress(ctx, id, options, l->n, l->p, l->bytes, b.p, b.n, &b.n) !=
	    SPLITZIP_OK)
		die("page vectors", "pages_compress");
	splitzip_ctx_free(ctx);
	return b;
}

static void emit_pages(const char *name, buf s, const plist *l)
{
	char file[512];
	n_pg_valid++;
	snprintf(file, sizeof file, "%04u_%s.szpg", n_pg_valid, name);
	write_file("pages/valid", file, s.p, s.n);
	size_t total = 0;
	for (size_t i = 0; i < l->n; i++)
		total += l->bytes[i];
	buf d = buf_new(total);
	for (size_t i = 0, at = 0; i < l->n; at += l->bytes[i], i++) {
		const uint16_t *x = (const uint16_t *)l->p[i];
		for (size_t k = 0; k < l->bytes[i] / 2; k++)
			splitzip_put_u8s(d.p + at + 2 * k, x[k], 2);
	}
	snprintf(file, sizeof file, "%04u_%s.bf16", n_pg_valid, name);
	write_file("pages/valid", file, d.p, d.n);
	free(d.p);
}

static void bad(const char *name, splitzip_status st, buf b)
{
	char file[512];
	n_pg_invalid++;
	snprintf(file, sizeof file, "%04u_%s.%s.szpg", n_pg_invalid, name,
	         splitzip_status_name(st));
	write_file("pages/invalid", file, b.p, b.n);
	free(b.p);
}

/* After an edit of the header or page table: Table_Checksum (over the table as far as the
 * stream reaches) and Header_Checksum again. */
static void reseal(buf b)
{
	uint64_t m = 4 * get_le(b, 8, 4); /* clamped to the bytes there are */
	if (m > b.n - 64)
		m = (b.n - 64) / 4 * 4;
	set_le(b, 48, (uint32_t)splitzip_hash_bytes_small(b.p + 64, m), 4);
	set_le(b, 60, (uint32_t)splitzip_hash_bytes_small(b.p, 60), 4);
}

static buf edited(buf s, unsigned off, uint64_t v, unsigned n_bytes, int seal)
{
	buf b = buf_copy(s);
	set_le(b, off, v, n_bytes);
	if (seal)
		reseal(b);
	return b;
}

/* The invalid streams, from the tiny one: one rule of §12.5 broken in each. */
static void gen_invalid(buf t)
{
	const uint64_t frames = get_le(t, 24, 8), F0 = 128, fend = F0 + frames;
	if (fend % 64 == 0 || get_le(t, 32, 8) != t.n)
		die("page vectors", "the tiny stream has no raw padding");
	bad("empty_input", SPLITZIP_ERROR_TRUNCATED, buf_new(0));
	bad("magic_prefix", SPLITZIP_ERROR_TRUNCATED, buf_prefix(t, 3));
	bad("not_a_stream", SPLITZIP_ERROR_BAD_MAGIC, edited(t, 0, 0x47505A54, 4, 0));
	bad("version_0", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 4, 0, 1, 0));
	bad("version_1", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, edited(t, 4, 1, 1, 0));
	/* Sealed, with Dtype 0 at byte 52: unsupported both to a reader of BF16 pages only
	 * (version 3, step 2) and to one of every dtype (Dtype 0, step 4). */
	bad("version_3", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, edited(t, 4, 3, 1, 1));
	bad("header_checksum", SPLITZIP_ERROR_HEADER_CHECKSUM, with_xor(t, 60, 0x01));
	bad("encoding_3", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, edited(t, 6, 3, 1, 1));
	bad("reserved_flag", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 5, 0x05, 1, 1));
	bad("reserved_byte", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 59, 1, 1, 1));
	bad("chunk_log2_17", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 7, 17, 1, 1));
	bad("table_id_without_fixed_table", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 12, 9, 4, 1));
	bad("raw_checksum_without_flag", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 5, 0, 1, 1));
	bad("frames_size_not_16", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 24, frames + 8, 8, 1));
	bad("page_count_huge", SPLITZIP_ERROR_CORRUPT_STREAM, edited(t, 8, 0xFFFFFFFFu, 4, 1));
	bad("truncated", SPLITZIP_ERROR_TRUNCATED, buf_prefix(t, t.n - 1));
	bad("table_checksum", SPLITZIP_ERROR_HEADER_CHECKSUM, with_xor(t, 64, 0x01));
	bad("total_elems", SPLITZIP_ERROR_CORRUPT_STREAM,
	    edited(t, 16, get_le(t, 16, 8) + 1, 8, 1));
	bad("raw_bit_of_a_coded_page", SPLITZIP_ERROR_CORRUPT_STREAM,
	    edited(t, 64 + 3, get_le(t, 64 + 3, 1) | 0x80, 1, 1));
	bad("table_padding", SPLITZIP_ERROR_CORRUPT_STREAM, with_xor(t, 80, 0x01));
	bad("raw_padding", SPLITZIP_ERROR_CORRUPT_STREAM, with_xor(t, fend, 0x01));
	bad("frame_magic", SPLITZIP_ERROR_CORRUPT_STREAM, with_xor(t, F0, 0x01));
	bad("frame_header_checksum", SPLITZIP_ERROR_HEADER_CHECKSUM, with_xor(t, F0 + 60, 0x01));
	buf b = buf_copy(t); /* a frame without its checksum in a stream with checksums */
	set_le(b, F0 + 8, 0, 1);
	set_le(b, F0 + 48, 0, 8);
	fix_hcs(b, F0);
	bad("frame_without_checksum", SPLITZIP_ERROR_CORRUPT_STREAM, b);
	bad("frame_sign_mantissa", SPLITZIP_ERROR_CONTENT_CHECKSUM,
	    with_xor(t, F0 + 64 + 64 + 3, 0x01));
	bad("raw_page_byte", SPLITZIP_ERROR_CONTENT_CHECKSUM, with_xor(t, t.n - 1, 0x01));
}

/* The pages of Appendix D: two coded pages of 64 elements over the window 116-131, a raw page
 * of 8 elements whose exponents are all outside it, and an empty page. */
static void tiny_pages(uint16_t *x, plist *l)
{
	for (unsigned i = 0; i < 128; i++)
		x[i] = bf16(i % 4 == 3, 116 + i % 16, i % 128);
	static const unsigned far[8] = {0, 255, 1, 254, 60, 200, 90, 170};
	for (unsigned i = 0; i < 8; i++)
		x[128 + i] = bf16(i & 1, far[i], 0x55);
	l->n = 4;
	l->p[0] = x;
	l->bytes[0] = 128;
	l->p[1] = x + 128;
	l->bytes[1] = 16;
	l->p[2] = x;
	l->bytes[2] = 0;
	l->p[3] = x + 64;
	l->bytes[3] = 128;
}

/* n pages of 'bytes' each cut from kv starting at element 'at'. */
static void kv_pages(const uint16_t *kv, size_t at, size_t n, size_t bytes, plist *l)
{
	l->n = n;
	for (size_t i = 0; i < n; i++) {
		l->p[i] = kv + at + i * bytes / 2;
		l->bytes[i] = bytes;
	}
}

void gen_pages_vectors(const uint16_t *kv, size_t kv_n)
{
	make_dir("pages");
	make_dir("pages/valid");
	make_dir("pages/invalid");
	uint16_t *x = (uint16_t *)xcalloc(2 * 4096);
	plist l;
	tiny_pages(x, &l);
	buf t = pack(&l, SPLITZIP_ENCODING_SPLIT4, 10, 0, NULL, NULL, 0);
	emit_pages("tiny", t, &l);

	if (kv_n < 32768)
		die("page vectors", "KV sample too short");
	kv_pages(kv, 0, 6, 1152, &l); /* MLA-sized pages; page 4 random: raw */
	uint16_t rnd[576];
	uint64_t seed = 99;
	for (size_t i = 0; i < 576; i++)
		rnd[i] = (uint16_t)rng_next(&seed);
	l.p[4] = rnd;
	buf s = pack(&l, SPLITZIP_ENCODING_ENTROPY, 10, 0, NULL, NULL, 0);
	emit_pages("kv_entropy", s, &l);
	free(s.p);

	splitzip_codebook cb;
	splitzip_entropy_table tab;
	if (splitzip_calibrate(kv + 16384, 8192, &cb) != SPLITZIP_OK ||
	    splitzip_entropy_calibrate(kv + 16384, 8192, &tab) != SPLITZIP_OK)
		die("page vectors", "calibrate");
	kv_pages(kv, 4096, 4, 2048, &l);
	s = pack(&l, SPLITZIP_ENCODING_AUTO, 12, 0, &cb, &tab, 0xC0DEu);
	emit_pages("kv_auto_fixed_tables", s, &l);
	free(s.p);

	kv_pages(kv, 9000, 3, 4096, &l);
	s = pack(&l, SPLITZIP_ENCODING_SPLIT4, 12, SPLITZIP_PAGES_NO_CHECKSUM, NULL, NULL, 0);
	emit_pages("kv_no_checksum", s, &l);
	free(s.p);

	l.n = 0;
	s = pack(&l, SPLITZIP_ENCODING_SPLIT4, 12, 0, NULL, NULL, 0);
	emit_pages("no_pages", s, &l);
	free(s.p);

	l.n = 3;
	for (size_t i = 0; i < 3; i++) {
		l.p[i] = x;
		l.bytes[i] = 0;
	}
	s = pack(&l, SPLITZIP_ENCODING_ENTROPY, 14, 0, NULL, NULL, 0);
	emit_pages("empty_pages", s, &l);
	free(s.p);

	l.n = 2;
	l.p[0] = rnd;
	l.bytes[0] = 1152;
	l.p[1] = rnd + 100;
	l.bytes[1] = 200;
	s = pack(&l, SPLITZIP_ENCODING_AUTO, 14, 0, NULL, NULL, 0);
	emit_pages("all_raw", s, &l);
	free(s.p);

	gen_invalid(t);
	free(t.p);
	free(x);
	printf("gen_vectors: %u valid, %u invalid page streams\n", n_pg_valid, n_pg_invalid);
}
