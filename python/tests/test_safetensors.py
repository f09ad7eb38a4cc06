"""splitzip.safetensors: pack/unpack byte identity on a real safetensors file, the same
container bytes as the CLI, load() and info(), container version 2 (BF16, F16, F32, FP8 tensors
as frames; a BF16-only file still version 1, the bytes recorded before version 2), and the
hostile files of tests/cli/st_cases.py rejected with the reasons the CLI gives, nothing
written."""
import hashlib
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests" / "cli"))
import splitzip  # noqa: E402
import splitzip.safetensors as sst  # noqa: E402
import st_cases  # noqa: E402

DATA = Path(os.environ.get("SPLITZIP_TEST_DATA", ROOT / "data"))


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    d = tmp_path_factory.mktemp("st")
    path = d / "model.safetensors"
    path.write_bytes(st_cases.safetensors_bytes(st_cases.real_tensors(DATA),
                                                metadata={"format": "pt"}))
    return path


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A file of every dtype that container version 2 compresses, and others."""
    path = tmp_path_factory.mktemp("st") / "mixed.safetensors"
    path.write_bytes(st_cases.safetensors_bytes(st_cases.mixed_tensors(DATA),
                                                metadata={"format": "pt"}))
    return path


def sha(p):
    return hashlib.sha256(Path(p).read_bytes()).hexdigest()


def test_pack_unpack_is_byte_identical(model, tmp_path):
    size = sst.pack(model, tmp_path / "m.szst")
    assert size == (tmp_path / "m.szst").stat().st_size < model.stat().st_size
    splitzip.unpack_safetensors(tmp_path / "m.szst", tmp_path / "r.safetensors")
    assert sha(tmp_path / "r.safetensors") == sha(model)
    with pytest.raises(FileExistsError):
        sst.unpack(tmp_path / "m.szst", tmp_path / "r.safetensors")
    sst.unpack(tmp_path / "m.szst", tmp_path / "r.safetensors", overwrite=True)
    assert not list(tmp_path.glob("*.splitzip-tmp.*"))


@pytest.mark.parametrize("which", ["model", "mixed", "bf16_only"])
def test_package_writer_matches_the_spec_writer(which, model, mixed, tmp_path):
    """The header and table of the package are those st_cases.build() writes from FORMAT.md,
    of the version that §11 gives: 2 with an F16, F32 or FP8 tensor (the model has an F32
    one), else 1."""
    src = {"model": model, "mixed": mixed, "bf16_only": tmp_path / "b.safetensors"}[which]
    if which == "bf16_only":
        src.write_bytes(st_cases.bf16_only_bytes())
    sst.pack(src, tmp_path / "m.szst")
    b = (tmp_path / "m.szst").read_bytes()
    head, tensors, size = sst.read_header(src)
    version = 1 if which == "bf16_only" else 2
    entries = [struct.unpack_from("<B3xIQQQ", b, 64 + ((len(head) + 15) & ~15) + 32 * i)
               for i in range(len(tensors))]
    assert [e[0] for e in entries] == [
        1 if t["dtype"] in ("BF16", "F16", "F32", "F8_E4M3", "F8_E5M2") and
        (version == 2 or t["dtype"] == "BF16") else 0 for t in tensors]
    header, meta = st_cases.build(head, [(e[0], e[1], e[2], e[4]) for e in entries], size,
                                  version=version)
    assert b[:len(header) + len(meta)] == header + meta


def test_options_round_trip(model, tmp_path):
    k = np.fromfile(DATA / "kv" / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    sst.pack(model, tmp_path / "c.szst", codebook=splitzip.calibrate(k), frame_elems=10000,
             chunk_log2=10, checksum=False)
    sst.unpack(tmp_path / "c.szst", tmp_path / "c.safetensors")
    assert sha(tmp_path / "c.safetensors") == sha(model)
    frames = [t["frames"] for t in sst.info(tmp_path / "c.szst")["tensors"] if "frames" in t]
    assert max(frames) > 1


@pytest.mark.skipif(not os.environ.get("SPLITZIP_CLI"), reason="SPLITZIP_CLI not set")
def test_same_container_as_the_cli(model, tmp_path):
    sst.pack(model, tmp_path / "py.szst")
    subprocess.run([os.environ["SPLITZIP_CLI"], "pack", "-q", str(model),
                    str(tmp_path / "c.szst")], check=True)
    assert (tmp_path / "py.szst").read_bytes() == (tmp_path / "c.szst").read_bytes()


def test_info_and_load(model, tmp_path):
    sst.pack(model, tmp_path / "m.szst")
    i = sst.info(tmp_path / "m.szst")
    assert i["source_size"] == model.stat().st_size and i["ratio"] > 1.2
    by_name = {t["name"]: t for t in i["tensors"]}
    k = by_name["cache.K"]
    assert k["dtype"] == "BF16" and k["ratio"] > 1.3 and k["escapes"] < k["elements"] / 1000
    assert i["version"] == 2 and "escapes" in by_name["scale.f32"]  # F32: frames
    assert "escapes" not in by_name["mask.u8"]
    packed, plain = sst.load(tmp_path / "m.szst"), sst.load(model)
    assert list(packed) == list(plain)
    for name, arr in plain.items():
        assert arr.dtype == packed[name].dtype and np.array_equal(arr, packed[name])
    raw = np.fromfile(DATA / "kv" / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    assert np.array_equal(packed["cache.K"].reshape(-1), raw)
    assert packed["mask.u8"].tolist() == [1, 0, 1]


def test_predicted_sizes_are_exact():
    k = np.fromfile(DATA / "kv" / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    hist = np.bincount((k >> 7) & 0xFF, minlength=256)
    esc = int(k.size - np.sort(hist)[-16:].sum())  # ties do not matter for the count
    assert splitzip.predict_frame_size(k.size, esc) == len(splitzip.compress(k))
    assert splitzip.predict_frame_size(0, 0) == 64
    assert splitzip.predict_frame_size(10, 11) == 0


def test_bf16_only_file_stays_version_1(tmp_path):
    """A file without F16, F32 or FP8 tensors: container version 1, byte for byte what pack
    wrote before version 2 (its CRC-32 and size recorded in st_cases.BF16_ONLY_V1)."""
    import zlib
    (tmp_path / "b.safetensors").write_bytes(st_cases.bf16_only_bytes())
    sst.pack(tmp_path / "b.safetensors", tmp_path / "b.szst")
    b = (tmp_path / "b.szst").read_bytes()
    assert b[4] == 1 and (zlib.crc32(b), len(b)) == st_cases.BF16_ONLY_V1
    assert sst.info(tmp_path / "b.szst")["version"] == 1


V2_OPTIONS = [{}, {"frame_elems": 10000}, {"mode": "entropy", "frame_elems": 7000},
              {"mode": "auto"}, {"mode": "split4", "checksum": False, "chunk_log2": 10},
              {"backend": "scalar", "frame_elems": 4096}]


@pytest.mark.parametrize("opts", V2_OPTIONS, ids=lambda o: ",".join(map(str, o.values())) or
                         "default")
def test_v2_round_trip(mixed, tmp_path, opts):
    sst.pack(mixed, tmp_path / "x.szst", **opts)
    assert (tmp_path / "x.szst").read_bytes()[4] == 2
    sst.unpack(tmp_path / "x.szst", tmp_path / "x.safetensors")
    assert (tmp_path / "x.safetensors").read_bytes() == mixed.read_bytes()
    by_name = {t["name"]: t for t in sst.info(tmp_path / "x.szst")["tensors"]}
    for name, dtype, shape, b in st_cases.mixed_tensors(DATA):
        t = by_name[name]
        assert t["dtype"] == dtype and t["shape"] == shape and t["bytes"] == len(b)
        if dtype in ("BF16", "F16", "F32", "F8_E4M3", "F8_E5M2"):
            width = {"F8_E4M3": 1, "F8_E5M2": 1, "F32": 4}.get(dtype, 2)
            fe = opts.get("frame_elems", sst.DEFAULT_FRAME_ELEMS)
            assert t["elements"] == len(b) // width
            assert t["frames"] == max(1, -(-t["elements"] // fe)), name
        else:
            assert "frames" not in t and t["stored"] == len(b)
    if opts.get("frame_elems"):
        assert by_name["k.f32"]["frames"] > 1 and by_name["k.e4m3"]["frames"] > 1


def test_v2_load(mixed, tmp_path):
    """load() of a version 2 container: every tensor with the dtype of the plain file's load(),
    the same bits (compared as integers)."""
    sst.pack(mixed, tmp_path / "x.szst", frame_elems=5000)
    packed, plain = sst.load(tmp_path / "x.szst"), sst.load(mixed)
    assert list(packed) == list(plain)
    want = {"BF16": np.uint16, "F16": np.float16, "F32": np.float32, "F8_E4M3": np.uint8,
            "F8_E5M2": np.uint8, "I32": np.int32, "U8": np.uint8}
    for name, dtype, shape, b in st_cases.mixed_tensors(DATA):
        a = packed[name]
        assert a.dtype == want[dtype] and a.dtype == plain[name].dtype, name
        assert a.shape == (tuple(shape) if not dtype.startswith("F8") else (len(b),)), name
        assert a.tobytes() == b and a.tobytes() == plain[name].tobytes(), name


@pytest.mark.skipif(not os.environ.get("SPLITZIP_CLI"), reason="SPLITZIP_CLI not set")
def test_v2_same_container_as_the_cli(mixed, tmp_path):
    """Every option of `splitzip pack` gives the same version 2 container in Python; the BF16
    codebook and entropy table apply to the BF16 tensors only."""
    z = os.environ["SPLITZIP_CLI"]
    k = np.fromfile(DATA / "kv" / "aidreams260k__shakespeare.K.bf16", dtype=np.uint16)
    subprocess.run([z, "calibrate", "-q", str(DATA / "kv" / "aidreams260k__shakespeare.K.bf16"),
                    "-o", str(tmp_path / "cb")], check=True)
    subprocess.run([z, "calibrate", "-q", "--mode", "entropy",
                    str(DATA / "kv" / "aidreams260k__shakespeare.K.bf16"), "-o",
                    str(tmp_path / "tb")], check=True)
    cli_of = {"frame_elems": "--frame-elems", "mode": "--mode", "chunk_log2": "--chunk-log2",
              "backend": "--backend"}
    cases = [(o, sum(([cli_of[k], str(v)] for k, v in o.items() if k != "checksum"), []) +
              (["--no-checksum"] if o.get("checksum") is False else [])) for o in V2_OPTIONS]
    cases += [({"codebook": splitzip.calibrate(k)}, ["--codebook", str(tmp_path / "cb")]),
              ({"table": splitzip.calibrate_entropy(k)}, ["--table", str(tmp_path / "tb")]),
              ({"table": splitzip.calibrate_entropy(k), "mode": "auto"},
               ["--table", str(tmp_path / "tb"), "--mode", "auto"])]
    for opts, args in cases:
        sst.pack(mixed, tmp_path / "py.szst", overwrite=True, **opts)
        subprocess.run([z, "pack", "-q", "-f"] + args + [str(mixed), str(tmp_path / "c.szst")],
                       check=True)
        assert (tmp_path / "py.szst").read_bytes() == (tmp_path / "c.szst").read_bytes(), args


def test_containers_from_the_spec_accepted(tmp_path):
    """Version 1 with F16, F32 and FP8 tensors stored as they are (as pack wrote them before
    version 2) and version 2 with them in frames, written from FORMAT.md: restored."""
    for name, data, orig, orig_bytes in st_cases.accepted_containers(splitzip.compress):
        (tmp_path / name).write_bytes(data)
        sst.unpack(tmp_path / name, tmp_path / "r", overwrite=True)
        assert (tmp_path / "r").read_bytes() == orig_bytes, name
        assert sst.info(tmp_path / name)["version"] == data[4]


def hostile_cases(model, tmp):
    packed = {}
    for name, src in (("model", model), ("bf16_only", tmp / "b.safetensors"),
                      ("mixed", tmp / "mixed.safetensors")):
        if name == "bf16_only":
            src.write_bytes(st_cases.bf16_only_bytes())
        if name == "mixed":
            src.write_bytes(st_cases.safetensors_bytes(st_cases.mixed_tensors(DATA),
                                                       metadata={"format": "pt"}))
        sst.pack(src, tmp / f"{name}.szst", overwrite=True)
        packed[name] = (tmp / f"{name}.szst").read_bytes()
    cases = [(n, b, r, "safetensors") for n, b, r in st_cases.hostile_safetensors()]
    cases += [(n, b, r, "container") for n, b, r in
              st_cases.container_cases(packed["model"], packed["mixed"], packed["bf16_only"],
                                       splitzip.compress)]
    return cases


def test_edge_cases_accepted_and_restored(tmp_path):
    for name, data in st_cases.accepted_safetensors():
        src = tmp_path / name
        src.write_bytes(data)
        sst.pack(src, tmp_path / "e.szst", overwrite=True)
        sst.unpack(tmp_path / "e.szst", tmp_path / "e.out", overwrite=True)
        assert (tmp_path / "e.out").read_bytes() == data, name


def test_hostile_inputs_rejected_with_their_reason(model, tmp_path):
    for name, data, reason, kind in hostile_cases(model, tmp_path):
        src, dst = tmp_path / name, tmp_path / "out"
        src.write_bytes(data)
        op = sst.pack if kind == "safetensors" else sst.unpack
        with pytest.raises((sst.SafetensorsError, splitzip.SplitzipError)) as e:
            op(src, dst)
        got = getattr(e.value, "reason", None) or e.value.name
        assert got == reason, f"{name}: {got} instead of {reason}"
        assert not dst.exists() and not list(tmp_path.glob("*.splitzip-tmp.*")), name
