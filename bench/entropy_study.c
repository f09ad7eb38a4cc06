/*
 * entropy_study.c -- the measurement behind frame mode 2 (doc/FORMAT.md §4.3, doc/BENCHMARKS.md
 * "Entropy mode: choosing the parameters"). Standalone C (libc only), so it measures the design
 * space independently of the library that implements one point of it.
 *
 * For each input file, each frame of --frame-elems elements gets its own table (per-frame
 * tables), and the exact frame size of a mode-2-like layout is computed for every combination of
 *   - code-length limit (package-merge, FORMAT.md §5.2): 8, 11, 12, and unlimited (Huffman);
 *   - chunk size: 2^12, 2^14 elements;
 *   - lanes: 32 (the format), plus 1 and 64 for reference;
 *   - word size: 16 bits (the format), plus 8 and 32 for reference.
 * Sizes are exact: header, sign/mantissa plane, code-length table, chunk table, the words the
 * decoder of FORMAT.md §4.3.5 requests (lane refills, tail words), and 16-byte alignment.
 * The split4 size (top-16 codebook) and the order-0 entropy bound of the exponent plus 8 raw
 * bits per element are printed next to them.
 *
 *   entropy_study [--frame-elems N] FILE.bf16...
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSYM 257 /* 256 exponents + the escape symbol */
#define ESC 256
#define MAXL 32

static uint64_t al16(uint64_t x)
{
	return (x + 15) & ~(uint64_t)15;
}

/* Package-merge code lengths (FORMAT.md §5.2): leaves sorted by (weight, symbol), a leaf before
 * a package of equal weight; returns the number of coded symbols, 0 if the limit is too small. */
static int lengths_pm(const uint64_t w[NSYM], unsigned lmax, uint8_t len[NSYM])
{
	static uint64_t lw[MAXL][2 * NSYM];
	static int lsym[MAXL][2 * NSYM]; /* symbol, or -1 for a package */
	static int lcnt[MAXL];
	int leaf[NSYM], m = 0;
	memset(len, 0, NSYM);
	for (int s = 0; s < NSYM; s++)
		if (w[s])
			leaf[m++] = s;
	for (int i = 1; i < m; i++) /* insertion sort by (weight, symbol): stable */
		for (int j = i; j > 0 && w[leaf[j - 1]] > w[leaf[j]]; j--) {
			int t = leaf[j];
			leaf[j] = leaf[j - 1];
			leaf[j - 1] = t;
		}
	if (m < 2 || (uint64_t)m > ((uint64_t)1 << lmax))
		return 0;
	for (unsigned k = 0; k < lmax; k++) {
		int np = k ? lcnt[k - 1] / 2 : 0, a = 0, b = 0, o = 0;
		while (a < m || b < np) {
			uint64_t pw = b < np ? lw[k - 1][2 * b] + lw[k - 1][2 * b + 1] : 0;
			if (b >= np || (a < m && w[leaf[a]] <= pw)) {
				lw[k][o] = w[leaf[a]];
				lsym[k][o++] = leaf[a++];
			} else {
				lw[k][o] = pw;
				lsym[k][o++] = -1;
				b++;
			}
		}
		lcnt[k] = o;
	}
	int take = 2 * m - 2;
	for (int k = (int)lmax - 1; k >= 0 && take > 0; k--) {
		int p = 0;
		for (int i = 0; i < take; i++) {
			if (lsym[k][i] >= 0)
				len[lsym[k][i]]++;
			else
				p++;
		}
		take = 2 * p;
	}
	return m;
}

/* Words of one chunk: lane l takes elements l, l+lanes, ...; before each symbol a lane with
 * fewer than lmax bits reads a word; after an escape symbol, one with fewer than 8 bits reads a
 * word before the 8 raw bits. */
static uint64_t chunk_words(const uint8_t *sym_len, const uint8_t *is_esc, size_t n, unsigned lanes,
                            unsigned lmax, unsigned wbits)
{
	unsigned cnt[64] = {0};
	uint64_t words = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned l = (unsigned)(i % lanes);
		while (cnt[l] < lmax) {
			cnt[l] += wbits;
			words++;
		}
		cnt[l] -= sym_len[i];
		if (is_esc[i]) {
			while (cnt[l] < 8) {
				cnt[l] += wbits;
				words++;
			}
			cnt[l] -= 8;
		}
	}
	return words;
}

typedef struct cfg {
	unsigned lmax, log2, lanes, wbits;
	uint64_t bytes; /* summed over all files */
} cfg;

static cfg cfgs[] = {
    {8, 12, 32, 16, 0},  {8, 14, 32, 16, 0},  {11, 12, 32, 16, 0}, {11, 14, 32, 16, 0},
    {12, 12, 32, 16, 0}, {12, 14, 32, 16, 0}, {32, 12, 32, 16, 0}, {32, 14, 32, 16, 0},
    {11, 14, 1, 16, 0},  {11, 14, 64, 16, 0}, {11, 12, 32, 8, 0},  {11, 14, 32, 8, 0},
    {11, 14, 32, 32, 0},
};
#define NCFG (sizeof cfgs / sizeof cfgs[0])

/* The exact size of one frame of n elements under configuration c. */
static uint64_t frame_size(const uint16_t *v, size_t n, const cfg *c, uint8_t *sl, uint8_t *se)
{
	uint64_t w[NSYM] = {0};
	uint8_t len[NSYM];
	for (size_t i = 0; i < n; i++)
		w[(v[i] >> 7) & 0xFF]++;
	w[ESC] = 1;
	if (!lengths_pm(w, c->lmax, len)) { /* 8 bits: too many symbols; never on this data */
		fprintf(stderr, "limit %u too small for %zu elements\n", c->lmax, n);
		exit(1);
	}
	int lo = 255, hi = 0;
	for (int s = 0; s < 256; s++)
		if (len[s]) {
			lo = s < lo ? s : lo;
			hi = s > hi ? s : hi;
		}
	for (size_t i = 0; i < n; i++) {
		unsigned e = (v[i] >> 7) & 0xFF;
		se[i] = len[e] == 0;
		sl[i] = len[e] ? len[e] : len[ESC];
	}
	unsigned thr = 0;
	for (int s = 0; s < NSYM; s++)
		thr = len[s] > thr ? len[s] : thr;
	uint64_t C = (n + ((size_t)1 << c->log2) - 1) >> c->log2, W = 0;
	for (uint64_t k = 0; k < C; k++) {
		size_t e0 = (size_t)k << c->log2,
		       m = n - e0 < ((size_t)1 << c->log2) ? n - e0 : (size_t)1 << c->log2;
		W += chunk_words(sl + e0, se + e0, m, c->lanes, thr, c->wbits);
	}
	uint64_t off = al16(64 + n);                   /* sign/mantissa plane */
	off = al16(off + (uint64_t)(hi - lo + 2) / 2); /* code lengths, a nibble each */
	off = al16(off + 4 * C);                       /* chunk table */
	return al16(off + W * c->wbits / 8);
}

static uint64_t split4_size(const uint16_t *v, size_t n, unsigned log2)
{
	uint64_t h[256] = {0}, top = 0;
	for (size_t i = 0; i < n; i++)
		h[(v[i] >> 7) & 0xFF]++;
	for (int k = 0; k < 16; k++) { /* the 16 largest counts */
		int b = 0;
		for (int e = 1; e < 256; e++)
			if (h[e] > h[b])
				b = e;
		top += h[b];
		h[b] = 0;
	}
	uint64_t E = n - top, C = (n + ((size_t)1 << log2) - 1) >> log2;
	uint64_t off = al16(64 + (n + 1) / 2);
	off = al16(off + n);
	off = al16(off + 4 * C);
	off = al16(off + 2 * E);
	uint64_t s = al16(off + E), stored = 64 + al16(2 * n);
	return s < stored ? s : stored;
}

static double entropy_bits(const uint16_t *v, size_t n)
{
	uint64_t h[256] = {0};
	for (size_t i = 0; i < n; i++)
		h[(v[i] >> 7) & 0xFF]++;
	double H = 0;
	for (int e = 0; e < 256; e++)
		if (h[e])
			H -= (double)h[e] * log2((double)h[e] / (double)n);
	return H;
}

int main(int argc, char **argv)
{
	size_t frame = (size_t)1 << 24;
	int a = 1;
	if (a + 1 < argc && !strcmp(argv[a], "--frame-elems")) {
		frame = (size_t)strtoull(argv[a + 1], NULL, 0);
		a += 2;
	}
	if (a >= argc || !frame) {
		fprintf(stderr, "usage: entropy_study [--frame-elems N] FILE.bf16...\n");
		return 2;
	}
	printf("%-36s %8s %7s %7s", "file", "elems", "H(exp)", "bound");
	printf(" %7s", "split4");
	for (size_t k = 0; k < NCFG; k++) {
		char h[32];
		snprintf(h, sizeof h, "L%u/%uK/%u/w%u", cfgs[k].lmax == 32 ? 99 : cfgs[k].lmax,
		         (1u << cfgs[k].log2) / 1024, cfgs[k].lanes, cfgs[k].wbits);
		printf(" %14s", h);
	}
	printf("\n");
	uint64_t tot_in = 0, tot_s4 = 0;
	double tot_bound = 0;
	for (; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		if (!f) {
			perror(argv[a]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		size_t n = (size_t)ftell(f) / 2;
		fseek(f, 0, SEEK_SET);
		uint16_t *v = malloc(n * 2 + 2);
		uint8_t *sl = malloc(n + 1), *se = malloc(n + 1);
		if (!v || !sl || !se || fread(v, 2, n, f) != n)
			return 1;
		fclose(f);
		double Hb = 0;
		uint64_t s4 = 0;
		for (size_t e0 = 0; e0 < n; e0 += frame) {
			size_t m = n - e0 < frame ? n - e0 : frame;
			Hb += entropy_bits(v + e0, m) + 8.0 * (double)m;
			s4 += split4_size(v + e0, m, 12);
		}
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
		printf("%-36.36s %8zu %7.3f %7.4f %7.4f", base, n, Hb / (double)n - 8.0,
		       16.0 * (double)n / Hb, 2.0 * (double)n / (double)s4);
		for (size_t k = 0; k < NCFG; k++) {
			uint64_t sz = 0;
			for (size_t e0 = 0; e0 < n; e0 += frame) {
				size_t m = n - e0 < frame ? n - e0 : frame;
				sz += frame_size(v + e0, m, &cfgs[k], sl, se);
			}
			cfgs[k].bytes += sz;
			printf(" %7.4f(%5.2f%%)", 2.0 * (double)n / (double)sz,
			       100.0 * (1.0 - Hb / 8.0 / (double)sz));
		}
		printf("\n");
		tot_in += 2 * n;
		tot_s4 += s4;
		tot_bound += Hb / 8.0;
		free(v);
		free(sl);
		free(se);
	}
	printf("%-36s %8s %7s %7.4f %7.4f", "all files", "", "", (double)tot_in / tot_bound,
	       (double)tot_in / (double)tot_s4);
	for (size_t k = 0; k < NCFG; k++)
		printf(" %7.4f(%5.2f%%)", (double)tot_in / (double)cfgs[k].bytes,
		       100.0 * (1.0 - tot_bound / (double)cfgs[k].bytes));
	printf("\n(ratio, and in parentheses how far the frame is above the order-0 bound)\n");
	return 0;
}
