#!/usr/bin/env python3
"""The tests a CI step ran against the checked-in list of the tests it must run (ci/tests/).

    check-tests.py [--update] [--ctest-json FILE]... [--counts FILE] LIST RESULTS...

RESULTS are ctest JUnit files (ctest --output-junit) or text files with one "NAME STATUS" line
per check a script ran (STATUS: passed, failed or skipped). LIST has one test name per line
('#' starts a comment); a name followed by "gpu-device" may be skipped on a machine without a
GPU (/dev/nvidia0 or /dev/kfd absent), and no other test may be skipped. Prints the number of
tests that ran and the number expected, and fails on a test that is missing, unexpected,
failed, or skipped without leave.

--counts FILE: write "PASSED FAILED SKIPPED" there (failed: every problem found).
--update rewrites LIST from RESULTS instead (after a deliberate change of the suites); a test
gets the "gpu-device" mark when ctest gives it the label gpu-device (--ctest-json: the output
of ctest --show-only=json-v1, for the labels).
"""
import json
import os
import sys
import xml.etree.ElementTree as ET


def read_results(path):
    """{name: status} of one results file."""
    out = {}
    with open(path, "rb") as f:
        head = f.read(64)
    if head.lstrip().startswith(b"<"):
        for case in ET.parse(path).getroot().iter("testcase"):
            status = case.get("status", "run")
            if case.find("skipped") is not None or status in ("notrun", "disabled"):
                status = "skipped"
            elif case.find("failure") is not None or status == "fail":
                status = "failed"
            else:
                status = "passed"
            out[case.get("name")] = status
    else:
        for line in open(path, encoding="utf-8"):
            if line.strip():
                name, status = line.split()
                out[name] = status
    return out


def read_list(path):
    """[(name, marks)] of a list file, in order."""
    entries = []
    for line in open(path, encoding="utf-8"):
        words = line.split("#", 1)[0].split()
        if words:
            entries.append((words[0], set(words[1:])))
    return entries


def gpu_present():
    return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/kfd")


def labels_of(json_files):
    labels = {}
    for path in json_files:
        for t in json.load(open(path, encoding="utf-8")).get("tests", []):
            for p in t.get("properties", []):
                if p.get("name") == "LABELS":
                    labels[t["name"]] = set(p.get("value", []))
    return labels


def update(list_path, results, json_files):
    labels = labels_of(json_files)
    header = []
    if os.path.exists(list_path):
        for line in open(list_path, encoding="utf-8"):
            if not line.startswith("#"):
                break
            header.append(line)
    with open(list_path, "w", encoding="utf-8") as f:
        f.writelines(header)
        for name in sorted(results):
            mark = " gpu-device" if "gpu-device" in labels.get(name, ()) else ""
            f.write(f"{name}{mark}\n")
    print(f"{list_path}: {len(results)} tests written")
    return 0


def check(list_path, results, counts=None):
    step = os.path.splitext(os.path.basename(list_path))[0]
    expected = read_list(list_path)
    names = {n for n, _ in expected}
    problems = []
    for name, _ in expected:
        if name not in results:
            problems.append(f"missing: {name} (expected by {list_path}, did not run)")
    for name in sorted(results):
        if name not in names:
            problems.append(f"unexpected: {name} (not in {list_path})")
    skipped_ok = 0
    for name, marks in expected:
        st = results.get(name)
        if st == "failed":
            problems.append(f"failed: {name}")
        elif st == "skipped":
            if "gpu-device" in marks and not gpu_present():
                skipped_ok += 1
            else:
                problems.append(f"skipped: {name} (no leave to skip here)")
    ran = sum(1 for n in results if results[n] != "skipped")
    if counts:
        passed = sum(1 for n in results if results[n] == "passed")
        with open(counts, "w", encoding="utf-8") as f:
            f.write(f"{passed} {len(problems)} {skipped_ok}\n")
    print(f"{step}: {len(results)} tests, {len(expected)} expected ({list_path}); {ran} ran, "
          f"{skipped_ok} skipped for want of a GPU device")
    for p in problems:
        print(f"{step}: {p}")
    if problems:
        print(f"{step}: FAILED the test-list check. After a deliberate change of the suites, "
              f"refresh the lists: SPLITZIP_UPDATE_TESTS=1 bash ci/run_tests.sh")
        return 1
    return 0


def main(argv):
    do_update, json_files, args, counts = False, [], [], None
    i = 0
    while i < len(argv):
        if argv[i] == "--update":
            do_update = True
        elif argv[i] == "--ctest-json":
            i += 1
            json_files.append(argv[i])
        elif argv[i] == "--counts":
            i += 1
            counts = argv[i]
        else:
            args.append(argv[i])
        i += 1
    if len(args) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results = {}
    for path in args[1:]:
        if not os.path.exists(path):
            print(f"check-tests: {path} missing: the step ended before its tests ran")
            if counts:
                with open(counts, "w", encoding="utf-8") as f:
                    f.write("0 1 0\n")
            return 1
        for name, st in read_results(path).items():
            if name in results:
                print(f"check-tests: {name} reported twice", file=sys.stderr)
                return 1
            results[name] = st
    if do_update:
        return update(args[0], results, json_files)
    return check(args[0], results, counts)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
