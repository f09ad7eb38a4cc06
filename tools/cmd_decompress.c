/*
 * cmd_decompress.c -- 'splitzip decompress IN OUT' and 'splitzip verify FILE': both decode every
 * frame of the input (decode_all); decompress writes the data, verify only checks it.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct decode_job {
	splitzip_ctx *ctx;
	frame_reader r;
	out_file *out; /* NULL: decode only (verify) */
	uint16_t *dbuf;
	size_t dcap; /* elements dbuf holds */
	/* Totals for the summary line. */
	uint64_t frames, elems, bytes_in;
	double t_codec;
} decode_job;

/* Make j->dbuf hold at least n elements. */
static int reserve_output(decode_job *j, uint64_t n)
{
	if (n <= j->dcap)
		return EXIT_OK;
	free(j->dbuf);
	j->dbuf = (uint16_t *)malloc((size_t)n * 2);
	if (!j->dbuf) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	j->dcap = (size_t)n;
	return EXIT_OK;
}

/* Decode the frame in the reader's buffer and write it to the output, if any. */
static int decode_frame(decode_job *j, size_t fsize, const splitzip_frame_info *fi)
{
	int rc = reserve_output(j, fi->n_elems);
	if (rc)
		return rc;
	size_t used = 0, n = 0;
	double t0 = now_s();
	splitzip_status st =
	    splitzip_frame_decompress(j->ctx, j->r.buf, fsize, &used, j->dbuf, j->dcap, &n);
	j->t_codec += now_s() - t0;
	if (st != SPLITZIP_OK) {
		msg("%s: frame %llu at byte %llu: %s", j->r.path, (unsigned long long)j->frames,
		    (unsigned long long)j->r.offset, splitzip_error_string(st));
		return exit_of_status(st);
	}
	if (j->out) {
		rc = out_write(j->out, j->dbuf, n * 2);
		if (rc)
			return rc;
	}
	j->r.offset += fsize;
	j->bytes_in += fsize;
	j->elems += n;
	j->frames++;
	return EXIT_OK;
}

/* Decode every frame up to the end of the input; an input without a frame is an error. */
static int decode_frames(decode_job *j)
{
	for (;;) {
		size_t fsize;
		splitzip_frame_info fi;
		int k = next_frame(&j->r, &fsize, &fi);
		if (k < 0)
			return -k;
		if (k == 0)
			break;
		int rc = decode_frame(j, fsize, &fi);
		if (rc)
			return rc;
	}
	if (j->frames == 0) {
		msg("%s: empty input: no splitzip frame", j->r.path);
		return EXIT_DATA;
	}
	return EXIT_OK;
}

static void print_summary(const decode_job *j, const char *what)
{
	fprintf(stderr,
	        "%s: %s, %llu frame%s, %llu elements, %llu -> %llu bytes, ratio %.4fx, "
	        "decode %.2f GB/s [%s]\n",
	        j->r.path, what, (unsigned long long)j->frames, j->frames == 1 ? "" : "s",
	        (unsigned long long)j->elems, (unsigned long long)j->bytes_in,
	        (unsigned long long)j->elems * 2,
	        j->bytes_in ? (double)j->elems * 2 / (double)j->bytes_in : 0.0,
	        j->t_codec > 0 ? (double)j->elems * 2 / j->t_codec / 1e9 : 0.0,
	        splitzip_ctx_backend_name(j->ctx));
}

/* Decode every frame; write the data to 'out' if not NULL (committed only on success). */
static int decode_all(const options *o, const char *in_path, out_file *out, const char *what)
{
	decode_job j;
	memset(&j, 0, sizeof j);
	j.out = out;
	int rc = make_ctx(o, &j.ctx);
	if (!rc)
		rc = reader_open(&j.r, in_path);
	if (rc) {
		if (out)
			out_abort(out);
		splitzip_ctx_free(j.ctx);
		return rc;
	}
	rc = decode_frames(&j);
	if (!rc && out)
		rc = out_commit(out, o->force);
	if (!rc && !o->quiet)
		print_summary(&j, what);
	if (rc && out)
		out_abort(out);
	free(j.dbuf);
	reader_close(&j.r);
	splitzip_ctx_free(j.ctx);
	return rc;
}

int cmd_decompress(const options *o)
{
	if (o->n_pos != 2) {
		msg("usage: splitzip decompress [options] IN OUT");
		return EXIT_USAGE;
	}
	out_file out;
	int rc = out_open(&out, o->pos[1], o->force);
	if (rc)
		return rc;
	return decode_all(o, o->pos[0], &out, "decompressed");
}

int cmd_verify(const options *o)
{
	if (o->n_pos != 1) {
		msg("usage: splitzip verify FILE");
		return EXIT_USAGE;
	}
	return decode_all(o, o->pos[0], NULL, "OK");
}
