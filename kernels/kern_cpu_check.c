/*
 * kern_cpu_check.c: the self-check of an instruction-set path (see
 * kern_cpu.h): a few milliseconds of the unit tests' checks, run by the
 * probe before it times anything, so a path that computes wrong (a
 * compiler or CPU erratum, or the AVX-512 path that this project's own
 * machines cannot run) is never the one whose numbers are shown.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_cpu.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"

#define CHECK_RTOL 1e-4 /* of sum |w x|, as tests/test_kern_cpu.c */

static void *zalloc(size_t n) {
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0)
        return NULL;
    memset(p, 0, n ? n : 64);
    return p;
}

static void fill(uint16_t *h, size_t n, double a, uint64_t seed, bool bf) {
    struct kern_rng r;
    kern_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        float f = (float)((kern_rng_uniform(&r) * 2 - 1) * a);
        h[i] = bf ? kern_f32_to_bf16(f) : kern_f32_to_f16(f);
    }
}

/* One GEMV on the path, rows in 8-row shares, against the references. */
static int check_gemv(enum kern_isa isa, enum kern_wfmt fmt, size_t rows, size_t cols, size_t batch,
                      char *err, size_t len) {
    const size_t group = 32;
    unsigned bits = kern_wfmt_bits(fmt);
    bool q = bits < 16;
    uint16_t *x = zalloc(batch * cols * 2), *wh = zalloc(rows * cols * 2);
    uint8_t *codes = zalloc(rows * cols);
    uint16_t *sc = zalloc(kern_quant_scale_count(rows, cols, group) * 2);
    float *y = zalloc(batch * rows * sizeof *y);
    struct kern_gemv g = {
        .fmt = fmt, .rows = rows, .cols = cols, .group = group, .batch = batch, .x = x, .y = y};
    void *s = NULL;
    int rc = -1;
    if (!x || !wh || !codes || !sc || !y) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    fill(x, batch * cols, 1.0, 3 + rows, false);
    fill(wh, rows * cols, 0.05, 5 + cols, fmt == KERN_W_BF16);
    if (q) {
        kern_quantize_f16(wh, rows, cols, bits, group, codes, sc, NULL);
        g.w = codes;
        g.scales = sc;
    } else {
        g.w = wh;
    }
    if (kern_cpu_gemv_check(&g, err, len) != 0 || !(s = zalloc(kern_cpu_gemv_scratch(&g))))
        goto out;
    memset(y, 0xff, batch * rows * sizeof *y);
    kern_cpu_gemv_prepare(isa, &g, s);
    for (size_t r = 0; r < rows; r += 8)
        kern_cpu_gemv_rows(isa, &g, s, r, r + 8 < rows ? r + 8 : rows);
    for (size_t b = 0; b < batch; b++)
        for (size_t r = 0; r < rows; r++) {
            double as, ref;
            const uint16_t *xb = x + b * cols;
            if (fmt == KERN_W_F16)
                ref = kern_gemv_f16_ref_row(wh, r, cols, xb, &as);
            else if (fmt == KERN_W_BF16)
                ref = kern_gemv_bf16_ref_row(wh, r, cols, xb, &as);
            else if (kern_wfmt_a8(fmt))
                ref = kern_gemv_qa8_ref_row(codes, sc, r, cols, bits, group, xb, &as, NULL);
            else
                ref = kern_gemv_q_ref_row(codes, sc, r, cols, bits, group, xb, &as);
            double got = y[b * rows + r];
            if (!(fabs(got - ref) <= CHECK_RTOL * as + 1e-30)) {
                snprintf(err, len,
                         "%s GEMV %zu x %zu batch %zu: y[%zu][%zu] = %.7g, reference %.7g",
                         kern_wfmt_name(fmt), rows, cols, batch, b, r, got, ref);
                goto out;
            }
        }
    rc = 0;
out:
    free(x);
    free(wh);
    free(codes);
    free(sc);
    free(y);
    free(s);
    return rc;
}

/* Quantize and dequantize on the path equal the twins bit for bit, on
 * weights with every kind of FP16 value (NaN, infinities, subnormals). */
static int check_quant(enum kern_isa isa, unsigned bits, char *err, size_t len) {
    const size_t rows = 9, cols = 544, group = 32, n = rows * cols;
    size_t cb = kern_quant_code_bytes(n, bits), sn = kern_quant_scale_count(rows, cols, group);
    uint16_t *w = zalloc(n * 2), *s1 = zalloc(sn * 2), *s2 = zalloc(sn * 2);
    uint16_t *d1 = zalloc(n * 2), *d2 = zalloc(n * 2);
    uint8_t *c1 = zalloc(cb), *c2 = zalloc(cb);
    int rc = -1;
    if (!w || !s1 || !s2 || !d1 || !d2 || !c1 || !c2) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    struct kern_rng r;
    kern_rng_seed(&r, 99 + bits);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = kern_rng_next(&r);
        w[i] = v % 7 == 0 ? (uint16_t)(v >> 16)
                          : kern_f32_to_f16((float)((kern_rng_uniform(&r) * 2 - 1) * 0.1));
    }
    for (size_t i = 64; i < 96; i++)
        w[i] = 0;
    kern_quantize_rows_f16(w, cols, 0, rows, bits, group, c1, s1, NULL);
    memset(c2, 0xa5, cb);
    memset(s2, 0xa5, sn * 2);
    for (size_t k = 0; k < rows; k += 8)
        kern_cpu_quantize_f16(isa, w, cols, k, k + 8 < rows ? k + 8 : rows, bits, group, c2, s2);
    if (memcmp(c1, c2, cb) || memcmp(s1, s2, sn * 2)) {
        snprintf(err, len, "quantize b=%u differs from the twin", bits);
        goto out;
    }
    kern_dequantize_rows_f16(c1, s1, cols, 0, rows, bits, group, d1);
    memset(d2, 0xa5, n * 2);
    for (size_t k = 0; k < rows; k += 8)
        kern_cpu_dequantize_f16(isa, c1, s1, cols, k, k + 8 < rows ? k + 8 : rows, bits, group, d2);
    if (memcmp(d1, d2, n * 2)) {
        snprintf(err, len, "dequantize b=%u differs from the twin", bits);
        goto out;
    }
    rc = 0;
out:
    free(w);
    free(s1);
    free(s2);
    free(d1);
    free(d2);
    free(c1);
    free(c2);
    return rc;
}

/* x's 8-bit codes on the path equal the twin's, bit for bit, on every
 * kind of FP16 value (NaN, infinities, subnormals, an all-zero block). */
static int check_act8(enum kern_isa isa, char *err, size_t len) {
    enum { N = 32 * 40 };
    uint16_t x[N];
    int8_t q1[N], q2[N];
    float d1[N / 32], d2[N / 32];
    struct kern_rng r;
    kern_rng_seed(&r, 77);
    for (size_t i = 0; i < N; i++) {
        uint64_t v = kern_rng_next(&r);
        x[i] = v % 5 == 0 ? (uint16_t)(v >> 16)
                          : kern_f32_to_f16((float)((kern_rng_uniform(&r) * 2 - 1) * 3.0));
    }
    for (size_t i = 64; i < 96; i++)
        x[i] = 0;
    kern_quantize_act8(x, N, q1, d1);
    memset(q2, 0x5a, sizeof q2);
    kern_cpu_quantize_act8(isa, x, N, q2, d2);
    if (memcmp(q1, q2, sizeof q1) || memcmp(d1, d2, sizeof d1)) {
        snprintf(err, len, "x's 8-bit codes differ from the twin's");
        return -1;
    }
    return 0;
}

/* Copy, sum and the FMA loop, exact. */
static int check_stream(enum kern_isa isa, char *err, size_t len) {
    size_t n = 4096 + 8;
    double *a = zalloc(n * sizeof *a), *b = zalloc(n * sizeof *b);
    int rc = -1;
    if (!a || !b) {
        snprintf(err, len, "out of memory");
        goto out;
    }
    double want = 0;
    for (size_t i = 0; i < n; i++)
        want += a[i] = (double)(i % 1000);
    memset(b, 0xff, n * sizeof *b);
    kern_cpu_copy(isa, b, a, n * sizeof *a);
    if (memcmp(a, b, n * sizeof *a)) {
        snprintf(err, len, "copy differs");
        goto out;
    }
    if (kern_cpu_sum(isa, a, n) != want) {
        snprintf(err, len, "sum differs");
        goto out;
    }
    double got = kern_cpu_fma_loop(isa, 500, 0.999f, 0.001f);
    if (got != kern_cpu_fma_lanes(isa) * kern_cpu_fma_lane_ref(isa, 500, 0.999f, 0.001f)) {
        snprintf(err, len, "the FMA loop differs from its reference");
        goto out;
    }
    rc = 0;
out:
    free(a);
    free(b);
    return rc;
}

int kern_cpu_selfcheck(enum kern_isa isa, char *err, size_t len) {
    if (!kern_isa_supported(isa)) {
        snprintf(err, len, "%s cannot run here", kern_isa_name(isa));
        return -1;
    }
    static const size_t shapes[][3] = {{13, 1056, 1}, {7, 1056, 3}, {5, 544, 16}, {9, 1030, 2}};
    for (int f = 0; f < KERN_W_COUNT; f++)
        for (size_t k = 0; k < 4; k++) {
            size_t cols = shapes[k][1];
            if (kern_wfmt_bits((enum kern_wfmt)f) < 16 && cols % 32)
                cols = 1024;
            if (check_gemv(isa, (enum kern_wfmt)f, shapes[k][0], cols, shapes[k][2], err, len))
                return -1;
        }
    if (check_quant(isa, 4, err, len) || check_quant(isa, 8, err, len) ||
        check_act8(isa, err, len))
        return -1;
    return check_stream(isa, err, len);
}
