/*
 * test_xbackend_entropy.c -- cross-backend conformance of entropy frames (mode 2, doc/FORMAT.md
 * §4.3): every usable host backend's mode-2 kernels must match the scalar reference kernels
 * (words, sign/mantissa bytes, escape counts, decoded elements and statuses, also on damaged
 * words), its frames must be byte-identical to the scalar oracle's for generated and real KV
 * data, every chunk size and thread count, with tables from the input or fixed, and every
 * backend must decode every other backend's frames.
 *
 * Loop tests run over the registry (_i = registry index); a backend not usable here is
 * skipped (the expected-backends test of test_xbackend.c catches a missing one).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include "sz_check.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_guard.h"
#include "sz_test_data.h"
#include "../../dispatch/sz_backend.h"

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	ck_assert_msg(p != NULL, "out of memory (%zu bytes)", n);
	return p;
}

static size_t first_diff8(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The registry entry _i, or NULL if it is not a host backend usable here. */
static const splitzip_backend *usable(int i)
{
	const splitzip_backend *b = splitzip_registry_get((size_t)i);
	ck_assert_ptr_nonnull(b);
	if (!b->host)
		return NULL;
	if (!b->probe()) {
		ck_assert_msg(!sz_test_backend_expected(b->name),
		              "%s is named in SPLITZIP_EXPECT_BACKENDS but not usable here",
		              b->name);
		return NULL;
	}
	return b;
}

START_TEST(entropy_slots_set)
{
	for (size_t i = 0; i < splitzip_registry_count(); i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		if (!b->host)
			continue;
		ck_assert_msg(b->host->entropy_encode_chunk != NULL, "%s: entropy_encode_chunk",
		              b->name);
		ck_assert_msg(b->host->entropy_decode_pair != NULL, "%s: entropy_decode_pair",
		              b->name);
		ck_assert_msg(b->host->entropy_decode_chunk != NULL, "%s: entropy_decode_chunk",
		              b->name);
	}
}
END_TEST

/* ---- Kernels against the reference kernels ------------------------------------------------- */

#define GUARD 64

/* Tables that stress the kernels: from real-like data, one code and the escape, all 257
 * symbols with the longest codes, and a calibrated table under which much is an escape. */
static void kernel_table(int which, const uint16_t *sample, size_t n, splitzip_entropy_table *t)
{
	uint64_t hist[256] = {0};
	switch (which) {
	case 0: /* the sample's own table: no escapes */
		splitzip_histogram(sample, n, hist);
		break;
	case 1: /* one exponent: everything else escapes, codes of 1 bit */
		hist[120] = 1;
		break;
	case 2: /* every exponent, a geometric tail: lengths up to 11 */
		for (int e = 0; e < 256; e++)
			hist[e] = 1 + ((e % 32 == 0) ? (uint64_t)1 << (e / 16) : 0);
		break;
	default: /* a narrow window: escapes with an 11-bit escape code and phase-B reads */
		for (int e = 116; e < 124; e++)
			hist[e] = 100000;
		break;
	}
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, t), SPLITZIP_OK);
}

/*
 * entropy_decode_pair on the chunk (words w0, sign/mantissa s0) and a second chunk of other
 * length (the first n2 elements), in both orders, every buffer flush against a guard page.
 */
static void check_pair(const splitzip_backend *b, const splitzip_entropy_enc_tables *enc,
                       const splitzip_entropy_dec_tables *dec, const uint16_t *src, size_t n,
                       const uint8_t *w0, size_t nw0, const uint8_t *s0, const char *what)
{
	const size_t n2 = n > 1 ? n / 2 + 1 : 1;
	uint8_t *w2 = xmalloc(2 * (size_t)splitzip_entropy_chunk_words_max(n2)), *s2 = xmalloc(n2);
	size_t nw2 = 0;
	const size_t e2 = splitzip_ref_entropy_encode_chunk(enc, src, n2, s2, w2, &nw2);
	size_t e0 = 0;
	uint16_t *tmp = xmalloc(2 * n);
	ck_assert_int_eq(splitzip_ref_entropy_decode_chunk(dec, w0, nw0, s0, n, tmp, &e0),
	                 SPLITZIP_OK);
	sz_guard_buf g[6];
	ck_assert_int_eq(sz_guard_dup(&g[0], w0, 2 * nw0, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_dup(&g[1], s0, n, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&g[2], 2 * n, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_dup(&g[3], w2, 2 * nw2, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_dup(&g[4], s2, n2, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&g[5], 2 * n2, SZ_GUARD_END), 0);
	for (int order = 0; order < 2; order++) {
		splitzip_entropy_chunk c[2];
		c[order] =
		    (splitzip_entropy_chunk){g[0].ptr, nw0, g[1].ptr, n, (uint16_t *)g[2].ptr, 0};
		c[1 - order] =
		    (splitzip_entropy_chunk){g[3].ptr, nw2, g[4].ptr, n2, (uint16_t *)g[5].ptr, 0};
		ck_assert_int_eq(b->host->entropy_decode_pair(dec, c), SPLITZIP_OK);
		ck_assert_msg(
		    c[order].n_escapes == e0 && c[1 - order].n_escapes == e2 &&
		        memcmp(g[2].ptr, src, 2 * n) == 0 && memcmp(g[5].ptr, src, 2 * n2) == 0,
		    "%s %s n=%zu: pair with n=%zu (order %d)", b->name, what, n, n2, order);
	}
	for (int j = 0; j < 6; j++)
		sz_guard_free(&g[j]);
	free(w2), free(s2), free(tmp);
}

/* One chunk of n elements through the backend's kernels and the reference kernels. */
static void check_chunk(const splitzip_backend *b, const splitzip_entropy_table *t,
                        const uint16_t *src, size_t n, const char *what)
{
	splitzip_entropy_enc_tables enc;
	splitzip_entropy_dec_tables dec;
	splitzip_entropy_enc_init(&enc, t);
	splitzip_entropy_dec_init(&dec, t);
	const size_t wmax = (size_t)splitzip_entropy_chunk_words_max(n);
	uint8_t *s0 = xmalloc(n + GUARD), *s1 = xmalloc(n + GUARD);
	uint8_t *w0 = xmalloc(2 * wmax + GUARD), *w1b = xmalloc(2 * wmax + GUARD + 1);
	uint8_t *w1 = w1b + 1; /* an odd address: words may sit at any alignment */
	memset(s1, 0xEE, n + GUARD);
	memset(w1, 0xEE, 2 * wmax + GUARD);
	size_t nw0 = 0, nw1 = 0;
	size_t e0 = splitzip_ref_entropy_encode_chunk(&enc, src, n, s0, w0, &nw0);
	size_t e1 = b->host->entropy_encode_chunk(&enc, src, n, s1, w1, &nw1);
	ck_assert_msg(e1 == e0 && nw1 == nw0,
	              "%s %s n=%zu: %zu escapes %zu words, reference %zu %zu", b->name, what, n, e1,
	              nw1, e0, nw0);
	size_t i = first_diff8(w1, w0, 2 * nw0);
	ck_assert_msg(i == 2 * nw0, "%s %s n=%zu: word byte %zu differs", b->name, what, n, i);
	ck_assert_msg(first_diff8(s1, s0, n) == n, "%s %s n=%zu: sign/mantissa", b->name, what, n);
	for (size_t g = 0; g < GUARD; g++)
		ck_assert_msg(s1[n + g] == 0xEE && w1[2 * nw0 + g] == 0xEE,
		              "%s %s n=%zu: wrote past its output", b->name, what, n);
	/* Again from elements and into sign/mantissa bytes each flush against a guard page: the
	 * encoder may not read an element past n (an exponent of the last step's inactive lanes
	 * looked up) nor write past sm[n). */
	sz_guard_buf gi, gsm;
	ck_assert_int_eq(sz_guard_dup(&gi, src, 2 * n, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&gsm, n, SZ_GUARD_END), 0);
	e1 = b->host->entropy_encode_chunk(&enc, (const uint16_t *)gi.ptr, n, gsm.ptr, w1, &nw1);
	ck_assert_msg(e1 == e0 && nw1 == nw0 && first_diff8(w1, w0, 2 * nw0) == 2 * nw0 &&
	                  first_diff8(gsm.ptr, s0, n) == n,
	              "%s %s n=%zu: encoded at guard pages", b->name, what, n);
	sz_guard_free(&gi), sz_guard_free(&gsm);
	uint16_t *d1 = xmalloc(2 * (n + GUARD));
	memset(d1, 0xEE, 2 * (n + GUARD));
	size_t esc = 0;
	ck_assert_int_eq(b->host->entropy_decode_chunk(&dec, w0, nw0, s0, n, d1, &esc),
	                 SPLITZIP_OK);
	ck_assert_uint_eq(esc, e0);
	ck_assert_msg(memcmp(d1, src, 2 * n) == 0, "%s %s n=%zu: decoded elements", b->name, what,
	              n);
	ck_assert_msg(d1[n] == 0xEEEE, "%s %s n=%zu: decoder wrote past n", b->name, what, n);
	/* Again with the words, the sign/mantissa bytes and the output each flush against a guard
	 * page: a kernel may not touch a byte past them. */
	sz_guard_buf gw, gs, gd;
	ck_assert_int_eq(sz_guard_dup(&gw, w0, 2 * nw0, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_dup(&gs, s0, n, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&gd, 2 * n, SZ_GUARD_END), 0);
	ck_assert_int_eq(
	    b->host->entropy_decode_chunk(&dec, gw.ptr, nw0, gs.ptr, n, (uint16_t *)gd.ptr, &esc),
	    SPLITZIP_OK);
	ck_assert_msg(memcmp(gd.ptr, src, 2 * n) == 0, "%s %s n=%zu: decoded at guard pages",
	              b->name, what, n);
	sz_guard_free(&gw), sz_guard_free(&gs), sz_guard_free(&gd);
	check_pair(b, &enc, &dec, src, n, w0, nw0, s0, what);
	free(s0), free(s1), free(w0), free(w1b), free(d1);
}

START_TEST(entropy_kernels_match_reference)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = (size_t)1 << 16;
	uint16_t *src = xmalloc(2 * max_n);
	static const int gens[] = {SZ_GEN_KV_SKEWED, SZ_GEN_ESCAPE_5PCT, SZ_GEN_SPECIALS,
	                           SZ_GEN_RANDOM};
	for (int tb = 0; tb < 4; tb++)
		for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
			sz_test_generate(gens[g], 11 + (uint64_t)tb, src, max_n);
			splitzip_entropy_table t;
			kernel_table(tb, src, 4096, &t);
			char what[96];
			snprintf(what, sizeof what, "table %d, %s", tb, sz_test_gen_name(gens[g]));
			for (size_t n = 1; n <= 160; n++) /* every step tail */
				check_chunk(b, &t, src, n, what);
			static const size_t big[] = {1023,  1024,  1025,  4096,
			                             16383, 16384, 65535, 65536};
			for (size_t j = 0; j < sizeof big / sizeof big[0]; j++)
				check_chunk(b, &t, src, big[j], what);
			check_chunk(b, &t, src + 1, 4095, what); /* misaligned source */
		}
	free(src);
}
END_TEST

/*
 * A table over 'm' coded exponents (1..256, so 2..257 symbols with the escape) starting at
 * 'first' (wrapping at 256) or scattered, with weights from flat to very skewed: every code
 * length from 1 to 11, codes longer than 8 bits and codes of 5-8 bits under several 4-bit
 * prefixes (the fallbacks of the SIMD decoders), coded exponents spread wider than the
 * encoders' windows of 32 and 64 (their lookup of the lanes outside) or inside them.
 */
static void random_table(uint64_t *s, unsigned m, unsigned first, int scatter, int skew,
                         splitzip_entropy_table *t, uint64_t hist[256])
{
	memset(hist, 0, 256 * sizeof hist[0]);
	for (unsigned j = 0; j < m; j++) {
		unsigned e = (first + j) % 256;
		if (scatter) /* a random free exponent */
			do
				e = (unsigned)(sz_test_rand(s) % 256);
			while (hist[e]);
		const unsigned sh = skew ? (unsigned)(sz_test_rand(s) % 30) : 0;
		hist[e] = 1 + (sz_test_rand(s) % 64) + ((uint64_t)1 << sh);
	}
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, t), SPLITZIP_OK);
}

/* Elements drawn from the table's exponents in proportion to hist, 1 in 'esc_every' (if not
 * 0) replaced by an exponent without a code of its own when there is one. */
static void draw_elements(uint64_t *s, const uint64_t hist[256], const splitzip_entropy_table *t,
                          unsigned esc_every, uint16_t *dst, size_t n)
{
	uint64_t total = 0;
	for (unsigned e = 0; e < 256; e++)
		total += hist[e];
	unsigned uncoded[256], nu = 0;
	for (unsigned e = 0; e < 256; e++)
		if (!t->lengths[e])
			uncoded[nu++] = e;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = sz_test_rand(s);
		unsigned e = 0;
		if (esc_every && nu && r % esc_every == 0) {
			e = uncoded[(r >> 20) % nu];
		} else {
			uint64_t x = (r >> 8) % total;
			while (x >= hist[e])
				x -= hist[e++];
		}
		dst[i] = (uint16_t)((r >> 40 & 0x8000) | e << 7 | (r >> 48 & 0x7F));
	}
}

/* Random tables of every size and shape, real-like and escape-heavy data, every lane-count
 * edge of a chunk. */
START_TEST(entropy_kernels_random_tables)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t max_n = 5000;
	uint16_t *src = xmalloc(2 * max_n);
	uint64_t s = 77, hist[256];
	static const unsigned ms[] = {1,  2,  3,  5,   8,   15,  16,  17,  31,  32, 33,
	                              63, 64, 65, 100, 128, 200, 254, 255, 256, 21, 24};
	static const size_t ns[] = {1, 2, 31, 32, 33, 63, 64, 65, 95, 97, 640, 1023, 4097, 5000};
	for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
		for (int shape = 0; shape < 6; shape++) {
			splitzip_entropy_table t;
			const unsigned first = shape < 2 ? 0 : shape < 4 ? 256 - ms[mi] / 2 : 100;
			random_table(&s, ms[mi], first, shape == 5, shape % 2, &t, hist);
			static const unsigned esc_every[6] = {50, 50, 0, 50, 3, 50};
			draw_elements(&s, hist, &t, esc_every[shape], src, max_n);
			char what[96];
			snprintf(what, sizeof what, "random table %u exponents, shape %d", ms[mi],
			         shape);
			for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
				check_chunk(b, &t, src, ns[k], what);
		}
	free(src);
}
END_TEST

/* Every one of the 65,536 BF16 patterns in one chunk, in order and shuffled, under tables that
 * code all exponents, a window, one exponent, and the longest codes. */
START_TEST(entropy_kernels_all_patterns)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = 65536;
	uint16_t *src = xmalloc(2 * n);
	uint64_t s = 5, hist[256];
	for (int order = 0; order < 2; order++) {
		for (size_t i = 0; i < n; i++)
			src[i] = (uint16_t)i;
		for (size_t i = n - 1; order && i > 0; i--) {
			const size_t j = (size_t)(sz_test_rand(&s) % (i + 1));
			const uint16_t x = src[i];
			src[i] = src[j];
			src[j] = x;
		}
		for (int tb = 0; tb < 6; tb++) {
			splitzip_entropy_table t;
			if (tb < 4)
				kernel_table(tb, src, n, &t);
			else
				random_table(&s, tb == 4 ? 256 : 40, 90, 0, 1, &t, hist);
			char what[64];
			snprintf(what, sizeof what, "all patterns, order %d, table %d", order, tb);
			check_chunk(b, &t, src, n, what);
			check_chunk(b, &t, src + 1, 4000, what);
		}
	}
	free(src);
}
END_TEST

/*
 * One lane with a 1-bit code and 31 lanes of escapes with long codes: the slow lane keeps a
 * word open while the others reserve up to 64 words a step (the encoders address an open word
 * relative to the next one), and phase B reads words in almost every step.
 */
START_TEST(entropy_kernels_slow_lane)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = 65536;
	uint16_t *src = xmalloc(2 * n);
	uint64_t hist[256] = {0}, s = 9;
	hist[120] = 1000000; /* 1 bit */
	for (unsigned e = 0; e < 200; e++)
		if (e != 120)
			hist[e] = 1 + e % 3; /* long codes */
	splitzip_entropy_table t;
	ck_assert_int_eq(splitzip_entropy_table_from_histogram(hist, &t), SPLITZIP_OK);
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = sz_test_rand(&s);
		const unsigned e = i % 32 == 0 ? 120 : 200 + (unsigned)(r % 56); /* escapes */
		src[i] = (uint16_t)(e << 7 | (r >> 32 & 0x807F));
	}
	check_chunk(b, &t, src, n, "slow lane");
	for (size_t i = 0; i < n; i++) /* long codes instead of escapes */
		if (i % 32)
			src[i] = (uint16_t)((src[i] & 0x807F) | (uint16_t)((i * 7) % 199 + 1) << 7);
	check_chunk(b, &t, src, n, "slow lane, long codes");
	free(src);
}
END_TEST

/*
 * An escape whose raw exponent has a code of its own (FORMAT.md §4.3.6) in every lane and step
 * position: words written by the reference encoder with a doctored table, which codes one
 * exponent as an escape; decoding them with the true table must fail in every backend.
 */
START_TEST(entropy_decode_kernel_coded_escape)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = 200;
	uint16_t src[200];
	uint64_t s = 3;
	splitzip_entropy_table t;
	kernel_table(3, src, 0, &t); /* exponents 116..123 coded */
	splitzip_entropy_enc_tables enc;
	splitzip_entropy_dec_tables dec;
	splitzip_entropy_enc_init(&enc, &t);
	splitzip_entropy_dec_init(&dec, &t);
	enc.sym[119] = enc.sym[0]; /* 119 written as an escape */
	const size_t wmax = (size_t)splitzip_entropy_chunk_words_max(n);
	uint8_t sm[200], *w = xmalloc(2 * wmax);
	uint16_t d[200];
	for (size_t p = 0; p < n; p++) {
		for (size_t i = 0; i < n; i++) { /* coded exponents other than 119 */
			const unsigned e = 116 + (unsigned)(sz_test_rand(&s) % 8);
			src[i] = (uint16_t)((e == 119 ? 120 : e) << 7 | (i & 0x807F));
		}
		src[p] = (uint16_t)(119 << 7 | (p & 0x7F));
		size_t nw = 0, esc = 0;
		splitzip_ref_entropy_encode_chunk(&enc, src, n, sm, w, &nw);
		ck_assert_int_eq(splitzip_ref_entropy_decode_chunk(&dec, w, nw, sm, n, d, &esc),
		                 SPLITZIP_ERROR_CORRUPT_STREAM);
		ck_assert_msg(b->host->entropy_decode_chunk(&dec, w, nw, sm, n, d, &esc) ==
		                  SPLITZIP_ERROR_CORRUPT_STREAM,
		              "%s: escape of a coded exponent at %zu accepted", b->name, p);
	}
	free(w);
}
END_TEST

/*
 * The same for every exponent: under a table that codes all 256, each one in turn written as an
 * escape (the escape symbol's code and the exponent's 8 bits) into a chunk long enough that the
 * escape comes in the middle of the decoders' main loops (the SIMD decoders check the raw
 * exponents against a bitmap of coded[] there), alone and in a pair with an intact chunk.
 */
START_TEST(entropy_decode_kernel_coded_escape_any_exponent)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = 4096, p = 2000;
	uint16_t *src = xmalloc(2 * n), *d = xmalloc(2 * n), *d2 = xmalloc(2 * n);
	splitzip_entropy_table t;
	kernel_table(2, src, 0, &t); /* every exponent coded, lengths up to 11 */
	uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
	uint16_t code[SPLITZIP_ENTROPY_SYMBOLS];
	splitzip_entropy_lengths_of(&t, len);
	splitzip_entropy_codes(len, code);
	const unsigned le = len[SPLITZIP_ENTROPY_ESC];
	const uint32_t esc_entry = splitzip_entropy_reverse(code[SPLITZIP_ENTROPY_ESC], le) |
	                           (uint32_t)le << SPLITZIP_ENTROPY_ENC_LEN_SHIFT |
	                           SPLITZIP_ENTROPY_ENC_ESCAPE;
	splitzip_entropy_enc_tables enc0, enc;
	splitzip_entropy_dec_tables dec;
	splitzip_entropy_enc_init(&enc0, &t);
	splitzip_entropy_dec_init(&dec, &t);
	const size_t wmax = (size_t)splitzip_entropy_chunk_words_max(n);
	uint8_t *sm = xmalloc(n), *w = xmalloc(2 * wmax), *w2 = xmalloc(2 * wmax);
	uint64_t s = 17;
	for (size_t i = 0; i < n; i++) /* the exponents of the best codes, mostly */
		src[i] = (uint16_t)((sz_test_rand(&s) % 4 ? 128 + sz_test_rand(&s) % 4
		                                          : sz_test_rand(&s) % 256)
		                        << 7 |
		                    (i & 0x807F));
	size_t nw2 = 0;
	splitzip_ref_entropy_encode_chunk(&enc0, src, n, sm, w2, &nw2); /* an intact chunk */
	for (unsigned x = 0; x < 256; x++) {
		enc = enc0;
		enc.sym[x] = esc_entry; /* x written as an escape */
		const uint16_t keep = src[p];
		src[p] = (uint16_t)(x << 7 | (keep & 0x807F));
		for (size_t i = 0; i < n; i++)
			if (i != p && splitzip_bf16_exponent(src[i]) == x)
				src[i] ^= 1u << 7; /* x only at p */
		size_t nw = 0, esc = 0;
		uint8_t *sm1 = xmalloc(n);
		splitzip_ref_entropy_encode_chunk(&enc, src, n, sm1, w, &nw);
		ck_assert_int_eq(splitzip_ref_entropy_decode_chunk(&dec, w, nw, sm1, n, d, &esc),
		                 SPLITZIP_ERROR_CORRUPT_STREAM);
		ck_assert_msg(b->host->entropy_decode_chunk(&dec, w, nw, sm1, n, d, &esc) ==
		                  SPLITZIP_ERROR_CORRUPT_STREAM,
		              "%s: escape of coded exponent %u accepted", b->name, x);
		for (int order = 0; order < 2; order++) {
			splitzip_entropy_chunk c[2];
			c[order] = (splitzip_entropy_chunk){w, nw, sm1, n, d, 0};
			c[1 - order] = (splitzip_entropy_chunk){w2, nw2, sm, n, d2, 0};
			ck_assert_msg(
			    b->host->entropy_decode_pair(&dec, c) == SPLITZIP_ERROR_CORRUPT_STREAM,
			    "%s: escape of coded exponent %u accepted in a pair (order %d)",
			    b->name, x, order);
		}
		free(sm1);
		src[p] = keep;
	}
	free(src), free(d), free(d2), free(sm), free(w), free(w2);
}
END_TEST

/* Damaged words: the backend's decode kernel gives the reference kernel's status (and, on OK,
 * its elements) for flipped bits, missing and extra words; it never reads past n_words (the
 * words are copied flush against a guard page). */
START_TEST(entropy_decode_kernel_on_damage)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = 3000;
	uint16_t *src = xmalloc(2 * n);
	sz_test_generate(SZ_GEN_ESCAPE_1PCT, 99, src, n);
	for (int tb = 0; tb < 6; tb++) {
		splitzip_entropy_table t;
		uint64_t hist[256], rs = 1 + (uint64_t)tb;
		if (tb < 4) {
			kernel_table(tb, src, n, &t);
		} else { /* long codes and escapes, drawn from the table */
			random_table(&rs, tb == 4 ? 40 : 256, 100, 0, 1, &t, hist);
			draw_elements(&rs, hist, &t, 20, src, n);
		}
		splitzip_entropy_enc_tables enc;
		splitzip_entropy_dec_tables dec;
		splitzip_entropy_enc_init(&enc, &t);
		splitzip_entropy_dec_init(&dec, &t);
		const size_t wmax = (size_t)splitzip_entropy_chunk_words_max(n);
		uint8_t *sm = xmalloc(n), *w = xmalloc(2 * wmax + 2);
		memset(w, 0, 2 * wmax + 2);
		size_t nw = 0;
		splitzip_ref_entropy_encode_chunk(&enc, src, n, sm, w, &nw);
		uint16_t *d0 = xmalloc(2 * n), *d1 = xmalloc(2 * n), *d2 = xmalloc(2 * n);
		uint64_t s = 5 + (uint64_t)tb;
		for (int it = 0; it < 400; it++) {
			size_t m = nw;
			uint8_t *x = xmalloc(2 * nw + 2);
			memcpy(x, w, 2 * nw + 2);
			const unsigned kind = (unsigned)(sz_test_rand(&s) % 4);
			if (kind == 0)
				m = (size_t)(sz_test_rand(&s) % nw); /* words missing */
			else if (kind == 1)
				m = nw + 1; /* one word too many (its value: the guard) */
			else
				x[sz_test_rand(&s) % (2 * nw)] ^=
				    (uint8_t)(1u << (sz_test_rand(&s) % 8));
			sz_guard_buf g; /* the words flush against a guard page */
			ck_assert_int_eq(sz_guard_dup(&g, x, 2 * m, SZ_GUARD_END), 0);
			const uint8_t *exact = g.ptr;
			size_t e0 = 0, e1 = 0;
			splitzip_status st0 =
			    splitzip_ref_entropy_decode_chunk(&dec, exact, m, sm, n, d0, &e0);
			splitzip_status st1 =
			    b->host->entropy_decode_chunk(&dec, exact, m, sm, n, d1, &e1);
			ck_assert_msg(st0 == st1, "%s table %d damage %d kind %u: %s, reference %s",
			              b->name, tb, it, kind, splitzip_status_name(st1),
			              splitzip_status_name(st0));
			if (st0 == SPLITZIP_OK)
				ck_assert(e0 == e1 && memcmp(d0, d1, 2 * n) == 0);
			/* In a pair with the intact chunk, either first: the same status. */
			for (int order = 0; order < 2; order++) {
				splitzip_entropy_chunk c[2];
				c[order] = (splitzip_entropy_chunk){exact, m, sm, n, d1, 0};
				c[1 - order] = (splitzip_entropy_chunk){w, nw, sm, n, d2, 0};
				const splitzip_status st2 = b->host->entropy_decode_pair(&dec, c);
				ck_assert_msg(st2 == st0,
				              "%s table %d damage %d kind %u: pair %s, %s", b->name,
				              tb, it, kind, splitzip_status_name(st2),
				              splitzip_status_name(st0));
				if (st0 == SPLITZIP_OK)
					ck_assert(c[order].n_escapes == e0 &&
					          memcmp(d0, d1, 2 * n) == 0 &&
					          memcmp(d2, src, 2 * n) == 0);
			}
			sz_guard_free(&g);
			free(x);
		}
		free(sm), free(w), free(d0), free(d1), free(d2);
	}
	free(src);
}
END_TEST

/* ---- Frames against the scalar oracle ------------------------------------------------------- */

static splitzip_ctx *ctx_for(const char *name, splitzip_encoding enc, unsigned log2,
                             unsigned threads, unsigned flags, const splitzip_entropy_table *t)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = enc;
	p.chunk_log2 = log2;
	p.n_threads = threads;
	p.flags = flags;
	if (t) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *t;
	}
	setenv("SPLITZIP_FORCE_BACKEND", name, 1);
	splitzip_ctx *ctx = NULL;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	unsetenv("SPLITZIP_FORCE_BACKEND");
	ck_assert_msg(st == SPLITZIP_OK, "ctx_create(%s): %s", name, splitzip_error_string(st));
	return ctx;
}

typedef struct frame {
	uint8_t *p;
	size_t size;
} frame;

static frame compress_on(const char *name, splitzip_encoding enc, const uint16_t *src, size_t n,
                         unsigned log2, unsigned threads, unsigned flags,
                         const splitzip_entropy_table *t)
{
	splitzip_ctx *ctx = ctx_for(name, enc, log2, threads, flags, t);
	frame f;
	size_t cap = splitzip_compress_bound(n);
	f.p = xmalloc(cap);
	splitzip_status st = splitzip_compress(ctx, src, n, f.p, cap, &f.size);
	ck_assert_msg(st == SPLITZIP_OK, "compress(%s, n=%zu): %s", name, n,
	              splitzip_error_string(st));
	splitzip_ctx_free(ctx);
	return f;
}

static void expect_decodes(const char *name, const frame *f, const uint16_t *src, size_t n,
                           unsigned threads, const char *what)
{
	splitzip_ctx *ctx = ctx_for(name, SPLITZIP_ENCODING_SPLIT4, 0, threads, 0, NULL);
	uint16_t *out = xmalloc(2 * (n + 1));
	out[n] = 0xA5A5;
	size_t got = 0;
	splitzip_status st = splitzip_decompress(ctx, f->p, f->size, out, n, &got);
	ck_assert_msg(st == SPLITZIP_OK && got == n, "%s: %s decoded: %s", what, name,
	              splitzip_status_name(st));
	ck_assert_msg(memcmp(out, src, 2 * n) == 0 && out[n] == 0xA5A5, "%s: %s: elements", what,
	              name);
	free(out);
	splitzip_ctx_free(ctx);
}

/* The backend's frame equals the scalar oracle's (one thread) with 1 and 3 threads, and both
 * backends decode it. */
static void check_input(const char *name, splitzip_encoding enc, const uint16_t *src, size_t n,
                        unsigned log2, unsigned flags, const splitzip_entropy_table *t,
                        const char *what)
{
	frame ref = compress_on("scalar", enc, src, n, log2, 1, flags, t);
	for (unsigned threads = 1; threads <= 3; threads += 2) {
		frame f = compress_on(name, enc, src, n, log2, threads, flags, t);
		size_t i = first_diff8(f.p, ref.p, f.size < ref.size ? f.size : ref.size);
		ck_assert_msg(f.size == ref.size && i == f.size,
		              "%s (%s, n=%zu, L=%u, %u threads, encoding %d): frame differs from "
		              "scalar at byte %zu (%zu vs %zu bytes)",
		              name, what, n, log2, threads, (int)enc, i, f.size, ref.size);
		free(f.p);
	}
	expect_decodes(name, &ref, src, n, 2, what);
	free(ref.p);
}

START_TEST(entropy_frames_generated_match_scalar)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	const size_t n = 70000;
	uint16_t *src = xmalloc(2 * n);
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		sz_test_generate(g, 3 + (uint64_t)g, src, n);
		static const size_t sizes[] = {1, 33, 400, 1025, 5000, 70000};
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			const unsigned log2 = 10 + (unsigned)((k + (size_t)g) % 7);
			check_input(b->name, SPLITZIP_ENCODING_ENTROPY, src, sizes[k], log2, k % 2,
			            NULL, sz_test_gen_name(g));
			check_input(b->name, SPLITZIP_ENCODING_AUTO, src, sizes[k], log2, 1, NULL,
			            sz_test_gen_name(g));
		}
		splitzip_entropy_table t;
		kernel_table(3, src, n, &t); /* a narrow fixed table: escapes */
		check_input(b->name, SPLITZIP_ENCODING_ENTROPY, src, n, 12, 1, &t, "fixed table");
	}
	free(src);
}
END_TEST

/* Real KV: the bundled sample and the shared data's kv/ and bigkv/ (../shared/data; required
 * when SZ_TEST_REQUIRE_SHARED_DATA). */
static void check_kv_file(const char *name, const char *path)
{
	size_t bytes = 0;
	uint16_t *src = sz_test_read_file(path, &bytes);
	ck_assert_msg(src != NULL, "cannot read %s", path);
	const size_t n = bytes / 2;
	splitzip_entropy_table t;
	ck_assert_int_eq(splitzip_entropy_calibrate(src, n < 4096 ? n : 4096, &t), SPLITZIP_OK);
	check_input(name, SPLITZIP_ENCODING_ENTROPY, src, n, 14, 1, NULL, path);
	check_input(name, SPLITZIP_ENCODING_ENTROPY, src, n, 10, 0, &t, path);
	check_input(name, SPLITZIP_ENCODING_AUTO, src, n < 32768 ? n : 32768, 12, 0, NULL, path);
	free(src);
}

static int check_kv_dir(const char *name, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		ck_assert_msg(!SZ_TEST_REQUIRE_SHARED_DATA, "%s: %s", dir, strerror(errno));
		printf("xbackend-entropy: %s absent: skipped\n", dir);
		return 0;
	}
	struct dirent *ent;
	int files = 0;
	while ((ent = readdir(d)) != NULL) {
		size_t len = strlen(ent->d_name);
		if (len < 5 || strcmp(ent->d_name + len - 5, ".bf16") != 0)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
		check_kv_file(name, path);
		files++;
	}
	closedir(d);
	return files;
}

START_TEST(entropy_frames_real_kv_match_scalar)
{
	const splitzip_backend *b = usable(_i);
	if (!b)
		return;
	check_kv_file(b->name, SZ_TEST_DATA_DIR "/kv/aidreams260k__shakespeare.K.bf16");
	check_kv_file(b->name, SZ_TEST_DATA_DIR "/kv/aidreams260k__shakespeare.V.bf16");
	int files = check_kv_dir(b->name, SZ_TEST_SHARED_KV_DIR);
	files += check_kv_dir(b->name, SZ_TEST_SHARED_KV_DIR "/../bigkv");
	printf("xbackend-entropy: %s: %d shared KV files checked\n", b->name, files);
}
END_TEST

/* N x N: every backend decodes every backend's entropy frames. */
START_TEST(entropy_decode_matrix)
{
	const splitzip_backend *enc = usable(_i);
	if (!enc)
		return;
	const size_t n = ((size_t)1 << 18) + 3;
	uint16_t *src = xmalloc(2 * n);
	static const int gens[] = {SZ_GEN_KV_SKEWED, SZ_GEN_ESCAPE_5PCT, SZ_GEN_SPECIALS};
	for (size_t gi = 0; gi < sizeof gens / sizeof gens[0]; gi++) {
		sz_test_generate(gens[gi], 31, src, n);
		frame f = compress_on(enc->name, SPLITZIP_ENCODING_ENTROPY, src, n, 12, 2,
		                      (unsigned)gi % 2, NULL);
		for (size_t j = 0; j < splitzip_registry_count(); j++) {
			const splitzip_backend *dec = splitzip_registry_get(j);
			if (!dec->host || !dec->probe())
				continue;
			char what[128];
			snprintf(what, sizeof what, "frame by %s, %s", enc->name,
			         sz_test_gen_name(gens[gi]));
			expect_decodes(dec->name, &f, src, n, 1 + (unsigned)(j % 3), what);
		}
		free(f.p);
	}
	free(src);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("xbackend-entropy");
	const int nb = (int)splitzip_registry_count();
	TCase *tc = tcase_create("entropy");
	tcase_set_timeout(tc, 1800);
	tcase_add_test(tc, entropy_slots_set);
	tcase_add_loop_test(tc, entropy_kernels_match_reference, 0, nb);
	tcase_add_loop_test(tc, entropy_kernels_random_tables, 0, nb);
	tcase_add_loop_test(tc, entropy_kernels_all_patterns, 0, nb);
	tcase_add_loop_test(tc, entropy_kernels_slow_lane, 0, nb);
	tcase_add_loop_test(tc, entropy_decode_kernel_on_damage, 0, nb);
	tcase_add_loop_test(tc, entropy_decode_kernel_coded_escape, 0, nb);
	tcase_add_loop_test(tc, entropy_decode_kernel_coded_escape_any_exponent, 0, nb);
	tcase_add_loop_test(tc, entropy_frames_generated_match_scalar, 0, nb);
	tcase_add_loop_test(tc, entropy_frames_real_kv_match_scalar, 0, nb);
	tcase_add_loop_test(tc, entropy_decode_matrix, 0, nb);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
