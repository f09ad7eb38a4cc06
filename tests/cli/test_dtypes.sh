#!/usr/bin/env bash
# 'splitzip compress --dtype' (FORMAT.md 1.3): round trips of every dtype, 'info' names the
# dtype, the options and inputs the CLI refuses, and a stream of two dtypes.
# usage: test_dtypes.sh SPLITZIP_BINARY DATA_DIR
set -u
Z=$1
DATA=$2
. "$(dirname "$0")/cli_lib.sh" # $T, ok, bad, $pass, $fail
expect_rc() { # expected-rc description command...
	local want=$1 what=$2
	shift 2
	"$@" >"$T/out.log" 2>"$T/err.log"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, expected $want ($(head -c 300 "$T/err.log"))"; fi
}

# Any bytes are elements of every dtype: the bundled KV sample (512 KiB) as each of them.
K=$DATA/kv/aidreams260k__shakespeare.K.bf16
for d in bf16 f16 f32 e4m3 e5m2; do
	for m in split4 entropy auto; do
		[ "$d" = e4m3 ] && [ "$m" = split4 ] && continue
		expect_rc 0 "compress --dtype $d --mode $m" "$Z" compress --dtype "$d" --mode "$m" --frame-elems 70000 "$K" "$T/$d.$m.sz"
		grep -q "\[.*, $d\]" "$T/err.log" && ok || bad "summary of $d/$m names no dtype: $(cat "$T/err.log")"
		expect_rc 0 "info $d $m" "$Z" info "$T/$d.$m.sz"
		grep -q "^dtype: *$d " "$T/out.log" && ok || bad "info of $d/$m: $(head -3 "$T/out.log")"
		expect_rc 0 "decompress $d $m" "$Z" decompress "$T/$d.$m.sz" "$T/$d.$m.out"
		cmp -s "$K" "$T/$d.$m.out" && ok || bad "round trip of $d/$m differs"
		expect_rc 0 "verify $d $m" "$Z" verify "$T/$d.$m.sz"
	done
done
# stats --dtype: the dtype's exponent histogram, and the size compress writes, exactly
for d in f16 f32 e4m3 e5m2; do
	for m in split4 entropy auto; do
		[ "$d" = e4m3 ] && [ "$m" = split4 ] && continue
		expect_rc 0 "stats --dtype $d --mode $m" "$Z" stats --json --dtype "$d" --mode "$m" --frame-elems 70000 "$K"
		python3 - "$T/out.log" "$(stat -c %s "$T/$d.$m.sz")" "$d" <<'PY' && ok || bad "stats $d/$m: $(head -c 300 "$T/out.log")"
import json, sys
t = json.load(open(sys.argv[1]))["files"][0]["tensors"][0]
w = {"f16": 2, "f32": 4, "e4m3": 1, "e5m2": 1}[sys.argv[3]]
e = {"f16": 5, "f32": 8, "e4m3": 4, "e5m2": 5}[sys.argv[3]]
assert t["predicted_bytes"] == int(sys.argv[2]), (t["predicted_bytes"], sys.argv[2])
assert t["elements"] == 524288 // w == sum(t["histogram"])
assert all(c == 0 for c in t["histogram"][1 << e:])  # exponents of e bits
b = 8 * w / (8 * w - e + t["entropy_bits"])
assert abs(t["order0_bound"] - b) < 1e-5
PY
	done
done
expect_rc 0 "stats text --dtype e4m3" "$Z" stats --dtype e4m3 "$K"
grep -q "raw F8_E4M3" "$T/out.log" && grep -q "2^-7 " "$T/out.log" && ok || bad "stats text e4m3: $(head -5 "$T/out.log")"
head -c 1022 "$K" >"$T/odd.bin"
expect_rc 3 "stats --dtype f32 of 1022 bytes" "$Z" stats --dtype f32 "$T/odd.bin"
# e4m3 without --mode: entropy frames
expect_rc 0 "compress --dtype e4m3" "$Z" compress --dtype e4m3 "$K" "$T/e4.sz"
expect_rc 0 "info e4m3" "$Z" info "$T/e4.sz"
grep -q "entropy)" "$T/out.log" && grep -q "^frames: *1 (0 stored, 0 split4, 1 entropy)" "$T/out.log" && ok || bad "e4m3 default mode: $(cat "$T/out.log")"
# refused: split4 for e4m3, an unknown dtype, an input that is not whole elements
expect_rc 1 "e4m3 split4" "$Z" compress --dtype e4m3 --mode split4 "$K" "$T/x.sz"
expect_rc 1 "unknown dtype" "$Z" compress --dtype fp8 "$K" "$T/x.sz"
head -c 1022 "$K" >"$T/odd.bin"
expect_rc 3 "f32 input of 1022 bytes" "$Z" compress --dtype f32 "$T/odd.bin" "$T/x.sz"
[ -e "$T/x.sz" ] && bad "output left after a refusal" || ok
# one dtype per stream: an f16 stream followed by a bf16 one is damage
cat "$T/f16.auto.sz" "$T/bf16.auto.sz" >"$T/two.sz"
expect_rc 3 "decompress a stream of two dtypes" "$Z" decompress "$T/two.sz" "$T/two.out"
expect_rc 3 "verify a stream of two dtypes" "$Z" verify "$T/two.sz"

echo "cli dtypes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
