#!/usr/bin/env python3
"""cpu_targets.py -- the CPU speed targets of doc/BENCHMARKS.md ("CPU targets"), measured the
way they are defined: `splitzip bench --json` several times in a row, each figure a ratio to
memcpy of the same buffer in the same run, and the table of the ranges over the runs (median
in bold). Standard library only; any python3.

    python3 bench/cpu_targets.py build/tools/splitzip [--runs 3] [--sizes 256M]
        [--threads 1] [--backends avx512vbmi,avx2] [--modes split4,entropy] [--repeats 5]
        [--baseline OTHER_SPLITZIP] [--data PATH] [--scaling]

With --baseline, each run measures the other build right after this one (alternating, so that
both see the same machine), and the table has a row per build. With --scaling, each run measures
one thread and two in the same bench call, and the table gives the two-thread rate over the
one-thread rate of the same run (memcpy's too). Reads nothing but what the
bench prints; the data is the bench's own default (the real KV of ../shared/data/kv, tiled).
"""
import argparse
import json
import statistics
import subprocess
import sys


def run(cli, a):
    cmd = [cli, "bench", "--json", "--no-ref", "--sizes", a.sizes, "--threads", a.threads,
           "--repeats", str(a.repeats), "--modes", a.modes]
    if a.backends:
        cmd += ["--backends", a.backends]
    if a.data:
        cmd += ["--data", a.data]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["results"]


def fmt(values, mc):
    """'median GB/s = ratio x (min-max)' of a list of (gbps, memcpy_gbps) pairs."""
    r = [v / m for v, m in zip(values, mc)]
    g = statistics.median(values)
    return (f"{g:.2f} = **{statistics.median(r):.2f}x** ({min(r):.2f}-{max(r):.2f})"
            if len(r) > 1 else f"{g:.2f} = **{r[0]:.2f}x**")


def scaling(a):
    acc = {}
    a.threads = "1,2"
    for i in range(a.runs):
        rs = run(a.cli, a)
        by = {(r["size"], r["backend"], r["mode"], r["threads"]): r for r in rs}
        for (size, b, m, t), r in by.items():
            if t != 2:
                continue
            r1 = by[(size, b, m, 1)]
            for f in ("encode_gbps", "encode_fixed_gbps", "decode_gbps", "memcpy_gbps"):
                acc.setdefault((size, b, m), {}).setdefault(f, []).append(r[f] / r1[f])
        print(f"run {i + 1}/{a.runs} done", file=sys.stderr)
    print("| size | backend | mode | encode from input | encode, fixed | decode | memcpy |")
    print("|---:|---|---|---:|---:|---:|---:|")
    for key in sorted(acc):
        cells = [f"**{statistics.median(v):.2f}x** ({min(v):.2f}-{max(v):.2f})"
                 for v in (acc[key][f] for f in ("encode_gbps", "encode_fixed_gbps",
                                                 "decode_gbps", "memcpy_gbps"))]
        print(f"| {key[0] >> 20} MiB | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="256M")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--backends", default="avx512vbmi,avx2")
    ap.add_argument("--modes", default="split4,entropy")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline")
    ap.add_argument("--data", help="passed to the bench (default: its own, ../shared/data/kv)")
    ap.add_argument("--scaling", action="store_true",
                    help="two threads over one, per run (ignores --threads and --baseline)")
    a = ap.parse_args()
    if a.scaling:
        scaling(a)
        return
    builds = [("new", a.cli)] + ([("baseline", a.baseline)] if a.baseline else [])
    rows = {}
    for i in range(a.runs):
        for name, cli in (builds if i % 2 == 0 else builds[::-1]):
            for r in run(cli, a):
                key = (name, r["size"], r["threads"], r["backend"], r["mode"])
                rows.setdefault(key, []).append(r)
            print(f"run {i + 1}/{a.runs} {name} done", file=sys.stderr)
    print("| build | size | threads | backend | mode | encode from input | encode, fixed "
          "| decode | memcpy |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|")
    for key in sorted(rows, key=lambda k: (k[1], k[2], k[3], k[4], k[0])):
        rs = rows[key]
        mc = [r["memcpy_gbps"] for r in rs]
        size = key[1] >> 20
        print(f"| {key[0]} | {size} MiB | {key[2]} | {key[3]} | {key[4]} | "
              f"{fmt([r['encode_gbps'] for r in rs], mc)} | "
              f"{fmt([r['encode_fixed_gbps'] for r in rs], mc)} | "
              f"{fmt([r['decode_gbps'] for r in rs], mc)} | "
              f"{min(mc):.1f}-{max(mc):.1f} |")


if __name__ == "__main__":
    main()
