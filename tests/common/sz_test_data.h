/*
 * sz_test_data.h -- BF16 test data shared by all test suites: generators with KV-like
 * exponent skew, escape rates, specials, and the bundled real KV sample.
 */
#ifndef SZ_TEST_DATA_H
#define SZ_TEST_DATA_H

#include <stddef.h>
#include <stdint.h>

/* Generators, indexed 0..SZ_TEST_N_GENERATORS-1. */
enum {
	SZ_GEN_KV_SKEWED = 0, /* exponents ~ real KV (window of 16 around 120), escape rate ~0.2% */
	SZ_GEN_ESCAPE_1PCT,   /* ~1% escapes */
	SZ_GEN_ESCAPE_5PCT,   /* ~5% escapes */
	SZ_GEN_ALL_ESCAPE,    /* >16 exponents uniformly: incompressible -> stored frame */
	SZ_GEN_ZERO,          /* all +0 */
	SZ_GEN_SPECIALS,      /* +-0, +-Inf, NaN payloads, subnormals, max/min normals */
	SZ_GEN_RANDOM,        /* uniform random 16-bit patterns */
	SZ_GEN_FEW_EXPONENTS, /* only 3 distinct exponents (codebook padded by the tie rule) */
	SZ_GEN_SPARSE_WINDOW, /* 16 non-contiguous exponents, no escapes */
	SZ_TEST_N_GENERATORS
};

/* Name of generator g, for messages. */
const char *sz_test_gen_name(int g);

/* Fill dst[0..n) with generator g's data, deterministic in (g, seed). */
void sz_test_generate(int g, uint64_t seed, uint16_t *dst, size_t n);

/* A tiny deterministic PRNG (splitmix64). */
uint64_t sz_test_rand(uint64_t *state);

/*
 * Read a whole file into a malloc'ed buffer; returns NULL on failure. '*size' receives bytes.
 */
void *sz_test_read_file(const char *path, size_t *size);

/*
 * The bundled real KV sample (tests/data/): 'which' is "K" or "V". Returns a malloc'ed buffer of
 * '*n' elements, or NULL if the file is missing. SZ_TEST_DATA_DIR is set by CMake.
 */
uint16_t *sz_test_load_kv(const char *which, size_t *n);

/*
 * 1 if SPLITZIP_EXPECT_BACKENDS (comma- or space-separated names; CI sets it to every backend
 * the machine must run) names backend 'name', else 0. A suite that finds such a backend
 * unusable fails instead of skipping it.
 */
int sz_test_backend_expected(const char *name);

#endif
