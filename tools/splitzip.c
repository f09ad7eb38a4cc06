/*
 * splitzip.c -- the splitzip command-line tool: option parsing, the commands and main(). File
 * I/O and signals are in cli_io.c, the frame reader in cli_frames.c, the codec context in
 * cli_ctx.c (declarations in cli.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#ifdef SPLITZIP_HAVE_BENCH
int splitzip_bench_main(int argc, char **argv);
#endif

/* ---- Option parsing -------------------------------------------------------------------------- */

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
			if (o->n_pos == MAX_POSITIONAL) {
				msg("too many arguments");
				return 0;
			}
			o->pos[o->n_pos++] = a;
		} else if (strcmp(a, "--") == 0) {
			only_pos = 1;
		} else if (strcmp(a, "-f") == 0 || strcmp(a, "--force") == 0) {
			o->force = 1;
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			o->quiet = 1;
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
	if (!o->quiet) {
		uint64_t n = total_in / 2;
		fprintf(
		    stderr,
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
	if (!o->quiet)
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
	                                : with_sum         ? "some frames"
	                                                   : "none");
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
	if (!o->quiet) {
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
	static const char *const known[] = {"avx512vbmi", "avx512", "avx2",  "neon",
	                                    "cuda",       "hip",    "scalar"};
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
	fprintf(
	    f,
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
	install_signal_handlers();
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