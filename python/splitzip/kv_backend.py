"""A KV compression backend with the shape SGLang's RFC #39740 ("Pluggable KV Compression for
Disaggregated Serving") asks for, over splitzip page streams. No SGLang import is needed: the
serving stack calls these methods (doc/INTEGRATION.md shows where).

    backend = SplitzipKVBackend(codebook=splitzip.calibrate(sample_kv), table_id=model_hash)
    spec = KVCompressionSpec(page_bytes=32768, max_pages=512, device="cuda")
    if backend.supports(spec):
        req = backend.buffer_requirements("compress", spec)   # finite bounds, alignment
        dst = torch.empty(req.output_bytes, dtype=torch.uint8, device="cuda")
        ws = torch.empty(req.workspace_bytes, dtype=torch.uint8, device="cuda")
        op = backend.compress_into(pages, dst, ws, {"stream": torch.cuda.current_stream()})
        ...                                  # op.size_tensor[0]: the bytes to send, on the device
        op.poll()                            # True once done; never blocks

Semantics, as in the RFC: caller-owned output and workspace buffers (sizes from
buffer_requirements), stream-ordered execution on the context's stream with no allocation by
the codec and no host synchronisation, an operation with poll(), lossless output, per-page raw
fallback (a page that does not shrink travels raw inside the same stream), and the compressed
size plus the per-page manifest available in device memory (the first bytes of the output) so
the transfer engine needs no scheduler sync. On the CPU (numpy arrays, CPU torch tensors) the
same calls run synchronously and the operation is complete when it is returned.
"""
from dataclasses import dataclass

from . import SplitzipError
from .pages import PAGES_ALIGN, PageCodec, pages_bound

__all__ = ["KVCompressionSpec", "BufferRequirements", "KVCompressionOp", "SplitzipKVBackend"]


@dataclass(frozen=True)
class KVCompressionSpec:
    """What one operation moves: up to max_pages pages of at most page_bytes bytes each, of
    dtype on device ("cpu", "cuda", "cuda:N")."""
    page_bytes: int
    max_pages: int
    dtype: str = "bfloat16"
    device: str = "cpu"


@dataclass(frozen=True)
class BufferRequirements:
    """Finite bounds for one operation: the output buffer (compress: the whole stream;
    decompress: 0, the pages are the output), the workspace, and the alignment both need (page
    payloads inside the stream sit at multiples of it too)."""
    output_bytes: int
    workspace_bytes: int
    alignment: int = PAGES_ALIGN


class KVCompressionOp:
    """An enqueued or finished operation. poll() never blocks; wait() does and raises
    SplitzipError if the codec reported an error; result() waits and returns the compressed
    size (compress) or the bytes written to each page (decompress)."""

    def __init__(self, value=None, device_op=None, error=None):
        self._value = value
        self._dev = device_op
        self._error = error

    @property
    def size_tensor(self):
        """Device ops: int64 tensor [size (or page count), status] in device memory."""
        return self._dev.size_tensor if self._dev is not None else None

    def poll(self):
        return True if self._dev is None else self._dev.poll()

    def wait(self):
        if self._error is not None:
            raise self._error
        if self._dev is not None:
            self._dev.wait()
        return self

    def result(self):
        if self._error is not None:
            raise self._error
        return self._value if self._dev is None else self._dev.result()


class SplitzipKVBackend:
    """Lossless BF16 KV compression (splitzip split4 frames in one page stream per operation)."""

    name = "splitzip"
    lossless = True

    def __init__(self, *, mode="split4", codebook=None, table=None, table_id=0, checksum=True,
                 chunk_log2=0):
        self._kw = dict(mode=mode, codebook=codebook, table=table, table_id=table_id,
                        checksum=checksum, chunk_log2=chunk_log2)
        self._codecs = {}

    def _codec(self, device):
        kind = "cpu" if str(device).startswith("cpu") else "cuda"
        if kind not in self._codecs:
            self._codecs[kind] = PageCodec(backend="auto" if kind == "cpu" else "cuda", **self._kw)
        return self._codecs[kind]

    def supports(self, spec):
        """BF16 pages of an even byte size that one frame can hold, on the CPU or on a CUDA
        device when the CUDA backend is usable here."""
        if spec.dtype not in ("bfloat16", "bf16") or spec.page_bytes % 2 or spec.max_pages < 0:
            return False
        try:
            pages_bound(spec.max_pages, spec.page_bytes)
            self._codec(spec.device)
        except (ValueError, SplitzipError):
            return False
        return True

    def buffer_requirements(self, op, spec):
        """op is "compress" or "decompress"."""
        if op not in ("compress", "decompress"):
            raise ValueError("op is 'compress' or 'decompress'")
        out = pages_bound(spec.max_pages, spec.page_bytes) if op == "compress" else 0
        ws = 0
        if not str(spec.device).startswith("cpu"):
            ws = self._codec(spec.device).workspace_size(spec.max_pages, spec.page_bytes)
        return BufferRequirements(output_bytes=out, workspace_bytes=ws)

    @staticmethod
    def _stream(context):
        return (context or {}).get("stream") if isinstance(context, dict) else \
            getattr(context, "stream", None)

    def compress_into(self, src, dst, workspace=None, context=None):
        """Pack the pages 'src' (a sequence of page tensors or arrays, or one tensor whose first
        dimension indexes pages) into 'dst'. The stream's size is op.result() (CPU) or
        op.size_tensor[0] in device memory (GPU)."""
        pages = list(src)
        dev = _device_name(dst)
        codec = self._codec(dev)
        try:
            if dev == "cpu":
                return KVCompressionOp(value=codec.compress(pages, out=dst))
            return KVCompressionOp(device_op=codec.compress_async(
                pages, dst, workspace=workspace, stream=self._stream(context)))
        except SplitzipError as e:
            return KVCompressionOp(error=e)

    def decompress_into(self, src, dst, workspace=None, context=None):
        """Validate the stream in 'src' (bytes, a uint8 array or tensor; a received buffer may be
        longer than the stream) and scatter it into the pages 'dst' in place."""
        pages = list(dst)
        dev = _device_name(src)
        codec = self._codec(dev)
        try:
            if dev == "cpu":
                return KVCompressionOp(value=codec.decompress(_host_bytes(src), pages))
            return KVCompressionOp(device_op=codec.decompress_async(
                src, pages, workspace=workspace, stream=self._stream(context)))
        except SplitzipError as e:
            return KVCompressionOp(error=e)


def _device_name(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        return "cpu" if x.device.type == "cpu" else str(x.device)
    return "cuda" if hasattr(x, "__cuda_array_interface__") else "cpu"


def _host_bytes(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        import torch
        return x.contiguous().view(-1).view(torch.uint8).numpy()
    return x
