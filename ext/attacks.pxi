# Attack tables: leapers by lookup, sliders by "fancy" magic bitboards.
#
# The magic multipliers are not copied from anywhere: init_magic() searched
# for them with a fixed seed, and the results are stored at the bottom of
# this file; loading checks each one and searches again if one does not fit.

ctypedef struct Magic:
    u64 mask        # relevant occupancy: the ray squares, edges excluded
    u64 magic
    u64* attacks    # this square's slice of ROOK_TABLE / BISHOP_TABLE
    int shift

cdef u64 PAWN_ATK[2][64]
cdef u64 KNIGHT_ATK[64]
cdef u64 KING_ATK[64]
cdef u64 BETWEEN[64][64]    # squares strictly between two aligned squares
cdef u64 LINE[64][64]       # the whole line through two aligned squares
cdef Magic ROOK_MAGICS[64]
cdef Magic BISHOP_MAGICS[64]
cdef u64 ROOK_TABLE[102400]
cdef u64 BISHOP_TABLE[5248]

cdef int ROOK_DIRS[4][2]
cdef int BISHOP_DIRS[4][2]
ROOK_DIRS[:] = [[1, 0], [-1, 0], [0, 1], [0, -1]]
BISHOP_DIRS[:] = [[1, 1], [1, -1], [-1, 1], [-1, -1]]


cdef inline u64 rook_attacks(int sq, u64 occ) noexcept nogil:
    cdef Magic* m = &ROOK_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline u64 bishop_attacks(int sq, u64 occ) noexcept nogil:
    cdef Magic* m = &BISHOP_MAGICS[sq]
    return m.attacks[((occ & m.mask) * m.magic) >> m.shift]

cdef inline u64 queen_attacks(int sq, u64 occ) noexcept nogil:
    return rook_attacks(sq, occ) | bishop_attacks(sq, occ)


cdef u64 ray_attacks(int sq, u64 occ, int dirs[4][2], bint edges) noexcept nogil:
    """Slow slider attacks, used only to build the tables.

    With ``edges`` false the last square of each ray is left out, which gives
    the relevant-occupancy mask of a magic.
    """
    cdef u64 result = 0
    cdef int d, f, r, nf, nr
    for d in range(4):
        f = file_of(sq)
        r = rank_of(sq)
        while True:
            nf = f + dirs[d][0]
            nr = r + dirs[d][1]
            if nf < 0 or nf > 7 or nr < 0 or nr > 7:
                break
            if not edges:
                if nf + dirs[d][0] < 0 or nf + dirs[d][0] > 7 or nr + dirs[d][1] < 0 or nr + dirs[d][1] > 7:
                    break
            f = nf
            r = nr
            result |= bit(r * 8 + f)
            if occ & bit(r * 8 + f):
                break
    return result


cdef int subsets_and_attacks(int sq, u64 mask, int dirs[4][2], u64* occs, u64* refs) noexcept nogil:
    """Every subset of ``mask`` (Carry-Rippler order) with its slider attacks."""
    cdef int size = 0
    cdef u64 b = 0
    while True:
        occs[size] = b
        refs[size] = ray_attacks(sq, b, dirs, True)
        size += 1
        b = (b - mask) & mask
        if b == 0:
            return size


cdef bint fill_magic(Magic* m, u64* table, u64* occs, u64* refs, int size, u64 magic) noexcept nogil:
    """Fill one square's table with ``magic``; false if two occupancies that
    need different attack sets collide on one index."""
    cdef int i, idx
    m.magic = magic
    for i in range(size):
        table[i] = 0                # no slider attack set is empty
    for i in range(size):
        idx = <int>((occs[i] * magic) >> m.shift)
        if table[idx] == 0:
            table[idx] = refs[i]
        elif table[idx] != refs[i]:
            return False
    return True


cdef int init_magic(int sq, Magic* m, u64* table, int dirs[4][2], u64 magic, u64* rng) noexcept nogil:
    """Set up one square with the stored multiplier, or search a new one with
    ``rng`` if it does not fit (it always fits; the search is what made it)."""
    cdef u64 occs[4096]
    cdef u64 refs[4096]
    m.mask = ray_attacks(sq, 0, dirs, False)
    m.shift = 64 - popcount(m.mask)
    m.attacks = table
    cdef int size = subsets_and_attacks(sq, m.mask, dirs, occs, refs)
    while not fill_magic(m, table, occs, refs, size, magic):
        magic = splitmix64(rng) & splitmix64(rng) & splitmix64(rng)
        while popcount((m.mask * magic) >> 56) < 6:
            magic = splitmix64(rng) & splitmix64(rng) & splitmix64(rng)
    return size


cdef void init_leapers() noexcept nogil:
    cdef int sq, d, f, r, nf, nr
    cdef int knight[8][2]
    cdef int king[8][2]
    knight[:] = [[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]]
    king[:] = [[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]]
    for sq in range(64):
        f = file_of(sq)
        r = rank_of(sq)
        KNIGHT_ATK[sq] = 0
        KING_ATK[sq] = 0
        for d in range(8):
            nf = f + knight[d][0]
            nr = r + knight[d][1]
            if 0 <= nf < 8 and 0 <= nr < 8:
                KNIGHT_ATK[sq] |= bit(nr * 8 + nf)
            nf = f + king[d][0]
            nr = r + king[d][1]
            if 0 <= nf < 8 and 0 <= nr < 8:
                KING_ATK[sq] |= bit(nr * 8 + nf)
        PAWN_ATK[WHITE][sq] = 0
        PAWN_ATK[BLACK][sq] = 0
        if r < 7:
            if f > 0:
                PAWN_ATK[WHITE][sq] |= bit(sq + 7)
            if f < 7:
                PAWN_ATK[WHITE][sq] |= bit(sq + 9)
        if r > 0:
            if f > 0:
                PAWN_ATK[BLACK][sq] |= bit(sq - 9)
            if f < 7:
                PAWN_ATK[BLACK][sq] |= bit(sq - 7)


cdef void init_lines() noexcept nogil:
    cdef int a, b
    for a in range(64):
        for b in range(64):
            BETWEEN[a][b] = 0
            LINE[a][b] = 0
            if a == b:
                continue
            if bishop_attacks(a, 0) & bit(b):
                LINE[a][b] = (bishop_attacks(a, 0) & bishop_attacks(b, 0)) | bit(a) | bit(b)
                BETWEEN[a][b] = bishop_attacks(a, bit(b)) & bishop_attacks(b, bit(a))
            elif rook_attacks(a, 0) & bit(b):
                LINE[a][b] = (rook_attacks(a, 0) & rook_attacks(b, 0)) | bit(a) | bit(b)
                BETWEEN[a][b] = rook_attacks(a, bit(b)) & rook_attacks(b, bit(a))


cdef void init_attacks(const u64* rook_magics, const u64* bishop_magics) noexcept nogil:
    cdef u64 rng = 0x4E4D4D2D6D61676B  # fixed seed: the same magics every run
    cdef int sq
    cdef int rook_used = 0, bishop_used = 0
    init_leapers()
    for sq in range(64):
        rook_used += init_magic(sq, &ROOK_MAGICS[sq], &ROOK_TABLE[rook_used], ROOK_DIRS,
                                rook_magics[sq], &rng)
        bishop_used += init_magic(sq, &BISHOP_MAGICS[sq], &BISHOP_TABLE[bishop_used], BISHOP_DIRS,
                                  bishop_magics[sq], &rng)
    init_lines()


def magic_numbers() -> tuple[list[int], list[int]]:
    """The multipliers in use, rook then bishop (to regenerate STORED_*_MAGICS)."""
    return ([ROOK_MAGICS[sq].magic for sq in range(64)],
            [BISHOP_MAGICS[sq].magic for sq in range(64)])


# Found by init_magic's seeded search (run it with all-zero stored numbers to
# see it happen); stored so that importing the module takes milliseconds.
cdef u64 STORED_ROOK_MAGICS[64]
cdef u64 STORED_BISHOP_MAGICS[64]
STORED_ROOK_MAGICS[:] = [
    0xC200120021004080, 0x0140004020001000, 0x0880082000100082, 0x0100100020080500,
    0x0100020411000800, 0x0500480400020100, 0x2180090000800200, 0x0200110404402082,
    0x040100204080010A, 0x2200400020005001, 0x0401001040200100, 0x008100210010000A,
    0x0002808004002800, 0x200A00101C480601, 0x1811000100040200, 0x0106000042108104,
    0x2080044000200044, 0x4000810021004008, 0x00E0808020001000, 0x04280A0020401200,
    0x013A020010080420, 0x44400801044010A0, 0x000404000228C110, 0x0400020008804514,
    0x4080004840002004, 0x3400842300400100, 0x2020080040401000, 0x4000080080100080,
    0x0204080080800400, 0x0006040080800200, 0x4CA010040017C802, 0x2020008200040041,
    0x0040016042800084, 0x0060201002400041, 0x0050410011002000, 0x8001002009001000,
    0x0004008008080040, 0x0082400408011020, 0x8140011084000802, 0x80100408420000A5,
    0x0000214000928000, 0x0260402010004002, 0x0219006001950040, 0x0040100104210008,
    0x0062000804120020, 0x202E0028100E0014, 0x000C0841100400A2, 0x510008408102000C,
    0x0190400020800080, 0x0211002040008100, 0x0030040800200020, 0x2010008010080080,
    0x8100080004008080, 0x8002008004000280, 0x0620013810820400, 0x0000008441340600,
    0x3000210240958202, 0x060201002180C436, 0x0104200010430901, 0x0402100004210009,
    0x2002002010080402, 0x1801000A04000803, 0x2688020810208104, 0x0080085400210082,
]
STORED_BISHOP_MAGICS[:] = [
    0x20C2080845040020, 0xE008825802002448, 0x00082204172A0023, 0x2008248904100000,
    0x0001114001101098, 0x21A088844000C000, 0x0000422820080004, 0x1842004100901000,
    0x1800048508080109, 0x208220C801004080, 0x0000880240460020, 0x00000404008C241D,
    0x0188221210000004, 0x0024220210040200, 0x0800008208200401, 0xA800010400828800,
    0x902A003410500220, 0x0842401010123083, 0x0948008580810200, 0x000810A401401020,
    0x0021000820085104, 0x6002000100610410, 0x0401000208010404, 0x0801000040425000,
    0x81020902A0085051, 0x9144021511300D00, 0x4011480210148010, 0x30010800A4004010,
    0xA00084000A020201, 0x0810010004806920, 0xC804108000680C09, 0x200402B001809C00,
    0x0002101002042081, 0x2001104800022800, 0x0102004105100904, 0x8112020080180080,
    0x2210060201082008, 0x2428880880011000, 0x4008209400408200, 0x0008020020484920,
    0x064434040400C200, 0x0804021110E9240A, 0x2008129290000800, 0x0004010401020820,
    0x0000025040400400, 0x0040080800224040, 0x0205510C04000100, 0x0110210B0A240510,
    0x5041011042A00001, 0x01210C0202020030, 0x000000208410008A, 0x0010010042020A01,
    0x2020002405041248, 0x0418081110108105, 0x0020041012004421, 0x1220018401104202,
    0x120242280C022000, 0x2000008841082041, 0x1000200022011008, 0x0084000800208800,
    0x0000001511820208, 0x010000C202140103, 0x7000042044010228, 0x1023A00801050020,
]
init_attacks(STORED_ROOK_MAGICS, STORED_BISHOP_MAGICS)
