"""The progress line (ctest cli-progress): shown on a terminal for runs longer than a second
(bytes, rate, ETA; erased before the summary), never when stderr is not a terminal, never with
-q. Each run is made long by draining its output, a FIFO, slowly.

    python3 test_progress.py SPLITZIP INPUT.bf16
"""
import os
import pty
import subprocess
import sys
import tempfile
import time


def run(z, src, tty, quiet):
    """stderr of 'splitzip compress' into a FIFO read slowly (about 1.5 s)."""
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "out.fifo")
        os.mkfifo(fifo)
        master, slave = pty.openpty() if tty else os.pipe()
        args = [z, "compress", "--frame-elems", "16384", src, fifo] + (["-q"] if quiet else [])
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        fd = os.open(fifo, os.O_RDONLY)
        t0 = time.monotonic()
        while os.read(fd, 4096):
            time.sleep(0.015)
        os.close(fd)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # a pty whose other end is closed
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        rc = p.wait()
        assert rc == 0, f"exit {rc}: {out!r}"
        assert time.monotonic() - t0 > 1.2, "the run was too short to test progress"
        return out.decode(errors="replace")


def main():
    z, src = sys.argv[1], sys.argv[2]
    piped = run(z, src, tty=False, quiet=False)
    assert "\r" not in piped and "ETA" not in piped, f"progress on a pipe: {piped!r}"
    assert piped.count("\n") == 1 and "whole run incl. I/O" in piped, piped
    shown = run(z, src, tty=True, quiet=False)
    assert "\rsplitzip: compress " in shown and "GB/s, ETA " in shown, f"no progress: {shown!r}"
    assert "\r\033[K" in shown and "ratio" in shown.split("\r\033[K")[-1], shown
    quiet = run(z, src, tty=True, quiet=True)
    assert quiet == "", f"-q printed: {quiet!r}"
    print("cli-progress: ok (not a terminal: summary only; terminal: progress; -q: nothing)")


if __name__ == "__main__":
    main()
