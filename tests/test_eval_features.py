"""The TD evaluation's inputs: hand-counted positions, and the core against
its python-chess twin (engine/evaluation/features.py) on real and random games."""
import random

import chess
import chess.pgn
import numpy as np
import pytest

from engine._core import FEATURE_NAMES, Board, replay_features
from engine.evaluation import features as twin


def named(fen: str) -> dict[str, float]:
    values, _ = Board(fen).td_features("A")
    return dict(zip(FEATURE_NAMES, values))


def test_start_position_by_hand():
    f = named(chess.STARTING_FEN)
    assert f["our knight mobility"] == 4 and f["our bishop mobility"] == 0
    assert f["our king mobility"] == 0 and f["our total mobility"] == 4
    assert f["our light pieces on first rank"] == 4
    assert f["our board control"] == 8            # the third rank, all by pawns
    assert f["our connectivity"] == 19            # counted square by square
    assert f["our king distance to centre"] == 3
    assert f["material"] == 78 and f["material balance"] == 0
    assert f["their connectivity"] == 19


def test_pawn_fork_and_pieces_attacked_by_a_pawn():
    f = named("8/8/3r1n2/4P3/8/8/8/K6k w - - 0 1")
    assert f["our pawn forks"] == 1
    assert f["their rooks attacked"] == 1 and f["their knights attacked"] == 1
    assert f["material balance"] == 1 - 8


def test_knight_fork_seen_by_the_side_in_check():
    f = named("r3k3/2N5/8/8/8/8/8/4K3 b - - 0 1")
    assert f["their knight forks"] == 1
    assert f["our king attacked"] == 1 and f["our rooks attacked"] == 1
    assert f["their king attacked"] == 0


def test_pawn_structure():
    # White c5 g5, Black b7 f5: g5 and f5 are passed, every pawn is isolated.
    f = named("4k3/1p6/8/2P2pP1/8/8/8/4K3 w - - 0 1")
    assert (f["our passed pawns"], f["their passed pawns"]) == (1, 1)
    assert (f["our isolated pawns"], f["their isolated pawns"]) == (2, 2)
    f = named("4k3/8/8/4P3/3PP3/8/8/4K3 w - - 0 1")
    assert f["our doubled pawns"] == 1 and f["our centre pawns"] == 3
    assert f["our passed pawns"] == 2            # d4 and the front e-pawn


def test_rooks_connected_on_the_seventh_and_their_mobility():
    f = named("4k3/R6R/8/8/8/8/8/R3K3 w - - 0 1")
    assert f["our horizontally connected rooks"] == 1
    assert f["our vertically connected rooks"] == 1
    assert f["our rooks on seventh rank"] == 2
    assert f["our rook horizontal mobility"] == 6 + 6 + 3
    assert f["our rook vertical mobility"] == 6 + 7 + 5
    assert f["their king mobility"] == 2          # d8 and f8; the seventh is covered


def test_board_control_goes_to_the_cheaper_attacker():
    # The black pawn g4 takes f3 and h3 from the knight g1; e2 is the
    # knight's though a rook looks at it too.
    board = chess.Board("4r1k1/8/8/8/6p1/8/8/4K1N1 w - - 0 1")
    assert twin.controlled(board, chess.BLACK) & (chess.BB_F3 | chess.BB_H3) == chess.BB_F3 | chess.BB_H3
    assert not twin.controlled(board, chess.WHITE) & (chess.BB_F3 | chess.BB_H3)
    assert twin.controlled(board, chess.WHITE) & chess.BB_E2
    assert named(board.fen())["our board control"] == popcount_of(twin.controlled(board, chess.WHITE)
                                                                  & ~board.occupied)
    # A tie (knight c3 against bishop b7 on d5) is nobody's square.
    tie = chess.Board("4k3/1b6/8/8/8/2N5/8/4K3 w - - 0 1")
    assert not (twin.controlled(tie, chess.WHITE) | twin.controlled(tie, chess.BLACK)) & chess.BB_D5
    assert twin.controlled(tie, chess.WHITE) & chess.BB_B5      # the knight alone


def popcount_of(bb: int) -> int:
    return bin(bb).count("1")


def test_squares_are_mirrored_for_black():
    white = Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").td_features("B")[1]
    black = Board("4k3/4p3/8/8/8/8/8/4K3 b - - 0 1").td_features("B")[1]
    assert white == black == sorted([4, 64 + 60, 128 + 12 - 8])
    assert len(Board().td_features("C")[1]) == 32


def positions_from(games, limit):
    for game in games:
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            yield board.copy(stack=False)
            limit -= 1
            if limit == 0:
                return


def master_games(fixtures):
    with open(fixtures / "games" / "masters_sample.pgn") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            yield game


def random_positions(seed, count):
    rng = random.Random(seed)
    while count > 0:
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 160 and count > 0:
            board.push(rng.choice(list(board.legal_moves)))
            yield board.copy(stack=False)
            count -= 1


@pytest.mark.parametrize("source", ["masters", "random"])
def test_core_equals_twin(fixtures, source):
    boards = list(positions_from(master_games(fixtures), 1500) if source == "masters"
                  else random_positions(7, 1500))
    assert len(boards) >= 1000
    dense, _ = twin.features_of(boards)
    for board, expected in zip(boards, dense):
        core = Board(board.fen())
        values, active_b = core.td_features("B")
        assert values == expected.tolist(), board.fen()
        assert active_b == twin.active_squares(board, "B")
        assert core.td_features("C")[1] == twin.active_squares(board, "C")


def test_replay_features_follows_the_game(fixtures):
    game = next(master_games(fixtures))
    moves = [m.uci() for m in game.mainline_moves()]
    dense, active, stm, phase, hand, quiet = replay_features(chess.STARTING_FEN, moves, "B")
    assert dense.shape == (len(moves) + 1, len(FEATURE_NAMES))
    board = game.board()
    for i, move in enumerate([None] + list(game.mainline_moves())):
        if move is not None:
            board.push(move)
        assert dense[i].tolist() == twin.features_a(board)
        assert sorted(a for a in active[i] if a >= 0) == twin.active_squares(board, "B")
        assert stm[i] == (0 if board.turn else 1)
    assert phase[0] == 24 and np.abs(hand).max() < 32000
    with pytest.raises(ValueError):
        replay_features(chess.STARTING_FEN, ["e2e4", "e2e4"], "B")


def test_quiet_flags_mark_exchanges_and_checks():
    moves = ["e2e4", "d7d5", "e4d5", "d8d5", "b1c3", "d5a5", "f1b5"]
    *_, quiet = replay_features(chess.STARTING_FEN, moves, "A")
    # start, e4, d5 (White may take, but exd5 Qxd5 wins nothing), exd5 (Black
    # recaptures a pawn), Qxd5, Nc3 (hits the queen, no winning capture), Qa5, Bb5+ (check).
    assert quiet.tolist() == [1, 1, 1, 0, 1, 1, 1, 0]


def test_material_variants_take_one_piece_off(fixtures):
    from engine._core import material_variants
    game = next(master_games(fixtures))
    moves = [m.uci() for m in game.mainline_moves()]
    dense, active, stm, phase, hand, fullmove = material_variants(chess.STARTING_FEN, moves, "C", 2, 7)
    full, *_, quiet = replay_features(chess.STARTING_FEN, moves, "C")
    assert 0 < len(dense) <= quiet[1::2].sum()
    pieces = lambda rows: rows[:, [0, 1, 2, 3, 4, 30, 31, 32, 33, 34]].sum(1)   # noqa: E731
    # Each variant is a position of the game (every 2nd, quiet) less one piece.
    assert set(pieces(dense).tolist()) <= set((pieces(full[1::2]) - 1).tolist())
    assert (dense[:, 22] == 0).all()                   # the side to move is never in check
    assert (active >= 0).sum(1).tolist() == (pieces(dense) + 2).tolist()
    again = material_variants(chess.STARTING_FEN, moves, "C", 2, 7)
    assert (again[0] == dense).all() and (again[4] == hand).all()     # the seed decides


def test_sts_points():
    from engine.tools.epd_suite import points_of
    board = chess.Board()
    ops = board.set_epd('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4; '
                        'c8 "10 6"; c9 "e2e4 d2d4";')
    assert points_of(chess.Move.from_uci("e2e4"), ops) == (10, 10)
    assert points_of(chess.Move.from_uci("d2d4"), ops) == (6, 10)
    assert points_of(chess.Move.from_uci("a2a3"), ops) == (0, 10)
    assert points_of(chess.Move.from_uci("a2a3"), {"bm": []}) == (0, 0)
