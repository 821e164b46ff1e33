"""The protocol fuzzer: a short run against the engine (``make fuzz`` runs
100,000 lines), and proof that it catches a broken engine. No check here
depends on the machine's speed: the fuzzer fails only on what the engine
says (or never says: a hang guard far beyond any answer's time), and how
late an answer comes is a measurement."""
import sys
import textwrap
import time
from pathlib import Path

import chess
import pytest
from uci_client import ENGINE

from engine.tools.fuzz import HANG_GUARD_S, SLACK_MS, Fuzzer, GoRecord, command_of, go_bound_ms


def test_a_short_fuzz_run_finds_nothing() -> None:
    report = Fuzzer(ENGINE, seed=11).run(2500)        # the hang guard: a minute, only a hang fails
    assert not report.failures, report.summary()
    assert report.gos > 400 and report.restarts > 0
    # It did read and check what the engine said: each go's bestmove and the pv lines
    # before it (how many pv moves depends on the machine's speed: 4,655 to 8,046 seen).
    assert report.checked_moves > report.gos
    assert len(report.busy_isready.ms) + len(report.idle_isready.ms) >= 2400


@pytest.mark.slow
def test_a_long_fuzz_run_finds_nothing() -> None:
    report = Fuzzer(ENGINE, seed=1).run(100_000)
    assert not report.failures, report.summary()


FAKE = """
import sys
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name fake"); print("uciok")
    elif words[0] == "isready":
        print({ready!r})
    elif words[0] == "d":
        print("Fen: " + START); print("Chess960: false")
    elif words[0] == "go" and {answer!r}:
        print({answer!r})
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""


def fake_engine(tmp_path: Path, answer: str = "bestmove e2e4", ready: str = "readyok") -> list[str]:
    fake = tmp_path / "fake.py"
    fake.write_text(textwrap.dedent(FAKE.format(answer=answer, ready=ready)))
    return [sys.executable, str(fake)]


@pytest.mark.parametrize("answer, ready, failure", [
    ("bestmove e2e5", "readyok", "illegal move e2e5"),
    ("", "readyok", "no bestmove"),
    ("bestmove e2e4\nbestmove e2e4", "readyok", "a bestmove for no go"),
    ("bestmove e2e4", "readyok\nreadyok", "a readyok for no isready"),
])
def test_the_fuzzer_catches_a_broken_engine(tmp_path: Path, answer: str, ready: str, failure: str) -> None:
    """Each failure is in what the engine said, or in the bestmove it never
    says: only that one needs a clock, and there a short guard is safe (a go
    the fake never answers is hung on any machine; every other wait keeps
    the full guard, so a slow start or readyok cannot end the run first)."""
    report = Fuzzer(fake_engine(tmp_path, answer, ready), seed=5, go_hang_s=2).run(300)
    assert any(failure in f for f in report.failures), report.summary()


def test_a_late_answer_is_measured_not_a_failure(tmp_path: Path) -> None:
    """On a fake clock (answer times handed to the fuzzer): a bounded go
    answered an hour after it was sent is reported as late and fails
    nothing; the go queued behind it is timed from that answer, not from
    its own line, and is not late."""
    fuzzer = Fuzzer(fake_engine(tmp_path), seed=5)
    assert fuzzer.hang_s == fuzzer.go_hang_s == HANG_GUARD_S >= 60
    try:
        t0 = time.monotonic()
        first = GoRecord("go movetime 100", sent=t0, bound_ms=100.0, board=chess.Board())
        queued = GoRecord("go movetime 200", sent=t0 + 1, bound_ms=200.0, board=chess.Board())
        fuzzer.gos += [first, queued]
        fuzzer.take(t0 + 3600.0, "bestmove e2e4")
        fuzzer.take(t0 + 3600.1, "bestmove d2d4")
        assert fuzzer.report.late == [("go movetime 100", pytest.approx(3_600_000 - 100))]
        assert not fuzzer.report.failures, fuzzer.report.summary()
        assert f"more than {SLACK_MS} ms after their bound (from when they could start; " \
               "measured, not a failure): 1" in fuzzer.report.summary()
    finally:
        fuzzer.engine.kill()


def test_lines_are_read_as_an_engine_reads_them() -> None:
    assert command_of("joho debug on") == ("debug", ["on"])
    assert command_of("position startpos go") == ("position", ["startpos", "go"])
    assert command_of("\u20ac x") == (None, [])
    assert go_bound_ms(["infinite"]) is None and go_bound_ms([]) is None
    assert go_bound_ms(["depth", "-3"]) == 1000            # bad numbers fall back to a sane limit
    assert go_bound_ms(["movetime", "300"]) == 1000
    assert go_bound_ms(["wtime", "4000", "btime", "100"]) == 4000
    assert go_bound_ms(["depth", "30"]) is None
