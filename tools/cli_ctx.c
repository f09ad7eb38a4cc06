/*
 * cli_ctx.c -- the codec context of the splitzip command-line tool, built from the options:
 * checksum flag, threads, chunk size, a backend chosen by name and a fixed codebook file.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

size_t backend_index(const char *name)
{
	size_t i, n = splitzip_backend_count();
	for (i = 0; i < n; i++)
		if (strcmp(splitzip_backend_name(i), name) == 0)
			break;
	return i;
}

/* Select the backend called 'name' in 'p'; prints and returns an exit code on failure. */
static int select_backend(const char *name, splitzip_params *p)
{
	size_t i = backend_index(name), n = splitzip_backend_count();
	if (i == n || !splitzip_backend_available(i)) {
		msg("backend '%s' is %s (see 'splitzip backends')", name,
		    i == n ? "unknown or not compiled in" : "not usable on this machine");
		return EXIT_BACKEND;
	}
	p->backend = splitzip_backend_id_of(i);
	return EXIT_OK;
}

/* Load a codebook file written by 'calibrate' into 'p' as a fixed codebook. */
static int load_codebook(const char *path, splitzip_params *p)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		msg("%s: %s", path, strerror(errno));
		return EXIT_IO;
	}
	unsigned char buf[SPLITZIP_CODEBOOK_FILE_SIZE + 1];
	size_t got = read_full(f, buf, sizeof buf, path);
	fclose(f);
	if (got == (size_t)-1)
		return EXIT_IO;
	splitzip_status st = splitzip_codebook_deserialize(buf, got, &p->codebook);
	if (st != SPLITZIP_OK) {
		msg("%s: not a valid codebook file: %s", path, splitzip_error_string(st));
		return EXIT_DATA;
	}
	p->codebook_mode = SPLITZIP_CODEBOOK_FIXED;
	return EXIT_OK;
}

int make_ctx(const options *o, splitzip_ctx **ctx)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.flags = o->checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	p.n_threads = o->threads;
	if (o->chunk_log2)
		p.chunk_log2 = o->chunk_log2;
	int rc = o->backend ? select_backend(o->backend, &p) : EXIT_OK;
	if (!rc && o->codebook_path)
		rc = load_codebook(o->codebook_path, &p);
	if (rc)
		return rc;
	splitzip_status st = splitzip_ctx_create(&p, ctx);
	if (st != SPLITZIP_OK) {
		msg("cannot create context: %s", splitzip_error_string(st));
		return exit_of_status(st);
	}
	return EXIT_OK;
}
