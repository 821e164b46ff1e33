"""UCI transcripts for the board commands: position, d, perft, bad input."""
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from engine.tools.bench_perft import python_chess_perft

ENGINE = [sys.executable, str(Path(__file__).resolve().parent.parent / "uci_main.py")]


def transcript(*lines: str, timeout: float = 30) -> list[str]:
    """Feed ``lines`` to a fresh engine process and return what it printed."""
    proc = subprocess.run(ENGINE, input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout.splitlines()


def fen_shown(lines: list[str]) -> list[str]:
    return [line.removeprefix("Fen: ") for line in lines if line.startswith("Fen: ")]


def test_handshake() -> None:
    out = transcript("uci", "isready", "quit")
    assert out[0].startswith("id name nmm-chess")
    assert "uciok" in out and out[-1] == "readyok"


def test_go_perft_prints_divide_and_total() -> None:
    out = transcript("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                     "go perft 3", "quit")
    divide = dict(line.split(": ") for line in out if ": " in line and not line.startswith(("info", "Nodes")))
    assert len(divide) == 48
    assert sum(int(n) for n in divide.values()) == 97_862
    assert "Nodes searched: 97862" in out


def test_perft_command_and_moves() -> None:
    reference = chess.Board()
    for move in ["e2e4", "e7e5", "g1f3"]:
        reference.push_uci(move)
    expected = python_chess_perft(reference, 3)
    out = transcript("position startpos moves e2e4 e7e5 g1f3", "perft 3", "quit")
    assert f"Nodes searched: {expected}" in out


@pytest.mark.parametrize("bad", [
    "position fen 8/8/8 w - - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves e2e5",
    "position startpos moves e2e4 e2e4",
    "position",
    "position somewhere",
    "perft",
    "perft -3",
    "perft x",
    "go perft",
    "flibbertigibbet",
])
def test_bad_input_reports_and_keeps_position(bad: str) -> None:
    good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    out = transcript("position startpos moves e2e4", bad, "d", "isready", "quit")
    assert any(line.startswith("info string") for line in out), out
    assert fen_shown(out) == [good]
    assert out[-1] == "readyok"


def test_unknown_leading_tokens_are_skipped() -> None:
    out = transcript("joho isready", "quit")
    assert out == ["readyok"]


def test_isready_is_answered_during_a_long_perft() -> None:
    proc = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write("go perft 7\nisready\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "readyok"   # perft 7 is far from done
    proc.stdin.write("stop\nquit\n")
    proc.stdin.flush()
    assert proc.wait(timeout=10) == 0
