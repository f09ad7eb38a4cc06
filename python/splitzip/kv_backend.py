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
compress_into / decompress_into and is complete when returned (it first synchronises the
context's input events). A device operation (spec.device "cuda") is enqueued on the
context's stream after that stream waits for the context's input events, and returns at
once: no allocation, no copy, no host synchronisation. Its pages are a PagedKV -- a pool
(one layer's K or V buffer of a paged KV cache) and a device int64 array of page indices
(SGLang's kv_indices in pages, vLLM's block table row) -- encoded and decoded in place by
PageCodec.compress_pool_async / decompress_pool_async; its workspace, of
buffer_requirements(...).workspace_bytes, also holds the results the kernels write (size,
status, per-page sizes and states), which poll() reads once the device is done. A list of
device tensors works too, through PageCodec.compress_async / decompress_async, which build
a device table of page addresses per call.

    layer_k = k_buffer[layer]                  # [tokens, kv_heads, head_dim], page_size per page
    spec = KVCompressionSpec(page_bytes=layer_k[0].nbytes * page_size, max_pages=512,
                             device="cuda")
    ws = torch.empty(backend.buffer_requirements("compress", spec).workspace_bytes,
                     dtype=torch.uint8, device="cuda")        # once
    kv = PagedKV(layer_k, page_indices, page_bytes=spec.page_bytes)   # int64, on the device
    op = backend.compress_into(PackedBatch(kv, spec), dst, ws,
                               context=ExecutionContext(stream=s, input_events=[ready]))
"""
import threading
from dataclasses import dataclass, field
from typing import Optional, Sequence

from . import SplitzipError
from .device import WORKSPACE_ALIGN, _numpy_view, _torch_view, default_runtime
from .pages import PAGES_ALIGN, PageCodec, PagesError, _pool_pages, pages_bound

__all__ = ["KVCompressionSpec", "BatchSpec", "PackedBatch", "EncodedBatch", "PagedKV",
           "SupportResult", "BufferRequirements", "ExecutionContext", "OperationSnapshot",
           "KVCompressionOp", "SplitzipKVBackend"]

# Spec dtypes -> splitzip dtype names (FORMAT.md §2.2). The FP8 variants with other exponent
# biases or NaN rules (fnuz) have the same bit layout: the codec keeps every pattern.
_DTYPES = {}
for _names, _dt in ((("bfloat16", "bf16"), "bf16"), (("float16", "half", "f16", "fp16"), "f16"),
                    (("float32", "float", "f32", "fp32"), "f32"),
                    (("float8_e4m3fn", "float8_e4m3fnuz", "e4m3", "fp8_e4m3"), "e4m3"),
                    (("float8_e5m2", "float8_e5m2fnuz", "e5m2", "fp8_e5m2"), "e5m2")):
    for _n in _names:
        _DTYPES[_n] = _DTYPES["torch." + _n] = _dt
_WIDTH = {"bf16": 2, "f16": 2, "f32": 4, "e4m3": 1, "e5m2": 1}
_MODES = ("split4", "entropy", "auto")


@dataclass(frozen=True)
class KVCompressionSpec:
    """What one operation moves (the RFC's BatchSpec): up to max_pages pages of exactly
    page_bytes bytes each, of dtype (bfloat16, float16, float32, float8_e4m3fn, float8_e5m2, by
    these names, torch's or splitzip's: bf16, f16, f32, e4m3, e5m2), on device ("cpu", "cuda",
    "cuda:N"); the format parameters mode ("split4", "entropy" or "auto": the backend's when
    None) and checksum. Pages may also be uint8 views of such elements (the spec says which)."""
    page_bytes: int
    max_pages: int
    dtype: str = "bfloat16"
    device: str = "cpu"
    mode: Optional[str] = None
    checksum: Optional[bool] = None


BatchSpec = KVCompressionSpec


@dataclass
class PagedKV:
    """Pages of a paged KV cache where they lie: pool, a buffer of same-size pages -- one
    layer's K (or V) buffer: a tensor whose first dimension indexes pages, a strided view of
    such pages (e.g. kv_cache[:, 0] of a [blocks, 2, ...] layout), or any contiguous buffer
    with page_bytes (and page_stride, default page_bytes) given -- and indices, a 1-D int64
    array of the pool pages in stream order (a request's page indices / block table row), in
    the pool's memory (on the device for a device spec). Page i of the stream is pool page
    indices[i]."""
    pool: object
    indices: object
    page_bytes: Optional[int] = None
    page_stride: Optional[int] = None


@dataclass
class PackedBatch:
    """The pages to compress (a PagedKV, a sequence of tensors or arrays, or one tensor whose
    first dimension indexes pages) and the spec they must match."""
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
    workspace_alignment: int = WORKSPACE_ALIGN


@dataclass
class ExecutionContext:
    """Where an operation runs: the device stream (a torch.cuda.Stream or an integer handle;
    None: torch's current stream; ignored on the CPU), and events it must wait for before it
    reads its input (device: the stream waits for them; CPU: they are synchronised first)."""
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
    (decompress). A device operation also has device_op (the PageOp: its results' device
    addresses) and event (recorded on the context's stream after the call), so that later
    work can wait for it on the device. Once the device is done, poll() copies the few
    result bytes to the host (on a copy stream of their own: nothing else is waited for)."""

    def __init__(self, snapshot=None, device_op=None, finish=None):
        self._snap = snapshot
        self._dev = device_op
        self._finish = finish  # device: builds the final snapshot from the device results

    @property
    def device_op(self):
        return self._dev

    @property
    def event(self):
        return self._dev.event if self._dev is not None else None

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
    """The splitzip dtype name of a host page's elements: "bf16" for torch.bfloat16 and
    uint16/int16 bit patterns (numpy, torch), "f16", "f32", "e4m3", "e5m2" for float16, float32
    and torch's float8 types; "uint8" for bytes (of the spec's dtype); else the dtype's name."""
    dt = getattr(x, "dtype", None)
    name = str(dt)
    if name.startswith("torch."):
        name = name[6:]
    if name in ("uint16", "int16"):
        return "bf16"
    return _DTYPES.get(name, name)


def _matches(page_dtype, spec_dtype):
    """A page of page_dtype carries elements of the spec's dtype: the same, or bytes."""
    return page_dtype == spec_dtype or page_dtype == "uint8"


def _spec_dtype(spec):
    return _DTYPES.get(str(spec.dtype))


def _nbytes(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        return x.numel() * x.element_size()
    return int(getattr(x, "nbytes", len(x)))


def _page_list(pages):
    if isinstance(pages, (list, tuple)):
        return list(pages)
    return list(pages)  # a tensor whose first dimension indexes pages, or any iterable


def _check_geometry(pages, spec, what, rt=None):
    """ValueError unless every page holds elements of the spec's dtype (or is bytes), has
    exactly spec.page_bytes in the spec's memory, and there are at most spec.max_pages of them. rt: the device runtime of a device
    spec, which checks that each page is device memory for it."""
    if len(pages) > spec.max_pages:
        raise ValueError(f"{what}: {len(pages)} pages, the spec allows {spec.max_pages}")
    want = "cpu" if str(spec.device).startswith("cpu") else "cuda"
    for i, p in enumerate(pages):
        dtype = _DTYPES.get(rt.dtype_name(p), "?") if rt is not None else _dtype_name(p)
        if not _matches(dtype, _spec_dtype(spec)):
            raise ValueError(f"{what}: page {i} is {getattr(p, 'dtype', dtype)}, the spec says "
                             f"{spec.dtype}")
        n = rt.buffer(p, f"{what}: page {i}")[1] if rt is not None else _nbytes(p)
        if n != spec.page_bytes:
            raise ValueError(f"{what}: page {i} has {n} bytes, the spec says {spec.page_bytes}")
        if rt is None and _kind(p) != want:
            raise ValueError(f"{what}: page {i} is on {_kind(p)}, the spec says {spec.device}")


def _count(x):
    cai = getattr(x, "__cuda_array_interface__", None)
    return int(cai["shape"][0]) if cai is not None and type(x).__module__[:5] != "torch" \
        else len(x)


def _check_paged(kv, spec, what, rt=None):
    """ValueError unless the PagedKV's pool holds pages of the spec's dtype (or bytes) of
    spec.page_bytes and it names
    at most spec.max_pages of them. rt: the device runtime of a device spec (else the pool
    must be host memory). Returns (the pool's view, page bytes, stride)."""
    if rt is not None:
        view, _ = rt.pool_view(kv.pool, f"{what}: pool")
        dtype = _DTYPES.get(rt.dtype_name(kv.pool), "?")
    else:
        if _kind(kv.pool) != "cpu" or _kind(kv.indices) != "cpu":
            raise ValueError(f"{what}: a device pool or indices with the spec's device "
                             f"{spec.device}")
        view = _torch_view(kv.pool) if type(kv.pool).__module__.startswith("torch") else \
            _numpy_view(kv.pool)
        dtype = _dtype_name(kv.pool)
    if not _matches(dtype, _spec_dtype(spec)):
        raise ValueError(f"{what}: the pool is {dtype}, the spec says {spec.dtype}")
    pb, stride = _pool_pages(view, kv.page_bytes, kv.page_stride)
    if pb != spec.page_bytes:
        raise ValueError(f"{what}: pool pages of {pb} bytes, the spec says {spec.page_bytes}")
    if _count(kv.indices) > spec.max_pages:
        raise ValueError(f"{what}: {_count(kv.indices)} pages, the spec allows "
                         f"{spec.max_pages}")
    return view, pb, stride


def _host_pages(kv, spec, what):
    """The pages a host PagedKV names, as views of its pool (no copy). An index outside the
    pool is a ValueError (on the device it is the kernels' INVALID_ARGUMENT)."""
    import numpy as np
    view, pb, stride = _check_paged(kv, spec, what)
    pool, base = kv.pool, None
    bf16 = _spec_dtype(spec) == "bf16"
    if view.contiguous:  # one flat view of the pool's bytes: uint16 for BF16, else uint8
        if bf16 and stride % 2:
            raise ValueError(f"{what}: a page stride of {stride} bytes misaligns BF16 pages")
        if type(pool).__module__.startswith("torch"):
            import torch
            base = pool.reshape(-1).view(torch.int16 if bf16 else torch.uint8).numpy()
        else:
            base = pool.reshape(-1).view(np.uint16 if bf16 else np.uint8)
    idx = kv.indices.tolist() if hasattr(kv.indices, "tolist") else list(kv.indices)
    pages = []
    for i, k in enumerate(int(k) for k in idx):
        if k < 0 or k * stride + pb > view.nbytes:  # the library's rule for pool indices
            raise ValueError(f"{what}: index {i} names pool page {k}, outside the pool")
        u = 2 if bf16 else 1
        pages.append(pool[k] if base is None else base[k * stride // u:(k * stride + pb) // u])
    return pages


# ---- The backend ----------------------------------------------------------------------------

class SplitzipKVBackend:
    """Lossless KV compression of BF16, FP16, FP32 and FP8 (E4M3, E5M2) pages: one splitzip page
    stream per operation (pages that do not shrink travel raw inside it; pages other than BF16
    on the CPU, BF16 on the CPU and on CUDA devices). mode: "split4" (fastest), "entropy" (about 11 % smaller) or
    "auto"; checksum (default on): damage in transit is detected; codebook / table with
    table_id: a fixed split4 codebook / entropy table calibrated once per model. spec: the
    default spec of operations whose batch carries none. runtime: the device runtime of device
    operations (splitzip.device; default: default_runtime(), torch). Safe to share between
    threads."""

    name = "splitzip"
    lossless = True

    def __init__(self, *, mode="split4", codebook=None, table=None, table_id=0, checksum=True,
                 chunk_log2=0, spec=None, runtime=None):
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {', '.join(_MODES)}, got {mode!r}")
        self._kw = dict(codebook=codebook, table=table, table_id=table_id, chunk_log2=chunk_log2)
        self.mode = mode
        self.checksum = checksum
        self.spec = spec
        self._runtime = runtime
        self._codecs = {}
        self._lock = threading.Lock()

    @property
    def runtime(self):
        if self._runtime is None:
            self._runtime = default_runtime()
        return self._runtime

    def _codec(self, device, mode, checksum):
        key = ("cpu" if str(device).startswith("cpu") else "cuda", mode, checksum)
        with self._lock:
            if key not in self._codecs:
                self._codecs[key] = PageCodec(
                    backend="auto" if key[0] == "cpu" else "cuda", mode=mode,
                    checksum=checksum, runtime=None if key[0] == "cpu" else self.runtime,
                    **self._kw)
            return self._codecs[key]

    def _format(self, spec):
        mode = spec.mode if spec is not None and spec.mode is not None else self.mode
        ck = spec.checksum if spec is not None and spec.checksum is not None else self.checksum
        return mode, ck

    # ---- supports / buffer_requirements -----------------------------------------------------

    def supports(self, spec):
        """SupportResult: pages of BF16, FP16, FP32, FP8 E4M3 or E5M2 of a positive size in
        whole elements, up to 2^31 - 1 of them, on the CPU; BF16 pages also on a CUDA device
        when the cuda backend and the device runtime (torch with CUDA, or the SIMT host
        runtime) are usable here; the reason when not. Never raises."""
        try:
            dtype = _spec_dtype(spec)
            if dtype is None:
                return SupportResult(False, f"dtype {spec.dtype!r}: splitzip page streams carry "
                                            "bfloat16, float16, float32, float8_e4m3fn and "
                                            "float8_e5m2 pages")
            w = _WIDTH[dtype]
            if spec.page_bytes <= 0 or spec.page_bytes % w:
                return SupportResult(False, f"page_bytes {spec.page_bytes}: {dtype} pages have "
                                            f"a positive size, a multiple of {w}")
            if spec.max_pages < 0 or pages_bound(spec.max_pages, spec.page_bytes, dtype) <= 0:
                return SupportResult(False, "more pages or larger pages than one stream holds")
            mode, _ = self._format(spec)
            if mode not in _MODES:
                return SupportResult(False, f"mode {mode!r}: one of {', '.join(_MODES)}")
            if not str(spec.device).startswith("cpu"):
                if dtype != "bf16":
                    return SupportResult(False, f"dtype {spec.dtype!r} on {spec.device}: device "
                                                "page streams carry BF16 pages only")
                return self._device_support(spec)
            return SupportResult(True)
        except Exception as e:  # a malformed spec is an answer, not a crash
            return SupportResult(False, f"{type(e).__name__}: {e}")

    def _device_support(self, spec):
        from . import backends
        if not str(spec.device).startswith("cuda"):
            return SupportResult(False, f"device {spec.device!r}: cpu or cuda")
        if not dict(backends()).get("cuda"):
            return SupportResult(False, "the cuda backend is not usable here: " +
                                 _unavailable_reason("cuda"))
        try:
            rt = self.runtime
        except (RuntimeError, ValueError) as e:  # a runtime asked for that cannot start
            return SupportResult(False, f"device runtime: {e}")
        ok, why = rt.available()
        return SupportResult(True) if ok else SupportResult(False, why)

    def buffer_requirements(self, operation, spec):
        """BufferRequirements for operation "compress" or "decompress" of up to spec.max_pages
        pages: the output (the bound of the stream; 0 for decompress) and the workspace (0 on
        the CPU; on a device, PageCodec.device_workspace_size: the library's workspace and the
        result slots, WORKSPACE_ALIGN-aligned). ValueError for another operation or a spec
        supports() refuses."""
        if operation not in ("compress", "decompress"):
            raise ValueError("operation is 'compress' or 'decompress'")
        ok = self.supports(spec)
        if not ok:
            raise ValueError(f"unsupported spec: {ok.reason}")
        out = pages_bound(spec.max_pages, spec.page_bytes, _spec_dtype(spec)) \
            if operation == "compress" else 0
        ws = 0
        if not str(spec.device).startswith("cpu"):
            mode, ck = self._format(spec)
            ws = self._codec(spec.device, mode, ck).device_workspace_size(
                spec.max_pages, spec.page_bytes, operation)
        return BufferRequirements(output_bytes=out, workspace_bytes=ws)

    # ---- compress_into / decompress_into ---------------------------------------------------

    def _spec_of(self, batch, context, pages):
        spec = getattr(batch, "spec", None) or getattr(context, "spec", None) or \
            (context.get("spec") if isinstance(context, dict) else None) or self.spec
        if spec is None and isinstance(pages, PagedKV):
            raise ValueError("a PagedKV needs a spec (page_bytes, max_pages, device)")
        if spec is None:  # none given: the pages' own geometry, checked for consistency
            first = pages[0] if pages else None
            spec = KVCompressionSpec(page_bytes=_nbytes(first) if first is not None else 2,
                                     max_pages=len(pages),
                                     dtype=_dtype_name(first) if first is not None else "bf16",
                                     device=_kind(first) if first is not None else "cpu")
        return spec

    def _prepare(self, batch, pages, context, what):
        """(spec, codec, pages, device?) of an operation, its geometry checked; ValueError or
        the reason supports() gives (as ValueError) when it cannot run."""
        if not isinstance(pages, PagedKV):
            pages = _page_list(pages)
        spec = self._spec_of(batch, context, pages)
        ok = self.supports(spec)
        if not ok:
            raise _Refused(ok.reason)
        device = not str(spec.device).startswith("cpu")
        codec = self._codec(spec.device, *self._format(spec))
        rt = codec.runtime if device else None
        if isinstance(pages, PagedKV):
            if device:
                _check_paged(pages, spec, what, rt)
            else:
                pages = _host_pages(pages, spec, what)
        else:
            _check_geometry(pages, spec, what, rt)
        if not device:
            for ev in _events_of(context):  # the CPU reads the pages now: they must be ready
                ev.synchronize()
        return spec, codec, pages, device

    def compress_into(self, src, dst, workspace=None, *, context=None):
        """Pack the pages of 'src' (a PackedBatch, or the pages themselves: a PagedKV, a
        sequence of tensors or arrays, or one tensor whose first dimension indexes pages) into
        'dst'. Device: 'workspace' of buffer_requirements("compress", spec).workspace_bytes
        (required for a PagedKV). Returns a KVCompressionOp; errors come back in it, never as
        exceptions."""
        try:
            spec, codec, pages, device = self._prepare(src, getattr(src, "pages", src),
                                                       context, "compress_into")
            if not device:
                size = codec.compress(pages, out=dst, dtype=_spec_dtype(spec))
                return KVCompressionOp(self._compressed(size, dst))
            return self._compress_device(codec, pages, dst, workspace, context)
        except _Refused as e:
            return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", str(e)))
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
        (a PagedKV or a sequence of pages) in place. The stream must hold exactly these pages
        (the spec's geometry), else nothing is written. Device: 'workspace' as for
        compress_into. Returns a KVCompressionOp whose snapshot says, per page, whether it was
        written, damaged or left untouched; errors come back in it, never as exceptions."""
        try:
            spec, codec, pages, device = self._prepare(src, dst, context, "decompress_into")
            data, size = (src.data, src.size) if isinstance(src, EncodedBatch) else (src, None)
            if not device:
                return KVCompressionOp(self._decompressed(codec, data, size, pages, spec))
            return self._decompress_device(codec, data, size, pages, workspace, context)
        except _Refused as e:
            return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", str(e)))
        except SplitzipError as e:
            return KVCompressionOp(_failed(e.name, str(e)))
        except Exception as e:
            return KVCompressionOp(_failed("ERROR_INVALID_ARGUMENT", f"{type(e).__name__}: {e}"))

    @staticmethod
    def _decompressed(codec, data, size, pages, spec):
        from .pages import pages_info
        view = _host_view(data, size)
        states = []
        try:  # the header names the pages' dtype; a bad header is the decoder's to report
            got = pages_info(view, header_only=True)["dtype"]
        except SplitzipError:
            got = None
        if got is not None and got != _spec_dtype(spec):
            return _failed("ERROR_GEOMETRY", f"the stream holds {got} pages, the spec says "
                                             f"{spec.dtype}: nothing written",
                           ("untouched",) * len(pages))
        try:
            sizes = codec.decompress(view, pages, states=states, exact=True)
        except PagesError as e:
            return _failed(e.name, str(e), tuple(e.page_states))
        return OperationSnapshot("succeeded", True, sum(sizes), tuple(states), tuple(sizes))

    # ---- device ------------------------------------------------------------------------------

    @staticmethod
    def _compress_device(codec, pages, dst, workspace, context):
        stream, events = _stream_of(context), _events_of(context)
        if isinstance(pages, PagedKV):
            dev = codec.compress_pool_async(pages.pool, pages.indices, dst, workspace, stream,
                                            events, page_bytes=pages.page_bytes,
                                            page_stride=pages.page_stride)
        else:
            dev = codec.compress_async(pages, dst, workspace, stream, wait_events=events)

        def finish(d):
            r = _read(d)
            if isinstance(r, OperationSnapshot):
                return r
            if r.status:
                return _failed(r.name, _reason("device page stream compression", r))
            return OperationSnapshot("succeeded", True, r.size, d.page_encodings())
        return KVCompressionOp(device_op=dev, finish=finish)

    @staticmethod
    def _decompress_device(codec, data, size, pages, workspace, context):
        stream, events = _stream_of(context), _events_of(context)
        if isinstance(pages, PagedKV):
            dev = codec.decompress_pool_async(data, size, pages.pool, pages.indices, workspace,
                                              stream, events, exact=True,
                                              page_bytes=pages.page_bytes,
                                              page_stride=pages.page_stride)
        else:
            dev = codec.decompress_async(data, pages, workspace, stream, size,
                                         wait_events=events, exact=True)

        def finish(d):
            r = _read(d)
            if isinstance(r, OperationSnapshot):
                return r
            if r.status:
                return _failed(r.name, _reason("device page stream decompression", r),
                               r.page_states)
            return OperationSnapshot("succeeded", True, sum(r.page_sizes), r.page_states,
                                     r.page_sizes)
        return KVCompressionOp(device_op=dev, finish=finish)


class _Refused(ValueError):
    """A spec supports() refuses: its reason, reported in the operation."""


def _read(d):
    """The PageResult of a device call, or a failed snapshot if its results are gone (its
    workspace went to a later call before they were read)."""
    try:
        return d.read()
    except RuntimeError as e:
        return _failed("ERROR_INVALID_ARGUMENT", str(e))


def _reason(what, r):
    from . import _lib
    return f"{what}: {r.name} ({_lib.splitzip_error_string(r.status).decode()})"


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
