#!/usr/bin/env python3
"""Checks the layering rules of doc/ARCHITECTURE.md on the source tree, and the length of host
functions. Exit status 1 and one line per violation when a rule is broken.

    python3 ci/check_layers.py [--root DIR] [--max-lines N]
    python3 ci/check_layers.py --self-test     plants one violation of each kind in a scratch
                                               tree and fails unless each one is reported

Layers, bottom up: include/ (the public header) < core/ < backends/ < dispatch/ < api/ <
tools/, bench/, python/. A file may include its own layer and the layers below it:

    core/          core/, include/splitzip.h
    backends/      core/, backends/, include/splitzip.h, splitzip_config.h
    dispatch/      core/, backends/, dispatch/, include/splitzip.h, splitzip_config.h
    api/           everything above but tools/bench/python/tests
    tools/, bench/ include/splitzip.h and their own folder only (the public API); tools/ may
                   also include bench/sz_bench.h, the benchmark that `splitzip bench` runs
    examples/      include/splitzip.h and their own folder only (the public API)
    python/        loads the library (ctypes); no C includes at all

No production file includes anything under tests/. A quoted include is resolved against the
including file's folder and then the build's include path (include/, backends/gpu/ for the GPU
module builds); one that resolves nowhere is an error too, except the generated
splitzip_config.h.

Function length: the body of every function in the host C code of the library, the CLI and the
benchmarks and examples (core/, dispatch/, api/, backends/cpu_*/, tools/, bench/*.c,
bench/*.cu, examples/*/*.c) and of the GPU kernels (backends/gpu/*.cuh) is at most --max-lines
lines (default 80), counted from the opening to the closing brace. The sources are formatted
with the repository's .clang-format, which puts a function's braces in column 0. GPU functions
that were longer when the rule came are listed in ci/gpu-long-functions.txt ("path function
lines"): each may not grow past its recorded length, and an entry whose function got within the
limit (or is gone) must be removed, so the list only shrinks.
"""
import argparse
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
PRODUCTION = ("core", "backends", "dispatch", "api", "tools", "bench", "python", "examples")
SOURCES = (".c", ".h", ".cu", ".cuh", ".cpp", ".hip")

# The layers each production folder may include (besides the public header).
ALLOWED = {
    "core": {"core"},
    "backends": {"core", "backends"},
    "dispatch": {"core", "backends", "dispatch"},
    "api": {"core", "backends", "dispatch", "api"},
    "tools": {"tools", "bench"},  # `splitzip bench` runs the benchmark library
    "bench": {"bench"},
    "python": set(),
    "examples": {"examples"},
}
CONFIG = "splitzip_config.h"
PUBLIC = os.path.join("include", "splitzip.h")
SEARCH_PATH = ("include", os.path.join("backends", "gpu"), "bench")


def layer_of(rel):
    top = rel.split(os.sep, 1)[0]
    return top if top in PRODUCTION or top in ("include", "tests") else None


def resolve(root, rel_file, name):
    """The repository-relative path of a quoted include, or None."""
    for base in [os.path.dirname(rel_file)] + list(SEARCH_PATH):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check_includes(root, rel, errors):
    layer = layer_of(rel)
    if layer not in PRODUCTION:
        return
    with open(os.path.join(root, rel), errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            name = m.group(1)
            if os.path.basename(name) == CONFIG:
                if layer in ("core", "tools", "bench", "python", "examples"):
                    errors.append(f"{rel}:{lineno}: {layer}/ must not depend on the build "
                                  f"configuration ({name})")
                continue
            target = resolve(root, rel, name)
            if target is None:
                errors.append(f"{rel}:{lineno}: include \"{name}\" resolves to no file")
                continue
            if target == PUBLIC:
                continue
            tlayer = layer_of(target)
            if tlayer == "tests":
                errors.append(f"{rel}:{lineno}: production code includes a test file {target}")
            elif tlayer not in ALLOWED[layer]:
                errors.append(f"{rel}:{lineno}: {layer}/ includes {target} ({tlayer}/ is "
                              f"not below {layer}/)")


HOST_C = re.compile(r"^(core|dispatch|api|tools|bench)/[^/]+\.c$|^bench/[^/]+\.cu$|"
                    r"^backends/cpu_[^/]+/[^/]+\.c$|^examples/[^/]+/[^/]+\.c$")
GPU = re.compile(r"^backends/gpu/[^/]+\.cuh$")
ALLOWLIST = os.path.join("ci", "gpu-long-functions.txt")


def read_allowlist(root):
    """{(path, function): lines} of the GPU functions allowed past the limit."""
    allowed = {}
    path = os.path.join(root, ALLOWLIST)
    if os.path.isfile(path):
        with open(path) as f:
            for line in f:
                parts = line.split("#", 1)[0].split()
                if len(parts) == 3:
                    allowed[(parts[0], parts[1])] = int(parts[2])
    return allowed


def function_name(line):
    """The function a signature line declares: its last name before '(' that is not one of
    the kernel macros (SZ_LAUNCH_BOUNDS...)."""
    names = [n for n in re.findall(r"(\w+)\s*\(", line) if not n.startswith("SZ_")]
    return names[-1] if names else "?"


def check_lengths(root, rel, max_lines, errors, allowed=None, seen=None):
    relu = rel.replace(os.sep, "/")
    gpu = bool(GPU.match(relu))
    if not HOST_C.match(relu) and not gpu:
        return
    with open(os.path.join(root, rel), errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        # A function body: '{' alone in column 0 after a line that is not an initialiser.
        if lines[i] == "{" and i > 0 and "=" not in lines[i - 1] and \
                not re.match(r"^(typedef|struct|enum|union)\b", lines[i - 1]):
            j = i - 1
            while j > 0 and not re.search(r"\w+\s*\(", lines[j]):
                j -= 1
            name = function_name(lines[j])
            end = i + 1
            while end < len(lines) and lines[end] != "}":
                end += 1
            n = end - i + 1
            cap = max_lines
            if gpu and allowed is not None and (relu, name) in allowed:
                seen[(relu, name)] = n
                cap = max(max_lines, allowed[(relu, name)])
            if n > cap:
                more = f", listed at {cap} in {ALLOWLIST}" if cap > max_lines else ""
                errors.append(f"{rel}:{i + 1}: function {name} is {n} lines "
                              f"(at most {max_lines}{more})")
            i = end
        i += 1


def check_tree(root, max_lines):
    errors = []
    n_files = 0
    allowed, seen = read_allowlist(root), {}
    for top in PRODUCTION:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(SOURCES):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                n_files += 1
                check_includes(root, rel, errors)
                check_lengths(root, rel, max_lines, errors, allowed, seen)
    for (path, name), cap in sorted(allowed.items()):
        n = seen.get((path, name))
        if n is None or n <= max_lines:
            errors.append(f"{ALLOWLIST}: {path} {name} is "
                          f"{'gone' if n is None else f'{n} lines'}: remove its entry "
                          "(the list only shrinks)")
    return n_files, errors


def self_test():
    """Each planted file must give exactly the violation named next to it."""
    import tempfile
    body = "\n".join(["\tx++;"] * 90)
    plants = {
        "include/splitzip.h": ("", None),
        "core/ok.h": ('#include "../include/splitzip.h"\n#include "ok2.h"\n', None),
        "core/ok2.h": ("", None),
        "core/up.h": ('#include "../dispatch/d.h"\n', "core/ includes dispatch/d.h"),
        "dispatch/d.h": ('#include "../core/ok.h"\n#include "../api/a.h"\n',
                         "dispatch/ includes api/a.h"),
        "api/a.h": ('#include "../dispatch/d.h"\n', None),
        "backends/x.c": ('#include "../tests/t.h"\n', "includes a test file tests/t.h"),
        "tests/t.h": ("", None),
        "tools/t.c": ('#include "../core/ok.h"\n#include "splitzip.h"\n',
                      "tools/ includes core/ok.h"),
        "bench/b.c": ('#include "nowhere.h"\n', "resolves to no file"),
        "core/cfg.c": ('#include "splitzip_config.h"\n', "build configuration"),
        "core/long.c": ("static void f(void)\n{\n" + body + "\n}\n", "function f is 92"),
        "bench/long.cu": ("static void h(void)\n{\n" + body + "\n}\n", "function h is 92"),
        "api/short.c": ("static void g(void)\n{\n\tx++;\n}\n", None),
        "backends/gpu/k.cuh": ("template <int W>\nSZ_GLOBAL SZ_LAUNCH_BOUNDS(256) void k(int a)\n{\n" +
                               body + "\n}\n" + "SZ_DEVICE void ok(void)\n{\n" + body + "\n}\n" +
                               "SZ_DEVICE void grew(void)\n{\n" + body + "\n}\n" +
                               "SZ_DEVICE void fits(void)\n{\n\tx++;\n}\n",
                               "function k is 92"),
        ALLOWLIST: ("backends/gpu/k.cuh ok 92\nbackends/gpu/k.cuh grew 91\n"
                    "backends/gpu/k.cuh fits 85\nbackends/gpu/k.cuh gone 90\n", None),
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, (text, _) in plants.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        _, errors = check_tree(root, 80)
    want = [w for _, w in plants.values() if w] + [
        "function grew is 92 lines (at most 80, listed at 91", "k.cuh fits is 3 lines: remove",
        "k.cuh gone is gone: remove"]
    missing = [w for w in want if not any(w in e for e in errors)]
    for w in missing:
        print(f"self-test: not reported: {w}")
    if len(errors) != len(want):
        print(f"self-test: {len(errors)} violations reported, {len(want)} planted:")
        for e in errors:
            print("  " + e)
    ok = not missing and len(errors) == len(want)
    print(f"check_layers self-test: {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--max-lines", type=int, default=80)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    n_files, errors = check_tree(os.path.abspath(args.root), args.max_lines)
    for e in errors:
        print(e)
    print(f"check_layers: {n_files} files, {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
