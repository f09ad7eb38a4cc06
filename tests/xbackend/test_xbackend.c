/*
 * test_xbackend.c -- cross-backend conformance: every usable host backend must produce frames
 * byte-identical to the scalar oracle's, for every generator, real KV data, edge sizes, chunk
 * sizes and thread counts; every backend must decode every other backend's frames; and the
 * per-chunk kernels must match the scalar reference kernels for any codebook.
 *
 * Loop tests run over the registry (_i = registry index); a backend that is compiled in but not
 * usable on this machine is skipped, unless SPLITZIP_EXPECT_BACKENDS (comma-separated; CI sets
 * it) names it: then each test fails, and so does the expected-backends test. The real KV data
 * beside the checkout (SPLITZIP_SHARED_DATA) is checked when present; a build configured with
 * SPLITZIP_REQUIRE_TEST_DEPS=ON (CI) fails without it.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include "sz_check.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "splitzip_config.h"
#include "sz_test_data.h"
#include "../../dispatch/sz_backend.h"
#include "../../core/sz_codebook.h"

/* ---- Helpers ------------------------------------------------------------------------------- */

/* Index of the first difference of two arrays, or n if they are equal. Tests assert once on
 * the result: a Check assertion costs a message to the parent process even when it passes. */
static size_t first_diff8(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static size_t first_diff16(const uint16_t *a, const uint16_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Index of the first element of p[0..n) that is not v, or n. */
static size_t first_not8(const uint8_t *p, uint8_t v, size_t n)
{
	size_t i = 0;
	while (i < n && p[i] == v)
		i++;
	return i;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	ck_assert_msg(p != NULL, "out of memory (%zu bytes)", n);
	return p;
}

/* The registry entry _i, or NULL (and a note) if it is not a host backend usable here. */
static const splitzip_backend *usable(int i)
{
	const splitzip_backend *b = splitzip_registry_get((size_t)i);
	ck_assert_ptr_nonnull(b);
	if (!b->host) {
		printf("xbackend: %s works on device memory (tests/gpu covers it): skipped\n",
		       b->name);
		return NULL;
	}
	if (!b->probe()) {
		ck_assert_msg(!sz_test_backend_expected(b->name),
		              "%s is named in SPLITZIP_EXPECT_BACKENDS but not usable here",
		              b->name);
		printf("xbackend: %s is compiled in but not usable here: skipped\n", b->name);
		return NULL;
	}
	return b;
}

/* A context bound to backend 'name' through SPLITZIP_FORCE_BACKEND: the by-name route, which
 * users take (every backend also has an id of its own, splitzip_params.backend, which the
 * hardening and vector suites use). */
static splitzip_ctx *ctx_for(const char *name, unsigned log2, unsigned threads, unsigned flags,
                             const splitzip_codebook *fixed)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.chunk_log2 = log2;
	p.n_threads = threads;
	p.flags = flags;
	if (fixed) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *fixed;
	}
	setenv("SPLITZIP_FORCE_BACKEND", name, 1);
	splitzip_ctx *ctx = NULL;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	unsetenv("SPLITZIP_FORCE_BACKEND");
	ck_assert_msg(st == SPLITZIP_OK, "ctx_create(%s): %s", name, splitzip_error_string(st));
	ck_assert_str_eq(splitzip_ctx_backend_name(ctx), name);
	return ctx;
}

typedef struct frame {
	uint8_t *p;
	size_t size;
} frame;

static frame compress_with(const char *name, const uint16_t *src, size_t n, unsigned log2,
                           unsigned threads, unsigned flags, const splitzip_codebook *fixed)
{
	splitzip_ctx *ctx = ctx_for(name, log2, threads, flags, fixed);
	frame f;
	size_t cap = splitzip_compress_bound(n);
	f.p = (uint8_t *)xmalloc(cap);
	splitzip_status st = splitzip_compress(ctx, src, n, f.p, cap, &f.size);
	ck_assert_msg(st == SPLITZIP_OK, "compress(%s, n=%zu): %s", name, n,
	              splitzip_error_string(st));
	/* Determinism: the same context compresses the same input to the same bytes. */
	uint8_t *again = (uint8_t *)xmalloc(cap);
	size_t size2 = 0;
	st = splitzip_compress(ctx, src, n, again, cap, &size2);
	ck_assert_msg(st == SPLITZIP_OK && size2 == f.size && memcmp(again, f.p, f.size) == 0,
	              "%s: second compression of the same input differs (n=%zu)", name, n);
	free(again);
	splitzip_ctx_free(ctx);
	return f;
}

/* Decode 'f' with backend 'name' and require exactly 'src' back (compared as integers). */
static void expect_decodes(const char *name, const frame *f, const uint16_t *src, size_t n,
                           unsigned threads, const char *what)
{
	splitzip_ctx *ctx = ctx_for(name, 0, threads, 0, NULL);
	uint16_t *out = (uint16_t *)xmalloc((n + 1) * 2);
	out[n] = 0xA5A5; /* guard: nothing past n elements may be written */
	size_t got = 0;
	splitzip_status st = splitzip_decompress(ctx, f->p, f->size, out, n, &got);
	ck_assert_msg(st == SPLITZIP_OK, "%s: decompress(%s): %s", what, name,
	              splitzip_error_string(st));
	ck_assert_msg(got == n, "%s: %s decoded %zu elements, expected %zu", what, name, got, n);
	size_t i = first_diff16(out, src, n);
	ck_assert_msg(i == n, "%s: %s decoded element %zu as 0x%04x, expected 0x%04x", what, name,
	              i, i < n ? out[i] : 0, i < n ? src[i] : 0);
	ck_assert_msg(out[n] == 0xA5A5, "%s: %s wrote past the output", what, name);
	free(out);
	splitzip_ctx_free(ctx);
}

/* First differing byte, with the section it falls in, for a readable failure. */
static void expect_same_frame(const frame *ref, const frame *got, const char *name,
                              const char *what)
{
	if (ref->size == got->size && memcmp(ref->p, got->p, ref->size) == 0)
		return;
	size_t at = 0, lim = ref->size < got->size ? ref->size : got->size;
	while (at < lim && ref->p[at] == got->p[at])
		at++;
	const char *sect = "header";
	splitzip_frame_info info;
	if (at >= SPLITZIP_FRAME_HEADER_SIZE &&
	    splitzip_get_frame_info(ref->p, ref->size, &info) == SPLITZIP_OK) {
		if (info.mode == SPLITZIP_MODE_STORED) {
			sect = "stored data";
		} else {
			splitzip_layout L;
			splitzip_split4_layout(info.n_elems, info.chunk_log2, info.n_escapes, &L);
			sect = at < L.sm_off      ? "codes"
			       : at < L.table_off ? "sign/mantissa"
			       : at < L.epos_off  ? "chunk table"
			       : at < L.eexp_off  ? "escape positions"
			                          : "escape exponents";
		}
	}
	ck_abort_msg(
	    "%s: %s frame differs from the reference: sizes %zu vs %zu, first difference at byte "
	    "%zu (%s)",
	    what, name, got->size, ref->size, at, sect);
}

/* Compare backend 'name' against scalar on one input for all thread counts; decode too. */
static void check_input(const char *name, const uint16_t *src, size_t n, unsigned log2,
                        unsigned flags, const splitzip_codebook *fixed, const char *what)
{
	frame ref = compress_with("scalar", src, n, log2, 1, flags, fixed);
	for (unsigned threads = 1; threads <= 3; threads++) {
		char desc[256];
		snprintf(desc, sizeof desc, "%s n=%zu log2=%u threads=%u flags=%u%s", what, n, log2,
		         threads, flags, fixed ? " fixed-codebook" : "");
		frame f = compress_with(name, src, n, log2, threads, flags, fixed);
		expect_same_frame(&ref, &f, name, desc);
		expect_decodes(name, &f, src, n, threads, desc);
		free(f.p);
	}
	free(ref.p);
}

/* ---- Registry and selection ---------------------------------------------------------------- */

START_TEST(expected_backends_usable)
{
	const char *env = getenv("SPLITZIP_EXPECT_BACKENDS");
	if (!env || !*env) {
		printf("xbackend: SPLITZIP_EXPECT_BACKENDS not set: no backend is required\n");
		return;
	}
	char list[512];
	snprintf(list, sizeof list, "%s", env);
	for (char *tok = strtok(list, ", "); tok; tok = strtok(NULL, ", ")) {
		int found = 0;
		for (size_t i = 0; i < splitzip_backend_count(); i++) {
			if (strcmp(splitzip_backend_name(i), tok) == 0) {
				found = 1;
				ck_assert_msg(
				    splitzip_backend_available(i),
				    "expected backend %s is compiled in but not usable here", tok);
			}
		}
		ck_assert_msg(found, "expected backend %s is not compiled into this build", tok);
	}
}
END_TEST

START_TEST(registry_well_formed)
{
	size_t n = splitzip_registry_count();
	ck_assert_uint_ge(n, 1);
	ck_assert_str_eq(splitzip_registry_get(n - 1)->name, "scalar");
	for (size_t i = 0; i < n; i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		ck_assert_ptr_nonnull(b->name);
		ck_assert_ptr_nonnull(b->probe);
		/* A host backend has every kernel; a device backend has a module loader and no
		 * host kernels: exactly one of the two. */
		ck_assert_msg((b->host != NULL) != (b->gpu != NULL), "%s: host xor gpu", b->name);
		if (b->host) {
			ck_assert_ptr_nonnull(b->host->histogram);
			ck_assert_ptr_nonnull(b->host->encode_chunk);
			ck_assert_ptr_nonnull(b->host->decode_chunk);
			ck_assert_ptr_nonnull(b->host->encode_chunk_stream);
			ck_assert_ptr_nonnull(b->host->decode_chunk_stream);
			ck_assert_ptr_nonnull(b->host->hash_chunk);
			ck_assert_ptr_nonnull(b->host->encode_count_chunk);
			ck_assert_ptr_nonnull(b->host->encode_count_chunk_stream);
			ck_assert_ptr_nonnull(b->host->count_codes);
			ck_assert_ptr_nonnull(b->host->recode_codes);
			ck_assert_ptr_nonnull(b->host->entropy_encode_chunk);
			ck_assert_ptr_nonnull(b->host->entropy_decode_chunk);
		}
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(splitzip_registry_get(j)->name, b->name);
	}
	ck_assert_ptr_null(splitzip_registry_get(n));
	ck_assert_uint_eq(splitzip_backend_count(), n);
	ck_assert_ptr_null(splitzip_backend_name(n));
}
END_TEST

/* SPLITZIP_FORCE_BACKEND selects exactly the named backend, or fails loudly. */
START_TEST(force_backend)
{
	splitzip_ctx *ctx = NULL;
	for (size_t i = 0; i < splitzip_backend_count(); i++) {
		const char *name = splitzip_backend_name(i);
		setenv("SPLITZIP_FORCE_BACKEND", name, 1);
		splitzip_status st = splitzip_ctx_create(NULL, &ctx);
		unsetenv("SPLITZIP_FORCE_BACKEND");
		if (splitzip_backend_available(i)) {
			ck_assert_int_eq(st, SPLITZIP_OK);
			ck_assert_str_eq(splitzip_ctx_backend_name(ctx), name);
			splitzip_ctx_free(ctx);
		} else {
			ck_assert_int_eq(st, SPLITZIP_ERROR_BACKEND_UNAVAILABLE);
			ck_assert_ptr_null(ctx);
		}
	}
	static const char *const bad[] = {"bogus", "AVX2", "avx", "scalar ", "cuda0"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("SPLITZIP_FORCE_BACKEND", bad[i], 1);
		splitzip_status st = splitzip_ctx_create(NULL, &ctx);
		unsetenv("SPLITZIP_FORCE_BACKEND");
		ck_assert_msg(st == SPLITZIP_ERROR_BACKEND_UNAVAILABLE,
		              "FORCE_BACKEND=\"%s\" gave %s", bad[i], splitzip_status_name(st));
		ck_assert_ptr_null(ctx);
	}
	/* Every id selects exactly its backend (ids are unique). */
	for (size_t i = 0; i < splitzip_backend_count(); i++) {
		if (!splitzip_backend_available(i) || !splitzip_registry_get(i)->host)
			continue;
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = splitzip_backend_id_of(i);
		ck_assert_int_eq(splitzip_ctx_create(&p, &ctx), SPLITZIP_OK);
		ck_assert_str_eq(splitzip_ctx_backend_name(ctx), splitzip_backend_name(i));
		splitzip_ctx_free(ctx);
		for (size_t j = 0; j < i; j++)
			ck_assert_int_ne(splitzip_backend_id_of(j), splitzip_backend_id_of(i));
	}
	/* Without the override, AUTO picks the first usable host backend in priority order. */
	ck_assert_int_eq(splitzip_ctx_create(NULL, &ctx), SPLITZIP_OK);
	for (size_t i = 0; i < splitzip_backend_count(); i++) {
		if (splitzip_backend_available(i) && splitzip_registry_get(i)->host) {
			ck_assert_str_eq(splitzip_ctx_backend_name(ctx), splitzip_backend_name(i));
			break;
		}
	}
	splitzip_ctx_free(ctx);
}
END_TEST

/* ---- Kernels against the reference kernels ------------------------------------------------- */

/* Codebooks that stress the encoders: contiguous windows at both ends of the exponent range
 * and in the middle, and non-contiguous ones (spread out, clustered, ending at 255). */
static void kernel_codebook(int which, uint8_t cb[16])
{
	static const uint8_t sparse[16] = {0,   3,   17,  40,  64,  100, 118, 119,
	                                   120, 127, 128, 129, 191, 200, 254, 255};
	/* Spans of at most 32 values: a window with holes (typical of real KV), at the top of the
	 * range, and the widest such span at the bottom. */
	static const uint8_t near[16] = {110, 111, 112, 113, 114, 115, 116, 117,
	                                 118, 119, 120, 121, 122, 123, 124, 126};
	static const uint8_t top[16] = {236, 240, 241, 242, 243, 244, 245, 246,
	                                247, 248, 249, 251, 252, 253, 254, 255};
	static const uint8_t wide[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 31};
	for (unsigned k = 0; k < 16; k++) {
		switch (which) {
		case 0:
			cb[k] = (uint8_t)(112 + k);
			break;
		case 1:
			cb[k] = (uint8_t)k;
			break;
		case 2:
			cb[k] = (uint8_t)(240 + k);
			break;
		case 3:
			cb[k] = sparse[k];
			break;
		case 4:
			cb[k] = near[k];
			break;
		case 5:
			cb[k] = top[k];
			break;
		case 6:
			cb[k] = wide[k];
			break;
		default:
			cb[k] = (uint8_t)(5 + 16 * k);
			break;
		}
	}
}

#define N_KERNEL_CODEBOOKS 8
#define GUARD 64

/* Data whose exponents mostly hit codebook 'cb' (so both paths run), with escapes mixed in
 * at a rate that depends on 'mode'. */
static void kernel_data(const uint8_t cb[16], int mode, uint64_t seed, uint16_t *dst, size_t n)
{
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = sz_test_rand(&s);
		unsigned e = (mode == 0 || r % 100 >= (mode == 1 ? 3u : 60u))
		                 ? cb[(r >> 8) % 16]
		                 : (unsigned)(r >> 16) % 256;
		dst[i] = (uint16_t)(((r >> 40) & 0x8000) | (e << 7) | ((r >> 50) & 0x7F));
	}
}

typedef size_t (*encode_fn)(const splitzip_enc_tables *, const uint16_t *, size_t, uint8_t *,
                            uint8_t *, uint16_t *, uint8_t *);

/* Output offsets (codes, sign/mantissa) from 64-byte aligned buffers: the streaming kernels
 * take different head paths depending on them, or fall back to ordinary stores. */
static const size_t out_offsets[][2] = {{0, 0},  {8, 16},  {8, 48}, {0, 32}, {16, 32},
                                        {0, 48}, {24, 32}, {1, 3},  {16, 2}};
#define N_OUT_OFFSETS (sizeof out_offsets / sizeof out_offsets[0])

static void *xmalloc_aligned(size_t n)
{
	void *p = aligned_alloc(64, (n + 63) / 64 * 64);
	ck_assert_msg(p != NULL, "out of memory (%zu bytes)", n);
	return p;
}

static void check_encode_kernel_at(const splitzip_backend *b, encode_fn enc,
                                   const splitzip_enc_tables *t, const uint16_t *src, size_t n,
                                   const char *what, size_t coff, size_t soff)
{
	const size_t cb = (n + 1) / 2;
	uint8_t *c0 = (uint8_t *)xmalloc(cb + GUARD),
	        *c1b = (uint8_t *)xmalloc_aligned(cb + GUARD + 64);
	uint8_t *s0 = (uint8_t *)xmalloc(n + GUARD),
	        *s1b = (uint8_t *)xmalloc_aligned(n + GUARD + 64);
	uint8_t *c1 = c1b + coff, *s1 = s1b + soff;
	uint16_t *p0 = (uint16_t *)xmalloc(2 * (n + GUARD)),
	         *p1 = (uint16_t *)xmalloc(2 * (n + GUARD));
	uint8_t *e0 = (uint8_t *)xmalloc(n + GUARD), *e1 = (uint8_t *)xmalloc(n + GUARD);
	memset(c1, 0xEE, cb + GUARD);
	memset(s1, 0xEE, n + GUARD);
	memset(p1, 0xEE, 2 * (n + GUARD));
	memset(e1, 0xEE, n + GUARD);
	size_t k0 = splitzip_ref_encode_chunk(t, src, n, c0, s0, p0, e0);
	size_t k1 = enc(t, src, n, c1, s1, p1, e1);
	ck_assert_msg(k1 == k0, "%s %s: %zu escapes, reference %zu", b->name, what, k1, k0);
	size_t i = first_diff8(c1, c0, cb);
	ck_assert_msg(i == cb, "%s %s n=%zu: code byte %zu = 0x%02x, reference 0x%02x", b->name,
	              what, n, i, c1[i % cb], c0[i % cb]);
	i = first_diff8(s1, s0, n);
	ck_assert_msg(i == n, "%s %s n=%zu: sign/mantissa byte %zu differs", b->name, what, n, i);
	i = first_diff16(p1, p0, k0);
	ck_assert_msg(i == k0, "%s %s n=%zu: escape position %zu differs", b->name, what, n, i);
	i = first_diff8(e1, e0, k0);
	ck_assert_msg(i == k0, "%s %s n=%zu: escape exponent %zu differs", b->name, what, n, i);
	/* Nothing past the outputs' extents is touched (escape arrays: past the count). */
	ck_assert_msg(first_not8(c1 + cb, 0xEE, GUARD) == GUARD &&
	                  first_not8(s1 + n, 0xEE, GUARD) == GUARD,
	              "%s %s n=%zu: wrote past codes or sign/mantissa", b->name, what, n);
	ck_assert_msg(first_not8(e1 + k0, 0xEE, n + GUARD - k0) == n + GUARD - k0 &&
	                  first_not8((uint8_t *)(p1 + k0), 0xEE, 2 * (n + GUARD - k0)) ==
	                      2 * (n + GUARD - k0),
	              "%s %s n=%zu: wrote escape slots past the count %zu", b->name, what, n, k0);
	free(c0), free(c1b), free(s0), free(s1b), free(p0), free(p1), free(e0), free(e1);
}

static void check_encode_kernel(const splitzip_backend *b, const splitzip_enc_tables *t,
                                const uint16_t *src, size_t n, const char *what)
{
	check_encode_kernel_at(b, b->host->encode_chunk, t, src, n, what, 0, 0);
}

/* The streaming variant, for lengths around the block sizes, at every output offset. */
static void check_encode_stream_kernel(const splitzip_backend *b, const splitzip_enc_tables *t,
                                       const uint16_t *src, const char *what)
{
	static const size_t lens[] = {1,   2,   31,  32,  33,   63,   64,  65,
	                              100, 127, 128, 129, 1000, 4096, 4097};
	char w[96];
	snprintf(w, sizeof w, "%s (stream)", what);
	for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++)
		for (size_t o = 0; o < N_OUT_OFFSETS; o++)
			check_encode_kernel_at(b, b->host->encode_chunk_stream, t, src, lens[j], w,
			                       out_offsets[o][0], out_offsets[o][1]);
}

START_TEST(encode_kernel_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = (size_t)1 << 16;
	uint16_t *src = (uint16_t *)xmalloc(2 * max_n + 2);
	for (int c = 0; c < N_KERNEL_CODEBOOKS; c++) {
		uint8_t cb[16];
		kernel_codebook(c, cb);
		splitzip_enc_tables t;
		splitzip_enc_tables_init(&t, cb);
		for (int mode = 0; mode < 3; mode++) {
			char what[64];
			snprintf(what, sizeof what, "codebook %d (%s) mode %d", c,
			         t.contiguous ? "contiguous" : "general", mode);
			kernel_data(cb, mode, 77 + 13 * (uint64_t)c + (uint64_t)mode, src,
			            max_n + 1);
			/* Every length up to 300 (all tails), then chunk-sized lengths. */
			for (size_t n = 1; n <= 300; n++)
				check_encode_kernel(b, &t, src, n, what);
			static const size_t big[] = {1023, 1024, 1025,  4095,
			                             4096, 4097, 65535, 65536};
			for (size_t j = 0; j < sizeof big / sizeof big[0]; j++)
				check_encode_kernel(b, &t, src, big[j], what);
			/* Misaligned source. */
			check_encode_kernel(b, &t, src + 1, 4095, what);
			check_encode_stream_kernel(b, &t, src, what);
		}
		/* Every exponent value, each with both signs. */
		for (size_t i = 0; i < 512; i++)
			src[i] = (uint16_t)(((i & 1) << 15) | ((i / 2) << 7) | (i % 128));
		check_encode_kernel(b, &t, src, 512, "all exponents");
	}
	free(src);
}
END_TEST

/*
 * encode_count_chunk and encode_count_chunk_stream: the bytes of the reference encoder
 * (check_encode_kernel_at, through count_as_encode with the watch in g_watch) and the counts of
 * the reference (which must be count_codes' counts of the watched codes), added to what is in
 * the counters, for watches of 1 to 8 codes with and without code 0 (which the escapes have
 * too), both table widths (up to 4 codes: 2 pair tables; more: 4).
 */
static const splitzip_watch *g_watch;
static splitzip_encode_count_chunk_fn g_count_fn;
static uint64_t g_cnt[SPLITZIP_WATCH_MAX];

static size_t count_as_encode(const splitzip_enc_tables *t, const uint16_t *src, size_t n,
                              uint8_t *codes, uint8_t *sm, uint16_t *esc_pos, uint8_t *esc_exp)
{
	return g_count_fn(t, g_watch, src, n, codes, sm, esc_pos, esc_exp, g_cnt);
}

static void check_encode_count_at(const splitzip_backend *b, splitzip_encode_count_chunk_fn fn,
                                  const splitzip_enc_tables *t, const splitzip_watch *w,
                                  const uint16_t *src, size_t n, const char *what, size_t coff,
                                  size_t soff)
{
	uint64_t want[SPLITZIP_WATCH_MAX], hits[16] = {0};
	for (unsigned j = 0; j < SPLITZIP_WATCH_MAX; j++)
		g_cnt[j] = want[j] = 1000003ull * j + 11;
	uint8_t *codes = (uint8_t *)xmalloc(n / 2 + 1), *sm = (uint8_t *)xmalloc(n);
	uint16_t *pos = (uint16_t *)xmalloc(2 * n);
	uint8_t *ex = (uint8_t *)xmalloc(n);
	(void)splitzip_ref_encode_count_chunk(t, w, src, n, codes, sm, pos, ex, want);
	splitzip_ref_count_codes(codes, n, hits);
	for (unsigned j = 0; j < w->n; j++)
		ck_assert_msg(want[j] == 1000003ull * j + 11 + hits[w->code[j]],
		              "reference count of code %u differs from count_codes", w->code[j]);
	g_watch = w;
	g_count_fn = fn;
	check_encode_kernel_at(b, count_as_encode, t, src, n, what, coff, soff);
	for (unsigned j = 0; j < SPLITZIP_WATCH_MAX; j++)
		ck_assert_msg(g_cnt[j] == want[j],
		              "%s %s n=%zu offsets %zu/%zu watch of %u: count %u (code %u) %llu, "
		              "reference %llu",
		              b->name, what, n, coff, soff, w->n, j, w->code[j],
		              (unsigned long long)g_cnt[j], (unsigned long long)want[j]);
	free(codes), free(sm), free(pos), free(ex);
}

START_TEST(encode_count_kernel_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = (size_t)1 << 16;
	uint16_t *src = (uint16_t *)xmalloc(2 * max_n + 2);
	uint64_t s = 4242;
	static const size_t big[] = {1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536};
	static const size_t slens[] = {1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 4097};
	for (int c = 0; c < N_KERNEL_CODEBOOKS; c++) {
		uint8_t cb[16];
		kernel_codebook(c, cb);
		splitzip_enc_tables t;
		splitzip_enc_tables_init(&t, cb);
		for (int mode = 0; mode < 4; mode++) {
			kernel_data(cb, mode % 3, 501 + 7 * (uint64_t)c + (uint64_t)mode, src,
			            max_n + 1);
			if (mode == 3) /* one code everywhere: the byte counters fill fastest */
				for (size_t i = 0; i <= max_n; i++)
					src[i] = (uint16_t)((src[i] & 0x807F) | cb[c % 16] << 7);
			for (unsigned nw = 1; nw <= SPLITZIP_WATCH_MAX; nw++) {
				/* distinct codes, code 0 first in every other watch */
				uint8_t codes[SPLITZIP_WATCH_MAX], used[16] = {0};
				for (unsigned j = 0; j < nw; j++) {
					unsigned x = (unsigned)(sz_test_rand(&s) % 16);
					if (j == 0 && nw % 2)
						x = 0;
					while (used[x])
						x = (x + 1) % 16;
					used[x] = 1;
					codes[j] = (uint8_t)x;
				}
				splitzip_watch w;
				splitzip_watch_init(&w, codes, nw);
				char what[80];
				snprintf(what, sizeof what, "codebook %d mode %d", c, mode);
				for (size_t n = 1; n <= 160; n += 1 + (n > 70) * 3)
					check_encode_count_at(b, b->host->encode_count_chunk, &t,
					                      &w, src, n, what, 0, 0);
				/* whole chunks, with 1, 4, 5 and 8 watched codes */
				for (size_t j = 0; nw % 4 < 2 && j < sizeof big / sizeof big[0];
				     j++)
					check_encode_count_at(b, b->host->encode_count_chunk, &t,
					                      &w, src + j % 2, big[j], what, 0, 0);
				snprintf(what, sizeof what, "codebook %d mode %d (stream)", c,
				         mode);
				for (size_t j = 0; j < sizeof slens / sizeof slens[0]; j++)
					check_encode_count_at(
					    b, b->host->encode_count_chunk_stream, &t, &w, src,
					    slens[j], what,
					    out_offsets[(j + nw) % N_OUT_OFFSETS][0],
					    out_offsets[(j + nw) % N_OUT_OFFSETS][1]);
			}
		}
	}
	free(src);
}
END_TEST

START_TEST(decode_kernel_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = (size_t)1 << 16;
	uint8_t *codes = (uint8_t *)xmalloc(max_n / 2 + 1), *sm = (uint8_t *)xmalloc(max_n + 1);
	uint16_t *d0 = (uint16_t *)xmalloc(2 * max_n),
	         *d1 = (uint16_t *)xmalloc(2 * (max_n + GUARD));
	uint64_t s = 99;
	for (size_t i = 0; i <= max_n / 2; i++)
		codes[i] = (uint8_t)sz_test_rand(&s);
	for (size_t i = 0; i <= max_n; i++)
		sm[i] = (uint8_t)sz_test_rand(&s);
	static const size_t big[] = {1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536};
	uint16_t *d2b = (uint16_t *)xmalloc_aligned(2 * (max_n + GUARD) + 64);
	for (int c = 0; c < N_KERNEL_CODEBOOKS; c++) {
		uint8_t cb[16];
		kernel_codebook(c, cb);
		/* The streaming variant at every destination offset (in bytes: the head path
		 * depends on it). */
		static const size_t lens[] = {1, 2, 31, 32, 33, 63, 64, 65, 129, 1000, 4097, 65536};
		for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
			for (size_t off = 0; off < 64; off += 2) {
				size_t n = lens[j];
				uint16_t *d2 = (uint16_t *)((uint8_t *)d2b + off);
				memset(d2, 0xEE, 2 * (n + GUARD));
				splitzip_ref_decode_chunk(cb, codes, sm, n, d0);
				b->host->decode_chunk_stream(cb, codes, sm, n, d2);
				size_t i = first_diff16(d2, d0, n);
				ck_assert_msg(i == n,
				              "%s stream codebook %d n=%zu offset %zu: element %zu "
				              "differs",
				              b->name, c, n, off, i);
				ck_assert_msg(first_not8((uint8_t *)(d2 + n), 0xEE, 2 * GUARD) ==
				                  2 * GUARD,
				              "%s stream n=%zu: wrote past the end", b->name, n);
			}
		}
		for (size_t j = 0; j < 300 + sizeof big / sizeof big[0]; j++) {
			size_t n = j < 300 ? j + 1 : big[j - 300];
			for (int off = 0; off < 2; off++) { /* aligned and misaligned inputs */
				memset(d1, 0xEE, 2 * (n + GUARD));
				splitzip_ref_decode_chunk(cb, codes + off, sm + off, n, d0);
				b->host->decode_chunk(cb, codes + off, sm + off, n, d1);
				size_t i = first_diff16(d1, d0, n);
				ck_assert_msg(i == n, "%s codebook %d n=%zu: element %zu differs",
				              b->name, c, n, i);
				ck_assert_msg(first_not8((uint8_t *)(d1 + n), 0xEE, 2 * GUARD) ==
				                  2 * GUARD,
				              "%s n=%zu: wrote past the end", b->name, n);
			}
		}
	}
	free(codes), free(sm), free(d0), free(d1), free(d2b);
}
END_TEST

START_TEST(histogram_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = 2300000;
	uint16_t *src = (uint16_t *)xmalloc(2 * max_n);
	static const size_t sizes[] = {0, 1, 31, 33, 4095, 4096, 4097, 40000, 300000 - 1, 2300000};
	for (int g = 0; g < SZ_TEST_N_GENERATORS + 5; g++) {
		if (g < SZ_TEST_N_GENERATORS) {
			sz_test_generate(g, 5, src, max_n);
		} else if (g >= SZ_TEST_N_GENERATORS + 3) {
			/* The window moves: stretches of 5,000 to 120,000 elements in a window of
			 * 16 (rarely 18) exponents that shifts by 0 to 40 from stretch to stretch,
			 * and stretches over 60 exponents (no window: the histogram backs off to
			 * the scalar tables for up to 64 blocks and must find the window again
			 * after them); the second generator has long flat stretches. */
			uint64_t s = 17 + (uint64_t)g;
			size_t i = 0;
			while (i < max_n) {
				uint64_t r = sz_test_rand(&s);
				size_t len = 5000 + r % 115000;
				const int flat = (r >> 20) % 4 == 0;
				if (flat && g == SZ_TEST_N_GENERATORS + 4)
					len *= 8;
				const unsigned base = 60 + (unsigned)(r >> 24) % 40;
				for (size_t j = 0; j < len && i < max_n; j++, i++) {
					uint64_t q = sz_test_rand(&s);
					unsigned e =
					    flat ? base + (unsigned)(q % 60)
					         : base + (unsigned)(q % (q % 50 ? 16 : 18));
					src[i] = (uint16_t)(((q >> 32) & 0x807F) | (e << 7));
				}
			}
		} else {
			/* Windows at the ends of the range, and a window change half-way. */
			uint64_t s = 3;
			for (size_t i = 0; i < max_n; i++) {
				uint64_t r = sz_test_rand(&s);
				unsigned e = g == SZ_TEST_N_GENERATORS ? (unsigned)(r % 16)
				             : g == SZ_TEST_N_GENERATORS + 1
				                 ? 240 + (unsigned)(r % 16)
				                 : (i < max_n / 2 ? 100 : 200) + (unsigned)(r % 20);
				src[i] = (uint16_t)(((r >> 32) & 0x807F) | (e << 7));
			}
		}
		for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
			for (size_t off = 0; off < 2; off++) {
				size_t n = sizes[j] - (sizes[j] ? off : 0);
				uint64_t h0[256], h1[256];
				for (unsigned e = 0; e < 256; e++)
					h0[e] = h1[e] = e * 1000003ull; /* histograms accumulate */
				splitzip_ref_histogram(src + off, n, h0);
				b->host->histogram(src + off, n, h1);
				unsigned e = 0;
				while (e < 256 && h1[e] == h0[e])
					e++;
				ck_assert_msg(
				    e == 256,
				    "%s generator %d n=%zu: hist[%u] = %llu, reference %llu",
				    b->name, g, n, e, (unsigned long long)h1[e % 256],
				    (unsigned long long)h0[e % 256]);
			}
		}
	}
	free(src);
}
END_TEST

/* count_codes: every length 0..1100 codes at three offsets, large counts, skewed and uniform
 * codes, counts added to what is there; and codes written by the backend's own encoder. */
static int counts_match(const splitzip_backend *b, const uint8_t *codes, size_t n)
{
	uint64_t h0[16], h1[16];
	for (unsigned k = 0; k < 16; k++)
		h0[k] = h1[k] = k * 1000003ull + 7;
	splitzip_ref_count_codes(codes, n, h0);
	b->host->count_codes(codes, n, h1);
	return memcmp(h0, h1, sizeof h0) == 0;
}

START_TEST(count_codes_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = 300000;
	uint8_t *buf = (uint8_t *)xmalloc(max_n / 2 + 8);
	for (int skew = 0; skew < 3; skew++) {
		uint64_t s = 11 + (uint64_t)skew;
		for (size_t i = 0; i < max_n / 2 + 8; i++) {
			uint64_t r = sz_test_rand(&s);
			/* uniform; a few codes (as in KV data); one code only (carries all the way)
			 */
			buf[i] = skew == 0   ? (uint8_t)r
			         : skew == 1 ? (uint8_t)((r % 3 + 6) | ((r >> 8) % 4 + 5) << 4)
			                     : 0xDD;
		}
		for (size_t off = 0; off < 3; off++) {
			size_t n = 0;
			while (n <= 1100 && counts_match(b, buf + off, n))
				n++;
			ck_assert_msg(n > 1100,
			              "%s: counts of %zu codes at offset %zu differ (skew %d)",
			              b->name, n, off, skew);
			static const size_t big[] = {8191, 8192, 65535, 65536, 131073, 300000 - 1};
			for (size_t j = 0; j < sizeof big / sizeof big[0]; j++)
				ck_assert_msg(
				    counts_match(b, buf + off, big[j]),
				    "%s: counts of %zu codes at offset %zu differ (skew %d)",
				    b->name, big[j], off, skew);
		}
	}
	/* The codes of real encodes: with the escapes' exponents, the exact histogram. */
	uint16_t *src = (uint16_t *)xmalloc(2 * 70000);
	uint16_t *pos = (uint16_t *)xmalloc(2 * 70000);
	uint8_t *sm = (uint8_t *)xmalloc(70000), *ex = (uint8_t *)xmalloc(70000);
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		const size_t n = 65536 - (size_t)g;
		sz_test_generate(g, 9, src, n);
		uint64_t h[256] = {0}, got[256] = {0}, hits[16] = {0};
		splitzip_ref_histogram(src, n, h);
		uint8_t cbk[16];
		splitzip_codebook_select(h, cbk);
		splitzip_enc_tables t;
		splitzip_enc_tables_init(&t, cbk);
		const size_t E = b->host->encode_chunk(&t, src, n, buf, sm, pos, ex);
		b->host->count_codes(buf, n, hits);
		for (unsigned k = 0; k < 16; k++)
			got[cbk[k]] += hits[k];
		got[cbk[0]] -= E;
		for (size_t j = 0; j < E; j++)
			got[ex[j]]++;
		ck_assert_msg(memcmp(got, h, sizeof h) == 0,
		              "%s generator %d: histogram from codes", b->name, g);
	}
	free(src), free(pos), free(sm), free(ex), free(buf);
}
END_TEST

/* recode_codes: codes, the hits reported and the bytes around them as the reference has them,
 * for every length 0..1100 at three offsets, large chunks, and maps and flags from identity to
 * every code changed and flagged. */
static int recode_matches(const splitzip_backend *b, const uint8_t *codes, size_t n,
                          const uint8_t map[16], const uint8_t flag[16], uint8_t *c0, uint8_t *c1,
                          uint32_t *h0, uint32_t *h1)
{
	const size_t bytes = (n + 1) / 2 + 2;
	memcpy(c0, codes, bytes);
	memcpy(c1, codes, bytes);
	const size_t k0 = splitzip_ref_recode_codes(c0, n, map, flag, h0);
	const size_t k1 = b->host->recode_codes(c1, n, map, flag, h1);
	return k0 == k1 && memcmp(c0, c1, bytes) == 0 && memcmp(h0, h1, k0 * 4) == 0;
}

START_TEST(recode_codes_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = 65536;
	uint8_t *buf = (uint8_t *)xmalloc(max_n / 2 + 8), *c0 = (uint8_t *)xmalloc(max_n / 2 + 8),
	        *c1 = (uint8_t *)xmalloc(max_n / 2 + 8);
	uint32_t *h0 = (uint32_t *)xmalloc(4 * max_n), *h1 = (uint32_t *)xmalloc(4 * max_n);
	uint64_t s = 5;
	for (int variant = 0; variant < 4; variant++) {
		uint8_t map[16], flag[16];
		for (unsigned c = 0; c < 16; c++) {
			const uint64_t r = sz_test_rand(&s);
			/* identity, one code dropped, a shift by one, anything */
			map[c] = variant == 0   ? (uint8_t)c
			         : variant == 1 ? (uint8_t)(c == 3 ? 0 : c)
			         : variant == 2 ? (uint8_t)(c ? c - 1 : 0)
			                        : (uint8_t)(r % 16);
			flag[c] = variant == 0 ? 0 : variant == 3 ? (uint8_t)(r >> 8) % 2 : c == 3;
		}
		for (size_t i = 0; i < max_n / 2 + 8; i++) {
			const uint64_t r = sz_test_rand(&s);
			/* mostly codes 4..11 (KV-like), a flagged code now and then */
			buf[i] = r % 64 ? (uint8_t)((r >> 8) % 8 + 4 + ((r >> 16) % 8 + 4) * 16)
			                : (uint8_t)(r >> 24);
		}
		for (size_t off = 0; off < 3; off++) {
			size_t n = 0;
			while (n <= 1100 &&
			       recode_matches(b, buf + off, n, map, flag, c0, c1, h0, h1))
				n++;
			ck_assert_msg(n > 1100,
			              "%s: recode of %zu codes at offset %zu differs (%d)", b->name,
			              n, off, variant);
			static const size_t big[] = {4095, 4096, 65535, 65536};
			for (size_t j = 0; j < sizeof big / sizeof big[0]; j++)
				ck_assert_msg(
				    recode_matches(b, buf + off, big[j], map, flag, c0, c1, h0, h1),
				    "%s: recode of %zu codes at offset %zu differs (%d)", b->name,
				    big[j], off, variant);
		}
	}
	free(buf), free(c0), free(c1), free(h0), free(h1);
}
END_TEST

START_TEST(hash_chunk_matches_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = 131072 + 64;
	uint8_t *buf = (uint8_t *)xmalloc(max_n + 8);
	uint64_t s = 1;
	for (size_t i = 0; i < max_n + 8; i++)
		buf[i] = (uint8_t)sz_test_rand(&s);
	for (size_t off = 0; off < 3; off++) {
		size_t n = 0;
		while (n <= 1100 &&
		       b->host->hash_chunk(buf + off, n) == splitzip_hash_bytes(buf + off, n))
			n++;
		ck_assert_msg(n > 1100, "%s: hash of %zu bytes at offset %zu differs", b->name, n,
		              off);
		static const size_t big[] = {2048, 8190, 8192, 8194, 131070, 131072, 131072 + 63};
		for (size_t j = 0; j < sizeof big / sizeof big[0]; j++)
			ck_assert_msg(b->host->hash_chunk(buf + off, big[j]) ==
			                  splitzip_hash_bytes(buf + off, big[j]),
			              "%s: hash of %zu bytes at offset %zu differs", b->name,
			              big[j], off);
	}
	/* And the definition itself, on a few sizes. */
	size_t n = 0;
	while (n < 600 && b->host->hash_chunk(buf, n) == splitzip_hash_bytes_small(buf, n))
		n += 7;
	ck_assert_msg(n >= 600, "%s: hash of %zu bytes differs from the definition", b->name, n);
	free(buf);
}
END_TEST

/* ---- Frames against the scalar oracle ------------------------------------------------------ */

START_TEST(frames_generated_match_scalar)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	static const unsigned logs[] = {10, 12, 16};
	/* Large enough to run on several threads (the driver's threshold is 2^19 elements). */
	const size_t big = ((size_t)1 << 19) + 12345;
	uint16_t *src = (uint16_t *)xmalloc(2 * big);
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		sz_test_generate(g, 1234 + (uint64_t)g, src, big);
		for (size_t li = 0; li < 3; li++) {
			const size_t c = (size_t)1 << logs[li];
			const size_t sizes[] = {0, 1, 2, 3, c - 1, c, c + 1, 3 * c + 17, big};
			char what[64];
			snprintf(what, sizeof what, "generator %s", sz_test_gen_name(g));
			for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
				check_input(b->name, src, sizes[j], logs[li], 0, NULL, what);
			check_input(b->name, src, big, logs[li], SPLITZIP_FLAG_CONTENT_CHECKSUM,
			            NULL, what);
		}
	}
	free(src);
}
END_TEST

/* A frame above the driver's streaming threshold (SZ_STREAM_MIN_BYTES, 32 MiB), where the
 * non-temporal kernels run; decoding with a content checksum uses the ordinary ones. */
START_TEST(frames_large_match_scalar)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = ((size_t)32 << 19) + 4097;
	uint16_t *src = (uint16_t *)xmalloc(2 * n);
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 77, src, n);
	for (unsigned flags = 0; flags <= SPLITZIP_FLAG_CONTENT_CHECKSUM; flags++) {
		frame ref = compress_with("scalar", src, n, 12, 1, flags, NULL);
		frame f = compress_with(b->name, src, n, 12, 2, flags, NULL);
		expect_same_frame(&ref, &f, b->name, "large frame");
		expect_decodes(b->name, &f, src, n, 2, "large frame");
		free(ref.p);
		free(f.p);
	}
	free(src);
}
END_TEST

/* Fixed codebooks: a contiguous one and a non-contiguous one on the same data. */
START_TEST(frames_fixed_codebook_match_scalar)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = ((size_t)1 << 19) + 777;
	uint16_t *src = (uint16_t *)xmalloc(2 * n);
	for (int c = 0; c < N_KERNEL_CODEBOOKS; c++) {
		splitzip_codebook cb;
		kernel_codebook(c, cb.exponents);
		for (int mode = 0; mode < 3; mode++) {
			kernel_data(cb.exponents, mode, 4321 + (uint64_t)c, src, n);
			check_input(b->name, src, n, 12, SPLITZIP_FLAG_CONTENT_CHECKSUM, &cb,
			            "fixed codebook");
			check_input(b->name, src, 5000, 10, 0, &cb, "fixed codebook");
		}
	}
	free(src);
}
END_TEST

/* Real KV data: the bundled sample, plus the shared data's kv/ (../shared/data/kv). */
static void check_kv_file(const char *name, const char *path)
{
	size_t bytes = 0;
	uint16_t *src = (uint16_t *)sz_test_read_file(path, &bytes);
	ck_assert_msg(src != NULL, "cannot read %s", path);
	size_t n = bytes / 2;
	splitzip_codebook cb;
	ck_assert_int_eq(splitzip_calibrate(src, n, &cb), SPLITZIP_OK);
	static const unsigned logs[] = {10, 12, 16};
	for (size_t li = 0; li < 3; li++) {
		check_input(name, src, n, logs[li], 0, NULL, path);
		check_input(name, src, n, logs[li], SPLITZIP_FLAG_CONTENT_CHECKSUM, &cb, path);
	}
	/* A page-sized prefix and an odd-sized one. */
	check_input(name, src, n < 32768 ? n : 32768, 12, 0, NULL, path);
	check_input(name, src, n < 32768 ? n : 12345, 10, 0, &cb, path);
	free(src);
}

START_TEST(frames_real_kv_match_scalar)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	check_kv_file(b->name, SZ_TEST_DATA_DIR "/kv/aidreams260k__shakespeare.K.bf16");
	check_kv_file(b->name, SZ_TEST_DATA_DIR "/kv/aidreams260k__shakespeare.V.bf16");
	DIR *d = opendir(SZ_TEST_SHARED_KV_DIR);
	if (!d) {
		ck_assert_msg(!SZ_TEST_REQUIRE_SHARED_DATA, "%s: %s", SZ_TEST_SHARED_KV_DIR,
		              strerror(errno));
		printf("xbackend: %s absent: shared KV data skipped\n", SZ_TEST_SHARED_KV_DIR);
		return;
	}
	struct dirent *ent;
	int files = 0;
	while ((ent = readdir(d)) != NULL) {
		size_t len = strlen(ent->d_name);
		if (len < 5 || strcmp(ent->d_name + len - 5, ".bf16") != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", SZ_TEST_SHARED_KV_DIR, ent->d_name);
		check_kv_file(b->name, path);
		files++;
	}
	closedir(d);
	printf("xbackend: %s: %d shared KV files checked\n", b->name, files);
}
END_TEST

/* ---- The codebook from the input is the canonical one ---------------------------------------- */

static const uint64_t *sort_hist; /* qsort has no context argument */

static int by_count_then_exponent(const void *a, const void *b)
{
	unsigned x = *(const uint8_t *)a, y = *(const uint8_t *)b;
	if (sort_hist[x] != sort_hist[y])
		return sort_hist[x] > sort_hist[y] ? -1 : 1;
	return (int)x - (int)y;
}

static int ascending(const void *a, const void *b)
{
	return (int)*(const uint8_t *)a - (int)*(const uint8_t *)b;
}

/* FORMAT.md §5.1 spelled out with qsort: an oracle independent of sz_codebook.c. */
static void canonical_codebook(const uint16_t *src, size_t n, splitzip_codebook *cb)
{
	uint64_t hist[256] = {0};
	for (size_t i = 0; i < n; i++)
		hist[(src[i] >> 7) & 0xFF]++;
	uint8_t order[256];
	for (unsigned e = 0; e < 256; e++)
		order[e] = (uint8_t)e;
	sort_hist = hist;
	qsort(order, 256, 1, by_count_then_exponent);
	qsort(order, 16, 1, ascending);
	memcpy(cb->exponents, order, 16);
}

/* A frame compressed with the codebook from the input equals the scalar frame compressed with
 * the canonical codebook given as a fixed one: this checks the codebook selection and the
 * driver's from-input path, which every backend shares. */
START_TEST(from_input_codebook_is_canonical)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n =
	    ((size_t)1 << 21) + 99; /* predicted from a sample (core/sz_driver_split4.c) */
	uint16_t *src = (uint16_t *)xmalloc(2 * n);
	for (int g = 0; g <= SZ_TEST_N_GENERATORS; g++) {
		size_t len = n;
		if (g < SZ_TEST_N_GENERATORS) {
			sz_test_generate(g, 2024, src, n);
		} else {
			uint16_t *kv = sz_test_load_kv("V", &len);
			ck_assert_ptr_nonnull(kv);
			for (size_t i = 0; i < n; i += len) /* tiled up to the predicted size */
				memcpy(src + i, kv, (n - i < len ? n - i : len) * 2);
			len = n;
			free(kv);
		}
		static const size_t sizes[] = {1, 17, 4096, 40000, ((size_t)1 << 21) - 1, 0};
		for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
			size_t m = sizes[j] ? sizes[j] : len;
			splitzip_codebook cb;
			canonical_codebook(src, m, &cb);
			frame want = compress_with("scalar", src, m, 12, 1, 0, &cb);
			for (unsigned threads = 1; threads <= 2; threads++) {
				frame got = compress_with(b->name, src, m, 12, threads, 0, NULL);
				char what[96];
				snprintf(what, sizeof what,
				         "from-input codebook, generator %d n=%zu", g, m);
				expect_same_frame(&want, &got, b->name, what);
				free(got.p);
			}
			free(want.p);
		}
	}
	free(src);
}
END_TEST

/* ---- N x N: every backend decodes every backend's frames ----------------------------------- */

START_TEST(decode_matrix)
{
	const splitzip_backend *enc = usable(_i);
	if (!enc)
		return;
	size_t n_kv = 0;
	uint16_t *kv = sz_test_load_kv("K", &n_kv);
	ck_assert_ptr_nonnull(kv);
	const size_t n = ((size_t)1 << 19) + 3;
	uint16_t *gen = (uint16_t *)xmalloc(2 * n);
	static const int gens[] = {SZ_GEN_KV_SKEWED, SZ_GEN_ESCAPE_5PCT, SZ_GEN_SPECIALS,
	                           SZ_GEN_SPARSE_WINDOW, SZ_GEN_RANDOM};
	for (size_t gi = 0; gi <= sizeof gens / sizeof gens[0]; gi++) {
		const uint16_t *src = kv;
		size_t len = n_kv;
		if (gi < sizeof gens / sizeof gens[0]) {
			sz_test_generate(gens[gi], 31, gen, n);
			src = gen;
			len = n;
		}
		for (unsigned flags = 0; flags <= SPLITZIP_FLAG_CONTENT_CHECKSUM; flags++) {
			frame f = compress_with(enc->name, src, len, 12, 2, flags, NULL);
			for (size_t j = 0; j < splitzip_registry_count(); j++) {
				const splitzip_backend *dec = splitzip_registry_get(j);
				if (!dec->probe())
					continue;
				char what[128];
				snprintf(what, sizeof what, "frame by %s, data %zu, flags %u",
				         enc->name, gi, flags);
				expect_decodes(dec->name, &f, src, len, 1 + (unsigned)(j % 3),
				               what);
			}
			free(f.p);
		}
	}
	free(gen);
	free(kv);
}
END_TEST

/* ---- Suite ----------------------------------------------------------------------------------- */

static Suite *xbackend_suite(void)
{
	Suite *s = suite_create("xbackend");
	const int nb = (int)splitzip_registry_count();

	TCase *reg = tcase_create("registry");
	tcase_add_test(reg, expected_backends_usable);
	tcase_add_test(reg, registry_well_formed);
	tcase_add_test(reg, force_backend);
	suite_add_tcase(s, reg);

	TCase *kern = tcase_create("kernels");
	tcase_set_timeout(kern, 600);
	tcase_add_loop_test(kern, encode_kernel_matches_reference, 0, nb);
	tcase_add_loop_test(kern, encode_count_kernel_matches_reference, 0, nb);
	tcase_add_loop_test(kern, decode_kernel_matches_reference, 0, nb);
	tcase_add_loop_test(kern, histogram_matches_reference, 0, nb);
	tcase_add_loop_test(kern, hash_chunk_matches_reference, 0, nb);
	tcase_add_loop_test(kern, count_codes_matches_reference, 0, nb);
	tcase_add_loop_test(kern, recode_codes_matches_reference, 0, nb);
	suite_add_tcase(s, kern);

	TCase *fr = tcase_create("frames");
	tcase_set_timeout(fr, 1200);
	tcase_add_loop_test(fr, frames_generated_match_scalar, 0, nb);
	tcase_add_loop_test(fr, frames_fixed_codebook_match_scalar, 0, nb);
	tcase_add_loop_test(fr, frames_large_match_scalar, 0, nb);
	tcase_add_loop_test(fr, frames_real_kv_match_scalar, 0, nb);
	tcase_add_loop_test(fr, from_input_codebook_is_canonical, 0, nb);
	tcase_add_loop_test(fr, decode_matrix, 0, nb);
	suite_add_tcase(s, fr);
	return s;
}

int main(void)
{
	printf("xbackend: backends compiled in (priority order):");
	for (size_t i = 0; i < splitzip_backend_count(); i++)
		printf(" %s%s", splitzip_backend_name(i),
		       splitzip_backend_available(i) ? "" : "(unusable)");
	printf("\n");
	SRunner *sr = srunner_create(xbackend_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
