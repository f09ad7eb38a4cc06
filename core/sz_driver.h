/*
 * sz_driver.h -- the host frame driver: one frame encoded or decoded with the chunk kernels of
 * one host backend (core/sz_kernels.h), split by chunks across worker threads. The public entry
 * points (api/) check their arguments and pick the kernels; everything about the format, and
 * every check of a frame from outside, happens here.
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

/* ---- Shared by the split4 (sz_driver.c) and entropy (sz_driver_entropy.c) drivers ---------- */

/* Worker threads for n elements in C chunks, and the first chunk of worker w's range. */
SZ_INTERNAL unsigned splitzip_driver_workers(unsigned n_threads, uint64_t n, uint64_t C);
SZ_INTERNAL uint64_t splitzip_driver_range_start(uint64_t C, unsigned T, unsigned w);

/* hist[e] += the exponent histogram of n elements, one chunk range per worker (T workers). */
SZ_INTERNAL void splitzip_driver_histogram(const splitzip_host_kernels *k, const uint16_t *src,
                                           uint64_t n, unsigned log2, unsigned T,
                                           uint64_t hist[256]);

/* A stored frame (FORMAT.md §4.1), if it fits in dst_cap bytes. */
SZ_INTERNAL splitzip_status splitzip_driver_write_stored(const splitzip_encoder *e,
                                                         const uint16_t *src, uint64_t n,
                                                         uint8_t *dst, size_t dst_cap,
                                                         size_t *dst_size);

/* 1 if the n bytes at p are all zero. */
SZ_INTERNAL int splitzip_driver_all_zero(const uint8_t *p, uint64_t n);

/* The split4 encoder (the whole of §6 for ENCODING_SPLIT4: split4 or stored). */
SZ_INTERNAL splitzip_status splitzip_driver_compress_split4(const splitzip_encoder *e,
                                                            splitzip_scratch *s,
                                                            const uint16_t *src, uint64_t n,
                                                            uint8_t *dst, size_t dst_cap,
                                                            size_t *dst_size);

/*
 * sz_driver_entropy.c: the ENTROPY and AUTO encoders (FORMAT.md §6.3), and the body of an
 * entropy frame whose header is valid and whose Frame_Size bytes are present (§4.3.6).
 */
SZ_INTERNAL splitzip_status splitzip_driver_compress_entropy(const splitzip_encoder *e,
                                                             splitzip_scratch *s,
                                                             const uint16_t *src, uint64_t n,
                                                             uint8_t *dst, size_t dst_cap,
                                                             size_t *dst_size);
SZ_INTERNAL splitzip_status splitzip_driver_decode_entropy(const splitzip_host_kernels *k,
                                                           unsigned n_threads,
                                                           const splitzip_header *h,
                                                           const uint8_t *src, uint16_t *dst);

/* The content checksum (FORMAT.md §7) of n elements in chunks of 2^log2, on up to n_threads. */
SZ_INTERNAL uint64_t splitzip_driver_checksum(const splitzip_host_kernels *k, unsigned n_threads,
                                              const uint16_t *src, uint64_t n, unsigned log2);

#endif /* SZ_DRIVER_H */
