/*
 * test_gpu_pages_device.cu -- the page-stream calls on a real device, through the public API
 * of libsplitzip (which loads the module): splitzip_pages_compress_async() must write the
 * bytes of the host's splitzip_pages_compress() (scalar backend) for real KV pages, mixed
 * pages and raw pages; splitzip_pages_decompress_async() must scatter them back bit for bit
 * and give the host's status for damaged streams and small destinations; both must work when
 * captured in a graph (no allocation, no host synchronisation). Device buffers are allocated
 * at their exact size, so compute-sanitizer memcheck sees any access outside them.
 *
 * Built by nvcc (and by hipcc from the same source, SZ_RT spellings). Exit 0: passed; 1:
 * failed; 77: no usable device (ctest SKIP_RETURN_CODE), unless SPLITZIP_REQUIRE_GPU=1.
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

#include <vector>

static const splitzip_backend_id k_dev =
    !strcmp(SZ_RT_MODULE_NAME, "cuda") ? SPLITZIP_BACKEND_CUDA : SPLITZIP_BACKEND_HIP;

static splitzip_ctx *make_ctx(splitzip_backend_id id, unsigned flags, const uint8_t *cb)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = id;
	q.flags = flags;
	if (cb) {
		q.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		memcpy(q.codebook.exponents, cb, 16);
	}
	splitzip_ctx *ctx = nullptr;
	return splitzip_ctx_create(&q, &ctx) == SPLITZIP_OK ? ctx : nullptr;
}

static size_t max_bytes(const pu_pages &l)
{
	size_t m = 0;
	for (size_t i = 0; i < l.n; i++)
		m = l.bytes[i] > m ? l.bytes[i] : m;
	return m;
}

/* The pages of 'l' on the device, and the device arrays of their pointers and sizes. */
struct dpages {
	std::vector<dbuf *> bufs;
	dbuf *ptrs = nullptr, *sizes = nullptr;
	dpages(const pu_pages &l, bool copy)
	{
		std::vector<void *> h;
		for (size_t i = 0; i < l.n; i++) {
			bufs.push_back(copy ? new dbuf(l.p[i], l.bytes[i]) : new dbuf(l.bytes[i]));
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
};

static std::vector<uint8_t> host_stream(const pu_pages &l, unsigned flags, const uint8_t *cb,
                                        uint32_t id)
{
	splitzip_ctx *ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, flags, cb);
	std::vector<uint8_t> s(splitzip_pages_bound(l.n, max_bytes(l)));
	size_t size = 0;
	CHECK(splitzip_pages_compress(ctx, id, l.n, (const void *const *)l.p, l.bytes, s.data(),
	                              s.size(), &size) == SPLITZIP_OK,
	      "host pack");
	s.resize(size);
	splitzip_ctx_free(ctx);
	return s;
}

/* Pack on the device (optionally captured in a graph), compare with the host, unpack. */
static void roundtrip(const pu_pages &l, unsigned flags, const uint8_t *cb, uint32_t id, bool graph,
                      const char *what)
{
	splitzip_ctx *ctx = make_ctx(k_dev, flags, cb);
	const std::vector<uint8_t> ref = host_stream(l, flags, cb, id);
	const size_t max = max_bytes(l), cap = splitzip_pages_bound(l.n, max);
	dpages src(l, true), dst(l, false);
	size_t wsb = 0;
	CHECK(splitzip_pages_workspace_size(ctx, l.n, max, &wsb) == SPLITZIP_OK, "ws");
	dbuf ws(wsb), stream(cap), res(64);
	size_t *d_size = res.as<size_t>(), *d_n = d_size + 1;
	int32_t *d_st = reinterpret_cast<int32_t *>(d_size + 2), *d_st2 = d_st + 1;
	dbuf d_sizes(l.n * sizeof(size_t));
	sz_rt_stream s;
	RT(SZ_RT(StreamCreate)(&s));
	sz_rt_graph g;
	sz_rt_graph_exec ge;
	if (graph)
		RT(sz_rt_capture_begin(s));
	CHECK(splitzip_pages_compress_async(ctx, id, l.n, src.ptrs->as<const void *const>(),
	                                    src.sizes->as<size_t>(), max, stream.p, cap, d_size,
	                                    d_st, ws.p, wsb, (void *)s) == SPLITZIP_OK,
	      "%s: enqueue", what);
	/* The receiver side on the same stream: it decodes what the sender wrote, sized by the
	 * bound (the stream's own size is in its header). */
	CHECK(splitzip_pages_decompress_async(ctx, stream.p, cap, l.n, dst.ptrs->as<void *const>(),
	                                      src.sizes->as<size_t>(), max, d_sizes.as<size_t>(),
	                                      d_n, d_st2, ws.p, wsb, (void *)s) == SPLITZIP_OK,
	      "%s: enqueue decode", what);
	if (graph) {
		RT(SZ_RT(StreamEndCapture)(s, &g));
		RT(sz_rt_graph_instantiate(&ge, g));
		RT(SZ_RT(GraphLaunch)(ge, s));
	}
	RT(SZ_RT(StreamSynchronize)(s));
	const std::vector<uint64_t> r = to_host<uint64_t>(res.p, 3);
	const int32_t st = (int32_t)(r[2] & 0xFFFFFFFF), st2 = (int32_t)(r[2] >> 32);
	CHECK(st == SPLITZIP_OK && r[0] == ref.size() && to_host<uint8_t>(stream.p, r[0]) == ref,
	      "%s: status %d, size %zu vs %zu", what, st, (size_t)r[0], ref.size());
	CHECK(st2 == SPLITZIP_OK && r[1] == l.n, "%s: decode status %d", what, st2);
	const std::vector<size_t> sizes = to_host<size_t>(d_sizes.p, l.n);
	for (size_t i = 0; i < l.n; i++)
		CHECK(sizes[i] == l.bytes[i] &&
		          to_host<uint8_t>(dst.bufs[i]->p, l.bytes[i]) ==
		              std::vector<uint8_t>(l.p[i], l.p[i] + l.bytes[i]),
		      "%s: page %zu", what, i);
	if (graph) {
		RT(SZ_RT(GraphExecDestroy)(ge));
		RT(SZ_RT(GraphDestroy)(g));
	}
	RT(SZ_RT(StreamDestroy)(s));
	splitzip_ctx_free(ctx);
}

static void test_roundtrips(void)
{
	pu_pages kv = pu_make_kv(64, 32768, 1);
	roundtrip(kv, SPLITZIP_FLAG_CONTENT_CHECKSUM, nullptr, 0, false, "kv");
	splitzip_codebook cb;
	splitzip_calibrate((const uint16_t *)kv.p[0], 16384, &cb);
	roundtrip(kv, 0, cb.exponents, 0x1234, true, "kv fixed, graph");
	pu_free(&kv);
	static const size_t sizes[] = {0, 2, 64, 120, 4096, 8190, 30000, 2048, 0, 65538};
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++) {
		pu_pages l = pu_make(sizes, sizeof sizes / sizeof sizes[0], g, 3 + (uint64_t)g);
		roundtrip(l, (unsigned)g & 1, nullptr, 0, false, sz_test_gen_name(g));
		pu_free(&l);
	}
	std::vector<size_t> many(1000);
	for (size_t i = 0; i < many.size(); i++)
		many[i] = 256 + 2 * (i % 13) * 40;
	pu_pages l = pu_make(many.data(), many.size(), -2, 2);
	roundtrip(l, 1, nullptr, 0, false, "1000 pages");
	pu_free(&l);
}

/* Damaged streams and small destinations: the host's status. */
static void test_hostile(void)
{
	static const size_t sizes[] = {8192, 2000, 0, 4098};
	pu_pages l = pu_make(sizes, 4, -1, 4);
	sz_test_generate(SZ_GEN_RANDOM, 3, (uint16_t *)l.p[1], 1000);
	const std::vector<uint8_t> base =
	    host_stream(l, SPLITZIP_FLAG_CONTENT_CHECKSUM, nullptr, 0);
	splitzip_ctx *dev = make_ctx(k_dev, 0, nullptr),
	             *host = make_ctx(SPLITZIP_BACKEND_SCALAR, 0, nullptr);
	const size_t max = max_bytes(l);
	size_t wsb = 0;
	splitzip_pages_workspace_size(dev, l.n, max, &wsb);
	dbuf ws(wsb), res(32), d_sizes(l.n * sizeof(size_t));
	dpages dst(l, false);
	uint64_t seed = 7;
	for (int k = 0; k < 400; k++) {
		std::vector<uint8_t> s = base;
		const uint64_t r = sz_test_rand(&seed);
		if (k % 3 == 0) {
			s[r % (64 + 32 * l.n)] = (uint8_t)(r >> 20);
			pu_reseal(s.data(), s.size());
		} else if (k % 3 == 1) {
			s[r % s.size()] ^= (uint8_t)(1u << ((r >> 32) % 8));
		} else {
			s.resize((size_t)(r % s.size()));
		}
		std::vector<uint8_t> out(max * l.n);
		std::vector<void *> hp(l.n);
		for (size_t i = 0; i < l.n; i++)
			hp[i] = out.data() + i * max;
		size_t n_out = 0;
		const int32_t want = splitzip_pages_decompress(host, s.data(), s.size(), l.n,
		                                               hp.data(), l.bytes, nullptr, &n_out);
		dbuf src(s.data(), s.size());
		CHECK(splitzip_pages_decompress_async(
		          dev, src.p, s.size(), l.n, dst.ptrs->as<void *const>(),
		          dst.sizes->as<size_t>(), max, d_sizes.as<size_t>(), res.as<size_t>(),
		          (int32_t *)(res.as<char>() + 8), ws.p, wsb, nullptr) == SPLITZIP_OK,
		      "enqueue");
		RT(SZ_RT(DeviceSynchronize)());
		const std::vector<uint64_t> r2 = to_host<uint64_t>(res.p, 2);
		CHECK((int32_t)r2[1] == want, "mutation %d: %d, host %d", k, (int32_t)r2[1], want);
	}
	splitzip_ctx_free(dev);
	splitzip_ctx_free(host);
	pu_free(&l);
}

int main(void)
{
	splitzip_ctx *probe = make_ctx(k_dev, 0, nullptr);
	if (!probe) {
		const char *req = getenv("SPLITZIP_REQUIRE_GPU");
		printf("no usable %s device: %s\n", SZ_RT_MODULE_NAME,
		       req && !strcmp(req, "1") ? "FAILED (SPLITZIP_REQUIRE_GPU=1)" : "skipped");
		return req && !strcmp(req, "1") ? 1 : 77;
	}
	splitzip_ctx_free(probe);
	test_roundtrips();
	test_hostile();
	printf("%s pages: %s\n", SZ_RT_MODULE_NAME, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
