"""Page streams: a list of KV pages packed into one wire buffer, and scattered back (splitzip.h
"KV pages", doc/FORMAT.md §12, page stream version 2): a 4-byte table entry per page, the pages
that shrink coded as frames with one codebook or entropy table for the stream, the others raw.

    import splitzip
    stream = splitzip.compress_pages(pages, mode="entropy")   # bytes; checksums on by default
    splitzip.decompress_pages(stream, dst)     # fills the arrays/tensors of 'dst' in place
    splitzip.pages_info(stream)                # header and page table, validated

    codec = splitzip.PageCodec(mode="split4", codebook=splitzip.calibrate(sample), table_id=7)
    stream = codec.compress(pages)

Host pages are numpy arrays (uint16/int16 BF16 bit patterns) or CPU torch tensors (bfloat16,
int16). With a GPU backend ("cuda", "hip") PageCodec.compress_async / decompress_async take
device tensors (torch, or any object with __cuda_array_interface__ or __dlpack__); they return
a PageOp whose sizes and status live in device memory until .result() (or .wait()) reads them.
"""
import ctypes

import numpy as np

from . import SplitzipError, _as_u16, _ctx, _lib, _P, _SZ

__all__ = ["PageCodec", "PageOp", "PagesError", "compress_pages", "decompress_pages",
           "pages_bound", "pages_info", "PAGES_ALIGN", "PAGE_RAW", "PAGE_FRAME",
           "PAGE_UNTOUCHED", "PAGE_WRITTEN", "PAGE_DAMAGED"]

PAGES_ALIGN = 64
PAGE_RAW, PAGE_FRAME = 0, 1
PAGE_UNTOUCHED, PAGE_WRITTEN, PAGE_DAMAGED = 0, 1, 2
_NO_CHECKSUM, _EXACT = 1, 2
_STATE_NAMES = {PAGE_UNTOUCHED: "untouched", PAGE_WRITTEN: "written", PAGE_DAMAGED: "damaged"}
_ENC_NAMES = {1: "split4", 2: "entropy"}
_U32, _U64, _I32P = ctypes.c_uint32, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int32)


class _PagesInfo(ctypes.Structure):
    _fields_ = [("format_version", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("encoding", ctypes.c_int), ("chunk_log2", ctypes.c_uint),
                ("n_pages", _U64), ("stream_size", _U64), ("total_page_bytes", _U64),
                ("frames_size", _U64), ("table_id", _U32)]


class _Entry(ctypes.Structure):
    _fields_ = [("page_bytes", _U64), ("encoding", ctypes.c_uint), ("position", _U64)]


class PagesError(SplitzipError):
    """A page stream that failed to decode: .status/.name as SplitzipError, and .page_states,
    the state of every destination page ("untouched", "written" or "damaged"): which pages
    hold the stream's pages and which were not touched."""

    def __init__(self, status, what, page_states):
        super().__init__(status, what)
        self.page_states = page_states


for _name, _res, _args in [
    ("splitzip_pages_bound", _SZ, [_SZ, _SZ]),
    ("splitzip_pages_compress", ctypes.c_int, [_P, _U32, ctypes.c_uint, _SZ, _P, _P, _P, _SZ,
                                               ctypes.POINTER(_SZ)]),
    ("splitzip_pages_get_info", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_PagesInfo)]),
    ("splitzip_pages_get_manifest", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_Entry), _SZ,
                                                   ctypes.POINTER(_U64)]),
    ("splitzip_pages_decompress", ctypes.c_int, [_P, _P, _SZ, _SZ, _P, _P, ctypes.c_uint, _P, _P,
                                                 ctypes.POINTER(_SZ)]),
    ("splitzip_pages_workspace_size", ctypes.c_int, [_P, _SZ, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_pages_compress_async", ctypes.c_int, [_P, _U32, ctypes.c_uint, _SZ, _P, _P, _SZ,
                                                     _P, _SZ, _P, _P, _P, _SZ, _P]),
    ("splitzip_pages_decompress_async", ctypes.c_int, [_P, _P, _SZ, _SZ, _P, _P, _SZ,
                                                       ctypes.c_uint, _P, _P, _P, _P, _P, _SZ,
                                                       _P]),
]:
    _fn = getattr(_lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def pages_bound(n_pages, max_page_bytes):
    """Bytes that always hold the stream of n_pages pages of at most max_page_bytes each."""
    b = _lib.splitzip_pages_bound(n_pages, max_page_bytes)
    if b == 0:
        raise ValueError("too many pages or pages too large for one stream")
    return b


# ---- Buffers ------------------------------------------------------------------------------

def _is_device(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        return x.device.type != "cpu"
    return hasattr(x, "__cuda_array_interface__")


def _host_page(x, writable):
    """(pointer, bytes, keep-alive) of a host page. Written pages must be contiguous."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        if x.device.type != "cpu":
            raise ValueError("a device tensor given to a host call (use the *_async calls)")
        if writable and not x.is_contiguous():
            raise ValueError("destination pages must be contiguous tensors")
        t = x if x.is_contiguous() else x.contiguous()
        return t.data_ptr(), t.numel() * t.element_size(), t
    if writable:
        a = x if isinstance(x, np.ndarray) else np.asarray(x)
        if not (a.flags.c_contiguous and a.flags.writeable):
            raise ValueError("destination pages must be writable C-contiguous arrays")
        return a.ctypes.data, a.nbytes, a
    a = _as_u16(x)
    return a.ctypes.data, a.nbytes, a


def _device_page(x):
    """(pointer, bytes, keep-alive) of a device page: torch, __cuda_array_interface__, DLPack."""
    mod = type(x).__module__
    if not mod.startswith("torch") and hasattr(x, "__cuda_array_interface__"):
        cai = x.__cuda_array_interface__
        n = int(np.prod(cai["shape"])) * np.dtype(cai["typestr"]).itemsize
        if cai.get("strides") not in (None, ()):
            raise ValueError("device pages must be contiguous")
        return cai["data"][0], n, x
    if not mod.startswith("torch") and hasattr(x, "__dlpack__"):
        import torch
        x = torch.utils.dlpack.from_dlpack(x)
    if not x.is_contiguous():
        raise ValueError("device pages must be contiguous")
    return x.data_ptr(), x.numel() * x.element_size(), x


def _raise(st, what):
    if st:
        raise SplitzipError(st, what)


# ---- Host calls -----------------------------------------------------------------------------

class PageCodec:
    """A codec context for page streams. mode: "split4" (4-bit codes, the fastest), "entropy"
    (Huffman-coded exponents, about 11 % smaller) or "auto" (the smaller stream of the two);
    checksum (default True): frames and raw pages carry checksums, so damage is detected;
    chunk_log2 0: the mode's default; codebook / table: a fixed split4 codebook / entropy table
    (e.g. calibrated once per model), named in the stream by table_id. Reuse it: creating a
    context costs more than a small page list. A context serves one thread at a time."""

    def __init__(self, *, mode="split4", checksum=True, chunk_log2=0, codebook=None, table=None,
                 table_id=0, backend="auto", threads=0, codebook_id=None):
        self._ctx = None
        if codebook_id is not None:  # the name of version 1's field
            table_id = codebook_id
        if table_id and codebook is None and table is None:
            raise ValueError("table_id names a fixed codebook or table: give it too")
        self.table_id = table_id
        self.mode = mode
        self.checksum = checksum
        self.backend = backend
        self._ctx = _ctx(backend, chunk_log2, False, codebook, threads, mode, table)

    def close(self):
        if getattr(self, "_ctx", None):
            _lib.splitzip_ctx_free(self._ctx)
            self._ctx = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def _options(self):
        return 0 if self.checksum else _NO_CHECKSUM

    def compress(self, pages, out=None):
        """Pack host pages into one stream. Returns bytes, or with 'out' (a writable uint8
        buffer of at least pages_bound bytes) the stream's size, the stream at out[:size]."""
        ptrs = [_host_page(p, False) for p in pages]
        n = len(ptrs)
        arr = (ctypes.c_void_p * max(n, 1))(*[p for p, _, _ in ptrs])
        sizes = (_SZ * max(n, 1))(*[b for _, b, _ in ptrs])
        cap = pages_bound(n, max([b for _, b, _ in ptrs], default=0))
        if out is None:
            buf = ctypes.create_string_buffer(cap)
            dst, dcap = ctypes.addressof(buf), cap
        else:
            dst, dcap, _keep = _host_page(out, True)
        size = _SZ()
        _raise(_lib.splitzip_pages_compress(self._ctx, self.table_id, self._options, n, arr,
                                            sizes, dst, dcap, ctypes.byref(size)),
               "splitzip_pages_compress")
        return buf.raw[:size.value] if out is None else size.value

    def decompress(self, stream, pages, states=None, exact=False):
        """Validate the stream and scatter it into 'pages' (writable contiguous arrays or CPU
        tensors, in place). Returns the bytes of each page (0 beyond the stream's). With exact,
        the stream must hold exactly these pages, each of exactly its size (else
        ERROR_GEOMETRY, nothing written). On failure raises PagesError, whose .page_states says
        which pages were written, damaged or left untouched; 'states' (a list) receives the
        same on success and failure."""
        src = np.frombuffer(stream, dtype=np.uint8) if not isinstance(stream, np.ndarray) \
            else np.ascontiguousarray(stream).view(np.uint8).reshape(-1)
        dst = [_host_page(p, True) for p in pages]
        n = len(dst)
        arr = (ctypes.c_void_p * max(n, 1))(*[p for p, _, _ in dst])
        caps = (_SZ * max(n, 1))(*[b for _, b, _ in dst])
        out = (_SZ * max(n, 1))()
        st_arr = (ctypes.c_uint8 * max(n, 1))()
        got = _SZ()
        st = _lib.splitzip_pages_decompress(self._ctx, src.ctypes.data, src.nbytes, n, arr, caps,
                                            _EXACT if exact else 0, out, st_arr,
                                            ctypes.byref(got))
        names = [_STATE_NAMES.get(st_arr[i], str(st_arr[i])) for i in range(n)]
        if states is not None:
            states[:] = names
        if st:
            raise PagesError(st, "splitzip_pages_decompress", names)
        return [out[i] for i in range(n)]

    # ---- Device calls -------------------------------------------------------------------------

    def workspace_size(self, n_pages, max_page_bytes):
        """Device workspace bytes for up to n_pages pages of up to max_page_bytes."""
        ws = _SZ()
        _raise(_lib.splitzip_pages_workspace_size(self._ctx, n_pages, max_page_bytes,
                                                  ctypes.byref(ws)), "splitzip_pages_workspace_size")
        return ws.value

    def compress_async(self, pages, out, workspace=None, stream=None, max_page_bytes=None):
        """Enqueue the packing of device pages into 'out' (a device uint8 tensor of at least
        pages_bound bytes) on 'stream' (default: torch's current stream). Returns a PageOp;
        its size is written to device memory, no host synchronisation."""
        import torch
        dev = _device_of(out)
        pg = [_device_page(p) for p in pages]
        n = len(pg)
        maxb = max_page_bytes or max([b for _, b, _ in pg], default=0)
        ws = workspace if workspace is not None else torch.empty(
            max(self.workspace_size(n, maxb), 1), dtype=torch.uint8, device=dev)
        ptrs = torch.tensor([p for p, _, _ in pg] or [0], dtype=torch.int64, device=dev)
        sizes = torch.tensor([b for _, b, _ in pg] or [0], dtype=torch.int64, device=dev)
        res = torch.zeros(2, dtype=torch.int64, device=dev)
        s = _stream_handle(stream, dev)
        optr, ocap, _ = _device_page(out)
        wptr, wcap, _ = _device_page(ws)
        _raise(_lib.splitzip_pages_compress_async(
            self._ctx, self.table_id, self._options, n, ptrs.data_ptr(), sizes.data_ptr(), maxb,
            optr, ocap, res.data_ptr(), res.data_ptr() + 8, wptr, wcap, s),
            "splitzip_pages_compress_async")
        return PageOp(res, None, keep=(pg, ws, ptrs, sizes, out), device=dev, stream=stream)

    def decompress_async(self, stream_buf, pages, workspace=None, stream=None, src_size=None,
                         max_page_bytes=None):
        """Enqueue the validation and scatter of the page stream in 'stream_buf' (a device
        uint8 tensor; src_size bytes of it, default all) into device pages. Returns a PageOp
        whose page sizes and status are in device memory."""
        import torch
        dev = _device_of(stream_buf)
        pg = [_device_page(p) for p in pages]
        n = len(pg)
        maxb = max_page_bytes or max([b for _, b, _ in pg], default=0)
        ws = workspace if workspace is not None else torch.empty(
            max(self.workspace_size(n, maxb), 1), dtype=torch.uint8, device=dev)
        ptrs = torch.tensor([p for p, _, _ in pg] or [0], dtype=torch.int64, device=dev)
        caps = torch.tensor([b for _, b, _ in pg] or [0], dtype=torch.int64, device=dev)
        out_sizes = torch.zeros(max(n, 1), dtype=torch.int64, device=dev)
        res = torch.zeros(2, dtype=torch.int64, device=dev)
        s = _stream_handle(stream, dev)
        sptr, sbytes, _ = _device_page(stream_buf)
        wptr, wcap, _ = _device_page(ws)
        _raise(_lib.splitzip_pages_decompress_async(
            self._ctx, sptr, src_size if src_size is not None else sbytes, n, ptrs.data_ptr(),
            caps.data_ptr(), maxb, 0, out_sizes.data_ptr(), None, res.data_ptr(),
            res.data_ptr() + 8, wptr, wcap, s), "splitzip_pages_decompress_async")
        return PageOp(res, out_sizes, keep=(pg, ws, ptrs, caps, stream_buf), device=dev,
                      stream=stream)


def _device_of(x):
    mod = type(x).__module__
    if mod.startswith("torch"):
        return x.device
    import torch
    return torch.device("cuda", torch.cuda.current_device())


def _stream_handle(stream, dev):
    import torch
    if stream is None:
        stream = torch.cuda.current_stream(dev)
    return stream.cuda_stream if hasattr(stream, "cuda_stream") else int(stream)


class PageOp:
    """A page-stream operation enqueued on a device stream. Results stay in device memory
    (size_tensor: [size or page count, status]) until result() copies them to the host."""

    def __init__(self, res, page_sizes, keep, device, stream):
        import torch
        self.size_tensor = res
        self.page_sizes_tensor = page_sizes
        self._keep = keep
        self.event = torch.cuda.Event()
        self.event.record(torch.cuda.current_stream(device) if stream is None or
                          isinstance(stream, int) else stream)

    def poll(self):
        """True once the device has finished (never blocks)."""
        return self.event.query()

    def wait(self):
        self.event.synchronize()
        return self

    def result(self):
        """Wait, then return the stream size (compression) or page sizes (decompression);
        raise SplitzipError on a failed status."""
        self.wait()
        v = self.size_tensor.cpu().tolist()
        st = ctypes.c_int32(v[1] & 0xFFFFFFFF).value
        _raise(st, "page stream (device)")
        if self.page_sizes_tensor is None:
            return v[0]
        return self.page_sizes_tensor.cpu().tolist()


# ---- One-shot helpers -----------------------------------------------------------------------

def compress_pages(pages, *, mode="split4", checksum=True, **kw):
    """compress_pages(pages, mode="split4"|"entropy"|"auto", checksum=True, chunk_log2=0,
    codebook=None, table=None, table_id=0, backend="auto") -> bytes: a one-shot
    PageCodec(...).compress(pages)."""
    with PageCodec(mode=mode, checksum=checksum, **kw) as c:
        return c.compress(pages)


def decompress_pages(stream, pages, backend="auto", states=None):
    """Scatter a stream into 'pages' in place; returns the bytes of each page. PagesError on
    failure, with the state of every page."""
    with PageCodec(backend=backend) as c:
        return c.decompress(stream, pages, states)


def pages_info(stream):
    """The header and page table of a stream, validated (frame bodies are not decoded): a dict
    with format_version, mode ("split4" or "entropy"), chunk_log2, checksum, fixed_table,
    table_id, n_pages, stream_size, total_page_bytes, frames_size, and pages
    [{page_bytes, encoding: "frame"|"raw", position}]."""
    src = np.frombuffer(stream, dtype=np.uint8) if not isinstance(stream, np.ndarray) \
        else np.ascontiguousarray(stream).view(np.uint8).reshape(-1)
    info = _PagesInfo()
    _raise(_lib.splitzip_pages_get_info(src.ctypes.data, src.nbytes, ctypes.byref(info)),
           "splitzip_pages_get_info")
    n = _U64()
    entries = (_Entry * max(int(info.n_pages), 1))()
    _raise(_lib.splitzip_pages_get_manifest(src.ctypes.data, src.nbytes, entries,
                                            int(info.n_pages), ctypes.byref(n)),
           "splitzip_pages_get_manifest")
    return {"format_version": info.format_version,
            "mode": _ENC_NAMES.get(info.encoding, str(info.encoding)),
            "chunk_log2": info.chunk_log2, "checksum": bool(info.flags & 1),
            "fixed_table": bool(info.flags & 2), "table_id": info.table_id,
            "n_pages": info.n_pages, "stream_size": info.stream_size,
            "total_page_bytes": info.total_page_bytes, "frames_size": info.frames_size,
            "pages": [{"page_bytes": e.page_bytes, "position": e.position,
                       "encoding": "frame" if e.encoding == PAGE_FRAME else "raw"}
                      for e in entries[:n.value]]}
