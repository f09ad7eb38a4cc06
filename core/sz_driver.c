/*
 * sz_driver.c -- the host frame driver: encode and decode one frame with a host backend's
 * chunk kernels, split by chunks across worker threads.
 *
 * Work is split by chunks into contiguous ranges, one per worker thread, and every per-range
 * result is combined in chunk order (escapes) or with a commutative operation (histograms,
 * checksum sums), so the frame never depends on the thread count.
 *
 * Encoding is one pass over the input: the positions of the code and sign/mantissa sections do
 * not depend on the escape count (doc/FORMAT.md §4.2), so chunks are encoded straight into the
 * destination while their escapes go to scratch memory; once the total escape count is known
 * the chunk table and escape sections are written behind them. If the escapes make the split4
 * frame no smaller than a stored one (§6.3) the destination is rewritten as a stored frame.
 *
 * Decoding validates the header (§3.2), the chunk table and the paddings before any chunk is
 * decoded, and every escape before it is patched (§4.2, §8): a frame from outside never makes
 * the decoder read or write out of bounds.
 */
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sz_codebook.h"
#include "sz_driver.h"

#if defined(__AVX2__) && !defined(SPLITZIP_NATIVE)
#error "core/ must be compiled for the baseline ISA (no -mavx2)"
#endif

/*
 * Inputs below this many elements are encoded and decoded on one thread. Measured on the
 * 2-core EPYC VM (doc/BENCHMARKS.md, build with -DSZ_PARALLEL_MIN_ELEMS=0): two threads lose
 * at 32 KiB and 64 KiB (decode of 64 KiB: 1.2 -> 1.5 us), break even or win a little at
 * 128 KiB (64K elements), and win 1.4-1.6x at 256 KiB.
 */
#ifndef SZ_PARALLEL_MIN_ELEMS /* overridable for measuring it: -DSZ_PARALLEL_MIN_ELEMS=0 */
#define SZ_PARALLEL_MIN_ELEMS ((uint64_t)1 << 16)
#endif

/*
 * Frames of at least this many uncompressed bytes are written with the backends' streaming
 * (non-temporal store) kernels: their output does not fit in the cache anyway, and such stores
 * skip the read for ownership of every destination line. Decoding with a content checksum
 * keeps ordinary stores, since it reads each chunk back right away. See doc/BENCHMARKS.md.
 */
#ifndef SZ_STREAM_MIN_BYTES
#define SZ_STREAM_MIN_BYTES ((uint64_t)32 << 20)
#endif

/*
 * From-input codebooks of inputs at least this large are predicted from a sample of chunks and
 * verified against the full histogram gathered during the encode pass: one read of the input
 * instead of two when the prediction holds. Smaller inputs stay in cache between the histogram
 * pass and the encode pass, where a separate pass costs little.
 */
#ifndef SZ_SPECULATE_MIN_ELEMS
#define SZ_SPECULATE_MIN_ELEMS ((uint64_t)1 << 22)
#endif
#define SZ_SPECULATE_SAMPLE_CHUNKS 16u /* at least; one chunk in 16 is sampled */

/* Elements per histogram call of a speculative encode pass (128 KiB of input). */
#define SZ_HIST_BATCH_ELEMS ((uint64_t)1 << 16)

/* Worker threads of a speculative encode pass at most (per-worker histograms in scratch). */
#define SZ_MAX_WORKERS 64u

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

/* Worker threads for n elements in C chunks. */
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

/* First chunk of worker w's range when C chunks are split over T workers. */
uint64_t splitzip_driver_range_start(uint64_t C, unsigned T, unsigned w)
{
	return C * w / T;
}

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

/* ---- Encoding: codebook choice ----------------------------------------------------------------
 */

/* The exponent histogram of n elements, one contiguous chunk range per worker. */
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

/* The histogram of one chunk in 16 (at least SZ_SPECULATE_SAMPLE_CHUNKS), spread evenly. */
static void histogram_sample(const splitzip_host_kernels *k, const uint16_t *src, uint64_t n,
                             unsigned log2, uint64_t hist[256])
{
	const uint64_t C = splitzip_n_chunks(n, log2);
	const uint64_t n_sample =
	    C / 16 > SZ_SPECULATE_SAMPLE_CHUNKS ? C / 16 : SZ_SPECULATE_SAMPLE_CHUNKS;
	for (uint64_t i = 0; i < n_sample; i++) {
		uint64_t c = C * i / n_sample;
		k->histogram(src + (c << log2), (size_t)splitzip_chunk_len(n, log2, c), hist);
	}
}

/*
 * The encoder tables of the first encode pass: the fixed codebook, or the canonical codebook of
 * the input (FORMAT.md §5.1). For large inputs the codebook is predicted from a sample and
 * '*speculate' is set: the encode pass then gathers the full histogram and re-encodes if the
 * prediction was wrong, so the frame is the canonical one either way (§6.2).
 */
static const splitzip_enc_tables *first_tables(const splitzip_encoder *e, const uint16_t *src,
                                               uint64_t n, unsigned T, splitzip_enc_tables *own,
                                               int *speculate)
{
	const uint64_t C = splitzip_n_chunks(n, e->chunk_log2);
	*speculate = 0;
	if (e->fixed)
		return e->fixed;
	uint64_t hist[256] = {0};
	if (n >= SZ_SPECULATE_MIN_ELEMS && C >= SZ_SPECULATE_SAMPLE_CHUNKS) {
		histogram_sample(e->k, src, n, e->chunk_log2, hist);
		*speculate = 1;
	} else {
		splitzip_driver_histogram(e->k, src, n, e->chunk_log2, T, hist);
	}
	uint8_t cb[16];
	splitzip_codebook_select(hist, cb);
	splitzip_enc_tables_init(own, cb);
	return own;
}

/* ---- Encoding: the pass over the input ------------------------------------------------------ */

/* One encode pass: where everything goes. Scratch holds, by element index so that workers
 * never overlap, the escape positions and exponents; per chunk, its escape count. */
typedef struct enc_pass {
	const splitzip_host_kernels *k;
	splitzip_encode_chunk_fn encode;
	const splitzip_enc_tables *t;
	splitzip_in in; /* the elements */
	uint64_t n;
	unsigned log2;
	unsigned T;       /* workers */
	uint8_t *codes;   /* the frame's code section */
	uint8_t *sm;      /* the frame's sign/mantissa section */
	uint16_t *spos;   /* scratch: escape positions */
	uint8_t *sexp;    /* scratch: escape exponents */
	uint32_t *counts; /* scratch: escapes per chunk */
	uint64_t *whist;  /* scratch: a histogram per worker (speculative pass), or NULL */
	int want_sum;     /* fold the content checksum in */
	uint64_t wcount[SZ_MAX_WORKERS + 1]; /* escapes per worker */
} enc_pass;

/*
 * Encode chunks [c0, c1) (one worker's range). Returns the range's escape count; adds the
 * range's checksum folds to '*csum' and its histogram to 'hist' when asked.
 */
static uint64_t encode_range(const enc_pass *p, unsigned w, uint64_t c0, uint64_t c1,
                             uint64_t *csum, uint64_t *hist)
{
	const unsigned log2 = p->log2;
	uint64_t base = c0 << log2, k = 0, h0 = base;
	for (uint64_t c = c0; c < c1; c++) {
		uint64_t e0 = c << log2, len = splitzip_chunk_len(p->n, log2, c);
		const uint16_t *x = splitzip_in_chunk(&p->in, w, e0, len);
		size_t m = p->encode(p->t, x, (size_t)len, p->codes + e0 / 2, p->sm + e0,
		                     p->spos + base + k, p->sexp + base + k);
		p->counts[c] = (uint32_t)m;
		k += m;
		if (p->want_sum)
			*csum += splitzip_hash_chunk_fold(p->k->hash_chunk(x, (size_t)len * 2), c);
		/* Histogram in batches of SZ_HIST_BATCH_ELEMS, which are still in L2: no second
		 * trip to memory, and few calls (a SIMD histogram has a per-call cost). Only a
		 * from-input codebook asks for it, and only of one array. */
		if (hist && (e0 + len - h0 >= SZ_HIST_BATCH_ELEMS || c + 1 == c1)) {
			p->k->histogram(p->in.p + h0, (size_t)(e0 + len - h0), hist);
			h0 = e0 + len;
		}
	}
	return k;
}

/* Run the pass on every worker; returns the sum of the checksum folds. */
static uint64_t encode_workers(enc_pass *p)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	uint64_t csum = 0;
	if (p->T == 1) { /* no parallel region: even a one-thread one costs ~0.5 us */
		p->wcount[0] = encode_range(p, 0, 0, C, &csum, p->whist);
		return csum;
	}
#ifdef _OPENMP
#pragma omp parallel for num_threads(p->T) reduction(+ : csum) schedule(static)
#endif
	for (int64_t w = 0; w < (int64_t)p->T; w++)
		p->wcount[w] =
		    encode_range(p, (unsigned)w, splitzip_driver_range_start(C, p->T, (unsigned)w),
		                 splitzip_driver_range_start(C, p->T, (unsigned)w + 1), &csum,
		                 p->whist ? p->whist + 256 * (size_t)w : NULL);
	return csum;
}

/*
 * The encode pass, and after a speculative one the check of its codebook against the full
 * histogram: on a misprediction the input is encoded again with the canonical codebook (the
 * checksum depends only on the input and was complete after the first pass). Returns the
 * escape total; '*t' is the codebook the sections were written with.
 */
static uint64_t encode_all(enc_pass *p, splitzip_enc_tables *own, uint64_t *csum)
{
	*csum = encode_workers(p);
	if (p->whist) {
		for (unsigned w = 1; w < p->T; w++)
			for (unsigned e = 0; e < 256; e++)
				p->whist[e] += p->whist[256 * (size_t)w + e];
		uint8_t cb[16];
		splitzip_codebook_select(p->whist, cb);
		if (memcmp(cb, p->t->codebook, 16) != 0) {
			splitzip_enc_tables_init(own, cb);
			p->t = own;
			p->whist = NULL;
			const int want_sum = p->want_sum;
			p->want_sum = 0;
			(void)encode_workers(p);
			p->want_sum = want_sum;
		}
	}
	uint64_t E = 0;
	for (unsigned w = 0; w < p->T; w++)
		E += p->wcount[w];
	return E;
}

/* Lay out the scratch of a pass over n elements in C chunks (see enc_pass). */
static splitzip_status pass_scratch(enc_pass *p, splitzip_scratch *s, int speculate)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	const size_t cnt_bytes = (size_t)splitzip_align16(4 * C);
	const size_t hist_bytes = speculate ? (size_t)p->T * 256 * sizeof(uint64_t) : 0;
	splitzip_status st = splitzip_scratch_reserve(s, cnt_bytes + hist_bytes + (size_t)p->n * 3);
	if (st != SPLITZIP_OK)
		return st;
	uint8_t *b = (uint8_t *)s->buf;
	p->counts = (uint32_t *)b;
	p->whist = speculate ? (uint64_t *)(b + cnt_bytes) : NULL;
	p->spos = (uint16_t *)(b + cnt_bytes + hist_bytes);
	p->sexp = (uint8_t *)(p->spos + p->n);
	if (p->whist)
		memset(p->whist, 0, hist_bytes);
	return SPLITZIP_OK;
}

/* ---- Encoding: writing the frame --------------------------------------------------------------
 */

/* A stored frame (FORMAT.md §4.1), if it fits in dst_cap bytes. */
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

/*
 * The sections of a split4 frame that follow the codes and sign/mantissa bytes the pass wrote
 * (FORMAT.md §4.2): the zero gaps, the chunk table of cumulative escape counts, the escapes
 * gathered in worker (= chunk) order, and the header.
 */
static void write_split4_tail(const enc_pass *p, const splitzip_layout *L, unsigned flags,
                              uint64_t csum, uint8_t *dst)
{
	const uint64_t C = L->n_chunks, E = L->n_escapes;
	for (int g = 0; g < SPLITZIP_SPLIT4_GAPS; g++)
		memset(dst + splitzip_split4_gap(L, g), 0,
		       (size_t)(splitzip_split4_gap_end(L, g) - splitzip_split4_gap(L, g)));
	uint64_t run = 0;
	for (uint64_t c = 0; c < C; c++) {
		run += p->counts[c];
		splitzip_st32(dst + L->table_off + 4 * c, (uint32_t)run);
	}
	uint64_t at = 0;
	for (unsigned w = 0; w < p->T; w++) {
		uint64_t base = splitzip_driver_range_start(C, p->T, w) << p->log2;
		memcpy(dst + L->epos_off + 2 * at, p->spos + base, (size_t)p->wcount[w] * 2);
		memcpy(dst + L->eexp_off + at, p->sexp + base, (size_t)p->wcount[w]);
		at += p->wcount[w];
	}
	splitzip_header h;
	splitzip_header_init(&h, SPLITZIP_MODE_SPLIT4, p->log2, flags, p->n);
	h.n_escapes = (uint32_t)E;
	memcpy(h.codebook, p->t->codebook, 16);
	h.frame_size = L->frame_size;
	if (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum = splitzip_hash_frame_final(p->n, csum);
	splitzip_header_write(dst, &h);
}

splitzip_status splitzip_driver_compress(const splitzip_encoder *e, splitzip_scratch *s,
                                         const uint16_t *src, uint64_t n, uint8_t *dst,
                                         size_t dst_cap, size_t *dst_size)
{
	const splitzip_in in = {src, NULL, NULL, e->chunk_log2};
	if (e->encoding == SPLITZIP_ENCODING_SPLIT4)
		return splitzip_driver_compress_split4(e, s, &in, n, dst, dst_cap, dst_size);
	return splitzip_driver_compress_entropy(e, s, &in, n, dst, dst_cap, dst_size);
}

splitzip_status splitzip_driver_compress_segments(const splitzip_encoder *e, splitzip_scratch *s,
                                                  splitzip_scratch *gather,
                                                  const splitzip_segments *src, uint64_t n,
                                                  uint8_t *dst, size_t dst_cap, size_t *dst_size)
{
	const unsigned log2 = e->chunk_log2;
	const unsigned T = splitzip_driver_workers(e->n_threads, n, splitzip_n_chunks(n, log2));
	splitzip_status st = splitzip_scratch_reserve(gather, splitzip_driver_tmp_bytes(T, log2));
	if (st != SPLITZIP_OK)
		return st;
	const splitzip_in in = {NULL, src, (uint16_t *)gather->buf, log2};
	if (e->encoding == SPLITZIP_ENCODING_SPLIT4 && e->fixed)
		return splitzip_driver_compress_split4(e, s, &in, n, dst, dst_cap, dst_size);
	if (e->encoding == SPLITZIP_ENCODING_ENTROPY && e->table)
		return splitzip_driver_compress_entropy(e, s, &in, n, dst, dst_cap, dst_size);
	return SPLITZIP_ERROR_INVALID_ARGUMENT; /* a table from segments is the caller's job */
}

splitzip_status splitzip_driver_compress_split4(const splitzip_encoder *e, splitzip_scratch *s,
                                                const splitzip_in *in, uint64_t n, uint8_t *dst,
                                                size_t dst_cap, size_t *dst_size)
{
	const unsigned log2 = e->chunk_log2;
	const int64_t max_esc = splitzip_split4_max_escapes(n, log2);
	if (max_esc < 0) /* split4 cannot win, whatever the data */
		return splitzip_driver_write_stored(e, in, n, dst, dst_cap, dst_size);
	/* The smallest frame this input can give is split4 without escapes, or stored. */
	if (dst_cap < splitzip_split4_frame_size(n, log2, 0) &&
	    dst_cap < splitzip_stored_frame_size(n))
		return SPLITZIP_ERROR_DST_TOO_SMALL;

	const uint64_t C = splitzip_n_chunks(n, log2);
	unsigned T = splitzip_driver_workers(e->n_threads, n, C);
	splitzip_enc_tables own;
	int speculate;
	enc_pass p;
	memset(&p, 0, sizeof p);
	p.t = first_tables(e, in->p, n, T, &own, &speculate);
	p.k = e->k;
	p.encode = 2 * n >= SZ_STREAM_MIN_BYTES ? e->k->encode_chunk_stream : e->k->encode_chunk;
	p.in = *in;
	p.n = n;
	p.log2 = log2;
	p.T = T > SZ_MAX_WORKERS ? SZ_MAX_WORKERS : T;
	splitzip_layout L0; /* codes and sign/mantissa bytes sit where no escape count moves them */
	splitzip_split4_layout(n, log2, 0, &L0);
	p.codes = dst + L0.codes_off;
	p.sm = dst + L0.sm_off;
	p.want_sum = (e->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	splitzip_status st = pass_scratch(&p, s, speculate);
	if (st != SPLITZIP_OK)
		return st;

	uint64_t csum;
	const uint64_t E = encode_all(&p, &own, &csum);
	if (E > (uint64_t)max_esc) /* §6.3: the stored frame is no larger */
		return splitzip_driver_write_stored(e, in, n, dst, dst_cap, dst_size);
	splitzip_layout L;
	splitzip_split4_layout(n, log2, E, &L);
	if (dst_cap < L.frame_size)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	write_split4_tail(&p, &L, e->flags, csum, dst);
	*dst_size = (size_t)L.frame_size;
	return SPLITZIP_OK;
}

/* ---- Decoding -----------------------------------------------------------------------------------
 */

int splitzip_driver_all_zero(const uint8_t *p, uint64_t n)
{
	uint8_t acc = 0;
	for (uint64_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/* One split4 frame being decoded: its validated layout and where its sections are. */
typedef struct dec_pass {
	const splitzip_host_kernels *k;
	splitzip_decode_chunk_fn decode;
	splitzip_enc_tables t; /* of the frame's codebook: which exponents are escapes */
	splitzip_layout L;
	const uint8_t *codes, *sm, *table, *epos, *eexp;
	splitzip_out out;
	int want_sum;
} dec_pass;

/*
 * Validate and patch the escapes [k0, k1) of the chunk at element e0 (len elements, decoded to
 * 'win') after its dense decode (§4.2, §8): positions strictly ascending and inside the chunk,
 * the dense code at each position 0, the exponent outside the codebook. CORRUPT_STREAM if one
 * is not.
 */
static splitzip_status patch_chunk(const dec_pass *p, uint16_t *win, uint64_t e0, uint64_t len,
                                   uint64_t k0, uint64_t k1)
{
	int64_t prev = -1;
	for (uint64_t k = k0; k < k1; k++) {
		uint64_t pos = splitzip_le16(p->epos + 2 * k);
		uint8_t e = p->eexp[k];
		if ((int64_t)pos <= prev || pos >= len || !p->t.is_escape[e])
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		uint64_t i = e0 + pos;
		if ((p->codes[i / 2] >> (4 * (i % 2))) & 0xF)
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		win[pos] = splitzip_bf16_join(e, p->sm[i]);
		prev = (int64_t)pos;
	}
	return SPLITZIP_OK;
}

/*
 * Decode and patch chunks [c0, c1) (one worker's range) of a frame whose chunk table is valid,
 * adding the checksum folds to '*csum' if want_sum. Stops at the first chunk whose escapes are
 * invalid (CORRUPT_STREAM).
 */
static splitzip_status decode_range(const dec_pass *p, unsigned w, uint64_t c0, uint64_t c1,
                                    uint64_t *csum)
{
	const uint64_t n = p->L.n_elems;
	const unsigned log2 = p->L.chunk_log2;
	for (uint64_t c = c0; c < c1; c++) {
		uint64_t e0 = c << log2, len = splitzip_chunk_len(n, log2, c);
		uint64_t k0 = c ? splitzip_le32(p->table + 4 * (c - 1)) : 0;
		uint64_t k1 = splitzip_le32(p->table + 4 * c);
		uint16_t *win = splitzip_out_window(&p->out, w, e0, len);
		p->decode(p->t.codebook, p->codes + e0 / 2, p->sm + e0, (size_t)len, win);
		splitzip_status st = patch_chunk(p, win, e0, len, k0, k1);
		if (st != SPLITZIP_OK)
			return st;
		if (p->want_sum)
			*csum +=
			    splitzip_hash_chunk_fold(p->k->hash_chunk(win, (size_t)len * 2), c);
		splitzip_out_flush(&p->out, e0, len, win);
	}
	return SPLITZIP_OK;
}

/*
 * FORMAT.md §4.2: zero padding (the high nibble after an odd last element and every gap), and a
 * chunk table that is non-decreasing, gives no chunk more escapes than elements and ends at
 * Escape_Count. After this every chunk's escape range lies inside the escape sections.
 */
static int split4_body_ok(const dec_pass *p, const uint8_t *src)
{
	const splitzip_layout *L = &p->L;
	const uint64_t n = L->n_elems;
	if (n % 2 && (p->codes[n / 2] >> 4))
		return 0;
	for (int g = 0; g < SPLITZIP_SPLIT4_GAPS; g++) {
		const uint64_t a = splitzip_split4_gap(L, g);
		if (!splitzip_driver_all_zero(src + a, splitzip_split4_gap_end(L, g) - a))
			return 0;
	}
	uint64_t prev = 0;
	for (uint64_t c = 0; c < L->n_chunks; c++) {
		uint64_t end = splitzip_le32(p->table + 4 * c);
		if (end < prev || end - prev > splitzip_chunk_len(n, L->chunk_log2, c))
			return 0;
		prev = end;
	}
	return prev == L->n_escapes;
}

/* Decode the body of a split4 frame whose header is valid. */
static splitzip_status decode_split4(const splitzip_host_kernels *k, unsigned n_threads,
                                     const splitzip_header *h, const uint8_t *src,
                                     const splitzip_out *dst)
{
	dec_pass p;
	p.k = k;
	splitzip_split4_layout(h->n_elems, h->chunk_log2, h->n_escapes, &p.L);
	p.codes = src + p.L.codes_off;
	p.sm = src + p.L.sm_off;
	p.table = src + p.L.table_off;
	p.epos = src + p.L.epos_off;
	p.eexp = src + p.L.eexp_off;
	p.out = *dst;
	p.want_sum = (h->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	p.decode = 2 * h->n_elems >= SZ_STREAM_MIN_BYTES && !p.want_sum && dst->p
	               ? k->decode_chunk_stream
	               : k->decode_chunk;
	if (!split4_body_ok(&p, src))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	splitzip_enc_tables_init(&p.t, h->codebook);

	const uint64_t C = p.L.n_chunks;
	const unsigned T = splitzip_driver_workers(n_threads, h->n_elems, C);
	uint64_t csum = 0;
	int worst = SPLITZIP_OK; /* the workers' statuses: OK or CORRUPT_STREAM */
	if (T == 1) {            /* no parallel region: even a one-thread one costs ~0.5 us */
		worst = decode_range(&p, 0, 0, C, &csum);
	} else {
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) reduction(+ : csum) reduction(max : worst) schedule(static)
#endif
		for (int64_t w = 0; w < (int64_t)T; w++) {
			int st = decode_range(
			    &p, (unsigned)w, splitzip_driver_range_start(C, T, (unsigned)w),
			    splitzip_driver_range_start(C, T, (unsigned)w + 1), &csum);
			worst = st > worst ? st : worst;
		}
	}
	if (worst != SPLITZIP_OK)
		return (splitzip_status)worst;
	if (p.want_sum && splitzip_hash_frame_final(h->n_elems, csum) != h->content_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	return SPLITZIP_OK;
}

/* Decode the body of a stored frame whose header is valid (FORMAT.md §4.1). */
static splitzip_status decode_stored(const splitzip_host_kernels *k, unsigned n_threads,
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

/*
 * Decode the frame at src into 'dst' (room for dst_cap elements). Segments get their gather
 * space from 'gather' once the header is known to be valid: a chunk per worker.
 */
static splitzip_status decode_frame(const splitzip_host_kernels *k, unsigned n_threads,
                                    const uint8_t *src, size_t src_size, size_t *src_consumed,
                                    splitzip_out *dst, splitzip_scratch *gather, uint64_t dst_cap,
                                    size_t *n_elems)
{
	splitzip_header h;
	splitzip_status st = splitzip_read_header(src, src_size, &h);
	if (st != SPLITZIP_OK)
		return st;
	if (h.frame_size > src_size)
		return SPLITZIP_ERROR_TRUNCATED;
	if (h.n_elems > dst_cap)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	if (!dst->p && h.n_elems) {
		/* No destination pointer: gather space for segments. An empty frame needs none
		 * (splitzip_frame_decompress accepts dst NULL with a capacity of 0). */
		if (!gather)
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
		const unsigned T = splitzip_driver_workers(
		    n_threads, h.n_elems, splitzip_n_chunks(h.n_elems, h.chunk_log2));
		st = splitzip_scratch_reserve(gather, splitzip_driver_tmp_bytes(T, h.chunk_log2));
		if (st != SPLITZIP_OK)
			return st;
		dst->tmp = (uint16_t *)gather->buf;
		dst->log2 = h.chunk_log2;
	}
	st = h.mode == SPLITZIP_MODE_STORED ? decode_stored(k, n_threads, &h, src, dst)
	     : h.mode == SPLITZIP_MODE_SPLIT4
	         ? decode_split4(k, n_threads, &h, src, dst)
	         : splitzip_driver_decode_entropy(k, n_threads, &h, src, dst);
	if (st != SPLITZIP_OK)
		return st;
	*src_consumed = (size_t)h.frame_size;
	*n_elems = (size_t)h.n_elems;
	return SPLITZIP_OK;
}

splitzip_status splitzip_driver_decode(const splitzip_host_kernels *k, unsigned n_threads,
                                       const uint8_t *src, size_t src_size, size_t *src_consumed,
                                       uint16_t *dst, size_t dst_cap, size_t *n_elems)
{
	splitzip_out out = {dst, NULL, NULL, 0};
	return decode_frame(k, n_threads, src, src_size, src_consumed, &out, NULL, dst_cap,
	                    n_elems);
}

splitzip_status splitzip_driver_decode_segments(const splitzip_host_kernels *k, unsigned n_threads,
                                                splitzip_scratch *s, const uint8_t *src,
                                                size_t src_size, size_t *src_consumed,
                                                const splitzip_segments *dst, uint64_t dst_cap,
                                                size_t *n_elems)
{
	splitzip_out out = {NULL, dst, NULL, 0};
	return decode_frame(k, n_threads, src, src_size, src_consumed, &out, s, dst_cap, n_elems);
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
