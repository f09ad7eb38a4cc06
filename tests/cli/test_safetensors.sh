#!/usr/bin/env bash
# safetensors pack / unpack / info / stats of the CLI (ctest cli-safetensors): a real safetensors
# file built from real tensors (tests/cli/st_cases.py) packed and restored byte for byte (sha256),
# per-tensor info, --codebook and
# multi-frame tensors; container version 2: a file of BF16, F16, F32, F8_E4M3, F8_E5M2, I32 and
# U8 tensors (empty, odd-sized, multi-frame) packed in every mode and restored byte for byte, and
# a BF16-only file still version 1, the bytes recorded before version 2; stats predicting
# exactly what compress and pack write (text, JSON, an SVG that rsvg-convert renders when
# installed); every hostile safetensors file and container of st_cases.py rejected with its
# reason, nothing written, its valid containers written from the spec restored; and the help of
# every command.
# (python/tests/test_safetensors.py checks that the Python package writes the same bytes.)
# usage: test_safetensors.sh SPLITZIP PYTHON3 SOURCE_DIR DATA_DIR
set -u
Z=$1
PY=$2
S=$3
DATA=$4
. "$(dirname "$0")/cli_lib.sh" # $T, ok, bad, $pass, $fail
expect() { # RC DESCRIPTION COMMAND...: stdout in $T/out, stderr in $T/err
	local want=$1 what=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, expected $want: $(head -c 400 "$T/err")"; fi
}
sha() { sha256sum "$1" | cut -d' ' -f1; }
no_tmp() { if ls "$T"/*.splitzip-tmp.* >/dev/null 2>&1; then bad "temporary file left: $1"; else ok; fi; }

"$PY" "$S/tests/cli/st_cases.py" "$Z" "$DATA" "$T/cases" || { echo "FAIL: st_cases.py"; exit 1; }
M=$T/cases/model.safetensors

# ---- Round trip, byte for byte; the C and Python packers agree.
expect 0 "pack" "$Z" pack "$M" "$T/m.szst"
grep -q "ratio 1\.[0-9]" "$T/err" && ok || bad "pack summary: $(cat "$T/err")"
cmp -s "$T/m.szst" "$T/cases/model.szst" && ok || bad "two packs of one file differ"
expect 0 "unpack" "$Z" unpack "$T/m.szst" "$T/r.safetensors"
[ "$(sha "$M")" = "$(sha "$T/r.safetensors")" ] && ok || bad "unpacked file differs (sha256)"
expect 0 "unpack to stdout" sh -c '"$1" unpack -q "$2" - >"$3"' sh "$Z" "$T/m.szst" "$T/stdout.st"
cmp -s "$M" "$T/stdout.st" && ok || bad "unpack to stdout differs"
expect 0 "info" "$Z" info "$T/m.szst"
for name in cache.K cache.V scale.f32 mask.u8 empty.bf16; do
	grep -q "^$name " "$T/out" && ok || bad "info does not list $name: $(cat "$T/out")"
done
grep -qE "^cache\.K +BF16 +\[4, 1024, 4, 16\] .* 1\.33[0-9]+x +0\.[0-9]+%" "$T/out" && ok ||
	bad "info line of cache.K: $(grep cache.K "$T/out")"
grep -qE "^scale\.f32 +F32 .* 1\.[0-9]+x +0\.[0-9]+%" "$T/out" && ok || bad "info line of scale.f32"
grep -qE "^mask\.u8 +U8 .* 1\.0000x +-" "$T/out" && ok || bad "info line of mask.u8"
expect 0 "calibrate" "$Z" calibrate -q "$DATA"/kv/aidreams260k__shakespeare.K.bf16 -o "$T/cb"
expect 0 "pack --codebook, frames of 10000 elements" \
	"$Z" pack --codebook "$T/cb" --frame-elems 10000 --chunk-log2 10 "$M" "$T/cb.szst"
expect 0 "unpack of it" "$Z" unpack "$T/cb.szst" "$T/cb.safetensors"
cmp -s "$M" "$T/cb.safetensors" && ok || bad "--codebook round trip differs"
expect 0 "info of it" "$Z" info "$T/cb.szst"
echo keep >"$T/exists"
expect 4 "pack onto an existing file" "$Z" pack "$M" "$T/exists"
expect 4 "unpack onto an existing file" "$Z" unpack "$T/m.szst" "$T/exists"
[ "$(cat "$T/exists")" = keep ] && ok || bad "existing file modified"
expect 1 "pack to stdout" "$Z" pack "$M" -
expect 2 "pack from stdin" sh -c '"$1" pack - "$2" <"$3"' sh "$Z" "$T/x.szst" "$M"
[ ! -e "$T/x.szst" ] && ok || bad "output after pack from stdin"
no_tmp "round trips"

# ---- Container version 2: every dtype it compresses, in every mode, restored byte for byte;
# a BF16-only file is version 1, byte for byte what pack wrote before version 2.
X=$T/cases/mixed.safetensors
version() { od -An -tu1 -j4 -N1 "$1" | tr -d ' '; }
[ "$(version "$T/cases/model.szst")" = 2 ] && ok || bad "model (F32 tensor) not version 2"
[ "$(version "$T/cases/mixed.szst")" = 2 ] && ok || bad "mixed file not version 2"
[ "$(version "$T/cases/bf16_only.szst")" = 1 ] && ok || bad "BF16-only file not version 1"
"$PY" - "$T/cases/bf16_only.szst" "$S/tests/cli" <<'PY' && ok || bad "BF16-only container changed"
import sys, zlib
sys.path.insert(0, sys.argv[2])
import st_cases
b = open(sys.argv[1], "rb").read()
assert (zlib.crc32(b), len(b)) == st_cases.BF16_ONLY_V1, (hex(zlib.crc32(b)), len(b))
PY
expect 0 "calibrate --mode entropy" "$Z" calibrate -q --mode entropy \
	"$DATA"/kv/aidreams260k__shakespeare.K.bf16 -o "$T/tb"
# (--codebook and --table are for the BF16 tensors: a BF16 codebook does not fit FP16 or FP8)
for opts in "" "--frame-elems 10000" "--mode entropy --frame-elems 7000" "--mode auto" \
	"--mode split4 --no-checksum --chunk-log2 10" "--codebook $T/cb" "--table $T/tb" \
	"--backend scalar --frame-elems 4096"; do
	# shellcheck disable=SC2086
	expect 0 "pack $opts (version 2)" "$Z" pack -q -f $opts "$X" "$T/x.szst"
	[ "$(version "$T/x.szst")" = 2 ] && ok || bad "pack $opts: not version 2"
	expect 0 "unpack of pack $opts" "$Z" unpack -q -f "$T/x.szst" "$T/x.safetensors"
	cmp -s "$X" "$T/x.safetensors" && ok || bad "pack $opts: unpacked file differs"
done
expect 1 "pack --dtype (each tensor's dtype is the file's)" "$Z" pack --dtype f16 "$X" "$T/d.szst"
[ ! -e "$T/d.szst" ] && ok || bad "output after pack --dtype"
expect 0 "info of a version 2 container" "$Z" info "$T/cases/mixed.szst"
grep -q "version 2" "$T/out" && ok || bad "info does not say version 2: $(head -3 "$T/out")"
for line in "k\.bf16 +BF16 " "k\.f16 +F16 +\[234, 128\] .* 1\.0[0-9]+x +0\.[0-9]+%" \
	"k\.f32 +F32 .* 1\.[0-9]+x +0\.[0-9]+%" "k\.e4m3 +F8_E4M3 .* 1\.[0-9]+x +0\.[0-9]+%" \
	"k\.e5m2 +F8_E5M2 .* 1\.[0-9]+x +0\.[0-9]+%" "odd\.f16 +F16 +\[3\] +6 +80 " \
	"empty\.e4m3 +F8_E4M3 +\[0\] +0 +64 " "ids\.i32 +I32 .* 1\.0000x +-"; do
	grep -qE "^$line" "$T/out" && ok || bad "info line /$line/: $(cat "$T/out")"
done
expect 0 "info of a version 1 container" "$Z" info "$T/cases/bf16_only.szst"
grep -q "version 1" "$T/out" && ok || bad "info does not say version 1"
no_tmp "version 2"

# ---- stats: predicted sizes are what compress and pack write.
K=$DATA/kv/aidreams260k__shakespeare.K.bf16
B=$T/cases/bf16_only.safetensors
expect 0 "stats --json" "$Z" stats --json "$B" "$K"
"$PY" - "$T/out" "$(stat -c %s "$T/cases/bf16_only.szst")" <<'PY' && ok || bad "stats JSON: $(head -c 300 "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
st, raw = d["files"]
assert st["format"] == "safetensors" and raw["format"] == "raw"
assert st["predicted_bytes"] == int(sys.argv[2]), (st["predicted_bytes"], sys.argv[2])
k = next(t for t in st["tensors"] if t["name"] == "cache.K")
assert sum(k["histogram"]) == k["elements"] == 262144 and 2.0 < k["entropy_bits"] < 3.5
assert 0.9 < k["top8"] < k["top16"] <= 1.0 and k["distinct"] >= 16
PY
"$Z" compress -q "$K" "$T/k.sz"
grep -q "\"predicted_bytes\": $(stat -c %s "$T/k.sz")," "$T/out" && ok || bad "stats of K != compress"
for opts in "--frame-elems 10000 --chunk-log2 10" "--codebook $T/cb --no-checksum"; do
	# shellcheck disable=SC2086
	"$Z" compress -q -f $opts "$K" "$T/k2.sz" && "$Z" stats --json $opts "$K" >"$T/out" &&
		grep -q "\"predicted_bytes\": $(stat -c %s "$T/k2.sz")," "$T/out" && ok ||
		bad "stats $opts != compress"
done
expect 0 "stats text" "$Z" stats "$M"
grep -q "exponent histogram of cache.K" "$T/out" && ok || bad "stats text histogram"
grep -q "^tokens .*I64, .*kept as is" "$T/out" && ok || bad "stats text: a tensor kept as is"
grep -q "^scale.f32  *1000 .*x$" "$T/out" && ok || bad "stats text: the F32 tensor's row"
grep -q "exponent histogram of scale.f32" "$T/out" && ok || bad "stats text: F32 histogram"
# version 2 containers: stats predicts every tensor pack codes (BF16 from the histograms, the
# other dtypes as the library encodes them), in every mode
for opts in "" "--mode entropy" "--mode auto --frame-elems 1000" "--chunk-log2 10"; do
	# shellcheck disable=SC2086
	"$Z" pack -q -f $opts "$X" "$T/x2.szst" && "$Z" stats --json $opts "$X" >"$T/out" &&
		"$PY" - "$T/out" "$(stat -c %s "$T/x2.szst")" <<'PY' && ok || bad "stats $opts of the mixed file != pack"
import json, sys
f = json.load(open(sys.argv[1]))["files"][0]
assert f["predicted_bytes"] == int(sys.argv[2]), (f["predicted_bytes"], sys.argv[2])
by = {t["dtype"]: t for t in f["tensors"]}
for d in ("F16", "F32", "F8_E4M3", "F8_E5M2"):
    assert "predicted_bytes" in by[d] and by[d]["order0_bound"] >= 1.0, d
assert "bytes" in by["I32"] and "predicted_bytes" not in by["I32"]
PY
done
expect 0 "stats --svg" "$Z" stats --brief --svg "$T/s.svg" "$M" "$K"
"$PY" -c "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); \
assert r.tag.endswith('svg') and len(list(r.iter('{http://www.w3.org/2000/svg}rect'))) > 20" \
	"$T/s.svg" && ok || bad "SVG is not well-formed XML with bars"
if command -v rsvg-convert >/dev/null; then
	rsvg-convert -o "$T/s.png" "$T/s.svg" && [ "$(head -c 4 "$T/s.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] &&
		ok || bad "rsvg-convert could not render the SVG"
elif [ -n "${SPLITZIP_REQUIRE_RSVG:-}" ]; then
	bad "rsvg-convert not installed (Debian: librsvg2-bin)"
fi
expect 3 "stats of a packed file" "$Z" stats "$T/m.szst"
printf 'abc' >"$T/odd.bf16"
expect 3 "stats of odd-sized raw input" "$Z" stats "$T/odd.bf16"

# ---- Hostile inputs: the reason of st_cases.py, no output, no temporary file; the valid edge
# cases of st_cases.py accepted.
while read -r name reason kind orig; do
	h=$T/cases/hostile/$name
	if [ "$kind" = accepted_container ]; then # containers from the spec: restored, listed
		expect 0 "unpack $name" "$Z" unpack -q "$h" "$T/a.out"
		cmp -s "$T/cases/hostile/$orig" "$T/a.out" && ok || bad "$name: unpack differs from $orig"
		expect 0 "info $name" "$Z" info "$h"
		rm -f "$T/a.out"
		continue
	fi
	if [ "$kind" = accepted ]; then # valid edge cases: packed and restored byte for byte
		expect 0 "pack $name" "$Z" pack -q "$h" "$T/a.szst"
		expect 0 "unpack $name" "$Z" unpack -q "$T/a.szst" "$T/a.out"
		cmp -s "$h" "$T/a.out" && ok || bad "$name: unpack differs from the original"
		expect 0 "stats $name" "$Z" stats "$h"
		rm -f "$T/a.szst" "$T/a.out"
		continue
	fi
	if [ "$kind" = safetensors ]; then
		expect 3 "pack $name" "$Z" pack "$h" "$T/h.out"
		expect 3 "stats $name" "$Z" stats "$h"
	else
		expect 3 "unpack $name" "$Z" unpack "$h" "$T/h.out"
	fi
	grep -qF "[$reason]" "$T/err" && ok || bad "$name: expected [$reason]: $(head -c 300 "$T/err")"
	[ ! -e "$T/h.out" ] && ok || bad "$name: output left behind"
	if [ "$kind" = container ] && [ "$(head -c 4 "$h")" = SZST ]; then
		"$Z" info "$h" >/dev/null 2>"$T/err"
		rc=$?
		{ [ $rc -eq 0 ] || { [ $rc -eq 3 ] && grep -qF "[$reason]" "$T/err"; }; } && ok ||
			bad "info $name: exit $rc: $(head -c 300 "$T/err")"
	fi
done <"$T/cases/cases.txt"
no_tmp "hostile inputs"

# ---- Help of every command: 'help CMD' and 'CMD --help' print the same usage, exit 0.
for c in compress decompress verify info calibrate backends pack unpack stats help; do
	expect 0 "help $c" "$Z" help "$c"
	grep -q "^usage: splitzip $c" "$T/out" && ok || bad "help $c: $(head -c 200 "$T/out")"
	cp "$T/out" "$T/help1"
	expect 0 "$c --help" "$Z" "$c" --help
	cmp -s "$T/out" "$T/help1" && ok || bad "$c --help differs from help $c"
done
expect 1 "help of an unknown command" "$Z" help frobnicate

echo "cli-safetensors: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
