/*
 * probe_main.c: vramlab-probe's command line, its JSON Lines output and
 * the statistics of timed samples (see probe.h and shared spec measure.md).
 *
 * Exit status: 0 ok, 2 usage, 4 device error (an `error` event was
 * written), 5 a kernel disagreed with its CPU reference, 128 + N cancelled by
 * SIGTERM, SIGINT or SIGHUP (N: the signal) after freeing what the
 * backend held.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/probe.h"
#include "kernels/probe_allreduce.h"
#include "kernels/probe_options.h"

const struct probe_test probe_tests[PROBE_TEST_COUNT] = {
    [PROBE_COPY] = {"copy", "copy (defines C)", "read + write", false, false},
    [PROBE_READ] = {"read", "stream read (sum)", "read", false, false},
    [PROBE_FMA_PEAK] = {"fma-peak", "FMA peak (CPU roofline)", "FLOP/s", false, true},
    [PROBE_GEMV_FP16] = {"gemv-fp16", "FP16 GEMV", "W + x + y", false, false},
    [PROBE_GEMV_BF16] = {"gemv-bf16", "BF16 GEMV", "W + x + y", false, true},
    [PROBE_GEMM] = {"gemm", "GEMM sweep (cuBLAS)", "W + X + Y; FLOP/s", true, false},
    [PROBE_QUANTIZE] = {"quantize", "quantize g=32", "FP16 in + codes + scales", false, false},
    [PROBE_DEQUANTIZE] = {"dequantize", "dequantize g=32", "codes + scales + FP16 out", false,
                          false},
    [PROBE_W8A16] = {"w8a16", "W8A16 GEMV", "codes + scales + x + y", false, false},
    [PROBE_W4A16] = {"w4a16", "W4A16 GEMV", "codes + scales + x + y", false, false},
    [PROBE_W8A8] = {"w8a8", "W8A8 GEMV (x in 8 bits)", "codes + scales + x + y", false, true},
    [PROBE_W4A8] = {"w4a8", "W4A8 GEMV (x in 8 bits)", "codes + scales + x + y", false, true},
    [PROBE_ERROR] = {"error", "error lab", "-", false, false},
    [PROBE_ALLREDUCE] = {"allreduce", "all-reduce (NCCL, MPI)", "bytes per rank", false, false},
};

volatile sig_atomic_t probe_cancel_flag = 0;
struct probe_progress probe_progress_now = {0, 0, -1};

/* True once SIGTERM, SIGINT or SIGHUP arrived. */
bool probe_cancelled(void) {
    return probe_cancel_flag != 0;
}

/* Signal handler: only record the signal; the backend unwinds and frees. */
static void on_signal(int sig) {
    probe_cancel_flag = sig;
}

/* ---- JSON line builder ------------------------------------------------ */

struct jline {
    char buf[4096];
    size_t n;
    bool first;
};

/* Append formatted text, truncating safely. */
static void jl_raw(struct jline *j, const char *fmt, ...) {
    if (j->n >= sizeof j->buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(j->buf + j->n, sizeof j->buf - j->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        j->n += (size_t)k < sizeof j->buf - j->n ? (size_t)k : sizeof j->buf - j->n - 1;
}

/* Start an object with its "event" member. */
static void jl_begin(struct jline *j, const char *event) {
    j->n = 0;
    j->first = false;
    jl_raw(j, "{\"event\":\"%s\"", event);
}

/* Append a string member, escaped. */
static void jl_str(struct jline *j, const char *key, const char *v) {
    if (!v) {
        jl_raw(j, ",\"%s\":null", key);
        return;
    }
    jl_raw(j, ",\"%s\":\"", key);
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            jl_raw(j, "\\%c", *p);
        else if (*p < 0x20)
            jl_raw(j, "\\u%04x", *p);
        else
            jl_raw(j, "%c", *p);
    }
    jl_raw(j, "\"");
}

/* Append a number member (null when not finite). */
static void jl_num(struct jline *j, const char *key, double v) {
    if (!isfinite(v))
        jl_raw(j, ",\"%s\":null", key);
    else
        jl_raw(j, ",\"%s\":%.10g", key, v);
}

/* Append a boolean member. */
static void jl_bool(struct jline *j, const char *key, bool v) {
    jl_raw(j, ",\"%s\":%s", key, v ? "true" : "false");
}

/* Close the object, write the line and flush it. */
static void jl_end(struct jline *j) {
    jl_raw(j, "}");
    fwrite(j->buf, 1, j->n, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* The device event. */
void probe_emit_device(const struct probe_device *d) {
    struct jline j;
    jl_begin(&j, "device");
    jl_str(&j, "backend", d->backend);
    jl_str(&j, "name", d->name);
    jl_num(&j, "memory_bytes", d->memory_bytes);
    jl_num(&j, "theoretical_bytes_per_s",
           d->theoretical_bytes_per_s > 0 ? d->theoretical_bytes_per_s : NAN);
    jl_num(&j, "compute_units", d->compute_units);
    jl_num(&j, "memory_clock_hz", d->memory_clock_hz > 0 ? d->memory_clock_hz : NAN);
    jl_num(&j, "bus_width_bits", d->bus_width_bits > 0 ? d->bus_width_bits : NAN);
    jl_num(&j, "l2_bytes", d->l2_bytes > 0 ? d->l2_bytes : NAN);
    jl_str(&j, "arch", d->arch[0] ? d->arch : NULL);
    if (d->cpu) {
        jl_str(&j, "isa", d->isa);
        jl_str(&j, "isa_available", d->isa_available);
        jl_str(&j, "isa_note", d->isa_note[0] ? d->isa_note : NULL);
        jl_bool(&j, "virtual", d->is_virtual);
    }
    jl_end(&j);
}

/* Progress of the current test. */
void probe_emit_progress(const char *test, double fraction) {
    struct jline j;
    jl_begin(&j, "progress");
    jl_str(&j, "test", test);
    jl_num(&j, "fraction", fraction < 0 ? 0 : fraction > 1 ? 1 : fraction);
    const struct probe_progress *p = &probe_progress_now;
    if (p->count > 0) {
        jl_num(&j, "index", p->index);
        jl_num(&j, "count", p->count);
        jl_num(&j, "eta_seconds", p->eta_s >= 0 ? p->eta_s : NAN);
    }
    jl_end(&j);
}

/* One measured kernel. */
void probe_emit_result(const struct probe_result *r) {
    struct jline j;
    double med = r->st.median_s, best = r->st.best_s;
    jl_begin(&j, "result");
    jl_str(&j, "test", r->test);
    jl_str(&j, "method", r->method);
    if (r->threads)
        jl_num(&j, "threads", r->threads);
    if (r->bits) {
        jl_num(&j, "bits", r->bits);
        jl_num(&j, "group", r->group);
    }
    if (r->batch)
        jl_num(&j, "batch", r->batch);
    if (r->rows)
        jl_num(&j, "rows", (double)r->rows);
    if (r->cols)
        jl_num(&j, "cols", (double)r->cols);
    jl_num(&j, "bytes", r->bytes);
    jl_num(&j, "flop", r->flop > 0 ? r->flop : NAN);
    jl_num(&j, "seconds", med);
    jl_num(&j, "best_seconds", best);
    jl_num(&j, "bytes_per_s", med > 0 ? r->bytes / med : NAN);
    jl_num(&j, "best_bytes_per_s", best > 0 ? r->bytes / best : NAN);
    jl_num(&j, "flop_per_s", r->flop > 0 && med > 0 ? r->flop / med : NAN);
    jl_num(&j, "spread", r->st.spread);
    jl_bool(&j, "flagged", r->st.spread > PROBE_SPREAD_FLAG);
    jl_num(&j, "samples", r->st.samples);
    jl_bool(&j, "verified", r->verified);
    jl_num(&j, "max_error", r->max_error);
    if (r->isa)
        jl_str(&j, "isa", r->isa);
    if (r->reference_bytes_per_s > 0)
        jl_num(&j, "reference_bytes_per_s", r->reference_bytes_per_s);
    if (r->note)
        jl_str(&j, "note", r->note);
    if (r->in_cache_bytes_per_s > 0)
        jl_num(&j, "in_cache_bytes_per_s", r->in_cache_bytes_per_s);
    if (r->weights > 0) {
        jl_num(&j, "weight_count", r->weights);
        jl_num(&j, "weight_bytes", r->weight_bytes);
        jl_num(&j, "weights_per_s", med > 0 ? r->weights / med : NAN);
        jl_num(&j, "weight_bytes_per_s", med > 0 ? r->weight_bytes / med : NAN);
        jl_num(&j, "activation_bits", r->activation_bits);
    }
    jl_end(&j);
}

/* A test skipped on this device. */
void probe_emit_skip(const char *test, const char *reason) {
    struct jline j;
    jl_begin(&j, "skip");
    jl_str(&j, "test", test);
    jl_str(&j, "reason", reason);
    jl_end(&j);
}

/* One row of the error lab. */
void probe_emit_error_row(const char *backend, const struct probe_error_row *e) {
    struct jline j;
    jl_begin(&j, "result");
    jl_str(&j, "test", "error");
    jl_str(&j, "method", backend);
    jl_num(&j, "bits", e->bits);
    if (e->group)
        jl_num(&j, "group", e->group);
    else
        jl_str(&j, "group", "matrix");
    jl_str(&j, "weights", e->weights);
    jl_num(&j, "n", (double)e->n);
    jl_num(&j, "relative_error", e->relative_error);
    jl_num(&j, "zero_fraction", e->zero_fraction);
    jl_num(&j, "outlier_ratio", e->outlier_ratio);
    jl_bool(&j, "verified", e->verified);
    jl_end(&j);
}

/* The error event. */
static void emit_error(const char *code, const char *msg) {
    struct jline j;
    jl_begin(&j, "error");
    jl_str(&j, "message", msg);
    jl_str(&j, "code", code);
    jl_end(&j);
}

/* An error event naming the failing rank and host (the all-reduce). */
void probe_emit_error_at(const char *code, const char *msg, int rank, const char *host) {
    struct jline j;
    jl_begin(&j, "error");
    jl_str(&j, "message", msg);
    jl_str(&j, "code", code);
    if (rank >= 0) {
        jl_num(&j, "rank", rank);
        jl_str(&j, "host", host);
    }
    jl_end(&j);
}

/* One all-reduce size (the names of issue 15; algbw and busbw as
 * nccl-tests defines them, probe_allreduce.h). */
void probe_emit_allreduce(const struct probe_ar_result *r) {
    struct jline j;
    double med = r->st.median_s, best = r->st.best_s;
    double alg = probe_ar_algbw(r->bytes, med), balg = probe_ar_algbw(r->bytes, best);
    jl_begin(&j, "result");
    jl_str(&j, "test", "allreduce");
    jl_str(&j, "method", r->transport);
    jl_str(&j, "transport", r->transport);
    jl_str(&j, "dtype", r->dtype);
    jl_num(&j, "bytes", r->bytes);
    jl_num(&j, "count", (double)r->count);
    jl_num(&j, "ranks", r->ranks);
    jl_num(&j, "hosts", r->hosts);
    jl_num(&j, "seconds", med);
    jl_num(&j, "best_seconds", best);
    jl_num(&j, "algbw_bytes_per_s", alg);
    jl_num(&j, "busbw_bytes_per_s", probe_ar_busbw(alg, r->ranks));
    jl_num(&j, "best_busbw_bytes_per_s", probe_ar_busbw(balg, r->ranks));
    jl_num(&j, "spread", r->st.spread);
    jl_bool(&j, "flagged", r->st.spread > PROBE_SPREAD_FLAG);
    jl_num(&j, "samples", r->st.samples);
    jl_num(&j, "iterations_per_sample", r->iterations);
    jl_bool(&j, "verified", r->verified);
    jl_num(&j, "max_error", r->max_error);
    if (r->note)
        jl_str(&j, "note", r->note);
    jl_end(&j);
}

/* The latency-bandwidth fit of one dtype. */
void probe_emit_ar_fit(const char *transport, const char *dtype, unsigned ranks, unsigned hosts,
                       const struct probe_ar_fit *f) {
    struct jline j;
    jl_begin(&j, "fit");
    jl_str(&j, "test", "allreduce");
    jl_str(&j, "transport", transport);
    jl_str(&j, "dtype", dtype);
    jl_num(&j, "ranks", ranks);
    jl_num(&j, "hosts", hosts);
    jl_num(&j, "points", f->points);
    jl_num(&j, "alpha_s", f->ok ? f->alpha_s : NAN);
    jl_num(&j, "beta_bytes_per_s", f->ok ? f->beta_bytes_per_s : NAN);
    jl_num(&j, "bus_beta_bytes_per_s",
           f->ok ? f->beta_bytes_per_s * probe_ar_bus_factor(ranks) : NAN);
    jl_num(&j, "residual", f->ok ? f->residual : NAN);
    jl_bool(&j, "ok", f->ok);
    jl_end(&j);
}

/* ---- command line ------------------------------------------------------ */

static const struct probe_backend *const backends[] = {
    &probe_backend_cpu,
#ifdef VRAMLAB_PROBE_HAVE_CUDA
    &probe_backend_cuda,
#endif
};

/* Usage text. */
static void usage(FILE *f) {
    fputs("usage: vramlab-probe [--device cpu|cuda[:N]] [--quick] [--tests LIST]\n"
          "                     [--threads N] [--batches 1,16] [--build-info] [--help]\n"
          "       vramlab-probe --allreduce [--device cpu|cuda] [--sizes LIST] [--full]\n"
          "                     [--dtypes fp32,bf16] [--iters N] [--budget SECONDS]\n"
          "                     [--deadline SECONDS]\n"
          "Runs memory and quantization kernels and writes JSON Lines on stdout:\n"
          "device, progress, result and error events. The all-reduce runs NCCL over\n"
          "this process's GPUs, or under mpirun one rank per process (--device cuda:\n"
          "NCCL bootstrapped through MPI; --device cpu: MPI_Allreduce); not in --quick\n"
          "unless named. --sizes: 8,64K,1M or MIN-MAX[x2|x4|x8|x16] (default\n"
          PROBE_AR_DEFAULT ", quick " PROBE_AR_QUICK ", --full " PROBE_AR_FULL "). Each size's "
          "timed samples fit in\n"
          "--budget seconds (default 1; at least 5 samples, at most --iters) and the\n"
          "sizes above one that outruns it are left out; --full (or --budget 0):\n"
          "--iters samples (default 20) of every size, after 5 warm-ups.\n"
          "tests: ",
          f);
    for (int i = 0; i < PROBE_TEST_COUNT; i++)
        fprintf(f, "%s%s", i ? "," : "", probe_tests[i].id);
    fputs("\n", f);
}

/* --build-info: one JSON line. */
static void build_info(void) {
    struct jline j;
    jl_begin(&j, "build");
    jl_str(&j, "version", PACKAGE_VERSION);
#ifdef VRAMLAB_NVCC_ARCH
    jl_str(&j, "cuda_architectures", VRAMLAB_NVCC_ARCH);
#else
    jl_str(&j, "cuda_architectures", NULL);
#endif
#ifdef VRAMLAB_CUDA_VERSION
    jl_str(&j, "cuda_toolkit", VRAMLAB_CUDA_VERSION);
#else
    jl_str(&j, "cuda_toolkit", NULL);
#endif
#ifdef VRAMLAB_PROBE_HAVE_MPI
    jl_bool(&j, "mpi", true);
#else
    jl_bool(&j, "mpi", false);
#endif
    jl_raw(&j, ",\"backends\":[");
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
        jl_raw(&j, "%s\"%s\"", i ? "," : "", backends[i]->name);
    jl_raw(&j, "]");
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const char *s = backends[i]->build_info ? backends[i]->build_info() : NULL;
        if (s) {
            char key[48];
            snprintf(key, sizeof key, "%s_info", backends[i]->name);
            jl_str(&j, key, s);
        }
    }
    jl_end(&j);
}

/* Select tests from a comma-separated list; -1 on an unknown name. */
static int parse_tests(const char *list, struct probe_opts *o, char *msg, size_t len) {
    memset(o->want, 0, sizeof o->want);
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int i = 0; i < PROBE_TEST_COUNT; i++)
            if (strcmp(t, probe_tests[i].id) == 0)
                k = i;
        if (k < 0) {
            static const struct argv_spec spec = {probe_options, PROBE_OPT_COUNT, false, false,
                                                  NULL};
            char ids[256] = "a comma-separated list of ";
            for (int i = 0; i < PROBE_TEST_COUNT; i++)
                snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%s", i ? "," : "",
                         probe_tests[i].id);
            argv_error_value(&spec, msg, len, "tests", ids, t);
            return -1;
        }
        o->want[k] = true;
    }
    return 0;
}

/* What the command line asked for. */
struct probe_args {
    struct probe_opts *o;
    struct probe_ar_opts *ao;
    const char *device, *sizes;
    bool tests_given, help, build_info;
    char *msg;
    size_t len;
    bool full, budget_given; /* --full; --budget given (it still counts under --full) */
};

/* A whole number in [lo, hi]; -1 with the one wording in msg. */
static int probe_whole(struct probe_args *a, const struct argv_spec *spec, const char *name,
                       const char *v, double lo, double hi, const char *what, double *out) {
    char *end;
    double x = strtod(v, &end);
    if (*v && !*end && x == floor(x) && x >= lo && x <= hi) {
        *out = x;
        return 0;
    }
    argv_error_value(spec, a->msg, a->len, name, what, v);
    return -1;
}

/* One option of the command line (kernels/argv.h's visit). */
static int probe_visit(void *ctx, int i, const char *v) {
    static const struct argv_spec spec = {probe_options, PROBE_OPT_COUNT, false, false, NULL};
    struct probe_args *a = ctx;
    char what[96];
    double x;

    switch ((enum probe_opt)i) {
    case PROBE_OPT_HELP:
        a->help = true;
        return 1;
    case PROBE_OPT_BUILD_INFO:
        a->build_info = true;
        return 1;
    case PROBE_OPT_QUICK:
        a->o->quick = true;
        return 0;
    case PROBE_OPT_DEVICE:
        a->device = v;
        return 0;
    case PROBE_OPT_TESTS:
        if (parse_tests(v, a->o, a->msg, a->len) != 0)
            return -1;
        a->tests_given = true;
        a->ao->explicit_test = a->o->want[PROBE_ALLREDUCE];
        return 0;
    case PROBE_OPT_ALLREDUCE:
        if (!a->tests_given)
            memset(a->o->want, 0, sizeof a->o->want);
        a->tests_given = true;
        a->o->want[PROBE_ALLREDUCE] = a->ao->explicit_test = true;
        return 0;
    case PROBE_OPT_SIZES:
        a->sizes = v;
        return 0;
    case PROBE_OPT_DTYPES:
        return probe_ar_parse_dtypes(v, a->ao->dtype, a->msg, a->len) != 0 ? -1 : 0;
    case PROBE_OPT_ITERS:
        snprintf(what, sizeof what, "%d..%d timed samples", PROBE_AR_MIN_ITERS,
                 PROBE_AR_MAX_ITERS);
        if (probe_whole(a, &spec, "iters", v, PROBE_AR_MIN_ITERS, PROBE_AR_MAX_ITERS, what, &x))
            return -1;
        a->ao->iters = (unsigned)x;
        return 0;
    case PROBE_OPT_DEADLINE: {
        char *end;
        x = strtod(v, &end);
        if (!*v || *end || !(x >= 1 && x <= 86400)) {
            argv_error_value(&spec, a->msg, a->len, "deadline", "1..86400 seconds per collective",
                             v);
            return -1;
        }
        a->ao->deadline_s = x;
        return 0;
    }
    case PROBE_OPT_BATCHES: {
        /* 1..16 each (the kernels' KERN_CPU_BATCH_MAX), increasing, at most 3 */
        char list[64], *save = NULL;
        const char *want = "up to 3 increasing batches of 1..16, comma-separated";
        snprintf(list, sizeof list, "%s", v);
        a->o->n_batches = 0;
        for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char *end;
            long n = strtol(t, &end, 10);
            if (*end || n < 1 || n > 16 || a->o->n_batches == 3 ||
                (a->o->n_batches && (unsigned)n <= a->o->batches[a->o->n_batches - 1])) {
                argv_error_value(&spec, a->msg, a->len, "batches", want, v);
                return -1;
            }
            a->o->batches[a->o->n_batches++] = (unsigned)n;
        }
        if (a->o->n_batches == 0) {
            argv_error_value(&spec, a->msg, a->len, "batches", want, v);
            return -1;
        }
        return 0;
    }
    case PROBE_OPT_FULL:
        a->full = true;
        return 0;
    case PROBE_OPT_BUDGET: {
        char *end;
        x = strtod(v, &end);
        if (!*v || *end || !(x == 0 || (x >= 0.01 && x <= 3600))) {
            argv_error_value(&spec, a->msg, a->len, "budget",
                             "0 (none) or 0.01..3600 seconds per size", v);
            return -1;
        }
        a->ao->budget_s = x;
        a->budget_given = true;
        return 0;
    }
    case PROBE_OPT_THREADS:
        if (probe_whole(a, &spec, "threads", v, 1, 1024, "a whole number from 1 to 1024", &x))
            return -1;
        a->o->threads = (unsigned)x;
        return 0;
    default:
        return 0;
    }
}

/* Entry point. */
int main(int argc, char **argv) {
    static const struct argv_spec spec = {probe_options, PROBE_OPT_COUNT, false, false, NULL};
    struct probe_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < PROBE_TEST_COUNT; i++)
        o.want[i] = true;
    char msg[512];
    struct probe_ar_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.dtype[PROBE_AR_FP32] = ao.dtype[PROBE_AR_BF16] = true;
    ao.iters = PROBE_AR_MIN_ITERS;
    ao.deadline_s = PROBE_AR_DEADLINE_S;
    ao.budget_s = PROBE_AR_BUDGET_S;
    struct probe_args args = {&o, &ao, "cpu", NULL, false, false, false, msg, sizeof msg, false, false};

    /* One scanner and one wording for every command of vramlab and the
     * probe (kernels/argv.h); a usage error is an error event. */
    int scan = argv_scan(&spec, argc, argv, probe_visit, &args, msg, sizeof msg);
    if (args.help) {
        usage(stdout);
        return 0;
    }
    if (args.build_info) {
        build_info();
        return 0;
    }
    if (scan != 0) {
        emit_error(PROBE_ERR_USAGE, msg);
        return 2;
    }
    const char *device = args.device, *sizes = args.sizes;
    bool tests_given = args.tests_given, full = args.full, budget_given = args.budget_given;

    const struct probe_backend *be = NULL;
    if (strcmp(device, "cpu") == 0) {
        be = &probe_backend_cpu;
    } else if (strncmp(device, "cuda", 4) == 0 && (device[4] == 0 || device[4] == ':')) {
        if (device[4] == ':') {
            char *end;
            long n = strtol(device + 5, &end, 10);
            if (*end || n < 0 || n > 255) {
                argv_error_value(&spec, msg, sizeof msg, "device",
                                 "cpu, cuda or cuda:N with N from 0 to 255", device);
                emit_error(PROBE_ERR_USAGE, msg);
                return 2;
            }
            o.device = (int)n;
        }
#ifdef VRAMLAB_PROBE_HAVE_CUDA
        be = &probe_backend_cuda;
#else
        emit_error(PROBE_ERR_NO_CUDA,
                   "this vramlab-probe was built without CUDA (configure --with-cuda)");
        return 4;
#endif
    } else {
        argv_error_value(&spec, msg, sizeof msg, "device", "cpu, cuda or cuda:N", device);
        emit_error(PROBE_ERR_USAGE, msg);
        return 2;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* a reader that went away must not kill us mid-kernel: writes fail instead */
    signal(SIGPIPE, SIG_IGN);

    /* The all-reduce: off in --quick unless named; its sizes; under an
     * MPI launcher it is the only test (every rank would run the rest). */
    if (o.quick && !ao.explicit_test)
        o.want[PROBE_ALLREDUCE] = false;
    bool ar = o.want[PROBE_ALLREDUCE];
    o.want[PROBE_ALLREDUCE] = false;
    if (ar) {
        size_t elem = ao.dtype[PROBE_AR_FP32] ? 4 : 2;
        /* --full: today's whole sweep, every sample (a --budget given still counts) */
        if (full && !budget_given)
            ao.budget_s = 0;
        const char *list = sizes     ? sizes
                           : full    ? PROBE_AR_FULL
                           : o.quick ? PROBE_AR_QUICK
                                     : PROBE_AR_DEFAULT;
        if (probe_ar_parse_sizes(list, elem, &ao.sizes, msg, sizeof msg) != 0) {
            emit_error(PROBE_ERR_USAGE, msg);
            return 2;
        }
    }
    if (probe_ar_launched_by_mpi()) {
        bool others = false;
        for (int i = 0; i < PROBE_TEST_COUNT; i++)
            others = others || o.want[i];
        if (!ar || (others && tests_given)) {
            emit_error(PROBE_ERR_USAGE, "under an MPI launcher the probe runs only the "
                                        "all-reduce (--allreduce): every rank would run the "
                                        "other tests alone");
            return 2;
        }
        memset(o.want, 0, sizeof o.want);
    }

    const char *code = PROBE_ERR_INTERNAL;
    msg[0] = 0;
    if (be != &probe_backend_cpu)
        for (int i = 0; i < PROBE_TEST_COUNT; i++)
            if (probe_tests[i].cpu_only && o.want[i]) {
                o.want[i] = false;
                probe_emit_skip(probe_tests[i].id,
                                i == PROBE_FMA_PEAK
                                    ? "CPU only: the GPU's roofline comes from the GEMM sweep"
                                    : "CPU only (the GPU kernels are FP16, W8A16 and W4A16)");
            }
    bool others = false;
    for (int i = 0; i < PROBE_TEST_COUNT; i++)
        others = others || o.want[i];
    int rc = others ? be->run(&o, &code, msg, sizeof msg) : 0;
    if (rc == 0 && ar && !probe_cancelled())
        return probe_ar_run(&ao, be != &probe_backend_cpu, others);
    if (probe_cancelled())
        return 128 + (int)probe_cancel_flag;
    if (rc != 0) {
        emit_error(code, msg[0] ? msg : "the probe failed");
        if (strcmp(code, PROBE_ERR_USAGE) == 0) /* e.g. VRAMLAB_CPU_ISA names no path here */
            return 2;
        return strcmp(code, PROBE_ERR_VERIFY) == 0 ? 5 : 4;
    }
    return 0;
}
