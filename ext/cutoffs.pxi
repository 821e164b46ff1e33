# Cut-off recording: training data for the move picker's own decision.
#
# When a quiet move fails high, the node's position, all its quiet moves and
# the one that cut off are written into a buffer that Python drains after the
# search (Searcher.take_cutoffs, engine/data/cutoffs.py). A net trained on
# these learns exactly what the quiet-move stage needs: which quiet move
# refutes, not which move a master would play. Off (NULL buffer) by default;
# the search pays one pointer test per quiet cut-off.

cdef enum:
    CUT_MAX_QUIETS = 128    # nodes with more quiet moves are not recorded

ctypedef struct CutoffRecord:
    u64 key
    uint8_t board[64]       # piece codes a1..h8, EMPTY = 12
    uint8_t stm
    uint8_t castling
    int8_t ep
    int8_t last_to          # the last move's to-square (an input of context960), -1 unknown
    uint16_t halfmove
    uint8_t depth           # plies left at the node (after reductions)
    uint8_t n_quiets
    uint8_t cut             # index of the cut-off move in quiets
    uint8_t tried           # quiet moves searched before it at this node
    uint8_t quiets[CUT_MAX_QUIETS][2]   # (from, to) as Board.pattern gives them (move_pair)

ctypedef struct CutoffLog:
    CutoffRecord* records   # NULL: recording off
    int capacity
    int n
    int min_depth           # shallower cut-offs are not recorded
    u64 dropped             # cut-offs not recorded because the buffer was full


cdef void record_cutoff(CutoffLog* log, const Position* pos, const Move* quiets, int n, Move m,
                        int depth, int tried) noexcept nogil:
    """Write the node of a quiet cut-off by ``m`` (one of its ``n`` quiet moves) into the log."""
    cdef CutoffRecord* r
    cdef int i, frm, to, cut = -1
    if depth < log.min_depth or n > CUT_MAX_QUIETS:
        return
    if log.n >= log.capacity:
        log.dropped += 1
        return
    r = &log.records[log.n]
    for i in range(n):
        if quiets[i] == m:
            cut = i
        move_pair(pos, quiets[i], &frm, &to)
        r.quiets[i][0] = frm
        r.quiets[i][1] = to
    if cut < 0:
        return                  # not among the generated quiet moves (cannot happen)
    r.key = pos.key
    for i in range(64):
        r.board[i] = pos.board[i]
    r.stm = pos.stm
    r.castling = pos.castling
    r.ep = pos.ep
    r.last_to = last_move_to(pos)
    r.halfmove = pos.halfmove if pos.halfmove < 65535 else 65535
    r.depth = depth if depth < 255 else 255
    r.n_quiets = n
    r.cut = cut
    r.tried = tried if tried < 255 else 255
    log.n += 1
