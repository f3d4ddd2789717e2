/*
 * probe_allreduce_math.c: the all-reduce test's definitions, parsers,
 * fit and check patterns (see probe_allreduce.h); no MPI, no CUDA, so the
 * tests link it from libkern.a.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kern_half.h"
#include "kernels/probe_allreduce.h"

static const char *const dtype_names[PROBE_AR_DTYPES] = {"fp32", "bf16"};

/* "fp32", "bf16". */
const char *probe_ar_dtype_name(enum probe_ar_dtype d) {
    return (unsigned)d < PROBE_AR_DTYPES ? dtype_names[d] : "?";
}

/* 4, 2. */
size_t probe_ar_dtype_size(enum probe_ar_dtype d) {
    return d == PROBE_AR_BF16 ? 2 : 4;
}

/* Parse one size ("8", "64K", "1MiB", "2G") at *p, advancing it; -1 when
 * there is no number. K = 1024, as all_reduce_perf's -b/-e. */
static int parse_one(const char **p, double *out) {
    const char *s = *p;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    double x = (double)v;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        x *= 1024.0;
        end++;
        break;
    case 'M':
        x *= 1024.0 * 1024;
        end++;
        break;
    case 'G':
        x *= 1024.0 * 1024 * 1024;
        end++;
        break;
    default:
        break;
    }
    if (end > s && isalpha((unsigned char)end[-1]) && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    *p = end;
    *out = x;
    return 0;
}

/* Format a size for a message: "6", "64K", "1G". */
static void size_text(double b, char *buf, size_t len) {
    static const char *const units[] = {"", "K", "M", "G", "T"};
    int k = 0;
    while (k < 4 && b >= 1024 && fmod(b, 1024) == 0) {
        b /= 1024;
        k++;
    }
    snprintf(buf, len, "%.0f%s", b, units[k]);
}

/* Check one size; -1 with a message. */
static int size_ok(double b, size_t elem, char *msg, size_t len) {
    char t[32];
    size_text(b, t, sizeof t);
    if (b <= 0) {
        snprintf(msg, len,
                 "--sizes: 0 bytes: nothing to reduce (sizes start at %zu bytes, one element)",
                 elem);
        return -1;
    }
    if (b > PROBE_AR_MAX_BYTES) {
        snprintf(msg, len, "--sizes: %s bytes is above the 64 GiB this test allows", t);
        return -1;
    }
    if (fmod(b, (double)elem) != 0) {
        snprintf(msg, len, "--sizes: %s bytes is not a whole number of %zu-byte %s elements", t,
                 elem, elem == 4 ? "FP32" : "BF16");
        return -1;
    }
    return 0;
}

/* Append a size; -1 when the list is full. */
static int push_size(struct probe_ar_sizes *o, double b, char *msg, size_t len) {
    if (o->n >= PROBE_AR_MAX_SIZES) {
        snprintf(msg, len, "--sizes: more than %d sizes", PROBE_AR_MAX_SIZES);
        return -1;
    }
    o->bytes[o->n++] = b;
    return 0;
}

/* Parse --sizes (see probe_allreduce.h). */
int probe_ar_parse_sizes(const char *s, size_t elem, struct probe_ar_sizes *out, char *msg,
                         size_t len) {
    out->n = 0;
    if (!s || !*s) {
        snprintf(msg, len, "--sizes: expected sizes like 8,64K,1M or a range 8-1G, found ''");
        return -1;
    }
    const char *p = s;
    while (*p) {
        const char *tok = p;
        double lo, hi, f = 4;
        if (parse_one(&p, &lo) != 0)
            goto bad;
        if (*p == '-') {
            p++;
            if (parse_one(&p, &hi) != 0)
                goto bad;
            if (*p == 'x' || *p == 'X') {
                p++;
                char *end;
                long k = strtol(p, &end, 10);
                if (end == p || (k != 2 && k != 4 && k != 8 && k != 16)) {
                    snprintf(msg, len,
                             "--sizes: the factor of a range is 2, 4, 8 or 16, found '%.*s'",
                             (int)strcspn(p, ","), p);
                    return -1;
                }
                f = (double)k;
                p = end;
            }
            if (*p && *p != ',')
                goto bad;
            if (size_ok(lo, elem, msg, len) != 0 || size_ok(hi, elem, msg, len) != 0)
                return -1;
            if (lo > hi) {
                snprintf(msg, len, "--sizes: the range '%.*s' goes down (MIN-MAX)", (int)(p - tok),
                         tok);
                return -1;
            }
            for (double b = lo; b < hi; b *= f)
                if (push_size(out, b, msg, len) != 0)
                    return -1;
            if (push_size(out, hi, msg, len) != 0)
                return -1;
        } else {
            if (*p && *p != ',')
                goto bad;
            if (size_ok(lo, elem, msg, len) != 0 || push_size(out, lo, msg, len) != 0)
                return -1;
        }
        if (*p == ',') {
            p++;
            if (!*p)
                goto bad;
        }
        continue;
    bad:
        snprintf(msg, len,
                 "--sizes: expected a size like 8, 64K, 1M, 1G or a range MIN-MAX[xF], "
                 "found '%.*s'",
                 (int)strcspn(tok, ","), tok);
        return -1;
    }
    return 0;
}

/* Warm-ups of one size (see probe_allreduce.h). */
unsigned probe_ar_warmups(double budget_s, double first_s) {
    if (!(budget_s > 0))
        return PROBE_AR_WARMUP;
    if (!(first_s > 0))
        return 1;
    double k = floor(budget_s / 4 / first_s);
    return k < 1 ? 1 : k > PROBE_AR_WARMUP ? PROBE_AR_WARMUP : (unsigned)k;
}

/* Timed samples of one size. */
unsigned probe_ar_samples(double budget_s, double sample_s, unsigned iters) {
    if (!(budget_s > 0) || iters <= PROBE_AR_BUDGET_MIN)
        return iters;
    if (!(sample_s > 0))
        return PROBE_AR_BUDGET_MIN;
    double k = floor(budget_s / sample_s);
    return k < PROBE_AR_BUDGET_MIN ? PROBE_AR_BUDGET_MIN : k > iters ? iters : (unsigned)k;
}

/* Whether the larger sizes are left out. */
bool probe_ar_stop_growing(double budget_s, double op_s) {
    return budget_s > 0 && op_s * PROBE_AR_BUDGET_MIN > budget_s;
}

/* Parse --dtypes. */
int probe_ar_parse_dtypes(const char *s, bool want[PROBE_AR_DTYPES], char *msg, size_t len) {
    for (int d = 0; d < PROBE_AR_DTYPES; d++)
        want[d] = false;
    const char *p = s ? s : "";
    bool any = false;
    while (*p) {
        size_t n = strcspn(p, ",");
        int k = -1;
        for (int d = 0; d < PROBE_AR_DTYPES; d++)
            if (n == strlen(dtype_names[d]) && strncmp(p, dtype_names[d], n) == 0)
                k = d;
        if (k < 0) {
            snprintf(msg, len, "--dtypes: expected fp32 or bf16, found '%.*s'", (int)n, p);
            return -1;
        }
        want[k] = any = true;
        p += n;
        if (*p == ',')
            p++;
    }
    if (!any) {
        snprintf(msg, len, "--dtypes: expected fp32, bf16 or fp32,bf16, found '%s'", s ? s : "");
        return -1;
    }
    return 0;
}

/* 2(n-1)/n. */
double probe_ar_bus_factor(unsigned ranks) {
    return ranks > 1 ? 2.0 * (ranks - 1.0) / ranks : 0.0;
}

/* bytes / seconds. */
double probe_ar_algbw(double bytes, double seconds) {
    return bytes > 0 && seconds > 0 && isfinite(bytes) && isfinite(seconds) ? bytes / seconds : NAN;
}

/* algbw x 2(n-1)/n. */
double probe_ar_busbw(double algbw, unsigned ranks) {
    return algbw * probe_ar_bus_factor(ranks);
}

/* The fit (see probe_allreduce.h): minimise sum (1 - a v - b u)^2 with
 * v = 1/t, u = bytes/t (the relative error of t = a + b bytes), columns
 * scaled to 1 for the normal equations. */
void probe_ar_fit_points(const double *bytes, const double *seconds, unsigned n,
                         struct probe_ar_fit *out) {
    memset(out, 0, sizeof *out);
    out->alpha_s = out->beta_bytes_per_s = out->residual = NAN;
    double vmax = 0, umax = 0, xmin = INFINITY, xmax = 0;
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!(bytes[i] > 0) || !(seconds[i] > 0) || !isfinite(seconds[i]))
            continue;
        k++;
        vmax = fmax(vmax, 1 / seconds[i]);
        umax = fmax(umax, bytes[i] / seconds[i]);
        xmin = fmin(xmin, bytes[i]);
        xmax = fmax(xmax, bytes[i]);
    }
    out->points = k;
    if (k < 2 || !(xmax > xmin))
        return;
    double svv = 0, svu = 0, suu = 0, sv = 0, su = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!(bytes[i] > 0) || !(seconds[i] > 0) || !isfinite(seconds[i]))
            continue;
        double v = 1 / seconds[i] / vmax, u = bytes[i] / seconds[i] / umax;
        svv += v * v;
        svu += v * u;
        suu += u * u;
        sv += v;
        su += u;
    }
    double det = svv * suu - svu * svu;
    double a = det != 0 ? (sv * suu - su * svu) / det : NAN;
    double b = det != 0 ? (svv * su - svu * sv) / det : NAN;
    if (!(a >= 0) || !isfinite(b)) {
        /* through the origin: t = bytes / beta */
        a = 0;
        b = su / suu;
    }
    /* back to seconds and seconds per byte */
    double alpha = a / vmax, g = b / umax;
    if (!(g > 0))
        return;
    double r2 = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!(bytes[i] > 0) || !(seconds[i] > 0) || !isfinite(seconds[i]))
            continue;
        double e = (seconds[i] - alpha - g * bytes[i]) / seconds[i];
        r2 += e * e;
    }
    out->alpha_s = alpha;
    out->beta_bytes_per_s = 1 / g;
    out->residual = sqrt(r2 / k);
    out->ok = true;
}

/* Rank r's element i. */
int probe_ar_pattern(unsigned rank, size_t i) {
    return (int)((i + rank) % 3) - 1;
}

/* The sum over ranks 0..n-1: whole cycles of three add to 0. */
int probe_ar_expected(unsigned ranks, size_t i) {
    int s = 0;
    for (unsigned j = 0; j < ranks % 3; j++)
        s += probe_ar_pattern(j, i);
    return s;
}

/* Fill rank r's contribution. */
void probe_ar_fill(void *buf, enum probe_ar_dtype d, size_t count, unsigned rank) {
    unsigned c = rank % 3; /* (i + rank) mod 3, kept incrementally */
    if (d == PROBE_AR_BF16) {
        static const uint16_t v[3] = {0xBF80, 0x0000, 0x3F80}; /* -1, 0, 1 */
        uint16_t *p = buf;
        for (size_t i = 0; i < count; i++) {
            p[i] = v[c];
            c = c == 2 ? 0 : c + 1;
        }
    } else {
        float *p = buf;
        for (size_t i = 0; i < count; i++) {
            p[i] = (float)c - 1.0f;
            c = c == 2 ? 0 : c + 1;
        }
    }
}

/* Fill with NaN. */
void probe_ar_poison(void *buf, enum probe_ar_dtype d, size_t count) {
    if (d == PROBE_AR_BF16) {
        uint16_t *p = buf;
        for (size_t i = 0; i < count; i++)
            p[i] = 0x7FC0;
    } else {
        float *p = buf;
        for (size_t i = 0; i < count; i++)
            p[i] = NAN;
    }
}

/* Compare with the expected sums. */
size_t probe_ar_check(const void *buf, enum probe_ar_dtype d, size_t count, unsigned ranks,
                      double *max_error) {
    int e[3];
    for (int k = 0; k < 3; k++)
        e[k] = probe_ar_expected(ranks, (size_t)k);
    double tol = d == PROBE_AR_BF16 && ranks > 256 ? ranks / 128.0 : 0;
    size_t bad = 0;
    double worst = 0;
    unsigned c = 0;
    for (size_t i = 0; i < count; i++) {
        double v = d == PROBE_AR_BF16 ? kern_bf16_to_f32(((const uint16_t *)buf)[i])
                                      : ((const float *)buf)[i];
        double err = fabs(v - e[c]);
        if (!(err <= tol)) {
            bad++;
            worst = isfinite(err) && err > worst ? err : isfinite(err) ? worst : INFINITY;
        }
        c = c == 2 ? 0 : c + 1;
    }
    if (max_error)
        *max_error = worst;
    return bad;
}
