/*
 * safetensors.c -- the JSON header of a safetensors file, parsed and validated in the order of
 * doc/FORMAT.md §11.2: JSON syntax, then the structure of every entry, then duplicate names,
 * then each tensor's shape and offsets (in header order), then the tiling of the data buffer.
 * The error names and messages of the container (szst.c) are here too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safetensors.h"

static const char *const st_errors[ST_N_ERRORS][2] = {
    {"OK", "no error"},
    {"TRUNCATED_HEADER", "safetensors file ends inside its header"},
    {"HEADER_TOO_LARGE", "safetensors header larger than 100000000 bytes"},
    {"BAD_JSON", "invalid JSON in the safetensors header"},
    {"BAD_HEADER", "not a safetensors header"},
    {"DUPLICATE_NAME", "duplicate tensor name"},
    {"BAD_SHAPE", "tensor shape does not match its size"},
    {"BAD_OFFSETS", "tensor data_offsets out of range"},
    {"OVERLAP", "tensors overlap"},
    {"GAP", "data bytes outside every tensor"},
    {"BAD_MAGIC", "not a splitzip safetensors container"},
    {"UNSUPPORTED_VERSION", "unsupported container version"},
    {"HEADER_CHECKSUM", "container header checksum mismatch"},
    {"CORRUPT", "corrupt container"},
    {"TRUNCATED", "truncated container"},
    {"METADATA_CHECKSUM", "container metadata checksum mismatch"},
    {"BAD_TABLE", "container tensor table does not match its safetensors header"},
    {"TENSOR_CHECKSUM", "tensor checksum mismatch"},
    {"ELEMENT_COUNT", "tensor frames hold a different number of elements"},
    {"OUT_OF_MEMORY", "out of memory"},
};

const char *st_error_name(st_error e)
{
	return (unsigned)e < ST_N_ERRORS ? st_errors[e][0] : "UNKNOWN";
}

const char *st_error_string(st_error e)
{
	return (unsigned)e < ST_N_ERRORS ? st_errors[e][1] : "unknown error";
}

static const struct {
	const char *name;
	unsigned size, frame_dtype; /* frame_dtype: FORMAT.md §11.5, 0 = never frames */
} st_dtypes[] = {{"BOOL", 1, 0},    {"U8", 1, 0},      {"I8", 1, 0},  {"F8_E5M2", 1, 3},
                 {"F8_E4M3", 1, 2}, {"F8_E8M0", 1, 0}, {"I16", 2, 0}, {"U16", 2, 0},
                 {"F16", 2, 4},     {"BF16", 2, 1},    {"I32", 4, 0}, {"U32", 4, 0},
                 {"F32", 4, 5},     {"I64", 8, 0},     {"U64", 8, 0}, {"F64", 8, 0},
                 {"C64", 8, 0}};

unsigned st_elem_size(const char *dtype)
{
	for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
		if (strcmp(dtype, st_dtypes[i].name) == 0)
			return st_dtypes[i].size;
	return 0;
}

int st_is_bf16(const st_tensor *t)
{
	return strcmp(t->dtype, "BF16") == 0;
}

unsigned st_frame_dtype(const st_tensor *t)
{
	for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
		if (strcmp(t->dtype, st_dtypes[i].name) == 0)
			return st_dtypes[i].frame_dtype;
	return 0;
}

void st_free(st_header *h)
{
	free(h->text);
	free(h->t);
	free(h->dims);
	h->text = NULL;
	h->t = NULL;
	h->dims = NULL;
	h->n = h->cap = h->n_dims = h->cap_dims = 0;
}

void st_printable(const char *s, char *buf, size_t cap)
{
	size_t k = 0;
	for (; s && *s && k + 1 < cap; s++, k++) /* control bytes would reach the terminal */
		buf[k] = (unsigned char)*s < 0x20 || *s == 0x7F ? '?' : *s;
	if (cap)
		buf[k] = 0;
}

static st_error bad(st_header *h, st_error e, const char *fmt, const char *name)
{
	char shown[96];
	st_printable(name, shown, sizeof shown);
	snprintf(h->detail, sizeof h->detail, fmt, shown);
	return e;
}

/* ---- Structure (JSON types and fields) ------------------------------------------------------- */

static int push_dim(st_header *h, uint64_t d)
{
	if (h->n_dims == h->cap_dims) {
		size_t cap = h->cap_dims ? 2 * h->cap_dims : 16;
		uint64_t *nd = (uint64_t *)realloc(h->dims, cap * sizeof *nd);
		if (!nd)
			return 0;
		h->dims = nd;
		h->cap_dims = cap;
	}
	h->dims[h->n_dims++] = d;
	return 1;
}

/* "shape": an array of non-negative integers. */
static st_error parse_shape(st_header *h, jcur *c, st_tensor *t)
{
	if (!json_eat(c, '['))
		return bad(h, ST_BAD_HEADER, "tensor '%s': shape is not an array", t->name);
	t->dims_at = h->n_dims;
	if (json_eat(c, ']'))
		return ST_OK;
	do {
		uint64_t d;
		if (!json_uint(c, &d))
			return bad(h, ST_BAD_HEADER,
			           "tensor '%s': shape holds a value that is not an integer in "
			           "0..2^64-1",
			           t->name);
		if (!push_dim(h, d))
			return ST_OUT_OF_MEMORY;
		t->ndim++;
	} while (json_eat(c, ','));
	json_eat(c, ']');
	return ST_OK;
}

/* "data_offsets": an array of two non-negative integers. */
static st_error parse_offsets(st_header *h, jcur *c, st_tensor *t)
{
	uint64_t v[2];
	int n = 0, ok = json_eat(c, '[');
	if (ok && !json_eat(c, ']')) {
		do {
			uint64_t x;
			ok = json_uint(c, &x) && ok;
			if (n < 2)
				v[n] = x;
			n++;
		} while (json_eat(c, ','));
		json_eat(c, ']');
	}
	if (!ok || n != 2)
		return bad(h, ST_BAD_HEADER,
		           "tensor '%s': data_offsets is not two integers in 0..2^64-1", t->name);
	t->begin = v[0];
	t->end = v[1];
	return ST_OK;
}

/* One field of a tensor entry, named by the 'key_len' bytes at 'key'; 'seen' has a bit per
 * known field. Names are compared in full: one holding U+0000 ("dtype\u0000x") is no known
 * field but an ignored member (FORMAT.md §11.2). */
static st_error parse_field(st_header *h, jcur *c, st_tensor *t, const char *key, size_t key_len,
                            unsigned *seen)
{
	static const char *const known[3] = {"dtype", "shape", "data_offsets"};
	int k = key_len == strlen(key) ? 0 : 3;
	while (k < 3 && strcmp(key, known[k]) != 0)
		k++;
	if (k == 3) { /* unknown fields are ignored */
		json_skip(c);
		return ST_OK;
	}
	if (*seen & (1u << k))
		return bad(h, ST_BAD_HEADER, "tensor '%s': a field appears twice", t->name);
	*seen |= 1u << k;
	if (k == 1)
		return parse_shape(h, c, t);
	if (k == 2)
		return parse_offsets(h, c, t);
	size_t len;
	t->dtype = json_string(c, &len);
	if (!t->dtype)
		json_skip(c);
	if (!t->dtype || len != strlen(t->dtype))
		return bad(h, ST_BAD_HEADER, "tensor '%s': dtype is not a string (without NUL)",
		           t->name);
	return ST_OK;
}

static st_error parse_tensor(st_header *h, jcur *c, st_tensor *t)
{
	if (!json_eat(c, '{'))
		return bad(h, ST_BAD_HEADER, "tensor '%s': not a JSON object", t->name);
	unsigned seen = 0;
	if (!json_eat(c, '}')) {
		do {
			size_t len;
			char *key = json_string(c, &len);
			json_eat(c, ':');
			st_error e = parse_field(h, c, t, key, len, &seen);
			if (e)
				return e;
		} while (json_eat(c, ','));
		json_eat(c, '}');
	}
	if (seen != 7)
		return bad(h, ST_BAD_HEADER, "tensor '%s': dtype, shape or data_offsets missing",
		           t->name);
	return ST_OK;
}

/* "__metadata__": an object whose values are strings. */
static st_error parse_metadata(st_header *h, jcur *c)
{
	if (!json_eat(c, '{'))
		return bad(h, ST_BAD_HEADER, "__metadata__ is not a JSON object", NULL);
	if (json_eat(c, '}'))
		return ST_OK;
	do {
		json_skip(c);
		json_eat(c, ':');
		if (json_peek(c) != '"')
			return bad(h, ST_BAD_HEADER,
			           "__metadata__ holds a value that is not a string", NULL);
		json_skip(c);
	} while (json_eat(c, ','));
	json_eat(c, '}');
	return ST_OK;
}

static st_tensor *new_tensor(st_header *h)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		st_tensor *nt = (st_tensor *)realloc(h->t, cap * sizeof *nt);
		if (!nt)
			return NULL;
		h->t = nt;
		h->cap = cap;
	}
	st_tensor *t = &h->t[h->n];
	memset(t, 0, sizeof *t);
	t->json_index = (uint32_t)h->n++;
	return t;
}

/* The top-level object. __metadata__ counts as a name for duplicates (one slot, no tensor). */
static st_error parse_entries(st_header *h, jcur *c, int *n_meta)
{
	if (!json_eat(c, '{'))
		return bad(h, ST_BAD_HEADER, "the header is not a JSON object", NULL);
	if (json_eat(c, '}'))
		return ST_OK;
	do {
		size_t len;
		char *name = json_string(c, &len);
		json_eat(c, ':');
		if (len != strlen(name))
			return bad(h, ST_BAD_HEADER, "a tensor name holds U+0000", NULL);
		st_error e;
		if (strcmp(name, "__metadata__") == 0) {
			(*n_meta)++;
			e = parse_metadata(h, c);
		} else {
			st_tensor *t = new_tensor(h);
			if (!t)
				return ST_OUT_OF_MEMORY;
			t->name = name;
			e = parse_tensor(h, c, t);
		}
		if (e)
			return e;
	} while (json_eat(c, ','));
	return ST_OK;
}

/* ---- Names, shapes, offsets, tiling ---------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
	return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

/* qsort of the tensors; none (a header of __metadata__ alone, or {}) leaves h->t NULL, which
 * qsort must not be given even for zero elements. */
static void sort_tensors(st_header *h, int (*cmp)(const void *, const void *))
{
	if (h->n > 1)
		qsort(h->t, h->n, sizeof *h->t, cmp);
}

static int by_offset(const void *a, const void *b)
{
	const st_tensor *x = (const st_tensor *)a, *y = (const st_tensor *)b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->json_index < y->json_index ? -1 : x->json_index > y->json_index;
}

static st_error check_names(st_header *h, int n_meta)
{
	if (n_meta > 1)
		return bad(h, ST_DUPLICATE_NAME, "__metadata__ appears more than once", NULL);
	sort_tensors(h, by_name);
	for (size_t i = 1; i < h->n; i++)
		if (strcmp(h->t[i - 1].name, h->t[i].name) == 0)
			return bad(h, ST_DUPLICATE_NAME, "tensor '%s' appears more than once",
			           h->t[i].name);
	return ST_OK;
}

static int by_index(const void *a, const void *b)
{
	uint32_t x = ((const st_tensor *)a)->json_index, y = ((const st_tensor *)b)->json_index;
	return x < y ? -1 : x > y;
}

/* Shape and offsets of one tensor. */
static st_error check_tensor(st_header *h, st_tensor *t)
{
	if (t->ndim > ST_MAX_DIMS)
		return bad(h, ST_BAD_SHAPE, "tensor '%s': more than 64 dimensions", t->name);
	uint64_t n = 1;
	int zero = 0, over = 0;
	for (size_t i = 0; i < t->ndim; i++) {
		uint64_t d = h->dims[t->dims_at + i];
		zero |= d == 0;
		if (d && n > UINT64_MAX / d)
			over = 1;
		else
			n *= d;
	}
	if (over && !zero)
		return bad(h, ST_BAD_SHAPE, "tensor '%s': element count above 2^64-1", t->name);
	t->n_elems = zero ? 0 : n;
	if (t->begin > t->end || t->end > h->data_size)
		return bad(h, ST_BAD_OFFSETS, "tensor '%s': data_offsets outside the data buffer",
		           t->name);
	unsigned es = st_elem_size(t->dtype);
	uint64_t size = t->end - t->begin;
	if (es && (size % es || size / es != t->n_elems))
		return bad(h, ST_BAD_SHAPE, "tensor '%s': size differs from shape x dtype size",
		           t->name);
	return ST_OK;
}

/* In offset order, the tensors must cover the data buffer exactly once. */
static st_error check_tiling(st_header *h)
{
	sort_tensors(h, by_offset);
	uint64_t pos = 0;
	for (size_t i = 0; i < h->n; i++) {
		const st_tensor *t = &h->t[i];
		if (t->begin < pos)
			return bad(h, ST_OVERLAP, "tensor '%s' overlaps the tensor before it",
			           t->name);
		if (t->begin > pos)
			return bad(h, ST_GAP, "bytes before tensor '%s' belong to no tensor",
			           t->name);
		pos = t->end;
	}
	if (pos != h->data_size)
		return bad(h, ST_GAP, "bytes after the last tensor belong to no tensor", NULL);
	return ST_OK;
}

st_error st_parse(st_header *h, const unsigned char *json, size_t len, uint64_t data_size)
{
	memset(h, 0, sizeof *h);
	h->data_size = data_size;
	if (!json_valid(json, len))
		return bad(h, ST_BAD_JSON, "the header is not valid JSON", NULL);
	h->text = (char *)malloc(len + 1);
	if (!h->text)
		return ST_OUT_OF_MEMORY;
	memcpy(h->text, json, len);
	h->text[len] = 0;
	jcur c = {(unsigned char *)h->text, (unsigned char *)h->text + len};
	int n_meta = 0;
	st_error e = parse_entries(h, &c, &n_meta);
	if (!e)
		e = check_names(h, n_meta);
	if (!e)
		sort_tensors(h, by_index);
	for (size_t i = 0; !e && i < h->n; i++)
		e = check_tensor(h, &h->t[i]);
	if (!e)
		e = check_tiling(h);
	if (e == ST_OUT_OF_MEMORY)
		bad(h, e, "out of memory", NULL);
	return e;
}

void st_shape_string(const st_header *h, const st_tensor *t, char *buf, size_t cap)
{
	size_t k = (size_t)snprintf(buf, cap, "[");
	for (size_t i = 0; i < t->ndim && k < cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, "%s%llu", i ? ", " : "",
		                      (unsigned long long)h->dims[t->dims_at + i]);
	if (k < cap)
		k += (size_t)snprintf(buf + k, cap - k, "]");
	if (k >= cap && cap >= 4)
		memcpy(buf + cap - 4, "...", 4);
}
