"""The thesis's first check of the TD learner (Mannen, chapter 4): tic-tac-toe
against a win-block-random player.

The net sees the nine squares (+1 cross, -1 nought, 0 empty) and who is to
move, and predicts the result for cross. It plays by trying every move and
taking the one whose position it values best for its side (one ply), and
learns after every game from the game's positions by TD(lambda).

>>> winner([1, 1, 1, 0, -1, -1, 0, 0, 0])
1
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from engine.train.td import Mlp, Sgd, td_block

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board: list[int]) -> int:
    """+1 or -1 for three in a row of that side, else 0."""
    for a, b, c in LINES:
        if board[a] != 0 and board[a] == board[b] == board[c]:
            return board[a]
    return 0


def inputs(board: list[int], to_move: int) -> list[float]:
    return [float(v) for v in board] + [float(to_move)]


def win_block_random(board: list[int], side: int, rng: random.Random) -> int:
    """Win if it can, block the opponent's win if it must, else any empty square."""
    empty = [i for i, v in enumerate(board) if v == 0]
    for who in (side, -side):
        for i in empty:
            board[i] = who
            won = winner(board) == who
            board[i] = 0
            if won:
                return i
    return rng.choice(empty)


def net_move(net: Mlp, board: list[int], side: int) -> int:
    """The empty square whose resulting position the net values best for ``side``."""
    empty = [i for i, v in enumerate(board) if v == 0]
    after = []
    for i in empty:
        board[i] = side
        after.append(inputs(board, -side))
        board[i] = 0
    values = net(np.array(after, np.float32)) * side
    return empty[int(np.argmax(values))]


def play(net: Mlp, net_side: int, rng: random.Random, explore: float = 0.0
         ) -> tuple[int, list[list[float]]]:
    """One game; returns the result for cross and the positions seen. With
    probability ``explore`` the net plays a random move instead of its best."""
    board, side = [0] * 9, 1
    positions = [inputs(board, side)]
    while True:
        if side != net_side:
            move = win_block_random(board, side, rng)
        elif rng.random() < explore:
            move = rng.choice([i for i, v in enumerate(board) if v == 0])
        else:
            move = net_move(net, board, side)
        board[move] = side
        side = -side
        positions.append(inputs(board, side))
        if winner(board) or 0 not in board:
            return winner(board), positions


@dataclass
class Score:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, result: int) -> None:
        if result > 0:
            self.wins += 1
        elif result < 0:
            self.losses += 1
        else:
            self.draws += 1


def train(games: int, hidden: int = 40, lr: float = 0.01, lam: float = 0.9, seed: int = 1,
          explore: float = 0.1, net: Mlp | None = None) -> Mlp:
    """Learn by TD(lambda) from ``games`` games, the net playing either side in turn.

    As in the thesis, lambda falls linearly from ``lam`` to 0 over the run;
    the learning rate and the exploration fall with it to a tenth.
    """
    rng = random.Random(seed)
    net = net or Mlp.create(10, hidden, seed, scale=1.0)
    optimiser = Sgd(lr)
    for g in range(games):
        left = 1.0 - g / games
        optimiser.lr = lr * (0.1 + 0.9 * left)
        result, positions = play(net, 1 if g % 2 == 0 else -1, rng, explore * (0.1 + 0.9 * left))
        n = len(positions)
        td_block(net, optimiser, np.array(positions, np.float32), np.ones(n, np.float32),
                 np.zeros(n, np.int64), np.arange(n), np.array([n]), np.array([float(result)]),
                 lam * left)
    return net


def match(net: Mlp, games: int, seed: int = 2) -> Score:
    """The net's score against win-block-random, half the games with each side."""
    rng = random.Random(seed)
    score = Score()
    for g in range(games):
        side = 1 if g % 2 == 0 else -1
        result, _ = play(net, side, rng)
        score.add(result * side)
    return score
