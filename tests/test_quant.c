/*
 * test_quant.c: the quantization twins and the FP16 conversions.
 *
 * Rule and numbers: shared spec engine.md (Quantization) and seed 000
 * ("Cuantizacion por grupos"). The seed printed, for one group of 32
 * numpy normal(0, 0.02) weights, relative errors 0.006 / 0.100 / 0.792 and
 * zeros 0% / 19% / 84% at 8 / 4 / 2 bits; numpy's generator is not ours,
 * so the golden checks below are bands around those figures averaged over
 * many groups, plus exact hand-computed cases and properties.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"
#include "kernels/probe.h"

/* ---- FP16 ------------------------------------------------------------ */

Test(half, every_finite_half_round_trips_through_float) {
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue; /* NaN: payload checked separately */
        cr_assert_eq(kern_f32_to_f16(kern_f16_to_f32((uint16_t)h)), h, "h=0x%04x", h);
    }
}

Test(half, inline_and_table_widening_agree_bit_for_bit) {
    const float *t = kern_f16_table();
    for (uint32_t h = 0; h < 65536; h++) {
        float a = kern_f16_to_f32_inline((uint16_t)h), b = t[h], c = kern_f16_to_f32((uint16_t)h);
        cr_assert(memcmp(&a, &b, 4) == 0 && memcmp(&b, &c, 4) == 0, "h=0x%04x", h);
    }
}

Test(half, nan_stays_nan) {
    cr_assert(isnan(kern_f16_to_f32(0x7e00)));
    uint16_t h = kern_f32_to_f16(NAN);
    cr_assert((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0);
}

#if defined(__FLT16_MAX__)
/* The compiler's _Float16 conversion (IEEE, ties to even) is the oracle. */
Test(half, rounding_matches_the_compilers_float16_on_random_floats) {
    struct kern_rng r;
    kern_rng_seed(&r, 42);
    for (int i = 0; i < 2000000; i++) {
        uint32_t bits = (uint32_t)kern_rng_next(&r);
        float f;
        memcpy(&f, &bits, 4);
        if (isnan(f))
            continue;
        /* bias towards the FP16 range so normals and subnormals are hit */
        if (i % 2)
            f = ldexpf(f / powf(2.0f, (float)ilogbf(f)), (int)(bits % 48) - 30);
        _Float16 ref = (_Float16)f;
        uint16_t rb;
        memcpy(&rb, &ref, 2);
        cr_assert_eq(kern_f32_to_f16(f), rb, "f=%a", (double)f);
    }
}
#endif

Test(half, ties_go_to_even_and_overflow_goes_to_infinity) {
    cr_assert_eq(kern_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);     /* tie, even down */
    cr_assert_eq(kern_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02); /* tie, even up */
    cr_assert_eq(kern_f32_to_f16(65504.0f), 0x7bff);
    cr_assert_eq(kern_f32_to_f16(65519.0f), 0x7bff);
    cr_assert_eq(kern_f32_to_f16(65520.0f), 0x7c00);
    cr_assert_eq(kern_f32_to_f16(0x1p-24f), 0x0001);
    cr_assert_eq(kern_f32_to_f16(0x1p-25f), 0x0000); /* tie to even 0 */
    cr_assert_eq(kern_f32_to_f16(0x1.8p-25f), 0x0001);
    cr_assert_eq(kern_f32_to_f16(-2.0f), 0xc000);
}

Test(half, bf16_is_the_top_half_of_a_float) {
    cr_assert_eq(kern_bf16_to_f32(0x3f80), 1.0f);
    cr_assert_eq(kern_f32_to_bf16(1.0f), 0x3f80);
    cr_assert_eq(kern_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80); /* tie, even */
    cr_assert_eq(kern_bf16_to_f32(0xc040), -3.0f);
}

/* ---- exact small cases ------------------------------------------------ */

/* Worked by hand: b = 3, qmax = 3, s = f16(1/3) = 0x3555 = 0.333251953125;
 * w/s = 3.0007, -1.5004, 0.7502, 2.2505, -3.0007, 0.375, 0, 1.5004
 * -> q = 3, -2, 1, 2, -3, 0, 0, 2 -> u = q + 4 = 7, 2, 5, 6, 1, 4, 4, 6
 * -> sum u_i << 3i = 0xd21d57 -> bytes 57 1d d2. */
Test(quant, hand_computed_three_bit_group) {
    float w[8] = {1.0f, -0.5f, 0.25f, 0.75f, -1.0f, 0.125f, 0.0f, 0.5f};
    uint8_t codes[3];
    uint16_t scale;
    kern_quantize_f32(w, 1, 8, 3, 8, codes, &scale, NULL);
    cr_assert_eq(scale, 0x3555);
    cr_assert_eq(codes[0], 0x57);
    cr_assert_eq(codes[1], 0x1d);
    cr_assert_eq(codes[2], 0xd2);
    int expect[8] = {3, -2, 1, 2, -3, 0, 0, 2};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(kern_quant_get(codes, (size_t)i, 3), expect[i]);
}

/* b = 8, max 127 -> s = 1 exactly: w/s are the weights, ties to even. */
Test(quant, rounding_is_to_nearest_even_like_numpy) {
    float w[8] = {127.0f, 2.5f, 3.5f, -2.5f, 0.5f, -0.5f, 1.5f, 0.0f};
    int expect[8] = {127, 2, 4, -2, 0, 0, 2, 0};
    uint8_t codes[8];
    uint16_t scale;
    kern_quantize_f32(w, 1, 8, 8, 8, codes, &scale, NULL);
    cr_assert_eq(scale, 0x3c00);
    for (int i = 0; i < 8; i++)
        cr_assert_eq(kern_quant_get(codes, (size_t)i, 8), expect[i], "i=%d", i);
}

Test(quant, all_zero_group_has_zero_scale_and_codes) {
    float w[32] = {0};
    uint8_t codes[16];
    uint16_t scale = 0xffff;
    struct kern_qstats st = {0};
    kern_quantize_f32(w, 1, 32, 4, 32, codes, &scale, &st);
    cr_assert_eq(scale, 0);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(kern_quant_get(codes, (size_t)i, 4), 0);
    cr_assert_eq(kern_qstats_rel_error(&st), 0.0);
    cr_assert_eq(kern_qstats_zero_fraction(&st), 1.0);
}

Test(quant, a_group_of_32_at_b_bits_is_4b_bytes) {
    for (unsigned b = 2; b <= 8; b++)
        cr_assert_eq(kern_quant_code_bytes(32, b), 4 * b);
    cr_assert_eq(kern_quant_scale_count(4, 64, 32), 8);
    cr_assert_eq(kern_quant_scale_count(4, 64, KERN_GROUP_MATRIX), 1);
}

Test(quant, validate_rejects_bad_bits_and_groups) {
    char err[128];
    cr_assert_eq(kern_quant_validate(1, 32, err, sizeof err), -1);
    cr_assert_eq(kern_quant_validate(9, 32, err, sizeof err), -1);
    cr_assert_eq(kern_quant_validate(4, 12, err, sizeof err), -1);
    cr_assert_eq(kern_quant_validate(4, 512, err, sizeof err), -1);
    cr_assert_eq(kern_quant_validate(4, 4, err, sizeof err), -1);
    cr_assert_eq(kern_quant_validate(4, KERN_GROUP_MATRIX, err, sizeof err), 0);
    for (size_t g = 8; g <= 256; g *= 2)
        cr_assert_eq(kern_quant_validate(2, g, err, sizeof err), 0);
}

/* ---- round trips -------------------------------------------------------- */

/* Quantize, dequantize to float, quantize again: the same codes and scales
 * bit for bit (max|w_hat| = qmax * s, so the scale comes back exactly). */
static void round_trip(size_t rows, size_t cols, unsigned bits, size_t group, int f16) {
    size_t n = rows * cols;
    float *w = malloc(n * sizeof *w), *back = malloc(n * sizeof *back);
    uint16_t *wh = malloc(n * 2);
    size_t cb = kern_quant_code_bytes(n, bits), ns = kern_quant_scale_count(rows, cols, group);
    uint8_t *c1 = malloc(cb), *c2 = malloc(cb);
    uint16_t *s1 = malloc(ns * 2), *s2 = malloc(ns * 2);
    kern_weights_fill(w, n, 0.02, 3, bits * 100 + group);
    if (f16) {
        for (size_t i = 0; i < n; i++)
            wh[i] = kern_f32_to_f16(w[i]);
        kern_quantize_f16(wh, rows, cols, bits, group, c1, s1, NULL);
    } else {
        kern_quantize_f32(w, rows, cols, bits, group, c1, s1, NULL);
    }
    kern_dequantize_rows_f32(c1, s1, cols, 0, rows, bits, group, back);
    kern_quantize_f32(back, rows, cols, bits, group, c2, s2, NULL);
    cr_assert(memcmp(s1, s2, ns * 2) == 0, "scales b=%u g=%zu", bits, group);
    cr_assert(memcmp(c1, c2, cb) == 0, "codes b=%u g=%zu", bits, group);
    /* the FP16 dequantization is q*s rounded once */
    kern_dequantize_rows_f16(c1, s1, cols, 0, rows, bits, group, wh);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(wh[i], kern_f32_to_f16(back[i]));
    free(w);
    free(back);
    free(wh);
    free(c1);
    free(c2);
    free(s1);
    free(s2);
}

Test(quant, round_trips_are_bit_exact_for_every_width_and_group) {
    size_t groups[] = {8, 16, 32, 64, 128, 256, KERN_GROUP_MATRIX};
    for (unsigned b = KERN_QBITS_MIN; b <= KERN_QBITS_MAX; b++)
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
            round_trip(16, 256, b, groups[g], 0);
            round_trip(16, 256, b, groups[g], 1);
        }
}

Test(quant, odd_shapes_take_the_general_path_and_still_round_trip) {
    round_trip(3, 40, 3, 32, 0); /* last group of each row is 8 wide */
    round_trip(5, 7, 5, 8, 1);   /* rows not byte aligned at 5 bits */
    round_trip(1, 33, 7, KERN_GROUP_MATRIX, 0);
}

Test(quant, fast_and_general_paths_give_identical_codes) {
    /* cols 256, group 32: the fast path; the same rows one at a time with a
     * 1-row matrix of 256 also hit it, so compare against per-element
     * kern_quant_code with the stored scales instead */
    size_t rows = 4, cols = 256;
    float w[4 * 256];
    kern_weights_fill(w, rows * cols, 1.0, 2, 9);
    for (unsigned b = 2; b <= 8; b++) {
        uint8_t codes[4 * 256];
        uint16_t scales[32];
        kern_quantize_f32(w, rows, cols, b, 32, codes, scales, NULL);
        for (size_t i = 0; i < rows * cols; i++) {
            float s = kern_f16_to_f32(scales[i / 32]);
            cr_assert_eq(kern_quant_get(codes, i, b), kern_quant_code(w[i], s, kern_qmax(b)));
        }
    }
}

Test(quant, row_splits_equal_the_whole_matrix) {
    size_t rows = 64, cols = 96, n = rows * cols;
    uint16_t *w = malloc(n * 2);
    float *tmp = malloc(n * sizeof *tmp);
    kern_weights_fill(tmp, n, 0.5, 4, 5);
    for (size_t i = 0; i < n; i++)
        w[i] = kern_f32_to_f16(tmp[i]);
    for (unsigned b = 2; b <= 8; b++) {
        uint8_t a[64 * 96], c[64 * 96];
        uint16_t sa[64 * 3], sc[64 * 3];
        kern_quantize_f16(w, rows, cols, b, 32, a, sa, NULL);
        memset(c, 0xa5, sizeof c);
        cr_assert_eq(kern_quantize_rows_f16(w, cols, 0, 24, b, 32, c, sc, NULL), 0);
        cr_assert_eq(kern_quantize_rows_f16(w, cols, 24, 64, b, 32, c, sc, NULL), 0);
        cr_assert(memcmp(a, c, kern_quant_code_bytes(n, b)) == 0);
        cr_assert(memcmp(sa, sc, sizeof sa) == 0);
    }
    uint8_t c[64];
    uint16_t s[8];
    /* row 1 of a 3-wide matrix at 3 bits starts at bit 9: refused */
    cr_assert_eq(kern_quantize_rows_f16(w, 3, 1, 2, 3, 8, c, s, NULL), -1);
    free(w);
    free(tmp);
}

Test(quant, unpack_fast_paths_equal_the_bit_reader) {
    uint8_t codes[64];
    for (int i = 0; i < 64; i++)
        codes[i] = (uint8_t)(i * 37 + 11);
    for (unsigned b = 2; b <= 8; b++) {
        int8_t q[40];
        kern_quant_unpack(codes, 8, 40, b, q);
        for (size_t i = 0; i < 40; i++)
            cr_assert_eq(q[i], kern_quant_get(codes, 8 + i, b));
    }
}

/* ---- the seed's claims ---------------------------------------------------- */

/* Statistics of N(0, 0.02) weights (with `outliers` at 13 sd). */
static struct kern_qstats lab(unsigned bits, size_t group, size_t outliers) {
    size_t rows = 64, cols = 1024, n = rows * cols;
    float *w = malloc(n * sizeof *w);
    uint8_t *codes = malloc(kern_quant_code_bytes(n, 8));
    uint16_t *scales = malloc(kern_quant_scale_count(rows, cols, 32) * 2);
    kern_weights_fill(w, n, 0.02, outliers, 2024);
    struct kern_qstats st = {0};
    kern_quantize_f32(w, rows, cols, bits, group, codes, scales, &st);
    free(w);
    free(codes);
    free(scales);
    return st;
}

Test(quant_seed, error_falls_as_bits_rise) {
    for (int o = 0; o < 2; o++) {
        double prev_g = INFINITY, prev_m = INFINITY;
        for (unsigned b = 2; b <= 8; b++) {
            struct kern_qstats g = lab(b, 32, o ? 4 : 0), m = lab(b, 0, o ? 4 : 0);
            double eg = kern_qstats_rel_error(&g), em = kern_qstats_rel_error(&m);
            cr_assert_lt(eg, prev_g, "group b=%u", b);
            cr_assert_lt(em, prev_m, "matrix b=%u", b);
            prev_g = eg;
            prev_m = em;
        }
    }
}

/* Seed 000: one 32-weight group gave 0.006 / 0.100 / 0.792. Over many
 * groups of N(0, 0.02) the expected error is about 0.005 / 0.097 / 0.66 (the
 * seed's single 2-bit group was an unlucky draw); bands of +-50% around
 * the seed's own figures except at 2 bits, where one group varies most. */
Test(quant_seed, group_of_32_errors_are_near_the_seeds_figures) {
    struct kern_qstats s8 = lab(8, 32, 0), s4 = lab(4, 32, 0), s2 = lab(2, 32, 0);
    double e8 = kern_qstats_rel_error(&s8), e4 = kern_qstats_rel_error(&s4),
           e2 = kern_qstats_rel_error(&s2);
    cr_assert(e8 > 0.003 && e8 < 0.009, "8 bits: %g", e8);
    cr_assert(e4 > 0.05 && e4 < 0.15, "4 bits: %g", e4);
    cr_assert(e2 > 0.5 && e2 < 0.9, "2 bits: %g", e2);
    /* zeros: seed 0% / 19% / 84% for one group; expected ~1% / 13% / 75% */
    cr_assert_lt(kern_qstats_zero_fraction(&s8), 0.03);
    double z4 = kern_qstats_zero_fraction(&s4), z2 = kern_qstats_zero_fraction(&s2);
    cr_assert(z4 > 0.08 && z4 < 0.25, "4 bits zeros %g", z4);
    cr_assert(z2 > 0.6 && z2 < 0.9, "2 bits zeros %g", z2);
}

/* Seed 000: with one scale per matrix and outliers up to 13 sd, "two of
 * every three weights fall on the zero mark at 4 bits". With amax = 13 sd,
 * s = 13/7 sd and |w| < s/2 = 0.93 sd is zero: P = 0.647 for a Gaussian. */
Test(quant_seed, per_matrix_with_13_sigma_outliers_zeroes_two_thirds_at_4_bits) {
    struct kern_qstats m = lab(4, KERN_GROUP_MATRIX, 4), g = lab(4, 32, 4);
    double zm = kern_qstats_zero_fraction(&m);
    cr_assert(zm > 0.60 && zm < 0.70, "per matrix zeros %g", zm);
    cr_assert_lt(kern_qstats_zero_fraction(&g), 0.25);
    cr_assert(kern_qstats_outlier_ratio(&m) > 12.0 && kern_qstats_outlier_ratio(&m) < 14.0);
    /* per group holds to 4 bits: its error is a fraction of per matrix's */
    cr_assert_lt(kern_qstats_rel_error(&g), 0.4 * kern_qstats_rel_error(&m));
}

Test(quant_seed, per_group_beats_per_matrix_at_every_width_with_outliers) {
    for (unsigned b = 2; b <= 8; b++) {
        struct kern_qstats m = lab(b, KERN_GROUP_MATRIX, 4), g = lab(b, 32, 4);
        cr_assert_lt(kern_qstats_rel_error(&g), kern_qstats_rel_error(&m), "b=%u", b);
    }
}

/* ---- GEMV twins ------------------------------------------------------- */

/* Fill n FP16 values uniform in [-a, a). */
static void fill_f16(uint16_t *h, size_t n, double a, uint64_t seed) {
    struct kern_rng r;
    kern_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        h[i] = kern_f32_to_f16((float)((kern_rng_uniform(&r) * 2 - 1) * a));
}

Test(gemv, fp16_twin_is_within_tolerance_of_the_float64_reference) {
    size_t rows = 64, cols = 4096, batch = 16;
    uint16_t *w = malloc(rows * cols * 2), *x = malloc(batch * cols * 2);
    float *y = malloc(batch * rows * sizeof *y);
    double *ref = malloc(batch * rows * sizeof *ref);
    fill_f16(w, rows * cols, 0.05, 1);
    fill_f16(x, batch * cols, 1.0, 2);
    size_t batches[] = {1, 2, 3, 16};
    for (size_t k = 0; k < 4; k++) {
        size_t nb = batches[k];
        kern_gemv_f16(w, cols, 0, rows, x, nb, rows, y);
        kern_gemv_f16_ref(w, rows, cols, x, nb, ref);
        for (size_t b = 0; b < nb; b++)
            for (size_t r = 0; r < rows; r++) {
                double as, one = kern_gemv_f16_ref_row(w, r, cols, x + b * cols, &as);
                cr_assert_eq(one, ref[b * rows + r]);
                cr_assert_leq(fabs(y[b * rows + r] - one), KERN_GEMV_RTOL * as);
            }
    }
    free(w);
    free(x);
    free(y);
    free(ref);
}

Test(gemv, quantized_twins_are_within_tolerance_for_every_width_and_batch) {
    size_t rows = 32, cols = 2048, batch = 16;
    uint16_t *w = malloc(rows * cols * 2), *x = malloc(batch * cols * 2);
    uint8_t *codes = malloc(kern_quant_code_bytes(rows * cols, 8));
    uint16_t *scales = malloc(kern_quant_scale_count(rows, cols, 32) * 2);
    float *y = malloc(batch * rows * sizeof *y);
    double *ref = malloc(batch * rows * sizeof *ref);
    fill_f16(w, rows * cols, 0.05, 3);
    fill_f16(x, batch * cols, 1.0, 4);
    for (unsigned b = 2; b <= 8; b++) {
        kern_quantize_f16(w, rows, cols, b, 32, codes, scales, NULL);
        for (size_t nb = 1; nb <= batch; nb += 5) {
            memset(y, 0xff, batch * rows * sizeof *y); /* poison */
            kern_gemv_q(codes, scales, cols, 0, rows, b, 32, x, nb, rows, y);
            kern_gemv_q_ref(codes, scales, rows, cols, b, 32, x, nb, ref);
            for (size_t v = 0; v < nb; v++)
                for (size_t r = 0; r < rows; r++) {
                    double as;
                    double one =
                        kern_gemv_q_ref_row(codes, scales, r, cols, b, 32, x + v * cols, &as);
                    cr_assert_leq(fabs(one - ref[v * rows + r]), 1e-12 * as + 1e-300);
                    cr_assert_leq(fabs(y[v * rows + r] - one), KERN_GEMV_RTOL * as,
                                  "b=%u batch=%zu", b, nb);
                }
        }
    }
    free(w);
    free(x);
    free(codes);
    free(scales);
    free(y);
    free(ref);
}

/* ---- the probe's sample statistics ------------------------------------- */

Test(probe_stats, median_best_and_spread) {
    double t[5] = {3.0, 1.0, 2.0, 5.0, 4.0};
    struct probe_stats st;
    probe_stats_summarise(t, 5, &st);
    cr_assert_eq(st.samples, 5);
    cr_assert_eq(st.median_s, 3.0);
    cr_assert_eq(st.best_s, 1.0);
    /* sample sd of 1..5 is sqrt(2.5); mean 3 */
    cr_assert_float_eq(st.spread, sqrt(2.5) / 3.0, 1e-12);
    double even[4] = {4.0, 1.0, 3.0, 2.0};
    probe_stats_summarise(even, 4, &st);
    cr_assert_eq(st.median_s, 2.5);
    double same[3] = {2.0, 2.0, 2.0};
    probe_stats_summarise(same, 3, &st);
    cr_assert_eq(st.spread, 0.0);
    probe_stats_summarise(t, 0, &st);
    cr_assert_eq(st.samples, 0);
}
