/*
 * gen_vectors.c -- writes the golden vectors of tests/vectors (doc/FORMAT.md, Appendix A).
 *
 *   gen_vectors OUTDIR KV_SAMPLE
 *
 * writes
 *   OUTDIR/valid/NNNN_name.sz             a canonical frame, or a stream of frames
 *   OUTDIR/valid/NNNN_name.bf16           its decoded content (raw little-endian BF16)
 *   OUTDIR/invalid/NNNN_name.STATUS.sz    a damaged or non-canonical frame; STATUS is the
 *                                         splitzip_status_name() a decoder must return
 * KV_SAMPLE is data/kv/aidreams260k__shakespeare.K.bf16 (real KV cache values).
 *
 * Every valid frame is produced twice: by the library (the scalar oracle, one thread) and by
 * the straightforward writer below, which follows FORMAT.md §4-§7 element by element and takes
 * nothing from the library but the layout helpers of core/sz_layout.h and the hash primitives
 * of core/sz_hash.h. The generator fails if the two disagree in a single byte.
 *
 * Valid frames whose name contains "fixed" were encoded with a fixed codebook; every other
 * split4 frame was encoded with the codebook computed from its input (§6.2). The vectors
 * test (tests/vectors/test_vectors.c) relies on this convention when it re-encodes.
 *
 * Invalid frames are a valid frame with one field changed, so that each breaks one rule;
 * where the rule is checked after the header checksum, the header checksum is recomputed.
 * The output is deterministic: no clock, no address, no randomness without a fixed seed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "gen_vectors.h"

/* ---- Small utilities ----------------------------------------------------------------------- */

static const char *out_dir;
static unsigned n_valid, n_invalid;

void die(const char *what, const char *detail)
{
	fprintf(stderr, "gen_vectors: %s: %s\n", what, detail);
	exit(1);
}

void *xcalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);
	if (!p)
		die("out of memory", "calloc");
	return p;
}

buf buf_new(size_t n)
{
	buf b = {(uint8_t *)xcalloc(n), n};
	return b;
}

buf buf_copy(buf a)
{
	buf b = buf_new(a.n);
	memcpy(b.p, a.p, a.n);
	return b;
}

/* The first n bytes of a. */
buf buf_prefix(buf a, size_t n)
{
	buf b = buf_new(n);
	memcpy(b.p, a.p, n);
	return b;
}

/* a followed by the n bytes at tail. */
buf buf_cat(buf a, const void *tail, size_t n)
{
	buf b = buf_new(a.n + n);
	memcpy(b.p, a.p, a.n);
	memcpy(b.p + a.n, tail, n);
	return b;
}

uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

uint16_t bf16(unsigned sign, unsigned exponent, unsigned mantissa)
{
	return (uint16_t)(((sign & 1u) << 15) | ((exponent & 0xFFu) << 7) | (mantissa & 0x7Fu));
}

void write_file(const char *sub, const char *name, const void *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", out_dir, sub, name);
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		die("cannot write", path);
}

void make_dir(const char *sub)
{
	char path[4096];
	snprintf(path, sizeof path, "%s%s%s", out_dir, sub ? "/" : "", sub ? sub : "");
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die("cannot create directory", path);
}

/* Elements as little-endian bytes (the BF16 file format, independent of the host). */
buf le_bytes(const uint16_t *x, size_t n)
{
	buf b = buf_new(2 * n);
	for (size_t i = 0; i < n; i++)
		splitzip_put_u8s(b.p + 2 * i, x[i], 2);
	return b;
}

/* ---- The straightforward writer (FORMAT.md §4-§7) -------------------------------------- */

/* §7: chunk digests of the little-endian element bytes, folded with the chunk index. */
uint64_t ref_checksum(const uint16_t *x, uint64_t n, unsigned log2)
{
	uint64_t sum = 0, n_chunks = splitzip_n_chunks(n, log2);
	for (uint64_t c = 0; c < n_chunks; c++) {
		uint64_t len = splitzip_chunk_len(n, log2, c);
		buf b = le_bytes(x + (c << log2), (size_t)len);
		sum += splitzip_hash_chunk_fold(splitzip_hash_bytes_small(b.p, b.n), c);
		free(b.p);
	}
	return splitzip_hash_frame_final(n, sum);
}

static const uint64_t *sort_hist;

/* Count descending, then exponent ascending (§5.1). */
static int cmp_rank(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	if (sort_hist[x] != sort_hist[y])
		return sort_hist[x] > sort_hist[y] ? -1 : 1;
	return x < y ? -1 : 1;
}

/* §5.1: the 16 exponents ranked first by (count desc, exponent asc), in ascending order. */
void ref_codebook(const uint16_t *x, uint64_t n, uint8_t cb[16])
{
	uint64_t hist[256] = {0};
	unsigned rank[256];
	for (uint64_t i = 0; i < n; i++)
		hist[splitzip_bf16_exponent(x[i])]++;
	for (unsigned e = 0; e < 256; e++)
		rank[e] = e;
	sort_hist = hist;
	qsort(rank, 256, sizeof rank[0], cmp_rank);
	uint8_t taken[256] = {0};
	for (unsigned k = 0; k < 16; k++)
		taken[rank[k]] = 1;
	for (unsigned e = 0, k = 0; e < 256; e++)
		if (taken[e])
			cb[k++] = (uint8_t)e;
}

static uint64_t ref_escape_count(const uint16_t *x, uint64_t n, const uint8_t cb[16])
{
	uint8_t in_cb[256] = {0};
	uint64_t E = 0;
	for (unsigned k = 0; k < 16; k++)
		in_cb[cb[k]] = 1;
	for (uint64_t i = 0; i < n; i++)
		E += !in_cb[splitzip_bf16_exponent(x[i])];
	return E;
}

static void ref_header(uint8_t *h, unsigned mode, unsigned log2, unsigned flags, uint64_t E,
                       uint64_t n, const uint8_t *cb, uint64_t frame_size, uint64_t checksum)
{
	splitzip_header f;
	memset(&f, 0, sizeof f);
	f.version = SPLITZIP_FORMAT_VERSION;
	f.dtype = SPLITZIP_DTYPE_BF16;
	f.mode = mode;
	f.chunk_log2 = log2;
	f.flags = flags;
	f.n_escapes = (uint32_t)E;
	f.n_elems = n;
	if (cb)
		memcpy(f.codebook, cb, 16);
	f.frame_size = frame_size;
	f.content_checksum = (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) ? checksum : 0;
	splitzip_header_write(h, &f);
}

/* §4.1: a stored frame. */
buf ref_stored(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags)
{
	buf b = buf_new((size_t)splitzip_stored_frame_size(n));
	for (uint64_t i = 0; i < n; i++)
		splitzip_put_u8s(b.p + SPLITZIP_FRAME_HEADER_SIZE + 2 * i, x[i], 2);
	ref_header(b.p, SPLITZIP_MODE_STORED, log2, flags, 0, n, NULL, b.n,
	           ref_checksum(x, n, log2));
	return b;
}

/* §4.2: a split4 frame with codebook cb, whether or not it is smaller than stored. */
static buf ref_split4(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags,
                      const uint8_t cb[16])
{
	uint8_t code_of[256] = {0}, in_cb[256] = {0};
	for (unsigned k = 0; k < 16; k++) {
		code_of[cb[k]] = (uint8_t)k;
		in_cb[cb[k]] = 1;
	}
	uint64_t E = ref_escape_count(x, n, cb);
	splitzip_layout L;
	splitzip_split4_layout(n, log2, E, &L);
	buf b = buf_new((size_t)L.frame_size); /* zero: every gap and padding nibble */
	uint64_t k = 0;
	for (uint64_t c = 0; c < L.n_chunks; c++) {
		uint64_t len = splitzip_chunk_len(n, log2, c);
		for (uint64_t p = 0; p < len; p++) {
			uint64_t i = (c << log2) + p;
			uint8_t e = splitzip_bf16_exponent(x[i]);
			b.p[L.codes_off + i / 2] |= (uint8_t)(code_of[e] << (4 * (i % 2)));
			b.p[L.sm_off + i] = splitzip_bf16_signman(x[i]);
			if (!in_cb[e]) { /* escape: code 0 above, position and exponent here */
				splitzip_put_u8s(b.p + L.epos_off + 2 * k, p, 2);
				b.p[L.eexp_off + k] = e;
				k++;
			}
		}
		splitzip_put_u8s(b.p + L.table_off + 4 * c, k, 4);
	}
	ref_header(b.p, SPLITZIP_MODE_SPLIT4, log2, flags, E, n, cb, L.frame_size,
	           ref_checksum(x, n, log2));
	return b;
}

/* §6: the canonical frame; cb NULL means the codebook from the input (§6.2). */
buf ref_frame(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags, const uint8_t *fixed_cb)
{
	uint8_t cb[16];
	if (fixed_cb)
		memcpy(cb, fixed_cb, 16);
	else
		ref_codebook(x, n, cb);
	if (n > 0 && splitzip_split4_wins(n, log2, ref_escape_count(x, n, cb)))
		return ref_split4(x, n, log2, flags, cb);
	return ref_stored(x, n, log2, flags);
}

/* ---- The library's frame ----------------------------------------------------------------- */

static buf lib_frame(const char *name, const uint16_t *x, size_t n, unsigned log2, unsigned flags,
                     const uint8_t *fixed_cb)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.n_threads = 1;
	p.chunk_log2 = log2;
	p.flags = flags;
	if (fixed_cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(p.codebook.exponents, fixed_cb, 16);
	}
	splitzip_ctx *ctx;
	splitzip_status st = splitzip_ctx_create(&p, &ctx);
	if (st != SPLITZIP_OK)
		die(name, splitzip_error_string(st));
	buf b = buf_new(splitzip_compress_bound(n));
	st = splitzip_compress(ctx, x, n, b.p, b.n, &b.n);
	splitzip_ctx_free(ctx);
	if (st != SPLITZIP_OK)
		die(name, splitzip_error_string(st));
	return b;
}

/* Both writers; they must agree byte for byte. */
static buf frame(const char *name, const uint16_t *x, size_t n, unsigned log2, unsigned flags,
                 const uint8_t *fixed_cb)
{
	buf a = lib_frame(name, x, n, log2, flags, fixed_cb);
	buf r = ref_frame(x, n, log2, flags, fixed_cb);
	if (a.n != r.n || memcmp(a.p, r.p, a.n) != 0) {
		size_t i = 0;
		while (i < a.n && i < r.n && a.p[i] == r.p[i])
			i++;
		fprintf(stderr,
		        "gen_vectors: %s: library frame (%zu bytes) and reference writer (%zu "
		        "bytes) differ first at byte %zu\n",
		        name, a.n, r.n, i);
		exit(1);
	}
	free(r.p);
	return a;
}

/* ---- Output ------------------------------------------------------------------------------- */

void emit_valid(const char *name, buf sz, const uint16_t *x, size_t n)
{
	char file[512];
	buf d = le_bytes(x, n);
	n_valid++;
	snprintf(file, sizeof file, "%04u_%s.sz", n_valid, name);
	write_file("valid", file, sz.p, sz.n);
	snprintf(file, sizeof file, "%04u_%s.bf16", n_valid, name);
	write_file("valid", file, d.p, d.n);
	free(d.p);
}

/* A valid single-frame vector; returns the frame (owned by the caller). */
static buf valid(const char *name, const uint16_t *x, size_t n, unsigned log2, unsigned flags,
                 const uint8_t *fixed_cb)
{
	buf f = frame(name, x, n, log2, flags, fixed_cb);
	emit_valid(name, f, x, n);
	return f;
}

/* Writes an invalid vector and frees it. */
void invalid(const char *name, splitzip_status expect, buf b)
{
	char file[512];
	n_invalid++;
	snprintf(file, sizeof file, "%04u_%s.%s.sz", n_invalid, name, splitzip_status_name(expect));
	write_file("invalid", file, b.p, b.n);
	free(b.p);
}

/* ---- Mutations ---------------------------------------------------------------------------- */

void set_le(buf b, uint64_t off, uint64_t v, unsigned n_bytes)
{
	if (off + n_bytes > b.n)
		die("mutation outside the frame", "set_le");
	splitzip_put_u8s(b.p + off, v, n_bytes);
}

uint64_t get_le(buf b, uint64_t off, unsigned n_bytes)
{
	return splitzip_get_u8s(b.p + off, n_bytes);
}

/* Recompute the Header_Checksum of the frame header at byte 'at'. */
void fix_hcs(buf b, size_t at)
{
	set_le(b, at + SZ_H_HEADER_CHECKSUM, splitzip_header_checksum(b.p + at), 4);
}

/* A copy of frame f with one header byte/field set and the header checksum recomputed. */
buf with_field(buf f, unsigned off, uint64_t v, unsigned n_bytes)
{
	buf b = buf_copy(f);
	set_le(b, off, v, n_bytes);
	fix_hcs(b, 0);
	return b;
}

/* A copy of frame f with body byte 'off' XORed with 'x' (header untouched). */
buf with_xor(buf f, uint64_t off, uint8_t x)
{
	buf b = buf_copy(f);
	if (off >= b.n)
		die("mutation outside the frame", "with_xor");
	b.p[off] ^= x;
	return b;
}

/* The layout of a valid split4 frame. */
static splitzip_layout layout_of(buf f)
{
	splitzip_header h;
	if (splitzip_header_parse(f.p, &h) != SZ_HDR_OK || h.mode != SPLITZIP_MODE_SPLIT4)
		die("base frame", "not a valid split4 frame");
	splitzip_layout L;
	splitzip_split4_layout(h.n_elems, h.chunk_log2, h.n_escapes, &L);
	return L;
}

/* ---- Data --------------------------------------------------------------------------------- */

/*
 * KV-like values: exponents spread over the window base..base+15, random sign and mantissa.
 * Element i gets an exponent from outside the window (one of 'esc', cycling) when esc_at(i).
 */
void fill_window(uint16_t *x, size_t n, unsigned base, uint64_t seed)
{
	uint64_t s = seed;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng_next(&s);
		x[i] = bf16((unsigned)(r >> 63), base + (unsigned)(r % 16), (unsigned)(r >> 8));
	}
}

/* Make x[i] an escape with exponent e (sign and mantissa kept). */
void set_exponent(uint16_t *x, size_t i, unsigned e)
{
	x[i] = (uint16_t)((x[i] & 0x807Fu) | ((e & 0xFFu) << 7));
}

/* Exponents outside the window 116..131, for escapes. */
static const uint8_t esc_exps[] = {0, 255, 100, 140, 1, 200, 115, 132, 64, 254};
#define N_ESC_EXPS (sizeof esc_exps / sizeof esc_exps[0])

/* Put k escapes at random distinct positions of x[0..n). */
static void scatter_escapes(uint16_t *x, size_t n, size_t k, unsigned base, uint64_t seed)
{
	uint64_t s = seed;
	for (size_t j = 0; j < k;) {
		size_t i = (size_t)(rng_next(&s) % n);
		unsigned e = splitzip_bf16_exponent(x[i]);
		if (e < base || e > base + 15)
			continue; /* already an escape */
		set_exponent(x, i, esc_exps[j % N_ESC_EXPS]);
		j++;
	}
}

/* ---- The vectors -------------------------------------------------------------------------- */

/*
 * 0001_tiny (FORMAT.md Appendix A): 121 elements, the smallest count for which a split4 frame
 * with one escape is smaller than the stored frame (at the default chunk size). Element i has
 * exponent 116 + i % 16 (so the codes read 10 32 54 ... FE), mantissa i, and is negative when
 * i % 4 == 3; element 77 is -Inf, the one escape.
 */
static void tiny_data(uint16_t *x)
{
	for (unsigned i = 0; i < 121; i++)
		x[i] = bf16(i % 4 == 3, 116 + i % 16, i);
	x[77] = 0xFF80;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: gen_vectors OUTDIR KV_SAMPLE.bf16\n");
		return 2;
	}
	out_dir = argv[1];
	make_dir(NULL);
	make_dir("valid");
	make_dir("invalid");

	const unsigned CK = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	const size_t NMAX = 65537;
	uint16_t *x = (uint16_t *)xcalloc(NMAX * 2);
	uint16_t *y = (uint16_t *)xcalloc(NMAX * 2);

	/* ---- valid ---- */

	tiny_data(x);
	buf A = valid("tiny", x, 121, 12, CK, NULL); /* base of most header/padding vectors */

	buf F = valid("empty", x, 0, 12, 0, NULL);
	free(F.p);
	F = valid("empty_checksum", x, 0, 12, CK, NULL);
	free(F.p);
	x[0] = 0x3F80; /* 1.0 */
	F = valid("one_element", x, 1, 12, CK, NULL);
	free(F.p);

	/* §6.3 at the smallest sizes: 56 elements of one window are stored, 57 are split4. */
	fill_window(x, 57, 116, 56);
	F = valid("n56_stored_not_smaller", x, 56, 12, 0, NULL);
	free(F.p);
	fill_window(x, 57, 116, 57);
	F = valid("n57_smallest_split4", x, 57, 12, 0, NULL);
	free(F.p);

	fill_window(x, 3001, 116, 3001);
	scatter_escapes(x, 3001, 30, 116, 3001);
	F = valid("odd_count_3001", x, 3001, 10, CK, NULL);
	free(F.p);

	/* Chunk edges at 2^10: escapes on the first and last element of a chunk. */
	fill_window(x, 1025, 116, 1023);
	set_exponent(x, 0, 0);
	set_exponent(x, 511, 200);
	set_exponent(x, 1022, 255);
	F = valid("chunk_minus_1", x, 1023, 10, 0, NULL);
	free(F.p);
	fill_window(x, 1025, 116, 1024);
	set_exponent(x, 0, 255);
	set_exponent(x, 1023, 1);
	F = valid("chunk_exact", x, 1024, 10, CK, NULL);
	free(F.p);
	fill_window(x, 1025, 116, 1025);
	set_exponent(x, 1023, 140);
	set_exponent(x, 1024, 0); /* the only element of chunk 1, position 0 */
	F = valid("chunk_plus_1", x, 1025, 10, CK, NULL);
	free(F.p);

	/* Several chunks: none, a run of 40, the two ends, scattered, the very last element. */
	fill_window(x, 5000, 116, 5000);
	for (size_t i = 1024; i < 1064; i++)
		set_exponent(x, i, esc_exps[i % N_ESC_EXPS]);
	set_exponent(x, 2048, 255);
	set_exponent(x, 3071, 0);
	scatter_escapes(x + 3072, 1024, 10, 116, 3072);
	set_exponent(x, 4999, 132);
	F = valid("multi_chunk_escapes", x, 5000, 10, CK, NULL);
	free(F.p);

	fill_window(x, 2048, 116, 2048);
	F = valid("zero_escapes", x, 2048, 10, 0, NULL);
	free(F.p);

	{
		uint64_t s = 1500;
		for (size_t i = 0; i < 1500; i++)
			x[i] = (uint16_t)rng_next(&s);
	}
	F = valid("all_escape_stored", x, 1500, 10, CK, NULL);
	free(F.p);

	/* Largest chunks: an escape at the largest position 65535 and one in a 1-element chunk. */
	fill_window(x, 65537, 116, 65537);
	scatter_escapes(x, 65537, 100, 116, 65537);
	set_exponent(x, 0, 0);
	set_exponent(x, 65535, 255);
	set_exponent(x, 65536, 1);
	F = valid("chunk_log2_16", x, 65537, 16, CK, NULL);
	free(F.p);

	/* A fixed, non-contiguous codebook; data mostly from it, some escapes, some unused codes.
	 */
	{
		static const uint8_t cb[16] = {0,   1,   64,  100, 112, 118, 120, 122,
		                               124, 126, 127, 128, 130, 133, 140, 255};
		uint64_t s = 3000;
		for (size_t i = 0; i < 3000; i++) {
			uint64_t r = rng_next(&s);
			unsigned e = cb[4 + (r % 10)];
			if (r % 97 == 0)
				e = 119 + 2 * (unsigned)((r >> 20) % 4); /* 119..125 odd: escapes */
			x[i] = bf16((unsigned)(r >> 63), e, (unsigned)(r >> 8));
		}
		F = valid("fixed_codebook_noncontiguous", x, 3000, 11, 0, cb);
		free(F.p);
	}

	/* §6.3 at the escape limit: the largest escape count that still wins, and one more. */
	int64_t lim = splitzip_split4_max_escapes(4096, 10);
	fill_window(x, 4096, 116, 4096);
	for (int64_t j = 0; j < lim; j++)
		set_exponent(x, (size_t)(j * 6), (unsigned)(j % 100));
	F = valid("escape_limit_split4", x, 4096, 10, 0, NULL);
	free(F.p);
	memcpy(y, x, 4096 * 2);
	set_exponent(x, 4095, 99);
	F = valid("escape_limit_plus_1_stored", x, 4096, 10, CK, NULL);
	free(F.p);
	set_exponent(y, 4095, 99); /* kept for the invalid split4 of the same data */

	/* BF16 specials among KV-like values. */
	{
		static const uint16_t sp[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0,
		                              0x7F81, 0x7FFF, 0xFFFF, 0x7FA5, 0x0001, 0x8001,
		                              0x007F, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x0040};
		fill_window(x, 2000, 116, 2000);
		uint64_t s = 2001;
		for (size_t j = 0; j < 150; j++)
			x[rng_next(&s) % 2000] = sp[j % (sizeof sp / sizeof sp[0])];
		F = valid("specials", x, 2000, 10, CK, NULL);
		free(F.p);
	}

	/* Real KV cache values (data/kv, K of layer 0). */
	{
		FILE *f = fopen(argv[2], "rb");
		uint8_t raw[8192 * 2];
		if (!f || fread(raw, 1, sizeof raw, f) != sizeof raw)
			die("cannot read", argv[2]);
		fclose(f);
		for (size_t i = 0; i < 8192; i++)
			x[i] = (uint16_t)splitzip_get_u8s(raw + 2 * i, 2);
		F = valid("real_kv_k", x, 8192, 12, CK, NULL);
		free(F.p);
	}

	/* Base B: three chunks of 2^10, the last of 5 elements; escapes at chunk-local positions
	 * {0, 7, 500, 1023}, {3, 4}, {4}; no checksum. Chunk table 4, 6, 7. */
	fill_window(x, 2053, 116, 2053);
	set_exponent(x, 0, 0);
	set_exponent(x, 7, 255);
	set_exponent(x, 500, 100);
	set_exponent(x, 1023, 140);
	set_exponent(x, 1024 + 3, 1);
	set_exponent(x, 1024 + 4, 1);
	set_exponent(x, 2048 + 4, 200);
	x[8] =
	    bf16(0, 120, 5); /* element 8 has a nonzero code (0004 below moves an escape to it) */
	buf B = valid("partial_last_chunk", x, 2053, 10, 0, NULL);

	/* Base S: a stored frame of 300 elements with checksum (600 data bytes, 8 padding). */
	{
		uint64_t s = 300;
		for (size_t i = 0; i < 300; i++)
			x[i] = (uint16_t)rng_next(&s);
	}
	buf S = valid("stored_checksum", x, 300, 10, CK, NULL);

	/* A stream of two frames: split4 then stored. */
	{
		fill_window(x, 1027, 116, 1027);
		buf f1 = frame("stream_two_frames", x, 1024, 10, 0, NULL);
		buf f2 = frame("stream_two_frames", x + 1024, 3, 10, CK, NULL);
		buf st = buf_cat(f1, f2.p, f2.n);
		emit_valid("stream_two_frames", st, x, 1027);
		free(f1.p);
		free(f2.p);
		free(st.p);
	}

	/* Entropy frames (mode 2): gen_vectors_entropy.c, on the first 2^16 values of the KV
	 * sample. */
	uint16_t *kv = (uint16_t *)xcalloc(65536 * 2);
	{
		FILE *f = fopen(argv[2], "rb");
		uint8_t *raw = (uint8_t *)xcalloc(65536 * 2);
		if (!f || fread(raw, 1, 65536 * 2, f) != 65536 * 2)
			die("cannot read", argv[2]);
		fclose(f);
		for (size_t i = 0; i < 65536; i++)
			kv[i] = (uint16_t)splitzip_get_u8s(raw + 2 * i, 2);
		free(raw);
	}
	gen_entropy_valid(kv, 65536);

	/* ---- invalid: input shorter than a header ---- */

	invalid("empty_file", SPLITZIP_ERROR_TRUNCATED, buf_new(0));
	invalid("magic_prefix_only", SPLITZIP_ERROR_TRUNCATED, buf_prefix(A, 3));
	invalid("truncated_header", SPLITZIP_ERROR_TRUNCATED, buf_prefix(A, 40));
	invalid("truncated_header_63", SPLITZIP_ERROR_TRUNCATED, buf_prefix(A, 63));
	invalid("truncated_body", SPLITZIP_ERROR_TRUNCATED, buf_prefix(A, 288));
	invalid("truncated_last_byte", SPLITZIP_ERROR_TRUNCATED, buf_prefix(A, A.n - 1));
	{
		static const uint8_t zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
		static const uint8_t two[2] = {0x00, 0x00};
		buf b = buf_new(4);
		memcpy(b.p, zstd_magic, 4);
		invalid("other_format_4_bytes", SPLITZIP_ERROR_BAD_MAGIC, b);
		b = buf_new(2);
		memcpy(b.p, two, 2);
		invalid("two_stray_bytes", SPLITZIP_ERROR_BAD_MAGIC, b);
	}

	/* ---- invalid: header (§3) ---- */

	invalid("bad_magic", SPLITZIP_ERROR_BAD_MAGIC, with_field(A, 3, 0xBE, 1));
	invalid("header_checksum_flipped", SPLITZIP_ERROR_HEADER_CHECKSUM,
	        with_xor(A, SZ_H_HEADER_CHECKSUM, 0x01));
	invalid("element_count_flipped_unsealed", SPLITZIP_ERROR_HEADER_CHECKSUM,
	        with_xor(A, SZ_H_ELEMENT_COUNT, 0x02));
	invalid("version_2", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, with_field(A, SZ_H_VERSION, 2, 1));
	invalid("version_255", SPLITZIP_ERROR_UNSUPPORTED_FORMAT,
	        with_field(A, SZ_H_VERSION, 255, 1));
	invalid("version_0", SPLITZIP_ERROR_CORRUPT_STREAM, with_field(A, SZ_H_VERSION, 0, 1));
	invalid("dtype_0", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, with_field(A, SZ_H_DTYPE, 0, 1));
	invalid("dtype_2", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, with_field(A, SZ_H_DTYPE, 2, 1));
	invalid("mode_3", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, with_field(A, SZ_H_MODE, 3, 1));
	invalid("flags_reserved_bit_1", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_FLAGS, CK | 0x02, 1));
	invalid("flags_reserved_bit_7", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_FLAGS, CK | 0x80, 1));
	invalid("reserved_byte_9", SPLITZIP_ERROR_CORRUPT_STREAM, with_field(A, 9, 1, 1));
	invalid("reserved_byte_11", SPLITZIP_ERROR_CORRUPT_STREAM, with_field(A, 11, 0x80, 1));
	invalid("reserved_byte_56", SPLITZIP_ERROR_CORRUPT_STREAM, with_field(A, 56, 1, 1));
	invalid("reserved_byte_59", SPLITZIP_ERROR_CORRUPT_STREAM, with_field(A, 59, 0x80, 1));
	invalid("chunk_log2_9", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_CHUNK_LOG2, 9, 1));
	invalid("chunk_log2_17", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_CHUNK_LOG2, 17, 1));
	invalid("element_count_2p32", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_ELEMENT_COUNT, (uint64_t)1 << 32, 8));
	invalid("escape_count_above_elements", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_ESCAPE_COUNT, 122, 4));
	invalid("frame_size_plus_16", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_FRAME_SIZE, A.n + 16, 8));
	invalid("frame_size_minus_16", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(A, SZ_H_FRAME_SIZE, A.n - 16, 8));
	{
		buf b = buf_copy(A);
		uint8_t t = b.p[SZ_H_CODEBOOK + 5];
		b.p[SZ_H_CODEBOOK + 5] = b.p[SZ_H_CODEBOOK + 6];
		b.p[SZ_H_CODEBOOK + 6] = t;
		fix_hcs(b, 0);
		invalid("codebook_not_ascending", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		invalid("codebook_duplicate", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_field(A, SZ_H_CODEBOOK + 6, A.p[SZ_H_CODEBOOK + 5], 1));
	}
	invalid("content_checksum_without_flag", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(B, SZ_H_CONTENT_CHECKSUM, 1, 8));
	invalid("stored_escape_count_nonzero", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(S, SZ_H_ESCAPE_COUNT, 1, 4));
	invalid("stored_codebook_nonzero", SPLITZIP_ERROR_CORRUPT_STREAM,
	        with_field(S, SZ_H_CODEBOOK + 15, 1, 1));
	/* Headers whose frame would be huge: rejected as truncated before any allocation. */
	{
		buf b = buf_copy(S);
		set_le(b, SZ_H_ELEMENT_COUNT, SPLITZIP_MAX_FRAME_ELEMS, 8);
		set_le(b, SZ_H_FRAME_SIZE, splitzip_stored_frame_size(SPLITZIP_MAX_FRAME_ELEMS), 8);
		fix_hcs(b, 0);
		invalid("stored_max_elements_truncated", SPLITZIP_ERROR_TRUNCATED, b);
		b = buf_copy(B);
		set_le(b, SZ_H_ELEMENT_COUNT, SPLITZIP_MAX_FRAME_ELEMS, 8);
		set_le(b, SZ_H_FRAME_SIZE,
		       splitzip_split4_frame_size(SPLITZIP_MAX_FRAME_ELEMS, 10, 7), 8);
		fix_hcs(b, 0);
		invalid("split4_max_elements_truncated", SPLITZIP_ERROR_TRUNCATED, b);
	}

	/* ---- invalid: §6.3, split4 frames that are not smaller than stored ---- */

	{
		uint8_t cb[16];
		fill_window(x, 32, 116, 32);
		ref_codebook(x, 32, cb);
		invalid("split4_n32_same_size_as_stored", SPLITZIP_ERROR_CORRUPT_STREAM,
		        ref_split4(x, 32, 12, 0, cb));
		ref_codebook(y, 4096, cb);
		invalid("split4_escape_limit_plus_1", SPLITZIP_ERROR_CORRUPT_STREAM,
		        ref_split4(y, 4096, 10, 0, cb));
	}

	/* ---- invalid: padding (§4) ---- */

	{
		splitzip_layout L = layout_of(A); /* n 121, E 1: every gap is nonempty */
		invalid("pad_codes_gap", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, L.codes_off + 61, 0x01));
		invalid("pad_odd_high_nibble", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, L.codes_off + 60, 0x10));
		invalid("pad_sign_mantissa_gap", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, L.table_off - 1, 0x01));
		invalid("pad_chunk_table_gap", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, L.table_off + 4, 0x01));
		invalid("pad_escape_positions_gap", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, L.epos_off + 2, 0x01));
		invalid("pad_escape_exponents_gap", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, L.eexp_off + 1, 0x01));
		invalid("pad_frame_last_byte", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(A, A.n - 1, 0x80));
		invalid("stored_pad_nonzero", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(S, S.n - 1, 0x01));
	}

	/* ---- invalid: chunk table and escapes (§4.2), on base B ---- */

	{
		splitzip_layout L = layout_of(B);
		buf b = buf_copy(B);
		set_le(b, L.table_off + 4, 3, 4); /* 4, 3, 7 */
		invalid("chunk_table_decreasing", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		b = buf_copy(B);
		set_le(b, L.table_off + 8, 6, 4); /* 4, 6, 6 */
		invalid("chunk_table_last_not_escape_count", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		b = buf_copy(B);
		set_le(b, L.table_off, 0, 4); /* 0, 1, 7: chunk 2 (5 elements) would have 6 */
		set_le(b, L.table_off + 4, 1, 4);
		invalid("chunk_table_count_above_chunk_length", SPLITZIP_ERROR_CORRUPT_STREAM, b);

		/* Escapes 0..3 are chunk 0 (positions 0, 7, 500, 1023), 4..5 chunk 1, 6 chunk 2. */
		b = buf_copy(B);
		set_le(b, L.epos_off + 2 * 6, 5, 2);
		invalid("escape_position_equals_chunk_length", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		b = buf_copy(B);
		set_le(b, L.epos_off + 2 * 3, 1024, 2);
		invalid("escape_position_beyond_chunk", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		b = buf_copy(B);
		set_le(b, L.epos_off + 2 * 1, 500, 2);
		set_le(b, L.epos_off + 2 * 2, 7, 2);
		set_le(b, L.eexp_off + 1, get_le(B, L.eexp_off + 2, 1), 1);
		set_le(b, L.eexp_off + 2, get_le(B, L.eexp_off + 1, 1), 1);
		invalid("escape_positions_descending", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		b = buf_copy(B);
		set_le(b, L.epos_off + 2 * 2, 7, 2);
		invalid("escape_position_duplicate", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		b = buf_copy(B);
		set_le(b, L.epos_off + 2 * 1, 8, 2);
		invalid("escape_at_nonzero_code", SPLITZIP_ERROR_CORRUPT_STREAM, b);
		invalid("escape_code_nibble_nonzero", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(B, L.codes_off + 7 / 2, 0x10)); /* element 7: high nibble */
		b = buf_copy(B);
		set_le(b, L.eexp_off + 1, B.p[SZ_H_CODEBOOK + 3], 1);
		invalid("escape_exponent_in_codebook", SPLITZIP_ERROR_CORRUPT_STREAM, b);
	}

	/* ---- invalid: content checksum (§7) ---- */

	{
		splitzip_layout L = layout_of(A);
		invalid("checksum_sign_mantissa_flipped", SPLITZIP_ERROR_CONTENT_CHECKSUM,
		        with_xor(A, L.sm_off, 0x01));
		invalid("checksum_code_changed", SPLITZIP_ERROR_CONTENT_CHECKSUM,
		        with_xor(A, L.codes_off, 0x01));
		invalid("checksum_escape_exponent_changed", SPLITZIP_ERROR_CONTENT_CHECKSUM,
		        with_xor(A, L.eexp_off, 0x01)); /* 255 -> 254, still outside the codebook */
		invalid("checksum_field_flipped", SPLITZIP_ERROR_CONTENT_CHECKSUM,
		        with_field(A, SZ_H_CONTENT_CHECKSUM,
		                   get_le(A, SZ_H_CONTENT_CHECKSUM, 8) ^ 1, 8));
		invalid("stored_checksum_data_flipped", SPLITZIP_ERROR_CONTENT_CHECKSUM,
		        with_xor(S, SPLITZIP_FRAME_HEADER_SIZE + 100, 0x40));
	}

	/* ---- invalid: streams (§8.2) ---- */

	{
		static const char garbage[8] = {'g', 'a', 'r', 'b', 'a', 'g', 'e', '!'};
		static const uint8_t zeros[16] = {0};
		invalid("trailing_garbage", SPLITZIP_ERROR_CORRUPT_STREAM, buf_cat(A, garbage, 8));
		invalid("trailing_zero_bytes", SPLITZIP_ERROR_CORRUPT_STREAM,
		        buf_cat(A, zeros, 16));
		invalid("trailing_partial_frame", SPLITZIP_ERROR_TRUNCATED, buf_cat(A, A.p, 20));
		invalid("trailing_header_only", SPLITZIP_ERROR_TRUNCATED, buf_cat(A, A.p, 64));
		buf b = buf_cat(A, A.p, A.n);
		b.p[A.n + SZ_H_HEADER_CHECKSUM] ^= 0x01;
		invalid("second_frame_header_checksum", SPLITZIP_ERROR_HEADER_CHECKSUM, b);
		b = buf_cat(A, S.p, S.n);
		b.p[A.n + SPLITZIP_FRAME_HEADER_SIZE] ^= 0x01;
		invalid("second_frame_content_checksum", SPLITZIP_ERROR_CONTENT_CHECKSUM, b);
	}

	gen_entropy_invalid(kv, 65536);
	gen_pages_vectors(kv, 65536);

	free(A.p);
	free(B.p);
	free(S.p);
	free(x);
	free(y);
	free(kv);
	printf("gen_vectors: %u valid, %u invalid vectors in %s\n", n_valid, n_invalid, out_dir);
	return 0;
}
