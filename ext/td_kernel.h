/* The TD net's inner loop, in C so that it can be compiled twice: for AVX2
 * and for the x86-64 baseline (SSE2), the CPU choosing at load time (GCC's and
 * clang's target_clones); a binary built here still runs on a CPU without
 * AVX2.
 *
 * One hidden layer with x / (1 + |x|), a linear output. The inputs come as
 * (row, value) pairs, a row of w1 holding one input's weights to every hidden
 * unit ([input][hidden], hidden a multiple of 8: the engine pads it). The
 * hidden sums are kept in vector registers, 40 or 32 units at a time
 * (nmm_td_apply), while every input row is added: written as plain loops over memory, the compiler
 * stored and reloaded the sums for each row and the loop ran 4 times slower.
 */
#ifndef NMM_TD_KERNEL_H
#define NMM_TD_KERNEL_H

#include <math.h>
#include <string.h>

#define NMM_TD_MAX_HIDDEN 1024
#define NMM_TD_LANES 8              /* the engine pads the hidden layer to a multiple of this */

#if defined(__x86_64__) && defined(__has_attribute)
#  if __has_attribute(target_clones)
#    define NMM_CLONES __attribute__((target_clones("avx2", "default")))
#  endif
#endif
#ifndef NMM_CLONES
#  define NMM_CLONES
#endif

#if defined(__GNUC__)

typedef float nmm_v8 __attribute__((vector_size(32)));
typedef int nmm_i8 __attribute__((vector_size(32)));
#define NMM_LOAD(p) ({ nmm_v8 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define NMM_STORE(p, v) do { nmm_v8 s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)
#define NMM_SPLAT(x) ((nmm_v8){(x), (x), (x), (x), (x), (x), (x), (x)})

/* sums += deltas[j] * w1[rows[j]] for each j: the incremental first layer
 * (eval_td.pxi's accumulators) adds the rows of inputs that arrived, takes
 * away those that left and moves those whose value changed; the kernel adds
 * a position's rows to b1 with it. */
NMM_CLONES
static void nmm_td_apply(float *sums, const float *w1, int hidden, const int *rows, const float *deltas, int n)
{
    int h = 0, j;
    for (; hidden % 40 == 0 && h + 40 <= hidden; h += 40) {     /* 40 and 80 units: one pass per 40 */
        nmm_v8 a0 = NMM_LOAD(sums + h), a1 = NMM_LOAD(sums + h + 8), a2 = NMM_LOAD(sums + h + 16);
        nmm_v8 a3 = NMM_LOAD(sums + h + 24), a4 = NMM_LOAD(sums + h + 32);
        for (j = 0; j < n; j++) {
            const float *row = w1 + (long)rows[j] * hidden + h;
            nmm_v8 x = NMM_SPLAT(deltas[j]);
            a0 += x * NMM_LOAD(row);
            a1 += x * NMM_LOAD(row + 8);
            a2 += x * NMM_LOAD(row + 16);
            a3 += x * NMM_LOAD(row + 24);
            a4 += x * NMM_LOAD(row + 32);
        }
        NMM_STORE(sums + h, a0);
        NMM_STORE(sums + h + 8, a1);
        NMM_STORE(sums + h + 16, a2);
        NMM_STORE(sums + h + 24, a3);
        NMM_STORE(sums + h + 32, a4);
    }
    for (; h + 32 <= hidden; h += 32) {
        nmm_v8 a0 = NMM_LOAD(sums + h), a1 = NMM_LOAD(sums + h + 8);
        nmm_v8 a2 = NMM_LOAD(sums + h + 16), a3 = NMM_LOAD(sums + h + 24);
        for (j = 0; j < n; j++) {
            const float *row = w1 + (long)rows[j] * hidden + h;
            nmm_v8 x = NMM_SPLAT(deltas[j]);
            a0 += x * NMM_LOAD(row);
            a1 += x * NMM_LOAD(row + 8);
            a2 += x * NMM_LOAD(row + 16);
            a3 += x * NMM_LOAD(row + 24);
        }
        NMM_STORE(sums + h, a0);
        NMM_STORE(sums + h + 8, a1);
        NMM_STORE(sums + h + 16, a2);
        NMM_STORE(sums + h + 24, a3);
    }
    for (; h < hidden; h += 8) {
        nmm_v8 a0 = NMM_LOAD(sums + h);
        for (j = 0; j < n; j++)
            a0 += NMM_SPLAT(deltas[j]) * NMM_LOAD(w1 + (long)rows[j] * hidden + h);
        NMM_STORE(sums + h, a0);
    }
}

/* The net's output: the hidden sums b1 + the rows (nmm_td_apply), then
 * x / (1 + |x|) and the output layer, 8 units at a time: 8 divisions in one
 * instruction. */
NMM_CLONES
static float nmm_td_kernel(const float *w1, const float *b1, const float *w2, float b2, int hidden,
                           const int *rows, const float *values, int n)
{
    float z[NMM_TD_MAX_HIDDEN];
    float out = b2;
    int h, j;
    memcpy(z, b1, hidden * sizeof(float));
    nmm_td_apply(z, w1, hidden, rows, values, n);
    {
        nmm_v8 acc = NMM_SPLAT(0.0f), one = NMM_SPLAT(1.0f);
        for (h = 0; h < hidden; h += 8) {
            nmm_v8 v = NMM_LOAD(z + h);
            nmm_v8 a = (nmm_v8)((nmm_i8)v & 0x7fffffff);      /* |v|: the sign bit cleared */
            acc += NMM_LOAD(w2 + h) * (v / (one + a));
        }
        for (j = 0; j < 8; j++)
            out += acc[j];
    }
    return out;
}

#else   /* no vector extensions: the plain loops */

static void nmm_td_apply(float *sums, const float *w1, int hidden, const int *rows, const float *deltas, int n)
{
    int h, j;
    for (j = 0; j < n; j++)
        for (h = 0; h < hidden; h++)
            sums[h] += deltas[j] * w1[(long)rows[j] * hidden + h];
}

static float nmm_td_kernel(const float *w1, const float *b1, const float *w2, float b2, int hidden,
                           const int *rows, const float *values, int n)
{
    float z[NMM_TD_MAX_HIDDEN];
    float out = b2;
    int h;
    memcpy(z, b1, hidden * sizeof(float));
    nmm_td_apply(z, w1, hidden, rows, values, n);
    for (h = 0; h < hidden; h++)
        out += w2[h] * z[h] / (1.0f + fabsf(z[h]));
    return out;
}

#endif
/* The dense inputs whose value moved from ``before`` to ``now``, appended to
 * (rows, deltas) from index m; returns the new count. On x86-64, four at a
 * time by SSE2 (every x86-64 CPU has it) into a bit mask, then one step per
 * changed input: about ten of sixty in a search. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <emmintrin.h>
static int nmm_td_dense_changes(const float *now, const float *before, int n, int *rows, float *deltas, int m)
{
    int base, i, end;
    for (base = 0; base < n; base += 64) {
        unsigned long long mask = 0;
        end = n - base < 64 ? n - base : 64;
        for (i = 0; i + 4 <= end; i += 4)
            mask |= (unsigned long long)_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(now + base + i),
                                                                      _mm_loadu_ps(before + base + i))) << i;
        for (; i < end; i++)
            mask |= (unsigned long long)(now[base + i] != before[base + i]) << i;
        while (mask) {
            i = base + __builtin_ctzll(mask);
            mask &= mask - 1;
            rows[m] = i;
            deltas[m] = now[i] - before[i];
            m++;
        }
    }
    return m;
}
#else
static int nmm_td_dense_changes(const float *now, const float *before, int n, int *rows, float *deltas, int m)
{
    int i;
    for (i = 0; i < n; i++) {
        float d = now[i] - before[i];
        rows[m] = i;
        deltas[m] = d;
        m += d != 0.0f;
    }
    return m;
}
#endif

#endif
