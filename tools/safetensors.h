/*
 * safetensors.h -- safetensors files and the splitzip safetensors container (doc/FORMAT.md
 * §11) for the CLI's pack, unpack, info and stats: a strict JSON reader (st_json.c), the
 * safetensors header parser and validator (safetensors.c), the container's header and tensor
 * table, and CRC-32 (szst.c). Pure functions over memory: no I/O and no messages, so that the
 * fuzz target (tests/fuzz/fuzz_safetensors.c) can call them directly. python/splitzip/
 * safetensors.py implements the same rules; the tests check that both agree.
 */
#ifndef SPLITZIP_SAFETENSORS_H
#define SPLITZIP_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

/* Why a safetensors file or a container is rejected (FORMAT.md §11.6); names in st_errors[]. */
typedef enum st_error {
	ST_OK = 0,
	/* safetensors file */
	ST_TRUNCATED_HEADER, /* shorter than 8 bytes, or than 8 + its header size */
	ST_HEADER_TOO_LARGE, /* header size above ST_MAX_HEADER */
	ST_BAD_JSON,         /* not one JSON value (syntax, UTF-8, nesting deeper than 64) */
	ST_BAD_HEADER,       /* JSON, but not a safetensors header (types, fields, ranges) */
	ST_DUPLICATE_NAME,   /* two tensors (or two __metadata__) with one name */
	ST_BAD_SHAPE,        /* > 64 dimensions, element count overflow, size != shape x dtype */
	ST_BAD_OFFSETS,      /* data_offsets begin > end, or end past the data */
	ST_OVERLAP,          /* two tensors share data bytes */
	ST_GAP,              /* data bytes that no tensor covers */
	/* container */
	ST_BAD_MAGIC,           /* not a splitzip safetensors container */
	ST_UNSUPPORTED_VERSION, /* a later container version */
	ST_HEADER_CHECKSUM,     /* container header damaged */
	ST_CORRUPT,             /* a field out of range, nonzero padding or reserved bytes */
	ST_TRUNCATED,           /* the file ends before the container does */
	ST_METADATA_CHECKSUM,   /* stored safetensors header or tensor table damaged */
	ST_BAD_TABLE,           /* the tensor table does not match the stored header */
	ST_TENSOR_CHECKSUM,     /* a tensor stored as is does not match its checksum */
	ST_ELEMENT_COUNT,       /* a tensor's frames decode to another number of elements */
	ST_OUT_OF_MEMORY,
	ST_N_ERRORS
} st_error;

const char *st_error_name(st_error e);   /* "BAD_JSON" */
const char *st_error_string(st_error e); /* "invalid JSON in the safetensors header" */

#define ST_MAX_HEADER 100000000u /* the safetensors limit on the JSON header */
#define ST_MAX_DIMS 64
#define ST_MAX_DEPTH 64 /* JSON nesting */

/* ---- st_json.c: strict JSON (RFC 8259) over a buffer the caller owns ---- */

typedef struct jcur {
	unsigned char *p, *end;
} jcur;

/* 1 if s[0..n) is one JSON value between optional whitespace, with valid UTF-8 strings (no
 * lone surrogate escapes) nested at most ST_MAX_DEPTH deep. */
int json_valid(const unsigned char *s, size_t n);
/* On checked JSON: skip whitespace and return the next byte (-1 at the end); consume 'ch'. */
int json_peek(jcur *c);
int json_eat(jcur *c, int ch);
/* Decode the string at the cursor in place (NUL-terminated) and return it; '*len' gets its
 * length, which exceeds strlen() when it holds U+0000. NULL if no string is there. */
char *json_string(jcur *c, size_t *len);
/* A non-negative integer (digits only): 1, 0 if the value is another kind or above 2^64-1. */
int json_uint(jcur *c, uint64_t *v);
void json_skip(jcur *c);

/* ---- safetensors.c: the header ---- */

typedef struct st_tensor {
	const char *name, *dtype; /* in st_header.text */
	size_t dims_at, ndim;     /* dimensions: st_header.dims[dims_at .. dims_at + ndim) */
	uint64_t n_elems;         /* product of the shape */
	uint64_t begin, end;      /* data_offsets, in bytes of the data buffer */
	uint32_t json_index;      /* position in the header */
} st_tensor;

typedef struct st_header {
	char *text; /* a copy of the JSON, strings decoded in place */
	st_tensor *t;
	size_t n, cap; /* tensors; after st_parse, sorted by (begin, end, json_index) */
	uint64_t *dims;
	size_t n_dims, cap_dims;
	uint64_t data_size;
	char detail[200]; /* what st_parse found wrong, for messages */
} st_header;

/*
 * Parse and validate the JSON header (len bytes) of a safetensors file whose data buffer has
 * data_size bytes, in the order of FORMAT.md §11.2. On ST_OK the tensors tile the data buffer
 * in h->t order. st_free() in every case.
 */
st_error st_parse(st_header *h, const unsigned char *json, size_t len, uint64_t data_size);
void st_free(st_header *h);
/* Bytes per element of a known dtype, 0 for others (their sizes are not checked). */
unsigned st_elem_size(const char *dtype);
int st_is_bf16(const st_tensor *t);
/* The Dtype of the frames of a tensor stored as frames (FORMAT.md §11.5; the values of
 * splitzip_dtype): BF16 1, F8_E4M3 2, F8_E5M2 3, F16 4, F32 5; 0 for every other dtype. */
unsigned st_frame_dtype(const st_tensor *t);
/* 's' with control bytes replaced by '?', truncated to fit 'cap' (for messages and tables). */
void st_printable(const char *s, char *buf, size_t cap);
/* "[4, 1024, 4, 16]" into buf (shortened with "..." if it does not fit). */
void st_shape_string(const st_header *h, const st_tensor *t, char *buf, size_t cap);

/* ---- szst.c: the container (FORMAT.md §11.3-§11.6) ---- */

#define SZST_MAGIC "SZST"
#define SZST_VERSION 2 /* the latest Container_Version: versions 1 and 2 are read */
#define SZST_HEADER_SIZE 64
#define SZST_ENTRY_SIZE 32
#define SZST_RAW 0    /* Encoding: the tensor's bytes as they are */
#define SZST_FRAMES 1 /* Encoding: splitzip frames (BF16 tensors; version 2: F16, F32, FP8) */

typedef struct szst_header {
	unsigned version;            /* Container_Version, 1 or 2 */
	uint32_t count;              /* Tensor_Count */
	uint64_t source_header_size; /* 8 + N: the safetensors bytes before the data */
	uint64_t source_size;        /* the safetensors file */
	uint64_t container_size;     /* this file */
	uint32_t meta_crc;           /* CRC-32 of bytes [64, data offset) */
} szst_header;

typedef struct szst_entry {
	unsigned encoding;
	uint32_t raw_crc; /* CRC-32 of the tensor (SZST_RAW), else 0 */
	uint64_t source_size, stored_offset, stored_size;
} szst_entry;

static inline uint64_t szst_align16(uint64_t x)
{
	return (x + 15) & ~(uint64_t)15;
}
static inline uint64_t szst_table_offset(const szst_header *h)
{
	return SZST_HEADER_SIZE + szst_align16(h->source_header_size);
}
static inline uint64_t szst_data_offset(const szst_header *h)
{
	return szst_table_offset(h) + (uint64_t)SZST_ENTRY_SIZE * h->count;
}

uint32_t crc32_update(uint32_t crc, const void *p, size_t n); /* CRC-32 (zlib's): 0 to start */
/* 1 if tensors of this dtype are frames only from container version 2 (F16, F32, F8_E4M3,
 * F8_E5M2). */
int szst_is_v2_dtype(const st_tensor *t);
/* The version pack writes for these tensors: 2 if one of them is such a tensor, else 1. */
unsigned szst_version_for(const st_header *sth);
/* The Encoding of tensor t in a container of 'version' (FORMAT.md §11.5). */
unsigned szst_encoding(const st_tensor *t, unsigned version);
void szst_write_header(unsigned char out[SZST_HEADER_SIZE], const szst_header *h);
/* Steps 1-7 of §11.6 on the first 'avail' bytes of a file of file_size bytes. */
st_error szst_read_header(const unsigned char *p, size_t avail, uint64_t file_size, szst_header *h);
void szst_write_entry(unsigned char *p, const szst_entry *e);
/*
 * Steps 8-11 of §11.6: 'meta' holds bytes [64, data offset) of the container. Checks the
 * metadata checksum and padding, parses the stored safetensors header into 'sth' and the
 * table into 'e' (h->count entries), and checks the table against the header.
 */
st_error szst_read_meta(const szst_header *h, const unsigned char *meta, st_header *sth,
                        szst_entry *e, char *detail, size_t cap);
/*
 * Lay out a new container: h->version, h->count, h->source_header_size and h->source_size set,
 * and for each entry its encoding, raw_crc, source_size and stored_size. Sets the stored offsets
 * and h->container_size, writes bytes [64, data offset) to 'meta' (the source header 'src_header',
 * padding, the table) and sets h->meta_crc; szst_write_header() then gives bytes [0, 64).
 */
void szst_build(szst_header *h, const unsigned char *src_header, szst_entry *e,
                unsigned char *meta);

#endif /* SPLITZIP_SAFETENSORS_H */
