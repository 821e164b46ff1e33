# Endgame knowledge the weights cannot learn: exact king-and-pawn against king
# (a table built by retrograde analysis when the rules are first switched on), and the draws that
# material alone hides (opposite-coloured bishops, a bishop of the wrong
# colour for its rook pawn, rook pawns against a king in their corner, two
# knights against a bare king).
#
# KPK: the pawn's side is called "strong" and seen as White, its pawn on files
# a-d (the board is mirrored otherwise). An entry is one position: side to
# move, both kings, the pawn (24 squares: files a-d, ranks 2-7).

from libc.string cimport memset

cdef enum:
    KPK_INVALID = 0     # bits, so that the results of a position's moves can be OR-ed
    KPK_UNKNOWN = 1
    KPK_DRAW = 2
    KPK_WIN = 4
    KPK_SIZE = 2 * 64 * 64 * 24

cdef uint8_t KPK[KPK_SIZE]
cdef bint kpk_built = False
cdef bint endgame_rules = False     # the EndgameRules option (one engine, one value: process-wide; the engine's default is on)


def set_endgame_rules(bint on) -> None:
    """Use the KPK table and the drawish scales, or evaluate by the weights alone
    (this module's default, so that the bench signature stays that of the
    weights; the engine switches them on, as its EndgameRules option says).
    The table is built the first time the rules are switched on (about 50 ms)."""
    global endgame_rules, kpk_built
    if on and not kpk_built:
        with nogil:
            init_kpk()
        kpk_built = True
    endgame_rules = on


def endgame_rules_on() -> bool:
    """Whether the rules are in use (set_endgame_rules)."""
    return endgame_rules


cdef inline int kpk_index(int stm, int wk, int bk, int pawn) noexcept nogil:
    """``pawn`` on files a-d, ranks 2-7."""
    return ((stm * 64 + wk) * 64 + bk) * 24 + (rank_of(pawn) - 1) * 4 + file_of(pawn)


cdef int kpk_initial(int stm, int wk, int bk, int pawn) noexcept nogil:
    """What the position is before looking at any move: illegal, decided, or unknown."""
    cdef int promo = pawn + 8
    if (DISTANCE[wk][bk] <= 1 or wk == pawn or bk == pawn
            or (stm == WHITE and PAWN_ATK[WHITE][pawn] & bit(bk))):
        return KPK_INVALID
    # White to move promotes safely: the queen is not taken, or is defended.
    if (stm == WHITE and rank_of(pawn) == 6 and wk != promo and bk != promo
            and (DISTANCE[bk][promo] > 1 or DISTANCE[wk][promo] == 1)):
        return KPK_WIN
    if stm == BLACK:
        # Stalemate, or the pawn taken.
        if not (KING_ATK[bk] & ~(KING_ATK[wk] | PAWN_ATK[WHITE][pawn])):
            return KPK_DRAW
        if KING_ATK[bk] & ~KING_ATK[wk] & bit(pawn):
            return KPK_DRAW
    return KPK_UNKNOWN


cdef int kpk_classify(int stm, int wk, int bk, int pawn) noexcept nogil:
    """One step of the analysis: what the moves lead to, as far as known."""
    cdef int results = 0, to
    cdef u64 b
    if stm == WHITE:
        b = KING_ATK[wk]
        while b:
            to = pop_lsb(&b)
            results |= KPK[kpk_index(BLACK, to, bk, pawn)]
        if rank_of(pawn) < 6:
            results |= KPK[kpk_index(BLACK, wk, bk, pawn + 8)]
        if rank_of(pawn) == 1 and pawn + 8 != wk and pawn + 8 != bk:
            results |= KPK[kpk_index(BLACK, wk, bk, pawn + 16)]
        if results & KPK_WIN:
            return KPK_WIN
        return KPK_UNKNOWN if results & KPK_UNKNOWN else KPK_DRAW
    b = KING_ATK[bk]
    while b:
        to = pop_lsb(&b)
        results |= KPK[kpk_index(WHITE, wk, to, pawn)]
    if results & KPK_DRAW:
        return KPK_DRAW
    return KPK_UNKNOWN if results & KPK_UNKNOWN else KPK_WIN


cdef void init_kpk() noexcept nogil:
    """Retrograde analysis: classify until nothing changes (a few dozen passes)."""
    cdef int stm, wk, bk, p, pawn, i, changed = 1
    for stm in range(2):
        for wk in range(64):
            for bk in range(64):
                for p in range(24):
                    pawn = (p // 4 + 1) * 8 + p % 4
                    KPK[kpk_index(stm, wk, bk, pawn)] = kpk_initial(stm, wk, bk, pawn)
    while changed:
        changed = 0
        for stm in range(2):
            for wk in range(64):
                for bk in range(64):
                    for p in range(24):
                        pawn = (p // 4 + 1) * 8 + p % 4
                        i = kpk_index(stm, wk, bk, pawn)
                        if KPK[i] == KPK_UNKNOWN:
                            KPK[i] = kpk_classify(stm, wk, bk, pawn)
                            changed |= KPK[i] != KPK_UNKNOWN
    for i in range(KPK_SIZE):
        if KPK[i] == KPK_UNKNOWN:
            KPK[i] = KPK_DRAW       # nothing forces a win: the defence holds


cdef bint kpk_wins(const Position* pos) noexcept nogil:
    """Does the side with the pawn win? (K+P against K only.)"""
    cdef int strong = WHITE if pos.pieces[PAWN] else BLACK
    cdef int pawn = lsb(pos.pieces[PAWN + 6 * strong])
    cdef int wk = pos.king[strong], bk = pos.king[strong ^ 1], stm = pos.stm
    if strong == BLACK:                 # seen from the pawn's side
        pawn ^= 56
        wk ^= 56
        bk ^= 56
        stm ^= 1
    if file_of(pawn) > 3:
        pawn ^= 7
        wk ^= 7
        bk ^= 7
    return KPK[kpk_index(stm, wk, bk, pawn)] == KPK_WIN


cdef int kpk_score(const Position* pos) noexcept nogil:
    """K+P against K, side to move's view: 0 if drawn, else a won score that
    grows as the pawn advances (so that the search makes progress)."""
    cdef int strong = WHITE if pos.pieces[PAWN] else BLACK
    cdef int score
    if not kpk_wins(pos):
        return 0
    score = 800 + 20 * rank_of(relative_sq(strong, lsb(pos.pieces[PAWN + 6 * strong])))
    return score if pos.stm == strong else -score


cdef u64 LIGHT_SQUARES = 0x55AA55AA55AA55AA


cdef inline bint is_light(u64 b) noexcept nogil:
    return (b & LIGHT_SQUARES) != 0


cdef int drawish_scale(const Position* pos, int strong) noexcept nogil:
    """1/64ths of the end-game score that ``strong`` keeps (64: no rule applies)."""
    cdef int weak = strong ^ 1, promo
    if not endgame_rules:
        return 64
    cdef u64 pawns = pos.pieces[PAWN + 6 * strong], bishops = pos.pieces[BISHOP + 6 * strong]
    cdef u64 pieces = pos.occ[strong] & ~pawns & ~pos.pieces[KING + 6 * strong]
    cdef u64 weak_pieces = pos.occ[weak] & ~pos.pieces[PAWN + 6 * weak] & ~pos.pieces[KING + 6 * weak]
    # Rook pawns on one file, with no help or only bishops that do not control
    # the promotion square, against a bare king on it: the king cannot be driven
    # out. Bare: a defending pawn may run, or be taken so that a pawn leaves the
    # rook file (Syzygy: a third of such positions with one are decided).
    if (pawns and (pieces & ~bishops) == 0 and pos.occ[weak] == bit(pos.king[weak])
            and (not (pawns & ~FILE_A_BB) or not (pawns & ~FILE_H_BB))):
        promo = relative_sq(strong, 56 if pawns & FILE_A_BB else 63)
        if DISTANCE[pos.king[weak]][promo] <= 1 and (
                not bishops or (not (bishops & LIGHT_SQUARES) or not (bishops & ~LIGHT_SQUARES))
                and is_light(bishops) != is_light(bit(promo))):
            return 0
    # Opposite-coloured bishops: the defender blockades on the other colour.
    if (popcount(pos.pieces[BISHOP]) == 1 and popcount(pos.pieces[BISHOP + 6]) == 1
            and is_light(pos.pieces[BISHOP]) != is_light(pos.pieces[BISHOP + 6])):
        if pieces == bishops and weak_pieces == pos.pieces[BISHOP + 6 * weak]:
            return 24           # bishops and pawns only
        return 48
    return 64


cdef bint two_knights_alone(const Position* pos, int strong) noexcept nogil:
    """K+N+N against a bare king: no mate can be forced (only helped), a draw.
    Found in the engine's own games: twice it traded down to it a piece up,
    expecting to win (``nmm-chess study endgames``)."""
    return (endgame_rules and pos.occ[strong ^ 1] == bit(pos.king[strong ^ 1])
            and pos.occ[strong] & ~pos.pieces[KING + 6 * strong] == pos.pieces[KNIGHT + 6 * strong]
            and popcount(pos.pieces[KNIGHT + 6 * strong]) == 2)


cdef int bishop_corner_distance(const Position* pos, int strong) noexcept nogil:
    """K+B+N against K: how far the bare king is from a corner the bishop
    controls (the only corners it can be mated in)."""
    cdef int king = pos.king[strong ^ 1]
    if is_light(pos.pieces[BISHOP + 6 * strong]):
        return min(DISTANCE[king][7], DISTANCE[king][56])       # h1, a8
    return min(DISTANCE[king][0], DISTANCE[king][63])           # a1, h8
