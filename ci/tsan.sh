#!/usr/bin/env bash
# ci/tsan.sh -- one context shared by many threads, under ThreadSanitizer: the library and
# tests/pages/test_threads.c built with -fsanitize=thread (without OpenMP, whose runtime is not
# instrumented; the contexts use one worker thread each), 8 threads x STREAMS page streams and
# frames through shared contexts. Any race report fails (halt_on_error).
#
# Environment: SPLITZIP_TSAN_BUILD (default build-tsan), SPLITZIP_TSAN_STREAMS (default 250),
# SPLITZIP_TSAN_CC (default cc), JOBS (default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SPLITZIP_TSAN_BUILD:-build-tsan}
case $build in /*) ;; *) build=$root/$build ;; esac
cc=${SPLITZIP_TSAN_CC:-cc}
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=thread"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=None \
	-DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
	-DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" -DSPLITZIP_WITH_OPENMP=OFF \
	-DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF -DSPLITZIP_WERROR=ON >/dev/null
cmake --build "$build" -j "${JOBS:-2}" --target test_threads
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	"$build/tests/pages/test_threads" 8 "${SPLITZIP_TSAN_STREAMS:-250}"
echo "== tsan: clean"
