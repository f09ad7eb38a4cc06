#!/usr/bin/env python3
"""spec_reader.py -- a second, independent reader of the golden vectors, written from
doc/FORMAT.md alone (no code shared with the C library).

    spec_reader.py VECTORS_DIR

Checks the test values of FORMAT.md Appendix B, then decodes every valid vector by the rules of
§3-§7 (header fields, section layout, padding, escapes, codebook selection, mode rule, content
and header checksums) and compares the result with its .bf16 file. Exits nonzero on the first
disagreement, so the spec text and the vectors cannot drift apart unnoticed.
"""
import os
import struct
import sys

M64 = (1 << 64) - 1
P1, P2, P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
P4, P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5


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
    hist = [0] * 256
    for v in elems:
        hist[(v >> 7) & 0xFF] += 1
    ranked = sorted(range(256), key=lambda e: (-hist[e], e))
    return sorted(ranked[:16])


def fail(msg):
    print("spec_reader: " + msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def read_frame(buf, name):
    """Decode the frame at the start of buf; returns (elements, frame_size, header dict)."""
    check(len(buf) >= 64, name + ": short header")
    h = buf[:64]
    check(h[:4] == b"\x53\x50\x5a\xbf", name + ": magic")
    check(struct.unpack_from("<I", h, 60)[0] == chunk_digest(h[:60]) & 0xFFFFFFFF,
          name + ": header checksum")
    ver, dtype, mode, log2, flags = h[4], h[5], h[6], h[7], h[8]
    esc, n = struct.unpack_from("<IQ", h, 12)
    cb = list(h[24:40])
    fsize, cksum = struct.unpack_from("<QQ", h, 40)
    check(ver == 1 and dtype == 1 and mode in (0, 1), name + ": version/dtype/mode")
    check(flags & ~1 == 0 and h[9:12] == b"\0\0\0" and h[56:60] == b"\0\0\0\0",
          name + ": reserved")
    check(10 <= log2 <= 16 and n <= 0xFFFFFFFF, name + ": ranges")
    check(flags & 1 or cksum == 0, name + ": checksum field without flag")
    check(fsize <= len(buf), name + ": truncated")
    f = buf[:fsize]
    if mode == 0:
        check(esc == 0 and cb == [0] * 16, name + ": stored header")
        check(fsize == stored_size(n), name + ": stored frame size")
        check(not any(f[64 + 2 * n:]), name + ": stored padding")
        elems = list(struct.unpack_from("<%dH" % n, f, 64))
    else:
        check(all(cb[k] < cb[k + 1] for k in range(15)), name + ": codebook order")
        check(esc <= n, name + ": escape count")
        sm, table, pos, exps, size = split4_layout(n, log2, esc)
        check(size < stored_size(n), name + ": split4 not smaller than stored")
        check(fsize == size, name + ": split4 frame size")
        chunks = (n + (1 << log2) - 1) >> log2
        for lo, hi in ((64 + (n + 1) // 2, sm), (sm + n, table), (table + 4 * chunks, pos),
                       (pos + 2 * esc, exps), (exps + esc, size)):
            check(not any(f[lo:hi]), name + ": padding at %d" % lo)
        check(n % 2 == 0 or f[64 + n // 2] >> 4 == 0, name + ": odd padding nibble")
        elems, k, prev_t = [], 0, 0
        for c in range(chunks):
            t = struct.unpack_from("<I", f, table + 4 * c)[0]
            length = min(1 << log2, n - (c << log2))
            check(prev_t <= t and t - prev_t <= length, name + ": chunk table")
            patch, last = {}, -1
            for r in range(prev_t, t):
                p = struct.unpack_from("<H", f, pos + 2 * r)[0]
                x = f[exps + r]
                i = (c << log2) + p
                check(last < p < length and x not in cb, name + ": escape record")
                check((f[64 + i // 2] >> (4 * (i % 2))) & 15 == 0, name + ": escape code")
                patch[p], last = x, p
            for p in range(length):
                i = (c << log2) + p
                code = (f[64 + i // 2] >> (4 * (i % 2))) & 15
                x = patch.get(p, cb[code])
                s = f[sm + i]
                elems.append(((s & 0x80) << 8) | (x << 7) | (s & 0x7F))
            prev_t = t
        check(prev_t == esc, name + ": last chunk table entry")
    data = struct.pack("<%dH" % n, *elems)
    if flags & 1:
        check(cksum == content_checksum(data, n, log2), name + ": content checksum")
    return elems, fsize, {"mode": mode, "n": n, "log2": log2, "codebook": cb}


def main():
    if len(sys.argv) != 2:
        print("usage: spec_reader.py VECTORS_DIR")
        return 2
    # FORMAT.md Appendix B
    check(chunk_digest(b"") == 0x31E6AF0DA18868F6, "Appendix B: H(empty)")
    check(chunk_digest(bytes(range(8))) == 0xC4C8BD83596CE0EE, "Appendix B: H(00..07)")
    check(chunk_digest(bytes(range(256))) == 0x1DD01D038BCD0858, "Appendix B: H(00..FF)")
    check(content_checksum(b"", 0, 12) == 0, "Appendix B: n = 0")
    check(content_checksum(b"\x80\x3f", 1, 12) == 0xA43B70CBE756EE87, "Appendix B: 1.0")
    seq = struct.pack("<3000H", *range(3000))
    check(content_checksum(seq, 3000, 10) == 0x153D314D841E3FC6, "Appendix B: 3000, L=10")
    check(content_checksum(seq, 3000, 12) == 0xE1C3B7E9C35895DC, "Appendix B: 3000, L=12")

    vdir = os.path.join(sys.argv[1], "valid")
    names = sorted(f[:-3] for f in os.listdir(vdir) if f.endswith(".sz"))
    check(len(names) > 0, "no valid vectors")
    for name in names:
        with open(os.path.join(vdir, name + ".sz"), "rb") as fh:
            buf = fh.read()
        with open(os.path.join(vdir, name + ".bf16"), "rb") as fh:
            raw = fh.read()
        out, off = [], 0
        while True:
            elems, size, hdr = read_frame(buf[off:], name)
            if "fixed" not in name:  # encoded with the codebook from the input (§6.2)
                cb = canonical_codebook(elems)
                if hdr["mode"] == 1:
                    check(hdr["codebook"] == cb, name + ": codebook (§5.1)")
                else:
                    e = sum(1 for v in elems if (v >> 7) & 0xFF not in cb)
                    n = hdr["n"]
                    check(n == 0 or split4_layout(n, hdr["log2"], e)[4] >= stored_size(n),
                          name + ": stored although split4 is smaller (§6.3)")
            out += elems
            off += size
            if off >= len(buf):
                break
        check(struct.pack("<%dH" % len(out), *out) == raw, name + ": decoded content")
    print("spec_reader: Appendix B and %d valid vectors agree with FORMAT.md" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
