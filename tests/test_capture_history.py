"""CaptureHistory (ext/stats.pxi): signed statistics of captures and
promotions, keyed by piece, target and victim, that order the good captures
beside the victim's value."""
import chess
import pytest

from engine._core import Board, LabSearcher
from engine.bench import POSITIONS

LIMIT = 16384


def capture_entries(lab: LabSearcher, fen: str) -> list[int]:
    """The entries of every legal capture and promotion of ``fen``."""
    board = chess.Board(fen)
    return [lab.capture_statistics(Board(fen), m.uci()) for m in board.legal_moves
            if board.is_capture(m) or m.promotion]


def searched(capture_history: bool, depth: int = 9) -> LabSearcher:
    lab = LabSearcher(hash_mb=8)
    lab.configure(capture_history=capture_history)
    for fen in POSITIONS[:4]:
        lab.search(Board(fen), depth=depth)
    return lab


def test_nothing_is_learnt_while_off() -> None:
    lab = searched(False)
    assert not any(any(capture_entries(lab, fen)) for fen in POSITIONS[:4])


def test_searches_reward_and_punish_within_the_limit() -> None:
    """Captures that cut off gain, those searched before one that did lose;
    every entry stays within the statistics' limit."""
    lab = searched(True)
    entries = [e for fen in POSITIONS[:6] for e in capture_entries(lab, fen)]
    assert any(e > 0 for e in entries) and any(e < 0 for e in entries)
    assert all(-LIMIT <= e <= LIMIT for e in entries)


def test_the_entry_is_the_piece_the_target_and_the_victim() -> None:
    """The same capture in another position reads the same entry; the same
    piece and target taking another victim reads another one."""
    lab = searched(True)
    a = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"     # e4xd5 takes a pawn ...
    b = "4k3/p7/8/3p4/4P3/8/8/R3K3 w - - 0 1"   # ... the same capture, other pieces about
    c = "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1"     # ... and a knight on d5
    assert lab.capture_statistics(Board(a), "e4d5") == lab.capture_statistics(Board(b), "e4d5")
    first = lab.capture_statistics(Board(a), "e4d5")
    lab.configure(capture_history=True)
    lab.search(Board(c), depth=8)
    assert lab.capture_statistics(Board(c), "e4d5") > 0      # winning a knight cuts off
    assert lab.capture_statistics(Board(a), "e4d5") == first  # the pawn's entry is another


def test_only_captures_and_promotions_have_one() -> None:
    lab = LabSearcher(hash_mb=1)
    for uci in ("e2e4", "e2e5"):
        with pytest.raises(ValueError):
            lab.capture_statistics(Board(), uci)


def test_clear_forgets_it_and_searches_repeat() -> None:
    """A search after clear() is a fresh searcher's, node for node."""
    lab, fresh = searched(True), LabSearcher(hash_mb=8)
    fresh.configure(capture_history=True)
    lab.clear()
    assert not any(capture_entries(lab, POSITIONS[0]))
    fen = POSITIONS[5]
    assert lab.search(Board(fen), depth=9)["nodes"] == fresh.search(Board(fen), depth=9)["nodes"]
