/*
 * sz_kernels.h -- the host kernel contract: what a CPU backend implements, and the encoder
 * tables it receives. The frame driver (core/sz_driver*.c) owns the format, validates everything
 * that comes from outside and splits the work by chunks across threads; a backend only
 * transforms chunks it is handed, so it never sees an unchecked field.
 *
 * A backend (backends/cpu_*) includes this header and nothing above core/; it exports one
 * const splitzip_host_kernels table (declared in backends/sz_host_backends.h). Which tables
 * exist on a machine and which one a context uses is decided by dispatch/.
 */
#ifndef SZ_KERNELS_H
#define SZ_KERNELS_H

#include "sz_common.h"
#include "sz_entropy.h"
#include "sz_layout.h"

/* Encoder tables derived from a valid codebook (core/sz_codebook.c: splitzip_enc_tables_init). */
typedef struct splitzip_enc_tables {
	uint8_t code_of[256];   /* exponent -> code; 0 for exponents outside the codebook */
	uint8_t is_escape[256]; /* 1 for exponents outside the codebook, else 0 */
	uint8_t codebook[16];   /* code -> exponent, strictly ascending */
	int contiguous;         /* codebook == base, base+1, ..., base+15 */
	uint8_t base;           /* codebook[0] */
} splitzip_enc_tables;

/* hist[exponent(src[i])] += 1 for i < n. */
typedef void (*splitzip_histogram_fn)(const uint16_t *src, size_t n, uint64_t hist[256]);

/*
 * Encode one chunk of n elements (1 <= n <= 65536): write ceil(n/2) code bytes (element 2k in
 * the low nibble of byte k, code 0 for escapes, a zero high nibble after an odd last element)
 * and n sign/mantissa bytes; write the chunk-local positions (ascending) and exponents of the
 * escapes to esc_pos/esc_exp (room for n each); return the escape count.
 * Must match splitzip_ref_encode_chunk() byte for byte.
 */
typedef size_t (*splitzip_encode_chunk_fn)(const splitzip_enc_tables *t, const uint16_t *src,
                                           size_t n, uint8_t *codes, uint8_t *sm, uint16_t *esc_pos,
                                           uint8_t *esc_exp);

/*
 * hits[k] += the number of the n 4-bit codes at 'codes' that equal k, for k < 16: code 2j in
 * the low nibble of byte j, code 2j + 1 in the high nibble (an odd n leaves the last high
 * nibble out). Any alignment. After an encode pass with a codebook, hits[k] counts the
 * elements with exponent codebook[k] plus, for k = 0, the escapes (which have code 0): with the
 * escapes' own exponents, the exact histogram of the input without reading it again. Must
 * match splitzip_ref_count_codes().
 */
typedef void (*splitzip_count_codes_fn)(const uint8_t *codes, size_t n, uint64_t hits[16]);

/*
 * The codes an encode pass counts while it writes them (splitzip_encode_count_chunk_fn): up to
 * SPLITZIP_WATCH_MAX distinct code values, in pairs, so that a SIMD kernel counts two codes
 * with one 16-entry table lookup and one byte add (one code in each nibble of a byte counter).
 * The frame driver watches the members of a predicted codebook that are rare enough to be
 * displaced by an escaped exponent (core/sz_driver_split4.c); built by splitzip_watch_init().
 */
#define SPLITZIP_WATCH_MAX 8
typedef struct splitzip_watch {
	uint8_t code[SPLITZIP_WATCH_MAX]; /* the watched codes, distinct, each < 16 */
	unsigned n;                       /* 1..SPLITZIP_WATCH_MAX */
	unsigned n_pairs;                 /* the tables in use: 2 (n <= 4) or 4 */
	uint8_t slot[16];                 /* code -> its index in 'code' plus 1, or 0 */
	/* pair[j][c]: 1 if c is code[2j], 16 if c is code[2j + 1], else 0 */
	uint8_t pair[SPLITZIP_WATCH_MAX / 2][16];
} splitzip_watch;

/*
 * encode_chunk, and in the same pass: cnt[j] += the number of the chunk's n codes, as written,
 * equal to w->code[j], for j < w->n (code 0 counts the escapes too, which have code 0, as
 * count_codes does). The output is encode_chunk's byte for byte; the counts must match
 * splitzip_ref_encode_count_chunk().
 */
typedef size_t (*splitzip_encode_count_chunk_fn)(const splitzip_enc_tables *t,
                                                 const splitzip_watch *w, const uint16_t *src,
                                                 size_t n, uint8_t *codes, uint8_t *sm,
                                                 uint16_t *esc_pos, uint8_t *esc_exp,
                                                 uint64_t cnt[SPLITZIP_WATCH_MAX]);

/*
 * Recode the n <= 65536 4-bit codes at 'codes' (laid out as for count_codes) in place: each
 * code c becomes map[c] (< 16); an odd n's last high nibble stays as it is. For each code i, in
 * ascending order, whose old value c has flag[c] != 0, appends i | c << 16 to hits and returns
 * the number appended (room for n). Used when the exact histogram after an encode pass shows
 * that the predicted codebook was not the canonical one: the codes and the escape lists are
 * changed without reading the input again. Must match splitzip_ref_recode_codes().
 */
typedef size_t (*splitzip_recode_codes_fn)(uint8_t *codes, size_t n, const uint8_t map[16],
                                           const uint8_t flag[16], uint32_t *hits);

/*
 * Decode the dense part of one chunk of n elements: dst[i] = join(codebook[code_i], sm[i]).
 * Escapes are patched afterwards by the driver, which validates them first.
 */
typedef void (*splitzip_decode_chunk_fn)(const uint8_t codebook[16], const uint8_t *codes,
                                         const uint8_t *sm, size_t n, uint16_t *dst);

/*
 * Mode 2 (entropy, doc/FORMAT.md §4.3). Encode one chunk of n elements (1 <= n <= 65536): write
 * its n sign/mantissa bytes to sm, and its 16-bit words, little-endian, in the order the
 * decoder of §4.3.5 reads them, to words (any alignment; room for
 * splitzip_entropy_chunk_words_max(n) words). Store the word count in '*n_words' and return
 * the number of elements coded as an escape. Every word bit not taken by a code or raw bits is 0.
 * Must match splitzip_ref_entropy_encode_chunk() byte for byte.
 */
typedef size_t (*splitzip_entropy_encode_chunk_fn)(const splitzip_entropy_enc_tables *t,
                                                   const uint16_t *src, size_t n, uint8_t *sm,
                                                   uint8_t *words, size_t *n_words);

/*
 * Mode 2: decode one chunk of n elements (1 <= n <= 65536) from its n_words words (words: 2 *
 * n_words bytes, any alignment) and its n sign/mantissa bytes into dst[0..n), validating as it
 * goes (§4.3.6): a lane that needs a word when all n_words are taken, an escape whose raw
 * exponent has a code of its own, words left over at the end, or a nonzero bit left in a lane
 * give SPLITZIP_ERROR_CORRUPT_STREAM. Otherwise stores the number of escapes in '*n_escapes'
 * and returns SPLITZIP_OK. Never reads outside words[0, 2 n_words) and sm[0, n), never writes
 * outside dst[0, n) (what it wrote before a failure is unspecified). Must return the status of
 * splitzip_ref_entropy_decode_chunk() and, on OK, the same elements.
 */
typedef splitzip_status (*splitzip_entropy_decode_chunk_fn)(const splitzip_entropy_dec_tables *t,
                                                            const uint8_t *words, size_t n_words,
                                                            const uint8_t *sm, size_t n,
                                                            uint16_t *dst, size_t *n_escapes);

/*
 * The joins of the dtypes whose exponent streams the entropy kernels decode (core/sz_dtype_codec.c:
 * decoded with zero sign/mantissa bytes, element i's exponent x is hi[i] >> 7). pl3_join: the
 * E5M2 and FP16 elements of G whole PL3 groups (FORMAT.md §2.3: 64 elements each, three 8-byte
 * bit planes at pl3 + 24 g), x below 32: the byte (pl3 bit 2) << 7 | x << 2 | (pl3 bits 0-1)
 * (§2.2), at dst[i] for E5M2 (lo NULL), for FP16 the high byte of the little-endian u16 at
 * dst + 2 i whose low byte is lo[i]. Any alignment; must write what the portable join writes.
 */
typedef void (*splitzip_pl3_join_fn)(const uint16_t *hi, uint64_t G, const uint8_t *pl3,
                                     const uint8_t *lo, uint8_t *dst);

/*
 * nib_join: the E4M3 elements of B blocks of 64 (§2.3 NIB: the field of element i in nibble
 * i % 2 of byte i / 2 of nib, low nibble first), x = hi[i] >> 7 below 16: dst[i] = (field bit 3)
 * << 7 | x << 3 | (field bits 0-2) (§2.2). Any alignment; must write what the portable join
 * writes.
 */
typedef void (*splitzip_nib_join_fn)(const uint16_t *hi, uint64_t B, const uint8_t *nib,
                                     uint8_t *dst);

/*
 * fp32_join: the FP32 elements of B blocks of 32 whose high halves the entropy kernels decoded
 * (hi[i], an element's sign, exponent and top 7 mantissa bits) and whose low halves are the
 * little-endian u16 at lo + 2 i (Rest_LO16, FORMAT.md §2.3): the little-endian u32
 * hi[i] << 16 | lo16[i] at dst + 4 i. Any alignment; must write what the portable join writes.
 */
typedef void (*splitzip_fp32_join_fn)(const uint16_t *hi, const uint8_t *lo, uint64_t B,
                                      uint8_t *dst);

/* One chunk of an entropy frame to decode (the arguments of splitzip_entropy_decode_chunk_fn). */
typedef struct splitzip_entropy_chunk {
	const uint8_t *words;
	size_t n_words;
	const uint8_t *sm;
	size_t n;
	uint16_t *dst;
	size_t n_escapes; /* out */
} splitzip_entropy_chunk;

/*
 * Mode 2: decode two chunks, as entropy_decode_chunk does each (a SIMD backend interleaves
 * them, so that the dependency chains of the two decoders overlap). OK, and each chunk's
 * n_escapes set, if both are valid; CORRUPT_STREAM if either is not (what was written is then
 * unspecified).
 */
typedef splitzip_status (*splitzip_entropy_decode_pair_fn)(const splitzip_entropy_dec_tables *t,
                                                           splitzip_entropy_chunk c[2]);

/* Chunk digest of n_bytes bytes (doc/FORMAT.md §7.1); must equal splitzip_hash_bytes(). */
typedef uint64_t (*splitzip_hash_chunk_fn)(const void *p, size_t n_bytes);

/* The kernels of one host backend. Every slot is set (a unit test checks it). */
typedef struct splitzip_host_kernels {
	splitzip_histogram_fn histogram;
	splitzip_encode_chunk_fn encode_chunk;
	splitzip_decode_chunk_fn decode_chunk;
	/*
	 * encode_chunk and decode_chunk for large frames, whose output will not be read back
	 * soon: the same bytes (and the same contract), written with non-temporal stores where
	 * the ISA has them, so the output neither evicts the cache nor costs a read for
	 * ownership. The driver uses them at and above SZ_STREAM_MIN_BYTES (core/sz_driver_impl.h).
	 * Backends without such stores use their encode_chunk and decode_chunk here.
	 */
	splitzip_encode_chunk_fn encode_chunk_stream;
	splitzip_decode_chunk_fn decode_chunk_stream;
	splitzip_hash_chunk_fn hash_chunk;
	/* encode_chunk and encode_chunk_stream that count watched codes in the same pass */
	splitzip_encode_count_chunk_fn encode_count_chunk;
	splitzip_encode_count_chunk_fn encode_count_chunk_stream;
	splitzip_count_codes_fn count_codes;
	splitzip_recode_codes_fn recode_codes;
	/*
	 * Mode 2 (entropy). A backend without its own versions uses the scalar reference
	 * kernels: SPLITZIP_ENTROPY_SCALAR_KERNELS sets the three slots to them.
	 */
	splitzip_entropy_encode_chunk_fn entropy_encode_chunk;
	splitzip_entropy_decode_chunk_fn entropy_decode_chunk;
	splitzip_entropy_decode_pair_fn entropy_decode_pair;
	/* Optional (NULL: the portable joins of core/sz_dtype_codec.c). */
	splitzip_pl3_join_fn pl3_join;
	splitzip_nib_join_fn nib_join;
	splitzip_fp32_join_fn fp32_join;
} splitzip_host_kernels;

/* The two mode-2 slots of a kernel table, pointing to the scalar reference kernels. */
#define SPLITZIP_ENTROPY_SCALAR_KERNELS                                                            \
	.entropy_encode_chunk = splitzip_ref_entropy_encode_chunk,                                 \
	.entropy_decode_chunk = splitzip_ref_entropy_decode_chunk,                                 \
	.entropy_decode_pair = splitzip_ref_entropy_decode_pair

/* core/sz_ref.c: the scalar reference kernels, the oracle; also the "scalar" backend. */
SZ_INTERNAL void splitzip_ref_histogram(const uint16_t *src, size_t n, uint64_t hist[256]);
SZ_INTERNAL size_t splitzip_ref_encode_chunk(const splitzip_enc_tables *t, const uint16_t *src,
                                             size_t n, uint8_t *codes, uint8_t *sm,
                                             uint16_t *esc_pos, uint8_t *esc_exp);
SZ_INTERNAL size_t splitzip_ref_encode_count_chunk(const splitzip_enc_tables *t,
                                                   const splitzip_watch *w, const uint16_t *src,
                                                   size_t n, uint8_t *codes, uint8_t *sm,
                                                   uint16_t *esc_pos, uint8_t *esc_exp,
                                                   uint64_t cnt[SPLITZIP_WATCH_MAX]);
SZ_INTERNAL void splitzip_ref_count_codes(const uint8_t *codes, size_t n, uint64_t hits[16]);
SZ_INTERNAL size_t splitzip_ref_recode_codes(uint8_t *codes, size_t n, const uint8_t map[16],
                                             const uint8_t flag[16], uint32_t *hits);
SZ_INTERNAL void splitzip_ref_decode_chunk(const uint8_t codebook[16], const uint8_t *codes,
                                           const uint8_t *sm, size_t n, uint16_t *dst);
SZ_INTERNAL size_t splitzip_ref_entropy_encode_chunk(const splitzip_entropy_enc_tables *t,
                                                     const uint16_t *src, size_t n, uint8_t *sm,
                                                     uint8_t *words, size_t *n_words);
SZ_INTERNAL splitzip_status splitzip_ref_entropy_decode_chunk(const splitzip_entropy_dec_tables *t,
                                                              const uint8_t *words, size_t n_words,
                                                              const uint8_t *sm, size_t n,
                                                              uint16_t *dst, size_t *n_escapes);
SZ_INTERNAL splitzip_status splitzip_ref_entropy_decode_pair(const splitzip_entropy_dec_tables *t,
                                                             splitzip_entropy_chunk c[2]);
SZ_INTERNAL extern const splitzip_host_kernels splitzip_kernels_scalar;

/* core/sz_checksum.c: chunk digest of n bytes (doc/FORMAT.md §7.1), word-wise, any alignment. */
SZ_INTERNAL uint64_t splitzip_hash_bytes(const void *p, size_t n);

/* core/sz_codebook.c: encoder tables for a valid codebook. */
SZ_INTERNAL void splitzip_enc_tables_init(splitzip_enc_tables *t, const uint8_t codebook[16]);

/* core/sz_codebook.c: the watch of the n (1..SPLITZIP_WATCH_MAX) distinct codes < 16 at 'codes'. */
SZ_INTERNAL void splitzip_watch_init(splitzip_watch *w, const uint8_t *codes, unsigned n);

#endif /* SZ_KERNELS_H */
