/*
 * sz_api_pages_host.c -- page streams in host memory (doc/FORMAT.md §12, version 2): pages
 * packed into one wire buffer and scattered back, for a context bound to a host backend. The
 * stream's table comes from the histogram of all pages (or is fixed), each page's raw bit from
 * its own histogram (§12.4), and the frames are encoded and decoded by the frame driver
 * straight from and into the pages (core/sz_driver.h, segments), with no copy of the pages
 * into one buffer. The layout and every check come from core/sz_pages.h.
 */
#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/sz_codebook.h"
#include "sz_api_pages.h"

/* Page lists at least this large get their histograms on several threads. */
#define SZ_PAGES_PARALLEL_MIN_ELEMS ((uint64_t)1 << 16)

/* The host kernels of a context: its backend's, or, for a context bound to a device backend,
 * the best host backend's (host memory is packed on the CPU: the streams are the same bytes on
 * every backend). */
static const splitzip_host_kernels *hk(const splitzip_ctx *ctx)
{
	return ctx->backend->host ? ctx->backend->host : splitzip_best_host_kernels();
}

/* ---- The pages of a call ------------------------------------------------------------------- */

static void list_free(splitzip_pages_list *l)
{
	free(l->mem);
	l->mem = NULL;
}

/* The list of n pages of elems[i] elements at pages[i]. */
static splitzip_status list_init(splitzip_pages_list *l, size_t n, const void *const *pages,
                                 const uint64_t *elems, const size_t *page_bytes)
{
	memset(l, 0, sizeof *l);
	/* Per page: 3 pointers (page, two segment lists), 4 counts (elements, escapes, two
	 * segment starts) and 2 raw bits; the segment starts have one entry more. */
	const size_t per = 3 * sizeof(void *) + 4 * sizeof(uint64_t) + 2;
	if (n > (SIZE_MAX - 64) / per)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	l->mem = malloc(per * n + 2 * sizeof(uint64_t) + 2);
	if (!l->mem)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	l->n = n;
	l->page = (uint16_t **)l->mem;
	l->seg_coded = l->page + n;
	l->seg_raw = l->seg_coded + n;
	l->elems = (uint64_t *)(void *)(l->seg_raw + n);
	l->esc = l->elems + n;
	l->start_coded = l->esc + n;
	l->start_raw = l->start_coded + n + 1;
	l->raw[0] = (uint8_t *)(void *)(l->start_raw + n + 1);
	l->raw[1] = l->raw[0] + n;
	for (size_t i = 0; i < n; i++) {
		l->page[i] = (uint16_t *)(uintptr_t)pages[i];
		l->elems[i] = elems ? elems[i] : page_bytes ? page_bytes[i] / 2 : 0;
		l->total += l->elems[i];
	}
	return SPLITZIP_OK;
}

/* The coded and raw segments of candidate c: the pages of each kind in page order, empty
 * pages left out; also the element counts of both. */
static void list_segments(splitzip_pages_list *l, int c, splitzip_segments *coded,
                          splitzip_segments *raw)
{
	uint64_t nc = 0, nr = 0, ec = 0, er = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (!l->elems[i])
			continue;
		if (l->raw[c][i]) {
			l->seg_raw[nr] = l->page[i];
			l->start_raw[nr++] = er;
			er += l->elems[i];
		} else {
			l->seg_coded[nc] = l->page[i];
			l->start_coded[nc++] = ec;
			ec += l->elems[i];
		}
	}
	l->start_coded[nc] = ec;
	l->start_raw[nr] = er;
	*coded = (splitzip_segments){l->seg_coded, l->start_coded, nc, 0};
	*raw = (splitzip_segments){l->seg_raw, l->start_raw, nr, 0};
	l->coded_elems = ec;
	l->raw_elems = er;
}

/* ---- Tables and raw bits (FORMAT.md §12.4) ---------------------------------------------- */

/* Which candidates an encoding builds: bit 0 split4, bit 1 entropy. */
static unsigned candidates(splitzip_encoding enc)
{
	return enc == SPLITZIP_ENCODING_SPLIT4 ? 1u : enc == SPLITZIP_ENCODING_ENTROPY ? 2u : 3u;
}

/* Pages shorter than this are gathered into batches for the histogram of all pages: a SIMD
 * histogram has a cost per call that short inputs do not amortise. */
#define SZ_PAGES_HIST_BATCH ((size_t)1 << 15)

/* hist += the exponent histogram of every element of every page. */
static splitzip_status all_histogram(const splitzip_host_kernels *k, const splitzip_pages_list *l,
                                     uint64_t hist[256])
{
	uint16_t *buf = NULL;
	size_t fill = 0;
	for (size_t i = 0; i < l->n; i++) {
		const size_t n = (size_t)l->elems[i];
		if (!n) /* an empty page may be NULL: nothing to copy */
			continue;
		if (n >= SZ_PAGES_HIST_BATCH / 4) {
			k->histogram(l->page[i], n, hist);
			continue;
		}
		if (!buf && !(buf = (uint16_t *)malloc(SZ_PAGES_HIST_BATCH * sizeof *buf)))
			return SPLITZIP_ERROR_OUT_OF_MEMORY;
		if (fill + n > SZ_PAGES_HIST_BATCH) {
			k->histogram(buf, fill, hist);
			fill = 0;
		}
		memcpy(buf + fill, l->page[i], n * 2);
		fill += n;
	}
	if (fill)
		k->histogram(buf, fill, hist);
	free(buf);
	return SPLITZIP_OK;
}

/* The tables of the candidates: fixed ones from the context, the others from the histogram of
 * every element of every page. */
static splitzip_status choose_tables(const splitzip_ctx *ctx, const splitzip_pages_list *l,
                                     unsigned cand, splitzip_pages_tables *t)
{
	const splitzip_params *p = &ctx->params;
	t->fixed[SZ_PG_SPLIT4] = p->codebook_mode == SPLITZIP_CODEBOOK_FIXED;
	t->fixed[SZ_PG_ENTROPY] = p->table_mode == SPLITZIP_CODEBOOK_FIXED;
	uint64_t hist[256] = {0};
	if (((cand & 1) && !t->fixed[SZ_PG_SPLIT4]) || ((cand & 2) && !t->fixed[SZ_PG_ENTROPY])) {
		splitzip_status st = all_histogram(hk(ctx), l, hist);
		if (st != SPLITZIP_OK)
			return st;
	}
	uint8_t cb[16];
	if (t->fixed[SZ_PG_SPLIT4])
		memcpy(cb, p->codebook.exponents, 16);
	else
		splitzip_codebook_select(hist, cb);
	splitzip_enc_tables_init(&t->cb, cb);
	if (t->fixed[SZ_PG_ENTROPY])
		t->table = p->table;
	else if (!(cand & 2) || !splitzip_entropy_table_select(hist, &t->table))
		memset(&t->table, 0, sizeof t->table); /* no elements: no frame either */
	return SPLITZIP_OK;
}

/* Pages at least this long get their costs from a (SIMD) histogram, shorter ones from the
 * per-element cost tables (a histogram costs too much per call for them). */
#define SZ_PAGES_HIST_MIN_ELEMS ((size_t)4096)

/* The per-exponent costs of a decision, and what is known about the codebook. */
typedef struct pk_costs {
	uint8_t c4[256], ce[256]; /* split4: 1 for an escape; entropy: the code length (+ 8) */
	unsigned cand;
	int window; /* the codebook is the window base..base+15 */
	uint8_t base;
} pk_costs;

/*
 * Page i's raw bits under the candidates' tables (splitzip_pages_raw_split4() and
 * splitzip_pages_raw_entropy() of its histogram, as sums over its elements of a cost per
 * exponent), and its escapes under the codebook.
 */
static void page_decide(const splitzip_host_kernels *k, splitzip_pages_list *l, size_t i,
                        const pk_costs *c)
{
	const uint16_t *x = l->page[i];
	const size_t n = (size_t)l->elems[i];
	uint64_t esc = 0, bits = 0;
	if (n >= SZ_PAGES_HIST_MIN_ELEMS && (c->cand & 2)) {
		uint64_t h[256] = {0};
		k->histogram(x, n, h);
		for (unsigned e = 0; e < 256; e++) {
			esc += h[e] * c->c4[e];
			bits += h[e] * c->ce[e];
		}
	} else if (c->cand == 1 && c->window) {
		esc = splitzip_pages_outside(x, n, c->base);
	} else {
		splitzip_pages_costs(x, n, c->c4, c->ce, &esc, &bits);
	}
	l->esc[i] = esc;
	l->raw[SZ_PG_SPLIT4][i] = 6 * esc >= n;
	l->raw[SZ_PG_ENTROPY][i] = 8 * n + bits >= 16 * n;
}

static splitzip_status decide(const splitzip_ctx *ctx, splitzip_pages_list *l, unsigned cand,
                              splitzip_pages_tables *t)
{
	splitzip_status st = choose_tables(ctx, l, cand, t);
	if (st != SPLITZIP_OK)
		return st;
	pk_costs c;
	c.cand = cand;
	c.window = t->cb.contiguous;
	c.base = t->cb.base;
	for (unsigned e = 0; e < 256; e++) {
		c.c4[e] = t->cb.is_escape[e];
		c.ce[e] = (uint8_t)(!(cand & 2) ? 0
		                    : t->table.lengths[e]
		                        ? t->table.lengths[e]
		                        : t->table.escape_length + SPLITZIP_ENTROPY_RAW_BITS);
	}
	const splitzip_host_kernels *k = hk(ctx);
#ifdef _OPENMP
	const int T = ctx->params.n_threads ? (int)ctx->params.n_threads : omp_get_max_threads();
	const int par = l->total >= SZ_PAGES_PARALLEL_MIN_ELEMS && l->n > 1 && T > 1;
#pragma omp parallel for num_threads(T) schedule(dynamic, 64) if (par)
#endif
	for (int64_t i = 0; i < (int64_t)l->n; i++)
		page_decide(k, l, (size_t)i, &c);
	return SPLITZIP_OK;
}

/* ---- Encoding a candidate ------------------------------------------------------------------ */

/* The content checksum (FORMAT.md §7.2) of the elements in n_bytes bytes at p, any alignment. */
static uint64_t bytes_checksum(const splitzip_host_kernels *k, const uint8_t *p, uint64_t n_bytes,
                               unsigned log2)
{
	const uint64_t n = n_bytes / 2, C = splitzip_n_chunks(n, log2);
	uint64_t sum = 0;
	for (uint64_t c = 0; c < C; c++)
		sum += splitzip_hash_chunk_fold(
		    k->hash_chunk(p + (c << (log2 + 1)),
		                  (size_t)splitzip_chunk_len(n, log2, c) * 2),
		    c);
	return splitzip_hash_frame_final(n, sum);
}

/* The frames of the coded segments, at dst + off (room up to cap); '*off' moves past them. */
static splitzip_status encode_frames(splitzip_workmem *w, const splitzip_encoder *e,
                                     splitzip_segments *coded, uint64_t coded_elems, uint8_t *dst,
                                     size_t cap, uint64_t *off)
{
	const uint64_t F = splitzip_pages_n_frames(coded_elems);
	for (uint64_t j = 0; j < F; j++) {
		if (*off > cap)
			return SPLITZIP_ERROR_DST_TOO_SMALL;
		coded->first = j << SPLITZIP_PAGES_FRAME_LOG2;
		size_t fs = 0;
		splitzip_status st = splitzip_driver_compress_segments(
		    e, &w->scratch, &w->gather, coded, splitzip_pages_frame_elems(coded_elems, j),
		    dst + *off, cap - (size_t)*off, &fs);
		if (st != SPLITZIP_OK)
			return st;
		*off += fs;
	}
	return SPLITZIP_OK;
}

/* The raw section: the raw pages' bytes in page order, at dst + off. */
static void write_raw(const splitzip_segments *raw, uint8_t *dst)
{
	for (uint64_t k = 0; k < raw->n_segs; k++)
		memcpy(dst + 2 * raw->start[k], raw->ptr[k],
		       (size_t)(raw->start[k + 1] - raw->start[k]) * 2);
}

/* What a candidate writes besides its frames and pages. */
typedef struct pk_job {
	splitzip_workmem *w; /* the call's work memory */
	splitzip_pages_list *l;
	const splitzip_pages_tables *t;
	int c;          /* the candidate */
	unsigned flags; /* Stream_Flags */
	uint32_t table_id;
} pk_job;

/* The header and page table of a candidate whose sections are written. */
static void write_head(const splitzip_ctx *ctx, const pk_job *j, const splitzip_pages_layout *L,
                       uint64_t raw_checksum, uint8_t *dst)
{
	const splitzip_pages_list *l = j->l;
	for (size_t i = 0; i < l->n; i++)
		splitzip_pages_entry_write(dst, i, l->elems[i], l->raw[j->c][i]);
	splitzip_pages_header h;
	h.version = SPLITZIP_PAGES_FORMAT_VERSION;
	h.flags = j->flags | (j->t->fixed[j->c] ? SPLITZIP_PAGES_FLAG_FIXED_TABLE : 0u);
	h.encoding = j->c == SZ_PG_SPLIT4 ? SPLITZIP_MODE_SPLIT4 : SPLITZIP_MODE_ENTROPY;
	h.chunk_log2 = ctx->params.chunk_log2;
	h.n_pages = (uint32_t)l->n;
	h.table_id = j->t->fixed[j->c] ? j->table_id : 0;
	h.total_elems = l->total;
	h.frames_size = L->frames_end - L->frames_off;
	h.stream_size = L->stream_size;
	h.raw_checksum = raw_checksum;
	h.table_checksum = splitzip_pages_table_checksum(dst, l->n);
	splitzip_pages_header_write(dst, &h);
}

/* The whole stream of candidate j->c at dst (cap bytes); '*size' its size. */
static splitzip_status encode_candidate(splitzip_ctx *ctx, const pk_job *j, uint8_t *dst,
                                        size_t cap, uint64_t *size)
{
	splitzip_pages_list *l = j->l;
	splitzip_segments coded, raw;
	list_segments(l, j->c, &coded, &raw);
	splitzip_encoder e;
	memset(&e, 0, sizeof e);
	e.k = hk(ctx);
	e.chunk_log2 = ctx->params.chunk_log2;
	e.flags = (j->flags & SPLITZIP_PAGES_FLAG_CHECKSUM) ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0u;
	e.n_threads = ctx->params.n_threads;
	e.encoding = j->c == SZ_PG_SPLIT4 ? SPLITZIP_ENCODING_SPLIT4 : SPLITZIP_ENCODING_ENTROPY;
	e.fixed = &j->t->cb;
	e.table = &j->t->table;
	const uint64_t table_end = splitzip_pages_table_end(l->n);
	const uint64_t frames_off = splitzip_pages_frames_offset(l->n);
	uint64_t off = frames_off;
	splitzip_status st = encode_frames(j->w, &e, &coded, l->coded_elems, dst, cap, &off);
	if (st != SPLITZIP_OK)
		return st;
	splitzip_pages_layout L;
	splitzip_pages_layout_of(l->n, l->coded_elems, l->raw_elems, off - frames_off, &L);
	if (L.stream_size > cap)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	memset(dst + table_end, 0, (size_t)(L.frames_off - table_end));
	memset(dst + L.frames_end, 0, (size_t)(L.raw_off - L.frames_end));
	write_raw(&raw, dst + L.raw_off);
	const uint64_t raw_sum =
	    (j->flags & SPLITZIP_PAGES_FLAG_CHECKSUM)
	        ? bytes_checksum(e.k, dst + L.raw_off, 2 * l->raw_elems, e.chunk_log2)
	        : 0;
	write_head(ctx, j, &L, raw_sum, dst);
	*size = L.stream_size;
	return SPLITZIP_OK;
}

/* ---- AUTO: the size of the split4 candidate, without encoding it ------------------------- */

/* Escapes of elements [a, b) of page i under the codebook (a piece of a page that a frame
 * boundary cuts). */
static uint64_t piece_escapes(const splitzip_host_kernels *k, const splitzip_pages_list *l,
                              size_t i, uint64_t a, uint64_t b, const splitzip_enc_tables *cb)
{
	uint64_t h[256] = {0};
	k->histogram(l->page[i] + a, (size_t)(b - a), h);
	uint64_t esc = 0;
	for (unsigned e = 0; e < 256; e++)
		esc += cb->is_escape[e] ? h[e] : 0;
	return esc;
}

/*
 * The stream size of the split4 candidate (FORMAT.md §12.4): its frames' sizes follow from
 * their element and escape counts (§4.2, §6.3), the escapes of frame j being those of the
 * coded pages it covers; '*size' receives it. OUT_OF_MEMORY for the per-frame counts.
 */
static splitzip_status split4_size(const splitzip_ctx *ctx, splitzip_pages_list *l,
                                   const splitzip_enc_tables *cb, uint64_t *size)
{
	splitzip_segments coded, raw;
	list_segments(l, SZ_PG_SPLIT4, &coded, &raw);
	const uint64_t F = splitzip_pages_n_frames(l->coded_elems), L2 = SPLITZIP_PAGES_FRAME_LOG2;
	uint64_t *E = (uint64_t *)calloc(F ? F : 1, sizeof *E);
	if (!E)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	uint64_t o = 0; /* coded position of page i */
	for (size_t i = 0; i < l->n; i++) {
		if (l->raw[SZ_PG_SPLIT4][i] || !l->elems[i])
			continue;
		const uint64_t end = o + l->elems[i];
		if ((o >> L2) == ((end - 1) >> L2)) {
			E[o >> L2] += l->esc[i];
		} else { /* cut by frame boundaries: count each piece */
			for (uint64_t a = o; a < end;) {
				const uint64_t b =
				    ((a >> L2) + 1) << L2 < end ? ((a >> L2) + 1) << L2 : end;
				E[a >> L2] += piece_escapes(hk(ctx), l, i, a - o, b - o, cb);
				a = b;
			}
		}
		o = end;
	}
	const unsigned log2 = ctx->params.chunk_log2;
	uint64_t frames = 0;
	for (uint64_t j = 0; j < F; j++) {
		const uint64_t n = splitzip_pages_frame_elems(l->coded_elems, j);
		frames += splitzip_split4_wins(n, log2, E[j])
		              ? splitzip_split4_frame_size(n, log2, E[j])
		              : splitzip_stored_frame_size(n);
	}
	free(E);
	splitzip_pages_layout L;
	splitzip_pages_layout_of(l->n, l->coded_elems, l->raw_elems, frames, &L);
	*size = L.stream_size;
	return SPLITZIP_OK;
}

/*
 * AUTO (FORMAT.md §12.4): the smaller of the two candidate streams, split4 on a tie. The
 * entropy candidate is encoded to learn its size, into dst when every stream of these pages
 * fits there, else into memory of its own.
 */
static splitzip_status encode_auto(splitzip_ctx *ctx, pk_job *j, uint8_t *dst, size_t cap,
                                   uint64_t bound, uint64_t *size)
{
	uint64_t s4 = 0, se = 0;
	splitzip_status st = split4_size(ctx, j->l, &j->t->cb, &s4);
	if (st != SPLITZIP_OK)
		return st;
	uint8_t *tmp = bound > cap ? (uint8_t *)malloc(bound > SIZE_MAX ? 0 : (size_t)bound) : NULL;
	if (bound > cap && !tmp)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	j->c = SZ_PG_ENTROPY;
	st = encode_candidate(ctx, j, tmp ? tmp : dst, tmp ? (size_t)bound : cap, &se);
	if (st == SPLITZIP_OK && s4 > se && tmp) {
		if (se <= cap)
			memcpy(dst, tmp, (size_t)se);
		else
			st = SPLITZIP_ERROR_DST_TOO_SMALL;
	}
	free(tmp);
	if (st != SPLITZIP_OK || s4 > se) {
		*size = se;
		return st;
	}
	j->c = SZ_PG_SPLIT4;
	return encode_candidate(ctx, j, dst, cap, size);
}

splitzip_status splitzip_pages_compress_host(splitzip_ctx *ctx, uint32_t table_id, unsigned options,
                                             size_t n_pages, const void *const *pages,
                                             const size_t *page_bytes, uint8_t *dst, size_t dst_cap,
                                             size_t *dst_size)
{
	const unsigned cand = candidates(ctx->params.encoding);
	splitzip_pages_list l;
	splitzip_status st = list_init(&l, n_pages, pages, NULL, page_bytes);
	if (st != SPLITZIP_OK)
		return st;
	splitzip_pages_tables t;
	st = decide(ctx, &l, cand, &t);
	if (st != SPLITZIP_OK) {
		list_free(&l);
		return st;
	}
	if (table_id && !(((cand & 1) == 0 || t.fixed[SZ_PG_SPLIT4]) &&
	                  ((cand & 2) == 0 || t.fixed[SZ_PG_ENTROPY]))) {
		list_free(&l);
		return SPLITZIP_ERROR_INVALID_ARGUMENT; /* only a fixed table has a name */
	}
	pk_job j = {splitzip_ctx_take(ctx),
	            &l,
	            &t,
	            cand == 2 ? SZ_PG_ENTROPY : SZ_PG_SPLIT4,
	            (options & SPLITZIP_PAGES_NO_CHECKSUM) ? 0u : SPLITZIP_PAGES_FLAG_CHECKSUM,
	            table_id};
	if (!j.w) {
		list_free(&l);
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	}
	uint64_t size = 0;
	if (cand == 3) {
		const uint64_t bytes = 2 * l.total;
		const uint64_t bound = splitzip_pages_frames_offset(n_pages) + bytes +
		                       80 * (bytes >> (SPLITZIP_PAGES_FRAME_LOG2 + 1)) + 144;
		st = encode_auto(ctx, &j, dst, dst_cap, bound, &size);
	} else {
		st = encode_candidate(ctx, &j, dst, dst_cap, &size);
	}
	splitzip_ctx_give(ctx, j.w);
	list_free(&l);
	if (st == SPLITZIP_OK)
		*dst_size = (size_t)size;
	return st;
}

/* ---- Decoding ------------------------------------------------------------------------------ */

void splitzip_pages_coded_states(size_t n, const uint64_t *elems, const uint8_t *raw, uint64_t j,
                                 uint8_t *states)
{
	const uint64_t lo = j << SPLITZIP_PAGES_FRAME_LOG2, hi = lo + SPLITZIP_PAGES_FRAME_ELEMS;
	uint64_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (raw[i] || !elems[i])
			continue;
		const uint64_t end = o + elems[i];
		if (end <= lo)
			states[i] = SPLITZIP_PAGE_WRITTEN;
		else if (o < hi)
			states[i] = SPLITZIP_PAGE_DAMAGED;
		o = end;
	}
}

static void coded_states(const splitzip_pages_list *l, uint64_t j, uint8_t *states)
{
	splitzip_pages_coded_states(l->n, l->elems, l->raw[0], j, states);
}

/* The pages of a validated stream, their destinations and sizes, and the first states:
 * empty pages hold what the stream has for them, the others are untouched so far. */
static splitzip_status dec_list(splitzip_pages_list *l, const uint8_t *src,
                                const splitzip_pages_header *h, void *const *pages,
                                size_t *page_sizes, uint8_t *states)
{
	splitzip_status st = list_init(l, h->n_pages, (const void *const *)pages, NULL, NULL);
	if (st != SPLITZIP_OK)
		return st;
	l->total = 0;
	for (size_t i = 0; i < l->n; i++) {
		const uint32_t e = splitzip_pages_entry(src, i);
		l->elems[i] = splitzip_pages_entry_elems(e);
		l->raw[0][i] = (uint8_t)splitzip_pages_entry_raw(e);
		l->total += l->elems[i];
		if (page_sizes)
			page_sizes[i] = (size_t)(2 * l->elems[i]);
		states[i] = l->elems[i] ? SPLITZIP_PAGE_UNTOUCHED : SPLITZIP_PAGE_WRITTEN;
	}
	return SPLITZIP_OK;
}

/* Frames in order straight into the coded pages; on a failing frame the states say which
 * pages it reached. */
static splitzip_status dec_frames(splitzip_ctx *ctx, splitzip_workmem *w, splitzip_pages_list *l,
                                  const uint8_t *src, const splitzip_pages_layout *L,
                                  splitzip_segments *coded, uint8_t *states)
{
	uint64_t off = L->frames_off;
	for (uint64_t j = 0; j < L->n_frames; j++) {
		coded->first = j << SPLITZIP_PAGES_FRAME_LOG2;
		const uint64_t n = splitzip_pages_frame_elems(L->coded_elems, j);
		size_t used = 0, got = 0;
		splitzip_status st = splitzip_driver_decode_segments(
		    hk(ctx), ctx->params.n_threads, &w->gather, src + off,
		    (size_t)(L->frames_end - off), &used, coded, n, &got);
		if (st != SPLITZIP_OK) {
			coded_states(l, j, states);
			return st;
		}
		off += used;
	}
	coded_states(l, L->n_frames, states);
	return SPLITZIP_OK;
}

/* The raw pages after their checksum (FORMAT.md §12.5 step 12). */
static splitzip_status dec_raw(const splitzip_ctx *ctx, const splitzip_pages_list *l,
                               const uint8_t *src, const splitzip_pages_header *h,
                               const splitzip_pages_layout *L, const splitzip_segments *raw,
                               uint8_t *states)
{
	const uint8_t *r = src + L->raw_off;
	if ((h->flags & SPLITZIP_PAGES_FLAG_CHECKSUM) &&
	    bytes_checksum(hk(ctx), r, 2 * L->raw_elems, h->chunk_log2) != h->raw_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	for (uint64_t k = 0; k < raw->n_segs; k++)
		memcpy(raw->ptr[k], r + 2 * raw->start[k],
		       (size_t)(raw->start[k + 1] - raw->start[k]) * 2);
	for (size_t i = 0; i < l->n; i++)
		if (l->raw[0][i])
			states[i] = SPLITZIP_PAGE_WRITTEN;
	return SPLITZIP_OK;
}

splitzip_status splitzip_pages_decompress_host(splitzip_ctx *ctx, const uint8_t *src,
                                               size_t src_size, size_t n_pages, void *const *pages,
                                               const size_t *page_caps, int exact,
                                               size_t *page_sizes, uint8_t *page_states,
                                               size_t *n_pages_out)
{
	splitzip_pages_header h;
	splitzip_pages_layout L;
	splitzip_status st = splitzip_pages_validate(src, src_size, &h, &L);
	if (st == SPLITZIP_OK)
		st = splitzip_pages_check_dst(src, &h, n_pages, page_caps, exact);
	if (st != SPLITZIP_OK)
		return st;
	uint8_t *states = page_states;
	splitzip_pages_list l;
	uint8_t *own = NULL;
	if (!states) { /* the states steer nothing, but the helpers write them */
		own = (uint8_t *)malloc(h.n_pages ? h.n_pages : 1);
		if (!own)
			return SPLITZIP_ERROR_OUT_OF_MEMORY;
		states = own;
	}
	if (h.dtype != SPLITZIP_DTYPE_BF16) { /* version 3 */
		st = splitzip_pages_decompress_dtype_host(ctx, src, &h, &L, pages, page_sizes,
		                                          states);
		free(own);
		if (st == SPLITZIP_OK)
			*n_pages_out = h.n_pages;
		return st;
	}
	st = dec_list(&l, src, &h, pages, page_sizes, states);
	splitzip_workmem *w = st == SPLITZIP_OK ? splitzip_ctx_take(ctx) : NULL;
	if (st == SPLITZIP_OK && !w)
		st = SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (st == SPLITZIP_OK) {
		splitzip_segments coded, raw;
		list_segments(&l, 0, &coded, &raw);
		st = dec_frames(ctx, w, &l, src, &L, &coded, states);
		if (st == SPLITZIP_OK)
			st = dec_raw(ctx, &l, src, &h, &L, &raw, states);
		splitzip_ctx_give(ctx, w);
	}
	list_free(&l);
	free(own);
	if (st == SPLITZIP_OK)
		*n_pages_out = h.n_pages;
	return st;
}
