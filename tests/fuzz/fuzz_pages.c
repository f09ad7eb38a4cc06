/*
 * fuzz_pages.c -- arbitrary bytes into the page-stream decoder (doc/FORMAT.md §12), the part of
 * a KV receiver that sees what the network delivered.
 *
 * Properties: no crash and no out-of-bounds access (the input is an exact-size heap buffer and
 * every destination page an exact-size allocation), every status is a decoding status;
 * splitzip_pages_get_info() only looks at the header and agrees with the full validation on
 * every header failure; splitzip_pages_decompress() returns the status of
 * splitzip_pages_get_manifest() whenever the structure is broken, and otherwise only a frame
 * body status (CORRUPT_STREAM, CONTENT_CHECKSUM) or OK; it never reports pages on failure;
 * destinations one byte too small, or one too few, give DST_TOO_SMALL before anything is
 * decoded; a decodable stream's pages, packed again, decode to the same pages.
 */
#include "fuzz_common.h"

/* Destination pages of exactly caps[i] bytes each (1 byte for 0: malloc(0) may be NULL). */
static void **alloc_pages(size_t n, const size_t *caps)
{
	void **p = (void **)calloc(n ? n : 1, sizeof *p);
	FUZZ_CHECK(p != NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		p[i] = malloc(caps[i] ? caps[i] : 1);
		FUZZ_CHECK(p[i] != NULL, "out of memory");
	}
	return p;
}

static void free_pages(void **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

/* The decoded pages packed again with default parameters must decode to themselves. */
static void check_repack(splitzip_ctx *ctx, void **pages, const size_t *sizes, size_t n)
{
	size_t max = 0;
	for (size_t i = 0; i < n; i++)
		max = sizes[i] > max ? sizes[i] : max;
	const size_t cap = splitzip_pages_bound(n, max);
	FUZZ_CHECK(cap > 0, "bound of %zu pages of %zu bytes", n, max);
	uint8_t *s = (uint8_t *)malloc(cap);
	FUZZ_CHECK(s != NULL, "out of memory");
	size_t size = 0, n_out = 0;
	splitzip_status st =
	    splitzip_pages_compress(ctx, 0, n, (const void *const *)pages, sizes, s, cap, &size);
	FUZZ_CHECK(st == SPLITZIP_OK, "repack: %s", splitzip_status_name(st));
	void **back = alloc_pages(n, sizes);
	st = splitzip_pages_decompress(ctx, s, size, n, back, sizes, NULL, &n_out);
	FUZZ_CHECK(st == SPLITZIP_OK && n_out == n, "repacked stream: %s",
	           splitzip_status_name(st));
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(memcmp(back[i], pages[i], sizes[i]) == 0, "repacked page %zu", i);
	free_pages(back, n);
	free(s);
}

/* Destinations: one byte too small for the first nonempty page, or one page too few. */
static void check_small_dst(splitzip_ctx *ctx, const uint8_t *p, size_t size, size_t n,
                            size_t *caps)
{
	size_t k = 0;
	while (k < n && caps[k] == 0)
		k++;
	size_t n_out = 7;
	if (k < n) {
		caps[k] -= 2;
		void **pages = alloc_pages(n, caps);
		splitzip_status st =
		    splitzip_pages_decompress(ctx, p, size, n, pages, caps, NULL, &n_out);
		FUZZ_CHECK(st == SPLITZIP_ERROR_DST_TOO_SMALL && n_out == 0, "page %zu smaller: %s",
		           k, splitzip_status_name(st));
		free_pages(pages, n);
		caps[k] += 2;
	}
	if (n) {
		void **pages = alloc_pages(n - 1, caps);
		splitzip_status st =
		    splitzip_pages_decompress(ctx, p, size, n - 1, pages, caps, NULL, &n_out);
		FUZZ_CHECK(st == SPLITZIP_ERROR_DST_TOO_SMALL, "one page too few: %s",
		           splitzip_status_name(st));
		free_pages(pages, n - 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t size)
{
	static const uint8_t empty[1];
	if (!p)
		p = empty;
	splitzip_pages_info info;
	const splitzip_status ist = splitzip_pages_get_info(p, size, &info);
	FUZZ_CHECK(fuzz_is_decode_status(ist) && ist != SPLITZIP_ERROR_DST_TOO_SMALL &&
	               ist != SPLITZIP_ERROR_CONTENT_CHECKSUM,
	           "get_info: %s", splitzip_status_name(ist));

	/* The structure, with room for the entries of a stream that fits in the input. */
	const size_t max_entries = size / SPLITZIP_PAGES_ENTRY_SIZE + 1;
	splitzip_page_entry *e = (splitzip_page_entry *)calloc(max_entries, sizeof *e);
	FUZZ_CHECK(e != NULL, "out of memory");
	uint64_t n = 0;
	const splitzip_status mst = splitzip_pages_get_manifest(p, size, e, max_entries, &n);
	FUZZ_CHECK(fuzz_is_decode_status(mst) && mst != SPLITZIP_ERROR_DST_TOO_SMALL &&
	               mst != SPLITZIP_ERROR_CONTENT_CHECKSUM,
	           "get_manifest: %s", splitzip_status_name(mst));
	FUZZ_CHECK(ist == SPLITZIP_OK || mst == ist, "get_info %s, get_manifest %s",
	           splitzip_status_name(ist), splitzip_status_name(mst));

	splitzip_ctx *ctx = NULL;
	FUZZ_CHECK(splitzip_ctx_create(NULL, &ctx) == SPLITZIP_OK, "ctx_create");
	/* Destinations: the manifest's page sizes when it is valid, else a few small pages. */
	size_t nd = mst == SPLITZIP_OK ? (size_t)n : 3;
	FUZZ_CHECK(mst != SPLITZIP_OK || nd < max_entries, "%zu pages in %zu bytes", nd, size);
	size_t *caps = (size_t *)calloc(nd + 1, sizeof *caps), *sizes = (size_t *)calloc(nd + 1, 8);
	FUZZ_CHECK(caps && sizes, "out of memory");
	for (size_t i = 0; i < nd; i++) {
		caps[i] = mst == SPLITZIP_OK ? (size_t)e[i].page_bytes : 64;
		FUZZ_CHECK(mst != SPLITZIP_OK || e[i].offset % SPLITZIP_PAGES_ALIGN == 0,
		           "alignment");
		FUZZ_CHECK(mst != SPLITZIP_OK || caps[i] <= 2 * (size_t)size,
		           "page of %zu bytes from %zu", caps[i], size);
	}
	void **pages = alloc_pages(nd, caps);
	size_t n_out = 12345;
	const splitzip_status st =
	    splitzip_pages_decompress(ctx, p, size, nd, pages, caps, sizes, &n_out);
	if (mst != SPLITZIP_OK)
		FUZZ_CHECK(st == mst, "decompress %s, get_manifest %s", splitzip_status_name(st),
		           splitzip_status_name(mst));
	else
		FUZZ_CHECK(st == SPLITZIP_OK || st == SPLITZIP_ERROR_CORRUPT_STREAM ||
		               st == SPLITZIP_ERROR_CONTENT_CHECKSUM,
		           "decompress of a valid structure: %s", splitzip_status_name(st));
	FUZZ_CHECK(st == SPLITZIP_OK ? n_out == nd : n_out == 0, "page count %zu", n_out);
	for (size_t i = 0; i < nd; i++)
		FUZZ_CHECK(sizes[i] == (st == SPLITZIP_OK ? caps[i] : 0), "page size %zu", i);
	if (st == SPLITZIP_OK) {
		check_small_dst(ctx, p, size, nd, caps);
		check_repack(ctx, pages, caps, nd);
	}
	free_pages(pages, nd);
	free(caps);
	free(sizes);
	free(e);
	splitzip_ctx_free(ctx);
	return 0;
}
