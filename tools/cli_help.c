/*
 * cli_help.c -- 'splitzip help COMMAND' and 'splitzip COMMAND --help': what each command does,
 * its arguments and options, with an example (doc/CLI.md has the same, longer).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "cli.h"

#define OPT_FORCE "  -f, --force           overwrite an existing output file\n"
#define OPT_QUIET "  -q, --quiet           no summary line and no progress on stderr\n"
#define OPT_CODEC                                                                                  \
	"  --backend NAME        use this backend (see 'splitzip backends')\n"                     \
	"  --threads N           codec threads (default: the CPUs less one, at least 1)\n"
#define OPT_ENCODE                                                                                 \
	"  --mode MODE           split4 (default: 4-bit codes, fastest), entropy (Huffman\n"       \
	"                        codes, ~11% smaller on real KV) or auto (the smallest)\n"         \
	"  --codebook FILE       a fixed codebook from 'calibrate' (default: each frame's own)\n"  \
	"  --table FILE          a fixed entropy table from 'calibrate --mode entropy';\n"         \
	"                        entropy frames, or with --mode auto the smallest (not with\n"     \
	"                        --mode split4)\n"                                                 \
	"  --no-checksum         omit the content checksum (written by default)\n"                 \
	"  --chunk-log2 N        chunks of 2^N elements, N in 10..16 (default 12; 14 with\n"       \
	"                        --mode entropy or auto)\n"                                        \
	"  --frame-elems N       elements per frame, 1..4294967295 (default 16777216)\n"
#define OPT_DTYPE                                                                                  \
	"  --dtype T             bf16 (default), f16, f32, e4m3 or e5m2: the input's elements\n"   \
	"                        (e4m3: entropy by default, no split4)\n"
#define OUTPUT_NOTE                                                                                \
	"The output is written to a temporary file renamed over OUT on success: on any\n"          \
	"failure nothing is left behind and an existing OUT is untouched.\n"

typedef struct help_entry {
	const char *name, *text;
} help_entry;

static const help_entry helps[] = {
    {"compress",
     "usage: splitzip compress [options] IN OUT\n\n"
     "Compress raw little-endian BF16 (IN, '-' for stdin) into a stream of frames\n"
     "(OUT, '-' for stdout). Reading, coding and writing overlap; a progress line\n"
     "is shown on a terminal for runs longer than a second.\n\noptions:\n" OPT_FORCE OPT_QUIET
         OPT_ENCODE OPT_DTYPE OPT_CODEC "\n" OUTPUT_NOTE
     "\nexample: splitzip compress kv.bf16 kv.sz\n"},
    {"decompress",
     "usage: splitzip decompress [options] IN OUT\n\n"
     "Decode every frame of a splitzip file (IN, '-' for stdin) back to raw BF16\n"
     "(OUT, '-' for stdout), checking every field and checksum.\n\noptions:\n" OPT_FORCE OPT_QUIET
         OPT_CODEC "\n" OUTPUT_NOTE "\nexample: splitzip decompress kv.sz kv.bf16\n"},
    {"verify", "usage: splitzip verify [options] FILE\n\n"
               "Decode every frame and check its checksums; write nothing. Exit 0 if the file "
               "is\nintact, 3 if not.\n\noptions:\n" OPT_QUIET OPT_CODEC},
    {"info", "usage: splitzip info FILE\n\n"
             "Frames per mode, ratio, escape rate, chunk size, checksums, the codebook of\n"
             "split4 frames and the entropy table of entropy frames, from the frame headers\n"
             "(nothing is decoded). For a packed safetensors file: one line per\n"
             "tensor with dtype, shape, size, stored size, ratio and escape rate.\n"},
    {"calibrate",
     "usage: splitzip calibrate [options] SAMPLE... -o CODEBOOK\n\n"
     "The exponent histogram of sample BF16 files and the codebook it gives, written\n"
     "as a codebook file for 'compress --codebook' and 'pack --codebook'; with\n"
     "--mode entropy, the entropy table it gives, for 'compress --table'.\n\n"
     "options:\n  -o FILE               the codebook (or table) file to write\n"
     "  --mode entropy        write an entropy table file instead of a codebook\n" OPT_FORCE
         OPT_QUIET},
    {"backends", "usage: splitzip backends\n\n"
                 "The backends compiled in, whether each is usable on this machine, and which\n"
                 "one is chosen by default.\n"},
    {"pack", "usage: splitzip pack [options] IN.safetensors OUT\n\n"
             "Compress every BF16, F16, F32, F8_E4M3 and F8_E5M2 tensor of a safetensors\n"
             "file, each into its own frames of its dtype (a codebook per frame, or\n"
             "--codebook / --table for the BF16 tensors; E4M3 is entropy coded unless --mode\n"
             "auto); other tensors and the JSON header are kept as they are (doc/FORMAT.md\n"
             "§11: container version 2 if the file has F16, F32 or FP8 tensors, else 1).\n"
             "'unpack' restores the file byte for byte. OUT must be a regular file.\n"
             "\noptions:\n" OPT_FORCE OPT_QUIET OPT_ENCODE OPT_CODEC "\n" OUTPUT_NOTE
             "\nexample: splitzip pack model.safetensors model.szst\n"},
    {"unpack", "usage: splitzip unpack [options] PACKED OUT.safetensors\n\n"
               "Restore the safetensors file that 'pack' packed, byte for byte, after checking\n"
               "the container's checksums, every frame and every tensor's size (OUT may be\n"
               "'-' for stdout).\n\noptions:\n" OPT_FORCE OPT_QUIET OPT_CODEC "\n" OUTPUT_NOTE
               "\nexample: splitzip unpack model.szst model.safetensors\n"},
    {"stats", "usage: splitzip stats [options] FILE...\n\n"
              "Why tensors compress as they do. For a raw file (BF16, or the --dtype), or each\n"
              "tensor of a safetensors file that 'pack' codes (BF16, F16, F32, F8_E4M3,\n"
              "F8_E5M2): histogram of the dtype's exponent, its entropy (bits per exponent) and\n"
              "the order-0 bound, share of the 8 and 16 most frequent exponents, escape rate and\n"
              "the exact size 'compress' or 'pack' will write with the same options.\n"
              "\noptions:\n"
              "  --dtype T             raw inputs are bf16 (default), f16, f32, e4m3 or e5m2\n"
              "  --svg FILE            also draw the histograms and coverage as an SVG chart\n"
              "  --json                JSON instead of text (histograms included)\n"
              "  --brief               no histograms in the text output\n"
              "  --raw                 read every FILE as raw BF16 (no safetensors detection)\n"
              "  --codebook FILE, --table FILE, --mode M, --chunk-log2 N, --frame-elems N:\n"
              "                        as for compress/pack\n" OPT_FORCE
              "\nexample: splitzip stats --svg kv.svg kv.bf16\n"},
    {"help", "usage: splitzip help [COMMAND]\n\nThe commands, or the help of one of them.\n"},
};

int cmd_help(const char *name)
{
	for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++)
		if (strcmp(name, helps[i].name) == 0) {
			fputs(helps[i].text, stdout);
			printf("\nExit codes: see 'splitzip --help'; doc/CLI.md has more.\n");
			return EXIT_OK;
		}
	msg("no help for '%s': unknown command (see 'splitzip --help')", name);
	return EXIT_USAGE;
}
