# The inputs of the TD-trained evaluation: the hand features of Mannen's
# thesis (Appendix B) and the squares of the pieces.
#
# Everything is seen from the side to move: "us" first, "them" second, and
# the squares mirrored (rank flipped) when Black is to move, so that one net
# serves both colours and its output is the expected result for the side to
# move. The pawn structure comes from pawn_facts() in eval_hand.pxi, the same
# classification the handwritten evaluation scores.
#
# Set A: FEATURES_A dense numbers. Set B adds the squares of the kings and
# pawns, set C those of all pieces; squares are given as a list of active
# input indices (all of value 1), since at most 32 of them are set.

cdef enum:
    PER_SIDE = 30
    FEATURES_A = 2 * PER_SIDE + 2       # per side twice, then total material and balance
    SQUARES_B = 2 * 64 + 2 * 48         # our king, their king, our pawns, their pawns
    SQUARES_C = 2 * (5 * 64 + 48)       # every piece type of both sides
    MAX_ACTIVE = 32                     # pieces on the board (set_fen checks the counts)

FEATURE_SIDE_NAMES = [
    "queens", "rooks", "bishops", "knights", "pawns",
    "queen mobility", "rook horizontal mobility", "rook vertical mobility",
    "bishop mobility", "knight mobility", "king mobility", "total mobility",
    "centre pawns", "isolated pawns", "doubled pawns", "passed pawns",
    "pawn forks", "knight forks",
    "queens attacked", "rooks attacked", "bishops attacked", "knights attacked", "king attacked",
    "light pieces on first rank", "horizontally connected rooks", "vertically connected rooks",
    "rooks on seventh rank", "board control", "connectivity", "king distance to centre"]
FEATURE_NAMES = ([f"our {n}" for n in FEATURE_SIDE_NAMES] + [f"their {n}" for n in FEATURE_SIDE_NAMES]
                 + ["material", "material balance"])

cdef int PAWN_UNITS[6]
PAWN_UNITS[:] = [1, 3, 3, 5, 9, 0]      # the thesis's Table 6.2
cdef u64 CENTRE_BB = (1ULL << 27) | (1ULL << 28) | (1ULL << 35) | (1ULL << 36)


cdef u64 controlled(const SideAttacks* us, const SideAttacks* them) noexcept nogil:
    """Squares where our least valuable attacker is cheaper than theirs.

    Levels: pawn, minor piece, rook, queen, king; a tie controls nothing.
    """
    cdef u64 lu[5]
    cdef u64 lt[5]
    cdef u64 cu = 0, ct = 0, result = 0, below = 0
    cdef int k
    lu[:] = [us.by_type[PAWN], us.by_type[KNIGHT] | us.by_type[BISHOP], us.by_type[ROOK],
             us.by_type[QUEEN], us.by_type[KING]]
    lt[:] = [them.by_type[PAWN], them.by_type[KNIGHT] | them.by_type[BISHOP], them.by_type[ROOK],
             them.by_type[QUEEN], them.by_type[KING]]
    for k in range(5):
        below = cu
        cu |= lu[k]
        ct |= lt[k]
        result |= cu & ~below & ~ct
    return result


cdef int connected_pairs(const Position* pos, u64 rooks, bint horizontal) noexcept nogil:
    """Pairs of rooks on one rank (or file) with nothing between them."""
    cdef int a, b, pairs = 0
    cdef u64 rest, outer = rooks
    while outer:
        a = pop_lsb(&outer)
        rest = outer
        while rest:
            b = pop_lsb(&rest)
            if (rank_of(a) == rank_of(b)) if horizontal else (file_of(a) == file_of(b)):
                if not (BETWEEN[a][b] & pos.all):
                    pairs += 1
    return pairs


cdef inline u64 pawn_captures(u64 pawns, int color, bint left) noexcept nogil:
    """The squares ``pawns`` attack towards the a-file (``left``) or the h-file."""
    if left:
        return (pawns & ~FILE_A_BB) << 7 if color == WHITE else (pawns & ~FILE_A_BB) >> 9
    return (pawns & ~FILE_H_BB) << 9 if color == WHITE else (pawns & ~FILE_H_BB) >> 7


cdef inline u64 pawn_forks_of(u64 pawns, int color, u64 targets) noexcept nogil:
    """The pawns that attack two of ``targets`` at once."""
    cdef u64 left = pawn_captures(pawns, color, True) & targets
    cdef u64 right = pawn_captures(pawns, color, False) & targets
    if color == WHITE:      # back to the pawns' own squares
        return (left >> 7) & (right >> 9)
    return (left << 9) & (right << 7)


cdef void side_features(const Position* pos, int color, const SideAttacks* mine,
                        const SideAttacks* theirs, float* f) noexcept nogil:
    """The PER_SIDE features of ``color`` into ``f``."""
    cdef int them = color ^ 1, pt, sq, i
    cdef u64 own = pos.occ[color], enemy = pos.occ[them], b, reach, defended
    cdef u64 pawns = pos.pieces[PAWN + 6 * color]
    cdef u64 rooks = pos.pieces[ROOK + 6 * color]
    cdef u64 back_rank = RANK_1_BB if color == WHITE else (RANK_1_BB << 56)
    cdef u64 seventh = (RANK_1_BB << 48) if color == WHITE else (RANK_1_BB << 8)
    cdef u64 big_for_pawn = enemy & ~pos.pieces[PAWN + 6 * them]
    cdef u64 big_for_knight = (pos.pieces[ROOK + 6 * them] | pos.pieces[QUEEN + 6 * them]
                               | pos.pieces[KING + 6 * them])
    cdef PawnFacts facts
    cdef int mob[6]
    cdef int horizontal = 0, vertical = 0, knight_forks = 0, connectivity = 0
    for pt in range(6):
        mob[pt] = 0
    f[0] = popcount(pos.pieces[QUEEN + 6 * color])
    f[1] = popcount(rooks)
    f[2] = popcount(pos.pieces[BISHOP + 6 * color])
    f[3] = popcount(pos.pieces[KNIGHT + 6 * color])
    f[4] = popcount(pawns)
    # Mobility: squares a piece could move to, empty or enemy (pins ignored);
    # the king only to squares the enemy does not attack.
    for i in range(mine.n):
        pt, sq = mine.type[i], mine.square[i]
        reach = mine.attacks[i] & ~own
        mob[pt] += popcount(reach)
        if pt == ROOK:
            horizontal += popcount(reach & (RANK_1_BB << (8 * rank_of(sq))))
            vertical += popcount(reach & (FILE_A_BB << file_of(sq)))
        elif pt == KNIGHT and popcount(reach & big_for_knight) >= 2:
            knight_forks += 1
    mob[KING] = popcount(KING_ATK[pos.king[color]] & ~own & ~theirs.all)
    f[5] = mob[QUEEN]
    f[6] = horizontal
    f[7] = vertical
    f[8] = mob[BISHOP]
    f[9] = mob[KNIGHT]
    f[10] = mob[KING]
    f[11] = mob[KNIGHT] + mob[BISHOP] + mob[ROOK] + mob[QUEEN] + mob[KING]
    pawn_facts(pos, color, &facts)
    f[12] = popcount(pawns & CENTRE_BB)
    f[13] = popcount(facts.isolated)
    f[14] = popcount(facts.doubled)
    f[15] = popcount(facts.passed)
    f[16] = popcount(pawn_forks_of(pawns, color, big_for_pawn))
    f[17] = knight_forks
    # Our pieces attacked by cheaper enemy pieces (minors count as equals).
    f[18] = popcount(pos.pieces[QUEEN + 6 * color] & (theirs.by_type[PAWN] | theirs.by_type[KNIGHT]
                                                     | theirs.by_type[BISHOP] | theirs.by_type[ROOK]))
    f[19] = popcount(rooks & (theirs.by_type[PAWN] | theirs.by_type[KNIGHT] | theirs.by_type[BISHOP]))
    f[20] = popcount(pos.pieces[BISHOP + 6 * color] & theirs.by_type[PAWN])
    f[21] = popcount(pos.pieces[KNIGHT + 6 * color] & theirs.by_type[PAWN])
    f[22] = 1 if theirs.all & bit(pos.king[color]) else 0
    f[23] = popcount((pos.pieces[KNIGHT + 6 * color] | pos.pieces[BISHOP + 6 * color]) & back_rank)
    f[24] = connected_pairs(pos, rooks, True)
    f[25] = connected_pairs(pos, rooks, False)
    f[26] = popcount(rooks & seventh)
    f[27] = popcount(controlled(mine, theirs) & ~pos.all)
    # Connectivity: for each of our pieces but the king, how many of ours
    # defend it; counted from the defenders' side, each defender's targets.
    defended = own & ~bit(pos.king[color])
    for i in range(mine.n):
        connectivity += popcount(mine.attacks[i] & defended)
    connectivity += popcount(KING_ATK[pos.king[color]] & defended)
    # each pawn's two captures, one direction at a time: no loop over pawns
    connectivity += popcount(pawn_captures(pawns, color, True) & defended)
    connectivity += popcount(pawn_captures(pawns, color, False) & defended)
    f[28] = connectivity
    f[29] = center_distance(pos.king[color])


cdef void features_a(const Position* pos, float* f) noexcept nogil:
    """Set A into ``f[0:FEATURES_A]``, from the side to move's view."""
    cdef SideAttacks att[2]
    both_attacks(pos, att)
    features_a_with(pos, att, f)


cdef void features_a_with(const Position* pos, const SideAttacks* att, float* f) noexcept nogil:
    """features_a() with both sides' attacks (side_attacks) already at hand."""
    cdef int us = pos.stm, them = pos.stm ^ 1, pt
    cdef float material[2]
    side_features(pos, us, &att[us], &att[them], f)
    side_features(pos, them, &att[them], &att[us], f + PER_SIDE)
    for pt in range(2):
        material[pt] = 0
    for pt in range(KING):
        material[0] += PAWN_UNITS[pt] * popcount(pos.pieces[pt + 6 * us])
        material[1] += PAWN_UNITS[pt] * popcount(pos.pieces[pt + 6 * them])
    f[2 * PER_SIDE] = material[0] + material[1]
    f[2 * PER_SIDE + 1] = material[0] - material[1]


cdef inline int square_index(int piece, int sq, int stm, bint all_pieces) noexcept nogil:
    """Input index of a piece on a square (-1: not an input of this set).

    Set B: our king 0-63, their king 64-127, our pawns 128-175, theirs 176-223.
    Set C: for us then them, pawns (48) then knight, bishop, rook, queen, king (64 each).
    """
    cdef int pt = piece_type(piece), side = 0 if piece_color(piece) == stm else 1
    cdef int rel = sq ^ 56 if stm == BLACK else sq
    if all_pieces:
        if pt == PAWN:
            return side * 368 + rel - 8
        return side * 368 + 48 + (pt - KNIGHT) * 64 + rel
    if pt == KING:
        return side * 64 + rel
    if pt == PAWN:
        return 128 + side * 48 + rel - 8
    return -1


cdef int active_squares(const Position* pos, bint all_pieces, int* out) noexcept nogil:
    """The active square inputs (set B, or C with ``all_pieces``); returns their count."""
    cdef int n = 0, sq, idx
    cdef u64 b = pos.all
    while b:
        sq = pop_lsb(&b)
        idx = square_index(pos.board[sq], sq, pos.stm, all_pieces)
        if idx >= 0:
            out[n] = idx
            n += 1
    return n
