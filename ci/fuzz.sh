#!/usr/bin/env bash
# ci/fuzz.sh -- build the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined) and
# run each for a bounded time, JOBS of them at a time; fail on any crash, leak, timeout or
# sanitizer report, or a target that executed nothing.
#
# Environment (all optional):
#   SPLITZIP_FUZZ_SECONDS   seconds per target (default 60; the safetensors target half that)
#   SPLITZIP_FUZZ_PAGES_SECONDS  seconds of the page-stream target (default 30, at most the above)
#   SPLITZIP_FUZZ_TARGETS   targets to run (default "decode roundtrip differential safetensors
#                           pages")
#   SPLITZIP_FUZZ_BUILD     build directory (default build-fuzz)
#   SPLITZIP_FUZZ_CC        compiler (default clang, else clang-14)
#   SPLITZIP_FUZZ_MAX_LEN   libFuzzer -max_len (default: libFuzzer's choice from the seeds)
#   SPLITZIP_FUZZ_KEEP      directory to copy the grown corpora and any crash inputs to
#   SPLITZIP_FUZZ_RESULTS   file for one "fuzz_<target> passed|failed" line per target
#                           (default <build>/fuzz-results.txt; ci/check-tests.py reads it)
#   JOBS                    parallel build jobs and targets run at once (default 2)
# The seeds come from gen_fuzz_seeds (valid frames of the current format), the checked-in
# regression inputs (tests/fuzz/regressions/) and the golden vectors (tests/vectors/); the
# safetensors target (the CLI's safetensors header parser and container reader) starts from
# tests/fuzz/seeds_safetensors/. The checked-in files are never modified. A summary with executions per target is printed and
# written to <build>/fuzz-summary.txt.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
secs=${SPLITZIP_FUZZ_SECONDS:-60}
targets=${SPLITZIP_FUZZ_TARGETS:-"decode roundtrip differential safetensors pages"}
pages_secs=${SPLITZIP_FUZZ_PAGES_SECONDS:-$((secs < 30 ? secs : 30))}
build=${SPLITZIP_FUZZ_BUILD:-build-fuzz}
case $build in /*) ;; *) build=$root/$build ;; esac
cc=${SPLITZIP_FUZZ_CC:-}
if [ -z "$cc" ]; then
	if command -v clang >/dev/null; then cc=clang; else cc=clang-14; fi
fi
jobs=${JOBS:-2}

flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
flags="$flags -fsanitize=fuzzer-no-link"
# Host backends only: the GPU modules do not run under the host sanitizers (their kernels are
# checked on the CPU SIMT harness and by compute-sanitizer in ci/gpu-check.sh).
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=None \
	-DCMAKE_C_FLAGS="$flags" -DSPLITZIP_BUILD_FUZZERS=ON -DSPLITZIP_WERROR=ON \
	-DSPLITZIP_WITH_CUDA=OFF -DSPLITZIP_WITH_HIP=OFF >/dev/null
build_targets="gen_fuzz_seeds"
for t in $targets; do build_targets="$build_targets fuzz_$t"; done
# shellcheck disable=SC2086
cmake --build "$build" -j "$jobs" --target $build_targets

work=$build/fuzz-run
rm -rf "$work"
mkdir -p "$work/artifacts"
"$build/tests/fuzz/gen_fuzz_seeds" "$work/seeds"

asan="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export ASAN_OPTIONS=${ASAN_OPTIONS:-$asan:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

summary=$build/fuzz-summary.txt
: >"$summary"
results=${SPLITZIP_FUZZ_RESULTS:-$build/fuzz-results.txt}
: >"$results"
# fuzz_one TARGET: run one target for its time; its summary and results lines.
fuzz_one() {
	local t=$1 corpus t_secs extra log rc execs cov bad
	corpus=$work/corpus/$t
	mkdir -p "$corpus"
	t_secs=$secs
	if [ "$t" = safetensors ]; then
		cp "$root/tests/fuzz/seeds_safetensors"/* "$corpus"/
		t_secs=$(( (secs + 1) / 2 ))
	else
		cp "$work/seeds/$t"/* "$corpus"/
	fi
	if [ "$t" = pages ]; then # the committed seeds and the golden page streams (every dtype)
		t_secs=$pages_secs
		cp "$root/tests/fuzz/seeds_pages"/* "$corpus"/
		for d in valid invalid; do
			for f in "$root/tests/vectors/pages/$d"/*.szpg "$root/tests/vectors/dtypes/pages/$d"/*.szpg; do
				[ -f "$f" ] && cp "$f" "$corpus/vec_${d}_$(basename "$f")"
			done
		done
	fi
	if [ -d "$root/tests/fuzz/regressions/$t" ]; then
		cp "$root/tests/fuzz/regressions/$t"/* "$corpus"/ 2>/dev/null || true
	fi
	if [ "$t" = decode ] || [ "$t" = differential ]; then
		for d in valid invalid; do
			if [ -d "$root/tests/vectors/$d" ]; then
				for f in "$root/tests/vectors/$d"/*; do
					[ -f "$f" ] && cp "$f" "$corpus/vec_${d}_$(basename "$f")"
				done
			fi
		done
	fi
	extra=()
	if [ -n "${SPLITZIP_FUZZ_MAX_LEN:-}" ]; then extra+=("-max_len=$SPLITZIP_FUZZ_MAX_LEN"); fi
	log=$work/$t.log
	echo "== fuzz_$t: ${t_secs}s, $(find "$corpus" -type f | wc -l) seed inputs"
	rc=0
	"$build/tests/fuzz/fuzz_$t" "$corpus" -max_total_time="$t_secs" -timeout=25 \
		-rss_limit_mb=2048 -malloc_limit_mb=2048 -detect_leaks=1 -print_final_stats=1 \
		-artifact_prefix="$work/artifacts/$t-" "${extra[@]}" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -E '^#[0-9]+' "$log" | tail -1 |
		sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
	bad='ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: '
	if [ $rc -ne 0 ] || grep -qE "$bad" "$log" || [ "${execs:-0}" -eq 0 ]; then
		echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} executions" | tee -a "$summary"
		grep -E 'ERROR:|runtime error:|SUMMARY:|check failed|Test unit written' "$log" | head -20
		tail -40 "$log"
		echo "fuzz_$t failed" >>"$results"
		return 1
	else
		echo "fuzz_$t: ok, ${execs:-?} executions in ${t_secs}s (${cov:-no stats})" | tee -a "$summary"
		echo "fuzz_$t passed" >>"$results"
	fi
}

# The targets run JOBS at a time (each libFuzzer process is single-threaded); each keeps its
# own time budget.
status=0
running=0
for t in $targets; do
	fuzz_one "$t" >"$work/$t.out" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
for t in $targets; do cat "$work/$t.out"; done

if [ -n "${SPLITZIP_FUZZ_KEEP:-}" ]; then
	mkdir -p "$SPLITZIP_FUZZ_KEEP"
	cp -r "$work/corpus" "$work/artifacts" "$SPLITZIP_FUZZ_KEEP"/
	cp "$work"/*.log "$SPLITZIP_FUZZ_KEEP"/
fi
echo "== summary (also in $summary)"
cat "$summary"
exit $status
