/*
 * fuzz_corpus_runner.c -- a main() for the fuzz targets in ordinary (non-libFuzzer) builds:
 * feeds every file named on the command line, and every file in every directory named, to
 * LLVMFuzzerTestOneInput() in an exact-size heap buffer. Directories are read in name order.
 * Fails if an input cannot be read or if there was no input at all (an empty corpus would
 * pass vacuously); a broken property aborts inside the target.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	size_t cap = 1 << 16, size = 0;
	uint8_t *buf = (uint8_t *)malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			fprintf(stderr, "out of memory reading %s\n", path);
			return -1;
		}
		size += fread(buf + size, 1, cap - size, f);
		if (size < cap)
			break;
		cap *= 2;
		buf = (uint8_t *)realloc(buf, cap);
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	/* An exact-size copy, so that a sanitizer sees a read one byte past the input. */
	uint8_t *exact = (uint8_t *)malloc(size ? size : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, size);
	free(buf);
	LLVMFuzzerTestOneInput(exact, size);
	free(exact);
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run every regular file in 'dir'; returns the count, or -1 on a read error. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "cannot open directory %s\n", dir);
		return -1;
	}
	size_t n = 0, cap = 64;
	char **names = (char **)malloc(cap * sizeof *names);
	struct dirent *e;
	while (names && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **more = (char **)realloc(names, 2 * cap * sizeof *names);
			if (!more)
				break;
			names = more;
			cap *= 2;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = (char *)malloc(len);
		if (!names[n])
			break;
		snprintf(names[n], len, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (!names)
		return -1;
	qsort(names, n, sizeof *names, name_cmp);
	long count = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (count >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			count = run_file(names[i]) == 0 ? count + 1 : -1;
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	long total = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "no such file or directory: %s\n", argv[i]);
			return 1;
		}
		long n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : (run_file(argv[i]) == 0 ? 1 : -1);
		if (n < 0)
			return 1;
		printf("%s: %ld inputs\n", argv[i], n);
		total += n;
	}
	if (total == 0) {
		fprintf(stderr, "no inputs: an empty corpus tests nothing\n");
		return 1;
	}
	printf("%ld inputs passed\n", total);
	return 0;
}
