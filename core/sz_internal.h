/*
 * sz_internal.h -- prototypes shared between core/ files (not installed).
 */
#ifndef SZ_INTERNAL_H
#define SZ_INTERNAL_H

#include "splitzip.h"
#include "sz_common.h"
#include "sz_layout.h"
#include "../dispatch/sz_backend.h"

/* core/sz_codebook.c: encoder tables for a valid codebook. */
SZ_INTERNAL void splitzip_enc_tables_init(splitzip_enc_tables *t, const uint8_t codebook[16]);

/* core/sz_checksum.c: chunk digest of n bytes (doc/FORMAT.md §7.1), word-wise, any alignment. */
SZ_INTERNAL uint64_t splitzip_hash_bytes(const void *p, size_t n);

/* core/sz_ref.c: the scalar reference kernels (also the "scalar" backend's entries). */
SZ_INTERNAL void splitzip_ref_histogram(const uint16_t *src, size_t n, uint64_t hist[256]);
SZ_INTERNAL size_t splitzip_ref_encode_chunk(const splitzip_enc_tables *t, const uint16_t *src,
					     size_t n, uint8_t *codes, uint8_t *sm,
					     uint16_t *esc_pos, uint8_t *esc_exp);
SZ_INTERNAL void splitzip_ref_decode_chunk(const uint8_t codebook[16], const uint8_t *codes,
					   const uint8_t *sm, size_t n, uint16_t *dst);

/* dispatch/sz_gpu.c: host-memory calls on a context bound to a GPU backend. */
SZ_INTERNAL splitzip_status splitzip_gpu_host_compress(splitzip_ctx *ctx, const uint16_t *src,
						       size_t n, void *dst, size_t dst_cap,
						       size_t *dst_size);
SZ_INTERNAL splitzip_status splitzip_gpu_host_decompress_frame(splitzip_ctx *ctx, const void *src,
							       size_t src_size,
							       size_t *src_consumed, uint16_t *dst,
							       size_t dst_cap_elems,
							       size_t *n_elems);

/* core/sz_frame.c: map a header parse result to a status. */
SZ_INTERNAL splitzip_status splitzip_status_of_header(int hdr_result);

/* The context (core/sz_frame.c). */
struct splitzip_ctx {
	splitzip_params params; /* effective parameters */
	const splitzip_backend *backend;
	splitzip_enc_tables fixed_tables; /* for SPLITZIP_CODEBOOK_FIXED */
	/* Scratch owned by the context, grown on demand and freed by splitzip_ctx_free(). */
	void *scratch;
	size_t scratch_size;
	uint16_t *verify_buf;
	size_t verify_cap;
};

#endif /* SZ_INTERNAL_H */
