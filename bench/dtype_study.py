#!/usr/bin/python3
"""dtype_study.py -- the compression ratios of the frames of doc/FORMAT.md 1.3 for FP16, FP32,
FP8 E4M3 and FP8 E5M2 on real K/V tensors, next to their order-0 bounds.

    bench/dtype_study.py [--data DIR] [--chunks 10,12,14,16] [--markdown] [--reference]
                         [--write-fp8 OUT_DIR]

DIR (default ../shared/data/nativekv next to the repository) holds the tensors of its
README.md: Llama-2-7B and Llama-3-8B layer-10 K/V as FP16, GPT-2 K/V as FP32. FP8 is derived
from the FP16 files as serving engines make it: each value divided by a per-tensor scale (the
quotient in float32), saturated at the format's largest finite value (448 for E4M3, 57344 for
E5M2), rounded to nearest, ties to even; at the scale amax/fmax and at 1.0.

Every frame is written by the C library (the Python binding, splitzip.compress with the
dtype) and decoded again by it and compared with the input as integers; a ratio is the input's
bytes over the frame's bytes. With --reference, each entropy frame at L = 14 is also written by
the reference encoder of tests/vectors/dtype_ref.py (numpy, written from FORMAT.md) and must be
the same bytes. --write-fp8 writes the derived FP8 tensors (NAME.amax.e4m3, NAME.1.0.e5m2, ...)
for bench/sz_dtype_bench.c.
Per tensor: H, the order-0 entropy of the exponent field (bits); the order-0 bound, the ratio
with an ideally coded exponent and every other bit stored (w / (w - e + H) for w-bit elements
with e-bit exponents); the fixed 4-bit-code ceiling w / (w - e + 4); split4 (tables from the
input); entropy at each chunk size; auto at L = 14 (the encoder's default); and entropy at
L = 14 as a fraction of the bound. Exits nonzero if a frame does not round-trip or an entropy
ratio at L = 14 misses the targets (FP16 1.13, E4M3 1.14, E5M2 1.33, FP32 1.16, each within 2 %
of its bound).
"""
import argparse
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "vectors"))
import dtype_ref as R  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "python"))
import splitzip  # noqa: E402

TARGET = {"f16": 1.13, "e4m3": 1.14, "e5m2": 1.33, "f32": 1.16}
FILES = ["llama2-7b-chat_L10_K.f16", "llama2-7b-chat_L10_V.f16",
         "llama3-8b-instruct_L10_K.f16", "llama3-8b-instruct_L10_V.f16",
         "gpt2-124m_allL_K.f32", "gpt2-124m_allL_V.f32"]


def tensors(data):
    """(label, dtype, elements) of every file and of the FP8 derived from the FP16 ones."""
    for fn in FILES:
        path = os.path.join(data, fn)
        if fn.endswith(".f32"):
            yield fn, R.FP32, np.fromfile(path, dtype="<u4")
            continue
        v = np.fromfile(path, dtype="<u2")
        yield fn, R.FP16, v
        x = v.view(np.float16).astype(np.float32)
        amax = np.float32(np.abs(x).max())
        for dt in (R.E4M3, R.E5M2):
            fmax = np.float32(R.FP8_FORMATS[dt.code][3])
            yield fn + " amax", dt, R.to_fp8(x, dt, amax / fmax)
            yield fn + " 1.0", dt, R.to_fp8(x, dt, 1.0)


MODES = {"stored": 0, "split4": 1, "entropy": 2}
REFERENCE = False


def ratio(dt, v, log2, encoding):
    v = np.ascontiguousarray(v.astype(dt.np))
    f = splitzip.compress(v.view(np.uint8), dtype=dt.name, mode=encoding, chunk_log2=log2,
                          checksum=True)
    got = np.asarray(splitzip.decompress(f)).view(dt.np)
    if splitzip.frame_info(f)["dtype"] != dt.name or not np.array_equal(got, v):
        raise SystemExit("dtype_study: %s %s L=%d does not round-trip" % (dt.name, encoding, log2))
    if REFERENCE and log2 == 14 and encoding == "entropy" and \
            R.encode(dt, v, log2, True, encoding) != f:
        raise SystemExit("dtype_study: %s L=14: the library and dtype_ref.py differ" % dt.name)
    return dt.width * len(v) / len(f), MODES[splitzip.frame_info(f)["mode"]]


def order0(dt, v):
    h = R.histogram(dt, v).astype(np.float64)
    p = h[h > 0] / h.sum()
    ent = float(-(p * np.log2(p)).sum())
    w = 8 * dt.width
    ceiling = w / (w - dt.ebits + 4) if dt.ebits > 4 else float("nan")
    return ent, w / (w - dt.ebits + ent), ceiling


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "shared", "data",
                                                   "nativekv"))
    ap.add_argument("--chunks", default="10,12,14,16")
    ap.add_argument("--markdown", action="store_true", help="a table for doc/BENCHMARKS.md")
    ap.add_argument("--reference", action="store_true",
                    help="also encode with dtype_ref.py at L = 14 and compare the bytes")
    ap.add_argument("--write-fp8", metavar="DIR", help="write the derived FP8 tensors there")
    a = ap.parse_args()
    global REFERENCE
    REFERENCE = a.reference
    chunks = [int(c) for c in a.chunks.split(",")]
    if 14 not in chunks:
        chunks.append(14)
    rows, misses = [], []
    for label, dt, v in tensors(a.data):
        if a.write_fp8 and dt.width == 1:
            os.makedirs(a.write_fp8, exist_ok=True)
            name = label.replace(".f16 ", ".") + "." + dt.name
            v.astype(np.uint8).tofile(os.path.join(a.write_fp8, name))
        ent, bound, ceil4 = order0(dt, v)
        s4 = ratio(dt, v, 12, "split4")[0] if dt.split4 else float("nan")
        ent_r = {L: ratio(dt, v, L, "entropy")[0] for L in chunks}
        auto, mode = ratio(dt, v, 14, "auto")
        frac = ent_r[14] / bound
        rows.append((label, dt.name, len(v), ent, bound, ceil4, s4, ent_r, auto, mode, frac))
        if ent_r[14] < TARGET[dt.name] or frac < 0.98:
            misses.append("%s %s: entropy %.4f (target %.2f), %.2f %% of the bound" %
                          (label, dt.name, ent_r[14], TARGET[dt.name], 100 * frac))
        sys.stdout.flush()
    show(rows, chunks, a.markdown)
    if misses:
        print("dtype_study: targets missed:\n  " + "\n  ".join(misses))
        return 1
    print("dtype_study: every frame round-trips; every entropy ratio at L = 14 meets its "
          "target and is within 2 % of its bound")
    return 0


def show(rows, chunks, markdown):
    names = {0: "stored", 1: "split4", 2: "entropy"}
    head = (["tensor", "dtype", "n", "H", "bound", "4-bit ceiling", "split4 L=12"] +
            ["entropy L=%d" % L for L in sorted(chunks)] + ["auto L=14", "entropy/bound"])
    fmt = lambda x: "—" if isinstance(x, float) and math.isnan(x) else "%.4f" % x  # noqa: E731
    lines = []
    for label, dt, n, ent, bound, ceil4, s4, ent_r, auto, mode, frac in rows:
        cells = [label, dt, str(n), "%.3f" % ent, fmt(bound), fmt(ceil4), fmt(s4)]
        cells += [fmt(ent_r[L]) for L in sorted(chunks)]
        cells += ["%s (%s)" % (fmt(auto), names[mode]), "%.2f %%" % (100 * frac)]
        lines.append(cells)
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|")
        for c in lines:
            print("| " + " | ".join(c) + " |")
        return
    width = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(head)]
    for c in [head] + lines:
        print("  ".join(x.ljust(width[i]) if i < 2 else x.rjust(width[i])
                        for i, x in enumerate(c)))


if __name__ == "__main__":
    sys.exit(main())
