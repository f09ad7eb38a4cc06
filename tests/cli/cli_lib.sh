# tests/cli/cli_lib.sh -- sourced by the command-line tool's test scripts (after they read their
# arguments): a scratch directory $T, removed at exit, and the check counters: 'ok' counts a
# passed check, 'bad MESSAGE' prints "FAIL: MESSAGE" and counts a failed one ($pass, $fail).
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}
