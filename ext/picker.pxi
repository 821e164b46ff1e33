# The staged move picker: TT move, good captures, (move chains,) killers,
# quiet moves (as the selected scorer ranks them), then losing captures.
#
# Moves are generated legal, all at once, but only when the TT move has not
# refuted the node: it is checked alone (is_legal), so that a node it refutes
# generates nothing. The stages decide the order, and the (possibly costly)
# quiet-move scorer only runs if the node gets that far. The Picker struct
# itself is in search_state.pxi.

from libc.math cimport exp, log

cdef extern from "pick_kernel.h" nogil:
    int NMM_PICK_LANES      # the kernel's lanes: fewer moves take the plain loop
    int nmm_first_max(const int* x, int n)

cdef enum:
    STAGE_TT = 0
    STAGE_CAPTURES_INIT = 1
    STAGE_GOOD_CAPTURES = 2
    STAGE_KILLERS = 3
    STAGE_QUIETS_INIT = 4
    STAGE_QUIETS = 5
    STAGE_BAD_CAPTURES = 6
    STAGE_DONE = 7
    STAGE_CHAINS = 8            # after the good captures, with MoveChains or MoveTables on
    STAGE_COUNTER = 9           # after the killers, with CounterMoves on

cdef void picker_init(Picker* p, Search* s, Move tt_move, int ply, int depth,
                      bint captures_only) noexcept nogil:
    """Set up the stages (the moves are generated later, by picker_generate);
    ``captures_only`` for quiescence (not in check)."""
    cdef const Position* pos = &s.pos
    p.captures_only = captures_only
    p.net_allowed = True
    p.generated = False
    p.tt_move = tt_move if tt_move and is_legal(pos, tt_move, GEN_NOISY if captures_only else GEN_ALL) else 0
    if captures_only or ply > MAX_PLY:
        p.killers[0] = 0
        p.killers[1] = 0
    else:
        p.killers[0] = s.killers[ply][0]
        p.killers[1] = s.killers[ply][1]
    p.killer_index = 0
    p.counter = 0
    if s.opt.counter_moves and not captures_only:
        p.counter = counter_of(s, pos)
        if p.counter == p.killers[0] or p.counter == p.killers[1]:
            p.counter = 0
    p.n_bad = 0
    p.depth = depth
    p.has_aux = False
    p.has_nn = False
    p.last_prob = -1
    p.quiets_returned = 0
    p.n_chain = 0
    p.chain_index = 0
    p.from_chain = False
    p.from_table = False
    p.stage = STAGE_TT


cdef void picker_generate(Picker* p, const Position* pos) noexcept nogil:
    """Generate the node's moves, the noisy ones first (once; every reader of
    ``p.moves`` or ``p.n`` calls it, or comes after the captures' stage)."""
    cdef int i, j = 0
    cdef Move tmp
    if p.generated:
        return
    p.generated = True
    p.n = generate_moves(pos, p.moves, GEN_NOISY if p.captures_only else GEN_ALL)
    for i in range(p.n):
        if is_noisy(pos, p.moves[i]):
            tmp = p.moves[i]
            p.moves[i] = p.moves[j]
            p.moves[j] = tmp
            j += 1
    p.n_noisy = j


cdef inline Move* counter_slot(Search* s, const Position* pos) noexcept nogil:
    """Where the quiet move that refuted the opponent's last move is kept
    (keyed by the piece that moved and its square; NULL after a null move)."""
    cdef int to = last_move_to(pos)
    if to < 0:
        return NULL
    return &s.counters[pos.board[to]][to]


cdef inline Move counter_of(Search* s, const Position* pos) noexcept nogil:
    """The quiet move that last refuted the opponent's last move (0: none known)."""
    cdef Move* slot = counter_slot(s, pos)
    return slot[0] if slot != NULL else 0


cdef inline bint quiet_stage_move(const Picker* p, Move m) noexcept nogil:
    """Whether a killer or counter-move ``m`` is one of this node's quiet moves
    not already given (as the TT move or a chain move)."""
    return (m and m != p.tt_move and contains(p.moves, p.n_noisy, p.n, m)
            and not contains(p.chain, 0, p.n_chain, m))


cdef inline int first_best(const int* scores, int n) noexcept nogil:
    """The index of the first highest of ``scores[0..n)``, n >= 1."""
    cdef int best = 0, i
    if n >= NMM_PICK_LANES:
        return nmm_first_max(scores, n)
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    return best


def first_best_score(scores) -> int:
    """The picker's selection on a list of scores (for tests): the index of
    the first highest.

    >>> first_best_score([3, 9, 1, 9])
    1
    """
    cdef int values[MAX_MOVES]
    cdef int i, n = len(scores)
    if not 1 <= n <= MAX_MOVES:
        raise ValueError(f"1 to {MAX_MOVES} scores, not {n}")
    for i in range(n):
        values[i] = scores[i]
    return first_best(values, n)


cdef inline Move pick_best(Picker* p, int end) noexcept nogil:
    """Swap the best-scored move of [cur, end) to cur and return it (cur advances)."""
    cdef int best = p.cur + first_best(&p.scores[p.cur], end - p.cur), tmp_score
    cdef float tmp_nn
    cdef Move tmp
    tmp = p.moves[best]
    p.moves[best] = p.moves[p.cur]
    p.moves[p.cur] = tmp
    tmp_score = p.scores[best]
    p.scores[best] = p.scores[p.cur]
    p.scores[p.cur] = tmp_score
    if p.has_nn:
        tmp_nn = p.nn[best]
        p.nn[best] = p.nn[p.cur]
        p.nn[p.cur] = tmp_nn
    if p.has_aux:
        tmp_score = p.hh[best]
        p.hh[best] = p.hh[p.cur]
        p.hh[p.cur] = tmp_score
    p.cur += 1
    return tmp


cdef inline int mvv_lva(const Position* pos, Move m) noexcept nogil:
    """Most valuable victim first, then least valuable attacker; promotions count."""
    cdef int score = SEE_VALUE[captured_type(pos, m)] * 8 - piece_type(pos.board[move_from(m)])
    if move_flag(m) >= F_PROMO:
        score += (SEE_VALUE[promo_type(m)] - SEE_VALUE[PAWN]) * 8
    return score


cdef inline bint loses_material(const Position* pos, Move m) noexcept nogil:
    """SEE < CAPTURE_SEE_MIN (0 or less), skipping the exchange when the victim
    is worth at least the attacker (its SEE is then 0 or more)."""
    if move_flag(m) >= F_PROMO:
        return see(pos, m) < CAPTURE_SEE_MIN
    if SEE_VALUE[captured_type(pos, m)] >= SEE_VALUE[piece_type(pos.board[move_from(m)])]:
        return False
    return see(pos, m) < CAPTURE_SEE_MIN


cdef float log_sum_exp(const float* x, int n) noexcept nogil:
    cdef float top = x[0], total = 0
    cdef int i
    for i in range(1, n):
        if x[i] > top:
            top = x[i]
    for i in range(n):
        total += exp(x[i] - top)
    return top + log(total)


cdef Move picker_next(Picker* p, Search* s, int ply) noexcept nogil:
    """The next move to search, or 0 when there are none left."""
    cdef const Position* pos = &s.pos
    cdef Move m
    cdef int i
    p.from_chain = False
    p.from_table = False
    p.last_prob = -1
    while True:
        if p.stage == STAGE_TT:
            p.stage = STAGE_CAPTURES_INIT
            if p.tt_move:
                return p.tt_move
        elif p.stage == STAGE_CAPTURES_INIT:
            picker_generate(p, pos)
            for i in range(p.n_noisy):
                p.scores[i] = mvv_lva(pos, p.moves[i])
                if s.opt.capture_history:
                    p.scores[i] = p.scores[i] * CAPTURE_MVV_SCALE // 8 + capture_entry(s, pos, p.moves[i])[0]
            p.cur = 0
            p.stage = STAGE_GOOD_CAPTURES
        elif p.stage == STAGE_GOOD_CAPTURES:
            while p.cur < p.n_noisy:
                m = pick_best(p, p.n_noisy)
                if m == p.tt_move:
                    continue
                if loses_material(pos, m):
                    if not p.captures_only:
                        p.bad[p.n_bad] = m
                        p.n_bad += 1
                    continue
                return m
            p.stage = STAGE_DONE if p.captures_only else (
                STAGE_CHAINS if s.opt.move_chains or s.opt.move_tables else STAGE_KILLERS)
        elif p.stage == STAGE_CHAINS:
            if p.chain_index == 0 and p.n_chain == 0:
                p.n_chain = chain_moves(s, p, p.chain, p.chain_is_table)
            if p.chain_index < p.n_chain:
                p.chain_index += 1
                p.from_table = p.chain_is_table[p.chain_index - 1]
                p.from_chain = not p.from_table
                if p.from_table:
                    s.table_tries += 1
                else:
                    s.chain_tries += 1
                return p.chain[p.chain_index - 1]
            p.stage = STAGE_KILLERS
        elif p.stage == STAGE_KILLERS:
            while p.killer_index < 2:
                m = p.killers[p.killer_index]
                p.killer_index += 1
                if quiet_stage_move(p, m):
                    return m
            p.stage = STAGE_COUNTER
        elif p.stage == STAGE_COUNTER:
            p.stage = STAGE_QUIETS_INIT
            if quiet_stage_move(p, p.counter):
                return p.counter
            p.counter = 0               # not played here: the quiet stage must not skip it
        elif p.stage == STAGE_QUIETS_INIT:
            if (s.opt.ordering == ORDER_HISTORY or p.depth < s.opt.nmm_min_depth
                    or (SCORER_NEEDS_NET[s.opt.ordering] and (s.net == NULL or not p.net_allowed))):
                score_history(s, p)         # too near the leaves, no net, or an all-node
            else:
                QUIET_SCORERS[s.opt.ordering](s, p)
            if (not p.has_nn and (s.opt.nmm_reductions or s.opt.nmm_pruning) and s.net != NULL
                    and p.net_allowed and p.depth >= s.opt.nmm_min_depth):
                net_scores(s, p)            # the net steers reductions whatever orders the moves
            if p.has_nn:
                p.nn_logz = log_sum_exp(&p.nn[p.n_noisy], p.n - p.n_noisy)
            if s.opt.cont_history:
                for i in range(p.n_noisy, p.n):
                    p.scores[i] += stat_score(s, pos, p.moves[i], ply)
            p.cur = p.n_noisy
            p.stage = STAGE_QUIETS
        elif p.stage == STAGE_QUIETS:
            while p.cur < p.n:
                m = pick_best(p, p.n)
                if (m != p.tt_move and m != p.killers[0] and m != p.killers[1] and m != p.counter
                        and not contains(p.chain, 0, p.n_chain, m)):
                    p.quiets_returned += 1
                    if p.has_nn:
                        p.last_prob = exp(p.nn[p.cur - 1] - p.nn_logz)
                    return m
            p.cur = 0
            p.stage = STAGE_BAD_CAPTURES
        elif p.stage == STAGE_BAD_CAPTURES:
            if p.cur < p.n_bad:
                p.cur += 1
                return p.bad[p.cur - 1]
            p.stage = STAGE_DONE
        else:
            return 0
