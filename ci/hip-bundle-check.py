#!/usr/bin/env python3
"""Checks the AMD code objects inside the HIP module (libsplitzip_hip.so) and prints their
resource table.

    python3 ci/hip-bundle-check.py MODULE [--targets "gfx90a;gfx942;gfx1100;gfx1200"]
                                          [--vgpr-budget 96] [--update-doc doc/BENCHMARKS.md]

The module's .hip_fatbin section is a clang offload bundle: one code object per target. It is
listed with clang-offload-bundler, each code object is unbundled and its kernel metadata read
with llvm-readelf --notes and its instructions with llvm-objdump. The check fails when
  - a target of --targets has no code object;
  - a code object's wavefront size is not the target's default (64 on gfx9, 32 on gfx10 and
    later) or a kernel's metadata disagrees with it;
  - a kernel template instantiated for warp size W is not the full kernel where W is the
    wavefront size, or not an empty trap stub elsewhere (the build-time choice of W: the host
    then launches the W its device reports, sz_gpu_kernel_width);
  - a live kernel uses scratch (private segment > 0, a dynamic stack, VGPR spills), has flat_*
    memory instructions (global memory must be reached through global_*), or more VGPRs than
    --vgpr-budget (--vgpr-budget-for KERNEL=N: another budget for one kernel template).

SGPR spills go to VGPR lanes, not to scratch: reported, not failed.

VGPR budget 96 (doc/AMD.md): CDNA2/3 (gfx90a, gfx942) have 512 VGPRs per SIMD lane and 8 wave
slots, so 96 keeps at least 5 waves of 64 per SIMD (5 resident 256-thread blocks per CU, more
than the 3 per SM the CUDA build asks for); RDNA3/4 (gfx1100, gfx1200) have 1536 per lane and
16 wave32 slots, so 96 is the most that keeps all 16.

Tools: clang-offload-bundler, llvm-readelf, llvm-objcopy, llvm-objdump, with a -19 .. -22 suffix
(Debian clang-tools-19, llvm-19) or from $ROCM_PATH/llvm/bin; LLVM_BIN names a folder to use
first. Exit status: 0 passed, 1 failed, 77 a tool is missing (ctest: skipped; 1 instead when
SZ_REQUIRE_HIP_TOOLS=1, as in CI). --expect REGEX (repeatable) inverts the check for its
self-test: it passes only if each REGEX matches a failure.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = ("clang-offload-bundler", "llvm-readelf", "llvm-objcopy", "llvm-objdump")
KERNEL_W_RE = re.compile(r"^_Z\d+(\w+?)ILi(32|64)E")
MD_KEY_RE = re.compile(r"^(  - |    )\.(\w+):\s*(.*)$")
BEGIN, END = "<!-- hip-bundle:begin -->", "<!-- hip-bundle:end -->"


def find_tool(name):
    dirs = [os.environ.get("LLVM_BIN", "")]
    for root in (os.environ.get("ROCM_PATH", ""), "/opt/rocm"):
        if root:
            dirs.append(os.path.join(root, "llvm", "bin"))
    for d in dirs:
        if d and os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    for suffix in ("-19", "-20", "-21", "-22", ""):
        path = shutil.which(name + suffix)
        if path:
            return path
    return None


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def wave_of(target):
    """The default wavefront size of a processor: 64 up to gfx9 (GCN, CDNA), 32 from gfx10."""
    digits = re.match(r"gfx(\d*)", target).group(1)
    return 32 if len(digits) >= 4 or digits in ("10", "11", "12") else 64


def waves_per_simd(target, vgprs, sgprs):
    """Occupancy in waves per SIMD from registers (LLVM's model), or None if not tabled."""
    proc = target.split(":")[0]
    if proc in ("gfx90a", "gfx942"):
        by_v = min(8, 512 // max(8, -(-vgprs // 8) * 8))
        sgpr_steps = ((80, 10), (88, 9), (100, 8), (112, 7), (128, 6), (144, 5), (168, 4))
        by_s = next((w for lim, w in sgpr_steps if sgprs <= lim), 3)
        return min(by_v, by_s)
    if proc in ("gfx1100", "gfx1101", "gfx1151", "gfx1200", "gfx1201"):
        return min(16, 1536 // max(24, -(-vgprs // 24) * 24))
    return None


def parse_metadata(notes):
    """Kernels of llvm-readelf --notes output: a list of {key: value} (top-level keys only)."""
    kernels, cur = [], None
    for line in notes.splitlines():
        m = MD_KEY_RE.match(line)
        if not m:
            continue
        if m.group(1) == "  - " or cur is None:
            cur = {}
            kernels.append(cur)
        cur[m.group(2)] = m.group(3).strip()
    return [k for k in kernels if "name" in k]


def flat_counts(disasm):
    """flat_* memory instructions per kernel symbol in llvm-objdump -d output."""
    counts, name = {}, None
    for line in disasm.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            name = m.group(1)
            counts.setdefault(name, 0)
        elif name and re.match(r"^\s+flat_", line):
            counts[name] += 1
    return counts


def list_bundle(tools, module, work):
    fatbin = os.path.join(work, "fatbin")
    run([tools["llvm-objcopy"], "--dump-section", ".hip_fatbin=" + fatbin, module,
         os.path.join(work, "module.copy")])
    ids = run([tools["clang-offload-bundler"], "--list", "--type=o", "--input=" + fatbin])
    return fatbin, [i.strip() for i in ids.split() if i.startswith("hip")]


def read_code_object(tools, fatbin, bundle_id, work):
    out = os.path.join(work, bundle_id.replace(":", "_") + ".co")
    run([tools["clang-offload-bundler"], "--unbundle", "--type=o", "--input=" + fatbin,
         "--targets=" + bundle_id, "--output=" + out])
    notes = run([tools["llvm-readelf"], "--notes", out])
    kernels = parse_metadata(notes)
    flats = flat_counts(run([tools["llvm-objdump"], "-d", out]))
    for k in kernels:
        k["flat"] = flats.get(k["name"], 0)
    m = re.search(r"amdhsa\.version:\s*\n\s*- (\d+)\s*\n\s*- (\d+)", notes)
    version = "metadata %s.%s" % m.groups() if m else "metadata version unknown"
    print("%s: %d kernels, %s" % (bundle_id, len(kernels), version))
    return kernels


def budget_of(name, args):
    """The VGPR budget of a kernel: --vgpr-budget-for its template's name, else --vgpr-budget."""
    m = KERNEL_W_RE.match(name)
    for item in args.vgpr_budget_for:
        kernel, n = item.split("=")
        if m and m.group(1) == kernel:
            return int(n)
    return args.vgpr_budget


def check_kernel(target, k, budget, errors):
    """Classifies one kernel as live or stub, records rule violations; returns the row or None."""
    wave = wave_of(target)
    name, num = k["name"], lambda key: int(k.get(key, "0"))
    where = "%s %s" % (target, name)
    if num("wavefront_size") != wave:
        errors.append("%s: wavefront size %d, expected %d" % (where, num("wavefront_size"), wave))
    m = KERNEL_W_RE.match(name)
    short = "%s<%s>" % (m.group(1), m.group(2)) if m else name
    if m and int(m.group(2)) != wave:
        if num("vgpr_count") or num("group_segment_fixed_size") or \
                num("private_segment_fixed_size"):
            errors.append("%s: W=%s on a wave%d target is not an empty stub"
                          % (where, m.group(2), wave))
        return None
    if num("private_segment_fixed_size") or k.get("uses_dynamic_stack") == "true":
        errors.append("%s: scratch (private segment %d)"
                      % (where, num("private_segment_fixed_size")))
    if num("vgpr_spill_count"):
        errors.append("%s: %d VGPRs spilled" % (where, num("vgpr_spill_count")))
    if num("vgpr_count") > budget:
        errors.append("%s: %d VGPRs > budget %d" % (where, num("vgpr_count"), budget))
    if num("vgpr_count") == 0 and num("sgpr_count") < 8:
        errors.append("%s: the live instantiation is empty" % where)
    if k["flat"]:
        errors.append("%s: %d flat_* instructions" % (where, k["flat"]))
    occ = waves_per_simd(target, num("vgpr_count"), num("sgpr_count"))
    return (target, wave, short, num("vgpr_count"), num("sgpr_count"),
            num("group_segment_fixed_size"), num("private_segment_fixed_size"),
            num("sgpr_spill_count"), "-" if occ is None else str(occ), k["flat"])


def table(rows):
    out = ["| target | wave | kernel | VGPRs | SGPRs | LDS bytes | scratch bytes | SGPR spills"
           " | waves/SIMD | flat_* |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append("| %s | %d | `%s` | %d | %d | %d | %d | %d | %s | %d |" % r)
    return "\n".join(out)


def update_doc(path, text):
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit("hip-bundle-check: %s has no %s ... %s markers" % (path, BEGIN, END))
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("module")
    ap.add_argument("--targets", default="gfx90a;gfx942;gfx1100;gfx1200")
    ap.add_argument("--vgpr-budget", type=int, default=96)
    ap.add_argument("--vgpr-budget-for", action="append", default=[], metavar="KERNEL=N",
                    help="another budget for the kernel template KERNEL (every instantiation)")
    ap.add_argument("--update-doc", metavar="FILE")
    ap.add_argument("--expect", action="append", default=[], metavar="REGEX",
                    help="self-test: pass only if the check fails with a failure matching each")
    args = ap.parse_args()
    tools = {t: find_tool(t) for t in TOOLS}
    missing = [t for t, p in tools.items() if not p]
    if missing:
        print("skip: %s not found (Debian: apt-get install clang-tools-19 llvm-19)"
              % ", ".join(missing))
        return 1 if os.environ.get("SZ_REQUIRE_HIP_TOOLS") == "1" else 77
    errors, rows = [], []
    with tempfile.TemporaryDirectory() as work:
        fatbin, ids = list_bundle(tools, args.module, work)
        found = {i.split("--", 1)[1].split(":")[0]: i for i in ids if "--" in i}
        for target in [t for t in args.targets.replace(",", ";").split(";") if t]:
            if target not in found:
                errors.append("%s: no code object in %s (bundle: %s)"
                              % (target, args.module, " ".join(ids)))
                continue
            for k in read_code_object(tools, fatbin, found[target], work):
                row = check_kernel(target, k, budget_of(k["name"], args), errors)
                if row:
                    rows.append(row)
    text = table(rows)
    print(text)
    if args.update_doc:
        update_doc(args.update_doc, text)
    for e in errors:
        print("FAIL: " + e)
    print("hip-bundle-check: %s (%d kernels, %d failures)"
          % ("failed" if errors else "passed", len(rows), len(errors)))
    if args.expect:
        unseen = [x for x in args.expect if not any(re.search(x, e) for e in errors)]
        for x in unseen:
            print("self-test: no failure matches %r" % x)
        return 1 if unseen else 0
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
