/*
 * sz_hard_util.h -- helpers shared by the hardening suites: contexts per backend, frames from
 * generated or real data, header re-sealing after deliberate tampering, status assertions.
 */
#ifndef SZ_HARD_UTIL_H
#define SZ_HARD_UTIL_H

#include "sz_check.h"
#include <stddef.h>
#include <stdint.h>

#include "splitzip.h"

/* Fail the current Check test unless 'got' == 'want', naming both statuses and the context. */
#define hu_assert_status(got, want, ...)                                                           \
	do {                                                                                       \
		splitzip_status hu_g_ = (got), hu_w_ = (want);                                     \
		if (hu_g_ != hu_w_) {                                                              \
			char hu_m_[256];                                                           \
			snprintf(hu_m_, sizeof hu_m_, __VA_ARGS__);                                \
			ck_abort_msg("%s: got %s, want %s", hu_m_, splitzip_status_name(hu_g_),    \
			             splitzip_status_name(hu_w_));                                 \
		}                                                                                  \
	} while (0)

/* A context for backend 'id' (SPLITZIP_BACKEND_SCALAR, ...), chunk_log2, flags, threads; the
 * test fails if it cannot be created. */
splitzip_ctx *hu_ctx(splitzip_backend_id id, unsigned chunk_log2, unsigned flags,
                     unsigned n_threads);

/* Generator g's data (tests/common), malloc'ed; n may be 0 (a 1-byte allocation). */
uint16_t *hu_gen(int g, uint64_t seed, size_t n);

/* Compress with 'ctx' into a malloc'ed buffer of exactly the frame size; fails the test on
 * error. */
uint8_t *hu_compress(splitzip_ctx *ctx, const uint16_t *src, size_t n, size_t *frame_size);

/* Recompute the header checksum of the 64-byte header at 'frame' after a field was changed on
 * purpose, so that the decoder reaches the field check itself. */
void hu_reseal(uint8_t *frame);

/* Little-endian stores into a frame. */
void hu_put(uint8_t *p, uint64_t v, unsigned n_bytes);

/*
 * 1 if backend index i (0..splitzip_backend_count()-1) is usable here and a context for the
 * host calls can be bound to it (a GPU backend serves them through the device); else prints
 * why it is skipped and returns 0. 'suite' names the caller in the message.
 */
int hu_host_backend(int i, const char *suite);

/* 1 if the decode status is one a decoder may return for hostile input, else 0. */
int hu_is_decode_status(splitzip_status st);

#endif
