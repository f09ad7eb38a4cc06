"""How the package is built and which library it loads: the build backend
(python/build_backend/splitzip_build.py: wheel and sdist contents, the library it records, what
it refuses) and the order in which `import splitzip` looks for libsplitzip (a source checkout's
build trees, the library recorded at install time). tests/install runs README.md's commands
end to end; these check each rule on its own."""
import base64
import csv
import hashlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import splitzip

PY = Path(__file__).resolve().parents[1]  # python/
ROOT = PY.parent
PACKAGE_SOURCES = sorted(p.relative_to(PY).as_posix() for p in (PY / "splitzip").rglob("*.py")
                         if "__pycache__" not in p.parts and p.name != "_libdir.py")
VERSION = re.search(r'#define SPLITZIP_VERSION_STRING "([^"]+)"',
                    (ROOT / "include" / "splitzip.h").read_text()).group(1)


def _load_backend():
    spec = importlib.util.spec_from_file_location(
        "splitzip_build", PY / "build_backend" / "splitzip_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


backend = _load_backend()


@pytest.fixture
def libdir():
    """The directory of the library these tests loaded (it holds libsplitzip.so.0)."""
    path = Path(splitzip._LIBRARY_PATH)
    if not path.is_absolute() or not (path.parent / "libsplitzip.so.0").is_file():
        pytest.skip(f"{path} is not a file beside libsplitzip.so.0")
    return path.resolve().parent


@pytest.fixture
def no_lookup_env(monkeypatch):
    for var in ("SPLITZIP_LIBDIR", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def _fake_library(tmp_path, version):
    """A libsplitzip.so.0 that only says it is `version`."""
    cc = shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler for a stand-in library")
    src = tmp_path / "fake.c"
    src.write_text('const char *splitzip_version_string(void) { return "%s"; }\n' % version)
    lib = tmp_path / "libsplitzip.so.0"
    # (Without the sanitizer runtimes that an instrumented run preloads into the interpreter.)
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True, env=env)
    return lib


def test_versions_agree():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((PY / "pyproject.toml").read_text())["project"]
    assert project["version"] == splitzip.__version__ == VERSION


def test_toml_subset_reads_pyproject_as_tomllib_does():
    tomllib = pytest.importorskip("tomllib")
    text = (PY / "pyproject.toml").read_text()
    assert backend._parse_toml_subset(text) == tomllib.loads(text)
    with pytest.raises(SystemExit, match="line 2 needs a TOML parser"):
        backend._parse_toml_subset('[project]\nurls = { home = "x" }\n')


def test_wheel_holds_the_package_and_the_library_it_was_built_for(tmp_path, libdir,
                                                                  no_lookup_env):
    no_lookup_env.setenv("SPLITZIP_LIBDIR", str(libdir))
    name = backend.build_wheel(str(tmp_path))
    assert name == f"splitzip-{VERSION}-py3-none-any.whl"
    dist = f"splitzip-{VERSION}.dist-info"
    with zipfile.ZipFile(tmp_path / name) as zf:
        names = zf.namelist()
        assert sorted(names) == sorted(PACKAGE_SOURCES + ["splitzip/_libdir.py"] + [
            f"{dist}/{f}" for f in ("METADATA", "WHEEL", "top_level.txt", "RECORD")])
        for rel in PACKAGE_SOURCES:
            assert zf.read(rel) == (PY / rel).read_bytes()
        recorded = {}
        exec(zf.read("splitzip/_libdir.py"), recorded)
        assert recorded["LIBRARY"] == str(libdir / "libsplitzip.so.0")
        meta = zf.read(f"{dist}/METADATA").decode()
        for field in ("Name: splitzip", f"Version: {VERSION}", "Requires-Dist: numpy",
                      "Requires-Python: >=3.8"):
            assert field + "\n" in meta
        rows = list(csv.reader(io.StringIO(zf.read(f"{dist}/RECORD").decode())))
        assert sorted(r[0] for r in rows) == sorted(names)
        for path, digest, size in rows:
            if path.endswith("RECORD"):
                assert digest == size == ""
                continue
            data = zf.read(path)
            want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert (digest, int(size)) == ("sha256=" + want.decode(), len(data))


def test_wheel_is_refused_without_the_library(tmp_path, no_lookup_env):
    no_lookup_env.setenv("SPLITZIP_LIBDIR", str(tmp_path))
    with pytest.raises(SystemExit, match="holds no libsplitzip.so.0"):
        backend.build_wheel(str(tmp_path))
    if not shutil.which("pkg-config"):
        pytest.skip("no pkg-config")
    no_lookup_env.delenv("SPLITZIP_LIBDIR")
    no_lookup_env.setenv("PKG_CONFIG_LIBDIR", str(tmp_path))  # an empty search path
    with pytest.raises(SystemExit, match="not installed where pkg-config looks"):
        backend.build_wheel(str(tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_wheel_is_refused_for_another_version(tmp_path, no_lookup_env):
    lib = _fake_library(tmp_path, "9.9.9")
    no_lookup_env.setenv("SPLITZIP_LIBDIR", str(tmp_path))
    with pytest.raises(SystemExit, match=f"is splitzip 9.9.9, this package {VERSION}"):
        backend.build_wheel(str(tmp_path))
    assert not list(tmp_path.glob("*.whl"))
    # The installed package refuses another major.minor version at import.
    out = _import_in(tmp_path, PY, {"SPLITZIP_LIBRARY": str(lib)})
    assert out.returncode != 0 and "is libsplitzip 9.9.9" in out.stderr


def test_sdist_builds_the_same_wheel(tmp_path, libdir, no_lookup_env):
    name = backend.build_sdist(str(tmp_path))
    base = f"splitzip-{VERSION}"
    with tarfile.open(tmp_path / name) as tf:
        members = sorted(m.name for m in tf.getmembers())
        tf.extractall(tmp_path / "x")
    assert members == sorted(f"{base}/{f}" for f in [
        "pyproject.toml", "README.md", "PKG-INFO", "build_backend/splitzip_build.py",
        "build_backend/__pycache__"] + PACKAGE_SOURCES)
    src = tmp_path / "x" / base
    env = dict(os.environ, SPLITZIP_LIBDIR=str(libdir))
    out = subprocess.run([sys.executable, "-c",
                          "import sys; sys.path.insert(0, 'build_backend'); import splitzip_build"
                          " as b; print(b.build_wheel(sys.argv[1]))", str(tmp_path)],
                         cwd=src, env=env, capture_output=True, text=True, check=True)
    with zipfile.ZipFile(tmp_path / out.stdout.strip()) as zf:
        assert sorted(n for n in zf.namelist() if n.startswith("splitzip/")) == sorted(
            PACKAGE_SOURCES + ["splitzip/_libdir.py"])
    assert not (src / "build_backend" / "__pycache__").is_dir()


# ---- which library `import splitzip` loads -------------------------------------------------

def _import_in(tmp_path, sys_path, env=None):
    """`import splitzip` in a fresh interpreter with `sys_path` first on its path and no
    SPLITZIP_LIBRARY unless `env` sets it; prints the library and why."""
    clean = {k: v for k, v in os.environ.items() if k != "SPLITZIP_LIBRARY"}
    clean.update(env or {})
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import splitzip; "
            "print(splitzip._LIBRARY_PATH); print(splitzip._LIBRARY_ORIGIN)")
    return subprocess.run([sys.executable, "-c", code, str(sys_path)], cwd=tmp_path, env=clean,
                          capture_output=True, text=True)


def _copy_package(dest):
    shutil.copytree(PY / "splitzip", dest / "splitzip",
                    ignore=shutil.ignore_patterns("__pycache__", "_libdir.py"))


def test_checkout_loads_its_build_tree(tmp_path, libdir):
    """build/ (README.md's), else build/release/ (ci/run_tests.sh's); never another tree."""
    root = tmp_path / "checkout"
    (root / "include").mkdir(parents=True)
    shutil.copy(ROOT / "include" / "splitzip.h", root / "include")
    _copy_package(root / "python")
    for tree in ("build/release", "build/aarch64", "build-asan"):
        (root / tree).mkdir(parents=True)
        (root / tree / "libsplitzip.so").symlink_to(libdir / "libsplitzip.so.0")
    out = _import_in(tmp_path, root / "python")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [str(root / "build/release/libsplitzip.so"),
                                       f"build tree build/release/ of the checkout {root}"]
    (root / "build" / "libsplitzip.so").symlink_to(libdir / "libsplitzip.so.0")
    out = _import_in(tmp_path, root / "python")
    assert out.stdout.splitlines()[0] == str(root / "build/libsplitzip.so"), out.stderr
    lib = str(libdir / "libsplitzip.so.0")
    out = _import_in(tmp_path, root / "python", {"SPLITZIP_LIBRARY": lib})
    assert out.stdout.splitlines() == [lib, "$SPLITZIP_LIBRARY"]


def test_installed_package_loads_the_recorded_library_or_none(tmp_path, libdir):
    site = tmp_path / "site"
    _copy_package(site)
    recorded = site / "splitzip" / "_libdir.py"
    recorded.write_text(f"LIBRARY = {str(libdir / 'libsplitzip.so.0')!r}\n")
    out = _import_in(tmp_path, site)
    assert out.stdout.splitlines() == [str(libdir / "libsplitzip.so.0"),
                                       "recorded when the package was installed"], out.stderr
    gone = tmp_path / "gone" / "libsplitzip.so.0"
    recorded.write_text(f"LIBRARY = {str(gone)!r}\n")
    out = _import_in(tmp_path, site)
    assert out.returncode != 0
    assert f"installed for {gone}, which is gone" in out.stderr
