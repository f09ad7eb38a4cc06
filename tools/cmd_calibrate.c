/*
 * cmd_calibrate.c -- 'splitzip calibrate SAMPLE... -o CODEBOOK': the exponent histogram of
 * sample BF16 files, the codebook it gives, written as a codebook file for --codebook.
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

static int write_codebook(const options *o, const splitzip_codebook *cb)
{
	unsigned char file[SPLITZIP_CODEBOOK_FILE_SIZE];
	splitzip_codebook_serialize(cb, file, sizeof file);
	out_file out;
	int rc = out_open(&out, o->output, o->force);
	if (rc)
		return rc;
	rc = out_write(&out, file, sizeof file);
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

int cmd_calibrate(const options *o)
{
	if (o->n_pos < 1 || !o->output) {
		msg("usage: splitzip calibrate SAMPLE... -o CODEBOOK");
		return EXIT_USAGE;
	}
	uint64_t hist[256] = {0}, total = 0;
	int rc = histogram_samples(o, hist, &total);
	if (rc)
		return rc;
	splitzip_codebook cb;
	splitzip_codebook_from_histogram(hist, &cb);
	rc = write_codebook(o, &cb);
	if (rc)
		return rc;
	if (!o->quiet)
		print_summary(o->output, &cb, hist, total);
	return EXIT_OK;
}
