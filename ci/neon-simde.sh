#!/bin/sh
# ci/neon-simde.sh -- build the NEON backend over SIMDe on x86-64 (test-only option
# SPLITZIP_NEON_SIMDE=ON) and run the suites that run CPU backend code, so the NEON source
# passes the same conformance tests as every other backend, on the CI's own CPU.
#
# Needs (Debian): libsimde-dev check pkg-config cmake python3.
# The build has the NEON and scalar backends only (SPLITZIP_WITH_AVX2=OFF: the x86 backends are
# tested by the release step), no GPU modules, no SIMT harness or GPU kernel suites and no UCX
# example (no NEON code in them). The suites run with SPLITZIP_FORCE_BACKEND=neon, so those that
# use the default backend run NEON code (the cross-backend, vector and hardening suites pick
# every backend themselves); SPLITZIP_EXPECT_BACKENDS=neon makes them fail if NEON is not
# usable. Left out as in every CPU-only step: lint, install, python, threads (no backend code
# of their own; the release step runs them) and vectors_spec_reader (Python, reads the vectors only).
#
# Environment: BUILD_DIR (default build-neon-simde), JOBS (default 2), CTEST_ARGS (extra ctest
# arguments, e.g. "--output-junit FILE").
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-neon-simde}
jobs=${JOBS:-2}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSPLITZIP_NEON_SIMDE=ON \
	-DSPLITZIP_WITH_AVX2=OFF -DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF \
	-DSPLITZIP_BUILD_SIMT_TESTS=OFF -DSPLITZIP_BUILD_EXAMPLES=OFF -DSPLITZIP_WERROR=ON \
	-DSPLITZIP_REQUIRE_TEST_DEPS=ON >/dev/null
cmake --build "$build" -j "$jobs"
# shellcheck disable=SC2086 # CTEST_ARGS is a list of arguments
SPLITZIP_FORCE_BACKEND=neon SPLITZIP_EXPECT_BACKENDS=${SPLITZIP_EXPECT_BACKENDS:-neon} \
	ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE '^(lint|install|python|threads)$' \
	-E '^vectors_spec_reader$' ${CTEST_ARGS:-}
