# The efficiently updatable net (NNUE): (768 -> H) x 2 -> 1 with eight output
# buckets by material, in integers, as engine/evaluation/nnue.py specifies it
# (that module's NnueNet.centipawns is the reference this file matches bit
# for bit; the inputs, the buckets and the arithmetic are described there).
#
# The accumulators: each search (each Lazy SMP thread) holds a stack of
# NNUE_STACK entries, indexed by the position's history length modulo the
# stack size, so that a node's entry sits next to its parent's and
# grandparent's. An entry holds both views' int16 sums (White's, then
# Black's: a null move changes neither), the 12 piece bitboards they were
# summed for and the key of the position they were summed at. To evaluate a
# position, the entries of its ancestors are looked at first, nearest first;
# the first that holds its ancestor (its key is the one that move's undo
# record keeps) is brought into this ply's entry. The parent's, about half
# the time, by the rows of the men the last move lifted and placed, read off
# its undo record (a quiet move: 2 per view, a capture 3, castling 4); one
# further back (the parent's evaluation came from the table) by the rows of
# the inputs whose bitboards differ, the fewest. When no ancestor's entry is
# there, the entries of the last NNUE_LOOKBACK plies (this ply's, the
# parent's, ...) are compared with it by their bitboards and the nearest is
# brought to it the same way; when none is nearer than a refresh (as many
# rows as men), the sums are made afresh. Nothing is hooked into
# make/unmake: an entry is right for the bitboards it holds whatever path
# made it, since integer sums are exact: no drift, no periodic refresh. (An
# ancestor is recognised by its 64-bit key, as the transposition table
# recognises a position.) A ply whose evaluation came from the table leaves
# its entry as it was (a sibling's, or an older search's).
#
# No cache of scores (the TD net has one): an evaluation costs about what a
# cache miss does, and in the bench a probe hit 7% of the time; the search
# ran 4% faster without it.
#
# Endgames: the handwritten evaluation's exact knowledge still applies under
# the net (with EndgameRules on): king and pawn against king from the KPK
# bitbase, and the known draws against a bare king (two knights; rook pawns
# with no help or a bishop of the wrong colour, the defending king in the
# corner). Those are facts no training data states as surely, and the test
# costs two compares in every other position (one side has a bare king).
# Against any other bare king the handwritten evaluation's whole score is
# used: its mop-up drives the king to the edge and, with bishop and knight,
# to the right corner, which the net (few such positions in its games) did
# not learn: it could not mate K+B+N against K in fifty moves.
# The handwritten evaluation's scalings (opposite bishops, a minor piece
# ahead without pawns) and mop-up are estimates, left to the net.

from libc.stdint cimport int32_t
from libc.stdlib cimport free
from libc.string cimport memcpy

cdef extern from "nnue_kernel.h" nogil:
    int NMM_NNUE_LANES
    void nmm_nnue_update(int16_t* dst, const int16_t* src, const int16_t* w, int hidden,
                         const int* add, int n_add, const int* sub, int n_sub)
    long long nmm_nnue_screlu_dot(const int16_t* acc, const int16_t* w, int hidden)

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef enum:
    NNUE_INPUTS = 768
    NNUE_BUCKETS = 8
    NNUE_QA = 255
    NNUE_QB = 64
    NNUE_MIN_HIDDEN = 64
    NNUE_MAX_HIDDEN = 512
    NNUE_STACK = 128            # accumulators per search, by hist_len modulo this (a power of two)
    NNUE_LOOKBACK = 8           # plies searched back for the nearest accumulator
    NNUE_NEAR = 3               # an entry this near (a capture's rows) ends the search back
    NNUE_MAX_CP = 20000         # below every mate score (TD_MAX_CP)
    NNUE_MAX_MEN = 32           # set_fen's limit: 16 men a side
    NNUE_MAX_OUT_WEIGHT = 127   # the trainer's clip x QB: the output kernel's bound (nnue_kernel.h)

ctypedef struct NnueWeights:
    # One net, shared read-only by every thread of a searcher.
    int hidden                  # H
    long long scale             # round(scale): centipawns of one unit of the float output
    int16_t* ft_weight          # [768][H]: an input's row of weights is contiguous (64-byte aligned)
    int16_t* ft_bias            # [H]
    int16_t* out_weight         # [bucket][2H]: the side to move's half first
    int out_bias[NNUE_BUCKETS]

ctypedef struct NnueAccumulator:
    int16_t acc[2 * NNUE_MAX_HIDDEN]    # White's view in [0, H), Black's in [H, 2H)
    u64 pieces[12]              # the position the sums are for
    u64 key                     # its key (0: made for bitboards alone, no position)
    int valid                   # 0: never computed with the net in use


cdef inline int nnue_feature(int view, int piece, int sq) noexcept nogil:
    """engine.evaluation.nnue.feature for the core's piece (type + 6 * colour)."""
    return 384 * (piece_color(piece) != view) + 64 * piece_type(piece) + (sq ^ (56 * view))

# The same, looked up by view and piece * 64 + square: the inner loops' form.
cdef int NNUE_FEATURE[2][12 * 64]
for _view in range(2):
    for _man in range(12 * 64):
        NNUE_FEATURE[_view][_man] = nnue_feature(_view, _man // 64, _man % 64)


cdef inline int nnue_bucket(const Position* pos) noexcept nogil:
    cdef int b = (popcount(pos.all) - 2) // 4
    return 0 if b < 0 else (NNUE_BUCKETS - 1 if b > NNUE_BUCKETS - 1 else b)


cdef void nnue_refresh(const NnueWeights* net, NnueAccumulator* e, const u64* pieces) noexcept nogil:
    """``e``'s sums made afresh for the men of ``pieces`` (12 bitboards): the
    bias and a row per man, each view."""
    cdef int rows_w[64]
    cdef int rows_b[64]
    cdef int n = 0, p, sq, H = net.hidden
    cdef u64 b
    for p in range(12):
        b = pieces[p]
        while b and n < 64:
            sq = pop_lsb(&b)
            rows_w[n] = nnue_feature(WHITE, p, sq)
            rows_b[n] = nnue_feature(BLACK, p, sq)
            n += 1
    nmm_nnue_update(e.acc, net.ft_bias, net.ft_weight, H, rows_w, n, NULL, 0)
    nmm_nnue_update(e.acc + H, net.ft_bias, net.ft_weight, H, rows_b, n, NULL, 0)
    memcpy(e.pieces, pieces, sizeof(e.pieces))
    e.key = 0
    e.valid = 1


cdef inline void nnue_bring(const NnueWeights* net, NnueAccumulator* dst, const NnueAccumulator* src,
                            const Position* pos, const int* add_w, const int* add_b, int n_add,
                            const int* sub_w, const int* sub_b, int n_sub) noexcept nogil:
    """``dst``'s sums for ``pos``: ``src``'s with the rows ``add_`` added and
    ``sub_`` taken away, White's view and Black's (``dst`` may be ``src``)."""
    cdef int H = net.hidden
    nmm_nnue_update(dst.acc, src.acc, net.ft_weight, H, add_w, n_add, sub_w, n_sub)
    nmm_nnue_update(dst.acc + H, src.acc + H, net.ft_weight, H, add_b, n_add, sub_b, n_sub)
    memcpy(dst.pieces, pos.pieces, sizeof(dst.pieces))
    dst.key = pos.key
    dst.valid = 1


cdef void nnue_update(const NnueWeights* net, NnueAccumulator* dst, const NnueAccumulator* src,
                      const Position* pos) noexcept nogil:
    """``dst``'s sums for ``pos`` from ``src``'s, by the men whose bitboards
    differ: those that arrived added, those that left taken away (the
    caller makes sure fewer than NNUE_MAX_MEN squares differ)."""
    cdef int add_w[NNUE_MAX_MEN]
    cdef int add_b[NNUE_MAX_MEN]
    cdef int sub_w[NNUE_MAX_MEN]
    cdef int sub_b[NNUE_MAX_MEN]
    cdef int n_add = 0, n_sub = 0, p, sq
    cdef u64 changed, now
    for p in range(12):
        now = pos.pieces[p]
        changed = src.pieces[p] ^ now
        while changed:
            sq = pop_lsb(&changed)
            if now & bit(sq):
                add_w[n_add] = NNUE_FEATURE[WHITE][p * 64 + sq]
                add_b[n_add] = NNUE_FEATURE[BLACK][p * 64 + sq]
                n_add += 1
            else:
                sub_w[n_sub] = NNUE_FEATURE[WHITE][p * 64 + sq]
                sub_b[n_sub] = NNUE_FEATURE[BLACK][p * 64 + sq]
                n_sub += 1
    nnue_bring(net, dst, src, pos, add_w, add_b, n_add, sub_w, sub_b, n_sub)


cdef void nnue_update_by_move(const NnueWeights* net, NnueAccumulator* dst, const NnueAccumulator* src,
                              const Position* pos) noexcept nogil:
    """``dst``'s sums for ``pos`` from ``src``'s, which are its parent's (the
    position before its last move): the men the move lifted and placed, read
    off its undo record (none for a null move: then a copy)."""
    cdef const Undo* undo = &pos.hist[pos.hist_len - 1]
    cdef int frm = move_from(undo.move), to = move_to(undo.move), flag = move_flag(undo.move)
    cdef int piece = undo.moved, us = piece_color(piece), right, n_add = 0, n_sub = 0, i
    cdef int add[2]                     # men (piece * 64 + square) placed
    cdef int sub[2]                     # and lifted
    cdef int add_w[2]
    cdef int add_b[2]
    cdef int sub_w[2]
    cdef int sub_b[2]
    if undo.move and flag == F_CASTLE:  # the king "takes" its own rook; both land
        right = (WK if to > frm else WQ) << (2 * us)
        sub[0], sub[1] = piece * 64 + frm, make_piece(us, ROOK) * 64 + to
        add[0], add[1] = piece * 64 + castle_king_to(right), make_piece(us, ROOK) * 64 + castle_rook_to(right)
        n_add = n_sub = 2
    elif undo.move:
        sub[0] = (make_piece(us, PAWN) if flag >= F_PROMO else piece) * 64 + frm
        add[0] = piece * 64 + to
        n_add = n_sub = 1
        if undo.captured != EMPTY:
            sub[1] = undo.captured * 64 + ((to ^ 8) if flag == F_EN_PASSANT else to)
            n_sub = 2
    for i in range(n_add):
        add_w[i] = NNUE_FEATURE[WHITE][add[i]]
        add_b[i] = NNUE_FEATURE[BLACK][add[i]]
    for i in range(n_sub):
        sub_w[i] = NNUE_FEATURE[WHITE][sub[i]]
        sub_b[i] = NNUE_FEATURE[BLACK][sub[i]]
    nnue_bring(net, dst, src, pos, add_w, add_b, n_add, sub_w, sub_b, n_sub)


cdef inline int nnue_distance(const NnueAccumulator* e, const Position* pos) noexcept nogil:
    """How many rows per view bring ``e`` to ``pos``: the squares whose man differs."""
    cdef int p, n = 0
    for p in range(12):
        n += popcount(e.pieces[p] ^ pos.pieces[p])
    return n


cdef NnueAccumulator* nnue_accumulator(const NnueWeights* net, NnueAccumulator* stack,
                                       const Position* pos) noexcept nogil:
    """Sums for ``pos``: an entry already holding them, or this ply's entry
    brought there from the nearest ancestor's (the parent's by its move) or
    from the nearest of the last NNUE_LOOKBACK plies' entries by their
    bitboards, or made afresh (see the top of the file)."""
    cdef int h = pos.hist_len, k, n, best_n = popcount(pos.all)     # a refresh adds this many rows
    cdef NnueAccumulator* dst = &stack[h & (NNUE_STACK - 1)]
    cdef NnueAccumulator* best = NULL
    cdef NnueAccumulator* e
    if dst.valid and dst.key == pos.key:
        return dst                  # this position's already (a search of it again)
    for k in range(1, min(h, NNUE_LOOKBACK) + 1):
        e = &stack[(h - k) & (NNUE_STACK - 1)]
        if e.valid and e.key == pos.hist[h - k].key:    # an ancestor's: the common case
            if k == 1:
                nnue_update_by_move(net, dst, e, pos)   # the parent's: by the move (a null move: a copy)
            else:
                nnue_update(net, dst, e, pos)           # further back: by the bitboards, the fewest rows
            return dst
    for k in range(NNUE_LOOKBACK):
        e = &stack[(h - k) & (NNUE_STACK - 1)]
        if not e.valid:
            continue
        n = nnue_distance(e, pos)
        if n < best_n:
            best, best_n = e, n
            if n <= NNUE_NEAR:
                break
    if best == NULL:
        nnue_refresh(net, dst, pos.pieces)
        dst.key = pos.key
        return dst
    if best_n == 0:
        return best                 # the same men (a null move's child, a position seen again)
    nnue_update(net, dst, best, pos)
    return dst


cdef long long nnue_output(const NnueWeights* net, const int16_t* acc, const Position* pos) noexcept nogil:
    """The net's centipawns for the side to move from both views' sums ``acc``
    (NnueNet.centipawns: C division toward zero, no clamp)."""
    cdef int H = net.hidden, b = nnue_bucket(pos)
    cdef const int16_t* w = net.out_weight + 2 * H * b
    cdef long long s = (nmm_nnue_screlu_dot(acc + H * pos.stm, w, H)
                        + nmm_nnue_screlu_dot(acc + H * (1 - pos.stm), w + H, H))
    cdef long long out = s // NNUE_QA + net.out_bias[b]
    return out * net.scale // (NNUE_QA * NNUE_QB)


cdef inline int nnue_clamp(long long cp) noexcept nogil:
    if cp > NNUE_MAX_CP:
        return NNUE_MAX_CP
    if cp < -NNUE_MAX_CP:
        return -NNUE_MAX_CP
    return <int>cp


cdef inline bint nnue_endgame(const Position* pos, int* score) noexcept nogil:
    """The handwritten evaluation's endgame knowledge (see the top of the
    file): True with ``score`` set if it decides ``pos``: its exact rules, and
    its whole score against a bare king. What evaluate_with returns for these
    positions, with the same switch."""
    cdef int strong
    if not endgame_rules:
        return False
    if pos.occ[WHITE] == pos.pieces[KING]:
        strong = BLACK
    elif pos.occ[BLACK] == pos.pieces[KING + 6]:
        strong = WHITE
    else:
        return False                # no bare king: the common case, two compares
    if popcount(pos.all) == 3 and popcount(pos.pieces[PAWN] | pos.pieces[PAWN + 6]) == 1:
        score[0] = kpk_score(pos)
        return True
    if two_knights_alone(pos, strong) or (pos.pieces[PAWN + 6 * strong] and drawish_scale(pos, strong) == 0):
        score[0] = 0
        return True
    # Any other bare king: the handwritten evaluation's mop-up (the king to the
    # edge, K+B+N's mating corner) knows how to mate it; the net saw few such.
    score[0] = evaluate(pos, NULL)
    return True


cdef int nnue_evaluate(const NnueWeights* net, NnueAccumulator* stack, const Position* pos) noexcept nogil:
    """The score the search uses, side to move's view: the endgame rules,
    else the net through the accumulator stack (clamped)."""
    cdef int score
    if nnue_endgame(pos, &score):
        return score
    return nnue_clamp(nnue_output(net, nnue_accumulator(net, stack, pos).acc, pos))


cdef void nnue_forget(NnueAccumulator* stack) noexcept nogil:
    """Every entry of a stack marked as not computed (another net's, or none)."""
    cdef int i
    for i in range(NNUE_STACK):
        stack[i].valid = 0


cdef long long nnue_afresh(const NnueWeights* net, const Position* pos) noexcept nogil:
    """The net's raw centipawns, every sum made afresh (no stack,
    no endgame rule, no clamp): NnueNet.centipawns in the core."""
    cdef NnueAccumulator e
    nnue_refresh(net, &e, pos.pieces)
    return nnue_output(net, e.acc, pos)


cdef void nnue_free(NnueWeights* net) noexcept nogil:
    free(net.ft_weight)
    free(net.ft_bias)
    free(net.out_weight)
    net.ft_weight = net.ft_bias = net.out_weight = NULL
    net.hidden = 0
