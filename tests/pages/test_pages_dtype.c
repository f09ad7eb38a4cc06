/*
 * test_pages_dtype.c -- page streams of the dtypes FP8 E4M3, FP8 E5M2, FP16 and FP32
 * (splitzip_pages_compress_dtype(), doc/FORMAT.md §12, version 3) on the host: round trips of
 * every dtype in every encoding, chunk size and checksum setting on KV-like pages of the sizes
 * engines use, with empty, tiny and incompressible pages among them; every encoding's stream
 * against the one built from its two candidates (auto = the smaller, split4 on a tie); the
 * same bytes from every host backend; the header, manifest and bound; a stream of two frames;
 * the arguments and their errors; destinations (alignment, geometry, room) and the page states
 * when a frame fails; and random damage, which never makes the receiver read outside the
 * stream or write outside its pages (guard pages), nor report a changed page untouched. The
 * golden streams of tests/vectors/dtypes/pages (written from the text alone) are checked by
 * tests/vectors/test_dtype_vectors.c. Runs on SPLITZIP_BACKEND_AUTO, so ci/run_tests.sh reruns
 * it per forced backend.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pages_util.h"
#include "splitzip.h"
#include "sz_guard.h"

static const unsigned k_dtypes[4] = {SPLITZIP_DTYPE_FP8_E4M3, SPLITZIP_DTYPE_FP8_E5M2,
                                     SPLITZIP_DTYPE_FP16, SPLITZIP_DTYPE_FP32};

static uint64_t rnd(uint64_t *s)
{
	*s += 0x9E3779B97F4A7C15ull;
	uint64_t z = *s;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Exponent bits and element width of a dtype. */
static unsigned ebits(unsigned dt)
{
	return dt == SPLITZIP_DTYPE_FP8_E4M3 ? 4 : dt == SPLITZIP_DTYPE_FP32 ? 8 : 5;
}

/*
 * One element of a KV-like tensor of dtype dt: random sign and mantissa, an exponent drawn
 * around a centre with geometric tails (as in real K/V, FORMAT.md §2); 'noise' gives uniform
 * random patterns instead (pages that go raw).
 */
static uint32_t element(unsigned dt, uint64_t *s, int noise)
{
	const uint64_t r = rnd(s);
	const unsigned w = (unsigned)splitzip_dtype_width(dt), e = ebits(dt);
	const unsigned bits = 8 * w, m = bits - 1 - e;
	if (noise)
		return (uint32_t)(bits == 32 ? r : r & ((1ull << bits) - 1));
	const unsigned centre = (1u << (e - 1)) - 2;
	int x = (int)centre - (int)__builtin_ctzll((r >> 20) | (1ull << 12)) + (int)((r >> 40) & 1);
	if (x < 0)
		x = 0;
	const uint32_t mant = (uint32_t)(r & ((1ull << m) - 1));
	return (uint32_t)((((r >> 60) & 1) << (bits - 1)) | ((uint64_t)x << m) | mant);
}

/* n pages of bytes[i] bytes of dtype dt: KV-like, page 'noisy' (if < n) random patterns. */
typedef struct dpages {
	size_t n;
	uint8_t **p;
	size_t *bytes;
} dpages;

static dpages make(unsigned dt, const size_t *elems, size_t n, size_t noisy, uint64_t seed)
{
	const size_t w = splitzip_dtype_width(dt);
	dpages l = {n, calloc(n + 1, sizeof(uint8_t *)), calloc(n + 1, sizeof(size_t))};
	for (size_t i = 0; i < n; i++) {
		l.bytes[i] = elems[i] * w;
		l.p[i] = elems[i] ? malloc(l.bytes[i]) : NULL;
		for (size_t k = 0; k < elems[i]; k++) {
			const uint32_t v = element(dt, &seed, i == noisy);
			memcpy(l.p[i] + k * w, &v, w); /* little-endian host (x86-64, AArch64) */
		}
	}
	return l;
}

static void dfree(dpages *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->p[i]);
	free(l->p);
	free(l->bytes);
}

static size_t max_bytes(const dpages *l)
{
	size_t m = 0;
	for (size_t i = 0; i < l->n; i++)
		m = l->bytes[i] > m ? l->bytes[i] : m;
	return m;
}

static splitzip_ctx *ctx_with(splitzip_backend_id be, splitzip_encoding enc, unsigned log2)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = be;
	p.encoding = enc;
	p.chunk_log2 = log2;
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	return ctx;
}

/* The stream of l (asserted OK), in a buffer of the bound's size. */
static uint8_t *pack(splitzip_ctx *ctx, unsigned dt, const dpages *l, unsigned options,
                     size_t *size)
{
	const size_t cap = splitzip_pages_bound_dtype(dt, l->n, max_bytes(l));
	ck_assert_uint_gt(cap, 0);
	uint8_t *s = malloc(cap);
	splitzip_status st = splitzip_pages_compress_dtype(
	    ctx, dt, 0, options, l->n, (const void *const *)l->p, l->bytes, s, cap, size);
	ck_assert_msg(st == SPLITZIP_OK, "dtype %u: %s", dt, splitzip_status_name(st));
	ck_assert_uint_le(*size, cap);
	return s;
}

/* Decodes s into fresh pages at odd addresses (any alignment is allowed for these dtypes),
 * with exact geometry, and compares them with l: every page written, of its size. */
static void unpack_check(splitzip_ctx *ctx, const uint8_t *s, size_t size, const dpages *l)
{
	uint8_t **d = calloc(l->n + 1, sizeof *d), *states = calloc(l->n + 1, 1);
	size_t *sizes = calloc(l->n + 1, sizeof *sizes), n_out = 0;
	for (size_t i = 0; i < l->n; i++)
		d[i] = (uint8_t *)malloc(l->bytes[i] + 1) + 1;
	splitzip_status st =
	    splitzip_pages_decompress(ctx, s, size, l->n, (void *const *)d, l->bytes,
	                              SPLITZIP_PAGES_EXACT, sizes, states, &n_out);
	ck_assert_msg(st == SPLITZIP_OK, "%s", splitzip_status_name(st));
	ck_assert_uint_eq(n_out, l->n);
	for (size_t i = 0; i < l->n; i++) {
		ck_assert_uint_eq(sizes[i], l->bytes[i]);
		ck_assert_uint_eq(states[i], SPLITZIP_PAGE_WRITTEN);
		ck_assert_msg(l->bytes[i] == 0 || memcmp(d[i], l->p[i], l->bytes[i]) == 0,
		              "page %zu differs", i);
		free(d[i] - 1);
	}
	free(d);
	free(states);
	free(sizes);
}

/* ---- Round trips ---------------------------------------------------------------------------- */

/* Engine-like pages: 16 of 1-2 KiB of elements, an empty one, a 1-element one and a random
 * one, with every encoding, two chunk sizes and both checksum settings: the stream decodes to
 * the pages; auto is the smaller of split4 and entropy (split4 on a tie; entropy for E4M3);
 * the header says version 3 and the dtype; the stream is at most the bound and smaller than
 * the pages. */
START_TEST(round_trips)
{
	const unsigned dt = k_dtypes[_i];
	size_t elems[20];
	for (size_t i = 0; i < 20; i++)
		elems[i] = 1024 + 64 * (i % 5);
	elems[3] = 0;
	elems[7] = 1;
	elems[11] = 1152;
	dpages l = make(dt, elems, 20, 13, 77 + dt);
	size_t total = 0;
	for (size_t i = 0; i < l.n; i++)
		total += l.bytes[i];
	static const unsigned log2s[2] = {10, 16};
	for (unsigned c = 0; c < 2; c++)
		for (unsigned k = 0; k < 2; k++) {
			size_t sz[3] = {0, 0, 0};
			uint8_t *s[3] = {NULL, NULL, NULL};
			const unsigned opt = k ? SPLITZIP_PAGES_NO_CHECKSUM : 0;
			for (unsigned e = 0; e < 3; e++) {
				const splitzip_encoding enc = (splitzip_encoding)e;
				if (enc == SPLITZIP_ENCODING_SPLIT4 &&
				    dt == SPLITZIP_DTYPE_FP8_E4M3)
					continue;
				splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, enc, log2s[c]);
				s[e] = pack(ctx, dt, &l, opt, &sz[e]);
				splitzip_pages_info info;
				ck_assert_int_eq(splitzip_pages_get_info(s[e], sz[e], &info),
				                 SPLITZIP_OK);
				ck_assert_uint_eq(info.format_version, 3);
				ck_assert_uint_eq(info.dtype, dt);
				ck_assert_uint_eq(info.n_pages, l.n);
				ck_assert_uint_eq(info.total_page_bytes, total);
				ck_assert_uint_eq(info.stream_size, sz[e]);
				ck_assert_uint_eq(info.chunk_log2, log2s[c]);
				ck_assert_uint_eq(info.flags & SPLITZIP_PAGES_FLAG_CHECKSUM,
				                  k ? 0 : 1);
				ck_assert_uint_lt(sz[e], total);
				unpack_check(ctx, s[e], sz[e], &l);
				splitzip_ctx_free(ctx);
			}
			const int e4m3 = dt == SPLITZIP_DTYPE_FP8_E4M3;
			const unsigned best = e4m3 || sz[1] < sz[0] ? 1u : 0u;
			ck_assert_msg(sz[2] == sz[best] && memcmp(s[2], s[best], sz[2]) == 0,
			              "dtype %u: auto is not the smaller candidate", dt);
			for (unsigned e = 0; e < 3; e++)
				free(s[e]);
		}
	dfree(&l);
}
END_TEST

/* The random page goes raw, the KV pages do not; the manifest's positions follow the sizes. */
START_TEST(raw_pages_and_manifest)
{
	const unsigned dt = k_dtypes[_i];
	const size_t w = splitzip_dtype_width(dt);
	static const size_t elems[6] = {2048, 0, 2048, 1000, 2048, 3};
	dpages l = make(dt, elems, 6, 2, 5);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, SPLITZIP_ENCODING_ENTROPY, 0);
	size_t size;
	uint8_t *s = pack(ctx, dt, &l, 0, &size);
	splitzip_page_entry e[6];
	uint64_t n = 0;
	ck_assert_int_eq(splitzip_pages_get_manifest(s, size, e, 6, &n), SPLITZIP_OK);
	ck_assert_uint_eq(n, 6);
	uint64_t coded = 0, raw = 0;
	for (size_t i = 0; i < 6; i++) {
		ck_assert_uint_eq(e[i].page_bytes, elems[i] * w);
		if (e[i].encoding == SPLITZIP_PAGE_RAW) {
			ck_assert_uint_eq(e[i].position, raw);
			raw += e[i].page_bytes;
		} else {
			ck_assert_uint_eq(e[i].position, coded);
			coded += elems[i];
		}
	}
	ck_assert_uint_eq(e[2].encoding, SPLITZIP_PAGE_RAW);   /* random bits */
	ck_assert_uint_eq(e[1].encoding, SPLITZIP_PAGE_RAW);   /* no elements */
	ck_assert_uint_eq(e[0].encoding, SPLITZIP_PAGE_FRAME); /* KV-like */
	ck_assert_uint_eq(e[4].encoding, SPLITZIP_PAGE_FRAME);
	unpack_check(ctx, s, size, &l);
	free(s);
	splitzip_ctx_free(ctx);
	dfree(&l);
}
END_TEST

/* The split4 raw rule at its edge (FORMAT.md §12.4 step 2, 1.3: raw when 24 E >= (e - 4) n):
 * with the codebook of exponents 8-23, a page of (e - 4) 24 / gcd elements with its escapes
 * exactly at the edge is raw, one element more is coded. FP16: 24 elements and 1 escape vs 25;
 * FP32: 6 and 1 vs 7. */
START_TEST(split4_raw_edge)
{
	const unsigned dt = _i ? SPLITZIP_DTYPE_FP32 : SPLITZIP_DTYPE_FP16;
	const unsigned w = (unsigned)splitzip_dtype_width(dt), m = 8 * w - 1 - ebits(dt);
	const size_t edge = _i ? 6 : 24;
	const size_t elems[3] = {4096, edge, edge + 1};
	dpages l = make(dt, elems, 3, 9, 1);
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < elems[i]; k++) {
			const uint32_t x = i && k == 0 ? 30u : 8u + (uint32_t)(k % 16);
			const uint32_t v = (x << m) | (uint32_t)(k & 3);
			memcpy(l.p[i] + w * k, &v, w);
		}
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, SPLITZIP_ENCODING_SPLIT4, 0);
	size_t size;
	uint8_t *s = pack(ctx, dt, &l, 0, &size);
	splitzip_page_entry e[3];
	ck_assert_int_eq(splitzip_pages_get_manifest(s, size, e, 3, NULL), SPLITZIP_OK);
	ck_assert_uint_eq(e[0].encoding, SPLITZIP_PAGE_FRAME);
	ck_assert_uint_eq(e[1].encoding, SPLITZIP_PAGE_RAW);
	ck_assert_uint_eq(e[2].encoding, SPLITZIP_PAGE_FRAME);
	unpack_check(ctx, s, size, &l);
	free(s);
	splitzip_ctx_free(ctx);
	dfree(&l);
}
END_TEST

/* Every host backend writes the same bytes (the codec is portable; the entropy exponent
 * streams decode on each backend's kernels), and decodes every backend's stream. */
START_TEST(same_bytes_every_backend)
{
	const unsigned dt = k_dtypes[_i];
	static const size_t elems[5] = {4096, 2048, 0, 777, 1152};
	dpages l = make(dt, elems, 5, 9, 31);
	for (unsigned e = 0; e < 3; e++) {
		const splitzip_encoding enc = (splitzip_encoding)e;
		if (enc == SPLITZIP_ENCODING_SPLIT4 && dt == SPLITZIP_DTYPE_FP8_E4M3)
			continue;
		uint8_t *ref = NULL;
		size_t ref_size = 0;
		for (size_t i = 0; i < splitzip_backend_count(); i++) {
			if (!splitzip_backend_available(i))
				continue;
			splitzip_params p;
			splitzip_params_init(&p);
			p.backend = splitzip_backend_id_of(i);
			p.encoding = enc;
			splitzip_ctx *ctx = NULL;
			if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK)
				continue; /* a device backend */
			size_t size;
			uint8_t *s = pack(ctx, dt, &l, 0, &size);
			if (!ref) {
				ref = s;
				ref_size = size;
			} else {
				ck_assert_msg(size == ref_size && memcmp(s, ref, size) == 0,
				              "dtype %u [%s]: other bytes", dt,
				              splitzip_backend_name(i));
				free(s);
			}
			unpack_check(ctx, ref, ref_size, &l);
			splitzip_ctx_free(ctx);
		}
		free(ref);
	}
	dfree(&l);
}
END_TEST

/* More than 2^24 coded elements: two frames, the second one short; a frame that fails leaves
 * the pages before it written, those it covers damaged, the rest (and the raw pages)
 * untouched. */
START_TEST(two_frames_and_states)
{
	const unsigned dt = SPLITZIP_DTYPE_FP8_E5M2;
	size_t elems[20];
	for (size_t i = 0; i < 20; i++)
		elems[i] = (size_t)1 << 20; /* 16 pages fill frame 0 exactly */
	elems[17] = 4096;
	dpages l = make(dt, elems, 20, 19, 3);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, SPLITZIP_ENCODING_ENTROPY, 0);
	size_t size;
	uint8_t *s = pack(ctx, dt, &l, 0, &size);
	unpack_check(ctx, s, size, &l);
	/* frame 1 starts where frame 0 ends: damage a byte inside its body */
	const size_t f0 = pu_align64(64 + 4 * 20);
	const uint64_t f1 = f0 + pu_get(s + f0 + 40, 8) /* Frame_Size, FORMAT.md §3.1 */;
	ck_assert_uint_lt(f1 + 200, size);
	s[f1 + 150] ^= 0x10;
	uint8_t **d = calloc(20, sizeof *d), states[20];
	for (size_t i = 0; i < 20; i++)
		d[i] = malloc(l.bytes[i]);
	size_t n_out = 0;
	splitzip_status st = splitzip_pages_decompress(ctx, s, size, 20, (void *const *)d, l.bytes,
	                                               0, NULL, states, &n_out);
	ck_assert(st == SPLITZIP_ERROR_CONTENT_CHECKSUM || st == SPLITZIP_ERROR_CORRUPT_STREAM);
	ck_assert_uint_eq(n_out, 0);
	for (size_t i = 0; i < 16; i++) {
		ck_assert_uint_eq(states[i], SPLITZIP_PAGE_WRITTEN);
		ck_assert(memcmp(d[i], l.p[i], l.bytes[i]) == 0);
	}
	ck_assert_uint_eq(states[16], SPLITZIP_PAGE_DAMAGED);
	ck_assert_uint_eq(states[17], SPLITZIP_PAGE_DAMAGED);
	ck_assert_uint_eq(states[18], SPLITZIP_PAGE_DAMAGED);
	ck_assert_uint_eq(states[19], SPLITZIP_PAGE_UNTOUCHED); /* raw */
	for (size_t i = 0; i < 20; i++)
		free(d[i]);
	free(d);
	free(s);
	splitzip_ctx_free(ctx);
	dfree(&l);
}
END_TEST

/* ---- Arguments, tables and destinations ------------------------------------------------------ */

START_TEST(arguments)
{
	static const size_t elems[3] = {512, 256, 0};
	dpages l = make(SPLITZIP_DTYPE_FP32, elems, 3, 9, 1);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, SPLITZIP_ENCODING_SPLIT4, 0);
	const size_t cap = splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP32, 3, 2048);
	uint8_t *s = malloc(cap);
	size_t size = 0;
	const void *const *pp = (const void *const *)l.p;
	/* an unknown dtype; a page that is not whole elements; unknown options */
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, 0, 0, 0, 3, pp, l.bytes, s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, 6, 0, 0, 3, pp, l.bytes, s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	size_t odd[3] = {2046, 1024, 0};
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP32, 0, 0, 3, pp, odd,
	                                               s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP32, 0, 4, 3, pp,
	                                               l.bytes, s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	/* a table id without a fixed table */
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP32, 7, 0, 3, pp,
	                                               l.bytes, s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	/* E4M3 has no split4 mode (its page sizes are whole elements of any size) */
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP8_E4M3, 0, 0, 3, pp,
	                                               l.bytes, s, cap, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	/* one byte less of room than the stream: DST_TOO_SMALL, every encoding */
	for (unsigned e = 0; e < 3; e++) {
		splitzip_ctx *c2 = ctx_with(SPLITZIP_BACKEND_AUTO, (splitzip_encoding)e, 0);
		ck_assert_int_eq(splitzip_pages_compress_dtype(c2, SPLITZIP_DTYPE_FP32, 0, 0, 3, pp,
		                                               l.bytes, s, cap, &size),
		                 SPLITZIP_OK);
		size_t again = 0;
		ck_assert_int_eq(splitzip_pages_compress_dtype(c2, SPLITZIP_DTYPE_FP32, 0, 0, 3, pp,
		                                               l.bytes, s, size - 1, &again),
		                 SPLITZIP_ERROR_DST_TOO_SMALL);
		splitzip_ctx_free(c2);
	}
	/* bounds: BF16's for BF16 and FP16, more frames per byte for FP8, fewer for FP32 */
	ck_assert_uint_eq(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_BF16, 9, 4096),
	                  splitzip_pages_bound(9, 4096));
	ck_assert_uint_eq(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP16, 9, 4096),
	                  splitzip_pages_bound(9, 4096));
	ck_assert_uint_eq(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP8_E5M2, 1, (size_t)1 << 26),
	                  128 + ((size_t)1 << 26) + 80 * 4 + 144);
	ck_assert_uint_eq(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP32, 1, (size_t)1 << 26),
	                  128 + ((size_t)1 << 26) + 80 + 144);
	ck_assert_uint_eq(splitzip_pages_bound_dtype(0, 1, 64), 0);
	ck_assert_uint_eq(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP8_E4M3, 1, 0x80000000u), 0);
	ck_assert_uint_gt(splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP32, 1, 0x80000000u), 0);
	free(s);
	splitzip_ctx_free(ctx);
	dfree(&l);
}
END_TEST

/* Fixed tables: valid ones name the stream (Fixed_Table_Flag, Table_Id) and round-trip; a
 * codebook or table with an exponent the dtype does not have is BAD_CODEBOOK. */
START_TEST(fixed_tables)
{
	static const size_t elems[4] = {2048, 2048, 1024, 5};
	dpages l = make(SPLITZIP_DTYPE_FP16, elems, 4, 9, 8);
	const size_t cap = splitzip_pages_bound_dtype(SPLITZIP_DTYPE_FP16, 4, 4096);
	uint8_t *s = malloc(cap);
	size_t size = 0;
	splitzip_params p;
	for (int bad = 0; bad < 2; bad++) {
		splitzip_params_init(&p);
		p.encoding = SPLITZIP_ENCODING_SPLIT4;
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (unsigned k = 0; k < 16; k++)
			p.codebook.exponents[k] =
			    (uint8_t)(bad ? 20 + k : 2 + k); /* 35: not FP16 */
		splitzip_ctx *ctx = NULL;
		ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
		splitzip_status st =
		    splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, 99, 0, 4,
		                                  (const void *const *)l.p, l.bytes, s, cap, &size);
		ck_assert_int_eq(st, bad ? SPLITZIP_ERROR_BAD_CODEBOOK : SPLITZIP_OK);
		if (!bad) {
			splitzip_pages_info info;
			ck_assert_int_eq(splitzip_pages_get_info(s, size, &info), SPLITZIP_OK);
			ck_assert_uint_eq(info.table_id, 99);
			ck_assert(info.flags & SPLITZIP_PAGES_FLAG_FIXED_TABLE);
			unpack_check(ctx, s, size, &l);
		}
		splitzip_ctx_free(ctx);
	}
	/* an entropy table with a code for exponent 40 */
	splitzip_params_init(&p);
	p.encoding = SPLITZIP_ENCODING_ENTROPY;
	p.table_mode = SPLITZIP_CODEBOOK_FIXED;
	uint64_t h[256] = {0};
	for (unsigned x = 0; x < 41; x++)
		h[x] = 1 + (x == 14) * 1000;
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(h, &p.table), SPLITZIP_OK);
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_pages_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, 1, 0, 4,
	                                               (const void *const *)l.p, l.bytes, s, cap,
	                                               &size),
	                 SPLITZIP_ERROR_BAD_CODEBOOK);
	splitzip_ctx_free(ctx);
	free(s);
	dfree(&l);
}
END_TEST

/* Destinations: BF16 streams need 2-byte aligned pages, the other dtypes none; EXACT geometry;
 * one element less of room is DST_TOO_SMALL with every page untouched. */
START_TEST(destinations)
{
	static const size_t elems[3] = {1000, 0, 333};
	dpages l = make(SPLITZIP_DTYPE_FP8_E4M3, elems, 3, 9, 4);
	splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, SPLITZIP_ENCODING_AUTO, 0);
	size_t size, n_out = 0;
	uint8_t *s = pack(ctx, SPLITZIP_DTYPE_FP8_E4M3, &l, 0, &size);
	unpack_check(ctx, s, size, &l); /* at odd addresses */
	uint8_t *mem = malloc(4096), states[3];
	void *d[3] = {mem + 1, NULL, mem + 2001};
	size_t caps[3] = {1000, 0, 333};
	caps[2] = 332;
	ck_assert_int_eq(
	    splitzip_pages_decompress(ctx, s, size, 3, d, caps, 0, NULL, states, &n_out),
	    SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert(states[0] == SPLITZIP_PAGE_UNTOUCHED && states[2] == SPLITZIP_PAGE_UNTOUCHED);
	ck_assert_int_eq(splitzip_pages_decompress(ctx, s, size, 3, d, caps, SPLITZIP_PAGES_EXACT,
	                                           NULL, states, &n_out),
	                 SPLITZIP_ERROR_GEOMETRY);
	caps[2] = 334;
	ck_assert_int_eq(
	    splitzip_pages_decompress(ctx, s, size, 3, d, caps, 0, NULL, states, &n_out),
	    SPLITZIP_OK);
	ck_assert(memcmp(d[2], l.p[2], 333) == 0);
	free(s);
	/* a BF16 stream into an odd address */
	uint16_t bf[64];
	for (unsigned k = 0; k < 64; k++)
		bf[k] = (uint16_t)(0x3C00 + 7 * k);
	const void *bp[1] = {bf};
	const size_t bb[1] = {128};
	uint8_t st2[512];
	ck_assert_int_eq(splitzip_pages_compress(ctx, 0, 0, 1, bp, bb, st2, sizeof st2, &size),
	                 SPLITZIP_OK);
	void *odd[1] = {mem + 1};
	size_t oc[1] = {128};
	ck_assert_int_eq(
	    splitzip_pages_decompress(ctx, st2, size, 1, odd, oc, 0, NULL, NULL, &n_out),
	    SPLITZIP_ERROR_INVALID_ARGUMENT);
	splitzip_pages_info info;
	ck_assert_int_eq(splitzip_pages_get_info(st2, size, &info), SPLITZIP_OK);
	ck_assert_uint_eq(info.format_version, 2);
	ck_assert_uint_eq(info.dtype, SPLITZIP_DTYPE_BF16);
	free(mem);
	splitzip_ctx_free(ctx);
	dfree(&l);
}
END_TEST

/* ---- A receiver fed damaged streams ---------------------------------------------------------- */

static int is_decode_status(splitzip_status st)
{
	return st == SPLITZIP_OK || st == SPLITZIP_ERROR_DST_TOO_SMALL ||
	       st == SPLITZIP_ERROR_CORRUPT_STREAM || st == SPLITZIP_ERROR_UNSUPPORTED_FORMAT ||
	       st == SPLITZIP_ERROR_BAD_MAGIC || st == SPLITZIP_ERROR_TRUNCATED ||
	       st == SPLITZIP_ERROR_HEADER_CHECKSUM || st == SPLITZIP_ERROR_CONTENT_CHECKSUM ||
	       st == SPLITZIP_ERROR_INVALID_ARGUMENT; /* a header resealed as BF16: odd pages */
}

/* Random damage, resealed or not: a decoding status; pages flush against guard pages; a page
 * reported untouched still holds its fill; on OK the pages are the original ones. */
START_TEST(hostile_random)
{
	const unsigned dt = k_dtypes[_i];
	static const size_t elems[5] = {2048, 1000, 0, 1040, 3};
	dpages l = make(dt, elems, 5, 1, 11);
	uint64_t seed = 99 + dt;
	for (unsigned e = 1; e < 3; e++) {
		splitzip_ctx *ctx = ctx_with(SPLITZIP_BACKEND_AUTO, (splitzip_encoding)e, 10);
		size_t size;
		uint8_t *s0 = pack(ctx, dt, &l, 0, &size);
		sz_guard_buf in, pg[5];
		ck_assert_int_eq(sz_guard_alloc(&in, size, SZ_GUARD_END), 0);
		for (size_t i = 0; i < 5; i++)
			ck_assert_int_eq(sz_guard_alloc(&pg[i], l.bytes[i] + 1, SZ_GUARD_END), 0);
		for (int k = 0; k < 1200; k++) {
			uint8_t *s = malloc(size);
			memcpy(s, s0, size);
			size_t z = size;
			const uint64_t r = rnd(&seed);
			const size_t head = 64 + 4 * 5;
			switch (k % 5) {
			case 0: /* header or table byte, resealed */
				s[r % head] = (uint8_t)(r >> 20);
				pu_reseal(s, z);
				break;
			case 1: /* the Dtype byte, resealed */
				s[52] = (uint8_t)((r >> 8) % 7);
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
			void *d[5];
			size_t caps[5];
			uint8_t states[5];
			for (size_t i = 0; i < 5;
			     i++) { /* odd addresses, flush against the guard */
				d[i] = pg[i].ptr + 1;
				caps[i] = l.bytes[i];
				memset(d[i], 0xC3, caps[i]);
			}
			size_t n_out = 9;
			splitzip_status st = splitzip_pages_decompress(ctx, at, z, 5, d, caps, 0,
			                                               NULL, states, &n_out);
			ck_assert_msg(is_decode_status(st), "mutation %d: %s", k,
			              splitzip_status_name(st));
			ck_assert(st == SPLITZIP_OK ? n_out == 5 : n_out == 0);
			for (size_t i = 0; i < 5; i++) {
				if (st == SPLITZIP_OK && l.bytes[i])
					ck_assert(memcmp(d[i], l.p[i], l.bytes[i]) == 0);
				if (states[i] == SPLITZIP_PAGE_UNTOUCHED)
					for (size_t b = 0; b < caps[i]; b++)
						ck_assert(((uint8_t *)d[i])[b] == 0xC3);
			}
			free(s);
		}
		for (size_t i = 0; i < 5; i++)
			sz_guard_free(&pg[i]);
		sz_guard_free(&in);
		free(s0);
		splitzip_ctx_free(ctx);
	}
	dfree(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pages_dtype");
	TCase *t = tcase_create("dtypes");
	tcase_set_timeout(t, 600);
	tcase_add_loop_test(t, round_trips, 0, 4);
	tcase_add_loop_test(t, raw_pages_and_manifest, 0, 4);
	tcase_add_loop_test(t, split4_raw_edge, 0, 2);
	tcase_add_loop_test(t, same_bytes_every_backend, 0, 4);
	tcase_add_test(t, two_frames_and_states);
	tcase_add_test(t, arguments);
	tcase_add_test(t, fixed_tables);
	tcase_add_test(t, destinations);
	tcase_add_loop_test(t, hostile_random, 0, 4);
	suite_add_tcase(s, t);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	const int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
