/*
 * cmd_unpack.c -- 'splitzip unpack PACKED RESTORED.safetensors': the original safetensors file
 * from a splitzip safetensors container (doc/FORMAT.md §11), byte for byte. The container's
 * metadata is validated before anything is written (cli_st.c); then, on the I/O pipeline
 * (cli_pipe.c), the reader checks each stored tensor's framing (every frame of its tensor's
 * dtype) and padding, the coder decodes frames (each checked by the library) or copies stored
 * bytes and checks their CRC-32 and every tensor's size. The output is committed only if
 * everything passed. Container versions 1 and 2 are read (FORMAT.md §11.6).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define LAST_BLOCK 1u /* pipe_buf.user: bit 0 = last block of the tensor, the rest its index */

typedef struct unpack_job {
	splitzip_ctx *ctx;
	szst_file c;
	size_t fe; /* the largest block of a stored tensor */
	/* reader */
	size_t rd_i;
	uint64_t rd_left;
	int rd_open;
	/* coder */
	uint64_t t_bytes, t_frames; /* of the current tensor */
	uint32_t crc;
	uint64_t done;
	progress prog;
	double t0;
} unpack_job;

/* A message naming the tensor; returns EXIT_DATA. */
static int tensor_fail(const unpack_job *j, size_t i, st_error e, const char *what)
{
	char name[96];
	st_printable(j->c.sth.t[i].name, name, sizeof name);
	msg("%s: tensor '%s': %s [%s]%s", j->c.path, name, st_error_string(e), st_error_name(e),
	    what);
	return EXIT_DATA;
}

static int grow(pipe_buf *b, size_t n)
{
	if (n <= b->cap)
		return 1;
	unsigned char *nb = (unsigned char *)realloc(b->data, n);
	if (!nb)
		return 0;
	b->data = nb;
	b->cap = n;
	advise_huge(nb, n);
	return 1;
}

/* Read exactly n bytes of the container (its size was checked: a short read means it changed). */
static int read_exact(unpack_job *j, void *p, size_t n)
{
	size_t got = read_fd(fileno(j->c.in), p, n, j->c.path);
	if (got == (size_t)-1)
		return -EXIT_IO;
	if (got != n) {
		msg("%s: file changed while being read", j->c.path);
		return -EXIT_IO;
	}
	return 1;
}

/* The next frame of the current tensor, which must have its dtype and lie inside its stored
 * bytes. */
static int read_frame_block(unpack_job *j, pipe_buf *b)
{
	unsigned char hdr[SPLITZIP_FRAME_HEADER_SIZE];
	splitzip_frame_info fi;
	if (j->rd_left < sizeof hdr)
		return -tensor_fail(j, j->rd_i, ST_CORRUPT, ": frames do not fill its stored size");
	int k = read_exact(j, hdr, sizeof hdr);
	if (k < 0)
		return k;
	splitzip_status st = splitzip_get_frame_info(hdr, sizeof hdr, &fi);
	if (st != SPLITZIP_OK) {
		char name[96];
		st_printable(j->c.sth.t[j->rd_i].name, name, sizeof name);
		msg("%s: tensor '%s': frame header: %s [%s]", j->c.path, name,
		    splitzip_error_string(st), splitzip_status_name(st));
		return -EXIT_DATA;
	}
	if (fi.dtype != st_frame_dtype(&j->c.sth.t[j->rd_i]))
		return -tensor_fail(j, j->rd_i, ST_CORRUPT, ": a frame of another dtype");
	if (fi.frame_size > j->rd_left)
		return -tensor_fail(j, j->rd_i, ST_CORRUPT, ": a frame runs past its stored size");
	if (!grow(b, (size_t)fi.frame_size)) {
		msg("out of memory");
		return -EXIT_RESOURCES;
	}
	memcpy(b->data, hdr, sizeof hdr);
	b->len = (size_t)fi.frame_size;
	return read_exact(j, b->data + sizeof hdr, b->len - sizeof hdr);
}

/* The zero padding after a stored (raw) tensor. */
static int read_padding(unpack_job *j, uint64_t size)
{
	unsigned char pad[16];
	size_t n = (size_t)(szst_align16(size) - size);
	int k = n ? read_exact(j, pad, n) : 1;
	for (size_t i = 0; k > 0 && i < n; i++)
		if (pad[i])
			return -tensor_fail(j, j->rd_i, ST_CORRUPT, ": nonzero padding");
	return k;
}

/* Reader: the next block, tensor by tensor in file order: a frame, or up to a frame's worth of
 * a stored tensor (an empty stored tensor is one empty block, whose CRC the coder checks). */
static int unpack_read(void *arg, pipe_buf *b)
{
	unpack_job *j = (unpack_job *)arg;
	if (j->rd_i >= j->c.sth.n)
		return 0;
	const szst_entry *e = &j->c.e[j->rd_i];
	if (!j->rd_open) {
		j->rd_left = e->stored_size; /* frames: at least 64 bytes (szst_read_meta) */
		j->rd_open = 1;
	}
	int k = 1;
	if (e->encoding == SZST_FRAMES) {
		k = read_frame_block(j, b);
	} else {
		b->len = j->rd_left < j->fe * 2 ? (size_t)j->rd_left : j->fe * 2;
		if (!grow(b, b->len)) {
			msg("out of memory");
			return -EXIT_RESOURCES;
		}
		k = b->len ? read_exact(j, b->data, b->len) : 1;
	}
	if (k < 0)
		return k;
	j->rd_left -= b->len;
	b->user = (uint64_t)j->rd_i << 1 | (j->rd_left == 0 ? LAST_BLOCK : 0);
	if (j->rd_left == 0) {
		k = e->encoding == SZST_RAW ? read_padding(j, e->stored_size) : 1;
		if (k < 0)
			return k;
		j->rd_i++;
		j->rd_open = 0;
	}
	return 1;
}

/* Coder, stored tensor: copy; at its end, compare the CRC-32. */
static int unpack_raw(unpack_job *j, size_t i, const pipe_buf *in, pipe_buf *out)
{
	if (!grow(out, in->len)) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	memcpy(out->data, in->data, in->len);
	out->len = in->len;
	j->crc = crc32_update(j->crc, in->data, in->len);
	if ((in->user & LAST_BLOCK) && j->crc != j->c.e[i].raw_crc)
		return tensor_fail(j, i, ST_TENSOR_CHECKSUM, "");
	return EXIT_OK;
}

/* Coder, tensor stored as frames (of its dtype, checked by the reader): decode one frame; the
 * frames must give exactly the tensor's size. */
static int unpack_frame(unpack_job *j, size_t i, const pipe_buf *in, pipe_buf *out)
{
	splitzip_frame_info fi;
	size_t used = 0, n = 0, w = splitzip_dtype_width(st_frame_dtype(&j->c.sth.t[i]));
	splitzip_status st = splitzip_get_frame_info(in->data, in->len, &fi);
	if (st == SPLITZIP_OK && !grow(out, (size_t)fi.n_elems * w)) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	if (st == SPLITZIP_OK)
		st = splitzip_frame_decompress_dtype(j->ctx, in->data, in->len, &used, out->data,
		                                     out->cap, &n);
	if (st != SPLITZIP_OK) {
		char name[96];
		st_printable(j->c.sth.t[i].name, name, sizeof name);
		msg("%s: tensor '%s': frame %llu: %s [%s]", j->c.path, name,
		    (unsigned long long)j->t_frames, splitzip_error_string(st),
		    splitzip_status_name(st));
		return exit_of_status(st);
	}
	j->t_frames++;
	j->t_bytes += (uint64_t)n * w;
	out->len = n * w;
	if (j->t_bytes > j->c.e[i].source_size ||
	    ((in->user & LAST_BLOCK) && j->t_bytes != j->c.e[i].source_size))
		return tensor_fail(j, i, ST_ELEMENT_COUNT, "");
	return EXIT_OK;
}

static int unpack_code(void *arg, const pipe_buf *in, pipe_buf *out)
{
	unpack_job *j = (unpack_job *)arg;
	size_t i = (size_t)(in->user >> 1);
	int rc = j->c.e[i].encoding == SZST_FRAMES ? unpack_frame(j, i, in, out)
	                                           : unpack_raw(j, i, in, out);
	if (in->user & LAST_BLOCK) {
		j->crc = 0;
		j->t_bytes = j->t_frames = 0;
	}
	j->done += in->len;
	progress_update(&j->prog, j->done);
	return rc;
}

static void unpack_summary(const unpack_job *j)
{
	double t = now_s() - j->t0;
	fprintf(stderr,
	        "%s: %zu tensors, %llu -> %llu bytes, ratio %.4fx, %.3f s, %.2f GB/s whole run "
	        "incl. I/O [%s]\n",
	        j->c.path, j->c.sth.n, (unsigned long long)j->c.size,
	        (unsigned long long)j->c.h.source_size,
	        (double)j->c.h.source_size / (double)j->c.size, t,
	        t > 0 ? (double)j->c.h.source_size / t / 1e9 : 0.0,
	        splitzip_ctx_backend_name(j->ctx));
}

/* Write the stored safetensors header, then every tensor through the pipeline. */
static int unpack_to(unpack_job *j, const options *o, out_file *out)
{
	int rc = out_write_fd(out, j->c.meta, (size_t)j->c.h.source_header_size);
	pipe_spec sp = {unpack_read, j, unpack_code, j, out, 0, 0, 0};
	sp.in_cap = sp.out_cap = j->fe * 2;
	if (j->c.size < sp.in_cap) /* small containers: no large buffers */
		sp.in_cap = sp.out_cap = (size_t)j->c.size;
	progress_start(&j->prog, o, "unpack", j->c.size - szst_data_offset(&j->c.h));
	if (!rc)
		rc = pipe_run(&sp);
	progress_end(&j->prog);
	return rc;
}

int cmd_unpack(const options *o)
{
	if (o->n_pos != 2) {
		msg("usage: splitzip unpack [options] PACKED OUT.safetensors");
		return EXIT_USAGE;
	}
	unpack_job j;
	memset(&j, 0, sizeof j);
	j.t0 = now_s();
	j.fe = o->frame_elems;
	int rc = szst_open(&j.c, o->pos[0]);
	if (!rc)
		rc = make_ctx(o, &j.ctx);
	out_file out;
	memset(&out, 0, sizeof out);
	if (!rc)
		rc = out_open(&out, o->pos[1], o->force);
	if (!rc)
		rc = unpack_to(&j, o, &out);
	if (!rc)
		rc = out_commit(&out, o->force);
	if (rc)
		out_abort(&out);
	else if (!o->quiet)
		unpack_summary(&j);
	szst_close(&j.c);
	splitzip_ctx_free(j.ctx);
	return rc;
}
