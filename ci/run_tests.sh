#!/usr/bin/env bash
# The whole test suite: every build and test that CI runs, in order; fails on the first failure.
#   bash ci/run_tests.sh            all steps
#   STEPS="release backends" bash ci/run_tests.sh   only the named steps
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}
ALL_STEPS="lint release backends neon_simde neon_qemu sanitize fuzz"
STEPS=${STEPS:-$ALL_STEPS}
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}
# The CUDA toolkit lives outside the default PATH.
if [ -d /usr/local/cuda/bin ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

step_lint() {
	# Source-tree rules that need no build: the .clang-format style, and the layering rules and
	# host function lengths of doc/ARCHITECTURE.md (with a self-test of the checker).
	bash ci/format.sh --check
	python3 ci/check_layers.py
	python3 ci/check_layers.py --self-test
}

step_release() {
	# Release build, warnings are errors, every ctest label. The GPU modules are required
	# (nvcc from the CUDA toolkit; clang-19 for the HIP module's gfx90a, gfx942, gfx1100 and
	# gfx1200 code objects): a missing compiler fails the run rather than silently building
	# less. SPLITZIP_GPU=AUTO relaxes that for machines without them. The ctest gpu.hip_bundle
	# (ci/hip-bundle-check.py: every target present, no scratch, no flat_* accesses, VGPR
	# budget, wave size per target) must run here, not skip for want of the LLVM tools.
	local gpu=${SPLITZIP_GPU:-ON}
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DSPLITZIP_WERROR=ON \
		-DSPLITZIP_WITH_CUDA="$gpu" -DSPLITZIP_WITH_HIP="$gpu" >/dev/null
	cmake --build build/release -j"$JOBS"
	# Every SIMD backend this CPU supports (read from /proc/cpuinfo, independently of our own
	# cpuid probe) must be compiled in and usable, or the conformance suite fails.
	# (Set for this ctest only: the NEON steps expect their own backend.)
	local expect=${SPLITZIP_EXPECT_BACKENDS-}
	if [ -z "${SPLITZIP_EXPECT_BACKENDS+x}" ] && [ -r /proc/cpuinfo ]; then
		local flags
		flags=$(grep -m1 '^flags' /proc/cpuinfo)
		case " $flags " in *" avx2 "*) expect="avx2" ;; esac
		case " $flags " in *" avx512bw "*) expect="$expect,avx512" ;; esac
		case " $flags " in *" avx512_vbmi2 "*)
			case " $flags " in *" avx512vbmi "*) expect="$expect,avx512vbmi" ;; esac ;;
		esac
		expect=${expect#,}
	fi
	echo "expected backends: ${expect:-none}"
	local require=0
	[ "$gpu" = ON ] && require=1
	# SPLITZIP_REQUIRE_RSVG: the stats chart must render (rsvg-convert, from librsvg2-bin).
	(cd build/release && SPLITZIP_EXPECT_BACKENDS="$expect" SZ_REQUIRE_HIP_TOOLS=$require \
		SPLITZIP_REQUIRE_RSVG=1 \
		ctest --output-on-failure -j"$JOBS")
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

step_neon_simde() {
	# The NEON source built on x86 over SIMDe, through the same conformance suites.
	JOBS="$JOBS" bash ci/neon-simde.sh
}

step_neon_qemu() {
	# Cross-built for aarch64 and the whole test suite run under qemu-aarch64.
	JOBS="$JOBS" bash ci/neon-qemu.sh
}

step_sanitize() {
	# The whole project and every ctest label under ASan + UBSan (the SIMT harness runs the GPU
	# kernels on the CPU there too), then valgrind memcheck of the CLI and corpus runners.
	JOBS="$JOBS" bash ci/sanitize.sh
}

step_fuzz() {
	# libFuzzer targets (decode, round trip, differential) for a bounded time each.
	SPLITZIP_FUZZ_SECONDS=${SPLITZIP_FUZZ_SECONDS:-60} JOBS="$JOBS" bash ci/fuzz.sh
}

for s in $STEPS; do
	echo "===== step: $s ====="
	t0=$(date +%s)
	"step_$s"
	echo "===== step $s passed in $(( $(date +%s) - t0 )) s ====="
done
echo "run_tests: all steps passed ($STEPS)"
