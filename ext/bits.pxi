# Basic types and bit tricks shared by every other file of the core.
#
# Squares are 0..63 with a1 = 0, b1 = 1, ..., h8 = 63. A bitboard is a u64 with
# bit ``sq`` set for each square in the set.

from libc.stdint cimport uint64_t, uint32_t, uint16_t, int16_t, int8_t, uint8_t

ctypedef uint64_t u64
ctypedef uint16_t Move          # from | to << 6 | flag << 12; 0 is "no move"

cdef extern from *:
    """
    static inline int nmm_lsb(unsigned long long b) { return __builtin_ctzll(b); }
    static inline int nmm_msb(unsigned long long b) { return 63 - __builtin_clzll(b); }
    static inline int nmm_popcount(unsigned long long b) { return __builtin_popcountll(b); }
    """
    int lsb "nmm_lsb"(u64 b) noexcept nogil
    int msb "nmm_msb"(u64 b) noexcept nogil
    int popcount "nmm_popcount"(u64 b) noexcept nogil

cdef enum:
    WHITE = 0
    BLACK = 1

cdef enum:
    PAWN = 0
    KNIGHT = 1
    BISHOP = 2
    ROOK = 3
    QUEEN = 4
    KING = 5

# A piece is type + 6 * colour (0..11); EMPTY marks an empty square.
cdef enum:
    EMPTY = 12

# Move flags (bits 12..15 of a Move).
cdef enum:
    F_NORMAL = 0
    F_DOUBLE = 1          # pawn double push
    F_CASTLE = 2          # king "captures" its own rook: to = rook square
    F_EN_PASSANT = 3
    F_PROMO = 4           # F_PROMO + (piece type - KNIGHT): 4..7 = N, B, R, Q

# Castling rights, one bit each; castle_rook[] gives the rook square of each.
cdef enum:
    WK = 1
    WQ = 2
    BK = 4
    BQ = 8

cdef enum:
    # Room for every legal move of any position set_fen accepts. It checks the
    # piece counts a game can reach (at most 16 pieces and 8 pawns a side, one
    # promotion per missing pawn), so the most a side can have is a king,
    # nine queens, two rooks, two bishops and two knights: at most
    # 8 + 2 (castling) + 9 * 27 + 2 * 14 + 2 * 13 + 2 * 8 = 323 moves. The
    # proven maximum for positions reachable in a game is 218.
    MAX_MOVES = 324
    MAX_PLY = 128         # deepest search ply; the history keeps room for it


cdef inline u64 bit(int sq) noexcept nogil:
    return (<u64>1) << sq

cdef inline int pop_lsb(u64* b) noexcept nogil:
    cdef int sq = lsb(b[0])
    b[0] &= b[0] - 1
    return sq

cdef inline int more_than_one(u64 b) noexcept nogil:
    return (b & (b - 1)) != 0

cdef inline int file_of(int sq) noexcept nogil:
    return sq & 7

cdef inline int rank_of(int sq) noexcept nogil:
    return sq >> 3

cdef inline int make_piece(int color, int ptype) noexcept nogil:
    return ptype + 6 * color

cdef inline int piece_type(int piece) noexcept nogil:
    return piece % 6

cdef inline int piece_color(int piece) noexcept nogil:
    return piece // 6

cdef inline Move encode_move(int frm, int to, int flag) noexcept nogil:
    return <Move>(frm | (to << 6) | (flag << 12))

cdef inline int move_from(Move m) noexcept nogil:
    return m & 63

cdef inline int move_to(Move m) noexcept nogil:
    return (m >> 6) & 63

cdef inline int move_flag(Move m) noexcept nogil:
    return m >> 12

cdef inline bint contains(const Move* moves, int start, int end, Move m) noexcept nogil:
    """Whether ``m`` is among ``moves[start..end)``."""
    cdef int i
    for i in range(start, end):
        if moves[i] == m:
            return True
    return False

cdef inline int promo_type(Move m) noexcept nogil:
    """Piece type a promotion creates (only meaningful when flag >= F_PROMO)."""
    return (m >> 12) - F_PROMO + KNIGHT

cdef inline int relative_sq(int color, int sq) noexcept nogil:
    """Mirror a square vertically for Black: relative_sq(BLACK, g1) == g8."""
    return sq ^ (56 * color)


# splitmix64: a small, good, seedable generator for Zobrist keys and magics.
cdef inline u64 splitmix64(u64* state) noexcept nogil:
    state[0] += <u64>0x9E3779B97F4A7C15
    cdef u64 z = state[0]
    z = (z ^ (z >> 30)) * <u64>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <u64>0x94D049BB133111EB
    return z ^ (z >> 31)


# One flag that asks long jobs (perft, search) in the worker thread to return.
# It is volatile so the C compiler rereads it in loops; a plain int store from
# the reader thread is enough to set it.
cdef extern from *:
    """
    static volatile int nmm_stop_requested = 0;
    """
    int stop_requested "nmm_stop_requested"


def request_stop() -> None:
    """Ask a running perft or search to return as soon as it can."""
    global stop_requested
    stop_requested = 1


def clear_stop() -> None:
    global stop_requested
    stop_requested = 0
