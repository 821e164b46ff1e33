/* The move picker's selection (ext/picker.pxi pick_best): where the first
 * highest score of a range lies, in C so that it is compiled for AVX2 and
 * for the x86-64 baseline, the CPU choosing at load time (as nnue_kernel.h).
 *
 * A selection sort's loop ("keep the best so far") branches on every score,
 * and the branch is as unpredictable as the scores are. This one keeps the
 * best so far in eight lanes at once, each with the index where it found it,
 * without a branch; the lanes are then reduced to the first highest score. */
#ifndef NMM_PICK_KERNEL_H
#define NMM_PICK_KERNEL_H

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__has_attribute)
#  if __has_attribute(target_clones)
#    define NMM_PICK_CLONES __attribute__((target_clones("avx2", "default")))
#  endif
#endif
#ifndef NMM_PICK_CLONES
#  define NMM_PICK_CLONES
#endif

#define NMM_PICK_LANES 8

#if defined(__GNUC__)

typedef int32_t nmm_i32x8 __attribute__((vector_size(32)));

/* best, where = the lanes of (v, at) that are strictly higher than best's. */
#define NMM_PICK_KEEP(best, where, v, at) do {                  \
        nmm_i32x8 higher_ = (v) > (best);                       \
        (best) = ((v) & higher_) | ((best) & ~higher_);         \
        (where) = ((at) & higher_) | ((where) & ~higher_);      \
    } while (0)

/* Every lane of x set to the lanes' maximum (or, with MIN, minimum). */
#define NMM_PICK_ALL(x, CMP) do {                               \
        const nmm_i32x8 p4_ = {4, 5, 6, 7, 0, 1, 2, 3};         \
        const nmm_i32x8 p2_ = {2, 3, 0, 1, 6, 7, 4, 5};         \
        const nmm_i32x8 p1_ = {1, 0, 3, 2, 5, 4, 7, 6};         \
        nmm_i32x8 s_, c_;                                       \
        s_ = __builtin_shuffle((x), p4_); c_ = s_ CMP (x); (x) = (s_ & c_) | ((x) & ~c_); \
        s_ = __builtin_shuffle((x), p2_); c_ = s_ CMP (x); (x) = (s_ & c_) | ((x) & ~c_); \
        s_ = __builtin_shuffle((x), p1_); c_ = s_ CMP (x); (x) = (s_ & c_) | ((x) & ~c_); \
    } while (0)

/* The index of the first maximum of x[0..n), n >= NMM_PICK_LANES.
 *
 * Lane j sees x[j], x[j + 8], ... in order and moves only on a strictly
 * higher score, so it holds its first maximum; of the lanes that hold the
 * overall maximum the lowest index is the first. The last eight scores are
 * read once more when n is not a multiple of eight: in every lane they come
 * after the scores it has seen, so the lanes still see theirs in order. */
NMM_PICK_CLONES
static int nmm_first_max(const int32_t *x, int n)
{
    const nmm_i32x8 step = {8, 8, 8, 8, 8, 8, 8, 8}, none = step * (1 << 27);
    nmm_i32x8 best, at = {0, 1, 2, 3, 4, 5, 6, 7}, where = at, v, top, first, held;
    int i;
    memcpy(&best, x, sizeof best);
    for (i = NMM_PICK_LANES; i + NMM_PICK_LANES <= n; i += NMM_PICK_LANES) {
        at += step;
        memcpy(&v, x + i, sizeof v);
        NMM_PICK_KEEP(best, where, v, at);
    }
    if (i < n) {
        at += n - i;
        memcpy(&v, x + n - NMM_PICK_LANES, sizeof v);
        NMM_PICK_KEEP(best, where, v, at);
    }
    top = best;
    NMM_PICK_ALL(top, >);
    held = best == top;
    first = (where & held) | (none & ~held);
    NMM_PICK_ALL(first, <);
    return first[0];
}

#else   /* no vector extensions: the plain loop */

static int nmm_first_max(const int32_t *x, int n)
{
    int i, first = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[first])
            first = i;
    return first;
}

#endif

#endif
