# The position: piece bitboards plus a mailbox, and the undo history.
#
# The history is part of the struct (no pointers), so a position can be copied
# with a plain assignment, e.g. to hand the search thread its own copy.

cdef enum:
    HISTORY_CAP = 2048    # plies of undo information the struct holds

ctypedef struct Undo:
    u64 key               # Zobrist key *before* the move
    Move move
    int8_t captured       # piece captured by the move, or EMPTY
    int8_t moved          # piece on the move's destination after it (the king when castling; EMPTY: a null move)
    int8_t ep             # en-passant square before the move, or -1
    uint8_t castling      # castling rights before the move
    int halfmove          # 50-move counter before the move

ctypedef struct Position:
    u64 pieces[12]        # one bitboard per piece (type + 6 * colour)
    u64 occ[2]            # by colour
    u64 all
    int8_t board[64]      # piece on each square, or EMPTY
    int8_t king[2]
    int8_t stm            # side to move
    int8_t ep             # en-passant target square, or -1 (see set_ep)
    uint8_t castling      # WK | WQ | BK | BQ
    int8_t chess960       # print castling as king-takes-rook
    int8_t castle_rook[4]     # rook square of each right (index: log2 of the bit)
    uint8_t castle_mask[64]   # rights kept when a piece leaves or lands on a square
    int halfmove
    int fullmove
    u64 key
    int psq               # material + piece-square score, White minus Black (packed mg/eg)
    int hist_len
    Undo hist[HISTORY_CAP]


# Packed material + piece-square values, White's view; eval_hand.pxi fills it.
cdef int PSQ[12][64]

# A packed score holds a middle-game and an end-game value in one int, so
# that one addition updates both.
cdef inline int S(int mg, int eg) noexcept nogil:
    return eg * 65536 + mg

cdef inline int mg_of(int score) noexcept nogil:
    return <int16_t>(score & 0xFFFF)

cdef inline int eg_of(int score) noexcept nogil:
    return (score - mg_of(score)) // 65536


cdef inline u64 pieces_of(const Position* pos, int color, int ptype) noexcept nogil:
    return pos.pieces[ptype + 6 * color]

cdef inline u64 diagonal_sliders(const Position* pos, int color) noexcept nogil:
    return pos.pieces[BISHOP + 6 * color] | pos.pieces[QUEEN + 6 * color]

cdef inline u64 straight_sliders(const Position* pos, int color) noexcept nogil:
    return pos.pieces[ROOK + 6 * color] | pos.pieces[QUEEN + 6 * color]

cdef inline u64 attackers_to(const Position* pos, int sq, u64 occ) noexcept nogil:
    """Pieces of both colours that attack ``sq`` with occupancy ``occ``."""
    return ((PAWN_ATK[BLACK][sq] & pos.pieces[PAWN])
            | (PAWN_ATK[WHITE][sq] & pos.pieces[PAWN + 6])
            | (KNIGHT_ATK[sq] & (pos.pieces[KNIGHT] | pos.pieces[KNIGHT + 6]))
            | (KING_ATK[sq] & (pos.pieces[KING] | pos.pieces[KING + 6]))
            | (bishop_attacks(sq, occ) & (diagonal_sliders(pos, WHITE) | diagonal_sliders(pos, BLACK)))
            | (rook_attacks(sq, occ) & (straight_sliders(pos, WHITE) | straight_sliders(pos, BLACK))))

cdef inline bint square_attacked(const Position* pos, int sq, int by, u64 occ) noexcept nogil:
    """Is ``sq`` attacked by side ``by``, with occupancy ``occ``?"""
    return ((PAWN_ATK[by ^ 1][sq] & pos.pieces[PAWN + 6 * by])
            or (KNIGHT_ATK[sq] & pos.pieces[KNIGHT + 6 * by])
            or (KING_ATK[sq] & pos.pieces[KING + 6 * by])
            or (bishop_attacks(sq, occ) & diagonal_sliders(pos, by))
            or (rook_attacks(sq, occ) & straight_sliders(pos, by)))

cdef inline u64 checkers_of(const Position* pos) noexcept nogil:
    """Enemy pieces giving check to the side to move."""
    return attackers_to(pos, pos.king[pos.stm], pos.all) & pos.occ[pos.stm ^ 1]

cdef inline bint in_check(const Position* pos) noexcept nogil:
    return square_attacked(pos, pos.king[pos.stm], pos.stm ^ 1, pos.all)


cdef inline void put_piece(Position* pos, int piece, int sq) noexcept nogil:
    pos.pieces[piece] |= bit(sq)
    pos.occ[piece // 6] |= bit(sq)
    pos.all |= bit(sq)
    pos.board[sq] = piece
    pos.psq += PSQ[piece][sq]

cdef inline void remove_piece(Position* pos, int sq) noexcept nogil:
    cdef int piece = pos.board[sq]
    pos.pieces[piece] ^= bit(sq)
    pos.occ[piece // 6] ^= bit(sq)
    pos.all ^= bit(sq)
    pos.board[sq] = EMPTY
    pos.psq -= PSQ[piece][sq]

cdef inline void move_piece(Position* pos, int frm, int to) noexcept nogil:
    cdef int piece = pos.board[frm]
    cdef u64 fromto = bit(frm) | bit(to)
    pos.pieces[piece] ^= fromto
    pos.occ[piece // 6] ^= fromto
    pos.all ^= fromto
    pos.board[frm] = EMPTY
    pos.board[to] = piece
    pos.psq += PSQ[piece][to] - PSQ[piece][frm]


cdef inline int castle_index(int right) noexcept nogil:
    """WK, WQ, BK, BQ -> 0, 1, 2, 3."""
    return lsb(right)

cdef inline int castle_king_to(int right) noexcept nogil:
    """Where the king lands: g1, c1, g8 or c8 (also in Chess960)."""
    return (6 if right & (WK | BK) else 2) + (56 if right & (BK | BQ) else 0)

cdef inline int castle_rook_to(int right) noexcept nogil:
    """Where the rook lands: f1, d1, f8 or d8."""
    return (5 if right & (WK | BK) else 3) + (56 if right & (BK | BQ) else 0)

cdef void clear_position(Position* pos) noexcept nogil:
    cdef int i
    for i in range(12):
        pos.pieces[i] = 0
    pos.occ[0] = 0
    pos.occ[1] = 0
    pos.all = 0
    for i in range(64):
        pos.board[i] = EMPTY
        pos.castle_mask[i] = 15
    for i in range(4):
        pos.castle_rook[i] = -1
    pos.king[0] = -1
    pos.king[1] = -1
    pos.stm = WHITE
    pos.ep = -1
    pos.castling = 0
    pos.chess960 = 0
    pos.halfmove = 0
    pos.fullmove = 1
    pos.key = 0
    pos.psq = 0
    pos.hist_len = 0


cdef void add_castling_right(Position* pos, int right, int rook_sq) noexcept nogil:
    """Grant a right whose rook stands on ``rook_sq`` and wire up the masks."""
    cdef int color = 1 if right & (BK | BQ) else 0
    pos.castling |= right
    pos.castle_rook[castle_index(right)] = rook_sq
    pos.castle_mask[rook_sq] &= ~right
    pos.castle_mask[pos.king[color]] &= ~((WK | WQ) << (2 * color))


cdef void compact_history(Position* pos) noexcept nogil:
    """Drop history that no repetition can reach any more, to make room.

    Only needed for games of close to 2,000 plies; the dropped moves can no
    longer be taken back.
    """
    cdef int keep = pos.halfmove + 2, drop, i
    if keep > HISTORY_CAP // 2:
        keep = HISTORY_CAP // 2
    if keep > pos.hist_len:
        keep = pos.hist_len
    drop = pos.hist_len - keep
    for i in range(keep):
        pos.hist[i] = pos.hist[i + drop]
    pos.hist_len = keep
