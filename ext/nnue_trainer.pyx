# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""engine.train._nnue_trainer: the NNUE trainer's compiled loop (ext/nnue_trainer.h).

The net is four float32 arrays, C-contiguous: ft_weight (768, H), ft_bias (H,),
out_weight (8, 2H), out_bias (8,); H a multiple of 8. A position is its White-view
inputs (32 int16 slots, -1 pads), its side to move (0 White, 1 Black) and its
bucket (uint8). engine/train/nnue.py makes them.
"""
import numpy as np

from libc.stdint cimport int16_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from "nnue_trainer.h" nogil:
    double nt_batch(int H, const float *ftw, const float *ftb, const float *ow, const float *ob,
                    float *gftw, float *gftb, float *gow, float *gob,
                    const int16_t *feats, const uint8_t *stm, const uint8_t *bucket, const float *target,
                    const int64_t *idx, long n, float inv_n, float *pred, float *work)
    void nt_adamw(float *w, const float *g, float *m, float *v, long n, float lr, float beta1, float beta2,
                  float eps, float decay, float bc1, float bc2, float clip)


cdef int check_net(float[:, ::1] ft_weight, float[::1] ft_bias, float[:, ::1] out_weight,
                   float[::1] out_bias) except -1:
    H = ft_weight.shape[1]
    if (ft_weight.shape[0] != 768 or H % 8 or H == 0 or ft_bias.shape[0] != H
            or out_weight.shape[0] != 8 or out_weight.shape[1] != 2 * H or out_bias.shape[0] != 8):
        raise ValueError("the net must be ft_weight (768, H), ft_bias (H,), out_weight (8, 2H), out_bias (8,), "
                         "H a multiple of 8")
    return H


cdef int check_positions(const int16_t[:, ::1] feats, const uint8_t[::1] stm, const uint8_t[::1] bucket) except -1:
    n = feats.shape[0]
    if feats.shape[1] != 32 or stm.shape[0] != n or bucket.shape[0] != n:
        raise ValueError("positions: feats (N, 32), stm (N,), bucket (N,)")
    if n and (np.asarray(bucket).max() > 7 or np.asarray(stm).max() > 1 or np.asarray(feats).max() >= 768):
        raise ValueError("positions: a bucket above 7, a side to move above 1 or an input above 767")
    return 0


def forward(float[:, ::1] ft_weight, float[::1] ft_bias, float[:, ::1] out_weight, float[::1] out_bias,
            const int16_t[:, ::1] feats, const uint8_t[::1] stm, const uint8_t[::1] bucket):
    """The float output y of every position (float32; sigmoid(y) is the predicted result)."""
    cdef int H = check_net(ft_weight, ft_bias, out_weight, out_bias)
    check_positions(feats, stm, bucket)
    cdef long n = feats.shape[0]
    y = np.zeros(n, np.float32)
    cdef float[::1] yv = y
    cdef float *work = <float *>malloc(4 * H * sizeof(float))
    if n:
        with nogil:
            nt_batch(H, &ft_weight[0, 0], &ft_bias[0], &out_weight[0, 0], &out_bias[0], NULL, NULL, NULL, NULL,
                     &feats[0, 0], &stm[0], &bucket[0], NULL, NULL, n, 0.0, &yv[0], work)
    free(work)
    return y


def loss_and_gradient(float[:, ::1] ft_weight, float[::1] ft_bias, float[:, ::1] out_weight, float[::1] out_bias,
                      const int16_t[:, ::1] feats, const uint8_t[::1] stm, const uint8_t[::1] bucket,
                      const float[::1] target):
    """(mean squared error of sigmoid(y) against target, the gradients of it as
    float32 arrays shaped like the net's: ft_weight, ft_bias, out_weight, out_bias)."""
    cdef int H = check_net(ft_weight, ft_bias, out_weight, out_bias)
    check_positions(feats, stm, bucket)
    cdef long n = feats.shape[0]
    if target.shape[0] != n or n == 0:
        raise ValueError("one target per position, and at least one position")
    grads = [np.zeros((768, H), np.float32), np.zeros(H, np.float32), np.zeros((8, 2 * H), np.float32),
             np.zeros(8, np.float32)]
    cdef float[:, ::1] gw = grads[0], gow = grads[2]
    cdef float[::1] gb = grads[1], gob = grads[3]
    cdef float *work = <float *>malloc(4 * H * sizeof(float))
    cdef double loss
    with nogil:
        loss = nt_batch(H, &ft_weight[0, 0], &ft_bias[0], &out_weight[0, 0], &out_bias[0], &gw[0, 0], &gb[0],
                        &gow[0, 0], &gob[0], &feats[0, 0], &stm[0], &bucket[0], &target[0], NULL, n,
                        <float>(1.0 / n), NULL, work)
    free(work)
    return loss / n, grads


def train_epoch(list params, list moments, list squares, const int16_t[:, ::1] feats, const uint8_t[::1] stm,
                const uint8_t[::1] bucket, const float[::1] target, const int64_t[::1] order, long batch,
                const double[::1] lrs, long step, double wd, double beta1=0.9, double beta2=0.999,
                double eps=1e-8, double clip=1.98):
    """One epoch of mini-batches over the positions ``order`` names, in that
    order: each batch's mean squared error, its gradient, then AdamW on the
    four arrays of ``params`` (updated in place, with their first and second
    moments ``moments`` and ``squares``). Batch j steps at lrs[j]; ``step``
    is the number of steps taken before (Adam's bias corrections). Weight decay
    on the two weight arrays, not the biases; every array but out_bias clipped
    to +-clip. Returns (the sum of the batches' squared errors, the step after)."""
    cdef float[:, ::1] ftw = params[0], ow = params[2]
    cdef float[::1] ftb = params[1], ob = params[3]
    cdef int H = check_net(ftw, ftb, ow, ob)
    check_positions(feats, stm, bucket)
    cdef long n = order.shape[0], steps = (n + batch - 1) // batch if batch > 0 else 0
    if batch <= 0 or lrs.shape[0] < steps or target.shape[0] != feats.shape[0]:
        raise ValueError("batch must be positive, with a learning rate for each of its batches")
    if n and (np.asarray(order).min() < 0 or np.asarray(order).max() >= feats.shape[0]):
        raise ValueError("order names positions that are not there")
    cdef float *w[4]
    cdef float *g[4]
    cdef float *m[4]
    cdef float *v[4]
    cdef long size[4]
    cdef float decay_of[4]
    cdef float clip_of[4]
    grads = [np.zeros_like(np.asarray(p)) for p in params]
    cdef float[:, ::1] gftw = grads[0], gow = grads[2]
    cdef float[::1] gftb = grads[1], gob = grads[3]
    cdef float[::1] flat
    for a in range(4):
        for name, arrays, table in (("params", params, 0), ("moments", moments, 1), ("squares", squares, 2),
                                    ("grads", grads, 3)):
            arr = arrays[a]
            if not (isinstance(arr, np.ndarray) and arr.dtype == np.float32 and arr.flags.c_contiguous
                    and arr.shape == grads[a].shape):
                raise ValueError(f"{name}[{a}] must be a C-contiguous float32 array shaped like params[{a}]")
            flat = arr.reshape(-1)
            if table == 0:
                w[a] = &flat[0]
            elif table == 1:
                m[a] = &flat[0]
            elif table == 2:
                v[a] = &flat[0]
            else:
                g[a] = &flat[0]
        size[a] = grads[a].size
    if steps == 0:
        return 0.0, step
    cdef float *work = <float *>malloc(4 * H * sizeof(float))
    cdef double total = 0.0, lr
    cdef long j, first, count
    cdef int t
    with nogil:
        for j in range(steps):
            first = j * batch
            count = batch if first + batch <= n else n - first
            for t in range(4):
                memset(g[t], 0, size[t] * sizeof(float))
            total += nt_batch(H, w[0], w[1], w[2], w[3], g[0], g[1], g[2], g[3], &feats[0, 0], &stm[0],
                              &bucket[0], &target[0], &order[first], count, <float>(1.0 / count), NULL, work)
            step += 1
            lr = lrs[j]
            for t in range(4):
                nt_adamw(w[t], g[t], m[t], v[t], size[t], <float>lr, <float>beta1, <float>beta2, <float>eps,
                         <float>(1.0 - lr * wd) if t % 2 == 0 else 1.0,
                         <float>(1.0 / (1.0 - beta1 ** step)), <float>(1.0 / (1.0 - beta2 ** step)),
                         <float>clip if t < 3 else <float>1e30)
    free(work)
    return total, step

