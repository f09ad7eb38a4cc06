"""The link-aware transfer policy (splitzip.transfer) on synthetic rates: the cases the C policy
of examples/kv_transfer is tested on (policy_cases.txt, the same file), the preference margins,
the check of a choice (raw fallback, a move to a way not seen yet and back), drift and its
hysteresis, the swap margin after a probe; and the set-up measurements on real pages."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from splitzip.transfer import (WAYS, LinkPolicy, PolicyParams, Rates,  # noqa: E402
                               measure_decode_rates, measure_encode_rates, predict, prefer)

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "examples" / "kv_transfer" / "policy_cases.txt"
G = 1e9


def read_cases():
    rows = []
    for line in CASES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split()
        v = [float(x) for x in f[1:12]]
        r = Rates(enc=dict(zip(WAYS, [x * G for x in v[0:3]])),
                  dec=dict(zip(WAYS, [x * G for x in v[3:6]])),
                  ratio={"raw": 1.0, "split4": v[6], "entropy": v[7]},
                  link=v[8] * G, net_s=v[9] / G, net_r=v[10] / G)
        rows.append((f[0], r, f[12], float(f[13])))
    return rows


@pytest.mark.parametrize("name,rates,want,speedup", read_cases(), ids=lambda x: str(x)[:24])
def test_cases_shared_with_the_c_policy(name, rates, want, speedup):
    p = LinkPolicy()
    way = p.probed(rates)
    assert way == want, name
    got = p.pred[way] / rates.link if rates.link > 0 else 0
    assert abs(got - speedup) < 0.0015, (name, got)
    assert p.ref == (rates.link if way == "raw" else 0)


def test_case_file_is_read():
    assert len(read_cases()) >= 10


def base(link, net, enc_entropy):
    return Rates(enc={"raw": 4 * G, "split4": 3 * G, "entropy": enc_entropy * G},
                 dec={"raw": 4 * G, "split4": 5 * G, "entropy": 1.8 * G},
                 ratio={"raw": 1.0, "split4": 1.33, "entropy": 1.47},
                 link=link * G, net_s=net / G, net_r=net / G)


def test_prefer_margins_and_allowed_ways():
    assert prefer({"raw": 1, "split4": 1.04}) == "raw"
    assert prefer({"raw": 1, "split4": 1.06}) == "split4"
    assert prefer({"raw": 1, "split4": 1.06, "entropy": 1.08}) == "split4"
    assert prefer({"raw": 1, "split4": 1.06, "entropy": 1.09}) == "entropy"
    assert prefer({"raw": 1, "split4": 0, "entropy": 1.06}) == "entropy"
    assert prefer({}) == "raw"
    only = PolicyParams(allowed=("raw", "split4"))
    assert prefer({"raw": 1, "split4": 1.06, "entropy": 1.09}, only) == "split4"
    assert LinkPolicy(only).probed(base(0.0625, 0.8, 1.4)) == "split4"


def test_drift_needs_two_windows_either_way_and_backs_off():
    p = LinkPolicy()
    assert p.needs_probe
    assert p.probed(base(0.25, 0.8, 1.4)) == "entropy" and not p.needs_probe
    assert p.window(0.35 * G) == p.KEEP and p.ref == 0.35 * G and p.checks == 1
    assert p.window(0.27 * G) == p.KEEP and p.drift_run == 0  # -23 %: no drift
    assert p.window(0.25 * G) == p.KEEP and p.drift_run == 1  # -29 % once: wait
    assert p.window(0.36 * G) == p.KEEP and p.drift_run == 0  # back: the run ends
    assert p.window(0.25 * G) == p.KEEP
    assert p.window(0.25 * G) == p.PROBE  # twice in a row
    assert p.window(0.45 * G) == p.KEEP and p.window(0.45 * G) == p.PROBE  # a faster link
    assert p.window(0) == p.KEEP and p.drift_run == 0
    # a probe that keeps the way doubles the windows the next drift must wait
    assert p.probed(base(0.25, 0.8, 1.4)) == "entropy" and p.hold == 4
    p.window(0.35 * G)
    assert p.window(0.2 * G) == p.KEEP and p.window(0.2 * G) == p.KEEP
    assert p.window(0.2 * G) == p.PROBE
    assert p.probed(base(0.25, 0.8, 1.4)) == "entropy" and p.hold == 8
    for _ in range(6):
        p.probed(base(0.25, 0.8, 1.4))
    assert p.hold == 32
    assert p.probed(base(0.25, 0.8, 0.2)) == "split4" and p.hold == 2


def test_drift_off():
    p = LinkPolicy(PolicyParams(drift=0))
    p.probed(base(0.25, 0.8, 1.4))
    p.window(0.35 * G)
    assert all(p.window(0.1 * G) == p.KEEP for _ in range(10))


def test_min_windows():
    p = LinkPolicy(PolicyParams(min_windows=4))
    p.probed(base(0.25, 0.8, 1.4))
    assert p.window(0.35 * G) == p.KEEP
    assert p.window(0.2 * G) == p.KEEP and p.window(0.2 * G) == p.KEEP
    assert p.window(0.2 * G) == p.PROBE


def test_raw_fallback_at_the_check():
    p = LinkPolicy()
    assert p.probed(base(0.25, 0.8, 0)) == "split4"
    assert p.window(0.225 * G) == p.SWITCH and p.way == "raw" and p.ref == 0.25 * G
    assert p.window(0.25 * G) == p.KEEP and p.way == "raw"
    assert (p.checks, p.switches) == (1, 1)


def test_check_moves_to_an_unseen_way_and_back():
    p = LinkPolicy()
    assert p.probed(base(0.625, 0.3, 1.4)) == "entropy"
    assert p.window(0.70 * G) == p.SWITCH and p.way == "split4" and p.ref == 0
    assert p.window(0.68 * G) == p.SWITCH and p.way == "entropy" and p.ref == 0.70 * G
    assert p.window(0.70 * G) == p.KEEP and p.checks == 2
    assert p.window(0.70 * G, enc=1.0 * G, dec=1.5 * G, ratio=1.45) == p.KEEP
    assert (p.rates.enc["entropy"], p.rates.dec["entropy"], p.rates.ratio["entropy"]) == \
        (1.0 * G, 1.5 * G, 1.45)


def test_swap_margin_after_a_probe():
    p = LinkPolicy()
    assert p.probed(base(0.25, 0.8, 1.4)) == "entropy"
    assert p.probed(base(0.625, 0.3, 0.966)) == "entropy" and p.switches == 0
    assert abs(p.pred["split4"] / p.pred["entropy"] - 1.03) < 0.005
    assert p.probed(base(0.625, 0.3, 0.9)) == "split4" and p.switches == 1
    assert p.probed(base(0.625, 0.3, 0.966)) == "split4"
    assert p.probed(base(20, 0.6, 1.4)) == "raw"
    assert p.probes == 5


def test_probe_result_turns_times_into_rates():
    p = LinkPolicy()
    p.set_codec_rates(enc={"split4": 3 * G, "entropy": 1.4 * G},
                      dec={"split4": 5 * G, "entropy": 1.8 * G},
                      ratio={"split4": 1.33, "entropy": 1.47})
    # 250 MB in one second (2 Gbit/s), 0.2 s of network work at each end
    assert p.probe_result(250e6, 1.0, 0.2, 0.2, copy_s=4 * G, copy_r=4 * G) == "entropy"
    assert p.rates.link == 250e6 and abs(p.rates.net_s - 0.8e-9) < 1e-15
    assert abs(p.pred["entropy"] / p.rates.link - 1.47) < 1e-9
    assert predict(p.rates, "bogus") == 0


DATA = ROOT / "data" / "kv"


def test_set_up_measurements_on_real_pages():
    kv = np.fromfile(DATA / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    pages = [kv[i * 1024:(i + 1) * 1024].copy() for i in range(64)]  # 2 KiB pages
    enc, ratio, streams = measure_encode_rates(pages, repeats=3)
    assert set(enc) == set(ratio) == set(streams) == {"split4", "entropy"}
    assert all(v > 0 for v in enc.values())
    assert 1.1 < ratio["split4"] < ratio["entropy"] < 2
    dst = [np.zeros(1024, np.uint16) for _ in pages]
    dec = measure_decode_rates(streams, dst, repeats=3)
    assert all(v > 0 for v in dec.values())
    assert all(np.array_equal(a, b) for a, b in zip(pages, dst))
    p = LinkPolicy()
    p.set_codec_rates(enc=enc, dec=dec, ratio=ratio)
    # A link a thousandth of the slowest codec rate measured here (whatever this build's
    # speed: sanitizers slow the codecs tenfold): the wire decides, and entropy's ratio wins.
    link = min(list(enc.values()) + list(dec.values())) / 1000
    assert p.probe_result(link, 1.0) == "entropy"
