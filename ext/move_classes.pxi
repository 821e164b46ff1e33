# Move classes and square control: how the ChessMaps heuristic sees a move
# (../shared/papers/002_*.txt, "Move types"; the ChessMaps heuristic it
# builds on). Every move is safe or unsafe, and a capture, forced, forcing or
# other move; the classes rank as the paper lists them:
#
#   1. safe captures, safe forced and safe forcing moves (safe tactical)
#   2. safe other moves
#   3. unsafe captures, unsafe forced and unsafe forcing moves
#   4. unsafe other moves
#
# Inside a class, moves rank by the square control they gain over the
# regions that matter (REGION_WEIGHT: a hand rule, see below).

cdef enum:
    MC_CAPTURE = 1      # takes a piece, or promotes
    MC_FORCED = 2       # the piece stood en prise: it had to move
    MC_FORCING = 4      # it creates a winning capture threat, or gives check
    MC_UNSAFE = 8       # it loses material on its destination square (static exchange < 0)
    MC_TACTICAL = MC_CAPTURE | MC_FORCED | MC_FORCING

MOVE_CLASS_NAMES = {MC_CAPTURE: "capture", MC_FORCED: "forced", MC_FORCING: "forcing", MC_UNSAFE: "unsafe"}

# Which squares matter, for White (Black's board is flipped): every square
# 1; the opponent's half +1; the extended centre (c3-f6) +1 and the centre
# (d4-e5) +2 more. The squares around the enemy king add 2 at run time.
cdef int REGION_WEIGHT[64]
for _sq in range(64):
    REGION_WEIGHT[_sq] = (1 + (_sq >= 32) + (2 <= _sq % 8 <= 5 and 2 <= _sq // 8 <= 5)
                          + 2 * (3 <= _sq % 8 <= 4 and 3 <= _sq // 8 <= 4))

# Square weights held as bit planes: a square weighs the sum of 2**b over the
# planes b that hold it (0..SQUARE_WEIGHT_MAX). The weight of a set of squares
# is then four popcounts, not a loop over its squares: the chessmaps order
# asks it twice for every quiet move at every node it scores.
cdef enum:
    WEIGHT_PLANES = 4
    SQUARE_WEIGHT_MAX = (1 << WEIGHT_PLANES) - 1

ctypedef struct SquareWeights:
    u64 plane[WEIGHT_PLANES]

cdef void weights_from_ints(const int* weights, SquareWeights* w) noexcept nogil:
    """The planes of 64 weights (a1..h8), each 0..SQUARE_WEIGHT_MAX."""
    cdef int sq, b
    for b in range(WEIGHT_PLANES):
        w.plane[b] = 0
        for sq in range(64):
            if (weights[sq] >> b) & 1:
                w.plane[b] |= bit(sq)

cdef inline int square_weight(const SquareWeights* w, int sq) noexcept nogil:
    cdef int b, total = 0
    for b in range(WEIGHT_PLANES):
        total += <int>((w.plane[b] >> sq) & 1) << b
    return total

# REGION_WEIGHT's planes from each side's view (at most 5: three planes).
cdef SquareWeights REGION_PLANES[2]
cdef int _region_flipped[64]
for _sq in range(64):
    _region_flipped[_sq] = REGION_WEIGHT[_sq ^ 56]
weights_from_ints(REGION_WEIGHT, &REGION_PLANES[WHITE])
weights_from_ints(_region_flipped, &REGION_PLANES[BLACK])


cdef u64 en_prise(const Position* pos, int color) noexcept nogil:
    """``color``'s pieces (the king aside) the other side can take with gain:
    attacked by a cheaper piece, or attacked and not defended."""
    cdef int them = color ^ 1, sq
    cdef u64 result = 0, attackers
    cdef u64 b = pos.occ[color] & ~pos.pieces[KING + 6 * color]
    while b:
        sq = pop_lsb(&b)
        attackers = attackers_to(pos, sq, pos.all)
        if not (attackers & pos.occ[them]):
            continue
        if (not (attackers & pos.occ[color])
                or SEE_VALUE[least_valuable(pos, attackers & pos.occ[them], them)]
                < SEE_VALUE[piece_type(pos.board[sq])]):
            result |= bit(sq)
    return result


cdef inline u64 attacks_from(int pt, int color, int sq, u64 occ) noexcept nogil:
    if pt == PAWN:
        return PAWN_ATK[color][sq]
    return piece_attacks(pt, sq, occ)


cdef bint threatens(const Position* pos, Move m) noexcept nogil:
    """After ``m`` the moved piece gives check, or attacks an enemy piece it
    could take with gain: one worth more than itself, or one left undefended."""
    cdef int frm = move_from(m), to = move_to(m), us = pos.stm, them = pos.stm ^ 1, t
    cdef int pt = promo_type(m) if move_flag(m) >= F_PROMO else piece_type(pos.board[frm])
    cdef u64 occ = (pos.all & ~bit(frm)) | bit(to)
    cdef u64 enemy = pos.occ[them] & ~bit(to)
    cdef u64 targets = attacks_from(pt, us, to, occ) & enemy
    if targets & pos.pieces[KING + 6 * them]:
        return True
    while targets:
        t = pop_lsb(&targets)
        if SEE_VALUE[piece_type(pos.board[t])] > SEE_VALUE[pt]:
            return True
        if not (attackers_to(pos, t, occ) & enemy):
            return True
    return False


cdef int move_class(const Position* pos, Move m, u64 own_en_prise) noexcept nogil:
    """The MC_ flags of ``m``; ``own_en_prise``: en_prise(pos, pos.stm)."""
    cdef int flags = 0
    if is_noisy(pos, m):
        flags |= MC_CAPTURE
    if own_en_prise & bit(move_from(m)):
        flags |= MC_FORCED
    if move_flag(m) != F_CASTLE and threatens(pos, m):
        flags |= MC_FORCING
    if see(pos, m) < 0:
        flags |= MC_UNSAFE
    return flags


cdef inline int class_rank(int flags) noexcept nogil:
    """0 for the paper's first class (safe tactical) .. 3 for its last (unsafe other)."""
    return 2 * ((flags & MC_UNSAFE) != 0) + ((flags & MC_TACTICAL) == 0)


cdef void hand_regions(const Position* pos, SquareWeights* w) noexcept nogil:
    """The hand rule's weights for the side to move: REGION_WEIGHT's planes
    with 2 added on the enemy king's square and those around it (a bit-sliced
    add: the sums stay within 7, so nothing carries out of the third plane)."""
    cdef const SquareWeights* region = &REGION_PLANES[pos.stm]
    cdef u64 king_zone = KING_ATK[pos.king[pos.stm ^ 1]] | bit(pos.king[pos.stm ^ 1])
    cdef u64 carry = region.plane[1] & king_zone
    w.plane[0] = region.plane[0]
    w.plane[1] = region.plane[1] ^ king_zone
    w.plane[2] = region.plane[2] ^ carry
    w.plane[3] = region.plane[2] & carry


cdef inline int weighted_squares(const SquareWeights* w, u64 squares) noexcept nogil:
    return (popcount(squares & w.plane[0]) + 2 * popcount(squares & w.plane[1])
            + 4 * popcount(squares & w.plane[2]) + 8 * popcount(squares & w.plane[3]))


cdef int control_gain(const Position* pos, Move m, const SquareWeights* weights) noexcept nogil:
    """The weighted squares the moved piece attacks from its destination, less
    those it attacked from where it stood: its change in square control.
    ``weights``: each square's (hand_regions, or the regions net's)."""
    cdef int frm = move_from(m), to = move_to(m), us = pos.stm
    cdef int pt = promo_type(m) if move_flag(m) >= F_PROMO else piece_type(pos.board[frm])
    cdef u64 occ = (pos.all & ~bit(frm)) | bit(to)
    if move_flag(m) == F_CASTLE:
        return 0
    return (weighted_squares(weights, attacks_from(pt, us, to, occ))
            - weighted_squares(weights, attacks_from(piece_type(pos.board[frm]), us, frm, pos.all)))


cdef void square_control(const Position* pos, int8_t* owner) noexcept nogil:
    """Per square: 1 where White controls it (its least valuable attacker is
    cheaper than Black's, or Black has none), -1 where Black does, 0 otherwise."""
    cdef SideAttacks att[2]
    cdef u64 white, black
    cdef int sq
    both_attacks(pos, att)
    white = controlled(&att[WHITE], &att[BLACK])
    black = controlled(&att[BLACK], &att[WHITE])
    for sq in range(64):
        owner[sq] = 1 if white & bit(sq) else (-1 if black & bit(sq) else 0)
