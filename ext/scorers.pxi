# Quiet-move scorers: the one seam where move-ordering ideas plug in.
#
# The picker calls the scorer selected by SearchOptions.ordering once per
# node, when it reaches the quiet moves, to fill p.scores[n_noisy:n] (higher
# is tried first). Each scorer is a plain C function in QUIET_SCORERS; the
# costly ones (the nets, ChessMaps) run only at nodes at least nmm_min_depth
# from the leaves, the net-based ones only with a net loaded (the picker
# falls back to history otherwise).

ctypedef void (*QuietScorer)(Search* s, Picker* p) noexcept nogil

cdef enum:
    HISTORY_LIMIT = 1 << 28     # halve the table (and hhupdate) beyond this
    SCORE_LIMIT = 1 << 30

cdef double NN_SCALE = 65536.0  # net scores are floats; the picker sorts ints


cdef inline int to_int_score(double x) noexcept nogil:
    x *= NN_SCALE
    if x > SCORE_LIMIT:
        return SCORE_LIMIT
    if x < -SCORE_LIMIT:
        return -SCORE_LIMIT
    return <int>x


cdef void score_history(Search* s, Picker* p) noexcept nogil:
    """The history heuristic: how often (weighted by depth) a move has cut off."""
    cdef int i, side = s.pos.stm
    for i in range(p.n_noisy, p.n):
        p.scores[i] = s.history[side][move_from(p.moves[i])][move_to(p.moves[i])]


cdef void net_scores(Search* s, Picker* p) noexcept nogil:
    """The net's score of every quiet move, into p.nn (from the cache if it has them)."""
    cdef int i, quiets = p.n - p.n_noisy
    cdef u64 key = s.pos.key ^ (<u64>(last_move_to(&s.pos) + 1) * <u64>0x9E3779B97F4A7C15)
    cdef NmmCacheEntry* entry = &s.nmm_cache[key & (NMM_CACHE_SIZE - 1)]
    p.has_nn = quiets > 0
    if entry.key == key and entry.n == quiets:
        for i in range(quiets):
            p.nn[p.n_noisy + i] = entry.scores[i]
        return
    nmm_move_scores(s.net, &s.nmm_acc, &s.pos, &p.moves[p.n_noisy], quiets, &p.nn[p.n_noisy])
    if quiets <= NMM_CACHE_MOVES:
        entry.key = key
        entry.n = quiets
        for i in range(quiets):
            entry.scores[i] = p.nn[p.n_noisy + i]


cdef void score_nmm(Search* s, Picker* p) noexcept nogil:
    """Pure NMM: quiet moves in the net's order."""
    cdef int i
    net_scores(s, p)
    for i in range(p.n_noisy, p.n):
        p.scores[i] = to_int_score(p.nn[i])


cdef void score_straight(Search* s, Picker* p) noexcept nogil:
    """Straightforward combination: the net's favourite first, then history order."""
    cdef int i, best = p.n_noisy
    net_scores(s, p)
    score_history(s, p)
    for i in range(p.n_noisy + 1, p.n):
        if p.nn[i] > p.nn[best]:
            best = i
    if p.n > p.n_noisy:
        p.scores[best] = SCORE_LIMIT


cdef void score_weighted(Search* s, Picker* p) noexcept nogil:
    """Weighted combination: nnscore + hhscore / (hhupdate * hhweight)."""
    cdef int i, side = s.pos.stm
    cdef double scale = 1.0 / ((s.hhupdate if s.hhupdate > 0 else 1) * s.hhweight)
    net_scores(s, p)
    for i in range(p.n_noisy, p.n):
        p.hh[i] = s.history[side][move_from(p.moves[i])][move_to(p.moves[i])]
        p.scores[i] = to_int_score(p.nn[i] + p.hh[i] * scale)
    p.has_aux = True


cdef enum:
    CM_CLASS_STEP = 1 << 26     # the class decides; inside it the control gain (|gain| < 512)
    CM_GAIN_STEP = 1 << 16      # then history, clipped below one step of gain
    CM_HISTORY_MAX = CM_GAIN_STEP - 1


cdef void score_chessmaps(Search* s, Picker* p) noexcept nogil:
    """The ChessMaps order (move_classes.pxi): the class as the paper lists
    them (safe tactical, safe other, unsafe tactical, unsafe other), inside a
    class the gain in square control over the regions that matter, then history."""
    cdef int i, h, side = s.pos.stm
    cdef int net_weights[64]
    cdef SquareWeights weights
    cdef u64 hanging = en_prise(&s.pos, side)
    cdef Move m
    if s.regions.w != NULL and s.opt.regions_net:
        net_regions(&s.regions, &s.pos, net_weights)
        weights_from_ints(net_weights, &weights)
    else:
        hand_regions(&s.pos, &weights)
    for i in range(p.n_noisy, p.n):
        m = p.moves[i]
        h = s.history[side][move_from(m)][move_to(m)]
        p.scores[i] = ((3 - class_rank(move_class(&s.pos, m, hanging))) * CM_CLASS_STEP
                       + control_gain(&s.pos, m, &weights) * CM_GAIN_STEP
                       + (h if h < CM_HISTORY_MAX else CM_HISTORY_MAX))


cdef void adapt_history_weight(Search* s, Picker* p, Move m) noexcept nogil:
    """A quiet move cut off, but was not tried first: blame the component that
    ranked it lower. If the net liked it more than history did (an nn-miss),
    give history less say (raise the weight); if history liked it more (an
    hh-miss), give it more say (lower the weight)."""
    cdef int i, j = -1, nn_rank = 0, hh_rank = 0
    for i in range(p.n_noisy, p.n):
        if p.moves[i] == m:
            j = i
    if j < 0:
        return
    for i in range(p.n_noisy, p.n):
        nn_rank += p.nn[i] > p.nn[j]
        hh_rank += p.hh[i] > p.hh[j]
    if nn_rank < hh_rank:
        s.hhweight += s.opt.beta_nn
        s.nn_misses += 1
    elif hh_rank < nn_rank:
        s.hhweight -= s.opt.beta_hh
        if s.hhweight < 1e-3:
            s.hhweight = 1e-3
        s.hh_misses += 1


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
QUIET_SCORERS[ORDER_NMM] = score_nmm
QUIET_SCORERS[ORDER_STRAIGHT] = score_straight
QUIET_SCORERS[ORDER_WEIGHTED] = score_weighted
QUIET_SCORERS[ORDER_CHESSMAPS] = score_chessmaps

cdef bint SCORER_NEEDS_NET[N_ORDERINGS]     # the others run without a net
SCORER_NEEDS_NET[:] = [False, True, True, True, False]
