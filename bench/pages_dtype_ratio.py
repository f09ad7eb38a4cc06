#!/usr/bin/env python3
"""pages_dtype_ratio.py -- the ratio of page streams of FP16, FP32 and FP8 pages (doc/FORMAT.md
§12, version 3) against one frame over the same bytes, entropy mode, checksums on, at pages of
1, 2 and 8 KiB: every whole page of each tensor, and the frame over exactly those pages.
Deterministic (no timing). doc/BENCHMARKS.md ("Page streams of the other dtypes") has the table.

    SPLITZIP_LIBRARY=build/libsplitzip.so /usr/bin/python3 bench/pages_dtype_ratio.py \\
        ../shared/data/nativekv [FP8_DIR]

FP8_DIR: the FP8 tensors `bench/dtype_study.py --write-fp8 FP8_DIR` derives (the amax scale).
"""
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import splitzip  # noqa: E402

PAGES = (1024, 2048, 8192)


def inputs(native, fp8):
    out = [(os.path.join(native, f), f.rsplit(".", 1)[1]) for f in sorted(os.listdir(native))
           if f.endswith((".f16", ".f32"))]
    if fp8:
        out += [(os.path.join(fp8, f), f.rsplit(".", 1)[1]) for f in sorted(os.listdir(fp8))
                if ".amax." in f]
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    print("| tensor | dtype | " + " | ".join(f"{p // 1024} KiB: stream | frame | stream / frame"
                                          for p in PAGES) + " |")
    print("|---|---|" + "---:|---:|---:|" * len(PAGES))
    for path, dt in inputs(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None):
        b = np.fromfile(path, dtype=np.uint8)
        cells = []
        for page in PAGES:
            n = b.nbytes // page
            pages = [b[i * page:(i + 1) * page] for i in range(n)]
            s = splitzip.compress_pages(pages, mode="entropy", dtype=dt)
            f = splitzip.compress(b[:n * page], dtype=dt, mode="entropy")
            back = [np.empty(page, np.uint8) for _ in range(n)]
            splitzip.decompress_pages(s, back)
            assert all(np.array_equal(x, y) for x, y in zip(back, pages)), path
            rs, rf = n * page / len(s), n * page / len(f)
            cells += [f"{rs:.4f}x", f"{rf:.4f}x", f"{rs / rf:.3f}"]
        name = os.path.basename(path).rsplit(".", 1)[0]
        print(f"| {name} | {dt} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
