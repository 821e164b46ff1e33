"""The ChessMaps strategy database (engine/data/strategy.py): built from
games, checked on loading, read by the forward-pruning beam."""
import chess
import numpy as np
import pytest
from click.testing import CliRunner

from engine._core import Board, LabSearcher
from engine.cli import main
from engine.data.strategy import DEFAULT, StrategyDb, board_codes, build, game_paths, load, move_key, save
from engine.nets import NetError
from tests.uci_client import Engine, errors_in


def test_paths_and_boards_of_a_game_are_seen_by_the_side_that_began_them():
    moves = ["e2e4", "e7e5", "g1f3", "b8c6"]
    paths, boards = game_paths(moves)
    e4 = move_key(chess.Move.from_uci("e2e4"), chess.PAWN, chess.WHITE)
    e5 = move_key(chess.Move.from_uci("e7e5"), chess.PAWN, chess.BLACK)
    assert e5 == e4                                     # mirrored: the same move for either side
    assert paths.tolist() == [[e4, e5, move_key(chess.Move.from_uci("g1f3"), chess.KNIGHT, chess.WHITE)],
                              [e5, move_key(chess.Move.from_uci("g1f3"), chess.KNIGHT, chess.WHITE),
                               move_key(chess.Move.from_uci("b8c6"), chess.KNIGHT, chess.BLACK)]]
    # After e4 e5 Nf3, seen by White: our knight (2) on f3, their pawn (7) on e5.
    assert boards[0][chess.F3] == 2 and boards[0][chess.E5] == 7 and boards[0][chess.G1] == 0
    # After e5 Nf3 Nc6, seen by Black (mirrored): our knight on c3 (c6), their knight on f6 (f3).
    assert boards[1][chess.C3] == 2 and boards[1][chess.F6] == 8
    board = chess.Board()
    assert board_codes(board, chess.BLACK)[chess.E1] == 6 and board_codes(board, chess.BLACK)[chess.E8] == 12


def test_build_keeps_paths_seen_often_enough(fixtures, tmp_path):
    games = fixtures / "games" / "masters_sample.pgn"
    once = build([games], 40, min_count=1, jobs=1, log=lambda *_: None)
    twice = build([games], 40, min_count=2, jobs=1, log=lambda *_: None)
    assert 0 < len(twice.keys) < len(once.keys)
    assert set(twice.keys) <= set(once.keys)
    e4 = move_key(chess.Move.from_uci("e2e4"), chess.PAWN, chess.WHITE)
    assert e4 in set(twice.keys)                        # 1. e4 e5 / 1. e4 c5 ... recur in any collection
    i = list(once.keys).index(e4)
    assert once.popular[i][chess.E4] == 1               # after e4 and two more plies, our pawn stands on e4
    assert (once.share <= 255).all() and (once.popular < 13).all()
    save(twice, tmp_path / "s.npz")
    again = load(tmp_path / "s.npz")
    assert (again.keys == twice.keys).all() and (again.share == twice.share).all()
    assert again.info["min_count"] == 2


def test_twic_is_never_a_source(tmp_path):
    bad = tmp_path / "twic_1427-1428_2022.pgn"
    bad.write_text("")
    with pytest.raises(ValueError, match="TWIC"):
        build([bad], 10)


def test_files_are_checked(tmp_path):
    good = StrategyDb(np.array([5, 9], np.int32), np.array([3, 4], np.int32),
                      np.zeros((2, 64), np.uint8), np.zeros((2, 64), np.uint8))
    save(good, tmp_path / "good.npz")
    assert len(load(tmp_path / "good.npz").keys) == 2
    (tmp_path / "garbage.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(NetError):
        load(tmp_path / "garbage.npz")
    with pytest.raises(NetError, match="no weight file"):
        load(tmp_path / "missing.npz")
    with pytest.raises(NetError, match="not a strategy"):
        load(DEFAULT.parent / "td.npz")
    bad = StrategyDb(np.array([9, 5], np.int32), good.count, good.popular, good.share)     # not ascending
    save(bad, tmp_path / "bad.npz")
    with pytest.raises(NetError, match="out of range"):
        load(tmp_path / "bad.npz")


def test_the_beam_keeps_a_move_to_a_popular_square():
    # With a beam of no safe other move, every quiet move but the first is
    # pruned; a database saying that after ...Nf6 and two more plies a knight
    # of ours stands on f6 keeps the knight move to f6, and nothing else.
    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
    searcher = LabSearcher(hash_mb=1)       # the lab's face: beam
    searcher.configure(forward_pruning=True, beam_width=0)
    plain = dict(searcher.beam(Board(fen), 4)["moves"])
    assert plain["g8f6"] == "pruned"
    nf6 = move_key(chess.Move.from_uci("g8f6"), chess.KNIGHT, chess.BLACK)
    popular = np.zeros((1, 64), np.uint8)
    share = np.zeros((1, 64), np.uint8)
    popular[0, chess.F3] = 2                # our knight, in the mover's (mirrored) frame: f6 for Black
    share[0, chess.F3] = 200
    searcher.set_strategy(np.array([nf6], np.int32), popular, share)
    assert searcher.has_strategy
    judged = dict(searcher.beam(Board(fen), 4)["moves"])
    assert judged["g8f6"] == "popular"
    assert [m for m in judged if judged[m] != plain[m]] == ["g8f6"]
    searcher.clear_strategy()
    assert dict(searcher.beam(Board(fen), 4)["moves"]) == plain
    with pytest.raises(ValueError):
        searcher.set_strategy(np.array([6 * 4096], np.int32), popular, share)


def test_data_command_writes_a_file_the_engine_loads(fixtures, tmp_path):
    out = tmp_path / "strategy.npz"
    result = CliRunner().invoke(main, ["data", "chessmaps", "--pgn", str(fixtures / "games" / "masters_sample.pgn"),
                                       "--out", str(out), "--games", "40", "--min-count", "2", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    db = load(out)
    assert db.info["games"] == 40 and len(db.keys)


def test_uci_strategy_file_option(tmp_path):
    engine = Engine()
    engine.send("setoption name ForwardPruning value true",
                f"setoption name StrategyFile value {tmp_path / 'missing.npz'}", "isready")
    lines = engine.read_until("readyok")[1]
    assert any("StrategyFile" in line and "info string" in line for line in lines)
    engine.send("position startpos", "go depth 7")
    lines = engine.read_until("bestmove")[1]
    assert not errors_in(lines)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    assert engine.quit() == 0
