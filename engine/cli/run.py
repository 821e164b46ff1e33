"""Run the engine itself: UCI (what a GUI starts), perft, bench, test suites."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from engine.options import DEFAULT_EVAL, EVALS


@click.command()
@click.option("--research", is_flag=True,
              help="The uci list shows the research switches too (as NMM_CHESS_RESEARCH=1 does).")
def uci(research: bool = False) -> None:
    """Speak UCI on stdin/stdout (what a GUI runs)."""
    import os

    from engine.options import research_from_env
    # numpy only loads the nets here; its BLAS threads would spin beside the
    # search on the same cores.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from engine.uci import main as uci_main
    uci_main(research=research or research_from_env())
    # Every answer is written and flushed: leave now rather than wait for the
    # interpreter's teardown (numpy, threads), so that quit is quick.
    sys.stdout.flush()
    os._exit(0)


@click.command()
@click.option("--fen", default=None, help="Start position (default: the initial position).")
@click.option("--depth", "-d", type=click.IntRange(0, 20), default=None, help="Plies to count.")
@click.option("--divide", is_flag=True, help="Print the count below each root move.")
@click.option("--bulk/--no-bulk", default=True, show_default=True,
              help="Count the last ply's moves without making them.")
@click.option("--chess960", is_flag=True, help="Print castling as king-takes-rook.")
@click.option("--suite", "suites", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Check an EPD perft suite instead (repeatable).")
@click.option("--max-nodes", type=int, default=None,
              help="With --suite: skip depths whose expected count is larger.")
@click.option("--jobs", "-j", type=int, default=1, show_default=True,
              help="With --suite: worker processes.")
@click.option("--hash", "hash_mb", type=int, default=0, show_default=True,
              help="With --suite: MB of subtree-count table per process (0: none).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), default=None,
              help="With --suite: append each position's outcome here, and skip those it has.")
def perft(fen: str | None, depth: int | None, divide: bool, bulk: bool, chess960: bool,
          suites: tuple[str, ...], max_nodes: int | None, jobs: int, hash_mb: int,
          log_path: str | None) -> None:
    """Count leaf nodes of the legal-move tree, or check perft suites.

    \b
    nmm-chess perft --depth 5
    nmm-chess perft --fen "r3k2r/... w KQkq - 0 1" --depth 4 --divide
    nmm-chess perft --suite tests/fixtures/perft/cpw_perft6.epd --max-nodes 1000000
    """
    from engine._core import STARTING_FEN, Board
    from engine.perft import check_suites

    if suites:
        start = time.perf_counter()
        result = check_suites([Path(s) for s in suites], max_nodes, jobs, hash_mb, progress=True,
                              log=Path(log_path) if log_path else None)
        elapsed = time.perf_counter() - start
        for m in result.mismatches:
            click.echo(f"MISMATCH depth {m.depth}: expected {m.expected}, got {m.got}: {m.fen}")
        click.echo(f"{result.checks} counts checked, {len(result.mismatches)} wrong, "
                   f"{result.nodes} nodes in {elapsed:.1f} s")
        sys.exit(1 if result.mismatches else 0)
    if depth is None:
        raise click.UsageError("give --depth (or --suite)")
    try:
        board = Board(fen or STARTING_FEN, chess960=chess960)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--fen") from None
    start = time.perf_counter()
    if divide and depth > 0:
        total = 0
        for move, nodes in board.divide(depth, bulk):
            click.echo(f"{move}: {nodes}")
            total += nodes
        click.echo("")
    else:
        total = board.perft(depth, bulk)
    elapsed = time.perf_counter() - start
    click.echo(f"Nodes searched: {total}")
    click.echo(f"Time: {elapsed:.3f} s, {total / max(elapsed, 1e-9) / 1e6:.1f} M nodes/s")


@click.command("bench-perft")
@click.option("--runs", type=int, default=5, show_default=True, help="Runs per measurement.")
@click.option("--quick", is_flag=True, help="Smaller depths (a smoke run).")
def bench_perft(runs: int, quick: bool) -> None:
    """Perft speed against python-chess, median of several runs."""
    from engine.tools.bench_perft import run
    run(runs, quick)


@click.command("bench-eval")
@click.option("--net", "nets", type=click.Path(exists=True, dir_okay=False), multiple=True,
              help="A TD net or an NNUE to time (repeatable; default: the shipped nets/td.npz).")
@click.option("--runs", type=int, default=5, show_default=True, help="Rounds; the median is reported.")
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Search depth (default: the bench depth).")
def bench_eval(nets: tuple[str, ...], runs: int, depth: int | None) -> None:
    """Search speed with each evaluation: median nps and the ratio to handwritten."""
    from engine.bench import DEFAULT_DEPTH
    from engine.nets import DEFAULT_TD
    from engine.tools.bench_eval import run
    run([Path(n) for n in nets] or [DEFAULT_TD], runs, depth or DEFAULT_DEPTH)


@click.command("bench-builds")
@click.option("--base", default="HEAD", show_default=True,
              help="The commit whose frozen build the working tree is measured against.")
@click.option("--runs", type=int, default=5, show_default=True, help="Rounds; the median is reported.")
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Search depth (default: the bench depth).")
@click.option("--instructions", type=click.IntRange(1, 64), default=None, metavar="DEPTH",
              help="Also count each build's search instructions at this bench depth (valgrind's callgrind).")
def bench_builds(base: str, runs: int, depth: int | None, instructions: int | None) -> None:
    """The working tree's search speed against commit BASE's: nodes, median nps, ratio."""
    from engine.bench import DEFAULT_DEPTH
    from engine.tools.bench_builds import run
    run(base, runs, depth or DEFAULT_DEPTH, instructions)


@click.command()
@click.option("--depth", type=click.IntRange(1, 64), default=None, help="Search depth (default: the bench depth).")
@click.option("--eval", "evaluation", type=click.Choice(EVALS), default=DEFAULT_EVAL,
              show_default=True, help="The evaluation to search with.")
@click.option("--eval-file", type=click.Path(dir_okay=False), default=None,
              help="The net for --eval td or nnue (default: the shipped nets/td.npz or nets/nnue.npz).")
def bench(depth: int | None, evaluation: str, eval_file: str | None) -> None:
    """Fixed-depth search of fixed positions at the engine's default options;
    the last line is 'N nodes M nps'."""
    from engine.bench import DEFAULT_DEPTH, run_bench
    from engine.session import bench_searcher
    values: dict = {"Eval": evaluation}
    if eval_file:
        values["NnueFile" if evaluation == "nnue" else "EvalFile"] = str(Path(eval_file).resolve())
    problems: list[str] = []

    def show(i: int, fen: str, result: dict) -> None:
        click.echo(f"position {i + 1:2}: {result['bestmove']:6} score {result['score']:6} "
                   f"nodes {result['nodes']}", err=True)
    with bench_searcher(values, lambda line: problems.append(line) if "error" in line else None) as searcher:
        if problems:
            raise click.ClickException("; ".join(line.removeprefix("info string error: ") for line in problems))
        nodes, seconds = run_bench(searcher, depth or DEFAULT_DEPTH, on_position=show)
    click.echo(f"{nodes} nodes {int(nodes / max(seconds, 1e-9))} nps")


@click.command()
@click.argument("epd", type=click.Path(exists=True, dir_okay=False))
@click.option("--movetime", type=float, default=1.0, show_default=True, help="Seconds per position.")
@click.option("--nodes", type=click.IntRange(1), default=None,
              help="Nodes per position instead of a time: the same result on any machine (one thread).")
@click.option("--limit", type=int, default=None, help="Only the first N positions.")
@click.option("--engine", "engine_spec", default="nmm", show_default=True,
              help="Engine spec (see match), e.g. nmm:Eval=td.")
@click.option("--fullmove", type=click.IntRange(1, 1000), default=None,
              help="The move number to give every position (EPD has none: it reads as move 1, which the TD "
                   "net's phase rule takes for the opening).")
def suite(epd: str, movetime: float, nodes: int | None, limit: int | None, engine_spec: str,
          fullmove: int | None) -> None:
    """Solve rate on an EPD test suite (bm/am), through the UCI engine."""
    from engine.tools.engines import parse_spec
    from engine.tools.epd_suite import run_suite
    spec = parse_spec(engine_spec)
    result = run_suite(Path(epd), movetime, spec.command, spec.options, limit, fullmove=fullmove, nodes=nodes)
    for ident, expected, played in result.failures:
        click.echo(f"  missed {ident}: expected {expected}, played {played}")
    budget = f"{nodes} nodes" if nodes else f"{movetime:g} s"
    click.echo(f"{spec.label}: {result.solved}/{result.total} solved at {budget} per position "
               f"(mean depth {sum(result.depths) / max(len(result.depths), 1):.1f})")
    if result.max_points:
        click.echo(f"{spec.label}: {result.points}/{result.max_points} points, "
                   f"{100 * result.points / result.max_points:.1f}%")
