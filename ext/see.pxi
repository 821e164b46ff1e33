# Static exchange evaluation: the material outcome of the capture sequence on
# one square, each side recapturing with its least valuable attacker.

cdef int SEE_VALUE[7]
SEE_VALUE[:] = [100, 300, 300, 500, 900, 20000, 0]


cdef inline bint is_noisy(const Position* pos, Move m) noexcept nogil:
    """Captures, en passant and promotions: what quiescence looks at. Castling,
    encoded as the king taking its own rook, is a quiet move."""
    return move_flag(m) >= F_EN_PASSANT or (pos.board[move_to(m)] != EMPTY and move_flag(m) != F_CASTLE)

cdef inline int captured_type(const Position* pos, Move m) noexcept nogil:
    """Type of the piece ``m`` captures; 6 (no piece) for quiet moves and castling."""
    if move_flag(m) == F_EN_PASSANT:
        return PAWN
    if move_flag(m) == F_CASTLE or pos.board[move_to(m)] == EMPTY:
        return 6
    return piece_type(pos.board[move_to(m)])


cdef inline int least_valuable(const Position* pos, u64 pieces, int color) noexcept nogil:
    """The type of ``color``'s cheapest piece among ``pieces`` (6: none)."""
    cdef int pt
    for pt in range(6):
        if pieces & pos.pieces[pt + 6 * color]:
            return pt
    return 6


cdef int see(const Position* pos, Move m) noexcept nogil:
    """Material balance of ``m`` and the best replies on its square, in centipawns."""
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m)
    cdef int gain[32]
    cdef int d = 0, side, attacker_type, pt
    cdef u64 occ, attackers, mine, diag, straight
    if flag == F_CASTLE:
        return 0
    gain[0] = SEE_VALUE[captured_type(pos, m)]
    attacker_type = piece_type(pos.board[frm])
    if flag >= F_PROMO:
        attacker_type = promo_type(m)
        gain[0] += SEE_VALUE[attacker_type] - SEE_VALUE[PAWN]
    occ = pos.all ^ bit(frm)
    if flag == F_EN_PASSANT:
        occ ^= bit(to ^ 8)
    diag = diagonal_sliders(pos, WHITE) | diagonal_sliders(pos, BLACK)
    straight = straight_sliders(pos, WHITE) | straight_sliders(pos, BLACK)
    attackers = attackers_to(pos, to, occ) & occ
    side = pos.stm ^ 1
    while True:
        mine = attackers & pos.occ[side]
        if not mine:
            break
        pt = least_valuable(pos, mine, side)
        d += 1
        gain[d] = SEE_VALUE[attacker_type] - gain[d - 1]   # ``side`` takes the last capturer
        occ ^= bit(lsb(mine & pos.pieces[pt + 6 * side]))
        # Remove the attacker and reveal x-ray attackers behind it.
        attackers = (attackers | (bishop_attacks(to, occ) & diag) | (rook_attacks(to, occ) & straight)) & occ
        attacker_type = pt
        side ^= 1
        if pt == KING and attackers & pos.occ[side]:
            d -= 1                                         # the king cannot take into a defended square
            break
        if d >= 31:
            break
    # Back up: each side may stop capturing when going on loses.
    while d > 0:
        gain[d - 1] = -(gain[d] if gain[d] > -gain[d - 1] else -gain[d - 1])
        d -= 1
    return gain[0]
