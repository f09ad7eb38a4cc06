#!/usr/bin/env bash
# Installs the Debian packages splitzip builds and tests with (idempotent; needs root or sudo).
# Only missing packages are installed, so a second run takes a second.
#   bash ci/install-deps.sh            everything the whole test suite needs
#   bash ci/install-deps.sh --minimal  only what building the library and CLI needs
# The HIP module is compiled by clang-19 + lld-19 (gfx942 and gfx1200 need a newer LLVM than
# Debian's ROCm 5.2 hipcc) against the HIP headers and runtime of libamdhip64-dev; clang-tools-19
# and llvm-19 give clang-offload-bundler, llvm-readelf and llvm-objdump for its bundle check.
set -euo pipefail
PKGS=(build-essential cmake pkg-config git python3 clang-format check libsimde-dev libzstd-dev liblz4-dev
      qemu-user gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
      hipcc libamdhip64-dev rocm-device-libs clang libclang-rt-14-dev valgrind
      clang-19 lld-19 clang-tools-19 llvm-19
      python3-numpy python3-pytest python3-torch python3-pip python3-setuptools python3-wheel
      python3-venv librsvg2-bin libucx-dev ucx-utils iproute2)
if [ "${1:-}" = "--minimal" ]; then
	PKGS=(build-essential cmake pkg-config)
fi
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
