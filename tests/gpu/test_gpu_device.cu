/*
 * test_gpu_device.cu -- the GPU test suite on a real device, through the public API of
 * libsplitzip (which loads the module). Built by nvcc for CUDA (and by hipcc for HIP from the
 * same source: the runtime calls are spelled SZ_RT(...), backends/{cuda,hip}/sz_gpu_runtime.h).
 *
 * Frames from the device must equal the scalar oracle's byte for byte; the device decodes the
 * oracle's frames; batches of KV pages (one block per page, and several blocks per frame);
 * codebooks predicted from a sample, right and wrong; damaged frames give the oracle's status;
 * the four async calls captured in a graph (no allocation, no host synchronisation inside)
 * give the same results on every replay; two streams with their own workspaces run at once;
 * misaligned arguments are refused on the host (INVALID_ARGUMENT, nothing enqueued), a
 * misaligned buffer in a batch fails only its frame. Every device buffer is allocated at its
 * exact size, so compute-sanitizer memcheck sees any access outside it.
 *
 * Exit 0: passed; 1: failed; 77: no usable device (ctest SKIP_RETURN_CODE), unless
 * SPLITZIP_REQUIRE_GPU=1, then 1. Argument --quick: smaller sizes (for the sanitizers);
 * --tiny: smaller still, for the CPU SIMT harness's module (tests/gpu/gpu_simt_module.cpp, which
 * the same source runs on through tests/gpu/simt_rt/sz_gpu_runtime.h: ctest gpu.simt.device).
 */
#include "sz_gpu_runtime.h"

#include "splitzip.h"
extern "C" {
#include "sz_test_data.h"
}
#include "gpu_device_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

static bool quick, tiny;

/* A size for the full run, --quick and --tiny. */
static size_t pick(size_t full, size_t q, size_t t)
{
	return tiny ? t : quick ? q : full;
}

struct params {
	unsigned log2 = 12;
	unsigned flags = 0;
	bool fixed = false;
	bool entropy = false;     /* the entropy encoding (mode 2) */
	bool automatic = false;   /* the auto encoding (with entropy = true) */
	bool table_fixed = false; /* entropy: a table calibrated on other data */
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
	if (p.entropy) {
		q.encoding = p.automatic ? SPLITZIP_ENCODING_AUTO : SPLITZIP_ENCODING_ENTROPY;
		if (p.table_fixed) {
			std::vector<uint16_t> cal(50000);
			sz_test_generate(SZ_GEN_KV_SKEWED, 99, cal.data(), cal.size());
			q.table_mode = SPLITZIP_CODEBOOK_FIXED;
			splitzip_entropy_calibrate(cal.data(), cal.size(), &q.table);
		}
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
	CHECK(splitzip_decompress_workspace_size(ctx, 1, &wsb) == SPLITZIP_OK, "ws size");
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
			if (n > pick(~(size_t)0, 70000, 4097))
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
	for (int k = 0; k < (int)pick(300, 40, 12); k++) {
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

/* A batch of frames on the device: inputs, frames, outputs and every descriptor array. */
struct dev_batch {
	std::vector<std::vector<uint16_t>> in;
	std::vector<dbuf *> bufs;
	dbuf *d_srcs, *d_n, *d_dsts, *d_caps, *d_sizes, *d_st, *d_outs, *d_fs, *d_n2, *d_st2;
	dbuf *ws, *wsd;
	size_t max_elems, wsb, wsdb;
	std::vector<void *> h_dsts, h_outs;

	dbuf *keep(dbuf *b)
	{
		bufs.push_back(b);
		return b;
	}
	template <typename T> dbuf *array(const std::vector<T> &v)
	{
		return keep(new dbuf(v.data(), v.size() * sizeof(T)));
	}
	dev_batch(splitzip_ctx *ctx, std::vector<std::vector<uint16_t>> inputs)
	    : in(std::move(inputs))
	{
		const size_t nf = in.size();
		std::vector<const void *> srcs;
		std::vector<size_t> n, caps;
		max_elems = 0;
		for (size_t f = 0; f < nf; f++) {
			max_elems = in[f].size() > max_elems ? in[f].size() : max_elems;
			srcs.push_back(keep(new dbuf(in[f].data(), in[f].size() * 2))->p);
			caps.push_back(splitzip_compress_bound(in[f].size()));
			h_dsts.push_back(keep(new dbuf(caps.back()))->p);
			h_outs.push_back(keep(new dbuf(in[f].size() * 2))->p);
			n.push_back(in[f].size());
		}
		d_srcs = array(srcs);
		d_n = array(n);
		d_dsts = array(h_dsts);
		d_caps = array(caps);
		d_outs = array(h_outs);
		d_sizes = keep(new dbuf(nf * sizeof(size_t)));
		d_st = keep(new dbuf(nf * sizeof(int32_t)));
		d_fs = keep(new dbuf(nf * sizeof(size_t)));
		d_n2 = keep(new dbuf(nf * sizeof(size_t)));
		d_st2 = keep(new dbuf(nf * sizeof(int32_t)));
		CHECK(splitzip_workspace_size_batch(ctx, nf, max_elems, &wsb) == SPLITZIP_OK, "ws");
		CHECK(splitzip_decompress_workspace_size(ctx, nf, &wsdb) == SPLITZIP_OK, "ws");
		ws = keep(new dbuf(wsb));
		wsd = keep(new dbuf(wsdb));
	}
	~dev_batch()
	{
		for (dbuf *b : bufs)
			delete b;
	}
	splitzip_status compress(splitzip_ctx *ctx, sz_rt_stream s)
	{
		return splitzip_compress_batch_async(
		    ctx, in.size(), d_srcs->as<const uint16_t *const>(), d_n->as<size_t>(),
		    max_elems, d_dsts->as<void *const>(), d_caps->as<size_t>(),
		    d_sizes->as<size_t>(), d_st->as<int32_t>(), ws->p, wsb, (void *)s);
	}
	/* decodes the frames compress() wrote (their sizes copied into d_fs by check_frames) */
	splitzip_status decompress(splitzip_ctx *ctx, sz_rt_stream s)
	{
		return splitzip_decompress_batch_async(
		    ctx, in.size(), d_dsts->as<const void *const>(), d_fs->as<size_t>(),
		    d_outs->as<uint16_t *const>(), d_n->as<size_t>(), max_elems, d_n2->as<size_t>(),
		    d_st2->as<int32_t>(), wsd->p, wsdb, (void *)s);
	}
	/* every frame equals the oracle's; their sizes go to d_fs for decompress() */
	void check_frames(const params &p, const char *what)
	{
		const std::vector<size_t> sizes = to_host<size_t>(d_sizes->p, in.size());
		const std::vector<int32_t> st = to_host<int32_t>(d_st->p, in.size());
		for (size_t f = 0; f < in.size(); f++) {
			const std::vector<uint8_t> ref = oracle_compress(in[f], p);
			CHECK(st[f] == SPLITZIP_OK && to_host<uint8_t>(h_dsts[f], sizes[f]) == ref,
			      "%s: frame %zu (n=%zu): %d", what, f, in[f].size(), st[f]);
		}
		RT(SZ_RT(Memcpy)(d_fs->p, sizes.data(), sizes.size() * sizeof(size_t), SZ_RT_H2D));
	}
	void check_outputs(const char *what)
	{
		const std::vector<int32_t> st = to_host<int32_t>(d_st2->p, in.size());
		const std::vector<size_t> n = to_host<size_t>(d_n2->p, in.size());
		for (size_t f = 0; f < in.size(); f++)
			CHECK(st[f] == SPLITZIP_OK && n[f] == in[f].size() &&
			          to_host<uint16_t>(h_outs[f], in[f].size()) == in[f],
			      "%s: decode of frame %zu: %d", what, f, st[f]);
	}
};

static uint16_t *g_kv;
static size_t g_nkv;

/* nf pages of real KV of 'page' elements (every 7th a third as long). */
static std::vector<std::vector<uint16_t>> kv_pages(size_t nf, size_t page)
{
	std::vector<std::vector<uint16_t>> in(nf);
	for (size_t f = 0; f < nf; f++) {
		in[f].resize(f % 7 == 3 ? page / 3 : page);
		for (size_t i = 0; i < in[f].size(); i++)
			in[f][i] = g_kv[(f * page + i) % g_nkv];
	}
	return in;
}

/* Batches of KV pages: 128 KiB pages (several blocks per frame at this count) and 16 KiB pages
 * (enough of them for one block per page), fixed and from-input codebooks. */
/* Entropy frames (mode 2): encode with the frame's own table and with a calibrated one,
 * byte-identical to the scalar encoder, decoded back; real KV; damaged frames give the scalar
 * decoder's status. */
static void test_entropy(void)
{
	const size_t sizes[] = {0, 1, 33, 400, 16383, 16385, 65537, 1000003};
	int k = 0;
	for (int g = 0; g < SZ_TEST_N_GENERATORS; g++)
		for (size_t n : sizes) {
			if (n > pick(~(size_t)0, 70000, 4097))
				continue;
			const std::vector<uint16_t> in = gen(g, 11 + n, n);
			params p;
			p.entropy = true;
			p.log2 = k % 3 ? 14 : 10;
			p.flags = k & 1;
			p.table_fixed = (k >> 1) & 1;
			p.automatic = k % 5 == 4; /* stored, split4 or entropy: as the host picks */
			p.fixed = p.automatic && (k & 1);
			k++;
			splitzip_ctx *ctx = make_ctx(k_dev, p);
			const std::vector<uint8_t> ref = oracle_compress(in, p);
			int32_t st = -1;
			const std::vector<uint8_t> got =
			    dev_compress(ctx, in, splitzip_compress_bound(n), &st);
			CHECK(st == SPLITZIP_OK && got == ref, "entropy %s n=%zu L=%u: status %d",
			      sz_test_gen_name(g), n, p.log2, st);
			std::vector<uint16_t> out;
			st = dev_decompress(ctx, ref, n, &out);
			CHECK(st == SPLITZIP_OK && out == in, "entropy decode %s n=%zu: %d",
			      sz_test_gen_name(g), n, st);
			splitzip_ctx_free(ctx);
		}
	params p;
	p.entropy = true;
	p.log2 = 14;
	p.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const std::vector<uint16_t> kv(g_kv,
	                               g_kv + pick(g_nkv, g_nkv, g_nkv < 65536 ? g_nkv : 65536));
	const std::vector<uint8_t> ref = oracle_compress(kv, p);
	int32_t st = -1;
	CHECK(dev_compress(ctx, kv, splitzip_compress_bound(kv.size()), &st) == ref, "entropy KV");
	uint64_t seed = 99;
	for (int i = 0; i < (int)pick(300, 50, 10); i++) {
		std::vector<uint8_t> m = ref;
		const uint64_t r = sz_test_rand(&seed);
		m[64 + (r >> 8) % (m.size() - 64)] ^= (uint8_t)(1u << ((r >> 32) % 8));
		splitzip_ctx *o = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
		std::vector<uint16_t> want(kv.size()), out;
		size_t used = 0, nn = 0;
		const splitzip_status ws = splitzip_frame_decompress(o, m.data(), m.size(), &used,
		                                                     want.data(), kv.size(), &nn);
		splitzip_ctx_free(o);
		st = dev_decompress(ctx, m, kv.size(), &out);
		CHECK(st == (int32_t)ws, "entropy mutation %d: %d, oracle %d", i, st, (int)ws);
	}
	splitzip_ctx_free(ctx);
}

static void test_batch(void)
{
	struct shape {
		size_t page, nf;
	};
	const shape shapes[] = {{65536, pick(64, 8, 2)}, {8192, pick(1200, 300, 8)}};
	for (const shape &sh : shapes)
		for (int fixed = 0; fixed < 2; fixed++) {
			params p;
			p.fixed = fixed;
			p.flags = (unsigned)(sh.page == 8192);
			splitzip_ctx *ctx = make_ctx(k_dev, p);
			dev_batch b(ctx, kv_pages(sh.nf, sh.page));
			CHECK(b.compress(ctx, 0) == SPLITZIP_OK, "batch enqueue");
			RT(SZ_RT(DeviceSynchronize)());
			b.check_frames(p, "batch");
			CHECK(b.decompress(ctx, 0) == SPLITZIP_OK, "batch decode enqueue");
			RT(SZ_RT(DeviceSynchronize)());
			b.check_outputs("batch");
			splitzip_ctx_free(ctx);
		}
}

/*
 * The four calls captured into one graph on stream s1 (they must neither allocate nor
 * synchronise), replayed twice; meanwhile stream s2 runs the same compression with its own
 * workspace. Every replay gives the oracle's frames and the inputs back.
 */
static void test_graph_and_streams(void)
{
	params p;
	p.flags = 1;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const std::vector<uint16_t> in = gen(SZ_GEN_ESCAPE_1PCT, 5, pick(3000000, 100000, 20000));
	const std::vector<uint8_t> ref = oracle_compress(in, p);
	const size_t cap = splitzip_compress_bound(in.size());
	size_t wsb = 0, wsdb = 0;
	splitzip_workspace_size(ctx, in.size(), &wsb);
	splitzip_decompress_workspace_size(ctx, 1, &wsdb);
	dbuf src(in.data(), in.size() * 2), ws1(wsb), ws2(wsb), wsd(wsdb), d1(cap), d2(cap);
	dbuf frame(ref.data(), ref.size()), out(in.size() * 2), res(48);
	dev_batch b(ctx, kv_pages(pick(600, 300, 8), 8192));
	std::vector<size_t> fs(b.in.size());
	for (size_t f = 0; f < b.in.size(); f++)
		fs[f] = oracle_compress(b.in[f], p).size();
	RT(SZ_RT(Memcpy)(b.d_fs->p, fs.data(), fs.size() * sizeof(size_t), SZ_RT_H2D));
	for (size_t f = 0; f < b.in.size(); f++) /* the batch decode reads the oracle's frames */
		RT(SZ_RT(Memcpy)(b.h_dsts[f], oracle_compress(b.in[f], p).data(), fs[f],
		                 SZ_RT_H2D));
	size_t *r = res.as<size_t>();
	sz_rt_stream s1, s2;
	RT(SZ_RT(StreamCreate)(&s1));
	RT(SZ_RT(StreamCreate)(&s2));
	RT(sz_rt_capture_begin(s1));
	CHECK(splitzip_compress_async(ctx, src.as<uint16_t>(), in.size(), d1.p, cap, r,
	                              (int32_t *)(r + 1), ws1.p, wsb, (void *)s1) == SPLITZIP_OK,
	      "captured compress");
	CHECK(splitzip_decompress_async(ctx, frame.p, ref.size(), out.as<uint16_t>(), in.size(),
	                                r + 2, (int32_t *)(r + 3), wsd.p, wsdb,
	                                (void *)s1) == SPLITZIP_OK,
	      "captured decompress");
	CHECK(b.decompress(ctx, s1) == SPLITZIP_OK, "captured batch decompress");
	CHECK(b.compress(ctx, s1) == SPLITZIP_OK, "captured batch compress");
	sz_rt_graph graph;
	RT(SZ_RT(StreamEndCapture)(s1, &graph));
	sz_rt_graph_exec exec;
	RT(sz_rt_graph_instantiate(&exec, graph));
	for (int rep = 0; rep < 2; rep++) {
		RT(SZ_RT(Memset)(d1.p, 0xEE, cap));
		RT(SZ_RT(Memset)(out.p, 0xEE, in.size() * 2));
		RT(SZ_RT(GraphLaunch)(exec, s1));
		CHECK(splitzip_compress_async(ctx, src.as<uint16_t>(), in.size(), d2.p, cap, r + 4,
		                              (int32_t *)(r + 5), ws2.p, wsb,
		                              (void *)s2) == SPLITZIP_OK,
		      "second stream");
		RT(SZ_RT(DeviceSynchronize)());
		const std::vector<uint64_t> v = to_host<uint64_t>(res.p, 6);
		CHECK((int32_t)v[1] == SPLITZIP_OK && to_host<uint8_t>(d1.p, v[0]) == ref,
		      "graph replay %d: compress", rep);
		CHECK((int32_t)v[3] == SPLITZIP_OK && v[2] == in.size() &&
		          to_host<uint16_t>(out.p, in.size()) == in,
		      "graph replay %d: decompress", rep);
		CHECK((int32_t)v[5] == SPLITZIP_OK && to_host<uint8_t>(d2.p, v[4]) == ref,
		      "stream 2, round %d", rep);
		b.check_outputs("graph replay, batch decompress");
		b.check_frames(p, "graph replay, batch compress");
	}
	RT(SZ_RT(GraphExecDestroy)(exec));
	RT(SZ_RT(GraphDestroy)(graph));
	RT(SZ_RT(StreamDestroy)(s1));
	RT(SZ_RT(StreamDestroy)(s2));
	splitzip_ctx_free(ctx);
}

/* Misaligned arguments: the host refuses what it can see; a misaligned buffer in a batch
 * fails its own frame only. A good call works afterwards (the context survived). */
static void test_alignment(void)
{
	params p;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const std::vector<uint16_t> in = gen(SZ_GEN_KV_SKEWED, 1, 10000);
	const size_t cap = splitzip_compress_bound(in.size());
	size_t wsb = 0;
	splitzip_workspace_size(ctx, in.size(), &wsb);
	dbuf src(in.size() * 2 + 2), ws(wsb + 64), dst(cap), res(64);
	RT(SZ_RT(Memcpy)(src.p, in.data(), in.size() * 2, SZ_RT_H2D));
	uint8_t *w = ws.as<uint8_t>(), *r = res.as<uint8_t>();
	const uint16_t *s = src.as<uint16_t>();
	const int ia = SPLITZIP_ERROR_INVALID_ARGUMENT;
	CHECK(splitzip_compress_async(ctx, s, in.size(), dst.p, cap, (size_t *)r,
	                              (int32_t *)(r + 8), w + 8, wsb, nullptr) == ia,
	      "workspace + 8");
	CHECK(splitzip_compress_async(ctx, s, in.size(), dst.p, cap, (size_t *)(r + 4),
	                              (int32_t *)(r + 16), w, wsb, nullptr) == ia,
	      "size slot + 4");
	CHECK(splitzip_compress_async(ctx, s, in.size(), dst.p, cap, (size_t *)r,
	                              (int32_t *)(r + 9), w, wsb, nullptr) == ia,
	      "status slot + 1");
	CHECK(splitzip_compress_async(ctx, (const uint16_t *)(src.as<uint8_t>() + 1), in.size(),
	                              dst.p, cap, (size_t *)r, (int32_t *)(r + 8), w, wsb,
	                              nullptr) == ia,
	      "odd source");
	CHECK(splitzip_decompress_async(ctx, dst.p, cap, (uint16_t *)(src.as<uint8_t>() + 1),
	                                in.size(), (size_t *)r, (int32_t *)(r + 8), w + 8, 256,
	                                nullptr) == ia,
	      "decompress: odd output, workspace + 8");
	CHECK(splitzip_compress_async(ctx, s, in.size(), dst.p, cap, (size_t *)r,
	                              (int32_t *)(r + 8), w, wsb - 1, nullptr) == ia,
	      "a workspace one byte short");
	CHECK(splitzip_decompress_async(ctx, dst.p, cap, (uint16_t *)src.p, in.size(), (size_t *)r,
	                                (int32_t *)(r + 8), w, 255, nullptr) == ia,
	      "decompress: a workspace one byte short");
	/* an odd address in a batch's device array: that frame only */
	dev_batch b(ctx, kv_pages(4, 4096));
	std::vector<const void *> srcs = to_host<const void *>(b.d_srcs->p, 4);
	srcs[2] = (const uint8_t *)srcs[2] + 1;
	RT(SZ_RT(Memcpy)(b.d_srcs->p, srcs.data(), 4 * sizeof(void *), SZ_RT_H2D));
	CHECK(b.compress(ctx, 0) == SPLITZIP_OK, "batch with an odd source");
	RT(SZ_RT(DeviceSynchronize)());
	const std::vector<int32_t> st = to_host<int32_t>(b.d_st->p, 4);
	CHECK(st[0] == SPLITZIP_OK && st[1] == SPLITZIP_OK && st[2] == ia && st[3] == SPLITZIP_OK,
	      "batch statuses %d %d %d %d", st[0], st[1], st[2], st[3]);
	int32_t status = -1;
	const std::vector<uint8_t> got = dev_compress(ctx, in, cap, &status);
	CHECK(status == SPLITZIP_OK && got == oracle_compress(in, p), "a good call afterwards");
	splitzip_ctx_free(ctx);
}

/* n elements of a dtype with a skewed exponent (a KV cache's shape), from the BF16 generator:
 * FP32 gets a BF16 high half and random low bits, FP16 and FP8 the generator's high bytes. */
static std::vector<uint8_t> dtype_elems(unsigned dtype, size_t n, uint64_t seed)
{
	const std::vector<uint16_t> b = gen(SZ_GEN_KV_SKEWED, seed, n);
	const size_t w = splitzip_dtype_width(dtype);
	std::vector<uint8_t> v(w * n);
	uint64_t r = seed | 1;
	for (size_t i = 0; i < n; i++) {
		const uint64_t x = sz_test_rand(&r);
		const uint32_t e =
		    dtype == SPLITZIP_DTYPE_FP32   ? (uint32_t)b[i] << 16 | (x & 0xFFFF)
		    : dtype == SPLITZIP_DTYPE_BF16 ? b[i]
		    : dtype == SPLITZIP_DTYPE_FP16 ? (uint32_t)(b[i] - 0x3000u) & 0xFFFF
		                                   : (uint32_t)(b[i] >> 6) & 0xFF;
		for (size_t k = 0; k < w; k++)
			v[w * i + k] = (uint8_t)(e >> (8 * k));
	}
	return v;
}

/* The context of the dtype tests: chunks of 2^10, content checksums, 'enc'. */
static splitzip_ctx *dtype_ctx(splitzip_backend_id id, splitzip_encoding enc)
{
	splitzip_params q;
	splitzip_params_init(&q);
	q.backend = id;
	q.encoding = enc;
	q.chunk_log2 = 10;
	q.flags = SPLITZIP_FLAG_CONTENT_CHECKSUM;
	splitzip_ctx *ctx = nullptr;
	return splitzip_ctx_create(&q, &ctx) == SPLITZIP_OK ? ctx : nullptr;
}

/* The frame of the elements from splitzip_compress_dtype_async() on a device context. */
static std::vector<uint8_t> dev_compress_dtype(unsigned dtype, const std::vector<uint8_t> &el,
                                               splitzip_encoding enc, size_t cap, int32_t *status)
{
	splitzip_ctx *ctx = dtype_ctx(k_dev, enc);
	const size_t n = el.size() / splitzip_dtype_width(dtype);
	size_t wsb = 0;
	CHECK(splitzip_workspace_size_dtype(ctx, dtype, n, &wsb) == SPLITZIP_OK, "ws size");
	dbuf src(el.data(), el.size() + 2), dst(cap), res(16), ws(wsb);
	/* the source one byte past an allocation's start: any alignment (BF16: two bytes) */
	const size_t off = dtype == SPLITZIP_DTYPE_BF16 ? 2 : 1;
	RT(SZ_RT(Memcpy)(src.as<uint8_t>() + off, el.data(), el.size(), SZ_RT_H2D));
	CHECK(splitzip_compress_dtype_async(ctx, dtype, src.as<uint8_t>() + off, n, dst.p, cap,
	                                    res.as<size_t>(), (int32_t *)(res.as<char>() + 8), ws.p,
	                                    wsb, nullptr) == SPLITZIP_OK,
	      "enqueue dtype %u", dtype);
	RT(SZ_RT(DeviceSynchronize)());
	const std::vector<uint64_t> r = to_host<uint64_t>(res.p, 2);
	*status = (int32_t)r[1];
	std::vector<uint8_t> f;
	if (*status == SPLITZIP_OK)
		f = to_host<uint8_t>(dst.p, r[0]);
	/* the host-memory call on the device context gives the same frame */
	std::vector<uint8_t> h(splitzip_compress_bound_dtype(dtype, n));
	size_t hs = 0;
	CHECK(*status != SPLITZIP_OK || (splitzip_compress_dtype(ctx, dtype, el.data(), n, h.data(),
	                                                         h.size(), &hs) == SPLITZIP_OK &&
	                                 (h.resize(hs), h == f)),
	      "host-memory compress on the device context, dtype %u", dtype);
	splitzip_ctx_free(ctx);
	return f;
}

/* A frame of every dtype on the scalar backend (the oracle). */
static std::vector<uint8_t> oracle_dtype(unsigned dtype, const std::vector<uint8_t> &el,
                                         splitzip_encoding enc)
{
	splitzip_ctx *ctx = dtype_ctx(SPLITZIP_BACKEND_SCALAR, enc);
	const size_t n = el.size() / splitzip_dtype_width(dtype);
	std::vector<uint8_t> f(splitzip_compress_bound_dtype(dtype, n));
	size_t size = 0;
	CHECK(splitzip_compress_dtype(ctx, dtype, el.data(), n, f.data(), f.size(), &size) ==
	          SPLITZIP_OK,
	      "oracle dtype %u", dtype);
	f.resize(size);
	splitzip_ctx_free(ctx);
	return f;
}

/*
 * Frames of every dtype through the public device calls: splitzip_compress_dtype_async() (from
 * an odd device address; the oracle's frame, DST_TOO_SMALL a byte short) and the host-memory
 * splitzip_compress_dtype() on the device context, splitzip_decompress_dtype_async() into
 * an odd device address, the batch form with frames of every dtype (one damaged), and the
 * host-memory splitzip_decompress_dtype() on the device context (copied through the device):
 * the oracle's elements and statuses; the host-side argument checks.
 */
static void test_dtypes(void)
{
	params p;
	splitzip_ctx *ctx = make_ctx(k_dev, p);
	const size_t n = pick(300000, 40000, 5000);
	std::vector<std::vector<uint8_t>> els, frames;
	for (unsigned dtype = 1; dtype <= 5; dtype++)
		for (splitzip_encoding enc : {SPLITZIP_ENCODING_AUTO, SPLITZIP_ENCODING_ENTROPY}) {
			els.push_back(dtype_elems(dtype, n + 17 * dtype, dtype));
			frames.push_back(oracle_dtype(dtype, els.back(), enc));
			int32_t st = -1;
			const std::vector<uint8_t> f =
			    dev_compress_dtype(dtype, els.back(), enc, frames.back().size(), &st);
			CHECK(st == SPLITZIP_OK && f == frames.back(),
			      "device frame of dtype %u, encoding %d: status %d", dtype, (int)enc,
			      st);
			dev_compress_dtype(dtype, els.back(), enc, frames.back().size() - 1, &st);
			CHECK(st == SPLITZIP_ERROR_DST_TOO_SMALL, "a byte less: status %d", st);
		}
	size_t wsb = 0;
	CHECK(splitzip_decompress_workspace_size(ctx, frames.size(), &wsb) == SPLITZIP_OK, "ws");
	dbuf ws(wsb), res(16 * frames.size());
	size_t *d_n = res.as<size_t>();
	int32_t *d_st = (int32_t *)(res.as<char>() + 8 * frames.size());
	for (size_t i = 0; i < frames.size(); i++) {
		dbuf src(frames[i].data(), frames[i].size()), dst(els[i].size() + 1);
		CHECK(splitzip_decompress_dtype_async(ctx, src.p, frames[i].size(),
		                                      dst.as<uint8_t>() + 1, els[i].size(), d_n,
		                                      d_st, ws.p, wsb, nullptr) == SPLITZIP_OK,
		      "enqueue %zu", i);
		RT(SZ_RT(DeviceSynchronize)());
		const std::vector<uint64_t> nn = to_host<uint64_t>(d_n, 1);
		const std::vector<int32_t> st = to_host<int32_t>(d_st, 1);
		const std::vector<uint8_t> got =
		    to_host<uint8_t>(dst.as<uint8_t>() + 1, els[i].size());
		const size_t w = splitzip_dtype_width(frames[i][5]);
		CHECK(st[0] == SPLITZIP_OK && nn[0] * w == els[i].size() && got == els[i],
		      "frame %zu (dtype %u mode %u): status %d", i, frames[i][5], frames[i][6],
		      st[0]);
		std::vector<uint8_t> host(els[i].size());
		size_t hn = 0;
		CHECK(splitzip_decompress_dtype(ctx, frames[i].data(), frames[i].size(),
		                                host.data(), host.size(), &hn) == SPLITZIP_OK &&
		          host == els[i],
		      "host-memory call on the device context, frame %zu", i);
		CHECK(splitzip_decompress_dtype(ctx, frames[i].data(), frames[i].size(),
		                                host.data(), host.size() - 1,
		                                &hn) == SPLITZIP_ERROR_DST_TOO_SMALL,
		      "host-memory call, a byte less");
	}
	/* the batch: every dtype at once, frame 4 damaged */
	const size_t nf = frames.size();
	frames[4][frames[4].size() / 2] ^= 0x20;
	std::vector<dbuf *> srcs, dsts;
	std::vector<const void *> sp;
	std::vector<void *> dp;
	std::vector<size_t> sizes, caps;
	size_t max = 0;
	for (size_t i = 0; i < nf; i++) {
		srcs.push_back(new dbuf(frames[i].data(), frames[i].size()));
		dsts.push_back(new dbuf(els[i].size()));
		sp.push_back(srcs.back()->p);
		dp.push_back(dsts.back()->p);
		sizes.push_back(frames[i].size());
		caps.push_back(els[i].size());
		max = caps.back() > max ? caps.back() : max;
	}
	dbuf d_sp(sp.data(), nf * sizeof(void *)), d_dp(dp.data(), nf * sizeof(void *));
	dbuf d_sizes(sizes.data(), nf * sizeof(size_t)), d_caps(caps.data(), nf * sizeof(size_t));
	CHECK(splitzip_decompress_dtype_batch_async(
	          ctx, nf, (const void *const *)d_sp.p, d_sizes.as<size_t>(), (void *const *)d_dp.p,
	          d_caps.as<size_t>(), max, d_n, d_st, ws.p, wsb, nullptr) == SPLITZIP_OK,
	      "batch enqueue");
	RT(SZ_RT(DeviceSynchronize)());
	const std::vector<int32_t> st = to_host<int32_t>(d_st, nf);
	for (size_t i = 0; i < nf; i++) {
		const std::vector<uint8_t> got = to_host<uint8_t>(dsts[i]->p, caps[i]);
		std::vector<uint8_t> host(caps[i]);
		size_t hn = 0;
		splitzip_ctx *sc = make_ctx(SPLITZIP_BACKEND_SCALAR, p);
		const int32_t hs = splitzip_decompress_dtype(sc, frames[i].data(), frames[i].size(),
		                                             host.data(), host.size(), &hn);
		splitzip_ctx_free(sc);
		CHECK(st[i] == hs && (hs != SPLITZIP_OK || got == els[i]),
		      "batch frame %zu: %d, host %d", i, st[i], hs);
		delete srcs[i];
		delete dsts[i];
	}
	CHECK(st[4] != SPLITZIP_OK, "the damaged frame decoded");
	const int ia = SPLITZIP_ERROR_INVALID_ARGUMENT;
	CHECK(splitzip_decompress_dtype_async(ctx, nullptr, 64, ws.p, 8, d_n, d_st, ws.p, wsb,
	                                      nullptr) == ia,
	      "NULL source");
	CHECK(splitzip_decompress_dtype_async(ctx, ws.p, 64, ws.p, 8, d_n, d_st, ws.as<char>() + 8,
	                                      wsb, nullptr) == ia,
	      "workspace + 8");
	const splitzip_status small =
	    splitzip_decompress_dtype_async(ctx, ws.p, 64, ws.p, 8, d_n, d_st, ws.p, 255, nullptr);
	CHECK(small == ia, "workspace too small: %d", (int)small);
	splitzip_ctx_free(ctx);
}

/*
 * Codebooks from the input of frames of 2^22 elements or more are predicted from a sample:
 * real KV (the prediction holds), frames whose sampled chunks differ from the rest (a second
 * pass), random bits (a stored frame guessed from the sample).
 */
static void test_prediction(void)
{
	const size_t n = ((size_t)1 << 22) + 4099;
	std::vector<std::vector<uint16_t>> inputs(3, std::vector<uint16_t>(n));
	uint64_t seed = 17;
	for (size_t i = 0; i < n; i++) {
		inputs[0][i] = g_kv[i % g_nkv];
		const uint64_t r = sz_test_rand(&seed);
		const bool sampled =
		    ((i >> 12) % 16) == 0; /* the chunks a sample of L = 12 reads */
		inputs[1][i] =
		    (uint16_t)(((r >> 8) & 0x807F) | (sampled ? 100 + r % 16 : 116 + r % 16) << 7);
		inputs[2][i] = (uint16_t)(r >> 40);
	}
	const char *what[] = {"real KV", "mispredicted", "random"};
	for (int k = 0; k < 3; k++)
		for (unsigned flags = 0; flags < 2; flags++) {
			params p;
			p.flags = flags;
			splitzip_ctx *ctx = make_ctx(k_dev, p);
			int32_t st = -1;
			const std::vector<uint8_t> got =
			    dev_compress(ctx, inputs[k], splitzip_compress_bound(n), &st);
			CHECK(st == SPLITZIP_OK && got == oracle_compress(inputs[k], p),
			      "prediction, %s, flags %u: %d", what[k], flags, st);
			splitzip_ctx_free(ctx);
		}
}

int main(int argc, char **argv)
{
	tiny = argc > 1 && !strcmp(argv[1], "--tiny");
	quick = tiny || (argc > 1 && !strcmp(argv[1], "--quick"));
	params p;
	splitzip_ctx *probe = make_ctx(k_dev, p);
	if (!probe) {
		const char *req = getenv("SPLITZIP_REQUIRE_GPU");
		printf("no usable %s device: %s\n", SZ_RT_MODULE_NAME,
		       req && !strcmp(req, "1") ? "FAILED (SPLITZIP_REQUIRE_GPU=1)" : "skipped");
		return req && !strcmp(req, "1") ? 1 : 77;
	}
	splitzip_ctx_free(probe);
	g_kv = sz_test_load_kv("K", &g_nkv);
	CHECK(g_kv != nullptr, "real KV sample");
	if (!g_kv)
		return 1;
	test_frames();
	test_entropy();
	test_corrupt();
	test_batch();
	test_graph_and_streams();
	test_alignment();
	test_dtypes();
	if (!quick)
		test_prediction();
	free(g_kv);
	printf("%s: %s\n", SZ_RT_MODULE_NAME, failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
