/*
 * state_advice.c: the explorer's choices made for the user and its advice.
 *
 * When the GPU count changes, the layout becomes the best one the engine's
 * search ranks for that count (fitting first, then throughput); TP, PP and
 * DP stay editable afterwards. The verdict line says whether the scenario
 * fits and, when it does not, what to try: the cheap training knobs, a
 * standard narrower format (one the GPU computes natively, such as FP8 on
 * a GPU with FP8 FLOP/s, then INT4 g32), a better layout of the same GPUs,
 * or more GPUs (never as many as are on screen). QLoRA switches the weight
 * format to NF4 and back. The format pickers list what applies to each.
 */
#include "config.h"

#include "tui/state.h"

#include <stdio.h>
#include <string.h>

#include "tui/i18n.h"
#include "tui/report.h"

#define TUI_LAYOUTS_MAX 256 /* (t, p) pairs of any count up to 65536 */

/* GPUs per node of the scenario (the engine's rule). */
uint32_t tui_gpus_per_node(const struct engine_scenario *sc) {
    if (sc->gpus_per_node)
        return sc->gpus_per_node;
    return sc->gpu.gpus_per_node ? sc->gpu.gpus_per_node : 1;
}

/* The best valid layout of gpus GPUs: the search's first when one fits,
 * else the one that needs the least memory per GPU. False: none valid. */
static bool best_layout(const struct engine_scenario *sc, uint32_t gpus, struct engine_layout *out) {
    struct engine_layout l[TUI_LAYOUTS_MAX];
    size_t n = engine_search_layouts(sc, gpus, l, TUI_LAYOUTS_MAX);
    const struct engine_layout *pick = NULL;
    if (n > TUI_LAYOUTS_MAX)
        n = TUI_LAYOUTS_MAX;
    for (size_t i = 0; i < n; i++) {
        if (l[i].reject == ENGINE_REJECT_NONE) {
            pick = &l[i];
            break;
        }
        if (l[i].reject == ENGINE_REJECT_MEMORY &&
            (!pick || l[i].memory_total < pick->memory_total))
            pick = &l[i];
    }
    if (!pick)
        return false;
    *out = *pick;
    return true;
}

/* Set the GPU count and take the best layout for it; false when no layout
 * of that count is valid (the scenario is left as it was). */
bool tui_state_set_gpus(struct tui_state *st, uint32_t gpus) {
    struct engine_scenario *sc = &st->opt.sc;
    struct engine_layout l;
    if (!best_layout(sc, gpus, &l))
        return false;
    sc->tp = l.tp;
    sc->pp = l.pp;
    sc->dp = l.dp;
    sc->gpus = gpus;
    return true;
}

/* Whether a catalog format is listed for the KV cache only: a KV-only
 * format (catalog_format_kv_only, refused for weights everywhere), or an
 * alias kept for --kv-format (the fp8 alias of fp8-e4m3, which the weights
 * picker lists under its own id). */
static bool format_kv_only(const struct engine_format *f) {
    const char *src = f->source ? f->source : "";
    return catalog_format_kv_only(f) || strstr(src, "as used for the KV cache") != NULL;
}

/* Whether a format can hold the KV cache: plain floats (16-bit, FP8), INT8
 * and the KV entries; not the weight-only block formats (GGUF, NF4...). */
bool tui_format_for_kv(const struct engine_format *f) {
    if (format_kv_only(f))
        return true;
    if (f->kind == ENGINE_FMT_FLOAT)
        return f->bits >= 8 && f->bits <= 16;
    return strcmp(f->id, "int8") == 0;
}

/* Whether a format can hold the weights (every entry but the KV-only). */
bool tui_format_for_weights(const struct engine_format *f) {
    return !format_kv_only(f);
}

/* Catalog index of a format id, or -1. */
static int format_index(const struct catalog *c, const char *id) {
    for (size_t i = 0; c && i < c->n_formats; i++)
        if (strcmp(c->formats[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* Change the mode: entering QLoRA switches the weights to NF4 (the base it
 * quantizes), leaving it restores the format it replaced; recompute
 * follows the mode (full for LoRA and QLoRA, selective otherwise) unless
 * the user set it. */
void tui_state_set_mode(struct tui_state *st, enum engine_mode mode) {
    struct engine_scenario *sc = &st->opt.sc;
    enum engine_mode old = sc->mode;
    sc->mode = mode;
    if (old == mode)
        return;
    /* One rule whatever the path (--mode, t, the picker, a lesson): the
     * mode's recompute unless the user chose one (options_build.c). */
    if (!st->opt.recompute_given)
        sc->recompute = mode == ENGINE_MODE_LORA || mode == ENGINE_MODE_QLORA
                            ? ENGINE_RECOMPUTE_FULL
                            : ENGINE_RECOMPUTE_SELECTIVE;
    if (mode == ENGINE_MODE_QLORA) {
        int i = format_index(st->cat, "nf4");
        if (i < 0 || strcmp(sc->weight_format.id, "nf4") == 0)
            return;
        st->qlora_saved_format = sc->weight_format;
        st->qlora_saved_index = st->wfmt_index;
        st->qlora_switched = true;
        sc->weight_format = st->cat->formats[i];
        st->wfmt_index = i;
        snprintf(st->message, sizeof(st->message), _("QLoRA: base weights in %s"),
                 sc->weight_format.name);
    } else if (old == ENGINE_MODE_QLORA && st->qlora_switched) {
        st->qlora_switched = false;
        if (strcmp(sc->weight_format.id, "nf4") != 0)
            return; /* the user chose another format since */
        sc->weight_format = st->qlora_saved_format;
        st->wfmt_index = st->qlora_saved_index;
    }
}

/* Why the weight format cannot change in full training. */
void tui_state_recipe_note(struct tui_state *st) {
    snprintf(st->message, sizeof(st->message),
             _("full training keeps the weights as the %s recipe says (Layout: recipe)"),
             engine_recipe_info(st->opt.sc.recipe)->id);
}

/* Short name of a format for the verdict ("INT4 g32"). */
static const char *format_short(const struct engine_format *f) {
    return f->name[0] ? f->name : f->id;
}

/* Whether the scenario with format f fits. */
static bool fits_with(const struct engine_scenario *sc, const struct engine_format *f) {
    struct engine_scenario trial = *sc;
    struct engine_estimate e;
    trial.weight_format = *f;
    engine_estimate(&trial, &e);
    return e.invalid == 0 && e.fits;
}

/* A standard narrower format that fits: the widest the GPU computes
 * natively (FP8, INT8 or FP4 with FLOP/s on this GPU; FP8 before INT8),
 * then INT4 g32. NULL when none. */
static const struct engine_format *advise_format(const struct tui_state *st) {
    const struct engine_scenario *sc = &st->opt.sc;
    const struct engine_format *best = NULL;
    double cur = engine_format_bits(&sc->weight_format), best_bits = 0;
    if (!st->cat)
        return NULL;
    for (size_t i = 0; i < st->cat->n_formats; i++) {
        const struct engine_format *f = &st->cat->formats[i];
        double b = engine_format_bits(f);
        bool native = f->compute == ENGINE_COMPUTE_FP8 || f->compute == ENGINE_COMPUTE_INT8 ||
                      f->compute == ENGINE_COMPUTE_FP4;
        if (!native || !(sc->gpu.flops[f->compute] > 0) || !tui_format_for_weights(f) ||
            !(b < cur))
            continue;
        /* Wider wins (less lost); within half a bit FP8 beats INT8. */
        bool fp8 = f->compute == ENGINE_COMPUTE_FP8;
        bool better = !best || b > best_bits + 0.5 ||
                      (b > best_bits - 0.5 && fp8 && best->compute != ENGINE_COMPUTE_FP8);
        if (better && fits_with(sc, f)) {
            best = f;
            best_bits = b;
        }
    }
    if (best)
        return best;
    int i = format_index(st->cat, "int4-g32");
    if (i >= 0 && engine_format_bits(&st->cat->formats[i]) < cur &&
        fits_with(sc, &st->cat->formats[i]))
        return &st->cat->formats[i];
    return NULL;
}

/* The next GPU count worth suggesting: by one to 16, then eight per octave
 * (the GPU count field's ladder). */
static uint32_t next_count(uint32_t g) {
    uint32_t p = 1;
    while (p * 2 <= g)
        p *= 2;
    return g < 16 ? g + 1 : g + p / 8;
}

/* Write "try N GPUs (TP=t PP=p)" or a better layout of the same count. */
static void advise_gpus(const struct engine_scenario *sc, const char *pre, char *buf, size_t len) {
    struct engine_layout l;
    uint32_t g = sc->gpus;
    if (best_layout(sc, g, &l) && l.fits && (l.tp != sc->tp || l.pp != sc->pp)) {
        snprintf(buf, len, _("%slayout TP=%u PP=%u DP=%u"), pre, l.tp, l.pp, l.dp);
        return;
    }
    for (g = next_count(sc->gpus); g <= 4096; g = next_count(g)) {
        if (engine_search_layouts(sc, g, &l, 1) == 0 || !l.fits || l.reject != ENGINE_REJECT_NONE)
            continue;
        char n[24];
        report_int(g, n, sizeof(n));
        if (l.pp > 1)
            snprintf(buf, len, _("%s%s GPUs (TP=%u PP=%u)"), pre, n, l.tp, l.pp);
        else if (l.tp > 1)
            snprintf(buf, len, _("%s%s GPUs (TP=%u)"), pre, n, l.tp);
        else
            snprintf(buf, len, _("%s%s GPUs"), pre, n);
        return;
    }
}

/* Advice for a scenario that does not fit: a training knob, a narrower
 * format, then a better layout or more GPUs. */
static void verdict_advice(struct tui_state *st, char *buf, size_t len) {
    const struct engine_scenario *sc = &st->opt.sc;
    struct engine_scenario trial;
    struct engine_estimate e;
    size_t used = 0;

    buf[0] = '\0';
    if (sc->mode != ENGINE_MODE_INFER) {
        trial = *sc;
        for (uint32_t z = sc->zero + 1; z <= 3 && sc->dp > 1 && !used; z++) {
            trial.zero = z;
            engine_estimate(&trial, &e);
            if (e.invalid == 0 && e.fits)
                used += (size_t)snprintf(buf, len, _("try ZeRO-%u"), z);
        }
        trial = *sc;
        trial.recompute = ENGINE_RECOMPUTE_FULL;
        if (!used && sc->recompute != ENGINE_RECOMPUTE_FULL) {
            engine_estimate(&trial, &e);
            if (e.invalid == 0 && e.fits)
                used += (size_t)snprintf(buf, len, "%s", _("try full recompute"));
        }
    }
    /* Full training uses the recipe's bytes, not the weight format. */
    const struct engine_format *f =
        used || sc->mode == ENGINE_MODE_TRAIN ? NULL : advise_format(st);
    if (f)
        used += (size_t)snprintf(buf, len, _("try %s"), format_short(f));
    if (used >= len)
        return;
    advise_gpus(sc, used ? _(" or ") : _("try "), buf + used, len - used);
}

/* One line saying whether and how the scenario fits. */
void tui_state_verdict(struct tui_state *st) {
    const struct engine_estimate *e = &st->est;
    const struct engine_scenario *sc = &st->opt.sc;
    char a[32], advice[112];

    if (e->invalid) {
        for (unsigned bit = 1; bit; bit <<= 1) {
            if (e->invalid & bit) {
                char why[120];
                engine_invalid_text(sc, bit, why, sizeof(why));
                snprintf(st->verdict, sizeof(st->verdict), _("invalid: %s"), why);
                return;
            }
        }
    }
    if (e->fits) {
        char n[24];
        report_bytes(e->spare_bytes, st->opt.units, a, sizeof(a));
        report_int(e->gpus, n, sizeof(n));
        snprintf(st->verdict, sizeof(st->verdict), _("fits on %s x %s with %s spare"), n,
                 sc->gpu.name[0] ? sc->gpu.name : sc->gpu.id, a);
        return;
    }
    verdict_advice(st, advice, sizeof(advice));
    report_bytes(-e->spare_bytes, st->opt.units, a, sizeof(a));
    char ratio[24];
    report_ratio(e->memory_ratio, ratio, sizeof(ratio)); /* plan's "1.02x" */
    snprintf(st->verdict, sizeof(st->verdict), _("needs %s the memory (%s short)%s%s"), ratio, a,
             advice[0] ? ": " : "", advice);
}
