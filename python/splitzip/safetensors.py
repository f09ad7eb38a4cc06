"""safetensors files packed with splitzip (doc/FORMAT.md §11), the same container as the CLI's
`splitzip pack` / `unpack` / `info`, byte for byte:

    import splitzip.safetensors as sst
    sst.pack("model.safetensors", "model.szst")        # BF16, F16, F32, FP8 compressed
    sst.unpack("model.szst", "restored.safetensors")   # byte-identical to the original
    sst.info("model.szst")["tensors"][0]               # {'name': ..., 'ratio': ..., ...}
    sst.load("model.szst")["model.K"]                  # a tensor: numpy (uint16 for BF16)

A file with an F16, F32, F8_E4M3 or F8_E5M2 tensor gives container version 2 (those tensors
compressed as frames of their dtype); any other file version 1, as before. Both are read.

Invalid input raises SafetensorsError (a ValueError) whose .reason is the name FORMAT.md §11.6
and the CLI use (e.g. "OVERLAP", "METADATA_CHECKSUM"); a damaged frame raises
splitzip.SplitzipError with its status. Outputs are written to a temporary file in the target's
directory and renamed only on success; an existing target is kept unless overwrite=True.
"""
import json
import math
import os
import struct
import tempfile
import zlib

import numpy as np

from . import _DTYPE_WIDTH, compress, decompress, frame_info

__all__ = ["SafetensorsError", "pack", "unpack", "info", "load", "read_header"]

MAX_HEADER = 100_000_000
MAX_DIMS = 64
MAX_DEPTH = 64
U64 = 2**64 - 1
MAGIC = b"SZST"
VERSION = 2  # the latest Container_Version; 1 and 2 are read
HEADER_SIZE = 64
ENTRY_SIZE = 32
RAW, FRAMES = 0, 1
DEFAULT_FRAME_ELEMS = 1 << 24
ELEM_SIZE = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1, "I16": 2,
             "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8,
             "F64": 8, "C64": 8}
# Tensors stored as frames (FORMAT.md §11.5): BF16 always, the others from container version 2;
# the splitzip dtype names of their frames.
FRAME_DTYPE = {"BF16": "bf16", "F8_E4M3": "e4m3", "F8_E5M2": "e5m2", "F16": "f16", "F32": "f32"}
V2_DTYPES = frozenset(FRAME_DTYPE) - {"BF16"}
NUMPY_DTYPE = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "I16": np.int16,
               "U16": np.uint16, "F16": np.float16, "BF16": np.uint16, "I32": np.int32,
               "U32": np.uint32, "F32": np.float32, "I64": np.int64, "U64": np.uint64,
               "F64": np.float64, "C64": np.complex64}


class SafetensorsError(ValueError):
    """An invalid safetensors file or container; .reason is its FORMAT.md §11.6 name."""

    def __init__(self, reason, message):
        self.reason = reason
        super().__init__(f"{message} [{reason}]")


def _align16(x):
    return (x + 15) & ~15


# ---- The JSON header (FORMAT.md §11.2), the same rules as tools/safetensors.c ------------------

class _Obj(list):
    """A JSON object as its list of (key, value) pairs, in order, duplicates kept."""


def _parse_int(s):
    if s[0] == "-":
        return -1  # never valid where an integer is wanted
    return U64 + 1 if len(s) > 20 else int(s)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _walk_ok(value):
    """Nesting at most MAX_DEPTH, every string (keys too) valid UTF-8 (no lone surrogate)."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, list):
            if depth + 1 > MAX_DEPTH:
                return False
            for item in v:
                if isinstance(v, _Obj):
                    try:
                        item[0].encode("utf-8")
                    except UnicodeEncodeError:
                        return False
                    item = item[1]
                stack.append((item, depth + 1))
        elif isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def _load_json(raw):
    try:
        obj = json.loads(raw.decode("utf-8"), object_pairs_hook=_Obj, parse_int=_parse_int,
                         parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise SafetensorsError("BAD_JSON", "the header is not valid JSON") from None
    if not _walk_ok(obj):
        raise SafetensorsError("BAD_JSON", "the header is not valid JSON")
    return obj


def _is_uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= U64


def _bad(reason, msg):
    return SafetensorsError(reason, msg)


def _tensor_fields(name, value):
    """dtype, shape, data_offsets of one entry; the first problem in field order."""
    if not isinstance(value, _Obj):
        raise _bad("BAD_HEADER", f"tensor {name!r}: not a JSON object")
    got = {}
    for key, v in value:
        if key not in ("dtype", "shape", "data_offsets"):
            continue
        if key in got:
            raise _bad("BAD_HEADER", f"tensor {name!r}: a field appears twice")
        if key == "dtype" and not (isinstance(v, str) and "\0" not in v):
            raise _bad("BAD_HEADER", f"tensor {name!r}: dtype is not a string (without NUL)")
        if key == "shape" and not (isinstance(v, list) and not isinstance(v, _Obj)
                                   and all(_is_uint(d) for d in v)):
            raise _bad("BAD_HEADER", f"tensor {name!r}: shape is not an array of integers")
        if key == "data_offsets" and not (isinstance(v, list) and not isinstance(v, _Obj)
                                          and len(v) == 2 and all(_is_uint(d) for d in v)):
            raise _bad("BAD_HEADER", f"tensor {name!r}: data_offsets is not two integers")
        got[key] = v
    if len(got) != 3:
        raise _bad("BAD_HEADER", f"tensor {name!r}: dtype, shape or data_offsets missing")
    return got


def _entries(obj):
    """The tensors of the top-level object, in header order (structure checks)."""
    if not isinstance(obj, _Obj):
        raise _bad("BAD_HEADER", "the header is not a JSON object")
    tensors, n_meta = [], 0
    for name, value in obj:
        if "\0" in name:
            raise _bad("BAD_HEADER", "a tensor name holds U+0000")
        if name == "__metadata__":
            n_meta += 1
            if not isinstance(value, _Obj):
                raise _bad("BAD_HEADER", "__metadata__ is not a JSON object")
            if not all(isinstance(v, str) for _, v in value):
                raise _bad("BAD_HEADER", "__metadata__ holds a value that is not a string")
            continue
        f = _tensor_fields(name, value)
        tensors.append({"name": name, "dtype": f["dtype"], "shape": list(f["shape"]),
                        "begin": f["data_offsets"][0], "end": f["data_offsets"][1],
                        "index": len(tensors)})
    if n_meta > 1:
        raise _bad("DUPLICATE_NAME", "__metadata__ appears more than once")
    names = sorted(t["name"].encode("utf-8") for t in tensors)
    for a, b in zip(names, names[1:]):
        if a == b:
            raise _bad("DUPLICATE_NAME", f"tensor {a.decode()!r} appears more than once")
    return tensors


def _check_tensor(t, data_size):
    if len(t["shape"]) > MAX_DIMS:
        raise _bad("BAD_SHAPE", f"tensor {t['name']!r}: more than 64 dimensions")
    t["n_elems"] = math.prod(t["shape"])
    if t["n_elems"] > U64:
        raise _bad("BAD_SHAPE", f"tensor {t['name']!r}: element count above 2^64-1")
    if t["begin"] > t["end"] or t["end"] > data_size:
        raise _bad("BAD_OFFSETS", f"tensor {t['name']!r}: data_offsets outside the data")
    es = ELEM_SIZE.get(t["dtype"], 0)
    if es and (t["end"] - t["begin"]) != t["n_elems"] * es:
        raise _bad("BAD_SHAPE", f"tensor {t['name']!r}: size differs from shape x dtype size")


def parse_header(raw, data_size):
    """Validate the JSON header 'raw' (bytes) of a safetensors file whose data buffer has
    data_size bytes. Returns its tensors (dicts) in data order, which tile the buffer."""
    tensors = _entries(_load_json(raw))
    for t in tensors:
        _check_tensor(t, data_size)
    tensors.sort(key=lambda t: (t["begin"], t["end"], t["index"]))
    pos = 0
    for t in tensors:
        if t["begin"] < pos:
            raise _bad("OVERLAP", f"tensor {t['name']!r} overlaps the tensor before it")
        if t["begin"] > pos:
            raise _bad("GAP", f"bytes before tensor {t['name']!r} belong to no tensor")
        pos = t["end"]
    if pos != data_size:
        raise _bad("GAP", "bytes after the last tensor belong to no tensor")
    return tensors


def read_header(path):
    """(header bytes: the 8-byte length and the JSON, tensors in data order, file size) of a
    safetensors file, validated."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise _bad("TRUNCATED_HEADER", f"{path}: shorter than 8 bytes")
        n = struct.unpack("<Q", head)[0]
        if n > MAX_HEADER:
            raise _bad("HEADER_TOO_LARGE", f"{path}: header larger than {MAX_HEADER} bytes")
        if 8 + n > size:
            raise _bad("TRUNCATED_HEADER", f"{path}: the header runs past the end")
        head += f.read(n)
    return head, parse_header(head[8:], size - 8 - n), size


# ---- The container (FORMAT.md §11.3-§11.6), the same rules as tools/szst.c ---------------------

class _AtomicOut:
    """A temporary file beside 'path', renamed over it on success, removed on failure."""

    def __init__(self, path, overwrite):
        if not overwrite and os.path.lexists(path):
            raise FileExistsError(f"{path}: already exists (overwrite=True to replace it)")
        self.path, self.overwrite = path, overwrite
        directory = os.path.dirname(os.path.abspath(path))
        fd, self.tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".splitzip-tmp.",
                                        dir=directory)
        self.f = os.fdopen(fd, "w+b")

    def __enter__(self):
        return self.f

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.f.flush()
                os.fsync(self.f.fileno())
            self.f.close()
            if exc_type is None:
                if not self.overwrite and os.path.lexists(self.path):
                    raise FileExistsError(f"{self.path}: already exists")
                mask = os.umask(0)
                os.umask(mask)
                os.chmod(self.tmp, 0o666 & ~mask)
                os.replace(self.tmp, self.path)
        finally:
            if os.path.exists(self.tmp):
                os.unlink(self.tmp)
        return False


def _version_for(tensors):
    """The version pack writes: 2 if a tensor is F16, F32, F8_E4M3 or F8_E5M2, else 1."""
    return 2 if any(t["dtype"] in V2_DTYPES for t in tensors) else 1


def _encoding(dtype, version):
    return FRAMES if dtype == "BF16" or (version >= 2 and dtype in V2_DTYPES) else RAW


def _header_bytes(version, count, shs, source_size, container_size, meta_crc):
    h = MAGIC + bytes([version, 0, 0, 0]) + struct.pack("<I4x", count)
    h += struct.pack("<QQQI", shs, source_size, container_size, meta_crc) + bytes(16)
    return h + struct.pack("<I", zlib.crc32(h))


def _build(version, head, entries, source_size):
    """Header (64 bytes) and metadata of a container; entries are (encoding, crc, source
    size, stored size) in data order."""
    pos = HEADER_SIZE + _align16(len(head)) + ENTRY_SIZE * len(entries)
    table = b""
    for enc, crc, src_size, stored in entries:
        table += struct.pack("<B3xIQQQ", enc, crc, src_size, pos, stored)
        pos = _align16(pos + stored)
    meta = head + bytes(_align16(len(head)) - len(head)) + table
    return (_header_bytes(version, len(entries), len(head), source_size, pos, zlib.crc32(meta)),
            meta)


def _copy(f, out, n, crc=0, block=DEFAULT_FRAME_ELEMS * 2):
    """Copy n bytes from f to out (out may be None); returns the CRC-32 of them."""
    while n:
        chunk = f.read(min(n, block))
        if not chunk:
            raise OSError("file changed while being read")
        crc = zlib.crc32(chunk, crc)
        if out is not None:
            out.write(chunk)
        n -= len(chunk)
    return crc


def _pack_frames(f, out, nbytes, dtype, frame_elems, opts):
    """Frames of at most frame_elems elements of the splitzip dtype 'dtype'; their size."""
    stored, left, first = 0, nbytes, True
    block = frame_elems * _DTYPE_WIDTH[dtype]
    while left or first:
        chunk = f.read(min(left, block))
        if len(chunk) != min(left, block):
            raise OSError("file changed while being read")
        frame = compress(np.frombuffer(chunk, dtype=np.uint8), dtype=dtype, **opts)
        out.write(frame)
        stored += len(frame)
        left -= len(chunk)
        first = False
    return stored


def _frame_options(dtype, mode, codebook, table, common):
    """compress() options for tensors of a splitzip dtype, as `splitzip pack` uses them: the
    codebook and table for BF16 only (the other dtypes take theirs from their data), one mode
    for all (the table alone means entropy), entropy for E4M3 in place of split4."""
    mode = mode or ("entropy" if table is not None else "split4")
    if dtype == "bf16":
        return dict(common, mode=mode, codebook=codebook, table=table)
    return dict(common, mode="entropy" if dtype == "e4m3" and mode == "split4" else mode)


def pack(src, dst, *, checksum=True, codebook=None, chunk_log2=0,
         frame_elems=DEFAULT_FRAME_ELEMS, backend="auto", threads=0, mode=None, table=None,
         overwrite=False):
    """Pack the safetensors file 'src' into the container 'dst' (what `splitzip pack` writes
    with the same options, byte for byte). BF16 tensors, and F16, F32, F8_E4M3 and F8_E5M2
    tensors (container version 2), become frames of at most frame_elems elements; mode
    ("split4", "entropy", "auto"), chunk_log2 (0: the mode's default), checksum, backend and
    threads apply to all of them, codebook and table to the BF16 tensors only (see
    `splitzip pack`). Returns the container's size."""
    head, tensors, size = read_header(src)
    version = _version_for(tensors)
    common = dict(checksum=checksum, chunk_log2=chunk_log2, backend=backend, threads=threads)
    entries = []
    with open(src, "rb") as f, _AtomicOut(dst, overwrite) as out:
        out.write(bytes(HEADER_SIZE + _align16(len(head)) + ENTRY_SIZE * len(tensors)))
        f.seek(len(head))
        for t in tensors:
            n = t["end"] - t["begin"]
            if _encoding(t["dtype"], version) == FRAMES:
                dt = FRAME_DTYPE[t["dtype"]]
                opts = _frame_options(dt, mode, codebook, table, common)
                entries.append((FRAMES, 0, n, _pack_frames(f, out, n, dt, frame_elems, opts)))
            else:
                entries.append((RAW, _copy(f, out, n), n, n))
                out.write(bytes(_align16(n) - n))
        header, meta = _build(version, head, entries, size)
        out.seek(0)
        out.write(header + meta)
        out.seek(0, os.SEEK_END)
        return out.tell()


def _container_header(p, file_size):
    """Steps 1-7 of FORMAT.md §11.6."""
    if len(p) < HEADER_SIZE:
        raise _bad("BAD_MAGIC" if p[:4] != MAGIC[:len(p[:4])] else "TRUNCATED",
                   "not a splitzip safetensors container")
    if p[:4] != MAGIC:
        raise _bad("BAD_MAGIC", "not a splitzip safetensors container")
    if p[4] == 0:
        raise _bad("CORRUPT", "container version 0")
    if p[4] > VERSION:
        raise _bad("UNSUPPORTED_VERSION", f"container version {p[4]}")
    if struct.unpack_from("<I", p, 60)[0] != zlib.crc32(p[:60]):
        raise _bad("HEADER_CHECKSUM", "container header checksum mismatch")
    if any(p[5:8]) or any(p[12:16]) or any(p[44:60]):
        raise _bad("CORRUPT", "reserved bytes are not zero")
    count = struct.unpack_from("<I", p, 8)[0]
    shs, src_size, size, meta_crc = struct.unpack_from("<QQQI", p, 16)
    data_off = HEADER_SIZE + _align16(shs) + ENTRY_SIZE * count
    if shs < 10 or shs > 8 + MAX_HEADER or src_size < shs or size % 16 or data_off > size:
        raise _bad("CORRUPT", "inconsistent sizes in the container header")
    if file_size < size:
        raise _bad("TRUNCATED", "the file ends before the container")
    if file_size > size:
        raise _bad("CORRUPT", "bytes after the end of the container")
    return dict(version=p[4], count=count, shs=shs, source_size=src_size, size=size,
                meta_crc=meta_crc, data_off=data_off)


def _table(h, meta, tensors):
    """Step 11: the table against the stored header's tensors."""
    if len(tensors) != h["count"]:
        raise _bad("BAD_TABLE", f"{h['count']} table entries for {len(tensors)} tensors")
    entries, pos = [], h["data_off"]
    base = _align16(h["shs"])
    for i, t in enumerate(tensors):
        enc, r0, r1, r2, crc, src, off, stored = struct.unpack_from(
            "<BBBBIQQQ", meta, base + i * ENTRY_SIZE)
        name = t["name"]
        if r0 or r1 or r2 or (enc == FRAMES and crc):
            raise _bad("CORRUPT", f"tensor {name!r}: reserved bytes are not zero")
        if enc != _encoding(t["dtype"], h["version"]):
            raise _bad("BAD_TABLE", f"tensor {name!r}: encoding does not match its dtype")
        if src != t["end"] - t["begin"]:
            raise _bad("BAD_TABLE", f"tensor {name!r}: size differs from its data_offsets")
        if off != pos:
            raise _bad("BAD_TABLE", f"tensor {name!r}: stored offset is not where it must be")
        if (stored != src) if enc == RAW else (stored < 64 or stored % 16):
            raise _bad("BAD_TABLE", f"tensor {name!r}: stored size impossible")
        if stored > U64 - 16 - pos:
            raise _bad("BAD_TABLE", f"tensor {name!r}: stored size out of range")
        entries.append(dict(encoding=enc, crc=crc, source_size=src, offset=off, stored=stored))
        pos = _align16(pos + stored)
    if pos != h["size"]:
        raise _bad("BAD_TABLE", f"the tensors end at byte {pos}, the container at {h['size']}")
    if h["version"] == 2 and _version_for(tensors) != 2:
        raise _bad("BAD_TABLE", "version 2 without an F16, F32 or FP8 tensor")
    return entries


def _open_container(f, file_size):
    """Steps 1-11 of §11.6: (header dict, stored safetensors header, tensors, entries)."""
    h = _container_header(f.read(HEADER_SIZE), file_size)
    meta = f.read(h["data_off"] - HEADER_SIZE)
    if len(meta) != h["data_off"] - HEADER_SIZE:
        raise _bad("TRUNCATED", "the file ends inside the container's metadata")
    if zlib.crc32(meta) != h["meta_crc"]:
        raise _bad("METADATA_CHECKSUM", "container metadata checksum mismatch")
    shs = h["shs"]
    if any(meta[shs:_align16(shs)]) or struct.unpack_from("<Q", meta)[0] != shs - 8:
        raise _bad("CORRUPT", "stored safetensors header: bad length or padding")
    tensors = parse_header(meta[8:shs], h["source_size"] - shs)
    return h, meta[:shs], tensors, _table(h, meta, tensors)


def _frames(f, t, e, backend, sink):
    """Decode the frames of a tensor stored as frames (§11.6 step 12), each array to
    sink(array)."""
    left, total, dtype = e["stored"], 0, FRAME_DTYPE[t["dtype"]]
    while left:
        if left < HEADER_SIZE:
            raise _bad("CORRUPT", f"tensor {t['name']!r}: frames do not fill its stored size")
        hdr = f.read(HEADER_SIZE)
        fi = frame_info(hdr)
        if fi["dtype"] != dtype:
            raise _bad("CORRUPT", f"tensor {t['name']!r}: a frame of another dtype")
        fsize = fi["frame_size"]
        if fsize > left:
            raise _bad("CORRUPT", f"tensor {t['name']!r}: a frame runs past its stored size")
        arr = decompress(hdr + f.read(fsize - HEADER_SIZE), backend=backend)
        total += arr.nbytes
        left -= fsize
        if total > e["source_size"]:
            raise _bad("ELEMENT_COUNT", f"tensor {t['name']!r}: too many elements")
        sink(arr)
    if total != e["source_size"]:
        raise _bad("ELEMENT_COUNT", f"tensor {t['name']!r}: too few elements")


def _raw(f, t, e, sink):
    n = e["source_size"]
    data = f.read(n)
    if len(data) != n:
        raise OSError("file changed while being read")
    if any(f.read(_align16(n) - n)):
        raise _bad("CORRUPT", f"tensor {t['name']!r}: nonzero padding")
    if zlib.crc32(data) != e["crc"]:
        raise _bad("TENSOR_CHECKSUM", f"tensor {t['name']!r}: checksum mismatch")
    sink(data)


def unpack(src, dst, *, backend="auto", overwrite=False):
    """Restore the safetensors file packed in 'src' to 'dst', byte for byte, after checking
    everything (FORMAT.md §11.6). Returns the restored file's size."""
    with open(src, "rb") as f:
        h, head, tensors, entries = _open_container(f, os.fstat(f.fileno()).st_size)
        with _AtomicOut(dst, overwrite) as out:
            out.write(head)
            for t, e in zip(tensors, entries):
                if e["encoding"] == FRAMES:
                    _frames(f, t, e, backend, lambda a: out.write(a.tobytes()))
                else:
                    _raw(f, t, e, out.write)
            return out.tell()


def _frame_walk(f, t, e):
    """Elements, escapes and frames of a tensor stored as frames, from its frame headers."""
    pos, end, n, esc, k = e["offset"], e["offset"] + e["stored"], 0, 0, 0
    dtype = FRAME_DTYPE[t["dtype"]]
    while pos < end:
        if end - pos < HEADER_SIZE:
            raise _bad("CORRUPT", f"tensor {t['name']!r}: frames do not fill its stored size")
        f.seek(pos)
        fi = frame_info(f.read(HEADER_SIZE))
        if fi["dtype"] != dtype:
            raise _bad("CORRUPT", f"tensor {t['name']!r}: a frame of another dtype")
        if fi["frame_size"] > end - pos:
            raise _bad("CORRUPT", f"tensor {t['name']!r}: a frame runs past its stored size")
        n, esc, k, pos = n + fi["n_elems"], esc + fi["n_escapes"], k + 1, pos + fi["frame_size"]
    if n * _DTYPE_WIDTH[dtype] != e["source_size"]:
        raise _bad("ELEMENT_COUNT", f"tensor {t['name']!r}: frames hold {n} elements")
    return n, esc, k


def info(path):
    """What `splitzip info` shows of a container, as a dict (frame headers only, nothing is
    decoded)."""
    with open(path, "rb") as f:
        h, head, tensors, entries = _open_container(f, os.fstat(f.fileno()).st_size)
        out = []
        for t, e in zip(tensors, entries):
            d = dict(name=t["name"], dtype=t["dtype"], shape=t["shape"],
                     bytes=e["source_size"], stored=e["stored"],
                     ratio=e["source_size"] / e["stored"] if e["stored"] else 1.0)
            if e["encoding"] == FRAMES:
                d["elements"], d["escapes"], d["frames"] = _frame_walk(f, t, e)
            out.append(d)
    return dict(version=h["version"], source_size=h["source_size"], container_size=h["size"],
                ratio=h["source_size"] / h["size"], header_size=h["shs"], tensors=out)


def _as_array(t, data):
    dt = NUMPY_DTYPE.get(t["dtype"])
    if dt is None:
        return np.frombuffer(data, dtype=np.uint8).copy()
    return np.frombuffer(data, dtype=np.dtype(dt).newbyteorder("<")).reshape(t["shape"]).copy()


def load(path, *, backend="auto"):
    """{name: numpy array} of a container or a plain safetensors file, in data order. BF16
    tensors are uint16 arrays of their bit patterns (splitzip.decompress(..., like="torch")
    style conversion: torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)); dtypes numpy
    lacks (F8, F4 ...) are flat uint8 arrays of their bytes."""
    result = {}
    with open(path, "rb") as f:
        if f.read(4) != MAGIC:
            head, tensors, _ = read_header(path)
            f.seek(len(head))
            for t in tensors:
                result[t["name"]] = _as_array(t, f.read(t["end"] - t["begin"]))
            return result
        f.seek(0)
        _, _, tensors, entries = _open_container(f, os.fstat(f.fileno()).st_size)
        for t, e in zip(tensors, entries):
            parts = []
            if e["encoding"] == FRAMES:
                _frames(f, t, e, backend, lambda a: parts.append(a.tobytes()))
            else:
                _raw(f, t, e, parts.append)
            result[t["name"]] = _as_array(t, b"".join(parts))
    return result
