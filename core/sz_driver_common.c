/*
 * sz_driver_common.c -- what every mode of the host frame driver uses (core/sz_driver_impl.h):
 * scratch memory, the split of a frame's chunks across worker threads, histograms, the content
 * checksum, stored frames and elements held in segments.
 *
 * Work is split by chunks into contiguous ranges, one per worker thread, and every per-range
 * result is combined in chunk order or with a commutative operation (histograms, checksum
 * sums), so a frame never depends on the thread count.
 */
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sz_driver_impl.h"

/*
 * Inputs below this many elements are encoded and decoded on one thread. Measured on the
 * 2-core EPYC VM (doc/BENCHMARKS.md, build with -DSZ_PARALLEL_MIN_ELEMS=0): two threads lose
 * at 32 KiB and 64 KiB (decode of 64 KiB: 1.2 -> 1.5 us), break even or win a little at
 * 128 KiB (64K elements), and win 1.4-1.6x at 256 KiB.
 */
#ifndef SZ_PARALLEL_MIN_ELEMS /* overridable for measuring it: -DSZ_PARALLEL_MIN_ELEMS=0 */
#define SZ_PARALLEL_MIN_ELEMS ((uint64_t)1 << 16)
#endif

/* ---- Scratch and threads ------------------------------------------------------------------- */

splitzip_status splitzip_scratch_reserve(splitzip_scratch *s, size_t size)
{
	if (s->size >= size)
		return SPLITZIP_OK;
	free(s->buf);
	s->buf = malloc(size);
	s->size = s->buf ? size : 0;
	return s->buf ? SPLITZIP_OK : SPLITZIP_ERROR_OUT_OF_MEMORY;
}

void splitzip_scratch_free(splitzip_scratch *s)
{
	free(s->buf);
	s->buf = NULL;
	s->size = 0;
}

unsigned splitzip_driver_workers(unsigned n_threads, uint64_t n, uint64_t C)
{
	unsigned t = 1;
#ifdef _OPENMP
	t = n_threads ? n_threads : (unsigned)omp_get_max_threads();
	if (n < SZ_PARALLEL_MIN_ELEMS)
		t = 1;
#else
	(void)n_threads;
	(void)n;
#endif
	if ((uint64_t)t > C)
		t = C ? (unsigned)C : 1;
	return t;
}

uint64_t splitzip_driver_range_start(uint64_t C, unsigned T, unsigned w)
{
	return C * w / T;
}

/* ---- Histograms ----------------------------------------------------------------------------- */

void splitzip_driver_histogram(const splitzip_host_kernels *k, const uint16_t *src, uint64_t n,
                               unsigned log2, unsigned T, uint64_t hist[256])
{
	if (T == 1) { /* no parallel region: even a one-thread one costs ~0.5 us */
		k->histogram(src, (size_t)n, hist);
		return;
	}
	const uint64_t C = splitzip_n_chunks(n, log2);
#ifdef _OPENMP
#pragma omp parallel num_threads(T)
#endif
	{
		uint64_t local[256] = {0};
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
		for (int64_t w = 0; w < (int64_t)T; w++) {
			uint64_t e0 = splitzip_driver_range_start(C, T, (unsigned)w) << log2;
			uint64_t e1 = splitzip_driver_range_start(C, T, (unsigned)w + 1) << log2;
			if (e1 > n)
				e1 = n;
			k->histogram(src + e0, (size_t)(e1 - e0), local);
		}
#ifdef _OPENMP
#pragma omp critical
#endif
		for (unsigned e = 0; e < 256; e++)
			hist[e] += local[e];
	}
}

uint64_t splitzip_driver_sample_pieces(uint64_t n)
{
	const uint64_t dense = n / ((uint64_t)SZ_SAMPLE_EVERY * SZ_SAMPLE_PIECE);
	const uint64_t thin = SZ_SAMPLE_DENSE + n / ((uint64_t)SZ_SAMPLE_THIN * SZ_SAMPLE_PIECE);
	const uint64_t m = dense < thin ? dense : thin;
	return m > SZ_SAMPLE_PIECES ? m : SZ_SAMPLE_PIECES;
}

/*
 * Piece i starts in the i-th of as many equal stretches of the input as there are pieces, at
 * an offset inside its stretch given by a multiplicative hash of i (the fractional parts of
 * i times the golden ratio are spread evenly over [0, 1)).
 */
uint64_t splitzip_driver_sample_piece(uint64_t n, uint64_t i)
{
	const uint64_t m = splitzip_driver_sample_pieces(n);
	const uint64_t a = n * i / m, b = n * (i + 1) / m; /* the stretch, >= one piece */
	const uint64_t room = b - a - SZ_SAMPLE_PIECE + 1;
	const uint64_t frac = (i * 0x9E3779B97F4A7C15ull) >> 40; /* 24 bits */
	return a + (room * frac >> 24);
}

/* Pieces of the sample asked for ahead of the one being copied. */
#define SZ_SAMPLE_AHEAD 4u

void splitzip_driver_histogram_sample(const splitzip_host_kernels *k, const uint16_t *src,
                                      uint64_t n, uint16_t *tmp, uint64_t hist[256])
{
	/* The pieces are gathered into batches: one histogram call per batch, since a SIMD
	 * histogram has a per-call cost (it picks its window from the first elements). Out of
	 * the cache each piece is a memory latency, so the lines of the piece SZ_SAMPLE_AHEAD
	 * pieces on are asked for while this one is copied (5 times faster at 256 MiB). */
	const uint64_t m = splitzip_driver_sample_pieces(n);
	uint64_t fill = 0;
	for (uint64_t i = 0; i < m; i++) {
		if (i + SZ_SAMPLE_AHEAD < m) {
			const char *q = (const char *)(src + splitzip_driver_sample_piece(
			                                         n, i + SZ_SAMPLE_AHEAD));
			for (unsigned b = 0; b < SZ_SAMPLE_PIECE * sizeof(uint16_t); b += 64)
				SZ_PREFETCH(q + b);
		}
		memcpy(tmp + fill, src + splitzip_driver_sample_piece(n, i),
		       SZ_SAMPLE_PIECE * sizeof(uint16_t));
		fill += SZ_SAMPLE_PIECE;
		if (fill + SZ_SAMPLE_PIECE > SZ_SAMPLE_BATCH || i + 1 == m) {
			k->histogram(tmp, (size_t)fill, hist);
			fill = 0;
		}
	}
}

/* ---- Content checksum ---------------------------------------------------------------------- */

uint64_t splitzip_driver_checksum_in(const splitzip_host_kernels *k, unsigned n_threads,
                                     const splitzip_in *in, uint64_t n, unsigned log2)
{
	const uint64_t C = splitzip_n_chunks(n, log2);
	const unsigned T = splitzip_driver_workers(n_threads, n, C);
	uint64_t sum = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) reduction(+ : sum) schedule(static) if (T > 1)
#endif
	for (int64_t w = 0; w < (int64_t)T; w++) {
		const uint64_t c1 = splitzip_driver_range_start(C, T, (unsigned)w + 1);
		for (uint64_t c = splitzip_driver_range_start(C, T, (unsigned)w); c < c1; c++) {
			const uint64_t e0 = c << log2, len = splitzip_chunk_len(n, log2, c);
			const uint16_t *x = splitzip_in_chunk(in, (unsigned)w, e0, len);
			sum += splitzip_hash_chunk_fold(k->hash_chunk(x, (size_t)len * 2), c);
		}
	}
	return splitzip_hash_frame_final(n, sum);
}

uint64_t splitzip_driver_checksum(const splitzip_host_kernels *k, unsigned n_threads,
                                  const uint16_t *src, uint64_t n, unsigned log2)
{
	const splitzip_in in = {src, NULL, NULL, log2};
	return splitzip_driver_checksum_in(k, n_threads, &in, n, log2);
}

/* ---- Stored frames ------------------------------------------------------------------------- */

int splitzip_driver_all_zero(const uint8_t *p, uint64_t n)
{
	uint8_t acc = 0;
	for (uint64_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

splitzip_status splitzip_driver_write_stored(const splitzip_encoder *e, const splitzip_in *in,
                                             uint64_t n, uint8_t *dst, size_t dst_cap,
                                             size_t *dst_size)
{
	const uint64_t size = splitzip_stored_frame_size(n);
	if (dst_cap < size)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	splitzip_header h;
	splitzip_header_init(&h, SPLITZIP_MODE_STORED, e->chunk_log2, e->flags, n);
	h.frame_size = size;
	if (e->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum =
		    splitzip_driver_checksum_in(e->k, e->n_threads, in, n, e->chunk_log2);
	if (n && in->p) {
		memcpy(dst + SPLITZIP_FRAME_HEADER_SIZE, in->p, (size_t)n * 2);
	} else { /* segments: chunk by chunk (a rare path: the elements did not shrink) */
		const uint64_t C = splitzip_n_chunks(n, in->log2);
		for (uint64_t c = 0; c < C; c++) {
			const uint64_t e0 = c << in->log2, len = splitzip_chunk_len(n, in->log2, c);
			memcpy(dst + SPLITZIP_FRAME_HEADER_SIZE + 2 * e0,
			       splitzip_in_chunk(in, 0, e0, len), (size_t)len * 2);
		}
	}
	memset(dst + SPLITZIP_FRAME_HEADER_SIZE + 2 * n, 0,
	       (size_t)(size - SPLITZIP_FRAME_HEADER_SIZE - 2 * n));
	splitzip_header_write(dst, &h);
	*dst_size = (size_t)size;
	return SPLITZIP_OK;
}

splitzip_status splitzip_driver_decode_stored(const splitzip_host_kernels *k, unsigned n_threads,
                                              const splitzip_header *h, const uint8_t *src,
                                              const splitzip_out *dst)
{
	const uint64_t n = h->n_elems;
	const uint8_t *body = src + SPLITZIP_FRAME_HEADER_SIZE;
	if (!splitzip_driver_all_zero(body + 2 * n,
	                              h->frame_size - SPLITZIP_FRAME_HEADER_SIZE - 2 * n))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	if (n && dst->p) {
		memcpy(dst->p, body, (size_t)n * 2);
	} else { /* segments, chunk by chunk */
		const uint64_t C = splitzip_n_chunks(n, dst->log2);
		for (uint64_t c = 0; c < C; c++) {
			const uint64_t e0 = c << dst->log2,
			               len = splitzip_chunk_len(n, dst->log2, c);
			uint16_t *win = splitzip_out_window(dst, 0, e0, len);
			memcpy(win, body + 2 * e0, (size_t)len * 2);
			splitzip_out_flush(dst, e0, len, win);
		}
	}
	/* The checksum of the source bytes, which are the elements: no read-back needed. */
	const splitzip_in in = {(const uint16_t *)(const void *)body, NULL, NULL, h->chunk_log2};
	if ((h->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) &&
	    splitzip_driver_checksum_in(k, n_threads, &in, n, h->chunk_log2) != h->content_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	return SPLITZIP_OK;
}

/* ---- Segments ---------------------------------------------------------------------------- */

/* The segment that holds element e of the concatenation (e < start[n_segs]). */
static uint64_t segment_of(const splitzip_segments *s, uint64_t e)
{
	uint64_t lo = 0, hi = s->n_segs - 1; /* start[lo] <= e < start[hi + 1] */
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo + 1) / 2;
		if (s->start[mid] <= e)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Copy elements [e0, e0 + len) between the segments and 'buf' (to_buf: gather, else scatter). */
static void segments_copy(const splitzip_segments *s, uint64_t e0, uint64_t len, uint16_t *buf,
                          int to_buf)
{
	uint64_t e = s->first + e0, k = segment_of(s, e), done = 0;
	while (done < len) {
		const uint64_t off = e - s->start[k], room = s->start[k + 1] - e;
		const uint64_t m = room < len - done ? room : len - done;
		if (to_buf)
			memcpy(buf + done, s->ptr[k] + off, (size_t)m * 2);
		else
			memcpy(s->ptr[k] + off, buf + done, (size_t)m * 2);
		done += m;
		e += m;
		k++;
	}
}

const uint16_t *splitzip_segments_read(const splitzip_segments *s, uint64_t e0, uint64_t len,
                                       uint16_t *tmp)
{
	const uint64_t e = s->first + e0, k = segment_of(s, e);
	if (e + len <= s->start[k + 1])
		return s->ptr[k] + (e - s->start[k]);
	segments_copy(s, e0, len, tmp, 1);
	return tmp;
}

uint16_t *splitzip_segments_window(const splitzip_segments *s, uint64_t e0, uint64_t len,
                                   uint16_t *tmp)
{
	const uint64_t e = s->first + e0, k = segment_of(s, e);
	if (e + len <= s->start[k + 1])
		return s->ptr[k] + (e - s->start[k]);
	return tmp;
}

void splitzip_segments_flush(const splitzip_segments *s, uint64_t e0, uint64_t len,
                             const uint16_t *win)
{
	const uint64_t e = s->first + e0, k = segment_of(s, e);
	if (win != s->ptr[k] + (e - s->start[k]))
		segments_copy(s, e0, len, (uint16_t *)win, 0);
}
