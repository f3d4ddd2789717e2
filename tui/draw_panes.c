/*
 * draw_panes.c: the input panes (Model, Format, GPU, Layout) and the
 * Memory pane with its stacked bar.
 *
 * Each pane is a list of content lines; when the pane is shorter than the
 * list (compact layout) it scrolls so the focused field's line shows.
 * The memory bar is scaled to the capacity, or to the total when that is
 * larger (the capacity is then marked inside the bar); each segment takes
 * round(cells) columns, and in UTF-8 the last partial cell uses an eighth
 * block. Without colours every segment has its own fill character.
 */
#include "config.h"

#include "tui/draw_panes.h"
#include "tui/draw_measure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

/* Move the pen so the focused field's line is visible. */
static void show_focus(struct tui_pen *p, const int *line_of, int n_fields, int first) {
    enum tui_field f = p->st->focus[p->pane];
    int i = (int)f - first;
    if (i >= 0 && i < n_fields)
        tui_pen_show(p, line_of[i]);
}

/* The Model pane while the model-file prompt is open: what to type, and
 * the matches of the last Tab that did not complete alone. */
static void draw_model_file_prompt(struct tui_pen *p) {
    const struct tui_file_prompt *fp = &p->st->file;
    char buf[96];
    tui_pen_text(p, 0, 0, TUI_ROLE_LABEL, _("open a model file:"));
    if (fp->n_matches == 0) {
        tui_pen_text(p, 1, 0, TUI_ROLE_DIM, _("GGUF, .safetensors, index .json or folder"));
        tui_pen_text(p, 2, 0, TUI_ROLE_DIM, _("Tab completes, Enter opens, Esc"));
        return;
    }
    /* The matches, as many to a line as fit. */
    int line = 1, x = 0;
    for (size_t i = 0; i < fp->n_matches; i++) {
        int w = tui_width(fp->matches[i]);
        if (x > 0 && x + w > p->iw) {
            line++;
            x = 0;
        }
        tui_pen_text(p, line, x, TUI_ROLE_VALUE, fp->matches[i]);
        x += w + 2;
    }
    if (fp->more) {
        snprintf(buf, sizeof(buf), _("and %zu more"), fp->more);
        tui_pen_text(p, line + 1, 0, TUI_ROLE_DIM, buf);
    }
}

/* The Model pane: name and size, architecture, size slider. */
void tui_draw_model(struct tui_pen *p) {
    const struct tui_state *st = p->st;
    const struct engine_model *m = &st->opt.sc.model;
    const struct tui_glyphs *g = p->ui->g;
    char buf[160], n[32];
    static const int line_of[] = {0, 2};
    if (st->overlay == TUI_OVERLAY_FILE) {
        draw_model_file_prompt(p);
        return;
    }
    show_focus(p, line_of, 2, TUI_F_MODEL);

    report_count(st->est.params_total, n, sizeof(n));
    int nw = tui_pen_width(p, n);
    char name[ENGINE_NAME_MAX + 32];
    lesson_model_name(i18n_numfmt(false), m, name, sizeof(name));
    tui_pen_field(p, 0, 0, TUI_F_MODEL, name);
    if (p->iw >= tui_width(name) + nw + 1)
        tui_pen_figure(p, 0, p->iw - nw, TUI_ROLE_VALUE, ENGINE_KEY_PARAMS_TOTAL, n);

    /* Widths in display cells ('·' is two bytes but one cell). */
    int cells = tui_printw(buf, sizeof(buf), _("%u L %s %u h %s %u/%u heads"), m->layers, g->dot,
                           m->hidden, g->dot, m->heads, m->kv_heads);
    if (cells > p->iw) /* narrow pane: the short form */
        cells = tui_printw(buf, sizeof(buf), _("%uL %uh %u/%u heads"), m->layers, m->hidden,
                           m->heads, m->kv_heads);
    if (cells > p->iw) /* narrower: layers and heads (q/kv) */
        tui_printw(buf, sizeof(buf), _("%uL %u/%u heads"), m->layers, m->heads, m->kv_heads);
    size_t len = strlen(buf);
    if (m->experts > 0 && len < sizeof(buf))
        snprintf(buf + len, sizeof(buf) - (size_t)len, _(" %s %u/%u experts"), g->dot,
                 m->active_experts, m->experts);
    tui_pen_text(p, 1, 0, m->derived ? TUI_ROLE_DIM : TUI_ROLE_LABEL, buf);

    /* The log slider: 100M .. 2T, knob at the current size. */
    int x = tui_pen_text(p, 2, 0, TUI_ROLE_LABEL, _("size "));
    /* The model's own size; the knob sits at the nearest notch. */
    report_count(st->est.params_total, n, sizeof(n));
    int track = p->iw - x - tui_pen_width(p, n) - 3;
    x += tui_pen_field(p, 2, x, TUI_F_SIZE, g->left);
    if (track >= 4) {
        int k = (int)lround((double)st->size_step * (track - 1) / TUI_SIZE_STEPS);
        if (p->masked) /* the knob's place would tell the size */
            k = -1;
        for (int i = 0; i < track; i++)
            tui_pen_text(p, 2, x + i, i == k ? TUI_ROLE_MARKER : TUI_ROLE_DIM,
                         i == k ? g->knob : g->track);
        x += track;
    }
    x += tui_pen_field(p, 2, x, TUI_F_SIZE, g->right);
    tui_pen_text(p, 2, x + 1, st->model_index < 0 ? TUI_ROLE_VALUE : TUI_ROLE_DIM, n);
    if (m->derived) {
        const char *d = _("shape derived from the size");
        if (tui_width(d) > p->iw)
            d = _("shape from the size");
        tui_pen_text(p, 3, 0, TUI_ROLE_DIM, d);
    }
}

/* "KV: inference only", shortened to the pane. */
static const char *kv_note(const struct tui_pen *p) {
    const char *n = _("KV: inference only");
    return tui_width(n) <= p->iw ? n : _("KV: infer. only");
}

/* A format's name for a field of room columns: the catalog name, without
 * its parenthesised note when that does not fit ("INT8"), else the id. */
static const char *format_label(const struct engine_format *f, int room, char *buf, size_t len) {
    const char *name = f->name[0] ? f->name : f->id;
    if (tui_width(name) <= room)
        return name;
    const char *par = strstr(name, " (");
    if (par && par > name) {
        snprintf(buf, len, "%.*s", (int)(par - name), name);
        if (tui_width(buf) <= room)
            return buf;
    }
    return tui_width(f->id) < tui_width(name) ? f->id : name;
}

/* A format's own figure as given ("16", "4.5"), in the reader's marks. */
static void format_plain(double v, char *buf, size_t len) {
    engine_format(i18n_numfmt(false), ENGINE_UNIT_PLAIN, v, buf, len);
}

/* Full training: the engine takes the weight bytes from the optimizer
 * recipe, not the weight format; say so ("BF16 via adam-mixed"). */
static void draw_format_recipe(struct tui_pen *p, int x) {
    const struct engine_recipe_info *r = engine_recipe_info(p->st->opt.sc.recipe);
    const char *w = r->weights == 2 ? "BF16" : r->weights == 4 ? "FP32" : NULL;
    char buf[96], num[16], g[16];
    if (!w) {
        engine_format(i18n_numfmt(false), ENGINE_UNIT_BYTE_SIZE, r->weights, num, sizeof(num));
        w = num;
    }
    if (tui_printw(buf, sizeof(buf), _("%s via %s"), w, r->id) > p->iw - x &&
        tui_printw(buf, sizeof(buf), _("%s (recipe)"), w) > p->iw - x)
        snprintf(buf, sizeof(buf), "%s", w);
    tui_pen_field(p, 0, x, TUI_F_WFORMAT, buf);
    format_plain(r->weights * 8, g, sizeof(g));
    snprintf(buf, sizeof(buf), "%s b/w", g);
    tui_pen_text(p, 1, 0, TUI_ROLE_VALUE, buf);
    const char *why = _("set by the optimizer recipe");
    if (tui_width(why) > p->iw)
        why = _("set by the recipe");
    tui_pen_text(p, 2, 0, TUI_ROLE_DIM, why);
    tui_pen_text(p, 3, 0, TUI_ROLE_DIM, kv_note(p));
}

/* The effective bits as engine.md writes them: two decimals (4.50), more
 * when the sum needs them (4.125, 6.5625), at most three past that
 * (NF4 double quant: 4.127). */
static void format_bits(double eff, char *buf, size_t len) {
    const struct engine_numfmt *nf = i18n_numfmt(false);
    for (int d = 2; d <= 4; d++) {
        double k = pow(10, d);
        if (fabs(eff * k - round(eff * k)) < 1e-9) {
            engine_format_fixed(nf, eff, d, buf, len);
            return;
        }
    }
    engine_format_fixed(nf, eff, 3, buf, len);
}


/* A format's bits per weight spelled out so that the terms add up to the
 * figure: bits + scale/block (+ zero/block) (+ super scale/super block) =
 * effective, as engine_format_bits sums them (Q4_K: 4 + 6/32 + 6/32 +
 * 32/256 = 4.50). Narrower forms drop the spaces, then merge the block's
 * scale and zero, then leave the result alone: never a formula whose
 * terms are not all there. */
static void format_formula(const struct engine_format *f, int room, char *buf, size_t len) {
    char effs[16], terms[3][96], b[16], sc[16], z[16], sz[16], ss[16];
    format_bits(engine_format_bits(f), effs, sizeof(effs));
    format_plain(f->bits, b, sizeof(b));
    if (f->block == 0 && f->super_block == 0) {
        snprintf(buf, len, "%s b/w", b); /* "16 b/w" */
        return;
    }
    format_plain(f->scale_bits, sc, sizeof(sc));
    format_plain(f->zero_bits, z, sizeof(z));
    format_plain(f->scale_bits + f->zero_bits, sz, sizeof(sz));
    format_plain(f->super_scale_bits, ss, sizeof(ss));
    /* terms[0]: spaced; [1]: tight; [2]: tight, scale and zero merged. */
    for (int form = 0; form < 3; form++) {
        const char *plus = form == 0 ? " + " : "+";
        char *t = terms[form];
        size_t n = (size_t)snprintf(t, sizeof(terms[form]), "%s", b);
        if (f->block > 0 && (f->scale_bits > 0 || f->zero_bits > 0)) {
            if (form == 2 || f->zero_bits == 0)
                n += (size_t)snprintf(t + n, sizeof(terms[form]) - n, "%s%s/%u", plus, sz,
                                      f->block);
            else
                n += (size_t)snprintf(t + n, sizeof(terms[form]) - n, "%s%s/%u%s%s/%u", plus,
                                      sc, f->block, plus, z, f->block);
        }
        if (f->super_block > 0 && n < sizeof(terms[form]))
            snprintf(t + n, sizeof(terms[form]) - n, "%s%s/%u", plus, ss, f->super_block);
    }
    /* (The lengths are checked: a cut formula is never shown.) */
    if ((size_t)snprintf(buf, len, "%s = %s b/w", terms[0], effs) < len && tui_width(buf) <= room)
        return;
    for (int form = 1; form < 3; form++)
        if ((size_t)snprintf(buf, len, "%s=%sb/w", terms[form], effs) < len &&
            tui_width(buf) <= room)
            return;
    snprintf(buf, len, "%s b/w", effs);
}

/* Inference from a model file: the weights are the file's tensors; the
 * pane shows their type mix ("Q4_K 68%, Q6_K 27%, F32 1%") over as many
 * lines as it takes, then the bits per weight, then the KV format. */
static void draw_format_file(struct tui_pen *p, int x) {
    const struct catalog_model_file *mf = p->st->opt.model_file;
    const struct engine_scenario *sc = &p->st->opt.sc;
    char mix[256], nm[64], line[128];
    const char *as = _("as in the file");
    if (tui_width(as) > p->iw - x)
        as = _("the file's");
    tui_pen_field(p, 0, x, TUI_F_WFORMAT, as);
    catalog_model_file_mix(mf, mix, sizeof(mix));
    /* "A 68%, B 27%; 4.85 bits per weight": the types, then the bits. */
    char *semi = strstr(mix, "; ");
    const char *bits = semi ? semi + 2 : "";
    if (semi)
        *semi = '\0';
    int y = 1;
    const char *s = mix;
    while (*s && y < 3) {
        /* As many "TYPE N%" items as fit this line; a last line is cut
         * with the pane's ellipsis. */
        size_t used = 0;
        const char *q = s;
        line[0] = '\0';
        while (*q) {
            const char *end = strstr(q, ", ");
            size_t n = end ? (size_t)(end - q) : strlen(q);
            if (used + n + 2 >= sizeof(line))
                break;
            char trial[128];
            snprintf(trial, sizeof(trial), "%s%s%.*s", line, used ? ", " : "", (int)n, q);
            if (used > 0 && tui_width(trial) > p->iw && y < 2)
                break;
            snprintf(line, sizeof(line), "%s", trial);
            used = strlen(line);
            q = end ? end + 2 : q + n;
        }
        tui_pen_text(p, y++, 0, TUI_ROLE_VALUE, line);
        s = q;
    }
    snprintf(line, sizeof(line), "%s", bits);
    if (tui_width(line) > p->iw) {
        /* "4.85 bits per weight" -> "4.85 b/w" */
        double b = mf->params > 0 ? mf->bytes * 8.0 / mf->params : 0;
        char bs[16];
        engine_format_fixed(i18n_numfmt(false), b, 2, bs, sizeof(bs));
        snprintf(line, sizeof(line), "%s b/w", bs);
    }
    tui_pen_text(p, y, 0, TUI_ROLE_DIM, line);
    int kx = tui_pen_text(p, 4, 0, TUI_ROLE_LABEL, _("KV      "));
    tui_pen_field(p, 4, kx, TUI_F_KVFORMAT,
                  format_label(&sc->kv_format, p->iw - kx, nm, sizeof(nm)));
}

/* The Format pane: weights (with group), bits per weight spelled out, KV. */
void tui_draw_format(struct tui_pen *p) {
    const struct engine_scenario *sc = &p->st->opt.sc;
    const struct engine_format *f = &sc->weight_format;
    char buf[96];
    static const int line_of[] = {0, 1, 3};
    show_focus(p, line_of, 3, TUI_F_WFORMAT);

    int x = tui_pen_text(p, 0, 0, TUI_ROLE_LABEL, _("weights "));
    if (sc->mode == ENGINE_MODE_TRAIN) {
        draw_format_recipe(p, x);
        return;
    }
    char nm[64];
    if (p->st->opt.model_file && sc->model.file_bytes) {
        draw_format_file(p, x);
        return;
    }
    tui_pen_field(p, 0, x, TUI_F_WFORMAT, format_label(f, p->iw - x, nm, sizeof(nm)));

    x = tui_pen_text(p, 1, 0, TUI_ROLE_LABEL, _("group   "));
    if (f->block > 0)
        snprintf(buf, sizeof(buf), "%u", f->block);
    else
        snprintf(buf, sizeof(buf), _("none"));
    tui_pen_field(p, 1, x, TUI_F_GROUP, buf);

    format_formula(f, p->iw, buf, sizeof(buf));
    tui_pen_figure(p, 2, 0, TUI_ROLE_VALUE, ENGINE_KEY_BITS_PER_WEIGHT, buf);

    x = tui_pen_text(p, 3, 0, TUI_ROLE_LABEL, _("KV      "));
    const struct engine_format *kv = &sc->kv_format;
    tui_pen_field(p, 3, x, TUI_F_KVFORMAT, format_label(kv, p->iw - x, nm, sizeof(nm)));
    if (sc->mode != ENGINE_MODE_INFER)
        tui_pen_text(p, 4, 0, TUI_ROLE_DIM, kv_note(p));
    /* The seed's Pythia-1.4B losses measure INT b-bit weights (one FP16
     * scale per group of 32 against one per matrix), with FP16 the
     * baseline: no evidence for FP8, NF4, MXFP4, NVFP4 or GGUF blocks. */
    if (f->kind == ENGINE_FMT_INT || (f->kind == ENGINE_FMT_FLOAT && f->bits >= 16))
        tui_draw_format_evidence(p, sc->mode != ENGINE_MODE_INFER ? 5 : 4);
}

/* "85.9GB 3.35TB/s": two figures without the spaces before their units. */
static void tight_pair(char *buf, size_t len, const char *a, const char *b) {
    size_t n = 0;
    for (const char *s = a; *s && n + 1 < len; s++)
        if (*s != ' ')
            buf[n++] = *s;
    if (n + 1 < len)
        buf[n++] = ' ';
    for (const char *s = b; *s && n + 1 < len; s++)
        if (*s != ' ')
            buf[n++] = *s;
    buf[n] = '\0';
}

/* The GPU pane: the pick and count, memory, bandwidth, FLOP/s. */
void tui_draw_gpu(struct tui_pen *p) {
    const struct tui_state *st = p->st;
    const struct engine_gpu *gpu = &st->opt.sc.gpu;
    const struct tui_glyphs *g = p->ui->g;
    char a[32], b[32], buf[96];
    static const int line_of[] = {0, 0};
    show_focus(p, line_of, 2, TUI_F_GPU);

    snprintf(buf, sizeof(buf), "%s%u", g->times, st->opt.sc.gpus);
    int cw = tui_width(buf), cx = p->iw - cw > 10 ? p->iw - cw : 10;
    /* The name shortened at a word to leave the count its room (never
     * "GeForce RTX 306x1"). */
    char nm[ENGINE_NAME_MAX];
    tui_pen_field(p, 0, 0, TUI_F_GPU,
                  tui_fit_name(gpu->name[0] ? gpu->name : gpu->id, cx - 1, nm, sizeof(nm)));
    tui_pen_field(p, 0, cx, TUI_F_GPUS, buf);

    /* Calibrated (Measure pane: a, or --measured-bw/--measured-flops): the
     * measured figures are the ones used; the data sheet's become a note. */
    double mbw = st->opt.sc.measured_bytes_per_s, mfl = st->opt.sc.measured_flop_per_s;
    report_bytes(gpu->memory_bytes, st->opt.units, a, sizeof(a));
    report_bandwidth(mbw > 0 ? mbw : gpu->bandwidth_bytes_per_s, b, sizeof(b));
    if (tui_printw(buf, sizeof(buf), "%s %s %s", a, g->dot, b) > p->iw &&
        tui_printw(buf, sizeof(buf), "%s, %s", a, b) > p->iw)
        tight_pair(buf, sizeof(buf), a, b);
    tui_pen_figure(p, 1, 0, TUI_ROLE_LABEL,
                   tui_lecture_cites(&st->lx, ENGINE_KEY_BANDWIDTH) ? ENGINE_KEY_BANDWIDTH
                                                                    : ENGINE_KEY_CAPACITY,
                   buf);
    if (mbw > 0) /* the measured rate in the calibrated colour */
        tui_pen_text(p, 1, tui_width(buf) - tui_width(strrchr(buf, ' ') + 1), TUI_ROLE_WARN,
                     strrchr(buf, ' ') + 1);

    /* The column the mode computes in (the engine's rule): FP8 weights
     * run at FP8 rates in inference, but training runs BF16. */
    enum engine_compute c = engine_compute_column(&st->opt.sc);
    double fl = (unsigned)c < ENGINE_COMPUTE_COUNT ? gpu->flops[c] : 0;
    if (mfl > 0) {
        report_flops(mfl, a, sizeof(a));
        if (tui_printw(buf, sizeof(buf), _("%s (measured)"), a) > p->iw)
            snprintf(buf, sizeof(buf), _("%s meas."), a);
        tui_pen_text(p, 2, 0, TUI_ROLE_WARN, buf);
    } else if (fl > 0) {
        report_flops(fl, a, sizeof(a));
        snprintf(buf, sizeof(buf), "%s %s", a, engine_compute_name(c));
        tui_pen_figure(p, 2, 0, TUI_ROLE_LABEL, ENGINE_KEY_PEAK_FLOPS, buf);
    } else {
        report_flops(gpu->flops[ENGINE_COMPUTE_FP16], a, sizeof(a));
        snprintf(buf, sizeof(buf), _("%s FP16 (no %s)"), a, engine_compute_name(c));
        tui_pen_text(p, 2, 0, TUI_ROLE_LABEL, buf);
    }
    if (mbw > 0 || mfl > 0) { /* the data sheet's figures become a note */
        report_bandwidth(gpu->bandwidth_bytes_per_s, a, sizeof(a));
        report_flops(fl > 0 ? fl : gpu->flops[ENGINE_COMPUTE_FP16], b, sizeof(b));
        const char *sheet = mbw > 0 ? a : b;
        if (tui_printw(buf, sizeof(buf), _("measured; data sheet %s"), sheet) > p->iw &&
            tui_printw(buf, sizeof(buf), _("meas.; sheet %s"), sheet) > p->iw)
            snprintf(buf, sizeof(buf), _("sheet %s"), sheet);
        tui_pen_text(p, 3, 0, TUI_ROLE_DIM, buf);
        if (mbw > 0 && mfl > 0) {
            snprintf(buf, sizeof(buf), _("sheet %s"), b);
            tui_pen_text(p, 4, 0, TUI_ROLE_DIM, buf);
        }
        return;
    }

    if (gpu->link_bytes_per_s > 0) {
        report_bandwidth(gpu->link_bytes_per_s, a, sizeof(a));
        if (tui_printw(buf, sizeof(buf), _("link %s %s %u/node"), a, g->dot, gpu->gpus_per_node) >
            p->iw)
            snprintf(buf, sizeof(buf), _("link %s"), a);
        tui_pen_text(p, 3, 0, TUI_ROLE_DIM, buf);
    }
    if (gpu->price_per_hour > 0) {
        report_money(gpu->price_per_hour, a, sizeof(a));
        snprintf(buf, sizeof(buf), _("%s/h per GPU"), a);
        tui_pen_text(p, 4, 0, TUI_ROLE_DIM, buf);
    }
}

/* The Layout pane: mode, workload, TP x PP x DP, training knobs. */
void tui_draw_layout(struct tui_pen *p) {
    const struct engine_scenario *sc = &p->st->opt.sc;
    const struct tui_glyphs *g = p->ui->g;
    static const char *const modes[] = {N_("inference"), N_("training"), N_("LoRA"), N_("QLoRA")};
    static const int line_of[] = {0, 1, 1, 2, 2, 2, 3, 3, 4, 4};
    char buf[48];
    int x;
    show_focus(p, line_of, 10, TUI_F_MODE);

    x = tui_pen_text(p, 0, 0, TUI_ROLE_LABEL, _("mode "));
    tui_pen_field(p, 0, x, TUI_F_MODE, _(modes[(unsigned)sc->mode < 4 ? sc->mode : 0]));

    x = tui_pen_text(p, 1, 0, TUI_ROLE_LABEL, _("batch "));
    report_int(sc->batch, buf, sizeof(buf)); /* as plan writes it: "131,072" */
    x += tui_pen_field(p, 1, x, TUI_F_BATCH, buf);
    x += tui_pen_text(p, 1, x, TUI_ROLE_LABEL, _(" ctx "));
    report_int(sc->context, buf, sizeof(buf));
    tui_pen_field(p, 1, x, TUI_F_CONTEXT, buf);

    const char *labels[3] = {"TP ", "PP ", "DP "};
    const uint32_t vals[3] = {sc->tp, sc->pp, sc->dp};
    x = 0;
    for (int i = 0; i < 3; i++) {
        if (i > 0) {
            x += tui_pen_text(p, 2, x, TUI_ROLE_DIM, " ");
            x += tui_pen_text(p, 2, x, TUI_ROLE_DIM, g->dot);
            x += tui_pen_text(p, 2, x, TUI_ROLE_DIM, " ");
        }
        x += tui_pen_text(p, 2, x, TUI_ROLE_LABEL, labels[i]);
        snprintf(buf, sizeof(buf), "%u", vals[i]);
        x += tui_pen_field(p, 2, x, (enum tui_field)(TUI_F_TP + i), buf);
    }

    x = tui_pen_text(p, 3, 0, TUI_ROLE_LABEL, _("ZeRO "));
    snprintf(buf, sizeof(buf), "%u", sc->zero);
    x += tui_pen_field(p, 3, x, TUI_F_ZERO, buf);
    x += tui_pen_text(p, 3, x, TUI_ROLE_LABEL, _(" mb "));
    snprintf(buf, sizeof(buf), "%u", engine_micro_batches(sc));
    x += tui_pen_field(p, 3, x, TUI_F_MICRO, buf);
    if (tui_field_applies(p->st, TUI_F_EP)) {
        x += tui_pen_text(p, 3, x, TUI_ROLE_LABEL, _(" EP "));
        snprintf(buf, sizeof(buf), "%u", engine_ep(sc));
        tui_pen_field(p, 3, x, TUI_F_EP, buf);
    }

    x = tui_pen_field(p, 4, 0, TUI_F_RECOMPUTE, _(engine_recompute_name(sc->recompute)));
    x += tui_pen_text(p, 4, x, TUI_ROLE_LABEL, " ");
    const struct engine_recipe_info *ri = engine_recipe_info(sc->recipe);
    tui_pen_field(p, 4, x, TUI_F_RECIPE, ri ? ri->id : "?");
}

/* Bar segments in struct engine_memory order, the runtime's buffers before
 * the reserve (both sit at the end of the bar, past what the model needs). */
static const struct {
    enum tui_field field;
    enum tui_role role;
    const char *label;
} tui_segments[TUI_SEGMENTS] = {
    {TUI_F_MEM_WEIGHTS, TUI_ROLE_SEG_WEIGHTS, N_("weights")},
    {TUI_F_MEM_KV, TUI_ROLE_SEG_KV, N_("KV")},
    {TUI_F_MEM_ACT, TUI_ROLE_SEG_ACT, N_("act")},
    {TUI_F_MEM_GRADS, TUI_ROLE_SEG_GRADS, N_("grads")},
    {TUI_F_MEM_MASTER, TUI_ROLE_SEG_MASTER, N_("master")},
    {TUI_F_MEM_OPT, TUI_ROLE_SEG_OPT, N_("optimizer")},
    {TUI_F_MEM_OVERHEAD, TUI_ROLE_SEG_OVERHEAD, N_("buffers")},
    {TUI_F_MEM_RESERVE, TUI_ROLE_SEG_RESERVE, N_("reserve")},
};

/* Segment sizes of a memory breakdown, in order. */
static void segment_bytes(const struct engine_memory *m, double out[TUI_SEGMENTS]) {
    out[0] = m->weights;
    out[1] = m->kv_cache;
    out[2] = m->activations;
    out[3] = m->gradients;
    out[4] = m->master_weights;
    out[5] = m->optimizer;
    /* Buffers: the runtime's (inference), ZeRO-3's gathered layer (training). */
    out[6] = (m->overhead > 0 ? m->overhead : 0) + (m->zero3_working > 0 ? m->zero3_working : 0);
    out[7] = m->reserve;
}

/* The fill of a segment: a full block in colour, its own char in mono. */
static const char *segment_fill(const struct tui_ui *ui, int s) {
    return ui->mono ? ui->g->seg_mono[s] : ui->g->full;
}

/* A stacked memory bar of e against capacity on a content line. */
void tui_draw_bar(struct tui_pen *p, int line, int x0, int width,
                  const struct engine_estimate *e) {
    const struct tui_glyphs *g = p->ui->g;
    double seg[TUI_SEGMENTS];
    segment_bytes(&e->memory, seg);
    double total = 0;
    for (int s = 0; s < TUI_SEGMENTS; s++)
        total += seg[s] > 0 ? seg[s] : 0;
    double scale = e->capacity > total ? e->capacity : total;
    if (!(scale > 0) || width < 4)
        return;
    if (p->masked) {
        /* A question hides the bar: the same empty track whatever it
         * holds, with a '?' in the middle. */
        tui_pen_repeat(p, line, x0, width, TUI_ROLE_FREE, g->free);
        tui_pen_text(p, line, x0 + width / 2, TUI_ROLE_VALUE, "?");
        return;
    }
    double per_cell = scale / width;
    int cap_cell = (int)lround(e->capacity / per_cell);
    int x = 0;
    double acc = 0;
    for (int s = 0; s < TUI_SEGMENTS; s++) {
        if (!(seg[s] > 0))
            continue;
        acc += seg[s];
        int end = (int)floor(acc / per_cell);
        if (end > width)
            end = width;
        /* Within capacity in the segment's role, past it in the alarm role. */
        int in_end = end < cap_cell ? end : (x > cap_cell ? x : cap_cell);
        if (in_end > x)
            x += tui_pen_repeat(p, line, x0 + x, in_end - x, tui_segments[s].role, segment_fill(p->ui, s));
        if (end > x)
            x += tui_pen_repeat(p, line, x0 + x, end - x, TUI_ROLE_BAD,
                                p->ui->mono ? segment_fill(p->ui, s) : g->full);
        x = end > x ? end : x;
    }
    /* The last partial cell as an eighth block (UTF-8 and colour only). */
    double frac = acc / per_cell - floor(acc / per_cell);
    int eighth = (int)(frac * 8);
    if (x < width && eighth > 0 && g->utf8 && !p->ui->mono) {
        tui_pen_text(p, line, x0 + x, TUI_ROLE_SEG_RESERVE, g->eighths[eighth]);
        x++;
    }
    if (x < width)
        tui_pen_repeat(p, line, x0 + x, width - x, TUI_ROLE_FREE, g->free);
    if (total > e->capacity && cap_cell > 0 && cap_cell < width)
        tui_pen_text(p, line, x0 + cap_cell, TUI_ROLE_MARKER, g->cap);
}

/* One labelled bar of a comparison: "pinned  ████░░  143.6 GB". */
static void draw_compare_bar(struct tui_pen *p, int line, const char *label,
                             const struct engine_estimate *e, enum units u) {
    char a[32], b[48];
    int lw = 9;
    report_bytes(e->memory.total, u, a, sizeof(a));
    snprintf(b, sizeof(b), " %s", a);
    int rw = tui_pen_width(p, b);
    tui_pen_text(p, line, 0, TUI_ROLE_LABEL, label);
    tui_draw_bar(p, line, lw, p->iw - lw - rw - 1, e);
    tui_pen_text(p, line, p->iw - rw, e->fits && !e->invalid ? TUI_ROLE_GOOD : TUI_ROLE_BAD, b);
}

/* The Memory pane of a comparison: the pinned bar over the current one,
 * then the current verdict and capacity. */
static void draw_memory_compare(struct tui_pen *p) {
    const struct tui_state *st = p->st;
    const struct engine_estimate *e = &st->est;
    char a[32], buf[160];
    tui_pen_show(p, 0);
    draw_compare_bar(p, 0, _("pinned"), &st->lx.pin_est, st->opt.units);
    draw_compare_bar(p, 1, _("current"), e, st->opt.units);
    bool ok = e->invalid == 0 && e->fits;
    tui_pen_text(p, 2, 0, ok ? TUI_ROLE_GOOD : TUI_ROLE_BAD,
                 p->masked ? _("fits? ?") : st->verdict);
    if (p->ih >= 4) {
        char b[32];
        report_bytes(st->lx.pin_est.capacity, st->opt.units, a, sizeof(a));
        report_bytes(e->capacity, st->opt.units, b, sizeof(b));
        snprintf(buf, sizeof(buf), _("capacity per GPU: pinned %s, current %s"), a, b);
        tui_pen_text(p, 3, 0, TUI_ROLE_DIM, buf);
    }
}

/* Short legend labels, in segment order. */
static const char *const tui_segments_short[TUI_SEGMENTS] = {
    N_("w"), N_("KV"), N_("act"), N_("grad"), N_("mstr"), N_("opt"), N_("buf"), N_("res")};

/* The legend text of segment s ("reserve 1.00", or "res 1.00"); false
 * when the segment is not shown. bare (the narrowest form): every part as
 * a number of GB or GiB, the total's unit ("res 0.931", not "res 953.7
 * MiB"), so that all the parts fit and add up to the total. */
static bool legend_item(const struct tui_state *st, const double *seg, int s, bool brief,
                        bool bare, char *buf, size_t len) {
    char a[32];
    if (!(seg[s] > 0) && !(st->focus[TUI_PANE_MEMORY] == tui_segments[s].field &&
                           tui_field_applies(st, tui_segments[s].field)))
        return false;
    char num[32], unit[16];
    if (bare) {
        double per = st->opt.units == UNITS_GIB ? 1073741824.0 : 1e9;
        report_value(seg[s] / per, ENGINE_UNIT_NUMBER, st->opt.units, a, sizeof(a));
        snprintf(buf, len, "%s %s", _(tui_segments_short[s]), a);
        return true;
    }
    report_bytes(seg[s], st->opt.units, a, sizeof(a));
    /* "19.9 GB" -> "19.9" to keep the legend short; units on the total. */
    report_split_unit(a, num, sizeof(num), unit, sizeof(unit));
    if (strcmp(unit, st->opt.units == UNITS_GIB ? "GiB" : "GB") == 0)
        snprintf(a, sizeof(a), "%s", num);
    snprintf(buf, len, "%s %s", brief ? _(tui_segments_short[s]) : _(tui_segments[s].label), a);
    return true;
}

/* Columns the legend takes (each item: fill, space, text, two spaces). */
static int legend_width(const struct tui_state *st, const double *seg, bool brief, bool bare) {
    char buf[64];
    int w = 0;
    for (int s = 0; s < TUI_SEGMENTS; s++)
        if (legend_item(st, seg, s, brief, bare, buf, sizeof(buf)))
            w += tui_width(buf) + (brief ? 3 : 4);
    return w;
}

/* Draw the legend on a content line; returns the columns used. */
static int draw_legend(struct tui_pen *p, int line, const double *seg, bool brief, bool bare) {
    char buf[64];
    int x = 0;
    for (int s = 0; s < TUI_SEGMENTS; s++) {
        if (!legend_item(p->st, seg, s, brief, bare, buf, sizeof(buf)))
            continue;
        if (x + tui_width(buf) + 2 > p->iw)
            break;
        x += tui_pen_text(p, line, x, tui_segments[s].role, segment_fill(p->ui, s));
        x += 1;
        x += tui_pen_field(p, line, x, tui_segments[s].field, buf);
        x += brief ? 1 : 2;
    }
    return x;
}

/* Training with --offload: what sits in host RAM and on NVMe, and what
 * crosses the host link each step (ZeRO-Offload, ZeRO-Infinity). */
static void draw_offload_line(struct tui_pen *p, int line, char *buf, size_t len) {
    const struct tui_state *st = p->st;
    const struct engine_estimate *e = &st->est;
    char h[32], n[32], t[32], s[32];
    report_bytes(e->memory.host, st->opt.units, h, sizeof(h));
    report_bytes(e->memory.nvme, st->opt.units, n, sizeof(n));
    report_bytes(e->train_offload_bytes_per_step, st->opt.units, t, sizeof(t));
    report_seconds(e->train_offload_seconds, s, sizeof(s));
    const char *c[3] = {_("host RAM %s, NVMe %s per GPU; %s per step over PCIe, %s"),
                        _("host %s, NVMe %s; PCIe %s/step, %s"), _("host %s, NVMe %s")};
    for (int k = 0; k < 3; k++) {
        snprintf(buf, len, c[k], h, n, t, s);
        if (tui_width(buf) <= p->iw || k == 2)
            break;
    }
    tui_pen_field(p, line, 0, TUI_F_MEM_HOST, buf);
}

/* The Memory pane: bar, labelled segments, verdict, first warning. */
void tui_draw_memory(struct tui_pen *p) {
    const struct tui_state *st = p->st;
    const struct engine_estimate *e = &st->est;
    char a[32], b[48], buf[160];
    double seg[TUI_SEGMENTS];
    if (st->lx.pinned) {
        draw_memory_compare(p);
        return;
    }
    tui_pen_show(p, 0);

    report_bytes(e->capacity, st->opt.units, a, sizeof(a));
    snprintf(b, sizeof(b), _(" of %s"), a);
    int rw = tui_pen_width(p, b);
    tui_draw_bar(p, 0, 0, p->iw - rw - 1, e);
    tui_pen_figure(p, 0, p->iw - rw, TUI_ROLE_LABEL, ENGINE_KEY_CAPACITY, b);

    /* Legend (fields) and verdict; in a two-line pane the verdict wins
     * unless the legend has focus. */
    int ll = 1, lv = 2;
    if (p->ih < 3 && !p->focused) {
        ll = 2;
        lv = 1;
    }
    segment_bytes(&e->memory, seg);
    /* Every part is shown so they add up to the total: long labels when
     * they fit with the total, short ones ("res") when not, and the total
     * moves after the verdict before a part is dropped. */
    report_bytes(e->memory.total, st->opt.units, a, sizeof(a));
    snprintf(buf, sizeof(buf), _("total %s"), a);
    /* Forms: long labels with the total; short ones with it; short ones,
     * the total after the verdict; every part a bare number of the total's
     * unit, the total after the verdict. */
    int tw = tui_pen_width(p, buf) + 1, form = 0;
    while (form < 3 && legend_width(st, seg, form > 0, form > 2) + (form < 2 ? tw : 0) > p->iw)
        form++;
    int x = draw_legend(p, ll, seg, form > 0, form > 2);
    report_bytes(e->memory.total, st->opt.units, a, sizeof(a));
    snprintf(buf, sizeof(buf), _("total %s"), a);
    bool total_shown = x + tui_pen_width(p, buf) <= p->iw;
    if (total_shown)
        tui_pen_field(p, ll, p->iw - tui_pen_width(p, buf), TUI_F_MEM_TOTAL, buf);

    bool ok = e->invalid == 0 && e->fits;
    /* A question's verdict would be its answer. */
    int vw = tui_pen_text(p, lv, 0, ok ? TUI_ROLE_GOOD : TUI_ROLE_BAD,
                          p->masked ? _("fits? ?") : st->verdict);
    if (!total_shown) {
        /* The legend had no room for the total: it goes after the verdict. */
        report_bytes(e->memory.total, st->opt.units, a, sizeof(a));
        snprintf(buf, sizeof(buf), _("total %s"), a);
        if (vw + tui_pen_width(p, buf) + 2 <= p->iw)
            tui_pen_field(p, lv, p->iw - tui_pen_width(p, buf), TUI_F_MEM_TOTAL, buf);
    }
    if (p->ih >= 4 && e->invalid == 0 && st->opt.sc.mode == ENGINE_MODE_INFER &&
        e->memory.host > 0 && e->serving.host_layers > 0) {
        /* Partial offload: the split between the GPUs and host RAM. */
        char h[32], l[24], L[24], bw[32];
        report_bytes(e->memory.host, st->opt.units, h, sizeof(h));
        report_int(e->serving.gpu_layers, l, sizeof(l));
        report_int(st->opt.sc.model.layers, L, sizeof(L));
        report_bandwidth(e->serving.host_bytes_per_s, bw, sizeof(bw));
        const char *c[3] = {_("host RAM %s: %s of %s layers on the GPU, the rest read at %s"),
                            _("host RAM %s: %s of %s layers on the GPU"), _("host %s, %s/%s on GPU")};
        for (int k = 0; k < 3; k++) {
            snprintf(buf, sizeof(buf), c[k], h, l, L, bw);
            if (tui_width(buf) <= p->iw || k == 2)
                break;
        }
        tui_pen_field(p, 3, 0, TUI_F_MEM_HOST, buf);
    } else if (p->ih >= 4 && !p->masked && e->invalid == 0 &&
               st->opt.sc.mode == ENGINE_MODE_TRAIN && st->opt.sc.offload != ENGINE_OFFLOAD_NONE) {
        draw_offload_line(p, 3, buf, sizeof(buf));
    } else if (p->ih >= 4 && !p->masked) {
        for (int w = 0; w < ENGINE_WARNING_COUNT; w++) {
            unsigned bit = 1u << w;
            if (!(e->warnings & bit) || bit == ENGINE_WARN_DOES_NOT_FIT)
                continue;
            report_warning(&st->opt.sc, e, (enum engine_warning)bit, st->opt.units, buf,
                           sizeof(buf));
            tui_pen_text(p, 3, 0, TUI_ROLE_WARN, buf);
            break;
        }
    }
}
