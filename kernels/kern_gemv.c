/*
 * kern_gemv.c: the GEMV twins of the CUDA kernels and their float64
 * references (declared in kern_quant.h). y = W x for up to 16 vectors at a
 * time; FP16 weights, or packed b-bit codes with one FP16 scale per group
 * (sum q*x in float per group, times the scale once, as the GPU does).
 * The float loops run in eight lanes so the compiler vectorises them; the
 * references accumulate in float64 and also return sum |w x|, the scale
 * of the tolerance KERN_GEMV_RTOL every product is checked against.
 */
#include <math.h>
#include <string.h>

#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

#define GEMV_BATCH_MAX 16

/* Dot product of n FP16 pairs in float, eight lanes (vectorisable). */
static float dot_f16(const uint16_t *a, const uint16_t *b, size_t n) {
    float lane[8] = {0}, fa[32], fb[32];
    size_t c = 0;
    for (; c + 32 <= n; c += 32) {
        kern_widen32(a + c, fa);
        kern_widen32(b + c, fb);
        for (unsigned j = 0; j < 32; j += 8)
            for (unsigned i = 0; i < 8; i++)
                lane[i] += fa[j + i] * fb[j + i];
    }
    float tail = 0;
    for (; c < n; c++)
        tail += kern_f16_to_f32_inline(a[c]) * kern_f16_to_f32_inline(b[c]);
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
           ((lane[4] + lane[5]) + (lane[6] + lane[7])) + tail;
}

/* FP16 GEMV, float accumulation, rows [r0, r1); each row is read once per
 * block of up to 16 vectors (x stays in cache). */
void kern_gemv_f16(const uint16_t *w, size_t cols, size_t r0, size_t r1, const uint16_t *x,
                   size_t batch, size_t rows, float *y) {
    for (size_t r = r0; r < r1; r++)
        for (size_t b = 0; b < batch; b++)
            y[b * rows + r] = dot_f16(w + r * cols, x + b * cols, cols);
}

/* FP16 GEMV reference, float64 accumulation. */
void kern_gemv_f16_ref(const uint16_t *w, size_t rows, size_t cols, const uint16_t *x, size_t batch,
                       double *y) {
    for (size_t b = 0; b < batch; b++)
        for (size_t r = 0; r < rows; r++) {
            double acc = 0;
            for (size_t c = 0; c < cols; c++)
                acc += (double)kern_f16_to_f32(w[r * cols + c]) * kern_f16_to_f32(x[b * cols + c]);
            y[b * rows + r] = acc;
        }
}

/* Sum of n codes times n FP16 values, in float, eight lanes. */
static float dot_q(const int8_t *q, const uint16_t *x, size_t n) {
    float lane[8] = {0}, fx[32];
    size_t c = 0;
    for (; c + 32 <= n; c += 32) {
        kern_widen32(x + c, fx);
        for (unsigned j = 0; j < 32; j += 8)
            for (unsigned i = 0; i < 8; i++)
                lane[i] += (float)q[c + j + i] * fx[j + i];
    }
    float tail = 0;
    for (; c < n; c++)
        tail += (float)q[c] * kern_f16_to_f32_inline(x[c]);
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
           ((lane[4] + lane[5]) + (lane[6] + lane[7])) + tail;
}

/* Quantized GEMV twin: per group, sum q*x in float, times the scale once;
 * each group is unpacked once for all vectors. */
void kern_gemv_q(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0, size_t r1,
                 unsigned bits, size_t group, const uint16_t *x, size_t batch, size_t rows,
                 float *y) {
    int8_t q[KERN_GROUP_MAX];
    float acc[GEMV_BATCH_MAX];
    size_t per_row = cols / group;
    for (size_t b0 = 0; b0 < batch; b0 += GEMV_BATCH_MAX) {
        size_t nb = batch - b0 < GEMV_BATCH_MAX ? batch - b0 : GEMV_BATCH_MAX;
        for (size_t r = r0; r < r1; r++) {
            memset(acc, 0, sizeof acc);
            for (size_t g = 0; g < per_row; g++) {
                kern_quant_unpack(codes, r * cols + g * group, group, bits, q);
                float s = kern_f16_to_f32_inline(scales[r * per_row + g]);
                for (size_t b = 0; b < nb; b++)
                    acc[b] += dot_q(q, x + (b0 + b) * cols + g * group, group) * s;
            }
            for (size_t b = 0; b < nb; b++)
                y[(b0 + b) * rows + r] = acc[b];
        }
    }
}

/* Quantized GEMV reference, float64 accumulation. */
void kern_gemv_q_ref(const uint8_t *codes, const uint16_t *scales, size_t rows, size_t cols,
                     unsigned bits, size_t group, const uint16_t *x, size_t batch, double *y) {
    size_t per_row = cols / group;
    for (size_t b = 0; b < batch; b++)
        for (size_t r = 0; r < rows; r++) {
            double acc = 0;
            for (size_t c = 0; c < cols; c++) {
                double s = kern_f16_to_f32(scales[r * per_row + c / group]);
                acc += kern_quant_get(codes, r * cols + c, bits) * s *
                       kern_f16_to_f32(x[b * cols + c]);
            }
            y[b * rows + r] = acc;
        }
}

/* One FP16 GEMV reference output and its absolute sum. */
double kern_gemv_f16_ref_row(const uint16_t *w, size_t row, size_t cols, const uint16_t *x,
                             double *abs_sum) {
    const float *t = kern_f16_table();
    double acc = 0, as = 0;
    for (size_t c = 0; c < cols; c++) {
        double p = (double)t[w[row * cols + c]] * t[x[c]];
        acc += p;
        as += fabs(p);
    }
    if (abs_sum)
        *abs_sum = as;
    return acc;
}

/* One BF16 GEMV reference output and its absolute sum. */
double kern_gemv_bf16_ref_row(const uint16_t *w, size_t row, size_t cols, const uint16_t *x,
                              double *abs_sum) {
    const float *t = kern_f16_table();
    double acc = 0, as = 0;
    for (size_t c = 0; c < cols; c++) {
        double p = (double)kern_bf16_to_f32(w[row * cols + c]) * t[x[c]];
        acc += p;
        as += fabs(p);
    }
    if (abs_sum)
        *abs_sum = as;
    return acc;
}

/* One quantized GEMV reference output and its absolute sum. */
double kern_gemv_q_ref_row(const uint8_t *codes, const uint16_t *scales, size_t row, size_t cols,
                           unsigned bits, size_t group, const uint16_t *x, double *abs_sum) {
    const float *t = kern_f16_table();
    size_t per_row = cols / group;
    double acc = 0, as = 0;
    for (size_t c = 0; c < cols; c++) {
        double s = t[scales[row * per_row + c / group]];
        double p = kern_quant_get(codes, row * cols + c, bits) * s * t[x[c]];
        acc += p;
        as += fabs(p);
    }
    if (abs_sum)
        *abs_sum = as;
    return acc;
}

/* The activation codes of n FP16 values, per block of 32 (kern_quant.h). */
void kern_quantize_act8(const uint16_t *x, size_t n, int8_t *xq, float *d) {
    const float *t = kern_f16_table();
    for (size_t b = 0; b < n / KERN_ACT_BLOCK; b++) {
        const uint16_t *xb = x + b * KERN_ACT_BLOCK;
        float amax = 0;
        for (unsigned i = 0; i < KERN_ACT_BLOCK; i++) {
            float a = fabsf(t[xb[i]]);
            amax = a > amax ? a : amax; /* a NaN is skipped */
        }
        float db = amax / 127.0f, id = db > 0 ? 1.0f / db : 0.0f;
        d[b] = db;
        for (unsigned i = 0; i < KERN_ACT_BLOCK; i++) {
            float v = t[xb[i]] * id;
            /* the default rounding, ties to even (lrintf is one instruction,
             * nearbyintf a call); NaN and beyond +-127 clipped */
            long q = v == v ? lrintf(v > 127.0f ? 127.0f : v < -127.0f ? -127.0f : v) : 0;
            xq[b * KERN_ACT_BLOCK + i] = (int8_t)q;
        }
    }
}

/* One A8 output in float64, its tolerance scale and its distance bound
 * from the A16 product. */
double kern_gemv_qa8_ref_row(const uint8_t *codes, const uint16_t *scales, size_t row, size_t cols,
                             unsigned bits, size_t group, const uint16_t *x, double *abs_sum,
                             double *act_bound) {
    const float *t = kern_f16_table();
    size_t per_row = cols / group;
    double acc = 0, as = 0, bound = 0;
    int8_t xq[KERN_ACT_BLOCK];
    for (size_t c0 = 0; c0 < cols; c0 += KERN_ACT_BLOCK) {
        float d;
        kern_quantize_act8(x + c0, KERN_ACT_BLOCK, xq, &d);
        double s = t[scales[row * per_row + c0 / group]];
        int64_t dot = 0;
        double wabs = 0;
        for (unsigned i = 0; i < KERN_ACT_BLOCK; i++) {
            int q = kern_quant_get(codes, row * cols + c0 + i, bits);
            dot += (int64_t)q * xq[i];
            as += fabs((double)q * xq[i]) * s * d;
            wabs += fabs((double)q);
        }
        acc += (double)dot * s * d;
        bound += 0.5 * (1 + 2e-4) * d * wabs * fabs(s);
    }
    if (abs_sum)
        *abs_sum = as;
    if (act_bound)
        *act_bound = bound;
    return acc;
}
