"""pytest configuration of the binding tests.

Every skip is listed (ctest runs pytest with -rs). With SPLITZIP_REQUIRE_TEST_DEPS=1 (set by
ctest in builds configured with SPLITZIP_REQUIRE_TEST_DEPS=ON, as CI configures them) a skip
fails the run, whether of one test or of a whole module (pytest.importorskip), unless its
reason says that it needs a GPU (a CUDA or HIP device or backend, which CI machines lack): no
test is left out for want of a Python module, a file or a setting.
"""
import os
import re

GPU_REASON = re.compile(r"\b(CUDA|HIP|GPU)\b")
STRICT = os.environ.get("SPLITZIP_REQUIRE_TEST_DEPS") == "1"
_not_allowed = []


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
