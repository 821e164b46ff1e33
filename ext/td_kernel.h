/* The TD net's inner loop, in C so that it can be compiled twice: for AVX2
 * and for the x86-64 baseline (SSE2), the CPU choosing at load time (GCC's and
 * clang's target_clones). AVX2 runs it about 2.5 times faster; a binary built
 * here still runs on a CPU without it.
 *
 * One hidden layer with x / (1 + |x|), a linear output: the inputs are given
 * as (row, value) pairs, the rows of w1 being one input's weights to every
 * hidden unit (row-major [input][hidden]).
 */
#ifndef NMM_TD_KERNEL_H
#define NMM_TD_KERNEL_H

#include <math.h>

#if defined(__x86_64__) && defined(__has_attribute)
#  if __has_attribute(target_clones)
#    define NMM_CLONES __attribute__((target_clones("avx2", "default")))
#  endif
#endif
#ifndef NMM_CLONES
#  define NMM_CLONES
#endif

#define NMM_TD_MAX_HIDDEN 1024

NMM_CLONES
static float nmm_td_kernel(const float *w1, const float *b1, const float *w2, float b2, int hidden,
                           const int *rows, const float *values, int n)
{
    float z[NMM_TD_MAX_HIDDEN];
    float out = b2;
    int h, j;
    for (h = 0; h < hidden; h++)
        z[h] = b1[h];
    for (j = 0; j < n; j++) {
        const float *row = w1 + (long)rows[j] * hidden;
        float x = values[j];
        for (h = 0; h < hidden; h++)
            z[h] += x * row[h];
    }
    for (h = 0; h < hidden; h++)
        out += w2[h] * z[h] / (1.0f + fabsf(z[h]));
    return out;
}

#endif
