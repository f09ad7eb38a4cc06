"""Python binding of splitzip: lossless BF16 compression (ctypes over libsplitzip).

    import numpy as np, splitzip
    frame = splitzip.compress(kv)            # kv: uint16/int16 numpy array of BF16 bit patterns,
                                             # or a torch.bfloat16 / int16 tensor on the CPU
    back = splitzip.decompress(frame)        # numpy uint16 array (BF16 bit patterns)
    t = splitzip.decompress(frame, like="torch")   # torch.bfloat16 tensor

The other dtypes of doc/FORMAT.md 1.3 (host memory, portable C in the library): torch
float16, float32, float8_e4m3fn(uz) and float8_e5m2(fnuz) tensors and numpy float16 and
float32 arrays are compressed as their dtype; raw bytes (uint8) of any dtype with an explicit
dtype="f16" | "f32" | "e4m3" | "e5m2" | "bf16". decompress() returns the frame's dtype: numpy
float16 / float32 / uint8 (FP8 bit patterns), or with like="torch" the torch dtype.

Which libsplitzip it loads (splitzip._LIBRARY_PATH, and why: splitzip._LIBRARY_ORIGIN):
$SPLITZIP_LIBRARY if set; imported from a source checkout, that checkout's build tree (build/,
else build/release/); installed by pip, the library it was built for (splitzip/_libdir.py,
written by the build backend); else the loader's search path. The library's major.minor
version must be this package's.
"""
import ctypes
import ctypes.util
import os
from pathlib import Path

import numpy as np

__all__ = ["SplitzipError", "compress", "decompress", "frame_info", "calibrate",
           "calibrate_entropy", "frame_entropy_table", "compress_bound", "predict_frame_size",
           "backends", "version", "pack_safetensors", "unpack_safetensors", "safetensors"]

__version__ = "0.1.0"  # of this package; the same as the C library's (python/tests check it)

FLAG_CONTENT_CHECKSUM = 1

# splitzip_encoding (include/splitzip.h): which frame compress() writes.
_ENCODINGS = {"split4": 0, "entropy": 1, "auto": 2}
# splitzip_mode: the mode of a frame.
_MODE_NAMES = {0: "stored", 1: "split4", 2: "entropy"}
# splitzip_dtype: the element types (FORMAT.md §2.2), by splitzip_dtype_name().
_DTYPE_CODES = {"bf16": 1, "e4m3": 2, "e5m2": 3, "f16": 4, "f32": 5}
_DTYPE_NAMES = {v: k for k, v in _DTYPE_CODES.items()}
_DTYPE_WIDTH = {"bf16": 2, "e4m3": 1, "e5m2": 1, "f16": 2, "f32": 4}


class SplitzipError(Exception):
    """A splitzip call failed; .status is the numeric splitzip_status, .name its spelling."""

    def __init__(self, status, message):
        self.status = status
        self.name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else "UNKNOWN"
        super().__init__(f"{message}: {self.name}")


class _UnknownBackendError(SplitzipError, ValueError):
    """A backend name the library does not list: unknown, or not compiled in. Both a ValueError
    (what an unknown name raised) and a SplitzipError with ERROR_BACKEND_UNAVAILABLE (what the
    name of a backend left out of the build raised from splitzip_ctx_create)."""


# A checkout's build trees, in the order they are looked for: README.md's, then
# ci/run_tests.sh's. Any other (a sanitizer or cross build, out of tree): $SPLITZIP_LIBRARY.
_CHECKOUT_TREES = ("build", "build/release")


def _find_library():
    """(path or name of the libsplitzip to load, why that one); the module docstring's order."""
    env = os.environ.get("SPLITZIP_LIBRARY")
    if env:
        return env, "$SPLITZIP_LIBRARY"
    root = Path(__file__).resolve().parents[2]
    if (root / "include" / "splitzip.h").is_file():  # imported from a source checkout
        for tree in _CHECKOUT_TREES:
            cand = root / tree / "libsplitzip.so"
            if cand.is_file():
                return str(cand), f"build tree {tree}/ of the checkout {root}"
    try:
        from ._libdir import LIBRARY
    except ImportError:
        LIBRARY = None
    if LIBRARY:
        if not Path(LIBRARY).is_file():  # never another library in its place
            raise OSError(f"libsplitzip not found: this splitzip package was installed for "
                          f"{LIBRARY}, which is gone. Install the C library again (cmake "
                          f"--install build), or reinstall the package for another one (pip "
                          f"install ./python); SPLITZIP_LIBRARY=PATH overrides")
        return LIBRARY, "recorded when the package was installed"
    found = ctypes.util.find_library("splitzip")
    if found:
        return found, "the loader's search path"
    raise OSError("libsplitzip.so not found: install splitzip (cmake --install), build this "
                  "checkout, or set SPLITZIP_LIBRARY")


def _load_library(path, origin):
    """The library, checked to be of this package's major.minor version (its ABI: the structures
    below follow splitzip.h of this version)."""
    lib = ctypes.CDLL(path)
    lib.splitzip_version_string.restype = ctypes.c_char_p
    found = lib.splitzip_version_string().decode()
    if found.split(".")[:2] != __version__.split(".")[:2]:
        raise ImportError(f"{path} ({origin}) is libsplitzip {found}; this splitzip package "
                          f"{__version__} needs {'.'.join(__version__.split('.')[:2])}.x")
    return lib


class _Codebook(ctypes.Structure):
    _fields_ = [("exponents", ctypes.c_uint8 * 16)]


class _EntropyTable(ctypes.Structure):
    _fields_ = [("lengths", ctypes.c_uint8 * 256), ("escape_length", ctypes.c_uint8)]


class _Params(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_int),
                ("chunk_log2", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("codebook_mode", ctypes.c_int), ("codebook", _Codebook),
                ("n_threads", ctypes.c_uint), ("encoding", ctypes.c_int),
                ("table_mode", ctypes.c_int), ("table", _EntropyTable)]


class _FrameInfo(ctypes.Structure):
    _fields_ = [("format_version", ctypes.c_uint), ("dtype", ctypes.c_uint), ("mode", ctypes.c_int),
                ("chunk_log2", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("n_elems", ctypes.c_uint64), ("n_escapes", ctypes.c_uint64),
                ("frame_size", ctypes.c_uint64), ("content_checksum", ctypes.c_uint64),
                ("codebook", _Codebook)]


_LIBRARY_PATH, _LIBRARY_ORIGIN = _find_library()
_lib = _load_library(_LIBRARY_PATH, _LIBRARY_ORIGIN)
_P = ctypes.c_void_p
_SZ = ctypes.c_size_t
for name, res, args in [
    ("splitzip_params_init", None, [ctypes.POINTER(_Params)]),
    ("splitzip_ctx_create", ctypes.c_int, [ctypes.POINTER(_Params), ctypes.POINTER(_P)]),
    ("splitzip_ctx_free", None, [_P]),
    ("splitzip_ctx_backend_name", ctypes.c_char_p, [_P]),
    ("splitzip_compress_bound", _SZ, [_SZ]),
    ("splitzip_predict_frame_size", _SZ, [_SZ, _SZ, ctypes.c_uint]),
    ("splitzip_compress", ctypes.c_int, [_P, _P, _SZ, _P, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_compress_dtype", ctypes.c_int,
     [_P, ctypes.c_uint, _P, _SZ, _P, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_compress_bound_dtype", _SZ, [ctypes.c_uint, _SZ]),
    ("splitzip_decompressed_size", ctypes.c_int, [_P, _SZ, ctypes.POINTER(ctypes.c_uint64)]),
    ("splitzip_decompress", ctypes.c_int, [_P, _P, _SZ, _P, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_decompress_dtype", ctypes.c_int, [_P, _P, _SZ, _P, _SZ, ctypes.POINTER(_SZ)]),
    ("splitzip_get_frame_info", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_FrameInfo)]),
    ("splitzip_calibrate", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_Codebook)]),
    ("splitzip_entropy_calibrate", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_EntropyTable)]),
    ("splitzip_frame_entropy_table", ctypes.c_int, [_P, _SZ, ctypes.POINTER(_EntropyTable)]),
    ("splitzip_backend_count", _SZ, []),
    ("splitzip_backend_name", ctypes.c_char_p, [_SZ]),
    ("splitzip_backend_available", ctypes.c_int, [_SZ]),
    ("splitzip_backend_id_of", ctypes.c_int, [_SZ]),
    ("splitzip_status_name", ctypes.c_char_p, [ctypes.c_int]),
    ("splitzip_version_string", ctypes.c_char_p, []),
]:
    fn = getattr(_lib, name)
    fn.restype = res
    fn.argtypes = args


def _read_status_names():
    """The spellings of statuses 0, 1, ... up to the first that the library calls UNKNOWN."""
    names = []
    while len(names) < 1024:  # a bound, should the library never answer UNKNOWN
        name = _lib.splitzip_status_name(len(names)).decode()
        if name == "UNKNOWN":
            break
        names.append(name)
    return names


def _read_backend_ids():
    """{name: splitzip_backend_id} of every compiled-in backend, and "auto". The id of "auto" is
    what splitzip_backend_id_of() returns past the last backend (SPLITZIP_BACKEND_AUTO)."""
    n = _lib.splitzip_backend_count()
    ids = {"auto": _lib.splitzip_backend_id_of(n)}
    for i in range(n):
        ids[_lib.splitzip_backend_name(i).decode()] = _lib.splitzip_backend_id_of(i)
    return ids


_STATUS_NAMES = _read_status_names()
_BACKEND_IDS = _read_backend_ids()
_BACKEND_UNAVAILABLE = _STATUS_NAMES.index("ERROR_BACKEND_UNAVAILABLE")


def version():
    """The version string of the loaded library."""
    return _lib.splitzip_version_string().decode()


def backends():
    """[(name, usable_here)] for every backend compiled into the library, best first."""
    return [(_lib.splitzip_backend_name(i).decode(), bool(_lib.splitzip_backend_available(i)))
            for i in range(_lib.splitzip_backend_count())]


def compress_bound(n_elems):
    """Largest frame size in bytes for n_elems values."""
    return _lib.splitzip_compress_bound(n_elems)


def predict_frame_size(n_elems, n_escapes, chunk_log2=12):
    """Size of the frame compress() writes for n_elems values of which n_escapes are outside
    the frame's codebook (split4 or stored, FORMAT.md §6.3); 0 if an argument is out of
    range. See splitzip_predict_frame_size() in splitzip.h."""
    return _lib.splitzip_predict_frame_size(n_elems, n_escapes, chunk_log2)


def _as_u16(data):
    """A C-contiguous uint16 numpy view of BF16 bit patterns (numpy array or CPU torch tensor)."""
    mod = type(data).__module__
    if mod.startswith("torch"):
        import torch
        if data.device.type != "cpu":
            raise ValueError("only CPU tensors are supported by the host API")
        if data.dtype not in (torch.bfloat16, torch.int16, torch.uint8) or \
                (data.dtype == torch.uint8 and data.numel() % 2):
            raise TypeError(f"expected a bfloat16 or int16 tensor, got {data.dtype}")
        data = data.contiguous().view(torch.int16).numpy()
    arr = np.asarray(data)
    if arr.dtype not in (np.uint16, np.int16):
        raise TypeError(f"expected BF16 bit patterns as uint16/int16, got {arr.dtype}")
    return np.ascontiguousarray(arr).view(np.uint16).reshape(-1)


def _torch_dtypes():
    """torch dtype -> splitzip dtype name, for the dtypes this torch has."""
    import torch
    m = {torch.bfloat16: "bf16", torch.int16: "bf16", torch.float16: "f16",
         torch.float32: "f32"}
    for attr, name in (("float8_e4m3fn", "e4m3"), ("float8_e4m3fnuz", "e4m3"),
                       ("float8_e5m2", "e5m2"), ("float8_e5m2fnuz", "e5m2")):
        if hasattr(torch, attr):
            m[getattr(torch, attr)] = name
    return m


def _as_elems(data, dtype):
    """(bytes of the elements as a flat C-contiguous uint8 numpy array, splitzip dtype name).
    dtype None: from the data (torch bfloat16/int16/float16/float32/float8, numpy
    uint16/int16 (BF16 patterns), float16, float32); else a name of _DTYPE_CODES, and the data's
    bytes are taken as elements of it (e.g. uint8 FP8 patterns)."""
    if dtype is not None and dtype not in _DTYPE_CODES:
        raise ValueError(f"dtype must be one of {', '.join(_DTYPE_CODES)}, got {dtype!r}")
    if type(data).__module__.startswith("torch"):
        import torch
        if data.device.type != "cpu":
            raise ValueError("only CPU tensors are supported by the host API")
        known = _torch_dtypes()
        if dtype is None and data.dtype == torch.uint8:
            dtype = "bf16" if data.numel() % 2 == 0 else None  # BF16 bytes, as before
        if dtype is None and data.dtype not in known:
            raise TypeError(f"expected a bfloat16, float16, float32, float8 or int16 tensor "
                            f"(or uint8 with dtype=), got {data.dtype}")
        name = dtype or known[data.dtype]
        arr = data.contiguous().reshape(-1).view(torch.uint8).numpy()
    else:
        arr = np.ascontiguousarray(np.asarray(data))
        by_np = {np.dtype(np.uint16): "bf16", np.dtype(np.int16): "bf16",
                 np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}
        if dtype is None and arr.dtype not in by_np:
            raise TypeError(f"expected BF16 bit patterns as uint16/int16, or float16/float32 "
                            f"(uint8 needs dtype=), got {arr.dtype}")
        name = dtype or by_np[arr.dtype]
        arr = arr.reshape(-1).view(np.uint8)
    if arr.size % _DTYPE_WIDTH[name]:
        raise ValueError(f"{arr.size} bytes are not whole {name} elements")
    return arr, name


def _set_table(p, table):
    """A fixed entropy table: a dict {"lengths": 256 ints, "escape_length": int}, as
    calibrate_entropy() and frame_entropy_table() return it."""
    lengths = list(table["lengths"])
    if len(lengths) != 256:
        raise ValueError("an entropy table has 256 code lengths")
    p.table_mode = 1
    p.table.lengths[:] = lengths
    p.table.escape_length = table["escape_length"]


def _ctx(backend="auto", chunk_log2=0, checksum=False, codebook=None, threads=0, mode="split4",
         table=None):
    p = _Params()
    _lib.splitzip_params_init(ctypes.byref(p))
    if mode not in _ENCODINGS:
        raise ValueError(f"mode must be one of {', '.join(_ENCODINGS)}, got {mode!r}")
    p.encoding = _ENCODINGS[mode]
    if table is not None:
        _set_table(p, table)
    if backend not in _BACKEND_IDS:
        raise _UnknownBackendError(
            _BACKEND_UNAVAILABLE, f"backend {backend!r} is unknown or not compiled into this "
            f"library (choose from: {', '.join(_BACKEND_IDS)})")
    p.backend = _BACKEND_IDS[backend]
    p.chunk_log2 = chunk_log2
    p.flags = FLAG_CONTENT_CHECKSUM if checksum else 0
    p.n_threads = threads
    if codebook is not None:
        cb = list(codebook)
        if len(cb) != 16:
            raise ValueError("a codebook has 16 exponents")
        p.codebook_mode = 1
        p.codebook.exponents[:] = cb
    ctx = _P()
    st = _lib.splitzip_ctx_create(ctypes.byref(p), ctypes.byref(ctx))
    if st:
        raise SplitzipError(st, "splitzip_ctx_create")
    return ctx


def compress(data, *, checksum=False, chunk_log2=0, codebook=None, backend="auto", threads=0,
             mode=None, table=None, dtype=None):
    """Compress BF16 (or FP16, FP32, FP8) values into one frame (bytes). See
    include/splitzip.h.

    mode: "split4" (4-bit codes, fastest; the default), "entropy" (Huffman-coded exponents,
    smaller), "auto" (the smallest frame); E4M3 has no split4 and defaults to "entropy".
    chunk_log2 0 is the mode's default (12 for split4, 14 else). codebook: a fixed split4
    codebook (16 exponents); table: a fixed entropy table (a dict from calibrate_entropy() or
    frame_entropy_table()). dtype: None (from the data) or "bf16", "f16", "f32", "e4m3",
    "e5m2" (the data's bytes as elements of it)."""
    src, name = _as_elems(data, dtype)
    if mode is None:
        mode = "entropy" if name == "e4m3" else "split4"
    code = _DTYPE_CODES[name]
    n = src.size // _DTYPE_WIDTH[name]
    cap = _lib.splitzip_compress_bound_dtype(code, n)
    if cap == 0:
        raise ValueError("too many elements for one frame")
    out = ctypes.create_string_buffer(cap)
    size = _SZ()
    ctx = _ctx(backend, chunk_log2, checksum, codebook, threads, mode, table)
    try:
        st = _lib.splitzip_compress_dtype(ctx, code, src.ctypes.data, n, out, cap,
                                          ctypes.byref(size))
    finally:
        _lib.splitzip_ctx_free(ctx)
    if st:
        raise SplitzipError(st, "splitzip_compress")
    return out.raw[:size.value]


_NP_OUT = {"bf16": np.uint16, "f16": np.float16, "f32": np.float32, "e4m3": np.uint8,
           "e5m2": np.uint8}
_TORCH_OUT = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "e4m3": "float8_e4m3fn",
              "e5m2": "float8_e5m2"}


def decompress(frame, *, like="numpy", backend="auto"):
    """Decode one frame or a stream of frames of one dtype. Returns a numpy array: uint16 BF16
    bit patterns, float16, float32, or uint8 FP8 bit patterns; or with like="torch" a tensor
    of the frame's dtype (torch.bfloat16, float16, float32, float8_e4m3fn, float8_e5m2)."""
    if like not in ("numpy", "torch"):
        raise ValueError("like must be 'numpy' or 'torch'")
    buf = bytes(frame)
    n = ctypes.c_uint64()
    st = _lib.splitzip_decompressed_size(buf, len(buf), ctypes.byref(n))
    if st:
        raise SplitzipError(st, "splitzip_decompressed_size")
    name = frame_info(buf)["dtype"]
    out = np.empty(n.value, dtype=_NP_OUT[name])
    got = _SZ()
    ctx = _ctx(backend)
    try:
        st = _lib.splitzip_decompress_dtype(ctx, buf, len(buf), out.ctypes.data, out.nbytes,
                                            ctypes.byref(got))
    finally:
        _lib.splitzip_ctx_free(ctx)
    if st:
        raise SplitzipError(st, "splitzip_decompress_dtype")
    if like == "torch":
        import torch
        if name == "bf16":
            return torch.from_numpy(out.view(np.int16)).view(torch.bfloat16)
        # FP8 as uint8 bit patterns where this torch has no float8 dtypes
        return torch.from_numpy(out).view(getattr(torch, _TORCH_OUT[name], torch.uint8))
    return out


def frame_info(frame):
    """Header fields of the first frame as a dict (no decoding)."""
    buf = bytes(frame[:64])
    fi = _FrameInfo()
    st = _lib.splitzip_get_frame_info(buf, len(buf), ctypes.byref(fi))
    if st:
        raise SplitzipError(st, "splitzip_get_frame_info")
    return {"format_version": fi.format_version,
            "dtype": _DTYPE_NAMES.get(fi.dtype, str(fi.dtype)),
            "mode": _MODE_NAMES.get(fi.mode, str(fi.mode)), "chunk_log2": fi.chunk_log2,
            "checksum": bool(fi.flags & FLAG_CONTENT_CHECKSUM), "n_elems": fi.n_elems,
            "n_escapes": fi.n_escapes, "frame_size": fi.frame_size,
            "codebook": list(fi.codebook.exponents)}


def calibrate(data):
    """The canonical 16-exponent codebook of the data (list of ints)."""
    src = _as_u16(data)
    cb = _Codebook()
    st = _lib.splitzip_calibrate(src.ctypes.data, src.size, ctypes.byref(cb))
    if st:
        raise SplitzipError(st, "splitzip_calibrate")
    return list(cb.exponents)


def _table_dict(t):
    return {"lengths": list(t.lengths), "escape_length": t.escape_length}


def calibrate_entropy(data):
    """The canonical entropy table of the data: {"lengths": 256 code lengths (0 = coded as an
    escape), "escape_length": int}, for compress(..., mode="entropy", table=...)."""
    src = _as_u16(data)
    t = _EntropyTable()
    st = _lib.splitzip_entropy_calibrate(src.ctypes.data, src.size, ctypes.byref(t))
    if st:
        raise SplitzipError(st, "splitzip_entropy_calibrate")
    return _table_dict(t)


def frame_entropy_table(frame):
    """The entropy table of an entropy frame (a dict as calibrate_entropy returns), e.g. to
    encode later frames with it."""
    buf = bytes(frame)
    t = _EntropyTable()
    st = _lib.splitzip_frame_entropy_table(buf, len(buf), ctypes.byref(t))
    if st:
        raise SplitzipError(st, "splitzip_frame_entropy_table")
    return _table_dict(t)


from . import safetensors  # noqa: E402  (needs the functions above)

pack_safetensors = safetensors.pack
unpack_safetensors = safetensors.unpack


# Page streams (pages.py) and the RFC-shaped KV compression backend (kv_backend.py).
from .pages import (PageCodec, PageOp, PageResult, PagesError,  # noqa: E402
                    compress_pages, decompress_pages, pages_bound, pages_info)
from . import device  # noqa: E402  (the device runtimes of the *_async page calls)
from .kv_backend import (BatchSpec, BufferRequirements, EncodedBatch,  # noqa: E402
                         ExecutionContext, KVCompressionOp, KVCompressionSpec,
                         OperationSnapshot, PackedBatch, PagedKV, SplitzipKVBackend,
                         SupportResult)
from .lmcache_serde import SplitzipDeserializer, SplitzipSerializer  # noqa: E402

__all__ += ["PageCodec", "PageOp", "PageResult", "PagesError", "compress_pages",
            "decompress_pages", "device",
            "pages_bound", "pages_info", "BatchSpec", "BufferRequirements", "EncodedBatch",
            "ExecutionContext", "KVCompressionOp", "KVCompressionSpec", "OperationSnapshot",
            "PackedBatch", "PagedKV", "SplitzipKVBackend", "SupportResult", "SplitzipSerializer",
            "SplitzipDeserializer"]
