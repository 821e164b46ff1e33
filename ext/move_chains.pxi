# Dynamic move chains: the ChessMaps search's short-term memory
# (../shared/papers/002_*.txt, sections 3, 4.2 and 6.3).
#
# A chain is a quiet move that caused a cut-off, kept for the square its
# piece moved from ("a type of killer heuristic that stores the best moves
# over the whole board"), with its follow-up: the reply that held out
# longest against it. Later, in any position where the chain's move is
# legal, the picker tries it right after the good captures; after the move
# is played, its follow-up is the reply tried first. A chain move that is
# searched and fails to raise alpha is removed at once (the paper's
# "negative update" of the short-term memory). Chains live for one game
# (ucinewgame clears them) and are never saved.

# ChainEntry and CHAIN_TRIES are in search_state.pxi (the Search holds the chains).

cdef inline bint quiet_legal(const Picker* p, Move m) noexcept nogil:
    """``m`` is one of this node's quiet moves (so legal here)."""
    return m != 0 and contains(p.moves, p.n_noisy, p.n, m)


cdef void chain_store(Search* s, int side, Move m, Move reply) noexcept nogil:
    cdef ChainEntry* e = &s.chains[side][move_from(m)]
    s.chain_clock += 1
    e.move = m
    e.reply = reply
    e.stamp = s.chain_clock


cdef void chain_forget(Search* s, int side, Move m) noexcept nogil:
    """``m`` (a chain move or a follow-up of ``side``) failed: remove it."""
    cdef int sq
    cdef ChainEntry* e = &s.chains[side][move_from(m)]
    if e.move == m:
        e.move = 0
        e.reply = 0
    for sq in range(64):            # as a follow-up of the other side's chains
        if s.chains[side ^ 1][sq].reply == m:
            s.chains[side ^ 1][sq].reply = 0


cdef int chain_moves(Search* s, const Picker* p, Move* out, bint* is_table) noexcept nogil:
    """The memory moves to try at this node: with MoveChains the follow-up of
    the move just played, then the newest chains of our pieces; with
    MoveTables the heaviest reliable table paths' first moves
    (move_tables.pxi). Legal quiet moves only, not the TT move, each once."""
    cdef const Position* pos = &s.pos
    cdef int us = pos.stm, n = 0, tried = 0, sq, best
    cdef Move prev, m
    cdef u64 b, newest, left = pos.occ[us]
    cdef ChainEntry* e
    memset(is_table, 0, (CHAIN_TRIES + 1 + MT_MAX_TRIES) * sizeof(bint))
    if not s.opt.move_chains:
        return table_moves(s, p, out, is_table, 0, s.opt.move_tables)
    if pos.hist_len > 0:
        prev = pos.hist[pos.hist_len - 1].move
        if prev:
            e = &s.chains[us ^ 1][move_from(prev)]
            if e.move == prev and quiet_legal(p, e.reply) and e.reply != p.tt_move:
                out[n] = e.reply
                n += 1
    while tried < CHAIN_TRIES:
        best = -1                   # the newest chain among our pieces not looked at yet
        newest = 0
        b = left
        while b:
            sq = pop_lsb(&b)
            if s.chains[us][sq].move and s.chains[us][sq].stamp > newest:
                newest = s.chains[us][sq].stamp
                best = sq
        if best < 0:
            break
        left &= ~bit(best)
        m = s.chains[us][best].move
        if quiet_legal(p, m) and m != p.tt_move and not (n > 0 and out[0] == m):
            out[n] = m
            n += 1
            tried += 1              # an illegal chain is skipped, not removed: it may fit later
    return table_moves(s, p, out, is_table, n, s.opt.move_tables)


cdef void chains_clear(Search* s) noexcept nogil:
    memset(s.chains, 0, sizeof(s.chains))
    s.chain_clock = 0
