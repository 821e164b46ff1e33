"""nmm-chess data selfplay: the engine's own games played in the core, stored
as 32-byte records in resumable, deterministic batch files."""
import doctest
import json
from pathlib import Path

import chess
import numpy as np
import pytest
from click.testing import CliRunner

from engine._core import SELFPLAY_ENDS, Board, Searcher, selfplay_game
from engine.cli import main
from engine.data import selfplay as sp
from engine.data import selfplay_games as gen
from engine.nets import TdNet, save_td

from conftest import RAY_HANG_GUARD

OPENINGS = [
    "rn1qkbnr/ppp1pppp/8/3p1b2/2P5/1P6/P2PPPPP/RNBQKBNR w KQkq - 0 3",
    "rnbqkbnr/1p1ppppp/p1p5/8/8/4PQ2/PPPP1PPP/RNB1KBNR w KQkq - 0 3",
    "rnbqkbnr/p2ppppp/8/1pp5/8/4P3/PPPPNPPP/RNBQKB1R w KQkq - 0 3",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
]
NODES = 300
RULE_ENDS = {"checkmate", "stalemate", "insufficient material", "fifty moves", "threefold repetition"}


def suite(folder: Path) -> Path:
    path = folder / "openings.epd"
    path.write_text("".join(f"{fen}\n" for fen in OPENINGS))
    return path


def job(openings: Path, seed: int = 1, nodes: int = NODES) -> gen.SelfplayJob:
    return gen.make_job(openings, nodes, None, seed, batch_games=2, random_plies=(4, 8), eval_file=None,
                        adjudicate=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("selfplay")
    openings = suite(folder)
    out = folder / "games"
    summary = gen.generate(openings, job(openings), 6, out, workers=1, progress=False)
    return openings, out, summary


def games_of(out: Path) -> list[tuple[dict, np.ndarray]]:
    """(game list entry, its records) of every game in the folder."""
    found = []
    for path in sp.batch_paths(out):
        header, records = sp.read_batch(path)
        found += list(zip(header["game_list"], sp.iter_games(records)))
    return found


def replay(records: np.ndarray) -> chess.Board:
    """python-chess's board after the game's last move, each record checked against it on the way."""
    board = chess.Board(sp.decode(records[0]))
    assert board.is_valid()
    for i, record in enumerate(records):
        assert board.fen(en_passant="legal").split()[:4] == sp.decode(record).split()[:4]
        assert board.fullmove_number == int(sp.decode(record).split()[5])
        move = chess.Move.from_uci(sp.move_uci(record))
        assert move in board.legal_moves
        flags = int(record["flags"])
        assert bool(flags & sp.BLACK) == (board.turn == chess.BLACK)
        assert bool(flags & sp.CHECK) == board.is_check()
        assert bool(flags & sp.NOISY) == (board.is_capture(move) or move.promotion is not None)
        assert bool(flags & sp.FIRST) == (i == 0)
        board.push(move)
    return board


def test_the_records_replay_as_legal_games_linked_by_their_moves(run):
    _, out, summary = run
    assert summary["batches"] == 3 and summary["played_now"] == 3 and summary["games"] == 6
    games = games_of(out)
    assert len(games) == 6 and sum(len(r) for _, r in games) == summary["positions"]
    for entry, records in games:
        assert len(records) == entry["records"] > 0
        replay(records)


def test_the_stored_result_is_the_rules_or_the_adjudication(run, tmp_path):
    _, out, _ = run
    games = games_of(out)
    # Games played out without adjudication, from endings too, so that the rules end some.
    searcher = Searcher(16)
    buffer = np.zeros((200, 32), np.uint8)
    for fen in ["8/8/8/4k3/8/8/8/4K2Q w - - 0 1", "8/8/4k3/8/2p5/8/3K4/8 w - - 0 1",
                "8/4k3/8/8/2B5/8/3K4/6n1 w - - 0 1", OPENINGS[0]]:
        searcher.clear()
        n, result, end, _ = selfplay_game(searcher, Board(fen), buffer, NODES, max_plies=200, adjudicate=False)
        records = buffer[:n].copy().view(sp.RECORD).reshape(-1)
        assert (sp.results(records) == result).all()
        games.append(({"result": result, "end": SELFPLAY_ENDS[end], "records": n}, records))
    ends = {entry["end"] for entry, _ in games}
    assert ends & RULE_ENDS and ends - RULE_ENDS
    for entry, records in games:
        result, end = entry["result"], entry["end"]
        assert (sp.results(records) == result).all()
        board = replay(records)
        if end in RULE_ENDS:
            outcome = board.outcome(claim_draw=True)
            assert outcome is not None and outcome.result() == ["0-1", "1/2-1/2", "1-0"][result]
            assert {"checkmate": board.is_checkmate(), "stalemate": board.is_stalemate(),
                    "insufficient material": board.is_insufficient_material(),
                    "fifty moves": board.is_fifty_moves(),
                    "threefold repetition": board.is_repetition(3)}[end]
            if end == "checkmate":
                assert records["score"][-1] == sp.MATE_SCORE - 1      # mate in one ply, found
        elif end == "move limit":
            assert len(records) in (200, gen.MAX_PLIES) and result == 1
        else:
            white = [int(r["score"]) * (-1 if r["flags"] & sp.BLACK else 1) for r in records]
            if end == "adjudicated win":
                assert all(s >= 1000 for s in white[-8:]) or all(s <= -1000 for s in white[-8:])
                assert result == (2 if white[-1] > 0 else 0)
            else:
                assert end == "adjudicated draw" and result == 1
                assert all(abs(s) <= 10 for s in white[-16:]) and board.ply() >= 80


def test_the_same_seed_gives_the_same_bytes_and_a_rerun_rebuilds_only_what_is_missing(run, tmp_path):
    openings, out, _ = run
    again = tmp_path / "again"
    gen.generate(openings, job(openings), 4, again, workers=1, progress=False)
    first = [p.read_bytes() for p in sp.batch_paths(out)]
    assert [p.read_bytes() for p in sp.batch_paths(again)] == first[:2]
    (again / "batch_000001.bin").unlink()
    summary = gen.generate(openings, job(openings), 6, again, workers=1, progress=False)
    assert summary["played_now"] == 2 and summary["games"] == 4       # batch 1 again, and the new batch 2
    assert [p.read_bytes() for p in sp.batch_paths(again)] == first
    other = tmp_path / "other"
    gen.generate(openings, job(openings, seed=2), 2, other, workers=1, progress=False)
    assert (other / "batch_000000.bin").read_bytes() != first[0]


def test_a_folder_of_other_settings_is_refused(run):
    openings, out, _ = run
    with pytest.raises(ValueError, match="other settings"):
        gen.generate(openings, job(openings, nodes=NODES + 1), 6, out, workers=1, progress=False)


def test_the_header_is_checked(run, tmp_path):
    _, out, _ = run
    path = sp.batch_paths(out)[0]
    header, records = sp.read_batch(path)
    assert header["version"] == sp.VERSION and header["records"] == len(records)
    assert header["nodes"] == NODES and header["hard_nodes"] == 4 * NODES and header["threads"] == 1
    assert header["evaluation"].startswith("handwritten:") and header["options"]["ordering"] == "chessmaps"
    data = path.read_bytes()
    assert len(data) == sp.data_offset(len(json.dumps({k: v for k, v in header.items()
                                                       if k not in ("version", "records")}))) + 32 * len(records)
    _, loaded = sp.read_batch(path, mmap=False)
    assert (loaded == records).all()
    for name, patch, message in [("magic", (0, b"XMMSP\0"), "not a self-play batch"),
                                 ("version", (6, (2).to_bytes(2, "little")), "version 2"),
                                 ("size", (8, (48).to_bytes(4, "little")), "48-byte records")]:
        broken = tmp_path / f"{name}.bin"
        at, new = patch
        broken.write_bytes(data[:at] + new + data[at + len(new):])
        with pytest.raises(sp.BatchFormatError, match=message):
            sp.read_batch(broken)
    short = tmp_path / "short.bin"
    short.write_bytes(data[:-1])
    with pytest.raises(sp.BatchFormatError, match="cut short"):
        sp.read_batch(short)


def test_quiet_mask_drops_checks_captures_big_scores_and_the_opening(run):
    _, out, _ = run
    records = np.concatenate([sp.read_batch(p)[1] for p in sp.batch_paths(out)])
    quiet = sp.quiet_mask(records, score_cap=500, min_ply=12)
    flags = records["flags"]
    assert quiet.any() and not quiet.all()
    assert not (quiet & ((flags & (sp.CHECK | sp.NOISY)) != 0)).any()
    assert (np.abs(records["score"][quiet]) <= 500).all() and (records["ply"][quiet] >= 12).all()
    assert ((flags & sp.CHECK) != 0).any() and ((flags & sp.NOISY) != 0).any()


def test_a_soft_node_limit_finishes_its_iteration_within_the_hard_cap():
    board = Board(OPENINGS[0])
    searcher = Searcher(16)
    found = searcher.search(board, soft_nodes=2000, nodes=8000)
    assert 2000 <= found["nodes"] <= 8000
    searcher.clear()
    capped = searcher.search(board, soft_nodes=2000, nodes=2100)
    assert capped["nodes"] <= 2100 and capped["bestmove"] in board.legal_moves()
    searcher.clear()
    assert searcher.search(board, depth=3)["nodes"] < 2000      # begin clears the soft limit


def test_a_td_net_plays_the_games_and_names_itself(tmp_path):
    rng = np.random.default_rng(1)
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32) * 0.05  # noqa: E731
    net = tmp_path / "td.npz"
    save_td(TdNet("A", f(1, 62, 8), f(1, 8), f(1, 8), f(1), 250.0, {"feature_mean": [0.0] * 62}, False, "move"), net)
    openings = suite(tmp_path)
    td_job = gen.make_job(openings, 200, None, 1, 1, (2, 4), str(net), adjudicate=True)
    assert gen.generate(openings, td_job, 1, tmp_path / "td", workers=1, progress=False)["games"] == 1
    header, records = sp.read_batch(tmp_path / "td" / "batch_000000.bin")
    assert header["evaluation"].startswith("td:") and len(records) == header["game_list"][0]["records"]
    replay(records)
    (tmp_path / "bad.npz").write_bytes(b"not a net")
    with pytest.raises(ValueError):
        gen.make_job(openings, 200, None, 1, 1, (2, 4), str(tmp_path / "bad.npz"), adjudicate=True)


def test_an_nnue_plays_the_games_and_names_itself(tmp_path):
    """Generation 2's data is played by net 1: --eval-file takes an NNUE
    (the kind read from its header) and the batches name it by its fingerprint."""
    from engine.evaluation.nnue import BUCKETS, INPUTS, quantise, save_nnue
    rng = np.random.default_rng(2)
    nnue = quantise(rng.uniform(-0.3, 0.3, (INPUTS, 64)), np.zeros(64), rng.uniform(-1, 1, (BUCKETS, 128)),
                    np.zeros(BUCKETS), 400.0)
    save_nnue(nnue, tmp_path / "nnue.npz")
    openings = suite(tmp_path)
    nnue_job = gen.make_job(openings, 200, None, 1, 1, (2, 4), str(tmp_path / "nnue.npz"), adjudicate=True)
    assert gen.generate(openings, nnue_job, 1, tmp_path / "nnue", workers=1, progress=False)["games"] == 1
    header, records = sp.read_batch(tmp_path / "nnue" / "batch_000000.bin")
    assert header["evaluation"] == f"nnue:{nnue.fingerprint()}"
    replay(records)


def test_the_format_modules_examples_hold():
    assert doctest.testmod(sp).failed == 0


def test_the_cli_writes_batches_in_a_temp_dir(tmp_path):
    openings = suite(tmp_path)
    out = tmp_path / "cli"
    args = ["data", "selfplay", "--out", str(out), "--games", "2", "--batch-games", "1", "--nodes", "200",
            "--openings", str(openings), "--random-plies", "2", "4", "--workers", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["games"] == 2 and summary["positions"] > 0
    assert [p.name for p in sp.batch_paths(out)] == ["batch_000000.bin", "batch_000001.bin"]
    assert json.loads((out / "job.json").read_text())["random_plies"] == [2, 4]
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and json.loads(again.output[again.output.index("{"):])["played_now"] == 0
    refused = CliRunner().invoke(main, args[:-2] + ["--nodes", "300"])
    assert refused.exit_code != 0 and "other settings" in refused.output


@pytest.mark.slow
@pytest.mark.timeout(RAY_HANG_GUARD)
def test_a_local_ray_cluster_gives_the_same_batches(run, tmp_path):
    pytest.importorskip("ray")
    openings, out, _ = run
    on_ray = tmp_path / "ray"
    assert gen.generate(openings, job(openings), 6, on_ray, cluster="local", progress=False)["played_now"] == 3
    assert [p.read_bytes() for p in sp.batch_paths(on_ray)] == [p.read_bytes() for p in sp.batch_paths(out)]
