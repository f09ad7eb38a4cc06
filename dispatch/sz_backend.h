/*
 * sz_backend.h -- the backend registry (internal). A backend is either a host backend, whose
 * chunk kernels the frame driver calls (core/sz_kernels.h), or a device backend, whose GPU
 * module is loaded on demand (backends/gpu/sz_gpu_module.h, dispatch/sz_gpu_loader.c). Exactly
 * one of 'host' and 'gpu' is set; a unit test checks every entry.
 */
#ifndef SZ_BACKEND_H
#define SZ_BACKEND_H

#include "splitzip.h"
#include "../core/sz_kernels.h"
#include "../backends/gpu/sz_gpu_module.h"

/* The module loader of a device backend (dispatch/sz_gpu_loader.c). */
typedef struct splitzip_gpu_loader splitzip_gpu_loader;

typedef struct splitzip_backend {
	const char *name; /* "scalar", "avx2", ... (the SPLITZIP_FORCE_BACKEND spelling) */
	splitzip_backend_id id;
	/* 1 if usable on this machine now (CPU features + OS state, or a device present). */
	int (*probe)(void);
	/* Why it is not usable here (a static or library-owned string), or NULL if it is. */
	const char *(*why_not)(void);
	const splitzip_host_kernels *host; /* host backends: their kernels, else NULL */
	splitzip_gpu_loader *gpu;          /* device backends: their module loader, else NULL */
} splitzip_backend;

/* Registry (dispatch/sz_registry.c), priority order, best first; scalar is last. */
SZ_INTERNAL size_t splitzip_registry_count(void);
SZ_INTERNAL const splitzip_backend *splitzip_registry_get(size_t i);

/*
 * Backend selection (dispatch/sz_select.c): the backend for 'id', or for AUTO the one named by
 * SPLITZIP_FORCE_BACKEND, or the best usable host backend. NULL with '*st' set on failure.
 */
SZ_INTERNAL const splitzip_backend *splitzip_select_backend(splitzip_backend_id id,
                                                            splitzip_status *st);

/* The kernels of the best usable host backend (whatever SPLITZIP_FORCE_BACKEND says): what
 * host-memory page streams run on for a context bound to a device backend. Never NULL. */
SZ_INTERNAL const splitzip_host_kernels *splitzip_best_host_kernels(void);

/* The GPU backends' registry entries (dispatch/sz_gpu_loader.c), when their module is built. */
SZ_INTERNAL extern const splitzip_backend splitzip_backend_cuda;
SZ_INTERNAL extern const splitzip_backend splitzip_backend_hip;

/*
 * The module of a device backend if it loads and sees a device, else NULL (also for host
 * backends). The first call per backend loads and probes; the result is cached.
 */
SZ_INTERNAL const splitzip_gpu_module *splitzip_gpu_module_of(const splitzip_backend *b);

#endif /* SZ_BACKEND_H */
