/*
 * test_gpu_pages_simt.cpp -- the GPU page-stream conformance suite, run on the CPU through the
 * SIMT harness: the kernels and launch sequences of backends/gpu/sz_gpu_pages.cuh (the ones
 * the CUDA and HIP modules run), at warp size 32 and 64, against the host page API
 * (api/sz_api_pages.c over the scalar backend). Streams must be byte-identical; every damaged
 * stream must get the host's status; nothing may be written outside the destination pages.
 *
 * Usage: test_gpu_pages_simt [--quick] [TEST...]   (--list prints the test names)
 */
#include "sz_simt_compat.h"

#include "sz_gpu_pages.cuh"
#include "sz_simt_testing.h"

extern "C" {
#include "pages_util.h"
}

#include <stdlib.h>
#include <string.h>

#include <vector>

#if defined(__SANITIZE_ADDRESS__) || defined(SZ_SIMT_SANITIZED)
static const bool k_sanitized = true;
#else
static const bool k_sanitized = false;
#endif

/*
 * A schedule: lane and block order, fill byte, and the device it pretends to be: 'wave' blocks
 * fit on it at once (the frame driver takes the batched one-block-per-frame kernels,
 * sz_k_encode_pages / sz_k_decode_pages, for batches of at least half a wave), 'resident' of
 * them run interleaved in the harness.
 */
struct schedule {
	sz_simt_lane_order lanes;
	sz_simt_block_order blocks;
	uint64_t seed;
	int fill;
	unsigned wave, resident;
};
/* Batches of 3 pages or more go through the batched kernels. */
static const schedule k_default_sched = {
    SZ_SIMT_LANES_FORWARD, SZ_SIMT_BLOCKS_INCREASING, 0, 0xA5, 6, 1};
/* Batches below 32 pages go through the per-frame kernels (several blocks per frame). */
static const schedule k_other_sched = {
    SZ_SIMT_LANES_SEEDED, SZ_SIMT_BLOCKS_SHUFFLED, 11, 0x00, 64, 3};

struct simt_launcher {
	int warp;
	schedule sched;
	bool failed = false;
	sz_simt_result first{};
	template <typename... P> unsigned resident(void (*)(P...))
	{
		return sched.wave;
	}
	template <typename... P, typename... A>
	void launch(const char *, sz_gpu_dim g, unsigned block, void (*k)(P...), A... args)
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
	uint32_t id = 0;
};

static splitzip_ctx *host_ctx(const params &p)
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
	splitzip_ctx *ctx = nullptr;
	if (splitzip_ctx_create(&q, &ctx) != SPLITZIP_OK) {
		fprintf(stderr, "cannot create the scalar context\n");
		exit(2);
	}
	return ctx;
}

static size_t max_bytes(const pu_pages &l)
{
	size_t m = 0;
	for (size_t i = 0; i < l.n; i++)
		m = l.bytes[i] > m ? l.bytes[i] : m;
	return m;
}

/* The host's stream of 'l' (empty vector and '*st' on failure). */
static std::vector<uint8_t> host_pack(const pu_pages &l, const params &p, size_t cap,
                                      splitzip_status *st)
{
	splitzip_ctx *ctx = host_ctx(p);
	std::vector<uint8_t> out(cap ? cap : 1);
	size_t size = 0;
	*st = splitzip_pages_compress(ctx, p.id, l.n, (const void *const *)l.p, l.bytes, out.data(),
	                              cap, &size);
	splitzip_ctx_free(ctx);
	out.resize(*st == SPLITZIP_OK ? size : 0);
	return out;
}

/* An exact-size heap copy, so that ASan sees any access past the end. */
struct hbuf {
	uint8_t *p;
	size_t n;
	explicit hbuf(size_t size, int fill = 0xEE) : p((uint8_t *)malloc(size ? size : 1)), n(size)
	{
		memset(p, fill, size ? size : 1);
	}
	hbuf(const void *src, size_t size) : hbuf(size)
	{
		if (size)
			memcpy(p, src, size);
	}
	~hbuf()
	{
		free(p);
	}
	hbuf(const hbuf &) = delete;
	hbuf &operator=(const hbuf &) = delete;
};

struct enc_out {
	int32_t status = -1;
	size_t size = 77;
	std::vector<uint8_t> stream;
};

/* The device sequence over copies of the pages ('max' bounds the sizes; 0: their maximum). */
template <int W>
static enc_out sim_pack(const pu_pages &l, const params &p, size_t cap, size_t max = 0,
                        const schedule &s = k_default_sched, bool copy = true)
{
	if (!max)
		max = max_bytes(l);
	std::vector<hbuf *> pages;
	std::vector<const void *> ptrs(l.n + 1);
	std::vector<size_t> bytes(l.bytes, l.bytes + l.n);
	for (size_t i = 0; i < l.n; i++) { /* a NULL page stays NULL; copy: exact-size copies */
		pages.push_back(l.p[i] && copy ? new hbuf(l.p[i], l.bytes[i]) : new hbuf(0));
		ptrs[i] = l.p[i] && l.bytes[i] && copy ? pages.back()->p : l.p[i];
	}
	hbuf dst(cap), ws(sz_gpu_pages_ws_size(l.n, max, p.log2), 0x5A);
	enc_out r;
	sz_gpu_pages_enc a;
	memset(&a, 0, sizeof a);
	a.codec.chunk_log2 = p.log2;
	a.codec.flags = p.flags;
	a.codec.split4.from_input = !p.fixed;
	memcpy(a.codec.split4.codebook, p.codebook, 16);
	a.n_pages = l.n;
	a.pages = ptrs.data();
	a.page_bytes = bytes.data();
	a.max_page_bytes = max;
	a.dst = dst.p;
	a.dst_cap = cap;
	a.out_size = &r.size;
	a.status = &r.status;
	a.ws = ws.p;
	a.fixed = p.fixed;
	a.codebook_id = p.id;
	simt_launcher lc{W, s};
	sz_gpu_pages_compress<W>(lc, a);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	if (r.status == SPLITZIP_OK)
		r.stream.assign(dst.p, dst.p + r.size);
	for (hbuf *b : pages)
		delete b;
	return r;
}

struct dec_out {
	int32_t status = -1;
	size_t n_pages = 99;
	std::vector<size_t> sizes;
	std::vector<std::vector<uint8_t>> pages;
};

/* The device decoder into exact-size pages of caps[i] bytes (filled with 0xEE first). */
template <int W>
static dec_out sim_unpack(const uint8_t *s, size_t size, const std::vector<size_t> &caps,
                          unsigned log2 = 12, const schedule &sc = k_default_sched,
                          size_t misalign = ~(size_t)0)
{
	size_t max = 0;
	for (size_t c : caps)
		max = c > max ? c : max;
	max &= ~(size_t)1;
	hbuf src(s, size), ws(sz_gpu_pages_ws_size(caps.size(), max, log2), 0x5A);
	std::vector<hbuf *> pages;
	std::vector<void *> ptrs(caps.size() + 1);
	for (size_t i = 0; i < caps.size(); i++) { /* page 'misalign' at an odd address */
		pages.push_back(new hbuf(caps[i] + (i == misalign)));
		ptrs[i] = pages.back()->p + (i == misalign);
	}
	dec_out r;
	r.sizes.assign(caps.size(), 12345);
	sz_gpu_pages_dec a;
	memset(&a, 0, sizeof a);
	a.src = src.p;
	a.src_size = size;
	a.n_pages = caps.size();
	a.pages = ptrs.data();
	a.page_caps = caps.data();
	a.max_page_bytes = max;
	a.page_sizes = r.sizes.data();
	a.n_pages_out = &r.n_pages;
	a.status = &r.status;
	a.ws = ws.p;
	a.chunk_log2 = log2;
	simt_launcher lc{W, sc};
	sz_gpu_pages_decompress<W>(lc, a);
	CHECK(!lc.failed, "harness: %s", lc.first.msg);
	for (size_t i = 0; i < caps.size(); i++) {
		r.pages.emplace_back(pages[i]->p + (i == misalign),
		                     pages[i]->p + (i == misalign) + caps[i]);
		delete pages[i];
	}
	return r;
}

/* The host decoder's status and pages for the same input. */
static dec_out host_unpack(const uint8_t *s, size_t size, const std::vector<size_t> &caps)
{
	params p;
	splitzip_ctx *ctx = host_ctx(p);
	hbuf src(s, size);
	std::vector<hbuf *> pages;
	std::vector<void *> ptrs(caps.size() + 1);
	for (size_t i = 0; i < caps.size(); i++) {
		pages.push_back(new hbuf(caps[i]));
		ptrs[i] = pages.back()->p;
	}
	dec_out r;
	r.sizes.assign(caps.size(), 0);
	r.status = splitzip_pages_decompress(ctx, src.p, size, caps.size(), ptrs.data(),
	                                     caps.data(), r.sizes.data(), &r.n_pages);
	for (size_t i = 0; i < caps.size(); i++) {
		r.pages.emplace_back(pages[i]->p, pages[i]->p + caps[i]);
		delete pages[i];
	}
	splitzip_ctx_free(ctx);
	return r;
}

/* memcmp that accepts NULL (an empty vector's data()) when there is nothing to compare. */
static bool same(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

static size_t first_diff(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b)
{
	size_t i = 0;
	while (i < a.size() && i < b.size() && a[i] == b[i])
		i++;
	return i;
}

/* Pack on both, compare bytes; unpack the stream on the device, compare the pages. */
template <int W>
static void roundtrip(const pu_pages &l, const params &p, const char *what,
                      const schedule &s = k_default_sched)
{
	const size_t cap = splitzip_pages_bound(l.n, max_bytes(l));
	splitzip_status hst;
	const std::vector<uint8_t> ref = host_pack(l, p, cap, &hst);
	CHECK(hst == SPLITZIP_OK, "%s: host status %d", what, hst);
	enc_out got = sim_pack<W>(l, p, cap, 0, s);
	CHECK(got.status == SPLITZIP_OK && got.stream == ref,
	      "%s (%zu pages, L=%u flags=%u fixed=%d): status %d, size %zu vs %zu, differs at %zu",
	      what, l.n, p.log2, p.flags, p.fixed, got.status, got.stream.size(), ref.size(),
	      first_diff(got.stream, ref));
	std::vector<size_t> caps(l.bytes, l.bytes + l.n);
	dec_out d = sim_unpack<W>(ref.data(), ref.size(), caps, p.log2, s);
	CHECK(d.status == SPLITZIP_OK && d.n_pages == l.n, "%s: decode status %d, %zu pages", what,
	      d.status, d.n_pages);
	for (size_t i = 0; i < l.n && d.status == SPLITZIP_OK; i++)
		CHECK(d.sizes[i] == l.bytes[i] && same(d.pages[i].data(), l.p[i], l.bytes[i]),
		      "%s: page %zu", what, i);
}

static params fixed_params(unsigned log2, unsigned flags, uint32_t id)
{
	params p;
	p.log2 = log2;
	p.flags = flags;
	p.fixed = true;
	p.id = id;
	for (int k = 0; k < 16; k++)
		p.codebook[k] = (uint8_t)(112 + k);
	return p;
}

/* ==================================================================== */
/*                                Tests                                 */
/* ==================================================================== */

/* KV pages (32 KiB, K and V alternating), codebook from the input and fixed, checksums. */
template <int W> static void test_pages_kv()
{
	pu_pages l = pu_make_kv(g_quick || k_sanitized ? 6 : 20, 32768, 1);
	params p;
	p.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	roundtrip<W>(l, p, "kv from input");
	roundtrip<W>(l, fixed_params(10, 0, 0xABCD1234u), "kv fixed");
	/* a device on which these few pages are no batch: the per-frame kernels */
	roundtrip<W>(l, p, "kv per-frame kernels", k_other_sched);
	pu_free(&l);
}

/* Every generator (raw pages among them), sizes from 0 to several chunks. */
template <int W> static void test_pages_mixed()
{
	static const size_t sizes[] = {0, 2, 64, 120, 128, 242, 4096, 8190, 30000, 2048, 0, 65538};
	const size_t n = sizeof sizes / sizeof sizes[0];
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		pu_pages l = pu_make(sizes, n, g, 3 + (uint64_t)g);
		params p;
		p.log2 = 10 + (unsigned)g % 7;
		p.flags = (unsigned)g & 1;
		roundtrip<W>(l, p, sz_test_gen_name(g));
		if (g % 3 == 0)
			roundtrip<W>(l, fixed_params(12, 1, (uint32_t)g), sz_test_gen_name(g));
		pu_free(&l);
	}
	pu_pages none = pu_make(nullptr, 0, 0, 0);
	params p;
	roundtrip<W>(none, p, "no pages");
	pu_free(&none);
}

/* More pages than a block has threads: the plan and parse blocks loop over tiles. */
template <int W> static void test_pages_many()
{
	const size_t n = g_quick || k_sanitized ? 300 : 700;
	std::vector<size_t> sizes(n);
	for (size_t i = 0; i < n; i++)
		sizes[i] = i % 17 == 5 ? 0 : 256 + 2 * (i % 9) * 31;
	pu_pages l = pu_make(sizes.data(), n, -2, 2);
	for (size_t i = 0; i < n; i += 23) /* some raw pages */
		sz_test_generate(SZ_GEN_RANDOM, i, (uint16_t *)l.p[i], l.bytes[i] / 2);
	params p;
	p.flags = 1;
	roundtrip<W>(l, p, "many");
	roundtrip<W>(l, fixed_params(10, 0, 5), "many", k_other_sched);
	pu_free(&l);
}

/* Capacity and argument statuses, as the host reports them. */
template <int W> static void test_pages_statuses()
{
	static const size_t sizes[] = {8192, 3000, 0, 4096};
	pu_pages l = pu_make(sizes, 4, -1, 5);
	params p;
	splitzip_status hst;
	const std::vector<uint8_t> ref = host_pack(l, p, 1 << 20, &hst);
	enc_out r = sim_pack<W>(l, p, ref.size());
	CHECK(r.status == SPLITZIP_OK && r.stream == ref, "exact capacity: %d", r.status);
	for (size_t cap : {ref.size() - 1, (size_t)200, (size_t)64, (size_t)0}) {
		r = sim_pack<W>(l, p, cap);
		CHECK(r.status == SPLITZIP_ERROR_DST_TOO_SMALL && r.size == 0, "cap %zu: %d", cap,
		      r.status);
	}
	r = sim_pack<W>(l, p, 1 << 16, 4096); /* a page above max_page_bytes */
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT && r.size == 0, "max: %d", r.status);
	l.bytes[1] = 2999; /* odd */
	r = sim_pack<W>(l, p, 1 << 16);
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "odd: %d", r.status);
	l.bytes[1] = 3000;
	uint8_t *keep = l.p[3];
	l.p[3] = nullptr; /* NULL with a size */
	r = sim_pack<W>(l, p, 1 << 16);
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "NULL page: %d", r.status);
	l.p[3] = keep;
	/* A misaligned page: copied to an odd address, as the host API rejects it too. */
	std::vector<uint8_t> odd(4096 + 1);
	memcpy(odd.data() + 1, l.p[3], 4096);
	l.p[3] = odd.data() + 1;
	r = sim_pack<W>(l, p, 1 << 16, 0, k_default_sched, false);
	CHECK(r.status == SPLITZIP_ERROR_INVALID_ARGUMENT, "misaligned page: %d", r.status);
	l.p[3] = keep;
	pu_free(&l);
}

/* Destinations: more and larger are fine, fewer or smaller are DST_TOO_SMALL. */
template <int W> static void test_pages_destinations()
{
	static const size_t sizes[] = {4096, 8192, 100, 0, 4096};
	pu_pages l = pu_make(sizes, 5, -1, 9);
	params p;
	splitzip_status hst;
	const std::vector<uint8_t> s = host_pack(l, p, 1 << 16, &hst);
	const std::vector<std::vector<size_t>> cases = {
	    {5000, 9000, 100, 64, 4096, 10, 10},
	    {4096, 8192, 100, 0},
	    {4096, 8190, 100, 0, 4096},
	    {4096, 8192, 100, 0, 4096},
	};
	for (const std::vector<size_t> &caps : cases) {
		const dec_out want = host_unpack(s.data(), s.size(), caps);
		const dec_out got = sim_unpack<W>(s.data(), s.size(), caps);
		CHECK(got.status == want.status && got.n_pages == want.n_pages &&
		          got.sizes == want.sizes,
		      "%zu destinations: %d (host %d)", caps.size(), got.status, want.status);
		for (size_t i = 0; i < caps.size() && want.status == SPLITZIP_OK; i++)
			CHECK(same(got.pages[i].data(), want.pages[i].data(), want.sizes[i]),
			      "page %zu", i);
		if (want.status != SPLITZIP_OK) /* nothing written anywhere */
			for (size_t i = 0; i < caps.size(); i++)
				for (uint8_t b : got.pages[i])
					CHECK(b == 0xEE, "page %zu written on failure", i);
	}
	/* A misaligned destination: INVALID_ARGUMENT before anything, as on the host. */
	const std::vector<size_t> caps(l.bytes, l.bytes + l.n);
	const dec_out mis = sim_unpack<W>(s.data(), s.size(), caps, 12, k_default_sched, 1);
	CHECK(mis.status == SPLITZIP_ERROR_INVALID_ARGUMENT && mis.n_pages == 0,
	      "misaligned destination: %d", mis.status);
	pu_free(&l);
}

/* Damage of every kind, resealed or not: the device reports the host's status, and writes
 * nothing unless the structure and the destinations are valid. */
template <int W> static void test_pages_hostile()
{
	static const size_t sizes[] = {8192, 2000, 0, 4098};
	pu_pages l = pu_make(sizes, 4, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l.p[1], 1000);
	params p = fixed_params(12, SPLITZIP_FLAG_CONTENT_CHECKSUM, 77);
	splitzip_codebook cb;
	splitzip_calibrate((const uint16_t *)l.p[0], 4096, &cb);
	memcpy(p.codebook, cb.exponents, 16);
	splitzip_status hst;
	const std::vector<uint8_t> base = host_pack(l, p, 1 << 16, &hst);
	const std::vector<size_t> caps(l.bytes, l.bytes + l.n);
	const size_t head = 64 + 32 * l.n;
	uint64_t seed = 99 + W;
	const int rounds = g_quick ? 60 : k_sanitized ? 150 : 600;
	int ok = 0;
	for (int k = 0; k < rounds; k++) {
		std::vector<uint8_t> s = base;
		const uint64_t r = sz_test_rand(&seed);
		switch (k % 6) {
		case 0:
			s[r % head] = (uint8_t)(r >> 20);
			pu_reseal(s.data(), s.size());
			break;
		case 1:
			pu_put(s.data() + 64 + 8 * ((r >> 8) % (4 * l.n)),
			       (uint64_t)((r >> 16) % 20000) - 2 * (r & 1), 8);
			pu_reseal(s.data(), s.size());
			break;
		case 2:
			s[r % s.size()] ^= (uint8_t)(1u << ((r >> 32) % 8));
			break;
		case 3:
			s.resize((size_t)(r % s.size()));
			break;
		case 4:
			s[head + (r >> 8) % (s.size() - head)] = (uint8_t)r;
			break;
		default: /* within a frame's header, then resealed at the stream level */
			s[256 + (r >> 8) % 64] ^= (uint8_t)(1u << (r % 8));
			break;
		}
		std::vector<size_t> c = caps;
		const size_t victim = (size_t)((r >> 40) % c.size());
		if (k % 7 == 6 && c[victim] >= 2)
			c[victim] -= 2; /* a smaller destination */
		const dec_out want = host_unpack(s.data(), s.size(), c);
		const dec_out got = sim_unpack<W>(s.data(), s.size(), c);
		CHECK(got.status == want.status, "mutation %d: %s, host %s", k,
		      splitzip_status_name((splitzip_status)got.status),
		      splitzip_status_name((splitzip_status)want.status));
		CHECK(got.n_pages == want.n_pages && got.sizes == want.sizes, "mutation %d: sizes",
		      k);
		if (want.status == SPLITZIP_OK) {
			ok++;
			for (size_t i = 0; i < c.size(); i++)
				CHECK(
				    same(got.pages[i].data(), want.pages[i].data(), want.sizes[i]),
				    "mutation %d: page %zu", k, i);
		}
		if (got.status != SPLITZIP_OK && got.status != SPLITZIP_ERROR_CORRUPT_STREAM &&
		    got.status != SPLITZIP_ERROR_CONTENT_CHECKSUM)
			for (size_t i = 0; i < c.size(); i++) /* rejected before any write */
				for (uint8_t b : got.pages[i])
					CHECK(b == 0xEE, "mutation %d: page %zu written", k, i);
	}
	CHECK(ok < rounds, "no mutation was rejected");
	pu_free(&l);
}

/* ==================================================================== */

static const sz_simt_test k_tests[] = {
    SZ_SIMT_TEST(test_pages_kv),           SZ_SIMT_TEST(test_pages_mixed),
    SZ_SIMT_TEST(test_pages_many),         SZ_SIMT_TEST(test_pages_statuses),
    SZ_SIMT_TEST(test_pages_destinations), SZ_SIMT_TEST(test_pages_hostile),
};

int main(int argc, char **argv)
{
	return sz_simt_run_tests(k_tests, sizeof(k_tests) / sizeof(k_tests[0]), argc, argv);
}
