/* The NNUE trainer's inner loop (engine/train/nnue.py drives it through
 * ext/nnue_trainer.pyx): forward and backward over mini-batches of positions,
 * and AdamW, in float32, on one thread, without the GIL.
 *
 * The net is engine/evaluation/nnue.py's, in floats: (768 -> H) x 2 -> 1 x 8
 * buckets, SCReLU. A position comes as its White-view inputs (32 int16 slots,
 * -1 pads at the end), the side to move and its bucket; Black's view of input
 * f is ((f + 384) % 768) ^ 56 (the colours swap, the board flips). The first
 * layer is sparse: a view's accumulator is ft_bias plus the ~32 rows of its
 * inputs, and its gradient goes back to those rows alone.
 *
 * Compiled twice, for AVX2 and for the x86-64 baseline, the CPU choosing at
 * load time (target_clones, as ext/td_kernel.h). The hidden sums are kept in
 * vector registers 32 units at a time while the rows are added, then 8 at a
 * time; H must be a multiple of 8. Every sum is taken in a fixed order, so a
 * run is the same bit for bit on the same machine and build.
 */
#ifndef NMM_NNUE_TRAINER_H
#define NMM_NNUE_TRAINER_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define NT_SLOTS 32
#define NT_INPUTS 768
#define NT_BUCKETS 8

#if defined(__x86_64__) && defined(__has_attribute)
#  if __has_attribute(target_clones)
#    define NT_CLONES __attribute__((target_clones("avx2", "default")))
#  endif
#endif
#ifndef NT_CLONES
#  define NT_CLONES
#endif

typedef float nt_v8 __attribute__((vector_size(32)));
typedef int nt_i8 __attribute__((vector_size(32)));
#define NT_LOAD(p) ({ nt_v8 v_; memcpy(&v_, (p), sizeof v_); v_; })
#define NT_STORE(p, v) do { nt_v8 s_ = (v); memcpy((p), &s_, sizeof s_); } while (0)
#define NT_SPLAT(x) ((nt_v8){(x), (x), (x), (x), (x), (x), (x), (x)})
#define NT_AND(x, mask) ((nt_v8)((nt_i8)(x) & (mask)))

/* clamp(x, 0, 1) */
#define NT_CLAMP01(x) ({ nt_v8 c_ = NT_AND((x), (x) > NT_SPLAT(0.0f)); nt_i8 big_ = c_ > NT_SPLAT(1.0f); \
                         (nt_v8)(((nt_i8)c_ & ~big_) | ((nt_i8)NT_SPLAT(1.0f) & big_)); })

/* Both views' input rows, the side to move's first; returns how many. */
static inline int nt_views(const int16_t *white, int stm, int *us, int *them)
{
    int n;
    for (n = 0; n < NT_SLOTS && white[n] >= 0; n++) {
        int w = white[n], b = ((w + 384) % NT_INPUTS) ^ 56;
        us[n] = stm ? b : w;
        them[n] = stm ? w : b;
    }
    return n;
}

/* acc = bias + the rows of w named by rows. */
static inline __attribute__((always_inline))
void nt_gather(float *acc, const float *w, const float *bias, int H, const int *rows, int n)
{
    int h = 0, j;
    for (; h + 32 <= H; h += 32) {
        nt_v8 a0 = NT_LOAD(bias + h), a1 = NT_LOAD(bias + h + 8);
        nt_v8 a2 = NT_LOAD(bias + h + 16), a3 = NT_LOAD(bias + h + 24);
        for (j = 0; j < n; j++) {
            const float *r = w + (long)rows[j] * H + h;
            a0 += NT_LOAD(r);
            a1 += NT_LOAD(r + 8);
            a2 += NT_LOAD(r + 16);
            a3 += NT_LOAD(r + 24);
        }
        NT_STORE(acc + h, a0);
        NT_STORE(acc + h + 8, a1);
        NT_STORE(acc + h + 16, a2);
        NT_STORE(acc + h + 24, a3);
    }
    for (; h + 8 <= H; h += 8) {
        nt_v8 a0 = NT_LOAD(bias + h);
        for (j = 0; j < n; j++)
            a0 += NT_LOAD(w + (long)rows[j] * H + h);
        NT_STORE(acc + h, a0);
    }
}

/* g's rows named by rows += d. */
static inline __attribute__((always_inline))
void nt_scatter(float *g, const float *d, int H, const int *rows, int n)
{
    int h = 0, j;
    for (; h + 32 <= H; h += 32) {
        nt_v8 d0 = NT_LOAD(d + h), d1 = NT_LOAD(d + h + 8), d2 = NT_LOAD(d + h + 16), d3 = NT_LOAD(d + h + 24);
        for (j = 0; j < n; j++) {
            float *r = g + (long)rows[j] * H + h;
            NT_STORE(r, NT_LOAD(r) + d0);
            NT_STORE(r + 8, NT_LOAD(r + 8) + d1);
            NT_STORE(r + 16, NT_LOAD(r + 16) + d2);
            NT_STORE(r + 24, NT_LOAD(r + 24) + d3);
        }
    }
    for (; h + 8 <= H; h += 8) {
        nt_v8 d0 = NT_LOAD(d + h);
        for (j = 0; j < n; j++) {
            float *r = g + (long)rows[j] * H + h;
            NT_STORE(r, NT_LOAD(r) + d0);
        }
    }
}

/* The float output of positions idx[0..n): y = out_bias[b] + sum clamp(acc)^2 * out_weight[b].
 * With gradients (gftw not NULL): the squared error (sigmoid(y) - target)^2 of
 * each, its gradient times inv_n added to gftw, gftb, gow, gob; returns the
 * sum of the squared errors (0 without a target). y goes to pred[k] if pred is
 * not NULL. work: 4 H floats. */
NT_CLONES
static double nt_batch(int H, const float *ftw, const float *ftb, const float *ow, const float *ob,
                       float *gftw, float *gftb, float *gow, float *gob,
                       const int16_t *feats, const uint8_t *stm, const uint8_t *bucket, const float *target,
                       const int64_t *idx, long n, float inv_n, float *pred, float *work)
{
    float *acc_us = work, *acc_th = work + H, *d_us = work + 2 * H, *d_th = work + 3 * H;
    int us[NT_SLOTS], them[NT_SLOTS];
    double loss = 0.0;
    long k;
    int h, lane;
    for (k = 0; k < n; k++) {
        long i = idx ? idx[k] : k;
        int b = bucket[i], m = nt_views(feats + i * NT_SLOTS, stm[i], us, them);
        const float *owb = ow + (long)b * 2 * H;
        nt_gather(acc_us, ftw, ftb, H, us, m);
        nt_gather(acc_th, ftw, ftb, H, them, m);
        nt_v8 ys = NT_SPLAT(0.0f);
        for (h = 0; h < H; h += 8) {
            nt_v8 su = NT_CLAMP01(NT_LOAD(acc_us + h)), st = NT_CLAMP01(NT_LOAD(acc_th + h));
            ys += su * su * NT_LOAD(owb + h);
            ys += st * st * NT_LOAD(owb + H + h);
        }
        float y = ob[b];
        for (lane = 0; lane < 8; lane++)
            y += ys[lane];
        if (pred)
            pred[k] = y;
        if (!target)
            continue;
        float p = 1.0f / (1.0f + expf(-y)), e = p - target[i];
        loss += (double)e * e;
        if (!gftw)
            continue;
        float dy = 2.0f * e * p * (1.0f - p) * inv_n;
        nt_v8 dy2 = NT_SPLAT(2.0f * dy), dyv = NT_SPLAT(dy), one = NT_SPLAT(1.0f);
        float *gowb = gow + (long)b * 2 * H;
        gob[b] += dy;
        for (h = 0; h < H; h += 8) {
            nt_v8 au = NT_LOAD(acc_us + h), at = NT_LOAD(acc_th + h);
            nt_v8 su = NT_CLAMP01(au), st = NT_CLAMP01(at);
            NT_STORE(gowb + h, NT_LOAD(gowb + h) + dyv * su * su);
            NT_STORE(gowb + H + h, NT_LOAD(gowb + H + h) + dyv * st * st);
            /* d clamp(a)^2 / da = 2 clamp(a) inside (0, 1), else 0 (clamp(a) is 0 below) */
            nt_v8 du = NT_AND(dy2 * NT_LOAD(owb + h) * su, au < one);
            nt_v8 dt = NT_AND(dy2 * NT_LOAD(owb + H + h) * st, at < one);
            NT_STORE(d_us + h, du);
            NT_STORE(d_th + h, dt);
            NT_STORE(gftb + h, NT_LOAD(gftb + h) + du + dt);
        }
        nt_scatter(gftw, d_us, H, us, m);
        nt_scatter(gftw, d_th, H, them, m);
    }
    return loss;
}

/* One AdamW step on n weights: decoupled weight decay (w *= decay, decay =
 * 1 - lr * wd), bias corrections bc1 = 1 / (1 - beta1^t), bc2 = 1 / (1 - beta2^t),
 * then the weights clipped to +-clip. */
NT_CLONES
static void nt_adamw(float *w, const float *g, float *m, float *v, long n, float lr, float beta1, float beta2,
                     float eps, float decay, float bc1, float bc2, float clip)
{
    long i;
    for (i = 0; i < n; i++) {
        float gi = g[i];
        float mi = beta1 * m[i] + (1.0f - beta1) * gi;
        float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
        float wi = w[i] * decay - lr * (mi * bc1) / (sqrtf(vi * bc2) + eps);
        m[i] = mi;
        v[i] = vi;
        w[i] = wi > clip ? clip : (wi < -clip ? -clip : wi);
    }
}

#endif
