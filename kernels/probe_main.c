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
          "                     [--threads N] [--build-info] [--help]\n"
          "       vramlab-probe --allreduce [--device cpu|cuda] [--sizes LIST]\n"
          "                     [--dtypes fp32,bf16] [--iters N] [--deadline SECONDS]\n"
          "Runs memory and quantization kernels and writes JSON Lines on stdout:\n"
          "device, progress, result and error events. The all-reduce runs NCCL over\n"
          "this process's GPUs, or under mpirun one rank per process (--device cuda:\n"
          "NCCL bootstrapped through MPI; --device cpu: MPI_Allreduce); not in --quick\n"
          "unless named. --sizes: 8,64K,1M or MIN-MAX[x2|x4] (default " PROBE_AR_DEFAULT
          ", quick " PROBE_AR_QUICK ").\n"
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
            snprintf(msg, len, "unknown test '%s' (see --help)", t);
            return -1;
        }
        o->want[k] = true;
    }
    return 0;
}

/* Entry point. */
int main(int argc, char **argv) {
    struct probe_opts o;
    memset(&o, 0, sizeof o);
    for (int i = 0; i < PROBE_TEST_COUNT; i++)
        o.want[i] = true;
    const char *device = "cpu";
    char msg[512];
    struct probe_ar_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.dtype[PROBE_AR_FP32] = ao.dtype[PROBE_AR_BF16] = true;
    ao.iters = PROBE_AR_MIN_ITERS;
    ao.deadline_s = PROBE_AR_DEADLINE_S;
    const char *sizes = NULL;
    bool tests_given = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--build-info") == 0) {
            build_info();
            return 0;
        } else if (strcmp(a, "--quick") == 0) {
            o.quick = true;
        } else if (strcmp(a, "--device") == 0 && i + 1 < argc) {
            device = argv[++i];
        } else if (strncmp(a, "--device=", 9) == 0) {
            device = a + 9;
        } else if ((strcmp(a, "--tests") == 0 && i + 1 < argc) || strncmp(a, "--tests=", 8) == 0) {
            const char *list = a[7] == '=' ? a + 8 : argv[++i];
            if (parse_tests(list, &o, msg, sizeof msg) != 0) {
                emit_error(PROBE_ERR_USAGE, msg);
                return 2;
            }
            tests_given = true;
            ao.explicit_test = o.want[PROBE_ALLREDUCE];
        } else if (strcmp(a, "--allreduce") == 0) {
            if (!tests_given)
                memset(o.want, 0, sizeof o.want);
            tests_given = true;
            o.want[PROBE_ALLREDUCE] = ao.explicit_test = true;
        } else if ((strcmp(a, "--sizes") == 0 || strcmp(a, "--dtypes") == 0 ||
                    strcmp(a, "--iters") == 0 || strcmp(a, "--deadline") == 0) &&
                   i + 1 >= argc) {
            snprintf(msg, sizeof msg, "%s needs a value (see --help)", a);
            emit_error(PROBE_ERR_USAGE, msg);
            return 2;
        } else if (strcmp(a, "--sizes") == 0) {
            sizes = argv[++i];
        } else if (strcmp(a, "--dtypes") == 0) {
            if (probe_ar_parse_dtypes(argv[++i], ao.dtype, msg, sizeof msg) != 0) {
                emit_error(PROBE_ERR_USAGE, msg);
                return 2;
            }
        } else if (strcmp(a, "--iters") == 0 || strcmp(a, "--deadline") == 0) {
            char *end;
            double v = strtod(argv[++i], &end);
            bool iters = a[2] == 'i';
            if (*end || argv[i] == end || (iters && (v < PROBE_AR_MIN_ITERS ||
                                                     v > PROBE_AR_MAX_ITERS || v != floor(v))) ||
                (!iters && !(v >= 1 && v <= 86400))) {
                if (iters)
                    snprintf(msg, sizeof msg, "--iters expects %d..%d timed samples, found '%s'",
                             PROBE_AR_MIN_ITERS, PROBE_AR_MAX_ITERS, argv[i]);
                else
                    snprintf(msg, sizeof msg,
                             "--deadline expects 1..86400 seconds per collective, found '%s'",
                             argv[i]);
                emit_error(PROBE_ERR_USAGE, msg);
                return 2;
            }
            if (iters)
                ao.iters = (unsigned)v;
            else
                ao.deadline_s = v;
        } else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 1024) {
                emit_error(PROBE_ERR_USAGE, "--threads expects 1..1024");
                return 2;
            }
            o.threads = (unsigned)n;
        } else {
            snprintf(msg, sizeof msg, "unknown option '%s' (see --help)", a);
            emit_error(PROBE_ERR_USAGE, msg);
            return 2;
        }
    }

    const struct probe_backend *be = NULL;
    if (strcmp(device, "cpu") == 0) {
        be = &probe_backend_cpu;
    } else if (strncmp(device, "cuda", 4) == 0 && (device[4] == 0 || device[4] == ':')) {
        if (device[4] == ':') {
            char *end;
            long n = strtol(device + 5, &end, 10);
            if (*end || n < 0 || n > 255) {
                emit_error(PROBE_ERR_USAGE, "--device cuda:N expects a device number");
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
        snprintf(msg, sizeof msg, "unknown device '%s' (cpu, cuda or cuda:N)", device);
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
        if (probe_ar_parse_sizes(sizes ? sizes : o.quick ? PROBE_AR_QUICK : PROBE_AR_DEFAULT,
                                 elem, &ao.sizes, msg, sizeof msg) != 0) {
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
