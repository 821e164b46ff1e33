"""Two gauntlets against one opponent on the same openings, compared opening
by opening.

A gauntlet plays each opening twice, once with each colour (the PGN's
``Round`` header names the opening). When two builds of the engine meet the
same opponent on the same openings, the difference of their points opening
by opening varies less than either score alone (an opening that is lost
from both sides weighs on both builds alike), so its error bar says more
about the builds than the two gauntlets' bars side by side.

>>> import io
>>> from engine.data.pgn import games_in
>>> def pgn(name, results):
...     return io.StringIO("".join(
...         f'[Round "{i // 2 + 1}"]\\n[White "{name if i % 2 == 0 else "opp"}"]\\n'
...         f'[Black "{"opp" if i % 2 == 0 else name}"]\\n[Result "{r}"]\\n\\n{r}\\n\\n'
...         for i, r in enumerate(results)))
>>> a = opening_points(games_in(pgn("old", ["1-0", "1-0", "0-1", "1/2-1/2"])), "opp")
>>> b = opening_points(games_in(pgn("new", ["1-0", "0-1", "1/2-1/2", "1/2-1/2"])), "opp")
>>> a, b
({'1': 1.0, '2': 0.5}, {'1': 2.0, '2': 1.0})
>>> compare(a, b).describe("old", "new")
'2 openings: old 37.5%, new 75.0%; new - old +37.5 points a game (a bar needs 3 openings or more)'
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import chess.pgn

from engine.data.pgn import games_of

POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def opening_points(games: Iterable[chess.pgn.Game], opponent: str) -> dict[str, float]:
    """Per opening (``Round``): the points scored against ``opponent`` in its
    two games. An opening with a game missing, or a game unfinished, is left out."""
    points: dict[str, list[float]] = defaultdict(list)
    for game in games:
        result = POINTS.get(game.headers.get("Result", "*"))
        colour = [game.headers.get("White"), game.headers.get("Black")]
        if result is None or opponent not in colour:
            continue
        points[game.headers.get("Round", "?")].append(result[1 - colour.index(opponent)])
    return {opening: sum(p) for opening, p in points.items() if len(p) == 2}


def common_opponent(a: list[chess.pgn.Game], b: list[chess.pgn.Game]) -> str:
    """The one player who is in every game of both gauntlets."""
    names = None
    for game in a + b:
        players = {game.headers.get("White"), game.headers.get("Black")}
        names = players if names is None else names & players
    if not names or len(names) != 1:
        raise ValueError(f"no single player is in every game of both gauntlets ({sorted(names or [])}): "
                         "name the opponent")
    return names.pop()


@dataclass
class Comparison:
    """Two builds' points on the openings both played: each a score, and
    their difference a game with its 95% bar (in points of 100)."""
    openings: int
    score_a: float
    score_b: float
    difference: float
    error95: float | None

    def describe(self, a: str, b: str) -> str:
        bar = (f" ± {100 * self.error95:.1f}" if self.error95 is not None else "")
        tail = " (95%)" if self.error95 is not None else " (a bar needs 3 openings or more)"
        return (f"{self.openings} openings: {a} {100 * self.score_a:.1f}%, {b} {100 * self.score_b:.1f}%; "
                f"{b} - {a} {100 * self.difference:+.1f}{bar} points a game{tail}")


def compare(a: dict[str, float], b: dict[str, float]) -> Comparison:
    """The openings both gauntlets played in full, build B against build A."""
    shared = sorted(set(a) & set(b))
    n = len(shared)
    if n == 0:
        raise ValueError("the two gauntlets share no opening played in full")
    diffs = [(b[k] - a[k]) / 2 for k in shared]          # per game: a pair is two games
    mean = sum(diffs) / n
    error = None
    if n >= 3:
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        error = 1.96 * sd / math.sqrt(n)
    return Comparison(n, sum(a[k] for k in shared) / (2 * n), sum(b[k] for k in shared) / (2 * n), mean, error)


def report(a_paths: list[Path], b_paths: list[Path], opponent: str | None = None) -> list[str]:
    """The comparison of gauntlet A's games (``a_paths``) with B's against
    ``opponent`` (by default the one player in every game of both)."""
    a, b = list(games_of(a_paths)), list(games_of(b_paths))
    opponent = opponent or common_opponent(a, b)
    names = []
    for games, label in ((a, "A"), (b, "B")):
        players = {name for g in games for name in (g.headers.get("White"), g.headers.get("Black"))} - {opponent}
        names.append(players.pop() if len(players) == 1 else label)
    if names[0] == names[1]:
        names = ["A", "B"]              # one name for both builds: say which is which
    result = compare(opening_points(a, opponent), opening_points(b, opponent))
    return [f"against {opponent}: " + result.describe(*names)]
