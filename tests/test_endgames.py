"""Endgame knowledge (ext/endgames.pxi): the KPK table and the drawish scales."""
import random

import chess
import pytest

from engine._core import Board, Searcher, set_endgame_rules


@pytest.fixture(scope="module")
def searcher():
    set_endgame_rules(True)
    yield Searcher(hash_mb=1)
    set_endgame_rules(False)


@pytest.mark.parametrize("fen, verdict", [
    ("4k3/4P3/4K3/8/8/8/8/8 b - - 0 1", "draw"),        # stalemate
    ("4k3/4P3/4K3/8/8/8/8/8 w - - 0 1", "win"),         # 1.Kd6 Kf7 2.Kd7
    ("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1", "win"),         # king on the sixth, in front
    ("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", "draw"),        # the defender holds the opposition
    ("k7/8/8/8/8/8/P7/K7 w - - 0 1", "draw"),           # rook pawn, king in the corner
    ("7k/8/6K1/7P/8/8/8/8 w - - 0 1", "draw"),
    ("8/8/8/8/8/8/P7/K6k w - - 0 1", "win"),            # the king is outside the pawn's square
])
def test_kpk(searcher: Searcher, fen: str, verdict: str) -> None:
    score = searcher.evaluate(Board(fen))
    strong = chess.WHITE if chess.Board(fen).pieces(chess.PAWN, chess.WHITE) else chess.BLACK
    if verdict == "draw":
        assert score == 0
    else:
        assert (score if chess.Board(fen).turn == strong else -score) > 700


def random_kpk(rng: random.Random) -> chess.Board:
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 3)
        pawn_colour = rng.choice([chess.WHITE, chess.BLACK])
        if chess.square_rank(squares[2]) in (0, 7):
            continue
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        board.set_piece_at(squares[2], chess.Piece(chess.PAWN, pawn_colour))
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        if board.is_valid() and not board.is_game_over():
            return board


def test_kpk_is_consistent_with_its_moves(searcher: Searcher) -> None:
    """A won position has a move to a won one (or a promotion that keeps the
    queen); a drawn one has none; checked through the board, both colours,
    both wings."""
    rng = random.Random(7)
    wins = draws = 0
    for _ in range(400):
        board = random_kpk(rng)
        strong = chess.WHITE if board.pieces(chess.PAWN, chess.WHITE) else chess.BLACK
        won = searcher.evaluate(Board(board.fen())) != 0
        if board.turn == strong:
            children = []
            for move in board.legal_moves:
                board.push(move)
                if move.promotion:
                    # The new queen survives: taken only if undefended and next to the king.
                    children.append(not (board.is_attacked_by(board.turn, move.to_square)
                                         and not board.is_attacked_by(strong, move.to_square))
                                    and not board.is_stalemate())
                elif board.is_game_over():
                    children.append(False)
                else:
                    children.append(len(board.pieces(chess.PAWN, strong)) == 1
                                    and searcher.evaluate(Board(board.fen())) != 0)
                board.pop()
            assert won == any(children), board.fen()
        else:
            children = []
            for move in board.legal_moves:
                board.push(move)
                children.append(len(board.pieces(chess.PAWN, strong)) == 1 and not board.is_game_over()
                                and searcher.evaluate(Board(board.fen())) != 0)
                board.pop()
            assert won == (bool(children) and all(children)), board.fen()
        wins += won
        draws += not won
    assert wins > 50 and draws > 50


def test_wrong_rook_pawn_bishop(searcher: Searcher) -> None:
    # a8 is a light square: a dark-squared bishop cannot drive the king out.
    assert searcher.evaluate(Board("k7/8/8/8/8/8/P7/K1B5 w - - 0 1")) == 0
    assert searcher.evaluate(Board("k7/8/8/8/8/8/P7/KB6 w - - 0 1")) > 300
    # The king away from the corner: the pawn runs.
    assert searcher.evaluate(Board("8/8/8/8/4k3/8/P7/K1B5 w - - 0 1")) > 300


def test_opposite_bishops_are_drawish(searcher: Searcher) -> None:
    same = searcher.evaluate(Board("4k3/5b2/8/3p4/2PP4/8/4B3/4K3 w - - 0 1"))
    opposite = searcher.evaluate(Board("4kb2/8/8/3p4/2PP4/8/4B3/4K3 w - - 0 1"))
    assert 0 < opposite < same


def test_two_knights_cannot_mate_a_bare_king(searcher: Searcher) -> None:
    assert searcher.evaluate(Board("8/8/3k4/8/8/2NN4/3K4/8 w - - 0 1")) == 0
    assert searcher.evaluate(Board("8/8/3k4/8/8/2nn4/3K4/8 w - - 0 1")) == 0
    # With a pawn to stop (no stalemate to fear) two knights can win: no rule.
    assert searcher.evaluate(Board("8/8/3k4/3p4/8/2NN4/3K4/8 w - - 0 1")) > 200
    set_endgame_rules(False)
    try:
        assert searcher.evaluate(Board("8/8/3k4/8/8/2NN4/3K4/8 w - - 0 1")) > 200
    finally:
        set_endgame_rules(True)


def test_bishop_and_knight_drive_to_the_bishops_corner(searcher: Searcher) -> None:
    # A light-squared bishop (f1) mates on h1 or a8, not on a1 or h8.
    right = searcher.evaluate(Board("8/8/8/8/8/2N5/3K4/k4B2 w - - 0 1"))   # bare king a1: wrong corner
    better = searcher.evaluate(Board("k7/8/1K6/8/8/2N5/8/5B2 w - - 0 1"))  # bare king a8: right corner
    assert better > right


def test_the_rules_can_be_switched_off(searcher: Searcher) -> None:
    fen = "k7/8/8/8/8/8/P7/K7 w - - 0 1"
    try:
        set_endgame_rules(False)
        assert searcher.evaluate(Board(fen)) > 50          # a pawn up, by the weights
    finally:
        set_endgame_rules(True)
    assert searcher.evaluate(Board(fen)) == 0


def test_endgame_rules_option() -> None:
    """On by default in the engine (400 games on endgame starts: README); off, the weights alone."""
    from uci_client import answers, transcript
    assert "option name EndgameRules type check default true" in transcript("uci", "quit")
    out = answers("position fen k7/8/8/8/8/8/P7/K7 w - - 0 1", "go depth 1", until="bestmove")
    assert any(" score cp 0 " in line for line in out if line.startswith("info"))
    out = answers("setoption name EndgameRules value false", "position fen k7/8/8/8/8/8/P7/K7 w - - 0 1",
                  "go depth 1", until="bestmove")
    assert any(" score cp " in line and " score cp 0 " not in line for line in out if line.startswith("info"))
