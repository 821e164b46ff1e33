# The Syzygy tables in the search (Stockfish's way). At the root, with as
# few men as the tables hold, every move is ranked by DTZ (syzygy.pxi) and
# only the best-ranked are searched: a won position keeps a win the
# fifty-move counter cannot spoil, by the shortest way to the next capture,
# pawn move or mate; a drawn one a draw; the search chooses among equals,
# and the score shown is the tables'. Then the search itself does
# not probe (it could only say "won" everywhere). Elsewhere, a node just
# after a capture or pawn move whose men the tables hold takes the WDL as its
# score: exact for a draw, a bound for a win or a loss (TB_WIN less the ply,
# so that the nearer win is preferred), stored in the transposition table.


cdef void tb_prepare_root(Search* s) noexcept nogil:
    """At the start of a search (``begin``): how many men the search probes
    at, and, if the root is in the tables, its moves' ranks and scores."""
    cdef Position* pos = &s.pos
    cdef Move moves[MAX_MOVES]
    cdef int n_all, n = 0, i, best, best_score
    cdef bint by_dtz
    s.tb_n = 0
    s.tb_hits = 0
    s.tb_cardinality = 0
    if s.tb == NULL or s.tb.max_pieces == 0:
        return
    s.tb_cardinality = min(s.opt.syzygy_probe_limit, s.tb.max_pieces)
    if pos.castling or popcount(pos.all) > s.tb_cardinality or pos.hist_len > HISTORY_CAP - MAX_PLY:
        return
    n_all = generate_moves(pos, moves, GEN_ALL)
    for i in range(n_all):
        if s.limits.n_searchmoves and not contains(s.limits.searchmoves, 0, s.limits.n_searchmoves, moves[i]):
            continue
        s.tb_moves[n] = moves[i]
        n += 1
    if n == 0:
        return
    by_dtz = tb_rank_root_dtz(s.tb, pos, s.tb_moves, n, s.opt.syzygy_50_move_rule, s.tb_ranks, s.tb_scores)
    if not by_dtz and not tb_rank_root_wdl(s.tb, pos, s.tb_moves, n, s.opt.syzygy_50_move_rule,
                                           s.tb_ranks, s.tb_scores):
        return
    best = s.tb_ranks[0]                # ranks reach -TB_MAX_DTZ, below -INFINITE
    best_score = s.tb_scores[0]
    for i in range(n):
        if s.tb_ranks[i] > best:
            best = s.tb_ranks[i]
            best_score = s.tb_scores[i]
    s.tb_n = n
    s.tb_best_rank = best
    s.tb_hits = n
    # With DTZ the root's choice keeps the result; with WDL alone, a win
    # still needs the search's probes to find its way to the next table.
    if by_dtz or best_score <= 0:
        s.tb_cardinality = 0


cdef inline int tb_root_move(const Search* s, Move m) noexcept nogil:
    """Where ``m`` is among the ranked root moves; -1 if it is not, or is
    ranked below the best (it is then not searched)."""
    cdef int i
    for i in range(s.tb_n):
        if s.tb_moves[i] == m:
            return i if s.tb_ranks[i] == s.tb_best_rank else -1
    return -1


cdef int tb_cut(Search* s, int depth, int alpha, int beta, int ply, bint check) noexcept nogil:
    """The tables' score of the node if it decides it (a draw, a win at or
    above beta, a loss at or below alpha), else NO_SCORE."""
    cdef int ok = 0, wdl, draw, value, bound
    wdl = tb_probe_wdl(s.tb, &s.pos, &ok)
    if not ok:
        return NO_SCORE
    s.tb_hits += 1
    draw = 1 if s.opt.syzygy_50_move_rule else 0
    if wdl < -draw:
        value = -TB_WIN + ply
        bound = BOUND_UPPER
    elif wdl > draw:
        value = TB_WIN - ply
        bound = BOUND_LOWER
    else:
        value = 2 * wdl * draw          # a cursed win a little above a draw, a blessed loss below
        bound = BOUND_EXACT
    if bound == BOUND_EXACT or (bound == BOUND_LOWER and value >= beta) or (bound == BOUND_UPPER and value <= alpha):
        tt_store(s.tt, s.pos.key, min(depth + 6, MAX_PLY - 1), value, 0 if check else static_eval(s, &s.pos),
                 bound, 0, ply)
        return value
    return NO_SCORE
