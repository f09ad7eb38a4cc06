"""The dtypes of FORMAT.md 1.3 through the Python binding: torch float16, float32 and float8
tensors, numpy float16 and float32 arrays, uint8 bytes with an explicit dtype; bit-exact round
trips compared as integers, the dtype of the frames, and the arguments refused."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

MODES = ("split4", "entropy", "auto")


def kv_like(n, seed, dtype):
    """Magnitudes over 8 octaves, as in KV caches (a Gaussian's tail has more exponents than a
    split4 codebook)."""
    rng = np.random.default_rng(seed)
    return (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-6, 2, n)).astype(dtype)


def test_numpy_float16_every_pattern_every_mode():
    every = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    x = np.concatenate([kv_like(24 * 65536, 1, np.float16), every])
    for mode in MODES:
        frame = splitzip.compress(x, mode=mode, checksum=True)
        info = splitzip.frame_info(frame)
        assert info["dtype"] == "f16"
        assert info["mode"] == (mode if mode != "auto" else "entropy")
        y = splitzip.decompress(frame)
        assert y.dtype == np.float16 and np.array_equal(y.view(np.uint16), x.view(np.uint16))


def test_numpy_float32_specials_and_random():
    specials = np.array([0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000,
                         0xFF800000, 0x7FC00000, 0xFFC00001, 0x7FFFFFFF, 0xFFFFFFFF],
                        dtype=np.uint32)
    rnd = np.random.default_rng(2).integers(0, 2**32, 5000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([kv_like(200000, 3, np.float32).view(np.uint32), specials, rnd])
    for mode in MODES:
        frame = splitzip.compress(x.view(np.float32), mode=mode)
        assert splitzip.frame_info(frame)["dtype"] == "f32"
        y = splitzip.decompress(frame)
        assert y.dtype == np.float32 and np.array_equal(y.view(np.uint32), x)


@pytest.mark.parametrize("name", ["e4m3", "e5m2"])
def test_uint8_fp8_every_pattern(name):
    every = np.arange(256, dtype=np.uint8)
    # KV-like FP8: the top byte of small FP16 values is an E5M2 pattern
    kv = (kv_like(40000, 4, np.float16).view(np.uint16) >> 8).astype(np.uint8)
    x = np.concatenate([kv, every])
    for mode in ("entropy", "auto") if name == "e4m3" else MODES:
        frame = splitzip.compress(x, dtype=name, mode=mode)
        assert splitzip.frame_info(frame)["dtype"] == name
        y = splitzip.decompress(frame)
        assert y.dtype == np.uint8 and np.array_equal(y, x)
    assert splitzip.frame_info(splitzip.compress(x, dtype=name))["mode"] != "stored"


def test_torch_tensors_keep_their_dtype():
    import torch
    x = torch.randn(50000)
    cases = [x.to(torch.float16), x, x.to(torch.bfloat16)]
    names = ["f16", "f32", "bf16"]
    for attr, name in (("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2")):
        if hasattr(torch, attr):  # torch 2.1 and later
            cases.append(x.to(getattr(torch, attr)))
            names.append(name)
    for t, name in zip(cases, names):
        frame = splitzip.compress(t, mode="auto")
        assert splitzip.frame_info(frame)["dtype"] == name
        back = splitzip.decompress(frame, like="torch")
        assert back.dtype == t.dtype
        assert torch.equal(back.view(torch.uint8), t.view(torch.uint8))
    # FP8 bytes of any torch as uint8 with an explicit dtype
    u = torch.arange(256, dtype=torch.uint8).repeat(40)
    frame = splitzip.compress(u, dtype="e5m2", mode="entropy")
    back = splitzip.decompress(frame, like="torch")
    assert torch.equal(back.view(torch.uint8), u)


def test_arguments_refused():
    with pytest.raises(TypeError):
        splitzip.compress(np.zeros(16, dtype=np.uint8))  # FP8 bytes need dtype=
    with pytest.raises(ValueError):
        splitzip.compress(np.zeros(16, dtype=np.uint8), dtype="fp8")
    with pytest.raises(ValueError):
        splitzip.compress(np.zeros(6, dtype=np.uint8), dtype="f32")  # not whole elements
    with pytest.raises(splitzip.SplitzipError):
        splitzip.compress(np.zeros(64, dtype=np.uint8), dtype="e4m3", mode="split4")
    # one dtype per stream
    a = splitzip.compress(np.zeros(64, dtype=np.float16))
    b = splitzip.compress(np.zeros(64, dtype=np.uint16))
    with pytest.raises(splitzip.SplitzipError):
        splitzip.decompress(a + b)
