#!/usr/bin/env bash
# The installed tree (ctest label install; tests/install/CMakeLists.txt):
#   install_test.sh tree     BUILD SRC PREFIX   cmake --install BUILD into PREFIX; check the files
#   install_test.sh consumer BUILD SRC PREFIX   examples/consumer built with pkg-config and with
#                                               find_package(splitzip), shared and static, run
#   install_test.sh python   BUILD SRC PREFIX   pip install of SRC/python into a venv; pytest of
#                                               test_installed.py from outside the source tree
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

python_pkg() {
	local L T py
	L=$(libdir_of)
	T=$(mktemp -d)
	trap 'rm -rf "$T"' RETURN
	py=${SPLITZIP_PYTHON3:-/usr/bin/python3}
	# A venv that sees Debian's packages (setuptools, numpy, pytest) and installs into itself:
	# the system's site-packages are never written to.
	"$py" -m venv --system-site-packages --without-pip "$T/venv"
	# A copy of python/: pip builds in place, and the checkout stays clean.
	mkdir "$T/src"
	cp -r "$S/python/pyproject.toml" "$S/python/setup.py" "$S/python/README.md" \
		"$S/python/splitzip" "$T/src/"
	find "$T/src" -name __pycache__ -prune -exec rm -rf {} +
	PKG_CONFIG_PATH=$L/pkgconfig "$T/venv/bin/python" -m pip install -q --no-index \
		--no-build-isolation --no-deps "$T/src" || fail "pip install"
	mkdir "$T/run"
	cp "$S/tests/install/test_installed.py" "$T/run/"
	(cd "$T/run" && env -u SPLITZIP_LIBRARY SPLITZIP_EXPECT_LIBDIR="$L" \
		SPLITZIP_EXPECT_VENV="$T/venv" SPLITZIP_TEST_KV="$KV" SPLITZIP_CLI="$P/bin/splitzip" \
		"$T/venv/bin/python" -m pytest -q -p no:cacheprovider test_installed.py) ||
		fail "pytest of the installed package"
	echo "install_test python: ok"
}

case $what in
tree) tree ;;
consumer) consumer ;;
python) python_pkg ;;
*) fail "unknown step" ;;
esac
