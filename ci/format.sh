#!/usr/bin/env bash
# clang-format over every C, C++, CUDA and HIP source the repository tracks, with the style in
# .clang-format.
#   bash ci/format.sh           rewrite the files in place
#   bash ci/format.sh --check   change nothing; list the files that differ and fail if any do
# CLANG_FORMAT names the binary (default: clang-format, Debian 12's is version 14).
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null || { echo "format: $cf not found (Debian: clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' '*.hip')
if [ "${1:-}" = "--check" ]; then
	bad=()
	for f in "${files[@]}"; do
		"$cf" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'format: not formatted with .clang-format (run bash ci/format.sh): %s\n' "${bad[@]}"
		exit 1
	fi
	echo "format: ${#files[@]} files formatted ($("$cf" --version | head -n 1))"
else
	"$cf" -i "${files[@]}"
fi
