"""Link-aware KV transfer: how one connection packs its groups of pages -- raw, split4 or
entropy page streams -- chosen from the codec rates measured at both ends and the link rate the
sender sees, checked against the rate the choice really reaches, and probed again when that
rate drifts. The same rule as the C transfer example (examples/kv_transfer/kv_policy.h), for a
KV backend or a transfer engine's connector written in Python.

    from splitzip.transfer import LinkPolicy, measure_encode_rates, measure_decode_rates

    policy = LinkPolicy()
    # at connection set-up, on a sample of this model's pages (a few hundred KiB):
    enc, ratio, streams = measure_encode_rates(sample_pages)      # sender
    dec = measure_decode_rates(streams, scratch_pages)            # receiver, sent back
    policy.set_codec_rates(enc=enc, dec=dec, ratio=ratio)
    # the probe: P groups sent raw back to back, timed from the acknowledgement of the first
    # to that of the last (wire bytes of the groups after the first), and the time each end
    # spent on network work in that interval (UCX calls that did something; not idle polling):
    way = policy.probe_result(wire_bytes, seconds, net_s_seconds, net_r_seconds)
    # then every window of P groups sent 'way' (acknowledgement to acknowledgement):
    action = policy.window(cache_bytes / seconds, enc=..., dec=..., ratio=...)
    if action == LinkPolicy.PROBE: ...   # send the next P groups raw and call probe_result()
    # LinkPolicy.SWITCH: send the next groups policy.way; LinkPolicy.KEEP: go on

The model (rates in bytes per second, cache bytes unless said otherwise): each end is one core
whose loop does the codec work and the network work in turn; per cache byte of way w with
ratio R_w (cache bytes per wire byte, raw 1) the sender needs 1/enc_w + net_s/R_w seconds, the
receiver 1/dec_w + net_r/R_w, the link 1/(link R_w), and the way moves the inverse of the
largest. net_s and net_r are seconds of network work per wire byte. The choice prefers the
simpler way: split4 over raw only when predicted `gain` (5 %) faster, entropy over the choice so
far when `prefer` (2 %) faster. The first window of a codec way is its check: its observed rate
replaces the prediction and the choice is made again over what was observed (raw: the probe)
and the predictions of the ways not yet seen, so a way slower than raw in practice is dropped
at once. Later windows are compared with the checked rate: `drift_windows` (2) windows in a
row more than `drift` (25 %) off, either way, once `hold` windows have passed since the probe
(`min_windows`, doubled by every probe that kept the way, up to `max_hold`), ask for a new
probe, after which the way in use stays unless another beats it by `swap` (5 %).
"""
from dataclasses import dataclass, field
import time

__all__ = ["WAYS", "Rates", "PolicyParams", "LinkPolicy", "predict", "prefer",
           "measure_encode_rates", "measure_decode_rates"]

WAYS = ("raw", "split4", "entropy")


def _per_way(d=None):
    out = dict.fromkeys(WAYS, 0.0)
    out.update(d or {})
    return out


@dataclass
class Rates:
    """What the policy knows of a connection. enc/dec/ratio: dicts by way ("raw": the staging
    and scatter copies, 0 = not measured; ratio of raw is 1); link: wire bytes per second of the
    raw probe; net_s / net_r: seconds of network work per wire byte at the sender / receiver."""
    enc: dict = field(default_factory=_per_way)
    dec: dict = field(default_factory=_per_way)
    ratio: dict = field(default_factory=lambda: _per_way({"raw": 1.0}))
    link: float = 0.0
    net_s: float = 0.0
    net_r: float = 0.0

    def copy(self):
        return Rates(dict(self.enc), dict(self.dec), dict(self.ratio), self.link, self.net_s,
                     self.net_r)


@dataclass
class PolicyParams:
    gain: float = 0.05
    prefer: float = 0.02
    drift: float = 0.25  # 0: never probe on drift
    swap: float = 0.05
    drift_windows: int = 2
    min_windows: int = 2
    max_hold: int = 32
    allowed: tuple = WAYS


def predict(rates, way):
    """Cache bytes per second the model predicts for 'way' (0 if a needed rate is missing)."""
    if way not in WAYS or not rates.link > 0:
        return 0.0
    R = 1.0 if way == "raw" else rates.ratio.get(way, 0.0)
    enc, dec = rates.enc.get(way, 0.0), rates.dec.get(way, 0.0)
    if not R > 0 or (way != "raw" and not (enc > 0 and dec > 0)):
        return 0.0
    net_s, net_r = max(rates.net_s, 0.0), max(rates.net_r, 0.0)
    t_s = (1.0 / enc if enc > 0 else 0.0) + net_s / R
    t_r = (1.0 / dec if dec > 0 else 0.0) + net_r / R
    t_l = 1.0 / (rates.link * R)
    return 1.0 / max(t_s, t_r, t_l)


def prefer(values, params=None):
    """The preferred way among 'values' (a dict by way, bytes per second, 0 = not a
    candidate): raw first, then split4 if `gain` faster, then entropy if faster than the
    choice so far by `gain` (over raw) or `prefer` (over split4)."""
    par = params or PolicyParams()
    c = None
    for w in WAYS:
        v = values.get(w, 0.0)
        if w not in par.allowed or not v > 0:
            continue
        margin = par.gain if c == "raw" else par.prefer
        if c is None or v >= (1.0 + margin) * values[c]:
            c = w
    return c or "raw"


class LinkPolicy:
    """The policy of one connection (see the module's doc). Not thread-safe: one per
    connection, fed by the thread that drives it."""
    KEEP, SWITCH, PROBE = "keep", "switch", "probe"

    def __init__(self, params=None):
        self.params = params or PolicyParams()
        self.rates = Rates()
        self.way = "raw"
        self.pred = _per_way()
        self.obs = _per_way()
        self.ref = 0.0
        self.drift_run = 0
        self.since_probe = 0
        self.hold = self.params.min_windows
        self.probes = self.checks = self.switches = 0

    @property
    def needs_probe(self):
        """True until the first probe: nothing is known of the link yet."""
        return self.probes == 0

    def set_codec_rates(self, enc=None, dec=None, ratio=None):
        """The codec rates measured at set-up (dicts by way; missing ways keep theirs)."""
        self.rates.enc.update(enc or {})
        self.rates.dec.update(dec or {})
        self.rates.ratio.update(ratio or {})
        self.rates.ratio["raw"] = 1.0

    def _values(self):
        return {w: self.obs[w] if self.obs[w] > 0 else self.pred[w] for w in WAYS}

    def probed(self, rates):
        """A probe measured 'rates' (a Rates): predict every way and choose; the way in use
        stays unless another beats it by `swap`. Returns the way."""
        par = self.params
        in_use = self.way if self.probes > 0 else None
        self.rates = rates.copy()
        self.probes += 1
        self.pred = {w: predict(rates, w) for w in WAYS}
        self.obs = _per_way({"raw": rates.link})  # the probe itself moved raw groups
        v = self._values()
        best = prefer(v, par)
        if (in_use is not None and best != in_use and in_use in par.allowed and v[in_use] > 0
                and v[best] < (1.0 + par.swap) * v[in_use]):
            best = in_use
        if in_use is not None and best != in_use:
            self.switches += 1
        if in_use is not None and best == in_use:  # a probe that changed nothing: wait longer
            self.hold = min(2 * self.hold, par.max_hold)
        else:
            self.hold = par.min_windows
        self.way = best
        self.ref = rates.link if best == "raw" else 0.0
        self.drift_run = 0
        self.since_probe = 0
        return best

    def probe_result(self, wire_bytes, seconds, net_s_seconds=0.0, net_r_seconds=0.0,
                     copy_s=0.0, copy_r=0.0):
        """The probe's raw groups moved 'wire_bytes' in 'seconds' (acknowledgement to
        acknowledgement); each end spent net_*_seconds of it on network work. copy_s/copy_r:
        the staging and scatter copy rates seen (bytes per second, 0 = not measured). Chooses
        with the codec rates known (set-up, or the windows since). Returns the way."""
        r = self.rates.copy()
        r.link = wire_bytes / seconds if seconds > 0 else 0.0
        r.net_s = net_s_seconds / wire_bytes if wire_bytes > 0 else 0.0
        r.net_r = net_r_seconds / wire_bytes if wire_bytes > 0 else 0.0
        if copy_s > 0:
            r.enc["raw"] = copy_s
        if copy_r > 0:
            r.dec["raw"] = copy_r
        return self.probed(r)

    def _check(self, thr):
        self.checks += 1
        self.obs[self.way] = thr
        self.pred = {w: predict(self.rates, w) for w in WAYS}
        c = prefer(self._values(), self.params)
        if c == self.way:
            self.ref = thr
            return self.KEEP
        self.way = c
        self.switches += 1
        self.ref = self.obs[c]  # 0 for a way not seen yet: its first window is its check
        return self.SWITCH

    def window(self, thr, enc=0.0, dec=0.0, ratio=0.0):
        """A window of groups of the current way moved 'thr' cache bytes per second; enc / dec
        / ratio: the codec rates and ratio of the way seen in it (0 = not measured). Returns
        KEEP, SWITCH (send the next groups self.way) or PROBE."""
        par = self.params
        self.since_probe += 1
        if enc > 0:
            self.rates.enc[self.way] = enc
        if dec > 0:
            self.rates.dec[self.way] = dec
        if ratio > 0 and self.way != "raw":
            self.rates.ratio[self.way] = ratio
        if not thr > 0:
            return self.KEEP
        if not self.ref > 0:
            return self._check(thr)
        if par.drift > 0 and abs(thr / self.ref - 1.0) > par.drift:
            self.drift_run += 1
        else:
            self.drift_run = 0
        if self.drift_run >= par.drift_windows and self.since_probe >= self.hold:
            self.drift_run = 0
            return self.PROBE
        return self.KEEP


def _median_time(fn, repeats):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return max(ts[len(ts) // 2], 1e-9)


def measure_encode_rates(pages, modes=("split4", "entropy"), repeats=5, codecs=None):
    """The sender's side of the set-up: each mode's packing rate (bytes per second, the median
    of 'repeats') and ratio on 'pages' (a sample of this model's pages, e.g. 512 KiB), and the
    streams, for the receiver to time its decoder on. codecs: {mode: PageCodec} to measure
    the contexts the transfer will use (fixed tables, checksums), else fresh ones.
    Returns (enc, ratio, streams), dicts by mode."""
    from .pages import PageCodec
    from . import _as_u16
    nbytes = sum(_as_u16(p).nbytes for p in pages)
    enc, ratio, streams = {}, {}, {}
    for mode in modes:
        codec = (codecs or {}).get(mode) or PageCodec(mode=mode, threads=1)
        out = {}
        enc[mode] = nbytes / _median_time(lambda: out.update(s=codec.compress(pages)), repeats)
        streams[mode] = out["s"]
        ratio[mode] = nbytes / len(out["s"])
    return enc, ratio, streams


def measure_decode_rates(streams, pages, repeats=5, codec=None):
    """The receiver's side: the decoding rate of each stream of 'streams' ({mode: bytes}) into
    'pages' (writable destinations of the sample's geometry), bytes per second of pages.
    Raises splitzip.PagesError for a stream that does not decode into them."""
    from .pages import PageCodec
    c = codec or PageCodec(threads=1)
    dec = {}
    for mode, stream in streams.items():
        sizes = c.decompress(stream, pages, exact=True)
        dec[mode] = sum(sizes) / _median_time(lambda: c.decompress(stream, pages, exact=True),
                                              repeats)
    return dec
