"""Guarded forward pruning (ext/forward_pruning.pxi): what the beam keeps,
the x-ray rule, the re-add by key squares, and searches with it on."""
import random

import chess
import pytest

from engine._core import Board, LabSearcher
from engine.bench import POSITIONS
from tests.test_search import MATES
from tests.uci_client import RESEARCH, Engine, errors_in


def pruning_searcher(width: int = 4) -> LabSearcher:
    searcher = LabSearcher(hash_mb=4)       # the lab's face: beam, pruning_stats
    searcher.configure(forward_pruning=True, beam_width=width)
    return searcher


def reasons(fen: str, width: int = 4, key_squares=()) -> tuple[dict[str, str], list[str]]:
    report = pruning_searcher(width).beam(Board(fen), 4, key_squares)
    return dict(report["moves"]), report["readded"]


def test_every_legal_move_is_judged_once_and_only_quiet_moves_are_pruned():
    for fen in POSITIONS[:12]:
        judged, _ = reasons(fen, width=2)
        board = chess.Board(fen)
        assert set(judged) == {m.uci() for m in board.legal_moves}
        for uci, why in judged.items():
            move = chess.Move.from_uci(uci)
            if board.is_capture(move) or move.promotion:
                assert why != "pruned", (fen, uci)
        assert sum(why == "beam" for why in judged.values()) <= 2


def test_off_or_near_the_leaves_nothing_is_pruned():
    board = Board(POSITIONS[1])
    assert {why for _, why in LabSearcher(hash_mb=1).beam(board, 8)["moves"]} == {"unpruned"}
    assert {why for _, why in pruning_searcher().beam(board, 2)["moves"]} == {"unpruned"}


def test_a_check_is_always_answered_with_every_evasion():
    rng, checks = random.Random(5), 0
    searcher = pruning_searcher(width=1)
    while checks < 60:
        board = chess.Board()
        for _ in range(rng.randrange(10, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            if board.is_check() and board.legal_moves.count():
                report = searcher.beam(Board(board.fen()), 6)["moves"]
                assert {uci for uci, _ in report} == {m.uci() for m in board.legal_moves}
                assert {why for _, why in report} == {"evasion"}
                checks += 1


def test_a_check_block_by_a_piece_that_would_be_lost_is_searched():
    # Rook check on the e-file: Nc3-e2, Nc3-e4 and Bc1-e3 block, the last two
    # losing the blocker (unsafe moves the beam would otherwise prune).
    fen = "4r1k1/5ppp/8/8/8/2N5/5PPP/2B1K3 w - - 0 1"
    report = dict(pruning_searcher(width=1).beam(Board(fen), 6)["moves"])
    assert report["c3e2"] == report["c3e4"] == report["c1e3"] == "evasion"


FIGURE_4 = "r5k1/4bppp/3p4/2n5/8/Q7/5PPP/6K1 b - - 0 1"       # Be7, d6 and Nc5 in front of Qa3
NO_QUEEN = "r5k1/4bppp/3p4/2n5/8/7Q/5PPP/6K1 b - - 0 1"        # the same with the queen on h3


def test_the_xray_shape_keeps_every_move_of_both_blockers():
    judged, _ = reasons(FIGURE_4, width=1)
    blockers = {uci: why for uci, why in judged.items() if uci[:2] in ("c5", "d6")}
    assert "pruned" not in blockers.values()
    assert "xray" in blockers.values()
    assert blockers["d6d5"] == "xray"           # ... d5, opening the diagonal, is searched
    plain, _ = reasons(NO_QUEEN, width=1)
    assert "pruned" in {why for uci, why in plain.items() if uci[:2] in ("c5", "d6")}
    assert "xray" not in plain.values()


@pytest.mark.parametrize("fen, blockers", [
    ("4k3/8/8/3q4/8/8/8/R2NK3 w - - 0 1", set()),                   # nothing on a line
    ("3qk3/8/8/8/8/3N4/8/3RK3 w - - 0 1", {"d3"}),                  # one blocker: a discovered attack
    ("3qk3/8/8/8/8/3N4/3B4/3RK3 w - - 0 1", {"d3", "d2"}),          # two: 3 + 3 < 9
    ("3qk3/8/8/8/3N4/3B4/3N4/3RK3 w - - 0 1", set()),               # three blockers: too far
    ("4k3/3p4/8/8/8/3N4/8/3RK3 w - - 0 1", set()),                   # a pawn is worth less than the knight
    ("3rk3/8/8/8/8/3N4/8/3QK3 w - - 0 1", set()),                   # a rook is worth less than the queen
])
def test_xray_lines(fen, blockers):
    judged, _ = reasons(fen, width=0)
    assert {uci[:2] for uci, why in judged.items() if why == "xray"} == blockers


def covers(board: chess.Board, move: chess.Move, squares: set[int]) -> bool:
    after = board.copy()
    after.push(move)
    return move.to_square in squares or any(after.attacks_mask(move.to_square) & chess.BB_SQUARES[sq] for sq in squares)


@pytest.mark.parametrize("fen, keys", [
    ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", ["f7"]),
    ("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8", ["d5", "c6"]),
    (POSITIONS[1], ["e5", "d7"]),
])
def test_a_poor_result_readds_the_pruned_moves_that_cover_the_key_squares(fen, keys):
    judged, readded = reasons(fen, width=1, key_squares=keys)
    board = chess.Board(fen)
    squares = {chess.parse_square(k) for k in keys}
    pruned = [uci for uci, why in judged.items() if why == "pruned"]
    assert pruned
    expected = {uci for uci in pruned
                if not board.is_castling(chess.Move.from_uci(uci))
                and covers(board, chess.Move.from_uci(uci), squares)}
    assert expected and set(readded) == expected


@pytest.mark.parametrize("fen, n", MATES)
def test_mates_are_still_found(fen, n):
    searcher = pruning_searcher(width=1)
    assert searcher.search(Board(fen), depth=2 * n + 4)["mate"] == n


def test_a_search_prunes_and_readds_and_plays_legal_moves():
    searcher = pruning_searcher()
    plain = LabSearcher(hash_mb=4)
    pruned_nodes = plain_nodes = 0
    for fen in POSITIONS[:8]:
        result = searcher.search(Board(fen), depth=8)
        assert chess.Move.from_uci(result["bestmove"]) in chess.Board(fen).legal_moves
        pruned_nodes += result["nodes"]
        plain_nodes += plain.search(Board(fen), depth=8)["nodes"]
    stats = searcher.pruning_stats
    assert 0 < stats["readded"] < stats["pruned"] < stats["quiets"]
    assert plain.pruning_stats == {"quiets": 0, "pruned": 0, "readded": 0}
    assert pruned_nodes != plain_nodes


def test_uci_options():
    engine = Engine(RESEARCH)
    engine.send("uci")
    lines = engine.read_until("uciok")[1]
    assert "option name ForwardPruning type check default false" in lines
    assert "option name BeamWidth type spin default 4 min 1 max 64" in lines
    engine.send("setoption name ForwardPruning value true", "setoption name BeamWidth value 2",
                "position startpos moves e2e4 e7e5 g1f3", "go depth 8")
    lines = engine.read_until("bestmove")[1]
    assert not errors_in(lines)
    board = chess.Board()
    for move in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(move)
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    assert engine.quit() == 0
