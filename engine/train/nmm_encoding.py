"""The numpy twin of ext/nmm.pxi: NMM inputs and outputs for whole pattern sets.

The search encodes one position at a time in Cython; training encodes
millions at once here. tests/test_nmm.py checks that both agree.
"""
from __future__ import annotations

import numpy as np

from engine.data.patterns import PatternSet
from engine.nets import NMM_ENCODINGS as ENCODINGS     # the engine's names and input counts
from engine.nets import NMM_OUTPUTS as N_OUTPUTS

MIRRORED = ("mirrored768", "context960")
EMPTY = 12


def _output_table() -> tuple[np.ndarray, np.ndarray]:
    """OUTPUT_INDEX[from, to] (-1 if no piece can make it) and the pairs in order."""
    index = np.full((64, 64), -1, np.int32)
    pairs = []
    for frm in range(64):
        f0, r0 = frm % 8, frm // 8
        for to in range(64):
            f1, r1 = to % 8, to // 8
            df, dr = abs(f1 - f0), abs(r1 - r0)
            queen = frm != to and (df == 0 or dr == 0 or df == dr)
            knight = (df, dr) in ((1, 2), (2, 1))
            if queen or knight:
                index[frm, to] = len(pairs)
                pairs.append((frm, to))
    return index, np.array(pairs, np.int8)


OUTPUT_INDEX, OUTPUT_PAIRS = _output_table()
assert len(OUTPUT_PAIRS) == N_OUTPUTS


def encode_inputs(patterns: PatternSet, encoding: str) -> tuple[np.ndarray, np.ndarray]:
    """Active inputs of every position: (N, K) indices and values.

    Unused slots point at index ``n_inputs`` (one past the last input) with
    value 0, so a weight matrix with one extra zero column sums them away.
    """
    board, stm = patterns.board, patterns.stm
    n_inputs = ENCODINGS[encoding]
    n = len(stm)
    order = np.argsort(board == EMPTY, axis=1, kind="stable")[:, :32]     # occupied squares first
    piece = np.take_along_axis(board, order, axis=1).astype(np.int32)
    sq = order.astype(np.int32)
    valid = piece != EMPTY
    color, ptype = piece // 6, piece % 6
    stm_col = stm.astype(np.int32)[:, None]
    if encoding == "paper385":
        idx = sq * 6 + ptype
        val = np.where(color == 0, 1.0, -1.0)
    elif encoding == "planes769":
        idx = color * 384 + ptype * 64 + sq
        val = np.ones_like(idx, dtype=np.float64)
    else:
        idx = (color ^ stm_col) * 384 + ptype * 64 + (sq ^ (56 * stm_col))
        val = np.ones_like(idx, dtype=np.float64)
    columns = [np.where(valid, idx, n_inputs)]
    values = [np.where(valid, val, 0.0)]
    if encoding in ("paper385", "planes769"):
        columns.append(np.full((n, 1), n_inputs - 1))
        values.append(np.where(stm == 0, 1.0, -1.0)[:, None])
    elif encoding == "context960":
        for plane, base in zip(context_planes(patterns), (768, 832, 896)):
            c, v = plane_inputs(plane, base, stm_col, n_inputs)
            columns.append(c)
            values.append(v)
    return (np.concatenate(columns, axis=1).astype(np.int32),
            np.concatenate(values, axis=1).astype(np.float32))


def context_planes(patterns: PatternSet) -> list[np.ndarray]:
    """(N, 64) booleans, board squares: opponent attacks, our hanging pieces, last move."""
    from engine._core import attack_maps
    maps = attack_maps(np.ascontiguousarray(patterns.board), np.ascontiguousarray(patterns.stm))
    bits = np.unpackbits(maps.view(np.uint8).reshape(-1, 3, 8), axis=2,
                         bitorder="little").reshape(-1, 3, 64).astype(bool)
    board = patterns.board.astype(np.int32)
    own = (board != EMPTY) & (board // 6 == patterns.stm[:, None])
    last = np.zeros_like(own)
    has_last = patterns.last_to >= 0
    last[np.flatnonzero(has_last), patterns.last_to[has_last].astype(np.int64)] = True
    return [bits[:, 1], own & bits[:, 1] & ~bits[:, 0], last]


def plane_inputs(plane: np.ndarray, base: int, stm_col: np.ndarray,
                 n_inputs: int) -> tuple[np.ndarray, np.ndarray]:
    """A plane of squares as inputs base + square (flipped for Black), padded."""
    width = max(1, int(plane.sum(axis=1).max()))
    order = np.argsort(~plane, axis=1, kind="stable")[:, :width]       # set squares first
    on = np.take_along_axis(plane, order, axis=1)
    idx = np.where(on, base + (order ^ (56 * stm_col)), n_inputs)
    return idx, on.astype(np.float64)


def encode_outputs(patterns: PatternSet, encoding: str) -> np.ndarray:
    """The output of every legal move (castling: the king's squares; mirrored
    for Black in the mirrored encoding)."""
    counts = patterns.n_moves
    stm = np.repeat(patterns.stm, counts).astype(np.int32)
    frm = patterns.legal[:, 0].astype(np.int32)
    to = patterns.legal[:, 1].astype(np.int32)
    if encoding in MIRRORED:
        frm ^= 56 * stm
        to ^= 56 * stm
    outputs = OUTPUT_INDEX[frm, to]
    if (outputs < 0).any():         # numpy would read -1 as the last output
        bad = int(np.argmax(outputs < 0))
        raise ValueError(f"move {frm[bad]}-{to[bad]} has no net output")
    return outputs
