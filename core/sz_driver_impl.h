/*
 * sz_driver_impl.h -- the parts of the host frame driver, for the driver's own files only.
 *
 * The driver is a tree (doc/ARCHITECTURE.md, "The frame driver"):
 *
 *   sz_driver.c           the entry points: the mode decision of FORMAT.md §6.3 (stored,
 *                         split4, entropy, auto) and the histogram it needs, computed at most
 *                         once per frame; the decoder's dispatch on the header's mode
 *     sz_driver_split4.c  leaf: split4 frames -- the codebook (fixed, from the histogram it is
 *                         given, or predicted and checked in one pass), the encode pass, the
 *                         sections after it, the validating decoder
 *     sz_driver_entropy.c leaf: entropy frames -- the encode pass with a given table, the
 *                         sections after it, the validating decoder
 *       sz_driver_common.c  below both: scratch, worker ranges, histograms, the content
 *                         checksum, stored frames, segments
 *
 * Calls go down only: the leaves call sz_driver_common.c and never the entry file or each
 * other, so no mode encoder decides about another mode.
 */
#ifndef SZ_DRIVER_IMPL_H
#define SZ_DRIVER_IMPL_H

#include "sz_driver.h"

#if defined(__AVX2__) && !defined(SPLITZIP_NATIVE)
#error "core/ must be compiled for the baseline ISA (no -mavx2)"
#endif

/* ---- sz_driver_common.c ---------------------------------------------------------------------- */

/*
 * The elements a pass reads: one array, or segments with a chunk of gather space per worker
 * (worker w's at tmp + (w << log2)). splitzip_in_chunk() gives chunk elements [e0, e0 + len)
 * (len <= 2^log2) for worker w.
 */
typedef struct splitzip_in {
	const uint16_t *p;
	const splitzip_segments *seg; /* when p is NULL */
	uint16_t *tmp;
	unsigned log2;
} splitzip_in;

static inline const uint16_t *splitzip_in_chunk(const splitzip_in *in, unsigned w, uint64_t e0,
                                                uint64_t len)
{
	if (in->p)
		return in->p + e0;
	return splitzip_segments_read(in->seg, e0, len, in->tmp + ((uint64_t)w << in->log2));
}

/* Where a decode pass writes: one array, or segments with gather space as splitzip_in. */
typedef struct splitzip_out {
	uint16_t *p;
	const splitzip_segments *seg;
	uint16_t *tmp;
	unsigned log2;
} splitzip_out;

static inline uint16_t *splitzip_out_window(const splitzip_out *o, unsigned w, uint64_t e0,
                                            uint64_t len)
{
	if (o->p)
		return o->p + e0;
	return splitzip_segments_window(o->seg, e0, len, o->tmp + ((uint64_t)w << o->log2));
}

static inline void splitzip_out_flush(const splitzip_out *o, uint64_t e0, uint64_t len,
                                      const uint16_t *win)
{
	if (!o->p)
		splitzip_segments_flush(o->seg, e0, len, win);
}

/* Gather space of T workers for chunks of 2^log2 elements, in bytes. */
static inline size_t splitzip_driver_tmp_bytes(unsigned T, unsigned log2)
{
	return ((size_t)T << log2) * sizeof(uint16_t);
}

/*
 * Frames of at least this many uncompressed bytes are written with the backends' streaming
 * (non-temporal store) kernels: their output does not fit in the cache anyway, and such stores
 * skip the read for ownership of every destination line. Decoding with a content checksum
 * keeps ordinary stores, since it reads each chunk back right away. See doc/BENCHMARKS.md.
 */
#ifndef SZ_STREAM_MIN_BYTES
#define SZ_STREAM_MIN_BYTES ((uint64_t)32 << 20)
#endif

/* Worker threads of a split4 encode pass at most (its per-worker results live in fixed
 * arrays). */
#define SZ_MAX_WORKERS 64u

/* Worker threads for n elements in C chunks, and the first chunk of worker w's range. */
SZ_INTERNAL unsigned splitzip_driver_workers(unsigned n_threads, uint64_t n, uint64_t C);
SZ_INTERNAL uint64_t splitzip_driver_range_start(uint64_t C, unsigned T, unsigned w);

/* hist[e] += the exponent histogram of n elements, one chunk range per worker (T workers). */
SZ_INTERNAL void splitzip_driver_histogram(const splitzip_host_kernels *k, const uint16_t *src,
                                           uint64_t n, unsigned log2, unsigned T,
                                           uint64_t hist[256]);

/*
 * hist[e] += the exponent histogram of a sample of the n elements at src: at least
 * SZ_SAMPLE_PIECES pieces of SZ_SAMPLE_PIECE elements, about one element in SZ_SAMPLE_EVERY,
 * but not more than SZ_SAMPLE_DENSE pieces plus one element in SZ_SAMPLE_THIN (about one in
 * 32 up to 4 Mi elements, one in 110 at 128 Mi: on slices of real KV caches the codebook of an
 * input from 4 Mi elements on is predicted right from either, while one in 64 already
 * mispredicts 14 % of 4 Mi-element slices, and out of the cache each piece costs a memory
 * latency); one piece per stretch of the input at a position inside it that varies from
 * stretch to stretch (splitzip_driver_sample_piece), so that input that repeats with a
 * power-of-two period is not sampled at the same offset of every period. 'tmp' lends room for
 * SZ_SAMPLE_BATCH elements. For n >= SZ_SAMPLE_PIECES * SZ_SAMPLE_PIECE only.
 */
#define SZ_SAMPLE_PIECE 1024u
#define SZ_SAMPLE_PIECES 16u
#define SZ_SAMPLE_EVERY 32u
#define SZ_SAMPLE_DENSE 128u
#define SZ_SAMPLE_THIN 128u
#define SZ_SAMPLE_BATCH ((uint64_t)1 << 16)
SZ_INTERNAL void splitzip_driver_histogram_sample(const splitzip_host_kernels *k,
                                                  const uint16_t *src, uint64_t n, uint16_t *tmp,
                                                  uint64_t hist[256]);
/* The number of pieces of that sample, and the first element of piece i. */
SZ_INTERNAL uint64_t splitzip_driver_sample_pieces(uint64_t n);
SZ_INTERNAL uint64_t splitzip_driver_sample_piece(uint64_t n, uint64_t i);

/* The content checksum of the elements of 'in' (chunks of 2^in->log2 when it is segmented). */
SZ_INTERNAL uint64_t splitzip_driver_checksum_in(const splitzip_host_kernels *k, unsigned n_threads,
                                                 const splitzip_in *in, uint64_t n, unsigned log2);

/* A stored frame (FORMAT.md §4.1) of the n elements of 'in', if it fits in dst_cap bytes. */
SZ_INTERNAL splitzip_status splitzip_driver_write_stored(const splitzip_encoder *e,
                                                         const splitzip_in *in, uint64_t n,
                                                         uint8_t *dst, size_t dst_cap,
                                                         size_t *dst_size);

/* Decode the body of a stored frame whose header is valid (FORMAT.md §4.1). */
SZ_INTERNAL splitzip_status splitzip_driver_decode_stored(const splitzip_host_kernels *k,
                                                          unsigned n_threads,
                                                          const splitzip_header *h,
                                                          const uint8_t *src,
                                                          const splitzip_out *dst);

/* ---- sz_driver_split4.c: the split4 leaf --------------------------------------------------- */

/* One split4 encode: where the pass wrote everything, until the frame is finished. Scratch
 * holds, by element index so that workers never overlap, the escape positions and exponents;
 * per chunk, its escape count. */
typedef struct splitzip_split4_enc {
	const splitzip_host_kernels *k;
	splitzip_encode_chunk_fn encode;
	const splitzip_enc_tables *t; /* the codebook the sections were written with */
	splitzip_enc_tables own;      /* a codebook of the encoder's own */
	splitzip_in in;               /* the elements */
	uint64_t n;
	unsigned log2;
	unsigned T;       /* workers */
	uint8_t *codes;   /* the frame's code section */
	uint8_t *sm;      /* the frame's sign/mantissa section */
	uint16_t *spos;   /* scratch: escape positions */
	uint8_t *sexp;    /* scratch: escape exponents */
	uint32_t *counts; /* scratch: escapes per chunk */
	uint32_t
	    *hits;     /* scratch, a chunk per worker: the recoder's codes (a predicted codebook) */
	int count;     /* what the pass counts: SZ_COUNT_* (sz_driver_split4.c) */
	int want_sum;  /* fold the content checksum in */
	uint64_t csum; /* the checksum folds */
	uint64_t E;    /* escapes */
	splitzip_encode_count_chunk_fn encode_count; /* the pass's encoder when it watches */
	splitzip_watch watch;                        /* the watched codes (watch.n may be 0) */
	uint64_t wstart[SZ_MAX_WORKERS];    /* where each worker's escapes are in scratch */
	uint64_t wcount[SZ_MAX_WORKERS];    /* escapes per worker */
	uint64_t whits[SZ_MAX_WORKERS][16]; /* every code, per worker */
	uint64_t wwatch[SZ_MAX_WORKERS][SPLITZIP_WATCH_MAX]; /* the watched codes, per worker */
	uint64_t wsparse[SZ_MAX_WORKERS][16]; /* every code of the sparse batches, per worker */
	uint64_t wsparse_esc[SZ_MAX_WORKERS]; /* the escapes of the sparse batches, per worker */
} splitzip_split4_enc;

/*
 * What the last predicted split4 encode pass of the calling thread did (tests and benchmarks
 * read it to see which way a frame went; the frame is the canonical one whichever it was).
 */
typedef struct splitzip_split4_trace {
	int count; /* what the pass counted: 1 watched codes and sparse batches, 2 every code */
	unsigned watched;  /* codes watched */
	int counted_after; /* 1: the watch proved too little, every code was counted after the pass
	                    */
	int recoded;       /* 1: the prediction was wrong and the pass was recoded */
	int encoded_again; /* 1: the prediction was wrong and the input was encoded again */
} splitzip_split4_trace;
SZ_INTERNAL splitzip_split4_trace splitzip_split4_last_trace(void);

/*
 * Inputs from which a split4 encoder with the codebook from the input predicts the codebook
 * from a sample and checks it in its one pass (see sz_driver_split4.c); below, the caller
 * gives it the exact histogram.
 */
SZ_INTERNAL int splitzip_split4_predicts(uint64_t n);

/*
 * The encode pass of n >= 1 elements: the codes and sign/mantissa bytes into the frame at dst
 * (which has room for the split4 frame without escapes), the escapes into scratch; p->E gets
 * their number. The codebook is e->fixed, or, without one, that of 'hist' (the exact histogram
 * of the elements), or, without either (splitzip_split4_predicts(n) only, one array), one
 * predicted from a sample and checked against the exact histogram the pass counts; if the
 * canonical codebook differs, the codes and escapes written are recoded to it (or, where the
 * new escape lists might not fit in scratch, the input is encoded again). OK or OUT_OF_MEMORY.
 */
SZ_INTERNAL splitzip_status splitzip_split4_run(splitzip_split4_enc *p, const splitzip_encoder *e,
                                                splitzip_scratch *s, const splitzip_in *in,
                                                uint64_t n, const uint64_t *hist, uint8_t *dst);

/* The sections after the pass, and the header, of the split4 frame of layout L (p->E escapes). */
SZ_INTERNAL void splitzip_split4_finish(const splitzip_split4_enc *p, const splitzip_layout *L,
                                        unsigned flags, uint8_t *dst);

/* Decode the body of a split4 frame whose header is valid (FORMAT.md §4.2.7). */
SZ_INTERNAL splitzip_status splitzip_split4_decode(const splitzip_host_kernels *k,
                                                   unsigned n_threads, const splitzip_header *h,
                                                   const uint8_t *src, const splitzip_out *dst);

/* ---- sz_driver_entropy.c: the entropy leaf ------------------------------------------------- */

/* One entropy encode: where the pass wrote everything, until the frame is finished. */
typedef struct splitzip_entropy_enc {
	const splitzip_host_kernels *k;
	splitzip_entropy_enc_tables enc;
	const splitzip_entropy_table *table;
	splitzip_in in; /* the elements */
	uint64_t n;
	unsigned log2;
	unsigned T;      /* workers */
	uint8_t *sm;     /* the frame's sign/mantissa section */
	uint8_t *words;  /* scratch: chunk c's words at byte 2 * c * stride */
	uint64_t stride; /* words per chunk slot: splitzip_entropy_chunk_words_max(2^log2) */
	uint32_t *nw;    /* scratch: words per chunk */
	uint32_t *ne;    /* scratch: escapes per chunk */
	int want_sum;    /* fold the content checksum in */
	uint64_t csum;   /* the checksum folds */
	uint64_t E;      /* escapes */
	splitzip_entropy_layout L;
	uint8_t lengths[128]; /* the code-length section */
	size_t lengths_bytes;
} splitzip_entropy_enc;

/*
 * The encode pass of n >= 1 elements with the valid table t: the sign/mantissa bytes into the
 * frame at dst (room for the header and n bytes), the words into scratch. p->L is then the
 * layout of the entropy frame they make. OK or OUT_OF_MEMORY.
 */
SZ_INTERNAL splitzip_status splitzip_entropy_run(splitzip_entropy_enc *p, const splitzip_encoder *e,
                                                 splitzip_scratch *s, const splitzip_in *in,
                                                 uint64_t n, const splitzip_entropy_table *t,
                                                 uint8_t *dst);

/* The sections after the pass, and the header (p->L.frame_size bytes at dst). */
SZ_INTERNAL void splitzip_entropy_finish(const splitzip_entropy_enc *p, unsigned flags,
                                         uint8_t *dst);

/*
 * A lower bound of the size of the entropy frame of n elements with histogram 'hist' and table
 * t (its words hold at least the bits of every code and raw exponent), without encoding.
 */
SZ_INTERNAL uint64_t splitzip_entropy_size_floor(const splitzip_entropy_table *t,
                                                 const uint64_t hist[256], uint64_t n,
                                                 unsigned log2);

/* Decode the body of an entropy frame whose header is valid (FORMAT.md §4.3.6). */
SZ_INTERNAL splitzip_status splitzip_entropy_decode(const splitzip_host_kernels *k,
                                                    unsigned n_threads, const splitzip_header *h,
                                                    const uint8_t *src, const splitzip_out *dst);

#endif /* SZ_DRIVER_IMPL_H */
