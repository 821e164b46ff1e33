"""``nmm-chess study ordering``: how much does each move ordering shrink the tree?

Fixed-depth searches of test-set positions with every ordering mode; each
search starts from cleared tables, so every count is reproducible. Written:

- ``ordering.csv``: nodes and seconds per test set, mode and depth, and the
  node count divided by the history heuristic's (the paper's Fig. 5);
- ``hhweight.csv``: the same ratio for the weighted combination over a range
  of fixed history weights (Fig. 4);
- ``overhead.csv``: seconds per node of each mode over history's (the net's
  cost at equal nodes) and seconds to equal depth;
- PNG plots of the first two.
"""
from __future__ import annotations

import csv
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine._core import Board, Searcher
from engine.data.patterns import PatternSet
from engine.nets import NmmNet, load_nmm

TEST_SETS = ("A30", "B84", "D85", "E97")
MODES = {
    "history": {"ordering": "history"},
    "nmm": {"ordering": "nmm"},
    "straight": {"ordering": "straight"},
    "weighted": {"ordering": "weighted", "adaptive": False},
    "adaptive": {"ordering": "weighted", "adaptive": True},
}


@dataclass
class Task:
    test_set: str
    mode: str
    config: dict
    fens: list[str]
    depth: int
    net_path: str
    hash_mb: int = 16


def ratio(value: float, reference: float) -> float:
    """value / reference to 4 places; NaN (not an error) when the reference is 0.

    >>> ratio(3, 4), ratio(1.0, 0.0)
    (0.75, nan)
    """
    return round(value / reference, 4) if reference else math.nan


def held_out_positions(path: Path, count: int, seed: int) -> list[str]:
    """``count`` positions of a pattern set (e.g. var/nmm/twic.npz) drawn by ``seed``, in file order."""
    patterns = PatternSet.load(path)
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(len(patterns), min(count, len(patterns)), replace=False))
    return [patterns.fen(int(i)) for i in pick]


def test_positions(sets: Path, name: str, count: int, seed: int) -> list[str]:
    return held_out_positions(sets / f"test_{name}.npz", count, seed)


def configured_searcher(net: NmmNet | None, config: dict, hash_mb: int = 16) -> Searcher:
    """A Searcher as the engine makes its own (its default options), with
    ``net`` loaded and ``config`` (Searcher.configure keywords) on top; a
    missing or zero ``hhweight`` means the net's suggestion. Without a net,
    an order that needs one searches as history does."""
    from engine.session import default_searcher
    searcher = default_searcher(hash_mb)    # the default order reads no net: ``net`` is the only one
    if net is not None:
        net.install(searcher)
        searcher.configure(hhweight=float(config.get("hhweight") or net.suggested_hhweight))
    searcher.configure(**{k: v for k, v in config.items() if k != "hhweight"})
    return searcher


def run_task(task: Task) -> dict[int, list[float]]:
    """{depth: [nodes, seconds]} summed over the task's positions."""
    net = load_nmm(Path(task.net_path)) if task.net_path else None
    searcher = configured_searcher(net, task.config, task.hash_mb)
    totals: dict[int, list[float]] = {}
    for fen in task.fens:
        searcher.clear()
        seen: dict[int, tuple[int, float]] = {}
        start = time.perf_counter()

        def on_info(line: dict) -> None:
            if line["multipv"] == 1:        # perf_counter: the line's whole milliseconds can be 0
                seen[line["depth"]] = (line["nodes"], time.perf_counter() - start)
        searcher.search(Board(fen), depth=task.depth, on_info=on_info)
        for d, (nodes, seconds) in seen.items():
            entry = totals.setdefault(d, [0.0, 0.0])
            entry[0] += nodes
            entry[1] += seconds
    return totals


def run_all(tasks: list[Task], jobs: int) -> list[tuple[Task, dict]]:
    from tqdm import tqdm
    with ProcessPoolExecutor(jobs) as pool:
        results = list(tqdm(pool.map(run_task, tasks), total=len(tasks), unit="task"))
    return list(zip(tasks, results))


def summarise(results: list[tuple[Task, dict]], depth: int) -> tuple[list[dict], list[dict]]:
    """Rows per test set, mode and depth with ratios to history's; and per mode
    at ``depth`` over all sets, the time per node and to depth (a sum of
    times may be 0 on a fast machine: its ratios are then NaN, not an error)."""
    base = {(t.test_set, d): r[d] for t, r in results if t.mode == "history" for d in r}
    rows = []
    for task, totals in results:
        for d, (nodes, seconds) in sorted(totals.items()):
            ref_nodes, ref_seconds = base[(task.test_set, d)]
            rows.append({"set": task.test_set, "mode": task.mode, "depth": d, "nodes": int(nodes),
                         "seconds": seconds, "node_ratio": ratio(nodes, ref_nodes),
                         "time_ratio": ratio(seconds, ref_seconds)})
    overhead = []
    for mode in dict.fromkeys(t.mode for t, _ in results):
        mine = [r for r in rows if r["mode"] == mode and r["depth"] == depth]
        ref = [r for r in rows if r["mode"] == "history" and r["depth"] == depth]
        seconds, nodes = (sum(r["seconds"] for r in mine), sum(r["nodes"] for r in mine))
        ref_seconds, ref_nodes = (sum(r["seconds"] for r in ref), sum(r["nodes"] for r in ref))
        overhead.append({"mode": mode, "depth": depth,
                         "time_per_node_ratio": ratio(seconds * ref_nodes, ref_seconds * nodes),
                         "time_to_depth_ratio": ratio(seconds, ref_seconds),
                         "node_ratio": ratio(nodes, ref_nodes)})
    return rows, overhead


def ordering_study(sets: Path, net: Path, out: Path, positions: int, depth: int, seed: int,
                   jobs: int, min_depth: int, suffix: str = "", cut_only: bool = True) -> list[dict]:
    """Every mode on every test set; writes ordering{suffix}.csv/.png and overhead{suffix}.csv."""
    tasks = [Task(name, mode, {**config, "nmm_min_depth": min_depth, "nmm_cut_nodes_only": cut_only},
                  test_positions(sets, name, positions, seed), depth, str(net))
             for name in TEST_SETS for mode, config in MODES.items()]
    rows, overhead = summarise(run_all(tasks, jobs), depth)
    write_csv(out / f"ordering{suffix}.csv", rows)
    write_csv(out / f"overhead{suffix}.csv", overhead)
    plot_ratios(rows, out / f"ordering{suffix}.png")
    return rows


def hhweight_sweep(sets: Path, net: Path, out: Path, positions: int, depth: int, seed: int,
                   jobs: int, weights: list[float], min_depth: int, cut_only: bool = True) -> list[dict]:
    tasks = []
    for name in TEST_SETS:
        fens = test_positions(sets, name, positions, seed)
        tasks.append(Task(name, "history", {"ordering": "history"}, fens, depth, str(net)))
        for w in weights:
            tasks.append(Task(name, f"w{w:g}", {"ordering": "weighted", "hhweight": w,
                                                "nmm_min_depth": min_depth,
                                                "nmm_cut_nodes_only": cut_only}, fens, depth, str(net)))
    results = run_all(tasks, jobs)
    totals: dict[tuple[str, int], list[float]] = {}
    for task, result in results:
        for d, (nodes, _) in result.items():
            totals.setdefault((task.mode, d), [0.0])[0] += nodes
    rows = []
    for w in weights:
        for d in range(1, depth + 1):
            if (f"w{w:g}", d) in totals:
                rows.append({"hhweight": w, "depth": d, "nodes": int(totals[(f"w{w:g}", d)][0]),
                             "node_ratio": round(totals[(f"w{w:g}", d)][0] / totals[("history", d)][0], 4)})
    write_csv(out / "hhweight.csv", rows)
    plot_sweep(rows, out / "hhweight.png", depth)
    return rows


def overhead_study(sets: Path, net: Path, out: Path, positions: int, depth: int, seed: int,
                   modes: dict[str, dict], repeats: int = 3) -> list[dict]:
    """Time per node of each mode over history's, in one process with the
    modes interleaved position by position (so that a busy machine slows
    all of them alike); median over ``repeats`` rounds."""
    import statistics
    import time

    nmm = load_nmm(net)
    searchers = {mode: configured_searcher(nmm, config) for mode, config in modes.items()}
    fens = [f for name in TEST_SETS for f in test_positions(sets, name, positions, seed)]
    rounds: dict[str, list[tuple[float, float]]] = {mode: [] for mode in modes}
    for _ in range(repeats):
        totals = {mode: [0.0, 0.0] for mode in modes}
        for fen in fens:
            for mode, searcher in searchers.items():
                searcher.clear()
                start = time.perf_counter()
                nodes = searcher.search(Board(fen), depth=depth)["nodes"]
                totals[mode][0] += nodes
                totals[mode][1] += time.perf_counter() - start
        for mode in modes:
            rounds[mode].append((totals[mode][0], totals[mode][1]))
    base = statistics.median(t / n for n, t in rounds["history"])
    base_time = statistics.median(t for _, t in rounds["history"])
    rows = []
    for mode in modes:
        per_node = statistics.median(t / n for n, t in rounds[mode])
        rows.append({"mode": mode, "depth": depth, "positions": len(fens), "rounds": repeats,
                     "ns_per_node": round(per_node * 1e9), "time_per_node_ratio": round(per_node / base, 4),
                     "node_ratio": round(rounds[mode][0][0] / rounds["history"][0][0], 4),
                     "time_to_depth_ratio": round(statistics.median(t for _, t in rounds[mode]) / base_time, 4)})
    write_csv(out / "overhead_interleaved.csv", rows)
    return rows


def write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot_ratios(rows: list[dict], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(TEST_SETS), figsize=(4 * len(TEST_SETS), 3.5), sharey=True)
    for ax, name in zip(axes, TEST_SETS):
        for mode in MODES:
            points = sorted((r["depth"], r["node_ratio"]) for r in rows
                            if r["set"] == name and r["mode"] == mode and r["depth"] >= 3)
            ax.plot(*zip(*points), marker="o", label=mode)
        ax.axhline(1.0, color="grey", lw=0.5)
        ax.set_title(f"test set {name}")
        ax.set_xlabel("depth")
    axes[0].set_ylabel("nodes / history's nodes")
    axes[-1].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def plot_sweep(rows: list[dict], path: Path, depth: int) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for d in range(max(3, depth - 4), depth + 1):
        points = sorted((r["hhweight"], r["node_ratio"]) for r in rows if r["depth"] == d)
        if points:
            ax.plot(*zip(*points), marker="o", label=f"depth {d}")
    ax.set_xscale("log")
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.set_xlabel("history weight")
    ax.set_ylabel("nodes / history's nodes (all test sets)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
