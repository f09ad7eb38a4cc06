/*
 * kv_cache.c -- the paged KV cache the transfer moves: a pool of pages placed in a fixed
 * shuffled order (the pages of one request are scattered in a real paged cache), filled by
 * tiling real K and V activations, grouped for pipelining, and compared page by page.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_proto.h"

void kv_cache_free(kv_cache *c)
{
	free(c->pool);
	free(c->page);
	free(c->bytes);
	memset(c, 0, sizeof *c);
}

int kv_cache_alloc(kv_cache *c, const kv_geometry *g)
{
	memset(c, 0, sizeof *c);
	c->geo = *g;
	c->page_bytes = (size_t)g->tokens * g->kv_heads * g->head_dim * 2;
	c->n_pages = (size_t)g->layers * 2 * g->pages_per_layer;
	if (!c->page_bytes || !c->n_pages || !g->group_pages || c->page_bytes > ((size_t)1 << 30) ||
	    c->n_pages > ((size_t)1 << 24) || c->page_bytes * c->n_pages > ((size_t)64 << 30))
		return -1;
	c->n_groups = (c->n_pages + g->group_pages - 1) / g->group_pages;
	const size_t pool = c->n_pages * c->page_bytes;
	c->pool = aligned_alloc(4096, (pool + 4095) / 4096 * 4096);
	c->page = calloc(c->n_pages, sizeof *c->page);
	c->bytes = calloc(c->n_pages, sizeof *c->bytes);
	size_t *place = calloc(c->n_pages, sizeof *place);
	if (!c->pool || !c->page || !c->bytes || !place) {
		free(place);
		kv_cache_free(c);
		return -1;
	}
	/* A fixed Fisher-Yates shuffle of the pool slots (splitmix64 from a constant seed). */
	uint64_t s = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < c->n_pages; i++)
		place[i] = i;
	for (size_t i = c->n_pages - 1; i > 0; i--) {
		uint64_t z = (s += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		z ^= z >> 31;
		const size_t j = (size_t)(z % (i + 1)), t = place[i];
		place[i] = place[j];
		place[j] = t;
	}
	for (size_t i = 0; i < c->n_pages; i++) {
		c->page[i] = c->pool + place[i] * c->page_bytes;
		c->bytes[i] = c->page_bytes;
	}
	free(place);
	return 0;
}

static uint16_t *read_bf16(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	const long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint16_t *d = size >= 2 ? malloc((size_t)size) : NULL;
	if (d && fread(d, 1, (size_t)size, f) != (size_t)size) {
		free(d);
		d = NULL;
	}
	fclose(f);
	*n = d ? (size_t)size / 2 : 0;
	return d;
}

unsigned kv_cache_kind(const kv_cache *c, size_t page)
{
	return page >= (size_t)c->geo.layers * c->geo.pages_per_layer;
}

/*
 * Page (layer l, K or V, p) holds source elements from ((l * P + p) * E + l * 1024) modulo the
 * source, wrapping: every page of real data, consecutive pages of a layer consecutive tokens,
 * layers shifted against each other.
 */
int kv_cache_fill(kv_cache *c, const char *data_k, const char *data_v)
{
	size_t nk = 0, nv = 0;
	uint16_t *k = read_bf16(data_k, &nk), *v = read_bf16(data_v, &nv);
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	const size_t P = c->geo.pages_per_layer, E = c->page_bytes / 2;
	for (size_t i = 0; i < c->n_pages; i++) {
		const size_t l = (i / P) % c->geo.layers, is_v = kv_cache_kind(c, i), p = i % P;
		const uint16_t *src = is_v ? v : k;
		const size_t ns = is_v ? nv : nk;
		size_t at = ((l * P + p) * E + l * 1024) % ns;
		uint16_t *dst = (uint16_t *)c->page[i];
		for (size_t done = 0; done < E;) {
			size_t run = ns - at < E - done ? ns - at : E - done;
			memcpy(dst + done, src + at, run * 2);
			done += run;
			at = 0;
		}
	}
	free(k);
	free(v);
	return 0;
}

void kv_cache_group(const kv_cache *c, size_t g, size_t *first, size_t *count)
{
	*first = g * c->geo.group_pages;
	const size_t left = c->n_pages - *first;
	*count = left < c->geo.group_pages ? left : c->geo.group_pages;
}

uint64_t kv_cache_compare(const kv_cache *got, const kv_cache *want, size_t first, size_t count)
{
	uint64_t bad = 0;
	for (size_t i = first; i < first + count; i++)
		bad += memcmp(got->page[i], want->page[i], got->page_bytes) != 0;
	return bad;
}
