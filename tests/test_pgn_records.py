"""nmm-chess data pgn-records and train nnue --extra: games played elsewhere
replayed by the core into self-play records (ext/selfplay.pxi game_records,
engine/data/pgn_records.py), and trained on beside the engine's own games
without touching the validation games."""
import json
from dataclasses import replace

import chess
import chess.pgn
import numpy as np
import pytest
from click.testing import CliRunner

from engine._core import Board, Searcher, game_records
from engine.cli import main
from engine.data import selfplay as sp
from engine.data import selfplay_games as gen
from engine.data.pgn_records import convert
from engine.train import nnue

SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]      # 1-0, the last move mates

PGN = """[Event "a"]
[White "x"]
[Black "y"]
[WhiteElo "2600"]
[BlackElo "2550"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[Event "b"]
[White "x"]
[Black "y"]
[Result "*"]

1. d4 d5 *

[Event "c"]
[White "x"]
[Black "y"]
[Result "0-1"]

1. e4 Ke7 2. Qh5 Kxe5 0-1

[Event "d"]
[White "x"]
[Black "y"]
[WhiteElo "2400"]
[BlackElo "2700"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2
"""


def quiet(message: str) -> None:
    pass


def records_of(moves, result, nodes=0, fen=chess.STARTING_FEN):
    out = np.zeros((len(moves), 32), np.uint8)
    n = game_records(Searcher(hash_mb=1), Board(fen), moves, result, out, nodes)
    return out[:n].view(sp.RECORD).reshape(-1)


def test_the_records_are_the_positions_before_each_move_with_the_games_result():
    records = records_of(SCHOLAR, 2)
    board = chess.Board()
    searcher = Searcher(hash_mb=1)
    assert len(records) == len(SCHOLAR)
    for record, uci in zip(records, SCHOLAR):
        assert sp.decode(record).split()[:4] == board.fen().split()[:4]
        assert sp.move_uci(record) == uci
        assert int(record["ply"]) == board.ply()
        assert (record["flags"] >> sp.RESULT_SHIFT) & 3 == 2
        assert bool(record["flags"] & sp.CHECK) == board.is_check()
        noisy = board.is_capture(chess.Move.from_uci(uci))
        assert bool(record["flags"] & sp.NOISY) == noisy
        assert int(record["score"]) == searcher.evaluate(Board(board.fen()))      # nodes 0: the static score
        board.push_uci(uci)
    assert records["flags"][0] & sp.FIRST and not records["flags"][1:].any() & sp.FIRST
    searched = records_of(SCHOLAR, 2, nodes=1)
    assert searched["score"][-1] > sp.MATE_BOUND                    # the search sees the mate in one
    assert searched["occupancy"].tolist() == records["occupancy"].tolist()


def test_an_illegal_move_or_result_is_refused_before_any_search():
    with pytest.raises(ValueError, match="illegal move 'e2e5'"):
        records_of(["e2e4", "e7e5", "e2e5"], 1, nodes=100)
    with pytest.raises(ValueError, match="result"):
        records_of(["e2e4"], 3)
    with pytest.raises(ValueError, match="bytes"):
        game_records(Searcher(hash_mb=1), Board(), SCHOLAR, 1, np.zeros((3, 32), np.uint8))


def test_a_pgn_becomes_batches_that_a_rerun_keeps(tmp_path):
    pgn = tmp_path / "masters.pgn"
    pgn.write_text(PGN)
    out = tmp_path / "records"
    summary = convert(pgn, out, batch_games=2, nodes=0, progress=False)
    assert summary["batches"] == 2 and summary["games"] == 2        # "*" and the illegal game left out
    headers = [sp.read_batch(p)[0] for p in sp.batch_paths(out)]
    assert headers[0]["skipped"]["no result"] == 1 and headers[1]["skipped"]["unreadable"] == 1
    records = np.concatenate([sp.read_batch(p, mmap=False)[1] for p in sp.batch_paths(out)])
    assert len(records) == len(SCHOLAR) + 8
    assert ((records["flags"] >> sp.RESULT_SHIFT) & 3).tolist() == [2] * 7 + [1] * 8
    assert sp.game_starts(records).tolist() == [0, 7]
    again = convert(pgn, out, batch_games=2, nodes=0, progress=False)
    assert again["converted_now"] == 0
    with pytest.raises(ValueError, match="other settings"):
        convert(pgn, out, batch_games=2, nodes=5, progress=False)
    rated = convert(pgn, tmp_path / "rated", batch_games=10, nodes=0, min_elo=2500, progress=False)
    assert rated["games"] == 1                                      # 2600-2550 in, 2400-2700 out
    twic = tmp_path / "twic_1427.pgn"
    twic.write_text(PGN)
    with pytest.raises(ValueError, match="outside test set"):
        convert(twic, tmp_path / "t", progress=False)


def test_the_cli_converts(tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(PGN)
    result = CliRunner().invoke(main, ["data", "pgn-records", str(pgn), "--out", str(tmp_path / "r"), "--nodes", "50"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["positions"] == 15


@pytest.fixture(scope="module")
def own_games(tmp_path_factory):
    """A self-play folder: 6 games at 300 nodes a move, two a batch."""
    folder = tmp_path_factory.mktemp("own")
    openings = folder / "openings.epd"
    openings.write_text("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3\n")
    job = gen.make_job(openings, 300, None, 11, batch_games=2, random_plies=(2, 6), eval_file=None, adjudicate=True)
    gen.generate(openings, job, 6, folder / "games", workers=1, progress=False)
    return folder / "games"


def test_extra_games_are_trained_on_and_never_validated(own_games, tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text(PGN * 3)
    extra = tmp_path / "extra"
    convert(pgn, extra, batch_games=4, nodes=1, progress=False)
    config = nnue.Config(lam=0.5, hidden=64, epochs=1, batch=64, seed=3, min_ply=2, val_fraction=0.34)
    alone = nnue.load([own_games], min_ply=2, log=quiet)
    both = nnue.load([own_games], min_ply=2, log=quiet, extra=[extra])
    assert both.own_games == len(alone.starts) < len(both.starts)
    assert alone.signature != both.signature
    train_a, val_a = nnue.split(alone, 0.34, 3)
    train_b, val_b = nnue.split(both, 0.34, 3)
    assert val_a.tolist() == val_b.tolist()                         # the same validation positions
    assert (both.game[train_b] >= both.own_games).sum() == len(both.kept) - len(alone.kept) > 0
    plain = nnue.train([own_games], tmp_path / "a.npz", config, log=quiet)
    more = nnue.train([own_games], tmp_path / "b.npz", config, log=quiet, extra=[extra])
    assert more["baseline"] == plain["baseline"] and more["k"] == plain["k"]
    assert more["train_positions"] > plain["train_positions"]
    assert [d.get("extra", False) for d in more["data"]] == [False, True]
    # --own-repeat 3: the own training positions twice more, the extra ones once, validation the same
    heavier = nnue.train([own_games], tmp_path / "c.npz", replace(config, own_repeat=3), log=quiet, extra=[extra])
    assert heavier["train_positions"] == more["train_positions"] + 2 * plain["train_positions"]
    assert heavier["baseline"] == more["baseline"]
    mirrored = nnue.train([own_games], tmp_path / "d.npz", replace(config, own_repeat=3, mirror=True), log=quiet,
                          extra=[extra])
    assert mirrored["train_positions"] == 2 * heavier["train_positions"]
