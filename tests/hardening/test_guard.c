/*
 * test_guard.c -- encoder and decoder with every buffer flush against a PROT_NONE page.
 *
 * For every available backend and many sizes (every size 0..200, sizes around 2- and 4-KiB
 * chunk boundaries, the largest chunk size, and one input large enough to use worker threads):
 * the input placed flush against the guard after its end and flush against the guard before its
 * start; the output with exactly the frame size (or exactly n elements), flush against the
 * guard after it; outputs one byte or one element too small. Any read or write outside a buffer
 * faults and fails the test; results are compared byte for byte with the scalar oracle.
 */
#include "sz_check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_guard.h"
#include "sz_hard_util.h"
#include "sz_test_data.h"

static const int gens[] = {SZ_GEN_KV_SKEWED, SZ_GEN_ESCAPE_5PCT, SZ_GEN_ALL_ESCAPE, SZ_GEN_RANDOM,
                           SZ_GEN_FEW_EXPONENTS};
#define N_GENS (sizeof gens / sizeof gens[0])

static void guard_alloc(sz_guard_buf *b, size_t size, int where)
{
	ck_assert_msg(sz_guard_alloc(b, size, where) == 0, "guard alloc of %zu bytes", size);
}

static void guard_dup(sz_guard_buf *b, const void *src, size_t size, int where)
{
	ck_assert_msg(sz_guard_dup(b, src, size, where) == 0, "guard alloc of %zu bytes", size);
}

/*
 * One input through one backend's context 'ctx' (and the scalar context 'ref' with the same
 * parameters): every placement of every buffer.
 */
static void check_one(splitzip_ctx *ctx, splitzip_ctx *ref, const uint16_t *data, size_t n,
                      const char *what)
{
	const char *be = splitzip_ctx_backend_name(ctx);
	size_t fsize = 0;
	uint8_t *frame = hu_compress(ref, data, n, &fsize);

	for (int where = SZ_GUARD_END; where <= SZ_GUARD_START; where++) {
		sz_guard_buf src, dst;
		size_t got = 0;
		guard_dup(&src, data, n * 2, where);

		/* Output of exactly the frame size, both placements. */
		guard_alloc(&dst, fsize, where);
		hu_assert_status(
		    splitzip_compress(ctx, (const uint16_t *)src.ptr, n, dst.ptr, fsize, &got),
		    SPLITZIP_OK, "%s %s n=%zu: compress, src/dst guard %d", be, what, n, where);
		ck_assert_uint_eq(got, fsize);
		ck_assert_msg(memcmp(dst.ptr, frame, fsize) == 0, "%s %s n=%zu: frame differs", be,
		              what, n);
		sz_guard_free(&dst);

		/* Output of the bound. */
		size_t bound = splitzip_compress_bound(n);
		guard_alloc(&dst, bound, SZ_GUARD_END);
		hu_assert_status(
		    splitzip_compress(ctx, (const uint16_t *)src.ptr, n, dst.ptr, bound, &got),
		    SPLITZIP_OK, "%s %s n=%zu: compress into bound", be, what, n);
		ck_assert_uint_eq(got, fsize);
		sz_guard_free(&dst);

		/* One byte short: an error, and no byte written past the (guarded) end. */
		guard_alloc(&dst, fsize - 1, SZ_GUARD_END);
		hu_assert_status(
		    splitzip_compress(ctx, (const uint16_t *)src.ptr, n, dst.ptr, fsize - 1, &got),
		    SPLITZIP_ERROR_DST_TOO_SMALL, "%s %s n=%zu: compress, cap-1", be, what, n);
		sz_guard_free(&dst);
		sz_guard_free(&src);

		/* Decode: the frame and the output both flush against a guard. */
		sz_guard_buf fr, out;
		guard_dup(&fr, frame, fsize, where);
		guard_alloc(&out, n * 2, where);
		size_t used = 0, n_out = 0;
		hu_assert_status(
		    splitzip_decompress(ctx, fr.ptr, fsize, (uint16_t *)out.ptr, n, &n_out),
		    SPLITZIP_OK, "%s %s n=%zu: decompress, guard %d", be, what, n, where);
		ck_assert_uint_eq(n_out, n);
		ck_assert_msg(memcmp(out.ptr, data, n * 2) == 0, "%s %s n=%zu: decoded differs", be,
		              what, n);
		memset(out.ptr, 0, n * 2);
		hu_assert_status(splitzip_frame_decompress(ctx, fr.ptr, fsize, &used,
		                                           (uint16_t *)out.ptr, n, &n_out),
		                 SPLITZIP_OK, "%s %s n=%zu: frame_decompress", be, what, n);
		ck_assert_uint_eq(used, fsize);
		ck_assert_msg(memcmp(out.ptr, data, n * 2) == 0, "%s %s n=%zu: decoded differs", be,
		              what, n);
		sz_guard_free(&out);
		uint64_t vn = 0;
		hu_assert_status(splitzip_verify(ctx, fr.ptr, fsize, &vn), SPLITZIP_OK,
		                 "%s %s n=%zu: verify", be, what, n);
		ck_assert_uint_eq(vn, n);
		if (n > 0) {
			guard_alloc(&out, (n - 1) * 2, SZ_GUARD_END);
			hu_assert_status(splitzip_decompress(ctx, fr.ptr, fsize,
			                                     (uint16_t *)out.ptr, n - 1, &n_out),
			                 SPLITZIP_ERROR_DST_TOO_SMALL, "%s %s n=%zu: dst n-1", be,
			                 what, n);
			sz_guard_free(&out);
		}
		sz_guard_free(&fr);

		/* The header alone, flush against a guard: frame info reads exactly 64 bytes. */
		splitzip_frame_info info;
		guard_dup(&fr, frame, SPLITZIP_FRAME_HEADER_SIZE, where);
		hu_assert_status(splitzip_get_frame_info(fr.ptr, SPLITZIP_FRAME_HEADER_SIZE, &info),
		                 SPLITZIP_OK, "%s %s n=%zu: frame info", be, what, n);
		ck_assert_uint_eq(info.n_elems, n);
		ck_assert_uint_eq(info.frame_size, fsize);
		sz_guard_free(&fr);
	}
	free(frame);
}

static void run_sizes(int backend_index, unsigned log2, unsigned flags, unsigned n_threads,
                      const size_t *sizes, size_t n_sizes)
{
	splitzip_backend_id id = splitzip_backend_id_of((size_t)backend_index);
	splitzip_ctx *ctx = hu_ctx(id, log2, flags, n_threads);
	splitzip_ctx *ref = hu_ctx(SPLITZIP_BACKEND_SCALAR, log2, flags, n_threads);
	char what[96];
	for (size_t g = 0; g < N_GENS; g++) {
		for (size_t k = 0; k < n_sizes; k++) {
			size_t n = sizes[k];
			uint16_t *data = hu_gen(gens[g], 77 + n, n);
			snprintf(what, sizeof what, "%s log2=%u flags=%u",
			         sz_test_gen_name(gens[g]), log2, flags);
			check_one(ctx, ref, data, n, what);
			free(data);
		}
	}
	splitzip_ctx_free(ref);
	splitzip_ctx_free(ctx);
}

/* Skip (and say so) a backend that is compiled in but unusable on this machine. */
static int usable(int i)
{
	return hu_host_backend(i, "guard");
}

START_TEST(guard_small_sizes)
{
	size_t sizes[201];
	if (!usable(_i))
		return;
	for (size_t n = 0; n < 201; n++)
		sizes[n] = n;
	run_sizes(_i, 10, 0, 1, sizes, 201);
}
END_TEST

START_TEST(guard_chunk_boundaries)
{
	static const size_t s10[] = {255,  256,  257,  511,  512,  513,  1023,
	                             1024, 1025, 2047, 2048, 2049, 3071, 3073};
	static const size_t s12[] = {4095, 4096, 4097, 8191, 8192, 8193};
	static const size_t s16[] = {65535, 65536, 65537};
	if (!usable(_i))
		return;
	run_sizes(_i, 10, SPLITZIP_FLAG_CONTENT_CHECKSUM, 1, s10, sizeof s10 / sizeof s10[0]);
	run_sizes(_i, 12, SPLITZIP_FLAG_CONTENT_CHECKSUM, 1, s12, sizeof s12 / sizeof s12[0]);
	run_sizes(_i, 16, 0, 1, s16, sizeof s16 / sizeof s16[0]);
}
END_TEST

START_TEST(guard_threaded)
{
	/* Large enough for the driver to split work over worker threads (when built with
	 * OpenMP); the ranges meet the guards at both ends of every buffer. */
	static const size_t big[] = {((size_t)1 << 19) + 3};
	if (!usable(_i))
		return;
	run_sizes(_i, 12, SPLITZIP_FLAG_CONTENT_CHECKSUM, 2, big, 1);
}
END_TEST

Suite *sz_suite_guard(void);
Suite *sz_suite_guard(void)
{
	Suite *s = suite_create("guard");
	TCase *tc = tcase_create("guard");
	int nb = (int)splitzip_backend_count();
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, guard_small_sizes, 0, nb);
	tcase_add_loop_test(tc, guard_chunk_boundaries, 0, nb);
	tcase_add_loop_test(tc, guard_threaded, 0, nb);
	suite_add_tcase(s, tc);
	return s;
}
