"""``nmm-chess data endgame-starts``: start positions for matches that measure the endgame rules.

A match from the usual openings almost never reaches the endgames that
``ext/endgames.pxi`` knows, so ``EndgameRules`` cannot show what it is worth
there. These starts begin in them: king and pawn against king, a rook pawn
with the bishop of the wrong colour, opposite-coloured bishops with a pawn
more, bishop and knight against king, each drawn at random (seeded) among
legal, not yet decided positions. The match plays each from both sides.

>>> starts = make_starts(2, seed=1)
>>> len(starts), sorted({kind for kind, _ in starts})
(8, ['kbnk', 'kbpk_rook_pawn', 'kpk', 'opposite_bishops'])
"""
from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import chess

PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT,
          "P": chess.PAWN}


def _place(rng: random.Random, white: str, black: str, ok: Callable[[chess.Board], bool]) -> chess.Board:
    """A random legal position with these pieces (``"KBP"``...), White to move, that ``ok`` accepts."""
    while True:
        board = chess.Board(None)
        squares = iter(rng.sample(range(64), len(white) + len(black)))
        for colour, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
            for letter in pieces:
                board.set_piece_at(next(squares), chess.Piece(PIECES[letter], colour))
        board.turn = chess.WHITE
        if board.is_valid() and not board.is_game_over() and not board.is_check() and ok(board):
            return board


def _pawns_between(board: chess.Board, low: int, high: int) -> bool:
    return all(low <= chess.square_rank(s) <= high for s in board.pieces(chess.PAWN, chess.WHITE)) and all(
        7 - high <= chess.square_rank(s) <= 7 - low for s in board.pieces(chess.PAWN, chess.BLACK))


def _light(square: int) -> bool:
    return (chess.square_file(square) + chess.square_rank(square)) % 2 == 1


def _wrong_bishop(board: chess.Board) -> bool:
    pawn = next(iter(board.pieces(chess.PAWN, chess.WHITE)))
    bishop = next(iter(board.pieces(chess.BISHOP, chess.WHITE)))
    promo = chess.square(chess.square_file(pawn), 7)
    return (chess.square_file(pawn) in (0, 7) and 2 <= chess.square_rank(pawn) <= 5
            and _light(bishop) != _light(promo)
            and chess.square_distance(board.king(chess.BLACK), promo) <= 3)


def _opposite_bishops(board: chess.Board) -> bool:
    w = next(iter(board.pieces(chess.BISHOP, chess.WHITE)))
    b = next(iter(board.pieces(chess.BISHOP, chess.BLACK)))
    return _light(w) != _light(b) and _pawns_between(board, 1, 4)


KINDS: dict[str, tuple[str, str, Callable[[chess.Board], bool]]] = {
    "kpk": ("KP", "K", lambda b: _pawns_between(b, 1, 5)),
    "kbpk_rook_pawn": ("KBP", "K", _wrong_bishop),
    "opposite_bishops": ("KBPPP", "KBPP", _opposite_bishops),
    "kbnk": ("KBN", "K", lambda b: True),
}


def make_starts(per_kind: int, seed: int = 1) -> list[tuple[str, str]]:
    """(kind, FEN) for ``per_kind`` positions of each kind."""
    rng = random.Random(seed)
    return [(kind, _place(rng, white, black, ok).fen())
            for kind, (white, black, ok) in KINDS.items() for _ in range(per_kind)]


def write_epd(path: Path, per_kind: int, seed: int = 1) -> int:
    starts = make_starts(per_kind, seed)
    Path(path).write_text("".join(f"{' '.join(fen.split()[:4])} c0 \"{kind}\";\n" for kind, fen in starts))
    return len(starts)
