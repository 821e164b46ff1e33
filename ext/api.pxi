# The Python face of the core: a small Board class for tests, tools and the
# UCI loop. Nothing here runs per node.

from libc.stdlib cimport calloc, free, malloc


cdef class Board:
    """A chess position with its move history.

    >>> board = Board()
    >>> len(board.legal_moves())
    20
    >>> board.push("e2e4")
    >>> board.fen()
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
    >>> board.perft(3)
    13160
    """
    cdef Position pos

    def __init__(self, fen: str = STARTING_FEN, chess960: bool = False):
        self.pos.chess960 = chess960
        set_fen(&self.pos, fen)

    # --- state -------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Replace the position (and clear the history); ValueError if broken.

        On error the board keeps its previous position.
        """
        set_fen(&self.pos, fen)

    def fen(self) -> str:
        return get_fen(&self.pos)

    def copy(self) -> Board:
        cdef Board other = Board.__new__(Board)
        other.pos = self.pos
        return other

    @property
    def chess960(self) -> bool:
        return bool(self.pos.chess960)

    @chess960.setter
    def chess960(self, value: bool) -> None:
        self.pos.chess960 = bool(value)

    @property
    def standard_castling(self) -> bool:
        """Every castling right is a king on e1/e8 with a rook in the corner:
        castling can be written e1g1 without ambiguity."""
        cdef int right, color
        for right in (WK, WQ, BK, BQ):
            if not (self.pos.castling & right):
                continue
            color = WHITE if right in (WK, WQ) else BLACK
            if self.pos.king[color] != relative_sq(color, 4) or \
                    self.pos.castle_rook[castle_index(right)] != relative_sq(color, 7 if right in (WK, BK) else 0):
                return False
        return True

    @property
    def turn(self) -> str:
        """'w' or 'b'."""
        return "wb"[self.pos.stm]

    @property
    def phase(self) -> int:
        """Material phase: 24 with every piece on, 0 with pawns and kings only
        (knight and bishop 1, rook 2, queen 4; capped at 24)."""
        return game_phase(&self.pos)

    @property
    def home(self) -> int:
        """How many of the 32 men stand on their starting squares: the TD nets'
        development clock (32 at the start).

        >>> Board().home, Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1").home
        (32, 2)
        """
        return home_count(&self.pos)

    @property
    def fullmove(self) -> int:
        return self.pos.fullmove

    @property
    def ply(self) -> int:
        """Moves pushed since the last set_fen (that can still be popped)."""
        return self.pos.hist_len

    def zobrist(self) -> int:
        """The incrementally updated 64-bit key."""
        return self.pos.key

    def zobrist_recomputed(self) -> int:
        """The key computed from scratch; always equals zobrist()."""
        return compute_key(&self.pos)

    # --- moves -------------------------------------------------------------

    cdef list _moves(self, int kind):
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.pos, moves, kind)
        return [moves[i] for i in range(n)]

    def legal_moves(self) -> list[str]:
        """Every legal move in UCI notation, in generation order."""
        return [move_to_uci(&self.pos, m) for m in self._moves(GEN_ALL)]

    def check_candidates(self) -> list[str]:
        """The quiet moves quiescence's quiet-check filter lets through
        (QSearchChecks): every quiet move that gives check, and some that do
        not.

        >>> Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1").check_candidates()
        ['a1a8']
        """
        return [move_to_uci(&self.pos, m) for m in self._moves(GEN_QUIET) if may_give_check(&self.pos, m)]

    cdef Move _parse(self, str uci) except? 0:
        """The legal move a UCI string names; 0 if none.

        Castling is accepted both as e1g1 and as king-takes-rook (e1h1), in
        either mode, and the promotion letter in either case. No strings are built: this runs for every move of every
        ``position`` command.
        """
        cdef Move moves[MAX_MOVES]
        cdef int n, i, frm, to, promo = 0, m_to
        cdef Move m
        if not 4 <= len(uci) <= 5 or uci[0] not in FILE_CHARS or uci[2] not in FILE_CHARS \
                or uci[1] not in "12345678" or uci[3] not in "12345678":
            return 0
        frm = FILE_CHARS.index(uci[0]) + 8 * (ord(uci[1]) - ord("1"))
        to = FILE_CHARS.index(uci[2]) + 8 * (ord(uci[3]) - ord("1"))
        if len(uci) == 5:
            if uci[4] not in "nbrqNBRQ":        # some GUIs send e7e8Q
                return 0
            promo = "nbrq".index(uci[4].lower()) + KNIGHT
        n = generate_from(&self.pos, moves, GEN_ALL, bit(frm))     # the one man's moves
        for i in range(n):
            m = moves[i]
            m_to = move_to(m)
            if move_flag(m) == F_CASTLE:
                if promo == 0 and (to == m_to or to == castle_king_to(
                        (WK if m_to > frm else WQ) << (2 * self.pos.stm))):
                    return m
            elif m_to == to and (promo_type(m) if move_flag(m) >= F_PROMO else 0) == promo:
                return m
        return 0

    def is_legal(self, uci: str) -> bool:
        return self._parse(uci) != 0

    def push(self, uci: str) -> None:
        """Play a move given in UCI notation; ValueError if it is not legal."""
        cdef Move m = self._parse(uci)
        if m == 0:
            raise ValueError(f"illegal move {uci!r} in {self.fen()}")
        if self.pos.hist_len >= HISTORY_CAP - MAX_PLY - 8:
            compact_history(&self.pos)
        make_move(&self.pos, m)

    def pop(self) -> str:
        """Take back the last move and return it; IndexError if there is none."""
        if self.pos.hist_len == 0:
            raise IndexError("no move to take back")
        unmake_move(&self.pos)
        return move_to_uci(&self.pos, self.pos.hist[self.pos.hist_len].move)

    def pattern(self) -> tuple[bytes, int, bytes, int, int, int, int]:
        """The position as training data: (64 piece codes a1..h8, 12 = empty),
        side to move (0 White, 1 Black), legal moves as (from, to, promotion)
        byte triples, castling rights (WK 1, WQ 2, BK 4, BQ 8), the en-passant
        square or -1, the 50-move counter, and the last move's to-square (or
        -1 if it is not known). Castling moves are given as the
        king's from and destination squares (the rook's, in Chess960, when
        the king does not move: the same pair the net scores it by); promotion is 0 or the piece type
        (1 knight .. 4 queen)."""
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.pos, moves, GEN_ALL), i, frm, to
        cdef bytearray legal = bytearray(3 * n)
        for i in range(n):
            move_pair(&self.pos, moves[i], &frm, &to)
            legal[3 * i] = frm
            legal[3 * i + 1] = to
            legal[3 * i + 2] = promo_type(moves[i]) if move_flag(moves[i]) >= F_PROMO else 0
        return (bytes([self.pos.board[i] for i in range(64)]), self.pos.stm, bytes(legal),
                self.pos.castling, self.pos.ep, self.pos.halfmove, last_move_to(&self.pos))

    def nmm_inputs(self, encoding: str) -> list[tuple[int, float]]:
        """The Neural MoveMap's active inputs here: (index, value) pairs."""
        cdef int idx[MAX_INPUTS]
        cdef float val[MAX_INPUTS]
        cdef int n = nmm_inputs(&self.pos, ENCODING_NAMES.index(encoding), idx, val)
        return [(idx[i], val[i]) for i in range(n)]

    def nmm_outputs(self, encoding: str) -> list[tuple[str, int]]:
        """Each legal move with the net output that scores it."""
        cdef int enc = ENCODING_NAMES.index(encoding)
        return [(move_to_uci(&self.pos, m), nmm_output(&self.pos, enc, m))
                for m in self._moves(GEN_ALL)]

    def td_features(self, squares: str = "A") -> tuple[list[float], list[int]]:
        """The TD evaluation's inputs here: set A's numbers and the active
        square inputs of set ``squares`` ("A": none, "B": kings and pawns,
        "C": all pieces), all from the side to move's view.

        >>> values, active = Board().td_features("B")
        >>> values[:5], len(active)         # our Q, R, B, N, P; 2 kings + 16 pawns
        ([1.0, 2.0, 2.0, 2.0, 8.0], 18)
        """
        cdef float f[FEATURES_A]
        cdef int idx[MAX_ACTIVE]
        cdef int n = 0
        features_a(&self.pos, f)
        if squares != "A":
            n = active_squares(&self.pos, square_set(squares) == 2, idx)
        return [f[i] for i in range(FEATURES_A)], sorted(idx[i] for i in range(n))

    def move_classes(self) -> dict[str, tuple[str, ...]]:
        """Every legal move's ChessMaps classes (move_classes.pxi): any of
        "capture", "forced", "forcing", "unsafe"; none is a safe other move.

        >>> Board("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1").move_classes()["c3d5"]
        ('capture',)
        >>> Board("4k3/8/8/3p4/8/2N5/8/4K3 w - - 0 1").move_classes()["c3b5"]
        ()
        """
        cdef Move moves[MAX_MOVES]
        cdef int n = generate_moves(&self.pos, moves, GEN_ALL), i, flags
        cdef u64 hanging = en_prise(&self.pos, self.pos.stm)
        found = {}
        for i in range(n):
            flags = move_class(&self.pos, moves[i], hanging)
            found[move_to_uci(&self.pos, moves[i])] = tuple(name for bit_, name in MOVE_CLASS_NAMES.items()
                                                             if flags & bit_)
        return found

    def control_gain(self, uci: str, weights=None) -> int:
        """How much square control the move's piece gains, each square weighted
        by ``weights`` (64 of 0..15, a1..h8; LabSearcher.region_weights) or the hand rule."""
        cdef Move m = self._parse(uci)
        cdef int w[64]
        cdef SquareWeights planes
        cdef int i
        if not m:
            raise ValueError(f"illegal move {uci!r}")
        if weights is None:
            hand_regions(&self.pos, &planes)
        else:
            if len(weights) != 64 or not all(0 <= x <= SQUARE_WEIGHT_MAX for x in weights):
                raise ValueError(f"64 weights of 0..{SQUARE_WEIGHT_MAX}, a1..h8")
            for i in range(64):
                w[i] = weights[i]
            weights_from_ints(w, &planes)
        return control_gain(&self.pos, m, &planes)

    def region_inputs(self) -> list[int]:
        """The regions net's active inputs here (ext/regions.pxi), ascending."""
        cdef int active[REGION_MAX_ACTIVE]
        cdef int n = region_inputs(&self.pos, active)
        return sorted(active[i] for i in range(n))

    def square_control(self) -> list[int]:
        """Per square a1..h8: 1 where White controls it, -1 where Black does, 0 where neither."""
        cdef int8_t owner[64]
        square_control(&self.pos, owner)
        return [owner[i] for i in range(64)]

    # --- game state ----------------------------------------------------------

    def is_check(self) -> bool:
        return in_check(&self.pos)

    def is_checkmate(self) -> bool:
        return in_check(&self.pos) and not has_legal_move(&self.pos)

    def is_stalemate(self) -> bool:
        return not in_check(&self.pos) and not has_legal_move(&self.pos)

    def is_insufficient_material(self) -> bool:
        return insufficient_material(&self.pos)

    def is_fifty_moves(self) -> bool:
        """50 moves by each side without capture or pawn move (and not mate)."""
        return self.pos.halfmove >= 100 and has_legal_move(&self.pos)

    def is_repetition(self, count: int = 3) -> bool:
        """Has the current position occurred ``count`` times (this one included)?"""
        return repetitions(&self.pos) + 1 >= count

    def outcome(self) -> str | None:
        """Why the game is over ('checkmate', 'stalemate', 'insufficient material',
        'fifty moves', 'threefold repetition'), or None while it goes on."""
        if not has_legal_move(&self.pos):
            return "checkmate" if in_check(&self.pos) else "stalemate"
        if insufficient_material(&self.pos):
            return "insufficient material"
        if self.pos.halfmove >= 100:
            return "fifty moves"
        if repetitions(&self.pos) >= 2:
            return "threefold repetition"
        return None

    # --- perft ---------------------------------------------------------------

    def perft(self, depth: int, bulk: bool = True) -> int:
        """Leaf count of the legal-move tree ``depth`` plies deep (GIL released)."""
        cdef int d = depth
        cdef bint b = bulk
        cdef u64 n
        if d < 0:
            raise ValueError("depth must be >= 0")
        with nogil:
            n = perft(&self.pos, d, b)
        return n

    def perft_hashed(self, depth: int, hash_mb: int = 64) -> int:
        """perft() with a table of subtree counts (faster on deep suites)."""
        cdef int d = depth
        cdef u64 entries = 1, n
        if d < 0:
            raise ValueError("depth must be >= 0")
        while entries * 2 * sizeof(PerftEntry) <= <u64>hash_mb * 1024 * 1024:
            entries *= 2
        cdef PerftEntry* table = <PerftEntry*>calloc(entries, sizeof(PerftEntry))
        if table == NULL:
            raise MemoryError
        try:
            with nogil:
                n = perft_hashed(&self.pos, d, table, entries - 1)
        finally:
            free(table)
        return n

    def divide(self, depth: int, bulk: bool = True):
        """Yield (move, leaf count) for each root move, like Stockfish's ``go perft``."""
        cdef int d = depth
        cdef bint b = bulk
        cdef u64 n
        if d < 1:
            raise ValueError("depth must be >= 1")
        for m in self._moves(GEN_ALL):
            uci = move_to_uci(&self.pos, m)
            make_move(&self.pos, m)
            with nogil:
                n = perft(&self.pos, d - 1, b)
            unmake_move(&self.pos)
            yield uci, n

    def __str__(self) -> str:
        rows = []
        for rank in range(7, -1, -1):
            cells = [PIECE_CHARS[p] if p != EMPTY else "." for p in
                     (self.pos.board[rank * 8 + f] for f in range(8))]
            rows.append(f"{rank + 1}  " + " ".join(cells))
        rows.append("   a b c d e f g h")
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"


def square_set(name: str) -> int:
    """0, 1, 2 for the TD feature sets "A", "B", "C"; ValueError otherwise."""
    if name not in ("A", "B", "C"):
        raise ValueError(f"unknown feature set {name!r} (A, B or C)")
    return "ABC".index(name)


TD_SQUARE_INPUTS = {"A": 0, "B": SQUARES_B, "C": SQUARES_C}
TD_FEATURES_A = FEATURES_A


_GEN_KINDS = {"all": GEN_ALL, "noisy": GEN_NOISY, "quiet": GEN_QUIET}


def legal_move_codes(Board board, str kind="all", bint by_check=False) -> list[int]:
    """This position's legal moves of ``kind`` as 16-bit codes, sorted: as
    generated, or (``by_check``) every one of the 65,536 codes that the
    search's single-move test (is_legal, which checks a table's move) passes.
    For tests: the two lists must be the same.

    >>> legal_move_codes(Board(), by_check=True) == legal_move_codes(Board())
    True
    """
    cdef Move moves[MAX_MOVES]
    cdef int k = _GEN_KINDS[kind], n, code
    if by_check:
        return [code for code in range(1 << 16) if is_legal(&board.pos, <Move>code, k)]
    n = generate_moves(&board.pos, moves, k)
    return sorted(moves[i] for i in range(n))


def exchanges(Board board) -> dict:
    """Each legal move's static exchange in centipawns (see.pxi): for tests.

    >>> exchanges(Board("4k3/8/3p4/4p3/8/8/4R3/4K3 w - - 0 1"))["e2e5"]
    -400
    """
    cdef Move moves[MAX_MOVES]
    cdef int n = generate_moves(&board.pos, moves, GEN_ALL), i
    return {move_to_uci(&board.pos, moves[i]): see(&board.pos, moves[i]) for i in range(n)}


cdef bint is_quiet(Position* pos) noexcept nogil:
    """Not in check and no capture or promotion that wins material (static
    exchange > 0): a position whose static value a search would stand on."""
    cdef Move moves[MAX_MOVES]
    cdef int n, i
    if in_check(pos):
        return False
    n = generate_moves(pos, moves, GEN_NOISY)
    for i in range(n):
        if see(pos, moves[i]) > 0:
            return False
    return True


cdef void fill_row(Position* pos, int which, float* dense, int16_t* active, uint8_t* stm,
                   uint8_t* phase, int16_t* hand) noexcept nogil:
    """One training row: the TD inputs of ``pos`` and what the trainer needs beside them."""
    cdef int idx[MAX_ACTIVE]
    cdef int k, count
    features_a(pos, dense)
    if which:
        count = active_squares(pos, which == 2, idx)
        for k in range(count):
            active[k] = idx[k]
    stm[0] = pos.stm
    phase[0] = game_phase(pos)
    hand[0] = max(-32000, min(32000, evaluate(pos, NULL)))


def replay_features(str fen, list moves, str squares, bint chess960=False):
    """Play ``moves`` from ``fen`` and return, for the position before each
    move and the one after the last, the TD inputs and what the trainer needs
    beside them, as numpy arrays:

    dense (n, FEATURES_A) float32, active (n, 32) int16 padded with -1,
    stm (n,) uint8 (0 White), phase (n,) uint8 (0..24, see game_phase),
    hand (n,) int16 (the handwritten evaluation, side to move's view, cp),
    quiet (n,) uint8 (see is_quiet).

    ValueError if a move is illegal.
    """
    import numpy as np
    cdef Board board = Board(fen, chess960)
    cdef Py_ssize_t n = len(moves) + 1, i
    cdef int which = square_set(squares)
    dense = np.zeros((n, FEATURES_A), np.float32)
    active = np.full((n, MAX_ACTIVE), -1, np.int16)
    stm = np.zeros(n, np.uint8)
    phase = np.zeros(n, np.uint8)
    hand = np.zeros(n, np.int16)
    quiet = np.zeros(n, np.uint8)
    cdef uint8_t[::1] q = quiet
    cdef float[:, ::1] d = dense
    cdef int16_t[:, ::1] a = active
    cdef uint8_t[::1] s = stm
    cdef uint8_t[::1] ph = phase
    cdef int16_t[::1] h = hand
    for i in range(n):
        if i > 0:
            board.push(moves[i - 1])        # ValueError if illegal
        fill_row(&board.pos, which, &d[i, 0], &a[i, 0], &s[i], &ph[i], &h[i])
        q[i] = is_quiet(&board.pos)
    return dense, active, stm, phase, hand, quiet




def material_variants(str fen, list moves, str squares, int every, u64 seed):
    """Positions of a game with one piece taken off: material imbalances that
    master games rarely hold for long, but that a search meets at every turn.

    For every ``every``-th position of the game (before each move and after
    the last) that is quiet, one of its pieces other than the kings, drawn by
    ``seed``, is removed; the variant is kept if it is legal (the side not to
    move is not in check) and quiet. Returns dense, active, stm, phase, hand
    as replay_features does, and fullmove (n,) uint16, for the variants kept.
    """
    cdef Board board = Board(fen)
    cdef int which = square_set(squares)
    cdef Position* var = <Position*>malloc(sizeof(Position))    # too big for the stack
    if var == NULL:
        raise MemoryError
    try:
        return _variants(board, moves, which, every, seed, var)
    finally:
        free(var)


cdef _variants(Board board, list moves, int which, int every, u64 seed, Position* var):
    import numpy as np
    cdef Py_ssize_t total = len(moves) + 1, i, k, n = 0
    cdef int pieces, pick
    cdef u64 state, b
    dense = np.zeros((total, FEATURES_A), np.float32)
    active = np.full((total, MAX_ACTIVE), -1, np.int16)
    stm = np.zeros(total, np.uint8)
    phase = np.zeros(total, np.uint8)
    hand = np.zeros(total, np.int16)
    fullmove = np.zeros(total, np.uint16)
    cdef float[:, ::1] d = dense
    cdef int16_t[:, ::1] a = active
    cdef uint8_t[::1] s = stm
    cdef uint8_t[::1] ph = phase
    cdef int16_t[::1] h = hand
    cdef uint16_t[::1] fm = fullmove
    for i in range(total):
        if i > 0:
            board.push(moves[i - 1])
        if i % every != every - 1 or not is_quiet(&board.pos):
            continue
        var[0] = board.pos
        b = var.all & ~(var.pieces[KING] | var.pieces[KING + 6])
        pieces = popcount(b)
        if pieces == 0:
            continue
        state = seed ^ board.pos.key
        pick = splitmix64(&state) % pieces
        for k in range(pick):
            b &= b - 1
        remove_piece(var, pop_lsb(&b))
        if (square_attacked(var, var.king[var.stm ^ 1], var.stm, var.all)
                or not is_quiet(var)):
            continue
        fill_row(var, which, &d[n, 0], &a[n, 0], &s[n], &ph[n], &h[n])
        fm[n] = var.fullmove
        n += 1
    return dense[:n], active[:n], stm[:n], phase[:n], hand[:n], fullmove[:n]


# The handwritten evaluation's weights, for the tuner (engine/train/texel.py).

def eval_weights() -> list[tuple[int, int]]:
    """The weights the core evaluates with: (mg, eg) pairs in the layout of
    ``engine.evaluation.weights``."""
    return [(mg_of(EVAL_W[i]), eg_of(EVAL_W[i])) for i in range(N_EVAL_PARAMS)]


def set_eval_weights(pairs) -> None:
    """Evaluate with these weights from now on, in this process (tuning checks
    and tests; the engine is built with ext/eval_weights.pxi). Boards set up
    before keep their material and piece-square sums: set them up again."""
    if len(pairs) != N_EVAL_PARAMS:
        raise ValueError(f"{len(pairs)} weights, the core has {N_EVAL_PARAMS}")
    values = [(int(mg), int(eg)) for mg, eg in pairs]
    if any(not -32768 <= v <= 32767 for pair in values for v in pair):
        raise ValueError("a weight does not fit in 16 bits")
    for i, (mg, eg) in enumerate(values):
        EVAL_W[i] = S(mg, eg)
    init_psq()


cdef int coefficients(Position* pos, float* coef, uint8_t* phase, uint8_t* scale) noexcept nogil:
    """The counts the evaluation multiplies its weights by (White's minus
    Black's) into ``coef``; returns the evaluation from White's view, tempo left out."""
    cdef EvalTrace trace
    cdef int i
    for i in range(N_EVAL_PARAMS):
        coef[i] = 0
    trace.coef = coef
    evaluate(pos, &trace)
    phase[0] = trace.phase
    scale[0] = trace.scale
    return trace.total


def eval_coefficients(Board board):
    """(coef, phase, scale, score) of ``board``: coef (N_EVAL_PARAMS,) float32
    as ``coefficients`` fills it, and the evaluation from White's view without
    the tempo, which the weights reproduce as
    ``(mg . coef * phase + eg . coef * scale / 64 * (24 - phase)) / 24``."""
    import numpy as np
    coef = np.zeros(N_EVAL_PARAMS, np.float32)
    cdef float[::1] c = coef
    cdef uint8_t phase, scale
    score = coefficients(&board.pos, &c[0], &phase, &scale)
    return coef, phase, scale, score


def texel_rows(str fen, list moves, int every, int skip, u64 seed):
    """The tuner's rows from one game: every ``every``-th position (from a
    seeded offset) after the first ``skip`` plies that is quiet (``is_quiet``)
    and has more than a bare king on both sides.
    Returns coef (n, N_EVAL_PARAMS) float32, phase, scale, stm (n,) uint8 and
    ply (n,) uint16. ValueError if a move is illegal."""
    import numpy as np
    cdef Board board = Board(fen)
    cdef Py_ssize_t total = len(moves) + 1, i, n = 0
    cdef u64 state = seed
    cdef int offset = splitmix64(&state) % every if every > 1 else 0
    coef = np.zeros((total // every + 1, N_EVAL_PARAMS), np.float32)
    phase = np.zeros(len(coef), np.uint8)
    scale = np.zeros(len(coef), np.uint8)
    stm = np.zeros(len(coef), np.uint8)
    ply = np.zeros(len(coef), np.uint16)
    cdef float[:, ::1] c = coef
    cdef uint8_t[::1] ph = phase
    cdef uint8_t[::1] sc = scale
    cdef uint8_t[::1] st = stm
    cdef uint16_t[::1] pl = ply
    for i in range(total):
        if i > 0:
            board.push(moves[i - 1])
        if i < skip or i % every != offset or not is_quiet(&board.pos):
            continue
        if (board.pos.occ[WHITE] == board.pos.pieces[KING]
                or board.pos.occ[BLACK] == board.pos.pieces[KING + 6]):
            continue                # a bare king: mop-up, which has no weights, would count
        coefficients(&board.pos, &c[n, 0], &ph[n], &sc[n])
        st[n] = board.pos.stm
        pl[n] = i
        n += 1
    return coef[:n], phase[:n], scale[:n], stm[:n], ply[:n]


def think_factor(int stable, double best_share, int score_drop, str mode="stability") -> float:
    """The share of the soft time limit the search thinks for before it starts
    no new iteration (times 0.6), in TimeManagement ``mode`` (one of
    TIME_MODES): ``fixed`` always 1; ``stability`` by how many iterations the
    best move has held; ``effort`` also by the best move's share of the last
    iteration's nodes and by how far the score fell; ``balanced`` as
    ``stability`` with factors that average about 1.

    >>> think_factor(0, 0.75, 0) > think_factor(5, 0.75, 0)
    True
    >>> think_factor(2, 0.95, 0, "effort") < think_factor(2, 0.4, 0, "effort")
    True
    >>> think_factor(0, 0.2, 300, "fixed")
    1.0
    """
    if mode not in TIME_MODES:
        raise ValueError(f"mode must be one of {TIME_MODES}, not {mode!r}")
    return time_factor(TIME_MODES.index(mode), stable, best_share, score_drop)
