# Legal move generation.
#
# Moves are generated legal, not pseudo-legal: the king never steps onto an
# attacked square, pinned pieces stay on their pin line, and in check every
# other move must capture the checker or block. Only en passant gets a full
# "is my king attacked afterwards" test, because removing two pawns from one
# rank can uncover a rook (the pinned-pawn case).

cdef enum:
    GEN_ALL = 0
    GEN_NOISY = 1         # captures, en passant and all promotions
    GEN_QUIET = 2         # everything else, castling included

cdef u64 RANK_1_BB = 0xFF
cdef u64 FILE_A_BB = 0x0101010101010101
cdef u64 FILE_H_BB = FILE_A_BB << 7


cdef inline u64 shift_up(u64 b, int color) noexcept nogil:
    return (b << 8) if color == WHITE else (b >> 8)

cdef inline u64 pinned_pieces(const Position* pos, int us, int ksq) noexcept nogil:
    """Our pieces that stand alone between our king and an enemy slider."""
    cdef int them = us ^ 1
    cdef u64 snipers = ((rook_attacks(ksq, 0) & straight_sliders(pos, them))
                        | (bishop_attacks(ksq, 0) & diagonal_sliders(pos, them)))
    cdef u64 pinned = 0, blockers
    while snipers:
        blockers = BETWEEN[ksq][pop_lsb(&snipers)] & pos.all
        if blockers and not more_than_one(blockers):
            pinned |= blockers & pos.occ[us]
    return pinned


cdef inline int add_piece_moves(Move* moves, int n, int frm, u64 targets) noexcept nogil:
    while targets:
        moves[n] = encode_move(frm, pop_lsb(&targets), F_NORMAL)
        n += 1
    return n

cdef inline int add_pawn_moves(Move* moves, int n, u64 targets, int delta, u64 pinned,
                               int ksq, int flag, bint promotion) noexcept nogil:
    """Pawn moves to ``targets`` from ``to - delta``; pinned pawns keep to their line."""
    cdef int to, frm
    while targets:
        to = pop_lsb(&targets)
        frm = to - delta
        if (pinned & bit(frm)) and not (LINE[ksq][frm] & bit(to)):
            continue
        if promotion:
            moves[n] = encode_move(frm, to, F_PROMO + QUEEN - KNIGHT)
            moves[n + 1] = encode_move(frm, to, F_PROMO + ROOK - KNIGHT)
            moves[n + 2] = encode_move(frm, to, F_PROMO + BISHOP - KNIGHT)
            moves[n + 3] = encode_move(frm, to, F_PROMO + KNIGHT - KNIGHT)
            n += 4
        else:
            moves[n] = encode_move(frm, to, flag)
            n += 1
    return n


cdef inline int gen_pawn_moves(const Position* pos, Move* moves, int n, int kind, u64 target,
                               u64 pinned, int ksq, u64 pawns) noexcept nogil:
    cdef int us = pos.stm, them = pos.stm ^ 1
    cdef int up = 8 if us == WHITE else -8
    cdef u64 empty = ~pos.all
    cdef u64 last_rank = RANK_1_BB << (56 if us == WHITE else 0)
    cdef u64 third_rank = RANK_1_BB << (16 if us == WHITE else 40)
    cdef u64 single = shift_up(pawns, us) & empty
    cdef u64 double = shift_up(single & third_rank, us) & empty & target
    cdef u64 left = shift_up(pawns & ~FILE_A_BB, us) >> 1      # captures towards the a-file
    cdef u64 right = shift_up(pawns & ~FILE_H_BB, us) << 1     # captures towards the h-file
    single &= target
    left &= pos.occ[them] & target
    right &= pos.occ[them] & target

    if kind != GEN_QUIET:
        n = add_pawn_moves(moves, n, left & ~last_rank, up - 1, pinned, ksq, F_NORMAL, False)
        n = add_pawn_moves(moves, n, right & ~last_rank, up + 1, pinned, ksq, F_NORMAL, False)
        n = add_pawn_moves(moves, n, left & last_rank, up - 1, pinned, ksq, 0, True)
        n = add_pawn_moves(moves, n, right & last_rank, up + 1, pinned, ksq, 0, True)
        n = add_pawn_moves(moves, n, single & last_rank, up, pinned, ksq, 0, True)
        n = gen_en_passant(pos, moves, n, ksq, pawns)
    if kind != GEN_NOISY:
        n = add_pawn_moves(moves, n, single & ~last_rank, up, pinned, ksq, F_NORMAL, False)
        n = add_pawn_moves(moves, n, double, 2 * up, pinned, ksq, F_DOUBLE, False)
    return n


cdef inline int gen_en_passant(const Position* pos, Move* moves, int n, int ksq, u64 pawns) noexcept nogil:
    if pos.ep < 0:
        return n
    cdef int us = pos.stm, them = pos.stm ^ 1, frm
    cdef u64 candidates = PAWN_ATK[them][pos.ep] & pawns
    cdef u64 captured = bit(pos.ep ^ 8), occ
    while candidates:
        frm = pop_lsb(&candidates)
        occ = (pos.all ^ bit(frm) ^ captured) | bit(pos.ep)
        if not (attackers_to(pos, ksq, occ) & pos.occ[them] & ~captured):
            moves[n] = encode_move(frm, pos.ep, F_EN_PASSANT)
            n += 1
    return n


cdef inline int gen_castling(const Position* pos, Move* moves, int n, int ksq) noexcept nogil:
    """Castling, Chess960 rules included; the caller has checked we are not in check."""
    cdef int us = pos.stm, them = pos.stm ^ 1, i, right, rsq, kto, rto
    cdef u64 occ, king_path
    for i in range(2):
        right = (WK if i == 0 else WQ) << (2 * us)
        if not (pos.castling & right):
            continue
        rsq = pos.castle_rook[castle_index(right)]
        kto = castle_king_to(right)
        rto = castle_rook_to(right)
        # Without the king and the castling rook: in Chess960 the rook may be
        # what stood between an enemy rook and the king's destination.
        occ = pos.all ^ bit(ksq) ^ bit(rsq)
        king_path = BETWEEN[ksq][kto] | bit(kto)
        if (king_path | BETWEEN[rsq][rto] | bit(rto)) & occ:
            continue
        while king_path:
            if square_attacked(pos, pop_lsb(&king_path), them, occ):
                break
        else:
            moves[n] = encode_move(ksq, rsq, F_CASTLE)
            n += 1
    return n


cdef int generate_moves(const Position* pos, Move* moves, int kind) noexcept nogil:
    """Write the legal moves of ``kind`` (GEN_ALL, GEN_NOISY, GEN_QUIET) to ``moves``.

    Returns how many were written (at most MAX_MOVES).
    """
    return generate_from(pos, moves, kind, ~<u64>0)


cdef bint is_legal(const Position* pos, Move m, int kind) noexcept nogil:
    """Whether ``m`` (any 16 bits: a table's move may be another position's)
    is one of this position's legal moves of ``kind``: exactly when
    generate_moves would list it, found by generating the one man's moves."""
    cdef Move moves[32]             # one man's: a queen has at most 27, a king 8 and 2 castlings
    cdef int frm = move_from(m), n
    if pos.board[frm] == EMPTY or piece_color(pos.board[frm]) != pos.stm:
        return False
    n = generate_from(pos, moves, kind, bit(frm))
    return contains(moves, 0, n, m)


cdef inline int generate_from(const Position* pos, Move* moves, int kind, u64 from_mask) noexcept nogil:
    """generate_moves for the men on ``from_mask`` only, in the same order."""
    cdef int us = pos.stm, them = pos.stm ^ 1
    cdef int ksq = pos.king[us], n = 0, frm
    cdef u64 own = pos.occ[us], occ = pos.all
    cdef u64 checkers = attackers_to(pos, ksq, occ) & pos.occ[them]
    cdef u64 pinned = pinned_pieces(pos, us, ksq)
    cdef u64 target, b, a
    cdef u64 kind_mask = (~own if kind == GEN_ALL else
                          pos.occ[them] if kind == GEN_NOISY else ~occ)
    cdef bint king = (from_mask & bit(ksq)) != 0

    b = KING_ATK[ksq] & kind_mask if king else 0
    while b:
        frm = pop_lsb(&b)
        if not square_attacked(pos, frm, them, occ ^ bit(ksq)):
            moves[n] = encode_move(ksq, frm, F_NORMAL)
            n += 1
    if more_than_one(checkers):
        return n                    # double check: only the king may move

    target = (BETWEEN[ksq][lsb(checkers)] | checkers) if checkers else ~own
    n = gen_pawn_moves(pos, moves, n, kind, target, pinned, ksq, pos.pieces[PAWN + 6 * us] & from_mask)
    target &= kind_mask

    b = pos.pieces[KNIGHT + 6 * us] & ~pinned & from_mask     # a pinned knight can never move
    while b:
        frm = pop_lsb(&b)
        n = add_piece_moves(moves, n, frm, KNIGHT_ATK[frm] & target)
    b = diagonal_sliders(pos, us) & from_mask
    while b:
        frm = pop_lsb(&b)
        a = bishop_attacks(frm, occ) & target
        if pinned & bit(frm):
            a &= LINE[ksq][frm]
        n = add_piece_moves(moves, n, frm, a)
    b = straight_sliders(pos, us) & from_mask
    while b:
        frm = pop_lsb(&b)
        a = rook_attacks(frm, occ) & target
        if pinned & bit(frm):
            a &= LINE[ksq][frm]
        n = add_piece_moves(moves, n, frm, a)

    if kind != GEN_NOISY and not checkers and king:
        n = gen_castling(pos, moves, n, ksq)
    return n
