/* vec_files.c -- see vec_files.h. */
#include "vec_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sz_check.h"

int sz_vec_read(const char *dir, const char *sub, const char *name, const char *ext, sz_blob *b)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s%s", dir, sub, name, ext);
	b->p = NULL;
	b->n = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t cap = 1 << 16, n = 0, got;
	uint8_t *p = (uint8_t *)malloc(cap);
	while (p && (got = fread(p + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *q = (uint8_t *)realloc(p, cap * 2);
			if (!q)
				free(p);
			p = q;
			cap *= 2;
		}
	}
	const int ok = p != NULL && !ferror(f);
	fclose(f);
	if (!ok) {
		free(p);
		return 0;
	}
	b->p = p;
	b->n = n;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **sz_vec_list(const char *dir, const char *sub, const char *ext, size_t *count)
{
	const size_t xl = strlen(ext);
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, sub);
	*count = 0;
	DIR *d = opendir(path);
	if (!d)
		return NULL;
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len <= xl || strcmp(e->d_name + len - xl, ext) != 0)
			continue;
		char **grown = (char **)realloc(names, (n + 1) * sizeof *names);
		if (!grown)
			break;
		names = grown;
		if (!(names[n] = (char *)malloc(len - xl + 1)))
			break;
		memcpy(names[n], e->d_name, len - xl);
		names[n][len - xl] = '\0';
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	*count = n;
	return names;
}

void sz_vec_free_names(char **names, size_t count)
{
	for (size_t i = 0; names && i < count; i++)
		free(names[i]);
	free(names);
}

int sz_vec_expected_status(const char *name)
{
	const char *dot = strrchr(name, '.');
	for (int s = 0; dot && s < SPLITZIP_STATUS_COUNT; s++)
		if (strcmp(dot + 1, splitzip_status_name((splitzip_status)s)) == 0)
			return s;
	return -1;
}

size_t sz_vec_open_contexts(splitzip_ctx **ctxs, size_t max)
{
	int have_scalar = 0;
	size_t n = 0;
	for (size_t i = 0; i < splitzip_backend_count() && n < max; i++) {
		if (!splitzip_backend_available(i))
			continue;
		splitzip_params p;
		splitzip_params_init(&p);
		p.backend = splitzip_backend_id_of(i);
		splitzip_status st = splitzip_ctx_create(&p, &ctxs[n]);
		if (st == SPLITZIP_ERROR_BACKEND_UNAVAILABLE)
			continue;
		ck_assert_msg(st == SPLITZIP_OK, "ctx for backend %s: %s", splitzip_backend_name(i),
		              splitzip_status_name(st));
		have_scalar |= p.backend == SPLITZIP_BACKEND_SCALAR;
		n++;
	}
	ck_assert_msg(have_scalar, "the scalar backend did not run");
	return n;
}

void sz_vec_close_contexts(splitzip_ctx **ctxs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		splitzip_ctx_free(ctxs[i]);
}

sz_pg_dst sz_vec_pages_alloc(const splitzip_page_entry *e, size_t n, size_t cap, size_t offset)
{
	sz_pg_dst d;
	d.n = n;
	d.p = (void **)calloc(n + 1, sizeof *d.p);
	d.caps = (size_t *)calloc(n + 1, sizeof *d.caps);
	d.sizes = (size_t *)calloc(n + 1, sizeof *d.sizes);
	d.states = (uint8_t *)calloc(n + 1, 1);
	ck_assert(d.p && d.caps && d.sizes && d.states);
	for (size_t i = 0; i < n; i++) {
		d.caps[i] = e ? (size_t)e[i].page_bytes : cap;
		uint8_t *m = (uint8_t *)malloc(d.caps[i] + 2 + offset);
		ck_assert(m != NULL);
		d.p[i] = m + offset;
	}
	d.offset = offset;
	return d;
}

void sz_vec_pages_free(sz_pg_dst *d)
{
	for (size_t i = 0; i < d->n; i++)
		free((uint8_t *)d->p[i] - d->offset);
	free(d->p);
	free(d->caps);
	free(d->sizes);
	free(d->states);
}

splitzip_page_entry *sz_vec_pages_manifest(const sz_blob *stream, size_t *n_out)
{
	uint64_t n = 0;
	ck_assert_int_eq(splitzip_pages_get_manifest(stream->p, stream->n, NULL, 0, &n),
	                 SPLITZIP_OK);
	splitzip_page_entry *e = (splitzip_page_entry *)calloc((size_t)n + 1, sizeof *e);
	ck_assert(e != NULL);
	ck_assert_int_eq(splitzip_pages_get_manifest(stream->p, stream->n, e, (size_t)n, NULL),
	                 SPLITZIP_OK);
	*n_out = (size_t)n;
	return e;
}

sz_pg_dst sz_vec_pages_decode_check(splitzip_ctx *ctx, const char *name, const sz_blob *stream,
                                    const splitzip_page_entry *e, size_t n, const sz_blob *content,
                                    size_t offset)
{
	sz_pg_dst d = sz_vec_pages_alloc(e, n, 0, offset);
	size_t got = 0, at = 0;
	splitzip_status st =
	    splitzip_pages_decompress(ctx, stream->p, stream->n, n, d.p, d.caps,
	                              SPLITZIP_PAGES_EXACT, d.sizes, d.states, &got);
	ck_assert_msg(st == SPLITZIP_OK, "%s [%s]: %s", name, splitzip_ctx_backend_name(ctx),
	              splitzip_status_name(st));
	ck_assert_uint_eq(got, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert(d.states[i] == SPLITZIP_PAGE_WRITTEN && d.sizes[i] == e[i].page_bytes);
		ck_assert_msg(at + d.sizes[i] <= content->n &&
		                  memcmp(d.p[i], content->p + at, d.sizes[i]) == 0,
		              "%s [%s]: page %zu differs", name, splitzip_ctx_backend_name(ctx), i);
		at += d.sizes[i];
	}
	ck_assert_uint_eq(at, content->n);
	return d;
}

void sz_vec_pages_check_rejected(splitzip_ctx *ctx, const char *name, const sz_blob *stream,
                                 size_t n_dst, size_t cap, int expect)
{
	sz_pg_dst d = sz_vec_pages_alloc(NULL, n_dst, cap, 0);
	size_t got = 0;
	splitzip_status st = splitzip_pages_decompress(ctx, stream->p, stream->n, n_dst, d.p,
	                                               d.caps, 0, d.sizes, d.states, &got);
	ck_assert_msg((int)st == expect, "%s [%s]: %s", name, splitzip_ctx_backend_name(ctx),
	              splitzip_status_name(st));
	sz_vec_pages_free(&d);
}
