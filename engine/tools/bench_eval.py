"""``nmm-chess bench-eval``: search speed with each evaluation, as a ratio.

The bench is searched with the handwritten evaluation and with each net (a
TD net or an NNUE, as its file's header says),
``runs`` rounds. Within a round the evaluations take turns position by
position, so that a spell of a busy machine (this one is shared) falls on
all of them alike, and each search is timed in the thread's CPU time, which
leaves out the time the thread was not running. The figures are the median
nps of each and the median of the rounds' ratios to handwritten. Beside it, the cost of one evaluation (median over the
bench positions): a fresh TD evaluation (features and every input summed)
and its parts (``LabSearcher.eval_cost``), or an NNUE's from scratch, its
accumulators brought over one move, and its output layer
(``LabSearcher.nnue_eval_cost``).
"""
from __future__ import annotations

import time
from pathlib import Path
from statistics import median

import click

from engine._core import Board, LabSearcher, Searcher
from engine.bench import POSITIONS
from engine.evaluation.nnue import NnueNet
from engine.nets import load_evaluation
from engine.session import default_searcher, options_line


def eval_costs(net) -> dict[str, float]:
    """Median nanoseconds over the bench positions: handwritten, TD features,
    whole TD, one net; or handwritten, the NNUE afresh, one move's update of
    its accumulators, its output layer."""
    searcher = default_searcher(1, searcher_class=LabSearcher)
    net.install(searcher)
    if isinstance(net, NnueNet):
        costs = [searcher.nnue_eval_cost(after_a_move(fen), 5000) for fen in POSITIONS]
        names = ("handwritten", "nnue afresh", "nnue update", "nnue output")
    else:
        costs = [searcher.eval_cost(Board(fen), 5000) for fen in POSITIONS]
        names = ("handwritten", "features", "td", "net")
    return {name: median(c[i] for c in costs) for i, name in enumerate(names)}


def after_a_move(fen: str) -> Board:
    """``fen`` after its first legal move: the NNUE's update is timed over that move."""
    board = Board(fen)
    board.push(board.legal_moves()[0])
    return board


def bench_round(searchers: dict[str, Searcher], depth: int) -> dict[str, tuple[int, float]]:
    """One pass of the bench: every position searched by each searcher in
    turn; (nodes, CPU seconds) per searcher."""
    totals = {name: [0, 0.0] for name in searchers}
    for fen in POSITIONS:
        for name, searcher in searchers.items():
            searcher.clear()
            start = time.thread_time()
            nodes = searcher.search(Board(fen), depth=depth)["nodes"]
            totals[name][1] += time.thread_time() - start
            totals[name][0] += nodes
    return {name: (n, s) for name, (n, s) in totals.items()}


def run(nets: list[Path], runs: int, depth: int) -> None:
    loaded = {path.name: load_evaluation(path) for path in nets}
    searchers = {"handwritten": default_searcher(16)}     # the engine's defaults; each net on top
    for name, net in loaded.items():
        searchers[name] = default_searcher(16)
        net.install(searchers[name])
    click.echo(options_line(), err=True)
    nps: dict[str, list[float]] = {name: [] for name in searchers}
    nodes: dict[str, int] = {}
    for r in range(runs):
        for name, (total, seconds) in bench_round(searchers, depth).items():
            nodes[name] = total
            nps[name].append(total / max(seconds, 1e-9))
        click.echo(f"round {r + 1}: " + ", ".join(f"{n} {v[-1]:,.0f}" for n, v in nps.items()), err=True)
    click.echo(f"bench depth {depth}, median of {runs} rounds (CPU time, evaluations taking turns by position)")
    click.echo(f"{'evaluation':16} {'nodes':>10} {'nps':>10} {'ratio':>6} {'ratio range':>14}")
    for name, values in nps.items():
        ratios = [v / h for v, h in zip(values, nps["handwritten"])]
        click.echo(f"{name:16} {nodes[name]:>10} {median(values):>10,.0f} {median(ratios):>6.1%} "
                   f"{min(ratios):>6.1%}-{max(ratios):.1%}")
    for name, net in loaded.items():
        cost = eval_costs(net)
        click.echo(f"{name}: one evaluation (ns, median of the bench positions): " +
                   ", ".join(f"{k} {v:.0f}" for k, v in cost.items()))
