/*
 * splitzip.h -- the public C API of splitzip
 *
 * splitzip compresses BF16 tensors (above all the KV cache of LLM serving) losslessly: every
 * value is split into its exponent and one byte of sign + mantissa. The split4 encoding gives
 * the exponent a 4-bit code (a 16-entry codebook) and stores exponents outside the codebook as
 * sparse escapes; the entropy encoding gives it a Huffman code of at most 11 bits (an entropy
 * table), which costs more time and saves about 11 % more bytes on real KV caches. The
 * bitstream is specified in doc/FORMAT.md; every backend (scalar, SIMD, GPU) writes it byte
 * for byte identically.
 *
 * Conventions used throughout this header:
 *   - Every function that can fail returns a splitzip_status. SPLITZIP_OK is 0.
 *   - Element counts are counts of BF16 values (uint16_t bit patterns); byte sizes say "bytes".
 *   - Unless a function says otherwise, the caller owns every buffer it passes in, and the
 *     library keeps no pointer to it after the call returns.
 *   - Unless a function says otherwise, NULL pointers are rejected with
 *     SPLITZIP_ERROR_INVALID_ARGUMENT (a NULL data pointer is allowed when its count is 0).
 *   - On failure, output buffers may have been partly written; their contents are unspecified.
 *   - Threads. Functions that take no splitzip_ctx are thread-safe. A splitzip_ctx may be
 *     used by any number of threads at once, for every call that takes one (host and device
 *     alike): its parameters are fixed when it is created, and each call takes its own work
 *     memory from the context's pool (grown to the number of calls that ever ran at once, kept
 *     until splitzip_ctx_free()). Only splitzip_ctx_free() must not overlap another call on
 *     the same context. What the caller passes in is the caller's to share or not: two calls
 *     must not write the same output, and a device workspace serves one call at a time.
 *   - The library never prints, never aborts and never calls exit().
 */
#ifndef SPLITZIP_H
#define SPLITZIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(SPLITZIP_DLL_EXPORT)
#define SPLITZIP_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define SPLITZIP_API __attribute__((visibility("default")))
#else
#define SPLITZIP_API
#endif

/* ==================================================================== */
/*                               Version                                */
/* ==================================================================== */

#define SPLITZIP_VERSION_MAJOR 0
#define SPLITZIP_VERSION_MINOR 1
#define SPLITZIP_VERSION_PATCH 0
#define SPLITZIP_VERSION_NUMBER                                                                    \
	(SPLITZIP_VERSION_MAJOR * 10000 + SPLITZIP_VERSION_MINOR * 100 + SPLITZIP_VERSION_PATCH)
#define SPLITZIP_VERSION_STRING "0.1.0"

/* The frame format version this library writes (doc/FORMAT.md, Format_Version). */
#define SPLITZIP_FORMAT_VERSION 1

/*
 * splitzip_version_number() returns SPLITZIP_VERSION_NUMBER of the library actually loaded,
 * which may differ from the header a program was compiled against.
 */
SPLITZIP_API unsigned splitzip_version_number(void);

/*
 * splitzip_version_string() returns the library version as a static string, e.g. "0.1.0".
 * Never NULL; the caller must not free it.
 */
SPLITZIP_API const char *splitzip_version_string(void);

/* ==================================================================== */
/*                                Errors                                */
/* ==================================================================== */

/*
 * Status codes. The numeric values are part of the ABI: they are never renumbered, new codes are
 * only appended. Decoders return a distinct code per kind of fault so that callers (and tests)
 * can tell a truncated transfer from a corrupted one.
 */
typedef enum splitzip_status {
	SPLITZIP_OK = 0,
	/* A NULL pointer, a count out of range, an unknown parameter value. */
	SPLITZIP_ERROR_INVALID_ARGUMENT = 1,
	/* The output buffer is too small; nothing useful was written. */
	SPLITZIP_ERROR_DST_TOO_SMALL = 2,
	/* The frame is structurally invalid or not canonical: a field out of range, a reserved
	 * bit set, nonzero padding, an escape out of range or out of order (doc/FORMAT.md). */
	SPLITZIP_ERROR_CORRUPT_STREAM = 3,
	/* The frame uses a format version, dtype or mode this library does not know. */
	SPLITZIP_ERROR_UNSUPPORTED_FORMAT = 4,
	/* The requested backend is unknown, not compiled in, or unusable on this machine. */
	SPLITZIP_ERROR_BACKEND_UNAVAILABLE = 5,
	SPLITZIP_ERROR_OUT_OF_MEMORY = 6,
	/* A CUDA/HIP runtime call failed. */
	SPLITZIP_ERROR_DEVICE = 7,
	/* The data does not start with the splitzip frame magic: not a splitzip frame at all. */
	SPLITZIP_ERROR_BAD_MAGIC = 8,
	/* The input ends before the frame (or its header) does. */
	SPLITZIP_ERROR_TRUNCATED = 9,
	/* The header checksum does not match the header: the header is damaged. */
	SPLITZIP_ERROR_HEADER_CHECKSUM = 10,
	/* The frame decoded, but the decoded data does not match the content checksum. */
	SPLITZIP_ERROR_CONTENT_CHECKSUM = 11,
	/* A codebook file or codebook value is invalid (bad magic, checksum, order). */
	SPLITZIP_ERROR_BAD_CODEBOOK = 12,
	/* A valid page stream whose pages are not the destination's: another page count or page
	 * size, where the receiver asked for exact geometry (SPLITZIP_PAGES_EXACT). */
	SPLITZIP_ERROR_GEOMETRY = 13
} splitzip_status;

/* The number of status codes defined above (for tests and language bindings). */
#define SPLITZIP_STATUS_COUNT 14

/*
 * splitzip_error_string() returns a short English description of a status code, e.g.
 * "corrupt stream". Never NULL (unknown values give "unknown status"); the string is static.
 */
SPLITZIP_API const char *splitzip_error_string(splitzip_status status);

/*
 * splitzip_status_name() returns the enumerator spelling of a status code without the
 * "SPLITZIP_" prefix, e.g. "ERROR_TRUNCATED", or "UNKNOWN". Never NULL; static.
 */
SPLITZIP_API const char *splitzip_status_name(splitzip_status status);

/* ==================================================================== */
/*                              Codebooks                               */
/* ==================================================================== */

/* Number of entries of a 4-bit codebook. */
#define SPLITZIP_CODEBOOK_SIZE 16

/*
 * A codebook: the 16 BF16 exponent values (0..255) that get a 4-bit code. Valid codebooks hold
 * 16 distinct values in strictly ascending order; code k means exponents[k] (doc/FORMAT.md §5).
 */
typedef struct splitzip_codebook {
	uint8_t exponents[SPLITZIP_CODEBOOK_SIZE];
} splitzip_codebook;

/*
 * splitzip_histogram() adds, for each of the 'n_elems' BF16 values in 'src', one to
 * hist[exponent]. 'hist' is not cleared first, so several samples can be accumulated.
 * Returns SPLITZIP_ERROR_INVALID_ARGUMENT if 'hist' is NULL or 'src' is NULL with n_elems > 0.
 */
SPLITZIP_API splitzip_status splitzip_histogram(const uint16_t *src, size_t n_elems,
                                                uint64_t hist[256]);

/*
 * splitzip_codebook_from_histogram() selects the canonical codebook for an exponent histogram:
 * the 16 exponents with the highest counts, ties broken towards the smaller exponent value,
 * then sorted ascending (doc/FORMAT.md §5.1). Exponents with count 0 are eligible, so the
 * result is always a valid codebook. Errors: SPLITZIP_ERROR_INVALID_ARGUMENT on NULL.
 */
SPLITZIP_API splitzip_status splitzip_codebook_from_histogram(const uint64_t hist[256],
                                                              splitzip_codebook *cb);

/*
 * splitzip_calibrate() computes the canonical codebook of 'n_elems' BF16 values; it is
 * splitzip_histogram() followed by splitzip_codebook_from_histogram(). To calibrate on several
 * samples, accumulate one histogram and call splitzip_codebook_from_histogram() once.
 */
SPLITZIP_API splitzip_status splitzip_calibrate(const uint16_t *src, size_t n_elems,
                                                splitzip_codebook *cb);

/*
 * splitzip_codebook_validate() returns SPLITZIP_OK if 'cb' is valid (16 strictly ascending
 * values), SPLITZIP_ERROR_BAD_CODEBOOK otherwise, SPLITZIP_ERROR_INVALID_ARGUMENT on NULL.
 */
SPLITZIP_API splitzip_status splitzip_codebook_validate(const splitzip_codebook *cb);

/* Size in bytes of a serialised codebook (the codebook file format of doc/FORMAT.md §9). */
#define SPLITZIP_CODEBOOK_FILE_SIZE 28

/*
 * splitzip_codebook_serialize() writes 'cb' as SPLITZIP_CODEBOOK_FILE_SIZE bytes to 'dst'
 * ('dst_cap' bytes available). Errors: INVALID_ARGUMENT (NULL), BAD_CODEBOOK (invalid 'cb'),
 * DST_TOO_SMALL.
 */
SPLITZIP_API splitzip_status splitzip_codebook_serialize(const splitzip_codebook *cb, void *dst,
                                                         size_t dst_cap);

/*
 * splitzip_codebook_deserialize() reads a serialised codebook from 'src' ('src_size' bytes,
 * which must be exactly SPLITZIP_CODEBOOK_FILE_SIZE). Errors: INVALID_ARGUMENT (NULL),
 * TRUNCATED (too short), BAD_CODEBOOK (bad magic, version, checksum, order, trailing bytes).
 */
SPLITZIP_API splitzip_status splitzip_codebook_deserialize(const void *src, size_t src_size,
                                                           splitzip_codebook *cb);

/* ==================================================================== */
/*                            Entropy tables                            */
/* ==================================================================== */

/* The longest code of an entropy table, in bits (doc/FORMAT.md §5.2). */
#define SPLITZIP_ENTROPY_MAX_CODE_LENGTH 11

/*
 * An entropy table: the code length of every exponent and of the escape symbol, from which
 * the canonical Huffman code follows (doc/FORMAT.md §5.3). lengths[e] is 0..11; 0 means that
 * exponent e is written as an escape (the escape code, then the exponent in 8 raw bits), so a
 * table codes every exponent, also one it was not made from. Valid tables have escape_length
 * 1..11 and a complete code: the sum of 2^-length over every nonzero length, escape included,
 * is exactly 1.
 */
typedef struct splitzip_entropy_table {
	uint8_t lengths[256];  /* code length of each exponent; 0 = coded as an escape */
	uint8_t escape_length; /* code length of the escape symbol, 1..11 */
} splitzip_entropy_table;

/*
 * splitzip_entropy_table_from_histogram() computes the canonical table of an exponent
 * histogram, the table an entropy frame of these values gets from its input: length-limited
 * Huffman code lengths (package-merge, at most 11 bits) of the exponents with a nonzero count,
 * plus the escape symbol with a count of 1 (doc/FORMAT.md §5.2). To calibrate on several
 * samples, add their histograms (splitzip_histogram) and call this once.
 * Errors: INVALID_ARGUMENT on NULL, an all-zero histogram, or counts adding up to 2^59 or more.
 */
SPLITZIP_API splitzip_status splitzip_entropy_table_from_histogram(const uint64_t hist[256],
                                                                   splitzip_entropy_table *table);

/*
 * splitzip_entropy_calibrate() is splitzip_histogram() of 'n_elems' BF16 values followed by
 * splitzip_entropy_table_from_histogram(). Errors: INVALID_ARGUMENT (NULL, n_elems == 0).
 */
SPLITZIP_API splitzip_status splitzip_entropy_calibrate(const uint16_t *src, size_t n_elems,
                                                        splitzip_entropy_table *table);

/*
 * splitzip_entropy_table_validate() returns SPLITZIP_OK if 'table' is valid (see
 * splitzip_entropy_table), SPLITZIP_ERROR_BAD_CODEBOOK otherwise, INVALID_ARGUMENT on NULL.
 */
SPLITZIP_API splitzip_status splitzip_entropy_table_validate(const splitzip_entropy_table *table);

/* Size in bytes of a serialised entropy table (the table file of doc/FORMAT.md §9.2). */
#define SPLITZIP_ENTROPY_TABLE_FILE_SIZE 140

/*
 * splitzip_entropy_table_serialize() writes 'table' as SPLITZIP_ENTROPY_TABLE_FILE_SIZE bytes to
 * 'dst' ('dst_cap' bytes available). Errors: INVALID_ARGUMENT (NULL), BAD_CODEBOOK (an invalid
 * table), DST_TOO_SMALL.
 */
SPLITZIP_API splitzip_status splitzip_entropy_table_serialize(const splitzip_entropy_table *table,
                                                              void *dst, size_t dst_cap);

/*
 * splitzip_entropy_table_deserialize() reads a serialised table from 'src' ('src_size' bytes,
 * exactly SPLITZIP_ENTROPY_TABLE_FILE_SIZE). Errors: INVALID_ARGUMENT (NULL), TRUNCATED (too
 * short), BAD_CODEBOOK (magic, version, checksum, an invalid table, trailing bytes).
 */
SPLITZIP_API splitzip_status splitzip_entropy_table_deserialize(const void *src, size_t src_size,
                                                                splitzip_entropy_table *table);

/*
 * splitzip_frame_entropy_table() reads the table of the entropy frame at 'src' ('src_size'
 * bytes available), e.g. to reuse the table of a previous frame as a fixed table. It validates
 * the header (as splitzip_get_frame_info) and the frame's code-length section (doc/FORMAT.md
 * §4.3.3), and reads nothing beyond it. Errors: as splitzip_get_frame_info(), TRUNCATED (the
 * input ends before the code lengths), CORRUPT_STREAM (invalid code lengths),
 * INVALID_ARGUMENT (NULL, or a valid frame that is not an entropy frame).
 */
SPLITZIP_API splitzip_status splitzip_frame_entropy_table(const void *src, size_t src_size,
                                                          splitzip_entropy_table *table);

/* ==================================================================== */
/*                          Context & backends                          */
/* ==================================================================== */

typedef struct splitzip_ctx splitzip_ctx; /* opaque */

/* Backend identifiers. Values are ABI; new ones are appended. */
typedef enum splitzip_backend_id {
	SPLITZIP_BACKEND_AUTO = 0, /* best usable backend for host memory */
	SPLITZIP_BACKEND_SCALAR = 1,
	SPLITZIP_BACKEND_AVX2 = 2,
	SPLITZIP_BACKEND_NEON = 3,
	SPLITZIP_BACKEND_CUDA = 4,
	SPLITZIP_BACKEND_HIP = 5,
	SPLITZIP_BACKEND_AVX512 = 6,    /* AVX-512 F/BW/DQ/VL */
	SPLITZIP_BACKEND_AVX512VBMI = 7 /* the same plus VBMI/VBMI2 (Ice Lake, Zen 4) */
} splitzip_backend_id;

/* Where the codebook used by splitzip_compress() comes from. */
typedef enum splitzip_codebook_mode {
	/* Computed from each input: best ratio, no setup. On the CPU a split4 frame of 2^21
	 * elements or more reads its input once (the codebook is predicted from a sample and
	 * checked against what the pass counts; a wrong prediction recodes what was written);
	 * smaller split4 frames and the entropy table take one extra read of the input. */
	SPLITZIP_CODEBOOK_FROM_INPUT = 0,
	/* splitzip_params.codebook, e.g. calibrated offline: single pass over the input. */
	SPLITZIP_CODEBOOK_FIXED = 1
} splitzip_codebook_mode;

/*
 * Which frame splitzip_compress() writes (doc/FORMAT.md §6.3). In every case a stored frame
 * is written when the chosen encoding is not strictly smaller, so a frame never exceeds
 * splitzip_compress_bound().
 */
typedef enum splitzip_encoding {
	/* split4 (mode 1): 4-bit codes, fastest (memory speed); the v1 default. */
	SPLITZIP_ENCODING_SPLIT4 = 0,
	/* entropy (mode 2): Huffman-coded exponents, about 11 % smaller on real KV caches,
	 * slower to encode and decode; for links slower than the codec. */
	SPLITZIP_ENCODING_ENTROPY = 1,
	/* The smallest of stored, split4 and entropy; a tie goes to the simpler mode (stored,
	 * then split4). Costs both encodings' work. */
	SPLITZIP_ENCODING_AUTO = 2
} splitzip_encoding;

/* Frame flags (doc/FORMAT.md §3, Flags). */
#define SPLITZIP_FLAG_CONTENT_CHECKSUM 0x01u

/* Chunk size limits, as log2 of elements per chunk (doc/FORMAT.md §3, Chunk_Log2). */
#define SPLITZIP_CHUNK_LOG2_MIN 10
#define SPLITZIP_CHUNK_LOG2_MAX 16
#define SPLITZIP_CHUNK_LOG2_DEFAULT 12
/* The chunk size used when splitzip_params.chunk_log2 is 0 and the encoding is ENTROPY or
 * AUTO: larger chunks waste fewer bits at the ends of the 32 interleaved lanes (doc/BENCHMARKS.md).
 */
#define SPLITZIP_CHUNK_LOG2_DEFAULT_ENTROPY 14

/*
 * Compression parameters. Always initialise with splitzip_params_init() and then change the
 * fields you need: struct_size lets later library versions append fields without breaking
 * programs compiled against this header.
 */
typedef struct splitzip_params {
	size_t struct_size;          /* = sizeof(splitzip_params), set by params_init */
	splitzip_backend_id backend; /* default SPLITZIP_BACKEND_AUTO */
	/* 10..16, or 0 (the default): SPLITZIP_CHUNK_LOG2_DEFAULT for SPLIT4,
	 * SPLITZIP_CHUNK_LOG2_DEFAULT_ENTROPY for ENTROPY and AUTO. */
	unsigned chunk_log2;
	unsigned flags;                       /* SPLITZIP_FLAG_*; default 0 (no checksum) */
	splitzip_codebook_mode codebook_mode; /* default SPLITZIP_CODEBOOK_FROM_INPUT */
	splitzip_codebook codebook;           /* used with SPLITZIP_CODEBOOK_FIXED */
	unsigned n_threads;                   /* worker threads for host calls; 0 = automatic */
	splitzip_encoding encoding;           /* default SPLITZIP_ENCODING_SPLIT4 */
	/* Where the entropy table comes from: FROM_INPUT (default, one histogram pass over the
	 * input) or FIXED, 'table' (e.g. calibrated offline, or a previous frame's). */
	splitzip_codebook_mode table_mode;
	splitzip_entropy_table table; /* used with table_mode SPLITZIP_CODEBOOK_FIXED */
} splitzip_params;

/*
 * splitzip_params_init() fills '*p' with the defaults listed in splitzip_params. NULL is a no-op.
 */
SPLITZIP_API void splitzip_params_init(splitzip_params *p);

/*
 * splitzip_ctx_create() creates a context bound to one backend and stores it in '*out'.
 * 'p' may be NULL for defaults. Backend selection: p->backend if not AUTO; else the environment
 * variable SPLITZIP_FORCE_BACKEND if set (a backend name, see splitzip_backend_name()); else the
 * first usable backend in priority order. A named backend that is unknown, not compiled in or
 * not usable here gives SPLITZIP_ERROR_BACKEND_UNAVAILABLE: there is never a silent fallback.
 * Errors: INVALID_ARGUMENT (out NULL, struct_size too small, a field out of range, an invalid
 * FIXED codebook or FIXED entropy table), BACKEND_UNAVAILABLE, OUT_OF_MEMORY. On error '*out'
 * is set to NULL.
 * The context owns its scratch memory (a pool of work memory sets, one per call running at
 * once); free it with splitzip_ctx_free(). The context may be shared between threads.
 */
SPLITZIP_API splitzip_status splitzip_ctx_create(const splitzip_params *p, splitzip_ctx **out);

/* splitzip_ctx_free() frees a context and its scratch memory. NULL is a no-op. No other call on
 * the context may be running or start afterwards. */
SPLITZIP_API void splitzip_ctx_free(splitzip_ctx *ctx);

/*
 * splitzip_ctx_backend_name() returns the name of the backend the context is bound to, e.g.
 * "scalar". Static string; "(null)" for a NULL ctx.
 */
SPLITZIP_API const char *splitzip_ctx_backend_name(const splitzip_ctx *ctx);

/*
 * splitzip_ctx_params() copies the context's effective parameters (defaults resolved) to '*p'.
 * Errors: INVALID_ARGUMENT on NULL.
 */
SPLITZIP_API splitzip_status splitzip_ctx_params(const splitzip_ctx *ctx, splitzip_params *p);

/*
 * Backend introspection. Backends are numbered 0..splitzip_backend_count()-1 in priority order
 * (best first); only backends compiled into this library are listed.
 * splitzip_backend_name(i) returns the name ("scalar", "avx2", ...) or NULL if i is out of range.
 * splitzip_backend_available(i) returns 1 if the backend is usable on this machine now, else 0.
 * splitzip_backend_id_of(i) returns its id, or SPLITZIP_BACKEND_AUTO if i is out of range.
 */
SPLITZIP_API size_t splitzip_backend_count(void);
SPLITZIP_API const char *splitzip_backend_name(size_t i);
SPLITZIP_API int splitzip_backend_available(size_t i);
SPLITZIP_API splitzip_backend_id splitzip_backend_id_of(size_t i);

/*
 * splitzip_backend_unavailable_reason(i) returns why backend i is not usable on this machine
 * (e.g. "the CPU or OS lacks AVX-512 ...", or what loading a GPU module said:
 * "libsplitzip_hip.so: libamdhip64.so.5: cannot open shared object file ..."), or NULL if it is
 * usable; "no such backend" if i is out of range. The string is owned by the library, stays
 * valid for the life of the process and must not be freed. Like splitzip_backend_available(),
 * asking about a GPU backend may load its module and initialise its runtime (once).
 */
SPLITZIP_API const char *splitzip_backend_unavailable_reason(size_t i);

/* ==================================================================== */
/*                      Frames: sizes and information                   */
/* ==================================================================== */

/* Size of the fixed frame header in bytes (doc/FORMAT.md §3). */
#define SPLITZIP_FRAME_HEADER_SIZE 64

/* The largest element count one frame may hold (doc/FORMAT.md §8). Larger inputs are streams
 * of several frames. */
#define SPLITZIP_MAX_FRAME_ELEMS ((uint64_t)0xFFFFFFFFu)

/*
 * SPLITZIP_COMPRESS_BOUND(n) is the largest frame splitzip_compress() can produce for n elements:
 * the size of a stored frame, header + 2n bytes rounded up to 16. It is a constant expression for
 * static sizing; splitzip_compress_bound() is its runtime twin.
 */
#define SPLITZIP_COMPRESS_BOUND(n_elems)                                                           \
	((size_t)SPLITZIP_FRAME_HEADER_SIZE + ((((size_t)(n_elems)) * 2u + 15u) & ~(size_t)15u))

/*
 * splitzip_compress_bound() returns SPLITZIP_COMPRESS_BOUND(n_elems), or 0 if n_elems exceeds
 * SPLITZIP_MAX_FRAME_ELEMS (no single frame can hold it).
 */
SPLITZIP_API size_t splitzip_compress_bound(size_t n_elems);

/*
 * splitzip_predict_frame_size() returns the size in bytes of the frame splitzip_compress() writes
 * for 'n_elems' values of which 'n_escapes' have an exponent outside the frame's codebook, with
 * chunks of 2^chunk_log2 elements (0 = SPLITZIP_CHUNK_LOG2_DEFAULT): the split4 size of
 * doc/FORMAT.md §4.2 if it is smaller than the stored size, else the stored size (the mode rule
 * of §6.3). With the codebook from the input, n_escapes is n_elems less the histogram counts
 * of the 16 exponents splitzip_codebook_from_histogram() selects from the frame's own
 * histogram; with a fixed codebook, less the counts of its exponents. So a histogram predicts
 * the compressed size exactly, without compressing ('splitzip stats' does this). Returns 0 if
 * n_elems exceeds SPLITZIP_MAX_FRAME_ELEMS, n_escapes exceeds n_elems or chunk_log2 is out of
 * range.
 */
SPLITZIP_API size_t splitzip_predict_frame_size(size_t n_elems, size_t n_escapes,
                                                unsigned chunk_log2);

/* Frame modes (doc/FORMAT.md §3, Mode). */
typedef enum splitzip_mode {
	SPLITZIP_MODE_STORED = 0, /* raw little-endian BF16 */
	SPLITZIP_MODE_SPLIT4 = 1, /* 4-bit exponent codes + sign/mantissa bytes + escapes */
	SPLITZIP_MODE_ENTROPY = 2 /* Huffman-coded exponents in 32 lanes + sign/mantissa bytes */
} splitzip_mode;

/*
 * Element types (doc/FORMAT.md §2.2, the header's Dtype). Values are ABI. BF16 frames run on
 * every backend's kernels; frames of the other dtypes are encoded and decoded by portable C
 * that every host backend shares (byte-identical by construction, single-threaded, one frame
 * per call); device (CUDA/HIP) contexts code them with GPU kernels of their own
 * (splitzip_compress_dtype_async(), splitzip_decompress_dtype_async()); the page-stream calls
 * on device memory support BF16 only (the host page calls every dtype).
 */
typedef enum splitzip_dtype {
	SPLITZIP_DTYPE_BF16 = 1,     /* 2 bytes: sign, 8 exponent, 7 mantissa bits */
	SPLITZIP_DTYPE_FP8_E4M3 = 2, /* 1 byte: sign, 4 exponent, 3 mantissa bits (no split4) */
	SPLITZIP_DTYPE_FP8_E5M2 = 3, /* 1 byte: sign, 5 exponent, 2 mantissa bits */
	SPLITZIP_DTYPE_FP16 = 4,     /* 2 bytes: sign, 5 exponent, 10 mantissa bits */
	SPLITZIP_DTYPE_FP32 = 5      /* 4 bytes: sign, 8 exponent, 23 mantissa bits */
} splitzip_dtype;

/*
 * splitzip_dtype_width() returns the element width in bytes of 'dtype' (1, 2 or 4), or 0 for a
 * value that is not a splitzip_dtype. splitzip_dtype_name() returns "bf16", "e4m3", "e5m2",
 * "f16" or "f32" (static strings), or NULL.
 */
SPLITZIP_API size_t splitzip_dtype_width(unsigned dtype);
SPLITZIP_API const char *splitzip_dtype_name(unsigned dtype);

/*
 * splitzip_histogram_dtype() is splitzip_histogram() for 'n_elems' elements of 'dtype' at 'src'
 * (little-endian, any alignment): one is added to hist[exponent] per element, the exponent
 * being the dtype's e-bit field (doc/FORMAT.md §2.2; below 2^e). For BF16 it is
 * splitzip_histogram(). Its result feeds splitzip_codebook_from_histogram() and
 * splitzip_entropy_table_from_histogram() for a fixed codebook or table of the dtype.
 * Errors: INVALID_ARGUMENT (NULL hist, NULL src with n_elems > 0, an unknown dtype).
 */
SPLITZIP_API splitzip_status splitzip_histogram_dtype(unsigned dtype, const void *src,
                                                      size_t n_elems, uint64_t hist[256]);

/* What splitzip_get_frame_info() reports about one frame. */
typedef struct splitzip_frame_info {
	unsigned format_version; /* Format_Version */
	unsigned dtype;          /* a splitzip_dtype */
	splitzip_mode mode;      /* stored, split4 or entropy */
	unsigned chunk_log2;     /* elements per chunk = 1 << chunk_log2 */
	unsigned flags;          /* SPLITZIP_FLAG_* */
	uint64_t n_elems;        /* decoded element count */
	/* split4: escape records; entropy: elements coded as an escape; stored: 0 */
	uint64_t n_escapes;
	uint64_t frame_size;       /* bytes of the whole frame, header included */
	uint64_t content_checksum; /* valid if flags has SPLITZIP_FLAG_CONTENT_CHECKSUM */
	/* split4 frames only; all zero otherwise (an entropy frame's table: see
	 * splitzip_frame_entropy_table) */
	splitzip_codebook codebook;
} splitzip_frame_info;

/*
 * splitzip_get_frame_info() parses and validates the header of the frame at 'src' without
 * decoding it. Only the first SPLITZIP_FRAME_HEADER_SIZE bytes are read, so it also serves a
 * streaming reader: read the header, learn info->frame_size, read the rest of the frame.
 * Errors: INVALID_ARGUMENT (NULL), BAD_MAGIC (the bytes present do not begin with the magic),
 * TRUNCATED (src_size < header size, the bytes present begin like a frame), HEADER_CHECKSUM,
 * UNSUPPORTED_FORMAT, CORRUPT_STREAM (a field out of range).
 * The body of the frame is not checked: a frame whose header is fine may still fail to decode.
 */
SPLITZIP_API splitzip_status splitzip_get_frame_info(const void *src, size_t src_size,
                                                     splitzip_frame_info *info);

/* ==================================================================== */
/*                        Host-memory one-shot API                      */
/* ==================================================================== */

/*
 * splitzip_compress() compresses 'n_elems' BF16 values (raw uint16_t bit patterns) from 'src'
 * into one frame at 'dst' ('dst_cap' bytes) and stores the frame size in '*dst_size'.
 * The frame is canonical (doc/FORMAT.md §6): byte-identical for every backend and thread count.
 * Its mode follows splitzip_params.encoding (split4, entropy, or the smallest).
 * A dst_cap of splitzip_compress_bound(n_elems) always suffices; a smaller one may suffice.
 * Incompressible input gives a stored frame, never larger than the bound.
 * Errors: INVALID_ARGUMENT (NULL ctx/dst/dst_size, src NULL with n_elems > 0, n_elems above
 * SPLITZIP_MAX_FRAME_ELEMS), DST_TOO_SMALL, OUT_OF_MEMORY.
 */
SPLITZIP_API splitzip_status splitzip_compress(splitzip_ctx *ctx, const uint16_t *src,
                                               size_t n_elems, void *dst, size_t dst_cap,
                                               size_t *dst_size);

/*
 * splitzip_compress_dtype() is splitzip_compress() for elements of any dtype: 'src' holds
 * 'n_elems' little-endian bit patterns of splitzip_dtype_width(dtype) bytes each (any
 * alignment), and the frame carries the dtype (doc/FORMAT.md 1.3). BF16 is exactly
 * splitzip_compress(). The context's encoding, chunk size, flags and fixed codebook or table
 * apply; the split4 encoding is not defined for SPLITZIP_DTYPE_FP8_E4M3 (INVALID_ARGUMENT; use
 * ENTROPY or AUTO), and a fixed codebook or table must be valid for the dtype (entries below
 * 2^e, no code for an exponent of 2^e or more), else BAD_CODEBOOK. A dst_cap of
 * splitzip_compress_bound_dtype(dtype, n_elems) always suffices. Frames of dtypes other than
 * BF16 are encoded in one thread with portable C (n_threads does not apply) and use about
 * 3.5 bytes of temporary memory per element (entropy; 1 for split4). On a device context
 * (backend "cuda" or "hip") the GPU kernels encode them: the elements are copied to the
 * device, encoded there and the frame copied back before the call returns (the same frame,
 * byte for byte; device memory for the input, the frame and the workspace is allocated and
 * freed by the call). Errors: as splitzip_compress(), INVALID_ARGUMENT for a dtype outside
 * splitzip_dtype, DEVICE if the GPU runtime fails. The context may be shared between threads
 * as for splitzip_compress().
 */
SPLITZIP_API splitzip_status splitzip_compress_dtype(splitzip_ctx *ctx, unsigned dtype,
                                                     const void *src, size_t n_elems, void *dst,
                                                     size_t dst_cap, size_t *dst_size);

/*
 * splitzip_compress_bound_dtype() returns the stored frame size of n_elems elements of
 * 'dtype', 64 + align16(width * n_elems), the largest frame splitzip_compress_dtype() writes;
 * 0 if n_elems exceeds SPLITZIP_MAX_FRAME_ELEMS or dtype is not a splitzip_dtype.
 */
SPLITZIP_API size_t splitzip_compress_bound_dtype(unsigned dtype, size_t n_elems);

/*
 * splitzip_workspace_size_dtype() is splitzip_workspace_size() for a frame of 'dtype': it
 * stores in '*bytes' the device workspace that one splitzip_compress_dtype_async() of up to
 * 'max_elems' elements of 'dtype' needs with this context's parameters (for the dtypes other
 * than BF16 a few KiB plus 8 bytes per chunk, whatever the encoding; for BF16 exactly
 * splitzip_workspace_size()). Works on any context. Errors: INVALID_ARGUMENT (NULL, a dtype
 * outside splitzip_dtype, max_elems above SPLITZIP_MAX_FRAME_ELEMS, a size that overflows
 * size_t).
 */
SPLITZIP_API splitzip_status splitzip_workspace_size_dtype(const splitzip_ctx *ctx, unsigned dtype,
                                                           size_t max_elems, size_t *bytes);

/*
 * splitzip_compress_dtype_async() is splitzip_compress_async() for elements of any dtype: it
 * enqueues on 'stream' the compression of 'n_elems' little-endian patterns of 'dtype' at
 * 'd_src' (device memory, any alignment; BF16: exactly splitzip_compress_async(), 2-byte
 * aligned) into one frame at 'd_dst' ('dst_cap' bytes; splitzip_compress_bound_dtype(dtype,
 * n_elems) always suffices), and writes the frame size to '*d_dst_size' and the status to
 * '*d_status' when the kernels run: OK, or DST_TOO_SMALL (size 0, nothing written to d_dst)
 * exactly when splitzip_compress_dtype() gives it for the same capacity. The frame is
 * byte-identical to splitzip_compress_dtype()'s with the same context parameters. The
 * workspace is splitzip_workspace_size_dtype(ctx, dtype, n_elems) bytes (or more), aligned to
 * SPLITZIP_WORKSPACE_ALIGN. Returned by the host before anything is enqueued (then no result
 * is written): INVALID_ARGUMENT (NULL or misaligned arguments, d_src NULL with n_elems > 0, a
 * dtype outside splitzip_dtype, the split4 encoding for SPLITZIP_DTYPE_FP8_E4M3, n_elems
 * above SPLITZIP_MAX_FRAME_ELEMS, a workspace too small), BAD_CODEBOOK (a fixed codebook or
 * table not valid for the dtype), BACKEND_UNAVAILABLE (not a device context), DEVICE (a
 * launch the runtime rejects). See the contract of the device-memory API below (ownership,
 * no allocation or wait, streams); the context may be used from several threads, a workspace
 * by one call at a time.
 */
SPLITZIP_API splitzip_status splitzip_compress_dtype_async(splitzip_ctx *ctx, unsigned dtype,
                                                           const void *d_src, size_t n_elems,
                                                           void *d_dst, size_t dst_cap,
                                                           size_t *d_dst_size, int32_t *d_status,
                                                           void *d_workspace, size_t ws_bytes,
                                                           void *stream);

/*
 * splitzip_decompressed_size() sums the element counts of all frames in 'src' (one frame or a
 * stream of concatenated frames; 'src_size' bytes) by reading their headers only, and stores
 * the total in '*n_elems'. Errors: as splitzip_get_frame_info() for each header, TRUNCATED if
 * the last frame is incomplete, CORRUPT_STREAM if bytes after a frame do not begin with the magic.
 */
SPLITZIP_API splitzip_status splitzip_decompressed_size(const void *src, size_t src_size,
                                                        uint64_t *n_elems);

/*
 * splitzip_decompress() decodes 'src' ('src_size' bytes: one frame, or several frames
 * concatenated) into 'dst', which has room for 'dst_cap_elems' elements, and stores the number
 * of elements written in '*n_elems'. Every field and every escape is validated before use; the
 * decoder never reads outside src[0..src_size) nor writes outside dst[0..dst_cap_elems).
 * If a frame carries a content checksum it is verified.
 * BF16 only: a frame of another dtype (doc/FORMAT.md 1.3) is UNSUPPORTED_FORMAT here, so that
 * a destination sized for BF16 elements is never overrun by wider ones; decode those with
 * splitzip_decompress_dtype().
 * Errors: INVALID_ARGUMENT, DST_TOO_SMALL, TRUNCATED, BAD_MAGIC, HEADER_CHECKSUM,
 * UNSUPPORTED_FORMAT, CORRUPT_STREAM (including bytes after the last frame that do not form a
 * frame), CONTENT_CHECKSUM, OUT_OF_MEMORY.
 */
SPLITZIP_API splitzip_status splitzip_decompress(splitzip_ctx *ctx, const void *src,
                                                 size_t src_size, uint16_t *dst,
                                                 size_t dst_cap_elems, size_t *n_elems);

/*
 * splitzip_frame_decompress() decodes exactly one frame: the frame at the start of 'src' must
 * end at or before src + src_size, and '*src_consumed' receives its size, so a streaming reader
 * can step through a buffer of frames. Other arguments and errors as splitzip_decompress().
 */
SPLITZIP_API splitzip_status splitzip_frame_decompress(splitzip_ctx *ctx, const void *src,
                                                       size_t src_size, size_t *src_consumed,
                                                       uint16_t *dst, size_t dst_cap_elems,
                                                       size_t *n_elems);

/*
 * splitzip_decompress_dtype() and splitzip_frame_decompress_dtype() are splitzip_decompress()
 * and splitzip_frame_decompress() for streams of any dtype (splitzip_dtype; BF16 included):
 * the destination is 'dst_cap_bytes' bytes (any alignment for dtypes other than BF16; 2-byte
 * aligned for BF16), the elements are written as little-endian patterns of the stream's dtype
 * (splitzip_get_frame_info() tells it; every frame of a stream has the first frame's, else
 * CORRUPT_STREAM), '*n_elems' counts elements of that dtype, and DST_TOO_SMALL means that they
 * do not fit in dst_cap_bytes. Frames of dtypes other than BF16 are decoded in one thread by
 * portable C, with n_elems bytes of temporary memory; a device context decodes them with its
 * kernels (splitzip_decompress_dtype_async(), copying each frame through the device). Other
 * arguments, errors and guarantees as
 * splitzip_decompress(). The context may be shared between threads.
 */
SPLITZIP_API splitzip_status splitzip_decompress_dtype(splitzip_ctx *ctx, const void *src,
                                                       size_t src_size, void *dst,
                                                       size_t dst_cap_bytes, size_t *n_elems);
SPLITZIP_API splitzip_status splitzip_frame_decompress_dtype(splitzip_ctx *ctx, const void *src,
                                                             size_t src_size, size_t *src_consumed,
                                                             void *dst, size_t dst_cap_bytes,
                                                             size_t *n_elems);

/*
 * splitzip_verify() decodes 'src' (one frame or a stream) into scratch memory owned by 'ctx' and
 * discards the result: it reports exactly the status splitzip_decompress_dtype() would (so
 * streams of every dtype are verified; for BF16 the status of splitzip_decompress()), and
 * stores the element count in '*n_elems' (may be NULL). Memory use is bounded by the largest
 * frame.
 */
SPLITZIP_API splitzip_status splitzip_verify(splitzip_ctx *ctx, const void *src, size_t src_size,
                                             uint64_t *n_elems);

/* ==================================================================== */
/*                           Content checksum                           */
/* ==================================================================== */

/*
 * splitzip_content_checksum() computes the 64-bit content checksum of doc/FORMAT.md §7 for
 * 'n_elems' BF16 values split into chunks of 1 << chunk_log2 elements, i.e. the value a frame
 * of these values carries in Content_Checksum. Stores it in '*out'.
 * Errors: INVALID_ARGUMENT (NULL, chunk_log2 out of range, n_elems above the frame limit).
 */
SPLITZIP_API splitzip_status splitzip_content_checksum(const uint16_t *src, size_t n_elems,
                                                       unsigned chunk_log2, uint64_t *out);

/* ==================================================================== */
/*                  Device-memory async API (CUDA / HIP)                */
/* ==================================================================== */

/*
 * A context bound to the "cuda" or "hip" backend (splitzip_params.backend, or
 * SPLITZIP_FORCE_BACKEND) compresses and decompresses device memory, asynchronously and in stream
 * order. The contract of every *_async call below:
 *
 *   - Buffers are device pointers (prefixed d_) on the current device; 'stream' is a cudaStream_t
 *     or hipStream_t cast to void * (NULL: the default stream).
 *   - The caller owns everything: the output, the workspace (splitzip_workspace_size... for
 *     compression, splitzip_decompress_workspace_size() for decompression) and the result
 *     slots. The call allocates nothing, copies nothing to or from the host and never waits
 *     for the device, so it can be captured into a CUDA/HIP graph.
 *   - Alignment: the workspace to SPLITZIP_WORKSPACE_ALIGN bytes; result slots and descriptor
 *     arrays to their element type (size_t, int32_t, pointers); BF16 buffers (d_src of a
 *     compression, d_dst of a decompression, and the d_srcs[i] / d_dsts[i] they point to) to
 *     2 bytes. Frames may sit at any address. Anything cudaMalloc/hipMalloc returns qualifies.
 *     A misaligned argument the host can see is INVALID_ARGUMENT (a fault on the device would
 *     end the whole GPU context); a misaligned buffer in a device array is that frame's
 *     INVALID_ARGUMENT.
 *   - No overlap: the input, the output, the workspace and the result slots of a call must not
 *     overlap one another (the kernels read their input while they write their output).
 *   - Results are written to device memory when the kernels run: per frame, a size_t (frame
 *     size in bytes, or decoded elements) and an int32_t holding a splitzip_status. On any
 *     per-frame error the size is 0 and the output contents are unspecified.
 *   - The return value only covers what the host can check before enqueueing: NULL, misaligned
 *     or out-of-range arguments, a workspace that is too small (INVALID_ARGUMENT), a context that
 *     is not bound to a GPU backend (BACKEND_UNAVAILABLE), a launch the runtime rejects
 *     (DEVICE). If it is not SPLITZIP_OK, nothing was enqueued and no result is written.
 *   - A workspace serves one call at a time: calls that may overlap need separate workspaces.
 *     Its contents need no initialisation and are garbage afterwards.
 *   - Frames are byte-identical to splitzip_compress() with the same parameters, on every GPU
 *     and for every batch composition. Decoding validates every frame as splitzip_decompress()
 *     does and reports the same status; it never reads outside d_src[0..src_size) nor writes
 *     outside the output's capacity.
 *   - The context's parameters (chunk_log2, flags, codebook_mode, codebook) apply as for
 *     splitzip_compress(). SPLITZIP_CODEBOOK_FIXED encodes in a single pass.
 *     SPLITZIP_CODEBOOK_FROM_INPUT predicts the codebook from 1 chunk in 16 of frames of 2^22
 *     elements or more and checks it against the histogram counted during the pass (a second
 *     pass only when the prediction was wrong); smaller frames are read twice (histogram,
 *     then encode, the second read mostly from cache).
 *   - Every encoding works on the device, byte for byte as on the host: SPLITZIP_ENCODING_
 *     ENTROPY (mode 2) with the context's table (SPLITZIP_CODEBOOK_FIXED) or each frame's
 *     own (FROM_INPUT), stored when an entropy frame would not be smaller; AUTO (the
 *     smallest of stored, split4 and entropy) runs both encoders' passes. Decoding handles
 *     every mode. The workspace depends on the encoding (splitzip_workspace_size() on the
 *     context: the entropy encoding needs a few KiB plus 4 bytes per chunk per frame, AUTO
 *     that plus split4's).
 * The host-memory calls (splitzip_compress, splitzip_decompress, ...) also work on such a
 * context: they copy through the device and wait.
 */

/* The alignment in bytes every device workspace must have. */
#define SPLITZIP_WORKSPACE_ALIGN 16

/*
 * splitzip_workspace_size() stores in '*bytes' the device workspace that one compression of a
 * frame of up to 'max_elems' elements needs with this context's parameters (about n/6 bytes
 * plus 16 per chunk: escape exponents and per-chunk state). splitzip_workspace_size_batch() is
 * the same for a batch of 'n_frames' frames of up to 'max_elems' elements each. Either is also
 * enough for a decompression of as many frames. Works on any context. Errors:
 * INVALID_ARGUMENT (NULL, max_elems above SPLITZIP_MAX_FRAME_ELEMS, a size that overflows
 * size_t).
 */
SPLITZIP_API splitzip_status splitzip_workspace_size(const splitzip_ctx *ctx, size_t max_elems,
                                                     size_t *bytes);
SPLITZIP_API splitzip_status splitzip_workspace_size_batch(const splitzip_ctx *ctx, size_t n_frames,
                                                           size_t max_elems, size_t *bytes);

/*
 * splitzip_decompress_workspace_size() stores in '*bytes' the device workspace that a
 * decompression of 'n_frames' frames needs: 256 bytes per frame (its parsed header and
 * counters), whatever their size. Works on any context. Errors: INVALID_ARGUMENT (NULL, a size
 * that overflows size_t).
 */
SPLITZIP_API splitzip_status splitzip_decompress_workspace_size(const splitzip_ctx *ctx,
                                                                size_t n_frames, size_t *bytes);

/*
 * splitzip_compress_async() enqueues the compression of 'n_elems' BF16 values at 'd_src' into
 * one frame at 'd_dst' ('dst_cap' bytes; splitzip_compress_bound(n_elems) always suffices) and
 * writes the frame size to '*d_dst_size' and the status to '*d_status' (OK or DST_TOO_SMALL).
 * 'd_src' may be NULL when n_elems is 0. See the contract above.
 */
SPLITZIP_API splitzip_status splitzip_compress_async(splitzip_ctx *ctx, const uint16_t *d_src,
                                                     size_t n_elems, void *d_dst, size_t dst_cap,
                                                     size_t *d_dst_size, int32_t *d_status,
                                                     void *d_workspace, size_t ws_bytes,
                                                     void *stream);

/*
 * splitzip_decompress_async() enqueues the decoding of the one frame at the start of 'd_src'
 * ('src_size' bytes available) into 'd_dst' (room for 'dst_cap_elems' elements), and writes the
 * element count to '*d_n_elems' and the status to '*d_status': any status
 * splitzip_frame_decompress() can return for the same bytes (TRUNCATED, BAD_MAGIC, HEADER_CHECKSUM,
 * UNSUPPORTED_FORMAT, CORRUPT_STREAM, CONTENT_CHECKSUM, DST_TOO_SMALL). The workspace is
 * splitzip_decompress_workspace_size(ctx, 1).
 */
SPLITZIP_API splitzip_status splitzip_decompress_async(splitzip_ctx *ctx, const void *d_src,
                                                       size_t src_size, uint16_t *d_dst,
                                                       size_t dst_cap_elems, size_t *d_n_elems,
                                                       int32_t *d_status, void *d_workspace,
                                                       size_t ws_bytes, void *stream);

/*
 * splitzip_compress_batch_async() compresses 'n_frames' independent buffers (e.g. KV cache
 * pages), each into its own frame, in one launch sequence. Every array has n_frames entries
 * and lives in device memory: d_srcs[i] (d_n_elems[i] elements, at most 'max_elems', which the
 * host must know to size the launch), d_dsts[i] (d_dst_caps[i] bytes), and the results
 * d_dst_sizes[i] and d_statuses[i]. A frame with bad arguments (n above max_elems, a NULL
 * pointer) gets INVALID_ARGUMENT in its status; the other frames are not affected.
 */
SPLITZIP_API splitzip_status splitzip_compress_batch_async(
    splitzip_ctx *ctx, size_t n_frames, const uint16_t *const *d_srcs, const size_t *d_n_elems,
    size_t max_elems, void *const *d_dsts, const size_t *d_dst_caps, size_t *d_dst_sizes,
    int32_t *d_statuses, void *d_workspace, size_t ws_bytes, void *stream);

/*
 * splitzip_decompress_batch_async() decodes 'n_frames' frames, d_srcs[i] ('d_src_sizes[i]'
 * bytes available) into d_dsts[i] (room for d_dst_caps[i] elements, at most 'max_dst_elems'),
 * writing d_n_elems[i] and d_statuses[i]. Device arrays of n_frames entries; the workspace is
 * splitzip_decompress_workspace_size(ctx, n_frames).
 */
SPLITZIP_API splitzip_status splitzip_decompress_batch_async(
    splitzip_ctx *ctx, size_t n_frames, const void *const *d_srcs, const size_t *d_src_sizes,
    uint16_t *const *d_dsts, const size_t *d_dst_caps, size_t max_dst_elems, size_t *d_n_elems,
    int32_t *d_statuses, void *d_workspace, size_t ws_bytes, void *stream);

/*
 * splitzip_decompress_dtype_async() is splitzip_decompress_async() for a frame of any dtype
 * (doc/FORMAT.md 1.3: BF16, FP8 E4M3 and E5M2, FP16, FP32): the output 'd_dst' is
 * 'dst_cap_bytes' bytes of device memory at any alignment (so FP8 elements can go anywhere),
 * the elements are written as little-endian patterns of the frame's dtype, '*d_n_elems' counts
 * elements of that dtype, and DST_TOO_SMALL means they do not fit in dst_cap_bytes. The status
 * is any that splitzip_frame_decompress_dtype() returns for the same bytes. One frame per call
 * (a stream of several frames: one call per frame, splitzip_frame_get_info() gives the sizes).
 * The workspace is splitzip_decompress_workspace_size(ctx, 1). See the contract above.
 * splitzip_decompress_dtype_batch_async() decodes 'n_frames' frames of any dtypes (they may
 * differ): d_srcs[i] ('d_src_sizes[i]' bytes) into d_dsts[i] ('d_dst_caps[i]' bytes, at most
 * 'max_dst_bytes', any alignment), writing d_n_elems[i] and d_statuses[i]; device arrays of
 * n_frames entries, the workspace splitzip_decompress_workspace_size(ctx, n_frames).
 * The context may be shared between threads; a workspace serves one call at a time.
 */
SPLITZIP_API splitzip_status splitzip_decompress_dtype_async(
    splitzip_ctx *ctx, const void *d_src, size_t src_size, void *d_dst, size_t dst_cap_bytes,
    size_t *d_n_elems, int32_t *d_status, void *d_workspace, size_t ws_bytes, void *stream);
SPLITZIP_API splitzip_status splitzip_decompress_dtype_batch_async(
    splitzip_ctx *ctx, size_t n_frames, const void *const *d_srcs, const size_t *d_src_sizes,
    void *const *d_dsts, const size_t *d_dst_caps, size_t max_dst_bytes, size_t *d_n_elems,
    int32_t *d_statuses, void *d_workspace, size_t ws_bytes, void *stream);

/* ==================================================================== */
/*                 KV pages: one wire buffer for many pages             */
/* ==================================================================== */

/*
 * A page stream (doc/FORMAT.md §12) packs a list of pages -- e.g. the KV cache pages of one
 * request or one layer, each an array of BF16 values anywhere in memory, typically 1-128 KiB --
 * into ONE contiguous buffer that is sent as one message or one bulk write, and scatters it
 * back into pages on the receiving side:
 *
 *     offset 0      64-byte header: magic "SZPG", version 2, encoding, page count, sizes,
 *                   checksums
 *     offset 64     the page table: one u32 per page (its element count and a raw bit)
 *     then          ordinary splitzip frames over the concatenation of every page that is not
 *                   raw, SPLITZIP_PAGES_FRAME_ELEMS (2^24) elements per frame, all with the
 *                   stream's one codebook (split4) or entropy table
 *     then          the raw pages' bytes: pages that compression would not shrink
 *
 * So a page costs 4 bytes, not a frame of its own: 2 KiB pages keep the ratio of one frame
 * over the same bytes. The frame and raw sections start at multiples of SPLITZIP_PAGES_ALIGN
 * (64) bytes. The stream's total size is in the header, so a receiver that has read 64 bytes
 * knows how many follow. Like a frame, a stream is canonical: one valid stream per list of
 * pages and parameters, byte-identical from every backend (scalar, SIMD, CUDA, HIP) and
 * thread count.
 *
 * Every frame mode: the context's encoding (split4, the default; entropy; or auto, the smaller
 * stream of the two), with its codebook or table from the pages themselves (the histogram of
 * all of them) or fixed (SPLITZIP_CODEBOOK_FIXED / table_mode FIXED: calibrated once per
 * model, then named in the header by a caller-chosen 32-bit id).
 *
 * Damage is detected by default: unless the caller passes SPLITZIP_PAGES_NO_CHECKSUM, every
 * frame carries its content checksum and the header the checksum of the raw pages; the header
 * and the page table always carry theirs.
 *
 * Receivers treat the stream as hostile: every header field, the page table and its checksum,
 * the padding, every frame header and the stream's one table are validated before any page is
 * written, every frame body by the frame decoder as it is decoded; nothing is read outside the
 * stream and nothing is written outside the destination pages, and the receiver learns which
 * pages were written (splitzip_page_state). The statuses, in the order of the checks, are in
 * doc/FORMAT.md §12.5-§12.6.
 *
 * Threads: a context may pack and scatter streams from any number of threads at once (see the
 * conventions at the top of this header); a serving engine can share one between its workers.
 */

/* Page stream format version written by this library for BF16 pages (doc/FORMAT.md §12);
 * pages of the other dtypes are version SPLITZIP_PAGES_FORMAT_VERSION_DTYPE, with the dtype in
 * the header (splitzip_pages_compress_dtype()). */
#define SPLITZIP_PAGES_FORMAT_VERSION 2
#define SPLITZIP_PAGES_FORMAT_VERSION_DTYPE 3
/* Bytes of the stream header and of one page table entry. */
#define SPLITZIP_PAGES_HEADER_SIZE 64
#define SPLITZIP_PAGES_ENTRY_SIZE 4
/* The frame and raw sections start at multiples of this, from the start of the stream. */
#define SPLITZIP_PAGES_ALIGN 64
/* The most pages one stream holds (Page_Count is a u32). */
#define SPLITZIP_PAGES_MAX_PAGES ((uint64_t)0xFFFFFFFFu)
/* The largest page in bytes: 2^31 - 1 BF16 values (31 bits of a table entry); for a dtype of
 * width w, w (2^31 - 1) bytes. */
#define SPLITZIP_PAGES_MAX_PAGE_BYTES ((uint64_t)2 * 0x7FFFFFFFu)
/* Elements per frame of a stream (the last frame holds the rest). */
#define SPLITZIP_PAGES_FRAME_ELEMS ((uint64_t)1 << 24)
/* Stream flags (Stream_Flags, splitzip_pages_info.flags). */
#define SPLITZIP_PAGES_FLAG_CHECKSUM 0x01u    /* frames and raw pages carry checksums */
#define SPLITZIP_PAGES_FLAG_FIXED_TABLE 0x02u /* the caller's codebook or table, Table_Id */
/* Options of splitzip_pages_compress() and splitzip_pages_compress_async(). */
#define SPLITZIP_PAGES_NO_CHECKSUM 0x01u /* leave the checksums out (not recommended) */
/* Option of splitzip_pages_decompress() and splitzip_pages_decompress_async(): the stream must
 * hold exactly the destination's pages, n_pages of exactly page_caps[i] bytes each; anything
 * else is SPLITZIP_ERROR_GEOMETRY before a byte is written (a serving engine knows the geometry
 * of what it receives). */
#define SPLITZIP_PAGES_EXACT 0x02u

/* How a page travels (its bit in the page table). */
typedef enum splitzip_page_encoding {
	SPLITZIP_PAGE_RAW =
	    0, /* the page's bytes verbatim, in the raw section: it does not shrink */
	SPLITZIP_PAGE_FRAME = 1 /* coded: part of the stream's frames */
} splitzip_page_encoding;

/* What a decompression did to a destination page (splitzip_pages_decompress page_states). */
typedef enum splitzip_page_state {
	SPLITZIP_PAGE_UNTOUCHED = 0, /* nothing was written to the page */
	SPLITZIP_PAGE_WRITTEN = 1,   /* the page holds the stream's page, validated (and, with the
	                              * stream's checksums, verified) */
	SPLITZIP_PAGE_DAMAGED = 2 /* a failing frame covered the page: its bytes are unspecified */
} splitzip_page_state;

/*
 * SPLITZIP_PAGES_BOUND(n, max) is the largest stream of n pages of at most 'max' bytes each: the
 * header and table rounded up to SPLITZIP_PAGES_ALIGN, every byte of every page, and per frame
 * of 2^24 elements its header and padding, plus the alignment of the raw section. A constant
 * expression for static sizing (no overflow check); splitzip_pages_bound() is its checked
 * runtime twin.
 */
#define SPLITZIP_PAGES_BOUND(n_pages, max_page_bytes)                                              \
	((((size_t)SPLITZIP_PAGES_HEADER_SIZE + (size_t)SPLITZIP_PAGES_ENTRY_SIZE * (n_pages) +    \
	   63u) &                                                                                  \
	  ~(size_t)63u) +                                                                          \
	 (size_t)(n_pages) * (size_t)(max_page_bytes) +                                            \
	 (size_t)80u * (((size_t)(n_pages) * (size_t)(max_page_bytes)) >> 25) + (size_t)144u)

/*
 * splitzip_pages_bound() returns SPLITZIP_PAGES_BOUND(n_pages, max_page_bytes): a 'dst_cap'
 * that always suffices for splitzip_pages_compress() and splitzip_pages_compress_async(). It
 * returns 0 if n_pages exceeds SPLITZIP_PAGES_MAX_PAGES, max_page_bytes exceeds
 * SPLITZIP_PAGES_MAX_PAGE_BYTES, or the bound does not fit in a size_t.
 */
SPLITZIP_API size_t splitzip_pages_bound(size_t n_pages, size_t max_page_bytes);

/*
 * splitzip_pages_compress() packs 'n_pages' pages into one page stream at 'dst' ('dst_cap'
 * bytes) and stores its size in '*dst_size'. Page i is page_bytes[i] bytes at pages[i] (host
 * memory, 2-byte aligned, little-endian BF16 values; pages may have different sizes, a size
 * may be 0 and then pages[i] may be NULL; no page is written). The context gives the frame
 * parameters: its encoding (SPLIT4, ENTROPY or AUTO), chunk_log2, and the codebook
 * (codebook_mode/codebook) or entropy table (table_mode/table), each from the pages or fixed;
 * its SPLITZIP_FLAG_CONTENT_CHECKSUM flag is not used: streams carry checksums unless
 * 'options' has SPLITZIP_PAGES_NO_CHECKSUM. A page travels raw when its frame would not be
 * smaller (doc/FORMAT.md §12.4). 'table_id' is the caller's name for a fixed codebook or table
 * (e.g. a hash of the model), written to the header; it must be 0 unless the table of the
 * chosen encoding is fixed (for AUTO: both). A dst_cap of splitzip_pages_bound(n_pages, largest
 * page) always suffices. The stream is canonical: the same bytes from every backend and thread
 * count, and from splitzip_pages_compress_async(). A context bound to a GPU backend works too:
 * host memory is packed on the CPU by the best host backend (the same bytes), with the
 * context's parameters.
 * Errors: INVALID_ARGUMENT (NULL ctx/dst/dst_size, pages or page_bytes NULL with n_pages > 0,
 * a NULL or misaligned page of nonzero size, an odd page size, a page above
 * SPLITZIP_PAGES_MAX_PAGE_BYTES, n_pages above SPLITZIP_PAGES_MAX_PAGES, unknown options, a
 * nonzero table_id without a fixed table), DST_TOO_SMALL, OUT_OF_MEMORY, DEVICE. On error
 * the contents of dst are unspecified.
 */
SPLITZIP_API splitzip_status splitzip_pages_compress(splitzip_ctx *ctx, uint32_t table_id,
                                                     unsigned options, size_t n_pages,
                                                     const void *const *pages,
                                                     const size_t *page_bytes, void *dst,
                                                     size_t dst_cap, size_t *dst_size);

/*
 * splitzip_pages_bound_dtype() is splitzip_pages_bound() for pages of elements of 'dtype' (a
 * splitzip_dtype): a stream has a frame per 2^24 elements, so the bound per byte depends on
 * the element width (doc/FORMAT.md §12.4); for BF16 and FP16 it equals splitzip_pages_bound().
 * Returns 0 for an unknown dtype, n_pages above SPLITZIP_PAGES_MAX_PAGES, a page of more than
 * 2^31 - 1 elements, or a bound that does not fit in a size_t.
 */
SPLITZIP_API size_t splitzip_pages_bound_dtype(unsigned dtype, size_t n_pages,
                                               size_t max_page_bytes);

/*
 * splitzip_pages_compress_dtype() is splitzip_pages_compress() for pages of elements of 'dtype'
 * (splitzip_dtype): for SPLITZIP_DTYPE_BF16 it is splitzip_pages_compress() (a version 2
 * stream); for FP8 E4M3, FP8 E5M2, FP16 and FP32 it writes a version 3 stream, which names the
 * dtype in its header (doc/FORMAT.md §12): the same layout, the raw rule of the dtype, and
 * frames of that dtype. Page i is page_bytes[i] bytes at pages[i] (host memory, any alignment,
 * little-endian elements; page_bytes[i] a multiple of the element width, at most 2^31 - 1
 * elements). The context's parameters apply as for BF16 pages; a fixed codebook or table must
 * be valid for the dtype (exponents below 2^e, doc/FORMAT.md §6.1). FP8 E4M3 has no split4
 * mode: the SPLIT4 encoding is INVALID_ARGUMENT and AUTO is the entropy encoding. The frames
 * are coded by the portable codec of every host backend, one thread per call: the same bytes
 * on every backend. Temporary memory: a byte per element, one frame's elements (at most
 * w 2^24 bytes) and, for AUTO, one more stream of the bound's size. A dst_cap of
 * splitzip_pages_bound_dtype(dtype, n_pages, largest page) always suffices. A context bound to a
 * GPU backend works too (host memory, coded on the CPU); its *_async page calls code BF16 pages
 * only. Errors: those of splitzip_pages_compress() (a page size that is not a multiple of the width
 * is INVALID_ARGUMENT), INVALID_ARGUMENT (an unknown dtype; SPLIT4 for E4M3), BAD_CODEBOOK (a
 * fixed codebook or table not valid for the dtype). On error dst's contents are unspecified.
 */
SPLITZIP_API splitzip_status splitzip_pages_compress_dtype(splitzip_ctx *ctx, unsigned dtype,
                                                           uint32_t table_id, unsigned options,
                                                           size_t n_pages, const void *const *pages,
                                                           const size_t *page_bytes, void *dst,
                                                           size_t dst_cap, size_t *dst_size);

/* What splitzip_pages_get_info() reports about a stream (its header). */
typedef struct splitzip_pages_info {
	unsigned format_version;   /* SPLITZIP_PAGES_FORMAT_VERSION, or _VERSION_DTYPE (3) */
	unsigned flags;            /* SPLITZIP_PAGES_FLAG_* */
	splitzip_mode encoding;    /* SPLITZIP_MODE_SPLIT4 or SPLITZIP_MODE_ENTROPY */
	unsigned chunk_log2;       /* of the frames */
	uint64_t n_pages;          /* Page_Count */
	uint64_t stream_size;      /* bytes of the whole stream, header included */
	uint64_t total_page_bytes; /* sum of the page sizes */
	uint64_t frames_size;      /* bytes of the frames section */
	uint32_t table_id;         /* the caller's name of a fixed table; 0 without one */
	unsigned dtype;            /* the pages' splitzip_dtype: BF16 in version 2 */
} splitzip_pages_info;

/* One page table entry, as splitzip_pages_get_manifest() reports it. */
typedef struct splitzip_page_entry {
	uint64_t page_bytes; /* bytes of the page */
	unsigned encoding;   /* splitzip_page_encoding */
	/* Where its bytes are: offset among the coded elements (FRAME: element 0 of frame 0 is
	 * 0) or among the raw bytes (RAW: byte 0 of the raw section is 0). */
	uint64_t position;
} splitzip_page_entry;

/*
 * splitzip_pages_get_info() reads the 64-byte header of the page stream at 'src' ('src_size'
 * bytes available, at least 64 needed) and validates it alone (doc/FORMAT.md §12.5 steps 0-6):
 * a streaming receiver learns info->stream_size and info->n_pages from the first 64 bytes.
 * Nothing beyond the header is read or checked.
 * Streams of every dtype are read (version 2: BF16 pages; version 3: info->dtype).
 * Errors: INVALID_ARGUMENT (NULL), BAD_MAGIC (not a page stream), TRUNCATED (fewer than 64
 * bytes that begin like a stream), UNSUPPORTED_FORMAT (another version: version 1 streams are
 * no longer read; an unknown encoding or dtype, split4 for E4M3), HEADER_CHECKSUM,
 * CORRUPT_STREAM (a field out of range; version 3 naming BF16).
 */
SPLITZIP_API splitzip_status splitzip_pages_get_info(const void *src, size_t src_size,
                                                     splitzip_pages_info *info);

/*
 * splitzip_pages_get_manifest() validates the structure of the whole stream at 'src' (header,
 * table checksum, page table, padding, every frame header and the one table: §12.5 steps 0-10;
 * frame bodies are not decoded) and stores the first min(n_pages, max_entries) page table
 * entries in 'entries' (may be NULL when max_entries is 0) and the stream's page count in
 * '*n_pages' (may be NULL). Bytes after info.stream_size are ignored.
 * Errors: those of splitzip_pages_get_info(), TRUNCATED (src_size below the stream size),
 * HEADER_CHECKSUM (the table checksum, or a frame header's), UNSUPPORTED_FORMAT (a frame of a
 * later format), CORRUPT_STREAM (a total, padding byte, frame header or table that breaks the
 * rules).
 */
SPLITZIP_API splitzip_status splitzip_pages_get_manifest(const void *src, size_t src_size,
                                                         splitzip_page_entry *entries,
                                                         size_t max_entries, uint64_t *n_pages);

/*
 * splitzip_pages_decompress() validates the page stream at 'src' ('src_size' bytes; bytes after
 * the stream's own size are ignored) and scatters its pages into host memory: page i of the
 * stream goes to pages[i], which has room for page_caps[i] bytes (2-byte aligned for a stream
 * of BF16 pages, any alignment for the other dtypes). Streams of every dtype are decoded
 * (splitzip_pages_get_info() tells which; sizes are in bytes either way). Without
 * options the stream may hold fewer pages than 'n_pages' and smaller pages than the
 * capacities; with SPLITZIP_PAGES_EXACT it must hold exactly those (else GEOMETRY, after the
 * structural checks, before anything is written). '*n_pages_out' receives its page count,
 * page_sizes[i] (may be NULL, else n_pages entries) the bytes of page i in the stream (0 beyond the
 * stream's pages), and page_states[i] (may be NULL, else n_pages entries) a splitzip_page_state:
 * what was done to destination i, on success and on failure alike. Order: the structural checks of
 * splitzip_pages_get_manifest(), then the destinations (more pages than 'n_pages', or a page larger
 * than its capacity: DST_TOO_SMALL); only then is anything written: the frames in order, each
 * decoded and validated as splitzip_frame_decompress() does (content checksum included) straight
 * into the pages it covers; then the raw pages, after their checksum. So on a failing frame, the
 * pages of earlier frames are WRITTEN, those the failing frame covers DAMAGED, the rest UNTOUCHED.
 * Never reads outside src[0..src_size) nor writes outside pages[i][0..page_caps[i]).
 * Errors: INVALID_ARGUMENT (NULL ctx/src/n_pages_out, pages or page_caps NULL with n_pages > 0,
 * a NULL page with a nonzero capacity, a misaligned one for BF16 pages, unknown options),
 * every status of
 * splitzip_pages_get_manifest(), DST_TOO_SMALL, GEOMETRY, CORRUPT_STREAM and CONTENT_CHECKSUM
 * (a frame body, the raw pages' checksum), OUT_OF_MEMORY, DEVICE.
 */
SPLITZIP_API splitzip_status splitzip_pages_decompress(splitzip_ctx *ctx, const void *src,
                                                       size_t src_size, size_t n_pages,
                                                       void *const *pages, const size_t *page_caps,
                                                       unsigned options, size_t *page_sizes,
                                                       uint8_t *page_states, size_t *n_pages_out);

/*
 * Device memory (CUDA / HIP): the same streams, with the contract of the *_async calls above
 * (device pointers, caller-owned workspace and results, stream-ordered, no allocation, no copy
 * to or from the host, no host synchronisation: capturable in a graph). Results, sizes
 * included, are written to device memory, so a sender learns the stream size without a host
 * sync (a transfer engine can read *d_dst_size itself, or the caller copies it asynchronously).
 */

/*
 * splitzip_pages_workspace_size() stores in '*bytes' the device workspace that one
 * splitzip_pages_compress_async() or splitzip_pages_decompress_async() of up to 'n_pages'
 * pages of up to 'max_page_bytes' bytes each needs with this context's parameters (aligned
 * to SPLITZIP_WORKSPACE_ALIGN, like every device workspace).
 * Errors: INVALID_ARGUMENT (NULL, n_pages or max_page_bytes above the limits, a size that
 * overflows size_t).
 */
SPLITZIP_API splitzip_status splitzip_pages_workspace_size(const splitzip_ctx *ctx, size_t n_pages,
                                                           size_t max_page_bytes, size_t *bytes);

/*
 * splitzip_pages_compress_async() enqueues the packing of 'n_pages' device pages into one page
 * stream at 'd_dst' ('dst_cap' bytes; splitzip_pages_bound(n_pages, max_page_bytes) always
 * suffices), with the parameters and options of splitzip_pages_compress(). d_pages and
 * d_page_bytes are device arrays of n_pages entries (pointers, sizes in bytes);
 * 'max_page_bytes' bounds every size (the host needs it to size the launch and the
 * workspace). When the kernels run they write the stream (the same bytes as
 * splitzip_pages_compress()), its size to '*d_dst_size' and the status to '*d_status': OK,
 * INVALID_ARGUMENT (a page above max_page_bytes, of odd size, or NULL with a nonzero size) or
 * DST_TOO_SMALL; on error the size is 0. Host-checked errors as for every *_async call
 * (alignment of the workspace, the arrays and the result slots included), plus
 * INVALID_ARGUMENT for unknown options and a nonzero table_id without a fixed table.
 */
SPLITZIP_API splitzip_status splitzip_pages_compress_async(
    splitzip_ctx *ctx, uint32_t table_id, unsigned options, size_t n_pages,
    const void *const *d_pages, const size_t *d_page_bytes, size_t max_page_bytes, void *d_dst,
    size_t dst_cap, size_t *d_dst_size, int32_t *d_status, void *d_workspace, size_t ws_bytes,
    void *stream);

/*
 * splitzip_pages_decompress_async() enqueues the validation of the page stream at 'd_src'
 * ('src_size' bytes available, e.g. what the transport received) and the scatter of its pages
 * into d_pages[i] (room for d_page_caps[i] bytes, at most 'max_page_bytes'; device arrays of
 * 'n_pages' entries), with the options of splitzip_pages_decompress(). It writes the stream's page
 * count to '*d_n_pages', the bytes of each page to d_page_sizes[i] (may be NULL; 0 beyond the
 * stream's pages), a splitzip_page_state per page to d_page_states[i] (may be NULL) and the status
 * to '*d_status': exactly the status, sizes and states splitzip_pages_decompress() gives for the
 * same bytes and capacities, from the same checks in the same order; nothing is written to any page
 * unless the structural and destination checks pass.
 */
SPLITZIP_API splitzip_status splitzip_pages_decompress_async(
    splitzip_ctx *ctx, const void *d_src, size_t src_size, size_t n_pages, void *const *d_pages,
    const size_t *d_page_caps, size_t max_page_bytes, unsigned options, size_t *d_page_sizes,
    uint8_t *d_page_states, size_t *d_n_pages, int32_t *d_status, void *d_workspace,
    size_t ws_bytes, void *stream);

/*
 * The workspace of one direction only, when a side only sends or only receives:
 * splitzip_pages_compress_workspace_size() for splitzip_pages_compress_async() and
 * splitzip_pages_compress_pool_async() (it depends on the context's encoding and chunk_log2),
 * splitzip_pages_decompress_workspace_size() for the decompressions. Each is at most
 * splitzip_pages_workspace_size(). Compression needs about 2 bytes per page byte for the
 * coded pages, plus as much again per candidate encoding (AUTO encodes both) for its frames;
 * decompression about 1 byte per destination byte. Errors as splitzip_pages_workspace_size().
 */
SPLITZIP_API splitzip_status splitzip_pages_compress_workspace_size(const splitzip_ctx *ctx,
                                                                    size_t n_pages,
                                                                    size_t max_page_bytes,
                                                                    size_t *bytes);
SPLITZIP_API splitzip_status splitzip_pages_decompress_workspace_size(const splitzip_ctx *ctx,
                                                                      size_t n_pages,
                                                                      size_t max_page_bytes,
                                                                      size_t *bytes);

/*
 * The same calls on a paged KV cache as it lies in device memory, with nothing to build on the
 * host: a pool of 'pool_bytes' bytes at d_pool whose page k starts at d_pool + k * page_stride
 * and is 'page_bytes' long (even; every page of the call has that size, the role of
 * max_page_bytes), and a device array d_indices of n_pages int64 entries naming the pool pages
 * of the call in order (a request's block table, kv_indices). Page i of the stream is pool page
 * d_indices[i]. An index that is negative or whose page does not lie inside the pool makes the
 * kernels' status INVALID_ARGUMENT (nothing written); d_pool 2-byte aligned and d_indices
 * 8-byte aligned (host-checked, INVALID_ARGUMENT). Decompression writes pool pages: they must
 * not overlap (a page_stride below page_bytes with more than one page is INVALID_ARGUMENT;
 * repeated indices are the caller's error, like overlapping memcpy destinations), and each has
 * a capacity of page_bytes. The streams are those of the pointer-array calls for the same
 * pages. Workspace: splitzip_pages_workspace_size(ctx, n_pages, page_bytes).
 */
SPLITZIP_API splitzip_status splitzip_pages_compress_pool_async(
    splitzip_ctx *ctx, uint32_t table_id, unsigned options, size_t n_pages, const void *d_pool,
    size_t pool_bytes, size_t page_stride, size_t page_bytes, const int64_t *d_indices, void *d_dst,
    size_t dst_cap, size_t *d_dst_size, int32_t *d_status, void *d_workspace, size_t ws_bytes,
    void *stream);
SPLITZIP_API splitzip_status splitzip_pages_decompress_pool_async(
    splitzip_ctx *ctx, const void *d_src, size_t src_size, size_t n_pages, void *d_pool,
    size_t pool_bytes, size_t page_stride, size_t page_bytes, const int64_t *d_indices,
    unsigned options, size_t *d_page_sizes, uint8_t *d_page_states, size_t *d_n_pages,
    int32_t *d_status, void *d_workspace, size_t ws_bytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SPLITZIP_H */
