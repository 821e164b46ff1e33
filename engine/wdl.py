"""Win, draw and loss chances from a search score (UCI_ShowWDL): the
``wdl W D L`` of an ``info`` line, in per mille.

The model, fitted to the engine's own self-play games (engine/train/wdl.py,
reports/wdl/README.md; its numbers in engine/wdl_params.py):

    P(win)  = σ(( s − a(m)) / b(m))
    P(loss) = σ((−s − a(m)) / b(m))
    P(draw) = 1 − P(win) − P(loss)

``s``: the score in centipawns, side to move's view; ``m``: the material on
the board (pawns 1, knights and bishops 3, rooks 5, queens 9, both sides),
clamped to [MATERIAL_MIN, MATERIAL_MAX]; ``a`` and ``b``: polynomials of
``m / MATERIAL_SCALE``. ``a`` (at least 1) is the score from which a win is
more likely than not, so the three chances are never negative. A mate is
1000/0/0 for the side that mates, 0/0/1000 for the side mated.

>>> permille(0, 40) == permille(0, 40)[::-1]
True
>>> sum(permille(137, 31))
1000
>>> mate_permille(3), mate_permille(-2), mate_permille(0)
((1000, 0, 0), (0, 0, 1000), (0, 0, 1000))
"""
from __future__ import annotations

import math

from engine.wdl_params import MATERIAL_MAX, MATERIAL_MIN, A, B

PIECE_VALUES = (1, 3, 3, 5, 9, 0)        # pawn, knight, bishop, rook, queen, king
MATERIAL_SCALE = 58                      # x = m / 58, as Stockfish's model has it
_VALUE = dict(zip("pnbrqk", PIECE_VALUES))


def material(fen: str) -> int:
    """The material of a position (its FEN), both sides.

    >>> material("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    78
    """
    return sum(_VALUE.get(c, 0) for c in fen.split()[0].lower())


def _poly(coefficients: tuple[float, ...], x: float) -> float:
    value = 0.0
    for c in coefficients:               # highest power first
        value = value * x + c
    return value


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


def chances(score: float, material: int) -> tuple[float, float, float]:
    """P(win), P(draw), P(loss) for the side to move."""
    x = min(max(material, MATERIAL_MIN), MATERIAL_MAX) / MATERIAL_SCALE
    a, b = max(_poly(A, x), 1.0), max(_poly(B, x), 1.0)
    win, loss = _sigmoid((score - a) / b), _sigmoid((-score - a) / b)
    return win, max(1.0 - win - loss, 0.0), loss


def permille(score: float, material: int) -> tuple[int, int, int]:
    """W, D, L in per mille, summing to 1000."""
    win, _, loss = chances(score, material)
    w, l = round(1000 * win), round(1000 * loss)
    if w + l > 1000:                     # rounding both up
        if w >= l:
            w = 1000 - l
        else:
            l = 1000 - w
    return w, 1000 - w - l, l


def mate_permille(mate: int) -> tuple[int, int, int]:
    """A mate in ``mate`` moves (negative: the side to move is mated; 0: it is)."""
    return (1000, 0, 0) if mate > 0 else (0, 0, 1000)


def wdl(line: dict, material: int) -> tuple[int, int, int]:
    """The W, D, L of a search report (engine.protocol.format_info's ``line``)."""
    if line.get("mate") is not None:
        return mate_permille(line["mate"])
    return permille(line["score"], material)
