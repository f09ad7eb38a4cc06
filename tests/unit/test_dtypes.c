/*
 * test_dtypes.c -- frames of FP8 E4M3, FP8 E5M2, FP16 and FP32 (doc/FORMAT.md 1.3) through the
 * public API, on every host backend (binary unit.dtypes; CK_RUN_CASE=<case> runs one case).
 *
 *   patterns   every bit pattern of E4M3 and E5M2 (256) and FP16 (65,536), among 16 (8-bit)
 *              or 8 (FP16) times as many KV-like elements (64 or 16 times for split4), round-trips
 * bit for bit through split4 (where defined), entropy and auto, with the codebook or table from the
 * input and fixed ones that leave exponents to escapes, chunk sizes 2^10 and 2^14, checksum on and
 * off; each encoding gives its mode; every backend writes the scalar backend's bytes and decodes
 * every backend's frame. fp32       the FP32 specials (zeros, subnormals, infinities, NaNs with
 * payloads) and random patterns, likewise. hostile    damaged frames of every dtype and mode (a
 * flipped bit, a replaced byte, a cut, a header field with the header checksum recomputed) decode
 * to a status of the decoder on every backend, the same one, without reading or writing outside the
 *              buffers (exactly sized; run under ASan by ci/sanitize.sh).
 *   api        arguments: E4M3 has no split4, codebooks and tables invalid for the dtype,
 *              unknown dtypes, a stream of two dtypes, a destination too small, BF16 through
 *              splitzip_compress_dtype is splitzip_compress.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_dtype.h"
#include "sz_layout.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static unsigned ebits_of(unsigned dt)
{
	return dt == SPLITZIP_DTYPE_FP8_E4M3 ? 4 : dt == SPLITZIP_DTYPE_FP32 ? 8 : 5;
}

/* An element of dtype dt with exponent x and random other bits. */
static uint32_t with_exponent(unsigned dt, unsigned x, uint64_t r)
{
	switch (dt) {
	case SPLITZIP_DTYPE_FP8_E4M3:
		return (uint32_t)(((r & 0x80) | (x << 3) | (r & 7)) & 0xFF);
	case SPLITZIP_DTYPE_FP8_E5M2:
		return (uint32_t)(((r & 0x80) | (x << 2) | (r & 3)) & 0xFF);
	case SPLITZIP_DTYPE_FP16:
		return (uint32_t)(((r & 0x8000) | (x << 10) | (r & 0x3FF)) & 0xFFFF);
	default:
		return (uint32_t)((r & 0x807FFFFF) | ((uint64_t)x << 23));
	}
}

/* KV-like: exponents around the middle of the range, two-sided geometric. */
static uint32_t kv_elem(unsigned dt, uint64_t *s)
{
	const uint64_t r = rng_next(s);
	const unsigned e = ebits_of(dt), mid = (1u << e) / 2 - 1;
	int x = (int)mid - (int)((r >> 40) % 3);
	for (uint64_t b = r >> 48; (b & 3) == 3 && x > 0; b >>= 2)
		x--; /* a few smaller ones */
	return with_exponent(dt, (unsigned)x, r);
}

static void put_elem(unsigned dt, uint8_t *p, size_t i, uint32_t v)
{
	const size_t w = splitzip_dtype_width(dt);
	for (size_t k = 0; k < w; k++)
		p[w * i + k] = (uint8_t)(v >> (8 * k));
}

/* n elements: KV-like, with the 'm' patterns of 'pat' at spread positions (m <= n / 3). */
static uint8_t *make_data(unsigned dt, size_t n, const uint32_t *pat, size_t m, uint64_t seed)
{
	uint8_t *p = (uint8_t *)malloc(n * splitzip_dtype_width(dt) + 1);
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++)
		put_elem(dt, p, i, kv_elem(dt, &s));
	for (size_t j = 0; j < m; j++)
		put_elem(dt, p, j * (n / m) + (size_t)(rng_next(&s) % (n / m)), pat[j]);
	return p;
}

#define MAX_CTX 8
static splitzip_backend_id backends[MAX_CTX];
static size_t n_backends;

static void find_backends(void)
{
	n_backends = 0;
	for (size_t i = 0; i < splitzip_backend_count() && n_backends < MAX_CTX; i++) {
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = splitzip_backend_id_of(i);
		splitzip_ctx *c;
		if (splitzip_backend_available(i) && splitzip_ctx_create(&p, &c) == SPLITZIP_OK) {
			backends[n_backends++] = p.backend;
			splitzip_ctx_free(c);
		}
	}
	ck_assert_uint_ge(n_backends, 1);
}

typedef struct enc_cfg {
	splitzip_encoding enc;
	unsigned log2, flags;
	const splitzip_codebook *cb;
	const splitzip_entropy_table *table;
} enc_cfg;

static splitzip_ctx *make_ctx(splitzip_backend_id be, const enc_cfg *c)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = be;
	p.encoding = c->enc;
	p.chunk_log2 = c->log2;
	p.flags = c->flags;
	if (c->cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *c->cb;
	}
	if (c->table) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *c->table;
	}
	splitzip_ctx *ctx = NULL;
	ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
	return ctx;
}

/* Compress on every backend (the same bytes), decode every frame on every backend (the input
 * back); returns the scalar frame's mode. */
static int roundtrip(unsigned dt, const uint8_t *src, size_t n, const enc_cfg *c)
{
	const size_t w = splitzip_dtype_width(dt), cap = splitzip_compress_bound_dtype(dt, n);
	uint8_t *ref = (uint8_t *)malloc(cap), *f = (uint8_t *)malloc(cap);
	uint8_t *out = (uint8_t *)malloc(n * w + 1);
	size_t ref_size = 0;
	for (size_t b = 0; b < n_backends; b++) {
		splitzip_ctx *ctx = make_ctx(backends[b], c);
		size_t size = 0;
		splitzip_status st =
		    splitzip_compress_dtype(ctx, dt, src, n, b ? f : ref, cap, &size);
		ck_assert_msg(st == SPLITZIP_OK, "dtype %u enc %d: %s", dt, (int)c->enc,
		              splitzip_status_name(st));
		if (b == 0)
			ref_size = size;
		else
			ck_assert_msg(size == ref_size && memcmp(f, ref, size) == 0,
			              "dtype %u: backend %s writes other bytes", dt,
			              splitzip_ctx_backend_name(ctx));
		size_t got = 0;
		st = splitzip_decompress_dtype(ctx, ref, ref_size, out, n * w, &got);
		ck_assert_msg(st == SPLITZIP_OK, "dtype %u decode: %s", dt,
		              splitzip_status_name(st));
		ck_assert_uint_eq(got, n);
		ck_assert_msg(memcmp(out, src, n * w) == 0, "dtype %u enc %d: round trip differs",
		              dt, (int)c->enc);
		splitzip_ctx_free(ctx);
	}
	splitzip_frame_info fi;
	ck_assert_int_eq(splitzip_get_frame_info(ref, ref_size, &fi), SPLITZIP_OK);
	ck_assert_uint_eq(fi.dtype, dt);
	free(ref);
	free(f);
	free(out);
	return (int)fi.mode;
}

/* A frame of src with this encoding on the default backend (to take its codebook or table). */
static uint8_t *frame_of(unsigned dt, const uint8_t *src, size_t n, splitzip_encoding enc,
                         size_t *size)
{
	const enc_cfg c = {enc, 10, 0, NULL, NULL};
	splitzip_ctx *ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, &c);
	const size_t cap = splitzip_compress_bound_dtype(dt, n);
	uint8_t *f = (uint8_t *)malloc(cap);
	ck_assert_int_eq(splitzip_compress_dtype(ctx, dt, src, n, f, cap, size), SPLITZIP_OK);
	splitzip_ctx_free(ctx);
	return f;
}

/* Every mode of dt on src (which holds the patterns among KV-like data kv) and, for split4,
 * whose escapes cost 3 bytes, on src4 (the patterns among more KV-like data). */
static void all_modes(unsigned dt, const uint8_t *src, size_t n, const uint8_t *kv, size_t kn,
                      const uint8_t *src4, size_t n4)
{
	const int split4 = dt != SPLITZIP_DTYPE_FP8_E4M3;
	/* Fixed ones from KV only: the rare exponents of the patterns become escapes. */
	size_t fs;
	uint8_t *f = frame_of(dt, kv, kn, SPLITZIP_ENCODING_ENTROPY, &fs);
	splitzip_entropy_table t;
	ck_assert_int_eq(splitzip_frame_entropy_table(f, fs, &t), SPLITZIP_OK);
	free(f);
	splitzip_codebook cb = {{0}};
	if (split4) {
		f = frame_of(dt, kv, kn, SPLITZIP_ENCODING_SPLIT4, &fs);
		splitzip_frame_info fi;
		ck_assert_int_eq(splitzip_get_frame_info(f, fs, &fi), SPLITZIP_OK);
		ck_assert_int_eq(fi.mode, SPLITZIP_MODE_SPLIT4);
		cb = fi.codebook;
		free(f);
	}
	for (unsigned log2 = 10; log2 <= 14; log2 += 4)
		for (unsigned flags = 0; flags <= 1; flags++) {
			enc_cfg c = {SPLITZIP_ENCODING_ENTROPY, log2, flags, NULL, NULL};
			ck_assert_int_eq(roundtrip(dt, src, n, &c), SPLITZIP_MODE_ENTROPY);
			c.table = &t;
			ck_assert_int_eq(roundtrip(dt, src, n, &c), SPLITZIP_MODE_ENTROPY);
			c.table = NULL;
			c.enc = SPLITZIP_ENCODING_AUTO;
			ck_assert_int_ne(roundtrip(dt, src, n, &c), SPLITZIP_MODE_STORED);
			if (!split4)
				continue;
			c.enc = SPLITZIP_ENCODING_SPLIT4;
			ck_assert_int_eq(roundtrip(dt, src4, n4, &c), SPLITZIP_MODE_SPLIT4);
			c.cb = &cb;
			ck_assert_int_eq(roundtrip(dt, src4, n4, &c), SPLITZIP_MODE_SPLIT4);
		}
}

START_TEST(patterns)
{
	find_backends();
	static const unsigned dts[3] = {SPLITZIP_DTYPE_FP8_E4M3, SPLITZIP_DTYPE_FP8_E5M2,
	                                SPLITZIP_DTYPE_FP16};
	for (unsigned k = 0; k < 3; k++) {
		const unsigned dt = dts[k];
		const size_t m = (size_t)1 << (8 * splitzip_dtype_width(dt)),
		             n = (m > 256 ? 8 : 16) * m;
		uint32_t *pat = (uint32_t *)malloc(m * sizeof *pat);
		for (size_t i = 0; i < m; i++)
			pat[i] = (uint32_t)i;
		uint8_t *src = make_data(dt, n, pat, m, 11 + k);
		uint8_t *kv = make_data(dt, n, pat, 0, 99 + k);
		const size_t n4 = (m > 256 ? 16 : 64) * m;
		uint8_t *src4 = make_data(dt, n4, pat, m, 7 + k);
		all_modes(dt, src, n, kv, n, src4, n4);
		free(src4);
		/* the patterns alone, in order: incompressible, stored by every encoding */
		uint8_t *alone = make_data(dt, m, pat, 0, 1);
		for (size_t i = 0; i < m; i++)
			put_elem(dt, alone, i, pat[i]);
		enc_cfg c = {SPLITZIP_ENCODING_AUTO, 12, 1, NULL, NULL};
		ck_assert_int_eq(roundtrip(dt, alone, m, &c), SPLITZIP_MODE_STORED);
		free(alone);
		free(src);
		free(kv);
		free(pat);
	}
}
END_TEST

START_TEST(fp32)
{
	find_backends();
	const unsigned dt = SPLITZIP_DTYPE_FP32;
	static const uint32_t specials[] = {
	    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000,
	    0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
	    0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x3F800000,
	    0xBF800000, 0x3F800001, 0x34000000, 0x0000FFFF, 0xFFFF0000};
	const size_t ns = sizeof specials / sizeof specials[0];
	uint64_t s = 5;
	const size_t m = 4096 + ns, n = 3 * 65536;
	uint32_t *pat = (uint32_t *)malloc(m * sizeof *pat);
	for (size_t i = 0; i < m; i++)
		pat[i] = i < ns ? specials[i] : (uint32_t)rng_next(&s);
	uint8_t *src = make_data(dt, n, pat, m, 3);
	uint8_t *kv = make_data(dt, n, pat, 0, 4);
	all_modes(dt, src, n, kv, n, src, n);
	/* a last chunk of 45 elements: the backends' FP32 joins take a block of 32, the portable
	 * join the rest */
	const enc_cfg e = {SPLITZIP_ENCODING_ENTROPY, 10, 0, NULL, NULL};
	ck_assert_int_eq(roundtrip(dt, src, 2048 + 45, &e), SPLITZIP_MODE_ENTROPY);
	uint8_t *alone = make_data(dt, m, pat, 0, 1);
	for (size_t i = 0; i < m; i++)
		put_elem(dt, alone, i, pat[i]);
	enc_cfg c = {SPLITZIP_ENCODING_AUTO, 16, 1, NULL, NULL};
	ck_assert_int_eq(roundtrip(dt, alone, m, &c), SPLITZIP_MODE_STORED);
	free(alone);
	free(src);
	free(kv);
	free(pat);
}
END_TEST

static int decode_status(splitzip_status st)
{
	return st == SPLITZIP_OK || st == SPLITZIP_ERROR_CORRUPT_STREAM ||
	       st == SPLITZIP_ERROR_UNSUPPORTED_FORMAT || st == SPLITZIP_ERROR_BAD_MAGIC ||
	       st == SPLITZIP_ERROR_TRUNCATED || st == SPLITZIP_ERROR_HEADER_CHECKSUM ||
	       st == SPLITZIP_ERROR_CONTENT_CHECKSUM || st == SPLITZIP_ERROR_DST_TOO_SMALL;
}

/*
 * The portable decoder of core/sz_dtype_codec.c (no host kernels) on the one frame at b: where
 * the backends' status 'st' came from the frame's body (OK, CORRUPT_STREAM, CONTENT_CHECKSUM;
 * the header was valid and the frame fits), the same status and, on OK, the elements 'out' the
 * last backend wrote. FP32 entropy frames take the BF16 kernels on every backend (sz_dtype.h),
 * so this is what checks them against the portable code. Counts the frames compared in
 * 'compared'.
 */
static void portable_same(const uint8_t *b, size_t len, size_t n, size_t w, splitzip_status st,
                          const uint8_t *out, unsigned *compared)
{
	splitzip_header h;
	if ((st != SPLITZIP_OK && st != SPLITZIP_ERROR_CORRUPT_STREAM &&
	     st != SPLITZIP_ERROR_CONTENT_CHECKSUM) ||
	    splitzip_dtype_read_header(b, len, &h) != SPLITZIP_OK || h.frame_size != len ||
	    h.n_elems != n || h.dtype == SPLITZIP_DTYPE_BF16)
		return;
	uint8_t *mine = (uint8_t *)malloc(n * w + 1);
	const splitzip_status p = splitzip_dtype_decode(NULL, &h, b, mine);
	ck_assert_msg(p == st, "dtype %u mode %u: portable decoder %s, backends %s", h.dtype,
	              h.mode, splitzip_status_name(p), splitzip_status_name(st));
	if (p == SPLITZIP_OK)
		ck_assert_msg(!memcmp(mine, out, n * w), "dtype %u mode %u: other elements",
		              h.dtype, h.mode);
	++*compared;
	free(mine);
}

/* One damaged copy of 'f' (exactly sized) decoded on every backend into exactly n elements. */
static void hostile_one(const uint8_t *f, size_t size, size_t n, size_t w, uint64_t *s,
                        unsigned counts[SPLITZIP_STATUS_COUNT + 1])
{
	uint8_t *b = (uint8_t *)malloc(size ? size : 1);
	memcpy(b, f, size);
	const uint64_t r = rng_next(s);
	size_t len = size;
	switch (r % 4) {
	case 0:
		b[(r >> 8) % size] ^= (uint8_t)(1u << ((r >> 40) % 8));
		break;
	case 1:
		b[(r >> 8) % size] = (uint8_t)(r >> 48);
		break;
	case 2:
		len = (size_t)((r >> 8) % size);
		break;
	default: /* a header field, the header checksum recomputed */
		b[(r >> 8) % 60] ^= (uint8_t)(1u << ((r >> 40) % 8));
		splitzip_put_u8s(b + 60, splitzip_header_checksum(b), 4);
	}
	uint8_t *out = (uint8_t *)malloc(n * w + 1);
	splitzip_status first = SPLITZIP_OK;
	for (size_t k = 0; k < n_backends; k++) {
		const enc_cfg c = {SPLITZIP_ENCODING_SPLIT4, 0, 0, NULL, NULL};
		splitzip_ctx *ctx = make_ctx(backends[k], &c);
		size_t got = 0;
		splitzip_status st = splitzip_decompress_dtype(ctx, b, len, out, n * w, &got);
		ck_assert_msg(decode_status(st), "status %s", splitzip_status_name(st));
		if (st != SPLITZIP_ERROR_DST_TOO_SMALL)
			ck_assert_int_eq(splitzip_verify(ctx, b, len, NULL), st);
		if (k == 0)
			first = st;
		ck_assert_int_eq(st, first);
		splitzip_ctx_free(ctx);
	}
	counts[first]++;
	portable_same(b, len, n, w, first, out, &counts[SPLITZIP_STATUS_COUNT]);
	free(out);
	free(b);
}

START_TEST(hostile)
{
	find_backends();
	uint64_t s = 77;
	unsigned counts[SPLITZIP_STATUS_COUNT + 1] = {0}; /* the last: frames compared */
	for (unsigned dt = SPLITZIP_DTYPE_FP8_E4M3; dt <= SPLITZIP_DTYPE_FP32; dt++) {
		const size_t n = 2500, w = splitzip_dtype_width(dt);
		const uint32_t pat[4] = {0, 1, 0x7F, 0x80};
		uint8_t *src = make_data(dt, n, pat, 4, dt);
		for (int enc = 0; enc <= 2; enc++) {
			if (enc == SPLITZIP_ENCODING_SPLIT4 && dt == SPLITZIP_DTYPE_FP8_E4M3)
				continue;
			const enc_cfg c = {(splitzip_encoding)enc, 10, 1, NULL, NULL};
			splitzip_ctx *ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, &c);
			const size_t cap = splitzip_compress_bound_dtype(dt, n);
			uint8_t *f = (uint8_t *)malloc(cap);
			size_t size = 0;
			ck_assert_int_eq(splitzip_compress_dtype(ctx, dt, src, n, f, cap, &size),
			                 SPLITZIP_OK);
			splitzip_ctx_free(ctx);
			for (int i = 0; i < 400; i++)
				hostile_one(f, size, n, w, &s, counts);
			free(f);
		}
		free(src);
	}
	/* the damage reaches the body checks, the header checks and the checksums */
	ck_assert_uint_gt(counts[SPLITZIP_ERROR_CORRUPT_STREAM], 100);
	ck_assert_uint_gt(counts[SPLITZIP_ERROR_CONTENT_CHECKSUM], 50);
	ck_assert_uint_gt(counts[SPLITZIP_ERROR_TRUNCATED], 50);
	ck_assert_uint_gt(counts[SPLITZIP_ERROR_HEADER_CHECKSUM], 20);
	ck_assert_uint_gt(counts[SPLITZIP_ERROR_UNSUPPORTED_FORMAT], 0);
	/* and the portable decoder saw the frames whose body was decoded */
	ck_assert_uint_gt(counts[SPLITZIP_STATUS_COUNT], 1000);
}
END_TEST

START_TEST(api)
{
	uint8_t src[64] = {0}, dst[512];
	size_t size = 0;
	enc_cfg c = {SPLITZIP_ENCODING_SPLIT4, 12, 0, NULL, NULL};
	splitzip_ctx *ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, &c);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP8_E4M3, src, 64, dst, sizeof dst, &size),
	    SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_compress_dtype(ctx, 0, src, 8, dst, sizeof dst, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_compress_dtype(ctx, 6, src, 8, dst, sizeof dst, &size),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, src, 32, dst, 100, &size),
	    SPLITZIP_ERROR_DST_TOO_SMALL);
	splitzip_ctx_free(ctx);
	/* a fixed codebook with an exponent of 32 or more is not one of E5M2 or FP16 */
	splitzip_codebook cb;
	for (unsigned i = 0; i < 16; i++)
		cb.exponents[i] = (uint8_t)(17 + i);
	c.cb = &cb;
	ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, &c);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, src, 32, dst, sizeof dst, &size),
	    SPLITZIP_ERROR_BAD_CODEBOOK);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP32, src, 16, dst, sizeof dst, &size),
	    SPLITZIP_OK);
	splitzip_ctx_free(ctx);
	/* a fixed table with a code for exponent 20 is not one of E4M3 */
	splitzip_entropy_table t;
	memset(&t, 0, sizeof t);
	t.lengths[3] = 1;
	t.lengths[20] = 2;
	t.escape_length = 2;
	c = (enc_cfg){SPLITZIP_ENCODING_ENTROPY, 12, 0, NULL, &t};
	ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, &c);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP8_E4M3, src, 64, dst, sizeof dst, &size),
	    SPLITZIP_ERROR_BAD_CODEBOOK);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, src, 32, dst, sizeof dst, &size),
	    SPLITZIP_OK);
	/* one dtype per stream: an FP16 frame, then a BF16 frame of the same bytes */
	uint8_t two[1024];
	size_t a = 0, b = 0;
	ck_assert_int_eq(splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_FP16, src, 32, two, 512, &a),
	                 SPLITZIP_OK);
	ck_assert_int_eq(
	    splitzip_compress_dtype(ctx, SPLITZIP_DTYPE_BF16, src, 32, two + a, 512, &b),
	    SPLITZIP_OK);
	uint16_t out[128];
	size_t got = 0;
	uint64_t total = 0;
	ck_assert_int_eq(splitzip_decompress_dtype(ctx, two, a, out, 64, &got), SPLITZIP_OK);
	ck_assert_uint_eq(got, 32);
	ck_assert_int_eq(splitzip_decompress_dtype(ctx, two, a, out, 63, &got),
	                 SPLITZIP_ERROR_DST_TOO_SMALL);
	ck_assert_int_eq(splitzip_decompress_dtype(ctx, two, a + b, out, 256, &got),
	                 SPLITZIP_ERROR_CORRUPT_STREAM);
	/* the BF16 calls refuse other dtypes: a BF16-sized destination is never overrun */
	ck_assert_int_eq(splitzip_decompress(ctx, two, a, out, 128, &got),
	                 SPLITZIP_ERROR_UNSUPPORTED_FORMAT);
	size_t used = 0;
	ck_assert_int_eq(splitzip_frame_decompress(ctx, two, a, &used, out, 128, &got),
	                 SPLITZIP_ERROR_UNSUPPORTED_FORMAT);
	ck_assert_int_eq(splitzip_frame_decompress_dtype(ctx, two, a + b, &used, out, 64, &got),
	                 SPLITZIP_OK);
	ck_assert_uint_eq(used, a);
	ck_assert_int_eq(splitzip_decompressed_size(two, a + b, &total),
	                 SPLITZIP_ERROR_CORRUPT_STREAM);
	ck_assert_int_eq(splitzip_verify(ctx, two, a + b, NULL), SPLITZIP_ERROR_CORRUPT_STREAM);
	/* BF16 through splitzip_compress_dtype is splitzip_compress */
	size_t c2 = 0;
	ck_assert_int_eq(
	    splitzip_compress(ctx, (const uint16_t *)(void *)src, 32, two + 512, 512, &c2),
	    SPLITZIP_OK);
	ck_assert_uint_eq(c2, b);
	ck_assert_int_eq(memcmp(two + 512, two + a, b), 0);
	splitzip_ctx_free(ctx);
	ck_assert_uint_eq(splitzip_dtype_width(SPLITZIP_DTYPE_FP8_E5M2), 1);
	ck_assert_uint_eq(splitzip_dtype_width(SPLITZIP_DTYPE_FP32), 4);
	ck_assert_uint_eq(splitzip_dtype_width(6), 0);
	ck_assert_str_eq(splitzip_dtype_name(SPLITZIP_DTYPE_FP16), "f16");
	ck_assert_ptr_null(splitzip_dtype_name(0));
	ck_assert_uint_eq(splitzip_compress_bound_dtype(SPLITZIP_DTYPE_FP32, 5), 64 + 32);
	ck_assert_uint_eq(splitzip_compress_bound_dtype(7, 5), 0);
}
END_TEST

/* splitzip_histogram_dtype(): every pattern of the 8- and 16-bit dtypes counts once in its
 * exponent's bin (2^(8w-e) patterns per exponent, none at 2^e or above), at any alignment; FP32
 * as BF16 of its high halves; BF16 as splitzip_histogram(); counts add up; bad arguments. */
START_TEST(histogram)
{
	static const unsigned dts[4] = {SPLITZIP_DTYPE_FP8_E4M3, SPLITZIP_DTYPE_FP8_E5M2,
	                                SPLITZIP_DTYPE_FP16, SPLITZIP_DTYPE_BF16};
	static const unsigned ebits[4] = {4, 5, 5, 8};
	uint8_t *all = (uint8_t *)malloc(2 * 65536 + 1);
	for (unsigned d = 0; d < 4; d++) {
		const unsigned w = (unsigned)splitzip_dtype_width(dts[d]), n = 1u << (8 * w);
		for (unsigned v = 0; v < n; v++)
			for (unsigned b = 0; b < w; b++)
				all[1 + w * v + b] = (uint8_t)(v >> (8 * b));
		uint64_t h[256] = {0};
		ck_assert_int_eq(splitzip_histogram_dtype(dts[d], all + 1, n, h), SPLITZIP_OK);
		ck_assert_int_eq(splitzip_histogram_dtype(dts[d], all + 1, n, h), SPLITZIP_OK);
		for (unsigned x = 0; x < 256; x++)
			ck_assert_uint_eq(h[x], x < (1u << ebits[d]) ? 2 * (n >> ebits[d]) : 0);
	}
	uint32_t f32[1000];
	uint16_t hi[1000];
	uint64_t seed = 5;
	for (unsigned i = 0; i < 1000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		f32[i] = (uint32_t)(seed >> 32);
		hi[i] = (uint16_t)(f32[i] >> 16);
	}
	uint64_t a[256] = {0}, b[256] = {0};
	ck_assert_int_eq(splitzip_histogram_dtype(SPLITZIP_DTYPE_FP32, f32, 1000, a), SPLITZIP_OK);
	ck_assert_int_eq(splitzip_histogram(hi, 1000, b), SPLITZIP_OK);
	ck_assert_mem_eq(a, b, sizeof a);
	ck_assert_int_eq(splitzip_histogram_dtype(0, f32, 4, a), SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_histogram_dtype(6, f32, 4, a), SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_histogram_dtype(SPLITZIP_DTYPE_FP16, NULL, 4, a),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_histogram_dtype(SPLITZIP_DTYPE_FP16, f32, 4, NULL),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT);
	ck_assert_int_eq(splitzip_histogram_dtype(SPLITZIP_DTYPE_FP16, NULL, 0, a), SPLITZIP_OK);
	free(all);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dtypes");
	TCase *tc = tcase_create("patterns");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, patterns);
	suite_add_tcase(s, tc);
	tc = tcase_create("fp32");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, fp32);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, hostile);
	suite_add_tcase(s, tc);
	tc = tcase_create("api");
	tcase_add_test(tc, api);
	tcase_add_test(tc, histogram);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	const int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
