"""The Neural MoveMap with a hidden layer: the core against numpy, the
incremental first-layer sums against sums from scratch, the weight file."""
from pathlib import Path

import numpy as np
import pytest

from engine._core import Board, Searcher
from engine.data.nmm import game_patterns
from engine.data.patterns import PatternSet
from engine.nets import NetError, NmmNet, load_nmm, save_nmm
from engine.train.nmm_encoding import ENCODINGS, N_OUTPUTS
from engine.train.nmm import HiddenMoveMap, encode
from tests.test_nmm import GAMES, board_of

HIDDEN = 24


@pytest.fixture(scope="module")
def patterns() -> PatternSet:
    return PatternSet.concat([game_patterns(moves, i, 0) for i, moves in enumerate(GAMES)])


def hidden_net(encoding: str = "context960", seed: int = 3) -> NmmNet:
    rng = np.random.default_rng(seed)
    n = ENCODINGS[encoding]
    return NmmNet(encoding, rng.standard_normal((N_OUTPUTS, HIDDEN)).astype(np.float32),
                  rng.standard_normal(N_OUTPUTS).astype(np.float32), {"suggested_hhweight": 0.01},
                  (rng.standard_normal((n, HIDDEN)) * 0.3).astype(np.float32),
                  rng.standard_normal(HIDDEN).astype(np.float32))


def numpy_model(net: NmmNet) -> HiddenMoveMap:
    model = HiddenMoveMap(net.w1.shape[0], HIDDEN)
    model.params = {"W1": np.concatenate([net.w1, np.zeros((1, HIDDEN), np.float32)]), "b1": net.b1,
                    "W2": net.weights, "b2": net.bias}
    return model


@pytest.mark.parametrize("encoding", ["mirrored768", "context960"])
def test_core_scores_equal_numpy_forward(patterns: PatternSet, encoding: str) -> None:
    net = hidden_net(encoding)
    searcher = Searcher(1)
    net.install(searcher)
    subset = patterns.take(np.arange(0, len(patterns), 41))
    data = encode(subset, encoding)
    scores, _ = numpy_model(net).forward(data)
    for i in range(len(subset)):
        board = board_of(subset, i)
        outs = dict(board.nmm_outputs(encoding))
        numpy_by_out = dict(zip(data.pair_out[data.offsets[i]:data.offsets[i + 1]].tolist(),
                                scores[data.offsets[i]:data.offsets[i + 1]].tolist()))
        for move, score in searcher.nmm_scores(board):
            assert score == pytest.approx(numpy_by_out[outs[move]], rel=1e-4, abs=1e-4)


def test_incremental_sums_equal_sums_from_scratch(patterns: PatternSet) -> None:
    """One accumulator carried through a game's positions (a few inputs change
    each time, and every 64 updates it starts over) scores as a fresh one does."""
    net = hidden_net()
    searcher = Searcher(1)
    net.install(searcher)
    for i in range(0, 300):
        board = board_of(patterns, i)
        carried = dict(searcher.nmm_scores(board, incremental=True))
        for move, score in searcher.nmm_scores(board):
            assert carried[move] == pytest.approx(score, rel=1e-4, abs=1e-4)


def test_a_search_with_the_hidden_net_is_reproducible_after_clear(patterns: PatternSet) -> None:
    net = hidden_net()
    fresh, used = Searcher(4), Searcher(4)
    for s in (fresh, used):
        net.install(s)
        s.configure(ordering="nmm", nmm_min_depth=1)
    used.search(Board(patterns.fen(7)), depth=7)
    used.clear()
    a = fresh.search(Board(patterns.fen(120)), depth=8)
    b = used.search(Board(patterns.fen(120)), depth=8)
    assert a["nodes"] == b["nodes"] and a["bestmove"] == b["bestmove"]
    history = Searcher(4)
    assert history.search(Board(patterns.fen(120)), depth=8)["nodes"] != a["nodes"]


def test_hidden_weight_file_round_trip_and_rejections(tmp_path: Path) -> None:
    net = hidden_net()
    save_nmm(net, tmp_path / "h.npz")
    loaded = load_nmm(tmp_path / "h.npz")
    assert loaded.hidden == HIDDEN and np.array_equal(loaded.w1, net.w1) and np.array_equal(loaded.weights, net.weights)
    bad = NmmNet("context960", net.weights, net.bias, {}, net.w1[:, :5], net.b1)     # 5 columns, 24 biases
    save_nmm(bad, tmp_path / "bad.npz")
    with pytest.raises(NetError, match="hidden layer"):
        load_nmm(tmp_path / "bad.npz")
    rng = np.random.default_rng(0)
    paper = NmmNet("paper385", net.weights, net.bias, {}, rng.standard_normal((385, HIDDEN)).astype(np.float32),
                   net.b1)
    save_nmm(paper, tmp_path / "paper.npz")
    with pytest.raises(NetError, match="binary encoding"):
        load_nmm(tmp_path / "paper.npz")
    with pytest.raises(ValueError):
        Searcher(1).set_nmm_hidden("paper385", paper.w1, paper.b1, paper.weights, paper.bias)


@pytest.mark.parametrize("name, hidden", [("nmm_cutoffs.npz", 0), ("nmm_cutoffs_h32.npz", 32)])
def test_the_shipped_cut_off_nets_load_and_order(name: str, hidden: int) -> None:
    net = load_nmm(Path(__file__).resolve().parent.parent / "nets" / name)
    assert net.hidden == hidden and net.encoding == "context960"
    assert net.info["training"]["learning_set"].endswith(".npz")      # trained on a cut-off set
    fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 9"
    ordered, plain = Searcher(4), Searcher(4)
    net.install(ordered)
    ordered.configure(ordering="weighted", hhweight=net.suggested_hhweight, nmm_min_depth=2)
    a, b = ordered.search(Board(fen), depth=8), plain.search(Board(fen), depth=8)
    assert a["bestmove"] in Board(fen).legal_moves() and a["nodes"] != b["nodes"]
