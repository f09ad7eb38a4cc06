#!/usr/bin/env bash
# CLI safety (ctest hardening-cli): never overwrite without -f and never damage an existing file
# on failure; no temporary file left behind on any failure (bad data, unreadable input, disk
# full, file size limit, rename failure, SIGTERM/SIGINT); outputs that are devices or FIFOs are
# written in place, never replaced; clear messages for unreadable input, a full disk
# (/dev/full), a closed pipe and a closed stdout; the exit codes of 'splitzip --help'.
# usage: cli_safety.sh SPLITZIP_BINARY DATA_DIR
# A misbehaving binary makes checks fail, never hang: FIFOs are opened read-write by this script
# where a blocked open() could otherwise wait forever.
# shellcheck disable=SC2015,SC2016  # 'A && ok || bad' (ok never fails); sh -c '...' "$1"
set -u
Z=$1
DATA=$2
. "$(dirname "$0")/../cli/cli_lib.sh" # $T, ok, bad, $pass, $fail
cleanup() { # the FIFO descriptor too
	exec 3>&- 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# expect RC DESCRIPTION COMMAND...: exit status, stdout in $T/out, stderr in $T/err.
expect() {
	local want=$1 what=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, expected $want: $(head -c 300 "$T/err")"; fi
}
# says PATTERN DESCRIPTION: the last stderr matches (extended regex, case-insensitive).
says() {
	if grep -qiE "$1" "$T/err"; then ok; else bad "$2: message should match '$1': $(head -c 300 "$T/err")"; fi
}
# no_tmp DESCRIPTION: no temporary file anywhere under $T.
no_tmp() {
	local left
	left=$(find "$T" -name '*.splitzip-tmp.*' | head -3)
	if [ -z "$left" ]; then ok; else bad "$1: temporary file left behind: $left"; find "$T" -name '*.splitzip-tmp.*' -delete; fi
}
absent() { if [ ! -e "$1" ] && [ ! -L "$1" ]; then ok; else bad "$2: $1 should not exist"; fi; }
same() { if cmp -s "$1" "$2"; then ok; else bad "$3: $1 differs from $2"; fi; }

K=$DATA/kv/aidreams260k__shakespeare.K.bf16
head -c 65536 "$K" >"$T/in.bf16"
"$Z" compress -q "$T/in.bf16" "$T/in.sz" || bad "setup: compress"
"$Z" compress -q "$K" "$T/k.sz" || bad "setup: compress K"
"$Z" calibrate -q "$T/in.bf16" -o "$T/cb.bin" || bad "setup: calibrate"
cp "$T/in.sz" "$T/corrupt.sz"
printf '\x55' | dd of="$T/corrupt.sz" bs=1 seek=2000 conv=notrunc 2>/dev/null
head -c 5000 "$T/in.sz" >"$T/trunc.sz"

# ---- 1. Never overwrite without -f; an existing file survives every failure, even with -f.
echo precious >"$T/keep"
cp "$T/keep" "$T/keep.orig"
expect 4 "compress onto an existing file" "$Z" compress "$T/in.bf16" "$T/keep"
says "already exists.*-f" "compress onto an existing file"
expect 4 "decompress onto an existing file" "$Z" decompress "$T/in.sz" "$T/keep"
expect 4 "calibrate onto an existing file" "$Z" calibrate "$T/in.bf16" -o "$T/keep"
same "$T/keep" "$T/keep.orig" "existing file after refusals"
ln -s "$T/nowhere" "$T/dangling"
expect 4 "a dangling symlink counts as existing" "$Z" compress "$T/in.bf16" "$T/dangling"
[ "$(readlink "$T/dangling")" = "$T/nowhere" ] && ok || bad "dangling symlink was changed"
absent "$T/nowhere" "symlink target"
expect 3 "-f with corrupt input" "$Z" decompress -f "$T/corrupt.sz" "$T/keep"
expect 3 "-f with truncated input" "$Z" decompress -f "$T/trunc.sz" "$T/keep"
expect 2 "-f with missing input" "$Z" decompress -f "$T/missing.sz" "$T/keep"
printf 'abc' >"$T/odd.bf16"
expect 3 "-f with odd-sized raw input" "$Z" compress -f "$T/odd.bf16" "$T/keep"
expect 5 "-f with an unknown backend" "$Z" compress -f --backend nope "$T/in.bf16" "$T/keep"
same "$T/keep" "$T/keep.orig" "existing file after failures with -f"
no_tmp "failures with -f"
expect 0 "-f overwrites" "$Z" decompress -q -f "$T/in.sz" "$T/keep"
same "$T/keep" "$T/in.bf16" "overwritten file"
umask 022
expect 0 "new output file" "$Z" decompress -q "$T/in.sz" "$T/mode.out"
[ "$(stat -c %a "$T/mode.out")" = 644 ] && ok || bad "output mode $(stat -c %a "$T/mode.out"), expected 644 under umask 022"

# ---- 2. No temporary file and no output after any failure.
for len in 0 1 3 4 63 64 65 100 4096 $(($(stat -c %s "$T/in.sz") - 1)); do
	head -c "$len" "$T/in.sz" >"$T/cut.sz"
	expect 3 "truncated to $len bytes" "$Z" decompress "$T/cut.sz" "$T/cut.out"
	absent "$T/cut.out" "truncated to $len bytes"
done
says "truncated" "truncated input"
expect 3 "corrupt input" "$Z" decompress "$T/corrupt.sz" "$T/c.out"
absent "$T/c.out" "corrupt input"
expect 3 "verify corrupt input" "$Z" verify "$T/corrupt.sz"
cat "$T/in.sz" "$T/odd.bf16" >"$T/junk.sz"
expect 3 "junk after the last frame" "$Z" decompress "$T/junk.sz" "$T/j.out"
says "corrupt" "junk after the last frame"
absent "$T/j.out" "junk after the last frame"
expect 3 "a raw file given to decompress" "$Z" decompress "$T/in.bf16" "$T/r.out"
says "bad magic" "a raw file given to decompress"
expect 3 "odd-sized raw input" "$Z" compress "$T/odd.bf16" "$T/o.sz"
says "not BF16" "odd-sized raw input"
absent "$T/o.sz" "odd-sized raw input"
mkdir -p "$T/adir/sub"
expect 2 "-f onto a non-empty directory" "$Z" compress -f "$T/in.bf16" "$T/adir"
[ -d "$T/adir/sub" ] && ok || bad "directory damaged"
expect 2 "output in a missing directory" "$Z" compress "$T/in.bf16" "$T/nodir/x.sz"
says "nodir" "output in a missing directory"
# A file size limit: the write fails (EFBIG) instead of killing the process.
(ulimit -f 64 && exec "$Z" decompress "$T/k.sz" "$T/fsz.out") >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 2 ] && ok || bad "file size limit: exit $rc, expected 2: $(head -c 300 "$T/err")"
says "too large" "file size limit"
absent "$T/fsz.out" "file size limit"
no_tmp "failures"

# SIGTERM and SIGINT while the temporary file exists: removed, no output.
for sig in TERM INT; do
	rm -f "$T/slow.fifo"
	mkfifo "$T/slow.fifo"
	"$Z" compress -q "$T/slow.fifo" "$T/sig.sz" 2>"$T/err" &
	pid=$!
	exec 3<>"$T/slow.fifo" # read-write: never blocks, and keeps the CLI's read waiting
	head -c 1000 "$T/in.bf16" >&3
	for _ in $(seq 200); do
		[ -n "$(find "$T" -name 'sig.sz.splitzip-tmp.*')" ] && break
		sleep 0.05
	done
	[ -n "$(find "$T" -name 'sig.sz.splitzip-tmp.*')" ] && ok || bad "SIG$sig: no temporary file to test with"
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	exec 3>&-
	want=$((128 + $(kill -l "$sig")))
	[ $rc -eq $want ] && ok || bad "SIG$sig: exit $rc, expected $want"
	absent "$T/sig.sz" "SIG$sig"
	no_tmp "SIG$sig"
done

# ---- 3. Clear errors: unreadable input, full disk, closed pipe, closed stdout.
expect 2 "missing input" "$Z" compress "$T/missing.bf16" "$T/m.sz"
says "missing.bf16: No such file" "missing input"
absent "$T/m.sz" "missing input"
expect 2 "a directory as input (compress)" "$Z" compress "$T/adir" "$T/d.sz"
says "adir.*directory" "a directory as input"
absent "$T/d.sz" "a directory as input"
expect 2 "a directory as input (decompress)" "$Z" decompress "$T/adir" "$T/d.out"
absent "$T/d.out" "a directory as input (decompress)"
expect 2 "a directory as input (verify)" "$Z" verify "$T/adir"
expect 2 "a directory as codebook" "$Z" compress --codebook "$T/adir" "$T/in.bf16" "$T/d.sz"
expect 3 "an invalid codebook file" "$Z" compress --codebook "$T/in.bf16" "$T/in.bf16" "$T/d.sz"
absent "$T/d.sz" "codebook failures"
if [ -c /dev/full ]; then
	# No -f: a device is written in place, never treated as a file to replace.
	expect 2 "decompress to /dev/full" "$Z" decompress "$T/k.sz" /dev/full
	says "no space left" "decompress to /dev/full"
	expect 2 "compress to /dev/full" "$Z" compress "$K" /dev/full
	says "no space left" "compress to /dev/full"
	expect 2 "decompress to stdout on /dev/full" sh -c '"$1" decompress "$2" - >/dev/full' sh "$Z" "$T/k.sz"
	says "no space left" "stdout on /dev/full"
	[ -c /dev/full ] && ok || bad "/dev/full is no longer a device"
fi
if [ -c /dev/null ]; then
	expect 0 "decompress to /dev/null" "$Z" decompress -q "$T/in.sz" /dev/null
	[ -c /dev/null ] && ok || bad "/dev/null is no longer a device"
fi
# A named pipe as output: written in place (no -f needed), still a FIFO afterwards.
rm -f "$T/out.fifo"
mkfifo "$T/out.fifo"
cat "$T/out.fifo" >"$T/fifo.data" &
reader=$!
expect 0 "decompress into a FIFO" "$Z" decompress -q "$T/in.sz" "$T/out.fifo"
[ "$rc" -eq 0 ] || kill "$reader" 2>/dev/null # the CLI never opened the FIFO: stop the reader
wait "$reader"
same "$T/fifo.data" "$T/in.bf16" "data read from the FIFO"
[ -p "$T/out.fifo" ] && ok || bad "the FIFO was replaced"
# Reader gone: EPIPE with a message and exit 2, not death by SIGPIPE. The output (512 KiB) is
# larger than a pipe buffer, so the write fails whenever the reader exits.
"$Z" decompress "$T/k.sz" - 2>"$T/err" | (exec 0<&-)
rc=${PIPESTATUS[0]}
[ "$rc" -eq 2 ] && ok || bad "closed pipe (decompress): exit $rc, expected 2"
says "broken pipe" "closed pipe (decompress)"
"$Z" compress "$K" - 2>"$T/err" | (exec 0<&-)
rc=${PIPESTATUS[0]}
[ "$rc" -eq 2 ] && ok || bad "closed pipe (compress): exit $rc, expected 2"
says "broken pipe" "closed pipe (compress)"
expect 2 "closed stdout" sh -c '"$1" decompress "$2" - >&-' sh "$Z" "$T/in.sz"
says "write failed" "closed stdout"

# ---- 4. Exit codes (splitzip --help).
expect 0 "success" "$Z" verify -q "$T/in.sz"
expect 1 "no command" "$Z"
expect 1 "missing operand" "$Z" compress "$T/in.bf16"
expect 1 "bad number" "$Z" compress --threads abc "$T/in.bf16" "$T/u.sz"
expect 1 "zero frame size" "$Z" compress --frame-elems 0 "$T/in.bf16" "$T/u.sz"
expect 1 "option without value" "$Z" compress "$T/in.bf16" "$T/u.sz" --backend
absent "$T/u.sz" "usage errors"
expect 5 "forced unknown backend" env SPLITZIP_FORCE_BACKEND=nope "$Z" compress "$T/in.bf16" "$T/u.sz"
absent "$T/u.sz" "backend error"
# Out of memory (6): a frame buffer larger than the address-space limit. Skipped where the
# binary cannot run under 'ulimit -v' at all (sanitizer builds reserve terabytes of shadow).
if (ulimit -v 400000 && exec "$Z" --version) >/dev/null 2>&1; then
	(ulimit -v 400000 && exec "$Z" compress --frame-elems 4294967295 "$T/in.bf16" "$T/big.sz") \
		>"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 6 ] && ok || bad "out of memory: exit $rc, expected 6: $(head -c 300 "$T/err")"
	says "out of memory" "out of memory"
	absent "$T/big.sz" "out of memory"
	# A hostile header on a pipe announcing a ~6 GiB frame: reported as truncated input,
	# without first reserving memory for the announced size.
	head -c 64 "$T/in.sz" >"$T/hdr"
	python3 - "$T/hdr" <<'PY' || bad "could not build the hostile header"
import struct, sys
p = sys.argv[1]
h = bytearray(open(p, "rb").read())
def hdr_sum(b):
    # splitzip_hash_bytes_small() of bytes 0..59 (doc/FORMAT.md §7), low 32 bits
    M = (1 << 64) - 1
    P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                          0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
    rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M
    def fmix(x):
        x ^= x >> 33; x = (x * 0xFF51AFD7ED558CCD) & M
        x ^= x >> 33; x = (x * 0xC4CEB9FE1A85EC53) & M
        return x ^ (x >> 33)
    acc = [((l + 1) * P5) & M for l in range(32)]
    n = len(b)
    for j in range((n + 7) // 8):
        w = int.from_bytes(b[8 * j:8 * j + 8].ljust(8, b"\0"), "little")
        acc[j % 32] = (rotl((acc[j % 32] + w * P2) & M, 31) * P1) & M
    s = sum(fmix(acc[l] ^ ((l * P4) & M)) for l in range(32)) & M
    return fmix((s + n * P3) & M) & 0xFFFFFFFF
n = 0xFFFFFFFF
esc = struct.unpack_from("<I", h, 12)[0]
log2 = h[7]
a16 = lambda x: (x + 15) & ~15
chunks = (n + (1 << log2) - 1) >> log2
off = a16(64 + (n + 1) // 2); off = a16(off + n); off = a16(off + 4 * chunks)
off = a16(off + 2 * esc); size = a16(off + esc)
struct.pack_into("<Q", h, 16, n)
struct.pack_into("<Q", h, 40, size)
struct.pack_into("<Q", h, 48, 0) if not (h[8] & 1) else None
struct.pack_into("<I", h, 60, hdr_sum(bytes(h[:60])))
open(p, "wb").write(bytes(h))
PY
	"$Z" info "$T/hdr" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 3 ] && ok || bad "hostile header file: exit $rc, expected 3"
	says "truncated" "hostile header file"
	(ulimit -v 400000 && exec "$Z" decompress - "$T/h.out" <"$T/hdr") >"$T/out" 2>"$T/err" <"$T/hdr"
	rc=$?
	[ $rc -eq 3 ] && ok || bad "hostile header on stdin: exit $rc, expected 3: $(head -c 300 "$T/err")"
	says "truncated" "hostile header on stdin"
	absent "$T/h.out" "hostile header on stdin"
else
	echo "cli_safety: out-of-memory checks skipped (binary does not run under ulimit -v)"
fi
no_tmp "at the end"

echo "cli_safety: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
