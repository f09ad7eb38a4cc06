#!/usr/bin/env bash
# The installed tree (ctest label install; tests/install/CMakeLists.txt):
#   install_test.sh tree     BUILD SRC PREFIX   cmake --install BUILD into PREFIX; check the files
#   install_test.sh consumer BUILD SRC PREFIX   examples/consumer built with pkg-config and with
#                                               find_package(splitzip), shared and static, run
#   install_test.sh python-prefix  BUILD SRC PREFIX   README.md's commands that install the
#   install_test.sh python-default BUILD SRC PREFIX   library and the Python package, for
#                                                     another prefix and for /usr/local (below)
set -euo pipefail
what=$1
B=$(cd "$2" && pwd)
S=$(cd "$3" && pwd)
P=$4
KV=$S/data/kv/aidreams260k__shakespeare.K.bf16
fail() {
	echo "install_test $what: FAIL: $*" >&2
	exit 1
}
# The libdir of the installed tree: where splitzip.pc is (lib, or lib/<multiarch> under /usr).
libdir_of() {
	local pc
	pc=$(find "$P" -name splitzip.pc -path '*/pkgconfig/*' | head -1)
	[ -n "$pc" ] || fail "no splitzip.pc under $P"
	dirname "$(dirname "$pc")"
}

tree() {
	rm -rf "$P"
	cmake --install "$B" --prefix "$P" >/dev/null
	local L
	L=$(libdir_of)
	for f in include/splitzip.h bin/splitzip; do
		[ -f "$P/$f" ] || fail "$f not installed"
	done
	for f in libsplitzip.so libsplitzip.so.0 libsplitzip.a pkgconfig/splitzip.pc \
		cmake/splitzip/splitzipConfig.cmake cmake/splitzip/splitzipConfigVersion.cmake \
		cmake/splitzip/splitzipTargets.cmake; do
		[ -e "$L/$f" ] || fail "$L/$f not installed"
	done
	# GPU modules built here are installed beside libsplitzip.so, where the loader looks.
	for m in libsplitzip_cuda.so libsplitzip_hip.so; do
		if [ -f "$B/$m" ]; then
			[ -f "$L/$m" ] || fail "$m was built but not installed in $L"
			echo "install_test: $m installed in $L"
		fi
	done
	local v
	v=$("$P/bin/splitzip" --version) || fail "installed CLI does not run"
	grep -q "^splitzip " <<<"$v" || fail "installed CLI: $v"
	echo "install_test tree: ok ($(find "$P" -type f | wc -l) files in $P)"
}

consumer() {
	local L T
	L=$(libdir_of)
	T=$(mktemp -d)
	trap 'rm -rf "$T"' RETURN
	export PKG_CONFIG_PATH=$L/pkgconfig
	local cc=${CC:-cc}
	local src=$S/examples/consumer/consumer.c
	# pkg-config, shared library (found at run time through the rpath).
	# shellcheck disable=SC2046
	"$cc" -std=c11 -Wall -Wextra -Werror "$src" $(pkg-config --cflags --libs splitzip) \
		-Wl,-rpath,"$L" -o "$T/pc_shared"
	# pkg-config, static library (--static: its private dependencies too).
	# shellcheck disable=SC2046
	"$cc" -std=c11 -Wall -Wextra -Werror "$src" $(pkg-config --cflags splitzip) \
		$(pkg-config --static --libs splitzip | sed 's/-lsplitzip\b/-l:libsplitzip.a/') \
		-o "$T/pc_static"
	# find_package(splitzip CONFIG): splitzip::splitzip and splitzip::splitzip_static.
	cmake -S "$S/examples/consumer" -B "$T/cm" -DCMAKE_PREFIX_PATH="$P" \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" >"$T/cm.log" 2>&1 ||
		{ cat "$T/cm.log"; fail "find_package(splitzip) configure"; }
	cmake --build "$T/cm" >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "consumer build"; }
	# (Outputs are captured before grep: with pipefail, 'grep -q' closing a pipe early would
	# fail the producer with SIGPIPE.)
	local out
	for exe in "$T/pc_shared" "$T/pc_static" "$T/cm/consumer_shared" "$T/cm/consumer_static"; do
		out=$("$exe" "$KV") || fail "$exe: $out"
		grep -q "round trip exact" <<<"$out" || fail "$exe: $out"
		out=$("$exe") || fail "$exe (generated data): $out"
		echo "$(basename "$exe"): $out"
	done
	# The shared builds load the installed library, the static ones none.
	out=$(ldd "$T/pc_shared")
	grep -q "$L/libsplitzip.so" <<<"$out" || fail "pc_shared does not load $L: $out"
	out=$(ldd "$T/cm/consumer_shared")
	grep -q "$L/libsplitzip.so" <<<"$out" || fail "consumer_shared does not load $L: $out"
	out=$(ldd "$T/pc_static" "$T/cm/consumer_static")
	! grep -q libsplitzip <<<"$out" || fail "a static consumer loads libsplitzip.so: $out"
	echo "install_test consumer: ok"
}

# The lines of README.md's quick start that install the C library and the Python package, run
# as written (each must appear in README.md verbatim): in a scratch directory holding a copy of
# python/ and a link 'build' to BUILD, with HOME (~) a scratch directory, an environment that is
# only PATH, HOME and LANG, and PIP_NO_INDEX=1 (no pip configuration file either): pip must not
# need any index. The last line imports splitzip with no environment variable and prints the
# version and the library it loaded. (The lines are text: their ~ expands when they run.)
# shellcheck disable=SC2088
LINES_DEFAULT=(
	'cmake --install build'
	'/usr/bin/python3 -m venv --system-site-packages ~/splitzip-venv'
	'~/splitzip-venv/bin/pip install ./python'
)
# shellcheck disable=SC2088
LINES_PREFIX=(
	'cmake --install build --prefix ~/splitzip'
	'/usr/bin/python3 -m venv --system-site-packages ~/splitzip-venv'
	'PKG_CONFIG_PATH=~/splitzip/lib/pkgconfig ~/splitzip-venv/bin/pip install ./python'
)
# shellcheck disable=SC2088
LINE_IMPORT='~/splitzip-venv/bin/python -c "import splitzip; print(splitzip.version(), splitzip._LIBRARY_PATH)"'

# A listing of a tree that changes when anything in it is written, created or removed.
snapshot() {
	(cd "$1" && find . -printf '%y %p %s %T@\n' | LC_ALL=C sort)
}

# run_lines PREFIX LINE...: the lines as a user types them (above), then the checks; PREFIX
# (~ for HOME) is where the lines install the C library.
run_lines() {
	local prefix=$1 line out py want
	shift
	T=$(mktemp -d)
	trap 'rm -rf "$T"' EXIT
	py=${SPLITZIP_PYTHON3:-/usr/bin/python3}
	[ "$py" = /usr/bin/python3 ] || fail "README.md's lines use /usr/bin/python3, not $py"
	# README.md's command lines: indented by four spaces, a trailing '# comment' left out.
	local readme
	readme=$(sed -n 's/^    //p' "$S/README.md" | sed -E 's/[[:space:]]+# [^"]*$//')
	for line in "$@" "$LINE_IMPORT"; do
		grep -qxF -- "$line" <<<"$readme" || fail "README.md does not say: $line"
	done
	mkdir -p "$T/home" "$T/work"
	# A copy of python/ (ctest runs the checkout's pytest suite at the same time, whose
	# interpreter writes python/**/__pycache__): what pip may not write into is this copy.
	cp -r "$S/python" "$T/work/python"
	find "$T/work/python" -type d -name __pycache__ -prune -exec rm -rf {} +
	ln -s "$B" "$T/work/build"
	snapshot "$T/work/python" >"$T/before"
	local clean=(env -i PATH="$(dirname "${SPLITZIP_CMAKE:-$(command -v cmake)}"):/usr/bin:/bin"
		HOME="$T/home" LANG=C.UTF-8 PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null)
	for line in "$@"; do
		echo "+ $line"
		(cd "$T/work" && "${clean[@]}" bash -c "$line") || fail "$line"
	done
	prefix=${prefix/#\~/$T/home}
	want=$(P=$prefix libdir_of)
	echo "+ $LINE_IMPORT"
	out=$(cd "$T/work" && "${clean[@]}" bash -c "$LINE_IMPORT") || fail "import splitzip: $out"
	echo "$out"
	local version
	version=$(sed -n 's/^#define SPLITZIP_VERSION_STRING "\(.*\)"/\1/p' "$S/include/splitzip.h")
	[ "$out" = "$version $want/libsplitzip.so.0" ] ||
		fail "import splitzip loaded another library than $want/libsplitzip.so.0: $out"
	snapshot "$T/work/python" >"$T/after"
	diff "$T/before" "$T/after" || fail "pip wrote into the source tree (python/)"
	# The installed package, tested from outside any source tree, with no splitzip variable
	# but the test's own.
	mkdir "$T/run"
	cp "$S/tests/install/test_installed.py" "$T/run/"
	(cd "$T/run" && "${clean[@]}" SPLITZIP_EXPECT_LIBDIR="$want" \
		SPLITZIP_EXPECT_VENV="$T/home/splitzip-venv" SPLITZIP_TEST_KV="$KV" \
		"$T/home/splitzip-venv/bin/python" -m pytest -q -p no:cacheprovider test_installed.py) ||
		fail "pytest of the installed package"
}

# README.md's commands for another prefix (no root needed): ~/splitzip, found by pip through
# PKG_CONFIG_PATH.
python_prefix() {
	# shellcheck disable=SC2088
	run_lines '~/splitzip' "${LINES_PREFIX[@]}"
}

# README.md's commands for the default prefix, /usr/local, exactly: in a user and mount
# namespace with an empty tmpfs over /usr/local (a fresh machine's; the real one is neither
# read nor written) and no network at all. Skipped (77) where namespaces are not allowed, or
# the build installs elsewhere; SPLITZIP_REQUIRE_INSTALL_DEFAULT=1 makes that a failure.
skip() {
	[ "${SPLITZIP_REQUIRE_INSTALL_DEFAULT:-0}" != 1 ] || fail "$* (SPLITZIP_REQUIRE_INSTALL_DEFAULT=1)"
	echo "install_test $what: SKIP: $*"
	exit 77
}
python_default() {
	local prefix
	prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:[A-Z]*=//p' "$B/CMakeCache.txt")
	[ "$prefix" = /usr/local ] || skip "$B installs into $prefix, not /usr/local"
	# A user namespace gives the mount namespace to anyone; root needs none.
	local ns=(unshare --user --map-root-user --mount --net)
	if ! "${ns[@]}" true 2>/dev/null; then
		ns=(unshare --mount --net)
		if [ "$(id -u)" != 0 ] || ! "${ns[@]}" true 2>/dev/null; then
			skip "no mount and network namespaces here (unshare)"
		fi
	fi
	"${ns[@]}" bash "$0" python-default-inner "$B" "$S" "$P"
}

python_default_inner() {
	mount -t tmpfs splitzip-test /usr/local || fail "tmpfs over /usr/local"
	[ "$(stat -f -c %T /usr/local)" = tmpfs ] || fail "/usr/local is not the scratch tmpfs"
	[ -z "$(ls -A /usr/local)" ] || fail "/usr/local is not empty"
	run_lines /usr/local "${LINES_DEFAULT[@]}"
}

case $what in
tree) tree ;;
consumer) consumer ;;
python-prefix) python_prefix ;;
python-default) python_default ;;
python-default-inner) python_default_inner ;;
*) fail "unknown step" ;;
esac
