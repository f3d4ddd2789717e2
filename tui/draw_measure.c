/*
 * draw_measure.c: the Measure pane (issues 6 and 7; shared spec measure.md).
 *
 * Idle: what m does. Running: one progress bar per test (Esc cancels; the
 * rest of the explorer stays live). Done: the device and C (the copy
 * bandwidth), the user's scenario redone with the measured GEMV bandwidth
 * ("predicted <= 209 tok/s, measured bandwidth gives <= 187"), and a table
 * test / measured / predicted / ratio / fraction of C. v shows the error
 * lab instead: relative error and zero codes per width b = 8..2, per group
 * of 32 and per matrix, on Gaussian weights and on weights with planted
 * outliers, next to the seed's Pythia-1.4B loss, with a chart of the zero
 * codes. Unfocused, the pane is two lines; focused, it takes the rows of
 * Speed and Roofline (tui_layout_grow_measure).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "tui/draw_measure.h"
#include "tui/i18n.h"
#include "tui/measure_model.h"
#include "tui/report.h"

/* Probe test ids and their labels in the pane. */
static const struct {
    const char *id, *label;
} mtests[] = {
    {"copy", N_("copy (C)")},       {"read", N_("read")},
    {"fma-peak", N_("FMA peak")},   {"gemv-fp16", N_("FP16 GEMV")},
    {"gemv-bf16", N_("BF16 GEMV")}, {"gemm", N_("GEMM sweep")},
    {"w8a16", N_("W8A16 GEMV")},    {"w4a16", N_("W4A16 GEMV")},
    /* the same weights with x in 8 bits: what CPU runtimes run */
    {"w8a8", N_("W8A8 GEMV")},      {"w4a8", N_("W4A8 GEMV")},
    {"error", N_("error lab")},     {"quantize", N_("quantize")},
    {"dequantize", N_("dequantize")},
    {"allreduce", N_("all-reduce")},
};

/* Whether a row's rate is FLOP/s. */
static bool mflop(const struct tui_measure_row *r) {
    return strcmp(r->test, "gemm") == 0 || strcmp(r->test, "fma-peak") == 0;
}

/* The label of a test id. */
static const char *mlabel(const char *id) {
    for (size_t i = 0; i < sizeof(mtests) / sizeof(mtests[0]); i++)
        if (strcmp(mtests[i].id, id) == 0)
            return _(mtests[i].label);
    return id;
}

/* A bar of fraction f over w cells at (line, x): filled, then free. */
static void mbar(struct tui_pen *p, int line, int x, int w, double f, enum tui_role role) {
    const struct tui_glyphs *g = p->ui->g;
    if (w <= 0)
        return;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    int eighths = (int)lround(f * w * 8), full = eighths / 8, part = eighths % 8;
    tui_pen_repeat(p, line, x, full, role, g->full);
    if (part && g->eighths[part][0] && full < w)
        tui_pen_text(p, line, x + full++, role, g->eighths[part]);
    tui_pen_repeat(p, line, x + full, w - full, TUI_ROLE_FREE, g->free);
}

/* A rate in its unit ("24.8 GB/s", "709 TFLOP/s"). */
static void mrate(const struct tui_measure_row *r, bool flop, char *buf, size_t len) {
    if (flop)
        report_flops(r->flop_per_s, buf, len);
    else
        report_bandwidth(r->bytes_per_s, buf, len);
}

/* A bare figure in the reader's marks ("0.62", "0,62" in es_ES) through
 * the one formatter: `decimals` decimals, that many significant figures
 * when negative (-3 reads as C's %.3g); "-" when it is not a number. */
static void mfixed(double v, int decimals, char *buf, size_t len) {
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        engine_format_fixed(i18n_numfmt(false), v, decimals, buf, len);
}

/* A whole percent of a fraction ("13%"), through the formatter. */
static void mpercent0(double fraction, char *buf, size_t len) {
    size_t n = 0;
    if (isfinite(fraction))
        n = engine_format_fixed(i18n_numfmt(false), 100 * fraction, 0, buf, len);
    else
        n = (size_t)snprintf(buf, len, "-");
    if (n + 1 < len)
        snprintf(buf + n, len - n, "%%");
}

/* Append a cell to a table line: a space before it unless it is the
 * first, then s padded to `cells` display cells (a translation's accents
 * and a figure's no-break space take more bytes than cells). */
static void mcellpad(char *buf, size_t len, const char *s, int cells, bool left) {
    size_t n = strlen(buf);
    if (n + 1 >= len)
        return;
    snprintf(buf + n, len - n, left ? "%s%-*s" : "%s%*s", n ? " " : "", report_pad(s, cells), s);
}

/* Write the first candidate that fits width columns into buf. */
static void mfit(char *buf, size_t len, int width, const char *const *cand, size_t n) {
    for (size_t i = 0; i < n; i++) {
        snprintf(buf, len, "%s", cand[i]);
        if (tui_width(buf) <= width)
            return;
    }
}

/* How the CPU's scenario is shown: this machine only (the two-line pane),
 * this machine and the catalog's GPU on one line, or on two. */
enum mhere_form { MHERE_ONLY = 0, MHERE_ONE_LINE, MHERE_TWO_LINES };

/* The CPU's scenario lines: the scenario on this machine, then the
 * catalog's prediction on the scenario's GPU, labelled as two devices.
 * Returns the lines drawn. */
static int mhere(struct tui_pen *p, int line, enum mhere_form form) {
    const struct tui_state *st = p->st;
    const struct tui_measure *m = &st->measure;
    const struct engine_scenario *sc = &st->opt.sc;
    const struct tui_glyphs *g = p->ui->g;
    struct tui_measure_here h;
    char c[32], ct[32], kb[32], kt[32], pt[32], kl[48], buf[320], f[4][320];
    tui_measure_here(m, sc, &h);
    if (!h.valid) {
        tui_pen_text(p, line, 0, TUI_ROLE_DIM,
                     sc->mode != ENGINE_MODE_INFER
                         ? _("the scenario on this machine needs inference mode (t)")
                         : _("no bandwidth measured for the scenario"));
        return 1;
    }
    char model[ENGINE_NAME_MAX + 32];
    lesson_model_name(i18n_numfmt(false), &sc->model, model, sizeof(model));
    const char *wfmt = sc->weight_format.name[0] ? sc->weight_format.name : sc->weight_format.id;
    report_bandwidth(h.c_bytes_per_s, c, sizeof(c));
    report_number(h.ceiling_tokens_per_s, ct, sizeof(ct));
    report_number(h.catalog_tokens_per_s, pt, sizeof(pt));
    if (h.kernel_bytes_per_s > 0 && h.test && strcmp(h.test, "copy") != 0) {
        report_bandwidth(h.kernel_bytes_per_s, kb, sizeof(kb));
        report_number(h.kernel_tokens_per_s, kt, sizeof(kt));
        snprintf(kl, sizeof(kl), h.nearest ? _("%s (nearest)") : "%s", mlabel(h.test));
        snprintf(f[0], sizeof(f[0]),
                 _("%s %s on this machine: C %s gives %s %s tok/s, %s %s gives %s %s tok/s"),
                 model, wfmt, c, g->le, ct, kl, kb, g->le, kt);
        snprintf(f[1], sizeof(f[1]),
                 _("on this machine: C %s gives %s %s tok/s, %s %s gives %s %s tok/s"), c, g->le,
                 ct, kl, kb, g->le, kt);
        snprintf(f[2], sizeof(f[2]), _("this machine: %s %s tok/s (C), %s %s (%s)"), g->le, ct,
                 g->le, kt, mlabel(h.test));
        snprintf(f[3], sizeof(f[3]), _("here %s %s (C), %s %s tok/s"), g->le, ct, g->le, kt);
    } else {
        snprintf(f[0], sizeof(f[0]), _("%s %s on this machine: C %s gives %s %s tok/s"), model,
                 wfmt, c, g->le, ct);
        snprintf(f[1], sizeof(f[1]), _("on this machine: C %s gives %s %s tok/s"), c, g->le, ct);
        snprintf(f[2], sizeof(f[2]), _("this machine: %s %s tok/s (C)"), g->le, ct);
        snprintf(f[3], sizeof(f[3]), _("here %s %s tok/s"), g->le, ct);
    }
    const char *cand[] = {f[0], f[1], f[2], f[3]};
    if (form == MHERE_ONE_LINE) {
        /* short of lines: both devices on one line, the kernel's figure */
        const char *rate = h.kernel_tokens_per_s > 0 ? kt : ct;
        const char *what = h.kernel_tokens_per_s > 0 ? mlabel(h.test) : "C";
        snprintf(f[0], sizeof(f[0]), _("on this machine %s %s tok/s (%s), on %s (catalog) %s %s"),
                 g->le, rate, what, sc->gpu.name, g->le, pt);
        snprintf(f[1], sizeof(f[1]), _("here %s %s tok/s (%s) | %s (catalog) %s %s"), g->le, rate,
                 what, sc->gpu.name, g->le, pt);
        snprintf(f[2], sizeof(f[2]), _("here %s %s | %s (catalog) %s %s"), g->le, rate,
                 sc->gpu.name, g->le, pt);
        snprintf(f[3], sizeof(f[3]), _("here %s %s | catalog %s %s"), g->le, rate, g->le, pt);
    }
    mfit(buf, sizeof(buf), p->iw, cand, 4);
    int x = tui_pen_text(p, line, 0, TUI_ROLE_VALUE, buf);
    const char *nofit = _("(does not fit its memory)");
    if (!h.fits && x + 2 + tui_width(nofit) <= p->iw)
        tui_pen_text(p, line, x + 2, TUI_ROLE_WARN, nofit);
    if (form != MHERE_TWO_LINES)
        return 1;
    snprintf(f[0], sizeof(f[0]),
             _("%s %s on %s (catalog, another device): predicted %s %s tok/s"), model, wfmt,
             sc->gpu.name, g->le, pt);
    snprintf(f[1], sizeof(f[1]), _("on %s (another device): predicted %s %s tok/s"),
             sc->gpu.name, g->le, pt);
    snprintf(f[2], sizeof(f[2]), _("%s (catalog): %s %s tok/s"), sc->gpu.name, g->le, pt);
    snprintf(f[3], sizeof(f[3]), _("catalog GPU %s %s tok/s"), g->le, pt);
    mfit(buf, sizeof(buf), p->iw, cand, 4);
    tui_pen_text(p, line + 1, 0, TUI_ROLE_DIM, buf);
    return 2;
}

/* The scenario line: predicted and measured decode ceilings. */
static void mscenario(struct tui_pen *p, int line) {
    const struct tui_state *st = p->st;
    const struct tui_measure *m = &st->measure;
    const struct engine_scenario *sc = &st->opt.sc;
    const struct tui_glyphs *g = p->ui->g;
    struct tui_measure_redo rd;
    char a[32], b[32], c[32], buf[320];
    const char *test;
    double bw = tui_measure_decode_bw(m, &sc->weight_format, &test, NULL);
    const struct tui_measure_row *gemm = tui_measure_find(m, "gemm");
    tui_measure_redo(sc, bw, gemm ? gemm->flop_per_s : 0, &rd);
    if (!rd.valid) {
        tui_pen_text(p, line, 0, TUI_ROLE_DIM,
                     sc->mode != ENGINE_MODE_INFER
                         ? _("the scenario redone needs inference mode (t)")
                         : _("no bandwidth measured for the scenario"));
        return;
    }
    report_number(rd.predicted_tokens_per_s, a, sizeof(a));
    report_number(rd.measured_tokens_per_s, b, sizeof(b));
    report_bandwidth(bw, c, sizeof(c));
    /* the longest form that fits: the numbers matter most */
    char f[4][320];
    char model[ENGINE_NAME_MAX + 32];
    lesson_model_name(i18n_numfmt(false), &sc->model, model, sizeof(model));
    const char *wfmt = sc->weight_format.name[0] ? sc->weight_format.name : sc->weight_format.id;
    snprintf(f[0], sizeof(f[0]),
             _("%s %s on %s: predicted %s %s tok/s, measured %s %s gives %s %s tok/s"), model, wfmt,
             m->match ? _("this GPU") : _("this machine"), g->le, a, mlabel(test), c, g->le, b);
    snprintf(f[1], sizeof(f[1]), _("%s %s: predicted %s %s tok/s, measured %s %s gives %s %s tok/s"),
             model, wfmt, g->le, a, mlabel(test), c, g->le, b);
    snprintf(f[2], sizeof(f[2]), _("predicted %s %s tok/s, measured %s %s gives %s %s tok/s"), g->le, a,
             mlabel(test), c, g->le, b);
    snprintf(f[3], sizeof(f[3]), _("%s %s tok/s predicted, %s %s measured"), g->le, a, g->le, b);
    const char *cand[] = {f[0], f[1], f[2], f[3]};
    mfit(buf, sizeof(buf), p->iw, cand, 4);
    tui_pen_text(p, line, 0, TUI_ROLE_VALUE, buf);
}

/* The device line: name, backend, C, what "predicted" means. */
static void mdevice(struct tui_pen *p, int line) {
    const struct tui_state *st = p->st;
    const struct tui_measure *m = &st->measure;
    const struct tui_measure_row *copy = tui_measure_find(m, "copy");
    char a[32], buf[256];
    if (m->on_cpu && m->isa[0])
        snprintf(buf, sizeof(buf), "%s (%s, %s)", m->device[0] ? m->device : "?", m->backend,
                 m->isa);
    else
        snprintf(buf, sizeof(buf), "%s (%s)", m->device[0] ? m->device : "?", m->backend);
    int x = tui_pen_field(p, line, 0, TUI_F_MEASURE, buf);
    if (copy) {
        report_bandwidth(copy->bytes_per_s, a, sizeof(a));
        snprintf(buf, sizeof(buf), "  C = %s", a);
        x += tui_pen_text(p, line, x, TUI_ROLE_VALUE, buf);
    }
    if (m->on_cpu) {
        /* the CPU against itself: a data sheet only for a known part on
         * bare metal; a VM or an unknown part says so (the longest form
         * that fits) */
        char f[3][160];
        if (m->cpu && m->virt != 1) {
            report_bandwidth(m->cpu->bandwidth_bytes_per_s, a, sizeof(a));
            snprintf(f[0], sizeof(f[0]), _("  predicted: %s data sheet, %s"), m->cpu->name, a);
            snprintf(f[1], sizeof(f[1]), _("  data sheet %s (%s)"), a, m->cpu->id);
            snprintf(f[2], sizeof(f[2]), _("  data sheet %s"), a);
        } else if (m->cpu) {
            snprintf(f[0], sizeof(f[0]), _("  a virtual machine on a %s: no data-sheet ratio"),
                     m->cpu->name);
            snprintf(f[1], sizeof(f[1]), "%s", _("  virtual machine: no data-sheet ratio"));
            snprintf(f[2], sizeof(f[2]), "%s", _("  virtual machine"));
        } else if (m->virt == 1) {
            snprintf(f[0], sizeof(f[0]), "%s",
                     _("  unknown CPU (virtual machine): rates are fractions of C"));
            snprintf(f[1], sizeof(f[1]), "%s", _("  unknown CPU (virtual machine)"));
            snprintf(f[2], sizeof(f[2]), "%s", _("  unknown CPU (VM)"));
        } else {
            snprintf(f[0], sizeof(f[0]), "%s",
                     _("  unknown CPU (not in the catalog): rates are fractions of C"));
            snprintf(f[1], sizeof(f[1]), "%s", _("  unknown CPU (not in the catalog)"));
            snprintf(f[2], sizeof(f[2]), "%s", _("  unknown CPU"));
        }
        const char *cand[] = {f[0], f[1], f[2]};
        mfit(buf, sizeof(buf), p->iw - x, cand, 3);
        tui_pen_text(p, line, x, TUI_ROLE_DIM, buf);
        return;
    }
    if (m->match)
        snprintf(buf, sizeof(buf), _("  predicted: %s data sheet"), m->match->name);
    else
        snprintf(buf, sizeof(buf), _("  predicted: %s data sheet (no catalog GPU is this device)"),
                 st->opt.sc.gpu.name);
    tui_pen_text(p, line, x, TUI_ROLE_DIM, buf);
}

/* A row's flags after its figures: not verified, spread, in cache, the
 * copy against the STREAM-style loop, the probe's note. */
static void mflags(struct tui_pen *p, int line, int x, const struct tui_measure_row *r) {
    const struct tui_measure *m = &p->st->measure;
    char buf[160], q[32];
    if (!r->verified)
        x += tui_pen_text(p, line, x, TUI_ROLE_BAD, _("  NOT VERIFIED"));
    if (r->flagged)
        x += tui_pen_text(p, line, x, TUI_ROLE_WARN, _("  noisy (repeats differ > 5%)"));
    if (tui_measure_in_cache(m, r))
        x += tui_pen_text(p, line, x, TUI_ROLE_DIM, _("  in cache (< 4x)"));
    if (r->reference_bytes_per_s > 0) {
        report_ratio(r->bytes_per_s / r->reference_bytes_per_s, q, sizeof(q));
        snprintf(buf, sizeof(buf), _("  %s the plain STREAM copy loop"), q);
        x += tui_pen_text(p, line, x, TUI_ROLE_DIM, buf);
    }
    if (r->note[0] && x + 2 < p->iw) {
        snprintf(buf, sizeof(buf), "  %s", r->note);
        tui_pen_text(p, line, x, TUI_ROLE_DIM, buf);
    }
}

/* The CPU's rates two to a line (short of lines, no flags to show):
 * label, measured, fraction of C; the rows that do not fit are counted on
 * the last line, as the table does. Returns the next line. */
static int mtable_pairs(struct tui_pen *p, int line) {
    const struct tui_measure *m = &p->st->measure;
    const struct tui_measure_row *copy = tui_measure_find(m, "copy");
    char a[32], ofc[16], buf[160];
    int col = 0, cw = p->iw / 2;
    size_t total = 0, shown = 0, fit;
    for (size_t i = 0; i < sizeof(mtests) / sizeof(mtests[0]); i++)
        total += tui_measure_find(m, mtests[i].id) != NULL;
    int lines = p->ih - 1 - (line + 1); /* under the header, above the hints */
    fit = lines > 0 ? 2 * (size_t)lines : 0;
    if (fit < total) /* the last cell says how many are left out */
        fit = fit > 0 ? fit - 1 : 0;
    buf[0] = '\0';
    mcellpad(buf, sizeof(buf), _("test"), 12, true);
    mcellpad(buf, sizeof(buf), _("measured"), 11, false);
    mcellpad(buf, sizeof(buf), _("of C"), 5, false);
    tui_pen_text(p, line, 0, TUI_ROLE_LABEL, buf);
    tui_pen_text(p, line++, cw, TUI_ROLE_LABEL, buf);
    for (size_t i = 0; i < sizeof(mtests) / sizeof(mtests[0]) && shown < fit; i++) {
        const struct tui_measure_row *r = tui_measure_find(m, mtests[i].id);
        if (!r)
            continue;
        shown++;
        mrate(r, mflop(r), a, sizeof(a));
        snprintf(ofc, sizeof(ofc), "-");
        if (!mflop(r) && copy && copy->bytes_per_s > 0)
            mfixed(r->bytes_per_s / copy->bytes_per_s, 2, ofc, sizeof(ofc));
        buf[0] = '\0';
        mcellpad(buf, sizeof(buf), mlabel(r->test), 12, true);
        mcellpad(buf, sizeof(buf), a, 11, false);
        mcellpad(buf, sizeof(buf), ofc, 5, false);
        tui_pen_text(p, line, col * cw, TUI_ROLE_VALUE, buf);
        if (++col == 2) {
            col = 0;
            line++;
        }
    }
    if (shown < total && line < p->ih - 1) {
        snprintf(buf, sizeof(buf), _("+%zu more rows"), total - shown);
        tui_pen_text(p, line, col * cw, TUI_ROLE_WARN, buf);
        col++;
    }
    return col ? line + 1 : line;
}

/* Whether any row has a flag or a note (the pairs cannot show them). */
static bool many_flags(const struct tui_measure *m) {
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct tui_measure_row *r = &m->rows[i];
        if (!r->verified || r->flagged || tui_measure_in_cache(m, r))
            return true;
    }
    return false;
}

/* Whether a row of the run is noisy (its repeats differ by more than 5%). */
static bool mnoisy(const struct tui_measure *m) {
    for (size_t i = 0; i < m->n_rows; i++)
        if (m->rows[i].flagged)
            return true;
    return false;
}

/* Lines the legend under the table takes when `left` lines are left for
 * the table: its words first (one), the noisy advice too when there is
 * room, always two rows of figures before any of it. */
static int mlegend_lines(const struct tui_pen *p, int left) {
    const struct tui_measure *m = &p->st->measure;
    int rows = 0;
    for (size_t i = 0; i < sizeof(mtests) / sizeof(mtests[0]); i++)
        rows += tui_measure_find(m, mtests[i].id) != NULL;
    /* Two lines (noisy) when everything fits with them or four rows of
     * figures still show, else one. */
    int want = 1 + mnoisy(m);
    if (want == 2 && 1 + rows + want > left && left - 1 - 1 - want < 4)
        want = 1;
    int spare = left - 1 - 2; /* the header and two rows */
    return spare < 0 ? 0 : spare < want ? spare : want;
}

/* What the table's words mean, under it: the ratio, of C, and what to do
 * about a noisy row; n lines at most. */
static int mlegend(struct tui_pen *p, int line, int n) {
    const struct tui_measure *m = &p->st->measure;
    if (n > 0 && mnoisy(m) && line < p->ih - 1) {
        tui_pen_text(p, line++, 0, TUI_ROLE_WARN,
                     _("noisy: the repeats disagree; stop what else runs on the device, then m "
                       "again"));
        n--;
    }
    bool sheet = !m->on_cpu || (m->cpu && m->virt != 1);
    if (n > 0 && line < p->ih - 1)
        tui_pen_text(p, line++, 0, TUI_ROLE_DIM,
                     !m->on_cpu ? _("ratio: measured / predicted (1.00: as the data sheet); "
                                    "of C: / the copy (C)")
                     : sheet    ? _("ratio: measured / the part's data sheet; of C: / this "
                                    "machine's copy (C)")
                                : _("of C: the rate over this machine's copy (C)"));
    return line;
}

/* The rates table from content line `line`; returns the next line. On a
 * CPU: measured and fraction of C, with the data sheet and the ratio only
 * for a known part on bare metal. */
static int mtable(struct tui_pen *p, int line) {
    const struct tui_state *st = p->st;
    const struct tui_measure *m = &st->measure;
    const struct tui_measure_row *copy = tui_measure_find(m, "copy");
    bool sheet = !m->on_cpu || (m->cpu && m->virt != 1);
    char a[32], b[32], buf[200];
    /* The columns (a CPU without a data sheet, a CPU with one, a GPU):
     * their headers, then widths in display cells, each at least its
     * translated header's ("ficha técnica"). */
    enum { T_TEST, T_MEAS, T_PRED, T_RATIO, T_OFC, T_SHEET };
    static const int cols[3][6] = {{T_TEST, T_MEAS, T_OFC, -1},
                                   {T_TEST, T_MEAS, T_OFC, T_SHEET, T_RATIO, -1},
                                   {T_TEST, T_MEAS, T_PRED, T_RATIO, T_OFC, -1}};
    const char *head[] = {_("test"), _("measured"), _("predicted"),
                          _("ratio"), _("of C"),     _("data sheet")};
    int w[] = {12, 12, 12, 6, 5, 12};
    const int *col = cols[!m->on_cpu ? 2 : sheet ? 1 : 0];
    for (int k = 0; k < 6; k++)
        if (tui_width(head[k]) > w[k])
            w[k] = tui_width(head[k]);
    buf[0] = '\0';
    for (int k = 0; col[k] >= 0; k++)
        mcellpad(buf, sizeof(buf), head[col[k]], w[col[k]], col[k] == T_TEST);
    tui_pen_text(p, line++, 0, TUI_ROLE_LABEL, buf);
    /* The rows that fit above the legend (what the words mean: one line,
     * two when a row is noisy, as room allows) and the hints; when some do
     * not, the last line says how many more and how to see them. */
    size_t total = 0, shown = 0;
    for (size_t i = 0; i < sizeof(mtests) / sizeof(mtests[0]); i++)
        total += tui_measure_find(m, mtests[i].id) != NULL;
    /* the runtime row (r), when it runs or ran, below the kernels' rows */
    int rt = m->rt.status != TUI_MEASURE_IDLE;
    int room = p->ih - 1 - line - rt - mlegend_lines(p, p->ih - 1 - line - rt);
    size_t fit = room < 0 ? 0 : (size_t)room;
    if (total > fit)
        fit = fit > 0 ? fit - 1 : 0;
    for (size_t i = 0; i < sizeof(mtests) / sizeof(mtests[0]) && shown < fit; i++) {
        const struct tui_measure_row *r = tui_measure_find(m, mtests[i].id);
        if (!r)
            continue;
        shown++;
        bool flop = mflop(r);
        double pred = tui_measure_predicted(m, r, &st->opt.sc.gpu);
        double meas = flop ? r->flop_per_s : r->bytes_per_s;
        mrate(r, flop, a, sizeof(a));
        if (!(pred > 0))
            snprintf(b, sizeof(b), "-");
        else if (flop)
            report_flops(pred, b, sizeof(b));
        else
            report_bandwidth(pred, b, sizeof(b));
        char ratio[16] = "-", ofc[16] = "-";
        if (pred > 0) /* two digits that count, even far below 1 */
            mfixed(meas / pred, meas / pred >= 0.1 ? 2 : -2, ratio, sizeof(ratio));
        if (!flop && copy && copy->bytes_per_s > 0)
            mfixed(r->bytes_per_s / copy->bytes_per_s, 2, ofc, sizeof(ofc));
        const char *cell[] = {mlabel(r->test), a, b, ratio, ofc, b};
        buf[0] = '\0';
        for (int k = 0; col[k] >= 0; k++)
            mcellpad(buf, sizeof(buf), cell[col[k]], w[col[k]], col[k] == T_TEST);
        int x = tui_pen_text(p, line, 0, TUI_ROLE_VALUE, buf);
        mflags(p, line, x, r);
        line++;
    }
    if (shown < total && line < p->ih - 1) {
        snprintf(buf, sizeof(buf),
                 tui_measure_grows(st) ? _("+%zu more rows: vramlab measure lists them all")
                                       : _("+%zu more rows: Tab to this pane shows them all"),
                 total - shown);
        tui_pen_text(p, line++, 0, TUI_ROLE_WARN, buf);
    }
    return line;
}

/* The progress bars of a run, from content line `line`. */
static void mbars(struct tui_pen *p, int line) {
    const struct tui_measure *m = &p->st->measure;
    char buf[96];
    int bw = p->iw - 40 > 40 ? 40 : p->iw - 40;
    for (size_t i = 0; i < m->n_bars; i++, line++) {
        const struct tui_measure_bar *b = &m->bars[i];
        const struct tui_measure_row *r = tui_measure_find(m, b->test);
        tui_pen_text(p, line, 0, TUI_ROLE_LABEL, mlabel(b->test));
        if (b->fraction < 0) {
            tui_pen_text(p, line, 13, TUI_ROLE_DIM, _("skipped here"));
            continue;
        }
        mbar(p, line, 13, bw, b->fraction, b->fraction >= 1 ? TUI_ROLE_GOOD : TUI_ROLE_WARN);
        char pc[16];
        mpercent0(b->fraction, pc, sizeof(pc));
        snprintf(buf, sizeof(buf), "%4s", pc);
        int x = 14 + (bw > 0 ? bw : 0);
        x += tui_pen_text(p, line, x, TUI_ROLE_VALUE, buf);
        if (r) {
            mrate(r, mflop(r), buf, sizeof(buf));
            tui_pen_text(p, line, x + 2, TUI_ROLE_VALUE, buf);
        }
    }
}

/* One lab cell "0.097  13%" ("0,097  13%" in es_ES; "-" when none). */
static void mcell(const struct tui_measure_lab *l, char *buf, size_t len) {
    char e[12], z[8];
    if (!l) {
        snprintf(buf, len, "-");
        return;
    }
    mfixed(l->relative_error, 3, e, sizeof(e));
    mpercent0(l->zero_fraction, z, sizeof(z));
    snprintf(buf, len, "%s %4s", e, z);
}

/* The chart cell of one width: zero codes on the outlier weights, per
 * group (full blocks) and what one scale per matrix adds (shaded). */
static void mzeros(struct tui_pen *p, int line, int x, int w, const struct tui_measure_lab *grp,
                   const struct tui_measure_lab *mat) {
    const struct tui_glyphs *g = p->ui->g;
    int gw = (int)lround(grp->zero_fraction * w), mw = (int)lround(mat->zero_fraction * w);
    gw = gw < 0 ? 0 : gw > w ? w : gw;
    mw = mw < gw ? gw : mw > w ? w : mw;
    tui_pen_repeat(p, line, x, gw, TUI_ROLE_GOOD, g->full);
    tui_pen_repeat(p, line, x + gw, mw - gw, TUI_ROLE_BAD, g->seg_mono[1]);
    tui_pen_repeat(p, line, x + mw, w - mw, TUI_ROLE_FREE, g->free);
}

/* The error lab: a table, the seed's loss, a chart of zero codes, and the
 * seed's claim checked against the measured rows; returns the next line. */
static int mlab(struct tui_pen *p, int line) {
    const struct tui_state *st = p->st;
    const struct tui_measure *m = &st->measure;
    char c[4][24], buf[200];
    if (m->n_lab == 0) {
        tui_pen_text(p, line, 0, TUI_ROLE_DIM,
                     _("error lab: no rows yet (m runs it; v: back to the rates)"));
        return line + 1;
    }
    int chart_x = 3 + 4 * 11 + 13, chart_w = p->iw - chart_x;
    /* padded by display cells: "g32 atíp." is 9 cells in 10 bytes */
    const char *head[] = {"b", _("g32"), _("matrix"), _("g32 outl."), _("mat. outl.")};
    buf[0] = '\0';
    for (int k = 0; k < 5; k++)
        mcellpad(buf, sizeof(buf), head[k], k ? 10 : 2, true);
    mcellpad(buf, sizeof(buf), _("Pythia loss"), 0, true);
    int hx = tui_pen_text(p, line, 0, TUI_ROLE_LABEL, buf);
    if (chart_w >= 8) {
        /* the chart's legend: zero codes on the outlier weights; after a
         * translated header that runs into the chart's column, never over it */
        char leg[64];
        snprintf(leg, sizeof(leg), _("zeros %sg32 %smatrix"), p->ui->g->full,
                 p->ui->g->seg_mono[1]);
        tui_pen_text(p, line, hx + 1 > chart_x ? hx + 1 : chart_x, TUI_ROLE_DIM, leg);
    }
    line++;
    for (unsigned bits = 8; bits >= 2; bits--, line++) {
        const struct tui_measure_lab *l[4] = {
            tui_measure_lab_find(m, bits, 32, false), tui_measure_lab_find(m, bits, 0, false),
            tui_measure_lab_find(m, bits, 32, true), tui_measure_lab_find(m, bits, 0, true)};
        for (int k = 0; k < 4; k++)
            mcell(l[k], c[k], sizeof(c[k]));
        double at, pg, pm, base;
        char loss[40] = "", lg[16], lm[16];
        if (tui_measure_seed_loss(st->cat, bits, &at, &pg, &pm, &base) && at == bits) {
            mfixed(pg, 2, lg, sizeof(lg));
            mfixed(pm, -3, lm, sizeof(lm));
            snprintf(loss, sizeof(loss), "%s/%s", lg, lm);
        }
        snprintf(buf, sizeof(buf), "%-2u %-10s %-10s %-10s %-10s %s", bits, c[0], c[1], c[2], c[3],
                 loss);
        /* most outlier weights on the zero mark: the seed's break */
        bool broken = l[3] && l[3]->zero_fraction > 0.5;
        tui_pen_text(p, line, 0, broken ? TUI_ROLE_BAD : TUI_ROLE_VALUE, buf);
        if (chart_w >= 8 && l[2] && l[3])
            mzeros(p, line, chart_x, chart_w - 1, l[2], l[3]);
    }
    const struct tui_measure_lab *g4 = tui_measure_lab_find(m, 4, 32, true),
                                 *m4 = tui_measure_lab_find(m, 4, 0, true);
    if (g4 && m4 && line < p->ih - 1) {
        char zm[16], em[16], zg[16], eg[16];
        mpercent0(m4->zero_fraction, zm, sizeof(zm));
        mfixed(m4->relative_error, 2, em, sizeof(em));
        mpercent0(g4->zero_fraction, zg, sizeof(zg));
        mfixed(g4->relative_error, 2, eg, sizeof(eg));
        snprintf(buf, sizeof(buf),
                 _("4 bits, outliers: one scale per matrix puts %s on the zero mark (error %s); "
                   "groups of 32 hold, %s (%s)"),
                 zm, em, zg, eg);
        tui_pen_text(p, line++, 0, TUI_ROLE_WARN, buf);
    }
    double at, pg, pm, base;
    if (line < p->ih - 1 && tui_measure_seed_loss(st->cat, 16, &at, &pg, &pm, &base)) {
        char fb[16];
        mfixed(base, -4, fb, sizeof(fb));
        snprintf(buf, sizeof(buf),
                 _("relative error ||w - w^||/||w||, zero codes; loss: Pythia-1.4B per group / "
                   "per matrix, FP16 %s (seed 000)"),
                 fb);
        tui_pen_text(p, line++, 0, TUI_ROLE_DIM, buf);
    }
    return line;
}

/* The all-reduce view (x): the fit, then per size the measured bus
 * bandwidth against the engine's ring model for the scenario (a log
 * scale: a CPU's shared memory and NVLink differ by orders of magnitude),
 * FP32 (else BF16) sizes, evenly thinned to the lines there are; returns
 * the next line. */
static int mallreduce(struct tui_pen *p, int line) {
    const struct tui_state *st = p->st;
    const struct tui_measure_ar *a = &st->measure.ar;
    const struct tui_glyphs *g = p->ui->g;
    char buf[320], x[32], y[32], z[32];
    if (a->n == 0) {
        tui_pen_text(p, line, 0, TUI_ROLE_DIM,
                     _("all-reduce: nothing measured yet (x runs it; v: the other views)"));
        return line + 1;
    }
    const struct measure_ar_fit *f = tui_measure_ar_fit(&st->measure);
    bool bf16 = true;
    for (size_t i = 0; i < a->n; i++)
        bf16 = bf16 && a->p[i].bf16;
    char c[3][320];
    if (f && f->valid) {
        report_seconds(f->alpha_s, x, sizeof(x));
        report_bandwidth(f->bus_beta_bytes_per_s, y, sizeof(y));
        report_percent(f->residual, z, sizeof(z));
        snprintf(c[0], sizeof(c[0]),
                 _("all-reduce, %u ranks on %u host(s) (%s, %s): t = %s + bytes/beta, link %s, "
                   "residual %s"),
                 a->ranks, a->hosts, a->transport, f->dtype, x, y, z);
        snprintf(c[1], sizeof(c[1]), _("all-reduce %u ranks, %u host(s): %s + bytes/beta, link %s"),
                 a->ranks, a->hosts, x, y);
        snprintf(c[2], sizeof(c[2]), _("%u ranks: %s, link %s"), a->ranks, x, y);
    } else {
        snprintf(c[0], sizeof(c[0]), _("all-reduce, %u ranks on %u host(s) (%s): no fit"),
                 a->ranks, a->hosts, a->transport);
        snprintf(c[1], sizeof(c[1]), "%s", c[0]);
        snprintf(c[2], sizeof(c[2]), "%s", c[0]);
    }
    const char *cand[] = {c[0], c[1], c[2]};
    mfit(buf, sizeof(buf), p->iw, cand, 3);
    tui_pen_text(p, line++, 0, TUI_ROLE_VALUE, buf);
    if (a->note[0] && line < p->ih - 2)
        tui_pen_text(p, line++, 0, TUI_ROLE_WARN, a->note);
    /* the points shown and the scale */
    size_t idx[TUI_MEASURE_AR], n = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->p[i].bf16 == bf16)
            idx[n++] = i;
    int rows = p->ih - 1 - line - 1;
    if (rows < 1 || n == 0)
        return line;
    double lo = INFINITY, hi = 0;
    for (size_t k = 0; k < n; k++) {
        const struct tui_measure_ar_point *q = &a->p[idx[k]];
        double pb = measure_ar_predicted_busbw(&st->opt.sc, q->bytes, a->ranks, a->hosts);
        if (q->busbw > 0) {
            lo = fmin(lo, q->busbw);
            hi = fmax(hi, q->busbw);
        }
        if (pb > 0) {
            lo = fmin(lo, pb);
            hi = fmax(hi, pb);
        }
    }
    lo /= 2;
    int cw = p->iw - 40;
    /* padded by display cells: "tamaño", a figure's no-break space */
    buf[0] = '\0';
    mcellpad(buf, sizeof(buf), _("size"), 10, true);
    mcellpad(buf, sizeof(buf), _("busbw"), 12, false);
    mcellpad(buf, sizeof(buf), _("predicted"), 12, false);
    if (cw >= 10) {
        size_t k = strlen(buf);
        snprintf(buf + k, sizeof(buf) - k, "  %s", _("(log scale: bar measured, mark predicted)"));
    }
    tui_pen_text(p, line++, 0, TUI_ROLE_LABEL, buf);
    size_t shown = (size_t)rows < n ? (size_t)rows : n;
    for (size_t r = 0; r < shown; r++, line++) {
        size_t k = shown > 1 ? r * (n - 1) / (shown - 1) : 0;
        const struct tui_measure_ar_point *q = &a->p[idx[k]];
        double pb = measure_ar_predicted_busbw(&st->opt.sc, q->bytes, a->ranks, a->hosts);
        report_bytes(q->bytes, UNITS_GIB, x, sizeof(x));
        report_bandwidth(q->busbw, y, sizeof(y));
        if (pb > 0)
            report_bandwidth(pb, z, sizeof(z));
        else
            snprintf(z, sizeof(z), "-");
        buf[0] = '\0';
        mcellpad(buf, sizeof(buf), x, 10, true);
        mcellpad(buf, sizeof(buf), y, 12, false);
        mcellpad(buf, sizeof(buf), z, 12, false);
        int xx = tui_pen_text(p, line, 0, q->verified ? TUI_ROLE_VALUE : TUI_ROLE_BAD, buf);
        if (cw < 10 || !(hi > lo) || !(lo > 0))
            continue;
        double span = log(hi / lo);
        double fm = q->busbw > 0 ? log(q->busbw / lo) / span : 0;
        mbar(p, line, xx + 2, cw - 2, fm, TUI_ROLE_GOOD);
        if (pb > 0) {
            int at = (int)lround(log(pb / lo) / span * (cw - 3));
            at = at < 0 ? 0 : at > cw - 3 ? cw - 3 : at;
            tui_pen_text(p, line, xx + 2 + at, TUI_ROLE_WARN, g->cap);
        }
    }
    return line;
}

/* The runtime row (r): a running server's decode and time to first token
 * beside the prediction, like the kernel rows; the longest form that fits. */
static void mruntime(struct tui_pen *p, int line) {
    const struct tui_measure_runtime *rt = &p->st->measure.rt;
    char f[4][320], buf[320], d[32], pd[32], ra[32], t[32], pt[32];
    if (rt->status == TUI_MEASURE_IDLE)
        return;
    int x = tui_pen_field(p, line, 0, TUI_F_MEASURE, _("runtime"));
    x++;
    if (rt->status == TUI_MEASURE_RUNNING) {
        mpercent0(rt->fraction, d, sizeof(d));
        snprintf(buf, sizeof(buf), _("benchmarking %s (%s)"), rt->url, d);
        tui_pen_text(p, line, x, TUI_ROLE_WARN, buf);
        return;
    }
    if (rt->status == TUI_MEASURE_FAILED) {
        snprintf(buf, sizeof(buf), _("%s  (r retries)"), rt->error);
        tui_pen_text(p, line, x, TUI_ROLE_BAD, buf);
        return;
    }
    report_number(rt->decode, d, sizeof(d));
    report_number(rt->predicted_decode, pd, sizeof(pd));
    report_ratio(rt->decode / rt->predicted_decode, ra, sizeof(ra));
    report_seconds(rt->ttft_s, t, sizeof(t));
    report_seconds(rt->predicted_ttft_s, pt, sizeof(pt));
    snprintf(f[0], sizeof(f[0]),
             _("%s (%s, %s on %s): decode %s tok/s, predicted %s (%s); first token %s, "
               "predicted %s"),
             rt->server_model, rt->runtime, rt->model, rt->device, d, pd, ra, t, pt);
    snprintf(f[1], sizeof(f[1]),
             _("%s: decode %s tok/s, predicted %s (%s); first token %s, predicted %s"),
             rt->runtime, d, pd, ra, t, pt);
    snprintf(f[2], sizeof(f[2]), _("decode %s tok/s, predicted %s (%s); TTFT %s"), d, pd, ra, t);
    snprintf(f[3], sizeof(f[3]), _("%s tok/s, predicted %s"), d, pd);
    const char *cand[] = {f[0], f[1], f[2], f[3]};
    mfit(buf, sizeof(buf), p->iw - x, cand, 4);
    tui_pen_text(p, line, x, TUI_ROLE_VALUE, buf);
}

/* The key hints or the last note on a content line. */
static void mhints(struct tui_pen *p, int line) {
    const struct tui_measure *m = &p->st->measure;
    if (m->note[0]) {
        tui_pen_text(p, line, 0, m->confirm_save ? TUI_ROLE_WARN : TUI_ROLE_DIM, m->note);
        return;
    }
    if (m->ar_view) {
        tui_pen_text(p, line, 0, TUI_ROLE_DIM,
                     m->ar.calibrated
                         ? _("a: the scenario's links again  w: save JSON  v: views  x: again")
                         : _("a: calibrate the links from the fit  w: save JSON  v: views  x: "
                             "again"));
        return;
    }
    tui_pen_text(
        p, line, 0, TUI_ROLE_DIM,
        p->st->opt.sc.measured_bytes_per_s > 0
            ? _("a: back to the data sheet  w: save JSON  v: error lab / rates  m: again")
            : _("a: apply the measured figures  w: save JSON  v: error lab / rates  m: again"));
}

/* The pane when it is two lines high (unfocused): a summary. */
static void msmall(struct tui_pen *p) {
    const struct tui_measure *m = &p->st->measure;
    char a[32], buf[160];
    int x = 0;
    if (m->status == TUI_MEASURE_RUNNING) {
        snprintf(buf, sizeof(buf), _("measuring on %s: %s  (Esc cancels)"),
                 m->device[0] ? m->device : "...", m->progress);
        tui_pen_text(p, 0, 0, TUI_ROLE_WARN, buf);
    } else if (m->status == TUI_MEASURE_FAILED) {
        snprintf(buf, sizeof(buf), _("measure: %s  (m retries)"),
                 m->error[0] ? m->error : "failed");
        tui_pen_text(p, 0, 0, TUI_ROLE_BAD, buf);
    } else if (m->on_cpu) {
        mhere(p, 0, MHERE_ONLY);
    } else {
        mscenario(p, 0);
    }
    /* As many rows as fit with the hint; the rest are counted, never cut. */
    const char *hint = _("(Tab here: the table, v: error lab)");
    char more[64];
    for (size_t i = 0; i < m->n_rows; i++) {
        const struct tui_measure_row *r = &m->rows[i];
        mrate(r, mflop(r), a, sizeof(a));
        snprintf(buf, sizeof(buf), "%s %s  ", mlabel(r->test), a);
        snprintf(more, sizeof(more), _("+%zu more "), m->n_rows - i);
        if (x + tui_pen_width(p, buf) + tui_width(hint) > p->iw &&
            (i + 1 < m->n_rows || x + tui_pen_width(p, buf) > p->iw)) {
            x += tui_pen_text(p, 1, x, TUI_ROLE_WARN, more);
            break;
        }
        x += tui_pen_text(p, 1, x, TUI_ROLE_VALUE, buf);
    }
    if (m->n_rows || m->n_lab)
        tui_pen_text(p, 1, x, TUI_ROLE_DIM, hint);
}

/* The Format pane's evidence lines (see draw.h). */
void tui_draw_format_evidence(struct tui_pen *p, int line) {
    const struct tui_state *st = p->st;
    const struct engine_format *f = &st->opt.sc.weight_format;
    double at, pg, pm, base;
    char c[9][96], buf[96];
    if (!tui_measure_seed_loss(st->cat, f->bits, &at, &pg, &pm, &base))
        return;
    /* The seed's measured Pythia-1.4B loss: one scale per group of 32
     * against one per matrix; labelled at every width (the bits are on
     * the line above, so the narrow forms drop them). */
    /* the figures in the reader's marks ("2,66"), as C's %.4g, %g, %.3g
     * and %.2g wrote them */
    char fb[16], fa[16], g3[16], m3[16], g2[16], m2[16];
    mfixed(base, -4, fb, sizeof(fb));
    mfixed(at, -6, fa, sizeof(fa));
    mfixed(pg, -3, g3, sizeof(g3));
    mfixed(pm, -3, m3, sizeof(m3));
    mfixed(pg, -2, g2, sizeof(g2));
    mfixed(pm, -2, m2, sizeof(m2));
    size_t n = 9;
    if (at >= 16) {
        snprintf(c[0], sizeof(c[0]), _("Pythia-1.4B loss %s (FP16)"), fb);
        snprintf(c[1], sizeof(c[1]), _("Pythia loss %s (FP16)"), fb);
        snprintf(c[2], sizeof(c[2]), _("loss %s (FP16)"), fb);
        snprintf(c[3], sizeof(c[3]), _("loss %s"), fb);
        n = 4;
    } else {
        snprintf(c[0], sizeof(c[0]), _("Pythia-1.4B loss %sb: %s g32 | %s matrix"), fa, g3, m3);
        snprintf(c[1], sizeof(c[1]), _("Pythia loss %sb: %s g32 | %s mat"), fa, g3, m3);
        snprintf(c[2], sizeof(c[2]), _("Pythia %sb: %s g32|%s mat"), fa, g3, m3);
        snprintf(c[3], sizeof(c[3]), _("loss %sb: %s g32|%s mat"), fa, g3, m3);
        snprintf(c[4], sizeof(c[4]), _("loss g32 %s|mat %s"), g3, m3);
        snprintf(c[5], sizeof(c[5]), _("loss g32 %s|m %s"), g3, m3);
        snprintf(c[6], sizeof(c[6]), _("g32 %s|mat %s"), g3, m3);
        snprintf(c[7], sizeof(c[7]), _("g32 %s|m %s"), g3, m3);
        snprintf(c[8], sizeof(c[8]), _("g32 %s|m %s"), g2, m2);
    }
    const char *cand[] = {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]};
    mfit(buf, sizeof(buf), p->iw, cand, n);
    int x = tui_pen_text(p, line, 0, TUI_ROLE_DIM, buf);
    /* The kernels' figure for the same width (weights with outliers): on
     * the next line, or after the loss when there is no next line. */
    unsigned b = (unsigned)lround(f->bits);
    const struct tui_measure_lab *lg = tui_measure_lab_find(&st->measure, b, 32, true);
    const struct tui_measure_lab *lm = tui_measure_lab_find(&st->measure, b, 0, true);
    if (!lg || !lm)
        return;
    bool below = line + 1 < p->ih;
    int room = below ? p->iw : p->iw - x - 2;
    char e3[16], f3[16], e2[16], f2[16];
    mfixed(lg->relative_error, 3, e3, sizeof(e3));
    mfixed(lm->relative_error, 3, f3, sizeof(f3));
    mfixed(lg->relative_error, 2, e2, sizeof(e2));
    mfixed(lm->relative_error, 2, f2, sizeof(f2));
    snprintf(c[0], sizeof(c[0]), _("measured error: g32 %s, matrix %s"), e3, f3);
    snprintf(c[1], sizeof(c[1]), _("err g32 %s mat %s"), e2, f2);
    snprintf(c[2], sizeof(c[2]), "err %s|%s", e2, f2);
    mfit(buf, sizeof(buf), room, cand, 3);
    if (tui_width(buf) <= room)
        tui_pen_text(p, below ? line + 1 : line, below ? 0 : x + 2, TUI_ROLE_WARN, buf);
}

/* The Measure pane. */
void tui_draw_measure(struct tui_pen *p) {
    const struct tui_measure *m = &p->st->measure;
    if (m->status == TUI_MEASURE_IDLE) {
        tui_pen_field(p, 0, 0, TUI_F_MEASURE, "m");
        tui_pen_text(
            p, 0, 1, TUI_ROLE_LABEL,
            _(": run the bundled kernels on this machine and compare with the prediction"));
        tui_pen_text(
            p, 1, 0, TUI_ROLE_DIM,
            _("(quick: copy, read, FP16 GEMV, W8A16/W4A16, error lab; `vramlab measure` for all)"));
        if (p->ih > 3 && m->rt.status != TUI_MEASURE_IDLE)
            mruntime(p, 2);
        else if (p->ih > 3 && !m->note[0])
            tui_pen_text(p, 2, 0, TUI_ROLE_DIM,
                         getenv("VRAMLAB_BENCH_URL")
                             ? _("r (Tab here): benchmark the server at $VRAMLAB_BENCH_URL")
                             : _("x (Tab here): the all-reduce, NCCL over this machine's GPUs"));
        if (p->ih > 3)
            mhints(p, p->ih - 1);
        return;
    }
    if (p->ih < 5) {
        msmall(p);
        return;
    }
    int line = 0;
    if (m->status == TUI_MEASURE_RUNNING) {
        char buf[160];
        snprintf(buf, sizeof(buf), _("measuring on %s  (Esc cancels; the rest stays live)"),
                 m->device[0] ? m->device : "...");
        tui_pen_field(p, 0, 0, TUI_F_MEASURE, buf);
        mbars(p, 1);
        if (m->note[0])
            tui_pen_text(p, p->ih - 1, 0, TUI_ROLE_DIM, m->note);
        return;
    }
    if (m->status == TUI_MEASURE_FAILED) {
        char buf[200];
        snprintf(buf, sizeof(buf), _("measure: %s  (m retries)"),
                 m->error[0] ? m->error : "failed");
        tui_pen_text(p, line++, 0, TUI_ROLE_BAD, buf);
        if (m->n_rows == 0 && m->n_lab == 0) {
            mhints(p, p->ih - 1);
            return;
        }
    }
    if (m->ar_view) {
        line = mallreduce(p, line);
    } else if (m->lab_view) {
        line = mlab(p, line);
    } else {
        if (m->on_cpu) {
            /* the CPU: what it is compared with, the scenario here and on
             * the catalog's GPU (on one line when short; then the rates
             * two to a line if they still do not fit and have no flags) */
            mdevice(p, line++);
            int room = p->ih - 1 - line, rows = 1 + (int)m->n_rows;
            bool sheet = m->cpu && m->virt != 1;
            if (room >= 2 + rows) {
                line += mhere(p, line, MHERE_TWO_LINES);
            } else {
                line += mhere(p, line, MHERE_ONE_LINE);
                if (room < 1 + rows && !sheet && !many_flags(m) && p->iw >= 60) {
                    mtable_pairs(p, line);
                    mhints(p, p->ih - 1);
                    return;
                }
            }
        } else {
            /* short of lines (80x24): a matched device is named by the
             * table's predicted column and "this GPU"; the rows matter more */
            if (!m->match || p->ih - line >= 3 + (int)m->n_rows)
                mdevice(p, line++);
            mscenario(p, line++);
        }
        int legend = mlegend_lines(p, p->ih - 1 - line - (m->rt.status != TUI_MEASURE_IDLE));
        line = mtable(p, line);
        if (m->rt.status != TUI_MEASURE_IDLE && line < p->ih - 1)
            mruntime(p, line++);
        line = mlegend(p, line, legend);
    }
    if (line < p->ih)
        mhints(p, p->ih - 1);
}
