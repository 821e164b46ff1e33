"""``nmm-chess study threads``: time to depth with 1 and with more threads.

Lazy SMP pays if the threads together reach a depth sooner than one thread
does. Every thread count searches every position to the same depth from
cleared tables (``ucinewgame``), taking turns position by position so that a
busy machine slows all of them alike. Time is wall-clock time here (CPU time
would count every thread's), so the machine should have a core per thread
and nothing else running. Per thread count the study sums the seconds and
nodes over the positions; the speed-up is the one-thread time over the
n-thread time, the median over rounds. Node counts of more than one thread
change from run to run: they are summed over the rounds.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engine._core import Board, Searcher
from engine.session import default_searcher
from engine.study.ordering import held_out_positions, write_csv


def middle_game_positions(path: Path, count: int, seed: int, min_ply: int = 20) -> list[str]:
    """``count`` positions drawn by ``seed``: from a pattern set (.npz), or from
    a PGN's games at ply ``min_ply`` or later, or from an EPD file."""
    if path.suffix == ".npz":
        return held_out_positions(path, count, seed)
    from engine.data.batches import sample_positions
    from engine.data.label import fen_ply, read_positions
    return sample_positions([f for f in read_positions(path, every=3) if fen_ply(f) >= min_ply], count, seed)


def time_to_depth(searcher: Searcher, fen: str, depth: int) -> tuple[int, float]:
    """(nodes, wall seconds) of a search of ``fen`` to ``depth`` from cleared tables."""
    searcher.clear()
    start = time.perf_counter()
    result = searcher.search(Board(fen), depth=depth)
    return result["nodes"], time.perf_counter() - start


def threads_study(fens: list[str], threads: list[int], depth: int, rounds: int = 3, hash_mb: int = 64,
                  options: dict | None = None, progress: bool = True,
                  variants: Sequence[dict] = ()) -> list[dict]:
    """One row per thread count: seconds (median over rounds), nodes, and the
    speed-up and node ratio against the first thread count, with the
    quartiles of the speed-up position by position (each position's time
    summed over the rounds). ``options``: Searcher.configure keywords on top
    of the engine's defaults (engine.session.default_searcher). ``variants``: more keywords on top of
    ``options``, each searched with the thread counts above 1 only, taking
    turns with the others and measured against the same first thread count
    (to compare helper rules without a second one-thread run): a row each,
    its ``variant`` the keywords."""
    runs = [(n, {}) for n in threads] + [(n, v) for v in variants for n in threads if n > 1]
    searchers = []
    for n, variant in runs:
        searcher = default_searcher(hash_mb, **{**(options or {}), **variant})
        searcher.set_threads(n)
        searchers.append(searcher)
    per_position = np.zeros((rounds, len(fens), len(runs)))
    nodes = np.zeros((rounds, len(runs)))
    steps = [(r, i, fen) for r in range(rounds) for i, fen in enumerate(fens)]
    if progress:
        from tqdm import tqdm
        steps = tqdm(steps, unit="position")
    for r, i, fen in steps:
        for k, searcher in enumerate(searchers):
            n, t = time_to_depth(searcher, fen, depth)
            per_position[r, i, k] = t
            nodes[r, k] += n
    seconds = per_position.sum(axis=1)
    position_seconds = per_position.sum(axis=0)
    position_speedups = position_seconds[:, :1] / position_seconds
    speedups = seconds[:, :1] / seconds
    rows = []
    for k, (n, variant) in enumerate(runs):
        rows.append({"threads": n, "variant": ",".join(f"{key}={value}" for key, value in variant.items()),
                     "positions": len(fens), "depth": depth, "rounds": rounds,
                     "seconds": round(float(np.median(seconds[:, k])), 3),
                     "nodes": int(nodes[:, k].sum() / rounds),
                     "speedup": round(float(np.median(speedups[:, k])), 3),
                     "speedup_min": round(float(speedups[:, k].min()), 3),
                     "speedup_max": round(float(speedups[:, k].max()), 3),
                     "position_speedup_q25": round(float(np.percentile(position_speedups[:, k], 25)), 3),
                     "position_speedup_q75": round(float(np.percentile(position_speedups[:, k], 75)), 3),
                     "node_ratio": round(float(nodes[:, k].sum() / nodes[:, 0].sum()), 3),
                     "nps_ratio": round(float((nodes[:, k] / seconds[:, k]).sum()
                                              / (nodes[:, 0] / seconds[:, 0]).sum()), 3)})
    return rows


def summary_lines(name: str, rows: list[dict]) -> list[str]:
    return [f"{name}: {r['positions']} positions, depth {r['depth']}, {r['threads']} thread(s)"
            f"{' (' + r['variant'] + ')' if r.get('variant') else ''}: "
            f"{r['seconds']:.1f} s, x{r['speedup']:.2f} faster to depth ({r['speedup_min']:.2f}-"
            f"{r['speedup_max']:.2f} over {r['rounds']} rounds; quartiles by position "
            f"{r['position_speedup_q25']:.2f}-{r['position_speedup_q75']:.2f}), x{r['node_ratio']:.2f} nodes, "
            f"x{r['nps_ratio']:.2f} nodes per second" for r in rows]


def write(rows: list[dict], path: Path) -> None:
    write_csv(path, rows)
