"""A fake UCI engine that misbehaves on request, to drive the match runner's
failure paths (engine/tools/match.py) in tests.

It answers at once with a seeded random legal move (or the first legal move
of ``--prefer``, so that a test can script a short game), and from its
``--after``-th ``go`` on does what ``--mode`` says:

* ``normal``: nothing wrong;
* ``late``: answers only after its own clock (the wtime/btime it was sent)
  ran out, plus ``--late`` seconds: a time forfeit whatever the machine's speed;
* ``never``: never answers, and reads no more commands, ``stop`` and ``quit``
  included (the runner's hang guard fires, and only a kill ends it);
* ``illegal``: answers a well-formed move that is not legal;
* ``nomove``: answers ``bestmove (none)`` in a position with legal moves;
* ``die``: exits in the middle of the game, without an answer.

``--once PATH``: misbehave only while PATH does not exist, and create it on
misbehaving, so that the engine the runner starts in place of a failed one
(and the next game of the same process) plays normally.
``--score CP``: an ``info depth 1 score cp`` line before each answer, CP
from White's point of view (sent from the mover's, as UCI wants), to
trigger the runner's adjudication. ``--log PATH``: each line received,
after this process's id, so a test sees which process played and what
clock it was given.

Uses python-chess for the legal moves only; stdlib otherwise.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

import chess

MODES = ("normal", "late", "never", "illegal", "nomove", "die")


def options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=MODES, default="normal")
    parser.add_argument("--after", type=int, default=1, help="Misbehave from this go on (1: the first).")
    parser.add_argument("--once", type=Path, default=None, help="Misbehave only while this file is missing.")
    parser.add_argument("--late", type=float, default=0.3, help="Seconds past its clock a late answer takes.")
    parser.add_argument("--score", type=int, default=None, help="Score to report, centipawns for White.")
    parser.add_argument("--prefer", default="", help="Moves (uci, comma separated) played when legal.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log", type=Path, default=None)
    return parser.parse_args(argv)


def position(tokens: list[str]) -> chess.Board:
    """The board of ``position startpos|fen <fen> [moves ...]`` (tokens after ``position``)."""
    moves_at = tokens.index("moves") if "moves" in tokens else len(tokens)
    board = chess.Board() if tokens[0] == "startpos" else chess.Board(" ".join(tokens[1:moves_at]))
    for move in tokens[moves_at + 1:]:
        board.push_uci(move)
    return board


def illegal_move(board: chess.Board) -> chess.Move:
    """A well-formed move of one of the mover's pieces that is not legal."""
    for source in chess.SquareSet(board.occupied_co[board.turn]):
        for target in chess.SQUARES:
            move = chess.Move(source, target)
            if target != source and not board.is_legal(move):
                return move
    raise AssertionError("no illegal move")


def stuck() -> None:
    """Stop reading commands, as a search stuck in a loop does (``quit``
    included), until killed; or until the runner is gone, not to outlive it."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(4)


class Fake:
    """The engine's state: its options, the position it was sent, its ``go`` count."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.prefer = [chess.Move.from_uci(m) for m in args.prefer.split(",") if m]
        self.board = chess.Board()
        self.goes = 0

    def send(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def log(self, line: str) -> None:
        if self.args.log is not None:
            with open(self.args.log, "a") as f:
                f.write(f"{os.getpid()} {line}\n")

    def misbehaves(self) -> bool:
        """Whether this ``go`` is one to get wrong (and, with --once, claim the one failure)."""
        once = self.args.once
        if self.args.mode == "normal" or self.goes < self.args.after or (once and once.exists()):
            return False
        if once:
            once.touch()
        return True

    def choose(self) -> chess.Move:
        legal = sorted(self.board.legal_moves, key=chess.Move.uci)
        preferred = [m for m in self.prefer if m in legal]
        return preferred[0] if preferred else self.rng.choice(legal)

    def go(self, tokens: list[str]) -> None:
        self.goes += 1
        mode = self.args.mode if self.misbehaves() else "normal"
        if mode == "die":
            os._exit(3)
        if mode == "never":
            stuck()
        if mode == "late":         # its own clock, as sent: late on any machine
            key = "wtime" if self.board.turn == chess.WHITE else "btime"
            clock = int(tokens[tokens.index(key) + 1]) / 1000 if key in tokens else 0.0
            time.sleep(clock + self.args.late)
        if self.args.score is not None:
            mover = self.args.score if self.board.turn == chess.WHITE else -self.args.score
            self.send(f"info depth 1 score cp {mover}")
        if mode == "nomove":
            self.send("bestmove (none)")
            return
        move = illegal_move(self.board) if mode == "illegal" else self.choose()
        self.send(f"bestmove {move.uci()}")

    def handle(self, line: str) -> bool:
        """Answer one command; False on ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        self.log(" ".join(tokens))
        command = tokens[0]
        if command == "uci":
            self.send("id name fake")
            self.send("id author nmm-chess tests")
            self.send("uciok")
        elif command == "isready":
            self.send("readyok")
        elif command == "position":
            self.board = position(tokens[1:])
        elif command == "go":
            self.go(tokens[1:])
        elif command == "quit":
            return False
        return True                 # ucinewgame, stop (answers are instant or never), setoption


def main(argv: list[str]) -> int:
    fake = Fake(options(argv))
    fake.log("start")
    for line in sys.stdin:
        if not fake.handle(line):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
