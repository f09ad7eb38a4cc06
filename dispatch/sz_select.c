/*
 * sz_select.c -- backend selection: explicit id, SPLITZIP_FORCE_BACKEND, or best usable.
 * A named backend that is unknown or unusable is an error, never a silent fallback.
 */
#include <stdlib.h>
#include <string.h>

#include "sz_backend.h"

#if defined(__AVX2__) && !defined(SPLITZIP_NATIVE)
#error "dispatch/ must be compiled for the baseline ISA (no -mavx2)"
#endif

/* The backend with this exact name if it is compiled in and usable, else NULL. */
static const splitzip_backend *backend_by_name(const char *name, splitzip_status *st)
{
	for (size_t i = 0; i < splitzip_registry_count(); i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		if (strcmp(b->name, name) == 0) {
			if (b->probe()) {
				*st = SPLITZIP_OK;
				return b;
			}
			break;
		}
	}
	*st = SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
	return NULL;
}

const splitzip_backend *splitzip_select_backend(splitzip_backend_id id, splitzip_status *st)
{
	if (id != SPLITZIP_BACKEND_AUTO) {
		for (size_t i = 0; i < splitzip_registry_count(); i++) {
			const splitzip_backend *b = splitzip_registry_get(i);
			if (b->id == id && b->probe()) {
				*st = SPLITZIP_OK;
				return b;
			}
		}
		*st = SPLITZIP_ERROR_BACKEND_UNAVAILABLE;
		return NULL;
	}
	const char *forced = getenv("SPLITZIP_FORCE_BACKEND");
	if (forced && *forced)
		return backend_by_name(forced, st);
	for (size_t i = 0; i < splitzip_registry_count(); i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		if (b->host && b->probe()) {
			*st = SPLITZIP_OK;
			return b;
		}
	}
	*st = SPLITZIP_ERROR_BACKEND_UNAVAILABLE; /* unreachable: scalar always probes 1 */
	return NULL;
}

const splitzip_host_kernels *splitzip_best_host_kernels(void)
{
	for (size_t i = 0; i < splitzip_registry_count(); i++) {
		const splitzip_backend *b = splitzip_registry_get(i);
		if (b->host && b->probe())
			return b->host;
	}
	return NULL; /* unreachable: scalar always probes 1 */
}
