/*
 * sz_bench.c -- CPU throughput of splitzip against memcpy (and zstd -1, lz4) on real KV data.
 *
 * For each size, backend, thread count and encoding (split4 and entropy frames, --modes) it
 * measures, on the same buffer in the same run:
 *   encode     splitzip_compress() with the codebook or entropy table computed from the input
 *              (two reads)
 *   enc-fixed  splitzip_compress() with a fixed, pre-calibrated codebook or table (one read)
 *   decode     splitzip_decompress()
 *   memcpy     memcpy() of the same number of bytes into a separate buffer (on T threads for
 *              rows with T threads: the same split into contiguous ranges)
 * GB/s are uncompressed bytes per second (1 GB = 1e9 bytes), the median of several samples;
 * a sample repeats the call until it lasts a few milliseconds. Every frame is decoded and
 * compared with the input before it is timed.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, clock_gettime */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#if SZ_BENCH_HAVE_ZSTD
#include <zstd.h>
#endif
#if SZ_BENCH_HAVE_LZ4
#include <lz4.h>
#endif

#include "splitzip.h"
#include "sz_bench.h"

#define MAX_LIST 16
#define MAX_FILES 256

typedef struct bench_opts {
	size_t sizes[MAX_LIST];
	int n_sizes;
	unsigned threads[MAX_LIST];
	int n_threads;
	const char *backends[MAX_LIST];
	int n_backends; /* 0: every usable backend */
	const char *data[MAX_FILES];
	int n_data;
	int repeats; /* 0: automatic */
	double min_sample_s;
	int json, quick, refs;
	unsigned flags; /* splitzip flags, e.g. the content checksum */
	int modes[3];   /* the encodings measured (splitzip_encoding) */
	int n_modes;
} bench_opts;

/* ---- Small utilities ----------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "64K", "4M", "256M", "1G" or plain bytes; 0 on error. */
static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	default:
		break;
	}
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	return *end || v == 0 ? 0 : (size_t)v;
}

static void size_name(size_t b, char *buf, size_t cap)
{
	if (b >= (1u << 30) && b % (1u << 30) == 0)
		snprintf(buf, cap, "%zu GiB", b >> 30);
	else if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(buf, cap, "%zu MiB", b >> 20);
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(buf, cap, "%zu KiB", b >> 10);
	else
		snprintf(buf, cap, "%zu B", b);
}

/* Split a comma-separated list in place. Returns the number of items or -1 if too many. */
static int split_list(char *s, char **items, int cap)
{
	int n = 0;
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (n == cap)
			return -1;
		items[n++] = tok;
	}
	return n;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [options]\n"
	    "  --quick            CI smoke run: 64K and 4M only, few repeats (well under 20 s)\n"
	    "  --json             JSON instead of the table\n"
	    "  --sizes LIST       comma-separated sizes in bytes, K/M/G suffixes (default "
	    "64K,4M,256M)\n"
	    "  --threads LIST     thread counts (default 1 and the number of processors)\n"
	    "  --backends LIST    backend names (default: every usable backend)\n"
	    "  --data PATH        a .bf16 file or a directory of them (repeatable); default: "
	    "the real KV\n"
	    "                     in $SPLITZIP_BENCH_DATA, ../shared/data/kv, or the bundled "
	    "sample\n"
	    "  --repeats N        samples per measurement (default 11, 5 for sizes >= 64M)\n"
	    "  --checksum         compress with the content checksum\n"
	    "  --modes LIST       encodings: split4, entropy, auto (default split4,entropy)\n"
	    "  --no-ref           skip zstd -1 and lz4\n"
	    "  --help\n",
	    prog);
}

/* ---- Input data -------------------------------------------------------------------------- */

typedef struct pool {
	uint16_t *v;
	size_t n;
	int n_files;
	char desc[512];
} pool;

static int append_file(pool *p, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) != 0) {
		fclose(f);
		return -1;
	}
	long sz = ftell(f);
	if (sz < 2 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return -1;
	}
	size_t add = (size_t)sz / 2;
	uint16_t *nv = (uint16_t *)realloc(p->v, (p->n + add) * 2);
	if (!nv) {
		fclose(f);
		return -1;
	}
	p->v = nv;
	size_t got = fread(p->v + p->n, 2, add, f);
	fclose(f);
	if (got != add)
		return -1;
	p->n += add;
	p->n_files++;
	return 0;
}

/* A file, or every *.bf16 file of a directory in name order. */
static int add_path(pool *p, const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return append_file(p, path);
	char *names[MAX_FILES];
	int n = 0;
	struct dirent *ent;
	while ((ent = readdir(d)) != NULL && n < MAX_FILES) {
		size_t len = strlen(ent->d_name);
		if (len > 5 && strcmp(ent->d_name + len - 5, ".bf16") == 0) {
			names[n] = (char *)malloc(strlen(path) + len + 2);
			if (!names[n])
				break;
			sprintf(names[n], "%s/%s", path, ent->d_name);
			n++;
		}
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], cmp_str);
	int rc = n ? 0 : -1;
	for (int i = 0; i < n; i++) {
		if (rc == 0 && append_file(p, names[i]) != 0)
			rc = -1;
		free(names[i]);
	}
	return rc;
}

static int dir_exists(const char *path)
{
	DIR *d = opendir(path);
	if (d)
		closedir(d);
	return d != NULL;
}

static int load_pool(const bench_opts *o, pool *p)
{
	memset(p, 0, sizeof *p);
	const char *where = NULL;
	if (o->n_data) {
		for (int i = 0; i < o->n_data; i++)
			if (add_path(p, o->data[i]) != 0) {
				fprintf(stderr, "splitzip bench: cannot read %s\n", o->data[i]);
				return -1;
			}
		where = o->data[0];
	} else {
		const char *env = getenv("SPLITZIP_BENCH_DATA");
		where = env && *env                          ? env
		        : dir_exists(SZ_BENCH_SHARED_KV_DIR) ? SZ_BENCH_SHARED_KV_DIR
		                                             : SZ_BENCH_DATA_DIR "/kv";
		if (add_path(p, where) != 0) {
			fprintf(stderr, "splitzip bench: no BF16 data in %s (use --data)\n", where);
			return -1;
		}
	}
	snprintf(p->desc, sizeof p->desc, "%d file(s), %.2f MiB, from %s%s", p->n_files,
	         (double)p->n * 2 / (1 << 20), where, o->n_data > 1 ? " and others" : "");
	return 0;
}

/* ---- Timing -------------------------------------------------------------------------------- */

typedef int (*bench_fn)(void *arg); /* one call; nonzero on failure */

/*
 * Median seconds per call over 'reps' samples. A sample runs the call k times, k chosen once
 * from a warm-up call so that a sample lasts about min_sample_s. Returns < 0 on failure.
 */
static double time_calls(bench_fn fn, void *arg, int reps, double min_sample_s)
{
	double t0 = now_s();
	if (fn(arg))
		return -1;
	double one = now_s() - t0;
	long k = one > 0 ? (long)(min_sample_s / one) : 1000;
	if (k < 1)
		k = 1;
	if (k > 100000)
		k = 100000;
	double samples[64];
	if (reps > 64)
		reps = 64;
	for (int r = 0; r < reps; r++) {
		t0 = now_s();
		for (long j = 0; j < k; j++)
			if (fn(arg))
				return -1;
		samples[r] = (now_s() - t0) / (double)k;
	}
	qsort(samples, (size_t)reps, sizeof samples[0], cmp_double);
	return samples[reps / 2];
}

typedef struct job {
	splitzip_ctx *ctx;
	const uint16_t *src;
	size_t n;
	uint8_t *frame;
	size_t cap, frame_size;
	uint16_t *out;
	unsigned threads;
	void *ref_ctx; /* ZSTD_CCtx / ZSTD_DCtx */
} job;

static int do_compress(void *a)
{
	job *j = (job *)a;
	return splitzip_compress(j->ctx, j->src, j->n, j->frame, j->cap, &j->frame_size) !=
	       SPLITZIP_OK;
}

static int do_decompress(void *a)
{
	job *j = (job *)a;
	size_t got;
	return splitzip_decompress(j->ctx, j->frame, j->frame_size, j->out, j->n, &got) !=
	           SPLITZIP_OK ||
	       got != j->n;
}

static int do_memcpy(void *a)
{
	job *j = (job *)a;
	const size_t bytes = j->n * 2;
#ifdef _OPENMP
	const int T = (int)j->threads;
#pragma omp parallel for num_threads(T) schedule(static) if (T > 1)
	for (int w = 0; w < T; w++) {
		size_t b0 = bytes / 64 * (size_t)w / (size_t)T * 64;
		size_t b1 = w + 1 == T ? bytes : bytes / 64 * (size_t)(w + 1) / (size_t)T * 64;
		memcpy((uint8_t *)j->out + b0, (const uint8_t *)j->src + b0, b1 - b0);
	}
#else
	memcpy(j->out, j->src, bytes);
#endif
	/* Keep the copy observable so it cannot be elided. */
	return ((volatile uint8_t *)j->out)[bytes - 1] != ((const uint8_t *)j->src)[bytes - 1];
}

#if SZ_BENCH_HAVE_ZSTD
static int do_zstd_c(void *a)
{
	job *j = (job *)a;
	size_t r =
	    ZSTD_compressCCtx((ZSTD_CCtx *)j->ref_ctx, j->frame, j->cap, j->src, j->n * 2, 1);
	j->frame_size = r;
	return ZSTD_isError(r) != 0;
}

static int do_zstd_d(void *a)
{
	job *j = (job *)a;
	size_t r =
	    ZSTD_decompressDCtx((ZSTD_DCtx *)j->ref_ctx, j->out, j->n * 2, j->frame, j->frame_size);
	return ZSTD_isError(r) || r != j->n * 2;
}
#endif

#if SZ_BENCH_HAVE_LZ4
static int do_lz4_c(void *a)
{
	job *j = (job *)a;
	int r = LZ4_compress_default((const char *)j->src, (char *)j->frame, (int)(j->n * 2),
	                             (int)j->cap);
	j->frame_size = (size_t)r;
	return r <= 0;
}

static int do_lz4_d(void *a)
{
	job *j = (job *)a;
	int r = LZ4_decompress_safe((const char *)j->frame, (char *)j->out, (int)j->frame_size,
	                            (int)(j->n * 2));
	return r != (int)(j->n * 2);
}
#endif

/* ---- Output -------------------------------------------------------------------------------- */

typedef struct row {
	size_t bytes;
	const char *backend;
	const char *mode; /* "split4", "entropy", "auto", or the reference codec's "-" */
	unsigned threads;
	double ratio;
	double enc_s, encfix_s, dec_s, memcpy_s; /* seconds per call; < 0: not measured */
} row;

static double gbps(size_t bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e9 : 0;
}

static void print_header(const bench_opts *o, const pool *p)
{
	char cpu[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[512];
		while (fgets(line, sizeof line, f)) {
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');
				if (c) {
					snprintf(cpu, sizeof cpu, "%s", c + 2);
					cpu[strcspn(cpu, "\n")] = 0;
				}
				break;
			}
		}
		fclose(f);
	}
	int procs = 1;
#ifdef _OPENMP
	procs = omp_get_num_procs();
#endif
	if (o->json) {
		printf(
		    "{\n  \"splitzip_version\": \"%s\",\n  \"cpu\": \"%s\",\n  \"processors\": "
		    "%d,\n"
		    "  \"data\": \"%s\",\n  \"flags\": %u,\n  \"unit\": \"GB/s = 1e9 uncompressed "
		    "bytes per second, median\",\n  \"results\": [",
		    splitzip_version_string(), cpu, procs, p->desc, o->flags);
		return;
	}
	printf("splitzip %s CPU benchmark -- %s, %d processor(s)\n", splitzip_version_string(), cpu,
	       procs);
	printf("data: real KV %s, tiled to each size\n", p->desc);
	printf("GB/s = 1e9 uncompressed bytes/s, median of samples; memcpy on the same buffer and "
	       "thread count in the same run\n");
	printf("encode: codebook or entropy table from the input; enc-fixed: pre-calibrated "
	       "codebook or table%s\n\n",
	       o->flags ? "; content checksum on" : "");
	printf("%-9s %-11s %-7s %3s %6s %8s %9s %8s %8s %6s %6s %6s %9s %9s\n", "size", "backend",
	       "mode", "thr", "ratio", "encode", "enc-fixed", "decode", "memcpy", "enc/mc",
	       "fix/mc", "dec/mc", "enc-us", "dec-us");
}

static void print_row(const bench_opts *o, const row *r, int *first)
{
	char sz[32];
	size_name(r->bytes, sz, sizeof sz);
	double mc = gbps(r->bytes, r->memcpy_s);
	double e = gbps(r->bytes, r->enc_s), ef = gbps(r->bytes, r->encfix_s);
	double d = gbps(r->bytes, r->dec_s);
	if (o->json) {
		printf("%s\n    {\"size\": %zu, \"backend\": \"%s\", \"mode\": \"%s\", "
		       "\"threads\": %u, \"ratio\": %.5f, "
		       "\"encode_gbps\": %.3f, \"encode_fixed_gbps\": %.3f, \"decode_gbps\": %.3f, "
		       "\"memcpy_gbps\": %.3f, \"encode_us\": %.3f, \"encode_fixed_us\": %.3f, "
		       "\"decode_us\": %.3f}",
		       *first ? "" : ",", r->bytes, r->backend, r->mode, r->threads, r->ratio, e,
		       ef, d, mc, r->enc_s * 1e6, r->encfix_s > 0 ? r->encfix_s * 1e6 : 0,
		       r->dec_s * 1e6);
		*first = 0;
		return;
	}
	char fx[16] = "-", fxr[16] = "-";
	if (r->encfix_s > 0) {
		snprintf(fx, sizeof fx, "%.2f", ef);
		snprintf(fxr, sizeof fxr, "%.2f", ef / mc);
	}
	printf("%-9s %-11s %-7s %3u %6.4f %8.2f %9s %8.2f %8.2f %6.2f %6s %6.2f %9.1f %9.1f\n", sz,
	       r->backend, r->mode, r->threads, r->ratio, e, fx, d, mc, e / mc, fxr, d / mc,
	       r->enc_s * 1e6, r->dec_s * 1e6);
	fflush(stdout);
}

/* ---- The benchmark ------------------------------------------------------------------------- */

/* A context for 'backend' and encoding 'enc'; with 'cb' and 't', a fixed codebook and table. */
static splitzip_ctx *make_ctx(const char *backend, unsigned threads, unsigned flags, int enc,
                              const splitzip_codebook *cb, const splitzip_entropy_table *t)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.n_threads = threads;
	p.flags = flags;
	p.encoding = (splitzip_encoding)enc;
	if (cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *cb;
	}
	if (t) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table = *t;
	}
	/* By name through the documented override (two AVX-512 backends share one id). */
	char *saved = getenv("SPLITZIP_FORCE_BACKEND");
	char keep[64] = "";
	if (saved)
		snprintf(keep, sizeof keep, "%s", saved);
	setenv("SPLITZIP_FORCE_BACKEND", backend, 1);
	splitzip_ctx *ctx = NULL;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	if (saved)
		setenv("SPLITZIP_FORCE_BACKEND", keep, 1);
	else
		unsetenv("SPLITZIP_FORCE_BACKEND");
	if (st != SPLITZIP_OK) {
		fprintf(stderr, "splitzip bench: backend %s: %s\n", backend,
		        splitzip_error_string(st));
		return NULL;
	}
	return ctx;
}

/* The buffers and shared results of one size. */
typedef struct size_run {
	size_t bytes, n, cap;
	uint16_t *src, *out;
	uint8_t *frame;
	int reps;
	splitzip_codebook cb;         /* calibrated on the input, for the enc-fixed rows */
	splitzip_entropy_table table; /* the same for entropy frames */
	double memcpy_s[MAX_LIST];    /* per thread count */
} size_run;

static void size_run_free(size_run *r)
{
	free(r->src), free(r->frame), free(r->out);
}

/* Allocate and fill the buffers: the real data tiled to 'bytes', every page faulted in. */
static int size_run_init(size_run *r, const bench_opts *o, const pool *p, size_t bytes)
{
	memset(r, 0, sizeof *r);
	r->bytes = bytes;
	r->n = bytes / 2;
	r->reps = o->repeats ? o->repeats : (bytes >= ((size_t)64 << 20) ? 5 : 11);
	r->cap = splitzip_compress_bound(r->n);
	r->src = (uint16_t *)malloc(r->n * 2);
	r->frame = (uint8_t *)malloc(r->cap);
	r->out = (uint16_t *)malloc(r->n * 2);
	if (!r->src || !r->frame || !r->out) {
		fprintf(stderr, "splitzip bench: out of memory for %zu bytes\n", bytes);
		size_run_free(r);
		return 1;
	}
	for (size_t i = 0; i < r->n; i += p->n) /* tile the real data to the size */
		memcpy(r->src + i, p->v, (r->n - i < p->n ? r->n - i : p->n) * 2);
	memset(r->frame, 0, r->cap);
	memset(r->out, 0, r->n * 2);
	splitzip_calibrate(r->src, r->n, &r->cb);
	splitzip_entropy_calibrate(r->src, r->n, &r->table);
	for (int t = 0; t < o->n_threads; t++) {
		job j = {.src = r->src, .n = r->n, .out = r->out, .threads = o->threads[t]};
		r->memcpy_s[t] = time_calls(do_memcpy, &j, r->reps, o->min_sample_s);
	}
	return 0;
}

static const char *mode_name(int enc)
{
	return enc == SPLITZIP_ENCODING_ENTROPY ? "entropy"
	       : enc == SPLITZIP_ENCODING_AUTO  ? "auto"
	                                        : "split4";
}

/* The row of one backend at one thread count (index t of o->threads) and one encoding. */
static int bench_backend(const bench_opts *o, const size_run *s, const char *name, int t, int mode,
                         int *first)
{
	const unsigned T = o->threads[t];
	splitzip_ctx *enc = make_ctx(name, T, o->flags, mode, NULL, NULL);
	splitzip_ctx *fix = make_ctx(name, T, o->flags, mode, &s->cb, &s->table);
	int rc = 0;
	if (!enc || !fix) {
		rc = 2;
		goto done;
	}
	job j = {
	    .ctx = enc, .src = s->src, .n = s->n, .frame = s->frame, .cap = s->cap, .out = s->out};
	row r = {.bytes = s->bytes, .backend = name, .mode = mode_name(mode), .threads = T};
	/* Round trip first: a benchmark of a wrong result is worthless. */
	memset(s->out, 0, s->n * 2);
	if (do_compress(&j) || do_decompress(&j) || memcmp(s->out, s->src, s->n * 2) != 0) {
		fprintf(stderr, "splitzip bench: %s round trip failed at %zu bytes\n", name,
		        s->bytes);
		rc = 1;
		goto done;
	}
	r.ratio = (double)s->bytes / (double)j.frame_size;
	r.enc_s = time_calls(do_compress, &j, s->reps, o->min_sample_s);
	r.dec_s = time_calls(do_decompress, &j, s->reps, o->min_sample_s);
	j.ctx = fix;
	r.encfix_s = time_calls(do_compress, &j, s->reps, o->min_sample_s);
	r.memcpy_s = s->memcpy_s[t];
	if (r.enc_s < 0 || r.dec_s < 0 || r.encfix_s < 0) {
		fprintf(stderr, "splitzip bench: %s failed while timing\n", name);
		rc = 1;
	} else {
		print_row(o, &r, first);
	}
done:
	splitzip_ctx_free(enc);
	splitzip_ctx_free(fix);
	return rc;
}

#if SZ_BENCH_HAVE_ZSTD || SZ_BENCH_HAVE_LZ4
/*
 * A reference codec's row: compress with 'c' and decompress with 'd' (their contexts in
 * cctx/dctx), checking the round trip before timing the decoder.
 */
static void bench_reference(const bench_opts *o, const size_run *s, const char *name, uint8_t *rbuf,
                            size_t rcap, bench_fn c, void *cctx, bench_fn d, void *dctx, int *first)
{
	const int rreps = s->reps > 5 ? 5 : s->reps;
	job j = {
	    .src = s->src, .n = s->n, .frame = rbuf, .cap = rcap, .out = s->out, .ref_ctx = cctx};
	row r = {.bytes = s->bytes,
	         .backend = name,
	         .mode = "-",
	         .threads = 1,
	         .memcpy_s = s->memcpy_s[0],
	         .encfix_s = -1};
	if (c(&j) != 0)
		return;
	r.ratio = (double)s->bytes / (double)j.frame_size;
	r.enc_s = time_calls(c, &j, rreps, o->min_sample_s);
	j.ref_ctx = dctx;
	memset(s->out, 0, s->n * 2);
	if (d(&j) == 0 && memcmp(s->out, s->src, s->n * 2) == 0) {
		r.dec_s = time_calls(d, &j, rreps, o->min_sample_s);
		print_row(o, &r, first);
	}
}
#endif

/* The zstd -1 and lz4 rows, when the benchmark is built with them. */
static void bench_references(const bench_opts *o, const size_run *s, int *first)
{
#if SZ_BENCH_HAVE_ZSTD || SZ_BENCH_HAVE_LZ4
	size_t rcap = 0; /* one buffer large enough for both references' worst case */
#if SZ_BENCH_HAVE_ZSTD
	rcap = ZSTD_compressBound(s->n * 2);
#endif
#if SZ_BENCH_HAVE_LZ4
	const int lz4_ok = s->n * 2 <= (size_t)LZ4_MAX_INPUT_SIZE;
	if (lz4_ok && (size_t)LZ4_compressBound((int)(s->n * 2)) > rcap)
		rcap = (size_t)LZ4_compressBound((int)(s->n * 2));
#endif
	uint8_t *rbuf = (uint8_t *)malloc(rcap);
	if (!rbuf)
		return;
	memset(rbuf, 0, rcap); /* fault the pages in before timing */
#if SZ_BENCH_HAVE_ZSTD
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (cc && dc)
		bench_reference(o, s, "zstd-1", rbuf, rcap, do_zstd_c, cc, do_zstd_d, dc, first);
	ZSTD_freeCCtx(cc);
	ZSTD_freeDCtx(dc);
#endif
#if SZ_BENCH_HAVE_LZ4
	if (lz4_ok)
		bench_reference(o, s, "lz4", rbuf, rcap, do_lz4_c, NULL, do_lz4_d, NULL, first);
#endif
	free(rbuf);
#else
	(void)o, (void)s, (void)first;
#endif
}

/* The backends to measure: the named ones, or every usable one. Returns their number. */
static int backend_names(const bench_opts *o, const char **names)
{
	int nb = 0;
	if (o->n_backends) {
		for (int i = 0; i < o->n_backends; i++)
			names[nb++] = o->backends[i];
	} else {
		for (size_t i = 0; i < splitzip_backend_count() && nb < MAX_LIST; i++)
			if (splitzip_backend_available(i))
				names[nb++] = splitzip_backend_name(i);
	}
	return nb;
}

static int run_size(const bench_opts *o, const pool *p, size_t bytes, int *first)
{
	size_run s;
	if (size_run_init(&s, o, p, bytes) != 0)
		return 1;
	const char *names[MAX_LIST];
	const int nb = backend_names(o, names);
	int rc = 0;
	for (int m = 0; m < o->n_modes && rc == 0; m++)
		for (int b = 0; b < nb && rc == 0; b++)
			for (int t = 0; t < o->n_threads && rc == 0; t++)
				rc = bench_backend(o, &s, names[b], t, o->modes[m], first);
	if (o->refs && rc == 0)
		bench_references(o, &s, first);
	size_run_free(&s);
	return rc;
}

/* ---- Options -------------------------------------------------------------------------------- */

/* The comma-separated lists of --sizes, --threads and --backends, as given (owned copies). */
typedef struct raw_lists {
	char *v[4];
} raw_lists;

/* Parse argv into 'o' and 'l'. Returns 0, 2 on a usage error, or -1 after --help. */
static int parse_args(int argc, char **argv, const char *prog, bench_opts *o, raw_lists *l)
{
	static const char *const list_opts[4] = {"--sizes", "--threads", "--backends", "--modes"};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int li = -1;
		for (int k = 0; k < 4; k++)
			if (strcmp(a, list_opts[k]) == 0)
				li = k;
		if (strcmp(a, "--quick") == 0) {
			o->quick = 1;
		} else if (strcmp(a, "--json") == 0) {
			o->json = 1;
		} else if (strcmp(a, "--no-ref") == 0) {
			o->refs = 0;
		} else if (strcmp(a, "--checksum") == 0) {
			o->flags |= SPLITZIP_FLAG_CONTENT_CHECKSUM;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout, prog);
			return -1;
		} else if (li >= 0 ||
		           ((strcmp(a, "--data") == 0 || strcmp(a, "--repeats") == 0) && val)) {
			if (!val) {
				fprintf(stderr, "%s: %s needs a value\n", prog, a);
				return 2;
			}
			i++;
			if (li >= 0) {
				free(l->v[li]);
				l->v[li] = strdup(val);
			} else if (strcmp(a, "--data") == 0) {
				if (o->n_data < MAX_FILES)
					o->data[o->n_data++] = val;
			} else if ((o->repeats = atoi(val)) < 1 || o->repeats > 64) {
				fprintf(stderr, "%s: --repeats must be 1..64\n", prog);
				return 2;
			}
		} else {
			fprintf(stderr, "%s: unknown or incomplete option %s\n", prog, a);
			usage(stderr, prog);
			return 2;
		}
	}
	return 0;
}

/* Fill o->modes from the --modes list. Returns 0 or 2. */
static int apply_modes(const char *prog, char *list, bench_opts *o)
{
	char *items[MAX_LIST];
	int k = split_list(list, items, MAX_LIST);
	if (k <= 0 || k > 3)
		return 2;
	for (o->n_modes = 0; o->n_modes < k; o->n_modes++) {
		const char *m = items[o->n_modes];
		int e = strcmp(m, "split4") == 0    ? SPLITZIP_ENCODING_SPLIT4
		        : strcmp(m, "entropy") == 0 ? SPLITZIP_ENCODING_ENTROPY
		        : strcmp(m, "auto") == 0    ? SPLITZIP_ENCODING_AUTO
		                                    : -1;
		if (e < 0) {
			fprintf(stderr, "%s: bad mode %s (split4, entropy, auto)\n", prog, m);
			return 2;
		}
		o->modes[o->n_modes] = e;
	}
	return 0;
}

/* Fill 'o' from the --sizes, --threads, --backends and --modes lists. Returns 0 or 2. */
static int apply_lists(const char *prog, raw_lists *l, bench_opts *o)
{
	char *items[MAX_LIST];
	int k;
	if (l->v[0]) {
		if ((k = split_list(l->v[0], items, MAX_LIST)) <= 0)
			return 2;
		for (o->n_sizes = 0; o->n_sizes < k; o->n_sizes++) {
			size_t b = parse_size(items[o->n_sizes]);
			if (b < 2 || b / 2 > SPLITZIP_MAX_FRAME_ELEMS) {
				fprintf(stderr, "%s: bad size %s\n", prog, items[o->n_sizes]);
				return 2;
			}
			o->sizes[o->n_sizes] = b;
		}
	}
	if (l->v[1]) {
		if ((k = split_list(l->v[1], items, MAX_LIST)) <= 0)
			return 2;
		for (o->n_threads = 0; o->n_threads < k; o->n_threads++) {
			int t = atoi(items[o->n_threads]);
			if (t < 1 || t > 1024) {
				fprintf(stderr, "%s: bad thread count %s\n", prog,
				        items[o->n_threads]);
				return 2;
			}
			o->threads[o->n_threads] = (unsigned)t;
		}
	}
	if (l->v[2]) {
		if ((k = split_list(l->v[2], items, MAX_LIST)) <= 0)
			return 2;
		for (o->n_backends = 0; o->n_backends < k; o->n_backends++)
			o->backends[o->n_backends] = items[o->n_backends];
	}
	return l->v[3] ? apply_modes(prog, l->v[3], o) : 0;
}

/* Defaults for what the options left open. */
static void apply_defaults(bench_opts *o)
{
	if (!o->n_sizes) {
		o->sizes[o->n_sizes++] = (size_t)64 << 10;
		o->sizes[o->n_sizes++] = (size_t)4 << 20;
		if (!o->quick)
			o->sizes[o->n_sizes++] = (size_t)256 << 20;
	}
	if (!o->n_modes) {
		o->modes[o->n_modes++] = SPLITZIP_ENCODING_SPLIT4;
		o->modes[o->n_modes++] = SPLITZIP_ENCODING_ENTROPY;
	}
	if (!o->n_threads) {
		o->threads[o->n_threads++] = 1;
#ifdef _OPENMP
		int procs = omp_get_num_procs();
		if (procs > 1)
			o->threads[o->n_threads++] = (unsigned)procs;
#endif
	}
	if (o->quick) {
		if (!o->repeats)
			o->repeats = 3;
		o->min_sample_s = 0.002;
	}
}

int splitzip_bench_main(int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "splitzip-bench";
	bench_opts o;
	memset(&o, 0, sizeof o);
	o.refs = 1;
	o.min_sample_s = 0.005;
	raw_lists l = {{NULL, NULL, NULL, NULL}};
	int rc = parse_args(argc, argv, prog, &o, &l);
	if (rc == 0)
		rc = apply_lists(prog, &l, &o);
	pool p;
	memset(&p, 0, sizeof p);
	if (rc == 0) {
		apply_defaults(&o);
		if (load_pool(&o, &p) != 0)
			rc = 2;
	}
	if (rc == 0) {
		int first = 1;
		print_header(&o, &p);
		for (int s = 0; s < o.n_sizes && rc == 0; s++)
			rc = run_size(&o, &p, o.sizes[s] & ~(size_t)1, &first);
		if (o.json)
			printf("\n  ]\n}\n");
	}
	free(p.v);
	for (int i = 0; i < 4; i++)
		free(l.v[i]);
	return rc < 0 ? 0 : rc;
}
