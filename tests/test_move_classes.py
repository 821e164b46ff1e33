"""ChessMaps move classes and square control (ext/move_classes.pxi), on
hand-built positions, and the `chessmaps` quiet-move scorer in a search."""
import chess
import pytest

from engine._core import Board, Searcher


def classes(fen: str) -> dict[str, tuple[str, ...]]:
    return Board(fen).move_classes()


def test_captures_safe_and_unsafe():
    found = classes("4k3/5p2/4p3/3p4/8/8/8/3QK3 w - - 0 1")      # d5 is defended by e6, e6 by f7
    assert found["d1d5"] == ("capture", "unsafe")
    found = classes("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1")       # d5 hangs
    assert found["c3d5"] == ("capture",)


def test_forced_moves_are_those_of_a_piece_en_prise():
    # The knight on c3 is attacked by the pawn on b4: every knight move is forced;
    # the pawn on c6 guards b5 and d5.
    found = classes("4k3/8/2p5/8/1p6/2N5/8/4K3 w - - 0 1")
    assert all("forced" in found[m] for m in found if m.startswith("c3"))
    assert not any("forced" in found[m] for m in found if m.startswith("e1"))
    assert "unsafe" in found["c3b5"] and "unsafe" in found["c3d5"] and "unsafe" not in found["c3e4"]
    # An undefended rook attacked by a rook is en prise too; a defended one attacked by a rook is not.
    assert "forced" in classes("r3k3/8/8/8/8/8/8/R5K1 w - - 0 1")["a1b1"]
    assert "forced" not in classes("r3k3/8/8/8/8/8/1K6/R7 w - - 0 1")["a1c1"]     # b2 guards a1


def test_forcing_moves_threaten_a_winning_capture_or_check():
    found = classes("4k3/8/3q4/8/8/2N5/8/4K3 w - - 0 1")
    assert found["c3b5"] == ("forcing",)            # the knight attacks the queen
    assert found["c3e4"] == ("forcing",)            # and from e4 too
    assert found["c3a2"] == ()
    found = classes("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    assert found["a1a8"] == ("forcing",)            # check
    assert found["a1b1"] == ()
    found = classes("4k3/8/8/2n5/8/8/8/R3K3 w - - 0 1")
    assert "forcing" in found["a1a5"]               # attacks the undefended knight
    assert found["e1d2"] == ()


def test_castling_is_never_forcing_or_unsafe():
    found = classes("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert found["e1g1"] == () and found["e1c1"] == ()


def test_classes_agree_with_python_chess_on_captures():
    """Every legal move of some game positions gets classes; "capture" is
    exactly python-chess's captures and promotions."""
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    found = Board(board.fen()).move_classes()
    assert set(found) == {m.uci() for m in board.legal_moves}
    for move in board.legal_moves:
        assert ("capture" in found[move.uci()]) == (board.is_capture(move) or bool(move.promotion))
    assert "unsafe" not in found["h5f7"] and "forcing" in found["h5f7"]      # mate: check


def test_square_control_of_the_start_position():
    control = Board().square_control()
    assert control[16:24] == [1] * 8 and control[40:48] == [-1] * 8
    assert control[24:40] == [0] * 16


def test_control_gain_prefers_the_centre():
    board = Board()
    assert board.control_gain("g1f3") > board.control_gain("g1h3")
    assert board.control_gain("e2e4") > board.control_gain("a2a4")


def hand_rule(board: chess.Board) -> list[int]:
    """The hand rule's weights (a1..h8) for the side to move, as its comment states it."""
    def weight(sq: int) -> int:
        f, r = chess.square_file(sq), chess.square_rank(sq)
        if board.turn == chess.BLACK:
            r = 7 - r
        centre, wide = 3 <= f <= 4 and 3 <= r <= 4, 2 <= f <= 5 and 2 <= r <= 5
        return 1 + (r >= 4) + wide + 2 * centre
    king = board.king(not board.turn)
    zone = chess.SquareSet(chess.BB_KING_ATTACKS[king]) | chess.SquareSet.from_square(king)
    return [weight(sq) + 2 * (sq in zone) for sq in chess.SQUARES]


FENS = ["r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "r1bq1rk1/pp1pppbp/2n2np1/8/4P3/1NN5/PPP1BPPP/R1BQK2R b KQ - 0 1",
        "8/5pk1/6p1/7p/1R5P/6P1/r4PK1/8 w - - 0 40",
        "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1"]


@pytest.mark.parametrize("fen", FENS)
def test_the_hand_rules_weights_and_the_control_gain_they_give(fen):
    """The core holds the weights as bit planes; each square's weight and
    each quiet move's control gain (the squares its piece attacks after the
    move, weighted, less those before; python-chess's attacks) are the rule's."""
    from engine._core import LabSearcher
    board = chess.Board(fen)
    weights = hand_rule(board)
    assert LabSearcher(hash_mb=1).region_weights(Board(fen), net=False) == weights
    ours = Board(fen)
    for move in board.legal_moves:
        if board.is_capture(move) or move.promotion or board.is_castling(move):
            continue
        before = sum(weights[sq] for sq in board.attacks(move.from_square))
        board.push(move)
        after = sum(weights[sq] for sq in board.attacks(move.to_square))
        board.pop()
        assert ours.control_gain(move.uci()) == after - before, move.uci()
        assert ours.control_gain(move.uci(), weights) == after - before
    with pytest.raises(ValueError):
        ours.control_gain(next(iter(board.legal_moves)).uci(), [16] * 64)


@pytest.mark.parametrize("fen,mate", [("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"),
                                      ("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                                       "h5f7")])
def test_a_search_ordered_by_chessmaps_finds_the_mate(fen, mate):
    searcher = Searcher(hash_mb=4)
    searcher.configure(ordering="chessmaps", nmm_min_depth=0)
    found = searcher.search(Board(fen), depth=4)
    assert found["bestmove"] == mate and found["mate"] == 1
