# The Python face of the Syzygy tables: SyzygyTables opens the files of one
# or more folders (the SyzygyPath option) and probes Boards; a Searcher
# searches with them (Searcher.set_syzygy). The probing itself is syzygy.pxi's.

import os
import time as _time


cdef class SyzygyTables:
    """The Syzygy tables (``.rtbw`` WDL, ``.rtbz`` DTZ) of ``path``: folders
    separated by ':' (';' on Windows), as Stockfish's SyzygyPath. Every
    file is opened and its header checked now; ``errors`` lists the folders
    and files that could not be used (the others are), one line each.

    >>> SyzygyTables("").max_pieces
    0
    """
    cdef SzTables* tb
    cdef readonly list errors
    cdef readonly str path

    def __cinit__(self, path: str = ""):
        cdef char err[512]
        cdef int added
        self.tb = sz_new()
        if self.tb == NULL:
            raise MemoryError("no memory for the Syzygy tables")
        self.errors = []
        self.path = path
        for folder in path.split(";" if os.name == "nt" else ":"):
            folder = folder.strip()
            if not folder or folder == "<empty>":
                continue
            folder = os.path.expanduser(folder)
            if not os.path.isdir(folder):
                self.errors.append(f"{folder} is not a folder")
                continue
            for name in sorted(os.listdir(folder)):
                stem, ext = os.path.splitext(name)
                if ext not in (".rtbw", ".rtbz"):
                    continue
                added = sz_add(self.tb, os.path.join(folder, name).encode(), stem.encode(), ext == ".rtbz",
                               err, sizeof(err))
                if added == 0:
                    self.errors.append(err.decode(errors="replace"))

    def __dealloc__(self):
        sz_free(self.tb)

    @property
    def max_pieces(self) -> int:
        """The most men of a WDL table found (0: none)."""
        return self.tb.max_pieces

    @property
    def wdl_tables(self) -> int:
        return self.tb.n_wdl

    @property
    def dtz_tables(self) -> int:
        return self.tb.n_dtz

    cdef bint _usable(self, Board board):
        return (board.pos.castling == 0 and popcount(board.pos.all) <= self.tb.max_pieces
                and board.pos.hist_len < HISTORY_CAP - 32)

    def probe_wdl(self, Board board):
        """WDL of ``board`` for the side to move, -2..2 (python-chess's
        probe_wdl), or None where the tables cannot say (castling rights,
        too many men, a table missing)."""
        cdef int ok = 0, v = 0
        if self._usable(board):
            v = tb_probe_wdl(self.tb, &board.pos, &ok)
        return v if ok else None

    def probe_dtz(self, Board board):
        """DTZ of ``board`` for the side to move (python-chess's probe_dtz),
        or None where the tables cannot say (a DTZ table missing, ...)."""
        cdef int ok = 0, v = 0
        if self._usable(board):
            v = tb_probe_dtz(self.tb, &board.pos, &ok)
        return v if ok else None

    def rank_root(self, Board board, bint rule50=True) -> dict | None:
        """What the engine does at the root: each legal move's rank and score
        (``{uci: (rank, score)}``), by DTZ if the tables have it, else by WDL;
        None where they cannot say."""
        cdef Move moves[MAX_MOVES]
        cdef int ranks[MAX_MOVES]
        cdef int scores[MAX_MOVES]
        cdef int n, i
        if not self._usable(board):
            return None
        n = generate_moves(&board.pos, moves, GEN_ALL)
        if not (tb_rank_root_dtz(self.tb, &board.pos, moves, n, rule50, ranks, scores)
                or tb_rank_root_wdl(self.tb, &board.pos, moves, n, rule50, ranks, scores)):
            return None
        return {move_to_uci(&board.pos, moves[i]): (ranks[i], scores[i]) for i in range(n)}

    def bench(self, boards, bint dtz=False) -> tuple[list, float]:
        """Probe every Board of ``boards`` in one loop without the GIL (for
        probes a second): the values (None where the tables cannot say) and
        the seconds the loop took."""
        cdef list kept = [b for b in boards]
        cdef int n = len(kept), i
        cdef Position** positions = <Position**>malloc(max(n, 1) * sizeof(Position*))
        cdef int* values = <int*>malloc(max(n, 1) * sizeof(int))
        cdef int* oks = <int*>malloc(max(n, 1) * sizeof(int))
        cdef double start, end
        if positions == NULL or values == NULL or oks == NULL:
            free(positions)
            free(values)
            free(oks)
            raise MemoryError
        try:
            for i in range(n):
                if not self._usable(kept[i]):
                    raise ValueError(f"the tables cannot probe {kept[i].fen()}")
                positions[i] = &(<Board>kept[i]).pos
            start = _time.perf_counter()
            with nogil:
                for i in range(n):
                    if dtz:
                        values[i] = tb_probe_dtz(self.tb, positions[i], &oks[i])
                    else:
                        values[i] = tb_probe_wdl(self.tb, positions[i], &oks[i])
            end = _time.perf_counter()
            return [values[i] if oks[i] else None for i in range(n)], end - start
        finally:
            free(positions)
            free(values)
            free(oks)
