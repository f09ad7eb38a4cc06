#!/usr/bin/env python3
"""spec_reader.py -- a second, independent reader of the golden vectors, written from
doc/FORMAT.md alone (no code shared with the C library).

    spec_reader.py VECTORS_DIR

Checks the test values of FORMAT.md Appendix B and the examples of §9 and Appendix C, then
runs a validating decoder written from §3-§9 over every vector:

- every valid vector must decode (stored, split4 and entropy frames, streams) to its .bf16
  file, and its codebook or entropy table, when taken from the input, must be the one §5.1 or
  §5.2 gives for the decoded content, with the mode rule of §6.3 (for "auto_" vectors, the
  smallest of the three modes);
- every invalid vector NAME.STATUS.sz must be rejected with exactly STATUS, found by the order
  of checks of §3.2, §3.3, §4 and §8.2.

Then the page streams of §12 (VECTORS_DIR/pages), with a reader written from §12.5-§12.6 and
an encoder written from §6 and §12.4:

- Appendix D: its hexdump (read from doc/FORMAT.md next to the vectors) must be the bytes of
  pages/valid/0001_tiny.szpg, the pages must be the data it describes, and every value it
  states (header fields, checksums, histogram, raw bits, offsets, the frame) must hold;
- every valid stream must decode into pages of the sizes its page table gives, all written,
  whose concatenation is its .bf16 file; rebuilt from those pages by §12.4 (the table from
  the histogram of all pages or, with Fixed_Table_Flag, the frames' own, with the header's
  Encoding, Chunk_Log2, Checksum_Flag and Table_Id) it must give the same bytes;
- every invalid stream NAME.STATUS.szpg must be rejected with exactly STATUS.

Then the frames of the other dtypes (FORMAT.md 1.3, §2.2-§2.4: FP8 E4M3, FP8 E5M2, FP16,
FP32) in VECTORS_DIR/dtypes, read the same way: every valid one must decode to its .e4m3,
.e5m2, .f16 or .f32 file (and follow §5.1, §5.2 and §6.3 when its table is from its input),
every invalid one must be rejected with its status; and the example of §2.3.

Exits nonzero on the first disagreement, so the spec text and the vectors cannot drift apart
unnoticed.
"""
import os
import struct
import sys

M64 = (1 << 64) - 1
P1, P2, P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
P4, P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
MAGIC = b"\x53\x50\x5a\xbf"
ESC = 256      # §4.3: the escape symbol
LMAX = 11      # §5.2: the longest code
LANES = 32     # §4.3.5


class Dt:
    """A row of FORMAT.md §2.2: Dtype, name, width w, exponent bits e, rest sections, split4."""

    def __init__(self, code, name, w, e, rest, split4):
        self.code, self.name, self.w, self.e, self.rest, self.split4 = code, name, w, e, rest, split4


DTYPES = {1: Dt(1, "bf16", 2, 8, ("SM",), True), 2: Dt(2, "e4m3", 1, 4, ("NIB",), False),
          3: Dt(3, "e5m2", 1, 5, ("PL3",), True), 4: Dt(4, "f16", 2, 5, ("PL3", "LO8"), True),
          5: Dt(5, "f32", 4, 8, ("SM", "LO16"), True)}
BF16 = DTYPES[1]
EXT = {".bf16": 1, ".e4m3": 2, ".e5m2": 3, ".f16": 4, ".f32": 5}
# The dtypes this reader implements (§1.1: a decoder may implement some only, and reports the
# others as ERROR_UNSUPPORTED_FORMAT); spec_mutations.py narrows it to the library's.
KNOWN = set(DTYPES)


class Reject(Exception):
    """The decoder's verdict: a status name of §1.2."""

    def __init__(self, status, why):
        super().__init__(f"{status}: {why}")
        self.status = status


def corrupt(cond, why):
    if not cond:
        raise Reject("ERROR_CORRUPT_STREAM", why)


def rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def fmix64(x):
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & M64
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & M64
    x ^= x >> 33
    return x


def chunk_digest(b):
    """FORMAT.md §7.1"""
    acc = [((l + 1) * P5) & M64 for l in range(32)]
    for j in range((len(b) + 7) // 8):
        w = int.from_bytes(b[8 * j:8 * j + 8].ljust(8, b"\0"), "little")
        acc[j % 32] = (rotl64((acc[j % 32] + w * P2) & M64, 31) * P1) & M64
    s = sum(fmix64(acc[l] ^ ((l * P4) & M64)) for l in range(32)) & M64
    return fmix64((s + len(b) * P3) & M64)


def content_checksum(data, n, log2, w=2):
    """FORMAT.md §7.2; data is the little-endian element bytes, w bytes per element."""
    total = 0
    for c in range((n + (1 << log2) - 1) >> log2):
        lo, hi = c << log2, min((c + 1) << log2, n)
        total = (total + fmix64((chunk_digest(data[w * lo:w * hi]) + c * P2) & M64)) & M64
    return fmix64(total ^ ((n * P4) & M64))


def align16(x):
    return (x + 15) & ~15


def stored_size(n, dt=BF16):
    return 64 + align16(dt.w * n)


def join(x, s):
    """§2"""
    return ((s & 0x80) << 8) | (x << 7) | (s & 0x7F)


def exponent(v):
    return (v >> 7) & 0xFF


def signman(v):
    return ((v >> 8) & 0x80) | (v & 0x7F)


# ---- §2.2-§2.3: the other dtypes ------------------------------------------------------------

def dt_exponent(dt, v):
    """§2.2"""
    return {1: (v >> 7) & 0xFF, 2: (v >> 3) & 0xF, 3: (v >> 2) & 0x1F, 4: (v >> 10) & 0x1F,
            5: (v >> 23) & 0xFF}[dt.code]


def pl3(v):
    return ((v >> 5) & 0x4) | (v & 0x3)


def dt_rest(dt, v):
    """§2.2: the rest fields of element v, one per rest section, in frame order."""
    if dt.code == 1:
        return [signman(v)]
    if dt.code == 2:
        return [((v >> 4) & 0x8) | (v & 0x7)]
    if dt.code == 3:
        return [pl3(v)]
    if dt.code == 4:
        return [pl3(v >> 8), v & 0xFF]
    return [signman(v >> 16), v & 0xFFFF]


def dt_join(dt, x, r):
    """§2.2: the element of exponent x and rest fields r."""
    if dt.code == 1:
        return join(x, r[0])
    if dt.code == 2:
        return ((r[0] & 0x8) << 4) | (x << 3) | (r[0] & 0x7)
    e5 = ((r[0] & 0x4) << 5) | (x << 2) | (r[0] & 0x3)
    if dt.code == 3:
        return e5
    if dt.code == 4:
        return (e5 << 8) | r[1]
    return (join(x, r[0]) << 16) | r[1]


def rest_size(kind, n):
    """§2.3"""
    return {"SM": n, "LO8": n, "LO16": 2 * n, "NIB": (n + 1) // 2,
            "PL3": 24 * ((n + 63) // 64)}[kind]


def rest_offsets(dt, n, start):
    """§4.2 / §4.3.2: each rest section at the next multiple of 16 from start; and the end."""
    offs, o = [], start
    for kind in dt.rest:
        o = align16(o)
        offs.append(o)
        o += rest_size(kind, n)
    return offs, o


def rest_read(kind, b, i):
    """§2.3: the field of element i in rest section b."""
    if kind in ("SM", "LO8"):
        return b[i]
    if kind == "LO16":
        return b[2 * i] | (b[2 * i + 1] << 8)
    if kind == "NIB":
        return (b[i // 2] >> (4 * (i % 2))) & 0xF
    g, j = divmod(i, 64)
    return sum(((b[24 * g + 8 * k + j // 8] >> (j % 8)) & 1) << k for k in range(3))


def rest_write(kind, b, i, x):
    if kind in ("SM", "LO8"):
        b[i] = x
    elif kind == "LO16":
        b[2 * i], b[2 * i + 1] = x & 0xFF, x >> 8
    elif kind == "NIB":
        b[i // 2] |= x << (4 * (i % 2))
    else:
        g, j = divmod(i, 64)
        for k in range(3):
            b[24 * g + 8 * k + j // 8] |= ((x >> k) & 1) << (j % 8)


def rest_pad_zero(kind, b, n):
    """§2.3: the pad nibble of NIB, the pad bits of PL3."""
    if kind == "NIB":
        return n % 2 == 0 or b[n // 2] >> 4 == 0
    if kind == "PL3":
        return all(rest_read(kind, b, i) == 0 for i in range(n, 64 * ((n + 63) // 64)))
    return True


def rest_fields(f, dt, n, offs):
    """The rest sections of a frame: a list of sections (bytes), checked for padding (rule 1)."""
    secs = []
    for kind, off in zip(dt.rest, offs):
        b = f[off:off + rest_size(kind, n)]
        corrupt(rest_pad_zero(kind, b, n), "a pad nibble or pad bit of a rest section")
        secs.append(b)
    return secs


def rest_gaps(dt, n, offs, nxt):
    """The padding from the end of each rest section to the next section."""
    ends = [o + rest_size(k, n) for k, o in zip(dt.rest, offs)]
    return list(zip(ends, offs[1:] + [nxt]))


def pack_elems(dt, elems):
    return struct.pack("<%d%s" % (len(elems), {1: "B", 2: "H", 4: "I"}[dt.w]), *elems)


# ---- split4 (§4.2, §5.1) -------------------------------------------------------------------

def split4_layout(n, log2, e, dt=BF16):
    """FORMAT.md §4.2: (sm, table, positions, exponents, frame_size) offsets; sm is the first
    rest section's (§2.3)."""
    chunks = (n + (1 << log2) - 1) >> log2
    offs, end = rest_offsets(dt, n, 64 + (n + 1) // 2)
    table = align16(end)
    pos = align16(table + 4 * chunks)
    exps = align16(pos + 2 * e)
    return offs[0], table, pos, exps, align16(exps + e)


def canonical_codebook(elems):
    """FORMAT.md §5.1"""
    return codebook_of_histogram(histogram(elems))


def codebook_of_histogram(hist):
    """FORMAT.md §5.1 steps 2-4"""
    ranked = sorted(range(256), key=lambda e: (-hist[e], e))
    return sorted(ranked[:16])


def histogram(elems):
    hist = [0] * 256
    for v in elems:
        hist[exponent(v)] += 1
    return hist


# ---- entropy tables (§5.2-§5.4) -------------------------------------------------------------

def table_of_histogram(hist):
    """FORMAT.md §5.2: the 257 code lengths by package-merge, with its tie rules."""
    w = list(hist) + [1]
    leaves = sorted((s for s in range(257) if w[s]), key=lambda s: (w[s], s))
    m = len(leaves)
    assert m >= 2
    lists = []   # lists[k-1] = P_k as (weight, is_package) in order
    prev = None
    for k in range(1, LMAX + 1):
        items = [(w[s], False) for s in leaves]
        if prev is not None:
            pk = [(prev[2 * i][0] + prev[2 * i + 1][0], True) for i in range(len(prev) // 2)]
            merged, a, b = [], 0, 0
            while a < len(items) or b < len(pk):
                if b == len(pk) or (a < len(items) and items[a][0] <= pk[b][0]):
                    merged.append(items[a])  # a leaf first on equal weight
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
        sel = lists[k - 1][:t]
        p = sum(1 for item in sel if item[1])
        for s in leaves[:t - p]:
            length[s] += 1
        t = 2 * p
    return length


def canonical_codes(length):
    """FORMAT.md §5.3"""
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


def table_valid(length):
    """FORMAT.md §5.4"""
    if any(l > LMAX for l in length) or length[ESC] < 1:
        return False
    return sum(1 << (LMAX - l) for l in length if l) == 1 << LMAX


def reverse(x, m):
    return int(format(x, "0%db" % m)[::-1], 2) if m else 0


def lookup_table(length):
    """§4.3.5: the symbol whose code starts the next 11 bits, for each of the 2^11 values."""
    codes = canonical_codes(length)
    lut = [None] * (1 << LMAX)
    for s in range(257):
        if length[s]:
            r = reverse(codes[s], length[s])
            for x in range(r, 1 << LMAX, 1 << length[s]):
                assert lut[x] is None
                lut[x] = s
    assert None not in lut
    return lut


# ---- entropy frames (§4.3) ------------------------------------------------------------------

def entropy_layout(n, log2, words, first, last, dt=BF16):
    """FORMAT.md §4.3.2: (sm, lengths, chunk_table, stream, frame_size, K); sm is the first rest
    section's (§2.3)."""
    chunks = (n + (1 << log2) - 1) >> log2
    k = last - first + 1
    lengths = align16(rest_offsets(dt, n, 64)[1])
    ctab = align16(lengths + (k + 1) // 2)
    stream = align16(ctab + 4 * chunks)
    return 64, lengths, ctab, stream, align16(stream + 2 * words), k


def decode_chunk(words, sm, length, lut, trace=None, dt=BF16):
    """FORMAT.md §4.3.5 and rule 4 of §4.3.6: (elements, escapes) of one chunk. sm holds the
    rest fields of the chunk's elements (BF16: its sign/mantissa bytes; else lists, §2.3)."""
    n = len(sm)
    ebits = dt.e
    buf, bits, nxt = [0] * LANES, [0] * LANES, [0]
    out, n_esc = [0] * n, 0

    def read(l):
        corrupt(nxt[0] < len(words), "a lane reads past its chunk's words")
        buf[l] |= words[nxt[0]] << bits[l]
        bits[l] += 16
        nxt[0] += 1

    def take(l, k):
        v = buf[l] & ((1 << k) - 1)
        buf[l] >>= k
        bits[l] -= k
        return v

    for s0 in range(0, n, LANES):
        active = range(min(LANES, n - s0))
        before = nxt[0]
        for l in active:                      # A
            if bits[l] < LMAX:
                read(l)
        sym = {}
        for l in active:                      # D
            sym[l] = lut[buf[l] & ((1 << LMAX) - 1)]
            take(l, length[sym[l]])
        for l in active:                      # B
            if sym[l] == ESC and bits[l] < ebits:
                read(l)
        for l in active:                      # R
            x = sym[l]
            if x == ESC:
                x = take(l, ebits)
                corrupt(length[x] == 0, "an escape for an exponent that has a code")
                n_esc += 1
            r = sm[s0 + l]
            out[s0 + l] = join(x, r) if dt is BF16 else dt_join(dt, x, r)
        if trace is not None:
            trace.append(nxt[0] - before)
    corrupt(nxt[0] == len(words), "a word of the chunk is not read")
    corrupt(all(b == 0 for b in buf), "a nonzero bit after the end of a lane")
    return out, n_esc


def entropy_words(elems, log2, length, dt=BF16):
    """The Stream_Words an encoder gets (§4.3.5, §6.2): the reads of the decoder."""
    total = 0
    for c0 in range(0, len(elems), 1 << log2):
        chunk = elems[c0:c0 + (1 << log2)]
        bits = [0] * LANES
        for s0 in range(0, len(chunk), LANES):
            active = range(min(LANES, len(chunk) - s0))
            syms = [dt_exponent(dt, chunk[s0 + l]) if length[dt_exponent(dt, chunk[s0 + l])]
                    else ESC for l in active]
            for l in active:
                if bits[l] < LMAX:
                    bits[l] += 16
                    total += 1
                bits[l] -= length[syms[l]]
            for l in active:
                if syms[l] == ESC:
                    if bits[l] < dt.e:
                        bits[l] += 16
                        total += 1
                    bits[l] -= dt.e
    return total


def entropy_size(elems, log2, length, dt=BF16):
    coded = [e for e in range(256) if length[e]]
    return entropy_layout(len(elems), log2, entropy_words(elems, log2, length, dt),
                          coded[0], coded[-1], dt)[4]


def entropy_header(h, n, esc, dt=BF16):
    """§3.2 step 10 for mode 2 (§4.3.1); returns (words, first, last, escape_length)."""
    words, first, last, esc_len = struct.unpack_from("<IBBB", h, 24)
    corrupt(first <= last and last < 1 << dt.e and 1 <= esc_len <= LMAX,
            "table range or escape length")
    corrupt(not any(h[31:40]), "Reserved_2")
    corrupt(esc <= n, "escape count above the element count")
    return words, first, last, esc_len


def entropy_body(f, n, log2, esc, fields, dt=BF16):
    """§4.3.6 rules 1-5 on a frame whose header is valid; returns the elements."""
    words, first, last, esc_len = fields
    sm, lo, ctab, stream, size, k = entropy_layout(n, log2, words, first, last, dt)
    chunks = (n + (1 << log2) - 1) >> log2
    offs = rest_offsets(dt, n, 64)[0]
    for a, b in rest_gaps(dt, n, offs, lo) + [(lo + (k + 1) // 2, ctab),
                                               (ctab + 4 * chunks, stream),
                                               (stream + 2 * words, size)]:
        corrupt(not any(f[a:b]), "padding at %d" % a)
    secs = rest_fields(f, dt, n, offs)
    corrupt(k % 2 == 0 or f[lo + k // 2] >> 4 == 0, "the pad nibble")
    length = [0] * 257
    for i in range(k):
        length[first + i] = (f[lo + i // 2] >> (4 * (i % 2))) & 0xF
    length[ESC] = esc_len
    corrupt(all(length[first + i] <= LMAX for i in range(k)), "a code length above 11")
    corrupt(length[first] and length[last], "the table range is not exact")
    corrupt(table_valid(length), "an incomplete or oversubscribed code")
    t = [struct.unpack_from("<I", f, ctab + 4 * c)[0] for c in range(chunks)]
    corrupt(all(t[c - 1] <= t[c] for c in range(1, chunks)), "chunk table decreasing")
    corrupt(chunks == 0 or t[-1] == words, "chunk table does not end at Stream_Words")
    lut = lookup_table(length)
    elems, found = [], 0
    for c in range(chunks):
        w0 = t[c - 1] if c else 0
        ws = list(struct.unpack_from("<%dH" % (t[c] - w0), f, stream + 2 * w0))
        lo_i, hi_i = c << log2, min((c + 1) << log2, n)
        if dt is BF16:
            rest = f[sm + lo_i:sm + hi_i]
        else:
            rest = [[rest_read(kind, b, i) for kind, b in zip(dt.rest, secs)]
                    for i in range(lo_i, hi_i)]
        out, e = decode_chunk(ws, rest, length, lut, dt=dt)
        elems += out
        found += e
    corrupt(found == esc, "Escape_Count is not the number of escapes")
    return elems, length


# ---- frames and streams (§3, §8.2) ----------------------------------------------------------

def split4_body(f, n, log2, esc, cb, dt=BF16):
    """§4.2.7 on a frame whose header is valid; returns the elements."""
    sm, table, pos, exps, size = split4_layout(n, log2, esc, dt)
    chunks = (n + (1 << log2) - 1) >> log2
    offs = rest_offsets(dt, n, 64 + (n + 1) // 2)[0]
    for lo, hi in ([(64 + (n + 1) // 2, sm)] + rest_gaps(dt, n, offs, table) +
                   [(table + 4 * chunks, pos), (pos + 2 * esc, exps), (exps + esc, size)]):
        corrupt(not any(f[lo:hi]), "padding at %d" % lo)
    corrupt(n % 2 == 0 or f[64 + n // 2] >> 4 == 0, "odd padding nibble")
    secs = rest_fields(f, dt, n, offs)
    t, prev = [], 0
    for c in range(chunks):
        t.append(struct.unpack_from("<I", f, table + 4 * c)[0])
        length = min(1 << log2, n - (c << log2))
        corrupt(prev <= t[c] and t[c] - prev <= length, "chunk table")
        prev = t[c]
    corrupt(prev == esc, "last chunk table entry")
    elems, prev = [], 0
    for c in range(chunks):
        length = min(1 << log2, n - (c << log2))
        patch, last = {}, -1
        for r in range(prev, t[c]):
            p = struct.unpack_from("<H", f, pos + 2 * r)[0]
            x = f[exps + r]
            i = (c << log2) + p
            corrupt(last < p < length and x < 1 << dt.e and x not in cb, "escape record")
            corrupt((f[64 + i // 2] >> (4 * (i % 2))) & 15 == 0, "escape code")
            patch[p], last = x, p
        for p in range(length):
            i = (c << log2) + p
            code = (f[64 + i // 2] >> (4 * (i % 2))) & 15
            if dt is BF16:
                elems.append(join(patch.get(p, cb[code]), f[sm + i]))
            else:
                r = [rest_read(kind, b, i) for kind, b in zip(dt.rest, secs)]
                elems.append(dt_join(dt, patch.get(p, cb[code]), r))
        prev = t[c]
    return elems


def header(buf, first):
    """§3.2 steps 0-11 (with §8.2 for a later frame); returns the fields and the frame size."""
    bad_magic = "ERROR_BAD_MAGIC" if first else "ERROR_CORRUPT_STREAM"
    if len(buf) < 64:
        k = min(len(buf), 4)
        if buf[:k] != MAGIC[:k]:
            raise Reject(bad_magic, "not a frame")
        raise Reject("ERROR_TRUNCATED", "an incomplete header")
    h = buf[:64]
    if h[:4] != MAGIC:
        raise Reject(bad_magic, "magic")
    corrupt(h[4] != 0, "version 0")
    if h[4] > 1:
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "a later version")
    if struct.unpack_from("<I", h, 60)[0] != chunk_digest(h[:60]) & 0xFFFFFFFF:
        raise Reject("ERROR_HEADER_CHECKSUM", "header checksum")
    dtype, mode, log2, flags = h[5], h[6], h[7], h[8]
    if dtype not in DTYPES or dtype not in KNOWN or mode not in (0, 1, 2):
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "dtype or mode")
    dt = DTYPES[dtype]
    if mode == 1 and not dt.split4:
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "split4 for E4M3")
    esc, n = struct.unpack_from("<IQ", h, 12)
    fsize, cksum = struct.unpack_from("<QQ", h, 40)
    corrupt(flags & ~1 == 0, "flags")
    corrupt(h[9:12] == b"\0\0\0" and h[56:60] == b"\0\0\0\0", "reserved")
    corrupt(10 <= log2 <= 16, "Chunk_Log2")
    corrupt(n <= 0xFFFFFFFF, "Element_Count")
    corrupt(flags & 1 or cksum == 0, "checksum field without flag")
    cb, fields = list(h[24:40]), None
    if mode == 0:
        corrupt(esc == 0 and cb == [0] * 16, "stored header")
        size = stored_size(n, dt)
    elif mode == 1:
        corrupt(all(cb[k] < cb[k + 1] for k in range(15)), "codebook order")
        corrupt(cb[15] < 1 << dt.e, "a codebook entry that is no exponent of the dtype")
        corrupt(esc <= n, "escape count")
        size = split4_layout(n, log2, esc, dt)[4]
        corrupt(size < stored_size(n, dt), "split4 not smaller than stored")
    else:
        fields = entropy_header(h, n, esc, dt)
        size = entropy_layout(n, log2, fields[0], fields[1], fields[2], dt)[4]
        corrupt(size < stored_size(n, dt), "entropy not smaller than stored")
    corrupt(fsize == size, "Frame_Size")
    return {"mode": mode, "n": n, "log2": log2, "flags": flags, "esc": esc, "cksum": cksum,
            "codebook": cb, "fields": fields, "size": fsize, "dt": dt}


def read_frame(buf, first):
    """One frame (§3.2, §3.3): (elements, frame size, header dict with the table)."""
    hd = header(buf, first)
    if hd["size"] > len(buf):
        raise Reject("ERROR_TRUNCATED", "the frame ends after the input")
    f, n, log2, dt = buf[:hd["size"]], hd["n"], hd["log2"], hd["dt"]
    if hd["mode"] == 0:
        corrupt(not any(f[64 + dt.w * n:]), "stored padding")
        elems = list(struct.unpack_from("<%d%s" % (n, {1: "B", 2: "H", 4: "I"}[dt.w]), f, 64))
    elif hd["mode"] == 1:
        elems = split4_body(f, n, log2, hd["esc"], hd["codebook"], dt)
    else:
        elems, hd["table"] = entropy_body(f, n, log2, hd["esc"], hd["fields"], dt)
    if hd["flags"] & 1:
        if hd["cksum"] != content_checksum(pack_elems(dt, elems), n, log2, dt.w):
            raise Reject("ERROR_CONTENT_CHECKSUM", "content checksum")
    return elems, hd["size"], hd


def read_stream(buf):
    """§8.2: (elements, [header dicts])."""
    if not buf:
        raise Reject("ERROR_TRUNCATED", "zero bytes are not a stream")
    out, hdrs, off = [], [], 0
    while off < len(buf):
        if off and len(buf) - off >= 64:   # §8.2: a later frame's header, then its Dtype
            corrupt(header(buf[off:], False)["dt"] is hdrs[0]["dt"],
                    "a frame of another Dtype than the first")
        elems, size, hd = read_frame(buf[off:], off == 0)
        out += elems
        hd["elems"] = elems
        hdrs.append(hd)
        off += size
    return out, hdrs


# ---- the canonical frame of §6, with a fixed codebook or table (for §12.4) ------------------

def frame_header(mode, log2, flags, esc, n, middle, size, cksum):
    """§3: the 64 header bytes; 'middle' is bytes 24-39 (Codebook, or §4.3.1's fields)."""
    h = bytearray(64)
    h[0:8] = MAGIC + bytes([1, 1, mode, log2])
    h[8] = flags
    struct.pack_into("<IQ", h, 12, esc, n)
    h[24:40] = middle
    struct.pack_into("<QQ", h, 40, size, cksum)
    struct.pack_into("<I", h, 60, chunk_digest(bytes(h[:60])) & 0xFFFFFFFF)
    return h


def stored_frame(elems, log2, flags, cksum):
    """§4.1"""
    n = len(elems)
    f = bytearray(stored_size(n))
    f[:64] = frame_header(0, log2, flags, 0, n, bytes(16), len(f), cksum)
    f[64:64 + 2 * n] = struct.pack("<%dH" % n, *elems)
    return f


def split4_frame(elems, log2, flags, cksum, cb):
    """§4.2 with the codebook cb, or None when it is not smaller than stored (§6.3)."""
    n, code = len(elems), {e: k for k, e in enumerate(cb)}
    esc = [i for i, v in enumerate(elems) if exponent(v) not in code]
    sm, table, pos, exps, size = split4_layout(n, log2, len(esc))
    if size >= stored_size(n):
        return None
    f = bytearray(size)
    f[:64] = frame_header(1, log2, flags, len(esc), n, bytes(cb), size, cksum)
    for i, v in enumerate(elems):
        f[64 + i // 2] |= code.get(exponent(v), 0) << (4 * (i % 2))
        f[sm + i] = signman(v)
    for c in range((n + (1 << log2) - 1) >> log2):
        struct.pack_into("<I", f, table + 4 * c, sum(1 for i in esc if i >> log2 <= c))
    for r, i in enumerate(esc):
        struct.pack_into("<H", f, pos + 2 * r, i & ((1 << log2) - 1))
        f[exps + r] = exponent(elems[i])
    return f


def chunk_words(chunk, length, codes):
    """§4.3.5 seen from the encoder: the words of one chunk, in the order the decoder reads
    them, and its escape count."""
    seq, nbits, n_esc = [0] * LANES, [0] * LANES, 0
    syms = []
    for p, v in enumerate(chunk):
        l, e = p % LANES, exponent(v)
        s = e if length[e] else ESC
        bits = [(reverse(codes[s], length[s]), length[s])] + ([(e, 8)] if s == ESC else [])
        n_esc += s == ESC
        for value, k in bits:
            seq[l] |= value << nbits[l]
            nbits[l] += k
        syms.append(s)
    words, held, taken = [], [0] * LANES, [0] * LANES

    def read(l):
        words.append((seq[l] >> (16 * taken[l])) & 0xFFFF)
        taken[l] += 1
        held[l] += 16

    for s0 in range(0, len(chunk), LANES):
        active = range(min(LANES, len(chunk) - s0))
        for l in active:                      # A
            if held[l] < LMAX:
                read(l)
        for l in active:                      # D
            held[l] -= length[syms[s0 + l]]
        for l in active:                      # B
            if syms[s0 + l] == ESC and held[l] < 8:
                read(l)
        for l in active:                      # R
            if syms[s0 + l] == ESC:
                held[l] -= 8
    return words, n_esc


def entropy_frame(elems, log2, flags, cksum, length):
    """§4.3 with the table 'length' (257 lengths), or None when not smaller than stored."""
    n, codes = len(elems), canonical_codes(length)
    coded = [e for e in range(256) if length[e]]
    first, last = coded[0], coded[-1]
    words, t, esc = [], [], 0
    for c0 in range(0, n, 1 << log2):
        w, e = chunk_words(elems[c0:c0 + (1 << log2)], length, codes)
        words += w
        t.append(len(words))
        esc += e
    sm, lo, ctab, stream, size, k = entropy_layout(n, log2, len(words), first, last)
    if size >= stored_size(n):
        return None
    f = bytearray(size)
    middle = struct.pack("<IBBB", len(words), first, last, length[ESC]) + bytes(9)
    f[:64] = frame_header(2, log2, flags, esc, n, middle, size, cksum)
    f[sm:sm + n] = bytes(signman(v) for v in elems)
    for i in range(k):
        f[lo + i // 2] |= length[first + i] << (4 * (i % 2))
    struct.pack_into("<%dI" % len(t), f, ctab, *t)
    struct.pack_into("<%dH" % len(words), f, stream, *words)
    return f


def encode_frame(elems, log2, checksum, mode, table):
    """§6 with a fixed codebook (mode 1) or fixed table (mode 2): the canonical frame."""
    n = len(elems)
    flags = 1 if checksum else 0
    cksum = content_checksum(struct.pack("<%dH" % n, *elems), n, log2) if checksum else 0
    f = None
    if n and mode == 1:
        f = split4_frame(elems, log2, flags, cksum, table)
    elif n and mode == 2:
        f = entropy_frame(elems, log2, flags, cksum, table)
    return bytes(f if f is not None else stored_frame(elems, log2, flags, cksum))


# ---- page streams (§12) ---------------------------------------------------------------------

PG_MAGIC = b"\x53\x5a\x50\x47"
PG_FRAME = 1 << 24    # §12.1: elements per frame
RAW_BIT = 1 << 31     # §12.3


def align64(x):
    return (x + 63) & ~63


def pages_header(buf):
    """§12.5 steps 0-6: the header fields."""
    if len(buf) < 64:
        k = min(len(buf), 4)
        if buf[:k] != PG_MAGIC[:k]:
            raise Reject("ERROR_BAD_MAGIC", "not a page stream")
        raise Reject("ERROR_TRUNCATED", "an incomplete stream header")
    h = buf[:64]
    if h[:4] != PG_MAGIC:
        raise Reject("ERROR_BAD_MAGIC", "magic")
    corrupt(h[4] != 0, "Stream_Version 0")
    if h[4] != 2:
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "Stream_Version %d" % h[4])
    if struct.unpack_from("<I", h, 60)[0] != chunk_digest(h[:60]) & 0xFFFFFFFF:
        raise Reject("ERROR_HEADER_CHECKSUM", "stream header checksum")
    flags, enc, log2 = h[5], h[6], h[7]
    if enc not in (1, 2):
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "Encoding")
    count, tid, total, fsize, ssize, raw_ck, tab_ck = struct.unpack_from("<IIQQQQI", h, 8)
    corrupt(flags & ~3 == 0 and not any(h[52:60]), "a reserved flag bit or byte")
    corrupt(10 <= log2 <= 16, "Chunk_Log2")
    corrupt(tid == 0 or flags & 2, "Table_Id without Fixed_Table_Flag")
    corrupt(raw_ck == 0 or flags & 1, "Raw_Checksum without Checksum_Flag")
    foff = align64(64 + 4 * count)
    corrupt(fsize % 16 == 0, "Frames_Size not a multiple of 16")
    corrupt(ssize >= foff and fsize <= ssize - foff, "Frames_Size or Stream_Size")
    corrupt(total <= count * (2**31 - 1), "Total_Elems above Page_Count * (2^31 - 1)")
    return {"flags": flags, "enc": enc, "log2": log2, "count": count, "table_id": tid,
            "total": total, "fsize": fsize, "ssize": ssize, "raw_ck": raw_ck,
            "tab_ck": tab_ck, "foff": foff}


def frame_table(f, hd):
    """The table of a split4 or entropy frame, as §12.5 step 10d compares it."""
    if hd["mode"] == 1:
        return bytes(f[24:40])
    words, first, last, esc_len = hd["fields"]
    lo, k = entropy_layout(hd["n"], hd["log2"], words, first, last)[1::4]
    return bytes([first, last, esc_len]) + bytes(f[lo:lo + (k + 1) // 2])


def pages_structure(buf):
    """§12.5 steps 0-10: the header, the page table and the frame headers."""
    ph = pages_header(buf)
    if len(buf) < ph["ssize"]:
        raise Reject("ERROR_TRUNCATED", "the stream ends after the input")
    s = buf if len(buf) == ph["ssize"] else buf[:ph["ssize"]]
    count, foff, fsize = ph["count"], ph["foff"], ph["fsize"]
    if ph["tab_ck"] != chunk_digest(s[64:64 + 4 * count]) & 0xFFFFFFFF:
        raise Reject("ERROR_HEADER_CHECKSUM", "page table checksum")
    table = struct.unpack_from("<%dI" % count, s, 64)
    pages, pos = [], [0, 0]   # (elements, raw, position among the coded or raw elements)
    for e in table:
        n, raw = e & (RAW_BIT - 1), e >> 31
        pages.append((n, raw, pos[raw]))
        pos[raw] += n
    coded, rawn = pos
    corrupt(coded + rawn == ph["total"], "Total_Elems")
    n_frames = (coded + PG_FRAME - 1) // PG_FRAME
    corrupt((n_frames == 0) == (fsize == 0), "Frames_Size with no frames, or none with frames")
    roff = align64(foff + fsize) if rawn else foff + fsize
    corrupt(ph["ssize"] == roff + 2 * rawn, "Stream_Size")
    corrupt(not any(s[64 + 4 * count:foff]), "padding after the page table")
    corrupt(not any(s[foff + fsize:roff]), "padding after the frames")
    frames, off, end, first = [], foff, foff + fsize, None
    for j in range(n_frames):
        corrupt(end - off >= 64, "fewer than 64 bytes left for a frame")
        hd = header(s[off:off + 64], False)   # §3.2 steps 1-11: 64 bytes, r >= 64
        corrupt(hd["size"] <= end - off, "a frame ends after the frames section")
        corrupt(hd["n"] == min(PG_FRAME, coded - j * PG_FRAME), "a frame's Element_Count")
        corrupt(hd["log2"] == ph["log2"], "a frame's Chunk_Log2")
        corrupt(hd["flags"] & 1 == ph["flags"] & 1, "a frame's Content_Checksum_Flag")
        corrupt(hd["mode"] in (0, ph["enc"]), "a frame's Mode")
        if hd["mode"]:
            tab = frame_table(s[off:off + hd["size"]], hd)
            first = tab if first is None else first
            corrupt(tab == first, "a frame's table differs from the first one's")
        frames.append((off, hd))
        off += hd["size"]
    corrupt(off == end, "the frames do not fill the frames section")
    ph.update(pages=pages, frames=frames, coded=coded, rawn=rawn, roff=roff)
    return ph


UNTOUCHED, WRITTEN, DAMAGED = 0, 1, 2   # §12.6 (splitzip_page_state)


class PagesReject(Reject):
    """A rejected page stream, with what §12.6 says became of each destination page."""

    def __init__(self, r, states):
        super().__init__(r.status, str(r))
        self.states = states


def read_pages(buf, caps=None):
    """§12.5 and §12.6: (pages, states), the pages as lists of elements. caps are the bytes of
    the destination pages; None: the sizes the page table gives."""
    try:
        ph = pages_structure(buf)
    except Reject as r:
        raise PagesReject(r, [UNTOUCHED] * len(caps or []))
    pages = ph["pages"]
    caps = [2 * n for n, _, _ in pages] if caps is None else caps
    states = [UNTOUCHED] * len(caps)
    if len(pages) > len(caps):
        raise PagesReject(Reject("ERROR_DST_TOO_SMALL", "more pages than destinations"), states)
    for i, (n, _, _) in enumerate(pages):
        if 2 * n > caps[i]:
            raise PagesReject(Reject("ERROR_DST_TOO_SMALL", "page %d" % i), states)
    s = buf if len(buf) == ph["ssize"] else buf[:ph["ssize"]]
    out, coded = [None] * len(pages), []
    for i, (n, _, _) in enumerate(pages):
        if n == 0:
            states[i], out[i] = WRITTEN, []
    ph["decoded"] = []
    for j, (off, hd) in enumerate(ph["frames"]):
        try:
            elems, _, dh = read_frame(s[off:off + hd["size"]], False)
            coded += elems
            ph["decoded"].append(dh)
        except Reject as r:
            for i, (n, raw, p) in enumerate(pages):
                if n and not raw and p < len(coded) + hd["n"] and p + n > len(coded):
                    states[i] = DAMAGED
            raise PagesReject(r, states)
        for i, (n, raw, p) in enumerate(pages):
            if n and not raw and len(coded) - hd["n"] < p + n <= len(coded):
                states[i], out[i] = WRITTEN, coded[p:p + n]
    raw = s[ph["roff"]:ph["ssize"]]
    if ph["flags"] & 1 and ph["raw_ck"] != content_checksum(raw, ph["rawn"], ph["log2"]):
        raise PagesReject(Reject("ERROR_CONTENT_CHECKSUM", "Raw_Checksum"), states)
    for i, (n, r, p) in enumerate(pages):
        if n and r:
            states[i], out[i] = WRITTEN, list(struct.unpack_from("<%dH" % n, raw, 2 * p))
    return out, states, ph


def encode_pages_candidate(pages, mode, log2, checksum, fixed=None, table_id=0):
    """§12.4 steps 1-6: the candidate stream of one mode (1 split4, 2 entropy)."""
    every = [v for p in pages for v in p]
    hist = histogram(every)
    if fixed is not None:
        table = fixed
    elif mode == 1:
        table = codebook_of_histogram(hist)
    else:
        table = table_of_histogram(hist) if every else None
    raw = [raw_page(p, mode, table) for p in pages]
    coded = [v for p, r in zip(pages, raw) if not r for v in p]
    raw_elems = [v for p, r in zip(pages, raw) if r for v in p]
    frames = b"".join(encode_frame(coded[j:j + PG_FRAME], log2, checksum, mode, table)
                      for j in range(0, len(coded), PG_FRAME))
    count = len(pages)
    foff = align64(64 + 4 * count)
    roff = align64(foff + len(frames)) if raw_elems else foff + len(frames)
    s = bytearray(roff + 2 * len(raw_elems))
    ptab = struct.pack("<%dI" % count, *(len(p) | (RAW_BIT if r else 0)
                                         for p, r in zip(pages, raw)))
    s[64:64 + 4 * count] = ptab
    s[foff:foff + len(frames)] = frames
    s[roff:] = struct.pack("<%dH" % len(raw_elems), *raw_elems)
    raw_ck = content_checksum(bytes(s[roff:]), len(raw_elems), log2) if checksum else 0
    flags = (1 if checksum else 0) | (2 if fixed is not None else 0)
    s[0:8] = PG_MAGIC + bytes([2, flags, mode, log2])
    table_id = table_id if fixed is not None else 0
    struct.pack_into("<IIQQQQI", s, 8, count, table_id, len(every), len(frames), len(s),
                     raw_ck, chunk_digest(ptab) & 0xFFFFFFFF)
    struct.pack_into("<I", s, 60, chunk_digest(bytes(s[:60])) & 0xFFFFFFFF)
    return bytes(s)


def raw_page(page, mode, table):
    """§12.4 step 2: whether the page travels raw."""
    n, h = len(page), histogram(page)
    if mode == 1:
        return 6 * sum(h[e] for e in range(256) if e not in table) >= n
    if n == 0:
        return True
    cost = sum(h[e] * (table[e] if table[e] else table[ESC] + 8) for e in range(256) if h[e])
    return 8 * n + cost >= 16 * n


def encode_pages(pages, encoding, log2, checksum, fixed=(None, None), table_id=0):
    """§12.4: encoding 1 (split4), 2 (entropy) or 0 (auto: the smaller, split4 on a tie);
    fixed is the (codebook, table) given to the encoder, None for those taken from the pages."""
    if encoding:
        return encode_pages_candidate(pages, encoding, log2, checksum, fixed[encoding - 1],
                                      table_id)
    a = encode_pages_candidate(pages, 1, log2, checksum, fixed[0], table_id)
    b = encode_pages_candidate(pages, 2, log2, checksum, fixed[1], table_id)
    return a if len(a) <= len(b) else b


# ---- checks ---------------------------------------------------------------------------------

def fail(msg):
    print("spec_reader: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def check_canonical(name, hd):
    """§5.1, §5.2 and §6.3 for a frame encoded from its input (no "fixed" in the name)."""
    elems, n, log2 = hd["elems"], hd["n"], hd["log2"]
    cb = canonical_codebook(elems)
    s4 = split4_layout(n, log2, sum(1 for v in elems if exponent(v) not in cb))[4] if n else 0
    s4 = s4 if n and s4 < stored_size(n) else None
    if hd["mode"] == 1:
        check(hd["codebook"] == cb, name + ": codebook (§5.1)")
    if hd["mode"] == 2:
        check(hd["table"] == table_of_histogram(histogram(elems)), name + ": table (§5.2)")
    if name.split("_", 1)[1].startswith("auto_"):  # §6.3, auto: the smallest, ties simpler
        en = entropy_size(elems, log2, table_of_histogram(histogram(elems)))
        en = en if en < stored_size(n) else None
        sizes = [(stored_size(n), 0)] + ([(s4, 1)] if s4 else []) + ([(en, 2)] if en else [])
        check(min(sizes)[1] == hd["mode"], name + ": auto did not pick the smallest (§6.3)")
    elif hd["mode"] == 0 and "entropy" in name and n:
        en = entropy_size(elems, log2, table_of_histogram(histogram(elems)))
        check(en >= stored_size(n), name + ": stored although entropy is smaller (§6.3)")
    elif hd["mode"] == 0 and n:
        check(s4 is None, name + ": stored although split4 is smaller (§6.3)")


def check_examples():
    """FORMAT.md Appendix B, the table file of §9.2 and Appendix C."""
    check(chunk_digest(b"") == 0x31E6AF0DA18868F6, "Appendix B: H(empty)")
    check(chunk_digest(bytes(range(8))) == 0xC4C8BD83596CE0EE, "Appendix B: H(00..07)")
    check(chunk_digest(bytes(range(256))) == 0x1DD01D038BCD0858, "Appendix B: H(00..FF)")
    check(content_checksum(b"", 0, 12) == 0, "Appendix B: n = 0")
    check(content_checksum(b"\x80\x3f", 1, 12) == 0xA43B70CBE756EE87, "Appendix B: 1.0")
    seq = struct.pack("<3000H", *range(3000))
    check(content_checksum(seq, 3000, 10) == 0x153D314D841E3FC6, "Appendix B: 3000, L=10")
    check(content_checksum(seq, 3000, 12) == 0xE1C3B7E9C35895DC, "Appendix B: 3000, L=12")
    # §9.2: the table file of Appendix C's table.
    length = [0] * 257
    length[126], length[127], length[128], length[ESC] = 1, 2, 3, 3
    check(table_valid(length) and canonical_codes(length)[126:129] == [0, 2, 6] and
          canonical_codes(length)[ESC] == 7, "Appendix C: codes")
    body = bytearray(b"SZET" + bytes([1, 1, 11, 3]) + bytes(128))
    for e in range(256):
        body[8 + e // 2] |= length[e] << (4 * (e % 2))
    file = bytes(body) + struct.pack("<I", chunk_digest(bytes(body)) & 0xFFFFFFFF)
    check(file[71:73] == b"\x21\x03" and file[136:] == bytes.fromhex("48053e73"),
          "§9.2: the example table file")


def check_appendix_c(vdir):
    """Appendix C: the reads per step of its one chunk, and its header values."""
    with open(os.path.join(vdir, "0023_entropy_appendix_fixed_table.sz"), "rb") as fh:
        f = fh.read()
    check(len(f) == 368 and f[6] == 2 and struct.unpack_from("<I", f, 24)[0] == 56,
          "Appendix C: size, mode, Stream_Words")
    length = [0] * 257
    length[126], length[127], length[128], length[ESC] = 1, 2, 3, 3
    words = list(struct.unpack_from("<56H", f, 256))
    check(words[1] == 0x3807 and words[32] == 0x03F2, "Appendix C: words 1 and 32")
    trace = []
    decode_chunk(words, f[64:224], length, lookup_table(length), trace)
    check(trace == [32, 4, 8, 8, 4], "Appendix C: words per step %s" % trace)


def fixed_tables(ph):
    """The (codebook, table) a stream with Fixed_Table_Flag was encoded with: its frames'
    (§12.2: the frames carry the table)."""
    for dh in ph["decoded"]:
        if dh["mode"] == 1:
            return dh["codebook"], None
        if dh["mode"] == 2:
            return None, dh["table"]
    return None


def check_page_stream(name, buf, raw):
    """A valid page stream: its pages, and the stream rebuilt from them by §12.4."""
    try:
        out, states, ph = read_pages(buf)
    except Reject as r:
        fail("%s: rejected: %s" % (name, r))
    check(states == [WRITTEN] * len(out), name + ": a page not written")
    data = b"".join(struct.pack("<%dH" % len(p), *p) for p in out)
    check(data == raw, name + ": the concatenation of the pages")
    check(len(buf) == ph["ssize"], name + ": bytes after Stream_Size")
    fixed = (None, None)
    if ph["flags"] & 2:
        fixed = fixed_tables(ph)
        check(fixed is not None, name + ": Fixed_Table_Flag, but no frame carries the table")
    again = encode_pages(out, ph["enc"], ph["log2"], ph["flags"] & 1, fixed, ph["table_id"])
    check(again == buf, name + ": the stream rebuilt by §12.4 differs")
    if "auto" in name.split("_") and not ph["flags"] & 2:
        check(encode_pages(out, 0, ph["log2"], ph["flags"] & 1) == buf,
              name + ": auto did not write the smaller candidate (§12.4)")
    return ph


def appendix_d_pages():
    """The four pages of Appendix D, from its description."""
    def v(sign, e, man):
        return (sign << 15) | (e << 7) | man
    both = [v(i % 4 == 3, 116 + i % 16, i) for i in range(128)]
    odd = [v(k % 2, e, 0x55) for k, e in enumerate([0, 255, 1, 254, 60, 200, 90, 170])]
    return [both[:64], odd, [], both[64:]]


def appendix_hexdump(doc, title):
    """The bytes of the first xxd block after the heading 'title' in FORMAT.md."""
    text = doc[doc.index(title):]
    text = text[text.index("```") + 3:]
    text = text[:text.index("```")]
    out = bytearray()
    for line in text.strip().splitlines():
        off, rest = line.split(":", 1)
        check(int(off, 16) == len(out), "%s: hexdump offset %s" % (title, off))
        out += bytes.fromhex(rest[:41].replace(" ", ""))
    return bytes(out)


def check_appendix_d(pdir, doc):
    """Appendix D against tests/vectors/pages/valid/0001_tiny.szpg: the hexdump, the data it
    describes, and every value it states."""
    with open(os.path.join(pdir, "valid", "0001_tiny.szpg"), "rb") as fh:
        f = fh.read()
    if doc is not None:
        check(appendix_hexdump(doc, "Appendix D. Worked example") == f,
              "Appendix D: the hexdump is not the file")
    pages = appendix_d_pages()
    out, _, ph = read_pages(f)
    check(out == pages, "Appendix D: the pages are not the data it describes")
    u = struct.unpack_from
    check(len(f) == 464 and f[:8] == bytes.fromhex("535a50470201010a"), "Appendix D: 00-07")
    check(u("<IIQQQ", f, 8) == (4, 0, 136, 272, 464), "Appendix D: 08-27")
    raw_ck = content_checksum(struct.pack("<8H", *pages[1]), 8, 10)
    check(raw_ck == 0x52520D7C6FB2A22E == u("<Q", f, 40)[0], "Appendix D: Raw_Checksum")
    check(chunk_digest(f[0x40:0x50]) & 0xFFFFFFFF == 0x17B39BED == u("<I", f, 48)[0],
          "Appendix D: Table_Checksum")
    check(f[0x34:0x3C] == bytes(8) and u("<I", f, 60)[0] == 0x3CDE416A, "Appendix D: 34-3F")
    check(u("<4I", f, 64) == (0x40, 0x80000008, 0x80000000, 0x40), "Appendix D: page table")
    check((ph["coded"], ph["rawn"], len(ph["frames"]), ph["foff"]) == (128, 8, 1, 0x80),
          "Appendix D: Coded_Elems, Raw_Elems, Frame_Count, Frames_Offset")
    check(f[0x50:0x80] == bytes(0x30), "Appendix D: padding 50-7F")
    hist = histogram(pages[0] + pages[1] + pages[3])
    check(hist[116:132] == [8] * 16 and sum(hist) == 136 and
          sorted(e for e in range(256) if hist[e] == 1) == [0, 1, 60, 90, 170, 200, 254, 255],
          "Appendix D: the histogram")
    cb = codebook_of_histogram(hist)
    check(cb == list(range(116, 132)), "Appendix D: the codebook")
    check([raw_page(p, 1, cb) for p in pages] == [False, True, True, False],
          "Appendix D: the raw bits")
    off, hd = ph["frames"][0]
    frame = f[off:off + hd["size"]]
    check(off == 0x80 and hd["mode"] == 1 and hd["n"] == 128 and hd["log2"] == 10 and
          hd["codebook"] == cb and hd["size"] == 272 and hd["esc"] == 0 and
          hd["cksum"] == 0x2A9C852D508AE259, "Appendix D: the frame header")
    check(frame == encode_frame(pages[0] + pages[3], 10, True, 1, cb), "Appendix D: the frame")
    check(all(frame[0x40 + i // 2] >> (4 * (i % 2)) & 15 == i % 16 for i in range(128)) and
          frame[0x80:0x100] == bytes(signman(v) for v in pages[0] + pages[3]) and
          u("<I", frame, 0x100)[0] == 0 and not any(frame[0x104:]),
          "Appendix D: codes, sign/mantissa bytes, chunk table, padding")
    check(ph["roff"] == 0x1C0 and f[0x190:0x1C0] == bytes(0x30), "Appendix D: Raw_Offset")
    check(u("<8H", f, 0x1C0) == (0x0055, 0xFFD5, 0x00D5, 0xFF55, 0x1E55, 0xE455, 0x2D55, 0xD555),
          "Appendix D: the raw section")
    check(read_pages(f, [128, 16, 0, 128])[0] == pages, "Appendix D: decoding into its pages")


def check_pages(vdir):
    """The page streams of tests/vectors/pages (§12) and Appendix D."""
    pdir = os.path.join(vdir, "pages")
    doc_path = os.path.join(vdir, "..", "..", "doc", "FORMAT.md")
    doc = open(doc_path, encoding="utf-8").read() if os.path.exists(doc_path) else None
    check_appendix_d(pdir, doc)
    d = os.path.join(pdir, "valid")
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".szpg"))
    check(len(names) > 0, "no valid page streams")
    seen = set()
    for name in names:
        with open(os.path.join(d, name + ".szpg"), "rb") as fh:
            buf = fh.read()
        with open(os.path.join(d, name + ".bf16"), "rb") as fh:
            raw = fh.read()
        ph = check_page_stream(name, buf, raw)
        seen.add(ph["enc"])
        seen.update("mode%d" % dh["mode"] for dh in ph["decoded"])
    check(seen >= {1, 2, "mode1", "mode2"}, "valid page streams of both encodings")
    d = os.path.join(pdir, "invalid")
    bad = sorted(f for f in os.listdir(d) if f.endswith(".szpg"))
    for fname in bad:
        want = fname[:-5].rsplit(".", 1)[1]
        with open(os.path.join(d, fname), "rb") as fh:
            buf = fh.read()
        try:
            read_pages(buf)
            fail("%s: accepted" % fname)
        except Reject as r:
            check(r.status == want, "%s: %s" % (fname, r))
    return len(names), len(bad), doc is not None


def dt_histogram(dt, elems):
    hist = [0] * 256
    for v in elems:
        hist[dt_exponent(dt, v)] += 1
    return hist


def dt_split4_size(dt, elems, log2, cb):
    """§4.2 size with codebook cb, or None when not smaller than stored (§6.3)."""
    n = len(elems)
    e = sum(1 for v in elems if dt_exponent(dt, v) not in cb)
    size = split4_layout(n, log2, e, dt)[4]
    return size if n and size < stored_size(n, dt) else None


def dt_entropy_size(dt, elems, log2):
    n = len(elems)
    if not n:
        return None
    size = entropy_size(elems, log2, table_of_histogram(dt_histogram(dt, elems)), dt)
    return size if size < stored_size(n, dt) else None


def check_dtype_canonical(name, hd):
    """§5.1, §5.2 (over the dtype's 2^e exponents) and §6.3 for a frame from its input."""
    dt, elems, n, log2 = hd["dt"], hd["elems"], hd["n"], hd["log2"]
    hist = dt_histogram(dt, elems)
    cb = sorted(sorted(range(1 << dt.e), key=lambda x: (-hist[x], x))[:16])
    if hd["mode"] == 1:
        check(hd["codebook"] == cb, name + ": codebook (§5.1)")
    if hd["mode"] == 2:
        check(hd["table"] == table_of_histogram(hist), name + ": table (§5.2)")
    s4 = dt_split4_size(dt, elems, log2, cb) if dt.split4 else None
    en = dt_entropy_size(dt, elems, log2)
    kind = name.split("_", 2)[2]
    if kind.startswith("auto_"):
        sizes = [(stored_size(n, dt), 0)] + ([(s4, 1)] if s4 else []) + ([(en, 2)] if en else [])
        check(min(sizes)[1] == hd["mode"], name + ": auto did not pick the smallest (§6.3)")
    elif hd["mode"] == 0 and n and ("entropy" in kind or not dt.split4):
        check(en is None, name + ": stored although entropy is smaller (§6.3)")
    elif hd["mode"] == 0 and n and "split4" in kind:
        check(s4 is None, name + ": stored although split4 is smaller (§6.3)")


def check_dtypes(vdir):
    """The frames of the other dtypes (tests/vectors/dtypes) and the example of §2.3."""
    sec = bytearray(24)
    for i, v in enumerate([0x3C, 0xBF, 0x01, 0x7E]):
        rest_write("PL3", sec, i, pl3(v))
    check(sec[0] == 0x06 and sec[8] == 0x0A and sec[16] == 0x02 and
          sum(sec) == 0x06 + 0x0A + 0x02, "§2.3: the example of PL3")
    d = os.path.join(vdir, "dtypes", "valid")
    names = sorted(f[:-3] for f in os.listdir(d) if f.endswith(".sz"))
    check(len(names) > 0, "no valid dtype vectors")
    seen = set()
    for name in names:
        with open(os.path.join(d, name + ".sz"), "rb") as fh:
            buf = fh.read()
        ext = [x for x in EXT if os.path.exists(os.path.join(d, name + x))]
        check(len(ext) == 1, name + ": no content file")
        with open(os.path.join(d, name + ext[0]), "rb") as fh:
            raw = fh.read()
        try:
            out, hdrs = read_stream(buf)
        except Reject as r:
            fail("%s: rejected: %s" % (name, r))
        dt = DTYPES[EXT[ext[0]]]
        for hd in hdrs:
            check(hd["dt"] is dt, name + ": the frame's Dtype is not the file's")
            seen.add((dt.code, hd["mode"]))
            if "fixed" not in name:
                check_dtype_canonical(name, hd)
        check(pack_elems(dt, out) == raw, name + ": decoded content")
    want = {(c, m) for c in (2, 3, 4, 5) for m in (0, 1, 2) if m != 1 or c != 2}
    check(seen >= want, "valid dtype vectors of every dtype and mode: %s" % sorted(want - seen))
    idir = os.path.join(vdir, "dtypes", "invalid")
    bad = sorted(f for f in os.listdir(idir) if f.endswith(".sz"))
    for fname in bad:
        want_st = fname[:-3].rsplit(".", 1)[1]
        with open(os.path.join(idir, fname), "rb") as fh:
            buf = fh.read()
        try:
            read_stream(buf)
            fail("%s: accepted" % fname)
        except Reject as r:
            check(r.status == want_st, "%s: %s" % (fname, r))
    return len(names), len(bad)


def main():
    if len(sys.argv) != 2:
        print("usage: spec_reader.py VECTORS_DIR")
        return 2
    check_examples()
    vdir = os.path.join(sys.argv[1], "valid")
    check_appendix_c(vdir)
    names = sorted(f[:-3] for f in os.listdir(vdir) if f.endswith(".sz"))
    check(len(names) > 0, "no valid vectors")
    modes = set()
    for name in names:
        with open(os.path.join(vdir, name + ".sz"), "rb") as fh:
            buf = fh.read()
        with open(os.path.join(vdir, name + ".bf16"), "rb") as fh:
            raw = fh.read()
        try:
            out, hdrs = read_stream(buf)
        except Reject as r:
            fail("%s: rejected: %s" % (name, r))
        for hd in hdrs:
            modes.add(hd["mode"])
            if "fixed" not in name:
                check_canonical(name, hd)
        check(struct.pack("<%dH" % len(out), *out) == raw, name + ": decoded content")
    check(modes == {0, 1, 2}, "valid vectors of every mode")
    idir = os.path.join(sys.argv[1], "invalid")
    bad = sorted(f for f in os.listdir(idir) if f.endswith(".sz"))
    for fname in bad:
        want = fname[:-3].rsplit(".", 1)[1]
        with open(os.path.join(idir, fname), "rb") as fh:
            buf = fh.read()
        try:
            read_stream(buf)
            fail("%s: accepted" % fname)
        except Reject as r:
            check(r.status == want, "%s: %s" % (fname, r))
    n_pv, n_pi, hexdump = check_pages(sys.argv[1])
    n_dv, n_di = (check_dtypes(sys.argv[1])
                  if os.path.isdir(os.path.join(sys.argv[1], "dtypes")) else (0, 0))
    print("spec_reader: Appendix B, §9.2, Appendix C, %d valid and %d invalid vectors agree "
          "with FORMAT.md" % (len(names), len(bad)))
    print("spec_reader: Appendix D%s, %d valid page streams (decoded and rebuilt by §12.4) and "
          "%d invalid ones agree with FORMAT.md §12" %
          (" (with its hexdump)" if hexdump else "", n_pv, n_pi))
    print("spec_reader: §2.3's example, %d valid and %d invalid frames of the dtypes E4M3, E5M2, "
          "FP16 and FP32 agree with FORMAT.md 1.3" % (n_dv, n_di))
    return 0


if __name__ == "__main__":
    sys.exit(main())
