"""How each engine of a match spent its clock, read from the ``[%clk]`` and
``[%emt]`` comments the match runner writes after every timed move.

A time management is judged by games, but its games alone do not say what
it changed: these figures do. Per engine: the moves timed, the mean and
median seconds a move, the same by stage of the game (the opening's moves
are not timed), the median clock left when the game ended, the least it
ever had left after a move (with the increment added, as ``%clk`` is
written), and its losses on time (a flag counts as 0 left: the move that
flagged is not in the PGN). Games played to a depth or a node count, not
on a clock, are left out.

>>> import io
>>> pgn = io.StringIO('[White "a"]\\n[Black "b"]\\n[Result "1/2-1/2"]\\n[TimeControl "10+0.1"]\\n\\n'
...                   '1. e4 { [%clk 9.5] [%emt 0.6] } e5 { [%clk 9.8] [%emt 0.3] } 1/2-1/2\\n')
>>> [(u.engine, u.moves, u.mean_s, u.left_at_end_s) for u in clock_use(games(pgn))]
[('a', 1, 0.6, 9.5), ('b', 1, 0.3, 9.8)]
"""
from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, TextIO

import chess.pgn

from engine.data.pgn import open_text

CLOCK = re.compile(r"\[%clk ([\d.]+)\]\s*\[%emt ([\d.]+)\]")
ON_A_CLOCK = re.compile(r"[\d.]+\+[\d.]+")     # seconds + increment, as the match runner writes it
STAGES = ((1, 20, "moves 1-20"), (21, 40, "moves 21-40"), (41, 10_000, "moves 41+"))


@dataclass
class GameClock:
    """One game's timed moves, per side: (move number, clock left, seconds used)."""
    names: dict[chess.Color, str]
    moves: dict[chess.Color, list[tuple[int, float, float]]]
    forfeit: str | None             # the engine that lost on time, if one did


@dataclass
class ClockUse:
    """One engine's spending over a set of games (seconds)."""
    engine: str
    games: int
    moves: int
    mean_s: float
    median_s: float
    by_stage: dict[str, float] = field(default_factory=dict)   # mean a move
    left_at_end_s: float = 0.0      # median over the games
    least_left_s: float = 0.0       # over every move of every game
    forfeits: int = 0


def games(source: TextIO) -> Iterator[GameClock]:
    """The timed moves of each game on a clock in a PGN stream."""
    while (game := chess.pgn.read_game(source)) is not None:
        if not ON_A_CLOCK.fullmatch(game.headers.get("TimeControl", "")):
            continue
        names = {chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")}
        moves: dict[chess.Color, list[tuple[int, float, float]]] = {chess.WHITE: [], chess.BLACK: []}
        board = game.board()
        for node in game.mainline():
            if m := CLOCK.search(node.comment):
                moves[board.turn].append((board.fullmove_number, float(m[1]), float(m[2])))
            board.push(node.move)
        termination = game.headers.get("Termination", "")
        forfeit = termination.removesuffix(" lost on time") if termination.endswith(" lost on time") else None
        yield GameClock(names, moves, forfeit)


def pgn_games(paths: Iterable[Path]) -> Iterator[GameClock]:
    """The games of PGN files, plain or gzipped (``.pgn.gz``: large match records)."""
    for path in paths:
        with open_text(path) as source:
            yield from games(source)


def clock_use(played: Iterable[GameClock]) -> list[ClockUse]:
    """Per engine, by name, in the order they first appear."""
    spent: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    left_at_end: dict[str, list[float]] = defaultdict(list)
    forfeits: dict[str, int] = defaultdict(int)
    for game in played:
        for color, name in game.names.items():
            if name == game.forfeit:
                forfeits[name] += 1
                left_at_end[name].append(0.0)
            elif game.moves[color]:
                left_at_end[name].append(game.moves[color][-1][1])
            spent[name].extend(game.moves[color])
    result = []
    for name, moves in spent.items():
        if not left_at_end[name]:
            continue                    # no timed move and no flag: nothing to say
        used = [u for _, _, u in moves] or [0.0]
        stages = {label: statistics.fmean(u for n, _, u in moves if lo <= n <= hi)
                  for lo, hi, label in STAGES if any(lo <= n <= hi for n, _, _ in moves)}
        least = min([c for _, c, _ in moves] + [0.0] * forfeits[name])
        result.append(ClockUse(name, len(left_at_end[name]), len(moves), round(statistics.fmean(used), 4),
                               round(statistics.median(used), 4), {k: round(v, 4) for k, v in stages.items()},
                               round(statistics.median(left_at_end[name]), 3), round(least, 3),
                               forfeits[name]))
    return result


def report(uses: list[ClockUse]) -> list[str]:
    """A plain-text table, one engine a line."""
    labels = [label for _, _, label in STAGES]
    head = (f"{'engine':32} {'games':>5} {'moves':>6} {'mean s':>7} {'median':>7} "
            + " ".join(f"{label:>11}" for label in labels)
            + f" {'left at end':>11} {'least left':>10} {'forfeits':>8}")
    lines = [head]
    for u in uses:
        stages = " ".join(f"{u.by_stage[label]:11.3f}" if label in u.by_stage else f"{'-':>11}" for label in labels)
        lines.append(f"{u.engine:32} {u.games:5d} {u.moves:6d} {u.mean_s:7.3f} {u.median_s:7.3f} {stages} "
                     f"{u.left_at_end_s:11.2f} {u.least_left_s:10.2f} {u.forfeits:8d}")
    return lines
