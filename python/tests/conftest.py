"""pytest setup of the binding tests in a source checkout: splitzip is imported from this
checkout's python/ (never an installed copy), and every run says which libsplitzip it loaded and
why: $SPLITZIP_LIBRARY (as ctest sets it: the library of its build), else the checkout's build
tree (build/, else build/release/), else the loader's search path."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import splitzip  # noqa: E402


def _which():
    return (f"splitzip {splitzip.__version__} ({Path(splitzip.__file__).parent}) loaded "
            f"{splitzip._LIBRARY_PATH}: {splitzip._LIBRARY_ORIGIN}")


def pytest_report_header(config):
    return _which()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if config.option.verbose < 0:  # -q prints no header
        terminalreporter.write_line(_which())
