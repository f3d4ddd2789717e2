/*
 * draw_speed.c: the Speed pane (decode ceilings, prefill, the tokens/s
 * versus batch curve; training time and cost), the Roofline pane and the
 * Measure pane.
 *
 * The roofline is drawn on a dot canvas, log-log: x = arithmetic intensity
 * (FLOP/byte) from ridge/1000 to ridge*10, y = attainable FLOP/s from
 * peak/1000 to peak, the roof being min(peak, bandwidth * intensity). In
 * UTF-8 a cell holds 2x4 braille dots; in ASCII 1x2 dots ('\'', '.', ':').
 */
#include "config.h"

#include "tui/draw_speed.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

/* A figure of the registry as the reader reads it ("876 tok/s"). */
static void figure(const struct tui_state *st, enum engine_key k, char *buf, size_t len) {
    report_figure(&st->opt.sc, &st->est, k, st->opt.units, buf, len);
}

/* A read-out line: label, then the field's value at column vx. */
static void readout(struct tui_pen *p, int line, enum tui_field f, const char *label, int vx,
                    const char *value) {
    tui_pen_text(p, line, 0, TUI_ROLE_LABEL, label);
    tui_pen_field(p, line, vx, f, value);
}

/* The tokens/s-versus-batch curve as columns of eighth blocks, from
 * content line `top` for `rows` lines; the current batch is marked. The
 * scale and the "top" are those of the batches that fit; a batch that does
 * not fit has an empty column over a "!" (it has no throughput to draw). */
static void draw_curve(struct tui_pen *p, int top, int rows) {
    const struct tui_state *st = p->st;
    const struct tui_glyphs *g = p->ui->g;
    double max = 0;
    char buf[96], n[32];
    for (int i = 0; i < TUI_CURVE_POINTS; i++)
        if (st->curve_fits[i] && st->curve_tokens[i] > max)
            max = st->curve_tokens[i];
    if (rows < 2)
        return;
    if (p->masked) { /* a question hides the curve and where it stops fitting */
        tui_pen_text(p, top, 0, TUI_ROLE_DIM, _("tok/s vs batch: ?"));
        return;
    }
    if (!(max > 0)) {
        tui_pen_text(p, top, 0, TUI_ROLE_DIM, _("tok/s vs batch: not even batch 1 fits"));
        return;
    }
    report_number(max, n, sizeof(n));
    /* Batches that no longer fit: named in the heading, and their columns
     * drawn in the alarm colour over a "!" (seen without colour too). */
    int nofit = -1;
    for (int i = 0; i < TUI_CURVE_POINTS && nofit < 0; i++)
        if (!st->curve_fits[i])
            nofit = i;
    snprintf(buf, sizeof(buf), _("tok/s vs batch 1..4096 (top %s)"), n);
    if (nofit >= 0) {
        char c[3][96], b[32];
        report_int(st->curve_batch[nofit], b, sizeof(b));
        snprintf(c[0], sizeof(c[0]), _("tok/s vs batch 1..4096 (top %s; ! from %s: no fit)"), n, b);
        snprintf(c[1], sizeof(c[1]), _("tok/s vs batch (top %s; ! from %s: no fit)"), n, b);
        snprintf(c[2], sizeof(c[2]), _("tok/s vs batch (! from %s: no fit)"), b);
        for (int k = 0; k < 3; k++)
            if (tui_width(c[k]) <= p->iw || k == 2) {
                snprintf(buf, sizeof(buf), "%s", c[k]);
                break;
            }
    }
    tui_pen_text(p, top, 0, TUI_ROLE_DIM, buf);
    int h = rows - 1, colw = p->iw / TUI_CURVE_POINTS;
    if (colw < 1)
        return;
    if (colw > 6)
        colw = 6;
    if (h > 10) /* a taller curve reads no better */
        h = 10;
    for (int i = 0; i < TUI_CURVE_POINTS; i++) {
        int eighths = (int)lround(st->curve_tokens[i] / max * h * 8);
        bool cur = st->curve_batch[i] == st->opt.sc.batch ||
                   (i + 1 < TUI_CURVE_POINTS && st->opt.sc.batch > st->curve_batch[i] &&
                    st->opt.sc.batch < st->curve_batch[i + 1]);
        enum tui_role role = !st->curve_fits[i] ? TUI_ROLE_BAD
                             : cur              ? TUI_ROLE_MARKER
                                                : TUI_ROLE_CHART;
        if (!st->curve_fits[i]) {
            tui_pen_repeat(p, top + h, i * colw, colw - (colw > 1), role, g->over);
            continue;
        }
        for (int r = 0; r < h; r++) {
            int level = eighths - (h - 1 - r) * 8;
            level = level < 0 ? 0 : level > 8 ? 8 : level;
            tui_pen_repeat(p, top + 1 + r, i * colw, colw - (colw > 1), role, g->spark[level]);
        }
    }
}

/* One figure of the comparison table, as text. */
typedef void (*compare_fmt)(const struct engine_estimate *e, char *buf, size_t len);

/* The figures of the comparison table (formatters). */
static void cf_mem(const struct engine_estimate *e, char *b, size_t n) {
    report_number(e->decode_tokens_per_s_memory_bound, b, n);
}
static void cf_compute(const struct engine_estimate *e, char *b, size_t n) {
    report_number(e->decode_tokens_per_s_compute_bound, b, n);
}
static void cf_decode(const struct engine_estimate *e, char *b, size_t n) {
    report_number(e->decode_tokens_per_s, b, n);
}
static void cf_seq(const struct engine_estimate *e, char *b, size_t n) {
    report_number(e->decode_tokens_per_s_per_sequence, b, n);
}
static void cf_prefill(const struct engine_estimate *e, char *b, size_t n) {
    report_seconds(e->prefill_seconds, b, n);
}
static void cf_ttft(const struct engine_estimate *e, char *b, size_t n) {
    report_seconds(e->serving.ttft_s, b, n);
}
static void cf_tpot(const struct engine_estimate *e, char *b, size_t n) {
    report_seconds(e->serving.tpot_s, b, n);
}
static void cf_step(const struct engine_estimate *e, char *b, size_t n) {
    report_seconds(e->train_step_seconds, b, n);
}
static void cf_bubble(const struct engine_estimate *e, char *b, size_t n) {
    report_percent(e->train_bubble_fraction, b, n);
}
static void cf_days(const struct engine_estimate *e, char *b, size_t n) {
    report_seconds(e->train_days * 86400, b, n);
}
static void cf_hours(const struct engine_estimate *e, char *b, size_t n) {
    report_number(e->train_gpu_hours, b, n);
}
static void cf_cost(const struct engine_estimate *e, char *b, size_t n) {
    if (e->train_cost_usd > 0)
        report_money(e->train_cost_usd, b, n);
    else
        snprintf(b, n, "%s", _("no price"));
}

/* The Speed pane of a comparison: label, pinned, current, one row each
 * (training rows when either side trains); rates in tok/s, as the pane's
 * title says. */
static void draw_speed_compare(struct tui_pen *p) {
    static const struct {
        const char *label;
        compare_fmt fmt;
        bool train;
    } rows[] = {
        {N_("memory-bound"), cf_mem, false}, {N_("compute-bound"), cf_compute, false},
        {N_("decode"), cf_decode, false},    {N_("per sequence"), cf_seq, false},
        {N_("prefill"), cf_prefill, false},  {N_("TTFT"), cf_ttft, false},
        {N_("TPOT"), cf_tpot, false},        {N_("step"), cf_step, true},
        {N_("bubble"), cf_bubble, true},     {N_("training"), cf_days, true},
        {N_("GPU-hours"), cf_hours, true},   {N_("cost"), cf_cost, true},
    };
    const struct tui_state *st = p->st;
    const struct engine_estimate *pe = &st->lx.pin_est, *ce = &st->est;
    bool train = st->opt.sc.mode != ENGINE_MODE_INFER || st->lx.pin_opt.sc.mode != ENGINE_MODE_INFER;
    int lw = p->iw >= 44 ? 15 : p->iw >= 34 ? 14 : 10;
    int cw = (p->iw - lw) / 2;
    char a[48], b[48];
    int line = 0;
    if (p->ih >= 6) {
        tui_pen_text(p, line, lw, TUI_ROLE_PANE_TITLE, _("pinned"));
        tui_pen_text(p, line, lw + cw, TUI_ROLE_PANE_TITLE, _("current"));
        line++;
    }
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        if (rows[i].train != train)
            continue;
        rows[i].fmt(pe, a, sizeof(a));
        rows[i].fmt(ce, b, sizeof(b));
        tui_pen_text(p, line, 0, TUI_ROLE_LABEL, _(rows[i].label));
        tui_pen_text(p, line, lw, TUI_ROLE_VALUE, a);
        tui_pen_text(p, line, lw + cw, TUI_ROLE_VALUE, b);
        line++;
    }
}

/* "86.7 days for 15.6T tokens", with where the tokens come from when the
 * run took the default ("20/param" in full training), as room allows. */
static void train_days_line(struct tui_pen *p, int vx) {
    const struct tui_state *st = p->st;
    const struct engine_estimate *e = &st->est;
    char d[32], t[32], c[3][96];
    report_count(e->train_tokens, t, sizeof(t));
    /* plan's figure: "226 days", "17,476 days", "4.20 h" */
    report_seconds(e->train_days * 86400, d, sizeof(d));
    bool dflt = !st->opt.sc.training_tokens_given && !(st->opt.sc.training_tokens > 0);
    snprintf(c[0], sizeof(c[0]), _("%s for %s tokens"), d, t);
    snprintf(c[1], sizeof(c[1]), "%s", c[0]);
    if (dflt && st->opt.sc.mode == ENGINE_MODE_TRAIN)
        snprintf(c[0], sizeof(c[0]), _("%s for %s tokens (20/param)"), d, t);
    else if (dflt)
        snprintf(c[0], sizeof(c[0]), _("%s for %s tokens (default)"), d, t);
    snprintf(c[2], sizeof(c[2]), _("%s, %s tok"), d, t);
    int k = 0;
    while (k < 2 && tui_width(c[k]) > p->iw - vx)
        k++;
    readout(p, 2, TUI_F_TRAIN_DAYS, _("time"), vx, c[k]);
}

/* The column of the Speed pane's values: 15 cells on a wide pane, else
 * one past the longest short label in the reader's language (9 in
 * English; "generación" and "prellenado" need 11), at most a third of
 * the pane. */
static int value_column(const struct tui_pen *p) {
    static const char *const narrow[] = {N_("memory*"), N_("compute*"), N_("memory"),
                                         N_("compute"), N_("decode"),   N_("per seq"),
                                         N_("prefill"), N_("step"),     N_("bubble"),
                                         N_("time"),    N_("GPU-h"),    N_("cost")};
    if (p->iw >= 40)
        return 15;
    int vx = 9;
    for (size_t i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++) {
        int w = tui_width(_(narrow[i])) + 1;
        if (w > vx)
            vx = w;
    }
    return vx > p->iw / 3 ? (p->iw / 3 > 9 ? p->iw / 3 : 9) : vx;
}

/* The Speed pane. */
void tui_draw_speed(struct tui_pen *p) {
    const struct tui_state *st = p->st;
    const struct engine_estimate *e = &st->est;
    const struct tui_glyphs *g = p->ui->g;
    char a[48], buf[128];
    int vx = value_column(p);
    bool wide = p->iw >= 40; /* the long labels */
    char binds[48];
    if (st->lx.pinned) {
        draw_speed_compare(p);
        return;
    }
    snprintf(binds, sizeof(binds), "%s %s", g->binds, _("binds"));

    if (st->opt.sc.mode == ENGINE_MODE_INFER) {
        static const int line_of[] = {0, 1, 2, 3, 4, 4, 3};
        int f = (int)st->focus[TUI_PANE_SPEED] - TUI_F_DECODE_MEM;
        if (f >= 0 && f < 7)
            tui_pen_show(p, line_of[f]);
        /* a CPU's cores may bind below both ceilings (engine/core.c) */
        bool core_binds = isfinite(e->decode_tokens_per_s_core_bound) &&
                          e->decode_tokens_per_s_core_bound <
                              fmin(e->decode_tokens_per_s_memory_bound,
                                   e->decode_tokens_per_s_compute_bound);
        bool mem_binds =
            !core_binds && e->decode_tokens_per_s_memory_bound <= e->decode_tokens_per_s_compute_bound;
        figure(st, ENGINE_KEY_DECODE_MEMORY_BOUND, a, sizeof(a));
        snprintf(buf, sizeof(buf), "%s %s", g->le, a);
        /* calibrated (Measure pane: a, or --measured-bw): the label says so */
        bool mbw = st->opt.sc.measured_bytes_per_s > 0, mfl = st->opt.sc.measured_flop_per_s > 0;
        readout(p, 0, TUI_F_DECODE_MEM,
                mbw ? (wide ? _("memory, meas.") : _("memory*"))
                    : (wide ? _("memory-bound") : _("memory")),
                vx, buf);
        if (mem_binds && !p->masked)
            tui_pen_text(p, 0, vx + tui_width(buf) + 1, TUI_ROLE_BINDING, binds);
        figure(st, ENGINE_KEY_DECODE_COMPUTE_BOUND, a, sizeof(a));
        snprintf(buf, sizeof(buf), "%s %s", g->le, a);
        readout(p, 1, TUI_F_DECODE_COMPUTE,
                mfl ? (wide ? _("compute, meas.") : _("compute*"))
                    : (wide ? _("compute-bound") : _("compute")),
                vx, buf);
        if (!mem_binds && !core_binds && !p->masked)
            tui_pen_text(p, 1, vx + tui_width(buf) + 1, TUI_ROLE_BINDING, binds);
        figure(st, ENGINE_KEY_DECODE_TOKENS, a, sizeof(a));
        readout(p, 2, TUI_F_DECODE, _("decode"), vx, a);
        if (core_binds && !p->masked) {
            snprintf(buf, sizeof(buf), "%s %s", g->binds, _("the cores bind"));
            tui_pen_text(p, 2, vx + tui_width(a) + 1, TUI_ROLE_BINDING, buf);
        }
        figure(st, ENGINE_KEY_DECODE_PER_SEQUENCE, buf, sizeof(buf));
        readout(p, 3, TUI_F_PER_SEQ, wide ? _("per sequence") : _("per seq"), vx, buf);
        /* What a served request sees: each next token (TPOT, the inverse of
         * the per-sequence rate) and the first (TTFT, after its prefill). */
        int x = vx + tui_pen_width(p, buf) + 2;
        figure(st, ENGINE_KEY_SERVING_TPOT, a, sizeof(a));
        snprintf(buf, sizeof(buf), _("TPOT %s"), a);
        if (x + tui_pen_width(p, buf) <= p->iw)
            tui_pen_field(p, 3, x, TUI_F_TPOT, buf);
        figure(st, ENGINE_KEY_PREFILL, a, sizeof(a));
        readout(p, 4, TUI_F_PREFILL, _("prefill"), vx, a);
        x = vx + tui_pen_width(p, a) + 2;
        figure(st, ENGINE_KEY_SERVING_TTFT, a, sizeof(a));
        snprintf(buf, sizeof(buf), _("TTFT %s"), a);
        if (x + tui_pen_width(p, buf) <= p->iw)
            tui_pen_field(p, 4, x, TUI_F_TTFT, buf);
        if (p->ih - 5 >= 4 && p->offset == 0)
            draw_curve(p, 5, p->ih - 5);
        return;
    }
    static const int tline_of[] = {0, 1, 2, 3, 4};
    int f = (int)st->focus[TUI_PANE_SPEED] - TUI_F_TRAIN_STEP;
    if (f >= 0 && f < 5)
        tui_pen_show(p, tline_of[f]);
    figure(st, ENGINE_KEY_TRAIN_STEP, a, sizeof(a));
    readout(p, 0, TUI_F_TRAIN_STEP, _("step"), vx, a);
    figure(st, ENGINE_KEY_TRAIN_BUBBLE, a, sizeof(a));
    readout(p, 1, TUI_F_TRAIN_BUBBLE, _("bubble"), vx, a);
    train_days_line(p, vx);
    report_number(e->train_gpu_hours, a, sizeof(a));
    readout(p, 3, TUI_F_TRAIN_HOURS, wide ? _("GPU-hours") : _("GPU-h"), vx, a);
    if (e->train_cost_usd > 0)
        report_money(e->train_cost_usd, a, sizeof(a));
    else
        snprintf(a, sizeof(a), _("no price"));
    readout(p, 4, TUI_F_TRAIN_COST, _("cost"), vx, a);
    char mfu[24], hfu[24];
    figure(st, ENGINE_KEY_TRAIN_FLOPS_PER_TOKEN, a, sizeof(a));
    figure(st, ENGINE_KEY_TRAIN_MFU, mfu, sizeof(mfu));
    figure(st, ENGINE_KEY_TRAIN_HFU, hfu, sizeof(hfu));
    /* MFU end to end: the user's, or the one vramlab predicts; HFU counts
     * the recomputed forward too. */
    snprintf(buf, sizeof(buf),
             st->opt.sc.mfu > 0 ? _("%s per token %s MFU %s (given), HFU %s")
                                : _("%s per token %s MFU %s (predicted), HFU %s"),
             a, g->dot, mfu, hfu);
    tui_pen_text(p, 5, 0, TUI_ROLE_DIM, buf);
}

/* A short SI figure for an axis: "989T", "1.2P" ("1,2P" in es_ES: the
 * digits through the one formatter, in the reader's decimal mark). */
static void si_short(double v, char *buf, size_t len) {
    static const char *const sfx[] = {"", "k", "M", "G", "T", "P", "E"};
    int i = 0;
    while (fabs(v) >= 1000 && i < 6) {
        v /= 1000;
        i++;
    }
    char num[24];
    engine_format_fixed(i18n_numfmt(false), v, v < 10 ? 1 : 0, num, sizeof(num));
    snprintf(buf, len, "%s%s", num, sfx[i]);
}

/* A dot canvas: UTF-8 braille (2x4 per cell) or ASCII (1x2 per cell). */
struct canvas {
    int w, h;        /* cells */
    int dx, dy;      /* dots per cell */
    unsigned char bits[64][160];
};

/* Set the dot at (x, y), y counted from the top. */
static void canvas_set(struct canvas *c, int x, int y) {
    if (x < 0 || y < 0 || x >= c->w * c->dx || y >= c->h * c->dy)
        return;
    int cx = x / c->dx, cy = y / c->dy, sx = x % c->dx, sy = y % c->dy;
    static const unsigned char braille[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20},
                                                {0x40, 0x80}};
    if (c->dx == 2)
        c->bits[cy][cx] |= braille[sy][sx];
    else
        c->bits[cy][cx] |= (unsigned char)(sy == 0 ? 1 : 2);
}

/* The text of one canvas cell. */
static const char *canvas_cell(const struct canvas *c, int cx, int cy, char out[4]) {
    unsigned b = c->bits[cy][cx];
    if (c->dx == 2) {
        unsigned cp = 0x2800 + b;
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        out[3] = '\0';
        return out;
    }
    return b == 3 ? ":" : b == 1 ? "'" : b == 2 ? "." : " ";
}

/* The Roofline pane: the roof, the ridge, and this scenario's point. */
void tui_draw_roof(struct tui_pen *p) {
    const struct tui_state *st = p->st;
    const struct engine_estimate *e = &st->est;
    const struct tui_glyphs *g = p->ui->g;
    char a[32], b[32], buf[128];
    static struct canvas c;

    double peak = e->peak_flop_per_s, bw = e->bandwidth_bytes_per_s;
    double ridge = e->ridge_flop_per_byte, ai = e->arithmetic_intensity;
    if (p->focused)
        tui_pen_show(p, p->ih - 1);

    /* The text line last: ridge, B*, this point. */
    int tl = p->ih - 1;
    report_number(ridge, a, sizeof(a));
    snprintf(buf, sizeof(buf), _("ridge %s F/B"), a);
    int x = tui_pen_field(p, tl, 0, TUI_F_RIDGE, buf);
    bool infer = st->opt.sc.mode == ENGINE_MODE_INFER;
    if (!infer) {
        /* Training multiplies big matrices: compute-bound, far right. */
        const char *why[] = {_(" (decode roofline; training is compute-bound)"),
                             _(" (decode; training: compute-bound)"), _(" (training: compute)")};
        for (int i = 0; i < 3; i++) {
            if (tui_width(why[i]) <= p->iw - x) {
                tui_pen_text(p, tl, x, TUI_ROLE_DIM, why[i]);
                break;
            }
        }
        ai = 0;
    }
    if (infer) {
        report_number(e->compute_bound_batch, a, sizeof(a));
        snprintf(buf, sizeof(buf), "B* %s %s", g->approx, a);
        x += tui_pen_text(p, tl, x, TUI_ROLE_DIM, " ");
        x += tui_pen_field(p, tl, x, TUI_F_BSTAR, buf);
        report_number(ai, a, sizeof(a));
        snprintf(buf, sizeof(buf), _(" you %s F/B (batch %u)"), a, st->opt.sc.batch);
        tui_pen_text(p, tl, x, TUI_ROLE_MARKER, buf);
    }

    /* Axis labels need 8 columns on the left. */
    int lw = 8, cw = p->iw - lw, ch = p->ih - 1;
    if (cw < 8 || ch < 2 || !(peak > 0) || !(bw > 0) || !(ridge > 0))
        return;
    if (ch > 64)
        ch = 64;
    if (cw > 160)
        cw = 160;
    memset(&c, 0, sizeof(c));
    c.w = cw;
    c.h = ch;
    c.dx = g->utf8 ? 2 : 1;
    c.dy = g->utf8 ? 4 : 2;
    double x0 = log10(ridge) - 3, x1 = log10(ridge) + 1;
    double y0 = log10(peak) - 3, y1 = log10(peak);
    int W = c.w * c.dx, H = c.h * c.dy;
    for (int px = 0; px < W; px++) {
        double lx = x0 + (x1 - x0) * px / (W - 1);
        double perf = fmin(peak, bw * pow(10, lx));
        int py = (int)lround((y1 - log10(perf)) / (y1 - y0) * (H - 1));
        canvas_set(&c, px, py);
    }
    char cell[4];
    for (int cy = 0; cy < c.h; cy++)
        for (int cx = 0; cx < c.w; cx++)
            if (c.bits[cy][cx])
                tui_pen_text(p, cy, lw + cx, TUI_ROLE_CHART, canvas_cell(&c, cx, cy, cell));
    /* Ridge tick on the bottom row and this scenario's point. */
    int rx = (int)lround((log10(ridge) - x0) / (x1 - x0) * (c.w - 1));
    tui_pen_text(p, c.h - 1, lw + rx, TUI_ROLE_DIM, "|");
    if (ai > 0 && isfinite(ai) && !p->masked) { /* the point says what binds */
        double perf = fmin(peak, bw * ai);
        int mx = (int)lround((log10(ai) - x0) / (x1 - x0) * (c.w - 1));
        int my = (int)lround((y1 - log10(perf)) / (y1 - y0) * (c.h - 1));
        mx = mx < 0 ? 0 : mx >= c.w ? c.w - 1 : mx;
        my = my < 0 ? 0 : my >= c.h ? c.h - 1 : my;
        tui_pen_text(p, my, lw + mx, TUI_ROLE_MARKER, g->bullet);
    }
    si_short(peak, a, sizeof(a));
    tui_pen_text(p, 0, 0, TUI_ROLE_DIM, a);
    si_short(peak / 1000, b, sizeof(b));
    tui_pen_text(p, c.h - 1, 0, TUI_ROLE_DIM, b);
    if (c.h >= 4)
        tui_pen_text(p, c.h / 2, 0, TUI_ROLE_DIM, "FLOP/s");
}
