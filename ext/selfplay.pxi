# Self-play games played in C: the training data of the learned evaluation.
#
# One call plays a whole game from a start position: every move is a search
# to a soft node limit (no new iteration once the nodes pass it, a hard cap
# besides), the move is made on the game's own position, and the game ends
# by the rules or by the match runner's adjudication (engine/tools/match.py).
# Each searched position becomes one 32-byte record in a buffer the caller
# gives (engine/data/selfplay.py reads and writes them, RECORD there is the
# same layout); nothing between the first move and the last touches Python,
# and the GIL is released for the whole game.

cdef enum:
    SP_RECORD_SIZE = 32
    SP_MAX_PLIES = 600          # a draw at this many plies of the game (match.py's MAX_PLIES)
    ADJ_WIN_CP = 1000           # a win: at least this, from White's view, ...
    ADJ_WIN_PLIES = 8           # ... for this many plies running
    ADJ_DRAW_CP = 10            # a draw: within this ...
    ADJ_DRAW_PLIES = 16         # ... for this many plies running ...
    ADJ_DRAW_FROM_PLY = 80      # ... from this ply of the position on (python-chess's board.ply())

# How a game ended (SELFPLAY_ENDS names them, in this order).
cdef enum:
    END_NONE = 0
    END_CHECKMATE = 1
    END_STALEMATE = 2
    END_MATERIAL = 3
    END_FIFTY = 4
    END_REPETITION = 5
    END_MOVE_LIMIT = 6
    END_ADJ_WIN = 7
    END_ADJ_DRAW = 8

SELFPLAY_ENDS = ("ongoing", "checkmate", "stalemate", "insufficient material", "fifty moves",
                 "threefold repetition", "move limit", "adjudicated win", "adjudicated draw")

# The result from White's view, as the records' flags hold it (bits 3-4).
cdef enum:
    RESULT_LOSS = 0
    RESULT_DRAW = 1
    RESULT_WIN = 2

# A record's flags.
cdef enum:
    SPF_BLACK = 1               # black to move
    SPF_CHECK = 2               # the side to move is in check
    SPF_NOISY = 4               # the best move captures or promotes
    SPF_RESULT_SHIFT = 3        # two bits: RESULT_*
    SPF_FIRST = 32              # the first position of a game
    SP_EP_PRESENT = 128         # castle_ep: an en-passant capture is possible (file in bits 4-6)

ctypedef packed struct SelfplayRecord:
    u64 occupancy               # the occupied squares
    uint8_t pieces[16]          # a piece code (0-11) per occupied square, in square order, two a byte, low nibble first
    int16_t score               # the search's score, side to move's view; mates are +-(32000 - plies)
    uint16_t move               # the best move, the core's Move (from | to << 6 | flag << 12)
    uint16_t ply                # 2 * (fullmove - 1) + (1 if black to move)
    uint8_t flags               # SPF_*
    uint8_t castle_ep           # castling rights WK | WQ | BK | BQ, then the en-passant file

ctypedef struct SelfplayGame:   # what a game is played with, and what it became
    u64 soft_nodes              # no new iteration once a search has this many nodes ...
    u64 hard_nodes              # ... and none goes past this
    int max_plies               # a draw once the game has this many plies
    bint adjudicate             # the match runner's win and draw adjudication
    int n                       # records written (one per move played)
    int result                  # RESULT_*, White's view
    int end                     # END_*
    u64 nodes                   # searched in the whole game


cdef inline int position_ply(const Position* pos) noexcept nogil:
    return 2 * (pos.fullmove - 1) + pos.stm


cdef int rule_end(const Position* pos) noexcept nogil:
    """END_* if the rules end the game here (Board.outcome's order), else END_NONE."""
    if not has_legal_move(pos):
        return END_CHECKMATE if in_check(pos) else END_STALEMATE
    if insufficient_material(pos):
        return END_MATERIAL
    if pos.halfmove >= 100:
        return END_FIFTY
    if repetitions(pos) >= 2:
        return END_REPETITION
    return END_NONE


cdef int adjudication(const int* white_scores, int n, int ply) noexcept nogil:
    """The match runner's verdict on the scores so far (White's view, one per
    move; in self-play both sides' scores are in the one list): END_ADJ_WIN,
    END_ADJ_DRAW or END_NONE."""
    cdef int i, high = 0, low = 0, quiet = 0
    if n >= ADJ_WIN_PLIES:
        for i in range(n - ADJ_WIN_PLIES, n):
            high += white_scores[i] >= ADJ_WIN_CP
            low += white_scores[i] <= -ADJ_WIN_CP
        if high == ADJ_WIN_PLIES or low == ADJ_WIN_PLIES:
            return END_ADJ_WIN
    if ply >= ADJ_DRAW_FROM_PLY and n >= ADJ_DRAW_PLIES:
        for i in range(n - ADJ_DRAW_PLIES, n):
            quiet += -ADJ_DRAW_CP <= white_scores[i] <= ADJ_DRAW_CP
        if quiet == ADJ_DRAW_PLIES:
            return END_ADJ_DRAW
    return END_NONE


cdef int end_result(const Position* pos, int end, const int* white_scores, int n) noexcept nogil:
    """RESULT_* of a game that ended with ``end`` at ``pos``."""
    if end == END_CHECKMATE:
        return RESULT_LOSS if pos.stm == WHITE else RESULT_WIN
    if end == END_ADJ_WIN:
        return RESULT_WIN if white_scores[n - 1] > 0 else RESULT_LOSS
    return RESULT_DRAW


cdef void pack_position(const Position* pos, SelfplayRecord* r) noexcept nogil:
    """The board part of a record: occupancy, piece nibbles, castling and en passant."""
    cdef u64 occ = pos.all
    cdef int i = 0, sq
    memset(r.pieces, 0, sizeof(r.pieces))
    r.occupancy = occ
    while occ:
        sq = pop_lsb(&occ)
        r.pieces[i >> 1] |= pos.board[sq] << (4 * (i & 1))
        i += 1
    r.castle_ep = pos.castling | ((SP_EP_PRESENT | (file_of(pos.ep) << 4)) if pos.ep >= 0 else 0)


cdef void unpack_position(const SelfplayRecord* r, Position* pos) noexcept nogil:
    """A record's men and side to move in ``pos``: what a static evaluation
    reads (castling rights and en passant are left out)."""
    cdef u64 occ = r.occupancy
    cdef int i = 0, sq
    clear_position(pos)
    while occ:
        sq = pop_lsb(&occ)
        put_piece(pos, (r.pieces[i >> 1] >> (4 * (i & 1))) & 15, sq)
        i += 1
    pos.king[WHITE] = lsb(pos.pieces[KING]) if pos.pieces[KING] else -1
    pos.king[BLACK] = lsb(pos.pieces[KING + 6]) if pos.pieces[KING + 6] else -1
    pos.stm = BLACK if r.flags & SPF_BLACK else WHITE
    pos.fullmove = r.ply // 2 + 1
    pos.key = compute_key(pos)


cdef void fill_record(SelfplayRecord* r, const Position* pos, int score, Move m, bint first) noexcept nogil:
    """A record of ``pos`` with its score and move; the result bits are the caller's."""
    pack_position(pos, r)
    r.score = <int16_t>max(-MATE, min(MATE, score))
    r.move = m
    r.ply = <uint16_t>position_ply(pos)
    r.flags = (pos.stm * SPF_BLACK) | (in_check(pos) * SPF_CHECK) | (is_noisy(pos, m) * SPF_NOISY)
    if first:
        r.flags |= SPF_FIRST


cdef inline int searched_score(const RootMove* rm) noexcept nogil:
    """The score of the chosen root move: its last completed iteration's."""
    return rm.prev_score if rm.prev_score != -INFINITE else rm.score


cdef void search_move(ThreadGroup* g, int threads, pthread_t* ids, const Position* pos,
                      const SelfplayGame* spec) noexcept nogil:
    """Search ``pos`` as ``begin`` then ``run`` would, to the game's node limits, without reports."""
    cdef Search* s = g.members[0]
    s.pos = pos[0]
    s.limits.depth = MAX_PLY - 8
    s.limits.nodes = spec.hard_nodes
    s.limits.soft_nodes = spec.soft_nodes
    s.limits.soft_ms = 0
    s.limits.hard_ms = 0
    s.limits.mate = 0
    s.limits.n_searchmoves = 0
    s.pondering = 0
    reset_search(s)
    s.start_ms = now_ms()
    group_search(g, threads, ids)


cdef void play_game(ThreadGroup* g, int threads, pthread_t* ids, Position* game,
                    SelfplayRecord* out, int* white_scores, SelfplayGame* spec) noexcept nogil:
    """Play ``game`` to its end; a record per move in ``out`` (room for
    ``spec.max_plies``), the White's-view scores in ``white_scores`` (as many)."""
    cdef Search* best
    cdef RootMove* rm
    cdef int score, i
    cdef Move m
    spec.n = 0
    spec.end = END_NONE
    spec.nodes = 0
    forget_lines(g.members[0])
    while True:
        spec.end = rule_end(game)
        if spec.end == END_NONE and spec.n >= spec.max_plies:
            spec.end = END_MOVE_LIMIT
        if spec.end == END_NONE and spec.adjudicate:
            spec.end = adjudication(white_scores, spec.n, position_ply(game))
        if spec.end != END_NONE:
            break
        if game.hist_len > HISTORY_CAP - MAX_PLY - 8:
            compact_history(game)
        search_move(g, threads, ids, game, spec)
        spec.nodes += group_nodes(g)
        best = chosen_thread(g)
        rm = &best.root[0]
        m = rm.move
        score = searched_score(rm)
        fill_record(&out[spec.n], game, score, m, spec.n == 0)
        white_scores[spec.n] = score if game.stm == WHITE else -score
        spec.n += 1
        make_move(game, m)
    spec.result = end_result(game, spec.end, white_scores, spec.n)
    for i in range(spec.n):
        out[i].flags |= spec.result << SPF_RESULT_SHIFT


def selfplay_game(Searcher searcher, Board start, uint8_t[:, ::1] out, soft_nodes: int,
                  hard_nodes: int | None = None, int max_plies=SP_MAX_PLIES, bint adjudicate=True
                  ) -> tuple[int, int, int, int]:
    """Play one game from ``start`` (left as it is) with ``searcher`` as it
    is configured, each move searched to ``soft_nodes`` (a soft limit: the
    iteration under way finishes; ``hard_nodes``, default four times as many,
    is where any search stops). Writes a 32-byte record per move into ``out``
    (an (n, 32) uint8 array with n >= max_plies: engine/data/selfplay.py's
    RECORD viewed as bytes) and returns (records, result, end, nodes): the
    result from White's view (0 loss, 1 draw, 2 win), the end an index of
    SELFPLAY_ENDS, the nodes searched in the whole game.

    The game is as the searcher's state makes it: clear() it first for a
    game that does not depend on what it searched before (the per-ply
    scratch clear() keeps is zeroed here).

    >>> import numpy as np
    >>> out = np.zeros((600, 32), np.uint8)
    >>> n, result, end, nodes = selfplay_game(Searcher(1), Board("7k/8/6K1/8/8/8/8/R7 w - - 0 1"), out, 200)
    >>> n, result, SELFPLAY_ENDS[end]
    (1, 2, 'checkmate')
    """
    if sizeof(SelfplayRecord) != SP_RECORD_SIZE:
        raise RuntimeError("the self-play record is not 32 bytes: the C compiler padded it")
    if out.shape[1] != SP_RECORD_SIZE or out.shape[0] < max_plies or max_plies < 1:
        raise ValueError(f"out must be ({max_plies} or more, {SP_RECORD_SIZE}) bytes, not {tuple(out.shape)}")
    if soft_nodes < 1:
        raise ValueError("soft_nodes must be positive")
    cdef SelfplayGame spec
    spec.soft_nodes = soft_nodes
    spec.hard_nodes = max(hard_nodes or 4 * soft_nodes, soft_nodes)
    spec.max_plies = max_plies
    spec.adjudicate = adjudicate
    cdef Position* game = <Position*>malloc(sizeof(Position))
    cdef int* white_scores = <int*>malloc(max_plies * sizeof(int))
    if game == NULL or white_scores == NULL:
        free(game)
        free(white_scores)
        raise MemoryError
    game[0] = start.pos
    searcher._renew_helper_caches()
    cdef void* owner = searcher.s.owner
    searcher.s.owner = NULL            # no reports: no Python between the moves
    try:
        with nogil:
            play_game(&searcher.group, searcher.n_threads, searcher.threads, game,
                      <SelfplayRecord*>&out[0, 0], white_scores, &spec)
    finally:
        searcher.s.owner = owner
        searcher.s.limits.soft_nodes = 0
        free(game)
        free(white_scores)
    return spec.n, spec.result, spec.end, spec.nodes


def evaluate_records(Searcher searcher, records) -> "np.ndarray":
    """``searcher``'s static evaluation in use (as Searcher.evaluate: the
    handwritten one, or its TD net or NNUE) of every self-play record
    (engine/data/selfplay.py RECORD), int32 centipawns from the side to
    move's view: a trainer's teacher and baseline, without a Board from
    Python for each. The records must hold positions the engine accepts (one
    king a side, at most 32 men), as self-play writes them."""
    import numpy as np
    from engine.data.selfplay import RECORD
    array = np.ascontiguousarray(records)
    if array.dtype != RECORD:
        raise ValueError(f"records of dtype {array.dtype}, expected the self-play RECORD")
    cdef long n = len(array), i
    out = np.zeros(n, np.int32)
    if n == 0:
        return out
    cdef const uint8_t[:, ::1] raw = array.view(np.uint8).reshape(n, SP_RECORD_SIZE)
    cdef int32_t[::1] scores = out
    cdef Position pos
    cdef const SelfplayRecord* r
    for i in range(n):
        r = <const SelfplayRecord*>&raw[i, 0]
        if (popcount(r.occupancy) > 32 or popcount(r.occupancy) < 2
                or not _kings_in(r, popcount(r.occupancy))):
            raise ValueError(f"record {i} holds no position the engine accepts (one king a side)")
    with nogil:
        for i in range(n):
            unpack_position(<const SelfplayRecord*>&raw[i, 0], &pos)
            scores[i] = static_eval(searcher.s, &pos)
    return out


cdef bint _kings_in(const SelfplayRecord* r, int men) noexcept nogil:
    """One white and one black king among a record's ``men`` piece codes."""
    cdef int i, code, white = 0, black = 0
    for i in range(men):
        code = (r.pieces[i >> 1] >> (4 * (i & 1))) & 15
        white += code == KING
        black += code == KING + 6
    return white == 1 and black == 1


def game_records(Searcher searcher, Board start, list moves, int result, uint8_t[:, ::1] out,
                 soft_nodes: int = 0) -> int:
    """The records of a game played elsewhere (a PGN's): a record per move of
    ``moves`` (UCI) from ``start`` (left as it is), in the layout
    ``selfplay_game`` writes, the flags' result bits ``result`` (White's view:
    0 loss, 1 draw, 2 win). The score is ``searcher``'s: its static evaluation
    with ``soft_nodes`` 0, else a search to that soft node limit (four times
    as many at most). Returns the records written; ValueError on an illegal
    move, before any search.

    >>> import numpy as np
    >>> out = np.zeros((2, 32), np.uint8)
    >>> game_records(Searcher(1), Board(), ["e2e4", "e7e5"], 1, out)
    2
    """
    cdef Py_ssize_t n = len(moves), i
    if not 0 <= result <= 2:
        raise ValueError(f"result must be 0, 1 or 2, not {result}")
    if out.shape[1] != SP_RECORD_SIZE or out.shape[0] < n:
        raise ValueError(f"out must be ({n} or more, {SP_RECORD_SIZE}) bytes, not {tuple(out.shape)}")
    if soft_nodes < 0:
        raise ValueError("soft_nodes must be 0 (static evaluation) or positive")
    cdef Board board = start.copy()
    cdef Move* played = <Move*>malloc(max(n, 1) * sizeof(Move))
    if played == NULL:
        raise MemoryError
    try:                                # every move parsed first: an illegal one costs no search
        for i in range(n):
            played[i] = board._parse(moves[i])
            if played[i] == 0:
                raise ValueError(f"illegal move {moves[i]!r} in {board.fen()}")
            if board.pos.hist_len >= HISTORY_CAP - MAX_PLY - 8:
                compact_history(&board.pos)
            make_move(&board.pos, played[i])
    except BaseException:
        free(played)
        raise
    cdef SelfplayGame spec
    spec.soft_nodes = soft_nodes
    spec.hard_nodes = 4 * soft_nodes
    cdef Position* game = <Position*>malloc(sizeof(Position))
    if game == NULL:
        free(played)
        raise MemoryError
    game[0] = start.pos
    searcher._renew_helper_caches()
    cdef void* owner = searcher.s.owner
    searcher.s.owner = NULL
    try:
        with nogil:
            replay_game(&searcher.group, searcher.n_threads, searcher.threads, game, played, n, result,
                        <SelfplayRecord*>&out[0, 0], &spec)
    finally:
        searcher.s.owner = owner
        searcher.s.limits.soft_nodes = 0
        free(game)
        free(played)
    return n


cdef void replay_game(ThreadGroup* g, int threads, pthread_t* ids, Position* game, const Move* played,
                      Py_ssize_t n, int result, SelfplayRecord* out, SelfplayGame* spec) noexcept nogil:
    """A record per move of ``played`` from ``game``: scored by a search to
    ``spec``'s node limits, or statically when they are 0."""
    cdef Py_ssize_t i
    cdef int score
    forget_lines(g.members[0])
    for i in range(n):
        if game.hist_len > HISTORY_CAP - MAX_PLY - 8:
            compact_history(game)
        if spec.soft_nodes:
            search_move(g, threads, ids, game, spec)
            score = searched_score(&chosen_thread(g).root[0])
        else:
            score = static_eval(g.members[0], game)
        fill_record(&out[i], game, score, played[i], i == 0)
        out[i].flags |= result << SPF_RESULT_SHIFT
        make_move(game, played[i])
