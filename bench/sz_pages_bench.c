/*
 * sz_pages_bench.c -- page streams (doc/FORMAT.md §12) measured: the ratio of a stream against
 * one frame over the same bytes, per page size, encoding and data set, and the CPU throughput
 * of packing and scattering pages against a gathering memcpy of the same pages in the same run.
 *
 *   splitzip-pages-bench [--ratio] [--speed] [--pages N] [--total MiB] [--repeats R]
 *                        [--threads T] [--json] [FILE.bf16 ...]
 *
 * Ratios: N pages (default 64) of each size 1, 2, 8, 32 and 128 KiB, cut from each file in
 * turn (tiled when the file is shorter), split4 and entropy, checksums on. "one frame" is
 * splitzip_compress() of the same pages concatenated, with the same encoding and checksum.
 * Speed: 2 KiB and 32 KiB pages, --total MiB (default 64) of pages tiled from the first file,
 * each page its own allocation; GB/s are uncompressed bytes per second, the median of
 * --repeats (default 7) runs; memcpy is a copy of every page into one buffer (what gathering
 * the pages costs) in the same run; checksums on and off.
 * Default files: the bundled data/kv sample and, when present, ../shared/data/bigkv's Llama K/V.
 * Nothing is asserted: this is a measuring program (doc/BENCHMARKS.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "splitzip.h"

#ifndef SZ_BENCH_DATA_DIR
#define SZ_BENCH_DATA_DIR "data"
#endif
#ifndef SZ_BENCH_BIGKV_DIR
#define SZ_BENCH_BIGKV_DIR "../shared/data/bigkv"
#endif

typedef struct data {
	const char *name;
	uint16_t *x;
	size_t n;
} data;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int load(const char *path, data *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	const long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	d->n = size > 0 ? (size_t)size / 2 : 0;
	d->x = (uint16_t *)malloc(d->n * 2 + 2);
	const int ok = d->x && d->n && fread(d->x, 2, d->n, f) == d->n;
	fclose(f);
	const char *slash = strrchr(path, '/');
	d->name = slash ? slash + 1 : path;
	return ok;
}

/* n pages of 'bytes' each, tiled from d; each page its own allocation. */
static uint16_t **make_pages(const data *d, size_t n, size_t bytes)
{
	uint16_t **p = (uint16_t **)malloc(n * sizeof *p);
	size_t at = 0;
	for (size_t i = 0; i < n && p; i++) {
		p[i] = (uint16_t *)malloc(bytes);
		for (size_t k = 0; k < bytes / 2; k++, at = (at + 1) % d->n)
			p[i][k] = d->x[at];
	}
	return p;
}

static void free_pages(uint16_t **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

static splitzip_ctx *ctx_for(splitzip_encoding enc, unsigned threads, unsigned checksum_flag)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = enc;
	p.n_threads = threads;
	p.flags = checksum_flag;
	splitzip_ctx *c = NULL;
	if (splitzip_ctx_create(&p, &c) != SPLITZIP_OK) {
		fprintf(stderr, "splitzip-pages-bench: ctx_create failed\n");
		exit(1);
	}
	return c;
}

/* ---- Ratios -------------------------------------------------------------------------------- */

static void ratio_row(const data *d, size_t n, size_t bytes, splitzip_encoding enc, int json,
                      int *first)
{
	uint16_t **pg = make_pages(d, n, bytes);
	size_t *sizes = (size_t *)malloc(n * sizeof *sizes);
	uint16_t *all = (uint16_t *)malloc(n * bytes);
	for (size_t i = 0; i < n; i++) {
		sizes[i] = bytes;
		memcpy(all + i * bytes / 2, pg[i], bytes);
	}
	splitzip_ctx *c = ctx_for(enc, 1, SPLITZIP_FLAG_CONTENT_CHECKSUM);
	const size_t cap = splitzip_pages_bound(n, bytes);
	uint8_t *s = (uint8_t *)malloc(cap),
	        *f = (uint8_t *)malloc(splitzip_compress_bound(n * bytes / 2));
	size_t ssize = 0, fsize = 0;
	if (splitzip_pages_compress(c, 0, 0, n, (const void *const *)pg, sizes, s, cap, &ssize) ||
	    splitzip_compress(c, all, n * bytes / 2, f, splitzip_compress_bound(n * bytes / 2),
	                      &fsize)) {
		fprintf(stderr, "splitzip-pages-bench: compress failed\n");
		exit(1);
	}
	const double raw = (double)(n * bytes), rs = raw / (double)ssize, rf = raw / (double)fsize;
	const char *m = enc == SPLITZIP_ENCODING_SPLIT4 ? "split4" : "entropy";
	if (json)
		printf("%s\n    {\"data\":\"%s\",\"page_bytes\":%zu,\"pages\":%zu,\"mode\":\"%s\","
		       "\"stream_ratio\":%.4f,\"frame_ratio\":%.4f,\"stream_over_frame\":%.4f}",
		       *first ? "" : ",", d->name, bytes, n, m, rs, rf, rs / rf);
	else
		printf("| %s | %zu KiB | %s | %.3fx | %.3fx | %.3f |\n", d->name, bytes / 1024, m,
		       rs, rf, rs / rf);
	*first = 0;
	splitzip_ctx_free(c);
	free(s);
	free(f);
	free(all);
	free(sizes);
	free_pages(pg, n);
}

static void ratios(const data *ds, size_t nd, size_t n, int json)
{
	static const size_t page[] = {1024, 2048, 8192, 32768, 131072};
	int first = 1;
	if (json)
		printf("  \"ratios\": [");
	else
		printf("| data | page | mode | stream ratio | one frame | stream / frame |\n"
		       "|---|---:|---|---:|---:|---:|\n");
	for (size_t k = 0; k < nd; k++)
		for (size_t p = 0; p < sizeof page / sizeof page[0]; p++)
			for (int e = 0; e < 2; e++)
				ratio_row(&ds[k], n, page[p],
				          e ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4,
				          json, &first);
	if (json)
		printf("\n  ]");
}

/* ---- Speed --------------------------------------------------------------------------------- */

typedef struct speed_job {
	uint16_t **pg, **back;
	size_t n, bytes, cap, size;
	size_t *sizes;
	uint8_t *stream, *gather;
	splitzip_ctx *ctx;
	unsigned options;
} speed_job;

static void run_memcpy(speed_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		memcpy(j->gather + i * j->bytes, j->pg[i], j->bytes);
}

static void run_compress(speed_job *j)
{
	if (splitzip_pages_compress(j->ctx, 0, j->options, j->n, (const void *const *)j->pg,
	                            j->sizes, j->stream, j->cap, &j->size) != SPLITZIP_OK) {
		fprintf(stderr, "splitzip-pages-bench: pages_compress failed\n");
		exit(1);
	}
}

static void run_decompress(speed_job *j)
{
	size_t got = 0;
	if (splitzip_pages_decompress(j->ctx, j->stream, j->size, j->n, (void *const *)j->back,
	                              j->sizes, SPLITZIP_PAGES_EXACT, NULL, NULL,
	                              &got) != SPLITZIP_OK) {
		fprintf(stderr, "splitzip-pages-bench: pages_decompress failed\n");
		exit(1);
	}
}

/* Median GB/s of r runs of fn over the job's bytes. */
static double time_gbps(void (*fn)(speed_job *), speed_job *j, int r)
{
	double t[64];
	r = r > 64 ? 64 : r;
	fn(j); /* warm-up: page faults, caches */
	for (int k = 0; k < r; k++) {
		const double t0 = now_s();
		fn(j);
		t[k] = now_s() - t0;
	}
	qsort(t, (size_t)r, sizeof t[0], cmp_d);
	return (double)(j->n * j->bytes) / t[r / 2] / 1e9;
}

static void speed_row(const data *d, size_t bytes, size_t total, splitzip_encoding enc,
                      unsigned options, unsigned threads, int reps, int json, int *first)
{
	speed_job j;
	memset(&j, 0, sizeof j);
	j.n = total / bytes;
	j.bytes = bytes;
	j.pg = make_pages(d, j.n, bytes);
	j.back = make_pages(d, j.n, bytes);
	j.sizes = (size_t *)malloc(j.n * sizeof *j.sizes);
	for (size_t i = 0; i < j.n; i++)
		j.sizes[i] = bytes;
	j.cap = splitzip_pages_bound(j.n, bytes);
	j.stream = (uint8_t *)malloc(j.cap);
	j.gather = (uint8_t *)malloc(j.n * bytes);
	j.ctx = ctx_for(enc, threads, 0);
	j.options = options;
	const double mc = time_gbps(run_memcpy, &j, reps);
	const double ce = time_gbps(run_compress, &j, reps);
	const double de = time_gbps(run_decompress, &j, reps);
	for (size_t i = 0; i < j.n; i++)
		if (memcmp(j.back[i], j.pg[i], bytes)) {
			fprintf(stderr, "splitzip-pages-bench: page %zu differs\n", i);
			exit(1);
		}
	const char *m = enc == SPLITZIP_ENCODING_SPLIT4 ? "split4" : "entropy";
	const int ck = !(options & SPLITZIP_PAGES_NO_CHECKSUM);
	if (json)
		printf("%s\n    {\"data\":\"%s\",\"page_bytes\":%zu,\"bytes\":%zu,\"mode\":\"%s\","
		       "\"checksum\":%d,\"threads\":%u,\"memcpy_gbps\":%.3f,\"compress_gbps\":%.3f,"
		       "\"decompress_gbps\":%.3f,\"ratio\":%.4f}",
		       *first ? "" : ",", d->name, bytes, j.n * bytes, m, ck, threads, mc, ce, de,
		       (double)(j.n * bytes) / (double)j.size);
	else
		printf("| %zu KiB | %s | %s | %.2f | %.2f (%.2fx) | %.2f (%.2fx) | %.3fx |\n",
		       bytes / 1024, m, ck ? "on" : "off", mc, ce, ce / mc, de, de / mc,
		       (double)(j.n * bytes) / (double)j.size);
	*first = 0;
	splitzip_ctx_free(j.ctx);
	free(j.stream);
	free(j.gather);
	free(j.sizes);
	free_pages(j.pg, j.n);
	free_pages(j.back, j.n);
}

static void speeds(const data *d, size_t total, unsigned threads, int reps, int json)
{
	static const size_t page[] = {2048, 32768};
	int first = 1;
	if (json)
		printf(",\n  \"speed\": [");
	else
		printf(
		    "\n%s, %zu MiB of pages, %u thread(s), GB/s (median of %d) and ratio to memcpy "
		    "of the same pages into one buffer:\n\n"
		    "| page | mode | checksum | memcpy | compress | decompress | ratio |\n"
		    "|---:|---|---|---:|---:|---:|---:|\n",
		    d->name, total >> 20, threads, reps);
	for (size_t p = 0; p < 2; p++)
		for (int e = 0; e < 2; e++)
			for (int ck = 1; ck >= 0; ck--)
				speed_row(d, page[p], total,
				          e ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4,
				          ck ? 0 : SPLITZIP_PAGES_NO_CHECKSUM, threads, reps, json,
				          &first);
	if (json)
		printf("\n  ]");
}

int main(int argc, char **argv)
{
	int do_ratio = 0, do_speed = 0, json = 0, reps = 7;
	size_t n_pages = 64, total = (size_t)64 << 20;
	unsigned threads = 1;
	data ds[32];
	size_t nd = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--ratio"))
			do_ratio = 1;
		else if (!strcmp(a, "--speed"))
			do_speed = 1;
		else if (!strcmp(a, "--json"))
			json = 1;
		else if (!strcmp(a, "--pages") && i + 1 < argc)
			n_pages = (size_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(a, "--total") && i + 1 < argc)
			total = (size_t)strtoul(argv[++i], NULL, 10) << 20;
		else if (!strcmp(a, "--repeats") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(a, "--threads") && i + 1 < argc)
			threads = (unsigned)atoi(argv[++i]);
		else if (a[0] != '-' && nd < 32 && load(a, &ds[nd]))
			nd++;
		else {
			fprintf(stderr,
			        "usage: splitzip-pages-bench [--ratio] [--speed] [--pages N] "
			        "[--total MiB] [--repeats R] [--threads T] [--json] [FILE...]\n");
			return 2;
		}
	}
	if (!do_ratio && !do_speed)
		do_ratio = do_speed = 1;
	if (nd == 0) {
		static const char *const def[] = {
		    SZ_BENCH_DATA_DIR "/kv/aidreams260k__shakespeare.K.bf16",
		    SZ_BENCH_DATA_DIR "/kv/aidreams260k__shakespeare.V.bf16",
		    SZ_BENCH_BIGKV_DIR "/llama3-8b-instruct_L10_K.bf16",
		    SZ_BENCH_BIGKV_DIR "/llama3-8b-instruct_L10_V.bf16",
		    SZ_BENCH_BIGKV_DIR "/llama2-7b-chat_L10_K.bf16",
		    SZ_BENCH_BIGKV_DIR "/llama2-7b-chat_L10_V.bf16"};
		for (size_t k = 0; k < sizeof def / sizeof def[0]; k++)
			nd += (size_t)load(def[k], &ds[nd]);
	}
	if (nd == 0 || n_pages == 0 || reps < 1 || total < 131072) {
		fprintf(stderr, "splitzip-pages-bench: no data, or bad arguments\n");
		return 2;
	}
	if (json)
		printf("{\n");
	if (do_ratio)
		ratios(ds, nd, n_pages, json);
	if (do_speed)
		speeds(&ds[0], total, threads, reps, json);
	if (json)
		printf("\n}\n");
	for (size_t k = 0; k < nd; k++)
		free(ds[k].x);
	return 0;
}
