/*
 * test_gpu_pages_device.cu -- page streams (doc/FORMAT.md §12, version 2) on a device, through
 * the public API of libsplitzip (which loads the module): splitzip_pages_compress_async() and
 * splitzip_pages_compress_pool_async() must write the bytes of the host's
 * splitzip_pages_compress() (scalar backend) for every encoding, with tables from the pages
 * and fixed, checksums on and off; splitzip_pages_decompress_async() and
 * splitzip_pages_decompress_pool_async() must scatter them back bit for bit, and give the
 * host's status, page sizes and page states for damaged streams and wrong destinations;
 * everything captured in a graph (no allocation, no host synchronisation) replays; threads
 * sharing one device context with their own streams and workspaces get the host's streams;
 * host-side argument errors are refused before anything is enqueued; the host-memory page
 * calls on a device context give the same streams. Device buffers are allocated at their
 * exact size, so compute-sanitizer memcheck (and ASan under the SIMT harness) sees any access
 * outside them.
 *
 * Built by nvcc (and hipcc) from the same source (SZ_RT spellings), and as C++ over the SIMT
 * harness's runtime (test_gpu_pages_device_simt.cpp, ctest gpu.simt.pages_device): the module
 * there is libsplitzip_simt.so. Exit 0: passed; 1: failed; 77: no usable device (ctest
 * SKIP_RETURN_CODE), unless SPLITZIP_REQUIRE_GPU=1. --tiny: smaller sizes (the harness).
 */
#include "sz_gpu_runtime.h"

#include "splitzip.h"
extern "C" {
#include "pages_util.h"
}
#include "gpu_device_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

static bool tiny;

static const splitzip_backend_id k_dev =
    !strcmp(SZ_RT_MODULE_NAME, "cuda") ? SPLITZIP_BACKEND_CUDA : SPLITZIP_BACKEND_HIP;

struct params {
	splitzip_encoding enc = SPLITZIP_ENCODING_SPLIT4;
	unsigned log2 = 12;
	bool checksum = true;
	bool fixed = false; /* a fixed codebook and table, named 'id' */
	uint32_t id = 0;
};

static splitzip_ctx *make_ctx(splitzip_backend_id b, const params &p)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = b;
	q.chunk_log2 = p.log2;
	q.encoding = p.enc;
	if (p.fixed) {
		q.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (int k = 0; k < 16; k++)
			q.codebook.exponents[k] = (uint8_t)(112 + k);
		std::vector<uint16_t> cal(50000);
		sz_test_generate(SZ_GEN_KV_SKEWED, 99, cal.data(), cal.size());
		q.table_mode = SPLITZIP_CODEBOOK_FIXED;
		splitzip_entropy_calibrate(cal.data(), cal.size(), &q.table);
	}
	splitzip_ctx *ctx = nullptr;
	return splitzip_ctx_create(&q, &ctx) == SPLITZIP_OK ? ctx : nullptr;
}

static unsigned opts(const params &p)
{
	return p.checksum ? 0u : (unsigned)SPLITZIP_PAGES_NO_CHECKSUM;
}

static size_t max_bytes(const pu_pages &l)
{
	size_t m = 0;
	for (size_t i = 0; i < l.n; i++)
		m = l.bytes[i] > m ? l.bytes[i] : m;
	return m;
}

/* The pages of 'l' on the device (or empty pages of their sizes), and the device arrays of
 * their pointers and sizes. */
struct dpages {
	std::vector<dbuf *> bufs;
	dbuf *ptrs = nullptr, *sizes = nullptr;
	dpages(const pu_pages &l, bool copy, int fill = 0xEE)
	{
		std::vector<void *> h;
		for (size_t i = 0; i < l.n; i++) {
			bufs.push_back(copy ? new dbuf(l.p[i], l.bytes[i]) : new dbuf(l.bytes[i]));
			if (!copy)
				RT(SZ_RT(Memset)(bufs.back()->p, fill,
				                 l.bytes[i] ? l.bytes[i] : 1));
			h.push_back(bufs.back()->p);
		}
		ptrs = new dbuf(h.data(), l.n * sizeof(void *));
		sizes = new dbuf(l.bytes, l.n * sizeof(size_t));
	}
	~dpages()
	{
		for (dbuf *b : bufs)
			delete b;
		delete ptrs;
		delete sizes;
	}
	std::vector<uint8_t> page(size_t i) const
	{
		return to_host<uint8_t>(bufs[i]->p, bufs[i]->n);
	}
};

static std::vector<uint8_t> host_stream(const pu_pages &l, const params &p)
{
	splitzip_ctx *ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
	std::vector<uint8_t> s(splitzip_pages_bound(l.n, max_bytes(l)));
	size_t size = 0;
	CHECK(splitzip_pages_compress(ctx, p.id, opts(p), l.n, (const void *const *)l.p, l.bytes,
	                              s.data(), s.size(), &size) == SPLITZIP_OK,
	      "host pack");
	s.resize(size);
	splitzip_ctx_free(ctx);
	return s;
}

/* Results in device memory: the stream size, the page count, two statuses. */
struct results {
	dbuf mem{64};
	size_t *size() const
	{
		return mem.as<size_t>();
	}
	size_t *n() const
	{
		return mem.as<size_t>() + 1;
	}
	int32_t *st(int k) const
	{
		return reinterpret_cast<int32_t *>(mem.as<size_t>() + 2) + k;
	}
	std::vector<uint64_t> get() const
	{
		return to_host<uint64_t>(mem.p, 3);
	}
};

/* Pack on the device (optionally captured in a graph and replayed twice), compare with the
 * host, unpack into fresh pages on the same stream with EXACT. */
static void roundtrip(const pu_pages &l, const params &p, bool graph, const char *what)
{
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const std::vector<uint8_t> ref = host_stream(l, p);
	const size_t max = max_bytes(l), cap = splitzip_pages_bound(l.n, max);
	dpages src(l, true), dst(l, false);
	size_t wc = 0, wd = 0, wall = 0;
	CHECK(splitzip_pages_compress_workspace_size(ctx, l.n, max, &wc) == SPLITZIP_OK &&
	          splitzip_pages_decompress_workspace_size(ctx, l.n, max, &wd) == SPLITZIP_OK &&
	          splitzip_pages_workspace_size(ctx, l.n, max, &wall) == SPLITZIP_OK &&
	          wc <= wall && wd <= wall,
	      "%s: workspace sizes %zu %zu %zu", what, wc, wd, wall);
	dbuf wsc(wc), wsd(wd), stream(cap), d_sizes(l.n * sizeof(size_t)), d_states(l.n);
	results res;
	sz_rt_stream s;
	RT(SZ_RT(StreamCreate)(&s));
	sz_rt_graph g{};
	sz_rt_graph_exec ge{};
	if (graph)
		RT(sz_rt_capture_begin(s));
	CHECK(splitzip_pages_compress_async(ctx, p.id, opts(p), l.n,
	                                    src.ptrs->as<const void *const>(),
	                                    src.sizes->as<size_t>(), max, stream.p, cap, res.size(),
	                                    res.st(0), wsc.p, wc, (void *)s) == SPLITZIP_OK,
	      "%s: enqueue", what);
	/* The receiver on the same stream: it decodes what the sender wrote, sized by the bound
	 * (the stream's own size is in its header). */
	CHECK(splitzip_pages_decompress_async(ctx, stream.p, cap, l.n, dst.ptrs->as<void *const>(),
	                                      src.sizes->as<size_t>(), max, SPLITZIP_PAGES_EXACT,
	                                      d_sizes.as<size_t>(), d_states.as<uint8_t>(), res.n(),
	                                      res.st(1), wsd.p, wd, (void *)s) == SPLITZIP_OK,
	      "%s: enqueue decode", what);
	if (graph) {
		RT(SZ_RT(StreamEndCapture)(s, &g));
		RT(sz_rt_graph_instantiate(&ge, g));
		RT(SZ_RT(GraphLaunch)(ge, s));
		RT(SZ_RT(GraphLaunch)(ge, s));
	}
	RT(SZ_RT(StreamSynchronize)(s));
	const std::vector<uint64_t> r = res.get();
	const int32_t st = (int32_t)(r[2] & 0xFFFFFFFF), st2 = (int32_t)(r[2] >> 32);
	CHECK(st == SPLITZIP_OK && r[0] == ref.size() && to_host<uint8_t>(stream.p, r[0]) == ref,
	      "%s: status %d, size %zu vs %zu", what, st, (size_t)r[0], ref.size());
	CHECK(st2 == SPLITZIP_OK && r[1] == l.n, "%s: decode status %d", what, st2);
	const std::vector<size_t> sizes = to_host<size_t>(d_sizes.p, l.n);
	const std::vector<uint8_t> states = to_host<uint8_t>(d_states.p, l.n);
	for (size_t i = 0; i < l.n; i++)
		CHECK(sizes[i] == l.bytes[i] && states[i] == SPLITZIP_PAGE_WRITTEN &&
		          (!l.bytes[i] ||
		           dst.page(i) == std::vector<uint8_t>(l.p[i], l.p[i] + l.bytes[i])),
		      "%s: page %zu", what, i);
	if (graph) {
		RT(SZ_RT(GraphExecDestroy)(ge));
		RT(SZ_RT(GraphDestroy)(g));
	}
	RT(SZ_RT(StreamDestroy)(s));
	splitzip_ctx_free(ctx);
}

static const splitzip_encoding k_encs[] = {SPLITZIP_ENCODING_SPLIT4, SPLITZIP_ENCODING_ENTROPY,
                                           SPLITZIP_ENCODING_AUTO};

static void test_roundtrips(void)
{
	pu_pages kv = pu_make_kv(tiny ? 24 : 256, 2048, 1);
	pu_pages big = pu_make_kv(tiny ? 4 : 64, 32768, 2);
	for (splitzip_encoding e : k_encs) {
		params p;
		p.enc = e;
		roundtrip(kv, p, false, "kv 2 KiB");
		p.fixed = true;
		p.id = 0x1234;
		p.checksum = false;
		p.log2 = 10;
		roundtrip(big, p, e == SPLITZIP_ENCODING_AUTO, "kv 32 KiB fixed");
	}
	pu_free(&kv);
	pu_free(&big);
	static const size_t sizes[] = {0, 2, 64, 120, 4096, 8190, 30000, 2048, 0, 65538};
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g += tiny ? 3 : 1) {
		pu_pages l = pu_make(sizes, sizeof sizes / sizeof sizes[0], g, 3 + (uint64_t)g);
		params p;
		p.enc = k_encs[g % 3];
		p.checksum = g & 1;
		roundtrip(l, p, false, sz_test_gen_name(g));
		pu_free(&l);
	}
	std::vector<size_t> many(tiny ? 300 : 3000);
	for (size_t i = 0; i < many.size(); i++)
		many[i] = 256 + 2 * (i % 13) * 40;
	pu_pages l = pu_make(many.data(), many.size(), -2, 2);
	params p;
	p.enc = SPLITZIP_ENCODING_AUTO;
	roundtrip(l, p, false, "many pages");
	pu_free(&l);
	pu_pages none = pu_make(nullptr, 0, 0, 0);
	roundtrip(none, p, false, "no pages");
	pu_free(&none);
}

/* A paged KV cache: a pool of pages and a block table, both directions on the device. */
static void test_pool(void)
{
	const size_t P = tiny ? 40 : 400, page = 2048, n = tiny ? 16 : 160;
	pu_pages pool_pages = pu_make_kv(P, page, 7);
	std::vector<uint8_t> pool(P * page);
	for (size_t k = 0; k < P; k++)
		memcpy(pool.data() + k * page, pool_pages.p[k], page);
	std::vector<int64_t> idx(n);
	pu_pages l = pu_make_kv(n, page, 0); /* the same pages, as a list, for the host */
	for (size_t i = 0; i < n; i++) {
		idx[i] = (int64_t)((i * 37 + 5) % P);
		memcpy(l.p[i], pool.data() + (size_t)idx[i] * page, page);
	}
	for (splitzip_encoding e : k_encs) {
		params p;
		p.enc = e;
		splitzip_ctx *ctx = make_ctx(k_dev, p);
		const std::vector<uint8_t> ref = host_stream(l, p);
		size_t wsb = 0;
		CHECK(splitzip_pages_workspace_size(ctx, n, page, &wsb) == SPLITZIP_OK, "ws");
		dbuf d_pool(pool.data(), pool.size()), d_idx(idx.data(), n * 8), ws(wsb);
		const size_t cap = splitzip_pages_bound(n, page);
		dbuf stream(cap), out_pool(P * page), d_states(n);
		RT(SZ_RT(Memset)(out_pool.p, 0xEE, P * page));
		results res;
		CHECK(splitzip_pages_compress_pool_async(
		          ctx, 0, 0, n, d_pool.p, P * page, page, page, d_idx.as<int64_t>(),
		          stream.p, cap, res.size(), res.st(0), ws.p, wsb, nullptr) == SPLITZIP_OK,
		      "pool enqueue");
		CHECK(splitzip_pages_decompress_pool_async(
		          ctx, stream.p, cap, n, out_pool.p, P * page, page, page,
		          d_idx.as<int64_t>(), SPLITZIP_PAGES_EXACT, nullptr,
		          d_states.as<uint8_t>(), res.n(), res.st(1), ws.p, wsb,
		          nullptr) == SPLITZIP_OK,
		      "pool decode enqueue");
		RT(SZ_RT(DeviceSynchronize)());
		const std::vector<uint64_t> r = res.get();
		CHECK((int32_t)r[2] == SPLITZIP_OK && r[0] == ref.size() &&
		          to_host<uint8_t>(stream.p, r[0]) == ref,
		      "pool stream (encoding %d): status %d", (int)e, (int32_t)r[2]);
		CHECK((int32_t)(r[2] >> 32) == SPLITZIP_OK && r[1] == n, "pool decode %d",
		      (int32_t)(r[2] >> 32));
		const std::vector<uint8_t> back = to_host<uint8_t>(out_pool.p, P * page);
		std::vector<bool> used(P);
		for (size_t i = 0; i < n; i++) {
			used[(size_t)idx[i]] = true;
			CHECK(!memcmp(back.data() + (size_t)idx[i] * page, l.p[i], page),
			      "pool page %zu", i);
		}
		for (size_t k = 0; k < P; k++)
			if (!used[k])
				CHECK(back[k * page] == 0xEE && back[k * page + page - 1] == 0xEE,
				      "pool page %zu not in the table was written", k);
		/* An index outside the pool: the kernels' INVALID_ARGUMENT, nothing written. */
		std::vector<int64_t> bad = idx;
		bad[n / 2] = (int64_t)P;
		dbuf d_bad(bad.data(), n * 8);
		CHECK(splitzip_pages_compress_pool_async(
		          ctx, 0, 0, n, d_pool.p, P * page, page, page, d_bad.as<int64_t>(),
		          stream.p, cap, res.size(), res.st(0), ws.p, wsb, nullptr) == SPLITZIP_OK,
		      "bad index enqueue");
		RT(SZ_RT(DeviceSynchronize)());
		CHECK((int32_t)res.get()[2] == SPLITZIP_ERROR_INVALID_ARGUMENT, "bad index: %d",
		      (int32_t)res.get()[2]);
		splitzip_ctx_free(ctx);
	}
	pu_free(&l);
	pu_free(&pool_pages);
}

/* Damaged streams and wrong destinations: the host's status, sizes and states; UNTOUCHED
 * pages keep their bytes. */
static void test_hostile(void)
{
	static const size_t sizes[] = {8192, 2000, 0, 4098, 6000};
	pu_pages l = pu_make(sizes, 5, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l.p[1], 1000); /* a raw page */
	params p;
	p.enc = SPLITZIP_ENCODING_AUTO;
	const std::vector<uint8_t> base = host_stream(l, p);
	splitzip_ctx *dev = make_ctx(k_dev, p), *host = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
	const size_t max = max_bytes(l);
	size_t wsb = 0;
	splitzip_pages_workspace_size(dev, l.n, max, &wsb);
	dbuf ws(wsb), d_sizes(l.n * sizeof(size_t)), d_states(l.n);
	results res;
	uint64_t seed = 7;
	const int rounds = tiny ? 60 : 400;
	for (int k = 0; k < rounds; k++) {
		std::vector<uint8_t> s = base;
		const uint64_t r = sz_test_rand(&seed);
		if (k % 4 == 0) {
			s[r % (64 + 4 * l.n)] = (uint8_t)(r >> 20);
			pu_reseal(s.data(), s.size());
		} else if (k % 4 == 1) {
			s[r % s.size()] ^= (uint8_t)(1u << ((r >> 32) % 8));
		} else if (k % 4 == 2) {
			s.resize((size_t)(r % s.size()));
		} else {
			s[PG_RAWSUM] ^= 1;
			pu_reseal(s.data(), s.size());
		}
		const unsigned o = k % 3 == 0 ? SPLITZIP_PAGES_EXACT : 0u;
		std::vector<size_t> caps(l.bytes, l.bytes + l.n);
		if (k % 5 == 4)
			caps[(r >> 40) % l.n] += 2;
		std::vector<uint8_t> out(max * l.n, 0xEE);
		std::vector<void *> hp(l.n);
		for (size_t i = 0; i < l.n; i++)
			hp[i] = out.data() + i * max;
		size_t n_out = 99;
		std::vector<size_t> hs(l.n, 12345);
		std::vector<uint8_t> hst(l.n, 0xCC);
		const int32_t want =
		    splitzip_pages_decompress(host, s.data(), s.size(), l.n, hp.data(), caps.data(),
		                              o, hs.data(), hst.data(), &n_out);
		dbuf src(s.data(), s.size()), d_caps(caps.data(), l.n * sizeof(size_t));
		dpages dst(l, false);
		RT(SZ_RT(Memset)(d_states.p, 0xCC, l.n));
		CHECK(splitzip_pages_decompress_async(
		          dev, src.p, s.size(), l.n, dst.ptrs->as<void *const>(),
		          d_caps.as<size_t>(), max + 2, o, d_sizes.as<size_t>(),
		          d_states.as<uint8_t>(), res.n(), res.st(0), ws.p, wsb,
		          nullptr) == SPLITZIP_OK,
		      "enqueue");
		RT(SZ_RT(DeviceSynchronize)());
		const std::vector<uint64_t> r2 = res.get();
		CHECK((int32_t)r2[2] == want, "mutation %d: %s, host %s", k,
		      splitzip_status_name((splitzip_status)(int32_t)r2[2]),
		      splitzip_status_name((splitzip_status)want));
		CHECK(to_host<size_t>(d_sizes.p, l.n) == hs &&
		          to_host<uint8_t>(d_states.p, l.n) == hst,
		      "mutation %d: sizes or states", k);
		for (size_t i = 0; i < l.n; i++) {
			const std::vector<uint8_t> pg = dst.page(i);
			if (hst[i] == SPLITZIP_PAGE_WRITTEN)
				CHECK(!hs[i] || !memcmp(pg.data(), out.data() + i * max, hs[i]),
				      "mutation %d: page %zu", k, i);
			if (hst[i] != SPLITZIP_PAGE_WRITTEN && hst[i] != SPLITZIP_PAGE_DAMAGED)
				for (uint8_t b : pg)
					if (b != 0xEE) {
						CHECK(false, "mutation %d: page %zu written", k, i);
						break;
					}
		}
	}
	splitzip_ctx_free(dev);
	splitzip_ctx_free(host);
	pu_free(&l);
}

/* Host-side checks: nothing is enqueued, the call returns the error. */
static void test_arguments(void)
{
	params p;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	pu_pages l = pu_make_kv(4, 2048, 3);
	dpages src(l, true);
	size_t wsb = 0;
	CHECK(splitzip_pages_workspace_size(ctx, l.n, 2048, &wsb) == SPLITZIP_OK, "ws");
	CHECK(splitzip_pages_workspace_size(ctx, 2, SPLITZIP_PAGES_MAX_PAGE_BYTES + 2, &wsb) ==
	          SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "page above the limit");
	CHECK(splitzip_pages_workspace_size(nullptr, 2, 2048, &wsb) ==
	          SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "no context");
	splitzip_pages_workspace_size(ctx, l.n, 2048, &wsb);
	dbuf ws(wsb + 16), stream(splitzip_pages_bound(l.n, 2048));
	results res;
	const size_t cap = stream.n;
	const void *const *pp = src.ptrs->as<const void *const>();
	const size_t *pb = src.sizes->as<size_t>();
	CHECK(splitzip_pages_compress_async(ctx, 0, 0, l.n, pp, pb, 2048, stream.p, cap, res.size(),
	                                    res.st(0), ws.p, wsb - 1,
	                                    nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "small workspace");
	CHECK(splitzip_pages_compress_async(ctx, 0, 0, l.n, pp, pb, 2048, stream.p, cap, res.size(),
	                                    res.st(0), ws.as<char>() + 8, wsb,
	                                    nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "misaligned workspace");
	CHECK(splitzip_pages_compress_async(ctx, 0, 4, l.n, pp, pb, 2048, stream.p, cap, res.size(),
	                                    res.st(0), ws.p, wsb,
	                                    nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "unknown option");
	CHECK(splitzip_pages_compress_async(ctx, 9, 0, l.n, pp, pb, 2048, stream.p, cap, res.size(),
	                                    res.st(0), ws.p, wsb,
	                                    nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "table id without a fixed table");
	CHECK(splitzip_pages_compress_async(ctx, 0, 0, l.n, nullptr, pb, 2048, stream.p, cap,
	                                    res.size(), res.st(0), ws.p, wsb,
	                                    nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "no page array");
	CHECK(splitzip_pages_compress_async(ctx, 0, 0, l.n, pp, pb, 2048, stream.p, cap,
	                                    (size_t *)(res.mem.as<char>() + 4), res.st(0), ws.p,
	                                    wsb, nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "misaligned size slot");
	CHECK(splitzip_pages_decompress_async(ctx, stream.p, cap, l.n, src.ptrs->as<void *const>(),
	                                      pb, 2048, 1, nullptr, nullptr, res.n(), res.st(1),
	                                      ws.p, wsb,
	                                      nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "unknown decode option");
	CHECK(splitzip_pages_decompress_pool_async(ctx, stream.p, cap, 4, ws.p, wsb, 1024, 2048,
	                                           (const int64_t *)res.mem.p, 0, nullptr, nullptr,
	                                           res.n(), res.st(1), ws.p, wsb,
	                                           nullptr) == SPLITZIP_ERROR_INVALID_ARGUMENT,
	      "overlapping pool pages");
	/* A host context has no device calls. */
	splitzip_ctx *h = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
	CHECK(splitzip_pages_compress_async(h, 0, 0, l.n, pp, pb, 2048, stream.p, cap, res.size(),
	                                    res.st(0), ws.p, wsb,
	                                    nullptr) == SPLITZIP_ERROR_BACKEND_UNAVAILABLE,
	      "host context");
	splitzip_ctx_free(h);
	/* The host-memory calls on the device context: the host's stream, and back. */
	const std::vector<uint8_t> ref = host_stream(l, p);
	std::vector<uint8_t> s(cap);
	size_t size = 0;
	CHECK(splitzip_pages_compress(ctx, 0, 0, l.n, (const void *const *)l.p, l.bytes, s.data(),
	                              cap, &size) == SPLITZIP_OK &&
	          std::vector<uint8_t>(s.begin(), s.begin() + (long)size) == ref,
	      "host memory on a device context");
	std::vector<uint8_t> out(2048 * l.n);
	std::vector<void *> hp(l.n);
	for (size_t i = 0; i < l.n; i++)
		hp[i] = out.data() + 2048 * i;
	size_t n_out = 0;
	CHECK(splitzip_pages_decompress(ctx, s.data(), size, l.n, hp.data(), l.bytes,
	                                SPLITZIP_PAGES_EXACT, nullptr, nullptr,
	                                &n_out) == SPLITZIP_OK &&
	          n_out == l.n && !memcmp(out.data(), l.p[0], 2048),
	      "host memory decode on a device context");
	pu_free(&l);
	splitzip_ctx_free(ctx);
}

/* One device context shared by threads, each with its own stream, workspace and output. */
static void test_threads(void)
{
	params p;
	p.enc = SPLITZIP_ENCODING_AUTO;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const int T = tiny ? 2 : 4, rounds = tiny ? 2 : 8;
	std::vector<pu_pages> lists;
	std::vector<std::vector<uint8_t>> refs;
	for (int t = 0; t < T; t++) {
		lists.push_back(pu_make_kv(tiny ? 8 : 64, 2048, 10 + (uint64_t)t));
		refs.push_back(host_stream(lists.back(), p));
	}
	std::vector<int> bad(T, 0);
	std::vector<std::thread> th;
	for (int t = 0; t < T; t++)
		th.emplace_back([&, t]() {
			const pu_pages &l = lists[t];
			dpages src(l, true);
			size_t wsb = 0;
			splitzip_pages_workspace_size(ctx, l.n, 2048, &wsb);
			const size_t cap = splitzip_pages_bound(l.n, 2048);
			dbuf ws(wsb), stream(cap), res(16);
			sz_rt_stream s;
			RT(SZ_RT(StreamCreate)(&s));
			for (int k = 0; k < rounds; k++) {
				RT(SZ_RT(Memset)(stream.p, 0, cap));
				if (splitzip_pages_compress_async(
				        ctx, 0, 0, l.n, src.ptrs->as<const void *const>(),
				        src.sizes->as<size_t>(), 2048, stream.p, cap,
				        res.as<size_t>(), (int32_t *)(res.as<size_t>() + 1), ws.p,
				        wsb, (void *)s) != SPLITZIP_OK) {
					bad[t]++;
					continue;
				}
				RT(SZ_RT(StreamSynchronize)(s));
				const std::vector<uint64_t> r = to_host<uint64_t>(res.p, 2);
				bad[t] += (int32_t)r[1] != SPLITZIP_OK || r[0] != refs[t].size() ||
				          to_host<uint8_t>(stream.p, r[0]) != refs[t];
			}
			RT(SZ_RT(StreamDestroy)(s));
		});
	for (std::thread &x : th)
		x.join();
	for (int t = 0; t < T; t++) {
		CHECK(!bad[t], "thread %d: %d bad streams", t, bad[t]);
		pu_free(&lists[t]);
	}
	splitzip_ctx_free(ctx);
}

int main(int argc, char **argv)
{
	tiny = argc > 1 && !strcmp(argv[1], "--tiny");
	params p;
	splitzip_ctx *probe = make_ctx(k_dev, p);
	if (!probe) {
		const char *req = getenv("SPLITZIP_REQUIRE_GPU");
		printf("no usable %s device: %s\n", SZ_RT_MODULE_NAME,
		       req && !strcmp(req, "1") ? "FAILED (SPLITZIP_REQUIRE_GPU=1)" : "skipped");
		return req && !strcmp(req, "1") ? 1 : 77;
	}
	splitzip_ctx_free(probe);
	test_arguments();
	test_roundtrips();
	test_pool();
	test_hostile();
	test_threads();
	printf("%s pages: %s\n", SZ_RT_MODULE_NAME, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
