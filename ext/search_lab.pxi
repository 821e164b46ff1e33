# The lab's face of the search: LabSearcher is a Searcher (search_api.pxi)
# that also lets studies and training look inside a search: the counters the
# ordering and pruning stages keep, probes of one stage at one position, the
# evaluation's cost, and the quiet cut-offs recorded for training. The lab
# (engine/data, engine/train, engine/study, engine/tools) makes one, directly
# or through engine.session.default_searcher(searcher_class=LabSearcher); the
# playing engine never does, and none of this changes what a search does.


cdef class LabSearcher(Searcher):
    """A Searcher with the readings studies and training take.

    >>> lab = LabSearcher(hash_mb=1)
    >>> lab.record_cutoffs(10_000)
    >>> lab.search(Board(), depth=5)["depth"]
    5
    >>> cuts = lab.take_cutoffs()
    >>> len(cuts["cut"]) > 0, cuts["dropped"]
    (True, 0)
    """

    def __dealloc__(self):          # before Searcher's, which frees the search state
        if self.s != NULL:
            self.stop_recording()

    # --- counters of the last search, or since the searcher was made ---------

    @property
    def thread_nodes(self) -> list[int]:
        """Nodes each thread searched in the last search, the main one first."""
        return [self.group.members[i].nodes for i in range(self.group.n)]

    @property
    def history_weight(self) -> float:
        """The history weight at the end of the last search (it moves when adaptive)."""
        return self.s.hhweight

    @property
    def misses(self) -> tuple[int, int]:
        """(nn-misses, hh-misses) counted in the last search."""
        return self.s.nn_misses, self.s.hh_misses

    @property
    def chain_stats(self) -> dict[str, int]:
        """The move chains so far (since the Searcher was made): moves the chain
        stage gave, how many of them cut off, and the chains held now."""
        cdef int side, sq, held = 0
        for side in range(2):
            for sq in range(64):
                held += self.s.chains[side][sq].move != 0
        return {"tries": self.s.chain_tries, "cutoffs": self.s.chain_cutoffs, "held": held}

    @property
    def table_stats(self) -> dict[str, int]:
        """The move tables: moves they gave, how many cut off, the paths held
        and how many of those are reliable (a positive weight)."""
        cdef int c, pt, sq, i, held = 0, reliable = 0
        for c in range(2):
            for pt in range(6):
                for sq in range(64):
                    for i in range(MT_SLOTS):
                        held += self.s.tables[c][pt][sq][i].moves[0] != 0
                        reliable += self.s.tables[c][pt][sq][i].moves[0] != 0 and self.s.tables[c][pt][sq][i].weight > 0
        return {"tries": self.s.table_tries, "cutoffs": self.s.table_cutoffs, "held": held, "reliable": reliable}

    @property
    def pruning_stats(self) -> dict[str, int]:
        """Forward pruning so far (since the Searcher was made): quiet moves the
        beam judged by their class, how many it pruned, and how many of those
        were searched after all for the key squares."""
        return {"quiets": self.s.fp_quiets, "pruned": self.s.fp_pruned, "readded": self.s.fp_readded}

    @property
    def long_branch_stats(self) -> dict[str, int]:
        """Long branches so far (since the Searcher was made): played, and how
        often the node's full search then agreed with the branch on beta
        (both at or above it, or both below) and on the move."""
        return {"played": self.s.lb_played, "same_verdict": self.s.lb_same_verdict,
                "same_move": self.s.lb_same_move}

    # --- probes: one stage at one position -----------------------------------

    def beam(self, Board board, int depth=FP_MIN_DEPTH, key_squares=()) -> dict:
        """What forward pruning does at a node of ``board`` with ``depth``
        plies left (non-PV, no TT move): every move in the picker's order with
        the reason it is searched ("pruned" if it is not), and the pruned
        moves a poor result re-adds when ``key_squares`` (names, "e4") are
        the refutation's squares. In check nothing is pruned ("evasion")."""
        cdef Picker picker
        cdef Beam beam
        cdef Move m
        cdef int searched = 0, reason
        cdef bint check = in_check(&board.pos)
        self.s.pos = board.pos
        picker_init(&picker, self.s, 0, 1, depth, False)
        beam_init(&beam, self.s, &self.s.pos, &picker,
                  self.s.opt.forward_pruning and not check and depth >= FP_MIN_DEPTH)
        moves = []
        while True:
            m = picker_next(&picker, self.s, 1)
            if m == 0:
                break
            if not beam.on:
                moves.append((move_to_uci(&self.s.pos, m), "evasion" if check else "unpruned"))
                continue
            reason = beam_verdict(&beam, self.s, &self.s.pos, m, 0, searched == 0, is_noisy(&self.s.pos, m),
                                  picker.from_chain or picker.from_table,
                                  m == self.s.killers[1][0] or m == self.s.killers[1][1])
            moves.append((move_to_uci(&self.s.pos, m), FP_REASONS[reason]))
            searched += reason != FP_PRUNED
        for name in key_squares:
            beam.key_squares |= bit(parse_square(name))
        return {"moves": moves,
                "readded": [move_to_uci(&self.s.pos, beam.pruned[i]) for i in range(beam_readd(&beam, &self.s.pos))]}

    def region_weights(self, Board board, bint net=True) -> list[int]:
        """Every square's weight (a1..h8) for the side to move: by the regions
        net if ``net`` and one is loaded, else by the hand rule."""
        cdef int weights[64]
        cdef SquareWeights planes
        if net and self.s.regions.w != NULL:
            net_regions(&self.s.regions, &board.pos, weights)
            return [weights[i] for i in range(64)]
        hand_regions(&board.pos, &planes)
        return [square_weight(&planes, i) for i in range(64)]

    def eval_cost(self, Board board, int repeats=10000) -> tuple[float, float, float, float]:
        """Nanoseconds for the handwritten evaluation, for the TD features, for
        the whole TD evaluation (features, net, and the handwritten score under
        a net on handwritten; no cache, no accumulator) of ``board``, and for
        one phase net alone."""
        if self.td.b2 == NULL:
            raise ValueError("no TD net is loaded")
        cdef float dense[FEATURES_A]
        cdef float sink = 0
        cdef double t0, t1, t2, t3, t4
        cdef int r
        cdef int act[MAX_ACTIVE]
        cdef TdInputs x
        cdef int n_act = active_squares(&board.pos, self.td.squares == 2, act) if self.td.squares else 0
        features_a(&board.pos, dense)
        with nogil:
            t0 = now_ms()
            for r in range(repeats):
                sink += evaluate(&board.pos, NULL)
            t1 = now_ms()
            for r in range(repeats):
                features_a(&board.pos, dense)
                sink += dense[r % FEATURES_A]
            t2 = now_ms()
            for r in range(repeats):
                sink += td_score(&self.td, &board.pos, NULL)
            t3 = now_ms()
            for r in range(repeats):
                dense[0] += 1e-9
                td_inputs(dense, act, n_act, &x)
                sink += td_net_output(&self.td, 0, dense, &x, True, self.td.b1)
            t4 = now_ms()
        if sink == 12345.678:
            print(sink)
        return ((t1 - t0) * 1e6 / repeats, (t2 - t1) * 1e6 / repeats, (t3 - t2) * 1e6 / repeats,
                (t4 - t3) * 1e6 / repeats)

    # --- the NNUE inside (nnue.pxi): the tests' hooks, and its cost -----------

    def eval_correction(self, Board board) -> int:
        """The centipawns CorrectionHistory adds to the static evaluation of
        ``board`` now: what the searches so far measured for its pawns and
        side to move, blended with its pieces' with NonPawnCorrection
        (correction.pxi; read whether CorrectionHistory is on or not).

        >>> lab = LabSearcher(hash_mb=1)
        >>> lab.eval_correction(Board())
        0
        """
        return correction(self.s, &board.pos)

    def table_eval(self, Board board):
        """The static evaluation the transposition table keeps beside its
        entry for ``board``'s position, or None without one: always the raw
        evaluation, never a corrected one (correction.pxi).

        >>> LabSearcher(hash_mb=1).table_eval(Board()) is None
        True
        """
        cdef TTHit entry
        if not tt_probe(self.s.tt, board.pos.key, &entry):
            return None
        return entry.eval

    def capture_statistics(self, Board board, str uci) -> int:
        """CaptureHistory's entry for capture (or promotion) ``uci`` in
        ``board``: how such a capture (piece, target, victim) has fared in the
        searches so far, -16384 to 16384 (stats.pxi; kept only while the option is on).

        >>> lab = LabSearcher(hash_mb=1)
        >>> lab.capture_statistics(Board("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"), "e4d5")
        0
        """
        cdef Move m = board._parse(uci)
        if m == 0 or not is_noisy(&board.pos, m):
            raise ValueError(f"{uci} is not a legal capture or promotion here")
        return capture_entry(self.s, &board.pos, m)[0]

    cdef void _need_nnue(self) except *:
        if self.nnue.hidden == 0:
            raise ValueError("no NNUE is loaded")

    def nnue_eval(self, Board board) -> int:
        """The loaded NNUE's raw centipawns for ``board``'s side to move, every
        sum made afresh (no stack, endgame rule or clamp): in the core,
        what engine.evaluation.nnue.NnueNet.centipawns computes."""
        self._need_nnue()
        return nnue_afresh(&self.nnue, &board.pos)

    def nnue_accumulators(self, Board board, bint incremental=True):
        """Both views' sums (White's, Black's) for ``board`` as int64 arrays:
        through the main search's accumulator stack as the search brings them
        there (the entry of the board's ply, from the nearest entry of the
        plies before it), or made afresh."""
        import numpy as np
        self._need_nnue()
        cdef NnueAccumulator fresh
        cdef NnueAccumulator* e = &fresh
        cdef int i, H = self.nnue.hidden
        if incremental:
            e = nnue_accumulator(&self.nnue, self.s.nnue_acc, &board.pos)
        else:
            nnue_refresh(&self.nnue, &fresh, board.pos.pieces)
        sums = np.array([e.acc[i] for i in range(2 * H)], np.int64)
        return sums[:H], sums[H:]

    def nnue_stack_check(self) -> tuple[int, int]:
        """Every computed entry of every thread's accumulator stack (after a
        search: what the search left) against sums made afresh for the men
        it holds: (entries, entries that differ)."""
        self._need_nnue()
        cdef NnueAccumulator fresh
        cdef NnueAccumulator* e
        cdef int t, i, entries = 0, wrong = 0
        for t in range(self.n_threads):
            if self.group.members[t] == NULL:
                continue
            for i in range(NNUE_STACK):
                e = &self.group.members[t].nnue_acc[i]
                if not e.valid:
                    continue
                nnue_refresh(&self.nnue, &fresh, e.pieces)
                entries += 1
                wrong += memcmp(fresh.acc, e.acc, 2 * self.nnue.hidden * sizeof(int16_t)) != 0
        return entries, wrong

    def nnue_eval_cost(self, Board board, int repeats=10000) -> tuple[float, float, float, float]:
        """Nanoseconds for the handwritten evaluation of ``board``, for the
        NNUE with every sum made afresh, for bringing its sums from the
        position before the board's last move (or a refresh at the game's
        start), and for its output layer alone."""
        self._need_nnue()
        cdef NnueAccumulator stack[2]
        cdef NnueAccumulator* acc
        cdef Position before = board.pos
        cdef long long sink = 0
        cdef double t0, t1, t2, t3, t4
        cdef int r
        if before.hist_len:
            unmake_move(&before)
        nnue_refresh(&self.nnue, &stack[0], before.pieces)
        with nogil:
            t0 = now_ms()
            for r in range(repeats):
                sink += evaluate(&board.pos, NULL)
            t1 = now_ms()
            for r in range(repeats):
                sink += nnue_afresh(&self.nnue, &board.pos)
            t2 = now_ms()
            for r in range(repeats):        # as the search does: by the move, or by the bitboards
                if board.pos.hist_len:
                    nnue_update_by_move(&self.nnue, &stack[1], &stack[0], &board.pos)
                else:
                    nnue_update(&self.nnue, &stack[1], &stack[0], &board.pos)
                sink += stack[1].acc[r & 63]
            t3 = now_ms()
            for r in range(repeats):
                sink += nnue_output(&self.nnue, stack[1].acc, &board.pos)
            t4 = now_ms()
        if sink == 1234567:
            print(sink)
        return ((t1 - t0) * 1e6 / repeats, (t2 - t1) * 1e6 / repeats, (t3 - t2) * 1e6 / repeats,
                (t4 - t3) * 1e6 / repeats)

    # --- cut-off recording (cutoffs.pxi), the training sets of `data cutoffs` --

    def record_cutoffs(self, int capacity, int min_depth=2) -> None:
        """Record quiet cut-offs at ``min_depth`` plies from the leaves or more,
        up to ``capacity`` of them (later ones are counted as dropped) until
        ``stop_recording``; ``take_cutoffs`` drains them."""
        if capacity < 1:
            raise ValueError("the capacity must be positive")
        self.stop_recording()
        cdef CutoffLog* log = <CutoffLog*>calloc(1, sizeof(CutoffLog))
        if log == NULL:
            raise MemoryError
        log.records = <CutoffRecord*>calloc(capacity, sizeof(CutoffRecord))
        if log.records == NULL:
            free(log)
            raise MemoryError(f"cannot record {capacity} cut-offs")
        log.capacity = capacity
        log.min_depth = min_depth
        self.s.cutoffs = log

    def stop_recording(self) -> None:
        if self.s.cutoffs != NULL:
            free(self.s.cutoffs.records)
            free(self.s.cutoffs)
            self.s.cutoffs = NULL

    def take_cutoffs(self) -> dict:
        """The cut-offs recorded since the last call, as numpy arrays, and empty the log.

        ``board`` (N, 64), ``stm``, ``castling``, ``ep``, ``halfmove``,
        ``last_to``, ``key``, ``depth``, ``tried`` (quiet moves searched before
        the cut), ``offsets`` (N + 1) into ``quiets`` (M, 2: from, to as
        Board.pattern gives them), ``cut`` (index of the cut-off move within
        its node's quiets), ``dropped`` (cut-offs the full log missed).
        """
        import numpy as np
        cdef CutoffLog* log = self.s.cutoffs
        if log == NULL:
            raise RuntimeError("not recording: call record_cutoffs first")
        cdef int n = log.n, i, j, k = 0
        counts = np.array([log.records[i].n_quiets for i in range(n)], np.int64)
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        out = {"board": np.zeros((n, 64), np.uint8), "stm": np.zeros(n, np.uint8),
               "castling": np.zeros(n, np.uint8), "ep": np.zeros(n, np.int8),
               "halfmove": np.zeros(n, np.uint16), "last_to": np.zeros(n, np.int8),
               "key": np.zeros(n, np.uint64), "depth": np.zeros(n, np.uint8),
               "tried": np.zeros(n, np.uint8), "cut": np.zeros(n, np.int16),
               "quiets": np.zeros((offsets[n], 2), np.uint8), "offsets": offsets,
               "dropped": int(log.dropped)}
        cdef uint8_t[:, ::1] board = out["board"]
        cdef uint8_t[:, ::1] quiets = out["quiets"]
        cdef CutoffRecord* r
        for i in range(n):
            r = &log.records[i]
            for j in range(64):
                board[i, j] = r.board[j]
            for j in range(r.n_quiets):
                quiets[k, 0] = r.quiets[j][0]
                quiets[k, 1] = r.quiets[j][1]
                k += 1
            out["stm"][i] = r.stm
            out["castling"][i] = r.castling
            out["ep"][i] = r.ep
            out["halfmove"][i] = r.halfmove
            out["last_to"][i] = r.last_to
            out["key"][i] = r.key
            out["depth"][i] = r.depth
            out["tried"][i] = r.tried
            out["cut"][i] = r.cut
        log.n = 0
        log.dropped = 0
        return out
