/*
 * cmd_info_st.c -- 'splitzip info PACKED' for a splitzip safetensors container (FORMAT.md §11,
 * versions 1 and 2): the container's metadata is validated (cli_st.c), then the frame headers of
 * each tensor stored as frames (BF16; version 2: F16, F32, FP8) are read (not decoded) for its
 * escape count; one line per tensor with its dtype, ratio and escape rate.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

typedef struct tensor_info {
	uint64_t elems, escapes, frames;
} tensor_info;

static int info_fail(const szst_file *c, const char *name, st_error e, const char *what)
{
	msg("%s: tensor '%s': %s [%s]%s", c->path, name, st_error_string(e), st_error_name(e),
	    what);
	return EXIT_DATA;
}

/* Walk the frame headers of entry i: they must fill its stored bytes exactly (the checks of
 * unpack, less decoding). */
static int frame_headers(const szst_file *c, size_t i, tensor_info *ti)
{
	const szst_entry *e = &c->e[i];
	uint64_t off = e->stored_offset, end = e->stored_offset + e->stored_size;
	unsigned dtype = st_frame_dtype(&c->sth.t[i]);
	char name[96];
	st_printable(c->sth.t[i].name, name, sizeof name);
	while (off < end) {
		unsigned char hdr[SPLITZIP_FRAME_HEADER_SIZE];
		splitzip_frame_info fi;
		if (end - off < sizeof hdr)
			return info_fail(c, name, ST_CORRUPT,
			                 ": frames do not fill its stored size");
		if (pread(fileno(c->in), hdr, sizeof hdr, (off_t)off) != (ssize_t)sizeof hdr) {
			msg("%s: file changed while being read", c->path);
			return EXIT_IO;
		}
		splitzip_status st = splitzip_get_frame_info(hdr, sizeof hdr, &fi);
		if (st != SPLITZIP_OK) {
			msg("%s: tensor '%s': frame header: %s [%s]", c->path, name,
			    splitzip_error_string(st), splitzip_status_name(st));
			return EXIT_DATA;
		}
		if (fi.dtype != dtype)
			return info_fail(c, name, ST_CORRUPT, ": a frame of another dtype");
		if (fi.frame_size > end - off)
			return info_fail(c, name, ST_CORRUPT,
			                 ": a frame runs past its stored size");
		ti->elems += fi.n_elems;
		ti->escapes += fi.n_escapes;
		ti->frames++;
		off += fi.frame_size;
	}
	if (ti->elems * splitzip_dtype_width(dtype) != e->source_size)
		return info_fail(c, name, ST_ELEMENT_COUNT, "");
	return EXIT_OK;
}

static void print_totals(const szst_file *c, const tensor_info *ti)
{
	uint64_t elems = 0, esc = 0, n_bf16 = 0, n_frames = 0;
	for (size_t i = 0; i < c->sth.n; i++) {
		n_bf16 += st_is_bf16(&c->sth.t[i]);
		n_frames += c->e[i].encoding == SZST_FRAMES;
		elems += ti[i].elems;
		esc += ti[i].escapes;
	}
	printf("file:            %s\n", c->path);
	printf("container:       splitzip safetensors container, version %u\n", c->h.version);
	printf("safetensors:     %llu bytes (header %llu bytes), %zu tensors, %llu BF16\n",
	       (unsigned long long)c->h.source_size, (unsigned long long)c->h.source_header_size,
	       c->sth.n, (unsigned long long)n_bf16);
	if (n_frames > n_bf16)
		printf("compressed:      %llu F16/F32/FP8 tensors too\n",
		       (unsigned long long)(n_frames - n_bf16));
	printf("packed:          %llu bytes, ratio %.4fx\n", (unsigned long long)c->size,
	       (double)c->h.source_size / (double)c->size);
	printf("%-17s%llu, %llu escapes (%.4f%%)\n\n",
	       n_frames > n_bf16 ? "frame elements:" : "BF16 elements:", (unsigned long long)elems,
	       (unsigned long long)esc, elems ? 100.0 * (double)esc / (double)elems : 0.0);
}

static void print_tensors(const szst_file *c, const tensor_info *ti)
{
	int w = 6;
	for (size_t i = 0; i < c->sth.n; i++) {
		int len = (int)strlen(c->sth.t[i].name);
		w = len > w ? (len < 48 ? len : 48) : w;
	}
	printf("%-*s  %-8s %-18s %14s %14s %9s %9s\n", w, "tensor", "dtype", "shape", "bytes",
	       "stored", "ratio", "escapes");
	for (size_t i = 0; i < c->sth.n; i++) {
		const st_tensor *t = &c->sth.t[i];
		const szst_entry *e = &c->e[i];
		char name[49], dtype[9], shape[19], esc[16] = "-";
		st_printable(t->name, name, sizeof name);
		st_printable(t->dtype, dtype, sizeof dtype);
		st_shape_string(&c->sth, t, shape, sizeof shape);
		if (e->encoding == SZST_FRAMES)
			snprintf(esc, sizeof esc, "%.4f%%",
			         ti[i].elems ? 100.0 * (double)ti[i].escapes / (double)ti[i].elems
			                     : 0.0);
		printf("%-*s  %-8s %-18s %14llu %14llu %8.4fx %9s\n", w, name, dtype, shape,
		       (unsigned long long)e->source_size, (unsigned long long)e->stored_size,
		       e->stored_size ? (double)e->source_size / (double)e->stored_size : 1.0, esc);
	}
}

int cmd_info_container(const options *o)
{
	szst_file c;
	int rc = szst_open(&c, o->pos[0]);
	tensor_info *ti = rc ? NULL : (tensor_info *)calloc(c.sth.n + 1, sizeof *ti);
	if (!rc && !ti) {
		msg("out of memory");
		rc = EXIT_RESOURCES;
	}
	for (size_t i = 0; !rc && i < c.sth.n; i++)
		if (c.e[i].encoding == SZST_FRAMES)
			rc = frame_headers(&c, i, &ti[i]);
	if (!rc) {
		print_totals(&c, ti);
		print_tensors(&c, ti);
	}
	free(ti);
	szst_close(&c);
	return rc;
}
