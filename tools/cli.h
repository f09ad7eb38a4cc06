/*
 * cli.h -- declarations shared by the files of the splitzip command-line tool: exit codes, the
 * parsed options, messages, output and input files, the frame reader and the commands.
 */
#ifndef SPLITZIP_CLI_H
#define SPLITZIP_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "splitzip.h"

/* Exit codes (documented in --help and README.md). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,    /* bad command line */
	EXIT_IO = 2,       /* cannot open, read, write or rename; disk full; broken pipe */
	EXIT_DATA = 3,     /* corrupt or invalid compressed data, or input that is not BF16 */
	EXIT_EXISTS = 4,   /* output exists and -f was not given */
	EXIT_BACKEND = 5,  /* requested backend unknown or unavailable */
	EXIT_RESOURCES = 6 /* out of memory */
};

#define DEFAULT_FRAME_ELEMS ((size_t)1 << 24)
#define MAX_POSITIONAL 64

typedef struct options {
	int force;
	int quiet; /* -q: no summary line on stderr */
	int checksum;
	const char *codebook_path;
	const char *backend;
	const char *output; /* -o */
	unsigned threads;
	unsigned chunk_log2;
	size_t frame_elems;
	int json;
	const char *pos[MAX_POSITIONAL];
	int n_pos;
} options;

/* ---- cli_util.c: messages, timing, library status to exit code ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void msg(const char *fmt, ...);
double now_s(void);
int exit_of_status(splitzip_status st);

/* ---- cli_ctx.c: a codec context built from the options ---- */

/* Index of the compiled-in backend called 'name', or splitzip_backend_count() if none. */
size_t backend_index(const char *name);
/* Build a context from the options; prints and returns an exit code on failure. */
int make_ctx(const options *o, splitzip_ctx **ctx);

/* ---- cli_io.c: output files, input files, signals ---- */

typedef struct out_file {
	FILE *f;
	const char *path; /* NULL for stdout */
	int to_stdout;
	int direct; /* a device, FIFO or socket written in place (no temporary file) */
} out_file;

void install_signal_handlers(void);
int out_open(out_file *o, const char *path, int force);
int out_write(out_file *o, const void *p, size_t n);
void out_abort(out_file *o);
int out_commit(out_file *o, int force);
FILE *in_open(const char *path);
void in_close(FILE *f);
size_t read_full(FILE *f, void *buf, size_t n, const char *path);

/* ---- cli_frames.c: the frame reader shared by decompress, verify and info ---- */

typedef struct frame_reader {
	FILE *in;
	const char *path;
	unsigned char *buf;
	size_t cap;
	long long remaining; /* bytes left in a regular file, -1 if unknown (pipe) */
	uint64_t offset;     /* byte offset of the current frame */
} frame_reader;

int reader_open(frame_reader *r, const char *path);
void reader_close(frame_reader *r);
int next_frame(frame_reader *r, size_t *size, splitzip_frame_info *fi);

/* ---- the commands (cmd_*.c); each returns an exit code ---- */

int cmd_compress(const options *o);
int cmd_decompress(const options *o);
int cmd_verify(const options *o);
int cmd_info(const options *o);
int cmd_calibrate(const options *o);
int cmd_backends(void);

#endif /* SPLITZIP_CLI_H */
