# Quiet-move scorers: the one seam where move-ordering ideas plug in.
#
# The picker calls the scorer selected by SearchOptions.ordering once per
# node, when it reaches the quiet moves, to fill one score per move (higher
# is tried first). Each scorer is a plain C function in QUIET_SCORERS.

ctypedef void (*QuietScorer)(Search* s, const Position* pos, const Move* moves,
                             int* scores, int n, int ply) noexcept nogil

cdef enum:
    HISTORY_LIMIT = 1 << 28     # halve the table (and hhupdate) beyond this


cdef void score_history(Search* s, const Position* pos, const Move* moves,
                        int* scores, int n, int ply) noexcept nogil:
    """The history heuristic: how often (weighted by depth) a move has cut off."""
    cdef int i
    for i in range(n):
        scores[i] = s.history[pos.stm][move_from(moves[i])][move_to(moves[i])]


cdef void history_reward(Search* s, const Position* pos, Move m, int depth) noexcept nogil:
    """A quiet move caused a cut-off ``depth`` plies from the leaves."""
    cdef int* entry = &s.history[pos.stm][move_from(m)][move_to(m)]
    entry[0] += depth * depth
    s.hhupdate += 1
    if entry[0] >= HISTORY_LIMIT:
        history_age(s)


cdef void history_age(Search* s) noexcept nogil:
    """Halve every entry and the update count: keeps their ratio, forgets slowly."""
    cdef int side, a, b
    for side in range(2):
        for a in range(64):
            for b in range(64):
                s.history[side][a][b] //= 2
    s.hhupdate //= 2


cdef QuietScorer QUIET_SCORERS[N_ORDERINGS]
QUIET_SCORERS[ORDER_HISTORY] = score_history
