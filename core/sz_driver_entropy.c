/*
 * sz_driver_entropy.c -- the entropy leaf of the host frame driver (core/sz_driver_impl.h): the
 * encode pass of an entropy frame (doc/FORMAT.md §4.3) with a given table and a host backend's
 * mode-2 chunk kernels, the sections after it, and the validating decoder of §4.3.6. Chunks
 * are split across worker threads like split4 (core/sz_driver_split4.c): per-chunk results
 * are combined in chunk order, so the frame never depends on the thread count.
 *
 * The sign/mantissa bytes sit at a fixed offset (§4.3.2) and are written straight into the
 * destination; each chunk's words go to its own slot of scratch memory, because where a
 * chunk's words start depends on the sizes of the chunks before it. Once every chunk is done,
 * the code lengths, the chunk table and the words are written behind the sign/mantissa bytes
 * (splitzip_entropy_finish) -- if the entry file (core/sz_driver.c) decides that the entropy
 * frame is the one to write.
 *
 * Decoding validates the paddings, the code lengths and the chunk table before any chunk is
 * decoded; the chunk kernels validate every word count and escape as they go (§4.3.6), so a
 * frame from outside never makes the decoder read or write out of bounds.
 */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "sz_driver_impl.h"

/* ---- Encoding ---------------------------------------------------------------------------- */

/* Encode chunks [c0, c1) (one worker's range); returns the range's checksum folds. */
static uint64_t ent_encode_range(const splitzip_entropy_enc *p, unsigned w, uint64_t c0,
                                 uint64_t c1)
{
	uint64_t csum = 0;
	for (uint64_t c = c0; c < c1; c++) {
		const uint64_t e0 = c << p->log2, len = splitzip_chunk_len(p->n, p->log2, c);
		const uint16_t *x = splitzip_in_chunk(&p->in, w, e0, len);
		size_t nw = 0;
		p->ne[c] = (uint32_t)p->k->entropy_encode_chunk(&p->enc, x, (size_t)len, p->sm + e0,
		                                                p->words + 2 * c * p->stride, &nw);
		p->nw[c] = (uint32_t)nw;
		if (p->want_sum)
			csum += splitzip_hash_chunk_fold(p->k->hash_chunk(x, (size_t)len * 2), c);
	}
	return csum;
}

/* Run the pass on every worker; returns the sum of the checksum folds. */
static uint64_t ent_encode_workers(const splitzip_entropy_enc *p)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	if (p->T == 1) /* no parallel region: even a one-thread one costs ~0.5 us */
		return ent_encode_range(p, 0, 0, C);
	uint64_t csum = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(p->T) reduction(+ : csum) schedule(static)
#endif
	for (int64_t w = 0; w < (int64_t)p->T; w++)
		csum += ent_encode_range(p, (unsigned)w,
		                         splitzip_driver_range_start(C, p->T, (unsigned)w),
		                         splitzip_driver_range_start(C, p->T, (unsigned)w + 1));
	return csum;
}

/* Lay out the scratch of a pass: the word slots, then the per-chunk counts. */
static splitzip_status ent_scratch(splitzip_entropy_enc *p, splitzip_scratch *s)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	p->stride = splitzip_entropy_chunk_words_max((uint64_t)1 << p->log2);
	if (C == 1) /* one chunk: room for its own length only */
		p->stride = splitzip_entropy_chunk_words_max(p->n);
	const uint64_t words_bytes = splitzip_align16(2 * C * p->stride);
	const uint64_t total = words_bytes + 8 * C;
	if (total > (uint64_t)SIZE_MAX)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	splitzip_status st = splitzip_scratch_reserve(s, (size_t)total);
	if (st != SPLITZIP_OK)
		return st;
	p->words = (uint8_t *)s->buf;
	p->nw = (uint32_t *)(void *)(p->words + words_bytes);
	p->ne = p->nw + C;
	return SPLITZIP_OK;
}

splitzip_status splitzip_entropy_run(splitzip_entropy_enc *p, const splitzip_encoder *e,
                                     splitzip_scratch *s, const splitzip_in *in, uint64_t n,
                                     const splitzip_entropy_table *t, uint8_t *dst)
{
	p->k = e->k;
	p->table = t;
	p->in = *in;
	p->n = n;
	p->log2 = e->chunk_log2;
	p->T = splitzip_driver_workers(e->n_threads, n, splitzip_n_chunks(n, e->chunk_log2));
	p->sm = dst + SPLITZIP_FRAME_HEADER_SIZE;
	p->want_sum = (e->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	splitzip_status st = ent_scratch(p, s);
	if (st != SPLITZIP_OK)
		return st;
	splitzip_entropy_enc_init(&p->enc, t);
	p->csum = ent_encode_workers(p);
	const uint64_t C = splitzip_n_chunks(n, p->log2);
	uint64_t W = 0;
	p->E = 0;
	for (uint64_t c = 0; c < C; c++) {
		W += p->nw[c];
		p->E += p->ne[c];
	}
	unsigned first, last;
	p->lengths_bytes = splitzip_entropy_lengths_write(t, p->lengths, &first, &last);
	splitzip_entropy_layout_of(n, p->log2, W, first, last, &p->L);
	return SPLITZIP_OK;
}

/*
 * Everything after the sign/mantissa bytes the pass wrote (FORMAT.md §4.3.2): the zero gaps,
 * the code lengths, the chunk table of cumulative word counts, the words in chunk order, and
 * the header.
 */
void splitzip_entropy_finish(const splitzip_entropy_enc *p, unsigned flags, uint8_t *dst)
{
	const splitzip_entropy_layout *L = &p->L;
	for (int g = 0; g < SPLITZIP_ENTROPY_GAPS; g++)
		memset(dst + splitzip_entropy_gap(L, g), 0,
		       (size_t)(splitzip_entropy_gap_end(L, g) - splitzip_entropy_gap(L, g)));
	memcpy(dst + L->lengths_off, p->lengths, p->lengths_bytes);
	uint64_t run = 0;
	for (uint64_t c = 0; c < L->n_chunks; c++) {
		memcpy(dst + L->stream_off + 2 * run, p->words + 2 * c * p->stride,
		       (size_t)p->nw[c] * 2);
		run += p->nw[c];
		splitzip_st32(dst + L->chunk_table_off + 4 * c, (uint32_t)run);
	}
	splitzip_header h;
	splitzip_header_init(&h, SPLITZIP_MODE_ENTROPY, p->log2, flags, p->n);
	h.n_escapes = (uint32_t)p->E;
	h.n_words = (uint32_t)L->n_words;
	h.table_first = L->table_first;
	h.table_last = L->table_last;
	h.escape_length = p->table->escape_length;
	h.frame_size = L->frame_size;
	if (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum = splitzip_hash_frame_final(p->n, p->csum);
	splitzip_header_write(dst, &h);
}

uint64_t splitzip_entropy_size_floor(const splitzip_entropy_table *t, const uint64_t hist[256],
                                     uint64_t n, unsigned log2)
{
	uint64_t bits = 0;
	for (unsigned e = 0; e < 256; e++)
		bits += hist[e] * (t->lengths[e] ? t->lengths[e]
		                                 : t->escape_length + SPLITZIP_ENTROPY_RAW_BITS);
	uint8_t lengths[128];
	unsigned first, last;
	(void)splitzip_entropy_lengths_write(t, lengths, &first, &last);
	return splitzip_entropy_frame_size(n, log2, (bits + 15) / 16, first, last);
}

/* ---- Decoding ---------------------------------------------------------------------------- */

/* One entropy frame being decoded: its validated layout and where its sections are. */
typedef struct ent_dec {
	const splitzip_host_kernels *k;
	splitzip_entropy_dec_tables dec;
	splitzip_entropy_layout L;
	const uint8_t *sm, *chunk_table, *stream;
	splitzip_out out;
	int want_sum;
} ent_dec;

/* Chunk c of the frame, decoded to 'win' (its window in the destination). */
static splitzip_entropy_chunk ent_chunk(const ent_dec *p, uint64_t c, uint16_t *win)
{
	const uint64_t w0 = c ? splitzip_le32(p->chunk_table + 4 * (c - 1)) : 0;
	const uint64_t w1 = splitzip_le32(p->chunk_table + 4 * c);
	const splitzip_entropy_chunk k = {
	    p->stream + 2 * w0,
	    (size_t)(w1 - w0),
	    p->sm + (c << p->L.chunk_log2),
	    (size_t)splitzip_chunk_len(p->L.n_elems, p->L.chunk_log2, c),
	    win,
	    0};
	return k;
}

/*
 * Decode chunks [c0, c1) (one worker's range) of a frame whose chunk table is valid, adding
 * their escapes to '*n_esc' and their checksum folds to '*csum'. Into one array, two chunks
 * at a time (entropy_decode_pair). Stops at the first invalid chunk (CORRUPT_STREAM).
 */
static splitzip_status ent_decode_range(const ent_dec *p, unsigned w, uint64_t c0, uint64_t c1,
                                        uint64_t *n_esc, uint64_t *csum)
{
	const unsigned log2 = p->L.chunk_log2;
	for (uint64_t c = c0; c < c1;) {
		splitzip_entropy_chunk k[2];
		const unsigned m = p->out.p && c + 1 < c1 ? 2 : 1;
		for (unsigned j = 0; j < m; j++) {
			const uint64_t len = splitzip_chunk_len(p->L.n_elems, log2, c + j);
			k[j] = ent_chunk(p, c + j,
			                 splitzip_out_window(&p->out, w, (c + j) << log2, len));
		}
		splitzip_status st =
		    m == 2 ? p->k->entropy_decode_pair(&p->dec, k)
		           : p->k->entropy_decode_chunk(&p->dec, k[0].words, k[0].n_words, k[0].sm,
		                                        k[0].n, k[0].dst, &k[0].n_escapes);
		if (st != SPLITZIP_OK)
			return st;
		for (unsigned j = 0; j < m; j++, c++) {
			*n_esc += k[j].n_escapes;
			if (p->want_sum)
				*csum += splitzip_hash_chunk_fold(
				    p->k->hash_chunk(k[j].dst, k[j].n * 2), c);
			splitzip_out_flush(&p->out, c << log2, k[j].n, k[j].dst);
		}
	}
	return SPLITZIP_OK;
}

/*
 * FORMAT.md §4.3.6 rules 1-3: zero padding (gaps and the pad nibble), valid code lengths, and a
 * chunk table that is non-decreasing and ends at Stream_Words. After this, every chunk's words
 * lie inside the word section.
 */
static int ent_body_ok(ent_dec *p, const splitzip_header *h, const uint8_t *src)
{
	const splitzip_entropy_layout *L = &p->L;
	for (int g = 0; g < SPLITZIP_ENTROPY_GAPS; g++) {
		const uint64_t a = splitzip_entropy_gap(L, g);
		if (!splitzip_driver_all_zero(src + a, splitzip_entropy_gap_end(L, g) - a))
			return 0;
	}
	splitzip_entropy_table t;
	if (!splitzip_entropy_frame_table(src, h, &t))
		return 0;
	uint64_t prev = 0;
	for (uint64_t c = 0; c < L->n_chunks; c++) {
		const uint64_t end = splitzip_le32(p->chunk_table + 4 * c);
		if (end < prev)
			return 0;
		prev = end;
	}
	if (prev != L->n_words)
		return 0;
	splitzip_entropy_dec_init(&p->dec, &t);
	return 1;
}

splitzip_status splitzip_entropy_decode(const splitzip_host_kernels *k, unsigned n_threads,
                                        const splitzip_header *h, const uint8_t *src,
                                        const splitzip_out *dst)
{
	ent_dec p;
	p.k = k;
	splitzip_entropy_layout_of(h->n_elems, h->chunk_log2, h->n_words, h->table_first,
	                           h->table_last, &p.L);
	p.sm = src + p.L.sm_off;
	p.chunk_table = src + p.L.chunk_table_off;
	p.stream = src + p.L.stream_off;
	p.out = *dst;
	p.want_sum = (h->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	if (!ent_body_ok(&p, h, src))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	const uint64_t C = p.L.n_chunks;
	const unsigned T = splitzip_driver_workers(n_threads, h->n_elems, C);
	uint64_t csum = 0, n_esc = 0;
	int worst = SPLITZIP_OK; /* the workers' statuses: OK or CORRUPT_STREAM */
	if (T == 1) {
		worst = ent_decode_range(&p, 0, 0, C, &n_esc, &csum);
	} else {
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) reduction(+ : csum, n_esc) reduction(max : worst)          \
    schedule(static)
#endif
		for (int64_t w = 0; w < (int64_t)T; w++) {
			int st = ent_decode_range(
			    &p, (unsigned)w, splitzip_driver_range_start(C, T, (unsigned)w),
			    splitzip_driver_range_start(C, T, (unsigned)w + 1), &n_esc, &csum);
			worst = st > worst ? st : worst;
		}
	}
	if (worst != SPLITZIP_OK)
		return (splitzip_status)worst;
	if (n_esc != h->n_escapes) /* §4.3.6 rule 5 */
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	if (p.want_sum && splitzip_hash_frame_final(h->n_elems, csum) != h->content_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	return SPLITZIP_OK;
}
