/*
 * sz_dtype_impl.h -- what sz_dtype.c and sz_dtype_codec.c share: element fields and frame
 * layouts of the dtypes of FORMAT.md 1.3.
 */
#ifndef SZ_DTYPE_IMPL_H
#define SZ_DTYPE_IMPL_H

#include "sz_dtype.h"

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

SZ_INTERNAL uint32_t sz_dt_load(const splitzip_dtype_desc *d, const uint8_t *p, uint64_t i);
SZ_INTERNAL unsigned sz_dt_exponent(const splitzip_dtype_desc *d, uint32_t v);
SZ_INTERNAL unsigned sz_dt_rest(const splitzip_dtype_desc *d, unsigned k, uint32_t v);
SZ_INTERNAL uint64_t sz_dt_rest_size(unsigned kind, uint64_t n);
SZ_INTERNAL void sz_dt_split4_layout(const splitzip_dtype_desc *d, uint64_t n, unsigned log2,
                                     uint64_t E, sz_dt_layout *L);
SZ_INTERNAL void sz_dt_entropy_layout(const splitzip_dtype_desc *d, uint64_t n, unsigned log2,
                                      uint64_t W, unsigned first, unsigned last, sz_dt_layout *L);

#endif /* SZ_DTYPE_IMPL_H */
