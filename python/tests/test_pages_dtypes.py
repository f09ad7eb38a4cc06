"""Page streams of FP16, FP32 and FP8 pages (doc/FORMAT.md §12, version 3) from Python: the
torch and numpy dtypes map to splitzip's, uint8 pages with an explicit dtype give the same
stream, the golden version 3 streams decode and re-encode byte for byte, and the KV backend
(SplitzipKVBackend) carries these pages on the CPU the way an engine uses it: specs with the
dtype, paged pools, errors in the operation, one backend shared by threads. Bits are compared
as integers, never as floats."""
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VEC = ROOT / "tests" / "vectors" / "dtypes" / "pages"
KV = np.fromfile(ROOT / "data" / "kv" / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)

FP8 = [getattr(torch, n) for n in ("float8_e4m3fn", "float8_e5m2") if hasattr(torch, n)]
NAMES = {torch.float16: "f16", torch.float32: "f32"}
NAMES.update({d: ("e4m3" if "e4m3" in str(d) else "e5m2") for d in FP8})
INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32}


def kv_values(n, seed=0):
    """n real K values (the bundled BF16 sample) as float32 tensors, scaled like an engine's
    FP8 cache (amax to 240) when asked for FP8."""
    start = (seed * 7919) % (len(KV) - n)
    bf = torch.from_numpy(KV[start:start + n].astype(np.int16)).view(torch.bfloat16)
    return bf.float()


def kv_pages(dtype, n_pages=12, elems=1024, seed=1):
    vals = kv_values(n_pages * elems, seed)
    if dtype in FP8:
        vals = vals * (240.0 / vals.abs().max())
    t = vals.to(dtype).reshape(n_pages, elems)
    return [t[i].clone() for i in range(n_pages)]


def bits(t):
    return t.view(INT[t.element_size()])


def same(a, b):
    return all(torch.equal(bits(x), bits(y)) for x, y in zip(a, b)) and len(a) == len(b)


@pytest.mark.parametrize("dtype", list(NAMES), ids=lambda d: NAMES[d])
@pytest.mark.parametrize("mode", ["split4", "entropy", "auto"])
def test_round_trip_every_dtype(dtype, mode):
    name = NAMES[dtype]
    pages = kv_pages(dtype)
    pages.append(torch.empty(0, dtype=dtype))
    if name == "e4m3" and mode == "split4":
        with pytest.raises(splitzip.SplitzipError) as e:
            splitzip.compress_pages(pages, mode=mode)
        assert e.value.name == "ERROR_INVALID_ARGUMENT"
        return
    stream = splitzip.compress_pages(pages, mode=mode)
    info = splitzip.pages_info(stream)
    assert info["format_version"] == 3 and info["dtype"] == name
    assert info["total_page_bytes"] == sum(p.numel() * p.element_size() for p in pages)
    assert len(stream) < info["total_page_bytes"]
    out = [torch.empty_like(p) for p in pages]
    sizes = splitzip.decompress_pages(stream, out)
    assert sizes == [p.numel() * p.element_size() for p in pages]
    assert same(out, pages)


def test_numpy_dtypes_and_uint8_pages_give_the_same_stream():
    f16 = kv_pages(torch.float16, 4)
    a = splitzip.compress_pages([p.numpy() for p in f16], mode="entropy")
    b = splitzip.compress_pages([p.view(torch.uint8) for p in f16], mode="entropy", dtype="f16")
    c = splitzip.compress_pages(f16, mode="entropy")
    assert a == b == c and splitzip.pages_info(a)["dtype"] == "f16"
    f32 = kv_pages(torch.float32, 3)
    assert splitzip.compress_pages([p.numpy() for p in f32]) == splitzip.compress_pages(f32)
    for d in FP8:
        p8 = kv_pages(d, 5)
        s = splitzip.compress_pages(p8, mode="entropy")
        assert s == splitzip.compress_pages([p.view(torch.uint8).numpy() for p in p8],
                                            mode="entropy", dtype=NAMES[d])
    # BF16 pages are still version 2, from bfloat16 tensors or uint16 patterns
    bf = [torch.from_numpy(KV[:1024].astype(np.int16)).view(torch.bfloat16)]
    s = splitzip.compress_pages(bf)
    assert splitzip.pages_info(s)["format_version"] == 2
    assert splitzip.pages_info(s)["dtype"] == "bf16"


def test_one_dtype_per_stream_and_whole_elements():
    with pytest.raises(ValueError):
        splitzip.compress_pages([torch.zeros(8, dtype=torch.float16),
                                 torch.zeros(8, dtype=torch.float32)])
    with pytest.raises(ValueError):
        splitzip.compress_pages([np.zeros(6, dtype=np.uint8)], dtype="f32")
    with pytest.raises(ValueError):
        splitzip.pages_bound(4, 4096, dtype="int8")
    assert splitzip.pages_bound(4, 4096, "f16") == splitzip.pages_bound(4, 4096)
    assert splitzip.pages_bound(1, 1 << 26, "e5m2") > splitzip.pages_bound(1, 1 << 26, "f32")


def test_golden_streams_decode_and_reencode():
    """A sample of tests/vectors/dtypes/pages (written from FORMAT.md alone): each decodes into
    pages of its table's sizes to its content, and its pages re-encode to the same bytes with
    the stream's mode and checksum setting."""
    widths = {"e4m3": 1, "e5m2": 1, "f16": 2, "f32": 4}
    done = 0
    for path in sorted((VEC / "valid").glob("*.szpg")):
        name = path.stem.split("_")[1]
        if "fixed" in path.stem or "chunk" in path.stem:
            continue
        stream = path.read_bytes()
        content = (VEC / "valid" / f"{path.stem}.{name}").read_bytes()
        info = splitzip.pages_info(stream)
        assert info["dtype"] == name
        out = [np.empty(p["page_bytes"], dtype=np.uint8) for p in info["pages"]]
        splitzip.decompress_pages(stream, out)
        assert b"".join(o.tobytes() for o in out) == content, path.name
        mode = "auto" if "_auto_" in path.stem else info["mode"]
        again = splitzip.compress_pages(out, mode=mode, dtype=name, checksum=info["checksum"],
                                        chunk_log2=info["chunk_log2"])
        assert again == stream, path.name
        assert all(o.size % widths[name] == 0 for o in out)
        done += 1
    assert done >= 20


def test_damaged_stream_reports_page_states():
    pages = kv_pages(torch.float16, 6)
    stream = bytearray(splitzip.compress_pages(pages, mode="entropy"))
    stream[len(stream) // 2] ^= 0x40
    out = [torch.full_like(p, 7.0) for p in pages]
    with pytest.raises(splitzip.PagesError) as e:
        splitzip.decompress_pages(bytes(stream), out)
    assert e.value.name in ("ERROR_CONTENT_CHECKSUM", "ERROR_CORRUPT_STREAM")
    assert set(e.value.page_states) <= {"damaged", "untouched", "written"}
    for o, st in zip(out, e.value.page_states):
        if st == "untouched":
            assert torch.equal(o, torch.full_like(o, 7.0))


# ---- The KV backend ---------------------------------------------------------------------------

def spec(dtype, n=8, page=2048, **kw):
    return splitzip.KVCompressionSpec(page_bytes=page, max_pages=n, dtype=dtype, **kw)


def test_supports_the_dtypes_on_the_cpu():
    b = splitzip.SplitzipKVBackend(mode="entropy")
    for d in ("float16", "torch.float16", "f16", "float32", "float8_e4m3fn", "float8_e5m2",
              "e4m3", "bfloat16"):
        assert b.supports(spec(d)), d
    assert not b.supports(spec("float32", page=2046))  # not whole FP32 elements
    assert b.supports(spec("float8_e4m3fn", page=1151))  # any size of 1-byte elements
    r = b.supports(spec("int8"))
    assert not r and "dtype" in r.reason
    r = b.supports(spec("float16", device="cuda"))
    assert not r and "BF16" in r.reason
    req = b.buffer_requirements("compress", spec("float8_e5m2", 100, 1024))
    assert req.output_bytes == splitzip.pages_bound(100, 1024, "e5m2")


@pytest.mark.parametrize("dtype", list(NAMES), ids=lambda d: NAMES[d])
def test_backend_paged_pool_round_trip(dtype):
    """A paged pool [pages, tokens, heads, dim] of the dtype, scattered indices, compress_into
    a caller's buffer and decompress_into another pool's pages: every page written, bits equal;
    FP8 pools also as uint8 views with the spec naming the dtype."""
    b = splitzip.SplitzipKVBackend(mode="auto")
    pages = kv_pages(dtype, 16, 16 * 4 * 16)
    pool = torch.stack(pages).reshape(16, 16, 4, 16)
    page_bytes = pool[0].numel() * pool.element_size()
    s = spec(str(dtype), 8, page_bytes)
    idx = torch.tensor([3, 9, 0, 15, 4, 4, 11, 7], dtype=torch.int64)
    req = b.buffer_requirements("compress", s)
    dst = torch.empty(req.output_bytes, dtype=torch.uint8)
    snap = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(pool, idx), s), dst).wait()
    assert snap.outcome == "succeeded", snap.reason
    assert splitzip.pages_info(dst[:snap.output_bytes].numpy().tobytes())["dtype"] == NAMES[dtype]
    back = torch.zeros_like(pool)
    out_idx = torch.arange(8, dtype=torch.int64)
    enc = splitzip.EncodedBatch(dst, s, snap.output_bytes)
    got = b.decompress_into(enc, splitzip.PagedKV(back, out_idx)).wait()
    assert got.outcome == "succeeded", got.reason
    assert got.page_status == ("written",) * 8
    for i, k in enumerate(idx.tolist()):
        assert torch.equal(bits(back[i]), bits(pool[k]))
    if dtype in FP8:  # the same pages as bytes
        raw = pool.view(torch.uint8)
        s8 = spec(NAMES[dtype], 8, page_bytes)
        dst8 = torch.empty(req.output_bytes, dtype=torch.uint8)
        snap8 = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(raw, idx), s8),
                                dst8).wait()
        assert snap8.outcome == "succeeded", snap8.reason
        assert torch.equal(dst8[:snap8.output_bytes], dst[:snap.output_bytes])


def test_backend_geometry_and_hostile_stream():
    b = splitzip.SplitzipKVBackend(mode="entropy")
    pages = kv_pages(torch.float16, 4)
    s = spec("float16", 4, 2048)
    dst = torch.empty(b.buffer_requirements("compress", s).output_bytes, dtype=torch.uint8)
    wrong = [pages[0], pages[1].view(torch.int16).view(torch.bfloat16)]
    snap = b.compress_into(splitzip.PackedBatch(wrong, s), dst).poll()
    assert snap.outcome == "failed" and "bfloat16" in snap.reason
    snap = b.compress_into(splitzip.PackedBatch(pages, s), dst).wait()
    assert snap.outcome == "succeeded"
    stream = dst[:snap.output_bytes].clone()
    stream[snap.output_bytes - 40] ^= 1  # inside the last frame
    out = [torch.full_like(p, 3.0) for p in pages]
    got = b.decompress_into(splitzip.EncodedBatch(stream, s, snap.output_bytes), out).wait()
    assert got.outcome == "failed" and got.status in ("ERROR_CONTENT_CHECKSUM",
                                                       "ERROR_CORRUPT_STREAM")
    assert len(got.page_status) == 4
    # a stream of FP16 pages given to an FP32 spec of the same page size: refused from its
    # header, nothing written; a BF16 spec likewise
    for other, like in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        n = 2048 // torch.tensor([], dtype=like).element_size()
        out2 = [torch.full((n,), 5.0, dtype=like) for _ in range(4)]
        got = b.decompress_into(splitzip.EncodedBatch(dst, spec(other, 4, 2048),
                                                      snap.output_bytes), out2).wait()
        assert got.outcome == "failed" and got.status == "ERROR_GEOMETRY", got
        assert "f16" in got.reason and got.page_status == ("untouched",) * 4
        assert all(torch.equal(o, torch.full_like(o, 5.0)) for o in out2)
    # a header that fails is reported by the decoder, with the page states
    bad = dst[:snap.output_bytes].clone()
    bad[0] ^= 1
    got = b.decompress_into(splitzip.EncodedBatch(bad, s, snap.output_bytes), out).wait()
    assert got.status == "ERROR_BAD_MAGIC" and got.page_status == ("untouched",) * 4


def test_backend_shared_by_threads():
    b = splitzip.SplitzipKVBackend(mode="auto")
    s = spec("float8_e4m3fn" if FP8 else "float16", 6, 1024 if FP8 else 2048)
    dtype = FP8[0] if FP8 else torch.float16
    sets = [kv_pages(dtype, 6, 1024, seed=k) for k in range(8)]
    want = [splitzip.compress_pages(p, mode="auto") for p in sets]
    errors = []

    def work(k):
        try:
            dst = torch.empty(b.buffer_requirements("compress", s).output_bytes,
                              dtype=torch.uint8)
            for _ in range(20):
                snap = b.compress_into(splitzip.PackedBatch(sets[k], s), dst).wait()
                assert snap.outcome == "succeeded", snap.reason
                assert dst[:snap.output_bytes].numpy().tobytes() == want[k]
                out = [torch.empty_like(p) for p in sets[k]]
                got = b.decompress_into(splitzip.EncodedBatch(dst, s, snap.output_bytes),
                                        out).wait()
                assert got.outcome == "succeeded" and same(out, sets[k])
        except Exception as e:  # reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


@pytest.mark.parametrize("name,spec_dtype", [("e4m3", "float8_e4m3fn"), ("e5m2", "float8_e5m2")])
def test_backend_fp8_as_uint8_without_torch_float8(name, spec_dtype):
    """FP8 KV pools as uint8 bytes (how engines hold them when torch has no float8 type): the
    spec names the dtype; real FP8 KV bytes from the golden page streams' content."""
    raw = next((VEC / "valid").glob(f"*_{name}_entropy_kv.{name}")).read_bytes()
    data = np.frombuffer(raw, dtype=np.uint8)
    pool = torch.from_numpy(data[:16 * 1024].copy()).reshape(16, 1024)
    b = splitzip.SplitzipKVBackend(mode="entropy")
    s = spec(spec_dtype, 8, 1024)
    assert b.supports(s)
    idx = torch.tensor([5, 1, 14, 0, 9, 9, 2, 7], dtype=torch.int64)
    dst = torch.empty(b.buffer_requirements("compress", s).output_bytes, dtype=torch.uint8)
    snap = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(pool, idx), s), dst).wait()
    assert snap.outcome == "succeeded", snap.reason
    stream = dst[:snap.output_bytes].numpy().tobytes()
    info = splitzip.pages_info(stream)
    assert info["dtype"] == name and info["format_version"] == 3
    assert snap.output_bytes < 8 * 1024  # real FP8 KV shrinks
    assert stream == splitzip.compress_pages([pool[k].numpy() for k in idx.tolist()],
                                             mode="entropy", dtype=name)
    back = torch.zeros_like(pool)
    got = b.decompress_into(splitzip.EncodedBatch(dst, s, snap.output_bytes),
                            splitzip.PagedKV(back, torch.arange(8, dtype=torch.int64))).wait()
    assert got.outcome == "succeeded" and got.page_status == ("written",) * 8
    for i, k in enumerate(idx.tolist()):
        assert torch.equal(back[i], pool[k])
    # the other FP8 dtype's spec refuses this stream before writing
    other = spec("float8_e5m2" if name == "e4m3" else "float8_e4m3fn", 8, 1024)
    back2 = torch.full_like(pool, 9)
    got = b.decompress_into(splitzip.EncodedBatch(dst, other, snap.output_bytes),
                            splitzip.PagedKV(back2, torch.arange(8, dtype=torch.int64))).wait()
    assert got.status == "ERROR_GEOMETRY" and bool((back2 == 9).all())
