/*
 * vec_files.h -- the files of the test vectors (tests/vectors/README.md), their expected
 * statuses and the contexts that decode them, for the suites that read them (test_vectors.c,
 * test_dtype_vectors.c).
 */
#ifndef SZ_VEC_FILES_H
#define SZ_VEC_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "splitzip.h"

typedef struct sz_blob {
	uint8_t *p; /* malloc()ed; the caller frees it */
	size_t n;
} sz_blob;

/* Reads the whole file dir/sub/<name><ext> into *b; 0 if it cannot be opened or read. An
 * empty file gives an allocation and n == 0. */
int sz_vec_read(const char *dir, const char *sub, const char *name, const char *ext, sz_blob *b);

/* The base names (without 'ext') of the files in dir/sub that end in 'ext', sorted, in a
 * malloc()ed array of malloc()ed strings (sz_vec_free_names() frees it); NULL and *count 0 if
 * the directory cannot be read or has none. */
char **sz_vec_list(const char *dir, const char *sub, const char *ext, size_t *count);

void sz_vec_free_names(char **names, size_t count);

/* The status named after the last '.' of an invalid vector's base name; -1 if none. */
int sz_vec_expected_status(const char *name);

/*
 * Host contexts, one per usable backend, in ctxs[0..max): the decode side of every vector test
 * runs with each; returns how many. A backend that is usable but serves device memory only is
 * refused by splitzip_ctx_create with BACKEND_UNAVAILABLE and left out; any other failure, or
 * no scalar context among them, fails the running check test.
 */
size_t sz_vec_open_contexts(splitzip_ctx **ctxs, size_t max);
void sz_vec_close_contexts(splitzip_ctx **ctxs, size_t n);

/* Destination pages for a page stream: n pages, one allocation each, of the sizes of the
 * manifest entries e (or 'cap' bytes each when e is NULL), each starting 'offset' bytes into
 * its allocation (1: odd addresses, for the pages of 1-byte dtypes), with room for the
 * decoder's sizes and states. */
typedef struct sz_pg_dst {
	size_t n;
	void **p;
	size_t *caps, *sizes;
	uint8_t *states;
	size_t offset;
} sz_pg_dst;

sz_pg_dst sz_vec_pages_alloc(const splitzip_page_entry *e, size_t n, size_t cap, size_t offset);
void sz_vec_pages_free(sz_pg_dst *d);

/* The manifest of a valid page stream: its n_out entries, malloc()ed (the caller frees). */
splitzip_page_entry *sz_vec_pages_manifest(const sz_blob *stream, size_t *n_out);

/* A valid page stream decoded with ctx into pages of the manifest's sizes at 'offset' into
 * their allocations, with exact geometry: OK, every page written with its size, the pages'
 * concatenation equal to 'content'. Returns the pages (sz_vec_pages_free() frees them). */
sz_pg_dst sz_vec_pages_decode_check(splitzip_ctx *ctx, const char *name, const sz_blob *stream,
                                    const splitzip_page_entry *e, size_t n, const sz_blob *content,
                                    size_t offset);

/* An invalid page stream fails with 'expect' on ctx, into n_dst pages of 'cap' bytes each. */
void sz_vec_pages_check_rejected(splitzip_ctx *ctx, const char *name, const sz_blob *stream,
                                 size_t n_dst, size_t cap, int expect);

#endif
