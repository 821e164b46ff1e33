# make_move / unmake_move: every bit of state is restored from the Undo entry.

cdef bint ep_capture_legal(const Position* pos, int ep_sq) noexcept nogil:
    """Can the side to move legally capture en passant on ``ep_sq``?

    The en-passant square is only recorded (in the key and the FEN) when this
    holds, so that positions that differ only by an unusable en-passant square
    hash alike and count as repetitions, as the rules of chess require. The
    full legality test also catches the pinned-pawn case, where removing both
    pawns from the rank exposes the king to a rook or queen.
    """
    cdef int us = pos.stm, them = pos.stm ^ 1
    cdef int captured_sq = ep_sq ^ 8
    cdef int ksq = pos.king[us]
    cdef u64 candidates = PAWN_ATK[them][ep_sq] & pos.pieces[PAWN + 6 * us]
    cdef u64 occ
    cdef int frm
    while candidates:
        frm = pop_lsb(&candidates)
        occ = (pos.all ^ bit(frm) ^ bit(captured_sq)) | bit(ep_sq)
        if not (attackers_to(pos, ksq, occ) & pos.occ[them] & ~bit(captured_sq)):
            return True
    return False


cdef void make_move(Position* pos, Move m) noexcept nogil:
    cdef Undo* undo = &pos.hist[pos.hist_len]
    cdef int us = pos.stm, them = pos.stm ^ 1
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m)
    cdef int piece = pos.board[frm], captured = EMPTY, rook, right, kto, rto, promoted
    cdef u64 key = pos.key
    cdef int castling

    pos.hist_len += 1
    undo.key = pos.key
    undo.move = m
    undo.ep = pos.ep
    undo.castling = pos.castling
    undo.halfmove = pos.halfmove

    if pos.ep >= 0:
        key ^= Z_EP_FILE[file_of(pos.ep)]
        pos.ep = -1
    pos.halfmove += 1

    if flag == F_CASTLE:
        right = (WK if to > frm else WQ) << (2 * us)
        kto = castle_king_to(right)
        rto = castle_rook_to(right)
        rook = pos.board[to]
        # Lift both pieces before placing either: in Chess960 the squares overlap.
        remove_piece(pos, frm)
        remove_piece(pos, to)
        put_piece(pos, piece, kto)
        put_piece(pos, rook, rto)
        key ^= Z_PIECE[piece][frm] ^ Z_PIECE[piece][kto] ^ Z_PIECE[rook][to] ^ Z_PIECE[rook][rto]
        pos.king[us] = kto
    else:
        if flag == F_EN_PASSANT:
            captured = pos.board[to ^ 8]
            remove_piece(pos, to ^ 8)
            key ^= Z_PIECE[captured][to ^ 8]
        elif pos.board[to] != EMPTY:
            captured = pos.board[to]
            remove_piece(pos, to)
            key ^= Z_PIECE[captured][to]
        move_piece(pos, frm, to)
        key ^= Z_PIECE[piece][frm] ^ Z_PIECE[piece][to]
        if piece_type(piece) == PAWN:
            pos.halfmove = 0
            if flag >= F_PROMO:
                promoted = make_piece(us, promo_type(m))
                remove_piece(pos, to)
                put_piece(pos, promoted, to)
                key ^= Z_PIECE[piece][to] ^ Z_PIECE[promoted][to]
        elif piece_type(piece) == KING:
            pos.king[us] = to
        if captured != EMPTY:
            pos.halfmove = 0
    undo.captured = <int8_t>captured
    undo.moved = <int8_t>piece if flag == F_CASTLE else pos.board[to]

    castling = pos.castling & pos.castle_mask[frm] & pos.castle_mask[to]
    key ^= Z_CASTLING[pos.castling] ^ Z_CASTLING[castling]
    pos.castling = castling

    pos.stm = them
    key ^= Z_SIDE
    if us == BLACK:
        pos.fullmove += 1
    if flag == F_DOUBLE and ep_capture_legal(pos, (frm + to) >> 1):
        pos.ep = (frm + to) >> 1
        key ^= Z_EP_FILE[file_of(pos.ep)]
    pos.key = key


cdef void unmake_move(Position* pos) noexcept nogil:
    pos.hist_len -= 1
    cdef Undo* undo = &pos.hist[pos.hist_len]
    cdef Move m = undo.move
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m)
    cdef int us = pos.stm ^ 1, right, kto, rto, king, rook
    pos.stm = us
    if us == BLACK:
        pos.fullmove -= 1

    if flag == F_CASTLE:
        right = (WK if to > frm else WQ) << (2 * us)
        kto = castle_king_to(right)
        rto = castle_rook_to(right)
        king = pos.board[kto]
        rook = pos.board[rto]
        remove_piece(pos, kto)
        remove_piece(pos, rto)
        put_piece(pos, king, frm)
        put_piece(pos, rook, to)
        pos.king[us] = frm
    else:
        if flag >= F_PROMO:
            remove_piece(pos, to)
            put_piece(pos, make_piece(us, PAWN), to)
        move_piece(pos, to, frm)
        if piece_type(pos.board[frm]) == KING:
            pos.king[us] = frm
        if undo.captured != EMPTY:
            put_piece(pos, undo.captured, (to ^ 8) if flag == F_EN_PASSANT else to)

    pos.ep = undo.ep
    pos.castling = undo.castling
    pos.halfmove = undo.halfmove
    pos.key = undo.key


cdef void make_null(Position* pos) noexcept nogil:
    """Pass the move (for null-move pruning). Undone by unmake_null."""
    cdef Undo* undo = &pos.hist[pos.hist_len]
    pos.hist_len += 1
    undo.key = pos.key
    undo.move = 0
    undo.ep = pos.ep
    undo.castling = pos.castling
    undo.halfmove = pos.halfmove
    undo.captured = EMPTY
    undo.moved = EMPTY
    if pos.ep >= 0:
        pos.key ^= Z_EP_FILE[file_of(pos.ep)]
        pos.ep = -1
    pos.halfmove += 1
    pos.stm ^= 1
    pos.key ^= Z_SIDE


cdef void unmake_null(Position* pos) noexcept nogil:
    pos.hist_len -= 1
    cdef Undo* undo = &pos.hist[pos.hist_len]
    pos.stm ^= 1
    pos.ep = undo.ep
    pos.halfmove = undo.halfmove
    pos.key = undo.key
