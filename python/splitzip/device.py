"""The device runtime of the page streams' device calls (PageCodec.*_async, splitzip.pages).

Everything the device calls need from a GPU runtime is one small object: the address and size
of a device buffer, a stream handle for the library, waiting on an event and recording one on
the stream the caller gave, querying and synchronising an event, and copying a few result
bytes to the host once the caller asks for them. Two runtimes:

- TorchCudaRuntime (the default): torch CUDA tensors (or objects with __cuda_array_interface__
  or __dlpack__), torch.cuda.Stream / ExternalStream / raw integer handles, torch.cuda.Event.
  What it does only runs on a real GPU: nothing in this package's tests executes it on a
  machine without one (python/tests/test_device_pages.py says which parts).
- SimtHostRuntime: host memory plays device memory, for the CPU SIMT harness's GPU module
  (tests/gpu/gpu_simt_module.cpp, loaded by libsplitzip through SPLITZIP_CUDA_MODULE), whose
  streams run their work at once. Opt-in only: pass it to PageCodec(runtime=...) or set
  SPLITZIP_DEVICE_RUNTIME=simt-host; it refuses to start unless the library's "cuda" module
  is the harness (a real GPU module would be handed host pointers). It records every call it
  serves (calls) and counts the buffers it allocates (allocations), so tests can check which
  stream an operation used, what it waited on, and that a call allocated nothing.

Both count the buffers they allocate (the pointer tables of the list calls, workspaces the
caller did not give): the pool calls allocate none.
"""
import ctypes
import os

import numpy as np

__all__ = ["TorchCudaRuntime", "SimtHostRuntime", "HostStream", "HostEvent", "default_runtime",
           "WORKSPACE_ALIGN"]

WORKSPACE_ALIGN = 16  # SPLITZIP_WORKSPACE_ALIGN (include/splitzip.h)
_TABLE_ALIGN = 256    # host-runtime allocations: the alignment cudaMalloc gives


class _PoolView:
    """What a pool buffer looks like to the pool calls: its address, the bytes from it to the
    end of its last page, and, when its first dimension indexes pages each of which is
    contiguous, that page size and the stride between pages (else None)."""

    def __init__(self, ptr, nbytes, page_bytes=None, stride=None, contiguous=True):
        self.ptr, self.nbytes = ptr, nbytes
        self.page_bytes, self.stride, self.contiguous = page_bytes, stride, contiguous


def _torch_view(t):
    """(_PoolView of a torch tensor, its dtype name)."""
    es = t.element_size()
    if t.is_contiguous():
        pb = t[0].numel() * es if t.dim() >= 2 and t.shape[0] else None
        return _PoolView(t.data_ptr(), t.numel() * es, pb, pb, True)
    if t.dim() < 2 or not t[0].is_contiguous() or t.stride(0) <= 0 or t.shape[0] == 0:
        raise ValueError("a pool must be contiguous, or a view whose first dimension indexes "
                         "contiguous pages at a positive stride")
    pb, st = t[0].numel() * es, t.stride(0) * es
    return _PoolView(t.data_ptr(), (t.shape[0] - 1) * st + pb, pb, st, False)


def _numpy_view(a):
    if a.flags.c_contiguous:
        pb = a[0].nbytes if a.ndim >= 2 and a.shape[0] else None
        return _PoolView(a.ctypes.data, a.nbytes, pb, pb, True)
    if a.ndim < 2 or not a[0].flags.c_contiguous or a.strides[0] <= 0 or a.shape[0] == 0:
        raise ValueError("a pool must be contiguous, or a view whose first dimension indexes "
                         "contiguous pages at a positive stride")
    pb, st = a[0].nbytes, a.strides[0]
    return _PoolView(a.ctypes.data, (a.shape[0] - 1) * st + pb, pb, st, False)


def _is_torch(x):
    return type(x).__module__.startswith("torch")


def _align_up(n, a):
    return (n + a - 1) // a * a


# ---- torch on a real GPU --------------------------------------------------------------------

class TorchCudaRuntime:
    """Device buffers, streams and events of torch on CUDA. Runs only on a GPU (unverified by
    the tests of a machine without one). Streams: a torch.cuda.Stream (ExternalStream
    included), an integer cudaStream_t handle (wrapped in torch.cuda.ExternalStream; 0 is the
    default stream), an object with .cuda_stream, or None: torch's current stream on the
    buffers' device. Events: torch.cuda.Event."""

    name = "torch"

    def __init__(self):
        self.allocations = 0
        self._copy_streams = {}

    @staticmethod
    def _torch():
        import torch
        return torch

    def available(self):
        """(True, None), or (False, why device buffers cannot be used through torch here)."""
        try:
            torch = self._torch()
        except ImportError:
            return False, "device pages need torch (not importable here)"
        if not torch.cuda.is_available():
            return False, "torch sees no CUDA device"
        return True, None

    def _tensor(self, x, what):
        torch = self._torch()
        if not _is_torch(x):
            if hasattr(x, "__cuda_array_interface__"):
                return None
            if hasattr(x, "__dlpack__"):
                x = torch.utils.dlpack.from_dlpack(x)
            else:
                raise TypeError(f"{what}: a device buffer is a torch CUDA tensor, or has "
                                "__cuda_array_interface__ or __dlpack__")
        if x.device.type != "cuda":
            raise ValueError(f"{what}: a {x.device.type} tensor given to a device call")
        return x

    def buffer(self, x, what):
        """(address, bytes, keep-alive) of a contiguous device buffer."""
        t = self._tensor(x, what)
        if t is None:
            cai = x.__cuda_array_interface__
            if cai.get("strides") not in (None, ()):
                raise ValueError(f"{what}: device buffers must be contiguous")
            n = int(np.prod(cai["shape"])) * np.dtype(cai["typestr"]).itemsize
            return cai["data"][0], n, x
        if not t.is_contiguous():
            raise ValueError(f"{what}: device buffers must be contiguous")
        return t.data_ptr(), t.numel() * t.element_size(), t

    def pool_view(self, x, what):
        t = self._tensor(x, what)
        if t is None:
            p, n, _ = self.buffer(x, what)
            return _PoolView(p, n), x
        return _torch_view(t), t

    def indices(self, x, what):
        """(address, count, keep-alive) of a contiguous 1-D int64 device array."""
        t = self._tensor(x, what)
        if t is None:
            cai = x.__cuda_array_interface__
            if np.dtype(cai["typestr"]) != np.dtype("<i8") or len(cai["shape"]) != 1:
                raise TypeError(f"{what}: indices are a 1-D int64 array")
            p, _, keep = self.buffer(x, what)
            return p, int(cai["shape"][0]), keep
        if t.dtype != self._torch().int64 or t.dim() != 1:
            raise TypeError(f"{what}: indices are a 1-D int64 tensor, got {t.dtype} "
                            f"{tuple(t.shape)}")
        p, _, keep = self.buffer(t, what)
        return p, t.numel(), keep

    def dtype_name(self, x):
        torch = self._torch()
        if _is_torch(x):
            return {torch.bfloat16: "bfloat16", torch.int16: "bfloat16"}.get(x.dtype, str(x.dtype))
        if hasattr(x, "__cuda_array_interface__"):
            t = np.dtype(x.__cuda_array_interface__["typestr"])
            return "bfloat16" if t in (np.dtype("<u2"), np.dtype("<i2")) else str(t)
        return str(getattr(x, "dtype", type(x).__name__))

    def _device(self, like):
        torch = self._torch()
        if _is_torch(like) and like.device.type == "cuda":
            return like.device
        return torch.device("cuda", torch.cuda.current_device())

    def stream(self, stream, like):
        torch = self._torch()
        dev = self._device(like)
        if stream is None:
            return torch.cuda.current_stream(dev)
        if isinstance(stream, torch.cuda.Stream):
            return stream
        if isinstance(stream, int) or hasattr(stream, "cuda_stream"):
            h = stream if isinstance(stream, int) else int(stream.cuda_stream)
            return torch.cuda.default_stream(dev) if h == 0 else \
                torch.cuda.ExternalStream(h, device=dev)
        raise TypeError(f"stream: a torch.cuda.Stream, an integer handle or None, got "
                        f"{type(stream).__name__}")

    def wait_event(self, s, event):
        torch = self._torch()
        if not isinstance(event, torch.cuda.Event):
            raise TypeError(f"input event: a torch.cuda.Event, got {type(event).__name__}")
        s.wait_event(event)

    def enqueue(self, s, name, fn):
        """Call fn(stream handle) with the stream's device current: the library enqueues on
        the current device."""
        with self._torch().cuda.device(s.device):
            return fn(int(s.cuda_stream))

    def record(self, s, event=None):
        ev = event if event is not None else self._torch().cuda.Event()
        ev.record(s)
        return ev

    def query(self, event):
        return event.query()

    def synchronize(self, event):
        event.synchronize()

    def empty(self, nbytes, like, s):
        """A new device buffer (counted), allocated for use on stream s."""
        torch = self._torch()
        self.allocations += 1
        with torch.cuda.stream(s):
            return torch.empty(max(nbytes, 1), dtype=torch.uint8, device=self._device(like))

    def upload(self, values, like, s):
        """A new device array (counted) of int64 values, copied in order on stream s from
        pinned host memory (the pinned buffer is kept with the device one)."""
        torch = self._torch()
        self.allocations += 1
        host = torch.tensor(list(values) or [0], dtype=torch.int64).pin_memory()
        with torch.cuda.stream(s):
            dev = torch.empty(host.numel(), dtype=torch.int64, device=self._device(like))
            dev.copy_(host, non_blocking=True)
        return (dev, host)

    def address(self, table):
        return table[0].data_ptr()

    def read(self, buf, offset, nbytes, event):
        """The bytes buf[offset:offset+nbytes] on the host, once event has completed: copied on
        a stream of their own that waits for the event, so that only the copy is waited for,
        never other work queued on the caller's streams."""
        torch = self._torch()
        t = buf if _is_torch(buf) else torch.as_tensor(buf, device="cuda")
        flat = t.reshape(-1).view(torch.uint8)[offset:offset + nbytes]
        dev = flat.device
        cs = self._copy_streams.get(dev.index)
        if cs is None:
            cs = self._copy_streams[dev.index] = torch.cuda.Stream(device=dev)
        cs.wait_event(event)
        with torch.cuda.stream(cs):
            return flat.to("cpu").numpy().tobytes()


# ---- host memory for the CPU SIMT harness ---------------------------------------------------

class HostStream:
    """A stream of SimtHostRuntime. The harness's module runs a stream's work when it is
    enqueued, so every HostStream is the library's default (NULL) stream; the name tells
    streams apart in the runtime's call record."""

    def __init__(self, name):
        self.name = name
        self.handle = 0

    def __repr__(self):
        return f"HostStream({self.name!r})"


class HostEvent:
    """An event of SimtHostRuntime: complete once recorded (work runs at enqueue); a wait on
    an event never recorded returns at once, as cudaStreamWaitEvent does."""

    def __init__(self, name=None):
        self.name = name
        self.stream = None

    @property
    def recorded(self):
        return self.stream is not None

    def query(self):
        return True

    def synchronize(self):
        pass

    def __repr__(self):
        return f"HostEvent({self.name!r})"


def _loaded_module(path):
    """The already loaded shared object at 'path' (never loads it), or None."""
    try:
        return ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return None


class SimtHostRuntime:
    """Host memory as device memory, for the CPU SIMT harness's GPU module. Buffers are numpy
    arrays or CPU torch tensors; streams are HostStream (None: default_stream); events are
    HostEvent. calls: the record of what was asked, in order -- ("wait", stream, event),
    ("launch", stream, function name), ("record", stream, event), ("alloc", bytes),
    ("read", bytes); allocations: the buffers it allocated.

    module: the harness module's path (default $SPLITZIP_CUDA_MODULE). The constructor
    checks that libsplitzip's "cuda" backend is usable and was loaded from that file, and that
    the file is the harness (it exports the harness's launch entry point), else RuntimeError."""

    name = "simt-host"
    _MARK = "_Z21sz_simt_launch_erasedRK14sz_simt_configPFvPvES2_"  # sz_simt_launch_erased()

    def __init__(self, module=None):
        self.module = module or os.environ.get("SPLITZIP_CUDA_MODULE")
        ok, why = self._check()
        if not ok:
            raise RuntimeError(f"SimtHostRuntime: {why}")
        self.calls = []
        self.allocations = 0
        self.default_stream = HostStream("default")

    def _check(self):
        from . import backends
        if not self.module:
            return False, "SPLITZIP_CUDA_MODULE names no module (the SIMT harness's " \
                          "libsplitzip_simt.so)"
        if not dict(backends()).get("cuda"):
            return False, "the library's cuda backend is not usable (is it built with CUDA, " \
                          f"and does {self.module} load?)"
        lib = _loaded_module(self.module)
        if lib is None:
            return False, f"{self.module} is not the module the library loaded"
        if not hasattr(lib, self._MARK):
            return False, f"{self.module} is not the CPU SIMT harness's module: host memory " \
                          "must not be handed to a real GPU module"
        return True, None

    def available(self):
        return True, None

    @staticmethod
    def Stream(name="stream"):
        return HostStream(name)

    @staticmethod
    def Event(name=None):
        return HostEvent(name)

    def _host(self, x, what):
        if _is_torch(x):
            if x.device.type != "cpu":
                raise ValueError(f"{what}: a {x.device.type} tensor given to the SIMT host "
                                 "runtime (host memory plays device memory)")
            return x
        if isinstance(x, np.ndarray):
            return x
        raise TypeError(f"{what}: the SIMT host runtime takes numpy arrays or CPU tensors, got "
                        f"{type(x).__name__}")

    def buffer(self, x, what):
        x = self._host(x, what)
        if _is_torch(x):
            if not x.is_contiguous():
                raise ValueError(f"{what}: device buffers must be contiguous")
            return x.data_ptr(), x.numel() * x.element_size(), x
        if not x.flags.c_contiguous:
            raise ValueError(f"{what}: device buffers must be contiguous")
        return x.ctypes.data, x.nbytes, x

    def pool_view(self, x, what):
        x = self._host(x, what)
        return (_torch_view(x) if _is_torch(x) else _numpy_view(x)), x

    def indices(self, x, what):
        x = self._host(x, what)
        if _is_torch(x):
            import torch
            ok, n = x.dtype == torch.int64 and x.dim() == 1, x.numel()
        else:
            ok, n = x.dtype == np.int64 and x.ndim == 1, x.size
        if not ok:
            raise TypeError(f"{what}: indices are a 1-D int64 array, got {x.dtype} "
                            f"{tuple(x.shape)}")
        p, _, keep = self.buffer(x, what)
        return p, n, keep

    def dtype_name(self, x):
        if _is_torch(x):
            import torch
            return {torch.bfloat16: "bfloat16", torch.int16: "bfloat16"}.get(x.dtype, str(x.dtype))
        return "bfloat16" if str(getattr(x, "dtype", "")) in ("uint16", "int16") else \
            str(getattr(x, "dtype", type(x).__name__))

    def stream(self, stream, like):
        if stream is None:
            return self.default_stream
        if isinstance(stream, HostStream):
            return stream
        raise TypeError("stream: a HostStream of the SIMT host runtime or None (its module "
                        f"takes no other handle), got {type(stream).__name__}")

    def wait_event(self, s, event):
        if not isinstance(event, HostEvent):
            raise TypeError(f"input event: a HostEvent, got {type(event).__name__}")
        self.calls.append(("wait", s, event))

    def enqueue(self, s, name, fn):
        self.calls.append(("launch", s, name))
        return fn(s.handle)

    def record(self, s, event=None):
        ev = event if event is not None else HostEvent()
        ev.stream = s
        self.calls.append(("record", s, ev))
        return ev

    def query(self, event):
        return event.query()

    def synchronize(self, event):
        event.synchronize()

    def _alloc(self, nbytes):
        self.allocations += 1
        self.calls.append(("alloc", nbytes))
        raw = np.empty(nbytes + _TABLE_ALIGN, np.uint8)
        off = (-raw.ctypes.data) % _TABLE_ALIGN
        return raw[off:off + nbytes]

    def empty(self, nbytes, like, s):
        return self._alloc(max(nbytes, 1))

    def upload(self, values, like, s):
        vals = list(values) or [0]
        a = self._alloc(8 * len(vals)).view(np.int64)
        a[:] = vals
        return (a,)

    def address(self, table):
        return table[0].ctypes.data

    def read(self, buf, offset, nbytes, event):
        p, n, _ = self.buffer(buf, "read")
        if offset + nbytes > n:
            raise ValueError("read past the buffer")
        self.calls.append(("read", nbytes))
        return ctypes.string_at(p + offset, nbytes)


_DEFAULT = {}


def default_runtime():
    """The runtime of a PageCodec given none: $SPLITZIP_DEVICE_RUNTIME "torch" (the default)
    or "simt-host" (SimtHostRuntime, the explicit opt-in for the CPU SIMT harness). One
    instance per process and name."""
    name = os.environ.get("SPLITZIP_DEVICE_RUNTIME", "torch") or "torch"
    if name not in ("torch", "simt-host"):
        raise ValueError(f"SPLITZIP_DEVICE_RUNTIME={name!r}: 'torch' or 'simt-host'")
    if name not in _DEFAULT:
        _DEFAULT[name] = TorchCudaRuntime() if name == "torch" else SimtHostRuntime()
    return _DEFAULT[name]
