/*
 * sz_frame.c -- the host frame driver: contexts, compress, decompress, verify, frame info.
 *
 * The driver owns the format; a backend only transforms chunks (dispatch/sz_backend.h). Work is
 * split by chunks into contiguous ranges, one per worker thread, and every per-range result is
 * combined in chunk order (escapes) or with a commutative operation (histograms, checksum
 * sums), so the frame never depends on the thread count.
 *
 * Encoding is one pass over the input: the positions of the code and sign/mantissa sections do
 * not depend on the escape count (doc/FORMAT.md §4.2), so chunks are encoded straight into the
 * destination while their escapes go to context scratch; once the total escape count is known
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

#include "sz_internal.h"

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

/* ---- Parameters and contexts ------------------------------------------------------------- */

void splitzip_params_init(splitzip_params *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof *p);
	p->struct_size = sizeof *p;
	p->backend = SPLITZIP_BACKEND_AUTO;
	p->chunk_log2 = SPLITZIP_CHUNK_LOG2_DEFAULT;
	p->flags = 0;
	p->codebook_mode = SPLITZIP_CODEBOOK_FROM_INPUT;
	p->n_threads = 0;
}

splitzip_status splitzip_ctx_create(const splitzip_params *p, splitzip_ctx **out)
{
	if (!out)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*out = NULL;
	splitzip_params q;
	splitzip_params_init(&q);
	if (p) {
		if (p->struct_size < sizeof q)
			return SPLITZIP_ERROR_INVALID_ARGUMENT;
		q = *p;
		q.struct_size = sizeof q;
	}
	if (q.chunk_log2 == 0)
		q.chunk_log2 = SPLITZIP_CHUNK_LOG2_DEFAULT;
	if (q.chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || q.chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q.flags & ~SPLITZIP_FLAG_CONTENT_CHECKSUM)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q.codebook_mode != SPLITZIP_CODEBOOK_FROM_INPUT &&
	    q.codebook_mode != SPLITZIP_CODEBOOK_FIXED)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (q.codebook_mode == SPLITZIP_CODEBOOK_FIXED &&
	    splitzip_codebook_validate(&q.codebook) != SPLITZIP_OK)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if ((unsigned)q.backend > SPLITZIP_BACKEND_AVX512VBMI)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;

	/* AUTO selects a host backend; a device backend is bound only when named (by id or by
	 * SPLITZIP_FORCE_BACKEND), and then serves the *_async calls of splitzip.h. */
	splitzip_status st;
	const splitzip_backend *b = splitzip_select_backend(q.backend, &st);
	if (!b)
		return st;

	splitzip_ctx *ctx = (splitzip_ctx *)calloc(1, sizeof *ctx);
	if (!ctx)
		return SPLITZIP_ERROR_OUT_OF_MEMORY;
	ctx->params = q;
	ctx->backend = b;
	if (q.codebook_mode == SPLITZIP_CODEBOOK_FIXED)
		splitzip_enc_tables_init(&ctx->fixed_tables, q.codebook.exponents);
	*out = ctx;
	return SPLITZIP_OK;
}

void splitzip_ctx_free(splitzip_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->scratch);
	free(ctx->verify_buf);
	free(ctx);
}

const char *splitzip_ctx_backend_name(const splitzip_ctx *ctx)
{
	return ctx ? ctx->backend->name : "(null)";
}

splitzip_status splitzip_ctx_params(const splitzip_ctx *ctx, splitzip_params *p)
{
	if (!ctx || !p)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	*p = ctx->params;
	return SPLITZIP_OK;
}

/* Grow the context scratch to at least 'size' bytes; contents are not preserved. */
static splitzip_status scratch_reserve(splitzip_ctx *ctx, size_t size)
{
	if (ctx->scratch_size >= size)
		return SPLITZIP_OK;
	free(ctx->scratch);
	ctx->scratch = malloc(size);
	ctx->scratch_size = ctx->scratch ? size : 0;
	return ctx->scratch ? SPLITZIP_OK : SPLITZIP_ERROR_OUT_OF_MEMORY;
}

/* Worker threads for n elements. */
static unsigned n_workers(const splitzip_ctx *ctx, uint64_t n, uint64_t n_chunks)
{
	unsigned t = 1;
#ifdef _OPENMP
	t = ctx->params.n_threads ? ctx->params.n_threads : (unsigned)omp_get_max_threads();
	if (n < SZ_PARALLEL_MIN_ELEMS)
		t = 1;
#else
	(void)ctx;
	(void)n;
#endif
	if ((uint64_t)t > n_chunks)
		t = n_chunks ? (unsigned)n_chunks : 1;
	return t;
}

/* First chunk of worker w's range when C chunks are split over T workers. */
static uint64_t range_start(uint64_t C, unsigned T, unsigned w)
{
	return C * w / T;
}

/* ---- Frame info ---------------------------------------------------------------------------- */

splitzip_status splitzip_status_of_header(int r)
{
	switch (r) {
	case SZ_HDR_OK:
		return SPLITZIP_OK;
	case SZ_HDR_BAD_MAGIC:
		return SPLITZIP_ERROR_BAD_MAGIC;
	case SZ_HDR_BAD_CHECKSUM:
		return SPLITZIP_ERROR_HEADER_CHECKSUM;
	case SZ_HDR_UNSUPPORTED:
		return SPLITZIP_ERROR_UNSUPPORTED_FORMAT;
	default:
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	}
}

static splitzip_status read_header(const void *src, size_t src_size, splitzip_header *h)
{
	if (src_size < SPLITZIP_HEADER_SIZE) {
		/* FORMAT.md §3.2: the magic is compared first, on as many of its 4 bytes as there
		 * are, so that a short input that is not a splitzip frame is reported as such and
		 * only a prefix of a frame is reported as truncated. */
		const uint8_t *b = (const uint8_t *)src;
		for (size_t i = 0; i < src_size && i < 4; i++)
			if (b[i] != (uint8_t)(SPLITZIP_MAGIC >> (8 * i)))
				return SPLITZIP_ERROR_BAD_MAGIC;
		return SPLITZIP_ERROR_TRUNCATED;
	}
	return splitzip_status_of_header(splitzip_header_parse((const uint8_t *)src, h));
}

/*
 * FORMAT.md §8.2: after the first frame of a stream, bytes that do not start with the magic are
 * not some other kind of file but damage to this one: CORRUPT_STREAM, not BAD_MAGIC.
 */
static splitzip_status stream_status(splitzip_status st, size_t off)
{
	return (st == SPLITZIP_ERROR_BAD_MAGIC && off > 0) ? SPLITZIP_ERROR_CORRUPT_STREAM : st;
}

splitzip_status splitzip_get_frame_info(const void *src, size_t src_size,
					splitzip_frame_info *info)
{
	if (!src || !info)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	splitzip_header h;
	splitzip_status st = read_header(src, src_size, &h);
	if (st != SPLITZIP_OK)
		return st;
	memset(info, 0, sizeof *info);
	info->format_version = h.version;
	info->dtype = h.dtype;
	info->mode = (splitzip_mode)h.mode;
	info->chunk_log2 = h.chunk_log2;
	info->flags = h.flags;
	info->n_elems = h.n_elems;
	info->n_escapes = h.n_escapes;
	info->frame_size = h.frame_size;
	info->content_checksum = h.content_checksum;
	memcpy(info->codebook.exponents, h.codebook, 16);
	return SPLITZIP_OK;
}

splitzip_status splitzip_decompressed_size(const void *src, size_t src_size, uint64_t *n_elems)
{
	if (!src || !n_elems)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint8_t *p = (const uint8_t *)src;
	uint64_t total = 0;
	size_t off = 0;
	do {
		splitzip_header h;
		splitzip_status st = read_header(p + off, src_size - off, &h);
		if (st != SPLITZIP_OK)
			return stream_status(st, off);
		if (h.frame_size > src_size - off)
			return SPLITZIP_ERROR_TRUNCATED;
		off += (size_t)h.frame_size;
		total += h.n_elems;
	} while (off < src_size);
	*n_elems = total;
	return SPLITZIP_OK;
}

size_t splitzip_compress_bound(size_t n_elems)
{
	if ((uint64_t)n_elems > SPLITZIP_MAX_ELEMS)
		return 0;
	return (size_t)splitzip_stored_frame_size(n_elems);
}

/* ---- Compression --------------------------------------------------------------------------- */

/* Checksum of n elements split into chunks, on T workers. */
static uint64_t checksum_elems(const splitzip_backend *b, const uint16_t *src, uint64_t n,
			       unsigned log2, unsigned T)
{
	uint64_t C = splitzip_n_chunks(n, log2), sum = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) reduction(+ : sum) schedule(static) if (T > 1)
#endif
	for (int64_t c = 0; c < (int64_t)C; c++) {
		uint64_t len = splitzip_chunk_len(n, log2, (uint64_t)c);
		sum += splitzip_hash_chunk_fold(b->hash_chunk(src + ((uint64_t)c << log2), len * 2),
						(uint64_t)c);
	}
	(void)T;
	return splitzip_hash_frame_final(n, sum);
}

/* The header fields every frame this encoder writes shares (version 1, BF16). */
static void header_init(splitzip_header *h, unsigned mode, unsigned log2, unsigned flags,
			uint64_t n)
{
	memset(h, 0, sizeof *h);
	h->version = SPLITZIP_V1;
	h->dtype = SPLITZIP_DTYPE_BF16_ID;
	h->mode = mode;
	h->chunk_log2 = log2;
	h->flags = flags;
	h->n_elems = n;
}

static void write_stored(const splitzip_backend *b, const uint16_t *src, uint64_t n,
			 unsigned log2, unsigned flags, unsigned T, uint8_t *dst)
{
	splitzip_header h;
	header_init(&h, SPLITZIP_MODE_STORED_ID, log2, flags, n);
	h.frame_size = splitzip_stored_frame_size(n);
	if (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		h.content_checksum = checksum_elems(b, src, n, log2, T);
	if (n)
		memcpy(dst + SPLITZIP_HEADER_SIZE, src, (size_t)n * 2);
	memset(dst + SPLITZIP_HEADER_SIZE + 2 * n, 0, (size_t)(h.frame_size - SPLITZIP_HEADER_SIZE - 2 * n));
	splitzip_header_write(dst, &h);
}

/* Elements per histogram call of a speculative encode pass (128 KiB of input). */
#define SZ_HIST_BATCH_ELEMS ((uint64_t)1 << 16)

typedef size_t (*encode_fn)(const splitzip_enc_tables *, const uint16_t *, size_t, uint8_t *,
			    uint8_t *, uint16_t *, uint8_t *);

/*
 * Encode chunks [c0, c1) (one worker's range): codes and sign/mantissa bytes into the frame
 * sections, escapes into the scratch from element c0 << log2 on, escape counts per chunk.
 * Returns the range's escape count; adds its checksum folds to '*csum' if want_sum.
 */
static uint64_t encode_range(const splitzip_backend *b, encode_fn encode,
			     const splitzip_enc_tables *t, const uint16_t *src, uint64_t n,
			     unsigned log2, uint64_t c0, uint64_t c1, uint8_t *codes, uint8_t *sm,
			     uint16_t *spos, uint8_t *sexp, uint32_t *counts, int want_sum,
			     uint64_t *csum, uint64_t *hist)
{
	uint64_t base = c0 << log2, k = 0, h0 = base;
	for (uint64_t c = c0; c < c1; c++) {
		uint64_t e0 = c << log2, len = splitzip_chunk_len(n, log2, c);
		size_t m = encode(t, src + e0, (size_t)len, codes + e0 / 2, sm + e0,
				  spos + base + k, sexp + base + k);
		counts[c] = (uint32_t)m;
		k += m;
		if (want_sum)
			*csum += splitzip_hash_chunk_fold(
				b->hash_chunk(src + e0, (size_t)len * 2), c);
		/* Histogram in batches of SZ_HIST_BATCH_ELEMS, which are still in L2: no second
		 * trip to memory, and few calls (a SIMD histogram has a per-call cost). */
		if (hist && (e0 + len - h0 >= SZ_HIST_BATCH_ELEMS || c + 1 == c1)) {
			b->histogram(src + h0, (size_t)(e0 + len - h0), hist);
			h0 = e0 + len;
		}
	}
	return k;
}

/*
 * From-input codebooks of inputs at least this large are predicted from a sample of chunks and
 * verified against the full histogram gathered during the encode pass (see splitzip_compress):
 * one read of the input instead of two when the prediction holds. Smaller inputs stay in cache
 * between the histogram pass and the encode pass, where a separate pass costs little.
 */
#ifndef SZ_SPECULATE_MIN_ELEMS
#define SZ_SPECULATE_MIN_ELEMS ((uint64_t)1 << 22)
#endif
#define SZ_SPECULATE_SAMPLE_CHUNKS 16u /* at least; one chunk in 16 is sampled */

splitzip_status splitzip_compress(splitzip_ctx *ctx, const uint16_t *src, size_t n_elems,
				  void *dst_v, size_t dst_cap, size_t *dst_size)
{
	if (!ctx || !dst_v || !dst_size || (!src && n_elems) ||
	    (uint64_t)n_elems > SPLITZIP_MAX_ELEMS)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (ctx->backend->gpu) /* a device context: through the device, synchronously */
		return splitzip_gpu_host_compress(ctx, src, n_elems, dst_v, dst_cap, dst_size);
	uint8_t *dst = (uint8_t *)dst_v;
	const splitzip_backend *b = ctx->backend;
	const uint64_t n = n_elems;
	const unsigned log2 = ctx->params.chunk_log2;
	const unsigned flags = ctx->params.flags;
	const uint64_t C = splitzip_n_chunks(n, log2);
	const unsigned T = n_workers(ctx, n, C);
	const uint64_t stored_size = splitzip_stored_frame_size(n);
	const int64_t max_esc = splitzip_split4_max_escapes(n, log2);

	if (max_esc < 0) { /* split4 cannot win, whatever the data */
		if (dst_cap < stored_size)
			return SPLITZIP_ERROR_DST_TOO_SMALL;
		write_stored(b, src, n, log2, flags, T, dst);
		*dst_size = (size_t)stored_size;
		return SPLITZIP_OK;
	}

	splitzip_layout L0; /* the layout with zero escapes: the smallest split4 frame */
	splitzip_split4_layout(n, log2, 0, &L0);
	if (dst_cap < L0.frame_size && dst_cap < stored_size)
		return SPLITZIP_ERROR_DST_TOO_SMALL;

	/* Codebook and encoder tables. */
	splitzip_enc_tables from_input;
	const splitzip_enc_tables *t = &ctx->fixed_tables;
	const int speculate = ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FROM_INPUT &&
			      n >= SZ_SPECULATE_MIN_ELEMS && C >= SZ_SPECULATE_SAMPLE_CHUNKS;
	if (speculate) {
		/* Predict the codebook from one chunk in 16 (at least 16 chunks) spread over the
		 * input; the encode pass
		 * below gathers the full histogram and re-encodes if the prediction was wrong,
		 * so the frame is the canonical one either way (FORMAT.md §5.1, §6.2). */
		uint64_t hist[256] = {0}, n_sample = C / 16 > SZ_SPECULATE_SAMPLE_CHUNKS
							  ? C / 16 : SZ_SPECULATE_SAMPLE_CHUNKS;
		for (uint64_t k = 0; k < n_sample; k++) {
			uint64_t c = C * k / n_sample;
			b->histogram(src + (c << log2), (size_t)splitzip_chunk_len(n, log2, c), hist);
		}
		splitzip_codebook cb;
		splitzip_codebook_from_histogram(hist, &cb);
		splitzip_enc_tables_init(&from_input, cb.exponents);
		t = &from_input;
	} else if (ctx->params.codebook_mode == SPLITZIP_CODEBOOK_FROM_INPUT) {
		uint64_t hist[256] = {0};
		if (T == 1) /* no parallel region: even a one-thread one costs ~0.5 us */
			b->histogram(src, (size_t)n, hist);
		else
#ifdef _OPENMP
#pragma omp parallel num_threads(T)
#endif
		{
			uint64_t local[256] = {0};
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
			for (int64_t w = 0; w < (int64_t)T; w++) {
				uint64_t e0 = range_start(C, T, (unsigned)w) << log2;
				uint64_t e1 = range_start(C, T, (unsigned)w + 1) << log2;
				if (e1 > n)
					e1 = n;
				b->histogram(src + e0, (size_t)(e1 - e0), local);
			}
#ifdef _OPENMP
#pragma omp critical
#endif
			for (unsigned e = 0; e < 256; e++)
				hist[e] += local[e];
		}
		splitzip_codebook cb;
		splitzip_codebook_from_histogram(hist, &cb);
		splitzip_enc_tables_init(&from_input, cb.exponents);
		t = &from_input;
	}

	/* Scratch: escape counts per chunk (u32), then positions (u16) and exponents (u8) with
	 * room for every element, laid out by element index so workers never overlap. Only the
	 * pages that escapes touch become resident. */
	const unsigned TT = T > 64 ? 64 : T;
	size_t cnt_bytes = (size_t)splitzip_align16(4 * C);
	size_t hist_bytes = speculate ? (size_t)TT * 256 * sizeof(uint64_t) : 0;
	splitzip_status st = scratch_reserve(ctx, cnt_bytes + hist_bytes + (size_t)n * 3);
	if (st != SPLITZIP_OK)
		return st;
	uint32_t *counts = (uint32_t *)ctx->scratch;
	uint64_t *whist = speculate ? (uint64_t *)((uint8_t *)ctx->scratch + cnt_bytes) : NULL;
	uint16_t *spos = (uint16_t *)((uint8_t *)ctx->scratch + cnt_bytes + hist_bytes);
	uint8_t *sexp = (uint8_t *)(spos + n);
	uint64_t wcount[64 + 1] = {0}; /* escapes per worker */
	uint64_t csum = 0;
	int want_sum = (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;
	const encode_fn encode = 2 * n >= SZ_STREAM_MIN_BYTES ? b->encode_chunk_stream
							       : b->encode_chunk;
	if (whist)
		memset(whist, 0, hist_bytes);

	for (int pass = 0;; pass++) {
		if (TT == 1) { /* no parallel region: even a one-thread one costs ~0.5 us */
			wcount[0] = encode_range(b, encode, t, src, n, log2, 0, C,
						 dst + L0.codes_off, dst + L0.sm_off, spos, sexp,
						 counts, want_sum, &csum, whist);
		} else {
#ifdef _OPENMP
#pragma omp parallel for num_threads(TT) reduction(+ : csum) schedule(static)
#endif
			for (int64_t w = 0; w < (int64_t)TT; w++)
				wcount[w] = encode_range(
					b, encode, t, src, n, log2, range_start(C, TT, (unsigned)w),
					range_start(C, TT, (unsigned)w + 1), dst + L0.codes_off,
					dst + L0.sm_off, spos, sexp, counts, want_sum, &csum,
					whist ? whist + 256 * (size_t)w : NULL);
		}
		if (!whist || pass > 0)
			break;
		/* Speculation check: the canonical codebook of the whole input. */
		for (unsigned w = 1; w < TT; w++)
			for (unsigned e = 0; e < 256; e++)
				whist[e] += whist[256 * (size_t)w + e];
		splitzip_codebook cb;
		splitzip_codebook_from_histogram(whist, &cb);
		if (memcmp(cb.exponents, t->codebook, 16) == 0)
			break;
		/* Mispredicted: encode again with the right codebook. The checksum depends
		 * only on the input and was complete after the first pass. */
		splitzip_enc_tables_init(&from_input, cb.exponents);
		t = &from_input;
		whist = NULL;
		want_sum = 0;
	}
	want_sum = (flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;

	uint64_t E = 0;
	for (unsigned w = 0; w < TT; w++)
		E += wcount[w];
	if (E > (uint64_t)max_esc) { /* §6.3: the stored frame is no larger */
		if (dst_cap < stored_size)
			return SPLITZIP_ERROR_DST_TOO_SMALL;
		write_stored(b, src, n, log2, flags, T, dst);
		*dst_size = (size_t)stored_size;
		return SPLITZIP_OK;
	}
	splitzip_layout L;
	splitzip_split4_layout(n, log2, E, &L);
	if (dst_cap < L.frame_size)
		return SPLITZIP_ERROR_DST_TOO_SMALL;

	/* §4.2: the gaps after codes and sign/mantissa bytes are zero. */
	memset(dst + L.codes_off + (n + 1) / 2, 0, (size_t)(L.sm_off - L.codes_off - (n + 1) / 2));
	memset(dst + L.sm_off + n, 0, (size_t)(L.table_off - L.sm_off - n));
	/* Chunk table: cumulative escape counts. */
	uint64_t run = 0;
	for (uint64_t c = 0; c < C; c++) {
		run += counts[c];
		splitzip_st32(dst + L.table_off + 4 * c, (uint32_t)run);
	}
	memset(dst + L.table_off + 4 * C, 0, (size_t)(L.epos_off - L.table_off - 4 * C));
	/* Escapes, gathered in worker (= chunk) order. */
	uint64_t at = 0;
	for (unsigned w = 0; w < TT; w++) {
		uint64_t base = range_start(C, TT, w) << log2;
		memcpy(dst + L.epos_off + 2 * at, spos + base, (size_t)wcount[w] * 2);
		memcpy(dst + L.eexp_off + at, sexp + base, (size_t)wcount[w]);
		at += wcount[w];
	}
	memset(dst + L.epos_off + 2 * E, 0, (size_t)(L.eexp_off - L.epos_off - 2 * E));
	memset(dst + L.eexp_off + E, 0, (size_t)(L.frame_size - L.eexp_off - E));

	splitzip_header h;
	header_init(&h, SPLITZIP_MODE_SPLIT4_ID, log2, flags, n);
	h.n_escapes = (uint32_t)E;
	memcpy(h.codebook, t->codebook, 16);
	h.frame_size = L.frame_size;
	if (want_sum)
		h.content_checksum = splitzip_hash_frame_final(n, csum);
	splitzip_header_write(dst, &h);
	*dst_size = (size_t)L.frame_size;
	return SPLITZIP_OK;
}

/* ---- Decompression ------------------------------------------------------------------------- */

static int all_zero(const uint8_t *p, uint64_t n)
{
	uint8_t acc = 0;
	for (uint64_t i = 0; i < n; i++)
		acc |= p[i];
	return acc == 0;
}

/*
 * Validate and patch the escapes of one chunk after its dense decode (§4.2, §8): positions
 * strictly ascending and inside the chunk, the dense code at each position 0, the exponent
 * outside the codebook. Returns 0 if the chunk is invalid.
 */
static int patch_chunk(const splitzip_enc_tables *t, const uint8_t *codes, const uint8_t *sm,
		       uint64_t e0, uint64_t len, const uint8_t *epos, const uint8_t *eexp,
		       uint64_t k0, uint64_t k1, uint16_t *dst)
{
	int64_t prev = -1;
	for (uint64_t k = k0; k < k1; k++) {
		uint64_t p = splitzip_le16(epos + 2 * k);
		uint8_t e = eexp[k];
		if ((int64_t)p <= prev || p >= len || !t->is_escape[e])
			return 0;
		uint64_t i = e0 + p;
		if ((codes[i / 2] >> (4 * (i % 2))) & 0xF)
			return 0;
		dst[i] = splitzip_bf16_join(e, sm[i]);
		prev = (int64_t)p;
	}
	return 1;
}

typedef void (*decode_fn)(const uint8_t *, const uint8_t *, const uint8_t *, size_t, uint16_t *);

/*
 * Decode and patch chunks [c0, c1) (one worker's range) of a frame whose chunk table is
 * valid. Returns 1 if a chunk's escapes are invalid (decoding stops there), else 0; adds the
 * checksum folds to '*csum' if want_sum.
 */
static uint64_t decode_range(const splitzip_backend *b, decode_fn decode,
			     const splitzip_enc_tables *t, const uint8_t codebook[16], uint64_t n,
			     unsigned log2, uint64_t c0, uint64_t c1, const uint8_t *codes,
			     const uint8_t *sm, const uint8_t *table, const uint8_t *epos,
			     const uint8_t *eexp, uint16_t *dst, int want_sum, uint64_t *csum)
{
	for (uint64_t c = c0; c < c1; c++) {
		uint64_t e0 = c << log2, len = splitzip_chunk_len(n, log2, c);
		uint64_t k0 = c ? splitzip_le32(table + 4 * (c - 1)) : 0;
		uint64_t k1 = splitzip_le32(table + 4 * c);
		decode(codebook, codes + e0 / 2, sm + e0, (size_t)len, dst + e0);
		if (!patch_chunk(t, codes, sm, e0, len, epos, eexp, k0, k1, dst))
			return 1;
		if (want_sum)
			*csum += splitzip_hash_chunk_fold(
				b->hash_chunk(dst + e0, (size_t)len * 2), c);
	}
	return 0;
}

splitzip_status splitzip_frame_decompress(splitzip_ctx *ctx, const void *src_v, size_t src_size,
					  size_t *src_consumed, uint16_t *dst,
					  size_t dst_cap_elems, size_t *n_elems)
{
	if (!ctx || !src_v || !src_consumed || !n_elems || (!dst && dst_cap_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	if (ctx->backend->gpu)
		return splitzip_gpu_host_decompress_frame(ctx, src_v, src_size, src_consumed, dst,
							  dst_cap_elems, n_elems);
	const uint8_t *src = (const uint8_t *)src_v;
	const splitzip_backend *b = ctx->backend;
	splitzip_header h;
	splitzip_status st = read_header(src, src_size, &h);
	if (st != SPLITZIP_OK)
		return st;
	if (h.frame_size > src_size)
		return SPLITZIP_ERROR_TRUNCATED;
	const uint64_t n = h.n_elems;
	if (n > dst_cap_elems)
		return SPLITZIP_ERROR_DST_TOO_SMALL;
	const unsigned log2 = h.chunk_log2;
	const uint64_t C = splitzip_n_chunks(n, log2);
	const unsigned T = n_workers(ctx, n, C);
	const int want_sum = (h.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) != 0;

	if (h.mode == SPLITZIP_MODE_STORED_ID) {
		/* §4.1: trailing padding is zero. */
		if (!all_zero(src + SPLITZIP_HEADER_SIZE + 2 * n, h.frame_size - SPLITZIP_HEADER_SIZE - 2 * n))
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		if (n)
			memcpy(dst, src + SPLITZIP_HEADER_SIZE, (size_t)n * 2);
		if (want_sum && checksum_elems(b, dst, n, log2, T) != h.content_checksum)
			return SPLITZIP_ERROR_CONTENT_CHECKSUM;
		*src_consumed = (size_t)h.frame_size;
		*n_elems = (size_t)n;
		return SPLITZIP_OK;
	}

	splitzip_layout L;
	splitzip_split4_layout(n, log2, h.n_escapes, &L);
	const uint8_t *codes = src + L.codes_off, *sm = src + L.sm_off;
	const uint8_t *table = src + L.table_off, *epos = src + L.epos_off, *eexp = src + L.eexp_off;
	const uint64_t E = h.n_escapes;

	/* §4.2: zero padding: the high nibble after an odd last element and every gap. */
	if ((n % 2 && (codes[n / 2] >> 4)) ||
	    !all_zero(codes + (n + 1) / 2, L.sm_off - L.codes_off - (n + 1) / 2) ||
	    !all_zero(sm + n, L.table_off - L.sm_off - n) ||
	    !all_zero(table + 4 * C, L.epos_off - L.table_off - 4 * C) ||
	    !all_zero(epos + 2 * E, L.eexp_off - L.epos_off - 2 * E) ||
	    !all_zero(eexp + E, L.frame_size - L.eexp_off - E))
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	/* §4.2: the chunk table is non-decreasing, no chunk has more escapes than elements, and
	 * the last entry equals Escape_Count. After this every chunk's escape range is inside
	 * the escape sections. */
	uint64_t prev = 0;
	for (uint64_t c = 0; c < C; c++) {
		uint64_t end = splitzip_le32(table + 4 * c);
		if (end < prev || end - prev > splitzip_chunk_len(n, log2, c))
			return SPLITZIP_ERROR_CORRUPT_STREAM;
		prev = end;
	}
	if (prev != E)
		return SPLITZIP_ERROR_CORRUPT_STREAM;

	splitzip_enc_tables t;
	splitzip_enc_tables_init(&t, h.codebook);
	uint64_t csum = 0, bad = 0;
	const decode_fn decode = 2 * n >= SZ_STREAM_MIN_BYTES && !want_sum ? b->decode_chunk_stream
									   : b->decode_chunk;
	if (T == 1) { /* no parallel region: even a one-thread one costs ~0.5 us */
		bad = decode_range(b, decode, &t, h.codebook, n, log2, 0, C, codes, sm, table, epos,
				   eexp, dst, want_sum, &csum);
	} else {
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) reduction(+ : csum, bad) schedule(static)
#endif
		for (int64_t w = 0; w < (int64_t)T; w++)
			bad += decode_range(b, decode, &t, h.codebook, n, log2,
					    range_start(C, T, (unsigned)w),
					    range_start(C, T, (unsigned)w + 1), codes, sm, table,
					    epos, eexp, dst, want_sum, &csum);
	}
	if (bad)
		return SPLITZIP_ERROR_CORRUPT_STREAM;
	if (want_sum && splitzip_hash_frame_final(n, csum) != h.content_checksum)
		return SPLITZIP_ERROR_CONTENT_CHECKSUM;
	*src_consumed = (size_t)h.frame_size;
	*n_elems = (size_t)n;
	return SPLITZIP_OK;
}

splitzip_status splitzip_decompress(splitzip_ctx *ctx, const void *src, size_t src_size,
				    uint16_t *dst, size_t dst_cap_elems, size_t *n_elems)
{
	if (!ctx || !src || !n_elems || (!dst && dst_cap_elems))
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint8_t *p = (const uint8_t *)src;
	size_t off = 0, total = 0;
	do {
		size_t used = 0, got = 0;
		splitzip_status st =
			splitzip_frame_decompress(ctx, p + off, src_size - off, &used,
						  dst ? dst + total : NULL, dst_cap_elems - total, &got);
		if (st != SPLITZIP_OK)
			return stream_status(st, off);
		off += used;
		total += got;
	} while (off < src_size);
	*n_elems = total;
	return SPLITZIP_OK;
}

splitzip_status splitzip_verify(splitzip_ctx *ctx, const void *src, size_t src_size,
				uint64_t *n_elems)
{
	if (!ctx || !src)
		return SPLITZIP_ERROR_INVALID_ARGUMENT;
	const uint8_t *p = (const uint8_t *)src;
	size_t off = 0;
	uint64_t total = 0;
	do {
		splitzip_header h;
		splitzip_status st = read_header(p + off, src_size - off, &h);
		if (st != SPLITZIP_OK)
			return stream_status(st, off);
		if (h.frame_size > src_size - off)
			return SPLITZIP_ERROR_TRUNCATED;
		if (h.n_elems > ctx->verify_cap) {
			uint16_t *nb = (uint16_t *)malloc(h.n_elems ? (size_t)h.n_elems * 2 : 1);
			if (!nb)
				return SPLITZIP_ERROR_OUT_OF_MEMORY;
			free(ctx->verify_buf);
			ctx->verify_buf = nb;
			ctx->verify_cap = (size_t)h.n_elems;
		}
		size_t used = 0, got = 0;
		st = splitzip_frame_decompress(ctx, p + off, src_size - off, &used, ctx->verify_buf,
					       ctx->verify_cap, &got);
		if (st != SPLITZIP_OK)
			return st;
		off += used;
		total += got;
	} while (off < src_size);
	if (n_elems)
		*n_elems = total;
	return SPLITZIP_OK;
}
