# What one search carries: its position copy, limits, tables and results.
# Shared by the picker (killers, history) and the search proper.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef enum:
    ORDER_HISTORY = 0       # the history heuristic (the reference)
    ORDER_NMM = 1           # the Neural MoveMap alone
    ORDER_STRAIGHT = 2      # the net's best quiet move, then history order
    ORDER_WEIGHTED = 3      # nnscore + hhscore / (hhupdate * hhweight)
    ORDER_CHESSMAPS = 4     # move classes, then square control, then history (move_classes.pxi)
    N_ORDERINGS = 5

ORDERING_NAMES = ["history", "nmm", "straight", "weighted", "chessmaps"]

ctypedef struct SearchOptions:
    int ordering            # which quiet-move scorer the picker uses
    int multipv
    bint null_move
    bint lmr                # late-move reductions
    bint futility           # futility, reverse futility, late-move and delta pruning
    bint tt_cutoffs         # return TT scores at non-PV nodes
    bint aspiration
    int nmm_min_depth       # below this remaining depth the net is not asked (history instead)
    bint nmm_cut_nodes_only # ask the net at PV and expected cut nodes only, not at expected all-nodes
    double hhweight         # history weight of the weighted combination (its start when adaptive)
    bint adaptive           # adapt hhweight on nn-misses and hh-misses
    double beta_nn          # added to hhweight on an nn-miss
    double beta_hh          # taken from hhweight on an hh-miss
    bint nmm_reductions     # late-move reductions follow the net's probability of a quiet move
    bint nmm_pruning        # late-move pruning spares what the net likes, prunes early what it does not
    float nmm_prob_high     # a quiet move the net gives at least this probability is "liked" ...
    float nmm_prob_low      # ... and below this "disliked"
    bint move_chains        # the ChessMaps short-term memory (move_chains.pxi)
    int move_tables         # table moves tried per node, 0: the long-term memory off (move_tables.pxi)
    bint forward_pruning    # the ChessMaps beam at interior nodes (forward_pruning.pxi)
    int beam_width          # safe other moves the beam keeps
    bint long_branches      # play reliable move-table paths out (long_branches.pxi)
    bint regions_net        # chessmaps weighs squares by the regions net (regions.pxi), not the hand rule
    bint see_pruning        # skip moves that lose material by exchange near the leaves
    bint singular           # extend a table move that alone holds the score
    bint double_extensions  # ... by two plies where the others fall far short (SE_DOUBLE_*)
    bint counter_moves      # try the move that last refuted the opponent's move, after the killers
    bint razoring           # far below alpha near the leaves: ask quiescence first
    bint qs_checks          # quiescence's first ply also tries the quiet checks
    bint probcut            # a good capture that beats beta by a margin in a shallow search cuts off
    bint cut_node_lmr       # reduce late moves one ply more at expected cut nodes
    bint improving          # margins know whether the static evaluation rose over two plies (off: it never did)
    bint check_extension    # a node in check searches a ply deeper
    bint cont_history       # add the signed statistics (stats.pxi) to every scorer's quiet scores
    bint history_lmr        # reduce late quiet moves less, or more, as those statistics say
    bint history_pruning    # near the leaves, skip late quiet moves those statistics call bad
    bint correction         # the static evaluation corrected by its measured error per pawn structure (correction.pxi)
    bint nonpawn_correction # ... and per each side's other pieces
    bint tt_eval            # pruning starts from a table score that bounds the truth beyond the static evaluation
    bint capture_history    # order the good captures by victim and by their statistics (stats.pxi)
    int time_mode           # a TIME_* mode, TIME_MODES' index (search.pxi)
    int helper_depths       # Threads > 1: which depths helpers leave out (HELPER_DEPTHS, threads.pxi)
    bint defer_busy         # Threads > 1: a move another thread is searching waits for the end of the list
    int defer_depth         # ... at nodes of this depth or more
    bint breadcrumbs        # Threads > 1: reduce late moves more at a node near the root another thread is in (threads.pxi)
    # The Syzygy tables (search_syzygy.pxi), when a Searcher has them:
    int syzygy_probe_depth      # probe in the search from this depth (at the tables' largest men count)
    bint syzygy_50_move_rule    # a win the fifty-move rule draws is a draw
    int syzygy_probe_limit      # probe positions of at most this many men

ctypedef struct Limits:
    int depth               # deepest iteration
    u64 nodes               # 0: no limit
    u64 soft_nodes          # no new iteration once the main search has searched this many (0: none)
    double soft_ms          # no new iteration after this (0: none)
    double hard_ms          # stop the search here (0: none)
    int mate                # stop once a mate in this many moves is found (0: off)
    int n_searchmoves
    Move searchmoves[MAX_MOVES]

ctypedef struct RootMove:
    Move move
    int score               # this iteration's score, -INFINITE while unknown
    int prev_score          # last completed iteration's score
    int bound               # BOUND_EXACT, or the bound an aspiration failure left
    int seldepth
    int pv_len
    u64 nodes               # nodes spent under this move in the current iteration
    int tb_score            # the tables' score of the move (the root in the tables), else NO_SCORE
    Move pv[MAX_PLY + 1]

ctypedef struct StrategyDb:     # the ChessMaps strategy database (engine/data/strategy.py)
    int n
    int* index              # [6 * 64 * 64] move key (piece, from, to; mover's frame) -> entry, -1: none
    uint8_t* popular        # [n][64] the piece code most often on each square after the move's paths
    uint8_t* share          # [n][64] how often, of 255

ctypedef struct ChainEntry:     # a dynamic move chain (move_chains.pxi)
    Move move           # a quiet move that cut off, from this square; 0: empty
    Move reply          # the follow-up: the reply that held out longest (0: none known)
    u64 stamp           # when it was stored: the newest chains are tried first

cdef enum:
    CHAIN_TRIES = 2     # chain moves a node tries at most (the follow-up besides)

ctypedef struct MtPath:         # a move-table path (move_tables.pxi)
    Move moves[3]       # ours, their reply, ours again (0 where not known)
    int16_t weight      # +1 for each cut-off it led to, -1 for each failure
    int16_t evals[10]   # the last MT_EVALS scores it got, newest first, mover's view
    uint8_t n_evals

cdef enum:
    MT_SLOTS = 4        # paths kept per piece type, colour and first square
    MT_EVALS = 10
    MT_DROP = -3        # a path whose weight falls below this is removed
    MT_MAX_TRIES = 4    # table moves a node may try (MoveTableMoves)

cdef struct ThreadGroup         # the searches of one `go`, one per thread (threads.pxi)

cdef enum:
    CORR_BITS = 14              # the pawn correction history's slots: 2^this per side (correction.pxi)
    CORR_SIZE = 1 << CORR_BITS

ctypedef struct Search:
    Position pos
    TTable* tt
    ThreadGroup* group      # every search is in a group; alone, it is the group's only member
    int thread_index        # 0: the main search, which decides and reports; helpers 1, 2, ...
    SearchOptions opt
    Limits limits
    double start_ms
    int pondering           # time limits wait while set (go ponder, until ponderhit)
    int stopped
    u64 nodes
    int seldepth
    int root_depth
    int completed_depth
    int pv_index            # MultiPV line being searched
    int n_root
    RootMove root[MAX_MOVES]
    Move killers[MAX_PLY + 2][2]
    Move counters[12][64]   # [piece][to] of the opponent's last move: the quiet move that refuted it
    Move excluded[MAX_PLY + 2]  # per ply, the move a singular-extension test searches without
    int double_ext[MAX_PLY + 2]     # per ply, double extensions on the path to the node's children
    int16_t quiet_stats[2][64][64]      # signed, bounded history: [side][from][to] (stats.pxi)
    int16_t cont_stats[12 * 64][12 * 64]    # [piece, to of a move][piece, to of the move after it]
    int16_t capture_stats[12][64][7]    # [piece][to][captured type, 6: none]: captures' statistics (stats.pxi)
    int16_t corr_pawn[2][CORR_SIZE]   # [side to move][pawn structure]: the evaluation's average error (correction.pxi)
    int16_t corr_nonpawn[2][2][CORR_SIZE]  # [side to move][colour][that colour's other pieces]: the same
    int cont_key[MAX_PLY + 2]   # per ply, piece * 64 + to of the move made there (-1: a null move)
    int history[2][64][64]  # [side][from][to], rewarded by depth * depth on cut-offs
    u64 hhupdate            # how many rewards were given: scorers normalise by it
    int static_eval[MAX_PLY + 2]
    Move pv[MAX_PLY + 1][MAX_PLY + 1]
    int pv_len[MAX_PLY + 1]
    NmmNet* net             # the Neural MoveMap, or NULL
    TdEval* td              # the TD-trained evaluation, or NULL: the handwritten one
    TdCacheEntry* td_cache  # its scores of recently evaluated positions
    TdAccumulator td_acc[TD_ACCUMULATORS]   # its first-layer sums (eval_td.pxi)
    NnueWeights* nnue       # the NNUE, or NULL (at most one of td and nnue is set)
    NnueAccumulator nnue_acc[NNUE_STACK]    # its accumulators, by ply (nnue.pxi)
    NmmCacheEntry* nmm_cache    # the net's quiet-move scores of recently scored nodes
    NmmAccumulator nmm_acc      # the hidden layer's sums (a net with a hidden layer)
    double hhweight         # the weight in use (moves when adaptive)
    u64 nn_misses
    u64 hh_misses
    void* owner             # the Python Searcher, for progress reports
    ChainEntry chains[2][64]    # the short-term memory: [side][from-square]
    StrategyDb strategy         # popular squares from master games (forward_pruning.pxi); n == 0: none
    RegionsNet regions          # the learned regions (regions.pxi); w == NULL: none
    u64 chain_clock
    Move stubborn[MAX_PLY + 2]  # per ply, the move that scored best so far (a chain's follow-up)
    Move stubborn_reply[MAX_PLY + 2]    # and the reply that scored best against it (a path's third move)
    MtPath tables[2][6][64][MT_SLOTS]   # the long-term memory: [colour][piece type][from][slot]
    u64 table_tries             # moves the tables gave, and how many of them cut off
    u64 table_cutoffs
    u64 chain_tries             # moves the chain stage gave, and how many of them cut off
    u64 chain_cutoffs
    u64 fp_quiets               # quiet moves the beam judged by their class ...
    u64 fp_pruned               # ... of them pruned ...
    u64 fp_readded              # ... and searched after all, for the key squares
    u64 lb_played               # long branches played, and how often the full search
    u64 lb_same_verdict         # ... then agreed on beta ...
    u64 lb_same_move            # ... and chose the branch's first move
    CutoffLog* cutoffs          # quiet cut-offs recorded for training (cutoffs.pxi); NULL: off
    const SzTables* tb          # the Syzygy tables (syzygy.pxi), or NULL; read-only, shared by the threads
    int tb_cardinality          # this search probes positions of at most this many men (0: it does not)
    u64 tb_hits                 # probes that answered (info tbhits: the threads' sum)
    int tb_n                    # the root's moves ranked by the tables (search_syzygy.pxi), 0: not in them
    int tb_best_rank            # the best rank: only the moves of that rank are searched
    Move tb_moves[MAX_MOVES]
    int tb_ranks[MAX_MOVES]
    int tb_scores[MAX_MOVES]


cdef enum:
    BUSY_SIZE = 32768   # the group's table of moves being searched (a power of two)

cdef struct ThreadGroup:
    Search** members    # members[0] is the main search
    int n               # members searching now (Threads, or fewer if a thread could not start)
    int abort           # set by the main search once it is done: the helpers unwind
    int gate_open       # the helpers wait for it before they search (threads.pxi)
    u64 busy[BUSY_SIZE] # moves some thread is searching now, by node and move (threads.pxi)


# The staged move picker's state (picker.pxi); here because scorers fill it.
ctypedef struct Picker:
    Move moves[MAX_MOVES]       # noisy moves in [0, n_noisy), quiet ones in [n_noisy, n)
    int scores[MAX_MOVES]
    float nn[MAX_MOVES]         # with has_nn: each quiet move's net score
    int hh[MAX_MOVES]           # with has_aux: each quiet move's history score, for the adaptive weight
    bint has_nn
    bint has_aux
    float nn_logz               # with has_nn: log of the sum of exp(nn) over the quiet moves
    float last_prob             # the net's probability (softmax over the quiet moves) of the
                                # move just returned; -1 when the net did not rank it
    bint generated              # moves, n and n_noisy are set (picker_generate)
    int n
    int n_noisy
    int stage
    int cur
    int depth
    int quiets_returned
    Move tt_move
    Move killers[2]
    int killer_index
    Move counter                # the counter-move (CounterMoves), 0 if none or already a killer
    bint captures_only          # quiescence: good captures and nothing else
    bint net_allowed            # the node may order its quiet moves by the net
    Move bad[MAX_MOVES]
    int n_bad
    Move chain[CHAIN_TRIES + 1 + MT_MAX_TRIES]  # the memory moves this node tries
    bint chain_is_table[CHAIN_TRIES + 1 + MT_MAX_TRIES]
    int n_chain
    int chain_index
    bint from_chain             # the move just returned came from the chains
    bint from_table             # ... or from the move tables


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6


cdef void forget_lines(Search* s) noexcept nogil:
    """Zero the per-ply scratch a search leaves behind: the quiescence search
    makes moves without setting ``cont_key``, and an evasion there is ordered
    by the entry an earlier search left at that ply. ``clear`` (ucinewgame)
    and each self-play game call it, so that a search after them is that of
    a new Searcher: a game a match plays on a reused engine is the game a
    fresh engine plays (a Ray unit's), and a self-play batch's bytes do not
    depend on the games its worker played before."""
    memset(s.cont_key, 0, sizeof(s.cont_key))
    memset(s.static_eval, 0, sizeof(s.static_eval))
    memset(s.pv, 0, sizeof(s.pv))
    memset(s.pv_len, 0, sizeof(s.pv_len))
    memset(s.stubborn, 0, sizeof(s.stubborn))
    memset(s.stubborn_reply, 0, sizeof(s.stubborn_reply))
