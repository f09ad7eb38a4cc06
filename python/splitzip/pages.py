"""Page streams: a list of KV pages packed into one wire buffer, and scattered back (splitzip.h
"KV pages", doc/FORMAT.md §12, page stream versions 2 and 3): a 4-byte table entry per page, the
pages that shrink coded as frames with one codebook or entropy table for the stream, the others
raw.

    import splitzip
    stream = splitzip.compress_pages(pages, mode="entropy")   # bytes; checksums on by default
    splitzip.decompress_pages(stream, dst)     # fills the arrays/tensors of 'dst' in place
    splitzip.pages_info(stream)                # header and page table, validated

    codec = splitzip.PageCodec(mode="split4", codebook=splitzip.calibrate(sample), table_id=7)
    stream = codec.compress(pages)

Host pages are numpy arrays (uint16/int16 BF16 bit patterns, float16, float32) or CPU torch
tensors (bfloat16, int16, float16, float32, float8_e4m3fn, float8_e5m2); raw bytes (uint8) of
any of these with dtype="bf16" | "f16" | "f32" | "e4m3" | "e5m2". The pages of one stream have
one dtype: BF16 pages make a version 2 stream, the others version 3, which names the dtype
(pages_info(stream)["dtype"]); decompress takes any dtype into pages of the right sizes. The
device (*_async) calls move BF16 pages only. With a GPU backend ("cuda", "hip") the *_async calls work on device memory, stream
ordered, and return a PageOp whose results (size, status, page sizes and states) the kernels
write into the caller's workspace, in device memory, until PageOp.read() / result() copies
them to the host:

    codec = splitzip.PageCodec(backend="cuda")
    ws = torch.empty(codec.device_workspace_size(n, page_bytes), dtype=torch.uint8,
                     device="cuda")                      # once; holds the results too
    op = codec.compress_pool_async(k_pool, page_indices, out, ws, stream=s,
                                   wait_events=[kv_ready])   # no allocation, no sync
    ...
    size = op.result()                                   # the caller's sync, when it wants

compress_pool_async / decompress_pool_async take a pool of same-size pages (a paged KV cache)
and a device int64 index array (its block table or kv_indices): nothing is allocated or
copied per call. compress_async / decompress_async take a list of device pages and build
device tables of their addresses on every call. The device runtime (buffers, streams, events,
the copy of the results) is splitzip.device's: torch on a GPU, or, by explicit opt-in, host
memory for the CPU SIMT harness's module.
"""
import ctypes
import struct
import threading
import weakref
from typing import NamedTuple, Optional

import numpy as np

from . import (_DTYPE_CODES, _DTYPE_NAMES, _STATUS_NAMES, SplitzipError, _as_elems, _ctx,
               _lib, _P, _SZ)
from .device import WORKSPACE_ALIGN, default_runtime

__all__ = ["PageCodec", "PageOp", "PageResult", "PagesError", "compress_pages",
           "decompress_pages", "pages_bound", "pages_info", "results_bytes", "PAGES_ALIGN",
           "RESULTS_ALIGN", "PAGE_RAW", "PAGE_FRAME", "PAGE_UNTOUCHED", "PAGE_WRITTEN",
           "PAGE_DAMAGED"]

PAGES_ALIGN = 64
PAGE_RAW, PAGE_FRAME = 0, 1
PAGE_UNTOUCHED, PAGE_WRITTEN, PAGE_DAMAGED = 0, 1, 2
_NO_CHECKSUM, _EXACT = 1, 2
_STATE_NAMES = {PAGE_UNTOUCHED: "untouched", PAGE_WRITTEN: "written", PAGE_DAMAGED: "damaged"}
_ENC_NAMES = {1: "split4", 2: "entropy"}
_U32, _U64, _I32P = ctypes.c_uint32, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int32)
_INVALID = _STATUS_NAMES.index("ERROR_INVALID_ARGUMENT")


class _PagesInfo(ctypes.Structure):
    _fields_ = [("format_version", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("encoding", ctypes.c_int), ("chunk_log2", ctypes.c_uint),
                ("n_pages", _U64), ("stream_size", _U64), ("total_page_bytes", _U64),
                ("frames_size", _U64), ("table_id", _U32), ("dtype", ctypes.c_uint)]


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
    ("splitzip_pages_bound_dtype", _SZ, [ctypes.c_uint, _SZ, _SZ]),
    ("splitzip_pages_compress_dtype", ctypes.c_int, [_P, ctypes.c_uint, _U32, ctypes.c_uint, _SZ,
                                                     _P, _P, _P, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_error_string", ctypes.c_char_p, [ctypes.c_int]),
    ("splitzip_pages_compress", ctypes.c_int, [_P, _U32, ctypes.c_uint, _SZ, _P, _P, _P, _SZ,
                                               ctypes.POINTER(_SZ)]),
    ("splitzip_pages_get_info", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_PagesInfo)]),
    ("splitzip_pages_get_manifest", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_Entry), _SZ,
                                                   ctypes.POINTER(_U64)]),
    ("splitzip_pages_decompress", ctypes.c_int, [_P, _P, _SZ, _SZ, _P, _P, ctypes.c_uint, _P, _P,
                                                 ctypes.POINTER(_SZ)]),
    ("splitzip_pages_workspace_size", ctypes.c_int, [_P, _SZ, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_pages_compress_workspace_size", ctypes.c_int, [_P, _SZ, _SZ,
                                                              ctypes.POINTER(_SZ)]),
    ("splitzip_pages_decompress_workspace_size", ctypes.c_int, [_P, _SZ, _SZ,
                                                                ctypes.POINTER(_SZ)]),
    ("splitzip_pages_compress_async", ctypes.c_int, [_P, _U32, ctypes.c_uint, _SZ, _P, _P, _SZ,
                                                     _P, _SZ, _P, _P, _P, _SZ, _P]),
    ("splitzip_pages_decompress_async", ctypes.c_int, [_P, _P, _SZ, _SZ, _P, _P, _SZ,
                                                       ctypes.c_uint, _P, _P, _P, _P, _P, _SZ,
                                                       _P]),
    # (ctx, table_id, options, n_pages, pool, pool_bytes, stride, page_bytes, indices, dst,
    #  dst_cap, dst_size, status, ws, ws_bytes, stream)
    ("splitzip_pages_compress_pool_async", ctypes.c_int, [_P, _U32, ctypes.c_uint, _SZ, _P, _SZ,
                                                          _SZ, _SZ, _P, _P, _SZ, _P, _P, _P,
                                                          _SZ, _P]),
    # (ctx, src, src_size, n_pages, pool, pool_bytes, stride, page_bytes, indices, options,
    #  page_sizes, page_states, n_pages_out, status, ws, ws_bytes, stream)
    ("splitzip_pages_decompress_pool_async", ctypes.c_int, [_P, _P, _SZ, _SZ, _P, _SZ, _SZ, _SZ,
                                                            _P, ctypes.c_uint, _P, _P, _P, _P,
                                                            _P, _SZ, _P]),
]:
    _fn = getattr(_lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def pages_bound(n_pages, max_page_bytes, dtype="bf16"):
    """Bytes that always hold the stream of n_pages pages of at most max_page_bytes each, of
    dtype "bf16" (default), "f16", "f32", "e4m3" or "e5m2"."""
    if dtype not in _DTYPE_CODES:
        raise ValueError(f"dtype must be one of {', '.join(_DTYPE_CODES)}, got {dtype!r}")
    b = _lib.splitzip_pages_bound_dtype(_DTYPE_CODES[dtype], n_pages, max_page_bytes)
    if b == 0:
        raise ValueError("too many pages or pages too large for one stream")
    return b


# ---- Buffers ------------------------------------------------------------------------------

def _host_page(x):
    """(pointer, bytes, keep-alive) of a writable host page: a contiguous array or CPU tensor
    of any dtype (source pages: _source_pages)."""
    mod = type(x).__module__
    if mod.startswith("torch"):
        if x.device.type != "cpu":
            raise ValueError("a device tensor given to a host call (use the *_async calls)")
        if not x.is_contiguous():
            raise ValueError("destination pages must be contiguous tensors")
        return x.data_ptr(), x.numel() * x.element_size(), x
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if not (a.flags.c_contiguous and a.flags.writeable):
        raise ValueError("destination pages must be writable C-contiguous arrays")
    return a.ctypes.data, a.nbytes, a


def _source_pages(pages, dtype):
    """(pointer, bytes, keep-alive) of each source page and the pages' one dtype name: dtype
    None takes it from the pages (all the same), else their bytes are elements of dtype."""
    if dtype is None:
        names = set()
        got = []
        for p in pages:
            a, name = _as_elems(p, None)
            names.add(name)
            got.append((a.ctypes.data, a.nbytes, a))
        if len(names) > 1:
            raise ValueError(f"the pages of one stream have one dtype, got {sorted(names)}")
        return got, names.pop() if names else "bf16"
    got = []
    for p in pages:
        a, _ = _as_elems(p, dtype)
        got.append((a.ctypes.data, a.nbytes, a))
    return got, dtype


def _raise(st, what):
    if st:
        raise SplitzipError(st, what)


# ---- Host calls -----------------------------------------------------------------------------

class PageCodec:
    """A codec context for page streams. mode: "split4" (4-bit codes, the fastest), "entropy"
    (Huffman-coded exponents, about 11 % smaller) or "auto" (the smaller stream of the two);
    checksum (default True): frames and raw pages carry checksums, so damage is detected;
    chunk_log2 0: the mode's default; codebook / table: a fixed split4 codebook / entropy table
    (e.g. calibrated once per model), named in the stream by table_id; backend: "auto" (the
    best host backend) or a GPU backend ("cuda", "hip") for the *_async calls; runtime: the
    device runtime of those calls (splitzip.device; default: default_runtime()). Reuse it:
    creating a context costs more than a small page list. Threads may share it."""

    def __init__(self, *, mode="split4", checksum=True, chunk_log2=0, codebook=None, table=None,
                 table_id=0, backend="auto", threads=0, codebook_id=None, runtime=None):
        self._ctx = None
        self._runtime = runtime
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

    def compress(self, pages, out=None, dtype=None):
        """Pack host pages into one stream. Returns bytes, or with 'out' (a writable uint8
        buffer of at least pages_bound bytes for the dtype) the stream's size, the stream at
        out[:size]. dtype: None (from the pages, which must agree) or the name of the pages'
        elements ("bf16", "f16", "f32", "e4m3", "e5m2"; e.g. for uint8 pages)."""
        ptrs, name = _source_pages(pages, dtype)
        n = len(ptrs)
        arr = (ctypes.c_void_p * max(n, 1))(*[p for p, _, _ in ptrs])
        sizes = (_SZ * max(n, 1))(*[b for _, b, _ in ptrs])
        cap = pages_bound(n, max([b for _, b, _ in ptrs], default=0), name)
        if out is None:
            buf = ctypes.create_string_buffer(cap)
            dst, dcap = ctypes.addressof(buf), cap
        else:
            dst, dcap, _keep = _host_page(out)
        size = _SZ()
        _raise(_lib.splitzip_pages_compress_dtype(self._ctx, _DTYPE_CODES[name], self.table_id,
                                                  self._options, n, arr, sizes, dst, dcap,
                                                  ctypes.byref(size)),
               "splitzip_pages_compress_dtype")
        return buf.raw[:size.value] if out is None else size.value

    def decompress(self, stream, pages, states=None, exact=False):
        """Validate the stream and scatter it into 'pages' (writable contiguous arrays or CPU
        tensors of any dtype, in place: the stream's elements are written as bytes; its dtype
        is pages_info(stream)["dtype"]). Returns the bytes of each page (0 beyond the stream's). With exact,
        the stream must hold exactly these pages, each of exactly its size (else
        ERROR_GEOMETRY, nothing written). On failure raises PagesError, whose .page_states says
        which pages were written, damaged or left untouched; 'states' (a list) receives the
        same on success and failure."""
        src = np.frombuffer(stream, dtype=np.uint8) if not isinstance(stream, np.ndarray) \
            else np.ascontiguousarray(stream).view(np.uint8).reshape(-1)
        dst = [_host_page(p) for p in pages]
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

    @property
    def runtime(self):
        """The device runtime of the *_async calls (splitzip.device): the one given to the
        constructor, else default_runtime() (torch, or the SIMT host runtime by opt-in)."""
        if self._runtime is None:
            self._runtime = default_runtime()
        return self._runtime

    def workspace_size(self, n_pages, max_page_bytes, operation=None):
        """The library's device workspace for up to n_pages pages of up to max_page_bytes:
        operation "compress", "decompress" or None (either). The *_async calls take a
        workspace of device_workspace_size(), which adds their result slots."""
        fn = {None: _lib.splitzip_pages_workspace_size,
              "compress": _lib.splitzip_pages_compress_workspace_size,
              "decompress": _lib.splitzip_pages_decompress_workspace_size}.get(operation)
        if fn is None:
            raise ValueError("operation is 'compress', 'decompress' or None")
        ws = _SZ()
        _raise(fn(self._ctx, n_pages, max_page_bytes, ctypes.byref(ws)), fn.__name__)
        return ws.value

    def device_workspace_size(self, n_pages, page_bytes, operation=None):
        """Bytes of the workspace a device call of up to n_pages pages of up to page_bytes
        takes: its result slots (results_bytes) and then the library's workspace. operation:
        "compress", "decompress" or None (enough for either)."""
        return results_bytes(n_pages, operation or "decompress") + \
            self.workspace_size(n_pages, page_bytes, operation)

    def _carve(self, rt, workspace, n_pages, operation, page_bytes):
        """(address, result bytes, library workspace bytes, keep-alive) of a workspace."""
        ptr, cap, keep = rt.buffer(workspace, "workspace")
        if ptr % WORKSPACE_ALIGN:
            raise ValueError(f"workspace: its address must be a multiple of {WORKSPACE_ALIGN}")
        res = results_bytes(n_pages, operation)
        need = res + self.workspace_size(n_pages, page_bytes, operation)
        if cap < need:
            raise SplitzipError(_INVALID, f"workspace of {cap} bytes, the call needs {need} "
                                          "(device_workspace_size)")
        return ptr, res, cap - res, keep

    def _start(self, rt, s, wait_events, name, call):
        """The caller's stream waits for the input events, the call is enqueued on it, and the
        completion event is recorded on it."""
        for ev in wait_events or ():
            rt.wait_event(s, ev)
        _raise(rt.enqueue(s, name, call), name)

    def compress_pool_async(self, pool, indices, out, workspace, stream=None, wait_events=(), *,
                            page_bytes=None, page_stride=None, event=None):
        """Enqueue the packing of pool pages into one stream at 'out' (device uint8 buffer,
        pages_bound(len(indices), page_bytes) always suffices). pool: a device buffer of
        same-size pages -- a tensor whose first dimension indexes pages (page_bytes and
        page_stride from its shape and strides; a strided view such as kv[:, 0] too), or any
        contiguous buffer with page_bytes (and page_stride, default page_bytes) given; page i
        of the stream is pool page indices[i] (a device int64 array: a block table, kv
        indices). workspace: device_workspace_size(n, page_bytes, "compress") bytes or more,
        16-byte aligned, which also holds the results. The stream (default: the runtime's
        current one) first waits for every event of wait_events; the returned PageOp's event
        is recorded on it (a reusable 'event' may be given). Allocates nothing, copies nothing
        to or from the host, never waits."""
        rt = self.runtime
        view, pkeep = rt.pool_view(pool, "pool")
        pb, stride = _pool_pages(view, page_bytes, page_stride)
        iptr, n, ikeep = rt.indices(indices, "indices")
        optr, ocap, _ = rt.buffer(out, "out")
        wptr, res, lib_ws, _ = self._carve(rt, workspace, n, "compress", pb)
        s = rt.stream(stream, out)
        self._start(rt, s, wait_events, "splitzip_pages_compress_pool_async",
                    lambda h: _lib.splitzip_pages_compress_pool_async(
                        self._ctx, self.table_id, self._options, n, view.ptr, view.nbytes,
                        stride, pb, iptr, optr, ocap, wptr, wptr + 8, wptr + res, lib_ws, h))
        return PageOp(rt, "compress", n, workspace, wptr, s, rt.record(s, event), out,
                      (pkeep, ikeep, out))

    def decompress_pool_async(self, src, src_size, pool, indices, workspace, stream=None,
                              wait_events=(), exact=True, *, page_bytes=None, page_stride=None,
                              event=None):
        """Enqueue the validation of the stream in 'src' (a device buffer; src_size bytes of
        it, None: all) and the scatter of its pages into pool pages indices[i] (the pool and
        indices as for compress_pool_async; pages must not overlap). exact (default): the
        stream must hold exactly len(indices) pages of page_bytes each, else ERROR_GEOMETRY
        before anything is written. workspace: device_workspace_size(n, page_bytes,
        "decompress") bytes or more; the kernels write the status, the page count, each
        page's size and state into it (PageOp.read()). Streams and events as for
        compress_pool_async. Allocates nothing, never waits."""
        rt = self.runtime
        view, pkeep = rt.pool_view(pool, "pool")
        pb, stride = _pool_pages(view, page_bytes, page_stride)
        iptr, n, ikeep = rt.indices(indices, "indices")
        sptr, sbytes, _ = rt.buffer(src, "src")
        size = sbytes if src_size is None else int(src_size)
        if not 0 <= size <= sbytes:
            raise ValueError(f"src_size {size}: the buffer has {sbytes} bytes")
        wptr, res, lib_ws, _ = self._carve(rt, workspace, n, "decompress", pb)
        s = rt.stream(stream, src)
        self._start(rt, s, wait_events, "splitzip_pages_decompress_pool_async",
                    lambda h: _lib.splitzip_pages_decompress_pool_async(
                        self._ctx, sptr, size, n, view.ptr, view.nbytes, stride, pb, iptr,
                        _EXACT if exact else 0, wptr + 16, wptr + 16 + 8 * n, wptr, wptr + 8,
                        wptr + res, lib_ws, h))
        return PageOp(rt, "decompress", n, workspace, wptr, s, rt.record(s, event), None,
                      (pkeep, ikeep, src))

    def compress_async(self, pages, out, workspace=None, stream=None, max_page_bytes=None, *,
                       wait_events=(), event=None):
        """compress_pool_async for a list of device pages of any sizes: the same stream,
        stream, events and workspace layout, but it builds device tables of the pages'
        addresses and sizes on every call (two small allocations and copies from pinned
        memory, ordered on the stream), and allocates the workspace when none is given. The
        pool calls are the allocation-free path."""
        rt = self.runtime
        pg = [rt.buffer(p, f"page {i}") for i, p in enumerate(pages)]
        n = len(pg)
        maxb = max_page_bytes if max_page_bytes is not None else \
            max([b for _, b, _ in pg], default=0)
        optr, ocap, _ = rt.buffer(out, "out")
        s = rt.stream(stream, out)
        if workspace is None:
            workspace = rt.empty(self.device_workspace_size(n, maxb, "compress"), out, s)
        wptr, res, lib_ws, _ = self._carve(rt, workspace, n, "compress", maxb)
        ptrs = rt.upload([p for p, _, _ in pg], out, s)
        sizes = rt.upload([b for _, b, _ in pg], out, s)
        self._start(rt, s, wait_events, "splitzip_pages_compress_async",
                    lambda h: _lib.splitzip_pages_compress_async(
                        self._ctx, self.table_id, self._options, n, rt.address(ptrs),
                        rt.address(sizes), maxb, optr, ocap, wptr, wptr + 8, wptr + res,
                        lib_ws, h))
        return PageOp(rt, "compress", n, workspace, wptr, s, rt.record(s, event), out,
                      (pg, ptrs, sizes, out))

    def decompress_async(self, src, pages, workspace=None, stream=None, src_size=None,
                         max_page_bytes=None, *, wait_events=(), exact=False, event=None):
        """decompress_pool_async for a list of device pages (each written up to its own
        size): builds device tables of their addresses and capacities on every call and
        allocates the workspace when none is given (see compress_async). exact: as
        decompress_pool_async (default False here: the stream may hold fewer or smaller
        pages)."""
        rt = self.runtime
        pg = [rt.buffer(p, f"page {i}") for i, p in enumerate(pages)]
        n = len(pg)
        maxb = max_page_bytes if max_page_bytes is not None else \
            max([b for _, b, _ in pg], default=0)
        sptr, sbytes, _ = rt.buffer(src, "src")
        size = sbytes if src_size is None else int(src_size)
        if not 0 <= size <= sbytes:
            raise ValueError(f"src_size {size}: the buffer has {sbytes} bytes")
        s = rt.stream(stream, src)
        if workspace is None:
            workspace = rt.empty(self.device_workspace_size(n, maxb, "decompress"), src, s)
        wptr, res, lib_ws, _ = self._carve(rt, workspace, n, "decompress", maxb)
        ptrs = rt.upload([p for p, _, _ in pg], src, s)
        caps = rt.upload([b for _, b, _ in pg], src, s)
        self._start(rt, s, wait_events, "splitzip_pages_decompress_async",
                    lambda h: _lib.splitzip_pages_decompress_async(
                        self._ctx, sptr, size, n, rt.address(ptrs), rt.address(caps), maxb,
                        _EXACT if exact else 0, wptr + 16, wptr + 16 + 8 * n, wptr, wptr + 8,
                        wptr + res, lib_ws, h))
        return PageOp(rt, "decompress", n, workspace, wptr, s, rt.record(s, event), None,
                      (pg, ptrs, caps, src))


# ---- Device calls: the workspace layout and the operation ----------------------------------
#
# The workspace of a device call (caller-owned device memory, WORKSPACE_ALIGN-aligned) holds
# the call's results first, then the library's workspace:
#
#   [0, 8)              u64  compress: the stream's size in bytes; decompress: its page count
#   [8, 12)             i32  the status the kernels write (a splitzip_status)
#   [12, 16)                 unused
#   [16, 16 + 8n)       u64  decompress: the bytes of each of the call's n pages
#   [16 + 8n, 16 + 9n)  u8   decompress: each page's state (PAGE_UNTOUCHED, _WRITTEN, _DAMAGED)
#   results_bytes(n, operation) onwards: the library's workspace (a multiple of RESULTS_ALIGN)
#
# So the results live in device memory (a transfer engine may read the size at
# PageOp.size_ptr itself); PageOp.read() copies these few bytes to the host.

RESULTS_ALIGN = 256


def results_bytes(n_pages, operation):
    """Bytes at the front of a device call's workspace that hold its results: 256 for a
    compression, 16 + 9 * n_pages rounded up to 256 for a decompression."""
    if operation == "compress":
        return RESULTS_ALIGN
    if operation != "decompress":
        raise ValueError("operation is 'compress' or 'decompress'")
    return (16 + 9 * n_pages + RESULTS_ALIGN - 1) // RESULTS_ALIGN * RESULTS_ALIGN


def _pool_pages(view, page_bytes, page_stride):
    """(page bytes, stride) of a pool from its view (device._PoolView) and the arguments."""
    if not view.contiguous:  # a strided view: its geometry is the pool's
        if page_bytes not in (None, view.page_bytes) or page_stride not in (None, view.stride):
            raise ValueError(f"pool: a strided view of pages of {view.page_bytes} bytes at a "
                             f"stride of {view.stride}; page_bytes/page_stride disagree")
        return view.page_bytes, view.stride
    if page_bytes is None:
        if view.page_bytes is None:
            raise ValueError("pool: give page_bytes (its first dimension does not index pages)")
        page_bytes = view.page_bytes
    page_bytes = int(page_bytes)
    return page_bytes, int(page_stride) if page_stride is not None else page_bytes


class PageResult(NamedTuple):
    """The results of a device call: status (a splitzip_status number) and its name; size:
    the stream's size (compression) or its page count (decompression); page_sizes and
    page_states ("written", "damaged", "untouched"): per page of a decompression, else None."""
    status: int
    name: str
    size: int
    page_sizes: Optional[tuple]
    page_states: Optional[tuple]


_LIVE = weakref.WeakValueDictionary()  # workspace address -> the last PageOp that used it
_LIVE_LOCK = threading.Lock()


class PageOp:
    """A device call enqueued on a stream. Its results stay in the workspace (device memory:
    size_ptr, status_ptr, page_sizes_ptr, page_states_ptr) until read() copies them to the
    host, and until the workspace is used again: read them (poll/read/result) before handing
    the workspace to another call, or give calls in flight workspaces of their own (a later
    call on the same workspace makes read() of an unread earlier one raise RuntimeError,
    never return the later call's results). event: recorded on the call's stream (.stream)
    right after the call."""

    def __init__(self, rt, kind, n_pages, workspace, ws_ptr, stream, event, out, keep):
        self.kind, self.n_pages, self.stream, self.event = kind, n_pages, stream, event
        self._rt, self._ws, self._out, self._keep = rt, workspace, out, keep
        self.size_ptr, self.status_ptr = ws_ptr, ws_ptr + 8
        dec = kind == "decompress"
        self.page_sizes_ptr = ws_ptr + 16 if dec else None
        self.page_states_ptr = ws_ptr + 16 + 8 * n_pages if dec else None
        self._res = None
        self._superseded = False
        with _LIVE_LOCK:
            prev = _LIVE.get(ws_ptr)
            if prev is not None and prev._res is None:
                prev._superseded = True
            _LIVE[ws_ptr] = self

    def poll(self):
        """True once the device has finished the call. Never blocks."""
        return bool(self._rt.query(self.event))

    def wait(self):
        """Block until the device has finished the call."""
        self._rt.synchronize(self.event)
        return self

    def read(self):
        """Wait, copy the results to the host (once) and return them as a PageResult; never
        raises for a failed status."""
        if self._res is None:
            if self._superseded:
                raise RuntimeError("a later call used this operation's workspace before its "
                                   "results were read")
            self.wait()
            dec = self.kind == "decompress"
            raw = self._rt.read(self._ws, 0, 16 + (9 * self.n_pages if dec else 0), self.event)
            size, status = struct.unpack_from("<Qi", raw, 0)
            sizes = states = None
            if dec:
                n = self.n_pages
                sizes = tuple(int(v) for v in np.frombuffer(raw, "<u8", n, 16))
                states = tuple(_STATE_NAMES.get(v, str(v)) for v in raw[16 + 8 * n:16 + 9 * n])
            name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else "UNKNOWN"
            self._res = PageResult(status, name, size, sizes, states)
        return self._res

    def page_encodings(self):
        """A compression that succeeded: "coded" or "raw" per page, read from the stream's
        page table in the output (bit 31 of the u32 at 64 + 4 i, doc/FORMAT.md §12.3)."""
        r = self.read()
        if self.kind != "compress" or r.status:
            raise ValueError("page encodings are those of a compression that succeeded")
        raw = self._rt.read(self._out, 64, 4 * self.n_pages, self.event)
        return tuple("raw" if e >> 31 else "coded" for e in np.frombuffer(raw, "<u4"))

    def result(self):
        """read(), then the stream size (compression) or page sizes (decompression); a failed
        status raises SplitzipError (compression) or PagesError with the page states."""
        r = self.read()
        if r.status and self.kind == "decompress":
            raise PagesError(r.status, "page stream (device)", list(r.page_states))
        _raise(r.status, "page stream (device)")
        return r.size if self.kind == "compress" else list(r.page_sizes)


# ---- One-shot helpers -----------------------------------------------------------------------

def compress_pages(pages, *, mode="split4", checksum=True, dtype=None, **kw):
    """compress_pages(pages, mode="split4"|"entropy"|"auto", checksum=True, dtype=None,
    chunk_log2=0, codebook=None, table=None, table_id=0, backend="auto") -> bytes: a one-shot
    PageCodec(...).compress(pages, dtype=dtype)."""
    with PageCodec(mode=mode, checksum=checksum, **kw) as c:
        return c.compress(pages, dtype=dtype)


def decompress_pages(stream, pages, backend="auto", states=None):
    """Scatter a stream into 'pages' in place; returns the bytes of each page. PagesError on
    failure, with the state of every page."""
    with PageCodec(backend=backend) as c:
        return c.decompress(stream, pages, states)


def pages_info(stream, header_only=False):
    """The header and page table of a stream, validated (frame bodies are not decoded): a dict
    with format_version (2, or 3 for pages other than BF16), dtype ("bf16", "f16", "f32",
    "e4m3", "e5m2"), mode ("split4" or "entropy"), chunk_log2, checksum, fixed_table,
    table_id, n_pages, stream_size, total_page_bytes, frames_size, and pages
    [{page_bytes, encoding: "frame"|"raw", position}]. header_only: the 64-byte header alone
    (splitzip_pages_get_info: what a receiver knows from the first 64 bytes), without pages."""
    src = np.frombuffer(stream, dtype=np.uint8) if not isinstance(stream, np.ndarray) \
        else np.ascontiguousarray(stream).view(np.uint8).reshape(-1)
    info = _PagesInfo()
    _raise(_lib.splitzip_pages_get_info(src.ctypes.data, src.nbytes, ctypes.byref(info)),
           "splitzip_pages_get_info")
    head = {"format_version": info.format_version,
            "dtype": _DTYPE_NAMES.get(info.dtype, str(info.dtype)),
            "mode": _ENC_NAMES.get(info.encoding, str(info.encoding)),
            "chunk_log2": info.chunk_log2, "checksum": bool(info.flags & 1),
            "fixed_table": bool(info.flags & 2), "table_id": info.table_id,
            "n_pages": info.n_pages, "stream_size": info.stream_size,
            "total_page_bytes": info.total_page_bytes, "frames_size": info.frames_size}
    if header_only:
        return head
    n = _U64()
    entries = (_Entry * max(int(info.n_pages), 1))()
    _raise(_lib.splitzip_pages_get_manifest(src.ctypes.data, src.nbytes, entries,
                                            int(info.n_pages), ctypes.byref(n)),
           "splitzip_pages_get_manifest")
    return {**head,
            "pages": [{"page_bytes": e.page_bytes, "position": e.position,
                       "encoding": "frame" if e.encoding == PAGE_FRAME else "raw"}
                      for e in entries[:n.value]]}
