"""UCI transcripts for the board commands: position, d, perft, bad input."""
import chess
import pytest
from uci_client import Engine, transcript

from engine.tools.bench_perft import python_chess_perft

def fen_shown(lines: list[str]) -> list[str]:
    return [line.removeprefix("Fen: ") for line in lines if line.startswith("Fen: ")]


def test_handshake() -> None:
    out = transcript("uci", "isready", "quit")
    assert out[0].startswith("id name nmm-chess")
    assert "uciok" in out and out[-1] == "readyok"


def test_answers_come_in_the_order_of_the_lines_they_answer() -> None:
    """A script piped in at once: the errors the reader finds and a readyok
    beside a queued perft still wait for the uciok of the line before them."""
    out = transcript("uci", "go perft 0", "foo", "perft 2", "isready", "quit", errors_ok=True)
    order = [out.index("uciok"), out.index("info string error: perft depth must be between 1 and 20"),
             out.index("info string error: unknown command: foo"), out.index("readyok")]
    assert order == sorted(order), out
    assert "Nodes searched: 400" in out


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
    out = transcript("position startpos moves e2e4", bad, "d", "isready", "quit", errors_ok=True)
    assert any(line.startswith("info string") for line in out), out
    assert fen_shown(out) == [good]
    assert out[-1] == "readyok"


@pytest.mark.parametrize("moves, kept", [
    ("e2e5", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("e2e4 e2e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"),
    ("e2e4 e7e5 g1f3 zzzz", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
])
def test_a_bad_move_ends_the_move_list_there(moves: str, kept: str) -> None:
    """Stockfish's rule: the moves before the bad one are played, and ``go``
    then searches for the right side (it used to keep the previous position)."""
    out = transcript("position startpos moves d2d4", f"position startpos moves {moves}", "d",
                     "go depth 1", "quit", errors_ok=True)
    bad = moves.split()[-1]
    assert any(line.startswith("info string") and repr(bad) in line for line in out), out
    assert fen_shown(out) == [kept]
    best = next(line.split()[1] for line in out if line.startswith("bestmove"))
    assert chess.Move.from_uci(best) in chess.Board(kept).legal_moves


def test_upper_case_promotion_letters_are_accepted() -> None:
    out = transcript("position fen 8/4P3/8/8/8/8/k7/7K w - - 0 1 moves e7e8Q", "d", "quit")
    assert fen_shown(out) == ["4Q3/8/8/8/8/8/k7/7K b - - 0 1"]
    assert not any(line.startswith("info string") for line in out), out


def test_unknown_leading_tokens_are_skipped() -> None:
    out = transcript("joho isready", "quit")
    assert out == ["readyok"]


def test_isready_is_answered_during_a_long_perft() -> None:
    with Engine() as engine:
        engine.send("go perft 7", "isready")
        assert engine.next_line()[1] == "readyok"      # perft 7 is far from done
        engine.send("stop")
        assert engine.read_until("info string perft stopped")
        assert engine.quit() == 0
