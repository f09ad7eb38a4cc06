/*
 * cli.h -- declarations shared by the files of the splitzip command-line tool: exit codes, the
 * parsed options, messages, output and input files, the frame reader and the commands.
 */
#ifndef SPLITZIP_CLI_H
#define SPLITZIP_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "safetensors.h"
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
	const char *table_path; /* --table: a fixed entropy table file */
	int encoding;           /* --mode: a splitzip_encoding; -1 = not given (split4) */
	const char *backend;
	const char *output; /* -o */
	unsigned threads;
	unsigned chunk_log2;
	size_t frame_elems;
	unsigned dtype; /* --dtype: a splitzip_dtype (compress; default BF16) */
	int json;
	const char *svg; /* stats --svg FILE */
	int brief;       /* stats --brief: no histograms */
	int raw;         /* stats --raw: every input is raw BF16 */
	const char *pos[MAX_POSITIONAL];
	int n_pos;
} options;

/* ---- cli_util.c: messages, timing, library status to exit code ---- */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void msg(const char *fmt, ...);
/* From now on, msg() on this thread appends to buf[0..cap) instead of stderr (NULL: stop). */
void msg_capture(char *buf, size_t cap);
double now_s(void);
int exit_of_status(splitzip_status st);
/* Ask for transparent huge pages for a large buffer (fewer page faults); a no-op elsewhere. */
void advise_huge(void *p, size_t n);
/* Fault in the first n bytes of a buffer now (MADV_POPULATE_WRITE); a no-op where unsupported. */
void populate(void *p, size_t n);

/* ---- cli_ctx.c: a codec context built from the options ---- */

/* Index of the compiled-in backend called 'name', or splitzip_backend_count() if none. */
size_t backend_index(const char *name);
/* Codec threads when --threads is not given: one core is left to the reader and writer threads
 * (on 2 cores: 1 codec thread), at least 1. */
unsigned default_threads(void);
/* Build a context from the options; prints and returns an exit code on failure. */
int make_ctx(const options *o, splitzip_ctx **ctx);
/* The contexts 'pack' codes the tensors of the dtypes other than BF16 with (cmd_pack.c): the
 * FP16/FP32/E5M2 one if need_other, the E4M3 one if need_e4m3; an exit code on failure. */
int pack_dtype_ctxs(const options *o, int need_other, int need_e4m3, splitzip_ctx **other,
                    splitzip_ctx **e4m3);

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
/* Write n bytes with write(2) on the output's descriptor (its FILE must hold no buffered data);
 * a cancellation point only inside write() (cli_pipe.c). */
int out_write_fd(out_file *o, const void *p, size_t n);
void out_abort(out_file *o);
int out_commit(out_file *o, int force);
FILE *in_open(const char *path);
void in_close(FILE *f);
size_t read_full(FILE *f, void *buf, size_t n, const char *path);
/* read_full() with read(2) on a descriptor; a cancellation point only inside read(). */
size_t read_fd(int fd, void *buf, size_t n, const char *path);
/* The size of a regular file, or 0 (a pipe, a device, an error). */
uint64_t file_size_of(FILE *f);
/*
 * A regular, non-empty input file mapped read-only (NULL, nothing printed, if it is not one or
 * cannot be mapped: the caller reads it instead). The codec then reads the page cache directly,
 * with no copy into a buffer. If the file shrinks while mapped, SIGBUS ends the run like
 * SIGTERM (temporary output removed) with exit code 2.
 */
const unsigned char *map_input(FILE *f, uint64_t *size);
void unmap_input(const unsigned char *p, uint64_t size);
/* Ask the kernel to map n bytes at p now (the reader thread does it ahead of the codec). */
void prefault(const unsigned char *p, size_t n);

/* ---- cli_pipe.c: reading, coding and writing overlapped (reader and writer threads) ---- */

typedef struct pipe_buf {
	unsigned char *data;
	size_t cap;               /* bytes allocated; a stage may grow the buffer */
	size_t len;               /* bytes of content */
	const unsigned char *src; /* where they are: 'data', or a mapped input file */
	uint64_t user; /* set by the reader for the coder (e.g. which tensor the block is of) */
	int rc;        /* the reader failed here: exit code, and its messages in 'msg' */
	char msg[512];
} pipe_buf;

/* Fill 'b' with the next block of input: 1, 0 at the end of the input, or -exit_code (after a
 * message). Runs on the reader thread, where msg() is captured: a failure and its messages are
 * handed to the coder in input order, so the first failure in the input is the one reported,
 * whether the reader or the coder finds it. */
typedef int (*pipe_read_fn)(void *arg, pipe_buf *b);
/* Code 'in' into 'out' (out->len bytes to write): an exit code (after a message on failure).
 * Runs on the calling thread, one block after the other, in input order. */
typedef int (*pipe_code_fn)(void *arg, const pipe_buf *in, pipe_buf *out);

typedef struct pipe_spec {
	pipe_read_fn read;
	void *read_arg;
	pipe_code_fn code;
	void *code_arg;
	out_file *out;          /* written by the writer thread; NULL: nothing to write (verify) */
	size_t in_cap, out_cap; /* initial buffer sizes */
	size_t warm; /* bytes of the second output buffer to fault in at the start (0: none) */
} pipe_spec;

/* Run the pipeline to the end of the input; returns the first failure's exit code, or 0. */
int pipe_run(const pipe_spec *spec);

/* ---- cli_progress.c: progress line on a terminal ---- */

typedef struct progress {
	int on;          /* stderr is a terminal and -q was not given */
	uint64_t total;  /* bytes of input, 0 if unknown */
	double t0, next; /* start; earliest time of the next redraw */
	int drawn;       /* a line is on the screen */
	const char *what;
} progress;

void progress_start(progress *p, const options *o, const char *what, uint64_t total);
void progress_update(progress *p, uint64_t done);
void progress_end(progress *p);

/* ---- cli_frames.c: the frame reader shared by decompress, verify and info ---- */

typedef struct frame_reader {
	FILE *in;
	const char *path;
	unsigned char *buf;
	size_t cap;
	long long remaining;        /* bytes left in a regular file, -1 if unknown (pipe) */
	uint64_t offset;            /* byte offset of the current frame */
	const unsigned char *map;   /* the mapped file (map_input), or NULL: read into 'buf' */
	uint64_t map_size, pos;     /* its size; where the next frame starts */
	const unsigned char *frame; /* after next_frame: the frame (in 'buf' or the mapping) */
} frame_reader;

int reader_open(frame_reader *r, const char *path);
void reader_close(frame_reader *r);
int next_frame(frame_reader *r, size_t *size, splitzip_frame_info *fi);

/* ---- cli_st.c: safetensors files and containers, validated (messages printed) ---- */

typedef struct st_file {
	FILE *in; /* positioned at the data buffer after st_open */
	const char *path;
	uint64_t size;       /* of the file */
	unsigned char *head; /* its first head_size bytes: 8-byte length and JSON */
	uint64_t head_size;
	st_header h;
} st_file;

typedef struct szst_file {
	FILE *in; /* positioned at the data offset after szst_open */
	const char *path;
	uint64_t size;
	szst_header h;
	unsigned char *meta; /* bytes [64, data offset) */
	st_header sth;       /* the stored safetensors header */
	szst_entry *e;       /* the table, in sth.t order */
} szst_file;

int st_open(st_file *f, const char *path); /* an exit code; st_close() in every case */
void st_close(st_file *f);
int szst_open(szst_file *f, const char *path);
void szst_close(szst_file *f);
/* 1 if the file at 'path' starts with the 4 bytes 'magic'. */
int starts_with_magic(const char *path, const char *magic);

/* ---- cmd_stats.c and svg.c: exponent statistics of a tensor ---- */

typedef struct tstat {
	const char *name, *dtype; /* the tensor (its file's name for a raw file) */
	unsigned code; /* the splitzip_dtype it is coded as; 0: kept as is, only 'bytes' */
	uint64_t bytes;
	uint64_t hist[256];                     /* exponent histogram */
	uint64_t n, escapes, predicted, frames; /* with the frames and codebooks of 'compress' */
	double entropy, top8, top16;            /* bits; shares of the 8 and 16 top exponents */
	int distinct;
	splitzip_codebook codebook; /* of the whole tensor's histogram */
	double bound; /* order-0 bound: the ratio with the exponent at 'entropy' bits */
} tstat;

/* The exponent bias of a dtype (2^(e-1) - 1: 127 for BF16 and FP32, 15 for FP16 and E5M2, 7 for
 * E4M3), for exponents printed as powers of two. */
int tstat_bias(const tstat *t);

void tstat_figures(tstat *t);
/* The chart of 'n' tensors (histograms, coverage curves) as an SVG document. */
void svg_chart(FILE *f, const tstat *const *t, size_t n, const char *title);

/* ---- the commands (cmd_*.c); each returns an exit code ---- */

int cmd_compress(const options *o);
int cmd_decompress(const options *o);
int cmd_verify(const options *o);
int cmd_info(const options *o);
int cmd_calibrate(const options *o);
int cmd_backends(void);
int cmd_pack(const options *o);
int cmd_unpack(const options *o);
int cmd_info_container(const options *o);
int cmd_stats(const options *o);
int cmd_help(const char *name); /* cli_help.c */

#endif /* SPLITZIP_CLI_H */
