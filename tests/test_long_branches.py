"""Long branches (ext/long_branches.pxi): reliable move-table paths played
out and ended in quiescence, compared with the full search."""
import chess

from engine._core import Board, LabSearcher
from engine.bench import POSITIONS
from tests.uci_client import RESEARCH, Engine, errors_in


def searched(**config) -> tuple[LabSearcher, int]:
    searcher = LabSearcher(hash_mb=8)
    searcher.configure(**config)
    total = 0
    for fen in POSITIONS[:8]:
        result = searcher.search(Board(fen), depth=8)
        assert chess.Move.from_uci(result["bestmove"]) in chess.Board(fen).legal_moves
        total += result["nodes"]
    return searcher, total


def test_reliable_paths_are_played_and_compared():
    searcher, with_branches = searched(move_tables=1, long_branches=True)
    stats = searcher.long_branch_stats
    assert stats["played"] > 50
    assert 0 < stats["same_verdict"] < stats["played"] and 0 < stats["same_move"] < stats["played"]
    _, without = searched(move_tables=1)
    assert with_branches != without            # the branches' nodes are counted


def test_no_branches_without_the_option_or_the_tables():
    for config in ({"move_tables": 1}, {"long_branches": True}):
        searcher, _ = searched(**config)
        assert searcher.long_branch_stats == {"played": 0, "same_verdict": 0, "same_move": 0}


def test_uci_option():
    engine = Engine(RESEARCH)
    engine.send("uci")
    assert "option name LongBranches type check default false" in engine.read_until("uciok")[1]
    engine.send("setoption name MoveTables value false", "setoption name LongBranches value true",
                "position startpos", "go depth 7")
    lines = engine.read_until("bestmove")[1]
    assert not errors_in(lines)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    assert engine.quit() == 0
