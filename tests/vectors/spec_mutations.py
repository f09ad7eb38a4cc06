#!/usr/bin/env python3
"""spec_mutations.py -- the library against spec_reader.py on damaged frames and page streams.

    spec_mutations.py LIBSPLITZIP VECTORS_DIR [COUNT] [SEED] [PAGE_COUNT] [ENCODED]

Frames: takes the valid and invalid golden vectors, damages them at random (a flipped bit, a
replaced byte, a cut, or a flipped header bit with the header checksum recomputed so the field
checks are reached), and requires that libsplitzip's splitzip_decompress_dtype() and the decoder
written from doc/FORMAT.md alone (spec_reader.py) give the same status for every one, and the
same elements when both accept it. COUNT (default 2000) of them, with the frames of the other
dtypes (tests/vectors/dtypes, FORMAT.md 1.3) among them. spec_reader is told which dtypes the
library implements (found by decoding an empty stored frame of each): a decoder may implement
only some and must report the others as ERROR_UNSUPPORTED_FORMAT (FORMAT.md §1.1), so both give
the same status for every frame whichever dtypes the library knows.

Page streams (FORMAT.md §12): first ENCODED (default 24) random lists of pages -- empty, KV-like
and noisy pages, every encoding, chunk size, checksum choice and fixed tables -- are packed by
splitzip_pages_compress() and by spec_reader's encoder of §12.4, which must write identical
bytes. Then PAGE_COUNT (default 400) damaged streams, from those and from the golden page
streams of tests/vectors/pages: bit flips, byte changes, cuts, trailing bytes, and edits of the
stream header, the page table or a frame header with their checksums recomputed (so that the
checks behind them are reached), each decoded into destination pages that are sometimes too
few or too small. splitzip_pages_decompress() and spec_reader.read_pages() must give the same
status, the same page states (§12.6; an untouched page must still hold every byte it had), and
the same pages when they accept; splitzip_pages_get_info() the same status as §12.5 steps 0-6
and the same header fields, splitzip_pages_get_manifest() the same status as steps 0-10 and,
when it accepts, the page table. Streams of two frames (more than 2^24 coded elements, 32 MiB)
are checked once each, not damaged at random. Deterministic for a given seed.
"""
import array
import ctypes
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spec_reader as S  # noqa: E402

SENTINEL = 0xA5   # what destination pages hold before a decompression


class Params(ctypes.Structure):
    """splitzip_params of include/splitzip.h (enums are int)."""
    _fields_ = [("struct_size", ctypes.c_size_t), ("backend", ctypes.c_int),
                ("chunk_log2", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("codebook_mode", ctypes.c_int), ("codebook", ctypes.c_uint8 * 16),
                ("n_threads", ctypes.c_uint), ("encoding", ctypes.c_int),
                ("table_mode", ctypes.c_int), ("table", ctypes.c_uint8 * 257)]


class Info(ctypes.Structure):
    """splitzip_pages_info"""
    _fields_ = [("format_version", ctypes.c_uint), ("flags", ctypes.c_uint),
                ("encoding", ctypes.c_int), ("chunk_log2", ctypes.c_uint),
                ("n_pages", ctypes.c_uint64), ("stream_size", ctypes.c_uint64),
                ("total_page_bytes", ctypes.c_uint64), ("frames_size", ctypes.c_uint64),
                ("table_id", ctypes.c_uint32)]


class Entry(ctypes.Structure):
    """splitzip_page_entry"""
    _fields_ = [("page_bytes", ctypes.c_uint64), ("encoding", ctypes.c_uint),
                ("position", ctypes.c_uint64)]


def declare(lib):
    P, SZ = ctypes.c_void_p, ctypes.c_size_t
    lib.splitzip_params_init.argtypes = [P]
    lib.splitzip_ctx_create.argtypes = [P, ctypes.POINTER(P)]
    lib.splitzip_ctx_free.argtypes = [P]
    lib.splitzip_decompress.argtypes = [P, ctypes.c_char_p, SZ, P, SZ, ctypes.POINTER(SZ)]
    lib.splitzip_decompress_dtype.argtypes = [P, ctypes.c_char_p, SZ, P, SZ,
                                              ctypes.POINTER(SZ)]
    lib.splitzip_status_name.restype = ctypes.c_char_p
    lib.splitzip_status_name.argtypes = [ctypes.c_int]
    lib.splitzip_pages_bound.restype = SZ
    lib.splitzip_pages_bound.argtypes = [SZ, SZ]
    lib.splitzip_pages_compress.argtypes = [P, ctypes.c_uint32, ctypes.c_uint, SZ,
                                            ctypes.POINTER(P), ctypes.POINTER(SZ), P, SZ,
                                            ctypes.POINTER(SZ)]
    lib.splitzip_pages_get_info.argtypes = [ctypes.c_char_p, SZ, ctypes.POINTER(Info)]
    lib.splitzip_pages_get_manifest.argtypes = [ctypes.c_char_p, SZ, ctypes.POINTER(Entry), SZ,
                                                ctypes.POINTER(ctypes.c_uint64)]
    lib.splitzip_pages_decompress.argtypes = [P, ctypes.c_char_p, SZ, SZ, ctypes.POINTER(P),
                                              ctypes.POINTER(SZ), ctypes.c_uint, ctypes.POINTER(SZ),
                                              ctypes.POINTER(ctypes.c_uint8), ctypes.POINTER(SZ)]


def status_name(lib, st):
    return lib.splitzip_status_name(st).decode()


def library_dtypes(lib, ctx):
    """The Dtype values (FORMAT.md §2.2) whose empty stored frame the library accepts."""
    known = set()
    out = (ctypes.c_uint16 * 8)()
    for code in S.DTYPES:
        h = bytearray(64)
        h[0:8] = S.MAGIC + bytes([1, code, 0, 12])
        struct.pack_into("<Q", h, 40, 64)
        struct.pack_into("<I", h, 60, S.chunk_digest(bytes(h[:60])) & 0xFFFFFFFF)
        got = ctypes.c_size_t()
        if lib.splitzip_decompress_dtype(ctx, bytes(h), 64, out, 16, ctypes.byref(got)) == 0:
            known.add(code)
    return known


def frames(lib, ctx, vdir, count, rng):
    """Damaged frames: (accepted, None) or (None, message)."""
    S.KNOWN = library_dtypes(lib, ctx)
    files = []
    for sub in ("valid", "invalid", "dtypes/valid", "dtypes/invalid"):
        d = os.path.join(vdir, sub)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".sz")]
    blobs = {f: open(f, "rb").read() for f in files}
    cap = 1 << 18
    out = (ctypes.c_uint16 * cap)()
    accepted = 0
    for it in range(count):
        name = rng.choice(files)
        b = bytearray(blobs[name])
        kind = rng.randrange(4)
        if kind == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif kind == 1 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif kind == 2:
            b = b[:rng.randrange(len(b) + 1)]
        elif len(b) >= 64:
            i = rng.randrange(60)
            b[i] ^= 1 << rng.randrange(8)
            b[60:64] = struct.pack("<I", S.chunk_digest(bytes(b[:60])) & 0xFFFFFFFF)
        b = bytes(b)
        got = ctypes.c_size_t()
        # the whole buffer, 2^19 bytes: room for the elements of every vector, of any dtype
        lib_status = status_name(lib, lib.splitzip_decompress_dtype(ctx, b, len(b), out,
                                                                    2 * cap,
                                                                    ctypes.byref(got)))
        try:
            elems, hdrs = S.read_stream(b)
            spec_status = "OK"
        except S.Reject as r:
            spec_status = r.status
        if lib_status != spec_status:
            return None, ("%s, mutation %d (kind %d): library %s, spec_reader %s" %
                          (os.path.basename(name), it, kind, lib_status, spec_status))
        if lib_status == "OK":
            accepted += 1
            dt = hdrs[0]["dt"]
            data = S.pack_elems(dt, elems)
            if got.value != len(elems) or bytes(out)[:len(data)] != data:
                return None, ("%s, mutation %d: decoded elements differ" %
                              (os.path.basename(name), it))
    return accepted, None


# ---- page streams ---------------------------------------------------------------------------

def random_page(rng, n):
    """A page of n elements: KV-like (a narrow band of exponents), noisy (any exponent) or a
    mix, so that pages go raw or coded and frames split4, entropy or stored."""
    kind = rng.randrange(4)
    centre = rng.choice([118, 120, 124, 127])
    out = []
    for _ in range(n):
        if kind == 0 or (kind == 2 and rng.random() < 0.9):
            e = min(255, max(0, int(round(rng.gauss(centre, 2.5)))))
        elif kind == 3:
            e = centre
        else:
            e = rng.randrange(256)
        out.append((rng.randrange(2) << 15) | (e << 7) | rng.randrange(128))
    return out


def random_pages(rng):
    sizes = [0, 1, 7, 20, 64, 100, 300, 576, 1024, 2048]
    return [random_page(rng, rng.choice(sizes)) for _ in range(rng.randrange(7))]


def lib_pages_compress(lib, pages, enc, log2, checksum, codebook, table, table_id):
    """splitzip_pages_compress() with these parameters: enc 1 split4, 2 entropy, 0 auto."""
    p = Params()
    lib.splitzip_params_init(ctypes.byref(p))
    p.chunk_log2, p.encoding = log2, {1: 0, 2: 1, 0: 2}[enc]
    if codebook is not None:
        p.codebook_mode, p.codebook[:] = 1, codebook
    if table is not None:
        p.table_mode, p.table[:] = 1, table
    ctx = ctypes.c_void_p()
    if lib.splitzip_ctx_create(ctypes.byref(p), ctypes.byref(ctx)) != 0:
        raise RuntimeError("splitzip_ctx_create with the parameters of a page stream")
    try:
        bufs = [(ctypes.c_uint16 * max(1, len(pg)))(*pg) for pg in pages]
        ptrs = (ctypes.c_void_p * max(1, len(pages)))(*[ctypes.addressof(x) for x in bufs])
        nbytes = (ctypes.c_size_t * max(1, len(pages)))(*[2 * len(pg) for pg in pages])
        n, m = len(pages), max([2 * len(pg) for pg in pages] + [0])
        cap = lib.splitzip_pages_bound(n, m)
        if cap != S.align64(64 + 4 * n) + n * m + 80 * (n * m >> 25) + 144:
            raise RuntimeError("splitzip_pages_bound(%d, %d) is not the bound of §12.4" % (n, m))
        dst, size = (ctypes.c_uint8 * cap)(), ctypes.c_size_t()
        st = lib.splitzip_pages_compress(ctx, table_id, 0 if checksum else 1, len(pages), ptrs,
                                         nbytes, dst, cap, ctypes.byref(size))
        if st != 0:
            raise RuntimeError("splitzip_pages_compress: " + status_name(lib, st))
        return bytes(dst[:size.value])
    finally:
        lib.splitzip_ctx_free(ctx)


def encoded_streams(lib, count, rng):
    """count random page lists packed by the library and by §12.4: (streams, message)."""
    out = []
    for it in range(count):
        pages = random_pages(rng)
        enc, log2, checksum = rng.choice([0, 1, 2]), rng.randrange(10, 17), rng.random() < 0.7
        codebook = table = None
        if rng.random() < 0.3:
            lo = rng.randrange(100, 140)
            codebook = sorted(rng.sample(range(lo, lo + 24), 16))
        if rng.random() < 0.3:
            table = S.table_of_histogram(S.histogram(random_page(rng, 300)))
        fixed = (codebook, table)
        table_id = 0
        if (enc == 0 and None not in fixed) or (enc and fixed[enc - 1] is not None):
            table_id = rng.choice([0, rng.randrange(1, 1 << 32)])
        got = lib_pages_compress(lib, pages, enc, log2, checksum, codebook,
                                 None if table is None else table[:256] + [table[256]],
                                 table_id)
        want = S.encode_pages(pages, enc, log2, checksum, fixed, table_id)
        if got != want:
            return None, ("encoded stream %d (encoding %d, L %d, checksum %d, fixed %s %s): "
                          "library %d bytes, §12.4 %d bytes, first difference at %s" %
                          (it, enc, log2, checksum, codebook is not None, table is not None,
                           len(got), len(want),
                           next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                                min(len(got), len(want)))))
        out.append(("encoded_%d" % it, got))
    return out, None


def reseal_header(b):
    if len(b) >= 64:
        b[60:64] = struct.pack("<I", S.chunk_digest(bytes(b[:60])) & 0xFFFFFFFF)


def le16(elems):
    """Elements as little-endian bytes."""
    a = array.array("H", elems)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def build_stream(entries, frames, raw, flags, enc, log2):
    """A page stream with the header and checksums that fit its page table (a list of u32
    entries), frames (a list of frames) and raw section (bytes), whatever they hold."""
    count = len(entries)
    fsec = b"".join(frames)
    foff = S.align64(64 + 4 * count)
    roff = S.align64(foff + len(fsec)) if raw else foff + len(fsec)
    s = bytearray(roff + len(raw))
    ptab = struct.pack("<%dI" % count, *entries)
    s[64:64 + 4 * count] = ptab
    s[foff:foff + len(fsec)] = fsec
    s[roff:] = raw
    raw_ck = S.content_checksum(raw, len(raw) // 2, log2) if flags & 1 else 0
    s[0:8] = S.PG_MAGIC + bytes([2, flags, enc, log2])
    struct.pack_into("<IIQQQQI", s, 8, count, 0, sum(e & 0x7FFFFFFF for e in entries),
                     len(fsec), len(s), raw_ck, S.chunk_digest(ptab) & 0xFFFFFFFF)
    reseal_header(s)
    return bytes(s)


def reseal_frame(f):
    f = bytearray(f)
    f[60:64] = struct.pack("<I", S.chunk_digest(bytes(f[:60])) & 0xFFFFFFFF)
    return bytes(f)


def edited(b, at, value):
    """A copy of b with the bytes at 'at' replaced."""
    b = bytearray(b)
    b[at:at + len(value)] = value
    return b


def crafted_small(vdir):
    """Streams that random damage seldom makes, from the golden ones, with the status that
    §12.5-§12.6 give them."""
    def vec(name):
        return open(os.path.join(vdir, "pages", "valid", name + ".szpg"), "rb").read()
    out = []
    for name in ("0003_kv_auto_fixed_tables", "0005_no_pages", "0006_empty_pages"):
        b = edited(vec(name), 40, struct.pack("<Q", 0x1234))   # Raw_Checksum of no elements
        reseal_header(b)
        out.append(("raw_checksum_without_raw_elements_" + name, bytes(b),
                    "ERROR_CONTENT_CHECKSUM"))
    tiny = vec("0001_tiny")
    for at, value, what, want in (
            (0x86, b"\x03", "frame_mode_3", "ERROR_UNSUPPORTED_FORMAT"),
            (0x84, b"\x02", "frame_version_2", "ERROR_UNSUPPORTED_FORMAT"),
            (0x86, b"\x00", "frame_mode_0_with_a_split4_size", "ERROR_CORRUPT_STREAM"),
            (0x86, b"\x02", "frame_mode_2_in_a_split4_stream", "ERROR_CORRUPT_STREAM")):
        b = edited(tiny, at, value)
        b[0x80:0x80 + 272] = reseal_frame(b[0x80:0x80 + 272])
        out.append((what, bytes(b), want))
    b = edited(tiny, 72, struct.pack("<I", 0))             # the empty page 2 marked coded
    struct.pack_into("<I", b, 48, S.chunk_digest(bytes(b[64:80])) & 0xFFFFFFFF)
    reseal_header(b)
    out.append(("empty_coded_page", bytes(b), "OK"))
    b[0x100] ^= 1                                          # and a sign/mantissa byte damaged
    out.append(("empty_coded_page_in_a_failing_frame", bytes(b), "ERROR_CONTENT_CHECKSUM"))
    ent = vec("0002_kv_entropy")
    off, hd = S.pages_structure(ent)["frames"][0]
    lo = S.entropy_layout(hd["n"], hd["log2"], *hd["fields"][:3])[1]
    for nibble, what in ((0xC, "code_length_12"), (0x0, "first_code_length_0")):
        b = bytearray(ent)
        b[off + lo] = (b[off + lo] & 0xF0) | nibble
        out.append((what, bytes(b), "ERROR_CORRUPT_STREAM"))
    return out


def crafted_two_frames():
    """Streams of two frames (more than 2^24 coded elements) that differ in one rule of §12.5
    step 10 or of a frame body. Frame 0 is a stored frame, which spec_reader decodes fast, or,
    where only the headers are read, a split4 frame; no checksums (§7 in Python over 32 MiB
    would take long)."""
    n0, n1, log2 = S.PG_FRAME, 200, 10
    pattern = bytes(x for k in range(256) for x in (k, 0))   # elements 0..255, repeated
    stored0 = bytearray(S.stored_size(n0))
    stored0[:64] = S.frame_header(0, log2, 0, 0, n0, bytes(16), len(stored0), 0)
    stored0[64:64 + 2 * n0] = pattern * (n0 // 256)
    # split4 frame 0 over the same elements: codebook 0..15, exponent 0 or 1, no escapes
    sm, table, _, _, size = S.split4_layout(n0, log2, 0)
    split0 = bytearray(size)
    split0[:64] = S.frame_header(1, log2, 0, 0, n0, bytes(range(16)), size, 0)
    split0[64:64 + n0 // 2] = (bytes(64) + bytes([0x11]) * 64) * (n0 // 256)
    split0[sm:sm + n0] = bytes(k & 0x7F for k in range(256)) * (n0 // 256)
    tail = [0x3F00 | (i & 1) << 7 | i % 97 for i in range(n1)]   # exponents 126 and 127
    cb = S.codebook_of_histogram(S.histogram(tail))
    f1 = S.encode_frame(tail, log2, False, 1, cb)
    raw = le16([0x7F80, 0x0001, 0xFFFF, 0x8000])
    pages = [n0 - 100, 300, 4 | S.RAW_BIT, 0]
    bad = bytearray(f1)
    bad[-1] = 1                                          # nonzero padding in frame 1
    entropy1 = S.encode_frame(tail, log2, False, 2, S.table_of_histogram(S.histogram(tail)))
    corrupt = "ERROR_CORRUPT_STREAM"
    cases = (("two_frames", pages, [stored0, f1], "OK"),
             ("two_frames_frame_1_padding", pages, [stored0, bad], corrupt),
             ("two_frames_other_codebook", pages, [split0, f1], corrupt),
             ("two_frames_frame_1_count", pages,
              [stored0, S.encode_frame(tail + [0], log2, False, 1, cb)], corrupt),
             ("two_frames_coded_elements_one_short", [n0 - 101] + pages[1:], [stored0, f1],
              corrupt),
             ("two_frames_entropy_frame_in_split4", pages, [stored0, entropy1], corrupt),
             ("two_frames_bytes_after_the_frames", pages, [stored0, f1, bytes(16)], corrupt),
             ("two_frames_frame_1_cut", pages, [stored0, f1[:-16]], corrupt))
    streams = ((name, build_stream(table, fr, raw, 0, 1, log2), want)
               for name, table, fr, want in cases)        # one at a time: 32 MiB each
    return streams, [2 * (n & 0x7FFFFFFF) for n in pages]


def mutate_pages(b, rng):
    """One damaged copy of the page stream b, and the kind of damage."""
    b = bytearray(b)
    count = struct.unpack_from("<I", b, 8)[0] if len(b) >= 64 else 0
    foff = S.align64(64 + 4 * count)
    kind = rng.randrange(9)
    if kind == 0 and b:
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == 1 and b:
        b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == 2:
        b = b[:rng.randrange(len(b) + 1)]
    elif kind == 3:
        b += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 80)))
    elif kind == 4 and len(b) >= 64:                     # a header field, resealed
        i = rng.randrange(60)
        if rng.random() < 0.5:
            b[i] ^= 1 << rng.randrange(8)
        else:
            b[i] = rng.choice([0, 1, 2, 3, 0xFF, rng.randrange(256)])
        reseal_header(b)
    elif kind == 5 and count and len(b) >= 64 + 4 * count:   # the page table, resealed
        i = 64 + 4 * rng.randrange(count)
        struct.pack_into("<I", b, i, struct.unpack_from("<I", b, i)[0] ^
                         (1 << rng.choice([31, rng.randrange(12)])))
        if rng.random() < 0.5:   # and Total_Elems, so that the checks after it are reached
            t = struct.unpack_from("<%dI" % count, b, 64)
            struct.pack_into("<Q", b, 16, sum(e & 0x7FFFFFFF for e in t))
        struct.pack_into("<I", b, 48, S.chunk_digest(bytes(b[64:64 + 4 * count])) & 0xFFFFFFFF)
        reseal_header(b)
    elif kind == 6 and len(b) >= foff + 64 and b[foff:foff + 4] == S.MAGIC:
        i = foff + rng.randrange(60)                   # the frame header, resealed
        b[i] ^= 1 << rng.randrange(8)
        b[foff + 60:foff + 64] = struct.pack(
            "<I", S.chunk_digest(bytes(b[foff:foff + 60])) & 0xFFFFFFFF)
    elif kind == 7 and len(b) > foff + 64:             # a frame body or raw byte
        b[rng.randrange(foff + 64, len(b))] ^= 1 << rng.randrange(8)
    elif len(b) >= 64:                                 # a checksum field set to its value
        i = rng.choice([40, 48])
        b[i:i + 8 if i == 40 else i + 4] = bytes(8 if i == 40 else 4)
        reseal_header(b)
    return bytes(b), kind


def destinations(b, rng):
    """Destination capacities for a stream's pages: the page sizes its table gives, with some
    room to spare, sometimes one destination more, and sometimes one too few or too small."""
    count = min(struct.unpack_from("<I", b, 8)[0], 64) if len(b) >= 64 else 4
    t = [struct.unpack_from("<I", b, 64 + 4 * i)[0] & 0x7FFFFFFF if len(b) >= 68 + 4 * i
         else 0 for i in range(count)]
    caps = [min(2 * n, 1 << 16) + rng.choice([0, 0, 2, 64]) for n in t]
    r, big = rng.random(), [i for i, n in enumerate(t) if n]
    if r < 0.05 and caps:
        return caps[:-1]
    if r < 0.1 and big:
        i = rng.choice(big)
        caps[i] = min(2 * t[i], 1 << 16) - 2
    return caps + [rng.choice([0, 256])] * rng.randrange(2)


def lib_pages_decompress(lib, ctx, b, caps):
    m = len(caps)
    bufs = [(ctypes.c_uint8 * max(1, c))() for c in caps]
    for x in bufs:
        ctypes.memset(x, SENTINEL, len(x))
    ptrs = (ctypes.c_void_p * max(1, m))(*[ctypes.addressof(x) for x in bufs])
    cp = (ctypes.c_size_t * max(1, m))(*caps)
    sizes = (ctypes.c_size_t * max(1, m))()
    states = (ctypes.c_uint8 * max(1, m))(*([0xEE] * m))
    n_out = ctypes.c_size_t()
    st = lib.splitzip_pages_decompress(ctx, b, len(b), m, ptrs, cp, 0, sizes, states,
                                       ctypes.byref(n_out))
    return (status_name(lib, st), list(states[:m]),
            [ctypes.string_at(ctypes.addressof(x), c) for x, c in zip(bufs, caps)],
            list(sizes[:m]), n_out.value)


def lib_manifest(lib, b):
    n = ctypes.c_uint64()
    st = lib.splitzip_pages_get_manifest(b, len(b), None, 0, ctypes.byref(n))
    if st != 0:
        return status_name(lib, st), None
    entries = (Entry * max(1, n.value))()
    st = lib.splitzip_pages_get_manifest(b, len(b), entries, n.value, None)
    return status_name(lib, st), [(e.page_bytes, e.encoding, e.position)
                                  for e in entries[:n.value]]


def compare_pages(lib, ctx, b, caps):
    """The library and spec_reader on one stream: (what differs or None, the status)."""
    st, states, dst, sizes, n_out = lib_pages_decompress(lib, ctx, b, caps)
    try:
        pages, want_states, ph = S.read_pages(b, caps)
        want = "OK"
    except S.PagesReject as r:
        want, want_states, pages = r.status, r.states, None
    if st != want:
        return "library %s, spec_reader %s" % (st, want), st
    if states != want_states:
        return "%s: page states %s, spec_reader %s" % (st, states, want_states), st
    for i, state in enumerate(states):
        if state == S.UNTOUCHED and dst[i] != bytes([SENTINEL]) * caps[i]:
            return "%s: untouched page %d was written" % (st, i), st
    info = Info()
    ist = status_name(lib, lib.splitzip_pages_get_info(b, len(b), ctypes.byref(info)))
    try:
        h = S.pages_header(b)
        want_info = "OK"
    except S.Reject as r:
        want_info = r.status
    if ist != want_info:
        return "info: library %s, spec_reader %s (§12.5 steps 0-6)" % (ist, want_info), st
    if ist == "OK" and (info.format_version, info.flags, info.encoding, info.chunk_log2,
                        info.n_pages, info.stream_size, info.total_page_bytes,
                        info.frames_size, info.table_id) != (
            2, h["flags"], h["enc"], h["log2"], h["count"], h["ssize"],
            2 * h["total"] & S.M64,    # Total_Elems as the header claims; step 9 checks it
            h["fsize"], h["table_id"]):
        return "info fields differ from the header", st
    try:
        structure = S.pages_structure(b)
        want_manifest = "OK"
    except S.Reject as r:
        want_manifest = r.status
    mst, entries = lib_manifest(lib, b)
    if mst != want_manifest:
        return "manifest: library %s, spec_reader %s" % (mst, want_manifest), st
    if entries is not None:
        table = [(2 * n, 0 if raw else 1, 2 * p if raw else p) for n, raw, p in
                 structure["pages"]]
        if entries != table:
            return "manifest entries %s, page table %s" % (entries, table), st
    if st != "OK":
        return None, st
    if n_out != len(pages) or sizes != [2 * len(p) for p in pages] + [0] * (len(caps) -
                                                                             len(pages)):
        return "page count %d or sizes %s" % (n_out, sizes), st
    for i, p in enumerate(pages):
        if dst[i][:2 * len(p)] != le16(p):
            return "page %d differs" % i, st
    return None, st


def check_crafted(lib, ctx, b, caps, want):
    msg, st = compare_pages(lib, ctx, b, caps)
    if not msg and want and st != want:
        msg = "%s from both, but FORMAT.md says %s" % (st, want)
    return msg, st


def two_frames(lib, ctx):
    """The streams of crafted_two_frames(), each as it is: None, or what differs."""
    streams, caps = crafted_two_frames()
    for name, b, want in streams:
        msg, _ = check_crafted(lib, ctx, b, caps, want)
        if msg:
            return "%s: %s" % (name, msg)
    return None


def page_streams(lib, ctx, vdir, count, encoded, rng):
    """Damaged page streams: (accepted, None) or (None, message)."""
    bases = []
    for sub in ("valid", "invalid"):
        d = os.path.join(vdir, "pages", sub)
        bases += [(f, open(os.path.join(d, f), "rb").read())
                  for f in sorted(os.listdir(d)) if f.endswith(".szpg")]
    small = crafted_small(vdir)
    accepted = 0
    for name, b, want in [(n, b, None) for n, b in bases + encoded] + small:
        msg, st = check_crafted(lib, ctx, b, destinations(b, random.Random(0)), want)
        if msg:                                         # every stream as it is
            return None, "%s: %s" % (name, msg)
        accepted += st == "OK"
    n_intact = len(bases) + len(encoded) + len(small)
    bases += encoded + [(n, b) for n, b, _ in small]   # then damaged copies
    for it in range(count):
        name, base = rng.choice(bases)
        b, kind = mutate_pages(base, rng)
        caps = destinations(b if rng.random() < 0.5 else base, rng)
        msg, st = compare_pages(lib, ctx, b, caps)
        if msg:
            return None, ("%s, page mutation %d (kind %d, destinations %s): %s; stream %s" %
                          (name, it, kind, caps, msg, b.hex()))
        accepted += st == "OK"
    return (accepted, n_intact), None


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    lib = ctypes.CDLL(sys.argv[1])
    declare(lib)
    vdir = sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 13)
    page_count = int(sys.argv[5]) if len(sys.argv) > 5 else 400
    n_encoded = int(sys.argv[6]) if len(sys.argv) > 6 else 24
    ctx = ctypes.c_void_p()
    if lib.splitzip_ctx_create(None, ctypes.byref(ctx)) != 0:
        print("spec_mutations: cannot create a context")
        return 1
    accepted, msg = frames(lib, ctx, vdir, count, rng)
    if msg:
        print("spec_mutations: " + msg)
        return 1
    print("spec_mutations: %d damaged frames, same status from the library and spec_reader "
          "(%d accepted; dtypes the library implements: %s)" %
          (count, accepted, ", ".join(S.DTYPES[c].name for c in sorted(S.KNOWN))))
    encoded, msg = encoded_streams(lib, n_encoded, rng)
    if msg:
        print("spec_mutations: " + msg)
        return 1
    print("spec_mutations: %d random page lists, the same stream from splitzip_pages_compress "
          "and FORMAT.md §12.4" % n_encoded)
    result, msg = page_streams(lib, ctx, vdir, page_count, encoded, rng)
    if msg:
        print("spec_mutations: " + msg)
        return 1
    print("spec_mutations: %d damaged page streams and the %d they come from, same status, "
          "page states and pages from the library and spec_reader (%d accepted)" %
          (page_count, result[1], result[0]))
    msg = two_frames(lib, ctx)
    if msg:
        print("spec_mutations: " + msg)
        return 1
    print("spec_mutations: page streams of two frames (§12.1, §12.5 step 10), the same from "
          "the library and spec_reader")
    lib.splitzip_ctx_free(ctx)
    return 0


if __name__ == "__main__":
    sys.exit(main())
