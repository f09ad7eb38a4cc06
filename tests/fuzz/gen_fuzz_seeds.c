/*
 * gen_fuzz_seeds.c -- writes the seed corpora of the fuzz targets from valid frames, so that the
 * seeds always match the current format:
 *   <out>/decode/        frames and streams (stored, split4 with and without escapes, every
 *                        checksum setting, chunk sizes 2^10..2^16, real KV slices), a codebook
 *   <out>/roundtrip/     inputs in the encoder format of fuzz_common.h
 *   <out>/differential/  both of the above
 *   <out>/pages/         page streams (doc/FORMAT.md §12): KV pages, raw and empty pages,
 *                        split4, entropy and auto, with and without checksums, fixed tables
 *                        with an id, no pages
 * Usage: gen_fuzz_seeds <out-dir>. Deterministic; every seed is at most a few KiB, so libFuzzer
 * mutates them quickly.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "splitzip.h"
#include "sz_test_data.h"

#define CK SPLITZIP_FLAG_CONTENT_CHECKSUM

static const char *out_dir;
static int failed;

static void make_dir(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "cannot create %s\n", path);
		exit(1);
	}
}

static void write_seed(const char *sub, const char *name, const void *p, size_t size)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", out_dir, sub, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(p, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		failed = 1;
	}
}

/* Data of a generator (g >= 0) or a real KV slice (g = -1 K, -2 V), malloc'ed. */
static uint16_t *make_data(int g, size_t n)
{
	uint16_t *d = (uint16_t *)malloc(n ? n * 2 : 1);
	if (!d)
		exit(1);
	if (g >= 0) {
		sz_test_generate(g, 2024 + n, d, n);
		return d;
	}
	size_t total = 0;
	uint16_t *kv = sz_test_load_kv(g == -1 ? "K" : "V", &total);
	if (!kv || total < 4096 + n) {
		fprintf(stderr, "bundled KV sample missing\n");
		exit(1);
	}
	memcpy(d, kv + 4096, n * 2);
	free(kv);
	return d;
}

static uint8_t *compress_enc(const uint16_t *d, size_t n, unsigned log2, unsigned flags,
                             splitzip_encoding enc, size_t *size)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.chunk_log2 = log2;
	p.flags = flags;
	p.encoding = enc;
	splitzip_ctx *ctx = NULL;
	size_t cap = splitzip_compress_bound(n);
	uint8_t *f = (uint8_t *)malloc(cap);
	if (!f || splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK ||
	    splitzip_compress(ctx, d, n, f, cap, size) != SPLITZIP_OK) {
		fprintf(stderr, "compress failed\n");
		exit(1);
	}
	splitzip_ctx_free(ctx);
	return f;
}

static uint8_t *compress(const uint16_t *d, size_t n, unsigned log2, unsigned flags, size_t *size)
{
	return compress_enc(d, n, log2, flags, SPLITZIP_ENCODING_SPLIT4, size);
}

typedef struct frame_seed {
	int gen;
	size_t n;
	unsigned log2;
	unsigned flags;
} frame_seed;

static const frame_seed frames[] = {
    {SZ_GEN_ZERO, 0, 12, 0},
    {SZ_GEN_ZERO, 0, 10, CK},
    {SZ_GEN_RANDOM, 1, 12, CK},
    {SZ_GEN_FEW_EXPONENTS, 17, 10, 0},
    {SZ_GEN_FEW_EXPONENTS, 100, 10, CK},
    {SZ_GEN_ZERO, 64, 10, 0},
    {SZ_GEN_RANDOM, 77, 12, 0},
    {SZ_GEN_ALL_ESCAPE, 300, 10, CK},
    {SZ_GEN_SPECIALS, 500, 11, CK},
    {SZ_GEN_SPARSE_WINDOW, 640, 10, 0},
    {SZ_GEN_KV_SKEWED, 1025, 10, CK},
    {SZ_GEN_KV_SKEWED, 1500, 16, 0},
    {SZ_GEN_ESCAPE_5PCT, 1800, 10, CK},
    {SZ_GEN_ESCAPE_1PCT, 3001, 10, 0},
    {SZ_GEN_ESCAPE_1PCT, 2100, 13, CK},
    {-1, 2048, 10, CK},
    {-2, 1500, 12, 0},
};

/* Entropy frames (mode 2): real and generated data, a table with escapes, a stream. */
static void entropy_seeds(void)
{
	static const frame_seed ent[] = {
	    {-1, 2048, 10, CK},
	    {-2, 1500, 12, 0},
	    {SZ_GEN_KV_SKEWED, 3001, 10, CK},
	    {SZ_GEN_ESCAPE_5PCT, 1100, 11, 0},
	    {SZ_GEN_FEW_EXPONENTS, 700, 10, CK},
	    {SZ_GEN_ZERO, 400, 10, 0},
	    {SZ_GEN_SPECIALS, 2000, 14, CK},
	};
	char name[128];
	for (size_t k = 0; k < sizeof ent / sizeof ent[0]; k++) {
		const frame_seed *s = &ent[k];
		uint16_t *d = make_data(s->gen, s->n);
		size_t size = 0;
		uint8_t *f =
		    compress_enc(d, s->n, s->log2, s->flags, SPLITZIP_ENCODING_ENTROPY, &size);
		snprintf(name, sizeof name, "entropy_%s_%zu_l%u%s",
		         s->gen == -1   ? "realK"
		         : s->gen == -2 ? "realV"
		                        : sz_test_gen_name(s->gen),
		         s->n, s->log2, (s->flags & CK) ? "_ck" : "");
		write_seed("decode", name, f, size);
		write_seed("differential", name, f, size);
		free(f);
		free(d);
	}
	/* A table file. */
	uint16_t *d = make_data(-1, 4096);
	splitzip_entropy_table t;
	uint8_t file[SPLITZIP_ENTROPY_TABLE_FILE_SIZE];
	splitzip_entropy_calibrate(d, 4096, &t);
	splitzip_entropy_table_serialize(&t, file, sizeof file);
	write_seed("decode", "entropy_table_file", file, sizeof file);
	free(d);
}

static void decode_seeds(void)
{
	char name[128];
	for (size_t k = 0; k < sizeof frames / sizeof frames[0]; k++) {
		const frame_seed *s = &frames[k];
		uint16_t *d = make_data(s->gen, s->n);
		size_t size = 0;
		uint8_t *f = compress(d, s->n, s->log2, s->flags, &size);
		splitzip_frame_info fi;
		splitzip_get_frame_info(f, size, &fi);
		snprintf(name, sizeof name, "%s_%s_%zu_l%u%s",
		         fi.mode == SPLITZIP_MODE_STORED ? "stored" : "split4",
		         s->gen == -1   ? "realK"
		         : s->gen == -2 ? "realV"
		                        : sz_test_gen_name(s->gen),
		         s->n, s->log2, (s->flags & CK) ? "_ck" : "");
		write_seed("decode", name, f, size);
		write_seed("differential", name, f, size);
		free(f);
		free(d);
	}
	/* A stream of two frames: split4 with escapes, then stored. */
	uint16_t *d1 = make_data(SZ_GEN_ESCAPE_1PCT, 600), *d2 = make_data(SZ_GEN_RANDOM, 50);
	size_t s1 = 0, s2 = 0;
	uint8_t *f1 = compress(d1, 600, 10, CK, &s1), *f2 = compress(d2, 50, 10, 0, &s2);
	uint8_t *stream = (uint8_t *)malloc(s1 + s2);
	if (!stream)
		exit(1);
	memcpy(stream, f1, s1);
	memcpy(stream + s1, f2, s2);
	write_seed("decode", "stream_split4_stored", stream, s1 + s2);
	write_seed("differential", "stream_split4_stored", stream, s1 + s2);
	free(stream);
	free(f1);
	free(f2);
	free(d1);
	free(d2);
	/* A codebook file. */
	splitzip_codebook cb;
	for (unsigned k = 0; k < 16; k++)
		cb.exponents[k] = (uint8_t)(112 + k);
	uint8_t file[SPLITZIP_CODEBOOK_FILE_SIZE];
	splitzip_codebook_serialize(&cb, file, sizeof file);
	write_seed("decode", "codebook_112_127", file, sizeof file);
	entropy_seeds();
}

typedef struct enc_seed {
	int gen;
	size_t n;
	uint8_t b0, b1;   /* see fuzz_common.h */
	uint8_t cb_first; /* fixed codebook cb_first .. cb_first + 15 (if b0 bit 4) */
} enc_seed;

static const enc_seed encs[] = {
    {SZ_GEN_ZERO, 0, 0x00, 0, 0},
    {SZ_GEN_RANDOM, 200, 0x00, 0, 0},
    {SZ_GEN_KV_SKEWED, 1000, 0x08, 0, 0},
    {SZ_GEN_ESCAPE_5PCT, 700, 0x18, 0, 112},
    {SZ_GEN_SPECIALS, 300, 0x0A, 0, 0},
    {SZ_GEN_KV_SKEWED, 256, 0xE8, 37, 0},     /* 8 repeats: 2048 elements, 2 chunks */
    {SZ_GEN_ESCAPE_1PCT, 300, 0x70, 11, 110}, /* 4 repeats, fixed codebook */
    {SZ_GEN_FEW_EXPONENTS, 64, 0x10, 0, 120},
    {SZ_GEN_ALL_ESCAPE, 400, 0x09, 0, 0},
    {SZ_GEN_SPARSE_WINDOW, 500, 0x26, 3, 0}, /* chunk_log2 16, 2 repeats */
    {-1, 1500, 0x02, 0, 0},
    {-2, 1200, 0x1C, 0, 112},
    /* Without byte 0 bit 4, byte 2 (cb_first) picks the encoding: 1 entropy, 2 auto, +4 a
     * fixed table from bytes 3..17 (here cb_first + 1 ..: a window of 15 exponents). */
    {-1, 1500, 0x0A, 0, 1},
    {-2, 1200, 0x00, 0, 2},
    {SZ_GEN_KV_SKEWED, 256, 0xE8, 37, 1},    /* 8 repeats, entropy */
    {SZ_GEN_ESCAPE_5PCT, 700, 0x08, 0, 113}, /* 113 = 0x71: entropy, table 114..128 */
    {SZ_GEN_SPECIALS, 300, 0x0A, 0, 2},
    {SZ_GEN_RANDOM, 200, 0x00, 0, 1}, /* entropy loses: stored */
    {SZ_GEN_ZERO, 0, 0x00, 0, 1},
};

static void encode_seeds(void)
{
	char name[128];
	for (size_t k = 0; k < sizeof encs / sizeof encs[0]; k++) {
		const enc_seed *s = &encs[k];
		uint16_t *d = make_data(s->gen, s->n);
		size_t size = 18 + 2 * s->n;
		uint8_t *buf = (uint8_t *)calloc(1, size);
		if (!buf)
			exit(1);
		buf[0] = s->b0;
		buf[1] = s->b1;
		for (unsigned j = 0; j < 16; j++)
			buf[2 + j] = (uint8_t)(s->cb_first + j);
		for (size_t i = 0; i < s->n; i++) {
			buf[18 + 2 * i] = (uint8_t)d[i];
			buf[18 + 2 * i + 1] = (uint8_t)(d[i] >> 8);
		}
		snprintf(name, sizeof name, "enc_%s_%zu_%02x_%02x_%02x",
		         s->gen == -1   ? "realK"
		         : s->gen == -2 ? "realV"
		                        : sz_test_gen_name(s->gen),
		         s->n, s->b0, s->b1, s->cb_first);
		write_seed("roundtrip", name, buf, size);
		write_seed("differential", name, buf, size);
		free(buf);
		free(d);
	}
}

typedef struct pages_seed {
	const char *name;
	size_t n;
	size_t bytes; /* per page; page 1 of a list of 3 or more is random (raw), page 2 empty */
	unsigned log2;
	splitzip_encoding enc;
	unsigned options; /* SPLITZIP_PAGES_NO_CHECKSUM or 0 */
	int fixed;        /* a codebook and a table calibrated on page 0, id 0x5EED */
} pages_seed;

static const pages_seed pseeds[] = {
    {"kv4_2k_split4", 4, 2048, 10, SPLITZIP_ENCODING_SPLIT4, 0, 0},
    {"kv4_2k_entropy", 4, 2048, 10, SPLITZIP_ENCODING_ENTROPY, 0, 0},
    {"kv6_1152_auto", 6, 1152, 12, SPLITZIP_ENCODING_AUTO, 0, 0},
    {"kv3_1k_fixed_split4", 3, 1024, 12, SPLITZIP_ENCODING_SPLIT4, 0, 1},
    {"kv3_1k_fixed_entropy_nock", 3, 1024, 12, SPLITZIP_ENCODING_ENTROPY,
     SPLITZIP_PAGES_NO_CHECKSUM, 1},
    {"kv5_300_fixed_auto", 5, 300, 10, SPLITZIP_ENCODING_AUTO, 0, 1},
    {"kv1_8k_nock", 1, 8192, 12, SPLITZIP_ENCODING_SPLIT4, SPLITZIP_PAGES_NO_CHECKSUM, 0},
    {"kv8_256_entropy", 8, 256, 10, SPLITZIP_ENCODING_ENTROPY, 0, 0},
    {"none", 0, 0, 12, SPLITZIP_ENCODING_SPLIT4, 0, 0},
};

/* One seed page stream of pseeds[k]. */
static void pages_seed_one(const pages_seed *s)
{
	const void *pages[8];
	size_t bytes[8];
	uint16_t *data[8];
	for (size_t i = 0; i < s->n; i++) {
		data[i] = make_data(i % 2 ? -2 : -1, s->bytes / 2);
		if (i == 1 && s->n >= 3)
			sz_test_generate(SZ_GEN_RANDOM, 77, data[i], s->bytes / 2);
		pages[i] = data[i];
		bytes[i] = i == 2 ? 0 : s->bytes;
	}
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.chunk_log2 = s->log2;
	p.encoding = s->enc;
	if (s->fixed) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		splitzip_calibrate(data[0], s->bytes / 2, &p.codebook);
		splitzip_entropy_calibrate(data[0], s->bytes / 2, &p.table);
	}
	splitzip_ctx *ctx = NULL;
	size_t cap = splitzip_pages_bound(s->n, s->bytes), size = 0;
	uint8_t *out = (uint8_t *)malloc(cap);
	if (!out || splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK ||
	    splitzip_pages_compress(ctx, s->fixed ? 0x5EED : 0, s->options, s->n, pages, bytes, out,
	                            cap, &size) != SPLITZIP_OK) {
		fprintf(stderr, "pages_compress failed\n");
		exit(1);
	}
	write_seed("pages", s->name, out, size);
	splitzip_ctx_free(ctx);
	free(out);
	for (size_t i = 0; i < s->n; i++)
		free(data[i]);
}

static void pages_seeds(void)
{
	for (size_t k = 0; k < sizeof pseeds / sizeof pseeds[0]; k++)
		pages_seed_one(&pseeds[k]);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s <out-dir>\n", argv[0]);
		return 2;
	}
	out_dir = argv[1];
	char path[4096];
	make_dir(out_dir);
	static const char *const subs[] = {"decode", "roundtrip", "differential", "pages"};
	for (size_t k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s", out_dir, subs[k]);
		make_dir(path);
	}
	decode_seeds();
	encode_seeds();
	pages_seeds();
	return failed;
}
