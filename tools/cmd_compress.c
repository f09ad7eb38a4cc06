/*
 * cmd_compress.c -- 'splitzip compress IN OUT': raw BF16 in, a stream of independent frames out
 * (doc/FORMAT.md §8.1). At most --frame-elems elements are read at a time, so memory stays
 * bounded whatever the input size.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct compress_job {
	splitzip_ctx *ctx;
	FILE *in;
	const char *in_path;
	size_t fe;           /* elements per frame */
	uint16_t *buf;       /* one frame of input */
	unsigned char *cbuf; /* its compressed form */
	size_t cap;          /* size of cbuf */
	out_file out;
	/* Totals for the summary line. */
	uint64_t total_in, total_out, frames, escapes;
	double t_codec;
} compress_job;

/* Read the next frame of input ('*got' bytes, fewer than a frame only at the end). */
static int read_input(compress_job *j, size_t *got)
{
	*got = read_full(j->in, j->buf, j->fe * 2, j->in_path);
	if (*got == (size_t)-1)
		return EXIT_IO;
	if (*got % 2) {
		msg("%s: input is not BF16: its size is an odd number of bytes", j->in_path);
		return EXIT_DATA;
	}
	return EXIT_OK;
}

/* Compress the 'got' bytes in j->buf as one frame and write it. */
static int compress_frame(compress_job *j, size_t got)
{
	size_t csize = 0;
	double t0 = now_s();
	splitzip_status st = splitzip_compress(j->ctx, j->buf, got / 2, j->cbuf, j->cap, &csize);
	j->t_codec += now_s() - t0;
	if (st != SPLITZIP_OK) {
		msg("compression failed: %s", splitzip_error_string(st));
		return exit_of_status(st);
	}
	splitzip_frame_info fi;
	if (splitzip_get_frame_info(j->cbuf, csize, &fi) == SPLITZIP_OK)
		j->escapes += fi.n_escapes;
	int rc = out_write(&j->out, j->cbuf, csize);
	if (rc)
		return rc;
	j->total_in += got;
	j->total_out += csize;
	j->frames++;
	return EXIT_OK;
}

/* Compress the whole input, frame by frame; empty input gives one empty frame. */
static int compress_stream(compress_job *j)
{
	for (;;) {
		size_t got;
		int rc = read_input(j, &got);
		if (rc)
			return rc;
		if (got == 0 && j->frames > 0)
			break;
		rc = compress_frame(j, got);
		if (rc)
			return rc;
		if (got < j->fe * 2)
			break;
	}
	return EXIT_OK;
}

static void print_summary(const compress_job *j)
{
	uint64_t n = j->total_in / 2;
	fprintf(stderr,
	        "%s: %llu -> %llu bytes, ratio %.4fx, %llu elements, %llu escapes (%.3f%%), "
	        "%llu frame%s, encode %.2f GB/s [%s]\n",
	        j->in_path, (unsigned long long)j->total_in, (unsigned long long)j->total_out,
	        j->total_out ? (double)j->total_in / (double)j->total_out : 0.0,
	        (unsigned long long)n, (unsigned long long)j->escapes,
	        n ? 100.0 * (double)j->escapes / (double)n : 0.0, (unsigned long long)j->frames,
	        j->frames == 1 ? "" : "s",
	        j->t_codec > 0 ? (double)j->total_in / j->t_codec / 1e9 : 0.0,
	        splitzip_ctx_backend_name(j->ctx));
}

/* Compress into the output file opened here; committed only if everything succeeded. */
static int compress_to(compress_job *j, const options *o, const char *out_path)
{
	if (!j->buf || !j->cbuf) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	int rc = out_open(&j->out, out_path, o->force);
	if (!rc)
		rc = compress_stream(j);
	if (!rc)
		rc = out_commit(&j->out, o->force);
	if (rc)
		out_abort(&j->out);
	else if (!o->quiet)
		print_summary(j);
	return rc;
}

int cmd_compress(const options *o)
{
	if (o->n_pos != 2) {
		msg("usage: splitzip compress [options] IN OUT");
		return EXIT_USAGE;
	}
	compress_job j;
	memset(&j, 0, sizeof j);
	j.in_path = o->pos[0];
	int rc = make_ctx(o, &j.ctx);
	if (rc)
		return rc;
	j.in = in_open(j.in_path);
	if (!j.in) {
		splitzip_ctx_free(j.ctx);
		return EXIT_IO;
	}
	j.fe = o->frame_elems;
	j.buf = (uint16_t *)malloc(j.fe * 2);
	j.cap = splitzip_compress_bound(j.fe);
	j.cbuf = (unsigned char *)malloc(j.cap);
	rc = compress_to(&j, o, o->pos[1]);
	in_close(j.in);
	free(j.buf);
	free(j.cbuf);
	splitzip_ctx_free(j.ctx);
	return rc;
}
