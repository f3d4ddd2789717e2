/*
 * measure_ar.c: the all-reduce measurement read back, predicted and
 * turned into calibration (see measure_ar.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/measure_ar.h"

/* 2(n-1)/n. */
double measure_ar_bus_factor(unsigned ranks) {
    return ranks > 1 ? 2.0 * (ranks - 1.0) / ranks : 0.0;
}

/* A fit event or a saved fit into f. */
bool measure_ar_fit_read(const struct probe_json *j, struct measure_ar_fit *f) {
    memset(f, 0, sizeof *f);
    const char *t = probe_json_str(j, "test"), *d = probe_json_str(j, "dtype");
    if (!t || strcmp(t, "allreduce") != 0 || !probe_json_get(j, "alpha_s"))
        return false;
    snprintf(f->dtype, sizeof f->dtype, "%s", d ? d : "?");
    snprintf(f->transport, sizeof f->transport, "%s",
             probe_json_str(j, "transport") ? probe_json_str(j, "transport") : "?");
    double ranks = probe_json_num(j, "ranks", 0), hosts = probe_json_num(j, "hosts", 1);
    f->ranks = ranks >= 0 && ranks < 1e7 ? (unsigned)ranks : 0;
    f->hosts = hosts >= 1 && hosts < 1e7 ? (unsigned)hosts : 1;
    f->points = (unsigned)probe_json_num(j, "points", 0);
    f->alpha_s = probe_json_num(j, "alpha_s", NAN);
    f->beta_bytes_per_s = probe_json_num(j, "beta_bytes_per_s", NAN);
    f->bus_beta_bytes_per_s = f->beta_bytes_per_s * measure_ar_bus_factor(f->ranks);
    f->residual = probe_json_num(j, "residual", NAN);
    f->valid = f->ranks >= 2 && isfinite(f->alpha_s) && f->alpha_s >= 0 &&
               isfinite(f->beta_bytes_per_s) && f->beta_bytes_per_s > 0;
    return true;
}

/* The ring model's seconds. */
double measure_ar_predicted_seconds(const struct engine_scenario *sc, double bytes, unsigned ranks,
                                    unsigned hosts) {
    if (ranks < 2 || !(bytes > 0))
        return NAN;
    double bw = engine_allreduce_bandwidth(sc, hosts > 1);
    if (!(bw > 0))
        return NAN;
    return engine_allreduce_seconds(bytes, ranks, bw, sc->allreduce_latency_s);
}

/* Its bus bandwidth. */
double measure_ar_predicted_busbw(const struct engine_scenario *sc, double bytes, unsigned ranks,
                                  unsigned hosts) {
    double t = measure_ar_predicted_seconds(sc, bytes, ranks, hosts);
    return t > 0 ? bytes / t * measure_ar_bus_factor(ranks) : NAN;
}

/* Calibrate the communication inputs. */
int measure_ar_calibrate(struct engine_scenario *sc, const struct measure_ar_fit *f) {
    if (f->ranks < 2 || !f->valid)
        return -1;
    if (f->hosts > 1)
        sc->inter_node_bytes_per_s = f->bus_beta_bytes_per_s;
    else
        sc->intra_node_bytes_per_s = 2.0 * f->bus_beta_bytes_per_s;
    sc->allreduce_latency_s = f->alpha_s;
    return 0;
}

/* The fit calibration uses: FP32 first, else BF16, else the first. */
const struct measure_ar_fit *measure_ar_pick(const struct measure_ar_fit *fits, size_t n) {
    const struct measure_ar_fit *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(fits[i].dtype, "fp32") == 0)
            return &fits[i];
        if (!best)
            best = &fits[i];
    }
    return best;
}

/* Read a whole file (at most 16 MiB); NULL with err. */
static char *slurp(const char *path, size_t *n, char *err, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, len, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, k = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + k, 1, cap - k, f);
        k += got;
        if (k < cap)
            break;
        if (cap >= (16u << 20)) {
            snprintf(err, len, _("%s: larger than 16 MiB: not a measurement"), path);
            free(buf);
            fclose(f);
            return NULL;
        }
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        snprintf(err, len, _("%s: out of memory"), path);
        return NULL;
    }
    buf[k] = 0;
    *n = k;
    return buf;
}

/* The fits of a --json object's "allreduce_fit" array. */
static size_t fits_of_object(const char *text, struct measure_ar_fit *out, size_t cap) {
    const char *p = strstr(text, "\"allreduce_fit\"");
    size_t n = 0;
    if (!p || !(p = strchr(p, '[')))
        return 0;
    for (p++; *p && *p != ']' && n < cap;) {
        const char *o = strchr(p, '{'), *c = o ? strchr(o, '}') : NULL;
        const char *close = strchr(p, ']');
        if (!o || !c || (close && close < o))
            break;
        struct probe_json j;
        char e[160];
        if (probe_json_parse(o, (size_t)(c - o + 1), &j, e, sizeof e) == 0 &&
            measure_ar_fit_read(&j, &out[n]))
            n++;
        p = c + 1;
    }
    return n;
}

/* The fit events of JSON lines. */
static size_t fits_of_lines(char *text, struct measure_ar_fit *out, size_t cap) {
    static struct probe_event ev; /* large */
    size_t n = 0;
    for (char *line = text; line && *line && n < cap;) {
        char *nl = strchr(line, '\n');
        size_t k = nl ? (size_t)(nl - line) : strlen(line);
        probe_event_from_line(line, k, &ev);
        if (ev.kind == PROBE_EV_FIT && measure_ar_fit_read(&ev.j, &out[n]))
            n++;
        line = nl ? nl + 1 : NULL;
    }
    return n;
}

/* The fit to calibrate with from a file. */
int measure_ar_load(const char *path, struct measure_ar_fit *f, char *err, size_t len) {
    size_t n = 0;
    char *text = slurp(path, &n, err, len);
    if (!text)
        return -1;
    struct measure_ar_fit fits[8];
    const char *s = text;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    /* one object over many lines (vramlab measure --json), or JSON lines */
    bool object = *s == '{';
    size_t k = strstr(text, "\"allreduce_fit\"") ? fits_of_object(text, fits, 8)
                                                 : fits_of_lines(text, fits, 8);
    free(text);
    if (!object) {
        snprintf(err, len,
                 _("%s: not a measurement (expected the JSON of `vramlab measure --allreduce "
                   "--json` or the probe's JSON lines)"),
                 path);
        return -1;
    }
    const struct measure_ar_fit *pick = measure_ar_pick(fits, k);
    if (!pick) {
        snprintf(err, len,
                 _("%s: no all-reduce fit in it (measure with `vramlab measure --allreduce --json` "
                   "or the probe's --allreduce)"),
                 path);
        return -1;
    }
    *f = *pick;
    if (f->ranks < 2) {
        snprintf(err, len, _("%s: one rank: nothing to reduce, nothing to calibrate with"), path);
        return -1;
    }
    if (!f->valid) {
        snprintf(err, len,
                 _("%s: the %s fit of %u ranks has no bandwidth (the times did not grow with the "
                   "size)"),
                 path, f->dtype, f->ranks);
        return -1;
    }
    return 0;
}
