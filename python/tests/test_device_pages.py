"""The device path of page streams from Python (PageCodec.*_async, SplitzipKVBackend with a
device spec), run on the CPU: libsplitzip's "cuda" backend loads the CPU SIMT harness's GPU
module (SPLITZIP_CUDA_MODULE=<build>/tests/gpu/libsplitzip_simt.so), whose kernels are the
GPU's and whose "device memory" is host memory, and splitzip.device.SimtHostRuntime plays the
device runtime. Real KV pages; the streams byte for byte against the host calls; bit-exact
decompression; damaged streams with the host's status and page states; the stream a call
used and the events it waited on (the runtime's call record); no allocation per pool call.

What this does not run: splitzip.device.TorchCudaRuntime (torch CUDA tensors and
__cuda_array_interface__ / DLPack buffers, torch.cuda.Stream / ExternalStream handles,
stream.wait_event, event record / query / synchronize, the pinned uploads of the list calls,
the copy stream of PageOp.read), which only a GPU exercises (test_pages.py and
test_kv_backend.py have the CUDA tests). Under the harness every stream runs its work when it
is enqueued, so these tests check what the Python layer asks of the runtime, in which order
and on which stream -- not device-side ordering.

A process decides once which module its "cuda" backend loads. When this one has not loaded
the harness (pytest over the whole folder without SPLITZIP_CUDA_MODULE), the tests run in a
child pytest with SPLITZIP_CUDA_MODULE set (test_device_pages_in_a_process_with_the_harness).
They are skipped only when the library has no cuda backend or the harness module is not
built."""
import ctypes
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402
from splitzip import device  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SPLITZIP_TEST_DATA", ROOT / "data"))
MODES = ("split4", "entropy", "auto")


def _harness_path():
    env = os.environ.get("SPLITZIP_CUDA_MODULE")
    if env and Path(env).name == "libsplitzip_simt.so":
        return Path(env)
    return Path(splitzip._LIBRARY_PATH).resolve().parent / "tests" / "gpu" / "libsplitzip_simt.so"


HARNESS = _harness_path()
if "cuda" not in dict(splitzip.backends()):
    pytest.skip("the library was built without the cuda backend", allow_module_level=True)
if not HARNESS.is_file():
    pytest.skip(f"the SIMT harness module is not built ({HARNESS})", allow_module_level=True)
try:
    RT0 = device.SimtHostRuntime(str(HARNESS))
    IN_PROCESS = True
except RuntimeError:
    IN_PROCESS = False


@pytest.fixture
def rt():
    """A fresh runtime per test: its call record and allocation count start empty."""
    return device.SimtHostRuntime(str(HARNESS))


def kv_pool(n_pages=64, shape=(16, 4, 16), which="K"):
    """A paged KV pool [n_pages, tokens, kv_heads, head_dim] of real BF16 bit patterns."""
    kv = np.fromfile(DATA / "kv" / f"aidreams260k__shakespeare.{which}.bf16", dtype=np.uint16)
    return np.resize(kv, n_pages * int(np.prod(shape))).reshape(n_pages, *shape).copy()


def scattered(n, of=64, seed=1):
    return np.random.default_rng(seed).permutation(of)[:n].astype(np.int64)


def ws_for(codec, n, page_bytes, op=None):
    return np.zeros(codec.device_workspace_size(n, page_bytes, op), np.uint8)


def same_bits(a, b):
    return np.array_equal(np.asarray(a).view(np.uint16), np.asarray(b).view(np.uint16))


# ---- The pool calls -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_pool_calls_write_the_host_bytes_and_scatter_back_bit_exact(rt, mode):
    for which, checksum in (("K", True), ("V", False)):
        pool = kv_pool(which=which)
        idx = scattered(24)
        codec = splitzip.PageCodec(backend="cuda", mode=mode, checksum=checksum, runtime=rt)
        host = splitzip.compress_pages([pool[i] for i in idx], mode=mode, checksum=checksum)
        out = np.full(splitzip.pages_bound(24, 2048), 0xAB, np.uint8)
        op = codec.compress_pool_async(pool, idx, out, ws_for(codec, 24, 2048, "compress"))
        assert op.poll() and op.kind == "compress"
        size = op.result()
        assert size == len(host) and bytes(out[:size]) == host
        info = splitzip.pages_info(host)
        want = tuple("coded" if p["encoding"] == "frame" else "raw" for p in info["pages"])
        assert op.page_encodings() == want
        dst = np.full_like(pool, 0xEEEE)
        op = codec.decompress_pool_async(out, size, dst, idx, ws_for(codec, 24, 2048,
                                                                    "decompress"))
        r = op.read()
        assert (r.name, r.size) == ("OK", 24)
        assert r.page_sizes == (2048,) * 24 and r.page_states == ("written",) * 24
        assert op.result() == [2048] * 24
        assert same_bits(dst[idx], pool[idx])
        rest = np.setdiff1d(np.arange(64), idx)
        assert (dst[rest] == 0xEEEE).all()  # pages the indices do not name: untouched


def test_strided_pool_view_and_explicit_page_bytes(rt):
    """vLLM's [blocks, 2, block_size, heads, head_dim] cache: K pages are cache[:, 0], a view
    at a stride of two pages; SGLang's [tokens, heads, head_dim] layer buffer with page_size
    tokens per page: the contiguous buffer with page_bytes given. Both give the host's bytes
    and write nothing outside their pages."""
    k, v = kv_pool(32, (8, 4, 16), "K"), kv_pool(32, (8, 4, 16), "V")
    cache = np.stack([k, v], axis=1)  # [32, 2, 8, 4, 16]
    idx = scattered(12, 32)
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    host = splitzip.compress_pages([k[i] for i in idx])
    out = np.zeros(splitzip.pages_bound(12, 1024), np.uint8)
    ws = ws_for(codec, 12, 1024)
    size = codec.compress_pool_async(cache[:, 0], idx, out, ws).result()
    assert bytes(out[:size]) == host
    back = np.full_like(cache, 0x7777)
    assert codec.decompress_pool_async(out, size, back[:, 0], idx, ws).result() == [1024] * 12
    assert same_bits(back[idx, 0], k[idx]) and (back[:, 1] == 0x7777).all()

    tokens = k.reshape(32 * 8, 4, 16)  # page_size 8: page p is tokens [8p, 8p + 8)
    size2 = codec.compress_pool_async(tokens, idx, out, ws, page_bytes=8 * 4 * 16 * 2).result()
    assert bytes(out[:size2]) == host
    with pytest.raises(ValueError):  # a strided view has its own geometry
        codec.compress_pool_async(cache[:, 0], idx, out, ws, page_bytes=512)


def test_pool_index_outside_the_pool_is_the_kernels_status(rt):
    pool = kv_pool()
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    out = np.zeros(splitzip.pages_bound(4, 2048), np.uint8)
    ws = ws_for(codec, 4, 2048)
    good = codec.compress_pool_async(pool, scattered(4), out, ws).result()
    for bad in ([1, 2, 64, 3], [-1, 0, 1, 2]):
        op = codec.compress_pool_async(pool, np.array(bad, np.int64), out, ws)
        assert op.read().name == "ERROR_INVALID_ARGUMENT"  # a status, not an exception
        dst = np.full_like(pool, 0x1111)
        op = codec.decompress_pool_async(out, good, dst, np.array(bad, np.int64), ws)
        r = op.read()
        assert r.name == "ERROR_INVALID_ARGUMENT" and r.page_states == ("untouched",) * 4
        assert (dst == 0x1111).all()
        with pytest.raises(splitzip.PagesError) as e:
            op.result()
        assert e.value.page_states == ["untouched"] * 4


# ---- Damaged streams: the host's status and page states ---------------------------------

def _mutations(stream):
    """(what, bytes, src_size) of damaged copies of a stream: single bytes flipped in the
    header, the page table, the frames and the raw section, and truncations."""
    n = len(stream)
    info = splitzip.pages_info(stream)
    raw_at = n - sum(p["page_bytes"] for p in info["pages"] if p["encoding"] == "raw") - 8
    spots = sorted({4, 8, 13, 20, 32, 40, 64, 66, 70, 72, 100, 140, 200, 333, n // 3, n // 2,
                    2 * n // 3, max(raw_at, 0), n - 24, n - 9, n - 1})
    for at in spots:
        if 0 <= at < n:
            b = bytearray(stream)
            b[at] ^= 0x20
            yield f"byte {at}", bytes(b), n
    for cut in (0, 63, 64, 100, n // 2, n - 1):
        yield f"{cut} of {n} bytes", stream, cut


def test_damaged_streams_give_the_host_status_and_page_states(rt):
    pool = kv_pool()
    pages = [pool[i] for i in scattered(10)]
    pages[3] = np.random.default_rng(5).integers(0, 65536, (16, 4, 16), dtype=np.uint16)  # raw
    idx = np.arange(10, dtype=np.int64)
    src_pool = np.stack(pages)
    for mode in ("split4", "entropy"):
        codec = splitzip.PageCodec(backend="cuda", mode=mode, runtime=rt)
        hc = splitzip.PageCodec(mode=mode)
        stream = hc.compress(pages)
        assert "raw" in [p["encoding"] for p in splitzip.pages_info(stream)["pages"]]
        ws = ws_for(codec, 10, 2048, "decompress")
        failures = 0
        for what, data, size in _mutations(stream):
            buf = np.frombuffer(data, np.uint8).copy()
            host_dst = [np.full_like(p, 0x5A5A) for p in pages]
            states = []
            try:
                hc.decompress(buf[:size], host_dst, states=states, exact=True)
                host_status = "OK"
            except splitzip.PagesError as e:
                host_status = e.name
            dev_dst = np.full_like(src_pool, 0x5A5A)
            r = codec.decompress_pool_async(buf, size, dev_dst, idx, ws).read()
            assert (r.name, list(r.page_states)) == (host_status, states), (mode, what)
            failures += r.name != "OK"
            for i, s in enumerate(states):
                if s == "written":
                    assert same_bits(dev_dst[i], pages[i]), (mode, what, i)
                if s == "untouched":
                    assert (dev_dst[i] == 0x5A5A).all(), (mode, what, i)
        assert failures >= 20  # the mutations were seen


def test_geometry_exact_by_default_and_off(rt):
    pool = kv_pool()
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    out = np.zeros(splitzip.pages_bound(6, 2048), np.uint8)
    ws = ws_for(codec, 8, 2048)
    size = codec.compress_pool_async(pool, scattered(6), out, ws).result()
    dst = np.zeros_like(pool)
    more = scattered(8, seed=2)
    r = codec.decompress_pool_async(out, size, dst, more, ws).read()
    assert r.name == "ERROR_GEOMETRY" and r.page_states == ("untouched",) * 8
    r = codec.decompress_pool_async(out, size, dst, more, ws, exact=False).read()
    assert r.name == "OK" and r.size == 6 and r.page_sizes == (2048,) * 6 + (0, 0)
    assert same_bits(dst[more[:6]], pool[scattered(6)])


# ---- The list calls -------------------------------------------------------------------------

def test_list_calls_same_bytes_and_their_tables(rt):
    """Pages of several sizes (an empty one too); two device tables per call, counted by the
    runtime; a workspace allocated only when none is given."""
    pool = kv_pool()
    pages = [pool[i].reshape(-1)[:n].copy() for i, n in zip(range(7), (1024, 512, 0, 1024,
                                                                       100, 1024, 2))]
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    host = splitzip.compress_pages(pages)
    out = np.zeros(splitzip.pages_bound(7, 2048), np.uint8)
    ws = ws_for(codec, 7, 2048)
    op = codec.compress_async(pages, out, ws)
    assert rt.allocations == 2
    size = op.result()
    assert bytes(out[:size]) == host
    back = [np.full_like(p, 0x3333) for p in pages]
    assert codec.decompress_async(out, back, ws, src_size=size, exact=True).result() == \
        [p.nbytes for p in pages]
    assert all(same_bits(a, b) for a, b in zip(back, pages)) and rt.allocations == 4
    op = codec.compress_async(pages, out)  # no workspace: the runtime allocates one
    assert rt.allocations == 7 and op.result() == size
    bad = bytearray(host)
    bad[len(bad) // 2] ^= 1
    dst = [np.zeros_like(p) for p in pages]
    states = []
    with pytest.raises(splitzip.PagesError) as e:
        splitzip.PageCodec().decompress(bad, dst, states=states)
    op = codec.decompress_async(np.frombuffer(bytes(bad), np.uint8).copy(), dst, ws)
    with pytest.raises(splitzip.PagesError) as d:
        op.result()
    assert (d.value.name, d.value.page_states) == (e.value.name, states)


# ---- Streams, events, allocation, workspace -------------------------------------------------

def test_input_events_and_the_stream_given(rt):
    pool = kv_pool()
    idx = scattered(4)
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    out = np.zeros(splitzip.pages_bound(4, 2048), np.uint8)
    ws = ws_for(codec, 4, 2048)
    producer, engine = rt.Stream("producer"), rt.Stream("engine")
    a, b, done = rt.Event("a"), rt.Event("b"), rt.Event("done")
    rt.record(producer, a)
    del rt.calls[:]
    op = codec.compress_pool_async(pool, idx, out, ws, engine, [a, b], event=done)
    assert rt.calls == [("wait", engine, a), ("wait", engine, b),
                        ("launch", engine, "splitzip_pages_compress_pool_async"),
                        ("record", engine, done)]
    assert op.stream is engine and op.event is done and done.stream is engine
    size = op.result()
    del rt.calls[:]
    dst = np.zeros_like(pool)
    op = codec.decompress_pool_async(out, size, dst, idx, ws, wait_events=[done])
    assert [c[:2] for c in rt.calls] == [("wait", rt.default_stream), ("launch", rt.default_stream),
                                         ("record", rt.default_stream)]
    assert rt.calls[0][2] is done and op.stream is rt.default_stream
    del rt.calls[:]
    with pytest.raises(TypeError):  # not an event of this runtime: nothing enqueued
        codec.compress_pool_async(pool, idx, out, ws, engine, [object()])
    with pytest.raises(TypeError):  # a raw handle the harness cannot take
        codec.compress_pool_async(pool, idx, out, ws, 12345)
    assert not [c for c in rt.calls if c[0] == "launch"]


def test_pool_calls_allocate_nothing(rt):
    """No allocation by the runtime, and no host memory that grows with the page count (a
    table, a copy) -- while the list call's tables do grow, so the measure sees them."""
    pool = kv_pool(128, (4, 4, 8))  # 256-byte pages
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    out = np.zeros(splitzip.pages_bound(128, 256), np.uint8)
    ws = ws_for(codec, 128, 256)
    dst = np.zeros_like(pool)

    def traced(call):
        tracemalloc.start()
        op = call()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        op.result()
        return peak

    peaks = {}
    for n in (4, 128, 4, 128):
        idx = np.arange(n, dtype=np.int64)[::-1].copy()
        lst = [pool[i] for i in idx]
        c = traced(lambda: codec.compress_pool_async(pool, idx, out, ws))
        size = int(ctypes.c_uint64.from_address(ws.ctypes.data).value)
        d = traced(lambda: codec.decompress_pool_async(out, size, dst, idx, ws))
        li = traced(lambda: codec.compress_async(lst, out, ws))
        peaks.setdefault(n, []).append((c, d, li))
    assert rt.allocations == 8  # the list calls' tables only, two per call
    for i in range(2):
        (c4, d4, l4), (c128, d128, l128) = peaks[4][i], peaks[128][i]
        assert c128 - c4 < 512 and d128 - d4 < 512, peaks  # not per page
        assert l128 - l4 > 124 * 16, peaks  # the list call's tables: 16 bytes per page
    assert same_bits(dst, pool)


def test_workspace_layout_results_in_device_memory(rt):
    """The results where the layout says (host memory plays device memory, so they can be
    read at their addresses), a workspace too small or misaligned refused before anything is
    enqueued, and an operation whose workspace a later call took cannot be read."""
    pool = kv_pool()
    idx = scattered(5)
    codec = splitzip.PageCodec(backend="cuda", runtime=rt)
    out = np.zeros(splitzip.pages_bound(5, 2048), np.uint8)
    need = codec.device_workspace_size(5, 2048)
    assert need == splitzip.pages.results_bytes(5, "decompress") + codec.workspace_size(5, 2048)
    assert codec.device_workspace_size(5, 2048, "compress") == \
        256 + codec.workspace_size(5, 2048, "compress")
    ws = np.zeros(need + 16, np.uint8)
    op = codec.compress_pool_async(pool, idx, out, ws)
    size = op.result()
    assert op.size_ptr == ws.ctypes.data and ctypes.c_uint64.from_address(op.size_ptr).value == size
    assert ctypes.c_int32.from_address(op.status_ptr).value == 0
    dst = np.zeros_like(pool)
    op = codec.decompress_pool_async(out, size, dst, idx, ws)
    op.read()
    sizes = np.frombuffer(ctypes.string_at(op.page_sizes_ptr, 40), "<u8")
    states = ctypes.string_at(op.page_states_ptr, 5)
    assert list(sizes) == [2048] * 5 and states == bytes([splitzip.pages.PAGE_WRITTEN]) * 5
    del rt.calls[:]
    with pytest.raises(splitzip.SplitzipError) as e:
        codec.compress_pool_async(pool, idx, out, ws[:codec.device_workspace_size(
            5, 2048, "compress") - 1])
    assert e.value.name == "ERROR_INVALID_ARGUMENT"
    with pytest.raises(ValueError):
        codec.compress_pool_async(pool, idx, out, ws[8:])
    assert not rt.calls
    first = codec.compress_pool_async(pool, idx, out, ws)
    second = codec.compress_pool_async(pool, idx, out, ws)
    with pytest.raises(RuntimeError):
        first.read()
    assert second.result() == size


def test_the_host_runtime_is_an_explicit_opt_in(monkeypatch):
    with pytest.raises(RuntimeError):
        device.SimtHostRuntime(str(HARNESS.parent / "no_such_module.so"))
    cuda_module = Path(splitzip._LIBRARY_PATH).resolve().parent / "libsplitzip_cuda.so"
    with pytest.raises(RuntimeError):  # not the module the library loaded, nor the harness
        device.SimtHostRuntime(str(cuda_module))
    monkeypatch.setattr(device, "_DEFAULT", {})
    monkeypatch.delenv("SPLITZIP_DEVICE_RUNTIME", raising=False)
    assert isinstance(device.default_runtime(), device.TorchCudaRuntime)
    monkeypatch.setenv("SPLITZIP_DEVICE_RUNTIME", "simt-host")
    monkeypatch.setenv("SPLITZIP_CUDA_MODULE", str(HARNESS))
    assert isinstance(device.default_runtime(), device.SimtHostRuntime)
    monkeypatch.setenv("SPLITZIP_DEVICE_RUNTIME", "cpu")
    with pytest.raises(ValueError):
        device.default_runtime()


# ---- SplitzipKVBackend on the device -------------------------------------------------------

def _bf16_pool(n=64, shape=(16, 4, 16), which="K"):
    return torch.from_numpy(kv_pool(n, shape, which).view(np.int16)).view(torch.bfloat16)


def test_kv_backend_device_path_matches_the_host_path(rt):
    b = splitzip.SplitzipKVBackend(mode="entropy", runtime=rt)
    spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=32, device="cuda")
    host_spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=32)
    assert b.supports(spec)
    req_c, req_d = b.buffer_requirements("compress", spec), b.buffer_requirements("decompress",
                                                                                  spec)
    assert req_c.workspace_bytes > 0 and req_d.workspace_bytes > 0
    assert req_c.workspace_alignment == device.WORKSPACE_ALIGN
    pool = _bf16_pool()
    idx = torch.from_numpy(scattered(20))
    dst = torch.zeros(req_c.output_bytes, dtype=torch.uint8)
    ws_c = torch.zeros(req_c.workspace_bytes, dtype=torch.uint8)
    ws_d = torch.zeros(req_d.workspace_bytes, dtype=torch.uint8)
    s, ready = rt.Stream("layer 3"), rt.Event("kv ready")
    op = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(pool, idx), spec), dst, ws_c,
                         context=splitzip.ExecutionContext(stream=s, input_events=[ready]))
    snap = op.poll()
    assert snap.outcome == "succeeded", snap
    assert rt.calls[:2] == [("wait", s, ready),
                            ("launch", s, "splitzip_pages_compress_pool_async")]
    assert rt.calls[2][:2] == ("record", s) and rt.calls[2][2] is op.event
    assert op.device_op.stream is s and op.event is op.device_op.event
    hdst = np.zeros(req_c.output_bytes, np.uint8)
    hsnap = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(pool, idx), host_spec),
                            hdst).poll()
    assert (snap.output_bytes, snap.page_status) == (hsnap.output_bytes, hsnap.page_status)
    size = snap.output_bytes
    assert bytes(dst[:size].numpy()) == bytes(hdst[:size])
    assert rt.allocations == 0

    out = torch.zeros_like(pool)
    op = b.decompress_into(splitzip.EncodedBatch(dst, spec, size), splitzip.PagedKV(out, idx),
                           ws_d, context=splitzip.ExecutionContext(stream=s))
    snap = op.wait()
    assert snap.outcome == "succeeded" and snap.page_status == ("written",) * 20
    assert snap.page_bytes == (2048,) * 20 and snap.output_bytes == 20 * 2048
    assert torch.equal(out[idx].view(torch.int16), pool[idx].view(torch.int16))
    assert rt.allocations == 0


def test_kv_backend_device_errors_come_back_in_the_snapshot(rt):
    b = splitzip.SplitzipKVBackend(runtime=rt)
    spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=16, device="cuda")
    host_spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=16)
    pool = _bf16_pool()
    idx = torch.from_numpy(scattered(12))
    req_c, req_d = b.buffer_requirements("compress", spec), b.buffer_requirements("decompress",
                                                                                  spec)
    dst = torch.zeros(req_c.output_bytes, dtype=torch.uint8)
    ws_c = torch.zeros(req_c.workspace_bytes, dtype=torch.uint8)
    ws_d = torch.zeros(req_d.workspace_bytes, dtype=torch.uint8)
    size = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(pool, idx), spec), dst,
                           ws_c).wait().output_bytes
    for at in (70, size // 3, size // 2, size - 5):
        bad = dst.clone()
        bad[at] ^= 0x10
        out = torch.zeros_like(pool)
        dev = b.decompress_into(splitzip.EncodedBatch(bad, spec, size),
                                splitzip.PagedKV(out, idx), ws_d).poll()
        hout = torch.zeros_like(pool)
        host = b.decompress_into(splitzip.EncodedBatch(bad.numpy(), host_spec, size),
                                 splitzip.PagedKV(hout, idx)).poll()
        assert dev.outcome == host.outcome == "failed", at
        assert (dev.status, dev.page_status) == (host.status, host.page_status), at
        assert dev.reason
    cases = {
        "index outside": (splitzip.PagedKV(pool, torch.tensor([0, 64], dtype=torch.int64)), ws_c),
        "no workspace": (splitzip.PagedKV(pool, idx), None),
        "small workspace": (splitzip.PagedKV(pool, idx), ws_c[:100]),
        "int32 indices": (splitzip.PagedKV(pool, idx.to(torch.int32)), ws_c),
        "page size": (splitzip.PagedKV(pool, idx, page_bytes=1024), ws_c),
        "too many": (splitzip.PagedKV(pool, torch.arange(17, dtype=torch.int64)), ws_c),
    }
    for what, (kv, ws) in cases.items():
        snap = b.compress_into(splitzip.PackedBatch(kv, spec), dst, ws).poll()
        assert snap.outcome == "failed" and snap.status == "ERROR_INVALID_ARGUMENT", what
        assert snap.reason, what
    snap = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(pool, idx), spec),
                           dst[:500], ws_c).poll()
    assert snap.status == "ERROR_DST_TOO_SMALL"  # the kernels' status


def test_kv_backend_device_list_of_pages(rt):
    b = splitzip.SplitzipKVBackend(runtime=rt)
    spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=8, device="cuda")
    pool = _bf16_pool()
    pages = [pool[i] for i in scattered(8).tolist()]
    req = b.buffer_requirements("compress", spec)
    dst = torch.zeros(req.output_bytes, dtype=torch.uint8)
    ws = torch.zeros(req.workspace_bytes, dtype=torch.uint8)
    snap = b.compress_into(splitzip.PackedBatch(pages, spec), dst, ws).wait()
    assert snap.outcome == "succeeded"
    assert bytes(dst[:snap.output_bytes].numpy()) == splitzip.compress_pages(pages)
    out = [torch.zeros_like(p) for p in pages]
    ws_d = torch.zeros(b.buffer_requirements("decompress", spec).workspace_bytes,
                       dtype=torch.uint8)
    snap = b.decompress_into(splitzip.EncodedBatch(dst, spec, snap.output_bytes), out,
                             ws_d).wait()
    assert snap.page_status == ("written",) * 8
    assert all(torch.equal(a.view(torch.int16), p.view(torch.int16)) for a, p in zip(out, pages))


def test_kv_backend_supports_device_specs_with_a_reason(rt):
    spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=8, device="cuda")
    assert splitzip.SplitzipKVBackend(runtime=rt).supports(spec)
    no = splitzip.SplitzipKVBackend(runtime=rt).supports(
        splitzip.KVCompressionSpec(page_bytes=2048, max_pages=8, device="tpu"))
    assert not no and "tpu" in no.reason
    torch_rt = splitzip.SplitzipKVBackend(runtime=device.TorchCudaRuntime()).supports(spec)
    if not torch.cuda.is_available():
        assert not torch_rt and "torch" in torch_rt.reason


# ---- Running the tests where the library loaded the harness ---------------------------------

if not IN_PROCESS:
    for _name in [n for n in list(globals()) if n.startswith("test_")]:
        del globals()[_name]

    def test_device_pages_in_a_process_with_the_harness():
        """This process's cuda backend did not load the harness (it decides once per
        process): run this file's tests in a child pytest that does."""
        env = dict(os.environ, SPLITZIP_CUDA_MODULE=str(HARNESS),
                   SPLITZIP_LIBRARY=splitzip._LIBRARY_PATH)
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            __file__], env=env, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0 and " passed" in r.stdout and "skipped" not in r.stdout, \
            r.stdout[-6000:] + r.stderr[-3000:]
