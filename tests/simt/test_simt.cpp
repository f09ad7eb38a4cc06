/*
 * test_simt.cpp -- self-tests of the CPU SIMT harness (SIMT.md section 5, tests 1-8 and 10).
 *
 * Usage: simt_selftest [--quick] [TEST...]   (no TEST: all; --list prints the names)
 * Every test runs at W = 32 and W = 64, and under several schedules (lane order forward, reverse,
 * two seeds; fill bytes 0x00 and 0xFF): race-free kernels must give the same bytes under all of
 * them. Expected results come from plain sequential C++ written here, not from the harness.
 */
#include "sz_simt_compat.h"
#include "simt_kernels.cuh"
#include "simt_neg_kernels.h"
#include "sz_simt_testing.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <string>
#include <thread>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(SZ_SIMT_SANITIZED)
static const bool k_sanitized = true;
#else
static const bool k_sanitized = false;
#endif

#define CHECK_OK(res, what) CHECK((res).code == SZ_SIMT_OK, "%s: %s", what, (res).msg)

struct schedule {
	sz_simt_lane_order lanes;
	uint64_t seed;
	int fill;
	const char *name;
};
static const schedule k_scheds[] = {
    {SZ_SIMT_LANES_FORWARD, 0, 0x00, "forward/00"}, {SZ_SIMT_LANES_REVERSE, 0, 0xFF, "reverse/ff"},
    {SZ_SIMT_LANES_SEEDED, 1, 0x00, "seed1/00"},    {SZ_SIMT_LANES_SEEDED, 2, 0xFF, "seed2/ff"},
    {SZ_SIMT_LANES_FORWARD, 0, 0xFF, "forward/ff"}, {SZ_SIMT_LANES_REVERSE, 0, 0x00, "reverse/00"},
    {SZ_SIMT_LANES_SEEDED, 1, 0xFF, "seed1/ff"},    {SZ_SIMT_LANES_SEEDED, 2, 0x00, "seed2/00"},
};
static const int k_nsched = sizeof(k_scheds) / sizeof(k_scheds[0]);

/* Schedules to run: all of them; four under sanitizers (they look for memory errors); two in
 * --quick runs (the slow ucontext cross-check). */
static int nsched()
{
	return g_quick ? 2 : k_sanitized ? 4 : k_nsched;
}

static sz_simt_config make_cfg(int W, sz_dim3 grid, sz_dim3 block, const schedule &s)
{
	sz_simt_config c;
	c.warp = W;
	c.grid = grid;
	c.block = block;
	c.lane_order = s.lanes;
	c.seed = s.seed;
	c.fill = s.fill;
	return c;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The line number inside msg: "...file.h:123..." for the expected file and line. */
static bool msg_names(const sz_simt_result &r, const char *file, int line)
{
	char want[64];
	snprintf(want, sizeof(want), "%s:%d", file, line);
	return strstr(r.msg, want) != nullptr && r.line == line && r.file &&
	       strstr(r.file, file) != nullptr;
}

/* ==================================================================== */
/* 1. Indices                                                           */
/* ==================================================================== */
template <int W> static void test_indices()
{
	const sz_dim3 geoms[][2] = {
	    {{3, 2, 2}, {5, 4, 3}}, {{2, 1, 1}, {100, 1, 1}}, {{1, 1, 1}, {1024, 1, 1}},
	    {{4, 3, 1}, {7, 9, 1}}, {{1, 1, 3}, {1, 1, 64}},  {{5, 1, 1}, {1, 1, 1}},
	};
	const sz_simt_block_order border[] = {SZ_SIMT_BLOCKS_INCREASING, SZ_SIMT_BLOCKS_REVERSED,
	                                      SZ_SIMT_BLOCKS_SHUFFLED};
	for (const auto &gm : geoms) {
		const sz_dim3 g = gm[0], b = gm[1];
		const unsigned nb = g.x * g.y * g.z, nt = b.x * b.y * b.z;
		for (int s = 0; s < nsched(); s++) {
			std::vector<uint32_t> out(4 * nb * nt, 0xDEADBEEF), hits(nb * nt, 0);
			sz_simt_config c = make_cfg(W, g, b, k_scheds[s]);
			c.block_order = border[s % 3];
			sz_simt_result r = sz_simt_launch(c, k_indices<W>, out.data(), hits.data());
			CHECK_OK(r, k_scheds[s].name);
			CHECK(r.blocks_run == nb, "%" PRIu64 " blocks", r.blocks_run);
			for (unsigned bz = 0; bz < g.z; bz++)
				for (unsigned by = 0; by < g.y; by++)
					for (unsigned bx = 0; bx < g.x; bx++)
						for (unsigned t = 0; t < nt; t++) {
							unsigned bl = bx + g.x * (by + g.y * bz);
							unsigned gi = bl * nt + t;
							unsigned tx = t % b.x, ty = t / b.x % b.y,
							         tz = t / (b.x * b.y);
							CHECK(hits[gi] == 1, "thread %u hit %u", gi,
							      hits[gi]);
							CHECK(out[4 * gi] ==
							          (tx | ty << 10 | tz << 20),
							      "tid of %u", gi);
							CHECK(out[4 * gi + 1] ==
							          (bx | by << 10 | bz << 20),
							      "bid of %u", gi);
							CHECK(out[4 * gi + 2] ==
							          (t % W | (t / W) << 8),
							      "lane/warp of %u", gi);
							CHECK(out[4 * gi + 3] ==
							          (b.x | b.y << 8 | b.z << 16 |
							           g.x << 24),
							      "dims of %u", gi);
						}
		}
	}
}

/* ==================================================================== */
/* 2. Barrier phases                                                    */
/* ==================================================================== */
static std::vector<uint32_t> ref_phases(unsigned nb, unsigned n, int phases)
{
	std::vector<uint32_t> out(nb * n), s(n), v(n);
	for (unsigned b = 0; b < nb; b++) {
		for (unsigned t = 0; t < n; t++)
			s[t] = t * 2654435761u + b;
		for (int p = 0; p < phases; p++) {
			for (unsigned t = 0; t < n; t++)
				v[t] = s[(t + 1 + (unsigned)p) % n];
			for (unsigned t = 0; t < n; t++)
				s[t] = (v[t] * 3u + (uint32_t)p) ^ t;
		}
		for (unsigned t = 0; t < n; t++)
			out[b * n + t] = s[t];
	}
	return out;
}

template <int W> static void test_barrier_phases()
{
	const unsigned sizes[] = {(unsigned)W, 96, 256, 1024};
	for (unsigned n : sizes) {
		const unsigned nb = 3;
		std::vector<uint32_t> want = ref_phases(nb, n, 32);
		for (int s = 0; s < nsched(); s++) {
			std::vector<uint32_t> out(nb * n);
			sz_simt_config c =
			    make_cfg(W, sz_simt_dim(nb), sz_simt_dim(n), k_scheds[s]);
			sz_simt_result r =
			    sz_simt_launch(c, k_barrier_phases<W>, out.data(), 1, 32);
			CHECK_OK(r, k_scheds[s].name);
			CHECK(out == want, "n=%u %s differs from the sequential reference", n,
			      k_scheds[s].name);
		}
		/* Without barriers the result must depend on the lane order. */
		std::vector<uint32_t> fwd(nb * n), rev(nb * n);
		sz_simt_config c = make_cfg(W, sz_simt_dim(nb), sz_simt_dim(n), k_scheds[0]);
		CHECK_OK(sz_simt_launch(c, k_barrier_phases<W>, fwd.data(), 0, 32), "no barrier");
		c.lane_order = SZ_SIMT_LANES_REVERSE;
		CHECK_OK(sz_simt_launch(c, k_barrier_phases<W>, rev.data(), 0, 32), "no barrier");
		CHECK(fwd != rev, "n=%u: dropping the barriers went unnoticed", n);
	}
}

/* ==================================================================== */
/* 3. Shuffle table                                                     */
/* ==================================================================== */

/* Independent model of the shuffle table: returns the source lane, or -1 for BAD_WIDTH. */
static int ref_src_lane(int op, int W, int lane, long long a, int w)
{
	const int seg = lane / w * w;
	long long j;
	switch (op) {
	case 0: /* idx: source modulo width, within the own segment */
		return seg + (int)(((a % w) + w) % w);
	case 1: /* up */
		if (a < 0 || a >= W)
			return -1;
		j = lane - a;
		return j < seg ? lane : (int)j;
	case 2: /* down */
		if (a < 0 || a >= W)
			return -1;
		j = lane + a;
		return j >= seg + w ? lane : (int)j;
	default: /* xor */
		if (a < 0 || a >= W)
			return -1;
		j = lane ^ a;
		return j >= seg + w ? lane : (int)j;
	}
}

template <int W>
static void shfl_case(unsigned n, int op, int arg, int per_lane, int w, int eight, int sched,
                      const std::vector<uint64_t> &in)
{
	std::vector<uint64_t> out(n, 0);
	sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(n), k_scheds[sched]);
	sz_simt_result r =
	    sz_simt_launch(c, k_shfl<W>, in.data(), out.data(), op, arg, per_lane, w, eight);
	/* expected: BAD_WIDTH if any lane's argument is out of range, else the table */
	bool bad = false, exited = false;
	std::vector<uint64_t> want(n);
	for (unsigned t = 0; t < n; t++) {
		const int lane = (int)(t % W);
		const unsigned base = t / W * W;
		const long long a = arg + (per_lane ? lane : 0);
		int j =
		    ref_src_lane(op, W, lane, (op == 1 || op == 2) ? (long long)(unsigned)a : a, w);
		if (j < 0) {
			bad = true;
			continue;
		}
		if (base + (unsigned)j >= n) {
			exited = true;
			continue;
		}
		want[t] = eight ? in[base + j] : (uint32_t)in[base + j];
	}
	if (bad) {
		CHECK(r.code == SZ_SIMT_BAD_WIDTH, "op %d arg %d w %d: %s", op, arg, w, r.msg);
	} else if (exited) {
		CHECK(r.code == SZ_SIMT_SHFL_FROM_EXITED, "op %d arg %d w %d: %s", op, arg, w,
		      r.msg);
	} else {
		CHECK(r.code == SZ_SIMT_OK, "op %d arg %d w %d: %s", op, arg, w, r.msg);
		CHECK(out == want, "op %d arg %d per_lane %d w %d eight %d %s: wrong values", op,
		      arg, per_lane, w, eight, k_scheds[sched].name);
	}
}

template <int W> static void test_shfl_table()
{
	std::vector<uint64_t> in(1024);
	uint64_t seed = 99;
	for (auto &v : in)
		v = rng_next(&seed);
	int k = 0;
	for (int op = 0; op < 4; op++)
		for (int w = 1; w <= W; w *= 2) {
			const int args[] = {-1, 0, 1, w - 1, w, 2 * w, 63};
			for (int arg : args)
				for (int eight = 0; eight < 2; eight++)
					shfl_case<W>(128, op, arg, 0, w, eight, k++ % k_nsched, in);
			shfl_case<W>(128, op, 3, 1, w, 1, k++ % k_nsched, in); /* per-lane source */
		}
	/* Partial last warp (blockDim 100): width 4 stays inside existing lanes... */
	for (int op = 0; op < 4; op++)
		for (int arg = 0; arg < 4; arg++)
			for (int s = 0; s < nsched(); s++)
				shfl_case<W>(100, op, arg, 0, 4, s & 1, s, in);
	/* ...width W reaches lanes that do not exist. */
	shfl_case<W>(100, 2, 1, 0, W, 0, 0, in);
	shfl_case<W>(100, 0, W - 1, 0, W, 1, 1, in);
}

/* The source lanes the HIP flavour computes (sz_shfl_src_*, then ds_bpermute): the table above
 * for every lane, width and valid argument, and always a lane of the wave. */
template <int W> static void test_shfl_lanes()
{
	for (int w = 1; w <= W; w *= 2)
		for (unsigned l = 0; l < (unsigned)W; l++)
			for (int a = -2 * W; a < 2 * W; a++) {
				const unsigned got[4] = {
				    sz_shfl_src_idx(l, a, w), sz_shfl_src_up(l, (unsigned)a, w),
				    sz_shfl_src_down(l, (unsigned)a, w), sz_shfl_src_xor(l, a, w)};
				for (int op = 0; op < 4; op++) {
					if (op > 0 && (a < 0 || a >= W))
						continue; /* outside [0, W): the vendors disagree */
					const int want = ref_src_lane(op, W, (int)l, a, w);
					CHECK(got[op] == (unsigned)want && got[op] < (unsigned)W,
					      "op %d lane %u arg %d width %d: %u, want %d", op, l,
					      a, w, got[op], want);
				}
			}
}

/* ==================================================================== */
/* 4. Block scan                                                        */
/* ==================================================================== */
template <int W, typename T> static void block_scan_case(unsigned n, int sched)
{
	const unsigned nb = 3;
	std::vector<T> in(nb * n), out(nb * n), want(nb * n);
	uint64_t seed = n * 31 + sizeof(T);
	for (auto &v : in)
		v = (T)(rng_next(&seed) >> (sizeof(T) == 4 ? 40 : 8));
	for (unsigned b = 0; b < nb; b++) {
		T acc = 0;
		for (unsigned t = 0; t < n; t++)
			want[b * n + t] = acc += in[b * n + t];
	}
	sz_simt_config c = make_cfg(W, sz_simt_dim(nb), sz_simt_dim(n), k_scheds[sched]);
	sz_simt_result r = sz_simt_launch(c, k_block_scan<W, T>, in.data(), out.data());
	CHECK_OK(r, k_scheds[sched].name);
	CHECK(out == want, "blockDim %u, %zu-byte values, %s", n, sizeof(T), k_scheds[sched].name);
}

template <int W> static void test_block_scan()
{
	const unsigned sizes[] = {(unsigned)W, 64, 128, 256, 1024};
	for (unsigned n : sizes)
		for (int s = 0; s < nsched(); s++) {
			block_scan_case<W, uint32_t>(n, s);
			block_scan_case<W, uint64_t>(n, s);
		}
}

/* ==================================================================== */
/* 5. Ballot compaction                                                 */
/* ==================================================================== */
static const unsigned k_window_lo = 112; /* escape: exponent outside [112, 127] */

static std::vector<uint16_t> make_bf16(size_t n, double density, uint64_t seed)
{
	std::vector<uint16_t> v(n);
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng_next(&seed);
		bool esc = (double)(r >> 11) * (1.0 / 9007199254740992.0) < density;
		unsigned e = esc ? (unsigned)((r >> 8) % 240 + 128) % 256 /* outside the window */
		                 : k_window_lo + (unsigned)(r & 15);
		if (esc && e >= k_window_lo && e <= k_window_lo + 15)
			e = 0;
		v[i] = (uint16_t)((r >> 20 & 0x8000) | e << 7 | (r >> 32 & 0x7F));
	}
	return v;
}

/* Runs the compaction; returns false (after reporting) on any mismatch. */
template <int W>
static bool compact_case(const std::vector<uint16_t> &in, uint32_t chunk, unsigned block,
                         const sz_simt_config &base, uint64_t *trace, std::vector<uint32_t> *got,
                         uint64_t *resumes = nullptr)
{
	const uint32_t n = (uint32_t)in.size();
	const unsigned nb = n ? (n + chunk - 1) / chunk : 1;
	std::vector<uint32_t> pos((size_t)nb * chunk, 0xFFFFFFFF), counts(nb, 0xFFFFFFFF);
	sz_simt_config c = base;
	c.warp = W;
	c.grid = sz_simt_dim(nb);
	c.block = sz_simt_dim(block);
	sz_simt_result r = sz_simt_launch(c, k_compact<W>, in.data(), n, chunk, k_window_lo,
	                                  pos.data(), counts.data());
	CHECK_OK(r, "compaction");
	if (r.code != SZ_SIMT_OK)
		return false;
	if (trace)
		*trace = r.trace_hash;
	if (resumes)
		*resumes = r.resumes;
	/* the oracle: positions in ascending order, chunk by chunk */
	std::vector<uint32_t> all;
	bool ok = true;
	for (unsigned b = 0; b < nb; b++) {
		uint32_t k = 0;
		for (uint32_t i = b * chunk; i < n && i < (b + 1) * chunk; i++)
			if (((in[i] >> 7 & 0xFFu) - k_window_lo) > 15u) {
				if (k >= counts[b] || pos[(size_t)b * chunk + k] != i)
					ok = false;
				k++;
				all.push_back(i);
			}
		if (counts[b] != k)
			ok = false;
	}
	CHECK(ok, "n=%u chunk=%u block=%u: positions differ from the oracle", n, chunk, block);
	if (got)
		*got = all;
	return ok;
}

template <int W> static void test_compaction()
{
	const uint32_t chunk = 4096;
	const double dens[] = {0.0, 0.002, 0.01, 0.5, 1.0};
	const size_t big = g_quick ? 20011 : k_sanitized ? 200003 : 1000003;
	const size_t sizes[] = {0, 1, chunk - 1, chunk, chunk + 1, big};
	int k = 0;
	for (double d : dens)
		for (size_t n : sizes) {
			std::vector<uint16_t> in = make_bf16(n, d, n * 7 + (uint64_t)(d * 1000));
			const int ns = n > 10 * chunk ? 2 : nsched();
			for (int s = 0; s < ns; s++) {
				const schedule &sc = k_scheds[(k + s) % k_nsched];
				sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(1), sc);
				compact_case<W>(in, chunk, s & 1 ? 1024 : 256, c, nullptr, nullptr);
			}
			k++;
		}
}

/* One 10^7-element case (SIMT.md: <= 5 s at -O2); less in sanitizer and quick runs. */
template <int W> static void test_compaction_big()
{
	const size_t n = g_quick ? 200000 : k_sanitized ? 1000000 : 10000000;
	std::vector<uint16_t> in = make_bf16(n, 0.01, 12345);
	sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(1), k_scheds[0]);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t resumes = 0;
	compact_case<W>(in, 4096, 256, c, nullptr, nullptr, &resumes);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	printf(
	    "  compaction of %zu elements at W=%d: %.2f s, %.2f resumes/element, %.0f ns/resume\n",
	    n, W, s, (double)resumes / (double)n, s * 1e9 / (double)resumes);
}

/* ==================================================================== */
/* 6. Votes and atomics                                                 */
/* ==================================================================== */
template <int W> static void test_votes()
{
	const unsigned sizes[] = {2 * (unsigned)W, 100};
	for (unsigned n : sizes)
		for (int pat = 0; pat < 4; pat++)
			for (int s = 0; s < k_nsched; s += 3) {
				std::vector<uint64_t> out(8 * n, 0xAAAA);
				sz_simt_config c =
				    make_cfg(W, sz_simt_dim(1), sz_simt_dim(n), k_scheds[s]);
				sz_simt_result r = sz_simt_launch(c, k_votes<W>, out.data(), pat);
				CHECK_OK(r, "votes");
				std::vector<int> p(n);
				unsigned count = 0;
				for (unsigned t = 0; t < n; t++) {
					unsigned lane = t % W;
					p[t] = pat == 0   ? 0
					       : pat == 1 ? 1
					       : pat == 2 ? lane % 3 == 0
					                  : (int)((t * 2654435761u) >> 31);
					count += p[t] != 0;
				}
				for (unsigned t = 0; t < n; t++) {
					const unsigned base = t / W * W;
					const unsigned lanes =
					    n - base < (unsigned)W ? n - base : W;
					uint64_t live = lanes == 64 ? ~0ull : (1ull << lanes) - 1;
					uint64_t b = 0;
					for (unsigned l = 0; l < lanes; l++)
						b |= (uint64_t)(p[base + l] != 0) << l;
					const uint64_t *o = &out[8 * t];
					CHECK(o[0] == b, "ballot t=%u pat=%d: %llx vs %llx", t, pat,
					      (unsigned long long)o[0], (unsigned long long)b);
					CHECK(W == 64 || o[0] >> 32 == 0, "ballot top half t=%u",
					      t);
					CHECK(o[1] == (b != 0), "any t=%u pat=%d", t, pat);
					CHECK(o[2] == (b == live), "all t=%u pat=%d", t, pat);
					CHECK(o[3] == live, "activemask t=%u: %llx", t,
					      (unsigned long long)o[3]);
					CHECK(o[4] == count, "syncthreads_count t=%u", t);
					CHECK(o[5] == (count == n), "syncthreads_and t=%u", t);
					CHECK(o[6] == (count != 0), "syncthreads_or t=%u", t);
					CHECK(o[7] == t % W, "lane t=%u", t);
				}
			}
}

template <int W> static void test_atomics()
{
	const unsigned nb = 5, nt = 256;
	for (int s = 0; s < nsched(); s++) {
		uint32_t g32[4] = {0, 0, 0, 0};
		uint64_t g64[1] = {0};
		std::vector<uint32_t> per(2 * nb);
		sz_simt_config c = make_cfg(W, sz_simt_dim(nb), sz_simt_dim(nt), k_scheds[s]);
		c.block_order = (sz_simt_block_order)(s % 3);
		sz_simt_result r = sz_simt_launch(c, k_atomics<W>, g32, g64, per.data());
		CHECK_OK(r, "atomics");
		const uint64_t total = (uint64_t)nb * nt, sum = total * (total + 1) / 2;
		CHECK(g32[0] == (uint32_t)sum, "global add %u", g32[0]);
		CHECK(g32[1] == total, "global max %u", g32[1]);
		CHECK(g32[2] == 7, "exch");
		CHECK(g32[3] == total, "CAS max %u", g32[3]);
		CHECK(g64[0] == sum << 20, "CAS 64-bit add");
		/* per thread: add, max, exch, one load and at least one CAS for each CAS loop */
		CHECK(r.counts.gatomics >= 7 * total && r.counts.satomics == 2 * total,
		      "counted %" PRIu64 " global and %" PRIu64 " shared atomics",
		      r.counts.gatomics, r.counts.satomics);
		CHECK(r.counts.barriers == 2 * nb, "counted %" PRIu64 " barriers",
		      r.counts.barriers);
		for (unsigned b = 0; b < nb; b++) {
			uint64_t lo = (uint64_t)b * nt + 1, hi = lo + nt - 1;
			CHECK(per[2 * b] == (uint32_t)((lo + hi) * nt / 2), "shared add b=%u", b);
			CHECK(per[2 * b + 1] == hi, "shared max b=%u", b);
		}
	}
}

/* ==================================================================== */
/* 6c. Memory model: a missing release or acquire fails (sz_simt_mem.h)  */
/* ==================================================================== */
template <int W> static void test_memory_model()
{
	const unsigned n = 700;
	static const char *const what[] = {"release/acquire", "relaxed flag store",
	                                   "relaxed flag load", "no barrier before the release",
	                                   "no barrier after the acquire"};
	for (unsigned resident = 1; resident <= 2; resident++)
		for (int mode = 0; mode < 5; mode++)
			for (int s = 0; s < 2; s++) {
				uint32_t flag = 0, out = 0;
				std::vector<uint32_t> data(n, 0);
				sz_simt_config c =
				    make_cfg(W, sz_simt_dim(2), sz_simt_dim(128), k_scheds[s]);
				c.resident = resident;
				sz_simt_result r = sz_simt_launch(c, k_publish<W>, &flag,
				                                  data.data(), n, mode, &out);
				if (mode == 0) {
					CHECK_OK(r, what[mode]);
					CHECK(out == 3 * n * (n - 1) / 2 + n, "sum %u", out);
					CHECK(r.counts.gstore_bytes == 4 * n &&
					          r.counts.gload_bytes == 4 * n,
					      "counted %" PRIu64 " bytes stored, %" PRIu64
					      " loaded",
					      r.counts.gstore_bytes, r.counts.gload_bytes);
				} else {
					CHECK(r.code == SZ_SIMT_MEMORY_ORDER,
					      "%s (resident %u): %s", what[mode], resident, r.msg);
					CHECK(strstr(r.msg, "simt_kernels.cuh"), "no site: %s",
					      r.msg);
				}
				if (s == 0 && mode && resident == 1 && getenv("SZ_SIMT_VERBOSE"))
					printf("  %s: %s\n", what[mode], r.msg);
			}
	/* the last-block pattern: acq_rel passes; relaxed or release-only increments fail */
	for (int mode = 0; mode < 3; mode++)
		for (unsigned resident : {1u, 3u}) {
			uint32_t sum = 0, done = 0, out = 0;
			sz_simt_config c = make_cfg(W, sz_simt_dim(5), sz_simt_dim(W), k_scheds[0]);
			c.resident = resident;
			c.block_order =
			    resident == 1 ? SZ_SIMT_BLOCKS_SHUFFLED : SZ_SIMT_BLOCKS_REVERSED;
			c.seed = 3;
			sz_simt_result r =
			    sz_simt_launch(c, k_last_block<W>, &sum, &done, mode, &out);
			if (mode == 0) {
				CHECK_OK(r, "last block, acq_rel");
				CHECK(out == 15, "last block read %u", out);
			} else {
				CHECK(r.code == SZ_SIMT_MEMORY_ORDER, "last block mode %d: %s",
				      mode, r.msg);
			}
		}
	/* the fence form (k_chain): blocks resident together may start in any order */
	const unsigned nb = 12;
	for (int order = 0; order < 3; order++) {
		std::vector<uint32_t> flags(nb, 0), prefix(nb, 0);
		sz_simt_config c = make_cfg(W, sz_simt_dim(nb), sz_simt_dim(W), k_scheds[2]);
		c.block_order = (sz_simt_block_order)order;
		c.resident = nb;
		c.seed = 9;
		sz_simt_result r = sz_simt_launch(c, k_chain<W>, flags.data(), prefix.data());
		CHECK_OK(r, "chain, all resident");
		CHECK(prefix[nb - 1] == nb * (nb + 1) / 2, "chain prefix %u", prefix[nb - 1]);
	}
}

/* ==================================================================== */
/* 7. Shared memory                                                     */
/* ==================================================================== */
static const uint32_t k_static_smem = 4096 + 2048 + 16; /* k_smem's three arrays */

static uint32_t ref_smem_sum(unsigned blk, uint32_t dyn)
{
	uint32_t s = 0;
	for (unsigned i = 0; i < 1024; i++)
		s = s * 31 + (i * 7 + blk);
	for (unsigned i = 0; i < 256; i++)
		s = s * 31 + i + blk;
	for (unsigned i = 0; i < 16; i++)
		s = s * 31 + (uint8_t)(i + blk);
	for (unsigned i = 0; i < dyn; i++)
		s = s * 31 + (uint8_t)(i ^ blk);
	return s;
}

template <int W> static void test_shared_memory()
{
	const size_t limits[] = {SZ_SIMT_SMEM_CUDA, SZ_SIMT_SMEM_AMD};
	for (size_t limit : limits) {
		const uint32_t dyns[] = {0, 100, (uint32_t)(limit - k_static_smem)};
		for (uint32_t dyn : dyns)
			for (int s = 0; s < 2; s++) {
				const unsigned nb = 3;
				std::vector<uint32_t> out(4 * nb, 0);
				sz_simt_config c = make_cfg(W, sz_simt_dim(nb), sz_simt_dim(128),
				                            k_scheds[s == 0 ? 0 : 3]);
				c.dyn_smem = dyn;
				c.smem_limit = limit;
				sz_simt_result r = sz_simt_launch(c, k_smem<W>, out.data(), dyn);
				CHECK_OK(r, "shared memory");
				const uint32_t f = (uint32_t)c.fill;
				for (unsigned b = 0; b < nb; b++) {
					uint32_t want = f | f << 8 | f << 16 | (dyn ? f : 0) << 24;
					CHECK(out[4 * b] == want, "block %u saw %08x, not the fill",
					      b, out[4 * b]);
					CHECK(out[4 * b + 1] == ref_smem_sum(b, dyn),
					      "checksum b=%u", b);
				}
			}
		/* one byte over the limit */
		std::vector<uint32_t> out(4, 0);
		sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(64), k_scheds[0]);
		c.smem_limit = limit;
		c.dyn_smem = limit - k_static_smem + 1;
		sz_simt_result r = sz_simt_launch(c, k_smem<W>, out.data(), (uint32_t)c.dyn_smem);
		CHECK(r.code == SZ_SIMT_SMEM_LIMIT, "limit+1: %s", r.msg);
		CHECK(strstr(r.msg, "simt_kernels.cuh:") != nullptr, "site: %s", r.msg);
		c.dyn_smem = limit + 1;
		r = sz_simt_launch(c, k_smem<W>, out.data(), (uint32_t)c.dyn_smem);
		CHECK(r.code == SZ_SIMT_SMEM_LIMIT, "dynamic > limit: %s", r.msg);
	}
}

/* ==================================================================== */
/* 8. Negative tests                                                    */
/* ==================================================================== */

/* After every failing launch, a good one must pass: the harness survived. */
template <int W> static void good_launch_after(const char *what)
{
	block_scan_case<W, uint32_t>(128, 2);
	std::vector<uint32_t> out(2 * 128);
	sz_simt_config c = make_cfg(W, sz_simt_dim(2), sz_simt_dim(128), k_scheds[1]);
	sz_simt_result r = sz_simt_launch(c, k_barrier_phases<W>, out.data(), 1, 4);
	CHECK(r.code == SZ_SIMT_OK && out == ref_phases(2, 128, 4), "good launch after %s: %s",
	      what, r.msg);
}

template <int W, typename... P, typename... A>
static void expect_code(const char *what, sz_simt_code code, unsigned threads, const int *line,
                        void (*k)(P...), A... args)
{
	for (int s = 0; s < k_nsched; s += 2) {
		sz_simt_config c = make_cfg(W, sz_simt_dim(2), sz_simt_dim(threads), k_scheds[s]);
		sz_simt_result r = sz_simt_launch(c, k, args...);
		CHECK(r.code == code, "%s under %s: got %s (%s)", what, k_scheds[s].name,
		      sz_simt_code_name(r.code), r.msg);
		if (line)
			CHECK(msg_names(r, "simt_neg_kernels.h", *line), "%s: site not named: %s",
			      what, r.msg);
		CHECK(r.blocks_run == 0, "%s: %" PRIu64 " blocks completed", what, r.blocks_run);
		if (s == 0 && getenv("SZ_SIMT_VERBOSE"))
			printf("  %s: %s\n", what, r.msg);
		good_launch_after<W>(what);
	}
}

template <int W> static void test_negative()
{
	int line = 0;
	std::vector<uint32_t> out(1024);
	uint32_t flag = 0;
	expect_code<W>("if (t<16) sync", SZ_SIMT_EXIT_BEFORE_BARRIER, 32, &line, kn_if16<W>, &line);
	expect_code<W>("if (t<16) sync; sync", SZ_SIMT_DIVERGENT_BARRIER, 32, nullptr,
	               kn_if16_then_barrier<W>, &line);
	expect_code<W>("early return", SZ_SIMT_EXIT_BEFORE_BARRIER, 2 * W, &line,
	               kn_early_return<W>, &line);
	expect_code<W>("if/else barriers", SZ_SIMT_DIVERGENT_BARRIER, 2 * W, nullptr, kn_if_else<W>,
	               &line);
	expect_code<W>("ballot then barrier", SZ_SIMT_DEADLOCK, 2 * W, nullptr,
	               kn_ballot_then_barrier<W>, &line);
	expect_code<W>("divergent ballot", SZ_SIMT_DIVERGENT_WARP_OP, W, nullptr,
	               kn_divergent_ballot<W>, &line);
	expect_code<W>("mask misses a live lane", SZ_SIMT_BAD_MASK, W, &line, kn_mask<W>, &line, 0);
	if (W == 32)
		expect_code<W>("mask lane >= W", SZ_SIMT_BAD_MASK, W, &line, kn_mask<W>, &line, 1);
	expect_code<W>("masks differ", SZ_SIMT_BAD_MASK, W, &line, kn_mask<W>, &line, 2);
	expect_code<W>("shfl from exited", SZ_SIMT_SHFL_FROM_EXITED, W, &line, kn_shfl_exited<W>,
	               &line, out.data());
	expect_code<W>("width 3", SZ_SIMT_BAD_WIDTH, W, &line, kn_width<W>, &line, 3, 1u,
	               out.data());
	expect_code<W>("width 0", SZ_SIMT_BAD_WIDTH, W, &line, kn_width<W>, &line, 0, 1u,
	               out.data());
	expect_code<W>("width 2W", SZ_SIMT_BAD_WIDTH, W, &line, kn_width<W>, &line, 2 * W, 1u,
	               out.data());
	expect_code<W>("delta W", SZ_SIMT_BAD_WIDTH, W, &line, kn_width<W>, &line, W, (unsigned)W,
	               out.data());
	flag = 0;
	expect_code<W>("spin on a later block", SZ_SIMT_SPIN_LIMIT, 32, &line, kn_spin<W>, &line,
	               &flag);
	expect_code<W>("SZ_KERNEL_CHECK(0)", SZ_SIMT_KERNEL_TRAP, 64, &line, kn_check<W>, &line);

	/* the ballot/barrier deadlock message says who waits where */
	{
		sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(W), k_scheds[0]);
		sz_simt_result r = sz_simt_launch(c, kn_ballot_then_barrier<W>, &line);
		char want[128];
		snprintf(want, sizeof(want), "threads 0-15 wait at ballot (");
		CHECK(strstr(r.msg, want) && strstr(r.msg, "wait at __syncthreads"), "%s", r.msg);
		CHECK(r.thread == 0, "thread %d", r.thread);
	}

	/* launch errors */
	sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(1025), k_scheds[0]);
	sz_simt_result r = sz_simt_launch(c, kn_if16<W>, &line);
	CHECK(r.code == SZ_SIMT_BAD_LAUNCH, "blockDim 1025: %s", r.msg);
	c.block = sz_simt_dim(32, 1, 65);
	r = sz_simt_launch(c, kn_if16<W>, &line);
	CHECK(r.code == SZ_SIMT_BAD_LAUNCH, "blockDim.z 65: %s", r.msg);
	c.block = sz_simt_dim(32);
	c.grid = sz_simt_dim(0);
	r = sz_simt_launch(c, kn_if16<W>, &line);
	CHECK(r.code == SZ_SIMT_BAD_LAUNCH, "grid 0: %s", r.msg);
	c.grid = sz_simt_dim(1);
	c.warp = 48;
	r = sz_simt_launch(c, kn_if16<W>, &line);
	CHECK(r.code == SZ_SIMT_BAD_LAUNCH, "warp 48: %s", r.msg);
	c.warp = W == 32 ? 64 : 32; /* kernel<W> at the other warp size */
	r = sz_simt_launch(c, kn_if16<W>, &line);
	CHECK(r.code == SZ_SIMT_BAD_LAUNCH, "kernel<%d> at warp %d: %s", W, c.warp, r.msg);
	int code = -1;
	c.warp = W;
	r = sz_simt_launch(c, kn_nested<W>, &code);
	CHECK(r.code == SZ_SIMT_OK && code == SZ_SIMT_BAD_LAUNCH, "nested launch: %d %s", code,
	      r.msg);
	good_launch_after<W>("launch errors");
}

/* ==================================================================== */
/* 10. Determinism and block order                                      */
/* ==================================================================== */
template <int W> static void test_determinism()
{
	std::vector<uint16_t> in = make_bf16(50000, 0.05, 777);
	for (int s = 0; s < 4; s++) {
		sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(1), k_scheds[s]);
		c.block_order = (sz_simt_block_order)(s % 3);
		uint64_t h1 = 0, h2 = 1;
		std::vector<uint32_t> a, b;
		compact_case<W>(in, 4096, 256, c, &h1, &a);
		compact_case<W>(in, 4096, 256, c, &h2, &b);
		CHECK(h1 == h2 && a == b, "repeat under %s: trace %016llx vs %016llx",
		      k_scheds[s].name, (unsigned long long)h1, (unsigned long long)h2);
	}
	/* a different schedule changes the trace, not the output */
	{
		sz_simt_config c = make_cfg(W, sz_simt_dim(1), sz_simt_dim(1), k_scheds[0]);
		uint64_t h1 = 0, h2 = 0;
		std::vector<uint32_t> a, b;
		compact_case<W>(in, 4096, 256, c, &h1, &a);
		c.lane_order = SZ_SIMT_LANES_REVERSE;
		compact_case<W>(in, 4096, 256, c, &h2, &b);
		CHECK(a == b && h1 != h2, "forward vs reverse");
	}
	/* chained blocks: fine in increasing order, SPIN_LIMIT when a block waits on a later one */
	const unsigned nb = 40;
	for (int order = 0; order < 3; order++) {
		std::vector<uint32_t> flags(nb, 0), prefix(nb, 0);
		sz_simt_config c = make_cfg(W, sz_simt_dim(nb), sz_simt_dim(W), k_scheds[0]);
		c.block_order = (sz_simt_block_order)order;
		c.seed = 5;
		c.spin_budget = 100;
		sz_simt_result r = sz_simt_launch(c, k_chain<W>, flags.data(), prefix.data());
		if (order == SZ_SIMT_BLOCKS_INCREASING) {
			CHECK_OK(r, "chain");
			CHECK(prefix[nb - 1] == nb * (nb + 1) / 2, "chain prefix %u",
			      prefix[nb - 1]);
		} else {
			CHECK(r.code == SZ_SIMT_SPIN_LIMIT, "chain order %d: %s", order, r.msg);
		}
	}
}

/* ==================================================================== */
/* Separate OS threads launch at the same time (harness state is per thread) */
/* ==================================================================== */
template <int W> static void test_threads()
{
	const unsigned n = 256, nb = 8;
	std::vector<uint32_t> in(nb * n), want(nb * n);
	uint64_t seed = 4242;
	for (auto &v : in)
		v = (uint32_t)(rng_next(&seed) >> 40);
	for (unsigned b = 0; b < nb; b++) {
		uint32_t acc = 0;
		for (unsigned t = 0; t < n; t++)
			want[b * n + t] = acc += in[b * n + t];
	}
	int bad[2] = {0, 0};
	auto worker = [&](int id) {
		for (int rep = 0; rep < 10; rep++) {
			std::vector<uint32_t> out(nb * n);
			sz_simt_config c =
			    make_cfg(W, sz_simt_dim(nb), sz_simt_dim(n), k_scheds[(rep + id) % 4]);
			sz_simt_result r =
			    sz_simt_launch(c, k_block_scan<W, uint32_t>, in.data(), out.data());
			bad[id] += r.code != SZ_SIMT_OK || out != want;
		}
		sz_simt_release();
	};
	std::thread t0(worker, 0), t1(worker, 1);
	t0.join();
	t1.join();
	CHECK(bad[0] == 0 && bad[1] == 0, "%d and %d launches failed", bad[0], bad[1]);
}

/* ==================================================================== */

static const sz_simt_test k_tests[] = {
    SZ_SIMT_TEST(test_indices),      SZ_SIMT_TEST(test_barrier_phases),
    SZ_SIMT_TEST(test_shfl_table),   SZ_SIMT_TEST(test_block_scan),
    SZ_SIMT_TEST(test_compaction),   SZ_SIMT_TEST(test_compaction_big),
    SZ_SIMT_TEST(test_votes),        SZ_SIMT_TEST(test_atomics),
    SZ_SIMT_TEST(test_memory_model), SZ_SIMT_TEST(test_shared_memory),
    SZ_SIMT_TEST(test_negative),     SZ_SIMT_TEST(test_determinism),
    SZ_SIMT_TEST(test_threads),      SZ_SIMT_TEST(test_shfl_lanes),
};

int main(int argc, char **argv)
{
	return sz_simt_run_tests(k_tests, sizeof(k_tests) / sizeof(k_tests[0]), argc, argv);
}
