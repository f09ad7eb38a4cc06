"""The backend of SGLang's RFC #39740 (splitzip.SplitzipKVBackend) and the LMCache serde
(splitzip.SplitzipSerializer / SplitzipDeserializer) used the way an engine uses them: the
upstream method names, argument order and return types; real KV pages in paged pools with
scattered indices; errors reported in the operation, never raised; the geometry checked before
anything reaches the codec; one backend shared by 8 threads; and the device path on CUDA
tensors when a GPU backend is usable here."""
import inspect
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data" / "kv"


def pool(n_pages=32, shape=(16, 4, 16), which="K"):
    """A paged KV pool [n_pages, tokens, kv_heads, head_dim] of real BF16 values."""
    kv = np.fromfile(DATA / f"aidreams260k__shakespeare.{which}.bf16", dtype=np.uint16)
    need = n_pages * int(np.prod(shape))
    data = np.resize(kv, need).view(np.int16)
    return torch.from_numpy(data.copy()).view(torch.bfloat16).reshape(n_pages, *shape)


def bits(t):
    return t.view(torch.int16)


def cpu_spec(n=8, page=2048, **kw):
    return splitzip.KVCompressionSpec(page_bytes=page, max_pages=n, **kw)


# ---- The RFC's interface ------------------------------------------------------------------

def test_interface_as_the_rfc_names_it():
    b = splitzip.SplitzipKVBackend()
    for name, params in [("supports", ["spec"]), ("buffer_requirements", ["operation", "spec"]),
                         ("compress_into", ["src", "dst", "workspace", "context"]),
                         ("decompress_into", ["src", "dst", "workspace", "context"])]:
        sig = inspect.signature(getattr(b, name))
        assert list(sig.parameters) == params, name
    for name in ("compress_into", "decompress_into"):
        ctx = inspect.signature(getattr(b, name)).parameters["context"]
        assert ctx.kind == inspect.Parameter.KEYWORD_ONLY  # "*, context"
    snap = b.compress_into([], torch.empty(256, dtype=torch.uint8)).poll()
    assert isinstance(snap, splitzip.OperationSnapshot) and snap.outcome == "succeeded"
    assert splitzip.BatchSpec is splitzip.KVCompressionSpec


def test_supports_answers_with_a_reason():
    b = splitzip.SplitzipKVBackend()
    assert b.supports(cpu_spec(100))
    cases = {"fp8": cpu_spec(4, dtype="fp8"), "odd": cpu_spec(4, 2047),
             "mode": cpu_spec(4, mode="lz4"), "device": cpu_spec(4, device="tpu")}
    for what, spec in cases.items():
        r = b.supports(spec)
        assert not r and isinstance(r.reason, str) and r.reason, what
    assert "dtype" in b.supports(cases["fp8"]).reason
    cuda = b.supports(cpu_spec(4, device="cuda"))  # never raises, whatever the machine
    assert isinstance(cuda, splitzip.SupportResult)
    if not (torch.cuda.is_available() and ("cuda", True) in splitzip.backends()):
        assert not cuda and cuda.reason


def test_buffer_requirements_finite_and_aligned():
    b = splitzip.SplitzipKVBackend(mode="entropy")
    spec = cpu_spec(100)
    req = b.buffer_requirements("compress", spec)
    assert req.output_bytes == splitzip.pages_bound(100, 2048) and req.alignment == 64
    assert req.workspace_bytes == 0 and req.workspace_alignment == 16
    assert b.buffer_requirements("decompress", spec).output_bytes == 0
    with pytest.raises(ValueError):
        b.buffer_requirements("transcode", spec)
    with pytest.raises(ValueError):
        b.buffer_requirements("compress", cpu_spec(4, dtype="int8"))


# ---- Compress and decompress on the CPU -----------------------------------------------------

@pytest.mark.parametrize("mode", ["split4", "entropy", "auto"])
def test_paged_pool_round_trip(mode):
    p = pool()
    b = splitzip.SplitzipKVBackend(mode=mode)
    spec = cpu_spec(8)
    req = b.buffer_requirements("compress", spec)
    dst = torch.empty(req.output_bytes, dtype=torch.uint8)
    table = [7, 2, 30, 11, 5]  # the request's kv_indices, scattered in the pool
    op = b.compress_into(splitzip.PackedBatch(p[table], spec), dst, None,
                         context=splitzip.ExecutionContext())
    snap = op.poll()
    assert snap.outcome == "succeeded" and snap.resources_released
    assert 0 < snap.output_bytes < 5 * 2048 and snap.page_status == ("coded",) * 5
    info = splitzip.pages_info(dst[:snap.output_bytes].numpy().tobytes())
    assert info["n_pages"] == 5 and info["checksum"]
    out = torch.zeros_like(p)
    received = dst.clone()  # a receive buffer longer than the stream is fine
    op = b.decompress_into(splitzip.EncodedBatch(received, spec), [out[i] for i in table],
                           None, context={"stream": None})
    snap = op.wait()
    assert snap.outcome == "succeeded" and snap.page_status == ("written",) * 5
    assert snap.page_bytes == (2048,) * 5 and op.result() == [2048] * 5
    for i in table:
        assert torch.equal(bits(out[i]), bits(p[i]))
    assert torch.count_nonzero(bits(out[0])) == 0  # not in the table: untouched


def test_raw_pages_and_errors_in_the_operation():
    p = pool(4)
    noise = torch.randint(-32768, 32767, (16, 4, 16), dtype=torch.int16).view(torch.bfloat16)
    pages = [p[0], noise, p[1]]
    b = splitzip.SplitzipKVBackend()
    dst = torch.empty(splitzip.pages_bound(3, 2048), dtype=torch.uint8)
    snap = b.compress_into(pages, dst).poll()
    assert snap.page_status == ("coded", "raw", "coded")
    size = snap.output_bytes
    damaged = dst[:size].clone()
    damaged[10] ^= 0xFF
    back = [torch.full_like(x, 7.0) for x in pages]
    snap = b.decompress_into(damaged, back).poll()  # no exception: a failed operation
    assert snap.outcome == "failed" and snap.status == "ERROR_HEADER_CHECKSUM"
    assert snap.page_status == ("untouched",) * 3
    assert all((x == 7.0).all() for x in back)
    with pytest.raises(splitzip.SplitzipError):
        b.decompress_into(damaged, back).result()
    snap = b.compress_into(pages, torch.empty(100, dtype=torch.uint8)).poll()
    assert snap.outcome == "failed" and snap.status == "ERROR_DST_TOO_SMALL"
    for bad in ("not pages", 12345, [object()]):  # nothing but a failed operation
        snap = b.compress_into(bad, dst).poll()
        assert snap.outcome == "failed" and snap.reason


def test_geometry_and_dtype_checked_before_the_codec():
    p = pool(4)
    b = splitzip.SplitzipKVBackend()
    spec = cpu_spec(4)
    dst = torch.empty(splitzip.pages_bound(4, 2048), dtype=torch.uint8)
    mixed = [p[0], p[1].view(torch.int16).view(torch.float16)]
    snap = b.compress_into(splitzip.PackedBatch(mixed, spec), dst).poll()
    assert snap.outcome == "failed" and "float16" in snap.reason
    big = torch.zeros(4096, dtype=torch.bfloat16)
    snap = b.compress_into(splitzip.PackedBatch([p[0], big], spec), dst).poll()
    assert snap.outcome == "failed" and "8192" in snap.reason
    many = splitzip.PackedBatch(list(pool(5)), spec)
    assert b.compress_into(many, dst).poll().outcome == "failed"
    # A valid stream of 2 pages into 3 destinations, or into a larger page: refused, untouched.
    snap = b.compress_into(splitzip.PackedBatch([p[0], p[1]], spec), dst).poll()
    stream = dst[:snap.output_bytes].clone()
    for dests in ([torch.ones_like(p[0]) for _ in range(3)],
                  [torch.ones_like(p[0]), torch.ones(16, 4, 32, dtype=torch.bfloat16)]):
        snap = b.decompress_into(stream, dests).poll()
        assert snap.outcome == "failed", snap
        assert all((x == 1).all() for x in dests)
    same = [torch.ones_like(p[0]), torch.ones_like(p[1])]
    spec3 = cpu_spec(3, 4096)  # pages of another size than the spec's
    assert b.decompress_into(splitzip.EncodedBatch(stream, spec3), same).poll().outcome == "failed"
    assert b.decompress_into(stream, same).poll().outcome == "succeeded"


def test_one_backend_shared_by_eight_threads():
    """SGLang's per-layer executor: 8 threads x 1000 streams of mixed sizes through one
    backend, each stream checked against one packed alone, every page back."""
    kv = np.fromfile(DATA / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    b = splitzip.SplitzipKVBackend(mode="auto")
    bad, done = [], []

    def worker(t):
        rng = np.random.default_rng(t)
        for s in range(1000):
            n, elems = int(rng.integers(1, 9)), int(rng.integers(1, 1025))
            at = rng.integers(0, kv.size - elems, n)
            pages = [kv[a:a + elems].copy() for a in at]
            dst = np.empty(splitzip.pages_bound(n, 2 * elems), np.uint8)
            snap = b.compress_into(pages, dst).poll()
            ref = splitzip.compress_pages(pages, mode="auto")
            back = [np.empty_like(x) for x in pages]
            got = b.decompress_into(dst[:snap.output_bytes] if snap.output_bytes else dst,
                                    back).poll()
            ok = (snap.outcome == "succeeded" and bytes(dst[:snap.output_bytes]) == ref and
                  got.outcome == "succeeded" and
                  all(np.array_equal(x, y) for x, y in zip(pages, back)))
            (done if ok else bad).append((t, s))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not bad and len(done) == 8000, bad[:5]


# ---- LMCache serde -------------------------------------------------------------------------

def test_lmcache_serde_interface_and_real_size():
    for cls, method in [(splitzip.SplitzipSerializer, "serialize"),
                        (splitzip.SplitzipDeserializer, "deserialize")]:
        assert list(inspect.signature(getattr(cls, method)).parameters) == ["self", "memory_obj"]
    # LMCache's KV_2LTD chunk: [2, layers, tokens, hidden]
    kv = pool(8, (16, 4, 16)).reshape(2, 4, 16 * 16, 4).permute(0, 1, 2, 3).contiguous()
    chunk = kv.reshape(2, 4, 16 * 16 * 4 // 64, 64)

    class MemoryObj:  # the duck type LMCache hands over
        def __init__(self, t):
            self.tensor = t

    ser = splitzip.SplitzipSerializer(None, None, mode="entropy")
    blob = ser.serialize(MemoryObj(chunk))
    raw = chunk.numel() * 2
    assert isinstance(blob.byte_array, bytes) and blob.get_size() == len(blob.byte_array)
    assert blob.get_size() < raw / 1.3  # the real compressed size, not an estimate
    out = splitzip.SplitzipDeserializer(None, None).deserialize(blob)
    assert out.get_shape() == tuple(chunk.shape) and out.tensor.dtype == torch.bfloat16
    assert torch.equal(bits(out.tensor), bits(chunk))
    with pytest.raises(splitzip.SplitzipError):
        splitzip.SplitzipDeserializer().deserialize(blob.byte_array[:-3])
    bad = bytearray(blob.byte_array)
    bad[len(bad) // 2] ^= 1
    with pytest.raises(splitzip.SplitzipError) as e:
        splitzip.SplitzipDeserializer().deserialize(bytes(bad))
    assert e.value.name in ("ERROR_CONTENT_CHECKSUM", "ERROR_CORRUPT_STREAM")


# ---- The device path ------------------------------------------------------------------------

@pytest.mark.skipif(not (torch.cuda.is_available() and ("cuda", True) in splitzip.backends()),
                    reason="no CUDA device or cuda backend here")
def test_cuda_stream_ordered_no_sync():
    """A pool and device indices (PagedKV) on a stream of its own after an input event, then
    the list of page tensors: the host's bytes, bit-exact pages, nothing written to pages the
    indices do not name. Runs only on a GPU."""
    p = pool(64, (16, 8, 128)).cuda()
    b = splitzip.SplitzipKVBackend()
    spec = splitzip.KVCompressionSpec(page_bytes=32768, max_pages=64, device="cuda")
    assert b.supports(spec)
    req = b.buffer_requirements("compress", spec)
    dst = torch.empty(req.output_bytes, dtype=torch.uint8, device="cuda")
    ws_c = torch.empty(req.workspace_bytes, dtype=torch.uint8, device="cuda")
    ws_d = torch.empty(b.buffer_requirements("decompress", spec).workspace_bytes,
                       dtype=torch.uint8, device="cuda")
    order = torch.randperm(64, generator=torch.Generator().manual_seed(3))[:48]
    idx = order.to(torch.int64).cuda()
    s = torch.cuda.Stream()
    ready = torch.cuda.Event()
    ready.record(torch.cuda.current_stream())
    op = b.compress_into(splitzip.PackedBatch(splitzip.PagedKV(p, idx), spec), dst, ws_c,
                         context=splitzip.ExecutionContext(stream=s, input_events=[ready]))
    out = torch.zeros_like(p)
    op2 = b.decompress_into(splitzip.EncodedBatch(dst, spec), splitzip.PagedKV(out, idx), ws_d,
                            context=splitzip.ExecutionContext(stream=s))
    assert op.device_op.stream is s and op2.device_op.stream is s
    assert op2.wait().outcome == "succeeded"
    size = op.wait().output_bytes
    host = splitzip.compress_pages([p[i].cpu() for i in order.tolist()])
    assert dst[:size].cpu().numpy().tobytes() == host
    assert torch.equal(bits(out[idx]), bits(p[idx]))
    rest = torch.ones(64, dtype=torch.bool)
    rest[order] = False
    assert not bits(out[rest.cuda()]).any()  # pages not named stay untouched
    with torch.cuda.stream(s):
        op = b.compress_into(splitzip.PackedBatch([p[i] for i in order.tolist()], spec), dst,
                             ws_c, context=splitzip.ExecutionContext(stream=s))
    assert op.wait().output_bytes == size
    assert dst[:size].cpu().numpy().tobytes() == host
