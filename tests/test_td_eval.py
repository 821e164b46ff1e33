"""The TD evaluation end to end: data from games, training that resumes,
the net file checked on load, the core's output equal to numpy's, and the
UCI options that switch it on."""
import json
import random
from pathlib import Path

import chess
import numpy as np
import pytest

from engine._core import Board, Searcher
from engine.data import td as td_data
from engine.nets import NetError, TdNet, load_td, save_td
from engine.train import td_run
from engine.train.td_run import TdConfig, rule_weights
from tests.uci_client import Engine, errors_in


def random_net(squares: str, nets: int, hidden: int, seed: int = 1, phase: str = "move") -> TdNet:
    rng = np.random.default_rng(seed)
    inputs = 62 + {"A": 0, "B": 224, "C": 736}[squares]
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32) * 0.05  # noqa: E731
    return TdNet(squares, f(nets, inputs, hidden), f(nets, hidden), f(nets, hidden if hidden else inputs),
                 f(nets), 250.0, {"feature_mean": [0.0] * 62}, False, phase)


def game_positions(count: int, seed: int = 5) -> list[chess.Board]:
    rng, out = random.Random(seed), []
    while len(out) < count:
        board = chess.Board()
        while not board.is_game_over() and board.ply() < 140 and len(out) < count:
            board.push(rng.choice(list(board.legal_moves)))
            out.append(board.copy(stack=False))
    return out


@pytest.mark.parametrize("squares,nets,hidden,phase", [("A", 1, 0, "move"), ("B", 3, 8, "move"),
                                                       ("C", 3, 16, "development"), ("B", 1, 40, "development"),
                                                       ("B", 3, 8, "development")])
def test_core_output_equals_numpy(squares, nets, hidden, phase):
    net = random_net(squares, nets, hidden, phase=phase)
    searcher = Searcher(hash_mb=1)
    net.install(searcher)
    for board in game_positions(300):
        core = Board(board.fen())
        values, active = core.td_features(squares)
        weights = rule_weights(phase, np.array([core.phase]), nets, np.array([core.home]),
                               np.array([board.fullmove_number]))[0]
        expected = net.evaluate(np.array(values, np.float32), active, weights)
        assert abs(searcher.td_output(core) - expected) < 1e-4
        cp = searcher.evaluate(core)
        assert abs(cp - 2 * 250 * np.arctanh(np.clip(expected, -0.9999, 0.9999))) <= 1.5


@pytest.mark.parametrize("squares,hidden", [("A", 16), ("B", 16), ("C", 16), ("C", 40), ("B", 80)])
def test_incremental_sums_equal_a_fresh_sum(squares, hidden):
    """The accumulators, brought from position to position by the pieces that
    differ (captures, promotions, castling, en passant, jumps between games)
    and the dense features whose value moved, give the output that summing
    every input gives, whichever phase nets are blended; a new net resets them."""
    searcher, rng, checked = Searcher(hash_mb=1), random.Random(9), 0
    for seed in (1, 2):
        net = random_net(squares, 3, hidden, seed)
        searcher.set_td(net.squares, net.w1, net.b1, net.w2, net.b2, net.cp_scale)
        for _ in range(12):
            board = Board()
            while board.outcome() is None and board.ply < 160:
                assert abs(searcher.td_output(board, incremental=True) - searcher.td_output(board)) < 1e-4
                board.push(rng.choice(board.legal_moves()))
                checked += 1
    assert checked > 1500


def test_a_net_on_handwritten_adds_its_correction_to_the_handwritten_score():
    plain = Searcher(hash_mb=1)
    net = random_net("B", 3, 8)
    net.on_handwritten = True
    searcher = Searcher(hash_mb=1)
    net.install(searcher)
    zero = random_net("B", 3, 8)
    zero.w2[...] = 0
    zero.b2[...] = 0
    zero.on_handwritten = True
    on_zero = Searcher(hash_mb=1)
    zero.install(on_zero)
    for board in game_positions(200, seed=7):
        core = Board(board.fen())
        hand = plain.evaluate(core)
        assert on_zero.evaluate(core) == hand
        assert abs(searcher.evaluate(core) - (hand + 2 * net.cp_scale * searcher.td_output(core))) <= 1


def test_a_zero_correction_searches_exactly_as_handwritten():
    """A net on handwritten whose output is 0 is the handwritten evaluation:
    the same moves, scores and node counts, lazy stand-pat included."""
    from engine.bench import POSITIONS
    zero = random_net("C", 3, 8)
    zero.w2[...] = 0
    zero.b2[...] = 0
    zero.on_handwritten = True
    plain, on_zero = Searcher(hash_mb=4), Searcher(hash_mb=4)
    zero.install(on_zero)
    for fen in POSITIONS[:6]:
        plain.clear()
        on_zero.clear()
        a, b = plain.search(Board(fen), depth=6), on_zero.search(Board(fen), depth=6)
        assert (a["bestmove"], a["score"], a["nodes"]) == (b["bestmove"], b["score"], b["nodes"])


def test_phase_blend_of_core_and_trainer_agree():
    net = random_net("A", 3, 4)
    searcher = Searcher(hash_mb=1)
    searcher.set_td(net.squares, net.w1, net.b1, net.w2, net.b2, net.cp_scale)
    board = Board("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 30")         # phase 2: the end-game net alone
    values, _ = board.td_features("A")
    only_end = net.evaluate(np.array(values, np.float32), [], np.array([0, 0, 1.0]))
    assert abs(searcher.td_output(board) - only_end) < 1e-5


def test_home_count_by_hand_and_from_the_training_layout():
    """Board.home (the development clock) counted by hand, and equal to the
    trainer's count from set C's active inputs, with either side to move."""
    assert Board().home == 32
    assert Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").home == 31
    assert Board("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 6 5").home == 23
    assert Board("4k3/8/8/8/8/8/8/3K4 w - - 0 1").home == 1
    assert Board("RNBQKBNR/8/8/8/8/8/8/rnbqkbnr w - - 0 1").home == 0      # every man on the wrong side
    boards = [Board(b.fen()) for b in game_positions(400, seed=8)]
    active = np.full((len(boards), 32), -1, np.int16)
    for i, board in enumerate(boards):
        found = board.td_features("C")[1]
        active[i, :len(found)] = found
    assert td_data.home_of_active(active).tolist() == [b.home for b in boards]


def test_files_are_checked(tmp_path):
    good = tmp_path / "good.npz"
    save_td(random_net("B", 3, 8), good)
    assert load_td(good).squares == "B" and load_td(good).phase == "move"
    older = tmp_path / "older.npz"         # files from before the development rule carry no "phase"
    with np.load(good) as f:
        arrays = {k: f[k] for k in f.files}
    header = json.loads(str(arrays.pop("header")))
    del header["phase"]
    np.savez(older, header=np.array(json.dumps(header)), **arrays)
    assert load_td(older).phase == "move"
    with pytest.raises(NetError, match="no weight file"):
        load_td(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(NetError, match="not a readable"):
        load_td(tmp_path / "junk.npz")
    with pytest.raises(NetError, match="not a TD evaluation"):
        load_td(Path(__file__).resolve().parent.parent / "nets" / "nmm.npz")

    def rewritten(name, change):
        with np.load(good) as f:
            arrays = {k: f[k] for k in f.files}
        header = json.loads(str(arrays.pop("header")))
        change(header, arrays)
        path = tmp_path / name
        np.savez(path, header=np.array(json.dumps(header)), **arrays)
        return path
    cases = {
        "layout": (lambda h, a: h.update(layout="thesis-appendix-b/0"), "trained on features"),
        "shape": (lambda h, a: a.update(w1=a["w1"][:, :-1]), "shape"),
        "nan": (lambda h, a: a["w2"].__setitem__((0, 0), np.nan), "not finite"),
        "scale": (lambda h, a: h.update(cp_scale=0), "cp_scale"),
        "encoding": (lambda h, a: h.update(encoding="td-Z"), "does not know"),
        "base": (lambda h, a: h.update(base="stockfish"), "base"),
        "phase": (lambda h, a: h.update(phase="moon"), "phase rule"),
    }
    for name, (change, message) in cases.items():
        with pytest.raises(NetError, match=message):
            load_td(rewritten(f"{name}.npz", change))


def test_folded_normalisation_matches_the_trained_model():
    rng = np.random.default_rng(3)
    mlps = [td_run.Mlp.create(62 + 224, 6, i, scale=1.0) for i in range(3)]
    mean, std = rng.random(62).astype(np.float32) * 5, rng.random(62).astype(np.float32) + 0.5
    net = TdNet.from_training(mlps, mean, std, "B", 300.0, {})
    dense = rng.random(62).astype(np.float32) * 10
    active = [3, 70, 130, 200]
    x = np.zeros(62 + 224, np.float32)
    x[:62] = (dense - mean) / std
    x[[62 + a for a in active]] = 1
    weights = np.array([0.25, 0.75, 0.0], np.float32)
    model = td_run.PhaseNets(mlps)
    assert abs(model((x[None], weights[None]))[0] - net.evaluate(dense, active, weights)) < 1e-4


@pytest.fixture(scope="module")
def games_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("td") / "games.npz"
    fixtures = Path(__file__).resolve().parent / "fixtures" / "games" / "masters_sample.pgn"
    summary = td_data.build(Path("."), path, None, seed=1, jobs=1, val_games=4, files=[fixtures])
    assert summary["games"] >= 30 and summary["validation_games"] == 4
    return path


def test_twic_is_refused(tmp_path):
    with pytest.raises(ValueError, match="TWIC"):
        td_data.build(Path("."), tmp_path / "x.npz", None, files=[Path("twic_1427-1428_2022.pgn.gz")])


def test_data_holds_every_position_and_result(games_file):
    header, a = td_data.load(games_file)
    assert len(a["offsets"]) == header["games"] + 1 and a["offsets"][-1] == len(a["dense"])
    assert set(np.unique(a["result"]).tolist()) <= {-1, 0, 1}
    starts = a["offsets"][:-1]
    assert (a["ply"][starts] == 0).all() and (a["dense"][starts, 60] == 78).all()   # full material
    b = td_data.to_set(a["active"][:1], "B")[0]
    assert sorted(int(i) for i in b if i >= 0) == Board().td_features("B")[1]


def run_training(games_file, out, **overrides):
    config = TdConfig(squares="B", nets=3, hidden=8, epochs=2, games_per_step=4, init_steps=20,
                      **overrides)
    return td_run.train(games_file, out, out.with_suffix(".work"), config, log=lambda *a: None)


def test_training_writes_a_net_the_engine_loads(games_file, tmp_path):
    summary = run_training(games_file, tmp_path / "td.npz")
    net = load_td(tmp_path / "td.npz")
    assert net.nets == 3 and net.hidden == 8 and net.squares == "B"
    assert 50 < net.cp_scale < 2000 and len(net.info["feature_mean"]) == 62
    assert (tmp_path / "td.curve.png").stat().st_size > 1000
    assert summary["history"][-1]["step"] == 2 * -(-(summary["train_games"]) // 4)
    searcher = Searcher(hash_mb=1)
    searcher.set_td(net.squares, net.w1, net.b1, net.w2, net.b2, net.cp_scale)
    result = searcher.search(Board(), depth=4)
    assert result["bestmove"] in Board().legal_moves()


def test_training_on_handwritten_starts_from_it_and_says_so_in_the_file(games_file, tmp_path):
    summary = run_training(games_file, tmp_path / "on.npz", base="handwritten")
    assert summary["history"][0]["val"] == pytest.approx(summary["validation_loss_handwritten"], abs=1e-4)
    net = load_td(tmp_path / "on.npz")
    assert net.on_handwritten and np.abs(net.w2).max() > 0           # it learnt a correction
    searcher = Searcher(hash_mb=1)
    net.install(searcher)
    assert searcher.search(Board(), depth=3)["bestmove"] in Board().legal_moves()


def test_a_correction_is_refused_on_other_handwritten_weights(games_file, tmp_path):
    """A net learnt on top of the handwritten evaluation carries the fingerprint
    of its weights; an engine that evaluates with other weights refuses it,
    and the trainer refuses data labelled by other weights."""
    from engine._core import eval_weights, set_eval_weights
    from engine.nets import handwritten_fingerprint
    net = random_net("B", 3, 8)
    net.on_handwritten = True
    with pytest.raises(ValueError, match="fingerprint"):
        save_td(net, tmp_path / "unstamped.npz")
    net.base_fingerprint = handwritten_fingerprint()
    save_td(net, tmp_path / "stamped.npz")
    assert load_td(tmp_path / "stamped.npz").base_fingerprint == handwritten_fingerprint()
    weights = eval_weights()
    try:
        set_eval_weights([(mg + 1, eg) for mg, eg in weights])      # the engine re-tuned
        with pytest.raises(NetError, match="corrects handwritten weights .* Retrain it"):
            load_td(tmp_path / "stamped.npz")
        with pytest.raises(ValueError, match="rebuild the data"):
            run_training(games_file, tmp_path / "on.npz", base="handwritten")
        run_training(games_file, tmp_path / "plain.npz")            # base none depends on no weights
    finally:
        set_eval_weights(weights)
    assert load_td(tmp_path / "stamped.npz").on_handwritten


def test_the_shipped_net_plays_from_the_start_or_is_refused():
    """nets/td.npz: either it loads (its base is this engine's weights) and its
    search from the start position opens with a sound move, or it is refused."""
    from engine.nets import DEFAULT_TD
    try:
        net = load_td(DEFAULT_TD)
    except NetError as e:
        assert "Retrain it" in str(e)
        return
    searcher = Searcher(hash_mb=8)
    net.install(searcher)
    result = searcher.search(Board(), depth=8)
    assert result["bestmove"] in {"e2e4", "d2d4", "g1f3", "c2c4", "e2e3", "b1c3", "g2g3", "d2d3", "c2c3"}
    assert abs(result["score"]) < 80


def test_a_killed_run_resumes_to_the_same_net(games_file, tmp_path, monkeypatch):
    run_training(games_file, tmp_path / "whole.npz")
    real_step, calls = td_run.td_step, {"n": 0}

    def dying_step(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 13:
            raise KeyboardInterrupt
        return real_step(*args, **kwargs)
    monkeypatch.setattr(td_run, "td_step", dying_step)
    with pytest.raises(KeyboardInterrupt):
        run_training(games_file, tmp_path / "killed.npz")
    assert (tmp_path / "killed.work" / "checkpoint.npz").exists()
    monkeypatch.setattr(td_run, "td_step", real_step)
    run_training(games_file, tmp_path / "killed.npz")
    whole, resumed = load_td(tmp_path / "whole.npz"), load_td(tmp_path / "killed.npz")
    assert np.allclose(whole.w1, resumed.w1, atol=1e-6) and np.allclose(whole.w2, resumed.w2, atol=1e-6)


def test_uci_eval_options(tmp_path):
    good = tmp_path / "td.npz"
    save_td(random_net("B", 3, 8), good)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(good.read_bytes()[:200])
    engine = Engine()

    def say(*lines: str, until: str = "readyok") -> list[str]:
        engine.send(*lines)
        return engine.read_until(until)[1]
    lines = say(f"setoption name EvalFile value {broken}", "setoption name Eval value td", "isready")
    assert any("EvalFile" in e and "handwritten" in e for e in errors_in(lines))
    assert any("end-game scale" in line for line in say("eval", "isready"))
    lines = say(f"setoption name EvalFile value {good}", "setoption name Eval value td", "isready")
    lines += say("eval", "isready")
    assert not errors_in(lines) and any(line.startswith("TD net: B features") for line in lines)
    move = say("position startpos moves e2e4", "go depth 5", until="bestmove")[-1].split()[1]
    after_e4 = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    assert chess.Move.from_uci(move) in after_e4.legal_moves
    lines = say("setoption name Eval value handwritten", "eval", "isready")
    assert any("end-game scale" in line for line in lines)
    assert engine.quit() == 0


def test_the_shipped_net_loads_and_plays():
    from engine.nets import DEFAULT_TD
    net = load_td(DEFAULT_TD)
    assert net.squares == "C" and net.nets == 3 and "material_check_cp" in net.info
    queen, _ = net.info["material_check_cp"]["queen"]
    assert queen > 500                          # it knows what a queen is worth at move 1
    engine = Engine()
    engine.send("setoption name Eval value td", "isready")
    lines = engine.read_until("readyok")[1]
    engine.send("position startpos", "go depth 6")
    lines += engine.read_until("bestmove")[1]
    assert not errors_in(lines)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    assert engine.quit() == 0


def test_a_search_after_clear_does_not_depend_on_what_came_before():
    """clear() (ucinewgame, each bench position) empties the net's cache and
    sums too: their float rounding depends on the path that built them, and
    a score one centipawn off changes a tree (here, one of the sixteen)."""
    from engine.bench import POSITIONS
    from engine.nets import DEFAULT_TD
    net = load_td(DEFAULT_TD)
    used = Searcher(hash_mb=16)
    net.install(used)
    for fen in POSITIONS[:16]:
        fresh = Searcher(hash_mb=16)
        net.install(fresh)
        used.clear()
        assert used.search(Board(fen), depth=10)["nodes"] == fresh.search(Board(fen), depth=10)["nodes"]
