/*
 * bench_kernels.c: speed of the fast CPU kernels against their goals and
 * against llama.cpp's CPU backend, side by side in the same run (make
 * bench; never a test: the exit status is 0 whatever the speed).
 *
 * Goals (issue 11, on data at least 4x the last-level cache, all
 * threads): FP16 and W8A16 GEMV >= 0.85 C, W4A16 >= 0.80 C (C: the
 * measured copy, read + write bytes, as the probe defines it), batch 4
 * and 16 >= 0.6 of the roofline min(FMA peak, C x FLOP/byte), our copy >=
 * 0.95 of a STREAM-style loop on the same arrays, every GEMV at least as
 * fast as llama.cpp's at the same bytes per weight (f16 / q8_0 / q4_0:
 * 16 / 8.5 / 4.5 bits, ours 16 / 8.5 / 4.5 with an FP16 scale per 32).
 * Issue 28: W8A8 / W4A8 (x quantized to 8 bits per block of 32, integer
 * dot products: what llama.cpp's q8_0 / q4_0 products do) at least as fast
 * as llama.cpp's q8_0 / q4_0 at batch 1 and 16; the goal column of those
 * rows says so.
 *
 * Shapes: the probe's W (16384 x 16384) at batch 1, 4, 16, and llama.cpp's
 * perf case m = 4096 rows, k = 14336 columns (Llama's FFN) at 1, 4, 8, 16.
 * Rows go to the threads in pieces (each its own share first, then what
 * is left of the others', as the probe).
 *
 * The anchor: LLAMA_TEST_BACKEND_OPS names a built test-backend-ops
 * (scripts/llama-anchor builds it from the llama-cpp-python source
 * package, with the probe's shape and batch 16 added to its perf cases and
 * ANCHOR_THREADS read); it runs `perf -b CPU -o MUL_MAT` for each shape,
 * type and batch with our thread count. Ours and llama.cpp's are
 * alternated for ROUNDS rounds (ours: the median of 10 samples, each >= 2
 * ms; llama.cpp's: its mean time per run over at least 1 s) and the
 * medians of the rounds compared: on a shared machine whose speed drifts
 * between minutes, only figures of the same minutes compare.
 *
 * Then one core in CPU seconds (the least of 30 calls, W of 512 x 16384 in
 * the last-level cache, x's quantization included): what a core computes,
 * the figure that other processes on the machine bend least; llama.cpp's
 * the same way when LLAMA_ANCHOR_MUL_MAT names scripts/llama-anchor
 * --mul-mat's program (tests/anchor_mul_mat.c).
 *
 * Options: --threads N (default: all CPUs), --quick (one shape, batch 1,
 * one round), --isa NAME (as VRAMLAB_CPU_ISA), --gemv (no quantize table),
 * --shape probe|llama|core (only that part), --batch N, --rounds N,
 * --type f16|q8_0|q4_0 (only the formats against that llama.cpp type:
 * FP16; W8A16 and W8A8; W4A16 and W4A8).
 */
#include "config.h"

#define _GNU_SOURCE 1 /* sched_getaffinity, pthread_setaffinity_np */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kern_cpu.h"
#include "kernels/kern_half.h"
#include "kernels/kern_quant.h"
#include "kernels/probe_cpu_info.h"
#include "kernels/probe_pool.h"

#define SAMPLES 10
#define ROUNDS     3 /* ours and llama.cpp's, alternated (default) */
#define ROUNDS_MAX 15

static enum kern_isa isa;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 2 MiB aligned, on huge pages where offered (as the probe). */
static void *big(size_t bytes) {
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0) {
        fprintf(stderr, "bench_kernels: cannot allocate %zu MiB\n", bytes >> 20);
        exit(1);
    }
#if defined(MADV_HUGEPAGE)
    (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    return p;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds of fn over SAMPLES samples (each >= 2 ms), after one
 * discarded run. */
static double median_time(struct probe_pool *p, unsigned nt, probe_par_fn fn, void *ctx) {
    double t0 = now_s();
    probe_pool_run(p, nt, fn, ctx);
    double first = now_s() - t0;
    unsigned k = first > 0 ? (unsigned)ceil(2e-3 / first) : 1;
    k = k < 1 ? 1 : k;
    double t[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        t0 = now_s();
        for (unsigned r = 0; r < k; r++)
            probe_pool_run(p, nt, fn, ctx);
        t[s] = (now_s() - t0) / k;
    }
    qsort(t, SAMPLES, sizeof t[0], cmp_d);
    return 0.5 * (t[SAMPLES / 2 - 1] + t[SAMPLES / 2]);
}

/* The median of n values (sorted in place). */
static double median_of(double *v, unsigned n) {
    qsort(v, n, sizeof v[0], cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- copy, read, FMA ---------------------------------------------------- */

struct stream {
    double *a, *b;
    size_t n;
    int method; /* 0 reference loop, 1 memcpy, 2 ours, 3 read */
    double sum[256 * 8];
};

static void ref_copy(double *restrict d, const double *restrict s, size_t n) {
    for (size_t j = 0; j < n; j++)
        d[j] = s[j];
}

static void stream_fn(void *v, unsigned tid, unsigned n) {
    struct stream *c = v;
    size_t lo, hi;
    probe_split(c->n, 1024, tid, n, &lo, &hi);
    if (c->method == 0)
        ref_copy(c->b + lo, c->a + lo, hi - lo);
    else if (c->method == 1)
        memcpy(c->b + lo, c->a + lo, (hi - lo) * sizeof(double));
    else if (c->method == 2)
        kern_cpu_copy(isa, c->b + lo, c->a + lo, (hi - lo) * sizeof(double));
    else
        c->sum[tid * 8] = kern_cpu_sum(isa, c->a + lo, hi - lo);
}

static void stream_init(void *v, unsigned tid, unsigned n) {
    struct stream *c = v;
    size_t lo, hi;
    probe_split(c->n, 1024, tid, n, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        c->a[i] = (double)(i % 1000);
        c->b[i] = 0;
    }
}

struct fma {
    uint64_t iters;
    double out[256 * 8];
};

static void fma_fn(void *v, unsigned tid, unsigned n) {
    struct fma *c = v;
    (void)n;
    c->out[tid * 8] = kern_cpu_fma_loop(isa, c->iters, 0.999f, 0.001f);
}

/* ---- GEMV ----------------------------------------------------------------- */

struct gemv {
    struct kern_gemv g;
    void *scratch[256];
    struct probe_steal steal; /* rows in pieces of about 1 MB of FP16, as the probe */
};

static void gemv_fn(void *v, unsigned tid, unsigned n) {
    struct gemv *c = v;
    size_t lo, hi;
    (void)n;
    kern_cpu_gemv_prepare(isa, &c->g, c->scratch[tid]);
    while (probe_steal_next(&c->steal, tid, &lo, &hi))
        kern_cpu_gemv_rows(isa, &c->g, c->scratch[tid], lo, hi);
    probe_steal_done(&c->steal);
}

struct fill {
    uint16_t *w;
    size_t rows, cols;
};

static void fill_fn(void *v, unsigned tid, unsigned n) {
    struct fill *c = v;
    size_t lo, hi;
    probe_split(c->rows, 8, tid, n, &lo, &hi);
    for (size_t i = lo * c->cols; i < hi * c->cols; i++) {
        uint64_t z = i * 0x9e3779b97f4a7c15ull;
        z ^= z >> 29;
        uint32_t h = (uint32_t)((z * 0xbf58476d1ce4e5b9ull) >> 32);
        c->w[i] = (uint16_t)((h & 0x8000u) | ((8u + ((h >> 11) & 3u)) << 10) | (h & 0x3ffu));
    }
}

/* The CPUs this process may run on, read before the pool pins its threads
 * (the calling thread is pinned to the first of them). */
static cpu_set_t start_cpus;
static int have_start_cpus;

/* popen with the child free to run on every CPU the process started with:
 * a child inherits the calling thread's affinity, and the pool pins this
 * thread to one CPU, which would leave llama.cpp's threads one core. */
static FILE *popen_unpinned(const char *cmd) {
    cpu_set_t pinned;
    int restore = have_start_cpus &&
                  pthread_getaffinity_np(pthread_self(), sizeof pinned, &pinned) == 0 &&
                  pthread_setaffinity_np(pthread_self(), sizeof start_cpus, &start_cpus) == 0;
    FILE *f = popen(cmd, "r");
    if (restore)
        pthread_setaffinity_np(pthread_self(), sizeof pinned, &pinned);
    return f;
}

/* llama.cpp's time per run (seconds) for type (f16, q8_0, q4_0) at this
 * shape, or NAN when not run / not found. */
static double anchor(const char *type, size_t rows, size_t cols, size_t batch, unsigned nt) {
    const char *tbo = getenv("LLAMA_TEST_BACKEND_OPS");
    if (!tbo || !*tbo)
        return NAN;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ANCHOR_THREADS=%u '%s' perf -b CPU -o MUL_MAT -p "
             "'type_a=%s,type_b=f32,m=%zu,n=%zu,k=%zu,bs=\\[1,1\\],nr=\\[1,1\\]' 2>/dev/null",
             nt, tbo, type, rows, batch, cols);
    FILE *f = popen_unpinned(cmd);
    if (!f)
        return NAN;
    char line[1024];
    double us = NAN;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " us/run");
        if (!p || !strstr(line, "MUL_MAT("))
            continue;
        const char *q = p;
        while (q > line && (q[-1] == ' ' || q[-1] == '.' || (q[-1] >= '0' && q[-1] <= '9')))
            q--;
        us = strtod(q, NULL);
    }
    pclose(f);
    return us * 1e-6;
}

int main(int argc, char **argv) {
    unsigned nt = 0, rounds = ROUNDS;
    int quick = 0, gemv_only = 0, only_shape = -1;
    size_t only_batch = 0;
    int only_type = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            nt = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--isa") && i + 1 < argc)
            setenv("VRAMLAB_CPU_ISA", argv[++i], 1);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            i++;
            only_shape = !strcmp(argv[i], "probe")   ? 0
                         : !strcmp(argv[i], "llama") ? 1
                         : !strcmp(argv[i], "core")  ? 2
                                                     : -2;
        } else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            only_batch = (size_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gemv"))
            gemv_only = 1;
        else if (!strcmp(argv[i], "--type") && i + 1 < argc) {
            i++;
            only_type = !strcmp(argv[i], "f16")    ? 0
                        : !strcmp(argv[i], "q8_0") ? 1
                        : !strcmp(argv[i], "q4_0") ? 2
                                                   : -2;
            if (only_type == -2)
                only_shape = -2;
        } else
            only_shape = -2;
        if (only_shape == -2 || rounds < 1 || rounds > ROUNDS_MAX) {
            fprintf(stderr, "usage: bench_kernels [--threads N] [--quick] [--isa NAME] [--gemv]\n"
                            "                     [--shape probe|llama|core] [--batch N] [--rounds 1..%d]\n"
                            "                     [--type f16|q8_0|q4_0]\n",
                    ROUNDS_MAX);
            return 2;
        }
    }
    char err[256];
    if (kern_isa_from_env(&isa, err, sizeof err) != 0) {
        fprintf(stderr, "bench_kernels: %s\n", err);
        return 2;
    }
    if (kern_cpu_selfcheck(isa, err, sizeof err) != 0) {
        fprintf(stderr, "bench_kernels: %s failed its self-check: %s\n", kern_isa_name(isa), err);
        return 1;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (!nt)
        nt = online > 0 ? (unsigned)online : 1;
    struct probe_pool *pool = calloc(1, sizeof *pool);
    have_start_cpus = sched_getaffinity(0, sizeof start_cpus, &start_cpus) == 0;
    if (!pool || probe_pool_init(pool, nt) != 0)
        return 1;
    char name[128], avail[64], date[32];
    probe_cpu_name(name, sizeof name);
    kern_isa_list(avail, sizeof avail);
    time_t tt = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&tt));
    double llc = probe_llc_bytes();
    printf(
        "== fast CPU kernels: %s, %u threads (pinned %u), path %s (runs: %s), LLC %.0f MiB%s, %s\n",
        name, nt, pool->pinned, kern_isa_name(isa), avail, llc / 1048576,
        probe_cpu_virtual() ? ", virtual machine" : "", date);

    /* copy and read: 4x the cache, at least 256 MiB an array */
    struct stream *st = calloc(1, sizeof *st);
    size_t sbytes = (size_t)(4 * llc) > ((size_t)256 << 20) ? (size_t)(4 * llc) : (size_t)256 << 20;
    st->n = sbytes / sizeof(double);
    st->a = big(sbytes);
    st->b = big(sbytes);
    probe_pool_run(pool, nt, stream_init, st);
    double cbytes = 2.0 * (double)sbytes, tr[4];
    for (int m = 0; m < 4; m++) {
        st->method = m;
        tr[m] = median_time(pool, nt, stream_fn, st);
    }
    double C = cbytes / (tr[2] < tr[1] ? tr[2] : tr[1]); /* the probe's C */
    printf("%-28s %10s %8s %8s\n", "stream", "GB/s", "of C", "goal");
    printf("%-28s %10.2f %8.2f\n", "copy, STREAM-style loop", cbytes / tr[0] / 1e9,
           cbytes / tr[0] / C);
    printf("%-28s %10.2f %8.2f\n", "copy, memcpy", cbytes / tr[1] / 1e9, cbytes / tr[1] / C);
    printf("%-28s %10.2f %8.2f %8s  (ours / STREAM-style: %.2f; goal >= 0.95)\n",
           "copy, ours (streaming)", cbytes / tr[2] / 1e9, cbytes / tr[2] / C,
           tr[0] / tr[2] >= 0.95 ? "pass" : "below", tr[0] / tr[2]);
    printf("%-28s %10.2f %8.2f\n", "read (sum)", sbytes / tr[3] / 1e9, sbytes / tr[3] / C);
    printf("C = %.2f GB/s\n", C / 1e9);
    free(st->a);
    free(st->b);
    free(st);

    struct fma fm = {.iters = 200000};
    double tf = median_time(pool, nt, fma_fn, &fm);
    double peak = 2.0 * (double)fm.iters * KERN_CPU_FMA_CHAINS * kern_cpu_fma_lanes(isa) * nt / tf;
    printf("FMA peak = %.1f GFLOP/s (%s, %u threads); ridge %.2f FLOP/byte\n\n", peak / 1e9,
           kern_isa_name(isa), nt, peak / C);

    /* our formats by llama.cpp's type at the same bytes per weight: f16;
     * q8_0 for W8A16 and W8A8, q4_0 for W4A16 and W4A8 (llama.cpp's own
     * q8_0 / q4_0 products quantize x to 8 bits: W8A8 / W4A8 are the like
     * for like, W8A16 / W4A16 keep x in 16 bits) */
    static const char *const anchor_type[3] = {"f16", "q8_0", "q4_0"};
    static const double anchor_bpw[3] = {2.0, 34.0 / 32, 18.0 / 32};
    static const enum kern_wfmt by_type[3][2] = {
        {KERN_W_F16, KERN_W_F16}, {KERN_W_Q8, KERN_W_Q8A8}, {KERN_W_Q4, KERN_W_Q4A8}};
    size_t shapes[2][2] = {{16384, 16384}, {4096, 14336}};
    /* llama.cpp's perf cases have n = 1, 2, 3, 4, 5, 8, 512 at its shape;
     * scripts/llama-anchor adds 16 there and 1, 4, 16 at the probe's */
    size_t batches[2][4] = {{1, 4, 16, 0}, {1, 4, 8, 16}};
    if (quick)
        rounds = 1;
    if (only_shape != 2)
        printf("%-12s %-6s %3s %9s %6s %9s %7s %6s %10s %7s\n", "shape", "W", "b", "GB/s", "of C",
               "GFLOP/s", "of roof", "goal", "llama GB/s", "ratio");
    for (int sh = 0; sh < (quick ? 1 : 2); sh++) {
        if (only_shape >= 0 && sh != only_shape)
            continue;
        size_t rows = shapes[sh][0], cols = shapes[sh][1], n = rows * cols;
        uint16_t *w = big(n * 2);
        uint8_t *c8 = big(n), *c4 = big(n / 2);
        uint16_t *s8 = big(n / 16 + 64), *s4 = big(n / 16 + 64);
        uint16_t *x = big(KERN_CPU_BATCH_MAX * cols * 2);
        float *y = big(KERN_CPU_BATCH_MAX * rows * sizeof(float));
        struct fill fl = {w, rows, cols};
        probe_pool_run(pool, nt, fill_fn, &fl);
        for (size_t i = 0; i < KERN_CPU_BATCH_MAX * cols; i++)
            x[i] = (uint16_t)(0x3800 | (i * 2654435761u >> 22 & 0x3ff) | ((i & 1) << 15));
        kern_cpu_quantize_f16(isa, w, cols, 0, rows, 8, 32, c8, s8);
        kern_cpu_quantize_f16(isa, w, cols, 0, rows, 4, 32, c4, s4);
        struct gemv *gv = calloc(1, sizeof *gv);
        size_t scr = 0;
        for (int f = 0; f < KERN_W_COUNT; f++) {
            struct kern_gemv most = {
                .fmt = (enum kern_wfmt)f, .group = 32, .rows = rows, .cols = cols, .batch = 16};
            size_t b = kern_cpu_gemv_scratch(&most);
            scr = b > scr ? b : scr;
        }
        for (unsigned t = 0; t < nt; t++)
            gv->scratch[t] = big(scr + 64);
        for (int ty = 0; ty < 3; ty++)
            for (int bi = 0; bi < (quick ? 1 : 4) && batches[sh][bi]; bi++) {
                size_t b = batches[sh][bi];
                if ((only_batch && b != only_batch) || (only_type >= 0 && ty != only_type))
                    continue;
                int nf = ty == 0 ? 1 : 2;
                double tours[2][ROUNDS_MAX], tll[ROUNDS_MAX];
                /* rounds of ours (each format), then llama.cpp's: the
                 * medians of the rounds are compared */
                for (unsigned rd = 0; rd < rounds; rd++) {
                    for (int k = 0; k < nf; k++) {
                        enum kern_wfmt f = by_type[ty][k];
                        unsigned bits = kern_wfmt_bits(f);
                        gv->g = (struct kern_gemv){.fmt = f,
                                                   .w = bits == 16  ? (void *)w
                                                        : bits == 8 ? (void *)c8
                                                                    : (void *)c4,
                                                   .scales = bits == 8 ? s8 : s4,
                                                   .group = 32,
                                                   .rows = rows,
                                                   .cols = cols,
                                                   .x = x,
                                                   .batch = b,
                                                   .y = y};
                        size_t piece = ((size_t)1 << 20) / cols / KERN_CPU_ROW_ALIGN;
                        probe_steal_init(&gv->steal, rows, KERN_CPU_ROW_ALIGN,
                                         (piece ? piece : 1) * KERN_CPU_ROW_ALIGN, nt);
                        tours[k][rd] = median_time(pool, nt, gemv_fn, gv);
                    }
                    tll[rd] = anchor(anchor_type[ty], rows, cols, b, nt);
                }
                double ta = median_of(tll, rounds);
                for (int k = 0; k < nf; k++) {
                    enum kern_wfmt f = by_type[ty][k];
                    double t = median_of(tours[k], rounds);
                    double wb = n * anchor_bpw[ty];
                    double bytes = wb + 2.0 * cols * b + 4.0 * rows * b, flop = 2.0 * n * b;
                    double roof = peak < C * flop / bytes ? peak : C * flop / bytes;
                    double ofc = bytes / t / C, ofr = flop / t / roof;
                    char gbuf[16], an[16] = "-", ra[16] = "-";
                    if (kern_wfmt_a8(f)) /* issue 28: at least llama.cpp's speed */
                        snprintf(gbuf, sizeof gbuf, "%s", !(ta > 0) ? "-" : ta / t >= 1 ? "pass" : "below");
                    else if (b == 1)
                        snprintf(gbuf, sizeof gbuf, "%s",
                                 ofc >= (f == KERN_W_Q4 ? 0.80 : 0.85) ? "pass" : "below");
                    else
                        snprintf(gbuf, sizeof gbuf, "%s", ofr >= 0.6 ? "pass" : "below");
                    if (ta > 0) {
                        snprintf(an, sizeof an, "%.2f", wb / ta / 1e9);
                        snprintf(ra, sizeof ra, "%.2f", ta / t);
                    }
                    printf("%5zux%-6zu %-6s %3zu %9.2f %6.2f %9.1f %7.2f %6s %10s %7s\n", rows, cols,
                           kern_wfmt_name(f), b, bytes / t / 1e9, ofc, flop / t / 1e9, ofr, gbuf,
                           an, ra);
                    fflush(stdout);
                }
            }
        for (unsigned t = 0; t < nt; t++)
            free(gv->scratch[t]);
        free(gv);
        free(w);
        free(c8);
        free(c4);
        free(s8);
        free(s4);
        free(x);
        free(y);
    }
    /* One core, CPU seconds, W in the last-level cache (512 x 16384: 4.5 to
     * 16 MB; x's quantization, which every thread does for itself, counts
     * 32 times more than at the probe's 16384 rows): what each core
     * computes, the figure a loaded machine bends least (time the other
     * processes take is not counted); llama.cpp's the same way when
     * LLAMA_ANCHOR_MUL_MAT names scripts/llama-anchor --mul-mat's program
     * (its MUL_MAT on one thread, least process CPU time of 30). */
    {
        size_t rows = 512, cols = 16384, n = rows * cols;
        uint16_t *w = big(n * 2), *x = big(KERN_CPU_BATCH_MAX * cols * 2);
        uint8_t *c8 = big(n), *c4 = big(n / 2);
        uint16_t *s8 = big(n / 16 + 64), *s4 = big(n / 16 + 64);
        float *y = big(KERN_CPU_BATCH_MAX * rows * sizeof(float));
        struct fill fl = {w, rows, cols};
        fill_fn(&fl, 0, 1);
        for (size_t i = 0; i < KERN_CPU_BATCH_MAX * cols; i++)
            x[i] = (uint16_t)(0x3800 | (i * 2654435761u >> 22 & 0x3ff) | ((i & 1) << 15));
        kern_cpu_quantize_f16(isa, w, cols, 0, rows, 8, 32, c8, s8);
        kern_cpu_quantize_f16(isa, w, cols, 0, rows, 4, 32, c4, s4);
        static const enum kern_wfmt cf[] = {KERN_W_F16, KERN_W_Q8A8, KERN_W_Q4A8, KERN_W_Q8,
                                            KERN_W_Q4};
        static const char *const ty[] = {"f16", "q8_0", "q4_0", "q8_0", "q4_0"};
        static const size_t bs[] = {1, 4, 16};
        const char *mm = getenv("LLAMA_ANCHOR_MUL_MAT");
        if (!quick && only_shape != 0 && only_shape != 1)
            printf("\none core, CPU time, W %zux%zu in the last-level cache (GMAC/s; ratio = "
                   "llama.cpp's CPU time / ours)\n%-6s %3s %9s %10s %7s\n",
                   rows, cols, "W", "b", "ours", "llama.cpp", "ratio");
        for (size_t fi = 0; fi < sizeof cf / sizeof cf[0] && !quick && only_shape != 0 && only_shape != 1; fi++)
            for (size_t bi = 0; bi < 3; bi++) {
                static const int cf_type[] = {0, 1, 2, 1, 2};
                if ((only_batch && bs[bi] != only_batch) ||
                    (only_type >= 0 && cf_type[fi] != only_type))
                    continue;
                unsigned bits = kern_wfmt_bits(cf[fi]);
                struct kern_gemv g = {.fmt = cf[fi],
                                      .w = bits == 16 ? (void *)w : bits == 8 ? (void *)c8 : c4,
                                      .scales = bits == 8 ? s8 : s4,
                                      .group = 32,
                                      .rows = rows,
                                      .cols = cols,
                                      .x = x,
                                      .batch = bs[bi],
                                      .y = y};
                void *scr = big(kern_cpu_gemv_scratch(&g) + 64);
                double best = 1e30;
                for (int k = 0; k <= 30; k++) {
                    struct timespec a, b;
                    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
                    kern_cpu_gemv_prepare(isa, &g, scr);
                    kern_cpu_gemv_rows(isa, &g, scr, 0, rows);
                    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
                    double t = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
                    if (k && t < best)
                        best = t;
                }
                free(scr);
                double tl = NAN;
                if (mm && *mm) {
                    char cmd[1024], line[256];
                    snprintf(cmd, sizeof cmd, "'%s' %s %zu %zu %zu 1 30 2>/dev/null", mm, ty[fi],
                             bs[bi], rows, cols);
                    FILE *f = popen_unpinned(cmd);
                    while (f && fgets(line, sizeof line, f))
                        if (!strncmp(line, "cpu_seconds ", 12))
                            tl = strtod(line + 12, NULL);
                    if (f)
                        pclose(f);
                }
                double mac = (double)n * (double)bs[bi];
                char ls[16] = "-", rs[16] = "-";
                if (tl > 0) {
                    snprintf(ls, sizeof ls, "%.1f", mac / tl / 1e9);
                    snprintf(rs, sizeof rs, "%.2f", tl / best);
                }
                printf("%-6s %3zu %9.1f %10s %7s  (%s)\n", kern_wfmt_name(cf[fi]), bs[bi],
                       mac / best / 1e9, ls, rs, ty[fi]);
                fflush(stdout);
            }
        free(w);
        free(x);
        free(c8);
        free(c4);
        free(s8);
        free(s4);
        free(y);
    }

    /* quantize / dequantize: the fast kernels (all threads) and the twin's
     * goal from issue 7 (>= 1 GB/s of FP16 input on one core) */
    if (!gemv_only) {
        size_t rows = 4096, cols = 4096, n = rows * cols;
        uint16_t *w = big(n * 2), *o = big(n * 2);
        uint8_t *c = big(n);
        uint16_t *s = big(n / 16 + 64);
        struct fill fl = {w, rows, cols};
        probe_pool_run(pool, nt, fill_fn, &fl);
        printf("\n%-34s %10s %8s\n", "quantize g=32 (FP16 in)", "GB/s FP16", "goal");
        for (unsigned bits = 2; bits <= 8; bits++) {
            double best = 1e30;
            for (int r = 0; r < 5; r++) {
                double t0 = now_s();
                kern_quantize_rows_f16(w, cols, 0, rows, bits, 32, c, s, NULL);
                double t = now_s() - t0;
                best = t < best ? t : best;
            }
            printf("twin b=%u, 1 core %25.2f %8s\n", bits, 2.0 * n / best / 1e9,
                   2.0 * n / best >= 1e9 ? "pass" : "below");
        }
        for (unsigned bits = 4; bits <= 8; bits += 4) {
            double bq = 1e30, bd = 1e30;
            for (int r = 0; r < 5; r++) {
                double t0 = now_s();
                kern_cpu_quantize_f16(isa, w, cols, 0, rows, bits, 32, c, s);
                double t1 = now_s();
                kern_cpu_dequantize_f16(isa, c, s, cols, 0, rows, bits, 32, o);
                double t2 = now_s();
                bq = t1 - t0 < bq ? t1 - t0 : bq;
                bd = t2 - t1 < bd ? t2 - t1 : bd;
            }
            printf("%s b=%u, 1 core: quantize %.2f, dequantize %.2f GB/s of FP16\n",
                   kern_isa_name(isa), bits, 2.0 * n / bq / 1e9, 2.0 * n / bd / 1e9);
        }
        free(w);
        free(o);
        free(c);
        free(s);
    }
    printf("\nof C: bytes (weights + x + y) / time / C; of roof: FLOP/s / min(FMA peak, C x "
           "FLOP/byte); goal: batch 1 >= 0.85 C (W4A16 0.80 C), batch 4/16 >= 0.6 of roof,\n"
           "W8A8 / W4A8 ratio >= 1 (issue 28);\n"
           "llama GB/s: llama.cpp's weight bytes (f16 2, q8_0 34/32, q4_0 18/32 B) / its mean "
           "time per run; ratio = its time / ours (> 1: ours faster).\n");
    probe_pool_destroy(pool);
    free(pool);
    return 0;
}
