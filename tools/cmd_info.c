/*
 * cmd_info.c -- 'splitzip info FILE': frames per mode, ratio, escape rate, chunk size,
 * checksums, the codebook of split4 frames and the entropy table of entropy frames, from the
 * frame headers and code lengths only (nothing is decoded); a packed safetensors container is
 * listed tensor by tensor (cmd_info_st.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "cli.h"

typedef struct info_totals {
	uint64_t frames, elems, bytes, escapes, stored, split4, entropy, with_sum;
	uint64_t entropy_elems, entropy_bytes;
	splitzip_codebook first_cb; /* of the first split4 frame */
	int have_cb, cb_differs;
	splitzip_entropy_table first_table; /* of the first entropy frame */
	int have_table, table_differs;
	unsigned log2;  /* chunk_log2 of the last frame */
	unsigned dtype; /* of the first frame */
	int dtype_differs;
} info_totals;

/* An entropy frame: its table (read from its code lengths) in the totals. */
static void info_add_entropy(info_totals *t, const unsigned char *frame, size_t fsize,
                             const splitzip_frame_info *fi)
{
	splitzip_entropy_table tab;
	t->entropy++;
	t->entropy_elems += fi->n_elems;
	t->entropy_bytes += fsize;
	if (splitzip_frame_entropy_table(frame, fsize, &tab) != SPLITZIP_OK)
		return; /* shown as is; 'verify' reports what is wrong */
	if (!t->have_table) {
		t->first_table = tab;
		t->have_table = 1;
	} else if (memcmp(&tab, &t->first_table, sizeof tab) != 0) {
		t->table_differs = 1;
	}
}

/* Count one frame in the totals. */
static void info_add(info_totals *t, const unsigned char *frame, const splitzip_frame_info *fi,
                     size_t fsize)
{
	if (fi->mode == SPLITZIP_MODE_STORED) {
		t->stored++;
	} else if (fi->mode == SPLITZIP_MODE_ENTROPY) {
		info_add_entropy(t, frame, fsize, fi);
	} else if (t->split4++, !t->have_cb) {
		t->first_cb = fi->codebook;
		t->have_cb = 1;
	} else if (memcmp(&t->first_cb, &fi->codebook, sizeof t->first_cb) != 0) {
		t->cb_differs = 1;
	}
	if (fi->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		t->with_sum++;
	t->log2 = fi->chunk_log2;
	if (t->frames == 0)
		t->dtype = fi->dtype;
	else if (fi->dtype != t->dtype)
		t->dtype_differs = 1;
	t->frames++;
	t->elems += fi->n_elems;
	t->bytes += fsize;
	t->escapes += fi->n_escapes;
}

/* Read every frame; an input without a frame is an error. */
static int info_scan(frame_reader *r, info_totals *t)
{
	for (;;) {
		size_t fsize;
		splitzip_frame_info fi;
		int k = next_frame(r, &fsize, &fi);
		if (k < 0)
			return -k;
		if (k == 0)
			break;
		info_add(t, r->frame, &fi, fsize);
		r->offset += fsize;
	}
	if (t->frames == 0) {
		msg("%s: empty input: no splitzip frame", r->path);
		return EXIT_DATA;
	}
	return EXIT_OK;
}

/* Which frames carry a content checksum. */
static const char *checksum_summary(const info_totals *t)
{
	if (t->with_sum == t->frames)
		return "all frames";
	return t->with_sum ? "some frames" : "none";
}

/* The entropy table of the first entropy frame: exponents coded, lengths, bits per element. */
static void print_table(const info_totals *t)
{
	const splitzip_entropy_table *tab = &t->first_table;
	unsigned first = 256, last = 0, lo = 11, hi = 0;
	for (unsigned e = 0; e < 256; e++)
		if (tab->lengths[e]) {
			first = first < e ? first : e;
			last = e;
			lo = tab->lengths[e] < lo ? tab->lengths[e] : lo;
			hi = tab->lengths[e] > hi ? tab->lengths[e] : hi;
		}
	printf("entropy table:   exponents %u..%u, codes of %u..%u bits, escape %u bits%s\n", first,
	       last, lo, hi, tab->escape_length,
	       t->table_differs ? " (first frame; frames differ)" : "");
	if (t->entropy_elems)
		printf("entropy frames:  %.3f bits per element (%zu raw)\n",
		       8.0 * (double)t->entropy_bytes / (double)t->entropy_elems,
		       8 * splitzip_dtype_width(t->dtype));
}

static void info_print(const char *path, const info_totals *t)
{
	printf("file:            %s\n", path);
	printf("format version:  %d\n", SPLITZIP_FORMAT_VERSION);
	printf("dtype:           %s (%zu bytes per element)%s\n", splitzip_dtype_name(t->dtype),
	       splitzip_dtype_width(t->dtype),
	       t->dtype_differs ? " (first frame; frames differ: not a valid stream)" : "");
	printf("frames:          %llu (%llu stored, %llu split4, %llu entropy)\n",
	       (unsigned long long)t->frames, (unsigned long long)t->stored,
	       (unsigned long long)t->split4, (unsigned long long)t->entropy);
	printf("elements:        %llu (%llu bytes uncompressed)\n", (unsigned long long)t->elems,
	       (unsigned long long)(t->elems * splitzip_dtype_width(t->dtype)));
	printf("compressed:      %llu bytes\n", (unsigned long long)t->bytes);
	printf("ratio:           %.4fx\n",
	       t->bytes ? (double)(t->elems * splitzip_dtype_width(t->dtype)) / (double)t->bytes
	                : 0.0);
	printf("escapes:         %llu (%.4f%% of elements)\n", (unsigned long long)t->escapes,
	       t->elems ? 100.0 * (double)t->escapes / (double)t->elems : 0.0);
	printf("chunk size:      %u elements\n", 1u << t->log2);
	printf("checksum:        %s\n", checksum_summary(t));
	if (t->have_cb) {
		printf("codebook:       ");
		for (int i = 0; i < SPLITZIP_CODEBOOK_SIZE; i++)
			printf(" %u", t->first_cb.exponents[i]);
		printf("%s\n", t->cb_differs ? " (first frame; frames differ)" : "");
	}
	if (t->have_table)
		print_table(t);
}

int cmd_info(const options *o)
{
	if (o->n_pos != 1) {
		msg("usage: splitzip info FILE");
		return EXIT_USAGE;
	}
	if (starts_with_magic(o->pos[0], SZST_MAGIC)) /* a packed safetensors file */
		return cmd_info_container(o);
	frame_reader r;
	int rc = reader_open(&r, o->pos[0]);
	if (rc)
		return rc;
	info_totals t;
	memset(&t, 0, sizeof t);
	rc = info_scan(&r, &t);
	if (!rc)
		info_print(r.path, &t);
	reader_close(&r);
	return rc;
}
