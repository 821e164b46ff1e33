"""Perft: leaf counts of the legal-move tree, and the suites that check them.

>>> parse_perft_line("8/8/8/8/8/8/8/K6k w - - 0 1 ;D1 3 ;D2 9")
('8/8/8/8/8/8/8/K6k w - - 0 1', {1: 3, 2: 9})
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from engine._core import Board

_DEPTH = re.compile(r"D(\d+)\s+(\d+)")
REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"


def data_dir() -> Path:
    """Where the large collections live: $NMM_DATA, else ../shared/data beside the repo."""
    env = os.environ.get("NMM_DATA")
    return Path(env) if env else REPO.parent / "shared" / "data"


def parse_perft_line(line: str) -> tuple[str, dict[int, int]] | None:
    """Split one suite line into (FEN, {depth: nodes}); None for blank lines.

    Accepts the layouts of the common suites: ``FEN ;D1 20 ;D2 400``,
    ``FEN; D1 20; D2 400``, with extra fields such as ``;id "..."``.
    """
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    fen, _, rest = line.partition(";")
    counts = {int(d): int(n) for d, n in _DEPTH.findall(rest)}
    return " ".join(fen.split()), counts


def read_suite(path: str | os.PathLike) -> Iterator[tuple[str, dict[int, int]]]:
    with open(path) as f:
        for line in f:
            entry = parse_perft_line(line)
            if entry is not None:
                yield entry


def is_chess960_suite(path: str | os.PathLike) -> bool:
    return "960" in Path(path).name or "fischer" in Path(path).name


@dataclass
class Mismatch:
    fen: str
    depth: int
    expected: int
    got: int


@dataclass
class SuiteResult:
    checks: int = 0
    nodes: int = 0
    mismatches: list[Mismatch] | None = None

    def __post_init__(self) -> None:
        self.mismatches = self.mismatches or []

    def add(self, other: "SuiteResult") -> None:
        self.checks += other.checks
        self.nodes += other.nodes
        self.mismatches.extend(other.mismatches)


def check_position(fen: str, counts: dict[int, int], max_nodes: int | None = None,
                   chess960: bool = False, hash_mb: int = 0) -> SuiteResult:
    """Compare our counts with the suite's at every listed depth (up to ``max_nodes``)."""
    result = SuiteResult()
    board = Board(fen, chess960=chess960)
    for depth, expected in sorted(counts.items()):
        if max_nodes is not None and expected > max_nodes:
            continue
        got = board.perft_hashed(depth, hash_mb) if hash_mb else board.perft(depth)
        result.checks += 1
        result.nodes += got
        if got != expected:
            result.mismatches.append(Mismatch(fen, depth, expected, got))
    return result


def _check_args(args: tuple) -> SuiteResult:
    return check_position(*args)


def check_suites(paths: Iterable[Path], max_nodes: int | None = None, jobs: int = 1,
                 hash_mb: int = 0, progress: bool = False, log: Path | None = None) -> SuiteResult:
    """Run whole suite files, one position per task, on ``jobs`` processes.

    With ``log``, every position's outcome is appended to that file as it
    comes in (``ok`` or ``MISMATCH``, suite, line, counts checked), and
    positions the file already records are not run again: a long run can
    be stopped and resumed.
    """
    tasks, keys = [], []
    done = set()
    if log is not None and log.exists():
        done = {tuple(line.split("\t")[1:3]) for line in log.read_text().splitlines() if line}
    for path in paths:
        for number, (fen, counts) in enumerate(read_suite(path), 1):
            key = (Path(path).name, str(number))
            if key not in done:
                tasks.append((fen, counts, max_nodes, is_chess960_suite(path), hash_mb))
                keys.append(key)
    total = SuiteResult()
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    results: Iterable[SuiteResult] = (pool.map(_check_args, tasks, chunksize=1) if pool
                                      else map(_check_args, tasks))
    if progress:
        from tqdm import tqdm
        results = tqdm(results, total=len(tasks), unit="pos")
    out = open(log, "a") if log is not None else None
    try:
        for key, r in zip(keys, results):
            total.add(r)
            if out is not None:
                status = "MISMATCH" if r.mismatches else "ok"
                out.write(f"{status}\t{key[0]}\t{key[1]}\t{r.checks}\t{r.nodes}\n")
                out.flush()
    finally:
        if out is not None:
            out.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)   # before exit, or its pipes close under it
    return total
