#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU (built for its architecture, sm_90 on an
# H100/H200); about 5 minutes, 8 at most:
#   1. build libsplitzip and the CUDA module for this GPU, the device test and the benchmark
#      (cmake when present, else gcc + nvcc directly: the machine may be bare);
#   2. the GPU test suite on the device (tests/gpu/test_gpu_device.cu; no device = failure);
#   3. compute-sanitizer memcheck and racecheck on a small run of the same suite;
#   4. the benchmark table (bench/sz_gpu_bench.cu): encode/decode GB/s at 4, 64 and 512 MiB of
#      real KV, batched 128 KiB pages, and device-to-device copy GB/s of the same bytes.
#
# Usage: ci/gpu-check.sh [--update-doc] [OUTDIR]     (OUTDIR defaults to build/gpu-check)
# Writes OUTDIR/summary.txt and OUTDIR/benchmarks.md; --update-doc puts the table into
# doc/BENCHMARKS.md with the GPU model. Exit status: 0 if every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
UPDATE_DOC=0
if [ "${1:-}" = "--update-doc" ]; then
	UPDATE_DOC=1
	shift
fi
OUT=${1:-build/gpu-check}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
JOBS=$(nproc)
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
FAILED=0
T_START=$(date +%s)

note() { echo "$*" | tee -a "$SUMMARY"; }
step() { # name, timeout (s), command...
	local name=$1 limit=$2 t0 rc
	shift 2
	echo "===== $name"
	t0=$(date +%s)
	timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
	rc=$?
	tail -n 25 "$OUT/$name.log"
	if [ $rc -eq 0 ]; then
		note "ok    $name ($(($(date +%s) - t0)) s)"
	else
		note "FAIL  $name (exit $rc, $(($(date +%s) - t0)) s; log: $OUT/$name.log)"
		FAILED=1
	fi
	return $rc
}

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$NVCC" ]; then
	note "FAIL  no nvcc found"
	exit 1
fi
export PATH=$(dirname "$NVCC"):$PATH
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer \
	/usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -n 1)
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ARCH=${SPLITZIP_GPU_ARCH:-${CAP:-90}}
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
note "gpu-check: ${GPU:-no nvidia-smi}; building for sm_$ARCH; nvcc $("$NVCC" --version | tail -n 1)"

# ---- 1. build ----------------------------------------------------------------------------
BUILD=$OUT/build
build_cmake() {
	cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
		-DSPLITZIP_BUILD_TOOLS=OFF -DSPLITZIP_WITH_HIP=OFF -DSPLITZIP_WITH_CUDA=ON \
		-DCMAKE_CUDA_COMPILER="$NVCC" -DSPLITZIP_CUDA_ARCHS="$ARCH-real" &&
		cmake --build "$BUILD" -j"$JOBS" --target splitzip splitzip_cuda
}
build_direct() { # no cmake: the library at baseline ISA, the module, a hand-written config
	mkdir -p "$BUILD/generated" "$BUILD/obj" &&
		cat >"$BUILD/generated/splitzip_config.h" <<-EOF &&
			#define SPLITZIP_HAVE_OPENMP 0
			#define SPLITZIP_HAVE_AVX2 0
			#define SPLITZIP_HAVE_AVX512 0
			#define SPLITZIP_HAVE_NEON 0
			#define SPLITZIP_HAVE_CUDA 1
			#define SPLITZIP_HAVE_HIP 0
			#define SPLITZIP_INSTALL_LIBDIR "/usr/local/lib"
		EOF
		gcc -std=c11 -O2 -fPIC -shared -fvisibility=hidden -I"$ROOT/include" \
			-I"$BUILD/generated" "$ROOT"/core/*.c "$ROOT"/dispatch/*.c -ldl \
			-o "$BUILD/libsplitzip.so" &&
		"$NVCC" -std=c++17 -O3 -arch=sm_"$ARCH" -shared -Xcompiler -fPIC,-fvisibility=hidden \
			-Xptxas --warn-on-spills -I"$ROOT/backends/cuda" -I"$ROOT/backends/gpu" \
			"$ROOT/backends/cuda/sz_cuda.cu" -o "$BUILD/libsplitzip_cuda.so"
}
build_programs() {
	"$NVCC" -std=c++17 -O2 -arch=sm_"$ARCH" -I"$ROOT/include" -I"$ROOT/backends/cuda" \
		-I"$ROOT/tests/common" -DSZ_TEST_DATA_DIR="\"$ROOT/data\"" \
		"$ROOT/tests/gpu/test_gpu_device.cu" "$ROOT/tests/common/sz_test_data.c" \
		-L"$BUILD" -lsplitzip -Xlinker -rpath="$BUILD" -o "$BUILD/test_gpu_device" &&
		"$NVCC" -std=c++17 -O2 -arch=sm_"$ARCH" -I"$ROOT/include" \
			"$ROOT/bench/sz_gpu_bench.cu" -L"$BUILD" -lsplitzip -Xlinker -rpath="$BUILD" \
			-o "$BUILD/sz_gpu_bench"
}
export ROOT BUILD NVCC ARCH JOBS
export -f build_cmake build_direct build_programs
if command -v cmake >/dev/null; then
	step build 420 bash -c 'build_cmake && build_programs'
else
	step build 420 bash -c 'build_direct && build_programs'
fi
if [ $FAILED -ne 0 ]; then
	note "gpu-check: FAILED at the build"
	exit 1
fi
export SPLITZIP_CUDA_MODULE=$BUILD/libsplitzip_cuda.so
export SPLITZIP_REQUIRE_GPU=1

# ---- 2. tests on the device ---------------------------------------------------------------
step device-tests 240 "$BUILD/test_gpu_device"

# ---- 3. compute-sanitizer ------------------------------------------------------------------
if [ -n "$SANITIZER" ]; then
	step memcheck 240 "$SANITIZER" --tool memcheck --error-exitcode 1 \
		"$BUILD/test_gpu_device" --quick
	step racecheck 240 "$SANITIZER" --tool racecheck --error-exitcode 1 \
		"$BUILD/test_gpu_device" --quick
else
	note "FAIL  compute-sanitizer not found (memcheck and racecheck not run)"
	FAILED=1
fi

# ---- 4. benchmark --------------------------------------------------------------------------
KV=("$ROOT"/data/kv/*.bf16)
if step benchmark 240 "$BUILD/sz_gpu_bench" "${KV[@]}"; then
	{
		echo "Measured by \`ci/gpu-check.sh\` on $(date -u +%Y-%m-%d), commit" \
			"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)."
		cat "$OUT/benchmark.log"
	} >"$OUT/benchmarks.md"
	if [ $UPDATE_DOC -eq 1 ]; then
		python3 - "$ROOT/doc/BENCHMARKS.md" "$OUT/benchmarks.md" <<-'EOF'
			import sys
			doc, table = sys.argv[1], open(sys.argv[2]).read().strip()
			s = open(doc).read()
			a, b = "<!-- gpu-bench:begin -->", "<!-- gpu-bench:end -->"
			i, j = s.index(a) + len(a), s.index(b)
			s = s[:i] + "\n" + table + "\n" + s[j:]
			s = s.replace("**Status: unmeasured.**", "**Status: measured (see the table).**")
			open(doc, "w").write(s)
		EOF
		note "doc/BENCHMARKS.md updated"
	fi
fi

note "gpu-check: $([ $FAILED -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - T_START)) s"
exit $FAILED
