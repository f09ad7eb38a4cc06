/*
 * test_gpu_simt.cpp -- the GPU conformance suite, run on the CPU through the SIMT harness.
 *
 * The kernels and the host launch sequence are the ones the CUDA and HIP modules build
 * (backends/gpu/sz_gpu_driver.cuh); only the launcher differs. Every test runs at warp size 32
 * and 64. The oracle is the library's scalar backend (core/sz_ref.c via the public API).
 *
 * Usage: test_gpu_simt [--quick] [TEST...]   (--list prints the test names)
 * Environment: SZ_VECTORS_DIR, the golden vectors (tests/vectors).
 */
#include "sz_simt_compat.h"

#include "sz_gpu_driver.cuh"
#include "sz_simt_testing.h"

extern "C" {
#include "sz_test_data.h"
}

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(SZ_SIMT_SANITIZED)
static const bool k_sanitized = true;
#else
static const bool k_sanitized = false;
#endif

/* ==================================================================== */
/*                  The harness launcher and device calls               */
/* ==================================================================== */

/*
 * A schedule: lane and block order, fill byte, and the device it pretends to be: 'wave' blocks
 * fit on it at once (the driver sizes persistent grids and chooses the batched path by it),
 * 'resident' of them really run interleaved in the harness (look-back, tickets and the done
 * counters then wait on each other).
 */
struct schedule {
	sz_simt_lane_order lanes;
	sz_simt_block_order blocks;
	uint64_t seed;
	int fill;
	unsigned wave, resident;
};
static const schedule k_default_sched = {
    SZ_SIMT_LANES_FORWARD, SZ_SIMT_BLOCKS_INCREASING, 0, 0xA5, 6, 1};
static const schedule k_other_scheds[] = {
    {SZ_SIMT_LANES_REVERSE, SZ_SIMT_BLOCKS_REVERSED, 0, 0x00, 5, 5},
    {SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_SHUFFLED, 7, 0xFF, 7, 3},
    {SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_INCREASING, 3, 0x11, 64, 2},
};

/* The launcher of sz_gpu_driver.cuh for the harness; it sums the counts of every launch. */
struct simt_launcher {
	int warp;
	schedule sched;
	bool failed = false;
	sz_simt_result first{};
	std::vector<std::pair<std::string, sz_simt_result>> runs; /* every launch, in order */
	simt_launcher(int w, const schedule &s) : warp(w), sched(s)
	{
	}
	template <typename... P> unsigned resident(void (*)(P...))
	{
		return sched.wave;
	}
	template <typename... P, typename... A>
	void launch(const char *name, sz_gpu_dim g, unsigned block, void (*k)(P...), A... args)
	{
		if (failed)
			return;
		sz_simt_config c;
		c.warp = warp;
		c.grid = sz_simt_dim(g.x, g.y);
		c.block = sz_simt_dim(block);
		c.lane_order = sched.lanes;
		c.block_order = sched.blocks;
		c.seed = sched.seed;
		c.fill = sched.fill;
		c.resident = sched.resident;
		c.spin_budget = 200000;
		sz_simt_result r = sz_simt_launch(c, k, args...);
		runs.emplace_back(name, r);
		if (r.code != SZ_SIMT_OK) {
			failed = true;
			first = r;
		}
	}
};

struct params {
	unsigned log2 = 12;
	unsigned flags = 0;
	bool fixed = false;
	uint8_t codebook[16] = {};
	/* sz_gpu_compress()'s predict_from (0: its default); 1 predicts every codebook from the
	 * input from a sample */
	uint64_t predict_from = 0;
	splitzip_encoding encoding = SPLITZIP_ENCODING_SPLIT4;
	bool table_fixed = false;       /* entropy: 'table', else each frame's own */
	splitzip_entropy_table table{}; /* with table_fixed */
};

/* An exact-size heap copy, so that ASan sees any access past the end. */
struct buf {
	uint8_t *p = nullptr;
	size_t n = 0;
	explicit buf(size_t size, int fill = 0xEE) : p((uint8_t *)malloc(size ? size : 1)), n(size)
	{
		memset(p, fill, size ? size : 1);
	}
	buf(const void *src, size_t size) : buf(size)
	{
		if (size)
			memcpy(p, src, size);
	}
	~buf()
	{
		free(p);
	}
	buf(const buf &) = delete;
	buf &operator=(const buf &) = delete;
};

struct enc_result {
	int32_t status = -1;
	std::vector<uint8_t> frame;
};

static void fill_enc(sz_gpu_enc &a, const params &p, uint64_t max_elems, uint8_t *ws)
{
	memset(&a, 0, sizeof a);
	a.ws = ws;
	a.max_elems = max_elems;
	a.chunk_log2 = p.log2;
	a.flags = p.flags;
	a.encoding = (uint32_t)p.encoding;
	a.split4.from_input = !p.fixed;
	memcpy(a.split4.codebook, p.codebook, 16);
	a.entropy.from_input = !p.table_fixed;
	memcpy(a.entropy.table, p.table.lengths, 256);
	a.entropy.table[SPLITZIP_ENTROPY_ESC] = p.table.escape_length;
}

static uint64_t predict_from(const params &p)
{
	return p.predict_from ? p.predict_from : SZ_GPU_SAMPLE_ALL_ELEMS;
}

/* The counts of every launch of a call, summed. */
static sz_simt_counts sum_counts(const simt_launcher &lc)
{
	sz_simt_counts c;
	memset(&c, 0, sizeof c);
	for (const auto &r : lc.runs) {
		c.gload_bytes += r.second.counts.gload_bytes;
		c.gstore_bytes += r.second.counts.gstore_bytes;
		c.gatomics += r.second.counts.gatomics;
		c.satomics += r.second.counts.satomics;
		c.gfences += r.second.counts.gfences;
		c.barriers += r.second.counts.barriers;
	}
	return c;
}

template <int W>
static enc_result sim_compress_counted(const std::vector<uint16_t> &in, const params &p, size_t cap,
                                       const schedule &s, sz_simt_counts *counts);

template <int W>
static enc_result sim_compress(const std::vector<uint16_t> &in, const params &p, size_t cap,
                               const schedule &s = k_default_sched)
{
	return sim_compress_counted<W>(in, p, cap, s, nullptr);
}

template <int W>
static enc_result sim_compress_counted(const std::vector<uint16_t> &in, const params &p, size_t cap,
                                       const schedule &s, sz_simt_counts *counts)
{
	enc_result r;
	buf src(in.data(), in.size() * 2), dst(cap);
	buf ws(sz_gpu_workspace_size_for(1, in.size(), p.log2, p.encoding), 0x5A);
	size_t size = 12345;
	sz_gpu_enc a;
	fill_enc(a, p, in.size(), ws.p);
	a.frames.one.src = in.empty() ? nullptr : (const uint16_t *)src.p;
	a.frames.one.n = in.size();
	a.frames.one.dst = dst.p;
	a.frames.one.cap = cap;
	a.frames.out_sizes = &size;
	a.frames.statuses = &r.status;
	simt_launcher lc{W, s};
	sz_gpu_compress<W>(lc, a, 1, predict_from(p));
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	if (counts)
		*counts = sum_counts(lc);
	if (r.status == SPLITZIP_OK)
		r.frame.assign(dst.p, dst.p + size);
	else
		CHECK(size == 0, "size %zu on error", size);
	return r;
}

struct dec_result {
	int32_t status = -1;
	std::vector<uint16_t> out;
};

template <int W>
static dec_result sim_decompress(const uint8_t *frame, size_t size, size_t cap_elems,
                                 const schedule &s = k_default_sched)
{
	dec_result r;
	buf src(frame, size), dst(cap_elems * 2);
	buf ws(sz_gpu_dec_workspace_size(1), 0x5A);
	size_t n = 777;
	sz_gpu_dec a;
	memset(&a, 0, sizeof a);
	a.frames.one.src = src.p;
	a.frames.one.size = size;
	a.frames.one.dst = cap_elems ? (uint16_t *)dst.p : nullptr;
	a.frames.one.cap = cap_elems;
	a.frames.out_elems = &n;
	a.frames.statuses = &r.status;
	a.ws = ws.p;
	simt_launcher lc{W, s};
	sz_gpu_decompress<W>(lc, a, 1, cap_elems);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	if (r.status == SPLITZIP_OK) {
		const uint16_t *o = (const uint16_t *)dst.p;
		r.out.assign(o, o + n);
	} else {
		CHECK(n == 0, "n %zu on error", n);
	}
	return r;
}

/* ==================================================================== */
/*                         The scalar oracle                            */
/* ==================================================================== */

static splitzip_ctx *oracle_ctx(const params &p)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = SPLITZIP_BACKEND_SCALAR;
	q.chunk_log2 = p.log2;
	q.flags = p.flags;
	q.n_threads = 1;
	if (p.fixed) {
		q.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(q.codebook.exponents, p.codebook, 16);
	}
	q.encoding = p.encoding;
	if (p.table_fixed) {
		q.table_mode = SPLITZIP_CODEBOOK_FIXED;
		q.table = p.table;
	}
	splitzip_ctx *ctx = nullptr;
	if (splitzip_ctx_create(&q, &ctx) != SPLITZIP_OK) {
		fprintf(stderr, "cannot create the scalar oracle context\n");
		exit(2);
	}
	return ctx;
}

static std::vector<uint8_t> oracle_compress(const std::vector<uint16_t> &in, const params &p)
{
	splitzip_ctx *ctx = oracle_ctx(p);
	std::vector<uint8_t> out(splitzip_compress_bound(in.size()));
	size_t size = 0;
	splitzip_status st =
	    splitzip_compress(ctx, in.data(), in.size(), out.data(), out.size(), &size);
	splitzip_ctx_free(ctx);
	if (st != SPLITZIP_OK) {
		fprintf(stderr, "oracle compress failed: %s\n", splitzip_error_string(st));
		exit(2);
	}
	out.resize(size);
	return out;
}

/* Status and output of the scalar decoder for exactly one frame at the start of 'frame'. */
static dec_result oracle_decompress(const uint8_t *frame, size_t size, size_t cap_elems)
{
	/* The device kernels implement BF16 only: a frame of another dtype is UNSUPPORTED_FORMAT
	 * for them (FORMAT.md §1.1, §3.2 step 4) where the host decodes it. The shared BF16 header
	 * reader says so exactly when the host's would pass steps 0-3. */
	splitzip_header h;
	if (splitzip_read_header(frame, size, &h) == SPLITZIP_ERROR_UNSUPPORTED_FORMAT) {
		dec_result u;
		u.status = SPLITZIP_ERROR_UNSUPPORTED_FORMAT;
		return u;
	}
	params p;
	splitzip_ctx *ctx = oracle_ctx(p);
	buf src(frame, size);
	std::vector<uint16_t> out(cap_elems + 1);
	size_t used = 0, n = 0;
	dec_result r;
	r.status = splitzip_frame_decompress(ctx, src.p, size, &used, out.data(), cap_elems, &n);
	splitzip_ctx_free(ctx);
	if (r.status == SPLITZIP_OK)
		r.out.assign(out.begin(), out.begin() + (ptrdiff_t)n);
	return r;
}

static size_t first_diff(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b)
{
	size_t i = 0;
	while (i < a.size() && i < b.size() && a[i] == b[i])
		i++;
	return i;
}

static std::vector<uint16_t> gen(int g, uint64_t seed, size_t n)
{
	std::vector<uint16_t> v(n);
	sz_test_generate(g, seed, v.data(), n);
	return v;
}

static params window_params(unsigned log2, unsigned flags)
{
	params p;
	p.log2 = log2;
	p.flags = flags;
	p.fixed = true;
	for (int k = 0; k < 16; k++)
		p.codebook[k] = (uint8_t)(112 + k);
	return p;
}

/* Compress with the harness and the oracle; both frames must be byte-identical, and each
 * decoder must decode the frame back to the input. */
template <int W>
static void roundtrip(const std::vector<uint16_t> &in, const params &p, const char *what,
                      const schedule &s = k_default_sched)
{
	const std::vector<uint8_t> ref = oracle_compress(in, p);
	enc_result got = sim_compress<W>(in, p, splitzip_compress_bound(in.size()), s);
	CHECK(got.status == SPLITZIP_OK, "%s n=%zu L=%u: status %d", what, in.size(), p.log2,
	      got.status);
	if (got.status != SPLITZIP_OK)
		return;
	CHECK(got.frame == ref,
	      "%s n=%zu L=%u flags=%u fixed=%d: frame differs from the oracle at byte %zu "
	      "(sizes %zu, %zu)",
	      what, in.size(), p.log2, p.flags, p.fixed, first_diff(got.frame, ref),
	      got.frame.size(), ref.size());
	dec_result d = sim_decompress<W>(ref.data(), ref.size(), in.size(), s);
	CHECK(d.status == SPLITZIP_OK && d.out == in, "%s n=%zu: decode status %d", what, in.size(),
	      d.status);
}

/* ==================================================================== */
/*                                Tests                                 */
/* ==================================================================== */

static const size_t k_sizes[] = {0,    1,    2,    3,    15,   16,   17,    31,   33,
                                 56,   57,   64,   72,   73,   120,  121,   1000, 1023,
                                 1024, 1025, 4095, 4096, 4097, 8191, 12289, 65537};

/* Every generator, the edge sizes, three chunk sizes, both codebook sources, with and without
 * the content checksum. */
template <int W> static void test_encode_conformance()
{
	const unsigned logs[] = {10, 12, 16};
	int k = 0;
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++)
		for (size_t n : k_sizes) {
			if (g_quick && n > 5000)
				continue;
			const std::vector<uint16_t> in = gen(g, 100 + n, n);
			params p;
			p.log2 = logs[k % 3];
			p.flags = k & 1;
			roundtrip<W>(in, p, sz_test_gen_name(g));
			roundtrip<W>(in, window_params(logs[(k + 1) % 3], (k >> 1) & 1),
			             sz_test_gen_name(g));
			k++;
		}
	/* A bigger multi-chunk frame at each chunk size. */
	const size_t big = g_quick ? 70001 : 300007;
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 5, big);
	for (unsigned L = 10; L <= 16; L += 3) {
		params p;
		p.log2 = L;
		p.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
		roundtrip<W>(in, p, "big");
	}
}

/* Real KV data (the bundled sample). */
template <int W> static void test_real_kv()
{
	const char *which[] = {"K", "V"};
	for (const char *w : which) {
		size_t n = 0;
		uint16_t *kv = sz_test_load_kv(w, &n);
		CHECK(kv != nullptr, "real KV sample %s missing", w);
		if (!kv)
			continue;
		if (g_quick || k_sanitized)
			n = n < 100000 ? n : 100000;
		std::vector<uint16_t> in(kv, kv + n);
		free(kv);
		params p;
		p.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
		roundtrip<W>(in, p, w);
		roundtrip<W>(in, window_params(12, 0), w);
	}
}

/* The mode rule at its edge: exactly the split4 limit of escapes, and one more (split4 data is
 * written, then replaced by a stored frame). n = 4096, L = 10: the limit is 672. */
template <int W> static void test_escape_limit()
{
	const size_t n = 4096;
	const int64_t lim = splitzip_split4_max_escapes(n, 10);
	CHECK(lim == 672, "limit %lld", (long long)lim);
	for (int64_t esc : {lim - 1, lim, lim + 1, (int64_t)n}) {
		std::vector<uint16_t> in = gen(SZ_GEN_SPARSE_WINDOW, 3, n);
		for (size_t i = 0; i < n; i++)
			in[i] = (uint16_t)((in[i] & 0x807F) | (112 + i % 16) << 7);
		for (int64_t k = 0; k < esc; k++) /* spread over all four chunks */
			in[(size_t)(k * 6 % (int64_t)n)] = (uint16_t)(0x7F00 | (k & 0x7F));
		for (unsigned flags = 0; flags < 2; flags++)
			roundtrip<W>(in, window_params(10, flags), "escape limit");
	}
}

/* Capacities: the exact frame size works, one byte less does not (both decoders agree). */
template <int W> static void test_capacity()
{
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_5PCT, 9, 9000);
	const params p = window_params(12, 1);
	const std::vector<uint8_t> ref = oracle_compress(in, p);
	enc_result r = sim_compress<W>(in, p, ref.size());
	CHECK(r.status == SPLITZIP_OK && r.frame == ref, "exact capacity: %d", r.status);
	r = sim_compress<W>(in, p, ref.size() - 1);
	CHECK(r.status == SPLITZIP_ERROR_DST_TOO_SMALL, "capacity - 1: %d", r.status);
	r = sim_compress<W>(in, p, 64);
	CHECK(r.status == SPLITZIP_ERROR_DST_TOO_SMALL, "capacity 64: %d", r.status);
	dec_result d = sim_decompress<W>(ref.data(), ref.size(), in.size() - 1);
	CHECK(d.status == SPLITZIP_ERROR_DST_TOO_SMALL, "decode into n-1: %d", d.status);
	d = sim_decompress<W>(ref.data(), ref.size() - 1, in.size());
	CHECK(d.status == SPLITZIP_ERROR_TRUNCATED, "decode of a truncated frame: %d", d.status);
	d = sim_decompress<W>(ref.data(), ref.size(), in.size() + 100);
	CHECK(d.status == SPLITZIP_OK && d.out == in, "decode into n+100: %d", d.status);
}

/* Race-free kernels give the same bytes under other lane and block orders and fill bytes. */
template <int W> static void test_schedules()
{
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_5PCT, 11, g_quick ? 20000 : 70000);
	for (const schedule &s : k_other_scheds) {
		params p;
		p.log2 = 10;
		p.flags = 1;
		roundtrip<W>(in, p, "schedule", s);
		roundtrip<W>(in, window_params(12, 0), "schedule", s);
	}
}

/*
 * Frames whose sampled chunks (the sample a predicted codebook comes from: one chunk in 16, at
 * least 16, chunk C i / ns) look unlike the rest. 'sampled' and 'rest' pick what each holds:
 * 0 window 100-115, 1 window 116-131 (with ~1% escapes), 2 random 16-bit patterns.
 */
static std::vector<uint16_t> two_faced(size_t n, unsigned L, int sampled, int rest, uint64_t seed)
{
	std::vector<uint16_t> v(n);
	const uint64_t C = splitzip_n_chunks(n, L);
	const uint64_t ns = C / 16 > 16 ? C / 16 : (C < 16 ? C : 16);
	std::vector<char> in_sample(C, 0);
	for (uint64_t k = 0; k < ns; k++)
		in_sample[C * k / ns] = 1;
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = sz_test_rand(&seed);
		const int kind = in_sample[i >> L] ? sampled : rest;
		unsigned e = kind == 0 ? 100 + r % 16 : 116 + r % 16;
		if (kind == 1 && (r >> 20) % 100 == 0)
			e = (unsigned)(r >> 28) & 0xFF;
		v[i] = kind == 2 ? (uint16_t)(r >> 40) : (uint16_t)(((r >> 8) & 0x807F) | e << 7);
	}
	return v;
}

/* A batch of frames through the driver (the page path when the device is 'wave' blocks and
 * the frames are small); every frame must equal the oracle's. */
template <int W>
static void batch_roundtrip(const std::vector<std::vector<uint16_t>> &in, const params &p,
                            const schedule &s, const char *what)
{
	const size_t nf = in.size();
	size_t max_elems = 0;
	std::vector<buf *> srcs(nf), dsts(nf);
	std::vector<const uint16_t *> d_srcs(nf);
	std::vector<void *> d_dsts(nf);
	std::vector<size_t> d_n(nf), d_caps(nf), d_sizes(nf, 999);
	std::vector<int32_t> d_status(nf, -1);
	for (size_t f = 0; f < nf; f++) {
		max_elems = in[f].size() > max_elems ? in[f].size() : max_elems;
		srcs[f] = new buf(in[f].data(), in[f].size() * 2);
		d_srcs[f] = in[f].empty() ? nullptr : (const uint16_t *)srcs[f]->p;
		d_n[f] = in[f].size();
		d_caps[f] = splitzip_compress_bound(in[f].size());
		dsts[f] = new buf(d_caps[f]);
		d_dsts[f] = dsts[f]->p;
	}
	buf ws(sz_gpu_workspace_size(nf, max_elems, p.log2), 0x5A);
	sz_gpu_enc a;
	fill_enc(a, p, max_elems, ws.p);
	a.frames.srcs = d_srcs.data();
	a.frames.n_elems = d_n.data();
	a.frames.dsts = d_dsts.data();
	a.frames.dst_caps = d_caps.data();
	a.frames.out_sizes = d_sizes.data();
	a.frames.statuses = d_status.data();
	simt_launcher lc{W, s};
	sz_gpu_compress<W>(lc, a, nf, predict_from(p));
	CHECK(!lc.failed, "%s: harness: %s", what, lc.first.msg);
	for (size_t f = 0; f < nf; f++) {
		const std::vector<uint8_t> ref = oracle_compress(in[f], p);
		std::vector<uint8_t> got(dsts[f]->p, dsts[f]->p + (d_status[f] ? 0 : d_sizes[f]));
		CHECK(d_status[f] == SPLITZIP_OK && got == ref,
		      "%s frame %zu (n=%zu, %s path): status %d, differs at %zu", what, f,
		      in[f].size(), lc.runs.empty() ? "?" : lc.runs[0].first.c_str(), d_status[f],
		      first_diff(got, ref));
		delete srcs[f];
		delete dsts[f];
	}
}

/*
 * The codebook from the input predicted from a sample (predict_from = 1 makes every frame do
 * it): right; wrong (a second pass with the exact codebook); "mostly escapes" guessed from the
 * sample and right (the pass writes the stored frame) or wrong (a second pass writes split4
 * with its sign/mantissa bytes); a compressible-looking sample of an incompressible frame. One
 * frame on many blocks, and batches on the page path, under several schedules.
 */
template <int W> static void test_prediction()
{
	struct kind {
		int sampled, rest;
		const char *what;
	};
	const kind kinds[] = {{1, 1, "right"},
	                      {0, 1, "mispredicted"},
	                      {2, 2, "stored, guessed"},
	                      {2, 1, "stored guess wrong"},
	                      {1, 2, "stored, not guessed"}};
	const size_t n = g_quick ? 40000 : 70000;
	const unsigned L = 10;
	for (const kind &k : kinds)
		for (unsigned flags = 0; flags < 2; flags++) {
			params p;
			p.log2 = L;
			p.flags = flags;
			p.predict_from = 1;
			const std::vector<uint16_t> in =
			    two_faced(n, L, k.sampled, k.rest, 7 + flags);
			roundtrip<W>(in, p, k.what);
			roundtrip<W>(in, p, k.what, k_other_scheds[flags]);
			std::vector<std::vector<uint16_t>> batch;
			for (int f = 0; f < 4; f++)
				batch.push_back(
				    two_faced(n / 4 + 100 * f, L, k.sampled, k.rest, f));
			batch_roundtrip<W>(batch, p, k_other_scheds[1 + flags], k.what);
		}
	/* a misprediction costs a second pass: it shows in the bytes written */
	params p;
	p.log2 = L;
	p.predict_from = 1;
	sz_simt_counts right, wrong;
	sim_compress_counted<W>(two_faced(n, L, 1, 1, 3), p, splitzip_compress_bound(n),
	                        k_default_sched, &right);
	sim_compress_counted<W>(two_faced(n, L, 0, 1, 3), p, splitzip_compress_bound(n),
	                        k_default_sched, &wrong);
	CHECK(wrong.gstore_bytes >= right.gstore_bytes + n / 2,
	      "second pass not seen: %" PRIu64 " vs %" PRIu64 " bytes written", wrong.gstore_bytes,
	      right.gstore_bytes);
}

/* Batches: one launch sequence for many frames of different sizes, including frames whose
 * arguments are wrong (their status says so, the others are unaffected). */
template <int W> static void test_batch()
{
	const size_t sizes[] = {0, 1, 100, 4096, 5000, 65536, 3, 20000, 4097, 121, 777, 65536};
	const size_t nf = sizeof(sizes) / sizeof(sizes[0]) + 2;
	const size_t max_elems = 65536;
	for (int variant = 0; variant < 2; variant++) {
		const params p = variant ? window_params(12, 1) : params();
		std::vector<std::vector<uint16_t>> in(nf);
		std::vector<std::vector<uint8_t>> ref(nf);
		std::vector<buf *> srcs(nf), dsts(nf);
		std::vector<const uint16_t *> d_srcs(nf);
		std::vector<void *> d_dsts(nf);
		std::vector<size_t> d_n(nf), d_caps(nf), d_sizes(nf, 999);
		std::vector<int32_t> d_status(nf, -1);
		for (size_t f = 0; f < nf; f++) {
			size_t n = f < nf - 2 ? sizes[f] : 500;
			in[f] = gen((int)(f % SZ_TEST_N_GENERATORS), f, n);
			ref[f] = oracle_compress(in[f], p);
			srcs[f] = new buf(in[f].data(), n * 2);
			d_srcs[f] = n ? (const uint16_t *)srcs[f]->p : nullptr;
			d_n[f] = n;
			d_caps[f] = splitzip_compress_bound(n);
			dsts[f] = new buf(d_caps[f]);
			d_dsts[f] = dsts[f]->p;
		}
		d_n[nf - 2] = max_elems + 1; /* more than max_elems: INVALID_ARGUMENT */
		d_caps[nf - 1] = 63;         /* too small for any frame */
		buf ws(sz_gpu_workspace_size(nf, max_elems, p.log2), 0x5A);
		sz_gpu_enc a;
		fill_enc(a, p, max_elems, ws.p);
		a.frames.srcs = d_srcs.data();
		a.frames.n_elems = d_n.data();
		a.frames.dsts = d_dsts.data();
		a.frames.dst_caps = d_caps.data();
		a.frames.out_sizes = d_sizes.data();
		a.frames.statuses = d_status.data();
		simt_launcher lc{W, variant ? k_other_scheds[1] : k_default_sched};
		sz_gpu_compress<W>(lc, a, nf, predict_from(p));
		CHECK(!lc.failed, "harness: %s", lc.first.msg);
		for (size_t f = 0; f < nf - 2; f++) {
			std::vector<uint8_t> got(dsts[f]->p, dsts[f]->p + d_sizes[f]);
			CHECK(d_status[f] == SPLITZIP_OK && got == ref[f],
			      "batch variant %d frame %zu (n=%zu, %s): status %d, differs at %zu",
			      variant, f, sizes[f],
			      sz_test_gen_name((int)(f % SZ_TEST_N_GENERATORS)), d_status[f],
			      first_diff(got, ref[f]));
		}
		CHECK(d_status[nf - 2] == SPLITZIP_ERROR_INVALID_ARGUMENT, "n > max: %d",
		      d_status[nf - 2]);
		CHECK(d_status[nf - 1] == SPLITZIP_ERROR_DST_TOO_SMALL, "cap 63: %d",
		      d_status[nf - 1]);

		/* Decode the oracle's frames as one batch; frame 1 is damaged, frame 2 cut short.
		 */
		std::vector<buf *> fsrc(nf), fdst(nf);
		std::vector<const void *> e_srcs(nf);
		std::vector<size_t> e_sizes(nf), e_caps(nf), e_n(nf, 999);
		std::vector<uint16_t *> e_dsts(nf);
		std::vector<int32_t> e_status(nf, -1);
		for (size_t f = 0; f < nf; f++) {
			std::vector<uint8_t> fr = ref[f];
			if (f == 1 && fr.size() > 70)
				fr[fr.size() - 1] ^= 1; /* padding or data: the oracle knows */
			size_t sz = f == 2 ? fr.size() - 16 : fr.size();
			fsrc[f] = new buf(fr.data(), sz);
			e_srcs[f] = fsrc[f]->p;
			e_sizes[f] = sz;
			e_caps[f] = in[f].size();
			fdst[f] = new buf(in[f].size() * 2);
			e_dsts[f] = in[f].empty() ? nullptr : (uint16_t *)fdst[f]->p;
		}
		buf ws2(sz_gpu_dec_workspace_size(nf), 0x5A);
		sz_gpu_dec d;
		memset(&d, 0, sizeof d);
		d.frames.srcs = e_srcs.data();
		d.frames.src_sizes = e_sizes.data();
		d.frames.dsts = e_dsts.data();
		d.frames.dst_caps = e_caps.data();
		d.frames.out_elems = e_n.data();
		d.frames.statuses = e_status.data();
		d.ws = ws2.p;
		simt_launcher lc2{W, variant ? k_other_scheds[0] : k_default_sched};
		sz_gpu_decompress<W>(lc2, d, nf, max_elems);
		CHECK(!lc2.failed, "harness: %s", lc2.first.msg);
		for (size_t f = 0; f < nf; f++) {
			dec_result o = oracle_decompress(fsrc[f]->p, e_sizes[f], e_caps[f]);
			CHECK(e_status[f] == o.status, "batch decode frame %zu: %d, oracle %d", f,
			      e_status[f], o.status);
			if (o.status == SPLITZIP_OK) {
				const uint16_t *got = (const uint16_t *)fdst[f]->p;
				CHECK(e_n[f] == in[f].size() &&
				          std::vector<uint16_t>(got, got + e_n[f]) == in[f],
				      "batch decode frame %zu output", f);
			}
		}
		for (size_t f = 0; f < nf; f++) {
			delete srcs[f];
			delete dsts[f];
			delete fsrc[f];
			delete fdst[f];
		}
	}
}

/* The golden vectors: valid ones decode to their .bf16, invalid ones give the status in their
 * name. Streams are walked frame by frame as splitzip_decompress() does (FORMAT.md §8.2). */
template <int W> static int stream_status(const std::vector<uint8_t> &s, std::vector<uint16_t> *out)
{
	size_t off = 0;
	do {
		/* An output of exactly the frame's size when its header is readable and the bytes
		 * could hold it (a frame of n elements has more than n bytes). */
		splitzip_frame_info info;
		const size_t avail = s.size() - off;
		const size_t cap =
		    splitzip_get_frame_info(s.data() + off, avail, &info) == SPLITZIP_OK &&
		            info.n_elems <= avail
		        ? (size_t)info.n_elems
		        : 1024;
		dec_result d = sim_decompress<W>(s.data() + off, s.size() - off, cap);
		if (d.status != SPLITZIP_OK)
			return (d.status == SPLITZIP_ERROR_BAD_MAGIC && off)
			           ? SPLITZIP_ERROR_CORRUPT_STREAM
			           : d.status;
		out->insert(out->end(), d.out.begin(), d.out.end());
		off += info.frame_size;
	} while (off < s.size());
	return SPLITZIP_OK;
}

static std::vector<uint8_t> read_all(const std::string &path)
{
	size_t n = 0;
	void *p = sz_test_read_file(path.c_str(), &n);
	std::vector<uint8_t> v;
	if (p)
		v.assign((uint8_t *)p, (uint8_t *)p + n);
	free(p);
	return v;
}

template <int W> static void test_golden_vectors()
{
	const char *root = getenv("SZ_VECTORS_DIR");
	CHECK(root != nullptr, "SZ_VECTORS_DIR is not set");
	if (!root)
		return;
	int n_valid = 0, n_invalid = 0;
	for (int kind = 0; kind < 2; kind++) {
		std::string dir = std::string(root) + (kind ? "/invalid" : "/valid");
		DIR *d = opendir(dir.c_str());
		CHECK(d != nullptr, "cannot open %s", dir.c_str());
		if (!d)
			continue;
		std::vector<std::string> names;
		while (struct dirent *e = readdir(d)) {
			std::string nm = e->d_name;
			if (nm.size() > 3 && nm.compare(nm.size() - 3, 3, ".sz") == 0)
				names.push_back(nm);
		}
		closedir(d);
		for (const std::string &nm : names) {
			const std::vector<uint8_t> s = read_all(dir + "/" + nm);
			std::vector<uint16_t> out;
			const int st = stream_status<W>(s, &out);
			if (kind == 0) {
				std::vector<uint8_t> want =
				    read_all(dir + "/" + nm.substr(0, nm.size() - 3) + ".bf16");
				std::vector<uint16_t> w(want.size() / 2);
				if (!want.empty())
					memcpy(w.data(), want.data(), want.size());
				CHECK(st == SPLITZIP_OK && out == w, "%s: status %d", nm.c_str(),
				      st);
				n_valid++;
			} else {
				/* NAME.STATUS.sz */
				size_t dot = nm.rfind('.', nm.size() - 4);
				std::string want = nm.substr(dot + 1, nm.size() - 4 - dot);
				const char *got = splitzip_status_name((splitzip_status)st);
				CHECK(want == got, "%s: got %s", nm.c_str(), got);
				n_invalid++;
			}
		}
	}
	CHECK(n_valid >= 20 && n_invalid >= 60, "only %d valid and %d invalid vectors", n_valid,
	      n_invalid);
}

/* Damaged frames: random bit flips, byte overwrites and cuts. The device decoder must report
 * exactly the scalar decoder's status (the spec fixes which check reports first), produce the
 * same output when it succeeds, and never touch memory outside its buffers. */
template <int W> static void test_corrupt_frames()
{
	struct base {
		int g;
		size_t n;
		params p;
	};
	const base bases[] = {
	    {SZ_GEN_ESCAPE_5PCT, 5000, window_params(10, 1)},
	    {SZ_GEN_KV_SKEWED, 3001, window_params(12, 0)},
	    {SZ_GEN_ALL_ESCAPE, 2000, window_params(10, 1)}, /* stored */
	    {SZ_GEN_ESCAPE_1PCT, 121, window_params(12, 1)},
	};
	uint64_t seed = 1234 + W;
	const int per_base = g_quick ? 60 : k_sanitized ? 150 : 400;
	for (const base &b : bases) {
		const std::vector<uint16_t> in = gen(b.g, 42, b.n);
		const std::vector<uint8_t> frame = oracle_compress(in, b.p);
		for (int k = 0; k < per_base; k++) {
			std::vector<uint8_t> m = frame;
			const uint64_t r = sz_test_rand(&seed);
			const size_t at = (size_t)(r % m.size());
			switch (k % 4) {
			case 0:
				m[at] ^= (uint8_t)(1u << ((r >> 32) % 8));
				break;
			case 1:
				m[at] = (uint8_t)(r >> 40);
				break;
			case 2: /* body only, so the header checks pass and the body is exercised */
				m[64 + (r >> 8) % (m.size() - 64)] ^=
				    (uint8_t)(1u << ((r >> 32) % 8));
				break;
			default:
				m.resize(at);
				break;
			}
			const size_t cap = b.n + (size_t)(r >> 50) % 3;
			const dec_result want = oracle_decompress(m.data(), m.size(), cap);
			const dec_result got = sim_decompress<W>(m.data(), m.size(), cap);
			CHECK(got.status == want.status,
			      "mutation %d of n=%zu: status %d, oracle %d", k, b.n, got.status,
			      want.status);
			if (want.status == SPLITZIP_OK)
				CHECK(got.out == want.out, "mutation %d: output differs", k);
		}
	}
}

/* ==================================================================== */
/*                      Entropy frames (mode 2)                         */
/* ==================================================================== */

static params ent_params(unsigned log2, unsigned flags)
{
	params p;
	p.log2 = log2;
	p.flags = flags;
	p.encoding = SPLITZIP_ENCODING_ENTROPY;
	return p;
}

static params ent_fixed(unsigned log2, unsigned flags, const splitzip_entropy_table &t)
{
	params p = ent_params(log2, flags);
	p.table_fixed = true;
	p.table = t;
	return p;
}

/* Fixed tables: one exponent (and ESC), every exponent, a KV-like code with long codes. */
static splitzip_entropy_table table_one(uint8_t e)
{
	splitzip_entropy_table t;
	memset(&t, 0, sizeof t);
	t.lengths[e] = 1;
	t.escape_length = 1;
	return t;
}
static splitzip_entropy_table table_all()
{
	uint64_t hist[256];
	for (unsigned e = 0; e < 256; e++)
		hist[e] = 1 + (e * 7919u) % 1000u;
	splitzip_entropy_table t;
	splitzip_entropy_table_from_histogram(hist, &t);
	return t;
}
static splitzip_entropy_table table_kv()
{
	const std::vector<uint16_t> kv = gen(SZ_GEN_KV_SKEWED, 99, 50000);
	splitzip_entropy_table t;
	splitzip_entropy_calibrate(kv.data(), kv.size(), &t);
	return t;
}

static bool is_entropy(const std::vector<uint8_t> &f)
{
	return f.size() >= SPLITZIP_FRAME_HEADER_SIZE && f[SZ_H_MODE] == SPLITZIP_MODE_ENTROPY;
}

/* The oracle's frame of 'in' decoded by the kernels: status OK and the input back. Returns
 * whether the frame is an entropy frame. */
template <int W>
static bool ent_decode_case(const std::vector<uint16_t> &in, const params &p, const char *what,
                            const schedule &s = k_default_sched)
{
	const std::vector<uint8_t> ref = oracle_compress(in, p);
	const dec_result d = sim_decompress<W>(ref.data(), ref.size(), in.size(), s);
	CHECK(d.status == SPLITZIP_OK && d.out == in,
	      "%s n=%zu L=%u flags=%u mode=%d: status %d, output %s", what, in.size(), p.log2,
	      p.flags, ref.size() > 6 ? ref[SZ_H_MODE] : -1, d.status,
	      d.out == in ? "equal" : "differs");
	return is_entropy(ref);
}

/* Decode of entropy frames from every generator, size and table kind. */
template <int W> static void test_entropy_decode()
{
	const splitzip_entropy_table tabs[] = {table_one(120), table_one(0), table_all(),
	                                       table_kv()};
	const size_t sizes[] = {1, 31, 33, 300, 1000, 1031, 5000, 16484, 40000};
	int n_ent = 0, n_cases = 0;
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		for (size_t n : sizes) {
			if (g_quick && n > 5000)
				continue;
			const std::vector<uint16_t> in = gen(g, 1000 + n, n);
			for (int t = -1; t < 4; t++) {
				const unsigned L = (n + (unsigned)t) % 3 == 0 ? 10 : 14;
				const unsigned flags = (n + (unsigned)t) % 2;
				const params p =
				    t < 0 ? ent_params(L, flags) : ent_fixed(L, flags, tabs[t]);
				n_ent += ent_decode_case<W>(in, p, sz_test_gen_name(g));
				n_cases++;
			}
		}
	}
	CHECK(n_ent >= n_cases / 8, "only %d of %d frames are entropy frames", n_ent, n_cases);
	if (!g_quick)
		printf("  W=%d: %d of %d frames are entropy frames\n", W, n_ent, n_cases);
	/* Other schedules, a frame of many chunks and one of a partial last chunk. */
	for (const schedule &sc : k_other_scheds) {
		const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 5, 9 * 1024 + 77);
		CHECK(ent_decode_case<W>(in, ent_params(10, 1), "schedule", sc), "not entropy");
		CHECK(ent_decode_case<W>(in, ent_fixed(10, 1, table_kv()), "schedule", sc),
		      "not entropy");
	}
}

/* The bundled real KV with its own table, at two chunk sizes, and K's table on V. */
template <int W> static void test_entropy_real_kv()
{
	std::vector<uint16_t> kvs[2];
	const char *which[] = {"K", "V"};
	for (int i = 0; i < 2; i++) {
		size_t n = 0;
		uint16_t *kv = sz_test_load_kv(which[i], &n);
		CHECK(kv != nullptr, "real KV sample %s missing", which[i]);
		if (!kv)
			return;
		if (g_quick || k_sanitized)
			n = n < 100000 ? n : 100000;
		kvs[i].assign(kv, kv + n);
		free(kv);
	}
	splitzip_entropy_table tk;
	splitzip_entropy_calibrate(kvs[0].data(), kvs[0].size(), &tk);
	for (int i = 0; i < 2; i++) {
		CHECK(ent_decode_case<W>(kvs[i], ent_params(14, SPLITZIP_FLAG_CONTENT_CHECKSUM),
		                         which[i]),
		      "%s: not an entropy frame", which[i]);
		CHECK(ent_decode_case<W>(kvs[i], ent_params(12, 0), which[i]), "not entropy");
		CHECK(ent_decode_case<W>(kvs[i], ent_fixed(14, 1, tk), which[i]), "not entropy");
	}
}

/* Encode of entropy frames (and the stored frames the mode rule picks instead) from every
 * generator, size and table kind: byte-identical to the oracle, decoded back by both. */
template <int W> static void test_entropy_encode()
{
	const splitzip_entropy_table tabs[] = {table_one(120), table_one(0), table_all(),
	                                       table_kv()};
	const size_t sizes[] = {0, 1, 31, 33, 300, 1000, 1031, 5000, 16484, 40000};
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		for (size_t n : sizes) {
			if (g_quick && n > 5000)
				continue;
			const std::vector<uint16_t> in = gen(g, 2000 + n, n);
			for (int t = -1; t < 4; t++) {
				const unsigned L = (n + (unsigned)t) % 3 == 0 ? 10 : 14;
				const unsigned flags = (n + (unsigned)t) % 2;
				const params p =
				    t < 0 ? ent_params(L, flags) : ent_fixed(L, flags, tabs[t]);
				roundtrip<W>(in, p, sz_test_gen_name(g));
			}
		}
	}
	/* real KV, its own table and K's table on V; other schedules */
	for (const char *w : {"K", "V"}) {
		size_t n = 0;
		uint16_t *kv = sz_test_load_kv(w, &n);
		CHECK(kv != nullptr, "real KV sample %s missing", w);
		if (!kv)
			continue;
		n = n < 200000 || g_quick || k_sanitized ? (n < 60000 ? n : 60000) : 200000;
		std::vector<uint16_t> in(kv, kv + n);
		free(kv);
		roundtrip<W>(in, ent_params(14, SPLITZIP_FLAG_CONTENT_CHECKSUM), w);
		roundtrip<W>(in, ent_fixed(12, 0, table_kv()), w);
	}
	for (const schedule &sc : k_other_scheds) {
		const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 6, 9 * 1024 + 77);
		roundtrip<W>(in, ent_params(10, 1), "schedule", sc);
		roundtrip<W>(in, ent_fixed(10, 1, table_kv()), "schedule", sc);
	}
	/* the auto encoding: stored, split4 or entropy, whichever the host picks (fixed and
	 * own codebooks and tables) */
	int n_auto = 0;
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++)
		for (size_t n : {(size_t)0, (size_t)1, (size_t)77, (size_t)400, (size_t)5000,
		                 (size_t)(g_quick ? 9000 : 40000)}) {
			const std::vector<uint16_t> in = gen(g, 3000 + n, n);
			for (int v = 0; v < 4; v++) {
				params p = v & 1 ? window_params(v & 2 ? 10 : 14, v & 1)
				                 : ent_params(v & 2 ? 10 : 14, 1);
				if (v & 2)
					p = ent_fixed(p.log2, p.flags, table_kv());
				if (v == 3)
					p.fixed = true,
					memcpy(p.codebook, window_params(10, 0).codebook, 16);
				p.encoding = SPLITZIP_ENCODING_AUTO;
				roundtrip<W>(in, p, "auto");
				n_auto |= 1 << oracle_compress(in, p)[SZ_H_MODE];
			}
		}
	CHECK(n_auto == 7, "auto: modes seen %#x, want stored, split4 and entropy", n_auto);
	/* capacities: exactly the frame, one byte less, below 64 + n */
	const std::vector<uint16_t> in = gen(SZ_GEN_KV_SKEWED, 8, 3000);
	const params p = ent_params(10, 1);
	const std::vector<uint8_t> ref = oracle_compress(in, p);
	enc_result r = sim_compress<W>(in, p, ref.size());
	CHECK(r.status == SPLITZIP_OK && r.frame == ref, "exact capacity: %d", r.status);
	r = sim_compress<W>(in, p, ref.size() - 1);
	CHECK(r.status == SPLITZIP_ERROR_DST_TOO_SMALL, "capacity - 1: %d", r.status);
	r = sim_compress<W>(in, p, 64 + in.size() - 1);
	CHECK(r.status == SPLITZIP_ERROR_DST_TOO_SMALL, "capacity 63 + n: %d", r.status);
}

/* Entropy frames at addresses that are not 16-byte aligned: the input 2 bytes in, the frame 1
 * byte in (encode), the frame 3 bytes in and the output 2 bytes in (decode). */
template <int W> static void test_entropy_alignment()
{
	for (int fixed = 0; fixed < 2; fixed++) {
		const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 31, 3000 + 17 * fixed);
		const params p = fixed ? ent_fixed(10, 1, table_kv()) : ent_params(10, 1);
		const std::vector<uint8_t> ref = oracle_compress(in, p);
		CHECK(is_entropy(ref), "not an entropy frame");
		const size_t cap = splitzip_compress_bound(in.size());
		buf src(in.size() * 2 + 2), dst(cap + 1);
		memcpy(src.p + 2, in.data(), in.size() * 2);
		buf ws(sz_gpu_workspace_size_for(1, in.size(), p.log2, p.encoding), 0x5A);
		size_t size = 0;
		int32_t st = -1;
		sz_gpu_enc a;
		fill_enc(a, p, in.size(), ws.p);
		a.frames.one.src = (const uint16_t *)(src.p + 2);
		a.frames.one.n = in.size();
		a.frames.one.dst = dst.p + 1;
		a.frames.one.cap = cap;
		a.frames.out_sizes = &size;
		a.frames.statuses = &st;
		simt_launcher lc{W, k_default_sched};
		sz_gpu_compress<W>(lc, a, 1, predict_from(p));
		CHECK(!lc.failed, "harness: %s", lc.first.msg);
		CHECK(st == SPLITZIP_OK && size == ref.size() &&
		          !memcmp(dst.p + 1, ref.data(), size),
		      "misaligned encode (fixed %d): status %d", fixed, st);
		buf fsrc(ref.size() + 3), out(in.size() * 2 + 2);
		memcpy(fsrc.p + 3, ref.data(), ref.size());
		buf wsd(sz_gpu_dec_workspace_size(1), 0x5A);
		size_t n = 0;
		sz_gpu_dec d;
		memset(&d, 0, sizeof d);
		d.frames.one.src = fsrc.p + 3;
		d.frames.one.size = ref.size();
		d.frames.one.dst = (uint16_t *)(out.p + 2);
		d.frames.one.cap = in.size();
		d.frames.out_elems = &n;
		d.frames.statuses = &st;
		d.ws = wsd.p;
		simt_launcher lc2{W, k_default_sched};
		sz_gpu_decompress<W>(lc2, d, 1, in.size());
		CHECK(!lc2.failed, "harness: %s", lc2.first.msg);
		CHECK(st == SPLITZIP_OK && n == in.size() &&
		          !memcmp(out.p + 2, in.data(), in.size() * 2),
		      "misaligned decode (fixed %d): status %d", fixed, st);
	}
}

/* Rewrites the header checksum of a damaged frame, so that the damage reaches the body checks. */
static void fix_header_checksum(std::vector<uint8_t> &m)
{
	if (m.size() < SPLITZIP_FRAME_HEADER_SIZE)
		return;
	const uint32_t h = (uint32_t)splitzip_hash_bytes_small(m.data(), SZ_H_HEADER_CHECKSUM);
	for (int i = 0; i < 4; i++)
		m[SZ_H_HEADER_CHECKSUM + i] = (uint8_t)(h >> (8 * i));
}

/* Damaged entropy frames: every section and header field, with and without a fixed header
 * checksum, truncations; exactly the scalar decoder's status, and its output when it accepts. */
template <int W> static void test_entropy_corrupt()
{
	struct base {
		int g;
		size_t n;
		params p;
	};
	const base bases[] = {
	    {SZ_GEN_KV_SKEWED, 5000, ent_params(10, 1)},
	    {SZ_GEN_ESCAPE_5PCT, 3001, ent_fixed(10, 0, table_kv())},
	    {SZ_GEN_ESCAPE_1PCT, 2100, ent_fixed(10, 1, table_kv())},
	    {SZ_GEN_KV_SKEWED, 700, ent_params(12, 1)},
	};
	uint64_t seed = 4321 + W;
	const int per_base = g_quick ? 80 : k_sanitized ? 200 : 600;
	int n_ok = 0, n_corrupt = 0;
	for (const base &b : bases) {
		const std::vector<uint16_t> in = gen(b.g, 42, b.n);
		const std::vector<uint8_t> frame = oracle_compress(in, b.p);
		CHECK(is_entropy(frame), "base n=%zu is not an entropy frame", b.n);
		splitzip_header h;
		splitzip_read_header(frame.data(), frame.size(), &h);
		splitzip_entropy_layout L;
		splitzip_entropy_layout_of(h.n_elems, h.chunk_log2, h.n_words, h.table_first,
		                           h.table_last, &L);
		/* where to aim: the header fields of mode 2, the code lengths, the chunk table,
		 * the words, anywhere */
		const uint64_t spans[][2] = {{SZ_H_ESCAPE_COUNT, SZ_H_ESCAPE_COUNT + 4},
		                             {0, SPLITZIP_FRAME_HEADER_SIZE},
		                             {24, 40},
		                             {L.lengths_off, L.chunk_table_off},
		                             {L.chunk_table_off, L.stream_off},
		                             {L.stream_off, L.frame_size},
		                             {0, L.frame_size}};
		for (int k = 0; k < per_base; k++) {
			std::vector<uint8_t> m = frame;
			const uint64_t r = sz_test_rand(&seed);
			const int span = k % 7;
			const uint64_t *sp = spans[span];
			const size_t at = (size_t)(sp[0] + (r >> 8) % (sp[1] - sp[0]));
			const int how = (int)((r >> 40) % 5);
			if (how == 0)
				m[at] ^= (uint8_t)(1u << ((r >> 32) % 8));
			else if (how == 1)
				m[at] = (uint8_t)(r >> 48);
			else if (how == 2 && at + 2 <= m.size())
				m[at] += (uint8_t)(1 + (r >> 56) %
				                           3); /* a count or length off by a bit */
			else if (how == 3)
				m.resize(at);
			else
				m[at] ^= 0x80;
			if ((r >> 60) % 4 != 0) /* mostly: reach the body checks */
				fix_header_checksum(m);
			const size_t cap = b.n + (size_t)(r >> 50) % 2;
			const dec_result want = oracle_decompress(m.data(), m.size(), cap);
			const dec_result got = sim_decompress<W>(m.data(), m.size(), cap);
			CHECK(got.status == want.status,
			      "mutation %d (span %d, how %d, byte %zu) of n=%zu: status %d, oracle "
			      "%d",
			      k, span, how, at, b.n, got.status, want.status);
			if (want.status == SPLITZIP_OK) {
				CHECK(got.out == want.out, "mutation %d: output differs", k);
				n_ok++;
			}
			n_corrupt += want.status == SPLITZIP_ERROR_CORRUPT_STREAM;
		}
	}
	CHECK(n_corrupt >= per_base, "only %d CORRUPT_STREAM cases", n_corrupt);
	(void)n_ok;
}

/*
 * Histogram k of the package-merge test: a few of each shape the code construction meets --
 * real-KV-like skew, a flat random subset, weights that grow like Fibonacci numbers (the
 * 11-bit limit decides), many ties, one or two exponents only, counts near 2^32.
 */
static void pm_histogram(uint32_t h[256], unsigned k, uint64_t *seed)
{
	memset(h, 0, 256 * sizeof(uint32_t));
	const uint64_t r = sz_test_rand(seed);
	const unsigned shape = k % 6, lo = (unsigned)(r % 200), n = 1 + (unsigned)((r >> 8) % 56);
	if (shape == 0) { /* skewed window around one exponent, a sparse tail */
		for (unsigned e = 0; e < 256; e++) {
			const unsigned d = e > lo + 20 ? e - lo - 20 : lo + 20 - e;
			h[e] = d < 16 ? (uint32_t)((1u << 24) >> d) +
			                    (uint32_t)(sz_test_rand(seed) % 997)
			       : sz_test_rand(seed) % 7 == 0 ? (uint32_t)(sz_test_rand(seed) % 5)
			                                     : 0;
		}
	} else if (shape == 1) { /* a random subset, uniform counts of random magnitude */
		const unsigned bits = 1 + (unsigned)((r >> 16) % 31);
		for (unsigned e = 0; e < 256; e++)
			if (sz_test_rand(seed) % 4 == 0)
				h[e] = (uint32_t)(sz_test_rand(seed) & ((1ull << bits) - 1));
	} else if (shape == 2) { /* Fibonacci weights: the unlimited code would be deeper */
		uint32_t a = 1, b = 1;
		for (unsigned j = 0; j < 40 && j < 256; j++) {
			h[(lo + 5 * j) & 255] = a;
			const uint32_t c = a + b;
			a = b;
			b = c > a ? c : a;
		}
	} else if (shape == 3) { /* ties: n exponents of one weight, n of another */
		const uint32_t w1 = 1 + (uint32_t)(r >> 40) % 1000, w2 = w1 * 2;
		for (unsigned j = 0; j < 2 * n; j++)
			h[(lo + 3 * j) & 255] = j < n ? w1 : w2;
	} else if (shape == 4) { /* one or two exponents */
		h[lo] = 1 + (uint32_t)(r >> 32);
		if (r & 1)
			h[(lo + 1 + (r >> 20) % 50) & 255] = 1 + (uint32_t)((r >> 24) % 3);
	} else { /* counts near 2^32 on many exponents */
		for (unsigned j = 0; j < 60 + n; j++)
			h[(lo + 7 * j) & 255] =
			    0xFFFFFFFFu - (uint32_t)(sz_test_rand(seed) % 1000000);
	}
	bool any = false;
	for (unsigned e = 0; e < 256; e++)
		any |= h[e] != 0;
	if (!any)
		h[lo] = 1;
}

/*
 * The GPU's package-merge (sz_k_ent_table, a table from the input) against the core's
 * (splitzip_entropy_table_from_histogram) on 3000 histograms in one launch (1000 at W = 64:
 * the kernel uses block-wide steps only, and the harness's cost is per thread): the same code
 * lengths for every exponent and the escape symbol, the same code-length range and section,
 * and the encoder table of the canonical codes of those lengths.
 */
template <int W> static void test_entropy_tables()
{
	const unsigned nf = W == 32 ? 3000 : 1000, L = 14;
	const uint64_t stride = sz_gpu_ent_ws_stride(1, L);
	std::vector<uint8_t> ws(stride * nf, 0);
	std::vector<std::vector<uint32_t>> hists(nf, std::vector<uint32_t>(256));
	uint64_t seed = 0x5EED + W;
	for (unsigned f = 0; f < nf; f++) {
		pm_histogram(hists[f].data(), f, &seed);
		memcpy(&ws[stride * f + SZ_GPU_ENT_WS_HIST], hists[f].data(), 1024);
	}
	sz_gpu_enc a;
	memset(&a, 0, sizeof a);
	a.ws = ws.data();
	a.max_elems = 1;
	a.chunk_log2 = L;
	a.encoding = SPLITZIP_ENCODING_ENTROPY;
	a.entropy.from_input = 1;
	a.run.ws_stride = stride;
	a.run.n_frames = nf;
	simt_launcher lc{W, k_default_sched};
	lc.launch("ent_table", sz_gpu_dim{1, nf}, SZ_GPU_THREADS, sz_k_ent_table<W>, a);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	unsigned bad = 0;
	for (unsigned f = 0; f < nf && !lc.failed; f++) {
		uint64_t h64[256];
		for (unsigned e = 0; e < 256; e++)
			h64[e] = hists[f][e];
		splitzip_entropy_table t;
		CHECK(splitzip_entropy_table_from_histogram(h64, &t) == SPLITZIP_OK, "core %u", f);
		const uint8_t *w = &ws[stride * f];
		const sz_gpu_ent_state *st = (const sz_gpu_ent_state *)w;
		unsigned first = 256, last = 0;
		for (unsigned e = 0; e < 256; e++)
			if (t.lengths[e]) {
				first = e < first ? e : first;
				last = e;
			}
		bool ok = st->first == first && st->last == last &&
		          st->esc_len == t.escape_length && st->lbytes == (last - first + 2) / 2;
		for (unsigned e = first; ok && e <= last; e++) {
			const unsigned k = e - first;
			ok = ((w[SZ_GPU_ENT_WS_LENS + k / 2] >> (4 * (k & 1))) & 15u) ==
			     t.lengths[e];
		}
		/* the encoder table of core/sz_entropy.h from the canonical codes of core's lengths
		 */
		uint8_t len[SPLITZIP_ENTROPY_SYMBOLS];
		uint16_t code[SPLITZIP_ENTROPY_SYMBOLS];
		splitzip_entropy_lengths_of(&t, len);
		splitzip_entropy_codes(len, code);
		const unsigned le = len[SPLITZIP_ENTROPY_ESC];
		for (unsigned e = 0; ok && e < 256; e++) {
			const uint32_t want =
			    len[e] ? splitzip_entropy_reverse(code[e], len[e]) |
			                 (uint32_t)len[e] << SPLITZIP_ENTROPY_ENC_LEN_SHIFT
			           : splitzip_entropy_reverse(code[SPLITZIP_ENTROPY_ESC], le) |
			                 (uint32_t)le << SPLITZIP_ENTROPY_ENC_LEN_SHIFT |
			                 SPLITZIP_ENTROPY_ENC_ESCAPE;
			uint32_t got;
			memcpy(&got, w + SZ_GPU_ENT_WS_SYM + 4 * e, 4);
			ok = got == want;
		}
		if (!ok && ++bad <= 5)
			CHECK(ok, "histogram %u (shape %u): the device's table differs from core's",
			      f, f % 6);
	}
	CHECK(bad == 0, "%u of %u tables differ", bad, nf);
}

/* A batch of entropy frames (one block per frame: sz_k_decode_pages), with split4 and stored
 * frames among them, one damaged and one cut short. */
template <int W> static void test_entropy_batch()
{
	const size_t nf = 9;
	std::vector<std::vector<uint16_t>> in(nf);
	std::vector<std::vector<uint8_t>> fr(nf);
	std::vector<buf *> fsrc(nf), fdst(nf);
	std::vector<const void *> e_srcs(nf);
	std::vector<size_t> e_sizes(nf), e_caps(nf), e_n(nf, 999);
	std::vector<uint16_t *> e_dsts(nf);
	std::vector<int32_t> e_status(nf, -1);
	size_t max_elems = 0;
	for (size_t f = 0; f < nf; f++) {
		const size_t n = 700 + 1500 * f;
		in[f] = gen((int)(f % 3), f, n);
		params p = f % 4 == 3 ? params() : ent_params(10, (unsigned)f % 2);
		if (f % 4 == 2)
			p = ent_fixed(10, 1, table_kv());
		fr[f] = oracle_compress(in[f], p);
		if (f == 1)
			fr[f][fr[f].size() - 20] ^= 4;
		const size_t sz = f == 5 ? fr[f].size() - 16 : fr[f].size();
		fsrc[f] = new buf(fr[f].data(), sz);
		e_srcs[f] = fsrc[f]->p;
		e_sizes[f] = sz;
		e_caps[f] = n;
		fdst[f] = new buf(n * 2);
		e_dsts[f] = (uint16_t *)fdst[f]->p;
		max_elems = n > max_elems ? n : max_elems;
	}
	for (int variant = 0; variant < 2; variant++) {
		buf ws(sz_gpu_dec_workspace_size(nf), 0x5A);
		sz_gpu_dec d;
		memset(&d, 0, sizeof d);
		d.frames.srcs = e_srcs.data();
		d.frames.src_sizes = e_sizes.data();
		d.frames.dsts = e_dsts.data();
		d.frames.dst_caps = e_caps.data();
		d.frames.out_elems = e_n.data();
		d.frames.statuses = e_status.data();
		d.ws = ws.p;
		/* variant 0: a device of 6 blocks (pages); variant 1: a large one (per frame) */
		schedule sc = variant ? k_other_scheds[2] : k_default_sched;
		simt_launcher lc{W, sc};
		sz_gpu_decompress<W>(lc, d, nf, max_elems);
		CHECK(!lc.failed, "harness: %s", lc.first.msg);
		for (size_t f = 0; f < nf; f++) {
			dec_result o = oracle_decompress(fsrc[f]->p, e_sizes[f], e_caps[f]);
			CHECK(e_status[f] == o.status, "variant %d frame %zu: %d, oracle %d",
			      variant, f, e_status[f], o.status);
			if (o.status == SPLITZIP_OK) {
				const uint16_t *got = (const uint16_t *)fdst[f]->p;
				CHECK(e_n[f] == in[f].size() &&
				          std::vector<uint16_t>(got, got + e_n[f]) == in[f],
				      "variant %d frame %zu output", variant, f);
			}
		}
	}
	for (size_t f = 0; f < nf; f++) {
		delete fsrc[f];
		delete fdst[f];
	}
	/* The same inputs encoded as one batch (own tables, then a calibrated one), with a frame
	 * over max_elems and one whose capacity is too small. */
	for (int fixed = 0; fixed < 3; fixed++) {
		params p = fixed ? ent_fixed(10, 1, table_kv()) : ent_params(10, 1);
		if (fixed ==
		    2) /* the auto encoding: some frames split4, some entropy, some stored */
			p.encoding = SPLITZIP_ENCODING_AUTO;
		std::vector<buf *> srcs(nf), dsts(nf);
		std::vector<const uint16_t *> d_srcs(nf);
		std::vector<void *> d_dsts(nf);
		std::vector<size_t> d_n(nf), d_caps(nf), d_sizes(nf, 999);
		std::vector<int32_t> d_status(nf, -1);
		for (size_t f = 0; f < nf; f++) {
			srcs[f] = new buf(in[f].data(), in[f].size() * 2);
			d_srcs[f] = (const uint16_t *)srcs[f]->p;
			d_n[f] = in[f].size();
			d_caps[f] = splitzip_compress_bound(in[f].size());
			dsts[f] = new buf(d_caps[f]);
			d_dsts[f] = dsts[f]->p;
		}
		d_n[3] = max_elems + 1;
		d_caps[4] = 64 + in[4].size() - 1;
		buf ws(sz_gpu_workspace_size_for(nf, max_elems, p.log2, p.encoding), 0x5A);
		sz_gpu_enc a;
		fill_enc(a, p, max_elems, ws.p);
		a.frames.srcs = d_srcs.data();
		a.frames.n_elems = d_n.data();
		a.frames.dsts = d_dsts.data();
		a.frames.dst_caps = d_caps.data();
		a.frames.out_sizes = d_sizes.data();
		a.frames.statuses = d_status.data();
		simt_launcher lc{W, fixed == 1 ? k_other_scheds[1] : k_default_sched};
		sz_gpu_compress<W>(lc, a, nf, predict_from(p));
		CHECK(!lc.failed, "harness: %s", lc.first.msg);
		for (size_t f = 0; f < nf; f++) {
			if (f == 3 || f == 4) {
				CHECK(d_status[f] == (f == 3 ? SPLITZIP_ERROR_INVALID_ARGUMENT
				                             : SPLITZIP_ERROR_DST_TOO_SMALL),
				      "batch encode frame %zu: status %d", f, d_status[f]);
				continue;
			}
			const std::vector<uint8_t> ref = oracle_compress(in[f], p);
			std::vector<uint8_t> got(dsts[f]->p, dsts[f]->p + d_sizes[f]);
			CHECK(d_status[f] == SPLITZIP_OK && got == ref,
			      "batch encode (fixed %d) frame %zu: status %d, differs at %zu", fixed,
			      f, d_status[f], first_diff(got, ref));
		}
		for (size_t f = 0; f < nf; f++) {
			delete srcs[f];
			delete dsts[f];
		}
	}
}

/* The host's choice of W (sz_gpu_kernel_width): the device's warp size when the module has
 * kernels for it, else none; and the chosen W runs the conformance case here. */
template <int W> static void test_kernel_width()
{
	CHECK(sz_gpu_kernel_width(W, 1) == W, "HIP module, device warp %d", W);
	CHECK(sz_gpu_kernel_width(W, 0) == (W == 32 ? 32 : 0), "CUDA module, device warp %d", W);
	const int odd[] = {0, 16, 48, 128, -1};
	for (int w : odd)
		CHECK(sz_gpu_kernel_width(w, 1) == 0, "device warp %d", w);
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 77, 5000);
	if (sz_gpu_kernel_width(W, 1) == W)
		roundtrip<W>(in, params(), "kernel width");
}

/* ==================================================================== */

static const sz_simt_test k_tests[] = {
    SZ_SIMT_TEST(test_encode_conformance), SZ_SIMT_TEST(test_real_kv),
    SZ_SIMT_TEST(test_escape_limit),       SZ_SIMT_TEST(test_capacity),
    SZ_SIMT_TEST(test_schedules),          SZ_SIMT_TEST(test_batch),
    SZ_SIMT_TEST(test_golden_vectors),     SZ_SIMT_TEST(test_corrupt_frames),
    SZ_SIMT_TEST(test_prediction),         SZ_SIMT_TEST(test_kernel_width),
    SZ_SIMT_TEST(test_entropy_decode),     SZ_SIMT_TEST(test_entropy_real_kv),
    SZ_SIMT_TEST(test_entropy_corrupt),    SZ_SIMT_TEST(test_entropy_batch),
    SZ_SIMT_TEST(test_entropy_encode),     SZ_SIMT_TEST(test_entropy_alignment),
    SZ_SIMT_TEST(test_entropy_tables),
};

int main(int argc, char **argv)
{
	return sz_simt_run_tests(k_tests, sizeof(k_tests) / sizeof(k_tests[0]), argc, argv);
}
