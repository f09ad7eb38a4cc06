/*
 * sz_dtype.c -- the dtypes of FORMAT.md 1.3 (§2.2-§2.3) for the host: the dtype table, element
 * access, and header validation (§3.2), on the rules of core/sz_dtype_layout.h (shared with
 * the GPU kernels). The encoder and decoder are in sz_dtype_codec.c.
 */
#include "sz_dtype_impl.h"

#define SZ_DT_ROW(c, w, e, s4, nr, r0, r1) {c, w, e, s4, nr, {r0, r1}},
static const splitzip_dtype_desc sz_dtypes[5] = {SZ_DTYPE_ROWS(SZ_DT_ROW)};
#undef SZ_DT_ROW

const splitzip_dtype_desc *splitzip_dtype_desc_of(unsigned code)
{
	return code >= 1 && code <= 5 ? &sz_dtypes[code - 1] : NULL;
}

uint64_t splitzip_dtype_stored_size(const splitzip_dtype_desc *d, uint64_t n)
{
	return sz_dt_stored_size(d, n);
}

/* ---- Element fields (§2.2; the rules are core/sz_dtype_layout.h's) ------------------------- */

uint32_t sz_dt_load(const splitzip_dtype_desc *d, const uint8_t *p, uint64_t i)
{
	return (uint32_t)splitzip_get_u8s(p + d->width * i, d->width);
}

unsigned sz_dt_exponent(const splitzip_dtype_desc *d, uint32_t v)
{
	return sz_dt_exponent_of(d->code, v);
}

unsigned sz_dt_rest(const splitzip_dtype_desc *d, unsigned k, uint32_t v)
{
	return sz_dt_rest_of(d->code, k, v);
}

/* ---- Header (§3.2) ------------------------------------------------------------------------- */

splitzip_status splitzip_dtype_read_header(const uint8_t *src, uint64_t size, splitzip_header *h)
{
	splitzip_status st = splitzip_read_header(src, size, h);
	/* splitzip_header_parse() reads every field before it rejects a Dtype other than BF16; a
	 * version above 1 is rejected before, and stays unsupported. */
	if (st != SPLITZIP_ERROR_UNSUPPORTED_FORMAT ||
	    src[SZ_H_VERSION] != SPLITZIP_FORMAT_VERSION || h->dtype == SPLITZIP_DTYPE_BF16)
		return st;
	return splitzip_header_status(sz_dt_header_rules(src, h));
}
