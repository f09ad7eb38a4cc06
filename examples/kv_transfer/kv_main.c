/*
 * kv_main.c -- splitzip-kv-transfer: a paged KV cache from a prefill process to a decode
 * process over UCX (tag messages; UCX_TLS=tcp in the benchmarks), raw, compressed, or
 * compressed and pipelined, split4 or entropy or the way the policy chooses for the link
 * (kv_policy.h). See kv_send.c and kv_recv.c; bench/kv_transfer_bench.py measures it on
 * rate-limited links and doc/INTEGRATION.md explains the calls.
 *
 *   splitzip-kv-transfer recv [--bind ADDR] [--port P] [-v]
 *   splitzip-kv-transfer send --host ADDR [--port P] [--mode raw|compressed|pipelined] ...
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_proto.h"

#ifndef KV_DATA_DIR
#define KV_DATA_DIR "data/kv"
#endif

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: splitzip-kv-transfer recv [--bind ADDR] [--port P] [-v]\n"
	    "       splitzip-kv-transfer send --host ADDR [options]\n"
	    "send options:\n"
	    "  --port P              receiver port (default 13370)\n"
	    "  --mode M              raw | compressed | pipelined (default pipelined)\n"
	    "  --codec C             auto | split4 | entropy (default auto): how compressed and\n"
	    "                        pipelined groups are packed; auto (pipelined only; "
	    "compressed:\n"
	    "                        split4) lets the policy choose raw, split4 or entropy for "
	    "the\n"
	    "                        connection from the codec rates of both ends and the link\n"
	    "  --probe-groups N      auto: the least groups per probe, check and window (default:\n"
	    "                        about 1/16 of the groups, 4 to 16, at most a quarter; at\n"
	    "                        least 2)\n"
	    "  --batch-ms T          auto: ... and enough for T ms at the expected rate, up to\n"
	    "                        the end of the transfer (default 200; 0: the count only)\n"
	    "  --reprobe N           auto: probe again every N transfers (default 64; 0: only on\n"
	    "                        the first transfer and when the rate drifts)\n"
	    "  --drift F             auto: probe again when two windows in a row move more than\n"
	    "                        F (default 0.25) off the checked rate; 0: never\n"
	    "  --calib-kib K         the sample both ends time their codecs on (default 512)\n"
	    "  --reps N              timed repetitions (default 5)\n"
	    "  --warmup N            repetitions before them, not counted (default 1)\n"
	    "  --layers L            layers (default 32)\n"
	    "  --tokens T --kv-heads H --head-dim D   page shape (default 16 x 8 x 128)\n"
	    "  --pages-per-layer N   pages per layer for K and for V (default 16)\n"
	    "  --cache-mib M         instead: the cache size (K + V, all layers)\n"
	    "  --group-pages N       pages per pipelined group (default: about 2 MiB)\n"
	    "  --slots N             groups in flight, staging buffers at each end (default 8)\n"
	    "  --data-k F --data-v F the real K and V data the pages are tiled from\n"
	    "                        (default %s/aidreams260k__shakespeare.{K,V}.bf16)\n"
	    "  --table-per-group     each group's codebook or entropy table from its own pages\n"
	    "                        instead of one calibrated once on the first pages\n"
	    "  --raw-iov             raw groups as one iov message of the pages (zero copy)\n"
	    "                        instead of packed into a staging buffer and scattered\n"
	    "  --no-checksum         streams without checksums (default: with)\n"
	    "  --corrupt K           test: damage every third group (flip|truncate|mixed)\n"
	    "  --rates E4,EE,D4,DE,L,NS,NR   test: decide once from these rates (GB/s: split4\n"
	    "                        and entropy packing here, unpacking there, the link; ns of\n"
	    "                        network work per wire byte here and there), no probe\n"
	    "  --test-drift N        test: windows from the N-th on seem to move half as fast\n"
	    "  --json                one JSON line of results\n",
	    KV_DATA_DIR);
}

static int parse_mode(const char *s, uint32_t *mode)
{
	static const char *const names[] = {"raw", "compressed", "pipelined"};
	for (uint32_t k = 0; k < 3; k++)
		if (!strcmp(s, names[k])) {
			*mode = k;
			return 0;
		}
	return -1;
}

static int parse_codec(const char *s, unsigned *codec)
{
	static const char *const names[] = {"auto", "split4", "entropy"};
	for (unsigned k = 0; k < 3; k++)
		if (!strcmp(s, names[k])) {
			*codec = k;
			return 0;
		}
	return -1;
}

/* --rates: enc split4, enc entropy, dec split4, dec entropy, link (GB/s), net_s, net_r (ns/B). */
static int parse_rates(const char *s, kv_rates *r)
{
	double v[7];
	char *end = NULL;
	for (int k = 0; k < 7; k++, s = end + 1) {
		v[k] = strtod(s, &end);
		if (end == s || v[k] < 0 || (k < 6 && *end != ',') || (k == 6 && *end))
			return -1;
	}
	memset(r, 0, sizeof *r);
	r->enc[KV_WAY_SPLIT4] = v[0] * 1e9;
	r->enc[KV_WAY_ENTROPY] = v[1] * 1e9;
	r->dec[KV_WAY_SPLIT4] = v[2] * 1e9;
	r->dec[KV_WAY_ENTROPY] = v[3] * 1e9;
	r->link = v[4] * 1e9;
	r->net_s = v[5] * 1e-9;
	r->net_r = v[6] * 1e-9;
	return 0;
}

static int parse_corrupt(const char *s, uint32_t *c)
{
	*c = !strcmp(s, "flip")       ? KV_CORRUPT_FLIP
	     : !strcmp(s, "truncate") ? KV_CORRUPT_TRUNCATE
	     : !strcmp(s, "mixed")    ? KV_CORRUPT_MIXED
	                              : KV_CORRUPT_NONE;
	return *c == KV_CORRUPT_NONE ? -1 : 0;
}

static void defaults(kv_send_opts *o, double *cache_mib)
{
	memset(o, 0, sizeof *o);
	o->port = 13370;
	o->codec = KV_CODEC_AUTO;
	o->probe_groups = 0;
	o->reprobe = 64;
	o->fixed_table = 1;
	o->checksum = 1;
	o->batch_ms = 200;
	kv_policy_defaults(&o->policy);
	o->cfg.magic = KV_MAGIC;
	o->cfg.version = KV_VERSION;
	o->cfg.mode = KV_MODE_PIPELINED;
	o->cfg.reps = 5;
	o->cfg.slots = 8;
	o->warmup = 1;
	o->cfg.geo = (kv_geometry){32, 16, 16, 8, 128, 0};
	snprintf(o->cfg.data_k, sizeof o->cfg.data_k, "%s/aidreams260k__shakespeare.K.bf16",
	         KV_DATA_DIR);
	snprintf(o->cfg.data_v, sizeof o->cfg.data_v, "%s/aidreams260k__shakespeare.V.bf16",
	         KV_DATA_DIR);
	*cache_mib = 0;
}

/* One option with a value; 0 ok, 1 not this kind of option, -1 bad value. */
static int numeric_opt(kv_send_opts *o, const char *a, const char *v, double *cache_mib)
{
	kv_geometry *g = &o->cfg.geo;
	char *end = NULL;
	const double x = v ? strtod(v, &end) : 0;
	uint32_t *field = !strcmp(a, "--layers")            ? &g->layers
	                  : !strcmp(a, "--tokens")          ? &g->tokens
	                  : !strcmp(a, "--kv-heads")        ? &g->kv_heads
	                  : !strcmp(a, "--head-dim")        ? &g->head_dim
	                  : !strcmp(a, "--pages-per-layer") ? &g->pages_per_layer
	                  : !strcmp(a, "--group-pages")     ? &g->group_pages
	                  : !strcmp(a, "--reps")            ? &o->cfg.reps
	                  : !strcmp(a, "--port")            ? &o->port
	                  : !strcmp(a, "--warmup")          ? &o->warmup
	                  : !strcmp(a, "--slots")           ? &o->cfg.slots
	                  : !strcmp(a, "--reprobe")         ? &o->reprobe
	                  : !strcmp(a, "--test-drift")      ? &o->drift_test
	                  : !strcmp(a, "--calib-kib")       ? &o->cfg.calib_pages
	                                                    : NULL;
	if (!field && strcmp(a, "--cache-mib") && strcmp(a, "--probe-groups") &&
	    strcmp(a, "--drift") && strcmp(a, "--batch-ms"))
		return 1;
	if (!v || !end || *end || x < 0 || x > 4e9)
		return -1;
	if (!strcmp(a, "--cache-mib"))
		*cache_mib = x;
	else if (!strcmp(a, "--drift"))
		o->policy.drift = x;
	else if (!strcmp(a, "--batch-ms"))
		o->batch_ms = x;
	else if (!strcmp(a, "--probe-groups"))
		o->probe_groups = (int)x;
	else
		*field = (uint32_t)x;
	return 0;
}

static int parse_send(int argc, char **argv, kv_send_opts *o)
{
	double cache_mib;
	defaults(o, &cache_mib);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int rc = numeric_opt(o, a, v, &cache_mib);
		if (rc == 0) {
			i++;
			continue;
		}
		if (rc < 0)
			return -1;
		if (!strcmp(a, "--table-per-group"))
			o->fixed_table = 0;
		else if (!strcmp(a, "--raw-iov"))
			o->cfg.raw_iov = 1;
		else if (!strcmp(a, "--no-checksum"))
			o->checksum = 0;
		else if (!strcmp(a, "--json"))
			o->json = 1;
		else if (!v)
			return -1;
		else if (!strcmp(a, "--host"))
			o->host = argv[++i];
		else if (!strcmp(a, "--mode") && parse_mode(argv[++i], &o->cfg.mode) == 0)
			continue;
		else if (!strcmp(a, "--codec") && parse_codec(argv[++i], &o->codec) == 0)
			continue;
		else if (!strcmp(a, "--rates") && parse_rates(argv[++i], &o->rates) == 0)
			o->fixed_rates = 1;
		else if (!strcmp(a, "--corrupt") && parse_corrupt(argv[++i], &o->cfg.corrupt) == 0)
			continue;
		else if (!strcmp(a, "--data-k"))
			snprintf(o->cfg.data_k, sizeof o->cfg.data_k, "%s", argv[++i]);
		else if (!strcmp(a, "--data-v"))
			snprintf(o->cfg.data_v, sizeof o->cfg.data_v, "%s", argv[++i]);
		else
			return -1;
	}
	kv_geometry *g = &o->cfg.geo;
	const double page = 2.0 * g->tokens * g->kv_heads * g->head_dim;
	if (cache_mib > 0 && g->layers && page > 0)
		g->pages_per_layer =
		    (uint32_t)(cache_mib * 1048576.0 / (2.0 * g->layers * page) + 0.5);
	if (!g->group_pages && page > 0)
		g->group_pages = (uint32_t)(2097152.0 / page) ? (uint32_t)(2097152.0 / page) : 1;
	/* The calibration sample: --calib-kib (default 512) of pages, 1 to a group. */
	const double kib = o->cfg.calib_pages ? o->cfg.calib_pages : 512;
	o->cfg.calib_pages = page > 0 ? (uint32_t)(kib * 1024.0 / page) : 1;
	if (o->cfg.calib_pages < 1)
		o->cfg.calib_pages = 1;
	if (o->cfg.calib_pages > g->group_pages)
		o->cfg.calib_pages = g->group_pages;
	if (o->cfg.calib_pages > 2u * g->layers * g->pages_per_layer)
		o->cfg.calib_pages = 2u * g->layers * g->pages_per_layer;
	o->cfg.reps += o->warmup; /* the receiver runs them all */
	return o->host && g->pages_per_layer && o->cfg.reps > o->warmup && o->cfg.slots >= 1 &&
	               o->cfg.slots <= 64
	           ? 0
	           : -1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "recv")) {
		const char *bind = NULL;
		unsigned port = 13370;
		int verbose = 0;
		for (int i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "-v"))
				verbose = 1;
			else if (!strcmp(argv[i], "--bind") && i + 1 < argc)
				bind = argv[++i];
			else if (!strcmp(argv[i], "--port") && i + 1 < argc)
				port = (unsigned)strtoul(argv[++i], NULL, 10);
			else {
				usage(stderr);
				return 2;
			}
		}
		return kv_receiver_main(bind, port, verbose);
	}
	if (argc >= 2 && !strcmp(argv[1], "send")) {
		kv_send_opts o;
		if (parse_send(argc - 2, argv + 2, &o) != 0) {
			usage(stderr);
			return 2;
		}
		return kv_sender_main(&o);
	}
	usage(argc >= 2 && !strcmp(argv[1], "--help") ? stdout : stderr);
	return argc >= 2 && !strcmp(argv[1], "--help") ? 0 : 2;
}
