#!/usr/bin/env bash
# Compiles the GPU kernel source with the real GPU compilers, without running anything: the
# harness self-test kernels (tests/simt/simt_kernels.cuh, through backends/gpu/sz_gpu_compat.cuh)
# with nvcc for sm_90 and with hipcc for gfx90a (CDNA2, wave64), gfx1030 (RDNA2, wave32) and
# gfx1100 (RDNA3, wave32), plus the HIP module source for the same targets (the CMake build
# leaves out targets whose device library is missing; this still checks their source). ROCm
# releases without gfx1100 device libraries (Debian's 5.2) get a front-end build for it
# (-nogpulib -fgpu-rdc: parsed, instantiated, lowered to device bitcode).
# A compiler that is not installed is reported and skipped; set SZ_REQUIRE_GPU_COMPILERS=1 to
# make that an error. Usage: ci/gpu-compile-check.sh [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
src="$here/tests/simt/gpu_compile_check.cu"
inc=(-I"$here/tests/simt" -I"$here/backends/gpu")
status=0

nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -x "$nvcc" ]; then
	echo "== nvcc sm_90: $("$nvcc" --version | tail -n 1)"
	"$nvcc" -std=c++17 -O3 -arch=sm_90 -Xptxas -v -Werror all-warnings "${inc[@]}" \
		-c "$src" -o "$out/gpu_compile_check.sm_90.o" 2>"$out/nvcc.log" || status=1
	grep -E "error|spill" "$out/nvcc.log" | grep -v " 0 bytes spill" || true
	[ $status -eq 0 ] && echo "ok: nvcc sm_90"
else
	echo "skip: nvcc not found"
	[ "${SZ_REQUIRE_GPU_COMPILERS:-0}" = 1 ] && status=1
fi

hipcc=${HIPCC:-$(command -v hipcc || true)}
if [ -n "$hipcc" ]; then
	for arch in gfx90a gfx1030 gfx1100; do
		echo "== hipcc $arch"
		extra=()
		lib=$(find /opt /usr/lib /usr/local -name "oclc_isa_version_${arch#gfx}.bc" -print \
			-quit 2>/dev/null || true)
		if [ -z "$lib" ]; then
			extra=(-nogpulib -fgpu-rdc)
			echo "   (no $arch device library in this ROCm: front-end build only)"
		fi
		if "$hipcc" -std=c++17 -O3 -x hip --offload-arch=$arch "${extra[@]}" -Wall -Werror \
			"${inc[@]}" -c "$src" -o "$out/gpu_compile_check.$arch.o" \
			2>"$out/hipcc.$arch.log" &&
			"$hipcc" -std=c++17 -O3 -x hip --offload-arch=$arch "${extra[@]}" -Wall -Werror \
				-I"$here/backends/hip" -I"$here/backends/gpu" \
				-c "$here/backends/hip/sz_hip.hip" -o "$out/sz_hip.$arch.o" \
				2>>"$out/hipcc.$arch.log"; then
			echo "ok: hipcc $arch (harness kernels and the HIP module)"
		else
			cat "$out/hipcc.$arch.log"
			status=1
		fi
	done
else
	echo "skip: hipcc not found"
	[ "${SZ_REQUIRE_GPU_COMPILERS:-0}" = 1 ] && status=1
fi
exit $status
