"""Playing weaker on purpose: UCI_LimitStrength and UCI_Elo (issue 42).

A weaker engine should play like a weaker player, not like a random mover:
it sees less, and it misjudges what it sees. Both come from one number, the
*skill* k in [0, 1] that UCI_Elo maps to (``skill``, a table fitted to
games: ``ELO_KNOTS``):

- **It sees less**: a node budget per move, NODES_MIN at k = 0 growing
  geometrically to NODES_MAX at k just below 1 (``go nodes`` below it still
  counts). Depth 1 always completes, so there is always a searched move. A
  budget is a cap, never a demand: the clock's limits stay as they are, so a
  weakened engine never thinks longer than the full one, and below the top
  skills far less (its budget ends the search first); at k = 1 there is no
  budget (full strength).
- **It misjudges**: the search looks at the best LINES lines (MultiPV), and
  the move played is the line whose score plus a Gaussian error of SIGMA_MAX
  (1 - k)^2 centipawns is highest. Lines a few centipawns apart are often
  swapped, a line a piece worse almost never, and a mate the search found is
  always played (mate scores take no error). Stockfish's skill levels also
  choose among 4 lines, with a weakness term and a random one.

The table was fitted with the handwritten evaluation, so a weakened engine
searches with it whatever ``Eval`` says (Session._align_eval); at full
strength the net is back.

The error is drawn from a generator seeded by the position and the
StrengthSeed option, so a game is reproducible: the same seed, position and
search give the same move (the engine is as deterministic as its search, one
thread). A different seed gives other games.

>>> skill(ELO_MIN), skill(ELO_MAX), skill(ELO_MIN - 100)
(0.325, 1.0, 0.325)
>>> p = profile(ELO_MIN)
>>> p.nodes, p.lines, round(p.sigma)
(1049, 4, 114)
>>> profile(ELO_MAX).nodes is None, profile(ELO_MAX).lines, profile(ELO_MAX).sigma
(True, 1, 0.0)
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

ELO_MIN = 1320
ELO_MAX = 2270          # full strength (k = 1) as measured at 5+0.05 on the calibration's machine
ELO_DEFAULT = 1500

NODES_MIN = 60          # at k = 0: depth 1 and a little more
NODES_MAX = 400_000     # at k just below 1: more than blitz allows on one core
SIGMA_MAX = 250.0       # centipawns of error at k = 0
LINES = 4               # the lines chosen among (MultiPV), while there is an error
SIGMA_OFF = 2.0         # an error below this many centipawns is none: one line, no choice

# UCI_Elo -> skill, piecewise linear between the knots: the measured Elo of
# each skill against the Stockfish 15.1 UCI_Elo ladder at 5+0.05 (`make
# elo-ladder`, reports/strength/elo_ladder.md; 328 games). Skills below 0.325
# play below 1320 (skill 0: about 1100), out of the range.
ELO_KNOTS: tuple[tuple[int, float], ...] = (
    (ELO_MIN, 0.325), (1458, 0.4), (1803, 0.6), (2070, 0.8), (2173, 0.9), (ELO_MAX, 1.0))


@dataclass(frozen=True)
class Profile:
    """How a weakened search runs: its node cap (None: none), the lines it
    looks at and the error (centipawns) of its judgement of them."""
    skill: float
    nodes: int | None
    lines: int
    sigma: float


def skill(elo: float, knots: tuple[tuple[int, float], ...] = ELO_KNOTS) -> float:
    """The skill in [0, 1] of a UCI_Elo (clamped to the knots' range).

    >>> skill(1860, ((1320, 0.0), (2400, 1.0)))
    0.5
    """
    if elo <= knots[0][0]:
        return knots[0][1]
    for (e0, k0), (e1, k1) in zip(knots, knots[1:]):
        if elo <= e1:
            return k0 + (k1 - k0) * (elo - e0) / (e1 - e0)
    return knots[-1][1]


def profile_of_skill(k: float) -> Profile:
    """The search of skill ``k`` (0: the weakest, 1: full strength).

    >>> profile_of_skill(0.5).nodes, profile_of_skill(0.5).sigma
    (4899, 62.5)
    """
    k = min(max(k, 0.0), 1.0)
    nodes = None if k >= 1.0 else round(NODES_MIN * (NODES_MAX / NODES_MIN) ** k)
    sigma = SIGMA_MAX * (1.0 - k) ** 2
    if sigma < SIGMA_OFF:
        sigma = 0.0
    return Profile(k, nodes, LINES if sigma else 1, sigma)


def profile(elo: float) -> Profile:
    return profile_of_skill(skill(elo))


def rng_for(seed: int, key: int) -> random.Random:
    """The error's generator for one move: the StrengthSeed and the position's key.

    >>> rng_for(0, 7).random() == rng_for(0, 7).random() != rng_for(1, 7).random()
    True
    """
    return random.Random((int(seed) << 64) ^ int(key))


def choose(lines: list[dict], sigma: float, rng: random.Random) -> dict:
    """The line played among a search's best ``lines`` (root_lines: best first):
    the highest score plus an error N(0, sigma). Mate scores take no error:
    a mate the search found is played, a line that is mated is chosen only
    when every line is.

    >>> lines = [{"score": 30, "mate": None}, {"score": 20, "mate": None}, {"score": -900, "mate": None}]
    >>> choose(lines, 0.0, random.Random(1))["score"]
    30
    >>> sorted({choose(lines, 100.0, random.Random(s))["score"] for s in range(50)})
    [20, 30]
    >>> mate = [{"score": 31990, "mate": 5}] + lines
    >>> {choose(mate, 250.0, random.Random(s))["mate"] for s in range(200)}
    {5}
    """
    best, best_value = lines[0], -math.inf
    for line in lines:
        value = float(line["score"])
        if line["mate"] is None and sigma > 0:
            value += rng.gauss(0.0, sigma)
        if value > best_value:
            best, best_value = line, value
    return best


def clamp_elo_args(args: list[str], low: int, high: int) -> tuple[list[str], str | None]:
    """``setoption name UCI_Elo value N`` with N out of low..high: the nearest
    end instead, and the error to report (a GUI that offers a wider range
    still gets a sane level). Any other line is returned as it is.

    >>> clamp_elo_args("name UCI_Elo value 900".split(), 1320, 2400)
    (['name', 'UCI_Elo', 'value', '1320'], 'option UCI_Elo must be in 1320..2400, not 900; using 1320')
    >>> clamp_elo_args("name uci_elo value 2000".split(), 1320, 2400)
    (['name', 'uci_elo', 'value', '2000'], None)
    """
    if "value" not in args:
        return args, None
    at = args.index("value")
    if args[:1] != ["name"] or " ".join(args[1:at]).lower() != "uci_elo" or len(args) != at + 2:
        return args, None
    try:
        value = int(args[at + 1])
    except ValueError:
        return args, None
    clamped = min(max(value, low), high)
    if clamped == value:
        return args, None
    return args[:at + 1] + [str(clamped)], f"option UCI_Elo must be in {low}..{high}, not {value}; using {clamped}"


class Handicap:
    """One ``go`` of a weakened engine: what it changes before the search
    (node cap, MultiPV) and the move it plays after (engine/session.py)."""

    def __init__(self, elo: int, seed: int, shown_lines: int, skill: float | None = None) -> None:
        self.profile = profile(elo) if skill is None else profile_of_skill(skill)
        self.seed = seed
        self.shown = shown_lines            # the MultiPV the GUI asked for: the lines reported

    @property
    def multipv(self) -> int:
        return max(self.shown, self.profile.lines)

    def limit(self, limits: dict) -> dict:
        """The search's limits with the node cap (the smaller of it and ``go nodes``)."""
        cap = self.profile.nodes
        if cap is not None:
            limits = {**limits, "nodes": min(limits.get("nodes") or cap, cap)}
        return limits

    def shows(self, line: dict) -> bool:
        return line["multipv"] <= self.shown

    def pick(self, lines: list[dict], key: int) -> dict | None:
        """The line to play, among the searched ``lines``; None: the search's own move."""
        if self.profile.lines < 2 or len(lines) < 2:
            return None
        return choose(lines[:self.profile.lines], self.profile.sigma, rng_for(self.seed, key))
