/*
 * splitzip.c -- the splitzip command-line tool.
 *
 * Files are streams of independent frames (doc/FORMAT.md §8.1): compress reads at most
 * --frame-elems elements at a time, so memory stays bounded whatever the input size. Output to a
 * path goes to a temporary file in the same directory that is renamed over the target only after
 * everything succeeded; on any failure (or SIGINT/SIGTERM/SIGHUP) the temporary file is removed,
 * so an existing file is never damaged and no partial output is left behind.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "splitzip.h"

#ifdef SPLITZIP_HAVE_BENCH
int splitzip_bench_main(int argc, char **argv);
#endif

/* Exit codes (documented in --help and README.md). */
enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,	      /* bad command line */
	EXIT_IO = 2,	      /* cannot open, read, write or rename; disk full; broken pipe */
	EXIT_DATA = 3,	      /* corrupt or invalid compressed data, or input that is not BF16 */
	EXIT_EXISTS = 4,      /* output exists and -f was not given */
	EXIT_BACKEND = 5,     /* requested backend unknown or unavailable */
	EXIT_RESOURCES = 6    /* out of memory */
};

#define DEFAULT_FRAME_ELEMS ((size_t)1 << 24)

static const char *progname = "splitzip";
static int quiet = 0;

/* The temporary output file, removed by fail paths and signal handlers. */
static char tmp_path[4096];
static volatile sig_atomic_t tmp_active = 0;

static void msg(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_signal(int sig)
{
	if (tmp_active)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int exit_of_status(splitzip_status st)
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

/* ---- Output files ---------------------------------------------------------------------------- */

typedef struct out_file {
	FILE *f;
	const char *path; /* NULL for stdout */
	int to_stdout;
	int direct; /* a device, FIFO or socket written in place (no temporary file) */
} out_file;

/*
 * Open the output: '-' is stdout; a device, FIFO or socket (/dev/null, /dev/full, a named pipe)
 * is written in place: it holds no data that could be overwritten, and renaming a temporary
 * file over it would replace the special file itself. Any other path gets a temporary sibling
 * that is renamed over the target on success.
 */
static int out_open(out_file *o, const char *path, int force)
{
	memset(o, 0, sizeof *o);
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		o->to_stdout = 1;
		return EXIT_OK;
	}
	struct stat sb;
	if (stat(path, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode) ||
				     S_ISSOCK(sb.st_mode))) {
		int fd = open(path, O_WRONLY | O_NOCTTY);
		if (fd < 0 || !(o->f = fdopen(fd, "wb"))) {
			msg("%s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return EXIT_IO;
		}
		o->path = path;
		o->direct = 1;
		return EXIT_OK;
	}
	if (!force && lstat(path, &sb) == 0) {
		msg("%s: already exists; use -f to overwrite", path);
		return EXIT_EXISTS;
	}
	int len = snprintf(tmp_path, sizeof tmp_path, "%s.splitzip-tmp.XXXXXX", path);
	if (len < 0 || (size_t)len >= sizeof tmp_path) {
		msg("%s: path too long", path);
		return EXIT_IO;
	}
	int fd = mkstemp(tmp_path);
	if (fd < 0) {
		msg("%s: cannot create temporary file: %s", path, strerror(errno));
		return EXIT_IO;
	}
	tmp_active = 1;
	/* mkstemp() creates the file with mode 0600; give the output the mode any new file gets
	 * (0666 less the umask), as a shell redirection would. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		msg("%s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp_path);
		tmp_active = 0;
		return EXIT_IO;
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		msg("%s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp_path);
		tmp_active = 0;
		return EXIT_IO;
	}
	o->path = path;
	return EXIT_OK;
}

static int out_write(out_file *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n) {
		msg("%s: write failed: %s", o->to_stdout ? "(stdout)" : o->path,
		    errno == EPIPE ? "broken pipe" : strerror(errno));
		return EXIT_IO;
	}
	return EXIT_OK;
}

/* Abandon the output: remove the temporary file. */
static void out_abort(out_file *o)
{
	if (!o->f)
		return;
	if (o->direct) {
		fclose(o->f);
	} else if (!o->to_stdout) {
		fclose(o->f);
		unlink(tmp_path);
		tmp_active = 0;
	}
	o->f = NULL;
}

/* Finish the output: flush, sync, and rename the temporary file over the target. */
static int out_commit(out_file *o, int force)
{
	if (o->to_stdout) {
		if (fflush(stdout) != 0) {
			msg("(stdout): write failed: %s",
			    errno == EPIPE ? "broken pipe" : strerror(errno));
			return EXIT_IO;
		}
		return EXIT_OK;
	}
	if (o->direct) {
		int bad = fflush(o->f) != 0;
		int err = errno;
		if (fclose(o->f) != 0 && !bad) {
			bad = 1;
			err = errno;
		}
		o->f = NULL;
		if (bad) {
			msg("%s: write failed: %s", o->path,
			    err == EPIPE ? "broken pipe" : strerror(err));
			return EXIT_IO;
		}
		return EXIT_OK;
	}
	int bad = fflush(o->f) != 0 || fsync(fileno(o->f)) != 0;
	int err = errno;
	if (fclose(o->f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	o->f = NULL;
	if (bad) {
		msg("%s: write failed: %s", o->path, strerror(err));
		unlink(tmp_path);
		tmp_active = 0;
		return EXIT_IO;
	}
	struct stat sb;
	if (!force && lstat(o->path, &sb) == 0) { /* appeared while we worked */
		msg("%s: already exists; use -f to overwrite", o->path);
		unlink(tmp_path);
		tmp_active = 0;
		return EXIT_EXISTS;
	}
	if (rename(tmp_path, o->path) != 0) {
		msg("%s: cannot rename temporary file: %s", o->path, strerror(errno));
		unlink(tmp_path);
		tmp_active = 0;
		return EXIT_IO;
	}
	tmp_active = 0;
	return EXIT_OK;
}

/* ---- Input files ----------------------------------------------------------------------------- */

static FILE *in_open(const char *path)
{
	if (strcmp(path, "-") == 0)
		return stdin;
	FILE *f = fopen(path, "rb");
	if (!f)
		msg("%s: %s", path, strerror(errno));
	return f;
}

static void in_close(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

/* Read up to n bytes (fewer only at end of input). Returns bytes read, or (size_t)-1 on error. */
static size_t read_full(FILE *f, void *buf, size_t n, const char *path)
{
	size_t got = 0;
	while (got < n) {
		size_t r = fread((char *)buf + got, 1, n - got, f);
		got += r;
		if (r == 0) {
			if (ferror(f)) {
				msg("%s: read failed: %s", path, strerror(errno));
				return (size_t)-1;
			}
			break;
		}
	}
	return got;
}

/* ---- Option parsing -------------------------------------------------------------------------- */

typedef struct options {
	int force;
	int checksum;
	const char *codebook_path;
	const char *backend;
	const char *output; /* -o */
	unsigned threads;
	unsigned chunk_log2;
	size_t frame_elems;
	int json;
	const char *pos[64];
	int n_pos;
} options;

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return 0;
	*out = v;
	return 1;
}

static int parse_options(int argc, char **argv, options *o)
{
	memset(o, 0, sizeof *o);
	o->checksum = 1;
	o->frame_elems = DEFAULT_FRAME_ELEMS;
	int only_pos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		unsigned long long v;
		if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
			if (o->n_pos == 64) {
				msg("too many arguments");
				return 0;
			}
			o->pos[o->n_pos++] = a;
		} else if (strcmp(a, "--") == 0) {
			only_pos = 1;
		} else if (strcmp(a, "-f") == 0 || strcmp(a, "--force") == 0) {
			o->force = 1;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			quiet = 1;
		} else if (strcmp(a, "--no-checksum") == 0) {
			o->checksum = 0;
		} else if (strcmp(a, "--json") == 0) {
			o->json = 1;
		} else if ((strcmp(a, "--codebook") == 0 || strcmp(a, "--backend") == 0 ||
			    strcmp(a, "-o") == 0 || strcmp(a, "--threads") == 0 ||
			    strcmp(a, "--chunk-log2") == 0 || strcmp(a, "--frame-elems") == 0)) {
			if (i + 1 >= argc) {
				msg("%s needs a value", a);
				return 0;
			}
			const char *val = argv[++i];
			if (strcmp(a, "--codebook") == 0) {
				o->codebook_path = val;
			} else if (strcmp(a, "--backend") == 0) {
				o->backend = val;
			} else if (strcmp(a, "-o") == 0) {
				o->output = val;
			} else if (strcmp(a, "--threads") == 0) {
				if (!parse_uint(val, 1024, &v)) {
					msg("--threads: expected 0..1024, got '%s'", val);
					return 0;
				}
				o->threads = (unsigned)v;
			} else if (strcmp(a, "--chunk-log2") == 0) {
				if (!parse_uint(val, SPLITZIP_CHUNK_LOG2_MAX, &v) ||
				    v < SPLITZIP_CHUNK_LOG2_MIN) {
					msg("--chunk-log2: expected %d..%d, got '%s'",
					    SPLITZIP_CHUNK_LOG2_MIN, SPLITZIP_CHUNK_LOG2_MAX, val);
					return 0;
				}
				o->chunk_log2 = (unsigned)v;
			} else {
				if (!parse_uint(val, SPLITZIP_MAX_FRAME_ELEMS, &v) || v == 0) {
					msg("--frame-elems: expected 1..%llu, got '%s'",
					    (unsigned long long)SPLITZIP_MAX_FRAME_ELEMS, val);
					return 0;
				}
				o->frame_elems = (size_t)v;
			}
		} else {
			msg("unknown option '%s' (see --help)", a);
			return 0;
		}
	}
	return 1;
}

/* Build a context from the options; prints and returns an exit code on failure. */
static int make_ctx(const options *o, splitzip_ctx **ctx)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.flags = o->checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	p.n_threads = o->threads;
	if (o->chunk_log2)
		p.chunk_log2 = o->chunk_log2;
	if (o->backend) {
		size_t i, n = splitzip_backend_count();
		for (i = 0; i < n; i++)
			if (strcmp(splitzip_backend_name(i), o->backend) == 0)
				break;
		if (i == n || !splitzip_backend_available(i)) {
			msg("backend '%s' is %s (see 'splitzip backends')", o->backend,
			    i == n ? "unknown or not compiled in" : "not usable on this machine");
			return EXIT_BACKEND;
		}
		p.backend = splitzip_backend_id_of(i);
	}
	if (o->codebook_path) {
		FILE *f = fopen(o->codebook_path, "rb");
		if (!f) {
			msg("%s: %s", o->codebook_path, strerror(errno));
			return EXIT_IO;
		}
		unsigned char buf[SPLITZIP_CODEBOOK_FILE_SIZE + 1];
		size_t got = read_full(f, buf, sizeof buf, o->codebook_path);
		fclose(f);
		if (got == (size_t)-1)
			return EXIT_IO;
		splitzip_status st = splitzip_codebook_deserialize(buf, got, &p.codebook);
		if (st != SPLITZIP_OK) {
			msg("%s: not a valid codebook file: %s", o->codebook_path,
			    splitzip_error_string(st));
			return EXIT_DATA;
		}
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
	}
	splitzip_status st = splitzip_ctx_create(&p, ctx);
	if (st != SPLITZIP_OK) {
		msg("cannot create context: %s", splitzip_error_string(st));
		return exit_of_status(st);
	}
	return EXIT_OK;
}

/* ---- compress ------------------------------------------------------------------------------ */

static int cmd_compress(const options *o)
{
	if (o->n_pos != 2) {
		msg("usage: splitzip compress [options] IN OUT");
		return EXIT_USAGE;
	}
	const char *in_path = o->pos[0], *out_path = o->pos[1];
	splitzip_ctx *ctx = NULL;
	int rc = make_ctx(o, &ctx);
	if (rc)
		return rc;
	FILE *in = in_open(in_path);
	if (!in) {
		splitzip_ctx_free(ctx);
		return EXIT_IO;
	}
	size_t fe = o->frame_elems;
	uint16_t *buf = (uint16_t *)malloc(fe * 2);
	size_t cap = splitzip_compress_bound(fe);
	unsigned char *cbuf = (unsigned char *)malloc(cap);
	out_file out;
	memset(&out, 0, sizeof out);
	if (!buf || !cbuf) {
		msg("out of memory");
		rc = EXIT_RESOURCES;
		goto done;
	}
	rc = out_open(&out, out_path, o->force);
	if (rc)
		goto done;

	uint64_t total_in = 0, total_out = 0, frames = 0, escapes = 0;
	double t_codec = 0;
	for (;;) {
		size_t got = read_full(in, buf, fe * 2, in_path);
		if (got == (size_t)-1) {
			rc = EXIT_IO;
			goto done;
		}
		if (got % 2) {
			msg("%s: input is not BF16: its size is an odd number of bytes", in_path);
			rc = EXIT_DATA;
			goto done;
		}
		if (got == 0 && frames > 0)
			break;
		size_t csize = 0;
		double t0 = now_s();
		splitzip_status st = splitzip_compress(ctx, buf, got / 2, cbuf, cap, &csize);
		t_codec += now_s() - t0;
		if (st != SPLITZIP_OK) {
			msg("compression failed: %s", splitzip_error_string(st));
			rc = exit_of_status(st);
			goto done;
		}
		splitzip_frame_info fi;
		if (splitzip_get_frame_info(cbuf, csize, &fi) == SPLITZIP_OK)
			escapes += fi.n_escapes;
		rc = out_write(&out, cbuf, csize);
		if (rc)
			goto done;
		total_in += got;
		total_out += csize;
		frames++;
		if (got < fe * 2)
			break;
	}
	rc = out_commit(&out, o->force);
	if (rc)
		goto done;
	if (!quiet) {
		uint64_t n = total_in / 2;
		fprintf(stderr,
			"%s: %llu -> %llu bytes, ratio %.4fx, %llu elements, %llu escapes (%.3f%%), "
			"%llu frame%s, encode %.2f GB/s [%s]\n",
			in_path, (unsigned long long)total_in, (unsigned long long)total_out,
			total_out ? (double)total_in / (double)total_out : 0.0, (unsigned long long)n,
			(unsigned long long)escapes, n ? 100.0 * (double)escapes / (double)n : 0.0,
			(unsigned long long)frames, frames == 1 ? "" : "s",
			t_codec > 0 ? (double)total_in / t_codec / 1e9 : 0.0,
			splitzip_ctx_backend_name(ctx));
	}
done:
	if (rc)
		out_abort(&out);
	in_close(in);
	free(buf);
	free(cbuf);
	splitzip_ctx_free(ctx);
	return rc;
}

/* ---- Frame reader shared by decompress, verify and info ------------------------------------- */

typedef struct frame_reader {
	FILE *in;
	const char *path;
	unsigned char *buf;
	size_t cap;
	long long remaining; /* bytes left in a regular file, -1 if unknown (pipe) */
	uint64_t offset;     /* byte offset of the current frame */
} frame_reader;

/*
 * Read the next frame into r->buf. Returns 1 with '*size' set, 0 at a clean end of input, or
 * -exit_code on error (a message has been printed).
 */
static int next_frame(frame_reader *r, size_t *size, splitzip_frame_info *fi)
{
	unsigned char hdr[SPLITZIP_FRAME_HEADER_SIZE];
	size_t got = read_full(r->in, hdr, sizeof hdr, r->path);
	if (got == (size_t)-1)
		return -EXIT_IO;
	if (got == 0)
		return 0;
	splitzip_status st = splitzip_get_frame_info(hdr, got, fi);
	/* FORMAT.md §8.2: after the first frame, bytes that do not start a frame are damage to
	 * this stream, not some other kind of file. */
	if (st == SPLITZIP_ERROR_BAD_MAGIC && r->offset > 0)
		st = SPLITZIP_ERROR_CORRUPT_STREAM;
	if (st != SPLITZIP_OK) {
		msg("%s: frame at byte %llu: %s", r->path, (unsigned long long)r->offset,
		    splitzip_error_string(st));
		return -EXIT_DATA;
	}
	if (r->remaining >= 0 && fi->frame_size > (uint64_t)r->remaining) {
		msg("%s: frame at byte %llu: %s (frame of %llu bytes, %lld left in file)", r->path,
		    (unsigned long long)r->offset, splitzip_error_string(SPLITZIP_ERROR_TRUNCATED),
		    (unsigned long long)fi->frame_size, r->remaining);
		return -EXIT_DATA;
	}
	if (fi->frame_size > (uint64_t)SIZE_MAX / 2)
		return -EXIT_RESOURCES;
	/*
	 * Read the body in steps that at most double what has arrived (at least 1 MiB), growing
	 * the buffer only as data comes: on a pipe the frame size is still an unverified claim,
	 * and a header announcing a frame of gigabytes must not reserve them before the data
	 * is there.
	 */
	const size_t want = (size_t)fi->frame_size;
	size_t have = sizeof hdr;
	if (r->cap < have) {
		unsigned char *nb = (unsigned char *)realloc(r->buf, have);
		if (!nb) {
			msg("out of memory");
			return -EXIT_RESOURCES;
		}
		r->buf = nb;
		r->cap = have;
	}
	memcpy(r->buf, hdr, sizeof hdr);
	while (have < want) {
		size_t step = have < ((size_t)1 << 20) ? (size_t)1 << 20 : have;
		size_t target = want - have < step ? want : have + step;
		if (target > r->cap) {
			unsigned char *nb = (unsigned char *)realloc(r->buf, target);
			if (!nb) {
				msg("out of memory (frame of %llu bytes)",
				    (unsigned long long)fi->frame_size);
				return -EXIT_RESOURCES;
			}
			r->buf = nb;
			r->cap = target;
		}
		got = read_full(r->in, r->buf + have, target - have, r->path);
		if (got == (size_t)-1)
			return -EXIT_IO;
		have += got;
		if (have != target) {
			msg("%s: frame at byte %llu: %s", r->path, (unsigned long long)r->offset,
			    splitzip_error_string(SPLITZIP_ERROR_TRUNCATED));
			return -EXIT_DATA;
		}
	}
	*size = (size_t)fi->frame_size;
	if (r->remaining >= 0)
		r->remaining -= (long long)fi->frame_size;
	return 1;
}

static int reader_open(frame_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->path = strcmp(path, "-") == 0 ? "(stdin)" : path;
	r->in = in_open(path);
	if (!r->in)
		return EXIT_IO;
	struct stat sb;
	r->remaining = -1;
	if (fstat(fileno(r->in), &sb) == 0 && S_ISREG(sb.st_mode) && r->in != stdin)
		r->remaining = (long long)sb.st_size;
	return EXIT_OK;
}

static void reader_close(frame_reader *r)
{
	in_close(r->in);
	free(r->buf);
}

/* Decode every frame; write the data to 'out' if not NULL. */
static int decode_all(const options *o, const char *in_path, out_file *out, const char *what)
{
	splitzip_ctx *ctx = NULL;
	frame_reader r;
	int rc = make_ctx(o, &ctx);
	if (!rc)
		rc = reader_open(&r, in_path);
	if (rc) {
		if (out)
			out_abort(out);
		splitzip_ctx_free(ctx);
		return rc;
	}
	uint16_t *dbuf = NULL;
	size_t dcap = 0;
	uint64_t frames = 0, elems = 0, bytes_in = 0;
	double t_codec = 0;
	for (;;) {
		size_t fsize;
		splitzip_frame_info fi;
		int k = next_frame(&r, &fsize, &fi);
		if (k < 0) {
			rc = -k;
			goto done;
		}
		if (k == 0)
			break;
		if (fi.n_elems > dcap) {
			free(dbuf);
			dbuf = (uint16_t *)malloc((size_t)fi.n_elems * 2);
			if (!dbuf) {
				msg("out of memory");
				rc = EXIT_RESOURCES;
				goto done;
			}
			dcap = (size_t)fi.n_elems;
		}
		size_t used = 0, n = 0;
		double t0 = now_s();
		splitzip_status st =
			splitzip_frame_decompress(ctx, r.buf, fsize, &used, dbuf, dcap, &n);
		t_codec += now_s() - t0;
		if (st != SPLITZIP_OK) {
			msg("%s: frame %llu at byte %llu: %s", r.path, (unsigned long long)frames,
			    (unsigned long long)r.offset, splitzip_error_string(st));
			rc = exit_of_status(st);
			goto done;
		}
		if (out) {
			rc = out_write(out, dbuf, n * 2);
			if (rc)
				goto done;
		}
		r.offset += fsize;
		bytes_in += fsize;
		elems += n;
		frames++;
	}
	if (frames == 0) {
		msg("%s: empty input: no splitzip frame", r.path);
		rc = EXIT_DATA;
		goto done;
	}
	if (out) {
		rc = out_commit(out, o->force);
		if (rc)
			goto done;
	}
	if (!quiet)
		fprintf(stderr,
			"%s: %s, %llu frame%s, %llu elements, %llu -> %llu bytes, ratio %.4fx, "
			"decode %.2f GB/s [%s]\n",
			r.path, what, (unsigned long long)frames, frames == 1 ? "" : "s",
			(unsigned long long)elems, (unsigned long long)bytes_in,
			(unsigned long long)elems * 2,
			bytes_in ? (double)elems * 2 / (double)bytes_in : 0.0,
			t_codec > 0 ? (double)elems * 2 / t_codec / 1e9 : 0.0,
			splitzip_ctx_backend_name(ctx));
done:
	if (rc && out)
		out_abort(out);
	free(dbuf);
	reader_close(&r);
	splitzip_ctx_free(ctx);
	return rc;
}

static int cmd_decompress(const options *o)
{
	if (o->n_pos != 2) {
		msg("usage: splitzip decompress [options] IN OUT");
		return EXIT_USAGE;
	}
	out_file out;
	int rc = out_open(&out, o->pos[1], o->force);
	if (rc)
		return rc;
	return decode_all(o, o->pos[0], &out, "decompressed");
}

static int cmd_verify(const options *o)
{
	if (o->n_pos != 1) {
		msg("usage: splitzip verify FILE");
		return EXIT_USAGE;
	}
	int rc = decode_all(o, o->pos[0], NULL, "OK");
	return rc;
}

/* ---- info ----------------------------------------------------------------------------------- */

static int cmd_info(const options *o)
{
	if (o->n_pos != 1) {
		msg("usage: splitzip info FILE");
		return EXIT_USAGE;
	}
	frame_reader r;
	int rc = reader_open(&r, o->pos[0]);
	if (rc)
		return rc;
	uint64_t frames = 0, elems = 0, bytes = 0, escapes = 0, stored = 0, with_sum = 0;
	splitzip_codebook first_cb;
	int cb_differs = 0, have_cb = 0;
	unsigned log2 = 0;
	for (;;) {
		size_t fsize;
		splitzip_frame_info fi;
		int k = next_frame(&r, &fsize, &fi);
		if (k < 0) {
			rc = -k;
			goto done;
		}
		if (k == 0)
			break;
		if (fi.mode == SPLITZIP_MODE_STORED) {
			stored++;
		} else if (!have_cb) {
			first_cb = fi.codebook;
			have_cb = 1;
		} else if (memcmp(&first_cb, &fi.codebook, sizeof first_cb) != 0) {
			cb_differs = 1;
		}
		if (fi.flags & SPLITZIP_FLAG_CONTENT_CHECKSUM)
			with_sum++;
		log2 = fi.chunk_log2;
		r.offset += fsize;
		frames++;
		elems += fi.n_elems;
		bytes += fsize;
		escapes += fi.n_escapes;
	}
	if (frames == 0) {
		msg("%s: empty input: no splitzip frame", r.path);
		rc = EXIT_DATA;
		goto done;
	}
	printf("file:            %s\n", r.path);
	printf("format version:  %d (dtype bf16)\n", SPLITZIP_FORMAT_VERSION);
	printf("frames:          %llu (%llu stored, %llu split4)\n", (unsigned long long)frames,
	       (unsigned long long)stored, (unsigned long long)(frames - stored));
	printf("elements:        %llu (%llu bytes uncompressed)\n", (unsigned long long)elems,
	       (unsigned long long)elems * 2);
	printf("compressed:      %llu bytes\n", (unsigned long long)bytes);
	printf("ratio:           %.4fx\n", bytes ? (double)elems * 2 / (double)bytes : 0.0);
	printf("escapes:         %llu (%.4f%% of elements)\n", (unsigned long long)escapes,
	       elems ? 100.0 * (double)escapes / (double)elems : 0.0);
	printf("chunk size:      %u elements\n", 1u << log2);
	printf("checksum:        %s\n", with_sum == frames ? "all frames"
					: with_sum ? "some frames" : "none");
	if (have_cb) {
		printf("codebook:       ");
		for (int i = 0; i < SPLITZIP_CODEBOOK_SIZE; i++)
			printf(" %u", first_cb.exponents[i]);
		printf("%s\n", cb_differs ? " (first frame; frames differ)" : "");
	}
done:
	reader_close(&r);
	return rc;
}

/* ---- calibrate ------------------------------------------------------------------------------ */

static int cmd_calibrate(const options *o)
{
	if (o->n_pos < 1 || !o->output) {
		msg("usage: splitzip calibrate SAMPLE... -o CODEBOOK");
		return EXIT_USAGE;
	}
	uint64_t hist[256] = {0}, total = 0;
	size_t bufsz = (size_t)1 << 22;
	uint16_t *buf = (uint16_t *)malloc(bufsz * 2);
	if (!buf) {
		msg("out of memory");
		return EXIT_RESOURCES;
	}
	int rc = EXIT_OK;
	for (int i = 0; i < o->n_pos && !rc; i++) {
		FILE *in = in_open(o->pos[i]);
		if (!in) {
			rc = EXIT_IO;
			break;
		}
		for (;;) {
			size_t got = read_full(in, buf, bufsz * 2, o->pos[i]);
			if (got == (size_t)-1) {
				rc = EXIT_IO;
				break;
			}
			if (got % 2) {
				msg("%s: input is not BF16: its size is an odd number of bytes",
				    o->pos[i]);
				rc = EXIT_DATA;
				break;
			}
			splitzip_histogram(buf, got / 2, hist);
			total += got / 2;
			if (got < bufsz * 2)
				break;
		}
		in_close(in);
	}
	free(buf);
	if (rc)
		return rc;
	splitzip_codebook cb;
	splitzip_codebook_from_histogram(hist, &cb);
	uint64_t covered = 0;
	for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
		covered += hist[cb.exponents[k]];
	unsigned char file[SPLITZIP_CODEBOOK_FILE_SIZE];
	splitzip_codebook_serialize(&cb, file, sizeof file);
	out_file out;
	rc = out_open(&out, o->output, o->force);
	if (rc)
		return rc;
	rc = out_write(&out, file, sizeof file);
	if (!rc)
		rc = out_commit(&out, o->force);
	if (rc) {
		out_abort(&out);
		return rc;
	}
	if (!quiet) {
		fprintf(stderr, "%s: codebook from %llu elements, coverage %.4f%%, exponents",
			o->output, (unsigned long long)total,
			total ? 100.0 * (double)covered / (double)total : 0.0);
		for (int k = 0; k < SPLITZIP_CODEBOOK_SIZE; k++)
			fprintf(stderr, " %u", cb.exponents[k]);
		fputc('\n', stderr);
	}
	return EXIT_OK;
}

/* ---- backends ------------------------------------------------------------------------------- */

static int cmd_backends(void)
{
	static const char *const known[] = {"avx512vbmi", "avx512", "avx2", "neon",
					     "cuda",	   "hip",    "scalar"};
	printf("%-10s %-12s %s\n", "backend", "compiled-in", "usable-here");
	for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
		size_t i, n = splitzip_backend_count();
		for (i = 0; i < n; i++)
			if (strcmp(splitzip_backend_name(i), known[k]) == 0)
				break;
		printf("%-10s %-12s %s\n", known[k], i < n ? "yes" : "no",
		       i < n && splitzip_backend_available(i) ? "yes" : "no");
	}
	/* Backends compiled in under a name this list does not know (e.g. a variant). */
	for (size_t i = 0; i < splitzip_backend_count(); i++) {
		int listed = 0;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			listed |= strcmp(splitzip_backend_name(i), known[k]) == 0;
		if (!listed)
			printf("%-10s %-12s %s\n", splitzip_backend_name(i), "yes",
			       splitzip_backend_available(i) ? "yes" : "no");
	}
	const char *forced = getenv("SPLITZIP_FORCE_BACKEND");
	if (forced && *forced)
		printf("SPLITZIP_FORCE_BACKEND=%s\n", forced);
	return EXIT_OK;
}

/* ---- main ----------------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: splitzip COMMAND [options] ARGS\n"
		"\n"
		"Lossless compression of raw little-endian BF16 tensors (doc/FORMAT.md).\n"
		"\n"
		"commands:\n"
		"  compress IN OUT            compress raw BF16 (IN/OUT may be '-' for stdin/stdout)\n"
		"  decompress IN OUT          decompress a splitzip file back to raw BF16\n"
		"  verify FILE                decode every frame and check checksums; write nothing\n"
		"  info FILE                  frames, ratio, escape rate, codebook (headers only)\n"
		"  calibrate SAMPLE... -o CB  compute a codebook file from sample BF16 files\n"
		"  backends                   list backends: compiled in, usable on this machine\n"
#ifdef SPLITZIP_HAVE_BENCH
		"  bench [options]            throughput per backend vs memcpy (bench --help)\n"
#endif
		"\n"
		"options:\n"
		"  -f, --force                overwrite an existing output file\n"
		"  -q, --quiet                no summary line on stderr\n"
		"  --codebook FILE            compress with a fixed codebook from 'calibrate'\n"
		"  --no-checksum              omit the content checksum (written by default)\n"
		"  --backend NAME             use this backend (see 'backends'); else\n"
		"                             $SPLITZIP_FORCE_BACKEND, else the best usable one\n"
		"  --threads N                worker threads (0 = automatic)\n"
		"  --chunk-log2 N             chunk size 2^N elements, N in 10..16 (default 12)\n"
		"  --frame-elems N            elements per frame (default 16777216)\n"
		"  -h, --help                 this help\n"
		"  -V, --version              print the version\n"
		"\n"
		"Output files are written to a temporary file and renamed on success; on any\n"
		"failure nothing is left behind and an existing file is untouched.\n"
		"\n"
		"exit codes:\n"
		"  0  success\n"
		"  1  usage error (bad command line)\n"
		"  2  I/O error (cannot open, read, write or rename; disk full; broken pipe)\n"
		"  3  invalid data: corrupt, truncated or unsupported splitzip input, checksum\n"
		"     mismatch, or raw input that is not BF16 (odd size)\n"
		"  4  output exists and -f was not given\n"
		"  5  requested backend unknown or not usable here\n"
		"  6  out of memory\n");
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN); /* broken pipes become EPIPE write errors with a message */
	signal(SIGXFSZ, SIG_IGN); /* a file size limit becomes an EFBIG write error, and the
				   * temporary file is removed instead of left behind */
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("splitzip %s (format version %d)\n", splitzip_version_string(),
		       SPLITZIP_FORMAT_VERSION);
		return EXIT_OK;
	}
#ifdef SPLITZIP_HAVE_BENCH
	if (strcmp(cmd, "bench") == 0)
		return splitzip_bench_main(argc - 1, argv + 1);
#endif
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return EXIT_OK;
		}
	options o;
	if (!parse_options(argc - 2, argv + 2, &o))
		return EXIT_USAGE;
	if (strcmp(cmd, "compress") == 0)
		return cmd_compress(&o);
	if (strcmp(cmd, "decompress") == 0)
		return cmd_decompress(&o);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(&o);
	if (strcmp(cmd, "info") == 0)
		return cmd_info(&o);
	if (strcmp(cmd, "calibrate") == 0)
		return cmd_calibrate(&o);
	if (strcmp(cmd, "backends") == 0)
		return cmd_backends();
	msg("unknown command '%s' (see --help)", cmd);
	return EXIT_USAGE;
}
