"""nmm-chess train nnue: the TD(lambda) targets, the inputs decoded from the
self-play records, the compiled loop's gradient, training, resuming, and the
exported file (engine/train/nnue.py, ext/nnue_trainer.h)."""
import json
import math

import chess
import numpy as np
import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.data import selfplay as sp
from engine.data import selfplay_games as gen
from engine.evaluation.nnue import active_features, bucket, load_nnue
from engine.train import _nnue_trainer
from engine.train import nnue

OPENINGS = [
    "rn1qkbnr/ppp1pppp/8/3p1b2/2P5/1P6/P2PPPPP/RNBQKBNR w KQkq - 0 3",
    "rnbqkbnr/1p1ppppp/p1p5/8/8/4PQ2/PPPP1PPP/RNB1KBNR w KQkq - 0 3",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
]


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """A self-play folder: 6 games at 300 nodes a move, two a batch. The
    games are the engine's defaults': when those change, so do they, and the
    held-back validation game may be one the random plies decided at once
    (nothing to learn: seed 7's was, once CorrectionHistory came on), which
    the baseline tests below catch."""
    folder = tmp_path_factory.mktemp("nnue_selfplay")
    openings = folder / "openings.epd"
    openings.write_text("".join(f"{fen}\n" for fen in OPENINGS))
    job = gen.make_job(openings, 300, None, 8, batch_games=2, random_plies=(2, 4), eval_file=None, adjudicate=True)
    out = folder / "games"
    gen.generate(openings, job, 6, out, workers=1, progress=False)
    return out


def all_records(folder):
    return np.concatenate([sp.read_batch(p, mmap=False)[1] for p in sp.batch_paths(folder)])


def quiet(message: str) -> None:
    pass


def small_config(**changes) -> nnue.Config:
    config = nnue.Config(lam=0.5, hidden=64, epochs=3, batch=128, lr=0.01, lr_end=0.001, seed=3, min_ply=4,
                         val_fraction=0.2)
    for name, value in changes.items():
        setattr(config, name, value)
    return config


# --- the targets ------------------------------------------------------------

def test_lambda_zero_is_the_search_score_and_lambda_one_the_alternating_result():
    rng = np.random.default_rng(5)
    lengths = np.array([5, 1, 8, 3])
    ends = np.cumsum(lengths)
    starts = ends - lengths
    score = rng.integers(-900, 900, ends[-1]).astype(np.int16)
    score[2] = 32000 - 3                                    # a mate for the mover: v = 1
    z = np.array([1.0, 0.5, 0.0, 1.0])
    v = nnue.search_values(score, 150.0)
    assert v[2] == 1.0
    assert np.array_equal(nnue.lambda_returns(v, starts, ends, z, 0.0), v)
    ones = nnue.lambda_returns(v, starts, ends, z, 1.0)
    for g in range(4):
        for t in range(starts[g], ends[g]):
            assert ones[t] == (z[g] if (ends[g] - t) % 2 == 0 else 1 - z[g])


def write_game(folder, scores, result_for_white, first_black=False):
    """One game of kings only (e1, e8), a record per score, written as a batch."""
    records = np.zeros(len(scores), sp.RECORD)
    records["occupancy"] = (1 << 4) | (1 << 60)
    records["pieces"][:, 0] = 5 | (11 << 4)
    records["score"] = scores
    black = (np.arange(len(scores)) + first_black) % 2
    records["ply"] = 20 + np.arange(len(scores)) + first_black
    records["flags"] = black | (result_for_white << sp.RESULT_SHIFT)
    records["flags"][0] |= sp.FIRST
    folder.mkdir()
    sp.write_batch(folder / "batch_000000.bin", {"evaluation": "test"}, records)


def test_a_three_position_game_by_hand(tmp_path):
    """Scores 100, -50, 200 (K 100), White to move first and White won: after
    the last record Black is to move, so z = 0. By hand:
    G2 = 0.5 s(2) + 0.5 (1 - 0), G1 = 0.5 s(-0.5) + 0.5 (1 - G2), G0 = 0.5 s(1) + 0.5 (1 - G1)."""
    write_game(tmp_path / "g", [100, -50, 200], 2)
    data = nnue.load([tmp_path / "g"], score_cap=2000, min_ply=0, log=quiet)
    s = lambda x: 1 / (1 + math.exp(-x))                     # noqa: E731
    g2 = 0.5 * s(2) + 0.5
    g1 = 0.5 * s(-0.5) + 0.5 * (1 - g2)
    g0 = 0.5 * s(1) + 0.5 * (1 - g1)
    assert (round(g2, 6), round(g1, 6), round(g0, 6)) == (0.940399, 0.218571, 0.756244)
    assert np.allclose(data.targets(0.5, 100.0), [g0, g1, g2], atol=1e-6)
    assert np.array_equal(data.results(), [1.0, 0.0, 1.0])


def test_on_real_games_the_ends_of_lambda_are_the_score_and_the_result(games):
    data = nnue.load([games], min_ply=0, log=quiet)
    assert np.array_equal(data.targets(1.0, 150.0), data.results())
    score = data.score[data.kept]
    assert np.allclose(data.targets(0.0, 150.0), 1 / (1 + np.exp(-score / 150.0)), atol=1e-6)
    half = data.targets(0.5, 150.0)
    assert 0 <= half.min() and half.max() <= 1


def test_the_filters_drop_checks_captures_big_scores_mates_and_the_opening(games):
    records = all_records(games)
    keep = nnue.keep_mask(records, 300, 12)
    assert keep.any() and not keep.all()
    kept = records[keep]
    assert not (kept["flags"] & (sp.CHECK | sp.NOISY)).any()
    assert np.abs(kept["score"].astype(int)).max() <= 300 and kept["ply"].min() >= 12
    mates = kept.copy()
    mates["score"] = np.where(np.arange(len(mates)) % 2, sp.MATE_SCORE - 5, 5 - sp.MATE_SCORE)
    assert nnue.keep_mask(kept, 300, 12).all() and not nnue.keep_mask(mates, 32000, 0).any()


def test_k_is_fitted_where_the_score_explains_the_result():
    rng = np.random.default_rng(2)
    score = rng.normal(0, 300, 40000)
    result = (rng.random(40000) < 1 / (1 + np.exp(-score / 170))).astype(float)
    assert abs(nnue.fit_k(score, result) - 170) < 15


# --- the inputs -------------------------------------------------------------

def test_the_decoded_inputs_are_the_specifications_for_both_views(games):
    records = all_records(games)
    white, stm, buckets = nnue.features(records)
    black = nnue.other_view(white)
    for i in range(0, len(records), 7):
        board = chess.Board(sp.decode(records[i]))
        pieces = [(0 if p.color == chess.WHITE else 1, p.piece_type - 1, sq) for sq, p in board.piece_map().items()]
        assert sorted(white[i][white[i] >= 0]) == active_features(pieces, 0)
        assert sorted(black[i][black[i] >= 0]) == active_features(pieces, 1)
        assert buckets[i] == bucket(len(pieces)) and stm[i] == (board.turn == chess.BLACK)



def test_mirrored_inputs_are_those_of_the_board_mirrored_a_to_h(games):
    records = all_records(games)
    white, _, _ = nnue.features(records)
    flipped = nnue.mirrored(white)
    black = nnue.other_view(flipped)
    for i in range(0, len(records), 11):
        board = chess.Board(sp.decode(records[i])).transform(chess.flip_horizontal)
        pieces = [(0 if p.color == chess.WHITE else 1, p.piece_type - 1, sq) for sq, p in board.piece_map().items()]
        assert sorted(flipped[i][flipped[i] >= 0]) == active_features(pieces, 0)
        assert sorted(black[i][black[i] >= 0]) == active_features(pieces, 1)


def test_the_baselines_include_the_handwritten_evaluation_on_the_same_positions(games, tmp_path):
    summary = nnue.train([games], tmp_path / "m.npz", small_config(epochs=1, mirror=True), log=quiet)
    base = summary["baseline"]
    # the static evaluation predicts the lambda-targets (mostly the search's scores) worse than the search does
    assert 0 < base["targets"] < base["handwritten_targets"] < 0.25
    plain = nnue.train([games], tmp_path / "p.npz", small_config(epochs=1), log=quiet)
    assert summary["train_positions"] == 2 * plain["train_positions"]
    assert summary["validation_positions"] == plain["validation_positions"]      # only real positions
    assert load_nnue(tmp_path / "m.npz").info["mirror"] is True


# --- the loop ---------------------------------------------------------------

def tiny_net(rng, hidden=16):
    return [(rng.normal(0, 0.15, (768, hidden))).astype(np.float32), rng.normal(0.3, 0.2, hidden).astype(np.float32),
            rng.normal(0, 0.5, (8, 2 * hidden)).astype(np.float32), rng.normal(0, 0.1, 8).astype(np.float32)]


def test_the_compiled_gradient_is_the_finite_difference_one(games):
    data = nnue.load([games], min_ply=0, log=quiet)
    rng = np.random.default_rng(11)
    pick = rng.choice(len(data.kept), 40, replace=False)
    feats, stm, buckets = data.feats[pick], data.stm[pick], data.bucket[pick]
    men = (feats >= 0).sum(axis=1)
    target = rng.random(40).astype(np.float32)
    params = tiny_net(rng)
    y = _nnue_trainer.forward(*params, feats, stm, buckets)
    exact = [nnue.float_output(params, feats[i], int(stm[i]), int(men[i])) for i in range(40)]
    assert np.allclose(y, exact, atol=1e-5)
    loss, grads = _nnue_trainer.loss_and_gradient(*params, feats, stm, buckets, target)

    def loss64(p):
        y = np.array([nnue.float_output(p, feats[i], int(stm[i]), int(men[i])) for i in range(40)])
        return float(np.mean((1 / (1 + np.exp(-y)) - target) ** 2))
    assert loss == pytest.approx(loss64(params), rel=1e-5)
    active = np.unique(np.concatenate([feats[feats >= 0], nnue.other_view(feats)[feats >= 0]]))
    coords = ([(0, (int(rng.choice(active)), int(rng.integers(16)))) for _ in range(12)]
              + [(1, (int(rng.integers(16)),)) for _ in range(6)]
              + [(2, (int(rng.choice(buckets)), int(rng.integers(32)))) for _ in range(8)]
              + [(3, (int(rng.choice(buckets)),)) for _ in range(3)])
    checked = 0
    for a, index in coords:
        up = [p.astype(np.float64) for p in params]
        down = [p.astype(np.float64) for p in params]
        up[a][index] += 1e-4
        down[a][index] -= 1e-4
        numeric = (loss64(up) - loss64(down)) / 2e-4
        assert grads[a][index] == pytest.approx(numeric, rel=2e-3, abs=1e-7), (a, index)
        checked += numeric != 0
    assert checked >= 20


def test_training_lowers_the_loss_and_the_file_scores_as_the_float_net(games, tmp_path):
    out = tmp_path / "net.npz"
    summary = nnue.train([games], out, small_config(epochs=4), log=quiet)
    history = summary["history"]
    assert history[-1]["train"] < history[0]["train"]
    data = nnue.load([games], min_ply=4, log=quiet)
    train, _ = nnue.split(data, 0.2, 3)
    target = data.targets(0.5, summary["k"])[train]

    def loss(params):
        return nnue.mse(nnue.sigmoid(nnue.forward(params, data.feats[train], data.stm[train], data.bucket[train])),
                        target)
    assert loss(summary["params"]) < 0.5 * loss(nnue.init_params(64, np.random.default_rng(3)))
    for name in ("ft_weight", "ft_bias", "out_weight"):
        assert np.abs(summary["params"][nnue.PARAMS.index(name)]).max() <= nnue.CLIP

    net = load_nnue(out)
    assert net.hidden == 64 and net.scale == summary["scale"]
    fit = net.info["scale_calibration"]
    assert net.scale == (summary["k"] * fit["factor"] if fit["used"] else summary["k"])
    info = net.info
    assert info["lambda"] == 0.5 and info["epochs"] == 4 and info["seed"] == 3 and len(info["validation_loss"]) == 4
    assert info["data"][0]["games"] == 6 and info["data"][0]["evaluations"][0].startswith("handwritten:")
    assert info["filters"]["min_ply"] == 4 and info["positions_per_second"] > 0 and "commit" in info
    assert out.with_suffix(".curve.png").stat().st_size > 0
    assert json.loads(out.with_suffix(".json").read_text())["fingerprint"] == net.fingerprint()

    records = all_records(games)
    feats, stm, buckets = nnue.features(records)
    y = nnue.forward(summary["params"], feats, stm, buckets)
    errors = []                 # the rounding to QA and QB steps: about 0.01 of a logistic unit, a few cp
    for i in range(0, len(records), 2):
        pieces = [(code // 6, code % 6, sq) for sq, code in sp.pieces_of(records[i])]
        errors.append(abs(net.centipawns(pieces, int(stm[i])) - y[i] * net.scale))
    assert np.mean(errors) < 3 and max(errors) < 15, (np.mean(errors), max(errors))


def test_a_resumed_run_ends_with_the_same_weights_bit_for_bit(games, tmp_path):
    whole = nnue.train([games], tmp_path / "a.npz", small_config(), log=quiet)
    first = nnue.train([games], tmp_path / "b.npz", small_config(), log=quiet, stop_after=1)
    assert first["epochs_done"] == 1 and not (tmp_path / "b.npz").exists()
    lines = []
    rest = nnue.train([games], tmp_path / "b.npz", small_config(), resume=True, log=lines.append)
    assert any("resumed" in line for line in lines)
    for a, b in zip(whole["params"], rest["params"]):
        assert a.tobytes() == b.tobytes()
    assert [h["validation"] for h in whole["history"]] == [h["validation"] for h in rest["history"]]
    assert load_nnue(tmp_path / "a.npz").fingerprint() == load_nnue(tmp_path / "b.npz").fingerprint()
    with pytest.raises(ValueError, match="other settings"):
        nnue.train([games], tmp_path / "b.npz", small_config(lam=0.7), resume=True, log=quiet)


def test_the_cli_trains_and_benches(games, tmp_path):
    out = tmp_path / "cli.npz"
    args = ["train", "nnue", "--data", str(games), "--out", str(out), "--hidden", "64", "--epochs", "1",
            "--batch", "256", "--min-ply", "4", "--val-fraction", "0.2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "baseline" in result.output and "epoch 1/1: train" in result.output and "positions/s" in result.output
    assert load_nnue(out).info["command"].startswith("nmm-chess train nnue")
    bench = CliRunner().invoke(main, ["train", "nnue", "--bench", "--data", str(games), "--hidden", "128"])
    assert bench.exit_code == 0 and "positions/s" in bench.output, bench.output
    missing = CliRunner().invoke(main, ["train", "nnue", "--data", str(tmp_path / "none"), "--out", str(out)])
    assert missing.exit_code != 0 and "no self-play batches" in missing.output


def test_the_scaling_study_judges_every_size_on_the_same_validation_games(games, tmp_path):
    from engine.study.nnue_scaling import report, scaling
    config = small_config(epochs=1)
    rows = scaling([games], [60, 0], config, tmp_path, log=quiet)
    assert rows[0]["positions"] == 60 < rows[1]["positions"]
    assert rows[0]["handwritten"] == rows[1]["handwritten"] > 0
    assert all(r["ratio"] == r["validation"] / r["handwritten"] for r in rows)
    assert sum(line.startswith("| 60 |") for line in report(rows, config, "cmd")) == 1


def test_every_keeps_the_same_games_and_fewer_of_their_positions(games, tmp_path):
    full = nnue.train([games], tmp_path / "all.npz", small_config(epochs=1), log=quiet)
    half = nnue.train([games], tmp_path / "half.npz", small_config(epochs=1, every=2), log=quiet)
    data = nnue.load([games], min_ply=4, log=quiet)
    train, _ = nnue.split(data, 0.2, 3)
    even = int((data.rows["ply"][train] % 2 == 0).sum())
    assert half["train_positions"] == even and 0 < even < full["train_positions"] == len(train)
    assert half["validation_positions"] == full["validation_positions"]


def test_the_cores_record_evaluation_is_the_boards(games):
    from engine._core import Board, Searcher, evaluate_records
    records = all_records(games)
    searcher = Searcher(hash_mb=1)
    fast = evaluate_records(searcher, records)
    assert fast.dtype == np.int32 and len(fast) == len(records) > 100
    assert fast.tolist() == [searcher.evaluate(Board(sp.decode(r))) for r in records]
    assert len(set(fast.tolist())) > 50            # scores of many positions, not one repeated
    with pytest.raises(ValueError, match="RECORD"):
        evaluate_records(searcher, np.zeros(3, np.int64))
    kingless = records[:1].copy()
    kingless["occupancy"] = 1                       # one man, a white pawn on a1: no kings
    kingless["pieces"] = 0
    with pytest.raises(ValueError, match="one king a side"):
        evaluate_records(searcher, kingless)


def test_the_teacher_blends_training_targets_only(games, tmp_path):
    target = np.array([0.1, 0.5, 0.9, 0.3], np.float32)
    teacher = np.array([0.9, 0.5, 0.1, 0.7], np.float32)
    blended = nnue.with_teacher(target, teacher, 0.25, np.array([0, 2]))
    assert blended.tolist() == pytest.approx([0.3, 0.5, 0.7, 0.3])
    plain = nnue.train([games], tmp_path / "p.npz", small_config(epochs=1), log=quiet)
    taught = nnue.train([games], tmp_path / "t.npz", small_config(epochs=1, teacher=1.0), log=quiet)
    assert taught["baseline"] == plain["baseline"]          # validation: the same lambda-targets
    assert taught["history"][0]["train"] != plain["history"][0]["train"]
    assert load_nnue(tmp_path / "t.npz").info["teacher"] == 1.0
    # a net as the teacher (a later generation's): other targets, the same validation
    by_net = nnue.train([games], tmp_path / "n.npz", small_config(epochs=1, teacher=1.0,
                                                                   teacher_eval=str(tmp_path / "p.npz")), log=quiet)
    assert by_net["baseline"] == plain["baseline"] and by_net["history"][0]["train"] != taught["history"][0]["train"]
    assert load_nnue(tmp_path / "n.npz").info["teacher_eval"] == str(tmp_path / "p.npz")
    # with the teacher alone, the net learns the handwritten evaluation: the loss against it falls
    longer = nnue.train([games], tmp_path / "t4.npz", small_config(epochs=4, teacher=1.0), log=quiet)
    assert longer["history"][-1]["train"] < longer["history"][0]["train"]


def test_the_calibrated_scale_puts_the_net_on_the_handwritten_evaluations_scale(games, tmp_path):
    summary = nnue.train([games], tmp_path / "c.npz", small_config(epochs=3), log=quiet)
    data = nnue.load([games], min_ply=4, log=quiet)
    _, val = nnue.split(data, 0.2, 3)
    hand = nnue.handwritten_scores(data.rows[val])
    scale, fit = nnue.calibrated_scale(summary["params"], data, val, summary["k"], hand)
    y = nnue.forward(summary["params"], data.feats[val], data.stm[val], data.bucket[val]).astype(np.float64)
    searched = data.score[data.kept[val]].astype(np.float64)
    # the search's score regressed on the net's centipawns has the handwritten evaluation's slope
    assert np.polyfit(y * summary["k"] * fit["factor"], searched, 1)[0] == pytest.approx(fit["slope_handwritten"],
                                                                                       rel=1e-3)
    assert fit["slope_handwritten"] == pytest.approx(np.polyfit(hand, searched, 1)[0], rel=1e-3)
    assert scale == (summary["k"] * fit["factor"] if 0.5 <= fit["factor"] <= 2 else summary["k"])
    plain = nnue.train([games], tmp_path / "n.npz", small_config(epochs=1, calibrate=False), log=quiet)
    assert load_nnue(tmp_path / "n.npz").scale == plain["k"]


def test_a_next_generation_starts_from_its_predecessors_weights(games, tmp_path):
    first = nnue.train([games], tmp_path / "g1.npz", small_config(epochs=2), log=quiet)
    start = nnue.initial_params(tmp_path / "g1.npz", 64)
    # the quantisation undone: quantised again, the same file's net
    assert nnue.quantise(*start, scale=first["scale"]).fingerprint() == load_nnue(tmp_path / "g1.npz").fingerprint()
    for trained, loaded, step in zip(first["params"], start, (nnue.QA, nnue.QA, nnue.QB, nnue.QA * nnue.QB)):
        assert np.abs(trained - loaded).max() <= 0.5 / step + 1e-6      # within half a quantisation step
    lines = []
    tuned = nnue.train([games], tmp_path / "g2.npz", small_config(epochs=1, lr=1e-4, lr_end=1e-4,
                                                                  init=str(tmp_path / "g1.npz")), log=lines.append)
    fresh = nnue.train([games], tmp_path / "r.npz", small_config(epochs=1, lr=1e-4, lr_end=1e-4), log=quiet)
    assert any("starting from the weights" in line for line in lines)
    # one epoch at a small step: where the predecessor ended, below a random start on the same games
    assert tuned["history"][0]["validation"] == pytest.approx(first["history"][-1]["validation"], rel=0.05)
    assert tuned["history"][0]["train"] < fresh["history"][0]["train"]
    assert load_nnue(tmp_path / "g2.npz").info["init"]["sha256"] == load_nnue(tmp_path / "g1.npz").fingerprint()
    with pytest.raises(ValueError, match="hidden units"):
        nnue.train([games], tmp_path / "x.npz", small_config(hidden=128, init=str(tmp_path / "g1.npz")), log=quiet)
