#!/bin/sh
# ci/neon-qemu.sh -- cross-build splitzip and all its tests for aarch64 and run the whole test
# suite under qemu-aarch64, so the NEON backend runs as NEON code (not emulated intrinsics).
#
# Needs (Debian): gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user cmake pkg-config.
# Check has no arm64 package that installs beside the host's, so the build uses the Check
# stand-in in tests/checkshim (SPLITZIP_CHECK_SHIM=ON); zstd/lz4 are absent for the target,
# so the benchmark smoke run skips them. SPLITZIP_EXPECT_BACKENDS=neon makes the conformance
# test fail if the NEON backend did not run.
#
# Environment: BUILD_DIR (default build-aarch64), JOBS (default 2), CTEST_ARGS (extra ctest
# arguments, e.g. "-L xbackend").
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build-aarch64}
jobs=${JOBS:-2}

for tool in cmake aarch64-linux-gnu-gcc qemu-aarch64; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "neon-qemu: $tool not found (apt-get install gcc-aarch64-linux-gnu" \
		     "libc6-dev-arm64-cross qemu-user cmake)" >&2
		exit 1
	fi
done

cmake -S "$root" -B "$build" \
	-DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=Release \
	-DSPLITZIP_WITH_NEON=ON \
	-DSPLITZIP_CHECK_SHIM=ON \
	-DSPLITZIP_WERROR=ON
cmake --build "$build" -j "$jobs"

# The test binaries must really be aarch64 programs: ELF e_machine (offset 18) is 183 (0xB7).
machine=$(od -An -tu2 -j18 -N2 "$build/tests/xbackend/test_xbackend" | tr -d ' ')
if [ "$machine" != 183 ]; then
	echo "neon-qemu: the test binary is not an aarch64 executable (e_machine $machine)" >&2
	exit 1
fi

# ctest runs each test through CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64 -L sysroot).
# Emulation is slow: generous timeouts.
# shellcheck disable=SC2086 # CTEST_ARGS is a list of arguments
SPLITZIP_EXPECT_BACKENDS=${SPLITZIP_EXPECT_BACKENDS:-neon} \
	ctest --test-dir "$build" --output-on-failure --timeout 3600 ${CTEST_ARGS:-}
