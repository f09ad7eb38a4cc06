/*
 * sz_dtype.c -- the dtypes of FORMAT.md 1.3 (§2.2-§2.3): element fields, rest sections, the
 * frame layouts of every mode, and header validation (§3.2). The encoder and decoder are in
 * sz_dtype_codec.c.
 */
#include "sz_dtype_impl.h"

static const splitzip_dtype_desc sz_dtypes[5] = {
    {1, 2, 8, 1, 1, {SZ_REST_SM, 0}},
    {2, 1, 4, 0, 1, {SZ_REST_NIB, 0}},
    {3, 1, 5, 1, 1, {SZ_REST_PL3, 0}},
    {4, 2, 5, 1, 2, {SZ_REST_PL3, SZ_REST_LO8}},
    {5, 4, 8, 1, 2, {SZ_REST_SM, SZ_REST_LO16}},
};

const splitzip_dtype_desc *splitzip_dtype_desc_of(unsigned code)
{
	return code >= 1 && code <= 5 ? &sz_dtypes[code - 1] : NULL;
}

uint64_t splitzip_dtype_stored_size(const splitzip_dtype_desc *d, uint64_t n)
{
	return SPLITZIP_FRAME_HEADER_SIZE + splitzip_align16(d->width * n);
}

/* ---- Element fields (§2.2) ----------------------------------------------------------------- */

uint32_t sz_dt_load(const splitzip_dtype_desc *d, const uint8_t *p, uint64_t i)
{
	return (uint32_t)splitzip_get_u8s(p + d->width * i, d->width);
}

unsigned sz_dt_exponent(const splitzip_dtype_desc *d, uint32_t v)
{
	switch (d->code) {
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

static unsigned pl3_of(uint32_t b)
{
	return ((b >> 5) & 0x4) | (b & 0x3);
}

/* Rest field of section k (0 or 1) of element v. */
unsigned sz_dt_rest(const splitzip_dtype_desc *d, unsigned k, uint32_t v)
{
	switch (d->code) {
	case 2:
		return ((v >> 4) & 0x8) | (v & 0x7);
	case 3:
		return pl3_of(v);
	case 4:
		return k == 0 ? pl3_of(v >> 8) : (v & 0xFF);
	default:
		return k == 0 ? splitzip_bf16_signman((uint16_t)(v >> 16)) : (v & 0xFFFF);
	}
}

/* ---- Rest sections and layouts (§2.3, §4.2, §4.3.2) ---------------------------------------- */

uint64_t sz_dt_rest_size(unsigned kind, uint64_t n)
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

/* The rest sections from 'start' (a multiple of 16); returns the end of the last one. */
static uint64_t rest_layout(const splitzip_dtype_desc *d, uint64_t n, uint64_t start,
                            uint64_t off[2], uint64_t end[2])
{
	uint64_t o = start;
	for (unsigned k = 0; k < d->n_rest; k++) {
		off[k] = splitzip_align16(o);
		end[k] = off[k] + sz_dt_rest_size(d->rest[k], n);
		o = end[k];
	}
	return o;
}

void sz_dt_split4_layout(const splitzip_dtype_desc *d, uint64_t n, unsigned log2, uint64_t E,
                         sz_dt_layout *L)
{
	memset(L, 0, sizeof *L);
	L->codes = SPLITZIP_FRAME_HEADER_SIZE;
	const uint64_t codes_end = L->codes + (n + 1) / 2;
	const uint64_t r = rest_layout(d, n, splitzip_align16(codes_end), L->rest, L->rest_end);
	L->n_chunks = splitzip_n_chunks(n, log2);
	L->table = splitzip_align16(r);
	L->positions = splitzip_align16(L->table + 4 * L->n_chunks);
	L->exponents = splitzip_align16(L->positions + 2 * E);
	L->size = splitzip_align16(L->exponents + E);
}

void sz_dt_entropy_layout(const splitzip_dtype_desc *d, uint64_t n, unsigned log2, uint64_t W,
                          unsigned first, unsigned last, sz_dt_layout *L)
{
	memset(L, 0, sizeof *L);
	const uint64_t r = rest_layout(d, n, SPLITZIP_FRAME_HEADER_SIZE, L->rest, L->rest_end);
	L->n_chunks = splitzip_n_chunks(n, log2);
	L->lengths = splitzip_align16(r);
	const uint64_t K = splitzip_entropy_nibbles(first, last);
	L->table = splitzip_align16(L->lengths + (K + 1) / 2);
	L->stream = splitzip_align16(L->table + 4 * L->n_chunks);
	L->size = splitzip_align16(L->stream + 2 * W);
}

/* ---- Header (§3.2) ------------------------------------------------------------------------- */

/* Step 10 for a split4 frame of a dtype, and its size. */
static int header_split4(const splitzip_dtype_desc *d, const splitzip_header *f, uint64_t *size)
{
	for (unsigned i = 1; i < 16; i++)
		if (f->codebook[i] <= f->codebook[i - 1])
			return SZ_HDR_CORRUPT;
	if (f->codebook[15] >= (1u << d->ebits) || f->n_escapes > f->n_elems)
		return SZ_HDR_CORRUPT;
	sz_dt_layout L;
	sz_dt_split4_layout(d, f->n_elems, f->chunk_log2, f->n_escapes, &L);
	if (L.size >= splitzip_dtype_stored_size(d, f->n_elems))
		return SZ_HDR_CORRUPT;
	*size = L.size;
	return SZ_HDR_OK;
}

/* Step 10 for an entropy frame of a dtype, and its size. */
static int header_entropy(const splitzip_dtype_desc *d, const splitzip_header *f, uint64_t *size)
{
	if (splitzip_header_entropy_fields(f, (1u << d->ebits) - 1) != SZ_HDR_OK)
		return SZ_HDR_CORRUPT;
	sz_dt_layout L;
	sz_dt_entropy_layout(d, f->n_elems, f->chunk_log2, f->n_words, f->table_first,
	                     f->table_last, &L);
	if (L.size >= splitzip_dtype_stored_size(d, f->n_elems))
		return SZ_HDR_CORRUPT;
	*size = L.size;
	return SZ_HDR_OK;
}

/* Steps 4-11 for Dtype 2-5, the fields already read by splitzip_header_parse(). */
static int header_dtype(const uint8_t *h, splitzip_header *f)
{
	const splitzip_dtype_desc *d = splitzip_dtype_desc_of(f->dtype);
	if (!d || f->mode > SPLITZIP_MODE_ENTROPY ||
	    (f->mode == SPLITZIP_MODE_SPLIT4 && !d->split4))
		return SZ_HDR_UNSUPPORTED;
	if (splitzip_header_common_fields(h, f->flags, f->chunk_log2, f->n_elems,
	                                  f->content_checksum) != SZ_HDR_OK)
		return SZ_HDR_CORRUPT;
	uint64_t expect = 0;
	int r;
	if (f->mode == SPLITZIP_MODE_STORED) {
		r = splitzip_header_stored(f, &expect);
		expect = splitzip_dtype_stored_size(d, f->n_elems);
	} else {
		r = f->mode == SPLITZIP_MODE_SPLIT4 ? header_split4(d, f, &expect)
		                                    : header_entropy(d, f, &expect);
	}
	if (r != SZ_HDR_OK)
		return r;
	return f->frame_size == expect ? SZ_HDR_OK : SZ_HDR_CORRUPT;
}

splitzip_status splitzip_dtype_read_header(const uint8_t *src, uint64_t size, splitzip_header *h)
{
	splitzip_status st = splitzip_read_header(src, size, h);
	/* splitzip_header_parse() reads every field before it rejects a Dtype other than BF16; a
	 * version above 1 is rejected before, and stays unsupported. */
	if (st != SPLITZIP_ERROR_UNSUPPORTED_FORMAT ||
	    src[SZ_H_VERSION] != SPLITZIP_FORMAT_VERSION || h->dtype == SPLITZIP_DTYPE_BF16)
		return st;
	return splitzip_header_status(header_dtype(src, h));
}
