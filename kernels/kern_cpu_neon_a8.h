/*
 * kern_cpu_neon_a8.h: the W8A8 / W4A8 kernels of the NEON path, included
 * twice by kern_cpu_neon.c: with A8_DOT 1 inside a region compiled for
 * ARMv8.2 with the dot-product instructions (SDOT: four products of
 * signed bytes into each 32-bit lane), and with A8_DOT 0 for ARMv8.0
 * (widening multiplies added pairwise), so no SDOT can reach a CPU
 * without it. A8_SFX names each copy's functions.
 */
#define A8_CAT2(a, b) a##b
#define A8_CAT(a, b)  A8_CAT2(a, b)
#define A8_FN(name)   A8_CAT(name, A8_SFX)

/* The exact sum q * x of one block in four lanes (its halves a1/x1 and
 * a2/x2): SDOT, or on ARMv8.0 widening multiplies (|q x| <= 127 * 127
 * fits int16) added pairwise into the lanes. */
AI int32x4_t A8_FN(a8_isum)(int8x16_t a1, int8x16_t a2, int8x16_t x1, int8x16_t x2) {
#if A8_DOT
    return vdotq_s32(vdotq_s32(vdupq_n_s32(0), a1, x1), a2, x2);
#else
    int32x4_t t = vpaddlq_s16(vmull_s8(vget_low_s8(a1), vget_low_s8(x1)));
    t = vpadalq_s16(t, vmull_high_s8(a1, x1));
    t = vpadalq_s16(t, vmull_s8(vget_low_s8(a2), vget_low_s8(x2)));
    return vpadalq_s16(t, vmull_high_s8(a2, x2));
#endif
}

/* Rows r .. r + nr - 1 (nr <= 4) times vectors v0 .. v0 + NB - 1 (NB <= 4).
 * x in units of one block: its first half (Q8: elements 0-15; Q4: the
 * even ones, the low nibbles), then its second half. The codes are made
 * signed once per block and row (Q8 u ^ 0x80, Q4 nibble - 8); each block
 * is scaled once by s_w * d (d in four lanes). */
AI void A8_FN(a8_block)(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                        size_t nr, size_t v0, unsigned bits, const size_t NB) {
    const size_t R = 4;
    const uint8_t *codes = g->w;
    size_t nblk = s->nblk, rowb = g->cols * bits / 8, bb = 4 * bits;
    const uint8_t *p[4];
    const uint16_t *ws[4];
    UNROLL
    for (size_t i = 0; i < R; i++) {
        size_t ri = r + (i < nr ? i : nr - 1);
        p[i] = codes + ri * rowb;
        ws[i] = kern_cpu_a8_wscales(g, s, ri, (unsigned)i);
    }
    const int8_t *xq = s->xq + v0 * s->xqpad;
    const float *xd = s->xd + v0 * nblk * 4;
    size_t xqs = s->xqpad, xds = nblk * 4;
    float32x4_t acc[4][4];
    UNROLL
    for (size_t i = 0; i < R; i++)
        UNROLL
    for (size_t k = 0; k < NB; k++)
        acc[i][k] = vdupq_n_f32(0.0f);
    for (size_t b = 0; b < nblk; b++) {
        int8x16_t a1[4], a2[4];
        float sw[4];
        UNROLL
        for (size_t i = 0; i < R; i++) {
            const uint8_t *pb = p[i] + b * bb;
            if (bits == 8) {
                a1[i] = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(pb), vdupq_n_u8(0x80)));
                a2[i] = vreinterpretq_s8_u8(veorq_u8(vld1q_u8(pb + 16), vdupq_n_u8(0x80)));
            } else {
                uint8x16_t v = vld1q_u8(pb);
                a1[i] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v, vdupq_n_u8(15))), vdupq_n_s8(8));
                a2[i] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v, 4)), vdupq_n_s8(8));
            }
            sw[i] = kern_f16_to_f32_inline(ws[i][b]);
        }
        UNROLL
        for (size_t k = 0; k < NB; k++) {
            const int8_t *xp = xq + k * xqs + 32 * b;
            int8x16_t x1 = vld1q_s8(xp), x2 = vld1q_s8(xp + 16);
            float32x4_t d = vld1q_f32(xd + k * xds + 4 * b);
            UNROLL
            for (size_t i = 0; i < R; i++) {
                int32x4_t t = A8_FN(a8_isum)(a1[i], a2[i], x1, x2);
                acc[i][k] = vfmaq_f32(acc[i][k], vcvtq_f32_s32(t), vmulq_n_f32(d, sw[i]));
            }
        }
    }
    for (size_t i = 0; i < nr; i++)
        UNROLL
    for (size_t k = 0; k < NB; k++)
        g->y[(v0 + k) * g->rows + r + i] = vaddvq_f32(acc[i][k]);
}

/* Every batch: four rows at a time, against the vectors 4, 2 or 1 at a time. */
static void A8_FN(a8_body)(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                           size_t r1, unsigned bits) {
    for (size_t r = r0; r < r1; r += 4) {
        size_t nr = r1 - r < 4 ? r1 - r : 4;
        for (size_t v0 = 0; v0 < g->batch;) {
            size_t left = g->batch - v0;
            if (left >= 4) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 4);
                v0 += 4;
            } else if (left >= 2) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 2);
                v0 += 2;
            } else {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 1);
                v0 += 1;
            }
        }
    }
}

#undef A8_FN
#undef A8_CAT
#undef A8_CAT2
