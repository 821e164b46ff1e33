"""Dynamic move chains (ext/move_chains.pxi): the ChessMaps short-term memory."""
import random

import chess

from engine._core import Board, LabSearcher
from engine.bench import POSITIONS
from tests.uci_client import Engine, errors_in


def test_chains_are_stored_on_cut_offs_tried_and_forgotten_on_a_new_game():
    searcher = LabSearcher(hash_mb=8)
    searcher.configure(move_chains=True)
    for fen in POSITIONS[:4]:
        searcher.search(Board(fen), depth=7)
    stats = searcher.chain_stats
    assert stats["tries"] > 100 and 0 < stats["cutoffs"] < stats["tries"] and stats["held"] > 0
    searcher.clear()                            # ucinewgame
    assert searcher.chain_stats["held"] == 0


def test_without_move_chains_the_stage_never_runs():
    searcher = LabSearcher(hash_mb=8)
    searcher.search(Board(POSITIONS[1]), depth=7)
    assert searcher.chain_stats == {"tries": 0, "cutoffs": 0, "held": 0}


def test_chains_only_ever_give_legal_moves():
    """Chains learnt in one position are offered in others: every best move
    and every move of the principal variation stays legal (python-chess)."""
    searcher, rng = LabSearcher(hash_mb=8), random.Random(4)
    searcher.configure(move_chains=True)
    for _ in range(25):
        board = chess.Board()
        for _ in range(rng.randrange(4, 40)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.is_game_over():
            continue
        found = searcher.search(Board(board.fen()), depth=5)
        for move in found["line"]["pv"]:
            assert chess.Move.from_uci(move) in board.legal_moves
            board.push_uci(move)
    assert searcher.chain_stats["tries"] > 0


def test_the_uci_option_switches_them_on():
    with Engine() as engine:
        engine.send("setoption name MoveChains value true", "position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
                    "go depth 5")
        _, lines = engine.read_until("bestmove")
        assert lines[-1].split()[1] == "a1a8" and not errors_in(lines)
        assert engine.quit() == 0
