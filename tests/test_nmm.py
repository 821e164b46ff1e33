"""The Neural MoveMap: encodings, weight files, Cython against numpy, training, search."""
from pathlib import Path

import numpy as np
import pytest

from engine._core import Board, LabSearcher, Searcher, quantise_rows
from engine.data.nmm import game_patterns
from engine.data.patterns import PatternSet
from engine.data.pgn import parse_game, split_games
from engine.nets import NetError, NmmNet, load_nmm, save_nmm
from engine.train.nmm_encoding import ENCODINGS, N_OUTPUTS, OUTPUT_INDEX, encode_inputs, encode_outputs
from engine.train.nmm import LinearMoveMap, TrainConfig, encode, evaluate, train

FIXTURES = Path(__file__).parent / "fixtures"
SQ = {f"{f}{r}": "abcdefgh".index(f) + 8 * (r - 1) for f in "abcdefgh" for r in range(1, 9)}


GAMES = [parsed[1] for text in split_games((FIXTURES / "games" / "masters_sample.pgn").read_text())
         if (parsed := parse_game(text))]


@pytest.fixture(scope="module")
def patterns() -> PatternSet:
    """Middle-game patterns of the 39 master games of the fixture sample."""
    return PatternSet.concat([game_patterns(moves, i, 0) for i, moves in enumerate(GAMES)])


def board_of(patterns: PatternSet, i: int) -> Board:
    """Position i with its game's moves played (the context encoding needs the last move)."""
    board = Board()
    for move in GAMES[patterns.game[i]][:patterns.ply[i]]:
        board.push(move)
    assert board.zobrist() == patterns.key[i]
    return board


def random_net(encoding: str, seed: int = 0) -> NmmNet:
    rng = np.random.default_rng(seed)
    n = ENCODINGS[encoding]
    return NmmNet(encoding, rng.standard_normal((N_OUTPUTS, n)).astype(np.float32),
                  rng.standard_normal(N_OUTPUTS).astype(np.float32), {"suggested_hhweight": 300.0})


def test_output_table() -> None:
    assert (OUTPUT_INDEX >= 0).sum() == N_OUTPUTS == 1792
    assert OUTPUT_INDEX[SQ["e2"], SQ["e4"]] >= 0
    assert OUTPUT_INDEX[SQ["a1"], SQ["h8"]] >= 0          # the long diagonal
    assert OUTPUT_INDEX[SQ["g1"], SQ["f3"]] >= 0          # a knight's move
    assert OUTPUT_INDEX[SQ["a1"], SQ["b4"]] == -1         # nothing moves like that
    assert OUTPUT_INDEX[SQ["e4"], SQ["e4"]] == -1


def test_hand_checked_encodings() -> None:
    start = dict(Board().nmm_inputs("paper385"))
    assert len(start) == 33
    assert start[SQ["a2"] * 6 + 0] == 1.0                 # White pawn on a2
    assert start[SQ["e8"] * 6 + 5] == -1.0                # Black king on e8
    assert start[384] == 1.0                              # White to move
    board = Board()
    board.push("e2e4")
    mirrored = dict(board.nmm_inputs("mirrored768"))
    assert mirrored[0 * 384 + 5 * 64 + SQ["e1"]] == 1.0   # Black's own king, seen from e1
    assert mirrored[1 * 384 + 0 * 64 + SQ["e5"]] == 1.0   # White's e4 pawn, seen on e5
    planes = dict(board.nmm_inputs("planes769"))
    assert planes[0 * 384 + 0 * 64 + SQ["e4"]] == 1.0 and planes[768] == -1.0
    # Black's e7e5 is White's e2e4 in the mirrored encoding.
    white = dict(Board().nmm_outputs("mirrored768"))["e2e4"]
    assert dict(board.nmm_outputs("mirrored768"))["e7e5"] == white


def test_context_planes() -> None:
    # After 1.e4 d5 the d5 pawn attacks e4 and c4, and nothing of White's
    # defends e4: the e4 pawn hangs. The last move went to d5.
    board = Board()
    for move in ["e2e4", "d7d5"]:
        board.push(move)
    inputs = dict(board.nmm_inputs("context960"))
    assert {768 + SQ["e4"], 768 + SQ["c4"], 832 + SQ["e4"], 896 + SQ["d5"]} <= set(inputs)
    assert 832 + SQ["d2"] not in inputs
    # A knight attacked by the queen: hanging on b3, defended by the king on d2.
    hanging = dict(Board("4k3/8/8/3q4/8/1N6/8/4K3 w - - 0 1").nmm_inputs("context960"))
    assert 832 + SQ["b3"] in hanging
    defended = dict(Board("4k3/8/8/3q4/8/8/3N4/4K3 w - - 0 1").nmm_inputs("context960"))
    assert 768 + SQ["d2"] in defended and 832 + SQ["d2"] not in defended
    # For Black the planes are flipped like the pieces: e4 is seen as e5.
    board.push("e4d5")
    black = dict(board.nmm_inputs("context960"))
    assert 896 + (SQ["d5"] ^ 56) in black


def test_castling_and_promotion_outputs() -> None:
    board = Board("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1")
    outs = dict(board.nmm_outputs("paper385"))
    assert outs["e1g1"] == OUTPUT_INDEX[SQ["e1"], SQ["g1"]]
    assert outs["b7b8q"] == outs["b7b8n"] == OUTPUT_INDEX[SQ["b7"], SQ["b8"]]


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_numpy_encoding_matches_cython(patterns: PatternSet, encoding: str) -> None:
    subset = patterns.take(np.arange(0, len(patterns), 37))
    inputs, values = encode_inputs(subset, encoding)
    outputs = encode_outputs(subset, encoding)
    for i in range(len(subset)):
        board = board_of(subset, i)
        mine = sorted((int(a), float(v)) for a, v in zip(inputs[i], values[i]) if v != 0)
        assert mine == sorted(board.nmm_inputs(encoding))
        expected = {move: out for move, out in board.nmm_outputs(encoding)}
        got = outputs[subset.offsets[i]:subset.offsets[i + 1]]
        assert sorted(got.tolist()) == sorted(expected.values())


@pytest.mark.parametrize("encoding", sorted(ENCODINGS))
def test_cython_scores_equal_numpy_forward(patterns: PatternSet, encoding: str) -> None:
    net = random_net(encoding)
    searcher = Searcher(1)
    searcher.set_nmm(net.encoding, net.weights, net.bias)
    # The search keeps 8-bit weights with a scale per output: within half a step
    # of the file's, and numpy's forward pass with them is what it must compute.
    q, scale = quantise_rows(net.weights)
    searched = q.astype(np.float32) * scale[:, None]
    assert np.all(np.abs(searched - net.weights) <= scale[:, None] * 0.5 + 1e-6)
    model = LinearMoveMap(ENCODINGS[encoding])
    model.params["W"] = np.concatenate([searched, np.zeros((N_OUTPUTS, 1), np.float32)], 1)
    model.params["b"] = net.bias
    subset = patterns.take(np.arange(0, len(patterns), 53))
    data = encode(subset, encoding)
    scores, _ = model.forward(data)
    for i in range(len(subset)):
        board = board_of(subset, i)
        cython = dict(searcher.nmm_scores(board))
        outs = dict(board.nmm_outputs(encoding))
        numpy_by_out = dict(zip(data.pair_out[data.offsets[i]:data.offsets[i + 1]].tolist(),
                                scores[data.offsets[i]:data.offsets[i + 1]].tolist()))
        for move, score in cython.items():
            assert score == pytest.approx(numpy_by_out[outs[move]], rel=1e-4, abs=1e-3)


@pytest.mark.parametrize("loss, optimiser", [("softmax", "adam"), ("mse", "rprop")])
def test_tiny_training_lowers_validation_error(patterns: PatternSet, loss: str, optimiser: str) -> None:
    learn = encode(patterns.take(np.arange(0, 600)), "context960")
    val = encode(patterns.take(np.arange(600, 800)), "context960")
    untrained = LinearMoveMap(960)
    before = float((evaluate(untrained, val) > 0).mean())
    config = TrainConfig(loss=loss, optimiser=optimiser, epochs=12, patience=12, batch=64,
                         lr=0.01, seed=3)
    result = train(learn, val, config, log=lambda s: None)
    after = float((evaluate(result.model, val) > 0).mean())
    assert before == 1.0
    assert after < 0.97
    assert result.history[-1]["loss"] < result.history[0]["loss"]


def test_weight_file_round_trip_and_rejections(tmp_path: Path) -> None:
    net = random_net("mirrored768")
    good = tmp_path / "good.npz"
    save_nmm(net, good)
    loaded = load_nmm(good)
    assert loaded.encoding == "mirrored768" and loaded.suggested_hhweight == 300.0
    assert np.array_equal(loaded.weights, net.weights)

    with pytest.raises(NetError, match="no weight file"):
        load_nmm(tmp_path / "missing.npz")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"PK\x03\x04 this is not a zip file at all")
    with pytest.raises(NetError, match="not a readable"):
        load_nmm(corrupt)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:1000])
    with pytest.raises(NetError):
        load_nmm(truncated)
    wrong_shape = NmmNet("paper385", net.weights, net.bias)     # 768 columns, 385 expected
    with pytest.raises(NetError):
        save_nmm(wrong_shape, tmp_path / "shape.npz")
        load_nmm(tmp_path / "shape.npz")
    nan = NmmNet("mirrored768", net.weights.copy(), net.bias)
    nan.weights[5, 5] = np.nan
    save_nmm(nan, tmp_path / "nan.npz")
    with pytest.raises(NetError, match="finite"):
        load_nmm(tmp_path / "nan.npz")
    np.savez(tmp_path / "plain.npz", weights=net.weights, bias=net.bias)
    with pytest.raises(NetError, match="no header"):
        load_nmm(tmp_path / "plain.npz")


PLAIN = {"null_move": False, "lmr": False, "futility": False, "tt_cutoffs": False}
ORDERINGS = [{"ordering": "history"}, {"ordering": "nmm"}, {"ordering": "straight"},
             {"ordering": "weighted"}, {"ordering": "weighted", "adaptive": True}]


def test_every_ordering_gives_the_same_score_in_plain_alpha_beta(patterns: PatternSet) -> None:
    net = random_net("mirrored768", seed=7)
    fens = [patterns.fen(i) for i in range(0, len(patterns), max(1, len(patterns) // 30))]
    scores = []
    for config in ORDERINGS:
        searcher = Searcher(4)
        searcher.set_nmm(net.encoding, net.weights, net.bias)
        searcher.configure(nmm_min_depth=0, hhweight=300.0, **PLAIN, **config)
        row = []
        for fen in fens:
            searcher.clear()
            row.append(searcher.search(Board(fen), depth=4)["score"])
        scores.append(row)
    assert len(fens) >= 24
    for row in scores[1:]:
        assert row == scores[0]


def test_orderings_change_the_tree(patterns: PatternSet) -> None:
    """The same scores, but not the same work: the modes really differ."""
    net = random_net("mirrored768", seed=7)
    nodes = []
    for config in ORDERINGS[:2]:
        searcher = Searcher(4)
        searcher.set_nmm(net.encoding, net.weights, net.bias)
        searcher.configure(nmm_min_depth=0, **PLAIN, **config)
        nodes.append(searcher.search(Board(patterns.fen(100)), depth=5)["nodes"])
    assert nodes[0] != nodes[1]


def test_adaptive_weight_moves(patterns: PatternSet) -> None:
    net = random_net("mirrored768", seed=7)
    searcher = LabSearcher(4)           # the lab's face: misses, history_weight
    searcher.set_nmm(net.encoding, net.weights, net.bias)
    searcher.configure(ordering="weighted", adaptive=True, hhweight=300.0, nmm_min_depth=0)
    searcher.search(Board(patterns.fen(50)), depth=8)
    nn_misses, hh_misses = searcher.misses
    assert nn_misses + hh_misses > 0
    assert searcher.history_weight == pytest.approx(300.0 + 0.1 * nn_misses - 0.1 * hh_misses)


@pytest.mark.parametrize("make", [lambda: LinearMoveMap(768), lambda: LinearMoveMap(768, "from+to"),
                                  lambda: __import__("engine.train.nmm", fromlist=["x"]).HiddenMoveMap(768, 8, 2)],
                         ids=["linear", "from+to", "hidden"])
def test_gradients_match_finite_differences(patterns: PatternSet, make) -> None:
    from engine.train.nmm import loss_and_grad
    data = encode(patterns.take(np.arange(12)), "mirrored768")
    model = make()
    rng = np.random.default_rng(4)
    for key in model.params:
        model.params[key] = (rng.standard_normal(model.params[key].shape) * 0.1)
    pad = "W1" if "W1" in model.params else "W"
    if pad == "W1":
        model.params["W1"][-1] = 0.0
    else:
        model.params["W"][:, -1] = 0.0

    def loss() -> float:
        return loss_and_grad(model.forward(data)[0].astype(np.float64), data, "softmax")[0]
    scores, cache = model.forward(data)
    grads = model.backward(loss_and_grad(scores.astype(np.float64), data, "softmax")[1], cache)
    active = int(data.inputs[0, 0])
    checks = {"b": [(int(data.pair_out[2]),)], "W": [(int(data.pair_out[2]), active)],
              "W1": [(active, 3)], "W2": [(int(data.pair_out[2]), 1)], "b1": [(2,)], "b2": [(int(data.pair_out[2]),)]}
    for key, places in checks.items():
        if key not in model.params:
            continue
        if model.params[key].shape[0] == 128 and key in ("W", "b"):     # from+to: rows are squares
            places = [(int(data.pair_from[2]),) + place[1:] for place in places]
        for place in places:
            model.params[key][place] += 1e-3
            up = loss()
            model.params[key][place] -= 2e-3
            down = loss()
            model.params[key][place] += 1e-3
            assert grads[key][place] == pytest.approx((up - down) / 2e-3, rel=0.05, abs=1e-3)


def test_the_ordering_summary_takes_times_of_zero() -> None:
    """On a fast machine every search of a tiny study can take 0 ms: the
    summary divided by that sum (issue 8, item 12). Its ratios are NaN now."""
    import math

    from engine.study.ordering import Task, summarise
    results = [(Task("A30", mode, {}, [], 4, ""), {4: [nodes, 0.0]})
               for mode, nodes in (("history", 100.0), ("nmm", 80.0))]
    rows, overhead = summarise(results, 4)
    assert [r["node_ratio"] for r in rows] == [1.0, 0.8]
    assert all(math.isnan(r["time_ratio"]) for r in rows)
    assert math.isnan(overhead[1]["time_per_node_ratio"]) and overhead[1]["node_ratio"] == 0.8


def test_ordering_study_writes_ratios_against_history(patterns: PatternSet, tmp_path: Path) -> None:
    import csv

    from engine.study.ordering import MODES, TEST_SETS, hhweight_sweep, ordering_study
    for name in TEST_SETS:
        patterns.save(tmp_path / f"test_{name}.npz")
    net_path = tmp_path / "net.npz"
    save_nmm(random_net("mirrored768"), net_path)
    rows = ordering_study(tmp_path, net_path, tmp_path, 3, 4, 1, 1, 1, suffix="_tiny")
    assert {(r["set"], r["mode"]) for r in rows if r["depth"] == 4} == {
        (s, m) for s in TEST_SETS for m in MODES}
    assert all(r["node_ratio"] == 1.0 for r in rows if r["mode"] == "history")
    assert any(r["node_ratio"] != 1.0 for r in rows if r["mode"] == "nmm")
    with open(tmp_path / "ordering_tiny.csv") as f:
        assert len(list(csv.DictReader(f))) == len(rows)
    assert (tmp_path / "ordering_tiny.png").stat().st_size > 0
    sweep = hhweight_sweep(tmp_path, net_path, tmp_path, 3, 4, 1, 1, [0.01, 100.0], 1)
    assert {r["hhweight"] for r in sweep} == {0.01, 100.0}
    assert (tmp_path / "hhweight.csv").exists() and (tmp_path / "hhweight.png").exists()


def test_a_step_size_decayed_to_zero_stops_learning_after_the_first_epoch(patterns: PatternSet) -> None:
    learn = encode(patterns.take(np.arange(0, 300)), "context960")
    val = encode(patterns.take(np.arange(600, 700)), "context960")
    one = train(learn, val, TrainConfig(epochs=1, batch=64, lr=0.01, seed=3), log=lambda s: None)
    frozen = train(learn, val, TrainConfig(epochs=3, patience=3, batch=64, lr=0.01, lr_decay=0.0, seed=3),
                   log=lambda s: None)
    assert [h["val_top1"] for h in frozen.history] == [one.history[0]["val_top1"]] * 3
    assert all(np.array_equal(one.model.params[k], frozen.model.params[k]) for k in one.model.params)
