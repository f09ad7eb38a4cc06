/*
 * cli_st.c -- safetensors files and splitzip safetensors containers opened for the commands
 * (pack, unpack, info, stats): read and validated (safetensors.c, szst.c) with the CLI's
 * messages and exit codes. Both need regular files: their sizes are part of the validation.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* Open 'path' for reading; it must be a regular file. */
static FILE *open_regular(const char *path, const char *what, uint64_t *size)
{
	if (strcmp(path, "-") == 0) {
		msg("%s: needs a regular file, not standard input", what);
		return NULL;
	}
	FILE *in = in_open(path);
	struct stat sb;
	if (in && (fstat(fileno(in), &sb) != 0 || !S_ISREG(sb.st_mode))) {
		msg("%s: not a regular file", path);
		in_close(in);
		return NULL;
	}
	if (in)
		*size = (uint64_t)sb.st_size;
	return in;
}

static int st_fail(const char *path, const char *what, st_error e, const char *detail)
{
	if (e == ST_OUT_OF_MEMORY) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	msg("%s: %s%s [%s]%s%s", path, what, st_error_string(e), st_error_name(e),
	    detail && *detail ? ": " : "", detail ? detail : "");
	return EXIT_DATA;
}

/* The 8-byte length and the JSON of a safetensors file (FORMAT.md §11.2 steps 1-2). */
static int st_read_head(st_file *f)
{
	static const char what[] = "not a valid safetensors file: ";
	unsigned char len8[8];
	size_t got = read_fd(fileno(f->in), len8, 8, f->path);
	if (got == (size_t)-1)
		return EXIT_IO;
	if (got < 8)
		return st_fail(f->path, what, ST_TRUNCATED_HEADER, "shorter than 8 bytes");
	uint64_t n = 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | len8[i];
	if (n > ST_MAX_HEADER)
		return st_fail(f->path, what, ST_HEADER_TOO_LARGE, NULL);
	if (8 + n > f->size)
		return st_fail(f->path, what, ST_TRUNCATED_HEADER, "the header runs past the end");
	f->head_size = 8 + n;
	f->head = (unsigned char *)malloc((size_t)f->head_size);
	if (!f->head) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	memcpy(f->head, len8, 8);
	got = read_fd(fileno(f->in), f->head + 8, (size_t)n, f->path);
	if (got == (size_t)-1)
		return EXIT_IO;
	if (got != n) {
		msg("%s: file changed while being read", f->path);
		return EXIT_IO;
	}
	return EXIT_OK;
}

int st_open(st_file *f, const char *path)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->in = open_regular(path, "a safetensors file", &f->size);
	if (!f->in)
		return EXIT_IO;
	int rc = st_read_head(f);
	if (rc)
		return rc;
	st_error e = st_parse(&f->h, f->head + 8, (size_t)f->head_size - 8, f->size - f->head_size);
	return e ? st_fail(path, "not a valid safetensors file: ", e, f->h.detail) : EXIT_OK;
}

void st_close(st_file *f)
{
	in_close(f->in);
	free(f->head);
	st_free(&f->h);
	memset(f, 0, sizeof *f);
}

/* ---- Containers ------------------------------------------------------------------------------ */

int szst_open(szst_file *f, const char *path)
{
	memset(f, 0, sizeof *f);
	f->path = path;
	f->in = open_regular(path, "a packed safetensors container", &f->size);
	if (!f->in)
		return EXIT_IO;
	unsigned char hdr[SZST_HEADER_SIZE];
	size_t got = read_fd(fileno(f->in), hdr, sizeof hdr, path);
	if (got == (size_t)-1)
		return EXIT_IO;
	st_error e = szst_read_header(hdr, got, f->size, &f->h);
	if (e)
		return st_fail(path, "", e, NULL);
	size_t meta_len = (size_t)(szst_data_offset(&f->h) - SZST_HEADER_SIZE);
	f->meta = (unsigned char *)malloc(meta_len ? meta_len : 1);
	f->e = (szst_entry *)calloc(f->h.count ? f->h.count : 1, sizeof *f->e);
	if (!f->meta || !f->e) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	got = read_fd(fileno(f->in), f->meta, meta_len, path);
	if (got != meta_len)
		return got == (size_t)-1 ? EXIT_IO : st_fail(path, "", ST_TRUNCATED, NULL);
	char detail[256];
	e = szst_read_meta(&f->h, f->meta, &f->sth, f->e, detail, sizeof detail);
	return e ? st_fail(path, "", e, detail) : EXIT_OK;
}

void szst_close(szst_file *f)
{
	in_close(f->in);
	free(f->meta);
	free(f->e);
	st_free(&f->sth);
	memset(f, 0, sizeof *f);
}

int starts_with_magic(const char *path, const char *magic)
{
	if (strcmp(path, "-") == 0)
		return 0;
	FILE *f = fopen(path, "rb");
	char buf[4];
	int yes = f && fread(buf, 1, 4, f) == 4 && memcmp(buf, magic, 4) == 0;
	if (f)
		fclose(f);
	return yes;
}
