/*
 * cmd_info.c -- 'splitzip info FILE': frames, ratio, escape rate, chunk size, checksums and
 * codebook of a splitzip file, from the frame headers only (nothing is decoded).
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "cli.h"

typedef struct info_totals {
	uint64_t frames, elems, bytes, escapes, stored, with_sum;
	splitzip_codebook first_cb; /* of the first split4 frame */
	int have_cb, cb_differs;
	unsigned log2; /* chunk_log2 of the last frame */
} info_totals;

/* Count one frame in the totals. */
static void info_add(info_totals *t, const splitzip_frame_info *fi, size_t fsize)
{
	if (fi->mode == SPLITZIP_MODE_STORED) {
		t->stored++;
	} else if (!t->have_cb) {
		t->first_cb = fi->codebook;
		t->have_cb = 1;
	} else if (memcmp(&t->first_cb, &fi->codebook, sizeof t->first_cb) != 0) {
		t->cb_differs = 1;
	}
	if (fi->flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
		t->with_sum++;
	t->log2 = fi->chunk_log2;
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
		info_add(t, &fi, fsize);
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

static void info_print(const char *path, const info_totals *t)
{
	printf("file:            %s\n", path);
	printf("format version:  %d (dtype bf16)\n", SPLITZIP_FORMAT_VERSION);
	printf("frames:          %llu (%llu stored, %llu split4)\n", (unsigned long long)t->frames,
	       (unsigned long long)t->stored, (unsigned long long)(t->frames - t->stored));
	printf("elements:        %llu (%llu bytes uncompressed)\n", (unsigned long long)t->elems,
	       (unsigned long long)t->elems * 2);
	printf("compressed:      %llu bytes\n", (unsigned long long)t->bytes);
	printf("ratio:           %.4fx\n",
	       t->bytes ? (double)t->elems * 2 / (double)t->bytes : 0.0);
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
}

int cmd_info(const options *o)
{
	if (o->n_pos != 1) {
		msg("usage: splitzip info FILE");
		return EXIT_USAGE;
	}
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
