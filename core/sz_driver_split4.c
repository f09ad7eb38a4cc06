/*
 * sz_driver_split4.c -- the split4 leaf of the host frame driver (core/sz_driver_impl.h): the
 * encode pass of a split4 frame with a host backend's chunk kernels, the sections after it,
 * and the validating decoder (doc/FORMAT.md §4.2).
 *
 * Encoding is one pass over the input: the positions of the code and sign/mantissa sections do
 * not depend on the escape count (§4.2), so chunks are encoded straight into the destination
 * while their escapes go to scratch memory; once the total escape count is known the chunk
 * table and escape sections are written behind them (splitzip_split4_finish).
 *
 * The codebook from the input is the exact top 16 of the whole frame (§5.1). Without one
 * given, the pass predicts it from a sample of the input and proves or corrects the prediction
 * with what it counts as it encodes, so that the input is read once:
 *
 *   - Escapes are listed with their exponents anyway, so the count of every exponent outside
 *     the predicted codebook is exact after the pass; M is the largest of them.
 *   - A member whose count is above M ranks above every non-member, so it is in the canonical
 *     codebook whatever the exact counts of the others. On real KV caches all but the 3-5
 *     rarest members count more than 16 M. For those, a lower bound is enough: the codes of
 *     one batch in SZ_SPARSE_EVERY are counted in full (count_codes, while they are in the
 *     cache), and a member whose count there exceeds M is proved in.
 *   - The rare members, those the sample puts near M (at most SPLITZIP_WATCH_MAX), are
 *     watched: the encode kernel counts their codes exactly in the same pass
 *     (encode_count_chunk: a table lookup and a byte add per code vector and pair of codes;
 *     out of the cache the pass then takes 1.05-1.09x the fixed-codebook pass's time with
 *     AVX-512 and 1.3x with AVX2, doc/BENCHMARKS.md).
 *
 * The watched members and the non-members then have exact counts, the others are proved in, so
 * the canonical codebook is known exactly (watch_decide). If the sample puts more than
 * SPLITZIP_WATCH_MAX members near M, the pass counts every code of every batch instead
 * (count_codes on each batch of chunks while its codes are still in the cache, SZ_COUNT_FULL);
 * if a member that was not watched cannot be proved in, the codes are counted in full after the
 * pass. Either way the exact histogram of the frame follows without reading the input again.
 *
 * If the canonical codebook is the prediction, the frame is done. A sample gets the frequent
 * exponents right but not always the order of the rarest members of the codebook (on real KV
 * caches a few dozen elements in a million decide it), so otherwise the pass's output is
 * recoded to the canonical codebook: every 4-bit code is mapped to its new code, the elements
 * whose exponent left the codebook become escapes and the escapes whose exponent entered it get
 * codes (recode_codes, then a merge of the escape lists in position order), a pass over a
 * quarter of the input's size instead of the input. Either way the frame is the canonical one
 * (§6.2).
 *
 * Decoding validates the chunk table and the paddings before any chunk is decoded, and every
 * escape before it is patched (§4.2.7, §8): a frame from outside never makes the decoder read
 * or write out of bounds.
 */
#include <stddef.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sz_codebook.h"
#include "sz_driver_impl.h"

/*
 * From-input codebooks of inputs at least this large are predicted from a sample and checked
 * in the one encode pass; smaller ones get the exact histogram from the caller (a separate pass
 * over input that is still in the cache). On slices of real KV caches the sample mispredicts
 * 40-70 % of inputs up to 2 MiB (the rarest members of the codebook differ by a few elements)
 * and none of those from 4 MiB on, and a misprediction costs a recode, so the two-pass way is
 * as fast below 4 MiB and the prediction wins from there (doc/BENCHMARKS.md).
 */
#ifndef SZ_PREDICT_MIN_ELEMS
#define SZ_PREDICT_MIN_ELEMS ((uint64_t)1 << 21)
#endif
SZ_STATIC_ASSERT(SZ_PREDICT_MIN_ELEMS >= SZ_SAMPLE_BATCH, "the sample batch fits in the scratch");
SZ_STATIC_ASSERT(SZ_PREDICT_MIN_ELEMS >= (uint64_t)SZ_SAMPLE_PIECES * SZ_SAMPLE_PIECE,
                 "the sample has its pieces");

/* Elements per count_codes call of a pass that counts: their codes (32 KiB) are still in L1. */
#define SZ_COUNT_BATCH_ELEMS ((uint64_t)1 << 16)

/*
 * What a pass counts: nothing (a given codebook or histogram); the watched codes and the sparse
 * batches (SZ_COUNT_WATCH); every code (SZ_COUNT_FULL).
 */
enum { SZ_COUNT_NONE = 0, SZ_COUNT_WATCH = 1, SZ_COUNT_FULL = 2 };

/*
 * A pass that watches counts every code of one batch of SZ_COUNT_BATCH_ELEMS elements in
 * SZ_SPARSE_EVERY (the batches whose index is a multiple of it: the chunks of element e with
 * (e / SZ_COUNT_BATCH_ELEMS) % SZ_SPARSE_EVERY == 0), one count_codes call per batch and
 * worker, so that the counter's fixed cost per call is spread over many codes.
 */
#ifndef SZ_SPARSE_EVERY
#define SZ_SPARSE_EVERY 8u
#endif

/* 1 if the chunk at element e0 is in a sparse batch. */
static int in_sparse_batch(uint64_t e0)
{
	return (e0 / SZ_COUNT_BATCH_ELEMS) % SZ_SPARSE_EVERY == 0;
}

/*
 * A member of the predicted codebook is watched when its count in the sample is below
 * SZ_WATCH_FACTOR times (the largest count of a non-member in the sample + 2): the count of a
 * member that is not watched must exceed M in the sparse batches, an eighth of the input, and
 * the factor leaves it a margin of two for the noise of the sample and of the input's layout
 * (a miss costs a count of every code after the pass, not a wrong frame). On real KV caches
 * this watches 3-5 members.
 */
#ifndef SZ_WATCH_FACTOR
#define SZ_WATCH_FACTOR (2u * SZ_SPARSE_EVERY)
#endif

static _Thread_local splitzip_split4_trace last_trace;

splitzip_split4_trace splitzip_split4_last_trace(void)
{
	return last_trace;
}

int splitzip_split4_predicts(uint64_t n)
{
	return n >= SZ_PREDICT_MIN_ELEMS;
}

/* ---- Encoding: the pass over the input ------------------------------------------------------ */

/*
 * Encode chunks [c0, c1) (one worker's range): its escapes to scratch at its range's first
 * element, their number to p->wcount[w], and what p->count asks to count to the worker's rows
 * of whits, wwatch, wsparse and wsparse_esc. Returns the range's checksum folds (0 unless
 * p->want_sum).
 */
static uint64_t encode_range(splitzip_split4_enc *p, unsigned w, uint64_t c0, uint64_t c1)
{
	const unsigned log2 = p->log2;
	const uint64_t base = c0 << log2;
	const int watch = p->count == SZ_COUNT_WATCH && p->watch.n > 0;
	uint64_t k = 0, h0 = base, csum = 0, sparse_esc = 0;
	for (uint64_t c = c0; c < c1; c++) {
		const uint64_t e0 = c << log2, len = splitzip_chunk_len(p->n, log2, c);
		const uint16_t *x = splitzip_in_chunk(&p->in, w, e0, len);
		uint8_t *codes = p->codes + e0 / 2;
		const size_t m =
		    watch ? p->encode_count(p->t, &p->watch, x, (size_t)len, codes, p->sm + e0,
		                            p->spos + base + k, p->sexp + base + k, p->wwatch[w])
		          : p->encode(p->t, x, (size_t)len, codes, p->sm + e0, p->spos + base + k,
		                      p->sexp + base + k);
		p->counts[c] = (uint32_t)m;
		k += m;
		if (p->want_sum)
			csum += splitzip_hash_chunk_fold(p->k->hash_chunk(x, (size_t)len * 2), c);
		/* Chunks start at even elements, so a batch's codes start at a byte. */
		if (p->count == SZ_COUNT_WATCH) {
			/* h0: the first element of the sparse batch being collected */
			const uint64_t e1 = e0 + len;
			if (!in_sparse_batch(e0)) {
				h0 = e1;
				continue;
			}
			sparse_esc += m;
			if (e1 % SZ_COUNT_BATCH_ELEMS == 0 || c + 1 == c1) {
				p->k->count_codes(p->codes + h0 / 2, (size_t)(e1 - h0),
				                  p->wsparse[w]);
				p->wsparse_esc[w] += sparse_esc;
				sparse_esc = 0;
				h0 = e1;
			}
		} else if (p->count == SZ_COUNT_FULL &&
		           (e0 + len - h0 >= SZ_COUNT_BATCH_ELEMS || c + 1 == c1)) {
			p->k->count_codes(p->codes + h0 / 2, (size_t)(e0 + len - h0), p->whits[w]);
			h0 = e0 + len;
		}
	}
	p->wstart[w] = base;
	p->wcount[w] = k;
	return csum;
}

/* Run the pass on every worker; returns the sum of the checksum folds. */
static uint64_t encode_workers(splitzip_split4_enc *p)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	if (p->count != SZ_COUNT_NONE) {
		memset(p->whits, 0, p->T * sizeof p->whits[0]);
		memset(p->wwatch, 0, p->T * sizeof p->wwatch[0]);
		memset(p->wsparse, 0, p->T * sizeof p->wsparse[0]);
		memset(p->wsparse_esc, 0, p->T * sizeof p->wsparse_esc[0]);
	}
	if (p->T == 1) /* no parallel region: even a one-thread one costs ~0.5 us */
		return encode_range(p, 0, 0, C);
	uint64_t csum = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(p->T) reduction(+ : csum) schedule(static)
#endif
	for (int64_t w = 0; w < (int64_t)p->T; w++)
		csum +=
		    encode_range(p, (unsigned)w, splitzip_driver_range_start(C, p->T, (unsigned)w),
		                 splitzip_driver_range_start(C, p->T, (unsigned)w + 1));
	return csum;
}

/* Count every code of the pass in p->whits, after it (a watching pass that proved too little). */
static void count_all_codes(splitzip_split4_enc *p)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	memset(p->whits, 0, p->T * sizeof p->whits[0]);
#ifdef _OPENMP
#pragma omp parallel for num_threads(p->T) schedule(static) if (p->T > 1)
#endif
	for (int64_t w = 0; w < (int64_t)p->T; w++) {
		uint64_t e = splitzip_driver_range_start(C, p->T, (unsigned)w) << p->log2;
		uint64_t e1 = splitzip_driver_range_start(C, p->T, (unsigned)w + 1) << p->log2;
		e1 = e1 < p->n ? e1 : p->n;
		for (; e < e1; e += SZ_COUNT_BATCH_ELEMS) { /* batches start at even elements */
			const uint64_t len =
			    e1 - e < SZ_COUNT_BATCH_ELEMS ? e1 - e : SZ_COUNT_BATCH_ELEMS;
			p->k->count_codes(p->codes + e / 2, (size_t)len, p->whits[w]);
		}
	}
}

/* hist[e] = the number of escapes with exponent e (the exact count of every non-member). */
static void escape_histogram(const splitzip_split4_enc *p, uint64_t hist[256])
{
	memset(hist, 0, 256 * sizeof hist[0]);
	for (unsigned w = 0; w < p->T; w++) {
		const uint64_t base = p->wstart[w];
		for (uint64_t j = 0; j < p->wcount[w]; j++)
			hist[p->sexp[base + j]]++;
	}
}

/*
 * The exact histogram of the input after a pass that counted every code: each code k is
 * exponent codebook[k], except the escapes, which have code 0 and their own exponent.
 */
static void counted_histogram(const splitzip_split4_enc *p, uint64_t hist[256])
{
	escape_histogram(p, hist);
	uint64_t E = 0;
	for (unsigned w = 0; w < p->T; w++) {
		for (unsigned c = 0; c < 16; c++)
			hist[p->t->codebook[c]] += p->whits[w][c];
		E += p->wcount[w];
	}
	hist[p->t->codebook[0]] -= E;
}

/*
 * After a watching pass: a histogram 'hist' that selects the canonical codebook of the input
 * (FORMAT.md §5.1), or 0 if the counts do not prove it (then every code is to be counted). The
 * non-members and the watched members get their exact counts; a member that was not watched
 * and whose count in the sparse batches exceeds every non-member's count (M) gets n + 1, more
 * than any count: it is in the canonical codebook whatever its exact count, since only the 15
 * other members can rank above it. The selection from 'hist' is then the exact one. For
 * recode_pass, p->whits gets the watched counts per worker (a code that leaves the codebook is
 * a watched one).
 */
static int watch_decide(splitzip_split4_enc *p, uint64_t hist[256])
{
	escape_histogram(p, hist);
	uint64_t M = 0, E = 0, E_sparse = 0, watched[16] = {0}, sparse[16] = {0};
	for (unsigned x = 0; x < 256; x++)
		M = hist[x] > M ? hist[x] : M; /* members have no escapes: 0 */
	memset(p->whits, 0, p->T * sizeof p->whits[0]);
	for (unsigned w = 0; w < p->T; w++) {
		E += p->wcount[w];
		E_sparse += p->wsparse_esc[w];
		for (unsigned j = 0; j < p->watch.n; j++) {
			watched[p->watch.code[j]] += p->wwatch[w][j];
			p->whits[w][p->watch.code[j]] = p->wwatch[w][j];
		}
		for (unsigned c = 0; c < 16; c++)
			sparse[c] += p->wsparse[w][c];
	}
	watched[0] -= p->watch.slot[0] ? E : 0; /* code 0 counts the escapes too */
	sparse[0] -= E_sparse;
	for (unsigned c = 0; c < 16; c++) {
		const uint8_t x = p->t->codebook[c];
		if (p->watch.slot[c])
			hist[x] = watched[c];
		else if (sparse[c] > M)
			hist[x] = p->n + 1;
		else
			return 0;
	}
	return 1;
}

/*
 * What a pass with the codebook predicted from the sample histogram hs counts: the members
 * whose sample count is below SZ_WATCH_FACTOR (s_M + 2), s_M the largest sample count of a
 * non-member, are watched, rarest first (ties: the smaller code); more than SPLITZIP_WATCH_MAX
 * of them: every code.
 */
static int choose_count(splitzip_split4_enc *p, const uint64_t hs[256])
{
	uint64_t s_M = 0;
	for (unsigned x = 0; x < 256; x++)
		s_M = !p->t->is_escape[x] || hs[x] <= s_M ? s_M : hs[x];
	const uint64_t limit = SZ_WATCH_FACTOR * (s_M + 2);
	uint8_t risk[16];
	unsigned n = 0;
	for (unsigned c = 0; c < 16; c++)
		if (hs[p->t->codebook[c]] < limit)
			risk[n++] = (uint8_t)c;
	if (n > SPLITZIP_WATCH_MAX)
		return SZ_COUNT_FULL;
	for (unsigned i = 1; i < n; i++) /* rarest first: an insertion sort of at most 8 */
		for (unsigned j = i;
		     j > 0 && hs[p->t->codebook[risk[j]]] < hs[p->t->codebook[risk[j - 1]]]; j--) {
			const uint8_t r = risk[j];
			risk[j] = risk[j - 1];
			risk[j - 1] = r;
		}
	memset(&p->watch, 0, sizeof p->watch);
	if (n)
		splitzip_watch_init(&p->watch, risk, n);
	return SZ_COUNT_WATCH;
}

/* Lay out the scratch of a pass (see splitzip_split4_enc); 'predict': with the recoder's. */
static splitzip_status pass_scratch(splitzip_split4_enc *p, splitzip_scratch *s, int predict)
{
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	const size_t cnt_bytes = (size_t)splitzip_align16(4 * C);
	const size_t hit_bytes = predict ? ((size_t)p->T << p->log2) * 4 : 0;
	splitzip_status st = splitzip_scratch_reserve(s, cnt_bytes + hit_bytes + (size_t)p->n * 3);
	if (st != SPLITZIP_OK)
		return st;
	uint8_t *b = (uint8_t *)s->buf;
	p->counts = (uint32_t *)(void *)b;
	p->hits = (uint32_t *)(void *)(b + cnt_bytes);
	p->spos = (uint16_t *)(void *)(b + cnt_bytes + hit_bytes);
	p->sexp = (uint8_t *)(p->spos + p->n);
	return SPLITZIP_OK;
}

/* ---- Encoding: recoding a pass to the canonical codebook ------------------------------------ */

/* The recoder's view of the change from the pass's codebook P to the canonical codebook Q. */
typedef struct recoder {
	splitzip_enc_tables q;
	uint8_t map[16];  /* old code -> new code (0 where P's exponent is not in Q) */
	uint8_t flag[16]; /* 1 where P's exponent is not in Q: those elements become escapes */
} recoder;

static void set_code(uint8_t *codes, uint64_t i, unsigned code)
{
	const unsigned sh = 4 * (unsigned)(i % 2);
	codes[i / 2] = (uint8_t)((codes[i / 2] & ~(0xFu << sh)) | code << sh);
}

/*
 * Recode chunk c (at element e0, len elements) of worker w: its old escapes are the counts[c]
 * at scratch index 'old', its new ones go to index 'out'. Merges, in position order, the old
 * escapes (each gets its code in Q, or stays an escape with code 0) and the codes that became
 * escapes (a hit at an old escape's position is that escape: code 0 flagged). Returns the
 * chunk's new escape count.
 */
static uint32_t recode_chunk(const splitzip_split4_enc *p, const recoder *r, unsigned w,
                             uint64_t e0, uint64_t len, uint64_t old, uint64_t n_old, uint64_t out)
{
	uint8_t *codes = p->codes + e0 / 2;
	uint32_t *hits = p->hits + ((uint64_t)w << p->log2);
	const size_t m = p->k->recode_codes(codes, (size_t)len, r->map, r->flag, hits);
	uint64_t io = 0, ih = 0, k = 0;
	while (io < n_old || ih < m) {
		const uint64_t po = io < n_old ? p->spos[old + io] : UINT64_MAX;
		const uint64_t ph = ih < m ? (hits[ih] & 0xFFFF) : UINT64_MAX;
		uint64_t pos;
		uint8_t x;
		if (po <= ph) {
			ih += po == ph;
			pos = po;
			x = p->sexp[old + io++];
			set_code(codes, pos, r->q.code_of[x]); /* 0 if it stays an escape */
			if (!r->q.is_escape[x])
				continue;
		} else {
			pos = ph;
			x = p->t->codebook[hits[ih++] >> 16];
		}
		p->spos[out + k] = (uint16_t)pos;
		p->sexp[out + k++] = x;
	}
	return (uint32_t)k;
}

/* Recode the chunks of worker w; its new escapes go right behind its old ones. */
static void recode_range(splitzip_split4_enc *p, const recoder *r, unsigned w, uint64_t c0,
                         uint64_t c1)
{
	const uint64_t base = p->wstart[w], out = base + p->wcount[w];
	uint64_t old = base, k = 0;
	for (uint64_t c = c0; c < c1; c++) {
		const uint64_t e0 = c << p->log2, len = splitzip_chunk_len(p->n, p->log2, c);
		const uint64_t n_old = p->counts[c];
		p->counts[c] = recode_chunk(p, r, w, e0, len, old, n_old, out + k);
		old += n_old;
		k += p->counts[c];
	}
	p->wstart[w] = out;
	p->wcount[w] = k;
}

/*
 * Recode the pass to the codebook q, or return 0 (nothing changed) if some worker's new
 * escapes might not fit between its old ones and the end of its range in scratch: at most its
 * old escapes plus its codes whose exponent left the codebook.
 */
static int recode_pass(splitzip_split4_enc *p, const uint8_t q[16])
{
	recoder r;
	splitzip_enc_tables_init(&r.q, q);
	for (unsigned c = 0; c < 16; c++) {
		const uint8_t x = p->t->codebook[c];
		r.flag[c] = r.q.is_escape[x];
		r.map[c] = r.q.code_of[x];
	}
	const uint64_t C = splitzip_n_chunks(p->n, p->log2);
	for (unsigned w = 0; w < p->T; w++) {
		const uint64_t e0 = splitzip_driver_range_start(C, p->T, w) << p->log2;
		uint64_t e1 = splitzip_driver_range_start(C, p->T, w + 1) << p->log2, most = 0;
		e1 = e1 < p->n ? e1 : p->n;
		for (unsigned c = 0; c < 16; c++)
			most += r.flag[c] ? p->whits[w][c] : 0;
		if (2 * p->wcount[w] + most > e1 - e0)
			return 0;
	}
#ifdef _OPENMP
#pragma omp parallel for num_threads(p->T) schedule(static) if (p->T > 1)
#endif
	for (int64_t w = 0; w < (int64_t)p->T; w++)
		recode_range(p, &r, (unsigned)w, splitzip_driver_range_start(C, p->T, (unsigned)w),
		             splitzip_driver_range_start(C, p->T, (unsigned)w + 1));
	p->own = r.q;
	p->t = &p->own;
	return 1;
}

/* The pass's fixed parts: kernels, workers, where the sections go. */
static void pass_init(splitzip_split4_enc *p, const splitzip_encoder *e, const splitzip_in *in,
                      uint64_t n, uint8_t *dst)
{
	memset(p, 0, offsetof(splitzip_split4_enc, whits));
	const unsigned log2 = e->chunk_log2;
	const unsigned T = splitzip_driver_workers(e->n_threads, n, splitzip_n_chunks(n, log2));
	p->k = e->k;
	p->encode = 2 * n >= SZ_STREAM_MIN_BYTES ? e->k->encode_chunk_stream : e->k->encode_chunk;
	p->encode_count = 2 * n >= SZ_STREAM_MIN_BYTES ? e->k->encode_count_chunk_stream
	                                               : e->k->encode_count_chunk;
	p->in = *in;
	p->n = n;
	p->log2 = log2;
	p->T = T > SZ_MAX_WORKERS ? SZ_MAX_WORKERS : T;
	splitzip_layout L0; /* codes and sign/mantissa bytes sit where no escape count moves them */
	splitzip_split4_layout(n, log2, 0, &L0);
	p->codes = dst + L0.codes_off;
	p->sm = dst + L0.sm_off;
	p->want_sum = (e->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
}

splitzip_status splitzip_split4_run(splitzip_split4_enc *p, const splitzip_encoder *e,
                                    splitzip_scratch *s, const splitzip_in *in, uint64_t n,
                                    const uint64_t *hist, uint8_t *dst)
{
	pass_init(p, e, in, n, dst);
	const int predict = !e->fixed && !hist;
	if (predict && (!in->p || !splitzip_split4_predicts(n)))
		return SPLITZIP_ERROR_INVALID_ARGUMENT; /* the caller gives the histogram then */
	splitzip_status st = pass_scratch(p, s, predict);
	if (st != SPLITZIP_OK)
		return st;
	uint64_t h[256];
	uint8_t cb[16];
	p->t = e->fixed;
	if (!e->fixed) {
		if (hist) {
			memcpy(h, hist, sizeof h);
		} else { /* the sample's batches use the escape scratch before the pass */
			memset(h, 0, sizeof h);
			splitzip_driver_histogram_sample(e->k, in->p, n, p->spos, h);
		}
		splitzip_codebook_select(h, cb);
		splitzip_enc_tables_init(&p->own, cb);
		p->t = &p->own;
	}
	p->count = predict ? choose_count(p, h) : SZ_COUNT_NONE;
	p->csum = encode_workers(p);
	if (predict) {
		splitzip_split4_trace tr = {p->count, p->watch.n, 0, 0, 0};
		if (p->count == SZ_COUNT_WATCH && !watch_decide(p, h)) {
			count_all_codes(p);
			p->count = SZ_COUNT_FULL;
			tr.counted_after = 1;
		}
		if (p->count == SZ_COUNT_FULL)
			counted_histogram(p, h);
		splitzip_codebook_select(h, cb);
		tr.recoded = memcmp(cb, p->t->codebook, 16) != 0;
		if (tr.recoded && !recode_pass(p, cb)) {
			tr.recoded = 0;
			tr.encoded_again = 1;
			splitzip_enc_tables_init(&p->own, cb); /* encode again */
			p->count = SZ_COUNT_NONE;
			p->want_sum =
			    0; /* the checksum depends on the input only: it is complete */
			(void)encode_workers(p);
			p->want_sum = (e->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
		}
		last_trace = tr;
	}
	p->E = 0;
	for (unsigned w = 0; w < p->T; w++)
		p->E += p->wcount[w];
	return SPLITZIP_OK;
}

/* ---- Encoding: the sections after the pass -------------------------------------------------- */

/*
 * FORMAT.md §4.2: the zero gaps, the chunk table of cumulative escape counts, the escapes
 * gathered in worker (= chunk) order, and the header.
 */
void splitzip_split4_finish(const splitzip_split4_enc *p, const splitzip_layout *L, unsigned flags,
                            uint8_t *dst)
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
		const uint64_t base = p->wstart[w];
		for (uint64_t j = 0; j < p->wcount[w]; j++)
			splitzip_st16(dst + L->epos_off + 2 * (at + j), p->spos[base + j]);
		memcpy(dst + L->eexp_off + at, p->sexp + base, (size_t)p->wcount[w]);
		at += p->wcount[w];
	}
	splitzip_header h;
	splitzip_header_init(&h, SPLITZIP_MODE_SPLIT4, p->log2, flags, p->n);
	h.n_escapes = (uint32_t)E;
	memcpy(h.codebook, p->t->codebook, 16);
	h.frame_size = L->frame_size;
	if (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum = splitzip_hash_frame_final(p->n, p->csum);
	splitzip_header_write(dst, &h);
}

/* ---- Decoding -------------------------------------------------------------------------------- */

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

splitzip_status splitzip_split4_decode(const splitzip_host_kernels *k, unsigned n_threads,
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
