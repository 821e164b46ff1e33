# The Neural MoveMap: a linear net from the board to a score for every
# from-to pair, and its encodings. The same encoding functions serve the
# search (per node, no GIL) and, through Board, the tests that compare
# them with the trainer's numpy version.

from libc.math cimport fabs
from libc.string cimport memcpy, memset

cdef enum:
    ENC_PAPER = 0           # 385 inputs: 6 units a square, +1 White piece / -1 Black; side to move
    ENC_PLANES = 1          # 769 inputs: 12 planes (colour x type), 1 if occupied; side to move
    ENC_MIRRORED = 2        # 768 inputs: 12 planes seen from the side to move (board flipped for Black)
    ENC_CONTEXT = 3         # 960 inputs: mirrored768, then three planes of context: squares the
                            # opponent attacks, our pieces left hanging, the last move's to-square
    N_ENCODINGS = 4
    N_OUTPUTS = 1792        # the from-to pairs a queen or a knight can make on an empty board
    MAX_INPUTS = 162        # 32 pieces + 64 attacked + 64 hanging (never all) + last move + side

ENCODING_NAMES = ["paper385", "planes769", "mirrored768", "context960"]
ENCODING_INPUTS = [385, 769, 768, 960]

cdef int16_t OUTPUT_INDEX[64][64]   # from, to -> output, or -1 for pairs no piece can make
cdef int8_t OUTPUT_FROM[N_OUTPUTS]
cdef int8_t OUTPUT_TO[N_OUTPUTS]

cdef enum:
    NMM_CACHE_SIZE = 1 << 14    # entries (a power of two)
    NMM_CACHE_MOVES = 64        # nodes with more quiet moves are not cached

# Iterative deepening, PVS and LMR re-searches visit the same nodes again;
# the net's scores of a node's quiet moves (in generation order) are kept
# here so that a second visit copies them instead of recomputing them.
ctypedef struct NmmCacheEntry:
    u64 key                 # position key mixed with the last move (an input of context960)
    int n
    float scores[NMM_CACHE_MOVES]

ctypedef struct NmmNet:
    int encoding
    int n_inputs
    bint binary             # every input value is 1 (the mirrored encodings): add, no multiply
    # With a hidden layer (hidden > 0; binary encodings only): h = x / (1 + |x|) of the
    # first-layer sums, kept up to date in an NmmAccumulator; a move's score is
    # bias[o] + w2[o] . h. The linear net's fields below are then unused.
    int hidden
    float* w1               # n_inputs rows of hidden: one input's weights are adjacent
    float* b1               # hidden
    float* w2               # N_OUTPUTS rows of hidden
    # The weights, quantised to 8 bits with one scale per output: scoring a move
    # reads one scattered weight per active input, and the search waits on those
    # loads; a quarter of float32's bytes is a quarter of the cache lines. The
    # shipped net's top-1 on TWIC moves from 0.2987 to 0.2983.
    int8_t* weights         # N_OUTPUTS rows of n_inputs: one output's weights are adjacent
    float* scale            # N_OUTPUTS: a row's true weights are weights[o, i] * scale[o]
    float* bias             # N_OUTPUTS (the output layer's bias, with or without a hidden layer)


cdef enum:
    NMM_MAX_HIDDEN = 128
    NMM_INPUT_WORDS = 15    # 960 inputs as bits
    NMM_REFRESH = 64        # updates between recomputations from scratch (bounds float drift)

# The hidden layer's sums for the inputs of the last position scored: the
# next position's sums are these plus the rows of the inputs that appeared,
# minus those that went (NNUE's accumulator, here brought from whichever
# position the net saw last, as the TD evaluation's sums are).
ctypedef struct NmmAccumulator:
    u64 bits[NMM_INPUT_WORDS]
    float sums[NMM_MAX_HIDDEN]
    int updates
    bint valid


cdef void init_outputs() noexcept nogil:
    cdef int frm, to, n = 0
    for frm in range(64):
        for to in range(64):
            OUTPUT_INDEX[frm][to] = -1
            if frm != to and ((queen_attacks(frm, 0) | KNIGHT_ATK[frm]) & bit(to)):
                OUTPUT_INDEX[frm][to] = n
                OUTPUT_FROM[n] = frm
                OUTPUT_TO[n] = to
                n += 1

init_outputs()


cdef int nmm_inputs(const Position* pos, int encoding, int* idx, float* val) noexcept nogil:
    """The active inputs of ``pos`` (index and value); returns how many."""
    cdef int n = 0, piece, sq, color, ptype, us = pos.stm, flip = 56 * pos.stm
    cdef u64 b = pos.all, enemy_attacks, hanging
    while b:
        sq = pop_lsb(&b)
        piece = pos.board[sq]
        color = piece_color(piece)
        ptype = piece_type(piece)
        if encoding == ENC_PAPER:
            idx[n] = sq * 6 + ptype
            val[n] = 1.0 if color == WHITE else -1.0
        elif encoding == ENC_PLANES:
            idx[n] = color * 384 + ptype * 64 + sq
            val[n] = 1.0
        else:
            # From the mover's side: own pieces are colour 0, and Black's board is flipped.
            idx[n] = (color ^ us) * 384 + ptype * 64 + (sq ^ flip)
            val[n] = 1.0
        n += 1
    if encoding == ENC_PAPER or encoding == ENC_PLANES:
        idx[n] = 384 if encoding == ENC_PAPER else 768
        val[n] = 1.0 if us == WHITE else -1.0
        n += 1
    elif encoding == ENC_CONTEXT:
        enemy_attacks = attacks_by(pos, us ^ 1)
        hanging = pos.occ[us] & enemy_attacks & ~attacks_by(pos, us)
        n = add_plane(idx, val, n, enemy_attacks, 768, flip)
        n = add_plane(idx, val, n, hanging, 832, flip)
        sq = last_move_to(pos)
        if sq >= 0:
            idx[n] = 896 + (sq ^ flip)
            val[n] = 1.0
            n += 1
    return n


cdef inline int add_plane(int* idx, float* val, int n, u64 squares, int base, int flip) noexcept nogil:
    while squares:
        idx[n] = base + (pop_lsb(&squares) ^ flip)
        val[n] = 1.0
        n += 1
    return n


cdef inline int last_move_to(const Position* pos) noexcept nogil:
    """Where the last move went (castling: the king's square); -1 if unknown."""
    cdef Move m
    cdef int frm, to
    if pos.hist_len == 0 or pos.hist[pos.hist_len - 1].move == 0:
        return -1
    m = pos.hist[pos.hist_len - 1].move
    frm = move_from(m)
    to = move_to(m)
    if move_flag(m) == F_CASTLE:
        to = castle_king_to((WK if to > frm else WQ) << (2 * (pos.stm ^ 1)))
    return to


cdef inline void move_pair(const Position* pos, Move m, int* frm, int* to) noexcept nogil:
    """The from-to pair a net knows ``m`` by: castling is the king's two squares,
    or the rook's when the king stays (as Chess960 allows); a promotion is its
    pawn's pair."""
    cdef int right
    frm[0] = move_from(m)
    to[0] = move_to(m)
    if move_flag(m) == F_CASTLE:
        right = (WK if to[0] > frm[0] else WQ) << (2 * pos.stm)
        if castle_king_to(right) != frm[0]:
            to[0] = castle_king_to(right)
        else:
            frm[0], to[0] = to[0], castle_rook_to(right)


cdef inline int nmm_output(const Position* pos, int encoding, Move m) noexcept nogil:
    """The output scoring ``m``: its from-to pair (move_pair), flipped for Black
    in the mirrored encoding."""
    cdef int frm, to
    move_pair(pos, m, &frm, &to)
    if (encoding == ENC_MIRRORED or encoding == ENC_CONTEXT) and pos.stm == BLACK:
        frm ^= 56
        to ^= 56
    return OUTPUT_INDEX[frm][to]


cdef inline float nmm_score(const NmmNet* net, const int* idx, const float* val, int n,
                            int output) noexcept nogil:
    cdef const int8_t* row = &net.weights[output * net.n_inputs]
    cdef int acc = 0
    cdef float total = 0
    cdef int k
    if net.binary:
        for k in range(n):
            acc += row[idx[k]]
        total = acc
    else:
        for k in range(n):
            total += val[k] * row[idx[k]]
    return net.bias[output] + total * net.scale[output]


cdef void nmm_hidden_layer(const NmmNet* net, NmmAccumulator* acc, const int* idx, int n,
                           float* h) noexcept nogil:
    """The hidden activations for the active inputs ``idx`` (binary encodings)."""
    cdef u64 bits[NMM_INPUT_WORDS]
    cdef u64 diff
    cdef int w, k, j, H = net.hidden, changes = 0
    cdef const float* row
    cdef float* sums = acc.sums
    memset(bits, 0, sizeof(bits))
    for k in range(n):
        bits[idx[k] >> 6] |= bit(idx[k] & 63)
    if acc.valid and acc.updates < NMM_REFRESH:
        for w in range(NMM_INPUT_WORDS):
            changes += popcount(bits[w] ^ acc.bits[w])
    if not acc.valid or acc.updates >= NMM_REFRESH or changes > n:
        memcpy(sums, net.b1, H * sizeof(float))         # from scratch: cheaper, or due
        for k in range(n):
            row = &net.w1[idx[k] * H]
            for j in range(H):
                sums[j] += row[j]
        acc.updates = 0
        acc.valid = True
    else:
        for w in range(NMM_INPUT_WORDS):
            diff = bits[w] ^ acc.bits[w]
            while diff:
                k = pop_lsb(&diff)
                row = &net.w1[(w * 64 + k) * H]
                if bits[w] & bit(k):
                    for j in range(H):
                        sums[j] += row[j]
                else:
                    for j in range(H):
                        sums[j] -= row[j]
        acc.updates += 1
    memcpy(acc.bits, bits, sizeof(bits))
    for j in range(H):
        h[j] = sums[j] / (1 + fabs(sums[j]))


cdef inline float nmm_hidden_score(const NmmNet* net, const float* h, int output) noexcept nogil:
    cdef const float* row = &net.w2[output * net.hidden]
    cdef float total = 0
    cdef int j
    for j in range(net.hidden):
        total += row[j] * h[j]
    return net.bias[output] + total


cdef void nmm_move_scores(const NmmNet* net, NmmAccumulator* acc, const Position* pos,
                          const Move* moves, int n_moves, float* out) noexcept nogil:
    """The net's score of each of ``moves`` at ``pos`` (``acc``: the hidden layer's sums)."""
    cdef int idx[MAX_INPUTS]
    cdef float val[MAX_INPUTS]
    cdef float h[NMM_MAX_HIDDEN]
    cdef int n = nmm_inputs(pos, net.encoding, idx, val), i
    if net.hidden:
        nmm_hidden_layer(net, acc, idx, n, h)
        for i in range(n_moves):
            out[i] = nmm_hidden_score(net, h, nmm_output(pos, net.encoding, moves[i]))
    else:
        for i in range(n_moves):
            out[i] = nmm_score(net, idx, val, n, nmm_output(pos, net.encoding, moves[i]))


def quantise_rows(weights):
    """(int8 weights, float32 scale per row) with weights ~= q * scale[:, None].

    >>> import numpy as np
    >>> q, scale = quantise_rows(np.array([[0.5, -1.0], [0.0, 0.0]], np.float32))
    >>> q.tolist(), (scale * 127).round(3).tolist()
    ([[64, -127], [0, 0]], [1.0, 127.0])
    """
    import numpy as np
    weights = np.asarray(weights, np.float32)
    top = np.abs(weights).max(axis=1)
    scale = np.where(top > 0, top / 127.0, 1.0).astype(np.float32)
    q = np.rint(weights / scale[:, None]).astype(np.int8)
    return np.ascontiguousarray(q), scale


cdef u64 attacks_by(const Position* pos, int color) noexcept nogil:
    """Every square ``color`` attacks (pieces through nothing, pawns diagonally)."""
    cdef u64 result = 0, b = pos.occ[color]
    cdef int sq, ptype
    while b:
        sq = pop_lsb(&b)
        ptype = piece_type(pos.board[sq])
        if ptype == PAWN:
            result |= PAWN_ATK[color][sq]
        elif ptype == KNIGHT:
            result |= KNIGHT_ATK[sq]
        elif ptype == BISHOP:
            result |= bishop_attacks(sq, pos.all)
        elif ptype == ROOK:
            result |= rook_attacks(sq, pos.all)
        elif ptype == QUEEN:
            result |= queen_attacks(sq, pos.all)
        else:
            result |= KING_ATK[sq]
    return result


def attack_maps(const uint8_t[:, ::1] boards, const uint8_t[::1] stm):
    """For each (64-square board, side to move), three bitboards: the squares
    the side to move attacks, those the opponent attacks, and those the
    opponent's pawns attack."""
    import numpy as np
    cdef Py_ssize_t n = boards.shape[0], i
    cdef int sq, them
    out = np.zeros((n, 3), np.uint64)
    cdef u64[:, ::1] o = out
    cdef Position pos
    with nogil:
        for i in range(n):
            pos.all = 0
            pos.occ[0] = 0
            pos.occ[1] = 0
            for sq in range(12):
                pos.pieces[sq] = 0
            for sq in range(64):
                pos.board[sq] = boards[i, sq]
                if boards[i, sq] != EMPTY:
                    pos.pieces[boards[i, sq]] |= bit(sq)
                    pos.occ[boards[i, sq] // 6] |= bit(sq)
                    pos.all |= bit(sq)
            them = stm[i] ^ 1
            o[i, 0] = attacks_by(&pos, stm[i])
            o[i, 1] = attacks_by(&pos, them)
            o[i, 2] = pawn_attacks_bb(pos.pieces[PAWN + 6 * them], them)
    return out
