# Guarded forward pruning, the ChessMaps way (../shared/papers/002_*.txt,
# sections 5-6): at interior nodes far enough from the leaves, search the
# moves that matter by their class and the memory, and prune the rest.
#
# Kept (the node's "beam"): the first move, the TT move, every capture and
# promotion (unsafe ones too: pins hide behind them), the memory's moves
# (move chains, move tables, killers), every move of a piece on an x-ray line
# (below), safe forced and forcing moves, the first BeamWidth safe other
# moves in the picker's order, and moves that take a piece to a square the
# strategy database holds popular for it (popular_squares). In check nothing
# is pruned: every evasion, check blocks included, is searched.
#
# Re-added: when the node's result is poor (it fails low) and moves were
# pruned, the key squares are the squares where the position at the end of
# the refutation of its best move differs from the node's own (the from- and
# to-squares of that line's moves); every pruned move that lands on or
# attacks one of them is searched after all.
#
# The x-ray rule (the paper's Figure 4): one of our long-range pieces stands
# on a line to an enemy piece, behind one or two of our own pieces, and that
# piece is worth more than the blockers together and at least the slider.
# Moving the blockers away (with tempo, as unsafe forcing moves the beam
# would prune) wins it, so every move of the blockers is kept.

cdef enum:
    FP_MIN_DEPTH = 3        # nodes nearer the leaves are left to late-move pruning and LMR
    FP_LINE_MOVES = 4       # moves of the refutation read for key squares

    FP_PRUNED = 0           # beam_verdict's reasons
    FP_FIRST = 1
    FP_TT = 2
    FP_NOISY = 3
    FP_MEMORY = 4
    FP_KILLER = 5
    FP_XRAY = 6
    FP_TACTICAL = 7
    FP_BEAM = 8
    FP_POPULAR = 9

FP_REASONS = ["pruned", "first", "tt", "noisy", "memory", "killer", "xray", "tactical", "beam", "popular"]

ctypedef struct Beam:
    bint on                 # this node prunes
    bint readding           # the pruned moves that cover key squares are being searched
    int safe_others         # safe other moves kept so far
    u64 own_en_prise        # our pieces standing en prise (their moves are forced)
    u64 xray                # our pieces whose every move is kept
    u64 popular[6]          # per piece type, squares the strategy database holds popular for ours
    u64 key_squares         # the refutation of the best move so far, as squares
    int n_pruned
    int n_readd
    int next
    Move pruned[MAX_MOVES]


cdef u64 xray_blockers(const Position* pos) noexcept nogil:
    """Our pieces on a line from one of our sliders to an enemy piece worth
    more than those blockers together and at least the slider (one or two
    blockers, nothing else between)."""
    cdef int us = pos.stm, them = pos.stm ^ 1, sq, pt, t, total
    cdef u64 sliders, direct, own1, own2, seen, targets, blockers, b, result = 0
    sliders = pos.pieces[BISHOP + 6 * us] | pos.pieces[ROOK + 6 * us] | pos.pieces[QUEEN + 6 * us]
    while sliders:
        sq = pop_lsb(&sliders)
        pt = piece_type(pos.board[sq])
        direct = piece_attacks(pt, sq, pos.all)
        own1 = direct & pos.occ[us]
        if not own1:
            continue
        own2 = piece_attacks(pt, sq, pos.all & ~own1) & pos.occ[us] & ~own1
        seen = piece_attacks(pt, sq, pos.all & ~own1 & ~own2)
        targets = seen & pos.occ[them] & ~direct
        while targets:
            t = pop_lsb(&targets)
            blockers = BETWEEN[sq][t] & pos.all
            if blockers & pos.occ[them]:
                continue
            total = 0
            b = blockers
            while b:
                total += SEE_VALUE[piece_type(pos.board[pop_lsb(&b)])]
            if SEE_VALUE[piece_type(pos.board[t])] > total and SEE_VALUE[piece_type(pos.board[t])] >= SEE_VALUE[pt]:
                result |= blockers
    return result


cdef inline int strategy_key(const Position* pos, Move m) noexcept nogil:
    """engine/data/strategy.py's move_key: piece type, from, to, Black's mirrored."""
    cdef int flip = 56 if pos.stm == BLACK else 0
    return (piece_type(pos.board[move_from(m)]) * 64 + (move_from(m) ^ flip)) * 64 + (move_to(m) ^ flip)


cdef void popular_squares(const StrategyDb* db, const Position* pos, const Picker* p, u64* popular) noexcept nogil:
    """The paper's combined board: the boards of the node's quiet moves that
    the database knows, added up; per square the most popular piece, and for
    each of our piece types the squares where it is the one."""
    cdef int combined[64][13]
    cdef int i, sq, c, best, e, found = 0
    cdef int flip = 56 if pos.stm == BLACK else 0
    for i in range(6):
        popular[i] = 0
    memset(combined, 0, sizeof(combined))
    for i in range(p.n_noisy, p.n):
        e = db.index[strategy_key(pos, p.moves[i])]
        if e < 0:
            continue
        found += 1
        for sq in range(64):
            combined[sq][db.popular[64 * e + sq]] += db.share[64 * e + sq]
    if found == 0:
        return
    for sq in range(64):
        best = 0
        for c in range(1, 13):
            if combined[sq][c] > combined[sq][best]:
                best = c
        if 1 <= best <= 6:
            popular[best - 1] |= bit(sq ^ flip)


cdef void beam_init(Beam* beam, const Search* s, const Position* pos, Picker* p, bint on) noexcept nogil:
    beam.on = on
    beam.readding = False
    beam.n_pruned = 0
    beam.n_readd = 0
    beam.next = 0
    beam.key_squares = 0
    if not on:
        return
    beam.safe_others = 0
    beam.own_en_prise = en_prise(pos, pos.stm)
    beam.xray = xray_blockers(pos)
    if s.strategy.n:
        picker_generate(p, pos)
        popular_squares(&s.strategy, pos, p, beam.popular)
    else:
        memset(beam.popular, 0, sizeof(beam.popular))


cdef int beam_verdict(Beam* beam, Search* s, const Position* pos, Move m, Move tt_move, bint first,
                      bint noisy, bint from_memory, bint killer) noexcept nogil:
    """Why ``m`` is searched (an FP_ reason), or FP_PRUNED (then it is kept
    for the re-add)."""
    cdef int cls
    if first:
        return FP_FIRST
    if m == tt_move:
        return FP_TT
    if noisy:
        return FP_NOISY
    if from_memory:
        return FP_MEMORY
    if killer:
        return FP_KILLER
    if beam.xray & bit(move_from(m)):
        return FP_XRAY
    s.fp_quiets += 1
    cls = move_class(pos, m, beam.own_en_prise)
    if not (cls & MC_UNSAFE):
        if cls & (MC_FORCED | MC_FORCING):
            return FP_TACTICAL
        if beam.safe_others < s.opt.beam_width:
            beam.safe_others += 1
            return FP_BEAM
    if beam.popular[piece_type(pos.board[move_from(m)])] & bit(move_to(m)):
        return FP_POPULAR
    s.fp_pruned += 1
    beam.pruned[beam.n_pruned] = m
    beam.n_pruned += 1
    return FP_PRUNED


cdef u64 line_squares(const Move* line, int n) noexcept nogil:
    """The squares a line of moves changes: where the position at its end
    differs from the one it starts from (castling's rook aside)."""
    cdef u64 squares = 0
    cdef int i
    for i in range(n if n < FP_LINE_MOVES else FP_LINE_MOVES):
        squares |= bit(move_from(line[i])) | bit(move_to(line[i]))
    return squares


cdef inline void beam_note_refutation(Beam* beam, const Search* s, int ply) noexcept nogil:
    """The move just searched at ``ply`` is the best so far: its refutation,
    the child's line, gives the key squares."""
    if beam.on and s.pv_len[ply + 1] > ply + 1:
        beam.key_squares = line_squares(&s.pv[ply + 1][ply + 1], s.pv_len[ply + 1] - (ply + 1))


cdef bint covers(const Position* pos, Move m, u64 squares) noexcept nogil:
    """``m`` lands on one of ``squares`` or attacks one from where it lands."""
    cdef int frm = move_from(m), to = move_to(m)
    cdef int pt = promo_type(m) if move_flag(m) >= F_PROMO else piece_type(pos.board[frm])
    if bit(to) & squares:
        return True
    if move_flag(m) == F_CASTLE:
        return False
    return (attacks_from(pt, pos.stm, to, (pos.all & ~bit(frm)) | bit(to)) & squares) != 0


cdef int beam_readd(Beam* beam, const Position* pos) noexcept nogil:
    """Keep, at the front of ``pruned``, the moves that cover the key
    squares; their number."""
    cdef int i, n = 0
    for i in range(beam.n_pruned):
        if covers(pos, beam.pruned[i], beam.key_squares):
            beam.pruned[n] = beam.pruned[i]
            n += 1
    return n


cdef Move beam_next(Beam* beam, Search* s, const Position* pos, bint poor) noexcept nogil:
    """Once the picker has no moves left: the next pruned move to search
    after all, or 0. The re-add is decided once, when the result is ``poor``."""
    if not beam.on or beam.n_pruned == 0:
        return 0
    if not beam.readding:
        if not poor:
            return 0
        beam.readding = True
        beam.n_readd = beam_readd(beam, pos)
        s.fp_readded += beam.n_readd
    if beam.next < beam.n_readd:
        beam.next += 1
        return beam.pruned[beam.next - 1]
    return 0
