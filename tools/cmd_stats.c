/*
 * cmd_stats.c -- 'splitzip stats FILE...': why tensors compress as they do. For raw files (one
 * tensor each, BF16 or the --dtype) and the tensors of safetensors files that 'pack' codes
 * (BF16, F16, F32, F8_E4M3, F8_E5M2): the histogram of the dtype's exponent field, its entropy
 * and the order-0 bound it gives, the share of the 8 and 16 most frequent exponents, and the
 * size 'compress' (or 'pack') will write with the same options (--frame-elems, --chunk-log2,
 * --codebook, --table, --mode): for BF16 split4 frames predicted exactly from the histogram of
 * each frame (splitzip_predict_frame_size), for the other modes and dtypes the size of each
 * frame as the library encodes it. Text, --json, and --svg FILE (a chart, svg.c). Files are read on
 * the I/O pipeline (cli_pipe.c), one frame's worth at a time.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* One input file: its tensors and where the reader is. */
typedef struct stats_file {
	const char *path;
	FILE *in;
	int is_st; /* safetensors (else one raw tensor of the --dtype) */
	st_file f;
	tstat *ts;
	size_t n_ts;
	uint64_t predicted_pack; /* safetensors: the container 'pack' writes */
	/* reader */
	size_t rd_i;
	uint64_t rd_left;
	int rd_open, rd_blocks;
} stats_file;

typedef struct stats_job {
	const options *o;
	splitzip_codebook fixed;
	int have_fixed;
	unsigned log2;
	size_t fe;
	splitzip_ctx *ctx_bf16; /* BF16 frames of another mode than split4 */
	int split4;             /* BF16 split4 frames: predicted from the histogram */
	splitzip_ctx *ctx_raw;  /* a raw file of another dtype: as 'compress' codes it */
	splitzip_ctx *ctx_other, *ctx_e4m3; /* the other dtypes' frames, as 'pack' codes them */
	uint8_t *frame;                     /* room for one of them */
	size_t frame_cap;
	stats_file *cur;
} stats_job;

/* ---- Reading --------------------------------------------------------------------------------- */

/* Reader, raw file: frames of input up to the end (an empty file is one empty frame). */
static int read_raw(stats_job *j, pipe_buf *b)
{
	stats_file *s = j->cur;
	const size_t w = splitzip_dtype_width(s->ts[0].code);
	if (s->rd_open)
		return 0;
	size_t got = read_fd(fileno(s->in), b->data, j->fe * w, s->path);
	if (got == (size_t)-1)
		return -EXIT_IO;
	if (got % w) {
		msg("%s: input is not %s: its size is not a multiple of %zu bytes", s->path,
		    splitzip_dtype_name(s->ts[0].code), w);
		return -EXIT_DATA;
	}
	if (got == 0 && s->rd_blocks > 0)
		return 0;
	s->rd_open = got < j->fe * w;
	s->rd_blocks++;
	b->len = got;
	b->user = 0;
	return 1;
}

/* Reader, safetensors: the tensors 'pack' codes frame by frame; other tensors are skipped. */
static int read_st(stats_job *j, pipe_buf *b)
{
	stats_file *s = j->cur;
	for (; s->rd_i < s->f.h.n; s->rd_i++, s->rd_open = 0) {
		const st_tensor *t = &s->f.h.t[s->rd_i];
		if (!s->rd_open) {
			s->rd_left = t->end - t->begin;
			s->rd_open = 1;
			if (!s->ts[s->rd_i].code) {
				if (lseek(fileno(s->in), (off_t)s->rd_left, SEEK_CUR) < 0) {
					msg("%s: cannot seek", s->path);
					return -EXIT_IO;
				}
				continue;
			}
		} else if (s->rd_left == 0) {
			continue;
		}
		const size_t cap = j->fe * splitzip_dtype_width(s->ts[s->rd_i].code);
		b->len = s->rd_left < cap ? (size_t)s->rd_left : cap;
		size_t got = read_fd(fileno(s->in), b->data, b->len, s->path);
		if (got != b->len) {
			if (got != (size_t)-1)
				msg("%s: file changed while being read", s->path);
			return -EXIT_IO;
		}
		s->rd_left -= b->len;
		b->user = s->rd_i;
		return 1;
	}
	return 0;
}

static int stats_read(void *arg, pipe_buf *b)
{
	stats_job *j = (stats_job *)arg;
	return j->cur->is_st ? read_st(j, b) : read_raw(j, b);
}

/* Coder: one frame's histogram, codebook, escapes and predicted frame size (the other dtypes:
 * the size of the frame the library writes for it). */
static int stats_code(void *arg, const pipe_buf *in, pipe_buf *out)
{
	stats_job *j = (stats_job *)arg;
	tstat *t = &j->cur->ts[in->user];
	const int bf16 = t->code == SPLITZIP_DTYPE_BF16;
	size_t n = in->len / splitzip_dtype_width(t->code);
	uint64_t hist[256] = {0}, covered = 0;
	splitzip_codebook cb = j->fixed;
	(void)out;
	splitzip_histogram_dtype(t->code, in->data, n, hist);
	if (!j->have_fixed || !bf16)
		splitzip_codebook_from_histogram(hist, &cb);
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		covered += hist[cb.exponents[k]];
	for (int e = 0; e < 256; e++)
		t->hist[e] += hist[e];
	t->n += n;
	t->escapes += n - covered;
	if (bf16 && j->split4) {
		t->predicted += splitzip_predict_frame_size(n, n - covered, j->log2);
	} else {
		splitzip_ctx *ctx = bf16                                 ? j->ctx_bf16
		                    : !j->cur->is_st                     ? j->ctx_raw
		                    : t->code == SPLITZIP_DTYPE_FP8_E4M3 ? j->ctx_e4m3
		                                                         : j->ctx_other;
		size_t size = 0, cap = splitzip_compress_bound_dtype(t->code, n);
		if (cap > j->frame_cap) { /* the first (or a larger) frame of these dtypes */
			free(j->frame);
			j->frame_cap = 0;
			if (!(j->frame = (uint8_t *)malloc(cap))) {
				msg("out of memory");
				return EXIT_RESOURCES;
			}
			j->frame_cap = cap;
		}
		splitzip_status st = splitzip_compress_dtype(ctx, t->code, in->data, n, j->frame,
		                                             j->frame_cap, &size);
		if (st != SPLITZIP_OK) {
			msg("%s: %s", j->cur->path, splitzip_error_string(st));
			return EXIT_RESOURCES;
		}
		t->predicted += size;
	}
	t->frames++;
	return EXIT_OK;
}

/* ---- Figures from a histogram ------------------------------------------------------------------
 */

static int by_count_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

void tstat_figures(tstat *t)
{
	uint64_t sorted[256];
	memcpy(sorted, t->hist, sizeof sorted);
	qsort(sorted, 256, sizeof sorted[0], by_count_desc);
	uint64_t top8 = 0, top16 = 0;
	for (int k = 0; k < 16; k++) {
		top16 += sorted[k];
		top8 += k < 8 ? sorted[k] : 0;
	}
	t->entropy = 0.0;
	t->distinct = 0;
	for (int e = 0; e < 256; e++) {
		if (!t->hist[e])
			continue;
		double p = (double)t->hist[e] / (double)t->n;
		t->entropy -= p * log2(p);
		t->distinct++;
	}
	t->top8 = t->n ? (double)top8 / (double)t->n : 0.0;
	t->top16 = t->n ? (double)top16 / (double)t->n : 0.0;
	splitzip_codebook_from_histogram(t->hist, &t->codebook);
	const double bits = 8.0 * (double)splitzip_dtype_width(t->code);
	t->bound = bits / (bits -
	                   (double)(tstat_bias(t) == 7    ? 4
	                            : tstat_bias(t) == 15 ? 5
	                                                  : 8) +
	                   t->entropy);
}

int tstat_bias(const tstat *t)
{
	return t->code == SPLITZIP_DTYPE_FP8_E4M3                                     ? 7
	       : t->code == SPLITZIP_DTYPE_FP8_E5M2 || t->code == SPLITZIP_DTYPE_FP16 ? 15
	                                                                              : 127;
}

/* ---- Output ------------------------------------------------------------------------------------
 */

static void print_table(const stats_file *s)
{
	printf("%-32s %12s %8s %8s %9s %9s %9s %12s %9s\n", "tensor", "elements", "distinct",
	       "entropy", "top-8", "top-16", "escapes", "predicted", "ratio");
	for (size_t i = 0; i < s->n_ts; i++) {
		const tstat *t = &s->ts[i];
		char name[33], dtype[12];
		st_printable(t->name, name, sizeof name);
		st_printable(t->dtype, dtype, sizeof dtype);
		if (!t->code) {
			printf("%-32s %s, %llu bytes: kept as is\n", name, dtype,
			       (unsigned long long)t->bytes);
			continue;
		}
		printf("%-32s %12llu %8d %8.3f %8.3f%% %8.3f%% %8.4f%% %12llu %8.4fx\n", name,
		       (unsigned long long)t->n, t->distinct, t->entropy, 100 * t->top8,
		       100 * t->top16, t->n ? 100.0 * (double)t->escapes / (double)t->n : 0.0,
		       (unsigned long long)t->predicted,
		       t->predicted
		           ? (double)(splitzip_dtype_width(t->code) * t->n) / (double)t->predicted
		           : 0.0);
	}
}

static void print_histogram(const tstat *t)
{
	char name[96];
	st_printable(t->name, name, sizeof name);
	printf("\nexponent histogram of %s (* = one of the tensor's 16 most frequent):\n", name);
	int in_cb[256] = {0};
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		in_cb[t->codebook.exponents[k]] = 1;
	for (int e = 0; e < 256; e++) {
		if (!t->hist[e])
			continue;
		double share = (double)t->hist[e] / (double)t->n;
		int bar = (int)(share * 50 + 0.5);
		printf("  %c %3d  2^%-5d %12llu %9.4f%%  %.*s\n", in_cb[e] ? '*' : ' ', e,
		       e - tstat_bias(t), (unsigned long long)t->hist[e], 100 * share,
		       bar ? bar : 1, "##################################################");
	}
}

static void print_text(const stats_job *j, const stats_file *s)
{
	uint64_t src = s->is_st ? s->f.size : s->ts[0].n * splitzip_dtype_width(s->ts[0].code);
	if (s->is_st)
		printf("%s: safetensors, %zu tensors\n", s->path, s->n_ts);
	else
		printf("%s: raw %s\n", s->path, s->ts[0].dtype);
	print_table(s);
	uint64_t pred = s->is_st ? s->predicted_pack : s->ts[0].predicted;
	printf("predicted '%s' output: %llu bytes, ratio %.4fx\n", s->is_st ? "pack" : "compress",
	       (unsigned long long)pred, pred ? (double)src / (double)pred : 0.0);
	for (size_t i = 0; !j->o->brief && i < s->n_ts; i++)
		if (s->ts[i].code)
			print_histogram(&s->ts[i]);
}

/* A JSON string (UTF-8 passes through; quotes, backslashes and control bytes escaped). */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7F)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_json_tensor(const tstat *t)
{
	printf("{\"name\": ");
	json_str(t->name);
	printf(", \"dtype\": ");
	json_str(t->dtype);
	if (!t->code) {
		printf(", \"bytes\": %llu}", (unsigned long long)t->bytes);
		return;
	}
	printf(", \"elements\": %llu, \"frames\": %llu, \"distinct\": %d, \"entropy_bits\": %.6f, "
	       "\"order0_bound\": %.6f, "
	       "\"top8\": %.8f, \"top16\": %.8f, \"escapes\": %llu, \"predicted_bytes\": %llu, "
	       "\"histogram\": [",
	       (unsigned long long)t->n, (unsigned long long)t->frames, t->distinct, t->entropy,
	       t->bound, t->top8, t->top16, (unsigned long long)t->escapes,
	       (unsigned long long)t->predicted);
	for (int e = 0; e < 256; e++)
		printf("%s%llu", e ? ", " : "", (unsigned long long)t->hist[e]);
	printf("]}");
}

static void print_json(const stats_file *s, int first, int last)
{
	printf("%s{\"path\": ", first ? "{\"files\": [" : "");
	json_str(s->path);
	printf(", \"format\": \"%s\", \"predicted_bytes\": %llu, \"tensors\": [",
	       s->is_st ? "safetensors" : "raw",
	       (unsigned long long)(s->is_st ? s->predicted_pack : s->ts[0].predicted));
	for (size_t i = 0; i < s->n_ts; i++) {
		printf(i ? ",\n  " : "\n  ");
		print_json_tensor(&s->ts[i]);
	}
	printf("]}%s", last ? "]}\n" : ",\n");
}

/* ---- Inputs ------------------------------------------------------------------------------------
 */

/* A safetensors file: named *.safetensors, or starting like one (a length that fits the file,
 * then '{'). Never with --raw, nor for standard input. */
static int looks_like_safetensors(const options *o, const char *path)
{
	size_t len = strlen(path);
	if (o->raw || strcmp(path, "-") == 0)
		return 0;
	if (len >= 12 && strcmp(path + len - 12, ".safetensors") == 0)
		return 1;
	FILE *f = fopen(path, "rb");
	unsigned char b[9];
	int yes = 0;
	if (f && fread(b, 1, 9, f) == 9 && b[8] == '{') {
		uint64_t n = 0, size = file_size_of(f);
		for (int i = 7; i >= 0; i--)
			n = n << 8 | b[i];
		yes = size >= 10 && n >= 2 && n <= size - 8;
	}
	if (f)
		fclose(f);
	return yes;
}

static int open_input(const stats_job *j, stats_file *s)
{
	static const char frame_magic[4] = {0x53, 0x50, 0x5A, (char)0xBF};
	if (starts_with_magic(s->path, SZST_MAGIC) || starts_with_magic(s->path, frame_magic)) {
		msg("%s: a splitzip file; stats reads raw tensors or safetensors (unpack or "
		    "decompress it first)",
		    s->path);
		return EXIT_DATA;
	}
	s->is_st = looks_like_safetensors(j->o, s->path);
	int rc = s->is_st ? st_open(&s->f, s->path) : EXIT_OK;
	if (!s->is_st && !(s->in = in_open(s->path)))
		rc = EXIT_IO;
	if (rc)
		return rc;
	s->in = s->is_st ? s->f.in : s->in;
	s->n_ts = s->is_st ? s->f.h.n : 1;
	s->ts = (tstat *)calloc(s->n_ts + 1, sizeof *s->ts);
	if (!s->ts) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	for (size_t i = 0; s->is_st && i < s->n_ts; i++) {
		const st_tensor *t = &s->f.h.t[i];
		s->ts[i].name = t->name;
		s->ts[i].dtype = t->dtype;
		s->ts[i].code = st_frame_dtype(t);
		s->ts[i].bytes = t->end - t->begin;
	}
	if (!s->is_st) {
		const char *slash = strrchr(s->path, '/');
		s->ts[0].name = strcmp(s->path, "-") == 0 ? "(stdin)" : slash ? slash + 1 : s->path;
		static const char *const names[6] = {"",        "BF16", "F8_E4M3",
		                                     "F8_E5M2", "F16",  "F32"};
		s->ts[0].code = j->o->dtype;
		s->ts[0].dtype = names[j->o->dtype];
	}
	return EXIT_OK;
}

/* Read one input through the pipeline, then the figures and the predicted container size. */
static int scan_input(stats_job *j, stats_file *s)
{
	int rc = open_input(j, s);
	if (rc)
		return rc;
	j->cur = s;
	size_t w = 2; /* the widest element read: the block size */
	for (size_t i = 0; i < s->n_ts; i++)
		if (s->ts[i].code && splitzip_dtype_width(s->ts[i].code) > w)
			w = splitzip_dtype_width(s->ts[i].code);
	pipe_spec sp = {stats_read, j, stats_code, j, NULL, j->fe * w, 0, 0};
	rc = pipe_run(&sp);
	if (rc)
		return rc;
	if (s->is_st)
		s->predicted_pack = SZST_HEADER_SIZE + szst_align16(s->f.head_size) +
		                    (uint64_t)SZST_ENTRY_SIZE * s->n_ts;
	for (size_t i = 0; i < s->n_ts; i++) {
		tstat *t = &s->ts[i];
		if (t->code)
			tstat_figures(t);
		s->predicted_pack += t->code ? t->predicted : szst_align16(t->bytes);
	}
	return EXIT_OK;
}

static void close_input(stats_file *s)
{
	if (s->is_st)
		st_close(&s->f);
	else
		in_close(s->in);
	free(s->ts);
}

/* ---- The chart ----------------------------------------------------------------------------------
 */

static int write_svg(const options *o, const stats_file *s, int n_files)
{
	size_t n = 0, k = 0;
	for (int i = 0; i < n_files; i++)
		n += s[i].n_ts;
	const tstat **t = (const tstat **)calloc(n + 1, sizeof *t);
	char *doc = NULL;
	size_t doc_len = 0;
	FILE *mem = t ? open_memstream(&doc, &doc_len) : NULL;
	if (!mem) {
		free(t);
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	for (int i = 0; i < n_files; i++)
		for (size_t m = 0; m < s[i].n_ts; m++)
			if (s[i].ts[m].code)
				t[k++] = &s[i].ts[m];
	svg_chart(mem, t, k, n_files == 1 ? s[0].path : "splitzip stats");
	fclose(mem);
	out_file out;
	int rc = out_open(&out, o->svg, o->force);
	if (!rc)
		rc = out_write(&out, doc, doc_len);
	if (!rc)
		rc = out_commit(&out, o->force);
	if (rc)
		out_abort(&out);
	free(doc);
	free(t);
	return rc;
}

/* The options' codebook (--codebook), through a context like every other command's. */
static int stats_setup(stats_job *j, const options *o)
{
	splitzip_ctx *ctx;
	splitzip_params p;
	int rc = make_ctx(o, &ctx);
	if (rc)
		return rc;
	splitzip_ctx_params(ctx, &p);
	j->ctx_bf16 = ctx;
	j->split4 = p.encoding == SPLITZIP_ENCODING_SPLIT4;
	j->o = o;
	j->fixed = p.codebook;
	j->have_fixed = p.codebook_mode == SPLITZIP_CODEBOOK_FIXED;
	j->log2 = p.chunk_log2;
	j->fe = o->frame_elems;
	rc = o->dtype != SPLITZIP_DTYPE_BF16 ? make_ctx(o, &j->ctx_raw) : EXIT_OK;
	return rc ? rc : pack_dtype_ctxs(o, 1, 1, &j->ctx_other, &j->ctx_e4m3);
}

int cmd_stats(const options *o)
{
	if (o->n_pos < 1) {
		msg("usage: splitzip stats [options] FILE...");
		return EXIT_USAGE;
	}
	stats_job j;
	memset(&j, 0, sizeof j);
	int rc = stats_setup(&j, o);
	stats_file *s = rc ? NULL : (stats_file *)calloc((size_t)o->n_pos, sizeof *s);
	if (!rc && !s) {
		msg("out of memory");
		rc = EXIT_RESOURCES;
	}
	int n = 0;
	for (; !rc && n < o->n_pos; n++) {
		s[n].path = o->pos[n];
		rc = scan_input(&j, &s[n]);
	}
	for (int i = 0; !rc && i < n; i++) {
		if (o->json)
			print_json(&s[i], i == 0, i == n - 1);
		else
			print_text(&j, &s[i]);
		if (!o->json && i + 1 < n)
			putchar('\n');
	}
	if (!rc && o->svg)
		rc = write_svg(o, s, n);
	for (int i = 0; i < n; i++)
		close_input(&s[i]);
	free(s);
	splitzip_ctx_free(j.ctx_bf16);
	splitzip_ctx_free(j.ctx_raw);
	splitzip_ctx_free(j.ctx_other);
	splitzip_ctx_free(j.ctx_e4m3);
	free(j.frame);
	return rc;
}
