"""Page streams from Python (splitzip.pages): numpy and CPU torch pages, the layout, hostile
streams, and the device path on CUDA tensors when a GPU backend is usable here."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "kv"


def kv_pages(n=12, elems=4096, which="K"):
    kv = np.fromfile(DATA / f"aidreams260k__shakespeare.{which}.bf16", dtype=np.uint16)
    return [kv[(i * elems) % (kv.size - elems):][:elems].copy() for i in range(n)]


def cuda_usable():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available() and ("cuda", True) in splitzip.backends()


MODES = ("split4", "entropy", "auto")


def test_roundtrip_every_mode_layout_and_raw_fallback():
    pages = kv_pages() + [np.random.default_rng(1).integers(0, 65536, 3000, dtype=np.uint16),
                          np.zeros(0, np.uint16), np.zeros(5000, np.uint16)]
    raw = sum(p.nbytes for p in pages)
    for mode in MODES:
        stream = splitzip.compress_pages(pages, mode=mode)
        info = splitzip.pages_info(stream)
        assert info["format_version"] == 2 and info["checksum"]  # checksums by default
        assert info["mode"] == ("split4" if mode == "split4" else "entropy")
        assert info["n_pages"] == len(pages) and info["stream_size"] == len(stream)
        assert info["total_page_bytes"] == raw
        enc = [e["encoding"] for e in info["pages"]]
        assert enc[:12] == ["frame"] * 12 and enc[12] == "raw" and enc[13] == "raw"
        assert enc[14] == "frame"  # zeros compress
        assert [e["page_bytes"] for e in info["pages"]] == [p.nbytes for p in pages]
        dst = [np.full_like(p, 0xEEEE) for p in pages]
        states = []
        sizes = splitzip.decompress_pages(stream, dst, states=states)
        assert sizes == [p.nbytes for p in pages] and states == ["written"] * len(pages)
        assert all(np.array_equal(a, b) for a, b in zip(pages, dst))
        assert raw / len(stream) > (1.25 if mode == "split4" else 1.35)


def test_small_pages_keep_the_ratio_of_one_frame():
    """2 KiB pages (one token of 8 KV heads of 128 values): the stream within 2 % of one frame
    over the same bytes, in both modes."""
    pages = kv_pages(64, 1024)
    for mode in ("split4", "entropy"):
        stream = splitzip.compress_pages(pages, mode=mode)
        frame = splitzip.compress(np.concatenate(pages), mode=mode, checksum=True)
        assert len(frame) / len(stream) >= 0.98, (mode, len(frame), len(stream))


def test_checksum_on_by_default_and_off_on_request():
    pages = kv_pages(4)
    for checksum in (True, False):
        stream = bytearray(splitzip.compress_pages(pages, checksum=checksum))
        assert splitzip.pages_info(bytes(stream))["checksum"] == checksum
        frame = 64 + ((64 + 4 * 4 + 63) // 64 * 64 - 64)
        stream[frame + 64 + 8192 + 100] ^= 0x01  # a sign/mantissa byte of the frame
        dst = [np.empty_like(p) for p in pages]
        if checksum:
            with pytest.raises(splitzip.PagesError) as e:
                splitzip.decompress_pages(bytes(stream), dst)
            assert e.value.name == "ERROR_CONTENT_CHECKSUM"
            assert e.value.page_states == ["damaged"] * 4
        else:  # undetected without checksums: that is what the option costs
            splitzip.decompress_pages(bytes(stream), dst)
            assert not all(np.array_equal(a, b) for a, b in zip(pages, dst))


def test_fixed_tables_named_by_id_and_same_bytes_every_backend():
    pages = kv_pages(which="V")
    cb = splitzip.calibrate(np.concatenate(pages))
    table = splitzip.calibrate_entropy(np.concatenate(pages))
    for mode in MODES:
        kw = dict(mode=mode, codebook=cb, table=table, table_id=0xABC)
        ref = splitzip.compress_pages(pages, backend="scalar", **kw)
        info = splitzip.pages_info(ref)
        assert info["fixed_table"] and info["table_id"] == 0xABC
        for name, usable in splitzip.backends():
            if usable and name not in ("cuda", "hip"):
                assert splitzip.compress_pages(pages, backend=name, **kw) == ref
    with pytest.raises(ValueError):
        splitzip.PageCodec(table_id=3)
    with pytest.raises(splitzip.SplitzipError) as e:  # a name without a fixed table
        splitzip.compress_pages(pages, mode="entropy", codebook=cb, table_id=3)
    assert e.value.name == "ERROR_INVALID_ARGUMENT"


def test_torch_cpu_pages_in_a_paged_pool():
    torch = pytest.importorskip("torch")
    kv = np.concatenate(kv_pages(16, 2048))
    pool = torch.from_numpy(kv.view(np.int16)).view(torch.bfloat16).reshape(16, 16, 8, 16)
    table = [5, 0, 9, 3]  # the request's pages, scattered in the pool
    stream = splitzip.compress_pages([pool[i] for i in table], mode="entropy")
    out = torch.zeros_like(pool)
    sizes = splitzip.decompress_pages(stream, [out[i] for i in table])
    assert sizes == [4096] * 4
    for i in table:
        assert torch.equal(out[i].view(torch.int16), pool[i].view(torch.int16))
    assert torch.count_nonzero(out[1].view(torch.int16)) == 0  # untouched


def test_hostile_streams():
    pages = kv_pages(4)
    stream = bytearray(splitzip.compress_pages(pages))
    dst = [np.full_like(p, 0x1234) for p in pages]
    cases = {
        "truncated": (bytes(stream[:-1]), "ERROR_TRUNCATED"),
        "not a stream": (b"JUNK" + bytes(stream[4:]), "ERROR_BAD_MAGIC"),
        "version 1": (bytes(stream[:4]) + b"\x01" + bytes(stream[5:]), "ERROR_UNSUPPORTED_FORMAT"),
        "header": (bytes(stream[:33]) + bytes([stream[33] ^ 1]) + bytes(stream[34:]),
                   "ERROR_HEADER_CHECKSUM"),
        "page table": (bytes(stream[:70]) + bytes([stream[70] ^ 1]) + bytes(stream[71:]),
                       "ERROR_HEADER_CHECKSUM"),
    }
    for what, (s, want) in cases.items():
        with pytest.raises(splitzip.PagesError) as e:
            splitzip.decompress_pages(s, dst)
        assert e.value.name == want, what
        assert e.value.page_states == ["untouched"] * 4, what
        assert all((p == 0x1234).all() for p in dst), what
    with pytest.raises(splitzip.PagesError) as e:  # one destination too small
        splitzip.decompress_pages(bytes(stream), dst[:3] + [np.empty(4095, np.uint16)])
    assert e.value.name == "ERROR_DST_TOO_SMALL"
    with pytest.raises(ValueError):
        splitzip.decompress_pages(bytes(stream), [p[::2] for p in dst])  # not contiguous


def test_output_buffer_and_bound():
    pages = kv_pages(5)
    bound = splitzip.pages_bound(5, 8192)
    assert bound == 128 + 5 * 8192 + 144
    out = np.empty(bound, np.uint8)
    with splitzip.PageCodec() as c:
        size = c.compress(pages, out=out)
        assert bytes(out[:size]) == c.compress(pages)
        with pytest.raises(splitzip.SplitzipError) as e:
            c.compress(pages, out=np.empty(size - 1, np.uint8))
        assert e.value.name == "ERROR_DST_TOO_SMALL"


@pytest.mark.skipif(not cuda_usable(), reason="no CUDA device or cuda backend here")
def test_cuda_tensors_same_bytes_as_host():
    import torch
    pages = kv_pages(64, 16384)
    host = splitzip.compress_pages(pages)
    dev = [torch.from_numpy(p.view(np.int16)).cuda() for p in pages]
    codec = splitzip.PageCodec(backend="cuda")
    out = torch.empty(splitzip.pages_bound(64, 32768), dtype=torch.uint8, device="cuda")
    op = codec.compress_async(dev, out)
    size = op.result()
    assert out[:size].cpu().numpy().tobytes() == host
    back = [torch.zeros_like(t) for t in dev]
    op = codec.decompress_async(out, back, src_size=size)
    assert op.result() == [32768] * 64
    assert all(torch.equal(a, b) for a, b in zip(back, dev))
