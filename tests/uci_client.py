"""Driving the engine as a GUI does, for the tests: a whole transcript at once,
or a live process read line by line. Every wait has a hang guard: far longer
than any answer takes, it only ever trips on a hung engine, and then fails
the test instead of stalling the run."""
from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENGINE = [sys.executable, str(REPO / "uci_main.py")]
RESEARCH = [*ENGINE, "--research"]     # research mode: the uci list shows the research switches too
HANG_GUARD = 60.0                   # seconds


def errors_in(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string error")]


def transcript(*lines: str, errors_ok: bool = False, command: list[str] = ENGINE, **popen) -> list[str]:
    """Feed ``lines`` to a fresh engine (``command``) and return what it
    printed. It must exit cleanly, write nothing to stderr and, unless
    ``errors_ok``, report no error (``info string error: ...``)."""
    proc = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=HANG_GUARD, **popen)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = proc.stdout.splitlines()
    if not errors_ok:
        assert not errors_in(out), errors_in(out)
    return out


def answers(*lines: str, until: str = "bestmove", errors_ok: bool = False, **popen) -> list[str]:
    """Like ``transcript``, but reads up to the first line starting with
    ``until`` before it quits (the end of the input stops a search)."""
    with Engine(**popen) as engine:
        engine.send(*lines)
        _, out = engine.read_until(until)
        assert engine.quit() == 0
    if not errors_ok:
        assert not errors_in(out), errors_in(out)
    return out


class Engine:
    """A live engine process; ``lines`` keeps everything it printed, with the
    time each line was read."""

    def __init__(self, command: list[str] = ENGINE, **popen) -> None:
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, **popen)
        self.lines: list[tuple[float, str]] = []
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._queue.put((time.monotonic(), line.rstrip("\n")))
        self._queue.put((time.monotonic(), None))

    def send(self, *lines: str) -> float:
        """Write ``lines`` at once; the time they were sent."""
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()
        return time.monotonic()

    def next_line(self, guard: float = HANG_GUARD) -> tuple[float, str]:
        try:
            at, line = self._queue.get(timeout=guard)
        except queue.Empty:
            raise AssertionError(f"no answer in {guard} s: the engine hangs") from None
        assert line is not None, "the engine exited"
        self.lines.append((at, line))
        return at, line

    def read_until(self, prefix: str, guard: float = HANG_GUARD) -> tuple[float, list[str]]:
        """Lines up to and including the first that starts with ``prefix``,
        and when that one came."""
        seen = []
        while True:
            at, line = self.next_line(guard)
            seen.append(line)
            if line.startswith(prefix):
                return at, seen

    def silent_for(self, seconds: float) -> list[str]:
        """What the engine printed in the next ``seconds`` (to show that it
        did not answer: a slower machine answers no sooner)."""
        end = time.monotonic() + seconds
        seen = []
        while (left := end - time.monotonic()) > 0:
            try:
                at, line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                raise AssertionError("the engine exited")
            self.lines.append((at, line))
            seen.append(line)
        return seen

    def quit(self) -> int:
        self.send("quit")
        code = self.proc.wait(timeout=HANG_GUARD)
        assert self.proc.stderr.read() == ""
        return code

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
