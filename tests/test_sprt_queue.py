"""The SPRT queue (engine/tools/sprt_queue.py): which test runs next, on
which build, and that a stopped test stops the queue."""
from pathlib import Path

import pytest

from engine.tools import sprt_queue
from engine.tools.sprt_queue import QueuedTest, frozen_of, read_queue, run, state

HEADER = "# engines nmm@{f}: make search-sprt OPTION={o} VALUE=true SEED=1 PART= FROZEN={f}\n"


def write_log(path: Path, pairs: list[tuple[str, str]], frozen: str = "abc1234", option: str = "X") -> None:
    """A match log: each pair's two results (White's view), A white then A black."""
    lines = [HEADER.format(f=frozen, o=option)]
    for k, (first, second) in enumerate(pairs):
        for j, (result, colour) in enumerate(((first, "white"), (second, "black"))):
            lines.append(f"game {2 * k + j + 1:3}: {result:7} adjudicated win (A {colour})  +0 =0 -0  opening {k + 1}\n")
    path.write_text("".join(lines))


WON = ("1-0", "0-1")        # A wins both games of the pair
EVEN = ("1-0", "1-0")       # one each


def test_a_begun_test_keeps_its_own_build(tmp_path: Path) -> None:
    write_log(tmp_path / "X.log", [EVEN] * 3, frozen="39d28df")
    assert frozen_of(tmp_path / "X.log") == "39d28df"
    assert frozen_of(tmp_path / "missing.log") is None


def test_state_reads_the_verdict_and_the_cap(tmp_path: Path) -> None:
    test = QueuedTest("X", "true", 1)
    assert state(test, tmp_path, 3000).games == 0
    write_log(test.log(tmp_path), [WON, EVEN] * 80)
    won = state(test, tmp_path, 3000)
    assert won.verdict is not None and won.verdict.decided == "H1" and not won.verdict.by_cap
    write_log(test.log(tmp_path), [EVEN] * 30)
    assert state(test, tmp_path, 3000).verdict is None
    capped = state(test, tmp_path, 60).verdict          # 60 even games: the cap decides, H0
    assert capped is not None and capped.decided == "H0" and capped.by_cap and capped.game == 60


def test_an_undecided_line_gives_the_elo_and_the_llr(tmp_path: Path) -> None:
    test = QueuedTest("X", "true", 1)
    write_log(test.log(tmp_path), [WON, EVEN, EVEN, EVEN])     # 5 of 8: +88.7 Elo
    line = sprt_queue.describe(test, state(test, tmp_path, 3000))
    assert line.startswith("X=true") and "undecided, 8 games, Elo +88.7 ± " in line
    assert float(line.rsplit("LLR ", 1)[1]) > 0
    assert sprt_queue.describe(QueuedTest("Y", "true", 2), state(QueuedTest("Y", "true", 2), tmp_path, 3000)) \
        == f"{'Y=true':28} not begun"


def test_the_log_name_carries_a_value_other_than_true() -> None:
    assert QueuedTest("SlowMover", "200", 90).log(Path("d")) == Path("d/SlowMover_200.log")
    assert QueuedTest("TTEval", "true", 88).log(Path("d")) == Path("d/TTEval.log")


def test_a_bad_line_is_named() -> None:
    with pytest.raises(ValueError, match="line 2"):
        read_queue("A true 1\nB true seven\n")


def test_the_queue_skips_the_decided_resumes_the_begun_and_stops_at_a_stopped_test(tmp_path, monkeypatch) -> None:
    tests = read_queue("Done true 1\nBegun true 2 aaaaaaa\nNew true 3 bbbbbbb\nLater true 4\n")
    write_log(tests[0].log(tmp_path), [WON, EVEN] * 80)
    write_log(tests[1].log(tmp_path), [EVEN] * 5, frozen="ccccccc")
    calls = []

    def fake_make(command, check):
        calls.append(command)
        option = next(a for a in command if a.startswith("OPTION=")).split("=")[1]
        if option == "Begun":                  # played to the cap, even: H0
            write_log(tests[1].log(tmp_path), [EVEN] * 50, frozen="ccccccc")
        # "New" comes back with nothing played: stopped

    monkeypatch.setattr(sprt_queue.subprocess, "run", fake_make)
    assert run(tests, tmp_path, 100, 2, echo=lambda line: None) is False
    assert [next(a for a in c if a.startswith("OPTION=")) for c in calls] == ["OPTION=Begun", "OPTION=New"]
    assert "FROZEN=ccccccc" in calls[0] and "RESUME=1" in calls[0]         # the log's build, not the queue's
    assert "FROZEN=bbbbbbb" in calls[1] and "RESUME=1" not in calls[1]
    assert "SPRT_CAP=100" in calls[0] and "CONCURRENCY=2" in calls[0]


def test_an_h1_stops_the_queue_for_the_new_default(tmp_path, monkeypatch) -> None:
    tests = read_queue("Wins true 1 aaaaaaa\nNext true 2\n")
    calls = []

    def fake_make(command, check):
        calls.append(command)
        write_log(tests[0].log(tmp_path), [WON, EVEN] * 80, frozen="aaaaaaa")

    monkeypatch.setattr(sprt_queue.subprocess, "run", fake_make)
    lines = []
    assert run(tests, tmp_path, 3000, 1, echo=lines.append) is False
    assert len(calls) == 1 and "a default" in lines[-1]
