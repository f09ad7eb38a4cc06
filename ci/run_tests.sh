#!/usr/bin/env bash
# The whole test suite: every build and test that CI runs; fails if any step fails.
#   bash ci/run_tests.sh                                all steps (.ci/run runs this)
#   STEPS="release backends" bash ci/run_tests.sh       only the named steps (backends uses the
#                                                       release step's build)
#   SPLITZIP_UPDATE_TESTS=1 [STEPS=...] bash ci/run_tests.sh
#                                                       after a deliberate change of the suites:
#                                                       run the steps and rewrite their lists
#                                                       ci/tests/<step>.txt from what they ran
#
# Steps. Every build is configured with SPLITZIP_REQUIRE_TEST_DEPS=ON: a missing compiler,
# Python module, UCX, tool or the shared data set fails the step, nothing is left out for
# want of it.
#   lint        the .clang-format style, and the layering rules and host function lengths of
#               doc/ARCHITECTURE.md (with a self-test of the checker)
#   release     Release build with -Werror, the CUDA and HIP modules included (each compiled
#               once; ptxas and code-object tables are read from that build), every ctest suite
#   backends    the suites that run on the default host backend (labels unit, cli, per-backend)
#               again once per other usable host backend, forced with SPLITZIP_FORCE_BACKEND
#               (the default backend ran them in the release step); the usable backends must be
#               exactly scalar and those /proc/cpuinfo announces
#   neon_simde  the NEON backend over SIMDe on x86: the suites that run CPU backend code
#   neon_qemu   cross-built for aarch64: the same suites under qemu-aarch64
#   sanitize    ASan + UBSan: every suite of host and SIMT-harness code (the GPU kernels on the
#               CPU harness at W = 32 and 64, at their --quick sizes), then valgrind memcheck of
#               the CLI and the corpus runners, then one context shared by 8 threads under TSan
#   fuzz        the libFuzzer targets for a bounded time each (40 s; safetensors 20 s, pages 30 s;
#               longer runs: SPLITZIP_FUZZ_SECONDS, doc/SECURITY.md)
#
# Each step checks the tests it ran against ci/tests/<step>.txt (ci/check-tests.py): it prints
# how many ran and how many were expected, and fails on a missing, unexpected, failed or skipped
# test (only tests that need a GPU device may skip, on a machine without one).
#
# The steps run in two lanes at once ("lint release backends fuzz" and "neon_qemu neon_simde
# sanitize"; SPLITZIP_CI_LANES, lanes separated by '|'): on 2 cores each lane's serial phases
# (nvcc and the HIP compilers on one file each, the slowest tests, valgrind) leave a core to the
# other, and the lanes carry about the same CPU time.
# Each step's output goes to build/ci/logs/<step>.log and is printed whole when the step ends;
# a failing step stops the run. The run ends with a table of each step's wall time and CPU time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=${JOBS:-$(nproc)}
ALL_STEPS="lint release backends neon_simde neon_qemu sanitize fuzz"
STEPS=${STEPS:-$ALL_STEPS}
LANES=${SPLITZIP_CI_LANES:-"lint release backends fuzz|neon_qemu neon_simde sanitize"}
UPDATE=${SPLITZIP_UPDATE_TESTS:-0}
CI_OUT=$ROOT/build/ci
RESULTS=$CI_OUT/results
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-4}
# The CUDA toolkit lives outside the default PATH.
if [ -d /usr/local/cuda/bin ]; then export PATH=/usr/local/cuda/bin:$PATH; fi

# Every SIMD backend this CPU supports, read from /proc/cpuinfo independently of the library's
# own cpuid probe (comma-separated; empty if none).
cpu_backends() {
	local flags expect=""
	flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
	case " $flags " in *" avx2 "*) expect="avx2" ;; esac
	case " $flags " in *" avx512bw "*) expect="$expect,avx512" ;; esac
	case " $flags " in *" avx512_vbmi2 "*)
		case " $flags " in *" avx512vbmi "*) expect="$expect,avx512vbmi" ;; esac ;;
	esac
	echo "${expect#,}"
}

# check_tests STEP RESULTS...: what the step ran against ci/tests/STEP.txt (or, with
# SPLITZIP_UPDATE_TESTS=1, rewrite that list); the counts go to $RESULTS/STEP.count.
check_tests() {
	local step=$1
	shift
	local json=()
	if [ "$UPDATE" = 1 ]; then
		for d in "$ROOT"/build/*/; do
			[ -f "$d/CTestTestfile.cmake" ] || continue
			ctest --test-dir "$d" --show-only=json-v1 >"$d/tests.json"
			json+=(--ctest-json "$d/tests.json")
		done
		python3 ci/check-tests.py --update "${json[@]}" "ci/tests/$step.txt" "$@"
	else
		python3 ci/check-tests.py --counts "$RESULTS/$step.count" "ci/tests/$step.txt" "$@"
	fi
}

# timed LABEL COMMAND...: the command, then its wall seconds ("-- LABEL: N s"), so that the
# parts of a step show in its log; the command's status is returned.
timed() {
	local label=$1 t0=$SECONDS rc=0
	shift
	"$@" || rc=$?
	echo "-- $label: $((SECONDS - t0)) s"
	return $rc
}

step_lint() {
	local r=$RESULTS/lint.txt
	: >"$r"
	bash ci/format.sh --check && echo "format passed" >>"$r"
	python3 ci/check_layers.py && echo "layers passed" >>"$r"
	python3 ci/check_layers.py --self-test && echo "layers_selftest passed" >>"$r"
	check_tests lint "$r"
}

step_release() {
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DSPLITZIP_WERROR=ON \
		-DSPLITZIP_WITH_CUDA=ON -DSPLITZIP_WITH_HIP=ON -DSPLITZIP_REQUIRE_TEST_DEPS=ON >/dev/null
	timed "release build" cmake --build build/release -j"$JOBS"
	# Every SIMD backend this CPU supports must be compiled in and usable, or the conformance
	# suites fail. The lint tests ran in the lint step.
	local expect rc=0
	expect=$(cpu_backends)
	echo "expected backends: ${expect:-none}"
	(cd build/release && SPLITZIP_EXPECT_BACKENDS="$expect" timed "release ctest" \
		ctest --output-on-failure -j"$JOBS" -LE '^lint$' --output-junit "$RESULTS/release.xml") ||
		rc=$?
	check_tests release "$RESULTS/release.xml" || rc=1
	return $rc
}

step_backends() {
	local z=build/release/tools/splitzip names expect auto b rc=0 runs=0
	if [ ! -x "$z" ]; then
		echo "backends: $z missing (the release step builds it)" >&2
		return 1
	fi
	names=$("$z" backends | awk 'NR > 1 && $2 == "yes" && $3 == "yes" && $1 != "cuda" && $1 != "hip" { print $1 }')
	expect=$(cpu_backends)
	echo "usable host backends: $(echo $names); expected: scalar${expect:+,$expect}"
	if [ -z "$names" ]; then
		echo "backends: the list of usable backends is empty" >&2
		return 1
	fi
	if [ "$(echo "$names" | sort | tr '\n' ' ')" != \
		"$(echo "scalar,$expect" | tr ',' '\n' | grep . | sort | tr '\n' ' ')" ]; then
		echo "backends: the usable host backends differ from scalar + /proc/cpuinfo's" >&2
		return 1
	fi
	auto=$(echo "$names" | head -n 1) # the registry is in priority order
	for b in $names; do
		if [ "$b" = "$auto" ]; then
			echo "== $b: the default backend, with which the release step ran these suites"
			continue
		fi
		echo "== SPLITZIP_FORCE_BACKEND=$b"
		(cd build/release && SPLITZIP_FORCE_BACKEND=$b SPLITZIP_EXPECT_BACKENDS="$expect" \
			ctest --output-on-failure -j"$JOBS" -L '^(unit|cli|per-backend)$' \
			--output-junit "$RESULTS/backends-$b.xml") || rc=$?
		cp "$RESULTS/backends-$b.xml" "$RESULTS/backends.xml"
		check_tests backends "$RESULTS/backends-$b.xml" || rc=1
		runs=$((runs + 1))
		[ "$UPDATE" = 1 ] && break # one backend's run gives the list
	done
	echo "backends: $runs forced backend run(s)"
	return $rc
}

step_neon_simde() {
	local rc=0
	BUILD_DIR=$ROOT/build/neon-simde JOBS=$JOBS \
		CTEST_ARGS="--output-junit $RESULTS/neon_simde.xml" sh ci/neon-simde.sh || rc=$?
	check_tests neon_simde "$RESULTS/neon_simde.xml" || rc=1
	return $rc
}

step_neon_qemu() {
	local rc=0
	BUILD_DIR=$ROOT/build/aarch64 JOBS=$JOBS \
		CTEST_ARGS="--output-junit $RESULTS/neon_qemu.xml" sh ci/neon-qemu.sh || rc=$?
	check_tests neon_qemu "$RESULTS/neon_qemu.xml" || rc=1
	return $rc
}

step_sanitize() {
	local rc=0 r=$RESULTS/sanitize
	rm -rf "$r"
	SPLITZIP_SAN_BUILD=build/asan SPLITZIP_VG_BUILD=build/valgrind \
		SPLITZIP_TSAN_BUILD=build/tsan SPLITZIP_SAN_RESULTS=$r \
		JOBS=$JOBS bash ci/sanitize.sh || rc=$?
	check_tests sanitize "$r/asan.xml" "$r/python.xml" "$r/valgrind.txt" "$r/tsan.txt" || rc=1
	return $rc
}

step_fuzz() {
	local rc=0
	SPLITZIP_FUZZ_SECONDS=${SPLITZIP_FUZZ_SECONDS:-40} SPLITZIP_FUZZ_BUILD=build/fuzz \
		SPLITZIP_FUZZ_RESULTS=$RESULTS/fuzz.txt JOBS=$JOBS bash ci/fuzz.sh || rc=$?
	check_tests fuzz "$RESULTS/fuzz.txt" || rc=1
	return $rc
}

# ---- One step in its own process (set -e holds in it), its CPU time written beside the log.
if [ "${1:-}" = "--step" ]; then
	mkdir -p "$RESULTS"
	# at exit, the user and system time of the step's processes (its waited-for children)
	# (times in a pipeline would be a subshell's: written to a file, line 2 read later; the
	# trap may run inside a step function, so the name is kept in a variable)
	STEP_NAME=$2
	trap 'times >"$CI_OUT/times/$STEP_NAME.cpu"' EXIT
	"step_$2"
	exit 0
fi

# ---- Lanes ---------------------------------------------------------------------------------
rm -rf "$CI_OUT"
mkdir -p "$CI_OUT/logs" "$CI_OUT/times" "$CI_OUT/pids" "$RESULTS"
for s in $STEPS; do
	case " $ALL_STEPS " in *" $s "*) ;; *) echo "run_tests: unknown step $s" >&2; exit 2 ;; esac
done
LOAD_BEFORE=$(uptime)
T_START=$(date +%s)

# run_step STEP: the step in its own session (so that a failure elsewhere can stop it whole),
# its log printed in one piece when it ends.
run_step() {
	local s=$1 t0 rc=0 pid
	t0=$(date +%s)
	echo "===== step $s started at $(date +%T)"
	setsid bash "$ROOT/ci/run_tests.sh" --step "$s" </dev/null >"$CI_OUT/logs/$s.log" 2>&1 &
	pid=$!
	echo "$pid" >"$CI_OUT/pids/$s"
	wait "$pid" || rc=$?
	rm -f "$CI_OUT/pids/$s"
	echo "$(($(date +%s) - t0)) $rc" >"$CI_OUT/times/$s.wall"
	local status=passed
	if [ $rc -ne 0 ]; then
		status=FAILED
		[ -e "$CI_OUT/stopped" ] && status="stopped (another step failed)"
		echo "$status" >"$CI_OUT/times/$s.status"
	fi
	{
		flock 9
		echo "===== step $s: log ($CI_OUT/logs/$s.log)"
		cat "$CI_OUT/logs/$s.log"
		echo "===== step $s $status in $(($(date +%s) - t0)) s"
	} 9>>"$CI_OUT/print.lock"
	return $rc
}

run_lane() {
	for s in "$@"; do
		run_step "$s" || return 1
	done
}

stop_all() { # the steps still running, whole sessions
	local f
	touch "$CI_OUT/stopped"
	for f in "$CI_OUT"/pids/*; do
		[ -f "$f" ] && kill -TERM -- "-$(cat "$f")" 2>/dev/null || true
	done
}

summary() {
	local s wall rc cpu status tot_cpu=0 passed=0 failed=0 skipped=0
	echo
	echo "===== step times (wall: seconds the step took; CPU: user + system seconds of its processes)"
	printf '%-12s %7s %7s  %s\n' step wall CPU status
	for s in $STEPS; do
		if [ -f "$CI_OUT/times/$s.wall" ]; then
			read -r wall rc <"$CI_OUT/times/$s.wall"
			status=passed
			[ "$rc" -eq 0 ] || status=$(cat "$CI_OUT/times/$s.status")
		else
			wall=- status="not run"
		fi
		cpu=-
		if [ -f "$CI_OUT/times/$s.cpu" ]; then
			cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } }
				END { printf "%d", t }' "$CI_OUT/times/$s.cpu")
			tot_cpu=$((tot_cpu + cpu))
		fi
		printf '%-12s %7s %7s  %s\n' "$s" "$wall" "$cpu" "$status"
		if [ -f "$RESULTS/$s.count" ]; then
			read -r p f k <"$RESULTS/$s.count"
			passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
		fi
	done
	printf '%-12s %7s %7s  %s\n' total "$(($(date +%s) - T_START))" "$tot_cpu" \
		"(wall: the whole run, lanes in parallel)"
	echo "load before: $LOAD_BEFORE"
	echo "load after:  $(uptime)"
	echo "run_tests: $passed passed, $failed failed, $skipped skipped"
}

IFS='|' read -r -a lanes <<<"$LANES"
lane_pids=()
for lane in "${lanes[@]}"; do
	sel=()
	for s in $lane; do
		case " $STEPS " in *" $s "*) sel+=("$s") ;; esac
	done
	[ ${#sel[@]} -gt 0 ] || continue
	run_lane "${sel[@]}" &
	lane_pids+=($!)
done
status=0
for _ in "${lane_pids[@]}"; do
	if ! wait -n; then
		status=1
		stop_all
	fi
done
summary
if [ $status -ne 0 ]; then
	echo "run_tests: FAILED (see the step marked FAILED above)"
	exit 1
fi
echo "run_tests: all steps passed ($STEPS)"
