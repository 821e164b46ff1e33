# The transposition table: buckets of two entries, one kept for depth and one
# always replaced, sized by the Hash option. Mate scores are stored relative
# to the node (not the root) so that they stay right at any distance.

from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memset

cdef enum:
    BOUND_NONE = 0
    BOUND_UPPER = 1         # score <= true value is not known; true value <= score
    BOUND_LOWER = 2         # true value >= score (a cut)
    BOUND_EXACT = 3

cdef enum:
    MATE = 32000
    MATE_BOUND = 32000 - 2 * MAX_PLY     # scores beyond this are mates
    INFINITE = 32001
    NO_SCORE = 32002

ctypedef struct TTEntry:
    u64 key
    Move move
    int16_t score
    int16_t eval
    uint8_t depth
    uint8_t bound
    uint8_t generation
    uint8_t pad

ctypedef struct TTBucket:
    TTEntry deep        # replaced only by a deeper (or as deep) search, or a stale one
    TTEntry recent      # always replaced

ctypedef struct TTable:
    TTBucket* buckets
    u64 mask            # number of buckets - 1 (a power of two)
    uint8_t generation  # bumped every search; older entries are stale


cdef int tt_resize(TTable* tt, size_t megabytes) noexcept nogil:
    """Replace the table by the largest power-of-two one that fits, empty.
    Returns 0, and keeps the old table as it was, if the memory is not there."""
    cdef u64 count = 1
    cdef TTBucket* fresh
    while count * 2 * sizeof(TTBucket) <= megabytes * 1024 * 1024:
        count *= 2
    # calloc: the pages come zeroed from the system and are touched only when used.
    fresh = <TTBucket*>calloc(count, sizeof(TTBucket))
    if fresh == NULL:
        return 0
    free(tt.buckets)
    tt.buckets = fresh
    tt.mask = count - 1
    tt.generation = 0
    return 1

cdef enum:
    LAZY_CLEAR_MB = 64      # tables this large are cleared by asking the system for fresh pages

cdef int tt_clear(TTable* tt) noexcept nogil:
    """Empty the table; 0 if it had to shrink to do so (the memory went elsewhere).

    A large table is given back and taken anew, zeroed by the system a page
    at a time as the search touches it: a memset of 8 GB kept the engine from
    answering for 30 seconds here.
    """
    cdef u64 wanted = tt.mask + 1, count = tt.mask + 1
    tt.generation = 0
    if tt.buckets == NULL:
        return 1
    if count * sizeof(TTBucket) < <u64>LAZY_CLEAR_MB * 1024 * 1024:
        memset(tt.buckets, 0, count * sizeof(TTBucket))
        return 1
    free(tt.buckets)
    tt.buckets = <TTBucket*>calloc(count, sizeof(TTBucket))
    while tt.buckets == NULL and count > 1:
        count //= 2
        tt.buckets = <TTBucket*>calloc(count, sizeof(TTBucket))
    tt.mask = count - 1
    return count == wanted

cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    """Mate scores count from the root; stored ones count from this node."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score

cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score

cdef inline TTEntry* tt_probe(TTable* tt, u64 key) noexcept nogil:
    """The entry for ``key``, or NULL."""
    cdef TTBucket* b = &tt.buckets[key & tt.mask]
    if b.deep.key == key and b.deep.bound != BOUND_NONE:
        return &b.deep
    if b.recent.key == key and b.recent.bound != BOUND_NONE:
        return &b.recent
    return NULL

cdef inline void tt_store(TTable* tt, u64 key, int depth, int score, int eval,
                          int bound, Move move, int ply) noexcept nogil:
    cdef TTBucket* b = &tt.buckets[key & tt.mask]
    cdef TTEntry* e
    if (b.deep.key == key or depth >= b.deep.depth or b.deep.generation != tt.generation
            or b.deep.bound == BOUND_NONE):
        e = &b.deep
    else:
        e = &b.recent
    if move == 0 and e.key == key:
        move = e.move           # keep the old best move rather than none
    e.key = key
    e.move = move
    e.score = <int16_t>score_to_tt(score, ply)
    e.eval = <int16_t>eval
    e.depth = <uint8_t>(depth if depth > 0 else 0)
    e.bound = <uint8_t>bound
    e.generation = tt.generation

cdef int tt_hashfull(const TTable* tt) noexcept nogil:
    """Permille of the first thousand entries filled in this search."""
    cdef int used = 0, i
    cdef u64 n = 500 if tt.mask + 1 >= 500 else tt.mask + 1
    for i in range(n):
        used += (tt.buckets[i].deep.bound != BOUND_NONE and tt.buckets[i].deep.generation == tt.generation)
        used += (tt.buckets[i].recent.bound != BOUND_NONE and tt.buckets[i].recent.generation == tt.generation)
    return used * 1000 // (2 * n)
