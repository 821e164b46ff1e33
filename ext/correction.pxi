# Pawn correction history (CorrectionHistory, off until games say otherwise).
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

cdef enum:
    CORR_GRAIN = 64             # an entry's units per centipawn
    CORR_SCALE = 256            # the weights' denominator


cdef inline int corr_index(const Position* pos) noexcept nogil:
    """The pawn structure's slot: both sides' pawns hashed by multiplication
    (the product's top bits depend on every bit of the pawns)."""
    cdef u64 h = (pieces_of(pos, WHITE, PAWN) * <u64>0x9E3779B97F4A7C15
                  ^ pieces_of(pos, BLACK, PAWN) * <u64>0xC2B2AE3D27D4EB4F)
    return <int>(h >> (64 - CORR_BITS))


cdef inline int corrected_eval(const Search* s, const Position* pos, int raw) noexcept nogil:
    """``raw`` plus the average error measured for this pawn structure (the
    raw score itself while CorrectionHistory is off)."""
    if not s.opt.correction:
        return raw
    raw += s.corr_pawn[pos.stm][corr_index(pos)] // CORR_GRAIN
    return max(-MATE_BOUND + 1, min(raw, MATE_BOUND - 1))


cdef inline void corr_update(Search* s, const Position* pos, int gap, int depth) noexcept nogil:
    """Move the pawn structure's entry toward ``gap`` (search score minus raw
    evaluation, centipawns), the more the deeper the search."""
    cdef int16_t* entry = &s.corr_pawn[pos.stm][corr_index(pos)]
    cdef int weight = min(depth + 1, CORR_WEIGHT_MAX)
    cdef int limit = CORR_LIMIT * CORR_GRAIN
    cdef int target = max(-limit, min(gap * CORR_GRAIN, limit))
    cdef int value = (entry[0] * (CORR_SCALE - weight) + target * weight) // CORR_SCALE
    entry[0] = <int16_t>max(-limit, min(value, limit))
