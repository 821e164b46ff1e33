# Long branches (../shared/papers/002_*.txt, section 6.3): the long-term
# memory played out. At a node where the move tables hold a reliable path
# (positive weight) whose first move is legal here, the path's three moves
# are played, each only if legal in its turn, and the branch ends in
# quiescence: a forward-pruned search of three plies along one line. Its
# result is then compared with the node's full search (LongBranches; the
# counters say how often the branch's verdict, above beta or not, and its
# first move agree with the full search's). The branch's nodes are counted.

cdef const MtPath* reliable_path(const Search* s, const Picker* p) noexcept nogil:
    """The heaviest reliable path of the side to move whose first move is one
    of this node's quiet moves; NULL if none."""
    cdef const Position* pos = &s.pos
    cdef const MtPath* best = NULL
    cdef const MtPath* path
    cdef int us = pos.stm, sq, i
    cdef u64 b = pos.occ[us]
    while b:
        sq = pop_lsb(&b)
        for i in range(MT_SLOTS):
            path = &s.tables[us][piece_type(pos.board[sq])][sq][i]
            if (path.weight > 0 and (best == NULL or path.weight > best.weight)
                    and quiet_legal(p, path.moves[0])):
                best = path
    return best


cdef int long_branch(Search* s, const MtPath* path, int alpha, int beta, int ply) noexcept nogil:
    """The path played from here (its first move legal here) and ended in
    quiescence, for the side to move; NO_SCORE if a later move is not legal
    or the line would run past MAX_PLY."""
    cdef Position* pos = &s.pos
    cdef int made = 0, k, score = NO_SCORE
    if ply + 4 >= MAX_PLY:
        return NO_SCORE
    for k in range(3):
        if k > 0 and not is_legal(pos, path.moves[k], GEN_ALL):
            break
        make_move(pos, path.moves[k])
        made += 1
        if k < 2:
            s.nodes += 1
    if made == 3:
        score = -qsearch(s, -beta, -alpha, ply + 3, False)
    for k in range(made):
        unmake_move(pos)
    return score


ctypedef struct LongBranch:
    Move first          # the branch's first move, 0: none played at this node
    int score


cdef void long_branch_try(LongBranch* lb, Search* s, Picker* p, int alpha, int beta,
                          int ply) noexcept nogil:
    cdef const MtPath* path
    picker_generate(p, &s.pos)
    path = reliable_path(s, p)
    lb.first = 0
    if path == NULL:
        return
    lb.score = long_branch(s, path, alpha, beta, ply)
    if lb.score != NO_SCORE:
        lb.first = path.moves[0]
        s.lb_played += 1


cdef inline void long_branch_compare(const LongBranch* lb, Search* s, int best, int beta,
                                     Move best_move) noexcept nogil:
    """After the full search: did the branch foresee its verdict and its move?"""
    if lb.first == 0 or s.stopped:
        return
    s.lb_same_verdict += (lb.score >= beta) == (best >= beta)
    s.lb_same_move += lb.first == best_move
