# Lazy SMP: with Threads > 1, helper threads search the same position at the
# same time and share the transposition table and a small table of the moves
# being searched, nothing else. Each helper runs the same iterative deepening
# on its own copy of the search state (position, killers, history, move
# memories), skipping some depths so that the threads spread over different
# iterations instead of repeating one another; what they store in the table
# orders and cuts the main search's tree. At a node where another thread is
# searching a move, a thread searches the node's other moves first (the busy
# table below), so that they split the node's moves between them. The main
# search alone keeps the clock and reports. Once it is done it raises the
# group's abort flag and waits for the helpers to unwind (they poll the flag
# at every node, as they poll the stop flag); a helper that has searched the
# depth `go` asked for raises it too. The move played is that of the thread
# with the deepest completed iteration, the main one on a tie.
#
# The threads are POSIX threads started without the GIL: a helper never
# touches a Python object.

cdef extern from "<pthread.h>" nogil:
    ctypedef unsigned long pthread_t
    ctypedef struct pthread_attr_t:
        pass
    int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                       void* (*start)(void*) noexcept nogil, void* arg)
    int pthread_join(pthread_t thread, void** retval)

# The start gate: the helpers, once created, sleep until the main thread has
# created them all. Started one by one, each would search at once, and with
# more threads than cores the main thread, still creating the rest, would get
# an ever smaller share of the machine: with 256 threads on 2 loaded cores a
# `go movetime 100` answered 2 s late (reports/threads/README.md). One lock and
# condition serve every group; a helper rechecks its own group's flag when woken.
cdef extern from *:
    """
    #include <pthread.h>
    static pthread_mutex_t nmm_gate_lock = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t nmm_gate_cond = PTHREAD_COND_INITIALIZER;
    static void nmm_gate_wait(int* open) {
        pthread_mutex_lock(&nmm_gate_lock);
        while (!*(volatile int*)open) pthread_cond_wait(&nmm_gate_cond, &nmm_gate_lock);
        pthread_mutex_unlock(&nmm_gate_lock);
    }
    static void nmm_gate_set(int* open, int value) {
        pthread_mutex_lock(&nmm_gate_lock);
        *(volatile int*)open = value;
        pthread_cond_broadcast(&nmm_gate_cond);
        pthread_mutex_unlock(&nmm_gate_lock);
    }
    """
    void gate_wait "nmm_gate_wait"(int* open) nogil
    void gate_set "nmm_gate_set"(int* open, int value) nogil

# Flags and counters another thread writes are read through volatile, so that
# the C compiler reads them again each time instead of keeping a register copy.
cdef extern from *:
    """
    static inline int nmm_load_int(const int* p) { return *(const volatile int*)p; }
    static inline void nmm_store_int(int* p, int v) { *(volatile int*)p = v; }
    static inline uint64_t nmm_load_u64(const uint64_t* p) { return *(const volatile uint64_t*)p; }
    static inline void nmm_store_u64(uint64_t* p, uint64_t v) { *(volatile uint64_t*)p = v; }
    """
    int load_int "nmm_load_int"(const int* p) nogil
    void store_int "nmm_store_int"(int* p, int v) nogil
    u64 load_u64 "nmm_load_u64"(const u64* p) nogil
    void store_u64 "nmm_store_u64"(u64* p, u64 v) nogil

cdef enum:
    THREADS_LIMIT = 256

MAX_THREADS = THREADS_LIMIT     # the Threads option's maximum

# Which depths a helper leaves out, by (helper - 1) % 20: it searches depth d
# only when (d + phase) // size is even. Helper 1 takes the even depths, 2 the
# odd ones, 3-6 pairs of depths in four phases, and so on (Stockfish 9's
# pattern, which spreads 20 helpers over the iterations).
cdef int SKIP_SIZE[20]
cdef int SKIP_PHASE[20]
SKIP_SIZE[:] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]
SKIP_PHASE[:] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7]

# The alternatives the threads study measured against the pattern
# (reports/threads/README.md): helpers that take every depth, that leave out the depths the main
# search has reached ("ahead"), or both rules; and a main search that leaves
# out the depths a helper has completed ("jump"). A rule's index in
# HELPER_DEPTHS is the set of its bits.
cdef enum:
    HELPERS_PATTERN = 1
    HELPERS_AHEAD = 2
    MAIN_JUMPS = 4
HELPER_DEPTHS = ("every", "pattern", "ahead", "pattern-ahead",
                 "jump", "pattern-jump", "ahead-jump", "pattern-ahead-jump")


cdef inline int deepest_helper(ThreadGroup* g) noexcept nogil:
    """The deepest iteration a helper has completed in this search."""
    cdef int i, d = 0
    for i in range(1, g.n):
        d = max(d, load_int(&g.members[i].completed_depth))
    return d


cdef inline bint helper_skips(Search* s, int depth) noexcept nogil:
    """Whether the search leaves out ``depth``: a helper may, the main search
    only with MAIN_JUMPS, and no one the deepest depth asked for."""
    cdef int i
    if depth == s.limits.depth:
        return False
    if s.thread_index == 0:
        # A helper that has completed the depth left its results in the
        # table: the main search goes on from there.
        return (s.opt.helper_depths & MAIN_JUMPS) != 0 and depth <= deepest_helper(s.group)
    if (s.opt.helper_depths & HELPERS_AHEAD) and depth <= load_int(&s.group.members[0].root_depth):
        return True
    if s.opt.helper_depths & HELPERS_PATTERN:
        i = (s.thread_index - 1) % 20
        return ((depth + SKIP_PHASE[i]) // SKIP_SIZE[i]) % 2 == 1
    return False


# Deferring busy moves (after Tom Kerrigan's simplified ABDADA): while a
# thread searches a move at a node of depth DEFER_DEPTH or more, the group's
# busy table holds the node's key mixed with the move; another thread that
# reaches the same node puts that move off to the end of its list and
# searches the node's other moves first, so that the threads split a node's
# moves instead of searching the same one side by side. A slot holds one
# key: a collision only puts off a move or fails to (the order changes, as
# any ordering change would), never a stored value.
#
# Breadcrumbs (Stockfish 11's; a study can switch them off): a thread marks
# a node within BREADCRUMB_PLIES of the root in the same table, keyed by the
# node alone; another thread that finds the mark there reduces its late
# moves a ply more, so that it leaves that subtree to the first.
cdef enum:
    DEFER_DEPTH = 3         # the default of the defer_depth switch
    DEFER_MAX = 32          # moves one node may put off
    BREADCRUMB_PLIES = 8    # the breadcrumbs switch marks nodes this near the root


cdef inline u64 busy_key(const Position* pos, Move m) noexcept nogil:
    return (pos.key ^ (<u64>m * 0x9E3779B97F4A7C15ULL)) | 1      # never 0, the empty slot


cdef inline bint busy_elsewhere(Search* s, u64 key) noexcept nogil:
    return load_u64(&s.group.busy[key & (BUSY_SIZE - 1)]) == key


cdef inline void busy_mark(Search* s, u64 key) noexcept nogil:
    store_u64(&s.group.busy[key & (BUSY_SIZE - 1)], key)


cdef inline void busy_unmark(Search* s, u64 key) noexcept nogil:
    if load_u64(&s.group.busy[key & (BUSY_SIZE - 1)]) == key:
        store_u64(&s.group.busy[key & (BUSY_SIZE - 1)], 0)


cdef inline bint group_aborted(Search* s) noexcept nogil:
    return load_int(&s.group.abort) != 0


cdef u64 group_nodes(ThreadGroup* g) noexcept nogil:
    """Nodes searched by all the group's threads (the figure `info nodes` gives)."""
    cdef u64 total = 0
    cdef int i
    for i in range(g.n):
        total += load_u64(&g.members[i].nodes)
    return total


cdef u64 group_tb_hits(ThreadGroup* g) noexcept nogil:
    """Syzygy probes that answered, all threads together (`info tbhits`)."""
    cdef u64 total = 0
    cdef int i
    for i in range(g.n):
        total += load_u64(&g.members[i].tb_hits)
    return total


cdef inline bint over_node_limit(Search* s) noexcept nogil:
    """``go nodes`` counts every thread's nodes; alone, the test is exact at every node."""
    if s.group.n == 1:
        return s.nodes >= s.limits.nodes
    return (s.nodes & 255) == 0 and group_nodes(s.group) >= s.limits.nodes


cdef void helper_prepare(Search* h, const Search* main, int index) noexcept nogil:
    """Make ``h`` a copy of the main search as `go` set it up, keeping its own caches."""
    cdef NmmCacheEntry* nmm_cache = h.nmm_cache
    cdef TdCacheEntry* td_cache = h.td_cache
    cdef int i
    memcpy(h, main, sizeof(Search))
    h.nmm_cache = nmm_cache
    h.td_cache = td_cache
    h.thread_index = index
    h.owner = NULL              # a helper never reports
    h.cutoffs = NULL            # nor records cut-offs for training
    h.opt.multipv = 1
    h.limits.nodes = 0          # the main search decides when the helpers stop
    h.limits.soft_ms = 0
    h.limits.hard_ms = 0
    h.limits.mate = 0
    h.pondering = 0
    h.tb_hits = 0               # the root's probes are the main search's
    # The first-layer sums are rebuilt on the helper's own path (their float
    # rounding depends on it).
    h.nmm_acc.valid = False
    for i in range(TD_ACCUMULATORS):
        h.td_acc[i].valid = 0


cdef void* helper_main(void* arg) noexcept nogil:
    cdef Search* h = <Search*>arg
    gate_wait(&h.group.gate_open)
    iterative_deepening(h)
    if h.completed_depth >= h.limits.depth:
        store_int(&h.group.abort, 1)    # the depth asked for is searched: the others may stop
    return NULL


cdef Search* chosen_thread(ThreadGroup* g) noexcept nogil:
    """The search whose move is played: the deepest completed iteration wins,
    the main search on a tie (and always with MultiPV, whose lines it alone has)."""
    cdef Search* best = g.members[0]
    cdef int i
    if best.opt.multipv > 1:
        return best
    for i in range(1, g.n):
        if g.members[i].completed_depth > best.completed_depth and g.members[i].n_root > 0:
            best = g.members[i]
    return best


cdef void group_search(ThreadGroup* g, int wanted, pthread_t* threads) noexcept nogil:
    """Search with the main search and ``wanted - 1`` helpers; return when all are done.

    A helper that cannot be started is left out: the search goes on with fewer threads."""
    cdef Search* main = g.members[0]
    cdef int i
    store_int(&g.abort, 0)
    gate_set(&g.gate_open, 0)
    g.n = 1
    for i in range(1, wanted):
        helper_prepare(g.members[i], main, i)
        if pthread_create(&threads[i], NULL, helper_main, g.members[i]) != 0:
            break
        g.n += 1
    gate_set(&g.gate_open, 1)
    iterative_deepening(main)
    store_int(&g.abort, 1)
    for i in range(1, g.n):
        pthread_join(threads[i], NULL)


# --- a torture test of the shared table (tests/test_threads.py) ---------------

ctypedef struct StressRun:
    TTable* tt
    u64 seed
    long operations
    int keys
    long hits
    long wrong


cdef inline TTHit stress_entry(u64 key) noexcept nogil:
    """The data that goes with ``key`` in the torture test: every field from the key."""
    cdef TTHit e
    e.move = <Move>((key & 0xFFFF) | 1)
    e.score = <int>((key >> 16) % 4001) - 2000
    e.eval = <int>((key >> 28) % 4001) - 2000
    e.depth = <int>((key >> 40) % 60) + 1
    e.bound = 1 + <int>((key >> 50) % 3)
    return e


cdef void* stress_main(void* arg) noexcept nogil:
    cdef StressRun* run = <StressRun*>arg
    cdef u64 state = run.seed, r, key, key_state
    cdef TTHit want, got
    cdef long i
    for i in range(run.operations):
        r = splitmix64(&state)
        key_state = r % run.keys        # few keys, so that probes find what others wrote
        key = splitmix64(&key_state)
        want = stress_entry(key)
        if r & (1 << 20):
            tt_store(run.tt, key, want.depth, want.score, want.eval, want.bound, want.move, 0)
        elif tt_probe(run.tt, key, &got):
            run.hits += 1
            run.wrong += (got.move != want.move or got.score != want.score or got.eval != want.eval
                          or got.depth != want.depth or got.bound != want.bound)
    return NULL


def tt_stress(int threads=4, long operations=100_000, int buckets=64, int keys=1024,
              u64 seed=1) -> tuple[int, int]:
    """``threads`` threads each store and probe ``operations`` times in a table of
    ``buckets`` buckets (a power of two); returns (hits, hits whose data was not
    the data stored with their key)."""
    if not 1 <= threads <= THREADS_LIMIT or buckets < 1 or buckets & (buckets - 1) or keys < 1:
        raise ValueError("1..256 threads, a power of two of buckets and some keys")
    cdef TTable tt
    cdef StressRun* runs = <StressRun*>calloc(threads, sizeof(StressRun))
    cdef pthread_t* ids = <pthread_t*>calloc(threads, sizeof(pthread_t))
    cdef int i, started = 0
    tt.buckets = <TTBucket*>calloc(buckets, sizeof(TTBucket))
    tt.mask = buckets - 1
    tt.generation = 0
    if runs == NULL or ids == NULL or tt.buckets == NULL:
        free(runs)
        free(ids)
        free(tt.buckets)
        raise MemoryError
    with nogil:
        for i in range(threads):
            runs[i].tt = &tt
            runs[i].seed = seed * 1000 + i
            runs[i].operations = operations
            runs[i].keys = keys
            if pthread_create(&ids[i], NULL, stress_main, &runs[i]) == 0:
                started += 1
            else:
                break
        for i in range(started):
            pthread_join(ids[i], NULL)
    hits = sum(runs[i].hits for i in range(started))
    wrong = sum(runs[i].wrong for i in range(started))
    free(runs)
    free(ids)
    free(tt.buckets)
    return hits, wrong
