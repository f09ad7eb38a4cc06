/*
 * sz_codebook.h -- codebooks as the format defines them (doc/FORMAT.md §5, §9): canonical
 * selection from a histogram, validity, and the 28-byte codebook file. The encoder tables a
 * backend receives are built by splitzip_enc_tables_init() (core/sz_kernels.h).
 */
#ifndef SZ_CODEBOOK_H
#define SZ_CODEBOOK_H

#include "sz_kernels.h"

/* Canonical selection (FORMAT.md §5.1): the 16 exponents with the highest counts, ties
 * towards the smaller exponent, sorted ascending. Always a valid codebook. */
SZ_INTERNAL void splitzip_codebook_select(const uint64_t hist[256], uint8_t codebook[16]);

/* 1 if the 16 values are strictly ascending (FORMAT.md §5), else 0. */
SZ_INTERNAL int splitzip_codebook_ok(const uint8_t codebook[16]);

/* The codebook file (FORMAT.md §9): write SPLITZIP_CODEBOOK_FILE_SIZE bytes of a valid
 * codebook; read one back (BAD_CODEBOOK or TRUNCATED on failure, 'codebook' untouched). */
SZ_INTERNAL void splitzip_codebook_file_write(const uint8_t codebook[16],
                                              uint8_t out[SPLITZIP_CODEBOOK_FILE_SIZE]);
SZ_INTERNAL splitzip_status splitzip_codebook_file_read(const uint8_t *src, size_t src_size,
                                                        uint8_t codebook[16]);

#endif /* SZ_CODEBOOK_H */
