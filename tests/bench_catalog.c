/*
 * bench_catalog.c: how long loading the embedded default catalog takes
 * (the target is under 5 ms, so startup never waits on YAML). Prints the
 * best and the median of many loads; speed is measured here, never
 * asserted in tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "catalog/catalog.h"

#define RUNS 200

/* Seconds on the monotonic clock. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Order doubles ascending (qsort). */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Load the default catalog RUNS times and report best and median. */
int main(void) {
    static double t[RUNS];
    size_t gpus = 0, models = 0, formats = 0;
    int i;

    for (i = 0; i < RUNS; i++) {
        struct catalog c;
        struct catalog_diag d = {0};
        double t0 = now_s();
        catalog_init(&c);
        if (catalog_load_default(&c, &d) < 0) {
            fprintf(stderr, "embedded catalog does not load:\n%s", d.text ? d.text : "");
            return 1;
        }
        t[i] = now_s() - t0;
        gpus = c.n_gpus, models = c.n_models, formats = c.n_formats;
        catalog_free(&c);
        catalog_diag_free(&d);
    }
    qsort(t, RUNS, sizeof t[0], cmp_double);
    printf("catalog_load_default: %zu gpus, %zu models, %zu formats\n", gpus, models, formats);
    printf("  best %.3f ms, median %.3f ms over %d loads (target < 5 ms)\n", t[0] * 1e3,
           t[RUNS / 2] * 1e3, RUNS);
    return 0;
}
