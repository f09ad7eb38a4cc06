/*
 * cmd_pack.c -- 'splitzip pack IN.safetensors OUT': the splitzip safetensors container
 * (doc/FORMAT.md §11). pack keeps the safetensors header and every other tensor as they are and
 * compresses each BF16, F16, F32, F8_E4M3 and F8_E5M2 tensor into its own frames of its dtype
 * (its own codebook per frame; --codebook and --table apply to the BF16 tensors only, the others
 * take theirs from their data; E4M3, which has no split4, is entropy coded unless --mode auto).
 * A file with a tensor of the four dtypes besides BF16 gives container version 2, any other
 * version 1. It runs on the I/O pipeline (cli_pipe.c): the blocks are the tensors' bytes in file
 * order, at most one frame (--frame-elems) each, tagged with their tensor's index.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define LAST_BLOCK 1u /* pipe_buf.user: bit 0 = last block of the tensor, the rest its index */

typedef struct pack_job {
	splitzip_ctx *ctx;       /* BF16 tensors: the options as given */
	splitzip_ctx *ctx_other; /* the other dtypes: no fixed codebook or table */
	splitzip_ctx *ctx_e4m3;  /* F8_E4M3: as ctx_other, entropy in place of split4 */
	st_file f;
	szst_header h;
	szst_entry *e;
	size_t fe;    /* elements per frame */
	size_t w_max; /* the widest element of a tensor stored as frames (at least 2) */
	/* reader */
	size_t rd_i;
	uint64_t rd_left;
	int rd_open;
	/* coder */
	uint64_t done, escapes, frame_elems;
	progress prog;
	double t0;
} pack_job;

/* Reader: the next block of the input's data buffer, tensor by tensor in file order. An empty
 * tensor stored as frames is one empty block (it becomes an empty frame), an empty other tensor
 * none. A block of frames is at most --frame-elems elements of its tensor's width, a block of
 * another tensor at most as many bytes as two-byte elements. */
static int pack_read(void *arg, pipe_buf *b)
{
	pack_job *j = (pack_job *)arg;
	while (j->rd_i < j->f.h.n) {
		const st_tensor *t = &j->f.h.t[j->rd_i];
		int frames = j->e[j->rd_i].encoding == SZST_FRAMES;
		if (!j->rd_open) {
			j->rd_left = t->end - t->begin;
			j->rd_open = 1;
		}
		if (j->rd_left == 0 && !frames) {
			j->rd_i++;
			j->rd_open = 0;
			continue;
		}
		size_t blk = j->fe * (frames ? st_elem_size(t->dtype) : 2);
		size_t want = j->rd_left < blk ? (size_t)j->rd_left : blk;
		size_t got = read_fd(fileno(j->f.in), b->data, want, j->f.path);
		if (got == (size_t)-1)
			return -EXIT_IO;
		if (got != want) {
			msg("%s: file changed while being read", j->f.path);
			return -EXIT_IO;
		}
		j->rd_left -= want;
		b->len = want;
		b->user = (uint64_t)j->rd_i << 1 | (j->rd_left == 0 ? LAST_BLOCK : 0);
		if (j->rd_left == 0) {
			j->rd_i++;
			j->rd_open = 0;
		}
		return 1;
	}
	return 0;
}

/* Coder: a block of a tensor stored as frames becomes one frame of its dtype; another block is
 * copied, and its tensor's last block is padded to a multiple of 16 bytes. */
static int pack_code(void *arg, const pipe_buf *in, pipe_buf *out)
{
	pack_job *j = (pack_job *)arg;
	size_t i = (size_t)(in->user >> 1);
	szst_entry *e = &j->e[i];
	if (e->encoding == SZST_FRAMES) {
		unsigned dtype = st_frame_dtype(&j->f.h.t[i]);
		splitzip_ctx *ctx = dtype == SPLITZIP_DTYPE_BF16       ? j->ctx
		                    : dtype == SPLITZIP_DTYPE_FP8_E4M3 ? j->ctx_e4m3
		                                                       : j->ctx_other;
		size_t csize = 0, n = in->len / splitzip_dtype_width(dtype);
		splitzip_frame_info fi;
		splitzip_status st =
		    splitzip_compress_dtype(ctx, dtype, in->data, n, out->data, out->cap, &csize);
		if (st != SPLITZIP_OK) {
			char name[96];
			st_printable(j->f.h.t[i].name, name, sizeof name);
			msg("tensor '%s': compression failed: %s", name, splitzip_error_string(st));
			return exit_of_status(st);
		}
		if (splitzip_get_frame_info(out->data, csize, &fi) == SPLITZIP_OK)
			j->escapes += fi.n_escapes;
		j->frame_elems += n;
		out->len = csize;
	} else {
		memcpy(out->data, in->data, in->len);
		e->raw_crc = crc32_update(e->raw_crc, in->data, in->len);
		out->len = in->len;
		if (in->user & LAST_BLOCK) {
			size_t pad = (size_t)(szst_align16(e->stored_size + in->len) -
			                      (e->stored_size + in->len));
			memset(out->data + out->len, 0, pad);
			out->len += pad;
		}
	}
	e->stored_size += e->encoding == SZST_FRAMES ? out->len : in->len;
	j->done += in->len;
	progress_update(&j->prog, j->done);
	return EXIT_OK;
}

/* The header and table, written over the zeros reserved for them at the start. */
static int pack_finish(pack_job *j, out_file *out)
{
	size_t meta_len = (size_t)(szst_data_offset(&j->h) - SZST_HEADER_SIZE);
	unsigned char *meta = (unsigned char *)malloc(meta_len);
	if (!meta) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	unsigned char hdr[SZST_HEADER_SIZE];
	szst_build(&j->h, j->f.head, j->e, meta);
	szst_write_header(hdr, &j->h);
	int fd = fileno(out->f);
	int ok = pwrite(fd, hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr &&
	         pwrite(fd, meta, meta_len, SZST_HEADER_SIZE) == (ssize_t)meta_len;
	free(meta);
	if (!ok) {
		msg("%s: write failed", out->path);
		return EXIT_IO;
	}
	return EXIT_OK;
}

static void pack_summary(const pack_job *j)
{
	size_t n_bf16 = 0, n_other = 0;
	for (size_t i = 0; i < j->f.h.n; i++) {
		n_bf16 += st_is_bf16(&j->f.h.t[i]);
		n_other += j->e[i].encoding == SZST_FRAMES && !st_is_bf16(&j->f.h.t[i]);
	}
	char other[48] = "";
	if (n_other)
		snprintf(other, sizeof other, ", %zu F16/F32/FP8", n_other);
	double t = now_s() - j->t0;
	fprintf(stderr,
	        "%s: %zu tensors (%zu BF16%s, %llu escapes = %.3f%%), %llu -> %llu bytes, ratio "
	        "%.4fx, %.3f s, %.2f GB/s whole run incl. I/O [%s, container version %u]\n",
	        j->f.path, j->f.h.n, n_bf16, other, (unsigned long long)j->escapes,
	        j->frame_elems ? 100.0 * (double)j->escapes / (double)j->frame_elems : 0.0,
	        (unsigned long long)j->f.size, (unsigned long long)j->h.container_size,
	        (double)j->f.size / (double)j->h.container_size, t,
	        t > 0 ? (double)j->f.size / t / 1e9 : 0.0, splitzip_ctx_backend_name(j->ctx),
	        j->h.version);
}

/* Reserve the header and table, stream the tensors, then write the header and table. */
static int pack_to(pack_job *j, const options *o, out_file *out)
{
	/* The bound of the widest dtype is the largest; a stored block and its padding fit too. */
	size_t cap = splitzip_compress_bound_dtype(
	    j->w_max == 4 ? SPLITZIP_DTYPE_FP32 : SPLITZIP_DTYPE_BF16, j->fe);
	pipe_spec sp = {pack_read, j, pack_code, j, out, j->fe * j->w_max, 0, 0};
	sp.out_cap = cap > j->fe * 2 + 16 ? cap : j->fe * 2 + 16;
	uint64_t reserve = szst_data_offset(&j->h);
	unsigned char zero[4096] = {0};
	int rc = EXIT_OK;
	for (uint64_t k = 0; k < reserve && !rc; k += sizeof zero)
		rc = out_write_fd(out, zero,
		                  reserve - k < sizeof zero ? (size_t)(reserve - k) : sizeof zero);
	progress_start(&j->prog, o, "pack", j->f.size - j->f.head_size);
	if (!rc)
		rc = pipe_run(&sp);
	progress_end(&j->prog);
	return rc ? rc : pack_finish(j, out);
}

/* The contexts of 'pack' for the other dtypes (only those the file has): the options' mode,
 * checksum, chunk size, threads and backend but their own codebooks and tables (a BF16
 * codebook or table does not fit them); E4M3 entropy frames unless auto. */
int pack_dtype_ctxs(const options *o, int need_other, int need_e4m3, splitzip_ctx **other,
                    splitzip_ctx **e4m3)
{
	int rc = EXIT_OK;
	options oo = *o;
	oo.codebook_path = oo.table_path = NULL;
	oo.dtype = SPLITZIP_DTYPE_BF16;
	if (oo.encoding < 0) /* --table alone means entropy frames for every dtype */
		oo.encoding = o->table_path ? SPLITZIP_ENCODING_ENTROPY : SPLITZIP_ENCODING_SPLIT4;
	if (need_other)
		rc = make_ctx(&oo, other);
	oo.dtype = SPLITZIP_DTYPE_FP8_E4M3;
	if (oo.encoding == SPLITZIP_ENCODING_SPLIT4)
		oo.encoding = SPLITZIP_ENCODING_ENTROPY;
	if (!rc && need_e4m3)
		rc = make_ctx(&oo, e4m3);
	return rc;
}

/* The contexts: BF16 tensors with the options as given, the others pack_dtype_ctxs(). */
static int make_pack_ctxs(pack_job *j, const options *o)
{
	int need_other = 0, need_e4m3 = 0;
	for (size_t i = 0; i < j->f.h.n; i++) {
		unsigned d = j->e[i].encoding == SZST_FRAMES ? st_frame_dtype(&j->f.h.t[i]) : 0;
		need_e4m3 |= d == SPLITZIP_DTYPE_FP8_E4M3;
		need_other |= d != 0 && d != SPLITZIP_DTYPE_BF16 && d != SPLITZIP_DTYPE_FP8_E4M3;
	}
	int rc = make_ctx(o, &j->ctx);
	return rc ? rc : pack_dtype_ctxs(o, need_other, need_e4m3, &j->ctx_other, &j->ctx_e4m3);
}

static int pack_run(pack_job *j, const options *o)
{
	int rc = st_open(&j->f, o->pos[0]);
	if (!rc && j->f.h.n > UINT32_MAX) {
		msg("%s: too many tensors", j->f.path);
		rc = EXIT_DATA;
	}
	if (!rc && !(j->e = (szst_entry *)calloc(j->f.h.n + 1, sizeof *j->e))) {
		msg("out of memory");
		rc = EXIT_RESOURCES;
	}
	if (rc)
		return rc;
	j->h.version = szst_version_for(&j->f.h);
	j->h.count = (uint32_t)j->f.h.n;
	j->h.source_header_size = j->f.head_size;
	j->h.source_size = j->f.size;
	j->w_max = 2;
	for (size_t i = 0; i < j->f.h.n; i++) {
		const st_tensor *t = &j->f.h.t[i];
		j->e[i].encoding = szst_encoding(t, j->h.version);
		j->e[i].source_size = t->end - t->begin;
		if (j->e[i].encoding == SZST_FRAMES && st_elem_size(t->dtype) > j->w_max)
			j->w_max = st_elem_size(t->dtype);
	}
	rc = make_pack_ctxs(j, o);
	if (rc)
		return rc;
	out_file out;
	rc = out_open(&out, o->pos[1], o->force);
	if (!rc && (out.to_stdout || out.direct)) {
		msg("%s: pack writes a regular file (the table is written last)", o->pos[1]);
		out_abort(&out);
		return EXIT_USAGE;
	}
	if (!rc && !(rc = pack_to(j, o, &out)))
		rc = out_commit(&out, o->force);
	if (rc)
		out_abort(&out);
	else if (!o->quiet)
		pack_summary(j);
	return rc;
}

int cmd_pack(const options *o)
{
	if (o->n_pos != 2) {
		msg("usage: splitzip pack [options] IN.safetensors OUT");
		return EXIT_USAGE;
	}
	if (o->dtype != SPLITZIP_DTYPE_BF16) {
		msg("pack: --dtype is for compress (each tensor's dtype comes from the file)");
		return EXIT_USAGE;
	}
	pack_job j;
	memset(&j, 0, sizeof j);
	j.t0 = now_s();
	j.fe = o->frame_elems;
	int rc = pack_run(&j, o);
	st_close(&j.f);
	free(j.e);
	splitzip_ctx_free(j.ctx);
	splitzip_ctx_free(j.ctx_other);
	splitzip_ctx_free(j.ctx_e4m3);
	return rc;
}
