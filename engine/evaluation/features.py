"""The TD evaluation's inputs, written a second time on python-chess.

The engine computes the features in its core (``ext/eval_features.pxi``,
reached through ``Board.td_features`` and ``replay_features``); this twin is
the independent reference the tests hold the core to, and a readable
statement of every definition. Training uses the core (it is about a thousand
times faster).

>>> import chess
>>> values = features_a(chess.Board())
>>> dict(zip(FEATURE_NAMES, values))["our connectivity"]
19
>>> len(active_squares(chess.Board(), "B"))
18
"""
from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

SIDE_NAMES = [
    "queens", "rooks", "bishops", "knights", "pawns",
    "queen mobility", "rook horizontal mobility", "rook vertical mobility",
    "bishop mobility", "knight mobility", "king mobility", "total mobility",
    "centre pawns", "isolated pawns", "doubled pawns", "passed pawns",
    "pawn forks", "knight forks",
    "queens attacked", "rooks attacked", "bishops attacked", "knights attacked", "king attacked",
    "light pieces on first rank", "horizontally connected rooks", "vertically connected rooks",
    "rooks on seventh rank", "board control", "connectivity", "king distance to centre"]
FEATURE_NAMES = ([f"our {n}" for n in SIDE_NAMES] + [f"their {n}" for n in SIDE_NAMES]
                 + ["material", "material balance"])
SQUARE_INPUTS = {"A": 0, "B": 2 * 64 + 2 * 48, "C": 2 * (5 * 64 + 48)}
PAWN_UNITS = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
CENTRE = chess.BB_D4 | chess.BB_E4 | chess.BB_D5 | chess.BB_E5
# Control levels, cheapest first: pawn, minor piece, rook, queen, king.
LEVELS = [(chess.PAWN,), (chess.KNIGHT, chess.BISHOP), (chess.ROOK,), (chess.QUEEN,), (chess.KING,)]


def popcount(bb: int) -> int:
    return bin(bb).count("1")


def attacks_of(board: chess.Board, color: chess.Color, ptypes: Sequence[int]) -> int:
    """Squares attacked by ``color``'s pieces of the given types (pawns diagonally)."""
    bb = 0
    for pt in ptypes:
        for sq in board.pieces(pt, color):
            bb |= board.attacks_mask(sq)
    return bb


def pawn_classes(board: chess.Board, color: chess.Color) -> tuple[int, int, int]:
    """(isolated, doubled, passed) pawn counts, as the handwritten evaluation has them.

    Doubled: an own pawn further up the file. Passed: no enemy pawn in front on
    its file or a neighbouring one, and the frontmost own pawn of its file.
    """
    own = board.pieces(chess.PAWN, color)
    enemy = board.pieces(chess.PAWN, not color)
    isolated = doubled = passed = 0
    for sq in own:
        f, r = chess.square_file(sq), chess.square_rank(sq)
        ahead = (lambda rr: rr > r) if color == chess.WHITE else (lambda rr: rr < r)
        if not any(abs(chess.square_file(o) - f) == 1 for o in own):
            isolated += 1
        own_ahead = any(chess.square_file(o) == f and ahead(chess.square_rank(o)) for o in own)
        doubled += own_ahead
        blocked = any(abs(chess.square_file(e) - f) <= 1 and ahead(chess.square_rank(e)) for e in enemy)
        passed += not blocked and not own_ahead
    return isolated, doubled, passed


def connected_pairs(board: chess.Board, rooks: list[int], same: callable) -> int:
    pairs = 0
    for i, a in enumerate(rooks):
        for b in rooks[i + 1:]:
            if same(a) == same(b) and not (chess.between(a, b) & board.occupied):
                pairs += 1
    return pairs


def side_features(board: chess.Board, color: chess.Color) -> list[int]:
    """The 30 features of one side (see SIDE_NAMES)."""
    them = not color
    own = board.occupied_co[color]
    enemy_att = attacks_of(board, them, chess.PIECE_TYPES)
    pieces = {pt: list(board.pieces(pt, color)) for pt in chess.PIECE_TYPES}
    reach = {sq: board.attacks_mask(sq) & ~own for pt in chess.PIECE_TYPES[1:5] for sq in pieces[pt]}
    mobility = {pt: sum(popcount(reach[sq]) for sq in pieces[pt]) for pt in chess.PIECE_TYPES[1:5]}
    king = board.king(color)
    king_mobility = popcount(chess.BB_KING_ATTACKS[king] & ~own & ~enemy_att)
    horizontal = sum(popcount(reach[sq] & chess.BB_RANKS[chess.square_rank(sq)]) for sq in pieces[chess.ROOK])
    vertical = sum(popcount(reach[sq] & chess.BB_FILES[chess.square_file(sq)]) for sq in pieces[chess.ROOK])
    isolated, doubled, passed = pawn_classes(board, color)
    big_for_pawn = board.occupied_co[them] & ~board.pieces_mask(chess.PAWN, them)
    big_for_knight = (board.pieces_mask(chess.ROOK, them) | board.pieces_mask(chess.QUEEN, them)
                      | board.pieces_mask(chess.KING, them))
    pawn_forks = sum(popcount(board.attacks_mask(sq) & big_for_pawn) >= 2 for sq in pieces[chess.PAWN])
    knight_forks = sum(popcount(reach[sq] & big_for_knight) >= 2 for sq in pieces[chess.KNIGHT])
    by_pawn = attacks_of(board, them, [chess.PAWN])
    by_minor = attacks_of(board, them, [chess.KNIGHT, chess.BISHOP])
    by_rook = attacks_of(board, them, [chess.ROOK])
    first_rank = chess.BB_RANK_1 if color == chess.WHITE else chess.BB_RANK_8
    seventh = chess.BB_RANK_7 if color == chess.WHITE else chess.BB_RANK_2
    rooks = pieces[chess.ROOK]
    rooks_bb = board.pieces_mask(chess.ROOK, color)
    connectivity = sum(popcount(board.attackers_mask(color, sq)) for sq in chess.scan_forward(own)
                       if sq != king)
    centre_distance = max(max(3 - chess.square_file(king), chess.square_file(king) - 4),
                          max(3 - chess.square_rank(king), chess.square_rank(king) - 4))
    return [
        len(pieces[chess.QUEEN]), len(rooks), len(pieces[chess.BISHOP]), len(pieces[chess.KNIGHT]),
        len(pieces[chess.PAWN]),
        mobility[chess.QUEEN], horizontal, vertical, mobility[chess.BISHOP], mobility[chess.KNIGHT],
        king_mobility, sum(mobility.values()) + king_mobility,
        popcount(board.pieces_mask(chess.PAWN, color) & CENTRE), isolated, doubled, passed,
        pawn_forks, knight_forks,
        popcount(board.pieces_mask(chess.QUEEN, color) & (by_pawn | by_minor | by_rook)),
        popcount(rooks_bb & (by_pawn | by_minor)),
        popcount(board.pieces_mask(chess.BISHOP, color) & by_pawn),
        popcount(board.pieces_mask(chess.KNIGHT, color) & by_pawn),
        int(bool(enemy_att & chess.BB_SQUARES[king])),
        popcount((board.pieces_mask(chess.KNIGHT, color) | board.pieces_mask(chess.BISHOP, color)) & first_rank),
        connected_pairs(board, rooks, chess.square_rank), connected_pairs(board, rooks, chess.square_file),
        popcount(rooks_bb & seventh),
        popcount(controlled(board, color) & ~board.occupied),
        connectivity, centre_distance]


def controlled(board: chess.Board, color: chess.Color) -> int:
    """Squares where ``color``'s cheapest attacker is cheaper than the enemy's (a tie: nobody)."""
    result = 0
    for sq in chess.SQUARES:
        ours = [k for k, types in enumerate(LEVELS)
                if any(board.piece_type_at(a) in types for a in board.attackers(color, sq))]
        theirs = [k for k, types in enumerate(LEVELS)
                  if any(board.piece_type_at(a) in types for a in board.attackers(not color, sq))]
        if ours and (not theirs or min(ours) < min(theirs)):
            result |= chess.BB_SQUARES[sq]
    return result


def features_a(board: chess.Board) -> list[int]:
    """Set A from the side to move's view: ours, theirs, total material, balance."""
    us, them = board.turn, not board.turn
    material = [sum(PAWN_UNITS[p.piece_type] for p in board.piece_map().values()
                    if p.color == side and p.piece_type != chess.KING) for side in (us, them)]
    return side_features(board, us) + side_features(board, them) + [sum(material), material[0] - material[1]]


def active_squares(board: chess.Board, squares: str) -> list[int]:
    """Active square inputs of set B (kings and pawns) or C (all pieces), sorted.

    Squares are mirrored when Black is to move; the layout is the core's
    (see square_index in ext/eval_features.pxi).
    """
    if squares == "A":
        return []
    out = []
    for sq, piece in board.piece_map().items():
        side = 0 if piece.color == board.turn else 1
        rel = chess.square_mirror(sq) if board.turn == chess.BLACK else sq
        if squares == "C":
            base = side * 368
            out.append(base + rel - 8 if piece.piece_type == chess.PAWN
                       else base + 48 + (piece.piece_type - chess.KNIGHT) * 64 + rel)
        elif piece.piece_type == chess.KING:
            out.append(side * 64 + rel)
        elif piece.piece_type == chess.PAWN:
            out.append(128 + side * 48 + rel - 8)
    return sorted(out)


def features_of(boards: Sequence[chess.Board], squares: str = "A") -> tuple[np.ndarray, list[list[int]]]:
    """Set A for many boards as an (n, 62) array, and each board's active squares."""
    dense = np.array([features_a(b) for b in boards], np.float32).reshape(len(boards), len(FEATURE_NAMES))
    return dense, [active_squares(b, squares) for b in boards]
