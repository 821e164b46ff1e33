"""``nmm-chess startup``: how long the engine takes from launch to ``readyok``
and how much memory it holds, as a GUI starts it.

Each trial launches the engine, sends ``uci``, the ``setoption`` lines
given, ``isready`` once ``uciok`` came, and reads the process's peak
resident memory (``VmHWM`` in /proc/<pid>/status, Linux) at ``readyok``
and again after ``go depth`` from the start position. Median times, the
largest peaks (a measurement, not a test: the machine may be busy).
"""
from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path

SEARCH_DEPTH = 10


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far, in MiB (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc: peak memory is read on Linux only")


def _read_until(proc: subprocess.Popen, prefix: str) -> float:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine exited before {prefix}")
        if line.startswith(prefix):
            return time.perf_counter()


def one_trial(command: list[str], setoptions: list[str], depth: int = SEARCH_DEPTH) -> dict[str, float]:
    """Milliseconds from launch to uciok and to readyok, peak MiB then and after a search."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(*lines: str) -> None:
        proc.stdin.write("".join(line + "\n" for line in lines))
        proc.stdin.flush()
    try:
        send("uci")
        uciok = _read_until(proc, "uciok") - start
        send(*setoptions, "isready")
        readyok = _read_until(proc, "readyok") - start
        ready_mb = peak_rss_mb(proc.pid)
        send("position startpos", f"go depth {depth}")
        _read_until(proc, "bestmove")
        search_mb = peak_rss_mb(proc.pid)
        send("quit")
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return {"launch to uciok, ms": uciok * 1000, "launch to readyok, ms": readyok * 1000,
            "peak RSS at readyok, MiB": ready_mb, f"peak RSS after go depth {depth}, MiB": search_mb}


def measure(command: list[str], trials: int = 15, setoptions: list[str] | None = None,
            depth: int = SEARCH_DEPTH) -> dict[str, float]:
    """Median times and largest peaks over ``trials`` launches."""
    runs = [one_trial(command, setoptions or [], depth) for _ in range(trials)]
    return {k: (statistics.median(r[k] for r in runs) if k.endswith("ms") else max(r[k] for r in runs))
            for k in runs[0]}
