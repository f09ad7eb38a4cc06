#!/usr/bin/env bash
# The main job on the CPU: install what is missing, build, then compress, verify and
# decompress the bundled real KV cache sample; then the same sample tiled to 256 MiB (out of
# cache) next to a cp of the same file, and the codec's own throughput (splitzip bench).
# The CLI's figures are whole runs, I/O included (for the 512 KiB sample that is mostly start-up
# and file cost); bench measures the codec alone, in memory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh --minimal
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build/demo -j"$(nproc)" --target splitzip_cli >/dev/null
Z=build/demo/tools/splitzip
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$Z" backends
K=data/kv/aidreams260k__shakespeare.K.bf16
V=data/kv/aidreams260k__shakespeare.V.bf16
echo
echo "== The bundled real KV sample (512 KiB each; whole runs, I/O and start-up included)"
for t in K V; do
	in=data/kv/aidreams260k__shakespeare.$t.bf16
	"$Z" compress "$in" "$OUT/$t.sz"
	"$Z" verify "$OUT/$t.sz"
	"$Z" decompress "$OUT/$t.sz" "$OUT/$t.bf16"
	cmp "$in" "$OUT/$t.bf16"
	echo "$t: decompressed output is byte-identical to the input"
done

echo
echo "== The sample tiled to 256 MiB, out of cache (whole runs, I/O included; cp for scale)"
for _ in $(seq 256); do cat "$K" "$V"; done >"$OUT/kv256.bf16"
sync "$OUT/kv256.bf16" # written back now, not during the runs timed below
# splitzip syncs its output before renaming it into place; cp does not, so cp is timed with a
# sync of its copy.
t0=$(date +%s.%N)
cp "$OUT/kv256.bf16" "$OUT/copy.bf16"
sync "$OUT/copy.bf16"
t1=$(date +%s.%N)
echo "cp + sync of the same file: $(echo "$t0 $t1" | awk '{ printf "%.3f s, %.2f GB/s", $2 - $1, 268435456 / ($2 - $1) / 1e9 }')"
rm -f "$OUT/copy.bf16"
"$Z" compress "$OUT/kv256.bf16" "$OUT/kv256.sz"
"$Z" decompress "$OUT/kv256.sz" "$OUT/kv256.out"
cmp "$OUT/kv256.bf16" "$OUT/kv256.out"
echo "256 MiB: decompressed output is byte-identical to the input"
rm -f "$OUT"/kv256.*

echo
echo "== The codec alone: one thread, 256 MiB in memory, against memcpy (splitzip bench)"
best=$("$Z" backends | awk 'NR > 1 && $3 == "yes" { print $1; exit }')
"$Z" bench --sizes 256M --threads 1 --no-ref --repeats 3 --backends "$best"
