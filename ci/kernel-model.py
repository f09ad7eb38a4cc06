#!/usr/bin/env python3
"""The GPU kernels' resource model: reads the ptxas resources of the built CUDA module (the
`nvcc -Xptxas -v` text of each architecture) and the kernels' own constants (what
tests/gpu/gpu_kernel_table prints from backends/gpu/sz_gpu_kernel_info.cuh), and prints per
kernel: registers, static shared memory, resident blocks and occupancy per SM, the bytes a
multiprocessor has in flight, what Little's law needs, and the predicted bound and speed.
Fails (exit 1) when a budget is broken on the reference architecture:

  - a kernel below 50 % occupancy, or a streaming kernel with fewer bytes of loads in flight
    per SM than Little's law needs for its share of reads at the device's bandwidth, unless
    the table states why;
  - a kernel of the table missing from a log, or with another static shared memory than the
    table says (the table drifted from the code);
  - a spill, on any architecture.

    python3 ci/kernel-model.py --table TABLE [--ref 90] [--latency NS] LOG...
    python3 ci/kernel-model.py --self-test     planted breaks of each budget must be reported
    python3 ci/kernel-model.py --sass FILE     the hot loops of the kernels in `cuobjdump -sass`
                                               output: per loop with global loads, instructions
                                               per iteration by class, and the loop's SASS

TABLE is the JSON file or the gpu_kernel_table program (run here). Each LOG is the ptxas
output of one architecture (`nvcc -arch=sm_XX -Xptxas -v ... 2> sm_XX.log`); a directory
stands for the sm_*.log files in it. Exit 77 when no log is given or found (no CUDA build).

The model is of memory-level parallelism only: a thread's loads not yet used are what keeps
HBM busy; with B blocks of T threads per SM each holding I bytes, an SM has B*T*I bytes in
flight, and its share of the device's read bandwidth needs bandwidth/SMs * latency * reads /
(reads + writes). Issue rate and ALU work are not modelled (the Nsight Compute pass of
ci/gpu-check.sh measures them): a kernel the model calls HBM-bound may still be issue-bound.
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Per architecture: the reference device, its multiprocessors, HBM bandwidth (bytes/s, what a
# device-to-device copy reaches) and the limits occupancy depends on.
DEVICES = {
    "80": dict(gpu="A100 80GB", sms=108, bw=1.8e12, regs=65536, smem=167936, threads=2048,
               blocks=32),
    "90": dict(gpu="H200", sms=132, bw=4.3e12, regs=65536, smem=233472, threads=2048,
               blocks=32),
    "100": dict(gpu="B200", sms=148, bw=7.0e12, regs=65536, smem=233472, threads=2048,
                blocks=32),
    "120": dict(gpu="RTX 5090", sms=170, bw=1.6e12, regs=65536, smem=102400, threads=1536,
                blocks=32),
}
SMEM_RESERVED = 1024  # per block, sm_80 and later
OCC_BUDGET = 0.5

ENTRY = re.compile(r"Compiling entry function '(\w+)' for 'sm_(\d+)'")
PROPS = re.compile(r"Function properties for (\w+)")
FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"Used (\d+) registers")
SMEM = re.compile(r"(\d+) bytes smem")


def demangle(mangled):
    """_Z11sz_k_encodeILi32ELb0EEv10sz_gpu_enc -> sz_k_encode<32, false>"""
    m = re.match(r"_Z\d+(\w+?)I(.*)EEv", mangled)
    if not m:
        return mangled
    args = []
    for kind, val in re.findall(r"L([ib])(\d+)E?", m.group(2)):
        args.append(("true" if val == "1" else "false") if kind == "b" else val)
    return f"{m.group(1)}<{', '.join(args)}>"


def parse_log(path):
    """{arch: {kernel: {regs, smem, stack, spill}}} from one nvcc -Xptxas -v log."""
    out = {}
    cur = owner = None  # the entry until its "Used" line; the entry whose callees follow
    props = None
    with open(path, errors="replace") as f:
        for line in f:
            m = ENTRY.search(line)
            if m:
                cur = owner = (demangle(m.group(1)), m.group(2))
                out.setdefault(cur[1], {})[cur[0]] = dict(regs=0, smem=0, stack=0, spill=0)
                continue
            m = PROPS.search(line)
            if m:
                props = demangle(m.group(1))
                continue
            m = FRAME.search(line)
            if m and owner:  # the entry's own frame, or a function it calls (spills count)
                k = out[owner[1]][owner[0]]
                if props == owner[0]:
                    k["stack"] = int(m.group(1))
                k["spill"] += int(m.group(2)) + int(m.group(3))
                continue
            m = USED.search(line)
            if m and cur:
                k = out[cur[1]][cur[0]]
                k["regs"] = int(m.group(1))
                s = SMEM.search(line)
                k["smem"] = int(s.group(1)) if s else 0
                cur = None
    return out


def occupancy(dev, regs, smem, threads):
    """Resident blocks per SM and the share of the SM's warp slots they fill (CUDA's
    occupancy rules: registers per warp rounded up to 256, shared memory in 128-byte units
    plus the block's reserve)."""
    warps = threads // 32
    per_warp = -(-regs * 32 // 256) * 256 if regs else 0
    by_regs = (dev["regs"] // per_warp) // warps if per_warp else dev["blocks"]
    by_smem = dev["smem"] // (-(-smem // 128) * 128 + SMEM_RESERVED)
    blocks = min(by_regs, by_smem, dev["threads"] // threads, dev["blocks"])
    return blocks, blocks * warps / (dev["threads"] // 32)


def model(dev, k, blocks, threads, latency):
    """Bytes in flight per SM, what Little's law needs, predicted GB/s of input, bound."""
    inflight = blocks * threads * k["inflight"]
    r, w = k["read"], k["write"]
    if k["kind"] != "stream" or r <= 0:
        return inflight, 0, None, "-"
    need = dev["bw"] / dev["sms"] * latency * r / (r + w)
    by_mlp = dev["sms"] * inflight / latency * (r + w) / r  # total bytes/s the loads allow
    total = min(dev["bw"], by_mlp)
    gbs = total * 2 / (r + w) / 1e9  # input bytes: 2 per element
    bound = "HBM" if by_mlp >= dev["bw"] else "bytes in flight"
    return inflight, need, gbs, bound


def load_table(arg):
    if os.access(arg, os.X_OK) and not arg.endswith(".json"):
        text = subprocess.run([arg, "--warp", "32"], check=True, capture_output=True,
                              text=True).stdout
    else:
        with open(arg) as f:
            text = f.read()
    return json.loads(text)


def log_files(args):
    files = []
    for a in args:
        if os.path.isdir(a):
            files += sorted(os.path.join(a, n) for n in os.listdir(a)
                            if re.match(r"sm_\d+\.log$", n))
        elif os.path.isfile(a):
            files.append(a)
    return files


def self_test():
    """A log and a table with one break of each budget: each must be reported."""
    import tempfile
    log = ""
    for name, regs, smem, spill in (("_Z4sz_aILi32EEv1x", 64, 1000, 0),
                                    ("_Z4sz_bILi32EEv1x", 128, 1000, 0),
                                    ("_Z4sz_cILi32EEv1x", 40, 2000, 0),
                                    ("_Z4sz_dILi32EEv1x", 40, 0, 8)):
        log += (f"ptxas info    : Compiling entry function '{name}' for 'sm_90'\n"
                f"ptxas info    : Function properties for {name}\n"
                f"    0 bytes stack frame, {spill} bytes spill stores, 0 bytes spill loads\n"
                f"ptxas info    : Used {regs} registers, used 1 barriers, {smem} bytes smem\n")
    k = dict(kind="stream", blocks=4, inflight=32, read=2.0, write=1.5, why=None)
    table = {"warp": 32, "threads": 256, "kernels": [
        dict(k, name="sz_a<32>", smem=1000),                 # fine
        dict(k, name="sz_b<32>", smem=1000),                 # 25 % occupancy
        dict(k, name="sz_c<32>", smem=1000, inflight=2),     # table smem; bytes in flight
        dict(k, name="sz_d<32>", smem=0),                    # spills
        dict(k, name="sz_e<32>", smem=0)]}                   # not in the log
    want = ["sz_b<32>: occupancy 25.0%", "sz_c<32>: 2000 bytes of shared memory",
            "sz_c<32>: 3.0 KiB of loads in flight", "sz_d<32>: 8 bytes of spills",
            "sz_e<32>: in the kernel table, not in"]
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "sm_90.log"), "w") as f:
            f.write(log)
        with open(os.path.join(d, "t.json"), "w") as f:
            json.dump(table, f)
        r = subprocess.run([sys.executable, __file__, "--table", os.path.join(d, "t.json"), d],
                           capture_output=True, text=True)
    missing = [w for w in want if w not in r.stderr]
    extra = [e for e in r.stderr.splitlines() if not any(w in e for w in want)]
    ok = r.returncode == 1 and not missing and not extra and "`sz_a<32>`" in r.stdout
    for w in missing:
        print(f"self-test: not reported: {w}")
    for e in extra:
        print(f"self-test: unexpected: {e}")
    print(f"kernel-model self-test: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


SASS_FN = re.compile(r"Function : (\w+)")
SASS_INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
# Instruction classes by opcode (the first word after an optional predicate).
CLASSES = [("global load", r"^LDG"), ("global store", r"^STG"), ("shared", r"^(LDS|STS|ATOMS)"),
           ("warp", r"^(SHFL|VOTE|MATCH|REDUX)"), ("barrier", r"^(BAR|WARPSYNC)"),
           ("branch", r"^(BRA|BSSY|BSYNC|EXIT)"),
           ("integer", r"^U?(IADD|IMAD|LOP|SHF|PRMT|LEA|SEL|ISETP|IABS|POPC|FLO|BREV|BMSK|"
                       r"SGXT|IMNMX|VIMNMX|I2|MOV|P2R|R2P|PLOP|CS2R|S2R|S2UR|LDC)")]


def opcode(text):
    return re.sub(r"^@!?U?P\w+\s+", "", text).split(" ", 1)[0]


def klass(text):
    """The first class whose pattern the instruction's opcode matches, or None."""
    op = opcode(text)
    for c, rx in CLASSES:
        if re.search(rx, op):
            return c
    return None


def sass_loops(path):
    """Per kernel, the loops (a backward branch and its target) that hold global loads: the
    instructions of one iteration by class, and their text."""
    kernels, cur = {}, None
    for line in open(path, errors="replace"):
        m = SASS_FN.search(line)
        if m:
            cur = demangle(m.group(1))
            kernels[cur] = []
            continue
        m = SASS_INS.search(line)
        if m and cur:
            kernels[cur].append((int(m.group(1), 16), m.group(2)))
    out = {}
    for name, ins in kernels.items():
        loops = []
        for addr, text in ins:
            b = re.search(r"BRA\s+(?:`\()?(?:\.L_x_\d+|0x([0-9a-f]+))", text)
            if b and b.group(1) and int(b.group(1), 16) < addr:
                body = [(a, t) for a, t in ins if int(b.group(1), 16) <= a <= addr]
                if any(re.search(CLASSES[0][1], opcode(t)) for _, t in body):
                    loops.append(body)
        out[name] = loops
    return out


def print_sass(path):
    loops = sass_loops(path)
    print("| kernel | loop at | instructions | " + " | ".join(c for c, _ in CLASSES) + " |")
    print("|---|---|---:|" + "---:|" * len(CLASSES))
    for name in sorted(loops):
        for body in loops[name]:
            n = [sum(1 for _, t in body if klass(t) == c) for c, _ in CLASSES]
            print(f"| `{name}` | 0x{body[0][0]:x} | {len(body)} | " +
                  " | ".join(str(x) for x in n) + " |")
    for name in sorted(loops):
        for body in loops[name]:
            print(f"\n{name}, loop at 0x{body[0][0]:x} ({len(body)} instructions):")
            for a, t in body:
                print(f"    /*{a:04x}*/ {t}")
    return 0


def main():
    if "--self-test" in sys.argv[1:]:
        return self_test()
    if len(sys.argv) == 3 and sys.argv[1] == "--sass":
        return print_sass(sys.argv[2])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--ref", default="90", help="architecture whose budgets are checked")
    ap.add_argument("--latency", type=float, default=800, help="loaded HBM latency, ns")
    ap.add_argument("logs", nargs="*")
    args = ap.parse_args()
    files = log_files(args.logs)
    if not files:
        print("kernel-model: no ptxas log (a build with the CUDA module writes them)")
        return 77
    table = load_table(args.table)
    threads = table["threads"]
    kernels = {k["name"]: k for k in table["kernels"]}
    res = {}
    for f in files:
        for arch, ks in parse_log(f).items():
            res.setdefault(arch, {}).update(ks)
    errors = []
    for arch, ks in sorted(res.items()):
        for name, r in sorted(ks.items()):
            if r["spill"]:
                errors.append(f"sm_{arch} {name}: {r['spill']} bytes of spills")
    ref = args.ref if args.ref in res else sorted(res)[-1]
    dev = DEVICES.get(ref, DEVICES["90"])
    lat = args.latency * 1e-9
    rows = []
    for name in sorted(set(kernels) | set(res[ref]), key=lambda n: (n.replace("sz_k_", ""), n)):
        k = kernels.get(name)
        r = res[ref].get(name)
        if r is None:
            errors.append(f"{name}: in the kernel table, not in the sm_{ref} log")
            continue
        blocks, occ = occupancy(dev, r["regs"], r["smem"], threads)
        if k is None:  # a kernel the table does not describe (page streams): occupancy only
            k = dict(kind="-", inflight=0, read=0, write=0, why=None, blocks=0, smem=r["smem"])
        elif k["smem"] != r["smem"]:
            errors.append(f"{name}: {r['smem']} bytes of shared memory, the table says "
                          f"{k['smem']}")
        inflight, need, gbs, bound = model(dev, k, blocks, threads, lat)
        why = k.get("why")
        if occ < OCC_BUDGET and not why:
            errors.append(f"{name}: occupancy {occ:.1%} on sm_{ref} (< {OCC_BUDGET:.0%}) "
                          "and no reason in the table")
        if k["kind"] == "stream" and inflight < need and not why:
            errors.append(f"{name}: {inflight / 1024:.1f} KiB of loads in flight per SM, "
                          f"Little's law needs {need / 1024:.1f} KiB (sm_{ref}), and no reason "
                          "in the table")
        regs = {a: res[a].get(name, {}).get("regs", "-") for a in sorted(res)}
        rows.append((name, k, r, regs, blocks, occ, inflight, need, gbs, bound, why))
    archs = sorted(res)
    print(f"Kernel model: sm_{ref} ({dev['gpu']}, {dev['sms']} SMs, {dev['bw'] / 1e12:.1f} "
          f"TB/s, {args.latency:.0f} ns loaded latency), {threads} threads per block")
    print()
    print("| kernel | kind | " + " | ".join(f"sm_{a} regs" for a in archs) +
          f" | smem | blocks/SM | occupancy | in flight/SM | needs | predicted GB/s | bound |")
    print("|---|---|" + "---:|" * (len(archs) + 5) + "---:|---|")
    for name, k, r, regs, blocks, occ, inflight, need, gbs, bound, why in rows:
        inf = f"{inflight / 1024:.1f} KiB" if k["kind"] == "stream" else "-"
        nd = f"{need / 1024:.1f} KiB" if need else "-"
        g = f"{gbs:.0f}" if gbs else "-"
        note = f" ({why})" if why else ""
        print(f"| `{name}` | {k['kind']} | " + " | ".join(str(regs[a]) for a in archs) +
              f" | {r['smem']} B | {blocks} | {occ:.1%} | {inf} | {nd} | {g} | {bound}{note} |")
    if errors:
        print()
        for e in errors:
            print(f"kernel-model: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
