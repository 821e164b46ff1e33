"""``nmm-chess bench-builds``: the working tree's search speed against a commit's, as a ratio.

A patch meant only to make the engine faster must search the very same tree:
the same bench node count in less time. This runs the bench with two
builds, each in a process of its own started in its own tree (so that each
imports its own core and its own shipped nets): the working tree and the
frozen build of commit BASE (engine/tools/frozen.py). Within a round the two
take turns position by position, so that a spell of a busy machine falls on
both alike, and each search is timed in its thread's CPU time, which leaves
out the time the thread waited for a core. The figures are each build's
bench nodes (equal, for a speed-only patch), its median nps and the median
of the rounds' ratios to BASE.

With ``instructions``, each build's bench is also counted by valgrind's
callgrind, in instructions of the search alone (collection on only inside
the core's ``group_search``, so that neither Python's start nor the tables
cleared between positions count): a figure that does not move with the
machine's load, the same to the instruction on every run of the same build.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

import click

from engine.bench import POSITIONS

# Run in a build's own tree: the bench's searcher at the engine's defaults;
# reads "depth fen" lines, answers "nodes cpu-seconds" for each.
WORKER = """
import sys, time
from engine._core import Board
from engine.session import bench_searcher
with bench_searcher({}, lambda line: None) as searcher:
    print("ready", flush=True)
    for line in sys.stdin:
        depth, fen = line.split(" ", 1)
        searcher.clear()
        start = time.thread_time()
        nodes = searcher.search(Board(fen.strip()), depth=int(depth))["nodes"]
        print(nodes, time.thread_time() - start, flush=True)
"""

SEARCH_ENTRY = "*_core_group_search"        # callgrind counts inside this function only


@dataclass
class BuildResult:
    """One build's bench: its node count and the nps of each round."""
    nodes: int = 0
    nps: list[float] = field(default_factory=list)


def in_tree(tree: Path) -> dict:
    """subprocess arguments that run a Python of this one in ``tree``, importing its code."""
    return {"cwd": tree, "env": dict(os.environ, PYTHONPATH=str(tree)), "text": True}


class Worker:
    """A build's bench searcher in a process of its own, started in ``tree``."""

    def __init__(self, tree: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, **in_tree(tree))
        if self.proc.stdout.readline().strip() != "ready":
            raise click.ClickException(f"the bench worker in {tree} did not start (its core built?)")

    def search(self, fen: str, depth: int) -> tuple[int, float]:
        """(nodes, CPU seconds) of one bench position."""
        self.proc.stdin.write(f"{depth} {fen}\n")
        self.proc.stdin.flush()
        nodes, seconds = self.proc.stdout.readline().split()
        return int(nodes), float(seconds)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def compare(trees: dict[str, Path], depth: int, runs: int,
            on_round=lambda r, results: None) -> dict[str, BuildResult]:
    """The bench at ``depth`` with each tree's build, ``runs`` rounds, the
    builds taking turns position by position."""
    workers = {name: Worker(tree) for name, tree in trees.items()}
    results = {name: BuildResult() for name in trees}
    try:
        for r in range(runs):
            totals = {name: [0, 0.0] for name in trees}
            for fen in POSITIONS:
                for name, worker in workers.items():
                    nodes, seconds = worker.search(fen, depth)
                    totals[name][0] += nodes
                    totals[name][1] += seconds
            for name, (nodes, seconds) in totals.items():
                results[name].nodes = nodes
                results[name].nps.append(nodes / max(seconds, 1e-9))
            on_round(r, results)
    finally:
        for worker in workers.values():
            worker.close()
    return results


def search_instructions(tree: Path, depth: int) -> tuple[int, int]:
    """(instructions of the search, bench nodes) of ``tree``'s build at
    ``depth``, counted by callgrind."""
    if shutil.which("valgrind") is None:
        raise click.ClickException("--instructions needs valgrind (Debian's package valgrind)")
    fens = "".join(f"{depth} {fen}\n" for fen in POSITIONS)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--collect-atstart=no",
             f"--toggle-collect={SEARCH_ENTRY}", sys.executable, "-c", WORKER],
            input=fens, capture_output=True, **in_tree(tree))
        if done.returncode != 0 or not out.exists():
            raise click.ClickException(f"callgrind failed in {tree}:\n{done.stderr[-2000:]}")
        instructions = callgrind_total(out.read_text())
    nodes = sum(int(line.split()[0]) for line in done.stdout.splitlines()[1:])     # after "ready"
    if instructions == 0:
        raise click.ClickException(f"callgrind saw no {SEARCH_ENTRY} in {tree}'s core: a build without it")
    return instructions, nodes


def callgrind_total(text: str) -> int:
    """The event total of a callgrind output file (its ``summary:`` or ``totals:`` line).

    >>> callgrind_total("events: Ir\\nsummary: 1234\\n")
    1234
    """
    found = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def run(base: str, runs: int, depth: int, instructions: int | None) -> None:
    from engine.tools.frozen import REPO, SHORT, checkout
    sha, base_tree = checkout(base)
    label = f"base {sha[:SHORT]}"
    trees = {label: base_tree, "working tree": REPO}

    def show(r: int, results: dict[str, BuildResult]) -> None:
        click.echo(f"round {r + 1}: " + ", ".join(f"{n} {v.nps[-1]:,.0f}" for n, v in results.items()), err=True)
    results = compare(trees, depth, runs, show)
    click.echo(f"bench depth {depth}, {runs} rounds (CPU time, the builds taking turns by position)")
    click.echo(f"{'build':14} {'nodes':>9} {'median nps':>11} {'ratio':>7} {'ratio range':>15}")
    for name, result in results.items():
        ratios = [v / b for v, b in zip(result.nps, results[label].nps)]
        click.echo(f"{name:14} {result.nodes:>9} {median(result.nps):>11,.0f} {median(ratios):>7.1%} "
                   f"{min(ratios):>7.1%}-{max(ratios):.1%}")
    if len({r.nodes for r in results.values()}) > 1:
        click.echo("the node counts differ: the builds search different trees, so nps does not compare them alone")
    if instructions:
        counts = {name: search_instructions(tree, instructions) for name, tree in trees.items()}
        click.echo(f"instructions of the search (callgrind, bench depth {instructions}):")
        for name, (count, nodes) in counts.items():
            click.echo(f"{name:14} {count:>14,} {nodes:>9} nodes {count / max(nodes, 1):>8,.0f} a node "
                       f"{count / counts[label][0]:>7.1%}")
