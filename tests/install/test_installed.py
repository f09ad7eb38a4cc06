"""The splitzip package as README.md's commands install it (tests/install/install_test.sh):
imported from the virtual environment, not a source tree, loading the installed C library that
it recorded when it was built, with no environment variable telling it where."""
import os
from pathlib import Path

import numpy as np

import splitzip


def test_package_comes_from_the_venv():
    venv = Path(os.environ["SPLITZIP_EXPECT_VENV"]).resolve()
    assert venv in Path(splitzip.__file__).resolve().parents


def test_loads_the_installed_library():
    assert "SPLITZIP_LIBRARY" not in os.environ
    libdir = Path(os.environ["SPLITZIP_EXPECT_LIBDIR"]).resolve()
    assert Path(splitzip._LIBRARY_PATH).resolve().parent == libdir
    assert splitzip._LIBRARY_ORIGIN == "recorded when the package was installed"
    assert splitzip.version() == splitzip.__version__


def test_round_trip_of_real_kv():
    kv = np.fromfile(os.environ["SPLITZIP_TEST_KV"], dtype=np.uint16)
    frame = splitzip.compress(kv, checksum=True)
    assert kv.size * 2 / len(frame) > 1.3
    assert np.array_equal(splitzip.decompress(frame), kv)
