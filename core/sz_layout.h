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
#define SZ_H_CODEBOOK 24         /* 16 x u8 (modes 0 and 1) */
#define SZ_H_STREAM_WORDS 24     /* u32 (mode 2, FORMAT.md §4.3.1) */
#define SZ_H_TABLE_FIRST 28      /* u8 (mode 2) */
#define SZ_H_TABLE_LAST 29       /* u8 (mode 2) */
#define SZ_H_ESCAPE_LENGTH 30    /* u8 (mode 2) */
#define SZ_H_RESERVED2 31        /* 9 bytes, zero (mode 2) */
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

/* ---- Mode 2: entropy frames (FORMAT.md §4.3) ------------------------------------------------ */

/*
 * The constants of mode 2. The code-length limit is public (SPLITZIP_ENTROPY_MAX_CODE_LENGTH in
 * include/splitzip.h, 11); the rest is how the decoder reads the words of a chunk (§4.3.5).
 */
#define SPLITZIP_ENTROPY_LANES 32u         /* element i of a chunk belongs to lane i mod 32 */
#define SPLITZIP_ENTROPY_SYMBOLS 257u      /* the 256 exponents and the escape symbol */
#define SPLITZIP_ENTROPY_ESC 256u          /* the escape symbol: its code, then 8 raw bits */
#define SPLITZIP_ENTROPY_RAW_BITS 8u       /* the exponent of an escape, bit 0 first */
#define SPLITZIP_ENTROPY_WORD_BITS 16u     /* the stream is read in u16 words */
#define SPLITZIP_ENTROPY_REFILL_SYMBOL 11u /* fewer bits before a symbol: read a word */
#define SPLITZIP_ENTROPY_REFILL_RAW 8u     /* fewer bits before an escape's raw bits: read a word */
#define SPLITZIP_ENTROPY_LUT_BITS 11u      /* a decoder table indexed by the next 11 bits */
/* Words a chunk's decoder may read in one step of 32 elements: one per lane before the
 * symbols, one per lane before the raw bits. */
#define SPLITZIP_ENTROPY_STEP_WORDS_MAX (2u * SPLITZIP_ENTROPY_LANES)

SZ_STATIC_ASSERT(SPLITZIP_ENTROPY_REFILL_SYMBOL == SPLITZIP_ENTROPY_MAX_CODE_LENGTH,
                 "a lane holds a whole code when it decodes a symbol");
SZ_STATIC_ASSERT(SPLITZIP_ENTROPY_REFILL_SYMBOL - 1 + SPLITZIP_ENTROPY_WORD_BITS <= 32,
                 "a lane's bits fit in 32 bits after a refill");
SZ_STATIC_ASSERT(SPLITZIP_ENTROPY_LUT_BITS == SPLITZIP_ENTROPY_MAX_CODE_LENGTH,
                 "one table lookup decodes any code");

/*
 * Section offsets of an entropy frame (FORMAT.md §4.3.2): the sign/mantissa bytes at a fixed
 * place (an encoder writes them in its one pass over the input), the code lengths, the chunk
 * table of cumulative word counts, the words. Every section starts at a multiple of 16.
 */
typedef struct splitzip_entropy_layout {
	uint64_t n_elems;
	uint64_t n_chunks;
	uint64_t n_words; /* Stream_Words */
	unsigned chunk_log2;
	unsigned table_first, table_last; /* the exponents the code-length nibbles cover */
	uint64_t sm_off;                  /* n bytes: sign << 7 | mantissa */
	uint64_t lengths_off;     /* ceil(K/2) bytes, K = last - first + 1: a nibble per exponent */
	uint64_t chunk_table_off; /* n_chunks x u32: words in chunks 0..c */
	uint64_t stream_off;      /* n_words x u16 */
	uint64_t frame_size;      /* whole frame, multiple of 16 */
} splitzip_entropy_layout;

/* The number of code-length nibbles of a table covering exponents first..last. */
SPLITZIP_HD uint64_t splitzip_entropy_nibbles(unsigned first, unsigned last)
{
	return (uint64_t)last - first + 1;
}

SPLITZIP_HD void splitzip_entropy_layout_of(uint64_t n, unsigned log2, uint64_t n_words,
                                            unsigned first, unsigned last,
                                            splitzip_entropy_layout *L)
{
	L->n_elems = n;
	L->chunk_log2 = log2;
	L->n_chunks = splitzip_n_chunks(n, log2);
	L->n_words = n_words;
	L->table_first = first;
	L->table_last = last;
	L->sm_off = SPLITZIP_FRAME_HEADER_SIZE;
	L->lengths_off = splitzip_align16(L->sm_off + n);
	L->chunk_table_off =
	    splitzip_align16(L->lengths_off + (splitzip_entropy_nibbles(first, last) + 1) / 2);
	L->stream_off = splitzip_align16(L->chunk_table_off + 4 * L->n_chunks);
	L->frame_size = splitzip_align16(L->stream_off + 2 * n_words);
}

SPLITZIP_HD uint64_t splitzip_entropy_frame_size(uint64_t n, unsigned log2, uint64_t n_words,
                                                 unsigned first, unsigned last)
{
	splitzip_entropy_layout L;
	splitzip_entropy_layout_of(n, log2, n_words, first, last, &L);
	return L.frame_size;
}

/* The mode rule (FORMAT.md §6.3): an entropy frame exists only where it beats stored. */
SPLITZIP_HD int splitzip_entropy_wins(uint64_t n, unsigned log2, uint64_t n_words, unsigned first,
                                      unsigned last)
{
	return splitzip_entropy_frame_size(n, log2, n_words, first, last) <
	       splitzip_stored_frame_size(n);
}

/*
 * The most words a chunk of n elements can have (FORMAT.md §4.3.5): a lane reads a word only
 * when it holds fewer than 11 bits, so the bits it reads exceed the at most 19 bits per element
 * it consumes by at most 26, i.e. (19 m + 26) / 16 words for a lane of m elements.
 */
SPLITZIP_HD uint64_t splitzip_entropy_chunk_words_max(uint64_t n)
{
	return (19 * n + 26 * SPLITZIP_ENTROPY_LANES) / 16;
}

/*
 * The gaps of an entropy frame (FORMAT.md §4.3.7): for k < SPLITZIP_ENTROPY_GAPS, the bytes
 * [splitzip_entropy_gap(L, k), splitzip_entropy_gap_end(L, k)) after the sign/mantissa bytes,
 * the code lengths, the chunk table and the words must be zero; so must the high nibble of the
 * last code-length byte when the number of nibbles is odd.
 */
#define SPLITZIP_ENTROPY_GAPS 4

SPLITZIP_HD uint64_t splitzip_entropy_gap(const splitzip_entropy_layout *L, int k)
{
	switch (k) {
	case 0:
		return L->sm_off + L->n_elems;
	case 1:
		return L->lengths_off +
		       (splitzip_entropy_nibbles(L->table_first, L->table_last) + 1) / 2;
	case 2:
		return L->chunk_table_off + 4 * L->n_chunks;
	default:
		return L->stream_off + 2 * L->n_words;
	}
}

SPLITZIP_HD uint64_t splitzip_entropy_gap_end(const splitzip_entropy_layout *L, int k)
{
	switch (k) {
	case 0:
		return L->lengths_off;
	case 1:
		return L->chunk_table_off;
	case 2:
		return L->stream_off;
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
	/* Bytes, so that the header GPU kernels keep in registers and shared memory is 56 bytes. */
	uint8_t version;
	uint8_t dtype;
	uint8_t mode;
	uint8_t chunk_log2;
	uint8_t flags;
	/* Mode 2 (entropy) only, from bytes 24..31 (FORMAT.md §4.3.1); zero in other modes. */
	uint8_t table_first;   /* Table_First */
	uint8_t table_last;    /* Table_Last */
	uint8_t escape_length; /* Escape_Length */
	uint32_t n_words;      /* Stream_Words (mode 2 only) */
	uint32_t n_escapes;
	uint64_t n_elems;
	uint8_t codebook[16]; /* header bytes 24..39 as they are, in every mode */
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
	h->mode = (uint8_t)mode;
	h->chunk_log2 = (uint8_t)chunk_log2;
	h->flags = (uint8_t)flags;
	h->n_escapes = 0;
	h->n_elems = n_elems;
	for (unsigned i = 0; i < 16; i++)
		h->codebook[i] = 0;
	h->frame_size = 0;
	h->content_checksum = 0;
	h->n_words = 0;
	h->table_first = 0;
	h->table_last = 0;
	h->escape_length = 0;
}

/*
 * Serialise a header into 64 bytes, all but the header checksum (bytes 60..63 zero): GPU code
 * computes that with a warp. Byte stores only. Does not validate.
 */
SPLITZIP_HD void splitzip_header_write_fields(uint8_t *h, const splitzip_header *f)
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
	if (f->mode == SPLITZIP_MODE_ENTROPY) { /* FORMAT.md §4.3.1; bytes 31..39 stay zero */
		splitzip_put_u8s(h + SZ_H_STREAM_WORDS, f->n_words, 4);
		h[SZ_H_TABLE_FIRST] = (uint8_t)f->table_first;
		h[SZ_H_TABLE_LAST] = (uint8_t)f->table_last;
		h[SZ_H_ESCAPE_LENGTH] = (uint8_t)f->escape_length;
	} else {
		for (unsigned i = 0; i < 16; i++)
			h[SZ_H_CODEBOOK + i] = f->codebook[i];
	}
	splitzip_put_u8s(h + SZ_H_FRAME_SIZE, f->frame_size, 8);
	splitzip_put_u8s(h + SZ_H_CONTENT_CHECKSUM, f->content_checksum, 8);
}

/*
 * Serialise a header into 64 bytes, including the header checksum. Byte stores only, so GPU
 * code can write a header straight into device memory. Does not validate.
 */
SPLITZIP_HD void splitzip_header_write(uint8_t *h, const splitzip_header *f)
{
	splitzip_header_write_fields(h, f);
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

/* FORMAT.md §3.2 step 10 for a stored frame (§4.1): no codebook, no escapes; its size. */
SPLITZIP_HD int splitzip_header_stored(const splitzip_header *f, uint64_t *size)
{
	if (f->n_escapes != 0)
		return SZ_HDR_CORRUPT;
	for (unsigned i = 0; i < 16; i++)
		if (f->codebook[i] != 0)
			return SZ_HDR_CORRUPT;
	*size = splitzip_stored_frame_size(f->n_elems);
	return SZ_HDR_OK;
}

/* Step 10 for a split4 frame (§4.2): the codebook, the escape count, the mode rule. */
SPLITZIP_HD int splitzip_header_split4(const splitzip_header *f, uint64_t *size)
{
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
	*size = splitzip_split4_frame_size(f->n_elems, f->chunk_log2, f->n_escapes);
	return SZ_HDR_OK;
}

/*
 * The fields of step 10 for an entropy frame of any dtype (§4.3.1, §13): Table_First <=
 * Table_Last <= 'max_exponent', Escape_Length 1..11, the reserved bytes 31..39 zero, at most
 * one escape per element.
 */
SPLITZIP_HD int splitzip_header_entropy_fields(const splitzip_header *f, unsigned max_exponent)
{
	if (f->table_first > f->table_last || f->table_last > max_exponent ||
	    f->escape_length < 1 || f->escape_length > SPLITZIP_ENTROPY_MAX_CODE_LENGTH)
		return SZ_HDR_CORRUPT;
	for (unsigned i = SZ_H_RESERVED2 - SZ_H_CODEBOOK; i < 16; i++)
		if (f->codebook[i] != 0)
			return SZ_HDR_CORRUPT;
	return f->n_escapes > f->n_elems ? SZ_HDR_CORRUPT : SZ_HDR_OK;
}

/* Step 10 for a BF16 entropy frame (§4.3.1): the fields, and the mode rule (§6.3). */
SPLITZIP_HD int splitzip_header_entropy(const splitzip_header *f, uint64_t *size)
{
	if (splitzip_header_entropy_fields(f, 255) != SZ_HDR_OK)
		return SZ_HDR_CORRUPT;
	if (!splitzip_entropy_wins(f->n_elems, f->chunk_log2, f->n_words, f->table_first,
	                           f->table_last))
		return SZ_HDR_CORRUPT;
	*size = splitzip_entropy_frame_size(f->n_elems, f->chunk_log2, f->n_words, f->table_first,
	                                    f->table_last);
	return SZ_HDR_OK;
}

/*
 * The checks of FORMAT.md §3.2 steps 5-9 that every dtype shares, on the fields parsed from the
 * header bytes h: no unknown flag, the reserved bytes zero, Chunk_Log2 in range, at most
 * SPLITZIP_MAX_FRAME_ELEMS elements, Content_Checksum zero when its flag is clear. (The fields
 * come by value: given the parsed header by pointer, ptxas spilled in sz_k_dec_headers.)
 */
SPLITZIP_HD int splitzip_header_common_fields(const uint8_t *h, unsigned flags, unsigned chunk_log2,
                                              uint64_t n_elems, uint64_t content_checksum)
{
	if (flags & ~SPLITZIP_FLAGS_KNOWN)
		return SZ_HDR_CORRUPT;
	if (h[SZ_H_RESERVED0] | h[SZ_H_RESERVED0 + 1] | h[SZ_H_RESERVED0 + 2] | h[SZ_H_RESERVED1] |
	    h[SZ_H_RESERVED1 + 1] | h[SZ_H_RESERVED1 + 2] | h[SZ_H_RESERVED1 + 3])
		return SZ_HDR_CORRUPT;
	if (chunk_log2 < SPLITZIP_CHUNK_LOG2_MIN || chunk_log2 > SPLITZIP_CHUNK_LOG2_MAX ||
	    n_elems > SPLITZIP_MAX_FRAME_ELEMS)
		return SZ_HDR_CORRUPT;
	if (!(flags & SPLITZIP_FLAG_CONTENT_CHECKSUM) && content_checksum != 0)
		return SZ_HDR_CORRUPT;
	return SZ_HDR_OK;
}

/*
 * splitzip_header_parse() with the header checksum of bytes 0..59 given ('checksum', what
 * splitzip_header_checksum() returns: GPU code computes it with a warp).
 */
SPLITZIP_HD int splitzip_header_parse_checked(const uint8_t *h, uint32_t checksum,
                                              splitzip_header *f)
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
	if (splitzip_get_u8s(h + SZ_H_HEADER_CHECKSUM, 4) != checksum)
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
	const int entropy = f->mode == SPLITZIP_MODE_ENTROPY;
	f->n_words = entropy ? (uint32_t)splitzip_get_u8s(h + SZ_H_STREAM_WORDS, 4) : 0;
	f->table_first = entropy ? h[SZ_H_TABLE_FIRST] : 0;
	f->table_last = entropy ? h[SZ_H_TABLE_LAST] : 0;
	f->escape_length = entropy ? h[SZ_H_ESCAPE_LENGTH] : 0;

	/* FORMAT.md §3.2: dtypes and modes this version does not know. */
	if (f->dtype != SPLITZIP_DTYPE_BF16 || f->mode > SPLITZIP_MODE_ENTROPY)
		return SZ_HDR_UNSUPPORTED;
	if (splitzip_header_common_fields(h, f->flags, f->chunk_log2, f->n_elems,
	                                  f->content_checksum) != SZ_HDR_OK)
		return SZ_HDR_CORRUPT;
	uint64_t expect;
	int r = f->mode == SPLITZIP_MODE_STORED   ? splitzip_header_stored(f, &expect)
	        : f->mode == SPLITZIP_MODE_SPLIT4 ? splitzip_header_split4(f, &expect)
	                                          : splitzip_header_entropy(f, &expect);
	if (r != SZ_HDR_OK)
		return r;
	if (f->frame_size != expect)
		return SZ_HDR_CORRUPT;
	return SZ_HDR_OK;
}

/*
 * Parse and validate the 64 header bytes at h (FORMAT.md §3.2). On SZ_HDR_OK, '*f' holds the
 * fields and f->frame_size equals the size computed from them. Reads exactly 64 bytes.
 */
SPLITZIP_HD int splitzip_header_parse(const uint8_t *h, splitzip_header *f)
{
	return splitzip_header_parse_checked(h, splitzip_header_checksum(h), f);
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
