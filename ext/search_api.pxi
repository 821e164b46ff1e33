# The playing face of the search: Searcher owns the transposition table and
# the search state, takes the options, nets and files the engine plays with,
# runs a search with the GIL released, and turns the C structs into Python
# values when the search reports. It is all the UCI engine (engine/session.py,
# engine/bench.py) uses. What studies and training read inside a search
# (counters, probes, cut-off recording) is LabSearcher's, in search_lab.pxi.

from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset


# Searcher.configure's keywords that are not a SearchOptions field taken as it
# comes: words stored as their index in a list, and counts brought into range.
NAMED_SETTINGS = {"ordering": ("ordering", ORDERING_NAMES), "time_management": ("time_mode", TIME_MODES),
                  "helper_depths": ("helper_depths", HELPER_DEPTHS)}
NAMED_FIELDS = frozenset(field for field, words in NAMED_SETTINGS.values())
COUNTED_SETTINGS = {"multipv": (1, MAX_MOVES), "move_tables": (0, MT_MAX_TRIES), "beam_width": (0, MAX_MOVES),
                    "syzygy_probe_depth": (1, MAX_PLY), "syzygy_probe_limit": (0, SZ_PIECES)}


cdef void report_iteration(Search* s, int lines) noexcept nogil:
    """An iteration is complete: report its first ``lines`` lines."""
    if s.owner == NULL:
        return                  # a helper thread
    with gil:
        (<Searcher>s.owner)._report_lines(0, lines)

cdef void report_line(Search* s, int index) noexcept nogil:
    """An aspiration window failed on line ``index``: report the bound."""
    if s.owner == NULL:
        return                  # a helper thread
    with gil:
        (<Searcher>s.owner)._report_lines(index, index + 1)

cdef void report_currmove(Search* s, Move m, int number) noexcept nogil:
    if s.owner == NULL:
        return                  # a helper thread
    with gil:
        (<Searcher>s.owner)._report_currmove(m, number)


MAX_DEPTH = MAX_PLY - 8     # the deepest iteration a search may ask for


def monotonic_ms() -> float:
    """The clock the search measures time by (``start_ms`` and ``ponderhit``)."""
    return now_ms()


cdef int uci_score(int score):
    """Moves to mate (UCI's ``score mate N``) for mate scores, else 0."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return 0


cdef void reset_search(Search* s) noexcept nogil:
    """What every search starts from (``begin``, and each move of a self-play
    game, selfplay.pxi): counts and root moves cleared, killers and
    exclusions forgotten, a new table generation."""
    s.stopped = 0
    s.nodes = 0
    s.seldepth = 0
    s.root_depth = 0
    s.completed_depth = 0
    s.n_root = 0
    s.hhweight = s.opt.hhweight
    s.nn_misses = 0
    s.hh_misses = 0
    s.tt.generation = (s.tt.generation + 1) % TT_GENERATIONS
    s.tt.used = True
    s.tb_n = 0                  # begin ranks the root's moves by the tables (tb_prepare_root)
    s.tb_hits = 0
    s.tb_cardinality = min(s.opt.syzygy_probe_limit, s.tb.max_pieces) if s.tb != NULL else 0
    memset(s.killers, 0, sizeof(s.killers))
    memset(s.excluded, 0, sizeof(s.excluded))


cdef inline int tb_shown(const RootMove* rm, int score) noexcept nogil:
    """The score a root move is shown with: the Syzygy tables' (the root in
    them), unless the search found a mate."""
    if rm.tb_score != NO_SCORE and -MATE_BOUND < score < MATE_BOUND:
        return rm.tb_score
    return score


cdef class Searcher:
    """The search engine users drive: configure it (options, Hash, Threads,
    the nets and files), search (``search``, or ``begin`` then ``run``, with
    ``ponderhit`` and the stop flag between), ``clear`` it for a new game,
    ``evaluate`` a position. The lab's view inside is the subclass LabSearcher.

    >>> searcher = Searcher(hash_mb=1)
    >>> result = searcher.search(Board("7k/8/6K1/8/8/8/8/R7 w - - 0 1"), depth=4)
    >>> result["bestmove"], result["mate"]
    ('a1a8', 1)
    """
    cdef Search* s
    cdef TTable tt
    cdef NmmNet net
    cdef TdEval td
    cdef NnueWeights nnue
    cdef object on_info
    cdef object on_currmove
    cdef ThreadGroup group      # members[0] is self.s; the helpers' states follow (threads.pxi)
    cdef pthread_t* threads
    cdef int n_threads
    cdef int cache_epoch        # bumped whenever the caches' contents become wrong (new net, clear)
    cdef object syzygy          # the SyzygyTables the search probes (s.tb points into it), or None
    cdef int helpers_epoch      # the epoch the helpers' caches were last emptied at

    def __cinit__(self, hash_mb: int = 16):
        self.s = <Search*>calloc(1, sizeof(Search))
        if self.s == NULL:
            raise MemoryError
        self.s.owner = <void*>self
        self.s.tt = &self.tt
        self.set_threads(1)
        self.s.group = &self.group
        self.s.thread_index = 0
        self.tt.buckets = NULL
        if not tt_resize(&self.tt, hash_mb):
            raise MemoryError(f"cannot allocate {hash_mb} MB of hash")
        self.s.opt.ordering = ORDER_HISTORY
        self.s.opt.multipv = 1
        self.s.opt.null_move = True
        self.s.opt.lmr = True
        self.s.opt.futility = True
        self.s.opt.tt_cutoffs = True
        self.s.opt.aspiration = True
        self.s.opt.nmm_min_depth = 0
        self.s.opt.nmm_cut_nodes_only = True
        self.s.opt.hhweight = 500.0
        self.s.opt.adaptive = False
        self.s.opt.beta_nn = 0.1
        self.s.opt.beta_hh = 0.1
        self.s.opt.forward_pruning = False
        self.s.opt.beam_width = 4
        self.s.opt.long_branches = False
        self.s.opt.regions_net = False
        self.s.opt.nmm_reductions = False
        self.s.opt.nmm_pruning = False
        self.s.opt.see_pruning = False
        self.s.opt.singular = False
        self.s.opt.double_extensions = False
        self.s.opt.counter_moves = False
        self.s.opt.razoring = False
        self.s.opt.qs_checks = False
        self.s.opt.probcut = False
        self.s.opt.cut_node_lmr = False
        self.s.opt.improving = True
        self.s.opt.check_extension = True
        self.s.opt.cont_history = False
        self.s.opt.history_lmr = False
        self.s.opt.history_pruning = False
        self.s.opt.correction = False
        self.s.opt.nonpawn_correction = False
        self.s.opt.tt_eval = False
        self.s.opt.capture_history = False
        self.s.opt.time_mode = TIME_STABILITY
        self.s.opt.helper_depths = HELPERS_PATTERN
        self.s.opt.defer_busy = True
        self.s.opt.defer_depth = DEFER_DEPTH
        self.s.opt.breadcrumbs = True
        self.s.opt.syzygy_probe_depth = 1
        self.s.opt.syzygy_50_move_rule = True
        self.s.opt.syzygy_probe_limit = SZ_PIECES
        self.s.tb = NULL
        memset(self.s.quiet_stats, 0, sizeof(self.s.quiet_stats))
        memset(self.s.cont_stats, 0, sizeof(self.s.cont_stats))
        memset(self.s.capture_stats, 0, sizeof(self.s.capture_stats))
        memset(self.s.corr_pawn, 0, sizeof(self.s.corr_pawn))
        memset(self.s.corr_nonpawn, 0, sizeof(self.s.corr_nonpawn))
        memset(self.s.counters, 0, sizeof(self.s.counters))
        memset(self.s.excluded, 0, sizeof(self.s.excluded))
        self.s.opt.nmm_prob_high = 0.2
        self.s.opt.nmm_prob_low = 0.02
        self.s.net = NULL
        self.net.weights = NULL
        self.net.scale = NULL
        self.net.bias = NULL
        self.net.w1 = self.net.b1 = self.net.w2 = NULL
        self.net.hidden = 0
        self.s.nmm_cache = <NmmCacheEntry*>calloc(NMM_CACHE_SIZE, sizeof(NmmCacheEntry))
        self.s.td = NULL
        self.td.w1 = self.td.b1 = self.td.w2 = self.td.b2 = NULL
        self.s.td_cache = <TdCacheEntry*>calloc(TD_CACHE_SIZE, sizeof(TdCacheEntry))
        self.s.nnue = NULL
        self.nnue.ft_weight = self.nnue.ft_bias = self.nnue.out_weight = NULL
        self.nnue.hidden = 0
        if self.s.nmm_cache == NULL or self.s.td_cache == NULL:
            raise MemoryError

    def __dealloc__(self):
        self._free_helpers()
        free(self.group.members)
        free(self.threads)
        if self.s != NULL:
            free(self.s.nmm_cache)
            free(self.s.td_cache)
            self.clear_strategy()
            self.clear_regions()
        self._free_td()
        nnue_free(&self.nnue)
        self.clear_nmm()
        free(self.tt.buckets)
        free(self.s)

    # --- threads (threads.pxi) -------------------------------------------------

    def set_threads(self, int n) -> None:
        """Search with ``n`` threads (1..256) from the next search on; MemoryError
        keeps one thread. Only between searches."""
        if not 1 <= n <= THREADS_LIMIT:
            raise ValueError(f"Threads is 1..{THREADS_LIMIT}")
        self._free_helpers()
        cdef Search** members = <Search**>calloc(n, sizeof(Search*))
        cdef pthread_t* threads = <pthread_t*>calloc(n, sizeof(pthread_t))
        cdef int i
        if members == NULL or threads == NULL:
            free(members)
            free(threads)
            raise MemoryError(f"no memory for {n} threads")
        free(self.group.members)
        free(self.threads)
        self.group.members, self.threads = members, threads
        members[0] = self.s
        self.helpers_epoch = self.cache_epoch      # calloc's caches are empty
        for i in range(1, n):
            members[i] = <Search*>calloc(1, sizeof(Search))
            if members[i] != NULL:
                members[i].nmm_cache = <NmmCacheEntry*>calloc(NMM_CACHE_SIZE, sizeof(NmmCacheEntry))
                members[i].td_cache = <TdCacheEntry*>calloc(TD_CACHE_SIZE, sizeof(TdCacheEntry))
            self.n_threads = i + 1          # _free_helpers frees what is there
            if members[i] == NULL or members[i].nmm_cache == NULL or members[i].td_cache == NULL:
                self._free_helpers()
                raise MemoryError(f"no memory for {n} threads; searching with one")
        self.n_threads = n

    cdef void _free_helpers(self):
        cdef int i
        for i in range(1, self.n_threads):
            if self.group.members[i] != NULL:
                free(self.group.members[i].nmm_cache)
                free(self.group.members[i].td_cache)
                free(self.group.members[i])
                self.group.members[i] = NULL
        self.n_threads = 1
        self.group.n = 1

    cdef void _renew_helper_caches(self):
        """Empty the helpers' caches if the net or the evaluation changed (or
        ``clear``) since they were last emptied. Zeroed in place: pages the
        search touched stay mapped, and a fresh page costs a page fault during
        the next search, all the more when several threads fault at once."""
        cdef int i
        if self.helpers_epoch == self.cache_epoch:
            return
        for i in range(1, self.n_threads):
            memset(self.group.members[i].nmm_cache, 0, NMM_CACHE_SIZE * sizeof(NmmCacheEntry))
            memset(self.group.members[i].td_cache, 0, TD_CACHE_SIZE * sizeof(TdCacheEntry))
        self.helpers_epoch = self.cache_epoch

    @property
    def threads(self) -> int:
        """Threads the next search uses."""
        return self.n_threads

    # --- the table, and forgetting ----------------------------------------------

    def set_hash(self, megabytes: int) -> None:
        """Resize (and clear) the table; MemoryError keeps the old table as it was."""
        cdef size_t mb = megabytes
        cdef int ok
        with nogil:
            ok = tt_resize(&self.tt, mb)
        if not ok:
            raise MemoryError(f"cannot allocate {megabytes} MB of hash")

    def clear(self) -> None:
        """Forget everything learnt: table, history, killers, move chains (``ucinewgame``).

        The TD net's cached scores and first-layer sums go too: the sums
        carry float rounding from the path that built them, so a search
        after clear() gives the same nodes whatever was searched before."""
        self._empty_caches(True, True)
        self.s.nmm_acc.valid = False
        self._forget_sums()
        forget_lines(self.s)
        memset(self.s.history, 0, sizeof(self.s.history))
        memset(self.s.killers, 0, sizeof(self.s.killers))
        memset(self.s.counters, 0, sizeof(self.s.counters))
        memset(self.s.quiet_stats, 0, sizeof(self.s.quiet_stats))
        memset(self.s.cont_stats, 0, sizeof(self.s.cont_stats))
        memset(self.s.capture_stats, 0, sizeof(self.s.capture_stats))
        memset(self.s.corr_pawn, 0, sizeof(self.s.corr_pawn))
        memset(self.s.corr_nonpawn, 0, sizeof(self.s.corr_nonpawn))
        chains_clear(self.s)
        memset(self.group.busy, 0, sizeof(self.group.busy))
        self.s.hhupdate = 0
        self.clear_hash()

    def clear_hash(self) -> None:
        """Empty the table. MemoryError (with a smaller table, empty) in the
        unlikely case that a large table's memory was taken while it was
        being renewed."""
        cdef int kept
        with nogil:
            kept = tt_clear(&self.tt)
        if not kept:
            raise MemoryError(f"the hash table had to shrink to {self.hash_mb} MB")

    @property
    def hash_mb(self) -> float:
        """The table's size in MB (the largest power of two of buckets within Hash)."""
        return (self.tt.mask + 1) * sizeof(TTBucket) / (1024 * 1024)

    # --- the evaluation: the TD net (engine/nets.py installs it) ---------------

    def set_td(self, squares: str, w1, b1, w2, b2, float cp_scale, bint on_handwritten=False,
               bint development=False) -> None:
        """Evaluate with a TD net from now on (engine.nets.TdNet's arrays,
        float32, C order; checked there; TdNet.install calls this).
        ``on_handwritten``: the net is a correction to the handwritten score;
        ``development``: its phase rule reads home_count, not the move number.
        Clears the table: its stored evaluations were the other function's."""
        import numpy as np
        cdef int which = square_set(squares)
        nets, inputs, hidden = np.shape(w1)
        if (nets not in (1, 3) or inputs != TD_FEATURES_A + TD_SQUARE_INPUTS[squares] or hidden > 1000
                or np.shape(b1) != (nets, hidden) or np.shape(b2) != (nets,)
                or np.shape(w2) != (nets, hidden if hidden else inputs)):
            raise ValueError("TD net shapes do not fit")
        if hidden % NMM_TD_LANES:          # the kernel works in lanes of 8: pad with idle units
            pad = NMM_TD_LANES - hidden % NMM_TD_LANES
            w1 = np.pad(w1, ((0, 0), (0, 0), (0, pad)))
            b1 = np.pad(b1, ((0, 0), (0, pad)))
            w2 = np.pad(w2, ((0, 0), (0, pad)))
            hidden += pad
        cdef const float[:, :, ::1] a1 = np.ascontiguousarray(w1, np.float32)
        cdef const float[:, ::1] a2 = np.ascontiguousarray(b1, np.float32)
        cdef const float[:, ::1] a3 = np.ascontiguousarray(w2, np.float32)
        cdef const float[::1] a4 = np.ascontiguousarray(b2, np.float32)
        self.use_td(False)
        self._free_td()
        self.td.w1 = <float*>malloc(max(1, nets * inputs * hidden) * sizeof(float))
        self.td.b1 = <float*>malloc(max(1, nets * hidden) * sizeof(float))
        self.td.w2 = <float*>malloc(nets * a3.shape[1] * sizeof(float))
        self.td.b2 = <float*>malloc(nets * sizeof(float))
        if self.td.w1 == NULL or self.td.b1 == NULL or self.td.w2 == NULL or self.td.b2 == NULL:
            self._free_td()
            raise MemoryError
        if hidden:
            memcpy(self.td.w1, &a1[0, 0, 0], nets * inputs * hidden * sizeof(float))
            memcpy(self.td.b1, &a2[0, 0], nets * hidden * sizeof(float))
        memcpy(self.td.w2, &a3[0, 0], nets * a3.shape[1] * sizeof(float))
        memcpy(self.td.b2, &a4[0], nets * sizeof(float))
        self.td.squares = which
        self.td.nets = nets
        self.td.hidden = hidden
        self.td.inputs = inputs
        self.td.cp_scale = cp_scale
        self.td.on_handwritten = on_handwritten
        self.td.development = development
        self._empty_caches(False, True)
        self._forget_sums()
        self.s.nnue = NULL
        self.s.td = &self.td
        self.clear_hash()

    def use_td(self, bint on) -> None:
        """Switch between the loaded TD net and the handwritten evaluation
        (the net stays loaded when off); clears the table when it changes."""
        if on and self.td.b2 == NULL:
            raise ValueError("no TD net is loaded")
        if on and self.s.td == NULL:
            self.s.nnue = NULL
            self.s.td = &self.td
            self._empty_caches(False, True)
            self._forget_sums()
            self.clear_hash()
        elif not on and self.s.td != NULL:
            self.s.td = NULL
            self.clear_hash()

    cdef void _empty_caches(self, bint nmm, bint td):
        """Empty the main search's NMM and/or TD caches; the helpers' follow at the next search."""
        if nmm:
            memset(self.s.nmm_cache, 0, NMM_CACHE_SIZE * sizeof(NmmCacheEntry))
        if td:
            memset(self.s.td_cache, 0, TD_CACHE_SIZE * sizeof(TdCacheEntry))
        self.cache_epoch += 1

    cdef void _forget_sums(self):
        """The accumulators were another net's: the next evaluation recomputes them."""
        cdef int i
        for i in range(TD_ACCUMULATORS):
            self.s.td_acc[i].valid = 0
        nnue_forget(self.s.nnue_acc)

    cdef void _free_td(self):
        free(self.td.w1)
        free(self.td.b1)
        free(self.td.w2)
        free(self.td.b2)
        self.td.w1 = self.td.b1 = self.td.w2 = self.td.b2 = NULL

    @property
    def uses_td(self) -> bool:
        return self.s.td != NULL

    def td_output(self, Board board, bint incremental=False) -> float:
        """The loaded TD net's expected result for the side to move (no cache);
        ``incremental``: through the searcher's accumulators, as the search
        evaluates, rather than summing every input afresh."""
        if self.td.b2 == NULL:
            raise ValueError("no TD net is loaded")
        cdef SideAttacks att[2]
        both_attacks(&board.pos, att)
        return td_output(&self.td, &board.pos, self.s.td_acc if incremental else NULL, att)

    # --- the evaluation: the NNUE (engine/evaluation/nnue.py installs it) -------

    def set_nnue(self, ft_weight, ft_bias, out_weight, out_bias, double scale) -> None:
        """Evaluate with an NNUE from now on (nnue.pxi; NnueNet.install calls
        this): ``ft_weight`` int16 (768, H), ``ft_bias`` int16 (H,),
        ``out_weight`` int16 (8, 2H), ``out_bias`` int32 (8,), ``scale`` the
        centipawns of one unit of the float output (rounded, as the reference
        rounds it). H is a multiple of 16 from 64 to 512. The numbers are
        copied; ValueError for arrays of other shapes or types, and for
        weights the integer kernels cannot take exactly (an output weight
        beyond +-127, or a hidden unit whose bias and 32 largest first-layer
        weights could leave int16). Clears the table: its stored evaluations
        were another function's."""
        import numpy as np
        arrays = [np.asarray(a) for a in (ft_weight, ft_bias, out_weight, out_bias)]
        H = arrays[1].shape[0] if arrays[1].ndim == 1 else -1
        expected = [((NNUE_INPUTS, H), np.int16), ((H,), np.int16), ((NNUE_BUCKETS, 2 * H), np.int16),
                    ((NNUE_BUCKETS,), np.int32)]
        for name, a, (shape, dtype) in zip(("ft_weight", "ft_bias", "out_weight", "out_bias"), arrays, expected):
            if a.shape != shape or a.dtype != dtype:
                raise ValueError(f"NNUE {name} is {a.dtype}{list(a.shape)}, expected {np.dtype(dtype)}{list(shape)}")
        if not (NNUE_MIN_HIDDEN <= H <= NNUE_MAX_HIDDEN and H % NMM_NNUE_LANES == 0):
            raise ValueError(f"NNUE hidden size {H}: the core runs {NNUE_MIN_HIDDEN} to {NNUE_MAX_HIDDEN}, "
                             f"a multiple of {NMM_NNUE_LANES}")
        if not (np.isfinite(scale) and 1 <= round(scale) <= 100_000):
            raise ValueError(f"NNUE scale {scale!r} is not a usable number of centipawns")
        if np.abs(arrays[2].astype(np.int32)).max() > NNUE_MAX_OUT_WEIGHT:
            raise ValueError(f"NNUE output weights beyond +-{NNUE_MAX_OUT_WEIGHT}: the output kernel's "
                             f"int16 products would overflow")
        largest = np.sort(np.abs(arrays[0].astype(np.int32)), axis=0)[-NNUE_MAX_MEN:].sum(axis=0)
        if (np.abs(arrays[1].astype(np.int32)) + largest).max() > 32767:
            raise ValueError("NNUE first-layer weights so large that an accumulator could leave int16")
        cdef const int16_t[:, ::1] fw = np.ascontiguousarray(arrays[0])
        cdef const int16_t[::1] fb = np.ascontiguousarray(arrays[1])
        cdef const int16_t[:, ::1] ow = np.ascontiguousarray(arrays[2])
        cdef const int32_t[::1] ob = np.ascontiguousarray(arrays[3])
        cdef void* p1 = NULL
        cdef void* p2 = NULL
        cdef void* p3 = NULL
        cdef int h = H, b
        self.use_nnue(False)
        nnue_free(&self.nnue)
        if (posix_memalign(&p1, 64, NNUE_INPUTS * h * sizeof(int16_t)) != 0
                or posix_memalign(&p2, 64, h * sizeof(int16_t)) != 0
                or posix_memalign(&p3, 64, NNUE_BUCKETS * 2 * h * sizeof(int16_t)) != 0):
            free(p1)
            free(p2)
            free(p3)
            raise MemoryError("no memory for the NNUE")
        self.nnue.ft_weight, self.nnue.ft_bias, self.nnue.out_weight = <int16_t*>p1, <int16_t*>p2, <int16_t*>p3
        memcpy(self.nnue.ft_weight, &fw[0, 0], NNUE_INPUTS * h * sizeof(int16_t))
        memcpy(self.nnue.ft_bias, &fb[0], h * sizeof(int16_t))
        memcpy(self.nnue.out_weight, &ow[0, 0], NNUE_BUCKETS * 2 * h * sizeof(int16_t))
        for b in range(NNUE_BUCKETS):
            self.nnue.out_bias[b] = ob[b]
        self.nnue.scale = round(scale)
        self.nnue.hidden = h
        self.use_nnue(True)

    def use_nnue(self, bint on) -> None:
        """Switch between the loaded NNUE and the handwritten evaluation (the
        net stays loaded when off; on, it replaces a TD net in use); clears
        the table when it changes."""
        if on and self.nnue.hidden == 0:
            raise ValueError("no NNUE is loaded")
        if on and self.s.nnue == NULL:
            self.s.td = NULL
            self.s.nnue = &self.nnue
            nnue_forget(self.s.nnue_acc)        # the helpers copy the main search's at each search
            self.clear_hash()
        elif not on and self.s.nnue != NULL:
            self.s.nnue = NULL
            self.clear_hash()

    @property
    def uses_nnue(self) -> bool:
        return self.s.nnue != NULL

    # --- the Neural MoveMap (engine/nets.py installs it) -----------------------

    def set_nmm(self, encoding: str, weights, bias) -> None:
        """Load a Neural MoveMap: ``weights`` as N_OUTPUTS rows of the encoding's
        inputs (float32, C order), ``bias`` N_OUTPUTS values. engine.nets
        reads and checks the files; this only copies the numbers."""
        cdef int enc = ENCODING_NAMES.index(encoding)
        cdef int n_in = ENCODING_INPUTS[enc]
        cdef const float[:, ::1] w = weights
        cdef const float[::1] b = bias
        if w.shape[0] != N_OUTPUTS or w.shape[1] != n_in or b.shape[0] != N_OUTPUTS:
            raise ValueError(f"NMM shapes {tuple(weights.shape)}, {tuple(bias.shape)} do not fit "
                             f"{encoding} ({N_OUTPUTS} x {n_in})")
        quantised, scale = quantise_rows(weights)
        cdef const int8_t[:, ::1] q = quantised
        cdef const float[::1] sc = scale
        self.clear_nmm()
        self.net.weights = <int8_t*>malloc(N_OUTPUTS * n_in * sizeof(int8_t))
        self.net.scale = <float*>malloc(N_OUTPUTS * sizeof(float))
        self.net.bias = <float*>malloc(N_OUTPUTS * sizeof(float))
        if self.net.weights == NULL or self.net.scale == NULL or self.net.bias == NULL:
            self.clear_nmm()
            raise MemoryError
        memcpy(self.net.weights, &q[0, 0], N_OUTPUTS * n_in * sizeof(int8_t))
        memcpy(self.net.scale, &sc[0], N_OUTPUTS * sizeof(float))
        memcpy(self.net.bias, &b[0], N_OUTPUTS * sizeof(float))
        self._net_ready(enc, n_in)

    def set_nmm_hidden(self, encoding: str, w1, b1, w2, b2) -> None:
        """Load a Neural MoveMap with a hidden layer: ``w1`` (inputs x hidden),
        ``b1`` (hidden), ``w2`` (N_OUTPUTS x hidden), ``b2`` (N_OUTPUTS), float32;
        binary encodings only (mirrored768, context960)."""
        import numpy as np
        cdef int enc = ENCODING_NAMES.index(encoding)
        cdef int n_in = ENCODING_INPUTS[enc]
        if enc != ENC_MIRRORED and enc != ENC_CONTEXT:
            raise ValueError(f"a hidden layer needs a binary encoding, not {encoding}")
        cdef const float[:, ::1] a1 = np.ascontiguousarray(w1, np.float32)
        cdef const float[::1] a2 = np.ascontiguousarray(b1, np.float32)
        cdef const float[:, ::1] a3 = np.ascontiguousarray(w2, np.float32)
        cdef const float[::1] a4 = np.ascontiguousarray(b2, np.float32)
        cdef int hidden = a1.shape[1]
        if (a1.shape[0] != n_in or not 0 < hidden <= NMM_MAX_HIDDEN or a2.shape[0] != hidden
                or a3.shape[0] != N_OUTPUTS or a3.shape[1] != hidden or a4.shape[0] != N_OUTPUTS):
            raise ValueError(f"hidden NMM shapes do not fit {encoding} ({n_in} inputs, 1..{NMM_MAX_HIDDEN} "
                             f"hidden units, {N_OUTPUTS} outputs)")
        self.clear_nmm()
        self.net.w1 = <float*>malloc(n_in * hidden * sizeof(float))
        self.net.b1 = <float*>malloc(hidden * sizeof(float))
        self.net.w2 = <float*>malloc(N_OUTPUTS * hidden * sizeof(float))
        self.net.bias = <float*>malloc(N_OUTPUTS * sizeof(float))
        if self.net.w1 == NULL or self.net.b1 == NULL or self.net.w2 == NULL or self.net.bias == NULL:
            self.clear_nmm()
            raise MemoryError
        memcpy(self.net.w1, &a1[0, 0], n_in * hidden * sizeof(float))
        memcpy(self.net.b1, &a2[0], hidden * sizeof(float))
        memcpy(self.net.w2, &a3[0, 0], N_OUTPUTS * hidden * sizeof(float))
        memcpy(self.net.bias, &a4[0], N_OUTPUTS * sizeof(float))
        self.net.hidden = hidden
        self._net_ready(enc, n_in)

    cdef void _net_ready(self, int enc, int n_in):
        self.net.encoding = enc
        self.net.n_inputs = n_in
        self.net.binary = enc == ENC_MIRRORED or enc == ENC_CONTEXT
        self._empty_caches(True, False)
        self.s.nmm_acc.valid = False
        self.s.net = &self.net

    def clear_nmm(self) -> None:
        """Unload the net: every ordering then behaves as history."""
        self.s.net = NULL
        free(self.net.weights)
        free(self.net.scale)
        free(self.net.bias)
        free(self.net.w1)
        free(self.net.b1)
        free(self.net.w2)
        self.net.weights = NULL
        self.net.scale = NULL
        self.net.bias = NULL
        self.net.w1 = self.net.b1 = self.net.w2 = NULL
        self.net.hidden = 0

    @property
    def has_nmm(self) -> bool:
        return self.s.net != NULL

    def nmm_scores(self, Board board, bint incremental=False) -> list[tuple[str, float]]:
        """Every legal move with the net's score, best first (``nmm`` command).

        Promotions share their pawn's from-to output; the promotions of one
        pawn keep the order queen, rook, bishop, knight (stable sort).
        ``incremental``: a hidden layer's sums come from the search's
        accumulator (brought from the last position scored), not from scratch."""
        if self.s.net == NULL:
            raise ValueError("no NMM net is loaded")
        cdef Move moves[MAX_MOVES]
        cdef float scores[MAX_MOVES]
        cdef NmmAccumulator acc
        cdef int n = generate_moves(&board.pos, moves, GEN_ALL), i
        acc.valid = False
        nmm_move_scores(&self.net, &self.s.nmm_acc if incremental else &acc, &board.pos, moves, n, scores)
        scored = [(move_to_uci(&board.pos, moves[i]), scores[i]) for i in range(n)]
        return sorted(scored, key=lambda item: -item[1])

    # --- options -------------------------------------------------------------

    def configure(self, **changes) -> None:
        """Set search options by the names ``settings`` shows; None leaves one
        as it is. All are checked before any is set: an unknown name is a
        TypeError, a bad value a ValueError, and either leaves every option
        as it was.

        Switches take a bool (``null_move``, ``lmr``, ``singular``,
        ``correction``, ... one for each method of the search). Names take
        their list's words: ``ordering`` (ORDERING_NAMES), ``time_management``
        (TIME_MODES: how the thought on a clock bends to the search, see
        ``think_factor``), ``helper_depths`` (HELPER_DEPTHS, a study's
        switch: which depths Lazy SMP helpers leave out). Counts are brought
        into range: ``multipv``, ``move_tables`` (table moves a node tries),
        ``beam_width``, ``syzygy_probe_depth`` and ``syzygy_probe_limit``.

        With more than one thread: ``defer_busy``, a move another thread is
        searching at the same node is searched after the node's other moves,
        at nodes of ``defer_depth`` (at least 1) or more; ``breadcrumbs``,
        late moves are reduced a ply more at a node within 8 plies of the
        root that another thread is searching too (Stockfish 11's
        breadcrumbs; on unless a study asks). With Syzygy tables
        (``set_syzygy``): the search probes from ``syzygy_probe_depth`` on
        (positions of the tables' largest size; smaller ones always);
        ``syzygy_50_move_rule``, a win the fifty-move rule spoils counts as a
        draw; ``syzygy_probe_limit``, no probe with more men than this.

        >>> s = Searcher(1)
        >>> s.configure(multipv=1000, time_management="fixed", razoring=None)
        >>> s.settings["multipv"], s.settings["time_management"]      # MAX_MOVES lines at most
        (324, 'fixed')
        >>> s.configure(multipv=2, nmm_prob_high=2.0)
        Traceback (most recent call last):
        ValueError: nmm_prob_high is a probability, not 2.0
        >>> s.settings["multipv"]
        324
        """
        opt = self.s.opt                # the struct as a dict, by its field names
        for name, value in changes.items():
            if value is None:
                continue
            if name in NAMED_SETTINGS:
                field, words = NAMED_SETTINGS[name]
                if value not in words:
                    raise ValueError(f"{name} must be one of {words}, not {value!r}")
                opt[field] = words.index(value)
            elif name in COUNTED_SETTINGS:
                low, high = COUNTED_SETTINGS[name]
                opt[name] = max(low, min(int(value), high))
            elif name in opt and name not in NAMED_FIELDS:
                opt[name] = value
            else:
                raise TypeError(f"configure() got an unexpected keyword argument {name!r}")
        for name in ("nmm_prob_high", "nmm_prob_low"):
            if not 0 <= opt[name] <= 1:
                raise ValueError(f"{name} is a probability, not {opt[name]}")
        if not opt["hhweight"] > 0:
            raise ValueError(f"the history weight must be positive, not {opt['hhweight']}")
        if opt["defer_depth"] < 1:
            raise ValueError(f"defer_depth must be at least 1, not {opt['defer_depth']}")
        self.s.opt = opt

    @property
    def settings(self) -> dict:
        """What ``configure`` has set, by its keywords: a session checks
        that its options' defaults reached the core.

        >>> s = Searcher(1)
        >>> s.configure(razoring=True, multipv=3)
        >>> s.settings["razoring"], s.settings["multipv"], s.settings["ordering"]
        (True, 3, 'history')
        """
        settings = self.s.opt           # the struct as a dict, by its field names
        settings["ordering"] = ORDERING_NAMES[self.s.opt.ordering]
        settings["helper_depths"] = HELPER_DEPTHS[self.s.opt.helper_depths]
        settings["time_management"] = TIME_MODES[settings.pop("time_mode")]
        return settings

    # --- ChessMaps' files: strategy database, regions net, move tables ---------

    def set_strategy(self, keys, popular, share) -> None:
        """Load a strategy database (engine/data/strategy.py: move keys, and per
        key the popular piece code and its share on each square)."""
        import numpy as np
        cdef int[::1] k = np.ascontiguousarray(keys, np.int32)
        cdef uint8_t[:, ::1] pop = np.ascontiguousarray(popular, np.uint8)
        cdef uint8_t[:, ::1] sh = np.ascontiguousarray(share, np.uint8)
        cdef int n = k.shape[0], i
        if pop.shape[0] != n or sh.shape[0] != n or pop.shape[1] != 64 or sh.shape[1] != 64:
            raise ValueError("a strategy database needs (n,) keys and (n, 64) popular and share")
        if n and (min(keys) < 0 or max(keys) >= 6 * 64 * 64 or np.asarray(popular).max() >= 13):
            raise ValueError("move keys or piece codes out of range")
        self.clear_strategy()
        if n == 0:
            return
        self.s.strategy.index = <int*>malloc(6 * 64 * 64 * sizeof(int))
        self.s.strategy.popular = <uint8_t*>malloc(n * 64)
        self.s.strategy.share = <uint8_t*>malloc(n * 64)
        if self.s.strategy.index == NULL or self.s.strategy.popular == NULL or self.s.strategy.share == NULL:
            self.clear_strategy()
            raise MemoryError("no memory for the strategy database")
        for i in range(6 * 64 * 64):
            self.s.strategy.index[i] = -1
        for i in range(n):
            self.s.strategy.index[k[i]] = i
        memcpy(self.s.strategy.popular, &pop[0, 0], n * 64)
        memcpy(self.s.strategy.share, &sh[0, 0], n * 64)
        self.s.strategy.n = n

    def clear_strategy(self) -> None:
        """Unload the strategy database: the beam keeps no moves for popular squares."""
        self.s.strategy.n = 0
        free(self.s.strategy.index)
        free(self.s.strategy.popular)
        free(self.s.strategy.share)
        self.s.strategy.index = NULL
        self.s.strategy.popular = NULL
        self.s.strategy.share = NULL

    @property
    def has_strategy(self) -> bool:
        return self.s.strategy.n > 0

    def set_regions(self, weights, bias) -> None:
        """Load a regions net: (REGION_INPUTS, 64) weights and (64,) bias (engine/train/regions.py)."""
        import numpy as np
        cdef float[:, ::1] w = np.ascontiguousarray(weights, np.float32)
        cdef float[::1] b = np.ascontiguousarray(bias, np.float32)
        if w.shape[0] != REGION_INPUTS or w.shape[1] != 64 or b.shape[0] != 64:
            raise ValueError(f"a regions net is ({REGION_INPUTS}, 64) weights and (64,) bias")
        self.clear_regions()
        self.s.regions.w = <float*>malloc(REGION_INPUTS * 64 * sizeof(float))
        if self.s.regions.w == NULL:
            raise MemoryError("no memory for the regions net")
        memcpy(self.s.regions.w, &w[0, 0], REGION_INPUTS * 64 * sizeof(float))
        memcpy(self.s.regions.b, &b[0], 64 * sizeof(float))

    def clear_regions(self) -> None:
        free(self.s.regions.w)
        self.s.regions.w = NULL

    @property
    def has_regions(self) -> bool:
        return self.s.regions.w != NULL

    def get_move_tables(self) -> dict:
        """The tables as arrays (engine/memory.py writes them to a file): moves
        (2, 6, 64, MT_SLOTS, 3) uint16, weight (..., ) int16, evals (..., 10)
        int16, n_evals uint8, and each path's combined score (the paper's series)."""
        import numpy as np
        shape = (2, 6, 64, MT_SLOTS)
        moves = np.zeros(shape + (3,), np.uint16)
        weight = np.zeros(shape, np.int16)
        evals = np.zeros(shape + (MT_EVALS,), np.int16)
        n_evals = np.zeros(shape, np.uint8)
        combined = np.zeros(shape, np.int16)
        cdef int c, pt, sq, i, k
        cdef MtPath* path
        for c in range(2):
            for pt in range(6):
                for sq in range(64):
                    for i in range(MT_SLOTS):
                        path = &self.s.tables[c][pt][sq][i]
                        for k in range(3):
                            moves[c, pt, sq, i, k] = path.moves[k]
                        weight[c, pt, sq, i] = path.weight
                        for k in range(MT_EVALS):
                            evals[c, pt, sq, i, k] = path.evals[k]
                        n_evals[c, pt, sq, i] = path.n_evals
                        combined[c, pt, sq, i] = mt_series(path)
        return {"moves": moves, "weight": weight, "evals": evals, "n_evals": n_evals, "combined": combined}

    def set_move_tables(self, moves, weight, evals, n_evals) -> None:
        """Load tables exported by get_move_tables (shapes checked; a path's first
        move must start on its own square)."""
        import numpy as np
        shape = (2, 6, 64, MT_SLOTS)
        if (np.shape(moves) != shape + (3,) or np.shape(weight) != shape
                or np.shape(evals) != shape + (MT_EVALS,) or np.shape(n_evals) != shape):
            raise ValueError("move tables of another shape")
        sq_of = np.asarray(moves)[..., 0] & 63
        used = np.asarray(moves)[..., 0] != 0
        if (used & (sq_of != np.arange(64)[None, None, :, None])).any() or (np.asarray(n_evals) > MT_EVALS).any():
            raise ValueError("move tables that do not hold together")
        cdef int c, pt, sq, i, k
        cdef MtPath* path
        for c in range(2):
            for pt in range(6):
                for sq in range(64):
                    for i in range(MT_SLOTS):
                        path = &self.s.tables[c][pt][sq][i]
                        for k in range(3):
                            path.moves[k] = int(moves[c, pt, sq, i, k])
                        path.weight = int(weight[c, pt, sq, i])
                        for k in range(MT_EVALS):
                            path.evals[k] = int(evals[c, pt, sq, i, k])
                        path.n_evals = int(n_evals[c, pt, sq, i])

    def clear_move_tables(self) -> None:
        memset(self.s.tables, 0, sizeof(self.s.tables))

    # --- the Syzygy tables (syzygy.pxi, search_syzygy.pxi) -------------------------

    def set_syzygy(self, tables: SyzygyTables | None) -> None:
        """Search with these tables from the next search on (None: without).
        The searcher keeps them open; only between searches."""
        self.syzygy = tables
        self.s.tb = (<SyzygyTables>tables).tb if tables is not None else NULL

    @property
    def syzygy_tables(self) -> SyzygyTables | None:
        return self.syzygy

    # --- searching -----------------------------------------------------------

    def search(self, Board board, *, depth: int | None = None, nodes: int | None = None,
               soft_nodes: int | None = None, soft_ms: float | None = None, hard_ms: float | None = None,
               mate: int | None = None, searchmoves: list[str] | None = None,
               ponder: bool = False, start_ms: float | None = None, on_info=None,
               on_currmove=None) -> dict:
        """Search ``board`` until a limit is reached (or ``stop``); return the result.

        The same as ``begin(...)`` then ``run(on_info, on_currmove)``.
        """
        self.begin(board, depth=depth, nodes=nodes, soft_nodes=soft_nodes, soft_ms=soft_ms, hard_ms=hard_ms, mate=mate,
                   searchmoves=searchmoves, ponder=ponder, start_ms=start_ms)
        return self.run(on_info, on_currmove)

    def begin(self, Board board, *, depth: int | None = None, nodes: int | None = None,
              soft_nodes: int | None = None, soft_ms: float | None = None, hard_ms: float | None = None,
              mate: int | None = None, searchmoves: list[str] | None = None,
              ponder: bool = False, start_ms: float | None = None) -> None:
        """Set up a search of ``board``; ``run`` carries it out.

        Limits left None do not apply; ``depth`` is clamped to 1..MAX_DEPTH,
        ``mate`` (moves) to MAX_DEPTH // 2. ``soft_nodes``: no new iteration once
        that many nodes are searched (``nodes`` is the hard cap). ``soft_ms``: no new iteration after
        it; ``hard_ms``: stop there, both counted from ``start_ms`` (the
        ``monotonic_ms`` clock; default now) and not while ``ponder`` holds
        (until ``ponderhit``). ``searchmoves``: the root moves to consider, in
        either castling notation; when none of them is legal, all are.
        Apart from the two calls the UCI layer makes between begin and run
        (``ponderhit``, the stop flag), nothing may touch the searcher until
        run returns.
        """
        cdef Search* s = self.s
        cdef Move m
        s.pos = board.pos
        if s.pos.hist_len > HISTORY_CAP - MAX_PLY - 8:
            compact_history(&s.pos)
        s.limits.depth = max(1, min(depth or MAX_DEPTH, MAX_DEPTH))
        s.limits.nodes = max(0, min(nodes or 0, 2**63))
        s.limits.soft_nodes = max(0, min(soft_nodes or 0, 2**63))
        s.limits.soft_ms = max(0.0, soft_ms or 0.0)
        s.limits.hard_ms = max(0.0, hard_ms or 0.0)
        s.limits.mate = max(0, min(mate or 0, MAX_DEPTH // 2))
        s.limits.n_searchmoves = 0
        for uci in searchmoves or ():
            m = board._parse(uci)
            if m and not contains(s.limits.searchmoves, 0, s.limits.n_searchmoves, m):
                s.limits.searchmoves[s.limits.n_searchmoves] = m
                s.limits.n_searchmoves += 1
        s.pondering = ponder
        reset_search(s)
        tb_prepare_root(s)
        s.start_ms = now_ms() if start_ms is None else start_ms

    def run(self, on_info=None, on_currmove=None) -> dict:
        """Carry out the search ``begin`` set up, with the GIL released.

        ``on_info(dict)`` is called after every iteration for every MultiPV
        line (and on aspiration failures after a second); ``on_currmove(depth,
        move, number)`` for each root move after three seconds. The result holds
        ``bestmove`` and ``ponder`` (UCI strings or None), ``score``, ``mate``,
        ``depth`` (the last completed iteration), ``nodes``, ``time_ms`` and
        ``line``: the report of the move played as on_info gives it, for a
        final ``info`` when a stopped iteration changed the move (None when
        there is no move).
        """
        self.on_info = on_info
        self.on_currmove = on_currmove
        self._renew_helper_caches()
        try:
            with nogil:
                group_search(&self.group, self.n_threads, self.threads)
        finally:
            self.on_info = None
            self.on_currmove = None
        return self._result()

    def ponderhit(self, at_ms: float | None = None) -> None:
        """The opponent played the expected move: the clock counts from
        ``at_ms`` (when ponderhit arrived; default now)."""
        self.s.start_ms = now_ms() if at_ms is None else at_ms
        self.s.pondering = 0

    # --- what the search reports ---------------------------------------------

    cdef dict _line(self, int index, Search* src=NULL):
        """Line ``index`` of the main search (or of ``src``, the thread whose move is played)."""
        if src == NULL:
            src = self.s
        cdef RootMove* rm = &src.root[index]
        cdef int score = tb_shown(rm, rm.score if rm.score != -INFINITE else rm.prev_score)
        cdef double elapsed = max(now_ms() - self.s.start_ms, 0.001)
        bound = None
        if rm.score != -INFINITE and rm.bound == BOUND_LOWER:
            bound = "lowerbound"
        elif rm.score != -INFINITE and rm.bound == BOUND_UPPER and index == src.pv_index:
            bound = "upperbound"
        line = {
            "depth": src.root_depth,
            "seldepth": max(rm.seldepth, src.root_depth),
            "multipv": index + 1,
            "score": score,
            "mate": uci_score(score) or None,
            "bound": bound,
            "nodes": group_nodes(&self.group),
            "nps": int(group_nodes(&self.group) * 1000 / elapsed),
            "time_ms": int(elapsed),
            "hashfull": tt_hashfull(&self.tt),
            "pv": [move_to_uci(&src.pos, rm.pv[i]) for i in range(rm.pv_len)],
        }
        if self.s.tb != NULL:
            line["tbhits"] = group_tb_hits(&self.group)
        return line

    cdef void _report_lines(self, int first, int end):
        if self.on_info is not None:
            for i in range(first, end):
                self.on_info(self._line(i))

    cdef void _report_currmove(self, Move m, int number):
        if self.on_currmove is not None:
            self.on_currmove(self.s.root_depth, move_to_uci(&self.s.pos, m), number)

    cdef dict _result(self):
        cdef Search* best = chosen_thread(&self.group)
        cdef RootMove* rm = &best.root[0]
        if self.s.n_root == 0:
            return {"bestmove": None, "ponder": None, "score": 0, "mate": None,
                    "depth": 0, "nodes": group_nodes(&self.group), "time_ms": 0, "line": None}
        cdef int score = tb_shown(rm, rm.prev_score if rm.prev_score != -INFINITE else rm.score)
        return {
            "bestmove": move_to_uci(&best.pos, rm.move),
            "ponder": move_to_uci(&best.pos, rm.pv[1]) if rm.pv_len > 1 else None,
            "score": score,
            "mate": uci_score(score) or None,
            "depth": best.completed_depth,
            "nodes": group_nodes(&self.group),
            "time_ms": int(now_ms() - self.s.start_ms),
            "line": self._line(0, best),
            "thread": best.thread_index,
        }

    def root_lines(self, int count) -> list:
        """After ``run``: the best ``count`` lines of the main search's last
        completed iteration (its MultiPV lines), best first, as on_info gives
        them, with that iteration's depth and scores (a stopped iteration's
        partial scores and order are left out). What UCI_LimitStrength
        chooses among (engine/strength.py); empty before any iteration."""
        cdef Search* s = self.s
        cdef int i
        if s.n_root == 0 or s.completed_depth == 0:
            return []
        found = [(-s.root[i].prev_score, i) for i in range(s.n_root) if s.root[i].prev_score != -INFINITE]
        found.sort()                    # best first; the search's order on ties
        lines = []
        for rank, (_, i) in enumerate(found[:max(count, 0)]):
            line = self._line(i)
            line.update(depth=s.completed_depth, multipv=rank + 1, score=s.root[i].prev_score,
                        mate=uci_score(s.root[i].prev_score) or None, bound=None)
            lines.append(line)
        return lines

    # --- evaluation ------------------------------------------------------------

    def evaluate(self, Board board) -> int:
        """Static evaluation in centipawns, side to move's view, by the
        evaluation in use (the TD net's through its cache, the NNUE's
        through the main search's accumulators)."""
        return static_eval(self.s, &board.pos)
        cdef const uint8_t[:, ::1] raw = array.view(np.uint8).reshape(n, SP_RECORD_SIZE)
        cdef int32_t[::1] scores = out
        cdef Position pos
        cdef const SelfplayRecord* r
        for i in range(n):
            r = <const SelfplayRecord*>&raw[i, 0]
            if popcount(r.occupancy) > 32 or not r.occupancy:
                raise ValueError(f"record {i} holds no position the engine accepts")
        with nogil:
            for i in range(n):
                unpack_position(<const SelfplayRecord*>&raw[i, 0], &pos)
                scores[i] = static_eval(self.s, &pos)
        return out


def eval_trace(Board board) -> dict:
    """The handwritten evaluation term by term (packed scores unpacked).

    Returns ``{"terms": {name: (white_mg, white_eg, black_mg, black_eg)},
    "phase": p, "scale": s, "total": cp}`` with ``total`` from White's view.
    """
    cdef EvalTrace trace
    trace.coef = NULL
    evaluate(&board.pos, &trace)
    terms = {}
    for t in range(N_TERMS):
        w = trace.terms[t][WHITE]
        b = trace.terms[t][BLACK]
        terms[EVAL_TERM_NAMES[t]] = (mg_of(w), eg_of(w), mg_of(b), eg_of(b))
    return {"terms": terms, "phase": trace.phase, "scale": trace.scale, "total": trace.total,
            "tempo": TEMPO}
