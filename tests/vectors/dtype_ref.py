#!/usr/bin/python3
"""dtype_ref.py -- a reference encoder and decoder of splitzip frames of every dtype (BF16,
FP8 E4M3, FP8 E5M2, FP16, FP32), written from doc/FORMAT.md 1.3 alone with numpy; nothing of
the C library is imported or copied.

    dtype_ref.py selftest VECTORS_DIR      round trips and the BF16 golden vectors (below)
    dtype_ref.py gen OUT_DIR DATA_BF16     write the golden vectors of tests/vectors/dtypes
                                           (and its page streams, dtypes/pages: pages_ref.py)
    dtype_ref.py check VECTORS_DIR         regenerate them into a temporary folder and require
                                           the checked-in files, byte for byte
    dtype_ref.py crosscheck VECTORS_DIR COUNT SEED
                                           COUNT damaged dtype vectors: this decoder and
                                           spec_reader.py must give the same status

selftest: every bit pattern of the 8- and 16-bit dtypes (all 256 / 65,536) and the FP32
specials (+-0, subnormals, +-Inf, NaNs with payloads) plus random FP32 patterns, embedded in
KV-like data so that every mode of the dtype wins, round-trip bit-exactly (compared as
integers) through the stored, split4 and entropy frames, with tables from the input and fixed
ones; and every valid BF16 golden vector of tests/vectors/valid is re-encoded from its own
header (and table) into the same bytes, which ties the shared machinery (layouts, package-merge,
lanes, checksums) to the C library's frames. Then pages_ref.py's self-test: page streams
(FORMAT.md §12) of every dtype, and the version 2 golden streams of tests/vectors/pages.

The module is also imported by bench/dtype_study.py (the ratios of doc/BENCHMARKS.md).
"""
import os
import shutil
import struct
import sys
import tempfile

import numpy as np

# ---- constants (FORMAT.md §1.3, §3, §4.3, §7) -------------------------------------------------

MAGIC = b"\x53\x50\x5a\xbf"
ESC = 256          # §4.3: the escape symbol, for every dtype
LMAX = 11          # §5.2: the longest code, for every dtype
LANES = 32         # §4.3.5
GROUP = 64         # §2.3: elements per bit-plane group
M64 = (1 << 64) - 1
P1, P2, P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
P4, P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
U64 = np.uint64


class Dtype:
    """One row of the dtype table of FORMAT.md §2."""

    def __init__(self, code, name, ext, width, ebits, split4, rest):
        self.code, self.name, self.ext = code, name, ext
        self.width, self.ebits, self.split4, self.rest = width, ebits, split4, rest
        self.np = {1: np.uint8, 2: np.uint16, 4: np.uint32}[width]


# rest: the rest sections of §2.3 in frame order: "SM" (a byte per element), "LO8" (a byte),
# "LO16" (a u16), "NIB" (a nibble), "PL3" (three bit planes in groups of 64).
BF16 = Dtype(1, "bf16", ".bf16", 2, 8, True, ("SM",))
E4M3 = Dtype(2, "e4m3", ".e4m3", 1, 4, False, ("NIB",))
E5M2 = Dtype(3, "e5m2", ".e5m2", 1, 5, True, ("PL3",))
FP16 = Dtype(4, "f16", ".f16", 2, 5, True, ("PL3", "LO8"))
FP32 = Dtype(5, "f32", ".f32", 4, 8, True, ("SM", "LO16"))
DTYPES = {d.code: d for d in (BF16, E4M3, E5M2, FP16, FP32)}
BY_NAME = {d.name: d for d in DTYPES.values()}


class Reject(Exception):
    """A decoder's verdict: a status name of FORMAT.md §1.2."""

    def __init__(self, status, why):
        super().__init__("%s: %s" % (status, why))
        self.status = status


def corrupt(cond, why):
    if not cond:
        raise Reject("ERROR_CORRUPT_STREAM", why)


def align16(x):
    return (x + 15) & ~15


def ceil_div(a, b):
    return (a + b - 1) // b


# ---- §7: the chunk digest and the checksums, vectorised over chunks ---------------------------

def _rotl31(x):
    return (x << U64(31)) | (x >> U64(33))


def _fmix(x):
    x = x ^ (x >> U64(33))
    x = x * U64(0xFF51AFD7ED558CCD)
    x = x ^ (x >> U64(33))
    x = x * U64(0xC4CEB9FE1A85EC53)
    return x ^ (x >> U64(33))


def digests(rows, lengths):
    """§7.1 H(b, m) of several buffers at once: rows is a (k, R) uint8 array (each buffer
    zero-padded to R bytes, R a multiple of 256), lengths the k values of m. Returns uint64."""
    k, r = rows.shape
    words = rows.view("<u8").reshape(k, r // 256, 32)
    acc = np.tile((np.arange(1, 33, dtype=U64) * U64(P5)), (k, 1))
    nw = (np.asarray(lengths, dtype=np.int64) + 7) // 8
    with np.errstate(over="ignore"):
        for j in range(r // 256):
            live = (j * 32 + np.arange(32)[None, :]) < nw[:, None]
            upd = _rotl31(acc + words[:, j, :] * U64(P2)) * U64(P1)
            acc = np.where(live, upd, acc)
        lane = np.arange(32, dtype=U64) * U64(P4)
        s = _fmix(acc ^ lane[None, :]).sum(axis=1, dtype=U64)
        return _fmix(s + np.asarray(lengths, dtype=U64) * U64(P3))


def digest(b):
    b = bytes(b)
    r = max(256, ceil_div(len(b), 256) * 256)
    row = np.zeros((1, r), dtype=np.uint8)
    row[0, :len(b)] = np.frombuffer(b, dtype=np.uint8)
    return int(digests(row, [len(b)])[0])


def content_checksum(dt, v, log2):
    """§7.2: over the decoded elements as little-endian bytes, chunks of 2^L elements."""
    n = len(v)
    if n == 0:
        return 0
    data = np.ascontiguousarray(v, dtype=dt.np).view(np.uint8)
    cb = dt.width << log2
    c = ceil_div(n, 1 << log2)
    r = ceil_div(cb, 256) * 256
    rows = np.zeros((c, r), dtype=np.uint8)
    flat = np.zeros(c * cb, dtype=np.uint8)
    flat[:len(data)] = data
    rows[:, :cb] = flat.reshape(c, cb)
    lengths = np.full(c, cb, dtype=np.int64)
    lengths[-1] = len(data) - (c - 1) * cb
    d = digests(rows, lengths)
    with np.errstate(over="ignore"):
        f = _fmix(d + np.arange(c, dtype=U64) * U64(P2))
        total = f.sum(dtype=U64)
        return int(_fmix(np.array([total ^ U64((n * P4) & M64)], dtype=U64))[0])


def header_checksum(h):
    return digest(h[:60]) & 0xFFFFFFFF


# ---- §2: the split of an element ------------------------------------------------------------

def exponents(dt, v):
    """§2.2: the exponent symbol of every element (int64)."""
    v = np.asarray(v).astype(np.int64)
    if dt is BF16:
        return (v >> 7) & 0xFF
    if dt is E4M3:
        return (v >> 3) & 0xF
    if dt is E5M2:
        return (v >> 2) & 0x1F
    if dt is FP16:
        return (v >> 10) & 0x1F
    return (v >> 23) & 0xFF


def _pl3_bits(hb):
    """§2.3: the three rest bits of an E5M2 pattern (or of FP16's high byte)."""
    return ((hb >> 5) & 4) | (hb & 3)


def rest_fields(dt, v):
    """§2.3: the rest fields of every element, one int64 array per rest section."""
    v = np.asarray(v).astype(np.int64)
    if dt is BF16:
        return [((v >> 8) & 0x80) | (v & 0x7F)]
    if dt is E4M3:
        return [((v >> 4) & 8) | (v & 7)]
    if dt is E5M2:
        return [_pl3_bits(v)]
    if dt is FP16:
        return [_pl3_bits(v >> 8), v & 0xFF]
    return [((v >> 24) & 0x80) | ((v >> 16) & 0x7F), v & 0xFFFF]


def join(dt, x, fields):
    """§2.2-§2.3: elements from exponent symbols x and the rest fields; join(split(v)) == v."""
    x = np.asarray(x).astype(np.int64)
    if dt is BF16:
        s = fields[0]
        v = ((s & 0x80) << 8) | (x << 7) | (s & 0x7F)
    elif dt is E4M3:
        r = fields[0]
        v = ((r & 8) << 4) | (x << 3) | (r & 7)
    elif dt is E5M2:
        r = fields[0]
        v = ((r & 4) << 5) | (x << 2) | (r & 3)
    elif dt is FP16:
        r, lo = fields
        v = ((((r & 4) << 5) | (x << 2) | (r & 3)) << 8) | lo
    else:
        s, lo = fields
        v = ((((s & 0x80) << 8) | (x << 7) | (s & 0x7F)) << 16) | lo
    return v.astype(dt.np)


def section_size(kind, n):
    """§2.3: the bytes of a rest section of n elements (without its padding)."""
    return {"SM": n, "LO8": n, "LO16": 2 * n, "NIB": ceil_div(n, 2),
            "PL3": 24 * ceil_div(n, GROUP)}[kind]


def pack_section(kind, f):
    """§2.3: the bytes of a rest section holding the fields f."""
    n = len(f)
    if kind in ("SM", "LO8"):
        return f.astype(np.uint8).tobytes()
    if kind == "LO16":
        return f.astype("<u2").tobytes()
    if kind == "NIB":
        g = np.zeros(2 * ceil_div(n, 2), dtype=np.uint8)
        g[:n] = f
        return (g[0::2] | (g[1::2] << 4)).tobytes()
    g = np.zeros(GROUP * ceil_div(n, GROUP), dtype=np.uint8)
    g[:n] = f
    g = g.reshape(-1, GROUP)
    planes = [np.packbits((g >> k) & 1, axis=1, bitorder="little") for k in range(3)]
    return np.concatenate(planes, axis=1).tobytes()


def unpack_section(kind, b, n):
    """The fields of a rest section, and whether its padding (the nibble after an odd last
    element, the plane bits of elements n and above) is 0."""
    a = np.frombuffer(b, dtype=np.uint8)
    if kind in ("SM", "LO8"):
        return a.astype(np.int64), True
    if kind == "LO16":
        return np.frombuffer(b, dtype="<u2").astype(np.int64), True
    if kind == "NIB":
        f = np.empty(2 * len(a), dtype=np.int64)
        f[0::2], f[1::2] = a & 15, a >> 4
        return f[:n], not (n % 2 and f[n] != 0)
    g = a.reshape(-1, 3, 8)
    bits = [np.unpackbits(g[:, k, :], axis=1, bitorder="little").reshape(-1) for k in range(3)]
    f = (bits[0] | (bits[1] << 1) | (bits[2] << 2)).astype(np.int64)
    return f[:n], not f[n:].any()


# ---- §4: layouts ------------------------------------------------------------------------------

def rest_layout(dt, n, start):
    """The offsets of the rest sections, the first at align16(start), and the end of the last."""
    offs, o = [], start
    for kind in dt.rest:
        o = align16(o)
        offs.append(o)
        o += section_size(kind, n)
    return offs, o


def stored_size(dt, n):
    return 64 + align16(dt.width * n)


def split4_layout(dt, n, log2, e):
    """§4.2: (rest offsets, table, positions, exponents, frame size)."""
    c = ceil_div(n, 1 << log2)
    rest, end = rest_layout(dt, n, 64 + ceil_div(n, 2))
    table = align16(end)
    pos = align16(table + 4 * c)
    exps = align16(pos + 2 * e)
    return rest, table, pos, exps, align16(exps + e)


def entropy_layout(dt, n, log2, words, first, last):
    """§4.3.2: (rest offsets, lengths, chunk table, stream, frame size, K)."""
    c = ceil_div(n, 1 << log2)
    k = last - first + 1
    rest, end = rest_layout(dt, n, 64)
    lengths = align16(end)
    ctab = align16(lengths + ceil_div(k, 2))
    stream = align16(ctab + 4 * c)
    return rest, lengths, ctab, stream, align16(stream + 2 * words), k


def split4_max_escapes(dt, n, log2):
    """The largest E for which split4 is smaller than stored (§6.3), or -1."""
    lo, hi = -1, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if split4_layout(dt, n, log2, mid)[4] < stored_size(dt, n):
            lo = mid
        else:
            hi = mid - 1
    return lo


# ---- §5: codebooks and entropy tables -----------------------------------------------------------

def histogram(dt, v):
    return np.bincount(exponents(dt, v), minlength=1 << dt.ebits).astype(np.int64)


def codebook_of_histogram(dt, hist):
    """§5.1 over the 2^e exponents of the dtype."""
    ranked = sorted(range(1 << dt.ebits), key=lambda e: (-int(hist[e]), e))
    return sorted(ranked[:16])


def table_of_histogram(dt, hist):
    """§5.2: the 257 code lengths (exponents 2^e and above get 0) by package-merge."""
    w = [0] * 257
    for e in range(1 << dt.ebits):
        w[e] = int(hist[e])
    w[ESC] = 1
    leaves = sorted((s for s in range(257) if w[s]), key=lambda s: (w[s], s))
    m = len(leaves)
    assert m >= 2, "an empty histogram"
    lists, prev = [], None
    for k in range(1, LMAX + 1):
        items = [(w[s], False) for s in leaves]
        if prev is not None:
            pk = [(prev[2 * i][0] + prev[2 * i + 1][0], True) for i in range(len(prev) // 2)]
            merged, a, b = [], 0, 0
            while a < len(items) or b < len(pk):
                if b == len(pk) or (a < len(items) and items[a][0] <= pk[b][0]):
                    merged.append(items[a])
                    a += 1
                else:
                    merged.append(pk[b])
                    b += 1
            items = merged
        lists.append(items)
        prev = items
    length = [0] * 257
    t = 2 * m - 2
    for k in range(LMAX, 0, -1):
        p = sum(1 for item in lists[k - 1][:t] if item[1])
        for s in leaves[:t - p]:
            length[s] += 1
        t = 2 * p
    return length


def canonical_codes(length):
    """§5.3"""
    count = [0] * (LMAX + 1)
    for s in range(257):
        if length[s]:
            count[length[s]] += 1
    first, code = [0] * (LMAX + 1), 0
    for l in range(1, LMAX + 1):
        code = (code + count[l - 1]) << 1
        first[l] = code
    codes = [0] * 257
    for s in range(257):
        if length[s]:
            codes[s] = first[length[s]]
            first[length[s]] += 1
    return codes


def table_valid(dt, length):
    """§5.4 for a dtype: lengths 0..11, len(ESC) >= 1, no code for an exponent >= 2^e,
    Kraft's equality."""
    if len(length) != 257 or any(l < 0 or l > LMAX for l in length) or length[ESC] < 1:
        return False
    if any(length[e] for e in range(1 << dt.ebits, 256)):
        return False
    return sum(1 << (LMAX - l) for l in length if l) == 1 << LMAX


def codebook_valid(dt, cb):
    return (dt.split4 and len(cb) == 16 and all(cb[k] < cb[k + 1] for k in range(15))
            and 0 <= cb[0] and cb[15] < (1 << dt.ebits))


def reverse_bits(x, m):
    r = 0
    for _ in range(m):
        r = (r << 1) | (x & 1)
        x >>= 1
    return r


def lookup_table(length):
    """§4.3.5: the symbol whose code starts each of the 2^11 values of the next 11 bits."""
    codes = canonical_codes(length)
    lut = np.full(1 << LMAX, -1, dtype=np.int64)
    for s in range(257):
        if length[s]:
            r = reverse_bits(codes[s], length[s])
            assert (lut[r::1 << length[s]] == -1).all()
            lut[r::1 << length[s]] = s
    assert (lut >= 0).all()
    return lut


# ---- §3: the header -----------------------------------------------------------------------------

def frame_header(dt, mode, log2, flags, esc, n, middle, size, cksum):
    h = bytearray(64)
    h[0:8] = MAGIC + bytes([1, dt.code, mode, log2])
    h[8] = flags
    struct.pack_into("<IQ", h, 12, esc, n)
    h[24:40] = middle
    struct.pack_into("<QQ", h, 40, size, cksum)
    struct.pack_into("<I", h, 60, header_checksum(h))
    return h


def put_rest(f, dt, v, offs):
    for kind, field, off in zip(dt.rest, rest_fields(dt, v), offs):
        b = pack_section(kind, field)
        f[off:off + len(b)] = b


# ---- §4.1, §4.2: stored and split4 frames ----------------------------------------------------

def stored_frame(dt, v, log2, flags, cksum):
    n = len(v)
    f = bytearray(stored_size(dt, n))
    f[:64] = frame_header(dt, 0, log2, flags, 0, n, bytes(16), len(f), cksum)
    f[64:64 + dt.width * n] = np.ascontiguousarray(v, dtype=dt.np).astype(
        "<u%d" % dt.width).tobytes()
    return f


def split4_frame(dt, v, log2, flags, cksum, cb):
    """§4.2 with the codebook cb, or None when not smaller than stored (§6.3)."""
    n = len(v)
    x = exponents(dt, v)
    index = np.full(1 << dt.ebits, -1, dtype=np.int64)
    index[np.array(cb)] = np.arange(16)
    code = index[x]
    esc = np.nonzero(code < 0)[0]
    rest, table, pos, exps, size = split4_layout(dt, n, log2, len(esc))
    if size >= stored_size(dt, n):
        return None
    f = bytearray(size)
    f[:64] = frame_header(dt, 1, log2, flags, len(esc), n, bytes(cb), size, cksum)
    f[64:64 + ceil_div(n, 2)] = pack_section("NIB", np.maximum(code, 0))
    put_rest(f, dt, v, rest)
    c = ceil_div(n, 1 << log2)
    per = np.bincount(esc >> log2, minlength=c)
    f[table:table + 4 * c] = np.cumsum(per).astype("<u4").tobytes()
    f[pos:pos + 2 * len(esc)] = (esc & ((1 << log2) - 1)).astype("<u2").tobytes()
    f[exps:exps + len(esc)] = x[esc].astype(np.uint8).tobytes()
    return f


# ---- §4.3: entropy frames ---------------------------------------------------------------------

def _steps(n, log2):
    """The chunk/step/lane grid of §4.3.5: (C, S, element index array (C,S,32) or -1)."""
    c = ceil_div(n, 1 << log2)
    s = (1 << log2) // LANES
    idx = np.arange(c * s * LANES, dtype=np.int64).reshape(c, s, LANES)
    return c, s, np.where(idx < n, idx, -1)


def entropy_words(dt, v, log2, length, want_words=True, force_esc=None):
    """§4.3.5 seen from the encoder, for every chunk at once: (words, chunk table, escapes).
    With want_words False only the counts (for sizes); words is then None. force_esc (for
    invalid vectors only) lists elements to code as escapes although they have a code."""
    n = len(v)
    ln = np.array(length, dtype=np.int64)
    c, s, idx = _steps(n, log2)
    x = exponents(dt, v)
    live = idx >= 0
    xe = np.where(live, x[np.maximum(idx, 0)], 0)
    isesc = live & (ln[xe] == 0)
    if force_esc is not None:
        forced = np.zeros(c * s * LANES, dtype=bool)
        forced[np.asarray(force_esc)] = True
        isesc |= forced.reshape(c, s, LANES) & live
    sym = np.where(isesc, ESC, xe)
    slen = np.where(live, ln[sym], 0)
    ebits = dt.ebits
    reads = np.zeros((c, s, 2, LANES), dtype=bool)
    held = np.zeros((c, LANES), dtype=np.int64)
    for st in range(s):
        act = live[:, st, :]
        ra = act & (held < LMAX)
        held += 16 * ra
        held -= slen[:, st, :]
        rb = isesc[:, st, :] & (held < ebits)
        held += 16 * rb
        held -= ebits * isesc[:, st, :]
        reads[:, st, 0, :] = ra
        reads[:, st, 1, :] = rb
    per_chunk = reads.reshape(c, -1).sum(axis=1)
    table = np.cumsum(per_chunk)
    n_esc = int(isesc.sum())
    if not want_words:
        return None, table, n_esc
    # each lane's bit sequence: codes (first bit first) and escape exponents (bit 0 first)
    codes = canonical_codes(length)
    rev = np.array([reverse_bits(codes[q], length[q]) if length[q] else 0
                    for q in range(257)], dtype=np.int64)
    val = np.where(live, rev[sym] | np.where(isesc, xe << slen, 0), 0)
    nb = slen + ebits * isesc
    off = np.cumsum(nb, axis=1) - nb                        # bit offset in the lane, (C,S,32)
    maxw = int(reads.sum(axis=(1, 2)).max()) if c else 0
    lanew = np.zeros((c, LANES, maxw + 3), dtype=np.int64)
    ci = np.broadcast_to(np.arange(c)[:, None, None], off.shape)
    li = np.broadcast_to(np.arange(LANES)[None, None, :], off.shape)
    wi, sh = off >> 4, off & 15
    part = val << sh                                         # below 2^35
    for j in range(3):
        m = live & (((part >> (16 * j)) & 0xFFFF) != 0)
        np.add.at(lanew, (ci[m], li[m], wi[m] + j), (part[m] >> (16 * j)) & 0xFFFF)
    k = np.cumsum(reads.reshape(c, s * 2, LANES), axis=1) - 1
    k = k.reshape(c, s, 2, LANES)
    cc, ss, pp, ll = np.nonzero(reads)
    words = lanew[cc, ll, k[cc, ss, pp, ll]]
    return words.astype(np.uint16), table, n_esc


def entropy_frame(dt, v, log2, flags, cksum, length, words=None):
    """§4.3 with the table 'length', or None when not smaller than stored."""
    n = len(v)
    coded = [e for e in range(1 << dt.ebits) if length[e]]
    first, last = coded[0], coded[-1]
    if words is None:
        words = entropy_words(dt, v, log2, length)
    w, table, esc = words
    rest, lo, ctab, stream, size, k = entropy_layout(dt, n, log2, len(w), first, last)
    if size >= stored_size(dt, n):
        return None
    f = bytearray(size)
    middle = struct.pack("<IBBB", len(w), first, last, length[ESC]) + bytes(9)
    f[:64] = frame_header(dt, 2, log2, flags, esc, n, middle, size, cksum)
    put_rest(f, dt, v, rest)
    nib = pack_section("NIB", np.array(length[first:last + 1], dtype=np.int64))
    f[lo:lo + len(nib)] = nib
    f[ctab:ctab + 4 * len(table)] = table.astype("<u4").tobytes()
    f[stream:stream + 2 * len(w)] = w.astype("<u2").tobytes()
    return f


def entropy_size(dt, v, log2, length):
    _, table, _ = entropy_words(dt, v, log2, length, want_words=False)
    coded = [e for e in range(1 << dt.ebits) if length[e]]
    w = int(table[-1]) if len(table) else 0
    return entropy_layout(dt, len(v), log2, w, coded[0], coded[-1])[4]


# ---- §6: the canonical frame ----------------------------------------------------------------

def encode(dt, v, log2=None, checksum=True, encoding="split4", codebook=None, table=None):
    """§6: the canonical frame of elements v. encoding: split4, entropy or auto; codebook /
    table: None (from the input) or fixed."""
    v = np.ascontiguousarray(v, dtype=dt.np)
    n = len(v)
    if encoding == "split4" and not dt.split4:
        raise ValueError("the split4 encoding is not defined for %s (§6.3)" % dt.name)
    if log2 is None:
        log2 = 12 if encoding == "split4" else 14
    flags = 1 if checksum else 0
    ck = content_checksum(dt, v, log2) if checksum else 0
    best = stored_frame(dt, v, log2, flags, ck)
    if n == 0:
        return bytes(best)
    hist = None
    if encoding in ("split4", "auto") and dt.split4:
        if codebook is None:
            hist = histogram(dt, v)
            cb = codebook_of_histogram(dt, hist)
        else:
            cb = list(codebook)
            assert codebook_valid(dt, cb)
        f = split4_frame(dt, v, log2, flags, ck, cb)
        if f is not None and len(f) < len(best):
            best = f
    if encoding in ("entropy", "auto"):
        if table is None:
            hist = histogram(dt, v) if hist is None else hist
            ln = table_of_histogram(dt, hist)
        else:
            ln = list(table)
            assert table_valid(dt, ln)
        f = entropy_frame(dt, v, log2, flags, ck, ln)
        if f is not None and len(f) < len(best):
            best = f
    return bytes(best)


# ---- §3.2-§4.3.7: the validating decoder ---------------------------------------------------

def parse_header(buf, first=True, known=None):
    """§3.2 steps 0-11 (with §8.2 for a later frame). known: the dtype codes this decoder
    implements (default: all of FORMAT.md 1.3)."""
    bad_magic = "ERROR_BAD_MAGIC" if first else "ERROR_CORRUPT_STREAM"
    if len(buf) < 64:
        k = min(len(buf), 4)
        if bytes(buf[:k]) != MAGIC[:k]:
            raise Reject(bad_magic, "not a frame")
        raise Reject("ERROR_TRUNCATED", "an incomplete header")
    h = bytes(buf[:64])
    if h[:4] != MAGIC:
        raise Reject(bad_magic, "magic")
    corrupt(h[4] != 0, "Format_Version 0")
    if h[4] > 1:
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "a later Format_Version")
    if struct.unpack_from("<I", h, 60)[0] != header_checksum(h):
        raise Reject("ERROR_HEADER_CHECKSUM", "Header_Checksum")
    code, mode, log2, flags = h[5], h[6], h[7], h[8]
    known = DTYPES if known is None else known
    if code not in DTYPES or code not in known:
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "Dtype %d" % code)
    dt = DTYPES[code]
    if mode not in (0, 1, 2) or (mode == 1 and not dt.split4):
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "Mode %d for %s" % (mode, dt.name))
    esc, n = struct.unpack_from("<IQ", h, 12)
    fsize, cksum = struct.unpack_from("<QQ", h, 40)
    corrupt(flags & ~1 == 0, "Flags")
    corrupt(h[9:12] == bytes(3) and h[56:60] == bytes(4), "Reserved_0 or Reserved_1")
    corrupt(10 <= log2 <= 16, "Chunk_Log2")
    corrupt(n <= 0xFFFFFFFF, "Element_Count")
    corrupt(flags & 1 or cksum == 0, "Content_Checksum without the flag")
    hd = {"dt": dt, "mode": mode, "n": n, "log2": log2, "flags": flags, "esc": esc,
          "cksum": cksum, "size": fsize, "codebook": list(h[24:40]), "fields": None}
    if mode == 0:
        corrupt(esc == 0 and not any(h[24:40]), "a stored frame's Escape_Count or Codebook")
        size = stored_size(dt, n)
    elif mode == 1:
        cb = hd["codebook"]
        corrupt(all(cb[k] < cb[k + 1] for k in range(15)), "Codebook not ascending")
        corrupt(cb[15] < (1 << dt.ebits), "a Codebook entry outside the dtype's exponents")
        corrupt(esc <= n, "Escape_Count above Element_Count")
        size = split4_layout(dt, n, log2, esc)[4]
        corrupt(size < stored_size(dt, n), "split4 not smaller than stored")
    else:
        words, fst, lst, esc_len = struct.unpack_from("<IBBB", h, 24)
        corrupt(fst <= lst, "Table_First above Table_Last")
        corrupt(lst < (1 << dt.ebits), "Table_Last outside the dtype's exponents")
        corrupt(1 <= esc_len <= LMAX, "Escape_Length")
        corrupt(not any(h[31:40]), "Reserved_2")
        corrupt(esc <= n, "Escape_Count above Element_Count")
        size = entropy_layout(dt, n, log2, words, fst, lst)[4]
        corrupt(size < stored_size(dt, n), "entropy not smaller than stored")
        hd["fields"] = (words, fst, lst, esc_len)
    corrupt(fsize == size, "Frame_Size")
    return hd


def _rest(f, dt, n, offs):
    """The rest fields of the frame f, with the padding rule of §2.3."""
    fields = []
    for kind, off in zip(dt.rest, offs):
        fl, ok = unpack_section(kind, f[off:off + section_size(kind, n)], n)
        corrupt(ok, "a nonzero pad nibble or plane bit in a rest section")
        fields.append(fl)
    return fields


def _gaps_zero(f, spans):
    for a, b in spans:
        corrupt(not any(f[a:b]), "padding at %d" % a)


def _rest_gaps(dt, n, offs, nxt):
    ends = [o + section_size(k, n) for k, o in zip(dt.rest, offs)]
    starts = offs[1:] + [nxt]
    return list(zip(ends, starts))


def decode_stored(f, hd):
    dt, n = hd["dt"], hd["n"]
    _gaps_zero(f, [(64 + dt.width * n, hd["size"])])
    return np.frombuffer(f, dtype="<u%d" % dt.width, count=n, offset=64).astype(dt.np)


def decode_split4(f, hd):
    """§4.2.7"""
    dt, n, log2, e, cb = hd["dt"], hd["n"], hd["log2"], hd["esc"], hd["codebook"]
    rest, table, pos, exps, size = split4_layout(dt, n, log2, e)
    c = ceil_div(n, 1 << log2)
    _gaps_zero(f, [(64 + ceil_div(n, 2), rest[0])] + _rest_gaps(dt, n, rest, table) +
               [(table + 4 * c, pos), (pos + 2 * e, exps), (exps + e, size)])
    codes, ok = unpack_section("NIB", f[64:64 + ceil_div(n, 2)], n)
    corrupt(ok, "the pad nibble of the codes")
    fields = _rest(f, dt, n, rest)
    t = np.frombuffer(f, dtype="<u4", count=c, offset=table).astype(np.int64)
    lens = np.minimum(1 << log2, n - (np.arange(c) << log2))
    prev = np.concatenate([[0], t[:-1]])
    corrupt((t >= prev).all() and (t - prev <= lens).all(), "chunk table")
    corrupt(c == 0 or t[-1] == e, "the last chunk table entry is not Escape_Count")
    p = np.frombuffer(f, dtype="<u2", count=e, offset=pos).astype(np.int64)
    xe = np.frombuffer(f, dtype=np.uint8, count=e, offset=exps).astype(np.int64)
    chunk = np.repeat(np.arange(c), t - prev)
    first_of_chunk = np.ones(e, dtype=bool)
    first_of_chunk[1:] = chunk[1:] != chunk[:-1]
    ascending = first_of_chunk | (np.concatenate([[-1], p[:-1]]) < p)
    corrupt(ascending.all() and (p < lens[chunk]).all(), "escape positions")
    corrupt((xe < (1 << dt.ebits)).all() and not np.isin(xe, cb).any(), "escape exponents")
    i = (chunk << log2) + p
    corrupt((codes[i] == 0).all(), "an escape whose code is not 0")
    x = np.array(cb, dtype=np.int64)[codes]
    x[i] = xe
    return join(dt, x, fields)


def decode_entropy(f, hd, want_table=False):
    """§4.3.6 rules 1-5."""
    dt, n, log2, e = hd["dt"], hd["n"], hd["log2"], hd["esc"]
    words, first, last, esc_len = hd["fields"]
    rest, lo, ctab, stream, size, k = entropy_layout(dt, n, log2, words, first, last)
    c = ceil_div(n, 1 << log2)
    _gaps_zero(f, _rest_gaps(dt, n, rest, lo) + [(lo + ceil_div(k, 2), ctab),
                                                 (ctab + 4 * c, stream), (stream + 2 * words, size)])
    nib, ok = unpack_section("NIB", f[lo:lo + ceil_div(k, 2)], k)
    corrupt(ok, "the pad nibble of the code lengths")
    fields = _rest(f, dt, n, rest)
    length = [0] * 257
    for i in range(k):
        length[first + i] = int(nib[i])
    length[ESC] = esc_len
    corrupt(all(l <= LMAX for l in nib), "a code length above 11")
    corrupt(length[first] and length[last], "the table range is not exact")
    corrupt(table_valid(dt, length), "an incomplete or oversubscribed code")
    t = np.frombuffer(f, dtype="<u4", count=c, offset=ctab).astype(np.int64)
    corrupt((np.diff(t) >= 0).all(), "chunk table decreasing")
    corrupt(c == 0 or t[-1] == words, "the chunk table does not end at Stream_Words")
    w = np.frombuffer(f, dtype="<u2", count=words, offset=stream).astype(np.int64)
    x, found = _decode_lanes(dt, n, log2, w, t, length)
    corrupt(found == e, "Escape_Count is not the number of escapes")
    out = join(dt, x, fields)
    return (out, length) if want_table else out


def _decode_lanes(dt, n, log2, w, t, length):
    """§4.3.5 for every chunk at once (rule 4): the exponent symbols and the escape count."""
    lut = lookup_table(length)
    ln = np.array(length, dtype=np.int64)
    c, s, idx = _steps(n, log2)
    live = idx >= 0
    start = np.concatenate([[0], t[:-1]]) if c else np.zeros(0, dtype=np.int64)
    end = t
    nxt = start.copy()
    buf = np.zeros((c, LANES), dtype=np.int64)
    bits = np.zeros((c, LANES), dtype=np.int64)
    x = np.zeros((c, s, LANES), dtype=np.int64)
    found = 0
    ebits, emask = dt.ebits, (1 << dt.ebits) - 1
    wpad = np.concatenate([w, np.zeros(64, dtype=np.int64)])

    def read(mask):
        cnt = np.cumsum(mask, axis=1) - mask
        p = nxt[:, None] + cnt
        corrupt(not (mask & (p >= end[:, None])).any(), "a lane reads past its chunk's words")
        got = wpad[np.where(mask, p, 0)]
        np.copyto(buf, buf | (got << bits), where=mask)
        bits[:] += 16 * mask
        nxt[:] += mask.sum(axis=1)

    for st in range(s):
        act = live[:, st, :]
        if not act.any():
            break
        read(act & (bits < LMAX))
        sym = np.where(act, lut[buf & ((1 << LMAX) - 1)], 0)
        k = np.where(act, ln[sym], 0)
        buf >>= k
        bits -= k
        isesc = act & (sym == ESC)
        read(isesc & (bits < ebits))
        raw = buf & emask
        buf = np.where(isesc, buf >> ebits, buf)
        bits -= ebits * isesc
        xs = np.where(isesc, raw, sym)
        corrupt(not (isesc & (ln[np.where(isesc, raw, 0)] != 0)).any(),
                "an escape for an exponent that has a code")
        found += int(isesc.sum())
        x[:, st, :] = xs
    corrupt((nxt == end).all(), "a word of a chunk is not read")
    corrupt(not buf.any(), "a nonzero bit after the end of a lane")
    return x.reshape(-1)[:n], found


def read_frame(buf, first=True, known=None, want_table=False):
    """§3.2, §3.3: (elements, frame size, header dict)."""
    hd = parse_header(buf, first, known)
    if hd["size"] > len(buf):
        raise Reject("ERROR_TRUNCATED", "the frame ends after the input")
    f = bytes(buf[:hd["size"]])
    if hd["mode"] == 0:
        v = decode_stored(f, hd)
    elif hd["mode"] == 1:
        v = decode_split4(f, hd)
    else:
        v, hd["table"] = decode_entropy(f, hd, want_table=True)
    if hd["flags"] & 1 and hd["cksum"] != content_checksum(hd["dt"], v, hd["log2"]):
        raise Reject("ERROR_CONTENT_CHECKSUM", "Content_Checksum")
    return v, hd["size"], hd


def read_stream(buf, known=None):
    """§8.2: (dtype, elements, [headers]). Every frame has the first frame's Dtype."""
    if not buf:
        raise Reject("ERROR_TRUNCATED", "zero bytes are not a stream")
    out, hdrs, off, dt = [], [], 0, None
    while off < len(buf):
        rest = buf[off:]
        if off and len(rest) >= 64:
            hd = parse_header(rest, False, known)
            corrupt(hd["dt"] is dt, "a frame of another Dtype than the first")
        v, size, hd = read_frame(rest, off == 0, known)
        dt = hd["dt"]
        out.append(v)
        hdrs.append(hd)
        off += size
    return dt, np.concatenate(out), hdrs


# ---- self-test ---------------------------------------------------------------------------------

def splitmix(seed, n):
    """A deterministic stream of n uint64 (splitmix64), for test data."""
    with np.errstate(over="ignore"):
        z = (np.arange(1, n + 1, dtype=U64) * U64(0x9E3779B97F4A7C15)) + U64(seed)
        z = (z ^ (z >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> U64(27))) * U64(0x94D049BB133111EB)
        return z ^ (z >> U64(31))


def kv_like(dt, n, seed, centre=None):
    """Elements with a KV-like exponent histogram (a peak and two geometric tails) and random
    sign and rest bits: integer arithmetic only, the same on every machine."""
    r = splitmix(seed, 2 * n)
    top = (1 << dt.ebits) - 1
    centre = {4: 6, 5: 14, 8: 122}[dt.ebits] if centre is None else centre
    # the distance from the centre: 0 with probability 1/4, then halving per step
    u = (r[:n] >> U64(40)).astype(np.int64)
    dist = np.zeros(n, dtype=np.int64)
    for d in range(1, 12):
        dist += (u < (1 << 24) >> d).astype(np.int64) * 1
    side = ((r[:n] >> U64(8)) & U64(1)).astype(np.int64)
    x = np.clip(centre + np.where(side == 1, dist, -dist - 1), 0, top)
    bits = r[n:]
    restbits = dt.width * 8 - dt.ebits
    rb = (bits & U64((1 << restbits) - 1)).astype(np.int64)
    fields = []
    # rb's bits spread over the rest fields, so any rest pattern can occur
    if dt is BF16:
        fields = [rb & 0xFF]
    elif dt is E4M3:
        fields = [rb & 0xF]
    elif dt is E5M2:
        fields = [rb & 7]
    elif dt is FP16:
        fields = [rb & 7, (rb >> 3) & 0xFF]
    else:
        fields = [rb & 0xFF, (rb >> 8) & 0xFFFF]
    return join(dt, x, fields)


def _mix(a, b, seed):
    """a's elements spread among b's at deterministic places."""
    out = np.concatenate([a, b])
    order = np.argsort(splitmix(seed, len(out)), kind="stable")
    return out[order]


def _roundtrip(dt, v, **kw):
    f = encode(dt, v, **kw)
    got_dt, got, hdrs = read_stream(f)
    if got_dt is not dt or got.dtype != dt.np or not np.array_equal(got.astype(np.int64),
                                                                      v.astype(np.int64)):
        raise AssertionError("%s %s: round trip differs" % (dt.name, kw))
    return hdrs[0]["mode"], len(f)


def fp32_specials():
    s = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000,
         0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
         0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC12345,
         0xFFA5A5A5, 0x3F800000, 0xBF800000, 0x33800000, 0x00000100]
    return np.array(s, dtype=np.uint32)


def selftest(vdir):
    checks = 0
    for dt in (E4M3, E5M2, FP16, BF16, FP32):
        if dt.width < 4:
            every = np.arange(1 << (8 * dt.width), dtype=np.int64).astype(dt.np)
        else:
            every = np.concatenate([fp32_specials(), splitmix(99, 1 << 14).astype(np.uint32)])
        # alone: stored in every encoding (the exponents are uniform)
        encs = (["split4"] if dt.split4 else []) + ["entropy", "auto"]
        for enc in encs:
            m, _ = _roundtrip(dt, every, encoding=enc, log2=10)
            assert m == 0, (dt.name, enc, "all patterns alone should be stored")
            checks += 1
        # every pattern in a frame of every mode, at the chunk sizes at both ends: 16-bit
        # patterns in parts of 16 exponents each (no escapes, and the coded modes win), the
        # others among KV-like data (enough of it that every mode wins)
        if dt.width == 2:
            x = exponents(dt, every)
            parts = [every[(x >> 4) == k] for k in range(1 << (dt.ebits - 4))]
        else:
            parts = [_mix(every, kv_like(dt, {1: 30, 4: 8}[dt.width] * len(every), 7), 3)]
        want = {"split4": 1, "entropy": 2, "auto": 2 if dt.width != 2 else 1}
        for part in parts:
            for enc in encs:
                for log2 in ((10, 16) if enc != "auto" else (14,)):
                    m, _ = _roundtrip(dt, part, encoding=enc, log2=log2)
                    assert m == want[enc], (dt.name, enc, log2, m)
                    checks += 1
        # fixed tables and codebooks from other KV-like data: the patterns outside are escapes
        some = every if dt.width < 2 else every[splitmix(4, 4096) % U64(len(every))]
        mixed = _mix(some, kv_like(dt, {1: 30, 2: 15, 4: 8}[dt.width] * len(some), 9), 6)
        small = kv_like(dt, 4000, 11)
        ln = table_of_histogram(dt, histogram(dt, small))
        m, _ = _roundtrip(dt, mixed, encoding="entropy", log2=12, table=ln)
        assert m == 2, (dt.name, "fixed table")
        checks += 1
        if dt.split4:
            cb = codebook_of_histogram(dt, histogram(dt, small))
            m, _ = _roundtrip(dt, mixed, encoding="split4", log2=12, codebook=cb)
            assert m == 1, (dt.name, "fixed codebook")
            checks += 1
        for n in (0, 1, 2, 31, 63, 64, 65, 1023, 1025, 4097):
            for enc in encs:
                _roundtrip(dt, kv_like(dt, n, n + 17), encoding=enc, log2=10)
                checks += 1
    sec = pack_section("PL3", rest_fields(E5M2, np.array([0x3C, 0xBF, 0x01, 0x7E]))[0])
    assert sec == bytes([6] + [0] * 7 + [10] + [0] * 7 + [2] + [0] * 7), "§2.3's example"
    check_to_fp8()
    checks += check_bf16_vectors(vdir)
    print("dtype_ref: %d round trips and BF16 golden re-encodings agree with FORMAT.md" % checks)
    import pages_ref
    pages_ref.selftest(vdir)


def check_bf16_vectors(vdir):
    """Every valid BF16 golden vector, re-encoded from its header, gives the same bytes."""
    d = os.path.join(vdir, "valid")
    count = 0
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".sz"):
            continue
        buf = open(os.path.join(d, fn), "rb").read()
        raw = np.fromfile(os.path.join(d, fn[:-3] + ".bf16"), dtype="<u2")
        dt, v, hdrs = read_stream(buf)
        assert dt is BF16 and np.array_equal(v, raw), fn
        out, pos = [], 0
        for hd in hdrs:
            part = v[pos:pos + hd["n"]]
            pos += hd["n"]
            ck = bool(hd["flags"] & 1)
            if hd["mode"] == 1:
                out.append(encode(BF16, part, hd["log2"], ck, "split4", codebook=hd["codebook"]))
            elif hd["mode"] == 2:
                out.append(encode(BF16, part, hd["log2"], ck, "entropy", table=hd["table"]))
            else:
                out.append(bytes(stored_frame(BF16, part, hd["log2"], int(ck),
                                              content_checksum(BF16, part, hd["log2"])
                                              if ck else 0)))
        assert b"".join(out) == buf, fn + ": re-encoded frames differ"
        count += 1
    assert count >= 30, "too few BF16 vectors"
    return count


# ---- FP8 from wider values (for test data; doc/BENCHMARKS.md) --------------------------------

FP8_FORMATS = {2: (4, 3, 7, 448.0), 3: (5, 2, 15, 57344.0)}   # E4M3 (no Inf), E5M2


def to_fp8(x, dt, scale):
    """The FP8 patterns of float32 values x divided by the float32 scale: the quotient in
    float32, saturated at +-fmax, then rounded to nearest, ties to even (exact float64 steps)."""
    e, m, bias, fmax = FP8_FORMATS[dt.code]
    q = np.asarray(x, dtype=np.float32) / np.float32(scale)
    assert np.isfinite(q).all()
    a = np.abs(np.clip(q.astype(np.float64), -fmax, fmax))
    sign = np.signbit(q).astype(np.int64)
    _, ex = np.frexp(a)
    emin = 1 - bias
    sub = a < 2.0 ** emin
    step = np.where(sub, emin - m, ex - 1 - m).astype(np.float64)
    k = np.rint(np.ldexp(a, (-step).astype(np.int64))).astype(np.int64)
    code = np.where(sub, k, ((ex - 1 + bias).astype(np.int64) << m) + k - (1 << m))
    code = np.where(a == 0, 0, code)
    return ((sign << (e + m)) | code).astype(np.uint8)


def fp8_values(dt):
    """The value of each finite FP8 pattern (NaN for the others), from the definition."""
    e, m, bias, fmax = FP8_FORMATS[dt.code]
    out = np.empty(256)
    for p in range(256):
        s, x, f = p >> 7, (p >> m) & ((1 << e) - 1), p & ((1 << m) - 1)
        val = (f / 2.0 ** m) * 2.0 ** (1 - bias) if x == 0 else (1 + f / 2.0 ** m) * 2.0 ** (x - bias)
        out[p] = np.nan if val > fmax else (-val if s else val)
    return out


def check_to_fp8():
    """to_fp8 against the nearest FP8 value (ties to the even pattern), found by a search
    over the values of fp8_values, for every finite FP16 input."""
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    x = x[np.isfinite(x)]
    for dt in (E4M3, E5M2):
        vals = fp8_values(dt)[:128]
        pats = np.nonzero(~np.isnan(vals))[0]          # the finite non-negative patterns
        v = vals[pats]
        assert (np.diff(v) > 0).all()
        a = np.minimum(np.abs(x.astype(np.float64)), v[-1])
        k = np.clip(np.searchsorted(v, a), 1, len(v) - 1)
        lo, hi = v[k - 1], v[k]
        pick = np.where(a - lo < hi - a, k - 1, np.where(a - lo > hi - a, k,
                                                           np.where(pats[k - 1] % 2 == 0,
                                                                    k - 1, k)))
        pick = np.where(a <= v[0], 0, pick)
        want = pats[pick] | (np.signbit(x).astype(np.int64) << 7)
        assert np.array_equal(to_fp8(x, dt, 1.0), want.astype(np.uint8)), dt.name + ": to_fp8"


# ---- golden vectors (tests/vectors/dtypes) ---------------------------------------------------

def derived(bf16):
    """Test data of every dtype from BF16 KV values (integer steps and IEEE conversions only):
    FP32 = the BF16 pattern in the high half and random low bits; FP16 = the value rounded to
    FP16 with random low 3 mantissa bits (BF16 has 7, FP16 10); FP8 = FP16 to E4M3 / E5M2 at
    the scales amax/fmax and 1.0."""
    b = np.asarray(bf16, dtype=np.uint16)
    n = len(b)
    r = splitmix(2026, n)
    f32 = (b.astype(np.uint32) << np.uint32(16)) | (r & U64(0xFFFF)).astype(np.uint32)
    h = (b.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float16)
    f16 = (h.view(np.uint16) & np.uint16(0xFFF8)) | ((r >> U64(16)) & U64(7)).astype(np.uint16)
    x = f16.view(np.float16).astype(np.float32)
    amax = float(np.abs(x).max())
    out = {"f32": f32, "f16": f16}
    for dt in (E4M3, E5M2):
        out[dt.name] = to_fp8(x, dt, np.float32(amax) / np.float32(FP8_FORMATS[dt.code][3]))
        out[dt.name + "@1"] = to_fp8(x, dt, 1.0)
    return out


def reseal(f):
    f = bytearray(f)
    struct.pack_into("<I", f, 60, header_checksum(f))
    return f


def with_byte(f, off, val, seal=True):
    f = bytearray(f)
    f[off] = val
    return reseal(f) if seal else f


def with_xor(f, off, mask, seal=False):
    f = bytearray(f)
    f[off] ^= mask
    return reseal(f) if seal else f


def _patterns(dt):
    return np.arange(256, dtype=np.uint8) if dt.width == 1 else (
        np.arange(1 << 16, dtype=np.int64).astype(np.uint16))


def valid_vectors(data):
    """(name, dtype, elements, frame bytes) of every valid vector."""
    out = []

    def add(name, dt, v, f):
        out.append((name, dt, np.asarray(v, dtype=dt.np), bytes(f)))

    for dt in (E4M3, E5M2, FP16, FP32):
        kv = data[dt.name]
        nm = dt.name
        add(nm + "_empty", dt, kv[:0], encode(dt, kv[:0], 12, True, "entropy"))
        add(nm + "_entropy_one_element_stored", dt, kv[:1],
            encode(dt, kv[:1], 12, True, "entropy"))
        add(nm + "_entropy_kv_3000_l10", dt, kv[:3000], encode(dt, kv[:3000], 10, True, "entropy"))
        big = kv[5000:5000 + 20001]
        add(nm + "_entropy_kv_two_chunks_l14", dt, big, encode(dt, big, 14, True, "entropy"))
        add(nm + "_auto_kv_entropy", dt, kv[:2500], encode(dt, kv[:2500], 12, False, "auto"))
        if dt.width == 1:
            v = data[nm + "@1"][:3000]
            add(nm + "_entropy_scale_1", dt, v, encode(dt, v, 10, True, "entropy"))
        # one exponent only: a 1-bit code and a 1-bit ESC
        one = join(dt, np.full(700, (1 << dt.ebits) // 2 - 1), [
            f & {"SM": 0xFF, "LO8": 0xFF, "LO16": 0xFFFF, "NIB": 15, "PL3": 7}[k]
            for k, f in zip(dt.rest, [np.arange(700) * 37 + i for i in range(len(dt.rest))])])
        add(nm + "_entropy_one_exponent", dt, one, encode(dt, one, 10, True, "entropy"))
        # a fixed table that lacks the exponents at both ends: escapes, and phase B reads
        tab = table_of_histogram(dt, histogram(dt, kv[100000:104000]))
        outside = _spread([e for e in range(1 << dt.ebits) if not tab[e]])
        assert len(outside) >= 2, dt.name
        ext = join(dt, np.array(outside * 4), [f[:4 * len(outside)] for f in
                                              rest_fields(dt, kv[:4 * len(outside)])])
        mix = _mix(ext, kv[9000:11000], 21)
        add(nm + "_entropy_fixed_table_escapes", dt, mix,
            encode(dt, mix, 10, True, "entropy", table=tab))
        # every bit pattern (FP32: the specials) among KV-like data, and alone (stored)
        every = _patterns(dt) if dt.width < 4 else fp32_specials()
        if dt.width == 1:
            mix = _mix(every, kv[20000:24000], 5)
            add(nm + "_entropy_all_patterns", dt, mix, encode(dt, mix, 11, True, "entropy"))
        if dt is FP32:
            mix = _mix(every, kv[20000:22000], 5)
            add(nm + "_entropy_specials", dt, mix, encode(dt, mix, 10, True, "entropy"))
            add(nm + "_split4_specials", dt, mix, encode(dt, mix, 10, True, "split4"))
        add(nm + ("_auto_all_patterns_stored" if dt.width < 4 else "_auto_specials_stored"), dt,
            every, encode(dt, every, 16, True, "auto"))
        rnd = splitmix(5, 1000).astype(dt.np)
        add(nm + "_entropy_random_stored", dt, rnd, encode(dt, rnd, 12, True, "entropy"))
        if dt.split4:
            v = kv[:3001]
            add(nm + "_split4_kv_3001_l10", dt, v, encode(dt, v, 10, True, "split4"))
            cb = codebook_of_histogram(dt, histogram(dt, kv[100000:104000]))
            outside = _spread([e for e in range(1 << dt.ebits) if e not in cb])
            ext = join(dt, np.array(outside * 2), [f[:2 * len(outside)] for f in
                                                  rest_fields(dt, kv[:2 * len(outside)])])
            mix = _mix(ext, kv[30000:33000], 22)
            add(nm + "_split4_fixed_codebook_escapes", dt, mix,
                encode(dt, mix, 10, True, "split4", codebook=cb))
            add(nm + "_auto_split4_window", dt, _window(dt),
                encode(dt, _window(dt), 12, True, "auto"))
            a = encode(dt, kv[:1500], 10, True, "split4")
            b = encode(dt, kv[1500:4000], 10, True, "entropy")
            add(nm + "_stream_split4_entropy", dt, kv[:4000], a + b)
    return out


def _spread(xs, k=12):
    """At most k of the exponents xs, both ends included."""
    if len(xs) <= k:
        return xs
    return [xs[(i * (len(xs) - 1)) // (k - 1)] for i in range(k)]


def _window(dt):
    """16 exponents, uniformly: split4 beats entropy (auto picks split4)."""
    n = 4096
    base = {5: 8, 8: 116}[dt.ebits]
    x = base + (np.arange(n) * 7) % 16
    r = splitmix(8, n).astype(np.int64)
    fields = [r & m for m in
              {"SM": [0xFF], "PL3": [7], "LO8": [0xFF], "LO16": [0xFFFF]}[dt.rest[0]]]
    if len(dt.rest) > 1:
        fields.append((r >> 16) & {"LO8": 0xFF, "LO16": 0xFFFF}[dt.rest[1]])
    return join(dt, x, fields)


def invalid_vectors(data, valid):
    """(name, status, bytes): valid frames with one rule broken each."""
    byname = {name: (dt, v, f) for name, dt, v, f in valid}
    out = []

    def add(name, status, f):
        out.append((name, status, bytes(f)))

    CS, UF = "ERROR_CORRUPT_STREAM", "ERROR_UNSUPPORTED_FORMAT"
    e4 = byname["e4m3_entropy_kv_3000_l10"][2]
    e5 = byname["e5m2_split4_kv_3001_l10"][2]
    e5e = byname["e5m2_entropy_kv_3000_l10"][2]
    h6 = byname["f16_entropy_kv_3000_l10"][2]
    h6s = byname["f16_split4_kv_3001_l10"][2]
    f3 = byname["f32_entropy_kv_3000_l10"][2]
    f3s = byname["f32_split4_kv_3001_l10"][2]
    # ---- §3.2 step 4: dtypes and modes
    add("dtype_6", UF, with_byte(e4, 5, 6))
    add("dtype_255", UF, with_byte(e4, 5, 255))
    add("e4m3_mode_1", UF, with_byte(e4, 6, 1))
    add("e4m3_mode_3", UF, with_byte(e4, 6, 3))
    add("e5m2_mode_3", UF, with_byte(e5, 6, 3))
    # ---- §3.2 steps 10-11: a frame of one dtype relabelled as another
    add("f16_split4_as_e5m2", CS, with_byte(h6s, 5, E5M2.code))
    add("f32_entropy_as_bf16", CS, with_byte(f3, 5, BF16.code))
    add("e5m2_split4_as_f16", CS, with_byte(e5, 5, FP16.code))
    add("f16_entropy_as_e4m3", CS, with_byte(h6, 5, E4M3.code))
    # ---- §3.2 step 10: exponent ranges of the dtype
    add("e5m2_codebook_entry_32", CS, with_byte(e5, 24 + 15, 32))
    add("f16_codebook_entry_255", CS, with_byte(h6s, 24 + 15, 255))
    add("e5m2_entropy_table_last_32", CS, with_byte(e5e, 29, 32))
    add("e4m3_entropy_table_last_16", CS, with_byte(e4, 29, 16))
    add("e4m3_stored_escape_count_1", CS, _stored_escape(byname["e4m3_entropy_random_stored"][2]))
    add("f32_split4_not_smaller_than_stored", CS, _split4_not_smaller(FP32))
    add("e5m2_split4_not_smaller_than_stored", CS, _split4_not_smaller(E5M2))
    # ---- §3.2 step 11 / §3.3 step 12
    add("f32_stored_frame_size_of_2_bytes", CS,
        _stored_size_of(byname["f32_entropy_random_stored"][2], 2))
    add("e4m3_stored_frame_size_of_2_bytes", CS,
        _stored_size_of(byname["e4m3_entropy_random_stored"][2], 2))
    add("f32_truncated_last_byte", "ERROR_TRUNCATED", f3[:-1])
    add("e5m2_truncated_body", "ERROR_TRUNCATED", e5e[:200])
    # ---- §2.3 and §4: padding of the rest sections
    add("e4m3_pad_rest_nibble", CS, _odd_pad(E4M3, data))
    add("e5m2_pad_plane_bit", CS, _plane_pad(E5M2, data))
    add("f16_pad_plane_bit_sign", CS, _plane_pad(FP16, data, plane=2))
    add("f16_pad_between_planes_and_low_bytes", CS, _gap(h6, FP16, 0))
    add("f32_pad_between_sm_and_low_halves", CS, _gap(f3, FP32, 0))
    add("f32_split4_pad_after_low_halves", CS, _gap(f3s, FP32, 1, split4=True))
    add("e4m3_stored_pad", CS, _stored_pad(E4M3, data))
    # ---- §4.2.7: split4 escapes of a narrow dtype
    add("e5m2_escape_exponent_32", CS,
        _escape_exponent(byname["e5m2_split4_fixed_codebook_escapes"][2], 32))
    add("f16_escape_exponent_in_codebook", CS,
        _escape_exponent(byname["f16_split4_fixed_codebook_escapes"][2], None))
    # ---- §4.3.6: entropy rules with narrow escapes
    add("e5m2_entropy_escape_of_coded_exponent", CS, _forced_escape(E5M2, data))
    add("e4m3_entropy_escape_of_coded_exponent", CS, _forced_escape(E4M3, data))
    add("f16_entropy_escape_count_plus_1", CS,
        _escape_count(byname["f16_entropy_fixed_table_escapes"][2], +1))
    add("e4m3_entropy_code_incomplete", CS, _incomplete(e4))
    # ---- §7.2: the content checksum covers the rest sections
    add("f32_checksum_low_half_flipped", "ERROR_CONTENT_CHECKSUM", _flip_rest(f3, FP32, 1))
    add("f16_checksum_plane_bit_flipped", "ERROR_CONTENT_CHECKSUM", _flip_rest(h6, FP16, 0))
    add("f16_checksum_low_byte_flipped", "ERROR_CONTENT_CHECKSUM", _flip_rest(h6, FP16, 1))
    add("e4m3_checksum_rest_nibble_flipped", "ERROR_CONTENT_CHECKSUM", _flip_rest(e4, E4M3, 0))
    add("e5m2_split4_checksum_plane_bit_flipped", "ERROR_CONTENT_CHECKSUM",
        _flip_rest(e5, E5M2, 0, split4=True))
    # ---- §8.2: streams
    s = byname["f16_stream_split4_entropy"][2]
    bf = encode(BF16, np.arange(100, 400, dtype=np.uint16) | 0x3C00, 10, True, "split4")
    add("f16_stream_then_bf16_frame", CS, s + bf)
    add("e4m3_stream_then_e5m2_frame", CS, e4 + byname["e5m2_entropy_kv_3000_l10"][2])
    return out


def _rest_offsets(f, dt, split4):
    hd = parse_header(f)
    n = hd["n"]
    if split4:
        return split4_layout(dt, n, hd["log2"], hd["esc"])[0], n
    words, first, last, _ = hd["fields"]
    return entropy_layout(dt, n, hd["log2"], words, first, last)[0], n


def _gap(f, dt, i, split4=False):
    """A nonzero byte right after rest section i (there must be one: the vectors' sizes are
    chosen so)."""
    offs, n = _rest_offsets(f, dt, split4)
    end = offs[i] + section_size(dt.rest[i], n)
    assert end % 16, "no padding after the section"
    return with_xor(f, end, 0x01)


def _flip_rest(f, dt, i, split4=False):
    offs, n = _rest_offsets(f, dt, split4)
    return with_xor(f, offs[i] + 5, 0x10)


def _stored_escape(f):
    f = bytearray(f)
    struct.pack_into("<I", f, 12, 1)
    return reseal(f)


def _stored_size_of(f, width):
    f = bytearray(f)
    n = struct.unpack_from("<Q", f, 16)[0]
    struct.pack_into("<Q", f, 40, 64 + align16(width * n))
    return reseal(f)


def _split4_not_smaller(dt):
    """A split4 frame written although it is not smaller than stored."""
    n = 8
    v = kv_like(dt, n, 3)
    cb = codebook_of_histogram(dt, histogram(dt, v))
    x = exponents(dt, v)
    e = int(np.sum(~np.isin(x, cb)))
    rest, table, pos, exps, size = split4_layout(dt, n, 10, e)
    assert size >= stored_size(dt, n)
    # the frame split4_frame would write without the mode rule
    f = bytearray(size)
    ck = content_checksum(dt, v, 10)
    f[:64] = frame_header(dt, 1, 10, 1, e, n, bytes(cb), size, ck)
    index = {q: k for k, q in enumerate(cb)}
    code = np.array([index.get(int(q), 0) for q in x])
    f[64:64 + ceil_div(n, 2)] = pack_section("NIB", code)
    put_rest(f, dt, v, rest)
    escs = [i for i in range(n) if int(x[i]) not in index]
    struct.pack_into("<I", f, table, len(escs))
    for r, i in enumerate(escs):
        struct.pack_into("<H", f, pos + 2 * r, i)
        f[exps + r] = int(x[i])
    return f


def _odd_pad(dt, data):
    v = data[dt.name][:3001]
    f = bytearray(encode(dt, v, 10, False, "entropy"))
    offs, n = _rest_offsets(f, dt, False)
    f[offs[0] + n // 2] |= 0x80
    return f


def _plane_pad(dt, data, plane=0):
    v = data[dt.name][:3001]                 # 3001 = 46 groups + 57: bits 57-63 are padding
    f = bytearray(encode(dt, v, 10, False, "entropy"))
    offs, n = _rest_offsets(f, dt, False)
    g = n // GROUP
    f[offs[0] + 24 * g + 8 * plane + 7] |= 0x80  # bit 63 of the plane: element 64g + 63
    return f


def _stored_pad(dt, data):
    v = data[dt.name][:3]
    f = bytearray(encode(dt, v, 10, True, "entropy"))
    assert f[6] == 0
    f[64 + 3] = 1
    return f


def _escape_exponent(f, value):
    """Escape record 0's exponent set to value (None: Codebook[0])."""
    hd = parse_header(f)
    dt = hd["dt"]
    _, _, _, exps, _ = split4_layout(dt, hd["n"], hd["log2"], hd["esc"])
    assert hd["esc"] > 0
    f = bytearray(f)
    f[exps] = hd["codebook"][0] if value is None else value
    return f


def _forced_escape(dt, data):
    v = data[dt.name][:3000]
    ln = table_of_histogram(dt, histogram(dt, v))
    ck = content_checksum(dt, v, 10)
    words = entropy_words(dt, v, 10, ln, force_esc=[77])
    return entropy_frame(dt, v, 10, 1, ck, ln, words=words)


def _escape_count(f, delta):
    f = bytearray(f)
    e = struct.unpack_from("<I", f, 12)[0]
    struct.pack_into("<I", f, 12, e + delta)
    return reseal(f)


def _incomplete(f):
    """The first code length made one longer: the code no longer fills the 11-bit space."""
    hd = parse_header(f)
    words, first, last, _ = hd["fields"]
    lo = entropy_layout(hd["dt"], hd["n"], hd["log2"], words, first, last)[1]
    f = bytearray(f)
    f[lo] += 1
    return f


def write_vectors(out_dir, data_path):
    bf16 = np.fromfile(data_path, dtype="<u2")
    data = derived(bf16)
    valid = valid_vectors(data)
    invalid = invalid_vectors(data, valid)
    vd, idir = os.path.join(out_dir, "valid"), os.path.join(out_dir, "invalid")
    os.makedirs(vd, exist_ok=True)
    os.makedirs(idir, exist_ok=True)
    for i, (name, dt, v, f) in enumerate(valid, 1):
        got_dt, got, _ = read_stream(f)
        assert got_dt is dt and np.array_equal(got, v), name
        base = os.path.join(vd, "%04d_%s" % (i, name))
        open(base + ".sz", "wb").write(f)
        open(base + dt.ext, "wb").write(v.astype("<u%d" % dt.width).tobytes())
    for i, (name, status, f) in enumerate(invalid, 1):
        try:
            read_stream(f)
            raise AssertionError(name + ": accepted")
        except Reject as r:
            assert r.status == status, "%s: %s, not %s" % (name, r, status)
        open(os.path.join(idir, "%04d_%s.%s.sz" % (i, name, status)), "wb").write(f)
    import pages_ref
    npv, npi = pages_ref.write_vectors(out_dir, data)
    return len(valid), len(invalid), npv, npi


def generate(out_dir, data_path):
    nv, ni, npv, npi = write_vectors(out_dir, data_path)
    print("dtype_ref: wrote %d valid and %d invalid vectors and %d valid and %d invalid page "
          "streams to %s" % (nv, ni, npv, npi, out_dir))


def check_vectors(vdir):
    """Regenerate tests/vectors/dtypes and require the checked-in bytes; decode each."""
    ref = os.path.join(vdir, "dtypes")
    data_path = os.path.join(vdir, "..", "..", "data", "kv", "aidreams260k__shakespeare.K.bf16")
    tmp = tempfile.mkdtemp(prefix="dtype_vectors_")
    try:
        counts = write_vectors(tmp, data_path)
        bad = 0
        for sub in ("valid", "invalid", os.path.join("pages", "valid"),
                    os.path.join("pages", "invalid")):
            new = sorted(os.listdir(os.path.join(tmp, sub)))
            old = sorted(os.listdir(os.path.join(ref, sub)))
            for fn in sorted(set(new) | set(old)):
                a = os.path.join(tmp, sub, fn)
                b = os.path.join(ref, sub, fn)
                if fn not in old or fn not in new or open(a, "rb").read() != open(b, "rb").read():
                    print("dtype_ref: %s/%s: %s" % (sub, fn, "differs" if fn in old and fn in new
                                                    else "only generated" if fn in new
                                                    else "only checked in"))
                    bad += 1
        if bad:
            print("dtype_ref: the vectors differ from tests/vectors/dtypes; if the format "
                  "changed on purpose: dtype_ref.py gen tests/vectors/dtypes DATA_BF16")
            return 1
        print("dtype_ref: %d valid and %d invalid dtype vectors and %d valid and %d invalid "
              "page streams (dtypes/pages) regenerated byte for byte" % counts)
        return 0
    finally:
        shutil.rmtree(tmp)


def crosscheck(vdir, count, seed):
    """This decoder against spec_reader.py (pure Python, written from the same text without
    numpy) on damaged dtype vectors: a flipped bit, a replaced byte, a cut, or a flipped header
    bit with the header checksum recomputed. Both must give the same status, and the same
    elements when they accept."""
    import random
    import spec_reader as S
    rng = random.Random(seed)
    files = []
    for sub in ("valid", "invalid"):
        d = os.path.join(vdir, "dtypes", sub)
        files += [os.path.join(d, f) for f in sorted(os.listdir(d))
                  if f.endswith(".sz") and os.path.getsize(os.path.join(d, f)) < 20000]
    blobs = {f: open(f, "rb").read() for f in files}
    statuses = {}
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
            b[rng.randrange(60)] ^= 1 << rng.randrange(8)
            b = reseal(b)
        b = bytes(b)
        try:
            mine, st = read_stream(b)[1], "OK"
        except Reject as r:
            mine, st = None, r.status
        try:
            theirs, st2 = S.read_stream(b)[0], "OK"
        except S.Reject as r:
            theirs, st2 = None, r.status
        if st != st2 or (st == "OK" and [int(x) for x in mine] != theirs):
            print("dtype_ref: %s, mutation %d (kind %d): dtype_ref %s, spec_reader %s" %
                  (os.path.basename(name), it, kind, st, st2))
            return 1
        statuses[st] = statuses.get(st, 0) + 1
    print("dtype_ref: %d damaged dtype vectors, the same status from dtype_ref and spec_reader "
          "(%s)" % (count, ", ".join("%s %d" % kv for kv in sorted(statuses.items()))))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "selftest":
        selftest(argv[2])
        return 0
    if len(argv) == 4 and argv[1] == "gen":
        generate(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return check_vectors(argv[2])
    if len(argv) == 5 and argv[1] == "crosscheck":
        return crosscheck(argv[2], int(argv[3]), int(argv[4]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv))
