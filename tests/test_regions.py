"""The regions net of the ChessMaps order (ext/regions.pxi,
engine/train/regions.py): its inputs, its output in the core against numpy,
training, files, and the engine with it."""
import random

import chess
import numpy as np
import pytest

from engine._core import Board, LabSearcher, Searcher
from engine.bench import POSITIONS
from engine.nets import DEFAULT_TD, NetError
from engine.train.regions import INPUTS, RegionsNet, acted_on, load, run, save
from tests.uci_client import RESEARCH, Engine, errors_in


def random_positions(n: int, seed: int = 3) -> list[str]:
    rng, found = random.Random(seed), []
    while len(found) < n:
        board = chess.Board()
        for _ in range(rng.randrange(4, 70)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        if not board.is_game_over():
            found.append(board.fen())
    return found


def test_inputs_are_control_and_pieces_from_the_side_to_move():
    for fen in random_positions(60):
        board, reference = Board(fen), chess.Board(fen)
        us = 1 if reference.turn == chess.WHITE else -1
        rel = (lambda sq: sq) if reference.turn == chess.WHITE else chess.square_mirror
        control = board.square_control()
        expected = {rel(sq) for sq in range(64) if control[sq] == us}
        expected |= {64 + rel(sq) for sq in range(64) if control[sq] == -us}
        for sq, piece in reference.piece_map().items():
            side = 0 if piece.color == reference.turn else 6
            expected.add(128 + (side + piece.piece_type - 1) * 64 + rel(sq))
        assert board.region_inputs() == sorted(expected), fen


def test_the_cores_weights_are_the_nets_output():
    rng = np.random.default_rng(4)
    weights = rng.normal(0, 0.3, (INPUTS, 64)).astype(np.float32)
    bias = rng.normal(0, 0.5, 64).astype(np.float32)
    searcher = LabSearcher(hash_mb=1)       # the lab's face: region_weights
    searcher.set_regions(weights, bias)
    for fen in random_positions(40, seed=5):
        board = Board(fen)
        z = bias + weights[board.region_inputs()].sum(0)
        expected = np.floor(8 / (1 + np.exp(-z.astype(np.float64))) + 0.5).astype(int)
        if board.turn == "b":
            expected = expected.reshape(8, 8)[::-1].reshape(64)     # back to a1..h8
        got = np.array(searcher.region_weights(board))
        assert np.abs(got - expected).max() <= 1 and (got == expected).mean() > 0.95
    assert searcher.region_weights(Board(), net=False) == LabSearcher(hash_mb=1).region_weights(Board())
    with pytest.raises(ValueError):
        searcher.set_regions(weights[:10], bias)


def test_targets_are_the_squares_a_move_acts_on():
    board = chess.Board()
    target = acted_on(board, chess.Move.from_uci("g1f3"))
    assert set(np.nonzero(target)[0]) == {chess.F3, chess.D4, chess.E5, chess.G5, chess.H4, chess.H2,
                                          chess.G1, chess.E1, chess.D2}
    board.push_uci("e2e4")
    mirrored = acted_on(board, chess.Move.from_uci("g8f6"))      # Black's knight, seen from Black
    assert (mirrored == target).all()


def test_training_beats_the_base_rate_and_files_are_checked(fixtures, tmp_path):
    out = tmp_path / "regions.npz"
    net = run([fixtures / "games" / "masters_sample.pgn"], 32, out, val_games=8, epochs=2, log=lambda *_: None)
    assert net.info["validation_loss"] < net.info["validation_loss_base_rate"]
    assert set(net.info["held_back"]) == {"net", "hand"}
    again = load(out)
    assert (again.weights == net.weights).all()
    save(RegionsNet(net.weights[:100], net.bias), tmp_path / "small.npz")
    with pytest.raises(NetError, match="regions net is"):
        load(tmp_path / "small.npz")
    (tmp_path / "junk.npz").write_bytes(b"\x00" * 100)
    with pytest.raises(NetError):
        load(tmp_path / "junk.npz")
    with pytest.raises(NetError, match="not a regions net"):
        load(DEFAULT_TD)
    with pytest.raises(ValueError, match="TWIC"):
        run([tmp_path / "twic_1427-1428_2022.pgn"], 10, out)


def test_the_chessmaps_order_with_the_net_searches_differently_and_legally():
    rng = np.random.default_rng(6)
    weights = rng.normal(0, 0.3, (INPUTS, 64)).astype(np.float32)
    counts = {}
    for regions_net in (False, True):
        searcher = Searcher(hash_mb=4)
        searcher.set_regions(weights, np.zeros(64, np.float32))
        searcher.configure(ordering="chessmaps", nmm_min_depth=0, regions_net=regions_net)
        counts[regions_net] = 0
        for fen in POSITIONS[:5]:
            result = searcher.search(Board(fen), depth=7)
            assert chess.Move.from_uci(result["bestmove"]) in chess.Board(fen).legal_moves
            counts[regions_net] += result["nodes"]
    assert counts[False] != counts[True]


def test_uci_options(tmp_path):
    engine = Engine(RESEARCH)
    engine.send("uci")
    lines = engine.read_until("uciok")[1]
    assert "option name ChessMapsRegions type combo default hand var hand var net" in lines
    engine.send("setoption name MoveOrdering value chessmaps",
                f"setoption name RegionsFile value {tmp_path / 'none.npz'}",
                "setoption name ChessMapsRegions value net", "isready")
    lines = engine.read_until("readyok")[1]
    assert any("RegionsFile" in line and "hand rule" in line for line in lines)
    engine.send("position startpos", "go depth 7")
    lines = engine.read_until("bestmove")[1]
    assert not errors_in(lines)
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
    assert engine.quit() == 0
