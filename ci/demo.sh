#!/usr/bin/env bash
# The main job on the CPU: install what is missing, build, then compress, verify and
# decompress the bundled real KV cache sample, printing ratio and throughput.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install-deps.sh --minimal
cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build build/demo -j"$(nproc)" --target splitzip_cli >/dev/null
Z=build/demo/tools/splitzip
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$Z" backends
for t in K V; do
	in=data/kv/aidreams260k__shakespeare.$t.bf16
	"$Z" compress "$in" "$OUT/$t.sz"
	"$Z" verify "$OUT/$t.sz"
	"$Z" decompress "$OUT/$t.sz" "$OUT/$t.bf16"
	cmp "$in" "$OUT/$t.bf16"
	echo "$t: decompressed output is byte-identical to the input"
done
