/*
 * sz_gpu_header.cuh -- frame headers on the GPU (doc/FORMAT.md §3): reading and checking a
 * frame's header as every decoder does, the decoder's view of a frame whose header passed
 * (sz_dec_frame), the padding rules, and writing a header. One source for CUDA, HIP and the CPU
 * SIMT harness; every field and offset comes from core/sz_layout.h.
 */
#ifndef SZ_GPU_HEADER_CUH
#define SZ_GPU_HEADER_CUH

#include "sz_gpu_common.cuh"

/* The sections and codebook of a stored or split4 frame (FORMAT.md §4.1-4.2). */
struct sz_dec_split4 {
	uint64_t codes_off, sm_off, table_off, epos_off, eexp_off;
	uint64_t cblo, cbhi;  /* the codebook, 8 exponents per word (code k: byte k) */
	uint32_t contig;      /* a window codebook: exponent = base + code */
	uint32_t base, base2; /* codebook[0], and base * 0x10001 (two elements per word) */
	uint32_t reserved;
};

/* The sections of an entropy frame (FORMAT.md §4.3.2). */
struct sz_dec_entropy {
	uint64_t lengths_off, sm_off, table_off, stream_off;
	uint64_t n_words; /* Stream_Words */
};

/* What a block knows about the frame it decodes (shared memory, written by thread 0): what
 * every mode has, then the mode's own part. */
struct sz_dec_frame {
	const uint8_t *src;
	uint16_t *dst;
	uint64_t f, n, C, E;
	uint32_t L, mode, vec, hash;
	int32_t status;
	splitzip_header h;
	union {
		sz_dec_split4 s4;   /* mode 0 and 1 */
		sz_dec_entropy ent; /* mode 2 */
	};
};

/*
 * Header_Checksum (FORMAT.md §3.1: the chunk digest of header bytes 0..59, low 32 bits) of the
 * header at hb by a whole warp instead of one thread's 32 rolled lane folds: lane l < 8 runs
 * digest lane l over word l, lanes 8..31 fold their initial value, the folds are summed over
 * the warp (core/sz_hash.h's primitives, the value of splitzip_header_checksum()). Every lane
 * gets it.
 */
template <int W> SZ_DEVICE uint32_t sz_hdr_checksum_warp(const uint8_t *hb)
{
	const unsigned lane = sz_lane<W>();
	uint64_t part = 0;
	if (lane < SPLITZIP_HASH_LANES) {
		uint64_t acc = splitzip_hash_lane_init(lane);
		if (8 * lane < SZ_H_HEADER_CHECKSUM) {
			uint64_t w = 0;
			for (unsigned b = 0; b < 8; b++)
				if (8 * lane + b < SZ_H_HEADER_CHECKSUM)
					w |= (uint64_t)hb[8 * lane + b] << (8 * b);
			acc = splitzip_hash_round(acc, w);
		}
		part = splitzip_hash_lane_fold(acc, lane);
	}
	return (uint32_t)splitzip_hash_chunk_final(SZ_H_HEADER_CHECKSUM, sz_warp_sum<W>(part));
}

/*
 * FORMAT.md §3.2-3.3 steps 0-13 for frame f, whose first m = min(size, 64) bytes are at hb, with
 * the statuses every decoder gives, by one thread; 'checksum' is the warp's Header_Checksum of
 * hb (used when m is 64). The fields are checked by core/sz_layout.h. Inlined into the
 * out-of-line sz_dec_header_warp (a call of its own spilled on sm_80).
 */
SZ_DEVICE int32_t sz_dec_parse(const sz_gpu_dec &a, uint64_t f, splitzip_header *h,
                               const uint8_t *hb, uint64_t size, uint32_t checksum)
{
	int32_t s = size < SPLITZIP_FRAME_HEADER_SIZE
	                ? splitzip_read_header(hb, size, h)
	                : splitzip_header_status(splitzip_header_parse_checked(hb, checksum, h));
	if (s == SPLITZIP_OK && h->frame_size > size)
		s = SPLITZIP_ERROR_TRUNCATED; /* step 12 */
	else if (s == SPLITZIP_OK && h->n_elems > sz_dec_cap(a, f))
		s = SPLITZIP_ERROR_DST_TOO_SMALL; /* step 13 */
	else if (s == SPLITZIP_OK &&
	         ((!sz_dec_dst(a, f) && h->n_elems) || !sz_aligned(sz_dec_dst(a, f), 2)))
		s = SPLITZIP_ERROR_INVALID_ARGUMENT; /* an odd output address would fault */
	return s;
}

/* Where frame f is and how big, read by lane 0 and shared with the warp (a batch's arrays are
 * in device memory: one load each, not one per lane). */
struct sz_dec_where {
	const uint8_t *src;
	uint64_t size;
};

template <int W> SZ_DEVICE sz_dec_where sz_dec_where_warp(const sz_gpu_dec &a, uint64_t f)
{
	uint64_t p = 0, n = 0;
	if (sz_lane<W>() == 0) {
		p = (uint64_t)(uintptr_t)sz_dec_src(a, f);
		n = sz_dec_size(a, f);
	}
	sz_dec_where w;
	w.src = reinterpret_cast<const uint8_t *>((uintptr_t)sz_shfl<W>(sz_full_mask<W>(), p, 0));
	w.size = sz_shfl<W>(sz_full_mask<W>(), n, 0);
	return w;
}

/* The header of frame w into hb (64 bytes of shared memory) by a whole warp: lane l < 16 loads
 * bytes 4l .. 4l + 3 (one load where aligned), none past the frame's size. */
template <int W> SZ_DEVICE void sz_dec_load_header(const sz_dec_where &w, uint8_t *hb)
{
	const unsigned lane = sz_lane<W>();
	const unsigned m =
	    w.size < SPLITZIP_FRAME_HEADER_SIZE ? (unsigned)w.size : SPLITZIP_FRAME_HEADER_SIZE;
	if (w.src && 4 * lane < m) {
		if (4 * lane + 4 <= m && sz_aligned(w.src, 4)) {
			const uint32_t v = sz_gldro_u32(w.src + 4 * lane);
			for (unsigned b = 0; b < 4; b++)
				hb[4 * lane + b] = (uint8_t)(v >> (8 * b));
		} else {
			for (unsigned b = 0; 4 * lane + b < m && b < 4; b++)
				hb[4 * lane + b] = sz_gldro_u8(w.src + 4 * lane + b);
		}
	}
	sz_syncwarp<W>(sz_full_mask<W>());
}

/* Forward: the block's view of a frame whose header passed. */
SZ_DEVICE_COLD void sz_dec_setup(sz_dec_frame &fr, const sz_gpu_dec &a, uint64_t f,
                                 const splitzip_header &h);

/*
 * Frame f's header read and checked by one whole warp (the loads and the checksum spread over
 * its lanes, the field checks by lane 0), and on success the block's view set up: fr.status
 * and fr.h (zero on failure) written by lane 0; the status returned to every lane. Out of
 * line: once per frame, kept out of the chunk loops' register allocation.
 */
template <int W>
SZ_DEVICE_COLD int32_t sz_dec_header_warp(sz_dec_frame &fr, const sz_gpu_dec &a, uint64_t f,
                                          uint8_t *hb)
{
	const sz_dec_where w = sz_dec_where_warp<W>(a, f);
	sz_dec_load_header<W>(w, hb);
	const bool whole = w.size >= SPLITZIP_FRAME_HEADER_SIZE && w.src;
	const uint32_t cs = whole ? sz_hdr_checksum_warp<W>(hb) : 0;
	int32_t s = 0;
	if (sz_lane<W>() == 0) {
		splitzip_header h;
		__builtin_memset(&h, 0, sizeof h);
		s = w.src ? sz_dec_parse(a, f, &h, hb, w.size, cs)
		          : (int32_t)SPLITZIP_ERROR_INVALID_ARGUMENT;
		fr.status = s;
		if (s == SPLITZIP_OK)
			sz_dec_setup(fr, a, f, h);
		else
			fr.h = h;
	}
	return (int32_t)sz_shfl<W>(sz_full_mask<W>(), (uint32_t)s, 0);
}

/* The block's view of a frame whose header passed (thread 0). */
SZ_DEVICE_COLD void sz_dec_setup(sz_dec_frame &fr, const sz_gpu_dec &a, uint64_t f,
                                 const splitzip_header &h)
{
	fr.f = f;
	fr.h = h;
	fr.src = sz_dec_src(a, f);
	fr.dst = sz_dec_dst(a, f);
	fr.n = h.n_elems;
	fr.E = h.n_escapes;
	fr.L = h.chunk_log2;
	fr.mode = h.mode;
	fr.hash = (h.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	fr.C = splitzip_n_chunks(fr.n, fr.L);
	fr.vec = sz_aligned(fr.src, 16) && sz_aligned(fr.dst, 16);
	if (fr.mode == SPLITZIP_MODE_ENTROPY) { /* FORMAT.md §4.3.2 */
		splitzip_entropy_layout el;
		splitzip_entropy_layout_of(fr.n, fr.L, h.n_words, h.table_first, h.table_last, &el);
		fr.ent.sm_off = el.sm_off;
		fr.ent.lengths_off = el.lengths_off;
		fr.ent.table_off = el.chunk_table_off;
		fr.ent.stream_off = el.stream_off;
		fr.ent.n_words = el.n_words;
		return;
	}
	splitzip_layout lay;
	splitzip_split4_layout(fr.n, fr.L, fr.E, &lay);
	sz_dec_split4 &d = fr.s4;
	d.codes_off = lay.codes_off;
	d.sm_off = lay.sm_off;
	d.table_off = lay.table_off;
	d.epos_off = lay.epos_off;
	d.eexp_off = lay.eexp_off;
	d.base = h.codebook[0];
	d.base2 = d.base * 0x10001u;
	d.contig = h.codebook[15] == d.base + 15;
	d.reserved = 0;
	d.cblo = d.cbhi = 0;
	for (unsigned k = 0; k < 8; k++) {
		d.cblo |= (uint64_t)h.codebook[k] << (8 * k);
		d.cbhi |= (uint64_t)h.codebook[8 + k] << (8 * k);
	}
}

/* FORMAT.md §4.1 / §4.2.7 rule 1: the padding bytes and the padding nibble are zero. Threads
 * 0..15 of the block; returns nonzero in the threads that found a nonzero byte. */
SZ_DEVICE_COLD bool sz_dec_padding_bad(const sz_dec_frame &fr, unsigned t)
{
	if (t >= SPLITZIP_SECTION_ALIGN)
		return false;
	bool bad = false;
	if (fr.mode == SPLITZIP_MODE_STORED) {
		const uint64_t at = SPLITZIP_FRAME_HEADER_SIZE + 2 * fr.n + t;
		return at < fr.h.frame_size && sz_gldro_u8(fr.src + at);
	}
	if (fr.mode == SPLITZIP_MODE_ENTROPY) { /* FORMAT.md §4.3.7 */
		splitzip_entropy_layout el;
		splitzip_entropy_layout_of(fr.n, fr.L, fr.h.n_words, fr.h.table_first,
		                           fr.h.table_last, &el);
		for (int k = 0; k < SPLITZIP_ENTROPY_GAPS; k++) {
			const uint64_t at = splitzip_entropy_gap(&el, k) + t;
			bad |= at < splitzip_entropy_gap_end(&el, k) && sz_gldro_u8(fr.src + at);
		}
		const uint64_t K = splitzip_entropy_nibbles(fr.h.table_first, fr.h.table_last);
		if (t == 0 && K % 2)
			bad |= (sz_gldro_u8(fr.src + el.lengths_off + K / 2) >> 4) != 0;
		return bad;
	}
	splitzip_layout lay;
	splitzip_split4_layout(fr.n, fr.L, fr.E, &lay);
	for (int k = 0; k < SPLITZIP_SPLIT4_GAPS; k++) {
		const uint64_t at = splitzip_split4_gap(&lay, k) + t;
		bad |= at < splitzip_split4_gap_end(&lay, k) && sz_gldro_u8(fr.src + at);
	}
	if (t == 0 && fr.n % 2)
		bad |= (sz_gldro_u8(fr.src + fr.s4.codes_off + fr.n / 2) >> 4) != 0;
	return bad;
}

/*
 * The header whose fields lane 0 of a warp wrote into hb (splitzip_header_write_fields) given
 * its checksum and stored at dst by the whole warp: the checksum from sz_hdr_checksum_warp, 16
 * lanes storing 4 bytes each.
 */
template <int W> SZ_DEVICE_COLD void sz_gpu_put_header_warp(uint8_t *dst, uint8_t *hb)
{
	const unsigned lane = sz_lane<W>();
	sz_syncwarp<W>(sz_full_mask<W>()); /* the fields are in */
	const uint32_t cs = sz_hdr_checksum_warp<W>(hb);
	if (lane < SPLITZIP_FRAME_HEADER_SIZE / 4) {
		const uint32_t v = lane == SZ_H_HEADER_CHECKSUM / 4
		                       ? cs
		                       : (uint32_t)hb[4 * lane] | (uint32_t)hb[4 * lane + 1] << 8 |
		                             (uint32_t)hb[4 * lane + 2] << 16 |
		                             (uint32_t)hb[4 * lane + 3] << 24;
		sz_gst_le32(dst + 4 * lane, v);
	}
}

/* Header h written to dst by one thread, through 64 bytes of shared memory at hb. */
SZ_DEVICE void sz_gpu_put_header(uint8_t *dst, uint8_t *hb, const splitzip_header &h)
{
	splitzip_header_write(hb, &h);
	for (unsigned i = 0; i < SPLITZIP_FRAME_HEADER_SIZE; i += 4)
		sz_gst_le32(dst + i, (uint32_t)hb[i] | (uint32_t)hb[i + 1] << 8 |
		                         (uint32_t)hb[i + 2] << 16 | (uint32_t)hb[i + 3] << 24);
}

#endif /* SZ_GPU_HEADER_CUH */
