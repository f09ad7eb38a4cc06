/*
 * fuzz_safetensors.c -- arbitrary bytes into the safetensors header parser and the container
 * reader of the CLI (tools/st_json.c, tools/safetensors.c, tools/szst.c).
 *
 * Properties: no crash and no out-of-bounds access (exact-size input); every result is a known
 * error; a header the parser accepts describes tensors that tile the data buffer, with names
 * free of NUL and sizes that match their shape; such a header, put in a container by
 * szst_build() with any stored sizes (version 1, or version 2 where it has an F16, F32 or FP8
 * tensor), is read back by szst_read_header() and szst_read_meta() with the same tensors, and
 * as version 2 without such a tensor is BAD_TABLE; a container the reader accepts is
 * canonical: szst_build() from its own source header and table rewrites its first bytes
 * exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "safetensors.h"

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* An accepted header: tensors tile [0, data_size) in order; names and sizes are sane. */
static void check_header(const st_header *h)
{
	uint64_t pos = 0;
	for (size_t i = 0; i < h->n; i++) {
		const st_tensor *t = &h->t[i];
		FUZZ_CHECK(t->begin == pos && t->end >= t->begin, "tiling at tensor %zu", i);
		FUZZ_CHECK(t->ndim <= ST_MAX_DIMS && t->name && t->dtype, "tensor %zu", i);
		unsigned es = st_elem_size(t->dtype);
		FUZZ_CHECK(!es || t->end - t->begin == t->n_elems * es, "size of tensor %zu", i);
		pos = t->end;
	}
	FUZZ_CHECK(pos == h->data_size, "the tensors end at %llu", (unsigned long long)pos);
}

/* Put an accepted header into a container of 'version' (stored sizes from 'seed') and read it
 * back. */
static void check_container_of(const uint8_t *head, size_t head_size, const st_header *h,
                               uint64_t seed, unsigned version)
{
	szst_header c = {version, (uint32_t)h->n, head_size, head_size + h->data_size, 0, 0};
	szst_entry *e = (szst_entry *)calloc(h->n + 1, sizeof *e), *back = NULL;
	uint8_t *file = NULL;
	for (size_t i = 0; i < h->n; i++) {
		e[i].encoding = szst_encoding(&h->t[i], version);
		e[i].source_size = h->t[i].end - h->t[i].begin;
		e[i].raw_crc = e[i].encoding == SZST_RAW ? (uint32_t)(seed * (i + 1)) : 0;
		e[i].stored_size = e[i].encoding == SZST_RAW ? e[i].source_size
		                                             : 64 + 16 * ((seed >> (i % 32)) & 7);
	}
	size_t meta_len = (size_t)(szst_data_offset(&c) - SZST_HEADER_SIZE);
	uint8_t *meta = (uint8_t *)malloc(meta_len);
	szst_build(&c, head, e, meta);
	if (c.container_size > ((uint64_t)64 << 20)) /* stored sizes too large to materialise */
		goto out;
	file = (uint8_t *)calloc(1, (size_t)c.container_size);
	szst_write_header(file, &c);
	memcpy(file + SZST_HEADER_SIZE, meta, meta_len);
	szst_header r;
	st_header sth;
	char detail[256];
	back = (szst_entry *)calloc(h->n + 1, sizeof *back);
	FUZZ_CHECK(szst_read_header(file, (size_t)c.container_size, c.container_size, &r) == ST_OK,
	           "written container header rejected");
	st_error err =
	    szst_read_meta(&r, file + SZST_HEADER_SIZE, &sth, back, detail, sizeof detail);
	if (version == 2 && szst_version_for(h) == 1) { /* FORMAT.md §11.6 step 11 */
		FUZZ_CHECK(err == ST_BAD_TABLE, "version 2 without F16/F32/FP8: %s",
		           st_error_name(err));
		st_free(&sth);
		goto out;
	}
	FUZZ_CHECK(err == ST_OK, "written container rejected: %s %s", st_error_name(err), detail);
	FUZZ_CHECK(r.version == version, "version %u read as %u", version, r.version);
	FUZZ_CHECK(sth.n == h->n && memcmp(back, e, h->n * sizeof *e) == 0, "table differs");
	for (size_t i = 0; i < h->n; i++)
		FUZZ_CHECK(strcmp(sth.t[i].name, h->t[i].name) == 0, "tensor order differs");
	st_free(&sth);
out:
	free(back);
	free(file);
	free(meta);
	free(e);
}

/* The input as a safetensors file. */
static void as_safetensors(const uint8_t *data, size_t size)
{
	if (size < 8)
		return;
	uint64_t n = le64(data);
	if (n > ST_MAX_HEADER || n > size - 8)
		return;
	st_header h;
	st_error err = st_parse(&h, data + 8, (size_t)n, size - 8 - n);
	FUZZ_CHECK(err < ST_BAD_MAGIC || err == ST_OUT_OF_MEMORY, "error %d", (int)err);
	if (err == ST_OK) {
		FUZZ_CHECK(json_valid(data + 8, (size_t)n), "accepted invalid JSON");
		check_header(&h);
		if (n >= 2) {
			/* version 1 (what 1.2 wrote, F16/F32/FP8 as they are) and version 2 */
			check_container_of(data, (size_t)(8 + n), &h, size, 1);
			check_container_of(data, (size_t)(8 + n), &h, size, 2);
		}
	}
	st_free(&h);
}

/* The input as a container: accepted ones are canonical. */
static void as_container(const uint8_t *data, size_t size)
{
	szst_header h;
	if (szst_read_header(data, size, size, &h) != ST_OK)
		return;
	st_header sth;
	char detail[256];
	szst_entry *e = (szst_entry *)calloc((size_t)h.count + 1, sizeof *e);
	st_error err = szst_read_meta(&h, data + SZST_HEADER_SIZE, &sth, e, detail, sizeof detail);
	if (err == ST_OK) {
		check_header(&sth);
		size_t meta_len = (size_t)(szst_data_offset(&h) - SZST_HEADER_SIZE);
		uint8_t *meta = (uint8_t *)malloc(meta_len ? meta_len : 1), hdr[SZST_HEADER_SIZE];
		szst_header again = h;
		szst_build(&again, data + SZST_HEADER_SIZE, e, meta);
		szst_write_header(hdr, &again);
		FUZZ_CHECK(memcmp(hdr, data, sizeof hdr) == 0, "container header not canonical");
		FUZZ_CHECK(memcmp(meta, data + SZST_HEADER_SIZE, meta_len) == 0,
		           "metadata differs");
		free(meta);
	}
	st_free(&sth);
	free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	as_safetensors(data, size);
	as_container(data, size);
	return 0;
}
