/*
 * sz_api.h -- what the public entry points (api/) share: the context. Not installed; nothing
 * below api/ includes it.
 */
#ifndef SZ_API_H
#define SZ_API_H

#include <pthread.h>

#include "splitzip.h"
#include "../core/sz_driver.h"
#include "../dispatch/sz_backend.h"

/*
 * The memory one call works in: the driver's scratch, gather space for chunks that span pages,
 * the output of splitzip_verify(). A call takes one from its context's pool and gives it back,
 * so calls on one context from several threads never share memory; a set is grown on demand
 * and kept, so a steady stream of calls allocates nothing.
 */
typedef struct splitzip_workmem {
	splitzip_scratch scratch;
	splitzip_scratch gather;
	splitzip_scratch out;
	struct splitzip_workmem *next;
} splitzip_workmem;

struct splitzip_ctx {
	/* Immutable after splitzip_ctx_create(): read by any number of threads. */
	splitzip_params params;           /* effective parameters */
	const splitzip_backend *backend;  /* bound at creation */
	splitzip_enc_tables fixed_tables; /* for SPLITZIP_CODEBOOK_FIXED */
	/* The pool of work memory, guarded by 'lock'. */
	pthread_mutex_t lock;
	splitzip_workmem *idle;
};

/* api/sz_api_ctx.c: a work memory set of the context for one call (NULL: out of memory), and
 * its return. Safe from any number of threads. */
SZ_INTERNAL splitzip_workmem *splitzip_ctx_take(splitzip_ctx *ctx);
SZ_INTERNAL void splitzip_ctx_give(splitzip_ctx *ctx, splitzip_workmem *w);

/* api/sz_api_device.c: the host-memory calls on a context bound to a device backend, which
 * copy through the device and wait. */
SZ_INTERNAL splitzip_status splitzip_device_host_compress(splitzip_ctx *ctx, const uint16_t *src,
                                                          size_t n, void *dst, size_t dst_cap,
                                                          size_t *dst_size);
SZ_INTERNAL splitzip_status splitzip_device_host_decode(splitzip_ctx *ctx, const void *src,
                                                        size_t src_size, size_t *src_consumed,
                                                        uint16_t *dst, size_t dst_cap_elems,
                                                        size_t *n_elems);
/* The same for one frame of any dtype (dst: dst_cap_bytes bytes, any alignment). */
SZ_INTERNAL splitzip_status splitzip_device_host_decode_dtype(splitzip_ctx *ctx, const void *src,
                                                              size_t src_size, size_t *src_consumed,
                                                              void *dst, size_t dst_cap_bytes,
                                                              size_t *n_elems);

/* api/sz_api_device_dtype_enc.c: splitzip_compress_dtype() of Dtype 2-5 on a context bound to a
 * device backend: the host checks of splitzip_dtype_encode(), then a copy through the device. */
SZ_INTERNAL splitzip_status splitzip_device_dtype_host_compress(splitzip_ctx *ctx, unsigned dtype,
                                                                const void *src, size_t n_elems,
                                                                void *dst, size_t dst_cap,
                                                                size_t *dst_size);

/* Whether p is a multiple of a (a power of two); NULL passes (checked separately). */
static inline int sz_api_aligned(const void *p, size_t a)
{
	return ((uintptr_t)p & (a - 1)) == 0;
}

/* api/sz_api_device.c, for the async calls (frames and pages): the GPU module of a context in
 * '*m' (INVALID_ARGUMENT without a context, BACKEND_UNAVAILABLE without a module). */
SZ_INTERNAL splitzip_status splitzip_api_gpu_module(const splitzip_ctx *ctx,
                                                    const splitzip_gpu_module **m);

/* A workspace for an async call: its size query returned 'st' and 'need' bytes; it must be
 * present, at least that large and aligned to SPLITZIP_WORKSPACE_ALIGN (a misaligned one would
 * fault on the device, and a fault there ends the whole GPU context). INVALID_ARGUMENT if not. */
SZ_INTERNAL splitzip_status splitzip_api_workspace_check(splitzip_status st, size_t need,
                                                         const void *ws, size_t ws_bytes);

/* api/sz_api_dtype.c: the frames of every dtype (doc/FORMAT.md 1.3) for the host calls. */
/* The header of the frame at byte 'off' of a stream (§3.2, §8.2): every dtype, the first
 * frame's dtype for the later ones, then the truncation check. */
SZ_INTERNAL splitzip_status splitzip_api_stream_header(const uint8_t *src, size_t size, size_t off,
                                                       unsigned first_dtype, splitzip_header *h);
/* Decode one frame of a dtype other than BF16 whose header 'h' is valid (steps 12-15); on a
 * device context through the device's kernels. */
SZ_INTERNAL splitzip_status splitzip_api_dtype_decode(splitzip_ctx *ctx, const splitzip_header *h,
                                                      const uint8_t *src, size_t src_size,
                                                      size_t *src_consumed, void *dst,
                                                      size_t dst_cap_elems, size_t *n_elems);

#endif /* SZ_API_H */
