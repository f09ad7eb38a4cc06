#!/usr/bin/env bash
# README.md's quick start on a fresh Debian 12 root, each line timed (the timings in README.md):
#   sudo bash tests/install/fresh_debian.sh [DIR]      DIR: where to make the root (a new one
#                                                      under /tmp by default; removed after)
# Needs root, debootstrap and the Debian mirror, the only network used: the pip line runs with
# none at all (unshare --net). Makes a minbase bookworm root, copies this source tree into it
# (the files git knows), runs apt-get update, then the quick start's lines as README.md says them,
# as root in the tree with HOME=/root and nothing else in the environment but PATH and LANG;
# checks that pip wrote nothing into python/ and prints each line's wall time and the load
# average before and after it. Not run by ctest (root, network, minutes); tests/install's
# install-python-* run the install and pip lines on every build.
set -euo pipefail
S=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || {
	echo "fresh_debian: needs root (debootstrap, chroot)" >&2
	exit 1
}
R=${1:-$(mktemp -d /tmp/splitzip-fresh.XXXXXX)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# The quick start's command lines: the first indented block after its heading, trailing
# '# comments' left out (as tests/install/install_test.sh reads them).
lines=$(awk '/^## Quick start/ { on = 1; next } on && /^    / { print; seen = 1; next }
	on && seen { exit }' "$S/README.md" | sed -E 's/^    //; s/[[:space:]]+# [^"]*$//')
[ -n "$lines" ] || {
	echo "fresh_debian: no quick start lines in README.md" >&2
	exit 1
}

t0=$(date +%s)
debootstrap --variant=minbase bookworm "$R" "$MIRROR" >"$R.debootstrap.log" 2>&1 || {
	tail "$R.debootstrap.log"
	exit 1
}
echo "fresh_debian: debootstrap $(($(date +%s) - t0)) s (log: $R.debootstrap.log)"
mkdir -p "$R/root/splitzip"
(cd "$S" && git ls-files -z | tar --null -T - -cf -) | tar -C "$R/root/splitzip" -xf -

# The script that runs inside the root: step NAME COMMAND runs and times one line.
cat >"$R/root/fresh.sh" <<'EOF'
set -euo pipefail
cd /root/splitzip
step() {
	local l0 t0
	l0=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s.%N)
	echo "+ $1"
	bash -c "$2"
	awk -v t0="$t0" -v t1="$(date +%s.%N)" -v l0="$l0" -v l1="$(cut -d' ' -f1 /proc/loadavg)" \
		-v s="$1" 'BEGIN { printf "%7.1f s  load %s -> %s  %s\n", t1 - t0, l0, l1, s }' >>/root/times
}
snap() { find python -printf '%y %p %s %T@\n' | LC_ALL=C sort; }
: >/root/times
snap >/root/before
step "apt-get update" "apt-get update -qq"
EOF
while IFS= read -r line; do
	run=$line
	case $line in
	apt-get*) run="DEBIAN_FRONTEND=noninteractive $line >/root/apt.log" ;;
	*"pip install"*) run="unshare --net bash -c $(printf %q "$line")" ;;
	esac
	printf 'step %q %q\n' "$line" "$run" >>"$R/root/fresh.sh"
done <<<"$lines"
cat >>"$R/root/fresh.sh" <<'EOF'
snap >/root/after
diff /root/before /root/after && echo "fresh_debian: pip wrote nothing into python/"
grep -i "newly installed" /root/apt.log
cat /root/times
EOF

unshare --mount --fork bash -c "
	mount --bind /dev '$R/dev' && mount -t proc proc '$R/proc' && mount -t sysfs sys '$R/sys'
	chroot '$R' /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash /root/fresh.sh"
# (The mounts above lived in the namespace of unshare only; none is left under the root.)
if [ -z "${1:-}" ] && ! grep -q " $R/" /proc/self/mounts; then
	rm -rf "$R" "$R.debootstrap.log"
fi
