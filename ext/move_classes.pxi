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


cdef void hand_regions(const Position* pos, int* weights) noexcept nogil:
    """The hand rule's weight of every square (a1..h8) for the side to move."""
    cdef int sq, flip = 0 if pos.stm == WHITE else 56
    cdef u64 king_zone = KING_ATK[pos.king[pos.stm ^ 1]] | bit(pos.king[pos.stm ^ 1])
    for sq in range(64):
        weights[sq] = REGION_WEIGHT[sq ^ flip] + (2 if king_zone & bit(sq) else 0)


cdef int weighted_squares(const int* weights, u64 squares) noexcept nogil:
    cdef int total = 0
    while squares:
        total += weights[pop_lsb(&squares)]
    return total


cdef int control_gain(const Position* pos, Move m, const int* weights) noexcept nogil:
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
