"""What a tournament relies on and no rules test checks: the clock the engine
reads, its time limits, mate scores across moves, the fifty-move rule, the
nets found from any working directory. Time is checked through the limits
the engine reports with ``debug on``, never through how long it took."""
from pathlib import Path

import chess
import pytest
from uci_client import REPO, Engine, answers, errors_in

from engine.bench import run_bench
from engine.session import Session, bench_searcher
from engine.timeman import allot

# `make bench` prints it; a change to the search or the evaluation changes it,
# and must then update it here (as Stockfish's commits carry their bench).
BENCH_SIGNATURE = 2586046


def limits_reported(lines: list[str]) -> tuple[float | None, float | None]:
    """(soft, hard) from the ``debug on`` report of a go."""
    line = next(line for line in lines if line.startswith("info string go: depth"))
    words = line.split()

    def number(key: str) -> float | None:
        text = words[words.index(key) + 1]
        return None if text == "None" else float(text)
    return number("soft"), number("hard")


BLACK_TO_MOVE = "position startpos moves e2e4"


@pytest.mark.parametrize("position, go, clock, inc, movestogo", [
    ("position startpos", "wtime 60000 btime 1000 winc 500 binc 0", 60000, 500, None),
    (BLACK_TO_MOVE, "wtime 60000 btime 1000 winc 500 binc 0", 1000, 0, None),
    (BLACK_TO_MOVE, "wtime 1000 btime 90000 winc 0 binc 2000", 90000, 2000, None),
    ("position startpos", "wtime 30000 btime 30000 movestogo 5", 30000, 0, 5),
    (BLACK_TO_MOVE, "btime 30000 wtime 5 movestogo 1", 30000, 0, 1),
])
def test_the_side_to_move_thinks_on_its_own_clock(position: str, go: str, clock: int, inc: int,
                                                  movestogo: int | None) -> None:
    out = answers("debug on", position, f"go {go} depth 1")     # the limits are reported all the same
    assert limits_reported(out) == allot(clock, inc, movestogo, 50)


def test_move_overhead_is_kept_back() -> None:
    out = answers("debug on", "setoption name Move Overhead value 700", "position startpos",
                  "go wtime 10000 btime 10000 depth 1")
    assert limits_reported(out) == allot(10000, 0, None, 700)
    assert allot(10000, 0, None, 700)[1] < allot(10000, 0, None, 50)[1]


def test_slow_mover_scales_the_time_per_move_within_the_caps() -> None:
    out = answers("debug on", "setoption name SlowMover value 300", "position startpos",
                  "go wtime 10000 btime 10000 winc 100 binc 100 depth 1")
    assert limits_reported(out) == allot(10000, 100, None, 50, 300)
    assert allot(10000, 100, None, 50, 300)[0] == pytest.approx(3 * allot(10000, 100, None, 50, 100)[0], abs=0.1)
    refused = answers("setoption name SlowMover value 0", "debug on", "position startpos",
                      "go wtime 10000 btime 10000 depth 1", errors_ok=True)
    assert errors_in(refused) and limits_reported(refused) == allot(10000, 0, None, 50)


@pytest.mark.parametrize("clock, inc, movestogo, overhead", [
    (60_000, 0, None, 50), (1_000, 10, None, 50), (120, 10, None, 50), (10, 0, None, 50),
    (300_000, 3_000, 40, 100), (5_000, 0, 1, 50), (0, 0, None, 50), (2**31 - 1, 2**31 - 1, None, 0),
])
@pytest.mark.parametrize("slow_mover", [100, 500])
def test_limits_stay_inside_the_clock(clock: int, inc: int, movestogo: int | None, overhead: int,
                                      slow_mover: int) -> None:
    soft, hard = allot(clock, inc, movestogo, overhead, slow_mover)
    assert 1 <= soft <= hard
    assert hard <= max(clock - overhead, 1) * (0.9 if movestogo == 1 else 0.35) or hard == 1


def test_a_mate_score_survives_the_hash_from_move_to_move() -> None:
    """Mates are stored in the table relative to the node; without Clear Hash
    or ucinewgame, the next moves must report mate 2 and mate 1."""
    fen = "r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1"
    board = chess.Board(fen)
    with Engine() as engine:
        for expected in (3, 2, 1):
            moves = " ".join(m.uci() for m in board.move_stack)
            engine.send(f"position fen {fen}" + (f" moves {moves}" if moves else ""), "go depth 12")
            _, out = engine.read_until("bestmove")
            last = [line for line in out if line.startswith("info depth")][-1]
            assert f" score mate {expected} " in last, last
            pv = last.split(" pv ")[1].split()
            board.push_uci(pv[0])
            if expected > 1:
                board.push_uci(pv[1])
        assert engine.quit() == 0
    assert board.is_checkmate()


def test_mate_on_the_hundredth_half_move_is_still_mate() -> None:
    """The fifty-move rule gives way to a mate given on its last move."""
    out = answers("position fen 7k/8/6K1/8/8/8/8/R7 w - - 99 80", "go depth 6")
    assert any(" score mate 1 " in line for line in out), out
    assert out[-1].split()[1] == "a1a8"
    out = answers("position fen 7k/8/8/8/8/8/8/KQ6 w - - 99 80", "go depth 6")
    finals = [line for line in out if line.startswith("info depth 6 ")]
    assert finals and " score cp 0 " in finals[-1], out      # no mate in one: every move draws


def test_the_bench_signature() -> None:
    """The node count of ``bench`` (20 positions, depth 12, the engine's
    default options): deterministic."""
    with bench_searcher() as searcher:
        assert run_bench(searcher)[0] == BENCH_SIGNATURE


def test_the_shipped_net_is_found_from_another_directory(tmp_path: Path) -> None:
    out = answers("isready", "position startpos", "nmm", until="info string nmm", cwd=tmp_path)
    assert not errors_in(out)
    out = answers("setoption name NMMFile value nets/nmm.npz", "isready", "nmm",
                  until="info string nmm", cwd=tmp_path)
    assert out[-1].startswith("info string nmm ")


def test_a_broken_shipped_net_is_reported(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "install"
    (repo / "nets").mkdir(parents=True)
    (repo / "nets" / "nmm.npz").write_bytes((REPO / "nets" / "nmm.npz").read_bytes()[:5000])
    (repo / "nets" / "nnue.npz").write_bytes((REPO / "nets" / "nnue.npz").read_bytes())   # the default Eval's
    monkeypatch.chdir(tmp_path)
    lines: list[str] = []
    session = Session(lines.append, nets_dir=repo / "nets")
    session.isready([])
    assert not errors_in(lines), "the default order reads no net: nothing to report yet"
    session.setoption("name MoveOrdering value weighted".split())       # now the net is read
    session.isready([])
    assert any("NMMFile" in line and "falls back to history" in line for line in errors_in(lines))
    assert lines[-1] == "readyok"
    assert not session.searcher.has_nmm
