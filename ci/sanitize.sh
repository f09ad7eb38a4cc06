#!/usr/bin/env bash
# ci/sanitize.sh -- the whole project and test suite under AddressSanitizer + UndefinedBehavior-
# Sanitizer (any report fails: -fno-sanitize-recover=all, leaks detected), then valgrind
# memcheck of the test programs and of the command-line tool on a small file, then one context
# shared by 8 threads under ThreadSanitizer (ci/tsan.sh).
#
# The ASan build has every host and SIMT-harness suite (the GPU kernels run on the CPU harness,
# instrumented, at W = 32 and 64) and runs all of them but lint (source checks), install (plain
# cc and pip builds against the installed tree) and vectors_spec_reader (Python only); the
# Python binding's tests run with the sanitizer runtimes preloaded. The valgrind build has only
# the programs valgrind runs; the TSan build only the thread test.
#
# Environment (all optional):
#   SPLITZIP_SAN_CC        C compiler for the sanitizer build (default cc; clang works too;
#                          C++ parts use CMake's default C++ compiler)
#   SPLITZIP_SAN_BUILD     sanitizer build directory (default build-asan)
#   SPLITZIP_VG_BUILD      valgrind build directory (default build-valgrind)
#   SPLITZIP_SAN_STEPS     steps to run (default "asan valgrind tsan")
#   SPLITZIP_TSAN_BUILD    ThreadSanitizer build directory (default build-tsan)
#   SPLITZIP_SAN_RESULTS   directory for the results: ctest JUnit files (asan.xml,
#                          python.xml), valgrind.txt and tsan.txt, one "NAME passed" line per
#                          check
#   JOBS                   parallel build and test jobs (default 2)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
steps=${SPLITZIP_SAN_STEPS:-"asan valgrind tsan"}
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
results=$(abs "${SPLITZIP_SAN_RESULTS:-build-asan/results}")
mkdir -p "$results"

run_asan() {
	local build cc flags
	build=$(abs "${SPLITZIP_SAN_BUILD:-build-asan}")
	cc=${SPLITZIP_SAN_CC:-cc}
	flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
	echo "== ASan+UBSan build ($cc) in $build"
	# The GPU modules are left out: device code cannot run under the host sanitizers (their
	# kernels run here on the CPU SIMT harness, instrumented like everything else).
	cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=None \
		-DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
		-DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
		-DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
		-DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
		-DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF -DSPLITZIP_WERROR=ON \
		-DSPLITZIP_SIMT_COST_TESTS=OFF -DSPLITZIP_REQUIRE_TEST_DEPS=ON >/dev/null
	local tb=$SECONDS
	cmake --build "$build" -j "$jobs"
	echo "-- ASan+UBSan build: $((SECONDS - tb)) s"
	local asan="abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	# Not the install tests: programs built against the installed (instrumented) tree by plain
	# cc, and pip, are not sanitizer builds.
	# The SIMT-harness suites at their --quick sizes (SZ_SIMT_QUICK): every kernel and path,
	# instrumented, on smaller inputs (the release step runs the full sizes natively); not the
	# two-frame page test, which only runs at full size. The cost counts (gpu.costs: the same
	# kernels, counted) and the kernel model (Python over the release build's ptxas tables)
	# are not built here (SPLITZIP_SIMT_COST_TESTS=OFF). Nor kvxfer.auto_drift: it
	# needs the transfer's windows to run at native speed to see the drift it injects (under
	# ASan the run is over before a window is full); the release step runs it.
	echo "== ctest under ASan+UBSan (all but lint, install, the Python binding, spec_reader, the GPU cost counts, the two-frame page stream, the kernel model)"
	ASAN_OPTIONS=detect_leaks=1:$asan SZ_SIMT_QUICK=1 ctest --test-dir "$build" -j "$jobs" \
		--output-on-failure -LE '^(lint|install|python)$' \
		-E '^(vectors_spec_reader|gpu\.simt\.pages_frames|kvxfer\.auto_drift)$' \
		--output-junit "$results/asan.xml"
	# The Python binding loads the instrumented library into an uninstrumented interpreter:
	# the sanitizer runtimes must be preloaded, and the interpreter's own allocations are not
	# ours to leak-check.
	local rt_asan rt_ubsan
	rt_asan=$("$cc" -print-file-name=libasan.so)
	rt_ubsan=$("$cc" -print-file-name=libubsan.so)
	if [ ! -f "$rt_asan" ] || [ ! -f "$rt_ubsan" ]; then
		echo "sanitize: no shared sanitizer runtimes for $cc (libasan.so, libubsan.so)" >&2
		return 1
	fi
	echo "== ctest -L python under ASan+UBSan (runtimes preloaded, no leak check)"
	LD_PRELOAD="$rt_asan:$rt_ubsan" ASAN_OPTIONS=detect_leaks=0:$asan \
		ctest --test-dir "$build" -j "$jobs" --output-on-failure -L '^python$' \
		--output-junit "$results/python.xml"
}

# valgrind with every error fatal: invalid accesses, uninitialised values, definite leaks.
vg() {
	valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
		--track-origins=yes --quiet "$@"
}
# passed NAME: one more valgrind check done (its results line).
passed() { echo "valgrind.$1 passed" >>"$results/valgrind.txt"; }

run_valgrind() {
	local build tmp
	build=$(abs "${SPLITZIP_VG_BUILD:-build-valgrind}")
	echo "== valgrind build in $build"
	# Without the GPU modules: valgrind cannot follow a GPU driver.
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPLITZIP_WERROR=ON \
		-DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF -DSPLITZIP_BUILD_SIMT_TESTS=OFF \
		-DSPLITZIP_BUILD_EXAMPLES=OFF -DSPLITZIP_REQUIRE_TEST_DEPS=ON >/dev/null
	# Only what valgrind runs below.
	cmake --build "$build" -j "$jobs" --target splitzip_cli gen_fuzz_seeds fuzz_decode_corpus \
		fuzz_roundtrip_corpus fuzz_differential_corpus fuzz_pages_corpus test_hardening
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	: >"$results/valgrind.txt"

	echo "== valgrind: fuzz corpus runners over the seed corpora"
	"$build/tests/fuzz/gen_fuzz_seeds" "$tmp/seeds"
	for t in decode roundtrip differential pages; do
		vg "$build/tests/fuzz/fuzz_${t}_corpus" "$tmp/seeds/$t"
		passed "fuzz_${t}_corpus"
	done
	echo "== valgrind: hardening header suite (no fork)"
	CK_FORK=no CK_RUN_SUITE=header vg "$build/tests/hardening/test_hardening"
	passed hardening_header

	local z=$build/tools/splitzip
	if [ ! -x "$z" ]; then
		echo "valgrind: no CLI at $z" >&2
		return 1
	fi
	echo "== valgrind: the CLI on a small file"
	head -c 65536 "$root/data/kv/aidreams260k__shakespeare.K.bf16" >"$tmp/in.bf16"
	vg "$z" compress "$tmp/in.bf16" "$tmp/in.sz"
	vg "$z" decompress "$tmp/in.sz" "$tmp/out.bf16"
	cmp "$tmp/in.bf16" "$tmp/out.bf16"
	vg "$z" verify "$tmp/in.sz"
	vg "$z" info "$tmp/in.sz" >/dev/null
	vg "$z" calibrate "$tmp/in.bf16" -o "$tmp/cb.bin"
	vg "$z" compress --codebook "$tmp/cb.bin" --no-checksum --chunk-log2 10 --frame-elems 5000 \
		"$tmp/in.bf16" "$tmp/multi.sz"
	vg "$z" decompress - - <"$tmp/multi.sz" >"$tmp/multi.bf16"
	cmp "$tmp/in.bf16" "$tmp/multi.bf16"
	passed cli_split4
	echo "== valgrind: pack, info, unpack and stats of a small safetensors file"
	local py=/usr/bin/python3 # the Debian interpreter, with numpy
	[ -x "$py" ] || py=python3
	"$py" "$root/tests/cli/st_cases.py" "$z" "$root/data" "$tmp/st" >/dev/null
	vg "$z" pack "$tmp/st/model.safetensors" "$tmp/m.szst"
	vg "$z" info "$tmp/m.szst" >/dev/null
	vg "$z" unpack "$tmp/m.szst" "$tmp/m.safetensors"
	cmp "$tmp/st/model.safetensors" "$tmp/m.safetensors"
	# container version 2: F16, F32 and FP8 tensors in frames, several per tensor
	vg "$z" pack --frame-elems 5000 "$tmp/st/mixed.safetensors" "$tmp/x.szst"
	vg "$z" info "$tmp/x.szst" >/dev/null
	vg "$z" unpack "$tmp/x.szst" "$tmp/x.safetensors"
	cmp "$tmp/st/mixed.safetensors" "$tmp/x.safetensors"
	vg "$z" stats --svg "$tmp/m.svg" "$tmp/st/model.safetensors" >/dev/null
	passed cli_safetensors
	echo "== valgrind: the CLI on entropy frames"
	vg "$z" compress --mode entropy --frame-elems 9000 --chunk-log2 10 "$tmp/in.bf16" "$tmp/e.sz"
	vg "$z" decompress "$tmp/e.sz" "$tmp/e.bf16"
	cmp "$tmp/in.bf16" "$tmp/e.bf16"
	vg "$z" info "$tmp/e.sz" >/dev/null
	vg "$z" calibrate --mode entropy "$tmp/in.bf16" -o "$tmp/t.szet"
	vg "$z" compress --table "$tmp/t.szet" --mode auto "$tmp/in.bf16" "$tmp/t.sz"
	vg "$z" verify "$tmp/t.sz"
	passed cli_entropy
	# Error paths: the documented exit code (3: bad data, 4: exists), not valgrind's 99.
	cp "$tmp/in.sz" "$tmp/bad.sz"
	printf '\x55' | dd of="$tmp/bad.sz" bs=1 seek=3000 conv=notrunc 2>/dev/null
	local rc
	for args in "decompress $tmp/bad.sz $tmp/bad.out" "verify $tmp/bad.sz" \
		"compress $tmp/in.bf16 $tmp/in.sz" "unpack $tmp/st/hostile/raw_data.szst $tmp/x" \
		"pack $tmp/st/hostile/overlap.safetensors $tmp/y"; do
		rc=0
		# shellcheck disable=SC2086
		vg "$z" $args 2>"$tmp/err" || rc=$?
		case "$args:$rc" in
		decompress*:3 | verify*:3 | compress*:4 | unpack*:3 | pack*:3) ;;
		*)
			cat "$tmp/err" >&2
			echo "valgrind: splitzip $args: exit $rc" >&2
			return 1
			;;
		esac
	done
	passed cli_errors
}

for s in $steps; do
	t0=$SECONDS
	case $s in
	asan) run_asan ;;
	valgrind) run_valgrind ;;
	tsan)
		SPLITZIP_TSAN_BUILD=${SPLITZIP_TSAN_BUILD:-build-tsan} JOBS=$jobs bash "$root/ci/tsan.sh"
		echo "tsan.threads passed" >"$results/tsan.txt"
		;;
	*) echo "unknown step $s" >&2; exit 2 ;;
	esac
	echo "-- sanitize $s: $((SECONDS - t0)) s"
done
echo "== sanitize: all clean"
