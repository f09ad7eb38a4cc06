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
#else
#define SZ_ALWAYS_INLINE inline
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

/* Elements sampled to choose the window, and the block after which the SIMD histogram gives
 * up on the window if more than 1/8 of the elements fell outside it (then the data has no
 * dominant window and the scalar tables are faster). */
#define SZ_HIST_SAMPLE 512u
#define SZ_HIST_BLOCK 16384u

#endif /* SZ_SIMD_COMMON_H */
