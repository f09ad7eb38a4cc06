/*
 * sz_api_pages_dtype.c -- page streams of the dtypes FP8 E4M3, FP8 E5M2, FP16 and FP32 in host
 * memory (doc/FORMAT.md §12, version 3). The same stream as for BF16 pages (the table from the
 * histogram of all pages or fixed, a raw bit per page, frames of 2^24 elements over the coded
 * pages, the raw section), with the element width, exponents and raw rules of the dtype
 * (§12.4 step 2). The frames are coded by the portable frame codec of core/sz_dtype.h, which
 * every host backend runs (entropy exponent streams decoded by the backend's kernels), so the
 * streams are the same bytes on every backend. Each frame's elements are gathered from the
 * pages into one buffer before encoding and decoded into one before being scattered.
 * Single-threaded per call; a context is shared between threads as for every call.
 */
#include <stdlib.h>

#include "../core/sz_codebook.h"
#include "../core/sz_dtype_impl.h"
#include "sz_api_pages.h"

static const splitzip_host_kernels *dp_kernels(const splitzip_ctx *ctx)
{
	return ctx->backend->host ? ctx->backend->host : splitzip_best_host_kernels();
}

/* The pages of one call: where each is, its element count and raw bit per candidate. */
typedef struct dp_list {
	void *mem;
	size_t n;
	uint8_t **page;
	uint64_t *elems;
	uint8_t *raw[2]; /* per candidate (SZ_PG_SPLIT4, SZ_PG_ENTROPY); decoding: raw[0] */
	uint64_t total, coded, raw_elems;
} dp_list;

static splitzip_status dp_list_init(dp_list *l, size_t n)
{
	memset(l, 0, sizeof *l);
	const size_t per = sizeof(uint8_t *) + sizeof(uint64_t) + 2;
	if (n > (SIZE_MAX - 64) / per)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	l->mem = malloc(per * n + 1);
	if (!l->mem)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	l->n = n;
	l->page = (uint8_t **)l->mem;
	l->elems = (uint64_t *)(void *)(l->page + n);
	l->raw[0] = (uint8_t *)(void *)(l->elems + n);
	l->raw[1] = l->raw[0] + n;
	return SPLITZIP_OK;
}

/* The coded and raw element counts of candidate c. */
static void dp_totals(dp_list *l, int c)
{
	l->coded = l->raw_elems = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->raw[c][i])
			l->raw_elems += l->elems[i];
		else
			l->coded += l->elems[i];
	}
}

/*
 * A cursor over the coded elements (the coded pages concatenated in page order): copies the
 * next m elements between the pages and a contiguous buffer, 'to_pages' choosing the direction.
 */
typedef struct dp_cursor {
	size_t i;   /* page */
	uint64_t o; /* elements of page i already passed */
} dp_cursor;

static void dp_move(const dp_list *l, int c, unsigned w, dp_cursor *cur, uint8_t *buf, uint64_t m,
                    int to_pages)
{
	while (m) {
		if (l->raw[c][cur->i] || cur->o == l->elems[cur->i]) {
			cur->i++;
			cur->o = 0;
			continue;
		}
		uint64_t k = l->elems[cur->i] - cur->o;
		k = k < m ? k : m;
		uint8_t *p = l->page[cur->i] + w * cur->o;
		if (to_pages)
			memcpy(p, buf, (size_t)(w * k));
		else
			memcpy(buf, p, (size_t)(w * k));
		buf += w * k;
		cur->o += k;
		m -= k;
	}
}

/* The raw section of candidate c: the raw pages' bytes in page order, copied between r and
 * the pages. */
static void dp_raw(const dp_list *l, int c, unsigned w, uint8_t *r, int to_pages)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!l->raw[c][i] || !l->elems[i])
			continue;
		if (to_pages)
			memcpy(l->page[i], r, (size_t)(w * l->elems[i]));
		else
			memcpy(r, l->page[i], (size_t)(w * l->elems[i]));
		r += w * l->elems[i];
	}
}

/* ---- Encoding (FORMAT.md §12.4) ------------------------------------------------------------ */

/* The tables and raw bits of the candidates of 'cand' (bit 0 split4, bit 1 entropy). */
typedef struct dp_enc {
	const splitzip_dtype_desc *d;
	unsigned cand;
	int fixed[2];
	uint8_t cb[16];
	splitzip_entropy_table table;
	int have_table; /* no elements: no table, and no frames either */
} dp_enc;

/* Every page's exponents into xs (the pages concatenated) and their histogram. */
static void dp_exponents(const splitzip_dtype_desc *d, const dp_list *l, uint8_t *xs,
                         uint64_t hist[256])
{
	for (size_t i = 0; i < l->n; i++)
		for (uint64_t k = 0; k < l->elems[i]; k++) {
			const unsigned x = sz_dt_exponent(d, sz_dt_load(d, l->page[i], k));
			*xs++ = (uint8_t)x;
			hist[x]++;
		}
}

/*
 * Step 2 of §12.4 for dtypes of e-bit exponents: split4 raw when 24 E >= (e - 4) n (E the
 * exponents outside the codebook), entropy when the exponents' code lengths (an escape: its
 * code and e raw bits) are at least e n. A page of no elements is raw.
 */
static void dp_decide(const dp_enc *t, dp_list *l, const uint8_t *xs)
{
	const unsigned e = t->d->ebits;
	uint8_t in_cb[256] = {0}, cost[256];
	for (unsigned k = 0; k < 16; k++)
		in_cb[t->cb[k]] = 1;
	for (unsigned x = 0; x < 256; x++)
		cost[x] = (uint8_t)(t->table.lengths[x] ? t->table.lengths[x]
		                                        : t->table.escape_length + e);
	for (size_t i = 0; i < l->n; i++) {
		const uint64_t n = l->elems[i];
		uint64_t esc = 0, bits = 0;
		for (uint64_t k = 0; k < n; k++) {
			esc += !in_cb[xs[k]];
			bits += cost[xs[k]];
		}
		xs += n;
		l->raw[SZ_PG_SPLIT4][i] = 24 * esc >= (uint64_t)(e - 4) * n;
		l->raw[SZ_PG_ENTROPY][i] = !t->have_table || bits >= (uint64_t)e * n;
	}
}

/* The whole stream of candidate c at dst (cap bytes): '*size' its size. 'buf' holds a frame's
 * elements. */
static splitzip_status dp_encode(const splitzip_ctx *ctx, const dp_enc *t, dp_list *l, int c,
                                 unsigned flags, uint32_t table_id, uint8_t *buf, uint8_t *dst,
                                 size_t cap, uint64_t *size)
{
	const splitzip_dtype_desc *d = t->d;
	const unsigned w = d->width, log2 = ctx->params.chunk_log2;
	dp_totals(l, c);
	splitzip_dtype_encoder e;
	e.dtype = d->code;
	e.chunk_log2 = log2;
	e.flags = (flags & SPLITZIP_PAGES_FLAG_CHECKSUM) ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0u;
	e.encoding = c == SZ_PG_SPLIT4 ? SPLITZIP_ENCODING_SPLIT4 : SPLITZIP_ENCODING_ENTROPY;
	e.codebook = c == SZ_PG_SPLIT4 ? t->cb : NULL; /* the candidate's table, as a fixed one */
	e.table = c == SZ_PG_ENTROPY ? &t->table : NULL;
	const uint64_t frames_off = splitzip_pages_frames_offset(l->n);
	uint64_t off = frames_off;
	dp_cursor cur = {0, 0};
	for (uint64_t j = 0; j < splitzip_pages_n_frames(l->coded); j++) {
		const uint64_t m = splitzip_pages_frame_elems(l->coded, j);
		if (off > cap)
			return SPLITZIP_ERROR_DST_TOO_SMALL;
		dp_move(l, c, w, &cur, buf, m, 0);
		size_t fs = 0;
		splitzip_status st =
		    splitzip_dtype_encode(&e, buf, m, dst + off, cap - (size_t)off, &fs);
		if (st != SPLITZIP_OK)
			return st;
		off += fs;
	}
	splitzip_pages_layout L;
	splitzip_pages_layout_of_w(l->n, l->coded, l->raw_elems, off - frames_off, w, &L);
	if (L.stream_size > cap)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	const uint64_t table_end = splitzip_pages_table_end(l->n);
	memset(dst + table_end, 0, (size_t)(L.frames_off - table_end));
	memset(dst + L.frames_end, 0, (size_t)(L.raw_off - L.frames_end));
	dp_raw(l, c, w, dst + L.raw_off, 0);
	for (size_t i = 0; i < l->n; i++)
		splitzip_pages_entry_write(dst, i, l->elems[i], l->raw[c][i]);
	splitzip_pages_header h;
	h.version = SPLITZIP_PAGES_VERSION_DTYPE;
	h.dtype = d->code;
	h.flags = flags | (t->fixed[c] ? SPLITZIP_PAGES_FLAG_FIXED_TABLE : 0u);
	h.encoding = c == SZ_PG_SPLIT4 ? SPLITZIP_MODE_SPLIT4 : SPLITZIP_MODE_ENTROPY;
	h.chunk_log2 = log2;
	h.n_pages = (uint32_t)l->n;
	h.table_id = t->fixed[c] ? table_id : 0;
	h.total_elems = l->total;
	h.frames_size = L.frames_end - L.frames_off;
	h.stream_size = L.stream_size;
	h.raw_checksum =
	    (flags & SPLITZIP_PAGES_FLAG_CHECKSUM)
	        ? splitzip_dtype_content_checksum(d, dst + L.raw_off, l->raw_elems, log2)
	        : 0;
	h.table_checksum = splitzip_pages_table_checksum(dst, l->n);
	splitzip_pages_header_write(dst, &h);
	*size = L.stream_size;
	return SPLITZIP_OK;
}

/* The tables of the candidates (fixed ones from the context, the others from hist), checked
 * against the dtype. */
static splitzip_status dp_tables(const splitzip_ctx *ctx, const uint64_t hist[256], dp_enc *t)
{
	const splitzip_params *p = &ctx->params;
	t->fixed[SZ_PG_SPLIT4] = (t->cand & 1) && p->codebook_mode == SPLITZIP_CODEBOOK_FIXED;
	t->fixed[SZ_PG_ENTROPY] = (t->cand & 2) && p->table_mode == SPLITZIP_CODEBOOK_FIXED;
	splitzip_dtype_encoder e;
	memset(&e, 0, sizeof e);
	e.codebook = t->fixed[SZ_PG_SPLIT4] ? p->codebook.exponents : NULL;
	e.table = t->fixed[SZ_PG_ENTROPY] ? &p->table : NULL;
	if (!splitzip_dtype_fixed_ok(&e, t->d))
		return SPLITZIP_ERROR_BAD_CODEBOOK;
	if (e.codebook)
		memcpy(t->cb, e.codebook, 16);
	else
		splitzip_codebook_select(hist, t->cb);
	t->have_table = 1;
	if (e.table)
		t->table = *e.table;
	else if (!(t->cand & 2) || !splitzip_entropy_table_select(hist, &t->table))
		t->have_table = 0;
	if (!t->have_table)
		memset(&t->table, 0, sizeof t->table);
	return SPLITZIP_OK;
}

/* AUTO: the smaller candidate, split4 on a tie. The split4 one goes to memory of its own
 * ('bound' bytes); the entropy one to dst, where not fitting means it is larger than split4 if
 * that fits. */
static splitzip_status dp_auto(const splitzip_ctx *ctx, const dp_enc *t, dp_list *l, unsigned flags,
                               uint32_t table_id, uint8_t *buf, uint64_t bound, uint8_t *dst,
                               size_t dst_cap, uint64_t *size)
{
	uint64_t s4 = 0, se = 0;
	uint8_t *tmp = (uint8_t *)malloc(bound > SIZE_MAX || !bound ? 1 : (size_t)bound);
	splitzip_status st =
	    tmp ? dp_encode(ctx, t, l, SZ_PG_SPLIT4, flags, table_id, buf, tmp, (size_t)bound, &s4)
	        : SPLITZIP_ERROR_OUT_OF_MEMORY;
	if (st == SPLITZIP_OK) {
		st = dp_encode(ctx, t, l, SZ_PG_ENTROPY, flags, table_id, buf, dst, dst_cap, &se);
		if (st == SPLITZIP_ERROR_DST_TOO_SMALL) {
			se = UINT64_MAX;
			st = SPLITZIP_OK;
		}
	}
	if (st == SPLITZIP_OK && s4 <= se) {
		if (s4 > dst_cap)
			st = SPLITZIP_ERROR_DST_TOO_SMALL;
		else
			memcpy(dst, tmp, (size_t)s4);
		se = s4;
	}
	free(tmp);
	*size = se;
	return st;
}

splitzip_status splitzip_pages_compress_dtype_host(splitzip_ctx *ctx, unsigned dtype,
                                                   uint32_t table_id, unsigned options,
                                                   size_t n_pages, const void *const *pages,
                                                   const size_t *page_bytes, uint8_t *dst,
                                                   size_t dst_cap, size_t *dst_size)
{
	dp_enc t;
	memset(&t, 0, sizeof t);
	t.d = splitzip_dtype_desc_of(dtype);
	const splitzip_encoding enc = ctx->params.encoding;
	if (enc == SPLITZIP_ENCODING_SPLIT4 && !t.d->split4)
		return SPLITZIP_ERROR_INVALID_ARGUMENT; /* E4M3 has no split4 mode */
	t.cand = !t.d->split4 || enc == SPLITZIP_ENCODING_ENTROPY ? 2u
	         : enc == SPLITZIP_ENCODING_SPLIT4                ? 1u
	                                                          : 3u;
	const int named =
	    ((t.cand & 1) == 0 || ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FIXED) &&
	    ((t.cand & 2) == 0 || ctx->params.table_mode == SPLITZIP_CODEBOOK_FIXED);
	if (table_id && !named)
		return SPLITZIP_ERROR_INVALID_ARGUMENT; /* only a fixed table has a name */
	const unsigned w = t.d->width;
	dp_list l;
	splitzip_status st = dp_list_init(&l, n_pages);
	if (st != SPLITZIP_OK)
		return st;
	uint64_t max_page = 0;
	for (size_t i = 0; i < n_pages; i++) {
		l.page[i] = (uint8_t *)(uintptr_t)pages[i];
		l.elems[i] = page_bytes[i] / w;
		l.total += l.elems[i];
		max_page = l.elems[i] > max_page ? l.elems[i] : max_page;
	}
	const uint64_t frame_max =
	    l.total < SPLITZIP_PAGES_FRAME_ELEMS ? l.total : SPLITZIP_PAGES_FRAME_ELEMS;
	const uint64_t bound = splitzip_pages_bound64_w(n_pages, w * max_page, w);
	uint8_t *xs = (uint8_t *)malloc(l.total ? (size_t)l.total : 1);
	uint8_t *buf = (uint8_t *)malloc(frame_max ? (size_t)(w * frame_max) : 1);
	uint64_t hist[256] = {0};
	if (!xs || !buf) {
		st = SPLITZIP_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	dp_exponents(t.d, &l, xs, hist);
	st = dp_tables(ctx, hist, &t);
	if (st != SPLITZIP_OK)
		goto out;
	dp_decide(&t, &l, xs);
	const unsigned flags =
	    (options & SPLITZIP_PAGES_NO_CHECKSUM) ? 0u : SPLITZIP_PAGES_FLAG_CHECKSUM;
	uint64_t size = 0;
	if (t.cand != 3) {
		st = dp_encode(ctx, &t, &l, t.cand == 1 ? SZ_PG_SPLIT4 : SZ_PG_ENTROPY, flags,
		               table_id, buf, dst, dst_cap, &size);
	} else {
		st = dp_auto(ctx, &t, &l, flags, table_id, buf, bound, dst, dst_cap, &size);
	}
	if (st == SPLITZIP_OK)
		*dst_size = (size_t)size;
out:
	free(buf);
	free(xs);
	free(l.mem);
	return st;
}

/* ---- Decoding (FORMAT.md §12.5-§12.6) ------------------------------------------------------ */

splitzip_status splitzip_pages_decompress_dtype_host(splitzip_ctx *ctx, const uint8_t *src,
                                                     const splitzip_pages_header *h,
                                                     const splitzip_pages_layout *L,
                                                     void *const *pages, size_t *page_sizes,
                                                     uint8_t *states)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(h->dtype);
	const unsigned w = d->width;
	dp_list l;
	splitzip_status st = dp_list_init(&l, h->n_pages);
	if (st != SPLITZIP_OK)
		return st;
	for (size_t i = 0; i < l.n; i++) {
		const uint32_t e = splitzip_pages_entry(src, i);
		l.page[i] = (uint8_t *)pages[i];
		l.elems[i] = splitzip_pages_entry_elems(e);
		l.raw[0][i] = (uint8_t)splitzip_pages_entry_raw(e);
		if (page_sizes)
			page_sizes[i] = (size_t)(w * l.elems[i]);
		states[i] = l.elems[i] ? SPLITZIP_PAGE_UNTOUCHED : SPLITZIP_PAGE_WRITTEN;
	}
	const uint64_t frame_max = L->coded_elems < SPLITZIP_PAGES_FRAME_ELEMS
	                               ? L->coded_elems
	                               : SPLITZIP_PAGES_FRAME_ELEMS;
	uint8_t *buf = (uint8_t *)malloc(frame_max ? (size_t)(w * frame_max) : 1);
	if (!buf) {
		free(l.mem);
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	}
	uint64_t off = L->frames_off, j = 0;
	dp_cursor cur = {0, 0};
	for (; j < L->n_frames; j++) {
		splitzip_header fh;
		st = splitzip_dtype_read_header(src + off, L->frames_end - off, &fh); /* checked */
		if (st == SPLITZIP_OK) /* every mode, padding and content checksum included */
			st = splitzip_dtype_decode(dp_kernels(ctx), &fh, src + off, buf);
		if (st != SPLITZIP_OK)
			break;
		dp_move(&l, 0, w, &cur, buf, fh.n_elems, 1);
		off += fh.frame_size;
	}
	splitzip_pages_coded_states(l.n, l.elems, l.raw[0], j, states);
	free(buf);
	if (st == SPLITZIP_OK) {
		const uint8_t *r = src + L->raw_off;
		if ((h->flags & SPLITZIP_PAGES_FLAG_CHECKSUM) &&
		    splitzip_dtype_content_checksum(d, r, L->raw_elems, h->chunk_log2) !=
		        h->raw_checksum) {
			st = SPLITZIP_ERROR_CONTENT_CHECKSUM;
		} else {
			dp_raw(&l, 0, w, (uint8_t *)(uintptr_t)r, 1);
			for (size_t i = 0; i < l.n; i++)
				if (l.raw[0][i])
					states[i] = SPLITZIP_PAGE_WRITTEN;
		}
	}
	free(l.mem);
	return st;
}
