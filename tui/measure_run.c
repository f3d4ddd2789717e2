/*
 * measure_run.c: one probe run's events collected, and the `vramlab
 * measure --json` object (see measure_run.h; the member names are a
 * contract, issue 6).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/json.h"
#include "tui/measure_run.h"

/* Append a parsed line to a growing array; -1 when out of memory. */
static int push(struct probe_json **a, size_t *n, size_t *cap, const struct probe_json *j) {
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 32;
        struct probe_json *p = realloc(*a, nc * sizeof *p);
        if (!p)
            return -1;
        *a = p;
        *cap = nc;
    }
    (*a)[(*n)++] = *j;
    return 0;
}

/* s, or d when s is NULL. */
const char *measure_str_or(const char *s, const char *d) {
    return s ? s : d;
}

/* Record one event (see measure_run.h). */
void measure_run_take(struct measure_run *m, const struct probe_event *ev) {
    switch (ev->kind) {
    case PROBE_EV_DEVICE:
        m->device = ev->j;
        m->have_device = true;
        break;
    case PROBE_EV_RESULT: {
        const char *t = probe_json_str(&ev->j, "test");
        int rc = t && strcmp(t, "error") == 0
                     ? push(&m->lab, &m->n_lab, &m->cap_lab, &ev->j)
                     : push(&m->results, &m->n_results, &m->cap_results, &ev->j);
        if (rc != 0) {
            m->failed = true;
            snprintf(m->error, sizeof m->error, "out of memory");
        }
        break;
    }
    case PROBE_EV_SKIP:
        if (push(&m->skips, &m->n_skips, &m->cap_skips, &ev->j) != 0)
            m->failed = true;
        break;
    case PROBE_EV_ERROR:
        m->failed = true;
        snprintf(m->error, sizeof m->error, "%s",
                 measure_str_or(probe_json_str(&ev->j, "message"), "the probe reported an error"));
        snprintf(m->error_code, sizeof m->error_code, "%s",
                 measure_str_or(probe_json_str(&ev->j, "code"), "error"));
        break;
    case PROBE_EV_TRUNCATED:
        m->truncated = true;
        break;
    case PROBE_EV_BAD:
        m->bad_lines++;
        break;
    case PROBE_EV_PROGRESS:
    case PROBE_EV_OTHER:
        break;
    }
}

/* The predicted rate of a result (see measure_run.h). */
double measure_predicted(const struct engine_gpu *g, const struct probe_json *r, bool *is_flop) {
    const char *t = probe_json_str(r, "test");
    *is_flop = t && strcmp(t, "gemm") == 0;
    if (!g || !t || !(g->bandwidth_bytes_per_s > 0))
        return NAN;
    if (*is_flop) {
        double bytes = probe_json_num(r, "bytes", NAN), flop = probe_json_num(r, "flop", NAN);
        double roof = g->bandwidth_bytes_per_s * flop / bytes;
        double peak = g->flops[ENGINE_COMPUTE_FP16];
        return peak > 0 && peak < roof ? peak : roof;
    }
    return g->bandwidth_bytes_per_s;
}

/* C: the median bytes/s of the copy result with the most threads (the
 * all-threads CPU row; the GPU has one row), NAN when absent. */
double measure_copy_c(const struct measure_run *m) {
    double c = NAN, threads = -1;
    for (size_t i = 0; i < m->n_results; i++) {
        const char *t = probe_json_str(&m->results[i], "test");
        double v = probe_json_num(&m->results[i], "bytes_per_s", NAN);
        double n = probe_json_num(&m->results[i], "threads", 0);
        if (t && strcmp(t, "copy") == 0 && (n > threads || (n == threads && v > c))) {
            c = v;
            threads = n;
        }
    }
    return c;
}

/* Copy every member of a parsed line into the current JSON object. */
static void json_members(struct json_writer *w, const struct probe_json *j, const char *skip) {
    for (size_t i = 0; i < j->n; i++) {
        const struct probe_json_field *f = &j->f[i];
        if (strcmp(f->key, "event") == 0 || (skip && strcmp(f->key, skip) == 0))
            continue;
        json_key(w, f->key);
        switch (f->type) {
        case PROBE_JSON_STR:
            json_string(w, f->str);
            break;
        case PROBE_JSON_NUM:
            json_number(w, f->num);
            break;
        case PROBE_JSON_BOOL:
            json_bool(w, f->b);
            break;
        default:
            json_null(w);
            break;
        }
    }
}

/* The --json object (see measure_run.h). */
void measure_run_json(FILE *f, const struct measure_run *m, const struct engine_gpu *g) {
    struct json_writer w;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "device");
    if (m->have_device) {
        json_begin_object(&w);
        json_members(&w, &m->device, NULL);
        json_key(&w, "catalog_id");
        if (g)
            json_string(&w, g->id);
        else
            json_null(&w);
        json_end_object(&w);
    } else {
        json_null(&w);
    }
    json_key(&w, "copy_bytes_per_s");
    json_number(&w, measure_copy_c(m));
    json_key(&w, "results");
    json_begin_array(&w);
    double c = measure_copy_c(m);
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        json_begin_object(&w);
        json_members(&w, r, NULL);
        bool is_flop;
        double pred = measure_predicted(g, r, &is_flop);
        double meas = probe_json_num(r, is_flop ? "flop_per_s" : "bytes_per_s", NAN);
        json_key(&w, is_flop ? "predicted_flop_per_s" : "predicted_bytes_per_s");
        json_number(&w, pred);
        json_key(&w, "ratio");
        json_number(&w, pred > 0 ? meas / pred : NAN);
        json_key(&w, "fraction_of_copy");
        json_number(&w, !is_flop && c > 0 ? meas / c : NAN);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "error_lab");
    json_begin_array(&w);
    for (size_t i = 0; i < m->n_lab; i++) {
        json_begin_object(&w);
        json_members(&w, &m->lab[i], "test");
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "skipped");
    json_begin_array(&w);
    for (size_t i = 0; i < m->n_skips; i++) {
        json_begin_object(&w);
        json_members(&w, &m->skips[i], NULL);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "error");
    if (m->failed || m->truncated) {
        json_begin_object(&w);
        json_key(&w, "message");
        json_string(&w,
                    m->error[0] ? m->error : "the probe's output ended in the middle of a line");
        json_key(&w, "code");
        json_string(&w, m->error_code[0] ? m->error_code : "truncated");
        json_end_object(&w);
    } else {
        json_null(&w);
    }
    json_key(&w, "complete");
    json_bool(&w, !m->failed && !m->truncated);
    json_end_object(&w);
    fputc('\n', f);
}

/* Free the arrays and zero the run. */
void measure_run_free(struct measure_run *m) {
    free(m->results);
    free(m->lab);
    free(m->skips);
    memset(m, 0, sizeof *m);
}

/* The catalog GPU matching the device's name, or NULL. */
const struct engine_gpu *measure_match(const struct measure_run *m, const struct catalog *cat) {
    const char *name = m->have_device ? probe_json_str(&m->device, "name") : NULL;
    return name && cat ? catalog_match_device(cat, name) : NULL;
}
