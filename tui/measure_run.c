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

#include "tui/i18n.h"
#include "tui/json.h"
#include "tui/measure_run.h"
#include "tui/report.h"

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

/* A result's note in the reader's language: the probe writes English for
 * its JSON; the one note with a figure, a GEMV bound by the cores, is said
 * again from its field (in_cache_bytes_per_s) through the formatter. */
void measure_result_note(const struct probe_json *j, char *buf, size_t len) {
    double cache = probe_json_num(j, "in_cache_bytes_per_s", 0);
    if (cache > 0) {
        char a[32];
        report_bandwidth(cache, a, sizeof(a));
        snprintf(buf, len, _("bound by the cores: %s from cache"), a);
        return;
    }
    snprintf(buf, len, "%s", measure_str_or(probe_json_str(j, "note"), ""));
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
        int rc = t && strcmp(t, "error") == 0 ? push(&m->lab, &m->n_lab, &m->cap_lab, &ev->j)
                 : t && strcmp(t, "allreduce") == 0
                     ? push(&m->ar, &m->n_ar, &m->cap_ar, &ev->j)
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
    case PROBE_EV_FIT:
        if (push(&m->fits, &m->n_fits, &m->cap_fits, &ev->j) != 0)
            m->failed = true;
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

/* Whether a result's rate is FLOP/s (see measure_run.h). */
bool measure_is_flop_test(const char *test) {
    return test && (strcmp(test, "gemm") == 0 || strcmp(test, "fma-peak") == 0);
}

/* The predicted rate of a result (see measure_run.h). */
double measure_predicted(const struct engine_gpu *g, const struct probe_json *r, bool *is_flop) {
    const char *t = probe_json_str(r, "test");
    *is_flop = measure_is_flop_test(t);
    if (!g || !t || !(g->bandwidth_bytes_per_s > 0))
        return NAN;
    if (strcmp(t, "fma-peak") == 0)
        return NAN; /* a CPU test: no GPU figure stands for it */
    if (*is_flop) {
        double bytes = probe_json_num(r, "bytes", NAN), flop = probe_json_num(r, "flop", NAN);
        double roof = g->bandwidth_bytes_per_s * flop / bytes;
        double peak = g->flops[ENGINE_COMPUTE_FP16];
        return peak > 0 && peak < roof ? peak : roof;
    }
    return g->bandwidth_bytes_per_s;
}

/* The predicted rate of a CPU result (see measure_run.h). */
double measure_predicted_cpu(const struct catalog_cpu *c, const struct probe_json *r,
                             bool *is_flop) {
    const char *t = probe_json_str(r, "test");
    *is_flop = measure_is_flop_test(t);
    if (!c || !t)
        return NAN;
    if (strcmp(t, "fma-peak") == 0)
        return c->fp32_flop_per_s > 0 ? c->fp32_flop_per_s : NAN;
    if (*is_flop)
        return NAN;
    return c->bandwidth_bytes_per_s > 0 ? c->bandwidth_bytes_per_s : NAN;
}

/* Whether the device is the CPU. */
bool measure_on_cpu(const struct measure_run *m) {
    const char *b = m->have_device ? probe_json_str(&m->device, "backend") : NULL;
    return b && strcmp(b, "cpu") == 0;
}

/* The device event's "virtual": 1, 0, or -1 when absent. */
int measure_virtual(const struct measure_run *m) {
    const struct probe_json_field *f = m->have_device ? probe_json_get(&m->device, "virtual") : NULL;
    return f && f->type == PROBE_JSON_BOOL ? (f->b ? 1 : 0) : -1;
}

/* The catalog CPU of the device (CPU backend only), or NULL. */
const struct catalog_cpu *measure_match_cpu(const struct measure_run *m,
                                            const struct catalog *cat) {
    const char *name = measure_on_cpu(m) ? probe_json_str(&m->device, "name") : NULL;
    return name && cat ? catalog_match_cpu(cat, name) : NULL;
}

/* What a CPU measurement can be compared with. */
enum measure_cpu_kind measure_cpu_kind(const struct catalog_cpu *cpu, int virt) {
    if (virt == 1)
        return cpu ? MEASURE_CPU_VIRTUAL : MEASURE_CPU_UNKNOWN_VIRTUAL;
    return cpu ? MEASURE_CPU_KNOWN : MEASURE_CPU_UNKNOWN;
}

/* A short phrase for the kind: English (the --json "message"), marked for
 * gettext; the text report translates it where it prints it. */
const char *measure_cpu_phrase(enum measure_cpu_kind k) {
    switch (k) {
    case MEASURE_CPU_KNOWN:
        return N_("a catalog CPU: measured against its data sheet");
    case MEASURE_CPU_VIRTUAL:
        return N_("a virtual machine (a share of the host's memory system): no data-sheet ratio");
    case MEASURE_CPU_UNKNOWN:
        return N_("unknown CPU (not in the catalog): no data sheet, no ratio");
    default:
        return N_("unknown CPU (virtual machine): no data sheet, no ratio");
    }
}

/* The JSON word of the kind. */
const char *measure_cpu_word(enum measure_cpu_kind k) {
    static const char *const words[] = {"data-sheet", "virtual-machine", "unknown-cpu",
                                        "unknown-cpu-virtual-machine"};
    return words[k];
}

/* The measured FMA peak (the fma-peak result with the most threads). */
double measure_fma_peak(const struct measure_run *m) {
    double peak = NAN, threads = -1;
    for (size_t i = 0; i < m->n_results; i++) {
        const char *t = probe_json_str(&m->results[i], "test");
        double v = probe_json_num(&m->results[i], "flop_per_s", NAN);
        double n = probe_json_num(&m->results[i], "threads", 0);
        if (t && strcmp(t, "fma-peak") == 0 && v > 0 &&
            (n > threads || (n == threads && v > peak))) {
            peak = v;
            threads = n;
        }
    }
    return peak;
}

/* The roofline at an arithmetic intensity. */
double measure_roofline(double peak_flop_per_s, double c_bytes_per_s, double flop_per_byte) {
    bool hp = peak_flop_per_s > 0 && isfinite(peak_flop_per_s);
    bool hc = c_bytes_per_s > 0 && isfinite(c_bytes_per_s);
    if (!(flop_per_byte > 0) || !isfinite(flop_per_byte) || (!hp && !hc))
        return NAN;
    double mem = hc ? c_bytes_per_s * flop_per_byte : NAN;
    if (!hp)
        return mem;
    if (!hc)
        return peak_flop_per_s;
    return mem < peak_flop_per_s ? mem : peak_flop_per_s;
}

/* The GEMV kernels by the weight width they read. */
static const struct {
    const char *test;
    double bits;
    bool bf16;
} decode_kernels[] = {
    {"gemv-fp16", 16, false},
    {"gemv-bf16", 16, true},
    {"w8a16", 8, false},
    {"w4a16", 4, false},
};

/* The kernel that decodes weights of `bits` (see measure_run.h). */
const char *measure_decode_kernel(double bits, bool bf16,
                                  bool (*have)(const char *test, const void *ctx),
                                  const void *ctx, bool *nearest) {
    int best = -1;
    double best_d = 0;
    bool best_mismatch = false;
    for (int i = 0; i < (int)(sizeof decode_kernels / sizeof decode_kernels[0]); i++) {
        if (!have(decode_kernels[i].test, ctx))
            continue;
        double d = fabs(bits - decode_kernels[i].bits);
        bool mismatch = decode_kernels[i].bits == 16 && decode_kernels[i].bf16 != bf16;
        /* nearer width; then the wider; then the same 16-bit type */
        bool better = best < 0 || d < best_d ||
                      (d == best_d && decode_kernels[i].bits > decode_kernels[best].bits) ||
                      (d == best_d && decode_kernels[i].bits == decode_kernels[best].bits &&
                       best_mismatch && !mismatch);
        if (better) {
            best = i;
            best_d = d;
            best_mismatch = mismatch;
        }
    }
    if (nearest)
        *nearest = best >= 0 && (best_d > 0.5 || best_mismatch);
    return best >= 0 ? decode_kernels[best].test : NULL;
}

/* A progress event as one terminal line, in the reader's language. */
int measure_progress_text(const struct probe_json *ev, char *buf, size_t len) {
    const char *t = measure_str_or(probe_json_str(ev, "test"), "?");
    double f = probe_json_num(ev, "fraction", 0), i = probe_json_num(ev, "index", 0),
           n = probe_json_num(ev, "count", 0), eta = probe_json_num(ev, "eta_seconds", NAN);
    char si[24], sn[24], pct[24];
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    report_int(i, si, sizeof si);
    report_int(n, sn, sizeof sn);
    report_int(round(100 * f), pct, sizeof pct);
    int k;
    if (i >= 1 && n >= i && strcmp(t, "allreduce") == 0) /* its steps are sizes */
        k = snprintf(buf, len, _("all-reduce, size %s of %s, %3s%%"), si, sn, pct);
    else if (i >= 1 && n >= i)
        k = snprintf(buf, len, _("test %s of %s, %.40s, %3s%%"), si, sn, t, pct);
    else
        k = snprintf(buf, len, _("%.40s %3s%%"), t, pct);
    if (k < 0 || (size_t)k >= len || !(eta >= 0) || !isfinite(eta))
        return k < 0 ? 0 : k >= (int)len ? (int)len - 1 : k;
    long s = lround(eta);
    char ss[24], sm[24];
    report_int((double)(s % 60), ss, sizeof ss);
    report_int((double)(s / 60), sm, sizeof sm);
    int more = s < 60 ? snprintf(buf + k, len - (size_t)k, _(", about %s s left"), ss)
                      : snprintf(buf + k, len - (size_t)k, _(", about %s min %02ld s left"),
                                 sm, s % 60);
    k += more > 0 ? more : 0;
    return k >= (int)len ? (int)len - 1 : k;
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
            json_text(w, f->str);
            break;
        case PROBE_JSON_NUM:
            json_number(w, f->num);
            break;
        case PROBE_JSON_BOOL:
            json_bool(w, f->b);
            break;
        default:
            json_none(w);
            break;
        }
    }
}

/* Whether a run has a result of this test (measure_decode_kernel's have). */
static bool run_has(const char *test, const void *ctx) {
    const struct measure_run *m = ctx;
    for (size_t i = 0; i < m->n_results; i++) {
        const char *t = probe_json_str(&m->results[i], "test");
        double batch = probe_json_num(&m->results[i], "batch", 1);
        if (t && strcmp(t, test) == 0 && batch <= 1 &&
            probe_json_num(&m->results[i], "bytes_per_s", 0) > 0)
            return true;
    }
    return false;
}

/* The batch-1 bytes/s of a test with the most threads, NAN when absent. */
static double run_rate(const struct measure_run *m, const char *test) {
    double v = NAN, threads = -1;
    for (size_t i = 0; i < m->n_results; i++) {
        const struct probe_json *r = &m->results[i];
        const char *t = probe_json_str(r, "test");
        double n = probe_json_num(r, "threads", 0), b = probe_json_num(r, "bytes_per_s", NAN);
        if (t && strcmp(t, test) == 0 && probe_json_num(r, "batch", 1) <= 1 && b > 0 &&
            n > threads) {
            v = b;
            threads = n;
        }
    }
    return v;
}

/* "on_this_machine": the CPU against itself (see measure_run.h). */
static void json_here(struct json_writer *w, const struct measure_run *m,
                      const struct catalog_cpu *cpu) {
    static const struct {
        const char *weights;
        double bits;
        bool bf16;
    } widths[] = {{"fp16", 16, false}, {"bf16", 16, true}, {"8-bit", 8, false}, {"4-bit", 4, false}};
    double c = measure_copy_c(m), peak = measure_fma_peak(m);
    int virt = measure_virtual(m);
    enum measure_cpu_kind k = measure_cpu_kind(cpu, virt);
    json_begin_object(w);
    json_key(w, "device");
    json_text(w, measure_str_or(probe_json_str(&m->device, "name"), "?"));
    json_key(w, "catalog_cpu_id");
    if (cpu)
        json_text(w, cpu->id);
    else
        json_none(w);
    json_key(w, "virtual");
    if (virt < 0)
        json_none(w);
    else
        json_bool(w, virt == 1);
    json_key(w, "isa");
    if (probe_json_str(&m->device, "isa"))
        json_text(w, probe_json_str(&m->device, "isa"));
    else
        json_none(w);
    json_key(w, "comparison");
    json_text(w, measure_cpu_word(k));
    json_key(w, "message");
    json_text(w, measure_cpu_phrase(k));
    json_key(w, "ceiling_bytes_per_s");
    json_number(w, c);
    double sheet = k == MEASURE_CPU_KNOWN ? cpu->bandwidth_bytes_per_s : NAN;
    json_key(w, "data_sheet_bytes_per_s");
    json_number(w, sheet);
    json_key(w, "ratio");
    json_number(w, sheet > 0 ? c / sheet : NAN);
    json_key(w, "fma_peak_flop_per_s");
    json_number(w, peak);
    json_key(w, "ridge_flop_per_byte");
    json_number(w, peak > 0 && c > 0 ? peak / c : NAN);
    json_key(w, "decode");
    json_begin_array(w);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        bool nearest;
        const char *t = measure_decode_kernel(widths[i].bits, widths[i].bf16, run_has, m, &nearest);
        if (!t)
            continue;
        double bw = run_rate(m, t);
        json_begin_object(w);
        json_key(w, "weights");
        json_text(w, widths[i].weights);
        json_key(w, "test");
        json_text(w, t);
        json_key(w, "nearest");
        json_bool(w, nearest);
        json_key(w, "bytes_per_s");
        json_number(w, bw);
        json_key(w, "fraction_of_copy");
        json_number(w, c > 0 ? bw / c : NAN);
        json_key(w, "activation_bits");
        json_number(w, 16);
        json_end_object(w);
    }
    /* the same weights with x in 8 bits (what CPU runtimes run), after */
    static const struct {
        const char *weights, *test;
    } a8[] = {{"8-bit", "w8a8"}, {"4-bit", "w4a8"}};
    for (size_t i = 0; i < sizeof a8 / sizeof a8[0]; i++) {
        double bw = run_rate(m, a8[i].test);
        if (!(bw > 0))
            continue;
        json_begin_object(w);
        json_key(w, "weights");
        json_text(w, a8[i].weights);
        json_key(w, "test");
        json_text(w, a8[i].test);
        json_key(w, "nearest");
        json_bool(w, false);
        json_key(w, "bytes_per_s");
        json_number(w, bw);
        json_key(w, "fraction_of_copy");
        json_number(w, c > 0 ? bw / c : NAN);
        json_key(w, "activation_bits");
        json_number(w, 8);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

/* The --json object (see measure_run.h). */
void measure_run_json(FILE *f, const struct measure_run *m, const struct engine_gpu *g,
                      const struct catalog_cpu *cpu) {
    struct json_writer w;
    bool on_cpu = measure_on_cpu(m);
    /* a CPU is its own device: never a GPU's data sheet; a VM or an
     * unknown part, no data sheet at all */
    const struct catalog_cpu *sheet =
        on_cpu && measure_cpu_kind(cpu, measure_virtual(m)) == MEASURE_CPU_KNOWN ? cpu : NULL;
    if (on_cpu)
        g = NULL;
    double peak = on_cpu ? measure_fma_peak(m) : NAN;
    json_init(&w, f);
    json_begin_object(&w);
    json_key(&w, "device");
    if (m->have_device) {
        json_begin_object(&w);
        json_members(&w, &m->device, NULL);
        json_key(&w, "catalog_id");
        if (g)
            json_text(&w, g->id);
        else
            json_none(&w);
        json_key(&w, "catalog_cpu_id");
        if (on_cpu && cpu)
            json_text(&w, cpu->id);
        else
            json_none(&w);
        json_end_object(&w);
    } else {
        json_none(&w);
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
        double pred = on_cpu ? measure_predicted_cpu(sheet, r, &is_flop)
                             : measure_predicted(g, r, &is_flop);
        double meas = probe_json_num(r, is_flop ? "flop_per_s" : "bytes_per_s", NAN);
        json_key(&w, is_flop ? "predicted_flop_per_s" : "predicted_bytes_per_s");
        json_number(&w, pred);
        json_key(&w, "ratio");
        json_number(&w, pred > 0 ? meas / pred : NAN);
        json_key(&w, "fraction_of_copy");
        json_number(&w, !is_flop && c > 0 ? meas / c : NAN);
        const char *t = probe_json_str(r, "test");
        double ref = probe_json_num(r, "reference_bytes_per_s", NAN);
        if (t && strcmp(t, "copy") == 0 && ref > 0) {
            json_key(&w, "fraction_of_reference");
            json_number(&w, meas / ref);
        }
        /* a CPU's FLOP rates against its own roofline min(fma-peak, C x FLOP/byte) */
        double flop = probe_json_num(r, "flop", NAN), bytes = probe_json_num(r, "bytes", NAN);
        double fps = probe_json_num(r, "flop_per_s", NAN);
        if (on_cpu && !is_flop && flop > 0 && bytes > 0 && fps > 0) {
            double roof = measure_roofline(peak, c, flop / bytes);
            json_key(&w, "roofline_flop_per_s");
            json_number(&w, roof);
            json_key(&w, "fraction_of_roofline");
            json_number(&w, roof > 0 ? fps / roof : NAN);
        }
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
    /* the all-reduce: each size with the engine's ring model beside it,
     * then the fits (what plan --measured-allreduce reads back) */
    struct engine_scenario asc;
    if (m->have_ar_sc)
        asc = m->ar_sc;
    else
        measure_run_ar_scenario(g, &asc);
    json_key(&w, "allreduce");
    json_begin_array(&w);
    for (size_t i = 0; i < m->n_ar; i++) {
        const struct probe_json *r = &m->ar[i];
        double bytes = probe_json_num(r, "bytes", NAN), t = probe_json_num(r, "seconds", NAN);
        unsigned ranks = (unsigned)probe_json_num(r, "ranks", 0),
                 hosts = (unsigned)probe_json_num(r, "hosts", 1);
        double pt = measure_ar_predicted_seconds(&asc, bytes, ranks, hosts);
        json_begin_object(&w);
        json_members(&w, r, NULL);
        json_key(&w, "predicted_seconds");
        json_number(&w, pt);
        json_key(&w, "predicted_busbw_bytes_per_s");
        json_number(&w, measure_ar_predicted_busbw(&asc, bytes, ranks, hosts));
        json_key(&w, "ratio");
        json_number(&w, pt > 0 && t > 0 ? pt / t : NAN);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "allreduce_fit");
    json_begin_array(&w);
    for (size_t i = 0; i < m->n_fits; i++) {
        json_begin_object(&w);
        json_members(&w, &m->fits[i], NULL);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_key(&w, "allreduce_model");
    json_begin_object(&w);
    json_key(&w, "intra_node_bytes_per_s");
    json_number(&w, engine_allreduce_bandwidth(&asc, false));
    json_key(&w, "inter_node_bytes_per_s");
    json_number(&w, engine_allreduce_bandwidth(&asc, true));
    json_key(&w, "latency_s");
    json_number(&w, asc.allreduce_latency_s);
    json_end_object(&w);
    json_key(&w, "on_this_machine");
    if (on_cpu)
        json_here(&w, m, cpu);
    else
        json_none(&w);
    json_key(&w, "error");
    if (m->failed || m->truncated) {
        json_begin_object(&w);
        json_key(&w, "message");
        json_text(&w,
                    m->error[0] ? m->error : "the probe's output ended in the middle of a line");
        json_key(&w, "code");
        json_text(&w, m->error_code[0] ? m->error_code : "truncated");
        json_end_object(&w);
    } else {
        json_none(&w);
    }
    json_key(&w, "complete");
    json_bool(&w, !m->failed && !m->truncated);
    json_end_object(&w);
    fputc('\n', f);
}

/* The ring model's scenario of `vramlab measure` (see measure_run.h). */
void measure_run_ar_scenario(const struct engine_gpu *g, struct engine_scenario *sc) {
    engine_scenario_defaults(sc);
    if (g)
        sc->gpu = *g;
}

/* Free the arrays and zero the run. */
void measure_run_free(struct measure_run *m) {
    free(m->results);
    free(m->lab);
    free(m->skips);
    free(m->ar);
    free(m->fits);
    memset(m, 0, sizeof *m);
}

/* The catalog GPU matching the device's name, or NULL (never a CPU's). */
const struct engine_gpu *measure_match(const struct measure_run *m, const struct catalog *cat) {
    const char *name = m->have_device && !measure_on_cpu(m) ? probe_json_str(&m->device, "name")
                                                            : NULL;
    return name && cat ? catalog_match_device(cat, name) : NULL;
}
