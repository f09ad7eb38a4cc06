"""A KV compression backend with the operation model of SGLang's RFC #39740 ("Pluggable KV
Compression for Disaggregated Serving"), over splitzip page streams (doc/FORMAT.md §12). No
SGLang import is needed: the serving stack calls these methods (doc/INTEGRATION.md shows
where).

    backend = SplitzipKVBackend(mode="entropy")
    spec = KVCompressionSpec(page_bytes=2048, max_pages=512, device="cpu")
    if not (ok := backend.supports(spec)):
        print(ok.reason)                                   # why not
    req = backend.buffer_requirements("compress", spec)    # finite bounds, alignment
    dst = torch.empty(req.output_bytes, dtype=torch.uint8)
    op = backend.compress_into(PackedBatch(pages, spec), dst, None, context=ExecutionContext())
    snap = op.poll()                                       # OperationSnapshot, never blocks
    snap.outcome, snap.output_bytes, snap.page_status      # "succeeded", bytes, "coded"/"raw"

What the RFC asks for, and where it is here:

- supports(spec) -> SupportResult with a reason when the answer is no (dtype, page size,
  device, a backend that is not usable here);
- buffer_requirements(operation, spec) -> BufferRequirements: finite output and workspace
  bounds and their alignment, host and device;
- compress_into / decompress_into(src, dst, workspace, *, context) on caller-owned buffers:
  data errors and bad arguments never raise, they come back in the operation (outcome
  "failed", a status name and a reason); the geometry (dtype, page bytes, count) is checked
  against the spec before anything reaches the codec;
- the operation's poll() returns an OperationSnapshot: outcome pending / succeeded / failed,
  whether the caller's buffers are free again, the output size, the per-page status (compress:
  coded or raw; decompress: written, damaged or untouched, so a failed transfer says which
  pages hold valid data); wait() blocks until it is done and returns the snapshot;
- one backend may be used from many threads at once (the engine's per-layer executors): its
  codec contexts are shared and thread-safe (splitzip.h, "Threads").

On the CPU (numpy arrays, CPU torch tensors) an operation runs synchronously inside
compress_into / decompress_into and is complete when returned. Device operations (CUDA
tensors) are stream-ordered: see PageCodec.compress_async / decompress_async.
"""
import threading
from dataclasses import dataclass, field
from typing import Optional, Sequence

from . import SplitzipError
from .pages import PAGES_ALIGN, PageCodec, PagesError, pages_bound

__all__ = ["KVCompressionSpec", "BatchSpec", "PackedBatch", "EncodedBatch", "SupportResult",
           "BufferRequirements", "ExecutionContext", "OperationSnapshot", "KVCompressionOp",
           "SplitzipKVBackend"]

_DTYPES = {"bfloat16": "bfloat16", "bf16": "bfloat16", "torch.bfloat16": "bfloat16"}
_MODES = ("split4", "entropy", "auto")


@dataclass(frozen=True)
class KVCompressionSpec:
    """What one operation moves (the RFC's BatchSpec): up to max_pages pages of exactly
    page_bytes bytes each, of dtype, on device ("cpu", "cuda", "cuda:N"); the format parameters
    mode ("split4", "entropy" or "auto": the backend's when None) and checksum."""
    page_bytes: int
    max_pages: int
    dtype: str = "bfloat16"
    device: str = "cpu"
    mode: Optional[str] = None
    checksum: Optional[bool] = None


BatchSpec = KVCompressionSpec


@dataclass
class PackedBatch:
    """The pages to compress (a sequence of tensors or arrays, or one tensor whose first
    dimension indexes pages) and the spec they must match."""
    pages: object
    spec: Optional[KVCompressionSpec] = None


@dataclass
class EncodedBatch:
    """A received page stream (bytes, a uint8 array or tensor; it may be longer than the stream)
    and the spec of the pages it must decode to."""
    data: object
    spec: Optional[KVCompressionSpec] = None
    size: Optional[int] = None


@dataclass(frozen=True)
class SupportResult:
    """The answer of supports(): true or false, and why not. Truthy like a bool."""
    supported: bool
    reason: Optional[str] = None

    def __bool__(self):
        return self.supported


@dataclass(frozen=True)
class BufferRequirements:
    """Finite bounds for one operation: the output buffer (compress: the whole stream;
    decompress: 0, the pages are the output) and the workspace, in bytes, and the alignment
    both must have."""
    output_bytes: int
    workspace_bytes: int
    alignment: int = PAGES_ALIGN
    workspace_alignment: int = 16


@dataclass
class ExecutionContext:
    """Where an operation runs: the device stream (None on the CPU, or torch's current stream),
    and events it must wait for before it reads its input."""
    stream: object = None
    input_events: Sequence = field(default_factory=tuple)
    spec: Optional[KVCompressionSpec] = None


@dataclass(frozen=True)
class OperationSnapshot:
    """The state of an operation at one moment. outcome: "pending", "succeeded" or "failed";
    resources_released: the caller may reuse the source, output and workspace buffers;
    output_bytes: the stream's size (compress), or the bytes of all pages (decompress);
    page_status: per page "coded"/"raw" (compress) or "written"/"damaged"/"untouched"
    (decompress); status/reason: the splitzip status name and a sentence, on failure."""
    outcome: str
    resources_released: bool
    output_bytes: Optional[int] = None
    page_status: Optional[tuple] = None
    page_bytes: Optional[tuple] = None
    status: Optional[str] = None
    reason: Optional[str] = None

    @property
    def done(self):
        return self.outcome != "pending"


class KVCompressionOp:
    """An operation: poll() never blocks and returns an OperationSnapshot; wait() blocks until
    the operation is done and returns the final snapshot; result() is wait() that raises
    SplitzipError on failure and returns the output size (compress) or page sizes
    (decompress)."""

    def __init__(self, snapshot=None, device_op=None, finish=None):
        self._snap = snapshot
        self._dev = device_op
        self._finish = finish  # device: builds the final snapshot from the device results

    def poll(self):
        if self._snap is None and self._dev is not None and self._dev.poll():
            self._snap = self._finish(self._dev)
        if self._snap is None:
            return OperationSnapshot("pending", False)
        return self._snap

    def wait(self, timeout=None):
        if self._snap is None and self._dev is not None:
            self._dev.wait()
            self._snap = self._finish(self._dev)
        return self._snap

    def result(self):
        s = self.wait()
        if s.outcome == "failed":
            raise SplitzipError(_status_number(s.status), s.reason or "operation failed")
        return s.output_bytes if s.page_bytes is None else list(s.page_bytes)


def _status_number(name):
    from . import _STATUS_NAMES
    return _STATUS_NAMES.index(name) if name in _STATUS_NAMES else 1


def _failed(status, reason, page_status=None):
    return OperationSnapshot("failed", True, None, page_status, None, status, reason)


# ---- Pages and their geometry ---------------------------------------------------------------

def _kind(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        return "cpu" if x.device.type == "cpu" else "cuda"
    return "cuda" if hasattr(x, "__cuda_array_interface__") else "cpu"


def _dtype_name(x):
    """"bfloat16" for BF16 pages: torch.bfloat16, or uint16/int16 bit patterns (numpy, torch)."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        import torch
        return {torch.bfloat16: "bfloat16", torch.int16: "bfloat16"}.get(x.dtype, str(x.dtype))
    dt = getattr(x, "dtype", None)
    return "bfloat16" if str(dt) in ("uint16", "int16") else str(dt)


def _nbytes(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        return x.numel() * x.element_size()
    return int(getattr(x, "nbytes", len(x)))


def _page_list(pages):
    if isinstance(pages, (list, tuple)):
        return list(pages)
    return list(pages)  # a tensor whose first dimension indexes pages, or any iterable


def _check_geometry(pages, spec, what):
    """ValueError unless every page is a BF16 page of exactly spec.page_bytes on the spec's
    device, and there are at most spec.max_pages of them."""
    if len(pages) > spec.max_pages:
        raise ValueError(f"{what}: {len(pages)} pages, the spec allows {spec.max_pages}")
    want = "cpu" if str(spec.device).startswith("cpu") else "cuda"
    for i, p in enumerate(pages):
        if _dtype_name(p) != _DTYPES.get(spec.dtype, spec.dtype):
            raise ValueError(f"{what}: page {i} is {_dtype_name(p)}, the spec says {spec.dtype}")
        if _nbytes(p) != spec.page_bytes:
            raise ValueError(f"{what}: page {i} has {_nbytes(p)} bytes, the spec says "
                             f"{spec.page_bytes}")
        if _kind(p) != want:
            raise ValueError(f"{what}: page {i} is on {_kind(p)}, the spec says {spec.device}")


# ---- The backend ----------------------------------------------------------------------------

class SplitzipKVBackend:
    """Lossless BF16 KV compression: one splitzip page stream per operation (pages that do not
    shrink travel raw inside it). mode: "split4" (fastest), "entropy" (about 11 % smaller) or
    "auto"; checksum (default on): damage in transit is detected; codebook / table with
    table_id: a fixed split4 codebook / entropy table calibrated once per model. spec: the
    default spec of operations whose batch carries none. Safe to share between threads."""

    name = "splitzip"
    lossless = True

    def __init__(self, *, mode="split4", codebook=None, table=None, table_id=0, checksum=True,
                 chunk_log2=0, spec=None):
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {', '.join(_MODES)}, got {mode!r}")
        self._kw = dict(codebook=codebook, table=table, table_id=table_id, chunk_log2=chunk_log2)
        self.mode = mode
        self.checksum = checksum
        self.spec = spec
        self._codecs = {}
        self._lock = threading.Lock()

    def _codec(self, device, mode, checksum):
        key = ("cpu" if str(device).startswith("cpu") else "cuda", mode, checksum)
        with self._lock:
            if key not in self._codecs:
                self._codecs[key] = PageCodec(
                    backend="auto" if key[0] == "cpu" else "cuda", mode=mode,
                    checksum=checksum, **self._kw)
            return self._codecs[key]

    def _format(self, spec):
        mode = spec.mode if spec is not None and spec.mode is not None else self.mode
        ck = spec.checksum if spec is not None and spec.checksum is not None else self.checksum
        return mode, ck

    # ---- supports / buffer_requirements -----------------------------------------------------

    def supports(self, spec):
        """SupportResult: BF16 pages of an even size up to 2^32 - 2 bytes, on the CPU or on a CUDA
        device when the CUDA backend is usable here; the reason when not. Never raises."""
        try:
            dtype = _DTYPES.get(spec.dtype)
            if dtype is None:
                return SupportResult(False, f"dtype {spec.dtype!r}: splitzip page streams carry "
                                            "BF16 pages")
            if spec.page_bytes <= 0 or spec.page_bytes % 2:
                return SupportResult(False, f"page_bytes {spec.page_bytes}: BF16 pages have a "
                                            "positive even size")
            if spec.max_pages < 0 or pages_bound(spec.max_pages, spec.page_bytes) <= 0:
                return SupportResult(False, "more pages or larger pages than one stream holds")
            mode, _ = self._format(spec)
            if mode not in _MODES:
                return SupportResult(False, f"mode {mode!r}: one of {', '.join(_MODES)}")
            if not str(spec.device).startswith("cpu"):
                return self._device_support(spec)
            return SupportResult(True)
        except Exception as e:  # a malformed spec is an answer, not a crash
            return SupportResult(False, f"{type(e).__name__}: {e}")

    def _device_support(self, spec):
        from . import backends
        if not str(spec.device).startswith("cuda"):
            return SupportResult(False, f"device {spec.device!r}: cpu or cuda")
        usable = dict(backends()).get("cuda")
        if not usable:
            return SupportResult(False, "the cuda backend is not usable here: " +
                                 _unavailable_reason("cuda"))
        try:
            import torch
            if not torch.cuda.is_available():
                return SupportResult(False, "torch sees no CUDA device")
        except ImportError:
            return SupportResult(False, "device pages need torch")
        return SupportResult(True)

    def buffer_requirements(self, operation, spec):
        """BufferRequirements for operation "compress" or "decompress" of up to spec.max_pages
        pages: the output (the bound of the stream; 0 for decompress) and the workspace (0 on
        the CPU). ValueError for another operation or a spec supports() refuses."""
        if operation not in ("compress", "decompress"):
            raise ValueError("operation is 'compress' or 'decompress'")
        ok = self.supports(spec)
        if not ok:
            raise ValueError(f"unsupported spec: {ok.reason}")
        out = pages_bound(spec.max_pages, spec.page_bytes) if operation == "compress" else 0
        ws = 0
        if not str(spec.device).startswith("cpu"):
            mode, ck = self._format(spec)
            ws = self._codec(spec.device, mode, ck).workspace_size(spec.max_pages, spec.page_bytes)
        return BufferRequirements(output_bytes=out, workspace_bytes=ws)

    # ---- compress_into / decompress_into ---------------------------------------------------

    def _spec_of(self, batch, context, pages):
        spec = getattr(batch, "spec", None) or getattr(context, "spec", None) or \
            (context.get("spec") if isinstance(context, dict) else None) or self.spec
        if spec is None:  # none given: the pages' own geometry, checked for consistency
            first = pages[0] if pages else None
            spec = KVCompressionSpec(page_bytes=_nbytes(first) if first is not None else 2,
                                     max_pages=len(pages),
                                     dtype=_dtype_name(first) if first is not None else "bfloat16",
                                     device=_kind(first) if first is not None else "cpu")
        return spec

    def compress_into(self, src, dst, workspace=None, *, context=None):
        """Pack the pages of 'src' (a PackedBatch, or the pages themselves: a sequence of
        tensors or arrays, or one tensor whose first dimension indexes pages) into 'dst'.
        Returns a KVCompressionOp; errors come back in it, never as exceptions."""
        try:
            pages = _page_list(getattr(src, "pages", src))
            spec = self._spec_of(src, context, pages)
            ok = self.supports(spec)
            if not ok:
                return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", ok.reason))
            _check_geometry(pages, spec, "compress_into")
            mode, ck = self._format(spec)
            codec = self._codec(spec.device, mode, ck)
            if str(spec.device).startswith("cpu"):
                return KVCompressionOp(self._compressed(codec.compress(pages, out=dst), dst))
            return self._compress_device(codec, pages, dst, workspace, context)
        except SplitzipError as e:
            return KVCompressionOp(_failed(e.name, str(e)))
        except Exception as e:  # a bad argument: reported in the operation
            return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", f"{type(e).__name__}: {e}"))

    @staticmethod
    def _compressed(size, dst):
        from .pages import pages_info
        info = pages_info(_host_view(dst, size))
        status = tuple("coded" if p["encoding"] == "frame" else "raw" for p in info["pages"])
        return OperationSnapshot("succeeded", True, size, status)

    def decompress_into(self, src, dst, workspace=None, *, context=None):
        """Validate the stream in 'src' (an EncodedBatch, or the stream itself: bytes, a uint8
        array or tensor, possibly longer than the stream) and scatter it into the pages 'dst'
        in place. The stream must hold exactly these pages (the spec's geometry), else nothing
        is written. Returns a KVCompressionOp whose snapshot says, per page, whether it was
        written, damaged or left untouched; errors come back in it, never as exceptions."""
        try:
            pages = _page_list(dst)
            spec = self._spec_of(src, context, pages)
            ok = self.supports(spec)
            if not ok:
                return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", ok.reason))
            _check_geometry(pages, spec, "decompress_into")
            data, size = (src.data, src.size) if isinstance(src, EncodedBatch) else (src, None)
            mode, ck = self._format(spec)
            codec = self._codec(spec.device, mode, ck)
            if str(spec.device).startswith("cpu"):
                return KVCompressionOp(self._decompressed(codec, data, size, pages))
            return self._decompress_device(codec, data, size, pages, workspace, context)
        except SplitzipError as e:
            return KVCompressionOp(_failed(e.name, str(e)))
        except Exception as e:
            return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", f"{type(e).__name__}: {e}"))

    @staticmethod
    def _decompressed(codec, data, size, pages):
        states = []
        try:
            sizes = codec.decompress(_host_view(data, size), pages, states=states, exact=True)
        except PagesError as e:
            return _failed(e.name, str(e), tuple(e.page_states))
        return OperationSnapshot("succeeded", True, sum(sizes), tuple(states), tuple(sizes))

    # ---- device ------------------------------------------------------------------------------

    def _compress_device(self, codec, pages, dst, workspace, context):
        dev = codec.compress_async(pages, dst, workspace=workspace, stream=_stream_of(context),
                                   wait_events=_events_of(context))

        def finish(d):
            try:
                return self._compressed(d.result(), dst)
            except SplitzipError as e:
                return _failed(e.name, str(e))
        return KVCompressionOp(device_op=dev, finish=finish)

    def _decompress_device(self, codec, data, size, pages, workspace, context):
        dev = codec.decompress_async(data, pages, workspace=workspace, stream=_stream_of(context),
                                     src_size=size, wait_events=_events_of(context), exact=True)

        def finish(d):
            try:
                sizes = d.result()
                return OperationSnapshot("succeeded", True, sum(sizes),
                                         tuple(["written"] * len(sizes)), tuple(sizes))
            except PagesError as e:
                return _failed(e.name, str(e), tuple(e.page_states))
            except SplitzipError as e:
                return _failed(e.name, str(e))
        return KVCompressionOp(device_op=dev, finish=finish)


def _stream_of(context):
    if isinstance(context, dict):
        return context.get("stream")
    return getattr(context, "stream", None)


def _events_of(context):
    if isinstance(context, dict):
        return tuple(context.get("input_events", ()))
    return tuple(getattr(context, "input_events", ()) or ())


def _host_view(x, size=None):
    """A host buffer (bytes or a numpy uint8 view) of x, the first 'size' bytes if given."""
    import numpy as np
    mod = type(x).__module__
    if mod.startswith("torch"):
        import torch
        x = x.contiguous().view(-1).view(torch.uint8).numpy()
    if isinstance(x, (bytes, bytearray, memoryview)):
        x = np.frombuffer(x, dtype=np.uint8)
    x = np.ascontiguousarray(x).view(np.uint8).reshape(-1)
    return x if size is None else x[:size]


def _unavailable_reason(name):
    import ctypes
    from . import _lib
    fn = _lib.splitzip_backend_unavailable_reason
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_size_t]
    for i in range(_lib.splitzip_backend_count()):
        if _lib.splitzip_backend_name(i).decode() == name:
            why = _lib.splitzip_backend_unavailable_reason(i)
            return why.decode() if why else "usable"
    return "not compiled into this library"
