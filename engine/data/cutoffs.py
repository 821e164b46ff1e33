"""``nmm-chess data cutoffs``: the move picker's own decisions as training data.

Each position is searched to a fixed depth from empty tables with cut-off
recording on (ext/cutoffs.pxi), by the engine users run (its default
options; ``--option NAME=VALUE`` sets others; the sets recorded before
issue 40 searched with the core's own settings, history order among them). Every node where a quiet move failed high
gives one sample: the position, all its quiet moves (the moves the quiet
stage ranks), and the one that cut off as the label. A net trained on these
learns which quiet move refutes, the decision the picker makes, instead of
which move a master played.

- **One sample per node.** Iterative deepening and re-searches visit a node
  again; per search and over the whole set only the deepest record of a
  position is kept (the deepest search knows best what refutes there).
- **Weight by depth.** A sample carries the plies left at its node; the
  trainer weights it by ``depth`` (default), ``depth^2`` or 1. A cut-off far
  from the leaves saves a larger subtree, but the picker orders at every
  depth, and depth^2 (the history heuristic's reward) would let the few
  nodes near the root outweigh the rest.

The output is a pattern set (engine/data/patterns.py; ``legal`` holds only
the quiet moves, ``played`` the cut-off move, ``game`` the index of the
searched position, so that a split by it keeps one search's nodes together)
with two more arrays, ``depth`` and ``tried`` (quiet moves searched before
the cut-off). Batches resume like ``data label``'s.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.data.batches import run_batches
from engine.data.patterns import NO_ECO, PatternSet

CAPACITY = 1 << 18          # cut-offs one search may record


def deepest_per_key(c: dict) -> np.ndarray:
    """Indices of the records to keep: per key the deepest, the latest of equals."""
    n = len(c["key"])
    if n == 0:
        return np.zeros(0, np.int64)
    order = np.lexsort((np.arange(n), c["depth"], c["key"]))     # by key, then depth, then time
    last_of_key = np.r_[c["key"][order][1:] != c["key"][order][:-1], True]
    return np.sort(order[last_of_key])


def to_patterns(c: dict, index: np.ndarray, source: np.ndarray) -> tuple[PatternSet, np.ndarray, np.ndarray]:
    """Records ``index`` of a take_cutoffs() dict as a pattern set, with depth and tried."""
    n = len(c["key"])
    legal = np.zeros((len(c["quiets"]), 3), np.uint8)
    legal[:, :2] = c["quiets"]
    everything = PatternSet(c["board"], c["stm"], legal, c["offsets"], c["cut"], np.zeros(n, np.int16),
                            np.zeros(n, np.int32), np.full(n, NO_ECO, np.uint16), c["key"], c["castling"],
                            c["ep"], c["halfmove"], c["last_to"])
    patterns = everything.take(index)
    patterns.game = np.asarray(source, np.int32)
    return patterns, c["depth"][index].copy(), c["tried"][index].copy()


def cutoff_batch(unit: tuple[list[tuple[int, str]], int, int, dict]) -> dict:
    """Search each (index, FEN) of the unit to ``depth`` with the engine at its
    default options (UCI ``options`` on top); the deduplicated cut-offs as arrays."""
    from engine._core import Board, LabSearcher
    from engine.session import default_searcher
    positions, depth, min_depth, options = unit
    searcher = default_searcher(16, options, searcher_class=LabSearcher)
    searcher.record_cutoffs(CAPACITY, min_depth)
    parts, dropped = [], 0
    for source, fen in positions:
        searcher.clear()
        searcher.search(Board(fen), depth=depth)
        c = searcher.take_cutoffs()
        dropped += c["dropped"]
        keep = deepest_per_key(c)
        parts.append(to_patterns(c, keep, np.full(len(keep), source)))
    patterns = PatternSet.concat([p for p, _, _ in parts])
    return {**patterns.arrays(), "depth": np.concatenate([d for _, d, _ in parts]),
            "tried": np.concatenate([t for _, _, t in parts]), "dropped": np.array(dropped)}


def save_arrays(path: Path, arrays: dict) -> None:
    with path.open("wb") as f:              # a file object: numpy adds no ".npz" to the name
        np.savez_compressed(f, **arrays)


def load_cutoffs(path: Path) -> tuple[PatternSet, np.ndarray, np.ndarray]:
    """(patterns, depth, tried) of a cut-off set; a plain pattern set (e.g. engine
    labels) reads as depth 1 and tried 0 throughout."""
    patterns = PatternSet.load(path)
    with np.load(path) as data:
        if "depth" not in data:
            return patterns, np.ones(len(patterns), np.uint8), np.zeros(len(patterns), np.uint8)
        return patterns, data["depth"], data["tried"]


def merge(parts: list[tuple[PatternSet, np.ndarray, np.ndarray]]) -> tuple[PatternSet, np.ndarray, np.ndarray]:
    """Concatenate and keep, per position key, the deepest sample."""
    patterns = PatternSet.concat([p for p, _, _ in parts])
    depth = np.concatenate([d for _, d, _ in parts])
    tried = np.concatenate([t for _, _, t in parts])
    keep = deepest_per_key({"key": patterns.key, "depth": depth})
    return patterns.take(keep), depth[keep], tried[keep]


def collect(positions: list[str], out: Path, depth: int, min_depth: int = 2, batch: int = 64,
            workers: int = 2, cluster: str | None = None, progress: bool = True,
            options: dict | None = None) -> tuple[int, int]:
    """Search ``positions`` with the engine at its default options (``options``:
    UCI options on top) and write their cut-offs to ``out``; (samples, batches run now)."""
    options = dict(options or {})
    # The options are part of the job, as in data label: another engine's batches are refused.
    job = {"positions": len(positions), "first": positions[:1], "depth": depth, "min_depth": min_depth,
           "batch": batch, "options": options}
    paths, ran = run_batches(cutoff_batch, list(enumerate(positions)), (depth, min_depth, options),
                             out.with_name(out.name + ".work"), job, batch, save_arrays, ".npz",
                             workers, cluster, progress)
    patterns, depths, tried = merge([load_cutoffs(p) for p in paths])
    out.parent.mkdir(parents=True, exist_ok=True)
    save_arrays(out, {**patterns.arrays(), "depth": depths, "tried": tried})
    return len(patterns), ran
