/*
 * sz_layout.h -- every byte-layout decision of the splitzip frame format (doc/FORMAT.md §3-§4),
 * as static inline helpers usable from host code and from CUDA/HIP device code.
 *
 * No backend computes an offset or a size of its own: the scalar oracle, the SIMD backends, the
 * GPU kernels and the CPU SIMT harness all call these functions, so they cannot disagree.
 * All arithmetic is 64-bit: a frame holds at most 2^32 - 1 elements, so every size below fits
 * in 35 bits and no sum overflows.
 */
#ifndef SZ_LAYOUT_H
#define SZ_LAYOUT_H

#include "../include/splitzip.h"
#include "sz_common.h"
#include "sz_hash.h"

/* ---- Constants of format version 1 (doc/FORMAT.md §3) ------------------------------------ */

/*
 * The format facts that the public API states (header size, format version, dtype and mode
 * numbers, flags, chunk-size and element limits) are defined once, in include/splitzip.h, and
 * used here under their public names. The rest are internal to the format.
 */
#define SPLITZIP_MAGIC 0xBF5A5053u /* bytes 53 50 5A BF: "SPZ" then 0xBF */
#define SPLITZIP_SECTION_ALIGN 16u
#define SPLITZIP_FLAGS_KNOWN SPLITZIP_FLAG_CONTENT_CHECKSUM /* every flag version 1 defines */

SZ_STATIC_ASSERT(SPLITZIP_FRAME_HEADER_SIZE % SPLITZIP_SECTION_ALIGN == 0,
                 "sections after the header start aligned");
SZ_STATIC_ASSERT(SPLITZIP_COMPRESS_BOUND(1) == SPLITZIP_FRAME_HEADER_SIZE + 16,
                 "the public bound is the stored frame size");
SZ_STATIC_ASSERT(SPLITZIP_CHUNK_LOG2_MAX <= 16, "chunk-local escape positions are u16");
SZ_STATIC_ASSERT(SPLITZIP_CODEBOOK_SIZE == 16, "4-bit codes: the codebook arrays hold 16");

/* Byte offsets of the header fields. */
#define SZ_H_MAGIC 0             /* u32 */
#define SZ_H_VERSION 4           /* u8 */
#define SZ_H_DTYPE 5             /* u8 */
#define SZ_H_MODE 6              /* u8 */
#define SZ_H_CHUNK_LOG2 7        /* u8 */
#define SZ_H_FLAGS 8             /* u8 */
#define SZ_H_RESERVED0 9         /* 3 bytes, zero */
#define SZ_H_ESCAPE_COUNT 12     /* u32 */
#define SZ_H_ELEMENT_COUNT 16    /* u64 */
#define SZ_H_CODEBOOK 24         /* 16 x u8 */
#define SZ_H_FRAME_SIZE 40       /* u64 */
#define SZ_H_CONTENT_CHECKSUM 48 /* u64 */
#define SZ_H_RESERVED1 56        /* 4 bytes, zero */
#define SZ_H_HEADER_CHECKSUM 60  /* u32 */
SZ_STATIC_ASSERT(SZ_H_HEADER_CHECKSUM + 4 == SPLITZIP_FRAME_HEADER_SIZE, "the header is 64 bytes");

/* ---- Small arithmetic ---------------------------------------------------------------------- */

SPLITZIP_HD uint64_t splitzip_align16(uint64_t x)
{
	return (x + (SPLITZIP_SECTION_ALIGN - 1)) & ~(uint64_t)(SPLITZIP_SECTION_ALIGN - 1);
}

/* Number of chunks of 1 << log2 elements covering n elements (the last may be partial). */
SPLITZIP_HD uint64_t splitzip_n_chunks(uint64_t n, unsigned log2)
{
	return (n + ((uint64_t)1 << log2) - 1) >> log2;
}

/* Elements in chunk c (c < n_chunks). */
SPLITZIP_HD uint64_t splitzip_chunk_len(uint64_t n, unsigned log2, uint64_t c)
{
	uint64_t start = c << log2;
	uint64_t len = (uint64_t)1 << log2;
	return (n - start < len) ? n - start : len;
}

/* ---- Frame sizes ----------------------------------------------------------------------------- */

/* A stored frame: header, 2n raw bytes, zero padding to a multiple of 16 (FORMAT.md §4.1). */
SPLITZIP_HD uint64_t splitzip_stored_frame_size(uint64_t n)
{
	return SPLITZIP_FRAME_HEADER_SIZE + splitzip_align16(2 * n);
}

/*
 * Section offsets of a split4 frame (FORMAT.md §4.2). Every section starts at a multiple of 16
 * from the frame start, and the frame size is a multiple of 16; gaps are zero bytes.
 */
typedef struct splitzip_layout {
	uint64_t n_elems;
	uint64_t n_chunks;
	uint64_t n_escapes;
	unsigned chunk_log2;
	uint64_t codes_off;  /* ceil(n/2) bytes: element 2k in the low nibble of byte k */
	uint64_t sm_off;     /* n bytes: sign << 7 | mantissa */
	uint64_t table_off;  /* n_chunks x u32: cumulative escape count at the end of each chunk */
	uint64_t epos_off;   /* n_escapes x u16: chunk-local positions */
	uint64_t eexp_off;   /* n_escapes x u8: exponents */
	uint64_t frame_size; /* whole frame, multiple of 16 */
} splitzip_layout;

SPLITZIP_HD void splitzip_split4_layout(uint64_t n, unsigned log2, uint64_t n_escapes,
                                        splitzip_layout *L)
{
	L->n_elems = n;
	L->chunk_log2 = log2;
	L->n_chunks = splitzip_n_chunks(n, log2);
	L->n_escapes = n_escapes;
	L->codes_off = SPLITZIP_FRAME_HEADER_SIZE;
	L->sm_off = splitzip_align16(L->codes_off + (n + 1) / 2);
	L->table_off = splitzip_align16(L->sm_off + n);
	L->epos_off = splitzip_align16(L->table_off + 4 * L->n_chunks);
	L->eexp_off = splitzip_align16(L->epos_off + 2 * n_escapes);
	L->frame_size = splitzip_align16(L->eexp_off + n_escapes);
}

SPLITZIP_HD uint64_t splitzip_split4_frame_size(uint64_t n, unsigned log2, uint64_t n_escapes)
{
	splitzip_layout L;
	splitzip_split4_layout(n, log2, n_escapes, &L);
	return L.frame_size;
}

/*
 * The canonical mode rule (FORMAT.md §6.3): a split4 frame is written if and only if it is
 * strictly smaller than the stored frame of the same elements; otherwise the frame is stored.
 */
SPLITZIP_HD int splitzip_split4_wins(uint64_t n, unsigned log2, uint64_t n_escapes)
{
	return splitzip_split4_frame_size(n, log2, n_escapes) < splitzip_stored_frame_size(n);
}

/*
 * The largest escape count for which split4 wins, or -1 if it never does (n == 0, or chunk
 * tables larger than the savings). split4 size is non-decreasing in the escape count, so a GPU
 * encoder can compare its running count against this threshold instead of a frame size.
 */
SPLITZIP_HD int64_t splitzip_split4_max_escapes(uint64_t n, unsigned log2)
{
	if (!splitzip_split4_wins(n, log2, 0))
		return -1;
	uint64_t lo = 0, hi = n; /* invariant: wins(lo) */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;
		if (splitzip_split4_wins(n, log2, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	return (int64_t)lo;
}

/*
 * The gaps of a split4 frame (FORMAT.md §4.2.6): for k < SPLITZIP_SPLIT4_GAPS, the bytes
 * [splitzip_split4_gap(L, k), splitzip_split4_gap_end(L, k)) after the codes, the sign/mantissa
 * bytes, the chunk table, the escape positions and the escape exponents. Each is shorter than
 * 16 bytes and must be zero; encoders write them, decoders check them.
 */
#define SPLITZIP_SPLIT4_GAPS 5

SPLITZIP_HD uint64_t splitzip_split4_gap(const splitzip_layout *L, int k)
{
	switch (k) {
	case 0:
		return L->codes_off + (L->n_elems + 1) / 2;
	case 1:
		return L->sm_off + L->n_elems;
	case 2:
		return L->table_off + 4 * L->n_chunks;
	case 3:
		return L->epos_off + 2 * L->n_escapes;
	default:
		return L->eexp_off + L->n_escapes;
	}
}

SPLITZIP_HD uint64_t splitzip_split4_gap_end(const splitzip_layout *L, int k)
{
	switch (k) {
	case 0:
		return L->sm_off;
	case 1:
		return L->table_off;
	case 2:
		return L->epos_off;
	case 3:
		return L->eexp_off;
	default:
		return L->frame_size;
	}
}

/* ---- Sign/mantissa and exponent split of one BF16 value (FORMAT.md §2) -------------------- */

SPLITZIP_HD uint8_t splitzip_bf16_exponent(uint16_t v)
{
	return (uint8_t)((v >> 7) & 0xFF);
}

SPLITZIP_HD uint8_t splitzip_bf16_signman(uint16_t v)
{
	return (uint8_t)(((v >> 8) & 0x80) | (v & 0x7F));
}

SPLITZIP_HD uint16_t splitzip_bf16_join(uint8_t exponent, uint8_t signman)
{
	return (uint16_t)(((uint16_t)(signman & 0x80) << 8) | ((uint16_t)exponent << 7) |
	                  (signman & 0x7F));
}

/* ---- Header (FORMAT.md §3) ------------------------------------------------------------------ */

/* The fields of a frame header, as integers. */
typedef struct splitzip_header {
	unsigned version;
	unsigned dtype;
	unsigned mode;
	unsigned chunk_log2;
	unsigned flags;
	uint32_t n_escapes;
	uint64_t n_elems;
	uint8_t codebook[16];
	uint64_t frame_size;
	uint64_t content_checksum;
} splitzip_header;

/* Header_Checksum: the low 32 bits of the chunk digest of header bytes 0..59. */
SPLITZIP_HD uint32_t splitzip_header_checksum(const uint8_t *h)
{
	return (uint32_t)splitzip_hash_bytes_small(h, SZ_H_HEADER_CHECKSUM);
}

/*
 * The fields every frame of this format version starts with (version 1, BF16): mode, chunk size,
 * flags and element count; escapes, codebook, size and checksum zero. Encoders, host and
 * device, fill in the rest.
 */
SPLITZIP_HD void splitzip_header_init(splitzip_header *h, unsigned mode, unsigned chunk_log2,
                                      unsigned flags, uint64_t n_elems)
{
	h->version = SPLITZIP_FORMAT_VERSION;
	h->dtype = SPLITZIP_DTYPE_BF16;
	h->mode = mode;
	h->chunk_log2 = chunk_log2;
	h->flags = flags;
	h->n_escapes = 0;
	h->n_elems = n_elems;
	for (unsigned i = 0; i < 16; i++)
		h->codebook[i] = 0;
	h->frame_size = 0;
	h->content_checksum = 0;
}

/*
 * Serialise a header into 64 bytes, including the header checksum. Byte stores only, so GPU
 * code can write a header straight into device memory. Does not validate.
 */
SPLITZIP_HD void splitzip_header_write(uint8_t *h, const splitzip_header *f)
{
	for (unsigned i = 0; i < SPLITZIP_FRAME_HEADER_SIZE; i++)
		h[i] = 0;
	splitzip_put_u8s(h + SZ_H_MAGIC, SPLITZIP_MAGIC, 4);
	h[SZ_H_VERSION] = (uint8_t)f->version;
	h[SZ_H_DTYPE] = (uint8_t)f->dtype;
	h[SZ_H_MODE] = (uint8_t)f->mode;
	h[SZ_H_CHUNK_LOG2] = (uint8_t)f->chunk_log2;
	h[SZ_H_FLAGS] = (uint8_t)f->flags;
	splitzip_put_u8s(h + SZ_H_ESCAPE_COUNT, f->n_escapes, 4);
	splitzip_put_u8s(h + SZ_H_ELEMENT_COUNT, f->n_elems, 8);
	for (unsigned i = 0; i < 16; i++)
		h[SZ_H_CODEBOOK + i] = f->codebook[i];
	splitzip_put_u8s(h + SZ_H_FRAME_SIZE, f->frame_size, 8);
	splitzip_put_u8s(h + SZ_H_CONTENT_CHECKSUM, f->content_checksum, 8);
	splitzip_put_u8s(h + SZ_H_HEADER_CHECKSUM, splitzip_header_checksum(h), 4);
}

/*
 * Header validation results, in the order the checks run (FORMAT.md §3.2). Host code maps them
 * to splitzip_status; device code stores them as per-frame status.
 */
enum {
	SZ_HDR_OK = 0,
	SZ_HDR_BAD_MAGIC,
	SZ_HDR_BAD_CHECKSUM,
	SZ_HDR_UNSUPPORTED, /* version above 1, unknown dtype or mode */
	SZ_HDR_CORRUPT      /* a field out of range or inconsistent */
};

/*
 * Parse and validate the 64 header bytes at h (FORMAT.md §3.2). On SZ_HDR_OK, '*f' holds the
 * fields and f->frame_size equals the size computed from them. Reads exactly 64 bytes.
 */
SPLITZIP_HD int splitzip_header_parse(const uint8_t *h, splitzip_header *f)
{
	if (splitzip_get_u8s(h + SZ_H_MAGIC, 4) != SPLITZIP_MAGIC)
		return SZ_HDR_BAD_MAGIC;
	/* FORMAT.md §3.2: the version comes before the header checksum, so a later version may
	 * change everything after byte 4 and still be reported as unsupported. Version 0 never
	 * existed. */
	if (h[SZ_H_VERSION] == 0)
		return SZ_HDR_CORRUPT;
	if (h[SZ_H_VERSION] > SPLITZIP_FORMAT_VERSION)
		return SZ_HDR_UNSUPPORTED;
	if (splitzip_get_u8s(h + SZ_H_HEADER_CHECKSUM, 4) != splitzip_header_checksum(h))
		return SZ_HDR_BAD_CHECKSUM;
	f->version = h[SZ_H_VERSION];
	f->dtype = h[SZ_H_DTYPE];
	f->mode = h[SZ_H_MODE];
	f->chunk_log2 = h[SZ_H_CHUNK_LOG2];
	f->flags = h[SZ_H_FLAGS];
	f->n_escapes = (uint32_t)splitzip_get_u8s(h + SZ_H_ESCAPE_COUNT, 4);
	f->n_elems = splitzip_get_u8s(h + SZ_H_ELEMENT_COUNT, 8);
	for (unsigned i = 0; i < 16; i++)
		f->codebook[i] = h[SZ_H_CODEBOOK + i];
	f->frame_size = splitzip_get_u8s(h + SZ_H_FRAME_SIZE, 8);
	f->content_checksum = splitzip_get_u8s(h + SZ_H_CONTENT_CHECKSUM, 8);

	/* FORMAT.md §3.2: dtypes and modes this version does not know. */
	if (f->dtype != SPLITZIP_DTYPE_BF16 ||
	    (f->mode != SPLITZIP_MODE_STORED && f->mode != SPLITZIP_MODE_SPLIT4))
		return SZ_HDR_UNSUPPORTED;
	/* FORMAT.md §3.2: reserved bits and bytes must be zero. */
	if (f->flags & ~SPLITZIP_FLAGS_KNOWN)
		return SZ_HDR_CORRUPT;
	if (h[SZ_H_RESERVED0] | h[SZ_H_RESERVED0 + 1] | h[SZ_H_RESERVED0 + 2] | h[SZ_H_RESERVED1] |
	    h[SZ_H_RESERVED1 + 1] | h[SZ_H_RESERVED1 + 2] | h[SZ_H_RESERVED1 + 3])
		return SZ_HDR_CORRUPT;
	if (f->chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || f->chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX)
		return SZ_HDR_CORRUPT;
	if (f->n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SZ_HDR_CORRUPT;
	/* FORMAT.md §3.2: Content_Checksum is zero when the flag is clear. */
	if (!(f->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) && f->content_checksum != 0)
		return SZ_HDR_CORRUPT;
	uint64_t expect;
	if (f->mode == SPLITZIP_MODE_STORED) {
		/* FORMAT.md §4.1: a stored frame has no codebook and no escapes. */
		if (f->n_escapes != 0)
			return SZ_HDR_CORRUPT;
		for (unsigned i = 0; i < 16; i++)
			if (f->codebook[i] != 0)
				return SZ_HDR_CORRUPT;
		expect = splitzip_stored_frame_size(f->n_elems);
	} else {
		/* FORMAT.md §5: the codebook is strictly ascending. */
		for (unsigned i = 1; i < 16; i++)
			if (f->codebook[i] <= f->codebook[i - 1])
				return SZ_HDR_CORRUPT;
		/* FORMAT.md §4.2: at most one escape per element. */
		if (f->n_escapes > f->n_elems)
			return SZ_HDR_CORRUPT;
		/* FORMAT.md §6.3: a split4 frame exists only where it beats the stored frame. */
		if (!splitzip_split4_wins(f->n_elems, f->chunk_log2, f->n_escapes))
			return SZ_HDR_CORRUPT;
		expect = splitzip_split4_frame_size(f->n_elems, f->chunk_log2, f->n_escapes);
	}
	if (f->frame_size != expect)
		return SZ_HDR_CORRUPT;
	return SZ_HDR_OK;
}

/* The status of a splitzip_header_parse() result (FORMAT.md §3.2). */
SPLITZIP_HD splitzip_status splitzip_header_status(int hdr_result)
{
	switch (hdr_result) {
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

/*
 * Read the header of the frame at src (size bytes available) as every decoder does, host and
 * device: FORMAT.md §3.2 steps 0-11. An input shorter than the header is compared with the
 * magic on as many of its 4 bytes as there are, so that a short input that is not a splitzip
 * frame is reported as such and only a prefix of a frame is reported as truncated.
 */
SPLITZIP_HD splitzip_status splitzip_read_header(const uint8_t *src, uint64_t size,
                                                 splitzip_header *h)
{
	if (size < SPLITZIP_FRAME_HEADER_SIZE) {
		for (uint64_t i = 0; i < size && i < 4; i++)
			if (src[i] != (uint8_t)(SPLITZIP_MAGIC >> (8 * i)))
				return SPLITZIP_ERROR_BAD_MAGIC;
		return SPLITZIP_ERROR_TRUNCATED;
	}
	return splitzip_header_status(splitzip_header_parse(src, h));
}

/*
 * FORMAT.md §8.2: after the first frame of a stream (byte offset off > 0), bytes that do not
 * start with the magic are not some other kind of file but damage to this one.
 */
SPLITZIP_HD splitzip_status splitzip_stream_status(splitzip_status st, uint64_t off)
{
	return (st == SPLITZIP_ERROR_BAD_MAGIC && off > 0) ? SPLITZIP_ERROR_CORRUPT_STREAM : st;
}

/*
 * The header of the frame at byte offset off of a stream of 'size' bytes (off < size), with the
 * statuses of §8.2: on SPLITZIP_OK the whole frame, h->frame_size bytes, lies inside the stream.
 */
SPLITZIP_HD splitzip_status splitzip_stream_header(const uint8_t *src, uint64_t size, uint64_t off,
                                                   splitzip_header *h)
{
	splitzip_status st = splitzip_read_header(src + off, size - off, h);
	if (st != SPLITZIP_OK)
		return splitzip_stream_status(st, off);
	return h->frame_size > size - off ? SPLITZIP_ERROR_TRUNCATED : SPLITZIP_OK;
}

#endif /* SZ_LAYOUT_H */
