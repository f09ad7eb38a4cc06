#!/usr/bin/env bash
# The GPU checks in one run of at most 8 minutes on an NVIDIA GPU (prepared for an H200 with 16
# cores; built for its architecture only, sm_90 there):
#   1. build libsplitzip, the CUDA module (ptxas resources kept), the device tests and the
#      benchmark for this GPU's architecture (cmake when present, else gcc + nvcc directly);
#   2. the kernels' registers, shared memory, spills and occupancy (ci/ptxas-table.sh, from the
#      build's ptxas log; fails on any spill), and the kernel model (ci/kernel-model.py) on them:
#      occupancy, bytes in flight per SM, the predicted bound; fails on a broken budget;
#   3. the device suites (tests/gpu/test_gpu_device.cu, test_gpu_pages_device.cu) in full;
#   4. compute-sanitizer memcheck, racecheck and synccheck on a small run of the device suite;
#   5. the benchmark table (bench/sz_gpu_bench.cu --set check): frames of 512 MiB and 4 GiB,
#      1 and 5 % escapes, the content checksum on and off, 4096 x 128 KiB and 32768 x 16 KiB
#      pages in one call, entropy frames encoded and decoded; each row next to a device-to-
#      device copy of the same bytes in the same run, every result checked;
#   6. one Nsight Compute pass over the hot kernels (time, DRAM throughput, issue active, warp
#      stall reasons), when ncu is installed;
#   7. the SASS of the hot loops (cuobjdump; the loops with global loads, per kernel).
#
# Usage: ci/gpu-check.sh [--update-doc] [--quick] [OUTDIR]   (OUTDIR: build/gpu-check)
# Writes OUTDIR/summary.txt, OUTDIR/benchmarks.md (the tables doc/BENCHMARKS.md wants) and a
# log per step; --update-doc puts the tables into doc/BENCHMARKS.md between its markers.
# --quick: frames of 64 MiB at most. Exit status: 0 if every step passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
UPDATE_DOC=0
BENCH_ARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--update-doc) UPDATE_DOC=1 ;;
	--quick) BENCH_ARGS=(--max-mib 64) ;;
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
# The run must end within 8 minutes: a step that would start after its latest start is skipped
# (and reported).
left() { # latest start (s since T_START) of a step
	[ $(($(date +%s) - T_START)) -le "$1" ] && return 0
	note "skip  $2 (the 8-minute budget: $(($(date +%s) - T_START)) s gone)"
	FAILED=1
	return 1
}
step() { # name, timeout (s), command...
	local name=$1 limit=$2 t0 rc
	shift 2
	echo "===== $name"
	t0=$(date +%s)
	timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
	rc=$?
	tail -n 40 "$OUT/$name.log"
	if [ $rc -eq 0 ]; then
		note "ok    $name ($(($(date +%s) - t0)) s)"
	else
		note "FAIL  $name (exit $rc, $(($(date +%s) - t0)) s; log: $OUT/$name.log)"
		FAILED=1
	fi
	return $rc
}
tool() { # the first of: on the PATH, under the CUDA toolkit of nvcc
	command -v "$1" 2>/dev/null || find "$CUDA_HOME/bin/$1" "$CUDA_HOME"/*/"$1" \
		"$CUDA_HOME"/*/bin/"$1" -maxdepth 0 -type f 2>/dev/null | head -n 1
}

NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$NVCC" ]; then
	note "FAIL  no nvcc found"
	exit 1
fi
CUDA_HOME=$(cd "$(dirname "$NVCC")/.." && pwd)
PATH=$(dirname "$NVCC"):$PATH
export PATH
SANITIZER=$(tool compute-sanitizer)
NCU=$(tool ncu)
CUOBJDUMP=$(tool cuobjdump)
CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
ARCH=${SPLITZIP_GPU_ARCH:-${CAP:-90}}
GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
note "gpu-check: ${GPU:-no nvidia-smi}; building for sm_$ARCH; nvcc $("$NVCC" --version | tail -n 1)"

# ---- 1. build ----------------------------------------------------------------------------
BUILD=$OUT/build
PTXAS=$OUT/ptxas
# shellcheck disable=SC2317 # the build functions run through bash -c (export -f)
build_cmake() { # the library and the module (its ptxas resources into module-build.log)
	cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
		-DSPLITZIP_BUILD_TOOLS=OFF -DSPLITZIP_BUILD_EXAMPLES=OFF -DSPLITZIP_WITH_HIP=OFF \
		-DSPLITZIP_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$NVCC" \
		-DSPLITZIP_CUDA_ARCHS="$ARCH-real" -DCMAKE_CUDA_FLAGS="-Xptxas -v" >/dev/null &&
		cmake --build "$BUILD" -j"$JOBS" --target splitzip splitzip_cuda \
			>"$OUT/module-build.log" 2>&1
}
# shellcheck disable=SC2317
build_direct() { # no cmake: the library at baseline ISA, the module, a hand-written config
	mkdir -p "$BUILD/generated" &&
		cat >"$BUILD/generated/splitzip_config.h" <<-EOF &&
			#define SPLITZIP_HAVE_OPENMP 0
			#define SPLITZIP_HAVE_AVX2 0
			#define SPLITZIP_HAVE_AVX512 0
			#define SPLITZIP_HAVE_AVX512VBMI 0
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
			"$ROOT/backends/cuda/sz_cuda.cu" -o "$BUILD/libsplitzip_cuda.so" \
			>"$OUT/module-build.log" 2>&1
}
# shellcheck disable=SC2317
build_programs() { # the device suites, the benchmark, the kernel table: in parallel
	local pids=() t
	for t in test_gpu_device test_gpu_pages_device; do
		"$NVCC" -std=c++17 -O2 -arch=sm_"$ARCH" -I"$ROOT/include" -I"$ROOT/backends/cuda" \
			-I"$ROOT/tests/common" -I"$ROOT/tests/pages" -DSZ_TEST_DATA_DIR="\"$ROOT/data\"" \
			"$ROOT/tests/gpu/$t.cu" "$ROOT/tests/common/sz_test_data.c" -L"$BUILD" -lsplitzip \
			-Xlinker -rpath="$BUILD" -o "$BUILD/$t" &
		pids+=($!)
	done
	"$NVCC" -std=c++17 -O2 -arch=sm_"$ARCH" -I"$ROOT/include" "$ROOT/bench/sz_gpu_bench.cu" \
		-L"$BUILD" -lsplitzip -Xlinker -rpath="$BUILD" -o "$BUILD/sz_gpu_bench" &
	pids+=($!)
	g++ -std=c++17 -O1 -DSZ_SIMT_CPU=1 -I"$ROOT/tests/simt" -I"$ROOT/backends/gpu" \
		"$ROOT/tests/gpu/gpu_kernel_table.cpp" "$ROOT/tests/simt/sz_simt.cpp" \
		"$ROOT/tests/simt/sz_simt_mem.cpp" -o "$BUILD/gpu_kernel_table" &
	pids+=($!)
	for t in "${pids[@]}"; do
		wait "$t" || return 1
	done
}
export ROOT BUILD NVCC ARCH JOBS OUT
export -f build_cmake build_direct build_programs
if command -v cmake >/dev/null; then
	step build 200 bash -c 'build_cmake && build_programs'
else
	step build 200 bash -c 'build_direct && build_programs'
fi
if [ $FAILED -ne 0 ]; then
	note "gpu-check: FAILED at the build"
	exit 1
fi
MODULE=$(find "$BUILD" -name libsplitzip_cuda.so | head -n 1)
TABLE=$BUILD/gpu_kernel_table
export SPLITZIP_CUDA_MODULE=$MODULE
export SPLITZIP_REQUIRE_GPU=1

# ---- 2. registers, shared memory, spills ----------------------------------------------------
# (read from the ptxas log the module's build wrote: $BUILD/ptxas/sm_$ARCH.log)
step ptxas 60 env SPLITZIP_CUDA_ARCHS="$ARCH" bash "$ROOT/ci/ptxas-table.sh" "$BUILD"
cp "$OUT/ptxas.log" "$OUT/ptxas.md" 2>/dev/null

# the kernel model on the same resources
mkdir -p "$PTXAS"
if [ -f "$BUILD/ptxas/sm_$ARCH.log" ]; then # the build keeps it
	cp "$BUILD/ptxas/sm_$ARCH.log" "$PTXAS/"
else # the module's -Xptxas -v lines from its build output
	grep -E '^ptxas info|^    [0-9]+ bytes stack frame' "$OUT/module-build.log" >"$PTXAS/sm_$ARCH.log"
fi
step kernel-model 20 python3 "$ROOT/ci/kernel-model.py" --table "$TABLE" --ref "$ARCH" "$PTXAS"

# ---- 3. tests on the device ---------------------------------------------------------------
step device-tests 100 "$BUILD/test_gpu_device"
step device-tests-pages 40 "$BUILD/test_gpu_pages_device"

# ---- 4. compute-sanitizer (a small run) ------------------------------------------------------
if [ -n "$SANITIZER" ]; then
	for t in memcheck racecheck synccheck; do
		left 300 "$t" &&
			step "$t" 45 "$SANITIZER" --tool "$t" --error-exitcode 1 "$BUILD/test_gpu_device" \
				--tiny
	done
else
	note "FAIL  compute-sanitizer not found (memcheck, racecheck and synccheck not run)"
	FAILED=1
fi

# ---- 5. the benchmark table -------------------------------------------------------------------
KV=("$ROOT"/data/kv/*.bf16)
left 330 benchmark && step benchmark 130 "$BUILD/sz_gpu_bench" --set check "${BENCH_ARGS[@]}" "${KV[@]}"

# ---- 6. one Nsight Compute pass ------------------------------------------------------------------
HOT='regex:sz_k_(encode|decode|encode_pages|decode_pages|ent_count|ent_encode)'
if [ -n "$NCU" ]; then
	left 400 ncu && step ncu 60 "$NCU" --kernel-name "$HOT" --launch-count 24 --section SpeedOfLight \
		--section LaunchStats --section Occupancy --section WarpStateStats \
		--metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active \
		"$BUILD/sz_gpu_bench" --set ncu "${KV[@]}"
else
	note "skip  ncu not found (no Nsight Compute pass)"
fi

# ---- 7. the SASS of the hot loops --------------------------------------------------------------
if [ -n "$CUOBJDUMP" ]; then
	"$CUOBJDUMP" -sass "$MODULE" >"$OUT/module.sass" 2>&1
	step sass 30 python3 "$ROOT/ci/kernel-model.py" --sass "$OUT/module.sass"
else
	note "skip  cuobjdump not found (no SASS)"
fi

# ---- the tables for doc/BENCHMARKS.md ------------------------------------------------------------
{
	echo "Measured by \`ci/gpu-check.sh\` on $(date -u +%Y-%m-%d), commit" \
		"$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown), ${GPU:-GPU unknown}."
	echo
	cat "$OUT/benchmark.log" 2>/dev/null
	echo
	echo "The kernel model of this build (\`ci/kernel-model.py\`, sm_$ARCH):"
	echo
	grep '^|' "$OUT/kernel-model.log" 2>/dev/null
	if [ -s "$OUT/ncu.log" ]; then
		echo
		echo "Nsight Compute (\`ci/gpu-check.sh\` step 6, log: ncu.log):"
		echo
		python3 - "$OUT/ncu.log" <<-'EOF'
			import re, sys
			rows, cur = [], None
			want = {"Duration": "time", "DRAM Throughput": "DRAM %",
			        "Issue Slots Busy": "issue active %", "Achieved Occupancy": "occupancy %"}
			for line in open(sys.argv[1], errors="replace"):
			    m = re.match(r"\s+(sz_k_\w+)", line)
			    if m:
			        cur = {"kernel": m.group(1)}
			        rows.append(cur)
			        continue
			    for k, v in want.items():
			        m = re.match(r"\s+" + re.escape(k) + r"\s+(\S+)\s+(\S+)", line)
			        if m and cur is not None:
			            cur[v] = m.group(2) + " " + m.group(1) if k == "Duration" else m.group(2)
			cols = ["kernel"] + list(want.values())
			print("| " + " | ".join(cols) + " |")
			print("|---|" + "---:|" * (len(cols) - 1))
			for r in rows:
			    print("| " + " | ".join(str(r.get(c, "-")) for c in cols) + " |")
		EOF
	fi
} >"$OUT/benchmarks.md"
if [ $UPDATE_DOC -eq 1 ] && [ -s "$OUT/benchmark.log" ]; then
	python3 - "$ROOT/doc/BENCHMARKS.md" "$OUT/benchmarks.md" <<-'EOF'
		import sys
		doc, table = sys.argv[1], open(sys.argv[2]).read().strip()
		s = open(doc).read()
		a, b = "<!-- gpu-bench:begin -->", "<!-- gpu-bench:end -->"
		i, j = s.index(a) + len(a), s.index(b)
		s = s[:i] + "\n" + table + "\n" + s[j:]
		open(doc, "w").write(s)
	EOF
	note "doc/BENCHMARKS.md updated"
fi

note "gpu-check: $([ $FAILED -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - T_START)) s"
exit $FAILED
