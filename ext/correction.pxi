# Pawn correction history (CorrectionHistory, on since its SPRT: +20.1 +- 14.3, reports/strength).
#
# A static evaluation errs the same way in positions that share a pawn
# structure: a blocked chain it overrates, a passer it underrates. Each search
# measures the error where it can, the gap between a node's search score and
# its raw static evaluation, and keeps a running average of it per pawn
# structure and side to move. The evaluation the search uses (its pruning
# margins, stand pat, "improving") is the raw one plus that average; the
# transposition table keeps the raw one, so an entry never holds a stale
# correction.
#
# An entry is a fixed-point average (CORR_GRAIN per centipawn) that moves
# toward the newest gap with a weight that grows with the search's depth (a
# deeper score is the better measure), up to CORR_WEIGHT_MAX of 256; it is
# clamped to CORR_LIMIT centipawns either way. Both: engine/search_params.py.
#
# NonPawnCorrection (on since its SPRT; reports/strength) keeps the same average
# per each side's other pieces (knights to king, where they stand), two more
# tables learning from the same gaps: errors that follow the pieces, not the
# pawns (an attack the net misjudges, a bishop it overrates). The correction
# is then a blend, CORR_NONPAWN_WEIGHT of 256 for each side's table and the
# rest for the pawns': where the three agree, it is what each says.

cdef enum:
    CORR_GRAIN = 64             # an entry's units per centipawn
    CORR_SCALE = 256            # the weights' denominator


cdef inline int corr_index(const Position* pos) noexcept nogil:
    """The pawn structure's slot: both sides' pawns hashed by multiplication
    (the product's top bits depend on every bit of the pawns)."""
    cdef u64 h = (pieces_of(pos, WHITE, PAWN) * <u64>0x9E3779B97F4A7C15
                  ^ pieces_of(pos, BLACK, PAWN) * <u64>0xC2B2AE3D27D4EB4F)
    return <int>(h >> (64 - CORR_BITS))


cdef inline int nonpawn_index(const Position* pos, int color) noexcept nogil:
    """The slot of ``color``'s pieces other than pawns, each type's squares
    hashed by a multiplier of its own."""
    cdef u64 h = (pieces_of(pos, color, KNIGHT) * <u64>0x9E3779B97F4A7C15
                  ^ pieces_of(pos, color, BISHOP) * <u64>0xC2B2AE3D27D4EB4F
                  ^ pieces_of(pos, color, ROOK) * <u64>0x165667B19E3779F9
                  ^ pieces_of(pos, color, QUEEN) * <u64>0xD6E8FEB86659FD93
                  ^ pieces_of(pos, color, KING) * <u64>0xFF51AFD7ED558CCD)
    return <int>(h >> (64 - CORR_BITS))


cdef inline int correction(const Search* s, const Position* pos) noexcept nogil:
    """The average error measured for this position's pawns (and, with
    NonPawnCorrection, blended with each side's pieces'), in centipawns."""
    cdef int pawn = s.corr_pawn[pos.stm][corr_index(pos)]
    if not s.opt.nonpawn_correction:
        return pawn // CORR_GRAIN
    return (pawn * (CORR_SCALE - 2 * CORR_NONPAWN_WEIGHT)
            + (s.corr_nonpawn[pos.stm][WHITE][nonpawn_index(pos, WHITE)]
               + s.corr_nonpawn[pos.stm][BLACK][nonpawn_index(pos, BLACK)]) * CORR_NONPAWN_WEIGHT
            ) // (CORR_SCALE * CORR_GRAIN)


cdef inline int corrected_eval(const Search* s, const Position* pos, int raw) noexcept nogil:
    """``raw`` plus the average error measured for positions like this one
    (the raw score itself while CorrectionHistory is off)."""
    if not s.opt.correction:
        return raw
    raw += correction(s, pos)
    return max(-MATE_BOUND + 1, min(raw, MATE_BOUND - 1))


cdef inline void corr_learn(int16_t* entry, int target, int weight, int limit) noexcept nogil:
    cdef int value = (entry[0] * (CORR_SCALE - weight) + target * weight) // CORR_SCALE
    entry[0] = <int16_t>max(-limit, min(value, limit))


cdef inline void corr_update(Search* s, const Position* pos, int gap, int depth) noexcept nogil:
    """Move the position's entries toward ``gap`` (search score minus raw
    evaluation, centipawns), the more the deeper the search."""
    cdef int weight = min(depth + 1, CORR_WEIGHT_MAX)
    cdef int limit = CORR_LIMIT * CORR_GRAIN
    cdef int target = max(-limit, min(gap * CORR_GRAIN, limit))
    corr_learn(&s.corr_pawn[pos.stm][corr_index(pos)], target, weight, limit)
    if s.opt.nonpawn_correction:
        corr_learn(&s.corr_nonpawn[pos.stm][WHITE][nonpawn_index(pos, WHITE)], target, weight, limit)
        corr_learn(&s.corr_nonpawn[pos.stm][BLACK][nonpawn_index(pos, BLACK)], target, weight, limit)
