/*
 * probe_cpu.c: the CPU backend of vramlab-probe, always built.
 *
 * The same tests as the GPU on host memory, with POSIX threads, following
 * STREAM's rules (McCalpin, stream.c v5.10): arrays at least 4x the
 * last-level cache, initialised by the threads that use them (first touch),
 * the first repetition discarded, then 10 samples; the median is reported
 * with the best and the spread. copy and read run with one thread and with
 * all threads. Each sample lasts at least 2 ms (repetitions are batched).
 *
 * GEMV: FP16 storage, widened in registers (bit tricks, no table) 32 at a
 * time, float accumulation in eight lanes (the GPU's arithmetic, another
 * order); checked
 * against float64 references on sampled rows before the numbers count.
 * --quick keeps the rule that matters for a bandwidth figure (the arrays
 * and W at least 4x the last-level cache, up to 512 MiB and 128 MiB) and
 * saves time elsewhere: 5 samples, W 4096 columns wide, W8A16/W4A16 at
 * batch 1 only, a small error lab. The last-level cache is read from sysfs
 * (one instance), where sysconf may report a whole package.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"
#include "kernels/probe.h"
#include "kernels/probe_cpu_info.h"
#include "kernels/probe_pool.h"

#define CPU_SAMPLES      10 /* STREAM: best of 10 after the first */
#define CPU_SAMPLES_QUICK 5 /* --quick: memory-sized arrays, fewer samples */
#define CPU_MIN_SAMPLE_S 2e-3
#define CPU_MAX_THREADS  PROBE_POOL_MAX_THREADS
#define VERIFY_ROWS      48

/* Monotonic time in seconds. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 64-byte aligned allocation, NULL on failure. */
static void *xalloc(size_t bytes) {
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0)
        return NULL;
    return p;
}

static unsigned cpu_samples = CPU_SAMPLES; /* per run: CPU_SAMPLES_QUICK with --quick */

/*
 * Time fn on `active` threads: one discarded run (warm-up, first touch),
 * then cpu_samples samples of k back-to-back runs, k chosen so a sample
 * lasts at least 2 ms. Returns -1 when cancelled.
 */
static int time_it(struct probe_pool *p, unsigned active, probe_par_fn fn, void *ctx,
                   const char *test, struct probe_stats *st) {
    if (probe_cancelled())
        return -1;
    double t0 = now_s();
    probe_pool_run(p, active, fn, ctx);
    double first = now_s() - t0;
    unsigned k = first > 0 ? (unsigned)ceil(CPU_MIN_SAMPLE_S / first) : 1000;
    if (k < 1)
        k = 1;
    if (k > 100000)
        k = 100000;
    double t[CPU_SAMPLES];
    for (unsigned s = 0; s < cpu_samples; s++) {
        if (probe_cancelled())
            return -1;
        t0 = now_s();
        for (unsigned r = 0; r < k; r++)
            probe_pool_run(p, active, fn, ctx);
        t[s] = (now_s() - t0) / k;
        probe_emit_progress(test, (s + 1.0) / cpu_samples);
    }
    probe_stats_summarise(t, cpu_samples, st);
    return 0;
}

/* ---- copy and read ----------------------------------------------------- */

struct stream_ctx {
    double *a, *b;
    size_t n;
    int use_memcpy;
    double partial[CPU_MAX_THREADS * 8]; /* one cache line per thread */
};

/* First-touch initialisation: a[i] = i mod 1000 (exact sums), b poisoned. */
static void stream_init(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->n, 1024, tid, n, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        /* a large first touch takes seconds: stay cancellable */
        if ((i & 0xfffff) == 0 && probe_cancelled())
            return;
        c->a[i] = (double)(i % 1000);
        c->b[i] = NAN;
    }
}

/* Poison b (NaN) over this thread's share. */
static void stream_poison(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->n, 1024, tid, n, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        c->b[i] = NAN;
}

/* b = a over this thread's share. */
static void stream_copy(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->n, 1024, tid, n, &lo, &hi);
    if (c->use_memcpy) {
        memcpy(c->b + lo, c->a + lo, (hi - lo) * sizeof(double));
        return;
    }
    double *restrict dst = c->b;
    const double *restrict src = c->a;
    for (size_t i = lo; i < hi; i++)
        dst[i] = src[i];
}

/* Sum a over this thread's share, four independent accumulators. */
static void stream_read(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->n, 1024, tid, n, &lo, &hi);
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        s0 += c->a[i];
        s1 += c->a[i + 1];
        s2 += c->a[i + 2];
        s3 += c->a[i + 3];
    }
    for (; i < hi; i++)
        s0 += c->a[i];
    c->partial[tid * 8] = (s0 + s1) + (s2 + s3);
}

/* Expected sum of i mod 1000 for i < n. */
static double stream_expected(size_t n) {
    double full = (double)(n / 1000) * 499500.0;
    size_t r = n % 1000;
    return full + (double)r * (double)(r - 1) / 2.0;
}

/* copy (loop and memcpy, the larger reported) and read, 1 and n threads. */
static int run_stream(struct probe_pool *p, const struct probe_opts *o, double llc, bool *bad,
                      const char **code, char *msg, size_t len) {
    /* STREAM's rule, quick or not: each array at least 4x the last-level
     * cache (quick: at least 8 MiB, at most 512 MiB: a bigger cache makes
     * the quick figure partly an in-cache one, which the pane labels) */
    size_t bytes = (size_t)(4 * llc);
    if (o->quick && bytes < ((size_t)8 << 20))
        bytes = (size_t)8 << 20;
    if (o->quick && bytes > ((size_t)512 << 20))
        bytes = (size_t)512 << 20;
    if (!o->quick && bytes < ((size_t)256 << 20))
        bytes = (size_t)256 << 20;
    struct stream_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "out of host memory");
        return -1;
    }
    c->n = bytes / sizeof(double);
    c->a = xalloc(c->n * sizeof(double));
    c->b = xalloc(c->n * sizeof(double));
    if (!c->a || !c->b) {
        free(c->a);
        free(c->b);
        free(c);
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "cannot allocate 2 x %zu MiB of host memory", bytes >> 20);
        return -1;
    }
    probe_pool_run(p, p->n, stream_init, c);
    int rc = 0;
    unsigned counts[2] = {1, p->n};
    for (unsigned ti = 0; ti < 2 && rc == 0; ti++) {
        unsigned nt = counts[ti];
        if (ti == 1 && nt == 1)
            break;
        if (o->want[PROBE_COPY]) {
            struct probe_result best = {0};
            for (int m = 0; m < 2 && rc == 0; m++) {
                c->use_memcpy = m;
                struct probe_result r = {.test = "copy",
                                         .method = m ? "memcpy" : "loop",
                                         .threads = nt,
                                         .cols = c->n,
                                         .bytes = 2.0 * (double)c->n * sizeof(double)};
                probe_pool_run(p, p->n, stream_poison, c);
                if (time_it(p, nt, stream_copy, c, "copy", &r.st) != 0) {
                    rc = -1;
                    break;
                }
                r.verified = memcmp(c->a, c->b, c->n * sizeof(double)) == 0;
                /* the faster method defines C; a failed check always shows */
                if (!best.test ||
                    (best.verified && (!r.verified || r.st.median_s < best.st.median_s)))
                    best = r;
            }
            if (rc == 0) {
                probe_emit_result(&best);
                *bad |= !best.verified;
            }
        }
        if (o->want[PROBE_READ] && rc == 0) {
            struct probe_result r = {.test = "read",
                                     .method = "loop",
                                     .threads = nt,
                                     .cols = c->n,
                                     .bytes = (double)c->n * sizeof(double)};
            if (time_it(p, nt, stream_read, c, "read", &r.st) != 0) {
                rc = -1;
                break;
            }
            double sum = 0;
            for (unsigned t = 0; t < nt; t++)
                sum += c->partial[t * 8];
            r.verified = sum == stream_expected(c->n);
            *bad |= !r.verified;
            probe_emit_result(&r);
        }
    }
    free(c->a);
    free(c->b);
    free(c);
    return rc;
}

/* ---- GEMV and quantization -------------------------------------------- */

struct mat_ctx {
    uint16_t *w, *x, *deq;
    float *y;
    uint8_t *codes;
    uint16_t *scales;
    size_t rows, cols, batch;
    unsigned bits, group;
};

/* Fill W with a cheap deterministic spread of values in [-0.05, 0.05):
 * a hash of the index (Gaussian draws would dominate the run time). */
static void mat_init(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->rows, 8, tid, n, &lo, &hi);
    struct kern_rng r;
    kern_rng_seed(&r, 0x5eed + lo);
    for (size_t i = lo * c->cols; i < hi * c->cols; i++) {
        if ((i & 0xfffff) == 0 && probe_cancelled())
            return;
        c->w[i] = kern_f32_to_f16((float)(kern_rng_uniform(&r) - 0.5) * 0.1f);
    }
}

/* y = W x (FP16) over this thread's rows. */
static void mat_gemv(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->rows, 8, tid, n, &lo, &hi);
    kern_gemv_f16(c->w, c->cols, lo, hi, c->x, c->batch, c->rows, c->y);
}

/* Quantize this thread's rows of W. */
static void mat_quant(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->rows, 8, tid, n, &lo, &hi);
    kern_quantize_rows_f16(c->w, c->cols, lo, hi, c->bits, c->group, c->codes, c->scales, NULL);
}

/* Dequantize this thread's rows to FP16. */
static void mat_dequant(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->rows, 8, tid, n, &lo, &hi);
    kern_dequantize_rows_f16(c->codes, c->scales, c->cols, lo, hi, c->bits, c->group, c->deq);
}

/* y = W_q x over this thread's rows. */
static void mat_gemv_q(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    probe_split(c->rows, 8, tid, n, &lo, &hi);
    kern_gemv_q(c->codes, c->scales, c->cols, lo, hi, c->bits, c->group, c->x, c->batch, c->rows,
                c->y);
}

/* Largest error of y against the float64 reference on sampled rows, in
 * units of the tolerance (<= 1 passes). q selects the quantized product. */
static double gemv_check(const struct mat_ctx *c, bool q) {
    double worst = 0;
    for (size_t b = 0; b < c->batch; b++)
        for (size_t k = 0; k < VERIFY_ROWS; k++) {
            size_t r = k * (c->rows - 1) / (VERIFY_ROWS - 1);
            double as;
            const uint16_t *xb = c->x + b * c->cols;
            double ref =
                q ? kern_gemv_q_ref_row(c->codes, c->scales, r, c->cols, c->bits, c->group, xb, &as)
                  : kern_gemv_f16_ref_row(c->w, r, c->cols, xb, &as);
            double got = c->y[b * c->rows + r];
            double e = fabs(got - ref) / (KERN_GEMV_RTOL * as + 1e-30);
            if (!(e <= worst)) /* NaN (poison left) counts as a failure */
                worst = isnan(e) ? INFINITY : e;
        }
    return worst;
}

/* Check sampled rows of the threaded quantization against a one-thread
 * run of the same rows (bit for bit), and every code against |w - w_hat|
 * <= s/2 (plus the FP16 rounding of the scale). */
static bool quant_check(const struct mat_ctx *c) {
    size_t per_row = c->cols / c->group;
    size_t cb = kern_quant_code_bytes(8 * c->cols, c->bits);
    uint8_t *codes = malloc(cb);
    uint16_t *scales = malloc(8 * per_row * sizeof *scales);
    bool ok = codes && scales;
    for (size_t k = 0; ok && k < 8; k++) {
        size_t r0 = (k * (c->rows - 8) / 7) & ~(size_t)7;
        /* quantize rows r0..r0+8 alone into fresh buffers, at offset 0 */
        kern_quantize_rows_f16(c->w + r0 * c->cols, c->cols, 0, 8, c->bits, c->group, codes, scales,
                               NULL);
        ok = memcmp(codes, c->codes + r0 * c->cols * c->bits / 8, cb) == 0 &&
             memcmp(scales, c->scales + r0 * per_row, 8 * per_row * sizeof *scales) == 0;
        for (size_t i = 0; ok && i < 8 * c->cols; i++) {
            float s = kern_f16_to_f32(scales[i / c->group]);
            float w = kern_f16_to_f32(c->w[r0 * c->cols + i]);
            float e = fabsf(w - (float)kern_quant_get(codes, i, c->bits) * s);
            ok = e <= 0.5f * s * (1.0f + 0x1p-10f) + fabsf(w) * 0x1p-10f;
        }
    }
    free(codes);
    free(scales);
    return ok;
}

/* Check sampled dequantized values against q * s rounded to FP16. */
static bool dequant_check(const struct mat_ctx *c) {
    size_t n = c->rows * c->cols, per_row = c->cols / c->group;
    for (size_t k = 0; k < 4096; k++) {
        size_t i = (size_t)((double)k * (double)(n - 1) / 4095.0);
        size_t r = i / c->cols, col = i % c->cols;
        float s = kern_f16_to_f32(c->scales[r * per_row + col / c->group]);
        if (c->deq[i] != kern_f32_to_f16((float)kern_quant_get(c->codes, i, c->bits) * s))
            return false;
    }
    return true;
}

/* Fill a buffer with NaN bit patterns (poison: an unwritten output fails). */
static void poison(void *p, size_t bytes) {
    memset(p, 0xff, bytes);
}

/* FP16 GEMV, quantize, dequantize, W8A16 and W4A16 GEMV. */
static int run_matrix(struct probe_pool *p, const struct probe_opts *o, double llc, bool *bad,
                      const char **code, char *msg, size_t len) {
    struct mat_ctx c = {0};
    c.rows = 16384;
    c.cols = 16384;
    if (o->quick) {
        /* W at least 4x the last-level cache (up to 128 MiB), so the quick
         * GEMV reads memory, not cache */
        c.cols = 4096;
        for (c.rows = 512; c.rows < 16384 && 2.0 * c.rows * c.cols < 4 * llc;)
            c.rows *= 2;
    }
    /* sized down to fit: W at most an eighth of physical memory */
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    while (c.rows > 1024 && 2.0 * c.rows * c.cols > ram / 8)
        c.rows /= 2;
    c.group = KERN_GROUP_DEFAULT;
    size_t n = c.rows * c.cols;
    const size_t max_batch = 16;
    c.w = xalloc(n * 2);
    c.deq = xalloc(n * 2);
    c.x = xalloc(max_batch * c.cols * 2);
    c.y = xalloc(max_batch * c.rows * sizeof(float));
    c.codes = xalloc(kern_quant_code_bytes(n, 8));
    c.scales = xalloc(kern_quant_scale_count(c.rows, c.cols, c.group) * 2);
    int rc = 0;
    if (!c.w || !c.deq || !c.x || !c.y || !c.codes || !c.scales) {
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "cannot allocate the %zu x %zu matrices", c.rows, c.cols);
        rc = -1;
        goto out;
    }
    probe_pool_run(p, p->n, mat_init, &c);
    struct kern_rng rng;
    kern_rng_seed(&rng, 7);
    for (size_t i = 0; i < max_batch * c.cols; i++)
        c.x[i] = kern_f32_to_f16((float)(kern_rng_uniform(&rng) * 2.0 - 1.0));
    double scale_bytes = (double)kern_quant_scale_count(c.rows, c.cols, c.group) * 2;

    if (o->want[PROBE_GEMV_FP16]) {
        c.batch = 1;
        struct probe_result r = {.test = "gemv-fp16",
                                 .method = "f16",
                                 .threads = p->n,
                                 .batch = 1,
                                 .rows = c.rows,
                                 .cols = c.cols,
                                 .bytes = 2.0 * n + 2.0 * c.cols + 4.0 * c.rows,
                                 .flop = 2.0 * n};
        poison(c.y, c.rows * sizeof(float));
        if (time_it(p, p->n, mat_gemv, &c, "gemv-fp16", &r.st) != 0)
            goto cancelled;
        r.max_error = gemv_check(&c, false);
        r.verified = r.max_error <= 1.0;
        *bad |= !r.verified;
        probe_emit_result(&r);
    }
    unsigned qbits[] = {4, 8};
    for (unsigned qi = 0; qi < 2; qi++) {
        c.bits = qbits[qi];
        double code_bytes = (double)kern_quant_code_bytes(n, c.bits);
        if (o->want[PROBE_QUANTIZE]) {
            struct probe_result r = {.test = "quantize",
                                     .method = "twin",
                                     .threads = p->n,
                                     .bits = c.bits,
                                     .group = c.group,
                                     .rows = c.rows,
                                     .cols = c.cols,
                                     .bytes = 2.0 * n + code_bytes + scale_bytes};
            poison(c.codes, (size_t)code_bytes);
            poison(c.scales, (size_t)scale_bytes);
            if (time_it(p, p->n, mat_quant, &c, "quantize", &r.st) != 0)
                goto cancelled;
            r.verified = quant_check(&c);
            *bad |= !r.verified;
            probe_emit_result(&r);
        } else {
            probe_pool_run(p, p->n, mat_quant, &c);
        }
        if (o->want[PROBE_DEQUANTIZE]) {
            struct probe_result r = {.test = "dequantize",
                                     .method = "twin",
                                     .threads = p->n,
                                     .bits = c.bits,
                                     .group = c.group,
                                     .rows = c.rows,
                                     .cols = c.cols,
                                     .bytes = code_bytes + scale_bytes + 2.0 * n};
            poison(c.deq, n * 2);
            if (time_it(p, p->n, mat_dequant, &c, "dequantize", &r.st) != 0)
                goto cancelled;
            r.verified = dequant_check(&c);
            *bad |= !r.verified;
            probe_emit_result(&r);
        }
        enum probe_test_id id = c.bits == 8 ? PROBE_W8A16 : PROBE_W4A16;
        if (!o->want[id])
            continue;
        /* the twins re-read x per vector: 1, 4 and 16 show the trend in a
         * few seconds each (the GPU runs 1, 2, 4, 8, 16) */
        size_t batches_full[] = {1, 4, 16}, batches_quick[] = {1};
        size_t *batches = o->quick ? batches_quick : batches_full;
        size_t nbatch = o->quick ? 1 : 3;
        for (size_t bi = 0; bi < nbatch; bi++) {
            c.batch = batches[bi];
            struct probe_result r = {.test = probe_tests[id].id,
                                     .method = "twin",
                                     .threads = p->n,
                                     .bits = c.bits,
                                     .group = c.group,
                                     .batch = (unsigned)c.batch,
                                     .rows = c.rows,
                                     .cols = c.cols,
                                     .bytes = code_bytes + scale_bytes + 2.0 * c.cols * c.batch +
                                              4.0 * c.rows * c.batch,
                                     .flop = 2.0 * n * c.batch};
            poison(c.y, c.batch * c.rows * sizeof(float));
            if (time_it(p, p->n, mat_gemv_q, &c, probe_tests[id].id, &r.st) != 0)
                goto cancelled;
            r.max_error = gemv_check(&c, true);
            r.verified = r.max_error <= 1.0;
            *bad |= !r.verified;
            probe_emit_result(&r);
        }
    }
    goto out;
cancelled:
    rc = -1;
out:
    free(c.w);
    free(c.deq);
    free(c.x);
    free(c.y);
    free(c.codes);
    free(c.scales);
    return rc;
}

/* The error lab: per b, per group of 32 and per matrix, on Gaussian
 * weights and on weights with planted 13-sigma outliers. */
static int run_error_lab(const struct probe_opts *o, const char **code, char *msg, size_t len) {
    size_t cols = 1024, rows = o->quick ? 32 : 256;
    size_t n = rows * cols;
    float *w = xalloc(n * sizeof *w);
    uint8_t *codes = xalloc(kern_quant_code_bytes(n, 8));
    uint16_t *scales = xalloc(kern_quant_scale_count(rows, cols, 32) * 2);
    if (!w || !codes || !scales) {
        free(w);
        free(codes);
        free(scales);
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "out of host memory (error lab)");
        return -1;
    }
    const char *kinds[2] = {"gaussian", "outliers"};
    unsigned step = 0;
    for (int k = 0; k < 2; k++) {
        kern_weights_fill(w, n, PROBE_LAB_SD, k ? PROBE_LAB_OUTLIERS : 0, 1234);
        for (unsigned bits = KERN_QBITS_MAX; bits >= KERN_QBITS_MIN; bits--) {
            unsigned groups[2] = {32, KERN_GROUP_MATRIX};
            for (int g = 0; g < 2; g++) {
                if (probe_cancelled())
                    goto out;
                struct kern_qstats st = {0};
                kern_quantize_f32(w, rows, cols, bits, groups[g], codes, scales, &st);
                struct probe_error_row e = {.bits = bits,
                                            .group = groups[g],
                                            .weights = kinds[k],
                                            .n = n,
                                            .relative_error = kern_qstats_rel_error(&st),
                                            .zero_fraction = kern_qstats_zero_fraction(&st),
                                            .outlier_ratio = kern_qstats_outlier_ratio(&st),
                                            .verified = true};
                probe_emit_error_row("cpu", &e);
                probe_emit_progress("error", ++step / 28.0);
            }
        }
    }
out:
    free(w);
    free(codes);
    free(scales);
    return 0;
}

/* Run the selected tests on the host. */
static int cpu_run(const struct probe_opts *o, const char **code, char *msg, size_t len) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nt = o->threads ? o->threads : (online > 0 ? (unsigned)online : 1);
    if (nt > CPU_MAX_THREADS)
        nt = CPU_MAX_THREADS;
    cpu_samples = o->quick ? CPU_SAMPLES_QUICK : CPU_SAMPLES;
    struct probe_device d = {.backend = "cpu"};
    probe_cpu_name(d.name, sizeof d.name);
    d.memory_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    d.compute_units = nt;
    d.l2_bytes = probe_llc_bytes();
#if defined(__x86_64__)
    snprintf(d.arch, sizeof d.arch, "x86_64");
#elif defined(__aarch64__)
    snprintf(d.arch, sizeof d.arch, "aarch64");
#endif
    probe_emit_device(&d);

    struct probe_pool *p = calloc(1, sizeof *p);
    if (!p || probe_pool_init(p, nt) != 0) {
        /* started workers wait on a barrier that never fills; the process
         * exits right after the error event, so p is left to them */
        *code = PROBE_ERR_INTERNAL;
        snprintf(msg, len, "cannot start %u threads: %s", nt, strerror(errno));
        return -1;
    }
    bool bad = false;
    int rc = 0;
    if (o->want[PROBE_COPY] || o->want[PROBE_READ])
        rc = run_stream(p, o, d.l2_bytes, &bad, code, msg, len);
    if (rc == 0 && (o->want[PROBE_GEMV_FP16] || o->want[PROBE_QUANTIZE] ||
                    o->want[PROBE_DEQUANTIZE] || o->want[PROBE_W8A16] || o->want[PROBE_W4A16]))
        rc = run_matrix(p, o, d.l2_bytes, &bad, code, msg, len);
    if (o->want[PROBE_GEMM])
        probe_emit_skip("gemm", "the GEMM sweep needs cuBLAS (CUDA backend only)");
    if (rc == 0 && o->want[PROBE_ERROR])
        rc = run_error_lab(o, code, msg, len);
    probe_pool_destroy(p);
    free(p);
    if (rc == 0 && bad) {
        *code = PROBE_ERR_VERIFY;
        snprintf(msg, len, "a kernel disagreed with its CPU reference (see verified:false)");
        return -1;
    }
    return rc;
}

const struct probe_backend probe_backend_cpu = {"cpu", cpu_run, NULL};
