"""Response times of the UCI engine: uciok after start, isready and stop
mid-search, how late ``go movetime 100`` answers, how long ``go depth 6``
takes after ``ucinewgame`` (a few milliseconds with one thread: with many
threads on few cores, a measure of how much of the machine the main search
still gets), quit mid-search. Median
and worst of several trials (a measurement, not a test: the machine may be
busy)."""
from __future__ import annotations

import statistics
import subprocess
import time

from engine.tools.engines import KNOWN

MOVETIME_MS = 100
DEPTH = 6
POSITION = "position fen r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1"


def _read_until(proc: subprocess.Popen, prefix: str) -> float:
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("engine exited")
        if line.startswith(prefix):
            return time.perf_counter()


def one_trial(command: list[str], think: float, threads: int = 1) -> dict[str, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line: str) -> float:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return time.perf_counter()

    send("uci")
    uciok = _read_until(proc, "uciok") - start
    if threads > 1:
        send(f"setoption name Threads value {threads}")
    send("isready")
    _read_until(proc, "readyok")
    send(POSITION)
    send("go infinite")
    time.sleep(think)
    sent = send("isready")
    isready = _read_until(proc, "readyok") - sent
    sent = send("stop")
    stop = _read_until(proc, "bestmove") - sent
    sent = send(f"go movetime {MOVETIME_MS}")
    late = _read_until(proc, "bestmove") - sent - MOVETIME_MS / 1000
    send("ucinewgame")                  # an empty table: the depth is searched, not looked up
    send("isready")
    _read_until(proc, "readyok")
    sent = send(f"go depth {DEPTH}")
    depth = _read_until(proc, "bestmove") - sent
    send("go infinite")
    time.sleep(think)
    sent = send("quit")
    proc.wait(timeout=30)
    quit_ = time.perf_counter() - sent
    return {"uciok": uciok, "isready": isready, "stop": stop, "movetime late": late,
            f"depth {DEPTH}": depth, "quit": quit_}


def measure(trials: int = 20, command: list[str] | None = None, threads: int = 1) -> dict[str, tuple[float, float]]:
    """{what: (median ms, worst ms)}, searching with ``threads`` threads."""
    runs = [one_trial(command or KNOWN["nmm"], 0.2 + 0.05 * (i % 7), threads) for i in range(trials)]
    return {k: (statistics.median(r[k] for r in runs) * 1000, max(r[k] for r in runs) * 1000)
            for k in runs[0]}
