"""The protocol fuzzer: a short run against the engine (``make fuzz`` runs
100,000 lines), and proof that it catches a broken engine."""
import sys
import textwrap
from pathlib import Path

import pytest
from uci_client import ENGINE

from engine.tools.fuzz import Fuzzer, command_of, go_bound_ms


def test_a_short_fuzz_run_finds_nothing() -> None:
    report = Fuzzer(ENGINE, seed=11).run(2500)
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
        print("readyok")
    elif words[0] == "d":
        print("Fen: " + START); print("Chess960: false")
    elif words[0] == "go" and {answer!r}:
        print({answer!r})
    elif words[0] == "quit":
        break
    sys.stdout.flush()
"""


@pytest.mark.parametrize("answer, failure", [
    ("bestmove e2e5", "illegal move e2e5"),
    ("", "no bestmove"),
    ("bestmove e2e4\nbestmove e2e4", "a bestmove for no go"),
])
def test_the_fuzzer_catches_a_broken_engine(tmp_path: Path, answer: str, failure: str) -> None:
    fake = tmp_path / "fake.py"
    fake.write_text(textwrap.dedent(FAKE.format(answer=answer)))
    report = Fuzzer([sys.executable, str(fake)], seed=5, hang_s=2).run(300)
    assert any(failure in f for f in report.failures), report.summary()


def test_lines_are_read_as_an_engine_reads_them() -> None:
    assert command_of("joho debug on") == ("debug", ["on"])
    assert command_of("position startpos go") == ("position", ["startpos", "go"])
    assert command_of("\u20ac x") == (None, [])
    assert go_bound_ms(["infinite"]) is None and go_bound_ms([]) is None
    assert go_bound_ms(["depth", "-3"]) == 1000            # bad numbers fall back to a sane limit
    assert go_bound_ms(["movetime", "300"]) == 1000
    assert go_bound_ms(["wtime", "4000", "btime", "100"]) == 4000
    assert go_bound_ms(["depth", "30"]) is None
