"""``nmm-chess tournament``: a round robin or a gauntlet of engines.

Every pairing plays the same openings with both colours (the match runner
of engine/tools/match.py). Each pairing's scores are kept in
``<out>/pairs.json`` as soon as it finishes, and its games go to
``<out>/games/<a>_vs_<b>.pgn`` as they finish, each with a line in the log:
an interrupted tournament resumes at the first game not played. The crosstable and each player's
Elo against the field (95% error bar) are written as CSV, text and PNG.

>>> schedule(["a", "b", "c"]), schedule(["a", "b", "c"], gauntlet=True)
([('a', 'b'), ('a', 'c'), ('b', 'c')], [('a', 'b'), ('a', 'c')])
>>> [(s.name, s.points) for s in standings({"a vs b": [1, 0.5], "a vs c": [1, 1]}, ["a", "b", "c"])]
[('a', 3.5), ('b', 0.5), ('c', 0.0)]
"""
from __future__ import annotations

import csv
import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess

from engine.tools.engines import EngineSpec
from engine.tools.match import game_writer, read_games, rewrite_pgn, run_match
from engine.tools.sprt import score_elo
from engine.data.workpool import save_json

SEPARATOR = " vs "


def schedule(names: list[str], gauntlet: bool = False) -> list[tuple[str, str]]:
    """Every pair (round robin), or the first player against each other (gauntlet)."""
    if gauntlet:
        return [(names[0], other) for other in names[1:]]
    return list(itertools.combinations(names, 2))


@dataclass
class Standing:
    name: str
    points: float
    games: int
    elo: float
    error: float


def scores_of(pairs: dict[str, list[float]], name: str) -> list[float]:
    """``name``'s score in every game it played."""
    out: list[float] = []
    for key, games in pairs.items():
        a, b = key.split(SEPARATOR)
        if name == a:
            out += games
        elif name == b:
            out += [1 - s for s in games]
    return out


def standings(pairs: dict[str, list[float]], names: list[str]) -> list[Standing]:
    """Each player's score against the field, as Elo with a 95% error bar; best first."""
    out = []
    for name in names:
        scores = scores_of(pairs, name)
        if scores:
            _, elo, error = score_elo(scores)
            out.append(Standing(name, float(sum(scores)), len(scores), elo, error))
    return sorted(out, key=lambda s: -s.points)


def crosstable(pairs: dict[str, list[float]], names: list[str]) -> list[list[str]]:
    """Rows of "points-points" from each row player's side ("x" on the diagonal)."""
    rows = [[""] + names]
    for a in names:
        row = [a]
        for b in names:
            if a == b:
                row.append("x")
            elif f"{a}{SEPARATOR}{b}" in pairs:
                g = pairs[f"{a}{SEPARATOR}{b}"]
                row.append(f"{sum(g):g}-{len(g) - sum(g):g}")
            elif f"{b}{SEPARATOR}{a}" in pairs:
                g = pairs[f"{b}{SEPARATOR}{a}"]
                row.append(f"{len(g) - sum(g):g}-{sum(g):g}")
            else:
                row.append("")
        rows.append(row)
    return rows


def pairing_rows(pairs: dict[str, list[float]]) -> list[tuple[str, str, int, float, float, float]]:
    """(player, opponent, games, points, Elo, 95% error) of each pairing, from the first player's side."""
    rows = []
    for key, games in pairs.items():
        a, b = key.split(SEPARATOR)
        if games:
            _, elo, error = score_elo(games)
            rows.append((a, b, len(games), float(sum(games)), elo, error))
    return rows


def load_pairs(store: Path) -> dict[str, list[float]]:
    """The pairings played so far (older files keyed "a-b" are read too)."""
    if not store.exists():
        return {}
    pairs = json.loads(store.read_text())
    return {(k if SEPARATOR in k else k.replace("-", SEPARATOR, 1)): v for k, v in pairs.items()}


def play(specs: dict[str, EngineSpec], pairings: list[tuple[str, str]], openings: list[chess.Board],
         base: float, inc: float, concurrency: int, depth: int | None, store: Path,
         log: Callable[[str], None] = print, runner: str = "builtin",
         cluster: str | None = None, time_margin: float = 0.0) -> dict[str, list[float]]:
    """Play the pairings not yet in ``store``, saving each as it finishes;
    ``runner``: builtin, cutechess or fastchess (engine/tools/runners.py);
    ``cluster``: game pairs as units on a Ray cluster (play_units)."""
    if cluster:
        return play_units(specs, pairings, openings, base, inc, depth, store, log, cluster, time_margin)
    pairs = load_pairs(store)
    for a, b in pairings:
        key = f"{a}{SEPARATOR}{b}"
        if key in pairs:
            continue
        if runner == "builtin":
            path = pgn_path(store.parent, a, b)
            path.parent.mkdir(parents=True, exist_ok=True)
            played = read_games(path, specs[a].label, specs[b].label, openings)   # a pairing cut short
            with rewrite_pgn(path, played, log, f"{key}: ") as pgn:
                summary = run_match(specs[a], specs[b], openings, base, inc, concurrency, True,
                                    on_game=game_writer(log, pgn, f"{key}: "), depth=depth, played=played,
                                    time_margin=time_margin)
        else:
            from engine.tools.runners import run_external
            summary = run_external(runner, specs[a], specs[b], openings, base, inc, concurrency, True, depth,
                                   store.parent / "runner", log=log, time_margin=time_margin)
        pairs[key] = [g.a_score for g in summary.games]
        save_json(store, pairs)
        log(f"{a} vs {b}: {sum(pairs[key]):g}-{len(pairs[key]) - sum(pairs[key]):g}")
    return pairs


def pgn_path(out: Path, a: str, b: str) -> Path:
    """Where a pairing's games go: ``nmm(Threads=2)`` and ``stockfish`` ->
    ``games/nmm_Threads=2_vs_stockfish.pgn``.

    >>> pgn_path(Path("t"), "nmm(Threads=2)", "stockfish").as_posix()
    't/games/nmm_Threads=2_vs_stockfish.pgn'
    """
    def slug(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9.=+-]+", "_", name).strip("_")[:80]
    return out / "games" / f"{slug(a)}_vs_{slug(b)}.pgn"


def play_units(specs: dict[str, EngineSpec], pairings: list[tuple[str, str]], openings: list[chess.Board],
               base: float, inc: float, depth: int | None, store: Path, log: Callable[[str], None],
               cluster: str, time_margin: float = 0.0) -> dict[str, list[float]]:
    """Every game pair (one opening, both colours) of the pairings not yet in
    ``store`` as a unit of engine/data/workpool.py. Each finished pair is
    saved at once in ``units.json`` beside ``store``, and a pairing whose
    pairs are all in moves to ``store``: a lost worker's pair is played
    again, a finished one is never played or counted twice."""
    from engine.tools.match import PairUnit, play_pair
    from engine.data.workpool import run_units
    pairs = load_pairs(store)
    unit_store = store.with_name("units.json")
    done: dict[str, list[float]] = json.loads(unit_store.read_text()) if unit_store.exists() else {}
    keys = {f"{a}{SEPARATOR}{b}": [f"{a}{SEPARATOR}{b}#{i}" for i in range(len(openings))] for a, b in pairings}

    def complete(pairing: str) -> None:
        if pairing not in pairs and all(k in done for k in keys[pairing]):
            pairs[pairing] = [score for k in keys[pairing] for score in done[k]]
            save_json(store, pairs)
            points = sum(pairs[pairing])
            log(f"{pairing}: {points:g}-{len(pairs[pairing]) - points:g}")

    def save(key: str, games: list) -> None:
        done[key] = [g.a_score for g in games]
        save_json(unit_store, done)
        complete(key.rpartition("#")[0])

    for pairing in keys:            # finished before a crash, not yet moved
        complete(pairing)
    units = [(keys[f"{a}{SEPARATOR}{b}"][i],
              PairUnit.of(specs[a], specs[b], opening, base, inc, depth, time_margin=time_margin))
             for a, b in pairings if f"{a}{SEPARATOR}{b}" not in pairs for i, opening in enumerate(openings)]
    run_units(play_pair, units, set(done), save, cluster=cluster)
    return pairs


def write_csv(path: Path, rows: list[list]) -> None:
    """Rows as CSV (engine labels hold commas: quoted where they do)."""
    with path.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def write_reports(out: Path, pairs: dict[str, list[float]], names: list[str], title: str,
                  about: dict[str, str] | None = None, reference: dict[str, str] | None = None) -> str:
    """crosstable.csv, standings.csv / .txt / .png in ``out``; returns the text.
    ``about``: a description of each player; ``reference``: a column to show
    beside the results (a published figure, say), its header first under key ""."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    about, reference = about or {}, reference or {}
    table = standings(pairs, names)
    cross = crosstable(pairs, names)
    ref_name = reference.get("", "")
    write_csv(out / "crosstable.csv", cross)
    write_csv(out / "standings.csv", [["player", "what", "points", "games", "elo", "error95"] + [ref_name] * bool(
        ref_name)] + [[s.name, about.get(s.name, ""), f"{s.points:g}", s.games, f"{s.elo:.0f}", f"{s.error:.0f}"]
                      + [reference.get(s.name, "")] * bool(ref_name) for s in table])
    width = max(len(c) for r in cross for c in r) + 1
    what = max([len(v) for v in about.values()] + [4])
    lines = [title, ""] + ["".join(c.rjust(width) for c in r) for r in cross]
    lines += ["", f"{'rank':>4} {'player':{width}} {'what':{what}} {'points':>10} {'Elo ± 95%':>12}   {ref_name}"]
    for rank, s in enumerate(table, 1):
        lines.append(f"{rank:>4} {s.name:{width}} {about.get(s.name, ''):{what}} {s.points:>5g}/{s.games:<4} "
                     f"{s.elo:+5.0f} ± {s.error:<4.0f}   {reference.get(s.name, '')}")
    pairings = pairing_rows(pairs)
    write_csv(out / "pairings.csv", [["player", "opponent", "games", "points", "elo", "error95"]] + [
        [a, b, n, f"{pts:g}", f"{elo:.0f}", f"{err:.0f}"] for a, b, n, pts, elo, err in pairings])
    lines += ["", "pairings (first player's side):"]
    lines += [f"  {a} vs {b}: {pts:g}/{n}, Elo {elo:+.0f} ± {err:.0f}" for a, b, n, pts, elo, err in pairings]
    text = "\n".join(lines) + "\n"
    (out / "standings.txt").write_text(text)
    fig, ax = plt.subplots(figsize=(max(7, len(table)), 4))
    ax.bar([s.name for s in table], [s.elo for s in table], yerr=[s.error for s in table], capsize=4)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set(ylabel="Elo against the field (95%)", title=title)
    ax.tick_params(axis="x", labelrotation=20)
    fig.tight_layout()
    fig.savefig(out / "standings.png", dpi=110)
    plt.close(fig)
    return text
