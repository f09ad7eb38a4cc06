"""The RFC #39740-shaped backend (splitzip.SplitzipKVBackend) on CPU tensors, and on CUDA
tensors when a GPU backend is usable here."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

torch = pytest.importorskip("torch")
DATA = Path(__file__).resolve().parents[2] / "data" / "kv"


def pool(n_pages=32, shape=(16, 4, 16)):
    """A paged KV pool [n_pages, tokens, kv_heads, head_dim] of real BF16 K values."""
    kv = np.fromfile(DATA / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    need = n_pages * int(np.prod(shape))
    data = np.resize(kv, need).view(np.int16)
    return torch.from_numpy(data.copy()).view(torch.bfloat16).reshape(n_pages, *shape)


def bits(t):
    return t.view(torch.int16)


def test_supports_and_finite_aligned_requirements():
    b = splitzip.SplitzipKVBackend()
    spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=100)
    assert b.supports(spec)
    assert not b.supports(splitzip.KVCompressionSpec(page_bytes=2048, max_pages=4, dtype="fp8"))
    assert not b.supports(splitzip.KVCompressionSpec(page_bytes=2047, max_pages=4))
    req = b.buffer_requirements("compress", spec)
    assert req.output_bytes == splitzip.pages_bound(100, 2048) and req.alignment == 64
    assert req.workspace_bytes == 0
    assert b.buffer_requirements("decompress", spec).output_bytes == 0
    with pytest.raises(ValueError):
        b.buffer_requirements("transcode", spec)


def test_compress_into_decompress_into_cpu():
    p = pool()
    kv = p.view(torch.int16).numpy().view(np.uint16)
    b = splitzip.SplitzipKVBackend(codebook=splitzip.calibrate(kv), table_id=0xBEEF)
    spec = splitzip.KVCompressionSpec(page_bytes=2048, max_pages=8)
    req = b.buffer_requirements("compress", spec)
    dst = torch.empty(req.output_bytes, dtype=torch.uint8)
    ws = torch.empty(req.workspace_bytes, dtype=torch.uint8)
    table = [7, 2, 30, 11, 5]
    op = b.compress_into(p[table], dst, ws, {"stream": None})
    assert op.poll()
    size = op.result()
    assert 0 < size < 5 * 2048
    info = splitzip.pages_info(dst[:size].numpy().tobytes())
    assert info["table_id"] == 0xBEEF and info["n_pages"] == 5 and info["checksum"]
    out = torch.zeros_like(p)
    received = dst.clone()  # a receive buffer longer than the stream is fine
    op = b.decompress_into(received, [out[i] for i in table], ws, {})
    assert op.poll() and op.result() == [2048] * 5
    for i in table:
        assert torch.equal(bits(out[i]), bits(p[i]))


def test_raw_fallback_per_page_and_errors_in_the_op():
    p = pool(4)
    noise = torch.randint(-32768, 32767, (16, 4, 16), dtype=torch.int16).view(torch.bfloat16)
    pages = [p[0], noise, p[1]]
    b = splitzip.SplitzipKVBackend()
    dst = torch.empty(splitzip.pages_bound(3, 2048), dtype=torch.uint8)
    size = b.compress_into(pages, dst).result()
    enc = [e["encoding"] for e in splitzip.pages_info(dst[:size].numpy().tobytes())["pages"]]
    assert enc == ["frame", "raw", "frame"]
    damaged = dst[:size].clone()
    damaged[10] ^= 0xFF
    op = b.decompress_into(damaged, [torch.empty_like(x) for x in pages])
    assert op.poll()
    with pytest.raises(splitzip.SplitzipError) as e:
        op.result()
    assert e.value.name == "ERROR_HEADER_CHECKSUM"
    op = b.compress_into(pages, torch.empty(100, dtype=torch.uint8))
    with pytest.raises(splitzip.SplitzipError) as e:
        op.wait()
    assert e.value.name == "ERROR_DST_TOO_SMALL"


@pytest.mark.skipif(not (torch.cuda.is_available() and ("cuda", True) in splitzip.backends()),
                    reason="no CUDA device or cuda backend here")
def test_cuda_stream_ordered_no_sync():
    p = pool(64, (16, 8, 128)).cuda()
    b = splitzip.SplitzipKVBackend()
    spec = splitzip.KVCompressionSpec(page_bytes=32768, max_pages=64, device="cuda")
    assert b.supports(spec)
    req = b.buffer_requirements("compress", spec)
    dst = torch.empty(req.output_bytes, dtype=torch.uint8, device="cuda")
    ws = torch.empty(req.workspace_bytes, dtype=torch.uint8, device="cuda")
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        op = b.compress_into(list(p), dst, ws, {"stream": s})
        out = torch.zeros_like(p)
        op2 = b.decompress_into(dst, list(out), ws, {"stream": s})
    assert op2.result() == [32768] * 64
    size = op.result()
    host = splitzip.compress_pages([x.cpu() for x in p])
    assert dst[:size].cpu().numpy().tobytes() == host
    assert torch.equal(bits(out), bits(p))
