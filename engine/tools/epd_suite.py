"""Solve rate on an EPD test suite (WAC, ECM, ...), through the real UCI engine.

A position counts as solved when the engine's move after ``movetime`` (or
after ``nodes``: a count that any machine reproduces) is one of the ``bm``
moves (and none of the ``am`` moves). Suites that grade moves,
as the Strategic Test Suite does (``c9``: moves in UCI, ``c8``: their points
out of 10), are also scored by points.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from engine.tools.engines import KNOWN
from engine.tools.match import START_GUARD

ENGINE_COMMAND = KNOWN["nmm"]          # research mode: every option listed, so any can be configured


@dataclass
class SuiteResult:
    solved: int
    total: int
    failures: list[tuple[str, str, str]]     # (id, expected, played)
    depths: list[int]
    points: int = 0                          # graded suites: points earned
    max_points: int = 0                      # and the most there were


def read_epd(path: Path) -> list[tuple[chess.Board, dict]]:
    positions = []
    for line in Path(path).read_text().splitlines():
        if line.strip():
            board = chess.Board()
            ops = board.set_epd(line)
            positions.append((board, ops))
    return positions


def points_of(move: chess.Move, ops: dict) -> tuple[int, int]:
    """(points for ``move``, best points) where the position grades its moves (STS), else (0, 0)."""
    moves, points = str(ops.get("c9", "")).split(), str(ops.get("c8", "")).split()
    if not moves or len(moves) != len(points):
        return 0, 0
    graded = dict(zip(moves, (int(p) for p in points)))
    return graded.get(move.uci(), 0), max(graded.values())


def is_solved(move: chess.Move, ops: dict) -> bool:
    if "bm" in ops and move not in ops["bm"]:
        return False
    return not ("am" in ops and move in ops["am"])


def run_suite(path: Path, movetime: float, command: list[str] | None = None,
              options: dict | None = None, limit: int | None = None,
              progress: bool = True, fullmove: int | None = None, nodes: int | None = None) -> SuiteResult:
    """Play each position for ``movetime`` seconds, or ``nodes`` nodes if
    given (each position a new game: an empty table); ``fullmove``: a move
    number to give every position (EPD lines carry none)."""
    positions = read_epd(path)[:limit]
    for board, _ in positions:
        board.fullmove_number = fullmove or board.fullmove_number
    engine = chess.engine.SimpleEngine.popen_uci(command or ENGINE_COMMAND, timeout=START_GUARD)
    try:
        if options:
            engine.configure(options)
        solved, failures, depths, points, max_points = 0, [], [], 0, 0
        iterator = positions
        if progress:
            from tqdm import tqdm
            iterator = tqdm(positions, unit="pos")
        for i, (board, ops) in enumerate(iterator):
            limit_ = chess.engine.Limit(nodes=nodes) if nodes else chess.engine.Limit(time=movetime)
            result = engine.play(board, limit_, game=i,
                                 info=chess.engine.INFO_BASIC)
            depths.append(result.info.get("depth", 0))
            got, best = points_of(result.move, ops)
            points, max_points = points + got, max_points + best
            if is_solved(result.move, ops):
                solved += 1
            else:
                expected = " ".join(board.san(m) for m in ops.get("bm", [])) or \
                    "not " + " ".join(board.san(m) for m in ops.get("am", []))
                failures.append((str(ops.get("id", "?")), expected, board.san(result.move)))
        return SuiteResult(solved, len(positions), failures, depths, points, max_points)
    finally:
        engine.quit()
