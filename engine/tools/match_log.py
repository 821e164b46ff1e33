"""``nmm-chess match-log``: the summary of a match log, finished or not.

A match killed before its end (or still running) has its game lines but no
summary; this reads the ``game N: result ... (A white|black) ... opening K``
lines back and gives what the match would have reported: W/D/L, Elo with its
95% error bar, LOS, the pentanomial counts of the openings played with both
colours, normalised Elo and the SPRT's log-likelihood ratio. (Logs written
before the lines named their opening pair games 2k-1 and 2k, which is right
for matches at concurrency 1 only.)

Several logs of the same two engines read as one match, in the order given:
an SPRT stopped at the end of one session goes on in the next with the same
bounds, and its test is taken over all the pairs.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path
from typing import NamedTuple

from engine.tools import sprt

GAME = re.compile(r"game\s+(\d+): (1-0|0-1|1/2-1/2)\s+(.*?)\s+\(A (white|black)\)(?:.*opening (\d+))?")
KEPT = re.compile(r"(\d+) games kept from ")      # a resume: the match counts these first games of its record


class LoggedGame(NamedTuple):
    """A game line of ``game_writer`` (engine/tools/match.py)."""
    number: int
    result: str                 # "1-0", "0-1", "1/2-1/2"
    reason: str
    a_white: bool
    opening: int | None         # as the line numbers it (from 1); None in logs older than the field

    @property
    def a_score(self) -> float:
        white = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[self.result]
        return white if self.a_white else 1 - white


def logged_games(path: Path) -> list[LoggedGame]:
    """The games the log counts, in order. A resume's ``N games kept`` line
    cuts the list to its first N, as the match did: a game logged by a run
    killed before its PGN was saved is played again, and only its second
    line counts."""
    games: list[LoggedGame] = []
    for line in path.read_text().splitlines():
        if kept := KEPT.match(line):
            del games[int(kept.group(1)):]
        elif m := GAME.match(line):
            games.append(LoggedGame(int(m.group(1)), m.group(2), m.group(3), m.group(4) == "white",
                                    int(m.group(5)) if m.group(5) else None))
    return games


def read_games(path: Path) -> list[tuple[float, int]]:
    """(engine A's score, opening) of each game the log counts (logged_games),
    in order; the opening is the pair number (games 2k-1 and 2k) where the
    line names none.

    >>> import tempfile; p = Path(tempfile.mkdtemp()) / "m.log"
    >>> _ = p.write_text("game   1: 0-1     adjudicated win   (A black)  +1 =0 -0  opening 3\\n"
    ...                  "game   2: 1/2-1/2 threefold repetition (A white)  +1 =1 -0  opening 3\\n")
    >>> read_games(p)
    [(1.0, 3), (0.5, 3)]
    """
    return [(g.a_score, g.opening or k // 2 + 1) for k, g in enumerate(logged_games(path))]


def scores_and_pairs(paths: list[Path]) -> tuple[list[float], list[tuple[float, float]], list[int]]:
    """Engine A's score in each game of ``paths`` (read as one match), the
    pairs of games played from one opening, and the game that completed
    each pair."""
    scores, pairs, ends = [], [], []
    for path in paths:              # openings are numbered per log: pair within each
        by_opening: dict[int, list[float]] = {}
        for score, opening in read_games(path):
            by_opening.setdefault(opening, []).append(score)
            scores.append(score)
            if len(by_opening[opening]) == 2:
                pairs.append(tuple(by_opening[opening]))
                ends.append(len(scores))
    return scores, pairs, ends


def summary(paths: Path | list[Path], elo0: float = 0.0, elo1: float = 10.0,
            model: str = "normalized", cap: int = 0, first: int | None = None) -> str:
    """The match's figures over the games of ``paths`` (one log, or several
    read as one); ``cap``: the SPRT's cap in games (0: none), see ``sprt.Sprt``;
    ``first``: over the first so many games only, the standing the test had
    then (a pair counts once both its games are among them)."""
    return course(paths, [first], elo0, elo1, model, cap)[0]


def course(paths: Path | list[Path], firsts: list[int | None], elo0: float = 0.0, elo1: float = 10.0,
           model: str = "normalized", cap: int = 0) -> list[str]:
    """``summary`` after each of ``firsts`` games (None: all), the logs read once."""
    scores, pairs, ends = scores_and_pairs([paths] if isinstance(paths, Path) else paths)
    lines = []
    for first in firsts:
        if first is None:
            first = len(scores)
        elif not 0 < first <= len(scores):
            raise ValueError(f"the logs hold {len(scores)} games, not {first}")
        kept = bisect_right(ends, first)                # ends rise: the pairs completed by then
        lines.append(standing(scores[:first], pairs[:kept], ends[:kept], elo0, elo1, model, cap))
    return lines


def standing(scores: list[float], pairs: list[tuple[float, float]], ends: list[int],
             elo0: float, elo1: float, model: str, cap: int) -> str:
    """The summary's line over these games and pairs."""
    w, d, l = scores.count(1.0), scores.count(0.5), scores.count(0.0)
    _, elo, err = sprt.score_elo(scores)
    penta = sprt.pentanomial(pairs)
    nelo, nerr = sprt.normalized_elo(penta) if pairs else (0.0, 0.0)
    llr = sprt.llr(penta, elo0, elo1, model) if pairs else 0.0
    lower, upper = sprt.bounds()
    name = "normalised" if model == "normalized" else "logistic"
    return (f"{len(scores)} games: +{w} ={d} -{l}, Elo {elo:+.1f} ± {err:.1f} (95%), LOS {sprt.los(w, l):.1%}; "
            f"pentanomial {penta} ({len(pairs)} pairs), normalised Elo {nelo:+.1f} ± {nerr:.1f}; "
            f"SPRT [{elo0:g}, {elo1:g}] {name}: LLR {llr:.2f} (bounds {lower:.2f}, {upper:.2f})"
            f"{first_crossing(pairs, ends, elo0, elo1, model, cap)}")


class Crossing(NamedTuple):
    """Where an SPRT decided."""
    decided: str                # "H0" or "H1"
    game: int                   # the game that completed the deciding pair
    pair: int                   # that pair, from 1
    llr: float
    by_cap: bool                # decided by the cap, no bound crossed


def crossing(pairs: list[tuple[float, float]], ends: list[int], elo0: float, elo1: float,
             model: str, cap: int = 0) -> Crossing | None:
    """Where the SPRT first decided, pair by pair in the logs' order (None:
    not yet): a match stopped by hand or by a watcher often plays on past
    that point, and the test's verdict is the one at the crossing. With a
    cap, a test undecided at the cap is decided there by its LLR's sign."""
    test = sprt.Sprt(elo0, elo1, model=model, cap=cap)
    counts = [0] * 5
    for k, (pair, end) in enumerate(zip(pairs, ends)):
        counts[round(2 * sum(pair))] += 1
        value, decided = test.verdict(counts)
        if decided:
            return Crossing(decided, end, k + 1, value, test.by_cap(counts, value))
    return None


def first_crossing(pairs: list[tuple[float, float]], ends: list[int], elo0: float, elo1: float,
                   model: str, cap: int = 0) -> str:
    """``crossing`` as the summary's last clause ("" if none)."""
    found = crossing(pairs, ends, elo0, elo1, model, cap)
    if found is None:
        return ""
    how = f", at the cap of {cap} games" if found.by_cap else ""
    return f"; {found.decided} accepted at game {found.game} (pair {found.pair}, LLR {found.llr:.2f}{how})"
