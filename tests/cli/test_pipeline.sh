#!/usr/bin/env bash
# The CLI's I/O pipeline (ctest cli-pipeline): the mapped-file and read(2) paths and every thread
# count write the same bytes; the first fault in the input is the one reported, whichever
# thread meets it; an input file that shrinks under a mapped read ends the run with exit code
# 2, a message and no output.
# usage: test_pipeline.sh SPLITZIP DATA_DIR
set -u
Z=$1
DATA=$2
. "$(dirname "$0")/cli_lib.sh" # $T, ok, bad, $pass, $fail
K=$DATA/kv/aidreams260k__shakespeare.K.bf16
V=$DATA/kv/aidreams260k__shakespeare.V.bf16
for _ in 1 2 3 4; do cat "$K" "$V"; done >"$T/in.bf16" # 4 MiB

# Same frames from a mapped file, from a pipe, with 1 and 2 codec threads.
fe="--frame-elems 100000"
# shellcheck disable=SC2086
"$Z" compress -q $fe --threads 1 "$T/in.bf16" "$T/a.sz" || bad "compress (file)"
# shellcheck disable=SC2086
"$Z" compress -q $fe --threads 2 - - <"$T/in.bf16" >"$T/b.sz" || bad "compress (pipe)"
cmp -s "$T/a.sz" "$T/b.sz" && ok || bad "mapped file and pipe give different frames"
"$Z" decompress -q "$T/a.sz" "$T/a.out" && cmp -s "$T/a.out" "$T/in.bf16" && ok || bad "decompress (file)"
"$Z" decompress -q --threads 2 - - <"$T/a.sz" | cmp -s - "$T/in.bf16" && ok || bad "decompress (pipe)"
"$Z" verify -q "$T/a.sz" && ok || bad "verify"

# Frame 1 damaged in its body, frame 3 in its header: frame 1 is reported, from a file and a pipe.
"$Z" compress -q $fe "$T/in.bf16" "$T/d.sz"
f0=$("$Z" info "$T/d.sz" >/dev/null; python3 - "$T/d.sz" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, sizes = 0, []
while off < len(b):
    n = struct.unpack_from("<Q", b, off + 40)[0]
    sizes.append((off, n))
    off += n
print(" ".join(f"{o}:{n}" for o, n in sizes))
PY
)
set -- $f0
o1=${2%%:*}
o3=${4%%:*}
printf '\x55' | dd of="$T/d.sz" bs=1 seek=$((o1 + 100)) conv=notrunc 2>/dev/null
printf 'XXXX' | dd of="$T/d.sz" bs=1 seek="$o3" conv=notrunc 2>/dev/null
for src in file pipe; do
	if [ $src = file ]; then
		"$Z" decompress "$T/d.sz" "$T/d.out" 2>"$T/err"
	else
		"$Z" decompress - "$T/d.out" <"$T/d.sz" 2>"$T/err"
	fi
	rc=$?
	[ $rc -eq 3 ] && ok || bad "damaged input ($src): exit $rc"
	grep -q "frame 1 at byte $o1" "$T/err" && ! grep -q "byte $o3" "$T/err" && ok ||
		bad "damaged input ($src): not the first fault: $(cat "$T/err")"
	[ ! -e "$T/d.out" ] && ok || bad "output left ($src)"
done

# An input that shrinks while mapped: exit 2, a message, no output, no temporary file.
for _ in $(seq 16); do cat "$T/in.bf16"; done >"$T/big.bf16" # 64 MiB
mkfifo "$T/slow.fifo"
"$Z" compress --frame-elems 65536 "$T/big.bf16" "$T/slow.fifo" 2>"$T/err" &
pid=$!
exec 3<"$T/slow.fifo"
head -c 100000 <&3 >/dev/null # the run is under way, its writer blocked on the FIFO
: >"$T/big.bf16"
cat <&3 >/dev/null
exec 3<&-
wait "$pid"
rc=$?
[ $rc -eq 2 ] && ok || bad "input truncated while mapped: exit $rc, expected 2: $(cat "$T/err")"
grep -q "changed (shrank) while being read" "$T/err" && ok || bad "message: $(cat "$T/err")"
"$Z" compress --frame-elems 65536 "$T/in.bf16" "$T/grow.sz" 2>/dev/null # (a normal run after)
cp "$T/in.bf16" "$T/big.bf16"
"$Z" compress --frame-elems 65536 "$T/big.bf16" "$T/sig.sz" 2>"$T/err" &
pid=$!
sleep 0.05
: >"$T/big.bf16"
wait "$pid"
rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 2 ]; } && ok || bad "truncation race: exit $rc"
[ $rc -eq 0 ] || [ ! -e "$T/sig.sz" ] && ok || bad "output left after SIGBUS"
if ls "$T"/*.splitzip-tmp.* >/dev/null 2>&1; then bad "temporary file left"; else ok; fi

echo "cli-pipeline: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
