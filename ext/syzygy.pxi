# Syzygy endgame tables: what a position is worth by them.
#
# syzygy.h reads the files: one table's stored value for a placement of the
# men. This file makes positions of that: the tables store a "don't care"
# value wherever a capture is the best move, so a probe first searches the
# captures (down to smaller tables); en passant is not in the tables, so it
# is tried apart; and a DTZ table stores only one side to move, so for the
# other the moves are tried. The order and the rules are python-chess's
# (chess/syzygy.py: probe_ab, probe_wdl, probe_dtz), the tests' oracle, which
# are Fathom's and Stockfish's.
#
# Values, the side to move's view: WDL -2 loss, -1 blessed loss (a loss the
# fifty-move rule saves), 0 draw, 1 cursed win, 2 win. DTZ: plies to the
# next capture or pawn move (or mate) of the winning line, signed as WDL;
# beyond 100 for cursed wins and blessed losses; can be one ply too long
# (the tables round, never where it would change the result).
#
# Every probe runs without the GIL and only reads the tables, so Lazy SMP's
# threads probe at once; the moves it tries are made and taken back on the
# caller's position.

cdef extern from "syzygy.h" nogil:
    ctypedef struct SzTables:
        int max_pieces
        int n_wdl
        int n_dtz
    SzTables* sz_new()
    void sz_free(SzTables* tb)
    int sz_add(SzTables* tb, const char* path, const char* name, int dtz, char* err, size_t errlen)
    int sz_probe_table(const SzTables* tb, const uint64_t* bb, int stm, int dtz, int wdl, int* value)
    enum:
        SZ_FAIL
        SZ_OTHER_SIDE
        SZ_OK
        SZ_PIECES


cdef enum:
    TB_DEPTH_LIMIT = 6          # DTZ's own recursion (the other side's moves); the tables need 2


cdef inline int tb_table(const SzTables* tb, const Position* pos, bint dtz, int wdl, int* value) noexcept nogil:
    """One table's stored value for ``pos`` (SZ_OK, SZ_OTHER_SIDE or SZ_FAIL)."""
    cdef uint64_t bb[16]
    cdef int c, t
    for c in range(2):
        bb[8 * c] = 0
        bb[8 * c + 7] = 0
        for t in range(6):          # the files' codes: P N B R Q K = 1..6, ours PAWN..KING = 0..5
            bb[8 * c + t + 1] = pos.pieces[t + 6 * c]
    return sz_probe_table(tb, bb, pos.stm, dtz, wdl, value)


cdef inline bint only_kings(const Position* pos) noexcept nogil:
    return pos.all == (pos.pieces[KING] | pos.pieces[KING + 6])


cdef int tb_captures_then_table(const SzTables* tb, Position* pos, int alpha, int beta,
                                int* success) noexcept nogil:
    """WDL within (alpha, beta): the captures (not en passant) searched down
    the smaller tables, then the table, which is exact only where no capture
    does better. ``success``: 0 failed, 1 from the table, 2 a capture is best
    (python-chess's probe_ab)."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(pos, moves, GEN_NOISY), i, v, value, child
    for i in range(n):
        if pos.board[move_to(moves[i])] == EMPTY:
            continue                    # en passant, or a promotion that takes nothing
        make_move(pos, moves[i])
        v = -tb_captures_then_table(tb, pos, -beta, -alpha, &child)
        unmake_move(pos)
        if child == 0:
            success[0] = 0
            return 0
        if v > alpha:
            if v >= beta:
                success[0] = 2
                return v
            alpha = v
    if only_kings(pos):
        v = 0
    elif tb_table(tb, pos, False, 0, &value) == SZ_OK:
        v = value - 2
    else:
        success[0] = 0
        return 0
    if alpha >= v:
        success[0] = 1 + (alpha > 0)
        return alpha
    success[0] = 1
    return v


cdef int tb_probe_wdl(const SzTables* tb, Position* pos, int* ok) noexcept nogil:
    """The position's WDL (-2..2) as if reached by a capture or pawn move
    (the tables know no fifty-move counter); ``ok`` 0 where they cannot say."""
    cdef Move moves[MAX_MOVES]
    cdef int success, v, v0, v1 = -3, n, i, n_ep = 0
    v = tb_captures_then_table(tb, pos, -2, 2, &success)
    if success == 0:
        ok[0] = 0
        return 0
    ok[0] = 1
    if pos.ep < 0:                      # set only when an en passant capture is legal
        return v
    n = generate_moves(pos, moves, GEN_ALL)
    for i in range(n):
        if move_flag(moves[i]) != F_EN_PASSANT:
            continue
        n_ep += 1
        make_move(pos, moves[i])
        v0 = -tb_captures_then_table(tb, pos, -2, 2, &success)
        unmake_move(pos)
        if success == 0:
            ok[0] = 0
            return 0
        if v0 > v1:
            v1 = v0
    if v1 > -3:
        if v1 >= v:
            v = v1
        elif v == 0 and n_ep == n:
            v = v1                      # en passant is the only move: forced, even if it loses
    return v


cdef inline int dtz_before_zeroing(int wdl) noexcept nogil:
    """The DTZ of a position whose best move captures or moves a pawn."""
    return 0 if wdl == 0 else (1 if wdl > 0 else -1) * (1 if wdl == 2 or wdl == -2 else 101)


cdef inline bint is_mate(const Position* pos) noexcept nogil:
    return in_check(pos) and not has_legal_move(pos)


cdef int tb_probe_dtz_no_ep(const SzTables* tb, Position* pos, int* ok, int depth) noexcept nogil:
    """DTZ without the en passant captures (python-chess's probe_dtz_no_ep)."""
    cdef Move moves[MAX_MOVES]
    cdef int success, wdl, v, n, i, dtz, best, piece
    cdef bint zeroing
    wdl = tb_captures_then_table(tb, pos, -2, 2, &success)
    if success == 0 or depth > TB_DEPTH_LIMIT:
        ok[0] = 0
        return 0
    ok[0] = 1
    if wdl == 0:
        return 0
    if success == 2:
        return dtz_before_zeroing(wdl)      # a capture is best: the table's value is "don't care"
    if wdl > 0:
        # A pawn move that keeps the result is as good as it gets (it zeroes).
        n = generate_moves(pos, moves, GEN_ALL)
        for i in range(n):
            if (piece_type(pos.board[move_from(moves[i])]) != PAWN or pos.board[move_to(moves[i])] != EMPTY
                    or move_flag(moves[i]) == F_EN_PASSANT):
                continue
            make_move(pos, moves[i])
            v = -tb_probe_wdl(tb, pos, ok)
            unmake_move(pos)
            if not ok[0]:
                return 0
            if v == wdl:
                return 1 if v == 2 else 101
    i = tb_table(tb, pos, True, wdl, &dtz)
    if i == SZ_OK:
        return dtz_before_zeroing(wdl) + (dtz if wdl > 0 else -dtz)
    if i == SZ_FAIL:
        ok[0] = 0
        return 0
    # The table stores the other side to move: one ply down.
    n = generate_moves(pos, moves, GEN_ALL)
    if wdl > 0:
        best = 0xffff
        for i in range(n):
            piece = piece_type(pos.board[move_from(moves[i])])
            if piece == PAWN or pos.board[move_to(moves[i])] != EMPTY or move_flag(moves[i]) == F_CASTLE:
                continue
            make_move(pos, moves[i])
            v = -tb_probe_dtz(tb, pos, ok, depth + 1)
            if ok[0] and v == 1 and is_mate(pos):
                best = 1
            elif v > 0 and v + 1 < best:
                best = v + 1
            unmake_move(pos)
            if not ok[0]:
                return 0
        return best
    best = -1
    for i in range(n):
        make_move(pos, moves[i])
        zeroing = pos.halfmove == 0
        if zeroing:
            if wdl == -2:
                v = -1
            else:
                v = tb_captures_then_table(tb, pos, 1, 2, &success)
                v = 0 if v == 2 else -101
                ok[0] = success != 0
        else:
            v = -tb_probe_dtz(tb, pos, ok, depth + 1) - 1
        unmake_move(pos)
        if not ok[0]:
            return 0
        if v < best:
            best = v
    return best


cdef int WDL_TO_DTZ[5]
WDL_TO_DTZ[:] = [-1, -101, 0, 101, 1]


cdef int tb_probe_dtz(const SzTables* tb, Position* pos, int* ok, int depth=0) noexcept nogil:
    """The position's DTZ, en passant included (python-chess's probe_dtz);
    ``ok`` 0 where the tables cannot say (a DTZ or WDL table missing)."""
    cdef Move moves[MAX_MOVES]
    cdef int v, v0, v1 = -3, n, i, n_ep = 0, success
    v = tb_probe_dtz_no_ep(tb, pos, ok, depth)
    if not ok[0] or pos.ep < 0:
        return v
    n = generate_moves(pos, moves, GEN_ALL)
    for i in range(n):
        if move_flag(moves[i]) != F_EN_PASSANT:
            continue
        n_ep += 1
        make_move(pos, moves[i])
        v0 = -tb_captures_then_table(tb, pos, -2, 2, &success)
        unmake_move(pos)
        if success == 0:
            ok[0] = 0
            return 0
        if v0 > v1:
            v1 = v0
    if v1 > -3:
        v1 = WDL_TO_DTZ[v1 + 2]
        if v < -100:
            if v1 >= 0:
                v = v1
        elif v < 0:
            if v1 >= 0 or v1 < -100:
                v = v1
        elif v > 100:
            if v1 > 0:
                v = v1
        elif v > 0:
            if v1 == 1:
                v = v1
        elif v1 >= 0:
            v = v1
        elif n_ep == n:
            v = v1
    return v


# --- ranking the root moves (Stockfish's root_probe and root_probe_wdl) ---------------

cdef enum:
    TB_MAX_DTZ = 1 << 18        # a rank above every distance: the certain wins
    TB_WIN = MATE_BOUND - 1 - MAX_PLY   # a table win's score: above every evaluation, below the mates


cdef int tb_move_score(int rank, bint rule50) noexcept nogil:
    """The score a root move's rank stands for: a win or loss as TB_WIN, a
    cursed win or blessed loss (the fifty-move rule draws it, if it counts)
    as a little above or below a draw, more as the win gets nearer."""
    cdef int bound = TB_MAX_DTZ - 100 if rule50 else 1     # within 100 plies of the counter: a win
    if rank >= bound:
        return TB_WIN
    if rank > 0:
        return max(3, rank - (TB_MAX_DTZ - 200)) * 100 // 200
    if rank == 0:
        return 0
    if rank > -bound:
        return min(-3, rank + (TB_MAX_DTZ - 200)) * 100 // 200
    return -TB_WIN


cdef bint tb_rank_root_dtz(const SzTables* tb, Position* pos, const Move* moves, int n, bint rule50,
                           int* ranks, int* scores) noexcept nogil:
    """Rank each root move by DTZ counted from the root: the wins first,
    the nearest capture, pawn move or mate first (DTZ-optimal: every move
    brings the next zeroing move nearer, so a won ending is mated within the
    fifty-move rule however the search chooses among equals); then draws;
    then the losses, all alike (the search chooses) unless the fifty-move
    rule is in sight, then the longest first (Stockfish's ranks, but that
    Stockfish ranks alike the wins the counter cannot reach and lets the
    search choose among them: it then converts a K+B+N ending only when the
    counter forces it). False if a table is missing."""
    cdef int cnt50 = pos.halfmove, i, dtz, wdl, ok = 1, r
    for i in range(n):
        make_move(pos, moves[i])
        if pos.halfmove == 0:
            wdl = -tb_probe_wdl(tb, pos, &ok)
            dtz = dtz_before_zeroing(wdl)
        elif repetitions(pos) >= 2 or (pos.halfmove >= 100 and not is_mate(pos)):
            dtz = 0                     # the move draws by repetition or by the fifty-move rule
        else:
            dtz = -tb_probe_dtz(tb, pos, &ok)
            dtz = dtz + 1 if dtz > 0 else (dtz - 1 if dtz < 0 else 0)
        if ok and in_check(pos) and dtz == 2 and not has_legal_move(pos):
            dtz = 1                     # mate
        unmake_move(pos)
        if not ok:
            return False
        if dtz > 0:
            r = TB_MAX_DTZ - (dtz + cnt50)
        elif dtz < 0:
            r = -TB_MAX_DTZ if -dtz * 2 + cnt50 < 100 else -TB_MAX_DTZ + (-dtz + cnt50)
        else:
            r = 0
        ranks[i] = r
        scores[i] = tb_move_score(r, rule50)
    return True


cdef int WDL_TO_RANK[5]
cdef int WDL_TO_SCORE[5]
WDL_TO_RANK[:] = [-TB_MAX_DTZ, -TB_MAX_DTZ + 101, 0, TB_MAX_DTZ - 101, TB_MAX_DTZ]
WDL_TO_SCORE[:] = [-TB_WIN, -2, 0, 2, TB_WIN]


cdef bint tb_rank_root_wdl(const SzTables* tb, Position* pos, const Move* moves, int n, bint rule50,
                           int* ranks, int* scores) noexcept nogil:
    """Without DTZ tables: rank by WDL alone (results kept, no progress promised)."""
    cdef int i, wdl, ok = 1
    for i in range(n):
        make_move(pos, moves[i])
        if repetitions(pos) >= 2 or (pos.halfmove >= 100 and not is_mate(pos)):
            wdl = 0
        else:
            wdl = -tb_probe_wdl(tb, pos, &ok)
        unmake_move(pos)
        if not ok:
            return False
        ranks[i] = WDL_TO_RANK[wdl + 2]
        if not rule50:
            wdl = 2 if wdl > 0 else (-2 if wdl < 0 else 0)
        scores[i] = WDL_TO_SCORE[wdl + 2]
    return True
