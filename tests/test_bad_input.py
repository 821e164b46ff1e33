"""Garbage in: the engine reports, keeps its state, and still plays correctly."""
import random
import subprocess
import sys
from pathlib import Path

import chess

ENGINE = [sys.executable, str(Path(__file__).resolve().parent.parent / "uci_main.py")]

WORDS = ["uci", "isready", "position", "startpos", "fen", "moves", "go", "stop", "ponderhit",
         "setoption", "name", "value", "Hash", "MultiPV", "depth", "wtime", "btime", "winc",
         "movestogo", "nodes", "movetime", "mate", "infinite", "ponder", "searchmoves", "perft",
         "e2e4", "e7e5", "e1g1", "a7a8q", "0000", "-1", "99999999999999999999", "3", "0", "x",
         "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "w", "b", "KQkq", "-", "ucinewgame",
         "8/8/8/8/8/8/8/8", "K7/8/8/8/8/8/8/7k", "\t", "€", "debug", "on", "register", "d", "eval"]


def malformed_lines(rng: random.Random, count: int) -> list[str]:
    lines = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.6:
            lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))))
        elif kind < 0.8:
            lines.append("".join(chr(rng.randint(1, 0x2FF)) for _ in range(rng.randint(0, 40)))
                         .replace("\n", " ").replace("\r", " "))
        else:
            lines.append(rng.choice(["position fen", "position startpos moves e2e5",
                                     "go wtime -100 btime -100", "go depth -3",
                                     "go nodes 99999999999999999999999", "go movetime x",
                                     "setoption name Hash value 0", "setoption name",
                                     "setoption name MultiPV value 999", "position fen 8/8/8/8 w",
                                     "go searchmoves e2e5 a1a1", "perft 0", "perft 99"]))
    return lines


def bounded(lines: list[str]) -> list[str]:
    """Searches the garbage starts must end: give them a depth, and stop them."""
    out = []
    for line in lines:
        out.append(line + (" depth 2" if "go" in line.split() else ""))
        if "go" in line.split() or "perft" in line.split():
            out.append("stop")
    return out


def test_garbage_then_a_correct_game() -> None:
    garbage = bounded(malformed_lines(random.Random(1234), 400))
    proc = subprocess.Popen(ENGINE, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace")
    proc.stdin.write("\n".join(garbage) + "\n")
    marker = "8/8/8/8/8/8/8/K6k w - - 0 1"
    proc.stdin.write(f"stop\nsetoption name MultiPV value 1\nucinewgame\nposition fen {marker}\nd\n")
    proc.stdin.flush()
    reports = 0
    while (line := proc.stdout.readline()).strip() != f"Fen: {marker}":
        assert line, "engine died"
        reports += line.startswith("info string")
    assert reports > 100                       # the garbage was noticed, line by line
    game = chess.Board()
    while not game.is_game_over() and game.ply() < 16:
        moves = " ".join(m.uci() for m in game.move_stack)
        proc.stdin.write(f"position startpos moves {moves}\ngo depth 3\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        while not line.startswith("bestmove"):
            assert line, "engine died"
            line = proc.stdout.readline()
        move = chess.Move.from_uci(line.split()[1])
        assert move in game.legal_moves
        game.push(move)
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    assert proc.wait(timeout=10) == 0
    assert proc.stderr.read() == ""
