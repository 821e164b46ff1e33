/* The TD net's inner loop, in C so that it can be compiled twice: for AVX2
 * and for the x86-64 baseline (SSE2), the CPU choosing at load time (GCC's and
 * clang's target_clones); a binary built here still runs on a CPU without
 * AVX2.
 *
 * One hidden layer with x / (1 + |x|), a linear output. The inputs come as
 * (row, value) pairs, a row of w1 holding one input's weights to every hidden
 * unit ([input][hidden], hidden a multiple of 8: the engine pads it). The
 * hidden sums are kept in vector registers, 32 units at a time, while every
 * input row is added: written as plain loops over memory, the compiler
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

NMM_CLONES
static float nmm_td_kernel(const float *w1, const float *b1, const float *w2, float b2, int hidden,
                           const int *rows, const float *values, int n)
{
    float z[NMM_TD_MAX_HIDDEN];
    float out = b2;
    int h = 0, j;
    for (; h + 32 <= hidden; h += 32) {
        nmm_v8 a0 = NMM_LOAD(b1 + h), a1 = NMM_LOAD(b1 + h + 8);
        nmm_v8 a2 = NMM_LOAD(b1 + h + 16), a3 = NMM_LOAD(b1 + h + 24);
        for (j = 0; j < n; j++) {
            const float *row = w1 + (long)rows[j] * hidden + h;
            nmm_v8 x = NMM_SPLAT(values[j]);
            a0 += x * NMM_LOAD(row);
            a1 += x * NMM_LOAD(row + 8);
            a2 += x * NMM_LOAD(row + 16);
            a3 += x * NMM_LOAD(row + 24);
        }
        NMM_STORE(z + h, a0);
        NMM_STORE(z + h + 8, a1);
        NMM_STORE(z + h + 16, a2);
        NMM_STORE(z + h + 24, a3);
    }
    for (; h < hidden; h += 8) {
        nmm_v8 a0 = NMM_LOAD(b1 + h);
        for (j = 0; j < n; j++)
            a0 += NMM_SPLAT(values[j]) * NMM_LOAD(w1 + (long)rows[j] * hidden + h);
        NMM_STORE(z + h, a0);
    }
    {   /* x / (1 + |x|) and the output, 8 units at a time: 8 divisions in one instruction */
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

/* sums += sign[j] * w1[rows[j]] for each j: the incremental first layer
 * (eval_td.pxi's accumulators) adds the rows of pieces that arrived and takes
 * away those of pieces that left. */
NMM_CLONES
static void nmm_td_apply(float *sums, const float *w1, int hidden, const int *rows, const float *signs, int n)
{
    int h, j;
    for (h = 0; h < hidden; h += 8) {
        nmm_v8 a = NMM_LOAD(sums + h);
        for (j = 0; j < n; j++)
            a += NMM_SPLAT(signs[j]) * NMM_LOAD(w1 + (long)rows[j] * hidden + h);
        NMM_STORE(sums + h, a);
    }
}

#else   /* no vector extensions: the plain loops */

static float nmm_td_kernel(const float *w1, const float *b1, const float *w2, float b2, int hidden,
                           const int *rows, const float *values, int n)
{
    float z[NMM_TD_MAX_HIDDEN];
    float out = b2;
    int h, j;
    for (h = 0; h < hidden; h++)
        z[h] = b1[h];
    for (j = 0; j < n; j++)
        for (h = 0; h < hidden; h++)
            z[h] += values[j] * w1[(long)rows[j] * hidden + h];
    for (h = 0; h < hidden; h++)
        out += w2[h] * z[h] / (1.0f + fabsf(z[h]));
    return out;
}

static void nmm_td_apply(float *sums, const float *w1, int hidden, const int *rows, const float *signs, int n)
{
    int h, j;
    for (j = 0; j < n; j++)
        for (h = 0; h < hidden; h++)
            sums[h] += signs[j] * w1[(long)rows[j] * hidden + h];
}

#endif
#endif
