"""Tests of the Python binding (run with /usr/bin/python3 -m pytest python/tests)."""
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "kv"


def kv(which="K"):
    return np.fromfile(DATA / f"aidreams260k__shakespeare.{which}.bf16", dtype=np.uint16)


def test_roundtrip_real_kv_is_bit_exact():
    for which in "KV":
        x = kv(which)
        frame = splitzip.compress(x, checksum=True)
        assert len(x) * 2 / len(frame) >= 1.32
        y = splitzip.decompress(frame)
        assert y.dtype == np.uint16 and np.array_equal(x, y)
        info = splitzip.frame_info(frame)
        assert info["n_elems"] == x.size and info["mode"] == "split4" and info["checksum"]


def test_all_patterns_and_shapes():
    x = np.arange(65536, dtype=np.uint16).reshape(256, 256)
    y = splitzip.decompress(splitzip.compress(x))
    assert np.array_equal(x.reshape(-1), y)
    empty = splitzip.compress(np.zeros(0, dtype=np.uint16))
    assert splitzip.decompress(empty).size == 0
    # int16 views and non-contiguous input are accepted
    z = x[:, ::2].astype(np.uint16).view(np.int16)
    assert np.array_equal(splitzip.decompress(splitzip.compress(z)), z.reshape(-1).view(np.uint16))


def test_fixed_codebook_and_calibrate():
    x = kv("V")
    cb = splitzip.calibrate(x)
    assert cb == sorted(cb) and len(set(cb)) == 16
    frame = splitzip.compress(x, codebook=cb, chunk_log2=10)
    assert splitzip.frame_info(frame)["codebook"] == cb
    assert np.array_equal(splitzip.decompress(frame), x)


def test_errors_are_reported_with_status_names():
    frame = bytearray(splitzip.compress(kv("K")[:5000], checksum=True))
    with pytest.raises(splitzip.SplitzipError) as e:
        splitzip.decompress(bytes(frame[:100]))
    assert e.value.name == "ERROR_TRUNCATED"
    # Byte 200 lies in the 4-bit codes (FORMAT.md §4.2: bytes 64 .. 64 + n/2). Flipping bit 4
    # turns one nonzero code into another nonzero one: every structural check still holds and
    # only the content checksum can tell.
    code = frame[200] >> 4
    assert code not in (0, 1), code
    frame[200] ^= 0x10
    with pytest.raises(splitzip.SplitzipError) as e:
        splitzip.decompress(bytes(frame))
    assert e.value.name == "ERROR_CONTENT_CHECKSUM"
    with pytest.raises(splitzip.SplitzipError) as e:
        splitzip.decompress(b"not a splitzip frame at all, just some bytes here....." * 2)
    assert e.value.name == "ERROR_BAD_MAGIC"
    with pytest.raises(TypeError):  # float32 is FP32 frames (test_dtypes.py); float64 is none
        splitzip.compress(np.zeros(4, dtype=np.float64))
    with pytest.raises(splitzip.SplitzipError) as e:
        splitzip.compress(kv("K"), codebook=[1] * 16)
    assert e.value.name == "ERROR_INVALID_ARGUMENT"


def test_backends_listed():
    names = [n for n, _ in splitzip.backends()]
    assert names[-1] == "scalar"
    assert splitzip.version().count(".") == 2


def test_torch_bfloat16_roundtrip():
    torch = pytest.importorskip("torch")
    t = torch.randn(64, 128).to(torch.bfloat16)
    back = splitzip.decompress(splitzip.compress(t), like="torch")
    assert back.dtype == torch.bfloat16
    assert torch.equal(back.view(torch.int16), t.reshape(-1).view(torch.int16))


def test_entropy_mode_roundtrip_and_info():
    for which in "KV":
        x = kv(which)
        frame = splitzip.compress(x, mode="entropy", checksum=True)
        assert len(x) * 2 / len(frame) >= 1.47
        assert np.array_equal(splitzip.decompress(frame), x)
        info = splitzip.frame_info(frame)
        assert info["mode"] == "entropy" and info["chunk_log2"] == 14
        assert info["n_escapes"] == 0 and info["codebook"] == [0] * 16
    x = np.arange(65536, dtype=np.uint16)
    assert np.array_equal(splitzip.decompress(splitzip.compress(x, mode="entropy")), x)
    assert splitzip.frame_info(splitzip.compress(kv()[:3000], mode="auto"))["mode"] == "entropy"
    with pytest.raises(ValueError):
        splitzip.compress(x, mode="huffman")


def test_entropy_tables_calibrated_and_reused():
    k, v = kv("K"), kv("V")
    table = splitzip.calibrate_entropy(k)
    assert len(table["lengths"]) == 256 and 1 <= table["escape_length"] <= 11
    assert sum(2.0 ** -l for l in table["lengths"] if l) + 2.0 ** -table["escape_length"] == 1.0
    frame = splitzip.compress(k, mode="entropy")
    assert splitzip.frame_entropy_table(frame) == table
    # K's table on V: V's exponents that K lacks become escapes, and it still round-trips.
    fv = splitzip.compress(v, mode="entropy", table=table)
    assert splitzip.frame_info(fv)["n_escapes"] > 0
    assert np.array_equal(splitzip.decompress(fv), v)
    with pytest.raises(splitzip.SplitzipError) as e:
        splitzip.frame_entropy_table(splitzip.compress(v))
    assert e.value.name == "ERROR_INVALID_ARGUMENT"
