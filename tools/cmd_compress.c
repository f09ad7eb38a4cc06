/*
 * cmd_compress.c -- 'splitzip compress IN OUT': raw BF16 (or the --dtype) in, a stream of
 * independent frames out (doc/FORMAT.md §8.1). At most --frame-elems elements are read at a time,
 * so memory stays bounded whatever the input size; reading, compressing and writing overlap
 * (cli_pipe.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "cli.h"

typedef struct compress_job {
	splitzip_ctx *ctx;
	FILE *in;
	const char *in_path;
	size_t fe;                /* elements per frame */
	unsigned dtype;           /* --dtype */
	size_t w;                 /* its element width in bytes */
	int in_frames;            /* frames read so far (reader thread) */
	int in_end;               /* the last frame has been read (reader thread) */
	const unsigned char *map; /* the input file mapped (map_input), or NULL: read it */
	uint64_t map_size, map_pos;
	progress prog;
	/* Totals for the summary line (coder thread). */
	uint64_t total_in, total_out, frames, escapes;
	double t0;
} compress_job;

/* Reader thread: the next frame of input, fewer bytes than a frame only at the end; empty input
 * gives one empty frame. */
static int read_input(void *arg, pipe_buf *b)
{
	compress_job *j = (compress_job *)arg;
	if (j->in_end)
		return 0;
	size_t got;
	if (j->map) { /* the frame stays in the mapped file; map it in before the coder runs */
		uint64_t left = j->map_size - j->map_pos;
		got = left < j->fe * j->w ? (size_t)left : j->fe * j->w;
		b->src = j->map + j->map_pos;
		prefault(b->src, got);
		j->map_pos += got;
	} else {
		got = read_fd(fileno(j->in), b->data, j->fe * j->w, j->in_path);
	}
	if (got == (size_t)-1)
		return -EXIT_IO;
	if (got % j->w) {
		msg("%s: input is not %s: its size is not a multiple of %zu bytes", j->in_path,
		    splitzip_dtype_name(j->dtype), j->w);
		return -EXIT_DATA;
	}
	if (got == 0 && j->in_frames > 0)
		return 0;
	j->in_end = got < j->fe * j->w;
	j->in_frames++;
	b->len = got;
	return 1;
}

/* Coder: compress one frame of input into 'out'. */
static int compress_frame(void *arg, const pipe_buf *in, pipe_buf *out)
{
	compress_job *j = (compress_job *)arg;
	size_t csize = 0;
	splitzip_status st = splitzip_compress_dtype(j->ctx, j->dtype, in->src, in->len / j->w,
	                                             out->data, out->cap, &csize);
	if (st != SPLITZIP_OK) {
		msg("compression failed: %s", splitzip_error_string(st));
		return exit_of_status(st);
	}
	splitzip_frame_info fi;
	if (splitzip_get_frame_info(out->data, csize, &fi) == SPLITZIP_OK)
		j->escapes += fi.n_escapes;
	out->len = csize;
	j->total_in += in->len;
	j->total_out += csize;
	j->frames++;
	progress_update(&j->prog, j->total_in);
	return EXIT_OK;
}

static void print_summary(const compress_job *j)
{
	uint64_t n = j->total_in / j->w;
	double t = now_s() - j->t0;
	fprintf(stderr,
	        "%s: %llu -> %llu bytes, ratio %.4fx, %llu elements, %llu escapes (%.3f%%), "
	        "%llu frame%s, %.3f s, %.2f GB/s whole run incl. I/O [%s, %s]\n",
	        j->in_path, (unsigned long long)j->total_in, (unsigned long long)j->total_out,
	        j->total_out ? (double)j->total_in / (double)j->total_out : 0.0,
	        (unsigned long long)n, (unsigned long long)j->escapes,
	        n ? 100.0 * (double)j->escapes / (double)n : 0.0, (unsigned long long)j->frames,
	        j->frames == 1 ? "" : "s", t, t > 0 ? (double)j->total_in / t / 1e9 : 0.0,
	        splitzip_ctx_backend_name(j->ctx), splitzip_dtype_name(j->dtype));
}

/* Compress into the output file opened here; committed only if everything succeeded. */
static int compress_to(compress_job *j, const options *o, const char *out_path)
{
	out_file out;
	int rc = out_open(&out, out_path, o->force);
	if (rc)
		return rc;
	pipe_spec sp = {read_input, j, compress_frame, j, &out, 0, 0, 0};
	j->map = map_input(j->in, &j->map_size);
	sp.in_cap = j->map ? 0 : j->fe * j->w;      /* a mapped file needs no input buffers */
	if (j->map && j->map_size > j->fe * j->w) { /* a second frame: about 3/4 of it */
		uint64_t rest = j->map_size - j->fe * j->w,
		         second = rest < j->fe * j->w ? rest : j->fe * j->w;
		sp.warm = (size_t)(second / 4 * 3) + 4096;
	}
	sp.out_cap = splitzip_compress_bound_dtype(j->dtype, j->fe);
	progress_start(&j->prog, o, "compress", file_size_of(j->in));
	rc = pipe_run(&sp);
	progress_end(&j->prog);
	unmap_input(j->map, j->map_size);
	if (!rc)
		rc = out_commit(&out, o->force);
	if (rc)
		out_abort(&out);
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
	j.t0 = now_s();
	j.in_path = o->pos[0];
	j.fe = o->frame_elems;
	j.dtype = o->dtype;
	j.w = splitzip_dtype_width(o->dtype);
	int rc = make_ctx(o, &j.ctx);
	if (rc)
		return rc;
	j.in = in_open(j.in_path);
	if (!j.in) {
		splitzip_ctx_free(j.ctx);
		return EXIT_IO;
	}
	rc = compress_to(&j, o, o->pos[1]);
	in_close(j.in);
	splitzip_ctx_free(j.ctx);
	return rc;
}
