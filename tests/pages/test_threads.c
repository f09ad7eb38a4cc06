/*
 * test_threads.c -- one context shared by many threads (splitzip.h: a context may be used by
 * any number of threads at once). 8 threads each pack and scatter 1000 page streams of mixed
 * sizes and kinds through the same contexts (one per encoding), and compress and decompress a
 * frame now and then; every stream must be byte-identical to the one a single thread writes
 * for the same pages, and every page must come back. ci/run_tests.sh also runs it under
 * ThreadSanitizer (contexts with n_threads = 1, so that no OpenMP region runs: libgomp is not
 * instrumented).
 *
 *   test_threads [THREADS [STREAMS]]      (defaults 8 and 1000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_test_data.h"

#define MAX_PAGES 24

static splitzip_ctx *ctxs[3];
static uint16_t *kv;
static size_t n_kv;
static int n_streams = 1000;

typedef struct job {
	unsigned id;
	unsigned bad;  /* streams that differ from the reference or do not round-trip */
	unsigned done; /* streams checked */
} job;

/* The pages of stream s of thread t: 1-24 pages of 0-8 KiB (even), real KV, some random (raw),
 * some empty; deterministic in (t, s). */
static size_t make_pages(uint64_t seed, uint16_t **pg, size_t *bytes)
{
	const size_t n = 1 + (size_t)(sz_test_rand(&seed) % MAX_PAGES);
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = sz_test_rand(&seed);
		bytes[i] = r % 11 == 0 ? 0 : 2 * (size_t)(1 + (r >> 8) % 4096);
		pg[i] = (uint16_t *)malloc(bytes[i] + 2);
		const size_t at = (size_t)((r >> 24) % (n_kv - 4096));
		if (r % 7 == 0)
			sz_test_generate(SZ_GEN_RANDOM, r, pg[i], bytes[i] / 2);
		else
			memcpy(pg[i], kv + at, bytes[i]);
	}
	return n;
}

/* Pack with ctx, scatter, compare; 0 if all is well. 'ref' may be NULL (no reference). */
static int one_stream(splitzip_ctx *ctx, uint16_t **pg, const size_t *bytes, size_t n,
                      const uint8_t *ref, size_t ref_size, uint8_t **out, size_t *out_size)
{
	const size_t cap = splitzip_pages_bound(n, 8192);
	uint8_t *s = (uint8_t *)malloc(cap);
	size_t size = 0, got = 0;
	int bad = splitzip_pages_compress(ctx, 0, 0, n, (const void *const *)pg, bytes, s, cap,
	                                  &size) != SPLITZIP_OK;
	if (!bad && ref)
		bad = size != ref_size || memcmp(s, ref, size) != 0;
	uint16_t *back[MAX_PAGES];
	for (size_t i = 0; i < n; i++)
		back[i] = (uint16_t *)malloc(bytes[i] + 2);
	uint8_t states[MAX_PAGES];
	if (!bad)
		bad = splitzip_pages_decompress(ctx, s, size, n, (void *const *)back, bytes,
		                                SPLITZIP_PAGES_EXACT, NULL, states,
		                                &got) != SPLITZIP_OK ||
		      got != n;
	for (size_t i = 0; i < n; i++) {
		bad |= !bad &&
		       (states[i] != SPLITZIP_PAGE_WRITTEN || memcmp(back[i], pg[i], bytes[i]));
		free(back[i]);
	}
	*out = s;
	*out_size = size;
	return bad;
}

/* A frame of the first page, compressed and decoded through the shared context too. */
static int one_frame(splitzip_ctx *ctx, const uint16_t *x, size_t n)
{
	const size_t cap = splitzip_compress_bound(n);
	uint8_t *f = (uint8_t *)malloc(cap);
	uint16_t *y = (uint16_t *)malloc(2 * n + 2);
	size_t fs = 0, got = 0;
	uint64_t vn = 0;
	int bad = splitzip_compress(ctx, x, n, f, cap, &fs) != SPLITZIP_OK ||
	          splitzip_decompress(ctx, f, fs, y, n, &got) != SPLITZIP_OK || got != n ||
	          memcmp(x, y, 2 * n) != 0 || splitzip_verify(ctx, f, fs, &vn) != SPLITZIP_OK ||
	          vn != n;
	free(f);
	free(y);
	return bad;
}

/* Thread t: its streams, each against the reference a private context writes. */
static void *worker(void *arg)
{
	job *j = (job *)arg;
	splitzip_params p;
	splitzip_params_init(&p);
	p.n_threads = 1;
	for (int s = 0; s < n_streams; s++) {
		uint16_t *pg[MAX_PAGES];
		size_t bytes[MAX_PAGES];
		const size_t n = make_pages(((uint64_t)j->id << 32) + (uint64_t)s, pg, bytes);
		const int e = s % 3;
		/* The reference: a context of this thread alone, the same parameters. */
		p.encoding = (splitzip_encoding)e;
		splitzip_ctx *own = NULL;
		uint8_t *ref = NULL, *got = NULL;
		size_t ref_size = 0, got_size = 0;
		int bad = splitzip_ctx_create(&p, &own) != SPLITZIP_OK;
		bad |= !bad && one_stream(own, pg, bytes, n, NULL, 0, &ref, &ref_size);
		bad |= !bad && one_stream(ctxs[e], pg, bytes, n, ref, ref_size, &got, &got_size);
		if (!bad && s % 10 == 0 && bytes[0])
			bad = one_frame(ctxs[e], pg[0], bytes[0] / 2);
		j->bad += (unsigned)bad;
		j->done++;
		splitzip_ctx_free(own);
		free(ref);
		free(got);
		for (size_t i = 0; i < n; i++)
			free(pg[i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const int n_thr = argc > 1 ? atoi(argv[1]) : 8;
	if (argc > 2)
		n_streams = atoi(argv[2]);
	if (n_thr < 1 || n_thr > 64 || n_streams < 1) {
		fprintf(stderr, "usage: test_threads [THREADS [STREAMS]]\n");
		return 2;
	}
	kv = sz_test_load_kv("K", &n_kv);
	if (!kv || n_kv < 16384) {
		fprintf(stderr, "test_threads: no KV sample\n");
		return 1;
	}
	for (int e = 0; e < 3; e++) {
		splitzip_params p;
		splitzip_params_init(&p);
		p.encoding = (splitzip_encoding)e;
		p.n_threads = 1;
		if (splitzip_ctx_create(&p, &ctxs[e]) != SPLITZIP_OK) {
			fprintf(stderr, "test_threads: ctx_create\n");
			return 1;
		}
	}
	pthread_t th[64];
	job jobs[64];
	for (int t = 0; t < n_thr; t++) {
		jobs[t] = (job){(unsigned)t, 0, 0};
		if (pthread_create(&th[t], NULL, worker, &jobs[t]) != 0) {
			fprintf(stderr, "test_threads: pthread_create\n");
			return 1;
		}
	}
	unsigned bad = 0, done = 0;
	for (int t = 0; t < n_thr; t++) {
		pthread_join(th[t], NULL);
		bad += jobs[t].bad;
		done += jobs[t].done;
	}
	for (int e = 0; e < 3; e++)
		splitzip_ctx_free(ctxs[e]);
	free(kv);
	printf("test_threads: %d threads, %u streams through 3 shared contexts (split4, entropy, "
	       "auto): %u bad\n",
	       n_thr, done, bad);
	return bad || done != (unsigned)(n_thr * n_streams) ? 1 : 0;
}
