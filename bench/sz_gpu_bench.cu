/*
 * sz_gpu_bench.cu -- GPU throughput of splitzip through the public device API, each figure next
 * to a device-to-device copy of the same bytes measured in the same run. GB/s is uncompressed
 * bytes per second (10^9); "x copy" is the ratio to the copy's GB/s (which counts the bytes
 * once: it moves 2 bytes read + 2 written per element).
 *
 *   sz_gpu_bench [--quick] [--set full|check|ncu] [--reps N] [--max-mib M] KV_FILE...
 *
 * Sets of rows: full (the default, below); check (what ci/gpu-check.sh measures in its one
 * run: frames of 512 MiB and 4 GiB, 1 and 5 % escapes, the checksum on and off, 4096 x 128 KiB
 * and 32768 x 16 KiB pages, entropy frames encoded and decoded, 128 MiB of FP16, FP32 and FP8
 * in the entropy encoding); ncu (each hot kernel a few
 * times on 512 MiB, for one Nsight Compute pass: no timing of interest).
 *
 * Data: the real BF16 KV files given, tiled to each size. The fixed codebook is calibrated on
 * other data than the one measured (the files' second half measures, their first half
 * calibrates, as a serving stack calibrates offline). Escape rates are raised by moving a share
 * of the elements' exponents outside that codebook.
 *
 * Method: each call is timed alone with CUDA events around it (the full async call: launches
 * included), after a write of twice the L2 size to a scratch buffer (so no input starts in L2),
 * median of the repetitions after a warm-up. Every result is checked: frames of both codebook
 * modes byte for byte against the CPU encoder (the scalar oracle's bytes), decoded outputs
 * against the input, statuses. Rows: one frame of 1 MiB to 4 GiB; escape rates 0-20 %; the
 * content checksum on and off; KV pages of 16 KiB to 2 MiB in one batched call; incompressible
 * input (the stored fallback); a 4 MiB frame replayed as a CUDA graph. Prints Markdown tables
 * (doc/BENCHMARKS.md, GPU section).
 */
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "splitzip.h"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#define RT(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
			        cudaGetErrorString(e_));                                           \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)
#define SZ(call)                                                                                   \
	do {                                                                                       \
		splitzip_status s_ = (call);                                                       \
		if (s_ != SPLITZIP_OK) {                                                           \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
			        splitzip_error_string(s_));                                        \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

/* A device allocation, freed with its owner. */
struct dmem {
	void *p = nullptr;
	size_t n = 0;
	explicit dmem(size_t bytes) : n(bytes)
	{
		RT(cudaMalloc(&p, bytes ? bytes : 1));
	}
	~dmem()
	{
		cudaFree(p);
	}
	dmem(const dmem &) = delete;
	dmem &operator=(const dmem &) = delete;
	template <typename T> T *as() const
	{
		return static_cast<T *>(p);
	}
};

/* What every measurement shares. */
struct bench {
	cudaStream_t s;
	int reps = 15;
	bool quick = false;
	size_t max_mib = 4096;
	dmem *flush = nullptr;     /* written before each timed call: evicts L2 */
	splitzip_codebook cb;      /* calibrated on other data */
	splitzip_entropy_table et; /* likewise, for entropy frames */
	bool entropy = false;      /* contexts use the entropy encoding (mode 2) */
	std::string set = "full";  /* the rows: full, check or ncu */
	std::vector<uint16_t> kv, calib;
	int failures = 0;
};

static splitzip_ctx *make_ctx(const bench &b, bool fixed, bool checksum, splitzip_backend_id id)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = id;
	p.flags = checksum ? SPLITZIP_FLAG_CONTENT_CHECKSUM : 0;
	if (fixed) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = b.cb;
	}
	if (b.entropy) {
		p.encoding = SPLITZIP_ENCODING_ENTROPY;
		if (fixed) {
			p.table_mode = SPLITZIP_CODEBOOK_FIXED;
			p.table = b.et;
		}
	}
	splitzip_ctx *ctx = nullptr;
	SZ(splitzip_ctx_create(&p, &ctx));
	return ctx;
}

/* Median milliseconds of fn() on b.s, each run after the L2 flush, events around the call. */
template <class F> static double time_ms(bench &b, F fn)
{
	cudaEvent_t e0, e1;
	RT(cudaEventCreate(&e0));
	RT(cudaEventCreate(&e1));
	fn(); /* warm-up: module load, first-touch of the buffers */
	std::vector<float> t;
	for (int i = 0; i < b.reps; i++) {
		RT(cudaMemsetAsync(b.flush->p, i & 0xFF, b.flush->n, b.s));
		RT(cudaEventRecord(e0, b.s));
		fn();
		RT(cudaEventRecord(e1, b.s));
		RT(cudaEventSynchronize(e1));
		float ms = 0;
		RT(cudaEventElapsedTime(&ms, e0, e1));
		t.push_back(ms);
	}
	RT(cudaEventDestroy(e0));
	RT(cudaEventDestroy(e1));
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

static double gbs(double bytes, double ms)
{
	return bytes / (ms * 1e6);
}

/* n elements of the measured KV, tiled; a share 'esc' of them get an exponent from 'far' (one
 * outside the calibrated codebook). */
static std::vector<uint16_t> make_input(const bench &b, size_t n, double esc, bool random)
{
	std::vector<uint16_t> h(n);
	uint64_t x = 0x9E3779B97F4A7C15ull;
	const uint8_t far = b.cb.exponents[0] > 20 ? 3 : 250;
	const uint64_t every = esc > 0 ? (uint64_t)(1.0 / esc) : 0;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (random) {
			h[i] = (uint16_t)(x >> 24);
			continue;
		}
		h[i] = b.kv[i % b.kv.size()];
		if (every && x % every == 0)
			h[i] = (uint16_t)((h[i] & 0x807F) | (far + (x >> 40) % 3) << 7);
	}
	return h;
}

/* The CPU encoder's frame of h (the oracle's bytes: every backend writes the same). */
static std::vector<uint8_t> cpu_frame(const bench &b, const std::vector<uint16_t> &h, bool fixed,
                                      bool checksum)
{
	splitzip_ctx *ctx = make_ctx(b, fixed, checksum, SPLITZIP_BACKEND_AUTO);
	std::vector<uint8_t> f(splitzip_compress_bound(h.size()));
	size_t size = 0;
	SZ(splitzip_compress(ctx, h.data(), h.size(), f.data(), f.size(), &size));
	splitzip_ctx_free(ctx);
	f.resize(size);
	return f;
}

static void check(bench &b, bool ok, const char *what, const std::string &row)
{
	if (!ok) {
		fprintf(stderr, "CHECK FAILED: %s (%s)\n", what, row.c_str());
		b.failures++;
	}
}

/* The device frame written by the last call equals the CPU encoder's. */
static void check_frame(bench &b, const dmem &dst, const dmem &res,
                        const std::vector<uint8_t> &want, const std::string &row)
{
	size_t r[2];
	RT(cudaMemcpy(r, res.p, sizeof r, cudaMemcpyDeviceToHost));
	std::vector<uint8_t> got(want.size());
	const bool sized = (int32_t)r[1] == SPLITZIP_OK && r[0] == want.size();
	if (sized)
		RT(cudaMemcpy(got.data(), dst.p, got.size(), cudaMemcpyDeviceToHost));
	check(b, sized && got == want, "frame equals the CPU encoder's", row);
}

/* The figures of one row (GB/s; 0: not measured) and the compression ratio. */
struct figures {
	double copy, enc_fixed, enc_fi, dec, ratio;
};

static void print_row(const std::string &row, const figures &f)
{
	auto col = [&](double v) {
		static char buf[64];
		if (v <= 0)
			snprintf(buf, sizeof buf, "-");
		else
			snprintf(buf, sizeof buf, "%.0f (%.2fx)", v, v / f.copy);
		return std::string(buf);
	};
	printf("| %s | %.0f | %s | %s | %s | %.4f |\n", row.c_str(), f.copy,
	       col(f.enc_fixed).c_str(), col(f.enc_fi).c_str(), col(f.dec).c_str(), f.ratio);
	fflush(stdout);
}

/* GB/s of a device-to-device copy of 'bytes' bytes from src to copy (the reference). */
static double time_copy(bench &b, const dmem &src, const dmem &copy, size_t bytes)
{
	return gbs(bytes, time_ms(b, [&] {
		           RT(cudaMemcpyAsync(copy.p, src.p, bytes, cudaMemcpyDeviceToDevice, b.s));
	           }));
}

/* Time one compress_async of src into dst (results in res) with ctx, and check the frame. */
static double time_encode(bench &b, splitzip_ctx *ctx, const dmem &src, size_t n, const dmem &dst,
                          const dmem &ws, const dmem &res, const std::vector<uint8_t> &want,
                          const std::string &row)
{
	const size_t cap = dst.n;
	const double ms = time_ms(b, [&] {
		SZ(splitzip_compress_async(ctx, src.as<uint16_t>(), n, dst.p, cap, res.as<size_t>(),
		                           (int32_t *)(res.as<size_t>() + 1), ws.p, ws.n, b.s));
	});
	check_frame(b, dst, res, want, row);
	return gbs(2.0 * n, ms);
}

/* Time decompress_async of the frame in dst into out and check out == h. */
static double time_decode(bench &b, splitzip_ctx *ctx, const dmem &dst, size_t fsize,
                          const dmem &out, const dmem &wsd, const dmem &res,
                          const std::vector<uint16_t> &h, const std::string &row)
{
	const size_t n = h.size();
	const double ms = time_ms(b, [&] {
		SZ(splitzip_decompress_async(ctx, dst.p, fsize, out.as<uint16_t>(), n,
		                             res.as<size_t>() + 2,
		                             (int32_t *)(res.as<size_t>() + 3), wsd.p, wsd.n, b.s));
	});
	size_t r[2];
	RT(cudaMemcpy(r, res.as<size_t>() + 2, sizeof r, cudaMemcpyDeviceToHost));
	std::vector<uint16_t> back(n);
	RT(cudaMemcpy(back.data(), out.p, 2 * n, cudaMemcpyDeviceToHost));
	check(b, (int32_t)r[1] == SPLITZIP_OK && r[0] == n && back == h, "decoded output", row);
	return gbs(2.0 * n, ms);
}

/* One frame of h: copy, encode with the fixed codebook and the codebook from the input,
 * decode (the fixed codebook's frame); every result checked. */
static figures run_frame(bench &b, const std::vector<uint16_t> &h, bool checksum,
                         const std::string &row)
{
	const size_t n = h.size(), bytes = 2 * n, cap = splitzip_compress_bound(n);
	splitzip_ctx *fx = make_ctx(b, true, checksum, SPLITZIP_BACKEND_CUDA);
	splitzip_ctx *fi = make_ctx(b, false, checksum, SPLITZIP_BACKEND_CUDA);
	size_t wsb = 0, wsdb = 0;
	SZ(splitzip_workspace_size(fx, n, &wsb));
	SZ(splitzip_decompress_workspace_size(fx, 1, &wsdb));
	dmem src(bytes), copy(bytes), out(bytes), dst(cap), ws(wsb), wsd(wsdb), res(64);
	RT(cudaMemcpy(src.p, h.data(), bytes, cudaMemcpyHostToDevice));
	figures f = {0, 0, 0, 0, 0};
	f.copy = time_copy(b, src, copy, bytes);
	f.enc_fi = time_encode(b, fi, src, n, dst, ws, res, cpu_frame(b, h, false, checksum), row);
	const std::vector<uint8_t> want = cpu_frame(b, h, true, checksum);
	f.enc_fixed = time_encode(b, fx, src, n, dst, ws, res, want, row);
	f.dec = time_decode(b, fx, dst, want.size(), out, wsd, res, h, row);
	f.ratio = (double)bytes / (double)want.size();
	splitzip_ctx_free(fx);
	splitzip_ctx_free(fi);
	return f;
}

/* A batch of pages on the device: one contiguous input, frames and outputs, and the
 * descriptor arrays of splitzip_*_batch_async. */
struct page_batch {
	size_t nf, page, cap;
	dmem *src, *dst, *out, *d_src, *d_dst, *d_out, *d_n, *d_cap, *d_sizes, *d_st, *d_n2, *d_st2;
	dmem *ws, *wsd;
	page_batch(splitzip_ctx *ctx, const std::vector<uint16_t> &h, size_t page_elems);
	~page_batch();
};

page_batch::page_batch(splitzip_ctx *ctx, const std::vector<uint16_t> &h, size_t page_elems)
    : nf(h.size() / page_elems), page(page_elems), cap(splitzip_compress_bound(page_elems))
{
	src = new dmem(2 * h.size());
	dst = new dmem(nf * cap);
	out = new dmem(2 * h.size());
	RT(cudaMemcpy(src->p, h.data(), 2 * h.size(), cudaMemcpyHostToDevice));
	std::vector<const void *> ps(nf), pd(nf), po(nf);
	for (size_t f = 0; f < nf; f++) {
		ps[f] = src->as<uint16_t>() + f * page;
		pd[f] = dst->as<uint8_t>() + f * cap;
		po[f] = out->as<uint16_t>() + f * page;
	}
	auto upload = [&](const void *host, size_t bytes) {
		dmem *d = new dmem(bytes);
		RT(cudaMemcpy(d->p, host, bytes, cudaMemcpyHostToDevice));
		return d;
	};
	d_src = upload(ps.data(), nf * sizeof(void *));
	d_dst = upload(pd.data(), nf * sizeof(void *));
	d_out = upload(po.data(), nf * sizeof(void *));
	const std::vector<size_t> ns(nf, page), caps(nf, cap);
	d_n = upload(ns.data(), nf * sizeof(size_t));
	d_cap = upload(caps.data(), nf * sizeof(size_t));
	d_sizes = new dmem(nf * sizeof(size_t));
	d_st = new dmem(nf * sizeof(int32_t));
	d_n2 = new dmem(nf * sizeof(size_t));
	d_st2 = new dmem(nf * sizeof(int32_t));
	size_t wsb = 0, wsdb = 0;
	SZ(splitzip_workspace_size_batch(ctx, nf, page, &wsb));
	SZ(splitzip_decompress_workspace_size(ctx, nf, &wsdb));
	ws = new dmem(wsb);
	wsd = new dmem(wsdb);
}

page_batch::~page_batch()
{
	for (dmem *d :
	     {src, dst, out, d_src, d_dst, d_out, d_n, d_cap, d_sizes, d_st, d_n2, d_st2, ws, wsd})
		delete d;
}

/* Time compress_batch_async of every page with ctx, and check each frame against the CPU
 * encoder's frame of its page; returns the total frame bytes through *total. */
static double time_encode_pages(bench &b, splitzip_ctx *ctx, page_batch &pb,
                                const std::vector<uint16_t> &h, bool fixed, bool checksum,
                                const std::string &row, size_t *total)
{
	const double ms = time_ms(b, [&] {
		SZ(splitzip_compress_batch_async(
		    ctx, pb.nf, pb.d_src->as<const uint16_t *const>(), pb.d_n->as<size_t>(),
		    pb.page, pb.d_dst->as<void *const>(), pb.d_cap->as<size_t>(),
		    pb.d_sizes->as<size_t>(), pb.d_st->as<int32_t>(), pb.ws->p, pb.ws->n, b.s));
	});
	std::vector<size_t> sizes(pb.nf);
	std::vector<int32_t> st(pb.nf);
	std::vector<uint8_t> frames(pb.nf * pb.cap);
	RT(cudaMemcpy(sizes.data(), pb.d_sizes->p, pb.nf * sizeof(size_t), cudaMemcpyDeviceToHost));
	RT(cudaMemcpy(st.data(), pb.d_st->p, pb.nf * sizeof(int32_t), cudaMemcpyDeviceToHost));
	RT(cudaMemcpy(frames.data(), pb.dst->p, frames.size(), cudaMemcpyDeviceToHost));
	bool ok = true;
	*total = 0;
	for (size_t f = 0; f < pb.nf; f++) {
		const std::vector<uint16_t> page(h.begin() + (long)(f * pb.page),
		                                 h.begin() + (long)((f + 1) * pb.page));
		const std::vector<uint8_t> want = cpu_frame(b, page, fixed, checksum);
		ok &= st[f] == SPLITZIP_OK && sizes[f] == want.size() &&
		      memcmp(frames.data() + f * pb.cap, want.data(), want.size()) == 0;
		*total += sizes[f];
	}
	check(b, ok, "every page's frame equals the CPU encoder's", row);
	return gbs(2.0 * h.size(), ms);
}

static double time_decode_pages(bench &b, splitzip_ctx *ctx, page_batch &pb,
                                const std::vector<uint16_t> &h, const std::string &row)
{
	const double ms = time_ms(b, [&] {
		SZ(splitzip_decompress_batch_async(
		    ctx, pb.nf, pb.d_dst->as<const void *const>(), pb.d_sizes->as<size_t>(),
		    pb.d_out->as<uint16_t *const>(), pb.d_n->as<size_t>(), pb.page,
		    pb.d_n2->as<size_t>(), pb.d_st2->as<int32_t>(), pb.wsd->p, pb.wsd->n, b.s));
	});
	std::vector<int32_t> st(pb.nf);
	std::vector<uint16_t> back(h.size());
	RT(cudaMemcpy(st.data(), pb.d_st2->p, pb.nf * sizeof(int32_t), cudaMemcpyDeviceToHost));
	RT(cudaMemcpy(back.data(), pb.out->p, 2 * h.size(), cudaMemcpyDeviceToHost));
	bool ok = back == h;
	for (int32_t s : st)
		ok &= s == SPLITZIP_OK;
	check(b, ok, "every page decodes to its input", row);
	return gbs(2.0 * h.size(), ms);
}

/* Pages of 'page' elements, 'total' elements in all, one batched call each way. */
static figures run_pages(bench &b, size_t page, size_t total, bool checksum, const std::string &row)
{
	const std::vector<uint16_t> h = make_input(b, total, 0, false);
	splitzip_ctx *fx = make_ctx(b, true, checksum, SPLITZIP_BACKEND_CUDA);
	splitzip_ctx *fi = make_ctx(b, false, checksum, SPLITZIP_BACKEND_CUDA);
	page_batch pb(fx, h, page);
	dmem copy(2 * total);
	figures f = {0, 0, 0, 0, 0};
	f.copy = gbs(2.0 * total, time_ms(b, [&] {
		             RT(cudaMemcpyAsync(copy.p, pb.src->p, 2 * total,
		                                cudaMemcpyDeviceToDevice, b.s));
	             }));
	size_t bytes = 0;
	f.enc_fi = time_encode_pages(b, fi, pb, h, false, checksum, row, &bytes);
	f.enc_fixed = time_encode_pages(b, fx, pb, h, true, checksum, row, &bytes);
	f.dec = time_decode_pages(b, fx, pb, h, row);
	f.ratio = 2.0 * (double)total / (double)bytes;
	splitzip_ctx_free(fx);
	splitzip_ctx_free(fi);
	return f;
}

/* Time the replay of a graph that holds one call (captured from fn on b.s). */
template <class F> static double time_graph(bench &b, F fn)
{
	cudaGraph_t g;
	cudaGraphExec_t e;
	RT(cudaStreamBeginCapture(b.s, cudaStreamCaptureModeGlobal));
	fn();
	RT(cudaStreamEndCapture(b.s, &g));
	RT(cudaGraphInstantiate(&e, g, 0));
	const double ms = time_ms(b, [&] { RT(cudaGraphLaunch(e, b.s)); });
	RT(cudaGraphExecDestroy(e));
	RT(cudaGraphDestroy(g));
	return ms;
}

/* A 4 MiB frame (fixed codebook) whose calls are replayed as CUDA graphs; the copy too. */
static figures run_graph(bench &b, const std::string &row)
{
	const size_t n = 2u << 20, bytes = 2 * n, cap = splitzip_compress_bound(n);
	const std::vector<uint16_t> h = make_input(b, n, 0, false);
	const std::vector<uint8_t> want = cpu_frame(b, h, true, false);
	splitzip_ctx *fx = make_ctx(b, true, false, SPLITZIP_BACKEND_CUDA);
	size_t wsb = 0, wsdb = 0;
	SZ(splitzip_workspace_size(fx, n, &wsb));
	SZ(splitzip_decompress_workspace_size(fx, 1, &wsdb));
	dmem src(bytes), copy(bytes), out(bytes), dst(cap), ws(wsb), wsd(wsdb), res(64);
	RT(cudaMemcpy(src.p, h.data(), bytes, cudaMemcpyHostToDevice));
	size_t *r = res.as<size_t>();
	figures f = {0, 0, 0, 0, (double)bytes / (double)want.size()};
	f.copy =
	    gbs(bytes, time_graph(b, [&] {
		        RT(cudaMemcpyAsync(copy.p, src.p, bytes, cudaMemcpyDeviceToDevice, b.s));
	        }));
	f.enc_fixed =
	    gbs(bytes, time_graph(b, [&] {
		        SZ(splitzip_compress_async(fx, src.as<uint16_t>(), n, dst.p, cap, r,
		                                   (int32_t *)(r + 1), ws.p, wsb, b.s));
	        }));
	check_frame(b, dst, res, want, row);
	f.dec =
	    gbs(bytes, time_graph(b, [&] {
		        SZ(splitzip_decompress_async(fx, dst.p, want.size(), out.as<uint16_t>(), n,
		                                     r + 2, (int32_t *)(r + 3), wsd.p, wsdb, b.s));
	        }));
	std::vector<uint16_t> back(n);
	RT(cudaMemcpy(back.data(), out.p, bytes, cudaMemcpyDeviceToHost));
	check(b, back == h, "graph replay decodes the input", row);
	splitzip_ctx_free(fx);
	return f;
}

/* The KV files, concatenated: the first half of each calibrates, the second half measures. */
static bool load_kv(bench &b, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			i += strcmp(argv[i], "--reps") == 0 || strcmp(argv[i], "--max-mib") == 0 ||
			     strcmp(argv[i], "--set") == 0;
			continue;
		}
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "cannot open %s\n", argv[i]);
			return false;
		}
		std::vector<uint16_t> v;
		uint16_t buf[4096];
		size_t got;
		while ((got = fread(buf, 2, 4096, f)) > 0)
			v.insert(v.end(), buf, buf + got);
		fclose(f);
		b.calib.insert(b.calib.end(), v.begin(), v.begin() + (long)(v.size() / 2));
		b.kv.insert(b.kv.end(), v.begin() + (long)(v.size() / 2), v.end());
	}
	if (b.kv.empty())
		return false;
	SZ(splitzip_calibrate(b.calib.data(), b.calib.size(), &b.cb));
	SZ(splitzip_entropy_calibrate(b.calib.data(), b.calib.size(), &b.et));
	return true;
}

static void options(bench &b, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			b.quick = true;
			b.reps = 7;
			b.max_mib = 64;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			b.reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--max-mib") && i + 1 < argc) {
			b.max_mib = (size_t)atoll(argv[++i]);
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			b.set = argv[++i];
			if (b.set == "ncu")
				b.reps = 2;
		}
	}
}

static void print_header(const bench &b)
{
	cudaDeviceProp prop;
	RT(cudaGetDeviceProperties(&prop, 0));
	int drv = 0, rtv = 0;
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rtv);
	printf(
	    "GPU: %s (sm_%d%d, %d SMs, %.0f GiB, L2 %d MiB), driver %d, runtime %d; splitzip "
	    "%s. Data: %zu real KV elements tiled (codebook calibrated on %zu others). Median of "
	    "%d calls, each after an L2 flush, CUDA events around the full async call.\n\n",
	    prop.name, prop.major, prop.minor, prop.multiProcessorCount,
	    (double)prop.totalGlobalMem / (1 << 30), prop.l2CacheSize >> 20, drv, rtv,
	    splitzip_version_string(), b.kv.size(), b.calib.size(), b.reps);
	printf(
	    "| workload | D2D copy GB/s | encode, fixed codebook GB/s (x copy) | encode, codebook "
	    "from input GB/s (x copy) | decode GB/s (x copy) | ratio |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
}

/* One frame per size, then escape rates, the checksum and incompressible input at 'big'. */
static void frame_rows(bench &b, size_t big_mib)
{
	const size_t sizes[] = {1, 4, 16, 64, 256, 512, 4096};
	for (size_t mib : sizes) {
		if (mib > b.max_mib || (b.quick && mib != 1 && mib != 4 && mib != 64))
			continue;
		const std::string row = std::to_string(mib) + " MiB, one frame";
		print_row(row, run_frame(b, make_input(b, mib << 19, 0, false), false, row));
	}
	const size_t n = big_mib << 19;
	const std::string at = std::to_string(big_mib) + " MiB, ";
	print_row(at + "content checksum",
	          run_frame(b, make_input(b, n, 0, false), true, at + "content checksum"));
	print_row("4 MiB, content checksum",
	          run_frame(b, make_input(b, 2u << 20, 0, false), true, "4 MiB, content checksum"));
	for (double esc : {0.01, 0.05, 0.20}) {
		const std::string row = at + "+" + std::to_string((int)(esc * 100)) + " % escapes";
		print_row(row, run_frame(b, make_input(b, n, esc, false), false, row));
	}
	print_row(at + "random bits (stored)",
	          run_frame(b, make_input(b, n, 0, true), false, at + "random bits (stored)"));
}

/* Batches of pages of 16 KiB to 2 MiB, 'total_mib' in all per call; the checksum once. */
static void page_rows(bench &b, size_t total_mib)
{
	const size_t pages_kib[] = {16, 64, 128, 512, 2048};
	const size_t total = total_mib << 19;
	for (size_t kib : pages_kib) {
		const size_t page = kib << 9;
		const std::string row = std::to_string(total / page) + " x " + std::to_string(kib) +
		                        " KiB pages, one call";
		print_row(row, run_pages(b, page, total, false, row));
	}
	const std::string row =
	    std::to_string(total / 65536) + " x 128 KiB pages, content checksum";
	print_row(row, run_pages(b, 65536, total, true, row));
}

/* Entropy frames (mode 2, chunks of 2^14): the same method; "fixed" is the table calibrated
 * on other data, "from input" each frame's own table (the issue's H200 targets: decode 1000,
 * known table 600, own table 450 GB/s). */
static void entropy_rows(bench &b, size_t big_mib)
{
	b.entropy = true;
	printf("\nEntropy frames (mode 2): the columns \"fixed codebook\" and \"codebook from "
	       "input\" are the calibrated table and each frame's own table.\n\n");
	printf("| workload | D2D copy GB/s | encode, calibrated table GB/s (x copy) | encode, "
	       "table from input GB/s (x copy) | decode GB/s (x copy) | ratio |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	const size_t sizes[] = {1, 4, 64, 512};
	for (size_t mib : sizes) {
		if (mib > b.max_mib || (b.quick && mib != 1 && mib != 64))
			continue;
		const std::string row = std::to_string(mib) + " MiB, one entropy frame";
		print_row(row, run_frame(b, make_input(b, mib << 19, 0, false), false, row));
	}
	const std::string row = std::to_string(big_mib) + " MiB, entropy, content checksum";
	print_row(row, run_frame(b, make_input(b, big_mib << 19, 0, false), true, row));
	const std::string e = std::to_string(big_mib) + " MiB, entropy, +5 % escapes";
	print_row(e, run_frame(b, make_input(b, big_mib << 19, 0.05, false), false, e));
	const std::string r = std::to_string(big_mib) + " MiB, entropy, random bits (stored)";
	print_row(r, run_frame(b, make_input(b, big_mib << 19, 0, true), false, r));
	b.entropy = false;
}

/* One frame row: h, with or without the checksum, named "<mib> MiB, <what>". */
static void frame_row(bench &b, size_t mib, double esc, bool checksum, const std::string &what)
{
	if (mib > b.max_mib)
		return;
	const std::string row =
	    (mib >= 1024 ? std::to_string(mib >> 10) + " GiB, " : std::to_string(mib) + " MiB, ") +
	    what;
	print_row(row, run_frame(b, make_input(b, mib << 19, esc, false), checksum, row));
}

static void dtype_rows(bench &b);

/* The rows of ci/gpu-check.sh (doc/BENCHMARKS.md, the GPU table). */
static void check_rows(bench &b)
{
	for (size_t mib : {(size_t)512, (size_t)4096}) {
		frame_row(b, mib, 0, false, "one frame");
		frame_row(b, mib, 0, true, "content checksum");
	}
	frame_row(b, 512, 0.01, false, "+1 % escapes");
	frame_row(b, 512, 0.05, false, "+5 % escapes");
	const size_t total = (b.max_mib < 512 ? b.max_mib : 512) << 19;
	for (size_t kib : {(size_t)128, (size_t)16})
		for (int cs = 0; cs < 2; cs++) {
			const std::string row = std::to_string(total / (kib << 9)) + " x " +
			                        std::to_string(kib) + " KiB pages, one call" +
			                        (cs ? ", content checksum" : "");
			print_row(row, run_pages(b, kib << 9, total, cs != 0, row));
		}
	b.entropy = true;
	printf("\nEntropy frames (mode 2): the columns \"fixed codebook\" and \"codebook from "
	       "input\" are the calibrated table and each frame's own table.\n\n");
	printf("| workload | D2D copy GB/s | encode, calibrated table GB/s (x copy) | encode, "
	       "table from input GB/s (x copy) | decode GB/s (x copy) | ratio |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	frame_row(b, 512, 0, false, "one entropy frame");
	frame_row(b, 512, 0, true, "entropy, content checksum");
	frame_row(b, 512, 0.01, false, "entropy, +1 % escapes");
	b.entropy = false;
	dtype_rows(b);
}

/* n elements of 'dtype' made from the measured BF16 KV as an engine makes its caches: FP32 the
 * values with random low mantissa bits (as a model's FP32 has), FP16 and FP8 rounded to
 * nearest-even from them (FP8 saturating, the per-tensor scale 1). */
static std::vector<uint8_t> dtype_input(const bench &b, unsigned dtype, size_t n)
{
	const size_t w = splitzip_dtype_width(dtype);
	std::vector<uint8_t> v(w * n);
	uint64_t x = 0x2545F4914F6CDD1Dull;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint32_t u = (uint32_t)b.kv[i % b.kv.size()] << 16 | (uint32_t)(x & 0xFFFF);
		float f;
		memcpy(&f, &u, 4);
		if (dtype == SPLITZIP_DTYPE_FP16) {
			const __half h = __float2half_rn(f);
			memcpy(&u, &h, 2);
		} else if (dtype == SPLITZIP_DTYPE_FP8_E4M3) {
			u = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
		} else if (dtype == SPLITZIP_DTYPE_FP8_E5M2) {
			u = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
		}
		memcpy(&v[w * i], &u, w);
	}
	return v;
}

/*
 * One frame of 'dtype' (splitzip_compress_dtype_async, the table from the input, and
 * splitzip_decompress_dtype_async), next to a copy of the same bytes: the frame checked byte
 * for byte against the CPU's, the output against the input.
 */
static figures run_dtype(bench &b, unsigned dtype, const std::vector<uint8_t> &h,
                         splitzip_encoding enc, const std::string &row)
{
	const size_t bytes = h.size(), n = bytes / splitzip_dtype_width(dtype);
	const size_t cap = splitzip_compress_bound_dtype(dtype, n);
	splitzip_params p;
	splitzip_params_init(&p);
	p.encoding = enc;
	splitzip_ctx *cpu = nullptr, *dev = nullptr;
	SZ(splitzip_ctx_create(&p, &cpu));
	p.backend = SPLITZIP_BACKEND_CUDA;
	SZ(splitzip_ctx_create(&p, &dev));
	std::vector<uint8_t> want(cap);
	size_t wsize = 0, wsb = 0, wsdb = 0;
	SZ(splitzip_compress_dtype(cpu, dtype, h.data(), n, want.data(), cap, &wsize));
	want.resize(wsize);
	SZ(splitzip_workspace_size_dtype(dev, dtype, n, &wsb));
	SZ(splitzip_decompress_workspace_size(dev, 1, &wsdb));
	dmem src(bytes), copy(bytes), out(bytes), dst(cap), ws(wsb), wsd(wsdb), res(64);
	RT(cudaMemcpy(src.p, h.data(), bytes, cudaMemcpyHostToDevice));
	figures f = {0, 0, 0, 0, 0};
	f.copy = time_copy(b, src, copy, bytes);
	f.enc_fi = gbs(bytes, time_ms(b, [&] {
		               SZ(splitzip_compress_dtype_async(
		                   dev, dtype, src.p, n, dst.p, cap, res.as<size_t>(),
		                   (int32_t *)(res.as<size_t>() + 1), ws.p, ws.n, b.s));
	               }));
	check_frame(b, dst, res, want, row);
	f.dec = gbs(bytes, time_ms(b, [&] {
		            SZ(splitzip_decompress_dtype_async(
		                dev, dst.p, wsize, out.p, bytes, res.as<size_t>() + 2,
		                (int32_t *)(res.as<size_t>() + 3), wsd.p, wsd.n, b.s));
	            }));
	size_t r[2];
	RT(cudaMemcpy(r, res.as<size_t>() + 2, sizeof r, cudaMemcpyDeviceToHost));
	std::vector<uint8_t> back(bytes);
	RT(cudaMemcpy(back.data(), out.p, bytes, cudaMemcpyDeviceToHost));
	check(b, (int32_t)r[1] == SPLITZIP_OK && r[0] == n && back == h, "decoded output", row);
	f.ratio = (double)bytes / (double)wsize;
	splitzip_ctx_free(cpu);
	splitzip_ctx_free(dev);
	return f;
}

/* The dtype rows of the check set: 128 MiB of each dtype in the entropy encoding (the CPU
 * oracle that checks each frame codes them in one thread: the rows stay within the check's
 * time). */
static void dtype_rows(bench &b)
{
	printf("\nOther dtypes (the table from the input; the fixed-table column is not measured)."
	       "\n\n");
	printf("| workload | D2D copy GB/s | - | encode GB/s (x copy) | decode GB/s (x copy) | "
	       "ratio |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	const size_t mib = b.max_mib < 128 ? b.max_mib : 128;
	for (unsigned dtype : {SPLITZIP_DTYPE_FP16, SPLITZIP_DTYPE_FP32, SPLITZIP_DTYPE_FP8_E4M3,
	                       SPLITZIP_DTYPE_FP8_E5M2})
		for (splitzip_encoding enc : {SPLITZIP_ENCODING_ENTROPY}) {
			const std::string row =
			    std::to_string(mib) + " MiB " + splitzip_dtype_name(dtype) +
			    (enc == SPLITZIP_ENCODING_AUTO ? ", auto" : ", entropy");
			const size_t n = (mib << 20) / splitzip_dtype_width(dtype);
			print_row(row, run_dtype(b, dtype, dtype_input(b, dtype, n), enc, row));
		}
}

/* Each hot kernel a few times, for one Nsight Compute pass (ci/gpu-check.sh). */
static void ncu_rows(bench &b)
{
	frame_row(b, 512, 0, false, "one frame");
	const size_t total = (size_t)512 << 19;
	print_row("4096 x 128 KiB pages", run_pages(b, 65536, total, false, "pages"));
	b.entropy = true;
	frame_row(b, 512, 0, false, "one entropy frame");
	b.entropy = false;
}

int main(int argc, char **argv)
{
	bench b;
	options(b, argc, argv);
	if (!load_kv(b, argc, argv)) {
		fprintf(stderr,
		        "usage: %s [--quick] [--set full|check|ncu] [--reps N] [--max-mib M] "
		        "KV_FILE...\n",
		        argv[0]);
		return 2;
	}
	RT(cudaStreamCreate(&b.s));
	cudaDeviceProp prop;
	RT(cudaGetDeviceProperties(&prop, 0));
	b.flush = new dmem(2 * (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 64 << 20));
	print_header(b);
	const size_t big = b.max_mib < 512 ? b.max_mib : 512;
	if (b.set == "check") {
		check_rows(b);
	} else if (b.set == "ncu") {
		ncu_rows(b);
	} else {
		frame_rows(b, big);
		page_rows(b, big);
		print_row("4 MiB, replayed as a CUDA graph",
		          run_graph(b, "4 MiB, replayed as a CUDA graph"));
		entropy_rows(b, big);
	}
	delete b.flush;
	RT(cudaStreamDestroy(b.s));
	if (b.failures)
		fprintf(stderr, "sz_gpu_bench: %d check(s) failed\n", b.failures);
	return b.failures ? 1 : 0;
}
