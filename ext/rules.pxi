# The rules that end a game: mate, stalemate, dead material, 50 moves, repetition.

cdef u64 DARK_SQUARES = 0xAA55AA55AA55AA55


cdef bint has_legal_move(const Position* pos) noexcept nogil:
    cdef Move moves[MAX_MOVES]
    return generate_moves(pos, moves, GEN_ALL) > 0


cdef int repetitions(const Position* pos) noexcept nogil:
    """How many earlier positions in the history equal the current one.

    Only positions since the last capture or pawn move can repeat, and only
    every second ply (same side to move); a null move ends the window.
    """
    cdef int count = 0, i = pos.hist_len - 2
    cdef int stop = pos.hist_len - pos.halfmove
    if stop < 0:
        stop = 0
    while i >= stop:
        if pos.hist[i + 1].move == 0 or pos.hist[i].move == 0:
            break
        if pos.hist[i].key == pos.key:
            count += 1
        i -= 2
    return count


cdef bint side_cannot_mate(const Position* pos, int color) noexcept nogil:
    """No sequence of legal moves lets ``color`` mate (python-chess's rule)."""
    cdef u64 own = pos.occ[color], other = pos.occ[color ^ 1]
    cdef u64 bishops = pos.pieces[BISHOP] | pos.pieces[BISHOP + 6]
    if own & (pos.pieces[PAWN + 6 * color] | straight_sliders(pos, color)):
        return False
    if own & pos.pieces[KNIGHT + 6 * color]:
        # A lone knight, and an opponent with nothing that could block his king in.
        return popcount(own) <= 2 and not (other & ~pos.pieces[KING + 6 * (color ^ 1)]
                                           & ~pos.pieces[QUEEN + 6 * (color ^ 1)])
    if own & bishops:
        # Bishops all on one square colour, and no pawns or knights anywhere.
        return ((not (bishops & DARK_SQUARES) or not (bishops & ~DARK_SQUARES))
                and not (pos.pieces[PAWN] | pos.pieces[PAWN + 6])
                and not (pos.pieces[KNIGHT] | pos.pieces[KNIGHT + 6]))
    return True


cdef bint insufficient_material(const Position* pos) noexcept nogil:
    return side_cannot_mate(pos, WHITE) and side_cannot_mate(pos, BLACK)
