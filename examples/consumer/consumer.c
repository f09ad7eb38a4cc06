/*
 * consumer.c -- a program built against an installed splitzip, the way another project would:
 * with pkg-config or with find_package(splitzip CONFIG) (CMakeLists.txt here). It compresses a
 * raw BF16 file (or generated values), decompresses the frame, checks the round trip is exact
 * and prints the ratio. tests/install/install_test.sh builds and runs it both ways.
 *
 *   cc consumer.c $(pkg-config --cflags --libs splitzip) -o consumer && ./consumer [FILE.bf16]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <splitzip.h>

/* The values to compress: the file's contents, or 2^16 generated BF16 values. */
static uint16_t *load(const char *path, size_t *n)
{
	if (!path) {
		*n = 65536;
		uint16_t *v = malloc(*n * 2);
		for (size_t i = 0; v && i < *n; i++) /* exponents 120..135, varied mantissas */
			v[i] = (uint16_t)(((120 + i % 16) << 7) | (i * 37 % 128) | ((i & 1) << 15));
		return v;
	}
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0)
		return NULL;
	long size = ftell(f);
	rewind(f);
	*n = size > 0 ? (size_t)size / 2 : 0;
	uint16_t *v = malloc(*n * 2 + 2);
	if (v && fread(v, 2, *n, f) != *n) {
		free(v);
		v = NULL;
	}
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	size_t n;
	uint16_t *src = load(argc > 1 ? argv[1] : NULL, &n);
	if (!src) {
		fprintf(stderr, "consumer: cannot read the input\n");
		return 1;
	}
	splitzip_params p;
	splitzip_params_init(&p);
	p.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	splitzip_ctx *ctx;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	size_t cap = splitzip_compress_bound(n), size = 0, got = 0;
	unsigned char *frame = malloc(cap);
	uint16_t *back = malloc(n * 2 + 2);
	if (st == SPLITZIP_OK && (!frame || !back))
		st = SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (st == SPLITZIP_OK)
		st = splitzip_compress(ctx, src, n, frame, cap, &size);
	if (st == SPLITZIP_OK)
		st = splitzip_decompress(ctx, frame, size, back, n, &got);
	if (st != SPLITZIP_OK) {
		fprintf(stderr, "consumer: %s\n", splitzip_error_string(st));
		return 1;
	}
	int same = got == n && memcmp(src, back, n * 2) == 0;
	printf("splitzip %s (%s): %zu elements, %zu -> %zu bytes, ratio %.4fx, round trip %s\n",
	       splitzip_version_string(), splitzip_ctx_backend_name(ctx), n, n * 2, size,
	       size ? (double)(n * 2) / (double)size : 0.0, same ? "exact" : "DIFFERS");
	splitzip_ctx_free(ctx);
	free(src);
	free(frame);
	free(back);
	return same ? 0 : 1;
}
