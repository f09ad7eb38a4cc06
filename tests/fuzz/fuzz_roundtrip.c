/*
 * fuzz_roundtrip.c -- compress and decompress data and parameters derived from the input
 * (format in fuzz_common.h), with the default backend.
 *
 * Properties: compress succeeds into splitzip_compress_bound() bytes and into exactly the frame
 * size, and fails with DST_TOO_SMALL one byte short; the frame size is a multiple of 16, at most
 * the bound (= SPLITZIP_COMPRESS_BOUND); the header reports the parameters, codebook and content
 * checksum asked for; the mode and size follow the canonical rule of the encoding (split4,
 * entropy or auto), recomputed here from the layouts and the lane reads of doc/FORMAT.md §4.2,
 * §4.3.5 independently of core/; an entropy frame carries the table asked for (or that of the
 * input) and its escape count; a second compression is identical; decompression into exactly n
 * elements gives the input bit for bit.
 */
#include "fuzz_common.h"

static uint64_t a16(uint64_t x)
{
	return (x + 15) & ~(uint64_t)15;
}

/* The split4 frame size of doc/FORMAT.md §4.2, written out again on purpose. */
static uint64_t split4_size(uint64_t n, unsigned log2, uint64_t e)
{
	uint64_t chunks = (n + ((uint64_t)1 << log2) - 1) >> log2;
	uint64_t off = a16(64 + (n + 1) / 2); /* codes */
	off = a16(off + n);                   /* sign/mantissa */
	off = a16(off + 4 * chunks);          /* chunk table */
	off = a16(off + 2 * e);               /* escape positions */
	return a16(off + e);                  /* escape exponents */
}

/* The words of an entropy frame's chunks (doc/FORMAT.md §4.3.5): a lane reads a word before a
 * symbol when it holds fewer than 11 bits, and before an escape's 8 raw bits when it holds
 * fewer than 8. The number of reads does not depend on the order of the lanes. */
static uint64_t entropy_words(const uint16_t *x, size_t n, unsigned log2,
                              const splitzip_entropy_table *t)
{
	uint64_t words = 0;
	for (size_t c0 = 0; c0 < n; c0 += (size_t)1 << log2) {
		const size_t m = n - c0 < ((size_t)1 << log2) ? n - c0 : (size_t)1 << log2;
		unsigned bits[32] = {0};
		for (size_t i = 0; i < m; i++) {
			const unsigned l = (unsigned)(i % 32), e = (x[c0 + i] >> 7) & 0xFF;
			if (bits[l] < 11) {
				bits[l] += 16;
				words++;
			}
			bits[l] -= t->lengths[e] ? t->lengths[e] : t->escape_length;
			if (!t->lengths[e]) {
				if (bits[l] < 8) {
					bits[l] += 16;
					words++;
				}
				bits[l] -= 8;
			}
		}
	}
	return words;
}

/* The entropy frame size of doc/FORMAT.md §4.3.2, written out again on purpose. */
static uint64_t entropy_size(const uint16_t *x, size_t n, unsigned log2,
                             const splitzip_entropy_table *t)
{
	unsigned first = 256, last = 0;
	for (unsigned e = 0; e < 256; e++)
		if (t->lengths[e]) {
			first = first < e ? first : e;
			last = e;
		}
	uint64_t chunks = (n + ((uint64_t)1 << log2) - 1) >> log2;
	uint64_t off = a16(64 + n);              /* sign/mantissa */
	off = a16(off + (last - first + 2) / 2); /* code lengths */
	off = a16(off + 4 * chunks);             /* chunk table */
	return a16(off + 2 * entropy_words(x, n, log2, t));
}

/* The frame the encoding must give (FORMAT.md §6.3): its mode and size. */
static void expected_frame(const fuzz_enc_input *in, const splitzip_codebook *cb,
                           const splitzip_entropy_table *t, splitzip_mode *mode, uint64_t *fsize)
{
	const size_t n = in->n;
	const unsigned log2 = in->params.chunk_log2;
	uint8_t in_cb[256] = {0};
	for (unsigned k = 0; k < 16; k++)
		in_cb[cb->exponents[k]] = 1;
	uint64_t escapes = 0;
	for (size_t i = 0; i < n; i++)
		escapes += !in_cb[(in->data[i] >> 7) & 0xFF];
	const uint64_t stored = 64 + a16(2 * (uint64_t)n);
	uint64_t s4 = n ? split4_size(n, log2, escapes) : stored;
	uint64_t se = n ? entropy_size(in->data, n, log2, t) : stored;
	s4 = s4 < stored ? s4 : 0;
	se = se < stored ? se : 0;
	*mode = SPLITZIP_MODE_STORED;
	*fsize = stored;
	if (in->params.encoding != SPLITZIP_ENCODING_ENTROPY && s4) {
		*mode = SPLITZIP_MODE_SPLIT4;
		*fsize = s4;
	}
	if (in->params.encoding != SPLITZIP_ENCODING_SPLIT4 && se && se < *fsize) {
		*mode = SPLITZIP_MODE_ENTROPY;
		*fsize = se;
	}
}

/* The input's bytes as elements of each dtype of FORMAT.md 1.3 but BF16: the frame of the
 * encoding asked for (entropy for E4M3's split4), within its bound, into exact room and not
 * less, and back bit for bit. Codebooks and tables from the input. */
static void roundtrip_dtypes(const splitzip_params *base, const uint8_t *bytes, size_t n_bytes)
{
	for (unsigned dt = SPLITZIP_DTYPE_FP8_E4M3; dt <= SPLITZIP_DTYPE_FP32; dt++) {
		splitzip_params p = *base;
		p.codebook_mode = SPLITZIP_CODEBOOK_FROM_INPUT;
		p.table_mode = SPLITZIP_CODEBOOK_FROM_INPUT;
		if (dt == SPLITZIP_DTYPE_FP8_E4M3 && p.encoding == SPLITZIP_ENCODING_SPLIT4)
			p.encoding = SPLITZIP_ENCODING_ENTROPY;
		splitzip_ctx *ctx = NULL;
		FUZZ_CHECK(splitzip_ctx_create(&p, &ctx) == SPLITZIP_OK, "ctx_create");
		const size_t w = splitzip_dtype_width(dt), n = n_bytes / w;
		const size_t bound = splitzip_compress_bound_dtype(dt, n);
		FUZZ_CHECK(bound == 64 + a16((uint64_t)w * n), "dtype %u bound", dt);
		uint8_t *frame = (uint8_t *)malloc(bound), *back = (uint8_t *)malloc(n * w + 1);
		FUZZ_CHECK(frame && back, "out of memory");
		size_t fsize = 0, got = 0, n_back = 0;
		splitzip_status st =
		    splitzip_compress_dtype(ctx, dt, bytes, n, frame, bound, &fsize);
		FUZZ_CHECK(st == SPLITZIP_OK && fsize <= bound && fsize % 16 == 0, "dtype %u: %s",
		           dt, splitzip_status_name(st));
		splitzip_frame_info fi;
		FUZZ_CHECK(splitzip_get_frame_info(frame, fsize, &fi) == SPLITZIP_OK &&
		               fi.dtype == dt && fi.n_elems == n && fi.frame_size == fsize,
		           "dtype %u header", dt);
		FUZZ_CHECK(p.encoding != SPLITZIP_ENCODING_SPLIT4 ||
		               fi.mode != SPLITZIP_MODE_ENTROPY,
		           "dtype %u: an entropy frame for split4", dt);
		FUZZ_CHECK(p.encoding != SPLITZIP_ENCODING_ENTROPY ||
		               fi.mode != SPLITZIP_MODE_SPLIT4,
		           "dtype %u: a split4 frame for entropy", dt);
		uint8_t *exact = (uint8_t *)malloc(fsize);
		FUZZ_CHECK(exact != NULL, "out of memory");
		st = splitzip_compress_dtype(ctx, dt, bytes, n, exact, fsize, &got);
		FUZZ_CHECK(st == SPLITZIP_OK && got == fsize && memcmp(exact, frame, fsize) == 0,
		           "dtype %u exact room: %s", dt, splitzip_status_name(st));
		st = splitzip_compress_dtype(ctx, dt, bytes, n, exact, fsize - 1, &got);
		FUZZ_CHECK(st == SPLITZIP_ERROR_DST_TOO_SMALL, "dtype %u room - 1: %s", dt,
		           splitzip_status_name(st));
		free(exact);
		st = splitzip_decompress_dtype(ctx, frame, fsize, back, n * w, &n_back);
		FUZZ_CHECK(st == SPLITZIP_OK && n_back == n && memcmp(back, bytes, n * w) == 0,
		           "dtype %u round trip: %s", dt, splitzip_status_name(st));
		free(frame);
		free(back);
		splitzip_ctx_free(ctx);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t size)
{
	static const uint8_t empty[1];
	if (!p)
		p = empty;
	fuzz_enc_input in;
	fuzz_enc_parse(p, size, &in);
	const size_t n = in.n;
	const unsigned log2 = in.params.chunk_log2;

	splitzip_ctx *ctx = NULL;
	FUZZ_CHECK(splitzip_ctx_create(&in.params, &ctx) == SPLITZIP_OK, "ctx_create");
	size_t bound = splitzip_compress_bound(n);
	FUZZ_CHECK(bound == SPLITZIP_COMPRESS_BOUND(n) && bound == 64 + a16(2 * (uint64_t)n),
	           "bound %zu for %zu elements", bound, n);
	uint8_t *frame = (uint8_t *)malloc(bound);
	FUZZ_CHECK(frame != NULL, "out of memory");
	size_t fsize = 0;
	splitzip_status st = splitzip_compress(ctx, in.data, n, frame, bound, &fsize);
	FUZZ_CHECK(st == SPLITZIP_OK, "compress: %s", splitzip_status_name(st));
	FUZZ_CHECK(fsize <= bound && fsize >= 64 && fsize % 16 == 0, "frame size %zu, bound %zu",
	           fsize, bound);

	/* The header describes what was asked for. */
	splitzip_frame_info fi;
	FUZZ_CHECK(splitzip_get_frame_info(frame, fsize, &fi) == SPLITZIP_OK, "frame info");
	FUZZ_CHECK(fi.n_elems == n && fi.frame_size == fsize && fi.chunk_log2 == log2 &&
	               fi.flags == in.params.flags,
	           "header fields");
	if (in.params.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) {
		uint64_t sum = 0;
		FUZZ_CHECK(splitzip_content_checksum(in.data, n, log2, &sum) == SPLITZIP_OK, "sum");
		FUZZ_CHECK(fi.content_checksum == sum, "content checksum");
	} else {
		FUZZ_CHECK(fi.content_checksum == 0, "content checksum without the flag");
	}

	/* The canonical mode (§6.3): split4, entropy or stored by the encoding's rule. */
	splitzip_codebook cb = in.params.codebook;
	if (in.params.codebook_mode == SPLITZIP_CODEBOOK_FROM_INPUT)
		FUZZ_CHECK(splitzip_calibrate(in.data, n, &cb) == SPLITZIP_OK, "calibrate");
	splitzip_entropy_table t = in.params.table;
	if (in.params.table_mode == SPLITZIP_CODEBOOK_FROM_INPUT && n)
		FUZZ_CHECK(splitzip_entropy_calibrate(in.data, n, &t) == SPLITZIP_OK, "calibrate");
	splitzip_mode want_mode;
	uint64_t want_size;
	expected_frame(&in, &cb, &t, &want_mode, &want_size);
	FUZZ_CHECK(fi.mode == want_mode && fsize == want_size,
	           "encoding %d: mode %d, %zu bytes; expected mode %d, %llu bytes",
	           (int)in.params.encoding, (int)fi.mode, fsize, (int)want_mode,
	           (unsigned long long)want_size);
	if (fi.mode == SPLITZIP_MODE_SPLIT4)
		FUZZ_CHECK(memcmp(&fi.codebook, &cb, sizeof cb) == 0, "codebook");
	if (fi.mode == SPLITZIP_MODE_ENTROPY) {
		splitzip_entropy_table ft;
		FUZZ_CHECK(splitzip_frame_entropy_table(frame, fsize, &ft) == SPLITZIP_OK, "table");
		FUZZ_CHECK(memcmp(&ft, &t, sizeof t) == 0,
		           "the frame's table is not the one asked for");
		uint64_t escapes = 0;
		for (size_t i = 0; i < n; i++)
			escapes += t.lengths[(in.data[i] >> 7) & 0xFF] == 0;
		FUZZ_CHECK(fi.n_escapes == escapes, "entropy escape count");
	}

	/* Exact room succeeds with the same bytes; one byte less fails. */
	uint8_t *exact = (uint8_t *)malloc(fsize);
	FUZZ_CHECK(exact != NULL, "out of memory");
	size_t got = 0;
	st = splitzip_compress(ctx, in.data, n, exact, fsize, &got);
	FUZZ_CHECK(st == SPLITZIP_OK && got == fsize && memcmp(exact, frame, fsize) == 0,
	           "compress into exact room: %s", splitzip_status_name(st));
	st = splitzip_compress(ctx, in.data, n, exact, fsize - 1, &got);
	FUZZ_CHECK(st == SPLITZIP_ERROR_DST_TOO_SMALL, "compress into room - 1: %s",
	           splitzip_status_name(st));

	/* Decompress into exactly n elements. */
	uint16_t *back = (uint16_t *)malloc(n ? n * 2 : 1);
	FUZZ_CHECK(back != NULL, "out of memory");
	size_t n_back = 0;
	st = splitzip_decompress(ctx, frame, fsize, back, n, &n_back);
	FUZZ_CHECK(st == SPLITZIP_OK, "decompress: %s", splitzip_status_name(st));
	FUZZ_CHECK(n_back == n && (n == 0 || memcmp(back, in.data, n * 2) == 0),
	           "round trip differs");

	roundtrip_dtypes(&in.params, (const uint8_t *)in.data, 2 * n);
	free(back);
	free(exact);
	free(frame);
	free(in.data);
	splitzip_ctx_free(ctx);
	return 0;
}
