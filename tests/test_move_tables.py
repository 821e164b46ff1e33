"""Move tables (ext/move_tables.pxi, engine/memory.py): the ChessMaps
long-term memory, its file, and what a crash or a bad file does to it."""
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from engine._core import Board, Searcher
from engine.bench import POSITIONS
from engine.memory import MemoryFileError, load_tables, save_tables
from tests.uci_client import Engine, errors_in

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def learnt() -> Searcher:
    searcher = Searcher(hash_mb=8)
    searcher.configure(move_tables=2)
    for fen in POSITIONS[:5]:
        searcher.search(Board(fen), depth=7)
    return searcher


def test_cut_offs_build_reliable_paths_that_are_tried(learnt):
    stats = learnt.table_stats
    assert stats["held"] > 20 and 0 < stats["reliable"] <= stats["held"]
    assert stats["tries"] > 100 and 0 < stats["cutoffs"] < stats["tries"]
    tables = learnt.get_move_tables()
    used = tables["moves"][..., 0] != 0
    assert (tables["moves"][..., 0][used] & 63 == np.nonzero(used)[2]).all()      # filed by first square
    assert tables["weight"][used].min() >= -3 and tables["n_evals"].max() <= 10


def test_the_combined_score_is_the_papers_series(learnt):
    tables = learnt.get_move_tables()
    for index in zip(*np.nonzero(tables["n_evals"] >= 3)):
        evals = tables["evals"][index][:tables["n_evals"][index]].astype(float)
        running = np.cumsum(evals) / np.arange(1, len(evals) + 1)       # E1, (E1+E2)/2, ...
        assert abs(tables["combined"][index] - int(running.mean())) <= 1


def test_without_move_tables_nothing_is_learnt():
    searcher = Searcher(hash_mb=8)
    searcher.search(Board(POSITIONS[2]), depth=7)
    assert searcher.table_stats == {"tries": 0, "cutoffs": 0, "held": 0, "reliable": 0}


def test_the_file_round_trip_and_its_size(learnt, tmp_path):
    path = tmp_path / "tables.npz"
    save_tables(learnt, path)
    fresh = Searcher(hash_mb=1)
    assert load_tables(fresh, path) == learnt.table_stats["held"]
    a, b = learnt.get_move_tables(), fresh.get_move_tables()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert path.stat().st_size < 120_000                # fixed tables: bounded whatever is learnt


WRITER = """
import sys
from engine._core import Board, Searcher
from engine.memory import save_tables
searcher = Searcher(hash_mb=1)
searcher.configure(move_tables=2)
searcher.search(Board(), depth=6)
print("ready", flush=True)
while True:
    save_tables(searcher, sys.argv[1])
"""


def test_a_kill_mid_write_leaves_a_whole_file(learnt, tmp_path):
    path = tmp_path / "tables.npz"
    save_tables(learnt, path)
    for delay in (0.05, 0.13, 0.31):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=REPO, stdout=subprocess.PIPE,
                                  text=True)
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(delay)
        writer.kill()
        writer.wait()
        load_tables(Searcher(hash_mb=1), path)          # always one whole file or the other


def test_bad_files_are_refused_and_leave_the_tables_alone(learnt, tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"\x00" * 100)
    before = learnt.get_move_tables()
    with pytest.raises(MemoryFileError, match="not a readable"):
        load_tables(learnt, junk)
    with pytest.raises(MemoryFileError, match="not a move-table file"):
        load_tables(learnt, REPO / "nets" / "nmm.npz")
    with pytest.raises(MemoryFileError, match="no such file"):
        load_tables(learnt, tmp_path / "missing.npz")
    after = learnt.get_move_tables()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_the_engine_plays_on_with_a_corrupt_file_and_learns_into_a_new_one(tmp_path):
    broken, fresh = tmp_path / "broken.npz", tmp_path / "fresh.npz"
    broken.write_bytes(b"PK\x03\x04 broken")
    with Engine() as engine:
        engine.send("setoption name MoveTables value true", f"setoption name MoveTablesFile value {broken}",
                    "position startpos", "go depth 7")
        _, lines = engine.read_until("bestmove")
        assert any("MoveTablesFile" in line and "start empty" in line for line in errors_in(lines)), lines
        assert lines[-1].split()[1] in {m for m in Board().legal_moves()}
        engine.send(f"setoption name MoveTablesFile value {fresh}", "position startpos moves e2e4", "go depth 7")
        engine.read_until("bestmove")
        engine.send("ucinewgame", "isready")            # the game's end: the tables are written
        engine.read_until("readyok")
        assert engine.quit() == 0
    assert broken.read_bytes() == b"PK\x03\x04 broken"    # not ours to overwrite
    assert load_tables(Searcher(hash_mb=1), fresh) > 0


def test_only_a_move_table_file_is_ever_overwritten(learnt, tmp_path):
    """A mistyped MoveTablesFile must not destroy what it names."""
    readme = tmp_path / "README.md"
    readme.write_text("keep me")
    for target in (readme, REPO / "nets" / "nmm.npz", Path("/dev/null"), tmp_path):
        before = target.stat()
        with pytest.raises(MemoryFileError, match="not overwritten"):
            save_tables(learnt, target)
        assert target.stat().st_mtime_ns == before.st_mtime_ns and target.stat().st_mode == before.st_mode
    assert readme.read_text() == "keep me" and not list(tmp_path.glob("*.tmp"))
    with Engine() as engine:
        engine.send("setoption name MoveTables value true", f"setoption name MoveTablesFile value {readme}",
                    "position startpos", "go depth 4")
        engine.read_until("bestmove")
        engine.send("ucinewgame", "isready")
        _, lines = engine.read_until("readyok")
        assert any("not overwritten" in line for line in errors_in(lines)), lines
        assert engine.quit() == 0
    assert readme.read_text() == "keep me"
