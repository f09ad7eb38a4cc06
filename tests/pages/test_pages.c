/*
 * test_pages.c -- the page stream API (splitzip.h "KV pages", doc/FORMAT.md §12) on the host:
 * round trips of real KV pages and generated pages of every kind and size, the layout rules
 * (aligned offsets, zero padding, raw exactly when the frame does not shrink, each frame the
 * one splitzip_compress() writes), the same bytes from every host backend, capacities,
 * arguments, and a receiver fed hostile streams: each damage gets its status from the spec,
 * and random damage never makes it read or write outside its buffers (destination pages sit
 * flush against guard pages). Runs on SPLITZIP_BACKEND_AUTO, so ci/run_tests.sh reruns it per
 * backend (SPLITZIP_FORCE_BACKEND).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages_util.h"
#include "splitzip.h"
#include "sz_guard.h"

static splitzip_ctx *ctx_with(splitzip_backend_id be, unsigned log2, unsigned flags,
                              const uint8_t *codebook)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = be;
	p.chunk_log2 = log2;
	p.flags = flags;
	if (codebook) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(p.codebook.exponents, codebook, 16);
	}
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	return ctx;
}

static size_t max_bytes(const pu_pages *l)
{
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++)
		m = l->bytes[i] > m ? l->bytes[i] : m;
	return m;
}

/* The stream of 'l' in an exact-size malloc'ed buffer. */
static uint8_t *pack(splitzip_ctx *ctx, const pu_pages *l, uint32_t id, size_t *size)
{
	const size_t cap = splitzip_pages_bound(l->n, max_bytes(l));
	ck_assert_uint_gt(cap, 0);
	uint8_t *s = malloc(cap);
	ck_assert_int_eq(splitzip_pages_compress(ctx, id, l->n, (const void *const *)l->p, l->bytes,
	                                         s, cap, size),
	                 SPLITZIP_OK);
	ck_assert_uint_le(*size, cap);
	uint8_t *exact = malloc(*size);
	memcpy(exact, s, *size);
	free(s);
	return exact;
}

/* Destination pages flush against guard pages (capacity caps[i] each). */
typedef struct dst_pages {
	size_t n;
	sz_guard_buf *g;
	void **p;
	size_t *caps;
	size_t *sizes;
} dst_pages;

static dst_pages dst_alloc(size_t n, const size_t *caps)
{
	dst_pages d;
	d.n = n;
	d.g = calloc(n ? n : 1, sizeof *d.g);
	d.p = calloc(n ? n : 1, sizeof *d.p);
	d.caps = calloc(n ? n : 1, sizeof *d.caps);
	d.sizes = calloc(n ? n : 1, sizeof *d.sizes);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(sz_guard_alloc(&d.g[i], caps[i], SZ_GUARD_END), 0);
		d.p[i] = d.g[i].ptr;
		d.caps[i] = caps[i];
	}
	return d;
}

static void dst_free(dst_pages *d)
{
	for (size_t i = 0; i < d->n; i++)
		sz_guard_free(&d->g[i]);
	free(d->g);
	free(d->p);
	free(d->caps);
	free(d->sizes);
}

static splitzip_status unpack(splitzip_ctx *ctx, const uint8_t *s, size_t size, dst_pages *d,
                              size_t *n_out)
{
	return splitzip_pages_decompress(ctx, s, size, d->n, d->p, d->caps, d->sizes, n_out);
}

/* Round trip 'l' through a stream; checks every layout rule. Returns the stream. */
static uint8_t *roundtrip(splitzip_ctx *ctx, const pu_pages *l, uint32_t id, size_t *size)
{
	uint8_t *s = pack(ctx, l, id, size);
	dst_pages d = dst_alloc(l->n, l->bytes);
	size_t n_out = 999;
	ck_assert_int_eq(unpack(ctx, s, *size, &d, &n_out), SPLITZIP_OK);
	ck_assert_uint_eq(n_out, l->n);
	for (size_t i = 0; i < l->n; i++) {
		ck_assert_uint_eq(d.sizes[i], l->bytes[i]);
		ck_assert_msg(memcmp(d.p[i], l->p[i], l->bytes[i]) == 0, "page %zu differs", i);
	}
	dst_free(&d);

	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(s, 64, &info), SPLITZIP_OK);
	ck_assert_uint_eq(info.n_pages, l->n);
	ck_assert_uint_eq(info.stream_size, *size);
	splitzip_page_entry *e = calloc(l->n + 1, sizeof *e);
	uint64_t n = 0, total = 0, end = 64 + 32 * (uint64_t)l->n;
	ck_assert_int_eq(splitzip_pages_get_manifest(s, *size, e, l->n, &n), SPLITZIP_OK);
	ck_assert_uint_eq(n, l->n);
	for (size_t i = 0; i < l->n; i++) {
		const uint64_t want = (end + 255) / 256 * 256;
		ck_assert_uint_eq(e[i].offset, want); /* the offset chain, 256-aligned */
		for (uint64_t k = end; k < want; k++)
			ck_assert_uint_eq(s[k], 0);
		ck_assert_uint_eq(e[i].page_bytes, l->bytes[i]);
		/* raw exactly when the page's own frame is no smaller */
		size_t fcap = splitzip_compress_bound(l->bytes[i] / 2), fsize = 0;
		uint8_t *f = malloc(fcap);
		ck_assert_int_eq(splitzip_compress(ctx, (const uint16_t *)l->p[i], l->bytes[i] / 2,
		                                   f, fcap, &fsize),
		                 SPLITZIP_OK);
		if (fsize < l->bytes[i]) {
			ck_assert_uint_eq(e[i].encoding, SPLITZIP_PAGE_FRAME);
			ck_assert_uint_eq(e[i].length, fsize);
			ck_assert_msg(memcmp(s + e[i].offset, f, fsize) == 0, "frame %zu", i);
		} else {
			ck_assert_uint_eq(e[i].encoding, SPLITZIP_PAGE_RAW);
			ck_assert_uint_eq(e[i].length, l->bytes[i]);
			ck_assert(memcmp(s + e[i].offset, l->p[i], l->bytes[i]) == 0);
		}
		free(f);
		end = e[i].offset + e[i].length;
		total += l->bytes[i];
	}
	ck_assert_uint_eq(end, *size);
	ck_assert_uint_eq(info.total_page_bytes, total);
	free(e);
	return s;
}

/* ---- Round trips ---------------------------------------------------------------------------- */

START_TEST(real_kv_pages)
{
	/* 16 tokens x 8 KV heads x 128 dims of BF16: 32 KiB pages, K and V alternating. */
	pu_pages l = pu_make_kv(37, 32768, 1);
	splitzip_ctx *ctx =
	    ctx_with(SPLITZIP_BACKEND_AUTO, 12, SPLITZIP_FLAG_CONTENT_CHECKSUM, NULL);
	size_t size = 0, raw = 37 * 32768;
	free(roundtrip(ctx, &l, 0, &size));
	ck_assert_msg((double)raw / (double)size > 1.30, "ratio %.3f", (double)raw / size);
	splitzip_ctx_free(ctx);

	/* A codebook calibrated once, named by an id in the header. */
	splitzip_codebook cb;
	ck_assert_int_eq(splitzip_calibrate((const uint16_t *)l.p[0], 16384, &cb), SPLITZIP_OK);
	ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 10, 0, cb.exponents);
	uint8_t *s = roundtrip(ctx, &l, 0xC0DEB00Cu, &size);
	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(s, size, &info), SPLITZIP_OK);
	ck_assert_uint_eq(info.flags, SPLITZIP_PAGES_FLAG_FIXED_CODEBOOK);
	ck_assert_uint_eq(info.codebook_id, 0xC0DEB00Cu);
	ck_assert(memcmp(info.codebook.exponents, cb.exponents, 16) == 0);
	free(s);
	splitzip_ctx_free(ctx);
	pu_free(&l);
}
END_TEST

START_TEST(mixed_pages)
{
	static const size_t sizes[] = {0,    2,     64,    120,   128,  242, 4096,
	                               8190, 30000, 32768, 65538, 2048, 0,   131074};
	const size_t n = sizeof sizes / sizeof sizes[0];
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		pu_pages l = pu_make(sizes, n, g, 5 + (uint64_t)g);
		splitzip_ctx *ctx =
		    ctx_with(SPLITZIP_BACKEND_AUTO, 10 + (unsigned)g % 7, (unsigned)g & 1, NULL);
		size_t size = 0;
		free(roundtrip(ctx, &l, 0, &size));
		splitzip_ctx_free(ctx);
		pu_free(&l);
	}
	/* No pages at all: the header alone. */
	pu_pages none = pu_make(NULL, 0, 0, 0);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 12, 0, NULL);
	size_t size = 0;
	free(roundtrip(ctx, &none, 0, &size));
	ck_assert_uint_eq(size, 64);
	splitzip_ctx_free(ctx);
	pu_free(&none);
}
END_TEST

/* Every host backend, and every thread count, writes the same stream. */
START_TEST(same_bytes_every_backend)
{
	static const size_t sizes[] = {32768, 100, 65536, 4098, 0, 32768, 262144};
	pu_pages l = pu_make(sizes, 7, -2, 3);
	sz_test_generate(SZ_GEN_RANDOM, 1, (uint16_t *)l.p[2], 65536 / 2); /* one raw page */
	uint8_t *ref = NULL;
	size_t ref_size = 0;
	for (size_t b = 0; b < splitzip_backend_count(); b++) {
		splitzip_backend_id id = splitzip_backend_id_of(b);
		if (!splitzip_backend_available(b) || id == SPLITZIP_BACKEND_CUDA ||
		    id == SPLITZIP_BACKEND_HIP)
			continue;
		for (unsigned threads = 1; threads <= 3; threads += 2) {
			splitzip_params p;
			splitzip_params_init(&p);
			p.backend = id;
			p.n_threads = threads;
			p.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
			splitzip_ctx *ctx = NULL;
			ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
			size_t size = 0;
			uint8_t *s = pack(ctx, &l, 0, &size);
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
	pu_free(&l);
}
END_TEST

START_TEST(capacity_and_bound)
{
	pu_pages l = pu_make_kv(9, 16384, 2);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 12, 0, NULL);
	size_t size = 0;
	uint8_t *s = pack(ctx, &l, 0, &size);
	uint8_t *d = malloc(size);
	size_t got = 0;
	ck_assert_int_eq(
	    splitzip_pages_compress(ctx, 0, l.n, (const void *const *)l.p, l.bytes, d, size, &got),
	    SPLITZIP_OK);
	ck_assert(got == size && memcmp(d, s, size) == 0);
	for (size_t cap = 0; cap < size; cap += cap < 600 ? 1 : 997)
		ck_assert_int_eq(splitzip_pages_compress(ctx, 0, l.n, (const void *const *)l.p,
		                                         l.bytes, d, cap, &got),
		                 SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, l.n, (const void *const *)l.p, l.bytes, d,
	                                         size - 1, &got),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_uint_eq(splitzip_pages_bound(0, 0), 256);
	ck_assert_uint_eq(splitzip_pages_bound(3, 1000), 256 + 3 * 1024);
	ck_assert_uint_eq(splitzip_pages_bound(7, 512), SPLITZIP_PAGES_BOUND(7, 512));
	ck_assert_uint_eq(splitzip_pages_bound(SPLITZIP_PAGES_MAX_PAGES + 1, 2), 0);
	ck_assert_uint_eq(splitzip_pages_bound(1, SPLITZIP_PAGES_MAX_PAGE_BYTES + 2), 0);
	ck_assert_uint_eq(splitzip_pages_bound(SIZE_MAX / 1024, 1 << 20), 0);
	free(d);
	free(s);
	splitzip_ctx_free(ctx);
	pu_free(&l);
}
END_TEST

START_TEST(arguments)
{
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 12, 0, NULL);
	uint16_t page[64] = {0};
	const void *pages[2] = {page, page};
	size_t bytes[2] = {128, 128}, got = 0;
	uint8_t out[1024];
	const splitzip_status inval = SPLITZIP_ERROR_INVALID_ARGUMENT;
	ck_assert_int_eq(splitzip_pages_compress(NULL, 0, 2, pages, bytes, out, 1024, &got), inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, NULL, bytes, out, 1024, &got), inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, NULL, out, 1024, &got), inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, bytes, NULL, 1024, &got), inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, bytes, out, 1024, NULL), inval);
	ck_assert_int_eq(splitzip_pages_compress(ctx, 7, 2, pages, bytes, out, 1024, &got), inval);
	bytes[1] = 127; /* odd */
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, bytes, out, 1024, &got), inval);
	bytes[1] = 126;
	pages[1] = (const uint8_t *)page + 1; /* misaligned */
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, bytes, out, 1024, &got), inval);
	pages[1] = NULL;
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, bytes, out, 1024, &got), inval);
	bytes[1] = 0; /* a NULL page of size 0 is fine */
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 2, pages, bytes, out, 1024, &got),
	                 SPLITZIP_OK);
	size_t n_out = 0;
	void *dp[2] = {page, NULL};
	size_t caps[2] = {128, 0};
	ck_assert_int_eq(splitzip_pages_decompress(ctx, out, got, 2, dp, caps, NULL, &n_out),
	                 SPLITZIP_OK);
	ck_assert_uint_eq(n_out, 2);
	ck_assert_int_eq(splitzip_pages_decompress(ctx, out, got, 2, dp, caps, NULL, NULL), inval);
	ck_assert_int_eq(splitzip_pages_decompress(NULL, out, got, 2, dp, caps, NULL, &n_out),
	                 inval);
	caps[1] = 2; /* NULL destination with room */
	ck_assert_int_eq(splitzip_pages_decompress(ctx, out, got, 2, dp, caps, NULL, &n_out),
	                 inval);
	ck_assert_int_eq(splitzip_pages_get_info(NULL, 64, NULL), inval);
	ck_assert_int_eq(splitzip_pages_get_manifest(out, got, NULL, 3, NULL), inval);
	splitzip_ctx_free(ctx);
}
END_TEST

/* Streams carry split4 frames (FORMAT.md §12.3): a context with another encoding cannot pack,
 * and an entropy frame in a frame page is damage (§12.5 step 9 g), found before any page is
 * written. */
START_TEST(entropy_frames)
{
	pu_pages l = pu_make_kv(1, 32768, 3);
	splitzip_params q;
	splitzip_params_init(&q);
	q.encoding = SPLITZIP_ENCODING_ENTROPY;
	splitzip_ctx *ectx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&q, &ectx), SPLITZIP_OK);
	const size_t cap = splitzip_pages_bound(1, 32768);
	uint8_t *s = (uint8_t *)calloc(1, cap);
	size_t size = 0;
	ck_assert_int_eq(
	    splitzip_pages_compress(ectx, 0, 1, (const void *const *)l.p, l.bytes, s, cap, &size),
	    SPLITZIP_ERROR_INVALID_ARGUMENT);
	/* The one page as an entropy frame at offset 256, behind a hand-made header. */
	size_t flen = 0;
	ck_assert_int_eq(
	    splitzip_compress(ectx, (const uint16_t *)l.p[0], 16384, s + 256, cap - 256, &flen),
	    SPLITZIP_OK);
	ck_assert_uint_eq(s[256 + 6], SPLITZIP_MODE_ENTROPY);
	ck_assert_uint_lt(flen, 32768);
	memcpy(s, "SZPG", 4);
	s[4] = 1;
	s[6] = 8;
	pu_put(s + 8, 1, 4);
	pu_put(s + 32, 256 + flen, 8);
	pu_put(s + 40, 32768, 8);
	pu_put(s + 64, 256, 8);
	pu_put(s + 72, flen, 8);
	pu_put(s + 80, 32768, 8);
	s[88] = SPLITZIP_PAGE_FRAME;
	pu_reseal(s, 256 + flen);
	uint64_t n = 0;
	ck_assert_int_eq(splitzip_pages_get_manifest(s, 256 + flen, NULL, 0, &n),
	                 SPLITZIP_ERROR_CORRUPT_STREAM);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 12, 0, NULL);
	uint16_t *page = (uint16_t *)malloc(32768);
	memset(page, 0xEE, 32768);
	void *dp[1] = {page};
	size_t caps[1] = {32768}, n_out = 7;
	ck_assert_int_eq(splitzip_pages_decompress(ctx, s, 256 + flen, 1, dp, caps, NULL, &n_out),
	                 SPLITZIP_ERROR_CORRUPT_STREAM);
	ck_assert_uint_eq(n_out, 0);
	ck_assert_uint_eq(page[0], 0xEEEE);
	free(page);
	free(s);
	splitzip_ctx_free(ctx);
	splitzip_ctx_free(ectx);
	pu_free(&l);
}
END_TEST

/* ---- The receiver: destinations ------------------------------------------------------------ */

START_TEST(destinations)
{
	static const size_t sizes[] = {4096, 8192, 100, 0, 4096};
	pu_pages l = pu_make(sizes, 5, -1, 9);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 12, 0, NULL);
	size_t size = 0, n_out = 0;
	uint8_t *s = pack(ctx, &l, 0, &size);
	/* Larger pages and more of them: fine, sizes and count reported. */
	size_t big[7] = {5000, 9000, 100, 64, 4096, 10, 10};
	dst_pages d = dst_alloc(7, big);
	ck_assert_int_eq(unpack(ctx, s, size, &d, &n_out), SPLITZIP_OK);
	ck_assert_uint_eq(n_out, 5);
	for (size_t i = 0; i < 7; i++)
		ck_assert_uint_eq(d.sizes[i], i < 5 ? sizes[i] : 0);
	dst_free(&d);
	/* Fewer destinations, or one page too small: DST_TOO_SMALL, nothing written. */
	d = dst_alloc(4, big);
	ck_assert_int_eq(unpack(ctx, s, size, &d, &n_out), SPLITZIP_ERROR_DST_TOO_SMALL);
	dst_free(&d);
	size_t small[5] = {4096, 8190, 100, 0, 4096};
	d = dst_alloc(5, small);
	ck_assert_int_eq(unpack(ctx, s, size, &d, &n_out), SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_uint_eq(n_out, 0);
	for (size_t k = 0; k < 4096; k++)
		ck_assert_uint_eq(((uint8_t *)d.p[0])[k], 0); /* page 0 untouched */
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

/* ---- The receiver: hostile streams --------------------------------------------------------- */

/* A stream with a frame page, a raw page, an empty page and a fixed codebook; and the status
 * its damaged copies must get (FORMAT.md §12.5). */
typedef struct damage {
	const char *what;
	void (*apply)(uint8_t *s, size_t *size);
	int reseal;
	splitzip_status want;
} damage;

/* Entry i's field at 'field' of the stream. */
static uint8_t *ent(uint8_t *s, unsigned i, unsigned field)
{
	return s + 64 + 32 * i + field;
}
static void d_magic(uint8_t *s, size_t *z)
{
	(void)z;
	s[1] ^= 1;
}
static void d_version0(uint8_t *s, size_t *z)
{
	(void)z;
	s[4] = 0;
}
static void d_version2(uint8_t *s, size_t *z)
{
	(void)z;
	s[4] = 2;
}
static void d_hcsum(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_SIZE] ^= 0x40;
}
static void d_flags(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_FLAGS] |= 0x80;
}
static void d_align(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_ALIGN] = 12;
}
static void d_res1(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_RES1 + 3] = 1;
}
static void d_codebook(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_CB + 5] = s[PG_CB + 4];
}
static void d_short_size(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + PG_SIZE, 64 + 32 * 3 - 1, 8);
}
static void d_truncate(uint8_t *s, size_t *z)
{
	(void)s;
	*z -= 1;
}
static void d_count(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + PG_COUNT, 0xFFFFFFFFu, 4); /* the manifest would end past the stream */
}
static void d_mcsum(uint8_t *s, size_t *z)
{
	(void)z;
	*ent(s, 1, PE_PAGE) ^= 2;
}
static void d_encoding(uint8_t *s, size_t *z)
{
	(void)z;
	*ent(s, 1, PE_ENC) = 2;
}
static void d_ent_reserved(uint8_t *s, size_t *z)
{
	(void)z;
	*ent(s, 2, PE_ENC + 6) = 1;
}
static void d_odd_page(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(ent(s, 1, PE_PAGE), pu_get(ent(s, 1, PE_PAGE), 8) + 1, 8);
	pu_put(ent(s, 1, PE_LENGTH), pu_get(ent(s, 1, PE_LENGTH), 8) + 1, 8);
}
static void d_offset(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(ent(s, 1, PE_OFFSET), pu_get(ent(s, 1, PE_OFFSET), 8) + 256, 8);
}
static void d_overlap(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(ent(s, 1, PE_OFFSET), pu_get(ent(s, 0, PE_OFFSET), 8), 8);
}
static void d_length(uint8_t *s, size_t *z)
{
	(void)z; /* a raw page's length is its size */
	pu_put(ent(s, 1, PE_LENGTH), pu_get(ent(s, 1, PE_LENGTH), 8) - 2, 8);
}
static void d_huge_length(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(ent(s, 0, PE_LENGTH), ~(uint64_t)0, 8);
}
static void d_frame_not_smaller(uint8_t *s, size_t *z)
{
	(void)z; /* the raw page claims to be a frame */
	*ent(s, 1, PE_ENC) = SPLITZIP_PAGE_FRAME;
}
static void d_padding(uint8_t *s, size_t *z)
{
	(void)z; /* between the manifest (160 bytes) and the first payload (256) */
	s[255] = 7;
}
static void d_frame_magic(uint8_t *s, size_t *z)
{
	(void)z;
	s[pu_get(ent(s, 0, PE_OFFSET), 8)] ^= 1;
}
static void d_frame_hcsum(uint8_t *s, size_t *z)
{
	(void)z;
	s[pu_get(ent(s, 0, PE_OFFSET), 8) + 20] ^= 1;
}
static void d_frame_body(uint8_t *s, size_t *z)
{
	(void)z; /* a sign/mantissa byte: only the content checksum sees it */
	s[pu_get(ent(s, 0, PE_OFFSET), 8) + 64 + 4096 + 100] ^= 1;
}
static void d_frame_nibble(uint8_t *s, size_t *z)
{
	(void)z; /* 4096 elements, one chunk: the chunk table ends at 6212, a zero gap follows */
	s[pu_get(ent(s, 0, PE_OFFSET), 8) + 6212] = 0xAA;
}
static void d_other_codebook(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_CB] -= 1; /* still ascending, but not the frames' */
}
static void d_total(uint8_t *s, size_t *z)
{
	(void)z;
	pu_put(s + PG_TOTAL, pu_get(s + PG_TOTAL, 8) + 2, 8);
}
static void d_longer(uint8_t *s, size_t *z)
{
	(void)z; /* claims bytes after the last payload: the buffer has them (see below) */
	pu_put(s + PG_SIZE, pu_get(s + PG_SIZE, 8) + 16, 8);
}
static void d_id_without_codebook(uint8_t *s, size_t *z)
{
	(void)z;
	s[PG_FLAGS] = 0;
	memset(s + PG_CB, 0, 16);
	s[PG_CB_ID] = 9;
}

static const damage k_damage[] = {
    {"magic", d_magic, 0, SPLITZIP_ERROR_BAD_MAGIC},
    {"version 0", d_version0, 0, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"version 2", d_version2, 0, SPLITZIP_ERROR_UNSUPPORTED_FORMAT},
    {"header checksum", d_hcsum, 0, SPLITZIP_ERROR_HEADER_CHECKSUM},
    {"flags", d_flags, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"align", d_align, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"reserved", d_res1, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"codebook order", d_codebook, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"id without codebook", d_id_without_codebook, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"stream size below manifest", d_short_size, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"truncated", d_truncate, 0, SPLITZIP_ERROR_TRUNCATED},
    {"page count", d_count, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"manifest checksum", d_mcsum, 0, SPLITZIP_ERROR_HEADER_CHECKSUM},
    {"encoding", d_encoding, 1, SPLITZIP_ERROR_UNSUPPORTED_FORMAT},
    {"entry reserved", d_ent_reserved, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"odd page", d_odd_page, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"offset", d_offset, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"overlap", d_overlap, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"raw length", d_length, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"huge length", d_huge_length, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"frame not smaller", d_frame_not_smaller, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"padding", d_padding, 0, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"frame magic", d_frame_magic, 0, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"frame header checksum", d_frame_hcsum, 0, SPLITZIP_ERROR_HEADER_CHECKSUM},
    {"frame body", d_frame_body, 0, SPLITZIP_ERROR_CONTENT_CHECKSUM},
    {"frame gap", d_frame_nibble, 0, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"codebook mismatch", d_other_codebook, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"total", d_total, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
    {"longer", d_longer, 1, SPLITZIP_ERROR_CORRUPT_STREAM},
};

/* Page 0: real K (a frame), page 1: random (raw), page 2: empty; a fixed codebook. */
static uint8_t *hostile_base(splitzip_ctx **ctx, pu_pages *l, size_t *size)
{
	static const size_t sizes[] = {8192, 2000, 0};
	*l = pu_make(sizes, 3, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l->p[1], 1000);
	splitzip_codebook cb;
	ck_assert_int_eq(splitzip_calibrate((const uint16_t *)l->p[0], 4096, &cb), SPLITZIP_OK);
	*ctx = ctx_with(SPLITZIP_BACKEND_AUTO, 12, SPLITZIP_FLAG_CONTENT_CHECKSUM, cb.exponents);
	return pack(*ctx, l, 77, size);
}

START_TEST(hostile_statuses)
{
	splitzip_ctx *ctx;
	pu_pages l;
	size_t size;
	uint8_t *base = hostile_base(&ctx, &l, &size);
	splitzip_page_entry e[3];
	ck_assert_int_eq(splitzip_pages_get_manifest(base, size, e, 3, NULL), SPLITZIP_OK);
	ck_assert(e[0].encoding == SPLITZIP_PAGE_FRAME && e[1].encoding == SPLITZIP_PAGE_RAW);
	for (size_t k = 0; k < sizeof k_damage / sizeof k_damage[0]; k++) {
		const damage *d = &k_damage[k];
		uint8_t *s = calloc(size + 64, 1);
		memcpy(s, base, size);
		size_t z = size;
		d->apply(s, &z);
		if (d->reseal)
			pu_reseal(s, z);
		sz_guard_buf in;
		ck_assert_int_eq(
		    sz_guard_dup(&in, s, z + (d->apply == d_longer ? 16 : 0), SZ_GUARD_END), 0);
		dst_pages dp = dst_alloc(3, l.bytes);
		size_t n_out = 5;
		splitzip_status st = unpack(ctx, in.ptr, in.size, &dp, &n_out);
		ck_assert_msg(st == d->want, "%s: got %s, want %s", d->what,
		              splitzip_status_name(st), splitzip_status_name(d->want));
		ck_assert_uint_eq(n_out, 0);
		for (size_t i = 0; i < 3; i++)
			ck_assert_uint_eq(dp.sizes[i], 0);
		/* Structural damage is also what get_manifest reports. */
		splitzip_status ms = splitzip_pages_get_manifest(in.ptr, in.size, NULL, 0, NULL);
		if (d->want != SPLITZIP_ERROR_CONTENT_CHECKSUM && d->apply != d_frame_nibble)
			ck_assert_msg(ms == d->want, "%s: get_manifest %s", d->what,
			              splitzip_status_name(ms));
		else
			ck_assert_int_eq(ms, SPLITZIP_OK);
		dst_free(&dp);
		sz_guard_free(&in);
		free(s);
	}
	/* Short inputs: a prefix of the magic is truncated, anything else is not a stream. */
	ck_assert_int_eq(splitzip_pages_get_manifest(base, 3, NULL, 0, NULL),
	                 SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(splitzip_pages_get_manifest(base, 63, NULL, 0, NULL),
	                 SPLITZIP_ERROR_TRUNCATED);
	ck_assert_int_eq(splitzip_pages_get_manifest("SZPX", 4, NULL, 0, NULL),
	                 SPLITZIP_ERROR_BAD_MAGIC);
	ck_assert_int_eq(splitzip_pages_get_manifest(base, 0, NULL, 0, NULL),
	                 SPLITZIP_ERROR_TRUNCATED);
	free(base);
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

/* Random damage, resealed or not, anywhere: a decoding status, no access outside the input
 * or the destination pages (guard pages), nothing reported written on failure. */
START_TEST(hostile_random)
{
	splitzip_ctx *ctx;
	pu_pages l;
	size_t size;
	uint8_t *base = hostile_base(&ctx, &l, &size);
	uint64_t seed = 4242;
	for (int k = 0; k < 3000; k++) {
		uint8_t *s = malloc(size);
		memcpy(s, base, size);
		size_t z = size;
		const uint64_t r = sz_test_rand(&seed);
		const size_t head = 64 + 3 * 32;
		switch (k % 5) {
		case 0: /* header or manifest byte, resealed so the checks behind the checksums run
		         */
			s[r % head] = (uint8_t)(r >> 20);
			pu_reseal(s, z);
			break;
		case 1: /* a manifest u64 field set to a value near an edge, resealed */
			pu_put(s + 64 + 8 * ((r >> 8) % 12),
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
		sz_guard_buf in;
		ck_assert_int_eq(sz_guard_dup(&in, s, z, SZ_GUARD_END), 0);
		dst_pages dp = dst_alloc(3, l.bytes);
		size_t n_out = 0;
		splitzip_status st = unpack(ctx, in.ptr, in.size, &dp, &n_out);
		ck_assert_msg(is_decode_status(st), "mutation %d: %s", k, splitzip_status_name(st));
		ck_assert(st == SPLITZIP_OK ? n_out == 3 : n_out == 0);
		dst_free(&dp);
		sz_guard_free(&in);
		free(s);
	}
	free(base);
	splitzip_ctx_free(ctx);
	pu_free(&l);
}
END_TEST

static Suite *pages_suite(void)
{
	Suite *s = suite_create("pages");
	TCase *t = tcase_create("roundtrip");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, real_kv_pages);
	tcase_add_test(t, mixed_pages);
	tcase_add_test(t, same_bytes_every_backend);
	tcase_add_test(t, capacity_and_bound);
	tcase_add_test(t, arguments);
	tcase_add_test(t, entropy_frames);
	suite_add_tcase(s, t);
	TCase *h = tcase_create("receiver");
	tcase_set_timeout(h, 300);
	tcase_add_test(h, destinations);
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
