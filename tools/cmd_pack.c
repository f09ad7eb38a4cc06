/*
 * cmd_pack.c -- 'splitzip pack IN.safetensors OUT' and 'splitzip unpack OUT RESTORED': the
 * splitzip safetensors container (doc/FORMAT.md §11). pack keeps the safetensors header and every
 * non-BF16 tensor as they are and compresses each BF16 tensor into its own frames (its own
 * codebook per frame, or --codebook); unpack restores the original file byte for byte. Both run
 * on the I/O pipeline (cli_pipe.c): the blocks are the tensors' bytes in file order, at most one
 * frame (--frame-elems) each, tagged with their tensor's index.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define LAST_BLOCK 1u /* pipe_buf.user: bit 0 = last block of the tensor, the rest its index */

typedef struct pack_job {
	splitzip_ctx *ctx;
	st_file f;
	szst_header h;
	szst_entry *e;
	size_t fe; /* elements per frame = the largest block */
	/* reader */
	size_t rd_i;
	uint64_t rd_left;
	int rd_open;
	/* coder */
	uint64_t done, escapes, bf16_elems;
	progress prog;
	double t0;
} pack_job;

/* Reader: the next block of the input's data buffer, tensor by tensor in file order. An empty
 * BF16 tensor is one empty block (it becomes an empty frame), an empty other tensor none. */
static int pack_read(void *arg, pipe_buf *b)
{
	pack_job *j = (pack_job *)arg;
	while (j->rd_i < j->f.h.n) {
		const st_tensor *t = &j->f.h.t[j->rd_i];
		if (!j->rd_open) {
			j->rd_left = t->end - t->begin;
			j->rd_open = 1;
		}
		if (j->rd_left == 0 && !st_is_bf16(t)) {
			j->rd_i++;
			j->rd_open = 0;
			continue;
		}
		size_t want = j->rd_left < j->fe * 2 ? (size_t)j->rd_left : j->fe * 2;
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

/* Coder: a BF16 block becomes one frame; another block is copied, and its tensor's last block
 * is padded to a multiple of 16 bytes. */
static int pack_code(void *arg, const pipe_buf *in, pipe_buf *out)
{
	pack_job *j = (pack_job *)arg;
	szst_entry *e = &j->e[in->user >> 1];
	if (e->encoding == SZST_FRAMES) {
		size_t csize = 0;
		splitzip_frame_info fi;
		splitzip_status st =
		    splitzip_compress(j->ctx, (const uint16_t *)(const void *)in->data, in->len / 2,
		                      out->data, out->cap, &csize);
		if (st != SPLITZIP_OK) {
			msg("compression failed: %s", splitzip_error_string(st));
			return exit_of_status(st);
		}
		if (splitzip_get_frame_info(out->data, csize, &fi) == SPLITZIP_OK)
			j->escapes += fi.n_escapes;
		j->bf16_elems += in->len / 2;
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
	size_t n_bf16 = 0;
	for (size_t i = 0; i < j->f.h.n; i++)
		n_bf16 += j->e[i].encoding == SZST_FRAMES;
	double t = now_s() - j->t0;
	fprintf(stderr,
	        "%s: %zu tensors (%zu BF16, %llu escapes = %.3f%%), %llu -> %llu bytes, ratio "
	        "%.4fx, %.3f s, %.2f GB/s whole run incl. I/O [%s]\n",
	        j->f.path, j->f.h.n, n_bf16, (unsigned long long)j->escapes,
	        j->bf16_elems ? 100.0 * (double)j->escapes / (double)j->bf16_elems : 0.0,
	        (unsigned long long)j->f.size, (unsigned long long)j->h.container_size,
	        (double)j->f.size / (double)j->h.container_size, t,
	        t > 0 ? (double)j->f.size / t / 1e9 : 0.0, splitzip_ctx_backend_name(j->ctx));
}

/* Reserve the header and table, stream the tensors, then write the header and table. */
static int pack_to(pack_job *j, const options *o, out_file *out)
{
	size_t cap = splitzip_compress_bound(j->fe);
	pipe_spec sp = {pack_read, j, pack_code, j, out, j->fe * 2, 0, 0};
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
	if (!rc)
		rc = make_ctx(o, &j->ctx);
	if (rc)
		return rc;
	j->h.count = (uint32_t)j->f.h.n;
	j->h.source_header_size = j->f.head_size;
	j->h.source_size = j->f.size;
	for (size_t i = 0; i < j->f.h.n; i++) {
		j->e[i].encoding = st_is_bf16(&j->f.h.t[i]) ? SZST_FRAMES : SZST_RAW;
		j->e[i].source_size = j->f.h.t[i].end - j->f.h.t[i].begin;
	}
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
	pack_job j;
	memset(&j, 0, sizeof j);
	j.t0 = now_s();
	j.fe = o->frame_elems;
	int rc = pack_run(&j, o);
	st_close(&j.f);
	free(j.e);
	splitzip_ctx_free(j.ctx);
	return rc;
}
