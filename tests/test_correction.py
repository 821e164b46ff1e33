"""CorrectionHistory (ext/correction.pxi): the search's measured error of the
static evaluation, kept per pawn structure and side to move and added to the
evaluation the search prunes by."""
import chess
import pytest

from engine._core import Board, LabSearcher
from engine.bench import POSITIONS
from engine.search_params import PARAMS_BY_NAME

LIMIT = PARAMS_BY_NAME["CORR_LIMIT"].default


def corrections(lab: LabSearcher, depth: int = 9) -> list[int]:
    """Search the bench's first positions; what each root's pawns then read."""
    found = []
    for fen in POSITIONS[:4]:
        lab.search(Board(fen), depth=depth)
        found.append(lab.eval_correction(Board(fen)))
    return found


def test_nothing_is_learnt_while_off() -> None:
    assert corrections(LabSearcher(hash_mb=8)) == [0, 0, 0, 0]


def test_searches_measure_an_error_within_the_limit() -> None:
    lab = LabSearcher(hash_mb=8)
    lab.configure(correction=True)
    found = corrections(lab)
    assert any(found)
    assert all(abs(c) <= LIMIT for c in found)


def test_the_entry_belongs_to_the_pawns_and_the_side_to_move() -> None:
    """Pieces moved, pawns kept: the same pawns and side to move read the same
    entry; a pawn move reads another one."""
    lab = LabSearcher(hash_mb=8)
    lab.configure(correction=True)
    board = chess.Board(POSITIONS[1])
    lab.search(Board(board.fen()), depth=9)
    here = lab.eval_correction(Board(board.fen()))
    assert here != 0

    def quiet_piece_moves(b: chess.Board) -> list[chess.Move]:
        return [m for m in b.legal_moves if b.piece_type_at(m.from_square) != chess.PAWN and not b.is_capture(m)]

    for move in quiet_piece_moves(board)[:8]:
        board.push(move)
        board.push(quiet_piece_moves(board)[0])
        assert lab.eval_correction(Board(board.fen())) == here
        board.pop()
        board.pop()
    board.push(next(m for m in board.legal_moves if board.piece_type_at(m.from_square) == chess.PAWN))
    board.push(quiet_piece_moves(board)[0])
    assert lab.eval_correction(Board(board.fen())) != here


@pytest.mark.parametrize("nonpawn", [False, True])
def test_clear_forgets_it_and_searches_repeat(nonpawn: bool) -> None:
    """A search after clear() is a fresh searcher's, node for node, with the
    correction on (the tables are emptied with the rest)."""
    lab, fresh = LabSearcher(hash_mb=8), LabSearcher(hash_mb=8)
    for searcher in (lab, fresh):
        searcher.configure(correction=True, nonpawn_correction=nonpawn)
    corrections(lab)
    lab.clear()
    assert lab.eval_correction(Board(POSITIONS[0])) == 0
    fen = POSITIONS[5]
    assert lab.search(Board(fen), depth=9)["nodes"] == fresh.search(Board(fen), depth=9)["nodes"]


def test_the_table_keeps_the_raw_evaluation_wherever_it_was_stored() -> None:
    """With the correction learning, every entry near the root (the main
    search's, quiescence's and ProbCut's) holds the position's own static
    evaluation: a corrected one would be corrected again when read back
    (ProbCut's entries held the corrected value until 2026-12-05)."""
    plain = LabSearcher(hash_mb=1)
    seen = 0
    for fen in POSITIONS[2:6]:
        lab = LabSearcher(hash_mb=16)
        lab.configure(correction=True, probcut=True)
        lab.search(Board(fen), depth=11)
        frontier = [chess.Board(fen)]
        for _ in range(3):
            frontier = [after for board in frontier for after in successors(board)]
            for board in frontier:
                kept = lab.table_eval(Board(board.fen()))
                if kept is not None and not board.is_check():
                    seen += 1
                    assert kept == plain.evaluate(Board(board.fen())), board.fen()
    assert seen > 300


def successors(board: chess.Board) -> list[chess.Board]:
    found = []
    for move in board.legal_moves:
        board.push(move)
        found.append(board.copy(stack=False))
        board.pop()
    return found


def test_the_pieces_tables_wait_for_the_correction() -> None:
    """NonPawnCorrection alone learns nothing and searches the plain tree."""
    lab, plain = LabSearcher(hash_mb=8), LabSearcher(hash_mb=8)
    lab.configure(nonpawn_correction=True)
    assert corrections(lab) == corrections(plain) == [0, 0, 0, 0]
    fen = POSITIONS[5]
    assert lab.search(Board(fen), depth=9)["nodes"] == plain.search(Board(fen), depth=9)["nodes"]


def test_with_the_pieces_tables_a_piece_move_changes_the_correction() -> None:
    """The pawns' table alone reads the same after a quiet piece move (the
    test above); blended with the pieces' tables the correction follows the
    pieces too, and stays within the limit."""
    lab = LabSearcher(hash_mb=8)
    lab.configure(correction=True, nonpawn_correction=True)
    found = corrections(lab)
    assert any(found) and all(abs(c) <= LIMIT for c in found)
    board = chess.Board(POSITIONS[1])
    lab.search(Board(board.fen()), depth=9)
    here = lab.eval_correction(Board(board.fen()))
    changed = 0
    for move in [m for m in board.legal_moves if board.piece_type_at(m.from_square) != chess.PAWN
                 and not board.is_capture(m)][:8]:
        board.push(move)
        reply = next(m for m in board.legal_moves if board.piece_type_at(m.from_square) != chess.PAWN
                     and not board.is_capture(m))
        board.push(reply)
        changed += lab.eval_correction(Board(board.fen())) != here
        board.pop()
        board.pop()
    assert changed >= 4
