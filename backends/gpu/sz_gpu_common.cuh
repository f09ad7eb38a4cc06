/*
 * sz_gpu_common.cuh -- what every GPU kernel of backends/gpu/ shares (one source for CUDA, HIP
 * and the CPU SIMT harness; include only sz_gpu_compat.cuh and core headers): the batch
 * arguments read through the memory wrappers, little-endian fields at any alignment, warp
 * scans and sums, the content checksum of a chunk from registers (FORMAT.md §7), and the
 * word-parallel arithmetic of eight elements (codes, sign/mantissa bytes, escapes).
 */
#ifndef SZ_GPU_COMMON_CUH
#define SZ_GPU_COMMON_CUH

#include "sz_gpu_compat.cuh"
#include "sz_gpu_args.h"

/* ==================================================================== */
/*                     Arguments, through the wrappers                  */
/* ==================================================================== */

template <typename T> SZ_DEVICE T *sz_gld_ptr(T *const *p)
{
	return reinterpret_cast<T *>((uintptr_t)sz_gld_u64(p));
}

SZ_DEVICE const uint16_t *sz_enc_src(const sz_gpu_enc &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_ptr(&a.frames.srcs[f]) : a.frames.one.src;
}
SZ_DEVICE uint64_t sz_enc_n(const sz_gpu_enc &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.n_elems[f]) : a.frames.one.n;
}
SZ_DEVICE uint8_t *sz_enc_dst(const sz_gpu_enc &a, uint64_t f)
{
	return static_cast<uint8_t *>(a.frames.srcs ? sz_gld_ptr(&a.frames.dsts[f])
	                                            : a.frames.one.dst);
}
SZ_DEVICE uint64_t sz_enc_cap(const sz_gpu_enc &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.dst_caps[f]) : a.frames.one.cap;
}
/* Byte k of the fixed codebook, and the fixed table's length of symbol s: the arguments' own
 * copies, or device memory (a page stream's tables, chosen on the device). */
SZ_DEVICE uint8_t sz_enc_fixed_cb(const sz_gpu_enc &a, unsigned k)
{
	return a.split4.codebook_dev ? sz_gld_u8(a.split4.codebook_dev + k) : a.split4.codebook[k];
}
SZ_DEVICE uint8_t sz_enc_fixed_len(const sz_gpu_enc &a, unsigned s)
{
	return a.entropy.table_dev ? sz_gld_u8(a.entropy.table_dev + s) : a.entropy.table[s];
}

SZ_DEVICE const uint8_t *sz_dec_src(const sz_gpu_dec &a, uint64_t f)
{
	return static_cast<const uint8_t *>(a.frames.srcs ? sz_gld_ptr(&a.frames.srcs[f])
	                                                  : a.frames.one.src);
}
SZ_DEVICE uint64_t sz_dec_size(const sz_gpu_dec &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.src_sizes[f]) : a.frames.one.size;
}
SZ_DEVICE uint16_t *sz_dec_dst(const sz_gpu_dec &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_ptr(&a.frames.dsts[f]) : a.frames.one.dst;
}
SZ_DEVICE uint64_t sz_dec_cap(const sz_gpu_dec &a, uint64_t f)
{
	return a.frames.srcs ? sz_gld_u64(&a.frames.dst_caps[f]) : a.frames.one.cap;
}

/* Results: a size and a status per frame. */
SZ_DEVICE void sz_put_result(size_t *sizes, int32_t *statuses, uint64_t f, uint64_t size,
                             int32_t status)
{
	sz_gst_u64(&sizes[f], size);
	sz_gst_u32(&statuses[f], (uint32_t)status);
}

SZ_DEVICE bool sz_aligned(const void *p, unsigned a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

/* u16 and u32 little-endian fields of a frame at any alignment (frames may start anywhere). */
SZ_DEVICE uint32_t sz_gld_le16(const uint8_t *p)
{
	if (sz_aligned(p, 2))
		return sz_gldro_u16(p);
	return (uint32_t)sz_gldro_u8(p) | (uint32_t)sz_gldro_u8(p + 1) << 8;
}
SZ_DEVICE uint32_t sz_gld_le32(const uint8_t *p)
{
	if (sz_aligned(p, 4))
		return sz_gldro_u32(p);
	uint32_t v = 0;
	for (unsigned i = 0; i < 4; i++)
		v |= (uint32_t)sz_gldro_u8(p + i) << (8 * i);
	return v;
}
SZ_DEVICE void sz_gst_le16(uint8_t *p, uint32_t v)
{
	if (sz_aligned(p, 2)) {
		sz_gst_u16(p, (uint16_t)v);
	} else {
		sz_gst_u8(p, (uint8_t)v);
		sz_gst_u8(p + 1, (uint8_t)(v >> 8));
	}
}
SZ_DEVICE void sz_gst_le32(uint8_t *p, uint32_t v)
{
	if (sz_aligned(p, 4)) {
		sz_gst_u32(p, v);
	} else {
		for (unsigned i = 0; i < 4; i++)
			sz_gst_u8(p + i, (uint8_t)(v >> (8 * i)));
	}
}

/* Copies of 4-byte-aligned structs between registers and global memory, word by word. */
SZ_DEVICE void sz_gst_words(void *dst, const void *src, unsigned bytes)
{
	for (unsigned i = 0; i < bytes / 4; i++) {
		uint32_t w;
		__builtin_memcpy(&w, static_cast<const uint8_t *>(src) + 4 * i, 4);
		sz_gst_u32(static_cast<uint8_t *>(dst) + 4 * i, w);
	}
}
SZ_DEVICE void sz_gld_words(void *dst, const void *src, unsigned bytes)
{
	for (unsigned i = 0; i < bytes / 4; i++) {
		const uint32_t w = sz_gld_u32(static_cast<const uint8_t *>(src) + 4 * i);
		__builtin_memcpy(static_cast<uint8_t *>(dst) + 4 * i, &w, 4);
	}
}

/* ==================================================================== */
/*                         Warp-level building blocks                   */
/* ==================================================================== */

/* Inclusive scan over the W lanes of a full warp. */
template <int W, typename T> SZ_DEVICE T sz_warp_incl_scan(T v)
{
	const unsigned lane = sz_lane<W>();
	for (unsigned d = 1; d < (unsigned)W; d <<= 1) {
		T o = sz_shfl_up<W>(sz_full_mask<W>(), v, d);
		if (lane >= d)
			v += o;
	}
	return v;
}

/* Sum over the W lanes of a full warp (integer addition: any order gives the same value). */
template <int W, typename T> SZ_DEVICE T sz_warp_sum(T v)
{
	for (int m = W / 2; m > 0; m >>= 1)
		v += sz_shfl_xor<W>(sz_full_mask<W>(), v, m);
	return v;
}

/*
 * The content checksum of a chunk (FORMAT.md §7.1) from registers. Lane l holds the 16 bytes
 * (words w0, w1) at byte 16 (S W + l) of the chunk, S the segment number, so word j of the
 * chunk (j = 2 S W + 2 l + b) belongs to hash lane j mod 32 at step j / 32: hash lane h takes,
 * in order, word h & 1 of lanes h/2, h/2 + 16, ... (W/16 of them). Lanes 0..31 keep the
 * accumulators; 'nw' is the chunk's word count (words at or past it are not hashed).
 */
template <int W>
SZ_DEVICE uint64_t sz_hash_segment(uint64_t acc, uint64_t w0, uint64_t w1, uint64_t word0,
                                   uint64_t nw)
{
	const unsigned lane = sz_lane<W>(), h = lane & 31;
	SZ_UNROLL
	for (int m = 0; m < W / 16; m++) {
		const int from = (int)(h >> 1) + 16 * m;
		const uint64_t a0 = sz_shfl<W>(sz_full_mask<W>(), w0, from);
		const uint64_t a1 = sz_shfl<W>(sz_full_mask<W>(), w1, from);
		if (lane < 32 && word0 + h + 32 * (unsigned)m < nw)
			acc = splitzip_hash_round(acc, (h & 1) ? a1 : a0);
	}
	return acc;
}

/* The chunk's fold (FORMAT.md §7.2) from the accumulators of lanes 0..31; every lane gets it. */
template <int W> SZ_DEVICE uint64_t sz_hash_chunk_fold(uint64_t acc, uint64_t bytes, uint64_t c)
{
	const unsigned lane = sz_lane<W>();
	const uint64_t part = lane < 32 ? splitzip_hash_lane_fold(acc, lane) : 0;
	return splitzip_hash_chunk_fold(splitzip_hash_chunk_final(bytes, sz_warp_sum<W>(part)), c);
}

/* ==================================================================== */
/*                      Eight elements, word-parallel                   */
/* ==================================================================== */

/* Codes (8 nibbles, element 2k in the low nibble of byte k), sign/mantissa bytes and the
 * escape mask (bit i: element i) of 8 elements. */
struct sz_enc8 {
	uint32_t codes, sm0, sm1, esc;
};

/*
 * Two elements per 32-bit word. For a window codebook (contiguous, base b): d = 256 + e - b per
 * 16-bit half, in range iff d >> 4 == 16, code d & 15. Otherwise the encoder table 'lut'
 * (bit 7: escape, bits 0-3: code). Escapes get code 0 (FORMAT.md §4.2.1).
 */
SZ_DEVICE sz_enc8 sz_encode8(sz_u32x4 v, bool contig, uint32_t kadd, const uint8_t *lut)
{
	const uint32_t w[4] = {v.x, v.y, v.z, v.w};
	sz_enc8 r = {0, 0, 0, 0};
	uint32_t smp[4];
	SZ_UNROLL
	for (int k = 0; k < 4; k++) {
		const uint32_t x = w[k];
		const uint32_t s = ((x >> 8) & 0x00800080u) | (x & 0x007F007Fu);
		smp[k] = (s & 0xFFu) | ((s >> 8) & 0xFF00u);
		const uint32_t e = (x >> 7) & 0x00FF00FFu;
		uint32_t cw, eb;
		if (contig) {
			const uint32_t d = e + kadd;
			const uint32_t q = ((d >> 4) & 0x001F001Fu) ^ 0x00100010u;
			eb = ((q + 0x001F001Fu) >> 5) & 0x00010001u;
			cw = d & 0x000F000Fu & ~(eb * 0xFu);
		} else {
			const uint32_t x0 = lut[e & 0xFFu], x1 = lut[e >> 16];
			eb = (x0 >> 7) | ((x1 >> 7) << 16);
			cw = (x0 & 15u) | ((x1 & 15u) << 16);
		}
		r.codes |= ((cw & 0xFu) | ((cw >> 12) & 0xF0u)) << (8 * k);
		r.esc |= ((eb & 1u) | ((eb >> 15) & 2u)) << (2 * k);
	}
	r.sm0 = smp[0] | (smp[1] << 16);
	r.sm1 = smp[2] | (smp[3] << 16);
	return r;
}

/* Exponent of code c from the codebook packed into two words (byte k of lo/hi: code k / 8+k). */
SZ_DEVICE uint32_t sz_cb_exp(uint64_t lo, uint64_t hi, uint32_t c)
{
	return (uint32_t)((c < 8 ? lo >> (8 * c) : hi >> (8 * (c - 8))) & 0xFFu);
}

/* join(codebook[code], sm) for 8 elements (FORMAT.md §2, §4.2.7). base2 = base * 0x10001. */
SZ_DEVICE sz_u32x4 sz_decode8(uint32_t codes, uint32_t sm0, uint32_t sm1, bool contig,
                              uint32_t base2, uint64_t cblo, uint64_t cbhi)
{
	uint32_t o[4];
	SZ_UNROLL
	for (int k = 0; k < 4; k++) {
		const uint32_t c2 = (codes >> (8 * k)) & 0xFFu;
		const uint32_t sp = ((k < 2 ? sm0 : sm1) >> (16 * (k & 1))) & 0xFFFFu;
		const uint32_t s = (sp & 0xFFu) | ((sp & 0xFF00u) << 8);
		uint32_t ex;
		if (contig)
			ex = ((c2 & 0xFu) | ((c2 & 0xF0u) << 12)) + base2;
		else
			ex = sz_cb_exp(cblo, cbhi, c2 & 15u) |
			     (sz_cb_exp(cblo, cbhi, c2 >> 4) << 16);
		o[k] = ((s & 0x00800080u) << 8) | (ex << 7) | (s & 0x007F007Fu);
	}
	return sz_u32x4_make(o[0], o[1], o[2], o[3]);
}

/* Element i (0..7) of 8 packed elements. */
SZ_DEVICE uint32_t sz_elem8(sz_u32x4 v, unsigned i)
{
	const uint32_t w = i < 2 ? v.x : i < 4 ? v.y : i < 6 ? v.z : v.w;
	return (w >> (16 * (i & 1))) & 0xFFFFu;
}

/* Element i (0..7) of 8 packed elements replaced by v (selects: no indexed registers). */
SZ_DEVICE sz_u32x4 sz_set_elem8(sz_u32x4 o, unsigned i, uint32_t v)
{
	const unsigned sh = 16 * (i & 1);
	const uint32_t m = ~(0xFFFFu << sh), x = v << sh;
	o.x = (i >> 1) == 0 ? (o.x & m) | x : o.x;
	o.y = (i >> 1) == 1 ? (o.y & m) | x : o.y;
	o.z = (i >> 1) == 2 ? (o.z & m) | x : o.z;
	o.w = (i >> 1) == 3 ? (o.w & m) | x : o.w;
	return o;
}

/* The elements of 8 packed ones whose bit in 'valid' is clear, set to 0. */
SZ_DEVICE sz_u32x4 sz_mask8(sz_u32x4 o, uint32_t valid)
{
	const uint32_t m[4] = {(valid & 1 ? 0xFFFFu : 0u) | (valid & 2 ? 0xFFFF0000u : 0u),
	                       (valid & 4 ? 0xFFFFu : 0u) | (valid & 8 ? 0xFFFF0000u : 0u),
	                       (valid & 16 ? 0xFFFFu : 0u) | (valid & 32 ? 0xFFFF0000u : 0u),
	                       (valid & 64 ? 0xFFFFu : 0u) | (valid & 128 ? 0xFFFF0000u : 0u)};
	return sz_u32x4_make(o.x & m[0], o.y & m[1], o.z & m[2], o.w & m[3]);
}

/* Elements i0 .. i0+7 of a chunk of 'len' elements at src: one 16-byte load when they are all
 * there and aligned, else element by element with zeros past the end. '*valid' gets the mask. */
SZ_DEVICE sz_u32x4 sz_load8(const uint16_t *src, uint64_t i0, uint64_t len, bool vec,
                            uint32_t *valid)
{
	if (vec && i0 + 8 <= len) {
		*valid = 0xFFu;
		return sz_gldro_x4(src + i0);
	}
	uint32_t w[4] = {0, 0, 0, 0};
	uint32_t m = 0;
	SZ_UNROLL
	for (unsigned i = 0; i < 8; i++) { /* constant indices: the words stay in registers */
		if (i0 + i < len) {
			w[i >> 1] |= (uint32_t)sz_gldro_u16(src + i0 + i) << (16 * (i & 1));
			m |= 1u << i;
		}
	}
	*valid = m;
	return sz_u32x4_make(w[0], w[1], w[2], w[3]);
}

#endif /* SZ_GPU_COMMON_CUH */
