/*
 * sz_dtype.h -- frames of the dtypes FP8 E4M3, FP8 E5M2, FP16 and FP32 (doc/FORMAT.md 1.3,
 * §2.2-§2.4): element layouts, rest sections, frame sizes, header validation, and an encoder
 * and validating decoder of every mode in portable C.
 *
 * Every host backend runs this same code for these dtypes, so their frames are byte-identical
 * by construction; BF16 frames keep the backend kernels of the frame driver (sz_driver.c). The
 * one exception: the decoder, given a backend's kernel table, decodes the exponent streams of
 * entropy frames with its BF16 entropy kernels (same statuses and elements as the portable
 * code, unit.dtypes).
 * Single-threaded, one frame per call. Host only (malloc for the exponents and words).
 */
#ifndef SZ_DTYPE_H
#define SZ_DTYPE_H

#include "sz_dtype_layout.h"
#include "sz_entropy.h"
#include "sz_kernels.h"
#include "sz_layout.h"

/* The row of Dtype 'code' (1-5), or NULL for a reserved value. */
SZ_INTERNAL const splitzip_dtype_desc *splitzip_dtype_desc_of(unsigned code);

/* The stored frame size of n elements: 64 + align16(w n). */
SZ_INTERNAL uint64_t splitzip_dtype_stored_size(const splitzip_dtype_desc *d, uint64_t n);

/*
 * FORMAT.md §3.2 steps 0-11 for a frame of any dtype at src ('size' bytes available): BF16
 * frames exactly as splitzip_read_header(), the other dtypes with their rules and sizes.
 */
SZ_INTERNAL splitzip_status splitzip_dtype_read_header(const uint8_t *src, uint64_t size,
                                                       splitzip_header *h);

/*
 * Decode the frame at src of Dtype 2-5 whose header 'h' passed splitzip_dtype_read_header() and
 * whose h->frame_size bytes are available, into dst (room for h->n_elems elements of the
 * dtype's width, any alignment): §3.3 steps 14-15. Returns CORRUPT_STREAM, CONTENT_CHECKSUM or
 * OUT_OF_MEMORY on failure (dst contents then unspecified). With the host kernels 'k' (NULL:
 * portable C only), entropy frames decode their exponent stream with k's BF16 entropy kernels
 * (it is coded as a BF16 frame's, with escapes of the dtype's exponent width, §2.4, §4.3; FP32:
 * with Rest_SM, the elements' high halves); same statuses, same elements.
 */
SZ_INTERNAL splitzip_status splitzip_dtype_decode(const splitzip_host_kernels *k,
                                                  const splitzip_header *h, const uint8_t *src,
                                                  void *dst);

/* What splitzip_dtype_encode() writes (FORMAT.md §6.1). */
typedef struct splitzip_dtype_encoder {
	unsigned dtype;                      /* 2-5 */
	unsigned chunk_log2;                 /* 10-16 */
	unsigned flags;                      /* SPLITZIP_FLAG_* */
	unsigned encoding;                   /* splitzip_encoding */
	const uint8_t *codebook;             /* fixed codebook (16 entries) or NULL */
	const splitzip_entropy_table *table; /* fixed table or NULL */
} splitzip_dtype_encoder;

/*
 * Encode n elements (w bytes each, little-endian, any alignment) into one canonical frame at
 * dst (dst_cap bytes). Errors: INVALID_ARGUMENT (split4 for E4M3, a dtype outside 2-5),
 * BAD_CODEBOOK (a fixed codebook or table not valid for the dtype), DST_TOO_SMALL,
 * OUT_OF_MEMORY. Nothing is written past dst_cap.
 */
SZ_INTERNAL splitzip_status splitzip_dtype_encode(const splitzip_dtype_encoder *e, const void *src,
                                                  uint64_t n, uint8_t *dst, size_t dst_cap,
                                                  size_t *dst_size);

/* Whether the fixed codebook and table of 'e' (those not NULL) are valid for the dtype: a
 * codebook's 16 exponents ascending and below 2^e, a table valid (§4.3.6) with no code for an
 * exponent of 2^e or more (§6.1). */
SZ_INTERNAL int splitzip_dtype_fixed_ok(const splitzip_dtype_encoder *e,
                                        const splitzip_dtype_desc *d);

/* The content checksum (§7.2) of n elements of the dtype at p (any alignment), with chunks of
 * 2^log2 elements. */
SZ_INTERNAL uint64_t splitzip_dtype_content_checksum(const splitzip_dtype_desc *d, const uint8_t *p,
                                                     uint64_t n, unsigned log2);

/*
 * The table of the entropy frame of Dtype 2-5 at src whose header 'h' is valid (§4.3.3): OK,
 * TRUNCATED (src_size ends before the code lengths) or CORRUPT_STREAM.
 */
SZ_INTERNAL splitzip_status splitzip_dtype_frame_table(const uint8_t *src, uint64_t src_size,
                                                       const splitzip_header *h,
                                                       splitzip_entropy_table *t);

#endif /* SZ_DTYPE_H */
