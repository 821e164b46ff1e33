"""How long to think: a soft limit (no new iteration after it) and a hard one.

Times are in milliseconds of the side to move's clock.

>>> allot(time_ms=60_000, inc_ms=0, movestogo=None, overhead_ms=30)
(3426.9, 17134.5)
>>> allot(time_ms=1_000, inc_ms=10, movestogo=None, overhead_ms=50)
(69.3, 332.5)
>>> allot(time_ms=120, inc_ms=10, movestogo=None, overhead_ms=50)
(14.0, 24.5)
>>> allot(time_ms=60_000, inc_ms=0, movestogo=None, overhead_ms=30, slow_mover=100)
(1713.4, 8567.0)
"""
from __future__ import annotations

from engine.search_params import CLOCK_PARAMS, PARAMS_BY_NAME

# The clock's constants, declared in engine/search_params.py (TM_MOVES_TO_GO,
# TM_INC_SHARE, TM_HARD_FACTOR, ...): constants of this module in the
# playing engine; a tuning build's UCI options set them (set_clock_param).
_CLOCK: dict[str, int | float] = {p.name: p.default for p in CLOCK_PARAMS}
# The SlowMover option's default, percent of the allotment above. Both steps
# were SPRTs' H1 at 10+0.1 (reports/strength/README.md): 150 against 100 ("How
# much time a move gets"; at 100 the engine ended its games with half its clock
# unused), then 200 against 150 with the net ("The clock with the net").
DEFAULT_SLOW_MOVER = 200


def clock_params() -> dict[str, int | float]:
    """The clock's constants now, by name.

    >>> clock_params()["TM_MOVES_TO_GO"]
    35
    """
    return dict(_CLOCK)


def set_clock_param(name: str, value: int | float) -> None:
    """Set one of the clock's constants (a tuning build's option does);
    ValueError for another name, a fraction for an integer, or a value out of
    its range, which leaves it as it was.

    >>> set_clock_param("TM_MOVES_TO_GO", 0)
    Traceback (most recent call last):
    ...
    ValueError: TM_MOVES_TO_GO must be in 15..60, not 0
    """
    param = PARAMS_BY_NAME.get(name)
    if param is None or name not in _CLOCK:
        raise ValueError(f"no clock constant {name!r} (engine/search_params.py)")
    if not param.is_float and value != int(value):
        raise ValueError(f"{name} is an integer, not {value!r}")
    if not param.min <= value <= param.max:
        raise ValueError(f"{name} must be in {param.min}..{param.max}, not {value!r}")
    _CLOCK[name] = float(value) if param.is_float else int(value)


def allot(time_ms: float, inc_ms: float, movestogo: int | None,
          overhead_ms: float, slow_mover: int = DEFAULT_SLOW_MOVER) -> tuple[float, float]:
    """(soft, hard) milliseconds for one move, given our clock.

    ``overhead_ms`` (the Move Overhead option) is kept back from every move
    for what the GUI, the pipes and our own start-up cost; ``slow_mover``
    (the SlowMover option) scales the time per move, in percent, within the
    same caps.
    """
    c = _CLOCK
    usable = max(time_ms - overhead_ms, 1.0)
    inc_ms = max(inc_ms, 0)
    moves = c["TM_MOVES_TO_GO"] if not movestogo or movestogo <= 0 else min(movestogo, 50)
    # Living on the increment: spend less of it, so that the clock grows back
    # a reserve against a slow pipe or a busy machine.
    low_clock = usable < c["TM_LOW_CLOCK_INCREMENTS"] * inc_ms
    inc_share = c["TM_LOW_CLOCK_INC_SHARE"] if low_clock else c["TM_INC_SHARE"]
    soft = (usable / moves + inc_share * inc_ms) * slow_mover / 100
    hard_cap = usable * (c["TM_MAX_SHARE"] if moves > 1 else 0.9)
    soft = round(min(soft, hard_cap), 1)
    hard = round(min(soft * c["TM_HARD_FACTOR"], hard_cap), 1)
    return max(soft, 1.0), max(hard, 1.0)


def movetime_limits(movetime_ms: float, overhead_ms: float) -> tuple[None, float]:
    """A fixed time per move (``go movetime``): no soft limit, so that the
    search uses all of it, and a hard stop at the time less the overhead.

    >>> movetime_limits(1000, 50)
    (None, 950)
    """
    return None, max(movetime_ms - overhead_ms, 1)
