"""What a net sees in a position (the ``eval`` command): the TD net's output,
phase blend and the inputs that move its output most (``Eval td``), or the
NNUE's bucket, score and the men that weigh most in it (``Eval nnue``).

An input's contribution is what the output loses when the input is taken
away: a number set back to its mean over the training positions, a piece's
square input switched off, a man taken off the board.
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


# --- the NNUE (Eval nnue) --------------------------------------------------------

COLOURS = ("white", "black")


def explain_nnue(net, board: Board, cp: int, top: int = 8) -> list[str]:
    """The ``eval`` report of an NNUE (engine.evaluation.nnue.NnueNet): its
    bucket and score, and the men that weigh most in it: each man's
    contribution is the score less the score without him (the reference's
    integers; kings are never taken off), from the side to move's view.
    ``cp``: the engine's score here (the endgame rules and the clamp
    included)."""
    from engine.evaluation.nnue import bucket, fen_pieces
    pieces, stm = fen_pieces(board.fen())
    raw = net.centipawns(pieces, stm)
    effects = []
    for i, (colour, ptype, sq) in enumerate(pieces):
        if ptype == 5:
            continue
        without = net.centipawns(pieces[:i] + pieces[i + 1:], stm)
        effects.append((raw - without, f"{COLOURS[colour]} {PIECES[ptype]} on {'abcdefgh'[sq % 8]}{sq // 8 + 1}"))
    effects.sort(key=lambda e: (-abs(e[0]), e[1]))
    lines = [f"NNUE: (768->{net.hidden})x2->1, 8 buckets, scale {net.scale:g}, fingerprint {net.fingerprint()}",
             f"{len(pieces)} men: bucket {bucket(len(pieces))}; the net says {raw / 100:+.2f} pawns "
             f"for the side to move ({'White' if stm == 0 else 'Black'})"]
    if cp != raw:
        lines.append(f"the engine scores {cp / 100:+.2f}: " +
                     ("an endgame rule decides this position (EndgameRules)" if abs(raw) <= 20000 else
                      "the net's score clamped below the mate scores"))
    lines.append("the men that weigh most (the score less the score without him, side to move's view):")
    lines += [f"  {effect / 100:+7.2f}  {what}" for effect, what in effects[:top]]
    white = cp if stm == 0 else -cp
    lines.append(f"Final evaluation: {white / 100:+.2f} (White's view)")
    return lines
