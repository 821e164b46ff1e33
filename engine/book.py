"""The opening book (OwnBook, BookFile): a Polyglot file, consulted at the
root before a search.

A Polyglot book is a sorted array of 16-byte entries, big-endian: the
position's Zobrist key (u64, Polyglot's own keys), a move (u16: to square,
from square, promotion; castling written king-takes-rook), a weight (u16)
and a learn field (u32). python-chess reads it (``chess.polyglot``): the
keys, the lookup and the legality check of each entry are its. A file is
checked when it is opened (its size a multiple of 16, not empty, its keys
in order), so that a file that is not a book is reported once, as an
``info string error``, and never played from.

Which move: ``best`` takes the heaviest entry (the first of equal ones, in
the file's order); otherwise a move is drawn at random with a chance in
proportion to its weight (entries of weight 0 are never played, as
Polyglot's convention for deleted entries has it). Moves are given in the
engine's notation (king-takes-rook castling only in Chess960), and only
those the engine's own board holds legal are considered.

python-chess and numpy are imported only when a book is opened: the UCI
front end loads neither before ``uciok``.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path

ENTRY_SIZE = 16


class BookError(ValueError):
    """A book file that cannot be used (missing, unreadable, not a book)."""


@dataclass(frozen=True)
class BookMove:
    move: str           # in the engine's notation (engine._core.Board)
    weight: int
    total: int          # the weights of every move considered, this one's included
    count: int          # how many moves were considered


class Book:
    """An open Polyglot book. ``choose`` picks a move; ``close`` lets the file go."""

    def __init__(self, path: Path) -> None:
        import chess.polyglot
        import numpy as np
        self.path = Path(path)
        try:
            size = self.path.stat().st_size
        except OSError as e:
            raise BookError(f"cannot open {self.path}: {e.strerror or e}") from None
        if size == 0:
            raise BookError(f"{self.path} is empty")
        if size % ENTRY_SIZE:
            raise BookError(f"{self.path} is not a Polyglot book ({size} bytes, not a multiple of {ENTRY_SIZE})")
        try:
            self._reader = chess.polyglot.open_reader(self.path)
        except (OSError, ValueError) as e:
            raise BookError(f"cannot read {self.path}: {getattr(e, 'strerror', None) or e}") from None
        keys = np.frombuffer(self._reader.mmap, ">u8")[::2]
        in_order = bool((keys[1:] >= keys[:-1]).all())
        del keys                        # the mmap cannot close while numpy holds a view of it
        if not in_order:
            self.close()
            raise BookError(f"{self.path} is not a Polyglot book (its keys are not in order)")
        self.entries = size // ENTRY_SIZE

    def moves(self, fen: str, chess960: bool = False) -> list[tuple[str, int]]:
        """The book's (move, weight) for the position, in the file's order,
        weight 0 left out; the moves python-chess holds illegal are left out."""
        import chess
        board = chess.Board(fen, chess960=chess960)
        return [(entry.move.uci(), entry.weight) for entry in self._reader.find_all(board)]

    def choose(self, fen: str, legal: Callable[[str], bool], chess960: bool = False, best: bool = False,
               rng: random.Random | None = None, only: Collection[str] = ()) -> BookMove | None:
        """A book move for the position, or None. ``legal``: the engine's own
        check; ``only``: the moves allowed (``go searchmoves``; empty: all)."""
        moves = [(move, weight) for move, weight in self.moves(fen, chess960)
                 if legal(move) and (not only or move in only)]
        if not moves:
            return None
        total = sum(weight for _, weight in moves)
        if best:
            move, weight = max(moves, key=lambda item: item[1])
        else:
            move, weight = (rng or random).choices(moves, weights=[w for _, w in moves])[0]
        return BookMove(move, weight, total, len(moves))

    def close(self) -> None:
        self._reader.close()
