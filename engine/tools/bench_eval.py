"""``nmm-chess bench-eval``: search speed with each evaluation, as a ratio.

The bench is searched with the handwritten evaluation and with each TD net
in turn, ``runs`` rounds, alternating so that a busy machine slows all of
them alike; the figure is the median nps of each and its ratio to the
handwritten median. Beside it, the cost of one evaluation (median over the
bench positions, ``Searcher.eval_cost``): a fresh TD evaluation (features
and every input summed), and its parts.
"""
from __future__ import annotations

from pathlib import Path
from statistics import median

import click

from engine._core import Board, Searcher
from engine.bench import POSITIONS, run_bench
from engine.nets import load_td


def eval_costs(net) -> dict[str, float]:
    """Median nanoseconds over the bench positions: handwritten, TD features, whole TD, one net."""
    searcher = Searcher(hash_mb=1)
    net.install(searcher)
    costs = [searcher.eval_cost(Board(fen), 5000) for fen in POSITIONS]
    return {name: median(c[i] for c in costs) for i, name in enumerate(("handwritten", "features", "td", "net"))}


def run(nets: list[Path], runs: int, depth: int) -> None:
    loaded = {path.name: load_td(path) for path in nets}
    nps: dict[str, list[float]] = {"handwritten": [], **{name: [] for name in loaded}}
    nodes: dict[str, int] = {}
    for r in range(runs):
        for name in nps:
            total, seconds = run_bench(depth, td=loaded.get(name))
            nodes[name] = total
            nps[name].append(total / max(seconds, 1e-9))
        click.echo(f"round {r + 1}: " + ", ".join(f"{n} {v[-1]:,.0f}" for n, v in nps.items()), err=True)
    base = median(nps["handwritten"])
    click.echo(f"bench depth {depth}, median of {runs} rounds")
    click.echo(f"{'evaluation':16} {'nodes':>10} {'nps':>10} {'ratio':>6}")
    for name, values in nps.items():
        click.echo(f"{name:16} {nodes[name]:>10} {median(values):>10,.0f} {median(values) / base:>6.1%}")
    for name, net in loaded.items():
        cost = eval_costs(net)
        click.echo(f"{name}: one evaluation (ns, median of the bench positions): " +
                   ", ".join(f"{k} {v:.0f}" for k, v in cost.items()))
