"""``nmm-chess study endgames``: in which endings the engine drops points.

Read from the games it has played (match PGNs), not guessed: each game is
followed to the first position where both sides have at most a queen's worth
of pieces (knight and bishop 3, rook 5, queen 9; pawns aside) and no
exchange is under way (neither the move before nor the move after takes), the ending is
classed by what is left (pawn, minor, opposite bishops, rook, rook and minor,
queen, other), and the engine's material balance there (pawns 1) is set
against its result. Points dropped: a loss from an equal or better ending,
a draw from one at least a pawn up. The last material signature of each
such game says where it went wrong (a rook ending that became a lost pawn
ending, say).

>>> classify(chess.Board("8/5k2/8/3b4/8/2B5/5K2/8 w - - 0 1"))
'opposite bishops'
>>> classify(chess.Board("8/5k2/8/3r4/8/2R5/5K2/8 w - - 0 1"))
'rook'
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import chess
import chess.pgn

VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
ENDING_PIECES = 9           # each side's pieces (pawns aside) worth at most this: an ending
OURS = ("uci_main.py", "nmm")


@dataclass(frozen=True)
class Ending:
    """One game's first ending, from our side."""
    source: str
    round: str
    kind: str
    balance: int            # our material minus theirs, pawns included
    score: float            # our result: 1, 0.5, 0
    entered: str            # material signature where the ending began, ours first
    last: str               # and at the end of the game

    @property
    def dropped(self) -> float:
        """Points given away: a loss from equal or better, a draw a pawn up or more."""
        expected = 1.0 if self.balance >= 1 else 0.5 if self.balance == 0 else 0.0
        return max(expected - self.score, 0.0)


def pieces(board: chess.Board, color: chess.Color) -> int:
    return sum(VALUE[p] * len(board.pieces(p, color)) for p in (chess.KNIGHT, chess.BISHOP,
                                                                  chess.ROOK, chess.QUEEN))


def material(board: chess.Board, color: chess.Color) -> int:
    return pieces(board, color) + len(board.pieces(chess.PAWN, color))


def classify(board: chess.Board) -> str:
    """The ending's class by the pieces left on both sides together."""
    kinds = {p: len(board.pieces(p, chess.WHITE)) + len(board.pieces(p, chess.BLACK))
             for p in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)}
    if not any(kinds.values()):
        return "pawn"
    if kinds[chess.QUEEN]:
        return "queen" if kinds[chess.QUEEN] == sum(kinds.values()) else "other"
    if kinds[chess.ROOK]:
        return "rook" if kinds[chess.ROOK] == sum(kinds.values()) else "rook and minor"
    white_b, black_b = board.pieces(chess.BISHOP, chess.WHITE), board.pieces(chess.BISHOP, chess.BLACK)
    if (kinds[chess.KNIGHT] == 0 and len(white_b) == 1 and len(black_b) == 1
            and bool(white_b & chess.BB_LIGHT_SQUARES) != bool(black_b & chess.BB_LIGHT_SQUARES)):
        return "opposite bishops"
    return "minor"


def signature(board: chess.Board, us: chess.Color) -> str:
    """'KRPP v KRP', our side first."""
    def side(color: chess.Color) -> str:
        return "K" + "".join(chess.piece_symbol(p).upper() * len(board.pieces(p, color))
                             for p in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN))
    return f"{side(us)} v {side(not us)}"


def is_ours(name: str) -> bool:
    return any(mark in name for mark in OURS)


def game_ending(game: chess.pgn.Game, source: str) -> Ending | None:
    """The first ending of a game with exactly one side ours, or None."""
    white, black = game.headers.get("White", ""), game.headers.get("Black", "")
    if is_ours(white) == is_ours(black):
        return None
    us = chess.WHITE if is_ours(white) else chess.BLACK
    result = game.headers.get("Result", "*")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    score = 0.5 if result == "1/2-1/2" else float((result == "1-0") == (us == chess.WHITE))
    board = game.board()
    entered = None
    moves = list(game.mainline_moves())
    for i, move in enumerate(moves):
        captured = board.is_capture(move)
        board.push(move)
        # Not in the middle of an exchange: the balance would count a piece
        # about to be taken back.
        quiet = not captured and not (i + 1 < len(moves) and board.is_capture(moves[i + 1]))
        if entered is None and quiet and pieces(board, chess.WHITE) <= ENDING_PIECES \
                and pieces(board, chess.BLACK) <= ENDING_PIECES:
            entered = (classify(board), material(board, us) - material(board, not us), signature(board, us))
    if entered is None:
        return None
    kind, balance, sig = entered
    return Ending(source, game.headers.get("Round", "?"), kind, balance, score, sig, signature(board, us))


def endings(paths: Iterable[Path]) -> Iterator[Ending]:
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                if (ending := game_ending(game, path.name)) is not None:
                    yield ending


def report(found: list[Ending]) -> list[str]:
    """A table by class and balance, then the games that dropped points."""
    table: dict[tuple[str, str], list[Ending]] = defaultdict(list)
    for e in found:
        band = "ahead" if e.balance >= 1 else "equal" if e.balance == 0 else "behind"
        table[e.kind, band].append(e)
    lines = [f"{'ending':<17}{'balance':<8}{'games':>6}{'score':>8}{'dropped':>9}"]
    for (kind, band), group in sorted(table.items()):
        score = sum(e.score for e in group) / len(group)
        lines.append(f"{kind:<17}{band:<8}{len(group):>6}{score:>8.2f}{sum(e.dropped for e in group):>9.1f}")
    dropped = sorted((e for e in found if e.dropped), key=lambda e: (e.kind, -e.dropped))
    lines.append("")
    lines.append(f"{len(found)} games reached an ending; {sum(e.dropped for e in found):.1f} points "
                 f"dropped in {len(dropped)} of them:")
    for e in dropped:
        lines.append(f"  {e.kind:<17}{e.balance:+d}  score {e.score}  {e.entered:<22} -> {e.last:<22}"
                     f"  {e.source} round {e.round}")
    return lines
