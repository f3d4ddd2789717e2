/*
 * probe_stats.c: the summary of timed samples (shared spec measure.md,
 * "Method"): the median is the headline, the best (minimum time) is what
 * STREAM and BabelStream report, the spread is the coefficient of
 * variation (sample standard deviation / mean), flagged above 5%.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"

/* Ascending comparison of doubles for qsort. */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, best and coefficient of variation of n sample times. */
void probe_stats_summarise(const double *t, unsigned n, struct probe_stats *st) {
    double s[PROBE_MAX_SAMPLES];
    if (n > PROBE_MAX_SAMPLES)
        n = PROBE_MAX_SAMPLES;
    memset(st, 0, sizeof *st);
    if (n == 0)
        return;
    memcpy(s, t, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    st->samples = n;
    st->best_s = s[0];
    st->median_s = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    double mean = 0, var = 0;
    for (unsigned i = 0; i < n; i++)
        mean += s[i];
    mean /= n;
    for (unsigned i = 0; i < n; i++)
        var += (s[i] - mean) * (s[i] - mean);
    st->spread = n > 1 && mean > 0 ? sqrt(var / (n - 1)) / mean : 0.0;
}
