/*
 * sz_watch_template.h -- the code counter of the counting encoder (encode_count_chunk), written
 * once for every ISA: the byte counters of the watched code pairs (splitzip_watch), their
 * flush into wider totals and the final counts. sz_chunk_template.h drives it (cnt_init,
 * cnt_flush, cnt_finish); a backend's encode block kernel calls cnt_add on its code vectors.
 *
 * A template in the manner of sz_count_template.h, but included once per translation unit,
 * before the backend's block kernels (which call cnt_add) and sz_chunk_template.h (which uses
 * the rest), so its names have no prefix: cnt_state (the pair tables and the totals), cnt_acc
 * (the byte counters), cnt_init, cnt_add, cnt_flush and cnt_finish.
 *
 * The method. Each pair table maps a code to 1 (the pair's first watched code), 16 (its second)
 * or 0, so one table lookup and one byte add per code vector and pair count two codes, in the
 * two nibbles of a byte counter, with no branch; the chunk template flushes the counters into
 * the totals before a nibble could pass 15. The totals hold the first code's count in the low
 * 32 bits of each 64-bit lane and the second's in the high 32 bits: a chunk has at most 2^16
 * elements, so the low half never carries into the high one. The byte counters are named
 * fields, not an array, so that GCC keeps them in registers (as an array they went through the
 * stack on every block: 2.7x the plain kernel's time on AVX-512 with four tables).
 *
 * Parameters (all required; #undef'd at the end):
 *   SZ_WT_V            the vector of bytes
 *   SZ_WT_ZERO()       an all-zero vector
 *   SZ_WT_BCAST16(p)   the 16 bytes at p (const uint8_t *) in every 16-byte lane
 *   SZ_WT_SHUF16(t, c) bytewise t[c] for c < 16 (t from SZ_WT_BCAST16), 0 for c >= 0x80
 *   SZ_WT_ADD8(a, b)   bytewise a + b, wrapping
 *   SZ_WT_T            the totals' type, in 64-bit lanes
 *   SZ_WT_T_ZERO()     all-zero totals
 *   SZ_WT_SUM(t, a)    the totals t plus, in each 64-bit lane, the sum of the low nibbles of
 *                      a's bytes in that lane and, shifted up by 32, of the high nibbles
 *   SZ_WT_TOTAL(t)     the sum of t's 64-bit lanes (uint64_t)
 */
#if !defined(SZ_WT_V) || !defined(SZ_WT_ZERO) || !defined(SZ_WT_BCAST16) ||                        \
    !defined(SZ_WT_SHUF16) || !defined(SZ_WT_ADD8) || !defined(SZ_WT_T) ||                         \
    !defined(SZ_WT_T_ZERO) || !defined(SZ_WT_SUM) || !defined(SZ_WT_TOTAL)
#error "sz_watch_template.h: a parameter is missing (see the list at the top)"
#endif

#include "sz_simd_common.h"

/* What sz_chunk_template.h checks for: the cnt_* names below are its code counter. */
#define SZ_WATCH_TEMPLATE 1

/* The pair tables of the watch and the totals of each pair. */
typedef struct cnt_state {
	SZ_WT_V tab[SPLITZIP_WATCH_MAX / 2];
	SZ_WT_T tot[SPLITZIP_WATCH_MAX / 2];
} cnt_state;

/* The byte counters of the pairs. */
typedef struct cnt_acc {
	SZ_WT_V a0, a1, a2, a3;
} cnt_acc;

/* The first np (2 or 4) pair tables of the watch w, the totals and the counters zero. */
static SZ_ALWAYS_INLINE void cnt_init(cnt_state *cs, cnt_acc *acc, const splitzip_watch *w,
                                      const int np)
{
	for (int j = 0; j < np; j++) {
		cs->tab[j] = SZ_WT_BCAST16(w->pair[j]);
		cs->tot[j] = SZ_WT_T_ZERO();
	}
	acc->a0 = acc->a1 = acc->a2 = acc->a3 = SZ_WT_ZERO();
}

/* A vector of codes (bytes below 16; 0x80 for a lane not to count): one lookup and one add per
 * pair table. */
static SZ_ALWAYS_INLINE void cnt_add(const cnt_state *cs, cnt_acc *acc, SZ_WT_V c, const int np)
{
	acc->a0 = SZ_WT_ADD8(acc->a0, SZ_WT_SHUF16(cs->tab[0], c));
	acc->a1 = SZ_WT_ADD8(acc->a1, SZ_WT_SHUF16(cs->tab[1], c));
	if (np > 2) {
		acc->a2 = SZ_WT_ADD8(acc->a2, SZ_WT_SHUF16(cs->tab[2], c));
		acc->a3 = SZ_WT_ADD8(acc->a3, SZ_WT_SHUF16(cs->tab[3], c));
	}
}

/* The counters into the totals; the counters zero. */
static SZ_ALWAYS_INLINE void cnt_flush(cnt_state *cs, cnt_acc *acc, const int np)
{
	cs->tot[0] = SZ_WT_SUM(cs->tot[0], acc->a0);
	cs->tot[1] = SZ_WT_SUM(cs->tot[1], acc->a1);
	if (np > 2) {
		cs->tot[2] = SZ_WT_SUM(cs->tot[2], acc->a2);
		cs->tot[3] = SZ_WT_SUM(cs->tot[3], acc->a3);
	}
	acc->a0 = acc->a1 = acc->a2 = acc->a3 = SZ_WT_ZERO();
}

/* After a flush: cnt[j] += the count of watched code j, j < 2 np. */
static SZ_ALWAYS_INLINE void cnt_finish(const cnt_state *cs, const int np, uint64_t *cnt)
{
	for (int j = 0; j < np; j++) {
		const uint64_t sum = SZ_WT_TOTAL(cs->tot[j]);
		cnt[2 * j] += sum & 0xFFFFFFFFu;
		cnt[2 * j + 1] += sum >> 32;
	}
}

#undef SZ_WT_V
#undef SZ_WT_ZERO
#undef SZ_WT_BCAST16
#undef SZ_WT_SHUF16
#undef SZ_WT_ADD8
#undef SZ_WT_T
#undef SZ_WT_T_ZERO
#undef SZ_WT_SUM
#undef SZ_WT_TOTAL
