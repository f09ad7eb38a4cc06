/*
 * sz_simd_common.h -- scalar helpers shared by the SIMD backends. Everything here is static
 * inline (or a macro), so each backend translation unit compiles its own copy with its own ISA
 * flags and no ISA-specific code can be merged across translation units by the linker. The
 * vector code shared by the backends is in the templates sz_hist_template.h and
 * sz_chunk_template.h.
 */
#ifndef SZ_SIMD_COMMON_H
#define SZ_SIMD_COMMON_H

#include "../core/sz_kernels.h"

#if defined(__GNUC__) || defined(__clang__)
#define SZ_ALWAYS_INLINE inline __attribute__((always_inline))
#define SZ_NOINLINE __attribute__((noinline)) /* a rare path kept out of a hot loop */
#else
#define SZ_ALWAYS_INLINE inline
#define SZ_NOINLINE
#endif

/* Name pasting for the templates (sz_*_template.h): SZ_PASTE(avx2, histogram) is
 * avx2_histogram, after the arguments are expanded. */
#define SZ_PASTE_(a, b) a##_##b
#define SZ_PASTE(a, b) SZ_PASTE_(a, b)

/*
 * Encoder paths, fastest first; the chunk template (sz_chunk_template.h) picks one per chunk
 * from the codebook, and every backend's block kernel takes it as a compile-time constant:
 * a contiguous codebook (code = e - base), one spanning at most 32 exponent values (a 32-entry
 * table indexed by e - base), any codebook.
 */
enum { SZ_WINDOW16 = 0, SZ_WINDOW32 = 1, SZ_ANY = 2 };

/*
 * The table of the SZ_WINDOW32 path: entry d is the code of exponent codebook[0] + d, or 0x80
 * for a value between members that is not one.
 */
static inline void sz_window32_table(const splitzip_enc_tables *t, uint8_t win[32])
{
	for (unsigned d = 0; d < 32; d++) {
		unsigned e = (t->base + d) & 0xFF;
		win[d] = (uint8_t)(t->is_escape[e] ? 0x80 : t->code_of[e]);
	}
}

/*
 * Exact exponent histogram with four interleaved sub-tables. With one table, consecutive
 * elements with the same exponent (the common case in KV data) serialise on store-to-load
 * forwarding. The u32 counters are flushed every 2^28 elements, so they cannot wrap.
 */
static inline void sz_hist_scalar(const uint16_t *src, size_t n, uint64_t hist[256])
{
	uint32_t h[4][256];
	while (n) {
		size_t m = n < ((size_t)1 << 28) ? n : ((size_t)1 << 28), i = 0;
		memset(h, 0, sizeof h);
		for (; i + 4 <= m; i += 4) {
			h[0][splitzip_bf16_exponent(src[i])]++;
			h[1][splitzip_bf16_exponent(src[i + 1])]++;
			h[2][splitzip_bf16_exponent(src[i + 2])]++;
			h[3][splitzip_bf16_exponent(src[i + 3])]++;
		}
		for (; i < m; i++)
			h[0][splitzip_bf16_exponent(src[i])]++;
		for (unsigned e = 0; e < 256; e++)
			hist[e] += (uint64_t)h[0][e] + h[1][e] + h[2][e] + h[3][e];
		src += m;
		n -= m;
	}
}

/*
 * The SIMD histograms count the 16 exponents of a window [w, w + 15] with vector compares and
 * send the rest to the scalar path one by one. sz_hist_window() picks w as the window that
 * holds most of the first 'n' elements (KV data: the codebook window). The result is exact
 * for any w; w only decides how fast it is.
 */
static inline unsigned sz_hist_window(const uint16_t *src, size_t n)
{
	uint32_t s[256] = {0};
	for (size_t i = 0; i < n; i++)
		s[splitzip_bf16_exponent(src[i])]++;
	uint32_t cur = 0;
	for (unsigned e = 0; e < 16; e++)
		cur += s[e];
	uint32_t best = cur;
	unsigned w = 0;
	for (unsigned b = 1; b <= 240; b++) {
		cur += s[b + 15] - s[b - 1];
		if (cur > best) {
			best = cur;
			w = b;
		}
	}
	return w;
}

/* Elements sampled to choose the window; the block after which the SIMD histogram picks a new
 * window if more than 1/SZ_HIST_MOVED of its elements fell outside the old one, and gives up
 * on windows for a while if more than 1/8 fell outside a new one (then the data has no
 * dominant window and the scalar tables are faster). */
#define SZ_HIST_SAMPLE 2048u
#define SZ_HIST_BLOCK 16384u
#define SZ_HIST_MOVED 64u

/* ---- Mode 2 (the entropy kernels of every SIMD backend) --------------------------------- */

/*
 * The encoder entries of the SIMD kernels, 16 bits: the code (first bit in bit 0, at most 11
 * bits) | its length << 11 | 1 << 15 for an escape. From an entry of splitzip_entropy_enc_tables.
 */
#define SZ_ENT_E16_LEN_SHIFT 11
#define SZ_ENT_E16_ESC 0x8000u
static inline uint16_t sz_ent_e16(uint32_t sym)
{
	return (uint16_t)((sym & 0x7FF) |
	                  ((sym >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xF) << SZ_ENT_E16_LEN_SHIFT |
	                  (sym & SPLITZIP_ENTROPY_ENC_ESCAPE ? SZ_ENT_E16_ESC : 0));
}

/*
 * The window of w consecutive exponents [*base, *base + w) that an encoder looks up in
 * registers: the one with the largest sum of 2^-len over its coded exponents (the code lengths
 * stand for the frequencies). tab[d] is the entry of exponent *base + d; for w <= 256 the window
 * ends at 255 at most (*base <= 256 - w: the AVX-512 encoder relies on it), a wider one has the
 * escape's entry past 255. Returns 1 if every exponent outside the window is an escape (then its
 * entry is the escape's, tab-independent), 0 if some lanes must be looked up in the full table.
 */
static inline int sz_ent_enc_window(const splitzip_entropy_enc_tables *t, unsigned w, uint16_t *tab,
                                    unsigned *base, uint16_t *esc16)
{
	uint32_t weight[256], best = 0, cur = 0;
	unsigned b = 0, e_esc = 256;
	for (unsigned e = 0; e < 256; e++) {
		const uint32_t s = t->sym[e];
		weight[e] = s & SPLITZIP_ENTROPY_ENC_ESCAPE
		                ? 0
		                : 1u << (16 - ((s >> SPLITZIP_ENTROPY_ENC_LEN_SHIFT) & 0xF));
		if (s & SPLITZIP_ENTROPY_ENC_ESCAPE)
			e_esc = e;
	}
	for (unsigned e = 0; e < 256; e++) {
		cur += weight[e];
		if (e >= w)
			cur -= weight[e - w];
		if (e + 1 >= w && cur > best) {
			best = cur;
			b = e + 1 - w;
		}
	}
	if (w >= 256)
		b = 0;
	/* the escape's entry: that of any exponent without a code; a table with none never uses it
	 */
	*esc16 = e_esc < 256 ? sz_ent_e16(t->sym[e_esc]) : 0;
	for (unsigned d = 0; d < w; d++)
		tab[d] = b + d < 256 ? sz_ent_e16(t->sym[b + d]) : *esc16;
	*base = b;
	int out_esc = 1;
	for (unsigned e = 0; e < 256; e++)
		if ((e < b || e >= b + w) && !(t->sym[e] & SPLITZIP_ENTROPY_ENC_ESCAPE))
			out_esc = 0;
	return out_esc;
}

/* sz_ent_enc_window() for w <= 64, its entries split into low bytes (lo) and high bytes (hi),
 * for byte-table lookups (vpshufb, tbl). */
static inline int sz_ent_enc_window_bytes(const splitzip_entropy_enc_tables *t, unsigned w,
                                          uint8_t *lo, uint8_t *hi, unsigned *base, uint16_t *esc16)
{
	uint16_t tab[64];
	const int out_esc = sz_ent_enc_window(t, w, tab, base, esc16);
	for (unsigned d = 0; d < w; d++) {
		lo[d] = (uint8_t)tab[d];
		hi[d] = (uint8_t)(tab[d] >> 8);
	}
	return out_esc;
}

/*
 * The decoder's tables in nibbles, for byte shuffles of 16 entries: the first 4 bits of a lane
 * give len1[x] (the code length if at most 4, else 0) and sym1[x]; the next 4 bits, when the
 * first 4 are 'pre', give len2/sym2 for the codes of 5 to 8 bits that start with pre (0: a
 * longer code, or none). A length byte has bit 7 set for the escape symbol, whose symbol byte
 * is 0. 'pre' is the 4-bit prefix with the most frequent long codes (the largest sum of
 * 2^-len); a code of 5 to 8 bits with another prefix is looked up in the 2048-entry table.
 * A third level, len3/sym3, takes bits 8-10 of the codes of 9 to 11 bits that start with pre
 * and then one of two 4-bit prefixes, pre2a (index z) and pre2b (index z | 8), the two of the
 * most weight; any other code is looked up in the 2048-entry table.
 */
typedef struct sz_ent_nib {
	uint8_t len1[16], sym1[16], len2[16], sym2[16], len3[16], sym3[16];
	unsigned pre, pre2a, pre2b;
} sz_ent_nib;

static inline uint8_t sz_ent_nib_len(uint32_t e, unsigned max)
{
	const uint32_t len = e >> SPLITZIP_ENTROPY_DEC_LEN_SHIFT;
	if (len > max)
		return 0;
	return (uint8_t)(len |
	                 ((e & SPLITZIP_ENTROPY_DEC_SYM_MASK) == SPLITZIP_ENTROPY_ESC ? 0x80 : 0));
}

static inline void sz_ent_dec_nibbles(const splitzip_entropy_dec_tables *t, sz_ent_nib *k)
{
	uint32_t best = 0;
	k->pre = 0;
	for (unsigned x = 0; x < 16; x++) {
		k->len1[x] = sz_ent_nib_len(t->lut[x], 4);
		k->sym1[x] = (uint8_t)t->lut[x];
		/* A code of len <= 8 bits fills 2^(8 - len) of the 256 patterns of 8 bits and has
		 * a weight of 2^-len: each pattern it fills weighs 2^-8. So the weight of the
		 * codes of 5 to 8 bits that start with x is the number of patterns they fill. */
		uint32_t w = 0;
		for (unsigned y = 0; y < 16 && !k->len1[x]; y++)
			w += (t->lut[x | y << 4] >> SPLITZIP_ENTROPY_DEC_LEN_SHIFT) <= 8;
		if (w > best) {
			best = w;
			k->pre = x;
		}
	}
	/* The third level: bits 8-10 after pre and one of the two second nibbles (pre2a, pre2b)
	 * whose codes of 9 to 11 bits weigh most (index z | 8 for pre2b). */
	uint32_t w2[16] = {0};
	for (unsigned y = 0; y < 16; y++) {
		const uint32_t e = t->lut[k->pre | y << 4];
		k->len2[y] = k->len1[k->pre] ? 0 : sz_ent_nib_len(e, 8);
		k->sym2[y] = (uint8_t)e;
		for (unsigned z = 0; z < 8 && !k->len2[y] && !k->len1[k->pre]; z++)
			w2[y] += (t->lut[k->pre | y << 4 | z << 8] >>
			          SPLITZIP_ENTROPY_DEC_LEN_SHIFT) > 8;
	}
	k->pre2a = k->pre2b = 0;
	for (unsigned y = 1; y < 16; y++)
		if (w2[y] > w2[k->pre2a])
			k->pre2a = y;
	k->pre2b = k->pre2a == 0 ? 1 : 0;
	for (unsigned y = 0; y < 16; y++)
		if (y != k->pre2a && w2[y] > w2[k->pre2b])
			k->pre2b = y;
	for (unsigned j = 0; j < 16; j++) {
		const unsigned y = j < 8 ? k->pre2a : k->pre2b, z = j % 8;
		const uint32_t e = t->lut[k->pre | y << 4 | z << 8];
		k->len3[j] = k->len1[k->pre] || k->len2[y] ? 0 : sz_ent_nib_len(e, 11);
		k->sym3[j] = (uint8_t)e;
	}
}

/*
 * Constant expressions for the lane tables of the SIMD backends, over a mask m of 8 (or 4)
 * lanes: SZ_RANK(m, l) is the number of lanes of m below lane l; SZ_NTH(m, j) is the lane of
 * the j-th lane of m (0 if m has fewer than j + 1 lanes). SZ_TABLE256(X) lists X(0), ..., X(255).
 */
#define SZ_POPC8(x)                                                                                \
	(((x)&1) + (((x) >> 1) & 1) + (((x) >> 2) & 1) + (((x) >> 3) & 1) + (((x) >> 4) & 1) +     \
	 (((x) >> 5) & 1) + (((x) >> 6) & 1) + (((x) >> 7) & 1))
#define SZ_RANK(m, l) SZ_POPC8((m) & ((1u << (l)) - 1))
#define SZ_NTH(m, j)                                                                               \
	(SZ_RANK(m, 1) > (j)   ? 0                                                                 \
	 : SZ_RANK(m, 2) > (j) ? 1                                                                 \
	 : SZ_RANK(m, 3) > (j) ? 2                                                                 \
	 : SZ_RANK(m, 4) > (j) ? 3                                                                 \
	 : SZ_RANK(m, 5) > (j) ? 4                                                                 \
	 : SZ_RANK(m, 6) > (j) ? 5                                                                 \
	 : SZ_RANK(m, 7) > (j) ? 6                                                                 \
	 : SZ_RANK(m, 8) > (j) ? 7                                                                 \
	                       : 0)
#define SZ_TABLE4(X, m) X(m), X((m) + 1), X((m) + 2), X((m) + 3)
#define SZ_TABLE16(X, m)                                                                           \
	SZ_TABLE4(X, m), SZ_TABLE4(X, (m) + 4), SZ_TABLE4(X, (m) + 8), SZ_TABLE4(X, (m) + 12)
#define SZ_TABLE64(X, m)                                                                           \
	SZ_TABLE16(X, m), SZ_TABLE16(X, (m) + 16), SZ_TABLE16(X, (m) + 32), SZ_TABLE16(X, (m) + 48)
#define SZ_TABLE256(X) SZ_TABLE64(X, 0), SZ_TABLE64(X, 64), SZ_TABLE64(X, 128), SZ_TABLE64(X, 192)

#endif /* SZ_SIMD_COMMON_H */
