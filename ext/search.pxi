# The search: iterative deepening with aspiration windows over a negamax
# alpha-beta with principal-variation search, null move, late-move
# reductions, futility pruning and a quiescence search. Runs without the GIL;
# it takes the GIL only to report (report_* in search_api.pxi).

from libc.math cimport log


cdef inline int static_eval(Search* s, const Position* pos) noexcept nogil:
    """The evaluation in use: the NNUE or the TD net when one is loaded and
    chosen, else the handwritten one."""
    if s.nnue != NULL:
        return nnue_evaluate(s.nnue, s.nnue_acc, pos)
    if s.td != NULL:
        return td_evaluate(s.td, s.td_cache, s.td_acc, pos)
    return evaluate(pos, NULL)


cdef inline void eval_prefetch(Search* s, const Position* pos) noexcept nogil:
    """Ask for the TD net's cache line of ``pos`` before the TT probe (the NNUE has no cache)."""
    if s.td != NULL:
        td_prefetch(s.td, s.td_cache, pos)


# The numbers in capitals (RFP_MARGIN, LMR_BASE, ...) are the search's
# constants, declared in engine/search_params.py (ext/search_params.pxi):
# variables in a tuning build, which set_search_param changes.

cdef int LMR_TABLE[64][64]      # reduction by [depth][moves searched]

cdef void init_search_tables() noexcept nogil:
    """LMR_TABLE from LMR_BASE and LMR_DIVISOR: at import, and again when a tuning build changes them."""
    cdef int d, m
    for d in range(64):
        for m in range(64):
            LMR_TABLE[d][m] = 0 if d == 0 or m == 0 else <int>(LMR_BASE + log(d) * log(m) / LMR_DIVISOR)

init_search_tables()


cdef inline int lmp_limit(Search* s, Picker* p, int depth, bint improving) noexcept nogil:
    """Quiet moves searched before late-move pruning starts. With NMMPruning,
    the net's favourites are never pruned this way and its rejects twice as early."""
    cdef int limit = LMP_BASE + depth * depth + (LMP_IMPROVING if improving else 0)
    if s.opt.nmm_pruning and p.last_prob >= 0:
        if p.last_prob >= s.opt.nmm_prob_high:
            return MAX_MOVES
        if p.last_prob < s.opt.nmm_prob_low:
            return limit // 2
    return limit


cdef inline int net_reduction(Search* s, float prob) noexcept nogil:
    """NMMReductions: one ply less for a quiet move the net likes, one more for one it does not."""
    if prob >= s.opt.nmm_prob_high:
        return -1
    if prob < s.opt.nmm_prob_low:
        return 1
    return 0


cdef inline bint check_stop(Search* s) noexcept nogil:
    """True once the search must unwind: stop command, node or time limit."""
    if s.stopped:
        return True
    if s.root_depth <= 1:
        return False                # depth 1 always completes: there is a move to play
    if stop_requested or group_aborted(s) or (s.limits.nodes and over_node_limit(s)):
        s.stopped = 1
    elif (s.nodes & 1023) == 0 and s.limits.hard_ms > 0 and not s.pondering:
        if now_ms() - s.start_ms >= s.limits.hard_ms:
            s.stopped = 1
    return s.stopped


cdef bint is_draw(const Position* pos, int ply) noexcept nogil:
    """Fifty moves, dead material, or a repetition: once inside the tree, twice before it."""
    cdef int i = pos.hist_len - 4, stop = pos.hist_len - pos.halfmove, seen = 0
    if pos.halfmove >= 100:
        return not (in_check(pos) and not has_legal_move(pos))
    if popcount(pos.all) <= 4 and insufficient_material(pos):
        return True
    if stop < 0:
        stop = 0
    while i >= stop:
        if pos.hist[i + 1].move == 0 or pos.hist[i].move == 0:
            break                       # a null move: what lies before is not a real line
        if pos.hist[i].key == pos.key:
            if i >= pos.hist_len - ply:
                return True
            seen += 1
            if seen >= 2:
                return True
        i -= 2
    return False


cdef inline void update_pv(Search* s, int ply, Move m) noexcept nogil:
    cdef int i
    s.pv[ply][ply] = m
    for i in range(ply + 1, s.pv_len[ply + 1]):
        s.pv[ply][i] = s.pv[ply + 1][i]
    s.pv_len[ply] = s.pv_len[ply + 1] if s.pv_len[ply + 1] > ply + 1 else ply + 1


cdef inline bint has_pieces(const Position* pos, int color) noexcept nogil:
    """More than king and pawns: null move is unsafe without (zugzwang)."""
    return (pos.occ[color] & ~pos.pieces[PAWN + 6 * color] & ~pos.pieces[KING + 6 * color]) != 0


cdef inline bint may_give_check(const Position* pos, Move m) noexcept nogil:
    """False only for a quiet move that cannot give check, so that quiescence
    makes no other: the piece does not attack the king from its new square,
    does not leave a line through the king on which we have a slider (a
    discovered check) and is not castling. make_move decides the rest."""
    cdef int us = pos.stm, frm = move_from(m), to = move_to(m), ksq = pos.king[us ^ 1]
    cdef int pt = pos.board[frm] - 6 * us
    cdef u64 occ = (pos.all & ~bit(frm)) | bit(to)
    if move_flag(m) == F_CASTLE:
        return True
    if pt == PAWN:
        if PAWN_ATK[us][to] & bit(ksq):
            return True
    elif pt != KING and piece_attacks(pt, to, occ) & bit(ksq):
        return True
    cdef u64 line = LINE[frm][ksq], sliders = pos.pieces[QUEEN + 6 * us]
    if line == 0 or line & bit(to):
        return False
    if (frm & 7) == (ksq & 7) or (frm >> 3) == (ksq >> 3):
        sliders |= pos.pieces[ROOK + 6 * us]
    else:
        sliders |= pos.pieces[BISHOP + 6 * us]
    return (line & sliders) != 0        # a slider of ours on the line the piece leaves


cdef void quiet_checks(Search* s, int alpha, int beta, int ply, int* best, Move* best_move) noexcept nogil:
    """Quiescence's quiet checks (QSearchChecks): at the first ply of
    quiescence, the quiet moves that give check and lose nothing by exchange,
    so that a mate or a fork one move past the horizon is seen. Raises
    ``best`` and ``best_move``; beta stops the loop. A function of its own:
    its move list stays off the stack of every other quiescence node."""
    cdef Position* pos = &s.pos
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(pos, moves, GEN_QUIET), i, score
    for i in range(n):
        if not may_give_check(pos, moves[i]) or see(pos, moves[i]) < QS_CHECK_SEE_MIN:
            continue
        make_move(pos, moves[i])
        if not in_check(pos):
            unmake_move(pos)
            continue
        score = -qsearch(s, -beta, -alpha, ply + 1, False)
        unmake_move(pos)
        if s.stopped:
            return
        if score > best[0]:
            best[0] = score
            if score > alpha:
                alpha = score
                best_move[0] = moves[i]
                update_pv(s, ply, moves[i])
                if score >= beta:
                    return


cdef int qsearch(Search* s, int alpha, int beta, int ply, bint checks) noexcept nogil:
    """Captures and promotions until the position is quiet; all evasions in
    check; with ``checks`` (the first quiescence ply, QSearchChecks on) also
    the quiet checks."""
    cdef Position* pos = &s.pos
    cdef Picker picker
    cdef TTHit entry
    cdef bint hit
    cdef Move m, tt_move = 0, best_move = 0
    cdef int score, best, stand_pat = NO_SCORE, raw_eval = 0, tt_score, searched = 0
    cdef bint check
    s.pv_len[ply] = ply
    s.nodes += 1
    if check_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply
    if is_draw(pos, ply):
        return 0
    check = in_check(pos)
    if ply >= MAX_PLY:
        return 0 if check else static_eval(s, pos)

    eval_prefetch(s, pos)
    hit = tt_probe(s.tt, pos.key, &entry)
    if hit:
        tt_move = entry.move
        tt_score = score_from_tt(entry.score, ply)
        # A quiescence entry (depth 0) may not have tried the quiet checks:
        # at a node that does, only its lower bound holds.
        if s.opt.tt_cutoffs and (not checks or entry.depth > 0 or entry.bound == BOUND_LOWER) and (
                entry.bound == BOUND_EXACT
                or (entry.bound == BOUND_LOWER and tt_score >= beta)
                or (entry.bound == BOUND_UPPER and tt_score <= alpha)):
            return tt_score

    if check:
        best = -INFINITE
    else:
        raw_eval = entry.eval if hit else static_eval(s, pos)
        stand_pat = corrected_eval(s, pos, raw_eval)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat

    picker_init(&picker, s, tt_move, ply, 0, not check)
    while True:
        m = picker_next(&picker, s, ply)
        if m == 0:
            break
        # Delta pruning: even winning this piece (and then some) cannot reach alpha.
        if (s.opt.futility and not check and move_flag(m) < F_PROMO
                and stand_pat + SEE_VALUE[captured_type(pos, m)] + QS_DELTA_MARGIN <= alpha):
            continue
        make_move(pos, m)
        score = -qsearch(s, -beta, -alpha, ply + 1, False)
        unmake_move(pos)
        if s.stopped:
            return 0
        searched += 1
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                best_move = m
                update_pv(s, ply, m)
                if score >= beta:
                    break
    if check and searched == 0 and picker.n == 0:
        return -MATE + ply
    if checks and not check and best < beta:
        quiet_checks(s, alpha, beta, ply, &best, &best_move)
        if s.stopped:
            return 0
    tt_store(s.tt, pos.key, 0, best, raw_eval,
             BOUND_LOWER if best >= beta else BOUND_UPPER, best_move, ply)
    return best


cdef enum:
    CURRMOVE_AFTER_MS = 3000    # root moves are reported (info currmove) after this long


cdef int probcut(Search* s, int depth, int pc_beta, int ply, bint cut_node, int eval, int raw_eval) noexcept nogil:
    """ProbCut's captures: the score of the first that holds ``pc_beta``, else NO_SCORE.

    ``eval`` is the node's working evaluation (corrected, or the table's
    score under TTEval), which the margin reads; ``raw_eval`` the static
    evaluation itself, the only one the table may keep: a corrected value
    kept there would be corrected again by the next visit."""
    cdef Position* pos = &s.pos
    cdef Picker picker
    cdef Move m
    cdef int score
    picker_init(&picker, s, 0, ply, depth, True)      # good captures only
    while True:
        m = picker_next(&picker, s, ply)
        if m == 0:
            return NO_SCORE
        if eval != NO_SCORE and eval + SEE_VALUE[captured_type(pos, m)] + PROBCUT_CAPTURE_MARGIN < pc_beta:
            continue                    # not even winning the piece gets there
        s.cont_key[ply] = move_key(pos, m)
        make_move(pos, m)
        score = -qsearch(s, -pc_beta, -pc_beta + 1, ply + 1, False)
        if score >= pc_beta:
            score = -negamax(s, depth - PROBCUT_REDUCTION, -pc_beta, -pc_beta + 1, ply + 1, True, not cut_node)
        unmake_move(pos)
        if s.stopped:
            return 0
        if score >= pc_beta:
            tt_store(s.tt, pos.key, depth - PROBCUT_REDUCTION + 1, score, raw_eval, BOUND_LOWER, m, ply)
            return score


cdef void reward_quiet_cutoff(Search* s, Picker* picker, Move m, Move* tried, int n_tried, int ply, int depth,
                              int quiets, int score) noexcept nogil:
    """What a quiet move that failed high teaches: the killers, the history,
    the statistics, the counter-move, the cut-off records, the move chains and
    tables, and the adaptive weight."""
    cdef Position* pos = &s.pos
    cdef Move* counter
    if m != s.killers[ply][0]:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = m
    history_reward(s, pos, m, depth)
    if s.opt.cont_history or s.opt.history_lmr or s.opt.history_pruning:
        stats_after_cutoff(s, pos, m, tried, n_tried, ply, depth)
    if s.opt.counter_moves:
        counter = counter_slot(s, pos)
        if counter != NULL:
            counter[0] = m
    if s.cutoffs != NULL:
        picker_generate(picker, pos)    # the TT move may have been all this node tried
        record_cutoff(s.cutoffs, pos, &picker.moves[picker.n_noisy],
                      picker.n - picker.n_noisy, m, depth, quiets - 1)
    if s.opt.move_chains:
        chain_store(s, pos.stm, m, s.stubborn[ply + 1])
    if s.opt.move_tables:
        mt_reinforce(s, pos, m, s.stubborn[ply + 1], s.stubborn_reply[ply + 1], score)
    if (s.opt.adaptive and picker.has_aux and picker.stage == STAGE_QUIETS
            and picker.quiets_returned > 1):
        adapt_history_weight(s, picker, m)


cdef int prune_before_moves(Search* s, int depth, int alpha, int beta, int ply, int eval, bint improving,
                            bint allow_null, bint cut_node) noexcept nogil:
    """A non-PV node's score without its moves, where razoring, reverse
    futility or a null move can give one; else NO_SCORE."""
    cdef Position* pos = &s.pos
    cdef int score, R
    # Razoring: so far below alpha that only a tactic could help; if
    # quiescence finds none, trust it.
    if s.opt.razoring and depth <= RAZOR_DEPTH and eval + RAZOR_MARGIN * depth <= alpha:
        score = qsearch(s, alpha, alpha + 1, ply, False)
        if s.stopped:
            return 0
        if score <= alpha:
            return score
    # Reverse futility: far enough above beta that a quiet move will not fall below it.
    if (s.opt.futility and depth <= RFP_DEPTH and eval < MATE_BOUND
            and eval - RFP_MARGIN * depth + (RFP_IMPROVING if improving else 0) >= beta):
        return eval
    # Null move: if passing still fails high, a real move will too (not in zugzwang).
    if (s.opt.null_move and allow_null and depth >= NMP_MIN_DEPTH and eval >= beta
            and beta > -MATE_BOUND and has_pieces(pos, pos.stm)):
        R = NMP_BASE + depth // NMP_DEPTH_DIV + min((eval - beta) // NMP_EVAL_DIV, NMP_EVAL_MAX)
        s.cont_key[ply] = -1
        make_null(pos)
        score = -negamax(s, depth - 1 - R, -beta, -beta + 1, ply + 1, False, not cut_node)
        unmake_null(pos)
        if s.stopped:
            return 0
        if score >= beta:
            if score >= MATE_BOUND:
                score = beta
            if depth < NMP_VERIFY_DEPTH:
                return score
            # Deep nodes: verify with a real search (no null move) before trusting it.
            if negamax(s, depth - 1 - R, beta - 1, beta, ply, False, cut_node) >= beta:
                return score
    return NO_SCORE


cdef int negamax(Search* s, int depth, int alpha, int beta, int ply, bint allow_null,
                 bint cut_node) noexcept nogil:
    """Score of the position within (alpha, beta), ``depth`` plies plus quiescence.

    ``cut_node``: a null-window node expected to fail high (its parent expects
    to fail low); the other null-window nodes are expected all-nodes, where
    every move is searched and the order of quiet moves matters less."""
    cdef Position* pos = &s.pos
    cdef Picker picker
    cdef Beam beam
    cdef LongBranch lb
    cdef TTHit entry
    cdef bint hit
    cdef Move m, tt_move = 0, best_move = 0
    cdef int score, best = -INFINITE, eval, raw_eval = 0, tt_score = 0, r, new_depth, searched = 0, quiets = 0
    cdef int bound
    cdef int original_alpha = alpha
    cdef bint check = in_check(pos), is_pv = beta - alpha > 1, improving, noisy, gives_check
    cdef bint futile, killer
    cdef Move excluded = s.excluded[ply]
    cdef int extension, singular_beta, n_tried = 0, men
    cdef Move tried[64]             # quiet moves searched, for the statistics' malus
    cdef Move tried_noisy[32]       # captures and promotions searched, for CaptureHistory's
    cdef int n_noisy_tried = 0
    cdef int stat = 0
    cdef Move deferred[DEFER_MAX]   # moves put off because another thread is searching them
    cdef int n_deferred = 0, next_deferred = 0
    cdef bint defer = False, from_deferred = False, crowded = False
    cdef u64 busy = 0, crumb = 0

    if check and s.opt.check_extension and ply < 2 * s.root_depth:
        depth += 1                      # check extension
    if depth <= 0:
        return qsearch(s, alpha, beta, ply, s.opt.qs_checks)
    s.pv_len[ply] = ply
    s.double_ext[ply + 1] = s.double_ext[ply]
    s.nodes += 1
    if check_stop(s):
        return 0
    if ply > s.seldepth:
        s.seldepth = ply
    if is_draw(pos, ply):
        return 0
    if ply >= MAX_PLY - 1:
        return 0 if check else static_eval(s, pos)
    # Mate distance pruning: no score here can beat a mate already found nearer the root.
    if alpha < -MATE + ply:
        alpha = -MATE + ply
    if beta > MATE - ply - 1:
        beta = MATE - ply - 1
    if alpha >= beta:
        return alpha

    eval_prefetch(s, pos)
    # A singular-extension test (excluded move) is a different search of this
    # position: it neither takes the table's verdict nor leaves its own there.
    hit = tt_probe(s.tt, pos.key, &entry) if not excluded else False
    if hit:
        tt_move = entry.move
        tt_score = score_from_tt(entry.score, ply)
        if (s.opt.tt_cutoffs and not is_pv and entry.depth >= depth
                and (entry.bound == BOUND_EXACT
                     or (entry.bound == BOUND_LOWER and tt_score >= beta)
                     or (entry.bound == BOUND_UPPER and tt_score <= alpha))):
            return tt_score

    # The Syzygy tables, just after a capture or pawn move (search_syzygy.pxi).
    if s.tb_cardinality and not excluded and pos.halfmove == 0 and pos.castling == 0:
        men = popcount(pos.all)
        if men <= s.tb_cardinality and (men < s.tb_cardinality or depth >= s.opt.syzygy_probe_depth):
            score = tb_cut(s, depth, alpha, beta, ply, check)
            if score != NO_SCORE:
                return score

    if check:
        eval = NO_SCORE
    elif excluded:
        eval = s.static_eval[ply]      # the node's own, set before the test
    else:
        raw_eval = entry.eval if hit else static_eval(s, pos)
        eval = corrected_eval(s, pos, raw_eval)
    s.static_eval[ply] = eval
    # Improving: the side to move stands better than two plies ago, so a
    # cut-off is likelier here: prune and reduce a little less.
    improving = (s.opt.improving and not check and ply >= 2 and s.static_eval[ply - 2] != NO_SCORE
                 and eval > s.static_eval[ply - 2])
    # TTEval: a table score that bounds the truth on the far side of the
    # static evaluation is the better guess; the pruning starts from it.
    if (s.opt.tt_eval and hit and not check and not excluded and -MATE_BOUND < tt_score < MATE_BOUND
            and entry.bound & (BOUND_LOWER if tt_score > eval else BOUND_UPPER)):
        eval = tt_score

    if not is_pv and not check and not excluded:
        score = prune_before_moves(s, depth, alpha, beta, ply, eval, improving, allow_null, cut_node)
        if score != NO_SCORE:
            return score

    # ProbCut: a capture that keeps a margin above beta in quiescence and in a
    # search four plies shallower would very likely cut off at full depth.
    if (s.opt.probcut and not is_pv and not check and not excluded and depth >= PROBCUT_DEPTH
            and -MATE_BOUND < beta < MATE_BOUND
            and not (hit and entry.depth >= depth - PROBCUT_REDUCTION + 1 and tt_score < beta + PROBCUT_MARGIN)):
        score = probcut(s, depth, beta + PROBCUT_MARGIN, ply, cut_node, eval, raw_eval)
        if s.stopped:
            return 0
        if score != NO_SCORE:
            return score

    # Internal iterative reduction: with no move from the table, this node is
    # probably less important than its depth says.
    if s.opt.lmr and depth >= IIR_DEPTH and tt_move == 0 and not excluded:
        depth -= 1

    # Singular extension: if every other move falls well short of the table
    # move's score, the table move alone holds this node: search it a ply
    # deeper, two where they fall far short (DoubleExtensions; off the PV and
    # a few times a path, so that the tree stays finite). If even without it
    # the node fails high, it is a cut node many times over (multi-cut): trust that.
    extension = 0
    if (s.opt.singular and depth >= SE_DEPTH and hit and tt_move and not excluded and ply > 0
            and entry.depth >= depth - SE_TT_DEPTH and entry.bound != BOUND_UPPER
            and -MATE_BOUND < tt_score < MATE_BOUND and ply < 2 * s.root_depth):
        singular_beta = tt_score - SE_MARGIN * depth
        s.excluded[ply] = tt_move
        score = negamax(s, (depth - 1) // 2, singular_beta - 1, singular_beta, ply, False, cut_node)
        s.excluded[ply] = 0
        if s.stopped:
            return 0
        if score < singular_beta:
            extension = 1
            if (s.opt.double_extensions and not is_pv and score < singular_beta - SE_DOUBLE_MARGIN
                    and s.double_ext[ply] < SE_DOUBLE_MAX):
                extension = 2
                s.double_ext[ply + 1] = s.double_ext[ply] + 1
        elif singular_beta >= beta:
            return singular_beta
        s.pv_len[ply] = ply

    picker_init(&picker, s, tt_move, ply, depth, False)
    picker.net_allowed = is_pv or cut_node or not s.opt.nmm_cut_nodes_only
    beam_init(&beam, s, pos, &picker, s.opt.forward_pruning and not is_pv and not check and depth >= FP_MIN_DEPTH)
    lb.first = 0
    if s.opt.long_branches and s.opt.move_tables and not is_pv and not check and depth >= FP_MIN_DEPTH:
        long_branch_try(&lb, s, &picker, alpha, beta, ply)
        if s.stopped:
            return 0
    s.stubborn[ply] = 0
    defer = s.opt.defer_busy and s.group.n > 1 and depth >= s.opt.defer_depth
    if s.opt.breadcrumbs and s.group.n > 1 and ply < BREADCRUMB_PLIES and not excluded:
        crumb = busy_key(pos, 0)        # the node itself
        crowded = busy_elsewhere(s, crumb)
        if crowded:
            crumb = 0                   # another thread's mark: it removes it
        else:
            busy_mark(s, crumb)
    while True:
        m = picker_next(&picker, s, ply)
        if m == 0:
            m = beam_next(&beam, s, pos, best <= original_alpha)
        if m == 0:
            if next_deferred == n_deferred:
                break
            m = deferred[next_deferred]     # what another thread was searching, last
            next_deferred += 1
            from_deferred = True
        if m == excluded:
            continue
        if defer:
            busy = busy_key(pos, m)
            if (searched > 0 and not from_deferred and n_deferred < DEFER_MAX
                    and busy_elsewhere(s, busy)):
                deferred[n_deferred] = m
                n_deferred += 1
                continue
        noisy = is_noisy(pos, m)
        killer = m == s.killers[ply][0] or m == s.killers[ply][1]
        if (beam.on and not beam.readding
                and beam_verdict(&beam, s, pos, m, tt_move, searched == 0, noisy,
                                 picker.from_chain or picker.from_table, killer) == FP_PRUNED):
            continue
        futile = False
        if s.opt.futility and not is_pv and not check and not noisy and best > -MATE_BOUND:
            if depth <= LMP_DEPTH and quiets >= lmp_limit(s, &picker, depth, improving):
                continue                # late-move pruning
            futile = (depth <= FUTILITY_DEPTH and eval + FUTILITY_BASE + FUTILITY_MARGIN * depth
                      + (FUTILITY_IMPROVING if improving else 0) <= alpha)
        if (s.opt.history_lmr or s.opt.history_pruning) and not noisy:
            stat = stat_score(s, pos, m, ply)      # read once: the pruning and the reduction share it
        # History pruning: near the leaves, a late quiet move that the
        # statistics have lately seen fail where it was tried waits for no search.
        if (s.opt.history_pruning and not is_pv and not check and not noisy and not killer
                and searched > 0 and best > -MATE_BOUND and depth <= HISTORY_PRUNE_DEPTH
                and stat < -HISTORY_PRUNE_MARGIN * (depth - 1)):
            continue
        # SEE pruning: near the leaves, a move that loses material by exchange
        # (more for a capture, which had its chance among the good ones) waits
        # for no search.
        if (s.opt.see_pruning and not is_pv and not check and searched > 0 and best > -MATE_BOUND
                and depth <= SEE_PRUNE_DEPTH and m != tt_move
                and see(pos, m) < (-SEE_PRUNE_NOISY * depth if noisy else -SEE_PRUNE_QUIET * depth * depth)):
            continue

        s.cont_key[ply] = move_key(pos, m)
        make_move(pos, m)
        s.stubborn[ply + 1] = 0         # the child may return before its move loop
        s.stubborn_reply[ply + 1] = 0
        gives_check = in_check(pos)
        if futile and not gives_check:
            unmake_move(pos)
            continue                    # futility pruning: a quiet move cannot catch up
        if defer:
            busy_mark(s, busy)
        new_depth = depth - 1 + (extension if m == tt_move else 0)
        if searched == 0:
            score = -negamax(s, new_depth, -beta, -alpha, ply + 1, True, not is_pv and not cut_node)
        else:
            r = 0
            if s.opt.lmr and depth >= LMR_MIN_DEPTH and not noisy and not check and not gives_check:
                r = LMR_TABLE[min(depth, 63)][min(searched, 63)]
                r += (0 if improving else LMR_NOT_IMPROVING) - (LMR_PV if is_pv else 0) - (LMR_KILLER if killer else 0)
                if s.opt.history_lmr:
                    r -= stat // LMR_HISTORY_DIV    # good statistics: less reduction, bad ones: more
                if s.opt.cut_node_lmr and cut_node:
                    r += LMR_CUT_NODE
                if crowded:
                    r += 1              # another thread is here: spread out
                if s.opt.nmm_reductions and picker.last_prob >= 0:
                    r += net_reduction(s, picker.last_prob)
                r = max(0, min(r, new_depth - 1))
            score = -negamax(s, new_depth - r, -alpha - 1, -alpha, ply + 1, True, is_pv or not cut_node)
            if score > alpha and r > 0:
                score = -negamax(s, new_depth, -alpha - 1, -alpha, ply + 1, True, is_pv or not cut_node)
            if alpha < score < beta:
                score = -negamax(s, new_depth, -beta, -alpha, ply + 1, True, False)
        unmake_move(pos)
        if defer:
            busy_unmark(s, busy)
        if s.stopped:
            if crumb:
                busy_unmark(s, crumb)
            return 0
        searched += 1
        if not noisy:
            quiets += 1
            if n_tried < 64:
                tried[n_tried] = m
                n_tried += 1
        elif n_noisy_tried < 32:
            tried_noisy[n_noisy_tried] = m
            n_noisy_tried += 1
        if picker.from_chain:
            if score >= beta:
                s.chain_cutoffs += 1
            elif score <= alpha:
                chain_forget(s, pos.stm, m)     # the short-term memory forgets what failed
        elif picker.from_table:
            if score >= beta:
                s.table_cutoffs += 1
            elif score <= alpha:
                mt_weaken(s, pos, m, score)     # the long-term memory weakens it
        if score > best:
            best = score
            beam_note_refutation(&beam, s, ply)
            s.stubborn[ply] = m
            s.stubborn_reply[ply] = s.stubborn[ply + 1]
            if score > alpha:
                alpha = score
                best_move = m
                update_pv(s, ply, m)
                if score >= beta:
                    if not noisy:
                        reward_quiet_cutoff(s, &picker, m, tried, n_tried, ply, depth, quiets, score)
                    if s.opt.capture_history:
                        capture_stats_after_cutoff(s, pos, m, noisy, tried_noisy, n_noisy_tried, depth)
                    break
    if crumb:
        busy_unmark(s, crumb)

    if searched == 0:
        if picker.n == 0:
            return -MATE + ply if check else 0      # mate or stalemate
        return alpha                                # every move was pruned
    long_branch_compare(&lb, s, best, beta, best_move)
    if excluded:
        return best
    bound = BOUND_LOWER if best >= beta else (BOUND_EXACT if best > original_alpha else BOUND_UPPER)
    # The correction learns from scores that say more than the evaluation:
    # not a capture's gain, not a bound on the side the evaluation already is.
    if (s.opt.correction and not check and (best_move == 0 or not is_noisy(pos, best_move))
            and -MATE_BOUND < best < MATE_BOUND
            and not (bound == BOUND_LOWER and best <= s.static_eval[ply])
            and not (bound == BOUND_UPPER and best >= s.static_eval[ply])):
        corr_update(s, pos, best - raw_eval, depth)
    tt_store(s.tt, pos.key, depth, best, raw_eval, bound, best_move, ply)
    return best


cdef int search_root(Search* s, int depth, int alpha, int beta) noexcept nogil:
    """One iteration over the root moves from the current MultiPV line on."""
    cdef Position* pos = &s.pos
    cdef RootMove* rm
    cdef int i, j, score, best = -INFINITE, n = 0, listed, next = 0
    cdef int order[2 * MAX_MOVES]   # root move indices in the order searched, put-off ones again at the end
    cdef u64 before, busy = 0
    cdef bint defer = s.opt.defer_busy and s.group.n > 1 and depth >= s.opt.defer_depth and s.opt.multipv == 1
    s.double_ext[1] = 0
    for i in range(s.pv_index, s.n_root):
        s.root[i].score = -INFINITE
        order[n] = i
        n += 1
    listed = n
    while next < n:
        i = order[next]
        next += 1
        rm = &s.root[i]
        if defer:
            busy = busy_key(pos, rm.move)
            if i != s.pv_index and next <= listed and busy_elsewhere(s, busy):
                order[n] = i            # another thread is on it: after the others
                n += 1
                continue
            busy_mark(s, busy)
        # After 3 s, as Stockfish does: each report takes the GIL, and on a
        # machine with far more threads than cores each take waits its turn.
        if now_ms() - s.start_ms > CURRMOVE_AFTER_MS:
            report_currmove(s, rm.move, i + 1)
        s.cont_key[0] = move_key(pos, rm.move)
        before = s.nodes
        make_move(pos, rm.move)
        if i == s.pv_index:
            score = -negamax(s, depth - 1, -beta, -alpha, 1, True, False)
        else:
            score = -negamax(s, depth - 1, -alpha - 1, -alpha, 1, True, True)
            if alpha < score < beta:
                score = -negamax(s, depth - 1, -beta, -alpha, 1, True, False)
        unmake_move(pos)
        if defer:
            busy_unmark(s, busy)
        rm.nodes += s.nodes - before
        if s.stopped:
            break
        if i == s.pv_index or score > alpha:
            rm.score = score
            rm.seldepth = s.seldepth
            rm.bound = BOUND_LOWER if score >= beta else (BOUND_UPPER if score <= alpha else BOUND_EXACT)
            rm.pv[0] = rm.move
            rm.pv_len = 1
            for j in range(1, s.pv_len[1]):
                rm.pv[j] = s.pv[1][j]
                rm.pv_len = j + 1
        if score > best:
            best = score
        if score > alpha:
            alpha = score
            if score >= beta:
                break
    sort_root_moves(s, s.pv_index)
    return best


cdef void sort_root_moves(Search* s, int start) noexcept nogil:
    """Stable insertion sort by score, best first; unsearched moves keep their order."""
    cdef int i, j
    cdef RootMove tmp
    for i in range(start + 1, s.n_root):
        tmp = s.root[i]
        j = i - 1
        while j >= start and s.root[j].score < tmp.score:
            s.root[j + 1] = s.root[j]
            j -= 1
        s.root[j + 1] = tmp


cdef void init_root_moves(Search* s) noexcept nogil:
    """The moves the search chooses from: those ``searchmoves`` allows and,
    with the root in the Syzygy tables, the ones they rank best."""
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(&s.pos, moves, GEN_ALL), i, tb = -1
    s.n_root = 0
    for i in range(n):
        if s.limits.n_searchmoves and not contains(s.limits.searchmoves, 0, s.limits.n_searchmoves, moves[i]):
            continue
        if s.tb_n:
            tb = tb_root_move(s, moves[i])
            if tb < 0:
                continue
        s.root[s.n_root].tb_score = s.tb_scores[tb] if tb >= 0 else NO_SCORE
        s.root[s.n_root].move = moves[i]
        s.root[s.n_root].score = -INFINITE
        s.root[s.n_root].prev_score = -INFINITE
        s.root[s.n_root].pv[0] = moves[i]
        s.root[s.n_root].pv_len = 1
        s.root[s.n_root].bound = BOUND_UPPER
        s.root[s.n_root].seldepth = 0
        s.n_root += 1


cdef void iterative_deepening(Search* s) noexcept nogil:
    """Deepen one ply at a time until a limit says stop; root[0] is the move to play."""
    cdef int depth, score, alpha, beta, delta, lines, line, i, stable = 0
    cdef int prev_best = NO_SCORE, prev_best2 = NO_SCORE
    cdef Move last_best = 0
    cdef u64 iteration_start
    cdef double elapsed, soft, best_share
    init_root_moves(s)
    if s.n_root == 0:
        return
    # The root's own evaluation: the "improving" test at ply 2 compares with it.
    s.static_eval[0] = NO_SCORE if in_check(&s.pos) else corrected_eval(s, &s.pos, static_eval(s, &s.pos))
    lines = s.opt.multipv if s.opt.multipv < s.n_root else s.n_root
    for depth in range(1, s.limits.depth + 1):
        if helper_skips(s, depth):
            continue
        if s.thread_index and group_aborted(s):
            break
        s.root_depth = depth
        iteration_start = s.nodes
        for i in range(s.n_root):
            s.root[i].nodes = 0
        for line in range(lines):
            s.pv_index = line
            s.seldepth = 0
            score = s.root[s.pv_index].prev_score
            delta = ASP_DELTA
            if s.opt.aspiration and depth >= ASP_MIN_DEPTH and -MATE_BOUND < score < MATE_BOUND:
                alpha = max(score - delta, -INFINITE)
                beta = min(score + delta, INFINITE)
            else:
                alpha = -INFINITE
                beta = INFINITE
            while True:
                score = search_root(s, depth, alpha, beta)
                if s.stopped:
                    break
                if score <= alpha:
                    beta = (alpha + beta) // 2
                    alpha = max(score - delta, -INFINITE)
                elif score >= beta:
                    beta = min(score + delta, INFINITE)
                else:
                    break
                if now_ms() - s.start_ms > 1000:
                    report_line(s, s.pv_index)
                delta = <int>(delta * ASP_GROWTH)
            if s.pv_index > 0:
                sort_multipv(s)
            if s.stopped:
                break
        if s.stopped:
            break
        s.completed_depth = depth
        for i in range(s.n_root):
            s.root[i].prev_score = s.root[i].score
        report_iteration(s, lines)

        if s.root[0].move == last_best:
            stable += 1
        else:
            stable = 0
        last_best = s.root[0].move
        if s.limits.mate and s.root[0].score >= MATE - 2 * s.limits.mate:
            break
        if (s.root[0].score >= MATE_BOUND or s.root[0].score <= -MATE_BOUND) and \
                depth >= MATE - abs(s.root[0].score) + 6:
            break                       # a proven mate; deeper search cannot change it
        if s.limits.soft_nodes and s.thread_index == 0 and group_nodes(s.group) >= s.limits.soft_nodes:
            break                       # a soft node limit (self-play): the next iteration would overrun
        if s.limits.soft_ms > 0 and not s.pondering:
            if s.n_root == 1:
                break                   # the only move: no need to think
            best_share = <double>s.root[0].nodes / <double>max(s.nodes - iteration_start, 1)
            soft = s.limits.soft_ms * time_factor(
                TIME_STABILITY if s.opt.time_mode == TIME_EFFORT and depth < 5 else s.opt.time_mode,
                stable, best_share, score_drop(s.root[0].score, prev_best, prev_best2))
            elapsed = now_ms() - s.start_ms
            if elapsed >= soft * TM_NEXT_ITERATION:
                break                   # the next iteration would likely overrun
        prev_best2 = prev_best
        prev_best = s.root[0].score


cdef inline int score_drop(int score, int prev, int prev2) noexcept nogil:
    """How far the best score fell below the last two iterations' (their
    mean, against the odd-even swing of the depths); 0 for mates or no history."""
    if prev == NO_SCORE or prev2 == NO_SCORE:
        return 0
    if not (-MATE_BOUND < score < MATE_BOUND and -MATE_BOUND < prev < MATE_BOUND
            and -MATE_BOUND < prev2 < MATE_BOUND):
        return 0
    return (prev + prev2) // 2 - score


# How the thought on a clock bends to the search (the TimeManagement option,
# whose choices are TIME_MODES in this order, the default first). TIME_FIXED
# is the baseline the others are measured against.
cdef enum:
    TIME_STABILITY = 0
    TIME_EFFORT = 1
    TIME_FIXED = 2
    TIME_BALANCED = 3

TIME_MODES = ("stability", "effort", "fixed", "balanced")


cdef double time_factor(int mode, int stable, double best_share, int drop) noexcept nogil:
    """The share of the soft limit to think for, by how settled the search looks.

    TIME_FIXED: always the whole of it. TIME_STABILITY: longer while the best
    move keeps changing, less once it settles. TIME_EFFORT, also: less when
    the best move took most of the last iteration's nodes (its rivals were
    refuted cheaply), more when it took few (they were hard to refute), and
    more while the score falls (find a way out while there is time).
    TIME_BALANCED: as stability, with factors that average about 1 over a
    game (TM_BALANCED_*): stability's 0.7 (TM_SETTLED) for a settled move cut more than its 1.3 added, so
    it ended its games with twice the clock fixed did (README, "Time")."""
    if mode == TIME_FIXED:
        return 1.0
    if mode == TIME_BALANCED:
        return TM_BALANCED_UNSTABLE if stable == 0 else 1.0 if stable < TM_SETTLED_AFTER else TM_BALANCED_SETTLED
    cdef double f = TM_UNSTABLE if stable == 0 else 1.0 if stable < TM_SETTLED_AFTER else TM_SETTLED
    if mode == TIME_EFFORT:
        f *= min(max(1.0 + (TM_EFFORT_SHARE - best_share) * TM_EFFORT_SCALE, TM_EFFORT_MIN), TM_EFFORT_MAX)
        f *= min(max(1.0 + drop / TM_DROP_SCALE, TM_DROP_MIN), TM_DROP_MAX)
    return min(max(f, TM_MIN_FACTOR), TM_MAX_FACTOR)


cdef void sort_multipv(Search* s) noexcept nogil:
    """After line k: the first k+1 lines in order, the rest below them."""
    cdef int i, j
    cdef RootMove tmp
    for i in range(1, s.pv_index + 1):
        tmp = s.root[i]
        j = i - 1
        while j >= 0 and s.root[j].score < tmp.score:
            s.root[j + 1] = s.root[j]
            j -= 1
        s.root[j + 1] = tmp
