/*
 * test_kv_policy.c -- the transfer policy (kv_policy.h) on synthetic rates: the choices of
 * policy_cases.txt (shared with python/tests/test_transfer.py), the preference margins, the
 * check of a choice against the rate it reaches (raw fallback, a move to a way not yet seen
 * and back), the drift that asks for a new probe and what does not (hysteresis, windows since
 * the probe), and the swap margin after a probe.
 *
 *   test_kv_policy CASES_FILE
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_policy.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

#define G 1e9

static int way_of(const char *name)
{
	for (int w = 0; w < KV_WAYS; w++)
		if (!strcmp(name, kv_way_names[w]))
			return w;
	return -1;
}

/* One line of the cases file: the rates, the way and the predicted speedup it must give. */
static int run_case(const char *line)
{
	char name[64], want[16];
	double v[12], speedup;
	if (sscanf(line, "%63s %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %15s %lf", name, &v[0],
	           &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], want,
	           &speedup) != 14)
		return -1;
	kv_rates r;
	memset(&r, 0, sizeof r);
	for (int w = 0; w < KV_WAYS; w++) {
		r.enc[w] = v[w] * G;
		r.dec[w] = v[3 + w] * G;
	}
	r.ratio[0] = 1;
	r.ratio[1] = v[6];
	r.ratio[2] = v[7];
	r.link = v[8] * G;
	r.net_s = v[9] / G;
	r.net_r = v[10] / G;
	kv_policy p;
	kv_policy_init(&p, NULL);
	const int way = kv_policy_probed(&p, &r);
	const double got = r.link > 0 ? p.pred[way] / r.link : 0;
	CHECK(way == way_of(want), "%s: chose %s, want %s", name, kv_way_names[way], want);
	CHECK(fabs(got - speedup) < 0.0015, "%s: predicted %.4f, want %.3f", name, got, speedup);
	CHECK(p.ref == (way == KV_WAY_RAW ? r.link : 0), "%s: a codec way starts unchecked", name);
	return 0;
}

static int run_cases(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		printf("FAIL: cannot read %s\n", path);
		return -1;
	}
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		CHECK(run_case(line) == 0, "unreadable case: %s", line);
		n++;
	}
	fclose(f);
	CHECK(n >= 10, "only %d cases", n);
	return n;
}

/* The rates most sequences start from (GB/s, ns per byte). */
static kv_rates base(double link, double net, double enc_entropy)
{
	kv_rates r;
	memset(&r, 0, sizeof r);
	r.enc[0] = 4 * G, r.enc[1] = 3 * G, r.enc[2] = enc_entropy * G;
	r.dec[0] = 4 * G, r.dec[1] = 5 * G, r.dec[2] = 1.8 * G;
	r.ratio[0] = 1, r.ratio[1] = 1.33, r.ratio[2] = 1.47;
	r.link = link * G;
	r.net_s = r.net_r = net / G;
	return r;
}

static int window(kv_policy *p, double thr_gbps)
{
	const kv_window w = {thr_gbps * G, 0, 0, 0};
	return kv_policy_window(p, &w);
}

static void test_prefer(void)
{
	kv_policy_params par;
	kv_policy_defaults(&par);
	const double a[KV_WAYS] = {1, 1.04, 0}, b[KV_WAYS] = {1, 1.06, 0};
	const double c[KV_WAYS] = {1, 1.06, 1.08}, d[KV_WAYS] = {1, 1.06, 1.09};
	const double e[KV_WAYS] = {1, 0, 1.06}, z[KV_WAYS] = {0, 0, 0};
	CHECK(kv_policy_prefer(&par, a) == KV_WAY_RAW, "4 %% is below the gain");
	CHECK(kv_policy_prefer(&par, b) == KV_WAY_SPLIT4, "6 %% is above the gain");
	CHECK(kv_policy_prefer(&par, c) == KV_WAY_SPLIT4,
	      "entropy 1.9 %% over split4 is not enough");
	CHECK(kv_policy_prefer(&par, d) == KV_WAY_ENTROPY, "entropy 2.8 %% over split4");
	CHECK(kv_policy_prefer(&par, e) == KV_WAY_ENTROPY, "entropy over raw, split4 unknown");
	CHECK(kv_policy_prefer(&par, z) == KV_WAY_RAW, "nothing known: raw");
	par.allowed = 1u << KV_WAY_RAW | 1u << KV_WAY_SPLIT4;
	CHECK(kv_policy_prefer(&par, d) == KV_WAY_SPLIT4, "entropy not allowed");
	kv_policy p;
	kv_policy_init(&p, &par);
	kv_rates r = base(0.0625, 0.8, 1.4);
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_SPLIT4, "entropy not allowed: split4");
}

/* Drift: windows off the checked rate by more than 25 %, twice in a row, either way. */
static void test_drift(void)
{
	kv_policy p;
	kv_policy_init(&p, NULL);
	kv_rates r = base(0.25, 0.8, 1.4);
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_ENTROPY, "2 Gbit/s: entropy");
	CHECK(window(&p, 0.35) == KV_POLICY_KEEP && p.ref == 0.35 * G, "the check sets the ref");
	CHECK(p.checks == 1 && p.way == KV_WAY_ENTROPY, "checked, kept");
	CHECK(window(&p, 0.27) == KV_POLICY_KEEP && p.drift_run == 0, "-23 %% is no drift");
	CHECK(window(&p, 0.25) == KV_POLICY_KEEP && p.drift_run == 1, "-29 %% once: wait");
	CHECK(window(&p, 0.36) == KV_POLICY_KEEP && p.drift_run == 0, "back: the run ends");
	CHECK(window(&p, 0.25) == KV_POLICY_KEEP, "drift once more");
	CHECK(window(&p, 0.25) == KV_POLICY_PROBE, "drift twice in a row: probe");
	CHECK(p.drift_run == 0 && p.checks == 1, "the run restarts");
	CHECK(window(&p, 0.45) == KV_POLICY_KEEP && window(&p, 0.45) == KV_POLICY_PROBE,
	      "+29 %% twice: probe too (a faster link)");
	CHECK(window(&p, 0) == KV_POLICY_KEEP && p.drift_run == 0, "an empty window is ignored");
	/* A probe that keeps the way doubles the windows drift must wait: 4, then 8. */
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_ENTROPY && p.hold == 4, "kept: hold 4");
	CHECK(window(&p, 0.35) == KV_POLICY_KEEP, "check");
	CHECK(window(&p, 0.2) == KV_POLICY_KEEP && window(&p, 0.2) == KV_POLICY_KEEP,
	      "drift in windows 2 and 3: too soon");
	CHECK(window(&p, 0.2) == KV_POLICY_PROBE, "window 4: probe");
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_ENTROPY && p.hold == 8, "kept again: hold 8");
	for (int k = 0; k < 6; k++)
		kv_policy_probed(&p, &r);
	CHECK(p.hold == 32, "at most max_hold");
	kv_rates slow = base(0.25, 0.8, 0.2); /* entropy now slower than split4 by far */
	CHECK(kv_policy_probed(&p, &slow) == KV_WAY_SPLIT4 && p.hold == 2, "a change: hold 2");
}

/* drift 0: never a probe for drift. */
static void test_drift_off(void)
{
	kv_policy_params par;
	kv_policy_defaults(&par);
	par.drift = 0;
	kv_policy p;
	kv_policy_init(&p, &par);
	kv_rates r = base(0.25, 0.8, 1.4);
	kv_policy_probed(&p, &r);
	window(&p, 0.35);
	int probes = 0;
	for (int k = 0; k < 10; k++)
		probes += window(&p, 0.1) == KV_POLICY_PROBE;
	CHECK(probes == 0, "drift off, yet %d probes", probes);
}

/* No probe until min_windows windows have passed since the last one. */
static void test_min_windows(void)
{
	kv_policy_params par;
	kv_policy_defaults(&par);
	par.min_windows = 4;
	kv_policy p;
	kv_policy_init(&p, &par);
	kv_rates r = base(0.25, 0.8, 1.4);
	kv_policy_probed(&p, &r);
	CHECK(window(&p, 0.35) == KV_POLICY_KEEP, "check");
	CHECK(window(&p, 0.2) == KV_POLICY_KEEP, "drift 1, window 2");
	CHECK(window(&p, 0.2) == KV_POLICY_KEEP, "drift 2, window 3: too soon");
	CHECK(window(&p, 0.2) == KV_POLICY_PROBE, "drift 3, window 4: probe");
}

/* A codec way slower than raw in practice is dropped at its check. */
static void test_raw_fallback(void)
{
	kv_policy p;
	kv_policy_init(&p, NULL);
	kv_rates r = base(0.25, 0.8, 0);
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_SPLIT4, "split4 predicted 1.33x");
	CHECK(window(&p, 0.225) == KV_POLICY_SWITCH && p.way == KV_WAY_RAW, "0.9x raw: raw");
	CHECK(p.ref == 0.25 * G, "raw's rate is the probe's");
	CHECK(window(&p, 0.25) == KV_POLICY_KEEP && p.way == KV_WAY_RAW, "raw stays");
	CHECK(p.checks == 1 && p.switches == 1, "one check, one switch");
}

/* The check moves to a way not seen yet, and back when that one is slower. */
static void test_check_moves(void)
{
	kv_policy p;
	kv_policy_init(&p, NULL);
	kv_rates r = base(0.625, 0.3, 1.4);
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_ENTROPY, "5 Gbit/s, cheap stack: entropy");
	CHECK(window(&p, 0.70) == KV_POLICY_SWITCH && p.way == KV_WAY_SPLIT4,
	      "entropy reached 0.70, split4 predicted 0.83: try split4");
	CHECK(p.ref == 0, "split4 not seen yet: its window is its check");
	CHECK(window(&p, 0.68) == KV_POLICY_SWITCH && p.way == KV_WAY_ENTROPY,
	      "split4 reached 0.68 < entropy's 0.70 by more than the preference: entropy");
	CHECK(p.ref == 0.70 * G, "entropy was seen: no second check");
	CHECK(window(&p, 0.70) == KV_POLICY_KEEP && p.checks == 2, "settled");
	const kv_window w = {0.70 * G, 1.0 * G, 1.5 * G, 1.45};
	CHECK(kv_policy_window(&p, &w) == KV_POLICY_KEEP, "settled");
	CHECK(p.rates.enc[2] == 1.0 * G && p.rates.dec[2] == 1.5 * G && p.rates.ratio[2] == 1.45,
	      "a window's codec rates and ratio update the model");
}

/* After a probe the way in use stays unless another beats it by the swap margin. */
static void test_swap(void)
{
	kv_policy p;
	kv_policy_init(&p, NULL);
	kv_rates r = base(0.25, 0.8, 1.4);
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_ENTROPY, "entropy in use");
	r = base(0.625, 0.3, 0.966); /* split4 predicted 3 % faster than entropy */
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_ENTROPY && p.switches == 0, "3 %%: entropy stays");
	CHECK(fabs(p.pred[1] / p.pred[2] - 1.03) < 0.005, "the margin tested is 3 %%");
	r = base(0.625, 0.3, 0.9); /* 9 % */
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_SPLIT4 && p.switches == 1, "9 %%: split4");
	r = base(0.625, 0.3, 0.966);
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_SPLIT4, "and back only past the margin");
	r = base(20, 0.6, 1.4); /* a link far faster than the codecs */
	CHECK(kv_policy_probed(&p, &r) == KV_WAY_RAW, "raw beats split4 by far: raw");
	CHECK(p.probes == 5, "probes counted");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_kv_policy CASES_FILE\n");
		return 2;
	}
	const int n = run_cases(argv[1]);
	test_prefer();
	test_drift();
	test_drift_off();
	test_min_windows();
	test_raw_fallback();
	test_check_moves();
	test_swap();
	printf("%d cases, %d failures\n", n, failures);
	return failures ? 1 : 0;
}
