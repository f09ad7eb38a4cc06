"""Build script of the splitzip Python package: pure Python (a ctypes binding of libsplitzip).

    pip install ./python                                   # online
    pip install --no-build-isolation --no-deps ./python    # offline, Debian's python3-setuptools

At build time it records where the C library is installed, in splitzip/_libdir.py, so that the
installed package loads that library: $SPLITZIP_LIBDIR if set, else the libdir of the splitzip
pkg-config package (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a prefix outside pkg-config's
search path), else nothing (the package then uses the loader's search path).
"""
import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


def installed_libdir():
    env = os.environ.get("SPLITZIP_LIBDIR")
    if env:
        return os.path.realpath(env)
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "splitzip"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return os.path.realpath(out) if out else None


class BuildPyWithLibdir(build_py):
    def run(self):
        super().run()
        path = os.path.join(self.build_lib, "splitzip", "_libdir.py")
        with open(path, "w") as f:
            f.write('"""Where the C library was installed (written by setup.py)."""\n')
            f.write(f"LIBDIR = {installed_libdir()!r}\n")


setup(cmdclass={"build_py": BuildPyWithLibdir})
