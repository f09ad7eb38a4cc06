#!/bin/sh
# ci/neon-qemu.sh -- cross-build splitzip and its tests for aarch64 and run, under qemu-aarch64,
# the suites that run CPU backend code, so the NEON backend runs as NEON code (not emulated
# intrinsics) and the scalar code as aarch64 code (the golden vectors regenerate the same bytes).
#
# Needs (Debian): gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# cmake pkg-config python3. Check has no arm64 package that installs beside the host's, so the
# build uses the Check stand-in in tests/checkshim (SPLITZIP_CHECK_SHIM=ON); zstd/lz4 are absent
# for the target, so the benchmark smoke run has no reference codecs. Not built: the GPU
# modules, the SIMT harness and GPU kernel suites, the UCX example (no NEON code; the release
# and sanitize steps run them natively). Not run: lint, install, python, threads (the context's
# pool is backend-independent: the release and sanitize steps run it) and vectors_spec_reader,
# as in every CPU-only step (the library cannot be loaded by the host's python3 anyway).
#
# ctest runs test programs through CMAKE_CROSSCOMPILING_EMULATOR; the CLI's shell-script tests
# run the CLI through a wrapper that calls the emulator (tests/CMakeLists.txt), so they need no
# binfmt_misc registration. The suites run with SPLITZIP_FORCE_BACKEND=neon, and
# SPLITZIP_EXPECT_BACKENDS=neon makes the conformance suites fail if NEON did not run.
#
# Environment: BUILD_DIR (default build-aarch64), JOBS (default 2), CTEST_ARGS (extra ctest
# arguments, e.g. "-L xbackend" or "--output-junit FILE").
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-aarch64}
jobs=${JOBS:-2}

for tool in cmake aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "neon-qemu: $tool not found (apt-get install gcc-aarch64-linux-gnu" \
		     "g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user cmake)" >&2
		exit 1
	fi
done
# The emulator must run an aarch64 program (a qemu-aarch64 that is not one fails here).
if ! qemu-aarch64 -version >/dev/null 2>&1; then
	echo "neon-qemu: qemu-aarch64 does not run" >&2
	exit 1
fi

cmake -S "$root" -B "$build" \
	-DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=Release \
	-DSPLITZIP_WITH_NEON=ON \
	-DSPLITZIP_WITH_CUDA=OFF \
	-DSPLITZIP_WITH_HIP=OFF \
	-DSPLITZIP_BUILD_SIMT_TESTS=OFF \
	-DSPLITZIP_BUILD_EXAMPLES=OFF \
	-DSPLITZIP_CHECK_SHIM=ON \
	-DSPLITZIP_WERROR=ON \
	-DSPLITZIP_REQUIRE_TEST_DEPS=ON >/dev/null
cmake --build "$build" -j "$jobs"

# The test binaries must really be aarch64 programs: ELF e_machine (offset 18) is 183 (0xB7).
machine=$(od -An -tu2 -j18 -N2 "$build/tests/xbackend/test_xbackend" | tr -d ' ')
if [ "$machine" != 183 ]; then
	echo "neon-qemu: the test binary is not an aarch64 executable (e_machine $machine)" >&2
	exit 1
fi

# Emulation is slow: generous timeouts. QEMU_LD_PREFIX serves programs that test scripts start.
# shellcheck disable=SC2086 # CTEST_ARGS is a list of arguments
QEMU_LD_PREFIX=/usr/aarch64-linux-gnu SPLITZIP_FORCE_BACKEND=neon \
SPLITZIP_EXPECT_BACKENDS=${SPLITZIP_EXPECT_BACKENDS:-neon} \
	ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 3600 \
	-LE '^(lint|install|python|threads)$' -E '^vectors_spec_reader$' ${CTEST_ARGS:-}
