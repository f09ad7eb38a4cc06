#!/usr/bin/env python3
"""KV cache transfer over rate-limited links: raw, split4, entropy and the link-aware policy.

Runs the sender and the receiver of splitzip-kv-transfer (examples/kv_transfer) in two network
namespaces joined by a veth pair, the data direction shaped by `tc tbf` at each rate (0 =
unshaped), the sender pinned to CPU 0 and the receiver to CPU 1 (taskset), UCX over TCP. For
every page size, cache size, rate and mode it reports the transfer time (median and p95 of the
timed repetitions; the modes take turns in rounds, each turn a fresh connection and two
warm-up repetitions, so that a load from other tenants that comes and goes hits every mode
alike), the bytes on the wire (counted by the sender, cross-checked with `tc -s qdisc` on the
shaped device, which also counts TCP/IP headers), the speedup against raw, the way the policy
chose in each round (`auto`: raw, split4 or entropy per connection, from the codec rates of
both ends and the link rate of its probe), its warm-up transfers (in which it probes and
checks: a new connection's first transfers), the
machine's load average, and the CPU time other processes took from the two cores during each
run (from /proc/stat, less what the two ends used): a cell where that is high may be
CPU-starved.

    sudo python3 bench/kv_transfer_bench.py [--build DIR] [--pages 2,32] [--sizes 64]
         [--rates 0.5,1,2,5,0] [--modes raw,split4,entropy,auto] [--reps 6] [--rounds 3]
         [--quick] [--data-k F --data-v F] [--out FILE.jsonl] [--markdown FILE.md]
         [--wait-quiet SECONDS] [--nice N] [--warmup N]

Modes: raw (every group raw, staged), split4 / entropy (pipelined, every group that way), auto
(pipelined, the policy), compressed-split4 / compressed-entropy (compress everything, then
send). --quick: one round of 2 repetitions, the 32 KiB pages only, 0.5, 5 Gbit/s and unshaped
(a few minutes).

Real KV data: ../shared/data/bigkv/llama3-8b-instruct_L10_{K,V}.bf16 (Llama-3-8B, GQA 8 x 128)
when found next to the checkout, else the bundled data/kv sample; pages of 2 KiB are [1 token,
8 KV heads, 128 dims] and of 32 KiB [16 tokens, 8, 128]; 32 layers, K and V, tiled from the
data; groups of 2 MiB. Needs root (ip netns, tc).
"""
import argparse
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NS_S, NS_R, DEV_S, DEV_R = "szkv_snd", "szkv_rcv", "szkv0", "szkv1"
IP_S, IP_R = "10.77.0.1", "10.77.0.2"
MODES = {
    "raw": ["--mode", "raw"],
    "split4": ["--mode", "pipelined", "--codec", "split4"],
    "entropy": ["--mode", "pipelined", "--codec", "entropy"],
    "auto": ["--mode", "pipelined", "--codec", "auto"],
    "compressed-split4": ["--mode", "compressed", "--codec", "split4"],
    "compressed-entropy": ["--mode", "compressed", "--codec", "entropy"],
}
PAGE_SHAPES = {2: (1, 8, 128), 32: (16, 8, 128)}  # KiB -> tokens, KV heads, head dim


def sh(cmd, check=True, capture=False, env=None):
    r = subprocess.run(cmd, shell=isinstance(cmd, str), check=False, text=True, env=env,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None)
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {cmd}\n{r.stdout or ''}")
    return r.stdout if capture else r.returncode


def ns(name, cmd):
    return f"ip netns exec {name} {cmd}"


def setup_netns():
    teardown_netns()
    for n in (NS_S, NS_R):
        sh(f"ip netns add {n}")
        sh(ns(n, "ip link set lo up"))
        # No slow start after the idle time between repetitions.
        sh(ns(n, "sysctl -qw net.ipv4.tcp_slow_start_after_idle=0"))
    sh(f"ip link add {DEV_S} type veth peer name {DEV_R}")
    sh(f"ip link set {DEV_S} netns {NS_S}")
    sh(f"ip link set {DEV_R} netns {NS_R}")
    sh(ns(NS_S, f"ip addr add {IP_S}/24 dev {DEV_S}"))
    sh(ns(NS_R, f"ip addr add {IP_R}/24 dev {DEV_R}"))
    sh(ns(NS_S, f"ip link set {DEV_S} up"))
    sh(ns(NS_R, f"ip link set {DEV_R} up"))


def teardown_netns():
    for n in (NS_S, NS_R):
        sh(f"ip netns del {n}", check=False, capture=True)


def shape(rate_gbit):
    """tbf on the sender's egress (the data direction); 0 removes it."""
    sh(ns(NS_S, f"tc qdisc del dev {DEV_S} root"), check=False, capture=True)
    if rate_gbit > 0:
        bps = rate_gbit * 1e9 / 8
        burst = max(int(bps * 0.002), 256 * 1024)  # 2 ms of the rate, at least 4 GSO packets
        sh(ns(NS_S, f"tc qdisc add dev {DEV_S} root tbf rate {rate_gbit}gbit "
                    f"burst {burst} latency 50ms"))
    else:  # a counting qdisc that does not limit anything
        sh(ns(NS_S, f"tc qdisc add dev {DEV_S} root pfifo limit 100000"))


def qdisc_bytes():
    out = sh(ns(NS_S, f"tc -s qdisc show dev {DEV_S}"), capture=True)
    m = re.search(r"Sent (\d+) bytes (\d+) pkt", out)
    return int(m.group(1)) if m else 0


def link_bytes():
    out = sh(ns(NS_S, f"ip -s -j link show dev {DEV_S}"), capture=True)
    return json.loads(out)[0]["stats64"]["tx"]["bytes"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_busy():
    """Busy jiffies of CPU 0 and CPU 1 (everything but idle and iowait), from /proc/stat."""
    busy = 0
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(("cpu0 ", "cpu1 ")):
                v = [int(x) for x in line.split()[1:]]
                busy += sum(v[:8]) - v[3] - v[4]
    return busy / os.sysconf("SC_CLK_TCK")


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def end(cpu, nice, cmd):
    """One end: pinned to 'cpu', in a session of its own. The kernel shares a CPU between
    sessions (autogroups) before processes: in the bench's own session the two ends would get
    one share between them, while each is a server of its own. 'nice' is that session's nice
    value (/proc/PID/autogroup): below 0 puts the ends ahead of other tenants' sessions."""
    return (f"setsid -w sh -c 'echo {nice} > /proc/self/autogroup 2>/dev/null; "
            f"exec taskset -c {cpu} {cmd}'")


def start_receiver(binary, env, nice):
    """The receiver, listening; another port when the one picked is taken in its namespace."""
    for _ in range(10):
        port = free_port()
        recv = subprocess.Popen(ns(NS_R, end(1, nice, f"{binary} recv --bind {IP_R} "
                                                      f"--port {port}")),
                                shell=True, env={**env, "UCX_NET_DEVICES": DEV_R},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(200):
            if f":{port} " in sh(ns(NS_R, "ss -ltn"), capture=True):
                return recv, port
            if recv.poll() is not None:
                break
            time.sleep(0.05)
        recv.kill()
        recv.communicate()
    raise RuntimeError("no receiver could listen")


def run_one(binary, page_kib, size_mib, mode, reps, data, env, extra="", nice=0, warmup=2):
    t0, c0, b0 = time.time(), children_cpu(), cpu_busy()
    recv, port = start_receiver(binary, env, nice)
    q0, l0 = qdisc_bytes(), link_bytes()
    tok, heads, dim = PAGE_SHAPES[page_kib]
    cmd = (f"{binary} send --host {IP_R} --port {port} {' '.join(MODES[mode])} "
           f"--tokens {tok} --kv-heads {heads} --head-dim {dim} --cache-mib {size_mib} "
           f"--reps {reps} --warmup {warmup} --json --data-k {data[0]} --data-v {data[1]} "
           f"{extra}")
    out = sh(ns(NS_S, end(0, nice, cmd)), capture=True, check=False,
             env={**env, "UCX_NET_DEVICES": DEV_S})
    rout, _ = recv.communicate(timeout=600)
    q1, l1 = qdisc_bytes(), link_bytes()
    wall, ours, busy = time.time() - t0, children_cpu() - c0, cpu_busy() - b0
    line = [x for x in out.splitlines() if x.startswith("{")]
    if not line or recv.returncode != 0:
        raise RuntimeError(f"run failed: {mode} {page_kib} KiB {size_mib} MiB\n{out}\n{rout}")
    r = json.loads(line[-1])
    # Every repetition (the warm-up included) crossed the shaped device: the qdisc and link
    # counters hold all of them, headers and acknowledgements included.
    r.update(page_kib=page_kib, size_mib=size_mib, mode=mode, tc_bytes=q1 - q0,
             link_bytes=l1 - l0,
             tc_overhead=(q1 - q0) / r["wire_all_reps"] if r["wire_all_reps"] else 0,
             tc_bytes_per_rep=(q1 - q0) / (reps + warmup),
             # CPU time of the two cores that neither end used, as a share of both cores
             others_cpu=max(0.0, busy - ours) / (2 * wall), ends_cpu=ours / (2 * wall))
    return r


def runnable_now():
    """Processes running or runnable right now (ours included: the sampler is one)."""
    with open("/proc/loadavg") as f:
        return int(f.read().split()[3].split("/")[0])


def wait_quiet(max_wait_s):
    """Wait until nothing else runs (2 s of samples with at most the sampler runnable), at
    most max_wait_s seconds; True if the machine was quiet. Other tenants' jobs share the two
    cores the ends are pinned to, and would be measured too."""
    t0 = time.time()
    while True:
        busy = 0
        for _ in range(20):
            busy = max(busy, runnable_now() - 1)
            time.sleep(0.1)
        if busy == 0:
            return True
        if time.time() - t0 > max_wait_s:
            return False
        time.sleep(3)


def merge_runs(runs):
    """One row from the rounds of a mode: median and p95 over every timed repetition, the
    counters summed, the way of each round, the rest from the last round."""
    r = dict(runs[-1])
    times = sorted(t for x in runs for t in x["times"])
    r["times"] = times
    r["median_s"] = statistics.median(times)
    r["p95_s"] = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    r["first_s"] = statistics.median(x["first_s"] for x in runs)
    r["tc_bytes"] = sum(x["tc_bytes"] for x in runs)
    r["link_bytes"] = sum(x["link_bytes"] for x in runs)
    wire = sum(x["wire_all_reps"] for x in runs)
    r["tc_overhead"] = r["tc_bytes"] / wire if wire else 0
    r["tc_bytes_per_rep"] = r["tc_bytes"] / sum(x["reps"] + len(x["warmup_s"]) for x in runs)
    r["probing_s"] = statistics.median(sum(x["warmup_s"]) / len(x["warmup_s"]) for x in runs)
    r["load"] = max(x["load"] for x in runs)
    r["others_cpu"] = max(x["others_cpu"] for x in runs)
    r["quiet_before"] = [x["quiet_before"] for x in runs]
    r["round_ways"] = [x["way"] for x in runs]
    r["round_probes"] = [x["probes"] for x in runs]
    return r


TARGET = {0.5: 1.40, 1: 1.40, 2: 1.40, 5: 1.28, 0: 0.97}  # the policy's speedup over raw


def rate_name(rate):
    return f"{rate:g} Gbit/s" if rate else "unshaped"


def ways_text(ways):
    """The way of each round, e.g. "entropy x3" or "raw, split4, raw"."""
    return f"{ways[0]} x{len(ways)}" if len(set(ways)) == 1 else ", ".join(ways)


def find_binary(build):
    cands = [Path(build)] if build else sorted(ROOT.glob("build*")) + sorted(ROOT.glob("build/*"))
    for b in cands:
        p = b / "examples/kv_transfer/splitzip-kv-transfer"
        if p.exists():
            return p
    sys.exit("splitzip-kv-transfer not found: build with libucx-dev installed (--build DIR)")


def find_data(args):
    if args.data_k and args.data_v:
        return (args.data_k, args.data_v), "given"
    for up in (ROOT.parent, ROOT.parent.parent):
        d = up / "shared/data/bigkv"
        k, v = d / "llama3-8b-instruct_L10_K.bf16", d / "llama3-8b-instruct_L10_V.bf16"
        if k.exists() and v.exists():
            return (str(k), str(v)), f"{d} (Llama-3-8B-Instruct layer 10 K/V)"
    d = ROOT / "data/kv"
    return ((str(d / "aidreams260k__shakespeare.K.bf16"), str(d / "aidreams260k__shakespeare.V.bf16")),
            "bundled data/kv sample (bigkv not found)")


def summary(results, starved):
    """Per page size, cache size and rate: speedups against raw, the way the policy chose,
    its first transfer (which probes), the wire ratio, the load, and whether the target was
    met."""
    rows = ["| page | cache | link | raw median s | split4 | entropy | auto | auto chose | "
            "auto, warm-up transfers | wire ratio (tc) | load | others' CPU | target |",
            "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    by = {(r["page_kib"], r["size_mib"], r["rate"], r["mode"]): r for r in results}
    cells = dict.fromkeys((r["page_kib"], r["size_mib"], r["rate"]) for r in results)
    for (page, size, rate) in cells:
        raw = by.get((page, size, rate, "raw"))
        if not raw:
            continue
        row = {m: by[(page, size, rate, m)] for m in MODES if (page, size, rate, m) in by}
        sp = {m: raw["median_s"] / x["median_s"] for m, x in row.items()}
        auto = row.get("auto")
        load = max(x["load"] for x in row.values())
        others = max(x["others_cpu"] for x in row.values())
        cols = [f"{sp[m]:.2f}x" if m in sp else "-" for m in ("split4", "entropy", "auto")]
        if auto:
            want = TARGET.get(rate, 0.97)
            ok = "met" if sp["auto"] >= want and sp["auto"] >= 0.97 else "MISSED"
            mark = " (CPU shared)" if others >= starved else ""
            first = f"{raw['median_s'] / auto['probing_s']:.2f}x"
            wr = (f"{raw['tc_bytes_per_rep'] / auto['tc_bytes_per_rep']:.3f}"
                  if auto["tc_bytes_per_rep"] else "-")
            extra = [ways_text(auto["round_ways"]), first, wr]
            target = f"{want:.2f}x {ok}{mark}"
        else:
            extra, target = ["-", "-", "-"], "-"
        rows.append(f"| {page} KiB | {size} MiB | {rate_name(rate)} | {raw['median_s']:.3f} | "
                    f"{' | '.join(cols)} | {' | '.join(extra)} | {load:.1f} | {others:.2f} | "
                    f"{target} |")
    return "\n".join(rows)


def markdown(results):
    rows = ["| page | cache | link | mode | median s | p95 s | wire MB (tc) | ratio | speedup | "
            "way | groups raw/split4/entropy | probes | comp GB/s | dec GB/s |",
            "|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|---:|---:|"]
    raw = {(r["page_kib"], r["size_mib"], r["rate"]): r["median_s"] for r in results
           if r["mode"] == "raw"}
    for r in results:
        base = raw.get((r["page_kib"], r["size_mib"], r["rate"]))
        sp = f"{base / r['median_s']:.2f}x" if base else "-"
        rows.append(f"| {r['page_kib']} KiB | {r['size_mib']} MiB | {rate_name(r['rate'])} | "
                    f"{r['mode']} | {r['median_s']:.3f} | {r['p95_s']:.3f} | "
                    f"{r['tc_bytes_per_rep'] / 1e6:.1f} | {r['ratio']:.3f} | {sp} | "
                    f"{ways_text(r['round_ways'])} | {r['groups_raw']}/{r['groups_split4']}/"
                    f"{r['groups_entropy']} | {','.join(str(p) for p in r['round_probes'])} | "
                    f"{r['compress_gbps']:.2f} | {r['decode_gbps']:.2f} |")
    return "\n".join(rows)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build")
    ap.add_argument("--pages", default="2,32", help="page sizes in KiB (2, 32)")
    ap.add_argument("--sizes", default="64", help="cache sizes in MiB")
    ap.add_argument("--rates", default="0.5,1,2,5,0", help="Gbit/s; 0 = unshaped")
    ap.add_argument("--modes", default="raw,split4,entropy,auto")
    ap.add_argument("--reps", type=int, default=6, help="timed repetitions per mode")
    ap.add_argument("--rounds", type=int, default=3,
                    help="the modes take turns this many times (reps/rounds each turn, after "
                         "the warm-up): a load that drifts hits every mode alike")
    ap.add_argument("--warmup", type=int, default=2,
                    help="repetitions before the timed ones, every mode (the policy probes "
                         "and checks in them: see the summary's warm-up column)")
    ap.add_argument("--quick", action="store_true",
                    help="32 KiB pages, 0.5 and 5 Gbit/s and unshaped, 1 round of 2 reps")
    ap.add_argument("--starved", type=float, default=0.25,
                    help="mark cells where other processes took this share of the two cores")
    ap.add_argument("--data-k")
    ap.add_argument("--data-v")
    ap.add_argument("--out", default="/tmp/kv_transfer_bench.jsonl")
    ap.add_argument("--markdown")
    ap.add_argument("--sender-args", default="", help="more options for the sender")
    ap.add_argument("--ucx-env", default="", help="VAR=VALUE,... for both ends")
    ap.add_argument("--nice", type=int, default=0,
                    help="the nice value of each end's session (negative: ahead of other "
                         "tenants' sessions on the shared cores; the default 0 shares them "
                         "fairly)")
    ap.add_argument("--wait-quiet", type=float, default=0,
                    help="before each run wait up to this many seconds for an idle machine")
    args = ap.parse_args()
    if args.quick:
        args.pages, args.rates, args.reps, args.rounds = "32", "0.5,5,0", 2, 1
    return args


def run_cell(args, binary, data, env, page, size, rate, out):
    """Every mode at one page size, cache size and rate, in rounds; one merged row each."""
    shape(rate)
    cell = {m: [] for m in args.modes.split(",")}
    per = max(1, args.reps // args.rounds)
    for rnd in range(args.rounds):
        for mode in cell:
            quiet = wait_quiet(args.wait_quiet) if args.wait_quiet else None
            r = run_one(binary, page, size, mode, per, data, env, args.sender_args, args.nice,
                        args.warmup)
            r.update(rate=rate, load=os.getloadavg()[0], quiet_before=quiet, round=rnd)
            cell[mode].append(r)
            out.write(json.dumps(r) + "\n")
            out.flush()
    rows = []
    for mode, runs in cell.items():
        r = merge_runs(runs)
        rows.append(r)
        print(f"{page} KiB {size} MiB {rate_name(rate)} {mode}: median {r['median_s']:.3f} s "
              f"p95 {r['p95_s']:.3f} s over {len(r['times'])} reps, way "
              f"{ways_text(r['round_ways'])}, {r['tc_bytes_per_rep'] / 1e6:.1f} MB on the wire "
              f"per rep (tc; {r['tc_overhead']:.4f}x the payload), load {r['load']:.2f}, "
              f"others' CPU {r['others_cpu']:.2f}", flush=True)
    return rows


def main():
    args = parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root (ip netns, tc)")
    for tool in ("ip", "tc", "taskset", "ss"):
        if not shutil.which(tool):
            sys.exit(f"{tool} not found (Debian: iproute2, util-linux)")
    binary = find_binary(args.build)
    data, where = find_data(args)
    env = {**os.environ, "UCX_TLS": "tcp", "UCX_WARN_UNUSED_ENV_VARS": "n"}
    env.update(kv.split("=", 1) for kv in args.ucx_env.split(",") if kv)
    print(f"# binary {binary}\n# data {where}\n# cpus: sender 0, receiver 1, nice "
          f"{args.nice}; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    results = []
    setup_netns()
    try:
        with open(args.out, "w") as out:
            for page in [int(x) for x in args.pages.split(",")]:
                for size in [int(x) for x in args.sizes.split(",")]:
                    for rate in [float(x) for x in args.rates.split(",")]:
                        results += run_cell(args, binary, data, env, page, size, rate, out)
    finally:
        teardown_netns()
    md = markdown(results) + "\n\n" + summary(results, args.starved)
    print(md)
    if args.markdown:
        Path(args.markdown).write_text(md + "\n")


if __name__ == "__main__":
    main()
