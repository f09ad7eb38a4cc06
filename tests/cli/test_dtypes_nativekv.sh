#!/usr/bin/env bash
# The CLI on real FP16 and FP32 KV caches (NATIVEKV_DIR: ../shared/data/nativekv, see its
# README.md) and on the FP8 tensors derived from them (bench/dtype_study.py --write-fp8: E4M3 and
# E5M2 at the per-tensor scales amax/fmax and 1.0): every file, in every mode its
# dtype has, on every usable host backend (SPLITZIP_FORCE_BACKEND), gives the scalar backend's
# bytes, and every backend decodes the scalar backend's stream back to the input, byte for byte.
# usage: test_dtypes_nativekv.sh SPLITZIP_BINARY NATIVEKV_DIR PYTHON3 DTYPE_STUDY_PY
#        (SPLITZIP_LIBRARY in the environment: the library dtype_study.py loads)
set -u
Z=$1
NK=$2
PY=$3
STUDY=$4
. "$(dirname "$0")/cli_lib.sh" # $T, ok, bad, $pass, $fail

backends=$(env -u SPLITZIP_FORCE_BACKEND "$Z" backends |
	awk 'NR > 1 && $2 == "yes" && $3 == "yes" && $1 != "cuda" && $1 != "hip" { print $1 }')
case " $(echo $backends) " in *" scalar "*) ;; *)
	echo "FAIL: no usable scalar backend in: $backends"
	exit 1
	;;
esac
if ! "$PY" "$STUDY" --data "$NK" --write-fp8 "$T/fp8" >"$T/study.log" 2>&1; then
	echo "FAIL: $STUDY --write-fp8:"
	tail -5 "$T/study.log"
	exit 1
fi
files=$(ls "$NK"/*.f16 "$NK"/*.f32 "$T"/fp8/*.e4m3 "$T"/fp8/*.e5m2 2>/dev/null)
n_files=$(echo "$files" | grep -c .)
# the data set's 4 FP16 and 2 FP32 tensors, and 8 derived FP8 tensors of each kind
if [ "$n_files" -lt 22 ]; then
	echo "FAIL: $n_files tensors (4 f16 and 2 f32 in $NK, 16 derived fp8 expected)"
	exit 1
fi
for f in $files; do
	d=${f##*.}
	for m in split4 entropy auto; do
		[ "$d" = e4m3 ] && [ "$m" = split4 ] && continue
		ref=$T/ref.sz
		if ! SPLITZIP_FORCE_BACKEND=scalar "$Z" compress -f --dtype "$d" --mode "$m" "$f" "$ref" \
			2>"$T/err.log"; then
			bad "$(basename "$f") $m: scalar compress: $(head -c 200 "$T/err.log")"
			continue
		fi
		for b in $backends; do
			if [ "$b" != scalar ]; then
				SPLITZIP_FORCE_BACKEND=$b "$Z" compress -f --dtype "$d" --mode "$m" "$f" "$T/b.sz" \
					2>"$T/err.log" && cmp -s "$ref" "$T/b.sz" && ok ||
					bad "$(basename "$f") $m: $b writes other bytes than scalar"
			fi
			SPLITZIP_FORCE_BACKEND=$b "$Z" decompress -f "$ref" "$T/b.out" 2>"$T/err.log" &&
				cmp -s "$f" "$T/b.out" && ok ||
				bad "$(basename "$f") $m: $b does not decode it to the input"
		done
	done
done
echo "cli dtypes on real KV: $n_files tensors, backends $(echo $backends): $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
