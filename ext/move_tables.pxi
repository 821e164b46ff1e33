# Move tables: the ChessMaps search's long-term memory
# (../shared/papers/002_*.txt, sections 4 and 6.3).
#
# One table per colour and piece type, 64 squares each: a square holds up to
# MT_SLOTS 3-ply paths (our quiet move from that square, the reply that held
# out longest, our best answer to it), each with a weight and its last
# MT_EVALS scores. A cut-off by a quiet move reinforces its path (+1, added
# if new, in the place of the weakest); a table move that is tried and fails
# weakens the paths it starts (-1), and a path below MT_DROP is removed.
# Paths with a positive weight are "reliable": the picker tries the first
# moves of the heaviest MoveTableMoves of them, with the move chains. The
# tables are a fixed 110 KB, kept across games in a file (engine/memory.py).


cdef void mt_add_eval(MtPath* path, int score) noexcept nogil:
    cdef int i
    score = 32000 if score > 32000 else (-32000 if score < -32000 else score)
    for i in range(MT_EVALS - 1, 0, -1):
        path.evals[i] = path.evals[i - 1]
    path.evals[0] = <int16_t>score
    if path.n_evals < MT_EVALS:
        path.n_evals += 1


cdef void mt_reinforce(Search* s, const Position* pos, Move m1, Move m2, Move m3, int score) noexcept nogil:
    """A cut-off by quiet move ``m1`` (side to move's), then ``m2``, ``m3``."""
    cdef MtPath* slots = &s.tables[pos.stm][piece_type(pos.board[move_from(m1)])][move_from(m1)][0]
    cdef MtPath* path = NULL
    cdef int i, weakest = 0
    for i in range(MT_SLOTS):
        if slots[i].moves[0] == m1 and slots[i].moves[1] == m2 and slots[i].moves[2] == m3:
            path = &slots[i]
            break
        if slots[i].moves[0] == 0 or slots[i].weight < slots[weakest].weight:
            weakest = i
            if slots[i].moves[0] == 0:
                break
    if path == NULL:
        path = &slots[weakest]
        memset(path, 0, sizeof(MtPath))
        path.moves[0] = m1
        path.moves[1] = m2
        path.moves[2] = m3
    if path.weight < 30000:
        path.weight += 1
    mt_add_eval(path, score)


cdef void mt_weaken(Search* s, const Position* pos, Move m1, int score) noexcept nogil:
    """Table move ``m1`` was tried here and failed."""
    cdef MtPath* slots = &s.tables[pos.stm][piece_type(pos.board[move_from(m1)])][move_from(m1)][0]
    cdef int i
    for i in range(MT_SLOTS):
        if slots[i].moves[0] == m1:
            slots[i].weight -= 1
            mt_add_eval(&slots[i], score)
            if slots[i].weight < MT_DROP:
                memset(&slots[i], 0, sizeof(MtPath))


cdef int table_moves(Search* s, const Picker* p, Move* out, bint* is_table, int n, int most) noexcept nogil:
    """Append to ``out[n:]`` the first moves of the ``most`` heaviest reliable
    paths of the side to move that are legal quiet moves here and not there
    already; returns the new count."""
    cdef const Position* pos = &s.pos
    cdef int us = pos.stm, k, i, j, sq, pt, best_w
    cdef Move m, best_m
    cdef u64 b
    cdef bint seen
    for k in range(most):
        best_m = 0
        best_w = 0
        b = pos.occ[us]
        while b:
            sq = pop_lsb(&b)
            pt = piece_type(pos.board[sq])
            for i in range(MT_SLOTS):
                m = s.tables[us][pt][sq][i].moves[0]
                if m == 0 or s.tables[us][pt][sq][i].weight <= best_w or m == p.tt_move:
                    continue
                seen = False
                for j in range(n):
                    seen = seen or out[j] == m
                if not seen and quiet_legal(p, m):
                    best_m = m
                    best_w = s.tables[us][pt][sq][i].weight
        if best_m == 0:
            break
        out[n] = best_m
        is_table[n] = True
        n += 1
    return n


cdef inline int mt_series(const MtPath* path) noexcept nogil:
    """The paper's series over the path's scores E1 (newest) .. En: the mean
    of the running means (E1 + (E1+E2)/2 + ... + (E1+..+En)/n) / n."""
    cdef double running = 0, total = 0
    cdef int i
    if path.n_evals == 0:
        return 0
    for i in range(path.n_evals):
        running += path.evals[i]
        total += running / (i + 1)
    return <int>(total / path.n_evals)
