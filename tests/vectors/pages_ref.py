#!/usr/bin/python3
"""pages_ref.py -- a reference encoder and validating decoder of page streams (FORMAT.md §12)
of every dtype: version 2 (BF16 pages) and version 3 (FP16, FP32, FP8 E4M3, FP8 E5M2 pages,
*New in 1.3*), written from doc/FORMAT.md alone with numpy on top of dtype_ref.py's frames;
nothing of the C library is imported or copied.

dtype_ref.py calls it: `gen` also writes tests/vectors/dtypes/pages (valid/ and invalid/),
`check` regenerates them, `selftest` runs selftest() below (round trips of page lists of every
dtype, and every version 2 golden stream of tests/vectors/pages re-encoded byte for byte).

    encode_pages(dt, pages, encoding, log2, checksum, codebook, table, table_id)   §12.4
    read_pages(buf, caps, exact, known)                                           §12.5-§12.6

A Reject from read_pages carries the status and a reason that starts with the step of §12.5 /
§12.6 that failed ("step 10c: ..."), so that each invalid vector is tied to its step.
"""
import os
import struct

import numpy as np

import dtype_ref as R

PG_MAGIC = b"\x53\x5a\x50\x47"      # §12.2: 0x47505A53, "SZPG"
FRAME_ELEMS = 1 << 24               # §12.1: elements of every frame but the last
PAGE_MAX = (1 << 31) - 1            # §12.3: Page_Elems is 31 bits
RAW_BIT = 1 << 31
CS, UF = "ERROR_CORRUPT_STREAM", "ERROR_UNSUPPORTED_FORMAT"
MODES = {"split4": 1, "entropy": 2}


def align64(x):
    return (x + 63) & ~63


def fail(status, step, why):
    raise R.Reject(status, "step %s: %s" % (step, why))


def check(cond, step, why, status=CS):
    if not cond:
        fail(status, step, why)


def table_checksum(table_bytes):
    """§12.2: the low 32 bits of H(page table, 4 · Page_Count)."""
    return R.digest(table_bytes) & 0xFFFFFFFF


def version_of(dt):
    """§12.2, §12.4 step 6: BF16 pages are version 2, the others version 3."""
    return 2 if dt is R.BF16 else 3


# ---- §12.1-§12.3: assembling a stream from its parts --------------------------------------------

def assemble(dt, flags, encoding, log2, table_id, entries, frames, raw, raw_checksum,
             version=None, dtype_byte=None):
    """The stream of §12.1 from the page table entries (u32 each), the frames (bytes each)
    and the raw section's bytes; every size and checksum of the header computed. version and
    dtype_byte override the header's (for invalid vectors only)."""
    version = version_of(dt) if version is None else version
    page_count = len(entries)
    table = np.asarray(entries, dtype="<u4").tobytes()
    frames_offset = align64(64 + 4 * page_count)
    frames_size = sum(len(f) for f in frames)
    raw_elems = len(raw) // dt.width
    if raw_elems:
        raw_offset = align64(frames_offset + frames_size)
    else:
        raw_offset = frames_offset + frames_size
    stream_size = raw_offset + len(raw)
    total = sum(e & PAGE_MAX for e in entries)
    out = bytearray(stream_size)
    out[0:4] = PG_MAGIC
    out[4:8] = bytes([version, flags, encoding, log2])
    struct.pack_into("<IIQQQQI", out, 8, page_count, table_id, total, frames_size, stream_size,
                     raw_checksum, table_checksum(table))
    if version == 3:
        out[52] = dt.code if dtype_byte is None else dtype_byte
    out[64:64 + len(table)] = table
    pos = frames_offset
    for f in frames:
        out[pos:pos + len(f)] = f
        pos += len(f)
    out[raw_offset:] = raw
    return reseal(out)


def reseal(buf):
    """Header_Checksum (§12.2) recomputed over bytes 0..59."""
    buf = bytearray(buf)
    struct.pack_into("<I", buf, 60, R.digest(bytes(buf[:60])) & 0xFFFFFFFF)
    return buf


# ---- §12.4: the canonical encoding --------------------------------------------------------------

def page_is_raw(dt, page, mode, tab):
    """§12.4 step 2 (with the rules of 1.3 for an e-bit exponent; for e = 8 they are those of
    version 2): the page is raw when its estimated cost is at least that of its raw bits."""
    n = len(page)
    if n == 0:
        return True                                   # 0 >= 0
    e = dt.ebits
    h = R.histogram(dt, page)
    if mode == 1:
        escapes = n - int(h[np.array(tab)].sum())
        return 24 * escapes >= (e - 4) * n
    ln = np.array(tab[:1 << e], dtype=np.int64)
    c = np.where(ln != 0, ln, tab[R.ESC] + e)
    return int((h * c).sum()) >= e * n


def candidate(dt, pages, mode, log2, checksum, fixed, table_id):
    """§12.4 steps 1-6 for one mode (1 split4, 2 entropy): the stream's bytes."""
    everything = np.concatenate(pages) if pages else np.zeros(0, dtype=dt.np)
    # step 1: the table, from every element of every page, raw or not, unless one is given
    if fixed is not None:
        tab = list(fixed)
    elif len(everything) == 0:
        tab = None                                    # no elements: no frames, no table
    else:
        hist = R.histogram(dt, everything)
        tab = (R.codebook_of_histogram(dt, hist) if mode == 1 else
               R.table_of_histogram(dt, hist))
    # steps 2 and 5: the raw decisions and the page table
    raw_bits = [page_is_raw(dt, p, mode, tab) for p in pages]
    entries = [len(p) | (RAW_BIT if r else 0) for p, r in zip(pages, raw_bits)]
    empty = np.zeros(0, dtype=dt.np)
    coded = np.concatenate([empty] + [p for p, r in zip(pages, raw_bits) if not r])
    raw = np.concatenate([empty] + [p for p, r in zip(pages, raw_bits) if r])
    # step 3: frames of 2^24 coded elements, canonical with the table as a fixed one
    frames = []
    for j in range(R.ceil_div(len(coded), FRAME_ELEMS)):
        part = coded[j * FRAME_ELEMS:(j + 1) * FRAME_ELEMS]
        if mode == 1:
            f = R.encode(dt, part, log2, checksum, "split4", codebook=tab)
        else:
            f = R.encode(dt, part, log2, checksum, "entropy", table=tab)
        frames.append(f)
    # steps 4 and 6: the layout and the header
    flags = (1 if checksum else 0) | (2 if fixed is not None else 0)
    raw_ck = R.content_checksum(dt, raw, log2) if checksum else 0
    raw_bytes = raw.astype("<u%d" % dt.width).tobytes()
    return bytes(assemble(dt, flags, mode, log2, table_id if fixed is not None else 0,
                          entries, frames, raw_bytes, raw_ck))


def encode_pages(dt, pages, encoding="auto", log2=12, checksum=True, codebook=None,
                 table=None, table_id=0):
    """§12.4: the page stream of the pages (a list of arrays of dt's patterns). encoding:
    split4, entropy or auto; codebook / table: the fixed ones, or None (from the pages)."""
    pages = [np.ascontiguousarray(p, dtype=dt.np) for p in pages]
    assert all(len(p) <= PAGE_MAX for p in pages)
    assert 10 <= log2 <= 16
    if encoding == "split4" and not dt.split4:
        raise ValueError("the split4 encoding is not defined for %s pages (§12.4)" % dt.name)
    modes = {"split4": [1], "entropy": [2],
             "auto": [1, 2] if dt.split4 else [2]}[encoding]
    fixed = {1: codebook, 2: table}
    if table_id and any(fixed[m] is None for m in modes):
        raise ValueError("a nonzero Table_Id needs fixed tables for every candidate (§12.4)")
    if codebook is not None:
        assert R.codebook_valid(dt, list(codebook))
    if table is not None:
        assert R.table_valid(dt, list(table))
    best = None
    for m in modes:                                   # split4 first: it wins a tie
        s = candidate(dt, pages, m, log2, checksum, fixed[m], table_id)
        if best is None or len(s) < len(best):
            best = s
    return best


# ---- §12.5-§12.6: validation and decoding ------------------------------------------------------

def read_header(buf, known=None):
    """§12.5 steps 0-6: the header's fields."""
    known = R.DTYPES if known is None else known
    if len(buf) < 64:
        k = min(len(buf), 4)
        if bytes(buf[:k]) != PG_MAGIC[:k]:
            fail("ERROR_BAD_MAGIC", 0, "not a page stream")
        fail("ERROR_TRUNCATED", 0, "fewer than 64 bytes")
    h = bytes(buf[:64])
    check(h[:4] == PG_MAGIC, 1, "Magic_Number", "ERROR_BAD_MAGIC")
    version = h[4]
    check(version != 0, 2, "Stream_Version 0")
    check(version in (2, 3), 2, "Stream_Version %d" % version, UF)
    check(version == 2 or any(c in known for c in (2, 3, 4, 5)), 2,
          "version 3 by a decoder of none of the dtypes 2-5", UF)
    check(struct.unpack_from("<I", h, 60)[0] == R.digest(h[:60]) & 0xFFFFFFFF, 3,
          "Header_Checksum", "ERROR_HEADER_CHECKSUM")
    flags, encoding, log2 = h[5], h[6], h[7]
    check(encoding in (1, 2), 4, "Encoding %d" % encoding, UF)
    if version == 3:
        code = h[52]
        check(code in R.DTYPES and code in known, 4, "Dtype %d" % code, UF)
        check(not (encoding == 1 and code == R.E4M3.code), 4, "split4 pages of E4M3", UF)
        dt = R.DTYPES[code]
        reserved = h[53:60]
    else:
        dt = R.BF16
        reserved = h[52:60]
    page_count, table_id, total, frames_size, stream_size, raw_ck, table_ck = \
        struct.unpack_from("<IIQQQQI", h, 8)
    check(flags & ~3 == 0, 5, "a reserved bit of Stream_Flags")
    check(not any(reserved), 5, "a nonzero Reserved byte")
    check(10 <= log2 <= 16, 5, "Chunk_Log2 %d" % log2)
    check(table_id == 0 or flags & 2, 5, "a Table_Id without Fixed_Table_Flag")
    check(raw_ck == 0 or flags & 1, 5, "a Raw_Checksum without Checksum_Flag")
    check(not (version == 3 and dt is R.BF16), 5, "version 3 with Dtype 1 (BF16 is version 2)")
    frames_offset = align64(64 + 4 * page_count)
    check(frames_size % 16 == 0, 6, "Frames_Size not a multiple of 16")
    check(stream_size >= frames_offset, 6, "Stream_Size below Frames_Offset")
    check(frames_size <= stream_size - frames_offset, 6, "Frames_Size beyond Stream_Size")
    check(total <= page_count * PAGE_MAX, 6, "Total_Elems above what the pages can hold")
    return {"version": version, "dt": dt, "flags": flags, "checksum": flags & 1,
            "fixed": bool(flags & 2), "encoding": encoding, "log2": log2,
            "page_count": page_count, "table_id": table_id, "total": total,
            "frames_offset": frames_offset, "frames_size": frames_size,
            "stream_size": stream_size, "raw_checksum": raw_ck, "table_checksum": table_ck}


def read_structure(buf, known=None):
    """§12.5 steps 0-10: the header, the page table and the frames' headers (what
    splitzip_pages_get_manifest() reports). Reads no frame body but the code lengths."""
    hd = read_header(buf, known)
    dt, w = hd["dt"], hd["dt"].width
    check(len(buf) >= hd["stream_size"], 7, "fewer than Stream_Size bytes", "ERROR_TRUNCATED")
    pc, fo, fs = hd["page_count"], hd["frames_offset"], hd["frames_size"]
    table = bytes(buf[64:64 + 4 * pc])
    check(table_checksum(table) == hd["table_checksum"], 8, "Table_Checksum",
          "ERROR_HEADER_CHECKSUM")
    # step 9: the page table against the header
    entries = [int(e) for e in np.frombuffer(table, dtype="<u4")]
    elems = [e & PAGE_MAX for e in entries]
    raw = [bool(e & RAW_BIT) for e in entries]
    coded_elems = sum(n for n, r in zip(elems, raw) if not r)
    raw_elems = sum(n for n, r in zip(elems, raw) if r)
    frame_count = R.ceil_div(coded_elems, FRAME_ELEMS)
    raw_offset = align64(fo + fs) if raw_elems else fo + fs
    check(sum(elems) == hd["total"], 9, "the page table's sum is not Total_Elems")
    check((frame_count == 0) == (fs == 0), 9, "Frames_Size against the coded elements")
    check(hd["stream_size"] == raw_offset + w * raw_elems, 9,
          "Stream_Size is not Raw_Offset + w * Raw_Elems")
    check(not any(buf[64 + 4 * pc:fo]), 9, "a nonzero byte after the page table")
    check(not any(buf[fo + fs:raw_offset]), 9, "a nonzero byte after the frames section")
    # step 10: the frame headers
    end = fo + fs
    pos, first_table, frames = fo, None, []
    for j in range(frame_count):
        r = end - pos
        check(r >= 64, "10a", "frame %d: fewer than 64 bytes left in the section" % j)
        try:
            fh = R.parse_header(bytes(buf[pos:pos + r]), first=False, known=known)
        except R.Reject as e:
            fail(e.status, "10b", "frame %d: %s" % (j, e))
        count = min(FRAME_ELEMS, coded_elems - j * FRAME_ELEMS)
        check(fh["size"] <= r, "10c", "frame %d: Frame_Size beyond the section" % j)
        check(fh["n"] == count, "10c", "frame %d: Element_Count %d, not %d" % (j, fh["n"], count))
        check(fh["log2"] == hd["log2"], "10c", "frame %d: another Chunk_Log2" % j)
        check((fh["flags"] & 1) == hd["checksum"], "10c",
              "frame %d: Content_Checksum_Flag other than Checksum_Flag" % j)
        check(fh["mode"] in (0, hd["encoding"]), "10c", "frame %d: Mode %d" % (j, fh["mode"]))
        check(fh["dt"] is dt, "10c", "frame %d: Dtype %d in a stream of %s pages" %
              (j, fh["dt"].code, dt.name))
        if fh["mode"] == hd["encoding"]:
            key = frame_table_bytes(buf, pos, fh)
            if first_table is None:
                first_table = key
            check(key == first_table, "10d", "frame %d: another table than the first" % j)
        frames.append((pos, fh))
        pos += fh["size"]
    check(pos == end, 10, "the frames do not fill Frames_Size")
    hd.update(entries=entries, elems=elems, raw=raw, coded_elems=coded_elems,
              raw_elems=raw_elems, raw_offset=raw_offset, frames=frames)
    return hd


def frame_table_bytes(buf, pos, fh):
    """§12.5 step 10d: what must be the same in every frame of Mode = Encoding."""
    h = bytes(buf[pos:pos + 64])
    if fh["mode"] == 1:
        return h[24:40]                                   # Codebook
    words, first, last, _ = fh["fields"]
    lo = R.entropy_layout(fh["dt"], fh["n"], fh["log2"], words, first, last)[1]
    k = last - first + 1
    return h[28:31] + bytes(buf[pos + lo:pos + lo + R.ceil_div(k, 2)])


def read_pages(buf, caps=None, exact=False, known=None):
    """§12.5 and §12.6: (dtype, [pages], structure). caps: the destinations' capacities in
    bytes (None: exactly the stream's pages); exact: SPLITZIP_PAGES_EXACT."""
    hd = read_structure(buf, known)
    dt, w, elems = hd["dt"], hd["dt"].width, hd["elems"]
    if caps is not None:                                  # step 11
        if exact:
            check(hd["page_count"] == len(caps), 11, "Page_Count", "ERROR_GEOMETRY")
            for i, n in enumerate(elems):
                check(w * n == caps[i], 11, "page %d's size" % i, "ERROR_GEOMETRY")
        else:
            check(hd["page_count"] <= len(caps), 11, "Page_Count", "ERROR_DST_TOO_SMALL")
            for i, n in enumerate(elems):
                check(w * n <= caps[i], 11, "page %d's size" % i, "ERROR_DST_TOO_SMALL")
    # step 12: the frames, then the raw checksum, then the raw pages
    coded = []
    for j, (pos, fh) in enumerate(hd["frames"]):
        try:
            v, size, _ = R.read_frame(bytes(buf[pos:pos + fh["size"]]), first=False, known=known)
        except R.Reject as e:
            fail(e.status, 12, "frame %d: %s" % (j, e))
        coded.append(v)
    empty = np.zeros(0, dtype=dt.np)
    coded = np.concatenate([empty] + coded)
    ro = hd["raw_offset"]
    raw = np.frombuffer(bytes(buf[ro:ro + w * hd["raw_elems"]]),
                        dtype="<u%d" % w).astype(dt.np)
    if hd["checksum"]:
        check(R.content_checksum(dt, raw, hd["log2"]) == hd["raw_checksum"], 12,
              "Raw_Checksum", "ERROR_CONTENT_CHECKSUM")
    pages, c, r = [], 0, 0
    for n, is_raw in zip(elems, hd["raw"]):
        if is_raw:
            pages.append(raw[r:r + n])
            r += n
        else:
            pages.append(coded[c:c + n])
            c += n
    return dt, pages, hd


def reencode(buf, fixed):
    """A valid stream encoded again from its header (encoding, Chunk_Log2, Checksum_Flag,
    Table_Id) and, when fixed, with the table of its first frame of Mode = Encoding."""
    dt, pages, hd = read_pages(buf)
    enc = {1: "split4", 2: "entropy"}[hd["encoding"]]
    codebook = table = None
    if fixed:
        for pos, fh in hd["frames"]:
            if fh["mode"] == hd["encoding"]:
                if fh["mode"] == 1:
                    codebook = fh["codebook"]
                else:
                    _, _, full = R.read_frame(bytes(buf[pos:pos + fh["size"]]), first=False)
                    table = full["table"]
                break
        assert codebook is not None or table is not None, "no coded frame to take a table from"
    return dt, pages, encode_pages(dt, pages, enc, hd["log2"], bool(hd["checksum"]),
                                   codebook, table, hd["table_id"])


# ---- golden vectors (tests/vectors/dtypes/pages) -----------------------------------------------

TABLE_ID = 0x5A17AB1E


def _pages_of(kv, start, sizes):
    """Consecutive pages of kv, of the given element counts, from start on."""
    out, pos = [], start
    for n in sizes:
        out.append(kv[pos:pos + n])
        pos += n
    return out


def _random_page(dt, n, seed):
    return R.splitmix(seed, n).astype(dt.np)


def valid_vectors(data):
    """(name, dtype, pages, stream bytes, expected Encoding) of every valid page stream."""
    out = []

    def add(name, dt, pages, encoding, log2=12, checksum=True, codebook=None, table=None,
            table_id=0, want=None, want_raw=None, any_raw=False):
        pages = [np.ascontiguousarray(p, dtype=dt.np) for p in pages]
        s = encode_pages(dt, pages, encoding, log2, checksum, codebook, table, table_id)
        hd = read_structure(s)
        assert want_raw is None or hd["raw"] == want_raw, (dt.name, name, hd["raw"])
        some_raw = any(r and n for r, n in zip(hd["raw"], hd["elems"]))
        assert "raw" in name or any_raw or not some_raw, (dt.name, name, "a raw page")
        out.append((dt.name + "_" + name, dt, pages, s, want))
        return s

    for dt in (R.E4M3, R.E5M2, R.FP16, R.FP32):
        kv, w = data[dt.name], dt.width
        k1, k2, mla = 1024 // w, 2048 // w, 1152 // w          # elements of 1 KiB, 2 KiB pages
        s4 = dt.split4
        # KV-like pages of realistic sizes in each encoding
        if s4:
            add("split4_kv", dt, _pages_of(kv, 0, [k1] * 8), "split4", 10)
        add("entropy_kv", dt, _pages_of(kv, 8192, [k2] * 8), "entropy", 12)
        add("entropy_kv_mla_l10", dt, _pages_of(kv, 40000, [mla] * 8), "entropy", 10)
        add("auto_kv", dt, _pages_of(kv, 60000, [k1] * 8), "auto", 11, want=2)
        if s4:
            win = R._window(dt)
            add("auto_split4_window", dt, [win[i:i + 1024] for i in range(0, 4096, 1024)],
                "auto", 12, want=1)
        # raw pages (random bit patterns) and empty pages among KV pages
        rnd_a, rnd_b = _random_page(dt, k1, 31), _random_page(dt, 300, 32)
        kvp = _pages_of(kv, 80000, [k1, k1, 700, k1, 65, k1])
        mixed = [kv[:0], kvp[0], kvp[1], rnd_a, kvp[2], kv[:0], kvp[3], rnd_b, kvp[4], kvp[5]]
        want_raw = [True, False, False, True, False, True, False, True, False, False]
        add("entropy_raw_and_empty_pages", dt, mixed, "entropy", 10, want_raw=want_raw)
        if s4:
            add("split4_raw_and_empty_pages", dt, mixed, "split4", 10, want_raw=want_raw)
        add("auto_no_pages", dt, [], "auto", 12, want=1 if s4 else 2)
        add("entropy_empty_pages_only", dt, [kv[:0]] * 3, "entropy", 12)
        # random pages only (no frames). split4 where there is one: an entropy table from a
        # few random elements fits them, and a page of them may come out cheaper than e bits
        # an element (coded)
        add(("split4" if s4 else "entropy") + "_all_raw", dt,
            [_random_page(dt, n, 40 + n) for n in (37, k1, 200)],
            "split4" if s4 else "entropy", 12, want_raw=[True] * 3)
        add("entropy_no_checksum", dt, _pages_of(kv, 104000, [k1] * 8), "entropy", 12, False)
        # (a page of one to three KV elements may go raw, when its exponents are rare ones)
        add("entropy_odd_sizes", dt, _pages_of(kv, 120000, [1, 3, 63, 65, 1000, 1025, 2, 129]),
            "entropy", 10, any_raw=True)
        # one coded page too small for a coded frame: the stream's frame is stored (§6.3)
        add("entropy_stored_frame", dt, [kv[150000:150010]], "entropy", 12)
        # fixed tables from other KV data, with pages that hold exponents they lack (escapes)
        calib = kv[100000:104000]
        tab = R.table_of_histogram(dt, R.histogram(dt, calib))
        pages = _pages_of(kv, 160000, [k1] * 8)
        outside = np.array([e for e in range(1 << dt.ebits) if not tab[e]])
        assert len(outside), dt.name
        pages[2] = _with_exponents(dt, pages[2], outside)
        add("entropy_fixed_table", dt, pages, "entropy", 11, table=tab, table_id=TABLE_ID)
        if s4:
            cb = R.codebook_of_histogram(dt, R.histogram(dt, calib))
            outside = np.array([e for e in range(1 << dt.ebits) if e not in cb])
            pages = _pages_of(kv, 170000, [k1] * 8)
            pages[5] = _with_exponents(dt, pages[5], outside)
            add("split4_fixed_codebook", dt, pages, "split4", 10, codebook=cb,
                table_id=TABLE_ID + 1)
            add("auto_fixed_tables_no_checksum", dt, _pages_of(kv, 180000, [k1] * 6), "auto",
                12, False, codebook=cb, table=tab, table_id=TABLE_ID + 2)
    return out


def _with_exponents(dt, page, exps):
    """The page with its first len(exps) elements given the exponents exps (their rest bits
    kept), at most one element in 16 of it."""
    page = page.copy()
    exps = exps[:len(page) // 16]
    idx = np.arange(len(exps)) * 16
    fields = [f[idx] for f in R.rest_fields(dt, page)]
    page[idx] = R.join(dt, exps, fields)
    return page


def _named(valid, name):
    for n, dt, pages, s, _ in valid:
        if n == name:
            return dt, pages, s
    raise KeyError(name)


def _parts(s):
    """The parts of a valid stream: (structure, entries, frames' bytes, raw bytes)."""
    dt, _, hd = read_pages(s)
    frames = [bytes(s[pos:pos + fh["size"]]) for pos, fh in hd["frames"]]
    ro = hd["raw_offset"]
    return hd, hd["entries"], frames, bytes(s[ro:hd["stream_size"]])


def _reassemble(s, frames=None, raw=None, **kw):
    hd, entries, fr, rw = _parts(s)
    return assemble(hd["dt"], hd["flags"], hd["encoding"], hd["log2"], hd["table_id"], entries,
                    fr if frames is None else frames, rw if raw is None else raw,
                    hd["raw_checksum"], **kw)


def _frame_offset(s, j=0):
    return read_structure(s)["frames"][j][0]


def invalid_vectors(valid):
    """(name, status, step, bytes): valid version 3 streams with one rule broken each."""
    out = []

    def add(name, status, step, b):
        out.append((name, status, str(step), bytes(b)))

    def setb(s, off, val, seal=True):
        b = bytearray(s)
        b[off] = val
        return reseal(b) if seal else b

    def xor(s, off, mask):
        b = bytearray(s)
        b[off] ^= mask
        return b

    f16 = _named(valid, "f16_entropy_kv_mla_l10")[2]
    f16s = _named(valid, "f16_split4_kv")[2]
    e4 = _named(valid, "e4m3_auto_kv")[2]
    e4r = _named(valid, "e4m3_entropy_raw_and_empty_pages")[2]
    e5 = _named(valid, "e5m2_auto_kv")[2]
    e5s = _named(valid, "e5m2_split4_kv")[2]
    f32r = _named(valid, "f32_entropy_raw_and_empty_pages")[2]
    f16st = _named(valid, "f16_entropy_stored_frame")[2]
    # ---- steps 0-3
    add("v3_truncated_header", "ERROR_TRUNCATED", 0, f16[:63])
    add("v3_version_4", UF, 2, setb(f16, 4, 4, seal=False))
    add("v3_dtype_changed_unsealed", "ERROR_HEADER_CHECKSUM", 3, setb(f16, 52, 5, seal=False))
    # ---- step 4: dtypes and encodings
    add("v3_dtype_0", UF, 4, setb(f16, 52, 0))
    add("v3_dtype_6", UF, 4, setb(f16, 52, 6))
    add("v3_dtype_255", UF, 4, setb(e5, 52, 255))
    add("e4m3_encoding_split4", UF, 4, setb(e4, 6, 1))
    add("e4m3_encoding_3", UF, 4, setb(e4, 6, 3))
    # ---- step 5
    add("v3_dtype_1_bf16", CS, 5, setb(f16, 52, 1))
    add("e5m2_reserved_byte_53", CS, 5, setb(e5, 53, 1))
    add("f32_reserved_byte_59", CS, 5, setb(f32r, 59, 0x80))
    # ---- steps 7-9 with the element width of the dtype
    add("e4m3_truncated_raw_section", "ERROR_TRUNCATED", 7, e4r[:-1])
    add("f32_stream_size_of_2_byte_elements", CS, 9, _stream_size_width(f32r, 2))
    add("e4m3_stream_size_of_2_byte_elements", CS, 9, _stream_size_width(e4r, 2, pad=True))
    add("f16_stream_size_of_1_byte_elements", CS, 9,
        _stream_size_width(_named(valid, "f16_entropy_raw_and_empty_pages")[2], 1))
    # ---- version 2 headers over version 3 streams (Dtype cleared, resealed)
    add("v2_header_over_f16_frames", CS, "10c", _as_v2(f16))
    add("v2_header_over_e5m2_frames", CS, "10c", _as_v2(e5))
    add("v2_header_over_e4m3_raw_pages", CS, 9, _as_v2(e4r))
    # ---- step 10: frames of another dtype
    add("f16_stored_frame_relabelled_bf16", CS, "10c",
        _relabel_frame(f16st, R.BF16.code))
    add("f16_frame_of_bf16", CS, "10c", _foreign_frame(f16, R.BF16, "entropy"))
    add("e5m2_frame_of_e4m3", CS, "10c", _foreign_frame(e5, R.E4M3, "entropy"))
    add("f32_frame_of_f16_width", CS, "10b", _relabel_frame(
        _named(valid, "f32_auto_kv")[2], R.FP16.code))
    add("e5m2_split4_frame_relabelled_e4m3", UF, "10b", _relabel_frame(e5s, R.E4M3.code))
    add("f16_frame_chunk_log2_11", CS, "10c", _frame_log2(f16s, R.FP16, 11))
    # ---- step 12: bodies and checksums
    add("e4m3_raw_page_byte", "ERROR_CONTENT_CHECKSUM", 12,
        xor(e4r, read_structure(e4r)["raw_offset"] + 1100, 0x04))
    add("f32_raw_page_byte", "ERROR_CONTENT_CHECKSUM", 12,
        xor(f32r, read_structure(f32r)["raw_offset"] + 401, 0x01))
    add("f16_frame_body_low_byte", "ERROR_CONTENT_CHECKSUM", 12, _flip_rest(f16, R.FP16, 1))
    add("e5m2_split4_frame_body_plane_bit", "ERROR_CONTENT_CHECKSUM", 12,
        _flip_rest(e5s, R.E5M2, 0))
    add("e4m3_frame_body_rest_nibble", "ERROR_CONTENT_CHECKSUM", 12, _flip_rest(e4, R.E4M3, 0))
    add("f16_raw_checksum_without_raw_pages", "ERROR_CONTENT_CHECKSUM", 12,
        _raw_checksum_of(f16, 1))
    return out


def _stream_size_width(s, w, pad=False):
    """Stream_Size computed with elements of w bytes; pad: the bytes appended to reach it
    (bytes after the stream are ignored, so step 7 passes)."""
    hd = read_structure(s)
    size = hd["raw_offset"] + w * hd["raw_elems"]
    assert size != hd["stream_size"]
    b = bytearray(s)
    struct.pack_into("<Q", b, 32, size)
    if pad and size > len(b):
        b += bytes(size - len(b))
    return reseal(b)


def _as_v2(s):
    b = bytearray(s)
    b[4], b[52] = 2, 0
    return reseal(b)


def _relabel_frame(s, code):
    """The first frame's Dtype byte changed and its header checksum recomputed (the stream's
    checksums do not cover the frames)."""
    pos = _frame_offset(s)
    b = bytearray(s)
    b[pos + 5] = code
    b[pos:pos + 64] = R.reseal(b[pos:pos + 64])
    return b


def _foreign_frame(s, other, enc):
    """The stream's (only) frame replaced by a frame of the dtype other of the same element
    patterns (same width) or of as many elements (another width), every size and checksum of
    the stream recomputed."""
    hd, _, frames, _ = _parts(s)
    assert len(frames) == 1
    n = hd["coded_elems"]
    v = read_pages(s)[1]
    coded = np.concatenate([p for p, r in zip(v, hd["raw"]) if not r])
    if other.width == hd["dt"].width:
        elems = coded.astype(other.np)
    else:
        elems = R.kv_like(other, n, 77)
    f = R.encode(other, elems, hd["log2"], bool(hd["checksum"]), enc)
    assert f[6] == hd["encoding"]
    return _reassemble(s, frames=[f])


def _frame_log2(s, dt, log2):
    """The frame encoded again with another Chunk_Log2 (the same codebook), stream resealed."""
    hd, _, frames, _ = _parts(s)
    fh = hd["frames"][0][1]
    v = read_pages(s)[1]
    coded = np.concatenate([p for p, r in zip(v, hd["raw"]) if not r])
    f = R.encode(dt, coded, log2, bool(hd["checksum"]), "split4", codebook=fh["codebook"])
    assert f[6] == 1
    return _reassemble(s, frames=[f] + frames[1:])


def _flip_rest(s, dt, i):
    """A bit of rest section i of the first frame flipped (a bit of a live element, so the
    body rules hold and only the content checksum sees it)."""
    pos = _frame_offset(s)
    offs, _ = R._rest_offsets(bytes(s[pos:]), dt, s[pos + 6] == 1)
    b = bytearray(s)
    b[pos + offs[i] + 5] ^= 0x10
    return b


def _raw_checksum_of(s, value):
    hd = read_structure(s)
    assert hd["raw_elems"] == 0 and hd["checksum"]
    b = bytearray(s)
    struct.pack_into("<Q", b, 40, value)
    return reseal(b)


def write_vectors(out_dir, data):
    """Write dtypes/pages/valid and dtypes/pages/invalid under out_dir, each checked by
    read_pages first."""
    valid = valid_vectors(data)
    invalid = invalid_vectors(valid)
    vd = os.path.join(out_dir, "pages", "valid")
    idir = os.path.join(out_dir, "pages", "invalid")
    os.makedirs(vd, exist_ok=True)
    os.makedirs(idir, exist_ok=True)
    for i, (name, dt, pages, s, want) in enumerate(valid, 1):
        check_valid(name, s, dt, pages, want)
        base = os.path.join(vd, "%04d_%s" % (i, name))
        open(base + ".szpg", "wb").write(s)
        content = np.concatenate([np.zeros(0, dtype=dt.np)] + pages)
        open(base + dt.ext, "wb").write(content.astype("<u%d" % dt.width).tobytes())
    for i, (name, status, step, b) in enumerate(invalid, 1):
        check_invalid(name, b, status, step)
        open(os.path.join(idir, "%04d_%s.%s.szpg" % (i, name, status)), "wb").write(b)
    return len(valid), len(invalid)


def check_valid(name, s, dt, pages, want=None):
    """A valid stream: it decodes to its pages, re-encodes from its header (and first table
    when its name says fixed) into the same bytes, and says what its name says."""
    got_dt, got, hd = read_pages(s)
    assert got_dt is dt, name
    assert len(got) == len(pages), name
    for a, b in zip(got, pages):
        assert a.dtype == dt.np and np.array_equal(a, b), name + ": a page differs"
    assert hd["version"] == version_of(dt), name
    fixed = "fixed" in name
    assert hd["fixed"] == fixed and (hd["table_id"] != 0) == fixed, name
    if want is not None:
        assert hd["encoding"] == want, "%s: Encoding %d" % (name, hd["encoding"])
    for word, mode in MODES.items():
        if word in name.split("_"):
            assert hd["encoding"] == mode, name
    if fixed:
        assert hd["frames"] and hd["frames"][0][1]["mode"] == hd["encoding"], \
            name + ": the first frame must carry the table"
    if "raw" in name:
        assert any(hd["raw"][i] and hd["elems"][i] for i in range(len(pages))), name
    if "stored_frame" in name:
        assert all(fh["mode"] == 0 for _, fh in hd["frames"]), name
    assert (("no_checksum" in name) == (not hd["checksum"])), name
    m = max([dt.width * len(p) for p in pages] + [0])
    assert len(s) <= bound(len(pages), m, dt.width), name + ": above the bound"
    _, _, again = reencode(s, fixed)
    assert again == s, name + ": re-encoded from its header, the stream differs"


def check_invalid(name, b, status, step):
    try:
        read_pages(b)
    except R.Reject as r:
        assert r.status == status, "%s: %s, not %s" % (name, r, status)
        assert str(r).split(": ")[1] == "step " + step, "%s: %s, not step %s" % (name, r, step)
        return
    raise AssertionError(name + ": accepted")


# ---- self-test ----------------------------------------------------------------------------------

def check_v2_vectors(vdir):
    """Every version 2 golden stream of tests/vectors/pages decodes to its content and is
    re-encoded from its header into the same bytes; every invalid one gets its status."""
    d = os.path.join(vdir, "pages", "valid")
    count = 0
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".szpg"):
            continue
        s = open(os.path.join(d, fn), "rb").read()
        raw = np.fromfile(os.path.join(d, fn[:-5] + ".bf16"), dtype="<u2")
        dt, pages, again = reencode(s, "fixed" in fn)
        assert dt is R.BF16
        assert np.array_equal(np.concatenate([raw[:0]] + pages), raw), fn
        assert again == s, fn + ": re-encoded from its header, the stream differs"
        count += 1
    # the statuses of a decoder of version 2 only (BF16) and of one of every dtype: the same
    # (0006_version_3 is resealed with Dtype 0: step 2 for the one, step 4 for the other)
    d = os.path.join(vdir, "pages", "invalid")
    for fn in sorted(os.listdir(d)):
        status = fn.split(".")[-2]
        b = open(os.path.join(d, fn), "rb").read()
        for known, want in (({1: R.BF16}, status),
                            (None, status)):
            try:
                read_pages(b, known=known)
                raise AssertionError(fn + ": accepted")
            except R.Reject as r:
                assert r.status == want, "%s: %s" % (fn, r)
        count += 1
    assert count >= 30, "too few version 2 page vectors"
    return count


def check_two_frames():
    """More than 2^24 coded elements of an 8-bit dtype (E5M2, split4): two frames, the first
    of exactly 2^24 elements, both with the stream's codebook; the rules between frames of
    §12.5 step 10 (14 MB in memory, not a file)."""
    dt = R.E5M2
    n = FRAME_ELEMS + 3000
    v = R.join(dt, 14 + (np.arange(n, dtype=np.int64) * 5) % 3,
               [np.arange(n, dtype=np.int64) & 7])
    pages = [v[i:i + (1 << 22)] for i in range(0, n, 1 << 22)]
    pages.insert(2, R.splitmix(7, 1000).astype(dt.np))          # a raw page among them
    s = encode_pages(dt, pages, "split4", 16, True)
    got_dt, got, hd = read_pages(s)
    assert all(np.array_equal(a, b) for a, b in zip(got, pages))
    assert [fh["n"] for _, fh in hd["frames"]] == [FRAME_ELEMS, 3000]
    assert [fh["mode"] for _, fh in hd["frames"]] == [1, 1]
    assert hd["raw"] == [False, False, True] + [False] * (len(pages) - 3)
    assert len(s) <= bound(len(pages), max(dt.width * len(p) for p in pages), dt.width)
    _, _, frames, _ = _parts(s)
    coded = np.concatenate([p for p, r in zip(pages, hd["raw"]) if not r])
    cb = list(hd["frames"][0][1]["codebook"])
    other = R.encode(dt, coded[FRAME_ELEMS:], 16, True, "split4", codebook=[cb[0] + 1] + cb[1:]
                     if cb[0] + 1 < cb[1] else [cb[0] - 1] + cb[1:])
    short = R.encode(dt, coded[FRAME_ELEMS:-1], 16, True, "split4", codebook=cb)
    for b, step in ((_reassemble(s, frames=[frames[0], other]), "10d"),
                    (_reassemble(s, frames=[frames[1], frames[0]]), "10c"),
                    (_reassemble(s, frames=[frames[0], short]), "10c")):
        check_invalid("two frames", b, CS, step)
    return 4


def bound(n, m, w):
    """§12.4: SPLITZIP_PAGES_BOUND for pages of w-byte elements."""
    return align64(64 + 4 * n) + n * m + 80 * (n * m // (w * FRAME_ELEMS)) + 144


def selftest(vdir):
    """Round trips of page lists of every dtype in every encoding; the version 2 vectors."""
    checks = 0
    for dt in (R.BF16, R.E4M3, R.E5M2, R.FP16, R.FP32):
        kv = R.kv_like(dt, 20000, 5)
        pages = [kv[:0], kv[:1000], R.splitmix(3, 500).astype(dt.np), kv[1000:1001],
                 kv[1001:5000], kv[5000:5000], kv[5000:20000]]
        for enc in (["split4"] if dt.split4 else []) + ["entropy", "auto"]:
            for log2 in (10, 16):
                for ck in (True, False):
                    s = encode_pages(dt, pages, enc, log2, ck)
                    got_dt, got, hd = read_pages(s)
                    assert got_dt is dt and all(np.array_equal(a, b)
                                                for a, b in zip(got, pages)), (dt.name, enc)
                    assert hd["raw"] == [True, False, True, False, False, True, False], \
                        (dt.name, enc, hd["raw"])
                    checks += 1
        # the destinations of step 11
        s = encode_pages(dt, pages, "entropy", 12)
        caps = [dt.width * len(p) for p in pages]
        read_pages(s, caps, exact=True)
        read_pages(s, caps + [5], exact=False)
        for bad, ex, status in ((caps[:-1], True, "ERROR_GEOMETRY"),
                                (caps[:2] + [caps[2] + 1] + caps[3:], True, "ERROR_GEOMETRY"),
                                (caps[:-1], False, "ERROR_DST_TOO_SMALL"),
                                (caps[:4] + [caps[4] - 1] + caps[5:], False,
                                 "ERROR_DST_TOO_SMALL")):
            try:
                read_pages(s, bad, exact=ex)
                raise AssertionError("accepted")
            except R.Reject as r:
                assert r.status == status, r
            checks += 1
    checks += check_two_frames()
    checks += check_v2_vectors(vdir)
    print("pages_ref: %d page stream round trips, statuses and version 2 re-encodings agree "
          "with FORMAT.md" % checks)
    return checks
