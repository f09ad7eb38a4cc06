/*
 * gpu_kernel_table.cpp -- prints what the GPU kernels declare about themselves
 * (backends/gpu/sz_gpu_kernel_info.cuh: kind, blocks per SM they are built for, static shared
 * memory, bytes a thread has in flight, bytes moved per element, why a budget may be missed)
 * as JSON, for ci/kernel-model.py. Built with the CPU SIMT harness flavour of the kernel source:
 * the same constants the CUDA and HIP builds compile (host-side, so before any per-architecture
 * choice: sizes of shared structs are the same on host and device).
 *
 *   gpu_kernel_table [--warp 32|64]
 */
#include "sz_simt_compat.h"

#include "sz_gpu_kernel_info.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

static const char *kind_name(unsigned k)
{
	return k == SZ_GPU_K_STREAM ? "stream" : k == SZ_GPU_K_FRAME ? "frame" : "setup";
}

/* The entry's name with its warp width in place of W ("sz_k_encode<32, false>"). */
static std::string name_at(const char *name, int w)
{
	std::string s(name);
	const size_t at = s.find("<W");
	if (at != std::string::npos)
		s.replace(at + 1, 1, std::to_string(w));
	return s;
}

template <int W> static void print_table()
{
	size_t n = 0;
	const sz_gpu_kernel_info *t = sz_gpu_kernel_table<W>(&n);
	printf("{\"warp\": %d, \"threads\": %u, \"kernels\": [\n", W, SZ_GPU_THREADS);
	for (size_t i = 0; i < n; i++) {
		const sz_gpu_kernel_info &k = t[i];
		printf("  {\"name\": \"%s\", \"kind\": \"%s\", \"blocks\": %u, \"smem\": %u, "
		       "\"inflight\": %u, \"read\": %.3f, \"write\": %.3f, \"why\": ",
		       name_at(k.name, W).c_str(), kind_name(k.kind), k.blocks, k.smem, k.inflight,
		       k.read, k.write);
		if (k.why)
			printf("\"%s\"}", k.why);
		else
			printf("null}");
		printf("%s\n", i + 1 < n ? "," : "");
	}
	printf("]}\n");
}

int main(int argc, char **argv)
{
	int w = 32;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--warp") && i + 1 < argc) {
			w = atoi(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--warp 32|64]\n", argv[0]);
			return 2;
		}
	}
	if (w == 64)
		print_table<64>();
	else if (w == 32)
		print_table<32>();
	else
		return 2;
	return 0;
}
