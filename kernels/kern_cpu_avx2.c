/*
 * kern_cpu_avx2.c: the AVX2 + FMA + F16C path of kern_cpu.h (x86-64).
 *
 * Compiled for those extensions function by function (target pragmas),
 * called only when kern_isa_supported(KERN_ISA_AVX2) says the CPU and
 * the OS run them.
 *
 * Batch 1 streams four rows at a time: every x vector loaded once feeds
 * four rows' FMAs. FP16 weights widen with vcvtph2ps; BF16 with a zero
 * extension and a 16-bit shift; Q8 codes zero-extend to 32 bits and
 * convert; Q4's 16 bytes of a group become two 8-lane halves of even and
 * odd elements (low and high nibbles; x is stored to match). The code
 * offset is not subtracted per weight: per group sum u*x, minus the offset
 * times the group's lane sums of x, times the scale once.
 * Q8 / Q4 batch 2..16 dequantize a 4 x 512 tile once (2..4: in registers)
 * and run every vector over it; FP16 / BF16 batch 2..16 run every vector
 * over slices of x that stay in L2, 3 rows by up to 4 vectors (gemvm).
 */
#include "config.h"

#if defined(__x86_64__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif

#include <immintrin.h>
#include <string.h>

#include "kernels/kern_cpu_impl.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

/* Every helper is inlined into its kernel (the kernels are few and hot). */
#define AI static inline __attribute__((always_inline))
/* Small fixed loops over registers are unrolled completely (at -O2 too),
 * so their arrays of vectors stay in registers. */
#define UNROLL _Pragma("GCC unroll 16")

/* An FP16 scale widened (F16C). */
AI float widen_scale(uint16_t h) {
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}

/* Horizontal sum of eight floats. */
AI float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

AI __m256 ld_f16(const uint16_t *p) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

AI __m256 ld_bf16(const uint16_t *p) {
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

/* Eight 16-bit weights of either format. */
AI __m256 ld_half(const uint16_t *p, bool bf) {
    return bf ? ld_bf16(p) : ld_f16(p);
}

/* FP16 / BF16, batch 1. */
AI void gemv1_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
    const uint16_t *w = g->w;
    const float *x = s->xf;
    size_t n = g->cols, n16 = n & ~(size_t)15, n8 = n & ~(size_t)7, r = r0;
    for (; r + 4 <= r1; r += 4) {
        const uint16_t *w0 = w + r * n, *w1 = w0 + n, *w2 = w1 + n, *w3 = w2 + n;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        __m256 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        size_t c = 0;
        for (; c < n16; c += 16) {
            __m256 x0 = _mm256_loadu_ps(x + c), x1 = _mm256_loadu_ps(x + c + 8);
            a0 = _mm256_fmadd_ps(ld_half(w0 + c, bf), x0, a0);
            a1 = _mm256_fmadd_ps(ld_half(w1 + c, bf), x0, a1);
            a2 = _mm256_fmadd_ps(ld_half(w2 + c, bf), x0, a2);
            a3 = _mm256_fmadd_ps(ld_half(w3 + c, bf), x0, a3);
            b0 = _mm256_fmadd_ps(ld_half(w0 + c + 8, bf), x1, b0);
            b1 = _mm256_fmadd_ps(ld_half(w1 + c + 8, bf), x1, b1);
            b2 = _mm256_fmadd_ps(ld_half(w2 + c + 8, bf), x1, b2);
            b3 = _mm256_fmadd_ps(ld_half(w3 + c + 8, bf), x1, b3);
        }
        for (; c < n8; c += 8) {
            __m256 x0 = _mm256_loadu_ps(x + c);
            a0 = _mm256_fmadd_ps(ld_half(w0 + c, bf), x0, a0);
            a1 = _mm256_fmadd_ps(ld_half(w1 + c, bf), x0, a1);
            a2 = _mm256_fmadd_ps(ld_half(w2 + c, bf), x0, a2);
            a3 = _mm256_fmadd_ps(ld_half(w3 + c, bf), x0, a3);
        }
        g->y[r] = hsum(_mm256_add_ps(a0, b0)) + kern_cpu_half_tail(w0, x, c, n, bf);
        g->y[r + 1] = hsum(_mm256_add_ps(a1, b1)) + kern_cpu_half_tail(w1, x, c, n, bf);
        g->y[r + 2] = hsum(_mm256_add_ps(a2, b2)) + kern_cpu_half_tail(w2, x, c, n, bf);
        g->y[r + 3] = hsum(_mm256_add_ps(a3, b3)) + kern_cpu_half_tail(w3, x, c, n, bf);
    }
    for (; r < r1; r++) {
        const uint16_t *w0 = w + r * n;
        __m256 a0 = _mm256_setzero_ps(), b0 = a0;
        size_t c = 0;
        for (; c < n16; c += 16) {
            a0 = _mm256_fmadd_ps(ld_half(w0 + c, bf), _mm256_loadu_ps(x + c), a0);
            b0 = _mm256_fmadd_ps(ld_half(w0 + c + 8, bf), _mm256_loadu_ps(x + c + 8), b0);
        }
        for (; c < n8; c += 8)
            a0 = _mm256_fmadd_ps(ld_half(w0 + c, bf), _mm256_loadu_ps(x + c), a0);
        g->y[r] = hsum(_mm256_add_ps(a0, b0)) + kern_cpu_half_tail(w0, x, c, n, bf);
    }
}

/* The widened scales of rows [r, r + nr) into s->sc (row i at i * ngroups). */
static void scales_to_float(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                            size_t nr) {
    size_t ng = s->ngroups;
    for (size_t i = 0; i < nr; i++) {
        const uint16_t *src = g->scales + (r + i) * ng;
        float *dst = s->sc + i * ng;
        size_t k = 0;
        for (; k + 8 <= ng; k += 8)
            _mm256_storeu_ps(dst + k, ld_f16(src + k));
        for (; k < ng; k++)
            dst[k] = kern_f16_to_f32_inline(src[k]);
    }
}

/* Sum u*x over one 32-weight block of Q8 codes at p, x at x (natural order). */
/* Sum u*x over one 32-weight block of Q8 codes at p (x in natural order),
 * added to acc: two chains of two, so the chain is short. */
AI __m256 q8_block(const uint8_t *p, const float *x, __m256 acc) {
    __m256 u0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)));
    __m256 u1 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 8))));
    __m256 u2 =
        _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 16))));
    __m256 u3 =
        _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 24))));
    __m256 a = _mm256_fmadd_ps(u0, _mm256_loadu_ps(x), acc);
    __m256 b = _mm256_mul_ps(u1, _mm256_loadu_ps(x + 8));
    a = _mm256_fmadd_ps(u2, _mm256_loadu_ps(x + 16), a);
    b = _mm256_fmadd_ps(u3, _mm256_loadu_ps(x + 24), b);
    return _mm256_add_ps(a, b);
}

/* The same for Q4: 16 bytes, x stored evens then odds per 32. */
AI __m256 q4_block(const uint8_t *p, const float *x, __m256 acc) {
    const __m256i m = _mm256_set1_epi32(15);
    __m256i v0 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    __m256i v1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 8)));
    __m256 lo0 = _mm256_cvtepi32_ps(_mm256_and_si256(v0, m));
    __m256 lo1 = _mm256_cvtepi32_ps(_mm256_and_si256(v1, m));
    __m256 hi0 = _mm256_cvtepi32_ps(_mm256_srli_epi32(v0, 4));
    __m256 hi1 = _mm256_cvtepi32_ps(_mm256_srli_epi32(v1, 4));
    __m256 a = _mm256_fmadd_ps(lo0, _mm256_loadu_ps(x), acc);
    __m256 b = _mm256_mul_ps(hi0, _mm256_loadu_ps(x + 16));
    a = _mm256_fmadd_ps(lo1, _mm256_loadu_ps(x + 8), a);
    b = _mm256_fmadd_ps(hi1, _mm256_loadu_ps(x + 24), b);
    return _mm256_add_ps(a, b);
}

/* off * sum_g s_g xs_g for one row (its float scales sc), 8 groups a step. */
AI float q_correction(const float *sc, const float *xs, size_t ng, float off) {
    __m256 a = _mm256_setzero_ps();
    size_t k = 0;
    for (; k + 8 <= ng; k += 8)
        a = _mm256_fmadd_ps(_mm256_loadu_ps(sc + k), _mm256_loadu_ps(xs + k), a);
    float t = hsum(a);
    for (; k < ng; k++)
        t += sc[k] * xs[k];
    return off * t;
}

/* Q8 / Q4, batch 1, four rows at a time: per group sum u*x (a fresh chain
 * per row), times the group's scale into the row's sum; the offset comes
 * off once per row. One offset indexes every stream. */
AI void gemv1_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                     size_t r1, unsigned bits) {
    const uint8_t *codes = g->w;
    size_t ng = s->ngroups, G = g->group, rowb = g->cols * bits / 8, blk = 32 * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t r = r0; r < r1; r += 4) {
        size_t nr = r1 - r < 4 ? r1 - r : 4;
        scales_to_float(g, s, r, nr);
        /* rows past the end repeat the last one; their sums are dropped */
        size_t i1 = nr > 1 ? 1 : nr - 1, i2 = nr > 2 ? 2 : nr - 1, i3 = nr > 3 ? 3 : nr - 1;
        const uint8_t *p0 = codes + r * rowb, *p1 = codes + (r + i1) * rowb;
        const uint8_t *p2 = codes + (r + i2) * rowb, *p3 = codes + (r + i3) * rowb;
        const float *sc0 = s->sc, *sc1 = s->sc + i1 * ng, *sc2 = s->sc + i2 * ng,
                    *sc3 = s->sc + i3 * ng;
        const float *x = s->xf;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        size_t o = 0;
        for (size_t gi = 0; gi < ng; gi++) {
            __m256 t0, t1, t2, t3;
            if (bits == 8) {
                t0 = q8_block(p0 + o, x, _mm256_setzero_ps());
                t1 = q8_block(p1 + o, x, _mm256_setzero_ps());
                t2 = q8_block(p2 + o, x, _mm256_setzero_ps());
                t3 = q8_block(p3 + o, x, _mm256_setzero_ps());
            } else {
                t0 = q4_block(p0 + o, x, _mm256_setzero_ps());
                t1 = q4_block(p1 + o, x, _mm256_setzero_ps());
                t2 = q4_block(p2 + o, x, _mm256_setzero_ps());
                t3 = q4_block(p3 + o, x, _mm256_setzero_ps());
            }
            o += blk;
            x += 32;
            for (size_t k = 32; k < G; k += 32, o += blk, x += 32) {
                if (bits == 8) {
                    t0 = q8_block(p0 + o, x, t0);
                    t1 = q8_block(p1 + o, x, t1);
                    t2 = q8_block(p2 + o, x, t2);
                    t3 = q8_block(p3 + o, x, t3);
                } else {
                    t0 = q4_block(p0 + o, x, t0);
                    t1 = q4_block(p1 + o, x, t1);
                    t2 = q4_block(p2 + o, x, t2);
                    t3 = q4_block(p3 + o, x, t3);
                }
            }
            a0 = _mm256_fmadd_ps(t0, _mm256_broadcast_ss(sc0 + gi), a0);
            a1 = _mm256_fmadd_ps(t1, _mm256_broadcast_ss(sc1 + gi), a1);
            a2 = _mm256_fmadd_ps(t2, _mm256_broadcast_ss(sc2 + gi), a2);
            a3 = _mm256_fmadd_ps(t3, _mm256_broadcast_ss(sc3 + gi), a3);
        }
        float out[4] = {hsum(a0) - q_correction(sc0, s->xs, ng, off),
                        hsum(a1) - q_correction(sc1, s->xs, ng, off),
                        hsum(a2) - q_correction(sc2, s->xs, ng, off),
                        hsum(a3) - q_correction(sc3, s->xs, ng, off)};
        for (size_t i = 0; i < nr; i++)
            g->y[r + i] = out[i];
    }
}

/* ---- batch 2..4: R rows by NB vectors, no tile --------------------------- */

/* NB x rows and R x NB accumulators in registers: FP16/BF16 batch 2 runs
 * 4 rows, 3 runs 3, 4 runs 2; Q runs 2 (its scales take registers too).
 * Q weights are dequantized in registers, w = u * s - off * s. */
AI void gemvs_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                   size_t r1, enum kern_wfmt fmt, const size_t NB, const size_t R) {
    const bool half = fmt == KERN_W_F16 || fmt == KERN_W_BF16, bf = fmt == KERN_W_BF16;
    const unsigned bits = fmt == KERN_W_Q8 ? 8 : 4;
    const float *xr[4];
    UNROLL
    for (size_t k = 0; k < NB; k++)
        xr[k] = s->xf + k * s->xpad;
    size_t n = g->cols, n8 = n & ~(size_t)7, ng = s->ngroups;
    size_t rowb = half ? 0 : n * bits / 8, blk = 32 * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t r = r0; r < r1; r += R) {
        size_t nr = r1 - r < R ? r1 - r : R;
        size_t ri[4];
        UNROLL
        for (size_t i = 0; i < R; i++)
            ri[i] = r + (i < nr ? i : nr - 1);
        __m256 a[4][4];
        UNROLL
        for (size_t i = 0; i < R; i++)
            UNROLL
        for (size_t k = 0; k < NB; k++)
            a[i][k] = _mm256_setzero_ps();
        if (half) {
            const uint16_t *w = g->w;
            for (size_t c = 0; c < n8; c += 8) {
                __m256 xv[4];
                UNROLL
                for (size_t k = 0; k < NB; k++)
                    xv[k] = _mm256_loadu_ps(xr[k] + c);
                UNROLL
                for (size_t i = 0; i < R; i++) {
                    __m256 v = ld_half(w + ri[i] * n + c, bf);
                    UNROLL
                    for (size_t k = 0; k < NB; k++)
                        a[i][k] = _mm256_fmadd_ps(v, xv[k], a[i][k]);
                }
            }
        } else {
            scales_to_float(g, s, r, nr);
            /* off * s beside s: w = u * s - off * s is one fmsub */
            float *osc = s->sc + KERN_CPU_TILE_ROWS * ng;
            for (size_t i = 0; i < nr * ng; i++)
                osc[i] = off * s->sc[i];
            const uint8_t *codes = g->w;
            const __m256i m15 = _mm256_set1_epi32(15);
            const uint8_t *p[4];
            const float *sp[4], *op[4];
            UNROLL
            for (size_t i = 0; i < R; i++) {
                p[i] = codes + ri[i] * rowb;
                sp[i] = s->sc + (ri[i] - r) * ng;
                op[i] = osc + (ri[i] - r) * ng;
            }
            const float *xc = s->xf; /* column c of x row 0; row k at + k * xpad */
            size_t xp = s->xpad;
            for (size_t gi = 0; gi < ng; gi++) {
                __m256 sv[4], ov[4];
                UNROLL
                for (size_t i = 0; i < R; i++) {
                    sv[i] = _mm256_broadcast_ss(sp[i] + gi);
                    ov[i] = _mm256_broadcast_ss(op[i] + gi);
                }
                for (size_t k0 = 0; k0 < g->group; k0 += 32, xc += 32) {
                    UNROLL
                    for (size_t j = 0; j < 4; j++) {
                        __m256 xv[4];
                        UNROLL
                        for (size_t k = 0; k < NB; k++)
                            xv[k] = _mm256_loadu_ps(xc + k * xp + 8 * j);
                        UNROLL
                        for (size_t i = 0; i < R; i++) {
                            __m256 u;
                            if (bits == 8) {
                                u = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
                                    _mm_loadl_epi64((const __m128i *)(p[i] + 8 * j))));
                            } else {
                                __m256i v = _mm256_cvtepu8_epi32(
                                    _mm_loadl_epi64((const __m128i *)(p[i] + 8 * (j & 1))));
                                u = _mm256_cvtepi32_ps(j < 2 ? _mm256_and_si256(v, m15)
                                                             : _mm256_srli_epi32(v, 4));
                            }
                            __m256 v = _mm256_fmsub_ps(u, sv[i], ov[i]);
                            UNROLL
                            for (size_t k = 0; k < NB; k++)
                                a[i][k] = _mm256_fmadd_ps(v, xv[k], a[i][k]);
                        }
                    }
                    UNROLL
                    for (size_t i = 0; i < R; i++)
                        p[i] += blk;
                }
            }
        }
        /* sums out of registers with constant indices, then stored */
        float o[4][4];
        UNROLL
        for (size_t i = 0; i < R; i++)
            UNROLL
        for (size_t k = 0; k < NB; k++)
            o[i][k] = hsum(a[i][k]);
        for (size_t i = 0; i < nr; i++)
            for (size_t k = 0; k < NB; k++)
                g->y[k * g->rows + r + i] =
                    o[i][k] + (half ? kern_cpu_half_tail((const uint16_t *)g->w + (r + i) * n,
                                                         xr[k], n8, n, bf)
                                    : 0);
    }
}

/* Q8 / Q4 at batch 4, one row at a time: the row's 32-weight block is
 * dequantized once into four vectors (w = u * s - off * s), each feeding
 * four FMAs whose x operand comes straight from L1; 4 accumulators, so
 * nothing spills. */
AI void gemvs_q_nb4(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                    size_t r1, unsigned bits) {
    size_t ng = s->ngroups, rowb = g->cols * bits / 8, blk = 32 * bits / 8, xp = s->xpad;
    const float off = (float)(1 << (bits - 1));
    const __m256i m15 = _mm256_set1_epi32(15);
    for (size_t r = r0; r < r1; r++) {
        const uint8_t *p = (const uint8_t *)g->w + r * rowb;
        const uint16_t *sh = g->scales + r * ng;
        const float *x0 = s->xf, *x1 = x0 + xp, *x2 = x1 + xp, *x3 = x2 + xp;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t gi = 0; gi < ng; gi++) {
            float sf = widen_scale(sh[gi]);
            __m256 sv = _mm256_set1_ps(sf), ov = _mm256_set1_ps(off * sf);
            for (size_t k0 = 0; k0 < g->group;
                 k0 += 32, p += blk, x0 += 32, x1 += 32, x2 += 32, x3 += 32) {
                __m256 u[4];
                if (bits == 8) {
                    UNROLL
                    for (int j = 0; j < 4; j++)
                        u[j] = _mm256_cvtepi32_ps(
                            _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 8 * j))));
                } else {
                    __m256i v0 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
                    __m256i v1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 8)));
                    u[0] = _mm256_cvtepi32_ps(_mm256_and_si256(v0, m15));
                    u[1] = _mm256_cvtepi32_ps(_mm256_and_si256(v1, m15));
                    u[2] = _mm256_cvtepi32_ps(_mm256_srli_epi32(v0, 4));
                    u[3] = _mm256_cvtepi32_ps(_mm256_srli_epi32(v1, 4));
                }
                UNROLL
                for (int j = 0; j < 4; j++) {
                    __m256 w = _mm256_fmsub_ps(u[j], sv, ov);
                    a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x0 + 8 * j), a0);
                    a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x1 + 8 * j), a1);
                    a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x2 + 8 * j), a2);
                    a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(x3 + 8 * j), a3);
                }
            }
        }
        g->y[r] = hsum(a0);
        g->y[g->rows + r] = hsum(a1);
        g->y[2 * g->rows + r] = hsum(a2);
        g->y[3 * g->rows + r] = hsum(a3);
    }
}

#define GEMVS(name, fmt)                                                                           \
    static void name(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,       \
                     size_t r1) {                                                                  \
        bool q = fmt == KERN_W_Q8 || fmt == KERN_W_Q4;                                             \
        if (g->batch == 2)                                                                         \
            gemvs_body(g, s, r0, r1, fmt, 2, q ? 2 : 4);                                           \
        else if (g->batch == 3)                                                                    \
            gemvs_body(g, s, r0, r1, fmt, 3, q ? 2 : 3);                                           \
        else if (g->batch == 4 && q) /* the driver calls no other batch */                         \
            gemvs_q_nb4(g, s, r0, r1, fmt == KERN_W_Q8 ? 8 : 4);                                   \
        else if (g->batch == 4)                                                                    \
            gemvs_body(g, s, r0, r1, fmt, 4, 2);                                                   \
    }
GEMVS(gemvs_f16, KERN_W_F16)
GEMVS(gemvs_bf16, KERN_W_BF16)
GEMVS(gemvs_q8, KERN_W_Q8)
GEMVS(gemvs_q4, KERN_W_Q4)

/* ---- FP16 / BF16 batch 5..16: every vector per slice of columns ---------- */

/* The AVX-512 path's gemvm at 8 lanes (see there): the 16 registers
 * take 3 x 4 accumulators, 3 weight vectors and one x vector (3 rows by 4
 * vectors: 44 GMAC/s a core on the Zen 4 at batch 16, 2 by 6 38, the
 * passes of 2 by 4 32). */
#define GEMVM_R 3
#define GEMVM_V 4
#define REG(v) __asm__("" : "+x"(v))

AI void gemvm_run(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                  size_t nr, size_t b0, size_t c0, size_t c1, bool first, bool last, const bool PF,
                  bool bf, const size_t V) {
    const size_t R = GEMVM_R;
    size_t n = g->cols, n8 = n & ~(size_t)7;
    const uint16_t *wr[GEMVM_R], *next = (const uint16_t *)g->w + (r + R) * n;
    const float *xr[GEMVM_V];
    UNROLL
    for (size_t i = 0; i < R; i++)
        wr[i] = (const uint16_t *)g->w + (r + (i < nr ? i : nr - 1)) * n;
    UNROLL
    for (size_t k = 0; k < V; k++)
        xr[k] = s->xf + (b0 + k) * s->xpad;
    __m256 a[GEMVM_R][GEMVM_V];
    UNROLL
    for (size_t i = 0; i < R; i++)
        UNROLL
    for (size_t k = 0; k < V; k++)
        a[i][k] = _mm256_setzero_ps();
    for (size_t c = c0; c < c1; c += 8) {
        if (PF && !(c & 31))
            UNROLL
        for (size_t i = 0; i < R; i++)
            _mm_prefetch((const char *)(next + i * n + c), _MM_HINT_T1);
        __m256 wv[GEMVM_R];
        UNROLL
        for (size_t i = 0; i < R; i++) {
            wv[i] = ld_half(wr[i] + c, bf);
            REG(wv[i]);
        }
        UNROLL
        for (size_t k = 0; k < V; k++) {
            __m256 xv = _mm256_loadu_ps(xr[k] + c);
            REG(xv);
            UNROLL
            for (size_t i = 0; i < R; i++)
                a[i][k] = _mm256_fmadd_ps(wv[i], xv, a[i][k]);
        }
    }
    for (size_t i = 0; i < nr; i++)
        for (size_t k = 0; k < V; k++) {
            float t = hsum(a[i][k]);
            if (last)
                t += kern_cpu_half_tail(wr[i], xr[k], n8, n, bf);
            float *yp = g->y + (b0 + k) * g->rows + r + i;
            *yp = first ? t : *yp + t;
        }
}

/* gemvm_run with the prefetch decided outside the column loop. */
AI void gemvm_block(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                    size_t nr, size_t b0, size_t c0, size_t c1, bool first, bool last, bool pf,
                    bool bf, const size_t V) {
    if (pf)
        gemvm_run(g, s, r, nr, b0, c0, c1, first, last, true, bf, V);
    else
        gemvm_run(g, s, r, nr, b0, c0, c1, first, last, false, bf, V);
}

AI void gemvm_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
#define GEMVM_BLOCK(r, nr, b0, c0, c1, first, last, pf, NV)                                         \
    gemvm_block(g, s, r, nr, b0, c0, c1, first, last, pf, bf, NV)
    KERN_CPU_GEMVM_WALK(g, r0, r1, 8, GEMVM_R, GEMVM_V, GEMVM_BLOCK);
#undef GEMVM_BLOCK
}

static void gemvm_f16 KERN_CPU_ROWS_ARGS {
    gemvm_half_body(KERN_CPU_ROWS_CALL, false);
}
static void gemvm_bf16 KERN_CPU_ROWS_ARGS {
    gemvm_half_body(KERN_CPU_ROWS_CALL, true);
}

/* ---- batch 5..16: tiles ------------------------------------------------- */

AI void tile_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                       size_t nr, size_t c0, size_t n, size_t npad, bool bf) {
    for (size_t i = 0; i < nr; i++) {
        const uint16_t *w = (const uint16_t *)g->w + (r + i) * g->cols + c0;
        float *t = s->tile + i * KERN_CPU_TILE_COLS;
        size_t c = 0;
        /* the next column block of this row is read a row block later:
         * fetch it now, so 32 interleaved row streams do not wait on DRAM */
        if (c0 + 2 * KERN_CPU_TILE_COLS <= g->cols)
            for (size_t k = 0; k < KERN_CPU_TILE_COLS; k += 32)
                _mm_prefetch((const char *)(w + KERN_CPU_TILE_COLS + k), _MM_HINT_T0);
        for (; c + 8 <= n; c += 8)
            _mm256_storeu_ps(t + c, ld_half(w + c, bf));
        for (; c < n; c++)
            t[c] = bf ? kern_bf16_to_f32(w[c]) : kern_f16_to_f32_inline(w[c]);
    }
    kern_cpu_tile_pad(s, nr, n, npad);
}

/* Q tiles: w = u * s - off * s (one rounding of the exact q * s). */
AI void tile_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                    size_t nr, size_t c0, size_t n, size_t npad, unsigned bits) {
    const __m256i m = _mm256_set1_epi32(15);
    size_t ng = s->ngroups, rowb = g->cols * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t i = 0; i < nr; i++) {
        const uint8_t *p = (const uint8_t *)g->w + (r + i) * rowb + c0 * bits / 8;
        const uint16_t *sh = g->scales + (r + i) * ng;
        float *t = s->tile + i * KERN_CPU_TILE_COLS;
        for (size_t c = 0; c < n; c += 32) {
            float scf = kern_f16_to_f32_inline(sh[(c0 + c) / g->group]);
            __m256 sv = _mm256_set1_ps(scf), ov = _mm256_set1_ps(off * scf);
            __m256 u0, u1, u2, u3;
            if (bits == 8) {
                const uint8_t *q = p + c;
                u0 = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)q)));
                u1 = _mm256_cvtepi32_ps(
                    _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + 8))));
                u2 = _mm256_cvtepi32_ps(
                    _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + 16))));
                u3 = _mm256_cvtepi32_ps(
                    _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + 24))));
            } else {
                const uint8_t *q = p + c / 2;
                __m256i v0 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)q));
                __m256i v1 = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(q + 8)));
                u0 = _mm256_cvtepi32_ps(_mm256_and_si256(v0, m));
                u1 = _mm256_cvtepi32_ps(_mm256_and_si256(v1, m));
                u2 = _mm256_cvtepi32_ps(_mm256_srli_epi32(v0, 4));
                u3 = _mm256_cvtepi32_ps(_mm256_srli_epi32(v1, 4));
            }
            _mm256_storeu_ps(t + c, _mm256_fmsub_ps(u0, sv, ov));
            _mm256_storeu_ps(t + c + 8, _mm256_fmsub_ps(u1, sv, ov));
            _mm256_storeu_ps(t + c + 16, _mm256_fmsub_ps(u2, sv, ov));
            _mm256_storeu_ps(t + c + 24, _mm256_fmsub_ps(u3, sv, ov));
        }
    }
    kern_cpu_tile_pad(s, nr, n, npad);
}

/* Four tile rows by two (or one) x rows. */
static void micro(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r, size_t nr,
                  size_t c0, size_t npad) {
    const float *t0 = s->tile, *t1 = t0 + KERN_CPU_TILE_COLS, *t2 = t1 + KERN_CPU_TILE_COLS,
                *t3 = t2 + KERN_CPU_TILE_COLS;
    size_t b = 0;
    for (; b + 2 <= g->batch; b += 2) {
        const float *x0 = s->xf + b * s->xpad + c0, *x1 = x0 + s->xpad;
        __m256 a00 = _mm256_setzero_ps(), a10 = a00, a20 = a00, a30 = a00;
        __m256 a01 = a00, a11 = a00, a21 = a00, a31 = a00;
        for (size_t c = 0; c < npad; c += 8) {
            __m256 w0 = _mm256_loadu_ps(t0 + c), w1 = _mm256_loadu_ps(t1 + c);
            __m256 w2 = _mm256_loadu_ps(t2 + c), w3 = _mm256_loadu_ps(t3 + c);
            __m256 xa = _mm256_loadu_ps(x0 + c), xb = _mm256_loadu_ps(x1 + c);
            a00 = _mm256_fmadd_ps(w0, xa, a00);
            a10 = _mm256_fmadd_ps(w1, xa, a10);
            a20 = _mm256_fmadd_ps(w2, xa, a20);
            a30 = _mm256_fmadd_ps(w3, xa, a30);
            a01 = _mm256_fmadd_ps(w0, xb, a01);
            a11 = _mm256_fmadd_ps(w1, xb, a11);
            a21 = _mm256_fmadd_ps(w2, xb, a21);
            a31 = _mm256_fmadd_ps(w3, xb, a31);
        }
        float o[2][4] = {{hsum(a00), hsum(a10), hsum(a20), hsum(a30)},
                         {hsum(a01), hsum(a11), hsum(a21), hsum(a31)}};
        for (size_t i = 0; i < nr; i++) {
            g->y[b * g->rows + r + i] += o[0][i];
            g->y[(b + 1) * g->rows + r + i] += o[1][i];
        }
    }
    if (b < g->batch) {
        const float *x0 = s->xf + b * s->xpad + c0;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t c = 0; c < npad; c += 8) {
            __m256 xa = _mm256_loadu_ps(x0 + c);
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(t0 + c), xa, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(t1 + c), xa, a1);
            a2 = _mm256_fmadd_ps(_mm256_loadu_ps(t2 + c), xa, a2);
            a3 = _mm256_fmadd_ps(_mm256_loadu_ps(t3 + c), xa, a3);
        }
        float o[4] = {hsum(a0), hsum(a1), hsum(a2), hsum(a3)};
        for (size_t i = 0; i < nr; i++)
            g->y[b * g->rows + r + i] += o[i];
    }
}

/* ---- quantize and dequantize ------------------------------------------- */

/* The FP16 scale of a group whose largest magnitude is amax: the twin's
 * kern_quant_scale (amax / qmax rounded to FP16, ties to even) with F16C's
 * conversion, which rounds the same way (overflow to infinity included). */
AI uint16_t scale_of(float amax, float qm) {
    __m128i h = _mm_cvtps_ph(_mm_set_ss(amax / qm), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return (uint16_t)_mm_extract_epi16(h, 0);
}

/* Codes of 8 floats plus the offset. The twin clips w / s to
 * [-qm-1, qm+1], rounds to even, clips to [-qm, qm]; clipping first to
 * [-qm, qm] and then rounding gives the same integer for every input
 * (the bounds are integers, so no value can round across them), and
 * maxps returns its second operand for a NaN, so NaN -> -qm as there. */
AI __m256i codes8(__m256 w, __m256 s, __m256 qlo, __m256 qhi, __m256i off) {
    __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(w, s), qlo), qhi);
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_add_epi32(_mm256_cvttps_epi32(v), off);
}

/* 32 int32 codes (already offset) as 32 bytes in order. */
AI __m256i pack_bytes(__m256i i0, __m256i i1, __m256i i2, __m256i i3) {
    __m256i p01 = _mm256_packs_epi32(i0, i1), p23 = _mm256_packs_epi32(i2, i3);
    __m256i b = _mm256_packus_epi16(p01, p23);
    return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* Store 32 codes at b bits (4b bytes). */
AI void store_codes(uint8_t *out, __m256i c0, __m256i c1, __m256i c2, __m256i c3, unsigned bits) {
    __m256i b = pack_bytes(c0, c1, c2, c3);
    if (bits == 8) {
        _mm256_storeu_si256((__m256i *)out, b);
    } else {
        /* byte k = u[2k] | u[2k+1] << 4: each 16-bit word's two bytes merged */
        __m256i m2 =
            _mm256_and_si256(_mm256_or_si256(b, _mm256_srli_epi16(b, 4)), _mm256_set1_epi16(0xff));
        __m256i pk = _mm256_packus_epi16(m2, m2);
        pk = _mm256_permute4x64_epi64(pk, 0x08); /* qwords 0 and 2 */
        _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(pk));
    }
}

/* The scale of one group of 32 already widened (v0..v3), and its widened
 * value. The running maximum stays maxps's second operand, so a NaN weight
 * is skipped as the twin skips it. */
AI uint16_t group_scale(__m256 v0, __m256 v1, __m256 v2, __m256 v3, __m256 m, float qm) {
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    m = _mm256_max_ps(_mm256_and_ps(v0, absm), m);
    m = _mm256_max_ps(_mm256_and_ps(v1, absm), m);
    m = _mm256_max_ps(_mm256_and_ps(v2, absm), m);
    m = _mm256_max_ps(_mm256_and_ps(v3, absm), m);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    return scale_of(_mm_cvtss_f32(h), qm);
}

/* Codes of one 32-weight block (widened) at scale sf; an all-zero group's
 * codes are all the offset. */
AI void block_codes(uint8_t *out, __m256 v0, __m256 v1, __m256 v2, __m256 v3, float sf,
                    unsigned bits) {
    const float qm = (float)((1 << (bits - 1)) - 1);
    const __m256 qlo = _mm256_set1_ps(-qm), qhi = _mm256_set1_ps(qm);
    const __m256i offv = _mm256_set1_epi32(1 << (bits - 1));
    if (sf == 0.0f) {
        store_codes(out, offv, offv, offv, offv, bits);
        return;
    }
    __m256 sv = _mm256_set1_ps(sf);
    store_codes(out, codes8(v0, sv, qlo, qhi, offv), codes8(v1, sv, qlo, qhi, offv),
                codes8(v2, sv, qlo, qhi, offv), codes8(v3, sv, qlo, qhi, offv), bits);
}

AI void quantize_body(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                      size_t group, uint8_t *codes, uint16_t *scales) {
    const float qm = (float)((1 << (bits - 1)) - 1);
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    size_t per_row = cols / group, ng = (r1 - r0) * per_row, blk = 4 * bits;
    uint8_t *out = codes + r0 * cols * bits / 8;
    const uint16_t *src = w + r0 * cols;
    uint16_t *sc = scales + r0 * per_row;
    size_t gi = 0;
    if (group == 32) {
        /* groups of 32 in runs of up to 256: first every group's largest
         * magnitude, then the scales of 8 groups at once (one division,
         * one FP16 rounding), then the codes; no group waits on the long
         * maximum -> division -> rounding chain of the one before */
        float amax[256], sf[256];
        while (gi < ng) {
            size_t run = ng - gi < 256 ? ng - gi : 256;
            for (size_t k = 0; k < run; k++) {
                const uint16_t *g32 = src + 32 * k;
                __m256 m = _mm256_setzero_ps();
                m = _mm256_max_ps(_mm256_and_ps(ld_f16(g32), absm), m);
                m = _mm256_max_ps(_mm256_and_ps(ld_f16(g32 + 8), absm), m);
                m = _mm256_max_ps(_mm256_and_ps(ld_f16(g32 + 16), absm), m);
                m = _mm256_max_ps(_mm256_and_ps(ld_f16(g32 + 24), absm), m);
                __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
                h = _mm_max_ps(h, _mm_movehl_ps(h, h));
                amax[k] = _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
            }
            size_t k = 0;
            const __m256 qmv = _mm256_set1_ps(qm);
            for (; k + 8 <= run; k += 8) {
                __m128i h = _mm256_cvtps_ph(_mm256_div_ps(_mm256_loadu_ps(amax + k), qmv),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                _mm_storeu_si128((__m128i *)(sc + gi + k), h);
                _mm256_storeu_ps(sf + k, _mm256_cvtph_ps(h));
            }
            for (; k < run; k++) {
                sc[gi + k] = scale_of(amax[k], qm);
                sf[k] = widen_scale(sc[gi + k]);
            }
            for (k = 0; k < run; k++, src += 32, out += blk)
                block_codes(out, ld_f16(src), ld_f16(src + 8), ld_f16(src + 16), ld_f16(src + 24),
                            sf[k], bits);
            gi += run;
        }
    }
    for (; gi < ng; gi++, src += group) {
        __m256 v0 = ld_f16(src), v1 = ld_f16(src + 8), v2 = ld_f16(src + 16), v3 = ld_f16(src + 24);
        __m256 m = _mm256_setzero_ps();
        for (size_t j = 32; j < group; j += 8)
            m = _mm256_max_ps(_mm256_and_ps(ld_f16(src + j), absm), m);
        uint16_t sh = group_scale(v0, v1, v2, v3, m, qm);
        sc[gi] = sh;
        float sf = widen_scale(sh);
        block_codes(out, v0, v1, v2, v3, sf, bits);
        out += blk;
        for (size_t j = 32; j < group; j += 32, out += blk)
            block_codes(out, ld_f16(src + j), ld_f16(src + j + 8), ld_f16(src + j + 16),
                        ld_f16(src + j + 24), sf, bits);
    }
}

static void quantize(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                     size_t group, uint8_t *codes, uint16_t *scales) {
    if (bits == 8)
        quantize_body(w, cols, r0, r1, 8, group, codes, scales);
    else
        quantize_body(w, cols, r0, r1, 4, group, codes, scales);
}

/* (u - off) * s = u * s - off * s: one rounding of the exact q * s, the
 * value the twin rounds to FP16. */
AI void dequantize_body(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                        size_t r1, unsigned bits, size_t group, uint16_t *out) {
    size_t per_row = cols / group, blk = 4 * bits;
    const uint8_t *p = codes + r0 * cols * bits / 8;
    const uint16_t *sc = scales + r0 * per_row;
    uint16_t *o = out + r0 * cols;
    const float off = (float)(1 << (bits - 1));
    for (size_t gi = 0; gi < (r1 - r0) * per_row; gi++) {
        float sf = widen_scale(*sc++);
        __m256 sv = _mm256_set1_ps(sf), ov = _mm256_set1_ps(off * sf);
        for (size_t j = 0; j < group; j += 32, p += blk, o += 32) {
            __m256i q[4];
            if (bits == 8) {
                UNROLL
                for (int k = 0; k < 4; k++)
                    q[k] = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p + 8 * k)));
            } else {
                /* low nibbles are the even elements, high the odd: interleave */
                __m128i b = _mm_loadu_si128((const __m128i *)p);
                __m128i lo = _mm_and_si128(b, _mm_set1_epi8(15));
                __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(15));
                __m128i e0 = _mm_unpacklo_epi8(lo, hi), e1 = _mm_unpackhi_epi8(lo, hi);
                q[0] = _mm256_cvtepu8_epi32(e0);
                q[1] = _mm256_cvtepu8_epi32(_mm_srli_si128(e0, 8));
                q[2] = _mm256_cvtepu8_epi32(e1);
                q[3] = _mm256_cvtepu8_epi32(_mm_srli_si128(e1, 8));
            }
            UNROLL
            for (int k = 0; k < 4; k++) {
                __m256 f = _mm256_fmsub_ps(_mm256_cvtepi32_ps(q[k]), sv, ov);
                _mm_storeu_si128((__m128i *)(o + 8 * k),
                                 _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            }
        }
    }
}

static void dequantize(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                       size_t r1, unsigned bits, size_t group, uint16_t *out) {
    if (bits == 8)
        dequantize_body(codes, scales, cols, r0, r1, 8, group, out);
    else
        dequantize_body(codes, scales, cols, r0, r1, 4, group, out);
}

/* ---- copy, sum, FMA peak ------------------------------------------------ */

static void copy(void *dst, const void *src, size_t n) {
    const __m256i *s = src;
    __m256i *d = dst;
    size_t nv = n / 32, i = 0;
    for (; i + 4 <= nv; i += 4) {
        __m256i v0 = _mm256_load_si256(s + i), v1 = _mm256_load_si256(s + i + 1);
        __m256i v2 = _mm256_load_si256(s + i + 2), v3 = _mm256_load_si256(s + i + 3);
        _mm256_stream_si256(d + i, v0);
        _mm256_stream_si256(d + i + 1, v1);
        _mm256_stream_si256(d + i + 2, v2);
        _mm256_stream_si256(d + i + 3, v3);
    }
    for (; i < nv; i++)
        _mm256_stream_si256(d + i, _mm256_load_si256(s + i));
    _mm_sfence();
}

static double sum(const double *a, size_t n) {
    __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        s0 = _mm256_add_pd(s0, _mm256_load_pd(a + i));
        s1 = _mm256_add_pd(s1, _mm256_load_pd(a + i + 4));
        s2 = _mm256_add_pd(s2, _mm256_load_pd(a + i + 8));
        s3 = _mm256_add_pd(s3, _mm256_load_pd(a + i + 12));
    }
    __m256d t = _mm256_add_pd(_mm256_add_pd(s0, s1), _mm256_add_pd(s2, s3));
    double o[4];
    _mm256_storeu_pd(o, t);
    double r = (o[0] + o[1]) + (o[2] + o[3]);
    for (; i < n; i++)
        r += a[i];
    return r;
}

static double fma_loop(uint64_t iters, float a, float b) {
    const __m256 av = _mm256_set1_ps(a), bv = _mm256_set1_ps(b);
    __m256 v[KERN_CPU_FMA_CHAINS];
    UNROLL
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
        v[k] = _mm256_set1_ps((float)k * 0.25f);
    for (uint64_t i = 0; i < iters; i++) {
        UNROLL
        for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
            v[k] = _mm256_fmadd_ps(v[k], av, bv);
    }
    double t = 0;
    UNROLL
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++) {
        float o[8];
        _mm256_storeu_ps(o, v[k]);
        for (unsigned l = 0; l < 8; l++)
            t += o[l];
    }
    return t;
}

/* ---- W8A8 / W4A8 -------------------------------------------------------- */

/* x comes in units of four blocks of 32 as four 32-byte vectors (the
 * interleaved order of kern_cpu_impl.h): in 128-bit lane m of each, two
 * 4-byte lanes of block m and two of block m + 2. The codes are regrouped
 * to match: Q8, four loads (one block each) by 128-bit lane (vperm2i128:
 * blocks 0-1's first 16 bytes, their last 16, the same for 2-3), then by
 * 64 bits within the lanes (vpunpcklqdq / vpunpckhqdq), and made signed
 * (q = u ^ 0x80); Q4, two loads (blocks 0-1, 2-3) split into low nibbles
 * (the even elements) and high (the odd ones), then by 64 bits. Q4's
 * codes (0..15) go through vpmaddubsw unsaturated, the four products of a
 * unit summed in 16 bits (at most 4 x 3810), then vpmaddwd into the lanes,
 * which start at xk (minus 8 times the x codes each meets): the exact sum
 * q * xq of each block in its two lanes. Q8: |x| times q with x's sign
 * (vpsignb), each product pair within 16 bits, vpmaddwd, added. Then per
 * unit and vector one conversion and one multiply-add by s_w * d (the four
 * blocks' scales, each in its two lanes). Rows two at a time, vectors up
 * to four at a time. */

/* The four 32-byte operands of one unit (4 blocks) of a row's codes at p. */
AI void a8_operands(const uint8_t *p, unsigned bits, __m256i w[4]) {
    __m256i a0, a1, a2, a3;
    if (bits == 8) {
        const __m256i sign = _mm256_set1_epi8((char)0x80);
        __m256i l0 = _mm256_loadu_si256((const __m256i *)p);
        __m256i l1 = _mm256_loadu_si256((const __m256i *)(p + 32));
        __m256i l2 = _mm256_loadu_si256((const __m256i *)(p + 64));
        __m256i l3 = _mm256_loadu_si256((const __m256i *)(p + 96));
        a0 = _mm256_xor_si256(_mm256_permute2x128_si256(l0, l1, 0x20), sign); /* 0-1, bytes 0-15 */
        a1 = _mm256_xor_si256(_mm256_permute2x128_si256(l0, l1, 0x31), sign); /* bytes 16-31 */
        a2 = _mm256_xor_si256(_mm256_permute2x128_si256(l2, l3, 0x20), sign); /* blocks 2-3 */
        a3 = _mm256_xor_si256(_mm256_permute2x128_si256(l2, l3, 0x31), sign);
    } else {
        const __m256i m = _mm256_set1_epi8(15);
        __m256i v0 = _mm256_loadu_si256((const __m256i *)p);        /* blocks 0-1 */
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32)); /* blocks 2-3 */
        a0 = _mm256_and_si256(v0, m);                               /* even elements */
        a1 = _mm256_and_si256(_mm256_srli_epi16(v0, 4), m);         /* odd */
        a2 = _mm256_and_si256(v1, m);
        a3 = _mm256_and_si256(_mm256_srli_epi16(v1, 4), m);
    }
    w[0] = _mm256_unpacklo_epi64(a0, a2);
    w[1] = _mm256_unpackhi_epi64(a0, a2);
    w[2] = _mm256_unpacklo_epi64(a1, a3);
    w[3] = _mm256_unpackhi_epi64(a1, a3);
}

/* One block past the last whole unit (4 lanes): its halves' codes w1, w2
 * (16 bytes each), x's halves x1, x2, the lanes' start k. */
AI __m128i a8_isum1(unsigned bits, __m128i w1, __m128i w2, __m128i x1, __m128i x2, __m128i k) {
    const __m128i ones = _mm_set1_epi16(1);
    if (bits == 4) {
        __m128i p = _mm_add_epi16(_mm_maddubs_epi16(w1, x1), _mm_maddubs_epi16(w2, x2));
        return _mm_add_epi32(k, _mm_madd_epi16(p, ones));
    }
    const __m128i sign = _mm_set1_epi8((char)0x80);
    w1 = _mm_xor_si128(w1, sign);
    w2 = _mm_xor_si128(w2, sign);
    __m128i p1 = _mm_maddubs_epi16(_mm_abs_epi8(x1), _mm_sign_epi8(w1, x1));
    __m128i p2 = _mm_maddubs_epi16(_mm_abs_epi8(x2), _mm_sign_epi8(w2, x2));
    return _mm_add_epi32(_mm_madd_epi16(p1, ones), _mm_madd_epi16(p2, ones));
}

/* Rows r .. r + nr - 1 (nr <= 2) times vectors v0 .. v0 + NB - 1. */
AI void a8_block(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r, size_t nr,
                 size_t v0, unsigned bits, const size_t NB) {
    const size_t R = 2;
    const __m256i ones = _mm256_set1_epi16(1);
    const uint8_t *codes = g->w;
    size_t nblk = s->nblk, nu = nblk / 4, rowb = g->cols * bits / 8, ub = 4 * 4 * bits;
    const uint8_t *p[2];
    const uint16_t *ws[2];
    UNROLL
    for (size_t i = 0; i < R; i++) {
        size_t ri = r + (i < nr ? i : nr - 1);
        p[i] = codes + ri * rowb;
        ws[i] = kern_cpu_a8_wscales(g, s, ri, (unsigned)i);
    }
    const int8_t *xq = s->xq + v0 * s->xqpad;
    const float *xd = s->xd + v0 * nblk * 4;
    const int32_t *xk = s->xk + v0 * nblk * 4;
    size_t xqs = s->xqpad, xds = nblk * 4;
    /* lane (m, j) of 128-bit lane m belongs to block m + 2 (j >= 2) */
    const __m256i idx = _mm256_setr_epi32(0, 0, 2, 2, 1, 1, 3, 3);
    __m256 acc[2][4];
    UNROLL
    for (size_t i = 0; i < R; i++)
        UNROLL
    for (size_t k = 0; k < NB; k++)
        acc[i][k] = _mm256_setzero_ps();
    for (size_t u = 0; u < nu; u++) {
        __m256i w[2][4];
        __m256 sc[2];
        UNROLL
        for (size_t i = 0; i < R; i++) {
            a8_operands(p[i] + u * ub, bits, w[i]);
            __m128 f = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(ws[i] + 4 * u)));
            sc[i] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(f), idx);
        }
        UNROLL
        for (size_t k = 0; k < NB; k++) {
            const int8_t *xp = xq + k * xqs + 128 * u;
            __m256 d = _mm256_loadu_ps(xd + k * xds + 8 * u);
            __m256i t[2];
            if (bits == 4) {
                __m256i pr[2];
                UNROLL
                for (int j = 0; j < 4; j++) {
                    __m256i xv = _mm256_loadu_si256((const __m256i *)(xp + 32 * j));
                    UNROLL
                    for (size_t i = 0; i < R; i++) {
                        __m256i m = _mm256_maddubs_epi16(w[i][j], xv);
                        pr[i] = j ? _mm256_add_epi16(pr[i], m) : m;
                    }
                }
                __m256i kk = _mm256_loadu_si256((const __m256i *)(xk + k * xds + 8 * u));
                UNROLL
                for (size_t i = 0; i < R; i++)
                    t[i] = _mm256_add_epi32(kk, _mm256_madd_epi16(pr[i], ones));
            } else {
                UNROLL
                for (int j = 0; j < 4; j++) {
                    __m256i xv = _mm256_loadu_si256((const __m256i *)(xp + 32 * j));
                    __m256i ax = _mm256_abs_epi8(xv);
                    UNROLL
                    for (size_t i = 0; i < R; i++) {
                        __m256i m = _mm256_madd_epi16(
                            _mm256_maddubs_epi16(ax, _mm256_sign_epi8(w[i][j], xv)), ones);
                        t[i] = j ? _mm256_add_epi32(t[i], m) : m;
                    }
                }
            }
            UNROLL
            for (size_t i = 0; i < R; i++)
                acc[i][k] =
                    _mm256_fmadd_ps(_mm256_cvtepi32_ps(t[i]), _mm256_mul_ps(sc[i], d), acc[i][k]);
        }
    }
    /* the blocks past the last whole unit (x: first half, then second
     * half of each; 4 lanes each) */
    for (size_t b = nu * 4; b < nblk; b++) {
        __m128i w1[2], w2[2];
        float sw[2];
        size_t lb = nu * 8 + (b - nu * 4) * 4;
        UNROLL
        for (size_t i = 0; i < R; i++) {
            const uint8_t *pb = p[i] + b * 4 * bits;
            if (bits == 8) {
                w1[i] = _mm_loadu_si128((const __m128i *)pb);
                w2[i] = _mm_loadu_si128((const __m128i *)(pb + 16));
            } else {
                __m128i v = _mm_loadu_si128((const __m128i *)pb);
                w1[i] = _mm_and_si128(v, _mm_set1_epi8(15));
                w2[i] = _mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(15));
            }
            sw[i] = widen_scale(ws[i][b]);
        }
        UNROLL
        for (size_t k = 0; k < NB; k++) {
            const int8_t *xp = xq + k * xqs + 32 * b;
            __m128i x1 = _mm_loadu_si128((const __m128i *)xp);
            __m128i x2 = _mm_loadu_si128((const __m128i *)(xp + 16));
            __m128i kk = _mm_loadu_si128((const __m128i *)(xk + k * xds + lb));
            float d = s->xdr[(v0 + k) * nblk + b];
            UNROLL
            for (size_t i = 0; i < R; i++) {
                __m128i t = a8_isum1(bits, w1[i], w2[i], x1, x2, kk);
                __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(t), _mm_set1_ps(sw[i] * d));
                acc[i][k] = _mm256_add_ps(acc[i][k], _mm256_zextps128_ps256(v));
            }
        }
    }
    for (size_t i = 0; i < nr; i++)
        UNROLL
    for (size_t k = 0; k < NB; k++)
        g->y[(v0 + k) * g->rows + r + i] = hsum(acc[i][k]);
}

/* x's codes per block of 32: the twin's (kern_quantize_act8) with the same
 * IEEE operations: |x| maximum (maxps keeps its second operand, the running
 * maximum, for a NaN), d = amax / 127 and 1 / d as scalar divisions, x / d
 * as x * (1 / d), clipped to +-127, rounded to nearest even (cvtps2dq in
 * the default mode, as lrintf), a NaN to 0. */
static void quant_x8(const uint16_t *x, size_t nblk, int8_t *q, float *d) {
    const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256 lo = _mm256_set1_ps(-127.0f), hi = _mm256_set1_ps(127.0f);
    for (size_t b = 0; b < nblk; b++, x += 32, q += 32) {
        __m256 v[4], m = _mm256_setzero_ps();
        UNROLL
        for (int j = 0; j < 4; j++) {
            v[j] = ld_f16(x + 8 * j);
            m = _mm256_max_ps(_mm256_and_ps(v[j], absm), m);
        }
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        float amax = _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
        float db = amax / 127.0f, id = db > 0 ? 1.0f / db : 0.0f;
        d[b] = db;
        __m256 iv = _mm256_set1_ps(id);
        __m256i c[4];
        UNROLL
        for (int j = 0; j < 4; j++) {
            __m256 t = _mm256_mul_ps(v[j], iv);
            __m256 nan = _mm256_cmp_ps(t, t, _CMP_UNORD_Q);
            t = _mm256_andnot_ps(nan, _mm256_min_ps(_mm256_max_ps(t, lo), hi));
            c[j] = _mm256_cvtps_epi32(t);
        }
        __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
        p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        _mm256_storeu_si256((__m256i *)q, p);
    }
}

/* Every batch: two rows at a time, against the vectors 4, 2 or 1 at a time. */
AI void a8_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0, size_t r1,
                unsigned bits) {
    for (size_t r = r0; r < r1; r += 2) {
        size_t nr = r1 - r < 2 ? 1 : 2;
        for (size_t v0 = 0; v0 < g->batch;) {
            size_t left = g->batch - v0;
            if (left >= 4) {
                a8_block(g, s, r, nr, v0, bits, 4);
                v0 += 4;
            } else if (left >= 2) {
                a8_block(g, s, r, nr, v0, bits, 2);
                v0 += 2;
            } else {
                a8_block(g, s, r, nr, v0, bits, 1);
                v0 += 1;
            }
        }
    }
}

static void gemv_q8a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    a8_body(g, s, r0, r1, 8);
}

static void gemv_q4a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    a8_body(g, s, r0, r1, 4);
}

KERN_CPU_FORMATS(tile, tile_half_body, tile_q_body, KERN_CPU_TILE_ARGS, KERN_CPU_TILE_CALL)
KERN_CPU_FORMATS(gemv1, gemv1_half_body, gemv1_q_body, KERN_CPU_ROWS_ARGS, KERN_CPU_ROWS_CALL)

const struct kern_cpu_impl kern_cpu_impl_avx2 = {
    .isa = KERN_ISA_AVX2,
    .lanes = 8,
    .perm4 = true,
    .a8_unit = 4,
    .a8_vec = 32,
    .gemv1 = {gemv1_f16, gemv1_bf16, gemv1_q8, gemv1_q4, gemv_q8a8, gemv_q4a8},
    .gemvs = {gemvs_f16, gemvs_bf16, gemvs_q8, gemvs_q4},
    .gemvm = {gemvm_f16, gemvm_bf16},
    .tile = {tile_f16, tile_bf16, tile_q8, tile_q4},
    .micro = micro,
    .quant_x8 = quant_x8,
    .quantize = quantize,
    .dequantize = dequantize,
    .copy = copy,
    .sum = sum,
    .fma_loop = fma_loop,
};

#if defined(__clang__)
#pragma clang attribute pop
#elif defined(__GNUC__)
#pragma GCC pop_options
#endif

#endif /* __x86_64__ */
