/*
 * cli_util.c -- small helpers of the splitzip command-line tool: messages on stderr, a
 * monotonic clock for the throughput figures, the exit code for a library status, and the
 * transparent-huge-page hint for large buffers.
 */
#define _DEFAULT_SOURCE /* madvise */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char *progname = "splitzip";

static _Thread_local char *capture_buf;
static _Thread_local size_t capture_cap;

void msg_capture(char *buf, size_t cap)
{
	capture_buf = buf;
	capture_cap = cap;
	if (buf && cap)
		buf[0] = 0;
}

void msg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (capture_buf) {
		size_t k = strlen(capture_buf);
		if (k + 1 < capture_cap)
			k += (size_t)snprintf(capture_buf + k, capture_cap - k, "%s: ", progname);
		if (k + 1 < capture_cap)
			k += (size_t)vsnprintf(capture_buf + k, capture_cap - k, fmt, ap);
		if (k + 2 < capture_cap)
			strcat(capture_buf, "\n");
	} else {
		fprintf(stderr, "%s: ", progname);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int exit_of_status(splitzip_status st)
{
	switch (st) {
	case SPLITZIP_OK:
		return EXIT_OK;
	case SPLITZIP_ERROR_BACKEND_UNAVAILABLE:
		return EXIT_BACKEND;
	case SPLITZIP_ERROR_OUT_OF_MEMORY:
		return EXIT_RESOURCES;
	case SPLITZIP_ERROR_INVALID_ARGUMENT:
		return EXIT_USAGE;
	default:
		return EXIT_DATA;
	}
}

void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	/* Frame buffers are tens of MiB, filled once per frame: with 4 KiB pages the first pass
	 * over them costs a page fault every 4 KiB, a large part of a run on tmpfs. */
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
	if (p && n >= ((size_t)4 << 20) && e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#else
	(void)p;
	(void)n;
#endif
}

void populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
	if (p && e > a)
		madvise((void *)a, e - a,
		        MADV_POPULATE_WRITE); /* a hint: failure changes nothing */
#else
	(void)p;
	(void)n;
#endif
}
