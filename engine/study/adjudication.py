"""What a quicker adjudication would save a match, and what it would get wrong.

An SPRT's cost is its games' time. The match runner ends a game early only
when both engines have agreed for long (engine.tools.match.AdjudicationRule:
10 pawns for 8 moves, or within 0.1 pawn of 0 for 16 moves from ply 80);
a quicker rule ends more games sooner, and ends some wrongly. This replays
played games (their ``[%eval]`` and ``[%emt]`` comments, the mover's score
and time of every move) through other rules: for each, the share of the
engines' thinking time it would have saved (the time of the moves after
its verdict) and the games whose verdict would differ from the result
they had (a win called a draw, a draw called a win).

>>> import io
>>> pairs = ["Nf3 Nf6", "Ng1 Ng8"] * 3
>>> moves = " ".join(f"{n}. {w} {{[%eval 7.0,9] [%emt 1.0]}} {b} {{[%eval 7.0,9] [%emt 1.0]}}"
...                  for n, (w, b) in enumerate((p.split() for p in pairs[:5]), 1))
>>> games = list(replayed(io.StringIO('[Result "1-0"]\\n\\n' + moves + ' 1-0\\n')))
>>> measure(games[0], [AdjudicationRule(win_cp=500, win_plies=4), AdjudicationRule()])
[(6.0, '1-0'), None]
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

import chess.pgn

from engine.tools.match import AdjudicationRule, Adjudicator

EVAL = re.compile(r"\[%eval (#?-?[\d.]+)")
EMT = re.compile(r"\[%emt ([\d.]+)\]")
MATE_CP = 100_000                   # the runner's mate score (Adjudicator.add)


@dataclass
class Replayed:
    """A played game as the adjudicator saw it."""
    result: str
    scores: list[int | None]        # per ply, White's view in centipawns; None: an opening move, or none given
    seconds: list[float]            # per ply, the mover's thinking time


def white_cp(text: str) -> int:
    """An ``[%eval]`` value in centipawns: pawns, or ``#N`` / ``#-N`` for a mate."""
    if text.startswith("#"):
        return -MATE_CP if text.startswith("#-") else MATE_CP
    return round(float(text) * 100)


def replayed(source: TextIO) -> Iterator[Replayed]:
    """Every game of a PGN with its scores and times."""
    while (game := chess.pgn.read_game(source)) is not None:
        scores, seconds = [], []
        for node in game.mainline():
            score, emt = EVAL.search(node.comment), EMT.search(node.comment)
            scores.append(white_cp(score.group(1)) if score else None)
            seconds.append(float(emt.group(1)) if emt else 0.0)
        yield Replayed(game.headers.get("Result", "*"), scores, seconds)


def measure(game: Replayed, rules: list[AdjudicationRule]) -> list[tuple[float, str] | None]:
    """For each rule: (the thinking time its verdict saves, the verdict), or
    None where it never ends the game. Moves without a score are the
    opening's, which the runner never showed its adjudicator."""
    found: list[tuple[float, str] | None] = []
    for rule in rules:
        adjudicator, verdict = Adjudicator(rule), None
        for ply, score in enumerate(game.scores, 1):
            if score is None:
                continue
            adjudicator.add_cp(score)
            if (verdict := adjudicator.verdict(ply)) is not None:
                found.append((sum(game.seconds[ply:]), verdict[0]))
                break
        if verdict is None:
            found.append(None)
    return found


@dataclass
class RuleTally:
    rule: AdjudicationRule
    ended: int = 0                  # games the rule would end before they ended
    saved: float = 0.0              # seconds of thinking
    wrong: Counter = field(default_factory=Counter)     # (result, verdict) pairs that differ


def tally(games: Iterable[Replayed], rules: list[AdjudicationRule]) -> tuple[int, float, list[RuleTally]]:
    """(games, their thinking time in seconds, each rule's tally)."""
    tallies = [RuleTally(rule) for rule in rules]
    count, total = 0, 0.0
    for game in games:
        count += 1
        total += sum(game.seconds)
        for t, outcome in zip(tallies, measure(game, rules)):
            if outcome is None:
                continue
            saved, verdict = outcome
            t.ended += saved > 0
            t.saved += saved
            if verdict != game.result:
                t.wrong[(game.result, verdict)] += 1
    return count, total, tallies


def parse_rule(text: str) -> AdjudicationRule:
    """``WIN_CP/WIN_PLIES/DRAW_PLY/DRAW_CP/DRAW_PLIES``, e.g. the runner's 1000/8/80/10/16.

    >>> parse_rule("600/8/80/10/16").win_cp
    600
    """
    fields = [int(f) for f in text.split("/")]
    if len(fields) != 5:
        raise ValueError(f"{text!r}: give WIN_CP/WIN_PLIES/DRAW_PLY/DRAW_CP/DRAW_PLIES")
    return AdjudicationRule(*fields)


def report(count: int, total: float, tallies: list[RuleTally]) -> list[str]:
    lines = [f"{count} games, {total / 3600:.1f} hours of thinking",
             "| win: cp x moves | draw: from ply, cp x moves | games ended sooner | time saved | wrong verdicts |",
             "|---|---|---|---|---|"]
    for t in tallies:
        r = t.rule
        wrong = ", ".join(f"{n} {res} called {v}" for (res, v), n in sorted(t.wrong.items())) or "none"
        lines.append(f"| {r.win_cp} x {r.win_plies} | {r.draw_ply}, {r.draw_cp} x {r.draw_plies} | {t.ended} "
                     f"| {t.saved / total:.1%} | {sum(t.wrong.values())}: {wrong} |")
    return lines
