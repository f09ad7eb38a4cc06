/*
 * sz_test_data.c -- deterministic BF16 generators for tests (see sz_test_data.h).
 */
#include "sz_test_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t sz_test_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static const char *const names[SZ_TEST_N_GENERATORS] = {
    "kv_skewed", "escape_1pct", "escape_5pct",   "all_escape",    "zero",
    "specials",  "random",      "few_exponents", "sparse_window",
};

const char *sz_test_gen_name(int g)
{
	return (g >= 0 && g < SZ_TEST_N_GENERATORS) ? names[g] : "?";
}

static uint16_t make_bf16(unsigned sign, unsigned exp, unsigned man)
{
	return (uint16_t)(((sign & 1u) << 15) | ((exp & 0xFFu) << 7) | (man & 0x7Fu));
}

/* An exponent from a peaked distribution over [112, 127] (roughly geometric around 120),
 * or, with probability esc_per_mille / 1000, one from outside that window. */
static unsigned kv_exponent(uint64_t *s, unsigned esc_per_mille)
{
	uint64_t r = sz_test_rand(s);
	if (r % 1000 < esc_per_mille) {
		unsigned e = (unsigned)((r >> 20) % 240);
		return e < 112 ? e : e + 16; /* 0..111 or 128..255 */
	}
	int off = (int)((r >> 12) % 7) - (int)((r >> 16) % 7) + (int)((r >> 24) % 5) - 2;
	int e = 120 + off;
	if (e < 112)
		e = 112;
	if (e > 127)
		e = 127;
	return (unsigned)e;
}

void sz_test_generate(int g, uint64_t seed, uint16_t *dst, size_t n)
{
	uint64_t s = seed * 0x100000001B3ull + (uint64_t)g;
	static const uint16_t specials[] = {
	    0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0xFFFF, 0x7FA5,
	    0x0001, 0x8001, 0x007F, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80, 0x0040,
	};
	for (size_t i = 0; i < n; i++) {
		uint64_t r = sz_test_rand(&s);
		unsigned sign = (unsigned)(r >> 63), man = (unsigned)(r >> 40) & 0x7F;
		switch (g) {
		case SZ_GEN_KV_SKEWED:
			dst[i] = make_bf16(sign, kv_exponent(&s, 2), man);
			break;
		case SZ_GEN_ESCAPE_1PCT:
			dst[i] = make_bf16(sign, kv_exponent(&s, 10), man);
			break;
		case SZ_GEN_ESCAPE_5PCT:
			dst[i] = make_bf16(sign, kv_exponent(&s, 50), man);
			break;
		case SZ_GEN_ALL_ESCAPE:
			dst[i] = make_bf16(sign, (unsigned)(r >> 8) % 64 * 4, man);
			break;
		case SZ_GEN_ZERO:
			dst[i] = 0;
			break;
		case SZ_GEN_SPECIALS:
			dst[i] = specials[r % (sizeof specials / sizeof specials[0])];
			break;
		case SZ_GEN_RANDOM:
			dst[i] = (uint16_t)r;
			break;
		case SZ_GEN_FEW_EXPONENTS:
			dst[i] = make_bf16(sign, 126 + (unsigned)(r % 3), man);
			break;
		case SZ_GEN_SPARSE_WINDOW:
			dst[i] = make_bf16(sign, 3 + 15 * (unsigned)(r % 16), man);
			break;
		default:
			dst[i] = 0;
		}
	}
}

void *sz_test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0) {
		fclose(f);
		return NULL;
	}
	long sz = ftell(f);
	if (sz < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	void *buf = malloc(sz ? (size_t)sz : 1);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		*size = (size_t)sz;
	return buf;
}

uint16_t *sz_test_load_kv(const char *which, size_t *n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/kv/aidreams260k__shakespeare.%s.bf16", SZ_TEST_DATA_DIR,
	         which);
	size_t sz = 0;
	uint16_t *p = (uint16_t *)sz_test_read_file(path, &sz);
	if (p)
		*n = sz / 2;
	return p;
}

int sz_test_backend_expected(const char *name)
{
	const char *p = getenv("SPLITZIP_EXPECT_BACKENDS");
	const size_t len = strlen(name);
	while (p && *p) {
		while (*p == ',' || *p == ' ')
			p++;
		size_t n = 0;
		while (p[n] && p[n] != ',' && p[n] != ' ')
			n++;
		if (n == len && n && strncmp(p, name, n) == 0)
			return 1;
		p += n;
	}
	return 0;
}
