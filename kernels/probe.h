/*
 * probe.h: vramlab-probe, the measuring process (shared spec measure.md).
 *
 * The probe speaks JSON Lines on stdout, one event per line, flushed:
 *   {"event":"device", ...}    what runs the tests
 *   {"event":"progress","test":T,"fraction":F}
 *   {"event":"result","test":T, ...}   one measured kernel
 *   {"event":"error","message":M,"code":C}
 * Backends (cpu always, cuda when configure found nvcc) sit behind a small
 * vtable and report through the probe_emit_* functions below. Units: bytes,
 * seconds, bytes/s, FLOP/s; bandwidths count bytes read + bytes written
 * (copy = 2n), the convention of the seed's 333 GB/s.
 * Valid C and C++ (the CUDA backend includes it).
 */
#ifndef VRAMLAB_PROBE_H
#define VRAMLAB_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Test ids, in run order (style.md: probe tests are a table). */
enum probe_test_id {
    PROBE_COPY = 0,
    PROBE_READ,
    PROBE_FMA_PEAK,
    PROBE_GEMV_FP16,
    PROBE_GEMV_BF16,
    PROBE_GEMM,
    PROBE_QUANTIZE,
    PROBE_DEQUANTIZE,
    PROBE_W8A16,
    PROBE_W4A16,
    PROBE_W8A8, /* CPU: the W8A16 / W4A16 weights with x in 8 bits (runtimes' decode) */
    PROBE_W4A8,
    PROBE_ERROR,
    PROBE_ALLREDUCE, /* kernels/probe_allreduce.c: not in --quick unless named */
    PROBE_TEST_COUNT
};

/* One row of the test table. */
struct probe_test {
    const char *id;
    const char *label;
    const char *bytes_counted; /* what "bytes" means, for the reader */
    bool cuda_only;
    bool cpu_only;
};
extern const struct probe_test probe_tests[PROBE_TEST_COUNT];

/* Options of one run. */
struct probe_opts {
    int device; /* CUDA device ordinal */
    bool quick; /* small sizes, a sanity run */
    bool want[PROBE_TEST_COUNT];
    unsigned threads; /* CPU: 0 = all online CPUs */
    /* --batches: the CPU GEMVs' batches (up to 3, increasing); n_batches
     * 0 = the default (1, 4, 16; --quick: 1). vramlab's --device cpu asks
     * for 1,16 at quick sizes: the decode's and the prefill's rates. */
    unsigned batches[3], n_batches;
};

/* Error codes of the `error` event (and the messages' categories). */
#define PROBE_ERR_USAGE      "usage"
#define PROBE_ERR_NO_CUDA    "no-cuda"
#define PROBE_ERR_NO_DRIVER  "no-driver"
#define PROBE_ERR_DRIVER_OLD "driver-too-old"
#define PROBE_ERR_NO_DEVICE  "no-device"
#define PROBE_ERR_OOM        "out-of-memory"
#define PROBE_ERR_FAULT      "kernel-fault"
#define PROBE_ERR_VERIFY     "verify-failed"
#define PROBE_ERR_CANCELLED  "cancelled"
#define PROBE_ERR_INTERNAL   "internal"

/* A backend: run the selected tests, emitting events; returns 0 or -1 with
 * a code (one of PROBE_ERR_*) and a message, which main turns into an
 * `error` event. */
struct probe_backend {
    const char *name;
    int (*run)(const struct probe_opts *o, const char **code, char *msg, size_t msglen);
    /* One line for --build-info, or NULL. */
    const char *(*build_info)(void);
};
extern const struct probe_backend probe_backend_cpu;
#ifdef VRAMLAB_PROBE_HAVE_CUDA
extern const struct probe_backend probe_backend_cuda;
#endif

/* Set (to the signal's number) by SIGTERM, SIGINT or SIGHUP; backends
 * poll it between samples and inside long kernels (every few MB of
 * work), unwind and free; main then exits with 128 + that number. */
extern volatile sig_atomic_t probe_cancel_flag;
bool probe_cancelled(void);

/* Where the run stands, added to every progress event when count > 0:
 * "index" (1-based step), "count" (steps of this run), "eta_seconds"
 * (time left for the whole run; negative: unknown, written null). */
struct probe_progress {
    unsigned index, count;
    double eta_s;
};
extern struct probe_progress probe_progress_now;

/* Summary of timed samples. */
#define PROBE_MAX_SAMPLES 64
#define PROBE_SPREAD_FLAG 0.05 /* coefficient of variation flagged above 5% */
struct probe_stats {
    double median_s, best_s, spread; /* spread = stddev / mean of the times */
    unsigned samples;
};
/* Summarise n sample times (seconds per repetition). */
void probe_stats_summarise(const double *t, unsigned n, struct probe_stats *st);

/* The device event. Fields that do not apply are 0 / NULL (written null). */
struct probe_device {
    const char *backend;
    char name[128];
    double memory_bytes;
    double theoretical_bytes_per_s; /* 0: unknown */
    unsigned compute_units;         /* SMs or CPU threads */
    double memory_clock_hz;
    unsigned bus_width_bits;
    double l2_bytes; /* L2 (GPU) or last-level cache (CPU) */
    char arch[32];   /* "sm_90", "x86_64" */
    /* CPU: the kernels' instruction-set path ("avx2"), every path this
     * CPU runs ("scalar,avx2"), and whether a hypervisor was detected
     * (written only by the CPU backend). */
    char isa[16];
    char isa_available[64];
    char isa_note[320]; /* why the path is not the widest (a failed self-check), or "" */
    bool is_virtual;
    bool cpu;
};
void probe_emit_device(const struct probe_device *d);

/* Progress of the current test, 0..1. */
void probe_emit_progress(const char *test, double fraction);

/* One measured kernel. */
struct probe_result {
    const char *test;   /* probe_tests[].id */
    const char *method; /* "kernel", "memcpy", "loop", "cublas", ... */
    unsigned threads;   /* CPU threads (0 on the GPU) */
    unsigned bits;      /* 0 when not quantized */
    unsigned group;
    unsigned batch;    /* vectors (GEMV/GEMM); 0 when not a product */
    size_t rows, cols; /* matrix shape, or 0 x elements */
    double bytes;      /* bytes moved by one repetition */
    double flop;       /* FLOP of one repetition (0: not a compute test) */
    struct probe_stats st;
    bool verified;    /* equal to the CPU reference within tolerance */
    double max_error; /* the largest error seen, in tolerance units */
    const char *isa;  /* CPU: the path that ran ("avx2"), NULL elsewhere */
    /* copy: a STREAM-style plain loop measured beside it (same run, same
     * threads, same arrays), bytes/s; 0 when not measured */
    double reference_bytes_per_s;
    const char *note; /* a short remark shown with the result, or NULL */
    /* CPU GEMV: the same kernel on a slice of W in the last-level cache
     * (bytes/s), when it is no faster than from memory; 0: not written */
    double in_cache_bytes_per_s;
    /* GEMVs: the weights ("weight_count", rows x cols) and their bytes
     * ("weight_bytes": codes + scales), written with their rates
     * "weights_per_s" and "weight_bytes_per_s"
     * (a decode step's dequantize-and-dot rate, what a runtime's
     * tokens/s follows), and the bits of x ("activation_bits": 16, or 8
     * for W8A8 / W4A8); 0: not a GEMV */
    double weights, weight_bytes;
    unsigned activation_bits;
};
void probe_emit_result(const struct probe_result *r);

/* A test that cannot run here (a visible skip, not an error):
 * {"event":"skip","test":T,"reason":R}. */
void probe_emit_skip(const char *test, const char *reason);

/* One row of the error lab (no timing). */
struct probe_error_row {
    unsigned bits;
    unsigned group;      /* 0 = per matrix */
    const char *weights; /* "gaussian" or "outliers" */
    double relative_error, zero_fraction, outlier_ratio;
    size_t n;
    bool verified; /* device statistics equal the CPU twin's */
};
void probe_emit_error_row(const char *backend, const struct probe_error_row *e);

/* The error-lab weights: n Gaussian N(0, 0.02) weights (the seed's
 * normal(0, 0.02)), and for "outliers" PROBE_LAB_OUTLIERS of them at 13 sd. */
#define PROBE_LAB_SD       0.02
#define PROBE_LAB_OUTLIERS 4

#ifdef __cplusplus
}
#endif

#endif
