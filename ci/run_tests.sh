#!/usr/bin/env bash
# The whole test suite: every build and test that CI runs, in order; fails on the first failure.
#   bash ci/run_tests.sh            all steps
#   STEPS="release backends" bash ci/run_tests.sh   only the named steps
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}
ALL_STEPS="release backends gpu_sanitize"
STEPS=${STEPS:-$ALL_STEPS}
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}

step_release() {
	# Release build, warnings are errors, every ctest label.
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DSPLITZIP_WERROR=ON >/dev/null
	cmake --build build/release -j"$JOBS"
	(cd build/release && ctest --output-on-failure -j"$JOBS")
}

step_backends() {
	# Rerun the host suites once per usable backend, forced through SPLITZIP_FORCE_BACKEND
	# (a forced backend that is unusable fails the run instead of falling back).
	local Z=build/release/tools/splitzip
	local names
	names=$("$Z" backends | awk 'NR > 1 && $2 == "yes" && $3 == "yes" && $1 != "cuda" && $1 != "hip" { print $1 }')
	for b in $names; do
		echo "== SPLITZIP_FORCE_BACKEND=$b"
		(cd build/release && SPLITZIP_FORCE_BACKEND=$b ctest --output-on-failure -j"$JOBS" -L 'unit|cli|xbackend|vectors')
	done
}

step_gpu_sanitize() {
	# The CPU SIMT harness and the GPU conformance suite (the CUDA/HIP kernels run on the CPU
	# at warp 32 and 64) under ASan + UBSan: any out-of-bounds access of a kernel is an error.
	local f="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPLITZIP_WERROR=ON \
		-DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF \
		-DCMAKE_C_FLAGS="$f" -DCMAKE_CXX_FLAGS="$f" >/dev/null
	cmake --build build/sanitize -j"$JOBS" --target splitzip simt_selftest simt_crash \
		test_gpu_simt test_gpu_api
	(cd build/sanitize && ctest --output-on-failure -j"$JOBS" -L 'simt|gpu')
}

for s in $STEPS; do
	echo "===== step: $s ====="
	t0=$(date +%s)
	"step_$s"
	echo "===== step $s passed in $(( $(date +%s) - t0 )) s ====="
done
echo "run_tests: all steps passed ($STEPS)"
