/*
 * fuzz_pages.c -- arbitrary bytes into the page-stream decoder (doc/FORMAT.md §12, version 2
 * and, for pages of the other dtypes, version 3),
 * the part of a KV receiver that sees what the network delivered.
 *
 * Properties: no crash and no out-of-bounds access (the input is an exact-size heap buffer and
 * every destination page an exact-size allocation), every status is a decoding status;
 * splitzip_pages_get_info() only looks at the header and agrees with the full validation on
 * every header failure; splitzip_pages_decompress() returns the status of
 * splitzip_pages_get_manifest() whenever the structure is broken, and then reports every page
 * untouched, otherwise only a frame body status (CORRUPT_STREAM, CONTENT_CHECKSUM) or OK, with
 * the stream's page sizes and a state per page that is true (an untouched page still holds its
 * fill bytes; on OK every page is written); the manifest's positions follow from its sizes;
 * destinations one byte too small, or one too few, give DST_TOO_SMALL before anything is
 * written; a decodable stream's pages, packed again with the stream's own encoding and chunk
 * size (and dtype), decode to the same pages.
 */
#include "fuzz_common.h"

#define FILL 0xC3

/* Destination pages of exactly caps[i] bytes each (1 byte for 0: malloc(0) may be NULL), filled
 * with FILL. */
static void **alloc_pages(size_t n, const size_t *caps)
{
	void **p = (void **)calloc(n ? n : 1, sizeof *p);
	FUZZ_CHECK(p != NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		p[i] = malloc(caps[i] ? caps[i] : 1);
		FUZZ_CHECK(p[i] != NULL, "out of memory");
		memset(p[i], FILL, caps[i]);
	}
	return p;
}

static void free_pages(void **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
	free(p);
}

static int all_fill(const void *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (((const uint8_t *)p)[k] != FILL)
			return 0;
	return 1;
}

/* The decoded pages packed again with the stream's encoding and chunk size must decode to
 * themselves. */
static void check_repack(const splitzip_pages_info *info, void **pages, const size_t *sizes,
                         size_t n)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = info->encoding == SPLITZIP_MODE_ENTROPY ? SPLITZIP_ENCODING_ENTROPY
	                                                     : SPLITZIP_ENCODING_SPLIT4;
	p.chunk_log2 = info->chunk_log2;
	splitzip_ctx *ctx = NULL;
	FUZZ_CHECK(splitzip_ctx_create(&p, &ctx) == SPLITZIP_OK, "ctx_create");
	size_t max = 0;
	for (size_t i = 0; i < n; i++)
		max = sizes[i] > max ? sizes[i] : max;
	const size_t cap = splitzip_pages_bound_dtype(info->dtype, n, max);
	FUZZ_CHECK(cap > 0, "bound of %zu pages of %zu bytes", n, max);
	uint8_t *s = (uint8_t *)malloc(cap);
	FUZZ_CHECK(s != NULL, "out of memory");
	size_t size = 0, n_out = 0;
	splitzip_status st = splitzip_pages_compress_dtype(
	    ctx, info->dtype, 0, 0, n, (const void *const *)pages, sizes, s, cap, &size);
	FUZZ_CHECK(st == SPLITZIP_OK, "repack: %s", splitzip_status_name(st));
	void **back = alloc_pages(n, sizes);
	st = splitzip_pages_decompress(ctx, s, size, n, back, sizes, SPLITZIP_PAGES_EXACT, NULL,
	                               NULL, &n_out);
	FUZZ_CHECK(st == SPLITZIP_OK && n_out == n, "repacked stream: %s",
	           splitzip_status_name(st));
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(memcmp(back[i], pages[i], sizes[i]) == 0, "repacked page %zu", i);
	free_pages(back, n);
	free(s);
	splitzip_ctx_free(ctx);
}

/* Destinations: one element too small for the first nonempty page, or one page too few:
 * DST_TOO_SMALL, every page untouched. */
static void check_small_dst(splitzip_ctx *ctx, const uint8_t *p, size_t size, size_t n,
                            size_t *caps, size_t w)
{
	size_t k = 0, n_out = 7;
	uint8_t *states = (uint8_t *)malloc(n + 1);
	FUZZ_CHECK(states != NULL, "out of memory");
	while (k < n && caps[k] == 0)
		k++;
	for (int fewer = 0; fewer < 2; fewer++) {
		if (fewer ? n == 0 : k == n)
			continue;
		const size_t m = fewer ? n - 1 : n;
		if (!fewer)
			caps[k] -= w;
		void **pages = alloc_pages(m, caps);
		splitzip_status st = splitzip_pages_decompress(ctx, p, size, m, pages, caps, 0,
		                                               NULL, states, &n_out);
		FUZZ_CHECK(st == SPLITZIP_ERROR_DST_TOO_SMALL && n_out == 0, "%s: %s",
		           fewer ? "one page too few" : "a page too small",
		           splitzip_status_name(st));
		for (size_t i = 0; i < m; i++)
			FUZZ_CHECK(states[i] == SPLITZIP_PAGE_UNTOUCHED &&
			               all_fill(pages[i], caps[i]),
			           "page %zu written", i);
		free_pages(pages, m);
		if (!fewer)
			caps[k] += w;
	}
	free(states);
}

/* The manifest of a valid structure: positions in the coded elements and the raw bytes follow
 * from the sizes; no page is larger than the input could describe. */
static void check_manifest(const splitzip_page_entry *e, size_t n, size_t size, size_t w)
{
	uint64_t coded = 0, raw = 0;
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(e[i].page_bytes % w == 0, "page %zu not whole elements", i);
		if (e[i].encoding == SPLITZIP_PAGE_RAW) {
			FUZZ_CHECK(e[i].position == raw, "raw position %zu", i);
			raw += e[i].page_bytes;
		} else {
			FUZZ_CHECK(e[i].encoding == SPLITZIP_PAGE_FRAME, "encoding %zu", i);
			FUZZ_CHECK(e[i].position == coded, "coded position %zu", i);
			coded += e[i].page_bytes / w;
		}
	}
	FUZZ_CHECK(raw <= size, "raw bytes %llu from %zu", (unsigned long long)raw, size);
}

/* The decompression of a stream whose structure passed: statuses, sizes and states. */
static void check_decode(splitzip_ctx *ctx, const uint8_t *p, size_t size,
                         const splitzip_page_entry *e, size_t nd, size_t *caps)
{
	void **pages = alloc_pages(nd, caps);
	size_t *sizes = (size_t *)calloc(nd + 1, sizeof *sizes), n_out = 12345;
	uint8_t *states = (uint8_t *)calloc(nd + 1, 1);
	FUZZ_CHECK(sizes && states, "out of memory");
	const splitzip_status st =
	    splitzip_pages_decompress(ctx, p, size, nd, pages, caps, 0, sizes, states, &n_out);
	FUZZ_CHECK(st == SPLITZIP_OK || st == SPLITZIP_ERROR_CORRUPT_STREAM ||
	               st == SPLITZIP_ERROR_CONTENT_CHECKSUM,
	           "decompress of a valid structure: %s", splitzip_status_name(st));
	FUZZ_CHECK(st == SPLITZIP_OK ? n_out == nd : n_out == 0, "page count %zu", n_out);
	for (size_t i = 0; i < nd; i++) {
		FUZZ_CHECK(sizes[i] == e[i].page_bytes, "page size %zu", i);
		FUZZ_CHECK(states[i] <= SPLITZIP_PAGE_DAMAGED, "state %u", states[i]);
		FUZZ_CHECK(st != SPLITZIP_OK || states[i] == SPLITZIP_PAGE_WRITTEN, "page %zu", i);
		FUZZ_CHECK(states[i] != SPLITZIP_PAGE_UNTOUCHED || all_fill(pages[i], caps[i]),
		           "page %zu reported untouched was written", i);
	}
	if (st == SPLITZIP_OK) {
		splitzip_pages_info info;
		FUZZ_CHECK(splitzip_pages_get_info(p, size, &info) == SPLITZIP_OK, "get_info");
		check_small_dst(ctx, p, size, nd, caps, splitzip_dtype_width(info.dtype));
		check_repack(&info, pages, caps, nd);
	}
	free_pages(pages, nd);
	free(sizes);
	free(states);
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
	if (mst == SPLITZIP_OK) {
		FUZZ_CHECK(n < max_entries, "%llu pages in %zu bytes", (unsigned long long)n, size);
		check_manifest(e, (size_t)n, size, splitzip_dtype_width(info.dtype));
		size_t *caps = (size_t *)calloc((size_t)n + 1, sizeof *caps);
		FUZZ_CHECK(caps != NULL, "out of memory");
		for (size_t i = 0; i < n; i++)
			caps[i] = (size_t)e[i].page_bytes;
		check_decode(ctx, p, size, e, (size_t)n, caps);
		free(caps);
	} else { /* a broken structure: its status, nothing written */
		size_t caps[3] = {64, 64, 64}, sizes[3] = {1, 1, 1}, n_out = 3;
		uint8_t states[3] = {9, 9, 9};
		void **pages = alloc_pages(3, caps);
		const splitzip_status st = splitzip_pages_decompress(ctx, p, size, 3, pages, caps,
		                                                     0, sizes, states, &n_out);
		FUZZ_CHECK(st == mst, "decompress %s, get_manifest %s", splitzip_status_name(st),
		           splitzip_status_name(mst));
		for (size_t i = 0; i < 3; i++)
			FUZZ_CHECK(n_out == 0 && sizes[i] == 0 &&
			               states[i] == SPLITZIP_PAGE_UNTOUCHED &&
			               all_fill(pages[i], 64),
			           "page %zu after a broken structure", i);
		free_pages(pages, 3);
	}
	free(e);
	splitzip_ctx_free(ctx);
	return 0;
}
