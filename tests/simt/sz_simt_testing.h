/*
 * sz_simt_testing.h -- the small test runner shared by the programs that run kernels through
 * the SIMT harness (tests/simt/test_simt.cpp, tests/gpu/test_gpu_simt.cpp). Each test is a
 * template over the warp size and runs at W = 32 and W = 64. Include in one file per program.
 *
 *   program [--quick] [TEST...]     no TEST: all of them; --list prints the names
 *
 * A watchdog (sz_simt_watchdog) stops a warp width's run of a test after 240 s, or
 * $SZ_SIMT_WATCHDOG seconds (ctest sets more in sanitizer builds), naming the thread it is in.
 */
#ifndef SZ_SIMT_TESTING_H
#define SZ_SIMT_TESTING_H

#include "sz_simt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <string>
#include <vector>

static int g_failures;
static int g_W;                 /* warp size of the test running now */
static const char *g_test = ""; /* its name */
static bool g_quick;            /* --quick: smaller sizes, fewer schedules */

/* Reports (the first 40) failures with the test, the warp size and a printf message. */
#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			if (++g_failures <= 40) {                                                  \
				fprintf(stderr, "FAIL %s W=%d (%s:%d) %s: ", g_test, g_W,          \
				        __FILE__, __LINE__, #cond);                                \
				fprintf(stderr, __VA_ARGS__);                                      \
				fputc('\n', stderr);                                               \
			}                                                                          \
		}                                                                                  \
	} while (0)

struct sz_simt_test {
	const char *name;
	void (*w32)();
	void (*w64)();
};
/* {name without "test_", f<32>, f<64>} */
#define SZ_SIMT_TEST(f)                                                                            \
	{                                                                                          \
		&#f[5], f<32>, f<64>                                                               \
	}

/* Seconds for the watchdog of one warp width's run of a test (below ctest's TIMEOUT). */
static unsigned sz_simt_watchdog_seconds()
{
	const char *s = getenv("SZ_SIMT_WATCHDOG");
	const long v = s ? strtol(s, nullptr, 10) : 0;
	return v > 0 ? (unsigned)v : 240;
}

/* Runs the tests named on the command line (all by default); the exit status of main. */
static int sz_simt_run_tests(const sz_simt_test *tests, size_t n, int argc, char **argv)
{
	std::vector<std::string> want;
	/* SZ_SIMT_QUICK=1 (ci/sanitize.sh: the suites under ASan, whose full sizes the release step
	 * runs natively) is --quick for every test program. */
	const char *q = getenv("SZ_SIMT_QUICK");
	g_quick = q && !strcmp(q, "1");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			g_quick = true;
		} else if (!strcmp(argv[i], "--list")) {
			for (size_t k = 0; k < n; k++)
				printf("%s\n", tests[k].name);
			return 0;
		} else {
			want.push_back(argv[i]);
		}
	}
	for (const std::string &w : want) {
		bool known = false;
		for (size_t k = 0; k < n; k++)
			known |= w == tests[k].name;
		if (!known) {
			fprintf(stderr, "unknown test '%s' (--list)\n", w.c_str());
			return 2;
		}
	}
	for (size_t k = 0; k < n; k++) {
		const sz_simt_test &t = tests[k];
		bool run = want.empty();
		for (const std::string &w : want)
			run |= w == t.name;
		if (!run)
			continue;
		g_test = t.name;
		const int before = g_failures;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		g_W = 32;
		sz_simt_watchdog(sz_simt_watchdog_seconds()); /* the report names the thread */
		t.w32();
		g_W = 64;
		sz_simt_watchdog(sz_simt_watchdog_seconds());
		t.w64();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		const double s =
		    (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		printf("%-4s %-20s %7.2f s\n", g_failures == before ? "ok" : "FAIL", t.name, s);
		fflush(stdout);
	}
	sz_simt_watchdog(0);
	sz_simt_release();
	return g_failures ? 1 : 0;
}

#endif /* SZ_SIMT_TESTING_H */
