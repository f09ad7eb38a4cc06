/*
 * sz_dtype_bench.c -- ratio and CPU decode speed of the frames of FP16, FP32 and FP8
 * (doc/FORMAT.md 1.3) against the BF16 frames of the same tensor, on one host backend.
 *
 *   splitzip-dtype-bench [--backend NAME] [--repeats R] DTYPE FILE BF16_FILE [...]
 *
 * FILE holds raw little-endian elements of DTYPE (f16, f32, e4m3, e5m2), BF16_FILE the same
 * tensor as BF16 (e.g. ../shared/data/bigkv/NAME.bf16 next to ../shared/data/nativekv/NAME.f16;
 * bench/dtype_study.py --write-fp8 DIR writes FP8 tensors derived from the FP16 ones). For
 * each: entropy frames (L = 14, no checksum) of both are written and decoded R times (default
 * 31) with splitzip_decompress_dtype() on the backend; printed are the ratios, the median decode
 * times and elements per second, and DTYPE's decode speed over BF16's. Every decoded frame is
 * compared with its input as bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "splitzip.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *p = (uint8_t *)malloc((size_t)size + 1);
	*n = p ? fread(p, 1, (size_t)size, f) : 0;
	fclose(f);
	return p;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct result {
	double ratio, median_s;
	size_t n;
} result;

/* Compress 'src' (n_bytes of dtype dt) as one entropy frame and time R decodes. */
static int measure(splitzip_ctx *ctx, unsigned dt, const uint8_t *src, size_t n_bytes, unsigned R,
                   result *r)
{
	const size_t w = splitzip_dtype_width(dt), n = n_bytes / w;
	const size_t cap = splitzip_compress_bound_dtype(dt, n);
	uint8_t *frame = (uint8_t *)malloc(cap), *out = (uint8_t *)malloc(n_bytes + 1);
	double *t = (double *)malloc(R * sizeof *t);
	size_t size = 0, got = 0;
	int ok = frame && out && t &&
	         splitzip_compress_dtype(ctx, dt, src, n, frame, cap, &size) == SPLITZIP_OK;
	for (unsigned i = 0; ok && i < R; i++) {
		const double t0 = now();
		ok = splitzip_decompress_dtype(ctx, frame, size, out, n_bytes, &got) ==
		         SPLITZIP_OK &&
		     got == n;
		t[i] = now() - t0;
		ok = ok && memcmp(out, src, n_bytes) == 0;
	}
	if (ok) {
		qsort(t, R, sizeof *t, cmp_double);
		r->ratio = (double)n_bytes / (double)size;
		r->median_s = t[R / 2];
		r->n = n;
	}
	free(frame);
	free(out);
	free(t);
	return ok;
}

static unsigned dtype_of(const char *name)
{
	for (unsigned d = SPLITZIP_DTYPE_BF16; d <= SPLITZIP_DTYPE_FP32; d++)
		if (strcmp(name, splitzip_dtype_name(d)) == 0)
			return d;
	return 0;
}

static splitzip_ctx *make_ctx(const char *backend)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = SPLITZIP_ENCODING_ENTROPY;
	p.chunk_log2 = 14;
	p.n_threads = 1;
	for (size_t i = 0; backend && i < splitzip_backend_count(); i++)
		if (strcmp(splitzip_backend_name(i), backend) == 0)
			p.backend = splitzip_backend_id_of(i);
	splitzip_ctx *ctx = NULL;
	return splitzip_ctx_create(&p, &ctx) == SPLITZIP_OK ? ctx : NULL;
}

/* One row: DTYPE FILE against BF16_FILE. */
static int row(splitzip_ctx *ctx, unsigned dt, const char *file, const char *bf16, unsigned R)
{
	size_t na = 0, nb = 0;
	uint8_t *a = read_file(file, &na), *b = read_file(bf16, &nb);
	result ra, rb;
	int ok = a && b && measure(ctx, dt, a, na, R, &ra) &&
	         measure(ctx, SPLITZIP_DTYPE_BF16, b, nb, R, &rb);
	if (ok) {
		const double ea = (double)ra.n / ra.median_s, eb = (double)rb.n / rb.median_s;
		printf("%-44s %-4s n=%-8zu ratio %.4f (bf16 %.4f)  decode %.1f Melem/s, bf16 %.1f "
		       "Melem/s: %.3fx  [%s]\n",
		       file, splitzip_dtype_name(dt), ra.n, ra.ratio, rb.ratio, ea / 1e6, eb / 1e6,
		       ea / eb, splitzip_ctx_backend_name(ctx));
	} else {
		fprintf(stderr, "%s / %s: cannot read, or a round trip failed\n", file, bf16);
	}
	free(a);
	free(b);
	return ok;
}

int main(int argc, char **argv)
{
	const char *backend = NULL;
	unsigned R = 31;
	int i = 1;
	for (; i + 1 < argc && argv[i][0] == '-'; i += 2)
		if (strcmp(argv[i], "--backend") == 0)
			backend = argv[i + 1];
		else if (strcmp(argv[i], "--repeats") == 0)
			R = (unsigned)atoi(argv[i + 1]);
	if ((argc - i) % 3 != 0 || argc == i || R == 0) {
		fprintf(stderr, "usage: splitzip-dtype-bench [--backend NAME] [--repeats R] "
		                "DTYPE FILE BF16_FILE [...]\n");
		return 2;
	}
	splitzip_ctx *ctx = make_ctx(backend);
	if (!ctx) {
		fprintf(stderr, "no context for backend %s\n", backend ? backend : "auto");
		return 2;
	}
	int rc = 0;
	for (; i < argc; i += 3) {
		const unsigned dt = dtype_of(argv[i]);
		if (!dt || !row(ctx, dt, argv[i + 1], argv[i + 2], R))
			rc = 1;
	}
	splitzip_ctx_free(ctx);
	return rc;
}
