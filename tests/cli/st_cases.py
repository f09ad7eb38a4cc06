"""Test files for safetensors pack/unpack (tests/cli/test_safetensors.sh and
python/tests/test_safetensors.py): a real safetensors file built from real tensors, and hostile
safetensors files and containers, each with the reason (FORMAT.md §11.6 name, or a frame status)
every implementation must report.

    python3 st_cases.py SPLITZIP DATA_DIR OUT_DIR
        writes model.safetensors, mixed.safetensors (every dtype of container version 2),
        bf16_only.safetensors, their containers *.szst (packed by the CLI), hostile/*, and
        cases.txt (one "file reason kind" line per hostile file; "file OK accepted" for each
        valid edge case of accepted_safetensors(), which is written to hostile/ too; "file OK
        accepted_container ORIGINAL" for each valid container of accepted_containers(), which
        must unpack to hostile/ORIGINAL). Needs no splitzip Python package (the CLI
        compresses), so that it also runs where the library is a sanitizer build.

DATA_DIR is the real-data directory (../shared/data when present beside the checkout: KV caches
of two small models and their weights, see its README.md; else the bundled data/): K and V caches
and, when present, weight tensors, all BF16; plus an F32 tensor (real values, widened), an I64
tensor (the token ids), an odd-sized U8 tensor, an empty BF16 tensor and __metadata__.
"""
import json
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

U64 = 2**64 - 1
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "vectors"))
import dtype_ref  # noqa: E402  (the frame header checksum, FORMAT.md §7.3)
# The CRC-32 and size of the container that `splitzip pack` (default options) writes of
# bf16_only_bytes(), recorded from the writer before container version 2: a BF16-only file
# stays version 1, byte for byte (FORMAT.md §11).
BF16_ONLY_V1 = (0x51A153C5, 787840)


def _bf16(path, n=None):
    a = np.fromfile(path, dtype="<u2")
    return a if n is None else a[:n]


def real_tensors(data_dir):
    """(name, dtype, shape, bytes) of real tensors, in the order they are laid out."""
    d = Path(data_dir)
    kv = sorted((d / "kv").glob("aidreams260k__shakespeare.*.bf16"))
    meta = json.loads((d / "kv" / "aidreams260k__shakespeare.json").read_text())
    shape = meta.get("shape") or [4, 1024, 4, 16]
    out = []
    for f in kv:
        which = f.name.split(".")[-2]
        out.append((f"cache.{which}", "BF16", list(shape), _bf16(f).tobytes()))
    w = d / "weights" / "aidreams260k.weights.json"
    if w.is_file():
        wm = json.loads(w.read_text())
        data = _bf16(d / "weights" / wm["file"])
        for t in wm["tensors"][:6]:
            n = int(np.prod(t["shape"]))
            off = t["offset_elements"]
            out.append((t["name"], "BF16", t["shape"], data[off:off + n].tobytes()))
    widened = (_bf16(kv[0], 1000).astype(np.uint32) << 16).view("<f4")
    out.append(("scale.f32", "F32", [10, 100], widened.tobytes()))
    tok = d / "kv" / "aidreams260k__shakespeare.tokens.u16"
    if tok.is_file():
        ids = np.fromfile(tok, dtype="<u2").astype("<i8")
        out.append(("tokens", "I64", [ids.size], ids.tobytes()))
    out.append(("mask.u8", "U8", [3], b"\x01\x00\x01"))
    out.append(("empty.bf16", "BF16", [0, 16], b""))
    return out


def bf16_only_bytes():
    """A safetensors file without F16, F32 or FP8 tensors, from the bundled data/ only (so that
    its container is the same on every machine): packed, it is container version 1."""
    tensors = [t for t in real_tensors(ROOT / "data") if t[1] != "F32"]
    return safetensors_bytes(tensors, metadata={"format": "pt"})


def _e4m3(f16):
    """E4M3 bit patterns (sign, 4-bit exponent, 3 mantissa bits) of FP16 patterns: the exponent
    rebiased and clamped, the mantissa truncated."""
    f16 = f16.astype(np.int32)
    exp = np.clip(((f16 >> 10) & 0x1F) - 8, 0, 15)
    return (((f16 >> 8) & 0x80) | (exp << 3) | ((f16 >> 7) & 0x7)).astype(np.uint8)


def mixed_tensors(data_dir):
    """(name, dtype, shape, bytes) of a file of every dtype that container version 2 compresses
    (FORMAT.md §11): BF16, F16, F32, F8_E4M3 and F8_E5M2 tensors of real values, empty ones and
    odd-sized ones (whose frames are stored), and I32 and U8 tensors kept as they are. FP16 and
    FP32 are the real KV of nativekv/ where DATA_DIR has it, else the BF16 KV converted; the FP8
    tensors are derived from the FP16 one (E5M2: its high bytes)."""
    d = Path(data_dir)
    k, v = (_bf16(d / "kv" / f"aidreams260k__shakespeare.{w}.bf16") for w in "KV")
    f16_path = d / "nativekv" / "llama3-8b-instruct_L10_K.f16"
    f32_path = d / "nativekv" / "gpt2-124m_allL_K.f32"
    f16 = (np.fromfile(f16_path, dtype="<u2") if f16_path.is_file() else
           (v.astype(np.uint32) << 16).view("<f4").astype("<f2").view("<u2"))
    f32 = (np.fromfile(f32_path, dtype="<u4") if f32_path.is_file() else
           (k.astype(np.uint32) << 16 | (v.astype(np.uint32) & 0xFF)))
    f16, f32 = f16[:29952], f32[:25000]
    e5m2 = (f16 >> 8).astype(np.uint8)
    return [
        ("k.bf16", "BF16", [4, 1024, 4, 16], k.tobytes()),
        ("k.f16", "F16", [f16.size // 128, 128], f16.tobytes()),
        ("k.f32", "F32", [f32.size], f32.tobytes()),
        ("k.e4m3", "F8_E4M3", [f16.size], _e4m3(f16).tobytes()),
        ("k.e5m2", "F8_E5M2", [e5m2.size], e5m2.tobytes()),
        ("ids.i32", "I32", [7], np.arange(-3, 4, dtype="<i4").tobytes()),
        ("odd.f16", "F16", [3], f16[:3].tobytes()),
        ("odd.e4m3", "F8_E4M3", [5], _e4m3(f16[100:105]).tobytes()),
        ("odd.e5m2", "F8_E5M2", [1, 7], e5m2[200:207].tobytes()),
        ("odd.f32", "F32", [3, 1], f32[300:303].tobytes()),
        ("odd.bf16", "BF16", [5], k[400:405].tobytes()),
        ("empty.f16", "F16", [0], b""),
        ("empty.f32", "F32", [2, 0], b""),
        ("empty.e4m3", "F8_E4M3", [0], b""),
        ("empty.e5m2", "F8_E5M2", [0, 3], b""),
        ("empty.bf16", "BF16", [0], b""),
        ("mask.u8", "U8", [3], b"\x01\x00\x01"),
    ]


def safetensors_bytes(tensors, order=None, metadata=None, pad_to=8):
    """A safetensors file: tensors laid out in the given order, the JSON listing them in
    'order' (a permutation; default: reversed, so that header order differs from data order)."""
    hdr, off, data = {}, 0, b""
    offsets = []
    for name, dtype, shape, b in tensors:
        offsets.append((name, dtype, shape, off, off + len(b)))
        off += len(b)
        data += b
    order = order if order is not None else list(reversed(range(len(offsets))))
    if metadata:
        hdr["__metadata__"] = metadata
    for i in order:
        name, dtype, shape, b, e = offsets[i]
        hdr[name] = {"dtype": dtype, "shape": shape, "data_offsets": [b, e]}
    j = json.dumps(hdr, separators=(",", ":")).encode()
    j += b" " * ((-len(j)) % pad_to)
    return struct.pack("<Q", len(j)) + j + data


def raw_file(json_text, data=b""):
    j = json_text.encode() if isinstance(json_text, str) else json_text
    return struct.pack("<Q", len(j)) + j + data


def hostile_safetensors():
    """(name, bytes, reason) of invalid safetensors files."""
    t = '{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}%s}'
    ok4 = b"\x00\x3f\x80\x3f"
    deep = '"x":' + "[" * 65 + "]" * 65
    return [
        ("short.safetensors", b"\x05\x00\x00", "TRUNCATED_HEADER"),
        ("len_past_end.safetensors", struct.pack("<Q", 1000) + b"{}", "TRUNCATED_HEADER"),
        ("len_huge.safetensors", struct.pack("<Q", 1 << 40) + b"{}", "HEADER_TOO_LARGE"),
        ("syntax.safetensors", raw_file(t % "" + "x", ok4), "BAD_JSON"),
        ("trailing_comma.safetensors", raw_file(t % ",", ok4), "BAD_JSON"),
        ("bad_utf8.safetensors", raw_file(b'{"\xff":{}}'), "BAD_JSON"),
        ("lone_surrogate.safetensors", raw_file(t % ',"\\ud800":"x"', ok4), "BAD_JSON"),
        ("nan.safetensors", raw_file(t % ',"b":NaN', ok4), "BAD_JSON"),
        ("too_deep.safetensors", raw_file(t % ("," + deep), ok4), "BAD_JSON"),
        ("empty_header.safetensors", raw_file(""), "BAD_JSON"),
        ("top_array.safetensors", raw_file("[]"), "BAD_HEADER"),
        ("no_dtype.safetensors", raw_file('{"a":{"shape":[2],"data_offsets":[0,4]}}', ok4),
         "BAD_HEADER"),
        ("float_shape.safetensors",
         raw_file('{"a":{"dtype":"BF16","shape":[2.0],"data_offsets":[0,4]}}', ok4),
         "BAD_HEADER"),
        ("negative_offset.safetensors",
         raw_file('{"a":{"dtype":"BF16","shape":[2],"data_offsets":[-0,4]}}', ok4),
         "BAD_HEADER"),
        ("three_offsets.safetensors",
         raw_file('{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4,4]}}', ok4),
         "BAD_HEADER"),
        ("twice_dtype.safetensors",
         raw_file('{"a":{"dtype":"BF16","dtype":"F16","shape":[2],"data_offsets":[0,4]}}',
                  ok4), "BAD_HEADER"),
        ("meta_number.safetensors", raw_file(t % ',"__metadata__":{"k":1}', ok4), "BAD_HEADER"),
        ("nul_name.safetensors", raw_file(t % ',"b\\u0000":{}', ok4), "BAD_HEADER"),
        ("huge_offset.safetensors",
         raw_file('{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,18446744073709551616]}}',
                  ok4), "BAD_HEADER"),
        ("duplicate.safetensors", raw_file(
            '{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
            '"a":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', ok4), "DUPLICATE_NAME"),
        ("shape_mismatch.safetensors",
         raw_file('{"a":{"dtype":"BF16","shape":[3],"data_offsets":[0,4]}}', ok4), "BAD_SHAPE"),
        ("dims_65.safetensors", raw_file(
            '{"a":{"dtype":"U8","shape":[%s],"data_offsets":[0,4]}}' % ",".join(["1"] * 64 + ["4"]),
            ok4), "BAD_SHAPE"),
        ("count_overflow.safetensors", raw_file(
            '{"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,4]}}', ok4),
         "BAD_SHAPE"),
        ("end_past_data.safetensors",
         raw_file('{"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}', ok4), "BAD_OFFSETS"),
        ("begin_after_end.safetensors",
         raw_file('{"a":{"dtype":"X","shape":[],"data_offsets":[4,0]}}', ok4), "BAD_OFFSETS"),
        ("overlap.safetensors", raw_file(
            '{"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},'
            '"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', ok4), "OVERLAP"),
        ("gap.safetensors", raw_file(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
            '"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', ok4), "GAP"),
        ("trailing_data.safetensors",
         raw_file('{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', ok4), "GAP"),
        # FORMAT.md §11.2 as stated in full: depth 65 (the header object is depth 1, so 64
        # arrays in it), a field name holding U+0000 is not that field, names compared after
        # unescaping, no tensors but data left.
        ("depth_65.safetensors", raw_file(t % (',"x":' + "[" * 64 + "]" * 64), ok4),
         "BAD_JSON"),
        ("nul_field_name.safetensors",
         raw_file('{"a":{"dtype\\u0000":"BF16","shape":[2],"data_offsets":[0,4]}}', ok4),
         "BAD_HEADER"),
        ("escaped_duplicate.safetensors", raw_file(
            '{"ab":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
            '"a\\u0062":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}', ok4),
         "DUPLICATE_NAME"),
        ("escaped_metadata_twice.safetensors",
         raw_file(t % ',"__metadata__":{},"\\u005f_metadata__":{}', ok4), "DUPLICATE_NAME"),
        ("no_tensors_data_left.safetensors", raw_file('{"__metadata__":{"k":"v"}}', ok4),
         "GAP"),
    ]


def accepted_safetensors():
    """(name, bytes) of valid safetensors files at the edges of FORMAT.md §11.2: pack must
    accept each and unpack restore it byte for byte."""
    t = '{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]%s}%s}'
    ok4 = b"\x00\x3f\x80\x3f"
    return [
        ("depth_64.safetensors", raw_file(t % (',"x":' + "[" * 62 + "]" * 62, ""), ok4)),
        ("nul_inside.safetensors", raw_file(
            t % (',"x\\u0000":"\\u0000"', ',"__metadata__":{"k\\u0000":"v\\u0000"}'), ok4)),
        ("names_repeated_inside.safetensors", raw_file(
            t % (',"x":1,"x":{"y":1,"y":[2]}', ',"__metadata__":{"k":"1","k":"2"}'), ok4)),
        ("escaped_names.safetensors", raw_file(
            '{"\\u005f_metadata__":{"k":"v"},'
            '"\\u0061":{"dt\\u0079pe":"BF16","shape":[2],"data_offsets":[0,4]}}', ok4)),
        ("no_tensors.safetensors", raw_file("{}")),
        ("metadata_only.safetensors", raw_file('{"__metadata__":{"k":"v"}}')),
    ]


# ---- Containers -------------------------------------------------------------------------------

def _fix_header_crc(b):
    b[60:64] = struct.pack("<I", zlib.crc32(bytes(b[:60])))


def _fix_meta_crc(b):
    shs, _, _ = struct.unpack_from("<QQQ", b, 16)
    count = struct.unpack_from("<I", b, 8)[0]
    data_off = 64 + ((shs + 15) & ~15) + 32 * count
    b[40:44] = struct.pack("<I", zlib.crc32(bytes(b[64:data_off])))
    _fix_header_crc(b)


def _entry_at(b, i):
    shs = struct.unpack_from("<Q", b, 16)[0]
    return 64 + ((shs + 15) & ~15) + 32 * i


def _entries(b):
    count = struct.unpack_from("<I", b, 8)[0]
    return [struct.unpack_from("<B3xIQQQ", b, _entry_at(b, i)) for i in range(count)]


def _patched(valid, fn):
    b = bytearray(valid)
    fn(b)
    return bytes(b)


def _first(entries, encoding, nonempty=True, padded=False):
    for i, (enc, _, src, off, stored) in enumerate(entries):
        if enc == encoding and (src or not nonempty) and (not padded or src % 16):
            return i, off, stored
    raise ValueError("no such entry")


def hostile_containers(valid):
    """(name, bytes, reason) of invalid containers derived from the valid one: each damage is
    made past the checks before it (checksums recomputed) so that it reaches its own check."""
    e = _entries(valid)
    raw_i, raw_off, raw_n = _first(e, 0)
    pad_i, pad_off, pad_n = _first(e, 0, padded=True)
    fr_i, fr_off, fr_n = _first(e, 1)
    shs = struct.unpack_from("<Q", valid, 16)[0]

    def setb(off, val):
        return lambda b: b.__setitem__(off, val)

    def then(*fns):
        def go(b):
            for f in fns:
                f(b)
        return go

    def json_edit(old, new):
        def go(b):
            hdr = bytes(b[72:64 + shs])
            assert old in hdr and len(old) == len(new)
            b[72:64 + shs] = hdr.replace(old, new, 1)
        return go

    def entry_field(i, off, fmt, val):
        return lambda b: struct.pack_into(fmt, b, _entry_at(b, i) + off, val)

    return [
        ("empty.szst", b"", "TRUNCATED"),
        ("header_cut.szst", valid[:30], "TRUNCATED"),
        ("magic.szst", _patched(valid, setb(0, ord("X"))), "BAD_MAGIC"),
        ("version3.szst", _patched(valid, setb(4, 3)), "UNSUPPORTED_VERSION"),
        ("version0.szst", _patched(valid, setb(4, 0)), "CORRUPT"),
        ("header_crc.szst", _patched(valid, setb(8, valid[8] ^ 1)), "HEADER_CHECKSUM"),
        ("reserved.szst", _patched(valid, then(setb(50, 1), _fix_header_crc)), "CORRUPT"),
        ("huge_count.szst", _patched(valid, then(
            lambda b: struct.pack_into("<I", b, 8, 0xFFFFFFFF), _fix_header_crc)), "CORRUPT"),
        ("huge_header_size.szst", _patched(valid, then(
            lambda b: struct.pack_into("<Q", b, 16, U64), _fix_header_crc)), "CORRUPT"),
        ("cut.szst", valid[:-16], "TRUNCATED"),
        ("appended.szst", valid + b"\0" * 16, "CORRUPT"),
        ("meta_crc.szst", _patched(valid, setb(80, valid[80] ^ 0x20)), "METADATA_CHECKSUM"),
        ("stored_json.szst", _patched(valid, then(json_edit(b'"shape"', b'"shapf"'),
                                                  _fix_meta_crc)), "BAD_HEADER"),
        ("table_offset.szst", _patched(valid, then(entry_field(fr_i, 16, "<Q", fr_off + 16),
                                                   _fix_meta_crc)), "BAD_TABLE"),
        ("table_encoding.szst", _patched(valid, then(entry_field(fr_i, 0, "<B", 0),
                                                     _fix_meta_crc)), "BAD_TABLE"),
        ("table_size.szst", _patched(valid, then(entry_field(fr_i, 8, "<Q", 2),
                                                 _fix_meta_crc)), "BAD_TABLE"),
        ("table_reserved.szst", _patched(valid, then(entry_field(fr_i, 1, "<B", 7),
                                                     _fix_meta_crc)), "CORRUPT"),
        ("raw_data.szst", _patched(valid, setb(raw_off, valid[raw_off] ^ 0x01)),
         "TENSOR_CHECKSUM"),
        ("raw_padding.szst", _patched(valid, setb(pad_off + pad_n, 0x55)), "CORRUPT"),
        ("frame_magic.szst", _patched(valid, setb(fr_off, 0)), "ERROR_BAD_MAGIC"),
        ("frame_body.szst", _patched(valid, setb(fr_off + 200, valid[fr_off + 200] ^ 0x04)),
         "ERROR_CONTENT_CHECKSUM"),
    ]


def _data_order(b):
    """(name, dtype) of the tensors of a container's stored safetensors header, in data
    order (FORMAT.md §11.1), i.e. in the order of its table."""
    shs = struct.unpack_from("<Q", b, 16)[0]
    hdr = json.loads(bytes(b[72:64 + shs]))
    t = [(v["data_offsets"], i, k, v["dtype"]) for i, (k, v) in enumerate(hdr.items())
         if k != "__metadata__"]
    return [(k, d) for _, _, k, d in sorted(t, key=lambda x: (x[0][0], x[0][1], x[1]))]


def _relabel_frame(b, off, dtype):
    """The frame at 'off' given another Dtype, its header checksum recomputed (a stored frame
    of the same width stays a valid frame: FORMAT.md §3.2 step 11)."""
    assert b[off + 6] == 0, "not a stored frame"
    b[off + 5] = dtype
    struct.pack_into("<I", b, off + 60, dtype_ref.header_checksum(bytes(b[off:off + 64])))


def v2_containers(mixed, bf16_only):
    """(name, bytes, reason) of invalid containers about the versions (FORMAT.md §11.6 steps 3,
    11 and 12), from the valid version 2 container of mixed_tensors() and the version 1
    container of bf16_only_bytes()."""
    assert mixed[4] == 2 and bf16_only[4] == 1
    order = [n for n, _ in _data_order(mixed)]
    e = _entries(mixed)
    f16 = order.index("k.f16")

    def at(name):
        return e[order.index(name)][3]

    def version(v):
        return lambda b: (b.__setitem__(4, v), _fix_header_crc(b))

    def relabel(name, dtype):
        return lambda b: _relabel_frame(b, at(name), dtype)

    return [
        ("v2_version3.szst", _patched(mixed, version(3)), "UNSUPPORTED_VERSION"),
        ("v2_version255.szst", _patched(mixed, version(255)), "UNSUPPORTED_VERSION"),
        # version 2 without an F16, F32 or FP8 tensor: it would be version 1
        ("v2_without_new_dtypes.szst", _patched(bf16_only, version(2)), "BAD_TABLE"),
        # version 1: the F16 (F32, FP8) tensors are stored as they are, never frames
        ("v1_f16_frames.szst", _patched(mixed, version(1)), "BAD_TABLE"),
        # version 2: they are frames, never stored as they are
        ("v2_f16_stored.szst", _patched(mixed, lambda b: (
            struct.pack_into("<B", b, _entry_at(b, f16), 0), _fix_meta_crc(b))), "BAD_TABLE"),
        # a valid frame of another dtype (same width, stored, header checksum recomputed)
        ("v2_frame_f16_as_bf16.szst", _patched(mixed, relabel("odd.f16", 1)), "CORRUPT"),
        ("v2_frame_e5m2_as_e4m3.szst", _patched(mixed, relabel("empty.e5m2", 2)), "CORRUPT"),
        ("v2_frame_bf16_as_f16.szst", _patched(mixed, relabel("odd.bf16", 4)), "CORRUPT"),
        ("v2_frame_f32_as_bf16.szst", _patched(mixed, relabel("empty.f32", 1)), "CORRUPT"),
    ]


def build(head, entries, source_size, version=1):
    """Header and metadata of a container (FORMAT.md §11.3-§11.5, written from the spec, apart
    from the package's own writer): entries are (encoding, crc, source size, stored size)."""
    pos = 64 + ((len(head) + 15) & ~15) + 32 * len(entries)
    table = b""
    for enc, crc, src, stored in entries:
        table += struct.pack("<B3xIQQQ", enc, crc, src, pos, stored)
        pos = (pos + stored + 15) & ~15
    meta = head + bytes(((len(head) + 15) & ~15) - len(head)) + table
    h = b"SZST" + bytes([version, 0, 0, 0]) + struct.pack(
        "<I4xQQQI", len(entries), len(head), source_size, pos, zlib.crc32(meta)) + bytes(16)
    return h + struct.pack("<I", zlib.crc32(h)), meta


def cli_compress(z):
    """compress(array, dtype=None) -> one frame, through the CLI: BF16 values, or with a
    dtype ("f16", "f32", "e4m3", "e5m2") the bytes of a uint8 array as elements of it."""
    def compress(values, dtype=None):
        raw = values.astype("<u2").tobytes() if dtype is None else values.tobytes()
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "in").write_bytes(raw)
            subprocess.run([z, "compress", "-q"] + (["--dtype", dtype] if dtype else []) +
                           [f"{d}/in", f"{d}/out"], check=True)
            return (Path(d) / "out").read_bytes()
    return compress


def _v2_sample():
    """A small safetensors file of every dtype that version 2 compresses, its header, and the
    tensors' bytes by name (values of KV-like magnitudes, deterministic)."""
    i = np.arange(600)
    f16 = (0x3000 + (i * 37) % 0x0C00).astype("<u2")
    t = [("b", "BF16", [500], (0x3F00 + i[:500] % 97).astype("<u2").tobytes()),
         ("h", "F16", [600], f16.tobytes()),
         ("s", "F32", [300], ((0x3E000000 + i[:300] * 0x2F1B3) & 0xFFFFFFFF).astype("<u4")
          .tobytes()),
         ("q", "F8_E4M3", [600], _e4m3(f16).tobytes()),
         ("r", "F8_E5M2", [600], (f16 >> 8).astype(np.uint8).tobytes()),
         ("e", "F8_E5M2", [0], b""),
         ("n", "I32", [3], np.arange(3, dtype="<i4").tobytes())]
    st = safetensors_bytes(t)
    return st, st[:8 + struct.unpack_from("<Q", st)[0]], {n: b for n, _, _, b in t}


def _raw_entry(b):
    return (0, zlib.crc32(b), len(b), len(b))


_V2_ORDER = ["b", "h", "s", "q", "r", "e", "n"]  # the data order of _v2_sample()
_V2_DTYPE = {"b": None, "h": "f16", "s": "f32", "q": "e4m3", "r": "e5m2", "e": "e5m2"}


def _v2_container(compress, version, **frames):
    """The sample in a container of 'version' written from the spec (build()): in version 2
    every tensor but the I32 one as one frame of its dtype, unless 'frames' gives its stored
    bytes; in version 1 only the BF16 one, the others as they are."""
    st, head, b = _v2_sample()
    entries, body = [], b""
    for n in _V2_ORDER:
        dt = _V2_DTYPE.get(n, "raw")
        if dt == "raw" or (version == 1 and dt is not None):
            entries.append(_raw_entry(b[n]))
            body += b[n] + bytes((-len(b[n])) % 16)
            continue
        values = np.frombuffer(b[n], dtype="<u2" if dt is None else np.uint8)
        fr = frames[n] if n in frames else compress(values, dtype=dt)
        entries.append((1, 0, len(b[n]), len(fr)))
        body += fr
    header, meta = build(head, entries, len(st), version=version)
    return header + meta + body


def accepted_containers(compress):
    """(name, bytes, original name, original bytes) of valid containers written from the spec,
    not by pack: version 1 with the F16, F32 and FP8 tensors stored as they are (what pack wrote
    before version 2), and version 2 with them in frames."""
    st = _v2_sample()[0]
    return [("v1_f16_stored.szst", _v2_container(compress, 1), "v2_sample.safetensors", st),
            ("v2_from_spec.szst", _v2_container(compress, 2), "v2_sample.safetensors", st)]


def crafted_v2_containers(compress):
    """Version 2 containers whose frames disagree with their tensors (consistent checksums and
    table): (name, bytes, reason)."""
    b = _v2_sample()[2]
    q, s = np.frombuffer(b["q"], dtype=np.uint8), np.frombuffer(b["s"], dtype=np.uint8)
    h16 = np.frombuffer(b["h"], dtype="<u2")
    return [
        # an F16 tensor in BF16 frames of its own bytes: a frame of another dtype
        ("v2_f16_in_bf16_frames.szst", _v2_container(compress, 2, h=compress(h16)), "CORRUPT"),
        # an E4M3 tensor whose second frame is E5M2
        ("v2_e4m3_second_frame_e5m2.szst", _v2_container(
            compress, 2, q=compress(q[:300], dtype="e4m3") + compress(q[300:], dtype="e5m2")),
         "CORRUPT"),
        # an F32 tensor of 300 elements in frames of 299, and of 299 + 2
        ("v2_f32_few_elements.szst", _v2_container(
            compress, 2, s=compress(s[:4 * 299], dtype="f32")), "ELEMENT_COUNT"),
        ("v2_f32_many_elements.szst", _v2_container(
            compress, 2, s=compress(s[:4 * 299], dtype="f32") + compress(s[:8], dtype="f32")),
         "ELEMENT_COUNT"),
    ]


def crafted_containers(compress):
    """Containers whose frames disagree with their tensors (consistent checksums and table):
    (name, bytes, reason)."""
    vals = np.arange(0x3F00, 0x3F00 + 500, dtype=np.uint16)
    st = safetensors_bytes([("t", "BF16", [500], vals.tobytes())])
    head = st[:8 + struct.unpack_from("<Q", st)[0]]
    out = []
    short = compress(vals[:400])
    header, meta = build(head, [(1, 0, 1000, len(short))], len(st))
    out.append(("few_elements.szst", header + meta + short, "ELEMENT_COUNT"))
    two = compress(vals[:400]) + compress(vals[:200])
    header, meta = build(head, [(1, 0, 1000, len(two))], len(st))
    out.append(("many_elements.szst", header + meta + two, "ELEMENT_COUNT"))
    full = compress(vals) + bytes(32)
    header, meta = build(head, [(1, 0, 1000, len(full))], len(st))
    out.append(("frames_short.szst", header + meta + full, "CORRUPT"))
    # Stored_Size of a BF16 tensor below 64 or not a multiple of 16: the table is wrong
    # (FORMAT.md §11.6 step 11), before any frame is read.
    header, meta = build(head, [(1, 0, 1000, 48)], len(st))
    out.append(("stored_below_64.szst", header + meta + compress(vals)[:48], "BAD_TABLE"))
    odd = compress(vals) + bytes(8)
    header, meta = build(head, [(1, 0, 1000, len(odd))], len(st))
    out.append(("stored_not_16.szst", header + meta + odd + bytes(8), "BAD_TABLE"))
    # Every frame of a tensor is checked as a frame on its own: a wrong magic in its second
    # frame is ERROR_BAD_MAGIC as in its first (step 12).
    second = bytearray(compress(vals[300:]))
    second[0] ^= 0xFF
    two = compress(vals[:300]) + bytes(second)
    header, meta = build(head, [(1, 0, 1000, len(two))], len(st))
    out.append(("second_frame_magic.szst", header + meta + two, "ERROR_BAD_MAGIC"))
    return out


def container_cases(valid, mixed, bf16_only, compress):
    """Every invalid container (name, bytes, reason): from the containers packed of the model,
    of mixed_tensors() and of bf16_only_bytes(), and crafted with compress()."""
    return (hostile_containers(valid) + v2_containers(mixed, bf16_only) +
            crafted_containers(compress) + crafted_v2_containers(compress))


def main():
    z, data_dir, out_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    (out_dir / "hostile").mkdir(parents=True, exist_ok=True)
    files = {"model": safetensors_bytes(real_tensors(data_dir),
                                        metadata={"format": "pt", "source": "splitzip test"}),
             "mixed": safetensors_bytes(mixed_tensors(data_dir), metadata={"format": "pt"}),
             "bf16_only": bf16_only_bytes()}
    packed = {}
    for name, b in files.items():
        (out_dir / f"{name}.safetensors").write_bytes(b)
        subprocess.run([z, "pack", "-q", "-f", str(out_dir / f"{name}.safetensors"),
                        str(out_dir / f"{name}.szst")], check=True)
        packed[name] = (out_dir / f"{name}.szst").read_bytes()
    compress = cli_compress(z)
    lines = []
    for kind, cases in (("safetensors", hostile_safetensors()),
                        ("container", container_cases(packed["model"], packed["mixed"],
                                                      packed["bf16_only"], compress))):
        for name, b, reason in cases:
            (out_dir / "hostile" / name).write_bytes(b)
            lines.append(f"{name} {reason} {kind}")
    for name, b in accepted_safetensors():
        (out_dir / "hostile" / name).write_bytes(b)
        lines.append(f"{name} OK accepted")
    for name, b, orig, orig_bytes in accepted_containers(compress):
        (out_dir / "hostile" / name).write_bytes(b)
        (out_dir / "hostile" / orig).write_bytes(orig_bytes)
        lines.append(f"{name} OK accepted_container {orig}")
    (out_dir / "cases.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
