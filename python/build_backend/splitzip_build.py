"""The PEP 517 build backend of the splitzip Python package (pyproject.toml names it).

    pip install ./python        (into a virtual environment; README.md "Quick start")

Why a backend of our own instead of setuptools: it uses the standard library only, so pip's
build isolation has nothing to install (requires = []) and `pip install ./python` works with no
index and no network; and it writes only into the directories pip hands it, never into the
source tree (setuptools leaves build/ and splitzip.egg-info/ in python/). The __pycache__ file
beside this module keeps the interpreter that imports it from writing bytecode here.

The package is pure Python (ctypes); the one thing a build adds is splitzip/_libdir.py: the
absolute path of the installed C library that the package was built for, which `import
splitzip` then loads with no environment variable. That library is found here, at build time:

    $SPLITZIP_LIBDIR                   a directory holding libsplitzip.so.0, if set
    pkg-config --variable=libdir splitzip
                                       the library `cmake --install` put where pkg-config looks
                                       (/usr/local and /usr: nothing to set; another prefix:
                                       PKG_CONFIG_PATH=PREFIX/lib/pkgconfig)

and it is loaded once to check that it is the C library of the same version as this package.
No library, or another version: the build fails and says what to do; nothing is installed.
"""
import base64
import ctypes
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # python/
PACKAGE = "splitzip"
SONAME = "libsplitzip.so.0"
# Reproducible archives: entries dated SOURCE_DATE_EPOCH, else 1980-01-01 (zip's earliest).
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
# The [project] keys this backend turns into metadata; any other key is an error rather than
# something silently left out of the wheel.
PROJECT_KEYS = {"name", "version", "description", "readme", "requires-python", "dependencies"}


def _fail(msg):
    raise SystemExit(f"splitzip build: {msg}")


def _parse_toml_subset(text):
    """pyproject.toml on Pythons without tomllib (< 3.11): the subset this project's file uses,
    [table] headers and `key = value` lines whose value is a string or a list of strings on one
    line (their TOML spelling is also JSON's), with whole-line comments. Anything else fails."""
    doc = {}
    table = doc
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            table = doc
            for part in line[1:-1].split("."):
                table = table.setdefault(part.strip(), {})
            continue
        key, eq, value = line.partition("=")
        try:
            if not eq:
                raise ValueError
            table[key.strip().strip('"')] = json.loads(value)
        except ValueError:
            _fail(f"pyproject.toml line {n} needs a TOML parser (Python >= 3.11): {raw}")
    return doc


def _project():
    """The [project] table of pyproject.toml, checked against the keys this backend handles."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:
        doc = _parse_toml_subset(text)
    else:
        doc = tomllib.loads(text)
    project = doc.get("project", {})
    unknown = set(project) - PROJECT_KEYS
    if unknown:
        _fail(f"pyproject.toml [project] keys this backend does not handle: {sorted(unknown)}")
    for key in ("name", "version"):
        if not isinstance(project.get(key), str):
            _fail(f"pyproject.toml [project] needs a {key}")
    return project


def _metadata(project):
    """Core metadata 2.1 (METADATA in a wheel, PKG-INFO in an sdist)."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}",
             f"Version: {project['version']}"]
    if "description" in project:
        lines.append(f"Summary: {project['description']}")
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    body = ""
    if "readme" in project:
        lines.append("Description-Content-Type: text/markdown")
        body = "\n" + (ROOT / project["readme"]).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n" + body


def _package_files():
    """The package's sources, relative to python/: splitzip/**.py (no caches, no _libdir.py
    of an earlier build, nothing else the checkout holds)."""
    files = sorted(p.relative_to(ROOT) for p in (ROOT / PACKAGE).rglob("*.py")
                   if "__pycache__" not in p.parts)
    return [f for f in files if f.as_posix() != f"{PACKAGE}/_libdir.py"]


def _library(version):
    """The absolute path of the installed libsplitzip.so.0 of `version` (module docstring)."""
    libdir = os.environ.get("SPLITZIP_LIBDIR")
    origin = "$SPLITZIP_LIBDIR"
    if not libdir:
        origin = "pkg-config --variable=libdir splitzip"
        try:
            out = subprocess.run(["pkg-config", "--variable=libdir", "splitzip"],
                                 capture_output=True, text=True, check=False)
        except OSError:
            _fail("pkg-config not found (Debian: apt-get install pkg-config); it locates the "
                  "installed C library")
        libdir = out.stdout.strip()
        if out.returncode != 0 or not libdir:
            _fail("the C library is not installed where pkg-config looks. Install it first "
                  "(cmake --install build); for a prefix other than /usr/local or /usr, set "
                  "PKG_CONFIG_PATH=PREFIX/lib/pkgconfig (or SPLITZIP_LIBDIR=LIBDIR) for pip")
    lib = Path(libdir).resolve() / SONAME
    if not lib.is_file():
        _fail(f"{origin} gives {libdir}, which holds no {SONAME}")
    try:
        fn = ctypes.CDLL(str(lib)).splitzip_version_string
    except (OSError, AttributeError) as e:
        _fail(f"{lib} (from {origin}) cannot be loaded here: {e}")
    fn.restype = ctypes.c_char_p
    found = fn().decode()
    if found != version:
        _fail(f"{lib} (from {origin}) is splitzip {found}, this package {version}: install "
              "the C library of this source tree first (cmake --install build)")
    return lib


def _libdir_module(lib):
    return ('"""The C library this package was built for (written by the build backend, '
            'build_backend/splitzip_build.py)."""\n'
            f"LIBDIR = {str(lib.parent)!r}\nLIBRARY = {str(lib)!r}\n").encode()


def _zip_add(zf, name, data, record):
    info = zipfile.ZipInfo(name, date_time=time.gmtime(max(EPOCH, 315532800))[:6])
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")


# ---- PEP 517 hooks -------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """splitzip-VERSION-py3-none-any.whl in wheel_directory: the package and its _libdir.py."""
    project = _project()
    name, version = project["name"], project["version"]
    lib = _library(version)
    dist_info = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w") as zf:
        for rel in _package_files():
            _zip_add(zf, rel.as_posix(), (ROOT / rel).read_bytes(), record)
        _zip_add(zf, f"{PACKAGE}/_libdir.py", _libdir_module(lib), record)
        _zip_add(zf, f"{dist_info}/METADATA", _metadata(project).encode(), record)
        wheel = ("Wheel-Version: 1.0\nGenerator: splitzip_build\nRoot-Is-Purelib: true\n"
                 "Tag: py3-none-any\n")
        _zip_add(zf, f"{dist_info}/WHEEL", wheel.encode(), record)
        _zip_add(zf, f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode(), record)
        record.append(f"{dist_info}/RECORD,,")
        _zip_add(zf, f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), [])
    print(f"splitzip build: {wheel_name} for {lib}", file=sys.stderr)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """splitzip-VERSION.tar.gz: what building a wheel needs (the library is located again when
    the wheel is built from it)."""
    project = _project()
    base = f"{project['name']}-{project['version']}"
    files = [Path("pyproject.toml"), Path(project.get("readme", "README.md")),
             Path("build_backend/splitzip_build.py"), Path("build_backend/__pycache__")]
    files += _package_files()
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        entries = [(f"{base}/{f.as_posix()}", (ROOT / f).read_bytes()) for f in files]
        entries.append((f"{base}/PKG-INFO", _metadata(project).encode()))
        for arcname, data in entries:
            info = tarfile.TarInfo(arcname)
            info.size, info.mtime, info.mode = len(data), EPOCH, 0o644
            tf.addfile(info, io.BytesIO(data))
    return name
