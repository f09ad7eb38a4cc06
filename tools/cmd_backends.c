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

/* One line: compiled in, usable here, and if it is compiled in but not usable, why not. */
static void print_row(const char *name, size_t i, size_t n)
{
	if (i >= n) {
		printf("%-10s %-12s %s\n", name, "no", "no");
		return;
	}
	const char *why = splitzip_backend_unavailable_reason(i);
	if (why)
		printf("%-10s %-12s no (%s)\n", name, "yes", why);
	else
		printf("%-10s %-12s %s\n", name, "yes", "yes");
}

int cmd_backends(void)
{
	size_t n = splitzip_backend_count();
	printf("%-10s %-12s %s\n", "backend", "compiled-in", "usable-here");
	for (size_t k = 0; k < N_KNOWN; k++)
		print_row(known[k], backend_index(known[k]), n);
	/* Backends compiled in under a name this list does not know (e.g. a variant). */
	for (size_t i = 0; i < n; i++)
		if (!is_known(splitzip_backend_name(i)))
			print_row(splitzip_backend_name(i), i, n);
	const char *forced = getenv("SPLITZIP_FORCE_BACKEND");
	if (forced && *forced)
		printf("SPLITZIP_FORCE_BACKEND=%s\n", forced);
	return EXIT_OK;
}
