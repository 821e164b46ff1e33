"""Board state: FEN in and out, keys, make/unmake, game-end rules."""
import random

import chess
import pytest

from engine._core import STARTING_FEN, Board

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


@pytest.mark.parametrize("fen", [
    STARTING_FEN,
    KIWIPETE,
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/8/8/8/8/8/8/4K2R b K - 17 63",
])
def test_fen_round_trip(fen: str) -> None:
    assert Board(fen).fen() == fen


@pytest.mark.parametrize("fen, why", [
    ("", "fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "8 ranks"),
    ("rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "7 squares"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "character"),
    ("rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "more than 8"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "character"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "one king"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkz - 0 1", "castling"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1", "wrong rank"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq i9 0 1", "square"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "integers"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -3 1", "range"),
    ("4k3/8/8/8/8/8/8/4K2P w - - 0 1", "pawn"),
    ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "not to move is in check"),
])
def test_broken_fen_is_rejected_and_state_kept(fen: str, why: str) -> None:
    board = Board(KIWIPETE)
    with pytest.raises(ValueError, match=why):
        board.set_fen(fen)
    assert board.fen() == KIWIPETE


def test_en_passant_recorded_only_when_capturable() -> None:
    board = Board()
    board.push("e2e4")                      # no black pawn can take: no e3
    assert board.fen().split()[3] == "-"
    board = Board("rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    board.push("e2e4")
    assert board.fen().split()[3] == "e3"
    assert "d4e3" in board.legal_moves()


def test_pinned_pawn_cannot_capture_en_passant() -> None:
    # After e2e4 the d4 pawn could take on e3, but both pawns leaving the
    # fourth rank would expose the black king on a4 to the rook on h4.
    board = Board("8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1")
    board.push("e2e4")
    assert "d4e3" not in board.legal_moves()
    assert board.fen().split()[3] == "-"


def test_push_pop_restores_everything() -> None:
    board = Board(KIWIPETE)
    rng = random.Random(7)
    seen = []
    for _ in range(60):
        moves = board.legal_moves()
        if not moves:
            break
        seen.append((board.fen(), board.zobrist()))
        board.push(rng.choice(moves))
        assert board.zobrist() == board.zobrist_recomputed()
    while seen:
        board.pop()
        assert (board.fen(), board.zobrist()) == seen.pop()
    with pytest.raises(IndexError):
        board.pop()


def test_illegal_push_is_refused() -> None:
    board = Board()
    for move in ["e2e5", "e1g1", "a1a1", "e7e5", "junk", "e2e4q", ""]:
        with pytest.raises(ValueError):
            board.push(move)
    assert board.fen() == STARTING_FEN


def test_castling_notations() -> None:
    board = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert {"e1g1", "e1c1"} <= set(board.legal_moves())
    board.push("e1h1")                       # king-takes-rook is accepted too
    assert board.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    board = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", chess960=True)
    assert {"e1h1", "e1a1"} <= set(board.legal_moves())


def test_chess960_castling_with_shredder_fen() -> None:
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
    board = Board(fen, chess960=True)
    assert board.perft(3) == 12_189
    reference = chess.Board(fen, chess960=True)
    assert board.fen() == reference.fen()       # X-FEN: KQkq for the outermost rooks
    assert sorted(board.legal_moves()) == sorted(m.uci() for m in reference.legal_moves)


def test_game_end_rules() -> None:
    assert Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").is_checkmate()
    assert Board("7k/8/6QK/8/8/8/8/8 b - - 0 1").is_stalemate()
    assert Board("8/8/4k3/8/8/3BK3/8/8 w - - 0 1").is_insufficient_material()
    assert not Board("8/8/4k3/8/8/3NK3/3N4/8 w - - 0 1").is_insufficient_material()
    assert Board("8/8/4k3/8/8/3RK3/8/8 w - - 100 80").is_fifty_moves()
    assert Board("7k/6Q1/6K1/8/8/8/8/8 b - - 100 80").outcome() == "checkmate"


def test_threefold_repetition() -> None:
    board = Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        assert board.outcome() is None
        board.push(move)
    assert board.is_repetition(3)
    assert board.outcome() == "threefold repetition"
    board.pop()
    assert board.is_repetition(2) and not board.is_repetition(3)


def test_very_long_games_keep_working() -> None:
    """Knights shuffle for 3,000 plies: far past the history buffer."""
    board = Board("7k/8/8/8/8/8/8/N6K w - - 0 1")
    for _ in range(750):
        for move in ["a1b3", "h8g8", "b3a1", "g8h8"]:
            board.push(move)
    assert board.is_repetition(3)
    assert board.zobrist() == board.zobrist_recomputed()
