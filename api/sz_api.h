/*
 * sz_api.h -- what the public entry points (api/) share: the context. Not installed; nothing
 * below api/ includes it.
 */
#ifndef SZ_API_H
#define SZ_API_H

#include "splitzip.h"
#include "../core/sz_driver.h"
#include "../dispatch/sz_backend.h"

struct splitzip_ctx {
	splitzip_params params;           /* effective parameters */
	const splitzip_backend *backend;  /* bound at creation */
	splitzip_enc_tables fixed_tables; /* for SPLITZIP_CODEBOOK_FIXED */
	splitzip_scratch scratch;         /* the driver's, grown on demand */
	splitzip_scratch verify;          /* splitzip_verify()'s output */
};

/* api/sz_api_device.c: the host-memory calls on a context bound to a device backend, which
 * copy through the device and wait. */
SZ_INTERNAL splitzip_status splitzip_device_host_compress(splitzip_ctx *ctx, const uint16_t *src,
                                                          size_t n, void *dst, size_t dst_cap,
                                                          size_t *dst_size);
SZ_INTERNAL splitzip_status splitzip_device_host_decode(splitzip_ctx *ctx, const void *src,
                                                        size_t src_size, size_t *src_consumed,
                                                        uint16_t *dst, size_t dst_cap_elems,
                                                        size_t *n_elems);

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

#endif /* SZ_API_H */
