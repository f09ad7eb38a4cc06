/*
 * sz_dtype_impl.h -- what sz_dtype.c and sz_dtype_codec.c share: element fields and frame
 * layouts of the dtypes of FORMAT.md 1.3.
 */
#ifndef SZ_DTYPE_IMPL_H
#define SZ_DTYPE_IMPL_H

#include "sz_dtype.h"

SZ_INTERNAL uint32_t sz_dt_load(const splitzip_dtype_desc *d, const uint8_t *p, uint64_t i);
SZ_INTERNAL unsigned sz_dt_exponent(const splitzip_dtype_desc *d, uint32_t v);
SZ_INTERNAL unsigned sz_dt_rest(const splitzip_dtype_desc *d, unsigned k, uint32_t v);

#endif /* SZ_DTYPE_IMPL_H */
