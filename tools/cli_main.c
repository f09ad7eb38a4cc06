/*
 * cli_main.c -- main() of the splitzip command-line tool: --help and --version, option parsing,
 * and dispatch to the commands (cmd_*.c); 'bench' forwards to the benchmark in bench/.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef SPLITZIP_HAVE_BENCH
#include "sz_bench.h"
#endif

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
	    "                             (--mode entropy: an entropy table file)\n"
	    "  backends                   list backends: compiled in, usable on this machine\n"
	    "  pack IN.safetensors OUT    compress the BF16, F16, F32, FP8 tensors of a\n"
	    "                             safetensors file\n"
	    "  unpack PACKED OUT          restore the packed safetensors file, byte for byte\n"
	    "  stats FILE... [--svg F]    exponent statistics and predicted ratio per tensor\n"
	    "  help COMMAND               the options of one command (or COMMAND --help)\n"
#ifdef SPLITZIP_HAVE_BENCH
	    "  bench [options]            throughput per backend vs memcpy (bench --help)\n"
#endif
	    "\n"
	    "options:\n"
	    "  -f, --force                overwrite an existing output file\n"
	    "  -q, --quiet                no summary line or progress on stderr\n"
	    "  --mode MODE                split4 (default: 4-bit codes, fastest), entropy\n"
	    "                             (Huffman codes, ~11%% smaller on real KV) or auto\n"
	    "                             (the smallest frame of the two and stored)\n"
	    "  --codebook FILE            compress with a fixed codebook from 'calibrate'\n"
	    "  --table FILE               compress with a fixed entropy table from\n"
	    "                             'calibrate --mode entropy'; entropy frames unless\n"
	    "                             --mode auto is given (not with --mode split4)\n"
	    "  --no-checksum              omit the content checksum (written by default)\n"
	    "  --backend NAME             use this backend (see 'backends'); else\n"
	    "                             $SPLITZIP_FORCE_BACKEND, else the best usable one\n"
	    "  --threads N                codec threads (default: the CPUs less one)\n"
	    "  --chunk-log2 N             chunk size 2^N elements, N in 10..16 (default 12,\n"
	    "                             14 with --mode entropy or auto)\n"
	    "  --frame-elems N            elements per frame, 1..4294967295 (default 16777216);\n"
	    "                             the last frame holds the rest\n"
	    "  --dtype T                  compress, stats: the elements are bf16 (default), f16, "
	    "f32,\n"
	    "                             e4m3 or e5m2 (FP8; e4m3 has no split4, so entropy is\n"
	    "                             its default mode)\n"
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

/* Set a flag option (one without a value). Returns 0 if 'a' is not one. */
static int set_flag(options *o, const char *a)
{
	if (strcmp(a, "-f") == 0 || strcmp(a, "--force") == 0)
		o->force = 1;
	else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
		o->quiet = 1;
	else if (strcmp(a, "--no-checksum") == 0)
		o->checksum = 0;
	else if (strcmp(a, "--json") == 0)
		o->json = 1;
	else if (strcmp(a, "--brief") == 0)
		o->brief = 1;
	else if (strcmp(a, "--raw") == 0)
		o->raw = 1;
	else
		return 0;
	return 1;
}

static int takes_value(const char *a)
{
	return strcmp(a, "--codebook") == 0 || strcmp(a, "--backend") == 0 ||
	       strcmp(a, "-o") == 0 || strcmp(a, "--threads") == 0 || strcmp(a, "--svg") == 0 ||
	       strcmp(a, "--chunk-log2") == 0 || strcmp(a, "--frame-elems") == 0 ||
	       strcmp(a, "--mode") == 0 || strcmp(a, "--table") == 0 || strcmp(a, "--dtype") == 0;
}

/* Set a numeric option from 'val'. Returns 0 (after a message) if 'val' is out of range. */
static int set_number(options *o, const char *a, const char *val)
{
	unsigned long long v;
	if (strcmp(a, "--threads") == 0) {
		if (!parse_uint(val, 1024, &v)) {
			msg("--threads: expected 0..1024, got '%s'", val);
			return 0;
		}
		o->threads = (unsigned)v;
	} else if (strcmp(a, "--chunk-log2") == 0) {
		if (!parse_uint(val, SPLITZIP_CHUNK_LOG2_MAX, &v) || v < SPLITZIP_CHUNK_LOG2_MIN) {
			msg("--chunk-log2: expected %d..%d, got '%s'", SPLITZIP_CHUNK_LOG2_MIN,
			    SPLITZIP_CHUNK_LOG2_MAX, val);
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
	return 1;
}

/* --mode split4|entropy|auto. Returns 0 (after a message) if 'val' is none of them. */
static int set_mode(options *o, const char *val)
{
	static const char *const names[] = {"split4", "entropy", "auto"};
	static const int encodings[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
	                                SPLITZIP_ENCODING_AUTO};
	for (int k = 0; k < 3; k++)
		if (strcmp(val, names[k]) == 0) {
			o->encoding = encodings[k];
			return 1;
		}
	msg("--mode: expected split4, entropy or auto, got '%s'", val);
	return 0;
}

/* --dtype bf16|f16|f32|e4m3|e5m2 (splitzip_dtype_name). Returns 0 (after a message) if not. */
static int set_dtype(options *o, const char *val)
{
	for (unsigned d = SPLITZIP_DTYPE_BF16; d <= SPLITZIP_DTYPE_FP32; d++)
		if (strcmp(val, splitzip_dtype_name(d)) == 0) {
			o->dtype = d;
			return 1;
		}
	msg("--dtype: expected bf16, f16, f32, e4m3 or e5m2, got '%s'", val);
	return 0;
}

/* Set an option that takes a value. Returns 0 (after a message) if 'val' is invalid. */
static int set_value(options *o, const char *a, const char *val)
{
	if (strcmp(a, "--mode") == 0)
		return set_mode(o, val);
	if (strcmp(a, "--dtype") == 0)
		return set_dtype(o, val);
	if (strcmp(a, "--table") == 0)
		o->table_path = val;
	else if (strcmp(a, "--codebook") == 0)
		o->codebook_path = val;
	else if (strcmp(a, "--backend") == 0)
		o->backend = val;
	else if (strcmp(a, "-o") == 0)
		o->output = val;
	else if (strcmp(a, "--svg") == 0)
		o->svg = val;
	else
		return set_number(o, a, val);
	return 1;
}

/* Parse the arguments after the command. Returns 0 (after a message) on a usage error. */
static int parse_options(int argc, char **argv, options *o)
{
	memset(o, 0, sizeof *o);
	o->checksum = 1;
	o->encoding = -1;
	o->frame_elems = DEFAULT_FRAME_ELEMS;
	o->dtype = SPLITZIP_DTYPE_BF16;
	int only_pos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
			if (o->n_pos == MAX_POSITIONAL) {
				msg("too many arguments");
				return 0;
			}
			o->pos[o->n_pos++] = a;
		} else if (strcmp(a, "--") == 0) {
			only_pos = 1;
		} else if (set_flag(o, a)) {
			continue;
		} else if (takes_value(a)) {
			if (i + 1 >= argc) {
				msg("%s needs a value", a);
				return 0;
			}
			if (!set_value(o, a, argv[++i]))
				return 0;
		} else {
			msg("unknown option '%s' (see --help)", a);
			return 0;
		}
	}
	return 1;
}

/* ---- main ----------------------------------------------------------------------------------- */

static int run_command(const char *cmd, const options *o)
{
	if (strcmp(cmd, "compress") == 0)
		return cmd_compress(o);
	if (strcmp(cmd, "decompress") == 0)
		return cmd_decompress(o);
	if (strcmp(cmd, "verify") == 0)
		return cmd_verify(o);
	if (strcmp(cmd, "info") == 0)
		return cmd_info(o);
	if (strcmp(cmd, "calibrate") == 0)
		return cmd_calibrate(o);
	if (strcmp(cmd, "backends") == 0)
		return cmd_backends();
	if (strcmp(cmd, "pack") == 0)
		return cmd_pack(o);
	if (strcmp(cmd, "unpack") == 0)
		return cmd_unpack(o);
	if (strcmp(cmd, "stats") == 0)
		return cmd_stats(o);
	msg("unknown command '%s' (see --help)", cmd);
	return EXIT_USAGE;
}

static int is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

int main(int argc, char **argv)
{
	install_signal_handlers();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "help") == 0 && argc > 2)
		return cmd_help(is_help(argv[2]) ? "help" : argv[2]);
	if (is_help(cmd) || strcmp(cmd, "help") == 0) {
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
		if (is_help(argv[i]))
			return cmd_help(cmd);
	options o;
	if (!parse_options(argc - 2, argv + 2, &o))
		return EXIT_USAGE;
	return run_command(cmd, &o);
}
