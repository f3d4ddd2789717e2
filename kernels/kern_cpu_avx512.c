/*
 * kern_cpu_avx512.c: the AVX-512 (F, BW, DQ, VL) path of kern_cpu.h.
 *
 * The AVX2 path's structure at 16 lanes: batch 1 streams four rows per x
 * load; Q4's 16 bytes of a group widen in one step to 16 lanes whose low
 * nibbles are the even elements and high nibbles the odd ones (x stored
 * to match); Q8 / Q4 batch 2..4 dequantize in registers (gemvs), 5..16 a
 * 4 x 512 tile by four vectors at a time (16 accumulators of the 32
 * registers); FP16 / BF16 batch 2..16 run every vector over slices of x
 * that stay in L2, 4 rows by up to 6 vectors (gemvm). Quantize packs with
 * vpmovdb / vpmovqb. Called only when kern_isa_supported(KERN_ISA_AVX512).
 */
#include "config.h"

#if defined(__x86_64__)

#if defined(__clang__)
#pragma clang attribute push(                                                                      \
    __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl"))),                   \
    apply_to = function)
#elif defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl")
#endif

#include <immintrin.h>

#include "kernels/kern_cpu_impl.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

/* Every helper is inlined into its kernel (the kernels are few and hot). */
#define AI static inline __attribute__((always_inline))
/* Small fixed loops over registers are unrolled completely (at -O2 too),
 * so their arrays of vectors stay in registers. */
#define UNROLL _Pragma("GCC unroll 16")
/* A vector the compiler must hold in a register here (not fold its load
 * into every instruction that reads it, nor spill it). */
#define REG(v) __asm__("" : "+v"(v))

AI float hsum(__m512 v) {
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

AI __m512 ld_half(const uint16_t *p, bool bf) {
    __m256i h = _mm256_loadu_si256((const __m256i *)p);
    if (bf)
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    return _mm512_cvtph_ps(h);
}

AI void gemv1_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
    const uint16_t *w = g->w;
    const float *x = s->xf;
    size_t n = g->cols, n32 = n & ~(size_t)31, n16 = n & ~(size_t)15, r = r0;
    for (; r + 4 <= r1; r += 4) {
        const uint16_t *w0 = w + r * n, *w1 = w0 + n, *w2 = w1 + n, *w3 = w2 + n;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        __m512 b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        size_t c = 0;
        for (; c < n32; c += 32) {
            __m512 x0 = _mm512_loadu_ps(x + c), x1 = _mm512_loadu_ps(x + c + 16);
            a0 = _mm512_fmadd_ps(ld_half(w0 + c, bf), x0, a0);
            a1 = _mm512_fmadd_ps(ld_half(w1 + c, bf), x0, a1);
            a2 = _mm512_fmadd_ps(ld_half(w2 + c, bf), x0, a2);
            a3 = _mm512_fmadd_ps(ld_half(w3 + c, bf), x0, a3);
            b0 = _mm512_fmadd_ps(ld_half(w0 + c + 16, bf), x1, b0);
            b1 = _mm512_fmadd_ps(ld_half(w1 + c + 16, bf), x1, b1);
            b2 = _mm512_fmadd_ps(ld_half(w2 + c + 16, bf), x1, b2);
            b3 = _mm512_fmadd_ps(ld_half(w3 + c + 16, bf), x1, b3);
        }
        for (; c < n16; c += 16) {
            __m512 x0 = _mm512_loadu_ps(x + c);
            a0 = _mm512_fmadd_ps(ld_half(w0 + c, bf), x0, a0);
            a1 = _mm512_fmadd_ps(ld_half(w1 + c, bf), x0, a1);
            a2 = _mm512_fmadd_ps(ld_half(w2 + c, bf), x0, a2);
            a3 = _mm512_fmadd_ps(ld_half(w3 + c, bf), x0, a3);
        }
        g->y[r] = hsum(_mm512_add_ps(a0, b0)) + kern_cpu_half_tail(w0, x, c, n, bf);
        g->y[r + 1] = hsum(_mm512_add_ps(a1, b1)) + kern_cpu_half_tail(w1, x, c, n, bf);
        g->y[r + 2] = hsum(_mm512_add_ps(a2, b2)) + kern_cpu_half_tail(w2, x, c, n, bf);
        g->y[r + 3] = hsum(_mm512_add_ps(a3, b3)) + kern_cpu_half_tail(w3, x, c, n, bf);
    }
    for (; r < r1; r++) {
        const uint16_t *w0 = w + r * n;
        __m512 a0 = _mm512_setzero_ps();
        size_t c = 0;
        for (; c < n16; c += 16)
            a0 = _mm512_fmadd_ps(ld_half(w0 + c, bf), _mm512_loadu_ps(x + c), a0);
        g->y[r] = hsum(a0) + kern_cpu_half_tail(w0, x, c, n, bf);
    }
}

static void scales_to_float(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                            size_t nr) {
    size_t ng = s->ngroups;
    for (size_t i = 0; i < nr; i++) {
        const uint16_t *src = g->scales + (r + i) * ng;
        float *dst = s->sc + i * ng;
        size_t k = 0;
        for (; k + 16 <= ng; k += 16)
            _mm512_storeu_ps(dst + k, ld_half(src + k, false));
        for (; k < ng; k++)
            dst[k] = kern_f16_to_f32_inline(src[k]);
    }
}

/* u of 16 codes as floats. */
AI __m512 u8x16(const uint8_t *p) {
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)));
}

AI __m512 q8_block(const uint8_t *p, const float *x, __m512 acc) {
    acc = _mm512_fmadd_ps(u8x16(p), _mm512_loadu_ps(x), acc);
    return _mm512_fmadd_ps(u8x16(p + 16), _mm512_loadu_ps(x + 16), acc);
}

AI __m512 q4_block(const uint8_t *p, const float *x, __m512 acc) {
    __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
    __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(v, _mm512_set1_epi32(15)));
    __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
    acc = _mm512_fmadd_ps(lo, _mm512_loadu_ps(x), acc);
    return _mm512_fmadd_ps(hi, _mm512_loadu_ps(x + 16), acc);
}

/* off * sum_g s_g xs_g for one row (its float scales sc). */
AI float q_correction(const float *sc, const float *xs, size_t ng, float off) {
    __m512 a = _mm512_setzero_ps();
    size_t k = 0;
    for (; k + 16 <= ng; k += 16)
        a = _mm512_fmadd_ps(_mm512_loadu_ps(sc + k), _mm512_loadu_ps(xs + k), a);
    float t = hsum(a);
    for (; k < ng; k++)
        t += sc[k] * xs[k];
    return off * t;
}

/* Q8 / Q4, batch 1, four rows at a time (as the AVX2 path). */
AI void gemv1_q_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                     size_t r1, unsigned bits) {
    const uint8_t *codes = g->w;
    size_t ng = s->ngroups, G = g->group, rowb = g->cols * bits / 8, blk = 32 * bits / 8;
    float off = (float)(1 << (bits - 1));
    for (size_t r = r0; r < r1; r += 4) {
        size_t nr = r1 - r < 4 ? r1 - r : 4;
        scales_to_float(g, s, r, nr);
        size_t i1 = nr > 1 ? 1 : nr - 1, i2 = nr > 2 ? 2 : nr - 1, i3 = nr > 3 ? 3 : nr - 1;
        const uint8_t *p0 = codes + r * rowb, *p1 = codes + (r + i1) * rowb;
        const uint8_t *p2 = codes + (r + i2) * rowb, *p3 = codes + (r + i3) * rowb;
        const float *sc0 = s->sc, *sc1 = s->sc + i1 * ng, *sc2 = s->sc + i2 * ng,
                    *sc3 = s->sc + i3 * ng;
        const float *x = s->xf;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        size_t o = 0;
        for (size_t gi = 0; gi < ng; gi++) {
            __m512 t0 = _mm512_setzero_ps(), t1 = t0, t2 = t0, t3 = t0;
            for (size_t k = 0; k < G; k += 32, o += blk, x += 32) {
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
            a0 = _mm512_fmadd_ps(t0, _mm512_set1_ps(sc0[gi]), a0);
            a1 = _mm512_fmadd_ps(t1, _mm512_set1_ps(sc1[gi]), a1);
            a2 = _mm512_fmadd_ps(t2, _mm512_set1_ps(sc2[gi]), a2);
            a3 = _mm512_fmadd_ps(t3, _mm512_set1_ps(sc3[gi]), a3);
        }
        float out[4] = {hsum(a0) - q_correction(sc0, s->xs, ng, off),
                        hsum(a1) - q_correction(sc1, s->xs, ng, off),
                        hsum(a2) - q_correction(sc2, s->xs, ng, off),
                        hsum(a3) - q_correction(sc3, s->xs, ng, off)};
        for (size_t i = 0; i < nr; i++)
            g->y[r + i] = out[i];
    }
}

/* ---- batch 2..4: two rows by four vectors, no tile ----------------------- */

AI void gemvs_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
    /* four rows by four vectors: 16 accumulators; per 16 columns 4 weight
     * loads (widened once), 4 x loads and 16 multiply-adds (a load per
     * two FMAs, not one per FMA as two rows would take) */
    const uint16_t *w = g->w;
    const float *xr[4];
    kern_cpu_xrows4(g, s, xr);
    size_t n = g->cols, n16 = n & ~(size_t)15;
    for (size_t r = r0; r < r1; r += 4) {
        size_t nr = r1 - r < 4 ? r1 - r : 4;
        const uint16_t *wr[4];
        UNROLL
        for (size_t i = 0; i < 4; i++)
            wr[i] = w + (r + (i < nr ? i : nr - 1)) * n;
        __m512 a[4][4];
        UNROLL
        for (int i = 0; i < 4; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            a[i][k] = _mm512_setzero_ps();
        for (size_t c = 0; c < n16; c += 16) {
            __m512 xv[4];
            UNROLL
            for (int k = 0; k < 4; k++)
                xv[k] = _mm512_loadu_ps(xr[k] + c);
            UNROLL
            for (int i = 0; i < 4; i++) {
                __m512 v = ld_half(wr[i] + c, bf);
                UNROLL
                for (int k = 0; k < 4; k++)
                    a[i][k] = _mm512_fmadd_ps(v, xv[k], a[i][k]);
            }
        }
        for (size_t i = 0; i < nr; i++)
            for (size_t k = 0; k < g->batch; k++)
                g->y[k * g->rows + r + i] =
                    hsum(a[i][k]) + kern_cpu_half_tail(wr[i], xr[k], n16, n, bf);
    }
}

/* ---- FP16 / BF16 batch 5..16: every vector per slice of columns ---------- */

/* Rows and vectors of the batch-5..16 blocks: 24 accumulators, 4 weight
 * vectors and one x vector of the 32 registers. */
#define GEMVM_R 4
#define GEMVM_V 6

/* Rows [r, r + nr) (nr <= GEMVM_R) by vectors [b0, b0 + V) over columns
 * [c0, c1): per 16 columns R weight loads (widened once) and V x loads
 * for R x V multiply-adds (a load per 2.4 FMAs; 4 x 4 takes one per 2,
 * and the loads, x's from L2, are what holds these kernels below the FMA
 * peak). The sums go to y, assigned on the first slice and added to after
 * (the ragged columns past n16 with the last). With `pf`, the next block
 * of rows' columns [c0, c1) are prefetched into L2 (one line per 32
 * columns of each row), so its first pass finds them there. */
AI void gemvm_run(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                  size_t nr, size_t b0, size_t c0, size_t c1, bool first, bool last, const bool PF,
                  bool bf, const size_t V) {
    const size_t R = GEMVM_R;
    size_t n = g->cols, n16 = n & ~(size_t)15;
    const uint16_t *wr[GEMVM_R], *next = (const uint16_t *)g->w + (r + R) * n;
    const float *xr[GEMVM_V];
    UNROLL
    for (size_t i = 0; i < R; i++)
        wr[i] = (const uint16_t *)g->w + (r + (i < nr ? i : nr - 1)) * n;
    UNROLL
    for (size_t k = 0; k < V; k++)
        xr[k] = s->xf + (b0 + k) * s->xpad;
    __m512 a[GEMVM_R][GEMVM_V];
    UNROLL
    for (size_t i = 0; i < R; i++)
        UNROLL
    for (size_t k = 0; k < V; k++)
        a[i][k] = _mm512_setzero_ps();
    for (size_t c = c0; c < c1; c += 16) {
        if (PF && !(c & 31))
            UNROLL
        for (size_t i = 0; i < R; i++)
            _mm_prefetch((const char *)(next + i * n + c), _MM_HINT_T1);
        __m512 wv[GEMVM_R];
        UNROLL
        for (size_t i = 0; i < R; i++) {
            wv[i] = ld_half(wr[i] + c, bf);
            REG(wv[i]);
        }
        UNROLL
        for (size_t k = 0; k < V; k++) {
            __m512 xv = _mm512_loadu_ps(xr[k] + c);
            REG(xv);
            UNROLL
            for (size_t i = 0; i < R; i++)
                a[i][k] = _mm512_fmadd_ps(wv[i], xv, a[i][k]);
        }
    }
    for (size_t i = 0; i < nr; i++)
        for (size_t k = 0; k < V; k++) {
            float t = hsum(a[i][k]);
            if (last)
                t += kern_cpu_half_tail(wr[i], xr[k], n16, n, bf);
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

/* Every vector over slices of x's columns (kern_cpu_slice_cols): x's slice
 * stays in L2 while each block of rows of the piece passes over it, W
 * streams in once and each block of it is re-read from L1/L2 by each group
 * of vectors (passes of 4 vectors over the whole piece re-read x from L3
 * for every block and W from L3 for every pass). Vectors in sixes, the
 * rest in one group of exactly their number. */
AI void gemvm_half_body(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                        size_t r1, bool bf) {
#define GEMVM_BLOCK(r, nr, b0, c0, c1, first, last, pf, NV)                                         \
    gemvm_block(g, s, r, nr, b0, c0, c1, first, last, pf, bf, NV)
    KERN_CPU_GEMVM_WALK(g, r0, r1, 16, GEMVM_R, GEMVM_V, GEMVM_BLOCK);
#undef GEMVM_BLOCK
}

/* The two 16-weight halves of a 32-weight block as floats u (x's order). */
AI void block_u(const uint8_t *p, unsigned bits, __m512 u[2]) {
    if (bits == 8) {
        u[0] = u8x16(p);
        u[1] = u8x16(p + 16);
    } else {
        __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
        u[0] = _mm512_cvtepi32_ps(_mm512_and_si512(v, _mm512_set1_epi32(15)));
        u[1] = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
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
        __m512 a[2][4];
        UNROLL
        for (int i = 0; i < 2; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            a[i][k] = _mm512_setzero_ps();
        for (size_t gi = 0; gi < ng; gi++) {
            float s0 = kern_f16_to_f32_inline(sh0[gi]), s1 = kern_f16_to_f32_inline(sh1[gi]);
            __m512 sv0 = _mm512_set1_ps(s0), ov0 = _mm512_set1_ps(off * s0);
            __m512 sv1 = _mm512_set1_ps(s1), ov1 = _mm512_set1_ps(off * s1);
            for (size_t k0 = 0; k0 < G; k0 += 32) {
                size_t c = gi * G + k0, o = c / 32 * blk;
                __m512 u0[2], u1[2];
                block_u(p0 + o, bits, u0);
                block_u(p1 + o, bits, u1);
                UNROLL
                for (int j = 0; j < 2; j++) {
                    __m512 v0 = _mm512_fmsub_ps(u0[j], sv0, ov0);
                    __m512 v1 = _mm512_fmsub_ps(u1[j], sv1, ov1);
                    UNROLL
                    for (int k = 0; k < 4; k++) {
                        __m512 xv = _mm512_loadu_ps(xr[k] + c + 16 * (size_t)j);
                        a[0][k] = _mm512_fmadd_ps(v0, xv, a[0][k]);
                        a[1][k] = _mm512_fmadd_ps(v1, xv, a[1][k]);
                    }
                }
            }
        }
        float o[2][4];
        UNROLL
        for (int i = 0; i < 2; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            o[i][k] = hsum(a[i][k]);
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
                _mm_prefetch((const char *)(w + KERN_CPU_TILE_COLS + k), _MM_HINT_T0);
        for (; c + 16 <= n; c += 16)
            _mm512_storeu_ps(t + c, ld_half(w + c, bf));
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
            __m512 sv = _mm512_set1_ps(scf), ov = _mm512_set1_ps(off * scf);
            __m512 u0, u1;
            if (bits == 8) {
                u0 = u8x16(p + c);
                u1 = u8x16(p + c + 16);
            } else {
                __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(p + c / 2)));
                u0 = _mm512_cvtepi32_ps(_mm512_and_si512(v, _mm512_set1_epi32(15)));
                u1 = _mm512_cvtepi32_ps(_mm512_srli_epi32(v, 4));
            }
            _mm512_storeu_ps(t + c, _mm512_fmsub_ps(u0, sv, ov));
            _mm512_storeu_ps(t + c + 16, _mm512_fmsub_ps(u1, sv, ov));
        }
    }
    kern_cpu_tile_pad(s, nr, n, npad);
}

/* Four tile rows by up to four x rows. */
static void micro(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r, size_t nr,
                  size_t c0, size_t npad) {
    const float *t = s->tile;
    for (size_t b = 0; b < g->batch; b += 4) {
        size_t nb = g->batch - b < 4 ? g->batch - b : 4;
        const float *xr[4];
        UNROLL
        for (size_t k = 0; k < 4; k++)
            xr[k] = s->xf + (b + (k < nb ? k : nb - 1)) * s->xpad + c0;
        __m512 a[4][4];
        UNROLL
        for (int i = 0; i < 4; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            a[i][k] = _mm512_setzero_ps();
        for (size_t c = 0; c < npad; c += 16) {
            __m512 w0 = _mm512_loadu_ps(t + c), w1 = _mm512_loadu_ps(t + KERN_CPU_TILE_COLS + c);
            __m512 w2 = _mm512_loadu_ps(t + 2 * KERN_CPU_TILE_COLS + c);
            __m512 w3 = _mm512_loadu_ps(t + 3 * KERN_CPU_TILE_COLS + c);
            UNROLL
            for (int k = 0; k < 4; k++) {
                __m512 xv = _mm512_loadu_ps(xr[k] + c);
                a[0][k] = _mm512_fmadd_ps(w0, xv, a[0][k]);
                a[1][k] = _mm512_fmadd_ps(w1, xv, a[1][k]);
                a[2][k] = _mm512_fmadd_ps(w2, xv, a[2][k]);
                a[3][k] = _mm512_fmadd_ps(w3, xv, a[3][k]);
            }
        }
        float o[4][4];
        UNROLL
        for (int i = 0; i < 4; i++)
            UNROLL
        for (int k = 0; k < 4; k++)
            o[i][k] = hsum(a[i][k]);
        for (size_t k = 0; k < nb; k++)
            for (size_t i = 0; i < nr; i++)
                g->y[(b + k) * g->rows + r + i] += o[i][k];
    }
}

/* ---- quantize and dequantize ------------------------------------------- */

AI __m512i codes16(__m512 w, __m512 s, __m512 lo, __m512 hi, __m512 qlo, __m512 qhi) {
    __m512 v = _mm512_div_ps(w, s);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi); /* NaN -> lo, as the twin */
    v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_min_ps(_mm512_max_ps(v, qlo), qhi);
    return _mm512_cvtps_epi32(v);
}

static void quantize(const uint16_t *w, size_t cols, size_t r0, size_t r1, unsigned bits,
                     size_t group, uint8_t *codes, uint16_t *scales) {
    float qm = (float)((1 << (bits - 1)) - 1);
    const __m512 lo = _mm512_set1_ps(-qm - 1.0f), hi = _mm512_set1_ps(qm + 1.0f);
    const __m512 qlo = _mm512_set1_ps(-qm), qhi = _mm512_set1_ps(qm);
    const __m512i offv = _mm512_set1_epi32(1 << (bits - 1));
    const __m512i absm = _mm512_set1_epi32(0x7fffffff);
    size_t per_row = cols / group;
    uint8_t *out = codes + r0 * cols * bits / 8;
    for (size_t r = r0; r < r1; r++) {
        for (size_t gi = 0; gi < per_row; gi++) {
            const uint16_t *src = w + r * cols + gi * group;
            __m512 m = _mm512_setzero_ps();
            for (size_t j = 0; j < group; j += 16) {
                __m512 a = _mm512_castsi512_ps(
                    _mm512_and_si512(_mm512_castps_si512(ld_half(src + j, false)), absm));
                m = _mm512_max_ps(a, m);
            }
            uint16_t sh = kern_quant_scale(_mm512_reduce_max_ps(m), bits);
            scales[r * per_row + gi] = sh;
            float sf = kern_f16_to_f32_inline(sh);
            for (size_t j = 0; j < group; j += 32, out += 4 * bits) {
                __m512i c0 = offv, c1 = offv;
                if (sf != 0.0f) {
                    __m512 sv = _mm512_set1_ps(sf);
                    c0 = _mm512_add_epi32(codes16(ld_half(src + j, false), sv, lo, hi, qlo, qhi),
                                          offv);
                    c1 = _mm512_add_epi32(
                        codes16(ld_half(src + j + 16, false), sv, lo, hi, qlo, qhi), offv);
                }
                if (bits == 8) {
                    _mm_storeu_si128((__m128i *)out, _mm512_cvtepi32_epi8(c0));
                    _mm_storeu_si128((__m128i *)(out + 16), _mm512_cvtepi32_epi8(c1));
                } else {
                    /* each qword holds u[2k] (low dword) and u[2k+1]: fold to one byte */
                    __m512i f0 = _mm512_or_si512(c0, _mm512_srli_epi64(c0, 28));
                    __m512i f1 = _mm512_or_si512(c1, _mm512_srli_epi64(c1, 28));
                    _mm_storel_epi64((__m128i *)out, _mm512_cvtepi64_epi8(f0));
                    _mm_storel_epi64((__m128i *)(out + 8), _mm512_cvtepi64_epi8(f1));
                }
            }
        }
    }
}

static void dequantize(const uint8_t *codes, const uint16_t *scales, size_t cols, size_t r0,
                       size_t r1, unsigned bits, size_t group, uint16_t *out) {
    const __m512i offv = _mm512_set1_epi32(1 << (bits - 1));
    size_t per_row = cols / group;
    for (size_t r = r0; r < r1; r++) {
        const uint8_t *p = codes + r * cols * bits / 8;
        uint16_t *o = out + r * cols;
        for (size_t c = 0; c < cols; c += 32) {
            __m512 sv = _mm512_set1_ps(kern_f16_to_f32_inline(scales[r * per_row + c / group]));
            __m128i e0, e1;
            if (bits == 8) {
                e0 = _mm_loadu_si128((const __m128i *)(p + c));
                e1 = _mm_loadu_si128((const __m128i *)(p + c + 16));
            } else {
                __m128i b = _mm_loadu_si128((const __m128i *)(p + c / 2));
                __m128i lo = _mm_and_si128(b, _mm_set1_epi8(15));
                __m128i hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(15));
                e0 = _mm_unpacklo_epi8(lo, hi);
                e1 = _mm_unpackhi_epi8(lo, hi);
            }
            __m512 f0 = _mm512_mul_ps(
                _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(e0), offv)), sv);
            __m512 f1 = _mm512_mul_ps(
                _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(e1), offv)), sv);
            _mm256_storeu_si256((__m256i *)(o + c),
                                _mm512_cvtps_ph(f0, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            _mm256_storeu_si256((__m256i *)(o + c + 16),
                                _mm512_cvtps_ph(f1, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
    }
}

/* ---- copy, sum, FMA peak ------------------------------------------------ */

static void copy(void *dst, const void *src, size_t n) {
    const __m512i *s = src;
    __m512i *d = dst;
    for (size_t i = 0; i < n / 64; i += 2) {
        __m512i v0 = _mm512_load_si512(s + i);
        if (i + 1 < n / 64) {
            __m512i v1 = _mm512_load_si512(s + i + 1);
            _mm512_stream_si512(d + i, v0);
            _mm512_stream_si512(d + i + 1, v1);
        } else {
            _mm512_stream_si512(d + i, v0);
        }
    }
    _mm_sfence();
}

static double sum(const double *a, size_t n) {
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm512_add_pd(s0, _mm512_load_pd(a + i));
        s1 = _mm512_add_pd(s1, _mm512_load_pd(a + i + 8));
        s2 = _mm512_add_pd(s2, _mm512_load_pd(a + i + 16));
        s3 = _mm512_add_pd(s3, _mm512_load_pd(a + i + 24));
    }
    double r = _mm512_reduce_add_pd(_mm512_add_pd(_mm512_add_pd(s0, s1), _mm512_add_pd(s2, s3)));
    for (; i < n; i++)
        r += a[i];
    return r;
}

static double fma_loop(uint64_t iters, float a, float b) {
    const __m512 av = _mm512_set1_ps(a), bv = _mm512_set1_ps(b);
    __m512 v[KERN_CPU_FMA_CHAINS];
    UNROLL
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
        v[k] = _mm512_set1_ps((float)k * 0.25f);
    for (uint64_t i = 0; i < iters; i++) {
        UNROLL
        for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++)
            v[k] = _mm512_fmadd_ps(v[k], av, bv);
    }
    double t = 0;
    UNROLL
    for (unsigned k = 0; k < KERN_CPU_FMA_CHAINS; k++) {
        float o[16];
        _mm512_storeu_ps(o, v[k]);
        for (unsigned l = 0; l < 16; l++)
            t += o[l];
    }
    return t;
}

KERN_CPU_FORMATS(tile, tile_half_body, tile_q_body, KERN_CPU_TILE_ARGS, KERN_CPU_TILE_CALL)
KERN_CPU_FORMATS(gemv1, gemv1_half_body, gemv1_q_body, KERN_CPU_ROWS_ARGS, KERN_CPU_ROWS_CALL)
KERN_CPU_FORMATS(gemvs, gemvs_half_body, gemvs_q_body, KERN_CPU_ROWS_ARGS, KERN_CPU_ROWS_CALL)
static void gemvm_f16 KERN_CPU_ROWS_ARGS {
    gemvm_half_body(KERN_CPU_ROWS_CALL, false);
}
static void gemvm_bf16 KERN_CPU_ROWS_ARGS {
    gemvm_half_body(KERN_CPU_ROWS_CALL, true);
}

/* ---- W8A8 / W4A8 (kern_cpu_avx512_a8.h) ------------------------------------ */

/* x's codes per block of 32: the twin's (kern_quantize_act8) with the same
 * IEEE operations, as the AVX2 path's quant_x8 (vpmovsdb packs them). */
static void quant_x8(const uint16_t *x, size_t nblk, int8_t *q, float *d) {
    const __m512 lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
    for (size_t b = 0; b < nblk; b++, x += 32, q += 32) {
        __m512 v0 = ld_half(x, false), v1 = ld_half(x + 16, false);
        __m512 m = _mm512_max_ps(_mm512_abs_ps(v0), _mm512_setzero_ps());
        m = _mm512_max_ps(_mm512_abs_ps(v1), m);
        __m256 h8 = _mm256_max_ps(_mm512_castps512_ps256(m),
                                  _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(m), 1)));
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        float amax = _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
        float db = amax / 127.0f, id = db > 0 ? 1.0f / db : 0.0f;
        d[b] = db;
        __m512 iv = _mm512_set1_ps(id);
        __m512 t0 = _mm512_mul_ps(v0, iv), t1 = _mm512_mul_ps(v1, iv);
        __mmask16 n0 = _mm512_cmp_ps_mask(t0, t0, _CMP_UNORD_Q);
        __mmask16 n1 = _mm512_cmp_ps_mask(t1, t1, _CMP_UNORD_Q);
        t0 = _mm512_maskz_mov_ps((__mmask16)~n0, _mm512_min_ps(_mm512_max_ps(t0, lo), hi));
        t1 = _mm512_maskz_mov_ps((__mmask16)~n1, _mm512_min_ps(_mm512_max_ps(t1, lo), hi));
        _mm_storeu_si128((__m128i *)q, _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(t0)));
        _mm_storeu_si128((__m128i *)(q + 16), _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(t1)));
    }
}

/* vpmaddubsw + vpmaddwd, for AVX-512 CPUs without VNNI */
#define A8_VNNI 0
#define A8_SFX  _bw
#include "kernels/kern_cpu_avx512_a8.h"
#undef A8_VNNI
#undef A8_SFX

/* vpdpbusd, in a region of its own so nothing else is compiled for VNNI */
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(                                                                      \
    __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni"))),        \
    apply_to = function)
#elif defined(__GNUC__)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")
#endif
#define A8_VNNI 1
#define A8_SFX  _vnni
#include "kernels/kern_cpu_avx512_a8.h"
#undef A8_VNNI
#undef A8_SFX
#if defined(__clang__)
#pragma clang attribute pop
#pragma clang attribute push(                                                                      \
    __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl"))),                   \
    apply_to = function)
#elif defined(__GNUC__)
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl")
#endif

static void gemv_q8a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    if (kern_cpu_have_vnni())
        gemv_q8a8_vnni(g, s, r0, r1);
    else
        gemv_q8a8_bw(g, s, r0, r1);
}

static void gemv_q4a8(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                      size_t r1) {
    if (kern_cpu_have_vnni())
        gemv_q4a8_vnni(g, s, r0, r1);
    else
        gemv_q4a8_bw(g, s, r0, r1);
}

const struct kern_cpu_impl kern_cpu_impl_avx512 = {
    .isa = KERN_ISA_AVX512,
    .lanes = 16,
    .perm4 = true,
    .a8_unit = 8,
    .a8_vec = 64,
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
