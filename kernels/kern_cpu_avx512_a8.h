
/*
 * kern_cpu_avx512_a8.h: the W8A8 / W4A8 kernels of the AVX-512 path,
 * included twice by kern_cpu_avx512.c: with A8_VNNI 1 inside a region
 * compiled for AVX-512 VNNI (vpdpbusd), and with A8_VNNI 0 for AVX-512 F,
 * BW, DQ, VL alone (vpmaddubsw + vpmaddwd), so no instruction of the first
 * can reach a CPU without it. A8_SFX names each copy's functions.
 *
 * x comes in units of eight blocks of 32 as four 64-byte vectors (the
 * interleaved order of kern_cpu_impl.h): in 128-bit lane m of each, two
 * 4-byte lanes of block m and two of block m + 4. The codes are regrouped
 * to match: Q8, four loads (blocks 0-1, 2-3, 4-5, 6-7) by 128-bit lane
 * (vshufi64x2: blocks 0-3's first 16 bytes, their last 16, the same for
 * 4-7), then by 64 bits within the lanes (vpunpcklqdq / vpunpckhqdq);
 * Q4, two loads (blocks 0-3, 4-7) split into low nibbles (the even
 * elements) and high (the odd ones), then by 64 bits. Four integer dot
 * products then leave 16 products of a block in each of its two lanes.
 * VNNI: the lanes start at xk (minus the code offset times the x codes
 * they meet), so four vpdpbusd leave the exact sum q * xq of each block in
 * its lanes. Without VNNI, Q4's codes (0..15) go through vpmaddubsw
 * unsaturated (four of them summed in 16 bits: at most 4 x 3810); Q8's
 * are made signed (q = u ^ 0x80) and multiplied as |x| times q with x's
 * sign, the signed form of the same sums. Then per unit and vector one
 * conversion and one multiply-add by s_w * d (the eight blocks' scales,
 * each in its two lanes): 4 dot products, a conversion, a multiply and a
 * multiply-add for 256 weights. Rows R at a time (4 for batch 1-2, else
 * 2), vectors NB at a time (up to 8: 16 accumulators).
 */
#define A8_CAT2(a, b) a##b
#define A8_CAT(a, b)  A8_CAT2(a, b)
#define A8_FN(name)   A8_CAT(name, A8_SFX)

/* The four 64-byte operands of one unit (8 blocks) of a row's codes at p. */
AI void A8_FN(a8_operands)(const uint8_t *p, unsigned bits, __m512i w[4]) {
    __m512i a0, a1, a2, a3;
    if (bits == 8) {
        __m512i l0 = _mm512_loadu_si512((const void *)p);
        __m512i l1 = _mm512_loadu_si512((const void *)(p + 64));
        __m512i l2 = _mm512_loadu_si512((const void *)(p + 128));
        __m512i l3 = _mm512_loadu_si512((const void *)(p + 192));
        a0 = _mm512_shuffle_i64x2(l0, l1, 0x88); /* blocks 0-3, bytes 0-15 */
        a1 = _mm512_shuffle_i64x2(l0, l1, 0xdd); /* blocks 0-3, bytes 16-31 */
        a2 = _mm512_shuffle_i64x2(l2, l3, 0x88); /* blocks 4-7 */
        a3 = _mm512_shuffle_i64x2(l2, l3, 0xdd);
        if (!A8_VNNI) {
            const __m512i sign = _mm512_set1_epi8((char)0x80);
            a0 = _mm512_xor_si512(a0, sign);
            a1 = _mm512_xor_si512(a1, sign);
            a2 = _mm512_xor_si512(a2, sign);
            a3 = _mm512_xor_si512(a3, sign);
        }
    } else {
        const __m512i m = _mm512_set1_epi8(15);
        __m512i v0 = _mm512_loadu_si512((const void *)p);        /* blocks 0-3 */
        __m512i v1 = _mm512_loadu_si512((const void *)(p + 64)); /* blocks 4-7 */
        a0 = _mm512_and_si512(v0, m);                           /* even elements */
        a1 = _mm512_and_si512(_mm512_srli_epi16(v0, 4), m);     /* odd */
        a2 = _mm512_and_si512(v1, m);
        a3 = _mm512_and_si512(_mm512_srli_epi16(v1, 4), m);
    }
    w[0] = _mm512_unpacklo_epi64(a0, a2);
    w[1] = _mm512_unpackhi_epi64(a0, a2);
    w[2] = _mm512_unpacklo_epi64(a1, a3);
    w[3] = _mm512_unpackhi_epi64(a1, a3);
}

/* The 16 lanes of a unit's integer sums for one row (w) and one vector
 * (its codes x at xp; k the lanes' start; ax and sign bits m of x for the
 * signed Q8 form). */
AI __m512i A8_FN(a8_isum)(unsigned bits, const __m512i w[4], const int8_t *xp, __m512i k,
                          const __m512i ax[4], const __mmask64 m[4]) {
#if A8_VNNI
    (void)bits, (void)ax, (void)m;
    UNROLL
    for (int j = 0; j < 4; j++)
        k = _mm512_dpbusd_epi32(k, w[j], _mm512_loadu_si512((const void *)(xp + 64 * j)));
    return k;
#else
    const __m512i ones = _mm512_set1_epi16(1);
    if (bits == 4) {
        (void)ax, (void)m;
        __m512i p = _mm512_maddubs_epi16(w[0], _mm512_loadu_si512((const void *)xp));
        UNROLL
        for (int j = 1; j < 4; j++)
            p = _mm512_add_epi16(
                p, _mm512_maddubs_epi16(w[j], _mm512_loadu_si512((const void *)(xp + 64 * j))));
        return _mm512_add_epi32(k, _mm512_madd_epi16(p, ones));
    }
    (void)xp, (void)k;
    const __m512i z = _mm512_setzero_si512();
    __m512i t = z;
    UNROLL
    for (int j = 0; j < 4; j++)
        t = _mm512_add_epi32(
            t, _mm512_madd_epi16(_mm512_maddubs_epi16(ax[j], _mm512_mask_sub_epi8(w[j], m[j], z, w[j])),
                                 ones));
    return t;
#endif
}

/* The same for one block (4 lanes) past the last whole unit: codes of
 * its halves w1, w2 (16 bytes each), x's halves x1, x2. */
AI __m128i A8_FN(a8_isum1)(unsigned bits, __m128i w1, __m128i w2, __m128i x1, __m128i x2,
                           __m128i k) {
#if A8_VNNI
    (void)bits;
    return _mm_dpbusd_epi32(_mm_dpbusd_epi32(k, w1, x1), w2, x2);
#else
    const __m128i ones = _mm_set1_epi16(1);
    if (bits == 4) {
        __m128i p = _mm_add_epi16(_mm_maddubs_epi16(w1, x1), _mm_maddubs_epi16(w2, x2));
        return _mm_add_epi32(k, _mm_madd_epi16(p, ones));
    }
    (void)k;
    const __m128i sign = _mm_set1_epi8((char)0x80);
    w1 = _mm_xor_si128(w1, sign);
    w2 = _mm_xor_si128(w2, sign);
    __m128i p1 = _mm_maddubs_epi16(_mm_abs_epi8(x1), _mm_sign_epi8(w1, x1));
    __m128i p2 = _mm_maddubs_epi16(_mm_abs_epi8(x2), _mm_sign_epi8(w2, x2));
    return _mm_add_epi32(_mm_madd_epi16(p1, ones), _mm_madd_epi16(p2, ones));
#endif
}

/* Rows r .. r + nr - 1 (nr <= R) times vectors v0 .. v0 + NB - 1. */
AI void A8_FN(a8_block)(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r,
                        size_t nr, size_t v0, unsigned bits, const size_t R, const size_t NB) {
    const bool sg8 = bits == 8 && !A8_VNNI; /* the signed Q8 form: lanes start at 0 */
    const uint8_t *codes = g->w;
    size_t nblk = s->nblk, nu = nblk / 8, rowb = g->cols * bits / 8, ub = 8 * 4 * bits;
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
    const int32_t *xk = s->xk + v0 * nblk * 4;
    size_t xqs = s->xqpad, xds = nblk * 4;
    /* lane (m, j) of 128-bit lane m belongs to block m + 4 (j >= 2) */
    const __m512i idx = _mm512_setr_epi32(0, 0, 4, 4, 1, 1, 5, 5, 2, 2, 6, 6, 3, 3, 7, 7);
    __m512 acc[4][8];
    UNROLL
    for (size_t i = 0; i < R; i++)
        UNROLL
    for (size_t k = 0; k < NB; k++)
        acc[i][k] = _mm512_setzero_ps();
    for (size_t u = 0; u < nu; u++) {
        __m512i w[4][4];
        __m512 sc[4];
        UNROLL
        for (size_t i = 0; i < R; i++) {
            A8_FN(a8_operands)(p[i] + u * ub, bits, w[i]);
            /* batch > 2 computes long enough per byte that the hardware
             * prefetcher falls behind: 4 units ahead (1 KB of Q8) into L1
             * (batch 4 and 16 +10-15% out of cache; batch 1, memory bound,
             * would lose 6%) */
            if (R == 2)
                UNROLL
            for (size_t l = 0; l < ub; l += 64)
                _mm_prefetch((const char *)(p[i] + (u + 4) * ub + l), _MM_HINT_T0);
            __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(ws[i] + 8 * u)));
            sc[i] = _mm512_permutexvar_ps(idx, _mm512_castps256_ps512(f));
        }
        UNROLL
        for (size_t k = 0; k < NB; k++) {
            const int8_t *xp = xq + k * xqs + 256 * u;
            __m512 d = _mm512_loadu_ps(xd + k * xds + 16 * u);
            __m512i kk = sg8 ? _mm512_setzero_si512()
                             : _mm512_loadu_si512((const void *)(xk + k * xds + 16 * u));
            __m512i ax[4];
            __mmask64 m[4] = {0, 0, 0, 0};
            UNROLL
            for (int j = 0; j < 4; j++) {
                ax[j] = _mm512_setzero_si512();
                if (sg8) {
                    __m512i xv = _mm512_loadu_si512((const void *)(xp + 64 * j));
                    ax[j] = _mm512_abs_epi8(xv);
                    m[j] = _mm512_movepi8_mask(xv);
                }
            }
            UNROLL
            for (size_t i = 0; i < R; i++) {
                __m512i t = A8_FN(a8_isum)(bits, w[i], xp, kk, ax, m);
                acc[i][k] =
                    _mm512_fmadd_ps(_mm512_cvtepi32_ps(t), _mm512_mul_ps(sc[i], d), acc[i][k]);
            }
        }
    }
    /* the blocks past the last whole unit, one at a time (x: first half,
     * then second half of each; 4 lanes each) */
    for (size_t b = nu * 8; b < nblk; b++) {
        __m128i w1[4], w2[4];
        float sw[4];
        size_t lb = nu * 16 + (b - nu * 8) * 4;
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
            sw[i] = kern_f16_to_f32_inline(ws[i][b]);
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
                __m128i t = A8_FN(a8_isum1)(bits, w1[i], w2[i], x1, x2, kk);
                __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(t), _mm_set1_ps(sw[i] * d));
                acc[i][k] = _mm512_add_ps(acc[i][k], _mm512_zextps128_ps512(v));
            }
        }
    }
    for (size_t i = 0; i < nr; i++)
        UNROLL
    for (size_t k = 0; k < NB; k++)
        g->y[(v0 + k) * g->rows + r + i] = hsum(acc[i][k]);
}

/* Every batch: R rows at a time, each against the vectors 8, 4, 2 or 1 at
 * a time (the rows' codes stay in L1 between the groups of vectors). */
AI void A8_FN(a8_body)(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                       size_t r1, unsigned bits) {
    const size_t R = g->batch <= 2 ? 4 : 2;
    for (size_t r = r0; r < r1; r += R) {
        size_t nr = r1 - r < R ? r1 - r : R;
        for (size_t v0 = 0; v0 < g->batch;) {
            size_t left = g->batch - v0;
            if (R == 4 && left >= 2) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 4, 2);
                v0 += 2;
            } else if (R == 4) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 4, 1);
                v0 += 1;
            } else if (left >= 8) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 2, 8);
                v0 += 8;
            } else if (left >= 4) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 2, 4);
                v0 += 4;
            } else if (left >= 2) {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 2, 2);
                v0 += 2;
            } else {
                A8_FN(a8_block)(g, s, r, nr, v0, bits, 2, 1);
                v0 += 1;
            }
        }
    }
}

static void A8_FN(gemv_q8a8)(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                             size_t r1) {
    A8_FN(a8_body)(g, s, r0, r1, 8);
}

static void A8_FN(gemv_q4a8)(const struct kern_gemv *g, const struct kern_cpu_scratch *s, size_t r0,
                             size_t r1) {
    A8_FN(a8_body)(g, s, r0, r1, 4);
}

#undef A8_FN
#undef A8_CAT
#undef A8_CAT2
