/*
 * test_header.c -- header fields at their extremes and crafted frame bodies: each gives the
 * status doc/FORMAT.md documents for it. After a header field is changed the header checksum is
 * recomputed (hu_reseal), so the decoder reaches the field check itself instead of stopping at
 * HEADER_CHECKSUM.
 */
#include "sz_check.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitzip.h"
#include "sz_guard.h"
#include "sz_hard_util.h"
#include "sz_layout.h"
#include "sz_test_data.h"

#define ANY_ERROR ((splitzip_status)-1)

/* Decode 'frame' (flush against a guard page) with every entry point and check the status. */
static void expect_decode(splitzip_ctx *ctx, const uint8_t *frame, size_t size, size_t cap,
                          splitzip_status want, const char *what)
{
	sz_guard_buf fr, out;
	ck_assert_int_eq(sz_guard_dup(&fr, frame, size, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&out, cap * 2, SZ_GUARD_END), 0);
	size_t n_out = 0, used = 0;
	uint64_t vn = 0;
	splitzip_status st =
	    splitzip_decompress(ctx, fr.ptr, size, (uint16_t *)out.ptr, cap, &n_out);
	splitzip_status fst =
	    splitzip_frame_decompress(ctx, fr.ptr, size, &used, (uint16_t *)out.ptr, cap, &n_out);
	splitzip_status vst = splitzip_verify(ctx, fr.ptr, size, &vn);
	if (want == ANY_ERROR) {
		ck_assert_msg(st != SPLITZIP_OK && hu_is_decode_status(st), "%s: got %s", what,
		              splitzip_status_name(st));
	} else {
		hu_assert_status(st, want, "%s: decompress", what);
	}
	hu_assert_status(fst, st, "%s: frame_decompress vs decompress", what);
	if (st != SPLITZIP_ERROR_DST_TOO_SMALL) /* verify has its own output room */
		hu_assert_status(vst, st, "%s: verify vs decompress", what);
	sz_guard_free(&out);
	sz_guard_free(&fr);
}

/* A stream (frames back to back): decompress, verify and decompressed_size give 'want'. */
static void expect_stream(splitzip_ctx *ctx, const uint8_t *src, size_t size, size_t cap,
                          splitzip_status want, const char *what)
{
	sz_guard_buf fr, out;
	ck_assert_int_eq(sz_guard_dup(&fr, src, size, SZ_GUARD_END), 0);
	ck_assert_int_eq(sz_guard_alloc(&out, cap * 2, SZ_GUARD_END), 0);
	size_t n_out = 0;
	uint64_t total = 0;
	hu_assert_status(splitzip_decompress(ctx, fr.ptr, size, (uint16_t *)out.ptr, cap, &n_out),
	                 want, "%s (%zu bytes): decompress", what, size);
	hu_assert_status(splitzip_verify(ctx, fr.ptr, size, &total), want, "%s (%zu bytes): verify",
	                 what, size);
	hu_assert_status(splitzip_decompressed_size(fr.ptr, size, &total), want,
	                 "%s (%zu bytes): decompressed size", what, size);
	sz_guard_free(&out);
	sz_guard_free(&fr);
}

/* The header-only calls: frame info and decompressed size. */
static void expect_info(const uint8_t *frame, size_t size, splitzip_status want, const char *what)
{
	splitzip_frame_info info;
	uint64_t total = 0;
	hu_assert_status(splitzip_get_frame_info(frame, size, &info), want, "%s: frame info", what);
	if (want != SPLITZIP_OK)
		hu_assert_status(splitzip_decompressed_size(frame, size, &total), want,
		                 "%s: decompressed size", what);
}

/* A reference split4 frame with escapes and a checksum, and a stored one. */
typedef struct base_frame {
	uint16_t *data;
	size_t n;
	uint8_t *frame;
	size_t size;
} base_frame;

static base_frame make_base(splitzip_ctx *ctx, int gen, size_t n)
{
	base_frame b;
	b.n = n;
	b.data = hu_gen(gen, 99, n);
	b.frame = hu_compress(ctx, b.data, n, &b.size);
	return b;
}

static void free_base(base_frame *b)
{
	free(b->data);
	free(b->frame);
}

/* One header tampering: set 'n_bytes' bytes at 'off' to 'v', reseal, expect 'want'. */
typedef struct tamper {
	const char *what;
	unsigned off;
	unsigned n_bytes;
	uint64_t v;
	splitzip_status want;
} tamper;

#define COR SPLITZIP_ERROR_CORRUPT_STREAM
#define UNS SPLITZIP_ERROR_UNSUPPORTED_FORMAT

static const tamper split4_tampers[] = {
    {"version 0", SZ_H_VERSION, 1, 0, COR},
    {"version 2", SZ_H_VERSION, 1, 2, UNS},
    {"version 255", SZ_H_VERSION, 1, 255, UNS},
    {"dtype 0", SZ_H_DTYPE, 1, 0, UNS},
    {"dtype 2", SZ_H_DTYPE, 1, 2, UNS},
    {"dtype 255", SZ_H_DTYPE, 1, 255, UNS},
    {"split4 relabelled entropy", SZ_H_MODE, 1, 2, COR}, /* codebook bytes as mode-2 fields */
    {"mode 3", SZ_H_MODE, 1, 3, UNS},
    {"mode 255", SZ_H_MODE, 1, 255, UNS},
    {"split4 relabelled stored", SZ_H_MODE, 1, 0, COR},
    {"chunk_log2 0", SZ_H_CHUNK_LOG2, 1, 0, COR},
    {"chunk_log2 9", SZ_H_CHUNK_LOG2, 1, 9, COR},
    {"chunk_log2 17", SZ_H_CHUNK_LOG2, 1, 17, COR},
    {"chunk_log2 255", SZ_H_CHUNK_LOG2, 1, 255, COR},
    {"chunk_log2 11 (valid, other layout)", SZ_H_CHUNK_LOG2, 1, 11, ANY_ERROR},
    {"flag bit 1", SZ_H_FLAGS, 1, 0x03, COR},
    {"flag bit 7", SZ_H_FLAGS, 1, 0x81, COR},
    {"all flags", SZ_H_FLAGS, 1, 0xFF, COR},
    {"checksum flag cleared, checksum kept", SZ_H_FLAGS, 1, 0, COR},
    {"reserved byte 9", SZ_H_RESERVED0, 1, 1, COR},
    {"reserved byte 10", SZ_H_RESERVED0 + 1, 1, 0x80, COR},
    {"reserved byte 11", SZ_H_RESERVED0 + 2, 1, 0xFF, COR},
    {"reserved byte 56", SZ_H_RESERVED1, 1, 1, COR},
    {"reserved byte 59", SZ_H_RESERVED1 + 3, 1, 0x80, COR},
    {"element count 2^32", SZ_H_ELEMENT_COUNT, 8, (uint64_t)1 << 32, COR},
    {"element count 2^63", SZ_H_ELEMENT_COUNT, 8, (uint64_t)1 << 63, COR},
    {"element count 2^64-1", SZ_H_ELEMENT_COUNT, 8, UINT64_MAX, COR},
    {"element count 2^32-1, old frame size", SZ_H_ELEMENT_COUNT, 8, 0xFFFFFFFFu, COR},
    {"element count 0", SZ_H_ELEMENT_COUNT, 8, 0, COR},
    {"escape count 2^32-1", SZ_H_ESCAPE_COUNT, 4, 0xFFFFFFFFu, COR},
    {"frame size 2^64-1", SZ_H_FRAME_SIZE, 8, UINT64_MAX, COR},
    {"frame size 0", SZ_H_FRAME_SIZE, 8, 0, COR},
    {"codebook not ascending", SZ_H_CODEBOOK + 1, 1, 0, COR},
    {"content checksum changed", SZ_H_CONTENT_CHECKSUM, 8, 0x0123456789ABCDEFull,
     SPLITZIP_ERROR_CONTENT_CHECKSUM},
};

static const tamper stored_tampers[] = {
    {"stored with an escape", SZ_H_ESCAPE_COUNT, 4, 1, COR},
    {"stored with a codebook byte", SZ_H_CODEBOOK + 7, 1, 1, COR},
    {"stored relabelled split4", SZ_H_MODE, 1, 1, COR},
    {"stored element count +9, frame size kept", SZ_H_ELEMENT_COUNT, 8, 109, COR},
    {"stored frame size +16", SZ_H_FRAME_SIZE, 8, 64 + 208 + 16, COR},
    {"stored checksum flag cleared", SZ_H_FLAGS, 1, 0, COR},
    {"stored content checksum changed", SZ_H_CONTENT_CHECKSUM, 8, 1,
     SPLITZIP_ERROR_CONTENT_CHECKSUM},
};

static void run_tampers(splitzip_ctx *ctx, const base_frame *b, const tamper *t, size_t n_t)
{
	uint8_t *f = (uint8_t *)malloc(b->size);
	ck_assert_ptr_nonnull(f);
	for (size_t k = 0; k < n_t; k++) {
		memcpy(f, b->frame, b->size);
		hu_put(f + t[k].off, t[k].v, t[k].n_bytes);
		hu_reseal(f);
		expect_decode(ctx, f, b->size, b->n, t[k].want, t[k].what);
		if (t[k].want != ANY_ERROR && t[k].want != SPLITZIP_ERROR_CONTENT_CHECKSUM)
			expect_info(f, b->size, t[k].want, t[k].what);
	}
	free(f);
}

static int usable(int i)
{
	return hu_host_backend(i, "header");
}

START_TEST(header_fields)
{
	if (!usable(_i))
		return;
	splitzip_ctx *ctx =
	    hu_ctx(splitzip_backend_id_of((size_t)_i), 10, SPLITZIP_FLAG_CONTENT_CHECKSUM, 1);
	base_frame s4 = make_base(ctx, SZ_GEN_ESCAPE_1PCT, 3000);
	base_frame st = make_base(ctx, SZ_GEN_ALL_ESCAPE, 100);
	splitzip_frame_info info;
	hu_assert_status(splitzip_get_frame_info(s4.frame, s4.size, &info), SPLITZIP_OK, "s4");
	ck_assert_uint_eq(info.mode, SPLITZIP_MODE_SPLIT4);
	ck_assert_uint_gt(info.n_escapes, 0);
	const uint64_t s4_escapes = info.n_escapes;
	hu_assert_status(splitzip_get_frame_info(st.frame, st.size, &info), SPLITZIP_OK, "stored");
	ck_assert_uint_eq(info.mode, SPLITZIP_MODE_STORED);
	ck_assert_uint_eq(st.size, 64 + 208);

	expect_decode(ctx, s4.frame, s4.size, s4.n, SPLITZIP_OK, "split4 base");
	expect_decode(ctx, st.frame, st.size, st.n, SPLITZIP_OK, "stored base");
	run_tampers(ctx, &s4, split4_tampers, sizeof split4_tampers / sizeof split4_tampers[0]);
	run_tampers(ctx, &st, stored_tampers, sizeof stored_tampers / sizeof stored_tampers[0]);

	uint8_t *f = (uint8_t *)malloc(s4.size + 64);
	ck_assert_ptr_nonnull(f);

	/* Magic and header checksum: checked before anything else, no resealing. */
	memcpy(f, s4.frame, s4.size);
	f[3] ^= 0x40;
	expect_decode(ctx, f, s4.size, s4.n, SPLITZIP_ERROR_BAD_MAGIC, "magic");
	expect_info(f, s4.size, SPLITZIP_ERROR_BAD_MAGIC, "magic");
	memcpy(f, s4.frame, s4.size);
	f[SZ_H_HEADER_CHECKSUM + 2] ^= 0x01;
	expect_decode(ctx, f, s4.size, s4.n, SPLITZIP_ERROR_HEADER_CHECKSUM, "header checksum");
	expect_info(f, s4.size, SPLITZIP_ERROR_HEADER_CHECKSUM, "header checksum");
	memcpy(f, s4.frame, s4.size);
	f[SZ_H_DTYPE] = 2; /* a field changed, checksum not recomputed */
	expect_decode(ctx, f, s4.size, s4.n, SPLITZIP_ERROR_HEADER_CHECKSUM, "unsealed");
	/* FORMAT.md §3.2: the version is checked before the header checksum, so a later version
	 * is UNSUPPORTED whatever the rest of its header looks like. */
	memcpy(f, s4.frame, s4.size);
	f[SZ_H_VERSION] = 2;
	memset(f + 8, 0xEE, SPLITZIP_FRAME_HEADER_SIZE - 8);
	expect_decode(ctx, f, s4.size, s4.n, UNS, "version 2, unsealed");
	expect_info(f, s4.size, UNS, "version 2, unsealed");
	f[SZ_H_VERSION] = 0;
	expect_decode(ctx, f, s4.size, s4.n, COR, "version 0, unsealed");

	/* The largest element count, with the frame size that goes with it: a valid header of
	 * an ~6 GiB frame. Only the header is read; nothing is allocated for the body. */
	memcpy(f, s4.frame, s4.size);
	hu_put(f + SZ_H_ELEMENT_COUNT, 0xFFFFFFFFu, 8);
	hu_put(f + SZ_H_FRAME_SIZE, splitzip_split4_frame_size(0xFFFFFFFFu, 10, s4_escapes), 8);
	hu_reseal(f);
	expect_info(f, s4.size, SPLITZIP_OK, "2^32-1 elements");
	expect_decode(ctx, f, s4.size, s4.n, SPLITZIP_ERROR_TRUNCATED, "2^32-1 elements");
	uint64_t total = 0;
	hu_assert_status(splitzip_decompressed_size(f, s4.size, &total), SPLITZIP_ERROR_TRUNCATED,
	                 "2^32-1 elements: decompressed size");
	/* The same for a stored frame (8 GiB). */
	memcpy(f, st.frame, st.size);
	hu_put(f + SZ_H_ELEMENT_COUNT, 0xFFFFFFFFu, 8);
	hu_put(f + SZ_H_FRAME_SIZE, splitzip_stored_frame_size(0xFFFFFFFFu), 8);
	hu_reseal(f);
	expect_info(f, st.size, SPLITZIP_OK, "stored 2^32-1 elements");
	expect_decode(ctx, f, st.size, st.n, SPLITZIP_ERROR_TRUNCATED, "stored 2^32-1 elements");

	/* Output room: one element short. */
	expect_decode(ctx, s4.frame, s4.size, s4.n - 1, SPLITZIP_ERROR_DST_TOO_SMALL, "dst n-1");

	free(f);
	free_base(&s4);
	free_base(&st);
	splitzip_ctx_free(ctx);
}
END_TEST

/*
 * A hand-built split4 frame: n elements, chunks of 1 << log2, E escapes, codebook 112..127, no
 * checksum; every code 0 and every byte of the body 0 until the caller fills it in.
 */
typedef struct crafted {
	uint8_t *f;
	splitzip_layout L;
} crafted;

static crafted craft(uint64_t n, unsigned log2, uint64_t E)
{
	crafted c;
	splitzip_split4_layout(n, log2, E, &c.L);
	c.f = (uint8_t *)calloc(1, (size_t)c.L.frame_size);
	ck_assert_ptr_nonnull(c.f);
	splitzip_header h;
	memset(&h, 0, sizeof h);
	h.version = 1;
	h.dtype = 1;
	h.mode = 1;
	h.chunk_log2 = log2;
	h.n_escapes = (uint32_t)E;
	h.n_elems = n;
	for (unsigned k = 0; k < 16; k++)
		h.codebook[k] = (uint8_t)(112 + k);
	h.frame_size = c.L.frame_size;
	splitzip_header_write(c.f, &h);
	return c;
}

/* Chunk table entry c (cumulative escapes at the end of chunk c). */
static void table_set(crafted *c, uint64_t chunk, uint32_t v)
{
	hu_put(c->f + c->L.table_off + 4 * chunk, v, 4);
}

/* Escape k: chunk-local position and exponent. */
static void escape_set(crafted *c, uint64_t k, uint16_t pos, uint8_t exponent)
{
	hu_put(c->f + c->L.epos_off + 2 * k, pos, 2);
	c->f[c->L.eexp_off + k] = exponent;
}

/* Fill the chunk table for 'per_chunk[c]' escapes in chunk c. */
static void table_fill(crafted *c, const uint32_t *per_chunk)
{
	uint32_t run = 0;
	for (uint64_t k = 0; k < c->L.n_chunks; k++) {
		run += per_chunk[k];
		table_set(c, k, run);
	}
}

START_TEST(crafted_bodies)
{
	if (!usable(_i))
		return;
	splitzip_ctx *ctx = hu_ctx(splitzip_backend_id_of((size_t)_i), 10, 0, 1);
	/* 7 chunks of 1024, the last one 856 elements: every section is followed by a gap of
	 * zero padding, so each gap can be tested. */
	const uint64_t n = 7000;
	uint32_t per[7] = {2, 0, 0, 0, 0, 0, 1};

	/* A valid frame first: escapes at 5 and 6 in chunk 0, 855 (the last element) in 6. */
	crafted c = craft(n, 10, 3);
	table_fill(&c, per);
	escape_set(&c, 0, 5, 200);
	escape_set(&c, 1, 6, 0);
	escape_set(&c, 2, 855, 255);
	c.f[c.L.sm_off + 6 * 1024 + 855] = 0x85;
	expect_decode(ctx, c.f, c.L.frame_size, n, SPLITZIP_OK, "crafted valid");
	{
		uint16_t *out = (uint16_t *)malloc(n * 2);
		ck_assert_ptr_nonnull(out);
		size_t got = 0;
		hu_assert_status(splitzip_decompress(ctx, c.f, c.L.frame_size, out, n, &got),
		                 SPLITZIP_OK, "crafted valid");
		ck_assert_uint_eq(out[5], splitzip_bf16_join(200, 0));
		ck_assert_uint_eq(out[6], 0);
		ck_assert_uint_eq(out[6 * 1024 + 855], splitzip_bf16_join(255, 0x85));
		ck_assert_uint_eq(out[7], splitzip_bf16_join(112, 0));
		/* Canonical: encoding the decoded data with the same codebook gives the frame. */
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = splitzip_backend_id_of((size_t)_i);
		p.chunk_log2 = 10;
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (unsigned k = 0; k < 16; k++)
			p.codebook.exponents[k] = (uint8_t)(112 + k);
		splitzip_ctx *enc = NULL;
		hu_assert_status(splitzip_ctx_create(&p, &enc), SPLITZIP_OK, "fixed ctx");
		uint8_t *again = hu_compress(enc, out, n, &got);
		ck_assert_uint_eq(got, c.L.frame_size);
		ck_assert(memcmp(again, c.f, got) == 0);
		free(again);
		splitzip_ctx_free(enc);
		free(out);
	}
	uint8_t *good = (uint8_t *)malloc(c.L.frame_size);
	ck_assert_ptr_nonnull(good);
	memcpy(good, c.f, c.L.frame_size);
#define RESET() memcpy(c.f, good, c.L.frame_size)
#define EXPECT(want, what) expect_decode(ctx, c.f, c.L.frame_size, n, want, what)

	RESET();
	escape_set(&c, 1, 5, 0);
	EXPECT(COR, "duplicate escape position");
	RESET();
	escape_set(&c, 0, 7, 200);
	EXPECT(COR, "escape positions descending");
	RESET();
	escape_set(&c, 1, 1024, 0);
	EXPECT(COR, "escape position = chunk size");
	RESET();
	escape_set(&c, 1, 65535, 0);
	EXPECT(COR, "escape position 65535");
	RESET();
	escape_set(&c, 2, 856, 255);
	EXPECT(COR, "escape position past the partial last chunk");
	RESET();
	escape_set(&c, 0, 5, 115);
	EXPECT(COR, "escape exponent inside the codebook");
	RESET();
	c.f[c.L.codes_off + 2] = 0x01; /* element 4 code 1, element 5 (an escape) code 0 */
	EXPECT(SPLITZIP_OK, "nonzero code next to an escape");
	RESET();
	c.f[c.L.codes_off + 2] = 0x10; /* element 5 (an escape) code 1 */
	EXPECT(COR, "nonzero code under an escape");
	RESET();
	table_set(&c, 0, 3);
	table_set(&c, 1, 2);
	EXPECT(COR, "chunk table decreasing");
	RESET();
	table_set(&c, 6, 2);
	EXPECT(COR, "chunk table end below the escape count");
	RESET();
	table_set(&c, 6, 0xFFFFFFFFu);
	EXPECT(COR, "chunk table end 2^32-1");

	/* Zero padding: each gap of the layout, and the high nibble after an odd count. */
	struct {
		uint64_t from, to; /* the gap [from, to) */
		const char *what;
	} pads[] = {
	    {c.L.codes_off + (n + 1) / 2, c.L.sm_off, "code padding"},
	    {c.L.sm_off + n, c.L.table_off, "sign/mantissa padding"},
	    {c.L.table_off + 4 * c.L.n_chunks, c.L.epos_off, "chunk table padding"},
	    {c.L.epos_off + 2 * 3, c.L.eexp_off, "escape position padding"},
	    {c.L.eexp_off + 3, c.L.frame_size, "escape exponent padding"},
	};
	for (size_t k = 0; k < sizeof pads / sizeof pads[0]; k++) {
		ck_assert_msg(pads[k].from < pads[k].to, "%s: no gap in this layout", pads[k].what);
		for (uint64_t at = pads[k].from; at < pads[k].to; at++) {
			RESET();
			c.f[at] = 0x80;
			EXPECT(COR, pads[k].what);
		}
	}
	free(good);
	free(c.f);

	/* More escapes in one chunk than it has elements (split4 still smaller than stored). */
	{
		uint32_t many[8] = {1100, 0, 0, 0, 0, 0, 0, 0};
		c = craft(8192, 10, 1100);
		ck_assert(splitzip_split4_wins(8192, 10, 1100));
		table_fill(&c, many);
		for (uint32_t k = 0; k < 1100; k++)
			escape_set(&c, k, (uint16_t)k, 200);
		expect_decode(ctx, c.f, c.L.frame_size, 8192, COR, "1100 escapes in a 1024 chunk");
		free(c.f);
	}
	/* An odd element count with a nonzero high nibble in the last code byte. */
	{
		uint32_t none[2] = {0, 0};
		c = craft(1025, 10, 0);
		table_fill(&c, none);
		expect_decode(ctx, c.f, c.L.frame_size, 1025, SPLITZIP_OK, "odd count valid");
		c.f[c.L.codes_off + 512] = 0x10;
		expect_decode(ctx, c.f, c.L.frame_size, 1025, COR, "odd count, high nibble");
		free(c.f);
	}
	/* split4 frames that are not smaller than the stored frame: not canonical. */
	{
		static const uint64_t small[] = {0, 1, 2, 16};
		for (size_t k = 0; k < sizeof small / sizeof small[0]; k++) {
			ck_assert(!splitzip_split4_wins(small[k], 10, 0));
			c = craft(small[k], 10, 0);
			expect_decode(ctx, c.f, c.L.frame_size, small[k] + 1, COR,
			              "split4 not smaller than stored");
			expect_info(c.f, c.L.frame_size, COR, "split4 not smaller than stored");
			free(c.f);
		}
		/* The escape count at which split4 stops winning, +1. */
		int64_t max_e = splitzip_split4_max_escapes(4096, 10);
		ck_assert_int_ge(max_e, 0);
		c = craft(4096, 10, (uint64_t)max_e + 1);
		expect_info(c.f, c.L.frame_size, COR, "escape count past the split4 limit");
		free(c.f);
	}
	splitzip_ctx_free(ctx);
#undef RESET
#undef EXPECT
}
END_TEST

START_TEST(stream_trailing_bytes)
{
	if (!usable(_i))
		return;
	splitzip_ctx *ctx = hu_ctx(splitzip_backend_id_of((size_t)_i), 10, 0, 1);
	base_frame b = make_base(ctx, SZ_GEN_KV_SKEWED, 500);
	uint8_t *f = (uint8_t *)calloc(1, b.size + 128);
	ck_assert_ptr_nonnull(f);
	memcpy(f, b.frame, b.size);

	/* A partial second frame (a prefix of a valid frame): TRUNCATED, at every length. */
	for (size_t k = 1; k < b.size && k < 100; k++) {
		memcpy(f + b.size, b.frame, k);
		expect_stream(ctx, f, b.size + k, 2 * b.n, SPLITZIP_ERROR_TRUNCATED,
		              "a prefix of a frame after a frame");
	}
	/* Bytes after the last frame that cannot start a frame: CORRUPT_STREAM (splitzip.h). */
	static const size_t lens[] = {1, 3, 4, 63, 64, 100};
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		memset(f + b.size, 0, 128);
		expect_stream(ctx, f, b.size + lens[k], 2 * b.n, COR, "zero bytes after a frame");
		memset(f + b.size, 0xAB, 128);
		expect_stream(ctx, f, b.size + lens[k], 2 * b.n, COR, "junk after a frame");
	}
	/* And a lone short non-frame is not a splitzip frame at all. */
	static const uint8_t junk[3] = {0x12, 0x34, 0x56};
	size_t n_out = 0;
	uint16_t out[4];
	hu_assert_status(splitzip_decompress(ctx, junk, 3, out, 4, &n_out),
	                 SPLITZIP_ERROR_BAD_MAGIC, "3 junk bytes");
	hu_assert_status(splitzip_decompress(ctx, b.frame, 2, out, 4, &n_out),
	                 SPLITZIP_ERROR_TRUNCATED, "2 bytes of a frame");
	hu_assert_status(splitzip_decompress(ctx, junk, 0, out, 4, &n_out),
	                 SPLITZIP_ERROR_TRUNCATED, "empty input");
	free(f);
	free_base(&b);
	splitzip_ctx_free(ctx);
}
END_TEST

START_TEST(api_limits)
{
	/* Limits and arguments a caller may get wrong; none of them reads the data. */
	static const uint16_t one[1] = {0x3F80};
	uint8_t buf[256];
	size_t got = 0;
	uint64_t sum = 0;
	splitzip_ctx *ctx = hu_ctx(SPLITZIP_BACKEND_SCALAR, 10, 0, 1);
	const size_t too_many = (size_t)SPLITZIP_MAX_FRAME_ELEMS + 1;

	ck_assert_uint_eq(splitzip_compress_bound(too_many), 0);
	ck_assert_uint_eq(splitzip_compress_bound((size_t)SPLITZIP_MAX_FRAME_ELEMS),
	                  SPLITZIP_COMPRESS_BOUND((size_t)SPLITZIP_MAX_FRAME_ELEMS));
	hu_assert_status(splitzip_compress(ctx, one, too_many, buf, sizeof buf, &got),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "compress 2^32 elements");
	hu_assert_status(splitzip_content_checksum(one, too_many, 10, &sum),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "checksum of 2^32 elements");
	hu_assert_status(splitzip_compress(ctx, NULL, 1, buf, sizeof buf, &got),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "compress NULL data");
	hu_assert_status(splitzip_compress(ctx, one, 1, NULL, sizeof buf, &got),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "compress NULL dst");
	hu_assert_status(splitzip_compress(ctx, one, 1, buf, 0, &got), SPLITZIP_ERROR_DST_TOO_SMALL,
	                 "compress into 0 bytes");
	hu_assert_status(splitzip_compress(ctx, one, 1, buf, sizeof buf, &got), SPLITZIP_OK,
	                 "compress one element");

	/* Decoding entry points with NULL arguments. */
	uint16_t out[4];
	size_t n = 0, used = 0;
	splitzip_frame_info info;
	hu_assert_status(splitzip_decompress(NULL, buf, got, out, 4, &n),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "decompress NULL ctx");
	hu_assert_status(splitzip_decompress(ctx, NULL, got, out, 4, &n),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "decompress NULL src");
	hu_assert_status(splitzip_decompress(ctx, buf, got, NULL, 4, &n),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "decompress NULL dst");
	hu_assert_status(splitzip_frame_decompress(ctx, buf, got, NULL, out, 4, &n),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "frame_decompress NULL consumed");
	hu_assert_status(splitzip_verify(ctx, NULL, got, NULL), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "verify NULL src");
	hu_assert_status(splitzip_get_frame_info(buf, got, NULL), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "frame info NULL info");
	hu_assert_status(splitzip_decompressed_size(NULL, got, &sum),
	                 SPLITZIP_ERROR_INVALID_ARGUMENT, "decompressed size NULL src");
	hu_assert_status(splitzip_frame_decompress(ctx, buf, got, &used, out, 4, &n), SPLITZIP_OK,
	                 "frame_decompress");
	ck_assert_uint_eq(used, got);
	hu_assert_status(splitzip_get_frame_info(buf, got, &info), SPLITZIP_OK, "frame info");
	splitzip_ctx_free(ctx);

	/* Parameters out of range are refused when the context is created. */
	splitzip_params p;
	splitzip_ctx *bad = NULL;
	static const unsigned log2s[] = {1, 9, 17, 255};
	for (size_t k = 0; k < sizeof log2s / sizeof log2s[0]; k++) {
		splitzip_params_init(&p);
		p.chunk_log2 = log2s[k];
		hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
		                 "chunk_log2 %u", log2s[k]);
		ck_assert_ptr_null(bad);
	}
	splitzip_params_init(&p);
	p.flags = 0x2;
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT, "flags");
	splitzip_params_init(&p);
	p.codebook_mode = SPLITZIP_CODEBOOK_FIXED; /* all-zero codebook: not ascending */
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "invalid fixed codebook");
	splitzip_params_init(&p);
	p.codebook_mode = (splitzip_codebook_mode)7;
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "codebook mode");
	splitzip_params_init(&p);
	p.backend = (splitzip_backend_id)99;
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "backend id");
	/* struct_size: at least the size of library 0.1.0's struct, which ended at n_threads; the
	 * fields appended since keep their defaults for such a caller. */
	const size_t v01 = offsetof(splitzip_params, n_threads) + sizeof(unsigned);
	splitzip_params_init(&p);
	p.struct_size = v01 - 1;
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "struct_size");
	splitzip_params_init(&p);
	p.struct_size = v01;
	p.encoding = (splitzip_encoding)99; /* beyond the caller's struct: not read */
	splitzip_ctx *ok = NULL;
	hu_assert_status(splitzip_ctx_create(&p, &ok), SPLITZIP_OK, "struct_size of 0.1.0");
	splitzip_params q;
	ck_assert_int_eq(splitzip_ctx_params(ok, &q), SPLITZIP_OK);
	ck_assert_int_eq(q.encoding, SPLITZIP_ENCODING_SPLIT4);
	ck_assert_uint_eq(q.chunk_log2, SPLITZIP_CHUNK_LOG2_DEFAULT);
	splitzip_ctx_free(ok);
	splitzip_params_init(&p);
	p.encoding = (splitzip_encoding)3;
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "encoding");
	splitzip_params_init(&p);
	p.table_mode = SPLITZIP_CODEBOOK_FIXED; /* all-zero table: incomplete code */
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "invalid fixed entropy table");
	splitzip_params_init(&p);
	p.table_mode = (splitzip_codebook_mode)7;
	hu_assert_status(splitzip_ctx_create(&p, &bad), SPLITZIP_ERROR_INVALID_ARGUMENT,
	                 "table mode");
}
END_TEST

Suite *sz_suite_header(void);
Suite *sz_suite_header(void)
{
	Suite *s = suite_create("header");
	TCase *tc = tcase_create("header");
	int nb = (int)splitzip_backend_count();
	tcase_set_timeout(tc, 0);
	tcase_add_loop_test(tc, header_fields, 0, nb);
	tcase_add_loop_test(tc, crafted_bodies, 0, nb);
	tcase_add_loop_test(tc, stream_trailing_bytes, 0, nb);
	tcase_add_test(tc, api_limits);
	suite_add_tcase(s, tc);
	return s;
}
