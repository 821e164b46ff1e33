# The TD-trained evaluation: Mannen's net over the features of
# eval_features.pxi, one net per phase blended, in centipawns.
#
# The net predicts the expected result y in (-1, 1) for the side to move; the
# file's scale K, fitted by the trainer on the handwritten evaluation against
# game results, turns it into centipawns: cp = 2 K atanh(y). Search margins
# (futility, null move, aspiration, delta) then keep their meaning.
#
# A net trained "on handwritten" predicts a correction instead: its output o
# is added to the handwritten score, y = tanh(hand / 2K + o), so that
# cp = hand + 2 K o, and a net of zeros is the handwritten evaluation.
#
# Evaluations are cached by position key: the quiescence search asks for the
# same positions again and again, and the features cost far more than a probe.
#
# The first layer's sums are kept incrementally, as NNUE keeps its
# accumulator, but without hooks in make/unmake: each searcher holds, per
# phase net and side to move, the sums for the last position it evaluated,
# and brings them to the next one by the inputs that differ: the pieces that
# moved (a bitboard XOR) and the dense features whose value changed (by the
# difference). Positions evaluated one after another in a search are near
# each other in the tree: a few square rows change instead of thirty-two, and
# about ten dense features of the thirty that are not zero.

from libc.math cimport log
from libc.string cimport memcmp, memcpy

cdef enum:
    TD_CACHE_SIZE = 1 << 21     # entries (16 MB): a power of two
    TD_MAX_CP = 20000           # below every mate score
    TD_MAX_HIDDEN = 1024        # td_kernel.h's NMM_TD_MAX_HIDDEN
    TD_ACCUMULATORS = 6         # 3 phase nets x 2 sides to move
    TD_REFRESH_AFTER = 256      # incremental updates before the sums are recomputed (float rounding)
    TD_MAX_DIFF = 16            # more changed square rows than this: recompute instead

ctypedef struct TdEval:
    int squares             # 0: set A, 1: B (kings, pawns), 2: C (all pieces)
    int nets                # 1, or 3 blended by phase
    int hidden              # 0: the linear net
    int inputs
    float* w1               # [net][input][hidden]: an input's weights are adjacent
    float* b1               # [net][hidden]
    float* w2               # [net][hidden], or [net][input] for the linear net
    float* b2               # [net]
    float cp_scale
    int on_handwritten      # the net is a correction: cp = handwritten + 2 K * output
    int development         # phase rule: the opening by home_count (1) or by the move number (0)

ctypedef struct TdCacheEntry:
    # The key's upper 48 bits, the score (int16, |score| <= TD_MAX_CP) in the
    # low 16: twice the entries of a key and an int in the same memory.
    u64 data

ctypedef struct TdAccumulator:
    # b1 plus the rows of the square inputs of ``pieces`` and of the dense
    # inputs ``dense``, for one phase net and one side to move (inputs are
    # seen from the side to move).
    u64 pieces[12]
    int valid
    int updates
    float dense[FEATURES_A]
    float sums[TD_MAX_HIDDEN]


# Where each man starts, per colour and type: pawns on the second (seventh)
# rank, knights b1 g1, bishops c1 f1, rooks a1 h1, queen d1, king e1 (and on the eighth rank).
cdef u64 HOME_SQUARES[12]
HOME_SQUARES[:] = [0xFF00ULL, 0x42ULL, 0x24ULL, 0x81ULL, 0x08ULL, 0x10ULL,
                   0xFF00ULL << 40, 0x42ULL << 56, 0x24ULL << 56, 0x81ULL << 56, 0x08ULL << 56, 0x10ULL << 56]


cdef int home_count(const Position* pos) noexcept nogil:
    """How many of the 32 men stand where they started (both sides): the
    development clock the phase rule reads instead of the move number, which
    an EPD or a GUI's FEN may not give (master games: 19 at move 8, 10 at move 16)."""
    cdef int n = 0, piece
    for piece in range(12):
        n += popcount(pos.pieces[piece] & HOME_SQUARES[piece])
    return n


cdef void phase_blend(const Position* pos, int nets, int development, float* w) noexcept nogil:
    """The trainer's phase_weights (engine/train/td_run.py), for one position.
    ``development``: the opening is told by home_count, else by the move number
    (the rule of the nets trained before it)."""
    cdef float end, opening
    if nets == 1:
        w[0] = 1
        return
    end = (12.0 - game_phase(pos)) / 8.0
    end = 0 if end < 0 else (1 if end > 1 else end)
    if development:
        opening = (home_count(pos) - 10.0) / 9.0
    else:
        opening = (16.0 - pos.fullmove) / 8.0
    opening = 0 if opening < 0 else (1 if opening > 1 else opening)
    opening *= 1 - end
    w[0] = opening
    w[1] = 1 - opening - end
    w[2] = end


cdef extern from "td_kernel.h" nogil:
    int NMM_TD_LANES
    float nmm_td_kernel(const float* w1, const float* b1, const float* w2, float b2, int hidden,
                        const int* rows, const float* values, int n)
    void nmm_td_apply(float* sums, const float* w1, int hidden, const int* rows, const float* deltas, int n)
    int nmm_td_dense_changes(const float* now, const float* before, int n, int* rows, float* deltas, int m)


ctypedef struct TdInputs:
    # The inputs of one position as (row, value) pairs for the kernel: the
    # non-zero dense features, then (when not kept in an accumulator) the
    # active squares. Built once per evaluation, read by every phase net.
    int n
    int n_dense
    int rows[FEATURES_A + MAX_ACTIVE]
    float values[FEATURES_A + MAX_ACTIVE]


cdef void td_inputs(const float* dense, const int* active, int n_active, TdInputs* x) noexcept nogil:
    cdef int i, n = 0
    for i in range(FEATURES_A):         # most features of a position are 0; no branch to mispredict
        x.rows[n] = i
        x.values[n] = dense[i]
        n += dense[i] != 0
    x.n_dense = n
    for i in range(n_active):
        x.rows[n] = FEATURES_A + active[i]
        x.values[n] = 1
        n += 1
    x.n = n


cdef float td_net_output(const TdEval* net, int k, const float* dense, const TdInputs* x,
                         bint squares, const float* start) noexcept nogil:
    """Output of phase net ``k``: ``x``'s dense inputs, and its square inputs
    if ``squares``, added to ``start`` (b1, or an accumulator holding the
    square inputs); ``dense``: all of set A, for the linear net."""
    cdef int i, H = net.hidden
    cdef float out
    cdef const float* w2 = &net.w2[k * (H if H else net.inputs)]
    if H == 0:
        out = net.b2[k]
        for i in range(FEATURES_A):
            out += dense[i] * w2[i]
        for i in range(x.n_dense, x.n):
            out += w2[x.rows[i]]
        return out
    return nmm_td_kernel(&net.w1[k * net.inputs * H], start, w2, net.b2[k], H, x.rows, x.values,
                         x.n if squares else x.n_dense)


cdef void td_refresh(const TdEval* net, int k, TdAccumulator* acc, const Position* pos,
                     const float* dense) noexcept nogil:
    """The sums of phase net ``k`` for ``pos``'s side to move (dense inputs
    ``dense``), from b1 up."""
    cdef TdInputs x
    cdef int active[MAX_ACTIVE]
    cdef int n = active_squares(pos, net.squares == 2, active) if net.squares else 0
    td_inputs(dense, active, n, &x)
    memcpy(acc.sums, &net.b1[k * net.hidden], net.hidden * sizeof(float))
    nmm_td_apply(acc.sums, &net.w1[k * net.inputs * net.hidden], net.hidden, x.rows, x.values, x.n)
    memcpy(acc.pieces, pos.pieces, sizeof(acc.pieces))
    memcpy(acc.dense, dense, sizeof(acc.dense))
    acc.valid = 1
    acc.updates = 0


ctypedef struct TdChanges:
    # The inputs that differ between an accumulator's position and the one
    # being evaluated, as (row, delta) pairs for nmm_td_apply.
    int n
    int rows[2 * TD_MAX_DIFF + FEATURES_A]
    float deltas[2 * TD_MAX_DIFF + FEATURES_A]


cdef bint td_changes(const TdEval* net, const TdAccumulator* acc, const Position* pos,
                     const float* dense, TdChanges* c) noexcept nogil:
    """The rows that bring ``acc`` to ``pos`` into ``c``; False when so many
    pieces differ that summing afresh is cheaper."""
    cdef int p, sq, n = 0
    cdef u64 changed, b
    cdef bint all_pieces = net.squares == 2
    if net.squares:
        for p in range(12):
            changed = acc.pieces[p] ^ pos.pieces[p]
            if changed == 0 or (not all_pieces and piece_type(p) != PAWN and piece_type(p) != KING):
                continue
            if n + popcount(changed) > 2 * TD_MAX_DIFF:
                return False
            b = changed
            while b:
                sq = pop_lsb(&b)
                c.rows[n] = FEATURES_A + square_index(p, sq, pos.stm, all_pieces)
                c.deltas[n] = 1 if pos.pieces[p] & bit(sq) else -1
                n += 1
    c.n = nmm_td_dense_changes(dense, acc.dense, FEATURES_A, c.rows, c.deltas, n)
    return True


cdef float td_output(const TdEval* net, const Position* pos, TdAccumulator* accs,
                     const SideAttacks* att) noexcept nogil:
    """The blended expected result for the side to move. ``accs``: the
    searcher's accumulators (TD_ACCUMULATORS of them), or NULL to sum every
    input afresh; ``att``: both sides' attacks (side_attacks)."""
    cdef float dense[FEATURES_A]
    cdef float w[3]
    cdef int k
    cdef float out = 0
    cdef TdAccumulator* acc
    features_a_with(pos, att, dense)
    phase_blend(pos, net.nets, net.development, w)
    if accs == NULL or net.hidden == 0:
        return td_output_afresh(net, pos, dense, w)
    # Every input is in the sums: the kernel only applies the rest of the net.
    # Two phase nets' accumulators left at the same position take the same changes.
    cdef TdChanges c
    cdef u64 changes_from[12]
    cdef bint have = False
    for k in range(net.nets):
        if w[k] <= 0:
            continue
        acc = &accs[3 * pos.stm + k]
        if acc.valid and acc.updates < TD_REFRESH_AFTER:
            if not (have and memcmp(acc.pieces, changes_from, sizeof(changes_from)) == 0):
                memcpy(changes_from, acc.pieces, sizeof(changes_from))
                have = td_changes(net, acc, pos, dense, &c)
        if not acc.valid or acc.updates >= TD_REFRESH_AFTER or not have:
            td_refresh(net, k, acc, pos, dense)
        elif c.n:
            nmm_td_apply(acc.sums, &net.w1[k * net.inputs * net.hidden], net.hidden, c.rows, c.deltas, c.n)
            memcpy(acc.pieces, pos.pieces, sizeof(acc.pieces))
            memcpy(acc.dense, dense, sizeof(acc.dense))
            acc.updates += 1
        out += w[k] * nmm_td_kernel(&net.w1[k * net.inputs * net.hidden], acc.sums,
                                    &net.w2[k * net.hidden], net.b2[k], net.hidden, NULL, NULL, 0)
    return out


cdef float td_output_afresh(const TdEval* net, const Position* pos, const float* dense,
                            const float* w) noexcept nogil:
    """td_output without accumulators: every input summed (and the linear net)."""
    cdef int active[MAX_ACTIVE]
    cdef int n = 0, k
    cdef float out = 0
    cdef TdInputs x
    if net.squares:
        n = active_squares(pos, net.squares == 2, active)
    td_inputs(dense, active, n, &x)
    for k in range(net.nets):
        if w[k] > 0:
            out += w[k] * td_net_output(net, k, dense, &x, True, &net.b1[k * net.hidden])
    return out


cdef int td_centipawns(const TdEval* net, const Position* pos, float y, const SideAttacks* att) noexcept nogil:
    """The net's output in centipawns (see the top of the file)."""
    cdef double cp
    if net.on_handwritten:
        cp = evaluate_with(pos, att, NULL) + 2.0 * net.cp_scale * y
    else:
        if y > 0.9999:
            y = 0.9999
        elif y < -0.9999:
            y = -0.9999
        cp = net.cp_scale * log((1.0 + y) / (1.0 - y))
    if cp > TD_MAX_CP:
        return TD_MAX_CP
    if cp < -TD_MAX_CP:
        return -TD_MAX_CP
    return <int>cp


cdef extern from *:
    void __builtin_prefetch(const void* address) nogil


cdef inline void td_prefetch(const TdEval* net, const TdCacheEntry* cache, const Position* pos) noexcept nogil:
    """Ask for the cache line of ``pos``'s entry before the TT probe, so that
    the two memory reads overlap instead of one waiting for the other."""
    __builtin_prefetch(&cache[td_cache_key(net, pos) & (TD_CACHE_SIZE - 1)])


cdef inline u64 td_cache_key(const TdEval* net, const Position* pos) noexcept nogil:
    cdef u64 key = pos.key
    if not net.development:
        key ^= <u64>(pos.fullmove if pos.fullmove < 16 else 16) * 0x9E3779B97F4A7C15ULL
    return key


cdef int td_evaluate(const TdEval* net, TdCacheEntry* cache, TdAccumulator* accs,
                     const Position* pos) noexcept nogil:
    """The net's score in centipawns for the side to move, through the cache.

    Under the move-number phase rule the move number is part of the cache's
    key as far as the blend reads it (up to move 16): the same position early
    and late is scored apart.
    """
    cdef u64 key = td_cache_key(net, pos)
    cdef TdCacheEntry* e = &cache[key & (TD_CACHE_SIZE - 1)]
    cdef int score
    if (e.data ^ key) >> 16 == 0:
        return <short>(e.data & 0xFFFF)
    score = td_score(net, pos, accs)
    e.data = (key & ~<u64>0xFFFF) | <unsigned short><short>score
    return score


cdef int td_score(const TdEval* net, const Position* pos, TdAccumulator* accs) noexcept nogil:
    """The net's score in centipawns for the side to move (no cache)."""
    cdef SideAttacks att[2]         # read by the features and by the handwritten evaluation
    both_attacks(pos, att)
    return td_centipawns(net, pos, td_output(net, pos, accs, att), att)
