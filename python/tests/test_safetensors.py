"""splitzip.safetensors: pack/unpack byte identity on a real safetensors file, the same
container bytes as the CLI, load() and info(), and the hostile files of tests/cli/st_cases.py
rejected with the reasons the CLI gives, nothing written."""
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


def test_package_writer_matches_the_spec_writer(model, tmp_path):
    """The header and table of the package are those st_cases.build() writes from FORMAT.md."""
    sst.pack(model, tmp_path / "m.szst")
    b = (tmp_path / "m.szst").read_bytes()
    head, tensors, size = sst.read_header(model)
    entries = [struct.unpack_from("<B3xIQQQ", b, 64 + ((len(head) + 15) & ~15) + 32 * i)
               for i in range(len(tensors))]
    header, meta = st_cases.build(head, [(e[0], e[1], e[2], e[4]) for e in entries], size)
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
    assert "escapes" not in by_name["scale.f32"]
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


def hostile_cases(model, tmp):
    valid = tmp / "valid.szst"
    sst.pack(model, valid, overwrite=True)
    cases = [(n, b, r, "safetensors") for n, b, r in st_cases.hostile_safetensors()]
    cases += [(n, b, r, "container") for n, b, r in
              st_cases.hostile_containers(valid.read_bytes()) +
              st_cases.crafted_containers(splitzip.compress)]
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
