#!/usr/bin/env bash
# The GPU checks, in one script, for a machine with an NVIDIA GPU (built for its architecture,
# sm_90 on an H100/H200); about 10 minutes on an H200 with 16 cores:
#   1. build libsplitzip and the CUDA module for this GPU, the device test and the benchmark
#      (cmake when present, else gcc + nvcc directly: the machine may be bare);
#   2. the kernels' registers, shared memory, spills and occupancy (ci/ptxas-table.sh, this
#      GPU's architecture, from the build's ptxas log; fails on any spill);
#   3. the GPU test suite on the device (tests/gpu/test_gpu_device.cu: frames against the CPU
#      oracle, batches on both paths, predicted codebooks, damaged frames, the four calls in a
#      CUDA graph, two streams, misaligned arguments; no device = failure);
#   4. compute-sanitizer memcheck, racecheck and synccheck on a small run of the same suite;
#   5. the benchmark (bench/sz_gpu_bench.cu): one frame of 1 MiB to 4 GiB, escape rates, the
#      content checksum, incompressible input, batches of 16 KiB-2 MiB pages, a graph replay,
#      then entropy frames (mode 2: decode, encode with a calibrated table, encode with each
#      frame's own table; 1-512 MiB, checksum, escapes, stored fallback), each next to a
#      device-to-device copy of the same bytes; every result checked.
#
# Usage: ci/gpu-check.sh [--update-doc] [--quick] [OUTDIR]   (OUTDIR: build/gpu-check)
# Writes OUTDIR/summary.txt and OUTDIR/benchmarks.md (both tables); --update-doc puts them into
# doc/BENCHMARKS.md with the GPU model. --quick: a shorter benchmark (64 MiB at most). Exit
# status: 0 if every step passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
UPDATE_DOC=0
QUICK=()
while [ $# -gt 0 ]; do
	case $1 in
	--update-doc) UPDATE_DOC=1 ;;
	--quick) QUICK=(--quick) ;;
	*) break ;;
	esac
	shift
done
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
	tail -n 30 "$OUT/$name.log"
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
PATH=$(dirname "$NVCC"):$PATH
export PATH
SANITIZER=$(command -v compute-sanitizer || find /usr/local/cuda/bin/compute-sanitizer \
	/usr/local/cuda/compute-sanitizer/compute-sanitizer -maxdepth 0 2>/dev/null | head -n 1)
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ARCH=${SPLITZIP_GPU_ARCH:-${CAP:-90}}
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
note "gpu-check: ${GPU:-no nvidia-smi}; building for sm_$ARCH; nvcc $("$NVCC" --version | tail -n 1)"

# ---- 1. build ----------------------------------------------------------------------------
BUILD=$OUT/build
# shellcheck disable=SC2317 # the build functions run through bash -c (export -f)
build_cmake() {
	cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
		-DSPLITZIP_BUILD_TOOLS=OFF -DSPLITZIP_WITH_HIP=OFF -DSPLITZIP_WITH_CUDA=ON \
		-DCMAKE_CUDA_COMPILER="$NVCC" -DSPLITZIP_CUDA_ARCHS="$ARCH-real" &&
		cmake --build "$BUILD" -j"$JOBS" --target splitzip splitzip_cuda
}
# shellcheck disable=SC2317
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
			-I"$BUILD/generated" "$ROOT"/core/*.c "$ROOT"/dispatch/*.c "$ROOT"/api/*.c -ldl \
			-o "$BUILD/libsplitzip.so" &&
		bash "$ROOT/cmake/nvcc_ptxas_log.sh" "$BUILD/ptxas" "$NVCC" -std=c++17 -O3 \
			-arch=sm_"$ARCH" -shared -Xcompiler -fPIC,-fvisibility=hidden -Xptxas -v \
			-Xptxas --warn-on-spills -I"$ROOT/backends/cuda" -I"$ROOT/backends/gpu" \
			"$ROOT/backends/cuda/sz_cuda.cu" -o "$BUILD/libsplitzip_cuda.so"
}
# shellcheck disable=SC2317
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

# ---- 2. registers, shared memory, spills ----------------------------------------------------
# (read from the ptxas log the module's build wrote: $BUILD/ptxas/sm_$ARCH.log)
step ptxas 60 env SPLITZIP_CUDA_ARCHS="$ARCH" bash "$ROOT/ci/ptxas-table.sh" "$BUILD"
cp "$OUT/ptxas.log" "$OUT/ptxas.md" 2>/dev/null

# ---- 3. tests on the device ---------------------------------------------------------------
step device-tests 240 "$BUILD/test_gpu_device"

# ---- 4. compute-sanitizer ------------------------------------------------------------------
if [ -n "$SANITIZER" ]; then
	for tool in memcheck racecheck synccheck; do
		step "$tool" 180 "$SANITIZER" --tool "$tool" --error-exitcode 1 \
			"$BUILD/test_gpu_device" --quick
	done
else
	note "FAIL  compute-sanitizer not found (memcheck, racecheck and synccheck not run)"
	FAILED=1
fi

# ---- 5. benchmark --------------------------------------------------------------------------
KV=("$ROOT"/data/kv/*.bf16)
if step benchmark 600 "$BUILD/sz_gpu_bench" "${QUICK[@]}" "${KV[@]}"; then
	{
		echo "Measured by \`ci/gpu-check.sh\` on $(date -u +%Y-%m-%d), commit" \
			"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)."
		echo
		cat "$OUT/benchmark.log"
		echo
		echo "Kernels as ptxas built them for sm_$ARCH (\`ci/ptxas-table.sh\`):"
		echo
		cat "$OUT/ptxas.md" 2>/dev/null
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
