/*
 * bench_engine.c: speed of the engine (make bench). Goals (issue 2): one
 * full estimate under 5 microseconds; a layout search over 16,384 GPUs under
 * 10 ms. Prints the median of repeated runs; asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"

/* Seconds from a monotonic clock. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Compare doubles for qsort. */
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    struct engine_scenario sc;
    engine_scenario_defaults(&sc);
    struct engine_model *m = &sc.model;
    strcpy(m->id, "llama-3.1-405b");
    m->has_arch = true;
    m->layers = 126, m->hidden = 16384, m->ffn = 53248, m->heads = 128, m->kv_heads = 8;
    m->head_dim = 128, m->vocab = 128256, m->gated = true;
    sc.weight_format.bits = 16;
    sc.kv_format.bits = 16;
    sc.gpu.memory_bytes = 80.0 * 1073741824.0;
    sc.gpu.bandwidth_bytes_per_s = 3.35e12;
    sc.gpu.flops[ENGINE_COMPUTE_FP16] = sc.gpu.flops[ENGINE_COMPUTE_BF16] = 989e12;
    sc.gpu.gpus_per_node = 8;
    sc.gpus = 16384, sc.tp = 8, sc.pp = 16, sc.dp = 128, sc.mode = ENGINE_MODE_TRAIN;
    sc.micro_batches = 64;

    enum { REPS = 15, N = 200000 };
    double t[REPS], sink = 0;
    struct engine_estimate e;
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        for (int i = 0; i < N; i++) {
            sc.context = 4096 + (i & 1023);
            engine_estimate(&sc, &e);
            sink += e.memory.total;
        }
        t[r] = (now() - t0) / N;
    }
    qsort(t, REPS, sizeof t[0], cmp);
    printf("engine_estimate (405B, 16384 GPUs, training): median %.3f us, best %.3f us\n",
           t[REPS / 2] * 1e6, t[0] * 1e6);

    struct engine_layout out[32];
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        size_t n = engine_search_layouts(&sc, 16384, out, 32);
        t[r] = now() - t0;
        sink += (double)n;
    }
    qsort(t, REPS, sizeof t[0], cmp);
    printf("engine_search_layouts (G = 16384): median %.3f ms, best %.3f ms\n", t[REPS / 2] * 1e3,
           t[0] * 1e3);
    return sink < 0; /* keep the work observable */
}
