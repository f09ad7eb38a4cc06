#!/usr/bin/env bash
# test_kv_transfer.sh BINARY CASE -- one loopback transfer of a small paged KV cache (the bundled
# real KV sample, tiled) between the two ends of splitzip-kv-transfer, over UCX on 127.0.0.1.
# In every case the receiver must find every accepted page bit-identical to the sender's (it
# checks them after each repetition) and reports how many groups of each way it accepted:
#   raw | raw_iov                         every group raw
#   compressed_split4 | compressed_entropy | pipelined_split4 | pipelined_entropy |
#   pipelined_tables                      every group a page stream of that encoding
#   chosen_raw | chosen_split4 | chosen_entropy   the policy, given rates (--rates) that make
#       it choose that way: every group travels that way
#   auto_probe    the policy on the measured loopback (no drift probes): the first repetition
#       probes (a warm-up group and a raw batch), the second keeps the choice; every group
#       arrives intact, whatever way was chosen
#   auto_drift    every window after the first seems to move at half the rate: the policy
#       probes again, whatever way it chose (a raw choice has only two windows per
#       repetition here, so the drift starts early and a third repetition is there for a
#       probe asked for at the end of the second)
#   corrupt | corrupt_entropy   the sender damages every third group (a header byte, a
#       truncated message, bytes that are no page stream, a message longer than any receive
#       buffer); the receiver must report each one with its status, keep going, and still find
#       every accepted page intact
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

# 4 layers x {K,V} x 8 pages of [16 tokens, 2 heads, 64 dims] = 64 pages of 4 KiB, 4 per group:
# 16 groups; the policy's cases 32 groups (16 pages per layer), probes of 2 groups and windows
# of 8 (the slots), whatever their duration.
groups=16 reps=2
geo=(--layers 4 --pages-per-layer 8 --tokens 16 --kv-heads 2 --head-dim 64 --group-pages 4
	--reps 2 --warmup 0)
auto=(--pages-per-layer 16 --probe-groups 2 --batch-ms 0)
# --rates: packing split4,entropy here; unpacking split4,entropy there; link (GB/s); network
# ns per byte here, there
case $case in
raw) args=(--mode raw) want=raw ;;
raw_iov) args=(--mode raw --raw-iov) want=raw ;;
compressed_split4) args=(--mode compressed --codec split4) want=split4 ;;
compressed_entropy) args=(--mode compressed --codec entropy) want=entropy ;;
pipelined_split4) args=(--mode pipelined --codec split4) want=split4 ;;
pipelined_entropy) args=(--mode pipelined --codec entropy) want=entropy ;;
pipelined_tables) args=(--mode pipelined --codec entropy --table-per-group --no-checksum)
	want=entropy ;;
chosen_raw) args=(--rates "0.05,0.05,5,1.8,0.625,0.3,0.3") want=raw ;;
chosen_split4) args=(--rates "3,0.3,5,1.8,0.625,0.3,0.3") want=split4 ;;
chosen_entropy) args=(--rates "3,1.4,5,1.8,0.0625,0.8,0.8") want=entropy ;;
auto_probe) args=("${auto[@]}" --drift 0) groups=32 want=any ;;
auto_drift) args=("${auto[@]}" --test-drift 1 --reps 3) groups=32 reps=3 want=any ;;
corrupt) args=(--mode pipelined --codec split4 --corrupt mixed) want=split4 ;;
corrupt_entropy) args=(--mode pipelined --codec entropy --corrupt mixed) want=entropy ;;
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
[ "$(grep -c 'accepted pages differ' "$tmp/recv.out")" -eq "$reps" ] || fail "not every repetition was checked"
grep -q 'accepted pages differ' "$tmp/recv.out" && ! grep -q ' [1-9][0-9]* accepted pages differ' "$tmp/recv.out" ||
	fail "pages differ"
# The receiver's count of accepted groups per way, "raw R split4 S entropy E", per repetition.
ways() { sed -n 's/.*accepted raw \([0-9]*\) split4 \([0-9]*\) entropy \([0-9]*\),.*/\1 \2 \3/p' "$tmp/recv.out"; }
case $case in
corrupt*)
	[ $src -eq 0 ] || fail "sender exit $src"
	[ $rrc -eq 3 ] || fail "receiver exit $rrc (3: data errors reported and survived)"
	for want_st in ERROR_HEADER_CHECKSUM ERROR_TRUNCATED ERROR_BAD_MAGIC 'transport error'; do
		grep -q "rejected: $want_st" "$tmp/recv.err" || fail "no group rejected with $want_st"
	done
	# 16 groups: 1, 4, 7, 10, 13 damaged in each repetition, the other 11 accepted.
	[ "$(grep -c ' 5 rejected, 0 accepted pages differ' "$tmp/recv.out")" -eq 2 ] ||
		fail "expected 5 rejected groups per repetition"
	groups=11
	;;
*)
	[ $src -eq 0 ] && [ $rrc -eq 0 ] || fail "exit codes $src, $rrc"
	[ "$(grep -c ', 0 rejected, 0 accepted pages differ' "$tmp/recv.out")" -eq "$reps" ] ||
		fail "groups rejected"
	;;
esac
[ "$(ways | wc -l)" -eq "$reps" ] || fail "no count of accepted groups per way"
while read -r r s4 e; do
	[ $((r + s4 + e)) -eq "$groups" ] || fail "accepted $r + $s4 + $e groups, not $groups"
	case $want in
	raw) [ "$r" -eq "$groups" ] || fail "not every group raw" ;;
	split4) [ "$s4" -eq "$groups" ] || fail "not every group split4" ;;
	entropy) [ "$e" -eq "$groups" ] || fail "not every group entropy" ;;
	esac
done < <(ways)
case $case in
raw*) grep -q 'ratio 1.0000' "$tmp/send.out" || fail "raw mode compressed something" ;;
compressed* | pipelined*) grep -qE '\(ratio 1\.[1-9]' "$tmp/send.out" || fail "no compression" ;;
chosen_*) grep -q "way $want:" "$tmp/send.out" || fail "the sender did not report way $want" ;;
auto_probe)
	# Repetition 0 probed: the warm-up group and 2 raw groups at least, then the choice.
	grep -qE '^rep 0: .*, 1 probes,' "$tmp/send.out" || fail "the first repetition did not probe"
	[ "$(ways | head -1 | cut -d' ' -f1)" -ge 3 ] || fail "fewer than 3 raw groups in the probe"
	grep -qE '^rep 1: .*, 0 probes,' "$tmp/send.out" || fail "the second repetition probed"
	;;
auto_drift)
	n=$(sed -n 's/.*policy: .*, probes \([0-9]*\),.*/\1/p' "$tmp/send.out")
	[ "${n:-0}" -ge 2 ] || fail "the drift did not make the policy probe again (probes: ${n:-none})"
	;;
esac
echo "ok: $case"
