/*
 * kern_cpu_neon.c: the NEON path of kern_cpu.h (aarch64, where Advanced
 * SIMD is always present).
 *
 * The x86 paths' structure at 4 lanes: batch 1 streams four rows per x
 * load, eight columns a step; FP16 widens with fcvtl, BF16 with a 16-bit
 * shift-left-long; Q4's 16 bytes split into low nibbles (even elements)
 * and high nibbles (odd), each widened 8 -> 16 -> 32 bits; batch 2..16
 * runs a 4 x 512 tile by four vectors (16 accumulators of 32 registers).
 * NEON's fmax returns NaN when either operand is NaN, so the twin's
 * "a > m ? a : m" is written as a compare and a select. The FP16 GEMV at
 * batch 1 uses FP16 arithmetic (FMLAL) where the CPU has it.
 */
#include "config.h"

#if defined(__aarch64__)

#include <arm_neon.h>
#include <stdbool.h>
#include <sys/auxv.h>

#include "kernels/kern_cpu_impl.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

/* Every helper is inlined into its kernel (the kernels are few and hot). */
#define AI static inline __attribute__((always_inline))
/* Small fixed loops over registers are unrolled completely (at -O2 too),
 * so their arrays of vectors stay in registers. */
#define UNROLL _Pragma("GCC unroll 16")

/* Eight 16-bit weights as two float vectors. */
AI void ld_half(const uint16_t *p, bool bf, float32x4_t *lo, float32x4_t *hi) {
    uint16x8_t v = vld1q_u16(p);
    if (bf) {
        *lo = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(v), 16));
        *hi = vreinterpretq_f32_u32(vshll_n_u16(vget_high_u16(v), 16));
    } else {
        float16x8_t h = vreinterpretq_f16_u16(v);
        *lo = vcvt_f32_f16(vget_low_f16(h));
        *hi = vcvt_high_f32_f16(h);
    }
}

AI void gemv1_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
    const uint16_t *w = g->w;
    const float *x = s->xf;
    size_t n = g->cols, n8 = n & ~(size_t)7, r = r0;
    for (; r + 4 <= r1; r += 4) {
        const uint16_t *wr[4] = {w + r * n, w + (r + 1) * n, w + (r + 2) * n, w + (r + 3) * n};
        float32x4_t a[4][2];
        UNROLL
        for (int i = 0; i < 4; i++)
            a[i][0] = a[i][1] = vdupq_n_f32(0.0f);
        for (size_t c = 0; c < n8; c += 8) {
            float32x4_t x0 = vld1q_f32(x + c), x1 = vld1q_f32(x + c + 4);
            UNROLL
            for (int i = 0; i < 4; i++) {
                float32x4_t lo, hi;
                ld_half(wr[i] + c, bf, &lo, &hi);
                a[i][0] = vfmaq_f32(a[i][0], lo, x0);
                a[i][1] = vfmaq_f32(a[i][1], hi, x1);
            }
        }
        UNROLL
        for (int i = 0; i < 4; i++)
            g->y[r + (size_t)i] =
                vaddvq_f32(vaddq_f32(a[i][0], a[i][1])) + kern_cpu_half_tail(wr[i], x, n8, n, bf);
    }
    for (; r < r1; r++) {
        const uint16_t *w0 = w + r * n;
        float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0;
        for (size_t c = 0; c < n8; c += 8) {
            float32x4_t lo, hi;
            ld_half(w0 + c, bf, &lo, &hi);
            a0 = vfmaq_f32(a0, lo, vld1q_f32(x + c));
            a1 = vfmaq_f32(a1, hi, vld1q_f32(x + c + 4));
        }
        g->y[r] = vaddvq_f32(vaddq_f32(a0, a1)) + kern_cpu_half_tail(w0, x, n8, n, bf);
    }
}

/* FP16 arithmetic where the CPU has it (FEAT_FHM, "asimdfhm" in
 * /proc/cpuinfo: Apple M1 and later, Neoverse V1/N2, Cortex-A78/X1 and
 * later): FMLAL multiplies FP16 weights by the FP16 x and adds into FP32
 * with one rounding; an FP16 product is exact in FP32, so this is the
 * same arithmetic as widening first, with no conversions at all. */
static bool have_fhm(void) {
    static int cached = -1;
    if (cached < 0) {
        unsigned long hw = getauxval(AT_HWCAP);
#ifdef HWCAP_ASIMDFHM
        cached = (hw & HWCAP_ASIMDFHM) != 0;
#else
        cached = (hw & (1ul << 23)) != 0; /* HWCAP_ASIMDFHM */
#endif
    }
    return cached;
}

__attribute__((target("arch=armv8.2-a+fp16fml"))) static void
gemv1_f16_fhm(const struct kern_gemv *g, size_t r0, size_t r1) {
    const uint16_t *w = g->w, *x = g->x;
    size_t n = g->cols, n8 = n & ~(size_t)7, r = r0;
    for (; r + 4 <= r1; r += 4) {
        const uint16_t *w0 = w + r * n, *w1 = w0 + n, *w2 = w1 + n, *w3 = w2 + n;
        float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
        float32x4_t b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        for (size_t c = 0; c < n8; c += 8) {
            float16x8_t xv = vreinterpretq_f16_u16(vld1q_u16(x + c));
            float16x8_t v0 = vreinterpretq_f16_u16(vld1q_u16(w0 + c));
            float16x8_t v1 = vreinterpretq_f16_u16(vld1q_u16(w1 + c));
            float16x8_t v2 = vreinterpretq_f16_u16(vld1q_u16(w2 + c));
            float16x8_t v3 = vreinterpretq_f16_u16(vld1q_u16(w3 + c));
            a0 = vfmlalq_low_f16(a0, v0, xv);
            b0 = vfmlalq_high_f16(b0, v0, xv);
            a1 = vfmlalq_low_f16(a1, v1, xv);
            b1 = vfmlalq_high_f16(b1, v1, xv);
            a2 = vfmlalq_low_f16(a2, v2, xv);
            b2 = vfmlalq_high_f16(b2, v2, xv);
            a3 = vfmlalq_low_f16(a3, v3, xv);
            b3 = vfmlalq_high_f16(b3, v3, xv);
        }
        float t[4] = {0, 0, 0, 0};
        for (size_t c = n8; c < n; c++) {
            float xc = kern_f16_to_f32_inline(x[c]);
            t[0] += kern_f16_to_f32_inline(w0[c]) * xc;
            t[1] += kern_f16_to_f32_inline(w1[c]) * xc;
            t[2] += kern_f16_to_f32_inline(w2[c]) * xc;
            t[3] += kern_f16_to_f32_inline(w3[c]) * xc;
        }
        g->y[r] = vaddvq_f32(vaddq_f32(a0, b0)) + t[0];
        g->y[r + 1] = vaddvq_f32(vaddq_f32(a1, b1)) + t[1];
        g->y[r + 2] = vaddvq_f32(vaddq_f32(a2, b2)) + t[2];
        g->y[r + 3] = vaddvq_f32(vaddq_f32(a3, b3)) + t[3];
    }
    for (; r < r1; r++) {
        const uint16_t *w0 = w + r * n;
        float32x4_t a0 = vdupq_n_f32(0.0f), b0 = a0;
        for (size_t c = 0; c < n8; c += 8) {
            float16x8_t xv = vreinterpretq_f16_u16(vld1q_u16(x + c));
            float16x8_t v0 = vreinterpretq_f16_u16(vld1q_u16(w0 + c));
            a0 = vfmlalq_low_f16(a0, v0, xv);
            b0 = vfmlalq_high_f16(b0, v0, xv);
        }
        float t = 0;
        for (size_t c = n8; c < n; c++)
            t += kern_f16_to_f32_inline(w0[c]) * kern_f16_to_f32_inline(x[c]);
        g->y[r] = vaddvq_f32(vaddq_f32(a0, b0)) + t;
    }
}

static void gemv1_f16(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    if (have_fhm())
        gemv1_f16_fhm(g, r0, r1);
    else
        gemv1_half_body(g, s, r0, r1, false);
}

/* 16 bytes as four float vectors of the bytes' values. */
AI void u8x16(uint8x16_t b, float32x4_t u[4]) {
    uint16x8_t l = vmovl_u8(vget_low_u8(b)), h = vmovl_high_u8(b);
    u[0] = vcvtq_f32_u32(vmovl_u16(vget_low_u16(l)));
    u[1] = vcvtq_f32_u32(vmovl_high_u16(l));
    u[2] = vcvtq_f32_u32(vmovl_u16(vget_low_u16(h)));
    u[3] = vcvtq_f32_u32(vmovl_high_u16(h));
}

/* The u values of a 32-weight block in x's stored order (8 vectors). */
AI void block_u(const uint8_t *p, unsigned bits, float32x4_t u[8]) {
    if (bits == 8) {
        u8x16(vld1q_u8(p), u);
        u8x16(vld1q_u8(p + 16), u + 4);
    } else {
        uint8x16_t b = vld1q_u8(p);
        u8x16(vandq_u8(b, vdupq_n_u8(15)), u);
        u8x16(vshrq_n_u8(b, 4), u + 4);
    }
}

AI void gemv1_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                     size_t r1, unsigned bits) {
    const uint8_t *codes = g->w;
    const float *x = s->xf;
    size_t ng = s->ngroups, G = g->group, rowb = g->cols * bits / 8, blk = 32 * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t r = r0; r < r1; r += 4) {
        size_t nr = r1 - r < 4 ? r1 - r : 4;
        const uint8_t *p[4];
        const uint16_t *sh[4];
        UNROLL
        for (size_t i = 0; i < 4; i++) {
            size_t ii = i < nr ? i : nr - 1;
            p[i] = codes + (r + ii) * rowb;
            sh[i] = g->scales + (r + ii) * ng;
        }
        float32x4_t a[4];
        float corr[4] = {0, 0, 0, 0};
        UNROLL
        for (int i = 0; i < 4; i++)
            a[i] = vdupq_n_f32(0.0f);
        for (size_t gi = 0; gi < ng; gi++) {
            float32x4_t t[4][2];
            UNROLL
            for (int i = 0; i < 4; i++)
                t[i][0] = t[i][1] = vdupq_n_f32(0.0f);
            for (size_t k = 0; k < G; k += 32) {
                const float *xb = x + gi * G + k;
                size_t o = (gi * G + k) / 32 * blk;
                float32x4_t xv[8];
                UNROLL
                for (int j = 0; j < 8; j++)
                    xv[j] = vld1q_f32(xb + 4 * j);
                UNROLL
                for (int i = 0; i < 4; i++) {
                    float32x4_t u[8];
                    block_u(p[i] + o, bits, u);
                    UNROLL
                    for (int j = 0; j < 8; j += 2) {
                        t[i][0] = vfmaq_f32(t[i][0], u[j], xv[j]);
                        t[i][1] = vfmaq_f32(t[i][1], u[j + 1], xv[j + 1]);
                    }
                }
            }
            UNROLL
            for (int i = 0; i < 4; i++) {
                float sc = kern_f16_to_f32_inline(sh[i][gi]);
                a[i] = vfmaq_n_f32(a[i], vaddq_f32(t[i][0], t[i][1]), sc);
                corr[i] += sc * s->xs[gi]; /* the offset comes off once a row */
            }
        }
        float o[4];
        UNROLL
        for (int i = 0; i < 4; i++)
            o[i] = vaddvq_f32(a[i]) - off * corr[i];
        for (size_t i = 0; i < nr; i++)
            g->y[r + i] = o[i];
    }
}

/* ---- batch 2..4: two rows by four vectors, no tile ----------------------- */

AI void gemvs_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
    const uint16_t *w = g->w;
    const float *xr[4];
    kern_cpu_xrows4(g, s, xr);
    size_t n = g->cols, n8 = n & ~(size_t)7;
    for (size_t r = r0; r < r1; r += 2) {
        size_t nr = r1 - r < 2 ? 1 : 2;
        const uint16_t *w0 = w + r * n, *w1 = w + (r + nr - 1) * n;
        float32x4_t a[2][4];
        UNROLL
        for (int i = 0; i < 2; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            a[i][k] = vdupq_n_f32(0.0f);
        for (size_t c = 0; c < n8; c += 8) {
            float32x4_t l0, h0, l1, h1;
            ld_half(w0 + c, bf, &l0, &h0);
            ld_half(w1 + c, bf, &l1, &h1);
            UNROLL
            for (int k = 0; k < 4; k++) {
                float32x4_t xa = vld1q_f32(xr[k] + c), xb = vld1q_f32(xr[k] + c + 4);
                a[0][k] = vfmaq_f32(vfmaq_f32(a[0][k], l0, xa), h0, xb);
                a[1][k] = vfmaq_f32(vfmaq_f32(a[1][k], l1, xa), h1, xb);
            }
        }
        float o[2][4];
        UNROLL
        for (int i = 0; i < 2; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            o[i][k] = vaddvq_f32(a[i][k]);
        for (size_t i = 0; i < nr; i++)
            for (size_t k = 0; k < g->batch; k++)
                g->y[k * g->rows + r + i] =
                    o[i][k] + kern_cpu_half_tail(i ? w1 : w0, xr[k], n8, n, bf);
    }
}

AI void gemvs_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                     size_t r1, unsigned bits) {
    const uint8_t *codes = g->w;
    const float *xr[4];
    kern_cpu_xrows4(g, s, xr);
    size_t ng = s->ngroups, G = g->group, rowb = g->cols * bits / 8, blk = 32 * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t r = r0; r < r1; r += 2) {
        size_t nr = r1 - r < 2 ? 1 : 2;
        const uint8_t *p0 = codes + r * rowb, *p1 = codes + (r + nr - 1) * rowb;
        const uint16_t *sh0 = g->scales + r * ng, *sh1 = g->scales + (r + nr - 1) * ng;
        float32x4_t a[2][4];
        UNROLL
        for (int i = 0; i < 2; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            a[i][k] = vdupq_n_f32(0.0f);
        for (size_t gi = 0; gi < ng; gi++) {
            float s0 = kern_f16_to_f32_inline(sh0[gi]), s1 = kern_f16_to_f32_inline(sh1[gi]);
            float32x4_t mo0 = vdupq_n_f32(-off * s0), mo1 = vdupq_n_f32(-off * s1);
            for (size_t k0 = 0; k0 < G; k0 += 32) {
                size_t c = gi * G + k0, o = c / 32 * blk;
                float32x4_t u0[8], u1[8];
                block_u(p0 + o, bits, u0);
                block_u(p1 + o, bits, u1);
                UNROLL
                for (int j = 0; j < 8; j++) {
                    float32x4_t v0 = vfmaq_n_f32(mo0, u0[j], s0); /* q * s, one rounding */
                    float32x4_t v1 = vfmaq_n_f32(mo1, u1[j], s1);
                    UNROLL
                    for (int k = 0; k < 4; k++) {
                        float32x4_t xv = vld1q_f32(xr[k] + c + 4 * (size_t)j);
                        a[0][k] = vfmaq_f32(a[0][k], v0, xv);
                        a[1][k] = vfmaq_f32(a[1][k], v1, xv);
                    }
                }
            }
        }
        float o[2][4];
        UNROLL
        for (int i = 0; i < 2; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            o[i][k] = vaddvq_f32(a[i][k]);
        for (size_t i = 0; i < nr; i++)
            for (size_t k = 0; k < g->batch; k++)
                g->y[k * g->rows + r + i] = o[i][k];
    }
}

/* ---- batch 5..16: tiles ------------------------------------------------- */

AI void tile_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                       size_t nr, size_t c0, size_t n, size_t npad, bool bf) {
    for (size_t i = 0; i < nr; i++) {
        const uint16_t *w = (const uint16_t *)g->w + (r + i) * g->cols + c0;
        float *t = s->tile + i * KERN_CPU_TILE_COLS;
        size_t c = 0;
        if (c0 + 2 * KERN_CPU_TILE_COLS <= g->cols) /* next block of this row (AVX2 path) */
            for (size_t k = 0; k < KERN_CPU_TILE_COLS; k += 32)
                __builtin_prefetch(w + KERN_CPU_TILE_COLS + k);
        for (; c + 8 <= n; c += 8) {
            float32x4_t lo, hi;
            ld_half(w + c, bf, &lo, &hi);
            vst1q_f32(t + c, lo);
            vst1q_f32(t + c + 4, hi);
        }
        for (; c < n; c++)
            t[c] = bf ? kern_bf16_to_f32(w[c]) : kern_f16_to_f32_inline(w[c]);
    }
    kern_cpu_tile_pad(s, nr, n, npad);
}

AI void tile_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                    size_t nr, size_t c0, size_t n, size_t npad, unsigned bits) {
    size_t ng = s->ngroups, rowb = g->cols * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t i = 0; i < nr; i++) {
        const uint8_t *p = (const uint8_t *)g->w + (r + i) * rowb + c0 * bits / 8;
        const uint16_t *sh = g->scales + (r + i) * ng;
        float *t = s->tile + i * KERN_CPU_TILE_COLS;
        for (size_t c = 0; c < n; c += 32) {
            float scf = kern_f16_to_f32_inline(sh[(c0 + c) / g->group]);
            float32x4_t ov = vdupq_n_f32(off * scf);
            float32x4_t u[8];
            block_u(p + c * bits / 8, bits, u);
            UNROLL
            for (int j = 0; j < 8; j++) /* u * s - off * s, one rounding of q * s */
                vst1q_f32(t + c + 4 * (size_t)j, vfmaq_n_f32(vnegq_f32(ov), u[j], scf));
        }
    }
    kern_cpu_tile_pad(s, nr, n, npad);
}

static void micro(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r, size_t nr,
                  size_t c0, size_t npad) {
    const float *t = s->tile;
    for (size_t b = 0; b < g->batch; b += 4) {
        size_t nb = g->batch - b < 4 ? g->batch - b : 4;
        const float *xr[4];
        UNROLL
        for (size_t k = 0; k < 4; k++)
            xr[k] = s->xf + (b + (k < nb ? k : nb - 1)) * s->xpad + c0;
        float32x4_t a[4][4];
        UNROLL
        for (int i = 0; i < 4; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            a[i][k] = vdupq_n_f32(0.0f);
        for (size_t c = 0; c < npad; c += 4) {
            float32x4_t w[4];
            UNROLL
            for (int i = 0; i < 4; i++)
                w[i] = vld1q_f32(t + (size_t)i * KERN_CPU_TILE_COLS + c);
            UNROLL
            for (int k = 0; k < 4; k++) {
                float32x4_t xv = vld1q_f32(xr[k] + c);
                UNROLL
                for (int i = 0; i < 4; i++)
                    a[i][k] = vfmaq_f32(a[i][k], w[i], xv);
            }
        }
        float o[4][4];
        UNROLL
        for (int i = 0; i < 4; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            o[i][k] = vaddvq_f32(a[i][k]);
        for (size_t k = 0; k < nb; k++)
            for (size_t i = 0; i < nr; i++)
                g->y[(b + k) * g->rows + r + i] += o[i][k];
    }
}

/* ---- quantize and dequantize ------------------------------------------- */

/* The twin's clamp (v > lo ? v : lo, then v < hi ? v : hi): NaN -> lo. */
AI float32x4_t clamp4(float32x4_t v, float32x4_t lo, float32x4_t hi) {
    v = vbslq_f32(vcgtq_f32(v, lo), v, lo);
    return vbslq_f32(vcltq_f32(v, hi), v, hi);
}

static void quantize(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                     size_t group, uint8_t *codes, uint16_t *scales) {
    float qm = (float)((1 << (bits - 1)) - 1);
    const float32x4_t lo = vdupq_n_f32(-qm - 1.0f), hi = vdupq_n_f32(qm + 1.0f);
    const float32x4_t qlo = vdupq_n_f32(-qm), qhi = vdupq_n_f32(qm);
    const int32x4_t offv = vdupq_n_s32(1 << (bits - 1));
    size_t per_row = cols / group;
    uint8_t *out = codes + r0 * cols * bits / 8;
    for (size_t r = r0; r < r1; r++) {
        for (size_t gi = 0; gi < per_row; gi++) {
            const uint16_t *src = w + r * cols + gi * group;
            float32x4_t m = vdupq_n_f32(0.0f);
            for (size_t j = 0; j < group; j += 8) {
                float32x4_t a, b;
                ld_half(src + j, false, &a, &b);
                a = vabsq_f32(a);
                b = vabsq_f32(b);
                m = vbslq_f32(vcgtq_f32(a, m), a, m); /* a NaN never wins */
                m = vbslq_f32(vcgtq_f32(b, m), b, m);
            }
            uint16_t sh = kern_quant_scale(vmaxvq_f32(m), bits);
            scales[r * per_row + gi] = sh;
            float sf = kern_f16_to_f32_inline(sh);
            float32x4_t sv = vdupq_n_f32(sf);
            for (size_t j = 0; j < group; j += 32, out += 4 * bits) {
                uint8_t u[32];
                for (size_t k = 0; k < 32; k += 8) {
                    float32x4_t a, b;
                    ld_half(src + j + k, false, &a, &b);
                    int32x4_t qa = offv, qb = offv;
                    if (sf != 0.0f) {
                        a = clamp4(vrndnq_f32(clamp4(vdivq_f32(a, sv), lo, hi)), qlo, qhi);
                        b = clamp4(vrndnq_f32(clamp4(vdivq_f32(b, sv), lo, hi)), qlo, qhi);
                        qa = vaddq_s32(vcvtq_s32_f32(a), offv);
                        qb = vaddq_s32(vcvtq_s32_f32(b), offv);
                    }
                    uint16x8_t h = vcombine_u16(vqmovun_s32(qa), vqmovun_s32(qb));
                    vst1_u8(u + k, vqmovn_u16(h));
                }
                if (bits == 8) {
                    vst1q_u8(out, vld1q_u8(u));
                    vst1q_u8(out + 16, vld1q_u8(u + 16));
                } else {
                    uint8x16x2_t d = vld2q_u8(u); /* evens, odds */
                    vst1q_u8(out, vorrq_u8(d.val[0], vshlq_n_u8(d.val[1], 4)));
                }
            }
        }
    }
}

static void dequantize(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                       size_t r1, unsigned bits, size_t group, uint16_t *out) {
    size_t per_row = cols / group;
    for (size_t r = r0; r < r1; r++) {
        const uint8_t *p = codes + r * cols * bits / 8;
        uint16_t *o = out + r * cols;
        for (size_t c = 0; c < cols; c += 32) {
            float sf = kern_f16_to_f32_inline(scales[r * per_row + c / group]);
            float off = (float)(1 << (bits - 1));
            uint8x16_t e0, e1;
            if (bits == 8) {
                e0 = vld1q_u8(p + c);
                e1 = vld1q_u8(p + c + 16);
            } else {
                uint8x16_t b = vld1q_u8(p + c / 2);
                uint8x16x2_t z = vzipq_u8(vandq_u8(b, vdupq_n_u8(15)), vshrq_n_u8(b, 4));
                e0 = z.val[0];
                e1 = z.val[1];
            }
            float32x4_t u[8];
            u8x16(e0, u);
            u8x16(e1, u + 4);
            UNROLL
            for (int j = 0; j < 8; j += 2) {
                /* (u - off) * s: the subtraction is exact, the product too */
                float32x4_t f0 = vmulq_n_f32(vsubq_f32(u[j], vdupq_n_f32(off)), sf);
                float32x4_t f1 = vmulq_n_f32(vsubq_f32(u[j + 1], vdupq_n_f32(off)), sf);
                float16x8_t h = vcvt_high_f16_f32(vcvt_f16_f32(f0), f1);
                vst1q_u16(o + c + 4 * (size_t)j, vreinterpretq_u16_f16(h));
            }
        }
    }
}

/* ---- copy, sum, FMA peak ------------------------------------------------ */

static void copy(void *dst, const void *src, size_t n) {
    const uint8_t *s = src;
    uint8_t *d = dst;
    for (size_t i = 0; i < n; i += 64) {
        uint8x16x4_t v = vld1q_u8_x4(s + i);
        vst1q_u8_x4(d + i, v);
    }
}

static double sum(const double *a, size_t n) {
    float64x2_t s0 = vdupq_n_f64(0), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        s0 = vaddq_f64(s0, vld1q_f64(a + i));
        s1 = vaddq_f64(s1, vld1q_f64(a + i + 2));
        s2 = vaddq_f64(s2, vld1q_f64(a + i + 4));
        s3 = vaddq_f64(s3, vld1q_f64(a + i + 6));
    }
    double r = vaddvq_f64(vaddq_f64(vaddq_f64(s0, s1), vaddq_f64(s2, s3)));
    for (; i < n; i++)
        r += a[i];
    return r;
}

static double fma_loop(uint64_t iters, float a, float b) {
    const float32x4_t av = vdupq_n_f32(a), bv = vdupq_n_f32(b);
    float32x4_t v[KERN_CPU_FMA_CHAINS];
    UNROLL
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
        v[k] = vdupq_n_f32((float)k * 0.25f);
    for (uint64_t i = 0; i < iters; i++) {
        UNROLL
        for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
            v[k] = vfmaq_f32(bv, v[k], av);
    }
    double t = 0;
    UNROLL
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++) {
        float o[4];
        vst1q_f32(o, v[k]);
        for (unsigned l = 0; l < 4; l++)
            t += o[l];
    }
    return t;
}

KERN_CPU_FORMATS(tile, tile_half_body, tile_q_body, KERN_CPU_TILE_ARGS, KERN_CPU_TILE_CALL)
static void gemv1_bf16 KERN_CPU_ROWS_ARGS {
    gemv1_half_body(KERN_CPU_ROWS_CALL, true);
}
static void gemv1_q8 KERN_CPU_ROWS_ARGS {
    gemv1_q_body(KERN_CPU_ROWS_CALL, 8);
}
static void gemv1_q4 KERN_CPU_ROWS_ARGS {
    gemv1_q_body(KERN_CPU_ROWS_CALL, 4);
}
KERN_CPU_FORMATS(gemvs, gemvs_half_body, gemvs_q_body, KERN_CPU_ROWS_ARGS, KERN_CPU_ROWS_CALL)

/* ---- W8A8 / W4A8 -------------------------------------------------------- */

/* The dot-product instructions (FEAT_DotProd, "asimddp": Cortex-A55/A75
 * and later, Neoverse, Apple M1): SDOT adds four products of signed bytes
 * into each 32-bit lane. */
static bool have_dotprod(void) {
    static int cached = -1;
    if (cached < 0) {
        unsigned long hw = getauxval(AT_HWCAP);
#ifdef HWCAP_ASIMDDP
        cached = (hw & HWCAP_ASIMDDP) != 0;
#else
        cached = (hw & (1ul << 20)) != 0; /* HWCAP_ASIMDDP */
#endif
    }
    return cached;
}

/* x's codes per block of 32: the twin's (kern_quantize_act8) with the same
 * IEEE operations: the |x| maximum with fmaxnm (a NaN skipped), d = amax /
 * 127 and 1 / d as scalar divisions, x * (1 / d) clipped to +-127 with
 * fmax / fmin (a NaN stays NaN), fcvtns (nearest, ties to even; NaN -> 0). */
static void quant_x8(const uint16_t *x, size_t nblk, int8_t *q, float *d) {
    for (size_t b = 0; b < nblk; b++, x += 32, q += 32) {
        float32x4_t v[8], m = vdupq_n_f32(0.0f);
        UNROLL
        for (int j = 0; j < 4; j++) {
            float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(x + 8 * j));
            v[2 * j] = vcvt_f32_f16(vget_low_f16(h));
            v[2 * j + 1] = vcvt_high_f32_f16(h);
            m = vmaxnmq_f32(m, vabsq_f32(v[2 * j]));
            m = vmaxnmq_f32(m, vabsq_f32(v[2 * j + 1]));
        }
        float amax = vmaxnmvq_f32(m);
        float db = amax / 127.0f, id = db > 0 ? 1.0f / db : 0.0f;
        d[b] = db;
        int16x8_t s16[4];
        UNROLL
        for (int j = 0; j < 4; j++) {
            int32x4_t c0 = vcvtnq_s32_f32(vminq_f32(
                vmaxq_f32(vmulq_n_f32(v[2 * j], id), vdupq_n_f32(-127.0f)), vdupq_n_f32(127.0f)));
            int32x4_t c1 = vcvtnq_s32_f32(vminq_f32(
                vmaxq_f32(vmulq_n_f32(v[2 * j + 1], id), vdupq_n_f32(-127.0f)), vdupq_n_f32(127.0f)));
            s16[j] = vcombine_s16(vqmovn_s32(c0), vqmovn_s32(c1));
        }
        vst1q_s8(q, vcombine_s8(vqmovn_s16(s16[0]), vqmovn_s16(s16[1])));
        vst1q_s8(q + 16, vcombine_s8(vqmovn_s16(s16[2]), vqmovn_s16(s16[3])));
    }
}

/* without SDOT (ARMv8.0) */
#define A8_DOT 0
#define A8_SFX _v80
#include "kernels/kern_cpu_neon_a8.h"
#undef A8_DOT
#undef A8_SFX

/* with SDOT, in a region of its own so nothing else is compiled for it */
#pragma GCC push_options
#pragma GCC target("arch=armv8.2-a+dotprod")
#define A8_DOT 1
#define A8_SFX _dot
#include "kernels/kern_cpu_neon_a8.h"
#undef A8_DOT
#undef A8_SFX
#pragma GCC pop_options

static void gemv_q8a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    if (have_dotprod())
        a8_body_dot(g, s, r0, r1, 8);
    else
        a8_body_v80(g, s, r0, r1, 8);
}

static void gemv_q4a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    if (have_dotprod())
        a8_body_dot(g, s, r0, r1, 4);
    else
        a8_body_v80(g, s, r0, r1, 4);
}

const struct kern_cpu_impl kern_cpu_impl_neon = {
    .isa = KERN_ISA_NEON,
    .lanes = 4,
    .perm4 = true,
    .a8_unit = 1,
    .gemv1 = {gemv1_f16, gemv1_bf16, gemv1_q8, gemv1_q4, gemv_q8a8, gemv_q4a8},
    .gemvs = {gemvs_f16, gemvs_bf16, gemvs_q8, gemvs_q4},
    .tile = {tile_f16, tile_bf16, tile_q8, tile_q4},
    .micro = micro,
    .quant_x8 = quant_x8,
    .quantize = quantize,
    .dequantize = dequantize,
    .copy = copy,
    .sum = sum,
    .fma_loop = fma_loop,
};

#endif /* __aarch64__ */
