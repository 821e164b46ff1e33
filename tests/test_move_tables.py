"""Move tables (ext/move_tables.pxi, engine/memory.py): the ChessMaps
long-term memory, its file, and what a crash or a bad file does to it."""
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from engine._core import Board, LabSearcher, Searcher
from engine.bench import POSITIONS
from engine.memory import MemoryFileError, load_tables, save_tables
from tests.uci_client import HANG_GUARD, Engine, errors_in

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def learnt() -> LabSearcher:
    searcher = LabSearcher(hash_mb=8)       # the lab's face: table_stats
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


def test_scores_stored_by_another_evaluation_are_dropped_and_the_paths_kept(learnt, tmp_path):
    path = tmp_path / "tables.npz"
    save_tables(learnt, path, "handwritten:aaaa")
    same, other, notices = Searcher(hash_mb=1), Searcher(hash_mb=1), []
    assert load_tables(same, path, "handwritten:aaaa", notices.append) == learnt.table_stats["held"]
    assert notices == [] and same.get_move_tables()["n_evals"].any()
    assert load_tables(other, path, "td:bbbb", notices.append) == learnt.table_stats["held"]
    assert len(notices) == 1 and "handwritten:aaaa" in notices[0] and "td:bbbb" in notices[0]
    kept, mine = other.get_move_tables(), learnt.get_move_tables()
    assert np.array_equal(kept["moves"], mine["moves"]) and not kept["n_evals"].any()


def test_without_move_tables_nothing_is_learnt():
    searcher = LabSearcher(hash_mb=8)
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
import builtins, io, os, sys, threading
from engine._core import Board, Searcher
from engine.memory import save_tables

target, stop_at = os.path.abspath(sys.argv[1]), int(sys.argv[2])
searcher = Searcher(hash_mb=1)
searcher.configure(move_tables=2)
searcher.search(Board(), depth=6)
writes, plain_open = 0, builtins.open


class Watched(io.BufferedWriter):
    # A file the save writes: at its stop_at-th write (of any file beside the
    # target), the bytes so far go to disk, the path is announced, and the
    # writer holds still there until it is killed.
    def write(self, data):
        global writes
        written = super().write(data)
        writes += 1
        if writes == stop_at:
            self.flush()
            print("writing", self.raw.name, flush=True)
            threading.Event().wait()
        return written


def watching_open(file, mode="r", *args, **kwargs):
    if (isinstance(file, (str, os.PathLike)) and any(c in mode for c in "wxa")
            and os.path.dirname(os.path.abspath(file)) == os.path.dirname(target)):
        return Watched(io.FileIO(file, mode.replace("t", "")))
    return plain_open(file, mode, *args, **kwargs)


builtins.open = watching_open
save_tables(searcher, target)
print("saved", writes, flush=True)
"""


def run_writer(path: Path, stop_at: int) -> tuple[subprocess.Popen, list[str]]:
    """Start a writer that saves its tables over ``path`` and stops at its
    ``stop_at``-th write (0: never); its announcement, split. A hang guard
    kills a writer that neither announces nor ends."""
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(stop_at)], cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    guard = threading.Timer(HANG_GUARD, writer.kill)
    guard.start()
    try:
        return writer, writer.stdout.readline().split()
    finally:
        guard.cancel()


def test_a_kill_mid_write_leaves_a_whole_file(learnt, tmp_path):
    """The writer is killed when a file state is reached, not after a timed
    sleep: it holds still at its n-th write (the bytes so far on disk), for
    the first write, one in the middle and the last. Each time the file it
    replaces is still the old one, byte for byte (a save that wrote in place
    would leave it part-written), and a save let run to its end replaces it
    with a new whole file."""
    path = tmp_path / "tables.npz"
    save_tables(learnt, path)
    old = path.read_bytes()
    assert load_tables(Searcher(hash_mb=1), path) == learnt.table_stats["held"]
    copy = tmp_path / "copy" / "tables.npz"
    copy.parent.mkdir()
    copy.write_bytes(old)
    writer, said = run_writer(copy, 0)          # a whole save: how many writes it makes
    assert writer.wait(timeout=HANG_GUARD) == 0 and said[0] == "saved", said
    writes = int(said[1])
    assert writes >= 2 and copy.read_bytes() != old and load_tables(Searcher(hash_mb=1), copy) > 0
    for stop_at in sorted({1, writes // 2, writes}):
        writer, said = run_writer(path, stop_at)
        try:
            assert said[:1] == ["writing"], said
            partial = Path(said[1])
            assert partial.exists() and partial.parent == path.parent   # the write has begun
        finally:
            writer.kill()
            writer.wait()
        assert path.read_bytes() == old, f"killed at write {stop_at} of {writes}"
        assert load_tables(Searcher(hash_mb=1), path) == learnt.table_stats["held"]


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
