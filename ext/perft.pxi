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

    A hit needs the full 64-bit key and the depth to match, so a false hit
    needs a 64-bit key collision. Not used for the speed figures.
    """
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    cdef u64 total = 0
    cdef PerftEntry* entry
    if depth == 0:
        return 1
    n = generate_moves(pos, moves, GEN_ALL)
    if depth == 1:
        return n
    if depth >= 3 and stop_requested:
        return 0
    entry = &table[pos.key & mask]
    if entry.key == pos.key and (entry.nodes & 0xFF) == <u64>depth:
        return entry.nodes >> 8
    for i in range(n):
        make_move(pos, moves[i])
        total += perft_hashed(pos, depth - 1, table, mask)
        unmake_move(pos)
    entry.key = pos.key
    entry.nodes = (total << 8) | <u64>depth
    return total
