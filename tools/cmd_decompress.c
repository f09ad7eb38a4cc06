/*
 * cmd_decompress.c -- 'splitzip decompress IN OUT' and 'splitzip verify FILE': both decode every
 * frame of the input (decode_all); decompress writes the data, verify only checks it. Reading,
 * decoding and writing overlap (cli_pipe.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct decode_job {
	splitzip_ctx *ctx;
	frame_reader r; /* reader thread */
	pipe_buf *slot; /* the buffer the reader is filling */
	out_file *out;  /* NULL: decode only (verify) */
	progress prog;
	/* Totals for the summary line (coder thread). */
	uint64_t frames, elems, bytes_in;
	unsigned dtype; /* of the first frame: every frame has it (FORMAT.md §8.2) */
	size_t w;       /* its width in bytes */
	double t0;
} decode_job;

/* If the reader thread is cancelled inside next_frame(), the buffer it was filling (perhaps
 * moved by realloc) goes back to its pipe buffer, which frees it. */
static void slot_back(void *arg)
{
	decode_job *j = (decode_job *)arg;
	j->slot->data = j->r.buf;
	j->slot->cap = j->r.cap;
	j->r.buf = NULL;
	j->r.cap = 0;
}

/* Reader thread: the next frame (header validated, body read in bounded steps) into 'b'. */
static int read_frame(void *arg, pipe_buf *b)
{
	decode_job *j = (decode_job *)arg;
	splitzip_frame_info fi;
	size_t fsize = 0;
	int k;
	if (j->r.map) { /* the frame stays in the mapped file; map it in before the coder runs */
		k = next_frame(&j->r, &fsize, &fi);
		if (k <= 0)
			return k;
		prefault(j->r.frame, fsize);
		b->src = j->r.frame;
		b->len = fsize;
		j->r.offset += fsize;
		return 1;
	}
	j->slot = b;
	j->r.buf = b->data;
	j->r.cap = b->cap;
	pthread_cleanup_push(slot_back, j);
	k = next_frame(&j->r, &fsize, &fi);
	pthread_cleanup_pop(1);
	if (k <= 0)
		return k;
	b->len = fsize;
	j->r.offset += fsize;
	return 1;
}

/* Make 'out' hold at least n elements of w bytes. */
static int reserve_output(pipe_buf *out, uint64_t n, size_t w)
{
	if (n * w <= out->cap)
		return EXIT_OK;
	free(out->data);
	out->data = (unsigned char *)malloc((size_t)n * w);
	out->cap = out->data ? (size_t)n * w : 0;
	if (!out->data) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	advise_huge(out->data, out->cap);
	return EXIT_OK;
}

/* Coder: decode the frame in 'in' into 'out'. */
static int decode_frame(void *arg, const pipe_buf *in, pipe_buf *out)
{
	decode_job *j = (decode_job *)arg;
	splitzip_frame_info fi;
	splitzip_status st = splitzip_get_frame_info(in->src, in->len, &fi);
	if (st == SPLITZIP_OK && j->frames == 0) {
		j->dtype = fi.dtype;
		j->w = splitzip_dtype_width(fi.dtype);
	} else if (st == SPLITZIP_OK && fi.dtype != j->dtype) {
		st = SPLITZIP_ERROR_CORRUPT_STREAM; /* one dtype per stream */
	}
	int rc = st == SPLITZIP_OK ? reserve_output(out, fi.n_elems, j->w) : EXIT_OK;
	if (rc)
		return rc;
	size_t used = 0, n = 0;
	if (st == SPLITZIP_OK)
		st = splitzip_frame_decompress_dtype(j->ctx, in->src, in->len, &used, out->data,
		                                     out->cap, &n);
	if (st != SPLITZIP_OK) {
		msg("%s: frame %llu at byte %llu: %s", j->r.path, (unsigned long long)j->frames,
		    (unsigned long long)j->bytes_in, splitzip_error_string(st));
		return exit_of_status(st);
	}
	out->len = n * j->w;
	j->bytes_in += in->len;
	j->elems += n;
	j->frames++;
	progress_update(&j->prog, j->bytes_in);
	return EXIT_OK;
}

/* Decode every frame up to the end of the input; an input without a frame is an error. */
static int decode_frames(decode_job *j, const options *o)
{
	/* Input buffers sized for the frames 'compress' writes by default, or for the whole file
	 * if it is smaller, so that the reader does not grow them (realloc copies) frame by frame.
	 */
	uint64_t total = j->r.remaining > 0 ? (uint64_t)j->r.remaining : 0;
	size_t in_cap = splitzip_compress_bound(DEFAULT_FRAME_ELEMS);
	pipe_spec sp = {read_frame, j, decode_frame, j, j->out, 0, 0, 0};
	sp.in_cap = j->r.remaining >= 0 && total < in_cap ? (size_t)total : in_cap;
	splitzip_frame_info fi;
	if (j->r.map) { /* frames are used where they are in the mapped file */
		sp.in_cap = 0;
		if (splitzip_get_frame_info(j->r.map, (size_t)j->r.map_size, &fi) == SPLITZIP_OK &&
		    fi.frame_size <
		        j->r.map_size) /* more frames: output buffers for ones like it */
			sp.out_cap = sp.warm = (size_t)fi.n_elems * splitzip_dtype_width(fi.dtype);
	}
	progress_start(&j->prog, o, j->out ? "decompress" : "verify", total);
	int rc = pipe_run(&sp);
	progress_end(&j->prog);
	if (!rc && j->frames == 0) {
		msg("%s: empty input: no splitzip frame", j->r.path);
		return EXIT_DATA;
	}
	return rc;
}

static void print_summary(const decode_job *j, const char *what)
{
	double t = now_s() - j->t0;
	fprintf(stderr,
	        "%s: %s, %llu frame%s, %llu elements, %llu -> %llu bytes, ratio %.4fx, "
	        "%.3f s, %.2f GB/s whole run incl. I/O [%s]\n",
	        j->r.path, what, (unsigned long long)j->frames, j->frames == 1 ? "" : "s",
	        (unsigned long long)j->elems, (unsigned long long)j->bytes_in,
	        (unsigned long long)(j->elems * j->w),
	        j->bytes_in ? (double)(j->elems * j->w) / (double)j->bytes_in : 0.0, t,
	        t > 0 ? (double)(j->elems * j->w) / t / 1e9 : 0.0,
	        splitzip_ctx_backend_name(j->ctx));
}

/* Decode every frame; write the data to 'out' if not NULL (committed only on success). */
static int decode_all(const options *o, const char *in_path, out_file *out, const char *what)
{
	decode_job j;
	memset(&j, 0, sizeof j);
	j.t0 = now_s();
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
	rc = decode_frames(&j, o);
	if (!rc && out)
		rc = out_commit(out, o->force);
	if (!rc && !o->quiet)
		print_summary(&j, what);
	if (rc && out)
		out_abort(out);
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
