# The handwritten evaluation: the reference the TD-trained net has to beat.
#
# Tapered: every term has a middle-game and an end-game value (packed, see
# S()), blended by the material left on the board. Scores are centipawns from
# the side to move's view. Material and piece-square values are kept up to
# date by make/unmake (Position.psq); the rest is computed here.

cdef enum:
    T_MATERIAL = 0
    T_PSQ = 1
    T_PAWNS = 2
    T_PASSED = 3
    T_MOBILITY = 4
    T_ROOKS = 5
    T_KING_SAFETY = 6
    T_BISHOP_PAIR = 7
    T_MOP_UP = 8
    N_TERMS = 9

EVAL_TERM_NAMES = ["material", "piece-square", "pawn structure", "passed pawns", "mobility",
                   "rooks", "king safety", "bishop pair", "mop-up"]

ctypedef struct EvalTrace:
    int terms[N_TERMS][2]   # packed score of each term for White and for Black
    int phase               # 24 = all pieces on, 0 = pawn ending
    int scale               # end-game scale in 1/64
    int total               # final score, White's view

cdef int MATERIAL[6]
cdef int PHASE_WEIGHT[6]
MATERIAL[:] = [S(90, 110), S(320, 300), S(330, 320), S(480, 540), S(950, 1000), 0]
PHASE_WEIGHT[:] = [0, 1, 1, 2, 4, 0]

# Pawn structure, passed pawns by relative rank, mobility per reachable square.
cdef int DOUBLED = S(-10, -20)
cdef int ISOLATED = S(-12, -15)
cdef int BACKWARD = S(-8, -10)
cdef int PASSED_RANK[8]
PASSED_RANK[:] = [0, S(5, 10), S(5, 15), S(12, 25), S(25, 45), S(45, 75), S(70, 120), 0]
cdef int PASSED_FREE = S(0, 15)             # per rank, when the stop square is empty
cdef int PASSED_KING_DIST = 5               # end game, per rank and square of king distance
cdef int MOBILITY[6]
MOBILITY[:] = [0, S(4, 4), S(5, 5), S(2, 4), S(1, 2), 0]
cdef int MOBILITY_BASE[6]                   # typical mobility, scored as zero
MOBILITY_BASE[:] = [0, 4, 6, 6, 12, 0]
cdef int ROOK_OPEN = S(25, 10)
cdef int ROOK_SEMI_OPEN = S(12, 6)
cdef int ROOK_SEVENTH = S(20, 30)
cdef int BISHOP_PAIR = S(30, 50)
cdef int TEMPO = 10
# King safety: attack units by piece type, turned into a penalty that grows
# with the square of the attack, once two or more pieces join in.
cdef int KING_ATTACK_UNITS[6]
KING_ATTACK_UNITS[:] = [0, 2, 2, 3, 5, 0]
cdef int SHIELD_PAWN = S(12, 0)
cdef int KING_OPEN_FILE = S(-20, 0)

cdef u64 FILE_BB[8]
cdef u64 ADJACENT_FILES[8]
cdef u64 FORWARD_FILE[2][64]    # squares in front of a pawn on its file
cdef u64 PASSED_SPAN[2][64]     # in front, on its file and both neighbours
cdef u64 BEHIND_SPAN[2][64]     # neighbouring files, level with or behind
cdef int DISTANCE[64][64]


cdef int center_distance(int sq) noexcept nogil:
    """0 on d4/e4/d5/e5, 3 on the rim: Chebyshev rings around the centre."""
    cdef int f = file_of(sq), r = rank_of(sq)
    cdef int df = 3 - f if f < 4 else f - 4
    cdef int dr = 3 - r if r < 4 else r - 4
    return df if df > dr else dr


cdef int white_psq(int ptype, int sq) noexcept nogil:
    """Piece-square value for a White piece (material excluded)."""
    cdef int f = file_of(sq), r = rank_of(sq), c = center_distance(sq), mg
    cdef int pawn_rank[8]
    cdef int center_pawn[8]
    cdef int ring_mg[4]
    cdef int ring_eg[4]
    cdef int king_file[8]
    if ptype == PAWN:
        pawn_rank[:] = [0, 0, 0, 5, 10, 20, 30, 0]
        center_pawn[:] = [0, -10, 0, 15, 10, 0, 0, 0]    # d/e pawns: leave home, take the centre
        mg = pawn_rank[r]
        if f == 3 or f == 4:
            mg += center_pawn[r]
        elif (f == 2 or f == 5) and (r == 3 or r == 4):
            mg += 5
        return S(mg, pawn_rank[r])
    if ptype == KNIGHT:
        ring_mg[:] = [20, 10, -5, -25]
        ring_eg[:] = [15, 8, -5, -20]
        return S(ring_mg[c] + (5 if 3 <= r <= 5 else 0), ring_eg[c])
    if ptype == BISHOP:
        ring_mg[:] = [10, 5, 0, -10]
        ring_eg[:] = [8, 4, 0, -8]
        return S(ring_mg[c] + (5 if f == r or f + r == 7 else 0), ring_eg[c])
    if ptype == ROOK:
        return S(5 if f == 3 or f == 4 else 0, 0)
    if ptype == QUEEN:
        ring_mg[:] = [5, 3, 0, -5]
        ring_eg[:] = [10, 5, 0, -10]
        return S(ring_mg[c], ring_eg[c])
    # King: sheltered on the first rank's wings in the middle game, central in the end.
    ring_eg[:] = [30, 15, 0, -20]
    if r == 0:
        king_file[:] = [20, 30, 10, 0, 0, 10, 30, 20]
        mg = king_file[f]
    elif r == 1:
        king_file[:] = [10, 10, -5, -10, -10, -5, 10, 10]
        mg = king_file[f]
    else:
        mg = -20 * r if r < 3 else -60
    return S(mg, ring_eg[c])


cdef inline bint is_ahead(int color, int sq, int of) noexcept nogil:
    """Is ``sq`` on a rank in front of ``of``, seen from ``color``?"""
    return rank_of(sq) > rank_of(of) if color == WHITE else rank_of(sq) < rank_of(of)


cdef void init_eval() noexcept nogil:
    cdef int sq, f, color, pt, s2, df, dr
    for f in range(8):
        FILE_BB[f] = FILE_A_BB << f
    for f in range(8):
        ADJACENT_FILES[f] = (FILE_BB[f - 1] if f > 0 else 0) | (FILE_BB[f + 1] if f < 7 else 0)
    for sq in range(64):
        for s2 in range(64):
            df = abs(file_of(sq) - file_of(s2))
            dr = abs(rank_of(sq) - rank_of(s2))
            DISTANCE[sq][s2] = df if df > dr else dr
        for color in range(2):
            FORWARD_FILE[color][sq] = 0
            PASSED_SPAN[color][sq] = 0
            BEHIND_SPAN[color][sq] = 0
            for s2 in range(64):
                if is_ahead(color, s2, sq):
                    if file_of(s2) == file_of(sq):
                        FORWARD_FILE[color][sq] |= bit(s2)
                    if (FILE_BB[file_of(sq)] | ADJACENT_FILES[file_of(sq)]) & bit(s2):
                        PASSED_SPAN[color][sq] |= bit(s2)
                elif ADJACENT_FILES[file_of(sq)] & bit(s2):
                    BEHIND_SPAN[color][sq] |= bit(s2)
        for pt in range(6):
            PSQ[pt][sq] = MATERIAL[pt] + white_psq(pt, sq)
            PSQ[pt + 6][sq ^ 56] = -PSQ[pt][sq]

init_eval()


cdef inline u64 pawn_attacks_bb(u64 pawns, int color) noexcept nogil:
    if color == WHITE:
        return ((pawns & ~FILE_A_BB) << 7) | ((pawns & ~FILE_H_BB) << 9)
    return ((pawns & ~FILE_A_BB) >> 9) | ((pawns & ~FILE_H_BB) >> 7)


ctypedef struct PawnFacts:
    u64 doubled         # pawns with an own pawn in front on their file
    u64 isolated        # no own pawn on a neighbouring file
    u64 backward        # not isolated, no own pawn beside or behind, stop square hit by an enemy pawn
    u64 passed          # no enemy pawn in front on its file or beside, the frontmost of its file


cdef inline u64 fill_up(u64 b) noexcept nogil:
    """``b`` and every square above it on its file."""
    b |= b << 8
    b |= b << 16
    return b | (b << 32)


cdef inline u64 fill_down(u64 b) noexcept nogil:
    b |= b >> 8
    b |= b >> 16
    return b | (b >> 32)


cdef inline u64 beside(u64 b) noexcept nogil:
    """The squares left and right of ``b``'s."""
    return ((b & ~FILE_H_BB) << 1) | ((b & ~FILE_A_BB) >> 1)


cdef void pawn_facts(const Position* pos, int color, PawnFacts* facts) noexcept nogil:
    """Classify ``color``'s pawns, all at once with file fills (no loop over
    pawns); shared by this evaluation and the TD features. "Behind" a set of
    squares is every square below them on their files, from ``color``'s side."""
    cdef int them = color ^ 1
    cdef u64 own = pos.pieces[PAWN + 6 * color], enemy = pos.pieces[PAWN + 6 * them]
    cdef u64 enemy_attacks = pawn_attacks_bb(enemy, them)
    cdef u64 behind_own, supported, blocked, stop_hit
    if color == WHITE:
        behind_own = fill_down(own >> 8)                    # an own pawn in front on the file
        supported = fill_up(beside(own))                    # an own pawn beside or behind, next file
        blocked = fill_down((enemy | beside(enemy)) >> 8)   # an enemy pawn in front, file or next
        stop_hit = enemy_attacks >> 8
    else:
        behind_own = fill_up(own << 8)
        supported = fill_down(beside(own))
        blocked = fill_up((enemy | beside(enemy)) << 8)
        stop_hit = enemy_attacks << 8
    facts.doubled = own & behind_own
    facts.isolated = own & ~beside(fill_up(own) | fill_down(own))
    facts.backward = own & ~facts.isolated & ~supported & stop_hit
    facts.passed = own & ~blocked & ~behind_own


cdef int eval_pawns(const Position* pos, int color, int* passed_score) noexcept nogil:
    """Doubled, isolated and backward pawns; passed pawns go to ``passed_score``."""
    cdef int them = color ^ 1, sq, rr, stop, passed = 0
    cdef PawnFacts facts
    pawn_facts(pos, color, &facts)
    cdef int score = (DOUBLED * popcount(facts.doubled) + ISOLATED * popcount(facts.isolated)
                      + BACKWARD * popcount(facts.backward))
    cdef u64 b = facts.passed
    while b:
        sq = pop_lsb(&b)
        rr = rank_of(relative_sq(color, sq))
        stop = sq + (8 if color == WHITE else -8)
        passed += PASSED_RANK[rr]
        if pos.board[stop] == EMPTY:
            passed += PASSED_FREE * (rr - 1)
        # In the end game, kings near the path decide the race.
        passed += S(0, PASSED_KING_DIST * (rr - 1) * (
            DISTANCE[pos.king[them]][stop] - DISTANCE[pos.king[color]][stop]))
    passed_score[0] = passed
    return score


cdef inline u64 piece_attacks(int pt, int sq, u64 occ) noexcept nogil:
    if pt == KNIGHT:
        return KNIGHT_ATK[sq]
    if pt == BISHOP:
        return bishop_attacks(sq, occ)
    if pt == ROOK:
        return rook_attacks(sq, occ)
    if pt == QUEEN:
        return queen_attacks(sq, occ)
    return KING_ATK[sq]


# What each side's pieces attack, computed once per evaluation and read by
# the handwritten evaluation (mobility, king attack) and by the TD features.
ctypedef struct SideAttacks:
    u64 by_type[6]      # squares attacked by each piece type
    u64 all
    int n               # the knights, bishops, rooks and queens, one by one:
    int8_t type[16]
    int8_t square[16]
    u64 attacks[16]     # what each attacks (computed once, read by several features)


cdef void side_attacks(const Position* pos, int color, SideAttacks* att) noexcept nogil:
    cdef int pt, sq
    cdef u64 b, a
    att.by_type[PAWN] = pawn_attacks_bb(pos.pieces[PAWN + 6 * color], color)
    att.by_type[KING] = KING_ATK[pos.king[color]]
    att.n = 0
    for pt in range(KNIGHT, KING):
        att.by_type[pt] = 0
        b = pos.pieces[pt + 6 * color]
        while b:
            sq = pop_lsb(&b)
            a = piece_attacks(pt, sq, pos.all)
            att.by_type[pt] |= a
            if att.n < 16:      # set_fen allows at most 15 pieces besides the king
                att.type[att.n] = pt
                att.square[att.n] = sq
                att.attacks[att.n] = a
                att.n += 1
    att.all = 0
    for pt in range(6):
        att.all |= att.by_type[pt]


cdef inline void both_attacks(const Position* pos, SideAttacks* att) noexcept nogil:
    """side_attacks for White into att[WHITE] and Black into att[BLACK]."""
    side_attacks(pos, WHITE, &att[WHITE])
    side_attacks(pos, BLACK, &att[BLACK])


cdef void eval_pieces(const Position* pos, int color, const SideAttacks* mine, int* mobility, int* rooks,
                      int* attack_units, int* attackers) noexcept nogil:
    """Mobility, rook files, and the attack on the enemy king's zone."""
    cdef int them = color ^ 1, sq, pt, n, i
    cdef u64 own_pawns = pos.pieces[PAWN + 6 * color], enemy_pawns = pos.pieces[PAWN + 6 * them]
    cdef u64 area = ~(pos.occ[color] | pawn_attacks_bb(enemy_pawns, them))
    cdef u64 zone = KING_ATK[pos.king[them]] | bit(pos.king[them])
    cdef u64 att
    cdef int mob = 0, rook = 0, units = 0, count = 0
    for i in range(mine.n):
        pt, sq, att = mine.type[i], mine.square[i], mine.attacks[i]
        n = popcount(att & area)
        mob += MOBILITY[pt] * (n - MOBILITY_BASE[pt])
        if att & zone:
            units += KING_ATTACK_UNITS[pt] * popcount(att & zone)
            count += 1
        if pt == ROOK:
            if not (FILE_BB[file_of(sq)] & own_pawns):
                rook += ROOK_OPEN if not (FILE_BB[file_of(sq)] & enemy_pawns) else ROOK_SEMI_OPEN
            if rank_of(relative_sq(color, sq)) == 6 and (
                    rank_of(relative_sq(color, pos.king[them])) == 7
                    or (enemy_pawns & (RANK_1_BB << (48 if color == WHITE else 8)))):
                rook += ROOK_SEVENTH
    mobility[0] = mob
    rooks[0] = rook
    attack_units[0] = units
    attackers[0] = count


cdef int king_shelter(const Position* pos, int color) noexcept nogil:
    """Own pawns on the two ranks in front of the king, open files beside it."""
    cdef int ksq = pos.king[color], f = file_of(ksq), ff, score = 0
    cdef u64 pawns = pos.pieces[PAWN + 6 * color]
    cdef u64 row1 = KING_ATK[ksq] & PASSED_SPAN[color][ksq]
    cdef u64 row2 = shift_up(row1, color)
    score += SHIELD_PAWN * popcount(row1 & pawns) + SHIELD_PAWN // 2 * popcount(row2 & pawns)
    for ff in range(f - 1 if f > 0 else 0, (f + 1 if f < 7 else 7) + 1):
        if not (FILE_BB[ff] & pawns):
            score += KING_OPEN_FILE
    return score


cdef int mop_up(const Position* pos, int color) noexcept nogil:
    """Against a bare king: drive it to the rim and bring our king close."""
    cdef int them = color ^ 1
    if pos.occ[them] != pos.pieces[KING + 6 * them] or popcount(pos.occ[color]) < 2:
        return 0
    if pos.pieces[PAWN + 6 * color]:
        return 0            # pawns: promotion, not mating technique, is the plan
    return S(0, 10 * center_distance(pos.king[them]) + 4 * (7 - DISTANCE[pos.king[0]][pos.king[1]]))


cdef int game_phase(const Position* pos) noexcept nogil:
    cdef int phase = 0, pt
    for pt in range(KNIGHT, KING):
        phase += PHASE_WEIGHT[pt] * popcount(pos.pieces[pt] | pos.pieces[pt + 6])
    return phase if phase < 24 else 24


cdef int non_pawn_material(const Position* pos, int color) noexcept nogil:
    cdef int total = 0, pt
    for pt in range(KNIGHT, KING):
        total += eg_of(MATERIAL[pt]) * popcount(pos.pieces[pt + 6 * color])
    return total


cdef int endgame_scale(const Position* pos, int eg) noexcept nogil:
    """1/64ths: a side without pawns and at most a minor piece ahead rarely wins."""
    cdef int strong = WHITE if eg > 0 else BLACK
    if pos.pieces[PAWN + 6 * strong]:
        return 64
    if non_pawn_material(pos, strong) - non_pawn_material(pos, strong ^ 1) < 400:
        return 8
    return 64


cdef void material_and_psq(const Position* pos, EvalTrace* trace) noexcept nogil:
    """Split Position.psq into material and piece-square parts per colour (for traces)."""
    cdef int sq, piece, color, value
    for color in range(2):
        trace.terms[T_MATERIAL][color] = 0
        trace.terms[T_PSQ][color] = 0
    for sq in range(64):
        piece = pos.board[sq]
        if piece == EMPTY:
            continue
        color = piece_color(piece)
        value = PSQ[piece][sq] if color == WHITE else -PSQ[piece][sq]
        trace.terms[T_MATERIAL][color] += MATERIAL[piece_type(piece)]
        trace.terms[T_PSQ][color] += value - MATERIAL[piece_type(piece)]


cdef int evaluate(const Position* pos, EvalTrace* trace) noexcept nogil:
    """Static score in centipawns for the side to move; fills ``trace`` if given."""
    cdef SideAttacks att[2]
    both_attacks(pos, att)
    return evaluate_with(pos, att, trace)


cdef int evaluate_with(const Position* pos, const SideAttacks* att, EvalTrace* trace) noexcept nogil:
    """evaluate() with both sides' attacks (side_attacks) already at hand."""
    cdef int terms[N_TERMS][2]      # packed, each from its own colour's view
    cdef int danger[2]
    cdef int color, t, units, attackers, total, mg, eg, phase, scale, score
    for color in range(2):
        terms[T_PAWNS][color] = eval_pawns(pos, color, &terms[T_PASSED][color])
        eval_pieces(pos, color, &att[color], &terms[T_MOBILITY][color], &terms[T_ROOKS][color],
                    &units, &attackers)
        # What ``color`` aims at the other king is that king's danger.
        danger[color ^ 1] = S(units * units // 2, 0) if attackers >= 2 else 0
        terms[T_BISHOP_PAIR][color] = BISHOP_PAIR if more_than_one(pos.pieces[BISHOP + 6 * color]) else 0
        terms[T_MOP_UP][color] = mop_up(pos, color)
    for color in range(2):
        terms[T_KING_SAFETY][color] = king_shelter(pos, color) - danger[color]

    total = pos.psq
    for t in range(T_PAWNS, N_TERMS):
        total += terms[t][WHITE] - terms[t][BLACK]
    phase = game_phase(pos)
    mg = mg_of(total)
    eg = eg_of(total)
    scale = endgame_scale(pos, eg)
    score = (mg * phase + eg * scale // 64 * (24 - phase)) // 24
    if trace != NULL:
        for t in range(T_PAWNS, N_TERMS):
            trace.terms[t][WHITE] = terms[t][WHITE]
            trace.terms[t][BLACK] = terms[t][BLACK]
        material_and_psq(pos, trace)
        trace.phase = phase
        trace.scale = scale
        trace.total = score
    return (score if pos.stm == WHITE else -score) + TEMPO
