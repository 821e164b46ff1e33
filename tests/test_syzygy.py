"""The Syzygy tables in the core (issue 42): the reader (ext/syzygy.h,
syzygy.pxi) against python-chess's prober, position by position; the
engine with SyzygyPath set, through UCI (python-chess's engine module),
converting won endings to mate against the DTZ-best defence and holding
drawn ones; tbhits; bad paths and damaged files.

tests/fixtures/syzygy holds the small tables these need (its README); the
checks of every 3-4 man table read $NMM_DATA/syzygy (else ../shared/data/syzygy)
and are skipped where it is missing."""
from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import chess
import chess.engine
import chess.syzygy
import pytest

from engine._core import Board, Searcher, SyzygyTables
from engine.study.syzygy import (default_tables, en_passant_positions, materials, play_drawn, play_won,
                                 random_position, won_and_drawn)
from tests.uci_client import ENGINE, HANG_GUARD, answers, errors_in

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "syzygy"
SHARED = default_tables()
needs_shared = pytest.mark.skipif(not (SHARED / "KQvKR.rtbz").exists(),
                                  reason=f"the 3-4 man tables are not in {SHARED}")
TB_WIN = 31615                  # a table win's score (ext/syzygy.pxi TB_WIN)


@pytest.fixture(scope="module")
def oracle():
    with chess.syzygy.open_tablebase(str(FIXTURE)) as tablebase:
        yield tablebase


@pytest.fixture(scope="module")
def core() -> SyzygyTables:
    return SyzygyTables(str(FIXTURE))


def compare(core: SyzygyTables, oracle, boards: list[chess.Board], dtz: bool) -> list[str]:
    """Positions whose WDL (and DTZ) differ between the core and python-chess."""
    wrong = []
    for board in boards:
        ours = Board(board.fen())
        mine = (core.probe_wdl(ours), core.probe_dtz(ours) if dtz else None)
        theirs = (oracle.probe_wdl(board), oracle.probe_dtz(board) if dtz else None)
        if mine != theirs:
            wrong.append(f"{board.fen()}: core {mine}, python-chess {theirs}")
        assert ours.fen() == board.fen()           # a probe leaves the position as it was
    return wrong


# --- the reader --------------------------------------------------------------------

def test_the_fixture_tables_open(core: SyzygyTables) -> None:
    assert core.errors == []
    assert core.max_pieces == 4
    assert core.wdl_tables == len(list(FIXTURE.glob("*.rtbw")))
    assert core.dtz_tables == len(list(FIXTURE.glob("*.rtbz")))
    assert SyzygyTables("").max_pieces == 0


def test_probes_agree_with_python_chess_on_the_fixture_tables(core: SyzygyTables, oracle) -> None:
    """Every fixture material, either colour the stronger, either side to
    move: WDL, and DTZ where the DTZ table is here."""
    rng = random.Random(42)
    dtz_tables = {p.stem for p in FIXTURE.glob("*.rtbz")}
    checked = 0
    for material in sorted(p.stem for p in FIXTURE.glob("*.rtbw")):
        boards = [random_position(material, rng) for _ in range(300)]
        assert not compare(core, oracle, boards, material in dtz_tables), material
        checked += len(boards)
    assert checked >= 300 * 10


def test_positions_the_tables_cannot_answer(core: SyzygyTables) -> None:
    assert core.probe_wdl(Board()) is None                                  # 32 men
    assert core.probe_wdl(Board("r3k3/8/8/8/8/8/8/4K3 w q - 0 1")) is None  # castling rights
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/8/1B2K1N1 w - - 0 1")) == 2
    assert core.probe_dtz(Board("4k3/8/8/8/8/8/8/1B2K1N1 w - - 0 1")) is None   # no KBNvK.rtbz here
    assert core.probe_dtz(Board("4k3/8/8/8/8/8/8/1N2K1N1 w - - 0 1")) == 0      # a draw needs no DTZ
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")) == 2
    assert core.probe_wdl(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0   # the bare kings need no table


@needs_shared
def test_probes_agree_with_python_chess_on_every_3_4_man_table() -> None:
    """300 random positions of each of the 35 materials (both colourings,
    both sides to move) and KPvKP positions where en passant is legal."""
    core = SyzygyTables(str(SHARED))
    assert core.errors == [] and core.max_pieces == 4
    rng = random.Random(7)
    with chess.syzygy.open_tablebase(str(SHARED)) as oracle:
        for material in materials(SHARED):
            assert not compare(core, oracle, [random_position(material, rng) for _ in range(300)], True), material
        ep = en_passant_positions(rng, 300)
        assert all(b.has_legal_en_passant() for b in ep)
        assert not compare(core, oracle, ep, True)


@pytest.mark.slow
@needs_shared
def test_probes_agree_with_python_chess_on_many_positions() -> None:
    core = SyzygyTables(str(SHARED))
    rng = random.Random(11)
    with chess.syzygy.open_tablebase(str(SHARED)) as oracle:
        for material in materials(SHARED):
            assert not compare(core, oracle, [random_position(material, rng) for _ in range(3000)], True), material
        assert not compare(core, oracle, en_passant_positions(rng, 3000), True)


DAMAGE = textwrap.dedent("""
    import random, shutil, sys
    from pathlib import Path
    from engine._core import Board, SyzygyTables
    fixture, work = Path(sys.argv[1]), Path(sys.argv[2])
    rng = random.Random(1)
    positions = [Board(f) for f in ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "8/8/8/4k3/8/8/8/R3K3 b - - 0 1",
                                    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
                                    "4k3/8/8/8/8/3r4/8/R3K3 w - - 0 1", "4k3/8/8/3q4/8/8/8/4K3 b - - 0 1")]
    truncated = refused = flipped = 0
    for name in ("KRvK.rtbw", "KRvK.rtbz", "KPvK.rtbw", "KPvK.rtbz", "KRvKR.rtbw", "KRvKR.rtbz", "KQvK.rtbz"):
        data = (fixture / name).read_bytes()
        variants = [data[:size] for size in range(0, len(data), max(1, len(data) // 40))]
        variants += [data[:size] for size in range(16, len(data), 64)][:40]       # sizes of the form 64 n + 16
        for _ in range(150):
            damaged = bytearray(data)
            for _ in range(rng.choice((1, 2, 8))):
                at = rng.randrange(len(data)) if rng.random() < 0.5 else rng.randrange(min(len(data), 600))
                damaged[at] = rng.randrange(256)
            variants.append(bytes(damaged))
        for i, variant in enumerate(variants):
            folder = work / f"{name}.{i}"
            folder.mkdir()
            for other in fixture.iterdir():
                if other.suffix in (".rtbw", ".rtbz") and other.name != name:
                    (folder / other.name).symlink_to(other)
            (folder / name).write_bytes(variant)
            tables = SyzygyTables(str(folder))
            if len(variant) < len(data):
                truncated += 1
                refused += any(name in e for e in tables.errors)
                assert any(name in e for e in tables.errors), (name, len(variant))
            else:
                flipped += 1
            for board in positions:
                tables.probe_wdl(board)
                tables.probe_dtz(board)
                tables.rank_root(board)
            shutil.rmtree(folder)
    print(truncated, refused, flipped)
""")


def test_damaged_and_truncated_files_are_refused_and_never_crash(tmp_path: Path) -> None:
    """Every truncated copy of a fixture table is refused (its size, or its
    header against its size); copies with bytes overwritten (in the header
    or the data) are refused or probed, never crash. In a process of its
    own, so that a crash fails this test only."""
    script = tmp_path / "damage.py"
    script.write_text(DAMAGE)
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run([sys.executable, str(script), str(FIXTURE), str(work)], capture_output=True, text=True,
                          timeout=600, cwd=Path(__file__).resolve().parent.parent,
                          env={"PYTHONPATH": str(Path(__file__).resolve().parent.parent), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    truncated, refused, flipped = map(int, proc.stdout.split())
    assert truncated == refused > 200 and flipped >= 7 * 150


def test_files_that_are_not_tables_are_refused(tmp_path: Path) -> None:
    (tmp_path / "KQvK.rtbw").write_bytes(b"\0" * 80)                      # wrong magic
    (tmp_path / "KRvK.rtbw").write_bytes(b"")                             # empty
    (tmp_path / "KPvK.rtbz").write_bytes((FIXTURE / "KPvK.rtbw").read_bytes())   # a WDL file named DTZ
    (tmp_path / "KvK.rtbw").write_bytes((FIXTURE / "KQvK.rtbw").read_bytes())    # no such table
    (tmp_path / "notes.txt").write_text("not a table")
    tables = SyzygyTables(str(tmp_path))
    assert tables.max_pieces == 0 and len(tables.errors) == 4
    assert SyzygyTables(f"{tmp_path / 'missing'}:{FIXTURE}").max_pieces == 4


# --- the root and the search ----------------------------------------------------------

def test_the_root_keeps_the_tables_result(core: SyzygyTables, oracle) -> None:
    """A searcher with the tables plays, from won, drawn and lost positions
    of the fixture materials, a move that keeps the result; it reports the
    tables' score (or a mate it found)."""
    searcher = Searcher(hash_mb=4)
    searcher.set_syzygy(core)
    rng = random.Random(5)
    for material in ("KQvK", "KRvK", "KPvK", "KRvKR"):
        for _ in range(25):
            board = random_position(material, rng)
            if board.is_game_over():
                continue
            wdl = oracle.probe_wdl(board)
            result = searcher.search(Board(board.fen()), nodes=1500)
            board.push_uci(result["bestmove"])
            after = 2 if board.is_checkmate() else -oracle.probe_wdl(board)
            assert after == wdl, (board.fen(), result["bestmove"])
            if wdl == 2:
                assert result["mate"] or result["score"] == TB_WIN
            elif wdl == 0:
                assert result["score"] == 0
            else:
                assert result["score"] == -TB_WIN or result["mate"]


def test_the_fifty_move_rule_option(core: SyzygyTables) -> None:
    """A rook win whose distance to mate outruns the fifty-move counter: with
    Syzygy50MoveRule it is a (cursed) win shown barely above a draw, the
    shortest way still chosen; without it, a win."""
    fen = "8/8/8/8/3k4/8/8/R3K3 w - - {} 1"
    fresh = core.rank_root(Board(fen.format(0)))
    late = core.rank_root(Board(fen.format(95)), rule50=True)
    assert all(score == TB_WIN for _, score in fresh.values() if score > 0)
    assert max(late.values())[1] < 100 and max(late.values())[1] > 0
    assert max(core.rank_root(Board(fen.format(95)), rule50=False).values())[1] == TB_WIN
    searcher = Searcher(hash_mb=4)
    searcher.set_syzygy(core)
    searcher.configure(syzygy_50_move_rule=True)
    result = searcher.search(Board(fen.format(95)), nodes=2000)
    assert 0 < result["score"] < 100
    best_rank = max(rank for rank, _ in late.values())
    assert late[result["bestmove"]][0] == best_rank


def test_search_probes_count_tbhits() -> None:
    """Five men: not in the 4-man tables at the root, but the search probes
    after every capture into them."""
    searcher = Searcher(hash_mb=4)
    searcher.set_syzygy(SyzygyTables(str(FIXTURE)))
    lines: list[dict] = []
    result = searcher.search(Board("3rk3/8/8/8/8/8/P7/2KR4 w - - 0 1"), depth=8, on_info=lines.append)
    assert lines[-1]["tbhits"] > 0 and result["bestmove"]
    searcher.set_syzygy(None)
    lines.clear()
    searcher.search(Board("3rk3/8/8/8/8/8/P7/2KR4 w - - 0 1"), depth=4, on_info=lines.append)
    assert "tbhits" not in lines[-1]


# --- through UCI ----------------------------------------------------------------------

def uci_engine(tables: Path, threads: int = 1) -> chess.engine.SimpleEngine:
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=HANG_GUARD)
    engine.configure({"SyzygyPath": str(tables), "Threads": threads, "Hash": 16})
    return engine


def player(engine: chess.engine.SimpleEngine, nodes: int = 4000):
    return lambda board: engine.play(board, chess.engine.Limit(nodes=nodes)).move


def starts(tables: Path, material: str, won: int, drawn: int, seed: int):
    with chess.syzygy.open_tablebase(str(tables)) as tablebase:
        return won_and_drawn(tablebase, material, random.Random(seed), won, drawn)


def test_won_endings_are_mated_through_uci() -> None:
    """K+Q, K+R and K+P against K: mated within the fifty-move rule against
    the DTZ-best defence; never a move that gives the win away."""
    engine = uci_engine(FIXTURE)
    try:
        with chess.syzygy.open_tablebase(str(FIXTURE)) as tablebase:
            for material, seed in (("KQvK", 1), ("KRvK", 2), ("KPvK", 3)):
                wins, _ = starts(FIXTURE, material, 2, 0, seed)
                for board in wins:
                    out = play_won(player(engine), tablebase, board)
                    assert out.correct, (out.start, out.end, out.moves)
    finally:
        engine.quit()


def test_drawn_endings_are_never_lost_through_uci() -> None:
    engine = uci_engine(FIXTURE)
    rng = random.Random(9)
    try:
        with chess.syzygy.open_tablebase(str(FIXTURE)) as tablebase:
            for material, seed in (("KRvKR", 4), ("KPvK", 5)):
                _, draws = starts(FIXTURE, material, 0, 2, seed)
                assert draws
                for board in draws:
                    out = play_drawn(player(engine, 2000), tablebase, board, rng, plies=30)
                    assert out.correct, (out.start, out.end, out.moves)
    finally:
        engine.quit()


@needs_shared
def test_bishop_and_knight_and_queen_against_rook_through_uci() -> None:
    """K+B+N against K and K+Q against K+R (the DTZ tables from the shared
    folder): mated within the fifty-move rule against the best defence."""
    engine = uci_engine(SHARED)
    try:
        with chess.syzygy.open_tablebase(str(SHARED)) as tablebase:
            for material, count in (("KBNvK", 1), ("KQvKR", 2)):
                wins, _ = starts(SHARED, material, count, 0, 6)
                for board in wins:
                    out = play_won(player(engine), tablebase, board)
                    assert out.correct, (out.start, out.end, out.moves)
    finally:
        engine.quit()


def test_threads_2_with_tables() -> None:
    engine = uci_engine(FIXTURE, threads=2)
    try:
        with chess.syzygy.open_tablebase(str(FIXTURE)) as tablebase:
            wins, _ = starts(FIXTURE, "KRvK", 1, 0, 8)
            out = play_won(player(engine), tablebase, wins[0])
            assert out.correct, (out.start, out.end, out.moves)
        info = engine.analyse(chess.Board("3rk3/8/8/8/8/8/P7/2KR4 w - - 0 1"), chess.engine.Limit(depth=9))
        assert info["tbhits"] > 0
    finally:
        engine.quit()


def test_uci_options_tbhits_and_the_tables_score() -> None:
    out = answers("uci", f"setoption name SyzygyPath value {FIXTURE}", "isready",
                  "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 6")
    assert "option name SyzygyPath type string default <empty>" in out
    assert "option name SyzygyProbeDepth type spin default 1 min 1 max 100" in out
    assert "option name Syzygy50MoveRule type check default true" in out
    found = (f"info string SyzygyPath: {len(list(FIXTURE.glob('*.rtbw')))} WDL and "
             f"{len(list(FIXTURE.glob('*.rtbz')))} DTZ tables, up to 4 men")
    assert found in out
    infos = [line for line in out if line.startswith("info depth")]
    assert infos and all(" tbhits " in line for line in infos)
    assert f"score cp {TB_WIN}" in infos[-1] or "score mate" in infos[-1]
    assert int(infos[-1].split(" tbhits ")[1].split()[0]) > 0


def test_a_bad_path_reports_an_error_and_the_engine_plays(tmp_path: Path) -> None:
    out = answers("setoption name SyzygyPath value /no/such/folder", "isready",
                  "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 4", errors_ok=True)
    assert [e for e in errors_in(out) if "/no/such/folder is not a folder" in e]
    assert out[-1].startswith("bestmove ") and out[-1] != "bestmove 0000"
    assert not any(" tbhits " in line for line in out)
    # A damaged file beside good ones: that file is named, the others are used.
    for good in ("KRvK.rtbw", "KRvK.rtbz"):
        (tmp_path / good).symlink_to(FIXTURE / good)
    (tmp_path / "KQvK.rtbw").write_bytes((FIXTURE / "KQvK.rtbw").read_bytes()[:64])
    out = answers(f"setoption name SyzygyPath value {tmp_path}", "isready",
                  "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 4", errors_ok=True)
    assert [e for e in errors_in(out) if "KQvK.rtbw" in e]
    assert any(" tbhits " in line for line in out) and out[-1].startswith("bestmove ")
    out = answers(f"setoption name SyzygyPath value {tmp_path}", "setoption name SyzygyPath value <empty>",
                  "isready", "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 4", errors_ok=True)
    assert not any(" tbhits " in line for line in out if line.startswith("info depth"))
