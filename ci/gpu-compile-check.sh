#!/usr/bin/env bash
# Compiles the GPU kernel source with the real GPU compilers, without running anything: the
# harness self-test kernels (tests/simt/simt_kernels.cuh, through backends/gpu/sz_gpu_compat.cuh)
# and the GPU module source,
#   - with nvcc for sm_90;
#   - with the HIP module's compiler for its targets (HIP_COMPILER, HIP_ARCHS; ctest passes the
#     CMake build's; default clang++-19 for gfx90a gfx942 gfx1100 gfx1200);
#   - with Debian's hipcc (ROCm 5.2, clang 15) for gfx90a (CDNA2, wave64), gfx1030 (RDNA2) and
#     gfx1100 (RDNA3, wave32), the targets it has.
# HIP builds use -nogpulib and link the device code: the kernels need no ROCm device library.
# A compiler that is not installed is reported and skipped; SZ_REQUIRE_GPU_COMPILERS=1 (set by
# ctest in CI builds, SPLITZIP_REQUIRE_TEST_DEPS) makes that an error. SZ_HIP_MODULE_BUILT=1
# (ctest, in a build that has the HIP module) says that the build already compiled the HIP
# module with HIP_COMPILER for HIP_ARCHS: that compiler then builds the harness kernels only,
# and the module is compiled once per compiler. Each compile's temporary files stay under
# OUTDIR (hipcc leaves empty directories in TMPDIR).
# Usage: ci/gpu-compile-check.sh [OUTDIR]   (default: a temporary directory, removed after)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ge 1 ]; then
	out=$1
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
rm -rf "$out/tmp"
mkdir -p "$out/tmp"
export TMPDIR=$out/tmp
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

# hip_check NAME COMPILER MODULE ARCH...: the harness kernels, and the HIP module if MODULE is
# 1, for those targets.
hip_check() {
	local name=$1 cc=$2 module=$3
	shift 3
	local offload=()
	for a in "$@"; do offload+=(--offload-arch="$a"); done
	echo "== $name $*"
	local t0=$SECONDS
	if "$cc" -std=c++17 -O3 -x hip "${offload[@]}" -nogpulib -Wall -Werror "${inc[@]}" \
		-c "$src" -o "$out/gpu_compile_check.$name.o" 2>"$out/$name.log" &&
		{ [ "$module" = 0 ] || "$cc" -std=c++17 -O3 -x hip "${offload[@]}" -nogpulib -Wall \
			-Werror -I"$here/backends/hip" -I"$here/backends/gpu" \
			-c "$here/backends/hip/sz_hip.hip" -o "$out/sz_hip.$name.o" 2>>"$out/$name.log"; }; then
		if [ "$module" = 1 ]; then
			echo "ok: $name (harness kernels and the HIP module, device code linked)"
		else
			echo "ok: $name (harness kernels; the build compiled the HIP module with it)"
		fi
		echo "   ($((SECONDS - t0)) s)"
	else
		cat "$out/$name.log"
		status=1
	fi
	rm -rf "${TMPDIR:?}"/*
}

clang_hip=${HIP_COMPILER:-$(command -v clang++-19 || true)}
if [ -n "$clang_hip" ]; then
	arch_list=${HIP_ARCHS:-gfx90a gfx942 gfx1100 gfx1200}
	read -r -a archs <<<"${arch_list//,/ }"
	module=1
	[ "${SZ_HIP_MODULE_BUILT:-0}" = 1 ] && module=0
	hip_check "$(basename "$clang_hip")" "$clang_hip" "$module" "${archs[@]}"
else
	echo "skip: no HIP compiler (clang++-19) found"
	[ "${SZ_REQUIRE_GPU_COMPILERS:-0}" = 1 ] && status=1
fi
hipcc=${HIPCC:-$(command -v hipcc || true)}
if [ -n "$hipcc" ] && [ "$hipcc" != "$clang_hip" ]; then
	hip_check hipcc "$hipcc" 1 gfx90a gfx1030 gfx1100
elif [ -z "$hipcc" ]; then
	echo "skip: hipcc not found"
	[ "${SZ_REQUIRE_GPU_COMPILERS:-0}" = 1 ] && status=1
fi
exit $status
