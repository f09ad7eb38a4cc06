#!/usr/bin/env bash
# test_kv_transfer.sh BINARY CASE -- one loopback transfer of a small paged KV cache (the bundled
# real KV sample, tiled) between the two ends of splitzip-kv-transfer, over UCX on 127.0.0.1.
#   raw | compressed | pipelined | pipelined_nofallback   the receiver must accept every group
#       and find every page bit-identical to the sender's (it checks them after each repetition)
#   corrupt   the sender damages every third group (a header byte, a truncated message, bytes
#       that are no page stream, a message longer than any receive buffer); the receiver must
#       report each one with its status, keep going, and still find every accepted page intact
set -euo pipefail
bin=$1
case=$2
export UCX_TLS=${UCX_TLS:-tcp}
tmp=$(mktemp -d)
rpid=
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# 4 layers x {K,V} x 8 pages of [16 tokens, 2 heads, 64 dims] = 64 pages of 4 KiB, 4 per group.
geo=(--layers 4 --pages-per-layer 8 --tokens 16 --kv-heads 2 --head-dim 64 --group-pages 4
	--reps 2 --warmup 0)
case $case in
raw) args=(--mode raw) ;;
raw_iov) args=(--mode raw --raw-iov) ;;
compressed) args=(--mode compressed --checksum) ;;
pipelined) args=(--mode pipelined --probe-groups 2) ;;
pipelined_nofallback) args=(--mode pipelined --no-fallback --codebook-per-page) ;;
corrupt) args=(--mode pipelined --corrupt mixed --checksum) ;;
*)
	echo "unknown case $case" >&2
	exit 2
	;;
esac

# A free port: the receiver fails fast if it cannot listen, then the next one is tried.
for attempt in 1 2 3 4 5; do
	port=$((20000 + (RANDOM % 20000)))
	"$bin" recv --port "$port" -v >"$tmp/recv.out" 2>"$tmp/recv.err" &
	rpid=$!
	for _ in $(seq 50); do
		if ss -ltn 2>/dev/null | grep -q ":$port "; then break; fi
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$rpid" 2>/dev/null && break
	wait "$rpid" || true
	rpid=
done
[ -n "$rpid" ] || { echo "no receiver could listen" >&2; exit 1; }

src=0
timeout 120 "$bin" send --host 127.0.0.1 --port "$port" "${geo[@]}" "${args[@]}" \
	>"$tmp/send.out" 2>"$tmp/send.err" || src=$?
rrc=0
wait "$rpid" || rrc=$?
rpid=
echo "--- sender (exit $src)"
cat "$tmp/send.out" "$tmp/send.err"
echo "--- receiver (exit $rrc)"
cat "$tmp/recv.out" "$tmp/recv.err"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# Every repetition was checked page by page, and no accepted page differs.
[ "$(grep -c 'accepted pages differ' "$tmp/recv.out")" -eq 2 ] || fail "not every repetition was checked"
grep -q 'accepted pages differ' "$tmp/recv.out" && ! grep -q ' [1-9][0-9]* accepted pages differ' "$tmp/recv.out" ||
	fail "pages differ"
if [ "$case" = corrupt ]; then
	[ $src -eq 0 ] || fail "sender exit $src"
	[ $rrc -eq 3 ] || fail "receiver exit $rrc (3: data errors reported and survived)"
	for want in ERROR_HEADER_CHECKSUM ERROR_TRUNCATED ERROR_BAD_MAGIC 'transport error'; do
		grep -q "rejected: $want" "$tmp/recv.err" || fail "no group rejected with $want"
	done
	# 16 groups: 1, 4, 7, 10, 13 damaged in each repetition, the other 11 accepted.
	[ "$(grep -c ' 5 rejected, 0 accepted pages differ' "$tmp/recv.out")" -eq 2 ] ||
		fail "expected 5 rejected groups per repetition"
else
	[ $src -eq 0 ] && [ $rrc -eq 0 ] || fail "exit codes $src, $rrc"
	grep -q ', 0 rejected, 0 accepted pages differ' "$tmp/recv.out" || fail "groups rejected"
	case $case in
	raw*) grep -q 'ratio 1.0000' "$tmp/send.out" || fail "raw mode compressed something" ;;
	compressed | pipelined_nofallback) grep -qE '\(ratio 1\.[1-9]' "$tmp/send.out" ||
		fail "no compression" ;;
	esac
fi
echo "ok: $case"
