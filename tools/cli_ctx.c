/*
 * cli_ctx.c -- the codec context of the splitzip command-line tool, built from the options:
 * checksum flag, threads (by default one core fewer than the process may use: the reader and
 * writer threads keep theirs), chunk size, encoding (--mode), a backend chosen by name, a fixed
 * codebook file and a fixed entropy table file.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* Load an entropy table file written by 'calibrate --mode entropy' into 'p' as a fixed table. */
static int load_table(const char *path, splitzip_params *p)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		msg("%s: %s", path, strerror(errno));
		return EXIT_IO;
	}
	unsigned char buf[SPLITZIP_ENTROPY_TABLE_FILE_SIZE + 1];
	size_t got = read_full(f, buf, sizeof buf, path);
	fclose(f);
	if (got == (size_t)-1)
		return EXIT_IO;
	splitzip_status st = splitzip_entropy_table_deserialize(buf, got, &p->table);
	if (st != SPLITZIP_OK) {
		msg("%s: not a valid entropy table file: %s", path, splitzip_error_string(st));
		return EXIT_DATA;
	}
	p->table_mode = SPLITZIP_CODEBOOK_FIXED;
	return EXIT_OK;
}

unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef CPU_COUNT
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set); /* the CPUs this process may run on (taskset, containers) */
#endif
	return n > 2 ? (unsigned)(n - 1) : 1u;
}

int make_ctx(const options *o, splitzip_ctx **ctx)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.flags = o->checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	p.n_threads = o->threads ? o->threads : default_threads();
	if (o->chunk_log2)
		p.chunk_log2 = o->chunk_log2;
	if (o->encoding >= 0)
		p.encoding = (splitzip_encoding)o->encoding;
	else if (o->table_path || o->dtype == SPLITZIP_DTYPE_FP8_E4M3)
		p.encoding = SPLITZIP_ENCODING_ENTROPY; /* --table alone means entropy frames */
	if (o->dtype == SPLITZIP_DTYPE_FP8_E4M3 && p.encoding == SPLITZIP_ENCODING_SPLIT4) {
		msg("--dtype e4m3 has no split4 frames (FORMAT.md 2.2): --mode entropy or auto");
		return EXIT_USAGE;
	}
	if (o->table_path && p.encoding == SPLITZIP_ENCODING_SPLIT4) {
		msg("--table is for --mode entropy or auto");
		return EXIT_USAGE;
	}
	int rc = o->backend ? select_backend(o->backend, &p) : EXIT_OK;
	if (!rc && o->codebook_path)
		rc = load_codebook(o->codebook_path, &p);
	if (!rc && o->table_path)
		rc = load_table(o->table_path, &p);
	if (rc)
		return rc;
	splitzip_status st = splitzip_ctx_create(&p, ctx);
	if (st != SPLITZIP_OK) {
		msg("cannot create context: %s", splitzip_error_string(st));
		return exit_of_status(st);
	}
	return EXIT_OK;
}
