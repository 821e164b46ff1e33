"""Cut-off sets (the picker's own decisions as training data) and the net's
say in reductions and pruning (NMMReductions, NMMPruning)."""
from pathlib import Path

import chess
import numpy as np
import pytest

from engine._core import Board, LabSearcher, Searcher
from engine.bench import POSITIONS
from engine.data import cutoffs as co
from engine.nets import load_nmm
from engine.train.nmm import TrainConfig, encode, loss_and_grad
from engine.train.nmm_run import run

NET = Path(__file__).resolve().parent.parent / "nets" / "nmm.npz"


def quiet_pairs(fen: str) -> set[tuple[int, int]]:
    board = chess.Board(fen)
    return {(m.from_square, m.to_square) for m in board.legal_moves
            if not board.is_capture(m) and not m.promotion}


@pytest.fixture(scope="module")
def recorded() -> dict:
    searcher = LabSearcher(16)
    searcher.record_cutoffs(100_000, min_depth=3)
    searcher.search(Board(POSITIONS[1]), depth=9)
    return searcher.take_cutoffs()


def test_each_record_is_a_node_with_all_its_quiet_moves(recorded) -> None:
    n = len(recorded["key"])
    assert n > 20 and recorded["dropped"] == 0
    assert recorded["depth"].min() >= 3
    patterns, _, _ = co.to_patterns(recorded, np.arange(n), np.zeros(n))
    for i in range(0, n, 7):
        fen = patterns.fen(i)
        quiets = patterns.legal[patterns.offsets[i]:patterns.offsets[i + 1], :2]
        assert {(int(a), int(b)) for a, b in quiets} == quiet_pairs(fen)
        assert 0 <= patterns.played[i] < len(quiets)
        assert recorded["tried"][i] < len(quiets)
        assert Board(fen).zobrist() == patterns.key[i]


def test_recording_does_not_change_the_search() -> None:
    plain, recording = Searcher(16), LabSearcher(16)
    recording.record_cutoffs(10)                      # a small log: most cut-offs are dropped
    for fen in POSITIONS[:4]:
        a = plain.search(Board(fen), depth=8)
        b = recording.search(Board(fen), depth=8)
        assert (a["nodes"], a["bestmove"], a["score"]) == (b["nodes"], b["bestmove"], b["score"])
    taken = recording.take_cutoffs()
    assert len(taken["key"]) == 10 and taken["dropped"] > 0
    assert len(recording.take_cutoffs()["key"]) == 0  # taking empties the log
    recording.stop_recording()
    with pytest.raises(RuntimeError):
        recording.take_cutoffs()


def test_the_deepest_record_of_a_position_is_kept() -> None:
    c = {"key": np.array([5, 3, 5, 5, 3], np.uint64), "depth": np.array([2, 4, 6, 6, 3], np.uint8)}
    assert co.deepest_per_key(c).tolist() == [1, 3]
    none = {"key": np.zeros(0, np.uint64), "depth": np.zeros(0, np.uint8)}
    assert co.deepest_per_key(none).tolist() == []


def test_collect_writes_a_set_that_resumes_and_trains(tmp_path: Path) -> None:
    out = tmp_path / "cut.npz"
    samples, ran = co.collect(POSITIONS[:6], out, depth=7, batch=2, workers=2, progress=False)
    assert ran == 3 and samples > 50
    patterns, depth, tried = co.load_cutoffs(out)
    assert len(np.unique(patterns.key)) == len(patterns) == samples
    assert set(np.unique(patterns.game)) <= set(range(6)) and depth.min() >= 2
    (tmp_path / "cut.npz.work" / "batch_000001.npz").unlink()
    assert co.collect(POSITIONS[:6], out, depth=7, batch=2, workers=1, progress=False) == (samples, 1)
    config = TrainConfig(epochs=2, patience=2, batch=64, lr=0.01)
    info = run(tmp_path, str(out), tmp_path / "net.npz", config, None, log=lambda *a: None)
    assert info["training"]["weighting"] == "depth" and info["accuracy"]["validation"]["positions"] > 0
    assert load_nmm(tmp_path / "net.npz").info["training"]["learning_set"] == str(out)


def test_equal_weights_train_like_no_weights(recorded) -> None:
    n = len(recorded["key"])
    patterns, depth, _ = co.to_patterns(recorded, np.arange(n), np.zeros(n))
    plain = encode(patterns, "context960")
    weighted = encode(patterns, "context960", np.full(n, 3.0))
    scores = np.random.default_rng(1).standard_normal(len(plain.pair_pos)).astype(np.float32)
    for loss in ("softmax", "mse"):
        (a, ga), (b, gb) = loss_and_grad(scores, plain, loss), loss_and_grad(scores, weighted, loss)
        assert a == pytest.approx(b, rel=1e-5) and np.allclose(ga, gb, atol=1e-6)
    deep = encode(patterns, "context960", depth.astype(np.float32))
    assert loss_and_grad(scores, deep, "softmax")[0] != pytest.approx(loss_and_grad(scores, plain, "softmax")[0])


def nodes_with(**options) -> int:
    net = load_nmm(NET)
    searcher = Searcher(16)
    searcher.set_nmm(net.encoding, net.weights, net.bias)
    searcher.configure(nmm_min_depth=2, **options)
    return sum(searcher.search(Board(fen), depth=8)["nodes"] for fen in POSITIONS[:3])


@pytest.mark.parametrize("option", ["nmm_reductions", "nmm_pruning"])
def test_the_net_steers_reductions_and_pruning_only_when_asked(option: str) -> None:
    base = nodes_with()
    assert nodes_with(**{option: True}) != base
    # Thresholds no probability reaches (liked above 1, disliked below 0): no change.
    assert nodes_with(**{option: True, "nmm_prob_high": 1.0, "nmm_prob_low": 0.0}) == base


def test_steering_finds_the_mates_at_their_distance() -> None:
    from tests.test_search import MATES
    net = load_nmm(NET)
    searcher = Searcher(16)
    searcher.set_nmm(net.encoding, net.weights, net.bias)
    searcher.configure(nmm_reductions=True, nmm_pruning=True, nmm_min_depth=1, nmm_prob_high=0.05,
                       nmm_prob_low=0.2)       # every quiet move liked or disliked: the most steering
    for fen, n in MATES:
        searcher.clear()
        assert searcher.search(Board(fen), depth=2 * n + 4)["mate"] == n, fen


def test_castling_is_a_quiet_move() -> None:
    """Castling (the king "takes" its own rook in the core's encoding) is
    among the quiet moves a node ranks, not among the captures."""
    fen = "r3k2r/p1pp1pb1/Bn3np1/4q3/1p2P3/2N2Q1p/PPPB1PPP/R3K2R w KQkq - 0 1"
    searcher = LabSearcher(16)
    searcher.record_cutoffs(100_000, min_depth=1)
    searcher.search(Board(fen), depth=7)
    recorded = searcher.take_cutoffs()
    n = len(recorded["key"])
    patterns, _, _ = co.to_patterns(recorded, np.arange(n), np.zeros(n))
    castling_nodes = 0
    for i in range(n):
        quiets = {(int(a), int(b)) for a, b in patterns.legal[patterns.offsets[i]:patterns.offsets[i + 1], :2]}
        assert quiets == quiet_pairs(patterns.fen(i))
        castling_nodes += (chess.E1, chess.G1) in quiets
    assert castling_nodes > 0
