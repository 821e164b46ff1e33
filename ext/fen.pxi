# FEN in and out, and moves as UCI strings. Python objects are fine here:
# none of this runs inside the search.

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PIECE_CHARS = "PNBRQKpnbrqk"
FILE_CHARS = "abcdefgh"


def square_name(int sq) -> str:
    return FILE_CHARS[file_of(sq)] + str(rank_of(sq) + 1)


def parse_square(str name) -> int:
    if len(name) != 2 or name[0] not in FILE_CHARS or name[1] not in "12345678":
        raise ValueError(f"bad square {name!r}")
    return FILE_CHARS.index(name[0]) + 8 * (int(name[1]) - 1)


cdef void set_castling_from_fen(Position* pos, str field) except *:
    """Read KQkq (X-FEN) or file letters (Shredder-FEN); drop rights with no rook."""
    cdef int color, ksq, rsq, right, step, sq, rook
    if field == "-":
        return
    if not field or len(set(field)) != len(field) or any(c not in "KQkqABCDEFGHabcdefgh" for c in field):
        raise ValueError(f"bad castling field {field!r}")
    for c in field:
        color = WHITE if c.isupper() else BLACK
        ksq = pos.king[color]
        if rank_of(ksq) != 7 * color:
            continue                        # king off its back rank: no castling
        rook = make_piece(color, ROOK)
        if c in "Kk" or c in "Qq":
            # X-FEN: the outermost rook on that side of the king.
            step = 1 if c in "Kk" else -1
            rsq = -1
            sq = ksq + step
            while 0 <= sq < 64 and rank_of(sq) == rank_of(ksq):
                if pos.board[sq] == rook:
                    rsq = sq
                sq += step
        else:
            rsq = FILE_CHARS.index(c.lower()) + 56 * color
            if pos.board[rsq] != rook or rsq == ksq:
                rsq = -1
        if rsq < 0:
            continue
        right = (WK if rsq > ksq else WQ) << (2 * color)
        if pos.castling & right:
            continue
        add_castling_right(pos, right, rsq)


cdef void check_piece_counts(const Position* p, int color) except *:
    """Raise ValueError unless a game could have left ``color`` with these
    pieces: at most 16, at most 8 pawns, and no more promoted pieces (a third
    knight, a second queen, ...) than pawns gone. Move buffers are sized by
    this rule (MAX_MOVES), so it is a safety check, not a nicety."""
    cdef int pawns = popcount(p.pieces[PAWN + 6 * color]), promoted = 0, ptype, n, start
    name = "white" if color == WHITE else "black"
    if popcount(p.occ[color]) > 16:
        raise ValueError(f"{name} has {popcount(p.occ[color])} pieces; a side has at most 16")
    if pawns > 8:
        raise ValueError(f"{name} has {pawns} pawns; a side has at most 8")
    for ptype, start in ((KNIGHT, 2), (BISHOP, 2), (ROOK, 2), (QUEEN, 1)):
        n = popcount(p.pieces[ptype + 6 * color])
        if n > start:
            promoted += n - start
    if promoted > 8 - pawns:
        raise ValueError(f"{name} has {promoted} promoted pieces but only {8 - pawns} pawns "
                         f"could have promoted")


cdef void set_fen(Position* pos, str fen) except *:
    """Parse a FEN (4 to 6 fields) into ``pos``; raise ValueError if it is broken.

    The checks that matter for the engine's safety: one king each, piece
    counts a game can reach (check_piece_counts), no pawn on the first or
    last rank, and the side not to move is not in check.
    """
    cdef Position p
    cdef int sq, rank, file, i
    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise ValueError(f"FEN needs 4 to 6 fields, got {len(fields)}")
    clear_position(&p)
    rows = fields[0].split("/")
    if len(rows) != 8:
        raise ValueError("FEN board needs 8 ranks")
    for i, row in enumerate(rows):
        rank = 7 - i
        file = 0
        for c in row:
            if c in "12345678":
                file += int(c)
            elif c in PIECE_CHARS:
                if file > 7:
                    raise ValueError(f"rank {rank + 1} has more than 8 squares")
                put_piece(&p, PIECE_CHARS.index(c), rank * 8 + file)
                file += 1
            else:
                raise ValueError(f"bad character {c!r} in FEN board")
        if file != 8:
            raise ValueError(f"rank {rank + 1} has {file} squares, not 8")
    for i in range(2):
        kings = p.pieces[KING + 6 * i]
        if popcount(kings) != 1:
            raise ValueError(f"{'white' if i == 0 else 'black'} needs exactly one king")
        p.king[i] = lsb(kings)
    if (p.pieces[PAWN] | p.pieces[PAWN + 6]) & (RANK_1_BB | (RANK_1_BB << 56)):
        raise ValueError("pawn on the first or last rank")
    for i in range(2):
        check_piece_counts(&p, i)

    if fields[1] not in ("w", "b"):
        raise ValueError(f"side to move must be w or b, not {fields[1]!r}")
    p.stm = WHITE if fields[1] == "w" else BLACK
    if square_attacked(&p, p.king[p.stm ^ 1], p.stm, p.all):
        raise ValueError("the side not to move is in check")

    set_castling_from_fen(&p, fields[2])

    if fields[3] != "-":
        sq = parse_square(fields[3])
        if rank_of(sq) != (5 if p.stm == WHITE else 2):
            raise ValueError(f"en-passant square {fields[3]} on the wrong rank")
        # Keep it only if a capture there is legal (see ep_capture_legal).
        if (p.board[sq ^ 8] == make_piece(p.stm ^ 1, PAWN) and p.board[sq] == EMPTY
                and ep_capture_legal(&p, sq)):
            p.ep = sq
    try:
        p.halfmove = int(fields[4]) if len(fields) > 4 else 0
        p.fullmove = int(fields[5]) if len(fields) > 5 else 1
    except ValueError:
        raise ValueError("move counters must be integers") from None
    if not 0 <= p.halfmove <= 100000 or not 0 <= p.fullmove <= 100000:
        raise ValueError("move counters out of range")
    p.fullmove = max(p.fullmove, 1)
    p.key = compute_key(&p)
    p.chess960 = pos.chess960
    pos[0] = p


cdef str castling_fen(const Position* pos):
    """X-FEN: KQkq when the rook is the outermost on its side, else its file."""
    out = ""
    cdef int color, i, right, rsq, ksq, sq, step
    for color in range(2):
        for i in range(2):
            right = (WK if i == 0 else WQ) << (2 * color)
            if not (pos.castling & right):
                continue
            rsq = pos.castle_rook[castle_index(right)]
            ksq = pos.king[color]
            step = 1 if rsq > ksq else -1
            outermost = True
            sq = rsq + step
            while 0 <= sq < 64 and rank_of(sq) == rank_of(rsq):
                if pos.board[sq] == make_piece(color, ROOK):
                    outermost = False
                sq += step
            c = ("K" if i == 0 else "Q") if outermost else FILE_CHARS[file_of(rsq)].upper()
            out += c if color == WHITE else c.lower()
    return out or "-"


cdef str get_fen(const Position* pos):
    rows = []
    cdef int rank, file, empty, piece
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file in range(8):
            piece = pos.board[rank * 8 + file]
            if piece == EMPTY:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += PIECE_CHARS[piece]
        rows.append(row + (str(empty) if empty else ""))
    ep = square_name(pos.ep) if pos.ep >= 0 else "-"
    return (f"{'/'.join(rows)} {'wb'[pos.stm]} {castling_fen(pos)} {ep} "
            f"{pos.halfmove} {pos.fullmove}")


cdef str move_to_uci(const Position* pos, Move m):
    """UCI notation; castling as e1g1, or as king-takes-rook (e1h1) in Chess960."""
    if m == 0:
        return "0000"
    cdef int frm = move_from(m), to = move_to(m), flag = move_flag(m)
    if flag == F_CASTLE and not pos.chess960:
        to = castle_king_to((WK if to > frm else WQ) << (2 if rank_of(frm) == 7 else 0))
    s = square_name(frm) + square_name(to)
    if flag >= F_PROMO:
        s += "nbrq"[promo_type(m) - KNIGHT]
    return s
