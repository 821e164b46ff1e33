# The TD-trained evaluation: Mannen's net over the features of
# eval_features.pxi, one net per phase blended, in centipawns.
#
# The net predicts the expected result y in (-1, 1) for the side to move; the
# file's scale K, fitted by the trainer on the handwritten evaluation against
# game results, turns it into centipawns: cp = 2 K atanh(y). Search margins
# (futility, null move, aspiration, delta) then keep their meaning.
#
# Evaluations are cached by position key: the quiescence search asks for the
# same positions again and again, and the features cost far more than a probe.

from libc.math cimport log

cdef enum:
    TD_CACHE_SIZE = 1 << 16     # entries; a power of two
    TD_MAX_CP = 20000           # below every mate score

ctypedef struct TdEval:
    int squares             # 0: set A, 1: B (kings, pawns), 2: C (all pieces)
    int nets                # 1, or 3 blended by phase
    int hidden              # 0: the linear net
    int inputs
    float* w1               # [net][input][hidden]: an input's weights are adjacent
    float* b1               # [net][hidden]
    float* w2               # [net][hidden], or [net][input] for the linear net
    float* b2               # [net]
    float cp_scale

ctypedef struct TdCacheEntry:
    u64 key
    int score


cdef void phase_blend(const Position* pos, int nets, float* w) noexcept nogil:
    """The trainer's phase_weights (engine/train/td_run.py), for one position."""
    cdef float end, opening
    if nets == 1:
        w[0] = 1
        return
    end = (12.0 - game_phase(pos)) / 8.0
    end = 0 if end < 0 else (1 if end > 1 else end)
    opening = (16.0 - pos.fullmove) / 8.0
    opening = 0 if opening < 0 else (1 if opening > 1 else opening)
    opening *= 1 - end
    w[0] = opening
    w[1] = 1 - opening - end
    w[2] = end


cdef extern from "td_kernel.h" nogil:
    int NMM_TD_LANES
    float nmm_td_kernel(const float* w1, const float* b1, const float* w2, float b2, int hidden,
                        const int* rows, const float* values, int n)


cdef float td_net_output(const TdEval* net, int k, const float* dense, const int* active,
                         int n_active) noexcept nogil:
    """Output of phase net ``k`` for the given inputs."""
    cdef int i, n = 0, H = net.hidden
    cdef int rows[FEATURES_A + MAX_ACTIVE]
    cdef float values[FEATURES_A + MAX_ACTIVE]
    cdef float out
    cdef const float* w2 = &net.w2[k * (H if H else net.inputs)]
    if H == 0:
        out = net.b2[k]
        for i in range(FEATURES_A):
            out += dense[i] * w2[i]
        for i in range(n_active):
            out += w2[FEATURES_A + active[i]]
        return out
    for i in range(FEATURES_A):         # most features of a position are 0
        if dense[i] != 0:
            rows[n] = i
            values[n] = dense[i]
            n += 1
    for i in range(n_active):
        rows[n] = FEATURES_A + active[i]
        values[n] = 1
        n += 1
    return nmm_td_kernel(&net.w1[k * net.inputs * H], &net.b1[k * H], w2, net.b2[k], H, rows, values, n)


cdef float td_output(const TdEval* net, const Position* pos) noexcept nogil:
    """The blended expected result for the side to move."""
    cdef float dense[FEATURES_A]
    cdef int active[MAX_ACTIVE]
    cdef float w[3]
    cdef int n = 0, k
    cdef float out = 0
    features_a(pos, dense)
    if net.squares:
        n = active_squares(pos, net.squares == 2, active)
    phase_blend(pos, net.nets, w)
    for k in range(net.nets):
        if w[k] > 0:
            out += w[k] * td_net_output(net, k, dense, active, n)
    return out


cdef int td_centipawns(const TdEval* net, float y) noexcept nogil:
    cdef double cp
    if y > 0.9999:
        y = 0.9999
    elif y < -0.9999:
        y = -0.9999
    cp = net.cp_scale * log((1.0 + y) / (1.0 - y))
    if cp > TD_MAX_CP:
        return TD_MAX_CP
    if cp < -TD_MAX_CP:
        return -TD_MAX_CP
    return <int>cp


cdef int td_evaluate(const TdEval* net, TdCacheEntry* cache, const Position* pos) noexcept nogil:
    """The net's score in centipawns for the side to move, through the cache.

    The move number is part of the cache's key as far as the phase blend
    reads it (up to move 16): the same position early and late is scored apart.
    """
    cdef u64 key = pos.key ^ (<u64>(pos.fullmove if pos.fullmove < 16 else 16) * 0x9E3779B97F4A7C15ULL)
    cdef TdCacheEntry* e = &cache[key & (TD_CACHE_SIZE - 1)]
    if e.key == key:
        return e.score
    e.key = key
    e.score = td_centipawns(net, td_output(net, pos))
    return e.score
