/*
 * gen_vectors_entropy.c -- the golden vectors of entropy frames (mode 2, doc/FORMAT.md §4.3).
 *
 * As for split4, every valid frame is written twice: by the library (scalar oracle, one
 * thread) and by the reference writer below, which follows FORMAT.md §4.3 and §5.2-§5.4 from
 * the text, on its own: package-merge with lists of items that carry their symbol counts, the
 * canonical codes of §5.3, each lane's bit sequence written out, and the decoder of §4.3.5 run
 * over those sequences to put the words in the order it reads them. It takes nothing from the
 * library but the hash primitives of core/sz_hash.h. The generator fails if the two writers
 * disagree in a single byte.
 *
 * Invalid vectors are valid frames with one rule broken, most of them written by the reference
 * writer with an option that breaks it (a wrong table range, an escape for a coded exponent, an
 * extra word, a checksum of other content). Every mode-2 vector's name contains "entropy".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_vectors.h"

#define R_ESC 256 /* the escape symbol */
#define R_SYMS 257
#define R_LMAX 11
#define R_LANES 32

static uint64_t r_align16(uint64_t x)
{
	return (x + 15) & ~(uint64_t)15;
}

static unsigned r_exponent(uint16_t v)
{
	return (v >> 7) & 0xFF;
}

static uint8_t r_signman(uint16_t v)
{
	return (uint8_t)(((v >> 8) & 0x80) | (v & 0x7F));
}

/* ---- §5.2: package-merge, by the book ------------------------------------------------------ */

/* An item of a package-merge list: its weight and how often each symbol occurs in it. */
typedef struct pm_item {
	uint64_t w;
	uint16_t cnt[R_SYMS];
} pm_item;

static const uint64_t *pm_weights;

/* Leaf order: weight ascending, then symbol ascending. */
static int pm_leaf_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (pm_weights[x] != pm_weights[y])
		return pm_weights[x] < pm_weights[y] ? -1 : 1;
	return x < y ? -1 : 1;
}

/* The code lengths of weights w (§5.2 steps 2-5): lists P_1..P_11, select 2m - 2 of P_11. */
static void ref_lengths(const uint64_t w[R_SYMS], uint8_t len[R_SYMS])
{
	int leaf[R_SYMS], m = 0;
	for (int s = 0; s < R_SYMS; s++)
		if (w[s])
			leaf[m++] = s;
	if (m < 2)
		die("ref_lengths", "fewer than two symbols");
	pm_weights = w;
	qsort(leaf, (size_t)m, sizeof leaf[0], pm_leaf_cmp);
	pm_item *prev = (pm_item *)xcalloc(2 * R_SYMS * sizeof(pm_item));
	pm_item *pkg = (pm_item *)xcalloc(R_SYMS * sizeof(pm_item));
	pm_item *cur = (pm_item *)xcalloc(2 * R_SYMS * sizeof(pm_item));
	size_t n_prev = 0;
	for (int k = 1; k <= R_LMAX; k++) {
		size_t n_pkg = k == 1 ? 0 : n_prev / 2, a = 0, b = 0, o = 0;
		for (size_t i = 0; i < n_pkg; i++) { /* pairs of P_{k-1} */
			pkg[i].w = prev[2 * i].w + prev[2 * i + 1].w;
			for (int s = 0; s < R_SYMS; s++)
				pkg[i].cnt[s] =
				    (uint16_t)(prev[2 * i].cnt[s] + prev[2 * i + 1].cnt[s]);
		}
		while (a < (size_t)m || b < n_pkg) { /* a leaf first on equal weight */
			if (b == n_pkg || (a < (size_t)m && w[leaf[a]] <= pkg[b].w)) {
				memset(&cur[o], 0, sizeof cur[o]);
				cur[o].w = w[leaf[a]];
				cur[o].cnt[leaf[a]] = 1;
				a++;
			} else {
				cur[o] = pkg[b++];
			}
			o++;
		}
		pm_item *t = prev;
		prev = cur;
		cur = t;
		n_prev = o;
	}
	memset(len, 0, R_SYMS);
	for (size_t i = 0; i < 2 * (size_t)m - 2; i++)
		for (int s = 0; s < R_SYMS; s++)
			len[s] = (uint8_t)(len[s] + prev[i].cnt[s]);
	free(prev);
	free(pkg);
	free(cur);
}

/* §5.2 step 1: the weights of n values (the escape symbol weighs 1). */
static void ref_table_of(const uint16_t *x, uint64_t n, uint8_t len[R_SYMS])
{
	uint64_t w[R_SYMS] = {0};
	for (uint64_t i = 0; i < n; i++)
		w[r_exponent(x[i])]++;
	w[R_ESC] = 1;
	ref_lengths(w, len);
}

/* §5.3: canonical codes, most significant bit first. */
static void ref_codes(const uint8_t len[R_SYMS], uint32_t code[R_SYMS])
{
	unsigned count[R_LMAX + 1] = {0};
	uint32_t first[R_LMAX + 1] = {0}, c = 0;
	for (int s = 0; s < R_SYMS; s++)
		if (len[s])
			count[len[s]]++;
	for (int l = 1; l <= R_LMAX; l++) {
		c = (c + count[l - 1]) << 1;
		first[l] = c;
	}
	for (int s = 0; s < R_SYMS; s++)
		code[s] = len[s] ? first[len[s]]++ : 0;
}

/* ---- §4.3.5: one chunk's words ------------------------------------------------------------ */

/* What the reference writer may be asked to do besides the canonical frame. */
typedef struct ent_opts {
	const uint8_t *fixed; /* 257 code lengths, or NULL: §5.2 of the frame's elements */
	int first, last;      /* the Table_First/Table_Last to write; -1: the exact range */
	int64_t force_escape; /* an element coded as an escape although it has a code, or -1 */
	int64_t extra_word;   /* a chunk that gets one more (zero) word at its end, or -1 */
	int sum_override;     /* write 'sum' as Content_Checksum */
	uint64_t sum;
	int64_t escape_count_delta; /* added to the Escape_Count written */
} ent_opts;

static void ent_opts_init(ent_opts *o)
{
	memset(o, 0, sizeof *o);
	o->first = o->last = -1;
	o->force_escape = o->extra_word = -1;
}

/* A lane's bit sequence: one byte per bit. */
typedef struct lane_bits {
	uint8_t *bit;
	size_t n, handed; /* bits, bits handed to the decoder in words */
} lane_bits;

static void lane_put(lane_bits *l, uint32_t v, unsigned k, int msb_first)
{
	for (unsigned i = 0; i < k; i++)
		l->bit[l->n++] = (uint8_t)((v >> (msb_first ? k - 1 - i : i)) & 1);
}

/* The next 16 bits of the lane's sequence as a word, bit 0 first; zeros after its end. */
static uint16_t lane_word(lane_bits *l)
{
	uint16_t w = 0;
	for (unsigned j = 0; j < 16; j++, l->handed++)
		if (l->handed < l->n)
			w = (uint16_t)(w | (unsigned)l->bit[l->handed] << j);
	return w;
}

/*
 * The words of chunk x[0..len) in read order (out), per §4.3.5; returns their number. Counts
 * the escapes in '*n_esc' and stores in '*pad_word' the index of a word whose bit 15 no lane
 * uses (-1 if none), for the invalid vectors.
 */
static size_t ref_chunk(const uint16_t *x, size_t len, const uint8_t lens[R_SYMS],
                        const uint32_t code[R_SYMS], int64_t force_escape, uint16_t *out,
                        uint64_t *n_esc, int64_t *pad_word)
{
	lane_bits lane[R_LANES];
	uint8_t *esc = (uint8_t *)xcalloc(len), *clen = (uint8_t *)xcalloc(len);
	for (unsigned l = 0; l < R_LANES; l++) {
		lane[l].bit = (uint8_t *)xcalloc(19 * (len / R_LANES + 1));
		lane[l].n = lane[l].handed = 0;
	}
	for (size_t p = 0; p < len; p++) { /* each lane's sequence: code, then raw bits */
		const unsigned e = r_exponent(x[p]);
		esc[p] = lens[e] == 0 || (int64_t)p == force_escape;
		const unsigned s = esc[p] ? R_ESC : e;
		clen[p] = lens[s];
		lane_put(&lane[p % R_LANES], code[s], lens[s], 1);
		if (esc[p])
			lane_put(&lane[p % R_LANES], e, 8, 0);
		*n_esc += esc[p];
	}
	unsigned bits[R_LANES] = {0};
	int64_t last_word[R_LANES];
	size_t nw = 0;
	for (size_t s0 = 0; s0 < len; s0 += R_LANES) { /* the decoder's steps, phases A D B R */
		const size_t act = len - s0 < R_LANES ? len - s0 : R_LANES;
		for (size_t l = 0; l < act; l++)
			if (bits[l] < 11) {
				last_word[l] = (int64_t)nw;
				out[nw++] = lane_word(&lane[l]);
				bits[l] += 16;
			}
		for (size_t l = 0; l < act; l++)
			bits[l] -= clen[s0 + l];
		for (size_t l = 0; l < act; l++)
			if (esc[s0 + l] && bits[l] < 8) {
				last_word[l] = (int64_t)nw;
				out[nw++] = lane_word(&lane[l]);
				bits[l] += 16;
			}
		for (size_t l = 0; l < act; l++)
			if (esc[s0 + l])
				bits[l] -= 8;
	}
	*pad_word = -1;
	for (unsigned l = 0; l < R_LANES && l < len && *pad_word < 0; l++)
		if (bits[l] > 0) /* the top bits[l] bits handed to lane l are unused */
			*pad_word = last_word[l];
	for (unsigned l = 0; l < R_LANES; l++)
		free(lane[l].bit);
	free(esc);
	free(clen);
	return nw;
}

/* ---- §4.3.1-§4.3.4: the frame ------------------------------------------------------------- */

/* Where the reference writer put things, for mutations. */
typedef struct ent_info {
	uint64_t sm_off, lengths_off, table_off, stream_off, size, n_words, n_chunks, E;
	unsigned first, last;
	int64_t pad_byte; /* a frame byte whose bit 7 is an unused lane bit of chunk 0, or -1 */
} ent_info;

/* An entropy frame of x[0..n) per §4.3, whether or not it is smaller than stored. */
static buf ref_entropy(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags,
                       const ent_opts *o, ent_info *info)
{
	uint8_t len[R_SYMS];
	uint32_t code[R_SYMS];
	if (o->fixed)
		memcpy(len, o->fixed, R_SYMS);
	else
		ref_table_of(x, n, len);
	ref_codes(len, code);
	int first = 256, last = -1;
	for (int e = 0; e < 256; e++)
		if (len[e]) {
			first = first < e ? first : e;
			last = e;
		}
	if (o->first >= 0) {
		first = o->first;
		last = o->last;
	}
	const uint64_t K = (uint64_t)(last - first + 1),
	               C = (n + ((uint64_t)1 << log2) - 1) >> log2;
	uint16_t *words = (uint16_t *)xcalloc((size_t)(2 * n + 64 * C + 2) * 2);
	uint32_t *T = (uint32_t *)xcalloc((size_t)C * 4 + 4);
	uint64_t W = 0, E = 0;
	int64_t pad0 = -1;
	for (uint64_t c = 0; c < C; c++) {
		const uint64_t e0 = c << log2,
		               m = n - e0 < ((uint64_t)1 << log2) ? n - e0 : (uint64_t)1 << log2;
		int64_t pad;
		const int64_t fe =
		    o->force_escape >= (int64_t)e0 && o->force_escape < (int64_t)(e0 + m)
		        ? o->force_escape - (int64_t)e0
		        : -1;
		W += ref_chunk(x + e0, (size_t)m, len, code, fe, words + W, &E, &pad);
		if (c == 0 && pad >= 0)
			pad0 = pad;
		if ((int64_t)c == o->extra_word)
			words[W++] = 0;
		T[c] = (uint32_t)W;
	}
	ent_info I;
	I.sm_off = 64;
	I.lengths_off = r_align16(64 + n);
	I.table_off = r_align16(I.lengths_off + (K + 1) / 2);
	I.stream_off = r_align16(I.table_off + 4 * C);
	I.size = r_align16(I.stream_off + 2 * W);
	I.n_words = W;
	I.n_chunks = C;
	I.E = E;
	I.first = (unsigned)first;
	I.last = (unsigned)last;
	I.pad_byte = pad0 >= 0 ? (int64_t)(I.stream_off + 2 * (uint64_t)pad0 + 1) : -1;
	buf b = buf_new((size_t)I.size);
	for (uint64_t i = 0; i < n; i++)
		b.p[I.sm_off + i] = r_signman(x[i]);
	for (uint64_t k = 0; k < K; k++)
		b.p[I.lengths_off + k / 2] |= (uint8_t)(len[first + k] << (4 * (k % 2)));
	for (uint64_t c = 0; c < C; c++)
		splitzip_put_u8s(b.p + I.table_off + 4 * c, T[c], 4);
	for (uint64_t j = 0; j < W; j++)
		splitzip_put_u8s(b.p + I.stream_off + 2 * j, words[j], 2);
	/* §3 and §4.3.1: the header, written field by field. */
	uint8_t *h = b.p;
	splitzip_put_u8s(h, 0xBF5A5053u, 4);
	h[4] = 1;
	h[5] = 1;
	h[6] = 2;
	h[7] = (uint8_t)log2;
	h[8] = (uint8_t)flags;
	splitzip_put_u8s(h + 12, E + (uint64_t)o->escape_count_delta, 4);
	splitzip_put_u8s(h + 16, n, 8);
	splitzip_put_u8s(h + 24, W, 4);
	h[28] = (uint8_t)first;
	h[29] = (uint8_t)last;
	h[30] = len[R_ESC];
	splitzip_put_u8s(h + 40, I.size, 8);
	if (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		splitzip_put_u8s(h + 48, o->sum_override ? o->sum : ref_checksum(x, n, log2), 8);
	splitzip_put_u8s(h + 60, splitzip_hash_bytes_small(h, 60) & 0xFFFFFFFFu, 4);
	free(words);
	free(T);
	if (info)
		*info = I;
	return b;
}

/* §6.3 for ENTROPY: the entropy frame if strictly smaller than stored, else stored. */
static buf ref_entropy_frame(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags,
                             const uint8_t *fixed)
{
	if (n == 0)
		return ref_stored(x, n, log2, flags);
	ent_opts o;
	ent_opts_init(&o);
	o.fixed = fixed;
	buf b = ref_entropy(x, n, log2, flags, &o, NULL);
	if (b.n < 64 + r_align16(2 * n))
		return b;
	free(b.p);
	return ref_stored(x, n, log2, flags);
}

/* §6.3 for AUTO: the smallest of stored, split4 and entropy; ties to the simpler mode. */
static buf ref_auto_frame(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags)
{
	buf s4 =
	    ref_frame(x, n, log2, flags, NULL); /* split4 if smaller than stored, else stored */
	buf en = ref_entropy_frame(x, n, log2, flags, NULL);
	if (en.n < s4.n) {
		free(s4.p);
		return en;
	}
	free(en.p);
	return s4;
}

/* ---- The library's frame, and both writers compared --------------------------------------- */

static buf lib_entropy(const char *name, const uint16_t *x, size_t n, unsigned log2, unsigned flags,
                       splitzip_encoding enc, const uint8_t *fixed)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_SCALAR;
	p.n_threads = 1;
	p.chunk_log2 = log2;
	p.flags = flags;
	p.encoding = enc;
	if (fixed) {
		p.table_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(p.table.lengths, fixed, 256);
		p.table.escape_length = fixed[R_ESC];
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

static buf both(const char *name, const uint16_t *x, size_t n, unsigned log2, unsigned flags,
                splitzip_encoding enc, const uint8_t *fixed)
{
	buf a = lib_entropy(name, x, n, log2, flags, enc, fixed);
	buf r = enc == SPLITZIP_ENCODING_AUTO ? ref_auto_frame(x, n, log2, flags)
	                                      : ref_entropy_frame(x, n, log2, flags, fixed);
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

static void valid_entropy(const char *name, const uint16_t *x, size_t n, unsigned log2,
                          unsigned flags, splitzip_encoding enc, const uint8_t *fixed,
                          unsigned want_mode)
{
	buf f = both(name, x, n, log2, flags, enc, fixed);
	if (f.p[6] != want_mode)
		die(name, "the frame does not have the mode this vector is about");
	emit_valid(name, f, x, n);
	free(f.p);
}

/* ---- Data ---------------------------------------------------------------------------------- */

/*
 * FORMAT.md Appendix C: 160 elements. Element i has mantissa i mod 128 and is negative when
 * i mod 3 == 0; its exponent follows (7 i) mod 8: 0-3 -> 126, 4-5 -> 127, 6 -> 128, 7 -> an
 * escape, cycling through 0, 255, 131, 1, 200. With the fixed table of C_TABLE (126: 1 bit,
 * 127: 2, 128: 3, ESC: 3) the frame has 20 escapes.
 */
static void appendix_data(uint16_t *x)
{
	static const uint8_t esc[5] = {0, 255, 131, 1, 200};
	unsigned k = 0;
	for (unsigned i = 0; i < 160; i++) {
		unsigned r = (7 * i) % 8, e;
		if (r < 4)
			e = 126;
		else if (r < 6)
			e = 127;
		else if (r == 6)
			e = 128;
		else
			e = esc[k++ % 5];
		x[i] = bf16(i % 3 == 0, e, i);
	}
}

static void appendix_table(uint8_t t[R_SYMS])
{
	memset(t, 0, R_SYMS);
	t[126] = 1;
	t[127] = 2;
	t[128] = 3;
	t[R_ESC] = 3;
}

/* Exponents with counts 1, 1, 2, 4, ..., 2^13 (unlimited Huffman would need 15 bits). */
static size_t geometric_data(uint16_t *x)
{
	size_t n = 0;
	uint64_t s = 77;
	for (unsigned k = 0; k < 15; k++) {
		size_t cnt = k == 0 ? 1 : (size_t)1 << (k - 1);
		for (size_t j = 0; j < cnt; j++) {
			/* Drawn in this order (function arguments have none): the mantissa, then
			 * the sign, as the vectors were checked in. */
			const unsigned man = (unsigned)rng_next(&s);
			const unsigned sign = (unsigned)(rng_next(&s) & 1);
			x[n++] = bf16(sign, 100 + k, man);
		}
	}
	for (size_t i = n; i > 1; i--) { /* shuffle, deterministically */
		size_t j = (size_t)(rng_next(&s) % i);
		uint16_t t = x[i - 1];
		x[i - 1] = x[j];
		x[j] = t;
	}
	return n;
}

/* The table of x[0..n) under §5.2, as 257 lengths. */
static void table_of(const uint16_t *x, size_t n, uint8_t t[R_SYMS])
{
	ref_table_of(x, n, t);
}

/* ---- Valid vectors ------------------------------------------------------------------------- */

void gen_entropy_valid(const uint16_t *kv, size_t kv_n)
{
	const unsigned CK = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	const splitzip_encoding EN = SPLITZIP_ENCODING_ENTROPY, AU = SPLITZIP_ENCODING_AUTO;
	uint16_t *x = (uint16_t *)xcalloc(70000 * 2);
	uint8_t t[R_SYMS];
	if (kv_n < 65536)
		die("KV sample", "needs 65536 elements");

	appendix_data(x); /* FORMAT.md Appendix C */
	appendix_table(t);
	valid_entropy("entropy_appendix_fixed_table", x, 160, 12, CK, EN, t, 2);

	valid_entropy("entropy_real_kv_k", kv, 8192, 12, CK, EN, NULL, 2);
	valid_entropy("entropy_real_kv_two_chunks_l14", kv + 8192, 20000, 14, 0, EN, NULL, 2);
	valid_entropy("entropy_real_kv_l16_max_chunk", kv, 65536, 16, CK, EN, NULL, 2);

	/* A calibrated table (from the first 4096 KV values) on other data: escapes in several
	 * chunks, a partial last chunk, a last step with 7 active lanes. */
	table_of(kv, 4096, t);
	memcpy(x, kv + 30000, 3079 * 2);
	for (size_t i = 5; i < 3079; i += 97)
		set_exponent(x, i, (unsigned)(i % 7 == 0 ? 0 : 200 + i % 50));
	set_exponent(x, 3078, 255);
	valid_entropy("entropy_fixed_table_escapes", x, 3079, 10, CK, EN, t, 2);

	/* One exponent only: the table is that exponent and the escape symbol, one bit each. */
	for (size_t i = 0; i < 2000; i++)
		x[i] = bf16(i % 2, 127, (unsigned)i);
	valid_entropy("entropy_one_exponent", x, 2000, 10, 0, EN, NULL, 2);

	/* Every exponent occurs: 256 codes and the escape symbol, lengths up to 11. */
	memcpy(x, kv, 8192 * 2);
	for (unsigned e = 0; e < 256; e++)
		set_exponent(x, 31 * e + 3, e);
	valid_entropy("entropy_all_exponents", x, 8192, 12, CK, EN, NULL, 2);

	/* The length limit at work: a geometric histogram. */
	size_t ng = geometric_data(x);
	valid_entropy("entropy_length_limit", x, ng, 11, CK, EN, NULL, 2);

	/* BF16 specials among real values. */
	{
		static const uint16_t sp[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0,
		                              0x7F81, 0x7FFF, 0xFFFF, 0x0001, 0x8001, 0x007F};
		memcpy(x, kv + 40000, 3000 * 2);
		for (size_t j = 0; j < 60; j++)
			x[(j * 7919) % 3000] = sp[j % (sizeof sp / sizeof sp[0])];
		valid_entropy("entropy_specials", x, 3000, 10, CK, EN, NULL, 2);
	}

	/* Chunks of one step and less: n = 2^10 + 1 (the last chunk: one element, one lane). */
	valid_entropy("entropy_chunk_plus_1", kv + 50000, 1025, 10, CK, EN, NULL, 2);

	/* Random bits: the entropy frame is not smaller, so ENTROPY writes a stored frame. */
	{
		uint64_t s = 999;
		for (size_t i = 0; i < 1000; i++)
			x[i] = (uint16_t)rng_next(&s);
		valid_entropy("entropy_random_stored", x, 1000, 10, CK, EN, NULL, 0);
	}
	/* The smallest n at which the real KV gives an entropy frame is below 400. */
	valid_entropy("entropy_small_400", kv + 100, 400, 12, 0, EN, NULL, 2);

	/* AUTO: real KV gives entropy; 16 equally frequent exponents give split4. */
	valid_entropy("auto_real_kv_entropy", kv + 16384, 16384, 14, CK, AU, NULL, 2);
	fill_window(x, 4096, 116, 4096);
	valid_entropy("auto_uniform_window_split4", x, 4096, 12, CK, AU, NULL, 1);

	/* A stream of a split4, an entropy and a stored frame. */
	{
		buf f1 = ref_frame(kv, 3000, 10, CK, NULL);
		buf f2 = both("stream_split4_entropy_stored", kv + 3000, 5000, 12, CK, EN, NULL);
		buf f3 = both("stream_split4_entropy_stored", kv + 8000, 5, 12, 0, EN, NULL);
		buf a = buf_cat(f1, f2.p, f2.n), b = buf_cat(a, f3.p, f3.n);
		if (f1.p[6] != 1 || f2.p[6] != 2 || f3.p[6] != 0)
			die("stream_split4_entropy_stored", "modes");
		emit_valid("stream_split4_entropy_stored", b, kv, 8005);
		free(f1.p);
		free(f2.p);
		free(f3.p);
		free(a.p);
		free(b.p);
	}
	free(x);
}

/* ---- Invalid vectors ----------------------------------------------------------------------- */

/* The base of most invalid vectors: 3079 values, a calibrated table, escapes in several chunks,
 * checksum (as entropy_fixed_table_escapes). */
static void base_data(const uint16_t *kv, uint16_t *x, uint8_t t[R_SYMS])
{
	table_of(kv, 4096, t);
	memcpy(x, kv + 30000, 3079 * 2);
	for (size_t i = 5; i < 3079; i += 97)
		set_exponent(x, i, (unsigned)(i % 7 == 0 ? 0 : 200 + i % 50));
	set_exponent(x, 3078, 255);
}

/* The base frame with one option of the reference writer set. */
static buf base_with(const uint16_t *x, const uint8_t *t, const ent_opts *o0, ent_info *info)
{
	ent_opts o = *o0;
	o.fixed = t;
	return ref_entropy(x, 3079, 10, SPLITZIP_FLAG_CONTENT_CHECKSUM, &o, info);
}

static void invalid_header(buf Z, const ent_info *I)
{
	const splitzip_status COR = SPLITZIP_ERROR_CORRUPT_STREAM;
	invalid("entropy_escape_length_0", COR, with_field(Z, 30, 0, 1));
	invalid("entropy_escape_length_12", COR, with_field(Z, 30, 12, 1));
	invalid("entropy_table_first_above_last", COR, with_field(Z, 28, I->last + 1, 1));
	invalid("entropy_reserved_byte_31", COR, with_field(Z, 31, 1, 1));
	invalid("entropy_reserved_byte_39", COR, with_field(Z, 39, 0x80, 1));
	invalid("entropy_escape_count_above_elements", COR, with_field(Z, 12, 3080, 4));
	invalid("entropy_stream_words_plus_8", COR, with_field(Z, 24, I->n_words + 8, 4));
	invalid("entropy_frame_size_plus_16", COR, with_field(Z, 40, Z.n + 16, 8));
	invalid("entropy_mode_3", SPLITZIP_ERROR_UNSUPPORTED_FORMAT, with_field(Z, 6, 3, 1));
	invalid("entropy_truncated_body", SPLITZIP_ERROR_TRUNCATED,
	        buf_prefix(Z, (size_t)I->stream_off));
	invalid("entropy_truncated_last_byte", SPLITZIP_ERROR_TRUNCATED, buf_prefix(Z, Z.n - 1));
}

static void invalid_body(buf Z, const ent_info *I)
{
	const splitzip_status COR = SPLITZIP_ERROR_CORRUPT_STREAM;
	invalid("entropy_pad_sign_mantissa_gap", COR, with_xor(Z, I->lengths_off - 1, 0x01));
	invalid("entropy_pad_chunk_table_gap", COR, with_xor(Z, I->stream_off - 1, 0x01));
	invalid("entropy_pad_frame_last_byte", COR, with_xor(Z, Z.n - 1, 0x80));
	/* Code lengths: a nibble above 11; one more bit (incomplete); one fewer (oversubscribed).
	 */
	invalid("entropy_length_nibble_12", COR, with_xor(Z, I->lengths_off, 0x0F ^ 0x03));
	buf b = buf_copy(Z);
	uint8_t *lp = b.p + I->lengths_off;
	const uint64_t K = I->last - I->first + 1;
	for (uint64_t k = 0; k < K; k++) { /* the first nonzero length below 11, plus one */
		unsigned v = (lp[k / 2] >> (4 * (k % 2))) & 0xF;
		if (v && v < 11) {
			lp[k / 2] = (uint8_t)(lp[k / 2] + (1u << (4 * (k % 2))));
			break;
		}
	}
	invalid("entropy_code_incomplete", COR, b);
	b = buf_copy(Z);
	lp = b.p + I->lengths_off;
	for (uint64_t k = 0; k < K; k++) { /* the first length above 1, minus one */
		unsigned v = (lp[k / 2] >> (4 * (k % 2))) & 0xF;
		if (v > 1) {
			lp[k / 2] = (uint8_t)(lp[k / 2] - (1u << (4 * (k % 2))));
			break;
		}
	}
	invalid("entropy_code_oversubscribed", COR, b);
	/* Chunk table (4 chunks): decreasing; last entry not Stream_Words; a word moved. */
	b = buf_copy(Z);
	set_le(b, I->table_off, get_le(Z, I->table_off + 4, 4) + 1, 4);
	invalid("entropy_chunk_table_decreasing", COR, b);
	b = buf_copy(Z);
	set_le(b, I->table_off + 4 * (I->n_chunks - 1), I->n_words - 1, 4);
	invalid("entropy_chunk_table_last_not_words", COR, b);
	b = buf_copy(Z);
	set_le(b, I->table_off, get_le(Z, I->table_off, 4) - 1, 4);
	invalid("entropy_chunk_words_short", COR, b);
	b = buf_copy(Z);
	set_le(b, I->table_off, get_le(Z, I->table_off, 4) + 1, 4);
	invalid("entropy_chunk_words_long", COR, b);
	if (I->pad_byte < 0)
		die("entropy base", "no unused lane bit in chunk 0");
	invalid("entropy_lane_padding_bit", COR, with_xor(Z, (uint64_t)I->pad_byte, 0x80));
	invalid("entropy_escape_count_plus_1", COR, with_field(Z, 12, I->E + 1, 4));
	invalid("entropy_escape_count_minus_1", COR, with_field(Z, 12, I->E - 1, 4));
	invalid("entropy_checksum_sign_mantissa_flipped", SPLITZIP_ERROR_CONTENT_CHECKSUM,
	        with_xor(Z, I->sm_off + 7, 0x01));
	invalid("entropy_checksum_field_flipped", SPLITZIP_ERROR_CONTENT_CHECKSUM,
	        with_field(Z, 48, get_le(Z, 48, 8) ^ 1, 8));
}

/* Frames the reference writer breaks on purpose: each rule of §4.3.3-§4.3.6 and §6.3. */
static void invalid_written(const uint16_t *x, const uint8_t *t)
{
	const splitzip_status COR = SPLITZIP_ERROR_CORRUPT_STREAM;
	ent_opts o;
	ent_info I;
	ent_opts_init(&o);
	o.first = 0; /* the range starts below the first coded exponent */
	o.last = 255;
	invalid("entropy_table_range_not_exact", COR, base_with(x, t, &o, &I));
	ent_opts_init(&o);
	o.force_escape = 1500; /* an escape for an exponent that has a code */
	invalid("entropy_escape_of_coded_exponent", COR, base_with(x, t, &o, &I));
	ent_opts_init(&o);
	o.extra_word = 1; /* chunk 1 has a word its decoder never reads */
	invalid("entropy_extra_word", COR, base_with(x, t, &o, &I));
	ent_opts_init(&o);
	o.sum_override = 1; /* the checksum of other content: escape 0 -> 2 */
	{
		uint16_t *y = (uint16_t *)xcalloc(3079 * 2);
		memcpy(y, x, 3079 * 2);
		ent_info J;
		buf good = base_with(x, t, &o, &J);
		o.sum = get_le(good, 48, 8);
		free(good.p);
		set_exponent(y, 5, 2); /* element 5 is an escape with exponent 0 */
		invalid("entropy_checksum_escape_exponent_changed", SPLITZIP_ERROR_CONTENT_CHECKSUM,
		        base_with(y, t, &o, &I));
		free(y);
	}
}

void gen_entropy_invalid(const uint16_t *kv, size_t kv_n)
{
	uint16_t *x = (uint16_t *)xcalloc(4096 * 2);
	uint8_t t[R_SYMS];
	(void)kv_n;
	base_data(kv, x, t);
	ent_opts o;
	ent_opts_init(&o);
	ent_info I;
	buf Z = base_with(x, t, &o, &I);
	if (I.n_chunks != 4 || I.E < 2)
		die("entropy base", "expected 4 chunks and escapes");
	invalid_header(Z, &I);
	{ /* The pad nibble after an odd number of code lengths: Appendix C's frame (K = 3). */
		uint16_t y[160];
		uint8_t ta[R_SYMS];
		appendix_data(y);
		appendix_table(ta);
		ent_info A;
		o.fixed = ta;
		buf a = ref_entropy(y, 160, 12, SPLITZIP_FLAG_CONTENT_CHECKSUM, &o, &A);
		o.fixed = NULL;
		invalid("entropy_pad_lengths_nibble", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(a, A.lengths_off + 1, 0x10));
		invalid("entropy_pad_lengths_gap", SPLITZIP_ERROR_CORRUPT_STREAM,
		        with_xor(a, A.lengths_off + 2, 0x01));
		free(a.p);
	}
	invalid_body(Z, &I);
	invalid_written(x, t);
	/* §6.3: an entropy frame of 121 real values is not smaller than the stored frame. */
	ent_opts_init(&o);
	invalid("entropy_not_smaller_than_stored", SPLITZIP_ERROR_CORRUPT_STREAM,
	        ref_entropy(kv, 121, 12, 0, &o, NULL));
	free(Z.p);
	free(x);
}
