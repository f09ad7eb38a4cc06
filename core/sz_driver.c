/*
 * sz_driver.c -- the entry points of the host frame driver (core/sz_driver.h): the mode
 * decision of doc/FORMAT.md §6.3 and the decoder's dispatch on a frame's mode. The modes
 * themselves are leaves (core/sz_driver_impl.h): the split4 leaf (sz_driver_split4.c), the
 * entropy leaf (sz_driver_entropy.c), and stored frames (sz_driver_common.c).
 *
 * Encoding. The exponent histogram of the input is computed here, at most once per frame, and
 * only where a decision needs it: for an entropy table from the input, for the auto rule, and
 * for a split4 codebook from an input too small to be predicted from a sample. A larger split4
 * frame with the codebook from the input needs none: the split4 leaf predicts its codebook and
 * checks it with the histogram its own pass counts. Each leaf runs its encode pass and reports
 * the size of its frame; this file compares the sizes with the rule of §6.3 and has the winner
 * write the rest of its frame (or writes a stored frame).
 *
 * Decoding validates the header (§3.2) and hands the body to its mode's leaf, which validates
 * everything else before it is used (§4, §8).
 */
#include "sz_codebook.h"
#include "sz_driver_impl.h"

/* ---- Encoding ------------------------------------------------------------------------------ */

/* What one frame's decision has computed so far. */
typedef struct frame_job {
	const splitzip_encoder *e;
	splitzip_scratch *s;
	const splitzip_in *in;
	uint64_t n;
	uint8_t *dst;
	size_t dst_cap, *dst_size;
	const uint64_t *hist; /* the exact histogram, or NULL where none is needed */
} frame_job;

/* The split4 frame (split4 leaf), or stored if split4 does not win (§6.3). */
static splitzip_status write_split4(const frame_job *j)
{
	const unsigned log2 = j->e->chunk_log2;
	const int64_t max_esc = splitzip_split4_max_escapes(j->n, log2);
	if (max_esc < 0) /* split4 cannot win, whatever the data */
		return splitzip_driver_write_stored(j->e, j->in, j->n, j->dst, j->dst_cap,
		                                    j->dst_size);
	/* The smallest frame this input can give is split4 without escapes (no larger than
	 * stored here); the pass writes inside it. */
	if (j->dst_cap < splitzip_split4_frame_size(j->n, log2, 0))
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	splitzip_split4_enc p;
	splitzip_status st = splitzip_split4_run(&p, j->e, j->s, j->in, j->n, j->hist, j->dst);
	if (st != SPLITZIP_OK)
		return st;
	if (p.E > (uint64_t)max_esc) /* the stored frame is no larger */
		return splitzip_driver_write_stored(j->e, j->in, j->n, j->dst, j->dst_cap,
		                                    j->dst_size);
	splitzip_layout L;
	splitzip_split4_layout(j->n, log2, p.E, &L);
	if (j->dst_cap < L.frame_size)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	splitzip_split4_finish(&p, &L, j->e->flags, j->dst);
	*j->dst_size = (size_t)L.frame_size;
	return SPLITZIP_OK;
}

/* The split4 frame size of the input with the histogram (§4.2, §6.2), or 0 if it loses to
 * stored. */
static uint64_t split4_size_of(const splitzip_encoder *e, const uint64_t hist[256], uint64_t n)
{
	uint8_t cb[16];
	if (e->fixed)
		memcpy(cb, e->fixed->codebook, 16);
	else
		splitzip_codebook_select(hist, cb);
	uint64_t covered = 0;
	for (unsigned k = 0; k < 16; k++)
		covered += hist[cb[k]];
	const uint64_t E = n - covered;
	return splitzip_split4_wins(n, e->chunk_log2, E)
	           ? splitzip_split4_frame_size(n, e->chunk_log2, E)
	           : 0;
}

/*
 * ENTROPY: the entropy frame if it is strictly smaller than stored, else stored. AUTO: the
 * smallest of stored, split4 (split4_size, 0 if it loses to stored) and entropy; a tie goes to
 * the simpler mode (stored, then split4). The entropy pass is skipped when a lower bound of its
 * size already loses to split4.
 */
static splitzip_status write_entropy_or_auto(const frame_job *j, const splitzip_entropy_table *t,
                                             int is_auto, uint64_t split4_size)
{
	if (j->dst_cap < SPLITZIP_FRAME_HEADER_SIZE + j->n) /* below every frame's size, n >= 1 */
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	const uint64_t stored = splitzip_stored_frame_size(j->n);
	if (is_auto && split4_size &&
	    splitzip_entropy_size_floor(t, j->hist, j->n, j->e->chunk_log2) >= split4_size)
		return write_split4(j);
	splitzip_entropy_enc p;
	splitzip_status st = splitzip_entropy_run(&p, j->e, j->s, j->in, j->n, t, j->dst);
	if (st != SPLITZIP_OK)
		return st;
	const uint64_t se = p.L.frame_size < stored ? p.L.frame_size : 0;
	if (is_auto && split4_size && (!se || split4_size <= se))
		return write_split4(j);
	if (!se)
		return splitzip_driver_write_stored(j->e, j->in, j->n, j->dst, j->dst_cap,
		                                    j->dst_size);
	if (j->dst_cap < se)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	splitzip_entropy_finish(&p, j->e->flags, j->dst);
	*j->dst_size = (size_t)se;
	return SPLITZIP_OK;
}

/* FORMAT.md §6.3 for the n elements of 'in', with the histogram computed here if a decision
 * needs it (one array only: segments come with a fixed codebook or table). */
static splitzip_status compress_in(const splitzip_encoder *e, splitzip_scratch *s,
                                   const splitzip_in *in, uint64_t n, uint8_t *dst, size_t dst_cap,
                                   size_t *dst_size)
{
	if (n == 0) /* every mode loses to the 64-byte stored frame */
		return splitzip_driver_write_stored(e, in, n, dst, dst_cap, dst_size);
	const int is_auto = e->encoding == SPLITZIP_ENCODING_AUTO;
	const int split4 = e->encoding == SPLITZIP_ENCODING_SPLIT4;
	const int need_hist = is_auto || (!split4 && !e->table) ||
	                      (split4 && !e->fixed && !splitzip_split4_predicts(n));
	uint64_t hist[256] = {0};
	if (need_hist) {
		if (!in->p)
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
		const unsigned T =
		    splitzip_driver_workers(e->n_threads, n, splitzip_n_chunks(n, e->chunk_log2));
		splitzip_driver_histogram(e->k, in->p, n, e->chunk_log2, T, hist);
	}
	const frame_job j = {e, s, in, n, dst, dst_cap, dst_size, need_hist ? hist : NULL};
	if (split4)
		return write_split4(&j);
	splitzip_entropy_table own;
	const splitzip_entropy_table *t = e->table;
	if (!t) {
		splitzip_entropy_table_select(hist, &own); /* n >= 1: never empty */
		t = &own;
	}
	return write_entropy_or_auto(&j, t, is_auto, is_auto ? split4_size_of(e, hist, n) : 0);
}

splitzip_status splitzip_driver_compress(const splitzip_encoder *e, splitzip_scratch *s,
                                         const uint16_t *src, uint64_t n, uint8_t *dst,
                                         size_t dst_cap, size_t *dst_size)
{
	const splitzip_in in = {src, NULL, NULL, e->chunk_log2};
	return compress_in(e, s, &in, n, dst, dst_cap, dst_size);
}

splitzip_status splitzip_driver_compress_segments(const splitzip_encoder *e, splitzip_scratch *s,
                                                  splitzip_scratch *gather,
                                                  const splitzip_segments *src, uint64_t n,
                                                  uint8_t *dst, size_t dst_cap, size_t *dst_size)
{
	if (!(e->encoding == SPLITZIP_ENCODING_SPLIT4 && e->fixed) &&
	    !(e->encoding == SPLITZIP_ENCODING_ENTROPY && e->table))
		return SPLITZIP_ERROR_INVALID_ARGUMENT; /* a table from segments is the caller's job
		                                         */
	const unsigned log2 = e->chunk_log2;
	const unsigned T = splitzip_driver_workers(e->n_threads, n, splitzip_n_chunks(n, log2));
	splitzip_status st = splitzip_scratch_reserve(gather, splitzip_driver_tmp_bytes(T, log2));
	if (st != SPLITZIP_OK)
		return st;
	const splitzip_in in = {NULL, src, (uint16_t *)gather->buf, log2};
	return compress_in(e, s, &in, n, dst, dst_cap, dst_size);
}

/* ---- Decoding -------------------------------------------------------------------------------- */

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
	if (dst->seg) { /* (an empty frame into one array may come with no array at all) */
		const unsigned T = splitzip_driver_workers(
		    n_threads, h.n_elems, splitzip_n_chunks(h.n_elems, h.chunk_log2));
		st = splitzip_scratch_reserve(gather, splitzip_driver_tmp_bytes(T, h.chunk_log2));
		if (st != SPLITZIP_OK)
			return st;
		dst->tmp = (uint16_t *)gather->buf;
		dst->log2 = h.chunk_log2;
	}
	st = h.mode == SPLITZIP_MODE_STORED
	         ? splitzip_driver_decode_stored(k, n_threads, &h, src, dst)
	     : h.mode == SPLITZIP_MODE_SPLIT4 ? splitzip_split4_decode(k, n_threads, &h, src, dst)
	                                      : splitzip_entropy_decode(k, n_threads, &h, src, dst);
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
