/*
 * probe_cpu.c: the CPU backend of vramlab-probe, always built.
 *
 * The same tests as the GPU on host memory, timed on the fast kernels of
 * kern_cpu.h (the path VRAMLAB_CPU_ISA forces, else the widest this CPU
 * runs), each checked against the twins or the float64 references before
 * its number counts. STREAM's rules (McCalpin, stream.c v5.10): arrays at
 * least 4x the last-level cache, placed by first touch by the threads that
 * use them (threads pinned, one per CPU), a discarded first repetition,
 * then 10 samples (5 with --quick), each at least 2 ms (repetitions are
 * batched); the median is reported with the best and the spread.
 *
 * copy: our streaming-store kernel and memcpy, the faster defines C; a
 * plain STREAM-style loop runs beside them on the same arrays and is
 * reported as the copy's reference_bytes_per_s. fma-peak: the cores'
 * FP32 FMA rate (the CPU's compute roof). GEMVs: FP16 and BF16, W8A16 and
 * W4A16 (FP16 scale per group of 32), and W8A8 / W4A8 (the same weights,
 * x quantized to 8 bits per block of 32 and integer dot products: what
 * llama.cpp and the other CPU runtimes run) at batch 1, 4 and 16 (--quick:
 * batch 1), W 16384 x 16384 (--quick: 4096 columns, rows to 4x the cache).
 * Every GEMV's result also carries its weights' rate (weights_per_s and
 * weight_bytes_per_s), the figure a runtime's decode speed follows.
 *
 * Cancellation: the kernels run in pieces of a few MB (under a
 * millisecond each on any machine that runs us), and every piece first
 * looks at probe_cancelled(), so a signal stops the run within a piece.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kern_cpu.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"
#include "kernels/probe.h"
#include "kernels/probe_cpu_info.h"
#include "kernels/probe_pool.h"

#define CPU_SAMPLES       10 /* STREAM: best of 10 after the first */
#define CPU_SAMPLES_QUICK 5  /* --quick: memory-sized arrays, fewer samples */
#define CPU_MIN_SAMPLE_S  2e-3
#define CPU_MAX_THREADS   PROBE_POOL_MAX_THREADS
#define VERIFY_ROWS       48
#define PIECE_BYTES       ((size_t)2 << 20) /* work between two cancellation checks */
#define MAX_BATCHES       3

static unsigned cpu_samples = CPU_SAMPLES; /* per run: CPU_SAMPLES_QUICK with --quick */
static enum kern_isa cpu_isa = KERN_ISA_SCALAR;

/* Monotonic time in seconds. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 64-byte aligned allocation, NULL on failure. Large buffers are 2 MiB
 * aligned and asked to live on transparent huge pages where the kernel
 * offers them (THP "madvise" mode is common): fewer page faults at first
 * touch, fewer TLB misses while streaming rows, and a 512 MiB buffer is
 * freed in a few ms instead of ~70 ms, which keeps a cancelled run's exit
 * prompt. The STREAM-style reference runs on the same arrays. */
static void *xalloc(size_t bytes) {
    void *p = NULL;
    size_t align = bytes >= ((size_t)8 << 20) ? ((size_t)2 << 20) : 64;
    if (posix_memalign(&p, align, bytes ? bytes : 64) != 0)
        return NULL;
#if defined(MADV_HUGEPAGE)
    if (align > 64)
        (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

/* ---- the run's plan: steps, progress and time left ---------------------- */

#define PLAN_MAX 64
static struct {
    double weight[PLAN_MAX]; /* estimated seconds of each step */
    unsigned n, done;
    double done_weight, t0;
} plan;

/* Add a step of about `bytes` moved and `flop` computed per repetition. */
static void plan_add(double bytes, double flop) {
    if (plan.n < PLAN_MAX) /* a rough machine: 10 GB/s, 50 GFLOP/s, + setup */
        plan.weight[plan.n++] = (cpu_samples + 2.0) * (bytes / 10e9 + flop / 50e9) + 0.01;
}

/* Start step i (0-based). */
static void plan_begin(void) {
    probe_progress_now.index = plan.done + 1;
}

/* Step done: the time left scales the remaining estimates by how the
 * finished ones compared with their estimates. */
static void plan_end(void) {
    if (plan.done < plan.n)
        plan.done_weight += plan.weight[plan.done++];
    double left = 0;
    for (unsigned i = plan.done; i < plan.n; i++)
        left += plan.weight[i];
    double el = now_s() - plan.t0;
    probe_progress_now.eta_s = plan.done_weight > 0 ? left * el / plan.done_weight : left;
}

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
    if (probe_cancelled())
        return -1;
    probe_stats_summarise(t, cpu_samples, st);
    return 0;
}

/* ---- copy and read ----------------------------------------------------- */

enum copy_method { COPY_REFERENCE, COPY_MEMCPY, COPY_KERNEL };

struct stream_ctx {
    double *a, *b;
    size_t n;
    enum copy_method method;
    double partial[CPU_MAX_THREADS * 8]; /* one cache line per thread */
};

/* This thread's share of the arrays, in whole cache lines. */
static void stream_share(const struct stream_ctx *c, unsigned tid, unsigned n, size_t *lo,
                         size_t *hi) {
    probe_split(c->n, 1024, tid, n, lo, hi);
}

/* First-touch initialisation: a[i] = i mod 1000 (exact sums), b poisoned. */
static void stream_init(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi;
    stream_share(c, tid, n, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        /* a large first touch takes seconds: stay cancellable */
        if ((i & 0x3ffff) == 0 && probe_cancelled())
            return;
        c->a[i] = (double)(i % 1000);
        c->b[i] = NAN;
    }
}

/* Poison b (NaN) over this thread's share. */
static void stream_poison(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi;
    stream_share(c, tid, n, &lo, &hi);
    for (size_t i = lo; i < hi; i++)
        c->b[i] = NAN;
}

/* STREAM's copy kernel as STREAM writes it: a plain loop. */
static void reference_copy(double *restrict dst, const double *restrict src, size_t n) {
    for (size_t j = 0; j < n; j++)
        dst[j] = src[j];
}

/* b = a over this thread's share, in pieces. */
static void stream_copy(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi, piece = PIECE_BYTES / sizeof(double);
    stream_share(c, tid, n, &lo, &hi);
    for (size_t i = lo; i < hi; i += piece) {
        if (probe_cancelled())
            return;
        size_t m = hi - i < piece ? hi - i : piece;
        switch (c->method) {
        case COPY_REFERENCE:
            reference_copy(c->b + i, c->a + i, m);
            break;
        case COPY_MEMCPY:
            memcpy(c->b + i, c->a + i, m * sizeof(double));
            break;
        case COPY_KERNEL:
            kern_cpu_copy(cpu_isa, c->b + i, c->a + i, m * sizeof(double));
            break;
        }
    }
}

/* Sum a over this thread's share. */
static void stream_read(void *vctx, unsigned tid, unsigned n) {
    struct stream_ctx *c = vctx;
    size_t lo, hi, piece = PIECE_BYTES / sizeof(double);
    stream_share(c, tid, n, &lo, &hi);
    double s = 0;
    for (size_t i = lo; i < hi; i += piece) {
        if (probe_cancelled())
            return;
        s += kern_cpu_sum(cpu_isa, c->a + i, hi - i < piece ? hi - i : piece);
    }
    c->partial[tid * 8] = s;
}

/* Expected sum of i mod 1000 for i < n. */
static double stream_expected(size_t n) {
    double full = (double)(n / 1000) * 499500.0;
    size_t r = n % 1000;
    return full + (double)r * (double)(r - 1) / 2.0;
}

/* Bytes of each copy/read array. */
static size_t stream_bytes(const struct probe_opts *o, double llc) {
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
    return bytes & ~(size_t)65535;
}

/* One copy result: the kernel and memcpy (the faster), the reference beside. */
static int stream_copy_test(struct probe_pool *p, struct stream_ctx *c, unsigned nt, bool *bad) {
    struct probe_result best = {0};
    double ref = 0;
    const enum copy_method order[3] = {COPY_KERNEL, COPY_MEMCPY, COPY_REFERENCE};
    for (int m = 0; m < 3; m++) {
        c->method = order[m];
        struct probe_result r = {.test = "copy",
                                 .method =
                                     order[m] == COPY_MEMCPY ? "memcpy" : kern_isa_name(cpu_isa),
                                 .threads = nt,
                                 .cols = c->n,
                                 .bytes = 2.0 * (double)c->n * sizeof(double),
                                 .isa = kern_isa_name(cpu_isa)};
        probe_pool_run(p, p->n, stream_poison, c);
        if (time_it(p, nt, stream_copy, c, "copy", &r.st) != 0)
            return -1;
        r.verified = memcmp(c->a, c->b, c->n * sizeof(double)) == 0;
        if (order[m] == COPY_REFERENCE) {
            ref = r.verified ? r.bytes / r.st.median_s : 0;
            *bad |= !r.verified;
            continue;
        }
        /* the faster method defines C; a failed check always shows */
        if (!best.test || (best.verified && (!r.verified || r.st.median_s < best.st.median_s)))
            best = r;
    }
    best.reference_bytes_per_s = ref;
    probe_emit_result(&best);
    *bad |= !best.verified;
    return 0;
}

/* copy and read, 1 and n threads. */
static int run_stream(struct probe_pool *p, const struct probe_opts *o, double llc, bool *bad,
                      const char **code, char *msg, size_t len) {
    size_t bytes = stream_bytes(o, llc);
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
    int rc = probe_cancelled() ? -1 : 0;
    unsigned counts[2] = {1, p->n};
    for (unsigned ti = 0; ti < 2 && rc == 0; ti++) {
        unsigned nt = counts[ti];
        if (ti == 1 && nt == 1)
            break;
        if (o->want[PROBE_COPY]) {
            plan_begin();
            rc = stream_copy_test(p, c, nt, bad);
            plan_end();
        }
        if (o->want[PROBE_READ] && rc == 0) {
            plan_begin();
            struct probe_result r = {.test = "read",
                                     .method = kern_isa_name(cpu_isa),
                                     .threads = nt,
                                     .cols = c->n,
                                     .bytes = (double)c->n * sizeof(double),
                                     .isa = kern_isa_name(cpu_isa)};
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
            plan_end();
        }
    }
    free(c->a);
    free(c->b);
    free(c);
    return rc;
}

/* ---- fma-peak ------------------------------------------------------------ */

#define FMA_A 0.999f
#define FMA_B 0.001f

struct fma_ctx {
    uint64_t iters;
    double out[CPU_MAX_THREADS * 8];
};

static void fma_run(void *vctx, unsigned tid, unsigned n) {
    struct fma_ctx *c = vctx;
    (void)n;
    c->out[tid * 8] = kern_cpu_fma_loop(cpu_isa, c->iters, FMA_A, FMA_B);
}

/* The FMA rate on one thread and on all: rounds sized to about 1 ms;
 * every thread's sums equal to the one-value-at-a-time reference. */
static int run_fma(struct probe_pool *p, bool *bad) {
    struct fma_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    double t0 = now_s();
    c->iters = 20000;
    fma_run(c, 0, 1);
    double el = now_s() - t0;
    c->iters = el > 0 ? (uint64_t)(20000 * 1e-3 / el) : 200000;
    if (c->iters < 1000)
        c->iters = 1000;
    if (c->iters > 50000000)
        c->iters = 50000000;
    double ref =
        kern_cpu_fma_lanes(cpu_isa) * kern_cpu_fma_lane_ref(cpu_isa, c->iters, FMA_A, FMA_B);
    double lanes = kern_cpu_fma_lanes(cpu_isa);
    unsigned counts[2] = {1, p->n};
    int rc = 0;
    for (unsigned ti = 0; ti < 2 && rc == 0; ti++) {
        unsigned nt = counts[ti];
        if (ti == 1 && nt == 1)
            break;
        plan_begin();
        struct probe_result r = {.test = "fma-peak",
                                 .method = kern_isa_name(cpu_isa),
                                 .threads = nt,
                                 .bytes = NAN,
                                 .flop = 2.0 * (double)c->iters * KERN_CPU_FMA_CHAINS * lanes * nt,
                                 .isa = kern_isa_name(cpu_isa)};
        for (unsigned t = 0; t < nt; t++)
            c->out[t * 8] = NAN;
        if (time_it(p, nt, fma_run, c, "fma-peak", &r.st) != 0) {
            rc = -1;
            break;
        }
        r.verified = true;
        for (unsigned t = 0; t < nt; t++)
            r.verified &= c->out[t * 8] == ref;
        *bad |= !r.verified;
        probe_emit_result(&r);
        plan_end();
    }
    free(c);
    return rc;
}

/* ---- GEMV and quantization -------------------------------------------- */

struct mat_ctx {
    uint16_t *w, *x, *deq; /* deq: BF16 weights for gemv-bf16, then dequantize's output */
    float *y;
    uint8_t *codes;
    uint16_t *scales;
    size_t rows, cols;
    unsigned bits, group;
    double llc;      /* last-level cache bytes (one instance) */
    bool prepared;   /* the scratch holds this GEMV's widened x already */
    unsigned repeat; /* passes over the rows a call (the in-cache slice); 0: 1 */
    struct kern_gemv g;
    void *scratch[CPU_MAX_THREADS];
    struct probe_steal steal; /* the GEMV's rows: own share first, then the others' */
};

/* This thread's rows, in units of KERN_CPU_ROW_ALIGN (16) rows: a 4-bit
 * row pair ends on a byte, and no two threads write one cache line of y. */
static void mat_share(const struct mat_ctx *c, unsigned tid, unsigned n, size_t *lo, size_t *hi) {
    probe_split(c->rows, KERN_CPU_ROW_ALIGN, tid, n, lo, hi);
}

/* Rows per piece: about PIECE_BYTES of FP16 weights, a multiple of 8. */
static size_t mat_piece(const struct mat_ctx *c) {
    size_t r = PIECE_BYTES / (2 * c->cols);
    r &= ~(size_t)7;
    return r ? r : 8;
}

/* A cheap deterministic weight (a hash of its index): sign, exponent and
 * mantissa drawn so |w| is in [2^-7, 2^-3) - never zero, no table, no
 * division: the fill of 512 MiB takes a fraction of a second. */
static inline uint32_t hash32(uint64_t i) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull;
    z ^= z >> 29;
    z *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(z >> 32);
}

/* Fill W (FP16) over this thread's rows, touching it first. */
static void mat_init(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    mat_share(c, tid, n, &lo, &hi);
    for (size_t r = lo; r < hi; r++) {
        if ((r & 63) == 0 && probe_cancelled())
            return;
        uint16_t *w = c->w + r * c->cols;
        for (size_t j = 0; j < c->cols; j++) {
            uint32_t h = hash32(r * c->cols + j);
            w[j] = (uint16_t)((h & 0x8000u) | ((8u + ((h >> 11) & 3u)) << 10) | (h & 0x3ffu));
        }
    }
}

/* Fill deq with BF16 weights of the same spread, and touch codes/scales. */
static void mat_init_bf16(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi;
    mat_share(c, tid, n, &lo, &hi);
    for (size_t r = lo; r < hi; r++) {
        if ((r & 63) == 0 && probe_cancelled())
            return;
        uint16_t *w = c->deq + r * c->cols;
        for (size_t j = 0; j < c->cols; j++) {
            uint32_t h = hash32(~(r * c->cols + j));
            w[j] = (uint16_t)((h & 0x8000u) | ((120u + ((h >> 11) & 3u)) << 7) | (h & 0x7fu));
        }
    }
}

/* y = W x in pieces (x widened once per call): each thread its own
 * share's pieces first, then what is left of the others' (a thread slowed
 * by a busy core is helped); the in-cache slice keeps each thread on its
 * share, in its own cache. */
static void mat_gemv(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi, piece = mat_piece(c);
    if (!c->prepared) /* the in-cache slice reuses the x its full run widened */
        kern_cpu_gemv_prepare(cpu_isa, &c->g, c->scratch[tid]);
    if (!c->repeat) {
        while (probe_steal_next(&c->steal, tid, &lo, &hi)) {
            if (probe_cancelled())
                break; /* the others finish their pieces and stop too */
            kern_cpu_gemv_rows(cpu_isa, &c->g, c->scratch[tid], lo, hi);
        }
        probe_steal_done(&c->steal);
        return;
    }
    mat_share(c, tid, n, &lo, &hi);
    for (unsigned k = 0; k < c->repeat; k++)
        for (size_t r = lo; r < hi; r += piece) {
            if (probe_cancelled())
                return;
            kern_cpu_gemv_rows(cpu_isa, &c->g, c->scratch[tid], r, hi - r < piece ? hi : r + piece);
        }
}

/* Quantize this thread's rows of W. */
static void mat_quant(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi, piece = mat_piece(c);
    mat_share(c, tid, n, &lo, &hi);
    for (size_t r = lo; r < hi; r += piece) {
        if (probe_cancelled())
            return;
        size_t e = hi - r < piece ? hi : r + piece;
        if (kern_cpu_quant_fast(c->bits, c->group, c->cols))
            kern_cpu_quantize_f16(cpu_isa, c->w, c->cols, r, e, c->bits, c->group, c->codes,
                                  c->scales);
        else
            kern_quantize_rows_f16(c->w, c->cols, r, e, c->bits, c->group, c->codes, c->scales,
                                   NULL);
    }
}

/* Dequantize this thread's rows to FP16. */
static void mat_dequant(void *vctx, unsigned tid, unsigned n) {
    struct mat_ctx *c = vctx;
    size_t lo, hi, piece = mat_piece(c);
    mat_share(c, tid, n, &lo, &hi);
    for (size_t r = lo; r < hi; r += piece) {
        if (probe_cancelled())
            return;
        size_t e = hi - r < piece ? hi : r + piece;
        if (kern_cpu_quant_fast(c->bits, c->group, c->cols))
            kern_cpu_dequantize_f16(cpu_isa, c->codes, c->scales, c->cols, r, e, c->bits, c->group,
                                    c->deq);
        else
            kern_dequantize_rows_f16(c->codes, c->scales, c->cols, r, e, c->bits, c->group, c->deq);
    }
}

/* Largest error of y against the float64 reference on sampled rows, in
 * units of the tolerance (<= 1 passes). W8A8 / W4A8: against the float64
 * A8 product (x's 8-bit codes) within KERN_GEMV_RTOL, and against the A16
 * product of the same weights within what quantizing x allows (half a
 * code step of each block of x times the block's sum |w|, kern_quant.h):
 * the larger of the two. */
static double gemv_check(const struct mat_ctx *c) {
    const struct kern_gemv *g = &c->g;
    double worst = 0;
    for (size_t b = 0; b < g->batch; b++)
        for (size_t k = 0; k < VERIFY_ROWS; k++) {
            size_t r = k * (c->rows - 1) / (VERIFY_ROWS - 1);
            double as, ref;
            const uint16_t *xb = c->x + b * c->cols;
            double got = c->y[b * c->rows + r], e = 0;
            if (g->fmt == KERN_W_F16)
                ref = kern_gemv_f16_ref_row(c->w, r, c->cols, xb, &as);
            else if (g->fmt == KERN_W_BF16)
                ref = kern_gemv_bf16_ref_row(c->deq, r, c->cols, xb, &as);
            else if (kern_wfmt_a8(g->fmt)) {
                double bound, as16;
                ref = kern_gemv_qa8_ref_row(c->codes, c->scales, r, c->cols, c->bits, c->group, xb,
                                            &as, &bound);
                double r16 = kern_gemv_q_ref_row(c->codes, c->scales, r, c->cols, c->bits,
                                                 c->group, xb, &as16);
                e = fabs(got - r16) / (bound + KERN_GEMV_RTOL * as16 + 1e-30);
            } else
                ref = kern_gemv_q_ref_row(c->codes, c->scales, r, c->cols, c->bits, c->group, xb,
                                          &as);
            double e8 = fabs(got - ref) / (KERN_GEMV_RTOL * as + 1e-30);
            e = isnan(e) || isnan(e8) ? NAN : e > e8 ? e : e8;
            if (!(e <= worst)) /* NaN (poison left) counts as a failure */
                worst = isnan(e) ? INFINITY : e;
        }
    return worst;
}

/* The first row of sampled 8-row block k of 8 (the blocks the checks read). */
static size_t sample_block(const struct mat_ctx *c, size_t k) {
    return (k * (c->rows - 8) / 7) & ~(size_t)7;
}

/* Sampled 8-row blocks of the threaded quantization equal a one-thread
 * run of the twin on the same rows, bit for bit (codes and scales). */
static bool quant_check(const struct mat_ctx *c) {
    size_t per_row = c->cols / c->group;
    size_t cb = kern_quant_code_bytes(8 * c->cols, c->bits);
    uint8_t *codes = malloc(cb);
    uint16_t *scales = malloc(8 * per_row * sizeof *scales);
    bool ok = codes && scales;
    for (size_t k = 0; ok && k < 8; k++) {
        size_t r0 = sample_block(c, k);
        kern_quantize_rows_f16(c->w + r0 * c->cols, c->cols, 0, 8, c->bits, c->group, codes, scales,
                               NULL);
        ok = memcmp(codes, c->codes + r0 * c->cols * c->bits / 8, cb) == 0 &&
             memcmp(scales, c->scales + r0 * per_row, 8 * per_row * sizeof *scales) == 0;
    }
    free(codes);
    free(scales);
    return ok;
}

/* Sampled 8-row blocks of the dequantized matrix equal the twin's. */
static bool dequant_check(const struct mat_ctx *c) {
    uint16_t *out = malloc(8 * c->cols * sizeof *out);
    bool ok = out != NULL;
    size_t per_row = c->cols / c->group;
    for (size_t k = 0; ok && k < 8; k++) {
        size_t r0 = sample_block(c, k);
        kern_dequantize_rows_f16(c->codes + r0 * c->cols * c->bits / 8, c->scales + r0 * per_row,
                                 c->cols, 0, 8, c->bits, c->group, out);
        ok = memcmp(out, c->deq + r0 * c->cols, 8 * c->cols * sizeof *out) == 0;
    }
    free(out);
    return ok;
}

/* Fill a buffer with NaN bit patterns (poison: an unwritten output fails). */
static void poison(void *p, size_t bytes) {
    memset(p, 0xff, bytes);
}

/* Poison the sampled blocks of the quantized outputs (codes and scales,
 * or the dequantized FP16): the checks read exactly these, so a kernel
 * that leaves them unwritten fails; the rest is not rewritten twice. */
static void poison_samples(const struct mat_ctx *c, bool dequant) {
    size_t per_row = c->cols / c->group;
    for (size_t k = 0; k < 8; k++) {
        size_t r0 = sample_block(c, k);
        if (dequant) {
            poison(c->deq + r0 * c->cols, 8 * c->cols * sizeof *c->deq);
        } else {
            poison(c->codes + r0 * c->cols * c->bits / 8,
                   kern_quant_code_bytes(8 * c->cols, c->bits));
            poison(c->scales + r0 * per_row, 8 * per_row * sizeof *c->scales);
        }
    }
}

/* The matrix's shape for this run: 16384 x 16384 (the probe's W), with
 * --quick 4096 columns and rows enough that every stream timed, the
 * packed 4-bit codes included, is at least 4x the last-level cache (up to
 * the full 16384 rows; a cache too large for that is labelled "in cache"
 * by the reader). */
static void mat_shape(const struct probe_opts *o, double llc, size_t *rows, size_t *cols) {
    *rows = 16384;
    *cols = 16384;
    if (o->quick) {
        *cols = 4096;
        for (*rows = 512; *rows < 65536 && 0.5 * *rows * *cols < 4 * llc;)
            *rows *= 2;
        if (*rows > 16384) { /* the same weights, 16384 columns wide */
            *rows /= 4;
            *cols *= 4;
        }
    }
    /* sized down to fit: W at most an eighth of physical memory */
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    while (*rows > 1024 && 2.0 * *rows * *cols > ram / 8)
        *rows /= 2;
}

/* The batches a GEMV runs at. */
static size_t gemv_batches(const struct probe_opts *o, size_t *b) {
    if (o->n_batches > 0) { /* --batches */
        for (unsigned i = 0; i < o->n_batches && i < MAX_BATCHES; i++)
            b[i] = o->batches[i];
        return o->n_batches < MAX_BATCHES ? o->n_batches : MAX_BATCHES;
    }
    b[0] = 1;
    if (o->quick)
        return 1;
    b[1] = 4;
    b[2] = 16;
    return MAX_BATCHES;
}

/* What bounds a GEMV: the same kernel on a slice of W that stays in each
 * core's L2 (about 192 KiB of weights a thread, so x's share fits beside
 * it), run 64 times a call so the threads' start and finish cost nothing,
 * x already widened by the full-size run (same x, batch and format). When
 * memory is no slower a source than the cache (within 15%), the cores set
 * the rate, not DRAM: the note says so with the in-cache figure. Returns
 * whether a note was written. */
static bool in_cache_note(struct probe_pool *p, struct mat_ctx *c, struct probe_result *r,
                          char *note, size_t len) {
    double wrow = r->bytes / (double)c->rows; /* bytes a row, x and y shares included */
    size_t sub = (size_t)((192 << 10) / wrow) * p->n;
    sub &= ~(size_t)7;
    if (sub < 8 * p->n || sub >= c->rows / 4)
        return false; /* W is already (nearly) in cache, or rows are huge */
    struct kern_gemv whole = c->g;
    size_t rows = c->rows;
    c->g.rows = sub;
    c->rows = sub;
    struct probe_stats st;
    unsigned saved = cpu_samples;
    cpu_samples = CPU_SAMPLES_QUICK;
    c->prepared = true;
    c->repeat = 64;
    int rc = time_it(p, p->n, mat_gemv, c, r->test, &st);
    c->prepared = false;
    c->repeat = 0;
    cpu_samples = saved;
    c->g = whole;
    c->rows = rows;
    if (rc != 0 || !(st.median_s > 0))
        return false;
    double dram = r->bytes / r->st.median_s, cache = 64.0 * wrow * (double)sub / st.median_s;
    if (dram < 0.85 * cache)
        return false;
    snprintf(note, len, "bound by the cores: %.3g GB/s from cache", cache / 1e9);
    r->in_cache_bytes_per_s = cache;
    return true;
}

/* Time and check one GEMV at each batch. */
static int run_gemv(struct probe_pool *p, const struct probe_opts *o, struct mat_ctx *c,
                    enum probe_test_id id, enum kern_wfmt fmt, bool *bad) {
    size_t batches[MAX_BATCHES], nb = gemv_batches(o, batches);
    size_t n = c->rows * c->cols;
    double wbytes = fmt == KERN_W_F16 || fmt == KERN_W_BF16
                        ? 2.0 * n
                        : (double)kern_quant_code_bytes(n, c->bits) +
                              2.0 * (double)kern_quant_scale_count(c->rows, c->cols, c->group);
    for (size_t bi = 0; bi < nb; bi++) {
        plan_begin();
        c->g = (struct kern_gemv){.fmt = fmt,
                                  .w = fmt == KERN_W_F16    ? (const void *)c->w
                                       : fmt == KERN_W_BF16 ? (const void *)c->deq
                                                            : (const void *)c->codes,
                                  .scales = c->scales,
                                  .group = c->group,
                                  .rows = c->rows,
                                  .cols = c->cols,
                                  .x = c->x,
                                  .batch = batches[bi],
                                  .y = c->y};
        char err[160];
        bool q = kern_wfmt_bits(fmt) < 16;
        if (kern_cpu_gemv_check(&c->g, err, sizeof err) != 0) {
            probe_emit_skip(probe_tests[id].id, err);
            plan_end();
            continue;
        }
        struct probe_result r = {.test = probe_tests[id].id,
                                 .method = kern_isa_name(cpu_isa),
                                 .threads = p->n,
                                 .bits = q ? c->bits : 0,
                                 .group = c->group,
                                 .batch = (unsigned)batches[bi],
                                 .rows = c->rows,
                                 .cols = c->cols,
                                 .bytes = wbytes + 2.0 * c->cols * batches[bi] +
                                          4.0 * c->rows * batches[bi],
                                 .flop = 2.0 * n * batches[bi],
                                 .isa = kern_isa_name(cpu_isa),
                                 .weights = n,
                                 .weight_bytes = wbytes,
                                 .activation_bits = kern_wfmt_a8(fmt) ? 8 : 16};
        poison(c->y, batches[bi] * c->rows * sizeof(float));
        probe_steal_init(&c->steal, c->rows, KERN_CPU_ROW_ALIGN, mat_piece(c), p->n);
        if (time_it(p, p->n, mat_gemv, c, probe_tests[id].id, &r.st) != 0)
            return -1;
        r.max_error = gemv_check(c);
        r.verified = r.max_error <= 1.0;
        *bad |= !r.verified;
        char note[200];
        /* batch 1 only: at 4 and 16 the vectors alone outgrow L2, and the
         * roofline (fma-peak) already says what bounds them */
        if (r.verified && batches[bi] == 1 && in_cache_note(p, c, &r, note, sizeof note))
            r.note = note;
        probe_emit_result(&r);
        plan_end();
    }
    return 0;
}

/* FP16/BF16 GEMV, quantize, dequantize, W8A16 and W4A16 GEMV. */
static int run_matrix(struct probe_pool *p, const struct probe_opts *o, double llc, bool *bad,
                      const char **code, char *msg, size_t len) {
    struct mat_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "out of host memory");
        return -1;
    }
    mat_shape(o, llc, &c->rows, &c->cols);
    c->group = KERN_GROUP_DEFAULT;
    c->llc = llc;
    size_t n = c->rows * c->cols, rows = c->rows;
    /* the 16-bit streams (FP16/BF16 GEMV, quantize's input, dequantize's
     * output) need only a quarter of W's rows to be 4x the cache when W
     * was sized for the 4-bit codes (--quick): a quarter it is, and the
     * rest of the run touches less fresh memory */
    size_t rows16 =
        o->quick && 2.0 * (double)(rows / 4) * (double)c->cols >= 4 * llc ? rows / 4 : rows;
    rows16 &= ~(size_t)7;
    size_t n16 = rows16 * c->cols;
    c->w = xalloc(n * 2);
    c->deq = xalloc(n16 * 2);
    c->x = xalloc(KERN_CPU_BATCH_MAX * c->cols * 2);
    c->y = xalloc(KERN_CPU_BATCH_MAX * c->rows * sizeof(float));
    c->codes = xalloc(kern_quant_code_bytes(n, 8));
    c->scales = xalloc(kern_quant_scale_count(c->rows, c->cols, c->group) * 2);
    /* the largest scratch any GEMV of this run needs */
    size_t sbytes = 0;
    for (int f = 0; f < KERN_W_COUNT; f++) {
        struct kern_gemv big = {.fmt = (enum kern_wfmt)f,
                                .group = c->group,
                                .rows = c->rows,
                                .cols = c->cols,
                                .batch = KERN_CPU_BATCH_MAX};
        size_t b = kern_cpu_gemv_scratch(&big);
        sbytes = b > sbytes ? b : sbytes;
    }
    bool ok = c->w && c->deq && c->x && c->y && c->codes && c->scales;
    for (unsigned t = 0; ok && t < p->n; t++)
        ok = (c->scratch[t] = xalloc(sbytes)) != NULL;
    int rc = 0;
    if (!ok) {
        *code = PROBE_ERR_OOM;
        snprintf(msg, len, "cannot allocate the %zu x %zu matrices", c->rows, c->cols);
        rc = -1;
        goto out;
    }
    probe_pool_run(p, p->n, mat_init, c);
    struct kern_rng rng;
    kern_rng_seed(&rng, 7);
    for (size_t i = 0; i < KERN_CPU_BATCH_MAX * c->cols; i++)
        c->x[i] = kern_f32_to_f16((float)(kern_rng_uniform(&rng) * 2.0 - 1.0));
    if (probe_cancelled())
        goto cancelled;

    c->rows = rows16;
    if (o->want[PROBE_GEMV_FP16] && run_gemv(p, o, c, PROBE_GEMV_FP16, KERN_W_F16, bad) != 0)
        goto cancelled;
    if (o->want[PROBE_GEMV_BF16]) {
        probe_pool_run(p, p->n, mat_init_bf16, c);
        if (probe_cancelled() || run_gemv(p, o, c, PROBE_GEMV_BF16, KERN_W_BF16, bad) != 0)
            goto cancelled;
    }
    double scale_bytes = (double)kern_quant_scale_count(rows16, c->cols, c->group) * 2;
    unsigned qbits[] = {4, 8};
    for (unsigned qi = 0; qi < 2; qi++) {
        c->bits = qbits[qi];
        enum probe_test_id id = c->bits == 8 ? PROBE_W8A16 : PROBE_W4A16;
        enum probe_test_id id8 = c->bits == 8 ? PROBE_W8A8 : PROBE_W4A8;
        if (!o->want[PROBE_QUANTIZE] && !o->want[PROBE_DEQUANTIZE] && !o->want[id] &&
            !o->want[id8])
            continue;
        double code_bytes = (double)kern_quant_code_bytes(n16, c->bits);
        c->rows = rows16;
        if (o->want[PROBE_QUANTIZE]) {
            plan_begin();
            struct probe_result r = {.test = "quantize",
                                     .method = kern_isa_name(cpu_isa),
                                     .threads = p->n,
                                     .bits = c->bits,
                                     .group = c->group,
                                     .rows = c->rows,
                                     .cols = c->cols,
                                     .bytes = 2.0 * n16 + code_bytes + scale_bytes,
                                     .isa = kern_isa_name(cpu_isa)};
            poison_samples(c, false);
            if (time_it(p, p->n, mat_quant, c, "quantize", &r.st) != 0)
                goto cancelled;
            r.verified = quant_check(c);
            *bad |= !r.verified;
            probe_emit_result(&r);
            plan_end();
        }
        if (o->want[PROBE_DEQUANTIZE]) {
            plan_begin();
            struct probe_result r = {.test = "dequantize",
                                     .method = kern_isa_name(cpu_isa),
                                     .threads = p->n,
                                     .bits = c->bits,
                                     .group = c->group,
                                     .rows = c->rows,
                                     .cols = c->cols,
                                     .bytes = code_bytes + scale_bytes + 2.0 * n16,
                                     .isa = kern_isa_name(cpu_isa)};
            if (!o->want[PROBE_QUANTIZE])
                probe_pool_run(p, p->n, mat_quant, c);
            poison_samples(c, true);
            if (time_it(p, p->n, mat_dequant, c, "dequantize", &r.st) != 0)
                goto cancelled;
            r.verified = dequant_check(c);
            *bad |= !r.verified;
            probe_emit_result(&r);
            plan_end();
        }
        /* the GEMVs read every row's codes: quantize all of W (untimed) */
        c->rows = rows;
        if ((o->want[id] || o->want[id8]) && (rows16 < rows || !o->want[PROBE_QUANTIZE]))
            probe_pool_run(p, p->n, mat_quant, c);
        if (o->want[id] && run_gemv(p, o, c, id, c->bits == 8 ? KERN_W_Q8 : KERN_W_Q4, bad) != 0)
            goto cancelled;
        /* the same weights with x in 8 bits: what CPU runtimes run */
        if (o->want[id8] &&
            run_gemv(p, o, c, id8, c->bits == 8 ? KERN_W_Q8A8 : KERN_W_Q4A8, bad) != 0)
            goto cancelled;
    }
    goto out;
cancelled:
    rc = -1;
out:
    c->rows = rows;
    free(c->w);
    free(c->deq);
    free(c->x);
    free(c->y);
    free(c->codes);
    free(c->scales);
    for (unsigned t = 0; t < p->n; t++)
        free(c->scratch[t]);
    free(c);
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
    plan_begin();
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
    plan_end();
out:
    free(w);
    free(codes);
    free(scales);
    return 0;
}

/* The steps of this run, with their sizes, for progress and time left. */
static void plan_build(const struct probe_opts *o, double llc, unsigned nt) {
    memset(&plan, 0, sizeof plan);
    plan.t0 = now_s();
    double sb = (double)stream_bytes(o, llc);
    unsigned passes = nt > 1 ? 2 : 1;
    for (unsigned t = 0; t < passes; t++) {
        if (o->want[PROBE_COPY])
            plan_add(3 * 2 * sb, 0); /* kernel, memcpy, reference */
        if (o->want[PROBE_READ])
            plan_add(sb, 0);
    }
    if (o->want[PROBE_FMA_PEAK])
        for (unsigned t = 0; t < passes; t++)
            plan_add(0, 2e-3 * 50e9);
    size_t rows, cols, b[MAX_BATCHES], nb = gemv_batches(o, b);
    mat_shape(o, llc, &rows, &cols);
    double n = (double)rows * (double)cols;
    for (size_t i = 0; i < nb; i++) {
        if (o->want[PROBE_GEMV_FP16])
            plan_add(2 * n, 2 * n * (double)b[i]);
        if (o->want[PROBE_GEMV_BF16])
            plan_add(2 * n, 2 * n * (double)b[i]);
    }
    for (unsigned bits = 4; bits <= 8; bits += 4) {
        if (o->want[PROBE_QUANTIZE])
            plan_add(2 * n + n * bits / 8, 0);
        if (o->want[PROBE_DEQUANTIZE])
            plan_add(2 * n + n * bits / 8, 0);
        for (size_t i = 0; i < nb; i++) {
            if (o->want[bits == 8 ? PROBE_W8A16 : PROBE_W4A16])
                plan_add(n * bits / 8, 2 * n * (double)b[i]);
            if (o->want[bits == 8 ? PROBE_W8A8 : PROBE_W4A8])
                plan_add(n * bits / 8, n * (double)b[i]); /* integer products: cheaper */
        }
    }
    if (o->want[PROBE_ERROR])
        plan_add(0, 0);
    probe_progress_now.count = plan.n;
    probe_progress_now.index = 0;
    probe_progress_now.eta_s = 0;
    for (unsigned i = 0; i < plan.n; i++)
        probe_progress_now.eta_s += plan.weight[i];
}

/* The path to time: VRAMLAB_CPU_ISA's, else the widest whose self-check
 * passes (a failing one is named in the device event's isa_note and the
 * next path down runs); a forced path that fails is an error. */
static int choose_isa(struct probe_device *d, const char **code, char *msg, size_t len) {
    const char *forced = getenv("VRAMLAB_CPU_ISA");
    if (kern_isa_from_env(&cpu_isa, msg, len) != 0) {
        *code = PROBE_ERR_USAGE;
        return -1;
    }
    char err[200];
    size_t n = 0;
    while (kern_cpu_selfcheck(cpu_isa, err, sizeof err) != 0) {
        *code = PROBE_ERR_VERIFY;
        if (forced && *forced) {
            snprintf(msg, len, "VRAMLAB_CPU_ISA=%s: the path failed its self-check: %s", forced,
                     err);
            return -1;
        }
        if (cpu_isa == KERN_ISA_SCALAR) {
            snprintf(msg, len, "every kernel path failed its self-check (portable: %s)", err);
            return -1;
        }
        enum kern_isa next = kern_isa_lower(cpu_isa);
        n += (size_t)snprintf(d->isa_note + n, n < sizeof d->isa_note ? sizeof d->isa_note - n : 0,
                              "%s%s failed its self-check (%s); %s runs instead", n ? "; " : "",
                              kern_isa_name(cpu_isa), err, kern_isa_name(next));
        cpu_isa = next;
    }
    return 0;
}

/* Run the selected tests on the host. */
static int cpu_run(const struct probe_opts *o, const char **code, char *msg, size_t len) {
    struct probe_device d = {.backend = "cpu", .cpu = true};
    if (choose_isa(&d, code, msg, len) != 0)
        return -1;
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned nt = o->threads ? o->threads : (online > 0 ? (unsigned)online : 1);
    if (nt > CPU_MAX_THREADS)
        nt = CPU_MAX_THREADS;
    cpu_samples = o->quick ? CPU_SAMPLES_QUICK : CPU_SAMPLES;
    probe_cpu_name(d.name, sizeof d.name);
    d.memory_bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    d.compute_units = nt;
    d.l2_bytes = probe_llc_bytes();
#if defined(__x86_64__)
    snprintf(d.arch, sizeof d.arch, "x86_64");
#elif defined(__aarch64__)
    snprintf(d.arch, sizeof d.arch, "aarch64");
#endif
    snprintf(d.isa, sizeof d.isa, "%s", kern_isa_name(cpu_isa));
    kern_isa_list(d.isa_available, sizeof d.isa_available);
    d.is_virtual = probe_cpu_virtual();
    probe_emit_device(&d);
    plan_build(o, d.l2_bytes, nt);

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
    if (rc == 0 && o->want[PROBE_FMA_PEAK])
        rc = run_fma(p, &bad);
    if (rc == 0 &&
        (o->want[PROBE_GEMV_FP16] || o->want[PROBE_GEMV_BF16] || o->want[PROBE_QUANTIZE] ||
         o->want[PROBE_DEQUANTIZE] || o->want[PROBE_W8A16] || o->want[PROBE_W4A16] ||
         o->want[PROBE_W8A8] || o->want[PROBE_W4A8]))
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
