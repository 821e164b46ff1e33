/* The NNUE's inner loops (ext/nnue.pxi), in C so that they are compiled twice:
 * for AVX2 and for the x86-64 baseline (SSE2), the CPU choosing at load time
 * (GCC's and clang's target_clones, as td_kernel.h does). A binary built here
 * still runs on a CPU without AVX2.
 *
 * Two loops: bringing an int16 accumulator from one position to another by
 * adding and subtracting rows of the first layer (a row: one input's weights
 * to the H hidden units, int16, [input][hidden]), and the output layer, the
 * squared clipped ReLU of both accumulators dotted with the bucket's weights.
 * H is a multiple of 16 (one AVX2 register of int16) from 64 to 512
 * (engine/evaluation/nnue.py HIDDEN_SIZES).
 */
#ifndef NMM_NNUE_KERNEL_H
#define NMM_NNUE_KERNEL_H

#include <stdint.h>
#include <string.h>

#define NMM_NNUE_QA 255
#define NMM_NNUE_LANES 16           /* int16 lanes of an AVX2 register: H is a multiple of this */

#if defined(__x86_64__) && defined(__has_attribute)
#  if __has_attribute(target_clones)
#    define NMM_NNUE_CLONES __attribute__((target_clones("avx2", "default")))
#  endif
#endif
#ifndef NMM_NNUE_CLONES
#  define NMM_NNUE_CLONES
#endif

#if defined(__GNUC__)

/* Unsigned lanes: their sums wrap by definition. Every accumulator the net
 * can reach fits in int16 (the trainer clips the weights: at most 32 rows and
 * the bias, far inside int16; set_nnue checks it), so an intermediate sum
 * that wraps (rows added before others are taken away) wraps back, and the
 * result is exact. */
typedef uint16_t nmm_u16x16 __attribute__((vector_size(32)));
#define NMM_LOAD16(p) ({ nmm_u16x16 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define NMM_STORE16(p, v) do { nmm_u16x16 s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)

/* dst = src + the rows ``add`` - the rows ``sub`` (H lanes). One pass per 64
 * lanes with the sums in four registers while every row is read: the copy
 * and the update in one sweep over the accumulator. ``dst`` may be ``src``. */
NMM_NNUE_CLONES
static void nmm_nnue_update(int16_t *dst, const int16_t *src, const int16_t *w, int hidden,
                            const int *add, int n_add, const int *sub, int n_sub)
{
    int h = 0, j;
    for (; h + 64 <= hidden; h += 64) {
        nmm_u16x16 a0 = NMM_LOAD16(src + h), a1 = NMM_LOAD16(src + h + 16);
        nmm_u16x16 a2 = NMM_LOAD16(src + h + 32), a3 = NMM_LOAD16(src + h + 48);
        for (j = 0; j < n_add; j++) {
            const int16_t *row = w + (long)add[j] * hidden + h;
            a0 += NMM_LOAD16(row);
            a1 += NMM_LOAD16(row + 16);
            a2 += NMM_LOAD16(row + 32);
            a3 += NMM_LOAD16(row + 48);
        }
        for (j = 0; j < n_sub; j++) {
            const int16_t *row = w + (long)sub[j] * hidden + h;
            a0 -= NMM_LOAD16(row);
            a1 -= NMM_LOAD16(row + 16);
            a2 -= NMM_LOAD16(row + 32);
            a3 -= NMM_LOAD16(row + 48);
        }
        NMM_STORE16(dst + h, a0);
        NMM_STORE16(dst + h + 16, a1);
        NMM_STORE16(dst + h + 32, a2);
        NMM_STORE16(dst + h + 48, a3);
    }
    for (; h < hidden; h += 16) {
        nmm_u16x16 a0 = NMM_LOAD16(src + h);
        for (j = 0; j < n_add; j++)
            a0 += NMM_LOAD16(w + (long)add[j] * hidden + h);
        for (j = 0; j < n_sub; j++)
            a0 -= NMM_LOAD16(w + (long)sub[j] * hidden + h);
        NMM_STORE16(dst + h, a0);
    }
}

#else   /* no vector extensions: the plain loops (unsigned: wrapping sums) */

static void nmm_nnue_update(int16_t *dst, const int16_t *src, const int16_t *w, int hidden,
                            const int *add, int n_add, const int *sub, int n_sub)
{
    int h, j;
    for (h = 0; h < hidden; h++) {
        uint16_t a = (uint16_t)src[h];
        for (j = 0; j < n_add; j++)
            a += (uint16_t)w[(long)add[j] * hidden + h];
        for (j = 0; j < n_sub; j++)
            a -= (uint16_t)w[(long)sub[j] * hidden + h];
        dst[h] = (int16_t)a;
    }
}

#endif

/* sum_h clamp(acc[h], 0, QA)^2 * w[h] over one accumulator (H lanes), exact.
 *
 * Written as the loop GCC turns into pmaddwd (its dot-product pattern: int16
 * times int16 summed into int32): v = clamp(acc) <= 255 and |w| <= 127 (the
 * trainer's clip, 1.98 x QB = 127, checked by set_nnue), so v * w fits int16
 * (|v * w| <= 32,385) and each product v * (v * w) is at most 65,025 x 127 =
 * 8,258,175 in magnitude. The int32 sum is split into lanes by the vector
 * loop, but the bound holds for the whole sum of a block: a block of 256
 * lanes (half the widest accumulator) sums at most 256 products, 2.11e9 <
 * 2^31 - 1 = 2.147e9; with AVX2's 8 int32 lanes one lane holds 1/8 of a
 * block, 32 products, 2.6e8. The blocks are then added in int64. */
NMM_NNUE_CLONES
static int64_t nmm_nnue_screlu_dot(const int16_t *acc, const int16_t *w, int hidden)
{
    int64_t total = 0;
    int base, h, end;
    for (base = 0; base < hidden; base += 256) {
        int32_t sum = 0;
        end = hidden - base < 256 ? hidden : base + 256;
        for (h = base; h < end; h++) {
            int16_t v = acc[h] < 0 ? 0 : (acc[h] > NMM_NNUE_QA ? NMM_NNUE_QA : acc[h]);
            int16_t vw = (int16_t)(v * w[h]);
            sum += (int32_t)v * (int32_t)vw;
        }
        total += sum;
    }
    return total;
}

#endif
