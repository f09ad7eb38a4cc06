/*
 * sz_gpu_bench.cu -- GPU throughput of splitzip through the public device API, next to a
 * device-to-device copy of the same bytes, measured in the same run. GB/s is uncompressed bytes
 * per second (10^9). Each figure is the median of the timed repetitions (CUDA events around one
 * call, after warm-up); every result is checked against the input once.
 *
 *   sz_gpu_bench [--quick] KV_FILE...   real BF16 KV files, concatenated and tiled to each size
 *
 * Prints a Markdown table (doc/BENCHMARKS.md, GPU section) with the GPU model.
 */
#include <cuda_runtime.h>

#include "splitzip.h"

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int g_reps = 20;

/* Median milliseconds of fn() over the repetitions, timed with events on 'stream'. */
template <class F> static double time_ms(cudaStream_t stream, F fn)
{
	cudaEvent_t a, b;
	RT(cudaEventCreate(&a));
	RT(cudaEventCreate(&b));
	for (int i = 0; i < 3; i++)
		fn();
	std::vector<float> t;
	for (int i = 0; i < g_reps; i++) {
		RT(cudaEventRecord(a, stream));
		fn();
		RT(cudaEventRecord(b, stream));
		RT(cudaEventSynchronize(b));
		float ms = 0;
		RT(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms);
	}
	RT(cudaEventDestroy(a));
	RT(cudaEventDestroy(b));
	std::sort(t.begin(), t.end());
	return t[t.size() / 2];
}

static double gbs(size_t bytes, double ms)
{
	return (double)bytes / (ms * 1e6);
}

static splitzip_ctx *gpu_ctx(const splitzip_codebook *cb)
{
	splitzip_params p;
	splitzip_params_init(&p);
	p.backend = SPLITZIP_BACKEND_CUDA;
	if (cb) {
		p.codebook_mode = SPLITZIP_CODEBOOK_FIXED;
		p.codebook = *cb;
	}
	splitzip_ctx *ctx = nullptr;
	SZ(splitzip_ctx_create(&p, &ctx));
	return ctx;
}

int main(int argc, char **argv)
{
	std::vector<uint16_t> kv;
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
			continue;
		}
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "cannot open %s\n", argv[i]);
			return 1;
		}
		uint16_t buf[4096];
		size_t got;
		while ((got = fread(buf, 2, 4096, f)) > 0)
			kv.insert(kv.end(), buf, buf + got);
		fclose(f);
	}
	if (kv.empty()) {
		fprintf(stderr, "usage: %s [--quick] KV_FILE...\n", argv[0]);
		return 2;
	}
	if (quick)
		g_reps = 5;
	cudaDeviceProp prop;
	RT(cudaGetDeviceProperties(&prop, 0));
	int drv = 0, rtv = 0;
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rtv);
	splitzip_codebook cb;
	SZ(splitzip_calibrate(kv.data(), kv.size(), &cb)); /* offline calibration, as in serving */
	splitzip_ctx *fixed = gpu_ctx(&cb), *from_input = gpu_ctx(nullptr);
	cudaStream_t s;
	RT(cudaStreamCreate(&s));

	printf("GPU: %s (sm_%d%d, %d SMs, %.0f GiB), driver %d, runtime %d; splitzip %s; "
	       "data: %zu real KV elements tiled; median of %d runs.\n\n",
	       prop.name, prop.major, prop.minor, prop.multiProcessorCount,
	       (double)prop.totalGlobalMem / (1 << 30), drv, rtv, splitzip_version_string(),
	       kv.size(), g_reps);
	printf("| workload | D2D copy GB/s | encode GB/s (fixed codebook) | encode GB/s (codebook "
	       "from input) | decode GB/s | ratio |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");

	const size_t mib_list[] = {4, 64, 512};
	for (size_t mib : mib_list) {
		if (quick && mib > 64)
			break;
		const size_t n = mib << 19, bytes = n * 2, cap = splitzip_compress_bound(n);
		std::vector<uint16_t> h(n);
		for (size_t i = 0; i < n; i++)
			h[i] = kv[i % kv.size()];
		void *src, *dst, *out, *copy, *ws, *res;
		size_t wsb = 0;
		SZ(splitzip_workspace_size(fixed, n, &wsb));
		RT(cudaMalloc(&src, bytes));
		RT(cudaMalloc(&copy, bytes));
		RT(cudaMalloc(&out, bytes));
		RT(cudaMalloc(&dst, cap));
		RT(cudaMalloc(&ws, wsb));
		RT(cudaMalloc(&res, 64));
		RT(cudaMemcpy(src, h.data(), bytes, cudaMemcpyHostToDevice));
		size_t *d_size = (size_t *)res, *d_n = (size_t *)((char *)res + 16);
		int32_t *d_st = (int32_t *)((char *)res + 32);
		const double t_copy = time_ms(
		    s, [&] { RT(cudaMemcpyAsync(copy, src, bytes, cudaMemcpyDeviceToDevice, s)); });
		const double t_enc_fi = time_ms(s, [&] {
			SZ(splitzip_compress_async(from_input, (uint16_t *)src, n, dst, cap, d_size,
			                           d_st, ws, wsb, s));
		});
		const double t_enc = time_ms(s, [&] {
			SZ(splitzip_compress_async(fixed, (uint16_t *)src, n, dst, cap, d_size,
			                           d_st, ws, wsb, s));
		});
		size_t fsize = 0;
		int32_t st = -1;
		RT(cudaMemcpy(&fsize, d_size, sizeof fsize, cudaMemcpyDeviceToHost));
		RT(cudaMemcpy(&st, d_st, sizeof st, cudaMemcpyDeviceToHost));
		if (st != SPLITZIP_OK) {
			fprintf(stderr, "encode failed: %d\n", st);
			return 1;
		}
		const double t_dec = time_ms(s, [&] {
			SZ(splitzip_decompress_async(fixed, dst, fsize, (uint16_t *)out, n, d_n,
			                             d_st, ws, wsb, s));
		});
		std::vector<uint16_t> back(n);
		RT(cudaMemcpy(back.data(), out, bytes, cudaMemcpyDeviceToHost));
		RT(cudaMemcpy(&st, d_st, sizeof st, cudaMemcpyDeviceToHost));
		if (st != SPLITZIP_OK || back != h) {
			fprintf(stderr, "decode mismatch at %zu MiB (status %d)\n", mib, st);
			return 1;
		}
		printf("| %zu MiB, one frame | %.0f | %.0f | %.0f | %.0f | %.4f |\n", mib,
		       gbs(bytes, t_copy), gbs(bytes, t_enc), gbs(bytes, t_enc_fi),
		       gbs(bytes, t_dec), (double)bytes / (double)fsize);
		RT(cudaFree(src));
		RT(cudaFree(copy));
		RT(cudaFree(out));
		RT(cudaFree(dst));
		RT(cudaFree(ws));
		RT(cudaFree(res));
	}

	/* Batched KV pages: 128 KiB each (65536 elements), one call for all of them. */
	{
		const size_t page = 65536, nf = quick ? 256 : 2048, n = page * nf, bytes = n * 2;
		const size_t cap = splitzip_compress_bound(page);
		std::vector<uint16_t> h(n);
		for (size_t i = 0; i < n; i++)
			h[i] = kv[i % kv.size()];
		char *src, *dst, *out, *copy, *ws;
		size_t wsb = 0;
		SZ(splitzip_workspace_size_batch(fixed, nf, page, &wsb));
		RT(cudaMalloc(&src, bytes));
		RT(cudaMalloc(&copy, bytes));
		RT(cudaMalloc(&out, bytes));
		RT(cudaMalloc(&dst, cap * nf));
		RT(cudaMalloc(&ws, wsb));
		RT(cudaMemcpy(src, h.data(), bytes, cudaMemcpyHostToDevice));
		std::vector<const void *> h_src(nf), h_dst(nf), h_out(nf);
		std::vector<size_t> h_n(nf, page), h_cap(nf, cap);
		for (size_t f = 0; f < nf; f++) {
			h_src[f] = src + f * page * 2;
			h_dst[f] = dst + f * cap;
			h_out[f] = out + f * page * 2;
		}
		void **d_src, **d_dst, **d_out;
		size_t *d_n, *d_cap, *d_sizes, *d_nout;
		int32_t *d_st;
		RT(cudaMalloc(&d_src, nf * sizeof(void *)));
		RT(cudaMalloc(&d_dst, nf * sizeof(void *)));
		RT(cudaMalloc(&d_out, nf * sizeof(void *)));
		RT(cudaMalloc(&d_n, nf * sizeof(size_t)));
		RT(cudaMalloc(&d_cap, nf * sizeof(size_t)));
		RT(cudaMalloc(&d_sizes, nf * sizeof(size_t)));
		RT(cudaMalloc(&d_nout, nf * sizeof(size_t)));
		RT(cudaMalloc(&d_st, nf * sizeof(int32_t)));
		RT(cudaMemcpy(d_src, h_src.data(), nf * sizeof(void *), cudaMemcpyHostToDevice));
		RT(cudaMemcpy(d_dst, h_dst.data(), nf * sizeof(void *), cudaMemcpyHostToDevice));
		RT(cudaMemcpy(d_out, h_out.data(), nf * sizeof(void *), cudaMemcpyHostToDevice));
		RT(cudaMemcpy(d_n, h_n.data(), nf * sizeof(size_t), cudaMemcpyHostToDevice));
		RT(cudaMemcpy(d_cap, h_cap.data(), nf * sizeof(size_t), cudaMemcpyHostToDevice));
		const double t_copy = time_ms(
		    s, [&] { RT(cudaMemcpyAsync(copy, src, bytes, cudaMemcpyDeviceToDevice, s)); });
		const double t_enc_fi = time_ms(s, [&] {
			SZ(splitzip_compress_batch_async(
			    from_input, nf, (const uint16_t *const *)d_src, d_n, page,
			    (void *const *)d_dst, d_cap, d_sizes, d_st, ws, wsb, s));
		});
		const double t_enc = time_ms(s, [&] {
			SZ(splitzip_compress_batch_async(fixed, nf, (const uint16_t *const *)d_src,
			                                 d_n, page, (void *const *)d_dst, d_cap,
			                                 d_sizes, d_st, ws, wsb, s));
		});
		const double t_dec = time_ms(s, [&] {
			SZ(splitzip_decompress_batch_async(fixed, nf, (const void *const *)d_dst,
			                                   d_sizes, (uint16_t *const *)d_out, d_n,
			                                   page, d_nout, d_st, ws, wsb, s));
		});
		std::vector<size_t> sizes(nf);
		std::vector<int32_t> st(nf);
		std::vector<uint16_t> back(n);
		RT(cudaMemcpy(sizes.data(), d_sizes, nf * sizeof(size_t), cudaMemcpyDeviceToHost));
		RT(cudaMemcpy(st.data(), d_st, nf * sizeof(int32_t), cudaMemcpyDeviceToHost));
		RT(cudaMemcpy(back.data(), out, bytes, cudaMemcpyDeviceToHost));
		size_t total = 0;
		for (size_t f = 0; f < nf; f++) {
			total += sizes[f];
			if (st[f] != SPLITZIP_OK) {
				fprintf(stderr, "batch frame %zu: status %d\n", f, st[f]);
				return 1;
			}
		}
		if (back != h) {
			fprintf(stderr, "batch decode mismatch\n");
			return 1;
		}
		printf("| %zu x 128 KiB pages, one batch | %.0f | %.0f | %.0f | %.0f | %.4f |\n",
		       nf, gbs(bytes, t_copy), gbs(bytes, t_enc), gbs(bytes, t_enc_fi),
		       gbs(bytes, t_dec), (double)bytes / (double)total);
	}
	splitzip_ctx_free(fixed);
	splitzip_ctx_free(from_input);
	return 0;
}
