/*
 * gen_vectors.h -- what the files of the golden-vector generator share (tests/gen): byte
 * buffers, deterministic data, the reference writers of stored and split4 frames
 * (gen_vectors.c), vector output and frame mutations. gen_vectors_entropy.c adds the entropy
 * frames (mode 2) and their vectors.
 */
#ifndef GEN_VECTORS_H
#define GEN_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "splitzip.h"
#include "sz_layout.h"

typedef struct buf {
	uint8_t *p;
	size_t n;
} buf;

void die(const char *what, const char *detail);
void *xcalloc(size_t n);
buf buf_new(size_t n);
buf buf_copy(buf a);
buf buf_prefix(buf a, size_t n);
buf buf_cat(buf a, const void *tail, size_t n);
uint64_t rng_next(uint64_t *s);
uint16_t bf16(unsigned sign, unsigned exponent, unsigned mantissa);
void set_exponent(uint16_t *x, size_t i, unsigned e);
void fill_window(uint16_t *x, size_t n, unsigned base, uint64_t seed);
buf le_bytes(const uint16_t *x, size_t n);

/* The reference writers of gen_vectors.c (FORMAT.md §4.1, §4.2, §5.1, §7). */
uint64_t ref_checksum(const uint16_t *x, uint64_t n, unsigned log2);
void ref_codebook(const uint16_t *x, uint64_t n, uint8_t cb[16]);
buf ref_stored(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags);
buf ref_frame(const uint16_t *x, uint64_t n, unsigned log2, unsigned flags,
              const uint8_t *fixed_cb);

/* Output: a valid vector (frame or stream and its content), an invalid one (freed). */
void emit_valid(const char *name, buf sz, const uint16_t *x, size_t n);
void invalid(const char *name, splitzip_status expect, buf b);

/* Mutations. */
void set_le(buf b, uint64_t off, uint64_t v, unsigned n_bytes);
uint64_t get_le(buf b, uint64_t off, unsigned n_bytes);
void fix_hcs(buf b, size_t at);
buf with_field(buf f, unsigned off, uint64_t v, unsigned n_bytes);
buf with_xor(buf f, uint64_t off, uint8_t x);

/* Files under the output directory (sub is a path below it). */
void write_file(const char *sub, const char *name, const void *p, size_t n);
void make_dir(const char *sub);

/* gen_vectors_entropy.c: the valid and the invalid entropy vectors. */
void gen_entropy_valid(const uint16_t *kv, size_t kv_n);
void gen_entropy_invalid(const uint16_t *kv, size_t kv_n);

/* gen_vectors_pages.c: page streams (FORMAT.md §12) in pages/valid and pages/invalid. */
void gen_pages_vectors(const uint16_t *kv, size_t kv_n);

#endif /* GEN_VECTORS_H */
