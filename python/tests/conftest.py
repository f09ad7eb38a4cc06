"""pytest configuration of the binding tests in a source checkout.

splitzip is imported from this checkout's python/ (never an installed copy), and every run says
which libsplitzip it loaded and why: $SPLITZIP_LIBRARY (as ctest sets it: the library of its
build), else the checkout's build tree (build/, else build/release/), else the loader's search
path.

Every skip is listed (ctest runs pytest with -rs). With SPLITZIP_REQUIRE_TEST_DEPS=1 (set by
ctest in builds configured with SPLITZIP_REQUIRE_TEST_DEPS=ON, as CI configures them) a skip
fails the run, whether of one test or of a whole module (pytest.importorskip), unless its
reason says that it needs a GPU (a CUDA or HIP device or backend, which CI machines lack): no
test is left out for want of a Python module, a file or a setting.
"""
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402

GPU_REASON = re.compile(r"\b(CUDA|HIP|GPU)\b")
STRICT = os.environ.get("SPLITZIP_REQUIRE_TEST_DEPS") == "1"
_not_allowed = []


def _which():
    return (f"splitzip {splitzip.__version__} ({Path(splitzip.__file__).parent}) loaded "
            f"{splitzip._LIBRARY_PATH}: {splitzip._LIBRARY_ORIGIN}")


def pytest_report_header(config):
    return _which()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config.option.verbose < 0:  # -q prints no header
        terminalreporter.write_line(_which())


def _reason(report):
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _check(report):
    if report.skipped and not getattr(report, "wasxfail", None):
        reason = _reason(report)
        if not GPU_REASON.search(reason):
            _not_allowed.append(f"{report.nodeid}: {reason}")


def pytest_collectreport(report):
    _check(report)


def pytest_runtest_logreport(report):
    _check(report)


def pytest_sessionfinish(session, exitstatus):
    if STRICT and _not_allowed:
        print("\nSPLITZIP_REQUIRE_TEST_DEPS: skips that do not need a GPU:")
        for line in _not_allowed:
            print("  " + line)
        session.exitstatus = 1
