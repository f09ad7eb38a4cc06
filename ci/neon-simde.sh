#!/bin/sh
# ci/neon-simde.sh -- build the NEON backend over SIMDe on x86-64 (test-only option
# SPLITZIP_NEON_SIMDE=ON) and run the whole test suite, so the NEON source passes the same
# conformance tests as every other backend, on the CI's own CPU.
#
# Needs (Debian): libsimde-dev check pkg-config cmake.
# SPLITZIP_EXPECT_BACKENDS=neon makes the conformance test fail if the NEON backend did not run.
#
# Environment: BUILD_DIR (default build-neon-simde), JOBS (default 2), CTEST_ARGS.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-neon-simde}
jobs=${JOBS:-2}

# The GPU modules have nothing to do with this run (their kernels are tested on the SIMT
# harness in every build); leaving them out saves the nvcc/hipcc time.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSPLITZIP_NEON_SIMDE=ON \
	-DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF -DSPLITZIP_WERROR=ON
cmake --build "$build" -j "$jobs"
# shellcheck disable=SC2086 # CTEST_ARGS is a list of arguments
SPLITZIP_EXPECT_BACKENDS=${SPLITZIP_EXPECT_BACKENDS:-neon} \
	ctest --test-dir "$build" --output-on-failure ${CTEST_ARGS:-}
