# Perft: count the leaf nodes of the legal-move tree, the move generator's test.

cdef u64 perft(Position* pos, int depth, bint bulk) noexcept nogil:
    """Leaves at ``depth``. With ``bulk`` the last ply counts the generated
    moves instead of making each one (the usual shortcut; same result)."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef u64 total = 0
    if depth == 0:
        return 1
    n = generate_moves(pos, moves, GEN_ALL)
    if bulk and depth == 1:
        return n
    if depth >= 3 and stop_requested:
        return 0
    for i in range(n):
        make_move(pos, moves[i])
        total += perft(pos, depth - 1, bulk)
        unmake_move(pos)
    return total


ctypedef struct PerftEntry:
    u64 key
    u64 nodes           # leaf count << 8 | depth

cdef u64 perft_hashed(Position* pos, int depth, PerftEntry* table, u64 mask) noexcept nogil:
    """perft() with a table of subtree counts, for long correctness runs.

    Buckets of two entries: the first keeps the deeper subtree, the second
    takes whatever comes. A hit needs the full 64-bit key and the depth to
    match, so a false hit needs a 64-bit key collision. Not used for the
    speed figures.
    """
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef u64 total = 0
    cdef PerftEntry* bucket
    if depth == 0:
        return 1
    if depth == 1:
        return generate_moves(pos, moves, GEN_ALL)
    bucket = &table[(pos.key & mask) & ~(<u64>1)]
    for i in range(2):
        if bucket[i].key == pos.key and (bucket[i].nodes & 0xFF) == <u64>depth:
            return bucket[i].nodes >> 8
    if depth >= 3 and stop_requested:
        return 0
    n = generate_moves(pos, moves, GEN_ALL)
    for i in range(n):
        make_move(pos, moves[i])
        total += perft_hashed(pos, depth - 1, table, mask)
        unmake_move(pos)
    i = 0 if <u64>depth >= (bucket[0].nodes & 0xFF) else 1
    bucket[i].key = pos.key
    bucket[i].nodes = (total << 8) | <u64>depth
    return total
