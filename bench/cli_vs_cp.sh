#!/usr/bin/env bash
# bench/cli_vs_cp.sh -- the splitzip CLI against cp on the same file, in the same run.
#
#   bash bench/cli_vs_cp.sh [SPLITZIP_BINARY]
#
# Builds a file of SIZE_MIB MiB (default 256) by tiling real KV caches (../shared/data/kv when
# present beside the checkout, else the bundled data/kv), in DIR (default /dev/shm, a tmpfs, so
# the disk is out of the picture), then runs RUNS rounds (default 21) of
#   cp IN C;  splitzip compress --threads T IN Z;  splitzip decompress --threads T Z D
# interleaved (one of each per round, outputs removed between runs), for each T in THREADS
# (default "1 default": --threads 1, and no --threads at all). Prints the median wall time of
# each and its ratio to the median cp time, as a Markdown table, and checks that D == IN and
# that Z is the same for every thread count.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
Z=${1:-$root/build/release/tools/splitzip}
SIZE_MIB=${SIZE_MIB:-256}
RUNS=${RUNS:-21}
DIR=${DIR:-/dev/shm}
THREADS=${THREADS:-"1 default"}
BASELINE=${BASELINE:-}
[ -x "$Z" ] || { echo "cli_vs_cp: no splitzip binary at $Z (build first, or pass its path)" >&2; exit 2; }
kv=$root/../shared/data/kv
[ -d "$kv" ] || kv=$root/data/kv
W=$(mktemp -d "$DIR/splitzip-cp.XXXXXX")
trap 'rm -rf "$W"' EXIT

# The input: every real KV file of $kv, concatenated, repeated up to the size.
cat "$kv"/*.bf16 >"$W/tile"
python3 - "$W/tile" "$W/in.bf16" "$SIZE_MIB" <<'PY'
import sys
tile = open(sys.argv[1], "rb").read()
n = int(sys.argv[3]) << 20
with open(sys.argv[2], "wb") as f:
    while n > 0:
        f.write(tile[:n])
        n -= min(n, len(tile))
PY
rm -f "$W/tile"

# t CMD...: wall seconds of one run (stdout and stderr discarded).
t() {
	local a b
	a=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	b=$(date +%s.%N)
	echo "$a $b" | awk '{ printf "%.4f\n", $2 - $1 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
fastest() { sort -n | head -1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
pressure() { [ -r /proc/pressure/cpu ] && sed -n 's/^some avg10=\([0-9.]*\).*/, CPU pressure (some, 10 s) \1%/p' /proc/pressure/cpu; }
before="load average $(cut -d' ' -f1-3 /proc/loadavg)$(pressure)"

declare -A T
for r in $(seq "$RUNS"); do
	rm -f "$W/c"
	T[cp]+="$(t cp "$W/in.bf16" "$W/c") "
	for th in $THREADS; do
		opt=()
		[ "$th" = default ] || opt=(--threads "$th")
		rm -f "$W/z.$th" "$W/d.$th"
		T[c$th]+="$(t "$Z" compress -q "${opt[@]}" "$W/in.bf16" "$W/z.$th") "
		T[d$th]+="$(t "$Z" decompress -q "${opt[@]}" "$W/z.$th" "$W/d.$th") "
	done
	if [ -n "$BASELINE" ]; then
		rm -f "$W/zb" "$W/db"
		T[cb]+="$(t "$BASELINE" compress -q --threads 1 "$W/in.bf16" "$W/zb") "
		T[db]+="$(t "$BASELINE" decompress -q --threads 1 "$W/zb" "$W/db") "
	fi
done
for th in $THREADS; do
	cmp -s "$W/in.bf16" "$W/d.$th" || { echo "cli_vs_cp: round trip differs ($th)" >&2; exit 1; }
	cmp -s "$W/z.1" "$W/z.$th" 2>/dev/null || [ ! -e "$W/z.1" ] ||
		{ echo "cli_vs_cp: frames differ between thread counts" >&2; exit 1; }
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "$(nproc) CPUs ($cpu), $SIZE_MIB MiB of tiled real KV in $DIR, $RUNS interleaved runs;"
echo "before: $before; after: load average $(cut -d' ' -f1-3 /proc/loadavg)$(pressure);"
echo "ratio $(stat -c %s "$W/in.bf16") / $(stat -c %s "$W/z.$(echo "$THREADS" | cut -d' ' -f1)")"
echo
cpm=$(printf '%s\n' ${T[cp]} | median)
cpf=$(printf '%s\n' ${T[cp]} | fastest)
echo "| command | codec threads | median s | vs cp | fastest s | vs cp |"
echo "|---|---|---:|---:|---:|---:|"
echo "| cp | | $cpm | 1.00 | $cpf | 1.00 |"
for th in $THREADS; do
	for op in c d; do
		m=$(printf '%s\n' ${T[$op$th]} | median)
		f=$(printf '%s\n' ${T[$op$th]} | fastest)
		name=compress
		[ $op = d ] && name=decompress
		label=$th
		[ "$th" = default ] && label="default (no --threads)"
		echo "| splitzip $name | $label | $m | $(ratio "$m" "$cpm") | $f | $(ratio "$f" "$cpf") |"
	done
done
if [ -n "$BASELINE" ]; then
	cmp -s "$W/in.bf16" "$W/db" || { echo "cli_vs_cp: baseline round trip differs" >&2; exit 1; }
	for op in c d; do
		m=$(printf '%s\n' ${T[${op}b]} | median)
		f=$(printf '%s\n' ${T[${op}b]} | fastest)
		name=compress
		[ $op = d ] && name=decompress
		echo "| baseline $name | 1 | $m | $(ratio "$m" "$cpm") | $f | $(ratio "$f" "$cpf") |"
	done
fi
