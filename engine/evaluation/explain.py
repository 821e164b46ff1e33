"""What the TD net sees in a position: its output, the phase blend, and the
inputs that move its output most (the ``eval`` command with ``Eval td``).

An input's contribution is what the output loses when the input is taken
away: a number set back to its mean over the training positions, a piece's
square input switched off.
"""
from __future__ import annotations

import numpy as np

from engine._core import FEATURE_NAMES, Board
from engine.nets import PHASE_NAMES, TdNet, rule_weights

PIECES = ["pawn", "knight", "bishop", "rook", "queen", "king"]


def square_name(index: int, squares: str) -> str:
    """The piece and (side-to-move relative) square of a square input."""
    if squares == "B":
        side, piece, rel = ((index // 64, "king", index % 64) if index < 128
                            else ((index - 128) // 48, "pawn", (index - 128) % 48 + 8))
    else:
        side, rest = divmod(index, 368)
        piece, rel = ("pawn", rest + 8) if rest < 48 else (PIECES[1 + (rest - 48) // 64], (rest - 48) % 64)
    return f"{'our' if side == 0 else 'their'} {piece} on {'abcdefgh'[rel % 8]}{rel // 8 + 1}"


def explain(net: TdNet, board: Board, output: float, cp: int, top: int = 8) -> list[str]:
    """The report's lines; ``output`` and ``cp``: the core's net output and score here."""
    values, active = board.td_features(net.squares)
    dense = np.array(values, np.float32)
    weights = rule_weights(net.phase, np.array([board.phase]), net.nets, np.array([board.home]),
                           np.array([board.fullmove]))[0]
    base = net.evaluate(dense, active, weights)
    mean = np.array(net.info.get("feature_mean", np.zeros(len(dense))), np.float32)
    effects = []
    for i, name in enumerate(FEATURE_NAMES):
        if dense[i] != mean[i]:
            changed = dense.copy()
            changed[i] = mean[i]
            effects.append((base - net.evaluate(changed, active, weights), f"{name} = {values[i]:g}"))
    for a in active:
        rest = [b for b in active if b != a]
        effects.append((base - net.evaluate(dense, rest, weights), square_name(a, net.squares)))
    effects.sort(key=lambda e: -abs(e[0]))
    blend = ", ".join(f"{name} {w:.2f}" for name, w in zip(PHASE_NAMES, weights)) if net.nets == 3 else "one net"
    lines = [f"TD net: {net.squares} features, {net.nets} net(s) of {net.hidden} hidden units",
             f"phase {board.phase}/24, {board.home} men at home, move {board.fullmove} ({net.phase} rule): {blend}",
             (f"output {output:+.4f} (a correction to the handwritten score, side to move's view): "
              f"{cp / 100:+.2f} pawns in all (scale K {net.cp_scale:.1f})" if net.on_handwritten else
              f"output {output:+.4f} (expected result for the side to move) = {cp / 100:+.2f} pawns "
              f"(scale K {net.cp_scale:.1f})"),
             "strongest inputs (output without the input's value, side to move's view):"]
    lines += [f"  {effect:+.4f}  {what}" for effect, what in effects[:top]]
    white = cp if board.turn == "w" else -cp
    lines.append(f"Final evaluation: {white / 100:+.2f} (White's view)")
    return lines
