/*
 * test_gpu_device.cu -- the GPU test suite on a real device, through the public API of
 * libsplitzip (which loads the module). Built by nvcc for CUDA (and by hipcc for HIP from the
 * same source: the runtime calls are spelled SZ_RT(...), backends/{cuda,hip}/sz_gpu_runtime.h).
 *
 * Frames from the device must equal the scalar oracle's byte for byte; the device decodes the
 * oracle's frames; batches of KV pages; damaged frames give the oracle's status; calls captured
 * in a graph (no allocation, no host synchronisation inside) give the same results; two
 * streams with their own workspaces run at once. Every device buffer is allocated at its exact
 * size, so compute-sanitizer memcheck sees any access outside it.
 *
 * Exit 0: passed; 1: failed; 77: no usable device (ctest SKIP_RETURN_CODE), unless
 * SPLITZIP_REQUIRE_GPU=1, then 1. Argument --quick: smaller sizes (for the sanitizers).
 */
#include "sz_gpu_runtime.h"

#include "splitzip.h"
extern "C" {
#include "sz_test_data.h"
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

static int failures;
static bool quick;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			if (++failures <= 40) {                                                    \
				fprintf(stderr, "FAIL (%s:%d) %s: ", __FILE__, __LINE__, #cond);   \
				fprintf(stderr, __VA_ARGS__);                                      \
				fputc('\n', stderr);                                               \
			}                                                                          \
		}                                                                                  \
	} while (0)

#define RT(call)                                                                                   \
	do {                                                                                       \
		sz_rt_error e_ = (call);                                                           \
		if (e_ != SZ_RT_OK) {                                                              \
			fprintf(stderr, "runtime error %d at %s:%d: %s\n", (int)e_, __FILE__,      \
			        __LINE__, #call);                                                  \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* A device buffer of exactly 'bytes' bytes (at least 1). */
struct dbuf {
	void *p = nullptr;
	size_t n = 0;
	explicit dbuf(size_t bytes) : n(bytes)
	{
		RT(SZ_RT(Malloc)(&p, bytes ? bytes : 1));
	}
	dbuf(const void *host, size_t bytes) : dbuf(bytes)
	{
		if (bytes)
			RT(SZ_RT(Memcpy)(p, host, bytes, SZ_RT_H2D));
	}
	~dbuf()
	{
		(void)SZ_RT(Free)(p);
	}
	template <typename T> T *as() const
	{
		return static_cast<T *>(p);
	}
	dbuf(const dbuf &) = delete;
	dbuf &operator=(const dbuf &) = delete;
};

template <typename T> static std::vector<T> to_host(const void *d, size_t count)
{
	std::vector<T> v(count);
	if (count)
		RT(SZ_RT(Memcpy)(v.data(), d, count * sizeof(T), SZ_RT_D2H));
	return v;
}

struct params {
	unsigned log2 = 12;
	unsigned flags = 0;
	bool fixed = false;
};

static splitzip_ctx *make_ctx(splitzip_backend_id id, const params &p)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = id;
	q.chunk_log2 = p.log2;
	q.flags = p.flags;
	if (p.fixed) {
		q.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		for (int k = 0; k < 16; k++)
			q.codebook.exponents[k] = (uint8_t)(112 + k);
	}
	splitzip_ctx *ctx = nullptr;
	return splitzip_ctx_create(&q, &ctx) == SPLITZIP_OK ? ctx : nullptr;
}

static const splitzip_backend_id k_dev =
    !strcmp(SZ_RT_MODULE_NAME, "cuda") ? SPLITZIP_BACKEND_CUDA : SPLITZIP_BACKEND_HIP;

static std::vector<uint8_t> oracle_compress(const std::vector<uint16_t> &in, const params &p)
{
	splitzip_ctx *ctx = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
	std::vector<uint8_t> out(splitzip_compress_bound(in.size()));
	size_t size = 0;
	CHECK(splitzip_compress(ctx, in.data(), in.size(), out.data(), out.size(), &size) ==
	          SPLITZIP_OK,
	      "oracle");
	splitzip_ctx_free(ctx);
	out.resize(size);
	return out;
}

static std::vector<uint16_t> gen(int g, uint64_t seed, size_t n)
{
	std::vector<uint16_t> v(n);
	sz_test_generate(g, seed, v.data(), n);
	return v;
}

/* One frame through compress_async on 'stream'; the frame bytes, or empty on a status. */
static std::vector<uint8_t> dev_compress(splitzip_ctx *ctx, const std::vector<uint16_t> &in,
                                         size_t cap, int32_t *status, sz_rt_stream stream = 0)
{
	dbuf src(in.data(), in.size() * 2), dst(cap), res(16);
	size_t wsb = 0;
	CHECK(splitzip_workspace_size(ctx, in.size(), &wsb) == SPLITZIP_OK, "ws size");
	dbuf ws(wsb);
	CHECK(splitzip_compress_async(ctx, in.empty() ? nullptr : src.as<uint16_t>(), in.size(),
	                              dst.p, cap, res.as<size_t>(), (int32_t *)(res.as<char>() + 8),
	                              ws.p, wsb, (void *)stream) == SPLITZIP_OK,
	      "enqueue");
	RT(SZ_RT(StreamSynchronize)(stream));
	const std::vector<uint64_t> r = to_host<uint64_t>(res.p, 2);
	*status = (int32_t)r[1];
	return *status == SPLITZIP_OK ? to_host<uint8_t>(dst.p, r[0]) : std::vector<uint8_t>();
}

static int32_t dev_decompress(splitzip_ctx *ctx, const std::vector<uint8_t> &frame, size_t cap,
                              std::vector<uint16_t> *out)
{
	dbuf src(frame.data(), frame.size()), dst(cap * 2), res(16);
	size_t wsb = 0;
	CHECK(splitzip_workspace_size(ctx, cap, &wsb) == SPLITZIP_OK, "ws size");
	dbuf ws(wsb);
	CHECK(splitzip_decompress_async(ctx, src.p, frame.size(),
	                                cap ? dst.as<uint16_t>() : nullptr, cap, res.as<size_t>(),
	                                (int32_t *)(res.as<char>() + 8), ws.p, wsb,
	                                nullptr) == SPLITZIP_OK,
	      "enqueue");
	RT(SZ_RT(DeviceSynchronize)());
	const std::vector<uint64_t> r = to_host<uint64_t>(res.p, 2);
	if ((int32_t)r[1] == SPLITZIP_OK)
		*out = to_host<uint16_t>(dst.p, r[0]);
	return (int32_t)r[1];
}

static void test_frames(void)
{
	const size_t sizes[] = {0, 1, 57, 121, 1023, 4096, 4097, 65537, 1000003};
	const unsigned logs[] = {10, 12, 16};
	int k = 0;
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++)
		for (size_t n : sizes) {
			if (quick && n > 70000)
				continue;
			const std::vector<uint16_t> in = gen(g, 7 + n, n);
			params p;
			p.log2 = logs[k % 3];
			p.flags = k & 1;
			p.fixed = (k >> 1) & 1;
			k++;
			splitzip_ctx *ctx = make_ctx(k_dev, p);
			const std::vector<uint8_t> ref = oracle_compress(in, p);
			int32_t st = -1;
			const std::vector<uint8_t> got =
			    dev_compress(ctx, in, splitzip_compress_bound(n), &st);
			CHECK(st == SPLITZIP_OK && got == ref, "%s n=%zu L=%u: status %d",
			      sz_test_gen_name(g), n, p.log2, st);
			std::vector<uint16_t> out;
			st = dev_decompress(ctx, ref, n, &out);
			CHECK(st == SPLITZIP_OK && out == in, "decode %s n=%zu: %d",
			      sz_test_gen_name(g), n, st);
			/* the host-memory API on the device context goes through the device too */
			std::vector<uint8_t> h(splitzip_compress_bound(n));
			size_t hs = 0;
			CHECK(splitzip_compress(ctx, in.data(), n, h.data(), h.size(), &hs) ==
			              SPLITZIP_OK &&
			          std::vector<uint8_t>(h.begin(), h.begin() + (long)hs) == ref,
			      "host API n=%zu", n);
			splitzip_ctx_free(ctx);
		}
}

static void test_corrupt(void)
{
	params p;
	p.log2 = 10;
	p.flags = 1;
	p.fixed = true;
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_5PCT, 3, 5000);
	const std::vector<uint8_t> frame = oracle_compress(in, p);
	splitzip_ctx *dev = make_ctx(k_dev, p), *ref = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
	uint64_t seed = 99;
	for (int k = 0; k < (quick ? 40 : 300); k++) {
		std::vector<uint8_t> m = frame;
		const uint64_t r = sz_test_rand(&seed);
		if (k % 3 == 2)
			m.resize((size_t)(r % m.size()));
		else
			m[(size_t)(r % m.size())] ^= (uint8_t)(1u << ((r >> 32) % 8));
		std::vector<uint16_t> a, b(in.size());
		size_t used = 0, nb = 0;
		const int32_t want = splitzip_frame_decompress(ref, m.data(), m.size(), &used,
		                                               b.data(), b.size(), &nb);
		const int32_t got = dev_decompress(dev, m, in.size(), &a);
		CHECK(got == want, "mutation %d: %d, oracle %d", k, got, want);
	}
	splitzip_ctx_free(dev);
	splitzip_ctx_free(ref);
}

/* 128 KiB pages of real KV, one launch sequence each way. */
static void test_batch(void)
{
	size_t nkv = 0;
	uint16_t *kv = sz_test_load_kv("K", &nkv);
	CHECK(kv != nullptr, "real KV sample");
	if (!kv)
		return;
	const size_t page = 65536, nf = quick ? 8 : 64;
	params p;
	p.fixed = true;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	std::vector<std::vector<uint16_t>> in(nf);
	std::vector<dbuf *> srcs, dsts, outs;
	std::vector<const uint16_t *> h_srcs;
	std::vector<void *> h_dsts;
	std::vector<size_t> h_n, h_caps;
	for (size_t f = 0; f < nf; f++) {
		const size_t n = f % 7 == 3 ? page / 3 : page;
		in[f].resize(n);
		for (size_t i = 0; i < n; i++)
			in[f][i] = kv[(f * page + i) % nkv];
		srcs.push_back(new dbuf(in[f].data(), n * 2));
		dsts.push_back(new dbuf(splitzip_compress_bound(n)));
		h_srcs.push_back(srcs.back()->as<uint16_t>());
		h_dsts.push_back(dsts.back()->p);
		h_n.push_back(n);
		h_caps.push_back(splitzip_compress_bound(n));
	}
	dbuf d_srcs(h_srcs.data(), nf * sizeof(void *)), d_dsts(h_dsts.data(), nf * sizeof(void *));
	dbuf d_n(h_n.data(), nf * sizeof(size_t)), d_caps(h_caps.data(), nf * sizeof(size_t));
	dbuf d_sizes(nf * sizeof(size_t)), d_st(nf * sizeof(int32_t));
	size_t wsb = 0;
	CHECK(splitzip_workspace_size_batch(ctx, nf, page, &wsb) == SPLITZIP_OK, "ws");
	dbuf ws(wsb);
	CHECK(splitzip_compress_batch_async(ctx, nf, d_srcs.as<const uint16_t *const>(),
	                                    d_n.as<size_t>(), page, d_dsts.as<void *const>(),
	                                    d_caps.as<size_t>(), d_sizes.as<size_t>(),
	                                    d_st.as<int32_t>(), ws.p, wsb, nullptr) == SPLITZIP_OK,
	      "batch enqueue");
	RT(SZ_RT(DeviceSynchronize)());
	const std::vector<size_t> sizes = to_host<size_t>(d_sizes.p, nf);
	const std::vector<int32_t> st = to_host<int32_t>(d_st.p, nf);
	std::vector<void *> h_out;
	std::vector<size_t> h_fs;
	for (size_t f = 0; f < nf; f++) {
		const std::vector<uint8_t> ref = oracle_compress(in[f], p);
		CHECK(st[f] == SPLITZIP_OK && to_host<uint8_t>(h_dsts[f], sizes[f]) == ref,
		      "batch frame %zu: %d", f, st[f]);
		outs.push_back(new dbuf(in[f].size() * 2));
		h_out.push_back(outs.back()->p);
		h_fs.push_back(sizes[f]);
	}
	dbuf d_out(h_out.data(), nf * sizeof(void *)), d_fs(h_fs.data(), nf * sizeof(size_t));
	dbuf d_n2(nf * sizeof(size_t)), d_st2(nf * sizeof(int32_t));
	CHECK(splitzip_decompress_batch_async(
	          ctx, nf, d_dsts.as<const void *const>(), d_fs.as<size_t>(),
	          d_out.as<uint16_t *const>(), d_n.as<size_t>(), page, d_n2.as<size_t>(),
	          d_st2.as<int32_t>(), ws.p, wsb, nullptr) == SPLITZIP_OK,
	      "batch decode enqueue");
	RT(SZ_RT(DeviceSynchronize)());
	const std::vector<int32_t> st2 = to_host<int32_t>(d_st2.p, nf);
	for (size_t f = 0; f < nf; f++)
		CHECK(st2[f] == SPLITZIP_OK && to_host<uint16_t>(h_out[f], in[f].size()) == in[f],
		      "batch decode %zu: %d", f, st2[f]);
	for (size_t f = 0; f < nf; f++) {
		delete srcs[f];
		delete dsts[f];
		delete outs[f];
	}
	splitzip_ctx_free(ctx);
	free(kv);
}

/* Captured into a graph: the calls must neither allocate nor synchronise. Two streams with
 * their own workspaces run concurrently and give identical frames. */
static void test_graph_and_streams(void)
{
	params p;
	p.flags = 1;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 5, quick ? 100000 : 3000000);
	const std::vector<uint8_t> ref = oracle_compress(in, p);
	const size_t cap = splitzip_compress_bound(in.size());
	size_t wsb = 0;
	splitzip_workspace_size(ctx, in.size(), &wsb);
	dbuf src(in.data(), in.size() * 2), ws1(wsb), ws2(wsb), d1(cap), d2(cap), res(32);
	sz_rt_stream s1, s2;
	RT(SZ_RT(StreamCreate)(&s1));
	RT(SZ_RT(StreamCreate)(&s2));
	RT(sz_rt_capture_begin(s1));
	CHECK(splitzip_compress_async(ctx, src.as<uint16_t>(), in.size(), d1.p, cap,
	                              res.as<size_t>(), (int32_t *)(res.as<char>() + 8), ws1.p, wsb,
	                              (void *)s1) == SPLITZIP_OK,
	      "captured enqueue");
	sz_rt_graph graph;
	RT(SZ_RT(StreamEndCapture)(s1, &graph));
	sz_rt_graph_exec exec;
	RT(sz_rt_graph_instantiate(&exec, graph));
	for (int rep = 0; rep < 2; rep++) {
		RT(SZ_RT(GraphLaunch)(exec, s1));
		CHECK(splitzip_compress_async(ctx, src.as<uint16_t>(), in.size(), d2.p, cap,
		                              (size_t *)(res.as<char>() + 16),
		                              (int32_t *)(res.as<char>() + 24), ws2.p, wsb,
		                              (void *)s2) == SPLITZIP_OK,
		      "second stream");
		RT(SZ_RT(DeviceSynchronize)());
		const std::vector<uint64_t> r = to_host<uint64_t>(res.p, 4);
		CHECK((int32_t)r[1] == SPLITZIP_OK && to_host<uint8_t>(d1.p, r[0]) == ref,
		      "graph replay %d", rep);
		CHECK((int32_t)r[3] == SPLITZIP_OK && to_host<uint8_t>(d2.p, r[2]) == ref,
		      "stream 2, round %d", rep);
	}
	RT(SZ_RT(GraphExecDestroy)(exec));
	RT(SZ_RT(GraphDestroy)(graph));
	RT(SZ_RT(StreamDestroy)(s1));
	RT(SZ_RT(StreamDestroy)(s2));
	splitzip_ctx_free(ctx);
}

int main(int argc, char **argv)
{
	quick = argc > 1 && !strcmp(argv[1], "--quick");
	params p;
	splitzip_ctx *probe = make_ctx(k_dev, p);
	if (!probe) {
		const char *req = getenv("SPLITZIP_REQUIRE_GPU");
		printf("no usable %s device: %s\n", SZ_RT_MODULE_NAME,
		       req && !strcmp(req, "1") ? "FAILED (SPLITZIP_REQUIRE_GPU=1)" : "skipped");
		return req && !strcmp(req, "1") ? 1 : 77;
	}
	splitzip_ctx_free(probe);
	test_frames();
	test_corrupt();
	test_batch();
	test_graph_and_streams();
	printf("%s: %s\n", SZ_RT_MODULE_NAME, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
