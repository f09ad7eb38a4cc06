#!/usr/bin/env bash
# nvcc_ptxas_log.sh LOGDIR NVCC ARGS... -- run an nvcc compile that passes -Xptxas -v and keep
# what ptxas printed for each architecture in LOGDIR/sm_<arch>.log, in the exact text nvcc
# printed (ci/ptxas-table.sh and the other readers of the resource tables read those logs, so
# nothing has to compile the module a second time). Everything else nvcc prints goes to stderr
# as usual, and so do ptxas's warnings and errors (also kept in the logs); the exit status is
# nvcc's. The CUDA module's build runs its compile through this script (CUDA_COMPILER_LAUNCHER,
# cmake/splitzip_gpu.cmake); ci/gpu-check.sh does too when it builds without CMake.
#
# nvcc runs ptxas once per real architecture (sm_NN in the arguments, in their order), one after
# the other; each run prints its warnings first, then "N bytes gmem", then one block per
# function. The output is cut into runs at those points, and run k is checked to name only the
# k-th architecture before it is written to its log. Logs of architectures no longer built are
# removed; when nvcc fails, or its output cannot be attributed, no log is left.
set -u
if [ $# -lt 2 ]; then
	echo "usage: nvcc_ptxas_log.sh LOGDIR NVCC ARGS..." >&2
	exit 2
fi
logdir=$1
shift
mkdir -p "$logdir"
tmp=$(mktemp -d "$logdir/.run.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rm -f "$logdir"/sm_*.log

# The real architectures, in the order nvcc compiles them.
archs=$(printf '%s\n' "$@" | grep -o 'sm_[0-9]\+[a-z]\?' | awk '!seen[$0]++' | tr '\n' ' ')

rc=0
"$@" 2>"$tmp/stderr" || rc=$?
awk -v dir="$tmp" -v archs="$archs" -v ok=$((rc == 0)) '
BEGIN { n = split(archs, arch, " "); k = 0; body = 0; cont = 0 }
function start() { k++; body = 0 }
/^ptxas / {
	if ($0 ~ /^ptxas info *: [0-9]+ bytes gmem/) {
		if (k == 0 || body) start()
		body = 1
	} else if ($0 ~ /^ptxas (warning|error)/ || $0 ~ /^ptxas info *: Overriding/) {
		if (k == 0 || body) start()
	} else if (k == 0) {
		start()
	}
	if ($0 !~ /^ptxas info/) print > "/dev/stderr"
	if (match($0, /for .sm_[0-9]+[a-z]?./)) {
		a = substr($0, RSTART + 5, RLENGTH - 6)
		if (a != arch[k]) bad = bad " run " k " names " a " (expected " arch[k] ")"
	}
	print > (dir "/run." k); cont = 1; next
}
/^    / && cont { print > (dir "/run." k); next }
{ cont = 0; print > "/dev/stderr" }
END {
	if (k != n) bad = bad " " k " ptxas runs for " n " architectures (" archs ")"
	if (!ok) exit 0
	if (bad != "") { print "nvcc_ptxas_log.sh: cannot attribute the ptxas output:" bad > "/dev/stderr"; exit 1 }
}' "$tmp/stderr" || { [ $rc -ne 0 ] || rc=1; }
if [ $rc -eq 0 ]; then
	k=0
	for a in $archs; do
		k=$((k + 1))
		mv "$tmp/run.$k" "$logdir/$a.log"
	done
fi
exit $rc
