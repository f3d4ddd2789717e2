/*
 * measure_model.c: the Measure pane's figures without a screen (see
 * measure_model.h for the formulas and their sources).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/measure_model.h"
#include "tui/measure_run.h"
#include "tui/report.h"

/* Whether the Measure pane grows over Speed and Roofline. */
bool tui_measure_grows(const struct tui_state *st) {
    return !st->compact && st->focus_pane == TUI_PANE_MEASURE &&
           st->measure.status != TUI_MEASURE_IDLE;
}

/* Clear the results of a run. */
void tui_measure_clear(struct tui_measure *m) {
    m->n_rows = m->n_bars = m->n_lab = 0;
    m->device[0] = m->progress[0] = m->error[0] = m->backend[0] = '\0';
    m->cache_bytes = 0;
    m->match = NULL;
    m->confirm_save = false;
    m->on_cpu = false;
    m->virt = -1;
    m->cpu = NULL;
    m->isa[0] = '\0';
    m->memory_bytes = 0;
    m->confirm_calibrate = false;
}

/* The bar of a test, added when new; NULL when the list is full. */
static struct tui_measure_bar *bar_of(struct tui_measure *m, const char *test) {
    for (size_t i = 0; i < m->n_bars; i++)
        if (strcmp(m->bars[i].test, test) == 0)
            return &m->bars[i];
    if (m->n_bars >= TUI_MEASURE_TESTS)
        return NULL;
    struct tui_measure_bar *b = &m->bars[m->n_bars++];
    snprintf(b->test, sizeof(b->test), "%s", test);
    b->fraction = 0;
    return b;
}

/* Keep a result row: per test, the batch-1 row with the most threads; for
 * the GEMM sweep the row with the highest FLOP/s (the top of the roof);
 * for the CPU's fma-peak (no bytes) the row with the most threads. */
static void row_take(struct tui_measure *m, const char *test, const struct probe_json *j) {
    double bps = probe_json_num(j, "bytes_per_s", 0), threads = probe_json_num(j, "threads", 0);
    double batch = probe_json_num(j, "batch", 0), flops = probe_json_num(j, "flop_per_s", 0);
    bool gemm = strcmp(test, "gemm") == 0, fma = strcmp(test, "fma-peak") == 0;
    if (fma ? !(flops > 0) : !(bps > 0) || (!gemm && batch > 1))
        return;
    struct tui_measure_row *r = NULL;
    for (size_t i = 0; i < m->n_rows && !r; i++)
        if (strcmp(m->rows[i].test, test) == 0)
            r = &m->rows[i];
    if (r && (gemm ? !(flops > r->flop_per_s) : threads < r->threads))
        return;
    if (!r) {
        if (m->n_rows >= TUI_MEASURE_ROWS)
            return;
        r = &m->rows[m->n_rows++];
    }
    memset(r, 0, sizeof(*r));
    snprintf(r->test, sizeof(r->test), "%s", test);
    r->bytes_per_s = bps;
    r->threads = threads;
    r->batch = batch;
    r->flop_per_s = flops;
    r->bytes = probe_json_num(j, "bytes", 0);
    r->verified = probe_json_bool(j, "verified", false);
    r->flagged = probe_json_bool(j, "flagged", false);
    r->reference_bytes_per_s = probe_json_num(j, "reference_bytes_per_s", 0);
    measure_result_note(j, r->note, sizeof(r->note));
}

/* Keep an error-lab row. */
static void lab_take(struct tui_measure *m, const struct probe_json *j) {
    const struct probe_json_field *g = probe_json_get(j, "group");
    const char *w = probe_json_str(j, "weights");
    if (m->n_lab >= TUI_MEASURE_LAB || !g || !w)
        return;
    struct tui_measure_lab *l = &m->lab[m->n_lab++];
    l->bits = (unsigned)probe_json_num(j, "bits", 0);
    l->group = g->type == PROBE_JSON_NUM ? (unsigned)g->num : 0;
    l->outliers = strcmp(w, "outliers") == 0;
    l->relative_error = probe_json_num(j, "relative_error", NAN);
    l->zero_fraction = probe_json_num(j, "zero_fraction", NAN);
}

/* Keep an all-reduce size. */
static void ar_take(struct tui_measure *m, const struct probe_json *j) {
    struct tui_measure_ar *a = &m->ar;
    if (a->n >= TUI_MEASURE_AR)
        return;
    struct tui_measure_ar_point *q = &a->p[a->n++];
    q->bytes = probe_json_num(j, "bytes", 0);
    q->seconds = probe_json_num(j, "seconds", NAN);
    q->busbw = probe_json_num(j, "busbw_bytes_per_s", NAN);
    q->bf16 = measure_str_or(probe_json_str(j, "dtype"), "")[0] == 'b';
    q->verified = probe_json_bool(j, "verified", false);
    a->ranks = (unsigned)probe_json_num(j, "ranks", 0);
    a->hosts = (unsigned)probe_json_num(j, "hosts", 1);
    snprintf(a->transport, sizeof(a->transport), "%s",
             measure_str_or(probe_json_str(j, "transport"), "?"));
    if (probe_json_str(j, "note"))
        snprintf(a->note, sizeof(a->note), "%s", probe_json_str(j, "note"));
}

/* Forget the last all-reduce (its calibration, if any, stays applied
 * until a puts the figures back: the saved ones are kept). */
void tui_measure_ar_clear(struct tui_measure *m) {
    struct tui_measure_ar *a = &m->ar;
    a->n = a->n_fit = 0;
    a->ranks = a->hosts = 0;
    a->transport[0] = a->note[0] = '\0';
}

/* The fit a calibrates with. */
const struct measure_ar_fit *tui_measure_ar_fit(const struct tui_measure *m) {
    return measure_ar_pick(m->ar.fit, m->ar.n_fit);
}

/* a in the all-reduce view. */
bool tui_measure_toggle_ar_calibration(struct tui_measure *m, struct engine_scenario *sc) {
    struct tui_measure_ar *a = &m->ar;
    if (a->calibrated) {
        sc->intra_node_bytes_per_s = a->saved_intra;
        sc->inter_node_bytes_per_s = a->saved_inter;
        sc->allreduce_latency_s = a->saved_latency;
        a->calibrated = false;
        snprintf(m->note, sizeof(m->note), "%s",
                 _("the scenario's link bandwidth and latency again (a applies the fit)"));
        return true;
    }
    const struct measure_ar_fit *f = tui_measure_ar_fit(m);
    if (!f) {
        snprintf(m->note, sizeof(m->note), "%s", _("no all-reduce measured yet: x runs it"));
        return false;
    }
    if (!f->valid) {
        snprintf(m->note, sizeof(m->note), "%s",
                 f->ranks < 2 ? _("one rank: nothing was reduced, nothing to calibrate")
                              : _("the fit has no bandwidth: measure larger sizes"));
        return false;
    }
    a->saved_intra = sc->intra_node_bytes_per_s;
    a->saved_inter = sc->inter_node_bytes_per_s;
    a->saved_latency = sc->allreduce_latency_s;
    measure_ar_calibrate(sc, f);
    a->calibrated = true;
    char bw[32], lat[32];
    report_seconds(f->alpha_s, lat, sizeof(lat));
    if (f->hosts > 1) {
        report_bandwidth(sc->inter_node_bytes_per_s, bw, sizeof(bw));
        snprintf(m->note, sizeof(m->note),
                 _("calibrated: inter-node %s and latency %s from %u ranks (%s)"), bw, lat,
                 f->ranks, f->transport);
    } else {
        report_bandwidth(sc->intra_node_bytes_per_s, bw, sizeof(bw));
        snprintf(m->note, sizeof(m->note),
                 _("calibrated: intra-node %s (2 x the link) and latency %s from %u ranks (%s)"),
                 bw, lat, f->ranks, f->transport);
    }
    return true;
}

/* Take one probe event into the pane. */
void tui_measure_take(struct tui_measure *m, const struct probe_event *ev,
                      const struct catalog *cat) {
    const struct probe_json *j = &ev->j;
    const char *s = probe_json_str(j, "test"), *b;
    struct tui_measure_bar *bar;
    switch (ev->kind) {
    case PROBE_EV_DEVICE:
        s = probe_json_str(j, "name");
        b = probe_json_str(j, "backend");
        snprintf(m->device, sizeof(m->device), "%.90s", s ? s : "?");
        snprintf(m->backend, sizeof(m->backend), "%s", b ? b : "?");
        m->cache_bytes = probe_json_num(j, "l2_bytes", 0);
        /* a CPU is matched to the CPU table, never to a GPU's data sheet */
        m->on_cpu = b && strcmp(b, "cpu") == 0;
        m->match = s && cat && !m->on_cpu ? catalog_match_device(cat, s) : NULL;
        m->cpu = s && cat && m->on_cpu ? catalog_match_cpu(cat, s) : NULL;
        {
            const struct probe_json_field *v = probe_json_get(j, "virtual");
            m->virt = v && v->type == PROBE_JSON_BOOL ? (v->b ? 1 : 0) : -1;
        }
        snprintf(m->isa, sizeof(m->isa), "%s", measure_str_or(probe_json_str(j, "isa"), ""));
        m->memory_bytes = probe_json_num(j, "memory_bytes", 0);
        break;
    case PROBE_EV_PROGRESS:
        if (s && (bar = bar_of(m, s)) != NULL && bar->fraction >= 0)
            bar->fraction = probe_json_num(j, "fraction", 0);
        if (s && probe_json_num(j, "index", 0) >= 1 && probe_json_num(j, "count", 0) >= 1)
            snprintf(m->progress, sizeof(m->progress), _("%.24s %.0f%% (test %.0f of %.0f)"), s,
                     100 * probe_json_num(j, "fraction", 0), probe_json_num(j, "index", 0),
                     probe_json_num(j, "count", 0));
        else if (s)
            snprintf(m->progress, sizeof(m->progress), "%.24s %.0f%%", s,
                     100 * probe_json_num(j, "fraction", 0));
        break;
    case PROBE_EV_RESULT:
        if (!s)
            break;
        if (strcmp(s, "allreduce") == 0) {
            ar_take(m, j);
            break; /* its bar follows the progress events */
        }
        if (strcmp(s, "error") == 0)
            lab_take(m, j);
        else
            row_take(m, s, j);
        if (strcmp(s, "error") != 0 && (bar = bar_of(m, s)) != NULL)
            bar->fraction = 1;
        break;
    case PROBE_EV_FIT:
        if (m->ar.n_fit < 2 && measure_ar_fit_read(j, &m->ar.fit[m->ar.n_fit]))
            m->ar.n_fit++;
        break;
    case PROBE_EV_SKIP:
        if (s && (bar = bar_of(m, s)) != NULL)
            bar->fraction = -1; /* skipped: the reason is in the saved JSON */
        break;
    case PROBE_EV_ERROR:
        s = probe_json_str(j, "message");
        b = probe_json_str(j, "code");
        snprintf(m->error, sizeof(m->error), "%.130s%s%.20s%s",
                 s ? s : _("the probe reported an error"), b ? " [" : "", b ? b : "", b ? "]" : "");
        break;
    case PROBE_EV_BAD:
        snprintf(m->error, sizeof(m->error), _("a malformed probe line: %.120s"), ev->error);
        break;
    case PROBE_EV_TRUNCATED:
        snprintf(m->error, sizeof(m->error), "%s",
                 _("the probe's output ended in the middle of a line (did it crash?)"));
        break;
    default:
        break;
    }
}

/* The row of a test, or NULL. */
const struct tui_measure_row *tui_measure_find(const struct tui_measure *m, const char *test) {
    for (size_t i = 0; i < m->n_rows; i++)
        if (strcmp(m->rows[i].test, test) == 0)
            return &m->rows[i];
    return NULL;
}

/* Whether the pane has a batch-1 bandwidth for a test (measure_decode_kernel's have). */
static bool row_has(const char *test, const void *ctx) {
    const struct tui_measure_row *r = tui_measure_find(ctx, test);
    return r && r->bytes_per_s > 0;
}

/* The bandwidth a decode step gets (see measure_model.h). */
double tui_measure_decode_bw(const struct tui_measure *m, const struct engine_format *wf,
                             const char **test, bool *nearest) {
    double bits = wf && wf->bits > 0 ? wf->bits : 16;
    bool bf16 = wf && wf->kind == ENGINE_FMT_FLOAT && wf->bits == 16 && wf->exponent_bits == 8;
    bool near = false;
    const char *t = measure_decode_kernel(bits, bf16, row_has, m, &near);
    const struct tui_measure_row *r = t ? tui_measure_find(m, t) : tui_measure_find(m, "copy");
    if (!t && r && r->bytes_per_s > 0) {
        t = "copy"; /* no GEMV measured: the ceiling stands in */
        near = true;
    }
    if (test)
        *test = t;
    if (nearest)
        *nearest = near;
    return t && r ? r->bytes_per_s : 0;
}

/* The measured FMA peak of a CPU, 0 when absent. */
double tui_measure_fma_peak(const struct tui_measure *m) {
    const struct tui_measure_row *r = tui_measure_find(m, "fma-peak");
    return r && r->flop_per_s > 0 ? r->flop_per_s : 0;
}

/* The predicted rate of a row. */
double tui_measure_predicted(const struct tui_measure *m, const struct tui_measure_row *r,
                             const struct engine_gpu *gpu_fallback) {
    if (!r)
        return NAN;
    if (m->on_cpu) {
        /* the catalog CPU's data sheet; none for a VM or an unknown part */
        const struct catalog_cpu *c = m->virt == 1 ? NULL : m->cpu;
        if (!c)
            return NAN;
        if (strcmp(r->test, "fma-peak") == 0)
            return c->fp32_flop_per_s > 0 ? c->fp32_flop_per_s : NAN;
        return strcmp(r->test, "gemm") == 0 ? NAN : c->bandwidth_bytes_per_s;
    }
    const struct engine_gpu *g = m->match ? m->match : gpu_fallback;
    if (!g || !(g->bandwidth_bytes_per_s > 0) || strcmp(r->test, "fma-peak") == 0)
        return NAN;
    if (strcmp(r->test, "gemm") == 0) {
        double fpb = r->bytes > 0 && r->flop_per_s > 0 && r->bytes_per_s > 0
                         ? r->flop_per_s / r->bytes_per_s
                         : NAN;
        double roof = g->bandwidth_bytes_per_s * fpb, peak = g->flops[ENGINE_COMPUTE_FP16];
        return peak > 0 && (!(roof > 0) || peak < roof) ? peak : roof;
    }
    return g->bandwidth_bytes_per_s;
}

/* Whether a row's working set is under 4x the device's cache. */
bool tui_measure_in_cache(const struct tui_measure *m, const struct tui_measure_row *r) {
    return m->cache_bytes > 0 && r->bytes > 0 && r->bytes < 4 * m->cache_bytes;
}

/* The decode ceiling with the data sheet and with measured rates. */
void tui_measure_redo(const struct engine_scenario *sc, double measured_bytes_per_s,
                      double measured_flop_per_s, struct tui_measure_redo *out) {
    static struct engine_estimate e; /* large; the pane is single-threaded */
    struct engine_scenario t = *sc;
    memset(out, 0, sizeof(*out));
    if (sc->mode != ENGINE_MODE_INFER || !(measured_bytes_per_s > 0))
        return;
    t.measured_bytes_per_s = 0;
    t.measured_flop_per_s = 0;
    engine_estimate(&t, &e);
    if (e.invalid)
        return;
    out->predicted_tokens_per_s = e.decode_tokens_per_s;
    t.measured_bytes_per_s = measured_bytes_per_s;
    t.measured_flop_per_s = measured_flop_per_s > 0 ? measured_flop_per_s : 0;
    engine_estimate(&t, &e);
    if (e.invalid)
        return;
    out->measured_tokens_per_s = e.decode_tokens_per_s;
    out->valid = true;
}

/* The scenario on this machine, and the catalog's prediction. */
void tui_measure_here(const struct tui_measure *m, const struct engine_scenario *sc,
                      struct tui_measure_here *out) {
    static struct engine_estimate e; /* large; the pane is single-threaded */
    static struct engine_scenario t;
    const struct tui_measure_row *copy = tui_measure_find(m, "copy");
    memset(out, 0, sizeof(*out));
    if (sc->mode != ENGINE_MODE_INFER || !copy || !(copy->bytes_per_s > 0))
        return;
    /* the catalog's prediction: the scenario as it is, data sheet */
    t = *sc;
    t.measured_bytes_per_s = t.measured_flop_per_s = 0;
    engine_estimate(&t, &e);
    if (e.invalid)
        return;
    out->catalog_tokens_per_s = e.decode_tokens_per_s;
    /* this machine: one device, its measured rates as they are */
    out->c_bytes_per_s = copy->bytes_per_s;
    out->kernel_bytes_per_s = tui_measure_decode_bw(m, &sc->weight_format, &out->test,
                                                    &out->nearest);
    out->fma_peak = tui_measure_fma_peak(m);
    t.gpus = t.tp = t.pp = t.dp = 1;
    t.zero = 0;
    t.gpus_per_node = 1;
    t.interleave = 1;
    t.sequence_parallel = false;
    t.bw_efficiency = t.flops_efficiency = 1;
    t.reserve_bytes = 0; /* no CUDA context on a CPU */
    memset(&t.gpu, 0, sizeof(t.gpu));
    snprintf(t.gpu.id, sizeof(t.gpu.id), "this-machine");
    snprintf(t.gpu.name, sizeof(t.gpu.name), "%.60s", m->device[0] ? m->device : "this machine");
    t.gpu.memory_bytes = m->memory_bytes > 0 ? m->memory_bytes : sc->gpu.memory_bytes;
    t.gpu.gpus_per_node = 1;
    /* without a measured FMA peak the compute ceiling is left out (a rate
     * no CPU reaches), so the figures are the memory-bound ones */
    for (int c = 0; c < ENGINE_COMPUTE_COUNT; c++)
        t.gpu.flops[c] = out->fma_peak > 0 ? out->fma_peak : 1e30;
    t.gpu.bandwidth_bytes_per_s = out->c_bytes_per_s;
    engine_estimate(&t, &e);
    if (e.invalid)
        return;
    out->ceiling_tokens_per_s = e.decode_tokens_per_s;
    out->fits = m->memory_bytes > 0 ? e.fits : true;
    out->need_bytes = e.memory.total;
    if (out->kernel_bytes_per_s > 0) {
        t.gpu.bandwidth_bytes_per_s = out->kernel_bytes_per_s;
        engine_estimate(&t, &e);
        out->kernel_tokens_per_s = e.invalid ? 0 : e.decode_tokens_per_s;
    }
    out->valid = true;
}

/* Whether the measurement is of another device than the scenario's GPU. */
static bool other_device(const struct tui_measure *m, const struct engine_scenario *sc) {
    return m->on_cpu || !m->match || strcmp(m->match->id, sc->gpu.id) != 0;
}

/* Apply the measured rates to the scenario (no questions). */
static bool apply_calibration(struct tui_measure *m, struct engine_scenario *sc) {
    char a[32], fl[32];
    const char *test;
    double bw = tui_measure_decode_bw(m, &sc->weight_format, &test, NULL);
    if (!(bw > 0)) {
        snprintf(m->note, sizeof(m->note), "%s", _("nothing measured yet: m runs the probe"));
        return false;
    }
    const struct tui_measure_row *g = tui_measure_find(m, m->on_cpu ? "fma-peak" : "gemm");
    sc->measured_bytes_per_s = bw;
    snprintf(m->calibrated_gpu, sizeof(m->calibrated_gpu), "%s", sc->gpu.id);
    sc->measured_flop_per_s = g && g->flop_per_s > 0 ? g->flop_per_s : 0;
    report_bandwidth(bw, a, sizeof(a));
    if (other_device(m, sc))
        snprintf(m->note, sizeof(m->note),
                 _("calibrated with %.40s's figures, not %.40s's: %s (%s)%s"),
                 m->device[0] ? m->device : "?", sc->gpu.name, a, test,
                 sc->measured_flop_per_s > 0 ? _(" and its FLOP/s") : "");
    else if (sc->measured_flop_per_s > 0) {
        report_flops(sc->measured_flop_per_s, fl, sizeof(fl));
        snprintf(m->note, sizeof(m->note),
                 _("calibrated: %s (%s) and %s (gemm) replace the data sheet"), a, test, fl);
    }
    else
        snprintf(m->note, sizeof(m->note),
                 _("calibrated: %s (%s) replaces the data-sheet bandwidth"), a, test);
    return true;
}

/* a: calibrate with the measured rates, or back to the data sheet. */
bool tui_measure_toggle_calibration(struct tui_measure *m, struct engine_scenario *sc) {
    m->confirm_calibrate = false;
    if (sc->measured_bytes_per_s > 0 || sc->measured_flop_per_s > 0) {
        sc->measured_bytes_per_s = sc->measured_flop_per_s = 0;
        m->calibrated_gpu[0] = '\0';
        snprintf(m->note, sizeof(m->note), "%s",
                 _("data sheet figures again (a applies the measured ones)"));
        return true;
    }
    if (!(tui_measure_decode_bw(m, &sc->weight_format, NULL, NULL) > 0)) {
        snprintf(m->note, sizeof(m->note), "%s", _("nothing measured yet: m runs the probe"));
        return false;
    }
    if (other_device(m, sc)) {
        /* a measurement calibrates the device it was measured on: ask */
        m->confirm_calibrate = true;
        snprintf(m->note, sizeof(m->note),
                 m->on_cpu ? _("apply the CPU %.40s's figures to the %.40s? y yes, any other "
                               "key no")
                           : _("apply %.40s's figures to the %.40s? y yes, any other key no"),
                 m->device[0] ? m->device : "?", sc->gpu.name);
        return false;
    }
    return apply_calibration(m, sc);
}

/* The answer to the question of toggle_calibration. */
bool tui_measure_confirm(struct tui_measure *m, struct engine_scenario *sc, bool yes) {
    m->confirm_calibrate = false;
    if (yes)
        return apply_calibration(m, sc);
    snprintf(m->note, sizeof(m->note), _("kept the %.60s data sheet"), sc->gpu.name);
    return false;
}

/* Drop a calibration the pane made for another GPU than the scenario's. */
bool tui_measure_recheck_calibration(struct tui_measure *m, struct engine_scenario *sc) {
    if (!m->calibrated_gpu[0] || strcmp(m->calibrated_gpu, sc->gpu.id) == 0)
        return false;
    m->calibrated_gpu[0] = '\0';
    if (!(sc->measured_bytes_per_s > 0 || sc->measured_flop_per_s > 0))
        return false;
    sc->measured_bytes_per_s = sc->measured_flop_per_s = 0;
    snprintf(m->note, sizeof(m->note), "%s",
             _("another GPU: the measured figures no longer apply (data sheet; a applies them)"));
    return true;
}

/* An error-lab row, or NULL. */
const struct tui_measure_lab *tui_measure_lab_find(const struct tui_measure *m, unsigned bits,
                                                   unsigned group, bool outliers) {
    for (size_t i = 0; i < m->n_lab; i++) {
        const struct tui_measure_lab *l = &m->lab[i];
        if (l->bits == bits && l->group == group && l->outliers == outliers)
            return l;
    }
    return NULL;
}

/* The seed's Pythia-1.4B loss at the evidence point nearest to bits. */
bool tui_measure_seed_loss(const struct catalog *cat, double bits, double *at_bits,
                           double *per_group, double *per_matrix, double *baseline) {
    const struct catalog_evidence *ev = cat ? catalog_find_evidence(cat, "pythia-1.4b-loss") : NULL;
    if (!ev || ev->n_points == 0)
        return false;
    size_t best = 0;
    *baseline = NAN;
    for (size_t i = 0; i < ev->n_points; i++) {
        if (ev->bits[i] >= 16)
            *baseline = ev->loss_per_group[i];
        if (fabs(ev->bits[i] - bits) < fabs(ev->bits[best] - bits))
            best = i;
    }
    *at_bits = ev->bits[best];
    *per_group = ev->loss_per_group[best];
    *per_matrix = ev->loss_per_matrix[best];
    return true;
}
