/*
 * sz_host_backends.h -- the kernel tables the CPU backends export (core/sz_kernels.h). Each is
 * defined only when its backend is compiled in (splitzip_config.h, SPLITZIP_HAVE_*); the
 * registry (dispatch/sz_registry.c) pairs it with the probe that tells whether this CPU runs it.
 */
#ifndef SZ_HOST_BACKENDS_H
#define SZ_HOST_BACKENDS_H

#include "../core/sz_kernels.h"

SZ_INTERNAL extern const splitzip_host_kernels splitzip_kernels_avx2;       /* cpu_avx2 */
SZ_INTERNAL extern const splitzip_host_kernels splitzip_kernels_avx512;     /* cpu_avx512 */
SZ_INTERNAL extern const splitzip_host_kernels splitzip_kernels_avx512vbmi; /* cpu_avx512 */
SZ_INTERNAL extern const splitzip_host_kernels splitzip_kernels_neon;       /* cpu_neon */

#endif /* SZ_HOST_BACKENDS_H */
