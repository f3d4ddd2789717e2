/*
 * bench_inverse.c: how long each inverse question takes (goal: at most 1 s
 * each, issue 27), for every model of the embedded catalog, in inference
 * and in training, on an H100 SXM (80 GiB) and an RTX 3080 (10 GB), at the
 * model's defaults, at a 1M context and at a batch of 4,096: the fewest
 * GPUs (the training knobs free, searched up to 65,536), then, on the
 * best layout of that count (16,384 GPUs where none fits), the best layout
 * itself, the largest batch, the longest context and the largest model of
 * the family. Then the four `vramlab plan --json --mode train --model
 * llama-3.1-405b` runs of issue 27 as whole processes (from the build
 * directory). CPU time of the thread (the machine is shared) and wall time.
 * A benchmark, never a test.
 */
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "engine/engine.h"

extern char **environ;

enum { Q_FEWEST, Q_LAYOUT, Q_BATCH, Q_CONTEXT, Q_MODEL, Q_COUNT };
static const char *const q_names[Q_COUNT] = {
    "fewest GPUs (knobs free, up to 65,536)", "best layout of that count",
    "largest batch", "longest context", "largest of the family"};

/* The slowest case of one question. */
struct worst {
    double cpu, wall, total_cpu;
    size_t n;
    char what[160];
};

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Record one timing. */
static void note(struct worst *w, double cpu, double wall, const char *what) {
    w->total_cpu += cpu;
    w->n++;
    if (cpu > w->cpu) {
        w->cpu = cpu;
        w->wall = wall;
        snprintf(w->what, sizeof w->what, "%s", what);
    }
}

#define TIMED(w, what, stmt)                                                                       \
    do {                                                                                           \
        double c0_ = clock_s(CLOCK_THREAD_CPUTIME_ID), t0_ = clock_s(CLOCK_MONOTONIC);            \
        stmt;                                                                                      \
        note(w, clock_s(CLOCK_THREAD_CPUTIME_ID) - c0_, clock_s(CLOCK_MONOTONIC) - t0_, what);    \
    } while (0)

/* A scenario as plan builds it by default for a catalog model. */
static int make_scenario(const struct catalog *cat, const struct engine_model *m, const char *gpu,
                         enum engine_mode mode, int variant, struct engine_scenario *sc) {
    const struct engine_gpu *g = catalog_find_gpu(cat, gpu);
    const struct engine_format *f16 = catalog_find_format(cat, "fp16");
    if (!g || !f16)
        return -1;
    engine_scenario_defaults(sc);
    sc->model = *m;
    sc->gpu = *g;
    sc->weight_format = *f16;
    sc->kv_format = *f16;
    sc->mode = mode;
    sc->recompute = ENGINE_RECOMPUTE_SELECTIVE;
    if (variant == 1)
        sc->context = 1u << 20;
    if (variant == 2)
        sc->batch = 4096;
    sc->prompt = 0;
    /* The model's published global batch, as plan's note says. */
    if (mode == ENGINE_MODE_TRAIN && m->global_batch_tokens > 0) {
        double seqs = fmax(1, round(m->global_batch_tokens / sc->context));
        if (fmod(seqs, sc->batch) == 0 && seqs < 4e9)
            sc->global_batch = (uint32_t)seqs;
    }
    return 0;
}

/* The four plan runs of issue 27 as processes: wall and CPU time. */
static void bench_processes(void) {
    static char *extra[][3] = {{NULL}, {"--gpu", "rtx-3080", NULL}, {"--context", "1M", NULL},
                               {"--batch", "4096", NULL}};
    if (access("./vramlab", X_OK) != 0) {
        printf("\n(./vramlab not found: run from the build directory for the plan runs)\n");
        return;
    }
    printf("\nvramlab plan --json --mode train --model llama-3.1-405b ... (whole process, best of 5)\n");
    for (int k = 0; k < 4; k++) {
        char *argv[12] = {"./vramlab", "plan", "--json", "--mode", "train", "--model",
                          "llama-3.1-405b"};
        int n = 7;
        for (int i = 0; extra[k][i]; i++)
            argv[n++] = extra[k][i];
        argv[n] = NULL;
        double best_wall = 1e9, best_cpu = 1e9;
        for (int r = 0; r < 5; r++) {
            posix_spawn_file_actions_t fa;
            pid_t pid;
            int status;
            struct rusage ru;
            posix_spawn_file_actions_init(&fa);
            posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
            double t0 = clock_s(CLOCK_MONOTONIC);
            if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
                break;
            posix_spawn_file_actions_destroy(&fa);
            if (wait4(pid, &status, 0, &ru) < 0)
                break;
            double wall = clock_s(CLOCK_MONOTONIC) - t0;
            double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
                         (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
            best_wall = fmin(best_wall, wall);
            best_cpu = fmin(best_cpu, cpu);
        }
        char label[48];
        snprintf(label, sizeof label, "%s %s", k ? extra[k][0] : "(defaults)", k ? extra[k][1] : "");
        printf("  %-22s wall %8.1f ms   CPU %8.1f ms\n", label, best_wall * 1e3, best_cpu * 1e3);
    }
}

int main(void) {
    struct catalog cat;
    struct catalog_diag d = {0};
    struct worst w[Q_COUNT] = {{0}};
    static const char *const gpus[] = {"h100-sxm", "rtx-3080"};
    static const char *const variants[] = {"defaults", "context 1M", "batch 4096"};
    size_t cases = 0, found = 0, none = 0;
    double over = 0;

    catalog_init(&cat);
    if (catalog_load_default(&cat, &d) != 0) {
        fprintf(stderr, "bench_inverse: %s", d.text ? d.text : "catalog\n");
        return 1;
    }
    struct engine_model *fam = malloc(cat.n_models * sizeof *fam + 1);
    if (!fam)
        return 1;
    for (size_t mi = 0; mi < cat.n_models; mi++)
        for (int mode = 0; mode < 2; mode++)
            for (int gi = 0; gi < 2; gi++)
                for (int v = 0; v < 3; v++) {
                    struct engine_scenario sc;
                    const struct engine_model *m = &cat.models[mi];
                    enum engine_mode md = mode ? ENGINE_MODE_TRAIN : ENGINE_MODE_INFER;
                    char what[160];
                    if (make_scenario(&cat, m, gpus[gi], md, v, &sc) != 0)
                        continue;
                    snprintf(what, sizeof what, "%s %s on %s, %s", m->id, engine_mode_name(md),
                             gpus[gi], variants[v]);
                    struct engine_fewest_query q = {
                        .space = {ENGINE_RANK_THROUGHPUT, md == ENGINE_MODE_INFER
                                                              ? 0u
                                                              : ENGINE_KNOBS_TRAINING},
                        .max_gpus = 65536};
                    struct engine_fewest f;
                    uint32_t g = 0;
                    TIMED(&w[Q_FEWEST], what, g = engine_fewest_gpus(&sc, &q, NULL, &f));
                    cases++;
                    found += g > 0;
                    none += f.status == ENGINE_FEWEST_NONE_AT_ALL;
                    uint32_t at = g ? g : 16384;
                    struct engine_layout l;
                    bool ok = false;
                    TIMED(&w[Q_LAYOUT], what, ok = engine_best_layout_in(&sc, at, &q.space, &l));
                    if (!ok)
                        continue;
                    engine_layout_apply(&sc, &l);
                    TIMED(&w[Q_BATCH], what, (void)engine_max_batch(&sc));
                    TIMED(&w[Q_CONTEXT], what, (void)engine_max_context(&sc));
                    size_t n = 0;
                    for (size_t k = 0; k < cat.n_models; k++)
                        if (m->family[0] && !strcmp(cat.models[k].family, m->family))
                            fam[n++] = cat.models[k];
                    TIMED(&w[Q_MODEL], what, (void)engine_largest_fitting(&sc, fam, n));
                }
    printf("inverse questions: %zu models x {infer, train} x {h100-sxm, rtx-3080} x {defaults, "
           "context 1M, batch 4096} = %zu cases (%zu with a fewest count, %zu where none fits "
           "at all)\n\n",
           cat.n_models, cases, found, none);
    printf("%-40s %12s %12s %12s  %s\n", "question", "worst CPU", "its wall", "mean CPU",
           "worst case");
    for (int i = 0; i < Q_COUNT; i++) {
        printf("%-40s %9.1f ms %9.1f ms %9.2f ms  %s\n", q_names[i], w[i].cpu * 1e3,
               w[i].wall * 1e3, w[i].n ? w[i].total_cpu / (double)w[i].n * 1e3 : 0, w[i].what);
        over = fmax(over, w[i].cpu);
    }
    printf("\ngoal (issue 27): each at most 1 s; the worst took %.3f s of CPU\n", over);
    bench_processes();
    free(fam);
    catalog_free(&cat);
    catalog_diag_free(&d);
    return 0;
}
