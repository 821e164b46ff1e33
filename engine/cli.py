"""The ``nmm-chess`` command. With no subcommand it speaks UCI on stdin/stdout."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click


@click.group(invoke_without_command=True)
@click.pass_context
def main(ctx: click.Context) -> None:
    """nmm-chess: a UCI chess engine. Run with no command to speak UCI."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(uci)


@main.command()
def uci() -> None:
    """Speak UCI on stdin/stdout (what a GUI runs)."""
    from engine.uci import main as uci_main
    uci_main()


@main.command()
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
def perft(fen: str | None, depth: int | None, divide: bool, bulk: bool, chess960: bool,
          suites: tuple[str, ...], max_nodes: int | None, jobs: int, hash_mb: int) -> None:
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
        result = check_suites([Path(s) for s in suites], max_nodes, jobs, hash_mb, progress=True)
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


@main.command("bench-perft")
@click.option("--runs", type=int, default=5, show_default=True, help="Runs per measurement.")
@click.option("--quick", is_flag=True, help="Smaller depths (a smoke run).")
def bench_perft(runs: int, quick: bool) -> None:
    """Perft speed against python-chess, median of several runs."""
    from engine.tools.bench_perft import run
    run(runs, quick)


if __name__ == "__main__":
    main()
