/*
 * sz_driver.h -- the host frame driver: one frame encoded or decoded with the chunk kernels of
 * one host backend (core/sz_kernels.h), split by chunks across worker threads. The public entry
 * points (api/) check their arguments and pick the kernels; everything about the format, and
 * every check of a frame from outside, happens here. How the driver is built from its parts:
 * core/sz_driver_impl.h.
 */
#ifndef SZ_DRIVER_H
#define SZ_DRIVER_H

#include "sz_kernels.h"

/* Memory a caller lends the driver and keeps between calls: grown on demand, never shrunk. */
typedef struct splitzip_scratch {
	void *buf;
	size_t size;
} splitzip_scratch;

/* Grow 's' to at least 'size' bytes (contents not kept). OK or OUT_OF_MEMORY. */
SZ_INTERNAL splitzip_status splitzip_scratch_reserve(splitzip_scratch *s, size_t size);
SZ_INTERNAL void splitzip_scratch_free(splitzip_scratch *s);

/*
 * Elements that live in several arrays but form one frame: the coded pages of a page stream
 * (doc/FORMAT.md §12), which are encoded and decoded in place, without a copy into one buffer.
 * Segment k holds the elements [start[k], start[k+1]) of the concatenation at ptr[k]; every
 * segment is nonempty (start strictly ascending), start[0] = 0. A frame over them covers the
 * concatenation's elements [first, first + n).
 */
typedef struct splitzip_segments {
	uint16_t *const *ptr;  /* n_segs entries (read-only when encoding) */
	const uint64_t *start; /* n_segs + 1 entries */
	uint64_t n_segs;
	uint64_t first; /* the frame's element 0 */
} splitzip_segments;

/*
 * Elements [e0, e0 + len) of the frame over 's' (e0 + len <= the frame's size): a pointer into
 * the segment that holds them all, or, when they span segments, 'tmp' (room for len elements)
 * with a copy of them.
 */
SZ_INTERNAL const uint16_t *splitzip_segments_read(const splitzip_segments *s, uint64_t e0,
                                                   uint64_t len, uint16_t *tmp);

/*
 * Where to write elements [e0, e0 + len) of the frame over 's': into the segment that holds them
 * all, or 'tmp' when they span segments; splitzip_segments_flush() then copies 'tmp' out to the
 * segments (and does nothing for a window into a segment).
 */
SZ_INTERNAL uint16_t *splitzip_segments_window(const splitzip_segments *s, uint64_t e0,
                                               uint64_t len, uint16_t *tmp);
SZ_INTERNAL void splitzip_segments_flush(const splitzip_segments *s, uint64_t e0, uint64_t len,
                                         const uint16_t *win);

/* What an encode is asked to do. */
typedef struct splitzip_encoder {
	const splitzip_host_kernels *k;
	unsigned chunk_log2;                 /* SPLITZIP_CHUNK_LOG2_MIN..MAX */
	unsigned flags;                      /* SPLITZIP_FLAG_* */
	unsigned n_threads;                  /* 0: as many as OpenMP offers */
	const splitzip_enc_tables *fixed;    /* a fixed codebook, or NULL: from the input */
	splitzip_encoding encoding;          /* which mode (FORMAT.md §6.3) */
	const splitzip_entropy_table *table; /* a fixed entropy table, or NULL: from the input */
} splitzip_encoder;

/*
 * Encode n elements (n <= SPLITZIP_MAX_FRAME_ELEMS) into the canonical frame at dst (dst_cap
 * bytes; the bound always suffices) and store its size. OK, DST_TOO_SMALL or OUT_OF_MEMORY.
 */
SZ_INTERNAL splitzip_status splitzip_driver_compress(const splitzip_encoder *e, splitzip_scratch *s,
                                                     const uint16_t *src, uint64_t n, uint8_t *dst,
                                                     size_t dst_cap, size_t *dst_size);

/*
 * Decode the one frame at the start of src (src_size bytes available) into dst (room for
 * dst_cap elements), validating every field before it is used (FORMAT.md §3.2-§4, §8). Stores
 * the frame's size in bytes and the number of elements. Any decoder status.
 */
SZ_INTERNAL splitzip_status splitzip_driver_decode(const splitzip_host_kernels *k,
                                                   unsigned n_threads, const uint8_t *src,
                                                   size_t src_size, size_t *src_consumed,
                                                   uint16_t *dst, size_t dst_cap, size_t *n_elems);

/*
 * The same over elements held in segments, with a fixed codebook (split4) or a fixed table
 * (entropy): e->encoding is SPLIT4 or ENTROPY and e->fixed or e->table is set (page streams
 * choose their table before they encode, FORMAT.md §12.4); INVALID_ARGUMENT otherwise. The
 * frame is the one splitzip_driver_compress() writes for the same elements in one array.
 * 'gather' lends a chunk of gather space per worker, 's' the rest.
 */
SZ_INTERNAL splitzip_status splitzip_driver_compress_segments(
    const splitzip_encoder *e, splitzip_scratch *s, splitzip_scratch *gather,
    const splitzip_segments *src, uint64_t n, uint8_t *dst, size_t dst_cap, size_t *dst_size);

/*
 * Decode the one frame at the start of src into the elements [0, dst_cap) of the segments
 * 'dst', as splitzip_driver_decode() does into one array (same checks, same statuses); 's'
 * lends the gather space of chunks that span segments.
 */
SZ_INTERNAL splitzip_status splitzip_driver_decode_segments(const splitzip_host_kernels *k,
                                                            unsigned n_threads, splitzip_scratch *s,
                                                            const uint8_t *src, size_t src_size,
                                                            size_t *src_consumed,
                                                            const splitzip_segments *dst,
                                                            uint64_t dst_cap, size_t *n_elems);

/* 1 if the n bytes at p are all zero. */
SZ_INTERNAL int splitzip_driver_all_zero(const uint8_t *p, uint64_t n);

/* The content checksum (FORMAT.md §7) of n elements in chunks of 2^log2, on up to n_threads. */
SZ_INTERNAL uint64_t splitzip_driver_checksum(const splitzip_host_kernels *k, unsigned n_threads,
                                              const uint16_t *src, uint64_t n, unsigned log2);

#endif /* SZ_DRIVER_H */
