/*
 * sz_entropy.h -- the entropy tables of frame mode 2 (doc/FORMAT.md §5.2-§5.4, §9.2): code
 * lengths by package-merge, canonical codes, completeness, and the encoder and decoder tables
 * a backend receives.
 *
 * The helpers marked SPLITZIP_HD are header-only, so that backends compiled with other ISA
 * flags and the GPU kernels can include them; the GPU kernels use splitzip_entropy_reverse only
 * (backends/gpu/sz_gpu_entropy.cuh has its own block-parallel package-merge and code
 * assignment, held to these by the SIMT suites). The host-only functions are in
 * core/sz_entropy.c.
 *
 * Symbols: 0..255 are the exponents, 256 (SPLITZIP_ENTROPY_ESC) is the escape symbol, coded
 * before the 8 raw bits of an exponent that has no code of its own.
 */
#ifndef SZ_ENTROPY_H
#define SZ_ENTROPY_H

#include "sz_common.h"
#include "sz_layout.h"

#define SZ_ENTROPY_L SPLITZIP_ENTROPY_MAX_CODE_LENGTH         /* 11 */
#define SZ_ENTROPY_LUT_SIZE (1u << SPLITZIP_ENTROPY_LUT_BITS) /* 2048 */

/* ---- Canonical codes (FORMAT.md §5.3) ---------------------------------------------------- */

/* The low n bits of x in reverse order (n <= 16): a code written first bit first, LSB first. */
SPLITZIP_HD uint32_t splitzip_entropy_reverse(uint32_t x, unsigned n)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < n; i++)
		r |= ((x >> i) & 1u) << (n - 1 - i);
	return r;
}

/*
 * 1 if the 257 code lengths form a valid table (FORMAT.md §5.4): every length at most 11, the
 * escape symbol coded, and a complete code (the sum of 2^(11 - len) over the nonzero lengths
 * is exactly 2^11). Such a code decodes every bit string: a decoder never meets an unused code.
 */
SPLITZIP_HD int splitzip_entropy_complete(const uint8_t len[SPLITZIP_ENTROPY_SYMBOLS])
{
	uint32_t kraft = 0;
	if (len[SPLITZIP_ENTROPY_ESC] == 0)
		return 0;
	for (unsigned s = 0; s < SPLITZIP_ENTROPY_SYMBOLS; s++) {
		if (len[s] > SZ_ENTROPY_L)
			return 0;
		if (len[s])
			kraft += 1u << (SZ_ENTROPY_L - len[s]);
	}
	return kraft == (1u << SZ_ENTROPY_L);
}

/*
 * The canonical code of each symbol (FORMAT.md §5.3), as an integer whose most significant of
 * len[s] bits is the first bit of the code: codes of the same length are consecutive in symbol
 * order, and every code of length l + 1 comes after every code of length l. For a table that
 * passes splitzip_entropy_complete().
 */
SPLITZIP_HD void splitzip_entropy_codes(const uint8_t len[SPLITZIP_ENTROPY_SYMBOLS],
                                        uint16_t code[SPLITZIP_ENTROPY_SYMBOLS])
{
	unsigned count[SZ_ENTROPY_L + 1] = {0};
	uint32_t next[SZ_ENTROPY_L + 1];
	for (unsigned s = 0; s < SPLITZIP_ENTROPY_SYMBOLS; s++)
		count[len[s]]++;
	count[0] = 0;
	uint32_t c = 0;
	for (unsigned l = 1; l <= SZ_ENTROPY_L; l++) {
		c = (c + count[l - 1]) << 1;
		next[l] = c;
	}
	for (unsigned s = 0; s < SPLITZIP_ENTROPY_SYMBOLS; s++)
		code[s] = len[s] ? (uint16_t)next[len[s]]++ : 0;
}

/* ---- Code lengths by package-merge (FORMAT.md §5.2) ------------------------------------- */

/*
 * Length-limited Huffman code lengths (at most 11 bits) of the symbols with a nonzero weight,
 * by package-merge, with the tie rules of FORMAT.md §5.2: symbols ordered by (weight, symbol),
 * and in each merged list a symbol before a package of equal weight. Symbols of weight 0 get
 * length 0. Returns the number of coded symbols, or 0 (all lengths 0) when fewer than two
 * weights are nonzero. Needs no allocation (about 14 KB of stack). The reference for the GPU
 * encoder's block-parallel package-merge (sz_ent_package_merge), which must give the same
 * lengths.
 */
SPLITZIP_HD unsigned splitzip_entropy_package_merge(const uint64_t w[SPLITZIP_ENTROPY_SYMBOLS],
                                                    uint8_t len[SPLITZIP_ENTROPY_SYMBOLS])
{
	enum { N = SPLITZIP_ENTROPY_SYMBOLS, MAXLIST = 2 * SPLITZIP_ENTROPY_SYMBOLS };
	uint16_t leaf[N];
	uint64_t wa[MAXLIST], wb[MAXLIST];
	uint8_t pkg[SZ_ENTROPY_L][MAXLIST]; /* 1 where list k holds a package */
	unsigned m = 0;
	for (unsigned s = 0; s < N; s++) {
		len[s] = 0;
		if (w[s]) { /* insertion sort by (weight, symbol): s is the largest symbol so far */
			unsigned j = m++;
			while (j > 0 && w[leaf[j - 1]] > w[s]) {
				leaf[j] = leaf[j - 1];
				j--;
			}
			leaf[j] = (uint16_t)s;
		}
	}
	if (m < 2)
		return 0;
	uint64_t *prev = wa, *cur = wb;
	unsigned n_prev = 0;
	for (unsigned k = 0; k < SZ_ENTROPY_L; k++) {
		/* List k: the symbols merged with the packages (pairs) of list k - 1. */
		unsigned np = n_prev / 2, a = 0, b = 0, o = 0;
		while (a < m || b < np) {
			uint64_t pw = b < np ? prev[2 * b] + prev[2 * b + 1] : 0;
			int take_leaf = b >= np || (a < m && w[leaf[a]] <= pw);
			cur[o] = take_leaf ? w[leaf[a]] : pw;
			pkg[k][o++] = (uint8_t)!take_leaf;
			a += take_leaf;
			b += !take_leaf;
		}
		n_prev = o;
		uint64_t *t = prev;
		prev = cur;
		cur = t;
	}
	/* Select the first 2m - 2 items of the last list; each package selected there selects
	 * two items of the list before it. A symbol's length is the number of lists in which it
	 * is selected, and the symbols selected in a list are always the first ones in order. */
	unsigned take = 2 * m - 2;
	for (int k = SZ_ENTROPY_L - 1; k >= 0 && take > 0; k--) {
		unsigned p = 0;
		for (unsigned i = 0; i < take; i++)
			p += pkg[k][i];
		for (unsigned i = 0; i < take - p; i++)
			len[leaf[i]]++;
		take = 2 * p;
	}
	return m;
}

/* ---- Tables for the kernels --------------------------------------------------------------- */

/* An encoder table entry: the bits to write, first bit in bit 0. */
#define SPLITZIP_ENTROPY_ENC_LEN_SHIFT 16
#define SPLITZIP_ENTROPY_ENC_ESCAPE (1u << 31) /* then the 8 raw bits of the exponent */

/*
 * What an encode kernel receives (core/sz_entropy.c: splitzip_entropy_enc_init). For exponent
 * e, sym[e] holds the bits of its code, first bit in bit 0 (the canonical code bit-reversed),
 * its length at SPLITZIP_ENTROPY_ENC_LEN_SHIFT and, for an exponent without a code of its own,
 * SPLITZIP_ENTROPY_ENC_ESCAPE with the escape symbol's code and length instead.
 */
typedef struct splitzip_entropy_enc_tables {
	uint32_t sym[256];
} splitzip_entropy_enc_tables;

/* A decoder table entry: the symbol (0..256) and the length of its code. */
#define SPLITZIP_ENTROPY_DEC_SYM_MASK 0x1FFu
#define SPLITZIP_ENTROPY_DEC_LEN_SHIFT 16

/*
 * What a decode kernel receives (core/sz_entropy.c: splitzip_entropy_dec_init), from a valid
 * table. lut[x], for the next 11 bits x of a lane (first bit in bit 0), is the symbol whose code
 * they start with, | its length << SPLITZIP_ENTROPY_DEC_LEN_SHIFT. The code is complete, so
 * every entry is a symbol. coded[e] is 1 if exponent e has a code of its own: an escape whose
 * raw exponent is coded is invalid (FORMAT.md §4.3.6). raw_bits: the width of an escape's raw
 * exponent, SPLITZIP_ENTROPY_RAW_BITS (8) for BF16 and FP32; the dtype decoder sets it to the
 * exponent width of the other dtypes (§2.4: 5 for FP16 and E5M2, 4 for E4M3), which is also the
 * refill threshold before those bits. esc_code and esc_len: the escape symbol's code, first bit
 * in bit 0 (as lut indexes it), and its length: a lane decodes the escape symbol exactly when
 * its next esc_len bits are esc_code, which a SIMD decoder tests without the table.
 * long_space: how many of the 2048 values of lut start with a code of more than 7 bits; a
 * canonical code puts those codes last in the code space, so when long_space <= 64 they all
 * begin with the bits 11111 (a SIMD decoder with a 7-bit table and a table of the 6 bits after
 * 11111 holds every code), and the share of lanes that need more is long_space / 2048.
 */
typedef struct splitzip_entropy_dec_tables {
	uint32_t lut[SZ_ENTROPY_LUT_SIZE];
	uint8_t coded[256];
	uint8_t raw_bits;
	uint8_t esc_len;
	uint16_t esc_code;
	uint16_t long_space;
} splitzip_entropy_dec_tables;

/* The 257 lengths of a public table (exponents, then the escape symbol). */
SPLITZIP_HD void splitzip_entropy_lengths_of(const splitzip_entropy_table *t,
                                             uint8_t len[SPLITZIP_ENTROPY_SYMBOLS])
{
	for (unsigned e = 0; e < 256; e++)
		len[e] = t->lengths[e];
	len[SPLITZIP_ENTROPY_ESC] = t->escape_length;
}

/* ---- Host functions (core/sz_entropy.c) --------------------------------------------------- */

/* 1 if 't' is a valid table (FORMAT.md §5.4), else 0. */
SZ_INTERNAL int splitzip_entropy_table_ok(const splitzip_entropy_table *t);

/* The canonical table of a histogram (FORMAT.md §5.2): 0 if the histogram is all zero, or if
 * its counts add up to 2^59 or more (a frame's add up to at most 2^32 - 1). */
SZ_INTERNAL int splitzip_entropy_table_select(const uint64_t hist[256], splitzip_entropy_table *t);

/* Encoder and decoder tables of a valid table. */
SZ_INTERNAL void splitzip_entropy_enc_init(splitzip_entropy_enc_tables *enc,
                                           const splitzip_entropy_table *t);
SZ_INTERNAL void splitzip_entropy_dec_init(splitzip_entropy_dec_tables *dec,
                                           const splitzip_entropy_table *t);

/*
 * The table of the entropy frame at 'frame', whose header 'h' is valid and whose code-length
 * section lies inside the input (FORMAT.md §4.3.3): 1 and '*t' if the nibbles are at most 11,
 * the first and the last nonzero, the pad nibble zero and the code complete; else 0.
 */
SZ_INTERNAL int splitzip_entropy_frame_table(const uint8_t *frame, const splitzip_header *h,
                                             splitzip_entropy_table *t);

/* The code-length section of a valid table: writes ceil(K/2) bytes (K nibbles) and stores the
 * exponent range it covers. */
SZ_INTERNAL size_t splitzip_entropy_lengths_write(const splitzip_entropy_table *t, uint8_t *out,
                                                  unsigned *first, unsigned *last);

/* The table file (FORMAT.md §9.2): write SPLITZIP_ENTROPY_TABLE_FILE_SIZE bytes of a valid
 * table; read one back (BAD_CODEBOOK or TRUNCATED on failure, '*t' untouched). */
SZ_INTERNAL void splitzip_entropy_file_write(const splitzip_entropy_table *t,
                                             uint8_t out[SPLITZIP_ENTROPY_TABLE_FILE_SIZE]);
SZ_INTERNAL splitzip_status splitzip_entropy_file_read(const uint8_t *src, size_t src_size,
                                                       splitzip_entropy_table *t);

#endif /* SZ_ENTROPY_H */
