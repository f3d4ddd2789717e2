/*
 * test_kern_cpu.c: the fast CPU kernels (kernels/kern_cpu.h) against the
 * twins and the float64 references, on every instruction-set path this
 * machine runs (each test loops over kern_isa_supported paths; the
 * VRAMLAB_CPU_ISA tests check the forcing itself).
 *
 * Shapes are awkward on purpose: rows not a multiple of the 4-row tiles
 * or of the threads' 8-row splits, columns not a multiple of the vector
 * width (FP16/BF16) or spanning several 512-column tiles, groups of 32 to
 * 256, batches 1, 2, 3, 5 and 16. Products are checked within 1e-4 of
 * sum |w x| (a dropped or doubled weight in 1,100 columns is ~1e-3, so
 * such a bug cannot hide in KERN_GEMV_RTOL's margin), and exactly with
 * one-hot x (y is then one column of W: any layout mix-up shows).
 *
 * W8A8 / W4A8 are checked against the float64 A8 product (x's 8-bit codes
 * and block scales, kern_gemv_qa8_ref_row) within the same 1e-4, and
 * against the A16 product of the same weights within the bound that
 * quantizing x allows (half a code step of each block times its sum |w|),
 * so a kernel cannot pass by being the wrong one of the two. The AVX-512
 * path's form without VNNI is reached with VRAMLAB_TEST_NO_VNNI.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_cpu.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

#define TEST_RTOL 1e-4

static void *zalloc(size_t n) {
    void *p = NULL;
    cr_assert(posix_memalign(&p, 64, n ? n : 64) == 0);
    memset(p, 0, n ? n : 64);
    return p;
}

static void fill_half(uint16_t *h, size_t n, double a, uint64_t seed, bool bf) {
    struct kern_rng r;
    kern_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        float f = (float)((kern_rng_uniform(&r) * 2 - 1) * a);
        h[i] = bf ? kern_f32_to_bf16(f) : kern_f32_to_f16(f);
    }
}

/* Run one GEMV on a path with a fresh scratch, rows split in 8-row
 * shares as the probe's threads split them (each share its own call). */
static void run_gemv(enum kern_isa isa, const struct kern_gemv *g, size_t split) {
    char err[256];
    cr_assert_eq(kern_cpu_gemv_check(g, err, sizeof err), 0, "%s", err);
    void *s = zalloc(kern_cpu_gemv_scratch(g));
    memset(s, 0xff, kern_cpu_gemv_scratch(g)); /* stale scratch must not matter */
    kern_cpu_gemv_prepare(isa, g, s);
    for (size_t r = 0; r < g->rows; r += split)
        kern_cpu_gemv_rows(isa, g, s, r, r + split < g->rows ? r + split : g->rows);
    free(s);
}

/* Reference of one output (A8: with the bound of x's quantization). */
static double ref_row(const struct kern_gemv *g, size_t r, size_t b, double *as, double *bound) {
    const uint16_t *x = g->x + b * g->cols;
    switch (g->fmt) {
    case KERN_W_F16:
        return kern_gemv_f16_ref_row(g->w, r, g->cols, x, as);
    case KERN_W_BF16:
        return kern_gemv_bf16_ref_row(g->w, r, g->cols, x, as);
    case KERN_W_Q8A8:
    case KERN_W_Q4A8:
        return kern_gemv_qa8_ref_row(g->w, g->scales, r, g->cols, kern_wfmt_bits(g->fmt), g->group,
                                     x, as, bound);
    default:
        return kern_gemv_q_ref_row(g->w, g->scales, r, g->cols, kern_wfmt_bits(g->fmt), g->group,
                                   x, as);
    }
}

static void check_gemv(enum kern_isa isa, enum kern_wfmt fmt, size_t rows, size_t cols,
                       size_t group, size_t batch, uint64_t seed) {
    struct kern_gemv g = {.fmt = fmt, .rows = rows, .cols = cols, .group = group, .batch = batch};
    uint16_t *x = zalloc(batch * cols * 2), *wh = zalloc(rows * cols * 2);
    uint8_t *codes = NULL;
    uint16_t *scales = NULL;
    float *y = zalloc(batch * rows * sizeof *y);
    fill_half(x, batch * cols, 1.0, seed, false);
    fill_half(wh, rows * cols, 0.05, seed + 1, fmt == KERN_W_BF16);
    unsigned bits = kern_wfmt_bits(fmt);
    if (bits < 16) {
        codes = zalloc(kern_quant_code_bytes(rows * cols, bits));
        scales = zalloc(kern_quant_scale_count(rows, cols, group) * 2);
        kern_quantize_f16(wh, rows, cols, bits, group, codes, scales, NULL);
        g.w = codes;
        g.scales = scales;
    } else {
        g.w = wh;
    }
    g.x = x;
    g.y = y;
    memset(y, 0xff, batch * rows * sizeof *y); /* NaN poison */
    run_gemv(isa, &g, 8);
    for (size_t b = 0; b < batch; b++)
        for (size_t r = 0; r < rows; r++) {
            double as, bound = 0, ref = ref_row(&g, r, b, &as, &bound);
            double got = y[b * rows + r];
            cr_assert(fabs(got - ref) <= TEST_RTOL * as + 1e-30,
                      "%s %s %zux%zu g%zu batch %zu: y[%zu][%zu] = %.9g, reference %.9g",
                      kern_isa_name(isa), kern_wfmt_name(fmt), rows, cols, group, batch, b, r, got,
                      ref);
            if (kern_wfmt_a8(fmt)) { /* within x's quantization of the A16 product */
                double as16;
                double r16 = kern_gemv_q_ref_row(codes, scales, r, cols, bits, group,
                                                 x + b * cols, &as16);
                cr_assert(fabs(got - r16) <= bound + TEST_RTOL * as16 + 1e-30,
                          "%s %s: y[%zu][%zu] = %.9g, A16 %.9g, bound %.3g", kern_isa_name(isa),
                          kern_wfmt_name(fmt), b, r, got, r16, bound);
            }
        }
    free(x);
    free(wh);
    free(codes);
    free(scales);
    free(y);
}

Test(kern_cpu, the_portable_path_is_always_supported_and_best_is_supported) {
    cr_assert(kern_isa_supported(KERN_ISA_SCALAR));
    cr_assert(kern_isa_supported(kern_isa_best()));
    char list[64];
    kern_isa_list(list, sizeof list);
    cr_assert(strstr(list, "scalar") == list, "%s", list);
    cr_assert(strstr(list, kern_isa_name(kern_isa_best())) != NULL);
}

Test(kern_cpu, half_gemvs_match_the_reference_on_awkward_shapes) {
    const size_t rows[] = {1, 3, 13, 37}, cols[] = {1, 7, 15, 33, 100, 513, 1030};
    const size_t batches[] = {1, 2, 3, 5, 16};
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (int f = KERN_W_F16; f <= KERN_W_BF16; f++)
            for (size_t i = 0; i < 4; i++)
                for (size_t j = 0; j < 7; j++)
                    for (size_t k = 0; k < 5; k++)
                        check_gemv((enum kern_isa)isa, (enum kern_wfmt)f, rows[i], cols[j], 0,
                                   batches[k], 11 + i * 7 + j);
    }
}

/* FP16/BF16 at batch 2..16 run every vector over slices of x's columns
 * (kern_cpu_slice_cols: 4096 columns at batch 16, 13104 at batch 5, 32768
 * at batch 2), so these rows are wide enough for one to eight slices and
 * a ragged end, at batches that leave every remainder of the groups of 6
 * (AVX-512) and 4 (AVX2) vectors, with row counts that leave a block of
 * 1-3 rows. */
Test(kern_cpu, half_gemvs_over_several_column_slices_match_the_reference) {
    const size_t shapes[][2] = {{22, 4111}, {5, 27001}, {5, 70001}};
    const size_t batches[] = {2, 3, 4, 5, 6, 7, 12, 16};
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (int f = KERN_W_F16; f <= KERN_W_BF16; f++)
            for (size_t j = 0; j < 3; j++)
                for (size_t k = 0; k < 8; k++)
                    check_gemv((enum kern_isa)isa, (enum kern_wfmt)f, shapes[j][0], shapes[j][1],
                               0, batches[k], 41 + j * 5 + k);
    }
}

Test(kern_cpu, quantized_gemvs_match_the_reference_on_awkward_shapes) {
    const size_t rows[] = {1, 3, 13, 37}, cols[] = {32, 96, 544, 1056}, groups[] = {32, 64, 256};
    const size_t batches[] = {1, 2, 3, 16};
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (int f = KERN_W_Q8; f <= KERN_W_Q4; f++)
            for (size_t i = 0; i < 4; i++)
                for (size_t j = 0; j < 4; j++)
                    for (size_t gi = 0; gi < 3; gi++) {
                        if (cols[j] % groups[gi])
                            continue;
                        for (size_t k = 0; k < 4; k++)
                            check_gemv((enum kern_isa)isa, (enum kern_wfmt)f, rows[i], cols[j],
                                       groups[gi], batches[k], 5 + i + j * 3);
                    }
    }
}

/* The A8 kernels take every batch in groups of 8, 4, 2 and 1 vectors
 * (batches 1, 2, 3, 7, 11, 16 reach each), rows 4 or 2 at a time (rows 1,
 * 3, 6, 13: short blocks of rows); x in units of 8 (AVX-512), 4 (AVX2) or
 * 1 block (NEON) with single blocks after the last whole unit: columns of
 * 1, 4, 5, 17 and 33 blocks (a unit, a unit and one, none whole). */
static void check_a8(int only) {
    const size_t rows[] = {1, 3, 6, 13}, cols[] = {32, 128, 160, 544, 1056};
    const size_t groups[] = {32, 64, 256}, batches[] = {1, 2, 3, 7, 11, 16};
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa) || (only >= 0 && isa != only))
            continue;
        for (int f = KERN_W_Q8A8; f <= KERN_W_Q4A8; f++)
            for (size_t i = 0; i < 4; i++)
                for (size_t j = 0; j < 5; j++)
                    for (size_t gi = 0; gi < 3; gi++) {
                        if (cols[j] % groups[gi])
                            continue;
                        for (size_t k = 0; k < 6; k++)
                            check_gemv((enum kern_isa)isa, (enum kern_wfmt)f, rows[i], cols[j],
                                       groups[gi], batches[k], 3 + i + j * 5 + k);
                    }
    }
}

Test(kern_cpu, a8_gemvs_match_the_reference_on_awkward_shapes) {
    check_a8(-1);
}

/* The AVX-512 path's A8 kernels without VNNI (vpmaddubsw): the hook is read
 * once per process, and Criterion runs each test in its own. */
Test(kern_cpu, a8_gemvs_without_vnni_match_the_reference) {
    if (!kern_isa_supported(KERN_ISA_AVX512))
        return; /* that form is AVX-512's only */
    setenv("VRAMLAB_TEST_NO_VNNI", "1", 1);
    cr_assert(!kern_cpu_have_vnni(), "the hook must turn VNNI off");
    check_a8(KERN_ISA_AVX512);
}

/* The activation codes: every block's largest magnitude is code +-127,
 * every value within half a step of its code, an all-zero block is scale
 * 0 and codes 0, ties round to even. */
Test(kern_cpu, activation_codes_are_round_to_nearest_per_block_of_32) {
    uint16_t x[96];
    int8_t q[96];
    float d[3];
    fill_half(x, 96, 3.0, 17, false);
    for (int i = 32; i < 64; i++)
        x[i] = i % 2 ? 0x8000 : 0; /* +-0 */
    kern_quantize_act8(x, 96, q, d);
    cr_assert_eq(d[1], 0.0f);
    for (int i = 32; i < 64; i++)
        cr_assert_eq(q[i], 0);
    for (int b = 0; b < 3; b += 2) {
        float amax = 0;
        int qmax = 0;
        for (int i = 0; i < 32; i++) {
            float v = kern_f16_to_f32(x[32 * b + i]);
            amax = fabsf(v) > amax ? fabsf(v) : amax;
            qmax = abs(q[32 * b + i]) > qmax ? abs(q[32 * b + i]) : qmax;
            cr_assert(fabs(v - q[32 * b + i] * (double)d[b]) <= 0.5 * d[b] * (1 + 2e-4),
                      "block %d element %d: %g as %d x %g", b, i, v, q[32 * b + i], d[b]);
        }
        cr_assert_eq(d[b], amax / 127.0f);
        cr_assert_eq(qmax, 127);
    }
    /* max 127 (d = 1 exactly): 2.5 -> 2, 3.5 -> 4, -0.5 -> 0 (ties to even) */
    for (int i = 0; i < 32; i++)
        x[i] = 0;
    x[0] = kern_f32_to_f16(127.0f);
    x[1] = kern_f32_to_f16(2.5f);
    x[2] = kern_f32_to_f16(3.5f);
    x[3] = kern_f32_to_f16(-0.5f);
    x[4] = kern_f32_to_f16(-126.5f);
    kern_quantize_act8(x, 32, q, d);
    cr_assert_eq(d[0], 1.0f);
    cr_assert(q[0] == 127 && q[1] == 2 && q[2] == 4 && q[3] == 0 && q[4] == -126,
              "%d %d %d %d %d", q[0], q[1], q[2], q[3], q[4]);
}

/* Every path's x codes equal the twin's bit for bit, on every FP16 value
 * in every place of a block (so NaN, infinities, subnormals, +-65504 and
 * the ties of x / d all go through each path's rounding and clipping). */
Test(kern_cpu, every_path_quantizes_x_as_the_twin) {
    size_t n = 65536 * 2;
    uint16_t *x = zalloc(n * 2);
    int8_t *q1 = zalloc(n), *q2 = zalloc(n);
    float *d1 = zalloc(n / 32 * 4), *d2 = zalloc(n / 32 * 4);
    for (size_t i = 0; i < n; i++) /* each value once with 31 others, then shifted */
        x[i] = (uint16_t)(i < 65536 ? i : (i * 40503u) >> 3);
    kern_quantize_act8(x, n, q1, d1);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        memset(q2, 0x5a, n);
        kern_cpu_quantize_act8((enum kern_isa)isa, x, n, q2, d2);
        for (size_t b = 0; b < n / 32; b++)
            cr_assert(memcmp(d1 + b, d2 + b, 4) == 0 && memcmp(q1 + 32 * b, q2 + 32 * b, 32) == 0,
                      "%s block %zu (x from 0x%04x)", kern_isa_name((enum kern_isa)isa), b,
                      x[32 * b]);
    }
    free(x);
    free(q1);
    free(q2);
    free(d1);
    free(d2);
}

Test(kern_cpu, large_gemvs_stay_within_the_probes_tolerance) {
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (int f = 0; f < KERN_W_COUNT; f++) {
            check_gemv((enum kern_isa)isa, (enum kern_wfmt)f, 21, 4096, 32, 1, 99);
            check_gemv((enum kern_isa)isa, (enum kern_wfmt)f, 9, 4096, 32, 16, 98);
        }
    }
}

/* y with a one-hot x is exactly one column of the (dequantized) W. */
Test(kern_cpu, one_hot_x_reads_back_every_column_exactly) {
    size_t rows = 6, cols = 1088, group = 32;
    uint16_t *wh = zalloc(rows * cols * 2), *x = zalloc(3 * cols * 2);
    uint8_t *codes = zalloc(rows * cols);
    uint16_t *scales = zalloc(kern_quant_scale_count(rows, cols, group) * 2);
    float *y = zalloc(3 * rows * sizeof *y), *deq = zalloc(rows * cols * sizeof *deq);
    fill_half(wh, rows * cols, 0.05, 7, false);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (int f = 0; f < KERN_W_COUNT; f++) {
            struct kern_gemv g = {.fmt = (enum kern_wfmt)f,
                                  .rows = rows,
                                  .cols = cols,
                                  .group = group,
                                  .x = x,
                                  .y = y};
            unsigned bits = kern_wfmt_bits((enum kern_wfmt)f);
            if (bits < 16) {
                kern_quantize_f16(wh, rows, cols, bits, group, codes, scales, NULL);
                kern_dequantize_rows_f32(codes, scales, cols, 0, rows, bits, group, deq);
                g.w = codes;
                g.scales = scales;
            } else {
                for (size_t i = 0; i < rows * cols; i++)
                    deq[i] = f == KERN_W_F16 ? kern_f16_to_f32(wh[i]) : kern_bf16_to_f32(wh[i]);
                g.w = wh;
            }
            for (size_t batch = 1; batch <= 3; batch += 2)
                for (size_t j = 0; j < cols; j++) {
                    g.batch = batch;
                    memset(x, 0, 3 * cols * 2);
                    for (size_t b = 0; b < batch; b++)
                        x[b * cols + (j + 37 * b) % cols] = 0x3c00; /* 1.0 */
                    run_gemv((enum kern_isa)isa, &g, 8);
                    for (size_t b = 0; b < batch; b++)
                        for (size_t r = 0; r < rows; r++) {
                            float want = deq[r * cols + (j + 37 * b) % cols];
                            if (kern_wfmt_a8((enum kern_wfmt)f)) {
                                /* x = 1 is code 127 at scale 1/127 (rounded): the
                                 * column within float rounding, a zero code exactly */
                                cr_assert(want == 0 ? y[b * rows + r] == 0
                                                    : fabs(y[b * rows + r] - want) <=
                                                          1e-6 * fabs(want),
                                          "%s %s batch %zu col %zu: %g, want %g",
                                          kern_isa_name((enum kern_isa)isa),
                                          kern_wfmt_name((enum kern_wfmt)f), batch, j,
                                          y[b * rows + r], want);
                                continue;
                            }
                            cr_assert(y[b * rows + r] == want, "%s fmt %d batch %zu col %zu",
                                      kern_isa_name((enum kern_isa)isa), f, batch, j);
                        }
                }
        }
    }
    free(wh);
    free(x);
    free(codes);
    free(scales);
    free(y);
    free(deq);
}

Test(kern_cpu, gemv_check_refuses_what_the_fast_kernels_do_not_take) {
    uint16_t w[64] = {0}, x[64] = {0}, sc[4] = {0};
    float y[4];
    char err[256];
    struct kern_gemv g = {.fmt = KERN_W_Q4,
                          .w = w,
                          .scales = sc,
                          .group = 16,
                          .rows = 1,
                          .cols = 64,
                          .x = x,
                          .batch = 1,
                          .y = y};
    cr_assert_eq(kern_cpu_gemv_check(&g, err, sizeof err), -1);
    cr_assert(strstr(err, "multiple of 32"), "%s", err);
    g.group = 32;
    cr_assert_eq(kern_cpu_gemv_check(&g, err, sizeof err), 0);
    g.batch = 17;
    cr_assert_eq(kern_cpu_gemv_check(&g, err, sizeof err), -1);
    cr_assert(strstr(err, "batch 17"), "%s", err);
}

/* ---- quantize / dequantize, bit for bit --------------------------------- */

/* Weights with every kind of value: tiny, subnormal, large, zero groups,
 * NaN, infinities, 65504. */
static void fill_special(uint16_t *w, size_t n, uint64_t seed) {
    struct kern_rng r;
    kern_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = kern_rng_next(&r);
        switch (v % 16) {
        case 0:
            w[i] = (uint16_t)(v >> 16); /* any bit pattern: NaN, inf, subnormal */
            break;
        case 1:
            w[i] = (uint16_t)((v >> 20) & 0x83ff); /* subnormal */
            break;
        case 2:
            w[i] = 0x7bff; /* 65504 */
            break;
        default:
            w[i] = kern_f32_to_f16((float)((kern_rng_uniform(&r) * 2 - 1) * 0.1));
        }
    }
    for (size_t i = 64; i < 96 && i < n; i++)
        w[i] = 0; /* one all-zero group */
}

static void check_quant(enum kern_isa isa, size_t rows, size_t cols, unsigned bits, size_t group,
                        bool special) {
    size_t n = rows * cols;
    uint16_t *w = zalloc(n * 2);
    if (special)
        fill_special(w, n, rows * 31 + cols);
    else
        fill_half(w, n, 0.05, rows + cols, false);
    size_t cb = kern_quant_code_bytes(n, bits), sn = kern_quant_scale_count(rows, cols, group);
    uint8_t *c1 = zalloc(cb), *c2 = zalloc(cb);
    uint16_t *s1 = zalloc(sn * 2), *s2 = zalloc(sn * 2), *d1 = zalloc(n * 2), *d2 = zalloc(n * 2);
    memset(c2, 0xa5, cb);
    memset(s2, 0xa5, sn * 2);
    memset(d2, 0xa5, n * 2);
    kern_quantize_rows_f16(w, cols, 0, rows, bits, group, c1, s1, NULL);
    /* in 8-row shares, as the probe's threads */
    for (size_t r = 0; r < rows; r += 8)
        kern_cpu_quantize_f16(isa, w, cols, r, r + 8 < rows ? r + 8 : rows, bits, group, c2, s2);
    cr_assert(memcmp(s1, s2, sn * 2) == 0, "%s scales b=%u g=%zu %zux%zu", kern_isa_name(isa), bits,
              group, rows, cols);
    for (size_t i = 0; i < cb; i++)
        cr_assert_eq(c1[i], c2[i], "%s codes b=%u g=%zu %zux%zu byte %zu", kern_isa_name(isa), bits,
                     group, rows, cols, i);
    kern_dequantize_rows_f16(c1, s1, cols, 0, rows, bits, group, d1);
    for (size_t r = 0; r < rows; r += 8)
        kern_cpu_dequantize_f16(isa, c1, s1, cols, r, r + 8 < rows ? r + 8 : rows, bits, group, d2);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(d1[i], d2[i], "%s dequantize b=%u g=%zu element %zu", kern_isa_name(isa), bits,
                     group, i);
    free(w);
    free(c1);
    free(c2);
    free(s1);
    free(s2);
    free(d1);
    free(d2);
}

Test(kern_cpu, quantize_and_dequantize_equal_the_twins_bit_for_bit) {
    const size_t shapes[][2] = {{1, 32}, {3, 64}, {13, 256}, {9, 544}, {17, 1024}};
    const size_t groups[] = {32, 64, 128, 256};
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (unsigned bits = 4; bits <= 8; bits += 4)
            for (size_t s = 0; s < 5; s++)
                for (size_t gi = 0; gi < 4; gi++) {
                    if (!kern_cpu_quant_fast(bits, groups[gi], shapes[s][1]))
                        continue;
                    check_quant((enum kern_isa)isa, shapes[s][0], shapes[s][1], bits, groups[gi],
                                false);
                    check_quant((enum kern_isa)isa, shapes[s][0], shapes[s][1], bits, groups[gi],
                                true);
                }
    }
}

/* Every FP16 magnitude as a group's largest weight gives the twin's scale. */
Test(kern_cpu, every_group_maximum_gives_the_twins_scale) {
    size_t rows = 1024, cols = 64; /* 2048 groups a pass */
    uint16_t *w = zalloc(rows * cols * 2);
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        if (!kern_isa_supported((enum kern_isa)isa))
            continue;
        for (uint32_t base = 0; base < 0x8000; base += 2048) {
            for (size_t gr = 0; gr < 2048; gr++) {
                uint16_t *p = w + gr * 32;
                uint16_t m = (uint16_t)(base + gr);
                for (int k = 0; k < 32; k++)
                    p[k] = (uint16_t)((m >> (k % 4)) | (k % 2 ? 0x8000 : 0));
                p[gr % 32] = m;
            }
            size_t cb = rows * cols, sn = rows * cols / 32;
            uint8_t *c1 = zalloc(cb), *c2 = zalloc(cb);
            uint16_t *s1 = zalloc(sn * 2), *s2 = zalloc(sn * 2);
            for (unsigned bits = 4; bits <= 8; bits += 4) {
                kern_quantize_rows_f16(w, cols, 0, rows, bits, 32, c1, s1, NULL);
                kern_cpu_quantize_f16((enum kern_isa)isa, w, cols, 0, rows, bits, 32, c2, s2);
                cr_assert(memcmp(s1, s2, sn * 2) == 0 && memcmp(c1, c2, cb * bits / 8) == 0,
                          "%s b=%u base 0x%04x", kern_isa_name((enum kern_isa)isa), bits, base);
            }
            free(c1);
            free(c2);
            free(s1);
            free(s2);
        }
    }
    free(w);
}

/* ---- copy, sum, FMA ----------------------------------------------------- */

Test(kern_cpu, copy_sum_and_fma_loop_are_exact) {
    size_t n = (1 << 16) + 64;
    double *a = zalloc(n * sizeof *a), *b = zalloc(n * sizeof *b);
    double want = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)(i % 1000);
        want += a[i];
    }
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        enum kern_isa e = (enum kern_isa)isa;
        if (!kern_isa_supported(e))
            continue;
        /* every multiple of 64 bytes, not only of the unrolled 128 or 256 */
        for (size_t m = 0; m <= 64; m += 8) {
            memset(b, 0xff, n * sizeof *b);
            kern_cpu_copy(e, b, a, m * sizeof *a);
            cr_assert(memcmp(a, b, m * sizeof *a) == 0, "%s copy of %zu doubles", kern_isa_name(e),
                      m);
            cr_assert(b[m] != b[m] || m == n, "%s copy of %zu doubles wrote past the end",
                      kern_isa_name(e), m); /* the NaN poison after it is untouched */
        }
        memset(b, 0xff, n * sizeof *b);
        kern_cpu_copy(e, b, a, n * sizeof *a);
        cr_assert(memcmp(a, b, n * sizeof *a) == 0, "%s copy", kern_isa_name(e));
        for (size_t m = 0; m < 40; m++)
            cr_assert_eq(kern_cpu_sum(e, a, m), m ? (double)(m * (m - 1) / 2) : 0.0,
                         "%s sum of %zu", kern_isa_name(e), m);
        cr_assert_eq(kern_cpu_sum(e, a, n), want, "%s sum", kern_isa_name(e));
        for (uint64_t it = 0; it <= 3000; it += 1500) {
            double got = kern_cpu_fma_loop(e, it, 0.999f, 0.001f);
            double ref = kern_cpu_fma_lanes(e) * kern_cpu_fma_lane_ref(e, it, 0.999f, 0.001f);
            cr_assert_eq(got, ref, "%s fma %llu: %.17g vs %.17g", kern_isa_name(e),
                         (unsigned long long)it, got, ref);
        }
    }
    free(a);
    free(b);
}

/* The portable path's lane reference differs from the fused one, so the
 * check above cannot pass by accident on the wrong arithmetic. */
Test(kern_cpu, fused_and_unfused_references_differ) {
    cr_assert_neq(kern_cpu_fma_lane_ref(KERN_ISA_SCALAR, 3000, 0.999f, 0.001f),
                  kern_cpu_fma_lane_ref(KERN_ISA_AVX2, 3000, 0.999f, 0.001f));
}

/* ---- the self-check ------------------------------------------------------ */

Test(kern_cpu, every_path_passes_its_self_check) {
    for (int isa = 0; isa < KERN_ISA_COUNT; isa++) {
        char err[256] = "";
        if (kern_isa_supported((enum kern_isa)isa))
            cr_assert_eq(kern_cpu_selfcheck((enum kern_isa)isa, err, sizeof err), 0, "%s: %s",
                         kern_isa_name((enum kern_isa)isa), err);
        else
            cr_assert_eq(kern_cpu_selfcheck((enum kern_isa)isa, err, sizeof err), -1);
    }
}

/* The test hook breaks one path's GEMVs: its self-check fails and names
 * the product, the others still pass. */
Test(kern_cpu, the_self_check_catches_a_broken_path) {
    setenv("VRAMLAB_TEST_BREAK_ISA", "scalar", 1);
    char err[256] = "";
    cr_assert_eq(kern_cpu_selfcheck(KERN_ISA_SCALAR, err, sizeof err), -1);
    cr_assert(strstr(err, "GEMV") && strstr(err, "reference"), "%s", err);
    if (kern_isa_best() != KERN_ISA_SCALAR)
        cr_assert_eq(kern_cpu_selfcheck(kern_isa_best(), err, sizeof err), 0, "%s", err);
    cr_assert_eq(kern_isa_lower(KERN_ISA_SCALAR), KERN_ISA_SCALAR);
    cr_assert(kern_isa_supported(kern_isa_lower(kern_isa_best())));
}

/* ---- VRAMLAB_CPU_ISA ---------------------------------------------------- */

Test(kern_cpu_env, forcing_a_path) {
    enum kern_isa isa;
    char err[256] = "";
    unsetenv("VRAMLAB_CPU_ISA");
    cr_assert_eq(kern_isa_from_env(&isa, err, sizeof err), 0);
    cr_assert_eq(isa, kern_isa_best());
    setenv("VRAMLAB_CPU_ISA", "scalar", 1);
    cr_assert_eq(kern_isa_from_env(&isa, err, sizeof err), 0);
    cr_assert_eq(isa, KERN_ISA_SCALAR);
    setenv("VRAMLAB_CPU_ISA", "sse9", 1);
    cr_assert_eq(kern_isa_from_env(&isa, err, sizeof err), -1);
    cr_assert(strstr(err, "VRAMLAB_CPU_ISA=sse9") && strstr(err, "unknown"), "%s", err);
    for (int i = 0; i < KERN_ISA_COUNT; i++) {
        if (kern_isa_supported((enum kern_isa)i))
            continue;
        setenv("VRAMLAB_CPU_ISA", kern_isa_name((enum kern_isa)i), 1);
        cr_assert_eq(kern_isa_from_env(&isa, err, sizeof err), -1);
        cr_assert(strstr(err, "cannot run it") && strstr(err, "scalar"), "%s", err);
    }
    unsetenv("VRAMLAB_CPU_ISA");
}

#ifdef CRITERION_SHIM_MAIN
CRITERION_SHIM_MAIN
#endif
