/*
 * test_pages.c -- the page stream API (splitzip.h "KV pages", doc/FORMAT.md §12, version 2) on
 * the host. Every stream is compared byte for byte with one built here from the text of §12.4
 * and the public frame API alone (the oracle below: the table of all pages' histogram, each
 * page's raw bit from its own, the frames splitzip_compress() writes over the coded pages with
 * that table, the raw pages, the header), in every encoding, with and without checksums and
 * fixed tables, on real KV pages and generated pages of every kind and size; then round trips,
 * the ratio against one frame over the same bytes, the same bytes from every host backend and
 * thread count, capacities, arguments, destinations and page states, and a receiver fed
 * hostile streams: each damage gets its status from the spec, and random damage never makes
 * it read or write outside its buffers (destination pages sit flush against guard pages) nor
 * report a page untouched that it changed. Runs on SPLITZIP_BACKEND_AUTO, so ci/run_tests.sh
 * reruns it per backend (SPLITZIP_FORCE_BACKEND).
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages_util.h"
#include "splitzip.h"
#include "sz_guard.h"

/* ---- Contexts and helpers ------------------------------------------------------------------ */

typedef struct opts {
	splitzip_encoding enc;
	unsigned log2;                     /* 0: the default of the encoding */
	int no_checksum;                   /* SPLITZIP_PAGES_NO_CHECKSUM */
	const splitzip_codebook *cb;       /* fixed codebook, or NULL */
	const splitzip_entropy_table *tab; /* fixed table, or NULL */
	uint32_t id;
	splitzip_backend_id backend;
	unsigned threads;
} opts;

static splitzip_ctx *ctx_of(const opts *o)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = o->backend;
	p.encoding = o->enc;
	p.chunk_log2 = o->log2;
	p.n_threads = o->threads;
	if (o->cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *o->cb;
	}
	if (o->tab) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *o->tab;
	}
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	return ctx;
}

static unsigned eff_log2(const opts *o)
{
	return o->log2                              ? o->log2
	       : o->enc == SPLITZIP_ENCODING_SPLIT4 ? SPLITZIP_CHUNK_LOG2_DEFAULT
	                                            : SPLITZIP_CHUNK_LOG2_DEFAULT_ENTROPY;
}

static size_t max_bytes(const pu_pages *l)
{
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++)
		m = l->bytes[i] > m ? l->bytes[i] : m;
	return m;
}

/* The stream of 'l' in an exact-size malloc'ed buffer. */
static uint8_t *pack(splitzip_ctx *ctx, const pu_pages *l, const opts *o, size_t *size)
{
	const size_t cap = splitzip_pages_bound(l->n, max_bytes(l));
	ck_assert_uint_gt(cap, 0);
	uint8_t *s = malloc(cap);
	ck_assert_int_eq(
	    splitzip_pages_compress(ctx, o->id, o->no_checksum ? SPLITZIP_PAGES_NO_CHECKSUM : 0,
	                            l->n, (const void *const *)l->p, l->bytes, s, cap, size),
	    SPLITZIP_OK);
	ck_assert_uint_le(*size, cap);
	uint8_t *exact = malloc(*size ? *size : 1);
	memcpy(exact, s, *size);
	free(s);
	return exact;
}

/* ---- The oracle: a stream from the text of FORMAT.md §12.4 and the frame API --------------- */

/* The raw bit of a page with histogram h (n elements) under a codebook or a table. */
static int oracle_raw(const uint64_t h[256], uint64_t n, const splitzip_codebook *cb,
                      const splitzip_entropy_table *t)
{
	if (cb) {
		uint64_t covered = 0;
		for (int k = 0; k < 16; k++)
			covered += h[cb->exponents[k]];
		return 6 * (n - covered) >= n;
	}
	uint64_t bits = 8 * n;
	for (int e = 0; e < 256; e++)
		bits += h[e] * (t->lengths[e] ? t->lengths[e] : t->escape_length + 8u);
	return bits >= 16 * n;
}

/* The candidate stream of one mode (entropy or split4) of FORMAT.md §12.4, built by hand. */
static uint8_t *oracle_mode(const pu_pages *l, const opts *o, int entropy, size_t *size)
{
	uint64_t all[256] = {0}, total = 0;
	for (size_t i = 0; i < l->n; i++) {
		ck_assert_int_eq(
		    splitzip_histogram((const uint16_t *)l->p[i], l->bytes[i] / 2, all),
		    SPLITZIP_OK);
		total += l->bytes[i] / 2;
	}
	splitzip_codebook cb;
	splitzip_entropy_table tab;
	memset(&tab, 0, sizeof tab);
	if (o->cb)
		cb = *o->cb;
	else
		ck_assert_int_eq(splitzip_codebook_from_histogram(all, &cb), SPLITZIP_OK);
	if (o->tab)
		tab = *o->tab;
	else if (total)
		ck_assert_int_eq(splitzip_entropy_table_from_histogram(all, &tab), SPLITZIP_OK);
	/* Raw bits, the coded elements X and the raw bytes R, in page order. */
	uint8_t *rawbit = calloc(l->n + 1, 1);
	uint16_t *X = malloc(2 * total + 2);
	uint8_t *R = malloc(2 * total + 2);
	uint64_t nx = 0, nr = 0;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t h[256] = {0};
		const uint64_t n = l->bytes[i] / 2;
		splitzip_histogram((const uint16_t *)l->p[i], n, h);
		rawbit[i] = (uint8_t)oracle_raw(h, n, entropy ? NULL : &cb, &tab);
		if (rawbit[i]) {
			memcpy(R + nr, l->p[i], 2 * n);
			nr += 2 * n;
		} else {
			memcpy(X + nx, l->p[i], 2 * n);
			nx += n;
		}
	}
	/* The frames: of 2^24 elements, with the table fixed, the checksum as the stream's. */
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = entropy ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4;
	p.chunk_log2 = eff_log2(o);
	p.flags = o->no_checksum ? 0 : SPLITZIP_FLAG_CONTENT_CHECKSUM;
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
	p.codebook = cb;
	if (entropy && total) { /* no elements: no frames */
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = tab;
	}
	splitzip_ctx *fc = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &fc), SPLITZIP_OK);
	const uint64_t n = l->n, foff = pu_align64(64 + 4 * n);
	const size_t cap = foff + 2 * total + 80 * (nx / (1u << 24) + 1) + 128;
	uint8_t *s = calloc(cap, 1);
	uint64_t off = foff;
	for (uint64_t j = 0; j * (1u << 24) < nx; j++) {
		const uint64_t m =
		    nx - j * (1u << 24) < (1u << 24) ? nx - j * (1u << 24) : 1u << 24;
		size_t fs = 0;
		ck_assert_int_eq(
		    splitzip_compress(fc, X + j * (1u << 24), m, s + off, cap - off, &fs),
		    SPLITZIP_OK);
		off += fs;
	}
	const uint64_t roff = nr ? pu_align64(off) : off;
	memcpy(s + roff, R, nr);
	/* The page table and the header. */
	for (size_t i = 0; i < n; i++)
		pu_put(s + 64 + 4 * i, l->bytes[i] / 2 | (rawbit[i] ? PG_RAW_BIT : 0), 4);
	const int fixed = entropy ? o->tab != NULL : o->cb != NULL;
	memcpy(s, "SZPG", 4);
	s[PG_VERSION] = 2;
	s[PG_FLAGS] = (uint8_t)((o->no_checksum ? 0 : 1) | (fixed ? 2 : 0));
	s[PG_ENCODING] = entropy ? 2 : 1;
	s[PG_LOG2] = (uint8_t)eff_log2(o);
	pu_put(s + PG_COUNT, n, 4);
	pu_put(s + PG_TABLE_ID, fixed ? o->id : 0, 4);
	pu_put(s + PG_TOTAL, total, 8);
	pu_put(s + PG_FRAMES, off - foff, 8);
	pu_put(s + PG_SIZE, roff + nr, 8);
	uint64_t rs = 0;
	if (!o->no_checksum)
		ck_assert_int_eq(splitzip_content_checksum((const uint16_t *)(void *)R, nr / 2,
		                                           eff_log2(o), &rs),
		                 SPLITZIP_OK);
	pu_put(s + PG_RAWSUM, rs, 8);
	pu_reseal(s, roff + nr);
	*size = roff + nr;
	splitzip_ctx_free(fc);
	free(rawbit);
	free(X);
	free(R);
	return s;
}

/* The stream FORMAT.md §12.4 defines for the pages and options (AUTO: the smaller, split4 on a
 * tie). */
static uint8_t *oracle(const pu_pages *l, const opts *o, size_t *size)
{
	if (o->enc != SPLITZIP_ENCODING_AUTO)
		return oracle_mode(l, o, o->enc == SPLITZIP_ENCODING_ENTROPY, size);
	size_t s4 = 0, se = 0;
	uint8_t *a = oracle_mode(l, o, 0, &s4), *b = oracle_mode(l, o, 1, &se);
	if (s4 <= se) {
		free(b);
		*size = s4;
		return a;
	}
	free(a);
	*size = se;
	return b;
}

/* ---- Destinations ---------------------------------------------------------------------------- */

/* Destination pages flush against guard pages (capacity caps[i] each), filled with 0xA5. */
typedef struct dst_pages {
	size_t n;
	sz_guard_buf *g;
	void **p;
	size_t *caps;
	size_t *sizes;
	uint8_t *states;
} dst_pages;

static dst_pages dst_alloc(size_t n, const size_t *caps)
{
	dst_pages d;
	d.n = n;
	d.g = calloc(n ? n : 1, sizeof *d.g);
	d.p = calloc(n ? n : 1, sizeof *d.p);
	d.caps = calloc(n ? n : 1, sizeof *d.caps);
	d.sizes = calloc(n ? n : 1, sizeof *d.sizes);
	d.states = calloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(sz_guard_alloc(&d.g[i], caps[i], SZ_GUARD_END), 0);
		memset(d.g[i].ptr, 0xA5, caps[i]);
		d.p[i] = d.g[i].ptr;
		d.caps[i] = caps[i];
	}
	return d;
}

/* Back to the state of dst_alloc(): every page filled, no sizes, no states. */
static void dst_reset(dst_pages *d)
{
	for (size_t i = 0; i < d->n; i++)
		memset(d->p[i], 0xA5, d->caps[i]);
	memset(d->sizes, 0, d->n * sizeof *d->sizes);
	memset(d->states, 0, d->n);
}

static void dst_free(dst_pages *d)
{
	for (size_t i = 0; i < d->n; i++)
		sz_guard_free(&d->g[i]);
	free(d->g);
	free(d->p);
	free(d->caps);
	free(d->sizes);
	free(d->states);
}

static splitzip_status unpack(splitzip_ctx *ctx, const uint8_t *s, size_t size, dst_pages *d,
                              size_t *n_out)
{
	return splitzip_pages_decompress(ctx, s, size, d->n, d->p, d->caps, 0, d->sizes, d->states,
	                                 n_out);
}

/* Whether page i of d still holds the fill pattern (nothing written). */
static int untouched(const dst_pages *d, size_t i)
{
	for (size_t k = 0; k < d->caps[i]; k++)
		if (((const uint8_t *)d->p[i])[k] != 0xA5)
			return 0;
	return 1;
}

/* After any decompression, also a failed one: a page reported UNTOUCHED is, a WRITTEN one holds
 * the original page (checksums on: nothing else passes). */
static void check_states(const dst_pages *d, const pu_pages *l)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->states[i] == SPLITZIP_PAGE_UNTOUCHED)
			ck_assert_msg(untouched(d, i), "page %zu reported untouched was written",
			              i);
		else if (d->states[i] == SPLITZIP_PAGE_WRITTEN)
			ck_assert_msg(i < l->n && memcmp(d->p[i], l->p[i], l->bytes[i]) == 0,
			              "page %zu reported written differs", i);
		else
			ck_assert_uint_eq(d->states[i], SPLITZIP_PAGE_DAMAGED);
	}
}

/* Round trip 'l' with options 'o': the stream equals the oracle's and decodes to the pages,
 * every page WRITTEN. Returns the stream. */
static uint8_t *roundtrip(const pu_pages *l, const opts *o, size_t *size)
{
	splitzip_ctx *ctx = ctx_of(o);
	uint8_t *s = pack(ctx, l, o, size);
	size_t want_size = 0;
	uint8_t *want = oracle(l, o, &want_size);
	ck_assert_uint_eq(*size, want_size);
	if (memcmp(s, want, *size) != 0) {
		size_t k = 0;
		while (s[k] == want[k])
			k++;
		ck_abort_msg("stream byte %zu: %02x, the spec says %02x", k, s[k], want[k]);
	}
	free(want);
	dst_pages d = dst_alloc(l->n, l->bytes);
	size_t n_out = 999;
	ck_assert_int_eq(unpack(ctx, s, *size, &d, &n_out), SPLITZIP_OK);
	ck_assert_uint_eq(n_out, l->n);
	for (size_t i = 0; i < l->n; i++) {
		ck_assert_uint_eq(d.sizes[i], l->bytes[i]);
		ck_assert_uint_eq(d.states[i], SPLITZIP_PAGE_WRITTEN);
		ck_assert_msg(memcmp(d.p[i], l->p[i], l->bytes[i]) == 0, "page %zu differs", i);
	}
	dst_free(&d);
	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(s, 64, &info), SPLITZIP_OK);
	ck_assert_uint_eq(info.n_pages, l->n);
	ck_assert_uint_eq(info.stream_size, *size);
	splitzip_ctx_free(ctx);
	return s;
}

/* ---- Streams against the spec ------------------------------------------------------------ */

static const splitzip_encoding k_encodings[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
                                                SPLITZIP_ENCODING_AUTO};

/* Real KV pages of the sizes engines use, every encoding, checksums on and off. */
START_TEST(real_kv_pages)
{
	static const size_t page[] = {1152, 2048, 8192, 32768};
	for (int p = 0; p < 4; p++)
		for (int e = 0; e < 3; e++) {
			pu_pages l = pu_make_kv(48, page[p], 1 + (uint64_t)p);
			opts o = {k_encodings[e], 0, (p + e) % 2,           NULL,
			          NULL,           0, SPLITZIP_BACKEND_AUTO, 0};
			size_t size = 0;
			free(roundtrip(&l, &o, &size));
			pu_free(&l);
		}
}
END_TEST

/* Generated pages of every kind and many sizes (0, odd element counts, random pages that go
 * raw), every encoding and chunk size. */
START_TEST(mixed_pages)
{
	static const size_t sizes[] = {0,    2,     64,   120,   128,  242, 4096,
	                               8190, 30000, 2048, 65538, 1152, 0,   131074};
	const size_t n = sizeof sizes / sizeof sizes[0];
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++)
		for (int e = 0; e < 3; e++) {
			pu_pages l = pu_make(sizes, n, g, 5 + (uint64_t)g);
			opts o = {k_encodings[e],
			          10 + (unsigned)(g + e) % 7,
			          g & 1,
			          NULL,
			          NULL,
			          0,
			          SPLITZIP_BACKEND_AUTO,
			          0};
			size_t size = 0;
			free(roundtrip(&l, &o, &size));
			pu_free(&l);
		}
	/* No pages at all: the header alone, padded to the first section. */
	pu_pages none = pu_make(NULL, 0, 0, 0);
	opts o = {SPLITZIP_ENCODING_AUTO, 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	size_t size = 0;
	free(roundtrip(&none, &o, &size));
	ck_assert_uint_eq(size, 64);
	pu_free(&none);
}
END_TEST

/* Pages mixing KV with random pages: those travel raw at 4 bytes of table, not a header. */
START_TEST(raw_pages)
{
	pu_pages l = pu_make_kv(16, 2048, 7);
	for (size_t i = 3; i < 16; i += 5)
		sz_test_generate(SZ_GEN_RANDOM, i, (uint16_t *)l.p[i], 1024);
	for (int e = 0; e < 3; e++) {
		opts o = {k_encodings[e], 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
		size_t size = 0;
		uint8_t *s = roundtrip(&l, &o, &size);
		splitzip_page_entry ent[16];
		uint64_t np = 0, raw = 0;
		ck_assert_int_eq(splitzip_pages_get_manifest(s, size, ent, 16, &np), SPLITZIP_OK);
		for (size_t i = 0; i < 16; i++)
			raw += ent[i].encoding == SPLITZIP_PAGE_RAW;
		ck_assert_uint_eq(raw, 3); /* exactly the random pages */
		ck_assert_uint_eq(ent[8].encoding, SPLITZIP_PAGE_RAW);
		ck_assert_uint_eq(ent[8].position, 2048);
		free(s);
	}
	/* Every page random: the stream is the table and the raw bytes. */
	pu_pages r = pu_make_kv(8, 1024, 2);
	for (size_t i = 0; i < 8; i++)
		sz_test_generate(SZ_GEN_RANDOM, 40 + i, (uint16_t *)r.p[i], 512);
	opts o = {SPLITZIP_ENCODING_AUTO, 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	size_t size = 0;
	free(roundtrip(&r, &o, &size));
	ck_assert_uint_eq(size, 128 + 8 * 1024);
	pu_free(&r);
	pu_free(&l);
}
END_TEST

/* A codebook and a table calibrated once, named by an id in the header. */
START_TEST(fixed_tables)
{
	pu_pages l = pu_make_kv(24, 4096, 3);
	splitzip_codebook cb;
	splitzip_entropy_table tab;
	ck_assert_int_eq(splitzip_calibrate((const uint16_t *)l.p[0], 2048, &cb), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_entropy_calibrate((const uint16_t *)l.p[1], 2048, &tab),
	                 SPLITZIP_OK);
	for (int e = 0; e < 3; e++) {
		opts o = {k_encodings[e], 0, 0, &cb, &tab, 0xC0DEB00Cu, SPLITZIP_BACKEND_AUTO, 0};
		size_t size = 0;
		uint8_t *s = roundtrip(&l, &o, &size);
		splitzip_pages_info info;
		ck_assert_int_eq(splitzip_pages_get_info(s, size, &info), SPLITZIP_OK);
		ck_assert_uint_eq(info.flags,
		                  SPLITZIP_PAGES_FLAG_CHECKSUM | SPLITZIP_PAGES_FLAG_FIXED_TABLE);
		ck_assert_uint_eq(info.table_id, 0xC0DEB00Cu);
		free(s);
	}
	/* A name without a fixed table is refused; with the other encoding's table only, too. */
	const size_t cap = splitzip_pages_bound(l.n, 4096);
	uint8_t *s = malloc(cap);
	size_t size = 0;
	opts only_cb = {SPLITZIP_ENCODING_AUTO, 0, 0, &cb, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	opts none = {SPLITZIP_ENCODING_SPLIT4, 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	splitzip_ctx *c1 = ctx_of(&only_cb), *c2 = ctx_of(&none);
	ck_assert_int_eq(splitzip_pages_compress(c1, 5, 0, l.n, (const void *const *)l.p, l.bytes,
	                                         s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_pages_compress(c2, 5, 0, l.n, (const void *const *)l.p, l.bytes,
	                                         s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_ctx_free(c1);
	splitzip_ctx_free(c2);
	free(s);
	pu_free(&l);
}
END_TEST

/* The point of version 2: at the page sizes engines use, a stream is nearly as small as one
 * frame over the same bytes (FORMAT.md §12, "Why"). */
START_TEST(ratio_small_pages)
{
	static const size_t page[] = {1024, 2048, 8192};
	for (int p = 0; p < 3; p++)
		for (int e = 0; e < 2; e++) {
			pu_pages l = pu_make_kv(64, page[p], 11);
			opts o = {k_encodings[e], 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
			splitzip_ctx *ctx = ctx_of(&o);
			size_t size = 0;
			uint8_t *s = pack(ctx, &l, &o, &size);
			/* One frame over the same bytes, with the same parameters. */
			const size_t n = 64 * page[p] / 2;
			uint16_t *all = malloc(2 * n);
			for (size_t i = 0; i < 64; i++)
				memcpy(all + i * page[p] / 2, l.p[i], page[p]);
			const size_t cap = splitzip_compress_bound(n);
			uint8_t *f = malloc(cap);
			size_t fsize = 0;
			ck_assert_int_eq(splitzip_compress(ctx, all, n, f, cap, &fsize),
			                 SPLITZIP_OK);
			const double ratio = (double)fsize / (double)size;
			ck_assert_msg(ratio >= 0.98,
			              "%zu-byte pages, %s: stream %zu, one frame %zu (%.4f)",
			              page[p], e ? "entropy" : "split4", size, fsize, ratio);
			free(f);
			free(all);
			free(s);
			splitzip_ctx_free(ctx);
			pu_free(&l);
		}
}
END_TEST

/* Every host backend, and every thread count, writes the same stream. */
START_TEST(same_bytes_every_backend)
{
	static const size_t sizes[] = {32768, 100, 65536, 4098, 0, 32768, 262144, 2048};
	pu_pages l = pu_make(sizes, 8, -2, 3);
	sz_test_generate(SZ_GEN_RANDOM, 1, (uint16_t *)l.p[2], 65536 / 2); /* one raw page */
	for (int e = 0; e < 3; e++) {
		uint8_t *ref = NULL;
		size_t ref_size = 0;
		for (size_t b = 0; b < splitzip_backend_count(); b++) {
			splitzip_backend_id id = splitzip_backend_id_of(b);
			if (!splitzip_backend_available(b) || id == SPLITZIP_BACKEND_CUDA ||
			    id == SPLITZIP_BACKEND_HIP)
				continue;
			for (unsigned threads = 1; threads <= 3; threads += 2) {
				opts o = {k_encodings[e], 0, 0, NULL, NULL, 0, id, threads};
				splitzip_ctx *ctx = ctx_of(&o);
				size_t size = 0;
				uint8_t *s = pack(ctx, &l, &o, &size);
				if (!ref) {
					ref = s;
					ref_size = size;
				} else {
					ck_assert_msg(size == ref_size && memcmp(s, ref, size) == 0,
					              "backend %s threads %u differs",
					              splitzip_backend_name(b), threads);
					free(s);
				}
				splitzip_ctx_free(ctx);
			}
		}
		free(ref);
	}
	pu_free(&l);
}
END_TEST

START_TEST(capacity_and_bound)
{
	pu_pages l = pu_make_kv(9, 16384, 2);
	sz_test_generate(SZ_GEN_RANDOM, 9, (uint16_t *)l.p[4], 8192); /* a raw section too */
	for (int e = 0; e < 3; e++) {
		opts o = {k_encodings[e], 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
		splitzip_ctx *ctx = ctx_of(&o);
		size_t size = 0;
		uint8_t *s = pack(ctx, &l, &o, &size);
		uint8_t *d = malloc(size);
		size_t got = 0;
		ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, l.n, (const void *const *)l.p,
		                                         l.bytes, d, size, &got),
		                 SPLITZIP_OK);
		ck_assert(got == size && memcmp(d, s, size) == 0);
		for (size_t cap = 0; cap < size; cap += cap < 600 ? 1 : 997)
			ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, l.n,
			                                         (const void *const *)l.p, l.bytes,
			                                         d, cap, &got),
			                 SPLITZIP_ERROR_DST_TOO_SMALL);
		ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, l.n, (const void *const *)l.p,
		                                         l.bytes, d, size - 1, &got),
		                 SPLITZIP_ERROR_DST_TOO_SMALL);
		free(d);
		free(s);
		splitzip_ctx_free(ctx);
	}
	/* FORMAT.md §12.4: align64(64 + 4n) + n*m + 80*floor(n*m / 2^25) + 144. */
	ck_assert_uint_eq(splitzip_pages_bound(0, 0), 64 + 144);
	ck_assert_uint_eq(splitzip_pages_bound(3, 1000), 128 + 3000 + 144);
	ck_assert_uint_eq(splitzip_pages_bound(7, 512), SPLITZIP_PAGES_BOUND(7, 512));
	ck_assert_uint_eq(splitzip_pages_bound(64, 1 << 20), 320 + (64u << 20) + 80 * 2 + 144);
	ck_assert_uint_eq(splitzip_pages_bound(64, 1 << 20), SPLITZIP_PAGES_BOUND(64, 1 << 20));
	ck_assert_uint_eq(splitzip_pages_bound(SPLITZIP_PAGES_MAX_PAGES + 1, 2), 0);
	ck_assert_uint_eq(splitzip_pages_bound(1, SPLITZIP_PAGES_MAX_PAGE_BYTES + 2), 0);
	ck_assert_uint_eq(splitzip_pages_bound(SIZE_MAX / 1024, 1 << 20), 0);
	pu_free(&l);
}
END_TEST

START_TEST(arguments)
{
	opts o = {SPLITZIP_ENCODING_SPLIT4, 12, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	splitzip_ctx *ctx = ctx_of(&o);
	uint16_t page[64] = {0};
	const void *pages[2] = {page, page};
	size_t bytes[2] = {128, 128}, got = 0;
	uint8_t out[1024];
	const splitzip_status inval = SPLITZIP_ERROR_INVALID_ARGUMENT;
	ck_assert_int_eq(splitzip_pages_compress(NULL, 0, 0, 2, pages, bytes, out, 1024, &got),
	                 inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, NULL, bytes, out, 1024, &got),
	                 inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, NULL, out, 1024, &got),
	                 inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, bytes, NULL, 1024, &got),
	                 inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, bytes, out, 1024, NULL),
	                 inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 7, 0, 2, pages, bytes, out, 1024, &got),
	                 inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, 2, pages, bytes, out, 1024, &got),
	                 inval);
	bytes[1] = 127; /* odd */
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, bytes, out, 1024, &got),
	                 inval);
	bytes[1] = 126;
	pages[1] = (const uint8_t *)page + 1; /* misaligned */
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, bytes, out, 1024, &got),
	                 inval);
	pages[1] = NULL;
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, bytes, out, 1024, &got),
	                 inval);
	bytes[1] = 0; /* a NULL page of size 0 is fine */
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 2, pages, bytes, out, 1024, &got),
	                 SPLITZIP_OK);
	size_t n_out = 0;
	void *dp[2] = {page, NULL};
	size_t caps[2] = {128, 0};
	ck_assert_int_eq(
	    splitzip_pages_decompress(ctx, out, got, 2, dp, caps, 0, NULL, NULL, &n_out),
	    SPLITZIP_OK);
	ck_assert_uint_eq(n_out, 2);
	ck_assert_int_eq(splitzip_pages_decompress(ctx, out, got, 2, dp, caps, 0, NULL, NULL, NULL),
	                 inval);
	ck_assert_int_eq(
	    splitzip_pages_decompress(NULL, out, got, 2, dp, caps, 0, NULL, NULL, &n_out), inval);
	caps[1] = 2; /* NULL destination with room */
	ck_assert_int_eq(
	    splitzip_pages_decompress(ctx, out, got, 2, dp, caps, 0, NULL, NULL, &n_out), inval);
	ck_assert_int_eq(splitzip_pages_get_info(NULL, 64, NULL), inval);
	ck_assert_int_eq(splitzip_pages_get_manifest(out, got, NULL, 3, NULL), inval);
	splitzip_ctx_free(ctx);
}
END_TEST

/* ---- The receiver: destinations and page states ----------------------------------------- */

START_TEST(destinations)
{
	static const size_t sizes[] = {4096, 8192, 100, 0, 4096};
	pu_pages l = pu_make(sizes, 5, -1, 9);
	opts o = {SPLITZIP_ENCODING_SPLIT4, 12, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	splitzip_ctx *ctx = ctx_of(&o);
	size_t size = 0, n_out = 0;
	uint8_t *s = pack(ctx, &l, &o, &size);
	/* Larger pages and more of them: fine, sizes and count reported. */
	size_t big[7] = {5000, 9000, 100, 64, 4096, 10, 10};
	dst_pages d = dst_alloc(7, big);
	ck_assert_int_eq(unpack(ctx, s, size, &d, &n_out), SPLITZIP_OK);
	ck_assert_uint_eq(n_out, 5);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_uint_eq(d.sizes[i], i < 5 ? sizes[i] : 0);
		ck_assert_uint_eq(d.states[i],
		                  i < 5 ? SPLITZIP_PAGE_WRITTEN : SPLITZIP_PAGE_UNTOUCHED);
	}
	check_states(&d, &l);
	dst_free(&d);
	/* Exact geometry (SPLITZIP_PAGES_EXACT): the destinations of the stream's sizes pass, more
	 * pages or other sizes are GEOMETRY, nothing written. */
	size_t exact[5] = {4096, 8192, 100, 0, 4096};
	d = dst_alloc(5, exact);
	ck_assert_int_eq(splitzip_pages_decompress(ctx, s, size, 5, d.p, d.caps,
	                                           SPLITZIP_PAGES_EXACT, d.sizes, d.states, &n_out),
	                 SPLITZIP_OK);
	dst_free(&d);
	for (int k = 0; k < 3; k++) {
		size_t caps[7] = {4096, 8192, 100, 0, 4096, 64, 64};
		caps[1] += k == 1 ? 2 : 0;
		caps[2] -= k == 2 ? 2 : 0;
		d = dst_alloc(k == 0 ? 6 : 5, caps);
		ck_assert_int_eq(splitzip_pages_decompress(ctx, s, size, d.n, d.p, d.caps,
		                                           SPLITZIP_PAGES_EXACT, d.sizes, d.states,
		                                           &n_out),
		                 SPLITZIP_ERROR_GEOMETRY);
		for (size_t i = 0; i < d.n; i++)
			ck_assert(d.states[i] == SPLITZIP_PAGE_UNTOUCHED && untouched(&d, i));
		dst_free(&d);
	}
	ck_assert_int_eq(
	    splitzip_pages_decompress(ctx, s, size, 0, NULL, NULL, 4, NULL, NULL, &n_out),
	    SPLITZIP_ERROR_INVALID_ARGUMENT);
	/* Fewer destinations, or one page too small: DST_TOO_SMALL, nothing written. */
	d = dst_alloc(4, big);
	ck_assert_int_eq(unpack(ctx, s, size, &d, &n_out), SPLITZIP_ERROR_DST_TOO_SMALL);
	for (size_t i = 0; i < 4; i++)
		ck_assert(d.states[i] == SPLITZIP_PAGE_UNTOUCHED && untouched(&d, i));
	dst_free(&d);
	size_t small[5] = {4096, 8190, 100, 0, 4096};
	d = dst_alloc(5, small);
	ck_assert_int_eq(unpack(ctx, s, size, &d, &n_out), SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_uint_eq(n_out, 0);
	for (size_t i = 0; i < 5; i++)
		ck_assert(d.states[i] == SPLITZIP_PAGE_UNTOUCHED && d.sizes[i] == 0 &&
		          untouched(&d, i));
	dst_free(&d);
	/* Trailing bytes after the stream are ignored (a bound-sized receive buffer). */
	uint8_t *longer = calloc(size + 300, 1);
	memcpy(longer, s, size);
	d = dst_alloc(5, sizes);
	ck_assert_int_eq(unpack(ctx, longer, size + 300, &d, &n_out), SPLITZIP_OK);
	dst_free(&d);
	free(longer);
	free(s);
	splitzip_ctx_free(ctx);
	pu_free(&l);
}
END_TEST

/*
 * A stream of more than 2^24 coded elements has several frames; when one fails, the pages of
 * the frames before it are WRITTEN (and right), those it covers DAMAGED, the rest UNTOUCHED;
 * two frames with different tables are damage found before anything is written.
 */
START_TEST(frames_and_states)
{
	const size_t n = 70, bytes = 512 * 1024; /* 35 MiB: frames 0 and 1, and a third */
	pu_pages l = pu_make_kv(n, bytes, 13);
	sz_test_generate(SZ_GEN_RANDOM, 77, (uint16_t *)l.p[60], bytes / 2); /* raw */
	opts o = {SPLITZIP_ENCODING_SPLIT4, 0, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
	size_t size = 0;
	uint8_t *s = roundtrip(&l, &o, &size);
	splitzip_ctx *ctx = ctx_of(&o);
	const uint64_t foff = pu_align64(64 + 4 * n);
	const uint64_t f0 = pu_get(s + foff + 40, 8);
	ck_assert_uint_eq(pu_get(s + foff + 16, 8), 1u << 24);
	/* Damage a sign/mantissa byte of frame 1 (5 pages: SM at 64 + 5 * 2^17): its content
	 * checksum fails. */
	ck_assert_uint_eq(pu_get(s + foff + f0 + 16, 8), 5u << 18);
	uint8_t *b = malloc(size);
	memcpy(b, s, size);
	b[foff + f0 + 64 + (5u << 17) + 1000] ^= 0x40;
	dst_pages d = dst_alloc(n, l.bytes);
	size_t n_out = 0;
	ck_assert_int_eq(unpack(ctx, b, size, &d, &n_out), SPLITZIP_ERROR_CONTENT_CHECKSUM);
	check_states(&d, &l);
	/* Frame 0 holds 2^24 elements = 64 coded pages of 2^18: pages 0-64 but the raw page 60;
	 * frame 1 pages 65-69. */
	for (size_t i = 0; i < n; i++) {
		const uint8_t want = i == 60  ? SPLITZIP_PAGE_UNTOUCHED
		                     : i < 65 ? SPLITZIP_PAGE_WRITTEN
		                              : SPLITZIP_PAGE_DAMAGED;
		ck_assert_msg(d.states[i] == want, "page %zu: state %u", i, d.states[i]);
	}
	dst_free(&d);
	/* Frame 1 with another codebook (still ascending, header resealed): CORRUPT, nothing
	 * written. */
	memcpy(b, s, size);
	uint8_t *cb1 = b + foff + f0 + 24;
	for (int k = 15; k >= 0; k--)
		if (cb1[k] < 255 && (k == 15 || cb1[k] + 1 < cb1[k + 1])) {
			cb1[k]++;
			break;
		}
	pu_reseal_frame(b + foff + f0);
	d = dst_alloc(n, l.bytes);
	ck_assert_int_eq(unpack(ctx, b, size, &d, &n_out), SPLITZIP_ERROR_CORRUPT_STREAM);
	for (size_t i = 0; i < n; i++)
		ck_assert(d.states[i] == SPLITZIP_PAGE_UNTOUCHED && untouched(&d, i));
	dst_free(&d);
	/* The raw page's bytes: the raw checksum, after every frame was written. */
	memcpy(b, s, size);
	b[size - 7] ^= 1;
	d = dst_alloc(n, l.bytes);
	ck_assert_int_eq(unpack(ctx, b, size, &d, &n_out), SPLITZIP_ERROR_CONTENT_CHECKSUM);
	check_states(&d, &l);
	ck_assert_uint_eq(d.states[60], SPLITZIP_PAGE_UNTOUCHED);
	ck_assert_uint_eq(d.states[69], SPLITZIP_PAGE_WRITTEN);
	dst_free(&d);
	free(b);
	free(s);
	splitzip_ctx_free(ctx);
	pu_free(&l);
}
END_TEST

/* ---- The receiver: hostile streams ------------------------------------------------------- */

/*
 * The base stream: page 0 real K (coded), page 1 random (raw), page 2 empty, page 3 real V
 * (coded); a fixed codebook named 77; checksums. Its frame at 128, the raw section at the end.
 */
typedef struct base {
	uint8_t *s;
	size_t size;
	uint64_t frame, frames_end, raw_off;
} base;

static uint8_t *hostile_base(splitzip_ctx **ctx, pu_pages *l, size_t *size, splitzip_codebook *cb)
{
	static const size_t sizes[] = {8192, 2000, 0, 4160};
	*l = pu_make(sizes, 4, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l->p[1], 1000);
	ck_assert_int_eq(splitzip_calibrate((const uint16_t *)l->p[0], 4096, cb), SPLITZIP_OK);
	opts o = {SPLITZIP_ENCODING_SPLIT4, 12, 0, cb, NULL, 77, SPLITZIP_BACKEND_AUTO, 0};
	*ctx = ctx_of(&o);
	return pack(*ctx, l, &o, size);
}

static base g; /* the base stream's landmarks, for the damage functions */

typedef struct damage {
	const char *what;
	void (*apply)(uint8_t *s, size_t *size);
	int reseal; /* 1: the header and table checksums, 2: the header checksum only */
	splitzip_status want;
	int body; /* found only when the frames are decoded, not by get_manifest */
} damage;

#define SET8(name, off, v)                                                                         \
	static void name(uint8_t *s, size_t *z)                                                    \
	{                                                                                          \
		(void)z;                                                                           \
		s[off] = (uint8_t)(v);                                                             \
	}
#define ADD64(name, off, v)                                                                        \
	static void name(uint8_t *s, size_t *z)                                                    \
	{                                                                                          \
		(void)z;                                                                           \
		pu_put(s + (off), pu_get(s + (off), 8) + (uint64_t)(v), 8);                        \
	}
SET8(d_magic, 1, s[1] ^ 1)
SET8(d_version0, PG_VERSION, 0)
SET8(d_version1, PG_VERSION, 1)
SET8(d_version3, PG_VERSION, 3)
SET8(d_hcsum, PG_HCSUM, s[PG_HCSUM] ^ 1)
SET8(d_encoding0, PG_ENCODING, 0)
SET8(d_encoding3, PG_ENCODING, 3)
SET8(d_encoding_entropy, PG_ENCODING, 2)
SET8(d_flag_reserved, PG_FLAGS, s[PG_FLAGS] | 4)
SET8(d_reserved, PG_RES + 3, 1)
SET8(d_log2_low, PG_LOG2, 9)
SET8(d_log2_high, PG_LOG2, 17)
SET8(d_id_without_fixed, PG_FLAGS, s[PG_FLAGS] & ~2)
SET8(d_rawsum_without_flag, PG_FLAGS, s[PG_FLAGS] & ~1)
SET8(d_tcsum, PG_TCSUM, s[PG_TCSUM] ^ 1)
SET8(d_table_padding, 80, 1)
ADD64(d_frames_odd, PG_FRAMES, 8)
ADD64(d_total, PG_TOTAL, 1)
ADD64(d_total_huge, PG_TOTAL, 0x7F00000000000000ull)
ADD64(d_size_more, PG_SIZE, 64)
static void d_frames_beyond(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + PG_FRAMES, pu_get(s + PG_SIZE, 8), 8);
}
static void d_truncate(uint8_t *s, size_t *z)
{
	(void)s;
	*z -= 1;
}
static void d_header_only(uint8_t *s, size_t *z)
{
	(void)s;
	*z = 64;
}
static void d_count_huge(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + PG_COUNT, 0xFFFFFFFFu, 4);
}
static void d_count_more(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + PG_COUNT, 20, 4);
}
static void d_page_elems(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + 64, pu_get(s + 64, 4) - 1, 4);
	pu_put(s + PG_TOTAL, pu_get(s + PG_TOTAL, 8) - 1, 8);
}
static void d_raw_bit_set(uint8_t *s, size_t *z)
{
	(void)z;
	s[64 + 4 * 3 + 3] |= 0x80;
}
static void d_raw_bit_clear(uint8_t *s, size_t *z)
{
	(void)z;
	s[64 + 4 * 1 + 3] &= 0x7F;
}
static void d_raw_padding(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frames_end] = 1;
}
static void d_frame_magic(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frame] ^= 1;
}
static void d_frame_hcsum(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frame + 60] ^= 1;
}
static void d_frame_version(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frame + 4] = 2;
}
static void d_frame_elems(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + g.frame + 16, pu_get(s + g.frame + 16, 8) - 2, 8);
	pu_reseal_frame(s + g.frame);
}
static void d_frame_no_checksum(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frame + 8] = 0;
	pu_put(s + g.frame + 48, 0, 8);
	pu_reseal_frame(s + g.frame);
}
static void d_frame_body(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frame + 64 + 6176 / 2 + 16 + 100] ^= 0x10; /* a sign/mantissa byte */
}
static void d_frame_gap(uint8_t *s, size_t *z)
{
	(void)z;
	s[g.frame + 9336] = 1; /* after the chunk table: 64 + 3088 + 6176 + 2 * 4 */
}
static void d_raw_byte(uint8_t *s, size_t *z)
{
	s[*z - 5] ^= 0x01;
}
static void d_frames_longer(uint8_t *s, size_t *z)
{
	/* 64 zero bytes after the frame: the frames section no longer ends with its frame */
	memmove(s + g.frames_end + 64, s + g.frames_end, *z - g.frames_end);
	memset(s + g.frames_end, 0, 64);
	*z += 64;
	pu_put(s + PG_FRAMES, pu_get(s + PG_FRAMES, 8) + 64, 8);
	pu_put(s + PG_SIZE, pu_get(s + PG_SIZE, 8) + 64, 8);
}

static const damage k_damage[] = {
    {"magic", d_magic, 0, SPLITZIP_ERROR_BAD_MAGIC, 0},
    {"version 0", d_version0, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"version 1 (no longer read)", d_version1, 0, SPLITZIP_ERROR_UNSUPPORTED_FORMAT, 0},
    {"version 3 with Dtype 0", d_version3, 1, SPLITZIP_ERROR_UNSUPPORTED_FORMAT, 0},
    {"header checksum", d_hcsum, 0, SPLITZIP_ERROR_HEADER_CHECKSUM, 0},
    {"encoding 0", d_encoding0, 1, SPLITZIP_ERROR_UNSUPPORTED_FORMAT, 0},
    {"encoding 3", d_encoding3, 1, SPLITZIP_ERROR_UNSUPPORTED_FORMAT, 0},
    {"reserved flag", d_flag_reserved, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"reserved byte", d_reserved, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"chunk log2 9", d_log2_low, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"chunk log2 17", d_log2_high, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"table id without a fixed table", d_id_without_fixed, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"raw checksum without the flag", d_rawsum_without_flag, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frames size not a multiple of 16", d_frames_odd, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frames beyond the stream", d_frames_beyond, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"huge page count", d_count_huge, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"truncated", d_truncate, 0, SPLITZIP_ERROR_TRUNCATED, 0},
    {"header only", d_header_only, 0, SPLITZIP_ERROR_TRUNCATED, 0},
    {"stream size beyond the input", d_size_more, 1, SPLITZIP_ERROR_TRUNCATED, 0},
    {"table checksum", d_tcsum, 2, SPLITZIP_ERROR_HEADER_CHECKSUM, 0},
    {"total", d_total, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"total beyond 2^31 - 1 a page", d_total_huge, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"page count", d_count_more, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"page elements", d_page_elems, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"raw bit set", d_raw_bit_set, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"raw bit cleared", d_raw_bit_clear, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"table padding", d_table_padding, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"raw section padding", d_raw_padding, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frames section longer", d_frames_longer, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frame magic", d_frame_magic, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frame header checksum", d_frame_hcsum, 0, SPLITZIP_ERROR_HEADER_CHECKSUM, 0},
    {"frame version", d_frame_version, 0, SPLITZIP_ERROR_UNSUPPORTED_FORMAT, 0},
    {"frame element count", d_frame_elems, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frame without checksum", d_frame_no_checksum, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frame of the other encoding", d_encoding_entropy, 1, SPLITZIP_ERROR_CORRUPT_STREAM, 0},
    {"frame body", d_frame_body, 0, SPLITZIP_ERROR_CONTENT_CHECKSUM, 1},
    {"frame padding", d_frame_gap, 0, SPLITZIP_ERROR_CORRUPT_STREAM, 1},
    {"raw page byte", d_raw_byte, 0, SPLITZIP_ERROR_CONTENT_CHECKSUM, 1},
};

START_TEST(hostile_statuses)
{
	splitzip_ctx *ctx;
	pu_pages l;
	splitzip_codebook cb;
	size_t size;
	uint8_t *s0 = hostile_base(&ctx, &l, &size, &cb);
	g.s = s0;
	g.size = size;
	g.frame = 128;
	g.frames_end = 128 + pu_get(s0 + PG_FRAMES, 8);
	g.raw_off = pu_align64(g.frames_end);
	ck_assert_uint_eq(pu_get(s0 + g.frame + 16, 8), 6176); /* pages 0 and 3 */
	ck_assert_uint_lt(g.frames_end, g.raw_off);            /* there is raw padding */
	ck_assert_uint_eq(g.raw_off + 2000, size);
	for (size_t k = 0; k < sizeof k_damage / sizeof k_damage[0]; k++) {
		const damage *d = &k_damage[k];
		uint8_t *s = calloc(size + 128, 1);
		memcpy(s, s0, size);
		size_t z = size;
		d->apply(s, &z);
		if (d->reseal == 1)
			pu_reseal(s, z);
		else if (d->reseal == 2)
			pu_put(s + PG_HCSUM, (uint32_t)pu_digest(s, 60), 4);
		sz_guard_buf in;
		ck_assert_int_eq(sz_guard_dup(&in, s, z, SZ_GUARD_END), 0);
		dst_pages dp = dst_alloc(4, l.bytes);
		size_t n_out = 5;
		splitzip_status st = unpack(ctx, in.ptr, in.size, &dp, &n_out);
		ck_assert_msg(st == d->want, "%s: got %s, want %s", d->what,
		              splitzip_status_name(st), splitzip_status_name(d->want));
		ck_assert_uint_eq(n_out, 0);
		check_states(&dp, &l);
		if (!d->body)
			for (size_t i = 0; i < 4; i++)
				ck_assert(dp.sizes[i] == 0 &&
				          dp.states[i] == SPLITZIP_PAGE_UNTOUCHED);
		/* Structural damage is also what get_manifest reports. */
		splitzip_status ms = splitzip_pages_get_manifest(in.ptr, in.size, NULL, 0, NULL);
		ck_assert_msg(ms == (d->body ? SPLITZIP_OK : d->want), "%s: get_manifest %s",
		              d->what, splitzip_status_name(ms));
		dst_free(&dp);
		sz_guard_free(&in);
		free(s);
	}
	/* Short inputs: a prefix of the magic is truncated, anything else is not a stream. */
	ck_assert_int_eq(splitzip_pages_get_manifest(s0, 3, NULL, 0, NULL),
	                 SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(splitzip_pages_get_manifest(s0, 63, NULL, 0, NULL),
	                 SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(splitzip_pages_get_manifest("SZPX", 4, NULL, 0, NULL),
	                 SPLITZIP_ERROR_BAD_MAGIC);
	ck_assert_int_eq(splitzip_pages_get_manifest(s0, 0, NULL, 0, NULL),
	                 SPLITZIP_ERROR_TRUNCATED);
	free(s0);
	splitzip_ctx_free(ctx);
	pu_free(&l);
}
END_TEST

static int is_decode_status(splitzip_status st)
{
	return st == SPLITZIP_OK || st == SPLITZIP_ERROR_DST_TOO_SMALL ||
	       st == SPLITZIP_ERROR_CORRUPT_STREAM || st == SPLITZIP_ERROR_UNSUPPORTED_FORMAT ||
	       st == SPLITZIP_ERROR_BAD_MAGIC || st == SPLITZIP_ERROR_TRUNCATED ||
	       st == SPLITZIP_ERROR_HEADER_CHECKSUM || st == SPLITZIP_ERROR_CONTENT_CHECKSUM;
}

/* Random damage, resealed or not, anywhere, in split4 and entropy streams: a decoding status,
 * no access outside the input or the destination pages (guard pages), page states that tell
 * the truth. */
START_TEST(hostile_random)
{
	static const size_t sizes[] = {8192, 2000, 0, 4160, 1152};
	pu_pages l = pu_make(sizes, 5, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l.p[1], 1000);
	uint64_t seed = 4242;
	for (int e = 0; e < 2; e++) {
		opts o = {k_encodings[e], 10, 0, NULL, NULL, 0, SPLITZIP_BACKEND_AUTO, 0};
		splitzip_ctx *ctx = ctx_of(&o);
		size_t size;
		uint8_t *s0 = pack(ctx, &l, &o, &size);
		/* One input buffer ending at a guard page (a shorter input ends there too) and one
		 * set of destination pages, reset for every mutation. */
		sz_guard_buf in;
		ck_assert_int_eq(sz_guard_alloc(&in, size, SZ_GUARD_END), 0);
		dst_pages dp = dst_alloc(5, l.bytes);
		for (int k = 0; k < 1500; k++) {
			uint8_t *s = malloc(size);
			memcpy(s, s0, size);
			size_t z = size;
			const uint64_t r = sz_test_rand(&seed);
			const size_t head = 64 + 4 * 5;
			switch (k % 5) {
			case 0: /* header or table byte, resealed so the checks behind them run */
				s[r % head] = (uint8_t)(r >> 20);
				pu_reseal(s, z);
				break;
			case 1: /* a header u64 field near an edge, resealed */
				pu_put(s + 16 + 8 * ((r >> 8) % 4),
				       (uint64_t)((r >> 16) % 70000) - 2 * (r & 1), 8);
				pu_reseal(s, z);
				break;
			case 2:
				s[r % z] ^= (uint8_t)(1u << ((r >> 32) % 8));
				break;
			case 3:
				z = (size_t)(r % z);
				break;
			default:
				s[head + (r >> 8) % (z - head)] = (uint8_t)r;
				break;
			}
			uint8_t *at = in.ptr + (size - z);
			memcpy(at, s, z);
			dst_reset(&dp);
			size_t n_out = 0;
			splitzip_status st = unpack(ctx, at, z, &dp, &n_out);
			ck_assert_msg(is_decode_status(st), "mutation %d: %s", k,
			              splitzip_status_name(st));
			ck_assert(st == SPLITZIP_OK ? n_out == 5 : n_out == 0);
			if (st ==
			    SPLITZIP_OK) /* damage the checks cannot see: a padding byte ... none */
				for (size_t i = 0; i < 5; i++)
					ck_assert(memcmp(dp.p[i], l.p[i], l.bytes[i]) == 0);
			check_states(&dp, &l);
			free(s);
		}
		dst_free(&dp);
		sz_guard_free(&in);
		free(s0);
		splitzip_ctx_free(ctx);
	}
	pu_free(&l);
}
END_TEST

static Suite *pages_suite(void)
{
	Suite *s = suite_create("pages");
	TCase *t = tcase_create("streams");
	tcase_set_timeout(t, 300);
	tcase_add_test(t, real_kv_pages);
	tcase_add_test(t, mixed_pages);
	tcase_add_test(t, raw_pages);
	tcase_add_test(t, fixed_tables);
	tcase_add_test(t, ratio_small_pages);
	tcase_add_test(t, same_bytes_every_backend);
	tcase_add_test(t, capacity_and_bound);
	tcase_add_test(t, arguments);
	suite_add_tcase(s, t);
	TCase *h = tcase_create("receiver");
	tcase_set_timeout(h, 300);
	tcase_add_test(h, destinations);
	tcase_add_test(h, frames_and_states);
	tcase_add_test(h, hostile_statuses);
	tcase_add_test(h, hostile_random);
	suite_add_tcase(s, h);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pages_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
