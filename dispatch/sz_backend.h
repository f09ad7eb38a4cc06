/*
 * sz_backend.h -- the backend vtable (internal). A backend implements per-chunk kernels; the
 * frame driver in core/sz_frame.c owns the format, splits work by chunks across threads and
 * validates everything that comes from outside, so a backend never sees an unchecked field.
 */
#ifndef SZ_BACKEND_H
#define SZ_BACKEND_H

#include "splitzip.h"
#include "../core/sz_common.h"

#define SPLITZIP_MEM_HOST 1u
#define SPLITZIP_MEM_DEVICE 2u

/* Encoder tables derived from a codebook (core/sz_codebook.c: splitzip_enc_tables_init). */
typedef struct splitzip_enc_tables {
	uint8_t code_of[256];	/* exponent -> code; 0 for exponents outside the codebook */
	uint8_t is_escape[256]; /* 1 for exponents outside the codebook, else 0 */
	uint8_t codebook[16];	/* code -> exponent, strictly ascending */
	int contiguous;		/* codebook == base, base+1, ..., base+15 */
	uint8_t base;		/* codebook[0] */
} splitzip_enc_tables;

typedef struct splitzip_backend {
	const char *name; /* "scalar", "avx2", ... (the SPLITZIP_FORCE_BACKEND spelling) */
	splitzip_backend_id id;
	unsigned mem_space; /* SPLITZIP_MEM_HOST or SPLITZIP_MEM_DEVICE */

	/* 1 if usable on this machine now (CPU features + OS state, or a device present). */
	int (*probe)(void);

	/* hist[exponent(src[i])] += 1 for i < n. */
	void (*histogram)(const uint16_t *src, size_t n, uint64_t hist[256]);

	/*
	 * Encode one chunk of n elements (1 <= n <= 65536): write ceil(n/2) code bytes (element 2k
	 * in the low nibble of byte k, code 0 for escapes, a zero high nibble after an odd last
	 * element) and n sign/mantissa bytes; write the chunk-local positions (ascending) and
	 * exponents of the escapes to esc_pos/esc_exp (room for n each); return the escape count.
	 * Must match splitzip_ref_encode_chunk() byte for byte.
	 */
	size_t (*encode_chunk)(const splitzip_enc_tables *t, const uint16_t *src, size_t n,
			       uint8_t *codes, uint8_t *sm, uint16_t *esc_pos, uint8_t *esc_exp);

	/*
	 * Decode the dense part of one chunk of n elements: dst[i] = join(codebook[code_i], sm[i]).
	 * Escapes are patched afterwards by the driver, which validates them first.
	 */
	void (*decode_chunk)(const uint8_t codebook[16], const uint8_t *codes, const uint8_t *sm,
			     size_t n, uint16_t *dst);

	/*
	 * encode_chunk and decode_chunk for large frames, whose output will not be read back
	 * soon: the same bytes (and the same contract), written with non-temporal stores where
	 * the ISA has them, so the output neither evicts the cache nor costs a read for
	 * ownership. The driver uses them at and above SZ_STREAM_MIN_BYTES (core/sz_frame.c).
	 * Backends without such stores use their encode_chunk and decode_chunk here.
	 */
	size_t (*encode_chunk_stream)(const splitzip_enc_tables *t, const uint16_t *src, size_t n,
				      uint8_t *codes, uint8_t *sm, uint16_t *esc_pos,
				      uint8_t *esc_exp);
	void (*decode_chunk_stream)(const uint8_t codebook[16], const uint8_t *codes,
				    const uint8_t *sm, size_t n, uint16_t *dst);

	/* Chunk digest of n_bytes bytes (doc/FORMAT.md §7.1); must equal splitzip_hash_bytes(). */
	uint64_t (*hash_chunk)(const void *p, size_t n_bytes);

	/* Device backends only (dispatch/sz_gpu.c): the loader of their module; NULL otherwise. */
	struct splitzip_gpu_loader *gpu;
} splitzip_backend;

/* The scalar reference backend (core/sz_ref.c): always compiled in, always usable. */
SZ_INTERNAL extern const splitzip_backend splitzip_backend_scalar;

/* The GPU backends (dispatch/sz_gpu.c), compiled in when their module is built. */
SZ_INTERNAL extern const splitzip_backend splitzip_backend_cuda;
SZ_INTERNAL extern const splitzip_backend splitzip_backend_hip;

/* Host SIMD backends (backends/cpu_*), present when splitzip_config.h says so. */
SZ_INTERNAL extern const splitzip_backend splitzip_backend_avx2;
SZ_INTERNAL extern const splitzip_backend splitzip_backend_avx512;
SZ_INTERNAL extern const splitzip_backend splitzip_backend_avx512vbmi;
SZ_INTERNAL extern const splitzip_backend splitzip_backend_neon;

/* Registry (dispatch/sz_registry.c), priority order, best first; scalar is last. */
SZ_INTERNAL size_t splitzip_registry_count(void);
SZ_INTERNAL const splitzip_backend *splitzip_registry_get(size_t i);

/*
 * Backend selection (dispatch/sz_select.c): the backend for 'id', or for AUTO the one named by
 * SPLITZIP_FORCE_BACKEND, or the best usable one. NULL with '*st' set on failure.
 */
SZ_INTERNAL const splitzip_backend *splitzip_select_backend(splitzip_backend_id id,
							     splitzip_status *st);

/* The backend with this exact name if it is compiled in and usable, else NULL. */
SZ_INTERNAL const splitzip_backend *splitzip_backend_by_name(const char *name,
							      splitzip_status *st);

#endif /* SZ_BACKEND_H */
