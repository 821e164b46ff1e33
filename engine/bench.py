"""``bench``: a fixed-depth search of fixed positions, for a node-count signature.

The node count is deterministic (tables are cleared before each position,
one thread searches), so it changes only when the search or evaluation
changes: a patch that should not change behaviour must not change it. It is
searched with the engine's default options (``engine.session.bench_searcher``),
so that a change to anything the engine plays with by default (the ordering's
scorer, the statistics, the endgame rules) shows in it. The last line
printed is ``N nodes M nps``, the form OpenBench-style tools read.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from engine._core import Board, Searcher

DEFAULT_DEPTH = 12

# Openings, middle games and endings of different kinds, with and without
# castling rights, en-passant squares and promotions near.
POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "1qr3k1/p2nbppp/bp2p3/3p4/3P4/1P2PNP1/P2Q1PBP/1N2R1K1 b - - 0 1",
    "r1bq1rk1/pp1pppbp/2n2np1/8/4P3/1NN5/PPP1BPPP/R1BQK2R w KQ - 0 1",
    "r3k2r/pp2pp1p/6p1/2nP4/1R2PB2/4PK2/P5PP/5bNR w kq - 0 1",
    "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1",
    "8/5pk1/6p1/7p/1R5P/6P1/r4PK1/8 w - - 0 40",
    "8/3k4/8/8/8/8/3KP3/8 w - - 0 1",
    "2r3k1/1q1nbppp/r3p3/3pP3/pPpP4/P1Q2N2/2RN1PPP/2R4K b - b3 0 23",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
]


def run_bench(searcher: Searcher, depth: int = DEFAULT_DEPTH,
              on_position: Callable[[int, str, dict], None] | None = None,
              stopped: Callable[[], bool] = lambda: False) -> tuple[int, float]:
    """Search every position to ``depth``; return (total nodes, seconds).

    ``searcher``: the setup to measure; the signature is that of
    ``engine.session.bench_searcher()``. ``stopped`` is asked before each
    position: once it says True the rest are skipped (the total is then no
    signature)."""
    total, elapsed = 0, 0.0
    for i, fen in enumerate(POSITIONS):
        if stopped():
            break
        searcher.clear()
        start = time.perf_counter()
        result = searcher.search(Board(fen), depth=depth)
        elapsed += time.perf_counter() - start
        total += result["nodes"]
        if on_position:
            on_position(i, fen, result)
    return total, elapsed
