"""The NMM options and the nmm command, through the UCI loop."""
from pathlib import Path

import chess
import numpy as np
import pytest
from uci_client import answers, transcript

from engine.nets import NmmNet, save_nmm


@pytest.fixture(scope="module")
def net_file(tmp_path_factory) -> Path:
    rng = np.random.default_rng(1)
    path = tmp_path_factory.mktemp("nets") / "random.npz"
    save_nmm(NmmNet("mirrored768", rng.standard_normal((1792, 768)).astype(np.float32),
                    np.zeros(1792, np.float32), {"suggested_hhweight": 250.0}), path)
    return path


def test_nmm_command_ranks_every_legal_move(net_file: Path) -> None:
    out = transcript(f"setoption name NMMFile value {net_file}", "isready",
                     "position startpos moves e2e4", "nmm")
    ranked = [line.split()[3:] for line in out if line.startswith("info string nmm ")]
    moves = [m for m, _ in ranked]
    assert sorted(moves) == sorted(m.uci() for m in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves)
    scores = [float(s) for _, s in ranked]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("ordering", ["history", "nmm", "straight", "weighted"])
def test_every_ordering_plays_legal_moves(net_file: Path, ordering: str) -> None:
    out = transcript(f"setoption name NMMFile value {net_file}",
                     f"setoption name MoveOrdering value {ordering}",
                     "setoption name AdaptiveHistoryWeight value true", "isready",
                     "position startpos moves e2e4 e7e5 g1f3", "go depth 7", "isready")
    best = [line for line in out if line.startswith("bestmove")][0].split()[1]
    board = chess.Board()
    for m in ["e2e4", "e7e5", "g1f3"]:
        board.push_uci(m)
    assert chess.Move.from_uci(best) in board.legal_moves


@pytest.mark.parametrize("content", [None, b"garbage", b"PK\x03\x04broken"])
def test_missing_or_corrupt_net_falls_back_to_history(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "net.npz"
    if content is not None:
        path.write_bytes(content)
    out = transcript(f"setoption name NMMFile value {path}", "setoption name MoveOrdering value weighted",
                     "isready", "position startpos", "go depth 5", "isready", "nmm", errors_ok=True)
    assert any("falls back to history" in line for line in out)
    assert any(line.startswith("bestmove") for line in out)
    assert any("no NMM net is loaded" in line for line in out)


def test_history_weight_is_in_millionths_and_zero_takes_the_nets_suggestion(net_file: Path) -> None:
    import io

    from engine.uci import Uci
    out = io.StringIO()
    uci = Uci(out=out)

    def search() -> float:
        uci.handle("go depth 3")
        uci.wait_idle()
        return uci.session.searcher.settings["hhweight"]   # the weight the search starts from

    for line in [f"setoption name NMMFile value {net_file}", "isready", "position startpos",
                 "setoption name MoveOrdering value weighted", "setoption name HistoryWeight value 2500"]:
        uci.handle(line)
    assert search() == pytest.approx(0.0025)
    uci.handle("setoption name HistoryWeight value 0")
    assert search() == pytest.approx(250.0)
    uci.handle("quit")


def test_the_default_ordering_is_chessmaps_from_the_first_search() -> None:
    def nodes(*setup: str) -> int:
        out = answers(*setup, "isready", "position startpos moves e2e4 e7e5", "go depth 8")
        return [int(line.split(" nodes ")[1].split()[0]) for line in out if line.startswith("info depth 8 ")][-1]
    default = nodes()
    assert default == nodes("setoption name MoveOrdering value chessmaps")
    assert default != nodes("setoption name MoveOrdering value history")


def test_the_net_is_read_only_when_an_option_needs_it(tmp_path: Path) -> None:
    """The default order reads no net (issue 40): isready leaves NMMFile
    unread, a bad one unreported, until an ordering that scores with the net
    is chosen; then it is read, and a bad file is reported as before."""
    from engine.session import Session
    lines: list[str] = []
    session = Session(lines.append)
    session.setoption(f"name NMMFile value {tmp_path / 'missing.npz'}".split())
    session.isready([])
    assert lines == ["readyok"] and not session.searcher.has_nmm
    session.setoption("name MoveOrdering value straight".split())
    assert any("NMMFile" in line and "falls back to history" in line for line in lines)
    session.setoption("name NMMReductions value true".split())         # the same file: not read again
    assert sum("NMMFile" in line for line in lines) == 1


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc")
def test_an_engine_at_its_defaults_starts_without_the_nets_memory() -> None:
    from engine.tools.engines import KNOWN
    from engine.tools.startup import measure
    default = measure(KNOWN["nmm"], trials=1, depth=2)
    weighted = measure(KNOWN["nmm"], trials=1, setoptions=["setoption name MoveOrdering value weighted"], depth=2)
    assert default["peak RSS at readyok, MiB"] + 15 < weighted["peak RSS at readyok, MiB"]
