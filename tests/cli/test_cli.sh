#!/usr/bin/env bash
# CLI round trips and failure behaviour of the splitzip tool on the bundled real KV sample.
# usage: test_cli.sh SPLITZIP_BINARY DATA_DIR
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
no_leftovers() { # no temporary files next to the target
	if ls "$T"/*.splitzip-tmp.* >/dev/null 2>&1; then bad "temporary file left behind: $*"; else ok; fi
}

K=$DATA/kv/aidreams260k__shakespeare.K.bf16
V=$DATA/kv/aidreams260k__shakespeare.V.bf16

# Round trips: file, several frames, no checksum, fixed codebook, pipes.
for f in "$K" "$V"; do
	b=$(basename "$f")
	expect_rc 0 "compress $b" "$Z" compress "$f" "$T/$b.sz"
	grep -q "ratio 1\.3[2-9]" "$T/err.log" && ok || bad "ratio line for $b: $(cat "$T/err.log")"
	expect_rc 0 "decompress $b" "$Z" decompress "$T/$b.sz" "$T/$b.out"
	cmp -s "$f" "$T/$b.out" && ok || bad "round trip of $b differs"
	expect_rc 0 "verify $b" "$Z" verify "$T/$b.sz"
	expect_rc 0 "info $b" "$Z" info "$T/$b.sz"
	grep -q "^frames: *1 " "$T/out.log" && ok || bad "info frames for $b"
	grep -q "^checksum: *all frames" "$T/out.log" && ok || bad "info checksum for $b"
done
expect_rc 0 "multi-frame compress" "$Z" compress --frame-elems 10000 --no-checksum --chunk-log2 10 "$K" "$T/multi.sz"
expect_rc 0 "multi-frame info" "$Z" info "$T/multi.sz"
grep -q "^frames: *27 " "$T/out.log" && ok || bad "expected 27 frames: $(cat "$T/out.log")"
grep -q "^checksum: *none" "$T/out.log" && ok || bad "expected no checksum"
expect_rc 0 "multi-frame decompress" "$Z" decompress "$T/multi.sz" "$T/multi.out"
cmp -s "$K" "$T/multi.out" && ok || bad "multi-frame round trip differs"
expect_rc 0 "calibrate" "$Z" calibrate "$K" "$V" -o "$T/cb.bin"
[ "$(stat -c %s "$T/cb.bin")" -eq 28 ] && ok || bad "codebook file size"
expect_rc 0 "compress with codebook" "$Z" compress --codebook "$T/cb.bin" "$V" "$T/cb.sz"
expect_rc 0 "decompress codebook frame" "$Z" decompress "$T/cb.sz" "$T/cb.out"
cmp -s "$V" "$T/cb.out" && ok || bad "codebook round trip differs"
if "$Z" compress -q - - <"$K" | "$Z" decompress -q - - | cmp -s - "$K"; then ok; else bad "pipe round trip"; fi
: >"$T/empty.bf16"
expect_rc 0 "compress empty" "$Z" compress "$T/empty.bf16" "$T/empty.sz"
expect_rc 0 "decompress empty" "$Z" decompress "$T/empty.sz" "$T/empty.out"
[ -f "$T/empty.out" ] && [ ! -s "$T/empty.out" ] && ok || bad "empty round trip"

# Entropy frames (--mode entropy, auto, --table): every bundled file round-trips on every
# usable host backend with the same bytes as the scalar backend's. (The GPU backends' entropy
# frames are held to the scalar bytes by the SIMT and device suites of tests/gpu.)
backends=$("$Z" backends | awk 'NR > 1 && $2 == "yes" && $3 == "yes" && $1 != "cuda" && $1 != "hip" { print $1 }')
for f in "$K" "$V"; do
	b=$(basename "$f")
	for mode in entropy auto; do
		expect_rc 0 "compress --mode $mode $b (scalar)" "$Z" compress --backend scalar --mode $mode "$f" "$T/$b.$mode.ref"
		for be in $backends; do
			expect_rc 0 "compress --mode $mode $b on $be" "$Z" compress --backend "$be" --mode $mode "$f" "$T/$b.$mode.$be"
			cmp -s "$T/$b.$mode.ref" "$T/$b.$mode.$be" && ok || bad "$be: --mode $mode frame of $b differs from scalar's"
			expect_rc 0 "decompress $mode $b on $be" "$Z" decompress -f --backend "$be" "$T/$b.$mode.ref" "$T/$b.$mode.out"
			cmp -s "$f" "$T/$b.$mode.out" && ok || bad "$be: --mode $mode round trip of $b differs"
		done
	done
	expect_rc 0 "info entropy $b" "$Z" info "$T/$b.entropy.ref"
	grep -q "^frames: *1 (0 stored, 0 split4, 1 entropy)" "$T/out.log" && ok || bad "info entropy frames: $(cat "$T/out.log")"
	grep -q "^entropy table: *exponents" "$T/out.log" && ok || bad "info entropy table"
	grep -q "^ratio: *1\.\(4[7-9]\|5\)" "$T/out.log" && ok || bad "entropy ratio of $b: $(grep ratio "$T/out.log")"
done
expect_rc 0 "entropy multi-frame" "$Z" compress --mode entropy --frame-elems 30000 --chunk-log2 10 "$K" "$T/em.sz"
expect_rc 0 "entropy multi-frame info" "$Z" info "$T/em.sz"
grep -q "^frames: *9 (0 stored, 0 split4, 9 entropy)" "$T/out.log" && ok || bad "expected 9 entropy frames: $(cat "$T/out.log")"
expect_rc 0 "entropy multi-frame decompress" "$Z" decompress "$T/em.sz" "$T/em.out"
cmp -s "$K" "$T/em.out" && ok || bad "entropy multi-frame round trip differs"
expect_rc 0 "calibrate entropy" "$Z" calibrate --mode entropy "$K" -o "$T/t.szet"
[ "$(stat -c %s "$T/t.szet")" -eq 140 ] && ok || bad "table file size"
expect_rc 0 "compress with table" "$Z" compress --table "$T/t.szet" "$V" "$T/t.sz"
expect_rc 0 "info table frame" "$Z" info "$T/t.sz"
grep -q "1 entropy" "$T/out.log" && ok || bad "--table implies entropy frames"
expect_rc 0 "decompress table frame" "$Z" decompress "$T/t.sz" "$T/t.out"
cmp -s "$V" "$T/t.out" && ok || bad "table round trip differs"
if "$Z" compress -q --mode entropy - - <"$V" | "$Z" decompress -q - - | cmp -s - "$V"; then ok; else bad "entropy pipe round trip"; fi
expect_rc 1 "bad --mode" "$Z" compress --mode huffman "$K" "$T/x.sz"
expect_rc 1 "--table with --mode split4" "$Z" compress --mode split4 --table "$T/t.szet" "$K" "$T/x.sz"
# --mode auto --table: the entropy candidate uses the table. On K, K's table gives the
# smallest frame, so auto writes the frame --table alone writes; on V, split4 is smaller.
expect_rc 0 "compress K with table" "$Z" compress --table "$T/t.szet" "$K" "$T/tk.sz"
expect_rc 0 "compress K --mode auto --table" "$Z" compress --mode auto --table "$T/t.szet" "$K" "$T/tka.sz"
cmp -s "$T/tk.sz" "$T/tka.sz" && ok || bad "--mode auto --table differs from --table alone on K"
expect_rc 0 "compress V --mode auto --table" "$Z" compress --mode auto --table "$T/t.szet" "$V" "$T/tva.sz"
expect_rc 0 "info V --mode auto --table" "$Z" info "$T/tva.sz"
grep -q "^frames: *1 (0 stored, 1 split4, 0 entropy)" "$T/out.log" && ok || bad "auto with K's table on V: $(grep frames "$T/out.log")"
expect_rc 1 "calibrate --mode auto" "$Z" calibrate --mode auto "$K" -o "$T/x.szet"
head -c 100 "$T/t.szet" >"$T/short.szet"
expect_rc 3 "truncated table file" "$Z" compress --table "$T/short.szet" "$K" "$T/x.sz"
expect_rc 3 "codebook file as table" "$Z" compress --table "$T/cb.bin" "$K" "$T/x.sz"
[ ! -e "$T/x.sz" ] && ok || bad "output left after a table failure"
cp "$T/$(basename "$K").entropy.ref" "$T/ecorrupt.sz"
printf '\x5a' | dd of="$T/ecorrupt.sz" bs=1 seek=300000 conv=notrunc 2>/dev/null
expect_rc 3 "corrupt entropy words" "$Z" decompress "$T/ecorrupt.sz" "$T/ecorrupt.out"
[ ! -e "$T/ecorrupt.out" ] && ok || bad "output left after corrupt entropy frame"

# Never overwrite without -f; -f overwrites.
echo keep >"$T/exists"
expect_rc 4 "no overwrite" "$Z" compress "$K" "$T/exists"
[ "$(cat "$T/exists")" = keep ] && ok || bad "existing file was modified"
expect_rc 4 "no overwrite (decompress)" "$Z" decompress "$T/$(basename "$K").sz" "$T/exists"
expect_rc 0 "overwrite with -f" "$Z" compress -f "$K" "$T/exists"
cmp -s "$T/exists" "$T/$(basename "$K").sz" && ok || bad "-f output differs"

# Corrupt and truncated input: non-zero exit, clear message, no output, no temporary file.
head -c 1000 "$T/$(basename "$K").sz" >"$T/trunc.sz"
expect_rc 3 "truncated" "$Z" decompress "$T/trunc.sz" "$T/trunc.out"
grep -q "truncated" "$T/err.log" && ok || bad "truncated message: $(cat "$T/err.log")"
[ ! -e "$T/trunc.out" ] && ok || bad "output left after truncated input"
cp "$T/$(basename "$K").sz" "$T/corrupt.sz"
printf '\xff' | dd of="$T/corrupt.sz" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect_rc 3 "corrupt body" "$Z" decompress "$T/corrupt.sz" "$T/corrupt.out"
[ ! -e "$T/corrupt.out" ] && ok || bad "output left after corrupt input"
expect_rc 3 "verify corrupt" "$Z" verify "$T/corrupt.sz"
expect_rc 3 "not a frame" "$Z" decompress "$K" "$T/nf.out"
grep -q "bad magic" "$T/err.log" && ok || bad "bad magic message"
printf 'abc' >"$T/odd.bf16"
expect_rc 3 "odd-sized raw input" "$Z" compress "$T/odd.bf16" "$T/odd.sz"
[ ! -e "$T/odd.sz" ] && ok || bad "output left after odd input"
expect_rc 3 "empty compressed input" "$Z" decompress "$T/empty.bf16" "$T/e2.out"
no_leftovers "after failures"

# Usage, missing files, backends.
expect_rc 2 "missing input" "$Z" compress "$T/nope" "$T/nope.sz"
[ ! -e "$T/nope.sz" ] && ok || bad "output left after missing input"
expect_rc 1 "no args" "$Z"
expect_rc 1 "unknown command" "$Z" frobnicate
expect_rc 1 "bad option" "$Z" compress --bogus a b
expect_rc 1 "bad chunk" "$Z" compress --chunk-log2 9 "$K" "$T/x.sz"
expect_rc 5 "unknown backend" "$Z" compress --backend nope "$K" "$T/x.sz"
[ ! -e "$T/x.sz" ] && ok || bad "output left after backend failure"
expect_rc 0 "help" "$Z" --help
grep -q "exit codes" "$T/out.log" && ok || bad "help lists exit codes"
expect_rc 0 "version" "$Z" --version
expect_rc 0 "backends" "$Z" backends
grep -q "^scalar *yes *yes" "$T/out.log" && ok || bad "backends lists scalar"
# A compiled-in GPU backend whose module cannot be loaded says why (here: the path given).
for g in cuda hip; do
	G=$(echo "$g" | tr a-z A-Z)
	if grep -q "^$g *yes" "$T/out.log"; then
		env "SPLITZIP_${G}_MODULE=$T/no-such-module.so" "$Z" backends >"$T/bk.log" 2>&1
		grep -q "^$g *yes *no (.*no-such-module.so" "$T/bk.log" && ok ||
			bad "backends gives no reason for $g: $(grep "^$g" "$T/bk.log")"
	fi
done
SPLITZIP_FORCE_BACKEND=nope "$Z" compress "$K" "$T/y.sz" >/dev/null 2>&1
[ $? -eq 5 ] && ok || bad "SPLITZIP_FORCE_BACKEND=nope must fail with 5"
no_leftovers "at the end"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
