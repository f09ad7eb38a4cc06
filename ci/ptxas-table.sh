#!/usr/bin/env bash
# The CUDA module's kernels as ptxas allocated them: registers, shared memory, stack frame and
# spills per kernel, for every architecture the module is built for, and the theoretical
# occupancy on sm_90 (H100/H200) from those numbers. Fails if any kernel of any architecture
# spills, or if an architecture's log is missing or lists no kernel. Prints a Markdown table
# (doc/BENCHMARKS.md, GPU section).
#
# Usage: ci/ptxas-table.sh [BUILD_DIR]     (default build/release)
#
# Nothing is compiled here: the numbers are read from what the module's build wrote.
# Convention: the build of the CUDA module (cmake/splitzip_gpu.cmake, through
# cmake/nvcc_ptxas_log.sh; ci/gpu-check.sh also without CMake) compiles it with -Xptxas -v and
# writes the ptxas output of each architecture to ${PROJECT_BINARY_DIR}/ptxas/sm_<arch>.log
# (e.g. build/release/ptxas/sm_90.log), in the exact text nvcc prints; other tools that need
# the module's resource usage read the same files.
# SPLITZIP_CUDA_ARCHS lists the architectures to report ("80 90 100 120"; ctest passes the
# build's); by default every sm_<arch>.log found.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/release}
logs=$build/ptxas
archs=${SPLITZIP_CUDA_ARCHS:-$(find "$logs" -maxdepth 1 -name 'sm_*.log' 2>/dev/null |
	sed 's|.*/sm_||; s|\.log$||' | sort -n | tr '\n' ' ')}
if [ -z "${archs// /}" ]; then
	echo "ptxas-table: no ptxas logs in $logs (build the CUDA module: splitzip_cuda)" >&2
	exit 2
fi
# shellcheck disable=SC2086 # one argument per architecture
python3 - "$logs" $archs <<'EOF'
import os, re, sys
logs, archs = sys.argv[1], sys.argv[2:]
entry = re.compile(r"Compiling entry function '(\w+)' for 'sm_(\d+)'")
used = re.compile(r"Used (\d+) registers.*?(?:(\d+) bytes smem)?(?:,|$)")
spill = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
warn = re.compile(r"Registers are spilled to local memory in function '(\w+)'")

def name(mangled):
    """_Z11sz_k_encodeILi32ELb0EEv10sz_gpu_enc -> sz_k_encode<32, false>"""
    m = re.match(r"_Z\d+(\w+?)I(.*)EEv", mangled)
    if not m:
        return mangled
    args = []
    for kind, val in re.findall(r"L([ib])(\d+)E?", m.group(2)):
        args.append(("true" if val == "1" else "false") if kind == "b" else val)
    return f"{m.group(1)}<{', '.join(args)}>"

def occupancy_sm90(regs, smem, threads=256):
    """Resident blocks and warps per SM on sm_90: 64 K registers (per warp, rounded up to 256),
    228 KiB of shared memory (+1 KiB reserved per block), 2048 threads, 32 blocks."""
    per_warp = -(-regs * 32 // 256) * 256
    warps = threads // 32
    by_regs = 65536 // (per_warp * warps) if regs else 32
    by_smem = (233472 // (smem + 1024)) if smem else 32
    blocks = min(by_regs, by_smem, 2048 // threads, 32)
    return blocks, blocks * warps / 64

rows, bad = {}, []
for a in archs:
    path = f"{logs}/sm_{a}.log"
    if not os.path.exists(path):
        sys.exit(f"ptxas-table: {path} missing (rebuild the CUDA module for sm_{a})")
    cur, kernels = None, 0
    for line in open(path):
        m = warn.search(line)
        if m:
            bad.append(f"sm_{a} {name(m.group(1))}")
        m = entry.search(line)
        if m:
            if m.group(2) != a:
                sys.exit(f"ptxas-table: {path} lists a kernel for sm_{m.group(2)}")
            kernels += 1
            cur = (name(m.group(1)), a)
            rows.setdefault(cur, {})
            continue
        if cur is None:
            continue
        m = spill.search(line)
        if m:
            rows[cur].update(stack=int(m.group(1)), spill=int(m.group(2)) + int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            s = re.search(r"(\d+) bytes smem", line)
            rows[cur].update(regs=int(m.group(1)), smem=int(s.group(1)) if s else 0)
            cur = None
    if not kernels:
        sys.exit(f"ptxas-table: {path} lists no kernel")
print("| kernel | " + " | ".join(f"sm_{a} registers" for a in archs) +
      " | shared memory (static) | stack frame (sm_90) | spills (all) | sm_90 blocks / SM | sm_90 occupancy |")
print("|---|" + "---:|" * (len(archs) + 5))
kernels = sorted({k for k, _ in rows}, key=lambda k: (k.replace("sz_k_", ""), k))
for k in kernels:
    r90 = rows.get((k, "90"), {})
    regs = [str(rows.get((k, a), {}).get("regs", "-")) for a in archs]
    spills = sum(rows.get((k, a), {}).get("spill", 0) for a in archs)
    blocks, occ = occupancy_sm90(r90.get("regs", 0), r90.get("smem", 0))
    print(f"| `{k}` | " + " | ".join(regs) +
          f" | {r90.get('smem', 0)} B | {r90.get('stack', 0)} B | {spills} B | {blocks} | {occ:.1%} |")
if bad:
    print("\nptxas-table: spills in " + ", ".join(bad), file=sys.stderr)
    sys.exit(1)
EOF
