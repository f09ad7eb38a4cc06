# Toolchain file: cross-compile for aarch64 Linux with Debian's cross toolchain
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross) and run target programs -- try_run checks and
# every ctest test -- under qemu-user. Used by ci/neon-qemu.sh.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++) # the SIMT harness tests (g++-aarch64-linux-gnu)

set(SZ_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "aarch64 runtime root for qemu -L")
set(CMAKE_FIND_ROOT_PATH ${SZ_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${SZ_AARCH64_SYSROOT})

# pkg-config must not hand the host's x86-64 libraries (check, zstd, lz4) to the target build.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:${SZ_AARCH64_SYSROOT}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
