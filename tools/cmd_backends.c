/*
 * cmd_backends.c -- 'splitzip backends': every backend the tool knows of, whether it is compiled
 * in and whether it is usable on this machine, and SPLITZIP_FORCE_BACKEND if set.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *const known[] = {"avx512vbmi", "avx512", "avx2",  "neon",
                                    "cuda",       "hip",    "scalar"};
#define N_KNOWN (sizeof known / sizeof known[0])

static int is_known(const char *name)
{
	for (size_t k = 0; k < N_KNOWN; k++)
		if (strcmp(name, known[k]) == 0)
			return 1;
	return 0;
}

int cmd_backends(void)
{
	size_t n = splitzip_backend_count();
	printf("%-10s %-12s %s\n", "backend", "compiled-in", "usable-here");
	for (size_t k = 0; k < N_KNOWN; k++) {
		size_t i = backend_index(known[k]);
		printf("%-10s %-12s %s\n", known[k], i < n ? "yes" : "no",
		       i < n && splitzip_backend_available(i) ? "yes" : "no");
	}
	/* Backends compiled in under a name this list does not know (e.g. a variant). */
	for (size_t i = 0; i < n; i++)
		if (!is_known(splitzip_backend_name(i)))
			printf("%-10s %-12s %s\n", splitzip_backend_name(i), "yes",
			       splitzip_backend_available(i) ? "yes" : "no");
	const char *forced = getenv("SPLITZIP_FORCE_BACKEND");
	if (forced && *forced)
		printf("SPLITZIP_FORCE_BACKEND=%s\n", forced);
	return EXIT_OK;
}
