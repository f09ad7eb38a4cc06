/*
 * sz_dtype_layout.h -- the byte-layout decisions of the dtypes of doc/FORMAT.md 1.3 (§2.2-§2.3,
 * §3.2, §4.2, §4.3.2) as static inline helpers for host code and CUDA/HIP device code, as
 * core/sz_layout.h is for BF16: the dtype table, element fields and joins, rest sections, the
 * section offsets of split4 and entropy frames, and the header rules of Dtype 2-5.
 *
 * The portable encoder and decoder (sz_dtype.c, sz_dtype_codec.c) and the GPU kernels of the
 * dtypes (backends/gpu/sz_gpu_dtype*.cuh) call these, so they cannot disagree on an offset.
 */
#ifndef SZ_DTYPE_LAYOUT_H
#define SZ_DTYPE_LAYOUT_H

#include "sz_layout.h"

/* Rest sections (FORMAT.md §2.3). */
enum { SZ_REST_SM, SZ_REST_LO8, SZ_REST_LO16, SZ_REST_NIB, SZ_REST_PL3 };

/* One row of the dtype table of FORMAT.md §2.2. */
typedef struct splitzip_dtype_desc {
	unsigned code;    /* Dtype */
	unsigned width;   /* w, bytes per element */
	unsigned ebits;   /* e, exponent bits */
	int split4;       /* mode 1 defined */
	unsigned n_rest;  /* rest sections */
	unsigned rest[2]; /* SZ_REST_*, in frame order */
} splitzip_dtype_desc;

/* The table of FORMAT.md §2.2, once: X(code, w, e, split4, sections, rest 0, rest 1). */
#define SZ_DTYPE_ROWS(X)                                                                           \
	X(1, 2, 8, 1, 1, SZ_REST_SM, 0)                                                            \
	X(2, 1, 4, 0, 1, SZ_REST_NIB, 0)                                                           \
	X(3, 1, 5, 1, 1, SZ_REST_PL3, 0)                                                           \
	X(4, 2, 5, 1, 2, SZ_REST_PL3, SZ_REST_LO8)                                                 \
	X(5, 4, 8, 1, 2, SZ_REST_SM, SZ_REST_LO16)

/* The row of Dtype 'code' into *d (1), or 0 for a reserved value (d untouched). */
SPLITZIP_HD int sz_dt_desc_get(unsigned code, splitzip_dtype_desc *d)
{
	switch (code) {
#define SZ_DT_CASE(c, w, e, s4, nr, r0, r1)                                                        \
	case c:                                                                                    \
		d->code = c;                                                                       \
		d->width = w;                                                                      \
		d->ebits = e;                                                                      \
		d->split4 = s4;                                                                    \
		d->n_rest = nr;                                                                    \
		d->rest[0] = r0;                                                                   \
		d->rest[1] = r1;                                                                   \
		return 1;
		SZ_DTYPE_ROWS(SZ_DT_CASE)
#undef SZ_DT_CASE
	default:
		return 0;
	}
}

/* ---- Element fields (§2.2) ----------------------------------------------------------------- */

/* The exponent of pattern v of dtype 'code'. */
SPLITZIP_HD unsigned sz_dt_exponent_of(unsigned code, uint32_t v)
{
	switch (code) {
	case 1:
		return (v >> 7) & 0xFF;
	case 2:
		return (v >> 3) & 0x0F;
	case 3:
		return (v >> 2) & 0x1F;
	case 4:
		return (v >> 10) & 0x1F;
	default:
		return (v >> 23) & 0xFF;
	}
}

SPLITZIP_HD unsigned sz_dt_pl3_of(uint32_t b)
{
	return ((b >> 5) & 0x4) | (b & 0x3);
}

/* The rest field of section k (0 or 1) of pattern v of dtype 'code'. */
SPLITZIP_HD unsigned sz_dt_rest_of(unsigned code, unsigned k, uint32_t v)
{
	switch (code) {
	case 1:
		return ((v >> 8) & 0x80) | (v & 0x7F);
	case 2:
		return ((v >> 4) & 0x8) | (v & 0x7);
	case 3:
		return sz_dt_pl3_of(v);
	case 4:
		return k == 0 ? sz_dt_pl3_of(v >> 8) : (v & 0xFF);
	default:
		return k == 0 ? (((v >> 24) & 0x80) | ((v >> 16) & 0x7F)) : (v & 0xFFFF);
	}
}

/* The pattern of dtype 'code' with exponent x and rest fields r0 (section 0) and r1 (section 1;
 * 0 for the dtypes with one section): join(exponent(v), rest(v)) == v for every pattern. */
SPLITZIP_HD uint32_t sz_dt_join_of(unsigned code, unsigned x, unsigned r0, unsigned r1)
{
	switch (code) {
	case 1:
		return ((r0 & 0x80u) << 8) | (x << 7) | (r0 & 0x7Fu);
	case 2:
		return ((r0 & 0x8u) << 4) | (x << 3) | (r0 & 0x7u);
	case 3:
		return ((r0 & 0x4u) << 5) | (x << 2) | (r0 & 0x3u);
	case 4:
		return ((((r0 & 0x4u) << 5) | (x << 2) | (r0 & 0x3u)) << 8) | r1;
	default:
		return ((((r0 & 0x80u) << 8) | (x << 7) | (r0 & 0x7Fu)) << 16) | r1;
	}
}

/* ---- Rest sections and layouts (§2.3, §4.2, §4.3.2) ---------------------------------------- */

/* Bytes of a rest section of kind 'kind' for n elements. */
SPLITZIP_HD uint64_t sz_dt_rest_size(unsigned kind, uint64_t n)
{
	switch (kind) {
	case SZ_REST_SM:
	case SZ_REST_LO8:
		return n;
	case SZ_REST_LO16:
		return 2 * n;
	case SZ_REST_NIB:
		return (n + 1) / 2;
	default:
		return 24 * ((n + 63) / 64);
	}
}

/* The stored frame size of n elements: 64 + align16(w n). */
SPLITZIP_HD uint64_t sz_dt_stored_size(const splitzip_dtype_desc *d, uint64_t n)
{
	return SPLITZIP_FRAME_HEADER_SIZE + splitzip_align16(d->width * n);
}

/* Section offsets of a split4 or entropy frame of a dtype (FORMAT.md §4.2, §4.3.2). */
typedef struct sz_dt_layout {
	uint64_t codes;       /* split4: the 4-bit codes */
	uint64_t rest[2];     /* rest sections */
	uint64_t rest_end[2]; /* their ends */
	uint64_t lengths;     /* entropy: the code lengths */
	uint64_t table;       /* the chunk table */
	uint64_t positions;   /* split4: escape positions */
	uint64_t exponents;   /* split4: escape exponents */
	uint64_t stream;      /* entropy: the words */
	uint64_t size;        /* Frame_Size */
	uint64_t n_chunks;
} sz_dt_layout;

/* The rest sections from 'start' (a multiple of 16) into L; returns the end of the last one. */
SPLITZIP_HD uint64_t sz_dt_rest_layout(const splitzip_dtype_desc *d, uint64_t n, uint64_t start,
                                       sz_dt_layout *L)
{
	/* Two explicit steps, no loop: an array indexed at run time went to scratch memory on
	 * the GPU (every dtype has one or two sections). */
	L->rest[0] = splitzip_align16(start);
	L->rest_end[0] = L->rest[0] + sz_dt_rest_size(d->rest[0], n);
	L->rest[1] = L->rest_end[1] = 0;
	if (d->n_rest < 2)
		return L->rest_end[0];
	L->rest[1] = splitzip_align16(L->rest_end[0]);
	L->rest_end[1] = L->rest[1] + sz_dt_rest_size(d->rest[1], n);
	return L->rest_end[1];
}

/* The layout of a split4 frame of n elements, chunks of 2^log2, E escapes. */
SPLITZIP_HD void sz_dt_split4_layout(const splitzip_dtype_desc *d, uint64_t n, unsigned log2,
                                     uint64_t E, sz_dt_layout *L)
{
	L->codes = SPLITZIP_FRAME_HEADER_SIZE;
	L->lengths = L->stream = 0;
	const uint64_t codes_end = L->codes + (n + 1) / 2;
	const uint64_t r = sz_dt_rest_layout(d, n, splitzip_align16(codes_end), L);
	L->n_chunks = splitzip_n_chunks(n, log2);
	L->table = splitzip_align16(r);
	L->positions = splitzip_align16(L->table + 4 * L->n_chunks);
	L->exponents = splitzip_align16(L->positions + 2 * E);
	L->size = splitzip_align16(L->exponents + E);
}

/* The layout of an entropy frame of n elements, chunks of 2^log2, W words, exponents
 * first..last in the code-length section. */
SPLITZIP_HD void sz_dt_entropy_layout(const splitzip_dtype_desc *d, uint64_t n, unsigned log2,
                                      uint64_t W, unsigned first, unsigned last, sz_dt_layout *L)
{
	L->codes = L->positions = L->exponents = 0;
	const uint64_t r = sz_dt_rest_layout(d, n, SPLITZIP_FRAME_HEADER_SIZE, L);
	L->n_chunks = splitzip_n_chunks(n, log2);
	L->lengths = splitzip_align16(r);
	const uint64_t K = splitzip_entropy_nibbles(first, last);
	L->table = splitzip_align16(L->lengths + (K + 1) / 2);
	L->stream = splitzip_align16(L->table + 4 * L->n_chunks);
	L->size = splitzip_align16(L->stream + 2 * W);
}

/* ---- Header (§3.2) ------------------------------------------------------------------------- */

/* Step 10 for a split4 frame of a dtype, and its size. */
SPLITZIP_HD int sz_dt_header_split4(const splitzip_dtype_desc *d, const splitzip_header *f,
                                    uint64_t *size)
{
	for (unsigned i = 1; i < 16; i++)
		if (f->codebook[i] <= f->codebook[i - 1])
			return SZ_HDR_CORRUPT;
	if (f->codebook[15] >= (1u << d->ebits) || f->n_escapes > f->n_elems)
		return SZ_HDR_CORRUPT;
	sz_dt_layout L;
	sz_dt_split4_layout(d, f->n_elems, f->chunk_log2, f->n_escapes, &L);
	if (L.size >= sz_dt_stored_size(d, f->n_elems))
		return SZ_HDR_CORRUPT;
	*size = L.size;
	return SZ_HDR_OK;
}

/* Step 10 for an entropy frame of a dtype, and its size. */
SPLITZIP_HD int sz_dt_header_entropy(const splitzip_dtype_desc *d, const splitzip_header *f,
                                     uint64_t *size)
{
	if (splitzip_header_entropy_fields(f, (1u << d->ebits) - 1) != SZ_HDR_OK)
		return SZ_HDR_CORRUPT;
	sz_dt_layout L;
	sz_dt_entropy_layout(d, f->n_elems, f->chunk_log2, f->n_words, f->table_first,
	                     f->table_last, &L);
	if (L.size >= sz_dt_stored_size(d, f->n_elems))
		return SZ_HDR_CORRUPT;
	*size = L.size;
	return SZ_HDR_OK;
}

/* Steps 4-11 for Dtype 2-5 on header bytes h, the fields already read by
 * splitzip_header_parse_checked() into f. */
SPLITZIP_HD int sz_dt_header_rules(const uint8_t *h, splitzip_header *f)
{
	splitzip_dtype_desc d;
	if (!sz_dt_desc_get(f->dtype, &d) || f->mode > SPLITZIP_MODE_ENTROPY ||
	    (f->mode == SPLITZIP_MODE_SPLIT4 && !d.split4))
		return SZ_HDR_UNSUPPORTED;
	if (splitzip_header_common_fields(h, f->flags, f->chunk_log2, f->n_elems,
	                                  f->content_checksum) != SZ_HDR_OK)
		return SZ_HDR_CORRUPT;
	uint64_t expect = 0;
	int r;
	if (f->mode == SPLITZIP_MODE_STORED) {
		r = splitzip_header_stored(f, &expect);
		expect = sz_dt_stored_size(&d, f->n_elems);
	} else {
		r = f->mode == SPLITZIP_MODE_SPLIT4 ? sz_dt_header_split4(&d, f, &expect)
		                                    : sz_dt_header_entropy(&d, f, &expect);
	}
	if (r != SZ_HDR_OK)
		return r;
	return f->frame_size == expect ? SZ_HDR_OK : SZ_HDR_CORRUPT;
}

/*
 * FORMAT.md §3.2 steps 0-11 on the 64 header bytes at h of a frame of any dtype, with the
 * header checksum of bytes 0..59 given ('checksum': GPU code computes it with a warp): BF16
 * frames exactly as splitzip_header_parse_checked(), the other dtypes with their rules and
 * sizes. splitzip_header_parse_checked() reads every field before it rejects a Dtype other
 * than BF16; a version above 1 is rejected before, and stays unsupported.
 */
SPLITZIP_HD int sz_dt_header_parse_checked(const uint8_t *h, uint32_t checksum, splitzip_header *f)
{
	const int r = splitzip_header_parse_checked(h, checksum, f);
	if (r != SZ_HDR_UNSUPPORTED || h[SZ_H_VERSION] != SPLITZIP_FORMAT_VERSION ||
	    f->dtype == SPLITZIP_DTYPE_BF16)
		return r;
	return sz_dt_header_rules(h, f);
}

#endif /* SZ_DTYPE_LAYOUT_H */
