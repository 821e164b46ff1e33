"""The UCI_Elo calibration (issue 42): what Elo each weakened level really plays at.

The engine weakened to a *skill* (engine/strength.py; the research option
StrengthSkill plays one directly, whatever the UCI_Elo map says) plays the
anchors, Stockfish 15.1 with UCI_LimitStrength at several UCI_Elo values,
and the strongest levels also play the engine at full strength, which plays
the anchors too. All games together fix one Elo for each level and for full
strength, the anchors held at their labels (a logistic model, the maximum
likelihood; 95% error bars from its curvature). The fit of UCI_Elo to skill
(``ELO_KNOTS``) is then read off the measured points, and the table shows
each level with the UCI_Elo the current map gives it: measured ≈ setting is
the goal.

Games are played by pairings, each pairing's openings drawn once from the
book (seeded, both colours each), and kept in ``<out>/games/<pairing>.pgn``:
a rerun goes on where the last one stopped, ``--games`` may grow between
runs (the first openings stay the first), and ``--step`` games are added to
each pairing in turn, so that a run cut short leaves every level with about
as many games. Each level plays the ``--opponents`` anchors nearest its Elo
(the measured one once it has games, else the map's).

>>> fit_ratings([("a", "x", 0.5)] * 10 + [("a", "y", 1.0)] * 5 + [("a", "y", 0.0)] * 5,
...             {"x": 1500.0, "y": 1700.0})["a"][0].__round__()
1600
>>> isotonic([1.0, 3.0, 2.0, 4.0])
[1.0, 2.5, 2.5, 4.0]
"""
from __future__ import annotations

import io
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

from engine import strength
from engine.tools.engines import EngineSpec, parse_spec
from engine.tools.match import game_writer, read_games, rewrite_pgn, run_match
from engine.tools.tournament import pgn_path

FULL = "full"
PRIOR_DRAWS = 1.0       # a drawn game per pairing, so that a pairing won (or lost) outright has a finite Elo


@dataclass(frozen=True)
class Player:
    """One player of the ladder: an anchor (``elo`` its label), the engine at
    a ``skill`` (thousandths), at full strength, or at a UCI_Elo ``setting``
    (through the map in use: a check of the map, not a point of it)."""
    name: str               # "sf1600", "skill250", "full", "elo1600-<map>"
    spec: EngineSpec
    anchor: float | None = None
    skill: int | None = None
    setting: int | None = None

    @property
    def label(self) -> str:
        return self.spec.label


def anchor(elo: int) -> Player:
    """Stockfish at a UCI_Elo. Its Move Overhead is 100 ms, not 10: at 5+0.05 it
    lives on the increment late in long games and lost on time at 10 here."""
    spec = parse_spec(f"stockfish:UCI_LimitStrength=true,UCI_Elo={elo},Move Overhead=100")
    return Player(f"sf{elo}", spec, anchor=float(elo))


def level(skill: int) -> Player:
    if skill >= 1000:
        return full()
    return Player(f"skill{skill}", parse_spec(f"nmm:UCI_LimitStrength=true,StrengthSkill={skill}"), skill=skill)


def full() -> Player:
    return Player(FULL, parse_spec("nmm"), skill=1000)


def map_id(knots: tuple[tuple[int, float], ...] = strength.ELO_KNOTS) -> str:
    """A short fingerprint of a UCI_Elo map: games at a setting belong to the map they were played with."""
    import hashlib
    return hashlib.sha1(repr(knots).encode()).hexdigest()[:6]


def setting(elo: int) -> Player:
    """The engine at UCI_Elo ``elo`` as the map in use makes it (named with the map's fingerprint)."""
    return Player(f"elo{elo}-{map_id()}", parse_spec(f"nmm:UCI_LimitStrength=true,UCI_Elo={elo}"), setting=elo)


def openings_for(path: Path, count: int, seed: int) -> list[chess.Board]:
    """The first ``count`` openings of the book in a seeded order: the same
    ones first however many are asked for (so a pairing's games grow)."""
    text = Path(path).read_text()
    if path.suffix == ".epd":
        chunks = [line for line in text.splitlines() if line.strip()]
    else:
        chunks = ["[Event" + c for c in text.split("\n[Event")[1:]]
        chunks.insert(0, text.split("\n[Event")[0])
    order = list(range(len(chunks)))
    random.Random(seed).shuffle(order)
    boards = []
    for i in order[:count]:
        if path.suffix == ".epd":
            boards.append(chess.Board.from_epd(chunks[i])[0])
            continue
        game = chess.pgn.read_game(io.StringIO(chunks[i]))
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
        boards.append(board)
    return boards


# --- the fit ------------------------------------------------------------------

def fit_ratings(games: list[tuple[str, str, float]], anchors: dict[str, float],
                prior: float = 0.0) -> dict[str, tuple[float, float]]:
    """Each player's Elo and 95% error bar from (a, b, a's score) games, the
    anchors fixed: the maximum likelihood of the logistic model (a draw is
    half a win and half a loss), by Newton's method. ``prior``: that many
    drawn games added to every pairing played."""
    import numpy as np
    names = sorted({p for a, b, _ in games for p in (a, b)} - set(anchors))
    index = {n: i for i, n in enumerate(names)}
    pairs: dict[tuple[str, str], list[float]] = {}
    for a, b, s in games:
        key, score = ((a, b), s) if a < b else ((b, a), 1 - s)
        got = pairs.setdefault(key, [0.0, 0.0])
        got[0] += score
        got[1] += 1
    for got in pairs.values():
        got[0] += prior / 2
        got[1] += prior
    c = math.log(10) / 400
    r = np.zeros(len(names)) + (np.mean(list(anchors.values())) if anchors else 0.0)
    hess = np.eye(len(names))
    for _ in range(100):
        grad = np.zeros(len(names))
        hess = np.zeros((len(names), len(names)))
        for (a, b), (score, n) in pairs.items():
            ra = anchors[a] if a in anchors else r[index[a]]
            rb = anchors[b] if b in anchors else r[index[b]]
            p = 1 / (1 + 10 ** ((rb - ra) / 400))
            g, h = c * (score - n * p), c * c * n * p * (1 - p)
            for name, sign in ((a, 1), (b, -1)):
                if name in index:
                    grad[index[name]] += sign * g
                    hess[index[name], index[name]] += h
            if a in index and b in index:
                hess[index[a], index[b]] -= h
                hess[index[b], index[a]] -= h
        if not anchors:
            hess += 1e-9
        step = np.linalg.solve(hess + np.eye(len(names)) * 1e-12, grad)
        r += np.clip(step, -400, 400)
        if np.max(np.abs(step), initial=0) < 1e-3:
            break
    cov = np.linalg.inv(hess + np.eye(len(names)) * 1e-12)
    return {n: (float(r[i]), float(1.96 * math.sqrt(max(cov[i, i], 0.0)))) for n, i in index.items()}


def isotonic(values: list[float]) -> list[float]:
    """The non-decreasing sequence nearest ``values`` (pool adjacent violators)."""
    blocks: list[list[float]] = []          # [sum, count]
    for v in values:
        blocks.append([v, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    return [s / n for s, n in blocks for _ in range(int(n))]


def fit_knots(measured: dict[int, float], elo_min: int = strength.ELO_MIN) -> tuple[tuple[int, float], ...]:
    """UCI_Elo -> skill knots from the measured Elo of each skill (thousandths,
    1000 = full strength): each measured point is a knot (Elo made
    non-decreasing in skill), the lowest Elo extrapolated to ``elo_min`` or,
    if even skill 0 plays above it, skill 0 at ``elo_min`` (the map cannot go
    lower than the weakest level plays).

    >>> fit_knots({0: 1200, 500: 1800, 1000: 2300})
    ((1320, 0.1), (1800, 0.5), (2300, 1.0))
    """
    skills = sorted(measured)
    elos = isotonic([measured[s] for s in skills])
    knots = [(round(e), s / 1000) for s, e in zip(skills, elos)]
    if knots[0][0] < elo_min:
        for (e0, k0), (e1, k1) in zip(knots, knots[1:]):
            if e1 > elo_min:
                k = k0 + (k1 - k0) * (elo_min - e0) / (e1 - e0)
                knots = [(elo_min, round(k, 3))] + [kn for kn in knots if kn[0] > elo_min]
                break
    else:
        knots[0] = (elo_min, knots[0][1])
    out: list[tuple[int, float]] = []
    for e, k in knots:                      # equal Elos: keep the strongest skill of the run
        if out and e <= out[-1][0]:
            out[-1] = (out[-1][0], k)
        else:
            out.append((e, k))
    return tuple(out)


def elo_of_skill(k: float, knots: tuple[tuple[int, float], ...] = strength.ELO_KNOTS) -> float:
    """The UCI_Elo the map gives skill ``k`` (its inverse; the nearest end outside).

    >>> elo_of_skill(0.5, ((1320, 0.0), (2400, 1.0)))
    1860.0
    """
    if k <= knots[0][1]:
        return float(knots[0][0])
    for (e0, k0), (e1, k1) in zip(knots, knots[1:]):
        if k <= k1 and k1 > k0:
            return e0 + (e1 - e0) * (k - k0) / (k1 - k0)
    return float(knots[-1][0])


# --- playing ------------------------------------------------------------------

def pairings(players: list[Player], anchors: list[Player], estimate: dict[str, float], opponents: int,
             vs_full: int) -> list[tuple[Player, Player]]:
    """Each engine player against the ``opponents`` anchors nearest its
    estimated Elo; the ``vs_full`` strongest levels also against full strength."""
    out = []
    for p in players:
        near = sorted(anchors, key=lambda a: (abs(a.anchor - estimate[p.name]), a.anchor))[:opponents]
        out += [(p, a) for a in sorted(near, key=lambda a: a.anchor)]
    levels = sorted((p for p in players if p.skill is not None and p.name != FULL), key=lambda p: -p.skill)[:vs_full]
    if any(p.name == FULL for p in players):
        out += [(p, next(q for q in players if q.name == FULL)) for p in levels]
    return out


def play(pairs: list[tuple[Player, Player]], openings: list[chess.Board], games: int, step: int,
         base: float, inc: float, out: Path, log: Callable[[str], None] = print,
         concurrency: int = 1) -> None:
    """Bring every pairing to ``games`` games, ``step`` more to each in turn."""
    step = max(2, step - step % 2)
    target = min(games, 2 * len(openings))
    while True:
        todo = False
        for a, b in pairs:
            path = pgn_path(out, a.name, b.name)
            path.parent.mkdir(parents=True, exist_ok=True)
            played = read_games(path, a.label, b.label, openings)
            if len(played) >= target:
                continue
            todo = True
            upto = min(target, (len(played) // step + 1) * step)
            with rewrite_pgn(path, played, log, f"{a.name} vs {b.name}: ") as pgn:
                run_match(a.spec, b.spec, openings[:upto // 2], base, inc, concurrency, True,
                          on_game=game_writer(log, pgn, f"{a.name} vs {b.name}: "), played=played)
        if not todo:
            return


def read_all(out: Path, players: dict[str, Player], openings: list[chess.Board],
             failures: list[str] | None = None) -> list[tuple[str, str, float]]:
    """(a, b, a's score) of every game kept in ``out/games`` between known
    players; ``failures`` gets a line for each game lost by a failure (time,
    illegal move, crash, hang)."""
    games = []
    for a in players.values():
        for b in players.values():
            path = pgn_path(out, a.name, b.name)
            if a.name == b.name or not (path.exists() or path.with_name(path.name + ".gz").exists()):
                continue
            for g in read_games(path, a.label, b.label, openings):
                games.append((a.name, b.name, g.a_score))
                for kind in ("forfeit", "illegal", "crash", "hang"):
                    side = getattr(g, f"{kind}_by")
                    if side and failures is not None:
                        failures.append(f"{(a if side == 'a' else b).name}: {g.reason} "
                                        f"({a.name} vs {b.name}, round {g.opening + 1})")
    return games


# --- the report ------------------------------------------------------------------

def report(games: list[tuple[str, str, float]], players: dict[str, Player], command: str, tc: str,
           failures: list[str] = ()) -> str:
    ratings = fit_ratings(games, {p.name: p.anchor for p in players.values() if p.anchor is not None},
                          PRIOR_DRAWS)
    measured = {p.skill: ratings[p.name][0] for p in players.values() if p.skill is not None and p.name in ratings}
    lines = ["# UCI_Elo: measured against the Stockfish 15.1 UCI_Elo ladder", "",
             f"Made by `{command}` (engine/study/elo_ladder.py); games at {tc}, one game at a time. "
             "Each level is the engine with UCI_LimitStrength at a skill (StrengthSkill); the anchors are "
             "Stockfish 15.1 with UCI_LimitStrength at their UCI_Elo, held at those labels. Elo: the maximum "
             f"likelihood of all games together (logistic, {PRIOR_DRAWS:g} drawn game added per pairing), "
             "± 95%.", "",
             "| skill | nodes a move | error (cp) | lines | UCI_Elo (the map now) | measured Elo ± 95% | games | score |",
             "|---|---|---|---|---|---|---|---|"]
    for p in sorted((p for p in players.values() if p.skill is not None), key=lambda p: p.skill):
        if p.name not in ratings:
            continue
        prof = strength.profile_of_skill(p.skill / 1000)
        mine = [(s if a == p.name else 1 - s) for a, b, s in games if p.name in (a, b)]
        setting = "full strength" if p.skill >= 1000 else f"{elo_of_skill(p.skill / 1000):.0f}"
        r, e = ratings[p.name]
        lines.append(f"| {p.skill / 1000:.3f} | {prof.nodes or 'no cap'} | {prof.sigma:.0f} | {prof.lines} | "
                     f"{setting} | **{r:.0f} ± {e:.0f}** | {len(mine)} | {100 * sum(mine) / len(mine):.0f}% |")
    checks = sorted((p for p in players.values() if p.setting is not None and p.name in ratings),
                    key=lambda p: p.setting)
    if checks:
        lines += ["", "The map in use checked: the engine at UCI_Elo settings (games not used to fit the map).", "",
                  "| UCI_Elo | skill | measured Elo ± 95% | games | score |", "|---|---|---|---|---|"]
        for p in checks:
            mine = [(s if a == p.name else 1 - s) for a, b, s in games if p.name in (a, b)]
            r, e = ratings[p.name]
            lines.append(f"| {p.setting} | {strength.skill(p.setting):.3f} | **{r:.0f} ± {e:.0f}** | {len(mine)} | "
                         f"{100 * sum(mine) / len(mine):.0f}% |")
    lines += ["", f"Games lost by a failure: {len(failures) or 'none'}" + (":" if failures else ".")]
    lines += [f"- {f}" for f in failures]
    lines += ["", "Pairings (first player's points):", "", "| pairing | games | points | score |", "|---|---|---|---|"]
    by_pair: dict[tuple[str, str], list[float]] = {}
    for a, b, s in games:
        by_pair.setdefault((a, b), []).append(s)
    for (a, b), s in sorted(by_pair.items()):
        lines.append(f"| {a} vs {b} | {len(s)} | {sum(s):g} | {100 * sum(s) / len(s):.0f}% |")
    if len(measured) >= 2:
        knots = fit_knots(measured)
        lines += ["", "The map these games suggest (engine/strength.py, `ELO_KNOTS`; `ELO_MAX` "
                  f"{knots[-1][0]}):", "", "```python", f"ELO_KNOTS = {knots!r}", "```"]
        lines += ["", f"The map in use: `ELO_KNOTS = {strength.ELO_KNOTS!r}`."]
    return "\n".join(lines) + "\n"


def run(skills: list[int], anchor_elos: list[int], games: int, step: int, opponents: int, vs_full: int,
        book: Path, seed: int, tc: str, out: Path, report_path: Path, command: str,
        log: Callable[[str], None] = print, play_games: bool = True, settings: list[int] = ()) -> str:
    base, _, increment = tc.partition("+")
    base, inc = float(base), float(increment or 0)
    anchors = [anchor(e) for e in anchor_elos]
    levels = [level(s) for s in skills]
    if all(p.name != FULL for p in levels):
        levels.append(full())
    levels += [setting(e) for e in settings]
    everyone = {p.name: p for p in anchors + levels}
    openings = openings_for(book, (games + 1) // 2, seed)
    if play_games:
        known = read_all(out, everyone, openings)
        ratings = fit_ratings(known, {a.name: a.anchor for a in anchors}, PRIOR_DRAWS) if known else {}
        counts = {p.name: sum(p.name in (a, b) for a, b, _ in known) for p in levels}
        estimate = {p.name: ratings[p.name][0] if counts[p.name] >= 10 and p.name in ratings
                    else p.setting if p.setting is not None else elo_of_skill(p.skill / 1000) for p in levels}
        schedule = pairings(levels, anchors, estimate, opponents, vs_full)
        log("pairings: " + ", ".join(f"{a.name} vs {b.name}" for a, b in schedule))
        play(schedule, openings, games, step, base, inc, out, log)
    failures: list[str] = []
    text = report(read_all(out, everyone, openings, failures), everyone, command, tc, failures)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(text)
    return text


def parse_list(text: str) -> list[int]:
    """``0,250,500`` -> [0, 250, 500]."""
    return [int(x) for x in re.split(r"[,\s]+", text.strip()) if x]
