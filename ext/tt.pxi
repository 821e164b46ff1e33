# The transposition table: buckets of two entries, one kept for depth and one
# always replaced, sized by the Hash option. Mate scores are stored relative
# to the node (not the root) so that they stay right at any distance.
#
# Every search thread reads and writes the table without locks. An entry is
# two 64-bit words, the data and the key XORed with the data: a write torn
# by another thread's write leaves a pair that no longer checks out, and a
# probe takes it for a miss instead of using half of one entry with half of
# another (the scheme of Hyatt and Mann's "lockless transposition tables").

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

cdef enum:
    TT_GENERATIONS = 64     # the generation has 6 bits of an entry

ctypedef struct TTEntry:
    u64 check           # key ^ data
    u64 data            # move 16 bits | score 16 | eval 16 | depth 8 | bound 2 | generation 6

ctypedef struct TTHit:  # an entry's data unpacked by tt_probe
    Move move
    int score
    int eval
    int depth
    int bound

ctypedef struct TTBucket:
    TTEntry deep        # replaced only by a deeper (or as deep) search, or a stale one
    TTEntry recent      # always replaced

ctypedef struct TTable:
    TTBucket* buckets
    u64 mask            # number of buckets - 1 (a power of two)
    uint8_t generation  # bumped every search (mod TT_GENERATIONS); older entries are stale
    bint used           # searched with since it was last emptied (an unused table is empty)


cdef inline u64 tt_pack(Move move, int score, int eval, int depth, int bound, int generation) noexcept nogil:
    return (<u64>move | (<u64>(<uint16_t>score) << 16) | (<u64>(<uint16_t>eval) << 32)
            | (<u64>depth << 48) | (<u64>bound << 56) | (<u64>generation << 58))

cdef inline int tt_depth(u64 data) noexcept nogil:
    return (data >> 48) & 0xFF

cdef inline int tt_bound(u64 data) noexcept nogil:
    return (data >> 56) & 3

cdef inline int tt_generation(u64 data) noexcept nogil:
    return data >> 58

cdef inline bint tt_current(u64 data, int generation) noexcept nogil:
    """A filled entry of this search's generation."""
    return tt_bound(data) != BOUND_NONE and tt_generation(data) == generation

cdef inline u64 tt_read(const TTEntry* e, u64 key) noexcept nogil:
    """The entry's data if it holds ``key`` (whole, not torn) and a bound; else 0."""
    cdef u64 data = e.data, check = e.check
    if (check ^ data) == key and tt_bound(data) != BOUND_NONE:
        return data
    return 0

cdef inline void tt_write(TTEntry* e, u64 key, u64 data) noexcept nogil:
    e.data = data
    e.check = key ^ data


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
    tt.used = False
    return 1

cdef enum:
    LAZY_CLEAR_MB = 1024    # tables this large are cleared by asking the system for fresh pages

cdef int tt_clear(TTable* tt) noexcept nogil:
    """Empty the table; 0 if it had to shrink to do so (the memory went elsewhere).

    A table no search has used since it was made or emptied is left alone.
    Up to LAZY_CLEAR_MB it is zeroed in place: its pages stay mapped, where
    fresh ones would each cost a page fault in the next search (with two
    threads faulting at once, a 64 MB table took 4 times as long to search
    to depth 12 from the bench positions). A larger one is given back and
    taken anew, zeroed by the system a page at a time as the search touches
    it: a memset of 8 GB kept the engine from answering for 30 seconds here.
    """
    cdef u64 wanted = tt.mask + 1, count = tt.mask + 1
    tt.generation = 0
    if tt.buckets == NULL or not tt.used:
        return 1
    tt.used = False
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

cdef inline bint tt_probe(TTable* tt, u64 key, TTHit* hit) noexcept nogil:
    """Fill ``hit`` from the entry for ``key``; False if there is none."""
    cdef TTBucket* b = &tt.buckets[key & tt.mask]
    cdef u64 data = tt_read(&b.deep, key)
    if data == 0:
        data = tt_read(&b.recent, key)
        if data == 0:
            return False
    hit.move = <Move>(data & 0xFFFF)
    hit.score = <int16_t>((data >> 16) & 0xFFFF)
    hit.eval = <int16_t>((data >> 32) & 0xFFFF)
    hit.depth = tt_depth(data)
    hit.bound = tt_bound(data)
    return True

cdef inline void tt_store(TTable* tt, u64 key, int depth, int score, int eval,
                          int bound, Move move, int ply) noexcept nogil:
    cdef TTBucket* b = &tt.buckets[key & tt.mask]
    cdef TTEntry* e
    cdef u64 deep = b.deep.data, old
    if (b.deep.check ^ deep) == key or depth >= tt_depth(deep) or not tt_current(deep, tt.generation):
        e = &b.deep
    else:
        e = &b.recent
    if move == 0:
        old = tt_read(e, key)
        move = <Move>(old & 0xFFFF)     # keep the old best move rather than none
    tt_write(e, key, tt_pack(move, score_to_tt(score, ply), eval, depth if depth > 0 else 0, bound,
                             tt.generation))

cdef int tt_hashfull(const TTable* tt) noexcept nogil:
    """Permille of the first thousand entries filled in this search."""
    cdef int used = 0, i
    cdef u64 n = 500 if tt.mask + 1 >= 500 else tt.mask + 1
    for i in range(n):
        used += tt_current(tt.buckets[i].deep.data, tt.generation)
        used += tt_current(tt.buckets[i].recent.data, tt.generation)
    return used * 1000 // (2 * n)
