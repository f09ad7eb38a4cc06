"""A serializer/deserializer pair with the interface of LMCache's v1 storage serde
(lmcache/v1/storage_backend/naive_serde/serde.py: Serializer.serialize(memory_obj) ->
MemoryObj, Deserializer.deserialize(memory_obj) -> MemoryObj), compressing KV chunks losslessly
with a splitzip page stream. No LMCache import is needed: LMCache's CreateSerde() is where an
engine would plug these in (doc/INTEGRATION.md, "LMCache").

    ser, de = SplitzipSerializer(mode="entropy"), SplitzipDeserializer()
    blob = ser.serialize(memory_obj)          # .byte_array: exactly the compressed bytes
    restored = de.deserialize(blob)           # .tensor: the chunk, bit for bit

What travels is the stored blob alone, so it describes itself: a 32-byte header (magic "SZLM",
version 1, the dtype, the rank and up to 4 dimensions of the tensor) followed by one page
stream (doc/FORMAT.md §12) whose pages are the tensor's rows along its first two dimensions
(KV_2LTD: one page per K or V of each layer, [tokens, hidden] each). The blob's size is the real
compressed size, never an estimate: a store that keeps the estimate-sized buffer saves nothing.

The memory objects are duck-typed: serialize() reads memory_obj.tensor (a BF16 torch tensor on
the CPU, or numpy uint16 bit patterns) and returns a BytesMemoryObj (.byte_array, .get_size(),
.metadata, .tensor None); deserialize() reads memory_obj.byte_array (or bytes) and returns a
TensorMemoryObj (.tensor, .get_size(), .get_shape(), .get_dtype(), .metadata), its tensor
allocated by the memory_allocator given (a callable (shape, dtype) -> tensor, e.g. one of
LMCache's allocators wrapped) or by torch.
"""
import struct
from dataclasses import dataclass

import numpy as np

from . import SplitzipError
from .pages import PageCodec

__all__ = ["SplitzipSerializer", "SplitzipDeserializer", "BytesMemoryObj", "TensorMemoryObj",
           "SERDE_MAGIC"]

SERDE_MAGIC = b"SZLM"
_HEADER = struct.Struct("<4sBBBB4Q")  # magic, version, dtype, rank, reserved, dims
_BF16 = 1


@dataclass
class _Meta:
    shape: tuple
    dtype: str
    phy_size: int


class BytesMemoryObj:
    """A serialized KV chunk: exactly the compressed bytes (LMCache's BytesBufferMemoryObj)."""

    def __init__(self, data, shape, dtype="bfloat16"):
        self.byte_array = bytes(data)
        self.tensor = None
        self.metadata = _Meta(tuple(shape), dtype, len(self.byte_array))

    def get_size(self):
        return len(self.byte_array)


class TensorMemoryObj:
    """A deserialized KV chunk: its tensor and metadata (LMCache's MemoryObj surface)."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.metadata = _Meta(tuple(tensor.shape), "bfloat16", _nbytes(tensor))

    def get_size(self):
        return self.metadata.phy_size

    def get_shape(self):
        return self.metadata.shape

    def get_dtype(self):
        return self.tensor.dtype


def _nbytes(t):
    return t.numel() * t.element_size() if hasattr(t, "element_size") else int(t.nbytes)


def _bits(t):
    """uint16 numpy view of a BF16 tensor (CPU torch bfloat16/int16, or numpy uint16/int16)."""
    if type(t).__module__.startswith("torch"):
        import torch
        if t.device.type != "cpu":
            t = t.cpu()
        if t.dtype not in (torch.bfloat16, torch.int16):
            raise TypeError(f"splitzip serde: BF16 KV chunks, got {t.dtype}")
        return t.contiguous().view(torch.int16).numpy().view(np.uint16)
    a = np.asarray(t)
    if a.dtype not in (np.uint16, np.int16):
        raise TypeError(f"splitzip serde: BF16 bit patterns, got {a.dtype}")
    return np.ascontiguousarray(a).view(np.uint16)


def _pages_of(bits):
    """Pages of the tensor: its rows along the first two dimensions (one for rank <= 1)."""
    if bits.ndim <= 1:
        return [bits.reshape(-1)]
    lead = bits.shape[0] * (bits.shape[1] if bits.ndim > 2 else 1)
    return list(bits.reshape(lead, -1))


class SplitzipSerializer:
    """serialize(memory_obj) -> BytesMemoryObj holding the compressed chunk. The constructor
    takes LMCache's (config, metadata) positionally and ignores them (the blob describes
    itself); mode / checksum / table as for splitzip.compress_pages."""

    def __init__(self, config=None, metadata=None, *, mode="entropy", checksum=True, **kw):
        self._codec = PageCodec(mode=mode, checksum=checksum, **kw)

    def serialize(self, memory_obj):
        t = getattr(memory_obj, "tensor", memory_obj)
        bits = _bits(t)
        if bits.ndim > 4:
            raise ValueError("splitzip serde: tensors of rank 4 at most")
        dims = list(bits.shape) + [0] * (4 - bits.ndim)
        head = _HEADER.pack(SERDE_MAGIC, 1, _BF16, bits.ndim, 0, *dims)
        return BytesMemoryObj(head + self._codec.compress(_pages_of(bits)), bits.shape)


class SplitzipDeserializer:
    """deserialize(memory_obj) -> TensorMemoryObj with the chunk restored bit for bit.
    memory_allocator: a callable (shape, dtype) -> tensor for the output (default torch.empty;
    numpy uint16 without torch). Raises SplitzipError on a damaged blob (its .name says how)."""

    def __init__(self, config=None, metadata=None, memory_allocator=None):
        self._alloc = memory_allocator
        self._codec = PageCodec()

    def _allocate(self, shape):
        if self._alloc is not None:
            return self._alloc(shape, "bfloat16")
        try:
            import torch
            return torch.empty(shape, dtype=torch.bfloat16)
        except ImportError:
            return np.empty(shape, np.uint16)

    def deserialize(self, memory_obj):
        data = getattr(memory_obj, "byte_array", memory_obj)
        data = bytes(data)
        if len(data) < _HEADER.size:
            raise SplitzipError(9, "splitzip serde: blob shorter than its header")  # TRUNCATED
        magic, version, dtype, rank, _, *dims = _HEADER.unpack_from(data)
        if magic != SERDE_MAGIC:
            raise SplitzipError(8, "splitzip serde: not a splitzip KV blob")  # BAD_MAGIC
        if version != 1 or dtype != _BF16 or rank > 4:
            raise SplitzipError(4, "splitzip serde: unsupported blob")  # UNSUPPORTED_FORMAT
        shape = tuple(dims[:rank])
        out = self._allocate(shape)
        bits = _bits(out) if not type(out).__module__.startswith("torch") else None
        pages = _pages_of(bits) if bits is not None else _torch_pages(out)
        self._codec.decompress(data[_HEADER.size:], pages, exact=True)
        return TensorMemoryObj(out)


def _torch_pages(t):
    """Writable page views of a torch tensor, the same split as _pages_of."""
    if t.dim() <= 1:
        return [t.reshape(-1)]
    lead = t.shape[0] * (t.shape[1] if t.dim() > 2 else 1)
    return list(t.reshape(lead, -1))
