# Signed move statistics beside the paper's history heuristic.
#
# The history of scorers.pxi counts cut-offs (depth squared each) and only
# grows: it is the paper's hhscore, which the weighted ordering divides by
# the number of updates. These tables are the kind strong engines keep
# instead: each entry moves towards +STAT_LIMIT when its move cuts off and
# towards -STAT_LIMIT when it was searched before the move that did (a
# "malus"), by a step that shrinks as the entry nears the limit ("gravity"),
# so an entry says how good the move has been lately. quiet_stats is keyed
# by side, from and to; cont_stats by the move one and two plies before
# (piece and square) and the move itself: what tends to follow what. They
# serve the picker (ContinuationHistory adds them to any scorer's quiet
# scores), the reductions (HistoryLMR) and the pruning (HistoryPruning).
# capture_stats (CaptureHistory) does the same for captures and promotions,
# keyed by the piece, its target square and what it takes: the good captures
# are then ordered by the victim's value and by how such a capture has done.

cdef enum:
    STAT_LIMIT = 16384
# HistoryPruning's HISTORY_PRUNE_DEPTH and HISTORY_PRUNE_MARGIN, the bonus's
# and the malus's STAT_*: engine/search_params.py.


cdef inline void stat_update(int16_t* entry, int bonus) noexcept nogil:
    entry[0] += bonus - entry[0] * (bonus if bonus > 0 else -bonus) // STAT_LIMIT


cdef inline int move_key(const Position* pos, Move m) noexcept nogil:
    """piece * 64 + to, for a move not yet made."""
    return pos.board[move_from(m)] * 64 + move_to(m)


cdef inline int stat_score(const Search* s, const Position* pos, Move m, int ply) noexcept nogil:
    """What the statistics say of quiet move ``m`` at ``ply``, about -3 to +3 STAT_LIMIT."""
    cdef int key = move_key(pos, m)
    cdef int score = s.quiet_stats[pos.stm][move_from(m)][move_to(m)]
    if ply >= 1 and s.cont_key[ply - 1] >= 0:
        score += s.cont_stats[s.cont_key[ply - 1]][key]
    if ply >= 2 and s.cont_key[ply - 2] >= 0:
        score += s.cont_stats[s.cont_key[ply - 2]][key]
    return score


cdef void stat_reward(Search* s, const Position* pos, Move m, int ply, int bonus) noexcept nogil:
    """Move ``m``'s entries towards the limit of ``bonus``'s sign."""
    cdef int key = move_key(pos, m)
    stat_update(&s.quiet_stats[pos.stm][move_from(m)][move_to(m)], bonus)
    if ply >= 1 and s.cont_key[ply - 1] >= 0:
        stat_update(&s.cont_stats[s.cont_key[ply - 1]][key], bonus)
    if ply >= 2 and s.cont_key[ply - 2] >= 0:
        stat_update(&s.cont_stats[s.cont_key[ply - 2]][key], bonus)


cdef void stats_after_cutoff(Search* s, const Position* pos, Move best, const Move* tried, int n_tried,
                             int ply, int depth) noexcept nogil:
    """A quiet move cut off: reward it, and punish the quiet moves searched before it."""
    cdef int bonus = min(STAT_BONUS_SCALE * depth * depth, STAT_BONUS_MAX), i
    cdef int malus = min(STAT_MALUS_SCALE * depth * depth, STAT_MALUS_MAX)
    stat_reward(s, pos, best, ply, bonus)
    for i in range(n_tried):
        if tried[i] != best:
            stat_reward(s, pos, tried[i], ply, -malus)


cdef inline int16_t* capture_entry(Search* s, const Position* pos, Move m) noexcept nogil:
    """Capture (or promotion) ``m``'s statistics: its piece, target and victim."""
    return &s.capture_stats[pos.board[move_from(m)]][move_to(m)][captured_type(pos, m)]


cdef void capture_stats_after_cutoff(Search* s, const Position* pos, Move best, bint best_noisy,
                                     const Move* tried, int n_tried, int depth) noexcept nogil:
    """A move cut off: reward it if it captures (or promotes), and punish the
    captures searched before it, which did not."""
    cdef int bonus = min(STAT_BONUS_SCALE * depth * depth, STAT_BONUS_MAX), i
    cdef int malus = min(STAT_MALUS_SCALE * depth * depth, STAT_MALUS_MAX)
    if best_noisy:
        stat_update(capture_entry(s, pos, best), bonus)
    for i in range(n_tried):
        if tried[i] != best:
            stat_update(capture_entry(s, pos, tried[i]), -malus)
