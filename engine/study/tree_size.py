"""``nmm-chess study tree-size``: nodes and time to fixed depths, per search
configuration, on positions no net was trained on.

Every configuration searches every position to the same depth from cleared
tables (``ucinewgame``), in one process, taking turns position by position
so that a busy machine slows all of them alike; time is the thread's CPU
time. Per configuration and depth the study sums the nodes and seconds over
the positions and divides by the reference configuration's (the first):
nodes, time per node, and time to depth. The median over rounds is taken for
times; node counts are the same every round.

A configuration is ``name:key=value,key=value``: Searcher.configure keywords
(``ordering=weighted``, ``nmm_min_depth=2``, ...) on top of the engine's
default options (engine.session.default_searcher), plus ``net=PATH`` (a
Neural MoveMap file) and ``hash=MB``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine._core import Board, Searcher
from engine.nets import load_nmm
from engine.study.ordering import configured_searcher, held_out_positions, write_csv


@dataclass
class Config:
    name: str
    options: dict = field(default_factory=dict)
    net: str | None = None
    hash_mb: int = 64


def parse_config(text: str) -> Config:
    """``name:key=value,...`` -> Config (numbers and booleans converted).

    >>> parse_config("w:ordering=weighted,nmm_min_depth=2,net=nets/nmm.npz,adaptive=false")
    Config(name='w', options={'ordering': 'weighted', 'nmm_min_depth': 2, 'adaptive': False}, net='nets/nmm.npz', hash_mb=64)
    """
    name, _, rest = text.partition(":")
    config = Config(name)
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key == "net":
            config.net = value
        elif key == "hash":
            config.hash_mb = int(value)
        else:
            config.options[key] = convert(value)
    return config


def convert(value: str):
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def make_searcher(config: Config) -> Searcher:
    net = load_nmm(Path(config.net)) if config.net else None
    return configured_searcher(net, config.options, config.hash_mb)


def one_search(searcher: Searcher, fen: str, depth: int) -> dict[int, tuple[int, float]]:
    """{depth: (nodes, CPU seconds)} of each completed iteration."""
    seen: dict[int, tuple[int, float]] = {}
    searcher.clear()
    start = time.thread_time()

    def on_info(line: dict) -> None:
        if line["multipv"] == 1:
            seen[line["depth"]] = (line["nodes"], time.thread_time() - start)
    searcher.search(Board(fen), depth=depth, on_info=on_info)
    return seen


def tree_size_study(fens: list[str], configs: list[Config], depth: int, rounds: int = 1,
                    progress: bool = True) -> list[dict]:
    """Rows per configuration and depth: nodes, seconds, and their ratios to the first configuration."""
    searchers = [make_searcher(c) for c in configs]
    nodes = np.zeros((len(configs), depth + 1))
    seconds = np.zeros((rounds, len(configs), depth + 1))
    steps = [(r, i, fen) for r in range(rounds) for i, fen in enumerate(fens)]
    if progress:
        from tqdm import tqdm
        steps = tqdm(steps, unit="position")
    for r, _, fen in steps:
        for k, searcher in enumerate(searchers):
            for d, (n, t) in one_search(searcher, fen, depth).items():
                seconds[r, k, d] += t
                if r == 0:
                    nodes[k, d] += n
    time_med = np.median(seconds, axis=0)
    rows = []
    for k, config in enumerate(configs):
        for d in range(1, depth + 1):
            if nodes[0, d] == 0 or nodes[k, d] == 0:
                continue
            per_node = time_med[k, d] / nodes[k, d]
            ref_per_node = time_med[0, d] / nodes[0, d]
            rows.append({"config": config.name, "depth": d, "positions": len(fens), "nodes": int(nodes[k, d]),
                         "seconds": round(float(time_med[k, d]), 3),
                         "node_ratio": round(float(nodes[k, d] / nodes[0, d]), 4),
                         "time_per_node_ratio": round(float(per_node / ref_per_node), 4) if ref_per_node else None,
                         "time_ratio": round(float(time_med[k, d] / time_med[0, d]), 4) if time_med[0, d] else None})
    return rows


def summary_lines(rows: list[dict], depths: list[int]) -> list[str]:
    lines = []
    for d in depths:
        for r in rows:
            if r["depth"] == d:
                lines.append(f"depth {d:2} {r['config']:24} nodes {r['nodes']:>12,}  x{r['node_ratio']:.3f} nodes  "
                             f"x{r['time_per_node_ratio']:.3f} time/node  x{r['time_ratio']:.3f} time to depth")
    return lines


def write(rows: list[dict], path: Path) -> None:
    write_csv(path, rows)
