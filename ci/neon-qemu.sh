#!/bin/sh
# ci/neon-qemu.sh -- cross-build splitzip and all its tests for aarch64 and run the whole test
# suite under qemu-aarch64, so the NEON backend runs as NEON code (not emulated intrinsics).
#
# Needs (Debian): gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# cmake pkg-config. Check has no arm64 package that installs beside the host's, so the build
# uses the Check stand-in in tests/checkshim (SPLITZIP_CHECK_SHIM=ON); zstd/lz4 are absent for
# the target, so the benchmark smoke run skips them; the GPU modules (nvcc/hipcc) are off, the
# SIMT harness tests (C++, ucontext on aarch64) run; the Python binding test is not registered
# (the host's python3 cannot load an aarch64 library). SPLITZIP_EXPECT_BACKENDS=neon makes the
# conformance test fail if the NEON backend did not run.
#
# ctest runs test programs through CMAKE_CROSSCOMPILING_EMULATOR. The CLI tests are shell
# scripts that execute the aarch64 splitzip program directly, which works only where the
# kernel's binfmt_misc has qemu-aarch64 registered (Debian: qemu-user-binfmt on a host that
# mounts binfmt_misc); elsewhere those two tests are excluded, and the script says so. The two
# SIMT harness stress tests (simt.compaction, simt.compaction_big) are always excluded: their
# 240 s watchdog fires under emulation. So are the slowest GPU-kernel suites on the harness
# (gpu.costs*, gpu.simt.entropy_{encode,corrupt,decode}: 15 minutes emulated) and the nvcc/HIP
# compile check (simt.gpu_compile): they contain no NEON code, the harness on aarch64 is still
# exercised by the other simt.* and gpu.simt.* tests, and the release and sanitize steps run
# them natively.
#
# Environment: BUILD_DIR (default build-aarch64), JOBS (default 2), CTEST_ARGS (extra ctest
# arguments, e.g. "-L xbackend").
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

cmake -S "$root" -B "$build" \
	-DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=Release \
	-DSPLITZIP_WITH_NEON=ON \
	-DSPLITZIP_WITH_CUDA=OFF \
	-DSPLITZIP_WITH_HIP=OFF \
	-DSPLITZIP_CHECK_SHIM=ON \
	-DSPLITZIP_WERROR=ON
cmake --build "$build" -j "$jobs"

# The test binaries must really be aarch64 programs: ELF e_machine (offset 18) is 183 (0xB7).
machine=$(od -An -tu2 -j18 -N2 "$build/tests/xbackend/test_xbackend" | tr -d ' ')
if [ "$machine" != 183 ]; then
	echo "neon-qemu: the test binary is not an aarch64 executable (e_machine $machine)" >&2
	exit 1
fi

# Two stress tests of the GPU kernels' SIMT harness (thousands of fiber switches) exceed the
# harness's 240 s watchdog under emulation; they do not involve the CPU backends.
exclude="simt\\.compaction|simt\\.compaction_big|^simt\\.gpu_compile\$|^gpu\\.costs|^gpu\\.simt\\.entropy_(encode|corrupt|decode)\$"
echo "neon-qemu: simt.compaction, simt.compaction_big, simt.gpu_compile, gpu.costs* and" \
	"gpu.simt.entropy_{encode,corrupt,decode} are excluded (too slow emulated; run natively" \
	"by the release and sanitize steps)" >&2
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	echo "neon-qemu: binfmt_misc has no qemu-aarch64 entry: the CLI shell tests" \
	     "(cli, hardening-cli) cannot execute the aarch64 program and are excluded" >&2
	exclude="$exclude|^cli\$|^hardening-cli\$"
fi

# Emulation is slow: generous timeouts. QEMU_LD_PREFIX serves programs started via binfmt_misc.
# shellcheck disable=SC2086 # CTEST_ARGS is a list of arguments
QEMU_LD_PREFIX=/usr/aarch64-linux-gnu \
SPLITZIP_EXPECT_BACKENDS=${SPLITZIP_EXPECT_BACKENDS:-neon} \
	ctest --test-dir "$build" --output-on-failure --timeout 3600 ${exclude:+-E "$exclude"} \
	${CTEST_ARGS:-}
