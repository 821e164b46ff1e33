"""nmm-chess data label: positions labelled by the engine's search, in batches
that resume, on local processes and on a local Ray cluster alike."""
import csv
from pathlib import Path

import pytest

from engine._core import Board
from engine.bench import POSITIONS
from engine.data import label as lab

from conftest import RAY_HANG_GUARD


def rows(path: Path) -> list[list[str]]:
    with path.open() as f:
        return list(csv.reader(f))


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("label") / "labels.csv"
    ran = lab.label(POSITIONS[:12], out, depth=3, nodes=None, batch=5, workers=2, progress=False)
    return out, ran


def test_every_position_gets_a_legal_best_move_and_a_score(local_run):
    out, ran = local_run
    table = rows(out)
    assert ran == 3 and table[0] == ["fen", "bestmove", "score_cp", "depth", "nodes", "position"]
    assert len(table) == 13
    for fen, move, score, depth, nodes, position in table[1:]:
        assert move in Board(fen).legal_moves() and int(depth) == 3 and int(nodes) > 0
        assert abs(int(score)) < lab.MATE_CP and position == fen
    assert [r[0] for r in table[1:]] == POSITIONS[:12]


def test_a_rerun_labels_only_the_missing_batches(local_run, tmp_path):
    out, _ = local_run
    copy = tmp_path / "labels.csv"
    work = Path(str(out) + ".work")
    (tmp_path / "labels.csv.work").mkdir()
    for f in work.iterdir():
        (tmp_path / "labels.csv.work" / f.name).write_bytes(f.read_bytes())
    (tmp_path / "labels.csv.work" / "batch_000001.json").unlink()
    assert lab.label(POSITIONS[:12], copy, 3, None, batch=5, workers=1, progress=False) == 1
    assert rows(copy) == rows(out)
    with pytest.raises(ValueError, match="another job"):
        lab.label(POSITIONS[:12], copy, 4, None, batch=5, progress=False)


@pytest.mark.timeout(RAY_HANG_GUARD)
def test_a_local_ray_cluster_gives_the_local_labels(local_run, tmp_path):
    pytest.importorskip("ray")
    out, _ = local_run
    on_ray = tmp_path / "ray.csv"
    assert lab.label(POSITIONS[:12], on_ray, 3, None, batch=5, cluster="local", progress=False) == 3
    assert rows(on_ray) == rows(out)


def test_positions_are_read_from_epd_and_pgn(tmp_path):
    epd = tmp_path / "p.epd"
    epd.write_text('r1bq1r1k/p1pnbpp1/1p2p3/6p1/3PB3/5N2/PPPQ1PPP/2KR3R w - - bm g4; id "x";\n')
    assert lab.read_positions(epd) == ["r1bq1r1k/p1pnbpp1/1p2p3/6p1/3PB3/5N2/PPPQ1PPP/2KR3R w - - 0 1"]
    pgn = Path(__file__).resolve().parent / "fixtures" / "games" / "masters_sample.pgn"
    fens = lab.read_positions(pgn, every=10, limit=20)
    assert len(fens) == 20 and fens[0] == Board().fen()


def test_labels_become_a_pattern_set_with_the_best_move_played(local_run) -> None:
    out, _ = local_run
    patterns = lab.to_patterns(out)
    table = rows(out)[1:]
    assert len(patterns) == len(table)
    for i, (fen, move, *_) in enumerate(table):
        frm, to, _ = patterns.legal[patterns.offsets[i] + patterns.played[i]]
        assert patterns.fen(i).split()[:4] == fen.split()[:4]
        assert (int(frm), int(to)) == (chess_square(move[:2]), chess_square(move[2:4]))


def chess_square(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def test_positions_from_games_keep_their_last_move_into_the_patterns(tmp_path):
    games = Path(__file__).resolve().parent / "fixtures" / "games" / "masters_sample.pgn"
    positions = lab.read_positions(games, every=7, limit=6, last_move=True)
    out = tmp_path / "games.csv"
    lab.label(positions, out, depth=2, nodes=None, batch=6, workers=1, progress=False)
    table = rows(out)[1:]
    patterns = lab.to_patterns(out)
    assert len(patterns) == 6 and patterns.last_to[0] == -1      # the start position has no last move
    for i, (fen, _, _, _, _, position) in enumerate(table[1:], 1):
        before, last = position.split(" moves ")
        board = Board(before)
        board.push(last)
        assert board.fen() == fen and patterns.last_to[i] == chess_square(last[2:4])
