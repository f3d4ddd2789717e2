/*
 * kern_cpu_scalar.c: the portable path of kern_cpu.h. Plain C in eight
 * independent lanes, so a compiler can vectorise it at the target's
 * baseline (SSE2 on x86-64); x in natural order. Quantize and dequantize
 * are the twins themselves (kern_quant.c), which are portable already.
 */
#include "config.h"

/* The portable path is as fast as the compiler's vectoriser makes it: GCC
 * at -O2 uses its "very cheap" cost model, which leaves the FP16 bit trick
 * and the code unpacking scalar; the dynamic model (-O3's) vectorises them
 * at the target's baseline (SSE2 on x86-64). Same IEEE operations. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("-fvect-cost-model=dynamic")
#endif

#include <stdbool.h>
#include <string.h>

#include "kernels/kern_cpu_impl.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

#define L 8

/* Sum of the eight lanes, pairwise. */
static float lanes_sum(const float *a) {
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* One weight as float. */
static inline float wval(const struct kern_gemv *g, const void *row, size_t c) {
    const uint16_t *h = row;
    if (g->fmt == KERN_W_F16)
        return kern_f16_to_f32_inline(h[c]);
    uint32_t u = (uint32_t)h[c] << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 32 weights of a half row as float (no branch: the loops vectorise; GCC
 * is asked for its dynamic cost model here, which -O2's "very cheap" one
 * is not, so the FP16 bit trick runs 4 lanes wide at the SSE2 baseline). */
#if defined(__GNUC__)
__attribute__((noinline)) /* alone, the 32-wide loop vectorises; inlined, not */
#endif
static void
widen_half32(const uint16_t *h, bool bf, float *f) {
    if (bf) {
        for (unsigned i = 0; i < 32; i++) {
            uint32_t u = (uint32_t)h[i] << 16;
            memcpy(f + i, &u, 4);
        }
    } else {
        kern_widen32(h, f);
    }
}

/* FP16 and BF16 rows, batch 1: 32 columns at a time widened, then eight
 * lanes of products. */
static inline void gemv1_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                   size_t r0, size_t r1, bool bf) {
    const uint16_t *w = g->w;
    float buf[32];
    for (size_t r = r0; r < r1; r++) {
        const uint16_t *row = w + r * g->cols;
        float acc[L] = {0};
        size_t c = 0;
        for (; c + 32 <= g->cols; c += 32) {
            widen_half32(row + c, bf, buf);
            for (unsigned j = 0; j < 32; j += L)
                for (unsigned l = 0; l < L; l++)
                    acc[l] += buf[j + l] * s->xf[c + j + l];
        }
        float tail = 0;
        for (; c < g->cols; c++)
            tail += wval(g, row, c) * s->xf[c];
        g->y[r] = lanes_sum(acc) + tail;
    }
}

static void gemv1_f16(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    gemv1_half_body(g, s, r0, r1, false);
}

static void gemv1_bf16(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                       size_t r1) {
    gemv1_half_body(g, s, r0, r1, true);
}

/* The u values of 32 codes (natural order) as float. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
block_u32(const uint8_t *p, unsigned bits, float *u) {
    if (bits == 8) {
        for (unsigned i = 0; i < 32; i++)
            u[i] = (float)p[i];
    } else {
        for (unsigned i = 0; i < 16; i++) {
            u[2 * i] = (float)(p[i] & 15u);
            u[2 * i + 1] = (float)(p[i] >> 4);
        }
    }
}

/* Q8 and Q4 rows, batch 1: per group sum u*x in lanes, times the scale
 * once; the code offset comes off once per row: off * sum_g s_g xs_g. */
static inline void gemv1_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                size_t r0, size_t r1, unsigned bits) {
    const uint8_t *codes = g->w;
    float off = (float)(1 << (bits - 1)), u[32];
    for (size_t r = r0; r < r1; r++) {
        float acc[L] = {0}, corr[L] = {0};
        const uint8_t *p = codes + r * g->cols * bits / 8;
        const float *x = s->xf;
        for (size_t gi = 0; gi < s->ngroups; gi++) {
            float part[L] = {0};
            for (size_t k = 0; k < g->group; k += 32, p += 4 * bits, x += 32) {
                block_u32(p, bits, u);
                for (unsigned j = 0; j < 32; j += L)
                    for (unsigned l = 0; l < L; l++)
                        part[l] += u[j + l] * x[j + l];
            }
            float sc = kern_f16_to_f32_inline(g->scales[r * s->ngroups + gi]);
            for (unsigned l = 0; l < L; l++)
                acc[l] += part[l] * sc;
            corr[gi % L] += sc * s->xs[gi];
        }
        g->y[r] = lanes_sum(acc) - off * lanes_sum(corr);
    }
}

static void gemv1_q8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                     size_t r1) {
    gemv1_q_body(g, s, r0, r1, 8);
}

static void gemv1_q4(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                     size_t r1) {
    gemv1_q_body(g, s, r0, r1, 4);
}

/* The signed codes of one block of 32 (natural order). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
block_q32(const uint8_t *p, unsigned bits, int8_t *q) {
    if (bits == 8) {
        for (unsigned i = 0; i < 32; i++)
            q[i] = (int8_t)(p[i] - 128);
    } else {
        for (unsigned i = 0; i < 16; i++) {
            q[2 * i] = (int8_t)((p[i] & 15) - 8);
            q[2 * i + 1] = (int8_t)((p[i] >> 4) - 8);
        }
    }
}

/* The exact integer sum of 32 code products. */
static int32_t dot32(const int8_t *a, const int8_t *b) {
    int32_t t = 0;
    for (unsigned i = 0; i < 32; i++)
        t += (int32_t)a[i] * b[i];
    return t;
}

/* W8A8 / W4A8, every batch: per row, each block's codes unpacked once
 * and dotted with every vector's codes (x in natural order), the block
 * scaled once: acc += sum * (s_w * d). */
static inline void gemv_a8_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s,
                                size_t r0, size_t r1, unsigned bits) {
    const uint8_t *codes = g->w;
    size_t nb = s->nblk, rowb = g->cols * bits / 8;
    float acc[KERN_CPU_BATCH_MAX][4];
    int8_t q[32];
    for (size_t r = r0; r < r1; r++) {
        const uint16_t *ws = kern_cpu_a8_wscales(g, s, r, 0);
        const uint8_t *p = codes + r * rowb;
        memset(acc, 0, sizeof acc);
        for (size_t k = 0; k < nb; k++) {
            block_q32(p + k * 4 * bits, bits, q);
            float sw = kern_f16_to_f32_inline(ws[k]);
            for (size_t b = 0; b < g->batch; b++) {
                int32_t t = dot32(q, s->xq + b * s->xqpad + k * 32);
                acc[b][k % 4] += (float)t * (sw * s->xdr[b * nb + k]);
            }
        }
        for (size_t b = 0; b < g->batch; b++)
            g->y[b * g->rows + r] = (acc[b][0] + acc[b][1]) + (acc[b][2] + acc[b][3]);
    }
}

static void gemv_q8a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    gemv_a8_body(g, s, r0, r1, 8);
}

static void gemv_q4a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    gemv_a8_body(g, s, r0, r1, 4);
}

/* Widen or dequantize a tile (c0 and n multiples of 32 for Q). */
static void tile_any(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                     size_t nr, size_t c0, size_t n, size_t npad) {
    bool half = g->fmt == KERN_W_F16 || g->fmt == KERN_W_BF16;
    unsigned bits = g->fmt == KERN_W_Q8 ? 8 : 4;
    for (size_t i = 0; i < KERN_CPU_TILE_ROWS; i++) {
        float *t = s->tile + i * KERN_CPU_TILE_COLS;
        size_t c = 0;
        if (i < nr && half) {
            const uint16_t *w = (const uint16_t *)g->w + (r + i) * g->cols + c0;
            for (; c + 32 <= n; c += 32)
                widen_half32(w + c, g->fmt == KERN_W_BF16, t + c);
            for (; c < n; c++)
                t[c] = wval(g, w, c);
        } else if (i < nr) {
            float off = (float)(1 << (bits - 1));
            const uint8_t *p = (const uint8_t *)g->w + ((r + i) * g->cols + c0) * bits / 8;
            for (; c < n; c += 32, p += 4 * bits) {
                float sc =
                    kern_f16_to_f32_inline(g->scales[(r + i) * s->ngroups + (c0 + c) / g->group]);
                block_u32(p, bits, t + c);
                for (unsigned k = 0; k < 32; k++)
                    t[c + k] = (t[c + k] - off) * sc; /* exact: q * s */
            }
        }
        for (; c < npad; c++)
            t[c] = 0.0f;
    }
}

/* Tile rows times every x row, added into y. */
static void micro(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r, size_t nr,
                  size_t c0, size_t npad) {
    for (size_t b = 0; b < g->batch; b++) {
        const float *x = s->xf + b * s->xpad + c0;
        for (size_t i = 0; i < nr; i++) {
            const float *t = s->tile + i * KERN_CPU_TILE_COLS;
            float acc[L] = {0};
            for (size_t c = 0; c < npad; c += L)
                for (unsigned l = 0; l < L; l++)
                    acc[l] += t[c + l] * x[c + l];
            g->y[b * g->rows + r + i] += lanes_sum(acc);
        }
    }
}

static void quantize(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                     size_t group, uint8_t *codes, uint16_t *scales) {
    kern_quantize_rows_f16(w, cols, r0, r1, bits, group, codes, scales, NULL);
}

static void dequantize(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                       size_t r1, unsigned bits, size_t group, uint16_t *out) {
    kern_dequantize_rows_f16(codes, scales, cols, r0, r1, bits, group, out);
}

static void copy(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
}

static double sum(const double *a, size_t n) {
    double acc[L] = {0};
    size_t i = 0;
    for (; i + L <= n; i += L)
        for (unsigned l = 0; l < L; l++)
            acc[l] += a[i + l];
    double t = 0;
    for (; i < n; i++)
        t += a[i];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + t;
}

/* v = v * a + b as a multiply then an add (two statements: never fused). */
static double fma_loop(uint64_t iters, float a, float b) {
    float v[KERN_CPU_FMA_CHAINS][L];
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
        for (unsigned l = 0; l < L; l++)
            v[k][l] = (float)k * 0.25f;
    for (uint64_t i = 0; i < iters; i++)
        for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
            for (unsigned l = 0; l < L; l++) {
                float m = v[k][l] * a;
                v[k][l] = m + b;
            }
    double t = 0;
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
        for (unsigned l = 0; l < L; l++)
            t += v[k][l];
    return t;
}

const struct kern_cpu_impl kern_cpu_impl_scalar = {
    .isa = KERN_ISA_SCALAR,
    .lanes = L,
    .perm4 = false,
    .a8_unit = 0,
    .gemv1 = {gemv1_f16, gemv1_bf16, gemv1_q8, gemv1_q4, gemv_q8a8, gemv_q4a8},
    .tile = {tile_any, tile_any, tile_any, tile_any},
    .micro = micro,
    .quantize = quantize,
    .dequantize = dequantize,
    .copy = copy,
    .sum = sum,
    .fma_loop = fma_loop,
};
