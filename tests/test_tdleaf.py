"""TDLeaf(lambda): leaves of principal variations, the net's round trip into
training form, and short runs on master games and in self-play."""
from pathlib import Path

import numpy as np
import pytest

from engine._core import Board, Searcher
from engine.data import td as td_data
from engine.nets import TdNet, load_td
from engine.train import td_run, tdleaf
from engine.train.td_run import TdConfig
from engine.train.tdleaf import LeafBlock, TdLeafConfig, leaf_row

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_the_leaf_is_where_the_principal_variation_ends():
    # White takes the queen on d5: the leaf is Black to move, a rook down and nothing else.
    board = Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    (dense, active, stm, phase, fullmove, trusted, hand, home), found = leaf_row(Searcher(hash_mb=1), board, 1, "C")
    assert found["bestmove"] == "d2d5" and found["line"]["pv"][0] == "d2d5"
    ours, theirs = dense[:5], dense[30:35]          # Q R B N P of the leaf's side to move, then the other's
    assert stm == 1 and list(ours) == [0, 0, 0, 0, 0] and list(theirs) == [0, 1, 0, 0, 0]
    assert trusted and fullmove == 1 and len([a for a in active if a >= 0]) == 3
    assert home == 2                            # the kings on e1 and e8
    assert hand < -300                          # Black's view: a rook down


def test_a_mate_score_is_not_learnt_and_a_finished_game_is_its_own_leaf():
    searcher = Searcher(hash_mb=1)
    row, found = leaf_row(searcher, Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), 2, "B")
    assert found["mate"] == 1 and not row[5]
    mated = Board("R5k1/5ppp/8/8/8/8/8/6K1 b - - 1 1")
    row, found = leaf_row(searcher, mated, 2, "B")
    assert found is None and not row[5]          # in check: not quiet, not learnt


def test_unfold_inverts_the_folded_normalisation():
    rng = np.random.default_rng(3)
    mlps = [td_run.Mlp.create(62 + 224, 8, seed, scale=1.0) for seed in range(3)]
    mean, std = rng.normal(size=62).astype(np.float32), rng.uniform(0.5, 3, 62).astype(np.float32)
    net = TdNet.from_training(mlps, mean, std, "B", 300.0, {})
    for before, after in zip(mlps, tdleaf.unfold(net, mean, std)):
        assert np.allclose(before.w1, after.w1, atol=1e-5) and np.allclose(before.b1, after.b1, atol=1e-4)
        assert np.allclose(before.w2, after.w2) and np.allclose(before.b2, after.b2)


def test_a_self_play_game_ends_with_a_result_and_one_row_per_position():
    block = LeafBlock()
    result = tdleaf.play_game(Searcher(hash_mb=1), "6k1/8/8/8/8/8/1Q6/6K1 w - - 0 1", 2, "B", block)
    assert result == 1.0 and 2 <= len(block) <= tdleaf.ADJUDICATE_PLIES + 2


@pytest.fixture(scope="module")
def start_net(tmp_path_factory):
    """A small database-trained net and its data file, as ``train td`` makes them."""
    folder = tmp_path_factory.mktemp("tdleaf")
    games = folder / "games.npz"
    td_data.build(Path("."), games, None, seed=1, jobs=1, val_games=4, files=[FIXTURES / "games" /
                                                                           "masters_sample.pgn"])
    config = TdConfig(squares="B", nets=3, hidden=8, epochs=1, games_per_step=4, init_steps=20)
    td_run.train(games, folder / "start.npz", folder / "start.work", config, log=lambda *a: None)
    return folder / "start.npz", games


def run(start_net, out: Path, source: str, openings: Path | None = None):
    start, games = start_net
    config = TdLeafConfig(source=source, depth=1, games=8, games_per_step=4, anchor=16)
    return tdleaf.train(start, games, FIXTURES, out, out.with_suffix(".work"), config, openings,
                        log=lambda *a: None)


def test_tdleaf_on_master_games_writes_a_net_that_plays(start_net, tmp_path):
    summary = run(start_net, tmp_path / "leaf.npz", "games")
    net, before = load_td(tmp_path / "leaf.npz"), load_td(start_net[0])
    assert net.info["trained"] == "tdleaf" and net.cp_scale == before.cp_scale
    assert not np.allclose(net.w1, before.w1)                  # it learnt
    assert summary["history"][-1]["step"] == 2 and summary["leaves_learnt_this_run"] > 100
    assert (tmp_path / "leaf.curve.png").stat().st_size > 1000
    searcher = Searcher(hash_mb=1)
    searcher.set_td(net.squares, net.w1, net.b1, net.w2, net.b2, net.cp_scale)
    assert searcher.search(Board(), depth=3)["bestmove"] in Board().legal_moves()


def test_the_validation_games_are_not_replayed(start_net):
    header, _ = td_data.load(start_net[1])
    texts = td_data.shuffled_texts([FIXTURES / "games" / name for name in header["files"]], header["seed"])
    first = [g for g in map(td_data.usable, texts) if g][:header["validation_games"]]
    replayed = [moves for moves, _ in tdleaf.master_games(FIXTURES, header)]
    assert replayed and not any(moves in replayed for moves, _ in first)


def test_self_play_run_resumes_to_the_same_net(start_net, tmp_path, monkeypatch):
    openings = tmp_path / "openings.epd"
    openings.write_text("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n"
                        "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq -\n")
    whole = run(start_net, tmp_path / "whole.npz", "selfplay", openings)
    assert sum(whole["results_this_run"].values()) == 8
    real_step, calls = tdleaf.Trainer.step, {"n": 0}

    def dying_step(self, *args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_step(self, *args)
    monkeypatch.setattr(tdleaf.Trainer, "step", dying_step)
    with pytest.raises(KeyboardInterrupt):
        run(start_net, tmp_path / "killed.npz", "selfplay", openings)
    monkeypatch.setattr(tdleaf.Trainer, "step", real_step)
    run(start_net, tmp_path / "killed.npz", "selfplay", openings)
    a, b = load_td(tmp_path / "whole.npz"), load_td(tmp_path / "killed.npz")
    assert np.allclose(a.w1, b.w1, atol=1e-6) and np.allclose(a.w2, b.w2, atol=1e-6)
