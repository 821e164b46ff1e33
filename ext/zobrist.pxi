# Zobrist keys. make_move() updates the key incrementally; compute_key()
# recomputes it from scratch, which the tests compare against.

cdef u64 Z_PIECE[12][64]
cdef u64 Z_CASTLING[16]     # one key per combination of the four rights
cdef u64 Z_EP_FILE[8]
cdef u64 Z_SIDE             # xor-ed in when Black is to move


cdef void init_zobrist() noexcept nogil:
    cdef u64 rng = 0x5A6F627269737421  # fixed seed: keys are stable across runs
    cdef int p, sq, i
    for p in range(12):
        for sq in range(64):
            Z_PIECE[p][sq] = splitmix64(&rng)
    for i in range(8):
        Z_EP_FILE[i] = splitmix64(&rng)
    global Z_SIDE
    Z_SIDE = splitmix64(&rng)
    # Castling keys are built from one key per right so that incremental
    # updates (xor out old rights, xor in new) agree with a recompute.
    cdef u64 single[4]
    for i in range(4):
        single[i] = splitmix64(&rng)
    for i in range(16):
        Z_CASTLING[i] = 0
        for p in range(4):
            if i & (1 << p):
                Z_CASTLING[i] ^= single[p]

init_zobrist()


cdef u64 compute_key(const Position* pos) noexcept nogil:
    cdef u64 key = 0
    cdef int sq
    for sq in range(64):
        if pos.board[sq] != EMPTY:
            key ^= Z_PIECE[pos.board[sq]][sq]
    key ^= Z_CASTLING[pos.castling]
    if pos.ep >= 0:
        key ^= Z_EP_FILE[file_of(pos.ep)]
    if pos.stm == BLACK:
        key ^= Z_SIDE
    return key
