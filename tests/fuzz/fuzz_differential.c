/*
 * fuzz_differential.c -- every available host backend against the scalar oracle.
 *
 * The backends are found at run time through splitzip_backend_count()/_available()/_id_of(),
 * so a backend added to the registry is fuzzed without touching this file. Each input is used
 * twice:
 *   decode: the bytes as a frame stream; every backend returns the same status from
 *           decompress() and verify(), and on success the same elements;
 *   encode: the bytes in the encoder input format (fuzz_common.h); every backend returns the
 *           same status and the same frame bytes, and decodes the oracle's frame to the input.
 */
#include "fuzz_common.h"

#define MAX_BACKENDS 16

typedef struct backends {
	size_t count;
	size_t ref; /* index of the scalar backend in ids[] */
	splitzip_backend_id ids[MAX_BACKENDS];
	const char *names[MAX_BACKENDS];
} backends;

/* The usable backends that a context for the host calls can be bound to (a GPU backend serves
 * them through the device where one is present); the others are left out. */
static void find_backends(backends *b)
{
	memset(b, 0, sizeof *b);
	size_t ref = MAX_BACKENDS;
	for (size_t i = 0; i < splitzip_backend_count() && b->count < MAX_BACKENDS; i++) {
		if (!splitzip_backend_available(i))
			continue;
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = splitzip_backend_id_of(i);
		splitzip_ctx *ctx = NULL;
		if (splitzip_ctx_create(&p, &ctx) != SPLITZIP_OK)
			continue;
		splitzip_ctx_free(ctx);
		if (p.backend == SPLITZIP_BACKEND_SCALAR)
			ref = b->count;
		b->names[b->count] = splitzip_backend_name(i);
		b->ids[b->count++] = p.backend;
	}
	FUZZ_CHECK(ref < MAX_BACKENDS, "the scalar backend is not usable");
	b->ref = ref;
}

static splitzip_ctx *make_ctx(const splitzip_params *base, splitzip_backend_id id)
{
	splitzip_params p = *base;
	p.backend = id;
	splitzip_ctx *ctx = NULL;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	FUZZ_CHECK(st == SPLITZIP_OK, "ctx_create(%d): %s", (int)id, splitzip_status_name(st));
	return ctx;
}

static void diff_decode(const backends *b, const uint8_t *p, size_t size)
{
	uint64_t total = 0;
	size_t cap =
	    splitzip_decompressed_size(p, size, &total) == SPLITZIP_OK ? (size_t)total : size;
	FUZZ_CHECK(cap <= 2 * size, "decompressed size above twice the input size");
	/* elements of the stream's dtype: 1 to 4 bytes (FORMAT.md 1.3) */
	splitzip_frame_info fi;
	const size_t w = splitzip_get_frame_info(p, size, &fi) == SPLITZIP_OK
	                     ? splitzip_dtype_width(fi.dtype)
	                     : 2;
	uint16_t *ref_out = (uint16_t *)malloc(cap ? cap * 4 : 1);
	uint16_t *out = (uint16_t *)malloc(cap ? cap * 4 : 1);
	FUZZ_CHECK(ref_out && out, "out of memory");
	splitzip_params base;
	splitzip_params_init(&base);

	splitzip_ctx *rc = make_ctx(&base, b->ids[b->ref]);
	size_t ref_n = 0;
	uint64_t vn = 0;
	splitzip_status ref_st = splitzip_decompress_dtype(rc, p, size, ref_out, cap * w, &ref_n);
	splitzip_status ref_vst = splitzip_verify(rc, p, size, &vn);
	FUZZ_CHECK(fuzz_is_decode_status(ref_st), "scalar decompress: %s",
	           splitzip_status_name(ref_st));
	splitzip_ctx_free(rc);

	for (size_t k = 0; k < b->count; k++) {
		if (k == b->ref)
			continue;
		splitzip_ctx *ctx = make_ctx(&base, b->ids[k]);
		size_t n = 0;
		splitzip_status st = splitzip_decompress_dtype(ctx, p, size, out, cap * w, &n);
		FUZZ_CHECK(st == ref_st, "decompress: %s says %s, scalar says %s", b->names[k],
		           splitzip_status_name(st), splitzip_status_name(ref_st));
		if (st == SPLITZIP_OK)
			FUZZ_CHECK(n == ref_n && (n == 0 || memcmp(out, ref_out, n * w) == 0),
			           "decompress: %s decodes other elements than scalar",
			           b->names[k]);
		splitzip_status vst = splitzip_verify(ctx, p, size, &vn);
		FUZZ_CHECK(vst == ref_vst, "verify: %s says %s, scalar says %s", b->names[k],
		           splitzip_status_name(vst), splitzip_status_name(ref_vst));
		splitzip_ctx_free(ctx);
	}
	free(out);
	free(ref_out);
}

static void diff_encode(const backends *b, const uint8_t *p, size_t size)
{
	fuzz_enc_input in;
	fuzz_enc_parse(p, size, &in);
	size_t bound = splitzip_compress_bound(in.n);
	uint8_t *ref_frame = (uint8_t *)malloc(bound), *frame = (uint8_t *)malloc(bound);
	uint16_t *back = (uint16_t *)malloc(in.n ? in.n * 2 : 1);
	FUZZ_CHECK(ref_frame && frame && back, "out of memory");

	splitzip_ctx *rc = make_ctx(&in.params, b->ids[b->ref]);
	size_t ref_size = 0;
	splitzip_status ref_st = splitzip_compress(rc, in.data, in.n, ref_frame, bound, &ref_size);
	FUZZ_CHECK(ref_st == SPLITZIP_OK, "scalar compress: %s", splitzip_status_name(ref_st));
	/* One byte short of the frame: every backend must refuse in the same way. */
	size_t short_size = 0;
	splitzip_status ref_short =
	    splitzip_compress(rc, in.data, in.n, frame, ref_size - 1, &short_size);
	splitzip_ctx_free(rc);

	for (size_t k = 0; k < b->count; k++) {
		if (k == b->ref)
			continue;
		splitzip_ctx *ctx = make_ctx(&in.params, b->ids[k]);
		size_t fsize = 0;
		splitzip_status st = splitzip_compress(ctx, in.data, in.n, frame, bound, &fsize);
		FUZZ_CHECK(st == ref_st, "compress: %s says %s", b->names[k],
		           splitzip_status_name(st));
		FUZZ_CHECK(fsize == ref_size && memcmp(frame, ref_frame, fsize) == 0,
		           "compress: %s writes other bytes than scalar (%zu vs %zu bytes)",
		           b->names[k], fsize, ref_size);
		st = splitzip_compress(ctx, in.data, in.n, frame, ref_size - 1, &fsize);
		FUZZ_CHECK(st == ref_short, "compress into frame size - 1: %s says %s", b->names[k],
		           splitzip_status_name(st));
		size_t n = 0;
		st = splitzip_decompress(ctx, ref_frame, ref_size, back, in.n, &n);
		FUZZ_CHECK(st == SPLITZIP_OK && n == in.n &&
		               (n == 0 || memcmp(back, in.data, n * 2) == 0),
		           "%s does not decode the scalar frame: %s", b->names[k],
		           splitzip_status_name(st));
		splitzip_ctx_free(ctx);
	}
	free(back);
	free(frame);
	free(ref_frame);
	free(in.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t size)
{
	static const uint8_t empty[1];
	if (!p)
		p = empty;
	backends b;
	find_backends(&b);
	diff_decode(&b, p, size);
	diff_encode(&b, p, size);
	return 0;
}
