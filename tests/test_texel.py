"""The evaluation's weights and their tuner (Texel's method)."""
from pathlib import Path

import chess
import numpy as np
import pytest

from engine._core import (Board, Searcher, eval_coefficients, eval_trace, eval_weights, set_eval_weights,
                          texel_rows)
from engine.data.pgn import parse_game, split_games
from engine.data.texel import build, load, load_many
from engine.evaluation import weights
from engine.train.texel import Config, evaluate, split, train

REPO = Path(__file__).resolve().parent.parent


def fixture_games(fixtures: Path) -> list[list[str]]:
    texts = split_games((fixtures / "games" / "masters_sample.pgn").read_text())
    return [parsed[1] for parsed in map(parse_game, texts) if parsed]


def model(coef, phase, scale, pairs) -> float:
    w = np.array(pairs, np.float64)
    return (coef @ w[:, 0] * phase + coef @ w[:, 1] * scale / 64 * (24 - phase)) / 24


def test_core_holds_the_committed_weights() -> None:
    assert eval_weights() == weights.read_pxi(REPO / "ext" / "eval_weights.pxi")
    assert len(eval_weights()) == weights.size()


def test_counts_reproduce_the_evaluation(fixtures) -> None:
    """The evaluation is the tapered dot product of counts and weights (up to
    integer rounding), in every position of the fixture games."""
    pairs = eval_weights()
    worst, seen = 0.0, 0
    for moves in fixture_games(fixtures)[:15]:
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
            ours = Board(board.fen())
            coef, phase, scale, score = eval_coefficients(ours)
            if abs(eval_trace(ours)["terms"]["mop-up"][1]) or abs(eval_trace(ours)["terms"]["mop-up"][3]):
                continue
            worst = max(worst, abs(model(coef, phase, scale, pairs) - score))
            seen += 1
    assert seen > 500
    assert worst <= 2.0


def test_set_weights_changes_the_evaluation() -> None:
    start = eval_weights()
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    before = eval_coefficients(Board(fen))[3]
    try:
        changed = list(start)
        knight = weights.offsets()["MATERIAL"] + 1
        changed[knight] = (start[knight][0] + 100, start[knight][1] + 100)
        set_eval_weights(changed)
        assert eval_weights()[knight] == changed[knight]
        # Both sides have two knights: no change. Take Black's off b8: +100 for White's extra one.
        assert eval_coefficients(Board(fen))[3] == before
        lopsided = "r1bqkb1r/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
        set_eval_weights(start)
        base = eval_coefficients(Board(lopsided))[3]
        set_eval_weights(changed)
        assert eval_coefficients(Board(lopsided))[3] == base + 200
    finally:
        set_eval_weights(start)
    assert eval_weights() == start
    with pytest.raises(ValueError):
        set_eval_weights(start[:-1])
    with pytest.raises(ValueError):
        set_eval_weights([(40000, 0)] + start[1:])


def test_render_and_read_round_trip(tmp_path) -> None:
    pairs = [(i % 97 - 48, -(i % 13)) for i in range(weights.size())]
    path = tmp_path / "w.pxi"
    weights.write_pxi(path, pairs, ["a test"])
    assert weights.read_pxi(path) == pairs
    text = path.read_text()
    assert f"N_EVAL_PARAMS = {weights.size()}" in text
    assert "P_SAFE_CHECK = " in text
    with pytest.raises(ValueError):
        weights.render_pxi(pairs[:-1], [])


def test_rows_are_quiet_positions_after_the_skip(fixtures) -> None:
    moves = fixture_games(fixtures)[0]
    coef, phase, scale, stm, ply = texel_rows(chess.STARTING_FEN, moves, 1, 10, 5)
    assert len(coef) > 0 and ply.min() >= 10
    board = chess.Board()
    for i, uci in enumerate(moves):
        if i in set(ply.tolist()):
            assert not board.is_check()
        board.push_uci(uci)
    again = texel_rows(chess.STARTING_FEN, moves, 3, 10, 5)
    assert len(again[0]) < len(coef)
    assert (again[4] % 3 == again[4][0] % 3).all()
    with pytest.raises(ValueError):
        texel_rows(chess.STARTING_FEN, ["e2e4", "e2e4"], 1, 0, 1)


def test_twic_is_never_tuned_on(tmp_path) -> None:
    twic = tmp_path / "twic_2022.pgn"
    twic.write_text("")
    with pytest.raises(ValueError):
        build(tmp_path, tmp_path / "rows.npz", 10, files=[twic])


def test_tuning_lowers_the_error_and_is_reproducible(fixtures, tmp_path) -> None:
    rows_path = tmp_path / "rows.npz"
    summary = build(tmp_path, rows_path, None, every=1, seed=3, jobs=1,
                    files=[fixtures / "games" / "masters_sample.pgn"])
    assert summary["games"] >= 35 and summary["rows"] > 1000
    header, rows = load(rows_path)
    config = Config(epochs=3, batch=256, lr=2.0, lr_end=0.5, seed=4, val_fraction=0.1)
    first = train(rows, eval_weights(), config, log=lambda _: None)
    again = train(rows, eval_weights(), config, tmp_path / "ck.npz", log=lambda _: None)
    assert first["weights"] == again["weights"]
    history = first["history"]
    assert history[-1]["train"] < history[0]["train"]
    # The king's material never moves; weights no row counts stay as they were.
    start = eval_weights()
    assert first["weights"][5] == start[5]
    pawn_rank_8 = weights.offsets()["PSQ"] + 56
    assert first["weights"][pawn_rank_8] == start[pawn_rank_8]
    # Resuming after the last epoch changes nothing.
    resumed = train(rows, eval_weights(), config, tmp_path / "ck.npz", resume=True, log=lambda _: None)
    assert resumed["weights"] == first["weights"]


def test_the_tuners_evaluation_is_the_engines() -> None:
    """Tempo included, White's view: what the search would see, sign aside."""
    searcher = Searcher(1)
    for fen in ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 3",
                "8/5pk1/6p1/3R4/5P2/6PK/r7/8 w - - 0 40"):
        board = Board(fen)
        coef, phase, scale, _ = eval_coefficients(board)
        ours = evaluate(coef[None], np.array([phase]), np.array([scale]),
                        np.array([0 if board.turn == "w" else 1]), np.array(eval_weights(), np.float64))[0]
        engine = searcher.evaluate(board)
        assert abs(ours - (engine if board.turn == "w" else -engine)) <= 2


def test_rows_of_another_layout_are_refused(tmp_path, fixtures) -> None:
    rows_path = tmp_path / "rows.npz"
    build(tmp_path, rows_path, None, every=4, seed=1, jobs=1, files=[fixtures / "games" / "masters_sample.pgn"])
    with np.load(rows_path) as f:
        arrays = {k: f[k] for k in f.files}
    import json
    header = json.loads(str(arrays["header"]))
    header["layout"][0][1] += 1
    arrays["header"] = np.array(json.dumps(header))
    np.savez(rows_path, **arrays)
    with pytest.raises(ValueError, match="layout"):
        load(rows_path)


def test_rows_files_are_read_as_one_with_their_games_apart(tmp_path, fixtures) -> None:
    """The master games' rows and the engine's own: one validation split by game over both."""
    games = fixtures / "games" / "masters_sample.pgn"
    build(tmp_path, tmp_path / "a.npz", None, every=4, seed=1, jobs=1, files=[games])
    build(tmp_path, tmp_path / "b.npz", None, every=3, seed=2, jobs=1, files=[games])
    (ha, a), (hb, b) = load(tmp_path / "a.npz"), load(tmp_path / "b.npz")
    header, rows = load_many([tmp_path / "a.npz", tmp_path / "b.npz"])
    assert len(rows["result"]) == header["rows"] == ha["rows"] + hb["rows"]
    assert header["games"] == ha["games"] + hb["games"]
    first, second = rows["game"][:ha["rows"]], rows["game"][ha["rows"]:]
    assert set(first) == set(a["game"]) and not set(first) & set(second)
    assert len(np.unique(rows["game"])) == len(np.unique(a["game"])) + len(np.unique(b["game"]))
    np.testing.assert_array_equal(rows["coef"][ha["rows"]:], b["coef"])
    train_rows, val_rows = split(rows, 0.2, seed=1)
    assert not set(rows["game"][train_rows]) & set(rows["game"][val_rows])
    _, weighted = load_many([tmp_path / "a.npz", tmp_path / "b.npz"], [1, 3])
    assert len(weighted["result"]) == ha["rows"] + 3 * hb["rows"]
    np.testing.assert_array_equal(weighted["coef"][-hb["rows"]:], b["coef"])
    assert set(weighted["game"][ha["rows"]:]) == set(second)     # the same games, three times over
    train_rows, val_rows = split(weighted, 0.2, seed=1)
    assert not set(weighted["game"][train_rows]) & set(weighted["game"][val_rows])


def test_train_texel_takes_weighted_rows_files_and_refuses_bad_ones(tmp_path, fixtures) -> None:
    """``--rows FILE@N`` from the command line: the weight reaches the report,
    and a missing file or a weight that is no whole number is a clear error."""
    import json

    from click.testing import CliRunner

    from engine.cli import main
    games = fixtures / "games" / "masters_sample.pgn"
    build(tmp_path, tmp_path / "a.npz", None, every=4, seed=1, jobs=1, files=[games])
    out, report = tmp_path / "w.pxi", tmp_path / "r.json"
    base = ["train", "texel", "--epochs", "1", "--batch", "64", "--out", str(out), "--report", str(report),
            "--checkpoint", str(tmp_path / "c.npz"), "--rows", str(tmp_path / "a.npz")]
    result = CliRunner().invoke(main, base + ["--rows", f"{tmp_path / 'a.npz'}@3"])
    assert result.exit_code == 0, result.output
    record = json.loads(report.read_text())
    assert record["data"]["weight"] == [1, 3] and record["train_rows"] + record["validation_rows"] == 4 * \
        load(tmp_path / "a.npz")[0]["rows"]
    assert "a.npz@3" in out.read_text()
    for bad, says in ((f"{tmp_path / 'a.npz'}@0", "whole number"), (f"{tmp_path / 'none.npz'}", "no rows file")):
        result = CliRunner().invoke(main, base + ["--rows", bad])
        assert result.exit_code != 0 and says in result.output
