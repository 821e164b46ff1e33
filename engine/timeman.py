"""How long to think: a soft limit (no new iteration after it) and a hard one.

Times are in milliseconds of the side to move's clock.

>>> allot(time_ms=60_000, inc_ms=0, movestogo=None, overhead_ms=30)
(2570.1, 12850.5)
>>> allot(time_ms=1_000, inc_ms=10, movestogo=None, overhead_ms=50)
(52.0, 260.0)
>>> allot(time_ms=120, inc_ms=10, movestogo=None, overhead_ms=50)
(10.5, 24.5)
>>> allot(time_ms=60_000, inc_ms=0, movestogo=None, overhead_ms=30, slow_mover=100)
(1713.4, 8567.0)
"""
from __future__ import annotations

MOVES_TO_GO = 35        # when the GUI does not say, plan for this many more moves
HARD_FACTOR = 5         # the hard limit may stretch the soft one this much
MAX_SHARE = 0.35        # but never more than this share of the clock on one move
LOW_CLOCK_INCREMENTS = 10  # a clock below this many increments is "living on the increment"
# The SlowMover option's default, percent of the allotment above. 150 against
# 100 at 10+0.1 was an SPRT's H1 (reports/strength/README.md, "How much time a move gets"): at 100
# the engine ended its games with half its clock unused.
DEFAULT_SLOW_MOVER = 150


def allot(time_ms: float, inc_ms: float, movestogo: int | None,
          overhead_ms: float, slow_mover: int = DEFAULT_SLOW_MOVER) -> tuple[float, float]:
    """(soft, hard) milliseconds for one move, given our clock.

    ``overhead_ms`` (the Move Overhead option) is kept back from every move
    for what the GUI, the pipes and our own start-up cost; ``slow_mover``
    (the SlowMover option) scales the time per move, in percent, within the
    same caps.
    """
    usable = max(time_ms - overhead_ms, 1.0)
    inc_ms = max(inc_ms, 0)
    moves = MOVES_TO_GO if not movestogo or movestogo <= 0 else min(movestogo, 50)
    # Living on the increment: spend half of it, so that the clock grows back
    # a reserve against a slow pipe or a busy machine.
    inc_share = 0.75 if usable >= LOW_CLOCK_INCREMENTS * inc_ms else 0.5
    soft = (usable / moves + inc_share * inc_ms) * slow_mover / 100
    hard_cap = usable * (MAX_SHARE if moves > 1 else 0.9)
    soft = round(min(soft, hard_cap), 1)
    hard = round(min(soft * HARD_FACTOR, hard_cap), 1)
    return max(soft, 1.0), max(hard, 1.0)


def movetime_limits(movetime_ms: float, overhead_ms: float) -> tuple[None, float]:
    """A fixed time per move (``go movetime``): no soft limit, so that the
    search uses all of it, and a hard stop at the time less the overhead.

    >>> movetime_limits(1000, 50)
    (None, 950)
    """
    return None, max(movetime_ms - overhead_ms, 1)
