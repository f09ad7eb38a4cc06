/*
 * cli_util.c -- small helpers of the splitzip command-line tool: messages on stderr, a
 * monotonic clock for the throughput figures, and the exit code for a library status.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"

static const char *progname = "splitzip";

void msg(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
