"""Cross-check against python-chess: random games, move sets and rules after every ply."""
import random

import chess
import pytest

from engine._core import Board

GAMES = 2000
CHESS960_GAMES = 200


def play_and_compare(rng: random.Random, chess960: bool) -> int:
    if chess960:
        reference = chess.Board.from_chess960_pos(rng.randrange(960))
    else:
        reference = chess.Board()
    board = Board(reference.fen(), chess960=chess960)
    plies = 0
    while True:
        expected = sorted(m.uci() for m in reference.legal_moves)
        assert sorted(board.legal_moves()) == expected, reference.fen()
        assert board.fen() == reference.fen()
        assert board.zobrist() == board.zobrist_recomputed()
        assert board.is_check() == reference.is_check()
        assert board.is_insufficient_material() == reference.is_insufficient_material()
        assert board.is_repetition(3) == reference.is_repetition(3), reference.fen()
        if not expected or plies >= 400:
            assert board.is_checkmate() == reference.is_checkmate()
            assert board.is_stalemate() == reference.is_stalemate()
            break
        move = rng.choice(expected)
        board.push(move)
        reference.push_uci(move)
        plies += 1
    for _ in range(plies):                  # unmake all the way back
        board.pop()
        reference.pop()
    assert board.fen() == reference.fen()
    return plies


@pytest.mark.parametrize("chunk", range(10))
def test_random_games_match_python_chess(chunk: int) -> None:
    rng = random.Random(20261125 + chunk)
    plies = sum(play_and_compare(rng, chess960=False) for _ in range(GAMES // 10))
    assert plies > 10_000


def test_random_chess960_games_match_python_chess() -> None:
    rng = random.Random(960)
    plies = sum(play_and_compare(rng, chess960=True) for _ in range(CHESS960_GAMES))
    assert plies > 10_000
