"""Test files for safetensors pack/unpack (tests/cli/test_safetensors.sh and
python/tests/test_safetensors.py): a real safetensors file built from real tensors, and hostile
safetensors files and containers, each with the reason (FORMAT.md §11.6 name, or a frame status)
every implementation must report.

    python3 st_cases.py SPLITZIP DATA_DIR OUT_DIR
        writes model.safetensors, model.szst (packed by the CLI), hostile/*, and cases.txt (one
        "file reason kind" line per hostile file; "file OK accepted" for each valid edge case
        of accepted_safetensors(), which is written to hostile/ too). Needs no splitzip Python package (the CLI
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
        ("version2.szst", _patched(valid, setb(4, 2)), "UNSUPPORTED_VERSION"),
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


def build(head, entries, source_size):
    """Header and metadata of a container (FORMAT.md §11.3-§11.5, written from the spec, apart
    from the package's own writer): entries are (encoding, crc, source size, stored size)."""
    pos = 64 + ((len(head) + 15) & ~15) + 32 * len(entries)
    table = b""
    for enc, crc, src, stored in entries:
        table += struct.pack("<B3xIQQQ", enc, crc, src, pos, stored)
        pos = (pos + stored + 15) & ~15
    meta = head + bytes(((len(head) + 15) & ~15) - len(head)) + table
    h = b"SZST\x01\0\0\0" + struct.pack("<I4xQQQI", len(entries), len(head), source_size, pos,
                                          zlib.crc32(meta)) + bytes(16)
    return h + struct.pack("<I", zlib.crc32(h)), meta


def cli_compress(z):
    """compress(array) -> one frame, through the CLI."""
    def compress(values):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "in").write_bytes(values.astype("<u2").tobytes())
            subprocess.run([z, "compress", "-q", f"{d}/in", f"{d}/out"], check=True)
            return (Path(d) / "out").read_bytes()
    return compress


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


def main():
    z, data_dir, out_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    (out_dir / "hostile").mkdir(parents=True, exist_ok=True)
    model = out_dir / "model.safetensors"
    model.write_bytes(safetensors_bytes(real_tensors(data_dir),
                                        metadata={"format": "pt", "source": "splitzip test"}))
    subprocess.run([z, "pack", "-q", "-f", str(model), str(out_dir / "model.szst")], check=True)
    valid = (out_dir / "model.szst").read_bytes()
    lines = []
    for kind, cases in (("safetensors", hostile_safetensors()),
                        ("container", hostile_containers(valid) +
                         crafted_containers(cli_compress(z)))):
        for name, b, reason in cases:
            (out_dir / "hostile" / name).write_bytes(b)
            lines.append(f"{name} {reason} {kind}")
    for name, b in accepted_safetensors():
        (out_dir / "hostile" / name).write_bytes(b)
        lines.append(f"{name} OK accepted")
    (out_dir / "cases.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
