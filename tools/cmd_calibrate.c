/*
 * cmd_calibrate.c -- 'splitzip calibrate SAMPLE... -o CODEBOOK': the exponent histogram of
 * sample BF16 files, the codebook it gives, written as a codebook file for --codebook; with
 * --mode entropy, the entropy table it gives, written as a table file for --table.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>

#include "cli.h"

#define SAMPLE_BUF_ELEMS ((size_t)1 << 22)

/* Add the exponents of one BF16 file to 'hist' and its element count to '*total'. */
static int histogram_file(const char *path, uint16_t *buf, uint64_t *hist, uint64_t *total)
{
	FILE *in = in_open(path);
	if (!in)
		return EXIT_IO;
	int rc = EXIT_OK;
	for (;;) {
		size_t got = read_full(in, buf, SAMPLE_BUF_ELEMS * 2, path);
		if (got == (size_t)-1) {
			rc = EXIT_IO;
			break;
		}
		if (got % 2) {
			msg("%s: input is not BF16: its size is an odd number of bytes", path);
			rc = EXIT_DATA;
			break;
		}
		splitzip_histogram(buf, got / 2, hist);
		*total += got / 2;
		if (got < SAMPLE_BUF_ELEMS * 2)
			break;
	}
	in_close(in);
	return rc;
}

/* The histogram of every sample file. */
static int histogram_samples(const options *o, uint64_t *hist, uint64_t *total)
{
	uint16_t *buf = (uint16_t *)malloc(SAMPLE_BUF_ELEMS * 2);
	if (!buf) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	int rc = EXIT_OK;
	for (int i = 0; i < o->n_pos && !rc; i++)
		rc = histogram_file(o->pos[i], buf, hist, total);
	free(buf);
	return rc;
}

static int write_file(const options *o, const unsigned char *file, size_t size)
{
	out_file out;
	int rc = out_open(&out, o->output, o->force);
	if (rc)
		return rc;
	rc = out_write(&out, file, size);
	if (!rc)
		rc = out_commit(&out, o->force);
	if (rc)
		out_abort(&out);
	return rc;
}

static void print_summary(const char *path, const splitzip_codebook *cb, const uint64_t *hist,
                          uint64_t total)
{
	uint64_t covered = 0;
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		covered += hist[cb->exponents[k]];
	fprintf(stderr, "%s: codebook from %llu elements, coverage %.4f%%, exponents", path,
	        (unsigned long long)total, total ? 100.0 * (double)covered / (double)total : 0.0);
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		fprintf(stderr, " %u", cb->exponents[k]);
	fputc('\n', stderr);
}

/* The entropy table of the samples (FORMAT.md §5.2), written as a table file (§9.2). */
static int calibrate_table(const options *o, const uint64_t *hist, uint64_t total)
{
	splitzip_entropy_table t;
	if (splitzip_entropy_table_from_histogram(hist, &t) != SPLITZIP_OK) {
		msg("no sample values: an entropy table needs at least one");
		return EXIT_DATA;
	}
	unsigned char file[SPLITZIP_ENTROPY_TABLE_FILE_SIZE];
	splitzip_entropy_table_serialize(&t, file, sizeof file);
	int rc = write_file(o, file, sizeof file);
	if (rc || o->quiet)
		return rc;
	double bits = 0;
	unsigned coded = 0;
	for (int e = 0; e < 256; e++) {
		coded += t.lengths[e] != 0;
		bits += (double)hist[e] * t.lengths[e];
	}
	fprintf(stderr,
	        "%s: entropy table from %llu elements, %u exponents coded, %.3f bits per "
	        "exponent, escape code %u bits\n",
	        o->output, (unsigned long long)total, coded, total ? bits / (double)total : 0.0,
	        t.escape_length);
	return EXIT_OK;
}

int cmd_calibrate(const options *o)
{
	if (o->n_pos < 1 || !o->output) {
		msg("usage: splitzip calibrate [--mode entropy] SAMPLE... -o FILE");
		return EXIT_USAGE;
	}
	if (o->encoding == SPLITZIP_ENCODING_AUTO) {
		msg("calibrate: --mode split4 (a codebook) or entropy (a table)");
		return EXIT_USAGE;
	}
	uint64_t hist[256] = {0}, total = 0;
	int rc = histogram_samples(o, hist, &total);
	if (rc)
		return rc;
	if (o->encoding == SPLITZIP_ENCODING_ENTROPY)
		return calibrate_table(o, hist, total);
	splitzip_codebook cb;
	splitzip_codebook_from_histogram(hist, &cb);
	unsigned char file[SPLITZIP_CODEBOOK_FILE_SIZE];
	splitzip_codebook_serialize(&cb, file, sizeof file);
	rc = write_file(o, file, sizeof file);
	if (rc)
		return rc;
	if (!o->quiet)
		print_summary(o->output, &cb, hist, total);
	return EXIT_OK;
}
