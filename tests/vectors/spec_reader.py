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


def content_checksum(data, n, log2):
    """FORMAT.md §7.2; data is the little-endian element bytes."""
    total = 0
    for c in range((n + (1 << log2) - 1) >> log2):
        lo, hi = c << log2, min((c + 1) << log2, n)
        total = (total + fmix64((chunk_digest(data[2 * lo:2 * hi]) + c * P2) & M64)) & M64
    return fmix64(total ^ ((n * P4) & M64))


def align16(x):
    return (x + 15) & ~15


def stored_size(n):
    return 64 + align16(2 * n)


def join(x, s):
    """§2"""
    return ((s & 0x80) << 8) | (x << 7) | (s & 0x7F)


def exponent(v):
    return (v >> 7) & 0xFF


# ---- split4 (§4.2, §5.1) -------------------------------------------------------------------

def split4_layout(n, log2, e):
    """FORMAT.md §4.2: (sm, table, positions, exponents, frame_size) offsets."""
    chunks = (n + (1 << log2) - 1) >> log2
    sm = align16(64 + (n + 1) // 2)
    table = align16(sm + n)
    pos = align16(table + 4 * chunks)
    exps = align16(pos + 2 * e)
    return sm, table, pos, exps, align16(exps + e)


def canonical_codebook(elems):
    """FORMAT.md §5.1"""
    hist = histogram(elems)
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

def entropy_layout(n, log2, words, first, last):
    """FORMAT.md §4.3.2: (sm, lengths, chunk_table, stream, frame_size, K)."""
    chunks = (n + (1 << log2) - 1) >> log2
    k = last - first + 1
    lengths = align16(64 + n)
    ctab = align16(lengths + (k + 1) // 2)
    stream = align16(ctab + 4 * chunks)
    return 64, lengths, ctab, stream, align16(stream + 2 * words), k


def decode_chunk(words, sm, length, lut, trace=None):
    """FORMAT.md §4.3.5 and rule 4 of §4.3.6: (elements, escapes) of one chunk."""
    n = len(sm)
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
            if sym[l] == ESC and bits[l] < 8:
                read(l)
        for l in active:                      # R
            x = sym[l]
            if x == ESC:
                x = take(l, 8)
                corrupt(length[x] == 0, "an escape for an exponent that has a code")
                n_esc += 1
            out[s0 + l] = join(x, sm[s0 + l])
        if trace is not None:
            trace.append(nxt[0] - before)
    corrupt(nxt[0] == len(words), "a word of the chunk is not read")
    corrupt(all(b == 0 for b in buf), "a nonzero bit after the end of a lane")
    return out, n_esc


def entropy_words(elems, log2, length):
    """The Stream_Words an encoder gets (§4.3.5, §6.2): the reads of the decoder."""
    total = 0
    for c0 in range(0, len(elems), 1 << log2):
        chunk = elems[c0:c0 + (1 << log2)]
        bits = [0] * LANES
        for s0 in range(0, len(chunk), LANES):
            active = range(min(LANES, len(chunk) - s0))
            syms = [exponent(chunk[s0 + l]) if length[exponent(chunk[s0 + l])] else ESC
                    for l in active]
            for l in active:
                if bits[l] < LMAX:
                    bits[l] += 16
                    total += 1
                bits[l] -= length[syms[l]]
            for l in active:
                if syms[l] == ESC:
                    if bits[l] < 8:
                        bits[l] += 16
                        total += 1
                    bits[l] -= 8
    return total


def entropy_size(elems, log2, length):
    coded = [e for e in range(256) if length[e]]
    return entropy_layout(len(elems), log2, entropy_words(elems, log2, length),
                          coded[0], coded[-1])[4]


def entropy_header(h, n, esc):
    """§3.2 step 10 for mode 2 (§4.3.1); returns (words, first, last, escape_length)."""
    words, first, last, esc_len = struct.unpack_from("<IBBB", h, 24)
    corrupt(first <= last and 1 <= esc_len <= LMAX, "table range or escape length")
    corrupt(not any(h[31:40]), "Reserved_2")
    corrupt(esc <= n, "escape count above the element count")
    return words, first, last, esc_len


def entropy_body(f, n, log2, esc, fields):
    """§4.3.6 rules 1-5 on a frame whose header is valid; returns the elements."""
    words, first, last, esc_len = fields
    sm, lo, ctab, stream, size, k = entropy_layout(n, log2, words, first, last)
    chunks = (n + (1 << log2) - 1) >> log2
    for a, b in ((sm + n, lo), (lo + (k + 1) // 2, ctab), (ctab + 4 * chunks, stream),
                 (stream + 2 * words, size)):
        corrupt(not any(f[a:b]), "padding at %d" % a)
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
        out, e = decode_chunk(ws, f[sm + (c << log2):sm + min((c + 1) << log2, n)], length, lut)
        elems += out
        found += e
    corrupt(found == esc, "Escape_Count is not the number of escapes")
    return elems, length


# ---- frames and streams (§3, §8.2) ----------------------------------------------------------

def split4_body(f, n, log2, esc, cb):
    """§4.2.7 on a frame whose header is valid; returns the elements."""
    sm, table, pos, exps, size = split4_layout(n, log2, esc)
    chunks = (n + (1 << log2) - 1) >> log2
    for lo, hi in ((64 + (n + 1) // 2, sm), (sm + n, table), (table + 4 * chunks, pos),
                   (pos + 2 * esc, exps), (exps + esc, size)):
        corrupt(not any(f[lo:hi]), "padding at %d" % lo)
    corrupt(n % 2 == 0 or f[64 + n // 2] >> 4 == 0, "odd padding nibble")
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
            corrupt(last < p < length and x not in cb, "escape record")
            corrupt((f[64 + i // 2] >> (4 * (i % 2))) & 15 == 0, "escape code")
            patch[p], last = x, p
        for p in range(length):
            i = (c << log2) + p
            code = (f[64 + i // 2] >> (4 * (i % 2))) & 15
            elems.append(join(patch.get(p, cb[code]), f[sm + i]))
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
    if dtype != 1 or mode not in (0, 1, 2):
        raise Reject("ERROR_UNSUPPORTED_FORMAT", "dtype or mode")
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
        size = stored_size(n)
    elif mode == 1:
        corrupt(all(cb[k] < cb[k + 1] for k in range(15)), "codebook order")
        corrupt(esc <= n, "escape count")
        size = split4_layout(n, log2, esc)[4]
        corrupt(size < stored_size(n), "split4 not smaller than stored")
    else:
        fields = entropy_header(h, n, esc)
        size = entropy_layout(n, log2, fields[0], fields[1], fields[2])[4]
        corrupt(size < stored_size(n), "entropy not smaller than stored")
    corrupt(fsize == size, "Frame_Size")
    return {"mode": mode, "n": n, "log2": log2, "flags": flags, "esc": esc, "cksum": cksum,
            "codebook": cb, "fields": fields, "size": fsize}


def read_frame(buf, first):
    """One frame (§3.2, §3.3): (elements, frame size, header dict with the table)."""
    hd = header(buf, first)
    if hd["size"] > len(buf):
        raise Reject("ERROR_TRUNCATED", "the frame ends after the input")
    f, n, log2 = buf[:hd["size"]], hd["n"], hd["log2"]
    if hd["mode"] == 0:
        corrupt(not any(f[64 + 2 * n:]), "stored padding")
        elems = list(struct.unpack_from("<%dH" % n, f, 64))
    elif hd["mode"] == 1:
        elems = split4_body(f, n, log2, hd["esc"], hd["codebook"])
    else:
        elems, hd["table"] = entropy_body(f, n, log2, hd["esc"], hd["fields"])
    if hd["flags"] & 1:
        data = struct.pack("<%dH" % n, *elems)
        if hd["cksum"] != content_checksum(data, n, log2):
            raise Reject("ERROR_CONTENT_CHECKSUM", "content checksum")
    return elems, hd["size"], hd


def read_stream(buf):
    """§8.2: (elements, [header dicts])."""
    if not buf:
        raise Reject("ERROR_TRUNCATED", "zero bytes are not a stream")
    out, hdrs, off = [], [], 0
    while off < len(buf):
        elems, size, hd = read_frame(buf[off:], off == 0)
        out += elems
        hd["elems"] = elems
        hdrs.append(hd)
        off += size
    return out, hdrs


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
    print("spec_reader: Appendix B, §9.2, Appendix C, %d valid and %d invalid vectors agree "
          "with FORMAT.md" % (len(names), len(bad)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
