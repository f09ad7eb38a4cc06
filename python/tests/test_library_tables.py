"""The binding's status names and backend ids are the library's: read from libsplitzip at import,
checked here against the C calls (through a ctypes handle of our own) and against
include/splitzip.h."""
import ctypes
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

HEADER = Path(__file__).resolve().parents[2] / "include" / "splitzip.h"


@pytest.fixture(scope="module")
def lib():
    """The library splitzip loaded, with prototypes set here, not by the binding."""
    c = ctypes.CDLL(splitzip._lib._name)
    c.splitzip_status_name.restype = ctypes.c_char_p
    c.splitzip_status_name.argtypes = [ctypes.c_int]
    c.splitzip_backend_count.restype = ctypes.c_size_t
    c.splitzip_backend_count.argtypes = []
    c.splitzip_backend_name.restype = ctypes.c_char_p
    c.splitzip_backend_name.argtypes = [ctypes.c_size_t]
    c.splitzip_backend_available.restype = ctypes.c_int
    c.splitzip_backend_available.argtypes = [ctypes.c_size_t]
    c.splitzip_backend_id_of.restype = ctypes.c_int
    c.splitzip_backend_id_of.argtypes = [ctypes.c_size_t]
    return c


def header_enum(pattern):
    """{NAME: value} of the enumerators 'SPLITZIP_NAME = value' in splitzip.h, NAME matching
    'pattern'."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(rf"^\s*SPLITZIP_({pattern})\s*=\s*(\d+)", HEADER.read_text(),
                                 re.M)}


def test_status_names_are_the_librarys(lib):
    statuses = header_enum(r"OK|ERROR_\w+")
    count = int(re.search(r"#define SPLITZIP_STATUS_COUNT (\d+)", HEADER.read_text()).group(1))
    assert len(statuses) == count and sorted(statuses.values()) == list(range(count))
    for status in range(count):
        name = lib.splitzip_status_name(status).decode()
        assert name != "UNKNOWN" and statuses[name] == status
        e = splitzip.SplitzipError(status, "call")
        assert (e.status, e.name) == (status, name)
        assert str(e) == f"call: {name}"
    # past the last, and below the first, the library and the binding both say UNKNOWN
    for status in (count, count + 1, -1):
        assert lib.splitzip_status_name(status).decode() == "UNKNOWN"
        assert splitzip.SplitzipError(status, "call").name == "UNKNOWN"


def test_backends_are_the_registry(lib):
    n = lib.splitzip_backend_count()
    registry = [(lib.splitzip_backend_name(i).decode(), bool(lib.splitzip_backend_available(i)))
                for i in range(n)]
    assert splitzip.backends() == registry
    ids = header_enum(r"BACKEND_\w+")
    for i, (name, _) in enumerate(registry):
        assert ids["BACKEND_" + name.upper()] == lib.splitzip_backend_id_of(i)


def test_each_backend_name_binds_that_backend():
    x = np.arange(65536, dtype=np.uint16)
    for name, usable in splitzip.backends():
        if not usable:
            with pytest.raises(splitzip.SplitzipError) as e:
                splitzip.compress(x, backend=name)
            assert e.value.name == "ERROR_BACKEND_UNAVAILABLE"
            continue
        ctx = splitzip._ctx(name)
        try:
            assert splitzip._lib.splitzip_ctx_backend_name(ctx).decode() == name
        finally:
            splitzip._lib.splitzip_ctx_free(ctx)
        frame = splitzip.compress(x, backend=name)
        assert np.array_equal(splitzip.decompress(frame, backend=name), x)
    # "auto" (SPLITZIP_BACKEND_AUTO) binds one of the usable backends
    ctx = splitzip._ctx("auto")
    try:
        name = splitzip._lib.splitzip_ctx_backend_name(ctx).decode()
        assert name in {n for n, usable in splitzip.backends() if usable}
    finally:
        splitzip._lib.splitzip_ctx_free(ctx)


def test_backend_names_not_in_the_library():
    compiled = {name for name, _ in splitzip.backends()}
    # every backend splitzip.h knows but this build left out, and a name no build has
    known = [k[len("BACKEND_"):].lower() for k in header_enum(r"BACKEND_\w+")]
    absent = [k for k in known if k != "auto" and k not in compiled] + ["no-such-backend"]
    x = np.zeros(16, dtype=np.uint16)
    for name in absent:
        for call in (lambda: splitzip.compress(x, backend=name),
                     lambda: splitzip.decompress(splitzip.compress(x), backend=name)):
            # a ValueError as unknown names always gave, and the status a backend left out
            # of the build always gave
            with pytest.raises(ValueError) as e:
                call()
            assert isinstance(e.value, splitzip.SplitzipError)
            assert e.value.name == "ERROR_BACKEND_UNAVAILABLE"
            assert repr(name) in str(e.value)
            assert all(n in str(e.value) for n in compiled | {"auto"})
