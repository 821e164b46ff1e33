"""``nmm-chess sweep``: one figure measured over a grid of UCI option values.

A grid is one or more ranges, each ``Name=values``: a list
(``MoveOrdering=history,straight,weighted``) or a span, ``lo..hi lin N`` or
``lo..hi log N`` (N points, ends included; integers stay integers for an
integer span). Several ranges make their product. Each point is measured by

- ``nodes``: the nodes the engine needs to search a position set to a fixed
  depth (the bench positions by default), through UCI with the point's
  options set, as a user would: smaller is better ordering / pruning; or
- ``match``: a match against a fixed opponent, Elo ± 95%.

Finished points are kept in ``<out>/points.json`` as they finish; a rerun
measures only the points not there. The figures go to ``sweep.csv`` and a
plot, ``sweep.png``.

>>> parse_range("HistoryWeight=1000..100000 log 3"), parse_range("X=0.001..0.1 log 3")
(('HistoryWeight', ['1000', '10000', '100000']), ('X', ['0.001', '0.01', '0.1']))
>>> parse_range("Depth=2..8 lin 4"), parse_range("MoveOrdering=history,nmm")
(('Depth', ['2', '4', '6', '8']), ('MoveOrdering', ['history', 'nmm']))
>>> grid(["A=1,2", "B=x,y"])
[{'A': '1', 'B': 'x'}, {'A': '1', 'B': 'y'}, {'A': '2', 'B': 'x'}, {'A': '2', 'B': 'y'}]
"""
from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path

import chess
import chess.engine

from engine.tools.engines import EngineSpec, here
from engine.tools.match import START_GUARD


def parse_range(text: str) -> tuple[str, list[str]]:
    """``Name=values`` -> (name, the values as UCI strings)."""
    name, eq, rest = text.partition("=")
    if not eq or not name.strip() or not rest.strip():
        raise ValueError(f"{text!r}: a range is Name=v1,v2,... or Name=lo..hi lin|log N")
    rest = rest.strip()
    if ".." not in rest:
        return name.strip(), [v.strip() for v in rest.split(",") if v.strip()]
    parts = rest.replace("..", " ").split()
    if len(parts) != 4 or parts[2] not in ("lin", "log"):
        raise ValueError(f"{text!r}: a span is lo..hi lin N or lo..hi log N")
    lo, hi, scale, count = float(parts[0]), float(parts[1]), parts[2], int(parts[3])
    if count < 2 or (scale == "log" and not 0 < lo < hi):
        raise ValueError(f"{text!r}: at least 2 points; a log span needs 0 < lo < hi")
    if scale == "lin":
        values = [lo + (hi - lo) * i / (count - 1) for i in range(count)]
    else:
        values = [lo * (hi / lo) ** (i / (count - 1)) for i in range(count)]
    integral = all(p.lstrip("-").isdigit() for p in parts[:2])        # a spin option's span
    texts = [str(round(v)) if integral else f"{v:.6g}" for v in values]
    return name.strip(), list(dict.fromkeys(texts))                    # rounding can repeat a value


def grid(ranges: list[str]) -> list[dict[str, str]]:
    """Every combination of the ranges' values, in order."""
    parsed = [parse_range(r) for r in ranges]
    return [dict(zip([n for n, _ in parsed], combo)) for combo in itertools.product(*(v for _, v in parsed))]


def key_of(point: dict[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in point.items())


def nodes_to_depth(spec: EngineSpec, point: dict[str, str], fens: list[str], depth: int) -> dict:
    """Total nodes to ``depth`` over ``fens`` with the point's options set."""
    engine = chess.engine.SimpleEngine.popen_uci(here(spec).command, timeout=START_GUARD)  # where it measures
    try:
        engine.configure({**spec.options, **point})
        total = 0
        for i, fen in enumerate(fens):
            # a new game for each position (ucinewgame: empty tables), as bench does
            info = engine.analyse(chess.Board(fen), chess.engine.Limit(depth=depth), game=i)
            total += int(info.get("nodes", 0))
        return {"nodes": total}
    finally:
        engine.quit()


def match_against(spec: EngineSpec, point: dict[str, str], opponent: EngineSpec, openings: list[chess.Board],
                  base: float, inc: float, concurrency: int, depth: int | None) -> dict:
    from engine.tools.match import run_match
    player = here(EngineSpec(spec.name, spec.command, {**spec.options, **point}))
    summary = run_match(player, here(opponent), openings, base, inc, concurrency, True, depth=depth)
    score, elo, error = summary.elo()
    return {"games": len(summary.games), "score": score, "elo": elo, "error": error}


def run(points: list[dict[str, str]], measure: Callable[[dict[str, str]], dict], out: Path,
        log: Callable[[str], None] = print, workers: int = 1, cluster: str | None = None) -> dict[str, dict]:
    """Measure the points not yet in ``out/points.json``, saving each as it
    finishes. ``measure`` is called with a point; with ``workers`` > 1 or a
    ``cluster`` it must pickle (a module-level function, or a partial of one),
    and the points run as units of engine/data/workpool.py."""
    from engine.data.workpool import run_units, save_json
    out.mkdir(parents=True, exist_ok=True)
    store = out / "points.json"
    done: dict[str, dict] = json.loads(store.read_text()) if store.exists() else {}

    units = {key_of(p): p for p in points}

    def save(key: str, result: dict) -> None:
        done[key] = {"point": units[key], **result}
        save_json(store, done, indent=1)
        log(f"{key}: " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                   for k, v in result.items()))
    if workers <= 1 and not cluster:
        for key, point in units.items():
            if key not in done:
                save(key, measure(point))
    else:
        run_units(measure, units.items(), set(done), save, workers, cluster)
    return done


def write_reports(out: Path, points: list[dict[str, str]], done: dict[str, dict], figure: str) -> str:
    """sweep.csv and sweep.png for ``points`` (in grid order); returns the CSV text."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = list(points[0])
    fields = [k for k in done[key_of(points[0])] if k != "point"]
    rows = [",".join(names + fields)]
    for p in points:
        r = done[key_of(p)]
        rows.append(",".join([p[n] for n in names] + [f"{r[f]:.6g}" if isinstance(r[f], float) else str(r[f])
                                                       for f in fields]))
    text = "\n".join(rows) + "\n"
    (out / "sweep.csv").write_text(text)
    fig, ax = plt.subplots(figsize=(7, 4))
    ys = [done[key_of(p)][figure] for p in points]
    errors = [done[key_of(p)].get("error", 0) for p in points] if figure == "elo" else None
    numeric = len(names) == 1 and all(_is_number(p[names[0]]) for p in points)
    if numeric:
        xs = [float(p[names[0]]) for p in points]
        ax.errorbar(xs, ys, yerr=errors, marker="o", capsize=3)
        if min(xs) > 0 and max(xs) / min(xs) > 20:
            ax.set_xscale("log")
        ax.set_xlabel(names[0])
    else:
        ax.bar(range(len(points)), ys, yerr=errors, capsize=3)
        ax.set_xticks(range(len(points)), [key_of(p) for p in points], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(figure)
    ax.set_title(f"{figure} over {', '.join(names)}")
    fig.tight_layout()
    fig.savefig(out / "sweep.png", dpi=110)
    plt.close(fig)
    return text


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
