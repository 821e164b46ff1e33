"""``nmm-chess sprt-queue``: the search options' SPRTs in their order, each to its verdict.

Issue 43's rule for a test is "accepted or rejected, not paused", and a
session ends every process it started: a test runs in pieces over many
sessions, and the next piece must be the same test, with the same seed,
on the same frozen build. A queue file says once which tests run and in
what order, one a line::

    # OPTION VALUE SEED [FROZEN]
    CorrectionHistory true 87 39d28df
    SlowMover 200 90 d8f9256

Each test is ``make search-sprt`` (SPRT [0, 10] at 10+0.1, logistic, with
the cap) into ``SPRT_DIR/OPTION[_VALUE].log`` and its PGN. A test already
begun takes its frozen build from its log's first line, whatever the queue
says; one not begun takes the queue's FROZEN, or HEAD's if none is given
(the defaults of the day it begins). With ``run``, the first undecided test
goes on (``RESUME=1`` once its log exists) until the SPRT or its cap
decides, then the next; a test that comes back undecided (its match was
stopped) stops the queue, so that no test is ever left paused for another.
So does an H1: the option becomes a default, committed, before the next
test begins on the defaults of that day.
"""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from engine.tools import sprt
from engine.tools.match_log import Crossing, crossing, scores_and_pairs

FROZEN = re.compile(r"FROZEN=([0-9a-f]{7,40})")


@dataclass(frozen=True)
class QueuedTest:
    """One line of the queue."""
    option: str
    value: str
    seed: int
    frozen: str | None = None

    @property
    def part(self) -> str:
        """The log's suffix: none for a switch turned on, ``_VALUE`` otherwise."""
        return "" if self.value == "true" else f"_{self.value}"

    def log(self, sprt_dir: Path) -> Path:
        return sprt_dir / f"{self.option}{self.part}.log"


def read_queue(text: str) -> list[QueuedTest]:
    """The tests of a queue file, in order; ValueError names a bad line.

    >>> read_queue("# a comment\\nCorrectionHistory true 87 39d28df\\n\\nSlowMover 200 90\\n")
    [QueuedTest(option='CorrectionHistory', value='true', seed=87, frozen='39d28df'), QueuedTest(option='SlowMover', value='200', seed=90, frozen=None)]
    >>> read_queue("CounterMoves true")
    Traceback (most recent call last):
    ...
    ValueError: queue line 1: 'CounterMoves true' is not OPTION VALUE SEED [FROZEN]
    """
    tests = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) not in (3, 4) or not fields[2].isdigit():
            raise ValueError(f"queue line {number}: {line.strip()!r} is not OPTION VALUE SEED [FROZEN]")
        tests.append(QueuedTest(fields[0], fields[1], int(fields[2]), fields[3] if len(fields) == 4 else None))
    return tests


def frozen_of(log: Path) -> str | None:
    """The frozen build a begun test plays, from its log's first line."""
    if not log.exists():
        return None
    with log.open() as text:
        found = FROZEN.search(text.readline())
    return found.group(1) if found else None


@dataclass(frozen=True)
class TestState:
    """Where a queued test stands."""
    games: int
    verdict: Crossing | None     # None: undecided (or not begun: games 0)
    elo: float = 0.0             # the option's Elo so far, its 95% bar and the LLR
    bar: float = 0.0
    llr: float = 0.0


def state(test: QueuedTest, sprt_dir: Path, cap: int) -> TestState:
    """The test's games so far, its Elo and LLR, and its verdict, SPRT [0, 10] logistic with ``cap``."""
    log = test.log(sprt_dir)
    if not log.exists():
        return TestState(0, None)
    scores, pairs, ends = scores_and_pairs([log])
    counts = sprt.pentanomial(pairs)
    _, elo, bar = sprt.score_elo(scores)
    llr = sprt.llr(counts, 0.0, 10.0, "logistic") if pairs else 0.0
    return TestState(len(scores), crossing(pairs, ends, 0.0, 10.0, "logistic", cap), elo, bar, llr)


def describe(test: QueuedTest, now: TestState) -> str:
    """One line of the queue's table."""
    name = f"{test.option}={test.value}"
    if now.verdict:
        how = " by the cap" if now.verdict.by_cap else ""
        return f"{name:28} {now.verdict.decided} accepted{how} at game {now.verdict.game}"
    if now.games == 0:
        return f"{name:28} not begun"
    return f"{name:28} undecided, {now.games} games, Elo {now.elo:+.1f} ± {now.bar:.1f}, LLR {now.llr:+.2f}"


def make_command(test: QueuedTest, sprt_dir: Path, frozen: str, cap: int, concurrency: int,
                 resume: bool) -> list[str]:
    """The ``make search-sprt`` that plays the test on."""
    return ["make", "search-sprt", f"OPTION={test.option}", f"VALUE={test.value}", f"SEED={test.seed}",
            f"PART={test.part}", f"FROZEN={frozen}", f"SPRT_DIR={sprt_dir}", f"SPRT_CAP={cap}",
            f"SPRT_GAMES={cap}", f"CONCURRENCY={concurrency}"] + (["RESUME=1"] if resume else [])


def head() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def run(tests: list[QueuedTest], sprt_dir: Path, cap: int, concurrency: int, echo=print) -> bool:
    """Play the queue's tests on, in order; True once every one is decided,
    False where one came back undecided or accepted H1 (the queue stops)."""
    for test in tests:
        now = state(test, sprt_dir, cap)
        if now.verdict:
            continue
        begun = test.log(sprt_dir).exists()
        frozen = frozen_of(test.log(sprt_dir)) or test.frozen or head()
        command = make_command(test, sprt_dir, frozen, cap, concurrency, begun)
        echo(" ".join(command))
        subprocess.run(command, check=False)
        now = state(test, sprt_dir, cap)
        echo(describe(test, now))
        if not now.verdict:
            echo("the test came back undecided (stopped?): the queue stops with it")
            return False
        if now.verdict.decided == "H1":
            echo(f"H1: make {test.option}={test.value} a default and commit it; the queue stops until then")
            return False
    return True
