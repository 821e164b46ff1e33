# The regions that matter, learned: the ChessMaps heuristic's net from square
# control (../shared/papers/002_*.txt and the heuristic it builds on). A
# linear net with a sigmoid per square reads who controls each square and
# where the pieces stand, from the side to move's view (Black mirrored), and
# gives each square the probability that a master's quiet move here acts on
# it: lands on it or attacks it from where it lands (engine/train/regions.py).
# Scaled to 0..REGION_SCALE, these replace the hand rule's weights
# (hand_regions, move_classes.pxi) in the chessmaps order's control gain.

from libc.math cimport exp

cdef enum:
    REGION_INPUTS = 2 * 64 + 12 * 64    # squares we control, they control; our pawns..king, theirs
    REGION_MAX_ACTIVE = 2 * 64 + 32
    REGION_SCALE = 8                    # a square's weight, 0..8, like the hand rule's 1..7

ctypedef struct RegionsNet:
    float* w                # [REGION_INPUTS][64]; NULL: no net loaded
    float b[64]


cdef int region_inputs(const Position* pos, int* active) noexcept nogil:
    """The active inputs (all of value 1) of ``pos``; returns their count."""
    cdef SideAttacks att[2]
    cdef int us = pos.stm, them = pos.stm ^ 1, flip = 0 if pos.stm == WHITE else 56, n = 0, sq, piece
    cdef u64 b
    both_attacks(pos, att)
    b = controlled(&att[us], &att[them])
    while b:
        active[n] = pop_lsb(&b) ^ flip
        n += 1
    b = controlled(&att[them], &att[us])
    while b:
        active[n] = 64 + (pop_lsb(&b) ^ flip)
        n += 1
    b = pos.all
    while b:
        sq = pop_lsb(&b)
        piece = pos.board[sq]
        active[n] = 128 + ((0 if piece_color(piece) == us else 6) + piece_type(piece)) * 64 + (sq ^ flip)
        n += 1
    return n


cdef void net_regions(const RegionsNet* net, const Position* pos, int* weights) noexcept nogil:
    """Every square's weight (a1..h8) by the net, for the side to move."""
    cdef int active[REGION_MAX_ACTIVE]
    cdef float z[64]
    cdef int n = region_inputs(pos, active), i, sq, flip = 0 if pos.stm == WHITE else 56
    cdef const float* row
    for sq in range(64):
        z[sq] = net.b[sq]
    for i in range(n):
        row = &net.w[active[i] * 64]
        for sq in range(64):
            z[sq] += row[sq]
    for sq in range(64):
        weights[sq ^ flip] = <int>(REGION_SCALE / (1.0 + exp(-z[sq])) + 0.5)
