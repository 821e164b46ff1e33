"""Perft speed: the Cython generator against python-chess, in one process.

Each figure is the median of several runs; the ratio compares nodes per
second with python-chess's pure-Python perft on the same position (at a
depth it can finish). Both count the last ply in bulk (the moves there are
generated and counted, not made); a "full" row makes every move as well.
"""
from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable

import chess

from engine._core import STARTING_FEN, Board

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """Bulk-counting perft written against python-chess's public API."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def median_rate(count: Callable[[], int], runs: int) -> tuple[int, float]:
    """(nodes, median seconds) over ``runs`` calls of ``count``."""
    times, nodes = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        nodes = count()
        times.append(time.perf_counter() - start)
    return nodes, statistics.median(times)


def run(runs: int = 5, quick: bool = False) -> list[dict]:
    cases = [("start", STARTING_FEN, [4, 5] if quick else [5, 6], 3 if quick else 4),
             ("kiwipete", KIWIPETE, [3, 4] if quick else [5, 6], 2 if quick else 3)]
    rows = []
    print(f"perft speed, median of {runs} runs, one core ({platform.processor() or platform.machine()})")
    print("| position | engine | depth | nodes | seconds | M nodes/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, fen, depths, py_depth in cases:
        py_runs = max(1, min(runs, 3))
        py_nodes, py_time = median_rate(lambda: python_chess_perft(chess.Board(fen), py_depth), py_runs)
        py_rate = py_nodes / py_time
        print(f"| {name} | python-chess {chess.__version__} (bulk) | {py_depth} | {py_nodes:,} | "
              f"{py_time:.2f} | {py_rate / 1e6:.2f} | 1 |")
        for depth in depths:
            for bulk in (True, False) if depth == depths[0] else (True,):
                board = Board(fen)
                nodes, secs = median_rate(lambda: board.perft(depth, bulk), runs)
                rate = nodes / secs
                label = "nmm-chess (bulk)" if bulk else "nmm-chess (full)"
                print(f"| {name} | {label} | {depth} | {nodes:,} | {secs:.2f} | "
                      f"{rate / 1e6:.1f} | {rate / py_rate:.0f} |")
                rows.append(dict(position=name, depth=depth, bulk=bulk, nodes=nodes,
                                 seconds=secs, nps=rate, ratio=rate / py_rate))
    return rows
