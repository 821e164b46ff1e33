"""Reading PGN collections fast enough for millions of positions.

A file is split into game texts by their ``[Event`` tags, and the texts are
parsed (python-chess) and replayed (the Cython board) in worker processes.
"""
from __future__ import annotations

import gzip
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

import chess.pgn


def open_text(path: Path) -> TextIO:
    """A PGN file, plain or gzipped (``.gz``: large collections and match records), as text."""
    opener = gzip.open if path.suffix == ".gz" else open
    return opener(path, "rt", encoding="utf-8", errors="replace")


def games_in(source: TextIO) -> Iterator[chess.pgn.Game]:
    """Every game of a PGN stream, as python-chess reads it."""
    while (game := chess.pgn.read_game(source)) is not None:
        yield game


def games_of(paths: Iterable[Path]) -> Iterator[chess.pgn.Game]:
    """Every game of PGN files, plain or gzipped, one file after another."""
    for path in paths:
        with open_text(path) as source:
            yield from games_in(source)


def read_text(path: Path) -> str:
    with open_text(path) as f:
        return f.read()


def split_games(text: str) -> list[str]:
    """One string per game (a game starts at a line beginning with ``[Event``)."""
    parts = text.split("\n[Event ")
    return [parts[0]] + ["[Event " + p for p in parts[1:]]


def parse_game(text: str) -> tuple[dict, list[str]] | None:
    """(headers, moves in UCI) of one game text; None if it has no moves or errors."""
    game = chess.pgn.read_game(io.StringIO(text))
    if game is None or game.errors:
        return None
    moves = [m.uci() for m in game.mainline_moves()]
    if not moves:
        return None
    return dict(game.headers), moves


def batches(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
